"""Python binding of gpuprover (ctypes, standard library only).

gpuprover computes the data-parallel parts of a STARK commitment (batched
coset low-degree extensions, NTTs and hash permutations) on a CUDA GPU or on
the CPU, with bit-identical results on both backends.

The shared library is found, in this order, through

- ``GPUPROVER_LIB``: the full path of ``libgpuprover.so``;
- ``GPUPROVER_DIR``: the install prefix (``$GPUPROVER_DIR/lib*/libgpuprover.so*``);
- ``ctypes.util.find_library("gpuprover")`` and the loader's standard search
  (``LD_LIBRARY_PATH``, ``ldconfig`` paths).

Host data is any C-contiguous buffer-protocol object of the field's element
width (``array.array('Q')`` for Goldilocks and Keccak lanes,
``array.array('I')`` for BabyBear and KoalaBear, numpy ``uint64`` /
``uint32`` arrays, ``bytes`` holding little-endian elements) or a list of
ints. Example::

    import array, gpuprover as gp

    with gp.Context() as ctx:
        trace = array.array('Q', range(1, 1024 * 8 + 1))      # 1024 x 8, column-major
        with ctx.lde_host(gp.Field.GOLDILOCKS, trace, 1024, 8, blowup=4,
                          output_order=gp.Order.BIT_REVERSED) as lde:
            values = lde.to_host()                            # array.array('Q')

Every failing library call raises :class:`GpuproverError` with the status and
the library's message. A :class:`Context` may be shared between threads (its
calls are serialized by a lock); use one context per thread for parallelism.
"""

import array
import collections
import ctypes
import ctypes.util
import enum
import glob
import operator
import os
import sys
import threading
import weakref

__all__ = [
    "Backend",
    "Buffer",
    "Context",
    "Direction",
    "Field",
    "FieldInfo",
    "GpuproverError",
    "Layout",
    "MemoryStats",
    "Order",
    "Permutation",
    "Status",
    "field_info",
    "library_path",
    "permutation_info",
    "two_adic_generator",
    "version",
    "version_number",
]

# ---------------------------------------------------------------------------
# Enumerations (values of include/gpuprover.h)


class Status(enum.IntEnum):
    """gp_status codes."""

    OK = 0
    INVALID_ARGUMENT = 1
    NULL_POINTER = 2
    UNSUPPORTED = 3
    NO_DEVICE = 4
    HOST_OUT_OF_MEMORY = 5
    DEVICE_OUT_OF_MEMORY = 6
    SIZE_OVERFLOW = 7
    FIELD_MISMATCH = 8
    CONTEXT_MISMATCH = 9
    SHAPE_MISMATCH = 10
    TWO_ADICITY = 11
    NON_CANONICAL = 12
    CUDA = 13
    INTERNAL = 14


class Field(enum.IntEnum):
    """Base fields. Goldilocks elements are 8 bytes, BabyBear and KoalaBear 4."""

    GOLDILOCKS = 1  # p = 2^64 - 2^32 + 1, generator 7, two-adicity 32
    BABYBEAR = 2  # p = 2^31 - 2^27 + 1, generator 31, two-adicity 27
    KOALABEAR = 3  # p = 2^31 - 2^24 + 1, generator 3, two-adicity 24


class Backend(enum.IntEnum):
    AUTO = 0  # CUDA if a usable GPU exists, else the CPU
    CPU = 1
    CUDA = 2


class Layout(enum.IntEnum):
    COL_MAJOR = 0  # element (r, c) at index c * rows + r (times ext_degree)
    ROW_MAJOR = 1  # element (r, c) at index r * cols + c (Plonky3's RowMajorMatrix)


class Order(enum.IntEnum):
    NATURAL = 0  # row i holds the value at index i
    BIT_REVERSED = 1  # row i holds the value at index bitreverse(i, log2(rows))


class Direction(enum.IntEnum):
    FORWARD = 0  # coefficients -> evaluations on shift * H
    INVERSE = 1  # evaluations on shift * H -> coefficients


