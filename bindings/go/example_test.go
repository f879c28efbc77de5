// SPDX-License-Identifier: MIT OR Apache-2.0

package gpuprover_test

import (
	"context"
	"errors"
	"fmt"

	gp "gpuprover.dev/gpuprover"
)

func ExampleContext_LDEHost() {
	ctx, err := gp.NewContext(nil) // CUDA if a usable GPU exists, else the CPU
	if err != nil {
		panic(err)
	}
	defer ctx.Close()

	// A 4 x 2 Goldilocks trace, column-major: column 0 is constant 5,
	// column 1 is constant 9.
	trace := []uint64{5, 5, 5, 5, 9, 9, 9, 9}
	out, err := ctx.NewBuffer(gp.Goldilocks, 1, 4*2, 2) // n * blowup rows
	if err != nil {
		panic(err)
	}
	defer out.Close()
	if err := ctx.LDEHost(gp.Goldilocks, 1, trace, 4, 2, out, &gp.LDEOptions{Blowup: 2}); err != nil {
		panic(err)
	}
	values, err := out.Uint64s(gp.ColMajor)
	if err != nil {
		panic(err)
	}
	fmt.Println(values) // constant polynomials stay constant
	// Output: [5 5 5 5 5 5 5 5 9 9 9 9 9 9 9 9]
}

func ExampleContext_PermuteBatch() {
	ctx, err := gp.NewContext(nil)
	if err != nil {
		panic(err)
	}
	defer ctx.Close()
	states := make([]uint64, 2*25) // two all-zero Keccak-f[1600] states
	if err := ctx.PermuteBatch(gp.KeccakF1600, states); err != nil {
		panic(err)
	}
	fmt.Printf("%#x %#x\n", states[0], states[25])
	// Output: 0xf1258f7940e1dde7 0xf1258f7940e1dde7
}

func ExampleError() {
	ctx, err := gp.NewContext(nil)
	if err != nil {
		panic(err)
	}
	defer ctx.Close()
	out, err := ctx.NewBuffer(gp.Goldilocks, 1, 8, 1)
	if err != nil {
		panic(err)
	}
	defer out.Close()
	err = ctx.LDEHost(gp.Goldilocks, 1, []uint64{1, 2, 3, 0xffffffff00000001}, 4, 1, out, nil)
	fmt.Println(errors.Is(err, gp.ErrNonCanonical))
	var gerr *gp.Error
	if errors.As(err, &gerr) {
		fmt.Println(gerr.Status)
	}
	// Output:
	// true
	// GP_ERR_NON_CANONICAL
}

func ExampleContext_MerkleCommit() {
	ctx, err := gp.NewContext(nil)
	if err != nil {
		panic(err)
	}
	defer ctx.Close()
	// An 8 x 2 Goldilocks matrix, row-major.
	rows := []uint64{1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15, 16}
	m, err := ctx.BufferFromHost(gp.Goldilocks, 1, 8, 2, gp.RowMajor, rows)
	if err != nil {
		panic(err)
	}
	defer m.Close()
	// nil options: Plonky3's Poseidon2 MerkleTreeMmcs (width 8, digest 4).
	tree, err := ctx.MerkleCommit(nil, m)
	if err != nil {
		panic(err)
	}
	defer tree.Close()
	root, _ := tree.Root()
	openings, _ := tree.Open(5)
	fmt.Println(len(root), openings[0].Rows, len(openings[0].Path))
	fmt.Println(tree.Verify(openings[0]))
	openings[0].Path[0] ^= 1
	fmt.Println(errors.Is(tree.Verify(openings[0]), gp.ErrVerifyFailed))
	// Output:
	// 32 [11 12] 96
	// <nil>
	// true
}

func ExampleContext_FRICommit() {
	ctx, err := gp.NewContext(nil)
	if err != nil {
		panic(err)
	}
	defer ctx.Close()
	// A constant codeword of 16 Goldilocks elements folds to that constant.
	codeword := make([]uint64, 16)
	for i := range codeword {
		codeword[i] = 42
	}
	cw, err := ctx.BufferFromHost(gp.Goldilocks, 1, 16, 1, gp.ColMajor, codeword)
	if err != nil {
		panic(err)
	}
	defer cw.Close()
	fri, err := ctx.FRICommit(cw, &gp.FRIOptions{Arity: 4}, func(layer uint32, cap []byte, beta interface{}) error {
		beta.([]uint64)[0] = uint64(cap[0]) + 1 // a toy transcript
		return nil
	})
	if err != nil {
		panic(err)
	}
	defer fri.Close()
	rem, _ := fri.Remainder()
	openings, _ := fri.Open(11)
	fmt.Println(fri.LayerCount(), rem, fri.Verify(11, openings[0]))
	// Output: 2 [42] <nil>
}

func ExampleLDEHost() {
	ctx, err := gp.NewContext(nil)
	if err != nil {
		panic(err)
	}
	defer ctx.Close()
	// The generic functions take typed slices of any uint64- or
	// uint32-based element type, and a context.Context for long calls.
	type felt uint64
	trace := []felt{5, 5, 5, 5}
	out, err := ctx.NewBuffer(gp.Goldilocks, 1, 8, 1)
	if err != nil {
		panic(err)
	}
	defer out.Close()
	if err := gp.LDEHost(context.Background(), ctx, gp.Goldilocks, 1, trace, 4, 1, out, nil); err != nil {
		panic(err)
	}
	values, err := gp.Elements[felt](out, gp.ColMajor)
	fmt.Println(values, err)
	// Output: [5 5 5 5 5 5 5 5] <nil>
}

func ExampleContext_Cancel() {
	ctx, err := gp.NewContext(&gp.ContextOptions{Backend: gp.BackendCPU})
	if err != nil {
		panic(err)
	}
	defer ctx.Close()
	out, err := ctx.NewBuffer(gp.Goldilocks, 1, 64, 4)
	if err != nil {
		panic(err)
	}
	defer out.Close()
	// Stop the call at its first progress report (another goroutine would
	// call Cancel, or cancel the context.Context given to LDEHostContext).
	ctx.SetProgress(func(stage string, done, total uint64) { ctx.Cancel() })
	err = ctx.LDEHostContext(context.Background(), gp.Goldilocks, 1, make([]uint64, 32*4), 32, 4, out, nil)
	fmt.Println(errors.Is(err, gp.ErrCancelled))
	// Output: true
}
