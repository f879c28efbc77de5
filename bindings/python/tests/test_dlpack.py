# SPDX-License-Identifier: MIT OR Apache-2.0
"""DLPack export (Buffer.__dlpack__) and import (Context.from_dlpack), with
a producer written here over an array.array (numpy, CuPy and torch are not
needed) and round trips of the binding's own capsules (stdlib unittest)."""

import array
import ctypes
import gc
import os
import sys
import unittest

sys.path.insert(0, os.path.dirname(os.path.dirname(os.path.abspath(__file__))))

import gpuprover as gp  # noqa: E402

GL, BB = gp.Field.GOLDILOCKS, gp.Field.BABYBEAR
P_GL, P_BB = 0xFFFFFFFF00000001, 0x78000001
KDL_CPU, KDL_UINT = 1, 1


# DLPack 0.6, declared here as a producer would.
class DLDevice(ctypes.Structure):
    _fields_ = [("device_type", ctypes.c_int), ("device_id", ctypes.c_int)]


class DLDataType(ctypes.Structure):
    _fields_ = [("code", ctypes.c_uint8), ("bits", ctypes.c_uint8), ("lanes", ctypes.c_uint16)]


class DLTensor(ctypes.Structure):
    _fields_ = [("data", ctypes.c_void_p), ("device", DLDevice), ("ndim", ctypes.c_int), ("dtype", DLDataType),
                ("shape", ctypes.POINTER(ctypes.c_int64)), ("strides", ctypes.POINTER(ctypes.c_int64)),
                ("byte_offset", ctypes.c_uint64)]


DELETER = ctypes.CFUNCTYPE(None, ctypes.c_void_p)


class DLManagedTensor(ctypes.Structure):
    _fields_ = [("dl_tensor", DLTensor), ("manager_ctx", ctypes.c_void_p), ("deleter", DELETER)]


pyapi = ctypes.pythonapi
pyapi.PyCapsule_New.restype = ctypes.py_object
pyapi.PyCapsule_New.argtypes = [ctypes.c_void_p, ctypes.c_char_p, ctypes.c_void_p]
pyapi.PyCapsule_IsValid.restype = ctypes.c_int
pyapi.PyCapsule_IsValid.argtypes = [ctypes.py_object, ctypes.c_char_p]
pyapi.PyCapsule_GetPointer.restype = ctypes.c_void_p
pyapi.PyCapsule_GetPointer.argtypes = [ctypes.py_object, ctypes.c_char_p]
DLTENSOR = b"dltensor"  # a module constant: capsule names must outlive the capsules


def capsule_name(capsule):
    for name in (b"dltensor", b"used_dltensor"):
        if pyapi.PyCapsule_IsValid(capsule, name):
            return name.decode()
    return None


def tensor_of(capsule):
    return DLManagedTensor.from_address(pyapi.PyCapsule_GetPointer(capsule, b"dltensor"))


class HostProducer:
    """A DLPack producer over host memory (an array.array), as numpy is one:
    __dlpack__ gives a capsule without a destructor whose managed tensor
    keeps the memory until its deleter runs, which is counted."""

    def __init__(self, values, typecode, shape, strides=None, dtype_bits=None, byte_offset=0):
        self.array = array.array(typecode, values)
        self.shape, self.strides = list(shape), strides
        self.bits = dtype_bits or 8 * self.array.itemsize
        self.byte_offset = byte_offset
        self.deleted = 0
        self.live = {}  # tensor address -> what it keeps alive
        self.deleter = DELETER(self._delete)

    def _delete(self, ptr):
        self.live.pop(ptr)
        self.deleted += 1

    def __dlpack_device__(self):
        return (KDL_CPU, 0)

    def __dlpack__(self, stream=None):
        m = DLManagedTensor()
        shape = (ctypes.c_int64 * len(self.shape))(*self.shape)
        strides = (ctypes.c_int64 * len(self.strides))(*self.strides) if self.strides else None
        t = m.dl_tensor
        t.data = self.array.buffer_info()[0]
        t.device = DLDevice(KDL_CPU, 0)
        t.ndim = len(self.shape)
        t.dtype = DLDataType(KDL_UINT, self.bits, 1)
        t.shape = shape
        t.strides = strides
        t.byte_offset = self.byte_offset
        m.deleter = self.deleter
        addr = ctypes.addressof(m)
        self.live[addr] = (m, shape, strides, self.array)
        return pyapi.PyCapsule_New(addr, DLTENSOR, None)


