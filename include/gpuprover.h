// SPDX-License-Identifier: MIT OR Apache-2.0
/*
 * gpuprover.h - GPU commitment primitives for STARK provers (C99 ABI).
 *
 * gpuprover computes the expensive, data-parallel parts of a STARK commitment
 * (batched coset low-degree extensions and NTTs, Merkle commitments in the
 * provers' conventions, FRI, out-of-domain evaluation, DEEP composition and
 * the constraint commitment) on a CUDA GPU or on the CPU, with bit-identical
 * results on both backends.
 *
 * Conventions that hold for every function in this header:
 *
 *  - Every fallible function returns a gp_status. GP_OK (0) means success.
 *    On failure, gp_last_error() returns a thread-local, human-readable
 *    message that names the offending argument and its value. Nothing throws
 *    or aborts across this ABI, and a failed call leaves every handle usable.
 *  - Every handle has exactly one create and one destroy function; destroying
 *    NULL is a no-op. A handle that was destroyed (or whose context was)
 *    is recognised without being read: a call given one returns
 *    GP_ERR_INVALID_ARGUMENT, a destroy function given one does nothing, and
 *    a getter returns 0.
 *  - Option structs start with `struct_size` and have a *_options_init()
 *    function that fills the defaults. Always call the init function first, so
 *    that later library versions can append fields without breaking callers.
 *  - Field elements cross the ABI in canonical form: Goldilocks as uint64_t in
 *    [0, p), BabyBear and KoalaBear as uint32_t in [0, p) (never Montgomery).
 *    Host input holding a value >= p is rejected with GP_ERR_NON_CANONICAL
 *    (gp_last_error() names the first offending index); it is never reduced
 *    silently.
 *  - Extension-field elements are stored as their d base-field coefficients,
 *    lowest degree first (the layout of Plonky3's BinomialExtensionField).
 *    Supported degrees: Goldilocks 1, 2, 3; BabyBear and KoalaBear 1, 4.
 *  - Sizes are uint64_t. Size products are checked for overflow and against
 *    available memory before anything is allocated.
 *  - Contexts, and every handle of a context, may be used from several
 *    threads at once: the calls on one context are serialized (a call waits
 *    for the one in flight), calls on distinct contexts run concurrently.
 *    For parallel work, give each thread its own context. Buffers, trees and
 *    FRI commitments belong to the context that created them; destroying the
 *    context releases those still alive.
 */
#ifndef GPUPROVER_H
#define GPUPROVER_H

#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

#if defined(_WIN32)
#define GP_API
#elif defined(__GNUC__) || defined(__clang__)
#define GP_API __attribute__((visibility("default")))
#else
#define GP_API
#endif

/* ------------------------------------------------------------------------ */
/* Version                                                                  */
/* ------------------------------------------------------------------------ */

#define GP_VERSION_MAJOR 0
#define GP_VERSION_MINOR 1
#define GP_VERSION_PATCH 0
/** Version as one number: major * 10000 + minor * 100 + patch. */
#define GP_VERSION_NUMBER \
    (GP_VERSION_MAJOR * 10000 + GP_VERSION_MINOR * 100 + GP_VERSION_PATCH)

/** Returns the library version string, e.g. "0.1.0". Never NULL. */
GP_API const char *gp_version(void);

/** Returns the version of the loaded library as GP_VERSION_NUMBER would. */
GP_API uint32_t gp_version_number(void);

/* ------------------------------------------------------------------------ */
/* Status codes and errors                                                  */
/* ------------------------------------------------------------------------ */

typedef enum gp_status {
    GP_OK = 0,
    /** An argument has a value outside its documented range. */
    GP_ERR_INVALID_ARGUMENT = 1,
    /** A required pointer argument was NULL. */
    GP_ERR_NULL_POINTER = 2,
    /** The combination is valid in principle but not supported (yet). */
    GP_ERR_UNSUPPORTED = 3,
    /** A CUDA backend was requested but no usable GPU exists. */
    GP_ERR_NO_DEVICE = 4,
    /** Host memory could not be allocated. */
    GP_ERR_HOST_OUT_OF_MEMORY = 5,
    /** Device memory could not be allocated, or the request exceeds it. */
    GP_ERR_DEVICE_OUT_OF_MEMORY = 6,
    /** A size product overflows 64 bits. */
    GP_ERR_SIZE_OVERFLOW = 7,
    /** Buffers or arguments of different fields / extension degrees. */
    GP_ERR_FIELD_MISMATCH = 8,
    /** A buffer was created by a different context. */
    GP_ERR_CONTEXT_MISMATCH = 9,
    /** Buffer shapes (rows, columns) do not fit the operation. */
    GP_ERR_SHAPE_MISMATCH = 10,
    /** A size exceeds the field's two-adicity (no root of unity of that order). */
    GP_ERR_TWO_ADICITY = 11,
    /** Input contains a value that is not a canonical field element. */
    GP_ERR_NON_CANONICAL = 12,
    /** The CUDA runtime reported an error. */
    GP_ERR_CUDA = 13,
    /** An internal invariant failed; please report it. */
    GP_ERR_INTERNAL = 14,
    /** A proof or opening did not verify. */
    GP_ERR_VERIFY_FAILED = 15,
    /** The call was cancelled with gp_context_cancel(); it stopped at a
     *  batch or layer boundary and left every handle usable. */
    GP_ERR_CANCELLED = 16,
    /** The server of a remote context cannot be reached, refused the
     *  session (version, token, quota) or went away; the message says which.
     *  A context whose server went away fails every later call with it. */
    GP_ERR_REMOTE = 17
} gp_status;

/** Returns the symbolic name of a status ("GP_OK", "GP_ERR_NO_DEVICE", ...).
 *  Any other int (a C caller may pass one) gives "GP_ERR_UNKNOWN". Never
 *  NULL. */
GP_API const char *gp_status_name(gp_status status);

/** Returns the message of the last failed call on this thread, or "" if the
 *  last call succeeded. The pointer stays valid until the next gp_* call on
 *  the same thread. Never NULL. */
GP_API const char *gp_last_error(void);

/* ------------------------------------------------------------------------ */
/* Fields                                                                   */
/* ------------------------------------------------------------------------ */

typedef enum gp_field {
    /** p = 2^64 - 2^32 + 1, elements uint64_t, generator 7, two-adicity 32. */
    GP_FIELD_GOLDILOCKS = 1,
    /** p = 2^31 - 2^27 + 1, elements uint32_t, generator 31, two-adicity 27. */
    GP_FIELD_BABYBEAR = 2,
    /** p = 2^31 - 2^24 + 1, elements uint32_t, generator 3, two-adicity 24. */
    GP_FIELD_KOALABEAR = 3
} gp_field;

/** Which extension of the field a degree-D element belongs to. The
 *  elements are stored alike (D canonical base coefficients, lowest degree
 *  first); only their products differ. */
typedef enum gp_extension {
    /** Plonky3's extensions: Goldilocks D = 2 with X^2 = 7, D = 3 with
     *  X^3 = X + 1; BabyBear D = 4 with X^4 = 11; KoalaBear D = 4 with
     *  X^4 = 3. */
    GP_EXT_PLONKY3 = 0,
    /** Triton VM's XFieldElement (twenty-first): Goldilocks D = 3 with
     *  X^3 = X - 1 (the Shah polynomial X^3 - X + 1). Goldilocks only, with
     *  D = 3 (or 1, where no extension is involved). */
    GP_EXT_TRITON = 1
} gp_extension;

/** Bytes per base-field element (8 or 4), or 0 for an unknown field. */
GP_API uint32_t gp_field_element_size(gp_field field);

/** Writes the field's modulus, multiplicative generator (the default LDE
 *  coset shift) and two-adicity. Any output pointer may be NULL. */
GP_API gp_status gp_field_info(gp_field field, uint64_t *modulus,
                               uint64_t *generator, uint32_t *two_adicity);

/** Writes the primitive 2^log_n-th root of unity the library uses for
 *  size-2^log_n transforms (the same as Plonky3's two_adic_generator). */
GP_API gp_status gp_field_two_adic_generator(gp_field field, uint32_t log_n,
                                             uint64_t *root);

/* ------------------------------------------------------------------------ */
/* Context                                                                  */
/* ------------------------------------------------------------------------ */

typedef enum gp_backend {
    /** The server named by the GPUPROVER_SERVER environment variable when it
     *  is set and reachable (see GP_BACKEND_REMOTE); otherwise CUDA if a
     *  usable GPU exists, else the CPU. */
    GP_BACKEND_AUTO = 0,
    GP_BACKEND_CPU = 1,
    GP_BACKEND_CUDA = 2,
    /** A gpuprover-server process (docs/SERVER.md), reached at
     *  `gp_context_options.endpoint` or, when that is NULL, at the
     *  GPUPROVER_SERVER environment variable: a unix socket path
     *  ("/tmp/gpu-prover.sock", or "unix:/path"), "HOST:PORT", or several
     *  of those separated by commas (sessions are spread over them). Every
     *  entry point gives the same bytes as in process or fails with a
     *  status: gp_buffer_wrap, gp_buffer_data, DLPack import and export and
     *  gp_context_set_stream return GP_ERR_UNSUPPORTED (the memory lives in
     *  the server's process), as does a Merkle tree whose tallest matrix
     *  height is not a power of two; a server's limits (docs/SERVER.md)
     *  refuse with a status naming the limit. Buffers and trees live on the
     *  server's device. On the same host bulk
     *  data goes through shared memory. The GPUPROVER_TRANSPORT
     *  environment variable picks the session's transport: "direct" (the
     *  default; framed messages on the socket) or "grpc"; another value
     *  fails with GP_ERR_INVALID_ARGUMENT. Creating the context fails with
     *  GP_ERR_REMOTE when no server answers. The remote client is a plugin,
     *  libgpuprover-remote.so.VERSION, loaded by the first remote context
     *  (in-process contexts load no RPC library): from the
     *  GPUPROVER_REMOTE_PLUGIN environment variable's path, else the
     *  directory libgpuprover.so was loaded from, else the dynamic loader's
     *  path; without it creating the context fails with
     *  GP_ERR_UNSUPPORTED, naming where it looked. */
    GP_BACKEND_REMOTE = 3
} gp_backend;

/** Priority of a remote context's jobs in the server's queue: higher runs
 *  first; within a priority, first come first served. A waiting job gains
 *  one priority level per `--aging-ms` of waiting (default 2000 ms), so
 *  low-priority work is never starved for long. */
typedef enum gp_priority {
    GP_PRIORITY_NORMAL = 0,
    GP_PRIORITY_LOW = 1,
    GP_PRIORITY_HIGH = 2
} gp_priority;

typedef struct gp_context gp_context;

/** A `gp_context_options.devices` entry meaning every visible GPU (as the
 *  list's only entry). */
#define GP_DEVICES_ALL (-1)

typedef struct gp_context_options {
    uint32_t struct_size;
    /** Which backend to use. Default GP_BACKEND_AUTO. */
    gp_backend backend;
    /** The devices the context owns: CUDA device ordinals; NULL (default)
     *  means device 0. The array is copied. With more than one entry every
     *  buffer is spread over the devices by blocks of columns and every call
     *  runs on all of them (see "Several devices" below). An ordinal may be
     *  listed more than once: each entry is a share of its GPU with its own
     *  streams and memory. A list holding only GP_DEVICES_ALL means every
     *  visible GPU. On the CPU backend (and when GP_BACKEND_AUTO falls back
     *  to it) the length of the list is the number of emulated devices: the
     *  worker threads are divided into that many shares, which run the same
     *  split and exchange as GPUs; the values are not used. */
    const int32_t *devices;
    uint32_t num_devices;
    /** Worker threads of the CPU backend (and of host-side staging on the
     *  CUDA backend); 0 (default) means one per hardware thread. */
    uint32_t cpu_threads;
    /** GP_BACKEND_REMOTE (and AUTO): the server's address, as
     *  GPUPROVER_SERVER takes it (see GP_BACKEND_REMOTE); NULL (default)
     *  means that variable. Copied. (Appended in 0.1.0, with the fields
     *  below.) */
    const char *endpoint;
    /** Priority of this context's jobs on the server. Default
     *  GP_PRIORITY_NORMAL. Ignored in process. */
    gp_priority priority;
    /** Nonzero: the server runs this context's jobs on its CPU worker pool
     *  (bit-identical; for work that is faster there). Ignored in process. */
    uint32_t force_cpu;
    /** A file holding the shared token the server requires of TCP clients
     *  not on loopback; NULL (default) means the GPUPROVER_SERVER_TOKEN_FILE
     *  environment variable, if set. The token is never passed inline. */
    const char *token_file;
} gp_context_options;

