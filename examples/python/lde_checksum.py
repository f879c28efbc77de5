#!/usr/bin/env python3
# SPDX-License-Identifier: MIT OR Apache-2.0
"""The cross-language example (examples/c/lde_checksum.c in Python): a
deterministic Goldilocks trace, its LDE on the best backend present, and a
checksum that every binding's example must print identically.

  trace:    n = 1024 rows x 8 columns, value(r, c) = x^3 mod p, x = r*8 + c + 1
  LDE:      blowup 4, default coset shift (7), bit-reversed output
  checksum: FNV-1a 64 over the output downloaded column-major, each element
            as 8 little-endian bytes
  root:     the LDE buffer committed as one matrix with Plonky3's Poseidon2
            default for Goldilocks (field sponge, Poseidon2 width 8, digest 4,
            rate 4, cap height 0); the root's 32 bytes as hex, in order

Run against an installed library (see bindings/python/README.md):

  GPUPROVER_DIR=$PREFIX PYTHONPATH=bindings/python python3 examples/python/lde_checksum.py
"""

import array
import os
import sys

try:
    import gpuprover as gp
except ImportError:  # not installed: use the binding in this checkout
    sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..", "bindings", "python"))
    import gpuprover as gp

ROWS, COLS, BLOWUP = 1024, 8, 4
P = 0xFFFFFFFF00000001
FNV_OFFSET, FNV_PRIME, MASK64 = 0xCBF29CE484222325, 0x100000001B3, (1 << 64) - 1


def main():
    trace = array.array("Q", bytes(8 * ROWS * COLS))
    for c in range(COLS):
        for r in range(ROWS):
            x = r * COLS + c + 1
            trace[c * ROWS + r] = x ** 3 % P
    try:
        with gp.Context() as ctx, ctx.buffer(gp.Field.GOLDILOCKS, ROWS * BLOWUP, COLS) as lde:
            ctx.lde_host(gp.Field.GOLDILOCKS, trace, ROWS, COLS, lde, blowup=BLOWUP,
                         output_order=gp.Order.BIT_REVERSED)
            out = lde.to_host(gp.Layout.COL_MAJOR)
            with ctx.merkle_commit([lde], kind=gp.MerkleKind.FIELD_SPONGE,
                                   perm=gp.Permutation.POSEIDON2_GOLDILOCKS_8) as tree:
                root = tree.root()
    except gp.GpuproverError as e:
        print(e, file=sys.stderr)
        return 1
    if sys.byteorder != "little":
        out.byteswap()
    h = FNV_OFFSET
    for byte in out.tobytes():  # each element as 8 little-endian bytes
        h = ((h ^ byte) * FNV_PRIME) & MASK64
    print("lde checksum: 0x%016x" % h)
    print("merkle root: 0x" + root.hex())
    return 0


if __name__ == "__main__":
    sys.exit(main())
