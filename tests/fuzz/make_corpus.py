#!/usr/bin/env python3
# SPDX-License-Identifier: MIT OR Apache-2.0
"""Writes the seed corpus of gp_fuzz_api (tests/fuzz/corpus/).

Each seed is a small program in the byte encoding fuzz_api.cpp reads: an
opcode byte (the index of the operation in kOps, taken modulo their number)
followed by the bytes that operation reads. The helpers below write those
bytes in the order fuzz_api.cpp reads them; the seeds together reach every
entry point of gpuprover.h, with valid arguments (so the oracles run) and
with the invalid ones the harness knows.

    python3 tests/fuzz/make_corpus.py            # rewrites tests/fuzz/corpus/
    python3 tests/fuzz/make_corpus.py --out DIR  # writes elsewhere
    python3 tests/fuzz/make_corpus.py --check build-fuzz/tests/fuzz/gp_fuzz_api
        # runs every seed (GP_FUZZ_TRACE=1) and lists the entry points that
        # returned GP_OK and those no seed reached with GP_OK

Python 3 only, no dependencies. The output is deterministic.
"""

import argparse
import os
import struct
import subprocess
import sys

# Opcodes: the order of kOps in fuzz_api.cpp.
OPS = [
    "buffer_create", "buffer_from_host", "buffer_to_host", "buffer_destroy", "ntt",
    "ntt_roundtrip", "lde", "lde_host", "permute", "merkle_commit",
    "merkle_hash_rows", "merkle_query", "merkle_open", "merkle_verify_raw", "tree_destroy",
    "fri_begin", "fri_begin_host", "fri_fold", "fri_remainder", "fri_open",
    "fri_verify_raw", "fri_commit", "fri_destroy", "fri_run", "ood",
    "deep", "constraint", "context", "foreign", "interop",
    "monitor", "commit_host", "host_mem", "devices",
]
OP = {name: i for i, name in enumerate(OPS)}

GL, BB, KB = 1, 2, 3
P = {GL: 0xFFFFFFFF00000001, BB: 2013265921, KB: 2130706433}

# Byte values of the selectors (see the sel_* functions of fuzz_api.cpp).
NULL_SLOT = 0xFF                                # pick_*: no handle
NULL_CTX, NULL_OUT, NULL_DATA = 0xF1, 0xF2, 0xF3  # an op's mode byte
BAD = 0xF0                                      # first "invalid" value of most selectors
OPT_NULL, OPT_ZERO, OPT_HUGE, OPT_MIN, OPT_SHORT, OPT_LONG, OPT_HALF, OPT_EXACT = range(8)
SHIFT_DEFAULT, SHIFT_ONE, SHIFT_GEN, SHIFT_RANDOM, SHIFT_PM1, SHIFT_P, SHIFT_MAX, SHIFT_RAW = range(8)
# gen_elems modes
EL_ZERO, EL_RANDOM, EL_SMALL, EL_PM1, EL_ONE_BAD, EL_RAW = 0, 1, 4, 5, 6, 7
# Merkle kinds (gp_merkle_kind - 1 as the selector byte)
SPONGE, MIDEN, MIDEN_V0_11, MIDEN_V0_10, KECCAK_P3, KECCAK_BE = range(6)


class Prog:
    def __init__(self):
        self.b = bytearray()

    def u8(self, v):
        self.b.append(v & 0xFF)
        return self

    def u16(self, v):
        self.b += struct.pack("<H", v & 0xFFFF)
        return self

    def u32(self, v):
        self.b += struct.pack("<I", v & 0xFFFFFFFF)
        return self

    def u64(self, v):
        self.b += struct.pack("<Q", v & 0xFFFFFFFFFFFFFFFF)
        return self

    def op(self, name):
        return self.u8(OP[name])

    # --- selectors -------------------------------------------------------
    def field(self, f):  # GL, BB, KB, or a raw byte >= BAD
        return self.u8(f - 1 if f in (GL, BB, KB) else f)

    def ext(self, f, e):  # e >= BAD: that raw selector byte
        if e >= BAD:
            return self.u8(e)
        if f == GL:
            return self.u8(e - 1)
        return self.u8(1 if e == 4 else 0)

    def rows(self, log_rows):
        return self.u8(log_rows)

    def cols(self, c):
        return self.u8(c - 1)

    def shift(self, kind, value=0):
        self.u8(kind)
        if kind in (SHIFT_RANDOM, SHIFT_RAW):
            self.u64(value)
        return self

    def elems(self, mode=EL_RANDOM, seed=1, bad_at=0, bad=0):
        self.u8(mode).u32(seed)
        if mode == EL_ONE_BAD:
            self.u16(bad_at).u8(bad)
        return self

    def merkle(self, kind=SPONGE, perm=0, cap=0, digest=None):
        """kind: selector; perm: index into the kind's permutations for the
        field; digest=(digest, rate) sets both (marks the profile unusual)."""
        self.u8(kind).u8(perm)
        if digest is None:
            self.u8(0)
        else:
            self.u8(0xC0).u8(digest[0]).u8(digest[1])
        return self.u8(cap)

    def fri(self, arity_log=1, final_log=0, order=1, shift=None, fold=0, merkle=None):
        """arity 2 << (arity_log - 1); final_size 1 << final_log (taken
        modulo log2 n by the harness)."""
        self.u8(arity_log - 1).u8(final_log).u8(order)
        if shift is None:
            self.u8(0)
        else:
            self.u8(1).shift(*shift)
        self.u8(fold)
        return self.merkle(**(merkle or {}))

    def lde(self, n=None, blowup_log=1, shift=(SHIFT_DEFAULT,), in_shift=(SHIFT_DEFAULT,), order=0, layout=0):
        self.u8(0 if n is None else 0xA0 + n)  # n: log2 of options->n
        self.u8(blowup_log).shift(*shift).shift(*in_shift).u8(order).u8(layout)
        return self

    # --- operations --------------------------------------------------------
    def create(self, f=GL, e=1, log_rows=3, cols=1, mode=0):
        return self.op("buffer_create").field(f).ext(f, e).rows(log_rows).cols(cols).u8(mode)

    def from_host(self, f=GL, e=1, log_rows=3, cols=1, layout=0, mode=0, el=(EL_RANDOM, 1)):
        self.op("buffer_from_host").field(f).ext(f, e).rows(log_rows).cols(cols).u8(layout).u8(mode)
        return self.elems(*el)

    def matrices(self, *slots):
        self.u8(len(slots) - 1)
        for s in slots:
            self.u8(s)
        return self

    def merkle_check(self, count=2, indices=(0, 1), mode=0, which=1, bit=3, verified=True, path=True):
        self.u8(count - 1)
        for i in indices[:count]:
            self.u16(i)
        self.u8(mode)
        if verified:
            self.u8(which)
            if path:
                self.u16(bit)
        return self

    def fri_check(self, indices=(0, 1), mode=0, which=1, bit=5, verified=True, path=True):
        self.u8(len(indices) - 1)
        for i in indices:
            self.u16(i)
        self.u8(mode)
        if verified:
            self.u8(which)
            if path:
                self.u16(bit)
        return self

    def commit_host(self, f=GL, e=1, mats=((3, 2),), keep=0, blowup_log=1, order=1, opts=OPT_EXACT, mode=0,
                    merkle=None, index=5, el=(EL_RANDOM, 3)):
        """mats: (log2 rows, cols) per matrix; keep: 0..2 or a raw byte >= BAD."""
        self.op("commit_host").u8(mode).field(f).ext(f, e).u8(len(mats) - 1)
        for log_rows, cols in mats:
            self.u8(log_rows).u8(cols - 1).elems(*el)
        self.u8(keep).u8(blowup_log).u8(order).u8(opts).merkle(**(merkle or {}))
        return self.u16(index)

    def ood_args(self, slots, opts=OPT_EXACT, shift=(SHIFT_DEFAULT,), order=0, bound=0x00, cdeg=0x01,
                 npoints=2, pmode=0, el=(EL_RANDOM, 7)):
        self.matrices(*slots).u8(opts).shift(*shift).u8(order).u8(bound).u8(cdeg)
        self.u8(npoints - 1 if npoints else 0xF0).u8(pmode)
        return self.elems(*el)


