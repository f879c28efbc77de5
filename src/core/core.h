// SPDX-License-Identifier: MIT OR Apache-2.0
// Core objects behind the C handles: errors, buffers, the backend interface
// and the context.
#pragma once

#include <atomic>
#include <cstdint>
#include <functional>
#include <map>
#include <algorithm>
#include <memory>
#include <mutex>
#include <set>
#include <sstream>
#include <stdexcept>
#include <string>
#include <utility>
#include <vector>

#include "core/monitor.h"
#include "gpuprover.h"
#include "math/field.h"

namespace gp {

// Internal error: a status plus the message gp_last_error() will report.
struct Error : std::runtime_error {
    gp_status status;
    Error(gp_status s, const std::string &msg) : std::runtime_error(msg), status(s) {}
};

template <class... Args>
[[noreturn]] void fail(gp_status s, Args &&...args) {
    std::ostringstream os;
    (os << ... << args);
    throw Error(s, os.str());
}

// a * b, or GP_ERR_SIZE_OVERFLOW naming `what`.
inline uint64_t checked_mul(uint64_t a, uint64_t b, const char *what) {
    uint64_t r;
    if (__builtin_mul_overflow(a, b, &r))
        fail(GP_ERR_SIZE_OVERFLOW, what, ": ", a, " * ", b, " overflows 64 bits");
    return r;
}

// a + b, or GP_ERR_SIZE_OVERFLOW naming `what`.
inline uint64_t checked_add(uint64_t a, uint64_t b, const char *what) {
    uint64_t r;
    if (__builtin_add_overflow(a, b, &r))
        fail(GP_ERR_SIZE_OVERFLOW, what, ": ", a, " + ", b, " overflows 64 bits");
    return r;
}

inline bool is_pow2(uint64_t x) { return x && !(x & (x - 1)); }
inline uint32_t log2_exact(uint64_t x) { return (uint32_t)__builtin_ctzll(x); }
inline uint32_t log2_ceil(uint64_t x) { return x <= 1 ? 0 : 64 - (uint32_t)__builtin_clzll(x - 1); }

struct FieldDesc {
    FieldId id;
    uint32_t elem_size;
    uint64_t modulus;
    uint64_t generator;
    uint32_t two_adicity;
    const char *name;
};

// Describes `f` or throws GP_ERR_INVALID_ARGUMENT naming `arg`.
// (By reference: an int from C outside the enum is never loaded as one.)
const FieldDesc &field_desc(const gp_field &f, const char *arg = "field");
// Throws unless `d` is a supported extension degree of `f`.
void check_ext_degree(const FieldDesc &f, uint32_t d, const char *arg = "ext_degree");
// Validates a gp_extension for elements of degree d over f (GP_EXT_TRITON:
// Goldilocks, degree 1 or 3) and returns it as kExtPlonky3 / kExtTriton.
uint32_t check_extension(const FieldDesc &f, uint32_t d, int extension, const char *arg);

class Context;

// A rows x cols matrix of (extension) elements stored as cols * ext base
// columns, each `rows` contiguous canonical elements.
struct Buffer {
    Context *ctx = nullptr;
    const FieldDesc *field = nullptr;
    uint32_t ext = 1;
    uint64_t rows = 0;
    uint64_t cols = 0;
    uint64_t bytes = 0;
    void *data = nullptr;  // device pointer on the CUDA backend
    // Memory the caller owns (gp_buffer_wrap, gp_buffer_from_dlpack) is not
    // freed; `release` (a DLPack deleter) runs when the buffer goes.
    bool owned = true;
    std::function<void()> release;
    // Spread over the devices of a several-device context (multi/): device
    // `dev` holds extension columns [col0, col0 + cols) at `data` in the
    // layout above (rows x cols). Empty: the whole buffer is at `data` (the
    // first device's memory on such a context).
    struct Shard {
        uint32_t dev;
        uint64_t col0, cols;
        void *data;
    };
    std::vector<Shard> shards;
    // Elements from one base column to the next; 0 means `rows`. (Only the
    // multi-device Merkle commitment makes views of row blocks, whose
    // columns are the taller matrix's stride apart.)
    uint64_t stride = 0;
    // Unique to each buffer a context registers (core/context.cpp), never
    // reused: a tree tells its matrix from a later buffer at the same
    // address. 0 for views and shapes that are not handles.
    uint64_t serial = 0;