/** Fills `options` with the defaults. */
GP_API void gp_context_options_init(gp_context_options *options);

/** Creates a context. `options` may be NULL for the defaults.
 *  Returns GP_ERR_NO_DEVICE (with a message saying why) when GP_BACKEND_CUDA
 *  is requested and the library was built without CUDA, no GPU is visible,
 *  or a listed device ordinal does not exist. GP_BACKEND_AUTO never fails
 *  for lack of a GPU: it falls back to the CPU backend. */
GP_API gp_status gp_context_create(const gp_context_options *options,
                                   gp_context **out);

/** Destroys a context, after the call in flight on it (if any). Buffers,
 *  trees and FRI commitments still alive are released with it, and
 *  gp_last_error() then reports how many; their handles are dead afterwards
 *  (see above). NULL and a dead context are no-ops. Called from inside a
 *  call on the context (its progress callback, or a FRI challenge callback
 *  of gp_fri_commit), it destroys nothing and leaves the reason in
 *  gp_last_error(); the same holds for gp_buffer_destroy,
 *  gp_merkle_tree_destroy and gp_fri_destroy on the context's objects. */
GP_API void gp_context_destroy(gp_context *ctx);

/** Returns the backend the context runs on (GP_BACKEND_CPU,
 *  GP_BACKEND_CUDA or GP_BACKEND_REMOTE, never AUTO), or GP_BACKEND_AUTO for
 *  a NULL context. */
GP_API gp_backend gp_context_backend(const gp_context *ctx);

/** Why a GP_BACKEND_AUTO context with a server configured (GPUPROVER_SERVER
 *  or `endpoint`) runs in process instead: the connection error, as a
 *  NUL-terminated string owned by the context. NULL when the context runs
 *  on the server, when no server was configured, or for a NULL or dead
 *  context. */
GP_API const char *gp_context_remote_fallback(const gp_context *ctx);

/** Why a GP_BACKEND_AUTO context runs on the CPU backend instead of CUDA:
 *  the library was built without CUDA, no NVIDIA driver is loaded, the
 *  driver is older than the CUDA runtime the library was built with, no
 *  device is visible, or the device could not be initialized (as a
 *  NUL-terminated string owned by the context). NULL when the context runs
 *  on a GPU or a server, when GP_BACKEND_CPU was asked for, or for a NULL or
 *  dead context. (Added in 0.1.0.) */
GP_API const char *gp_context_cpu_fallback(const gp_context *ctx);

/** Writes a NUL-terminated description of the device the context runs on
 *  ("NVIDIA H100 80GB HBM3", "CPU, 16 threads"; for several devices, "2
 *  devices: " and each one's) into `name`, truncated to `size` bytes. */
GP_API gp_status gp_context_device_name(const gp_context *ctx, char *name,
                                        size_t size);

typedef struct gp_memory_stats {
    uint32_t struct_size;
    /** Bytes currently held by live buffers. */
    uint64_t buffer_bytes;
    /** Bytes currently held by the context's caches (twiddles, scratch,
     *  staging). */
    uint64_t cache_bytes;
    /** Number of persistent allocations (buffers, cached tables, scratch and
     *  staging; device memory on the CUDA backend) the context has made since
     *  it was created. Repeating a call of one shape leaves it unchanged. */
    uint64_t allocations;
    /** Cached coset power tables released, least recently used first, to
     *  keep them within their budget (64 tables and 256 MiB per context);
     *  cache_bytes includes the tables still cached. (Appended in 0.1.0; a
     *  caller whose struct_size ends before it does not receive it.) */
    uint64_t evictions;
} gp_memory_stats;

/** Reports the context's memory use. Set stats->struct_size first. */
GP_API gp_status gp_context_memory_stats(const gp_context *ctx,
                                         gp_memory_stats *stats);

/* Several devices.
 *
 * A context given several devices owns all of them. A buffer of rows x cols
 * elements is stored as consecutive blocks of whole (extension) columns, one
 * block per device (the first cols % n devices hold one column more; a
 * buffer with fewer columns than devices leaves the last devices without a
 * block). Every entry point accepts such buffers and returns the same bytes
 * as one device:
 *  - LDE, NTT, uploads and downloads: each device transforms or copies its
 *    own block, all devices at once; host input is read by every device's
 *    own copy engine.
 *  - Merkle commitments: the leaves are split into power-of-two row blocks;
 *    each device gathers its blocks' rows from every device (peer-to-peer
 *    copies), hashes them into sub-trees, and the top layers are finished on
 *    the host. The tree's nodes live on the first device. Openings gather the
 *    rows from the devices that hold them.
 *  - OOD sums: each device sums its own columns. DEEP: each device composes
 *    its own columns and the partial compositions are added on the first
 *    device (field sums are exact, so the result does not depend on the
 *    split).
 *  - FRI layers and the buffers a FRI commitment or constraint commitment
 *    makes for itself live on the first device.
 * gp_buffer_data, gp_buffer_to_dlpack and gp_context_set_stream see the
 * first device: a buffer spread over several devices has no single address
 * (GP_ERR_UNSUPPORTED), a wrapped buffer must be memory of the first device,
 * and a stream orders the first device's work. An allocation that fails
 * names the device it failed on. */

/** Returns the number of devices the context owns (1 for a single GPU or the
 *  plain CPU backend), or 0 for a NULL or dead context. */
GP_API uint32_t gp_context_device_count(const gp_context *ctx);

typedef struct gp_device_info {
    uint32_t struct_size;
    /** The CUDA device ordinal, or -1 for a (share of the) CPU. */
    int32_t ordinal;
    /** NUL-terminated description, as gp_context_device_name gives it. */
    char name[128];
    /** Bytes of buffers, trees and FRI layers the context holds on this
     *  device. */
    uint64_t buffer_bytes;
    /** Bytes of the device's caches (twiddles, scratch, staging). */
    uint64_t cache_bytes;
    /** Persistent allocations made on the device (see gp_memory_stats). */
    uint64_t allocations;
    /** Device memory free now and in all (cudaMemGetInfo); 0 on the CPU. */
    uint64_t free_bytes;
    uint64_t total_bytes;
} gp_device_info;

/** Describes device `index` (0 <= index < gp_context_device_count(ctx)) of
 *  the context. Set info->struct_size first. */
GP_API gp_status gp_context_device_info(const gp_context *ctx, uint32_t index,
                                        gp_device_info *info);

/** Releases the context's cached twiddle tables and scratch memory. */
GP_API gp_status gp_context_trim(gp_context *ctx);

/* ------------------------------------------------------------------------ */
/* Buffers                                                                  */
/* ------------------------------------------------------------------------ */

/** A matrix of field elements owned by the library: in device memory on the
 *  CUDA backend, in host memory on the CPU backend. Elements are stored by
 *  column (each base-field coordinate of an extension column is stored as its
 *  own contiguous column), which is what the LDE and commitment kernels read. */
typedef struct gp_buffer gp_buffer;

typedef enum gp_layout {
    /** Column c is contiguous: element (r, c) at index c * rows + r, each
     *  element being `ext_degree` consecutive base values. */
    GP_LAYOUT_COL_MAJOR = 0,
    /** Row r is contiguous: element (r, c) at index r * cols + c, each
     *  element being `ext_degree` consecutive base values (Plonky3's
     *  RowMajorMatrix). */
    GP_LAYOUT_ROW_MAJOR = 1
} gp_layout;

/** Creates a zero-filled buffer of `rows` x `cols` elements of the field's
 *  degree-`ext_degree` extension (1 for the base field). `rows` >= 1.
 *  `cols` may be 0: a matrix of width 0, holding no memory, whose rows are
 *  empty inputs to the Merkle commitments (gp_merkle_commit,
 *  gp_merkle_hash_rows; each kind hashes an empty row as its reference
 *  hashes an empty input: the zero digest for Plonky3's field and u64 Keccak
 *  sponges, miden-crypto's hash_elements and the digest trees, keccak256 of
 *  no bytes for the Keccak-256 kinds, Tip5::hash_varlen([]) for
 *  GP_MERKLE_TRITON; Plonky3's MMCS injects such a matrix by its height like
 *  any other). Transforms, LDEs, FRI, OOD/DEEP and DLPack export refuse it. */
GP_API gp_status gp_buffer_create(gp_context *ctx, gp_field field,
                                  uint32_t ext_degree, uint64_t rows,
                                  uint64_t cols, gp_buffer **out);

/** Creates a buffer from host memory holding `rows` x `cols` elements in
 *  `layout`. `data` must hold rows * cols * ext_degree base elements of
 *  gp_field_element_size(field) bytes (NULL when cols is 0). Values >= p give
 *  GP_ERR_NON_CANONICAL. Pinned (cudaHostAlloc'd) memory is uploaded
 *  directly; pageable memory goes through pinned staging. */
GP_API gp_status gp_buffer_from_host(gp_context *ctx, gp_field field,
                                     uint32_t ext_degree, uint64_t rows,
                                     uint64_t cols, gp_layout layout,
                                     const void *data, gp_buffer **out);

/** Copies the buffer to host memory in `layout`. `size_bytes` is the size of
 *  `data`; it must be at least rows * cols * ext_degree * element size.
 *  `data` may be NULL for a buffer of 0 columns. */
GP_API gp_status gp_buffer_to_host(const gp_buffer *buf, gp_layout layout,
                                   void *data, uint64_t size_bytes);

/** Destroys a buffer. NULL is a no-op. A tree that committed the buffer
 *  keeps working, except for opening rows (see gp_merkle_open). Called from
 *  inside a call on the buffer's context (a progress or FRI challenge
 *  callback), it destroys nothing and leaves the reason in gp_last_error(). */
GP_API void gp_buffer_destroy(gp_buffer *buf);

/** Shape queries. They return 0 for a NULL buffer. */
GP_API uint64_t gp_buffer_rows(const gp_buffer *buf);
GP_API uint64_t gp_buffer_cols(const gp_buffer *buf);
GP_API gp_field gp_buffer_field(const gp_buffer *buf);
GP_API uint32_t gp_buffer_ext_degree(const gp_buffer *buf);
/** Returns the buffer's size in bytes (rows * cols * ext_degree * elem size). */
GP_API uint64_t gp_buffer_size_bytes(const gp_buffer *buf);

/* ------------------------------------------------------------------------ */
/* Interop: the prover's own memory and streams                             */
/* ------------------------------------------------------------------------ */

/** The memory layout of every buffer: `cols * ext_degree` base columns, one
 *  after another, each `rows` contiguous canonical elements (uint64_t for
 *  Goldilocks, uint32_t for BabyBear and KoalaBear); the base columns of
 *  extension column c are c * ext_degree + k for coefficient k. On the CUDA
 *  backend the memory is device memory of the context's GPU, on the CPU
 *  backend host memory. */

/** Wraps memory the caller owns as a buffer of this context, without a
 *  copy. `data` must hold rows x cols elements of degree `ext_degree` in the
 *  buffer layout above, be aligned to the element size, and be device
 *  memory of the context's GPU (CUDA backend; cudaMalloc, cudaMallocAsync
 *  or managed memory) or host memory (CPU backend). Values are checked to be
 *  canonical (GP_ERR_NON_CANONICAL). The buffer borrows the memory: the
 *  caller keeps it alive, and unchanged by other work while a call uses the
 *  buffer, until gp_buffer_destroy(), which releases the handle but not the
 *  memory. A wrapped buffer is used as any other, including as the output
 *  of an LDE or NTT, whose results the caller then reads in place. `cols`
 *  must be at least 1. */
