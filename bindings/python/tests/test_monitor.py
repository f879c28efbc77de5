# SPDX-License-Identifier: MIT OR Apache-2.0
"""Cancellation, progress and log callbacks, counters, ownership, closed
objects, threads and the binding's messages (stdlib unittest)."""

import array
import gc
import os
import sys
import threading
import unittest

sys.path.insert(0, os.path.dirname(os.path.dirname(os.path.abspath(__file__))))

import gpuprover as gp  # noqa: E402

GL = gp.Field.GOLDILOCKS
P_GL = 0xFFFFFFFF00000001
WAIT = 10.0  # seconds: the bound on every wait


class Base(unittest.TestCase):
    def setUp(self):
        self.ctx = gp.Context(backend=gp.Backend.CPU, cpu_threads=2)
        self.addCleanup(self.ctx.close)

    def long_calls(self):
        """(name, call) pairs: the calls that report progress, on small
        inputs; each call runs one to completion (or raises)."""
        ctx, n, cols = self.ctx, 64, 4
        trace = array.array("Q", ((i * i + 1) % P_GL for i in range(n * cols)))
        inp = ctx.buffer_from_host(GL, trace, n, cols)
        out = ctx.buffer(GL, 2 * n, cols)
        col = ctx.lde_host(GL, trace[:n], n, 1)
        quotient = ctx.lde_host(GL, trace[:n // 2], n // 2, 1)
        for b in (inp, out, col, quotient):
            self.addCleanup(b.close)

        def closing(*objs):
            for o in objs:
                o.close()

        return [
            ("lde", lambda: ctx.lde(inp, out)),
            ("lde_host", lambda: ctx.lde_host(GL, trace, n, cols, out)),
            ("ntt", lambda: ctx.ntt(out)),
            ("merkle_commit", lambda: closing(ctx.merkle_commit([out]))),
            ("fri_begin", lambda: closing(ctx.fri_begin(col, final_size=4))),
            ("fri_commit", lambda: closing(ctx.fri_commit(col, lambda layer, cap: [layer + 5], final_size=4))),
            ("evaluate_ood", lambda: ctx.evaluate_ood(col, [11, 12, 13])),
            ("constraint_commit", lambda: closing(*ctx.constraint_commit(quotient))),
        ]

    def assertCancelled(self, cm):
        self.assertEqual(cm.exception.status, gp.Status.CANCELLED, str(cm.exception))
        self.assertIn("GP_ERR_CANCELLED", str(cm.exception))


class TestCancelAndProgress(Base):
    def test_cancel_from_progress(self):
        # Deterministic: every long call is cancelled at its first report,
        # then runs to completion.
        for name, call in self.long_calls():
            reports = []

            def progress(stage, done, total):
                reports.append((stage, done, total))
                self.assertLessEqual(done, total)
                if len(reports) == 1:
                    self.ctx.cancel()

            self.ctx.set_progress(progress)
            with self.assertRaises(gp.GpuproverError, msg=name) as cm:
                call()
            self.assertCancelled(cm)
            self.assertTrue(reports, name)
            self.assertIsInstance(reports[0][0], str)
            reports.clear()
            self.ctx.set_progress(lambda stage, done, total: reports.append(stage))
            call()  # every object stayed usable
            self.assertTrue(reports, name)
        self.ctx.set_progress(None)
        # A cancel on an idle context does not affect the next call.
        self.ctx.cancel()
        for name, call in self.long_calls():
            call()

    def test_cancel_from_another_thread(self):
        ctx, n, cols = self.ctx, 64, 8
        out = ctx.buffer(GL, 4 * n, cols)
        self.addCleanup(out.close)
        started, cancelled = threading.Event(), threading.Event()
        waited = []

        def progress(stage, done, total):
            if not started.is_set():
                started.set()
                waited.append(cancelled.wait(WAIT))

        def canceller():
            if started.wait(WAIT):
                ctx.cancel()  # does not wait for the context's lock, held by the call
                cancelled.set()

        ctx.set_progress(progress)
        t = threading.Thread(target=canceller)
        t.start()
        try:
            with self.assertRaises(gp.GpuproverError) as cm:
                ctx.lde_host(GL, [0] * (n * cols), n, cols, out, blowup=4)
        finally:
            t.join(WAIT)
        self.assertEqual(waited, [True])
        self.assertCancelled(cm)
        ctx.set_progress(None)
        ctx.lde_host(GL, [0] * (n * cols), n, cols, out, blowup=4)

    def test_progress_exception(self):
        class Stop(Exception):
            pass

        def progress(stage, done, total):
            raise Stop(stage)

        calls = self.long_calls()
        self.ctx.set_progress(progress)
        for name, call in calls:
            with self.assertRaises(Stop, msg=name) as cm:
                call()
            # The call was cancelled to stop it.
            self.assertIsInstance(cm.exception.__context__, gp.GpuproverError)
            self.assertEqual(cm.exception.__context__.status, gp.Status.CANCELLED)
        # The progress callback must not use its context (except cancel()).
        self.ctx.set_progress(lambda stage, done, total: self.ctx.memory_stats())
        with self.assertRaises(RuntimeError) as cm:
            self.ctx.lde_host(GL, [0] * 16, 16, 1)
        self.assertIn("progress callback", str(cm.exception))
        self.ctx.set_progress(None)
        self.ctx.lde_host(GL, [0] * 16, 16, 1).close()
        with self.assertRaises(TypeError):
            self.ctx.set_progress(42)

    def test_callbacks_are_kept_alive(self):
        seen = []

        def install():
            self.ctx.set_progress(lambda stage, done, total: seen.append(stage))
            self.ctx.set_log(lambda line: seen.append(line))

        install()
        gc.collect()
        self.ctx.lde_host(GL, [0] * 16, 16, 1).close()
        self.assertIn("lde", seen)
        self.assertTrue(any(s.startswith("gp_lde_batch_host GP_OK") for s in seen), seen)
        # A context with callbacks is still collected (no reference cycle
        # through the ctypes trampolines keeps it).
        ctx = gp.Context(backend=gp.Backend.CPU, cpu_threads=1)
        ctx.set_progress(lambda *a: None)
        ctx.set_log(lambda line: None)
        ref = __import__("weakref").ref(ctx)
        del ctx
        gc.collect()
        self.assertIsNone(ref())


class TestLogAndCounters(Base):
    def test_log_lines_and_counters(self):
        ctx = self.ctx
        out = ctx.buffer(GL, 32, 2)
        self.addCleanup(out.close)
        lines, nested = [], [True]

        def log(line):
            lines.append(line)
            if not nested[0]:  # the callback may use the context: its lines follow
                nested[0] = True
                ctx.counters()

        ctx.set_log(log)
        ctx.reset_counters()
        del lines[:]
        nested[0] = False
        for _ in range(2):
            ctx.lde_host(GL, [0] * 32, 16, 2, out)
        with self.assertRaises(gp.GpuproverError):
            ctx.lde_host(GL, [0] * 32, 16, 2, out, blowup=3)
        lde = [l for l in lines if l.startswith("gp_lde_batch_host ")]
        self.assertEqual(len(lde), 3, lines)
        self.assertRegex(lde[0], r"^gp_lde_batch_host GP_OK [0-9.]+ ms$")
        self.assertIn("GP_ERR_INVALID_ARGUMENT", lde[2])
        self.assertIn("blowup = 3", lde[2])
        self.assertTrue(any(l.startswith("gp_context_counters GP_OK") for l in lines), lines)

        c = ctx.counters()
        self.assertIsInstance(c, gp.Counters)
        self.assertGreaterEqual(c.calls, 3)
        self.assertEqual(c.failed_calls, 1)
        self.assertGreater(c.call_ns, 0)
        self.assertEqual((c.bytes_to_device, c.bytes_to_host, c.device_ns), (0, 0, 0))  # CPU backend
        stats = ctx.call_stats()
        self.assertEqual(list(stats), sorted(stats))
        s = stats["gp_lde_batch_host"]
        self.assertEqual((s.calls, s.failed_calls), (3, 1))
        self.assertGreater(s.call_ns, 0)

        ctx.reset_counters()
        ctx.set_log(None)
        del lines[:]
        ctx.lde_host(GL, [0] * 32, 16, 2, out)
        self.assertEqual(lines, [])
        c = ctx.counters()
        self.assertEqual(c.failed_calls, 0)
        self.assertLessEqual(c.calls, 4)
        self.assertNotIn("gp_buffer_create", ctx.call_stats())

    def test_log_exception_propagates(self):
        class Stop(Exception):
            pass

        def log(line):
            raise Stop(line)

        with self.assertRaises(Stop) as cm:  # its own line: the log is set
            self.ctx.set_log(log)
        self.assertTrue(cm.exception.args[0].startswith("gp_context_set_log GP_OK"))
        with self.assertRaises(Stop):
            self.ctx.memory_stats()
        self.ctx.set_log(None)
        self.ctx.memory_stats()


class TestOwnershipAndThreads(Base):
    def test_objects_keep_their_context(self):
        buf = gp.Context(backend=gp.Backend.CPU, cpu_threads=1).buffer_from_host(GL, [1, 2, 3, 4], 4, 1)
        gc.collect()
        self.assertFalse(buf.closed)
        self.assertEqual(buf.tolist(), [1, 2, 3, 4])
        tree = buf.context.merkle_commit(buf)
        del buf
        gc.collect()
        self.assertEqual(len(tree.root()), 32)
        tree.context.close()  # releases the buffer and the tree with it
        self.assertTrue(tree.closed)

    def test_closed_messages(self):
        ctx = gp.Context(backend=gp.Backend.CPU, cpu_threads=1)
        a = ctx.buffer(GL, 8, 1)
        b = ctx.buffer(GL, 16, 1)
        tree = ctx.merkle_commit(a)
        b.close()
        cases = [
            (lambda: b.to_host(), "Buffer.to_host: the Buffer is closed"),
            (lambda: b.tolist(), "Buffer.tolist: the Buffer is closed"),
            (lambda: ctx.lde(a, b), "Context.lde: output is a closed Buffer"),
            (lambda: ctx.merkle_commit([a, b]), "Context.merkle_commit: matrices[1] is a closed Buffer"),
        ]
        for call, message in cases:
            with self.assertRaises(gp.ClosedError) as cm:
                call()
            self.assertEqual(str(cm.exception), message)
        ctx.close()
        cases = [
            (lambda: a.tolist(), "Buffer.tolist: the Buffer's Context is closed"),
            (lambda: tree.root(), "MerkleTree.root: the MerkleTree's Context is closed"),
            (lambda: ctx.buffer(GL, 4, 1), "Context.buffer: the Context is closed"),
            (lambda: ctx.counters(), "Context.counters: the Context is closed"),
            (lambda: ctx.cancel(), "Context.cancel: the Context is closed"),
            (lambda: ctx.set_progress(None), "Context.set_progress: the Context is closed"),
        ]
        for call, message in cases:
            with self.assertRaises(ValueError) as cm:  # ClosedError is a ValueError
                call()
            self.assertIsInstance(cm.exception, gp.ClosedError)
            self.assertEqual(str(cm.exception), message)
        a.close()  # what the context released: no-ops
        tree.close()

    def test_shared_context_threads(self):
        # Several threads on one context, another cancelling at random: every
        # call completes or is cancelled, and the data stays intact.
        ctx, failures, stop = self.ctx, [], threading.Event()

        def canceller():
            while not stop.is_set():
                ctx.cancel()
                stop.wait(0.001)

        def worker(t):
            try:
                want = array.array("Q", range(t * 100, t * 100 + 16))
                for _ in range(15):
                    with ctx.buffer_from_host(GL, want, 16, 1) as b, ctx.buffer(GL, 32, 1) as out:
                        try:
                            ctx.lde(b, out)
                        except gp.GpuproverError as e:
                            if e.status != gp.Status.CANCELLED:
                                raise
                        if b.to_host() != want:
                            failures.append("thread %d: buffer changed" % t)
            except Exception as e:  # pragma: no cover
                failures.append(repr(e))

        threads = [threading.Thread(target=worker, args=(t,)) for t in range(4)]
        c = threading.Thread(target=canceller)
        c.start()
        for t in threads:
            t.start()
        for t in threads:
            t.join(60)
        stop.set()
        c.join(WAIT)
        self.assertEqual(failures, [])


class TestMessages(Base):
    def message(self, call, exc=gp.GpuproverError):
        with self.assertRaises(exc) as cm:
            call()
        return cm.exception

    def test_python_parameter_names(self):
        ctx = self.ctx
        out = ctx.buffer(GL, 8, 2)
        self.addCleanup(out.close)
        e = self.message(lambda: ctx.lde_host(GL, [0] * 8, 4, 2, out, blowup=3))
        self.assertEqual(e.message, "Context.lde_host: blowup = 3 is not a power of two in [1, 32]")
        self.assertEqual((e.method, e.function), ("Context.lde_host", "gp_lde_batch_host"))
        self.assertIn("options->blowup", e.library_message)
        self.assertEqual(str(e), "GP_ERR_INVALID_ARGUMENT: " + e.message + " (gp_lde_batch_host)")
        e = self.message(lambda: ctx.lde_host(GL, [0] * 8, 4, 2, out, n=3))
        self.assertTrue(e.message.startswith("Context.lde_host: n = 3 "), e.message)
        e = self.message(lambda: ctx.fri_begin_host(GL, [0] * 16, final_size=4,
                                                    merkle=gp.MerkleOptions(digest=9)))
        self.assertIn("Context.fri_begin_host: merkle.digest = 9", e.message)
        e = self.message(lambda: ctx.deep_composition([out], [1, 2, 3], [0] * 6, [0] * 6, output=out))
        self.assertIn("Context.deep_composition: output ", e.message)
        e = self.message(lambda: gp.merkle_verify(gp.MerkleOptions(cap_height=9), GL, [(8, 2, 1)], bytes(32), 1,
                                                  [0, 0], bytes(96)))
        self.assertTrue(e.message.startswith("merkle_verify: options.cap_height = 9"), e.message)
        e = self.message(lambda: ctx.fri_commit(ctx.buffer(GL, 16, 1), lambda layer, cap: [P_GL]))
        self.assertIn("Context.fri_commit: the challenge[0] = %d" % P_GL, e.message)
        for e in (self.message(lambda: ctx.lde_host(GL, [0] * 8, 4, 2, out, blowup=3)),
                  self.message(lambda: ctx.merkle_commit([out], kind=77))):
            self.assertNotIn("options->", e.message)
        # Found by the binding: the Python method too.
        e = self.message(lambda: ctx.lde_host(GL, [0] * 7, 4, 2, out))
        self.assertTrue(e.message.startswith("Context.lde_host: data has 7 elements"), e.message)
        self.assertIsNone(e.library_message)

    def test_index_of_bad_values(self):
        ctx = self.ctx
        e = self.message(lambda: ctx.lde_host(GL, [0] * 6 + [-1, 0], 4, 2), OverflowError)
        self.assertEqual(str(e), "Context.lde_host: data[6] = -1 is out of range [0, %d] for 8-byte elements"
                         % (2 ** 64 - 1))
        e = self.message(lambda: ctx.buffer_from_host(gp.Field.BABYBEAR, [1, 2, 1 << 32, 3], 4, 1), OverflowError)
        self.assertIn("Context.buffer_from_host: data[2] = 4294967296 is out of range", str(e))
        e = self.message(lambda: ctx.lde_host(GL, [0, 0, "x", 0], 4, 1), TypeError)
        self.assertEqual(str(e), "Context.lde_host: data[2] is str, not an int")
        e = self.message(lambda: ctx.permute_batch(gp.Permutation.POSEIDON2_GOLDILOCKS_8, [0] * 7 + [P_GL]))
        self.assertIn("Context.permute_batch: states[7] = %d is not a canonical" % P_GL, e.message)
        e = self.message(lambda: ctx.lde_host(GL, [0] * 5 + [P_GL, 0, 0], 4, 2))
        self.assertEqual(e.status, gp.Status.NON_CANONICAL)
        self.assertIn("data[5] = %d" % P_GL, e.message)
        with ctx.buffer_from_host(GL, [1] * 8, 8, 1) as b, ctx.merkle_commit(b) as tree:
            e = self.message(lambda: tree.open([0, 1, -2]), OverflowError)
            self.assertEqual(str(e), "MerkleTree.open: indices[2] = -2 is out of range [0, %d]" % (2 ** 64 - 1))


if __name__ == "__main__":
    unittest.main()
