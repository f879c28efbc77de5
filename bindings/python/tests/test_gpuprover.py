# SPDX-License-Identifier: MIT OR Apache-2.0
"""Tests of the gpuprover Python binding (stdlib unittest).

Run from bindings/python with the library findable (GPUPROVER_DIR=PREFIX,
GPUPROVER_LIB=/path/libgpuprover.so, or the standard search):

    python3 -m unittest discover -v
"""

import array
import ctypes
import os
import random
import sys
import threading
import unittest

sys.path.insert(0, os.path.dirname(os.path.dirname(os.path.abspath(__file__))))

import gpuprover as gp  # noqa: E402

try:
    import numpy
except ImportError:  # numpy is optional
    numpy = None

FIELDS = [gp.Field.GOLDILOCKS, gp.Field.BABYBEAR, gp.Field.KOALABEAR]
TYPECODE = {gp.Field.GOLDILOCKS: "Q", gp.Field.BABYBEAR: "I", gp.Field.KOALABEAR: "I"}

# Keccak-f[1600] of the all-zero state (the Keccak team's known answer).
KECCAK_ZERO = [
    0xF1258F7940E1DDE7, 0x84D5CCF933C0478A, 0xD598261EA65AA9EE, 0xBD1547306F80494D,
    0x8B284E056253D057, 0xFF97A42D7F8E6FD4, 0x90FEE5A0A44647C4, 0x8C5BDA0CD6192E76,
    0xAD30A6F71B19059C, 0x30935AB7D08FFC64, 0xEB5AA93F2317D635, 0xA9A6E6260D712103,
    0x81A57C16DBCF555F, 0x43B831CD0347C826, 0x01F22F1A11A5569F, 0x05E5635A21D9AE61,
    0x64BEFEF28CC970F2, 0x613670957BC46611, 0xB87C5A554FD00ECB, 0x8C3EE88A1CCF32C8,
    0x940C7922AE3A2614, 0x1841F924A2C509E4, 0x16F53526E70465C2, 0x75F644E97F30A13B,
    0xEAF1FF7B5CECA249,
]


# ---------------------------------------------------------------------------
# Naive arithmetic (Python ints are exact)


def evaluate(coeffs, x, p):
    r = 0
    for c in reversed(coeffs):
        r = (r * x + c) % p
    return r


def interpolate(values, s, w, p):
    """Coefficients of the polynomial of degree < n with f(s*w^i) = values[i],
    in O(n^2): c_k = s^-k n^-1 sum_i v_i w^-ik."""
    n = len(values)
    winv, sinv, ninv = pow(w, -1, p), pow(s, -1, p), pow(n, -1, p)
    return [evaluate(values, pow(winv, k, p), p) * ninv * pow(sinv, k, p) % p for k in range(n)]


def bitrev(i, log_n):
    return int(format(i, "0%db" % log_n)[::-1], 2) if log_n else 0


def log2(n):
    return n.bit_length() - 1


def index(layout, rows, cols, r, c, ext, k):
    if layout == gp.Layout.ROW_MAJOR:
        return (r * cols + c) * ext + k
    return (c * rows + r) * ext + k