GP_API gp_status gp_buffer_wrap(gp_context *ctx, gp_field field, uint32_t ext_degree, uint64_t rows,
                                uint64_t cols, void *data, gp_buffer **out);

/** Writes the address of a buffer's memory (device memory on the CUDA
 *  backend) in the layout above. The address stays valid until the buffer
 *  is destroyed; reading or writing it while a call on the context uses the
 *  buffer is a race. */
GP_API gp_status gp_buffer_data(const gp_buffer *buf, void **data);

/** Orders the context's device work after the caller's CUDA stream:
 *  every later call waits for the work queued on `stream` before the call,
 *  and returns after its own device work is done, so work the caller queues
 *  on `stream` afterwards sees its results. `stream` is a cudaStream_t of
 *  the context's GPU (NULL: no stream, the default); the library cannot
 *  check a handle without using it, so passing anything else is undefined.
 *  The stream must outlive its use; set NULL before destroying it. GP_ERR_UNSUPPORTED on
 *  the CPU backend for a non-NULL stream. */
GP_API gp_status gp_context_set_stream(gp_context *ctx, void *stream);

/** Allocates `bytes` bytes of host memory the context transfers fastest,
 *  for traces and other host input and output of its calls: page-locked on
 *  the CUDA backend (read and written by DMA, without staging), shared with
 *  the server on a remote context over a unix socket (handed over without
 *  a copy; the server reads it by DMA), ordinary memory otherwise. The
 *  memory is aligned to 4096 bytes, not zeroed, and belongs to the context:
 *  release it with gp_host_free, or it goes with gp_context_destroy. */
GP_API gp_status gp_host_alloc(gp_context *ctx, size_t bytes, void **out);

/** Releases memory from gp_host_alloc on the same context. NULL is a
 *  no-op; any other pointer is GP_ERR_INVALID_ARGUMENT. */
GP_API gp_status gp_host_free(gp_context *ctx, void *p);

struct DLManagedTensor;

/** Exports a buffer as a DLPack tensor (dlpack.h, version 0.6 or later),
 *  without a copy: a 2-D tensor of shape [cols * ext_degree, rows] (a base
 *  column per row of the tensor), strides [rows, 1], dtype uint64 or
 *  uint32, on kDLCUDA (the context's GPU) or kDLCPU. The tensor borrows
 *  the buffer's memory: call its deleter when done, before destroying the
 *  buffer. */
GP_API gp_status gp_buffer_to_dlpack(gp_buffer *buf, struct DLManagedTensor **out);

/** Imports a DLPack tensor as a buffer of this context, without a copy: a
 *  1-D tensor of `rows` elements (one column) or a 2-D tensor of shape
 *  [cols * ext_degree, rows] in the buffer layout (compact: strides NULL or
 *  [rows, 1]), dtype uint64 (Goldilocks) or uint32 (31-bit fields), on the
 *  context's device (kDLCUDA or kDLCUDAManaged on the CUDA backend, kDLCPU
 *  or kDLCUDAHost on the CPU backend; any other device type, including an
 *  int outside DLDeviceType, is GP_ERR_CONTEXT_MISMATCH), with byte_offset
 *  0 or a multiple of the element size. Values are checked canonical. On success the buffer owns the
 *  managed tensor and calls its deleter when it is destroyed; on failure
 *  the caller still owns it. */
GP_API gp_status gp_buffer_from_dlpack(gp_context *ctx, gp_field field, uint32_t ext_degree,
                                       struct DLManagedTensor *tensor, gp_buffer **out);

/* ------------------------------------------------------------------------ */
/* Cancellation, progress, counters                                         */
/* ------------------------------------------------------------------------ */

/** Asks the call in flight on `ctx` (from another thread) to stop: it
 *  returns GP_ERR_CANCELLED at its next batch or layer boundary, having
 *  released what it allocated; every handle stays usable. A call that starts
 *  after gp_context_cancel() returns is not affected, and cancelling an idle
 *  context does nothing. Safe to call from any thread at any time while the
 *  context is alive; it does not wait for the call. */
GP_API gp_status gp_context_cancel(gp_context *ctx);

/** Progress of a long call: `stage` names the step ("lde", "merkle", "fri",
 *  ...), `done` of `total` units of it are finished. Called on the thread
 *  that made the call, between batches and layers; it must not call the
 *  library on the same context except gp_context_cancel(). Such a call
 *  (one that takes the context or any of its buffers, trees or FRI
 *  commitments) is refused: it returns GP_ERR_INVALID_ARGUMENT with a
 *  message saying so, or for a destroy function destroys nothing and leaves
 *  that message in gp_last_error(); the call in progress goes on unaffected.
 *  The getters that return a value directly (gp_buffer_rows, ...) and calls
 *  on other contexts are allowed. */
typedef void (*gp_progress_fn)(void *user, const char *stage, uint64_t done, uint64_t total);

/** Sets (or, with NULL, clears) the context's progress callback. */
GP_API gp_status gp_context_set_progress(gp_context *ctx, gp_progress_fn fn, void *user);

/** One line per finished call: the entry point, its status, its wall time
 *  and, for a failed call, the message, e.g.
 *  "gp_lde_batch GP_OK 12.345 ms". Called on the calling thread after the
 *  call; it must not call the library on the same context. */
typedef void (*gp_log_fn)(void *user, const char *line);

/** Sets (or, with NULL, clears) the context's log callback. */
GP_API gp_status gp_context_set_log(gp_context *ctx, gp_log_fn fn, void *user);

/** Per-context counters since creation (or gp_context_reset_counters). */
typedef struct gp_counters {
    uint32_t struct_size;
    /** Calls made on the context (every entry point that takes it or one of
     *  its handles), and those that failed. */
    uint64_t calls, failed_calls;
    /** Wall time inside those calls, nanoseconds. */
    uint64_t call_ns;
    /** Bytes copied host to device and device to host (CUDA backend; 0 on
     *  the CPU backend). */
    uint64_t bytes_to_device, bytes_to_host;
    /** Device time of the calls' GPU work, nanoseconds (CUDA events around
     *  each call's work; 0 on the CPU backend). */
    uint64_t device_ns;
} gp_counters;

/** Reads the context's counters. Set counters->struct_size first. */
GP_API gp_status gp_context_counters(const gp_context *ctx, gp_counters *counters);

/** Per entry point: the name ("gp_lde_batch"), calls, failures and wall
 *  time. Writes up to `capacity` entries to `out` (sorted by name) and the
 *  number that exist to `*count`; `out` may be NULL to ask for the count. */
typedef struct gp_call_stats {
    const char *name; /* static storage */
    uint64_t calls, failed_calls, call_ns;
} gp_call_stats;
GP_API gp_status gp_context_call_stats(const gp_context *ctx, gp_call_stats *out, size_t capacity,
                                       size_t *count);

/** Zeroes the counters and per-entry statistics. */
GP_API gp_status gp_context_reset_counters(gp_context *ctx);

/* ------------------------------------------------------------------------ */
/* Batched NTT                                                              */
/* ------------------------------------------------------------------------ */

typedef enum gp_order {
    /** Row i holds the value at index i. */
    GP_ORDER_NATURAL = 0,
    /** Row i holds the value at index bit_reverse(i, log2(rows)). */
    GP_ORDER_BIT_REVERSED = 1
} gp_order;

typedef enum gp_ntt_direction {
    /** Coefficients -> evaluations: out[i] = sum_k c_k (shift * w^i)^k. */
    GP_NTT_FORWARD = 0,
    /** Evaluations on shift * H -> coefficients (divided by n). */
    GP_NTT_INVERSE = 1
} gp_ntt_direction;

typedef struct gp_ntt_options {
    uint32_t struct_size;
    /** Default GP_NTT_FORWARD. */
    gp_ntt_direction direction;
    /** Coset shift s (canonical base-field element, nonzero). The forward
     *  transform evaluates on s * H, the inverse interpolates from s * H.
     *  0 (default) means 1, the plain subgroup. */
    uint64_t shift;
    /** Order of the input and of the output rows. Default natural. */
    gp_order input_order;
    gp_order output_order;
    /** The root of unity the domains are drawn from: 0 (default) is the
     *  library's (Plonky3's; gp_field_two_adic_generator); otherwise an
     *  element of order exactly 2^two_adicity of the field, and the domain
     *  of n rows uses root^(2^two_adicity / n) as its generator w. Pass
     *  winterfell's `TWO_ADIC_ROOT_OF_UNITY` (Goldilocks:
     *  7277203076849721926) to get winterfell's row order: row i is the
     *  evaluation at s * w^i with winterfell's w. Any other element is
     *  GP_ERR_INVALID_ARGUMENT. With a root other than the library's, both
     *  orders must be natural, and the call gathers the evaluations' rows
     *  once (the buffer's size again in device memory while it runs);
     *  contexts of several devices and gpuprover-server sessions refuse it
     *  (GP_ERR_UNSUPPORTED). (Appended in 0.1.0; a caller whose struct_size
     *  ends before it gets 0.) */
    uint64_t root;
} gp_ntt_options;

GP_API void gp_ntt_options_init(gp_ntt_options *options);

/** Transforms every column of `buf` in place. n = gp_buffer_rows(buf) must be
 *  a power of two not above 2^two_adicity; w is the primitive n-th root of
 *  unity given by gp_field_two_adic_generator. Extension columns are
 *  transformed componentwise. `options` may be NULL for the defaults. */
GP_API gp_status gp_ntt_batch(gp_context *ctx, gp_buffer *buf,
                              const gp_ntt_options *options);

/* ------------------------------------------------------------------------ */
/* Batched coset low-degree extension                                       */
/* ------------------------------------------------------------------------ */

/** What the input of an LDE holds (gp_lde_options.input). */
typedef enum gp_lde_input {
    GP_LDE_INPUT_EVALUATIONS = 0,
    GP_LDE_INPUT_COEFFICIENTS = 1
} gp_lde_input;

