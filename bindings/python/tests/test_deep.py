# SPDX-License-Identifier: MIT OR Apache-2.0
"""Constraint commitment, out-of-domain evaluation and DEEP composition tests
of the gpuprover Python binding (stdlib unittest).

OOD values are checked against Horner evaluation of the polynomials the
columns were extended from, the DEEP codeword against its formula row by row
(in Goldilocks and in its quadratic extension X^2 = 7, written here), and
the constraint commitment against segment LDEs committed with merkle_commit.
"""

import os
import random
import sys
import unittest

sys.path.insert(0, os.path.dirname(os.path.dirname(os.path.abspath(__file__))))

import gpuprover as gp  # noqa: E402

GL = gp.Field.GOLDILOCKS
P = 0xFFFFFFFF00000001
G = 7  # the default coset shift
W = 7  # Goldilocks' quadratic extension: X^2 = 7

# The constraint commitment of r^3 + 5 r + 1 for r < 64 (4 segments, blowup
# 2, default Poseidon2 tree), as every binding computes it.
PINNED_ROOT = "2e8e272b93631eb3d388a76b05e279da181eaf49ba36f4d6604959471bf2e240"


def bitrev(i, log_n):
    return int(format(i, "0%db" % log_n)[::-1], 2) if log_n else 0


def horner(coeffs, x):
    acc = 0
    for c in reversed(coeffs):
        acc = (acc * x + c) % P
    return acc


# Quadratic extension elements as (c0, c1).
def e_add(a, b):
    return ((a[0] + b[0]) % P, (a[1] + b[1]) % P)


def e_sub(a, b):
    return ((a[0] - b[0]) % P, (a[1] - b[1]) % P)


def e_mul(a, b):
    return ((a[0] * b[0] + W * a[1] * b[1]) % P, (a[0] * b[1] + a[1] * b[0]) % P)


def e_inv(a):
    norm = pow((a[0] * a[0] - W * a[1] * a[1]) % P, P - 2, P)
    return (a[0] * norm % P, (P - a[1]) * norm % P)


def e_horner(coeffs, z):
    acc = (0, 0)
    for c in reversed(coeffs):
        acc = e_add(e_mul(acc, z), (c, 0))
    return acc


def pinned_evaluations():
    return [r ** 3 + 5 * r + 1 for r in range(64)]


