// SPDX-License-Identifier: MIT OR Apache-2.0

package gpuprover_test

import (
	"bytes"
	"encoding/hex"
	"math/rand"
	"reflect"
	"testing"

	gp "gpuprover.dev/gpuprover"
)

// Miden's lifted MMCS (MidenLMCS) and matrices of 0 columns.

func TestMerkleMidenLMCS(t *testing.T) {
	ctx := newContext(t)
	if gp.MidenLMCS != 10 || gp.MidenLMCS.String() != "MidenLMCS" {
		t.Fatalf("MidenLMCS = %d, %q", int(gp.MidenLMCS), gp.MidenLMCS.String())
	}
	opts := &gp.MerkleOptions{Kind: gp.MidenLMCS}
	if p := opts.PermutationFor(gp.Goldilocks); p != gp.Poseidon2Goldilocks12 {
		t.Fatalf("PermutationFor = %v", p)
	}

	// One row of [0, 1, ..., 7]: a single leaf, one full rate block, so the
	// root is miden-crypto's RPO256 hash_elements of [0..7] (current layout),
	// from tests/vectors/rpo256.json (sponge_variants[0], the vector of 8
	// elements).
	one := (&hostMat{rows: 1, cols: 8, ext: 1, data: []uint64{0, 1, 2, 3, 4, 5, 6, 7}}).upload(t, ctx, gp.Goldilocks)
	tree, root := commitRoot(t, ctx, &gp.MerkleOptions{Kind: gp.MidenLMCS, Perm: gp.RPO256}, one)
	defer tree.Close()
	want := []uint64{0x4b3c182215fa152d, 0x872676ff4576e410, 0x61644a79a8db9653, 0x77d8ddd0a9218f81}
	if tree.DigestSize() != 32 || !reflect.DeepEqual(words(gp.Goldilocks, root), want) {
		t.Fatalf("root %x (digest %d bytes), want %x", words(gp.Goldilocks, root), tree.DigestSize(), want)
	}

	// Heights 4 then 8, lifted: leaf i reads row i mod 4 of the first.
	rng := rand.New(rand.NewSource(7600))
	const p = 0xffffffff00000001
	short := &hostMat{rows: 4, cols: 3, ext: 1, data: randomValues(rng, p, 12)}
	tall := &hostMat{rows: 8, cols: 8, ext: 1, data: randomValues(rng, p, 64)}
	sb, tb := short.upload(t, ctx, gp.Goldilocks), tall.upload(t, ctx, gp.Goldilocks)
	lifted, lroot := commitRoot(t, ctx, opts, sb, tb)
	defer lifted.Close()
	if lifted.Options().Perm != gp.Poseidon2Goldilocks12 || lifted.DigestSize() != 32 {
		t.Fatalf("options %+v, digest %d bytes", lifted.Options(), lifted.DigestSize())
	}
	openings, err := lifted.Open(0, 5, 7)
	if err != nil {
		t.Fatal(err)
	}
	for _, o := range openings {
		wantRow := append(append([]uint64(nil), short.row(int(o.Index%4))...), tall.row(int(o.Index))...)
		if !reflect.DeepEqual(o.Rows.([]uint64), wantRow) {
			t.Fatalf("row %d: %v, want %v", o.Index, o.Rows, wantRow)
		}
		topts := lifted.Options()
		if err := gp.MerkleVerify(&topts, gp.Goldilocks, lifted.Dims(), lroot, o.Index, o.Rows, o.Path); err != nil {
			t.Fatal(err)
		}
		o.Path = append([]byte(nil), o.Path...)
		o.Path[3] ^= 4
		expectError(t, lifted.Verify(o), gp.ErrVerifyFailed)
	}

	// Descending heights are refused.
	_, err = ctx.MerkleCommit(opts, tb, sb)
	expectError(t, err, gp.ErrShapeMismatch)
}

