// SPDX-License-Identifier: MIT OR Apache-2.0

package gpuprover

/*
#include <stdint.h>
#include <stdlib.h>
#include <gpuprover.h>

// Implemented in Go (fri_callback.go).
extern gp_status gpGoFRIChallenge(uintptr_t user, uint32_t layer, void *cap, uint64_t cap_size,
                                  void *beta, uint64_t beta_size);

static gp_status gp_go_fri_challenge(void *user, uint32_t layer, const void *cap, uint64_t cap_size,
                                     void *beta, uint64_t beta_size) {
    return gpGoFRIChallenge((uintptr_t)user, layer, (void *)cap, cap_size, beta, beta_size);
}

// gp_fri_commit with the Go trampoline; `user` is a runtime/cgo.Handle.
static gp_status gp_go_fri_commit(gp_context *ctx, const gp_buffer *codeword,
                                  const gp_fri_options *options, uintptr_t user, gp_fri **out) {
    return gp_fri_commit(ctx, codeword, options, gp_go_fri_challenge, (void *)user, out);
}
*/
import "C"

import (
	"context"
	"fmt"
	"runtime"
	"runtime/cgo"
	"unsafe"
)

// FRIFold is how a group of sibling values is combined with the challenge
// (gp_fri_fold_kind).
type FRIFold int

const (
	// FoldHalved (the default): Plonky3 and winterfell, the value at beta of
	// the polynomial of degree < arity through the group; for arity 2,
	// (f(x) + f(-x))/2 + beta (f(x) - f(-x))/(2x).
	FoldHalved FRIFold = C.GP_FRI_FOLD_HALVED
	// FoldUnhalved: Lambda VM, the same without the 1/arity factor.
	FoldUnhalved FRIFold = C.GP_FRI_FOLD_UNHALVED
)

// FRILeaf is what one leaf of a FRI layer's tree holds (gp_fri_leaf).
type FRILeaf int

const (
	// LeafGroup (the default): the group of Arity values one fold combines.
	LeafGroup FRILeaf = C.GP_FRI_LEAF_GROUP
	// LeafElement: one value per leaf, leaf i = position i of the layer in
	// its order: Triton VM's FRI (Arity 2, NaturalOrder, Shift 7, Extension
	// ExtTriton, Merkle kind TritonDigest). A query's opening then holds,
	// per layer, the group's values followed by one path per member (in
	// member order); OpeningSize gives its length.
	LeafElement FRILeaf = C.GP_FRI_LEAF_ELEMENT
)

// FRIOptions are the options of a FRI commitment (gp_fri_options). A nil
// *FRIOptions and every zero field mean the C defaults.
type FRIOptions struct {
	// Arity is 2, 4 or 8; 0 means 2.
	Arity uint32
	// FinalSize: folding stops at this layer size (a power of two below the
	// codeword size, reached by folds of Arity), the remainder; 0 means 1.
	FinalSize uint64
	// NaturalOrder: the codeword's evaluations (and every layer's) are in
	// natural order. The default (false) is bit-reversed, as Plonky3 commits.
	NaturalOrder bool
	// Shift: the evaluation domain is Shift * <omega>; 0 means 1 (Plonky3
	// folds as if on the subgroup).
	Shift uint64
	// Fold: FoldHalved (the zero value) or FoldUnhalved.
	Fold FRIFold
	// Merkle is the profile of every layer's commitment (the zero value:
	// Plonky3's Poseidon2 for the codeword's field); its CapHeight may not
	// exceed log2(FinalSize).
	Merkle MerkleOptions
	// Extension is the codeword's extension (its products with the
	// challenges): ExtPlonky3 (the zero value) or ExtTriton (Goldilocks
	// cubics only).
	Extension Extension
	// Leaf: LeafGroup (the zero value) or LeafElement.
	Leaf FRILeaf
}

func (o *FRIOptions) resolved(field Field) FRIOptions {
	var r FRIOptions
	if o != nil {
		r = *o
	}
	if r.Arity == 0 {
		r.Arity = 2
	}
	if r.FinalSize == 0 {
		r.FinalSize = 1
	}
	if r.Shift == 0 {
		r.Shift = 1
	}
	r.Merkle = r.Merkle.resolved(field)
	return r
}