class DeepTest(unittest.TestCase):
    def setUp(self):
        self.ctx = gp.Context(backend=gp.Backend.CPU, cpu_threads=2)
        self.addCleanup(self.ctx.close)

    def lde_columns(self, rng, n, cols, blowup, order):
        """cols polynomials of degree < n (coefficients) and their LDE."""
        wn = gp.two_adic_generator(GL, n.bit_length() - 1)
        coeffs = [[rng.randrange(P) for _ in range(n)] for _ in range(cols)]
        trace = [horner(c, pow(wn, r, P)) for c in coeffs for r in range(n)]
        lde = self.ctx.lde_host(GL, trace, n, cols, blowup=blowup, output_order=order)
        self.addCleanup(lde.close)
        return coeffs, lde

    def check_ood_and_deep(self, order, degree_bound, ext):
        rng = random.Random(1000 + degree_bound + ext)
        n, cols, blowup = 16, 3, 4
        m = n * blowup
        coeffs, lde = self.lde_columns(rng, n, cols, blowup, order)
        opts = gp.OodOptions(order=order, degree_bound=degree_bound, challenge_degree=ext)
        zs = [(123456789, 0), (0xDEADBEEF00001234, 0)] if ext == 1 else [(3, 5), (0xDEADBEEF, 0x12345)]
        points = [c for z in zs for c in z[:ext]]
        values = self.ctx.evaluate_ood(lde, points, opts)
        self.assertEqual(values.typecode, "Q")
        self.assertEqual(len(values), len(zs) * cols * ext)
        want = []
        for j, z in enumerate(zs):
            for c in range(cols):
                v = e_horner(coeffs[c], z)
                want.append(v)
                self.assertEqual(list(values[(j * cols + c) * ext:(j * cols + c + 1) * ext]), list(v[:ext]),
                                 "point %d column %d" % (j, c))

        alphas = [rng.randrange(P) for _ in range(len(values))]
        q = self.ctx.deep_composition([lde], points, values, alphas, options=opts)
        self.addCleanup(q.close)
        self.assertEqual((q.rows, q.cols, q.ext_degree), (m, 1, ext))
        got = q.tolist()  # row r as its ext coefficients, rows in order
        f = lde.tolist()
        log_m = m.bit_length() - 1
        wm = gp.two_adic_generator(GL, log_m)
        for r in range(m):
            idx = bitrev(r, log_m) if order == gp.Order.BIT_REVERSED else r
            x = (G * pow(wm, idx, P), 0)
            acc = (0, 0)
            for j, z in enumerate(zs):
                inv = e_inv(e_sub(x, z))
                for c in range(cols):
                    k = j * cols + c
                    alpha = (alphas[k * ext], alphas[k * ext + 1] if ext == 2 else 0)
                    acc = e_add(acc, e_mul(e_mul(alpha, e_sub((f[c * m + r], 0), want[k])), inv))
            self.assertEqual(tuple(got[r * ext:(r + 1) * ext]), acc[:ext], "DEEP row %d" % r)

    def test_ood_and_deep_base_natural_full_domain(self):
        self.check_ood_and_deep(gp.Order.NATURAL, 0, 1)

    def test_ood_and_deep_base_bit_reversed_trace_domain(self):
        self.check_ood_and_deep(gp.Order.BIT_REVERSED, 16, 1)

    def test_ood_and_deep_quadratic_extension(self):
        self.check_ood_and_deep(gp.Order.BIT_REVERSED, 16, 2)

    def test_ood_default_cubic_two_buffers(self):
        # Base points embedded in the default extension (E = 3) give
        # (f(z), 0, 0); two buffers are read in order, column after column.
        rng = random.Random(77)
        ca, a = self.lde_columns(rng, 8, 2, 2, gp.Order.NATURAL)
        cb, b = self.lde_columns(rng, 8, 1, 2, gp.Order.NATURAL)
        self.assertEqual(gp.OodOptions().challenge_degree_for(GL), 3)
        z = [5, 0, 0, 1000003, 0, 0]
        values = self.ctx.evaluate_ood([a, b], z)
        self.assertEqual(len(values), 2 * 3 * 3)
        for j, zj in enumerate((5, 1000003)):
            for c, co in enumerate(ca + cb):
                at = (j * 3 + c) * 3
                self.assertEqual(list(values[at:at + 3]), [horner(co, zj), 0, 0])
        # Alphas of the wrong length are refused before the library reads them.
        with self.assertRaises(gp.GpuproverError) as cm:
            self.ctx.deep_composition([a, b], z, values, [1] * (len(values) - 1))
        self.assertEqual(cm.exception.status, gp.Status.SHAPE_MISMATCH)

    def test_constraint_commit_matches_segment_ldes(self):
        n, d, blowup = 16, 4, 2
        q = pinned_evaluations()
        ev = self.ctx.buffer_from_host(GL, q, n * d, 1)
        self.addCleanup(ev.close)
        seg, tree = self.ctx.constraint_commit(ev, segments=d, blowup=blowup)
        self.addCleanup(seg.close)
        self.addCleanup(tree.close)
        self.assertIsInstance(tree, gp.MerkleTree)
        self.assertEqual((seg.rows, seg.cols, seg.ext_degree), (n * blowup, d, 1))
        # Plonky3's split: segment i is the LDE of rows i, i + D, ... which
        # lie on 7 w^i <w^D>, w of order N D.
        w = gp.two_adic_generator(GL, (n * d).bit_length() - 1)
        ldes, expected = [], []
        for i in range(d):
            chunk = [q[i + r * d] for r in range(n)]
            lde = self.ctx.lde_host(GL, chunk, n, 1, blowup=blowup, input_shift=G * pow(w, i, P) % P,
                                    output_order=gp.Order.BIT_REVERSED)
            self.addCleanup(lde.close)
            ldes.append(lde)
            expected += lde.tolist()
        self.assertEqual(seg.tolist(), expected)
        with self.ctx.merkle_commit(ldes) as other:
            self.assertEqual(tree.root(), other.root())
        self.assertEqual(tree.root().hex(), PINNED_ROOT)
        # The tree is an ordinary tree: openings verify, tampered ones do not.
        openings = tree.open([0, 5, 31])
        for o in openings:
            self.assertEqual(list(o.rows), [expected[i * n * blowup + o.index] for i in range(d)])
            self.assertIsNone(tree.verify(o))
        rows = list(openings[1].rows)
        rows[2] = (rows[2] + 1) % P
        with self.assertRaises(gp.VerifyError):
            tree.verify(openings[1]._replace(rows=rows))
        # Closing the segments makes openings fail instead of reading freed memory.
        seg.close()
        with self.assertRaises(ValueError):
            tree.open(0)

    def test_bad_input_raises_the_library_error(self):
        rng = random.Random(5)
        _, lde = self.lde_columns(rng, 8, 1, 2, gp.Order.NATURAL)
        opts = gp.OodOptions(challenge_degree=1)

        def lib_error(status, contains, call, *args, **kwargs):
            with self.assertRaises(gp.GpuproverError) as cm:
                call(*args, **kwargs)
            self.assertEqual(cm.exception.status, status)
            self.assertIn(contains, cm.exception.message)

        # A point of the evaluation coset 7 <w_16>.
        lib_error(gp.Status.INVALID_ARGUMENT, "coset", self.ctx.evaluate_ood, lde,
                  [G * gp.two_adic_generator(GL, 4) % P], opts)
        lib_error(gp.Status.NON_CANONICAL, "points", self.ctx.evaluate_ood, lde, [P], opts)
        lib_error(gp.Status.INVALID_ARGUMENT, "degree_bound", self.ctx.evaluate_ood, lde, [9], opts,
                  degree_bound=3)
        # DEEP output of the wrong shape (8 rows for 16).
        with self.ctx.buffer(GL, 8, 1) as small:
            lib_error(gp.Status.SHAPE_MISMATCH, "out", self.ctx.deep_composition, [lde], [9], [1], [1], small, opts)
        ev = self.ctx.buffer_from_host(GL, pinned_evaluations(), 64, 1)
        self.addCleanup(ev.close)
        lib_error(gp.Status.INVALID_ARGUMENT, "segments", self.ctx.constraint_commit, ev, segments=3)
        _, two = self.lde_columns(rng, 32, 2, 2, gp.Order.NATURAL)
        lib_error(gp.Status.SHAPE_MISMATCH, "column", self.ctx.constraint_commit, two)
        # The context still works after the failures.
        seg, tree = self.ctx.constraint_commit(ev)
        tree.close()
        seg.close()


if __name__ == "__main__":
    unittest.main()
