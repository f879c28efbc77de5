// SPDX-License-Identifier: MIT OR Apache-2.0

package gpuprover_test

import (
	"encoding/hex"
	"errors"
	"math/rand"
	"strings"
	"testing"

	gp "gpuprover.dev/gpuprover"
)

// The constraint commitment of r^3 + 5 r + 1 for r < 64 (4 segments, blowup
// 2, default Poseidon2 tree), as every binding computes it.
const pinnedConstraintRoot = "2e8e272b93631eb3d388a76b05e279da181eaf49ba36f4d6604959471bf2e240"

const goldilocksGen = 7 // the default coset shift

func (m modp) sub(a, b uint64) uint64 { return m.add(a, m.p-b) }

func cpuContext(t *testing.T) *gp.Context {
	t.Helper()
	ctx, err := gp.NewContext(&gp.ContextOptions{Backend: gp.BackendCPU, CPUThreads: 2})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { ctx.Close() })
	return ctx
}

// ldeColumns returns cols Goldilocks polynomials of degree < n (their
// coefficients) extended by blowup on the default coset in order.
func ldeColumns(t *testing.T, ctx *gp.Context, rng *rand.Rand, n, cols uint64, blowup uint32, order gp.Order) ([][]uint64, *gp.Buffer) {
	t.Helper()
	m := fieldOf(t, gp.Goldilocks)
	wn := root(t, gp.Goldilocks, n)
	coeffs := make([][]uint64, cols)
	var trace []uint64
	for c := range coeffs {
		coeffs[c] = randomValues(rng, m.p, int(n))
		for r := uint64(0); r < n; r++ {
			trace = append(trace, m.eval(coeffs[c], m.pow(wn, r)))
		}
	}
	lde := newBuffer(t, ctx, gp.Goldilocks, 1, n*uint64(blowup), cols)
	if err := ctx.LDEHost(gp.Goldilocks, 1, trace, n, cols, lde, &gp.LDEOptions{Blowup: blowup, OutputOrder: order}); err != nil {
		t.Fatal(err)
	}
	return coeffs, lde
}

func TestOODAndDeepMatchDirectEvaluation(t *testing.T) {
	for _, tc := range []struct {
		order gp.Order
		bound uint64
	}{{gp.Natural, 0}, {gp.BitReversed, 16}} {
		ctx := cpuContext(t)
		m := fieldOf(t, gp.Goldilocks)
		rng := rand.New(rand.NewSource(int64(11 + tc.bound)))
		const n, cols, blowup = 16, 3, 4
		const rows = n * blowup
		coeffs, lde := ldeColumns(t, ctx, rng, n, cols, blowup, tc.order)
		opts := &gp.OODOptions{Order: tc.order, DegreeBound: tc.bound, ChallengeDegree: 1}
		points := []uint64{123456789, 0xdeadbeef00001234}
		v, err := ctx.EvaluateOOD(opts, points, lde)
		if err != nil {
			t.Fatal(err)
		}
		values := v.([]uint64)
		if len(values) != len(points)*cols {
			t.Fatalf("%d values", len(values))
		}
		for j, z := range points {
			for c := 0; c < cols; c++ {
				if got, want := values[j*cols+c], m.eval(coeffs[c], z); got != want {
					t.Errorf("order %v: f_%d(z_%d) = %d, want %d", tc.order, c, j, got, want)
				}
			}
		}

		alphas := randomValues(rng, m.p, len(values))
		q := newBuffer(t, ctx, gp.Goldilocks, 1, rows, 1)
		if err := ctx.DeepComposition(opts, points, values, alphas, q, lde); err != nil {
			t.Fatal(err)
		}
		got := download(t, q, gp.ColMajor)
		f := download(t, lde, gp.ColMajor)
		wm := root(t, gp.Goldilocks, rows)
		for r := uint64(0); r < rows; r++ {
			idx := r
			if tc.order == gp.BitReversed {
				idx = bitrev(r, log2(rows))
			}
			x := m.mul(goldilocksGen, m.pow(wm, idx))
			acc := uint64(0)
			for j, z := range points {
				den := m.inv(m.sub(x, z))
				for c := 0; c < cols; c++ {
					num := m.sub(f[uint64(c)*rows+r], values[j*cols+c])
					acc = m.add(acc, m.mul(m.mul(alphas[j*cols+c], num), den))
				}
			}
			if got[r] != acc {
				t.Fatalf("order %v: DEEP row %d = %d, want %d", tc.order, r, got[r], acc)
			}
		}
	}
}