typedef struct gp_lde_options {
    uint32_t struct_size;
    /** Trace length n (power of two). 0 (default) means the input's row
     *  count. The input may have fewer rows than n: missing rows are zero
     *  (virtual padding; no zeros are uploaded or stored). */
    uint64_t n;
    /** Blowup factor B, a power of two in [1, 32]. Default 2. The output has
     *  n * B rows; n * B must not exceed 2^two_adicity. */
    uint32_t blowup;
    /** Output coset shift g (canonical, nonzero). 0 (default) means the
     *  field's multiplicative generator (7, 31, 3), as Plonky3 uses. */
    uint64_t shift;
    /** Shift s of the domain the input is evaluated on. 0 (default) means 1. */
    uint64_t input_shift;
    /** Row order of the output. Default natural; Plonky3 commits the
     *  bit-reversed LDE (GP_ORDER_BIT_REVERSED). */
    gp_order output_order;
    /** Layout of host input for gp_lde_batch_host. Default column-major. */
    gp_layout input_layout;
    /** Randomized LDE (zero knowledge; Triton VM extends its tables so):
     *  NULL (default), or `randomizer_count` coefficients of a randomizer
     *  polynomial r_c(X) per input column c, lowest degree first, in host
     *  memory, canonical; an extension column's coefficients are extension
     *  elements (coordinate k of coefficient j of column c at
     *  (c x randomizer_count + j) x ext_degree + k), so each coordinate is
     *  randomized by its own polynomial, as Triton's auxiliary table is. The
     *  output then holds the evaluations of f_c(X) + (X^n - s^n) r_c(X), s
     *  the input shift: the interpolant plus the trace domain's zerofier
     *  times the randomizer, which leaves the values on the trace domain as
     *  they were. randomizer_count must not exceed n x (blowup - 1). Where
     *  randomizer_count <= n and blowup x randomizer_count <= max(n,
     *  n x blowup / 8) (Triton's 98 at any real height), the randomizer
     *  joins the LDE's own coefficients: the call costs blowup x
     *  randomizer_count more elements a column and about the plain LDE's
     *  time (in a gpuprover-server session where those elements of all
     *  columns take at most 16 MiB, which travel with the request).
     *  Otherwise it costs one more transform of the output's size and that
     *  size again in device memory while it runs. Contexts of several
     *  devices and gp_commit_host take it within the first rule only
     *  (otherwise GP_ERR_UNSUPPORTED). (Appended after
     *  input_layout; a caller whose struct_size ends before them gets NULL
     *  and 0.) */
    const void *randomizers;
    uint64_t randomizer_count;
    /** The root of unity the input and output domains are drawn from, as
     *  gp_ntt_options.root: 0 (default) is the library's; winterfell's
     *  `TWO_ADIC_ROOT_OF_UNITY` makes input row i the value at
     *  s * w_n^i and output row j the value at g * w_{nB}^j with
     *  winterfell's roots (its trace and LDE rows). With a root other than
     *  the library's the output order must be natural and randomizers are
     *  refused; the call gathers the input's and the output's rows once
     *  (the output's size again in device memory while it runs); contexts
     *  of several devices and gpuprover-server sessions refuse it
     *  (GP_ERR_UNSUPPORTED). (Appended in 0.1.0; a caller whose struct_size
     *  ends before it gets 0.) */
    uint64_t root;
    /** What the input rows hold. GP_LDE_INPUT_EVALUATIONS (0, default):
     *  the values on the input domain. GP_LDE_INPUT_COEFFICIENTS: the
     *  polynomial's coefficients, lowest degree first (row j = coefficient
     *  of X^j; rows past the input's own, up to n, are zero): the output is
     *  their evaluations on the output coset (shift 1 gives the subgroup)
     *  in output_order, as basefold's encoding (SP1's
     *  `batch_coset_dft`, coefficients zero-padded by the blowup) or
     *  Plonky3's `coset_dft` of padded coefficients compute them. The
     *  padding happens inside the call: the caller allocates no buffer of
     *  n x blowup rows besides the output. input_shift must be 0 or 1, and
     *  randomizers and another root are refused (GP_ERR_UNSUPPORTED) with
     *  it. (Appended in 0.1.0; a caller whose struct_size ends before it
     *  gets evaluations.) */
    gp_lde_input input;
} gp_lde_options;

GP_API void gp_lde_options_init(gp_lde_options *options);

/** Coset LDE of every column of `input` into `output`.
 *
 *  Input column c holds f_c(s * w_n^i) for i < rows (s = input_shift; rows
 *  beyond the input's row count are zero). Output row j holds
 *  f_c(g * w_{nB}^j) (natural order) or f_c(g * w_{nB}^bitrev(j)) (bit
 *  reversed), for the unique polynomial f_c of degree < n.
 *
 *  `output` must be a buffer of the same context, field and extension degree
 *  with n * blowup rows and the input's column count; it is overwritten.
 *  Reusing one output buffer across calls of one shape allocates nothing.
 *
 *  On the CUDA backend the transform may keep a scratch area of up to
 *  min(4 GiB, half the free device memory) in the context's caches (see
 *  gp_memory_stats; gp_context_trim releases it). The bit-reversed order
 *  takes one only where 256 MiB (or the whole output) fits, and otherwise
 *  works within the output buffer. */
GP_API gp_status gp_lde_batch(gp_context *ctx, const gp_buffer *input,
                              const gp_lde_options *options,
                              gp_buffer *output);

/** Like gp_lde_batch, with the input in host memory: `rows` x `cols`
 *  elements of degree `ext_degree` in options->input_layout. On the CUDA
 *  backend the upload is staged in chunks and overlapped with the transform;
 *  pinned host memory is read directly. */
GP_API gp_status gp_lde_batch_host(gp_context *ctx, gp_field field,
                                   uint32_t ext_degree, const void *data,
                                   uint64_t rows, uint64_t cols,
                                   const gp_lde_options *options,
                                   gp_buffer *output);

/* ------------------------------------------------------------------------ */
/* Hash permutations                                                        */
/* ------------------------------------------------------------------------ */

/** The permutations the commitment hashes are built from. Field-element
 *  states are canonical; Keccak-f[1600] states are 25 raw 64-bit lanes
 *  (lane (x, y) at index x + 5y). Constants are those of the named
 *  reference implementation, so outputs match it bit for bit. */
typedef enum gp_permutation {
    /** Plonky3 Poseidon2 over Goldilocks, widths 8, 12 and 16 (x^7). */
    GP_PERM_POSEIDON2_GOLDILOCKS_8 = 1,
    GP_PERM_POSEIDON2_GOLDILOCKS_12 = 2,
    GP_PERM_POSEIDON2_GOLDILOCKS_16 = 3,
    /** HorizenLabs-compatible Poseidon2 over Goldilocks, width 8. */
    GP_PERM_POSEIDON2_GOLDILOCKS_HL_8 = 4,
    /** Plonky3 Poseidon2 over BabyBear (x^7) and KoalaBear (x^3). */
    GP_PERM_POSEIDON2_BABYBEAR_16 = 5,
    GP_PERM_POSEIDON2_BABYBEAR_24 = 6,
    GP_PERM_POSEIDON2_KOALABEAR_16 = 7,
    GP_PERM_POSEIDON2_KOALABEAR_24 = 8,
    /** Miden's Rescue-Prime Optimized and eXtension permutations (width 12). */
    GP_PERM_RPO256 = 9,
    GP_PERM_RPX256 = 10,
    /** Plonky2's Poseidon over Goldilocks, width 12. */
    GP_PERM_POSEIDON_GOLDILOCKS_12 = 11,
    /** Triton VM's Tip5 (twenty-first), width 16. */
    GP_PERM_TIP5 = 12,
    /** Keccak-f[1600], the permutation of Keccak-256. */
    GP_PERM_KECCAK_F1600 = 13,
    /** Plonky3 Poseidon2 over BabyBear and KoalaBear, width 32. */
    GP_PERM_POSEIDON2_BABYBEAR_32 = 14,
    GP_PERM_POSEIDON2_KOALABEAR_32 = 15,
    /** HorizenLabs' Poseidon2 reference instances (poseidon2 repository):
     *  BabyBear widths 16 and 24, Goldilocks width 12. */
    GP_PERM_POSEIDON2_BABYBEAR_HL_16 = 16,
    GP_PERM_POSEIDON2_BABYBEAR_HL_24 = 17,
    GP_PERM_POSEIDON2_GOLDILOCKS_HL_12 = 18,
    /** BLAKE3 (hash mode, 32-byte output). A hash function, not a
     *  permutation: it names the hash of the Merkle kinds that take it
     *  (GP_MERKLE_MIDEN_LMCS, GP_MERKLE_WINTERFELL); gp_permute_batch
     *  refuses it (GP_ERR_UNSUPPORTED) and gp_permutation_info reports width
     *  16 (its compression state of 32-bit words) and field 0. */
    GP_PERM_BLAKE3 = 19,
    /** SHA3-256 (FIPS 202: Keccak-f[1600], rate 136 bytes, domain byte
     *  0x06). A hash function, as GP_PERM_BLAKE3: winter-crypto's Sha3_256
     *  in GP_MERKLE_WINTERFELL; gp_permute_batch refuses it and
     *  gp_permutation_info reports width 25 (Keccak-f's lanes) and field 0. */
    GP_PERM_SHA3_256 = 20,
    /** BLAKE3 truncated to its first 24 bytes (winter-crypto's Blake3_192).
     *  A hash function, as GP_PERM_BLAKE3 (GP_MERKLE_WINTERFELL); refused by
     *  gp_permute_batch, width 16 and field 0 in gp_permutation_info. */
    GP_PERM_BLAKE3_192 = 21,
    /** winterfell's Rescue-Prime permutation (winter-crypto's Rp64_256:
     *  Rescue-XLIX over Goldilocks, width 12, 7 rounds of x^7, MDS, +ARK1,
     *  x^(1/7), MDS, +ARK2; not GP_PERM_RPO256, whose rounds and constants
     *  differ). A permutation for gp_permute_batch and the hash of
     *  GP_MERKLE_WINTERFELL's Rp64_256 sponge. */
    GP_PERM_RP64_256 = 22,
    /** SP1 v6's Poseidon2 over KoalaBear, width 16 (slop's KoalaPerm: x^3,
     *  8 + 20 rounds, the round constants of GP_PERM_POSEIDON2_KOALABEAR_16)
     *  with the internal layer of Plonky3 0.1 to 0.4-succinct:
     *  s'_i = 2^-32 (sum(s) + D_i s_i), D = (-2, 1, 2, 4, ..., 2^13, 2^15),
     *  where GP_PERM_POSEIDON2_KOALABEAR_16 has Plonky3's current diagonal.
     *  With GP_MERKLE_FIELD_SPONGE (rate 8, digest 8) it gives SP1's tensor
     *  commitment trees; gp_merkle_sp1_commitment binds the shape. */
    GP_PERM_POSEIDON2_KOALABEAR_16_SP1 = 23,
    /** SP1 v4/v5's Poseidon2 over BabyBear, width 16 (x^7, 8 + 13 rounds,
     *  SP1's own round constants, the internal layer above). */
    GP_PERM_POSEIDON2_BABYBEAR_16_SP1 = 24
} gp_permutation;

/** Writes the permutation's state width (elements, or 64-bit lanes for
 *  Keccak) and its field (GP_FIELD_*, or 0 for Keccak's raw lanes and the
 *  byte hashes GP_PERM_BLAKE3, GP_PERM_SHA3_256, GP_PERM_BLAKE3_192). Either
 *  output pointer may be NULL. */
GP_API gp_status gp_permutation_info(gp_permutation perm, uint32_t *width,
                                     gp_field *field);

/** Applies `perm` in place to `count` states stored back to back in host
 *  memory (count * width elements of the permutation's field, 8 bytes each
 *  for Goldilocks and Keccak lanes, 4 bytes for BabyBear and KoalaBear).
 *  Field states must be canonical (else GP_ERR_NON_CANONICAL). On the CUDA
 *  backend the states are copied to the device, permuted one per thread and
 *  copied back. */
GP_API gp_status gp_permute_batch(gp_context *ctx, gp_permutation perm,
                                  void *states, uint64_t count);

/* ------------------------------------------------------------------------ */
/* Merkle commitment                                                        */
/* ------------------------------------------------------------------------ */