func TestMerkleMidenLMCSBlake3(t *testing.T) {
	ctx := newContext(t)
	opts := &gp.MerkleOptions{Kind: gp.MidenLMCS, Perm: gp.Blake3}
	if p := opts.PermutationFor(gp.Goldilocks); p != gp.Blake3 {
		t.Fatalf("PermutationFor = %v", p)
	}
	rootHex := func(bufs ...*gp.Buffer) string {
		t.Helper()
		tree, root := commitRoot(t, ctx, opts, bufs...)
		defer tree.Close()
		if tree.DigestSize() != 32 || tree.Options().Perm != gp.Blake3 {
			t.Fatalf("digest %d bytes, options %+v", tree.DigestSize(), tree.Options())
		}
		return hex.EncodeToString(root)
	}

	// One row of no columns: one leaf, the root, BLAKE3 of the zero state
	// (32 zero bytes), as b3sum prints it.
	empty, err := ctx.NewBuffer(gp.Goldilocks, 1, 1, 0)
	if err != nil {
		t.Fatal(err)
	}
	defer empty.Close()
	if got, want := rootHex(empty), "2ada83c1819a5372dae1238fc1ded123c8104fdaa15862aaee69428a1820fcda"; got != want {
		t.Fatalf("root of a 1 x 0 matrix = %s, want %s", got, want)
	}

	// One row [1, 2]: root = BLAKE3(32 zero bytes || le64(1) || le64(2)),
	// from: python3 -c "import sys; sys.stdout.buffer.write(bytes(32)+(1).to_bytes(8,'little')
	// +(2).to_bytes(8,'little'))" | b3sum --no-names
	one := (&hostMat{rows: 1, cols: 2, ext: 1, data: []uint64{1, 2}}).upload(t, ctx, gp.Goldilocks)
	if got, want := rootHex(one), "f2a62d7e8659c80d48a5b5dc7cbc0d7189b9bf6fb754fcc85648a67953d3e6cb"; got != want {
		t.Fatalf("root of [1, 2] = %s, want %s", got, want)
	}
	leaves, err := ctx.MerkleHashRows(opts, one)
	if err != nil || hex.EncodeToString(leaves) != rootHex(one) {
		t.Fatalf("MerkleHashRows = %x, %v", leaves, err)
	}

	// Heights 4 then 8, lifted: openings verify.
	rng := rand.New(rand.NewSource(7601))
	const p = 0xffffffff00000001
	short := &hostMat{rows: 4, cols: 3, ext: 1, data: randomValues(rng, p, 12)}
	tall := &hostMat{rows: 8, cols: 5, ext: 1, data: randomValues(rng, p, 40)}
	lifted, err := ctx.MerkleCommit(opts, short.upload(t, ctx, gp.Goldilocks), tall.upload(t, ctx, gp.Goldilocks))
	if err != nil {
		t.Fatal(err)
	}
	defer lifted.Close()
	openings, err := lifted.Open(0, 5, 7)
	if err != nil {
		t.Fatal(err)
	}
	for _, o := range openings {
		wantRow := append(append([]uint64(nil), short.row(int(o.Index%4))...), tall.row(int(o.Index))...)
		if !reflect.DeepEqual(o.Rows.([]uint64), wantRow) || len(o.Path) != 3*32 {
			t.Fatalf("row %d: %v (path %d bytes), want %v", o.Index, o.Rows, len(o.Path), wantRow)
		}
		if err := lifted.Verify(o); err != nil {
			t.Fatal(err)
		}
		o.Path = append([]byte(nil), o.Path...)
		o.Path[3] ^= 4
		expectError(t, lifted.Verify(o), gp.ErrVerifyFailed)
	}
}

