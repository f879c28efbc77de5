// SPDX-License-Identifier: MIT OR Apache-2.0

package gpuprover

import (
	"context"
	"encoding/binary"
	"unsafe"
)

// Element is the Go type of a base-field element: uint64 for Goldilocks
// (and Keccak lanes), uint32 for BabyBear and KoalaBear, or a type defined
// on one of them.
//
// Go methods cannot have type parameters, so the methods that take or
// return host data (Context.BufferFromHost, Buffer.ToHost, Context.LDEHost,
// ...) take an interface{} holding such a slice. Each has a generic twin: a
// package-level function of the same name, over []T, whose first arguments
// are a context.Context (for the long calls) and the receiver:
//
//	buf, err := gpuprover.BufferFromHost(ctx, gpuprover.Goldilocks, 1, rows, cols, gpuprover.ColMajor, trace)
//	err = gpuprover.LDEHost(goctx, ctx, gpuprover.Goldilocks, 1, trace, rows, cols, out, opts)
//	values, err := gpuprover.Elements[uint64](out, gpuprover.ColMajor)
//
// A T whose size is not the field's element size gives ErrFieldMismatch.
type Element interface {
	~uint64 | ~uint32
}

// sizeOf returns the bytes of one T.
func sizeOf[T Element]() int {
	var z T
	return int(unsafe.Sizeof(z))
}

// typedSlice returns a pointer to s's first element (a dummy if empty) and
// its length, after checking T against elemSize.
func typedSlice[T Element](op string, s []T, elemSize int) (unsafe.Pointer, int, error) {
	if sz := sizeOf[T](); sz != elemSize {
		return nil, 0, argError(op, ErrFieldMismatch,
			"host data has %d-byte elements; the field's elements are %d bytes (use uint64 for Goldilocks and Keccak, uint32 for BabyBear and KoalaBear)",
			sz, elemSize)
	}
	if len(s) == 0 {
		return unsafe.Pointer(&emptyHost[0]), 0, nil
	}
	return unsafe.Pointer(&s[0]), len(s), nil
}

// encode writes s little-endian.
func encode[T Element](s []T) []byte {
	sz := sizeOf[T]()
	out := make([]byte, sz*len(s))
	for i, v := range s {
		if sz == 8 {
			binary.LittleEndian.PutUint64(out[8*i:], uint64(v))
		} else {
			binary.LittleEndian.PutUint32(out[4*i:], uint32(v))
		}
	}
	return out
}

// decode reads little-endian elements of T.
func decode[T Element](b []byte) []T {
	sz := sizeOf[T]()
	out := make([]T, len(b)/sz)
	for i := range out {
		if sz == 8 {
			out[i] = T(binary.LittleEndian.Uint64(b[8*i:]))
		} else {
			out[i] = T(binary.LittleEndian.Uint32(b[4*i:]))
		}
	}
	return out
}

// convert returns the []uint64 or []uint32 in v as a []T.
func convert[T Element](op string, v interface{}, field Field) ([]T, error) {
	if sz := sizeOf[T](); sz != field.ElementSize() {
		return nil, argError(op, ErrFieldMismatch, "%d-byte elements asked for %v, whose elements are %d bytes",
			sz, field, field.ElementSize())
	}
	return decode[T](elementsToBytes(v)), nil
}

// BufferFromHost is Context.BufferFromHost over a typed slice.
func BufferFromHost[T Element](c *Context, field Field, extDegree uint32, rows, cols uint64, layout Layout, data []T) (*Buffer, error) {
	p, n, err := typedSlice("gp_buffer_from_host", data, field.ElementSize())
	if err != nil {
		return nil, err
	}
	return c.bufferFromHost(field, extDegree, rows, cols, layout, p, n)
}

// ToHost is Buffer.ToHost into a typed slice of at least b.Len() elements.
func ToHost[T Element](b *Buffer, layout Layout, dst []T) error {
	p, n, err := typedSlice("gp_buffer_to_host", dst, b.field.ElementSize())
	if err != nil {
		return err
	}
	return b.toHost("Buffer.ToHost", layout, p, n)
}

// Elements returns the contents of b in layout as a new []T (Buffer.Uint64s
// and Buffer.Uint32s for any Element type).
func Elements[T Element](b *Buffer, layout Layout) ([]T, error) {
	out := make([]T, b.Len())
	p, n, err := typedSlice("gp_buffer_to_host", out, b.field.ElementSize())
	if err != nil {
		return nil, err
	}
	if err := b.toHost("Elements", layout, p, n); err != nil {
		return nil, err
	}
	return out, nil
}

// LDEHost is Context.LDEHostContext over a typed slice.
func LDEHost[T Element](ctx context.Context, c *Context, field Field, extDegree uint32, data []T, rows, cols uint64,
	output *Buffer, opts *LDEOptions) error {
	p, n, err := typedSlice("gp_lde_batch_host", data, field.ElementSize())
	if err != nil {
		return err
	}
	return c.ldeHost(ctx, field, extDegree, p, n, rows, cols, output, opts)
}