func (o *FRIOptions) c(field Field) C.gp_fri_options {
	var co C.gp_fri_options
	C.gp_fri_options_init(&co)
	r := o.resolved(field)
	co.arity = C.uint32_t(r.Arity)
	co.final_size = C.uint64_t(r.FinalSize)
	if r.NaturalOrder {
		co.order = C.GP_ORDER_NATURAL
	} else {
		co.order = C.GP_ORDER_BIT_REVERSED
	}
	co.shift = C.uint64_t(r.Shift)
	co.fold = C.gp_fri_fold_kind(r.Fold)
	size := co.merkle.struct_size
	co.merkle = r.Merkle.c(field)
	co.merkle.struct_size = size
	co.extension = C.gp_extension(r.Extension)
	co.leaf = C.gp_fri_leaf(r.Leaf)
	return co
}

// capBytes returns the bytes of one layer's cap, checking (as the library
// does, but before the cap buffer is allocated) 2^CapHeight <= FinalSize.
func (o *FRIOptions) capBytes(op string, field Field) (int, error) {
	r := o.resolved(field)
	if r.Merkle.CapHeight >= 63 || uint64(1)<<r.Merkle.CapHeight > r.FinalSize {
		return 0, argError(op, ErrInvalidArgument,
			"options.Merkle.CapHeight = %d exceeds log2(FinalSize = %d), the height of the last committed layer's tree",
			r.Merkle.CapHeight, r.FinalSize)
	}
	db, err := r.Merkle.digestBytes(field)
	if err != nil {
		return 0, err
	}
	return db << r.Merkle.CapHeight, nil
}

// FRI is a FRI commitment in progress or done (gp_fri): every layer and its
// tree, on the device for the CUDA backend. It keeps the caps the library
// wrote and the challenges it was folded with, for Verify. It belongs to its
// Context; Close releases it, a finalizer does so for commitments not
// closed.
type FRI struct {
	ctx     *Context
	h       *C.gp_fri // nil once closed
	field   Field
	ext     uint32
	n       uint64
	opts    FRIOptions
	layers  uint32
	folded  uint32
	capSize int
	caps    []byte
	betas   []byte
}

// newFRI wraps a handle; c.mu is held.
func (c *Context) newFRI(h *C.gp_fri, field Field, ext uint32, n uint64, opts *FRIOptions) *FRI {
	f := &FRI{
		ctx:     c,
		h:       h,
		field:   field,
		ext:     ext,
		n:       n,
		opts:    opts.resolved(field),
		layers:  uint32(C.gp_fri_layer_count(h)),
		capSize: int(C.gp_fri_cap_size(h)),
	}
	runtime.SetFinalizer(f, (*FRI).Close)
	return f
}

// FRIBegin starts a FRI commitment of codeword (one column of any supported
// extension degree, a power-of-two number of rows) and commits layer 0
// (gp_fri_begin). The codeword is copied. opts may be nil for the defaults.
func (c *Context) FRIBegin(codeword *Buffer, opts *FRIOptions) (*FRI, error) {
	return c.FRIBeginContext(context.Background(), codeword, opts)
}

// FRIBeginContext is FRIBegin, stopped when ctx is done (see LDEContext).
func (c *Context) FRIBeginContext(ctx context.Context, codeword *Buffer, opts *FRIOptions) (*FRI, error) {
	const op, method = "gp_fri_begin", "Context.FRIBegin"
	if err := c.lock(method); err != nil {
		return nil, err
	}
	defer c.unlock()
	if err := c.sameContext(method, op, codeword, "codeword"); err != nil {
		return nil, err
	}
	cb, err := opts.capBytes(op, codeword.field)
	if err != nil {
		return nil, err
	}
	capb := make([]byte, cb)
	co := opts.c(codeword.field)
	var h *C.gp_fri
	err = c.callContext(ctx, op, func() C.gp_status {
		return C.gp_fri_begin(c.h, codeword.h, &co, bytesPtr(capb), C.uint64_t(len(capb)), &h)
	})
	if err != nil {
		return nil, err
	}
	f := c.newFRI(h, codeword.field, codeword.ext, codeword.rows, opts)
	f.caps = capb
	return f, nil
}

// FRIBeginHost is FRIBegin with the codeword in host memory: a []uint64
// (Goldilocks) or []uint32 (BabyBear, KoalaBear) of n*extDegree values, each
// element as its extDegree canonical coefficients, lowest first
// (gp_fri_begin_host). The generic FRIBeginHost takes a typed slice.
func (c *Context) FRIBeginHost(field Field, extDegree uint32, codeword interface{}, opts *FRIOptions) (*FRI, error) {
	return c.FRIBeginHostContext(context.Background(), field, extDegree, codeword, opts)
}