class Permutation(enum.IntEnum):
    """Hash permutations for :meth:`Context.permute_batch`."""

    POSEIDON2_GOLDILOCKS_8 = 1
    POSEIDON2_GOLDILOCKS_12 = 2
    POSEIDON2_GOLDILOCKS_16 = 3
    POSEIDON2_GOLDILOCKS_HL_8 = 4
    POSEIDON2_BABYBEAR_16 = 5
    POSEIDON2_BABYBEAR_24 = 6
    POSEIDON2_KOALABEAR_16 = 7
    POSEIDON2_KOALABEAR_24 = 8
    RPO256 = 9
    RPX256 = 10
    POSEIDON_GOLDILOCKS_12 = 11
    TIP5 = 12
    KECCAK_F1600 = 13


FieldInfo = collections.namedtuple("FieldInfo", "modulus generator two_adicity")
MemoryStats = collections.namedtuple("MemoryStats", "buffer_bytes cache_bytes allocations")


class GpuproverError(Exception):
    """A failed gpuprover call.

    ``status`` is the :class:`Status` (or the raw int for an unknown code),
    ``message`` the library's message (gp_last_error, which names the
    function, the offending argument and its value), ``function`` the C
    function that failed.
    """

    def __init__(self, status, message, function=None):
        try:
            status = Status(status)
        except ValueError:
            pass
        self.status = status
        self.message = message
        self.function = function
        super().__init__("%s: %s" % (_status_name(status), message or function))


def _status_name(status):
    """The library's symbolic name of a status, e.g. "GP_ERR_SHAPE_MISMATCH"."""
    return _lib.gp_status_name(int(status)).decode()


# ---------------------------------------------------------------------------
# Loading the library


def _candidates():
    """Yields (path, strict) pairs to try, in order."""
    lib = os.environ.get("GPUPROVER_LIB")
    if lib:
        return [lib], "GPUPROVER_LIB=%s" % lib
    prefix = os.environ.get("GPUPROVER_DIR")
    if prefix:
        names = ["libgpuprover.so.0", "libgpuprover.so", "libgpuprover.dylib", "gpuprover.dll"]
        dirs = [os.path.join(prefix, d) for d in ("lib", "lib64")]
        dirs += sorted(glob.glob(os.path.join(prefix, "lib", "*-linux-gnu*")))
        dirs += [os.path.join(prefix, "bin"), prefix]
        found = [os.path.join(d, n) for d in dirs for n in names if os.path.isfile(os.path.join(d, n))]
        return found, "GPUPROVER_DIR=%s (searched %s)" % (prefix, ", ".join(dirs))
    found = []
    name = ctypes.util.find_library("gpuprover")
    if name:
        found.append(name)
    found += ["libgpuprover.so.0", "libgpuprover.so", "libgpuprover.dylib"]
    return found, "the standard library search (set GPUPROVER_LIB or GPUPROVER_DIR)"


def _load():
    paths, where = _candidates()
    errors = []
    for path in paths:
        try:
            return ctypes.CDLL(path), path
        except OSError as e:
            errors.append("%s: %s" % (path, e))
    raise OSError(
        "gpuprover: cannot load libgpuprover through %s%s"
        % (where, "".join("\n  " + e for e in errors) if errors else ": not found")
    )


_lib, library_path = _load()

_c_status = ctypes.c_int
_c_enum = ctypes.c_int
_u32, _u64, _vp = ctypes.c_uint32, ctypes.c_uint64, ctypes.c_void_p
_pvp = ctypes.POINTER(ctypes.c_void_p)


class _ContextOptions(ctypes.Structure):
    _fields_ = [
        ("struct_size", _u32),
        ("backend", _c_enum),
        ("devices", ctypes.POINTER(ctypes.c_int32)),
        ("num_devices", _u32),
        ("cpu_threads", _u32),
    ]


class _MemoryStats(ctypes.Structure):
    _fields_ = [
        ("struct_size", _u32),
        ("buffer_bytes", _u64),
        ("cache_bytes", _u64),
        ("allocations", _u64),
    ]


