# SPDX-License-Identifier: MIT OR Apache-2.0
"""The remote backend's options (Backend.REMOTE, ``endpoint``, ``priority``,
``force_cpu``, ``token_file``) and Context.remote_fallback, without a server:
an unreachable endpoint. With GPUPROVER_TEST_SERVER set to a running
gpuprover-server's address, test_remote_matches_cpu also checks a remote
context against the CPU backend."""

import array
import ctypes
import os
import pathlib
import random
import sys
import unittest

sys.path.insert(0, os.path.dirname(os.path.dirname(os.path.abspath(__file__))))

import gpuprover as gp  # noqa: E402

try:
    from .test_devices import lde_and_commit
except ImportError:  # run as a script
    from test_devices import lde_and_commit

P = gp.field_info(gp.Field.GOLDILOCKS).modulus
# A unix socket path no server can listen on.
UNREACHABLE = "/nonexistent/dir/gp.sock"


def cpu():
    return gp.Context(backend=gp.Backend.CPU, cpu_threads=2)


class TestRemote(unittest.TestCase):
    def test_constants_and_layout(self):
        self.assertEqual(gp.Status.REMOTE, 17)
        self.assertEqual(gp._status_name(gp.Status.REMOTE), "GP_ERR_REMOTE")
        self.assertEqual(gp.Backend.REMOTE, 3)
        self.assertEqual([int(p) for p in (gp.Priority.NORMAL, gp.Priority.LOW, gp.Priority.HIGH)], [0, 1, 2])
        # The remote fields follow cpu_threads with C's alignment: on LP64,
        # 4 + 4 + 8 + 4 + 4 then endpoint (8), priority (4), force_cpu (4),
        # token_file (8).
        o = gp._ContextOptions()
        gp._lib.gp_context_options_init(ctypes.byref(o))
        self.assertEqual(o.struct_size, ctypes.sizeof(gp._ContextOptions))
        self.assertEqual((o.endpoint, o.priority, o.force_cpu, o.token_file), (None, 0, 0, None))
        if ctypes.sizeof(ctypes.c_void_p) == 8:
            self.assertEqual(ctypes.sizeof(gp._ContextOptions), 48)
            self.assertEqual(gp._ContextOptions.endpoint.offset, 24)
            self.assertEqual(gp._ContextOptions.priority.offset, 32)
            self.assertEqual(gp._ContextOptions.force_cpu.offset, 36)
            self.assertEqual(gp._ContextOptions.token_file.offset, 40)

    def test_remote_backend_without_a_server(self):
        for kwargs in ({}, {"priority": gp.Priority.HIGH, "force_cpu": True},
                       {"token_file": pathlib.Path("/nonexistent/dir/token")}):
            with self.assertRaises(gp.GpuproverError) as cm:
                gp.Context(backend=gp.Backend.REMOTE, endpoint=UNREACHABLE, **kwargs)
            e = cm.exception
            self.assertEqual(e.status, gp.Status.REMOTE, str(e))
            self.assertIsInstance(e.status, gp.Status)
            self.assertTrue(e.message)
            self.assertTrue(e.message.startswith("Context: "), e.message)
            self.assertEqual(e.function, "gp_context_create")
            self.assertIn("GP_ERR_REMOTE", str(e))

    def test_auto_falls_back_in_process(self):
        with gp.Context(endpoint=UNREACHABLE, priority=gp.Priority.LOW) as ctx, cpu() as ref:
            self.assertIn(ctx.backend, (gp.Backend.CPU, gp.Backend.CUDA))
            why = ctx.remote_fallback
            self.assertIsInstance(why, str)
            self.assertTrue(why)
            # It works in process, with the results of the CPU backend.
            rng = random.Random(60)
            trace = array.array("Q", (rng.randrange(P) for _ in range(32 * 2)))
            self.assertEqual(lde_and_commit(ctx, trace, 32, 2), lde_and_commit(ref, trace, 32, 2))
            # No server configured: nothing to explain.
            self.assertIsNone(ref.remote_fallback)
            # The CPU asked for: no CPU fallback; AUTO on the CPU says why.
            self.assertIsNone(ref.cpu_fallback)
            if ctx.backend == gp.Backend.CPU:
                self.assertTrue(ctx.cpu_fallback)
            else:
                self.assertIsNone(ctx.cpu_fallback)
        with self.assertRaises(gp.ClosedError):
            ctx.remote_fallback
        # A token file that cannot be read: in process as well, saying why.
        with gp.Context(endpoint=UNREACHABLE, token_file=pathlib.Path("/nonexistent/dir/token"),
                        force_cpu=True) as ctx:
            self.assertIn(ctx.backend, (gp.Backend.CPU, gp.Backend.CUDA))
            self.assertTrue(ctx.remote_fallback)
        if "GPUPROVER_SERVER" not in os.environ:
            with gp.Context() as auto:
                self.assertIn(auto.backend, (gp.Backend.CPU, gp.Backend.CUDA))
                self.assertIsNone(auto.remote_fallback)

    def test_invalid_options(self):
        # A priority that is not a gp_priority: the library refuses it.
        with self.assertRaises(gp.GpuproverError) as cm:
            gp.Context(backend=gp.Backend.CPU, priority=9)
        e = cm.exception
        self.assertEqual(e.status, gp.Status.INVALID_ARGUMENT, str(e))
        self.assertIn("priority = 9", e.message)
        self.assertNotIn("options->", e.message)
        # The binding's own checks.
        with self.assertRaises(ValueError):
            gp.Context(backend=gp.Backend.REMOTE, endpoint="/tmp/a\0b")
        with self.assertRaises(ValueError):
            gp.Context(endpoint=UNREACHABLE, token_file=b"/tmp/a\0b")
        with self.assertRaises(TypeError):
            gp.Context(backend=gp.Backend.REMOTE, endpoint=1234)
        with self.assertRaises(TypeError):
            gp.Context(backend=gp.Backend.CPU, priority="high")

    @unittest.skipUnless(os.environ.get("GPUPROVER_TEST_SERVER"),
                         "set GPUPROVER_TEST_SERVER to a gpuprover-server's address")
    def test_remote_matches_cpu(self):
        endpoint = os.environ["GPUPROVER_TEST_SERVER"]
        rng = random.Random(61)
        with gp.Context(backend=gp.Backend.REMOTE, endpoint=endpoint) as remote, cpu() as ref:
            self.assertEqual(remote.backend, gp.Backend.REMOTE)
            self.assertIsNone(remote.remote_fallback)
            for rows, cols in ((64, 7), (256, 3)):
                trace = array.array("Q", (rng.randrange(P) for _ in range(rows * cols)))
                lde_r, root_r, open_r = lde_and_commit(remote, trace, rows, cols)
                lde_c, root_c, open_c = lde_and_commit(ref, trace, rows, cols)
                self.assertEqual(lde_r, lde_c, (rows, cols))
                self.assertEqual(root_r, root_c, (rows, cols))
                self.assertEqual(open_r, open_c, (rows, cols))


if __name__ == "__main__":
    unittest.main()
