# SPDX-License-Identifier: MIT OR Apache-2.0
"""Merkle and FRI tests of the gpuprover Python binding (stdlib unittest).

Roots and caps are checked against a naive recursive MerkleTreeMmcs
(Plonky3's PaddingFreeSponge and TruncatedPermutation) written here on top of
permute_batch; FRI folds against a naive arity-2 fold.
"""

import array
import ctypes
import dataclasses
import os
import random
import sys
import unittest

sys.path.insert(0, os.path.dirname(os.path.dirname(os.path.abspath(__file__))))

import gpuprover as gp  # noqa: E402

GL = gp.Field.GOLDILOCKS
BB = gp.Field.BABYBEAR
KB = gp.Field.KOALABEAR
P_GL = 0xFFFFFFFF00000001
TYPECODE = {GL: "Q", BB: "I", KB: "I"}

# What examples/*/lde_checksum.* print (the second line).
EXAMPLE_ROOT = "1b2845fdf79a57eb43cfdb86c67607b10c03817fe2d482098171bfd73b594adc"


def modulus(field):
    return gp.field_info(field).modulus


def bitrev(i, log_n):
    return int(format(i, "0%db" % log_n)[::-1], 2) if log_n else 0


def words(field, data):
    """A digest or cap (bytes) as a list of field elements."""
    a = array.array(TYPECODE[field])
    a.frombytes(data)
    if sys.byteorder != "little":
        a.byteswap()
    return a.tolist()


class RefPerm:
    """One permutation through permute_batch on a context of its own; batches
    of states are permuted together."""

    def __init__(self, perm):
        self.perm = perm
        self.width, self.field = gp.permutation_info(perm)
        self.ctx = gp.Context(backend=gp.Backend.CPU, cpu_threads=2)

    def close(self):
        self.ctx.close()

    def permute_all(self, states):
        flat = array.array(TYPECODE[self.field], [x for s in states for x in s])
        self.ctx.permute_batch(self.perm, flat)
        w = self.width
        return [flat[i * w:(i + 1) * w].tolist() for i in range(len(states))]

    def sponge_all(self, rate, digest, inputs):
        """PaddingFreeSponge of every input (all of one length)."""
        states = [[0] * self.width for _ in inputs]
        length = len(inputs[0]) if inputs else 0
        for pos in range(0, length, rate):
            for s, x in zip(states, inputs):
                chunk = x[pos:pos + rate]
                s[:len(chunk)] = chunk  # overwrite only the chunk
            states = self.permute_all(states)
        return [s[:digest] for s in states]

    def compress_all(self, pairs):
        """TruncatedPermutation of (left, right) pairs."""
        states = []
        for left, right in pairs:
            s = list(left) + list(right)
            states.append(s + [0] * (self.width - len(s)))
        return [s[:len(pairs[0][0])] for s in self.permute_all(states)]


class RefTree:
    """Naive MerkleTreeMmcs, built layer by layer: matrices (row-major lists
    of rows) of height h enter at the layer of h nodes."""

    def __init__(self, perm, mats, rate, digest):
        self.layers = []
        max_h = max(len(m) for m in mats)
        rows_of = lambda h: [sum((m[i] for m in mats if len(m) == h), []) for i in range(h)]  # noqa: E731
        layer = perm.sponge_all(rate, digest, rows_of(max_h))
        self.layers.append(layer)
        h = max_h
        while h > 1:
            h //= 2
            layer = perm.compress_all([(layer[2 * i], layer[2 * i + 1]) for i in range(h)])
            if any(len(m) == h for m in mats):
                injected = perm.sponge_all(rate, digest, rows_of(h))
                layer = perm.compress_all(list(zip(layer, injected)))
            self.layers.append(layer)

    def cap(self, cap_height):
        return [x for d in self.layers[len(self.layers) - 1 - cap_height] for x in d]


class Base(unittest.TestCase):
    def setUp(self):
        self.ctx = gp.Context()
        self.addCleanup(self.ctx.close)
        self.rng = random.Random(self.id())

    def values(self, field, n):
        p = modulus(field)
        return [self.rng.randrange(p) for _ in range(n)]

    def assert_verifies_until_tampered(self, tree, opening, byte):
        """The opening verifies; with one bit of its path flipped it does not."""
        tree.verify(opening)
        path = bytearray(opening.path)
        path[byte] ^= 4
        with self.assertRaises(gp.VerifyError):
            tree.verify(opening._replace(path=bytes(path)))

    def upload(self, field, rows, cols, ext=1, ctx=None):
        """A random row-major matrix: (list of rows, Buffer)."""
        w = cols * ext
        flat = self.values(field, rows * w)
        buf = (ctx or self.ctx).buffer_from_host(field, array.array(TYPECODE[field], flat), rows, cols, ext,
                                                 layout=gp.Layout.ROW_MAJOR)
        self.addCleanup(buf.close)
        return [flat[i * w:(i + 1) * w] for i in range(rows)], buf

    def assertStatus(self, cm, status, *fragments):
        e = cm.exception
        self.assertIsInstance(e, gp.GpuproverError)
        self.assertEqual(e.status, status, str(e))
        for f in fragments:  # the binding's message, or the C function's name after it
            self.assertIn(f, str(e))


