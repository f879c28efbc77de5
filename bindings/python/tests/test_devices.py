# SPDX-License-Identifier: MIT OR Apache-2.0
"""Several devices: emulated CPU devices (the length of ``devices`` on the
CPU backend), Context.device_count / device_info / devices, and results that
do not depend on the number of devices."""

import array
import ctypes
import os
import random
import sys
import unittest

sys.path.insert(0, os.path.dirname(os.path.dirname(os.path.abspath(__file__))))

import gpuprover as gp  # noqa: E402

P = gp.field_info(gp.Field.GOLDILOCKS).modulus


def cpu_devices(n):
    """A CPU context with n emulated devices (the values are not used)."""
    return gp.Context(backend=gp.Backend.CPU, devices=[0] * n, cpu_threads=3)


def lde_and_commit(ctx, trace, rows, cols):
    """A bit-reversed LDE with blowup 4, its Merkle root and a few openings
    (checked)."""
    with ctx.lde_host(gp.Field.GOLDILOCKS, trace, rows, cols, blowup=4,
                      output_order=gp.Order.BIT_REVERSED) as lde, \
            ctx.merkle_commit([lde]) as tree:
        openings = tree.open([0, 5, rows * 4 - 1])
        for o in openings:
            tree.verify(o)
        return lde.tolist(), tree.root(), openings


class TestDevices(unittest.TestCase):
    def test_constants_and_layout(self):
        self.assertEqual(gp.DEVICES_ALL, -1)
        # struct_size, ordinal, name[128], five uint64_t.
        self.assertEqual(ctypes.sizeof(gp._DeviceInfo), 4 + 4 + 128 + 5 * 8)

    def test_emulated_cpu_devices(self):
        with cpu_devices(3) as ctx:
            self.assertEqual(ctx.backend, gp.Backend.CPU)
            self.assertEqual(ctx.device_count, 3)
            devs = ctx.devices()
            self.assertEqual(len(devs), 3)
            for i, d in enumerate(devs):
                self.assertIsInstance(d, gp.DeviceInfo)
                self.assertEqual(d.ordinal, -1, d)
                self.assertTrue(d.name, d)
                self.assertEqual((d.free_bytes, d.total_bytes), (0, 0), d)
                self.assertEqual(ctx.device_info(i), d)
        # A plain CPU context, one emulated device, and a list holding only
        # DEVICES_ALL (of length 1) have one device.
        for devices in (None, [0], [gp.DEVICES_ALL]):
            with gp.Context(backend=gp.Backend.CPU, devices=devices) as ctx:
                self.assertEqual(ctx.device_count, 1, devices)
                devs = ctx.devices()
                self.assertEqual(len(devs), 1)
                self.assertEqual(devs[0].ordinal, -1)

    def test_device_info_out_of_range(self):
        with cpu_devices(3) as ctx:
            for index in (3, 4, 1000, 2**32 - 1):
                with self.assertRaises(gp.GpuproverError) as cm:
                    ctx.device_info(index)
                e = cm.exception
                self.assertEqual(e.status, gp.Status.INVALID_ARGUMENT, str(e))
                self.assertEqual(e.function, "gp_context_device_info")
                self.assertTrue(e.message.startswith("Context.device_info: "), e.message)
                self.assertIn("index", e.message)
            # Not an index at all.
            with self.assertRaises(OverflowError):
                ctx.device_info(-1)
            with self.assertRaises(OverflowError):
                ctx.device_info(2**32)
            with self.assertRaises(TypeError):
                ctx.device_info("0")
            self.assertEqual(ctx.device_info(2).ordinal, -1)
        with self.assertRaises(gp.ClosedError):
            ctx.device_info(0)
        with self.assertRaises(gp.ClosedError):
            ctx.devices()
        with self.assertRaises(gp.ClosedError):
            ctx.device_count

    def test_device_info_sees_a_buffer(self):
        with cpu_devices(3) as ctx:
            before = sum(d.buffer_bytes for d in ctx.devices())
            with ctx.buffer(gp.Field.GOLDILOCKS, 1024, 6):
                after = sum(d.buffer_bytes for d in ctx.devices())
            self.assertGreater(after, before)

    def test_three_devices_give_the_results_of_one(self):
        rng = random.Random(7)
        with cpu_devices(1) as one, cpu_devices(3) as three:
            self.assertEqual((one.device_count, three.device_count), (1, 3))
            # 7 columns: blocks of 3, 2, 2; 2 columns: the third device holds none.
            for rows, cols in ((64, 7), (32, 2), (128, 3)):
                trace = array.array("Q", (rng.randrange(P) for _ in range(rows * cols)))
                lde1, root1, open1 = lde_and_commit(one, trace, rows, cols)
                lde3, root3, open3 = lde_and_commit(three, trace, rows, cols)
                self.assertEqual(lde1, lde3, (rows, cols))
                self.assertEqual(root1, root3, (rows, cols))
                self.assertEqual(open1, open3, (rows, cols))


if __name__ == "__main__":
    unittest.main()