class Base(unittest.TestCase):
    def setUp(self):
        self.ctx = gp.Context(backend=gp.Backend.CPU, cpu_threads=2)
        self.addCleanup(self.ctx.close)


class TestImport(Base):
    def test_one_column(self):
        vals = [(i * i * 1000003 + 7) % P_GL for i in range(16)]
        producer = HostProducer(vals, "Q", [16])
        buf = self.ctx.from_dlpack(producer, GL)
        self.assertEqual((buf.rows, buf.cols, buf.ext_degree, buf.field), (16, 1, 1, GL))
        self.assertEqual(buf.tolist(), vals)
        self.assertIs(buf._dlpack_source, producer)
        # Used as any buffer, here the input of an LDE checked against a copy.
        with self.ctx.lde(buf, blowup=2) as a, self.ctx.lde_host(GL, vals, 16, 1, blowup=2) as b:
            self.assertEqual(a.tolist(), b.tolist())
        self.assertEqual(producer.deleted, 0)
        buf.close()  # the buffer owned the tensor: its deleter ran
        self.assertEqual((producer.deleted, producer.live), (1, {}))

    def test_two_dimensional_extension(self):
        rows, cols, ext = 8, 3, 4
        base = [[(c * 1000 + r * 7 + 1) % P_BB for r in range(rows)] for c in range(cols * ext)]
        flat = [v for col in base for v in col]  # tensor row k = base column k
        producer = HostProducer(flat, "I", [cols * ext, rows], strides=[rows, 1])
        with self.ctx.from_dlpack(producer, BB, ext_degree=ext) as buf:
            self.assertEqual((buf.rows, buf.cols, buf.ext_degree), (rows, cols, ext))
            want = [base[c * ext + k][r] for c in range(cols) for r in range(rows) for k in range(ext)]
            self.assertEqual(buf.tolist(gp.Layout.COL_MAJOR), want)
        self.assertEqual(producer.deleted, 1)
        # Closing the context releases an imported buffer, and its tensor.
        producer = HostProducer(flat, "I", [cols * ext, rows])
        with gp.Context(backend=gp.Backend.CPU, cpu_threads=1) as other:
            buf = other.from_dlpack(producer, BB, ext)
        self.assertTrue(buf.closed)
        self.assertEqual(producer.deleted, 1)

    def test_refused_tensors_stay_with_their_owner(self):
        cases = [
            (HostProducer([1, 2, P_GL, 4], "Q", [4]), GL, 1, gp.Status.NON_CANONICAL),
            (HostProducer([1, 2, 3, 4], "I", [4]), GL, 1, gp.Status.FIELD_MISMATCH),
            (HostProducer([1] * 6, "Q", [3, 2]), GL, 2, gp.Status.SHAPE_MISMATCH),
            (HostProducer([1] * 8, "Q", [2, 4], strides=[1, 2]), GL, 1, gp.Status.SHAPE_MISMATCH),
        ]
        for producer, field, ext, status in cases:
            capsule = producer.__dlpack__()
            with self.assertRaises(gp.GpuproverError) as cm:
                self.ctx.from_dlpack(capsule, field, ext)
            self.assertEqual(cm.exception.status, status, str(cm.exception))
            self.assertTrue(cm.exception.message.startswith("Context.from_dlpack: "), cm.exception.message)
            # Not consumed: still "dltensor", deleter not called.
            self.assertEqual(capsule_name(capsule), "dltensor")
            self.assertEqual(producer.deleted, 0)
            addr = pyapi.PyCapsule_GetPointer(capsule, b"dltensor")
            producer.deleter(addr)  # the producer's own release
        with self.assertRaises(TypeError):
            self.ctx.from_dlpack([1, 2, 3], GL)
        with self.assertRaises(TypeError):
            self.ctx.from_dlpack(pyapi.PyCapsule_New(8, b"something", None), GL)

    def test_capsule_consumed_once(self):
        producer = HostProducer([5] * 4, "Q", [4])
        capsule = producer.__dlpack__()
        buf = self.ctx.from_dlpack(capsule, GL)
        self.assertEqual(capsule_name(capsule), "used_dltensor")
        with self.assertRaises(BufferError):
            self.ctx.from_dlpack(capsule, GL)
        self.assertEqual(buf.tolist(), [5] * 4)
        buf.close()
        self.assertEqual(producer.deleted, 1)


