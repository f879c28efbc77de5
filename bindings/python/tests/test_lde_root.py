# SPDX-License-Identifier: MIT OR Apache-2.0
"""Transforms over another root of unity (root= of Context.lde_host, lde and
ntt; gp_lde_options.root): winterfell's Goldilocks root, checked against an
evaluation written from the definition with that root."""

import os
import random
import sys
import unittest

sys.path.insert(0, os.path.dirname(os.path.dirname(os.path.abspath(__file__))))

import gpuprover as gp  # noqa: E402

P = 0xFFFFFFFF00000001
# winterfell v0.13.1 math/src/field/f64/mod.rs: TWO_ADIC_ROOT_OF_UNITY.
WINTERFELL_ROOT = 7277203076849721926


def root_of(n):
    return pow(WINTERFELL_ROOT, (1 << 32) // n, P)


def interpolate(vals, n):
    """Coefficients of the polynomial of degree < n with vals[i] at w_n^i."""
    w_inv = pow(root_of(n), P - 2, P)
    inv_n = pow(n, P - 2, P)
    return [sum(v * pow(w_inv, i * k, P) for i, v in enumerate(vals)) * inv_n % P for k in range(n)]


def evaluate(coeffs, x):
    acc = 0
    for c in reversed(coeffs):
        acc = (acc * x + c) % P
    return acc


class TestLdeRoot(unittest.TestCase):
    def setUp(self):
        self.ctx = gp.Context(backend=gp.Backend.CPU)
        self.addCleanup(self.ctx.close)

    def test_lde_matches_definition(self):
        rng = random.Random(11)
        n, blowup, cols, g = 8, 4, 2, 7
        data = [rng.randrange(P) for _ in range(n * cols)]
        with self.ctx.lde_host(gp.Field.GOLDILOCKS, data, n, cols, blowup=blowup, shift=g,
                               root=WINTERFELL_ROOT) as out:
            got = out.to_host(gp.Layout.COL_MAJOR)
        w = root_of(n * blowup)
        for c in range(cols):
            coeffs = interpolate(data[c * n:(c + 1) * n], n)
            want = [evaluate(coeffs, g * pow(w, i, P) % P) for i in range(n * blowup)]
            self.assertEqual(list(got[c * n * blowup:(c + 1) * n * blowup]), want)

    def test_ntt_round_trip(self):
        rng = random.Random(12)
        n = 16
        coeffs = [rng.randrange(P) for _ in range(n)]
        with self.ctx.buffer_from_host(gp.Field.GOLDILOCKS, coeffs, n, 1) as buf:
            self.ctx.ntt(buf, root=WINTERFELL_ROOT)
            self.assertEqual(list(buf.to_host(gp.Layout.COL_MAJOR)),
                             [evaluate(coeffs, pow(root_of(n), i, P)) for i in range(n)])
            self.ctx.ntt(buf, direction=gp.Direction.INVERSE, root=WINTERFELL_ROOT)
            self.assertEqual(list(buf.to_host(gp.Layout.COL_MAJOR)), coeffs)

    def test_bad_root(self):
        with self.assertRaises(gp.GpuproverError) as e:
            self.ctx.lde_host(gp.Field.GOLDILOCKS, [1] * 8, 8, 1, root=5)
        self.assertEqual(e.exception.status, gp.Status.INVALID_ARGUMENT)
        self.assertIn("root", str(e.exception))


if __name__ == "__main__":
    unittest.main()
