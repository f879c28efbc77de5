// SPDX-License-Identifier: MIT OR Apache-2.0

package gpuprover_test

import (
	"encoding/hex"
	"testing"

	gp "gpuprover.dev/gpuprover"
)

// SP1's conventions: its Poseidon2 instances and its tensor commitment.

// TestSP1Permutations: the ids, and SP1's own known answers for the all-zero
// state (tests/vectors/sp1_poseidon2.json: gnark-ffi TestPoseidonKoalaBear2,
// SP1 v6; TestPoseidonBabyBear2, SP1 v5).
func TestSP1Permutations(t *testing.T) {
	ctx := newContext(t)
	if gp.Poseidon2KoalaBear16SP1 != 23 || gp.Poseidon2BabyBear16SP1 != 24 {
		t.Fatalf("ids %d %d", int(gp.Poseidon2KoalaBear16SP1), int(gp.Poseidon2BabyBear16SP1))
	}
	for _, c := range []struct {
		p      gp.Permutation
		field  gp.Field
		first2 [2]uint32
	}{
		{gp.Poseidon2KoalaBear16SP1, gp.KoalaBear, [2]uint32{145589356, 1876041682}},
		{gp.Poseidon2BabyBear16SP1, gp.BabyBear, [2]uint32{348670919, 1568590631}},
	} {
		width, field, err := c.p.Info()
		if err != nil || width != 16 || field != c.field {
			t.Fatalf("%d.Info() = %d, %v, %v", int(c.p), width, field, err)
		}
		state := make([]uint32, 16)
		if err := gp.PermuteBatch(ctx, c.p, state); err != nil {
			t.Fatal(err)
		}
		if state[0] != c.first2[0] || state[1] != c.first2[1] {
			t.Fatalf("perm %d of zeros = %v", int(c.p), state)
		}
	}
}

// TestSP1Commitment: the 4 x 3 KoalaBear matrix of rows (3r, 3r+1, 3r+2)
// committed with SP1 v6's tree and bound to its shape. Expected values from
// the naive model of tests/test_hash_sp1.cpp (itself checked against SP1's
// known answers).
func TestSP1Commitment(t *testing.T) {
	ctx := newContext(t)
	m := &hostMat{rows: 4, cols: 3, ext: 1, data: []uint64{0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11}}
	b := m.upload(t, ctx, gp.KoalaBear)
	defer b.Close()
	tree, root := commitRoot(t, ctx, &gp.MerkleOptions{Kind: gp.FieldSponge, Perm: gp.Poseidon2KoalaBear16SP1}, b)
	defer tree.Close()
	if hex.EncodeToString(root) != "78d03539b94e9664a007dc79502f2437044bc9561d108f09f52e2e05b594347d" {
		t.Fatalf("root %x", root)
	}
	c, err := tree.SP1Commitment()
	if err != nil || hex.EncodeToString(c) != "c9de43374309654003feb36db1659245e116377abbb66808fef0c3343060cd64" {
		t.Fatalf("SP1Commitment = %x, %v", c, err)
	}
	keccak, _ := commitRoot(t, ctx, &gp.MerkleOptions{Kind: gp.KeccakPlonky3}, b)
	defer keccak.Close()
	_, err = keccak.SP1Commitment()
	expectError(t, err, gp.ErrUnsupported, "GP_MERKLE_KECCAK_PLONKY3")
}

// TestSP1Encoding: basefold's encoding (LDE of coefficients) equals the
// forward transform of the zero-padded coefficients on the same coset and
// differs from the LDE of the same values read as evaluations.
func TestSP1Encoding(t *testing.T) {
	ctx := newContext(t)
	coeffs := make([]uint32, 4*3) // 4 rows x 3 columns, column-major
	for i := range coeffs {
		coeffs[i] = uint32((uint64(i)*2654435761 + 17) % 2130706433)
	}
	for _, shift := range []uint64{1, 31} {
		enc, err := ctx.NewBuffer(gp.KoalaBear, 1, 8, 3)
		if err != nil {
			t.Fatal(err)
		}
		defer enc.Close()
		if err := ctx.LDEHost(gp.KoalaBear, 1, coeffs, 4, 3, enc, &gp.LDEOptions{Shift: shift, Input: gp.Coefficients}); err != nil {
			t.Fatal(err)
		}
		padded := make([]uint32, 8*3)
		for c := 0; c < 3; c++ {
			copy(padded[8*c:8*c+4], coeffs[4*c:4*c+4])
		}
		ref, err := ctx.BufferFromHost(gp.KoalaBear, 1, 8, 3, gp.ColMajor, padded)
		if err != nil {
			t.Fatal(err)
		}
		defer ref.Close()
		if err := ctx.NTT(ref, &gp.NTTOptions{Shift: shift}); err != nil {
			t.Fatal(err)
		}
		got, want := make([]uint32, 24), make([]uint32, 24)
		if err := enc.ToHost(gp.ColMajor, got); err != nil {
			t.Fatal(err)
		}
		if err := ref.ToHost(gp.ColMajor, want); err != nil {
			t.Fatal(err)
		}
		for i := range got {
			if got[i] != want[i] {
				t.Fatalf("shift %d: encoding %v, padded transform %v", shift, got, want)
			}
		}
		if err := ctx.LDEHost(gp.KoalaBear, 1, coeffs, 4, 3, enc, &gp.LDEOptions{Shift: shift}); err != nil {
			t.Fatal(err)
		}
		if err := enc.ToHost(gp.ColMajor, got); err != nil {
			t.Fatal(err)
		}
		same := true
		for i := range got {
			same = same && got[i] == want[i]
		}
		if same {
			t.Fatalf("shift %d: the LDE of evaluations equals the encoding", shift)
		}
	}
	out, err := ctx.NewBuffer(gp.KoalaBear, 1, 8, 3)
	if err != nil {
		t.Fatal(err)
	}
	defer out.Close()
	err = ctx.LDEHost(gp.KoalaBear, 1, coeffs, 4, 3, out, &gp.LDEOptions{Input: gp.Coefficients, Randomizers: []uint32{1, 2, 3}})
	expectError(t, err, gp.ErrUnsupported, "")
}
