#!/usr/bin/env python3
# SPDX-License-Identifier: MIT OR Apache-2.0
"""Generates src/hash/poseidon2_constants.h from the Poseidon2 known-answer files.

    python3 src/hash/gen_constants.py [--vectors DIR] [--out FILE] [--check]

Inputs: poseidon2_goldilocks.json, poseidon2_babybear.json and
poseidon2_koalabear.json (default folder: tests/vectors of this repository).
Every constant in the output is copied from those files as a canonical
integer; nothing is computed here except Python-side checks.

Before writing, the script re-runs every upstream vector of each emitted
instance through a plain Python Poseidon2 (the structure of
shared/vectors/README.md), and checks the instance's width, S-box degree,
R_P and 4x4 matrix against what poseidon2.h hard-codes, so a header that
does not reproduce the vectors is never written. --check compares the
would-be output with the existing file instead of writing it (exit 1 when
they differ).

Stdlib only. The output is deterministic (same input -> same bytes).
"""

import genutil
import argparse
import json
import os
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
REPO = os.path.normpath(os.path.join(HERE, "..", ".."))

FIELDS = {
    # file key: (C++ field type, p, storage bits, S-box degree, {width: R_P})
    "goldilocks": ("::gp::Goldilocks", 0xFFFFFFFF00000001, 64, 7, {8: 22, 12: 22, 16: 22}),
    "babybear": ("::gp::BabyBear", 0x78000001, 32, 7, {16: 13, 24: 21, 32: 30}),
    "koalabear": ("::gp::KoalaBear", 0x7F000001, 32, 3, {16: 20, 24: 23, 32: 31}),
}

MAT4 = {
    0: [[2, 3, 1, 1], [1, 2, 3, 1], [1, 1, 2, 3], [3, 1, 1, 2]],  # Plonky3 MDSMat4
    1: [[5, 7, 1, 3], [4, 6, 1, 1], [1, 3, 5, 7], [1, 1, 4, 6]],  # HorizenLabs / HLMDSMat4
}
MAT4_NAME = {0: "Poseidon2Mat4::Plonky3", 1: "Poseidon2Mat4::HorizenLabs"}

# (struct name, field file key, JSON instance id, what it is). Order = output order.
INSTANCES = [
    ("GoldilocksW8", "goldilocks", "plonky3_default_goldilocks_w8",
     "Plonky3 default_goldilocks_poseidon2_8()"),
    ("GoldilocksW12", "goldilocks", "plonky3_default_goldilocks_w12",
     "Plonky3 default_goldilocks_poseidon2_12()"),
    ("GoldilocksW16", "goldilocks", "plonky3_default_goldilocks_w16",
     "Plonky3 default_goldilocks_poseidon2_16()"),
    ("GoldilocksHLW8", "goldilocks", "plonky3_old_horizenlabs_compatible_goldilocks_w8",
     "HorizenLabs-compatible width 8 (older Plonky3 Poseidon2GoldilocksHL<8>; "
     "= HorizenLabs RC8 / MAT_DIAG8_M_1)"),
    ("GoldilocksHLW12", "goldilocks", "horizenlabs_goldilocks_w12",
     "HorizenLabs poseidon2 Goldilocks width 12 (RC12 / MAT_DIAG12_M_1)"),
    ("BabyBearW16", "babybear", "plonky3_default_babybear_w16",
     "Plonky3 default_babybear_poseidon2_16()"),
    ("BabyBearW24", "babybear", "plonky3_default_babybear_w24",
     "Plonky3 default_babybear_poseidon2_24()"),
    ("BabyBearW32", "babybear", "plonky3_default_babybear_w32",
     "Plonky3 default_babybear_poseidon2_32()"),
    ("BabyBearHLW16", "babybear", "horizenlabs_babybear_w16",
     "HorizenLabs poseidon2 BabyBear width 16 (RC16 / MAT_DIAG16_M_1)"),
    ("BabyBearHLW24", "babybear", "horizenlabs_babybear_w24",
     "HorizenLabs poseidon2 BabyBear width 24 (RC24 / MAT_DIAG24_M_1)"),
    ("KoalaBearW16", "koalabear", "plonky3_default_koalabear_w16",
     "Plonky3 default_koalabear_poseidon2_16()"),
    ("KoalaBearW24", "koalabear", "plonky3_default_koalabear_w24",
     "Plonky3 default_koalabear_poseidon2_24()"),
    ("KoalaBearW32", "koalabear", "plonky3_default_koalabear_w32",
     "Plonky3 default_koalabear_poseidon2_32()"),
]