def seeds():
    out = {}

    def add(name, p):
        out[name] = bytes(p.b)

    # Buffers.
    p = Prog()
    for f, e in ((GL, 1), (GL, 2), (GL, 3), (BB, 1), (BB, 4), (KB, 4)):
        p.create(f, e, log_rows=2, cols=2)
    p.op("buffer_to_host").u8(0).u8(1).u8(1)
    add("buffer_create", p)

    p = Prog()
    p.from_host(GL, 3, 3, 2, layout=0).from_host(BB, 4, 2, 3, layout=1).from_host(KB, 1, 8, 8, layout=0)
    p.op("buffer_to_host").u8(0).u8(0).u8(0).op("buffer_to_host").u8(1).u8(1).u8(1)
    p.op("buffer_destroy").u8(2).op("buffer_destroy").u8(NULL_SLOT)
    add("buffer_from_host", p)

    p = Prog()
    p.from_host(GL, 1, 2, 1, el=(EL_ONE_BAD, 3, 1, 0))
    p.from_host(BB, 1, 2, 1, el=(EL_RAW, 9))
    p.from_host(KB, 1, 2, 1, el=(EL_PM1, 0))
    p.create(BB, 0xF4, 2, 1)                    # extension degree 2 of BabyBear
    p.op("buffer_create").u8(0xF1).ext(GL, 1).rows(2).cols(1).u8(0)  # unknown field
    p.op("buffer_create").field(GL).ext(GL, 1).u8(0xF0).cols(1).u8(0)  # 0 rows
    p.op("buffer_create").field(GL).ext(GL, 1).u8(0xF2).u8(0xF2).u8(0)  # wrapping size
    p.op("buffer_create").field(GL).ext(GL, 1).u8(0xF1).cols(1).u8(0)  # more than any host holds
    p.create(GL, 1, 2, 1, mode=NULL_CTX).create(GL, 1, 2, 1, mode=NULL_OUT)
    p.from_host(GL, 1, 2, 1, mode=NULL_DATA).from_host(GL, 1, 2, 1, layout=0xF0)
    p.op("buffer_to_host").u8(0).u8(0).u8(2).op("buffer_to_host").u8(0).u8(0).u8(3)
    p.op("buffer_to_host").u8(NULL_SLOT).u8(0).u8(0)
    add("buffer_invalid", p)

    # NTT.
    p = Prog()
    p.from_host(GL, 1, 3, 2).from_host(BB, 4, 4, 1).from_host(KB, 1, 5, 1)
    for slot in range(3):
        p.op("ntt").u8(slot).u8(OPT_EXACT).u8(0).shift(SHIFT_GEN).u8(0).u8(1).u8(0)
        p.op("ntt").u8(slot).u8(OPT_EXACT).u8(1).shift(SHIFT_GEN).u8(1).u8(0).u8(0)
    p.op("ntt").u8(0).u8(OPT_NULL).u8(0).shift(SHIFT_DEFAULT).u8(0).u8(0).u8(0)
    add("ntt", p)

    p = Prog()
    p.from_host(GL, 2, 4, 2).from_host(BB, 1, 3, 3).from_host(KB, 4, 2, 1)
    for slot, sh in ((0, (SHIFT_RANDOM, 123456789)), (1, (SHIFT_PM1,)), (2, (SHIFT_GEN,))):
        p.op("ntt_roundtrip").u8(slot).shift(*sh).u8(1).u8(0)
    add("ntt_roundtrip", p)

    p = Prog()
    p.from_host(GL, 1, 3, 1).from_host(GL, 1, 0, 1)
    p.from_host(GL, 1, 0, 1, el=(EL_RANDOM, 2)).op("buffer_destroy").u8(2)
    p.create(GL, 1, 0, 3).op("buffer_destroy").u8(2)
    p.op("buffer_from_host").field(GL).ext(GL, 1).u8(0xE0).cols(1).u8(0).u8(0).elems()  # 3 rows
    p.op("ntt").u8(2).u8(OPT_EXACT).u8(0).shift(SHIFT_DEFAULT).u8(0).u8(0).u8(0)  # 3 rows
    p.op("ntt").u8(0).u8(OPT_EXACT).u8(0xF0).shift(SHIFT_DEFAULT).u8(0).u8(0).u8(0)  # direction
    p.op("ntt").u8(0).u8(OPT_EXACT).u8(0).shift(SHIFT_P).u8(0).u8(0).u8(0)
    p.op("ntt").u8(0).u8(OPT_EXACT).u8(0).shift(SHIFT_DEFAULT).u8(0xF1).u8(0).u8(0)
    p.op("ntt").u8(0).u8(OPT_ZERO).u8(0).shift(SHIFT_DEFAULT).u8(0).u8(0).u8(0)
    p.op("ntt").u8(0).u8(OPT_MIN).u8(0xF0).shift(SHIFT_P).u8(0).u8(0).u8(0)
    p.op("ntt").u8(0).u8(OPT_EXACT).u8(0).shift(SHIFT_DEFAULT).u8(0).u8(0).u8(NULL_CTX)
    p.op("ntt").u8(NULL_SLOT).u8(OPT_EXACT).u8(0).shift(SHIFT_DEFAULT).u8(0).u8(0).u8(0)
    p.op("ntt").u8(1).u8(OPT_LONG).u8(1).shift(SHIFT_ONE).u8(0).u8(0).u8(0)
    add("ntt_invalid", p)

    # LDE.
    p = Prog()
    p.from_host(GL, 1, 3, 2).from_host(BB, 4, 2, 1).from_host(KB, 1, 4, 3)
    p.op("lde").u8(0).u8(OPT_EXACT).lde(blowup_log=1, order=1).u8(0).u8(0x5A)  # -> slot 3
    p.op("lde").u8(1).u8(OPT_EXACT).lde(blowup_log=2, shift=(SHIFT_RANDOM, 99)).u8(0).u8(0)  # -> 4
    p.op("lde").u8(2).u8(OPT_EXACT).lde(blowup_log=0, shift=(SHIFT_ONE,)).u8(0).u8(0)  # identity
    p.op("lde").u8(0).u8(OPT_EXACT).lde(n=4, blowup_log=1, in_shift=(SHIFT_GEN,)).u8(0).u8(0)
    add("lde", p)

    p = Prog()
    p.op("lde_host").field(GL).ext(GL, 2).rows(3).cols(2).u8(OPT_EXACT).lde(blowup_log=1, layout=1)
    p.u8(0).u8(0x5A).elems(EL_RANDOM, 5)
    p.op("lde_host").field(BB).ext(BB, 1).rows(4).cols(1).u8(OPT_EXACT).lde(n=5, blowup_log=3, order=1)
    p.u8(0).u8(0x5A).elems(EL_RANDOM, 6)
    p.op("lde_host").field(KB).ext(KB, 4).rows(2).cols(1).u8(OPT_EXACT).lde(blowup_log=0)
    p.u8(0).u8(0).elems(EL_ONE_BAD, 7, 1, 0)
    p.op("lde_host").field(GL).ext(GL, 1).rows(2).cols(1).u8(OPT_EXACT).lde(blowup_log=1)
    p.u8(0).u8(NULL_DATA).elems()
    add("lde_host", p)

    p = Prog()
    p.from_host(GL, 1, 3, 1)
    for lde_bytes in (dict(blowup_log=0xF2), dict(n=2), dict(shift=(SHIFT_P,)), dict(order=0xF0),
                      dict(layout=0xF3), dict(in_shift=(SHIFT_MAX,))):
        p.op("lde").u8(0).u8(OPT_EXACT).lde(**lde_bytes).u8(1).u8(0)
    p.op("lde").u8(0).u8(OPT_EXACT).lde().u8(3).u8(0)   # output of the wrong height
    p.op("lde").u8(0).u8(OPT_EXACT).lde().u8(2).u8(0).u8(0)  # output = input
    p.op("lde").u8(0).u8(OPT_HUGE).lde().u8(1).u8(0)
    p.op("lde").u8(NULL_SLOT).u8(OPT_EXACT).lde().u8(1).u8(0)
    p.op("lde_host").field(GL).ext(GL, 1).u8(0xF2).cols(1).u8(OPT_EXACT).lde().u8(1).u8(0).elems()
    add("lde_invalid", p)

    # Permutations: every gp_permutation, and invalid ones.
    p = Prog()
    for perm in range(13):
        p.op("permute").u8(perm).u8(2 if perm % 2 else 7).elems(EL_RANDOM, perm + 1)
    add("permute", p)
    p = Prog()
    p.op("permute").u8(0xF0).u8(1).elems()   # perm 0
    p.op("permute").u8(0xF1).u8(1).elems()   # perm 14
    p.op("permute").u8(0).u8(5).elems()      # count wraps
    p.op("permute").u8(4).u8(6).elems()      # NULL states
    p.op("permute").u8(4).u8(0).elems()      # no states
    p.op("permute").u8(4).u8(1).elems(EL_ONE_BAD, 3, 2, 1)
    p.op("context").u8(10).u8(14)            # gp_permutation_info(14)
    add("permute_invalid", p)

    # Merkle commitments: every kind, mixed heights, caps, then open/verify.
    p = Prog()
    p.from_host(GL, 1, 3, 2).from_host(GL, 2, 2, 1).from_host(GL, 1, 3, 1)
    p.op("merkle_commit").matrices(0, 1).u8(OPT_EXACT).merkle(SPONGE, 0, cap=1).u8(1)
    p.merkle_check(2, (3, 6))
    p.op("merkle_commit").matrices(0, 2).u8(OPT_EXACT).merkle(MIDEN, 0).u8(1).merkle_check(2, (0, 7))
    p.op("merkle_commit").matrices(2).u8(OPT_EXACT).merkle(KECCAK_BE, 0, cap=2).u8(1).merkle_check(1, (5,))
    p.op("merkle_query").u8(0).u8(0).op("merkle_query").u8(1).u8(1)
    p.op("tree_destroy").u8(0).op("tree_destroy").u8(0).op("tree_destroy").u8(0)
    add("merkle_goldilocks", p)

    p = Prog()
    p.from_host(BB, 4, 3, 1).from_host(BB, 1, 2, 3).from_host(KB, 1, 3, 2)
    p.op("merkle_commit").matrices(0, 1).u8(OPT_EXACT).merkle(SPONGE, 1, cap=0).u8(1).merkle_check(2, (1, 4))
    p.op("merkle_commit").matrices(0, 1).u8(OPT_EXACT).merkle(KECCAK_P3, 0, cap=1).u8(1).merkle_check(1, (2,))
    p.op("merkle_commit").matrices(2).u8(OPT_EXACT).merkle(SPONGE, 0).u8(1).merkle_check(2, (0, 7), which=9)
    p.op("merkle_open").u8(2).merkle_check(3, (1, 2, 3), mode=1, verified=False)
    add("merkle_31bit", p)

    p = Prog()
    p.from_host(GL, 1, 4, 1)
    for perm in range(8):
        p.op("merkle_commit").matrices(0).u8(OPT_EXACT).merkle(SPONGE, perm).u8(1).merkle_check(1, (perm,))
        p.op("tree_destroy").u8(0)
    for kind in (MIDEN_V0_11, MIDEN_V0_10):
        p.op("merkle_commit").matrices(0).u8(OPT_EXACT).merkle(kind, 1).u8(1).merkle_check(1, (3,))
        p.op("tree_destroy").u8(0)
    add("merkle_profiles", p)

    p = Prog()
    p.from_host(GL, 1, 3, 1).from_host(GL, 1, 2, 1)
    p.op("merkle_hash_rows").matrices(0).u8(OPT_EXACT).merkle(SPONGE, 2).u8(0)
    p.op("merkle_hash_rows").matrices(0).u8(OPT_EXACT).merkle(KECCAK_P3, 0).u8(0)
    p.op("merkle_hash_rows").matrices(0, 1).u8(OPT_EXACT).merkle().u8(0)      # heights differ
    p.op("merkle_hash_rows").matrices(0).u8(OPT_EXACT).merkle().u8(1)         # short output
    p.op("merkle_commit").matrices(0).u8(OPT_EXACT).merkle(SPONGE, 0, digest=(2, 4)).u8(1)
    p.merkle_check(1, (1,))
    p.op("merkle_commit").matrices(0).u8(OPT_EXACT).merkle(SPONGE, 0, digest=(5, 3)).u8(0)
    p.op("merkle_commit").matrices(0).u8(OPT_EXACT).merkle(SPONGE, 0xCD).u8(0)  # Keccak-f for a sponge
    p.op("merkle_commit").matrices(0).u8(OPT_EXACT).merkle(0xF0, 0).u8(0)       # kind 0
    p.op("merkle_commit").matrices(0).u8(OPT_EXACT).merkle(SPONGE, 0, cap=0xF1).u8(0)
    p.op("merkle_commit").matrices(0, 1).u8(OPT_EXACT).merkle(MIDEN, 0).u8(0)   # one height only
    p.op("merkle_commit").matrices(0, NULL_SLOT).u8(OPT_EXACT).merkle().u8(0)
    p.op("merkle_commit").matrices(0).u8(OPT_EXACT).merkle().u8(NULL_DATA)
    p.op("merkle_commit").matrices(0).u8(OPT_EXACT).merkle().u8(0xF4)           # count 0
    p.op("merkle_commit").matrices(0).u8(OPT_ZERO).merkle().u8(0)
    p.op("merkle_query").u8(NULL_SLOT).u8(0)
    p.op("merkle_open").u8(NULL_SLOT)
    p.op("merkle_open").u8(0).merkle_check(2, (0xFF01, 1), mode=0, verified=False)  # index past the end
    p.op("merkle_open").u8(0).merkle_check(2, (1, 2), mode=3, verified=False)       # short rows
    p.op("merkle_open").u8(0).merkle_check(2, (1, 2), mode=5, verified=False)       # count > indices
    add("merkle_invalid", p)

    p = Prog()
    for f in (GL, BB):
        p.op("merkle_verify_raw").field(f).u8(OPT_EXACT).merkle().u8(1)
        p.rows(3).u8(1).ext(f, 1)
        p.u8(4).elems(EL_RANDOM, 1).u8(1).elems(EL_RANDOM, 2).u8(12).elems(EL_RANDOM, 3).u8(0).u8(5)
    p.op("merkle_verify_raw").field(GL).u8(OPT_EXACT).merkle().u8(0).rows(3).u8(1).ext(GL, 1)  # dims NULL
    p.u8(4).elems().u8(1).elems().u8(12).elems().u8(0).u8(1)
    add("merkle_verify", p)

    # FRI.
    p = Prog()
    p.from_host(GL, 3, 6, 1).from_host(BB, 4, 5, 1)
    p.op("fri_begin").u8(0).u8(OPT_EXACT).fri(arity_log=1, final_log=1).u8(0)
    for k in range(5):
        p.op("fri_fold").u8(0).u8(0).u32(k + 1).u8(0)
    p.op("fri_remainder").u8(0).u8(0)
    p.op("fri_open").u8(0).fri_check((3, 60))
    p.op("fri_begin").u8(1).u8(OPT_EXACT).fri(arity_log=2, final_log=1, order=0).u8(0)
    p.op("fri_fold").u8(1).u8(0).u32(9).u8(0).op("fri_fold").u8(1).u8(0).u32(10).u8(0)
    p.op("fri_open").u8(1).fri_check((7, 31))
    p.op("fri_destroy").u8(0).op("fri_destroy").u8(0)
    add("fri_begin_fold", p)

    p = Prog()
    p.op("fri_begin_host").field(KB).ext(KB, 4).u8(6).elems(EL_RANDOM, 3).u8(OPT_EXACT)
    p.fri(arity_log=3, final_log=3, merkle=dict(cap=2)).u8(0)
    p.op("fri_fold").u8(0).u8(0).u32(4).u8(0).op("fri_fold").u8(0).u8(0).u32(5).u8(0)
    p.op("fri_open").u8(0).fri_check((0, 63), which=3)
    p.op("fri_begin_host").field(GL).ext(GL, 1).u8(4).elems(EL_RANDOM, 4).u8(OPT_EXACT)
    p.fri(arity_log=1, final_log=2, order=0, shift=(SHIFT_GEN,), fold=1).u8(0)
    p.op("fri_fold").u8(1).u8(0).u32(6).u8(0).op("fri_fold").u8(1).u8(0).u32(7).u8(0)
    p.op("fri_open").u8(1).fri_check((5,))
    add("fri_begin_host", p)

    p = Prog()
    for f, e, log_n, arity_log, final_log, layers in ((GL, 2, 5, 1, 1, 4), (BB, 1, 6, 2, 2, 2),
                                                      (KB, 4, 4, 3, 1, 1)):
        p.op("fri_run").u8(0x81).field(f).ext(f, e).u8(log_n).elems(EL_RANDOM, log_n).u8(OPT_EXACT)
        p.fri(arity_log=arity_log, final_log=final_log, merkle=dict(cap=0))
        p.u8(0)
        for k in range(layers):
            p.u32(k + 11)
        p.fri_check((1, 2), path=True)
    add("fri_run", p)

    p = Prog()
    p.from_host(GL, 1, 5, 1).from_host(BB, 4, 4, 1)
    p.op("fri_commit").u8(0).u8(OPT_EXACT).fri(arity_log=1).u8(0).u32(1).u8(1).fri_check((4, 30))
    p.op("fri_commit").u8(1).u8(OPT_EXACT).fri(arity_log=2).u8(0).u32(2).u8(1).fri_check((9,))
    p.op("fri_commit").u8(0).u8(OPT_EXACT).fri().u8(0xC1).u32(3).u8(0)   # callback fails at layer 1
    p.op("fri_commit").u8(0).u8(OPT_EXACT).fri().u8(0xB2).u32(4).u8(0)   # non-canonical challenge
    p.op("fri_commit").u8(0).u8(OPT_EXACT).fri().u8(0).u32(5).u8(NULL_DATA)  # no callback
    p.op("fri_commit").u8(0).u8(OPT_EXACT).fri().u8(0).u32(5).u8(NULL_OUT)
    add("fri_commit", p)

    p = Prog()
    p.from_host(GL, 1, 3, 1).from_host(GL, 1, 3, 2)
    p.op("fri_begin").u8(0).u8(OPT_EXACT).fri(arity_log=1, final_log=0).u8(0)     # 3 layers
    p.op("fri_begin").u8(1).u8(OPT_EXACT).fri().u8(0)                             # two columns
    p.op("fri_begin").u8(0).u8(OPT_EXACT).fri(arity_log=0xF1).u8(0)
    p.op("fri_begin").u8(0).u8(OPT_EXACT).fri(final_log=0xF2).u8(0)
    p.op("fri_begin").u8(0).u8(OPT_EXACT).fri(order=0xF0).u8(0)
    p.op("fri_begin").u8(0).u8(OPT_EXACT).fri(shift=(SHIFT_DEFAULT,)).u8(0)      # shift 0
    p.op("fri_begin").u8(0).u8(OPT_EXACT).fri(fold=0xF0).u8(0)
    p.op("fri_begin").u8(0).u8(OPT_EXACT).fri(merkle=dict(cap=0xF2)).u8(0)
    p.op("fri_begin").u8(0).u8(OPT_EXACT).fri().u8(2)                             # short cap
    p.op("fri_begin").u8(0).u8(OPT_EXACT).fri().u8(1)                             # no cap
    p.op("fri_fold").u8(0).u8(5).u32(1).u8(0)                                     # non-canonical beta
    p.op("fri_fold").u8(0).u8(6).u32(1).u8(0).op("fri_fold").u8(0).u8(7).u32(1).u8(0)
    p.op("fri_fold").u8(0).u8(0).u32(1).u8(2)                                     # short cap
    p.op("fri_fold").u8(0).u8(0).u32(1).u8(1)                                     # no cap
    p.op("fri_remainder").u8(0).u8(0).op("fri_open").u8(0).u8(0).u16(0).u8(0)     # too early
    p.op("fri_fold").u8(NULL_SLOT).op("fri_remainder").u8(NULL_SLOT).u8(0).op("fri_open").u8(NULL_SLOT)
    p.op("fri_begin_host").field(GL).ext(GL, 1).u8(0xF3).elems().u8(OPT_EXACT).fri().u8(0)  # n = 2^40
    p.op("fri_begin_host").field(GL).ext(GL, 1).u8(3).elems(EL_ONE_BAD, 1, 2, 0).u8(OPT_EXACT).fri().u8(0)
    add("fri_invalid", p)

    p = Prog()
    p.op("fri_verify_raw").field(GL).ext(GL, 1).u8(3).u8(OPT_EXACT).fri()
    p.u8(4).elems().u8(3).elems().u8(1).elems().u16(20).elems().u16(3).u8(0)
    p.op("fri_verify_raw").field(BB).ext(BB, 4).u8(2).u8(OPT_EXACT).fri()
    p.u8(8).elems().u8(4).elems().u8(4).elems().u16(24).elems().u16(1).u8(3)
    add("fri_verify", p)

    # OOD evaluation and DEEP composition.
    p = Prog()
    p.from_host(GL, 1, 3, 2).from_host(GL, 3, 3, 1)
    p.op("ood").ood_args((0, 1)).u8(0)
    p.op("ood").ood_args((0,), order=1, bound=0x82, cdeg=0x00).u8(0)   # degree bound 4, E = 1
    p.op("deep").ood_args((0, 1)).u8(3).u8(0).u8(0).u32(1)            # values from gp_evaluate_ood
    p.op("deep").ood_args((0,)).u8(1).u8(0).u8(0).u32(2)              # zero coefficients
    p.from_host(BB, 4, 4, 1).from_host(KB, 1, 2, 3)
    p.op("ood").ood_args((4,), cdeg=0x02).u8(0)
    p.op("deep").ood_args((5,), cdeg=0x02).u8(3).u8(0).u8(0).u32(3)
    add("ood_deep", p)

    p = Prog()
    p.from_host(GL, 1, 3, 1).from_host(GL, 1, 2, 1).from_host(GL, 2, 3, 1)
    p.op("ood").ood_args((0,), pmode=1).u8(0)                  # z in the coset
    p.op("ood").ood_args((0,), el=(EL_ONE_BAD, 1, 0, 0)).u8(0)  # non-canonical z
    p.op("ood").ood_args((0, 1)).u8(0)                         # heights differ
    p.op("ood").ood_args((0, 2), cdeg=0x00).u8(0)              # degree 2 column, E = 1
    p.op("ood").ood_args((0,), bound=0xF0).u8(0)               # degree bound 3
    p.op("ood").ood_args((0,), cdeg=0xF0).u8(0)                # challenge degree 5
    p.op("ood").ood_args((0,), npoints=0).u8(0)
    p.op("ood").ood_args((0,)).u8(1)                           # short output
    p.op("ood").ood_args((NULL_SLOT,)).u8(0)
    p.op("deep").ood_args((0,)).u8(2).u8(0).u8(0).u32(1)       # non-canonical values
    p.op("deep").ood_args((0,)).u8(0).u8(3).u8(0).u32(1)       # out = an input
    p.op("deep").ood_args((0,)).u8(0).u8(2).u8(0).u32(1).u8(1)  # out of the wrong shape
    add("ood_deep_invalid", p)

    # Constraint commitment.
    p = Prog()
    p.from_host(GL, 1, 4, 1).from_host(BB, 4, 3, 1)
    p.op("constraint").u8(0).u8(OPT_EXACT).u8(0).u8(1).u8(1).shift(SHIFT_DEFAULT).u8(1).merkle().u8(1)
    p.merkle_check(2, (1, 14))
    p.op("constraint").u8(1).u8(OPT_EXACT).u8(1).u8(2).u8(2).shift(SHIFT_DEFAULT).u8(0)
    p.merkle(SPONGE, 0, cap=1).u8(1).merkle_check(1, (5,))
    p.op("constraint").u8(0).u8(OPT_EXACT).u8(0xF0).u8(1).u8(1).shift(SHIFT_DEFAULT).u8(1).merkle().u8(0)
    p.op("constraint").u8(0).u8(OPT_EXACT).u8(0).u8(0xF1).u8(1).shift(SHIFT_DEFAULT).u8(1).merkle().u8(0)
    p.op("constraint").u8(0).u8(OPT_EXACT).u8(0).u8(1).u8(0xF1).shift(SHIFT_DEFAULT).u8(1).merkle().u8(0)
    p.op("constraint").u8(0).u8(OPT_EXACT).u8(0).u8(1).u8(1).shift(SHIFT_DEFAULT).u8(1).merkle().u8(NULL_OUT)
    add("constraint", p)

    # Context queries, other contexts, buffers of another context.
    p = Prog()
    for what, arg in ((0, 0), (0, 1), (0, 2), (0, 3), (1, 0), (2, 0), (2, 1), (2, 2), (5, 3), (5, 0xF1),
                      (6, 0), (7, 0), (8, 0), (8, 1), (8, 2), (8, 4), (8, 0x30), (8, 0x40), (10, 5)):
        p.op("context").u8(what).u8(arg)
    for f in (GL, BB, KB, 0xF0):
        p.op("context").u8(3).u8(0).field(f)
        p.op("context").u8(4).u8(5).field(f)
    p.op("context").u8(4).u8(33).field(KB)      # 2^33 > two-adicity
    p.from_host(GL, 1, 2, 1).op("context").u8(9).u8(0).u8(0)
    add("context", p)

    p = Prog()
    p.from_host(GL, 1, 2, 1)
    for what in range(8):
        p.op("foreign").u8(what).u8(0)
    add("foreign", p)

    # Interop: wrapped memory, addresses, DLPack both ways, streams.
    p = Prog()
    p.op("interop").u8(0).field(GL).ext(GL, 2).rows(3).cols(2).u8(0).elems(EL_RANDOM, 1)   # slot 0
    p.op("interop").u8(0).field(BB).ext(BB, 1).rows(2).cols(3).u8(0).elems(EL_RANDOM, 2)   # slot 1
    p.op("interop").u8(0).field(BB).ext(BB, 1).rows(2).cols(1).u8(0x0F).elems()           # misaligned
    p.op("interop").u8(0).field(GL).ext(GL, 1).rows(2).cols(1).u8(0).elems(EL_ONE_BAD, 1, 1, 0)
    p.op("interop").u8(0).field(GL).ext(GL, 1).rows(2).cols(1).u8(NULL_DATA).elems()
    p.op("interop").u8(0).field(GL).ext(GL, 1).u8(0xF2).u8(0xF2).u8(0).elems()         # size wraps
    for what in (1, 2):  # gp_buffer_data, gp_buffer_to_dlpack: slot, mode
        p.op("interop").u8(what).u8(0).u8(0).op("interop").u8(what).u8(1).u8(0)
        p.op("interop").u8(what).u8(0).u8(NULL_OUT).op("interop").u8(what).u8(NULL_SLOT).u8(0)
    p.op("ntt_roundtrip").u8(0).shift(SHIFT_GEN).u8(0).u8(1)
    p.op("lde").u8(1).u8(OPT_EXACT).lde(blowup_log=1).u8(0).u8(0)                        # slot 2
    p.op("interop").u8(1).u8(2).u8(0)
    p.op("interop").u8(4).u8(0).op("interop").u8(4).u8(1)                                # streams
    p.op("buffer_destroy").u8(0)
    add("interop_wrap", p)

    p = Prog()
    for f, e, log_rows, cols, form in ((GL, 1, 3, 2, 7), (BB, 4, 2, 4, 1), (KB, 1, 4, 1, 0), (GL, 3, 2, 3, 0x41)):
        p.op("interop").u8(3).field(f).ext(f, e).u8(log_rows).u8(cols - 1).u8(form).u8(0).elems(EL_RANDOM, form)
    p.op("interop").u8(2).u8(1).u8(0).op("buffer_destroy").u8(0).op("buffer_destroy").u8(0)
    for form in (2, 3, 4, 0x14, 5, 0x15, 0x25, 0x87):
        p.op("interop").u8(3).field(GL).ext(GL, 1).u8(2).u8(1).u8(form).u8(0).elems()
    p.op("interop").u8(3).field(GL).ext(GL, 2).u8(2).u8(0).u8(0).u8(0).elems()          # 1-D, degree 2
    p.op("interop").u8(3).field(BB).ext(BB, 1).u8(2).u8(0).u8(7).u8(0).elems(EL_ONE_BAD, 2, 1, 0)
    p.op("interop").u8(3).field(GL).ext(GL, 1).u8(2).u8(0).u8(7).u8(NULL_DATA).elems()
    add("interop_dlpack", p)

    # Cancellation, progress and log callbacks, counters, call statistics.
    p = Prog()
    p.op("monitor").u8(1).u8(1).op("monitor").u8(2).u8(1)
    p.from_host(GL, 1, 5, 2).op("lde").u8(0).u8(OPT_EXACT).lde(blowup_log=2).u8(0).u8(0)
    p.op("merkle_commit").matrices(1).u8(OPT_EXACT).merkle().u8(0)
    p.op("fri_run").u8(0x81).field(BB).ext(BB, 4).u8(5).elems().u8(OPT_EXACT).fri(arity_log=1).u8(0)
    for k in range(5):
        p.u32(k)
    p.fri_check((3,))
    for what, arg in ((0, 0), (0, NULL_CTX), (3, 0), (3, 0x42), (3, 3), (3, NULL_OUT), (4, 0), (4, 1),
                      (4, 2), (4, 3), (4, NULL_OUT), (5, 0), (5, 1), (1, 0), (2, 0), (1, NULL_CTX)):
        p.op("monitor").u8(what).u8(arg)
    add("monitor", p)

    # One-call commitment of host traces in every keep mode, against the
    # composed calls; the kept LDE buffers and tree opened afterwards, and a
    # tree whose LDE buffer was destroyed.
    p = Prog()
    p.commit_host(GL, 1, ((3, 2), (2, 1)), keep=0)                      # buffers 0, 1; tree 0
    p.op("merkle_open").u8(0).merkle_check(2, (5, 14))
    p.commit_host(GL, 2, ((2, 1),), keep=0, mode=0x40)                  # one LDE buffer destroyed
    p.commit_host(BB, 4, ((4, 2),), keep=1, blowup_log=2, order=0)
    p.commit_host(KB, 1, ((3, 3), (3, 1)), keep=2)
    p.commit_host(GL, 3, ((2, 2),), keep=1, opts=OPT_NULL)              # defaults: keep on the device
    p.commit_host(GL, 1, ((2, 1),), keep=0xF0)                          # keep 3
    for mode in (NULL_CTX, NULL_OUT, NULL_DATA, 0xF4):                  # NULLs, a budget of 1 byte
        p.commit_host(GL, 1, ((2, 1),), keep=0, mode=mode)
    p.commit_host(GL, 1, ((2, 1),), keep=0, el=(EL_ONE_BAD, 1, 1, 0))  # non-canonical trace
    add("commit_host", p)

    # Host memory of the context; its devices.
    p = Prog()
    for mode, size in ((0, 1), (0, 4), (0, 0xC0), (0, 0), (0, 0xF3), (NULL_CTX, 1), (NULL_OUT, 1)):
        p.op("host_mem").u8(mode).u8(size)
    for mode, arg in ((0, 0), (0, 1), (0, 2), (0, 3), (0, 4), (0, 5), (0, 6), (3, 0x10), (NULL_CTX, 0),
                      (NULL_OUT, 0)):
        p.op("devices").u8(mode).u8(arg)
    add("host_devices", p)

    # A progress callback that calls the library on its own context.
    p = Prog()
    p.op("monitor").u8(1).u8(5)
    p.from_host(GL, 1, 5, 2).op("lde").u8(0).u8(OPT_EXACT).lde(blowup_log=2).u8(0).u8(0)
    p.op("merkle_commit").matrices(1).u8(OPT_EXACT).merkle().u8(1).merkle_check(1, (9,))
    p.commit_host(GL, 1, ((3, 2),), keep=1)
    p.op("monitor").u8(1).u8(0)
    add("progress_reentry", p)

    # A FRI challenge callback that returns an int outside gp_status.
    p = Prog()
    p.from_host(GL, 1, 4, 1)
    p.op("fri_commit").u8(0).u8(OPT_EXACT).fri(arity_log=1, final_log=1).u8(0xC1).u32(3).u8(0xF5)
    p.op("fri_commit").u8(0).u8(OPT_EXACT).fri(arity_log=1, final_log=1).u8(0xC0).u32(3).u8(0xF5)
    add("fri_commit_bad_status", p)

    # A longer mixed program.
    p = Prog()
    p.from_host(GL, 1, 3, 2).op("lde").u8(0).u8(OPT_EXACT).lde(blowup_log=2, order=1).u8(0).u8(0)
    p.op("merkle_commit").matrices(1).u8(OPT_EXACT).merkle().u8(1).merkle_check(2, (5, 30))
    p.op("ntt_roundtrip").u8(0).shift(SHIFT_GEN).u8(0).u8(0)
    p.op("ood").ood_args((1,), order=1, bound=0x83).u8(0)
    p.op("deep").ood_args((1,), order=1).u8(3).u8(0).u8(0).u32(9)
    p.op("fri_begin").u8(2).u8(OPT_EXACT).fri(arity_log=1, final_log=1).u8(0)
    for k in range(4):
        p.op("fri_fold").u8(0).u8(0).u32(k).u8(0)
    p.op("fri_open").u8(0).fri_check((17, 3))
    p.op("context").u8(0).u8(0)
    add("pipeline", p)
    return out


