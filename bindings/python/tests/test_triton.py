# SPDX-License-Identifier: MIT OR Apache-2.0
"""Triton VM conventions through the gpuprover Python binding (stdlib
unittest): Goldilocks' cubic extension X^3 = X - 1 (Extension.TRITON) in FRI
folds and OOD evaluation, FRI layers of one value per leaf
(FriLeaf.ELEMENT) under MerkleKind.TRITON_DIGEST, and the TRITON_DIGEST tree
itself. Folds and OOD values are checked against the cubic arithmetic of both
extensions, written here.
"""

import array
import ctypes
import os
import random
import sys
import unittest

sys.path.insert(0, os.path.dirname(os.path.dirname(os.path.abspath(__file__))))

import gpuprover as gp  # noqa: E402

GL = gp.Field.GOLDILOCKS
P = 0xFFFFFFFF00000001
TRITON_SHIFT = 7


def words(data):
    """A digest (bytes) as a list of Goldilocks elements."""
    a = array.array("Q")
    a.frombytes(data)
    if sys.byteorder != "little":
        a.byteswap()
    return a.tolist()


def c_mul(a, b, ext):
    """The product of two cubics: X^3 = X + 1 (Plonky3) or X^3 = X - 1
    (Triton)."""
    s = 1 if ext == gp.Extension.PLONKY3 else P - 1
    c = [0] * 5
    for i in range(3):
        for j in range(3):
            c[i + j] += a[i] * b[j]
    return ((c[0] + s * c[3]) % P, (c[1] + c[3] + s * c[4]) % P, (c[2] + c[4]) % P)


def c_add(a, b):
    return tuple((x + y) % P for x, y in zip(a, b))


def c_sub(a, b):
    return tuple((x - y) % P for x, y in zip(a, b))


def c_scale(a, k):
    return tuple(x * k % P for x in a)


def c_horner(coeffs, z, ext):
    acc = (0, 0, 0)
    for c in reversed(coeffs):
        acc = c_add(c_mul(acc, z, ext), (c, 0, 0))
    return acc


def naive_fold(layer, beta, shift, ext):
    """One halved arity-2 fold of a natural-order cubic codeword on
    shift * <w>: f'(x^2) = (f(x) + f(-x))/2 + beta (f(x) - f(-x))/(2x)."""
    n = len(layer)
    half = n // 2
    w = gp.two_adic_generator(GL, n.bit_length() - 1)
    inv2 = pow(2, P - 2, P)
    out = []
    for i in range(half):
        x = shift * pow(w, i, P) % P
        a, b = layer[i], layer[i + half]
        even = c_scale(c_add(a, b), inv2)
        odd = c_scale(c_sub(a, b), inv2 * pow(x, P - 2, P) % P)
        out.append(c_add(even, c_mul(beta, odd, ext)))
    return out


def triton_fri_options(final_size, extension=gp.Extension.TRITON):
    return gp.FriOptions(arity=2, final_size=final_size, order=gp.Order.NATURAL, shift=TRITON_SHIFT,
                         extension=extension, leaf=gp.FriLeaf.ELEMENT,
                         merkle=gp.MerkleOptions(kind=gp.MerkleKind.TRITON_DIGEST, perm=gp.Permutation.TIP5))