// PermuteBatch is Context.PermuteBatch over a typed slice.
func PermuteBatch[T Element](c *Context, perm Permutation, states []T) error {
	if perm.isHash() {
		return c.refuseHash(perm)
	}
	esz, err := permElementSize(perm)
	if err != nil {
		return err
	}
	p, n, err := typedSlice("gp_permute_batch", states, esz)
	if err != nil {
		return err
	}
	return c.permuteBatch(perm, p, n)
}

// FRIBeginHost is Context.FRIBeginHostContext over a typed slice.
func FRIBeginHost[T Element](ctx context.Context, c *Context, field Field, extDegree uint32, codeword []T,
	opts *FRIOptions) (*FRI, error) {
	p, n, err := typedSlice("gp_fri_begin_host", codeword, field.ElementSize())
	if err != nil {
		return nil, err
	}
	return c.friBeginHost(ctx, field, extDegree, p, n, opts)
}

// Fold is FRI.FoldContext with a typed challenge of ExtDegree values.
func Fold[T Element](ctx context.Context, f *FRI, beta []T) error {
	p, n, err := typedSlice("gp_fri_fold", beta, f.field.ElementSize())
	if err != nil {
		return err
	}
	return f.fold(ctx, p, n)
}

// FRICommit is Context.FRICommitContext with a typed challenge func: for
// every layer it gets the layer, its cap and beta, ExtDegree values of T to
// fill.
func FRICommit[T Element](ctx context.Context, c *Context, codeword *Buffer, opts *FRIOptions,
	challenge func(layer uint32, cap []byte, beta []T) error) (*FRI, error) {
	const op = "gp_fri_commit"
	if challenge == nil {
		return nil, argError(op, ErrNullPointer, "challenge is nil")
	}
	if codeword != nil {
		if sz := sizeOf[T](); sz != codeword.field.ElementSize() {
			return nil, argError(op, ErrFieldMismatch, "the challenge func takes %d-byte elements; %v's are %d bytes",
				sz, codeword.field, codeword.field.ElementSize())
		}
	}
	return c.friCommit(ctx, codeword, opts, func(layer uint32, cap []byte, ext int) ([]byte, error) {
		beta := make([]T, ext)
		if err := challenge(layer, cap, beta); err != nil {
			return nil, err
		}
		return encode(beta), nil
	})
}

// Betas returns FRI.Betas as a []T.
func Betas[T Element](f *FRI) ([]T, error) {
	return convert[T]("FRI.Betas", f.Betas(), f.field)
}

// Remainder returns FRI.Remainder as a []T.
func Remainder[T Element](f *FRI) ([]T, error) {
	r, err := f.Remainder()
	if err != nil {
		return nil, err
	}
	return convert[T]("FRI.Remainder", r, f.field)
}

// OpeningRows returns the opened rows of a MerkleOpening as a []T.
func OpeningRows[T Element](o MerkleOpening) ([]T, error) {
	switch o.Rows.(type) {
	case []uint64:
		return convert[T]("OpeningRows", o.Rows, Goldilocks)
	case []uint32:
		return convert[T]("OpeningRows", o.Rows, BabyBear)
	}
	return nil, argError("OpeningRows", ErrInvalidArgument, "the opening's rows are %T", o.Rows)
}

// EvaluateOOD is Context.EvaluateOODContext over typed points and values.
func EvaluateOOD[T Element](ctx context.Context, c *Context, opts *OODOptions, points []T, columns ...*Buffer) ([]T, error) {
	const op = "gp_evaluate_ood"
	var out []T
	err := c.evaluateOOD(ctx, opts, columns, func(field Field) (unsafe.Pointer, int, error) {
		return typedSlice(op, points, field.ElementSize())
	}, func(n int) unsafe.Pointer {
		out = make([]T, n)
		p, _, _ := typedSlice(op, out, sizeOf[T]())
		return p
	})
	if err != nil {
		return nil, err
	}
	return out, nil
}

// DeepComposition is Context.DeepCompositionContext over typed points,
// values and coefficients.
func DeepComposition[T Element](ctx context.Context, c *Context, opts *OODOptions, points, values, alphas []T,
	out *Buffer, columns ...*Buffer) error {
	const op = "gp_deep_composition"
	return c.deepComposition(ctx, opts, out, columns, func(field Field) ([3]unsafe.Pointer, [3]int, error) {
		var ps [3]unsafe.Pointer
		var ns [3]int
		for i, s := range [3][]T{points, values, alphas} {
			p, n, err := typedSlice(op, s, field.ElementSize())
			if err != nil {
				return ps, ns, err
			}
			ps[i], ns[i] = p, n
		}
		return ps, ns, nil
	})
}