    uint64_t base_cols() const { return cols * ext; }
};

struct LdeArgs {
    const FieldDesc *field;
    uint32_t ext;
    uint64_t rows_in;     // rows present in the input (<= n)
    uint64_t cols;        // extension columns
    uint32_t log_n;
    uint32_t log_blowup;
    uint64_t shift;       // output coset shift g
    uint64_t input_shift; // s
    gp_order order;
    // exactly one input source:
    const Buffer *in_buf = nullptr;
    const void *in_host = nullptr;
    gp_layout in_layout = GP_LAYOUT_COL_MAJOR;
    Buffer *out;
    // The domains' root is the library's to this odd power (lde_root.h);
    // backends see 1 only.
    uint64_t root_power = 1;
    // The input rows are coefficients (lde_coeffs.h), in in_buf; backends
    // see true only where Backend::lde_takes_coefficients().
    bool coefficients = false;
    // The randomizer addend (lde_random.h), or null: rand_m > 0 elements a
    // coset and base column, in host memory, laid out [base column][coset r
    // in natural coset order][k < rand_m], added to coefficient k of coset
    // r (coefficients of f(g w_{nB}^r w_n^i) in w_n^i) before the forward
    // transforms. Set only where Backend::lde_adds() and rand_m <= n; its
    // first base column is this call's first.
    const void *rand_add = nullptr;
    uint64_t rand_m = 0;
};

struct NttArgs {
    gp_ntt_direction direction;
    uint64_t shift;
    gp_order input_order;
    gp_order output_order;
};

// A validated Merkle profile: gp_merkle_kind, gp_permutation (field sponge
// and Miden kinds), gp_field of the matrices, sponge rate, digest words and
// bytes per digest word (merkle_ops.h maps it to a hasher type).
// Whether leaf i of a Merkle kind reads row (i mod h) of every matrix of
// height h (Miden's LMCS) rather than Plonky3's injection of shorter ones.
inline bool lifted_kind(int kind) { return kind == GP_MERKLE_MIDEN_LMCS; }

struct TreeSpec {
    int kind = 0, perm = 0, field = 0;
    int compress_perm = 0;  // field sponges: the compression's, when it differs
    uint32_t rate = 0, digest = 0, word_size = 0;
};

// A validated Merkle commitment request. `mats` are sorted by height,
// tallest first (insertion order among equal heights); groups[k] is the
// index range of the matrices of height 2^(log_h - k) in `mats`. With
// `leaves_only` only the leaf layer is built.
// Digests of layer k of a tree over `leaves` leaves: ceil(leaves / 2^k)
// (Plonky3's MMCS commits matrices of any height; a layer of r > 1 digests
// is stored padded with one zero digest to an even length, and the padding
// is compressed with its neighbour like any child, never hashed itself).
inline uint64_t merkle_layer_rows(uint64_t leaves, uint32_t k) { return ((leaves - 1) >> k) + 1; }
inline uint64_t merkle_padded_rows(uint64_t r) { return r <= 1 ? r : r + (r & 1); }

struct MerkleArgs {
    TreeSpec spec;
    uint32_t cap_height = 0, log_h = 0;
    // Leaves: 0 means 2^log_h; otherwise the tallest height (2^(log_h - 1) <
    // leaves < 2^log_h), the layers past merkle_layer_rows stay zero.
    uint64_t leaves = 0;
    uint64_t leaf_count() const { return leaves ? leaves : 1ull << log_h; }
    bool leaves_only = false;
    std::vector<const Buffer *> mats;
    std::vector<std::pair<uint32_t, uint32_t>> groups;  // per layer k: [m0, m1)
    // A streamed commitment (core/commit_stream.cpp) hashed the rows
    // already: the leaf layer is in the tree's nodes, and inject[k] (backend
    // memory, one digest per row of group k, or null) replaces the hashing
    // of group k's matrices at layer k. Empty otherwise.
    std::vector<const void *> inject;
};

// One column batch of a streamed leaf hash (core/commit_stream.cpp): the
// sponge of every row r < rows absorbs the next `count` elements of the
// row, read from `mats` (views of base columns, in order); `left` elements
// of the row are still to come, this batch's included, of `n` in all.
// State word k of row r is states[k * rows + r] (the hasher's S words).
// `first`: the states are initialised before; count == left: the sponges
// finish and row r's digest goes to digests + r * digest words.
struct AbsorbArgs {
    TreeSpec spec;
    uint64_t rows = 0, n = 0, left = 0, count = 0;
    bool first = false;
    std::vector<const Buffer *> mats;
    void *states = nullptr;
    void *digests = nullptr;
};

// A committed tree: all layers up to the root, leaves first
// (merkle_layer_offset), spec.digest words of spec.word_size bytes per
// digest, in host memory (CPU backend) or device memory (CUDA backend).
// `committed` lists the matrices in the caller's order (for openings).
struct MerkleTree {
    Context *ctx = nullptr;
    TreeSpec spec;
    uint32_t cap_height = 0, log_h = 0;
    uint64_t leaves = 0;  // as MerkleArgs::leaves
    uint64_t leaf_count() const { return leaves ? leaves : 1ull << log_h; }
    void *nodes = nullptr;
    // Storage the tree made for itself and releases with it (the paired
    // rows of gp_merkle_options.leaf_rows = 2), or null.
    std::shared_ptr<void> owned;
    std::vector<const Buffer *> committed;
    // What the tree knows of `committed` without reading them, which the
    // caller may destroy before the tree (note_committed,
    // core/merkle_tree.h): each one's serial, and the bytes of one opened
    // row of all of them.
    std::vector<uint64_t> committed_serials;
    uint64_t row_bytes = 0;
    // Whether every committed matrix has the same height (note_committed).
    bool one_height = true;
    // A streamed commitment that did not keep its LDE on the device: where
    // gp_merkle_open finds the rows (core/commit_stream.h). Null otherwise.
    std::shared_ptr<const struct StreamSource> source;
    uint64_t digest_bytes() const { return (uint64_t)spec.digest * spec.word_size; }
    uint32_t path_len() const { return log_h - cap_height; }
    // The cap is layer log_h - cap_height: 2^cap_height digests (fewer, as
    // Plonky3 stores the layer, when the tallest height is not a power of two).
    uint32_t cap_layer() const { return log_h - cap_height; }
    uint64_t cap_bytes() const {
        return digest_bytes() * merkle_padded_rows(merkle_layer_rows(leaf_count(), cap_layer()));
    }
};

// One FRI fold on the backend's memory (see core/fri_ops.h): `in` is a layer
// of 2^log_n values in matrix form; `out` the next layer in matrix form, or
// the final values (D base elements each) when final_out.
struct FriFoldArgs {
    FieldId field;
    uint32_t ext = 1, log_n = 0, log_a = 1;
    uint32_t ext_kind = 0;  // kExtPlonky3 or kExtTriton (math/ext.h)
    bool bitrev = true, halve = true, final_out = false;
    bool leaf_element = false;  // layers stored one value per leaf (else one group)
    uint64_t omega_inv = 0, shift_inv = 0, zeta_inv = 0;
    uint64_t beta[4] = {0, 0, 0, 0};
    const void *in = nullptr;
    void *out = nullptr;
};

// Out-of-domain sums (core/deep_ops.h): for every base column of `bufs` (in
// order), sum_p F(row_p) * x_p / (z - x_p) over the 2^log_nb positions of the
// degree-bound sub-coset; E words per column.
struct OodArgs {
    FieldId field;
    uint32_t E = 1, log_m = 0, log_nb = 0;
    uint32_t ext_kind = 0;  // kExtPlonky3 or kExtTriton (math/ext.h)
    bool bitrev = false;
    uint64_t shift = 1, omega_n = 1;
    uint64_t z[4] = {0, 0, 0, 0};
    std::vector<const Buffer *> bufs;
};

// DEEP composition into `out` (2^log_m rows, one column of degree E):
// alpha and corr as in deep_row, all as words.
struct DeepArgs {
    FieldId field;
    uint32_t E = 1, log_m = 0, npoints = 0;
    uint32_t ext_kind = 0;  // kExtPlonky3 or kExtTriton (math/ext.h)
    bool bitrev = false;
    uint64_t shift = 1, omega_m = 1, ncols = 0;
    std::vector<const Buffer *> bufs;
    std::vector<uint64_t> z, alpha, corr;
    Buffer *out = nullptr;
};

struct QuotientArgs;

// One implementation per device kind. Methods throw gp::Error.
class GP_PLUGIN_EXPORT Backend {
public:
    virtual ~Backend() = default;
    // The context's call monitor (set when the context is made): backends
    // poll it at batch and layer boundaries and report transfers to it.
    CallMonitor *monitor = nullptr;
    // The outermost call on the context begins and ends; end_call returns
    // the device time of the call's work in nanoseconds (0 if not measured).
    virtual void begin_call() {}
    virtual uint64_t end_call() noexcept { return 0; }
    // Orders device work after a caller's stream (gp_context_set_stream).
    virtual void set_stream(void *stream) {
        if (stream) fail(GP_ERR_UNSUPPORTED, "stream = ", stream, ": the ", device_name(), " backend has no streams");
    }
    // Throws unless `data` can back `bytes` bytes of a buffer of this
    // backend that the caller owns (device memory of the context's GPU,
    // host memory on the CPU), naming `arg`.
    virtual void check_foreign(const void *data, uint64_t bytes, const char *arg) = 0;
    // Throws GP_ERR_NON_CANONICAL unless every value of `b` is canonical.
    virtual void check_buffer_values(const Buffer &b, const char *arg) = 0;
    // The CUDA device ordinal of the buffers' memory, or -1 for host memory.
    virtual int device_ordinal() const { return -1; }
    virtual gp_backend kind() const = 0;
    virtual std::string device_name() const = 0;
    // Storage for buffers, zero-filled.
    virtual void *alloc_buffer(uint64_t bytes) = 0;
    virtual void free_buffer(void *p) = 0;
    // A buffer's storage: `spread` buffers may be spread over the devices
    // of a several-device backend; the others (a FRI commitment's layers)
    // stay on its first device.
    virtual void alloc_storage(Buffer &b, bool spread) {
        (void)spread;
        b.data = alloc_buffer(b.bytes);
    }
    virtual void free_storage(Buffer &b) { free_buffer(b.data); }