class TestMerkle(Base):
    def test_struct_sizes(self):
        for cls, init in ((gp._MerkleOptions, gp._lib.gp_merkle_options_init),
                          (gp._FriOptions, gp._lib.gp_fri_options_init)):
            o = cls()
            init(ctypes.byref(o))
            self.assertEqual(o.struct_size, ctypes.sizeof(cls), cls.__name__)
        o = gp._FriOptions()
        gp._lib.gp_fri_options_init(ctypes.byref(o))
        self.assertEqual((o.arity, o.final_size, o.order, o.shift, o.fold), (2, 1, gp.Order.BIT_REVERSED, 1, 0))
        self.assertEqual(o.merkle.struct_size, ctypes.sizeof(gp._MerkleOptions))
        self.assertEqual(ctypes.sizeof(gp._MatrixDims), 16)

    def test_roots_and_caps_match_naive_mmcs(self):
        cases = [
            (GL, gp.Permutation.POSEIDON2_GOLDILOCKS_8, 4, 4, [(16, 3, 1)]),
            (GL, gp.Permutation.POSEIDON2_GOLDILOCKS_8, 4, 4, [(8, 2, 1), (16, 5, 1), (4, 1, 2), (16, 1, 3)]),
            (KB, gp.Permutation.POSEIDON2_KOALABEAR_16, 8, 8, [(32, 9, 1), (8, 3, 4)]),
            (BB, gp.Permutation.POSEIDON2_BABYBEAR_16, 8, 8, [(8, 8, 1)]),
        ]
        for field, perm, rate, digest, specs in cases:
            mats, bufs = zip(*[self.upload(field, r, c, e) for r, c, e in specs])
            ref_perm = RefPerm(perm)
            ref = RefTree(ref_perm, list(mats), rate, digest)
            ref_perm.close()
            least = min(r for r, _, _ in specs)
            for cap_height in range(least.bit_length()):
                with self.ctx.merkle_commit(bufs, cap_height=cap_height) as tree:
                    self.assertEqual(tree.options.perm, perm)
                    self.assertEqual(tree.digest_size, digest * gp._element_size(field))
                    self.assertEqual(tree.cap_size, tree.digest_size << cap_height)
                    self.assertEqual(words(field, tree.cap()), ref.cap(cap_height), (field, specs, cap_height))
                    self.assertEqual(words(field, tree.root()), ref.cap(0))

    def test_example_root_independently(self):
        # The cross-language example's root, recomputed with a naive tree: the
        # value every example prints.
        rows, cols, blowup = 1024, 8, 4
        trace = array.array("Q", bytes(8 * rows * cols))
        for c in range(cols):
            for r in range(rows):
                x = r * cols + c + 1
                trace[c * rows + r] = x ** 3 % P_GL
        with gp.Context(backend=gp.Backend.CPU) as ctx, \
                ctx.lde_host(GL, trace, rows, cols, blowup=blowup, output_order=gp.Order.BIT_REVERSED) as lde:
            flat = lde.to_host(gp.Layout.ROW_MAJOR).tolist()
            with ctx.merkle_commit([lde], kind=gp.MerkleKind.FIELD_SPONGE,
                                   perm=gp.Permutation.POSEIDON2_GOLDILOCKS_8) as tree:
                root = tree.root()
        self.assertEqual(root.hex(), EXAMPLE_ROOT)
        ref_perm = RefPerm(gp.Permutation.POSEIDON2_GOLDILOCKS_8)
        self.addCleanup(ref_perm.close)
        ref = RefTree(ref_perm, [[flat[i * cols:(i + 1) * cols] for i in range(rows * blowup)]], 4, 4)
        self.assertEqual(words(GL, root), ref.cap(0))

    def test_commit_lde_open_and_verify(self):
        ctx = self.ctx
        rows, cols, blowup = 32, 4, 4
        trace = array.array("Q", self.values(GL, rows * cols))
        lde = ctx.lde_host(GL, trace, rows, cols, blowup=blowup, output_order=gp.Order.BIT_REVERSED)
        self.addCleanup(lde.close)
        values = lde.tolist(gp.Layout.ROW_MAJOR)
        tree = ctx.merkle_commit(lde)
        self.addCleanup(tree.close)
        root = tree.root()
        self.assertEqual(len(root), 32)
        self.assertEqual(tree.cap(), root)
        self.assertEqual(tree.dims, [gp.MatrixDims(rows * blowup, cols, 1)])
        self.assertEqual(tree.opening_size(), (cols * 8, 7 * 32))
        openings = tree.open([0, 1, 77, rows * blowup - 1])
        for o in openings:
            self.assertEqual(o.rows.tolist(), values[o.index * cols:(o.index + 1) * cols])
            self.assertEqual(len(o.path), 7 * 32)
            self.assertIsNone(tree.verify(o))
            gp.merkle_verify(None, GL, [(rows * blowup, cols, 1)], root, o.index, o.rows, o.path)
        self.assertEqual(tree.open(5)[0].index, 5)

        o = openings[2]
        dims = tree.dims
        for i in (0, 31, 100, len(o.path) - 1):
            path = bytearray(o.path)
            path[i] ^= 1
            with self.assertRaises(gp.VerifyError) as cm:
                gp.merkle_verify(tree.options, GL, dims, root, o.index, o.rows, path)
            self.assertStatus(cm, gp.Status.VERIFY_FAILED, "gp_merkle_verify")
        bad_rows = list(o.rows)
        bad_rows[1] = (bad_rows[1] + 1) % P_GL
        with self.assertRaises(gp.VerifyError):
            gp.merkle_verify(None, GL, dims, root, o.index, bad_rows, o.path)
        with self.assertRaises(gp.VerifyError):
            gp.merkle_verify(None, GL, dims, root, o.index ^ 1, o.rows, o.path)
        bad_root = bytearray(root)
        bad_root[5] ^= 0x80
        with self.assertRaises(gp.VerifyError):
            gp.merkle_verify(None, GL, dims, bytes(bad_root), o.index, o.rows, o.path)
        gp.merkle_verify(None, GL, dims, root, o.index, o.rows, o.path)

    def test_mixed_heights_and_hash_rows(self):
        a, ba = self.upload(KB, 64, 3)
        b, bb = self.upload(KB, 16, 2, 4)
        with self.ctx.merkle_commit([ba, bb], gp.MerkleOptions(cap_height=2)) as tree:
            self.assertEqual(tree.cap_size, 4 * 32)
            self.assertEqual(tree.opening_size(), ((3 + 8) * 4, 4 * 32))
            for o in tree.open([0, 13, 63]):
                self.assertEqual(o.rows.tolist(), a[o.index] + b[o.index >> 2])
                tree.verify(o)
            o = tree.open(13)[0]
            rows = o.rows
            rows[5] = (rows[5] + 1) % modulus(KB)
            with self.assertRaises(gp.VerifyError):
                tree.verify(o)
        c, bc = self.upload(BB, 8, 5)
        d, bd = self.upload(BB, 8, 3, 4)
        digests = self.ctx.merkle_hash_rows([bc, bd])
        self.assertEqual(len(digests), 8 * 32)
        ref = RefPerm(gp.Permutation.POSEIDON2_BABYBEAR_16)
        self.addCleanup(ref.close)
        want = ref.sponge_all(8, 8, [c[i] + d[i] for i in range(8)])
        self.assertEqual([words(BB, digests[32 * i:32 * (i + 1)]) for i in range(8)], want)

    def test_other_profiles(self):
        cases = [
            (GL, gp.MerkleKind.MIDEN, None),
            (GL, gp.MerkleKind.MIDEN_V0_11, gp.Permutation.RPX256),
            (GL, gp.MerkleKind.MIDEN_V0_10, None),
            (GL, gp.MerkleKind.KECCAK_PLONKY3, None),
            (BB, gp.MerkleKind.KECCAK_PLONKY3, None),
            (GL, gp.MerkleKind.KECCAK_BE, None),
            (GL, gp.MerkleKind.FIELD_SPONGE, gp.Permutation.POSEIDON2_GOLDILOCKS_12),
        ]
        for field, kind, perm in cases:
            _, buf = self.upload(field, 16, 3)
            opts = gp.MerkleOptions(kind=kind, perm=perm, cap_height=1)
            with self.ctx.merkle_commit(buf, opts) as tree:
                self.assertEqual((tree.digest_size, tree.cap_size), (32, 64), kind)
                self.assertEqual(len(self.ctx.merkle_hash_rows(buf, opts)), 16 * 32)
                for o in tree.open([0, 9, 15]):
                    self.assertEqual(len(o.path), 3 * 32)
                    self.assert_verifies_until_tampered(tree, o, 7)

    def test_pair_leaves(self):
        # leaf_rows=2 (lambdaworks' composition and FRI layer trees): leaf i
        # hashes row 2i then row 2i + 1, the tree of the even rows committed
        # beside the odd rows.
        ctx = gp.Context(backend=gp.Backend.CPU, cpu_threads=2)
        self.addCleanup(ctx.close)
        rows, buf = self.upload(GL, 16, 3, ctx=ctx)
        even = ctx.buffer_from_host(GL, array.array("Q", [x for r in rows[0::2] for x in r]), 8, 3,
                                    layout=gp.Layout.ROW_MAJOR)
        odd = ctx.buffer_from_host(GL, array.array("Q", [x for r in rows[1::2] for x in r]), 8, 3,
                                   layout=gp.Layout.ROW_MAJOR)
        self.addCleanup(even.close)
        self.addCleanup(odd.close)
        opts = gp.MerkleOptions(kind=gp.MerkleKind.KECCAK_BE, leaf_rows=2)
        with ctx.merkle_commit(buf, opts) as tree, \
                ctx.merkle_commit([even, odd], kind=gp.MerkleKind.KECCAK_BE) as split:
            self.assertEqual(tree.root(), split.root())
            for o in tree.open([0, 3, 7]):
                self.assertEqual(list(o.rows), rows[2 * o.index] + rows[2 * o.index + 1])
                gp.merkle_verify(tree.options, GL, tree.dims, tree.root(), o.index, o.rows, o.path)
        self.assertEqual(ctx.merkle_hash_rows(buf, opts), ctx.merkle_hash_rows([even, odd], kind=gp.MerkleKind.KECCAK_BE))

    def test_keccak_u64(self):
        ctx = gp.Context(backend=gp.Backend.CPU, cpu_threads=2)
        self.addCleanup(ctx.close)
        rows, buf = self.upload(GL, 16, 3, ctx=ctx)
        opts = gp.MerkleOptions(kind=gp.MerkleKind.KECCAK_U64)
        self.assertEqual(opts.permutation_for(GL), gp.Permutation.KECCAK_F1600)
        with ctx.merkle_commit(buf, opts) as tree, \
                ctx.merkle_commit(buf, kind=gp.MerkleKind.KECCAK_PLONKY3) as plonky3:
            root = tree.root()
            self.assertEqual(len(root), 32)
            self.assertEqual(tree.digest_size, 32)
            self.assertNotEqual(root, plonky3.root())
            for o in tree.open([0, 5, 15]):
                self.assertEqual(list(o.rows), rows[o.index])
                self.assertEqual(len(o.path), 4 * 32)
                gp.merkle_verify(tree.options, GL, tree.dims, root, o.index, o.rows, o.path)
                self.assert_verifies_until_tampered(tree, o, 9)

    def test_miden_lmcs(self):
        self.assertEqual(gp.MerkleKind.MIDEN_LMCS, 10)
        opts = gp.MerkleOptions(kind=gp.MerkleKind.MIDEN_LMCS)
        self.assertEqual(opts.permutation_for(GL), gp.Permutation.POSEIDON2_GOLDILOCKS_12)
        self.assertEqual(opts._digest_bytes(GL), 32)
        # One row of [0, 1, ..., 7]: a single leaf, one full rate block, so
        # the root is miden-crypto's RPO256 hash_elements of [0..7] (current
        # layout), from tests/vectors/rpo256.json (sponge_variants[0], the
        # vector of 8 elements).
        one = self.ctx.buffer_from_host(GL, list(range(8)), 1, 8, layout=gp.Layout.ROW_MAJOR)
        self.addCleanup(one.close)
        with self.ctx.merkle_commit(one, kind=gp.MerkleKind.MIDEN_LMCS, perm=gp.Permutation.RPO256) as tree:
            self.assertEqual(tree.digest_size, 32)
            self.assertEqual(words(GL, tree.root()),
                             [0x4b3c182215fa152d, 0x872676ff4576e410, 0x61644a79a8db9653, 0x77d8ddd0a9218f81])
        # Heights 4 then 8, lifted: leaf i reads row i mod 4 of the first.
        short_rows, short = self.upload(GL, 4, 3)
        tall_rows, tall = self.upload(GL, 8, 8)
        with self.ctx.merkle_commit([short, tall], opts) as tree:
            self.assertEqual(tree.options.perm, gp.Permutation.POSEIDON2_GOLDILOCKS_12)
            root = tree.root()
            self.assertEqual(len(root), 32)
            for o in tree.open([0, 5, 7]):
                self.assertEqual(list(o.rows), short_rows[o.index % 4] + tall_rows[o.index])
                gp.merkle_verify(tree.options, GL, tree.dims, root, o.index, o.rows, o.path)
                self.assert_verifies_until_tampered(tree, o, 3)
        # Descending heights are refused.
        with self.assertRaises(gp.GpuproverError) as cm:
            self.ctx.merkle_commit([tall, short], opts)
        self.assertStatus(cm, gp.Status.SHAPE_MISMATCH, "gp_merkle_commit")

    def test_miden_lmcs_blake3(self):
        opts = gp.MerkleOptions(kind=gp.MerkleKind.MIDEN_LMCS, perm=gp.Permutation.BLAKE3)
        self.assertEqual(opts.permutation_for(GL), gp.Permutation.BLAKE3)
        self.assertEqual(opts._digest_bytes(GL), 32)
        # One row of no columns: one leaf, the root, BLAKE3 of the zero state
        # (32 zero bytes), as b3sum prints it.
        empty = self.ctx.buffer(GL, 1, 0)
        self.addCleanup(empty.close)
        with self.ctx.merkle_commit(empty, opts) as tree:
            self.assertEqual(tree.digest_size, 32)
            self.assertEqual(tree.options.perm, gp.Permutation.BLAKE3)
            self.assertEqual(tree.root().hex(), "2ada83c1819a5372dae1238fc1ded123c8104fdaa15862aaee69428a1820fcda")
        # One row [1, 2]: root = BLAKE3(32 zero bytes || le64(1) || le64(2)),
        # from: python3 -c "import sys; sys.stdout.buffer.write(bytes(32)+(1).to_bytes(8,'little')
        # +(2).to_bytes(8,'little'))" | b3sum --no-names
        one = self.ctx.buffer_from_host(GL, [1, 2], 1, 2, layout=gp.Layout.ROW_MAJOR)
        self.addCleanup(one.close)
        with self.ctx.merkle_commit(one, opts) as tree:
            self.assertEqual(tree.root().hex(), "f2a62d7e8659c80d48a5b5dc7cbc0d7189b9bf6fb754fcc85648a67953d3e6cb")
            self.assertEqual(self.ctx.merkle_hash_rows(one, opts), tree.root())
            for o in tree.open([0]):
                self.assertEqual(list(o.rows), [1, 2])
                self.assertEqual(o.path, b"")
                tree.verify(o)
        # Heights 4 then 8, lifted, open and verify.
        short_rows, short = self.upload(GL, 4, 3)
        tall_rows, tall = self.upload(GL, 8, 5)
        with self.ctx.merkle_commit([short, tall], opts) as tree:
            root = tree.root()
            self.assertEqual(len(root), 32)
            for o in tree.open([0, 5, 7]):
                self.assertEqual(list(o.rows), short_rows[o.index % 4] + tall_rows[o.index])
                self.assertEqual(len(o.path), 3 * 32)
                gp.merkle_verify(tree.options, GL, tree.dims, root, o.index, o.rows, o.path)
                self.assert_verifies_until_tampered(tree, o, 3)

    def test_winterfell(self):
        # winter-crypto 0.13.1's MerkleTree<H> over a 4 x 3 matrix
        # (tests/vectors/winterfell_merkle.json, trees[1]): root and the
        # path of leaf 0, as winterfell serializes them.
        rows = [0xb1856323f83bfa2a, 0x12cea4d20a33e495, 0x48ab1ee805ea53f6,
                0x4680ecc64ef6c3fc, 0x2886aa25d853e62a, 0x0000000000000001,
                0xb907eb1143a409a2, 0x0a693ab06da0c282, 0x303c827812b949b8,
                0x270d207f0aa4e3ad, 0x6a99aa266056e556, 0x10a7c2ad686b636f]
        known = {
            gp.Permutation.SHA3_256: ("9142e6b69d1aa46d019c53831c1108aa99a182fe51785cb8dfd9ff4591644751",
                                      "ad38d830c812b7a97fcddaa4092ec2cbb8ca8244f12ced25ec7774c58d6c2765"
                                      "7b4c9812d1f5730023d4c6af728c38395741f9ce28e4ba98fb1e06e9905b5e2e"),
            gp.Permutation.BLAKE3: ("7a8138a7600ea6f7248963589fd57912b8d166392f87cabd642580777eeb8be2",
                                    "1e66f2a046908d1f3f273bf3b9959719cb473a51d6a3b8fb049c5087a57f3091"
                                    "d006c1ef730b18c0016dc5e5b66842cc297077c0a8d859ae987696e10c121cc7"),
            gp.Permutation.BLAKE3_192: ("2486b886301a2d2b03e8c0d82a16615d5a4fb0352ffb4366",
                                        "1e66f2a046908d1f3f273bf3b9959719cb473a51d6a3b8fb"
                                        "e808364a67eb168dc05d686c92462013b426f9c8f1530635"),
            gp.Permutation.RP64_256: ("a1115cfe3437066635de3e0e071923d422e939e54dcc87188a70ab7764e6e3b3",
                                      "af2146761b9ff4f2844f53c542bc19d17365fd64cccce614f0ddc9892f1a2991"
                                      "b407a20c4db429a4eedc177571b2e52906e835b7a0a1a38295c4225118a3beeb"),
        }
        self.assertEqual(gp.MerkleKind.WINTERFELL, 11)
        self.assertEqual(gp.MerkleOptions(kind=gp.MerkleKind.WINTERFELL).permutation_for(GL), gp.Permutation.BLAKE3)
        buf = self.ctx.buffer_from_host(GL, rows, 4, 3, layout=gp.Layout.ROW_MAJOR)
        self.addCleanup(buf.close)
        for perm, (root, path) in known.items():
            opts = gp.MerkleOptions(kind=gp.MerkleKind.WINTERFELL, perm=perm)
            size = 24 if perm == gp.Permutation.BLAKE3_192 else 32
            self.assertEqual(opts._digest_bytes(GL), size)
            with self.ctx.merkle_commit(buf, opts) as tree:
                self.assertEqual(tree.digest_size, size)
                self.assertEqual(tree.root().hex(), root)
                leaves = self.ctx.merkle_hash_rows(buf, opts)
                self.assertEqual(len(leaves), 4 * size)
                for o in tree.open([0]):
                    self.assertEqual(list(o.rows), rows[:3])
                    self.assertEqual(o.path.hex(), path)
                    tree.verify(o)
                    self.assert_verifies_until_tampered(tree, o, 2)
        # One row: winterfell's trees have two leaves or more.
        one = self.ctx.buffer_from_host(GL, [1, 2], 1, 2, layout=gp.Layout.ROW_MAJOR)
        self.addCleanup(one.close)
        with self.assertRaises(gp.GpuproverError) as cm:
            self.ctx.merkle_commit(one, gp.MerkleOptions(kind=gp.MerkleKind.WINTERFELL))
        self.assertStatus(cm, gp.Status.SHAPE_MISMATCH, "gp_merkle_commit", "two leaves")

    def test_zero_columns(self):
        empty = self.ctx.buffer(GL, 8, 0)
        self.addCleanup(empty.close)
        self.assertEqual((empty.rows, empty.cols, empty.size), (8, 0, 0))
        self.assertEqual(list(empty.to_host()), [])
        self.assertEqual(empty.tolist(gp.Layout.ROW_MAJOR), [])
        with self.ctx.buffer_from_host(GL, [], 8, 0) as b:
            self.assertEqual((b.rows, b.cols), (8, 0))
            self.assertEqual(list(b.to_host(out=array.array("Q"))), [])
        with self.ctx.buffer_from_host(GL, None, 8, 0, layout=gp.Layout.ROW_MAJOR) as b:
            self.assertEqual((b.rows, b.cols), (8, 0))
        with self.assertRaises(gp.GpuproverError) as cm:
            self.ctx.buffer_from_host(GL, [1], 8, 0)
        self.assertStatus(cm, gp.Status.SHAPE_MISMATCH)
        # miden-crypto's EMPTY_SUBTREES at depth 3 (Poseidon2 trees): every
        # leaf the zero digest.
        with self.ctx.merkle_commit(empty, kind=gp.MerkleKind.MIDEN,
                                    perm=gp.Permutation.POSEIDON2_GOLDILOCKS_12) as tree:
            self.assertEqual(words(GL, tree.root()),
                             [0xfbc3edafb6c813b9, 0x35d8cfadb189f5af, 0x9cc65f5d198e28f1, 0x14a74616a8e04623])
            for o in tree.open([0, 6]):
                self.assertEqual(list(o.rows), [])
                tree.verify(o)
                gp.merkle_verify(tree.options, GL, [(8, 0, 1)], tree.root(), o.index, b"", o.path)
                gp.merkle_verify(tree.options, GL, [(8, 0, 1)], tree.root(), o.index, None, o.path)
                self.assert_verifies_until_tampered(tree, o, 1)
        # Keccak-256 of no bytes per row.
        digests = self.ctx.merkle_hash_rows(empty, kind=gp.MerkleKind.KECCAK_PLONKY3)
        self.assertEqual(digests, bytes.fromhex("c5d2460186f7233c927e7db2dcc703c0e500b653ca82273b7bfad8045d85a470") * 8)
        # Beside a matrix with columns, and under LMCS.
        rows, buf = self.upload(GL, 8, 2)
        with self.ctx.merkle_commit([empty, buf], kind=gp.MerkleKind.KECCAK_PLONKY3) as tree:
            for o in tree.open([3]):
                self.assertEqual(list(o.rows), rows[3])
                tree.verify(o)
        with self.ctx.merkle_commit(empty, kind=gp.MerkleKind.MIDEN_LMCS) as tree:
            for o in tree.open([1]):
                tree.verify(o)
        # What the library refuses with 0 columns: DLPack export, transforms.
        with self.assertRaises(gp.GpuproverError) as cm:
            empty.__dlpack__()
        self.assertStatus(cm, gp.Status.INVALID_ARGUMENT, "gp_buffer_to_dlpack")
        with self.assertRaises(gp.GpuproverError):
            self.ctx.lde(empty)

    def test_compress_perm(self):
        ctx = gp.Context(backend=gp.Backend.CPU, cpu_threads=2)
        self.addCleanup(ctx.close)
        _, buf = self.upload(BB, 16, 20, ctx=ctx)
        P = gp.Permutation
        same = gp.MerkleOptions(perm=P.POSEIDON2_BABYBEAR_24, rate=16, digest=8)
        self.assertIsNone(same.compress_perm)
        roots = []
        for opts in (same, dataclasses.replace(same, compress_perm=P.POSEIDON2_BABYBEAR_16)):
            with ctx.merkle_commit(buf, opts) as tree:
                self.assertEqual(tree.options.compress_perm, opts.compress_perm)
                for o in tree.open([0, 11]):
                    tree.verify(o)
                roots.append(tree.root())
        self.assertEqual(len(roots[1]), 32)
        self.assertNotEqual(roots[0], roots[1])
        # Sponge 16 with compression 24 is not an offered pair.
        with self.assertRaises(gp.GpuproverError) as cm:
            ctx.merkle_commit(buf, perm=P.POSEIDON2_BABYBEAR_16, compress_perm=P.POSEIDON2_BABYBEAR_24, rate=8,
                              digest=8)
        self.assertStatus(cm, gp.Status.UNSUPPORTED)
        self.assertNotIsInstance(cm.exception, gp.VerifyError)

    def test_errors(self):
        ctx = self.ctx
        other = gp.Context()
        self.addCleanup(other.close)
        _, gl = self.upload(GL, 8, 2)
        _, gl4 = self.upload(GL, 4, 2)
        _, bb = self.upload(BB, 8, 2)
        _, foreign = self.upload(GL, 8, 2, ctx=other)
        odd = ctx.buffer(GL, 6, 2)
        self.addCleanup(odd.close)
        cases = [
            (([],), {}, gp.Status.INVALID_ARGUMENT),
            (([gl, bb],), {}, gp.Status.FIELD_MISMATCH),
            (([foreign],), {}, gp.Status.CONTEXT_MISMATCH),
            (([odd],), {"kind": gp.MerkleKind.MIDEN}, gp.Status.INVALID_ARGUMENT),  # MMCS kinds take 6 rows
            (([gl],), {"cap_height": 4}, gp.Status.INVALID_ARGUMENT),
            (([gl],), {"perm": gp.Permutation.POSEIDON2_BABYBEAR_16}, gp.Status.FIELD_MISMATCH),
            (([gl],), {"perm": gp.Permutation.KECCAK_F1600}, gp.Status.INVALID_ARGUMENT),
            (([gl],), {"digest": 5}, gp.Status.INVALID_ARGUMENT),
            (([bb],), {"kind": gp.MerkleKind.KECCAK_BE}, gp.Status.UNSUPPORTED),
            (([gl, gl4],), {"kind": gp.MerkleKind.MIDEN}, gp.Status.SHAPE_MISMATCH),
        ]
        for args, kwargs, status in cases:
            with self.assertRaises(gp.GpuproverError) as cm:
                ctx.merkle_commit(*args, **kwargs)
            self.assertStatus(cm, status)
            self.assertNotIsInstance(cm.exception, gp.VerifyError)
        with self.assertRaises(gp.GpuproverError) as cm:
            ctx.merkle_hash_rows([gl, gl4])
        self.assertStatus(cm, gp.Status.SHAPE_MISMATCH)
        with self.assertRaises(TypeError):
            ctx.merkle_commit([gl], gp.FriOptions())
        with self.assertRaises(TypeError):
            ctx.merkle_commit([gl], cap_heigth=1)

        tree = ctx.merkle_commit([gl, gl4])
        self.addCleanup(tree.close)
        with self.assertRaises(gp.GpuproverError) as cm:
            tree.open(8)
        self.assertStatus(cm, gp.Status.INVALID_ARGUMENT, "indices[0] = 8")
        self.assertEqual(tree.open([]), [])
        with self.assertRaises(OverflowError):
            tree.open(-1)

        o = tree.open(3)[0]
        cap, dims, rows = tree.cap(), tree.dims, list(o.rows)
        bad = [
            ((cap, 3, rows[1:], o.path), gp.Status.SHAPE_MISMATCH),
            ((cap, 3, rows, o.path[1:]), gp.Status.SHAPE_MISMATCH),
            ((cap[:31], 3, rows, o.path), gp.Status.SHAPE_MISMATCH),
            ((cap, 8, rows, o.path), gp.Status.INVALID_ARGUMENT),
            ((cap, 3, [P_GL] + rows[1:], o.path), gp.Status.NON_CANONICAL),
        ]
        for (c, i, r, p), status in bad:
            with self.assertRaises(gp.GpuproverError) as cm:
                gp.merkle_verify(None, GL, dims, c, i, r, p)
            self.assertStatus(cm, status)
            self.assertNotIsInstance(cm.exception, gp.VerifyError)
        with self.assertRaises(gp.GpuproverError) as cm:
            gp.merkle_verify(None, GL, [], cap, 3, rows, o.path)
        self.assertStatus(cm, gp.Status.INVALID_ARGUMENT)
        with self.assertRaises(TypeError):
            gp.merkle_verify(None, BB, dims, cap, 3, array.array("Q", rows), o.path)
        tree.verify(o)  # still works

    def test_close_semantics(self):
        ctx = gp.Context()
        m = ctx.buffer_from_host(GL, [0] * 16, 8, 2)
        tree = ctx.merkle_commit(m)
        m.close()
        self.assertEqual(len(tree.root()), 32)  # the tree's own layers stay readable
        with self.assertRaises(ValueError):
            tree.open(0)  # the opening would read the closed matrix
        tree.close()
        tree.close()
        self.assertTrue(tree.closed)
        with self.assertRaises(ValueError):
            tree.root()
        m2 = ctx.buffer_from_host(GL, [0] * 16, 8, 2)
        tree2 = ctx.merkle_commit(m2)
        fri = ctx.fri_begin_host(GL, [1] * 8)
        ctx.close()  # closes the FRI, the tree and the buffer
        self.assertTrue(tree2.closed and fri.closed and m2.closed)
        with self.assertRaises(ValueError):
            tree2.cap()
        with self.assertRaises(ValueError):
            fri.fold([1])
        tree2.close()
        fri.close()
        with self.assertRaises(TypeError):
            gp.MerkleTree()
        with self.assertRaises(TypeError):
            gp.Fri()


