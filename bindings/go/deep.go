// SPDX-License-Identifier: MIT OR Apache-2.0

package gpuprover

/*
#include <gpuprover.h>
*/
import "C"

import (
	"context"
	"fmt"
	"runtime"
	"unsafe"
)

// ---------------------------------------------------------------------------
// Constraint commitment

// CompositionSplit is how the composition polynomial is cut into segments of
// degree < N (gp_composition_split). The zero value means SplitPlonky3.
type CompositionSplit int

const (
	// SplitPlonky3: Plonky3's quotient chunks; segment i interpolates rows
	// i, i + D, i + 2D, ... of the evaluations, on the coset
	// shift * w^i * <w^D>.
	SplitPlonky3 CompositionSplit = C.GP_COMPOSITION_PLONKY3
	// SplitWinterfell: winterfell's composition columns,
	// h(x) = sum_i x^(i N) h_i(x); segment i holds coefficients
	// i N .. (i + 1) N - 1 of h.
	SplitWinterfell CompositionSplit = C.GP_COMPOSITION_WINTERFELL
	// SplitTriton: Triton VM's quotient segments, h(x) = sum_i x^i h_i(x^D);
	// segment i holds coefficients i, i + D, i + 2D, ... of h. With the
	// trace's FRI domain as the segment LDE (Shift 7, NaturalOrder, Blowup =
	// FRI domain / N) and the Triton Merkle kind, the tree is Triton's
	// quotient commitment.
	SplitTriton CompositionSplit = C.GP_COMPOSITION_TRITON
)

// ConstraintOptions are the options of ConstraintCommit
// (gp_constraint_options). A nil *ConstraintOptions and the zero value mean
// the defaults: Plonky3's split into 2 segments, blowup 2, the field's
// generator as the shift, bit-reversed segment LDEs, Plonky3's Poseidon2
// tree.
type ConstraintOptions struct {
	// Split: SplitPlonky3 (the zero value), SplitWinterfell or SplitTriton.
	Split CompositionSplit
	// Segments is D, a power of two dividing the number of evaluations; 0
	// means 2.
	Segments uint32
	// Blowup of the segment LDEs, a power of two in [1, 32]; 0 means 2.
	Blowup uint32
	// Shift: the evaluations lie on Shift * <w> (w of order N D, natural
	// order) and the segment LDEs on Shift * <w'> (w' of order N Blowup); 0
	// means the field's generator.
	Shift uint64
	// NaturalOrder: the segment LDEs are in natural order (winterfell). The
	// default (false) is bit-reversed, as Plonky3 commits.
	NaturalOrder bool
	// Merkle is the commitment's profile (the zero value: Plonky3's
	// Poseidon2 for the evaluations' field).
	Merkle MerkleOptions
}

func (o *ConstraintOptions) c(field Field) C.gp_constraint_options {
	var co C.gp_constraint_options
	C.gp_constraint_options_init(&co)
	var r ConstraintOptions
	if o != nil {
		r = *o
	}
	co.split = C.gp_composition_split(r.Split)
	if r.Segments != 0 {
		co.segments = C.uint32_t(r.Segments)
	}
	if r.Blowup != 0 {
		co.blowup = C.uint32_t(r.Blowup)
	}
	co.shift = C.uint64_t(r.Shift)
	if r.NaturalOrder {
		co.output_order = C.GP_ORDER_NATURAL
	} else {
		co.output_order = C.GP_ORDER_BIT_REVERSED
	}
	size := co.merkle.struct_size
	co.merkle = r.Merkle.c(field)
	co.merkle.struct_size = size
	return co
}

// ConstraintCommit commits the composition (quotient) polynomial from its
// evaluations (gp_constraint_commit): evaluations has N D rows and one column
// (base or extension), natural order on Shift * <w>. It is split into D
// segments of degree < N, every segment is extended to N Blowup rows, and the
// rows of all segments are committed in one tree.
//
// It returns the segment LDEs (N Blowup rows, column i = segment i, the
// evaluations' extension degree) and their tree. The tree refers to the
// segments as MerkleCommit's trees refer to their matrices: Open fails with
// ErrClosed once the segments were closed. Close both when done. opts may be
// nil for the defaults.
func (c *Context) ConstraintCommit(evaluations *Buffer, opts *ConstraintOptions) (*Buffer, *MerkleTree, error) {
	return c.ConstraintCommitContext(context.Background(), evaluations, opts)
}