func TestOODInTheCubicExtension(t *testing.T) {
	// Base points embedded in the default extension (E = 3) give (f(z), 0, 0);
	// two buffers are read in order, column after column.
	ctx := cpuContext(t)
	m := fieldOf(t, gp.Goldilocks)
	rng := rand.New(rand.NewSource(77))
	ca, a := ldeColumns(t, ctx, rng, 8, 2, 2, gp.Natural)
	cb, b := ldeColumns(t, ctx, rng, 8, 1, 2, gp.Natural)
	if e := (*gp.OODOptions)(nil).ChallengeDegreeFor(gp.Goldilocks); e != 3 {
		t.Fatalf("default challenge degree %d", e)
	}
	z := []uint64{5, 0, 0, 1000003, 0, 0}
	v, err := ctx.EvaluateOOD(nil, z, a, b)
	if err != nil {
		t.Fatal(err)
	}
	values := v.([]uint64)
	if len(values) != 2*3*3 {
		t.Fatalf("%d values", len(values))
	}
	all := append(append([][]uint64(nil), ca...), cb...)
	for j, zj := range []uint64{z[0], z[3]} {
		for c, co := range all {
			at := (j*3 + c) * 3
			if values[at] != m.eval(co, zj) || values[at+1] != 0 || values[at+2] != 0 {
				t.Errorf("point %d column %d: %v", j, c, values[at:at+3])
			}
		}
	}
	// DEEP in E = 3 is linear in the alphas, coefficient by coefficient.
	a1 := randomValues(rng, m.p, len(values))
	a2 := randomValues(rng, m.p, len(values))
	sum := make([]uint64, len(a1))
	for i := range sum {
		sum[i] = m.add(a1[i], a2[i])
	}
	deep := func(alphas []uint64) []uint64 {
		q := newBuffer(t, ctx, gp.Goldilocks, 3, 16, 1)
		if err := ctx.DeepComposition(nil, z, values, alphas, q, a, b); err != nil {
			t.Fatal(err)
		}
		return download(t, q, gp.ColMajor)
	}
	q1, q2, qs := deep(a1), deep(a2), deep(sum)
	if len(qs) != 16*3 {
		t.Fatalf("%d coefficients", len(qs))
	}
	for i := range qs {
		if qs[i] != m.add(q1[i], q2[i]) {
			t.Fatalf("coefficient %d not linear in alpha", i)
		}
	}
	// Alphas of the wrong length are refused before the library reads them.
	q := newBuffer(t, ctx, gp.Goldilocks, 3, 16, 1)
	if err := ctx.DeepComposition(nil, z, values, a1[1:], q, a, b); !errors.Is(err, gp.ErrShapeMismatch) {
		t.Fatalf("short alphas: %v", err)
	}
}

func pinnedEvaluations() []uint64 {
	q := make([]uint64, 64)
	for r := range q {
		x := uint64(r)
		q[r] = x*x*x + 5*x + 1
	}
	return q
}