class _NttOptions(ctypes.Structure):
    _fields_ = [
        ("struct_size", _u32),
        ("direction", _c_enum),
        ("shift", _u64),
        ("input_order", _c_enum),
        ("output_order", _c_enum),
    ]


class _LdeOptions(ctypes.Structure):
    _fields_ = [
        ("struct_size", _u32),
        ("n", _u64),
        ("blowup", _u32),
        ("shift", _u64),
        ("input_shift", _u64),
        ("output_order", _c_enum),
        ("input_layout", _c_enum),
    ]


def _proto(name, restype, *argtypes):
    f = getattr(_lib, name)
    f.restype = restype
    f.argtypes = list(argtypes)


_proto("gp_version", ctypes.c_char_p)
_proto("gp_version_number", _u32)
_proto("gp_status_name", ctypes.c_char_p, _c_status)
_proto("gp_last_error", ctypes.c_char_p)
_proto("gp_field_element_size", _u32, _c_enum)
_proto("gp_field_info", _c_status, _c_enum, ctypes.POINTER(_u64), ctypes.POINTER(_u64), ctypes.POINTER(_u32))
_proto("gp_field_two_adic_generator", _c_status, _c_enum, _u32, ctypes.POINTER(_u64))
_proto("gp_context_options_init", None, ctypes.POINTER(_ContextOptions))
_proto("gp_context_create", _c_status, ctypes.POINTER(_ContextOptions), _pvp)
_proto("gp_context_destroy", None, _vp)
_proto("gp_context_backend", _c_enum, _vp)
_proto("gp_context_device_name", _c_status, _vp, ctypes.c_char_p, ctypes.c_size_t)
_proto("gp_context_memory_stats", _c_status, _vp, ctypes.POINTER(_MemoryStats))
_proto("gp_context_trim", _c_status, _vp)
_proto("gp_buffer_create", _c_status, _vp, _c_enum, _u32, _u64, _u64, _pvp)
_proto("gp_buffer_from_host", _c_status, _vp, _c_enum, _u32, _u64, _u64, _c_enum, _vp, _pvp)
_proto("gp_buffer_to_host", _c_status, _vp, _c_enum, _vp, _u64)
_proto("gp_buffer_destroy", None, _vp)
_proto("gp_buffer_rows", _u64, _vp)
_proto("gp_buffer_cols", _u64, _vp)
_proto("gp_buffer_field", _c_enum, _vp)
_proto("gp_buffer_ext_degree", _u32, _vp)
_proto("gp_buffer_size_bytes", _u64, _vp)
_proto("gp_ntt_options_init", None, ctypes.POINTER(_NttOptions))
_proto("gp_ntt_batch", _c_status, _vp, _vp, ctypes.POINTER(_NttOptions))
_proto("gp_lde_options_init", None, ctypes.POINTER(_LdeOptions))
_proto("gp_lde_batch", _c_status, _vp, _vp, ctypes.POINTER(_LdeOptions), _vp)
_proto("gp_lde_batch_host", _c_status, _vp, _c_enum, _u32, _vp, _u64, _u64, ctypes.POINTER(_LdeOptions), _vp)
_proto("gp_permutation_info", _c_status, _c_enum, ctypes.POINTER(_u32), ctypes.POINTER(_c_enum))
_proto("gp_permute_batch", _c_status, _vp, _c_enum, _vp, _u64)


def _check(function, status):
    """Raises GpuproverError for a failed call. Must run on the thread that
    made the call (the message is thread-local): it always does, since a
    Python thread is one OS thread."""
    if status != 0:
        msg = (_lib.gp_last_error() or b"").decode("utf-8", "replace")
        raise GpuproverError(status, msg, function)


def _error(function, status, fmt, *args):
    return GpuproverError(status, "%s: %s" % (function, fmt % args), function)


# ---------------------------------------------------------------------------
# Argument checks

_U64_MAX = (1 << 64) - 1
_U32_MAX = (1 << 32) - 1


