// SPDX-License-Identifier: MIT OR Apache-2.0

package gpuprover_test

import (
	"encoding/hex"
	"reflect"
	"testing"

	gp "gpuprover.dev/gpuprover"
)

// winter-crypto's MerkleTree<H> (Winterfell) and its hashes.

// TestWinterfellIDs: the new permutation ids; the hashes are refused by
// PermuteBatch, Rp64_256 gives winter-crypto's own test vector
// (crypto/src/hash/rescue/rp64_256/tests.rs, apply_permutation, v0.13.1).
func TestWinterfellIDs(t *testing.T) {
	ctx := newContext(t)
	if gp.Sha3_256 != 20 || gp.Blake3_192 != 21 || gp.Rp64_256 != 22 || gp.Winterfell != 11 {
		t.Fatalf("ids %d %d %d %d", int(gp.Sha3_256), int(gp.Blake3_192), int(gp.Rp64_256), int(gp.Winterfell))
	}
	for _, c := range []struct {
		p     gp.Permutation
		width int
		field gp.Field
	}{{gp.Sha3_256, 25, 0}, {gp.Blake3_192, 16, 0}, {gp.Rp64_256, 12, gp.Goldilocks}} {
		width, field, err := c.p.Info()
		if err != nil || width != c.width || field != c.field {
			t.Fatalf("%d.Info() = %d, %v, %v", int(c.p), width, field, err)
		}
	}
	for _, p := range []gp.Permutation{gp.Sha3_256, gp.Blake3_192} {
		expectError(t, ctx.PermuteBatch(p, make([]uint64, 25)), gp.ErrUnsupported, "hash function")
		expectError(t, gp.PermuteBatch(ctx, p, make([]uint64, 3)), gp.ErrUnsupported, "hash function")
	}
	state := []uint64{0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11}
	if err := gp.PermuteBatch(ctx, gp.Rp64_256, state); err != nil {
		t.Fatal(err)
	}
	want := []uint64{11084501481526603421, 6291559951628160880, 13626645864671311919, 18397438323058963117,
		7443014167353970324, 17930833023906771425, 4275355080008025761, 7676681476902901785,
		3460534574143792217, 11912731278641497187, 8104899243369883110, 674509706691634438}
	if !reflect.DeepEqual(state, want) {
		t.Fatalf("Rp64_256(0..11) = %v", state)
	}
}

// TestMerkleWinterfell: a 4 x 3 matrix committed as winter-crypto 0.13.1
// commits it (tests/vectors/winterfell_merkle.json, trees[1]): the root and
// the path of leaf 0, as winterfell serializes them, for every hasher.
func TestMerkleWinterfell(t *testing.T) {
	ctx := newContext(t)
	if gp.Winterfell.String() != "Winterfell" {
		t.Fatalf("String() = %q", gp.Winterfell.String())
	}
	if p := (&gp.MerkleOptions{Kind: gp.Winterfell}).PermutationFor(gp.Goldilocks); p != gp.Blake3 {
		t.Fatalf("PermutationFor = %v", p)
	}
	m := &hostMat{rows: 4, cols: 3, ext: 1, data: []uint64{
		0xb1856323f83bfa2a, 0x12cea4d20a33e495, 0x48ab1ee805ea53f6,
		0x4680ecc64ef6c3fc, 0x2886aa25d853e62a, 0x0000000000000001,
		0xb907eb1143a409a2, 0x0a693ab06da0c282, 0x303c827812b949b8,
		0x270d207f0aa4e3ad, 0x6a99aa266056e556, 0x10a7c2ad686b636f}}
	b := m.upload(t, ctx, gp.Goldilocks)
	for _, c := range []struct {
		perm       gp.Permutation
		size       int
		root, path string
	}{
		{gp.Sha3_256, 32, "9142e6b69d1aa46d019c53831c1108aa99a182fe51785cb8dfd9ff4591644751",
			"ad38d830c812b7a97fcddaa4092ec2cbb8ca8244f12ced25ec7774c58d6c2765" +
				"7b4c9812d1f5730023d4c6af728c38395741f9ce28e4ba98fb1e06e9905b5e2e"},
		{gp.Blake3, 32, "7a8138a7600ea6f7248963589fd57912b8d166392f87cabd642580777eeb8be2",
			"1e66f2a046908d1f3f273bf3b9959719cb473a51d6a3b8fb049c5087a57f3091" +
				"d006c1ef730b18c0016dc5e5b66842cc297077c0a8d859ae987696e10c121cc7"},
		{gp.Blake3_192, 24, "2486b886301a2d2b03e8c0d82a16615d5a4fb0352ffb4366",
			"1e66f2a046908d1f3f273bf3b9959719cb473a51d6a3b8fb" +
				"e808364a67eb168dc05d686c92462013b426f9c8f1530635"},
		{gp.Rp64_256, 32, "a1115cfe3437066635de3e0e071923d422e939e54dcc87188a70ab7764e6e3b3",
			"af2146761b9ff4f2844f53c542bc19d17365fd64cccce614f0ddc9892f1a2991" +
				"b407a20c4db429a4eedc177571b2e52906e835b7a0a1a38295c4225118a3beeb"},
	} {
		opts := &gp.MerkleOptions{Kind: gp.Winterfell, Perm: c.perm}
		tree, root := commitRoot(t, ctx, opts, b)
		defer tree.Close()
		if tree.DigestSize() != c.size || hex.EncodeToString(root) != c.root {
			t.Fatalf("perm %d: root %x (%d bytes), want %s", int(c.perm), root, tree.DigestSize(), c.root)
		}
		leaves, err := ctx.MerkleHashRows(opts, b)
		if err != nil || len(leaves) != 4*c.size {
			t.Fatalf("MerkleHashRows: %d bytes, %v", len(leaves), err)
		}
		openings, err := tree.Open(0)
		if err != nil {
			t.Fatal(err)
		}
		o := openings[0]
		if hex.EncodeToString(o.Path) != c.path || !reflect.DeepEqual(o.Rows.([]uint64), m.row(0)) {
			t.Fatalf("perm %d: opening %v %x", int(c.perm), o.Rows, o.Path)
		}
		topts := tree.Options()
		if err := gp.MerkleVerify(&topts, gp.Goldilocks, tree.Dims(), root, 0, o.Rows, o.Path); err != nil {
			t.Fatal(err)
		}
		o.Path = append([]byte(nil), o.Path...)
		o.Path[3] ^= 4
		expectError(t, gp.MerkleVerify(&topts, gp.Goldilocks, tree.Dims(), root, 0, o.Rows, o.Path), gp.ErrVerifyFailed)
	}
	// One row: winterfell's trees have two leaves or more.
	one := (&hostMat{rows: 1, cols: 2, ext: 1, data: []uint64{1, 2}}).upload(t, ctx, gp.Goldilocks)
	_, err := ctx.MerkleCommit(&gp.MerkleOptions{Kind: gp.Winterfell}, one)
	expectError(t, err, gp.ErrShapeMismatch, "two leaves")
}