typedef enum gp_merkle_kind {
    /** Plonky3 MerkleTreeMmcs over a field hash: leaf i = PaddingFreeSponge
     *  (overwrite mode, rate `rate`, first `digest` elements out) of row i of
     *  every matrix of the greatest height, concatenated in the order given
     *  (extension elements flattened to their base coefficients); node =
     *  TruncatedPermutation of (left || right || zeros), first `digest`
     *  elements. Matrices of a smaller height h enter at the layer of h
     *  nodes: node = C(C(left, right), H(row i of every matrix of height h,
     *  concatenated in the order given)), as Plonky3 injects them. Any
     *  permutation but GP_PERM_KECCAK_F1600. */
    GP_MERKLE_FIELD_SPONGE = 1,
    /** miden-crypto / winterfell: leaf = hash_elements(row) (the row of all
     *  matrices concatenated, extension elements flattened), node =
     *  merge(left, right), with perm GP_PERM_RPO256 or GP_PERM_RPX256 in
     *  miden-crypto's current sponge layout (v0.21 and later: rate
     *  state[0..8], capacity state[8..12], digest state[0..4], capacity[0] =
     *  length mod 8, short last block zero-filled). Digests are 4 Goldilocks
     *  elements. All matrices must have the same height. miden-crypto's
     *  current trees (v0.22 and later) use the same layout with Poseidon2:
     *  perm GP_PERM_POSEIDON2_GOLDILOCKS_12 (Plonky3's default instance,
     *  v0.24 and later) or GP_PERM_POSEIDON2_GOLDILOCKS_HL_12 (HorizenLabs',
     *  v0.22 and v0.23); an empty row hashes to the zero digest. */
    GP_MERKLE_MIDEN = 2,
    /** As GP_MERKLE_MIDEN in miden-crypto's layout of v0.11 to v0.20:
     *  capacity state[0..4], rate state[4..12], digest state[4..8]. */
    GP_MERKLE_MIDEN_V0_11 = 3,
    /** As GP_MERKLE_MIDEN_V0_11 with the padding of v0.10 and before:
     *  capacity[0] = 1 when length mod 8 != 0, short last block padded with
     *  1 then zeros. */
    GP_MERKLE_MIDEN_V0_10 = 4,
    /** Plonky3 MerkleTreeMmcs over Keccak-256 (SerializingHasher over
     *  Keccak256Hash, CompressionFunctionFromHasher): leaf = keccak256 of the
     *  row's bytes, each base element little-endian — Goldilocks canonical (8
     *  bytes), BabyBear and KoalaBear in Montgomery form x * 2^32 mod p (4
     *  bytes), as Plonky3 serializes them; node = keccak256(left || right).
     *  Mixed heights as GP_MERKLE_FIELD_SPONGE. Digests are 32 bytes. perm
     *  must be GP_PERM_KECCAK_F1600. */
    GP_MERKLE_KECCAK_PLONKY3 = 5,
    /** lambdaworks / Lambda VM Keccak-256 tree over Goldilocks: leaf =
     *  keccak256 of the row's canonical elements, each 8 bytes big-endian;
     *  node = keccak256(left || right). All matrices must have the same
     *  height. perm must be GP_PERM_KECCAK_F1600. */
    GP_MERKLE_KECCAK_BE = 6,
    /** Plonky3 MerkleTreeMmcs over the Keccak-f sponge on 64-bit lanes
     *  (SerializingHasher over PaddingFreeSponge<KeccakF, 25, 17, 4>,
     *  CompressionFunctionFromHasher of that sponge; Plonky3's fast Keccak
     *  MMCS): the row's elements become lanes — Goldilocks one canonical
     *  element per lane, BabyBear and KoalaBear two elements per lane in
     *  Montgomery form (the first in the low 32 bits; a last odd element
     *  alone) — which overwrite lanes 0..16 block by block, Keccak-f[1600]
     *  after each; leaf = lanes 0..3; node = the same sponge over the 8 lanes
     *  of left || right. Digests are 4 lanes (32 bytes, each lane
     *  little-endian). Mixed heights as GP_MERKLE_FIELD_SPONGE. perm must be
     *  GP_PERM_KECCAK_F1600. */
    GP_MERKLE_KECCAK_U64 = 7,
    /** Triton VM / twenty-first MerkleTree over Goldilocks: leaf =
     *  Tip5::hash_varlen of the row (every matrix's row concatenated,
     *  extension elements as their coefficients, lowest first: Triton's
     *  auxiliary rows), node = Tip5::hash_pair(left, right). Digests are 5
     *  Goldilocks elements. All matrices must have the same height. perm
     *  must be GP_PERM_TIP5. */
    GP_MERKLE_TRITON = 8,
    /** twenty-first's MerkleTree built from digests, as Triton VM commits
     *  each FRI round: leaf = the row's elements taken as the digest itself,
     *  without hashing, zero-filled to 5 elements (Digest::from of an
     *  XFieldElement is [c0, c1, c2, 0, 0]); node = Tip5::hash_pair. Rows
     *  hold at most 5 Goldilocks elements (else GP_ERR_SHAPE_MISMATCH). All
     *  matrices must have the same height. perm must be GP_PERM_TIP5. With
     *  gp_fri_options.leaf = GP_FRI_LEAF_ELEMENT this is Triton's FRI round
     *  commitment. */
    GP_MERKLE_TRITON_DIGEST = 9,
    /** Miden's lifted MMCS (LMCS; miden-vm crates/lifted-stark, its
     *  algebraic and Keccak configurations) over Goldilocks: the matrices,
     *  of power-of-two heights given in ascending order, are lifted to the
     *  tallest height M cyclically, leaf i absorbing row (i mod h) of every
     *  matrix of height h in the order given. perm GP_PERM_RPO256,
     *  GP_PERM_RPX256 or GP_PERM_POSEIDON2_GOLDILOCKS_12: a sponge of
     *  width 12 starting at zero, rate state[0..8], capacity state[8..12],
     *  no length tag; each matrix's row overwrites the rate 8 elements at a
     *  time, its last chunk zero-filled, one permutation per chunk (an empty
     *  row absorbs nothing); leaf = state[0..4]; node = the permutation of
     *  left || right || 0^4, state[0..4] (miden-crypto's merge). perm
     *  GP_PERM_KECCAK_F1600: the same over 64-bit lanes (one canonical element
     *  per lane) with Keccak-f[1600], rate 17 lanes of 25, node = Keccak-f of
     *  left || right (8 lanes), lanes 0..3; digests of 4 lanes. perm
     *  GP_PERM_BLAKE3 (Miden's default): a 32-byte state, zero at first;
     *  for each matrix in order (a width-0 one too), state = BLAKE3(state
     *  || the row's elements, 8 little-endian bytes each); leaf = state;
     *  node = BLAKE3(left || right); digests of 32 bytes. Rows must be in
     *  natural (domain) order, as gp_lde_batch's GP_ORDER_NATURAL writes them.
     *  gp_commit_host and contexts of several devices refuse it
     *  (GP_ERR_UNSUPPORTED). */
    GP_MERKLE_MIDEN_LMCS = 10,
    /** winterfell's MerkleTree<H> (winter-crypto v0.13.1) over Goldilocks:
     *  leaf i = H::hash_elements(row i of all matrices concatenated,
     *  extension elements flattened to their base coefficients), node =
     *  H::merge(left, right). All matrices have one power-of-two height of
     *  at least 2 (winterfell's trees have two leaves or more). perm selects
     *  H:
     *  - GP_PERM_SHA3_256 (Sha3_256): SHA3-256 of the row's canonical
     *    elements, 8 little-endian bytes each; node = SHA3-256(left ||
     *    right); 32-byte digests.
     *  - GP_PERM_BLAKE3 (Blake3_256): the same with BLAKE3; 32 bytes.
     *  - GP_PERM_BLAKE3_192 (Blake3_192): the first 24 bytes of BLAKE3 of
     *    the row's bytes, node = the first 24 bytes of BLAKE3(left ||
     *    right); 24-byte digests.
     *  - GP_PERM_RP64_256 (Rp64_256): a sponge of width 12, capacity
     *    state[0..4] with state[0] = the row's element count, the elements
     *    added into the rate state[4..12] 8 at a time, a permutation after
     *    each 8 and after a short last block; leaf = state[4..8]; node = the
     *    same over the 8 elements of left || right; digests of 4 Goldilocks
     *    elements (32 bytes, canonical little-endian, as winterfell
     *    serializes them).
     *  Digest bytes (roots, caps, paths) are winterfell's serialized
     *  digests. The byte hashes' digests are bytes, not field elements.
     *  gp_commit_host takes rows of at most 131072 elements with the BLAKE3
     *  hashes (GP_ERR_UNSUPPORTED beyond; gp_lde_batch and gp_merkle_commit
     *  take any). */
    GP_MERKLE_WINTERFELL = 11
} gp_merkle_kind;

typedef struct gp_merkle_options {
    uint32_t struct_size;
    /** Default GP_MERKLE_FIELD_SPONGE. */
    gp_merkle_kind kind;
    /** The permutation of the sponge and of the compression. Default
     *  GP_PERM_POSEIDON2_GOLDILOCKS_8 (Plonky3's Goldilocks default). */
    gp_permutation perm;
    /** GP_MERKLE_FIELD_SPONGE only (0 for the other kinds, whose digests are
     *  fixed). Digest elements: 0 (default) means 4 for Goldilocks, 8 for
     *  BabyBear and KoalaBear. 2 * digest must not exceed the permutation's
     *  width. */
    uint32_t digest;
    /** GP_MERKLE_FIELD_SPONGE only (else 0). Sponge rate: 0 (default) means
     *  width - digest. As in Plonky3, digest <= rate < width. */
    uint32_t rate;
    /** The cap is the layer 2^cap_height nodes wide; 0 (default) is the
     *  root. It must not exceed log2 of the least height (rounded up): the
     *  rows of a matrix shorter than the cap would not be bound by it. */
    uint32_t cap_height;
    /** GP_MERKLE_FIELD_SPONGE only (else 0): the permutation of the
     *  compression when it differs from the sponge's, as in Plonky3's
     *  MerkleTreeMmcs with PaddingFreeSponge<Perm24, 24, 16, 8> for the
     *  leaves and TruncatedPermutation<Perm16, 2, 8, 16> for the nodes. 0
     *  (default) means `perm`. Offered pairs (sponge -> compression):
     *  GP_PERM_POSEIDON2_BABYBEAR_24 -> _BABYBEAR_16,
     *  GP_PERM_POSEIDON2_KOALABEAR_24 -> _KOALABEAR_16,
     *  GP_PERM_POSEIDON2_GOLDILOCKS_12 or _16 -> _GOLDILOCKS_8. 2 * digest
     *  must not exceed the compression's width. (Appended in 0.1.0; a
     *  caller whose struct_size ends before it gets 0.) */
    gp_permutation compress_perm;
    /** Rows per leaf: 0 or 1 (default) hashes row i as leaf i. 2 hashes rows
     *  2i and 2i + 1 as leaf i: the elements of row 2i of every matrix in
     *  commit order, then those of row 2i + 1 — lambdaworks' STARK prover
     *  commits its composition polynomial this way (the parts' bit-reversed
     *  LDE, so a leaf holds the evaluations at x and -x) and each FRI layer
     *  (a one-column bit-reversed matrix), with GP_MERKLE_KECCAK_BE. The
     *  matrices must share one even height H; the tree has H / 2 leaves, an
     *  opening of index i < H / 2 returns row 2i of every matrix followed by
     *  row 2i + 1 of every matrix, gp_merkle_hash_rows writes H / 2 digests,
     *  and gp_merkle_verify takes the same options with the matrices' own
     *  dims. The tree keeps a paired copy of the matrices (their size again
     *  in device memory). gp_merkle_commit, gp_merkle_hash_rows and
     *  gp_merkle_verify only: the FRI, constraint and one-call commitments
     *  refuse it (GP_ERR_UNSUPPORTED). (Appended after compress_perm; a
     *  caller whose struct_size ends before it gets 0.) */
    uint32_t leaf_rows;
} gp_merkle_options;

GP_API void gp_merkle_options_init(gp_merkle_options *options);

/** A committed tree. It keeps every layer up to the root (on the device for
 *  the CUDA backend) and refers to its matrices, whose rows it opens: they
 *  must stay alive (and unchanged) while rows are opened. A tree whose
 *  matrix was destroyed still gives its root, cap, opening sizes and
 *  paths; see gp_merkle_open. */
typedef struct gp_merkle_tree gp_merkle_tree;

/** Commits `count` matrices (buffers of this context, all of one field:
 *  the permutation's for the field hashes, Goldilocks for GP_MERKLE_MIDEN*,
 *  GP_MERKLE_KECCAK_BE and GP_MERKLE_WINTERFELL) and returns the tree. The matrices are read
 *  where they are (a gp_lde_batch output is hashed on the device,
 *  column-major, without a copy or a transpose).
 *
 *  Heights: powers of two for the GP_MERKLE_MIDEN*, GP_MERKLE_KECCAK_BE,
 *  GP_MERKLE_TRITON and GP_MERKLE_WINTERFELL trees (of one height; at least
 *  2 for GP_MERKLE_WINTERFELL). The Plonky3 kinds
 *  (GP_MERKLE_FIELD_SPONGE, GP_MERKLE_KECCAK_PLONKY3, GP_MERKLE_KECCAK_U64)
 *  take any heights as Plonky3's MerkleTreeMmcs does: with M the greatest,
 *  layer k of the tree has ceil(M / 2^k) digests (stored padded with one
 *  zero digest to an even length when above one; the padding is compressed
 *  as a child like any node, never hashed itself), and every other height
 *  must be one of those lengths (under 12: 6, 3, 2 or 1), the matrices of
 *  that height being injected at that layer; others are
 *  GP_ERR_SHAPE_MISMATCH. A context of several devices and a
 *  gpuprover-server session take powers of two only (GP_ERR_UNSUPPORTED
 *  otherwise). */
