// SPDX-License-Identifier: MIT OR Apache-2.0

// The cross-language example (examples/c/lde_checksum.c in Go): a
// deterministic Goldilocks trace, its LDE on the best backend present, and a
// checksum that every binding's example must print identically.
//
//	trace:    n = 1024 rows x 8 columns, value(r, c) = x^3 mod p, x = r*8 + c + 1
//	LDE:      blowup 4, default coset shift (7), bit-reversed output
//	checksum: FNV-1a 64 over the output downloaded column-major, each element
//	          as 8 little-endian bytes
//	root:     the LDE buffer committed as one matrix with Plonky3's Poseidon2
//	          default for Goldilocks (field sponge, Poseidon2 width 8, digest
//	          4, rate 4, cap height 0); the root's 32 bytes as hex, in order
//
// Run against an installed library (see bindings/go/README.md):
//
//	PKG_CONFIG_PATH=$PREFIX/lib/pkgconfig LD_LIBRARY_PATH=$PREFIX/lib go run .
package main

import (
	"fmt"
	"os"

	gp "gpuprover.dev/gpuprover"
)

const (
	rows   = 1024
	cols   = 8
	blowup = 4
	p      = 0xffffffff00000001
)

func run() error {
	trace := make([]uint64, rows*cols)
	for c := uint64(0); c < cols; c++ {
		for r := uint64(0); r < rows; r++ {
			x := r*cols + c + 1
			trace[c*rows+r] = (x * x * x) % p
		}
	}

	ctx, err := gp.NewContext(nil)
	if err != nil {
		return err
	}
	defer ctx.Close()
	lde, err := ctx.NewBuffer(gp.Goldilocks, 1, rows*blowup, cols)
	if err != nil {
		return err
	}
	defer lde.Close()
	opts := &gp.LDEOptions{Blowup: blowup, OutputOrder: gp.BitReversed}
	if err := ctx.LDEHost(gp.Goldilocks, 1, trace, rows, cols, lde, opts); err != nil {
		return err
	}
	out, err := lde.Uint64s(gp.ColMajor)
	if err != nil {
		return err
	}

	h := uint64(0xcbf29ce484222325)
	for _, v := range out {
		for b := 0; b < 8; b++ {
			h ^= (v >> (8 * b)) & 0xff
			h *= 0x100000001b3
		}
	}
	fmt.Printf("lde checksum: 0x%016x\n", h)

	tree, err := ctx.MerkleCommit(&gp.MerkleOptions{Kind: gp.FieldSponge, Perm: gp.Poseidon2Goldilocks8}, lde)
	if err != nil {
		return err
	}
	defer tree.Close()
	root, err := tree.Root()
	if err != nil {
		return err
	}
	fmt.Printf("merkle root: 0x%x\n", root)
	return nil
}

func main() {
	if err := run(); err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(1)
	}
}