# Instances whose constants must equal another emitted instance's (checked).
SAME_CONSTANTS = [
    ("goldilocks", "horizenlabs_goldilocks_w8", "plonky3_old_horizenlabs_compatible_goldilocks_w8"),
]


def fail(msg):
    sys.stderr.write("gen_constants.py: %s\n" % msg)
    sys.exit(2)


def hexes(lst):
    return [int(x, 16) for x in lst]


def load(vectors_dir):
    data = {}
    for key in FIELDS:
        path = os.path.join(vectors_dir, "poseidon2_%s.json" % key)
        with open(path, "r", encoding="utf-8") as f:
            data[key] = json.load(f)
    return data


def find_instance(doc, iid):
    for inst in doc["instances"]:
        if inst["id"] == iid:
            return inst
    fail("instance %r not found" % iid)


def parse_instance(fkey, inst):
    _, p, _, degree, rp_table = FIELDS[fkey]
    pr = inst["params"]
    w = pr["width"]
    rc = inst["round_constants"]
    out = {
        "width": w,
        "rounds_p": pr["rounds_p"],
        "degree": int(pr["sbox"].split("^")[1]),
        "m4": pr["external_m4"],
        "diag": hexes(pr["internal_diag_V"]),
        "ext_init": [hexes(r) for r in rc["external_initial"]],
        "internal": hexes(rc["internal"]),
        "ext_term": [hexes(r) for r in rc["external_terminal"]],
    }
    iid = inst["id"]
    if pr.get("rounds_f") != 8:
        fail("%s: rounds_f %r != 8" % (iid, pr.get("rounds_f")))
    if out["degree"] != degree:
        fail("%s: S-box degree %d != %d" % (iid, out["degree"], degree))
    if rp_table.get(w) != out["rounds_p"]:
        fail("%s: R_P %d differs from poseidon2.h's table (%r)" % (iid, out["rounds_p"], rp_table.get(w)))
    if len(out["ext_init"]) != 4 or len(out["ext_term"]) != 4:
        fail("%s: expected 4 initial and 4 terminal rows" % iid)
    for row in out["ext_init"] + out["ext_term"] + [out["diag"]]:
        if len(row) != w:
            fail("%s: row of length %d, width %d" % (iid, len(row), w))
    if len(out["internal"]) != out["rounds_p"]:
        fail("%s: %d internal constants, R_P %d" % (iid, len(out["internal"]), out["rounds_p"]))
    for v in out["diag"] + out["internal"] + sum(out["ext_init"] + out["ext_term"], []):
        if not 0 <= v < p:
            fail("%s: non-canonical constant %#x" % (iid, v))
    kinds = [k for k, m in MAT4.items() if m == out["m4"]]
    if not kinds:
        fail("%s: unknown 4x4 matrix %r" % (iid, out["m4"]))
    out["mat4"] = kinds[0]
    return out


def permute(fkey, c, state):
    """Reference Poseidon2 (README structure), plain integers mod p."""
    p = FIELDS[fkey][1]
    w, d, m4, diag = c["width"], c["degree"], c["m4"], c["diag"]

    def ext_linear(s):
        y = []
        for b in range(0, w, 4):
            x = s[b:b + 4]
            y += [sum(m4[i][j] * x[j] for j in range(4)) % p for i in range(4)]
        return [(y[i] + sum(y[j] for j in range(i % 4, w, 4))) % p for i in range(w)]

    s = ext_linear(list(state))
    for rc in c["ext_init"]:
        s = ext_linear([pow((a + b) % p, d, p) for a, b in zip(s, rc)])
    for rc in c["internal"]:
        s[0] = pow((s[0] + rc) % p, d, p)
        tot = sum(s) % p
        s = [(diag[i] * s[i] + tot) % p for i in range(w)]
    for rc in c["ext_term"]:
        s = ext_linear([pow((a + b) % p, d, p) for a, b in zip(s, rc)])
    return s


def fmt_rows(vals, bits, indent, per_line):
    suffix = "ull" if bits == 64 else "u"
    digits = 16 if bits == 64 else 8
    items = ["0x%0*x%s" % (digits, v, suffix) for v in vals]
    lines = []
    for i in range(0, len(items), per_line):
        lines.append(indent + ", ".join(items[i:i + per_line]) + ",")
    return "\n".join(lines)