func TestZeroColumnBuffers(t *testing.T) {
	ctx := newContext(t)
	empty, err := ctx.NewBuffer(gp.Goldilocks, 1, 8, 0)
	if err != nil {
		t.Fatal(err)
	}
	defer empty.Close()
	if empty.Rows() != 8 || empty.Cols() != 0 || empty.Len() != 0 || empty.SizeBytes() != 0 {
		t.Fatalf("%d x %d, %d values, %d bytes", empty.Rows(), empty.Cols(), empty.Len(), empty.SizeBytes())
	}
	if vals, err := empty.Uint64s(gp.ColMajor); err != nil || len(vals) != 0 {
		t.Fatalf("Uint64s = %v, %v", vals, err)
	}
	if err := empty.ToHost(gp.RowMajor, nil); err != nil {
		t.Fatalf("ToHost(nil): %v", err)
	}
	if err := gp.ToHost(empty, gp.RowMajor, []uint64(nil)); err != nil {
		t.Fatalf("ToHost[uint64](nil): %v", err)
	}
	for _, data := range []interface{}{nil, []uint64{}} {
		b, err := ctx.BufferFromHost(gp.Goldilocks, 1, 8, 0, gp.ColMajor, data)
		if err != nil {
			t.Fatalf("BufferFromHost(%#v): %v", data, err)
		}
		if b.Rows() != 8 || b.Cols() != 0 {
			t.Fatalf("%d x %d", b.Rows(), b.Cols())
		}
		b.Close()
	}
	// Data for a buffer of 0 columns is still checked.
	_, err = ctx.BufferFromHost(gp.Goldilocks, 1, 8, 0, gp.ColMajor, []uint64{1})
	expectError(t, err, gp.ErrShapeMismatch)
	_, err = ctx.BufferFromHost(gp.Goldilocks, 1, 8, 1, gp.ColMajor, nil)
	expectError(t, err, gp.ErrShapeMismatch)

	// miden-crypto's EMPTY_SUBTREES at depth 3 (Poseidon2 trees): every leaf
	// the zero digest.
	tree, root := commitRoot(t, ctx, &gp.MerkleOptions{Kind: gp.Miden, Perm: gp.Poseidon2Goldilocks12}, empty)
	defer tree.Close()
	want := []uint64{0xfbc3edafb6c813b9, 0x35d8cfadb189f5af, 0x9cc65f5d198e28f1, 0x14a74616a8e04623}
	if !reflect.DeepEqual(words(gp.Goldilocks, root), want) {
		t.Fatalf("root %x, want %x", words(gp.Goldilocks, root), want)
	}
	openings, err := tree.Open(0, 6)
	if err != nil {
		t.Fatal(err)
	}
	for _, o := range openings {
		if len(o.Rows.([]uint64)) != 0 {
			t.Fatalf("row %d: %v", o.Index, o.Rows)
		}
		if err := tree.Verify(o); err != nil {
			t.Fatal(err)
		}
		topts := tree.Options()
		if err := gp.MerkleVerify(&topts, gp.Goldilocks, []gp.MatrixDims{{Rows: 8, Cols: 0, ExtDegree: 1}}, root, o.Index, nil, o.Path); err != nil {
			t.Fatalf("MerkleVerify with nil rows: %v", err)
		}
		o.Path = append([]byte(nil), o.Path...)
		o.Path[1] ^= 4
		expectError(t, tree.Verify(o), gp.ErrVerifyFailed)
	}

	// Keccak-256 of no bytes per row.
	digests, err := ctx.MerkleHashRows(&gp.MerkleOptions{Kind: gp.KeccakPlonky3}, empty)
	if err != nil {
		t.Fatal(err)
	}
	k, _ := hex.DecodeString("c5d2460186f7233c927e7db2dcc703c0e500b653ca82273b7bfad8045d85a470")
	if !bytes.Equal(digests, bytes.Repeat(k, 8)) {
		t.Fatalf("row hashes %x", digests)
	}

	// Beside a matrix with columns, and under MidenLMCS.
	rng := rand.New(rand.NewSource(7601))
	hm := &hostMat{rows: 8, cols: 2, ext: 1, data: randomValues(rng, 0xffffffff00000001, 16)}
	mixed, err := ctx.MerkleCommit(&gp.MerkleOptions{Kind: gp.KeccakPlonky3}, empty, hm.upload(t, ctx, gp.Goldilocks))
	if err != nil {
		t.Fatal(err)
	}
	defer mixed.Close()
	ops, err := mixed.Open(3)
	if err != nil {
		t.Fatal(err)
	}
	if !reflect.DeepEqual(ops[0].Rows.([]uint64), hm.row(3)) {
		t.Fatalf("row 3: %v, want %v", ops[0].Rows, hm.row(3))
	}
	if err := mixed.Verify(ops[0]); err != nil {
		t.Fatal(err)
	}
	lmcs, err := ctx.MerkleCommit(&gp.MerkleOptions{Kind: gp.MidenLMCS}, empty)
	if err != nil {
		t.Fatal(err)
	}
	defer lmcs.Close()
	ops, err = lmcs.Open(1)
	if err != nil {
		t.Fatal(err)
	}
	if err := lmcs.Verify(ops[0]); err != nil {
		t.Fatal(err)
	}

	// Transforms refuse a matrix of 0 columns.
	out := newBuffer(t, ctx, gp.Goldilocks, 1, 16, 0)
	if err := ctx.LDE(empty, out, nil); err == nil {
		t.Fatal("LDE of a buffer of 0 columns succeeded")
	}
}

// commitRoot commits the buffers and reads the root, failing the test on an
// error; the caller closes the tree.
func commitRoot(t *testing.T, ctx *gp.Context, opts *gp.MerkleOptions, bufs ...*gp.Buffer) (*gp.MerkleTree, []byte) {
	t.Helper()
	tree, err := ctx.MerkleCommit(opts, bufs...)
	if err != nil {
		t.Fatal(err)
	}
	root, err := tree.Root()
	if err != nil {
		tree.Close()
		t.Fatal(err)
	}
	return tree, root
}
