# SPDX-License-Identifier: MIT OR Apache-2.0
"""The one-call commitment of host traces (Context.commit_host,
gp_commit_host) against the two-call path: lde_host() of every matrix, then
merkle_commit() of the LDEs. Every keep mode, two matrices of different
heights, with no budget and with the least budget (several column batches).
"""

import array
import ctypes
import gc
import os
import random
import re
import sys
import unittest

sys.path.insert(0, os.path.dirname(os.path.dirname(os.path.abspath(__file__))))

import gpuprover as gp  # noqa: E402

GL = gp.Field.GOLDILOCKS
KB = gp.Field.KOALABEAR
TYPECODE = {GL: "Q", KB: "I"}

# field, (rows, cols, ext_degree) of each matrix, blowup, output order, input
# layout, cap height
CASES = [
    (GL, [(64, 12, 1), (16, 3, 2)], 4, gp.Order.BIT_REVERSED, gp.Layout.COL_MAJOR, 1),
    (KB, [(32, 9, 1), (8, 3, 4)], 2, gp.Order.NATURAL, gp.Layout.ROW_MAJOR, 0),
]


class TestCommitHost(unittest.TestCase):
    def setUp(self):
        self.ctx = gp.Context()
        self.addCleanup(self.ctx.close)
        self.rng = random.Random(self.id())

    def traces(self, field, specs):
        p = gp.field_info(field).modulus
        return [array.array(TYPECODE[field], [self.rng.randrange(p) for _ in range(r * c * e)]) for r, c, e in specs]

    def destinations(self, field, specs, blowup):
        return [array.array(TYPECODE[field], bytes(r * blowup * c * e * gp._element_size(field))) for r, c, e in specs]

    def reference(self, field, traces, specs, lde_kw, cap_height, indices):
        """(LDE values column-major of each matrix, root, cap, openings) of the
        two-call path."""
        ldes = []
        for data, (r, c, e) in zip(traces, specs):
            lde = self.ctx.lde_host(field, data, r, c, ext_degree=e, **lde_kw)
            self.addCleanup(lde.close)
            ldes.append(lde)
        with self.ctx.merkle_commit(ldes, cap_height=cap_height) as tree:
            values = [lde.to_host(gp.Layout.COL_MAJOR) for lde in ldes]
            return values, tree.root(), tree.cap(), tree.open(indices)

    def least_budget(self, field, matrices, keep, **kwargs):
        """The minimum that a budget of 1 byte names."""
        with self.assertRaises(gp.GpuproverError) as cm:
            self.ctx.commit_host(field, matrices, keep=keep, device_budget=1, **kwargs)
        self.assertEqual(cm.exception.status, gp.Status.INVALID_ARGUMENT, str(cm.exception))
        m = re.search(r"below the minimum (\d+) bytes", str(cm.exception))
        self.assertIsNotNone(m, str(cm.exception))
        return int(m.group(1))

    def commit(self, field, matrices, **kwargs):
        """commit_host, with the "commit" progress steps it reported."""
        steps = []
        self.ctx.set_progress(lambda stage, done, total: steps.append(done) if stage == "commit" else None)
        try:
            lde, tree = self.ctx.commit_host(field, matrices, **kwargs)
        finally:
            self.ctx.set_progress(None)
        self.addCleanup(tree.close)
        for b in lde:
            self.addCleanup(b.close)
        return lde, tree, steps

    def test_struct_sizes(self):
        o = gp._CommitOptions()
        gp._lib.gp_commit_options_init(ctypes.byref(o))
        self.assertEqual(o.struct_size, ctypes.sizeof(gp._CommitOptions))
        self.assertEqual((o.keep, o.device_budget, bool(o.lde), bool(o.merkle)), (gp.Keep.DEVICE, 0, False, False))
        if ctypes.sizeof(ctypes.c_void_p) == 8:
            self.assertEqual(ctypes.sizeof(gp._CommitMatrix), 48)

    def test_matches_two_calls(self):
        for field, specs, blowup, order, layout, cap_height in CASES:
            traces = self.traces(field, specs)
            lde_kw = dict(blowup=blowup, output_order=order, input_layout=layout)
            height = max(r for r, _, _ in specs) * blowup
            indices = list(range(height))
            values, root, cap, openings = self.reference(field, traces, specs, lde_kw, cap_height, indices)
            dims = [gp.MatrixDims(r * blowup, c, e) for r, c, e in specs]
            for keep in gp.Keep:
                def matrices():
                    dests = self.destinations(field, specs, blowup) if keep == gp.Keep.HOST else [None] * len(specs)
                    return [gp.CommitMatrix(d, r, c, e, dst) for d, (r, c, e), dst in zip(traces, specs, dests)]

                least = self.least_budget(field, matrices(), keep, cap_height=cap_height, **lde_kw)
                batches = {}
                for budget in (0, least):
                    with self.subTest(field=field.name, keep=keep.name, budget=budget):
                        mats = matrices()
                        lde, tree, steps = self.commit(field, mats, keep=keep, device_budget=budget,
                                                       cap_height=cap_height, **lde_kw)
                        batches[budget] = len(steps)
                        self.assertEqual(tree.root(), root)
                        self.assertEqual(tree.cap(), cap)
                        self.assertEqual(tree.dims, dims)
                        self.assertEqual(tree.field, field)
                        got = tree.open(indices)
                        self.assertEqual([o.rows for o in got], [o.rows for o in openings])
                        self.assertEqual([o.path for o in got], [o.path for o in openings])
                        tree.verify(got[height // 3])
                        if keep == gp.Keep.DEVICE:
                            self.assertEqual(len(lde), len(specs))
                            self.assertEqual([(b.rows, b.cols, b.ext_degree) for b in lde], [tuple(d) for d in dims])
                            self.assertEqual([b.to_host(gp.Layout.COL_MAJOR) for b in lde], values)
                        else:
                            self.assertEqual(lde, [])
                        if keep == gp.Keep.HOST:
                            self.assertEqual([m.lde_host for m in mats], values)
                with self.subTest(field=field.name, keep=keep.name):
                    # The least budget streams the columns in more batches.
                    self.assertGreater(batches[least], batches[0])

    def test_into_caller_buffers(self):
        field, specs, blowup = GL, [(64, 12, 1), (16, 3, 2)], 4
        into = [self.ctx.buffer(field, r * blowup, c, e) for r, c, e in specs]
        for b in into:
            self.addCleanup(b.close)
        for _ in range(2):  # the second commitment reuses the buffers
            traces = self.traces(field, specs)
            values, root, _, openings = self.reference(field, traces, specs, dict(blowup=blowup), 0, [0, 7, 255])
            mats = [gp.CommitMatrix(d, r, c, e) for d, (r, c, e) in zip(traces, specs)]
            lde, tree = self.ctx.commit_host(field, mats, into=into, blowup=blowup)
            with tree:
                self.assertEqual(lde, into)
                self.assertEqual(tree.root(), root)
                got = tree.open([0, 7, 255])
                self.assertEqual([o.rows for o in got], [o.rows for o in openings])
            self.assertEqual([b.to_host(gp.Layout.COL_MAJOR) for b in into], values)
        with self.assertRaises(gp.GpuproverError) as cm:
            self.ctx.commit_host(field, mats, into=into[::-1], blowup=blowup)
        self.assertEqual(cm.exception.status, gp.Status.FIELD_MISMATCH, str(cm.exception))  # degrees differ
        with self.assertRaises(gp.GpuproverError) as cm:
            self.ctx.commit_host(field, mats, into=into[:1], blowup=blowup)
        self.assertEqual(cm.exception.status, gp.Status.INVALID_ARGUMENT, str(cm.exception))
        with self.assertRaises(gp.GpuproverError) as cm:
            self.ctx.commit_host(field, mats, into=into, keep=gp.Keep.NONE, blowup=blowup)
        self.assertEqual(cm.exception.status, gp.Status.INVALID_ARGUMENT, str(cm.exception))

    def test_list_destination_and_tuples(self):
        specs = [(16, 2, 1), (8, 3, 1)]
        traces = self.traces(GL, specs)
        values, root, _, openings = self.reference(GL, traces, specs, dict(blowup=2), 0, [0, 5, 31])
        dests = [[0] * (r * 2 * c) for r, c, _ in specs]
        _, tree = self.ctx.commit_host(GL, [(t.tolist(), r, c, 1, d) for t, (r, c, _), d in zip(traces, specs, dests)],
                                       keep=gp.Keep.HOST)
        with tree:
            self.assertEqual(dests, [v.tolist() for v in values])
            self.assertEqual(tree.root(), root)
            self.assertEqual(tree.open([0, 5, 31]), openings)

    def test_tree_holds_host_memory(self):
        specs = [(32, 3, 1), (8, 2, 1)]
        traces = self.traces(GL, specs)
        values, root, _, openings = self.reference(GL, traces, specs, {}, 0, [0, 17, 63])

        # Keep.NONE: the openings read the traces, which the tree holds.
        copies = [array.array("Q", t) for t in traces]
        _, tree = self.ctx.commit_host(GL, [gp.CommitMatrix(t, r, c) for t, (r, c, _) in zip(copies, specs)],
                                       keep=gp.Keep.NONE)
        del copies
        gc.collect()
        self.assertEqual(tree.open([0, 17, 63]), openings)
        tree.close()

        # Keep.HOST: the destinations cannot be resized (moved) while the tree
        # reads them.
        dests = self.destinations(GL, specs, 2)
        _, tree = self.ctx.commit_host(GL, [gp.CommitMatrix(t, r, c, 1, d) for t, (r, c, _), d in
                                            zip(traces, specs, dests)], keep=gp.Keep.HOST)
        self.assertEqual(dests, values)
        with self.assertRaises(BufferError):
            dests[0].append(0)
        self.assertEqual(tree.open([0, 17, 63]), openings)
        tree.close()
        dests[0].append(0)  # released with the tree

        # Keep.DEVICE: the tree reads the kept buffers, as merkle_commit's
        # trees read their matrices.
        lde, tree = self.ctx.commit_host(GL, [gp.CommitMatrix(t, r, c) for t, (r, c, _) in zip(traces, specs)])
        self.addCleanup(tree.close)
        lde[1].close()
        self.assertEqual(tree.root(), root)
        with self.assertRaises(gp.ClosedError):
            tree.open(0)
        lde[0].close()

    def test_errors(self):
        ctx = self.ctx
        specs = [(16, 2, 1), (8, 3, 1)]
        traces = self.traces(GL, specs)

        def mats(dests=(None, None)):
            return [gp.CommitMatrix(t, r, c, e, d) for t, (r, c, e), d in zip(traces, specs, dests)]

        def expect(status, *fragments, **kwargs):
            with self.assertRaises(gp.GpuproverError) as cm:
                ctx.commit_host(GL, kwargs.pop("matrices", None) or mats(), **kwargs)
            self.assertEqual(cm.exception.status, status, str(cm.exception))
            self.assertNotIsInstance(cm.exception, gp.VerifyError)
            for f in ("Context.commit_host",) + fragments:
                self.assertIn(f, str(cm.exception))

        # A destination one element short.
        short = [array.array("Q", bytes(8 * (r * 2 * c - 1))) for r, c, _ in specs]
        expect(gp.Status.INVALID_ARGUMENT, "matrices[0].lde_host", matrices=mats(short), keep=gp.Keep.HOST)
        expect(gp.Status.INVALID_ARGUMENT, "below the minimum", device_budget=1)
        expect(gp.Status.INVALID_ARGUMENT, "blowup = 3", blowup=3)
        expect(gp.Status.INVALID_ARGUMENT, "cap_height", cap_height=9)
        expect(gp.Status.UNSUPPORTED, "n = 16", n=16)
        expect(gp.Status.INVALID_ARGUMENT, "keep = 7", keep=7)
        expect(gp.Status.INVALID_ARGUMENT, "lde_host", matrices=mats(self.destinations(GL, specs, 2)))
        expect(gp.Status.SHAPE_MISMATCH, "matrices[1].data", matrices=[(traces[0], 16, 2), (traces[1], 8, 2)])
        with self.assertRaises(gp.GpuproverError) as cm:
            ctx.commit_host(GL, [])
        self.assertEqual(cm.exception.status, gp.Status.INVALID_ARGUMENT)
        self.assertIn("no matrices", str(cm.exception))
        with self.assertRaises(TypeError):  # a read-only destination
            ctx.commit_host(GL, mats([bytes(8 * 64), None]), keep=gp.Keep.HOST)
        with self.assertRaises(TypeError):
            ctx.commit_host(GL, [traces[0]])
        with self.assertRaises(TypeError):
            ctx.commit_host(GL, mats(), cap_heigth=1)
        with self.assertRaises(TypeError):
            ctx.commit_host(GL, mats(), gp.FriOptions())

        # The failed calls left the context usable.
        lde, tree = ctx.commit_host(GL, mats())
        with tree:
            self.assertEqual(len(tree.root()), 32)
        for b in lde:
            b.close()


if __name__ == "__main__":
    unittest.main()