def _uint(name, value, bound=_U64_MAX):
    """An int in [0, bound]; ctypes would silently wrap anything else."""
    v = operator.index(value)
    if v < 0 or v > bound:
        raise OverflowError("%s = %d is out of range [0, %d]" % (name, v, bound))
    return v


def _enum(cls, name, value):
    v = operator.index(value)
    if v < -(1 << 31) or v >= (1 << 31):
        raise OverflowError("%s = %d is out of range" % (name, v))
    return v


def _typecode(size):
    for tc in ("Q", "L") if size == 8 else ("I", "L", "H"):
        if array.array(tc).itemsize == size:
            return tc
    raise TypeError("no array typecode with %d-byte items" % size)


_TYPECODE = {8: _typecode(8), 4: _typecode(4)}
_INT_FORMATS = frozenset("bBhHiIlLqQnN")
_NATIVE_LITTLE = sys.byteorder == "little"


def _element_size(field):
    return int(_lib.gp_field_element_size(_enum(Field, "field", field)))


class _Host:
    """Host memory for one call: a pointer, its length in elements, and the
    objects that must stay alive (and the list to write back, if any)."""

    __slots__ = ("ptr", "count", "keep", "writeback", "array")

    def __init__(self, ptr, count, keep, writeback=None, arr=None):
        self.ptr, self.count, self.keep, self.writeback, self.array = ptr, count, keep, writeback, arr

    def finish(self):
        if self.writeback is not None:
            self.writeback[:] = self.array.tolist()


_EMPTY = (ctypes.c_uint64 * 1)()  # stands in for empty data: never pass NULL


def _host(function, what, data, elem_size, writable=False):
    """Gives C access to `data`: a C-contiguous buffer of elem_size-byte
    integers (or raw bytes), or a list of ints (copied; written back after the
    call when writable)."""
    esize = elem_size or 8
    try:
        mv = memoryview(data)
    except TypeError:
        mv = None
    if mv is None:
        if isinstance(data, (str, bytes, dict, set)) or not hasattr(data, "__iter__"):
            raise TypeError(
                "%s: %s must be a buffer of %d-byte unsigned integers or a list of ints, not %s"
                % (function, what, esize, type(data).__name__)
            )
        if writable and not isinstance(data, list):
            raise TypeError("%s: %s is modified in place: pass a list or a writable buffer, not %s"
                            % (function, what, type(data).__name__))
        arr = array.array(_TYPECODE[esize], data)
        h = _host(function, what, arr, elem_size, writable)
        if writable:
            h.writeback, h.array = data, arr
        return h
    with mv:
        if not mv.c_contiguous:
            raise ValueError("%s: %s must be C-contiguous" % (function, what))
        fmt = mv.format
        if fmt[:1] in ("@", "=", "<", ">", "!"):
            order, code = fmt[0], fmt[1:]
        else:
            order, code = "@", fmt
        raw = code in ("B", "b", "c") and mv.itemsize == 1
        if not raw:
            if code not in _INT_FORMATS or mv.itemsize != esize:
                raise TypeError(
                    "%s: %s holds %r items of %d bytes; the field's elements are %d-byte unsigned integers "
                    "(use array.array(%r) or a numpy uint%d array)"
                    % (function, what, fmt, mv.itemsize, esize, _TYPECODE[esize], 8 * esize)
                )
            if (order in ">!" and _NATIVE_LITTLE) or (order == "<" and not _NATIVE_LITTLE):
                raise TypeError("%s: %s is not in native byte order" % (function, what))
        if mv.nbytes % esize:
            raise ValueError("%s: %s has %d bytes, not a multiple of the element size %d"
                             % (function, what, mv.nbytes, esize))
        if writable and mv.readonly:
            raise TypeError("%s: %s is modified in place but is read-only" % (function, what))
        nbytes, count = mv.nbytes, mv.nbytes // esize
    if nbytes == 0:
        return _Host(ctypes.addressof(_EMPTY), 0, None)
    try:
        cbuf = (ctypes.c_char * nbytes).from_buffer(data)
    except TypeError:  # read-only input: copy it
        cbuf = (ctypes.c_char * nbytes).from_buffer_copy(data)
    return _Host(ctypes.addressof(cbuf), count, cbuf)


