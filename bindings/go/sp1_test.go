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