GP_API gp_status gp_merkle_commit(gp_context *ctx, const gp_buffer *const *matrices,
                                  uint32_t count, const gp_merkle_options *options,
                                  gp_merkle_tree **out);

/** Hashes every row of `count` matrices of one height as a leaf of `options`
 *  (cap_height is ignored): digest i is the leaf hash of row i of all
 *  matrices concatenated. Writes one digest per row, back to back, into
 *  `digests` (`size_bytes` long): rows x (digest elements x element size,
 *  or the byte hashes' 32 or 24 bytes), laid out as gp_merkle_digest_size
 *  says. */
GP_API gp_status gp_merkle_hash_rows(gp_context *ctx, const gp_buffer *const *matrices,
                                     uint32_t count, const gp_merkle_options *options,
                                     void *digests, uint64_t size_bytes);

/** Bytes of one digest of the tree: digest elements x element size (8 for
 *  Goldilocks, 4 for BabyBear and KoalaBear), or 32 for Keccak. Digests
 *  are written element by element, canonical, little-endian; Keccak digests
 *  are the 32 hash bytes. GP_MERKLE_WINTERFELL: 32 (Sha3_256, Blake3_256,
 *  Rp64_256's 4 elements) or 24 (Blake3_192), winterfell's serialized
 *  digest. 0 for NULL. */
GP_API uint64_t gp_merkle_digest_size(const gp_merkle_tree *tree);

/** Copies the root (gp_merkle_digest_size bytes) into `out`, which holds
 *  `size_bytes` bytes. With cap_height > 0 the root is still computed; the
 *  cap is what the openings verify against. */
GP_API gp_status gp_merkle_root(const gp_merkle_tree *tree, void *out, uint64_t size_bytes);

/** Copies the cap (2^cap_height digests, left to right; when the greatest
 *  height M is not a power of two, the ceil(M / 2^(ceil(log2 M) -
 *  cap_height)) digests of that layer plus its zero padding digest when
 *  their number is odd and above one, as Plonky3 stores the layer) into
 *  `out`, which holds `size_bytes` bytes. */
GP_API gp_status gp_merkle_cap(const gp_merkle_tree *tree, void *out, uint64_t size_bytes);

/** SP1's commitment of a tree (slop's MerkleTreeTcs, SP1 v6): the root
 *  compressed with the sponge hash of the two elements [log2 of the leaf
 *  count, the leaf's width in base elements], with the tree's own sponge and
 *  compression: compress(root, sponge([log_height, width])). What SP1's
 *  verifier checks an opening's root against; the openings themselves are
 *  gp_merkle_open's (siblings leaf level first) under gp_merkle_root. Writes
 *  gp_merkle_digest_size bytes into `out` (`size_bytes` long). For SP1 v6:
 *  GP_MERKLE_FIELD_SPONGE, GP_PERM_POSEIDON2_KOALABEAR_16_SP1, the default
 *  rate 8 and digest 8, the codeword tensors of one height as the matrices.
 *  GP_ERR_UNSUPPORTED for another kind or matrices of several heights.
 *  (Added in 0.1.0.) */
GP_API gp_status gp_merkle_sp1_commitment(const gp_merkle_tree *tree, void *out, uint64_t size_bytes);

/** Bytes gp_merkle_cap writes (0 for NULL). */
GP_API uint64_t gp_merkle_cap_size(const gp_merkle_tree *tree);

/** Per opened index: the bytes of its rows (the sum over the matrices of
 *  base columns x element size) and of its path ((log2 of the greatest
 *  height, rounded up, - cap_height) x gp_merkle_digest_size). Either
 *  pointer may be NULL. */
GP_API gp_status gp_merkle_opening_size(const gp_merkle_tree *tree, uint64_t *row_bytes,
                                        uint64_t *path_bytes);

/** Opens `count` leaves. For each index i (a row of the tallest matrices,
 *  i < greatest height) writes into `rows` the opened row of every matrix in
 *  the order they were committed — a matrix of height h is read at row
 *  i >> (ceil(log2 greatest height) - ceil(log2 h)) — base elements
 *  canonical, little-endian; and into `paths` the sibling digests from the
 *  leaf layer up to the layer below the cap (Plonky3's and winterfell's
 *  order; a sibling past the end of its layer is the zero padding digest). Openings are packed
 *  back to back: rows needs count x row_bytes, paths count x path_bytes
 *  (gp_merkle_opening_size). `rows` or `paths` may be NULL (with size 0)
 *  when not wanted.
 *
 *  The rows are read from the committed buffers (for gp_commit_host trees
 *  kept on the host or nowhere, from the memory gp_keep names). Once one of
 *  those buffers has been destroyed, asking for rows is
 *  GP_ERR_INVALID_ARGUMENT naming the matrix (its index in commit order),
 *  never a read of freed memory, even if a new buffer took its address;
 *  paths alone (`rows` NULL) are still opened, from the tree's own nodes. */
GP_API gp_status gp_merkle_open(const gp_merkle_tree *tree, const uint64_t *indices,
                                uint64_t count, void *rows, uint64_t rows_size,
                                void *paths, uint64_t paths_size);

/** Shape of one committed matrix, for gp_merkle_verify. */
typedef struct gp_matrix_dims {
    uint64_t rows;
    /** Columns, each of ext_degree base elements. */
    uint32_t cols;
    uint32_t ext_degree;
} gp_matrix_dims;

/** Checks one opening (as gp_merkle_open writes it) on the host, without a
 *  context: recomputes the leaf from `rows` (for matrices of shapes
 *  `dims[0..count)` in commit order, over `field`), walks `path` up to the
 *  cap layer and compares with digest index >> (log2 height - cap_height)
 *  of `cap`. `options` must be those of the commitment. Returns GP_OK when
 *  the opening is valid, GP_ERR_VERIFY_FAILED when it is not, another code
 *  for malformed arguments (sizes that do not match the shapes, an index
 *  past the end, non-canonical row elements). A dims entry may have 0
 *  columns; `rows` may be NULL when the opened row is empty. */
GP_API gp_status gp_merkle_verify(const gp_merkle_options *options, gp_field field,
                                  const gp_matrix_dims *dims, uint32_t count,
                                  const void *cap, uint64_t cap_size, uint64_t index,
                                  const void *rows, uint64_t rows_size,
                                  const void *path, uint64_t path_size);

/** Destroys a tree. NULL is a no-op. */
GP_API void gp_merkle_tree_destroy(gp_merkle_tree *tree);

/* ------------------------------------------------------------------------ */
/* One-call commitment of host traces, streamed                             */
/* ------------------------------------------------------------------------ */

/** Where gp_commit_host leaves the LDE it committed. */
typedef enum gp_keep {
    /** On the device (default): one new buffer per matrix, returned through
     *  `lde_out`, which the caller destroys; the tree refers to them as a
     *  gp_merkle_commit tree does. The whole LDE must fit in device memory
     *  beside the call's working set. Openings read the buffers. */
    GP_KEEP_DEVICE = 0,
    /** In the caller's host memory: matrix i's LDE is written to
     *  matrices[i].lde_host column-major, as gp_buffer_to_host writes a
     *  buffer in GP_LAYOUT_COL_MAJOR (coordinate k of element (row r,
     *  column c) at (c x rows x blowup + r) x ext_degree + k), one batch of
     *  columns after another. Openings read their rows there: the memory
     *  must stay unchanged while the tree is opened. */
    GP_KEEP_HOST = 1,
    /** Nowhere: only the tree is kept. Openings recompute their rows by
     *  running the LDE again over the trace (matrices[i].data, which must stay
     *  unchanged while the tree is opened), one column batch at a time within
     *  the same budget, without hashing: each gp_merkle_open call costs one
     *  upload and LDE of every committed column (about the commitment's time
     *  less its hashing), however few the indices. */
    GP_KEEP_NONE = 2
} gp_keep;

/** One trace matrix of gp_commit_host. (Fixed layout: arrays of it are
 *  passed; later versions add a new struct rather than grow this one.) */
typedef struct gp_commit_matrix {
    /** rows x cols elements of degree ext_degree, in host memory, in the
     *  options' lde->input_layout; pinned (gp_host_alloc) or pageable. */
    const void *data;
    /** Trace rows: a power of two. The LDE has rows x blowup rows; matrices
     *  of different heights are committed as gp_merkle_commit commits them. */
    uint64_t rows;
    uint64_t cols;
    uint32_t ext_degree;
    /** GP_KEEP_HOST: where this matrix's LDE goes, lde_host_bytes long (at
     *  least rows x blowup x cols x ext_degree x element size). Otherwise
     *  NULL and 0. */
    void *lde_host;
    uint64_t lde_host_bytes;
} gp_commit_matrix;

typedef struct gp_commit_options {
    uint32_t struct_size;
    /** The LDE of every matrix (blowup, shift, input_shift, output_order,
     *  input_layout), as gp_lde_batch_host takes it; n must be 0 (each
     *  matrix's own rows). NULL: gp_lde_options_init's defaults. Its
     *  randomizers cover the columns of every matrix in turn (matrix 0's
     *  columns, then matrix 1's, each as gp_lde_options.randomizers lays
     *  them out), randomizer_count coefficients a column, within the rule
     *  under which the LDE adds them itself (see gp_lde_options.randomizers;
     *  otherwise GP_ERR_UNSUPPORTED naming the matrix); they are copied, so
     *  a GP_KEEP_NONE tree opens rows without them. Triton VM draws the
     *  coefficients from its seeded StdRng: the caller's business. */
    const gp_lde_options *lde;
    /** The Merkle profile, as gp_merkle_commit takes it. NULL:
     *  gp_merkle_options_init's defaults. */
    const gp_merkle_options *merkle;
    /** Default GP_KEEP_DEVICE. */
    gp_keep keep;
    /** Device memory the call may use, in bytes: the tree, the row sponge
     *  states, the batches in flight and, with GP_KEEP_DEVICE, the kept LDE.
     *  0 (default) means what the device has free. The columns are streamed
     *  in batches as large as the budget allows; a budget below the least
     *  working set (the tree, one row group's sponge states and one batch of
     *  a sponge block of columns) is GP_ERR_INVALID_ARGUMENT naming that
     *  minimum. On the CPU backend the same plan is followed, with 0 meaning
     *  no limit. */
    uint64_t device_budget;
    /** GP_KEEP_DEVICE only: NULL (default) to receive new buffers through
     *  `lde_out`, or `count` distinct buffers of this context, buffer i of
     *  matrix i's field and ext_degree with rows x blowup rows and its cols
     *  columns, that receive the LDE instead (`lde_out` must then be NULL).
     *  They stay the caller's and are not counted in device_budget; the tree
     *  reads them as a gp_merkle_commit tree reads its matrices. A prover
     *  that commits trace after trace of one shape saves the allocation of
     *  the LDE each time (about 2.5 ms per GiB on an H100). */
    gp_buffer *const *lde_into;
} gp_commit_options;

GP_API void gp_commit_options_init(gp_commit_options *options);