def _element_count(function, rows, cols, ext):
    n = rows * cols * ext
    if n > _U64_MAX:
        raise _error(function, Status.SIZE_OVERFLOW, "rows = %d x cols = %d x ext_degree = %d overflows 64 bits",
                     rows, cols, ext)
    return n


def _check_len(function, what, host, rows, cols, ext):
    want = _element_count(function, rows, cols, ext)
    if host.count != want:
        raise _error(function, Status.SHAPE_MISMATCH,
                     "%s has %d elements; rows = %d x cols = %d x ext_degree = %d needs %d",
                     what, host.count, rows, cols, ext, want)


# ---------------------------------------------------------------------------
# Module functions


def version():
    """The loaded library's version string, e.g. "0.1.0"."""
    return _lib.gp_version().decode()


def version_number():
    """The loaded library's version as major * 10000 + minor * 100 + patch."""
    return int(_lib.gp_version_number())


def field_info(field):
    """The field's modulus, multiplicative generator and two-adicity."""
    m, g, a = _u64(), _u64(), _u32()
    _check("gp_field_info", _lib.gp_field_info(_enum(Field, "field", field), ctypes.byref(m), ctypes.byref(g),
                                               ctypes.byref(a)))
    return FieldInfo(m.value, g.value, a.value)


def two_adic_generator(field, log_n):
    """The primitive 2^log_n-th root of unity the library uses."""
    r = _u64()
    _check("gp_field_two_adic_generator",
           _lib.gp_field_two_adic_generator(_enum(Field, "field", field), _uint("log_n", log_n, _U32_MAX),
                                            ctypes.byref(r)))
    return r.value


def permutation_info(perm):
    """(width, field) of a permutation: state width in elements (64-bit
    lanes for Keccak) and its Field, or None for Keccak's raw lanes."""
    w, f = _u32(), _c_enum()
    _check("gp_permutation_info",
           _lib.gp_permutation_info(_enum(Permutation, "perm", perm), ctypes.byref(w), ctypes.byref(f)))
    return w.value, (Field(f.value) if f.value else None)


def _opt_enum(cls, value):
    try:
        return cls(value)
    except ValueError:
        return value


# ---------------------------------------------------------------------------
# Context and Buffer


