// SPDX-License-Identifier: MIT OR Apache-2.0

package gpuprover_test

import (
	"context"
	"errors"
	"math/rand"
	"reflect"
	"testing"

	gp "gpuprover.dev/gpuprover"
)

// felt is a caller's own element type: the generic functions take any type
// whose underlying type is uint64 or uint32.
type felt uint32

// TestGenericHostData: the generic functions give what the interface{}
// methods give, over []uint64, []uint32 and a defined element type.
func TestGenericHostData(t *testing.T) {
	ctx := cpuContext(t)
	rng := rand.New(rand.NewSource(21))
	const n, cols = 16, 2

	// Goldilocks, []uint64.
	m := fieldOf(t, gp.Goldilocks)
	trace := randomValues(rng, m.p, n*cols)
	buf, err := gp.BufferFromHost(ctx, gp.Goldilocks, 1, n, cols, gp.RowMajor, trace)
	if err != nil {
		t.Fatal(err)
	}
	defer buf.Close()
	rowMajor, err := gp.Elements[uint64](buf, gp.RowMajor)
	if err != nil || !reflect.DeepEqual(rowMajor, trace) {
		t.Fatalf("Elements = %v, %v", rowMajor, err)
	}
	viaMethod, _ := buf.Uint64s(gp.ColMajor)
	dst := make([]uint64, n*cols)
	if err := gp.ToHost(buf, gp.ColMajor, dst); err != nil || !reflect.DeepEqual(dst, viaMethod) {
		t.Fatalf("ToHost = %v, %v", dst, err)
	}
	out1 := newBuffer(t, ctx, gp.Goldilocks, 1, 4*n, cols)
	out2 := newBuffer(t, ctx, gp.Goldilocks, 1, 4*n, cols)
	opts := &gp.LDEOptions{Blowup: 4, OutputOrder: gp.BitReversed}
	if err := gp.LDEHost(context.Background(), ctx, gp.Goldilocks, 1, dst, n, cols, out1, opts); err != nil {
		t.Fatal(err)
	}
	if err := ctx.LDEHost(gp.Goldilocks, 1, dst, n, cols, out2, opts); err != nil {
		t.Fatal(err)
	}
	if a, b := download(t, out1, gp.ColMajor), download(t, out2, gp.ColMajor); !reflect.DeepEqual(a, b) {
		t.Fatal("generic LDEHost differs from the method")
	}

	// BabyBear, a defined element type, through the generic functions and
	// the interface{} methods alike.
	mb := fieldOf(t, gp.BabyBear)
	vals := randomValues(rng, mb.p, n)
	fs := make([]felt, n)
	for i, v := range vals {
		fs[i] = felt(v)
	}
	bb, err := gp.BufferFromHost(ctx, gp.BabyBear, 1, n, 1, gp.ColMajor, fs)
	if err != nil {
		t.Fatal(err)
	}
	defer bb.Close()
	back, err := gp.Elements[felt](bb, gp.ColMajor)
	if err != nil || !reflect.DeepEqual(back, fs) {
		t.Fatalf("Elements[felt] = %v, %v", back, err)
	}
	viaAny, err := ctx.BufferFromHost(gp.BabyBear, 1, n, 1, gp.ColMajor, fs)
	if err != nil {
		t.Fatalf("BufferFromHost([]felt): %v", err)
	}
	defer viaAny.Close()
	if got := download(t, viaAny, gp.ColMajor); !reflect.DeepEqual(got, vals) {
		t.Fatalf("BufferFromHost([]felt) holds %v", got)
	}

	// Element types of the wrong size are refused.
	_, err = gp.BufferFromHost(ctx, gp.Goldilocks, 1, n, 1, gp.ColMajor, fs)
	expectError(t, err, gp.ErrFieldMismatch, "4-byte")
	expectError(t, gp.ToHost(bb, gp.ColMajor, make([]uint64, n)), gp.ErrFieldMismatch)
	_, err = gp.Elements[uint64](bb, gp.ColMajor)
	expectError(t, err, gp.ErrFieldMismatch)

	// Permutations: typed states, in place.
	s1 := make([]uint64, 2*12)
	s2 := make([]uint64, 2*12)
	if err := gp.PermuteBatch(ctx, gp.Poseidon2Goldilocks12, s1); err != nil {
		t.Fatal(err)
	}
	if err := ctx.PermuteBatch(gp.Poseidon2Goldilocks12, s2); err != nil || !reflect.DeepEqual(s1, s2) {
		t.Fatalf("generic PermuteBatch differs: %v", err)
	}
	expectError(t, gp.PermuteBatch(ctx, gp.Poseidon2BabyBear16, make([]uint64, 16)), gp.ErrFieldMismatch)
	expectError(t, gp.PermuteBatch(ctx, gp.Poseidon2BabyBear16, make([]felt, 15)), gp.ErrShapeMismatch)
}