/** Commits host trace matrices in one call: the coset LDE of every matrix
 *  (options->lde), then one Merkle tree over all of them (options->merkle),
 *  with the same bytes as gp_lde_batch_host into buffers followed by
 *  gp_merkle_commit over those buffers, for every profile and shape.
 *
 *  The LDE is never whole on the device unless kept there: column batches
 *  are uploaded, extended, and absorbed into one sponge state per row (the
 *  profile's own sponge, continued from batch to batch), while the next
 *  batch uploads; after the last column the row digests become the tree.
 *  A trace whose LDE exceeds device memory is committed with GP_KEEP_HOST
 *  or GP_KEEP_NONE. On a context of several devices or a gpuprover-server
 *  session the call composes the two calls instead (same result and
 *  openings in every keep mode, the same budget floor checked; the LDE is
 *  then whole on the device for the duration of the call).
 *
 *  Progress goes to the context's progress callback as stage "commit"
 *  (base columns done of all) and "commit bytes" (trace bytes uploaded);
 *  gp_context_cancel, also from that callback, stops the call with
 *  GP_ERR_CANCELLED, everything it allocated released.
 *
 *  `lde_out` (GP_KEEP_DEVICE only; NULL otherwise) receives `count` new
 *  buffers, matrix i's LDE at index i. `tree` receives the tree; destroy it
 *  before the memory its openings read (see gp_keep). */
GP_API gp_status gp_commit_host(gp_context *ctx, gp_field field, const gp_commit_matrix *matrices,
                                uint32_t count, const gp_commit_options *options,
                                gp_buffer **lde_out, gp_merkle_tree **tree);

/* ------------------------------------------------------------------------ */
/* FRI commitment                                                           */
/* ------------------------------------------------------------------------ */

/** How a group of sibling values is combined with the challenge beta. */
typedef enum gp_fri_fold_kind {
    /** Plonky3 (and winterfell): the value at beta of the polynomial of
     *  degree < arity through the group; for arity 2,
     *  f'(x^2) = (f(x) + f(-x))/2 + beta (f(x) - f(-x))/(2x). */
    GP_FRI_FOLD_HALVED = 0,
    /** Lambda VM: the same without the 1/arity factor; for arity 2,
     *  (f(x) + f(-x)) + beta x^-1 (f(x) - f(-x)). */
    GP_FRI_FOLD_UNHALVED = 1
} gp_fri_fold_kind;

/** What one leaf of a FRI layer's tree holds. */
typedef enum gp_fri_leaf {
    /** The group of `arity` values one fold combines (see `order`). */
    GP_FRI_LEAF_GROUP = 0,
    /** One value per leaf, leaf i = position i of the layer in its order:
     *  Triton VM's FRI (arity 2, GP_ORDER_NATURAL, shift 7, extension
     *  GP_EXT_TRITON, merkle kind GP_MERKLE_TRITON_DIGEST). A query's
     *  opening then holds, per layer, the group's values followed by one
     *  path per member (in member order). Triton also commits its last
     *  codeword: gp_merkle_commit of the remainder with the same profile
     *  gives that root. */
    GP_FRI_LEAF_ELEMENT = 1
} gp_fri_leaf;

typedef struct gp_fri_options {
    uint32_t struct_size;
    /** Folding arity: 2 (default), 4 or 8. A fold of arity 4 or 8 is one
     *  pass, equal to log2(arity) arity-2 folds with beta, beta^2, .... */
    uint32_t arity;
    /** Folding stops at this layer size (a power of two, below the input
     *  size, with log2(input / final_size) a multiple of log2(arity));
     *  default 1. The layer of this size is the remainder: not committed,
     *  returned by gp_fri_remainder. */
    uint64_t final_size;
    /** Order of the codeword's evaluations, kept by every layer. Default
     *  GP_ORDER_BIT_REVERSED (Plonky3). A layer's Merkle leaf g is the group
     *  that one fold combines: positions arity*g .. arity*g + arity - 1 in
     *  bit-reversed order, positions g + k * size/arity in natural order
     *  (winterfell's layout). */
    gp_order order;
    /** The evaluation domain is shift * <omega>, omega the field's primitive
     *  root of the input size (gp_field_two_adic_generator). Default 1:
     *  Plonky3 folds as if on the subgroup (the coset shift of its LDE does
     *  not enter the fold). Layer k lives on shift^(arity^k) * <omega^(arity^k)>. */
    uint64_t shift;
    /** Default GP_FRI_FOLD_HALVED. */
    gp_fri_fold_kind fold;
    /** Profile of every layer's Merkle commitment (gp_merkle_options_init
     *  defaults); its cap_height may not exceed log2(final_size). With
     *  GP_MERKLE_WINTERFELL (trees of two leaves or more) and group leaves,
     *  final_size must be 2 or more. */
    gp_merkle_options merkle;
    /** The codeword's extension (its products with the challenges). Default
     *  GP_EXT_PLONKY3. (Appended in 0.1.0, with `leaf`; a caller whose
     *  struct_size ends before them gets the defaults.) */
    gp_extension extension;
    /** What a layer's Merkle leaf holds. Default GP_FRI_LEAF_GROUP. */
    gp_fri_leaf leaf;
} gp_fri_options;

GP_API void gp_fri_options_init(gp_fri_options *options);

/** A FRI commitment in progress or done: every layer and its tree, on the
 *  device for the CUDA backend. */
typedef struct gp_fri gp_fri;

/** Starts a FRI commitment of `codeword`, a buffer of this context with one
 *  column (of any supported extension degree) and a power-of-two number of
 *  rows, and commits layer 0. Writes that layer's cap (gp_fri_cap_size
 *  bytes) to `cap` when `cap` is not NULL. The codeword is copied; it may be
 *  destroyed afterwards. */
GP_API gp_status gp_fri_begin(gp_context *ctx, const gp_buffer *codeword,
                              const gp_fri_options *options, void *cap,
                              uint64_t cap_size, gp_fri **out);

/** Like gp_fri_begin, with the codeword in host memory: `n` elements of
 *  degree `ext_degree` over `field`, each as its ext_degree canonical base
 *  coefficients, lowest first. */
GP_API gp_status gp_fri_begin_host(gp_context *ctx, gp_field field, uint32_t ext_degree,
                                   const void *codeword, uint64_t n,
                                   const gp_fri_options *options, void *cap,
                                   uint64_t cap_size, gp_fri **out);

/** Layers committed in all (the number of gp_fri_fold calls a commitment
 *  takes): log2(n / final_size) / log2(arity). 0 for NULL. */
GP_API uint32_t gp_fri_layer_count(const gp_fri *fri);

/** Bytes of one layer's cap (2^cap_height digests). 0 for NULL. */
GP_API uint64_t gp_fri_cap_size(const gp_fri *fri);

/** Folds the last committed layer with the challenge `beta` (an element of
 *  the codeword's extension: ext_degree canonical base coefficients,
 *  `beta_size` bytes exactly). If the folded layer is larger than the final
 *  size it is committed and its cap written to `cap` (when not NULL);
 *  otherwise it is the remainder and `cap` is left alone. Fails once every
 *  layer has been folded. */
GP_API gp_status gp_fri_fold(gp_fri *fri, const void *beta, uint64_t beta_size,
                             void *cap, uint64_t cap_size);

/** Bytes of the remainder: final_size x ext_degree x element size. */
GP_API uint64_t gp_fri_remainder_size(const gp_fri *fri);

/** Copies the remainder (final_size extension elements, in the codeword's
 *  order) once every layer has been folded. */
GP_API gp_status gp_fri_remainder(const gp_fri *fri, void *out, uint64_t size_bytes);

/** Called by gp_fri_commit after each commitment: `cap` is layer `layer`'s
 *  cap; the callback writes the challenge for folding it into `beta`
 *  (`beta_size` bytes: ext_degree canonical coefficients). A status other
 *  than GP_OK stops gp_fri_commit, which returns it; a value that is not a
 *  gp_status is GP_ERR_INVALID_ARGUMENT, the message giving the value. */
typedef gp_status (*gp_fri_challenge_fn)(void *user, uint32_t layer, const void *cap,
                                         uint64_t cap_size, void *beta, uint64_t beta_size);

/** The whole commit phase in one call: gp_fri_begin, then for every layer
 *  `challenge` and gp_fri_fold. */
GP_API gp_status gp_fri_commit(gp_context *ctx, const gp_buffer *codeword,
                               const gp_fri_options *options,
                               gp_fri_challenge_fn challenge, void *user, gp_fri **out);

/** Bytes of one query's opening: for every committed layer, its group
 *  (arity extension elements) and the group's Merkle path. */
GP_API uint64_t gp_fri_opening_size(const gp_fri *fri);

/** Opens `count` queries (positions < n in the codeword's order) after
 *  every fold: per query, per layer k from 0, the group holding position
 *  (bit-reversed: index >> (k log2 arity); natural: index mod layer size)
 *  as arity x ext_degree canonical base elements, then its path as
 *  gp_merkle_open writes it. Queries are packed back to back. */
GP_API gp_status gp_fri_open(const gp_fri *fri, const uint64_t *indices, uint64_t count,
                             void *out, uint64_t size_bytes);

/** Checks one query on the host, without a context: every layer's group
 *  against that layer's cap (`caps`: gp_fri_layer_count caps back to back),
 *  and every fold (`betas`: one challenge per layer, back to back) against
 *  the next layer's group or the remainder. `n` is the codeword size.
 *  GP_OK when valid, GP_ERR_VERIFY_FAILED when not. */
GP_API gp_status gp_fri_verify(const gp_fri_options *options, gp_field field,
                               uint32_t ext_degree, uint64_t n, const void *caps,
                               uint64_t caps_size, const void *betas, uint64_t betas_size,
                               const void *remainder, uint64_t remainder_size,
                               uint64_t index, const void *opening, uint64_t opening_size);

/** Destroys a FRI commitment (its layer buffers and trees). NULL and a dead
 *  handle are no-ops; destroying the context releases it too. */
GP_API void gp_fri_destroy(gp_fri *fri);

/* ------------------------------------------------------------------------ */
/* Constraint commitment                                                    */
/* ------------------------------------------------------------------------ */

/** How the composition polynomial is cut into segments of degree < N. */
typedef enum gp_composition_split {
    /** Plonky3's quotient chunks (split_evals / split_domains): segment i
     *  is the polynomial that interpolates rows i, i + D, i + 2D, ... of the
     *  evaluations, which lie on the coset shift * w^i * <w^D>. */
    GP_COMPOSITION_PLONKY3 = 0,
    /** winterfell's composition columns: h(x) = sum_i x^(i N) h_i(x);
     *  segment i holds coefficients i N .. (i + 1) N - 1 of h. */
    GP_COMPOSITION_WINTERFELL = 1,
    /** Triton VM's quotient segments: h(x) = sum_i x^i h_i(x^D); segment i
     *  holds coefficients i, i + D, i + 2D, ... of h (twenty-first's
     *  split_polynomial_into_segments). With the trace's FRI domain as the
     *  segment LDE (shift 7, natural order, blowup = FRI domain / N) and
     *  GP_MERKLE_TRITON, the tree is Triton's quotient commitment: leaf =
     *  Tip5::hash_varlen of the D segment values (their coefficients). */
    GP_COMPOSITION_TRITON = 2
} gp_composition_split;

typedef struct gp_constraint_options {
    uint32_t struct_size;
    /** Default GP_COMPOSITION_PLONKY3. */
    gp_composition_split split;
    /** D, the number of segments: a power of two dividing the number of
     *  evaluations. Default 2. */
    uint32_t segments;
    /** Blowup of the segment LDEs (the trace's): a power of two, 1 to 32.
     *  Default 2. */
    uint32_t blowup;
    /** The evaluations lie on shift * <w> (w of order N D, natural order)
     *  and the segment LDEs on shift * <w'> (w' of order N blowup). Default:
     *  the field's generator (Plonky3's quotient domain for a trace on the
     *  subgroup, and its LDE coset; winterfell's domain offset). */
    uint64_t shift;
    /** Row order of the segment LDEs. Default GP_ORDER_BIT_REVERSED
     *  (Plonky3); winterfell commits natural order. */
    gp_order output_order;
    /** The commitment's Merkle profile (gp_merkle_options_init defaults). */
    gp_merkle_options merkle;
} gp_constraint_options;

