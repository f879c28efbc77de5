# SPDX-License-Identifier: MIT OR Apache-2.0
"""Python binding of gpuprover (ctypes, standard library only).

gpuprover computes the data-parallel parts of a STARK commitment (batched
coset low-degree extensions, NTTs, hash permutations, Merkle trees, the
FRI commit phase, the constraint commitment, out-of-domain evaluation and the
DEEP composition) on a CUDA GPU or on the CPU, with bit-identical results on
both backends.

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
            with ctx.merkle_commit([lde]) as tree:            # Plonky3's Poseidon2 MMCS
                root = tree.root()                            # 32 bytes

Every failing library call raises :class:`GpuproverError` with the status and
the library's message, which names the Python method and its parameters; an
opening or FRI query that does not verify raises :class:`VerifyError` (a
GpuproverError with Status.VERIFY_FAILED); a method of a closed object raises
:class:`ClosedError` (a ValueError). A :class:`Context` may be shared between
threads (its calls are serialized by a lock; :meth:`Context.cancel` stops the
call in flight from any thread); use one context per thread for parallelism.
Buffers export and import DLPack tensors (``Buffer.__dlpack__``,
:meth:`Context.from_dlpack`).
"""

import array
import collections
import ctypes
import ctypes.util
import dataclasses
import enum
import functools
import glob
import operator
import os
import re
import sys
import threading
import weakref

__all__ = [
    "Backend",
    "Buffer",
    "CallStats",
    "ClosedError",
    "CommitMatrix",
    "CompositionSplit",
    "ConstraintOptions",
    "Context",
    "Counters",
    "DEVICES_ALL",
    "DeviceInfo",
    "Direction",
    "Extension",
    "Field",
    "FieldInfo",
    "Fri",
    "FriFold",
    "FriLeaf",
    "FriOptions",
    "GpuproverError",
    "Keep",
    "Layout",
    "LdeInput",
    "MatrixDims",
    "MemoryStats",
    "MerkleKind",
    "MerkleOpening",
    "MerkleOptions",
    "MerkleTree",
    "OodOptions",
    "Order",
    "Permutation",
    "Priority",
    "Status",
    "VerifyError",
    "field_info",
    "fri_verify",
    "library_path",
    "merkle_verify",
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
    VERIFY_FAILED = 15
    CANCELLED = 16
    # The server of a remote context cannot be reached, refused the session
    # (version, token, quota) or went away; the message says which.
    REMOTE = 17


class Field(enum.IntEnum):
    """Base fields. Goldilocks elements are 8 bytes, BabyBear and KoalaBear 4."""

    GOLDILOCKS = 1  # p = 2^64 - 2^32 + 1, generator 7, two-adicity 32
    BABYBEAR = 2  # p = 2^31 - 2^27 + 1, generator 31, two-adicity 27
    KOALABEAR = 3  # p = 2^31 - 2^24 + 1, generator 3, two-adicity 24


class Backend(enum.IntEnum):
    # The server named by `endpoint` or GPUPROVER_SERVER when one is
    # configured and reachable; otherwise CUDA if a usable GPU exists, else
    # the CPU (Context.remote_fallback says why a server was not used).
    AUTO = 0
    CPU = 1
    CUDA = 2
    # A gpuprover-server process, at `endpoint` or GPUPROVER_SERVER: a unix
    # socket path ("/tmp/gpu-prover.sock", "unix:/path"), "HOST:PORT", or
    # several separated by commas. Same bytes as in process.
    REMOTE = 3


class Priority(enum.IntEnum):
    """Priority of a remote context's jobs in the server's queue
    (gp_priority): higher runs first; within a priority, first come first
    served. A waiting job gains one level per ``--aging-ms`` of waiting
    (default 2000 ms). Ignored in process."""

    NORMAL = 0
    LOW = 1
    HIGH = 2


class Layout(enum.IntEnum):
    COL_MAJOR = 0  # element (r, c) at index c * rows + r (times ext_degree)
    ROW_MAJOR = 1  # element (r, c) at index r * cols + c (Plonky3's RowMajorMatrix)


class LdeInput(enum.IntEnum):
    EVALUATIONS = 0  # the values on the input domain (default)
    COEFFICIENTS = 1  # the polynomial's coefficients, lowest degree first (basefold's encoding)


class Order(enum.IntEnum):
    NATURAL = 0  # row i holds the value at index i
    BIT_REVERSED = 1  # row i holds the value at index bitreverse(i, log2(rows))


class Direction(enum.IntEnum):
    FORWARD = 0  # coefficients -> evaluations on shift * H
    INVERSE = 1  # evaluations on shift * H -> coefficients


class Permutation(enum.IntEnum):
    """Hash permutations for :meth:`Context.permute_batch`, and the hash
    functions BLAKE3, SHA3_256 and BLAKE3_192 (no permutation: permute_batch
    refuses them with Status.UNSUPPORTED) that name the hash of
    MerkleKind.MIDEN_LMCS and MerkleKind.WINTERFELL."""

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
    POSEIDON2_BABYBEAR_32 = 14
    POSEIDON2_KOALABEAR_32 = 15
    POSEIDON2_BABYBEAR_HL_16 = 16
    POSEIDON2_BABYBEAR_HL_24 = 17
    POSEIDON2_GOLDILOCKS_HL_12 = 18
    BLAKE3 = 19  # a hash (32-byte output), not a permutation; permutation_info: width 16, no field
    SHA3_256 = 20  # a hash (winterfell's Sha3_256); permutation_info: width 25 (Keccak-f lanes), no field
    BLAKE3_192 = 21  # a hash (winterfell's Blake3_192: BLAKE3's first 24 bytes); width 16, no field
    RP64_256 = 22  # winterfell's Rp64_256 permutation (Rescue-XLIX over Goldilocks, width 12; not RPO256)
    POSEIDON2_KOALABEAR_16_SP1 = 23  # SP1 v6's KoalaBear instance (Plonky3 0.4-succinct's internal layer)
    POSEIDON2_BABYBEAR_16_SP1 = 24  # SP1 v4/v5's BabyBear instance (SP1's constants)


_HASHES = (Permutation.BLAKE3, Permutation.SHA3_256, Permutation.BLAKE3_192)


class MerkleKind(enum.IntEnum):
    """Merkle hash profiles (gp_merkle_kind); the header spells out the bytes
    each one hashes."""

    FIELD_SPONGE = 1  # Plonky3 MerkleTreeMmcs over a field hash (PaddingFreeSponge + TruncatedPermutation)
    MIDEN = 2  # miden-crypto / winterfell, RPO256 or RPX256 (v0.21 and later); one height
    MIDEN_V0_11 = 3  # miden-crypto's layout of v0.11 to v0.20
    MIDEN_V0_10 = 4  # ... with the padding of v0.10 and before
    KECCAK_PLONKY3 = 5  # Plonky3 MerkleTreeMmcs over Keccak-256 of the rows' bytes
    KECCAK_BE = 6  # lambdaworks / Lambda VM Keccak-256 over big-endian Goldilocks
    KECCAK_U64 = 7  # Plonky3 MerkleTreeMmcs over the Keccak-f sponge on 64-bit lanes (any field, mixed heights)
    TRITON = 8  # Triton VM / twenty-first Tip5 tree (hash_varlen leaves, hash_pair nodes; one height)
    # twenty-first's tree of digests (Triton's FRI rounds): leaf = the row's elements as the digest (at most 5
    # Goldilocks elements, zero-filled), node = Tip5 hash_pair; one height
    TRITON_DIGEST = 9
    # Miden's lifted MMCS (miden-vm lifted-stark) over Goldilocks: power-of-two heights in ascending order, leaf i
    # absorbing row (i mod h) of every matrix of height h; RPO256, RPX256, Poseidon2 Goldilocks 12, Keccak-f[1600]
    # or BLAKE3 (Miden's default: leaf = chained BLAKE3 of the rows' bytes, node = BLAKE3(left || right))
    MIDEN_LMCS = 10
    # winter-crypto's MerkleTree<H> (winterfell 0.13) over Goldilocks: leaf = H::hash_elements(row), node =
    # H::merge; one power-of-two height >= 2; perm BLAKE3 (Blake3_256, the default), BLAKE3_192 (24-byte
    # digests), SHA3_256 or RP64_256 (4 Goldilocks elements); digests as winterfell serializes them
    WINTERFELL = 11


class Keep(enum.IntEnum):
    """Where Context.commit_host leaves the LDE it committed (gp_keep)."""

    DEVICE = 0  # one new Buffer per matrix, returned; the tree's openings read them
    HOST = 1  # written to each matrix's lde_host (column-major); the tree's openings read it there
    NONE = 2  # nowhere: the tree's openings run the LDE again over the trace (each matrix's data)


class FriFold(enum.IntEnum):
    """How FRI combines a group of siblings with the challenge."""

    HALVED = 0  # Plonky3, winterfell: (f(x) + f(-x))/2 + beta (f(x) - f(-x))/(2x) for arity 2
    UNHALVED = 1  # Lambda VM: the same without the 1/arity factor


class FriLeaf(enum.IntEnum):
    """What one leaf of a FRI layer's tree holds (gp_fri_leaf)."""

    GROUP = 0  # the group of `arity` values one fold combines
    # one value per leaf (Triton VM: arity 2, Order.NATURAL, shift 7, Extension.TRITON, MerkleKind.TRITON_DIGEST);
    # an opening holds, per layer, the group's values followed by one path per member
    ELEMENT = 1


class Extension(enum.IntEnum):
    """Which extension of the field a degree-D element belongs to
    (gp_extension): stored alike, multiplied differently."""

    # Plonky3's: Goldilocks D = 2 with X^2 = 7, D = 3 with X^3 = X + 1; BabyBear D = 4 with X^4 = 11;
    # KoalaBear D = 4 with X^4 = 3
    PLONKY3 = 0
    TRITON = 1  # Triton VM's XFieldElement: Goldilocks D = 3 with X^3 = X - 1 (Goldilocks only, D = 3)


class CompositionSplit(enum.IntEnum):
    """How the composition polynomial is cut into segments (gp_composition_split)."""

    PLONKY3 = 0  # segment i interpolates rows i, i + D, ... on shift * w^i * <w^D>
    WINTERFELL = 1  # h(x) = sum_i x^(i N) h_i(x); segment i holds coefficients i N .. (i + 1) N - 1
    TRITON = 2  # Triton VM: h(x) = sum_i x^i h_i(x^D); segment i holds coefficients i, i + D, i + 2D, ...


FieldInfo = collections.namedtuple("FieldInfo", "modulus generator two_adicity")
MatrixDims = collections.namedtuple("MatrixDims", "rows cols ext_degree")
MatrixDims.__doc__ = "The shape of one committed matrix, for merkle_verify (gp_matrix_dims)."
CommitMatrix = collections.namedtuple("CommitMatrix", "data rows cols ext_degree lde_host", defaults=(1, None))
CommitMatrix.__doc__ = """One trace matrix of Context.commit_host (gp_commit_matrix): `data` holds
rows x cols elements of degree ext_degree in the call's input_layout
(exactly rows * cols * ext_degree values, as lde_host takes them); rows is a
power of two. `lde_host` (Keep.HOST only, else None) is a writable buffer
(or a list) of at least rows * blowup * cols * ext_degree elements that
receives the matrix's LDE column-major, as Buffer.to_host(Layout.COL_MAJOR)
writes it. A plain (data, rows, cols[, ext_degree[, lde_host]]) tuple works
too."""
MerkleOpening = collections.namedtuple("MerkleOpening", "index rows path")
MerkleOpening.__doc__ = """One opened leaf (MerkleTree.open): the opened row of every matrix in commit
order as an array.array of base elements ('Q' for Goldilocks, 'I' for
BabyBear and KoalaBear), and the path (bytes): the sibling digests from the
leaf layer up to the layer below the cap."""
MemoryStats = collections.namedtuple("MemoryStats", "buffer_bytes cache_bytes allocations evictions")
DeviceInfo = collections.namedtuple("DeviceInfo",
                                    "ordinal name buffer_bytes cache_bytes allocations free_bytes total_bytes")
DeviceInfo.__doc__ = """One device of a context (gp_device_info, Context.device_info): the CUDA
device ordinal (-1 for a share of the CPU), its description (as
Context.device_name gives it), the bytes of buffers, trees and FRI layers
the context holds on it, the bytes of its caches, the persistent
allocations made on it, and the device memory free now and in all
(cudaMemGetInfo; 0 on the CPU)."""

# A `devices` entry of Context meaning every visible GPU (as the only one).
DEVICES_ALL = -1
Counters = collections.namedtuple("Counters", "calls failed_calls call_ns bytes_to_device bytes_to_host device_ns")
Counters.__doc__ = """A context's counters since it was created or reset_counters() (gp_counters):
calls made on it (every entry point given it or one of its objects) and those
that failed, their wall time in nanoseconds, bytes copied host to device and
device to host, and the device time of their GPU work (the last three 0 on
the CPU backend)."""
CallStats = collections.namedtuple("CallStats", "calls failed_calls call_ns")
CallStats.__doc__ = "One entry point's calls, failures and wall time in nanoseconds (gp_call_stats)."


class GpuproverError(Exception):
    """A failed gpuprover call.

    ``status`` is the :class:`Status` (or the raw int for an unknown code);
    ``message`` says what failed in this binding's terms: the Python method
    (``method``, e.g. "Context.lde_host"), then the library's message with
    the arguments named as the Python parameters ("blowup = 3 is not a power
    of two in [1, 32]", "data[5] = ... is not a canonical Goldilocks
    element"); ``function`` is the C function that failed and
    ``library_message`` its own message (gp_last_error), or None for an
    error the binding found before calling it. ``str()`` gives
    "STATUS: message (function)".
    """

    def __init__(self, status, message, function=None, method=None, library_message=None):
        try:
            status = Status(status)
        except ValueError:
            pass
        self.status = status
        self.message = message
        self.function = function
        self.method = method
        self.library_message = library_message
        text = message or function
        if function and message and function not in message:
            text = "%s (%s)" % (message, function)
        super().__init__("%s: %s" % (_status_name(status), text))


class VerifyError(GpuproverError):
    """An opening or FRI query that does not verify (Status.VERIFY_FAILED),
    as merkle_verify, fri_verify and the verify methods raise it. Malformed
    arguments raise a plain GpuproverError instead."""


class ClosedError(ValueError):
    """A method of a closed Context, Buffer, MerkleTree or Fri (or of one
    whose Context was closed), or a closed Buffer given as an argument. The
    message names the method and the object, e.g. "Buffer.to_host: the Buffer
    is closed"."""


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
        # Appended in 0.1.0 (the remote backend).
        ("endpoint", ctypes.c_char_p),
        ("priority", _c_enum),
        ("force_cpu", _u32),
        ("token_file", ctypes.c_char_p),
    ]