def write(out_dir):
    os.makedirs(out_dir, exist_ok=True)
    for f in os.listdir(out_dir):
        os.remove(os.path.join(out_dir, f))
    total = 0
    for name, data in sorted(seeds().items()):
        with open(os.path.join(out_dir, name), "wb") as fh:
            fh.write(data)
        total += len(data)
    print(f"wrote {len(seeds())} seeds, {total} bytes, to {out_dir}")


# Entry points that return a gp_status (the ones GP_FUZZ_TRACE reports).
STATUS_ENTRY_POINTS = [
    "gp_field_info", "gp_field_two_adic_generator", "gp_context_create", "gp_context_device_name",
    "gp_context_memory_stats", "gp_context_trim", "gp_buffer_create", "gp_buffer_from_host",
    "gp_buffer_to_host", "gp_ntt_batch", "gp_lde_batch", "gp_lde_batch_host", "gp_permutation_info",
    "gp_permute_batch", "gp_merkle_commit", "gp_merkle_hash_rows", "gp_merkle_root", "gp_merkle_cap",
    "gp_merkle_opening_size", "gp_merkle_open", "gp_merkle_verify", "gp_fri_begin", "gp_fri_begin_host",
    "gp_fri_fold", "gp_fri_remainder", "gp_fri_commit", "gp_fri_open", "gp_fri_verify",
    "gp_constraint_commit", "gp_evaluate_ood", "gp_deep_composition", "gp_buffer_wrap", "gp_buffer_data",
    "gp_context_set_stream", "gp_buffer_to_dlpack", "gp_buffer_from_dlpack", "gp_context_cancel",
    "gp_context_set_progress", "gp_context_set_log", "gp_context_counters", "gp_context_call_stats",
    "gp_context_reset_counters", "gp_commit_host", "gp_host_alloc", "gp_host_free", "gp_context_device_info",
]