class Context:
    """A gpuprover context: a backend (CUDA GPU or CPU) and its caches.

    ``Context(backend=Backend.AUTO, devices=None, cpu_threads=0)``; AUTO
    falls back to the CPU without a usable GPU, CUDA raises GpuproverError
    (Status.NO_DEVICE). Use it as a context manager or call close(); closing
    it also closes its open buffers.
    """

    def __init__(self, backend=Backend.AUTO, devices=None, cpu_threads=0):
        self._lib = _lib
        self._handle = None
        self._lock = threading.RLock()
        self._buffers = weakref.WeakSet()
        opts = _ContextOptions()
        _lib.gp_context_options_init(ctypes.byref(opts))
        opts.backend = _enum(Backend, "backend", backend)
        opts.cpu_threads = _uint("cpu_threads", cpu_threads, _U32_MAX)
        if devices:
            devs = [int(d) for d in devices]
            arr = (ctypes.c_int32 * len(devs))(*devs)
            opts.devices = ctypes.cast(arr, ctypes.POINTER(ctypes.c_int32))
            opts.num_devices = len(devs)
        h = ctypes.c_void_p()
        _check("gp_context_create", _lib.gp_context_create(ctypes.byref(opts), ctypes.byref(h)))
        self._handle = h.value

    # -- lifetime

    def close(self):
        """Destroys the context and its open buffers. Idempotent."""
        with self._lock:
            if self._handle is None:
                return
            for b in list(self._buffers):
                b._release()
            self._lib.gp_context_destroy(self._handle)
            self._handle = None

    @property
    def closed(self):
        return self._handle is None

    def __enter__(self):
        return self

    def __exit__(self, *exc):
        self.close()

    def __del__(self):
        try:
            self.close()
        except Exception:
            pass

    def __repr__(self):
        if self._handle is None:
            return "<gpuprover.Context closed>"
        return "<gpuprover.Context %s %r>" % (self.backend.name.lower(), self.device_name)

    def _h(self):
        if self._handle is None:
            raise ValueError("operation on a closed gpuprover.Context")
        return self._handle

    def _own(self, function, buf, what):
        if not isinstance(buf, Buffer):
            raise TypeError("%s: %s must be a gpuprover.Buffer, not %s" % (function, what, type(buf).__name__))
        if buf._ctx is not self:
            raise _error(function, Status.CONTEXT_MISMATCH, "%s belongs to a different context", what)
        return buf._h()

    # -- queries

    @property
    def backend(self):
        """Backend.CPU or Backend.CUDA."""
        with self._lock:
            return Backend(self._lib.gp_context_backend(self._h()))

    @property
    def device_name(self):
        """E.g. "NVIDIA H100 80GB HBM3" or "CPU, 16 threads"."""
        with self._lock:
            name = ctypes.create_string_buffer(256)
            _check("gp_context_device_name", self._lib.gp_context_device_name(self._h(), name, len(name)))
            return name.value.decode("utf-8", "replace")

    def memory_stats(self):
        """MemoryStats(buffer_bytes, cache_bytes, allocations)."""
        with self._lock:
            s = _MemoryStats()
            s.struct_size = ctypes.sizeof(s)
            _check("gp_context_memory_stats", self._lib.gp_context_memory_stats(self._h(), ctypes.byref(s)))
            return MemoryStats(s.buffer_bytes, s.cache_bytes, s.allocations)

    def trim(self):
        """Releases cached twiddle tables and scratch memory."""
        with self._lock:
            _check("gp_context_trim", self._lib.gp_context_trim(self._h()))

    # -- buffers

    def _wrap(self, handle):
        b = Buffer.__new__(Buffer)
        b._init(self, handle)
        self._buffers.add(b)
        return b

    def buffer(self, field, rows, cols, ext_degree=1):
        """A zero-filled rows x cols buffer of the degree-ext_degree extension."""
        with self._lock:
            h = ctypes.c_void_p()
            _check("gp_buffer_create",
                   self._lib.gp_buffer_create(self._h(), _enum(Field, "field", field),
                                              _uint("ext_degree", ext_degree, _U32_MAX), _uint("rows", rows),
                                              _uint("cols", cols), ctypes.byref(h)))
            return self._wrap(h.value)

    def buffer_from_host(self, field, data, rows, cols, ext_degree=1, layout=Layout.COL_MAJOR):
        """A buffer holding rows x cols elements of `data` (in `layout`):
        exactly rows * cols * ext_degree base-field values."""
        fn = "gp_buffer_from_host"
        field, ext = _enum(Field, "field", field), _uint("ext_degree", ext_degree, _U32_MAX)
        rows, cols = _uint("rows", rows), _uint("cols", cols)
        host = _host(fn, "data", data, _element_size(field))
        _check_len(fn, "data", host, rows, cols, ext)
        with self._lock:
            h = ctypes.c_void_p()
            _check(fn, self._lib.gp_buffer_from_host(self._h(), field, ext, rows, cols,
                                                     _enum(Layout, "layout", layout), host.ptr, ctypes.byref(h)))
            return self._wrap(h.value)

    # -- operations

    @staticmethod
    def _lde_options(n, blowup, shift, input_shift, output_order, input_layout):
        o = _LdeOptions()
        _lib.gp_lde_options_init(ctypes.byref(o))
        o.n = _uint("n", n)
        o.blowup = _uint("blowup", blowup, _U32_MAX)
        o.shift = _uint("shift", shift)
        o.input_shift = _uint("input_shift", input_shift)
        o.output_order = _enum(Order, "output_order", output_order)
        o.input_layout = _enum(Layout, "input_layout", input_layout)
        return o

    def _new_output(self, function, field, ext, rows, n, blowup, cols):
        if not (1 <= blowup <= 32 and blowup & (blowup - 1) == 0):
            raise _error(function, Status.INVALID_ARGUMENT, "blowup = %d is not a power of two in [1, 32]", blowup)
        return self.buffer(field, (n or rows) * blowup, cols, ext)

    def lde(self, input, output=None, *, n=0, blowup=2, shift=0, input_shift=0, output_order=Order.NATURAL):
        """Coset LDE of every column of the buffer `input` into `output`
        (n * blowup rows, input's columns, field and degree), which is
        created when None. Returns output.

        n: trace length (0: input.rows; missing rows are zero); blowup: power
        of two in [1, 32]; shift: output coset shift (0: the field's
        generator); input_shift: shift of the input domain (0: 1);
        output_order: Order.BIT_REVERSED for what Plonky3 commits.
        """
        fn = "gp_lde_batch"
        opts = self._lde_options(n, blowup, shift, input_shift, output_order, Layout.COL_MAJOR)
        with self._lock:
            hin = self._own(fn, input, "input")
            created = None
            if output is None:
                output = created = self._new_output(fn, input.field, input.ext_degree, input.rows, opts.n, opts.blowup,
                                                    input.cols)
            try:
                hout = self._own(fn, output, "output")
                _check(fn, self._lib.gp_lde_batch(self._h(), hin, ctypes.byref(opts), hout))
            except BaseException:
                if created is not None:
                    created.close()
                raise
            return output

    def lde_host(self, field, data, rows, cols, output=None, *, ext_degree=1, n=0, blowup=2, shift=0, input_shift=0,
                 output_order=Order.NATURAL, input_layout=Layout.COL_MAJOR):
        """Like lde(), with the input in host memory: `data` holds rows x cols
        elements of degree ext_degree in input_layout (exactly
        rows * cols * ext_degree values). Returns output (created when None).
        """
        fn = "gp_lde_batch_host"
        field, ext = _enum(Field, "field", field), _uint("ext_degree", ext_degree, _U32_MAX)
        rows, cols = _uint("rows", rows), _uint("cols", cols)
        opts = self._lde_options(n, blowup, shift, input_shift, output_order, input_layout)
        host = _host(fn, "data", data, _element_size(field))
        _check_len(fn, "data", host, rows, cols, ext)
        with self._lock:
            self._h()
            created = None
            if output is None:
                output = created = self._new_output(fn, field, ext, rows, opts.n, opts.blowup, cols)
            try:
                hout = self._own(fn, output, "output")
                _check(fn, self._lib.gp_lde_batch_host(self._h(), field, ext, host.ptr, rows, cols, ctypes.byref(opts),
                                                       hout))
            except BaseException:
                if created is not None:
                    created.close()
                raise
            return output

    def ntt(self, buf, *, direction=Direction.FORWARD, shift=0, input_order=Order.NATURAL,
            output_order=Order.NATURAL):
        """Transforms every column of `buf` in place (rows: a power of two).
        Forward: coefficients -> evaluations on shift * H; inverse:
        evaluations on shift * H -> coefficients. shift 0 means 1. Returns buf.
        """
        fn = "gp_ntt_batch"
        o = _NttOptions()
        _lib.gp_ntt_options_init(ctypes.byref(o))
        o.direction = _enum(Direction, "direction", direction)
        o.shift = _uint("shift", shift)
        o.input_order = _enum(Order, "input_order", input_order)
        o.output_order = _enum(Order, "output_order", output_order)
        with self._lock:
            h = self._own(fn, buf, "buf")
            _check(fn, self._lib.gp_ntt_batch(self._h(), h, ctypes.byref(o)))
            return buf

    def permute_batch(self, perm, states):
        """Applies `perm` in place to the states stored back to back in
        `states` (a writable buffer or a list, updated in place): 8-byte
        values for Goldilocks permutations and Keccak-f[1600] lanes, 4-byte
        values for BabyBear and KoalaBear. Its length must be a multiple of
        the permutation's width. Returns states."""
        fn = "gp_permute_batch"
        width, field = permutation_info(perm)
        host = _host(fn, "states", states, _element_size(field) if field else 8, writable=True)
        if width == 0 or host.count % width:
            raise _error(fn, Status.SHAPE_MISMATCH, "states has %d elements, not a multiple of the width %d",
                         host.count, width)
        with self._lock:
            _check(fn, self._lib.gp_permute_batch(self._h(), int(perm), host.ptr, host.count // width))
        host.finish()
        return states


class Buffer:
    """A rows x cols matrix of field elements owned by the library (device
    memory on the CUDA backend). Created by Context.buffer(),
    Context.buffer_from_host(), Context.lde() and Context.lde_host(). Use it
    as a context manager or call close()."""

    def __init__(self, *args, **kwargs):
        raise TypeError("create buffers with Context.buffer() or Context.buffer_from_host()")

    def _init(self, ctx, handle):
        self._ctx = ctx
        self._lib = ctx._lib
        self._handle = handle
        lib = ctx._lib
        self.rows = int(lib.gp_buffer_rows(handle))
        self.cols = int(lib.gp_buffer_cols(handle))
        self.field = _opt_enum(Field, lib.gp_buffer_field(handle))
        self.ext_degree = int(lib.gp_buffer_ext_degree(handle))
        self.size_bytes = int(lib.gp_buffer_size_bytes(handle))

    @property
    def context(self):
        return self._ctx

    @property
    def size(self):
        """Number of base-field values: rows * cols * ext_degree."""
        return self.rows * self.cols * self.ext_degree

    @property
    def closed(self):
        return self._handle is None or self._ctx._handle is None

    def _h(self):
        if self.closed:
            raise ValueError("operation on a closed gpuprover.Buffer")
        return self._handle

    def _release(self):
        # Context lock held.
        if self._handle is not None and self._ctx._handle is not None:
            self._lib.gp_buffer_destroy(self._handle)
            self._ctx._buffers.discard(self)
        self._handle = None

    def close(self):
        """Destroys the buffer. Idempotent; a no-op after its context closed."""
        with self._ctx._lock:
            self._release()

    def __enter__(self):
        return self

    def __exit__(self, *exc):
        self.close()

    def __del__(self):
        try:
            if getattr(self, "_handle", None) is not None:
                self.close()
        except Exception:
            pass

    def __repr__(self):
        name = self.field.name.lower() if isinstance(self.field, Field) else self.field
        ext = "^%d" % self.ext_degree if self.ext_degree != 1 else ""
        return "<gpuprover.Buffer %s%s %dx%d%s>" % (name, ext, self.rows, self.cols, " closed" if self.closed else "")

    def to_host(self, layout=Layout.COL_MAJOR, out=None):
        """Copies the buffer to host memory in `layout`. Returns a new
        array.array ('Q' for Goldilocks, 'I' for BabyBear and KoalaBear) of
        rows * cols * ext_degree values, or fills and returns `out`, a
        writable buffer of at least that many elements."""
        fn = "gp_buffer_to_host"
        esize = _element_size(self.field)
        if out is None:
            out = array.array(_TYPECODE[esize], bytes(self.size * esize))
        elif isinstance(out, list):
            raise TypeError("%s: out must be a writable buffer, not a list" % fn)
        host = _host(fn, "out", out, esize, writable=True)
        if host.count < self.size:
            raise _error(fn, Status.SHAPE_MISMATCH, "out has %d elements; the %dx%d buffer of degree %d needs %d",
                         host.count, self.rows, self.cols, self.ext_degree, self.size)
        with self._ctx._lock:
            _check(fn, self._lib.gp_buffer_to_host(self._h(), _enum(Layout, "layout", layout), host.ptr,
                                                   host.count * esize))
        return out

    def tolist(self, layout=Layout.COL_MAJOR):
        """The buffer's values as a list of ints, in `layout`."""
        return self.to_host(layout).tolist()