class _MemoryStats(ctypes.Structure):
    _fields_ = [
        ("struct_size", _u32),
        ("buffer_bytes", _u64),
        ("cache_bytes", _u64),
        ("allocations", _u64),
        ("evictions", _u64),
    ]


class _NttOptions(ctypes.Structure):
    _fields_ = [
        ("struct_size", _u32),
        ("direction", _c_enum),
        ("shift", _u64),
        ("input_order", _c_enum),
        ("output_order", _c_enum),
        ("root", _u64),
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
        ("randomizers", ctypes.c_void_p),
        ("randomizer_count", _u64),
        ("root", _u64),
        ("input", _c_enum),
    ]


class _MerkleOptions(ctypes.Structure):
    _fields_ = [
        ("struct_size", _u32),
        ("kind", _c_enum),
        ("perm", _c_enum),
        ("digest", _u32),
        ("rate", _u32),
        ("cap_height", _u32),
        ("compress_perm", _c_enum),
        ("leaf_rows", _u32),
    ]


class _MatrixDims(ctypes.Structure):
    _fields_ = [("rows", _u64), ("cols", _u32), ("ext_degree", _u32)]


class _CommitMatrix(ctypes.Structure):
    _fields_ = [
        ("data", _vp),
        ("rows", _u64),
        ("cols", _u64),
        ("ext_degree", _u32),
        ("lde_host", _vp),
        ("lde_host_bytes", _u64),
    ]


class _CommitOptions(ctypes.Structure):
    _fields_ = [
        ("struct_size", _u32),
        ("lde", ctypes.POINTER(_LdeOptions)),
        ("merkle", ctypes.POINTER(_MerkleOptions)),
        ("keep", _c_enum),
        ("device_budget", _u64),
        ("lde_into", ctypes.POINTER(ctypes.c_void_p)),
    ]


class _FriOptions(ctypes.Structure):
    _fields_ = [
        ("struct_size", _u32),
        ("arity", _u32),
        ("final_size", _u64),
        ("order", _c_enum),
        ("shift", _u64),
        ("fold", _c_enum),
        ("merkle", _MerkleOptions),
        ("extension", _c_enum),
        ("leaf", _c_enum),
    ]


class _ConstraintOptions(ctypes.Structure):
    _fields_ = [
        ("struct_size", _u32),
        ("split", _c_enum),
        ("segments", _u32),
        ("blowup", _u32),
        ("shift", _u64),
        ("output_order", _c_enum),
        ("merkle", _MerkleOptions),
    ]


class _OodOptions(ctypes.Structure):
    _fields_ = [
        ("struct_size", _u32),
        ("shift", _u64),
        ("order", _c_enum),
        ("degree_bound", _u64),
        ("challenge_degree", _u32),
        ("extension", _c_enum),
    ]


class _DeviceInfo(ctypes.Structure):
    _fields_ = [
        ("struct_size", _u32),
        ("ordinal", ctypes.c_int32),
        ("name", ctypes.c_char * 128),
        ("buffer_bytes", _u64),
        ("cache_bytes", _u64),
        ("allocations", _u64),
        ("free_bytes", _u64),
        ("total_bytes", _u64),
    ]


class _Counters(ctypes.Structure):
    _fields_ = [
        ("struct_size", _u32),
        ("calls", _u64),
        ("failed_calls", _u64),
        ("call_ns", _u64),
        ("bytes_to_device", _u64),
        ("bytes_to_host", _u64),
        ("device_ns", _u64),
    ]


class _CallStats(ctypes.Structure):
    _fields_ = [("name", ctypes.c_char_p), ("calls", _u64), ("failed_calls", _u64), ("call_ns", _u64)]


# DLPack 0.6 (dlpack/dlpack.h)
class _DLDevice(ctypes.Structure):
    _fields_ = [("device_type", ctypes.c_int), ("device_id", ctypes.c_int)]


class _DLDataType(ctypes.Structure):
    _fields_ = [("code", ctypes.c_uint8), ("bits", ctypes.c_uint8), ("lanes", ctypes.c_uint16)]


class _DLTensor(ctypes.Structure):
    _fields_ = [
        ("data", _vp),
        ("device", _DLDevice),
        ("ndim", ctypes.c_int),
        ("dtype", _DLDataType),
        ("shape", ctypes.POINTER(ctypes.c_int64)),
        ("strides", ctypes.POINTER(ctypes.c_int64)),
        ("byte_offset", _u64),
    ]


class _DLManagedTensor(ctypes.Structure):
    pass


# void (*deleter)(DLManagedTensor *self), with the tensor as an address.
_DL_DELETER = ctypes.CFUNCTYPE(None, _vp)
_DLManagedTensor._fields_ = [("dl_tensor", _DLTensor), ("manager_ctx", _vp), ("deleter", _DL_DELETER)]

# gp_status (*)(void *user, uint32_t layer, const void *cap, uint64_t cap_size, void *beta, uint64_t beta_size)
_CHALLENGE_FN = ctypes.CFUNCTYPE(_c_status, _vp, _u32, _vp, _u64, _vp, _u64)
# void (*)(void *user, const char *stage, uint64_t done, uint64_t total)
_PROGRESS_FN = ctypes.CFUNCTYPE(None, _vp, ctypes.c_char_p, _u64, _u64)
# void (*)(void *user, const char *line)
_LOG_FN = ctypes.CFUNCTYPE(None, _vp, ctypes.c_char_p)


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
_proto("gp_context_remote_fallback", ctypes.c_char_p, _vp)
_proto("gp_context_cpu_fallback", ctypes.c_char_p, _vp)
_proto("gp_context_device_name", _c_status, _vp, ctypes.c_char_p, ctypes.c_size_t)
_proto("gp_context_memory_stats", _c_status, _vp, ctypes.POINTER(_MemoryStats))
_proto("gp_context_device_count", _u32, _vp)
_proto("gp_context_device_info", _c_status, _vp, _u32, ctypes.POINTER(_DeviceInfo))
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
_proto("gp_merkle_options_init", None, ctypes.POINTER(_MerkleOptions))
_proto("gp_merkle_commit", _c_status, _vp, _pvp, _u32, ctypes.POINTER(_MerkleOptions), _pvp)
_proto("gp_merkle_hash_rows", _c_status, _vp, _pvp, _u32, ctypes.POINTER(_MerkleOptions), _vp, _u64)
_proto("gp_merkle_digest_size", _u64, _vp)
_proto("gp_merkle_root", _c_status, _vp, _vp, _u64)
_proto("gp_merkle_cap", _c_status, _vp, _vp, _u64)
_proto("gp_merkle_sp1_commitment", _c_status, _vp, _vp, _u64)
_proto("gp_merkle_cap_size", _u64, _vp)
_proto("gp_merkle_opening_size", _c_status, _vp, ctypes.POINTER(_u64), ctypes.POINTER(_u64))
_proto("gp_merkle_open", _c_status, _vp, ctypes.POINTER(_u64), _u64, _vp, _u64, _vp, _u64)
_proto("gp_merkle_verify", _c_status, ctypes.POINTER(_MerkleOptions), _c_enum, ctypes.POINTER(_MatrixDims), _u32,
       _vp, _u64, _u64, _vp, _u64, _vp, _u64)
_proto("gp_merkle_tree_destroy", None, _vp)
_proto("gp_commit_options_init", None, ctypes.POINTER(_CommitOptions))
_proto("gp_commit_host", _c_status, _vp, _c_enum, ctypes.POINTER(_CommitMatrix), _u32, ctypes.POINTER(_CommitOptions),
       _pvp, _pvp)
_proto("gp_fri_options_init", None, ctypes.POINTER(_FriOptions))
_proto("gp_fri_begin", _c_status, _vp, _vp, ctypes.POINTER(_FriOptions), _vp, _u64, _pvp)
_proto("gp_fri_begin_host", _c_status, _vp, _c_enum, _u32, _vp, _u64, ctypes.POINTER(_FriOptions), _vp, _u64, _pvp)
_proto("gp_fri_layer_count", _u32, _vp)
_proto("gp_fri_cap_size", _u64, _vp)
_proto("gp_fri_fold", _c_status, _vp, _vp, _u64, _vp, _u64)
_proto("gp_fri_remainder_size", _u64, _vp)
_proto("gp_fri_remainder", _c_status, _vp, _vp, _u64)
_proto("gp_fri_commit", _c_status, _vp, _vp, ctypes.POINTER(_FriOptions), _CHALLENGE_FN, _vp, _pvp)
_proto("gp_fri_opening_size", _u64, _vp)
_proto("gp_fri_open", _c_status, _vp, ctypes.POINTER(_u64), _u64, _vp, _u64)
_proto("gp_fri_verify", _c_status, ctypes.POINTER(_FriOptions), _c_enum, _u32, _u64, _vp, _u64, _vp, _u64, _vp, _u64,
       _u64, _vp, _u64)
_proto("gp_fri_destroy", None, _vp)
_proto("gp_constraint_options_init", None, ctypes.POINTER(_ConstraintOptions))
_proto("gp_constraint_commit", _c_status, _vp, _vp, ctypes.POINTER(_ConstraintOptions), _pvp, _pvp)
_proto("gp_ood_options_init", None, ctypes.POINTER(_OodOptions))
_proto("gp_evaluate_ood", _c_status, _vp, _pvp, _u32, ctypes.POINTER(_OodOptions), _vp, _u32, _vp, _u64)
_proto("gp_deep_composition", _c_status, _vp, _pvp, _u32, ctypes.POINTER(_OodOptions), _vp, _u32, _vp, _vp, _vp)
_proto("gp_context_cancel", _c_status, _vp)
_proto("gp_context_set_progress", _c_status, _vp, _PROGRESS_FN, _vp)
_proto("gp_context_set_log", _c_status, _vp, _LOG_FN, _vp)
_proto("gp_context_counters", _c_status, _vp, ctypes.POINTER(_Counters))
_proto("gp_context_call_stats", _c_status, _vp, ctypes.POINTER(_CallStats), ctypes.c_size_t,
       ctypes.POINTER(ctypes.c_size_t))
_proto("gp_context_reset_counters", _c_status, _vp)
_proto("gp_buffer_to_dlpack", _c_status, _vp, ctypes.POINTER(ctypes.POINTER(_DLManagedTensor)))
_proto("gp_buffer_from_dlpack", _c_status, _vp, _c_enum, _u32, _vp, _pvp)

# ---------------------------------------------------------------------------
# Which Python method is running (for messages), and library destroys in
# progress on this thread (see _export_deleter).

_tls = threading.local()


def _api(name):
    """Decorates a public method or function named `name` ("Context.lde"):
    while it runs on this thread, messages name it. The outermost call
    wins (Context.lde creating its output through Context.buffer reports
    Context.lde); callbacks into user code start afresh."""

    def decorate(f):
        @functools.wraps(f)
        def wrapper(*args, **kwargs):
            if getattr(_tls, "method", None) is not None:
                return f(*args, **kwargs)
            _tls.method = name
            try:
                return f(*args, **kwargs)
            finally:
                _tls.method = None

        return wrapper

    return decorate


def _method(default=None):
    return getattr(_tls, "method", None) or default


class _UserCode:
    """Runs a user callback with no method recorded (its own calls name
    theirs), restoring the caller's afterwards."""

    def __enter__(self):
        self.saved = getattr(_tls, "method", None)
        _tls.method = None

    def __exit__(self, *exc):
        _tls.method = self.saved


class _Destroying:
    """Marks a library destroy in progress on this thread: DLPack deleters it
    runs must not call the library (see _export_deleter); what they release
    is dropped once the outermost destroy returned."""

    def __enter__(self):
        _tls.destroying = getattr(_tls, "destroying", 0) + 1

    def __exit__(self, *exc):
        _tls.destroying -= 1
        if _tls.destroying == 0:
            grave = getattr(_tls, "graveyard", None)
            if grave:
                _tls.graveyard = []
                grave.clear()  # may run __del__ methods, which may call the library


# ---------------------------------------------------------------------------
# Messages in the binding's terms: the Python method, then the library's
# message with the C argument names replaced by the Python parameters.

_MERKLE_FIELDS = frozenset(("kind", "perm", "digest", "rate", "cap_height", "compress_perm", "leaf_rows"))
_EMBEDDED_MERKLE = frozenset(("gp_fri_begin", "gp_fri_begin_host", "gp_fri_commit", "gp_fri_verify",
                              "gp_constraint_commit"))
_OPTIONS_ARGUMENT = frozenset(("gp_merkle_verify", "gp_fri_verify"))  # options passed as `options`
_ARGUMENTS = {
    "gp_deep_composition": {"out": "output"},
    "gp_fri_commit": {"beta": "the challenge"},
}
_OPTION_RE = re.compile(r"options->((?:lde->|merkle->)?[A-Za-z_][A-Za-z0-9_.]*)")


def _python_names(function, text):
    """`text` with the C argument names of `function` replaced by the
    Python parameters that carry them."""

    def option(m):
        name = m.group(1)
        if function == "gp_commit_host":  # every option is a keyword of Context.commit_host
            return name.split("->")[-1]
        if function in _EMBEDDED_MERKLE and name in _MERKLE_FIELDS:
            name = "merkle." + name
        if function in _OPTIONS_ARGUMENT:
            name = "options." + name
        return name

    text = _OPTION_RE.sub(option, text)
    for c_name, py_name in _ARGUMENTS.get(function, {}).items():
        text = re.sub(r"(^|`)%s(?=`|\[| must | is | has | does )" % re.escape(c_name),
                      lambda m: m.group(1) + py_name, text)
    return text


def _binding_message(function, library_message):
    """The library's message of a failed `function` in the binding's terms."""
    body = library_message
    prefix = function + ": "
    if body.startswith(prefix):
        body = body[len(prefix):]
    return "%s: %s" % (_method(function), _python_names(function, body))


def _check(function, status):
    """Raises GpuproverError (VerifyError for Status.VERIFY_FAILED) for a
    failed call. Must run on the thread that made the call (the message is
    thread-local): it always does, since a Python thread is one OS thread."""
    if status != 0:
        msg = (_lib.gp_last_error() or b"").decode("utf-8", "replace")
        cls = VerifyError if status == Status.VERIFY_FAILED else GpuproverError
        raise cls(status, _binding_message(function, msg), function, _method(), msg)


