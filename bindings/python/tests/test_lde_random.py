# SPDX-License-Identifier: MIT OR Apache-2.0
"""The randomized LDE (Context.lde_host(..., randomizers=...),
gp_lde_options.randomizers): f(X) + (X^n - s^n) r(X), checked against a
naive evaluation written from that definition on Goldilocks."""

import os
import random
import sys
import unittest

sys.path.insert(0, os.path.dirname(os.path.dirname(os.path.abspath(__file__))))

import gpuprover as gp  # noqa: E402

P = 0xFFFFFFFF00000001


def interpolate(vals, n, s):
    """Coefficients of the polynomial of degree < n with vals[i] at s w^i."""
    w = pow(7, (P - 1) // n, P)
    inv_n = pow(n, P - 2, P)
    coeffs = []
    for k in range(n):
        acc = 0
        for i, v in enumerate(vals):
            x = s * pow(w, i, P) % P
            acc = (acc + v * pow(pow(x, k, P), P - 2, P)) % P
        coeffs.append(acc * inv_n % P)
    return coeffs


def evaluate(coeffs, x):
    acc = 0
    for c in reversed(coeffs):
        acc = (acc * x + c) % P
    return acc


class TestRandomizedLde(unittest.TestCase):
    def test_matches_definition(self):
        ctx = gp.Context(backend=gp.Backend.CPU)
        self.addCleanup(ctx.close)
        rng = random.Random(9)
        n, blowup, cols, m, g = 8, 4, 2, 11, 7
        data = [rng.randrange(P) for _ in range(n * cols)]
        rand = [rng.randrange(P) for _ in range(cols * m)]
        with ctx.lde_host(gp.Field.GOLDILOCKS, data, n, cols, blowup=blowup, shift=g, randomizers=rand) as out:
            got = out.to_host(gp.Layout.COL_MAJOR)
        w = pow(7, (P - 1) // (n * blowup), P)
        for c in range(cols):
            coeffs = interpolate(data[c * n:(c + 1) * n], n, 1) + [0] * m
            r = rand[c * m:(c + 1) * m]
            for j, rj in enumerate(r):  # (X^n - 1) r(X)
                coeffs[j] = (coeffs[j] - rj) % P
                coeffs[n + j] = (coeffs[n + j] + rj) % P
            want = [evaluate(coeffs, g * pow(w, i, P) % P) for i in range(n * blowup)]
            self.assertEqual(list(got[c * n * blowup:(c + 1) * n * blowup]), want)

    def test_bad_randomizers(self):
        ctx = gp.Context(backend=gp.Backend.CPU)
        self.addCleanup(ctx.close)
        with self.assertRaises(gp.GpuproverError) as cm:
            ctx.lde_host(gp.Field.GOLDILOCKS, [1] * 16, 8, 2, randomizers=[1] * 3)
        self.assertEqual(cm.exception.status, gp.Status.SHAPE_MISMATCH)
        with self.assertRaises(gp.GpuproverError) as cm:  # more than n (blowup - 1) coefficients
            ctx.lde_host(gp.Field.GOLDILOCKS, [1] * 16, 8, 2, randomizers=[1] * 18)
        self.assertEqual(cm.exception.status, gp.Status.INVALID_ARGUMENT)

    def test_commit_host_randomizes_every_matrix(self):
        """commit_host's randomizers span both matrices' columns: the root is
        that of lde_host of each with its own part, then merkle_commit."""
        ctx = gp.Context(backend=gp.Backend.CPU)
        self.addCleanup(ctx.close)
        rng = random.Random(3)
        n, blowup, m = 16, 4, 3
        a = [rng.randrange(P) for _ in range(n * 2)]
        b = [rng.randrange(P) for _ in range(n)]
        rand = [rng.randrange(P) for _ in range(3 * m)]
        for keep in (gp.Keep.DEVICE, gp.Keep.NONE):
            lde, tree = ctx.commit_host(gp.Field.GOLDILOCKS, [(a, n, 2), (b, n, 1)], keep=keep, blowup=blowup,
                                        randomizers=rand)
            with tree:
                got = tree.root()
            for buf in lde:
                buf.close()
            with ctx.lde_host(gp.Field.GOLDILOCKS, a, n, 2, blowup=blowup, randomizers=rand[:2 * m]) as la, \
                    ctx.lde_host(gp.Field.GOLDILOCKS, b, n, 1, blowup=blowup, randomizers=rand[2 * m:]) as lb:
                with ctx.merkle_commit([la, lb]) as ref:
                    self.assertEqual(got, ref.root())
        with self.assertRaises(gp.GpuproverError) as cm:  # not a multiple of the 3 columns
            ctx.commit_host(gp.Field.GOLDILOCKS, [(a, n, 2), (b, n, 1)], randomizers=rand[:4])
        self.assertEqual(cm.exception.status, gp.Status.SHAPE_MISMATCH)
        with self.assertRaises(gp.GpuproverError) as cm:  # blowup x 9 > max(n, n blowup / 8)
            ctx.commit_host(gp.Field.GOLDILOCKS, [(a, n, 2), (b, n, 1)], blowup=blowup, randomizers=[1] * 27)
        self.assertEqual(cm.exception.status, gp.Status.UNSUPPORTED)


if __name__ == "__main__":
    unittest.main()