// ConstraintCommitContext is ConstraintCommit, stopped when ctx is done (see
// LDEContext).
func (c *Context) ConstraintCommitContext(ctx context.Context, evaluations *Buffer, opts *ConstraintOptions) (*Buffer, *MerkleTree, error) {
	const op, method = "gp_constraint_commit", "Context.ConstraintCommit"
	if err := c.lock(method); err != nil {
		return nil, nil, err
	}
	defer c.unlock()
	if err := c.sameContext(method, op, evaluations, "evaluations"); err != nil {
		return nil, nil, err
	}
	field := evaluations.field
	co := opts.c(field)
	var sh *C.gp_buffer
	var th *C.gp_merkle_tree
	err := c.callContext(ctx, op, func() C.gp_status {
		return C.gp_constraint_commit(c.h, evaluations.h, &co, &sh, &th)
	})
	if err != nil {
		return nil, nil, err
	}
	seg := c.newBuffer(sh)
	var merkle *MerkleOptions
	if opts != nil {
		merkle = &opts.Merkle
	}
	t := &MerkleTree{
		ctx:        c,
		h:          th,
		field:      field,
		opts:       merkle.resolved(field),
		mats:       []*Buffer{seg},
		dims:       []MatrixDims{{Rows: seg.rows, Cols: uint32(seg.cols), ExtDegree: seg.ext}},
		digestSize: int(C.gp_merkle_digest_size(th)),
		capSize:    int(C.gp_merkle_cap_size(th)),
	}
	runtime.SetFinalizer(t, (*MerkleTree).Close)
	return seg, t, nil
}

// ---------------------------------------------------------------------------
// Out-of-domain evaluation and DEEP composition

// OODOptions say where committed columns live and which extension the points
// come from (gp_ood_options). A nil *OODOptions and the zero value mean the
// defaults: the field's generator as the shift, natural order, the full
// domain as the degree bound, and the field's default challenge degree.
type OODOptions struct {
	// Shift: the columns' rows are evaluations on Shift * <omega_M>, M =
	// rows; 0 means the field's generator (LDE's default output coset).
	Shift uint64
	// Order of the columns' rows: Natural (LDE's default) or BitReversed
	// (Plonky3's committed LDEs).
	Order Order
	// DegreeBound is N, the degree bound of the columns' polynomials (a power
	// of two <= M); 0 means M. EvaluateOOD reads the N rows of the sub-coset
	// Shift * <omega_N> only (the trace domain of an LDE).
	DegreeBound uint64
	// ChallengeDegree is E, the degree of the extension the points, values
	// and coefficients live in: Goldilocks 1, 2 or 3, BabyBear and KoalaBear
	// 1 or 4; 0 means 3 for Goldilocks, 4 for BabyBear and KoalaBear (see
	// ChallengeDegreeFor).
	ChallengeDegree uint32
	// Extension is the extension of degree E: ExtPlonky3 (the zero value)
	// or ExtTriton (Triton VM's out-of-domain rows and DEEP codewords;
	// Goldilocks, E = 3).
	Extension Extension
}

// ChallengeDegreeFor returns E for columns over field: ChallengeDegree, or
// the field's default when it is 0.
func (o *OODOptions) ChallengeDegreeFor(field Field) uint32 {
	if o != nil && o.ChallengeDegree != 0 {
		return o.ChallengeDegree
	}
	if field == Goldilocks {
		return 3
	}
	return 4
}

func (o *OODOptions) c() C.gp_ood_options {
	var co C.gp_ood_options
	C.gp_ood_options_init(&co)
	if o != nil {
		co.shift = C.uint64_t(o.Shift)
		co.order = C.gp_order(o.Order)
		co.degree_bound = C.uint64_t(o.DegreeBound)
		co.challenge_degree = C.uint32_t(o.ChallengeDegree)
		co.extension = C.gp_extension(o.Extension)
	}
	return co
}

// oodShape checks the column buffers (c.mu held) and returns their handles,
// their field, E and the number of columns over all of them.
func (c *Context) oodShape(method, op string, opts *OODOptions, columns []*Buffer) ([]*C.gp_buffer, Field, int, int, error) {
	if len(columns) == 0 {
		return nil, 0, 0, 0, argError(op, ErrInvalidArgument, "no columns (at least one buffer is needed)")
	}
	hs := make([]*C.gp_buffer, len(columns))
	cols := 0
	for i, b := range columns {
		if err := c.sameContext(method, op, b, fmt.Sprintf("columns[%d]", i)); err != nil {
			return nil, 0, 0, 0, err
		}
		hs[i] = b.h
		cols += int(b.cols)
	}
	field := columns[0].field
	return hs, field, int(opts.ChallengeDegreeFor(field)), cols, nil
}

// numPoints checks that points holds whole points of E coefficients.
func numPoints(op string, n, ext int) (int, error) {
	if n == 0 || n%ext != 0 {
		return 0, argError(op, ErrShapeMismatch,
			"points holds %d values, not a positive multiple of the challenge degree %d", n, ext)
	}
	return n / ext, nil
}

// EvaluateOOD evaluates every column of columns (buffers of this context, one
// field, one number of rows M; base columns or columns of degree E) at points
// (gp_evaluate_ood): a []uint64 (Goldilocks) or []uint32 (BabyBear,
// KoalaBear) holding the points back to back, E canonical coefficients each,
// lowest first; none may lie in the evaluation coset.
//
// It returns, as the same type, for each point, for each buffer in order, for
// each of its columns, f(z) as E coefficients: the value at z of the
// polynomial of degree < DegreeBound that the rows interpolate. opts may be
// nil for the defaults. The generic EvaluateOOD takes and returns typed
// slices.
func (c *Context) EvaluateOOD(opts *OODOptions, points interface{}, columns ...*Buffer) (interface{}, error) {
	return c.EvaluateOODContext(context.Background(), opts, points, columns...)
}