def _error(function, status, fmt, *args):
    """An error the binding found before calling `function`."""
    return GpuproverError(status, "%s: %s" % (_method(function), fmt % args), function, _method())


def _where(function):
    """The prefix of the binding's own TypeError and ValueError messages."""
    return _method(function)


# ---------------------------------------------------------------------------
# Argument checks

_U64_MAX = (1 << 64) - 1
_U32_MAX = (1 << 32) - 1


def _prefix():
    m = _method()
    return m + ": " if m else ""


def _uint(name, value, bound=_U64_MAX):
    """An int in [0, bound]; ctypes would silently wrap anything else."""
    try:
        v = operator.index(value)
    except TypeError:
        raise TypeError("%s%s must be an int, not %s" % (_prefix(), name, type(value).__name__)) from None
    if v < 0 or v > bound:
        raise OverflowError("%s%s = %d is out of range [0, %d]" % (_prefix(), name, v, bound))
    return v


def _enum(cls, name, value):
    try:
        v = operator.index(value)
    except TypeError:
        raise TypeError("%s%s must be an int or a %s, not %s"
                        % (_prefix(), name, cls.__name__, type(value).__name__)) from None
    if v < -(1 << 31) or v >= (1 << 31):
        raise OverflowError("%s%s = %d is out of range" % (_prefix(), name, v))
    return v


def _c_string(name, value):
    """`value` (None, a str, bytes or an os.PathLike) as the bytes of a C
    string option (os.fsencode); None stays NULL."""
    if value is None:
        return None
    if isinstance(value, (str, bytes, bytearray, os.PathLike)):
        b = bytes(value) if isinstance(value, bytearray) else os.fsencode(value)
    else:
        raise TypeError("%s%s must be a str, bytes or a path, not %s" % (_prefix(), name, type(value).__name__))
    if b"\0" in b:
        raise ValueError("%s%s holds a NUL byte at index %d" % (_prefix(), name, b.index(b"\0")))
    return b


def _embed_merkle(outer, merkle, field):
    """Sets outer.merkle from MerkleOptions, keeping the struct_size that the
    outer options' init function wrote into the embedded struct."""
    size = outer.merkle.struct_size
    outer.merkle = merkle._c(field)
    outer.merkle.struct_size = size


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
    where = _where(function)
    if mv is None:
        if isinstance(data, (str, bytes, dict, set)) or not hasattr(data, "__iter__"):
            raise TypeError(
                "%s: %s must be a buffer of %d-byte unsigned integers or a list of ints, not %s"
                % (where, what, esize, type(data).__name__)
            )
        if writable and not isinstance(data, list):
            raise TypeError("%s: %s is modified in place: pass a list or a writable buffer, not %s"
                            % (where, what, type(data).__name__))
        try:
            arr = array.array(_TYPECODE[esize], data)
        except (TypeError, OverflowError):
            _bad_element(where, what, data, esize)
            raise
        h = _host(function, what, arr, elem_size, writable)
        if writable:
            h.writeback, h.array = data, arr
        return h
    with mv:
        if not mv.c_contiguous:
            raise ValueError("%s: %s must be C-contiguous" % (where, what))
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
                    % (where, what, fmt, mv.itemsize, esize, _TYPECODE[esize], 8 * esize)
                )
            if (order in ">!" and _NATIVE_LITTLE) or (order == "<" and not _NATIVE_LITTLE):
                raise TypeError("%s: %s is not in native byte order" % (where, what))
        if mv.nbytes % esize:
            raise ValueError("%s: %s has %d bytes, not a multiple of the element size %d"
                             % (where, what, mv.nbytes, esize))
        if writable and mv.readonly:
            raise TypeError("%s: %s is modified in place but is read-only" % (where, what))
        nbytes, count = mv.nbytes, mv.nbytes // esize
    if nbytes == 0:
        return _Host(ctypes.addressof(_EMPTY), 0, None)
    try:
        cbuf = (ctypes.c_char * nbytes).from_buffer(data)
    except TypeError:  # read-only input: copy it
        cbuf = (ctypes.c_char * nbytes).from_buffer_copy(data)
    return _Host(ctypes.addressof(cbuf), count, cbuf)


def _bad_element(where, what, data, esize):
    """Raises for the first element of `data` (a sequence the array type
    refused) that is not an int in [0, 2**(8 esize)), naming its index."""
    top = (1 << (8 * esize)) - 1
    for i, v in enumerate(data):
        try:
            x = operator.index(v)
        except TypeError:
            raise TypeError("%s: %s[%d] is %s, not an int" % (where, what, i, type(v).__name__)) from None
        if x < 0 or x > top:
            raise OverflowError("%s: %s[%d] = %d is out of range [0, %d] for %d-byte elements"
                                % (where, what, i, x, top, esize)) from None


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
# Merkle and FRI options, bytes <-> elements


def _elements_from_bytes(field, data):
    """Little-endian base elements as an array.array ('Q' or 'I')."""
    esize = _element_size(field)
    out = array.array(_TYPECODE[esize])
    out.frombytes(bytes(data[:len(data) - len(data) % esize]))
    if not _NATIVE_LITTLE:
        out.byteswap()
    return out


def _host_bytes(host, esize):
    """The little-endian bytes of a _Host's elements."""
    raw = ctypes.string_at(host.ptr, host.count * esize) if host.count else b""
    if _NATIVE_LITTLE or not raw:
        return raw
    a = array.array(_TYPECODE[esize], raw)
    a.byteswap()
    return a.tobytes()


def _bytes_arg(function, what, data):
    """(pointer, size) of a bytes-like argument (copied), never NULL."""
    try:
        b = bytes(memoryview(data).cast("B"))
    except TypeError:
        raise TypeError("%s: %s must be bytes-like, not %s" % (_where(function), what, type(data).__name__)) from None
    buf = ctypes.create_string_buffer(b, max(1, len(b)))
    return buf, len(b)


def _default_permutation(kind, field):
    kind = int(kind)
    if kind in (MerkleKind.MIDEN, MerkleKind.MIDEN_V0_11, MerkleKind.MIDEN_V0_10):
        return Permutation.RPO256
    if kind in (MerkleKind.KECCAK_PLONKY3, MerkleKind.KECCAK_BE, MerkleKind.KECCAK_U64):
        return Permutation.KECCAK_F1600
    if kind in (MerkleKind.TRITON, MerkleKind.TRITON_DIGEST):
        return Permutation.TIP5
    if kind == MerkleKind.MIDEN_LMCS:
        return Permutation.POSEIDON2_GOLDILOCKS_12
    if kind == MerkleKind.WINTERFELL:
        return Permutation.BLAKE3
    return {Field.BABYBEAR: Permutation.POSEIDON2_BABYBEAR_16,
            Field.KOALABEAR: Permutation.POSEIDON2_KOALABEAR_16}.get(field, Permutation.POSEIDON2_GOLDILOCKS_8)


@dataclasses.dataclass(frozen=True)
class MerkleOptions:
    """A Merkle profile (gp_merkle_options). The defaults are Plonky3's
    Poseidon2 MerkleTreeMmcs for the matrices' field with the root as cap.

    kind: MerkleKind; perm: Permutation, or None for the kind's permutation
    for the matrices' field (see permutation_for); digest, rate
    (FIELD_SPONGE only): 0 for the defaults (digest 4 for Goldilocks, 8 for
    BabyBear and KoalaBear; rate width - digest); cap_height: the cap is the
    layer of 2**cap_height nodes (0: the root); compress_perm (FIELD_SPONGE
    only): the Permutation of the compression when it differs from the
    sponge's, or None for perm (offered pairs, sponge -> compression:
    Poseidon2 BabyBear 24 -> 16, KoalaBear 24 -> 16, Goldilocks 12 or 16 -> 8;
    others fail with Status.UNSUPPORTED); leaf_rows: 0 or 1 (one row per
    leaf) or 2 (leaf i hashes row 2i of every matrix, then row 2i + 1 of
    every matrix, as lambdaworks commits its composition polynomial and FRI
    layers; merkle_commit, merkle_hash_rows and merkle_verify only).
    """

    kind: int = MerkleKind.FIELD_SPONGE
    perm: object = None
    digest: int = 0
    rate: int = 0
    cap_height: int = 0
    compress_perm: object = None
    leaf_rows: int = 0

    def permutation_for(self, field):
        """perm if set, else Poseidon2 (Goldilocks width 8, BabyBear and
        KoalaBear width 16) for FIELD_SPONGE, RPO256 for the Miden kinds,
        POSEIDON2_GOLDILOCKS_12 for MIDEN_LMCS, KECCAK_F1600 for the Keccak
        kinds, TIP5 for the Triton kinds and BLAKE3 for WINTERFELL."""
        if self.perm is not None:
            return _opt_enum(Permutation, self.perm)
        return _default_permutation(self.kind, _opt_enum(Field, field))

    def resolved(self, field):
        """These options with perm filled in for `field`."""
        compress = None if self.compress_perm is None else _opt_enum(Permutation, self.compress_perm)
        return dataclasses.replace(self, kind=_opt_enum(MerkleKind, self.kind), perm=self.permutation_for(field),
                                   compress_perm=compress)

    def _c(self, field):
        o = _MerkleOptions()
        _lib.gp_merkle_options_init(ctypes.byref(o))
        o.kind = _enum(MerkleKind, "kind", self.kind)
        o.perm = _enum(Permutation, "perm", self.permutation_for(field))
        o.digest = _uint("digest", self.digest, _U32_MAX)
        o.rate = _uint("rate", self.rate, _U32_MAX)
        o.cap_height = _uint("cap_height", self.cap_height, _U32_MAX)
        if self.compress_perm is not None:
            o.compress_perm = _enum(Permutation, "compress_perm", self.compress_perm)
        o.leaf_rows = _uint("leaf_rows", self.leaf_rows, _U32_MAX)
        return o

    def _digest_bytes(self, field):
        if int(self.kind) in (MerkleKind.TRITON, MerkleKind.TRITON_DIGEST):
            return 5 * 8  # Tip5 digests: 5 Goldilocks elements
        if int(self.kind) == MerkleKind.WINTERFELL and int(self.permutation_for(field)) == Permutation.BLAKE3_192:
            return 24
        if int(self.kind) != MerkleKind.FIELD_SPONGE:
            return 32
        _, pf = permutation_info(self.permutation_for(field))
        esize = _element_size(pf) if pf else 8
        return (self.digest or (4 if esize == 8 else 8)) * esize


@dataclasses.dataclass(frozen=True)
class FriOptions:
    """Options of a FRI commitment (gp_fri_options), with the C defaults.

    arity: 2, 4 or 8; final_size: the remainder's size (a power of two below
    the codeword size, reached by folds of `arity`); order: of the codeword
    and every layer (Plonky3: BIT_REVERSED); shift: the domain is
    shift * <omega> (1: the subgroup, as Plonky3 folds); fold: FriFold;
    merkle: the MerkleOptions of every layer (cap_height <= log2(final_size));
    extension: the codeword's Extension (its products with the challenges;
    Extension.TRITON: Goldilocks cubics only); leaf: FriLeaf, what a layer's
    Merkle leaf holds (FriLeaf.ELEMENT: one value per leaf, as Triton VM
    commits with MerkleKind.TRITON_DIGEST; an opening then holds one path per
    group member, opening_size says how long).
    """

    arity: int = 2
    final_size: int = 1
    order: int = Order.BIT_REVERSED
    shift: int = 1
    fold: int = FriFold.HALVED
    merkle: MerkleOptions = dataclasses.field(default_factory=MerkleOptions)
    extension: int = Extension.PLONKY3
    leaf: int = FriLeaf.GROUP

    def resolved(self, field):
        """These options with merkle.perm filled in for `field`."""
        return dataclasses.replace(self, merkle=self.merkle.resolved(field))

    def _c(self, field):
        if not isinstance(self.merkle, MerkleOptions):
            raise TypeError("FriOptions.merkle must be a MerkleOptions, not %s" % type(self.merkle).__name__)
        o = _FriOptions()
        _lib.gp_fri_options_init(ctypes.byref(o))
        o.arity = _uint("arity", self.arity, _U32_MAX)
        o.final_size = _uint("final_size", self.final_size)
        o.order = _enum(Order, "order", self.order)
        o.shift = _uint("shift", self.shift)
        o.fold = _enum(FriFold, "fold", self.fold)
        _embed_merkle(o, self.merkle, field)
        o.extension = _enum(Extension, "extension", self.extension)
        o.leaf = _enum(FriLeaf, "leaf", self.leaf)
        return o

    def _cap_bytes(self, function, field):
        # As the library requires, checked before the cap buffer is allocated.
        ch = _uint("cap_height", self.merkle.cap_height, _U32_MAX)
        if ch >= 64 or (1 << ch) > self.final_size:
            raise _error(function, Status.INVALID_ARGUMENT,
                         "options.merkle.cap_height = %d exceeds log2(final_size = %d), the height of the last "
                         "committed layer's tree", ch, self.final_size)
        return self.merkle._digest_bytes(field) << ch


@dataclasses.dataclass(frozen=True)
class ConstraintOptions:
    """Options of Context.constraint_commit (gp_constraint_options), with the
    C defaults.

    split: CompositionSplit; segments: D, a power of two dividing the number
    of evaluations; blowup: of the segment LDEs, a power of two in [1, 32];
    shift: the evaluations lie on shift * <w> and the segment LDEs on
    shift * <w'> (0: the field's generator); output_order: of the segment
    LDEs (Plonky3: BIT_REVERSED, winterfell: NATURAL); merkle: the
    commitment's MerkleOptions.
    """

    split: int = CompositionSplit.PLONKY3
    segments: int = 2
    blowup: int = 2
    shift: int = 0
    output_order: int = Order.BIT_REVERSED
    merkle: MerkleOptions = dataclasses.field(default_factory=MerkleOptions)

    def _c(self, field):
        if not isinstance(self.merkle, MerkleOptions):
            raise TypeError("ConstraintOptions.merkle must be a MerkleOptions, not %s" % type(self.merkle).__name__)
        o = _ConstraintOptions()
        _lib.gp_constraint_options_init(ctypes.byref(o))
        o.split = _enum(CompositionSplit, "split", self.split)
        o.segments = _uint("segments", self.segments, _U32_MAX)
        o.blowup = _uint("blowup", self.blowup, _U32_MAX)
        o.shift = _uint("shift", self.shift)
        o.output_order = _enum(Order, "output_order", self.output_order)
        _embed_merkle(o, self.merkle, field)
        return o