// FRIBeginHostContext is FRIBeginHost, stopped when ctx is done (see
// LDEContext).
func (c *Context) FRIBeginHostContext(ctx context.Context, field Field, extDegree uint32, codeword interface{},
	opts *FRIOptions) (*FRI, error) {
	p, n, err := hostSlice("gp_fri_begin_host", codeword, field.ElementSize())
	if err != nil {
		return nil, err
	}
	return c.friBeginHost(ctx, field, extDegree, p, n, opts)
}

func (c *Context) friBeginHost(ctx context.Context, field Field, extDegree uint32, p unsafe.Pointer, n int,
	opts *FRIOptions) (*FRI, error) {
	const op = "gp_fri_begin_host"
	if extDegree == 0 || n%int(extDegree) != 0 {
		return nil, argError(op, ErrShapeMismatch, "codeword has %d values, not a multiple of ext_degree = %d", n, extDegree)
	}
	cb, err := opts.capBytes(op, field)
	if err != nil {
		return nil, err
	}
	if err := c.lock("Context.FRIBeginHost"); err != nil {
		return nil, err
	}
	defer c.unlock()
	capb := make([]byte, cb)
	co := opts.c(field)
	rows := uint64(n / int(extDegree))
	var h *C.gp_fri
	err = c.callContext(ctx, op, func() C.gp_status {
		return C.gp_fri_begin_host(c.h, C.gp_field(field), C.uint32_t(extDegree), p, C.uint64_t(rows), &co,
			bytesPtr(capb), C.uint64_t(len(capb)), &h)
	})
	if err != nil {
		return nil, err
	}
	f := c.newFRI(h, field, extDegree, rows, opts)
	f.caps = capb
	return f, nil
}

// ChallengeFunc derives the challenge for folding layer `layer`, whose cap
// is cap, and writes it into beta: a []uint64 (Goldilocks) or []uint32
// (BabyBear, KoalaBear) of extDegree canonical coefficients. The generic
// FRICommit takes a func with a typed beta instead.
type ChallengeFunc func(layer uint32, cap []byte, beta interface{}) error

// friChallenge is the state of one FRICommit, reached from the C callback
// through a cgo.Handle. fn returns the challenge for a layer as ext
// little-endian elements.
type friChallenge struct {
	fn       func(layer uint32, cap []byte, ext int) ([]byte, error)
	field    Field
	ext      int
	caps     []byte
	betas    []byte
	err      error
	panicked bool
	panicVal interface{}
}

// FRICommit runs the whole commit phase in one call (gp_fri_commit): it
// commits layer 0, then for every layer k calls challenge(k, cap_k, beta)
// and folds with the challenge it wrote.
//
// An error returned by challenge stops the commitment and is returned as it
// is; a panic in challenge stops it and is re-raised once the library has
// returned. challenge runs while the context is busy with the commitment:
// it must not call methods of this Context or its buffers (that would
// deadlock); derive challenges on the host or with another context.
func (c *Context) FRICommit(codeword *Buffer, opts *FRIOptions, challenge ChallengeFunc) (*FRI, error) {
	return c.FRICommitContext(context.Background(), codeword, opts, challenge)
}

// FRICommitContext is FRICommit, stopped when ctx is done (see LDEContext).
func (c *Context) FRICommitContext(ctx context.Context, codeword *Buffer, opts *FRIOptions, challenge ChallengeFunc) (*FRI, error) {
	if challenge == nil {
		return nil, argError("gp_fri_commit", ErrNullPointer, "challenge is nil")
	}
	return c.friCommit(ctx, codeword, opts, func(layer uint32, cap []byte, ext int) ([]byte, error) {
		var b interface{}
		if codeword.field.ElementSize() == 4 {
			b = make([]uint32, ext)
		} else {
			b = make([]uint64, ext)
		}
		if err := challenge(layer, cap, b); err != nil {
			return nil, err
		}
		return elementsToBytes(b), nil
	})
}

func (c *Context) friCommit(ctx context.Context, codeword *Buffer, opts *FRIOptions,
	challenge func(layer uint32, cap []byte, ext int) ([]byte, error)) (*FRI, error) {
	const op, method = "gp_fri_commit", "Context.FRICommit"
	if err := c.lock(method); err != nil {
		return nil, err
	}
	defer c.unlock()
	if err := c.sameContext(method, op, codeword, "codeword"); err != nil {
		return nil, err
	}
	state := &friChallenge{fn: challenge, field: codeword.field, ext: int(codeword.ext)}
	handle := cgo.NewHandle(state)
	defer handle.Delete()
	co := opts.c(codeword.field)
	var h *C.gp_fri
	err := c.callContext(ctx, op, func() C.gp_status {
		return C.gp_go_fri_commit(c.h, codeword.h, &co, C.uintptr_t(handle), &h)
	})
	if state.panicked {
		panic(state.panicVal)
	}
	if state.err != nil {
		return nil, state.err
	}
	if err != nil {
		return nil, err
	}
	f := c.newFRI(h, codeword.field, codeword.ext, codeword.rows, opts)
	f.folded = f.layers
	f.caps = state.caps
	f.betas = state.betas
	return f, nil
}