// EvaluateOODContext is EvaluateOOD, stopped when ctx is done (see
// LDEContext).
func (c *Context) EvaluateOODContext(ctx context.Context, opts *OODOptions, points interface{}, columns ...*Buffer) (interface{}, error) {
	const op = "gp_evaluate_ood"
	var out interface{}
	var esz int
	err := c.evaluateOOD(ctx, opts, columns, func(field Field) (unsafe.Pointer, int, error) {
		esz = field.ElementSize()
		return hostSlice(op, points, esz)
	}, func(n int) unsafe.Pointer {
		if esz == 4 {
			out = make([]uint32, n)
		} else {
			out = make([]uint64, n)
		}
		p, _, _ := hostSlice(op, out, esz)
		return p
	})
	if err != nil {
		return nil, err
	}
	return out, nil
}

// evaluateOOD checks the columns, gets the points from points(field) and an
// output of n elements from alloc(n), and evaluates.
func (c *Context) evaluateOOD(ctx context.Context, opts *OODOptions, columns []*Buffer,
	points func(Field) (unsafe.Pointer, int, error), alloc func(n int) unsafe.Pointer) error {
	const op, method = "gp_evaluate_ood", "Context.EvaluateOOD"
	if err := c.lock(method); err != nil {
		return err
	}
	defer c.unlock()
	hs, field, ext, cols, err := c.oodShape(method, op, opts, columns)
	if err != nil {
		return err
	}
	pp, n, err := points(field)
	if err != nil {
		return err
	}
	np, err := numPoints(op, n, ext)
	if err != nil {
		return err
	}
	outLen := np * cols * ext
	outPtr := alloc(outLen)
	co := opts.c()
	return c.callContext(ctx, op, func() C.gp_status {
		return C.gp_evaluate_ood(c.h, &hs[0], C.uint32_t(len(hs)), &co, pp, C.uint32_t(np), outPtr,
			C.uint64_t(outLen*field.ElementSize()))
	})
}

// DeepComposition writes into out (a buffer of this context with M rows and
// one column of degree E) the DEEP codeword (gp_deep_composition)
//
//	Q(x) = sum_j sum_k alpha[j][k] (f_k(x) - v[j][k]) / (x - z_j)
//
// over all M rows of the columns' coset, in the columns' order: k runs over
// the columns of the buffers in order, points are the z_j (as EvaluateOOD
// takes them), values the v as EvaluateOOD returns them and alphas the
// coefficients in the same layout, all of the field's Go element type. The
// output is ready for FRIBegin. opts may be nil for the defaults. The
// generic DeepComposition takes typed slices.
func (c *Context) DeepComposition(opts *OODOptions, points, values, alphas interface{}, out *Buffer, columns ...*Buffer) error {
	return c.DeepCompositionContext(context.Background(), opts, points, values, alphas, out, columns...)
}

// DeepCompositionContext is DeepComposition, stopped when ctx is done (see
// LDEContext).
func (c *Context) DeepCompositionContext(ctx context.Context, opts *OODOptions, points, values, alphas interface{},
	out *Buffer, columns ...*Buffer) error {
	const op = "gp_deep_composition"
	return c.deepComposition(ctx, opts, out, columns, func(field Field) ([3]unsafe.Pointer, [3]int, error) {
		var ps [3]unsafe.Pointer
		var ns [3]int
		for i, s := range [3]interface{}{points, values, alphas} {
			p, n, err := hostSlice(op, s, field.ElementSize())
			if err != nil {
				return ps, ns, err
			}
			ps[i], ns[i] = p, n
		}
		return ps, ns, nil
	})
}

// deepComposition checks the columns and out, gets points, values and
// alphas from host(field), and composes.
func (c *Context) deepComposition(ctx context.Context, opts *OODOptions, out *Buffer, columns []*Buffer,
	host func(Field) ([3]unsafe.Pointer, [3]int, error)) error {
	const op, method = "gp_deep_composition", "Context.DeepComposition"
	if err := c.lock(method); err != nil {
		return err
	}
	defer c.unlock()
	hs, field, ext, cols, err := c.oodShape(method, op, opts, columns)
	if err != nil {
		return err
	}
	if err := c.sameContext(method, op, out, "out"); err != nil {
		return err
	}
	ps, ns, err := host(field)
	if err != nil {
		return err
	}
	np, err := numPoints(op, ns[0], ext)
	if err != nil {
		return err
	}
	// The library reads points x columns x E values and alphas without being
	// told their sizes: they are checked here.
	want := np * cols * ext
	for i, name := range []string{"values", "alphas"} {
		if ns[i+1] != want {
			return argError(op, ErrShapeMismatch, "%s holds %d values; %d points x %d columns x E = %d needs %d",
				name, ns[i+1], np, cols, ext, want)
		}
	}
	co := opts.c()
	return c.callContext(ctx, op, func() C.gp_status {
		return C.gp_deep_composition(c.h, &hs[0], C.uint32_t(len(hs)), &co, ps[0], C.uint32_t(np), ps[1], ps[2], out.h)
	})
}