@dataclasses.dataclass(frozen=True)
class OodOptions:
    """Where committed columns live and which extension the points come from
    (gp_ood_options), with the C defaults.

    shift: the rows are evaluations on shift * <omega_M>, M = rows (0: the
    field's generator, lde()'s default coset); order: of the rows (NATURAL,
    lde()'s default; BIT_REVERSED for Plonky3's committed LDEs);
    degree_bound: N, a power of two <= M (0: M), evaluate_ood reads the
    sub-coset shift * <omega_N> only; challenge_degree: E, the extension of
    the points, values and coefficients (Goldilocks 1, 2, 3; BabyBear and
    KoalaBear 1, 4; 0: 3 for Goldilocks, 4 otherwise); extension: the
    Extension of degree E (Extension.TRITON for Triton VM's out-of-domain
    rows and DEEP codewords: Goldilocks, E = 3).
    """

    shift: int = 0
    order: int = Order.NATURAL
    degree_bound: int = 0
    challenge_degree: int = 0
    extension: int = Extension.PLONKY3

    def challenge_degree_for(self, field):
        """E for columns over `field`: challenge_degree, or the field's default."""
        if self.challenge_degree:
            return self.challenge_degree
        return 3 if int(field) == Field.GOLDILOCKS else 4

    def _c(self):
        o = _OodOptions()
        _lib.gp_ood_options_init(ctypes.byref(o))
        o.shift = _uint("shift", self.shift)
        o.order = _enum(Order, "order", self.order)
        o.degree_bound = _uint("degree_bound", self.degree_bound)
        o.challenge_degree = _uint("challenge_degree", self.challenge_degree, _U32_MAX)
        o.extension = _enum(Extension, "extension", self.extension)
        return o


def _options(cls, options, kwargs):
    if options is None:
        return cls(**kwargs)
    if not isinstance(options, cls):
        raise TypeError("options must be a %s, not %s" % (cls.__name__, type(options).__name__))
    return dataclasses.replace(options, **kwargs) if kwargs else options


# ---------------------------------------------------------------------------
# Module functions


def version():
    """The loaded library's version string, e.g. "0.1.0"."""
    return _lib.gp_version().decode()


def version_number():
    """The loaded library's version as major * 10000 + minor * 100 + patch."""
    return int(_lib.gp_version_number())


@_api("field_info")
def field_info(field):
    """The field's modulus, multiplicative generator and two-adicity."""
    m, g, a = _u64(), _u64(), _u32()
    _check("gp_field_info", _lib.gp_field_info(_enum(Field, "field", field), ctypes.byref(m), ctypes.byref(g),
                                               ctypes.byref(a)))
    return FieldInfo(m.value, g.value, a.value)


@_api("two_adic_generator")
def two_adic_generator(field, log_n):
    """The primitive 2^log_n-th root of unity the library uses."""
    r = _u64()
    _check("gp_field_two_adic_generator",
           _lib.gp_field_two_adic_generator(_enum(Field, "field", field), _uint("log_n", log_n, _U32_MAX),
                                            ctypes.byref(r)))
    return r.value


@_api("permutation_info")
def permutation_info(perm):
    """(width, field) of a permutation: state width in elements (64-bit
    lanes for Keccak) and its Field, or None for Keccak's raw lanes. The
    hashes give (16, None) (BLAKE3, BLAKE3_192: the compression state of
    32-bit words) or (25, None) (SHA3_256: Keccak-f's lanes)."""
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


def _progress_trampoline(ctx_ref):
    """The C progress callback of a Context (reached through a weak
    reference, so that the ctypes object it keeps does not keep it)."""

    def progress(user, stage, done, total):
        ctx = ctx_ref()
        if ctx is None or ctx._progress_error is not None or ctx._progress_fn is None:
            return
        busy = ctx._busy
        ctx._busy = "its progress callback"
        try:
            with _UserCode():
                ctx._progress_fn(stage.decode("utf-8", "replace"), done, total)
        except BaseException as e:  # never let it unwind into C: stop the call, raise it after
            ctx._progress_error = e
            ctx._lib.gp_context_cancel(ctx._handle)
        finally:
            ctx._busy = busy

    return progress


def _log_trampoline(ctx_ref):
    """The C log callback of a Context: keeps the line for _CallLock."""

    def log(user, line):
        ctx = ctx_ref()
        if ctx is not None and ctx._log_fn is not None:
            ctx._log_lines.append(line.decode("utf-8", "replace"))

    return log


class _CallLock:
    """A Context's lock: reentrant, serializing its calls. When the
    outermost holder releases it, the log lines of the calls made meanwhile
    go to the log callback (outside the lock) and an exception of the
    progress callback is raised."""

    def __init__(self, ctx):
        self._rlock = threading.RLock()
        self._depth = 0
        self._ctx = weakref.ref(ctx)

    def __enter__(self):
        self._rlock.acquire()
        self._depth += 1
        return self

    def __exit__(self, *exc):
        self._depth -= 1
        if self._depth:
            self._rlock.release()
            return False
        ctx = self._ctx()
        lines, log, error = [], None, None
        if ctx is not None:
            lines, ctx._log_lines = ctx._log_lines, []
            log = ctx._log_fn
            error, ctx._progress_error = ctx._progress_error, None
        self._rlock.release()
        if log is not None:
            with _UserCode():
                for line in lines:
                    log(line)
        if error is not None:
            raise error
        return False