class Base(unittest.TestCase):
    def setUp(self):
        self.ctx = gp.Context()
        self.addCleanup(self.ctx.close)
        self.rng = random.Random(self.id())

    def root(self, field, n):
        """The library's primitive n-th root of unity, checked to have order n."""
        p = gp.field_info(field).modulus
        w = gp.two_adic_generator(field, log2(n))
        self.assertEqual(pow(w, n, p), 1)
        if n > 1:
            self.assertEqual(pow(w, n // 2, p), p - 1)
        return w

    def assertStatus(self, cm, status, *fragments):
        e = cm.exception
        self.assertIsInstance(e, gp.GpuproverError)
        self.assertEqual(e.status, status, str(e))
        for f in fragments:  # the binding's message, or the C function's name after it
            self.assertIn(f, str(e))
        self.assertIn(gp._status_name(status), str(e))


class TestContext(Base):
    def test_version_and_backend(self):
        self.assertTrue(gp.version())
        self.assertGreater(gp.version_number(), 0)
        self.assertIn(self.ctx.backend, (gp.Backend.CPU, gp.Backend.CUDA))
        self.assertTrue(self.ctx.device_name)
        with gp.Context(backend=gp.Backend.CPU, cpu_threads=2) as cpu:
            self.assertEqual(cpu.backend, gp.Backend.CPU)
        if self.ctx.backend == gp.Backend.CPU:
            # No usable GPU: asking for CUDA says why.
            with self.assertRaises(gp.GpuproverError) as cm:
                gp.Context(backend=gp.Backend.CUDA, devices=[0])
            self.assertStatus(cm, gp.Status.NO_DEVICE)
            self.assertTrue(cm.exception.message)

    def test_struct_sizes(self):
        # The init functions store sizeof(C struct): the ctypes layouts match.
        for cls, init in ((gp._LdeOptions, gp._lib.gp_lde_options_init),
                          (gp._NttOptions, gp._lib.gp_ntt_options_init),
                          (gp._ContextOptions, gp._lib.gp_context_options_init)):
            o = cls()
            init(ctypes.byref(o))
            self.assertEqual(o.struct_size, ctypes.sizeof(cls), cls.__name__)

    def test_field_info(self):
        want = {
            gp.Field.GOLDILOCKS: (0xFFFFFFFF00000001, 7, 32),
            gp.Field.BABYBEAR: (0x78000001, 31, 27),
            gp.Field.KOALABEAR: (0x7F000001, 3, 24),
        }
        for f, w in want.items():
            self.assertEqual(tuple(gp.field_info(f)), w)
            for log_n in range(w[2] + 1):
                self.root(f, 1 << log_n)
            with self.assertRaises(gp.GpuproverError):
                gp.two_adic_generator(f, w[2] + 1)
        # Plonky3's Goldilocks two-adic generator.
        self.assertEqual(gp.two_adic_generator(gp.Field.GOLDILOCKS, 32), 1753635133440165772)

    def test_memory_stats_and_reuse(self):
        ctx = self.ctx
        data = array.array("Q", range(16 * 4))
        with ctx.buffer(gp.Field.GOLDILOCKS, 64, 4) as out:
            for _ in range(3):
                ctx.lde_host(gp.Field.GOLDILOCKS, data, 16, 4, out, blowup=4)
            s1 = ctx.memory_stats()
            ctx.lde_host(gp.Field.GOLDILOCKS, data, 16, 4, out, blowup=4)
            s2 = ctx.memory_stats()
            self.assertEqual(s1.allocations, s2.allocations)
            self.assertGreaterEqual(s2.buffer_bytes, out.size_bytes)
            self.assertEqual(out.size_bytes, 64 * 4 * 8)
        ctx.trim()

    def test_close(self):
        ctx = gp.Context()
        out = ctx.buffer(gp.Field.GOLDILOCKS, 8, 1)
        keep = ctx.buffer(gp.Field.BABYBEAR, 4, 2, ext_degree=4)
        self.assertEqual((keep.rows, keep.cols, keep.field, keep.ext_degree, keep.size), (4, 2, gp.Field.BABYBEAR, 4, 32))
        out.close()
        out.close()
        self.assertTrue(out.closed)
        with self.assertRaises(ValueError):
            out.to_host()
        with self.assertRaises(ValueError):
            ctx.lde_host(gp.Field.GOLDILOCKS, [1, 2, 3, 4], 4, 1, out)
        ctx.close()  # releases `keep` too
        ctx.close()
        self.assertTrue(keep.closed)
        with self.assertRaises(ValueError):
            keep.to_host()
        keep.close()
        with self.assertRaises(ValueError):
            ctx.buffer(gp.Field.GOLDILOCKS, 4, 1)
        with self.assertRaises(TypeError):
            gp.Buffer()


class TestLDE(Base):
    def check_lde(self, field, ext, n, cols, blowup, **opts):
        p, gen = gp.field_info(field)[:2]
        N = n * blowup
        wn, wN = self.root(field, n), self.root(field, N)
        self.assertEqual(pow(wN, blowup, p), wn)
        s = opts.get("input_shift") or 1
        g = opts.get("shift") or gen
        layout = opts.get("input_layout", gp.Layout.COL_MAJOR)
        bitrev_out = opts.get("output_order") == gp.Order.BIT_REVERSED
        data = [0] * (n * cols * ext)
        want = [0] * (N * cols * ext)  # column-major
        for c in range(cols):
            for k in range(ext):
                coeffs = [self.rng.randrange(p) for _ in range(n)]
                for i in range(n):
                    data[index(layout, n, cols, i, c, ext, k)] = evaluate(coeffs, s * pow(wn, i, p) % p, p)
                for j in range(N):
                    e = bitrev(j, log2(N)) if bitrev_out else j
                    want[index(gp.Layout.COL_MAJOR, N, cols, j, c, ext, k)] = evaluate(coeffs, g * pow(wN, e, p) % p, p)
        host = array.array(TYPECODE[field], data)

        # From host memory, into a buffer the call creates.
        with self.ctx.lde_host(field, host, n, cols, ext_degree=ext, blowup=blowup, **opts) as out:
            self.assertEqual((out.rows, out.cols, out.ext_degree), (N, cols, ext))
            self.assertEqual(out.to_host().tolist(), want)
        # From a device buffer into a given output, downloaded row-major; input as a list.
        with self.ctx.buffer_from_host(field, data, n, cols, ext_degree=ext, layout=layout) as inp, \
                self.ctx.buffer(field, N, cols, ext) as out:
            lde_opts = {k: v for k, v in opts.items() if k != "input_layout"}
            self.assertIs(self.ctx.lde(inp, out, blowup=blowup, **lde_opts), out)
            got = out.to_host(gp.Layout.ROW_MAJOR)
            for j in range(N):
                for c in range(cols):
                    for k in range(ext):
                        self.assertEqual(got[index(gp.Layout.ROW_MAJOR, N, cols, j, c, ext, k)],
                                         want[index(gp.Layout.COL_MAJOR, N, cols, j, c, ext, k)])

    def test_naive_base_fields(self):
        for f in FIELDS:
            gen = gp.field_info(f).generator
            for blowup in (1, 2, 4, 8):
                with self.subTest(field=f.name, blowup=blowup):
                    self.check_lde(f, 1, 16, 3, blowup)
                    self.check_lde(f, 1, 32, 2, blowup, output_order=gp.Order.BIT_REVERSED)
                    self.check_lde(f, 1, 8, 2, blowup, input_layout=gp.Layout.ROW_MAJOR, shift=5, input_shift=gen)
            with self.subTest(field=f.name, shape="edge"):
                self.check_lde(f, 1, 1, 1, 4)
                self.check_lde(f, 1, 64, 1, 32, output_order=gp.Order.BIT_REVERSED)

    def test_naive_extensions(self):
        self.check_lde(gp.Field.GOLDILOCKS, 2, 16, 3, 4, output_order=gp.Order.BIT_REVERSED)
        self.check_lde(gp.Field.GOLDILOCKS, 3, 8, 2, 2, input_layout=gp.Layout.ROW_MAJOR)
        self.check_lde(gp.Field.BABYBEAR, 4, 16, 2, 4, input_layout=gp.Layout.ROW_MAJOR,
                       output_order=gp.Order.BIT_REVERSED)
        self.check_lde(gp.Field.KOALABEAR, 4, 8, 3, 2)

    def test_virtual_padding(self):
        for f in FIELDS:
            p, gen = gp.field_info(f)[:2]
            n, rows, blowup = 16, 5, 2
            v = [self.rng.randrange(p) for _ in range(rows)]
            coeffs = interpolate(v + [0] * (n - rows), 1, self.root(f, n), p)
            wN = self.root(f, n * blowup)
            with self.ctx.lde_host(f, v, rows, 1, n=n, blowup=blowup) as out:
                self.assertEqual(out.rows, n * blowup)
                want = [evaluate(coeffs, gen * pow(wN, j, p) % p, p) for j in range(n * blowup)]
                self.assertEqual(out.tolist(), want)

    def test_input_types(self):
        # Every way of passing the same data gives the same LDE.
        vals = [self.rng.randrange(2 ** 31 - 2 ** 27 + 1) for _ in range(8 * 2)]
        f = gp.Field.BABYBEAR
        ref = self.ctx.lde_host(f, vals, 8, 2).tolist()
        arr = array.array("I", vals)
        inputs = [tuple(vals), iter(vals), arr, memoryview(arr), bytes(arr), bytearray(arr),
                  memoryview(bytes(arr)).cast("I")]
        if numpy is not None:
            inputs += [numpy.array(vals, dtype=numpy.uint32), numpy.array(vals, dtype="<u4")]
        for data in inputs:
            with self.subTest(type=type(data).__name__):
                with self.ctx.lde_host(f, data, 8, 2) as out:
                    self.assertEqual(out.tolist(), ref)
        # to_host into a caller's buffer.
        with self.ctx.lde_host(f, vals, 8, 2) as out:
            dst = array.array("I", bytes(4 * out.size + 8))
            self.assertIs(out.to_host(out=dst), dst)
            self.assertEqual(dst.tolist()[:out.size], ref)
            raw = bytearray(4 * out.size)
            out.to_host(out=raw)
            self.assertEqual(array.array("I", bytes(raw)).tolist(), ref)
            if numpy is not None:
                nd = numpy.zeros(out.size, dtype=numpy.uint32)
                out.to_host(out=nd)
                self.assertEqual(nd.tolist(), ref)


class TestNTT(Base):
    def test_naive(self):
        for f in FIELDS:
            p = gp.field_info(f).modulus
            n, cols = 32, 2
            w = self.root(f, n)
            for shift in (0, 11):
                for in_order, out_order in ((0, 0), (1, 0), (0, 1)):
                    coeffs = [self.rng.randrange(p) for _ in range(n * cols)]
                    data = [coeffs[c * n + (bitrev(i, log2(n)) if in_order else i)]
                            for c in range(cols) for i in range(n)]
                    with self.ctx.buffer_from_host(f, data, n, cols) as buf:
                        self.ctx.ntt(buf, shift=shift, input_order=in_order, output_order=out_order)
                        got = buf.tolist()
                    s = shift or 1
                    for c in range(cols):
                        for i in range(n):
                            e = bitrev(i, log2(n)) if out_order else i
                            want = evaluate(coeffs[c * n:(c + 1) * n], s * pow(w, e, p) % p, p)
                            self.assertEqual(got[c * n + i], want, (f, shift, in_order, out_order, c, i))

    def test_round_trip(self):
        for f in FIELDS:
            p = gp.field_info(f).modulus
            for log_n in range(0, 13, 3):
                n, cols = 1 << log_n, 3
                for shift in (0, 7, 123456):
                    for order in gp.Order:
                        data = array.array(TYPECODE[f], (self.rng.randrange(p) for _ in range(n * cols)))
                        with self.ctx.buffer_from_host(f, data, n, cols) as buf:
                            self.ctx.ntt(buf, direction=gp.Direction.FORWARD, shift=shift, output_order=order)
                            self.ctx.ntt(buf, direction=gp.Direction.INVERSE, shift=shift, input_order=order)
                            self.assertEqual(buf.to_host(), data, (f, n, shift, order))


class TestPermutations(Base):
    def test_keccak_zero_state(self):
        self.assertEqual(gp.permutation_info(gp.Permutation.KECCAK_F1600), (25, None))
        states = array.array("Q", bytes(8 * 25 * 3))  # three zero states
        self.assertIs(self.ctx.permute_batch(gp.Permutation.KECCAK_F1600, states), states)
        self.assertEqual(states[0], 0xF1258F7940E1DDE7)
        self.assertEqual(states.tolist(), KECCAK_ZERO * 3)
        lst = [0] * 25  # a list is updated in place
        self.ctx.permute_batch(gp.Permutation.KECCAK_F1600, lst)
        self.assertEqual(lst, KECCAK_ZERO)

    def test_blake3_is_a_hash(self):
        self.assertEqual(gp.Permutation.BLAKE3, 19)
        self.assertEqual(gp.permutation_info(gp.Permutation.BLAKE3), (16, None))
        self.assertEqual(gp.permutation_info(19), (16, None))
        # Refused whatever the states, as gp_permute_batch does.
        for states in (array.array("Q", bytes(8 * 16)), [0] * 16, [0] * 5, []):
            with self.assertRaises(gp.GpuproverError) as cm:
                self.ctx.permute_batch(gp.Permutation.BLAKE3, states)
            self.assertStatus(cm, gp.Status.UNSUPPORTED, "gp_permute_batch", "BLAKE3")

    def test_winterfell_ids(self):
        self.assertEqual((gp.Permutation.SHA3_256, gp.Permutation.BLAKE3_192, gp.Permutation.RP64_256), (20, 21, 22))
        self.assertEqual(gp.permutation_info(gp.Permutation.SHA3_256), (25, None))
        self.assertEqual(gp.permutation_info(gp.Permutation.BLAKE3_192), (16, None))
        self.assertEqual(gp.permutation_info(gp.Permutation.RP64_256), (12, gp.Field.GOLDILOCKS))
        for perm in (gp.Permutation.SHA3_256, gp.Permutation.BLAKE3_192):
            with self.assertRaises(gp.GpuproverError) as cm:
                self.ctx.permute_batch(perm, [0] * 16)
            self.assertStatus(cm, gp.Status.UNSUPPORTED, "gp_permute_batch", perm.name)
        # winter-crypto's Rp64_256 test apply_permutation (crypto/src/hash/
        # rescue/rp64_256/tests.rs, v0.13.1): the permutation of 0..11.
        state = list(range(12))
        self.ctx.permute_batch(gp.Permutation.RP64_256, state)
        self.assertEqual(state, [11084501481526603421, 6291559951628160880, 13626645864671311919,
                                 18397438323058963117, 7443014167353970324, 17930833023906771425,
                                 4275355080008025761, 7676681476902901785, 3460534574143792217,
                                 11912731278641497187, 8104899243369883110, 674509706691634438])

    def test_batches(self):
        for perm in gp.Permutation:
            if perm in (gp.Permutation.BLAKE3, gp.Permutation.SHA3_256, gp.Permutation.BLAKE3_192):
                continue  # hashes, not permutations: test_blake3_is_a_hash, test_winterfell_ids
            width, field = gp.permutation_info(perm)
            p = gp.field_info(field).modulus if field else 1 << 64
            tc = TYPECODE[field] if field else "Q"
            vals = array.array(tc, (self.rng.randrange(p) for _ in range(5 * width)))
            batch = array.array(tc, vals)
            self.ctx.permute_batch(perm, batch)
            for s in range(5):
                one = array.array(tc, vals[s * width:(s + 1) * width])
                self.ctx.permute_batch(perm, one)
                self.assertEqual(one, batch[s * width:(s + 1) * width], perm.name)
            with self.assertRaises(gp.GpuproverError) as cm:
                self.ctx.permute_batch(perm, array.array(tc, bytes(one.itemsize * (width + 1))))
            self.assertStatus(cm, gp.Status.SHAPE_MISMATCH)
        with self.assertRaises(TypeError):  # read-only
            self.ctx.permute_batch(gp.Permutation.KECCAK_F1600, bytes(200))
        with self.assertRaises(TypeError):  # wrong element width
            self.ctx.permute_batch(gp.Permutation.KECCAK_F1600, array.array("I", bytes(100)))


class TestErrors(Base):
    def test_bad_rows(self):
        ctx = self.ctx
        out = ctx.buffer(gp.Field.GOLDILOCKS, 8, 2)
        with self.assertRaises(gp.GpuproverError) as cm:
            ctx.lde_host(gp.Field.GOLDILOCKS, [0] * 6, 3, 2, out)
        self.assertStatus(cm, gp.Status.INVALID_ARGUMENT, "gp_lde_batch_host", "3", "power of two")
        self.assertEqual(cm.exception.function, "gp_lde_batch_host")
        with ctx.buffer(gp.Field.BABYBEAR, 3, 2) as b3, self.assertRaises(gp.GpuproverError) as cm:
            ctx.ntt(b3)
        self.assertStatus(cm, gp.Status.INVALID_ARGUMENT, "gp_ntt_batch", "rows = 3")
        with self.assertRaises(gp.GpuproverError) as cm:
            ctx.buffer(gp.Field.GOLDILOCKS, 0, 2)
        self.assertStatus(cm, gp.Status.INVALID_ARGUMENT, "rows = 0")
        with self.assertRaises(gp.GpuproverError) as cm:
            ctx.lde_host(gp.Field.GOLDILOCKS, [0] * 8, 4, 2, out, blowup=3)
        self.assertStatus(cm, gp.Status.INVALID_ARGUMENT, "blowup = 3")
        with self.assertRaises(gp.GpuproverError) as cm:  # caught before allocating an output
            ctx.lde_host(gp.Field.GOLDILOCKS, [0] * 8, 4, 2, blowup=64)
        self.assertStatus(cm, gp.Status.INVALID_ARGUMENT, "blowup = 64")
        with self.assertRaises(gp.GpuproverError) as cm:
            ctx.lde_host(gp.Field.GOLDILOCKS, [0] * 32, 4, 2, out, ext_degree=4)
        self.assertStatus(cm, gp.Status.UNSUPPORTED, "ext_degree = 4")
        with self.assertRaises(gp.GpuproverError):  # beyond BabyBear's two-adicity
            ctx.lde_host(gp.Field.BABYBEAR, [0], 1, 1, ctx.buffer(gp.Field.BABYBEAR, 1, 1), n=1 << 26, blowup=4)
        with self.assertRaises(OverflowError):
            ctx.lde_host(gp.Field.GOLDILOCKS, [0] * 8, 4, 2, out, shift=1 << 64)
        # The failed calls left everything usable.
        ctx.lde_host(gp.Field.GOLDILOCKS, [0] * 8, 4, 2, out)

    def test_output_shape(self):
        ctx = self.ctx
        data = [0] * 8  # n = 4, 2 columns; blowup 4 needs a 16 x 2 output
        for rows, cols in ((8, 2), (32, 2), (16, 1), (16, 3)):
            with ctx.buffer(gp.Field.GOLDILOCKS, rows, cols) as out:
                with self.assertRaises(gp.GpuproverError) as cm:
                    ctx.lde_host(gp.Field.GOLDILOCKS, data, 4, 2, out, blowup=4)
                self.assertStatus(cm, gp.Status.SHAPE_MISMATCH, "gp_lde_batch_host")
                with ctx.buffer_from_host(gp.Field.GOLDILOCKS, data, 4, 2) as inp:
                    with self.assertRaises(gp.GpuproverError) as cm:
                        ctx.lde(inp, out, blowup=4)
                    self.assertStatus(cm, gp.Status.SHAPE_MISMATCH, "gp_lde_batch")
        with ctx.buffer(gp.Field.BABYBEAR, 16, 2) as bb, self.assertRaises(gp.GpuproverError) as cm:
            ctx.lde_host(gp.Field.GOLDILOCKS, data, 4, 2, bb, blowup=4)
        self.assertStatus(cm, gp.Status.FIELD_MISMATCH)
        with ctx.buffer(gp.Field.GOLDILOCKS, 16, 2, 2) as ext2, self.assertRaises(gp.GpuproverError) as cm:
            ctx.lde_host(gp.Field.GOLDILOCKS, data, 4, 2, ext2, blowup=4)
        self.assertStatus(cm, gp.Status.FIELD_MISMATCH)

        # Host data of the wrong length or type is refused by the binding.
        out = ctx.buffer(gp.Field.GOLDILOCKS, 16, 2)
        with self.assertRaises(gp.GpuproverError) as cm:
            ctx.lde_host(gp.Field.GOLDILOCKS, [0] * 7, 4, 2, out, blowup=4)
        self.assertStatus(cm, gp.Status.SHAPE_MISMATCH, "7 elements")
        with self.assertRaises(TypeError):
            ctx.lde_host(gp.Field.GOLDILOCKS, array.array("I", data), 4, 2, out, blowup=4)
        with self.assertRaises(TypeError):
            ctx.lde_host(gp.Field.GOLDILOCKS, array.array("d", data), 4, 2, out, blowup=4)
        with self.assertRaises(TypeError):
            ctx.lde_host(gp.Field.GOLDILOCKS, "abcdefgh", 4, 2, out, blowup=4)
        with self.assertRaises(ValueError):
            ctx.lde_host(gp.Field.GOLDILOCKS, bytes(63), 4, 2, out, blowup=4)
        with self.assertRaises(OverflowError):
            ctx.lde_host(gp.Field.GOLDILOCKS, [-1] * 8, 4, 2, out, blowup=4)
        with self.assertRaises(gp.GpuproverError) as cm:
            out.to_host(out=array.array("Q", bytes(8 * 31)))
        self.assertStatus(cm, gp.Status.SHAPE_MISMATCH)
        with self.assertRaises(gp.GpuproverError) as cm:
            ctx.buffer_from_host(gp.Field.GOLDILOCKS, [0] * 9, 4, 2)
        self.assertStatus(cm, gp.Status.SHAPE_MISMATCH)
        if numpy is not None:
            with self.assertRaises(ValueError):  # not contiguous
                ctx.lde_host(gp.Field.GOLDILOCKS, numpy.zeros(16, dtype=numpy.uint64)[::2], 4, 2, out, blowup=4)

        # A buffer of another context.
        with gp.Context() as other, other.buffer(gp.Field.GOLDILOCKS, 16, 2) as foreign:
            with self.assertRaises(gp.GpuproverError) as cm:
                ctx.lde_host(gp.Field.GOLDILOCKS, data, 4, 2, foreign, blowup=4)
            self.assertStatus(cm, gp.Status.CONTEXT_MISMATCH)

    def test_non_canonical(self):
        for f in FIELDS:
            p = gp.field_info(f).modulus
            vals = [0] * 8
            vals[5] = p  # the first value that is not canonical
            with self.assertRaises(gp.GpuproverError) as cm:
                self.ctx.lde_host(f, vals, 4, 2)
            self.assertStatus(cm, gp.Status.NON_CANONICAL, "[5]", str(p))
            with self.assertRaises(gp.GpuproverError) as cm:
                self.ctx.buffer_from_host(f, array.array(TYPECODE[f], vals), 4, 2)
            self.assertStatus(cm, gp.Status.NON_CANONICAL, "[5]")
        state = [0] * 12
        state[3] = 2 ** 64 - 1
        with self.assertRaises(gp.GpuproverError) as cm:
            self.ctx.permute_batch(gp.Permutation.POSEIDON2_GOLDILOCKS_12, state)
        self.assertStatus(cm, gp.Status.NON_CANONICAL, "[3]")
        lanes = [0] * 25  # Keccak lanes are raw words: any value is fine
        lanes[3] = 2 ** 64 - 1
        self.ctx.permute_batch(gp.Permutation.KECCAK_F1600, lanes)

    def test_messages_per_thread(self):
        # The library's message is thread-local: each thread gets its own.
        failures = []

        def worker(t):
            try:
                with gp.Context(backend=gp.Backend.CPU, cpu_threads=1) as ctx, \
                        ctx.buffer(gp.Field.GOLDILOCKS, 64, 1) as out:
                    data = array.array("Q", bytes(8 * 16))
                    for i in range(100):
                        blowup = 3 + 2 * ((t + i) % 8)  # odd: never a power of two
                        try:
                            ctx.lde_host(gp.Field.GOLDILOCKS, data, 16, 1, out, blowup=blowup)
                            failures.append("blowup %d succeeded" % blowup)
                        except gp.GpuproverError as e:
                            if "blowup = %d " % blowup not in e.message:
                                failures.append("blowup %d gave %s" % (blowup, e))
                        ctx.lde_host(gp.Field.GOLDILOCKS, data, 16, 1, out, blowup=4)
            except Exception as e:  # pragma: no cover
                failures.append(repr(e))

        threads = [threading.Thread(target=worker, args=(t,)) for t in range(8)]
        for t in threads:
            t.start()
        for t in threads:
            t.join()
        self.assertEqual(failures, [])


if __name__ == "__main__":
    unittest.main()