GP_API void gp_constraint_options_init(gp_constraint_options *options);

/** Commits the composition (quotient) polynomial from its evaluations:
 *  `evaluations` is a buffer of this context with N D rows and one column
 *  (base or extension), natural order on shift * <w>. Splits it into D
 *  segments of degree < N (options->split), extends every segment to
 *  N blowup rows on shift * <w'>, and commits the rows of all segments in
 *  one tree: `*segments` receives a new buffer of N blowup rows and D
 *  columns (column i = segment i, same extension degree), `*tree` its
 *  commitment. Both stay on the device; destroy them when done. */
GP_API gp_status gp_constraint_commit(gp_context *ctx, const gp_buffer *evaluations,
                                      const gp_constraint_options *options,
                                      gp_buffer **segments, gp_merkle_tree **tree);

/* ------------------------------------------------------------------------ */
/* Out-of-domain evaluation and DEEP composition                            */
/* ------------------------------------------------------------------------ */

/** Where committed columns live and which extension the points come from. */
typedef struct gp_ood_options {
    uint32_t struct_size;
    /** The columns' rows are evaluations on shift * <omega_M>, M = rows
     *  (omega_M = gp_field_two_adic_generator). Default: the field's
     *  generator, gp_lde_batch's default output coset. */
    uint64_t shift;
    /** Row order of the columns. Default GP_ORDER_NATURAL (gp_lde_batch's
     *  default); GP_ORDER_BIT_REVERSED for Plonky3's committed LDEs. */
    gp_order order;
    /** Degree bound N of the columns' polynomials (a power of two <= M); 0
     *  (default) means M. gp_evaluate_ood reads the N rows of the sub-coset
     *  shift * <omega_N> only (the trace domain of an LDE). */
    uint64_t degree_bound;
    /** Degree E of the extension the points z, the values and the
     *  coefficients live in: Goldilocks 1, 2 or 3, BabyBear and KoalaBear 1
     *  or 4. 0 (default) means 3 for Goldilocks, 4 for BabyBear and
     *  KoalaBear. Columns are base columns or columns of degree E. */
    uint32_t challenge_degree;
    /** The extension of degree E. Default GP_EXT_PLONKY3; GP_EXT_TRITON for
     *  Triton VM's out-of-domain rows and DEEP codewords. (Appended in 0.1.0;
     *  a caller whose struct_size ends before it gets the default.) */
    gp_extension extension;
} gp_ood_options;

GP_API void gp_ood_options_init(gp_ood_options *options);

/** Evaluates every column of `count` buffers (one field, one number of rows
 *  M; base or degree-E columns) at `num_points` points z (degree-E elements,
 *  E canonical coefficients each, none in the evaluation coset) by
 *  barycentric evaluation over the degree-bound sub-coset, on the device for
 *  the CUDA backend. Writes to `out` (`size_bytes` long) for each point, for
 *  each buffer in order, for each column: f(z) as E coefficients. The result
 *  equals evaluating, at z, the polynomial of degree < degree_bound that the
 *  rows interpolate. */
GP_API gp_status gp_evaluate_ood(gp_context *ctx, const gp_buffer *const *columns, uint32_t count,
                                 const gp_ood_options *options, const void *points,
                                 uint32_t num_points, void *out, uint64_t size_bytes);

/** DEEP composition: writes into `out` (a buffer of this context with M rows
 *  and one column of degree E) the codeword
 *      Q(x) = sum_j sum_k alpha[j][k] (f_k(x) - v[j][k]) / (x - z_j)
 *  over all M rows of the columns' coset (same order), where k runs over the
 *  columns of the buffers in order, z_j are the points, v the values as
 *  gp_evaluate_ood writes them and alpha the caller's coefficients in the
 *  same layout. The output is ready for gp_fri_begin. */
GP_API gp_status gp_deep_composition(gp_context *ctx, const gp_buffer *const *columns, uint32_t count,
                                     const gp_ood_options *options, const void *points,
                                     uint32_t num_points, const void *values, const void *alphas,
                                     gp_buffer *out);

/* ------------------------------------------------------------------------ */
/* Constraint programs: an AIR's quotient on the device                     */
/* ------------------------------------------------------------------------ */

/** What a node of a constraint program computes. Leaves read an input of
 *  the row; the others combine earlier nodes. */
typedef enum gp_cp_op {
    /** Main trace column `a` at this row (b = 0) or the next row (b = 1). */
    GP_CP_MAIN = 1,
    /** Preprocessed column `a` at this row (b = 0) or the next row (b = 1). */
    GP_CP_PREPROCESSED = 2,
    /** Periodic column `a` at this row. */
    GP_CP_PERIODIC = 3,
    /** Public value `a` (a base element, the same on every row). */
    GP_CP_PUBLIC = 4,
    /** Constant `a` of the program's constants. */
    GP_CP_CONST = 5,
    /** Challenge `a`, an element of the extension (ext_degree). */
    GP_CP_CHALLENGE = 6,
    /** Plonky3's unnormalized Lagrange selectors of the trace domain
     *  H = <w_N>: Z_H(x) / (x - 1), Z_H(x) / (x - w_N^-1) and x - w_N^-1,
     *  with Z_H(x) = x^N - 1. */
    GP_CP_IS_FIRST_ROW = 7,
    GP_CP_IS_LAST_ROW = 8,
    GP_CP_IS_TRANSITION = 9,
    /** Node a + node b, a - b, a * b (a, b < this node's index). */
    GP_CP_ADD = 16,
    GP_CP_SUB = 17,
    GP_CP_MUL = 18,
    /** -(node a). */
    GP_CP_NEG = 19
} gp_cp_op;

/** One node: `op` (a gp_cp_op) and its operands. Nodes are in topological
 *  order: an operand names an earlier node, so a program has no cycle. */
typedef struct gp_cp_node {
    uint32_t op;
    uint32_t a;
    uint32_t b;
} gp_cp_node;

/** Largest node, constraint and constant counts and widths a program may
 *  declare (GP_ERR_INVALID_ARGUMENT past them). */
#define GP_CP_MAX_NODES (1u << 24)
#define GP_CP_MAX_WIDTH (1u << 24)
#define GP_CP_MAX_SMALL (1u << 16)

/** A program as the caller describes it; gp_constraint_program_create copies
 *  what it needs. */
typedef struct gp_constraint_program_desc {
    uint32_t struct_size;
    /** Field of the trace. */
    gp_field field;
    /** Degree of the challenges, alpha and the quotient: Goldilocks 1, 2
     *  or 3, BabyBear 1, 4, 5 or 8, KoalaBear 1, 4 or 8 (Plonky3's binomial
     *  extensions; GP_ERR_UNSUPPORTED otherwise). */
    uint32_t ext_degree;
    /** Declared widths: main and preprocessed columns, periodic columns,
     *  public values, challenges (each <= GP_CP_MAX_WIDTH; periodic columns
     *  and challenges <= GP_CP_MAX_SMALL). */
    uint32_t main_width;
    uint32_t preprocessed_width;
    uint32_t periodic_width;
    uint32_t public_count;
    uint32_t challenge_count;
    /** The DAG: node_count nodes (<= GP_CP_MAX_NODES). */
    const gp_cp_node *nodes;
    uint32_t node_count;
    /** Base-field constants (canonical, elem_size bytes each), for
     *  GP_CP_CONST (<= GP_CP_MAX_NODES). */
    const void *constants;
    uint32_t constant_count;
    /** The constraints: node indices, in the AIR's order (a node may appear
     *  more than once); <= GP_CP_MAX_NODES. */
    const uint32_t *constraints;
    uint32_t constraint_count;
} gp_constraint_program_desc;

typedef struct gp_constraint_program gp_constraint_program;

GP_API void gp_constraint_program_desc_init(gp_constraint_program_desc *desc);

/** Validates and compiles a program: every op known, every operand an
 *  earlier node, every leaf within the declared widths, every constant
 *  canonical, every count within its bound (GP_ERR_INVALID_ARGUMENT or
 *  GP_ERR_NON_CANONICAL naming the node and field otherwise). Compiling
 *  computes common subexpressions once (nodes equal in op and operands,
 *  sums and products in either order), drops nodes no constraint reaches
 *  and assigns each value a slot that is reused after its last use. The
 *  program is a host object of no context: one program serves every
 *  context and thread. */
GP_API gp_status gp_constraint_program_create(const gp_constraint_program_desc *desc,
                                              gp_constraint_program **out);

/** Destroys a program. NULL and a dead handle are no-ops. */
GP_API void gp_constraint_program_destroy(gp_constraint_program *program);

/** What compiling made of a program. */
typedef struct gp_constraint_program_info {
    uint32_t struct_size;
    /** Distinct nodes the constraints reach, after common subexpressions. */
    uint64_t nodes;
    /** Instructions evaluated per row (loads, operations, folds). */
    uint64_t instructions;
    /** Value slots a row needs at once: base-field and extension. */
    uint64_t base_slots;
    uint64_t ext_slots;
    /** Constraints. */
    uint64_t constraints;
    /** Largest constraint degree (trace columns and periodic columns count
     *  1, is_first_row and is_last_row 1, is_transition, publics,
     *  constants and challenges 0; Plonky3's degree_multiple). */
    uint64_t max_degree;
} gp_constraint_program_info;

GP_API gp_status gp_constraint_program_get_info(const gp_constraint_program *program,
                                                gp_constraint_program_info *info);

/** The inputs of one quotient evaluation. */
typedef struct gp_quotient_options {
    uint32_t struct_size;
    /** N = 2^log_trace_rows, the trace domain H = <w_N> (a subgroup). */
    uint32_t log_trace_rows;
    /** Q = 2^log_quotient_rows >= N: the quotient domain shift * <w_Q>. */
    uint32_t log_quotient_rows;
    /** The coset shift; default (0) the field's generator (Plonky3's
     *  quotient domain). shift^Q must not be 1 (the coset would meet H). */
    uint64_t shift;
    /** Row order of `main` and `preprocessed`: evaluations on
     *  shift * <w_M>, M = their rows >= Q; the quotient domain is every
     *  (M/Q)-th row in natural order and the first Q rows bit-reversed
     *  (Plonky3's committed LDE). Default GP_ORDER_BIT_REVERSED. */
    gp_order order;
    /** Base columns (main_width of them; preprocessed_width). */
    const gp_buffer *main;
    const gp_buffer *preprocessed;
    /** Periodic columns on the quotient domain: periodic_rows (a power of
     *  two <= Q) x periodic_width elements, row-major; row i of the domain
     *  reads row i mod periodic_rows (Plonky3's PeriodicLdeTable). */
    const void *periodic;
    uint64_t periodic_rows;
    /** public_count base elements; challenge_count elements of ext_degree
     *  coefficients; alpha (ext_degree coefficients). */
    const void *public_values;
    const void *challenges;
    const void *alpha;
} gp_quotient_options;

GP_API void gp_quotient_options_init(gp_quotient_options *options);

/** Evaluates the program on every row i of the quotient domain
 *  (x_i = shift * w_Q^i, natural order; "next row" is x_i w_N) and writes
 *      q(x_i) = (sum_j alpha^(C-1-j) c_j(x_i)) / Z_H(x_i)
 *  (c_j the constraints in order, C their count: the Horner fold of
 *  Plonky3's prover and verifier) into `out`, a buffer of this context with
 *  Q rows and one column of ext_degree (or ext_degree base columns, the
 *  same memory: the degrees a buffer does not take, 5 and 8, come so),
 *  natural order. Equal, element for
 *  element, to p3_uni_stark's quotient_values for the same AIR and inputs.
 *  On the device for the CUDA backend; GP_ERR_UNSUPPORTED on contexts of
 *  several devices and remote contexts. */
GP_API gp_status gp_quotient_evaluate(gp_context *ctx, const gp_constraint_program *program,
                                      const gp_quotient_options *options, gp_buffer *out);

#ifdef __cplusplus
}
#endif

#endif /* GPUPROVER_H */