def emit(data):
    out = []
    out.append("// GENERATED FILE -- DO NOT EDIT.")
    out.append("// Produced by src/hash/gen_constants.py from tests/vectors/poseidon2_{goldilocks,")
    out.append("// babybear,koalabear}.json; rerun the script to regenerate it.")
    out.append("//")
    out.append("// Poseidon2 instance constants as plain data: every value is the canonical")
    out.append("// integer in [0, p) (never Montgomery). One struct per instance; poseidon2.h")
    out.append("// turns a struct into a Poseidon2Params object in __constant__ memory")
    out.append("// (poseidon2_params<Instance>()), which is what host and device code use. The")
    out.append("// arrays here are only read at compile time, or at run time on the host.")
    out.append("//")
    out.append("// Per instance: Field, WIDTH, ROUNDS_P, SBOX_DEGREE, MAT4 (the 4x4 block of")
    out.append("// the external layer), external_initial[4][WIDTH], internal[ROUNDS_P] (added")
    out.append("// to state[0] only), external_terminal[4][WIDTH], internal_diag[WIDTH] (V in")
    out.append("// M_I = 1 + diag(V)), SOURCE (instance id in the JSON files).")
    out.append("#pragma once")
    out.append("")
    out.append("#include <cstdint>")
    out.append("")
    out.append("#include \"math/field.h\"")
    out.append("")
    out.append("namespace gp {")
    out.append("")
    out.append("// Which 4x4 matrix the external layer applies to each 4-element block.")
    out.append("enum class Poseidon2Mat4 : int {")
    out.append("    Plonky3 = 0,      // MDSMat4 [[2,3,1,1],[1,2,3,1],[1,1,2,3],[3,1,1,2]]")
    out.append("    HorizenLabs = 1,  // HLMDSMat4 [[5,7,1,3],[4,6,1,1],[1,3,5,7],[1,1,4,6]]")
    out.append("};")
    out.append("")
    out.append("namespace poseidon2_constants {")
    for name, fkey, iid, what in INSTANCES:
        doc = data[fkey]
        inst = find_instance(doc, iid)
        c = parse_instance(fkey, inst)
        nvec = 0
        for v in inst.get("vectors", []):
            got = permute(fkey, c, hexes(v["input"]))
            if got != hexes(v["output"]):
                fail("%s: Python reference does not reproduce vector %r" % (iid, v["name"]))
            nvec += 1
        ftype, _, bits, _, _ = FIELDS[fkey]
        w = c["width"]
        per_line = 4 if bits == 64 else 6
        src = inst.get("source", {})
        out.append("")
        out.append("// %s" % what)
        loc = src.get("repo", "?") + "@" + src.get("commit", "?")[:12] + " " + src.get("path", "?").split(" ")[0]
        out.append("// source: %s" % loc)
        out.append("// JSON instance %r; %d upstream vector(s) re-checked by the generator." % (iid, nvec))
        out.append("struct %s {" % name)
        out.append("    using Field = %s;" % ftype)
        out.append("    using T = Field::T;")
        out.append("    static constexpr int WIDTH = %d;" % w)
        out.append("    static constexpr int ROUNDS_P = %d;" % c["rounds_p"])
        out.append("    static constexpr int SBOX_DEGREE = %d;" % c["degree"])
        out.append("    static constexpr Poseidon2Mat4 MAT4 = %s;" % MAT4_NAME[c["mat4"]])
        out.append("    static constexpr const char *SOURCE = \"%s\";" % iid)
        for key, label in (("ext_init", "external_initial"), ("ext_term", "external_terminal")):
            out.append("    static constexpr T %s[4][%d] = {" % (label, w))
            for row in c[key]:
                out.append("        {")
                out.append(fmt_rows(row, bits, "            ", per_line))
                out.append("        },")
            out.append("    };")
            if key == "ext_init":
                out.append("    static constexpr T internal[%d] = {" % c["rounds_p"])
                out.append(fmt_rows(c["internal"], bits, "        ", per_line))
                out.append("    };")
        out.append("    static constexpr T internal_diag[%d] = {" % w)
        out.append(fmt_rows(c["diag"], bits, "        ", per_line))
        out.append("    };")
        out.append("};")
    for fkey, a, b in SAME_CONSTANTS:
        ca = parse_instance(fkey, find_instance(data[fkey], a))
        cb = parse_instance(fkey, find_instance(data[fkey], b))
        if ca != cb:
            fail("%s and %s were expected to share constants" % (a, b))
    out.append("")
    out.append("}  // namespace poseidon2_constants")
    out.append("}  // namespace gp")
    out.append("")
    return "\n".join(out)


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--vectors", default=os.path.join(REPO, "tests", "vectors"))
    ap.add_argument("--out", default=os.path.join(HERE, "poseidon2_constants.h"))
    ap.add_argument("--check", action="store_true", help="compare with --out instead of writing")
    args = ap.parse_args()
    return genutil.write_header(args.out, emit(load(args.vectors)), args.check)

if __name__ == "__main__":
    sys.exit(main())