class Context:
    """A gpuprover context: a backend (CUDA GPU, CPU or a gpuprover-server)
    and its caches.

    ``Context(backend=Backend.AUTO, devices=None, cpu_threads=0,
    endpoint=None, priority=Priority.NORMAL, force_cpu=False,
    token_file=None)``; AUTO uses the server named by ``endpoint`` or the
    GPUPROVER_SERVER environment variable when it is set and reachable
    (``remote_fallback`` says why not otherwise), else CUDA, and falls back
    to the CPU without a usable GPU; CUDA raises GpuproverError
    (Status.NO_DEVICE); REMOTE raises GpuproverError (Status.REMOTE) when no
    server answers. ``endpoint`` is the server's address as GPUPROVER_SERVER
    takes it (None: that variable); ``priority`` (a Priority) orders the
    context's jobs in the server's queue; ``force_cpu`` asks the server to
    run them on its CPU workers; ``token_file`` names the file holding the
    token the server requires of TCP clients not on loopback (None:
    GPUPROVER_SERVER_TOKEN_FILE). The last four are ignored in process. ``devices`` lists the CUDA device ordinals the
    context owns (None: device 0); with several, every buffer is spread
    over them by blocks of whole columns and every call runs on all of
    them, with the results of one device. An ordinal may be listed more
    than once (each entry is a share of its GPU); ``[DEVICES_ALL]`` means
    every visible GPU. On the CPU backend (and when AUTO falls back to it)
    the length of the list is the number of emulated devices, which divide
    the worker threads between them; the values are not used.
    ``device_count`` and ``devices()`` report what the context got.
    Use it as a context manager or call close(); closing
    it also closes its open buffers, trees and FRI commitments (the library
    releases them with it). Every Buffer, MerkleTree and Fri keeps its
    Context alive. Calls on one context are serialized by a lock;
    cancel() stops the call in flight from any thread.
    """

    @_api("Context")
    def __init__(self, backend=Backend.AUTO, devices=None, cpu_threads=0, endpoint=None,
                 priority=Priority.NORMAL, force_cpu=False, token_file=None):
        self._lib = _lib
        self._handle = None
        self._lock = _CallLock(self)
        self._cancel_lock = threading.Lock()  # guards _handle for cancel(), which must not wait for _lock
        self._busy = None  # what the context runs while it runs a Python callback
        self._progress_fn = self._progress_cb = None
        self._progress_error = None
        self._log_fn = self._log_cb = None
        self._log_lines = []
        opts = _ContextOptions()
        _lib.gp_context_options_init(ctypes.byref(opts))
        opts.backend = _enum(Backend, "backend", backend)
        opts.cpu_threads = _uint("cpu_threads", cpu_threads, _U32_MAX)
        if devices:
            devs = [int(d) for d in devices]
            arr = (ctypes.c_int32 * len(devs))(*devs)
            opts.devices = ctypes.cast(arr, ctypes.POINTER(ctypes.c_int32))
            opts.num_devices = len(devs)
        # ctypes keeps the bytes alive with `opts`, past gp_context_create
        # (which copies them).
        opts.endpoint = _c_string("endpoint", endpoint)
        opts.priority = _enum(Priority, "priority", priority)
        opts.force_cpu = 1 if force_cpu else 0
        opts.token_file = _c_string("token_file", token_file)
        h = ctypes.c_void_p()
        _check("gp_context_create", _lib.gp_context_create(ctypes.byref(opts), ctypes.byref(h)))
        self._handle = h.value

    # -- lifetime

    @_api("Context.close")
    def close(self):
        """Destroys the context, after the call in flight (if any), and with
        it its open FRI commitments, trees and buffers. Idempotent. Raises
        BufferError while a buffer of the context is exported through DLPack
        to a consumer other than this context (release the consumer's tensor
        first)."""
        with self._lock:
            if self._handle is None:
                return
            self._check_idle()
            alive = _exports_of(self)
            if alive:
                raise BufferError("Context.close: %d DLPack export(s) of its buffers are still alive; release the "
                                  "consumers' tensors (or close the buffers imported from them) first" % alive)
            with self._cancel_lock, _Destroying():
                self._lib.gp_context_destroy(self._handle)
                self._handle = None
            self._progress_fn = self._progress_cb = None
            self._log_cb = None

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
            raise ClosedError("%s: the Context is closed" % _method("Context"))
        self._check_idle()
        return self._handle

    def _check_idle(self):
        if self._busy:
            raise RuntimeError("%s: the gpuprover.Context is busy in %s, which must not use it (except "
                               "Context.cancel()); use the host or another context" % (_method("Context"), self._busy))

    def _own(self, function, buf, what):
        if not isinstance(buf, Buffer):
            raise TypeError("%s: %s must be a gpuprover.Buffer, not %s" % (_where(function), what,
                                                                            type(buf).__name__))
        if buf._ctx is not self:
            raise _error(function, Status.CONTEXT_MISMATCH, "%s belongs to a different context", what)
        if buf.closed:
            raise ClosedError("%s: %s is a closed Buffer" % (_where(function), what))
        return buf._h()

    # -- cancellation, progress, log, counters

    @_api("Context.cancel")
    def cancel(self):
        """Asks the call in flight on the context (from another thread, or
        from the progress callback) to stop (gp_context_cancel): it raises
        GpuproverError with Status.CANCELLED at its next batch or layer
        boundary, having released what it allocated; every object stays
        usable. A call that starts after cancel() returns is not affected,
        and cancelling an idle context does nothing. Does not wait for the
        call (nor for the context's lock)."""
        with self._cancel_lock:
            if self._handle is None:
                raise ClosedError("Context.cancel: the Context is closed")
            _check("gp_context_cancel", self._lib.gp_context_cancel(self._handle))

    @_api("Context.set_progress")
    def set_progress(self, callback):
        """Sets (None: clears) the progress callback, called as
        callback(stage, done, total) between the batches and layers of long
        calls: stage names the step ("lde", "ntt", "merkle", "fri", "ood",
        "constraint", ...), done of total units of it are finished. It runs
        on the calling thread, inside the call: it must not use this context
        except cancel() (that raises RuntimeError). An exception it raises
        cancels the call and is raised by the method that made it. The
        context keeps the callback (and its ctypes trampoline) alive."""
        if callback is not None and not callable(callback):
            raise TypeError("Context.set_progress: callback must be callable or None, not %s"
                            % type(callback).__name__)
        with self._lock:
            h = self._h()
            cb = _PROGRESS_FN()  # NULL
            if callback is not None:
                cb = _PROGRESS_FN(_progress_trampoline(weakref.ref(self)))
            _check("gp_context_set_progress", self._lib.gp_context_set_progress(h, cb, None))
            self._progress_fn, self._progress_cb = callback, cb

    @_api("Context.set_log")
    def set_log(self, callback):
        """Sets (None: clears) the log callback, called as callback(line)
        with one line per finished library call on the context: the entry
        point, its status, its wall time and, for a failed call, the message,
        e.g. "gp_lde_batch GP_OK 12.345 ms". The lines of a method's calls
        are handed over when the method returns, on its thread, outside the
        context's lock: the callback may use the context (the lines of its
        own calls follow). An exception it raises propagates from that
        method."""
        if callback is not None and not callable(callback):
            raise TypeError("Context.set_log: callback must be callable or None, not %s" % type(callback).__name__)
        with self._lock:
            h = self._h()
            cb = _LOG_FN()  # NULL
            if callback is not None:
                cb = _LOG_FN(_log_trampoline(weakref.ref(self)))
            old = self._log_fn
            self._log_fn = callback
            try:
                _check("gp_context_set_log", self._lib.gp_context_set_log(h, cb, None))
            except BaseException:
                self._log_fn = old
                raise
            self._log_cb = cb
            if callback is None:
                self._log_lines = []

    @_api("Context.counters")
    def counters(self):
        """Counters(calls, failed_calls, call_ns, bytes_to_device,
        bytes_to_host, device_ns) since the context was created or
        reset_counters() (gp_context_counters)."""
        with self._lock:
            c = _Counters()
            c.struct_size = ctypes.sizeof(c)
            _check("gp_context_counters", self._lib.gp_context_counters(self._h(), ctypes.byref(c)))
            return Counters(c.calls, c.failed_calls, c.call_ns, c.bytes_to_device, c.bytes_to_host, c.device_ns)

    @_api("Context.call_stats")
    def call_stats(self):
        """The calls per entry point (gp_context_call_stats): a dict from the
        C function's name ("gp_lde_batch") to CallStats(calls,
        failed_calls, call_ns), in name order."""
        fn = "gp_context_call_stats"
        with self._lock:
            h = self._h()
            count = ctypes.c_size_t()
            _check(fn, self._lib.gp_context_call_stats(h, None, 0, ctypes.byref(count)))
            while True:
                cap = count.value + 8  # room for entries the call itself adds
                arr = (_CallStats * cap)()
                _check(fn, self._lib.gp_context_call_stats(h, arr, cap, ctypes.byref(count)))
                if count.value <= cap:
                    return {e.name.decode(): CallStats(e.calls, e.failed_calls, e.call_ns)
                            for e in arr[:count.value]}

    @_api("Context.reset_counters")
    def reset_counters(self):
        """Zeroes the counters and the per-entry statistics."""
        with self._lock:
            _check("gp_context_reset_counters", self._lib.gp_context_reset_counters(self._h()))

    # -- queries

    @property
    @_api("Context.backend")
    def backend(self):
        """Backend.CPU, Backend.CUDA or Backend.REMOTE (never AUTO)."""
        with self._lock:
            return Backend(self._lib.gp_context_backend(self._h()))

    @property
    @_api("Context.remote_fallback")
    def remote_fallback(self):
        """Why an AUTO context with a server configured (``endpoint`` or
        GPUPROVER_SERVER) runs in process instead: the connection error
        (gp_context_remote_fallback). None when the context runs on the
        server or no server was configured."""
        with self._lock:
            why = self._lib.gp_context_remote_fallback(self._h())
            return None if why is None else why.decode("utf-8", "replace")

    @property
    @_api("Context.cpu_fallback")
    def cpu_fallback(self):
        """Why an AUTO context runs on the CPU backend instead of CUDA (no
        CUDA in this build, no NVIDIA driver, a driver older than the
        library's CUDA runtime, no visible device; gp_context_cpu_fallback).
        None when it runs on a GPU or a server, or the CPU was asked for."""
        with self._lock:
            why = self._lib.gp_context_cpu_fallback(self._h())
            return None if why is None else why.decode("utf-8", "replace")

    @property
    @_api("Context.device_name")
    def device_name(self):
        """E.g. "NVIDIA H100 80GB HBM3" or "CPU, 16 threads" (for several
        devices, "2 devices: " and each one's)."""
        with self._lock:
            name = ctypes.create_string_buffer(256)
            _check("gp_context_device_name", self._lib.gp_context_device_name(self._h(), name, len(name)))
            return name.value.decode("utf-8", "replace")

    @_api("Context.memory_stats")
    def memory_stats(self):
        """MemoryStats(buffer_bytes, cache_bytes, allocations, evictions)."""
        with self._lock:
            s = _MemoryStats()
            s.struct_size = ctypes.sizeof(s)
            _check("gp_context_memory_stats", self._lib.gp_context_memory_stats(self._h(), ctypes.byref(s)))
            return MemoryStats(s.buffer_bytes, s.cache_bytes, s.allocations, s.evictions)

    @property
    @_api("Context.device_count")
    def device_count(self):
        """The number of devices the context owns (gp_context_device_count):
        1 for a single GPU or the plain CPU backend, len(devices) for
        several GPUs or emulated CPU devices."""
        with self._lock:
            return int(self._lib.gp_context_device_count(self._h()))

    @_api("Context.device_info")
    def device_info(self, index):
        """DeviceInfo(ordinal, name, buffer_bytes, cache_bytes, allocations,
        free_bytes, total_bytes) of device `index`, 0 <= index <
        device_count (gp_context_device_info); an index out of range raises
        GpuproverError (Status.INVALID_ARGUMENT)."""
        index = _uint("index", index, _U32_MAX)
        with self._lock:
            return self._device_info(self._h(), index)

    def _device_info(self, h, index):
        d = _DeviceInfo()
        d.struct_size = ctypes.sizeof(d)
        _check("gp_context_device_info", self._lib.gp_context_device_info(h, index, ctypes.byref(d)))
        return DeviceInfo(d.ordinal, d.name.decode("utf-8", "replace"), d.buffer_bytes, d.cache_bytes,
                          d.allocations, d.free_bytes, d.total_bytes)

    @_api("Context.devices")
    def devices(self):
        """[DeviceInfo] of every device of the context, in order."""
        with self._lock:
            h = self._h()
            return [self._device_info(h, i) for i in range(self._lib.gp_context_device_count(h))]

    @_api("Context.trim")
    def trim(self):
        """Releases cached twiddle tables and scratch memory."""
        with self._lock:
            _check("gp_context_trim", self._lib.gp_context_trim(self._h()))

    # -- buffers

    def _wrap(self, handle):
        return Buffer._new(self, handle)

    @_api("Context.buffer")
    def buffer(self, field, rows, cols, ext_degree=1):
        """A zero-filled rows x cols buffer of the degree-ext_degree extension.
        cols may be 0: a matrix of width 0, holding no memory, whose rows the
        Merkle commitments (merkle_commit, merkle_hash_rows) hash as empty
        inputs; transforms, LDEs, FRI, OOD/DEEP and DLPack export refuse it."""
        with self._lock:
            h = ctypes.c_void_p()
            _check("gp_buffer_create",
                   self._lib.gp_buffer_create(self._h(), _enum(Field, "field", field),
                                              _uint("ext_degree", ext_degree, _U32_MAX), _uint("rows", rows),
                                              _uint("cols", cols), ctypes.byref(h)))
            return self._wrap(h.value)

    @_api("Context.buffer_from_host")
    def buffer_from_host(self, field, data, rows, cols, ext_degree=1, layout=Layout.COL_MAJOR):
        """A buffer holding rows x cols elements of `data` (in `layout`):
        exactly rows * cols * ext_degree base-field values (empty, or None,
        when cols is 0)."""
        fn = "gp_buffer_from_host"
        if data is None:
            data = b""
        field, ext = _enum(Field, "field", field), _uint("ext_degree", ext_degree, _U32_MAX)
        rows, cols = _uint("rows", rows), _uint("cols", cols)
        host = _host(fn, "data", data, _element_size(field))
        _check_len(fn, "data", host, rows, cols, ext)
        with self._lock:
            h = ctypes.c_void_p()
            _check(fn, self._lib.gp_buffer_from_host(self._h(), field, ext, rows, cols,
                                                     _enum(Layout, "layout", layout), host.ptr, ctypes.byref(h)))
            return self._wrap(h.value)

    @_api("Context.from_dlpack")
    def from_dlpack(self, obj, field, ext_degree=1):
        """A Buffer over a DLPack tensor, without a copy
        (gp_buffer_from_dlpack): `obj` is any object with ``__dlpack__``
        (numpy, CuPy, torch, a Buffer...) or a DLPack capsule. The tensor
        must be on this context's device (kDLCPU on the CPU backend, kDLCUDA
        or managed memory on the CUDA backend), of dtype uint64 (Goldilocks)
        or uint32, 1-D (one column of `rows` elements) or 2-D of shape
        [cols * ext_degree, rows] in the buffer layout (compact), with
        canonical values.

        On success the Buffer owns the tensor: the capsule is renamed
        "used_dltensor" and the tensor's deleter runs when the buffer is
        destroyed; the Buffer also keeps `obj` alive. On failure the capsule
        is left as it was (its producer or its destructor releases it)."""
        fn = "gp_buffer_from_dlpack"
        field, ext = _enum(Field, "field", field), _uint("ext_degree", ext_degree, _U32_MAX)
        if type(obj).__name__ == "PyCapsule":
            capsule, source = obj, None
        elif hasattr(obj, "__dlpack__"):
            with _UserCode():
                capsule = obj.__dlpack__()
            source = obj
        else:
            raise TypeError("Context.from_dlpack: obj must have __dlpack__ or be a DLPack capsule, not %s"
                            % type(obj).__name__)
        if type(capsule).__name__ != "PyCapsule" or not _PyCapsule_IsValid(capsule, b"dltensor"):
            if type(capsule).__name__ == "PyCapsule" and _PyCapsule_IsValid(capsule, b"used_dltensor"):
                raise BufferError("Context.from_dlpack: the DLPack capsule was consumed already")
            raise TypeError("Context.from_dlpack: %s is not a DLPack capsule named \"dltensor\""
                            % type(capsule).__name__)
        ptr = _PyCapsule_GetPointer(capsule, b"dltensor")
        with self._lock:
            h = ctypes.c_void_p()
            _check(fn, self._lib.gp_buffer_from_dlpack(self._h(), field, ext, ptr, ctypes.byref(h)))
            # The buffer owns the managed tensor now.
            _PyCapsule_SetName(capsule, _USED_NAME_ADDR)
            with _EXPORTS_LOCK:
                rec = _EXPORTS.get(ptr)
                if rec is not None:  # one of ours: released with this context
                    rec[2] = weakref.ref(self)
            buf = self._wrap(h.value)
            buf._dlpack_source = source
            return buf

    # -- operations

    @staticmethod
    def _lde_options(n, blowup, shift, input_shift, output_order, input_layout, root=0, input=LdeInput.EVALUATIONS):
        o = _LdeOptions()
        _lib.gp_lde_options_init(ctypes.byref(o))
        o.n = _uint("n", n)
        o.blowup = _uint("blowup", blowup, _U32_MAX)
        o.shift = _uint("shift", shift)
        o.input_shift = _uint("input_shift", input_shift)
        o.output_order = _enum(Order, "output_order", output_order)
        o.input_layout = _enum(Layout, "input_layout", input_layout)
        o.root = _uint("root", root)
        o.input = _enum(LdeInput, "input", input)
        return o

    def _new_output(self, function, field, ext, rows, n, blowup, cols):
        if not (1 <= blowup <= 32 and blowup & (blowup - 1) == 0):
            raise _error(function, Status.INVALID_ARGUMENT, "blowup = %d is not a power of two in [1, 32]", blowup)
        return self.buffer(field, (n or rows) * blowup, cols, ext)

    @_api("Context.lde")
    def lde(self, input, output=None, *, n=0, blowup=2, shift=0, input_shift=0, output_order=Order.NATURAL, root=0,
            input_kind=LdeInput.EVALUATIONS):
        """Coset LDE of every column of the buffer `input` into `output`
        (n * blowup rows, input's columns, field and degree), which is
        created when None. Returns output.

        n: trace length (0: input.rows; missing rows are zero); blowup: power
        of two in [1, 32]; shift: output coset shift (0: the field's
        generator); input_shift: shift of the input domain (0: 1);
        output_order: Order.BIT_REVERSED for what Plonky3 commits; root: the
        root of unity the domains are drawn from (0: the library's; winterfell's
        TWO_ADIC_ROOT_OF_UNITY for its row order; gp_lde_options.root);
        input_kind: LdeInput.COEFFICIENTS when input holds the polynomials'
        coefficients (lowest degree first; basefold's encoding, SP1's
        batch_coset_dft; gp_lde_options.input).
        """
        fn = "gp_lde_batch"
        opts = self._lde_options(n, blowup, shift, input_shift, output_order, Layout.COL_MAJOR, root, input_kind)
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

    @_api("Context.lde_host")
    def lde_host(self, field, data, rows, cols, output=None, *, ext_degree=1, n=0, blowup=2, shift=0, input_shift=0,
                 output_order=Order.NATURAL, input_layout=Layout.COL_MAJOR, randomizers=None, root=0,
                 input_kind=LdeInput.EVALUATIONS):
        """Like lde(), with the input in host memory: `data` holds rows x cols
        elements of degree ext_degree in input_layout (exactly
        rows * cols * ext_degree values). Returns output (created when None).

        randomizers: None, or the coefficients of one randomizer polynomial
        per column (cols x m x ext_degree values, column by column, lowest
        degree first, coordinates interleaved): the output is then the
        randomized LDE f(X) + (X^n - input_shift^n) r(X), as Triton VM
        extends its tables (gp_lde_options.randomizers). input_kind: as lde().
        """
        fn = "gp_lde_batch_host"
        field, ext = _enum(Field, "field", field), _uint("ext_degree", ext_degree, _U32_MAX)
        rows, cols = _uint("rows", rows), _uint("cols", cols)
        opts = self._lde_options(n, blowup, shift, input_shift, output_order, input_layout, root, input_kind)
        host = _host(fn, "data", data, _element_size(field))
        _check_len(fn, "data", host, rows, cols, ext)
        rand = None
        if randomizers is not None:
            rand = _host(fn, "randomizers", randomizers, _element_size(field))
            if cols == 0 or ext == 0 or rand.count % (cols * ext):
                raise _error(fn, Status.SHAPE_MISMATCH, "randomizers has %d values, not a multiple of cols x "
                             "ext_degree = %d", rand.count, cols * ext)
            opts.randomizers = rand.ptr
            opts.randomizer_count = rand.count // (cols * ext)
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

    @_api("Context.ntt")
    def ntt(self, buf, *, direction=Direction.FORWARD, shift=0, input_order=Order.NATURAL,
            output_order=Order.NATURAL, root=0):
        """Transforms every column of `buf` in place (rows: a power of two).
        Forward: coefficients -> evaluations on shift * H; inverse:
        evaluations on shift * H -> coefficients. shift 0 means 1. root: the
        root of unity H is drawn from (0: the library's; gp_ntt_options.root).
        Returns buf.
        """
        fn = "gp_ntt_batch"
        o = _NttOptions()
        _lib.gp_ntt_options_init(ctypes.byref(o))
        o.direction = _enum(Direction, "direction", direction)
        o.shift = _uint("shift", shift)
        o.input_order = _enum(Order, "input_order", input_order)
        o.output_order = _enum(Order, "output_order", output_order)
        o.root = _uint("root", root)
        with self._lock:
            h = self._own(fn, buf, "buf")
            _check(fn, self._lib.gp_ntt_batch(self._h(), h, ctypes.byref(o)))
            return buf

    @_api("Context.permute_batch")
    def permute_batch(self, perm, states):
        """Applies `perm` in place to the states stored back to back in
        `states` (a writable buffer or a list, updated in place): 8-byte
        values for Goldilocks permutations and Keccak-f[1600] lanes, 4-byte
        values for BabyBear and KoalaBear. Its length must be a multiple of
        the permutation's width. Returns states. The hashes (BLAKE3, SHA3_256,
        BLAKE3_192) are refused (Status.UNSUPPORTED) whatever states holds, as
        the library does."""
        fn = "gp_permute_batch"
        width, field = permutation_info(perm)
        if int(perm) in _HASHES:
            with self._lock:  # the library answers before looking at the states
                _check(fn, self._lib.gp_permute_batch(self._h(), int(perm), None, 0))
        host = _host(fn, "states", states, _element_size(field) if field else 8, writable=True)
        if width == 0 or host.count % width:
            raise _error(fn, Status.SHAPE_MISMATCH, "states has %d elements, not a multiple of the width %d",
                         host.count, width)
        with self._lock:
            _check(fn, self._lib.gp_permute_batch(self._h(), int(perm), host.ptr, host.count // width))
        host.finish()
        return states


    # -- Merkle trees

    def _matrices(self, function, matrices):
        if isinstance(matrices, Buffer):
            matrices = [matrices]
        matrices = list(matrices)
        if not matrices:
            raise _error(function, Status.INVALID_ARGUMENT, "no matrices (a tree needs at least one)")
        handles = (ctypes.c_void_p * len(matrices))(
            *[self._own(function, m, "matrices[%d]" % i) for i, m in enumerate(matrices)])
        return matrices, handles

    @_api("Context.merkle_commit")
    def merkle_commit(self, matrices, options=None, **kwargs):
        """Commits `matrices` (a Buffer or a list of Buffers of this context,
        over one field; heights powers of two, or for Plonky3's MMCS kinds any
        heights on the ladder ceil(M / 2^k) of the greatest M) as one tree
        (gp_merkle_commit). Options: a MerkleOptions and/or its fields as
        keywords (kind, perm, digest, rate, cap_height, compress_perm); the defaults are
        Plonky3's Poseidon2 MerkleTreeMmcs for the matrices' field. The
        matrices are hashed where they are; the tree keeps them and
        MerkleTree.open() needs them open. Returns a MerkleTree."""
        fn = "gp_merkle_commit"
        opts = _options(MerkleOptions, options, kwargs)
        with self._lock:
            mats, handles = self._matrices(fn, matrices)
            field = mats[0].field
            copts = opts._c(field)
            h = ctypes.c_void_p()
            _check(fn, self._lib.gp_merkle_commit(self._h(), handles, len(mats), ctypes.byref(copts),
                                                  ctypes.byref(h)))
            return MerkleTree._new(self, h.value, mats, opts.resolved(field))

    @_api("Context.merkle_hash_rows")
    def merkle_hash_rows(self, matrices, options=None, **kwargs):
        """The leaf hash of every row of `matrices` (all of one height),
        digest i hashing row i of all matrices concatenated (rows 2i and
        2i + 1 with leaf_rows=2)
        (gp_merkle_hash_rows; cap_height is ignored), as bytes: one digest per
        row, back to back, laid out as MerkleTree.root()."""
        fn = "gp_merkle_hash_rows"
        opts = _options(MerkleOptions, options, kwargs)
        with self._lock:
            mats, handles = self._matrices(fn, matrices)
            field = mats[0].field
            copts = opts._c(field)
            leaves = mats[0].rows // 2 if opts.leaf_rows == 2 else mats[0].rows
            out = ctypes.create_string_buffer(max(1, leaves * opts._digest_bytes(field)))
            size = leaves * opts._digest_bytes(field)
            _check(fn, self._lib.gp_merkle_hash_rows(self._h(), handles, len(mats), ctypes.byref(copts), out, size))
            return out.raw[:size]

    @_api("Context.commit_host")
    def commit_host(self, field, matrices, options=None, *, keep=Keep.DEVICE, device_budget=0, into=None, n=0,
                    blowup=2, shift=0, input_shift=0, output_order=Order.NATURAL, input_layout=Layout.COL_MAJOR,
                    randomizers=None, **kwargs):
        """Commits host traces in one call (gp_commit_host): the coset LDE of
        every matrix, then one Merkle tree over all of them, with the same
        root and openings as lde_host() of each matrix followed by
        merkle_commit() of the LDEs. The columns are streamed through the
        device in batches, so the whole LDE is on the device only with
        Keep.DEVICE.

        matrices: a CommitMatrix (or a (data, rows, cols[, ext_degree[,
        lde_host]]) tuple) or a list of them, over `field`, heights powers of
        two. The LDE keywords are lde_host()'s (n must be 0: each matrix is
        extended over its own rows); the Merkle options are merkle_commit()'s:
        a MerkleOptions and/or its fields as keywords. keep: a Keep;
        device_budget: device bytes the call may use (0: what the device has
        free; no limit on the CPU backend); a budget below the least working
        set raises GpuproverError (Status.INVALID_ARGUMENT) naming that
        minimum. into (Keep.DEVICE only): a list of Buffers of this context,
        one per matrix of its LDE's shape, that receive the LDE instead of new
        ones (gp_commit_options.lde_into; they are not counted in the budget),
        so that trace after trace of one shape reuses them. randomizers:
        None, or the randomizer coefficients of every matrix's columns in
        turn (matrix 0's, then matrix 1's, each laid out as lde_host() takes
        them), the same count per column, added inside the LDE
        (gp_commit_options.lde randomizers): at most n coefficients with
        blowup x count <= max(n, n x blowup / 8), else GpuproverError
        (Status.UNSUPPORTED); Triton VM's tables fit.

        Returns (lde, tree): lde is the list of the kept LDE Buffers (one per
        matrix, Keep.DEVICE: new ones, or `into`) or [] (Keep.HOST,
        Keep.NONE); tree is a
        MerkleTree. The tree's openings read the memory the keep mode names:
        the LDE buffers (Keep.DEVICE: open() raises ClosedError once one was
        closed), each matrix's lde_host (Keep.HOST) or its data (Keep.NONE,
        where every open() call runs the LDE of every column again). The tree
        holds those host objects while it is open; they must not be changed
        meanwhile. A list given as lde_host is filled in after the call; the
        tree then reads a copy of it, as it does for read-only data."""
        fn = "gp_commit_host"
        field = _enum(Field, "field", field)
        keep = _enum(Keep, "keep", keep)
        esize = _element_size(field)
        opts = _options(MerkleOptions, options, kwargs)
        lde_opts = self._lde_options(n, blowup, shift, input_shift, output_order, input_layout)
        if isinstance(matrices, CommitMatrix):
            matrices = [matrices]
        specs = []
        for i, m in enumerate(matrices):
            if not isinstance(m, CommitMatrix):
                if not isinstance(m, (tuple, list)) or not 3 <= len(m) <= 5:
                    raise TypeError("%s: matrices[%d] must be a CommitMatrix or a (data, rows, cols[, ext_degree[, "
                                    "lde_host]]) tuple, not %s" % (_where(fn), i, type(m).__name__))
                m = CommitMatrix(*m)
            specs.append(m)
        if not specs:
            raise _error(fn, Status.INVALID_ARGUMENT, "no matrices (a tree needs at least one)")
        rand = None
        if randomizers is not None:
            rand = _host(fn, "randomizers", randomizers, esize)
            per = sum(_uint("cols", m.cols) * _uint("ext_degree", m.ext_degree, _U32_MAX) for m in specs)
            if per == 0 or rand.count % per:
                raise _error(fn, Status.SHAPE_MISMATCH, "randomizers has %d values, not a multiple of the "
                             "matrices' columns x ext_degree = %d", rand.count, per)
            lde_opts.randomizers = rand.ptr
            lde_opts.randomizer_count = rand.count // per
        count = _uint("len(matrices)", len(specs), _U32_MAX)
        cmats = (_CommitMatrix * count)()
        hosts, dests, shapes = [], [], []
        for i, (m, cm) in enumerate(zip(specs, cmats)):
            rows = _uint("matrices[%d].rows" % i, m.rows)
            cols = _uint("matrices[%d].cols" % i, m.cols)
            ext = _uint("matrices[%d].ext_degree" % i, m.ext_degree, _U32_MAX)
            host = _host(fn, "matrices[%d].data" % i, m.data, esize)
            _check_len(fn, "matrices[%d].data" % i, host, rows, cols, ext)
            cm.data, cm.rows, cm.cols, cm.ext_degree = host.ptr, rows, cols, ext
            hosts.append(host)
            shapes.append((rows, cols, ext))
            if m.lde_host is not None:
                dest = _host(fn, "matrices[%d].lde_host" % i, m.lde_host, esize, writable=True)
                cm.lde_host, cm.lde_host_bytes = dest.ptr, dest.count * esize
                dests.append(dest)
        copts = _CommitOptions()
        _lib.gp_commit_options_init(ctypes.byref(copts))
        cmerkle = opts._c(field)
        copts.lde = ctypes.pointer(lde_opts)
        copts.merkle = ctypes.pointer(cmerkle)
        copts.keep = keep
        copts.device_budget = _uint("device_budget", device_budget)
        with self._lock:
            if into is not None:
                into = list(into)
                handles = (ctypes.c_void_p * max(len(into), 1))(
                    *[self._own(fn, b, "into[%d]" % i) for i, b in enumerate(into)])
                if len(into) != count:
                    raise _error(fn, Status.INVALID_ARGUMENT,
                                 "into has %d buffers for %d matrices" % (len(into), count))
                copts.lde_into = ctypes.cast(handles, ctypes.POINTER(ctypes.c_void_p))
            lde_out = (ctypes.c_void_p * count)() if keep == Keep.DEVICE and into is None else None
            h = ctypes.c_void_p()
            _check(fn, self._lib.gp_commit_host(self._h(), field, cmats, count, ctypes.byref(copts), lde_out,
                                                ctypes.byref(h)))
            lde = [self._wrap(b) for b in lde_out] if lde_out is not None else into if into is not None else []
            for d in dests:
                d.finish()
            # The memory the openings read: the kept buffers (as merkle_commit's
            # trees keep their matrices), or the destinations or the traces.
            held = dests if keep == Keep.HOST else hosts if keep == Keep.NONE else []
            dims = [MatrixDims(rows * lde_opts.blowup, cols, ext) for rows, cols, ext in shapes]
            tree = MerkleTree._new(self, h.value, lde, opts.resolved(field), _opt_enum(Field, field), dims, held)
            return lde, tree

    # -- Constraint commitment, OOD evaluation, DEEP composition

    @_api("Context.constraint_commit")
    def constraint_commit(self, evaluations, options=None, **kwargs):
        """Commits the composition (quotient) polynomial from its evaluations
        (gp_constraint_commit): the Buffer `evaluations` has N D rows and one
        column (base or extension), natural order on shift * <w>. It is split
        into D segments of degree < N, every segment is extended to
        N blowup rows, and the rows of all segments are committed in one
        tree. Options: a ConstraintOptions and/or its fields as keywords.

        Returns (segments, tree): a Buffer of N blowup rows and D columns
        (column i = segment i) and its MerkleTree, which keeps the segments
        as merkle_commit's trees keep their matrices (open() needs them
        open). Close both when done."""
        fn = "gp_constraint_commit"
        opts = _options(ConstraintOptions, options, kwargs)
        with self._lock:
            h_ev = self._own(fn, evaluations, "evaluations")
            field = evaluations.field
            copts = opts._c(field)
            seg, tree = ctypes.c_void_p(), ctypes.c_void_p()
            _check(fn, self._lib.gp_constraint_commit(self._h(), h_ev, ctypes.byref(copts), ctypes.byref(seg),
                                                      ctypes.byref(tree)))
            segments = self._wrap(seg.value)
            return segments, MerkleTree._new(self, tree.value, [segments], opts.merkle.resolved(field))

    def _ood_args(self, function, columns, points, opts):
        """(columns, handles, field, E, total columns, points host, number of
        points) for the OOD and DEEP calls; the context lock is held."""
        if isinstance(columns, Buffer):
            columns = [columns]
        columns = list(columns)
        if not columns:
            raise _error(function, Status.INVALID_ARGUMENT, "no columns (at least one buffer is needed)")
        handles = (ctypes.c_void_p * len(columns))(
            *[self._own(function, c, "columns[%d]" % i) for i, c in enumerate(columns)])
        field = columns[0].field
        ext = _uint("challenge_degree", opts.challenge_degree_for(field), _U32_MAX)
        host = _host(function, "points", points, _element_size(field))
        if host.count == 0 or host.count % ext:
            raise _error(function, Status.SHAPE_MISMATCH,
                         "points holds %d values, not a positive multiple of the challenge degree %d",
                         host.count, ext)
        ncols = sum(c.cols for c in columns)
        return columns, handles, field, ext, ncols, host, _uint("num_points", host.count // ext, _U32_MAX)

    @_api("Context.evaluate_ood")
    def evaluate_ood(self, columns, points, options=None, **kwargs):
        """Evaluates every column of `columns` (a Buffer or a list of Buffers
        of this context, one field, one number of rows M; base columns or
        columns of degree E) at `points` (gp_evaluate_ood): the points back to
        back, E canonical coefficients each, lowest first, none in the
        evaluation coset. Options: an OodOptions and/or its fields as
        keywords.

        Returns an array.array ('Q' or 'I'): for each point, for each buffer
        in order, for each of its columns, f(z) as E coefficients, the value
        at z of the polynomial of degree < degree_bound the rows interpolate.
        """
        fn = "gp_evaluate_ood"
        opts = _options(OodOptions, options, kwargs)
        with self._lock:
            _, handles, field, ext, ncols, pts, npoints = self._ood_args(fn, columns, points, opts)
            esize = _element_size(field)
            out = array.array(_TYPECODE[esize], bytes(npoints * ncols * ext * esize))
            host = _host(fn, "out", out, esize, writable=True)
            copts = opts._c()
            _check(fn, self._lib.gp_evaluate_ood(self._h(), handles, len(handles), ctypes.byref(copts), pts.ptr,
                                                 npoints, host.ptr, host.count * esize))
            return out

    @_api("Context.deep_composition")
    def deep_composition(self, columns, points, values, alphas, output=None, options=None, **kwargs):
        """DEEP composition (gp_deep_composition): writes into `output` (a
        Buffer of this context with M rows and one column of degree E,
        created when None) the codeword

            Q(x) = sum_j sum_k alpha[j][k] (f_k(x) - v[j][k]) / (x - z_j)

        over all M rows of the columns' coset, in the columns' order: k runs
        over the columns of the buffers in order, `points` are the z_j (as
        evaluate_ood takes them), `values` the v as evaluate_ood returns them
        and `alphas` the coefficients in the same layout. Options: an
        OodOptions and/or its fields as keywords. Returns output, ready for
        fri_begin()."""
        fn = "gp_deep_composition"
        opts = _options(OodOptions, options, kwargs)
        with self._lock:
            cols, handles, field, ext, ncols, pts, npoints = self._ood_args(fn, columns, points, opts)
            esize = _element_size(field)
            # The library reads points x columns x E values and alphas
            # without being told their sizes: they are checked here.
            want = npoints * ncols * ext
            vals = _host(fn, "values", values, esize)
            alph = _host(fn, "alphas", alphas, esize)
            for what, host in (("values", vals), ("alphas", alph)):
                if host.count != want:
                    raise _error(fn, Status.SHAPE_MISMATCH,
                                 "%s holds %d values; %d points x %d columns x E = %d needs %d",
                                 what, host.count, npoints, ncols, ext, want)
            created = None
            if output is None:
                output = created = self.buffer(field, cols[0].rows, 1, ext)
            try:
                hout = self._own(fn, output, "output")
                copts = opts._c()
                _check(fn, self._lib.gp_deep_composition(self._h(), handles, len(handles), ctypes.byref(copts),
                                                         pts.ptr, npoints, vals.ptr, alph.ptr, hout))
            except BaseException:
                if created is not None:
                    created.close()
                raise
            return output

    # -- FRI

    def _new_fri(self, handle, field, ext, n, opts, caps):
        return Fri._new(self, handle, field, ext, n, opts.resolved(field), caps)

    @_api("Context.fri_begin")
    def fri_begin(self, codeword, options=None, **kwargs):
        """Starts a FRI commitment of the Buffer `codeword` (one column of any
        supported extension degree, a power-of-two number of rows) and
        commits layer 0 (gp_fri_begin). Options: a FriOptions and/or its
        fields as keywords. The codeword is copied. Returns a Fri."""
        fn = "gp_fri_begin"
        opts = _options(FriOptions, options, kwargs)
        with self._lock:
            h_cw = self._own(fn, codeword, "codeword")
            field = codeword.field
            cap = ctypes.create_string_buffer(max(1, opts._cap_bytes(fn, field)))
            size = opts._cap_bytes(fn, field)
            copts = opts._c(field)
            h = ctypes.c_void_p()
            _check(fn, self._lib.gp_fri_begin(self._h(), h_cw, ctypes.byref(copts), cap, size, ctypes.byref(h)))
            return self._new_fri(h.value, field, codeword.ext_degree, codeword.rows, opts, cap.raw[:size])

    @_api("Context.fri_begin_host")
    def fri_begin_host(self, field, codeword, ext_degree=1, options=None, **kwargs):
        """Like fri_begin(), with the codeword in host memory: n * ext_degree
        canonical values, each element as its ext_degree coefficients, lowest
        first (gp_fri_begin_host)."""
        fn = "gp_fri_begin_host"
        field, ext = _enum(Field, "field", field), _uint("ext_degree", ext_degree, _U32_MAX)
        opts = _options(FriOptions, options, kwargs)
        host = _host(fn, "codeword", codeword, _element_size(field))
        if ext == 0 or host.count % ext:
            raise _error(fn, Status.SHAPE_MISMATCH, "codeword has %d values, not a multiple of ext_degree = %d",
                         host.count, ext)
        size = opts._cap_bytes(fn, field)
        cap = ctypes.create_string_buffer(max(1, size))
        copts = opts._c(field)
        with self._lock:
            h = ctypes.c_void_p()
            _check(fn, self._lib.gp_fri_begin_host(self._h(), field, ext, host.ptr, host.count // ext,
                                                   ctypes.byref(copts), cap, size, ctypes.byref(h)))
            return self._new_fri(h.value, _opt_enum(Field, field), ext, host.count // ext, opts, cap.raw[:size])

    @_api("Context.fri_commit")
    def fri_commit(self, codeword, challenge, options=None, **kwargs):
        """The whole commit phase in one call (gp_fri_commit): commits layer
        0, then for every layer k calls challenge(k, cap_k) and folds with
        the challenge it returns (ext_degree canonical coefficients: a list
        of ints or a buffer of the field's element width).

        An exception raised by `challenge` stops the commitment and is
        re-raised here. `challenge` runs while the context is busy: it must
        not use this context (that raises RuntimeError); derive challenges on
        the host or with another context. Returns a Fri."""
        fn = "gp_fri_commit"
        if not callable(challenge):
            raise TypeError("%s: challenge must be callable, not %s" % (fn, type(challenge).__name__))
        opts = _options(FriOptions, options, kwargs)
        with self._lock:
            h_cw = self._own(fn, codeword, "codeword")
            field, ext = codeword.field, codeword.ext_degree
            esize = _element_size(field)
            copts = opts._c(field)
            caps, betas, raised = bytearray(), bytearray(), []

            def trampoline(user, layer, cap, cap_size, beta, beta_size):
                try:
                    cap_bytes = ctypes.string_at(cap, cap_size) if cap_size else b""
                    with _UserCode():
                        result = challenge(layer, cap_bytes)
                    host = _host(fn, "the challenge", result, esize)
                    if host.count != ext or beta_size != ext * esize:
                        raise _error(fn, Status.SHAPE_MISMATCH,
                                     "the challenge has %d values; one degree-%d element has %d", host.count, ext, ext)
                    ctypes.memmove(beta, host.ptr, beta_size)
                    caps.extend(cap_bytes)
                    betas.extend(_host_bytes(host, esize))
                    return 0
                except BaseException as e:  # never let it unwind into C
                    raised.append(e)
                    st = getattr(e, "status", None)
                    return int(st) if isinstance(st, int) and st != 0 else int(Status.INVALID_ARGUMENT)

            callback = _CHALLENGE_FN(trampoline)
            handle = self._h()
            h = ctypes.c_void_p()
            self._busy = "its challenge callback"
            try:
                st = self._lib.gp_fri_commit(handle, h_cw, ctypes.byref(copts), callback, None, ctypes.byref(h))
            finally:
                self._busy = None
            if raised:
                raise raised[0]
            _check(fn, st)
            f = self._new_fri(h.value, field, ext, codeword.rows, opts, bytes(caps))
            f.folded = f.layer_count
            f._betas = bytearray(betas)
            return f


class _Handle:
    """What Buffer, MerkleTree and Fri share: a library handle owned by a
    Context (which it keeps alive), destroyed with `_destroy` (the name of
    the gp_*_destroy function). Closing the context releases it too."""

    _destroy = None

    @classmethod
    def _new(cls, ctx, handle, *args):
        obj = cls.__new__(cls)
        obj._init(ctx, handle, *args)
        return obj

    def _adopt(self, ctx, handle):
        self._ctx = ctx
        self._lib = ctx._lib
        self._handle = handle

    @property
    def context(self):
        return self._ctx

    @property
    def closed(self):
        return self._handle is None or self._ctx._handle is None

    def _h(self):
        kind = type(self).__name__
        if self._handle is None:
            raise ClosedError("%s: the %s is closed" % (_method(kind), kind))
        if self._ctx._handle is None:
            raise ClosedError("%s: the %s's Context is closed" % (_method(kind), kind))
        self._ctx._h()  # not while the context is busy in a callback
        return self._handle

    def _release(self):
        # Context lock held.
        if self._handle is not None and self._ctx._handle is not None:
            with _Destroying():
                getattr(self._lib, self._destroy)(self._handle)
        self._handle = None

    def close(self):
        """Destroys the object. Idempotent; a no-op after its context closed."""
        name = "%s.close" % type(self).__name__
        if getattr(_tls, "method", None) is None:
            _tls.method = name
            try:
                return self._close()
            finally:
                _tls.method = None
        return self._close()

    def _close(self):
        with self._ctx._lock:
            self._ctx._check_idle()
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


class Buffer(_Handle):
    """A rows x cols matrix of field elements owned by the library (device
    memory on the CUDA backend). Created by Context.buffer(),
    Context.buffer_from_host(), Context.lde(), Context.lde_host() and
    Context.from_dlpack(). Use it as a context manager or call close().

    It is a DLPack producer (``__dlpack__``, ``__dlpack_device__``): a 2-D
    uint64 (Goldilocks) or uint32 tensor of shape [cols * ext_degree, rows],
    one base column per tensor row, on kDLCPU (CPU backend) or kDLCUDA, a
    view of the buffer's memory. An exported tensor keeps the Buffer (and its
    Context) alive until its consumer releases it; close() raises
    BufferError meanwhile."""

    def __init__(self, *args, **kwargs):
        raise TypeError("create buffers with Context.buffer() or Context.buffer_from_host()")

    _destroy = "gp_buffer_destroy"

    def _init(self, ctx, handle):
        self._adopt(ctx, handle)
        self._exports = 0  # DLPack tensors alive (see __dlpack__)
        self._dlpack_source = None  # what a buffer imported with from_dlpack came from
        lib = ctx._lib
        self.rows = int(lib.gp_buffer_rows(handle))
        self.cols = int(lib.gp_buffer_cols(handle))
        self.field = _opt_enum(Field, lib.gp_buffer_field(handle))
        self.ext_degree = int(lib.gp_buffer_ext_degree(handle))
        self.size_bytes = int(lib.gp_buffer_size_bytes(handle))

    @property
    def size(self):
        """Number of base-field values: rows * cols * ext_degree."""
        return self.rows * self.cols * self.ext_degree

    def __repr__(self):
        name = self.field.name.lower() if isinstance(self.field, Field) else self.field
        ext = "^%d" % self.ext_degree if self.ext_degree != 1 else ""
        return "<gpuprover.Buffer %s%s %dx%d%s>" % (name, ext, self.rows, self.cols, " closed" if self.closed else "")

    @_api("Buffer.to_host")
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

    @_api("Buffer.tolist")
    def tolist(self, layout=Layout.COL_MAJOR):
        """The buffer's values as a list of ints, in `layout`."""
        return self.to_host(layout).tolist()

    def _close(self):
        with self._ctx._lock:
            self._ctx._check_idle()
            if self._exports and not self.closed:
                raise BufferError("%s: %d DLPack export(s) of the Buffer are still alive; release the consumers' "
                                  "tensors (or close the buffers imported from them) first"
                                  % (_method("Buffer.close"), self._exports))
            self._release()

    # -- DLPack

    def _export(self):
        """gp_buffer_to_dlpack: a DLManagedTensor (the context lock held)."""
        t = ctypes.POINTER(_DLManagedTensor)()
        _check("gp_buffer_to_dlpack", self._lib.gp_buffer_to_dlpack(self._h(), ctypes.byref(t)))
        return t.contents

    @_api("Buffer.__dlpack_device__")
    def __dlpack_device__(self):
        """(device_type, device_id) of the DLPack protocol: (1, 0) (kDLCPU)
        on the CPU backend, (2, ordinal) (kDLCUDA) on the CUDA backend."""
        with self._ctx._lock:
            t = self._export()
            dev = (int(t.dl_tensor.device.device_type), int(t.dl_tensor.device.device_id))
            t.deleter(ctypes.addressof(t))
            return dev

    @_api("Buffer.__dlpack__")
    def __dlpack__(self, stream=None, max_version=None, dl_device=None, copy=None):
        """Exports the buffer as a DLPack capsule named "dltensor" (DLPack
        0.6, gp_buffer_to_dlpack), without a copy. `stream` is accepted and
        needs no synchronization: the library's calls return after their
        device work is done. `max_version` is ignored (the capsule is the
        unversioned kind); `copy=True` and a `dl_device` other than the
        buffer's raise BufferError. A consumer takes the tensor by renaming
        the capsule "used_dltensor" and calls its deleter when done; a
        capsule never consumed calls it when it is collected."""
        if copy:
            raise BufferError("Buffer.__dlpack__: copy=True is not supported; the tensor is a view of the buffer")
        if dl_device is not None and tuple(dl_device) != self.__dlpack_device__():
            raise BufferError("Buffer.__dlpack__: dl_device = %r is not the buffer's device %r"
                              % (tuple(dl_device), self.__dlpack_device__()))
        with self._ctx._lock:
            t = self._export()
            addr = ctypes.addressof(t)
            with _EXPORTS_LOCK:
                _EXPORTS[addr] = [self, t.deleter, None]
                self._exports += 1
            t.deleter = _EXPORT_DELETER
            try:
                return _PyCapsule_New(addr, _DLTENSOR_NAME_ADDR, _CAPSULE_DESTRUCTOR)
            except BaseException:
                _export_deleter(addr)
                raise


# ---------------------------------------------------------------------------
# DLPack capsules (the Python protocol: a PyCapsule named "dltensor" holding
# a DLManagedTensor *, renamed "used_dltensor" by the consumer that takes it)

# Private prototypes (ctypes.pythonapi's attributes are shared with every
# other user of ctypes, who may set other argtypes on them).
_pyapi = ctypes.pythonapi
_CAPSULE_DESTRUCTOR_T = ctypes.CFUNCTYPE(None, _vp)
_PyCapsule_New = ctypes.PYFUNCTYPE(ctypes.py_object, _vp, _vp, _CAPSULE_DESTRUCTOR_T)(("PyCapsule_New", _pyapi))
_PyCapsule_IsValid = ctypes.PYFUNCTYPE(ctypes.c_int, ctypes.py_object, ctypes.c_char_p)(("PyCapsule_IsValid", _pyapi))
_PyCapsule_GetPointer = ctypes.PYFUNCTYPE(_vp, ctypes.py_object, ctypes.c_char_p)(("PyCapsule_GetPointer", _pyapi))
_PyCapsule_SetName = ctypes.PYFUNCTYPE(ctypes.c_int, ctypes.py_object, _vp)(("PyCapsule_SetName", _pyapi))
# For the destructor, which gets the capsule's address while it is being
# deallocated: plain C calls, which neither touch its reference count nor
# look at a pending exception.
_capsule_name = ctypes.CFUNCTYPE(_vp, _vp)(("PyCapsule_GetName", _pyapi))
_capsule_pointer = ctypes.CFUNCTYPE(_vp, _vp, _vp)(("PyCapsule_GetPointer", _pyapi))

# Capsule names must outlive the capsules: module constants.
_DLTENSOR_NAME = ctypes.create_string_buffer(b"dltensor")
_DLTENSOR_NAME_ADDR = ctypes.addressof(_DLTENSOR_NAME)
_USED_NAME = ctypes.create_string_buffer(b"used_dltensor")
_USED_NAME_ADDR = ctypes.addressof(_USED_NAME)

# Exported tensors alive: address -> [Buffer, the library's deleter, weak
# reference to the Context that imported it or None]. The entry keeps the
# Buffer (and its Context) alive until the tensor's deleter runs.
_EXPORTS = {}
_EXPORTS_LOCK = threading.Lock()


def _capsule_destructor(capsule):
    """Calls the tensor's deleter of a capsule that nobody consumed (one
    still named "dltensor", by our name pointer)."""
    try:
        name = _capsule_name(capsule)
        if name != _DLTENSOR_NAME_ADDR:
            return  # consumed: renamed by its consumer
        ptr = _capsule_pointer(capsule, name)
        if ptr:
            deleter = _DLManagedTensor.from_address(ptr).deleter
            if deleter:
                deleter(ptr)
    except BaseException:  # never raise from a destructor
        pass


def _export_deleter(ptr):
    """The deleter of the tensors Buffer.__dlpack__ exports: frees the
    tensor and lets go of its Buffer. When a library destroy runs it (a
    buffer imported from the tensor was destroyed), letting go, which may
    destroy the Buffer, waits until that destroy has returned."""
    try:
        with _EXPORTS_LOCK:
            rec = _EXPORTS.pop(ptr, None)
            if rec is not None:
                rec[0]._exports -= 1
        if rec is None:
            return
        rec[1](ptr)
        if getattr(_tls, "destroying", 0):
            grave = getattr(_tls, "graveyard", None)
            if grave is None:
                grave = _tls.graveyard = []
            grave.append(rec)
    except BaseException:  # never raise into C
        pass


_CAPSULE_DESTRUCTOR = _CAPSULE_DESTRUCTOR_T(_capsule_destructor)
_EXPORT_DELETER = _DL_DELETER(_export_deleter)


def _exports_of(ctx):
    """How many tensors exported from ctx's buffers are alive, not counting
    those imported into ctx itself (released with it)."""
    with _EXPORTS_LOCK:
        return sum(1 for buf, _, consumer in _EXPORTS.values()
                   if buf._ctx is ctx and (consumer is None or consumer() is not ctx))


# ---------------------------------------------------------------------------
# Merkle trees


class MerkleTree(_Handle):
    """A committed Merkle tree (gp_merkle_tree): every layer up to the root,
    on the device for the CUDA backend. Created by Context.merkle_commit()
    and Context.commit_host(). It refers to its matrices: open() raises
    ValueError once one of them was closed. A tree of Context.commit_host()
    with Keep.HOST or Keep.NONE holds the host memory its openings read
    until it is closed. Use it as a context manager or call close()."""

    def __init__(self, *args, **kwargs):
        raise TypeError("create trees with Context.merkle_commit()")

    _destroy = "gp_merkle_tree_destroy"

    def _init(self, ctx, handle, matrices, options, field=None, dims=None, host=()):
        self._adopt(ctx, handle)
        self._matrices = list(matrices)
        # Host memory the openings read (Context.commit_host with Keep.HOST or
        # Keep.NONE), held while the tree is.
        self._host = list(host)
        self.field = _opt_enum(Field, matrices[0].field) if field is None else field
        self.options = options
        self.dims = [MatrixDims(m.rows, m.cols, m.ext_degree) for m in matrices] if dims is None else list(dims)
        self.digest_size = int(self._lib.gp_merkle_digest_size(handle))
        self.cap_size = int(self._lib.gp_merkle_cap_size(handle))

    def _release(self):
        _Handle._release(self)
        self._host = []

    def __repr__(self):
        return "<gpuprover.MerkleTree %s %s %d matrices%s>" % (
            getattr(self.field, "name", self.field), getattr(self.options.kind, "name", self.options.kind),
            len(self.dims), " closed" if self.closed else "")

    def _read(self, fn, size):
        with self._ctx._lock:
            out = ctypes.create_string_buffer(max(1, size))
            _check(fn, getattr(self._lib, fn)(self._h(), out, size))
            return out.raw[:size]

    @_api("MerkleTree.root")
    def root(self):
        """The root digest as bytes (gp_merkle_root): field digests element by
        element, canonical, little-endian; Keccak digests as the 32 hash
        bytes."""
        return self._read("gp_merkle_root", self.digest_size)

    @_api("MerkleTree.cap")
    def cap(self):
        """The cap, 2**cap_height digests left to right (gp_merkle_cap): what
        openings verify against."""
        return self._read("gp_merkle_cap", self.cap_size)

    @_api("MerkleTree.sp1_commitment")
    def sp1_commitment(self):
        """SP1's commitment of the tree (gp_merkle_sp1_commitment):
        compress(root, sponge([log2 height, width])), what SP1 v6's verifier
        checks the root of an opening against. Field-sponge trees of one
        height only (GpuproverError with GP_ERR_UNSUPPORTED otherwise)."""
        return self._read("gp_merkle_sp1_commitment", self.digest_size)

    @_api("MerkleTree.opening_size")
    def opening_size(self):
        """(row_bytes, path_bytes) per opened index (gp_merkle_opening_size)."""
        with self._ctx._lock:
            r, p = _u64(), _u64()
            _check("gp_merkle_opening_size",
                   self._lib.gp_merkle_opening_size(self._h(), ctypes.byref(r), ctypes.byref(p)))
            return r.value, p.value

    @_api("MerkleTree.open")
    def open(self, indices):
        """Opens the leaves at `indices` (an int or a sequence of rows of the
        tallest matrices; gp_merkle_open). Returns a list of MerkleOpening."""
        fn = "gp_merkle_open"
        if isinstance(indices, int):
            indices = [indices]
        idx = [_uint("indices[%d]" % i, x) for i, x in enumerate(indices)]
        with self._ctx._lock:
            h = self._h()
            for m in self._matrices:
                if m.closed:
                    raise ClosedError("%s: a committed matrix was closed; the opening would read it"
                                      % _method(fn))
            if not idx:
                return []
            rb, pb = self.opening_size()
            n = len(idx)
            rows = ctypes.create_string_buffer(max(1, n * rb))
            paths = ctypes.create_string_buffer(max(1, n * pb))
            _check(fn, self._lib.gp_merkle_open(h, (_u64 * n)(*idx), n, rows if rb else None, n * rb,
                                                paths if pb else None, n * pb))
            rows, paths = rows.raw, paths.raw
            return [MerkleOpening(i, _elements_from_bytes(self.field, rows[j * rb:(j + 1) * rb]),
                                  paths[j * pb:(j + 1) * pb]) for j, i in enumerate(idx)]

    @_api("MerkleTree.verify")
    def verify(self, opening):
        """Checks a MerkleOpening against the tree's cap with merkle_verify:
        returns None when it is valid, raises VerifyError when not."""
        return merkle_verify(self.options, self.field, self.dims, self.cap(), opening.index, opening.rows,
                             opening.path)


@_api("merkle_verify")
def merkle_verify(options, field, dims, cap, index, rows, path):
    """Checks one opening on the host, without a context (gp_merkle_verify):
    recomputes the leaf from `rows` (the opened rows of matrices of shapes
    `dims` — MatrixDims or (rows, cols, ext_degree) tuples — in commit order,
    over `field`; empty, or None, when the opened row is, as for matrices of
    0 columns), walks `path` (bytes) up to the cap (bytes) and compares
    with the cap's digest. `options` (a MerkleOptions, or None for the
    defaults) must be those of the commitment.

    Returns None for a valid opening and raises VerifyError for an invalid
    one; malformed arguments (sizes that do not fit the shapes, an index past
    the end, non-canonical row elements) raise another GpuproverError."""
    fn = "gp_merkle_verify"
    opts = _options(MerkleOptions, options, {})
    field = _enum(Field, "field", field)
    esize = _element_size(field)
    dims = [MatrixDims(*d) for d in dims]
    if not dims:
        raise _error(fn, Status.INVALID_ARGUMENT, "no matrix shapes (a tree has at least one matrix)")
    cdims = (_MatrixDims * len(dims))(*[
        _MatrixDims(_uint("rows", d.rows), _uint("cols", d.cols, _U32_MAX), _uint("ext_degree", d.ext_degree, _U32_MAX))
        for d in dims])
    host = _host(fn, "rows", b"" if rows is None else rows, esize)
    want = sum(d.cols * d.ext_degree for d in dims) * (2 if opts.leaf_rows == 2 else 1)
    if host.count != want:
        raise _error(fn, Status.SHAPE_MISMATCH, "rows has %d elements; the shapes give %d per opening", host.count,
                     want)
    cap_buf, cap_size = _bytes_arg(fn, "cap", cap)
    path_buf, path_size = _bytes_arg(fn, "path", path)
    copts = opts._c(field)
    _check(fn, _lib.gp_merkle_verify(ctypes.byref(copts), field, cdims, len(dims), cap_buf, cap_size,
                                     _uint("index", index), host.ptr, host.count * esize, path_buf, path_size))


# ---------------------------------------------------------------------------
# FRI


class Fri(_Handle):
    """A FRI commitment in progress or done (gp_fri): every layer and its
    tree, on the device for the CUDA backend. Created by Context.fri_begin(),
    fri_begin_host() and fri_commit(). It keeps the caps the library wrote
    and the challenges it was folded with, for verify(). Use it as a context
    manager or call close()."""

    def __init__(self, *args, **kwargs):
        raise TypeError("create FRI commitments with Context.fri_begin() or Context.fri_commit()")

    _destroy = "gp_fri_destroy"

    def _init(self, ctx, handle, field, ext_degree, n, options, first_cap):
        self._adopt(ctx, handle)
        self.field = _opt_enum(Field, field)
        self.ext_degree = ext_degree
        self.n = n
        self.options = options
        self.layer_count = int(self._lib.gp_fri_layer_count(handle))
        self.cap_size = int(self._lib.gp_fri_cap_size(handle))
        self.folded = 0
        self._caps = bytearray(first_cap)
        self._betas = bytearray()

    def __repr__(self):
        return "<gpuprover.Fri %s^%d n=%d %d/%d folded%s>" % (
            getattr(self.field, "name", self.field), self.ext_degree, self.n, self.folded, self.layer_count,
            " closed" if self.closed else "")

    def cap(self, layer):
        """The cap of committed layer `layer` (bytes), or None if it is not
        committed (yet)."""
        start = layer * self.cap_size
        if layer < 0 or start + self.cap_size > len(self._caps):
            return None
        return bytes(self._caps[start:start + self.cap_size])

    @property
    def caps(self):
        """The caps of the layers committed so far, back to back (after the
        last fold: layer_count caps, as fri_verify takes them)."""
        return bytes(self._caps)

    @property
    def betas(self):
        """The challenges folded with so far, ext_degree values each, as an
        array.array."""
        return _elements_from_bytes(self.field, self._betas)

    @_api("Fri.fold")
    def fold(self, beta):
        """Folds the last committed layer with `beta` (ext_degree canonical
        coefficients; gp_fri_fold). Unless it is the last fold, the folded
        layer is committed and its cap kept (cap()). Raises once every layer
        has been folded."""
        fn = "gp_fri_fold"
        esize = _element_size(self.field)
        host = _host(fn, "beta", beta, esize)
        if host.count != self.ext_degree:
            raise _error(fn, Status.SHAPE_MISMATCH, "beta has %d values; a challenge is one degree-%d element",
                         host.count, self.ext_degree)
        with self._ctx._lock:
            cap = ctypes.create_string_buffer(max(1, self.cap_size))
            _check(fn, self._lib.gp_fri_fold(self._h(), host.ptr, host.count * esize, cap, self.cap_size))
            self.folded += 1
            if self.folded < self.layer_count:
                self._caps.extend(cap.raw[:self.cap_size])
            self._betas.extend(_host_bytes(host, esize))

    @property
    @_api("Fri.remainder_size")
    def remainder_size(self):
        """Bytes of the remainder: final_size * ext_degree * element size."""
        with self._ctx._lock:
            return int(self._lib.gp_fri_remainder_size(self._h()))

    def _remainder_bytes(self):
        size = int(self._lib.gp_fri_remainder_size(self._handle))
        out = ctypes.create_string_buffer(max(1, size))
        _check("gp_fri_remainder", self._lib.gp_fri_remainder(self._h(), out, size))
        return out.raw[:size]

    @_api("Fri.remainder")
    def remainder(self):
        """The remainder once every layer has been folded (gp_fri_remainder):
        final_size extension elements in the codeword's order, as an
        array.array."""
        with self._ctx._lock:
            self._h()
            return _elements_from_bytes(self.field, self._remainder_bytes())

    @property
    @_api("Fri.opening_size")
    def opening_size(self):
        """Bytes of one query's opening: per layer its group (arity extension
        elements) and the group's Merkle path (gp_fri_opening_size)."""
        with self._ctx._lock:
            return int(self._lib.gp_fri_opening_size(self._h()))

    @_api("Fri.open")
    def open(self, indices):
        """Opens the queries at `indices` (an int or a sequence of positions
        < n in the codeword's order) after the last fold (gp_fri_open).
        Returns a list of bytes, one opening per index."""
        fn = "gp_fri_open"
        if isinstance(indices, int):
            indices = [indices]
        idx = [_uint("indices[%d]" % i, x) for i, x in enumerate(indices)]
        with self._ctx._lock:
            h = self._h()
            each = int(self._lib.gp_fri_opening_size(h))
            n = len(idx)
            out = ctypes.create_string_buffer(max(1, n * each))
            _check(fn, self._lib.gp_fri_open(h, (_u64 * max(1, n))(*idx), n, out, n * each))
            raw = out.raw
            return [raw[j * each:(j + 1) * each] for j in range(n)]

    @_api("Fri.verify")
    def verify(self, index, opening):
        """Checks one query's opening against this commitment's caps,
        challenges and remainder with fri_verify: returns None when it is
        valid, raises VerifyError when not."""
        with self._ctx._lock:
            self._h()
            remainder = self._remainder_bytes()
        _fri_verify(self.options, self.field, self.ext_degree, self.n, bytes(self._caps), bytes(self._betas),
                    remainder, index, opening)


def _fri_verify(options, field, ext_degree, n, caps, betas, remainder, index, opening):
    fn = "gp_fri_verify"
    field = _enum(Field, "field", field)
    copts = options._c(field)
    bufs = [_bytes_arg(fn, what, v) for what, v in
            (("caps", caps), ("betas", betas), ("remainder", remainder), ("opening", opening))]
    _check(fn, _lib.gp_fri_verify(ctypes.byref(copts), field, _uint("ext_degree", ext_degree, _U32_MAX), _uint("n", n),
                                  bufs[0][0], bufs[0][1], bufs[1][0], bufs[1][1], bufs[2][0], bufs[2][1],
                                  _uint("index", index), bufs[3][0], bufs[3][1]))


@_api("fri_verify")
def fri_verify(options, field, ext_degree, n, caps, betas, remainder, index, opening):
    """Checks one FRI query on the host, without a context (gp_fri_verify):
    every layer's group against that layer's cap (`caps`: bytes, one cap per
    layer back to back), and every fold (`betas`: ext_degree values per layer)
    against the next layer's group or the `remainder` (values). `n` is the
    codeword size, `options` (a FriOptions, or None for the defaults) those
    of the commitment, `opening` the bytes Fri.open() gave for `index`.

    Returns None for a valid opening and raises VerifyError for an invalid
    one; malformed arguments raise another GpuproverError."""
    fn = "gp_fri_verify"
    opts = _options(FriOptions, options, {})
    esize = _element_size(_enum(Field, "field", field))
    betas = _host_bytes(_host(fn, "betas", betas, esize), esize)
    remainder = _host_bytes(_host(fn, "remainder", remainder, esize), esize)
    _fri_verify(opts, field, ext_degree, n, caps, betas, remainder, index, opening)