// TestGenericFRI: a typed challenge func, typed folds, betas and remainder.
func TestGenericFRI(t *testing.T) {
	ctx := cpuContext(t)
	rng := rand.New(rand.NewSource(22))
	m := fieldOf(t, gp.BabyBear)
	const n, ext = 32, 4
	vals := randomValues(rng, m.p, n*ext)
	cw := make([]felt, len(vals))
	for i, v := range vals {
		cw[i] = felt(v)
	}
	codeword, err := gp.BufferFromHost(ctx, gp.BabyBear, ext, n, 1, gp.ColMajor, cw)
	if err != nil {
		t.Fatal(err)
	}
	defer codeword.Close()
	opts := &gp.FRIOptions{FinalSize: 4}
	challenge := func(layer uint32, cap []byte, beta []felt) error {
		for k := range beta {
			beta[k] = felt(uint32(cap[k]) + 100*layer + uint32(k))
		}
		return nil
	}
	f, err := gp.FRICommit(context.Background(), ctx, codeword, opts, challenge)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()

	// The same step by step, with typed folds on a host codeword.
	s, err := gp.FRIBeginHost(context.Background(), ctx, gp.BabyBear, ext, cw, opts)
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	for k := uint32(0); k < s.LayerCount(); k++ {
		beta := make([]felt, ext)
		if err := challenge(k, s.Cap(k), beta); err != nil {
			t.Fatal(err)
		}
		if err := gp.Fold(context.Background(), s, beta); err != nil {
			t.Fatal(err)
		}
	}
	if !reflect.DeepEqual(f.Caps(), s.Caps()) {
		t.Fatal("FRICommit and the typed folds committed different layers")
	}
	b1, err1 := gp.Betas[felt](f)
	b2, err2 := gp.Betas[uint32](s)
	if err1 != nil || err2 != nil || len(b1) != int(f.LayerCount())*ext {
		t.Fatalf("Betas: %v %v %v", b1, err1, err2)
	}
	for i := range b1 {
		if uint32(b1[i]) != b2[i] {
			t.Fatalf("betas differ at %d", i)
		}
	}
	r1, err1 := gp.Remainder[felt](f)
	r2, err2 := f.Remainder()
	if err1 != nil || err2 != nil || len(r1) != 4*ext {
		t.Fatalf("Remainder: %v %v %v", r1, err1, err2)
	}
	for i, v := range r2.([]uint32) {
		if uint32(r1[i]) != v {
			t.Fatalf("remainder differs at %d", i)
		}
	}
	openings, err := f.Open(3)
	if err != nil || f.Verify(3, openings[0]) != nil {
		t.Fatalf("open/verify: %v", err)
	}
	if _, err := gp.Remainder[uint64](f); !errors.Is(err, gp.ErrFieldMismatch) {
		t.Fatalf("Remainder[uint64] of BabyBear: %v", err)
	}
	// A challenge func of the wrong element type is refused up front.
	_, err = gp.FRICommit(context.Background(), ctx, codeword, opts, func(uint32, []byte, []uint64) error { return nil })
	expectError(t, err, gp.ErrFieldMismatch)
	expectError(t, gp.Fold(context.Background(), s, make([]uint64, ext)), gp.ErrFieldMismatch)
	// An error of the typed func is returned as it is.
	sentinel := errors.New("no challenge")
	_, err = gp.FRICommit(context.Background(), ctx, codeword, opts, func(uint32, []byte, []felt) error { return sentinel })
	if err != sentinel {
		t.Fatalf("challenge error: %v", err)
	}
}

// TestGenericMerkleAndOOD: typed opened rows, OOD values and DEEP inputs.
func TestGenericMerkleAndOOD(t *testing.T) {
	ctx := cpuContext(t)
	rng := rand.New(rand.NewSource(23))
	const n, cols, blowup = 16, 2, 4
	_, lde := ldeColumns(t, ctx, rng, n, cols, blowup, gp.Natural)
	tree, err := ctx.MerkleCommit(nil, lde)
	if err != nil {
		t.Fatal(err)
	}
	defer tree.Close()
	openings, err := tree.Open(5)
	if err != nil {
		t.Fatal(err)
	}
	rows, err := gp.OpeningRows[uint64](openings[0])
	all := download(t, lde, gp.RowMajor)
	if err != nil || !reflect.DeepEqual(rows, all[5*cols:6*cols]) {
		t.Fatalf("OpeningRows = %v, %v", rows, err)
	}
	if _, err := gp.OpeningRows[uint32](openings[0]); !errors.Is(err, gp.ErrFieldMismatch) {
		t.Fatalf("OpeningRows[uint32] of Goldilocks: %v", err)
	}

	opts := &gp.OODOptions{}
	points := []uint64{3, 4, 5, 6, 7, 8} // two points of degree 3
	v1, err := gp.EvaluateOOD(context.Background(), ctx, opts, points, lde)
	if err != nil {
		t.Fatal(err)
	}
	v2, err := ctx.EvaluateOOD(opts, points, lde)
	if err != nil || !reflect.DeepEqual(v1, v2.([]uint64)) {
		t.Fatalf("generic EvaluateOOD differs: %v", err)
	}
	alphas := make([]uint64, len(v1))
	for i := range alphas {
		alphas[i] = uint64(i + 1)
	}
	q1 := newBuffer(t, ctx, gp.Goldilocks, 3, lde.Rows(), 1)
	q2 := newBuffer(t, ctx, gp.Goldilocks, 3, lde.Rows(), 1)
	if err := gp.DeepComposition(context.Background(), ctx, opts, points, v1, alphas, q1, lde); err != nil {
		t.Fatal(err)
	}
	if err := ctx.DeepComposition(opts, points, v1, alphas, q2, lde); err != nil {
		t.Fatal(err)
	}
	if a, b := download(t, q1, gp.ColMajor), download(t, q2, gp.ColMajor); !reflect.DeepEqual(a, b) {
		t.Fatal("generic DeepComposition differs")
	}
	err = gp.DeepComposition(context.Background(), ctx, opts, points, v1[1:], alphas, q1, lde)
	expectError(t, err, gp.ErrShapeMismatch, "values")
	_, err = gp.EvaluateOOD(context.Background(), ctx, opts, []uint32{1, 2, 3}, lde)
	expectError(t, err, gp.ErrFieldMismatch)
}