// Close destroys the commitment. Closing a closed FRI, or one whose context
// was closed, does nothing. It always returns nil.
func (f *FRI) Close() error {
	return closeHandle(f.ctx, f, &f.h, func(h *C.gp_fri) { C.gp_fri_destroy(h) })
}

func (f *FRI) lock(op string) error { return lockHandle(f.ctx, &f.h, op, "FRI") }

// Context returns the context the commitment belongs to.
func (f *FRI) Context() *Context { return f.ctx }

// Field returns the codeword's field.
func (f *FRI) Field() Field { return f.field }

// ExtDegree returns the codeword's extension degree.
func (f *FRI) ExtDegree() uint32 { return f.ext }

// Len returns the codeword size n.
func (f *FRI) Len() uint64 { return f.n }

// Options returns the options of the commitment with the defaults filled in.
func (f *FRI) Options() FRIOptions { return f.opts }

// LayerCount returns the number of committed layers, i.e. of folds the
// commitment takes (gp_fri_layer_count).
func (f *FRI) LayerCount() uint32 { return f.layers }

// Folded returns the number of folds done so far.
func (f *FRI) Folded() uint32 { return f.folded }

// CapSize returns the bytes of one layer's cap (gp_fri_cap_size).
func (f *FRI) CapSize() int { return f.capSize }

// Cap returns the cap of committed layer k, or nil if it is not committed.
func (f *FRI) Cap(k uint32) []byte {
	start := int(k) * f.capSize
	if start+f.capSize > len(f.caps) {
		return nil
	}
	return append([]byte(nil), f.caps[start:start+f.capSize]...)
}

// Caps returns the caps of the layers committed so far, back to back (after
// the last fold: LayerCount caps, as FRIVerify takes them).
func (f *FRI) Caps() []byte { return append([]byte(nil), f.caps...) }

// Betas returns the challenges folded with so far, back to back: a []uint64
// or []uint32 of ExtDegree values per fold.
func (f *FRI) Betas() interface{} { return elementsFromBytes(f.field, f.betas) }

// Fold folds the last committed layer with beta, a []uint64 or []uint32 of
// ExtDegree canonical coefficients (gp_fri_fold). Unless it is the last fold
// the folded layer is committed and its cap kept (Cap). It fails once every
// layer has been folded. The generic Fold takes a typed slice.
func (f *FRI) Fold(beta interface{}) error {
	return f.FoldContext(context.Background(), beta)
}

// FoldContext is Fold, stopped when ctx is done (see Context.LDEContext); a
// cancelled fold leaves the commitment as it was.
func (f *FRI) FoldContext(ctx context.Context, beta interface{}) error {
	p, n, err := hostSlice("gp_fri_fold", beta, f.field.ElementSize())
	if err != nil {
		return err
	}
	return f.fold(ctx, p, n)
}

func (f *FRI) fold(ctx context.Context, p unsafe.Pointer, n int) error {
	const op = "gp_fri_fold"
	if n != int(f.ext) {
		return argError(op, ErrShapeMismatch, "beta has %d values; a challenge is one degree-%d element", n, f.ext)
	}
	if err := f.lock("FRI.Fold"); err != nil {
		return err
	}
	defer f.ctx.unlock()
	esz := f.field.ElementSize()
	capb := make([]byte, f.capSize)
	err := f.ctx.callContext(ctx, op, func() C.gp_status {
		return C.gp_fri_fold(f.h, p, C.uint64_t(n*esz), bytesPtr(capb), C.uint64_t(len(capb)))
	})
	if err != nil {
		return err
	}
	f.folded++
	if f.folded < f.layers {
		f.caps = append(f.caps, capb...)
	}
	f.betas = append(f.betas, leBytes(p, n, esz)...)
	return nil
}

// RemainderSize returns the bytes of the remainder: FinalSize x ExtDegree x
// element size (gp_fri_remainder_size).
func (f *FRI) RemainderSize() int {
	if f.lock("FRI.RemainderSize") != nil {
		return 0
	}
	defer f.ctx.unlock()
	return int(C.gp_fri_remainder_size(f.h))
}