    // ---- several devices (multi/multi_backend.cpp drives these) ----
    virtual uint32_t device_count() const { return 1; }
    // Device memory free and in all (0 on the CPU).
    virtual void mem_info(uint64_t &free_bytes, uint64_t &total_bytes) {
        free_bytes = total_bytes = 0;
    }
    // Per-device figures of device i (buffer_bytes, when known, else 0).
    virtual void device_info(uint32_t i, gp_device_info &out);
    // Makes the calling thread ready to drive this backend's device.
    virtual void bind_thread() {}
    // Lets this backend's device read and write memory of `peer` directly
    // when the hardware allows (copies work either way); says whether it
    // can.
    virtual bool connect(Backend &peer) {
        (void)peer;
        return true;  // host memory
    }
    // Copies `height` runs of `width` bytes from `src` (runs `spitch` bytes
    // apart) to `dst` (runs `dpitch` apart), on this backend's streams, and
    // waits for the copy. Either side may be memory of another backend of
    // the same kind (a peer device) or host memory; the work of every
    // backend involved that wrote `src` is complete.
    virtual void copy_peer(const void *src, uint64_t spitch, void *dst, uint64_t dpitch, uint64_t width,
                           uint64_t height) = 0;
    // dst[i] += src[i] for `count` base elements of field f (both this
    // backend's memory).
    virtual void add_into(const FieldDesc &f, void *dst, const void *src, uint64_t count) = 0;
    // Host data of the given layout into dst; values are checked canonical
    // (GP_ERR_NON_CANONICAL names `arg`[index]).
    virtual void upload(Buffer &dst, const void *host, gp_layout layout, const char *arg) = 0;
    virtual void download(const Buffer &src, void *host, gp_layout layout) = 0;
    virtual void lde(const LdeArgs &a) = 0;
    // Whether lde() takes LdeArgs::rand_add (else the core randomizes with
    // a second transform).
    virtual bool lde_adds() const { return false; }
    // Whether lde() takes LdeArgs::coefficients (basefold's encoding; else
    // the core pads the coefficients into the output and transforms it).
    virtual bool lde_takes_coefficients() const { return false; }
    // The most addend bytes (all columns of one LdeArgs) it takes at once.
    virtual uint64_t max_rand_add_bytes() const { return ~0ull; }
    virtual void ntt(Buffer &buf, const NttArgs &a) = 0;
    // Applies permutation `perm` (a gp_permutation, already validated) to
    // `count` host states in place.
    virtual void permute(int perm, void *states, uint64_t count) = 0;
    // Builds every layer of the tree into storage from alloc_buffer().
    virtual void merkle_commit(const MerkleArgs &a, MerkleTree &t) = 0;
    // Whether absorb_rows and MerkleArgs::inject are implemented (else the
    // streamed commitment composes lde and merkle_commit).
    virtual bool streams() const { return false; }
    // Queues the absorption; it may return before the work is done (later
    // work of this backend is ordered after it).
    virtual void absorb_rows(const AbsorbArgs &a) {
        (void)a;
        fail(GP_ERR_UNSUPPORTED, "the ", device_name(), " backend does not stream commitments");
    }
    // Streamed downloads (the streamed commitment's GP_KEEP_HOST): copies
    // `src` to `host` in GP_LAYOUT_COL_MAJOR once the work queued so far is
    // done, and may return before the copy is. The copies begun on `slot`
    // (0 or 1) are finished by download_end(slot): after it returns, the
    // backend's later work is ordered after them (so src may be written
    // again) and the host bytes are complete once that work is. With
    // run = false (unwinding) the copies not started are dropped and the
    // started ones waited for. The default is a synchronous download.
    virtual void download_begin(const Buffer &src, void *host, int slot) {
        (void)slot;
        download(src, host, GP_LAYOUT_COL_MAJOR);
    }
    virtual void download_end(int slot, bool run) {
        (void)slot;
        (void)run;
    }
    // Copies `bytes` bytes of tree storage at byte offset `offset` to host.
    virtual void read_tree(const MerkleTree &t, uint64_t offset, void *out, uint64_t bytes) = 0;
    // Writes the openings of `count` validated leaf indices (host memory):
    // rows (merkle_open_rows) and paths (merkle_open_path), either may be
    // null.
    virtual void merkle_open(const MerkleTree &t, const uint64_t *indices, uint64_t count, void *rows,
                             void *paths) = 0;
    virtual void fri_fold(const FriFoldArgs &a) = 0;
    // Layer 0 of a FRI commitment: `ext` base columns of 2^log_n elements of
    // `elem_size` bytes (a codeword buffer) to matrix form.
    virtual void fri_to_matrix(uint32_t elem_size, uint32_t ext, uint32_t log_n, uint32_t log_a, bool bitrev,
                               const void *in, void *out) = 0;
    // Extension column `dst_col` of dst: rows [0, count) = rows start +
    // k * stride of column `src_col` of src, rows [count, dst.rows) = 0.
    virtual void copy_rows(const Buffer &src, uint64_t src_col, uint64_t start, uint64_t stride, uint64_t count,
                           Buffer &dst, uint64_t dst_col) = 0;
    // Every base column of dst (src's shape, rows a power of two): row i =
    // row (mult * i mod rows) of src (core/lde_root.cpp's change of root).
    // Backends of one device only; the others refuse before calling.
    virtual void gather_rows(const Buffer &src, uint64_t mult, Buffer &dst) {
        (void)src, (void)mult, (void)dst;
        fail(GP_ERR_UNSUPPORTED, "this backend does not gather rows");
    }
    virtual void ood_sums(const OodArgs &a, uint64_t *out) = 0;
    virtual void deep(const DeepArgs &a) = 0;
    // An AIR's quotient from a compiled constraint program (core/quotient.h;
    // every input validated). Backends of one device only.
    virtual void quotient(const QuotientArgs &a) {
        (void)a;
        fail(GP_ERR_UNSUPPORTED, "the ", device_name(), " backend does not evaluate constraint programs");
    }
    virtual void trim() = 0;
    // Registers host memory that later calls pass as host input or output
    // (gpuprover-server's shared memory) so that transfers read it directly
    // (page-locked on CUDA); best effort. unpin_host undoes it.
    virtual void pin_host(void *p, uint64_t bytes) {
        (void)p;
        (void)bytes;
    }
    virtual void unpin_host(void *p) { (void)p; }
    // gp_host_alloc: host memory this backend transfers fastest (4096-byte
    // aligned; throws GP_ERR_HOST_OUT_OF_MEMORY), and its release.
    virtual void *transfer_alloc(uint64_t bytes);
    virtual void transfer_free(void *p);
    virtual uint64_t cache_bytes() const = 0;
    virtual uint64_t allocations() const = 0;
    // Cached tables evicted to keep the cache within its budget.
    virtual uint64_t evictions() const = 0;
    // The three above at once (a remote backend asks its server once).
    virtual void cache_figures(uint64_t &cache, uint64_t &allocs, uint64_t &evicted) const {
        cache = cache_bytes();
        allocs = allocations();
        evicted = evictions();
    }
};

std::unique_ptr<Backend> make_cpu_backend(unsigned threads);
// A backend spreading its work over `parts` (two or more; see
// multi/multi_backend.h).
std::unique_ptr<Backend> make_multi_backend(std::vector<std::unique_ptr<Backend>> parts);
// Returns nullptr and sets `why` when no CUDA device is usable.
std::unique_ptr<Backend> make_cuda_backend(int device, unsigned threads, std::string &why);
// Visible CUDA devices (0 without CUDA).
int cuda_device_count();

// A session on a gpuprover-server (remote/remote_backend.cpp). Throws
// GP_ERR_REMOTE when no server at `endpoint` accepts one.
struct RemoteOptions {
    std::string endpoint;    // as GPUPROVER_SERVER takes it
    int priority = GP_PRIORITY_NORMAL;
    bool force_cpu = false;
    std::string token_file;  // empty: none
};
std::unique_ptr<Backend> make_remote_backend(const RemoteOptions &o);

struct FriState;

// A context owns its buffers, trees and FRI commitments. Its calls are
// serialized by `call_mutex` (core/registry.h: ContextCall), shared so that
// a call waiting for it outlives the context's destruction.
class Context {
public:
    std::unique_ptr<Backend> backend;
    std::set<Buffer *> buffers;
    std::set<MerkleTree *> trees;
    std::set<FriState *> fris;
    uint64_t buffer_bytes = 0;
    std::shared_ptr<std::recursive_mutex> call_mutex = std::make_shared<std::recursive_mutex>();
    std::shared_ptr<CallMonitor> monitor = std::make_shared<CallMonitor>();
    // Why AUTO did not use the configured server (gp_context_remote_fallback).
    std::string remote_fallback;
    // Why AUTO runs on the CPU backend (gp_context_cpu_fallback).
    std::string cpu_fallback;
    // Live gp_host_alloc memory: address -> bytes.
    std::map<void *, uint64_t> host_allocs;
};

// Object lifetimes (core/context.cpp).
// A zero-filled rows x cols buffer of degree-`ext` elements, registered with
// the context.
// `spread` as in Backend::alloc_storage.
Buffer *new_buffer(Context *c, const FieldDesc &f, uint32_t ext, uint64_t rows, uint64_t cols, bool spread = true);
// A buffer over memory the caller owns (values checked); `release`, if
// set, runs when the buffer goes (and not if this throws).
Buffer *wrap_buffer(Context *c, const FieldDesc &f, uint32_t ext, uint64_t rows, uint64_t cols, void *data,
                    std::function<void()> release);
// A new buffer holding host data of the given layout (values checked).
Buffer *buffer_from_host(Context *c, const FieldDesc &f, uint32_t ext, uint64_t rows, uint64_t cols,
                         gp_layout layout, const void *data, const char *arg);
// Release a live buffer or tree of its context; anything else is ignored.
void release_buffer(Buffer *b);
void release_tree(MerkleTree *t);
// Working buffers of one call, released with it unless kept.
struct TempBuffers {
    std::vector<Buffer *> bufs;
    ~TempBuffers() {
        for (Buffer *b : bufs) release_buffer(b);
    }
    Buffer *make(Context *c, const FieldDesc &f, uint32_t ext, uint64_t rows, uint64_t cols) {
        bufs.reserve(bufs.size() + 1);
        bufs.push_back(new_buffer(c, f, ext, rows, cols));
        return bufs.back();
    }
    Buffer *adopt(Buffer *b) {  // one made elsewhere
        bufs.reserve(bufs.size() + 1);
        bufs.push_back(b);
        return b;
    }
    Buffer *keep(Buffer *b) {
        bufs.erase(std::find(bufs.begin(), bufs.end(), b));
        return b;
    }
};
// Registers a new tree with its context.
void adopt_tree(MerkleTree *t);
// Releases every FRI commitment, buffer and tree the context still holds;
// returns how many.
size_t release_all(Context &c);

// Field elements (elem_size bytes each) to and from 64-bit words.
void words_out(const FieldDesc &f, const std::vector<uint64_t> &w, void *out);
std::vector<uint64_t> words_in(const FieldDesc &f, const void *in, uint64_t count);

// Validates host data[begin, end): every value < p. Throws
// GP_ERR_NON_CANONICAL naming the first offending index.
GP_PLUGIN_EXPORT void check_canonical(const FieldDesc &f, const void *data, uint64_t begin, uint64_t end,
                                      const char *arg);

// Index of base element (row r, base column j = c * ext + comp) in a host
// array of the given layout.
inline uint64_t host_index(gp_layout layout, uint64_t rows, uint64_t cols, uint32_t ext,
                           uint64_t r, uint64_t j) {
    if (layout == GP_LAYOUT_ROW_MAJOR) return r * cols * ext + j;
    uint64_t c = j / ext, comp = j % ext;
    return (c * rows + r) * ext + comp;
}

}  // namespace gp