def check(binary, out_dir):
    """Runs every seed and reports which entry points each reaches."""
    reached_ok, reached = set(), set()
    bad = False
    for name in sorted(os.listdir(out_dir)):
        path = os.path.join(out_dir, name)
        env = dict(os.environ, GP_FUZZ_TRACE="1")
        r = subprocess.run([binary, path], env=env, capture_output=True, text=True)
        seen = {}
        for line in r.stderr.splitlines():
            parts = line.split()
            if len(parts) >= 3 and parts[1] == "->" and parts[0].startswith("gp_"):
                seen.setdefault(parts[0], set()).add(parts[2])
        ok = sorted(k for k, v in seen.items() if "GP_OK" in v)
        status = "ok" if r.returncode == 0 else f"EXIT {r.returncode}"
        bad |= r.returncode != 0
        print(f"{name:20s} {status:8s} {len(ok)} entry points with GP_OK")
        for k, v in seen.items():
            reached.add(k)
            if "GP_OK" in v:
                reached_ok.add(k)
    missing = [e for e in STATUS_ENTRY_POINTS if e not in reached_ok]
    print(f"\n{len(STATUS_ENTRY_POINTS) - len(missing)} of {len(STATUS_ENTRY_POINTS)} status-returning entry "
          f"points return GP_OK in some seed; {len(reached)} entry points called")
    if missing:
        print("never GP_OK: " + ", ".join(missing))
    return 1 if bad or missing else 0


def main():
    here = os.path.dirname(os.path.abspath(__file__))
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--out", default=os.path.join(here, "corpus"), help="output folder (default: %(default)s)")
    ap.add_argument("--check", metavar="GP_FUZZ_API", help="run every seed with this binary and report")
    a = ap.parse_args()
    if a.check:
        return check(a.check, a.out)
    write(a.out)
    return 0


if __name__ == "__main__":
    sys.exit(main())