class TestExport(Base):
    def test_tensor_and_device(self):
        rows, cols, ext = 8, 2, 2
        vals = list(range(1, rows * cols * ext + 1))
        with self.ctx.buffer_from_host(GL, vals, rows, cols, ext) as buf:
            self.assertEqual(buf.__dlpack_device__(), (KDL_CPU, 0))
            capsule = buf.__dlpack__()
            self.assertEqual(capsule_name(capsule), "dltensor")
            t = tensor_of(capsule).dl_tensor
            self.assertEqual((t.ndim, t.shape[0], t.shape[1], t.strides[0], t.strides[1]),
                             (2, cols * ext, rows, rows, 1))
            self.assertEqual((t.dtype.code, t.dtype.bits, t.dtype.lanes), (KDL_UINT, 64, 1))
            self.assertEqual((t.device.device_type, t.byte_offset), (KDL_CPU, 0))
            # A view of the buffer's memory: base column k of the buffer layout.
            mem = (ctypes.c_uint64 * (rows * cols * ext)).from_address(t.data)
            for c in range(cols):
                for r in range(rows):
                    for k in range(ext):
                        self.assertEqual(mem[(c * ext + k) * rows + r], vals[(c * rows + r) * ext + k])
            with self.assertRaises(BufferError):  # the export is alive
                buf.close()
            del capsule, t, mem  # never consumed: its destructor releases the tensor
            gc.collect()
        self.assertTrue(buf.closed)
        with self.assertRaises(BufferError):
            self.ctx.buffer(GL, 4, 1).__dlpack__(copy=True)
        with self.assertRaises(BufferError):
            self.ctx.buffer(GL, 4, 1).__dlpack__(dl_device=(2, 0))

    def test_round_trip_through_the_library(self):
        vals = [(i * 31 + 1) % P_BB for i in range(32)]
        src = self.ctx.buffer_from_host(BB, vals, 8, 4)
        # Through a capsule, and through the object itself.
        capsule = src.__dlpack__()
        a = self.ctx.from_dlpack(capsule, BB)
        self.assertEqual(capsule_name(capsule), "used_dltensor")
        b = self.ctx.from_dlpack(src, BB)
        self.assertIs(b._dlpack_source, src)
        for x in (a, b):
            self.assertEqual((x.rows, x.cols, x.ext_degree), (8, 4, 1))
            self.assertEqual(x.tolist(), vals)
        # The imports alias the source: an NTT of one is seen by the other.
        self.ctx.ntt(a)
        self.assertEqual(src.tolist(), b.tolist())
        self.assertNotEqual(src.tolist(), vals)
        with self.assertRaises(BufferError):
            src.close()  # imports still read it
        a.close()
        b.close()  # the tensors' deleters ran: the exports are gone
        src.close()
        self.assertTrue(src.closed)

    def test_export_keeps_the_buffer_and_context(self):
        # The temporary context and buffer live as long as the tensor.
        capsule = gp.Context(backend=gp.Backend.CPU, cpu_threads=1).buffer_from_host(GL, [3, 1, 4, 1], 4, 1) \
            .__dlpack__()
        gc.collect()
        with self.ctx.from_dlpack(capsule, GL) as imported:
            gc.collect()
            self.assertEqual(imported.tolist(), [3, 1, 4, 1])

    def test_context_close_with_exports(self):
        other = gp.Context(backend=gp.Backend.CPU, cpu_threads=1)
        src = other.buffer_from_host(GL, [1, 2, 3, 4], 4, 1)
        imported = self.ctx.from_dlpack(src, GL)
        with self.assertRaises(BufferError):
            other.close()  # self.ctx's buffer reads its memory
        self.assertFalse(other.closed)
        imported.close()
        other.close()
        self.assertTrue(src.closed)
        # Imported into its own context: released together.
        ctx = gp.Context(backend=gp.Backend.CPU, cpu_threads=1)
        src = ctx.buffer_from_host(GL, [1, 2, 3, 4], 4, 1)
        same = ctx.from_dlpack(src, GL)
        ctx.close()
        self.assertTrue(src.closed and same.closed)
        gc.collect()
        self.assertEqual([k for k, v in gp._EXPORTS.items() if v[0] is src], [])


if __name__ == "__main__":
    unittest.main()