class TritonTest(unittest.TestCase):
    def setUp(self):
        self.ctx = gp.Context()
        self.addCleanup(self.ctx.close)
        self.rng = random.Random(self.id())

    def cubic(self):
        return tuple(self.rng.randrange(P) for _ in range(3))

    def test_enum_values_and_option_defaults(self):
        self.assertEqual((gp.Extension.PLONKY3, gp.Extension.TRITON), (0, 1))
        self.assertEqual((gp.FriLeaf.GROUP, gp.FriLeaf.ELEMENT), (0, 1))
        self.assertEqual(gp.MerkleKind.TRITON_DIGEST, 9)
        self.assertEqual(gp.CompositionSplit.TRITON, 2)
        self.assertEqual(gp.MerkleOptions(kind=gp.MerkleKind.TRITON_DIGEST).permutation_for(GL),
                         gp.Permutation.TIP5)
        self.assertEqual((gp.FriOptions().extension, gp.FriOptions().leaf), (gp.Extension.PLONKY3, gp.FriLeaf.GROUP))
        self.assertEqual(gp.OodOptions().extension, gp.Extension.PLONKY3)
        # The ctypes mirrors end where the C structs do, and the appended
        # fields default to 0.
        for cls, init in ((gp._FriOptions, gp._lib.gp_fri_options_init),
                          (gp._OodOptions, gp._lib.gp_ood_options_init)):
            o = cls()
            init(ctypes.byref(o))
            self.assertEqual(o.struct_size, ctypes.sizeof(cls), cls.__name__)
            self.assertEqual(o.extension, gp.Extension.PLONKY3, cls.__name__)
        o = gp._FriOptions()
        gp._lib.gp_fri_options_init(ctypes.byref(o))
        self.assertEqual(o.leaf, gp.FriLeaf.GROUP)
        c = triton_fri_options(4)._c(GL)
        self.assertEqual((c.extension, c.leaf, c.merkle.kind, c.merkle.perm),
                         (gp.Extension.TRITON, gp.FriLeaf.ELEMENT, gp.MerkleKind.TRITON_DIGEST, gp.Permutation.TIP5))
        self.assertEqual(gp.OodOptions(extension=gp.Extension.TRITON)._c().extension, gp.Extension.TRITON)

    def test_triton_fri_commit_open_verify(self):
        n, final_size = 64, 4
        opts = triton_fri_options(final_size)
        codeword = [self.cubic() for _ in range(n)]
        flat = array.array("Q", [c for v in codeword for c in v])
        betas = [self.cubic() for _ in range(4)]
        fri = self.ctx.fri_begin_host(GL, flat, 3, opts)
        self.addCleanup(fri.close)
        self.assertEqual((fri.layer_count, fri.cap_size), (4, 40))
        # Layer 0: leaf i is codeword value i as a digest.
        cw = self.ctx.buffer_from_host(GL, flat, n, 1, 3, layout=gp.Layout.ROW_MAJOR)
        self.addCleanup(cw.close)
        with self.ctx.merkle_commit(cw, opts.merkle) as tree:
            self.assertEqual(fri.cap(0), tree.root())
        layer, shift = codeword, TRITON_SHIFT
        for beta in betas:
            fri.fold(list(beta))
            layer = naive_fold(layer, beta, shift, gp.Extension.TRITON)
            shift = shift * shift % P
        self.assertEqual(fri.remainder().tolist(), [c for v in layer for c in v])
        # Per layer: two cubic values, then one path per member.
        self.assertEqual(fri.opening_size, sum(2 * 24 + 2 * (6 - k) * 40 for k in range(4)))
        indices = [0, n - 1, 21, 42]
        openings = fri.open(indices)
        for i, o in zip(indices, openings):
            self.assertEqual(len(o), fri.opening_size)
            fri.verify(i, o)
            gp.fri_verify(opts, GL, 3, n, fri.caps, fri.betas, fri.remainder(), i, o)
            for at in (0, 48 + 5, len(o) - 1):  # a value, a path, the last path
                bad = bytearray(o)
                bad[at] ^= 1
                with self.assertRaises(gp.VerifyError):
                    fri.verify(i, bytes(bad))
        # The same codeword and challenge under Plonky3's cubic: another
        # layer 1, so another cap.
        other = self.ctx.fri_begin_host(GL, flat, 3, triton_fri_options(final_size, gp.Extension.PLONKY3))
        self.addCleanup(other.close)
        self.assertEqual(other.cap(0), fri.cap(0))
        other.fold(list(betas[0]))
        self.assertNotEqual(other.cap(1), fri.cap(1))
        # The extension is Goldilocks' cubic only.
        with self.assertRaises(gp.GpuproverError) as cm:
            self.ctx.fri_begin_host(GL, flat[:2 * n], 2, opts)
        self.assertEqual(cm.exception.status, gp.Status.UNSUPPORTED)

    def test_triton_digest_tree(self):
        rows = 16
        values = [self.cubic() for _ in range(rows)]
        buf = self.ctx.buffer_from_host(GL, array.array("Q", [c for v in values for c in v]), rows, 1, 3,
                                        layout=gp.Layout.ROW_MAJOR)
        self.addCleanup(buf.close)
        opts = gp.MerkleOptions(kind=gp.MerkleKind.TRITON_DIGEST)
        with self.ctx.merkle_commit(buf, opts) as tree, \
                self.ctx.merkle_commit(buf, kind=gp.MerkleKind.TRITON) as hashed:
            self.assertEqual((tree.digest_size, hashed.digest_size), (40, 40))
            self.assertNotEqual(tree.root(), hashed.root())
            # Leaves are the rows themselves, zero-filled to five elements.
            leaves = self.ctx.merkle_hash_rows(buf, opts)
            self.assertEqual(len(leaves), rows * 40)
            for r in (0, 7, 15):
                self.assertEqual(words(leaves[r * 40:(r + 1) * 40]), list(values[r]) + [0, 0])
            for o in tree.open([0, 9, 15]):
                self.assertEqual(list(o.rows), list(values[o.index]))
                self.assertEqual(len(o.path), 4 * 40)
                tree.verify(o)
                path = bytearray(o.path)
                path[3] ^= 1
                with self.assertRaises(gp.VerifyError):
                    tree.verify(o._replace(path=bytes(path)))
        # Six elements do not fit a digest.
        wide = self.ctx.buffer_from_host(GL, [1] * 6 * 8, 8, 2, 3)
        self.addCleanup(wide.close)
        with self.assertRaises(gp.GpuproverError) as cm:
            self.ctx.merkle_commit(wide, opts)
        self.assertEqual(cm.exception.status, gp.Status.SHAPE_MISMATCH)

    def test_ood_triton_and_plonky3_cubics(self):
        n, blowup = 16, 4
        w = gp.two_adic_generator(GL, 4)
        coeffs = [[self.rng.randrange(P) for _ in range(n)] for _ in range(2)]
        trace = [c_horner(co, (pow(w, r, P), 0, 0), gp.Extension.PLONKY3)[0] for co in coeffs for r in range(n)]
        lde = self.ctx.lde_host(GL, trace, n, 2, blowup=blowup)
        self.addCleanup(lde.close)
        z = self.cubic()
        got = {}
        for ext in (gp.Extension.TRITON, gp.Extension.PLONKY3):
            values = self.ctx.evaluate_ood(lde, list(z), extension=ext)
            self.assertEqual(len(values), 2 * 3)
            for c in range(2):
                self.assertEqual(tuple(values[3 * c:3 * c + 3]), c_horner(coeffs[c], z, ext), (ext.name, c))
            got[ext] = values.tolist()
        self.assertNotEqual(got[gp.Extension.TRITON], got[gp.Extension.PLONKY3])
        # Base points (embedded) do not depend on the extension.
        base = [self.ctx.evaluate_ood(lde, [12345, 0, 0], extension=ext).tolist()
                for ext in (gp.Extension.TRITON, gp.Extension.PLONKY3)]
        self.assertEqual(base[0], base[1])
        # Triton's extension is cubic.
        with self.assertRaises(gp.GpuproverError) as cm:
            self.ctx.evaluate_ood(lde, [3, 4], challenge_degree=2, extension=gp.Extension.TRITON)
        self.assertEqual(cm.exception.status, gp.Status.UNSUPPORTED)

    def test_triton_quotient_segments(self):
        # h(x) = sum_i x^i h_i(x^D): segment i holds coefficients i, i + D,
        # ... of h, extended on Triton's FRI domain (shift 7, natural order).
        n, d, blowup = 8, 4, 2
        h = [self.rng.randrange(P) for _ in range(n * d)]
        w = gp.two_adic_generator(GL, (n * d).bit_length() - 1)
        ev = [c_horner(h, (TRITON_SHIFT * pow(w, r, P) % P, 0, 0), gp.Extension.PLONKY3)[0] for r in range(n * d)]
        buf = self.ctx.buffer_from_host(GL, ev, n * d, 1)
        self.addCleanup(buf.close)
        opts = gp.ConstraintOptions(split=gp.CompositionSplit.TRITON, segments=d, blowup=blowup, shift=TRITON_SHIFT,
                                    output_order=gp.Order.NATURAL, merkle=gp.MerkleOptions(kind=gp.MerkleKind.TRITON))
        seg, tree = self.ctx.constraint_commit(buf, opts)
        self.addCleanup(seg.close)
        self.addCleanup(tree.close)
        self.assertEqual((seg.rows, seg.cols, seg.ext_degree), (n * blowup, d, 1))
        wl = gp.two_adic_generator(GL, (n * blowup).bit_length() - 1)
        want = [c_horner(h[i::d], (TRITON_SHIFT * pow(wl, r, P) % P, 0, 0), gp.Extension.PLONKY3)[0]
                for i in range(d) for r in range(n * blowup)]
        self.assertEqual(seg.tolist(), want)
        with self.ctx.merkle_commit(seg, kind=gp.MerkleKind.TRITON) as other:
            self.assertEqual(tree.root(), other.root())
        seg2, tree2 = self.ctx.constraint_commit(buf, opts, split=gp.CompositionSplit.WINTERFELL)
        self.addCleanup(seg2.close)
        self.addCleanup(tree2.close)
        self.assertNotEqual(tree.root(), tree2.root())


if __name__ == "__main__":
    unittest.main()