def naive_fold(layer, beta, shift_k, bit_reversed, halve):
    """One arity-2 fold of a Goldilocks layer (base field)."""
    p = P_GL
    m = len(layer)
    log_m = m.bit_length() - 1
    w = gp.two_adic_generator(GL, log_m)
    half = m // 2
    out = []
    for g in range(half):
        if bit_reversed:
            a, b, e = layer[2 * g], layer[2 * g + 1], bitrev(g, log_m - 1)
        else:
            a, b, e = layer[g], layer[g + half], g
        x = shift_k * pow(w, e, p) % p
        v = (a + b + beta * (a - b) * pow(x, -1, p)) % p
        out.append(v * pow(2, -1, p) % p if halve else v)
    return out


def derive_beta(cap, layer, c, p):
    h = 0xCBF29CE484222325
    for byte in cap + layer.to_bytes(4, "little") + c.to_bytes(4, "little"):
        h = ((h ^ byte) * 0x100000001B3) & ((1 << 64) - 1)
    return h % p


class TestFri(Base):
    def test_stepwise_matches_naive_fold(self):
        n = 64
        for bit_reversed in (True, False):
            for shift, fold in ((1, gp.FriFold.HALVED), (7, gp.FriFold.UNHALVED)):
                codeword = self.values(GL, n)
                opts = gp.FriOptions(final_size=4, shift=shift, fold=fold,
                                     order=gp.Order.BIT_REVERSED if bit_reversed else gp.Order.NATURAL,
                                     merkle=gp.MerkleOptions(cap_height=1))
                with self.ctx.buffer_from_host(GL, codeword, n, 1) as buf:
                    fri = self.ctx.fri_begin(buf, opts)
                self.addCleanup(fri.close)
                self.assertEqual((fri.layer_count, fri.cap_size, len(fri.caps), fri.remainder_size), (4, 64, 64, 32))
                layer, shift_k = codeword, shift
                for k in range(4):
                    half = len(layer) // 2
                    mat = layer if bit_reversed else [v for g in range(half) for v in (layer[g], layer[g + half])]
                    with self.ctx.buffer_from_host(GL, mat, half, 2, layout=gp.Layout.ROW_MAJOR) as mb, \
                            self.ctx.merkle_commit(mb, opts.merkle) as tree:
                        self.assertEqual(fri.cap(k), tree.cap(), (bit_reversed, shift, k))
                    beta = self.rng.randrange(P_GL)
                    fri.fold([beta])
                    self.assertEqual(fri.folded, k + 1)
                    layer = naive_fold(layer, beta, shift_k, bit_reversed, fold == gp.FriFold.HALVED)
                    shift_k = shift_k * shift_k % P_GL
                self.assertEqual(len(fri.caps), 4 * 64)
                self.assertIsNone(fri.cap(4))
                self.assertEqual(fri.remainder().tolist(), layer)

    def test_constant_codewords(self):
        cases = [(BB, 4, 4, 256, 4, gp.FriFold.HALVED), (GL, 3, 8, 512, 1, gp.FriFold.HALVED),
                 (KB, 4, 2, 32, 2, gp.FriFold.UNHALVED)]
        for field, ext, arity, n, final_size, fold in cases:
            p = modulus(field)
            c = [(1000 + 17 * i) % p for i in range(ext)]
            with self.ctx.fri_begin_host(field, c * n, ext, arity=arity, final_size=final_size, fold=fold) as fri:
                while fri.folded < fri.layer_count:
                    fri.fold(self.values(field, ext))
                factor = 1 if fold == gp.FriFold.HALVED else pow(arity, fri.layer_count, p)
                self.assertEqual(fri.remainder().tolist(), [x * factor % p for x in c] * final_size)
                self.assertEqual(fri.remainder().typecode, TYPECODE[field])

    def test_commit_with_a_callable_equals_stepwise(self):
        cases = [
            (GL, 2, 2, gp.Order.BIT_REVERSED, 128, 1, 0, gp.MerkleKind.FIELD_SPONGE),
            (KB, 4, 4, gp.Order.NATURAL, 256, 4, 1, gp.MerkleKind.FIELD_SPONGE),
            (GL, 1, 8, gp.Order.BIT_REVERSED, 512, 8, 2, gp.MerkleKind.KECCAK_PLONKY3),
        ]
        for field, ext, arity, order, n, final_size, cap_height, kind in cases:
            p = modulus(field)
            opts = gp.FriOptions(arity=arity, final_size=final_size, order=order,
                                 merkle=gp.MerkleOptions(kind=kind, cap_height=cap_height))
            values = self.values(field, n * ext)
            buf = self.ctx.buffer_from_host(field, values, n, 1, ext, layout=gp.Layout.ROW_MAJOR)
            self.addCleanup(buf.close)
            calls = []

            def challenge(layer, cap):
                calls.append((layer, cap))
                return [derive_beta(cap, layer, c, p) for c in range(ext)]

            committed = self.ctx.fri_commit(buf, challenge, opts)
            self.addCleanup(committed.close)
            self.assertEqual(len(calls), committed.layer_count)
            self.assertEqual(committed.folded, committed.layer_count)
            stepped = self.ctx.fri_begin(buf, opts)
            self.addCleanup(stepped.close)
            for k in range(stepped.layer_count):
                cap = stepped.cap(k)
                self.assertEqual(calls[k], (k, cap))
                stepped.fold([derive_beta(cap, k, c, p) for c in range(ext)])
            self.assertEqual(committed.caps, stepped.caps)
            self.assertEqual(committed.betas, stepped.betas)
            remainder = committed.remainder()
            self.assertEqual(remainder, stepped.remainder())
            self.assertEqual(len(remainder), final_size * ext)
            indices = [0, n - 1, 37 % n, 5]
            o1 = committed.open(indices)
            self.assertEqual(o1, stepped.open(indices))
            for i, o in zip(indices, o1):
                self.assertEqual(len(o), committed.opening_size)
                committed.verify(i, o)
                gp.fri_verify(opts, field, ext, n, committed.caps, committed.betas, remainder, i, o)

    def test_flipped_openings_fail(self):
        n = 256
        opts = gp.FriOptions(arity=4, final_size=4, merkle=gp.MerkleOptions(cap_height=1))
        fri = self.ctx.fri_begin_host(GL, array.array("Q", self.values(GL, 2 * n)), 2, opts)
        self.addCleanup(fri.close)
        while fri.folded < fri.layer_count:
            fri.fold(self.values(GL, 2))
        rem, betas = fri.remainder().tolist(), fri.betas.tolist()
        index = 147
        o = fri.open(index)[0]

        def verify(caps=fri.caps, betas=betas, rem=rem, index=index, o=o):
            gp.fri_verify(opts, GL, 2, n, caps, betas, rem, index, o)

        verify()
        fri.verify(index, o)
        for b in (0, 14, 16, 64, len(o) // 2, len(o) - 1):
            bad = bytearray(o)
            bad[b] ^= 1
            with self.assertRaises(gp.VerifyError) as cm:
                verify(o=bytes(bad))
            self.assertStatus(cm, gp.Status.VERIFY_FAILED, "gp_fri_verify")
        caps = bytearray(fri.caps)
        caps[3] ^= 0x10  # the first cap digest: not read for index 147 (group 36 of 64)
        verify(caps=bytes(caps))
        caps[35] ^= 0x10
        with self.assertRaises(gp.VerifyError):
            verify(caps=bytes(caps))
        with self.assertRaises(gp.VerifyError):
            verify(betas=[betas[0], (betas[1] + 1) % P_GL] + betas[2:])
        with self.assertRaises(gp.VerifyError):
            verify(rem=[(x + 1) % P_GL for x in rem])
        verify(index=index ^ 1)  # 146 shares every group with 147
        with self.assertRaises(gp.VerifyError):
            verify(index=index ^ 4)
        for kwargs, status in (({"o": o[1:]}, gp.Status.SHAPE_MISMATCH),
                               ({"caps": fri.caps[1:]}, gp.Status.SHAPE_MISMATCH),
                               ({"betas": betas[1:]}, gp.Status.SHAPE_MISMATCH),
                               ({"index": n}, gp.Status.INVALID_ARGUMENT)):
            with self.assertRaises(gp.GpuproverError) as cm:
                verify(**kwargs)
            self.assertStatus(cm, status)
            self.assertNotIsInstance(cm.exception, gp.VerifyError)

    def test_callable_errors(self):
        n = 64
        buf = self.ctx.buffer_from_host(GL, self.values(GL, n), n, 1)
        self.addCleanup(buf.close)

        class Stop(Exception):
            pass

        for stop_at in (0, 3):
            calls = []

            def challenge(layer, cap):
                calls.append(layer)
                if layer == stop_at:
                    raise Stop("transcript closed")
                return [5]

            with self.assertRaises(Stop):
                self.ctx.fri_commit(buf, challenge)
            self.assertEqual(len(calls), stop_at + 1)
        # Wrong results: too many values, not ints, non-canonical.
        with self.assertRaises(gp.GpuproverError) as cm:
            self.ctx.fri_commit(buf, lambda layer, cap: [1, 2])
        self.assertStatus(cm, gp.Status.SHAPE_MISMATCH)
        with self.assertRaises(TypeError):
            self.ctx.fri_commit(buf, lambda layer, cap: ["x"])
        with self.assertRaises(OverflowError):
            self.ctx.fri_commit(buf, lambda layer, cap: [1 << 64])
        with self.assertRaises(gp.GpuproverError) as cm:
            self.ctx.fri_commit(buf, lambda layer, cap: [P_GL])
        self.assertStatus(cm, gp.Status.NON_CANONICAL)
        with self.assertRaises(TypeError):
            self.ctx.fri_commit(buf, None)
        # The callable must not use the busy context.
        with self.assertRaises(RuntimeError):
            self.ctx.fri_commit(buf, lambda layer, cap: buf.tolist()[:1])
        with self.assertRaises(RuntimeError):
            self.ctx.fri_commit(buf, lambda layer, cap: self.ctx.permute_batch(gp.Permutation.KECCAK_F1600, [0] * 25))
        spare = self.ctx.buffer(GL, 4, 1)
        with self.assertRaises(RuntimeError):
            self.ctx.fri_commit(buf, lambda layer, cap: spare.close())
        with self.assertRaises(RuntimeError):
            self.ctx.fri_commit(buf, lambda layer, cap: self.ctx.close())
        self.assertFalse(spare.closed or self.ctx.closed)
        spare.close()
        # Another context is fine, and so is this one afterwards.
        with gp.Context(backend=gp.Backend.CPU) as other:
            def hashed(layer, cap):
                state = array.array("Q", words(GL, cap[:32]) + [layer, 0, 0, 0])
                other.permute_batch(gp.Permutation.POSEIDON2_GOLDILOCKS_8, state)
                return state[:1]

            with self.ctx.fri_commit(buf, hashed) as fri:
                self.assertEqual(len(fri.remainder()), 1)
                fri.verify(7, fri.open(7)[0])

    def test_errors(self):
        n = 64
        codeword = self.values(GL, n)

        def begin(**kwargs):
            with self.assertRaises(gp.GpuproverError) as cm:
                self.ctx.fri_begin_host(GL, codeword, **kwargs)
            return cm

        self.assertStatus(begin(arity=3), gp.Status.INVALID_ARGUMENT, "arity")
        self.assertStatus(begin(final_size=64), gp.Status.INVALID_ARGUMENT, "final_size")
        self.assertStatus(begin(final_size=3), gp.Status.INVALID_ARGUMENT)
        self.assertStatus(begin(arity=8, final_size=2), gp.Status.INVALID_ARGUMENT)
        self.assertStatus(begin(shift=0), gp.Status.INVALID_ARGUMENT, "shift")
        self.assertStatus(begin(merkle=gp.MerkleOptions(cap_height=1)), gp.Status.INVALID_ARGUMENT, "cap_height")
        self.assertStatus(begin(merkle=gp.MerkleOptions(kind=gp.MerkleKind.MIDEN,
                                                        perm=gp.Permutation.POSEIDON2_GOLDILOCKS_8)),
                          gp.Status.INVALID_ARGUMENT)
        with self.assertRaises(gp.GpuproverError) as cm:
            self.ctx.fri_begin_host(GL, codeword[:48])
        self.assertStatus(cm, gp.Status.INVALID_ARGUMENT)
        with self.assertRaises(TypeError):
            self.ctx.fri_begin_host(BB, array.array("Q", codeword))
        with self.assertRaises(gp.GpuproverError) as cm:
            self.ctx.fri_begin_host(GL, codeword[:63], 2)
        self.assertStatus(cm, gp.Status.SHAPE_MISMATCH)
        with self.ctx.buffer(GL, 32, 2) as two:
            with self.assertRaises(gp.GpuproverError) as cm:
                self.ctx.fri_begin(two)
            self.assertStatus(cm, gp.Status.SHAPE_MISMATCH)

        fri = self.ctx.fri_begin_host(GL, codeword)
        self.addCleanup(fri.close)
        for call in (fri.remainder, lambda: fri.open(0)):
            with self.assertRaises(gp.GpuproverError) as cm:
                call()
            self.assertStatus(cm, gp.Status.INVALID_ARGUMENT)
        with self.assertRaises(gp.GpuproverError) as cm:
            fri.fold([1, 2])
        self.assertStatus(cm, gp.Status.SHAPE_MISMATCH)
        with self.assertRaises(TypeError):
            fri.fold(array.array("I", [1]))
        with self.assertRaises(gp.GpuproverError) as cm:
            fri.fold([P_GL])
        self.assertStatus(cm, gp.Status.NON_CANONICAL)
        while fri.folded < fri.layer_count:
            fri.fold([9])
        with self.assertRaises(gp.GpuproverError) as cm:
            fri.fold([9])
        self.assertStatus(cm, gp.Status.INVALID_ARGUMENT, "folded")
        with self.assertRaises(gp.GpuproverError) as cm:
            fri.open(n)
        self.assertStatus(cm, gp.Status.INVALID_ARGUMENT)
        fri.verify(n - 1, fri.open(n - 1)[0])
        self.assertEqual(fri.open([]), [])
        fri.close()
        with self.assertRaises(ValueError):
            fri.remainder()


if __name__ == "__main__":
    unittest.main()