func TestConstraintCommitMatchesSegmentLDEs(t *testing.T) {
	ctx := cpuContext(t)
	m := fieldOf(t, gp.Goldilocks)
	const n, d, blowup = 16, 4, 2
	q := pinnedEvaluations()
	ev, err := ctx.BufferFromHost(gp.Goldilocks, 1, n*d, 1, gp.ColMajor, q)
	if err != nil {
		t.Fatal(err)
	}
	defer ev.Close()
	opts := &gp.ConstraintOptions{Segments: d, Blowup: blowup}
	seg, tree, err := ctx.ConstraintCommit(ev, opts)
	if err != nil {
		t.Fatal(err)
	}
	defer seg.Close()
	defer tree.Close()
	if seg.Rows() != n*blowup || seg.Cols() != d || seg.ExtDegree() != 1 {
		t.Fatalf("segments %dx%d of degree %d", seg.Rows(), seg.Cols(), seg.ExtDegree())
	}

	// Plonky3's split: segment i is the LDE of rows i, i + D, ... which lie
	// on 7 w^i <w^D>, w of order N D.
	w := root(t, gp.Goldilocks, n*d)
	var ldes []*gp.Buffer
	var expected []uint64
	for i := uint64(0); i < d; i++ {
		chunk := make([]uint64, n)
		for r := range chunk {
			chunk[r] = q[i+uint64(r)*d]
		}
		out := newBuffer(t, ctx, gp.Goldilocks, 1, n*blowup, 1)
		lo := &gp.LDEOptions{Blowup: blowup, InputShift: m.mul(goldilocksGen, m.pow(w, i)), OutputOrder: gp.BitReversed}
		if err := ctx.LDEHost(gp.Goldilocks, 1, chunk, n, 1, out, lo); err != nil {
			t.Fatal(err)
		}
		ldes = append(ldes, out)
		expected = append(expected, download(t, out, gp.ColMajor)...)
	}
	gotSeg := download(t, seg, gp.ColMajor)
	for i := range expected {
		if gotSeg[i] != expected[i] {
			t.Fatalf("segment value %d = %d, want %d", i, gotSeg[i], expected[i])
		}
	}
	other, err := ctx.MerkleCommit(nil, ldes...)
	if err != nil {
		t.Fatal(err)
	}
	defer other.Close()
	rootb, err := tree.Root()
	if err != nil {
		t.Fatal(err)
	}
	want, err := other.Root()
	if err != nil {
		t.Fatal(err)
	}
	if hex.EncodeToString(rootb) != hex.EncodeToString(want) {
		t.Fatalf("root %x, segment LDEs committed give %x", rootb, want)
	}
	if got := hex.EncodeToString(rootb); got != pinnedConstraintRoot {
		t.Fatalf("root %s, want %s", got, pinnedConstraintRoot)
	}

	// The tree is an ordinary tree: openings verify, tampered ones do not.
	openings, err := tree.Open(0, 5, 31)
	if err != nil {
		t.Fatal(err)
	}
	for _, o := range openings {
		rows := o.Rows.([]uint64)
		for i, v := range rows {
			if v != expected[uint64(i)*n*blowup+o.Index] {
				t.Fatalf("opening %d row %d", o.Index, i)
			}
		}
		if err := tree.Verify(o); err != nil {
			t.Fatalf("opening %d: %v", o.Index, err)
		}
	}
	bad := openings[1]
	rows := append([]uint64(nil), bad.Rows.([]uint64)...)
	rows[2] = m.add(rows[2], 1)
	bad.Rows = rows
	if err := tree.Verify(bad); !errors.Is(err, gp.ErrVerifyFailed) {
		t.Fatalf("tampered opening: %v", err)
	}
	// Closing the segments makes the tree's openings fail, not read freed memory.
	seg.Close()
	if _, err := tree.Open(0); !errors.Is(err, gp.ErrClosed) {
		t.Fatalf("open after closing the segments: %v", err)
	}
}

func TestDeepAndConstraintBadInput(t *testing.T) {
	ctx := cpuContext(t)
	m := fieldOf(t, gp.Goldilocks)
	rng := rand.New(rand.NewSource(5))
	_, lde := ldeColumns(t, ctx, rng, 8, 1, 2, gp.Natural)
	opts := &gp.OODOptions{ChallengeDegree: 1}
	libErr := func(err error, st gp.Status, contains string) {
		t.Helper()
		var e *gp.Error
		if !errors.As(err, &e) || e.Status != st {
			t.Fatalf("got %v, want %v", err, st)
		}
		if e.Message == "" || !strings.Contains(e.Message, contains) {
			t.Fatalf("message %q does not contain %q", e.Message, contains)
		}
	}
	// A point of the evaluation coset 7 <w_16>.
	_, err := ctx.EvaluateOOD(opts, []uint64{m.mul(goldilocksGen, root(t, gp.Goldilocks, 16))}, lde)
	libErr(err, gp.ErrInvalidArgument, "coset")
	_, err = ctx.EvaluateOOD(opts, []uint64{m.p}, lde)
	libErr(err, gp.ErrNonCanonical, "points")
	_, err = ctx.EvaluateOOD(&gp.OODOptions{ChallengeDegree: 1, DegreeBound: 3}, []uint64{9}, lde)
	libErr(err, gp.ErrInvalidArgument, "degree_bound")

	// DEEP output of the wrong shape (8 rows for 16).
	small := newBuffer(t, ctx, gp.Goldilocks, 1, 8, 1)
	err = ctx.DeepComposition(opts, []uint64{9}, []uint64{1}, []uint64{1}, small, lde)
	libErr(err, gp.ErrShapeMismatch, "out")

	ev, err := ctx.BufferFromHost(gp.Goldilocks, 1, 64, 1, gp.ColMajor, pinnedEvaluations())
	if err != nil {
		t.Fatal(err)
	}
	defer ev.Close()
	_, _, err = ctx.ConstraintCommit(ev, &gp.ConstraintOptions{Segments: 3})
	libErr(err, gp.ErrInvalidArgument, "segments")
	_, two := ldeColumns(t, ctx, rng, 32, 2, 2, gp.Natural)
	_, _, err = ctx.ConstraintCommit(two, nil)
	libErr(err, gp.ErrShapeMismatch, "column")
	// The context still works after the failures.
	seg, tree, err := ctx.ConstraintCommit(ev, nil)
	if err != nil {
		t.Fatal(err)
	}
	tree.Close()
	seg.Close()
}