func (f *FRI) remainderBytes() ([]byte, error) {
	out := make([]byte, int(C.gp_fri_remainder_size(f.h)))
	err := f.ctx.call("gp_fri_remainder", func() C.gp_status {
		return C.gp_fri_remainder(f.h, bytesPtr(out), C.uint64_t(len(out)))
	})
	return out, err
}

// Remainder returns the remainder once every layer has been folded
// (gp_fri_remainder): FinalSize extension elements in the codeword's order,
// as a []uint64 or []uint32.
func (f *FRI) Remainder() (interface{}, error) {
	if err := f.lock("FRI.Remainder"); err != nil {
		return nil, err
	}
	defer f.ctx.unlock()
	b, err := f.remainderBytes()
	if err != nil {
		return nil, err
	}
	return elementsFromBytes(f.field, b), nil
}

// OpeningSize returns the bytes of one query's opening: for every layer its
// group (Arity extension elements) and the group's Merkle path
// (gp_fri_opening_size).
func (f *FRI) OpeningSize() int {
	if f.lock("FRI.OpeningSize") != nil {
		return 0
	}
	defer f.ctx.unlock()
	return int(C.gp_fri_opening_size(f.h))
}

// Open opens the queries at indices (positions < n in the codeword's order)
// after the last fold (gp_fri_open): one opening per index, as FRIVerify
// takes it.
func (f *FRI) Open(indices ...uint64) ([][]byte, error) {
	const op = "gp_fri_open"
	if err := f.lock("FRI.Open"); err != nil {
		return nil, err
	}
	defer f.ctx.unlock()
	each := int(C.gp_fri_opening_size(f.h))
	out := make([]byte, each*len(indices))
	err := f.ctx.call(op, func() C.gp_status {
		return C.gp_fri_open(f.h, indexPtr(indices), C.uint64_t(len(indices)), bytesPtr(out), C.uint64_t(len(out)))
	})
	if err != nil {
		return nil, err
	}
	res := make([][]byte, len(indices))
	for i := range res {
		res[i] = out[i*each : (i+1)*each : (i+1)*each]
	}
	return res, nil
}

// Verify checks one query's opening against this commitment's caps,
// challenges and remainder with FRIVerify.
func (f *FRI) Verify(index uint64, opening []byte) error {
	rem, caps, betas, err := f.verifyInputs()
	if err != nil {
		return err
	}
	return friVerify(&f.opts, f.field, f.ext, f.n, caps, betas, rem, index, opening)
}

func (f *FRI) verifyInputs() (rem, caps, betas []byte, err error) {
	if err := f.lock("FRI.Verify"); err != nil {
		return nil, nil, nil, err
	}
	defer f.ctx.unlock()
	rem, err = f.remainderBytes()
	return rem, f.caps, f.betas, err
}

// FRIVerify checks one FRI query on the host, without a context
// (gp_fri_verify): every layer's group against that layer's cap (caps: one
// per layer, back to back), and every fold (betas: ExtDegree values per
// layer, a []uint64 or []uint32) against the next layer's group or the
// remainder (a []uint64 or []uint32). n is the codeword size, opts those of
// the commitment.
//
// It returns nil for a valid opening and an *Error with ErrVerifyFailed for
// an invalid one; other statuses mean malformed arguments.
func FRIVerify(opts *FRIOptions, field Field, extDegree uint32, n uint64, caps []byte, betas, remainder interface{},
	index uint64, opening []byte) error {
	const op = "gp_fri_verify"
	esz := field.ElementSize()
	if _, _, err := hostSlice(op, betas, esz); err != nil {
		return err
	}
	if _, _, err := hostSlice(op, remainder, esz); err != nil {
		return err
	}
	return friVerify(opts, field, extDegree, n, caps, elementsToBytes(betas), elementsToBytes(remainder), index, opening)
}

func friVerify(opts *FRIOptions, field Field, ext uint32, n uint64, caps, betas, remainder []byte, index uint64,
	opening []byte) error {
	co := opts.c(field)
	return call("gp_fri_verify", func() C.gp_status {
		return C.gp_fri_verify(&co, C.gp_field(field), C.uint32_t(ext), C.uint64_t(n),
			bytesPtr(caps), C.uint64_t(len(caps)), bytesPtr(betas), C.uint64_t(len(betas)),
			bytesPtr(remainder), C.uint64_t(len(remainder)), C.uint64_t(index),
			bytesPtr(opening), C.uint64_t(len(opening)))
	})
}

func (f *FRI) String() string {
	return fmt.Sprintf("FRI(%v^%d, n=%d, %d/%d folded)", f.field, f.ext, f.n, f.folded, f.layers)
}
