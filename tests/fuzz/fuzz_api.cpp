// SPDX-License-Identifier: MIT OR Apache-2.0
// libFuzzer target over the C API (CPU backend).
//
// The input is a small program: a sequence of operations, each an opcode
// byte followed by the bytes that operation reads (tests/fuzz/README.md and
// make_corpus.py describe the encoding). Every operation calls one or a few
// entry points of gpuprover.h on one context, created at the first input and
// reused, with fuzzer-chosen arguments: valid ones, and sometimes
// out-of-range enums, zero or huge sizes, NULL pointers and non-canonical
// values. Handles are tracked here, so a handle is only ever passed while it
// is live, and every handle of an input is destroyed at its end.
//
// The oracles (a violation prints what failed and aborts, which libFuzzer
// reports as a crash):
//  - every status is one of gp_status's values (up to GP_ERR_VERIFY_FAILED,
//    and later ones gp_status_name knows), and gp_last_error() is ""
//    exactly when the call returned GP_OK;
//  - calls this file can tell are valid return GP_OK, calls with an invalid
//    enum, size or pointer do not, and non-canonical input gives
//    GP_ERR_NON_CANONICAL;
//  - a failed call returns no handle;
//  - buffers read back what was written (both layouts), are zero when
//    created, and no call writes past the size of its output;
//  - an NTT forward then inverse with the same shift is the identity, and a
//    small NTT equals the naive transform;
//  - an LDE with blowup 1 onto the input's own coset is the identity, and
//    gp_lde_batch_host equals gp_lde_batch of the same data;
//  - a fresh Merkle opening verifies, and one with a changed row element, a
//    flipped path bit or another index (whose row differs) does not;
//  - a fresh FRI opening verifies, and one with a changed group element, a
//    flipped path bit or a changed remainder element does not; a challenge
//    callback's status outside gp_status is GP_ERR_INVALID_ARGUMENT;
//  - gp_commit_host succeeds exactly when gp_lde_batch_host + gp_merkle_commit
//    does, with the same root, opening and LDE; a tree whose LDE buffer was
//    destroyed refuses rows and still opens paths;
//  - gp_host_alloc memory is aligned and only its own pointer frees it;
//    gp_context_device_info agrees with the device name and memory stats;
//  - DEEP composition with zero coefficients is zero;
//  - wrapped memory is the buffer's address; gp_buffer_data and DLPack
//    exports show the values in the documented layout; an imported tensor's
//    deleter runs once, when its buffer is destroyed, never on a failure;
//  - cancelling an idle context leaves the next call alone; a call on the
//    context from its own progress callback is refused; progress and log
//    callbacks run on the calling thread, progress stays within its total,
//    log lines name the call and its status; counters grow with calls and
//    failures and reset to zero; per-entry statistics are sorted and stay
//    within the capacity given;
//  - after every handle of the input is destroyed, gp_context_memory_stats
//    reports buffer_bytes == 0, and after gp_context_trim cache_bytes == 0;
//  - the context keeps working: a fixed LDE at the end of every input gives
//    the result it gave on the first input.
//
// GP_FUZZ_THREADS (environment) sets the context's cpu_threads (default 1);
// GP_FUZZ_TRACE=1 prints every call and its status to stderr.
#include <algorithm>
#include <cstdarg>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <string>
#include <thread>
#include <vector>

#include <dlpack/dlpack.h>

#include "gpuprover.h"

// Patterns that trip known library bugs, avoidable while those are being
// fixed. All default to 0: the committed harness exercises everything.
// (-DGP_FUZZ_AVOID_...=1 on the compiler command line turns one on.)
// Out-of-range gp_field values (an enum load of one is undefined behaviour).
#ifndef GP_FUZZ_AVOID_BAD_FIELD_ENUM
#define GP_FUZZ_AVOID_BAD_FIELD_ENUM 0
#endif
// gp_merkle_open with a count larger than the indices array and outputs too
// small for that count (the library must reject the count before reading).
#ifndef GP_FUZZ_AVOID_MERKLE_OPEN_OVERCOUNT
#define GP_FUZZ_AVOID_MERKLE_OPEN_OVERCOUNT 0
#endif

namespace {

/* ------------------------------------------------------------------------ */
/* Failing                                                                  */
/* ------------------------------------------------------------------------ */

bool g_trace = false;

[[noreturn]] __attribute__((format(printf, 1, 2))) void die(const char *fmt, ...) {
    std::fprintf(stderr, "\ngp_fuzz_api: ORACLE VIOLATED: ");
    va_list ap;
    va_start(ap, fmt);
    std::vfprintf(stderr, fmt, ap);
    va_end(ap);
    std::fprintf(stderr, "\n");
    std::fflush(stderr);
    std::abort();
}

#define EXPECT(cond, ...)                                  \
    do {                                                   \
        if (!(cond)) die("%s: %s", describe(__VA_ARGS__).c_str(), #cond); \
    } while (0)

std::string describe() { return "check"; }
__attribute__((format(printf, 1, 2))) std::string describe(const char *fmt, ...) {
    char buf[512];
    va_list ap;
    va_start(ap, fmt);
    std::vsnprintf(buf, sizeof buf, fmt, ap);
    va_end(ap);
    return buf;
}

// The status oracles; returns the status as an int (never loaded as a
// gp_status lvalue, so an out-of-range value is reported here, not by UBSan).
// A value of gp_status: the ones up to GP_ERR_VERIFY_FAILED, and those the
// header appends later, which gp_status_name knows.
bool is_status(int st) {
    if (st >= GP_OK && st <= GP_ERR_VERIFY_FAILED) return true;
    return st > GP_ERR_VERIFY_FAILED && st < 256 && std::strcmp(gp_status_name((gp_status)st), "GP_ERR_UNKNOWN") != 0;
}

int checked_status(int st, const char *call) {
    if (!is_status(st)) die("%s returned %d, which is not a gp_status", call, st);
    const char *err = gp_last_error();
    if (!err) die("%s: gp_last_error() returned NULL", call);
    if ((st == GP_OK) != (err[0] == '\0'))
        die("%s returned %s but gp_last_error() is \"%s\"", call, gp_status_name((gp_status)st), err);
    if (g_trace) std::fprintf(stderr, "  %s -> %s %s\n", call, gp_status_name((gp_status)st), err);
    return st;
}
#define CALL(name, expr) checked_status(static_cast<int>(expr), name)

const char *sname(int st) { return gp_status_name((gp_status)st); }

/* ------------------------------------------------------------------------ */
/* The input                                                                */
/* ------------------------------------------------------------------------ */

// Reads the input front to back; past its end every read gives 0.
struct Input {
    const uint8_t *p;
    size_t n, i = 0;
    uint8_t u8() { return i < n ? p[i++] : 0; }
    uint16_t u16() {
        uint16_t lo = u8();
        return (uint16_t)(lo | (uint16_t)u8() << 8);
    }
    uint32_t u32() {
        uint32_t lo = u16();
        return lo | (uint32_t)u16() << 16;
    }
    uint64_t u64() {
        uint64_t lo = u32();
        return lo | (uint64_t)u32() << 32;
    }
    bool done() const { return i >= n; }
};

struct Rng {
    uint64_t s;
    uint64_t next() {
        uint64_t z = (s += 0x9e3779b97f4a7c15ull);
        z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
        z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
        return z ^ (z >> 31);
    }
};

/* ------------------------------------------------------------------------ */
/* Fields                                                                   */
/* ------------------------------------------------------------------------ */

struct FieldInfo {
    int id;
    uint64_t p;
    uint32_t size;
    uint64_t gen;
    uint32_t two_adicity;
};
const FieldInfo kFields[3] = {
    {GP_FIELD_GOLDILOCKS, 0xFFFFFFFF00000001ull, 8, 7, 32},
    {GP_FIELD_BABYBEAR, 2013265921ull, 4, 31, 27},
    {GP_FIELD_KOALABEAR, 2130706433ull, 4, 3, 24},
};
const FieldInfo *finfo(int f) { return f >= 1 && f <= 3 ? &kFields[f - 1] : nullptr; }
uint32_t esize(int f) { return finfo(f) ? finfo(f)->size : 8; }
bool ext_ok(int f, uint32_t e) {
    if (!finfo(f)) return false;
    return e == 1 || (f == GP_FIELD_GOLDILOCKS ? (e == 2 || e == 3) : e == 4);
}

uint64_t mulmod(uint64_t a, uint64_t b, uint64_t p) { return (uint64_t)((unsigned __int128)a * b % p); }
uint64_t addmod(uint64_t a, uint64_t b, uint64_t p) { return (uint64_t)(((unsigned __int128)a + b) % p); }
uint64_t powmod(uint64_t a, uint64_t e, uint64_t p) {
    uint64_t r = 1 % p;
    for (a %= p; e; e >>= 1, a = mulmod(a, a, p))
        if (e & 1) r = mulmod(r, a, p);
    return r;
}
uint64_t invmod(uint64_t a, uint64_t p) { return powmod(a, p - 2, p); }

bool is_pow2(uint64_t x) { return x && !(x & (x - 1)); }
uint32_t log2u(uint64_t x) { return (uint32_t)__builtin_ctzll(x); }
uint32_t log2_ceil(uint64_t x) { return x <= 1 ? 0 : 64 - (uint32_t)__builtin_clzll(x - 1); }
// Digests of layer k of a tree over `leaves` leaves (Plonky3's MMCS for any
// height), and as stored (an odd layer above one digest padded by one).
uint64_t layer_rows(uint64_t leaves, uint32_t k) { return ((leaves - 1) >> k) + 1; }
uint64_t padded_rows(uint64_t r) { return r <= 1 ? r : r + (r & 1); }
uint64_t bitrev(uint64_t x, uint32_t bits) {
    uint64_t r = 0;
    for (uint32_t i = 0; i < bits; ++i, x >>= 1) r = r << 1 | (x & 1);
    return r;
}

uint64_t get_el(const uint8_t *p, uint32_t esz, uint64_t i) {
    if (esz == 8) {
        uint64_t v;
        std::memcpy(&v, p + 8 * i, 8);
        return v;
    }
    uint32_t v;
    std::memcpy(&v, p + 4 * i, 4);
    return v;
}
void set_el(uint8_t *p, uint32_t esz, uint64_t i, uint64_t v) {
    if (esz == 8) std::memcpy(p + 8 * i, &v, 8);
    else {
        uint32_t w = (uint32_t)v;
        std::memcpy(p + 4 * i, &w, 4);
    }
}

using Bytes = std::vector<uint8_t>;

// `count` elements of field f (8-byte words for an unknown field): one mode
// byte and a 4-byte seed, and for mode 6 the index and value of one
// non-canonical element. `canonical` tells whether every element is < p.
Bytes gen_elems(Input &in, int f, uint64_t count, bool *canonical = nullptr) {
    const uint8_t mode = in.u8() % 8;
    Rng rng{in.u32()};
    const FieldInfo *fi = finfo(f);
    const uint32_t esz = esize(f);
    const uint64_t p = fi ? fi->p : ~0ull;
    Bytes b(count * esz);
    for (uint64_t i = 0; i < count; ++i) {
        uint64_t v = 0;
        switch (mode) {
            case 0: v = 0; break;
            case 4: v = rng.next() % 16; break;
            case 5: v = p - 1; break;
            case 7: v = esz == 8 ? rng.next() : (uint32_t)rng.next(); break;  // raw bits
            default: v = (esz == 8 ? rng.next() : (uint32_t)rng.next()) % p; break;
        }
        set_el(b.data(), esz, i, v);
    }
    if (mode == 6) {
        const uint16_t at = in.u16();
        const uint8_t k = in.u8();
        if (count) set_el(b.data(), esz, at % count, esz == 8 ? (k & 1 ? ~0ull : p + k % 4) : p + k % 4);
    }
    if (canonical) {
        *canonical = true;
        if (fi)
            for (uint64_t i = 0; i < count; ++i)
                if (get_el(b.data(), esz, i) >= p) *canonical = false;
    }
    return b;
}

bool all_canonical(const Bytes &b, int f) {
    const FieldInfo *fi = finfo(f);
    if (!fi) return true;
    for (uint64_t i = 0; i < b.size() / fi->size; ++i)
        if (get_el(b.data(), fi->size, i) >= fi->p) return false;
    return true;
}

// Canonical random elements (for challenges and coefficients).
Bytes random_elems(Rng &rng, int f, uint64_t count) {
    const FieldInfo *fi = finfo(f);
    Bytes b(count * esize(f));
    for (uint64_t i = 0; i < count; ++i) set_el(b.data(), esize(f), i, fi ? rng.next() % fi->p : 0);
    return b;
}

/* ------------------------------------------------------------------------ */
/* Argument selectors                                                       */
/* ------------------------------------------------------------------------ */
// Each reads one byte (some a few more) and clears *valid when it picks a
// value the API must reject.

int sel_field(Input &in, bool *valid) {
    const uint8_t b = in.u8();
    if (b < 0xF0 || GP_FUZZ_AVOID_BAD_FIELD_ENUM) return 1 + b % 3;
    static const int bad[] = {0, 4, -1, 0x7fffffff, (int)0x80000000, 5, 100, 255};
    *valid = false;
    return bad[b % 8];
}

uint32_t sel_ext(Input &in, int field, bool *valid) {
    const uint8_t b = in.u8();
    if (b < 0xF0) {
        if (field == GP_FIELD_GOLDILOCKS) return 1 + b % 3;
        return b % 2 ? 4 : 1;
    }
    static const uint32_t bad[] = {0, 5, 8, 0xffffffffu, 2, 3, 4, 16};
    uint32_t e = bad[b % 8];
    if (!ext_ok(field, e)) *valid = false;
    return e;
}

// Rows of a new buffer: a power of two up to 2^8, sometimes another small
// count, sometimes 0 or one no host can hold (never a size this machine
// might allocate: the harness only passes host arrays it holds).
uint64_t sel_rows(Input &in, bool *valid, bool *huge) {
    const uint8_t b = in.u8();
    if (b < 0xE0) return 1ull << (b % 9);
    if (b < 0xF0) return 3 + b % 13;  // 3..15, mostly not powers of two
    static const uint64_t bad[] = {0, 1ull << 46, 1ull << 62, ~0ull, (1ull << 50) + 1, 1ull << 63, 0, ~0ull >> 1};
    *valid = false;
    *huge = bad[b % 8] != 0;
    return bad[b % 8];
}
uint64_t sel_cols(Input &in, bool *valid, bool *huge) {
    const uint8_t b = in.u8();
    if (b < 0xF0) return 1 + b % 8;
    // (0 columns is a valid matrix of width 0 for some calls and not for
    // others: test_empty_input.cpp covers it, the model here does not.)
    static const uint64_t bad[] = {1ull << 44, 1ull << 46, 1ull << 62, ~0ull};
    *valid = false;
    *huge = true;
    return bad[b % 4];
}

int sel_layout(Input &in, bool *valid) {
    const uint8_t b = in.u8();
    if (b < 0xF0) return b % 2;
    static const int bad[] = {2, -1, 0x7fffffff, 3};
    *valid = false;
    return bad[b % 4];
}
int sel_order(Input &in, bool *valid) { return sel_layout(in, valid); }  // same values

// A coset shift: 0 (the default), 1, the generator, a random element, p-1,
// or (invalid) p, 2^64-1 or a random 64-bit value.
uint64_t sel_shift(Input &in, int field, bool *valid) {
    const uint8_t b = in.u8();
    const FieldInfo *fi = finfo(field);
    const uint64_t p = fi ? fi->p : ~0ull;
    switch (b % 8) {
        case 0: return 0;
        case 1: return 1;
        case 2: return fi ? fi->gen : 7;
        case 3: {
            uint64_t v = in.u64() % p;
            return v ? v : 1;
        }
        case 4: return p - 1;
        case 5: *valid = false; return p;
        case 6: *valid = false; return ~0ull;
        default: {
            uint64_t v = in.u64();
            if (v >= p) *valid = false;
            return v;
        }
    }
}

// struct_size of an options struct: NULL options, 0 or 5000 (invalid),
// sizeof(uint32_t) (defaults only), the struct minus 4 bytes (an older
// caller), larger (a newer caller), or exact.
enum OptMode { OPT_NULL, OPT_EXACT, OPT_SIZE };
struct OptSel {
    OptMode mode;
    uint32_t size;
};
OptSel sel_opts(Input &in, uint32_t full, bool *valid) {
    const uint8_t b = in.u8();
    switch (b % 16) {
        case 0: return {OPT_NULL, 0};
        case 1: *valid = false; return {OPT_SIZE, 0};
        case 2: *valid = false; return {OPT_SIZE, 5000};
        case 3: return {OPT_SIZE, 4};
        case 4: return {OPT_SIZE, full - 4};
        case 5: return {OPT_SIZE, full + 64};
        case 6: return {OPT_SIZE, (full / 2) & ~3u};
        default: return {OPT_EXACT, full};
    }
}
// Applies the selected struct_size; returns the pointer to pass. A struct
// whose struct_size claims more than sizeof(T) is copied into a larger,
// zero-padded block so the library may read that far.
template <class T>
const T *opts_ptr(const OptSel &s, T &o, std::vector<uint8_t> &big) {
    if (s.mode == OPT_NULL) return nullptr;
    o.struct_size = s.size;
    if (s.size <= sizeof(T)) return &o;
    big.assign(s.size, 0);
    std::memcpy(big.data(), &o, sizeof(T));
    return reinterpret_cast<const T *>(big.data());
}
// What the library reads: the defaults, overwritten by the caller's first
// struct_size bytes.
template <class T>
T effective(const OptSel &s, const T &o, void (*init)(T *)) {
    T e;
    init(&e);
    if (s.mode == OPT_NULL) return e;
    size_t n = s.size < sizeof(T) ? s.size : sizeof(T);
    std::memcpy(&e, &o, n);
    return e;
}

template <class T, class V>
void set_enum(T &field, V v) {
    static_assert(sizeof(T) == sizeof(int), "C enum");
    int x = (int)v;
    std::memcpy(&field, &x, sizeof x);
}
template <class T>
int get_enum(const T &field) {
    int x;
    std::memcpy(&x, &field, sizeof x);
    return x;
}

/* ------------------------------------------------------------------------ */
/* Handles                                                                  */
/* ------------------------------------------------------------------------ */

constexpr int kMaxBufs = 8, kMaxTrees = 4, kMaxFris = 3;
// Work bound per input (elements touched, roughly), so one input stays fast.
constexpr uint64_t kWorkBudget = 1u << 18;
constexpr int kMaxOps = 64;

struct Buf {
    bool live = false;
    gp_buffer *h = nullptr;
    int field = 0;
    uint32_t ext = 0;
    uint64_t rows = 0, cols = 0;
    int pins = 0;           // live trees committing it
    uint32_t version = 0;   // bumped by every call that may write it
    bool known = false;     // shadow holds the contents
    Bytes shadow;           // row-major base elements
    void *wrapped = nullptr;             // harness memory of gp_buffer_wrap, freed after the destroy
    struct DlImport *dl = nullptr;       // the tensor of gp_buffer_from_dlpack
    uint64_t elems() const { return rows * cols * ext; }
    uint64_t bytes() const { return elems() * esize(field); }
};

struct Tree {
    bool live = false;
    gp_merkle_tree *h = nullptr;
    OptSel os{OPT_NULL, 0};
    gp_merkle_options opt{};
    int field = 0;
    std::vector<int> mats;           // slots, in commit order
    std::vector<uint32_t> versions;  // their versions at commit
};

struct Fri {
    bool live = false;
    gp_fri *h = nullptr;
    OptSel os{OPT_NULL, 0};
    gp_fri_options opt{};
    int field = 0;
    uint32_t ext = 1;
    uint64_t n = 0;
    uint32_t layers = 0, folded = 0;
    bool caps_ok = true;  // every layer's cap was captured
    Bytes caps, betas;
};

struct State {
    gp_context *ctx = nullptr;
    gp_context *foreign = nullptr;  // for context-mismatch probes
    Buf bufs[kMaxBufs];
    Tree trees[kMaxTrees];
    Fri fris[kMaxFris];
    uint64_t work = 0;
    Bytes canary_out;  // the fixed LDE's result on the first input
};
State S;

void trace(const char *op) {
    if (g_trace) std::fprintf(stderr, "op %s\n", op);
}

int free_buf_slot() {
    for (int i = 0; i < kMaxBufs; ++i)
        if (!S.bufs[i].live) return i;
    return -1;
}

// Picks a live buffer (or, for 0xFF or when none is live, none: -1).
int pick_buf(Input &in) {
    const uint8_t b = in.u8();
    int live[kMaxBufs], n = 0;
    for (int i = 0; i < kMaxBufs; ++i)
        if (S.bufs[i].live) live[n++] = i;
    if (b == 0xFF || n == 0) return -1;
    return live[b % n];
}
gp_buffer *hbuf(int slot) { return slot < 0 ? nullptr : S.bufs[slot].h; }

int pick_tree(Input &in) {
    const uint8_t b = in.u8();
    int live[kMaxTrees], n = 0;
    for (int i = 0; i < kMaxTrees; ++i)
        if (S.trees[i].live) live[n++] = i;
    if (b == 0xFF || n == 0) return -1;
    return live[b % n];
}
int pick_fri(Input &in) {
    const uint8_t b = in.u8();
    int live[kMaxFris], n = 0;
    for (int i = 0; i < kMaxFris; ++i)
        if (S.fris[i].live) live[n++] = i;
    if (b == 0xFF || n == 0) return -1;
    return live[b % n];
}

// Base index of (row r, base column j) in a host array of `layout`.
uint64_t host_index(int layout, uint64_t rows, uint64_t cols, uint32_t ext, uint64_t r, uint64_t j) {
    if (layout == GP_LAYOUT_ROW_MAJOR) return r * cols * ext + j;
    return ((j / ext) * rows + r) * ext + j % ext;
}
// Host data of `layout` to row-major and back.
Bytes to_row_major(const Bytes &d, int layout, uint64_t rows, uint64_t cols, uint32_t ext, uint32_t esz) {
    if (layout == GP_LAYOUT_ROW_MAJOR) return d;
    Bytes out(d.size());
    for (uint64_t r = 0; r < rows; ++r)
        for (uint64_t j = 0; j < cols * ext; ++j)
            std::memcpy(&out[(r * cols * ext + j) * esz], &d[host_index(layout, rows, cols, ext, r, j) * esz], esz);
    return out;
}
Bytes from_row_major(const Bytes &d, int layout, uint64_t rows, uint64_t cols, uint32_t ext, uint32_t esz) {
    if (layout == GP_LAYOUT_ROW_MAJOR) return d;
    Bytes out(d.size());
    for (uint64_t r = 0; r < rows; ++r)
        for (uint64_t j = 0; j < cols * ext; ++j)
            std::memcpy(&out[host_index(layout, rows, cols, ext, r, j) * esz], &d[(r * cols * ext + j) * esz], esz);
    return out;
}

// Registers a new buffer handle (or destroys it when every slot is taken).
// Checks the shape queries against what was asked for.
int adopt_buf(gp_buffer *h, int field, uint32_t ext, uint64_t rows, uint64_t cols) {
    EXPECT(h != nullptr, "a call returned GP_OK without a buffer");
    EXPECT(gp_buffer_rows(h) == rows && gp_buffer_cols(h) == cols && gp_buffer_ext_degree(h) == ext,
           "shape of a new buffer: %llu x %llu ^%u, asked %llu x %llu ^%u", (unsigned long long)gp_buffer_rows(h),
           (unsigned long long)gp_buffer_cols(h), gp_buffer_ext_degree(h), (unsigned long long)rows,
           (unsigned long long)cols, ext);
    EXPECT((int)gp_buffer_field(h) == field, "field of a new buffer");
    EXPECT(gp_buffer_size_bytes(h) == rows * cols * ext * esize(field), "size of a new buffer");
    const int slot = free_buf_slot();
    if (slot < 0) {
        gp_buffer_destroy(h);
        return -1;
    }
    Buf &b = S.bufs[slot];
    b = Buf{};
    b.live = true;
    b.h = h;
    b.field = field;
    b.ext = ext;
    b.rows = rows;
    b.cols = cols;
    return slot;
}

// A DLPack tensor over harness memory; the deleter only counts its calls.
struct DlImport {
    DLManagedTensor t;
    int64_t shape[3], strides[3];
    void *mem = nullptr;
    int deleted = 0;
};
void dl_deleter(DLManagedTensor *t) { static_cast<DlImport *>(t->manager_ctx)->deleted++; }
void dl_free(DlImport *d) {
    std::free(d->mem);
    delete d;
}

void destroy_buf(int slot) {
    Buf &b = S.bufs[slot];
    if (!b.live || b.pins) return;
    if (b.dl) EXPECT(b.dl->deleted == 0, "the deleter of an imported tensor ran while its buffer was alive");
    gp_buffer_destroy(b.h);
    std::free(b.wrapped);
    if (b.dl) {
        EXPECT(b.dl->deleted == 1, "destroying a buffer imported from DLPack called the deleter %d times",
               b.dl->deleted);
        dl_free(b.dl);
    }
    b = Buf{};
}

void touch(int slot) {
    if (slot < 0) return;
    S.bufs[slot].version++;
    S.bufs[slot].known = false;
}

// Reads a live buffer back (row-major) and checks the shadow when known.
Bytes read_buf(int slot) {
    Buf &b = S.bufs[slot];
    Bytes d(b.bytes());
    const int st = CALL("gp_buffer_to_host", gp_buffer_to_host(b.h, GP_LAYOUT_ROW_MAJOR, d.data(), d.size()));
    EXPECT(st == GP_OK, "reading a live buffer back: %s", sname(st));
    if (b.known) EXPECT(d == b.shadow, "buffer %d reads back other values than were written", slot);
    return d;
}

void destroy_tree(int t) {
    Tree &tr = S.trees[t];
    if (!tr.live) return;
    gp_merkle_tree_destroy(tr.h);
    for (int m : tr.mats) S.bufs[m].pins--;
    tr = Tree{};
}

void destroy_fri(int f) {
    if (!S.fris[f].live) return;
    gp_fri_destroy(S.fris[f].h);
    S.fris[f] = Fri{};
}

bool spend(uint64_t w) {
    if (S.work + w > kWorkBudget) return false;
    S.work += w;
    return true;
}

/* ------------------------------------------------------------------------ */
/* Merkle options and the opening oracle                                    */
/* ------------------------------------------------------------------------ */

// A Merkle profile, mostly one that fits matrices over `field`.
void sel_merkle(Input &in, int field, gp_merkle_options &o, bool *valid) {
    gp_merkle_options_init(&o);
    const uint8_t kb = in.u8();
    int kind;
    if (kb < 0xF0) kind = 1 + kb % 11;
    else {
        static const int bad[] = {0, 12, -1, 1000};
        kind = bad[kb % 4];
        *valid = false;
    }
    const uint8_t pb = in.u8();
    int perm;
    if (pb < 0xC0) {
        switch (kind) {
            case GP_MERKLE_FIELD_SPONGE:
                if (field == GP_FIELD_BABYBEAR) perm = pb % 3 == 2 ? 24 : pb % 3 ? 6 : 5;
                else if (field == GP_FIELD_KOALABEAR) perm = pb % 3 == 2 ? 23 : pb % 3 ? 8 : 7;
                else {
                    static const int gl[] = {1, 2, 3, 4, 9, 10, 11, 12};
                    perm = gl[pb % 8];
                }
                break;
            case GP_MERKLE_MIDEN:
            case GP_MERKLE_MIDEN_V0_11:
            case GP_MERKLE_MIDEN_V0_10:
            case GP_MERKLE_MIDEN_LMCS: perm = pb % 2 ? 10 : 9; break;
            case GP_MERKLE_TRITON:
            case GP_MERKLE_TRITON_DIGEST: perm = 12; break;
            case GP_MERKLE_WINTERFELL: perm = 19 + pb % 4; break;  // BLAKE3, SHA3-256, BLAKE3-192, Rp64_256
            default: perm = 13; break;
        }
    } else {
        perm = pb < 0xF0 ? pb % 27 : -(int)(pb % 3);  // anything, also 0, the hashes 19-21, 25, 26 and negatives
        *valid = false;                               // (maybe valid, not known here)
    }
    set_enum(o.kind, kind);
    set_enum(o.perm, perm);
    const uint8_t db = in.u8();
    if (db >= 0xC0) {
        o.digest = in.u8() % 17;
        o.rate = in.u8() % 26;
        *valid = false;
    }
    const uint8_t cb = in.u8();
    if (cb < 0xF0) o.cap_height = cb % 4;
    else {
        static const uint32_t bad[] = {9, 31, 64, 0xffffffffu};
        o.cap_height = bad[cb % 4];
        *valid = false;
    }
}

// Opens a few leaves of tree t, verifies them, and checks that tampered
// openings fail. Reads: count, per index 2 bytes, mode, tamper choices.
void merkle_check(int t, Input &in) {
    Tree &tr = S.trees[t];
    gp_merkle_tree *h = tr.h;
    bool fresh = true;  // the committed matrices are unchanged since the commit
    for (size_t i = 0; i < tr.mats.size(); ++i)
        if (S.bufs[tr.mats[i]].version != tr.versions[i]) fresh = false;

    const uint64_t dsz = gp_merkle_digest_size(h), csz = gp_merkle_cap_size(h);
    const gp_merkle_options eff = effective(tr.os, tr.opt, gp_merkle_options_init);
    uint64_t row_bytes = 0, path_bytes = 0;
    int st = CALL("gp_merkle_opening_size", gp_merkle_opening_size(h, &row_bytes, &path_bytes));
    EXPECT(st == GP_OK);
    uint64_t H = 0, rb = 0;
    std::vector<gp_matrix_dims> dims;
    for (int m : tr.mats) {
        const Buf &b = S.bufs[m];
        if (b.rows > H) H = b.rows;
        rb += b.cols * b.ext * esize(b.field);
        dims.push_back({b.rows, (uint32_t)b.cols, b.ext});
    }
    const uint32_t log_h = log2_ceil(H);
    // The cap: the layer 2^cap_height below the root, as stored.
    EXPECT(dsz > 0 && csz == dsz * padded_rows(layer_rows(H, log_h - eff.cap_height)),
           "digest size %llu, cap size %llu, cap height %u over %llu leaves", (unsigned long long)dsz,
           (unsigned long long)csz, eff.cap_height, (unsigned long long)H);
    EXPECT(row_bytes == rb && path_bytes == (log_h - eff.cap_height) * dsz, "opening sizes %llu, %llu",
           (unsigned long long)row_bytes, (unsigned long long)path_bytes);
    Bytes cap(csz), root(dsz);
    st = CALL("gp_merkle_cap", gp_merkle_cap(h, cap.data(), cap.size()));
    EXPECT(st == GP_OK);
    st = CALL("gp_merkle_root", gp_merkle_root(h, root.data(), root.size()));
    EXPECT(st == GP_OK);
    if (eff.cap_height == 0) EXPECT(cap == root, "with cap_height 0 the cap is the root");

    const uint64_t count = 1 + in.u8() % 4;
    std::vector<uint64_t> idx(count);
    bool in_range = true;
    for (auto &x : idx) {
        const uint16_t v = in.u16();
        x = v < 0xFF00 ? v % H : (v & 1 ? H + (v & 0xF) : ~0ull);
        if (x >= H) in_range = false;
    }
    const uint8_t mode = in.u8();
    Bytes rows(count * row_bytes), paths(count * path_bytes);
    uint64_t pass_count = count;
    void *rp = rows.data(), *pp = paths.data();
    uint64_t rs = rows.size(), ps = paths.size();
    bool expect_fail = !in_range;
    switch (mode % 8) {
        case 1: rp = nullptr, rs = 0; break;
        case 2: pp = nullptr, ps = 0; break;
        case 3:
            if (rs) rs -= 1, expect_fail = true;
            break;
        case 4:
            if (ps) ps -= 1, expect_fail = true;
            break;
        case 5: {
            // A count past the indices array, with output sizes that cannot
            // hold that many openings: the call must fail on the sizes
            // without reading indices it was not given.
            if ((rs || ps) && !GP_FUZZ_AVOID_MERKLE_OPEN_OVERCOUNT) {
                pass_count = count + 1 + (mode >> 4) * 1000;
                expect_fail = true;
            }
            break;
        }
        default: break;
    }
    st = CALL("gp_merkle_open", gp_merkle_open(h, idx.data(), pass_count, rp, rs, pp, ps));
    if (expect_fail) {
        EXPECT(st != GP_OK, "gp_merkle_open with a bad index or short output succeeded");
        return;
    }
    EXPECT(st == GP_OK, "gp_merkle_open of valid indices: %s", sname(st));
    if (!rp || !pp || !fresh) return;

    const int f = tr.field;
    const uint32_t esz = esize(f);
    const FieldInfo *fi = finfo(f);
    auto verify = [&](uint64_t index, const uint8_t *r, const uint8_t *p) {
        return CALL("gp_merkle_verify",
                    gp_merkle_verify(tr.os.mode == OPT_NULL ? nullptr : &tr.opt, (gp_field)f, dims.data(),
                                     (uint32_t)dims.size(), cap.data(), cap.size(), index, r, row_bytes,
                                     path_bytes ? p : nullptr, path_bytes));
    };
    for (uint64_t q = 0; q < count; ++q) {
        st = verify(idx[q], &rows[q * row_bytes], &paths[q * path_bytes]);
        EXPECT(st == GP_OK, "a fresh Merkle opening of index %llu does not verify: %s",
               (unsigned long long)idx[q], sname(st));
    }
    // Tampered openings of the first index.
    const uint8_t which = in.u8();
    Bytes r0(rows.begin(), rows.begin() + row_bytes), p0(paths.begin(), paths.begin() + path_bytes);
    {
        Bytes r = r0;
        const uint64_t e = which % (row_bytes / esz);
        set_el(r.data(), esz, e, addmod(get_el(r.data(), esz, e), 1, fi->p));
        st = verify(idx[0], r.data(), p0.data());
        EXPECT(st == GP_ERR_VERIFY_FAILED, "an opening with row element %llu changed gives %s",
               (unsigned long long)e, sname(st));
    }
    if (path_bytes) {
        Bytes p = p0;
        const uint64_t bit = (uint64_t)in.u16() % (path_bytes * 8);
        p[bit / 8] ^= (uint8_t)(1u << (bit % 8));
        st = verify(idx[0], r0.data(), p.data());
        EXPECT(st == GP_ERR_VERIFY_FAILED, "an opening with path bit %llu flipped gives %s",
               (unsigned long long)bit, sname(st));
    }
    if (log_h > 0 && (idx[0] ^ (1ull << (which % log_h))) < H) {
        const uint64_t j = idx[0] ^ (1ull << (which % log_h));
        Bytes rj(row_bytes);
        st = CALL("gp_merkle_open", gp_merkle_open(h, &j, 1, rj.data(), rj.size(), nullptr, 0));
        EXPECT(st == GP_OK);
        if (rj != r0) {
            st = verify(j, r0.data(), p0.data());
            EXPECT(st == GP_ERR_VERIFY_FAILED, "the opening of index %llu verifies at index %llu: %s",
                   (unsigned long long)idx[0], (unsigned long long)j, sname(st));
        }
    }
    {
        const uint64_t past = H + (which & 3);
        st = verify(past, r0.data(), p0.data());
        EXPECT(st != GP_OK, "gp_merkle_verify accepted index %llu past %llu leaves", (unsigned long long)past,
               (unsigned long long)H);
    }
}

// Records a committed tree over buffer slots `mats`; destroys it when every
// tree slot is taken. Returns the slot or -1.
int adopt_tree(gp_merkle_tree *h, const OptSel &os, const gp_merkle_options &o, int field,
               const std::vector<int> &mats) {
    EXPECT(h != nullptr, "gp_merkle_commit returned GP_OK without a tree");
    for (int t = 0; t < kMaxTrees; ++t) {
        Tree &tr = S.trees[t];
        if (tr.live) continue;
        tr.live = true;
        tr.h = h;
        tr.os = os;
        tr.opt = o;
        tr.field = field;
        tr.mats = mats;
        for (int m : mats) {
            S.bufs[m].pins++;
            tr.versions.push_back(S.bufs[m].version);
        }
        return t;
    }
    gp_merkle_tree_destroy(h);
    return -1;
}

/* ------------------------------------------------------------------------ */
/* FRI options and the opening oracle                                       */
/* ------------------------------------------------------------------------ */

void sel_fri(Input &in, int field, uint64_t n, gp_fri_options &o, bool *valid) {
    gp_fri_options_init(&o);
    const uint8_t ab = in.u8();
    if (ab < 0xF0) o.arity = 2u << (ab % 3);
    else {
        static const uint32_t bad[] = {0, 1, 3, 16, 0xffffffffu, 6, 32, 5};
        o.arity = bad[ab % 8];
        *valid = false;
    }
    const uint8_t fb = in.u8();
    const uint32_t log_n = is_pow2(n) ? log2u(n) : 0;
    if (fb < 0xF0) o.final_size = 1ull << (fb % (log_n ? log_n : 1));
    else {
        static const uint64_t bad[] = {0, 3, 1ull << 40, ~0ull};
        o.final_size = bad[fb % 4];
        *valid = false;
    }
    int order = sel_order(in, valid);
    set_enum(o.order, order);
    const uint8_t sb = in.u8();
    if (sb % 4 != 0) {
        const uint64_t s = sel_shift(in, field, valid);
        o.shift = s;
        if (s == 0) *valid = false;
    }
    const uint8_t kb = in.u8();
    int fold = kb < 0xF0 ? kb % 2 : (kb % 2 ? 2 : -1);
    if (kb >= 0xF0) *valid = false;
    set_enum(o.fold, fold);
    sel_merkle(in, field, o.merkle, valid);
    const uint32_t log_final = is_pow2(o.final_size) ? log2u(o.final_size) : 0;
    if (o.merkle.cap_height <= 3 && o.merkle.cap_height > log_final) o.merkle.cap_height = log_final;
}

// Opens a finished FRI commitment at a few positions, verifies, and checks
// that tampered openings fail.
void fri_check(int fslot, Input &in) {
    Fri &fr = S.fris[fslot];
    const uint8_t count = 1 + in.u8() % 3;
    std::vector<uint64_t> idx(count);
    for (auto &x : idx) x = in.u16();
    const uint8_t mode = in.u8();
    if (fr.folded != fr.layers) {
        uint8_t out[64];
        uint64_t q = 0;
        const int st = CALL("gp_fri_open", gp_fri_open(fr.h, &q, 1, out, sizeof out));
        EXPECT(st != GP_OK, "gp_fri_open before the last fold succeeded");
        return;
    }
    const int f = fr.field;
    const FieldInfo *fi = finfo(f);
    const uint32_t esz = fi->size;
    const uint64_t eb = (uint64_t)fr.ext * esz;
    const gp_fri_options eff = effective(fr.os, fr.opt, gp_fri_options_init);
    const uint32_t log_a = log2u(eff.arity), log_n = log2u(fr.n), log_final = log2u(eff.final_size);
    const uint32_t cap_h = eff.merkle.cap_height;
    const bool bitrev = get_enum(eff.order) == GP_ORDER_BIT_REVERSED;

    const uint64_t rsz = gp_fri_remainder_size(fr.h);
    EXPECT(rsz == eb << log_final, "gp_fri_remainder_size %llu", (unsigned long long)rsz);
    Bytes rem(rsz);
    int st = CALL("gp_fri_remainder", gp_fri_remainder(fr.h, rem.data(), rem.size()));
    EXPECT(st == GP_OK, "gp_fri_remainder after the last fold: %s", sname(st));
    const uint64_t csz = gp_fri_cap_size(fr.h), dsz = csz >> cap_h;
    const uint64_t each = gp_fri_opening_size(fr.h);
    uint64_t want = 0;
    for (uint32_t k = 0; k < fr.layers; ++k) want += (eb << log_a) + (log_n - (k + 1) * log_a - cap_h) * dsz;
    EXPECT(each == want, "gp_fri_opening_size %llu, expected %llu", (unsigned long long)each,
           (unsigned long long)want);

    bool in_range = true;
    for (auto &x : idx) {
        if (mode == 0xFE) x = fr.n + x % 4;  // past the end
        else x %= fr.n;
        if (x >= fr.n) in_range = false;
    }
    Bytes out(count * each);
    uint64_t size = out.size();
    const bool short_out = mode == 0xFD && size > 0;
    if (short_out) size -= 1;
    st = CALL("gp_fri_open", gp_fri_open(fr.h, idx.data(), count, out.data(), size));
    if (!in_range || short_out) {
        EXPECT(st != GP_OK, "gp_fri_open of a bad index or into a short output succeeded");
        return;
    }
    EXPECT(st == GP_OK, "gp_fri_open of valid indices: %s", sname(st));
    if (!fr.caps_ok) return;
    const gp_fri_options *op = fr.os.mode == OPT_NULL ? nullptr : &fr.opt;
    std::vector<uint8_t> big;
    if (fr.os.mode == OPT_SIZE && fr.os.size > sizeof(gp_fri_options)) {
        big.assign(fr.os.size, 0);
        std::memcpy(big.data(), &fr.opt, sizeof fr.opt);
        op = reinterpret_cast<const gp_fri_options *>(big.data());
    }
    auto verify = [&](uint64_t index, const uint8_t *opening, const Bytes &remainder) {
        return CALL("gp_fri_verify", gp_fri_verify(op, (gp_field)f, fr.ext, fr.n, fr.caps.data(), fr.caps.size(),
                                                   fr.betas.data(), fr.betas.size(), remainder.data(),
                                                   remainder.size(), index, opening, each));
    };
    for (uint64_t q = 0; q < count; ++q) {
        st = verify(idx[q], &out[q * each], rem);
        EXPECT(st == GP_OK, "a fresh FRI opening of position %llu does not verify: %s", (unsigned long long)idx[q],
               sname(st));
    }
    const uint8_t which = in.u8();
    const uint64_t gbytes = eb << log_a;
    Bytes o0(out.begin(), out.begin() + each);
    {  // a group element of layer 0
        Bytes o = o0;
        const uint64_t e = which % (gbytes / esz);
        set_el(o.data(), esz, e, addmod(get_el(o.data(), esz, e), 1, fi->p));
        st = verify(idx[0], o.data(), rem);
        EXPECT(st == GP_ERR_VERIFY_FAILED, "a FRI opening with group element %llu changed gives %s",
               (unsigned long long)e, sname(st));
    }
    const uint64_t pb0 = (log_n - log_a - cap_h) * dsz;
    if (pb0) {  // a bit of layer 0's path
        Bytes o = o0;
        const uint64_t bit = (uint64_t)in.u16() % (pb0 * 8);
        o[gbytes + bit / 8] ^= (uint8_t)(1u << (bit % 8));
        st = verify(idx[0], o.data(), rem);
        EXPECT(st == GP_ERR_VERIFY_FAILED, "a FRI opening with path bit %llu flipped gives %s",
               (unsigned long long)bit, sname(st));
    }
    {  // the remainder element the last fold lands on
        const uint64_t pn = bitrev ? idx[0] >> (fr.layers * log_a) : idx[0] & ((1ull << log_final) - 1);
        Bytes r = rem;
        const uint64_t e = pn * fr.ext + which % fr.ext;
        set_el(r.data(), esz, e, addmod(get_el(r.data(), esz, e), 1, fi->p));
        st = verify(idx[0], o0.data(), r);
        EXPECT(st == GP_ERR_VERIFY_FAILED, "a FRI opening checked against a changed remainder gives %s",
               sname(st));
    }
    {
        st = verify(fr.n, o0.data(), rem);
        EXPECT(st != GP_OK, "gp_fri_verify accepted index n");
    }
}

int adopt_fri(gp_fri *h, const OptSel &os, const gp_fri_options &o, int field, uint32_t ext, uint64_t n) {
    EXPECT(h != nullptr, "a FRI call returned GP_OK without a commitment");
    const gp_fri_options eff = effective(os, o, gp_fri_options_init);
    const uint32_t layers = (log2u(n) - log2u(eff.final_size)) / log2u(eff.arity);
    EXPECT(gp_fri_layer_count(h) == layers, "gp_fri_layer_count %u, expected %u", gp_fri_layer_count(h), layers);
    const uint64_t dsz = gp_fri_cap_size(h) >> eff.merkle.cap_height;
    EXPECT(dsz > 0 && (dsz << eff.merkle.cap_height) == gp_fri_cap_size(h), "gp_fri_cap_size");
    for (int i = 0; i < kMaxFris; ++i) {
        Fri &fr = S.fris[i];
        if (fr.live) continue;
        fr = Fri{};
        fr.live = true;
        fr.h = h;
        fr.os = os;
        fr.opt = o;
        fr.field = field;
        fr.ext = ext;
        fr.n = n;
        fr.layers = layers;
        return i;
    }
    gp_fri_destroy(h);
    return -1;
}

/* ------------------------------------------------------------------------ */
/* Operations                                                               */
/* ------------------------------------------------------------------------ */

// Special values of an op's "mode" byte that replace an argument by NULL.
constexpr uint8_t kNullCtx = 0xF1, kNullOut = 0xF2, kNullData = 0xF3;

void op_buffer_create(Input &in) {
    trace("buffer_create");
    bool valid = true, huge = false;
    const int field = sel_field(in, &valid);
    const uint32_t ext = sel_ext(in, field, &valid);
    const uint64_t rows = sel_rows(in, &valid, &huge);
    const uint64_t cols = sel_cols(in, &valid, &huge);
    const uint8_t mode = in.u8();
    gp_context *ctx = mode == kNullCtx ? nullptr : S.ctx;
    gp_buffer *h = reinterpret_cast<gp_buffer *>(&S);  // must be overwritten
    const int st = CALL("gp_buffer_create", gp_buffer_create(ctx, (gp_field)field, ext, rows, cols,
                                                             mode == kNullOut ? nullptr : &h));
    if (!ctx || mode == kNullOut) {
        EXPECT(st == GP_ERR_NULL_POINTER, "gp_buffer_create with a NULL pointer: %s", sname(st));
        return;
    }
    if (st != GP_OK) {
        EXPECT(h == nullptr, "a failed gp_buffer_create left a handle");
        EXPECT(!valid, "gp_buffer_create(%d, %u, %llu, %llu) failed: %s", field, ext, (unsigned long long)rows,
               (unsigned long long)cols, sname(st));
        return;
    }
    EXPECT(valid, "gp_buffer_create(%d, %u, %llu, %llu) succeeded", field, ext, (unsigned long long)rows,
           (unsigned long long)cols);
    const int slot = adopt_buf(h, field, ext, rows, cols);
    if (slot < 0) return;
    Buf &b = S.bufs[slot];
    b.shadow.assign(b.bytes(), 0);
    b.known = true;
    read_buf(slot);  // zero-filled
}

void op_buffer_from_host(Input &in) {
    trace("buffer_from_host");
    bool valid = true, huge = false;
    const int field = sel_field(in, &valid);
    const uint32_t ext = sel_ext(in, field, &valid);
    const uint64_t rows = sel_rows(in, &valid, &huge);
    const uint64_t cols = sel_cols(in, &valid, &huge);
    const int layout = sel_layout(in, &valid);
    const uint8_t mode = in.u8();
    // The host array holds the whole matrix when its shape is small; a huge
    // shape fails before anything is read.
    const uint32_t e = ext <= 4 ? ext : 4;
    const uint64_t count = huge || !rows || !cols ? 1 : rows * cols * (e ? e : 1);
    bool canonical = true;
    const Bytes data = gen_elems(in, finfo(field) ? field : 0, count, &canonical);
    gp_buffer *h = reinterpret_cast<gp_buffer *>(&S);
    gp_context *ctx = mode == kNullCtx ? nullptr : S.ctx;
    const void *dp = mode == kNullData ? nullptr : data.data();
    const int st = CALL("gp_buffer_from_host",
                        gp_buffer_from_host(ctx, (gp_field)field, ext, rows, cols, (gp_layout)layout, dp,
                                            mode == kNullOut ? nullptr : &h));
    if (!ctx || !dp || mode == kNullOut) {
        EXPECT(st == GP_ERR_NULL_POINTER, "gp_buffer_from_host with a NULL pointer: %s", sname(st));
        return;
    }
    if (st != GP_OK) {
        EXPECT(h == nullptr, "a failed gp_buffer_from_host left a handle");
        if (valid)
            EXPECT(!canonical && st == GP_ERR_NON_CANONICAL, "gp_buffer_from_host of valid arguments: %s",
                   sname(st));
        return;
    }
    EXPECT(valid && canonical, "gp_buffer_from_host succeeded (valid %d, canonical %d)", valid, canonical);
    const int slot = adopt_buf(h, field, ext, rows, cols);
    if (slot < 0) return;
    Buf &b = S.bufs[slot];
    b.shadow = to_row_major(data, layout, rows, cols, ext, esize(field));
    b.known = true;
    read_buf(slot);
}

void op_buffer_to_host(Input &in) {
    trace("buffer_to_host");
    bool valid = true;
    const int slot = pick_buf(in);
    const int layout = sel_layout(in, &valid);
    const uint8_t mode = in.u8();
    if (slot < 0) {
        uint8_t d[8];
        const int st = CALL("gp_buffer_to_host", gp_buffer_to_host(nullptr, (gp_layout)layout, d, sizeof d));
        EXPECT(st == GP_ERR_NULL_POINTER, "gp_buffer_to_host(NULL): %s", sname(st));
        return;
    }
    Buf &b = S.bufs[slot];
    const uint64_t need = b.bytes();
    Bytes d(need + 16, 0xA5);
    uint64_t size = need;
    void *dp = d.data();
    switch (mode % 4) {
        case 1: size = need + 16; break;
        case 2: size = need - 1, valid = false; break;
        case 3: dp = nullptr, valid = false; break;
        default: break;
    }
    const int st = CALL("gp_buffer_to_host", gp_buffer_to_host(b.h, (gp_layout)layout, dp, size));
    if (!valid) {
        EXPECT(st != GP_OK, "gp_buffer_to_host with a bad layout, short size or NULL succeeded");
        return;
    }
    EXPECT(st == GP_OK, "gp_buffer_to_host: %s", sname(st));
    for (uint64_t i = need; i < d.size(); ++i) EXPECT(d[i] == 0xA5, "gp_buffer_to_host wrote past the buffer");
    if (b.known) {
        d.resize(need);
        EXPECT(d == from_row_major(b.shadow, layout, b.rows, b.cols, b.ext, esize(b.field)),
               "gp_buffer_to_host (layout %d) reads back other values than were written", layout);
    }
}

void op_buffer_destroy(Input &in) {
    trace("buffer_destroy");
    const int slot = pick_buf(in);
    if (slot < 0) gp_buffer_destroy(nullptr);
    else destroy_buf(slot);
}

// The naive transform of one base column (n = 2^log_n values) as
// gp_ntt_batch defines it, orders included.
std::vector<uint64_t> naive_ntt(const std::vector<uint64_t> &in, const FieldInfo &f, uint64_t root, bool inverse,
                                uint64_t shift, bool in_rev, bool out_rev) {
    const uint64_t n = in.size(), p = f.p;
    const uint32_t log_n = log2u(n);
    std::vector<uint64_t> x(n), y(n);
    for (uint64_t i = 0; i < n; ++i) x[i] = in[in_rev ? bitrev(i, log_n) : i];
    for (uint64_t j = 0; j < n; ++j) {
        uint64_t acc = 0;
        if (!inverse) {
            // y_j = sum_k x_k (s w^j)^k
            const uint64_t pt = mulmod(shift, powmod(root, j, p), p);
            uint64_t pk = 1;
            for (uint64_t k = 0; k < n; ++k, pk = mulmod(pk, pt, p)) acc = addmod(acc, mulmod(x[k], pk, p), p);
        } else {
            // c_j = (1/n) sum_i v_i (s w^i)^-j
            for (uint64_t i = 0; i < n; ++i) {
                const uint64_t pt = mulmod(shift, powmod(root, i, p), p);
                acc = addmod(acc, mulmod(x[i], invmod(powmod(pt, j, p), p), p), p);
            }
            acc = mulmod(acc, invmod(n % p, p), p);
        }
        y[j] = acc;
    }
    std::vector<uint64_t> out(n);
    for (uint64_t j = 0; j < n; ++j) out[out_rev ? bitrev(j, log_n) : j] = y[j];
    return out;
}

void op_ntt(Input &in) {
    trace("ntt");
    bool valid = true;
    const int slot = pick_buf(in);
    const int field = slot >= 0 ? S.bufs[slot].field : GP_FIELD_GOLDILOCKS;
    const OptSel os = sel_opts(in, sizeof(gp_ntt_options), &valid);
    gp_ntt_options o;
    gp_ntt_options_init(&o);
    const uint8_t db = in.u8();
    int dir = db < 0xF0 ? db % 2 : (db % 2 ? 2 : -1);
    if (db >= 0xF0) valid = false;
    set_enum(o.direction, dir);
    o.shift = sel_shift(in, field, &valid);
    set_enum(o.input_order, sel_order(in, &valid));
    set_enum(o.output_order, sel_order(in, &valid));
    const uint8_t mode = in.u8();
    Bytes big;
    const gp_ntt_options *op = opts_ptr(os, o, big);
    const gp_ntt_options eff = effective(os, o, gp_ntt_options_init);
    // Only what the library reads decides validity.
    if (os.mode == OPT_SIZE && (os.size < 4 || os.size > 4096)) valid = false;
    else {
        const FieldInfo *fi = finfo(field);
        valid = get_enum(eff.direction) >= 0 && get_enum(eff.direction) <= 1 && eff.shift < fi->p &&
                get_enum(eff.input_order) >= 0 && get_enum(eff.input_order) <= 1 &&
                get_enum(eff.output_order) >= 0 && get_enum(eff.output_order) <= 1;
    }
    gp_context *ctx = mode == kNullCtx ? nullptr : S.ctx;
    Bytes before;
    const bool check_naive = slot >= 0 && ctx && valid && is_pow2(S.bufs[slot].rows) && S.bufs[slot].rows <= 32 &&
                             S.bufs[slot].rows * S.bufs[slot].rows * S.bufs[slot].cols * S.bufs[slot].ext <= 8192;
    if (check_naive) before = read_buf(slot);
    if (slot >= 0 && !spend(S.bufs[slot].elems() * 8)) return;
    const int st = CALL("gp_ntt_batch", gp_ntt_batch(ctx, hbuf(slot), op));
    touch(slot);
    if (slot < 0 || !ctx) {
        EXPECT(st == GP_ERR_NULL_POINTER, "gp_ntt_batch with a NULL pointer: %s", sname(st));
        return;
    }
    const Buf &b = S.bufs[slot];
    if (!is_pow2(b.rows)) valid = false;
    if (valid) EXPECT(st == GP_OK, "gp_ntt_batch with valid options on %llu rows: %s", (unsigned long long)b.rows,
                      sname(st));
    else EXPECT(st != GP_OK, "gp_ntt_batch with invalid options or %llu rows succeeded", (unsigned long long)b.rows);
    if (!check_naive || st != GP_OK) return;
    const FieldInfo &fi = *finfo(b.field);
    uint64_t root = 0;
    EXPECT(CALL("gp_field_two_adic_generator", gp_field_two_adic_generator((gp_field)b.field, log2u(b.rows),
                                                                           &root)) == GP_OK);
    const Bytes after = read_buf(slot);
    const uint32_t esz = fi.size;
    const uint64_t bc = b.cols * b.ext;
    for (uint64_t j = 0; j < bc; ++j) {
        std::vector<uint64_t> col(b.rows);
        for (uint64_t r = 0; r < b.rows; ++r) col[r] = get_el(before.data(), esz, r * bc + j);
        const std::vector<uint64_t> want =
            naive_ntt(col, fi, root, get_enum(eff.direction) == GP_NTT_INVERSE, eff.shift ? eff.shift : 1,
                      get_enum(eff.input_order) == 1, get_enum(eff.output_order) == 1);
        for (uint64_t r = 0; r < b.rows; ++r)
            EXPECT(get_el(after.data(), esz, r * bc + j) == want[r],
                   "gp_ntt_batch (dir %d, shift %llu, orders %d %d) differs from the naive transform at row %llu "
                   "of base column %llu",
                   get_enum(eff.direction), (unsigned long long)eff.shift, get_enum(eff.input_order),
                   get_enum(eff.output_order), (unsigned long long)r, (unsigned long long)j);
    }
}

void op_ntt_roundtrip(Input &in) {
    trace("ntt_roundtrip");
    const int slot = pick_buf(in);
    bool valid = true;
    const int field = slot >= 0 ? S.bufs[slot].field : GP_FIELD_GOLDILOCKS;
    uint64_t shift = sel_shift(in, field, &valid);
    const int in_order = in.u8() % 2, out_order = in.u8() % 2;
    if (slot < 0 || !is_pow2(S.bufs[slot].rows)) return;
    if (!valid) shift = 1;
    if (!spend(S.bufs[slot].elems() * 16)) return;
    const Bytes before = read_buf(slot);
    gp_ntt_options o;
    gp_ntt_options_init(&o);
    o.shift = shift;
    set_enum(o.input_order, in_order);
    set_enum(o.output_order, out_order);
    int st = CALL("gp_ntt_batch", gp_ntt_batch(S.ctx, S.bufs[slot].h, &o));
    EXPECT(st == GP_OK, "forward NTT: %s", sname(st));
    set_enum(o.direction, GP_NTT_INVERSE);
    set_enum(o.input_order, out_order);
    set_enum(o.output_order, in_order);
    st = CALL("gp_ntt_batch", gp_ntt_batch(S.ctx, S.bufs[slot].h, &o));
    EXPECT(st == GP_OK, "inverse NTT: %s", sname(st));
    const Bytes after = read_buf(slot);
    EXPECT(after == before, "NTT forward then inverse (shift %llu, orders %d/%d) is not the identity",
           (unsigned long long)shift, in_order, out_order);
}

// LDE options. Clears *valid for values that are invalid whatever the
// input.
void sel_lde(Input &in, int field, gp_lde_options &o, bool *valid) {
    gp_lde_options_init(&o);
    const uint8_t nb = in.u8();
    if (nb < 0xA0) o.n = 0;
    else if (nb < 0xF0) o.n = 1ull << (nb % 10);
    else {
        static const uint64_t odd[] = {3, 6, 1ull << 40, ~0ull};
        o.n = odd[nb % 4];
    }
    const uint8_t bb = in.u8();
    if (bb < 0xF0) o.blowup = 1u << (bb % 6);
    else {
        static const uint32_t bad[] = {0, 3, 64, 0xffffffffu};
        o.blowup = bad[bb % 4];
        *valid = false;
    }
    o.shift = sel_shift(in, field, valid);
    o.input_shift = sel_shift(in, field, valid);
    set_enum(o.output_order, sel_order(in, valid));
    set_enum(o.input_layout, sel_layout(in, valid));
    // The input's meaning: evaluations mostly, coefficients, a bad value.
    const uint8_t ib = in.u8();
    if (ib >= 0xC0) set_enum(o.input, ib >= 0xFC ? (ib % 2 ? 2 : -1) : 1);
}

// Whether effective LDE options and shapes are valid (the output aside).
bool lde_valid(const gp_lde_options &e, int field, uint32_t ext, uint64_t rows, uint64_t cols, uint64_t *out_rows) {
    const FieldInfo *fi = finfo(field);
    if (!fi || !ext_ok(field, ext) || rows == 0 || cols == 0) return false;
    const uint64_t n = e.n ? e.n : rows;
    if (!is_pow2(n) || log2u(n) > fi->two_adicity || rows > n) return false;
    if (!is_pow2(e.blowup) || e.blowup > 32) return false;
    if (log2u(n) + log2u(e.blowup) > fi->two_adicity) return false;
    if (e.shift >= fi->p || e.input_shift >= fi->p) return false;
    if (get_enum(e.output_order) < 0 || get_enum(e.output_order) > 1) return false;
    if (get_enum(e.input_layout) < 0 || get_enum(e.input_layout) > 1) return false;
    if (get_enum(e.input) < 0 || get_enum(e.input) > 1) return false;
    if (get_enum(e.input) == GP_LDE_INPUT_COEFFICIENTS && e.input_shift > 1) return false;
    *out_rows = n * e.blowup;
    return true;
}

// The LDE output: a new matching buffer (modes 0, 1), an existing buffer
// (2), a new buffer of the wrong height (3). Returns the slot, or -1 with
// *tmp set for a buffer not kept, or -1 and nullptr.
int lde_output(uint8_t mode, int field, uint32_t ext, uint64_t out_rows, uint64_t cols, Input &in,
               gp_buffer **tmp) {
    *tmp = nullptr;
    if (mode % 4 == 2) return pick_buf(in);
    const uint64_t rows = mode % 4 == 3 ? out_rows * 2 : out_rows;
    if (!finfo(field) || !ext_ok(field, ext) || rows == 0 || rows > 4096 || cols == 0 || cols > 8 ||
        rows * cols * ext > 16384)
        return -1;
    gp_buffer *h = nullptr;
    const int st = CALL("gp_buffer_create", gp_buffer_create(S.ctx, (gp_field)field, ext, rows, cols, &h));
    EXPECT(st == GP_OK, "gp_buffer_create for an LDE output: %s", sname(st));
    const int slot = free_buf_slot();
    if (slot < 0) {
        *tmp = h;
        return -1;
    }
    return adopt_buf(h, field, ext, rows, cols);
}

bool out_matches(const gp_buffer *b, int field, uint32_t ext, uint64_t rows, uint64_t cols) {
    return (int)gp_buffer_field(b) == field && gp_buffer_ext_degree(b) == ext && gp_buffer_rows(b) == rows &&
           gp_buffer_cols(b) == cols;
}

void op_lde(Input &in) {
    trace("lde");
    bool valid = true;
    const int src = pick_buf(in);
    const int field = src >= 0 ? S.bufs[src].field : GP_FIELD_GOLDILOCKS;
    const uint64_t rows = src >= 0 ? S.bufs[src].rows : 4;
    const OptSel os = sel_opts(in, sizeof(gp_lde_options), &valid);
    gp_lde_options o;
    sel_lde(in, field, o, &valid);
    const uint8_t omode = in.u8();
    const uint8_t mode = in.u8();
    Bytes big;
    const gp_lde_options *op = opts_ptr(os, o, big);
    const gp_lde_options eff = effective(os, o, gp_lde_options_init);
    const bool size_ok = os.mode != OPT_SIZE || (os.size >= 4 && os.size <= 4096);
    uint64_t out_rows = 0;
    bool ok = src >= 0 && size_ok &&
              lde_valid(eff, field, S.bufs[src].ext, rows, S.bufs[src].cols, &out_rows);
    gp_buffer *tmp = nullptr;
    int dst = -1;
    if (src >= 0) {
        const uint64_t want = ok ? out_rows : (eff.n && is_pow2(eff.n) && eff.n <= 256 ? eff.n : rows) * 2;
        dst = lde_output(omode, field, S.bufs[src].ext, want, S.bufs[src].cols, in, &tmp);
    }
    gp_buffer *out = tmp ? tmp : hbuf(dst);
    if (dst >= 0 && !spend(S.bufs[dst].elems() * 8)) {
        gp_buffer_destroy(tmp);
        return;
    }
    if (!out || dst == src || (src >= 0 && !out_matches(out, field, S.bufs[src].ext, out_rows, S.bufs[src].cols)))
        ok = false;
    gp_context *ctx = mode == kNullCtx ? nullptr : S.ctx;
    const int st = CALL("gp_lde_batch", gp_lde_batch(ctx, hbuf(src), op, out));
    touch(dst);
    if (!ctx || src < 0) EXPECT(st == GP_ERR_NULL_POINTER, "gp_lde_batch with NULL: %s", sname(st));
    else if (!out) EXPECT(st != GP_OK, "gp_lde_batch with a NULL output succeeded");
    else if (ok) EXPECT(st == GP_OK, "gp_lde_batch with valid arguments: %s", sname(st));
    else if (st == GP_OK) die("gp_lde_batch with invalid arguments succeeded");
    // Blowup 1 onto the input's own coset, natural order: the identity.
    if (st == GP_OK && dst >= 0 && eff.blowup == 1 && (eff.n == 0 || eff.n == rows) &&
        (eff.shift ? eff.shift : finfo(field)->gen) == (eff.input_shift ? eff.input_shift : 1) &&
        get_enum(eff.output_order) == GP_ORDER_NATURAL && get_enum(eff.input) == GP_LDE_INPUT_EVALUATIONS) {
        EXPECT(read_buf(dst) == read_buf(src), "an LDE with blowup 1 onto the input's coset is not the identity");
    }
    if (st == GP_OK && dst >= 0 && mode == 0x5A) read_buf(dst);
    gp_buffer_destroy(tmp);
}

void op_lde_host(Input &in) {
    trace("lde_host");
    bool valid = true, huge = false;
    const int field = sel_field(in, &valid);
    const uint32_t ext = sel_ext(in, field, &valid);
    uint64_t rows = sel_rows(in, &valid, &huge);
    uint64_t cols = sel_cols(in, &valid, &huge);
    const OptSel os = sel_opts(in, sizeof(gp_lde_options), &valid);
    gp_lde_options o;
    sel_lde(in, finfo(field) ? field : 1, o, &valid);
    const uint8_t omode = in.u8();
    const uint8_t mode = in.u8();
    Bytes big;
    const gp_lde_options *op = opts_ptr(os, o, big);
    const gp_lde_options eff = effective(os, o, gp_lde_options_init);
    const uint32_t e = ext <= 4 ? ext : 4;
    const uint64_t count = huge || !rows || !cols ? 1 : rows * cols * (e ? e : 1);
    bool canonical = true;
    const Bytes data = gen_elems(in, finfo(field) ? field : 0, count, &canonical);
    const bool size_ok = os.mode != OPT_SIZE || (os.size >= 4 && os.size <= 4096);
    uint64_t out_rows = 0;
    bool ok = size_ok && lde_valid(eff, field, ext, rows, cols, &out_rows);
    gp_buffer *tmp = nullptr;
    const uint64_t want = ok ? out_rows : 8;
    const int dst = lde_output(omode, field, ext, want, huge ? 1 : cols, in, &tmp);
    gp_buffer *out = tmp ? tmp : hbuf(dst);
    if (dst >= 0 && !spend(S.bufs[dst].elems() * 8)) {
        gp_buffer_destroy(tmp);
        return;
    }
    if (!out || !out_matches(out, field, ext, out_rows, cols)) ok = false;
    gp_context *ctx = mode == kNullCtx ? nullptr : S.ctx;
    const void *dp = mode == kNullData ? nullptr : data.data();
    const int st = CALL("gp_lde_batch_host",
                        gp_lde_batch_host(ctx, (gp_field)field, ext, dp, rows, cols, op, out));
    touch(dst);
    if (!ctx || !dp) EXPECT(st == GP_ERR_NULL_POINTER, "gp_lde_batch_host with NULL: %s", sname(st));
    else if (ok && canonical) EXPECT(st == GP_OK, "gp_lde_batch_host with valid arguments: %s", sname(st));
    else if (ok) EXPECT(st == GP_ERR_NON_CANONICAL, "gp_lde_batch_host of non-canonical data: %s", sname(st));
    else if (st == GP_OK) die("gp_lde_batch_host with invalid arguments succeeded");
    // The same data through a buffer gives the same LDE.
    if (st == GP_OK && dst >= 0 && mode == 0x5A && rows * cols * ext * esize(field) <= 65536) {
        gp_buffer *src = nullptr, *out2 = nullptr;
        EXPECT(CALL("gp_buffer_from_host", gp_buffer_from_host(S.ctx, (gp_field)field, ext, rows, cols,
                                                               eff.input_layout, data.data(), &src)) == GP_OK);
        EXPECT(CALL("gp_buffer_create", gp_buffer_create(S.ctx, (gp_field)field, ext, out_rows, cols, &out2)) ==
               GP_OK);
        EXPECT(CALL("gp_lde_batch", gp_lde_batch(S.ctx, src, op, out2)) == GP_OK);
        Bytes a(S.bufs[dst].bytes()), b(S.bufs[dst].bytes());
        EXPECT(CALL("gp_buffer_to_host", gp_buffer_to_host(out, GP_LAYOUT_ROW_MAJOR, a.data(), a.size())) == GP_OK);
        EXPECT(CALL("gp_buffer_to_host", gp_buffer_to_host(out2, GP_LAYOUT_ROW_MAJOR, b.data(), b.size())) ==
               GP_OK);
        EXPECT(a == b, "gp_lde_batch_host and gp_lde_batch of the same data differ");
        gp_buffer_destroy(src);
        gp_buffer_destroy(out2);
    }
    gp_buffer_destroy(tmp);
}

struct PermInfo {
    uint32_t width;
    int field;          // 0: Keccak lanes and the byte hashes
    bool hash = false;  // a hash function: described, never permuted
};
PermInfo perm_info(int perm) {
    switch (perm) {
        case 1: return {8, 1};
        case 2: return {12, 1};
        case 3: return {16, 1};
        case 4: return {8, 1};
        case 5: return {16, 2};
        case 6: return {24, 2};
        case 7: return {16, 3};
        case 8: return {24, 3};
        case 9:
        case 10:
        case 11: return {12, 1};
        case 12: return {16, 1};
        case 13: return {25, 0};
        case 14: return {32, 2};
        case 15: return {32, 3};
        case 16: return {16, 2};
        case 17: return {24, 2};
        case 18: return {12, 1};
        case 19: return {16, 0, true};  // BLAKE3
        case 20: return {25, 0, true};  // SHA3-256
        case 21: return {16, 0, true};  // BLAKE3-192
        case 22: return {12, 1};        // Rp64_256
        case 23: return {16, 3};        // SP1 v6 KoalaBear
        case 24: return {16, 2};        // SP1 v4/v5 BabyBear
        default: return {0, -1};
    }
}

void op_permute(Input &in) {
    trace("permute");
    const uint8_t pb = in.u8();
    int perm;
    if (pb < 0xF0) perm = 1 + pb % 24;
    else {
        static const int bad[] = {0, 25, -1, 0x7fffffff, 100, (int)0x80000000, 26, 255};
        perm = bad[pb % 8];
    }
    const PermInfo pi = perm_info(perm);
    const uint8_t cb = in.u8();
    uint64_t count = cb % 8 <= 4 ? cb % 8 : (cb % 8 == 7 ? 2 : 1);
    bool canonical = true;
    const int field = pi.field > 0 ? pi.field : 0;
    Bytes states = gen_elems(in, field, (uint64_t)(pi.width ? pi.width : 4) * (count ? count : 1), &canonical);
    void *sp = states.data();
    if (cb % 8 == 5) count = 1ull << 62;  // count * width * element size wraps
    if (cb % 8 == 6) sp = nullptr;
    if (cb % 8 == 7 && pi.width) {       // two equal states
        const size_t half = states.size() / 2;
        std::memcpy(&states[half], &states[0], half);
    }
    canonical = all_canonical(states, field);
    if (!spend((count < 8 ? count : 1) * 64)) return;
    uint32_t width = 0;
    gp_field pf;
    std::memset(&pf, 0, sizeof pf);
    const int ist = CALL("gp_permutation_info", gp_permutation_info((gp_permutation)perm, &width, &pf));
    if (pi.width) {
        EXPECT(ist == GP_OK && width == pi.width && get_enum(pf) == pi.field, "gp_permutation_info(%d): %u %d",
               perm, width, get_enum(pf));
    } else {
        EXPECT(ist == GP_ERR_INVALID_ARGUMENT, "gp_permutation_info(%d): %s", perm, sname(ist));
    }
    const int st = CALL("gp_permute_batch", gp_permute_batch(S.ctx, (gp_permutation)perm, sp, count));
    if (!pi.width) {
        EXPECT(st == GP_ERR_INVALID_ARGUMENT, "gp_permute_batch(%d): %s", perm, sname(st));
        return;
    }
    if (pi.hash) {
        EXPECT(st == GP_ERR_UNSUPPORTED, "gp_permute_batch of the hash %d: %s", perm, sname(st));
        return;
    }
    if (count == 0) EXPECT(st == GP_OK, "gp_permute_batch of 0 states: %s", sname(st));
    else if (!sp) EXPECT(st == GP_ERR_NULL_POINTER, "gp_permute_batch(NULL): %s", sname(st));
    else if (count > 8) EXPECT(st == GP_ERR_SIZE_OVERFLOW, "gp_permute_batch of 2^62 states: %s", sname(st));
    else if (!canonical) EXPECT(st == GP_ERR_NON_CANONICAL, "gp_permute_batch of non-canonical states: %s", sname(st));
    else EXPECT(st == GP_OK, "gp_permute_batch: %s", sname(st));
    if (st == GP_OK && cb % 8 == 7) {
        const size_t half = states.size() / 2;
        EXPECT(std::memcmp(&states[0], &states[half], half) == 0, "equal states permute to different states");
    }
}

// Up to three matrices: slot numbers (or -1 for NULL).
std::vector<int> pick_matrices(Input &in) {
    const uint8_t n = 1 + in.u8() % 3;
    std::vector<int> m;
    for (uint8_t i = 0; i < n; ++i) m.push_back(pick_buf(in));
    return m;
}

void op_merkle_commit(Input &in) {
    trace("merkle_commit");
    const std::vector<int> mats = pick_matrices(in);
    bool valid = true;
    const int field = mats[0] >= 0 ? S.bufs[mats[0]].field : GP_FIELD_GOLDILOCKS;
    const OptSel os = sel_opts(in, sizeof(gp_merkle_options), &valid);
    gp_merkle_options o;
    sel_merkle(in, field, o, &valid);
    const uint8_t mode = in.u8();
    uint64_t w = 0;
    std::vector<const gp_buffer *> hs;
    for (int m : mats) {
        hs.push_back(hbuf(m));
        if (m >= 0) w += S.bufs[m].elems() * 4;
    }
    if (!spend(w)) return;
    Bytes big;
    const gp_merkle_options *op = opts_ptr(os, o, big);
    gp_merkle_tree *h = reinterpret_cast<gp_merkle_tree *>(&S);
    gp_context *ctx = mode == kNullCtx ? nullptr : S.ctx;
    const uint32_t count = mode == 0xF4 ? 0 : (uint32_t)hs.size();
    const int st = CALL("gp_merkle_commit", gp_merkle_commit(ctx, mode == kNullData ? nullptr : hs.data(), count, op,
                                                             mode == kNullOut ? nullptr : &h));
    bool any_null = false;
    for (int m : mats) any_null |= m < 0;
    if (!ctx || mode == kNullOut) {
        EXPECT(st == GP_ERR_NULL_POINTER, "gp_merkle_commit with a NULL pointer: %s", sname(st));
        return;
    }
    if (mode == kNullData) EXPECT(st != GP_OK, "gp_merkle_commit of NULL matrices succeeded");
    if (st != GP_OK) {
        EXPECT(h == nullptr, "a failed gp_merkle_commit left a handle");
        return;
    }
    EXPECT(!any_null && count > 0, "gp_merkle_commit with a NULL matrix or count 0 succeeded");
    const gp_merkle_options eff = effective(os, o, gp_merkle_options_init);
    const int kind = get_enum(eff.kind);
    EXPECT(kind >= 1 && kind <= 11, "gp_merkle_commit accepted kind %d", kind);
    // Heights: powers of two, or for Plonky3's MMCS kinds any heights on
    // the ladder ceil(M / 2^k) of the greatest M.
    const bool mmcs = kind == GP_MERKLE_FIELD_SPONGE || kind == GP_MERKLE_KECCAK_PLONKY3 || kind == GP_MERKLE_KECCAK_U64;
    uint64_t M = 0;
    for (int m : mats) M = S.bufs[m].rows > M ? S.bufs[m].rows : M;
    for (int m : mats) {
        const uint64_t h = S.bufs[m].rows;
        EXPECT(S.bufs[m].field == field, "gp_merkle_commit accepted matrices of different fields");
        EXPECT(mmcs ? h == layer_rows(M, log2_ceil(M) - log2_ceil(h)) : is_pow2(h),
               "gp_merkle_commit accepted a height of %llu under %llu", (unsigned long long)h, (unsigned long long)M);
    }
    const int t = adopt_tree(h, os, o, field, mats);
    if (t >= 0 && mode % 2) merkle_check(t, in);
}

void op_merkle_hash_rows(Input &in) {
    trace("merkle_hash_rows");
    const std::vector<int> mats = pick_matrices(in);
    bool valid = true;
    const int field = mats[0] >= 0 ? S.bufs[mats[0]].field : GP_FIELD_GOLDILOCKS;
    const OptSel os = sel_opts(in, sizeof(gp_merkle_options), &valid);
    gp_merkle_options o;
    sel_merkle(in, field, o, &valid);
    const uint8_t mode = in.u8();
    std::vector<const gp_buffer *> hs;
    uint64_t w = 0;
    for (int m : mats) {
        hs.push_back(hbuf(m));
        if (m >= 0) w += S.bufs[m].elems() * 4;
    }
    if (!spend(w)) return;
    Bytes big;
    const gp_merkle_options *op = opts_ptr(os, o, big);
    // The digests' size as the profile gives it.
    const gp_merkle_options eff = effective(os, o, gp_merkle_options_init);
    const int kind = get_enum(eff.kind), perm = get_enum(eff.perm);
    const PermInfo pi = perm_info(perm);
    uint64_t dbytes = kind == GP_MERKLE_TRITON || kind == GP_MERKLE_TRITON_DIGEST ? 40
                      : kind == GP_MERKLE_WINTERFELL && perm == GP_PERM_BLAKE3_192  ? 24
                                                                                     : 32;
    if (kind == GP_MERKLE_FIELD_SPONGE && pi.field > 0)
        dbytes = (uint64_t)(eff.digest ? eff.digest : (esize(pi.field) == 8 ? 4 : 8)) * esize(pi.field);
    const uint64_t rows = mats[0] >= 0 ? S.bufs[mats[0]].rows : 1;
    const uint64_t need = rows * dbytes;
    Bytes d(need + 64, 0x5C);
    uint64_t size = need + 64;
    void *dp = d.data();
    if (mode % 4 == 1) size = need ? need - 1 : 0;
    if (mode % 4 == 2) dp = nullptr, size = 0;
    const int st = CALL("gp_merkle_hash_rows", gp_merkle_hash_rows(mode == kNullCtx ? nullptr : S.ctx, hs.data(),
                                                                   (uint32_t)hs.size(), op, dp, size));
    if (st != GP_OK) return;
    EXPECT(dp && mode % 4 != 1, "gp_merkle_hash_rows into a short or NULL output succeeded");
    for (uint64_t i = need; i < d.size(); ++i)
        EXPECT(d[i] == 0x5C, "gp_merkle_hash_rows wrote past %llu digest bytes", (unsigned long long)need);
}

void op_merkle_query(Input &in) {
    trace("merkle_query");
    const int t = pick_tree(in);
    const uint8_t mode = in.u8();
    gp_merkle_tree *h = t >= 0 ? S.trees[t].h : nullptr;
    const uint64_t dsz = gp_merkle_digest_size(h), csz = gp_merkle_cap_size(h);
    if (!h) EXPECT(dsz == 0 && csz == 0, "sizes of a NULL tree");
    Bytes b(csz + dsz + 64, 0x3C);
    uint64_t size = mode % 4 == 1 ? (dsz ? dsz - 1 : 0) : b.size();
    void *bp = mode % 4 == 2 ? nullptr : b.data();
    int st = CALL("gp_merkle_root", gp_merkle_root(h, bp, size));
    if (st == GP_OK) {
        EXPECT(h && bp && size >= dsz, "gp_merkle_root succeeded");
        for (uint64_t i = dsz; i < b.size(); ++i) EXPECT(b[i] == 0x3C, "gp_merkle_root wrote past the digest");
    }
    std::fill(b.begin(), b.end(), 0x3C);
    size = mode % 4 == 1 ? (csz ? csz - 1 : 0) : b.size();
    st = CALL("gp_merkle_cap", gp_merkle_cap(h, bp, size));
    if (st == GP_OK) {
        EXPECT(h && bp && size >= csz, "gp_merkle_cap succeeded");
        for (uint64_t i = csz; i < b.size(); ++i) EXPECT(b[i] == 0x3C, "gp_merkle_cap wrote past the cap");
    }
    // SP1's bound commitment: field-sponge trees of one height only.
    const int tkind =
        t >= 0 ? get_enum(effective(S.trees[t].os, S.trees[t].opt, gp_merkle_options_init).kind) : 0;
    std::fill(b.begin(), b.end(), 0x3C);
    size = mode % 4 == 1 ? (dsz ? dsz - 1 : 0) : b.size();
    st = CALL("gp_merkle_sp1_commitment", gp_merkle_sp1_commitment(h, bp, size));
    if (st == GP_OK) {
        EXPECT(h && bp && size >= dsz && tkind == GP_MERKLE_FIELD_SPONGE,
               "gp_merkle_sp1_commitment succeeded");
        for (uint64_t i = dsz; i < b.size(); ++i)
            EXPECT(b[i] == 0x3C, "gp_merkle_sp1_commitment wrote past the digest");
    } else if (h && bp && size >= dsz && tkind != GP_MERKLE_FIELD_SPONGE) {
        EXPECT(st == GP_ERR_UNSUPPORTED, "gp_merkle_sp1_commitment of another kind: %s", sname(st));
    }
    uint64_t rb = 0, pb = 0;
    st = CALL("gp_merkle_opening_size", gp_merkle_opening_size(h, mode & 4 ? nullptr : &rb, mode & 8 ? nullptr : &pb));
    EXPECT((st == GP_OK) == (h != nullptr), "gp_merkle_opening_size: %s", sname(st));
}

void op_merkle_open(Input &in) {
    trace("merkle_open");
    const int t = pick_tree(in);
    if (t < 0) {
        uint64_t idx = 0;
        uint8_t r[8];
        const int st = CALL("gp_merkle_open", gp_merkle_open(nullptr, &idx, 1, r, sizeof r, nullptr, 0));
        EXPECT(st == GP_ERR_NULL_POINTER, "gp_merkle_open(NULL): %s", sname(st));
        return;
    }
    merkle_check(t, in);
}

void op_merkle_verify_raw(Input &in) {
    trace("merkle_verify_raw");
    bool valid = true;
    const int field = sel_field(in, &valid);
    const OptSel os = sel_opts(in, sizeof(gp_merkle_options), &valid);
    gp_merkle_options o;
    sel_merkle(in, finfo(field) ? field : 1, o, &valid);
    const uint8_t nd = in.u8() % 4;
    std::vector<gp_matrix_dims> dims(nd ? nd : 1);
    for (auto &d : dims) {
        const uint8_t rb = in.u8();
        d.rows = rb < 0xF0 ? 1ull << (rb % 9) : (rb % 2 ? 0 : (rb % 4 == 2 ? 3 : ~0ull));
        d.cols = in.u8() % 10;
        d.ext_degree = sel_ext(in, finfo(field) ? field : 1, &valid);
    }
    const Bytes cap = gen_elems(in, 0, in.u8() % 17);
    const Bytes rows = gen_elems(in, finfo(field) ? field : 0, in.u8() % 65);
    const Bytes path = gen_elems(in, 0, in.u8() % 65);
    const uint64_t index = in.u8() < 0xF0 ? in.u8() : ~0ull;
    Bytes big;
    const gp_merkle_options *op = opts_ptr(os, o, big);
    CALL("gp_merkle_verify", gp_merkle_verify(op, (gp_field)field, nd ? dims.data() : nullptr, nd, cap.data(),
                                              cap.size(), index, rows.data(), rows.size(),
                                              path.empty() ? nullptr : path.data(), path.size()));
}

void op_tree_destroy(Input &in) {
    trace("tree_destroy");
    const int t = pick_tree(in);
    if (t < 0) gp_merkle_tree_destroy(nullptr);
    else destroy_tree(t);
}

// Starts a FRI commitment of buffer `slot` (or of host data when slot is
// -2); returns the FRI slot or -1.
int fri_start(Input &in, int slot) {
    bool valid = true;
    int field;
    uint32_t ext;
    uint64_t n;
    Bytes host;
    bool canonical = true;
    if (slot == -2) {
        field = sel_field(in, &valid);
        ext = sel_ext(in, field, &valid);
        const uint8_t nb = in.u8();
        if (nb < 0xF0) n = 1ull << (nb % 9);
        else {
            static const uint64_t odd[] = {0, 1, 3, 1ull << 40, 1ull << 63, ~0ull, 12, 0};
            n = odd[nb % 8];
        }
        const uint32_t e = ext <= 4 ? ext : 4;
        host = gen_elems(in, finfo(field) ? field : 0, n <= 256 && n ? n * (e ? e : 1) : 1, &canonical);
    } else {
        field = slot >= 0 ? S.bufs[slot].field : GP_FIELD_GOLDILOCKS;
        ext = slot >= 0 ? S.bufs[slot].ext : 1;
        n = slot >= 0 ? S.bufs[slot].rows : 4;
    }
    const OptSel os = sel_opts(in, sizeof(gp_fri_options), &valid);
    gp_fri_options o;
    sel_fri(in, finfo(field) ? field : 1, n, o, &valid);
    const uint8_t cmode = in.u8();
    Bytes big;
    const gp_fri_options *op = opts_ptr(os, o, big);
    Bytes cap(4096 + 64, 0x7E);
    void *cp = cmode % 4 == 1 ? nullptr : cap.data();
    uint64_t csize = cmode % 4 == 2 ? 1 : 4096;
    if (!spend((n <= 256 ? n : 1) * ext * 8)) return -1;
    gp_fri *h = reinterpret_cast<gp_fri *>(&S);
    int st;
    if (slot == -2)
        st = CALL("gp_fri_begin_host", gp_fri_begin_host(cmode == kNullCtx ? nullptr : S.ctx, (gp_field)field, ext,
                                                         cmode == kNullData ? nullptr : host.data(), n, op, cp,
                                                         csize, cmode == kNullOut ? nullptr : &h));
    else
        st = CALL("gp_fri_begin", gp_fri_begin(cmode == kNullCtx ? nullptr : S.ctx, hbuf(slot), op, cp, csize,
                                               cmode == kNullOut ? nullptr : &h));
    if (cmode == kNullCtx || cmode == kNullOut || (slot == -2 && cmode == kNullData) || slot == -1) {
        EXPECT(st == GP_ERR_NULL_POINTER, "gp_fri_begin with a NULL pointer: %s", sname(st));
        return -1;
    }
    if (st != GP_OK) {
        EXPECT(h == nullptr, "a failed gp_fri_begin left a handle");
        return -1;
    }
    EXPECT(slot != -2 || canonical, "gp_fri_begin_host of non-canonical data succeeded");
    EXPECT(cp != nullptr ? csize >= gp_fri_cap_size(h) : true, "gp_fri_begin wrote a cap into a short buffer");
    const uint64_t csz = gp_fri_cap_size(h);
    const int f = adopt_fri(h, os, o, field, ext, n);  // h may be destroyed here
    if (cp)
        for (uint64_t i = csz; i < cap.size(); ++i) EXPECT(cap[i] == 0x7E, "gp_fri_begin wrote past the cap");
    if (f < 0) return -1;
    Fri &fr = S.fris[f];
    if (cp) fr.caps.assign(cap.begin(), cap.begin() + csz);
    else fr.caps_ok = false;
    return f;
}

// Folds FRI slot f once; reads beta mode, seed and cap mode.
void fri_fold_once(int f, Input &in) {
    Fri &fr = S.fris[f];
    const uint8_t bm = in.u8();
    Rng rng{in.u32()};
    const uint8_t cm = in.u8();
    const uint64_t eb = (uint64_t)fr.ext * esize(fr.field);
    Bytes beta = random_elems(rng, fr.field, fr.ext);
    beta.push_back(0);  // room for a size one byte too long
    uint64_t bsize = eb;
    bool valid = fr.folded < fr.layers;
    const void *bp = beta.data();
    switch (bm % 8) {
        case 5: set_el(beta.data(), esize(fr.field), bm % fr.ext, finfo(fr.field)->p + (bm >> 4)), valid = false; break;
        case 6: bsize = bm & 0x10 ? eb + 1 : eb - 1, valid = false; break;
        case 7: bp = nullptr, valid = false; break;
        default: break;
    }
    const uint64_t csz = gp_fri_cap_size(fr.h);
    Bytes cap(csz + 64, 0x6D);
    void *cp = cm % 4 == 1 ? nullptr : cap.data();
    const bool last = fr.folded + 1 == fr.layers;
    uint64_t cs = cap.size();
    if (cm % 4 == 2) {
        cs = csz - 1;
        if (!last) valid = false;
    }
    const int st = CALL("gp_fri_fold", gp_fri_fold(fr.h, bp, bsize, cp, cs));
    if (!bp) EXPECT(st == GP_ERR_NULL_POINTER, "gp_fri_fold(beta NULL): %s", sname(st));
    if (valid) EXPECT(st == GP_OK, "gp_fri_fold with a valid challenge: %s", sname(st));
    else EXPECT(st != GP_OK, "gp_fri_fold with an invalid challenge, short cap or after the last fold succeeded");
    if (bm % 8 == 5 && fr.folded < fr.layers) EXPECT(st == GP_ERR_NON_CANONICAL, "non-canonical beta: %s", sname(st));
    if (st != GP_OK) return;
    if (last) {
        if (cp)
            for (uint8_t c : cap) EXPECT(c == 0x6D, "the last gp_fri_fold wrote a cap");
    } else {
        if (cp) {
            for (uint64_t i = csz; i < cap.size(); ++i) EXPECT(cap[i] == 0x6D, "gp_fri_fold wrote past the cap");
            fr.caps.insert(fr.caps.end(), cap.begin(), cap.begin() + csz);
        } else {
            fr.caps_ok = false;
        }
    }
    fr.betas.insert(fr.betas.end(), beta.begin(), beta.begin() + eb);
    fr.folded++;
}

void op_fri_begin(Input &in) {
    trace("fri_begin");
    fri_start(in, pick_buf(in));
}
void op_fri_begin_host(Input &in) {
    trace("fri_begin_host");
    fri_start(in, -2);
}
void op_fri_fold(Input &in) {
    trace("fri_fold");
    const int f = pick_fri(in);
    if (f < 0) {
        uint8_t beta[8] = {0};
        const int st = CALL("gp_fri_fold", gp_fri_fold(nullptr, beta, 8, nullptr, 0));
        EXPECT(st == GP_ERR_NULL_POINTER, "gp_fri_fold(NULL): %s", sname(st));
        return;
    }
    fri_fold_once(f, in);
}
void op_fri_remainder(Input &in) {
    trace("fri_remainder");
    const int f = pick_fri(in);
    const uint8_t mode = in.u8();
    gp_fri *h = f >= 0 ? S.fris[f].h : nullptr;
    const uint64_t rsz = gp_fri_remainder_size(h);
    Bytes r(rsz + 32, 0x4B);
    const uint64_t size = mode % 3 == 1 ? (rsz ? rsz - 1 : 0) : r.size();
    void *rp = mode % 3 == 2 ? nullptr : r.data();
    const int st = CALL("gp_fri_remainder", gp_fri_remainder(h, rp, size));
    if (!h) {
        EXPECT(rsz == 0 && st == GP_ERR_NULL_POINTER, "gp_fri_remainder(NULL): %s", sname(st));
        return;
    }
    const bool ok = S.fris[f].folded == S.fris[f].layers && rp && size >= rsz;
    EXPECT((st == GP_OK) == ok, "gp_fri_remainder (%u of %u folded): %s", S.fris[f].folded, S.fris[f].layers,
           sname(st));
    if (st == GP_OK)
        for (uint64_t i = rsz; i < r.size(); ++i) EXPECT(r[i] == 0x4B, "gp_fri_remainder wrote past the remainder");
}
void op_fri_open(Input &in) {
    trace("fri_open");
    const int f = pick_fri(in);
    if (f < 0) {
        uint64_t q = 0;
        uint8_t out[8];
        const int st = CALL("gp_fri_open", gp_fri_open(nullptr, &q, 1, out, sizeof out));
        EXPECT(st == GP_ERR_NULL_POINTER, "gp_fri_open(NULL): %s", sname(st));
        EXPECT(gp_fri_opening_size(nullptr) == 0 && gp_fri_layer_count(nullptr) == 0 && gp_fri_cap_size(nullptr) == 0,
               "sizes of a NULL FRI commitment");
        return;
    }
    fri_check(f, in);
}
void op_fri_verify_raw(Input &in) {
    trace("fri_verify_raw");
    bool valid = true;
    const int field = sel_field(in, &valid);
    const uint32_t ext = sel_ext(in, field, &valid);
    const uint8_t nb = in.u8();
    const uint64_t n = nb < 0xF0 ? 1ull << (nb % 10) : (nb % 2 ? ~0ull : 1ull << 40);
    const OptSel os = sel_opts(in, sizeof(gp_fri_options), &valid);
    gp_fri_options o;
    sel_fri(in, finfo(field) ? field : 1, n, o, &valid);
    const Bytes caps = gen_elems(in, 0, in.u8() % 33);
    const Bytes betas = gen_elems(in, finfo(field) ? field : 0, in.u8() % 9);
    const Bytes rem = gen_elems(in, finfo(field) ? field : 0, in.u8() % 17);
    const Bytes opening = gen_elems(in, 0, in.u16() % 257);
    const uint64_t index = in.u16();
    Bytes big;
    const gp_fri_options *op = opts_ptr(os, o, big);
    const uint8_t null_which = in.u8();
    CALL("gp_fri_verify",
         gp_fri_verify(op, (gp_field)field, ext, n, null_which == 1 ? nullptr : caps.data(), caps.size(),
                       null_which == 2 ? nullptr : betas.data(), betas.size(),
                       null_which == 3 ? nullptr : rem.data(), rem.size(), index,
                       null_which == 4 ? nullptr : opening.data(), opening.size()));
}

struct Challenger {
    int fail_at;  // the callback returns fail_status at this layer (-1: never)
    int fail_status;
    int bad_at;   // the callback writes a non-canonical challenge at this layer
    int field;
    uint32_t ext;
    Rng rng;
    uint32_t calls = 0;
    uint64_t want_cap_size = 0;
    Bytes caps, betas;
};

gp_status challenge(void *user, uint32_t layer, const void *cap, uint64_t cap_size, void *beta,
                    uint64_t beta_size) {
    Challenger &c = *static_cast<Challenger *>(user);
    if (layer != c.calls) die("gp_fri_commit called the challenge for layer %u, expected %u", layer, c.calls);
    c.calls++;
    const uint64_t eb = (uint64_t)c.ext * esize(c.field);
    if (beta_size != eb) die("gp_fri_commit asked for a %llu-byte challenge", (unsigned long long)beta_size);
    if (!cap || !beta || (c.want_cap_size && cap_size != c.want_cap_size))
        die("gp_fri_commit passed cap %p (%llu bytes), beta %p", cap, (unsigned long long)cap_size, beta);
    c.want_cap_size = cap_size;
    c.caps.insert(c.caps.end(), static_cast<const uint8_t *>(cap), static_cast<const uint8_t *>(cap) + cap_size);
    if ((int)layer == c.fail_at) return (gp_status)c.fail_status;
    Bytes b = random_elems(c.rng, c.field, c.ext);
    if ((int)layer == c.bad_at) set_el(b.data(), esize(c.field), 0, finfo(c.field)->p);
    std::memcpy(beta, b.data(), eb);
    c.betas.insert(c.betas.end(), b.begin(), b.end());
    return GP_OK;
}

void op_fri_commit(Input &in) {
    trace("fri_commit");
    bool valid = true;
    const int slot = pick_buf(in);
    const int field = slot >= 0 ? S.bufs[slot].field : GP_FIELD_GOLDILOCKS;
    const uint32_t ext = slot >= 0 ? S.bufs[slot].ext : 1;
    const uint64_t n = slot >= 0 ? S.bufs[slot].rows : 4;
    const OptSel os = sel_opts(in, sizeof(gp_fri_options), &valid);
    gp_fri_options o;
    sel_fri(in, field, n, o, &valid);
    const uint8_t cb = in.u8();
    Challenger c{};
    c.field = field;
    c.ext = ext;
    // cb < 0xB0: every challenge valid; 0xB0..0xBF: a non-canonical one at
    // layer cb % 4; from 0xC0: the callback fails at layer cb % 8.
    static const int fails[] = {GP_ERR_INVALID_ARGUMENT, GP_ERR_INTERNAL, GP_ERR_VERIFY_FAILED, GP_ERR_CUDA,
                                GP_ERR_NULL_POINTER,     GP_ERR_UNSUPPORTED, GP_ERR_NON_CANONICAL, GP_ERR_SIZE_OVERFLOW};
    c.fail_at = cb >= 0xC0 ? cb % 8 : -1;
    c.fail_status = fails[(cb >> 3) % 8];
    c.bad_at = cb >= 0xB0 && cb < 0xC0 ? cb % 4 : -1;
    c.rng = Rng{in.u32()};
    const uint8_t mode = in.u8();
    // Mode 0xF5: the failing callback returns an int outside gp_status (as
    // a C callback may), which the library must not load as one.
    if (mode == 0xF5) c.fail_status = cb % 2 ? 12345 : -1;
    if (!spend(n * ext * 8)) return;
    Bytes big;
    const gp_fri_options *op = opts_ptr(os, o, big);
    gp_fri *h = reinterpret_cast<gp_fri *>(&S);
    const int st = CALL("gp_fri_commit", gp_fri_commit(mode == kNullCtx ? nullptr : S.ctx, hbuf(slot), op,
                                                       mode == kNullData ? nullptr : challenge, &c,
                                                       mode == kNullOut ? nullptr : &h));
    if (mode == kNullCtx || mode == kNullData || slot < 0) {
        EXPECT(st == GP_ERR_NULL_POINTER, "gp_fri_commit with a NULL pointer: %s", sname(st));
        return;
    }
    if (st != GP_OK) {
        if (mode != kNullOut) EXPECT(h == nullptr, "a failed gp_fri_commit left a handle");
        if (c.fail_at >= 0 && c.calls == (uint32_t)c.fail_at + 1)
            EXPECT(st == (is_status(c.fail_status) ? c.fail_status : GP_ERR_INVALID_ARGUMENT),
                   "gp_fri_commit returned %s, the callback %d", sname(st), c.fail_status);
        if (c.bad_at >= 0 && c.calls == (uint32_t)c.bad_at + 1)
            EXPECT(st == GP_ERR_NON_CANONICAL, "gp_fri_commit after a non-canonical challenge: %s", sname(st));
        return;
    }
    EXPECT((c.fail_at < 0 || c.calls <= (uint32_t)c.fail_at) && (c.bad_at < 0 || c.calls <= (uint32_t)c.bad_at),
           "gp_fri_commit succeeded though the callback failed or gave a non-canonical challenge");
    if (mode == kNullOut) return;
    const int f = adopt_fri(h, os, o, field, ext, n);
    if (f < 0) return;
    Fri &fr = S.fris[f];
    EXPECT(c.calls == fr.layers, "gp_fri_commit called the challenge %u times for %u layers", c.calls, fr.layers);
    fr.caps = c.caps;
    fr.betas = c.betas;
    fr.folded = fr.layers;
    if (mode % 2) fri_check(f, in);
}

void op_fri_destroy(Input &in) {
    trace("fri_destroy");
    const int f = pick_fri(in);
    if (f < 0) gp_fri_destroy(nullptr);
    else destroy_fri(f);
}

// Begin, fold to the end with canonical challenges, open and verify.
void op_fri_run(Input &in) {
    trace("fri_run");
    const uint8_t src = in.u8();
    const int f = fri_start(in, src % 2 ? -2 : pick_buf(in));
    if (f < 0) return;
    while (S.fris[f].folded < S.fris[f].layers) {
        Fri &fr = S.fris[f];
        const uint32_t before = fr.folded;
        Rng rng{in.u32()};
        const uint64_t eb = (uint64_t)fr.ext * esize(fr.field);
        const Bytes beta = random_elems(rng, fr.field, fr.ext);
        Bytes cap(gp_fri_cap_size(fr.h));
        const int st = CALL("gp_fri_fold", gp_fri_fold(fr.h, beta.data(), eb, cap.data(), cap.size()));
        EXPECT(st == GP_OK, "gp_fri_fold %u of %u: %s", before, fr.layers, sname(st));
        if (fr.folded + 1 < fr.layers) fr.caps.insert(fr.caps.end(), cap.begin(), cap.end());
        fr.betas.insert(fr.betas.end(), beta.begin(), beta.end());
        fr.folded++;
    }
    fri_check(f, in);
    if (src & 0x80) destroy_fri(f);
}

// OOD/DEEP arguments shared by both calls.
struct OodArgs {
    std::vector<int> cols;
    std::vector<const gp_buffer *> hs;
    OptSel os{OPT_NULL, 0};
    gp_ood_options o{};
    int field = 1;
    uint32_t E = 3;
    uint32_t np = 1;
    Bytes points;
    bool valid = true;
    uint64_t ncols = 0;
};

void sel_ood(Input &in, OodArgs &a) {
    a.cols = pick_matrices(in);
    for (int c : a.cols) a.hs.push_back(hbuf(c));
    a.field = a.cols[0] >= 0 ? S.bufs[a.cols[0]].field : GP_FIELD_GOLDILOCKS;
    const uint64_t M = a.cols[0] >= 0 ? S.bufs[a.cols[0]].rows : 4;
    bool unused = true;
    a.os = sel_opts(in, sizeof(gp_ood_options), &unused);
    gp_ood_options_init(&a.o);
    a.o.shift = sel_shift(in, a.field, &unused);
    set_enum(a.o.order, sel_order(in, &unused));
    const uint8_t db = in.u8();
    if (db < 0x80) a.o.degree_bound = 0;
    else if (db < 0xF0) a.o.degree_bound = is_pow2(M) ? 1ull << (db % (log2u(M) + 1)) : 1;
    else {
        static const uint64_t bad[] = {3, 1ull << 40, ~0ull, 0};
        a.o.degree_bound = bad[db % 4] ? bad[db % 4] : M * 2;
    }
    const uint8_t cb = in.u8();
    if (cb < 0xF0) a.o.challenge_degree = cb % 2 ? 0 : (a.field == GP_FIELD_GOLDILOCKS ? 1 + cb / 2 % 3 : (cb & 2 ? 4 : 1));
    else {
        static const uint32_t bad[] = {5, 2, 4, 0xffffffffu};
        a.o.challenge_degree = bad[cb % 4];
    }
    const gp_ood_options eff = effective(a.os, a.o, gp_ood_options_init);
    a.E = eff.challenge_degree ? eff.challenge_degree : (a.field == GP_FIELD_GOLDILOCKS ? 3 : 4);
    const uint8_t pb = in.u8();
    a.np = pb < 0xF0 ? 1 + pb % 3 : 0;
    const uint8_t pm = in.u8();
    bool canonical = true;
    a.points = gen_elems(in, a.field, (uint64_t)(a.np ? a.np : 1) * (a.E <= 4 ? a.E : 4), &canonical);
    const FieldInfo &fi = *finfo(a.field);
    const uint64_t shift = eff.shift ? eff.shift : fi.gen;
    if (pm % 8 == 1) {  // z = the shift: in the coset
        std::fill(a.points.begin(), a.points.end(), 0);
        set_el(a.points.data(), esize(a.field), 0, shift);
        canonical = shift < fi.p;
    }
    // A point lies in the coset when z^M = shift^M; the M-th roots of unity
    // are base elements, so only base points can.
    bool in_coset = false;
    const uint32_t Ec = a.E <= 4 ? a.E : 4;
    if (canonical && shift < fi.p)
        for (uint32_t j = 0; j < a.np; ++j) {
            bool base = true;
            for (uint32_t e = 1; e < Ec; ++e) base &= get_el(a.points.data(), fi.size, j * Ec + e) == 0;
            if (base && powmod(get_el(a.points.data(), fi.size, j * Ec), M, fi.p) == powmod(shift, M, fi.p))
                in_coset = true;
        }
    // Valid as far as this file can tell (random points lie in the coset
    // with negligible probability).
    bool v = a.os.mode != OPT_SIZE || (a.os.size >= 4 && a.os.size <= 4096);
    v = v && ext_ok(a.field, a.E) && shift < fi.p && get_enum(eff.order) >= 0 && get_enum(eff.order) <= 1;
    v = v && is_pow2(M) && (eff.degree_bound == 0 || (is_pow2(eff.degree_bound) && eff.degree_bound <= M));
    v = v && a.np > 0 && canonical && !in_coset;
    for (int c : a.cols) {
        if (c < 0) {
            v = false;
            continue;
        }
        const Buf &b = S.bufs[c];
        a.ncols += b.cols;
        if (b.field != a.field || b.rows != M || (b.ext != 1 && b.ext != a.E)) v = false;
    }
    a.valid = v;
}

void op_ood(Input &in) {
    trace("evaluate_ood");
    OodArgs a;
    sel_ood(in, a);
    const uint8_t mode = in.u8();
    uint64_t w = 0;
    for (int c : a.cols)
        if (c >= 0) w += S.bufs[c].elems() * a.np * 4;
    if (!spend(w)) return;
    const uint64_t need = (uint64_t)a.np * a.ncols * (a.E <= 4 ? a.E : 4) * esize(a.field);
    Bytes out(need + 64, 0x2D);
    uint64_t size = out.size();
    if (mode % 4 == 1) size = need ? need - 1 : 0;
    void *outp = mode % 4 == 2 ? nullptr : out.data();
    Bytes big;
    const gp_ood_options *op = opts_ptr(a.os, a.o, big);
    const int st = CALL("gp_evaluate_ood", gp_evaluate_ood(mode == kNullCtx ? nullptr : S.ctx, a.hs.data(),
                                                           (uint32_t)a.hs.size(), op, a.points.data(), a.np, outp,
                                                           size));
    if (mode != kNullCtx && outp && size >= need && a.valid)
        EXPECT(st == GP_OK, "gp_evaluate_ood with valid arguments: %s", sname(st));
    if (st != GP_OK) return;
    EXPECT(a.valid && mode != kNullCtx && outp && size >= need, "gp_evaluate_ood with invalid arguments succeeded");
    for (uint64_t i = need; i < out.size(); ++i) EXPECT(out[i] == 0x2D, "gp_evaluate_ood wrote past its output");
}

void op_deep(Input &in) {
    trace("deep_composition");
    OodArgs a;
    sel_ood(in, a);
    const uint8_t vm = in.u8();
    const uint8_t omode = in.u8();
    const uint8_t mode = in.u8();
    Rng rng{in.u32()};
    uint64_t w = 0;
    for (int c : a.cols)
        if (c >= 0) w += S.bufs[c].elems() * a.np * 8;
    if (!spend(w)) return;
    const uint64_t nw = (uint64_t)a.np * a.ncols * (a.E <= 4 ? a.E : 4);
    Bytes values = random_elems(rng, a.field, nw), alphas = random_elems(rng, a.field, nw);
    const bool zero_alpha = vm % 4 == 1;
    if (zero_alpha) std::fill(alphas.begin(), alphas.end(), 0);
    if (vm % 4 == 2 && nw) set_el(values.data(), esize(a.field), 0, finfo(a.field)->p);
    Bytes big;
    const gp_ood_options *op = opts_ptr(a.os, a.o, big);
    if (vm % 4 == 3 && nw) {  // the values gp_evaluate_ood gives
        const int st = CALL("gp_evaluate_ood", gp_evaluate_ood(S.ctx, a.hs.data(), (uint32_t)a.hs.size(), op,
                                                               a.points.data(), a.np, values.data(), values.size()));
        if (st != GP_OK) values = random_elems(rng, a.field, nw);
    }
    // The output: a new matching column (0, 1), an existing buffer (2), one
    // of the inputs (3).
    int dst = -1;
    gp_buffer *tmp = nullptr;
    const uint64_t M = a.cols[0] >= 0 ? S.bufs[a.cols[0]].rows : 4;
    if (omode % 4 == 2) dst = pick_buf(in);
    else if (omode % 4 == 3) dst = a.cols[0];
    else if (ext_ok(a.field, a.E) && M <= 4096) dst = lde_output(0, a.field, a.E, M, 1, in, &tmp);
    gp_buffer *out = tmp ? tmp : hbuf(dst);
    const int st = CALL("gp_deep_composition",
                        gp_deep_composition(mode == kNullCtx ? nullptr : S.ctx, a.hs.data(), (uint32_t)a.hs.size(), op,
                                            a.points.data(), a.np, mode == kNullData ? nullptr : values.data(),
                                            alphas.data(), out));
    touch(dst);
    bool out_ok = out && !(omode % 4 == 3);
    if (dst >= 0) {
        const Buf &b = S.bufs[dst];
        for (int c : a.cols) out_ok &= c != dst;
        out_ok &= b.field == a.field && b.ext == a.E && b.cols == 1 && b.rows == M;
    }
    const bool ok = a.valid && out_ok && mode != kNullCtx && mode != kNullData && vm % 4 != 2;
    if (ok) EXPECT(st == GP_OK, "gp_deep_composition with valid arguments: %s", sname(st));
    if (st == GP_OK) {
        EXPECT(ok, "gp_deep_composition with invalid arguments succeeded");
        if (zero_alpha) {
            Bytes d(M * a.E * esize(a.field), 0xFF);
            EXPECT(CALL("gp_buffer_to_host", gp_buffer_to_host(out, GP_LAYOUT_ROW_MAJOR, d.data(), d.size())) == GP_OK);
            for (uint8_t x : d) EXPECT(x == 0, "DEEP composition with zero coefficients is not zero");
        }
    }
    gp_buffer_destroy(tmp);
}

void op_constraint(Input &in) {
    trace("constraint_commit");
    bool valid = true;
    const int slot = pick_buf(in);
    const int field = slot >= 0 ? S.bufs[slot].field : GP_FIELD_GOLDILOCKS;
    const OptSel os = sel_opts(in, sizeof(gp_constraint_options), &valid);
    gp_constraint_options o;
    gp_constraint_options_init(&o);
    const uint8_t sb = in.u8();
    set_enum(o.split, sb < 0xF0 ? sb % 3 : (sb % 2 ? 3 : -1));
    const uint8_t db = in.u8();
    o.segments = db < 0xF0 ? 1u << (db % 5) : (db % 2 ? 0 : 3);
    const uint8_t bb = in.u8();
    o.blowup = bb < 0xF0 ? 1u << (bb % 6) : (bb % 2 ? 0 : 64);
    o.shift = sel_shift(in, field, &valid);
    set_enum(o.output_order, sel_order(in, &valid));
    sel_merkle(in, field, o.merkle, &valid);
    const uint8_t mode = in.u8();
    if (slot >= 0) {
        const Buf &b = S.bufs[slot];
        // Bound the work: the segment LDEs are rows * blowup elements.
        if (is_pow2(o.blowup) && b.rows * o.blowup * b.ext > 16384) o.blowup = 1;
        if (!spend(b.rows * o.blowup * b.ext * 16)) return;
    }
    Bytes big;
    const gp_constraint_options *op = opts_ptr(os, o, big);
    gp_buffer *seg = reinterpret_cast<gp_buffer *>(&S);
    gp_merkle_tree *tree = reinterpret_cast<gp_merkle_tree *>(&S);
    const int st = CALL("gp_constraint_commit",
                        gp_constraint_commit(mode == kNullCtx ? nullptr : S.ctx, hbuf(slot), op,
                                             mode == kNullOut ? nullptr : &seg, mode == kNullData ? nullptr : &tree));
    if (mode == kNullCtx || mode == kNullOut || mode == kNullData || slot < 0) {
        EXPECT(st == GP_ERR_NULL_POINTER, "gp_constraint_commit with a NULL pointer: %s", sname(st));
        return;
    }
    if (st != GP_OK) {
        EXPECT(seg == nullptr && tree == nullptr, "a failed gp_constraint_commit left a handle");
        return;
    }
    const gp_constraint_options eff = effective(os, o, gp_constraint_options_init);
    const Buf &ev = S.bufs[slot];
    EXPECT(eff.segments && ev.rows % eff.segments == 0, "gp_constraint_commit with %u segments of %llu rows",
           eff.segments, (unsigned long long)ev.rows);
    const uint64_t N = ev.rows / eff.segments;
    // The segments buffer is a new handle of the harness; the tree commits it.
    if (free_buf_slot() < 0) {  // no slot to keep them: the tree goes before its matrix
        gp_merkle_tree_destroy(tree);
        gp_buffer_destroy(seg);
        return;
    }
    const int s = adopt_buf(seg, ev.field, ev.ext, N * eff.blowup, eff.segments);
    OptSel mos{OPT_EXACT, sizeof(gp_merkle_options)};
    const int t = adopt_tree(tree, mos, eff.merkle, ev.field, {s});
    if (t >= 0 && mode % 2) merkle_check(t, in);
}

void op_context(Input &in) {
    trace("context");
    const uint8_t what = in.u8();
    const uint8_t arg = in.u8();
    switch (what % 12) {
        case 0: {
            gp_memory_stats st;
            std::memset(&st, 0xEE, sizeof st);
            static const uint32_t sizes[] = {sizeof(gp_memory_stats), 4, 12, 0, 5000, sizeof(gp_memory_stats)};
            st.struct_size = sizes[arg % 6];
            const int r = CALL("gp_context_memory_stats",
                               gp_context_memory_stats(arg == kNullCtx ? nullptr : S.ctx, arg == kNullOut ? nullptr : &st));
            if (arg == kNullCtx || arg == kNullOut) {
                EXPECT(r == GP_ERR_NULL_POINTER, "gp_context_memory_stats with NULL: %s", sname(r));
                break;
            }
            EXPECT((r == GP_OK) == (st.struct_size >= 4 && st.struct_size <= 4096), "memory stats: %s", sname(r));
            if (r == GP_OK && st.struct_size == sizeof st) {
                uint64_t mine = 0;
                bool fri_live = false;
                for (const Buf &b : S.bufs)
                    if (b.live) mine += b.bytes();
                for (const Fri &f : S.fris) fri_live |= f.live;
                if (!fri_live)
                    EXPECT(st.buffer_bytes == mine, "buffer_bytes %llu, live buffers hold %llu",
                           (unsigned long long)st.buffer_bytes, (unsigned long long)mine);
                else
                    EXPECT(st.buffer_bytes >= mine, "buffer_bytes %llu < %llu", (unsigned long long)st.buffer_bytes,
                           (unsigned long long)mine);
            }
            break;
        }
        case 1: {
            const int r = CALL("gp_context_trim", gp_context_trim(arg == kNullCtx ? nullptr : S.ctx));
            EXPECT((r == GP_OK) == (arg != kNullCtx), "gp_context_trim: %s", sname(r));
            break;
        }
        case 2: {
            char name[80];
            std::memset(name, 0x7F, sizeof name);
            static const size_t sizes[] = {64, 1, 0, 8, 80};
            const size_t n = sizes[arg % 5];
            const int r = CALL("gp_context_device_name",
                               gp_context_device_name(arg == kNullCtx ? nullptr : S.ctx, arg == kNullOut ? nullptr : name, n));
            if (r == GP_OK) {
                EXPECT(n > 0 && std::memchr(name, 0, n) != nullptr, "gp_context_device_name did not terminate");
                for (size_t i = n; i < sizeof name; ++i) EXPECT(name[i] == 0x7F, "gp_context_device_name wrote past size");
            } else {
                EXPECT(n == 0 || arg == kNullCtx || arg == kNullOut, "gp_context_device_name: %s", sname(r));
            }
            EXPECT((int)gp_context_backend(S.ctx) == GP_BACKEND_CPU && (int)gp_context_backend(nullptr) == GP_BACKEND_AUTO,
                   "gp_context_backend");
            break;
        }
        case 3: {
            bool valid = true;
            const int field = sel_field(in, &valid);
            uint64_t p = 0, g = 0;
            uint32_t ta = 0;
            const int r = CALL("gp_field_info", gp_field_info((gp_field)field, arg & 1 ? nullptr : &p,
                                                              arg & 2 ? nullptr : &g, arg & 4 ? nullptr : &ta));
            EXPECT((r == GP_OK) == valid, "gp_field_info(%d): %s", field, sname(r));
            EXPECT(gp_field_element_size((gp_field)field) == (valid ? esize(field) : 0), "gp_field_element_size(%d)",
                   field);
            if (r == GP_OK && !(arg & 7)) {
                const FieldInfo &fi = *finfo(field);
                EXPECT(p == fi.p && g == fi.gen && ta == fi.two_adicity, "gp_field_info(%d)", field);
            }
            break;
        }
        case 4: {
            bool valid = true;
            const int field = sel_field(in, &valid);
            const uint32_t log_n = arg % 40;
            uint64_t root = 0;
            const int r = CALL("gp_field_two_adic_generator",
                               gp_field_two_adic_generator((gp_field)field, log_n, arg >= 0xF0 ? nullptr : &root));
            if (arg >= 0xF0 || !valid) {
                EXPECT(r != GP_OK, "gp_field_two_adic_generator(%d, NULL) succeeded", field);
                break;
            }
            const FieldInfo &fi = *finfo(field);
            EXPECT((r == GP_OK) == (log_n <= fi.two_adicity), "gp_field_two_adic_generator(%d, %u): %s", field,
                   log_n, sname(r));
            if (r == GP_OK) {
                EXPECT(root < fi.p && powmod(root, 1ull << log_n, fi.p) == 1 &&
                           (log_n == 0 || powmod(root, 1ull << (log_n - 1), fi.p) == fi.p - 1),
                       "the 2^%u-th root of field %d has the wrong order", log_n, field);
            }
            break;
        }
        case 5: {
            const int v = arg < 0xF0 ? arg % 20 : (arg % 2 ? -1 : 0x7fffffff);
            const char *name = gp_status_name((gp_status)v);
            EXPECT(name != nullptr, "gp_status_name(%d) is NULL", v);
            const bool unknown = std::strcmp(name, "GP_ERR_UNKNOWN") == 0;
            if (v >= GP_OK && v <= GP_ERR_VERIFY_FAILED) EXPECT(!unknown && std::strncmp(name, "GP_", 3) == 0,
                                                               "gp_status_name(%d) = %s", v, name);
            if (v < 0 || v >= 256) EXPECT(unknown, "gp_status_name(%d) = %s", v, name);
            break;
        }
        case 6: {
            EXPECT(gp_version() != nullptr && gp_version_number() == GP_VERSION_NUMBER, "version");
            char want[32];
            std::snprintf(want, sizeof want, "%d.%d.%d", GP_VERSION_MAJOR, GP_VERSION_MINOR, GP_VERSION_PATCH);
            EXPECT(std::strcmp(gp_version(), want) == 0, "gp_version() = %s", gp_version());
            break;
        }
        case 7: {
            // Option initializers accept NULL; shape queries give 0 for NULL.
            gp_context_options_init(nullptr);
            gp_ntt_options_init(nullptr);
            gp_lde_options_init(nullptr);
            gp_merkle_options_init(nullptr);
            gp_fri_options_init(nullptr);
            gp_constraint_options_init(nullptr);
            gp_ood_options_init(nullptr);
            gp_commit_options_init(nullptr);
            EXPECT(gp_buffer_rows(nullptr) == 0 && gp_buffer_cols(nullptr) == 0 && gp_buffer_ext_degree(nullptr) == 0 &&
                       gp_buffer_size_bytes(nullptr) == 0 && (int)gp_buffer_field(nullptr) == 0,
                   "shape queries of a NULL buffer");
            gp_buffer_destroy(nullptr);
            gp_merkle_tree_destroy(nullptr);
            gp_fri_destroy(nullptr);
            gp_context_destroy(nullptr);
            break;
        }
        case 8: {
            // Another context: options validation, and a create/destroy pair.
            gp_context_options o;
            gp_context_options_init(&o);
            static const int backends[] = {GP_BACKEND_CPU, GP_BACKEND_CUDA, 3, -1, GP_BACKEND_AUTO};
            set_enum(o.backend, backends[arg % 5]);
            o.cpu_threads = 1;
            int32_t dev = 0;
            if (arg & 0x10) o.num_devices = 1, o.devices = arg & 0x20 ? nullptr : &dev;
            if (arg & 0x40) o.struct_size = arg & 0x80 ? 0 : 5000;
            gp_context *c = reinterpret_cast<gp_context *>(&S);
            const int r = CALL("gp_context_create", gp_context_create(&o, arg == kNullOut ? nullptr : &c));
            if (r == GP_OK) {
                EXPECT(c && (int)gp_context_backend(c) == GP_BACKEND_CPU, "a new context");
                gp_context_destroy(c);
            } else if (arg != kNullOut) {
                EXPECT(c == nullptr, "a failed gp_context_create left a handle");
            }
            break;
        }
        case 9: {
            // Buffer queries of a live buffer.
            const int slot = pick_buf(in);
            if (slot < 0) break;
            const Buf &b = S.bufs[slot];
            EXPECT(gp_buffer_rows(b.h) == b.rows && gp_buffer_cols(b.h) == b.cols && gp_buffer_ext_degree(b.h) == b.ext &&
                       (int)gp_buffer_field(b.h) == b.field && gp_buffer_size_bytes(b.h) == b.bytes(),
                   "shape queries of buffer %d", slot);
            break;
        }
        default: {
            // Permutation info of any value.
            const int perm = arg < 0xF0 ? arg % 16 : -(int)(arg % 4);
            uint32_t w = 0;
            const int r = CALL("gp_permutation_info", gp_permutation_info((gp_permutation)perm, &w, nullptr));
            EXPECT((r == GP_OK) == (perm_info(perm).width != 0), "gp_permutation_info(%d): %s", perm, sname(r));
            break;
        }
    }
}

// Entry points given a buffer of another context.
void op_foreign(Input &in) {
    trace("foreign");
    const uint8_t what = in.u8();
    gp_buffer *fb = nullptr;
    EXPECT(CALL("gp_buffer_create", gp_buffer_create(S.foreign, GP_FIELD_GOLDILOCKS, 1, 4, 1, &fb)) == GP_OK);
    const gp_buffer *fbs[1] = {fb};
    const int slot = pick_buf(in);
    int st = GP_OK;
    switch (what % 8) {
        case 0: st = CALL("gp_ntt_batch", gp_ntt_batch(S.ctx, fb, nullptr)); break;
        case 1: st = CALL("gp_lde_batch", gp_lde_batch(S.ctx, fb, nullptr, hbuf(slot))); break;
        case 2: {
            if (slot < 0) break;
            st = CALL("gp_lde_batch", gp_lde_batch(S.ctx, hbuf(slot), nullptr, fb));
            break;
        }
        case 3: {
            gp_merkle_tree *t = nullptr;
            st = CALL("gp_merkle_commit", gp_merkle_commit(S.ctx, fbs, 1, nullptr, &t));
            EXPECT(t == nullptr, "a foreign commit returned a tree");
            break;
        }
        case 4: {
            gp_fri *f = nullptr;
            st = CALL("gp_fri_begin", gp_fri_begin(S.ctx, fb, nullptr, nullptr, 0, &f));
            EXPECT(f == nullptr, "a foreign FRI begin returned a handle");
            break;
        }
        case 5: {
            gp_buffer *seg = nullptr;
            gp_merkle_tree *t = nullptr;
            st = CALL("gp_constraint_commit", gp_constraint_commit(S.ctx, fb, nullptr, &seg, &t));
            EXPECT(seg == nullptr && t == nullptr, "a foreign constraint commit returned handles");
            break;
        }
        case 6: {
            uint64_t z[3] = {5, 6, 7}, out[3];
            st = CALL("gp_evaluate_ood", gp_evaluate_ood(S.ctx, fbs, 1, nullptr, z, 1, out, sizeof out));
            break;
        }
        default: {
            if (slot < 0) break;
            uint64_t z[4] = {5, 6, 7, 8};
            Bytes v(S.bufs[slot].cols * 4 * 8, 0);
            st = CALL("gp_deep_composition",
                      gp_deep_composition(S.ctx, fbs, 1, nullptr, z, 1, v.data(), v.data(), hbuf(slot)));
            break;
        }
    }
    if (!(what % 8 == 2 || what % 8 == 7) || slot >= 0)
        EXPECT(st != GP_OK, "an entry point accepted a buffer of another context");
    touch(slot);
    gp_buffer_destroy(fb);
    gp_memory_stats ms;
    ms.struct_size = sizeof ms;
    EXPECT(CALL("gp_context_memory_stats", gp_context_memory_stats(S.foreign, &ms)) == GP_OK && ms.buffer_bytes == 0,
           "the other context holds %llu buffer bytes", (unsigned long long)ms.buffer_bytes);
}

/* ------------------------------------------------------------------------ */
/* Interop: wrapped memory, addresses, streams, DLPack                      */
/* ------------------------------------------------------------------------ */

// Reads buffer memory in the buffer layout (base column j at j * rows) into
// row-major order.
Bytes layout_to_row_major(const uint8_t *m, uint64_t rows, uint64_t base_cols, uint32_t esz) {
    Bytes out(rows * base_cols * esz);
    for (uint64_t j = 0; j < base_cols; ++j)
        for (uint64_t r = 0; r < rows; ++r) std::memcpy(&out[(r * base_cols + j) * esz], &m[(j * rows + r) * esz], esz);
    return out;
}

void *alloc_aligned(uint64_t bytes) {
    void *p = nullptr;
    if (posix_memalign(&p, 64, bytes ? bytes : 1) != 0) die("posix_memalign(%llu)", (unsigned long long)bytes);
    return p;
}

void interop_wrap(Input &in) {
    bool valid = true, size_valid = true, huge = false;
    const int field = sel_field(in, &valid);
    const uint32_t ext = sel_ext(in, field, &valid);
    uint64_t rows = sel_rows(in, &size_valid, &huge);
    uint64_t cols = sel_cols(in, &size_valid, &huge);
    const uint8_t mode = in.u8();
    const uint32_t esz = esize(field);
    uint64_t total;
    bool wraps = __builtin_mul_overflow(rows, cols, &total) || __builtin_mul_overflow(total, (uint64_t)ext, &total) ||
                 __builtin_mul_overflow(total, (uint64_t)esz, &total);
    // The library reads what the shape says: only sizes that overflow, or
    // that this array holds, are passed.
    if (huge && !wraps) rows = 1, cols = 1, size_valid = true, huge = false;
    valid = valid && size_valid;
    const uint32_t e = ext <= 4 ? ext : 4;
    const uint64_t count = huge || !rows || !cols ? 1 : rows * cols * (e ? e : 1);
    bool canonical = true;
    const Bytes data = gen_elems(in, finfo(field) ? field : 0, count, &canonical);
    if (free_buf_slot() < 0) return;
    uint8_t *mem = static_cast<uint8_t *>(alloc_aligned(data.size() + 8));
    std::memcpy(mem, data.data(), data.size());
    const bool misaligned = mode == 0x0F;
    void *dp = mode == kNullData ? nullptr : (misaligned ? mem + 1 : mem);
    if (misaligned) std::memmove(mem + 1, mem, data.size());
    gp_buffer *h = reinterpret_cast<gp_buffer *>(&S);
    gp_context *ctx = mode == kNullCtx ? nullptr : S.ctx;
    const int st = CALL("gp_buffer_wrap", gp_buffer_wrap(ctx, (gp_field)field, ext, rows, cols, dp,
                                                         mode == kNullOut ? nullptr : &h));
    if (!ctx || !dp || mode == kNullOut) {
        EXPECT(st == GP_ERR_NULL_POINTER, "gp_buffer_wrap with a NULL pointer: %s", sname(st));
        std::free(mem);
        return;
    }
    if (st != GP_OK) {
        EXPECT(h == nullptr, "a failed gp_buffer_wrap left a handle");
        if (valid && !misaligned)
            EXPECT(!canonical && st == GP_ERR_NON_CANONICAL, "gp_buffer_wrap of valid arguments: %s", sname(st));
        std::free(mem);
        return;
    }
    EXPECT(valid && canonical && !misaligned, "gp_buffer_wrap succeeded (valid %d, canonical %d, misaligned %d)",
           valid, canonical, misaligned);
    const int slot = adopt_buf(h, field, ext, rows, cols);
    Buf &b = S.bufs[slot];
    b.wrapped = mem;
    b.shadow = layout_to_row_major(mem, rows, cols * ext, esz);
    b.known = true;
    void *addr = nullptr;
    EXPECT(CALL("gp_buffer_data", gp_buffer_data(h, &addr)) == GP_OK && addr == mem,
           "gp_buffer_data of a wrapped buffer is %p, not the wrapped memory %p", addr, (void *)mem);
    read_buf(slot);
}

void interop_data(Input &in) {
    const int slot = pick_buf(in);
    const uint8_t mode = in.u8();
    void *addr = nullptr;
    const int st = CALL("gp_buffer_data", gp_buffer_data(hbuf(slot), mode == kNullOut ? nullptr : &addr));
    if (slot < 0 || mode == kNullOut) {
        EXPECT(st == GP_ERR_NULL_POINTER, "gp_buffer_data with NULL: %s", sname(st));
        return;
    }
    EXPECT(st == GP_OK && addr != nullptr, "gp_buffer_data: %s", sname(st));
    const Buf &b = S.bufs[slot];
    if (b.known)
        EXPECT(layout_to_row_major(static_cast<const uint8_t *>(addr), b.rows, b.cols * b.ext, esize(b.field)) ==
                   b.shadow,
               "the memory gp_buffer_data gives does not hold the buffer in the documented layout");
}

void interop_to_dlpack(Input &in) {
    const int slot = pick_buf(in);
    const uint8_t mode = in.u8();
    DLManagedTensor *t = reinterpret_cast<DLManagedTensor *>(&S);
    const int st = CALL("gp_buffer_to_dlpack", gp_buffer_to_dlpack(hbuf(slot), mode == kNullOut ? nullptr : &t));
    if (slot < 0 || mode == kNullOut) {
        EXPECT(st == GP_ERR_NULL_POINTER, "gp_buffer_to_dlpack with NULL: %s", sname(st));
        return;
    }
    EXPECT(st == GP_OK && t != nullptr, "gp_buffer_to_dlpack: %s", sname(st));
    const Buf &b = S.bufs[slot];
    void *addr = nullptr;
    EXPECT(CALL("gp_buffer_data", gp_buffer_data(b.h, &addr)) == GP_OK);
    const DLTensor &x = t->dl_tensor;
    EXPECT(x.data == addr && x.ndim == 2 && x.shape && x.shape[0] == (int64_t)(b.cols * b.ext) &&
               x.shape[1] == (int64_t)b.rows && (!x.strides || (x.strides[0] == (int64_t)b.rows && x.strides[1] == 1)) &&
               x.dtype.code == kDLUInt && x.dtype.bits == 8 * esize(b.field) && x.dtype.lanes == 1 &&
               x.device.device_type == kDLCPU && x.byte_offset == 0,
           "the DLPack export of buffer %d", slot);
    if (b.known)
        EXPECT(layout_to_row_major(static_cast<const uint8_t *>(x.data), b.rows, b.cols * b.ext, esize(b.field)) ==
                   b.shadow,
               "the DLPack export does not hold the buffer's values");
    EXPECT(t->deleter != nullptr, "a DLPack export without a deleter");
    t->deleter(t);
}

void interop_from_dlpack(Input &in) {
    bool valid = true;
    const int field = sel_field(in, &valid);
    const uint32_t ext = sel_ext(in, field, &valid);
    const uint64_t rows = 1ull << (in.u8() % 9);
    const uint64_t base_cols = 1 + in.u8() % 8;
    const uint8_t form = in.u8();
    const uint8_t mode = in.u8();
    const uint32_t esz = esize(field);
    bool canonical = true;
    const Bytes data = gen_elems(in, finfo(field) ? field : 0, rows * base_cols, &canonical);
    if (free_buf_slot() < 0) return;
    auto *d = new DlImport();
    const uint64_t offset = form & 0x40 ? esz * (1 + form % 3) : (form & 0x80 ? 1 : 0);
    if (offset % esz) valid = false;
    d->mem = alloc_aligned(offset + data.size());
    std::memcpy(static_cast<uint8_t *>(d->mem) + offset, data.data(), data.size());
    DLTensor &x = d->t.dl_tensor;
    x.data = d->mem;
    x.byte_offset = offset;
    x.device = DLDevice{kDLCPU, 0};
    x.dtype = DLDataType{kDLUInt, (uint8_t)(8 * esz), 1};
    uint64_t rows_out = rows, cols_out = base_cols;
    switch (form % 8) {
        case 0:  // one column
            x.ndim = 1;
            d->shape[0] = (int64_t)(rows * base_cols);
            rows_out = rows * base_cols;
            cols_out = 1;
            break;
        case 1:  // 2-D, compact strides given
            x.ndim = 2;
            d->shape[0] = (int64_t)base_cols, d->shape[1] = (int64_t)rows;
            d->strides[0] = (int64_t)rows, d->strides[1] = 1;
            x.strides = d->strides;
            break;
        case 2:  // 2-D, row-major strides: not the buffer layout
            x.ndim = 2;
            d->shape[0] = (int64_t)base_cols, d->shape[1] = (int64_t)rows;
            d->strides[0] = 1, d->strides[1] = (int64_t)base_cols;
            x.strides = d->strides;
            if (rows > 1 || base_cols > 1) valid = false;
            break;
        case 3:  // three dimensions
            x.ndim = 3;
            d->shape[0] = 1, d->shape[1] = (int64_t)base_cols, d->shape[2] = (int64_t)rows;
            valid = false;
            break;
        case 4:  // an empty or negative shape
            x.ndim = 2;
            d->shape[0] = form & 0x10 ? 0 : -1, d->shape[1] = (int64_t)rows;
            valid = false;
            break;
        case 5:  // another element type or device
            x.ndim = 2;
            d->shape[0] = (int64_t)base_cols, d->shape[1] = (int64_t)rows;
            if (form & 0x10) x.dtype.bits = esz == 8 ? 32 : 64;
            else if (form & 0x20) x.dtype.code = kDLInt;
            else x.device = DLDevice{kDLCUDA, 0};
            valid = false;
            break;
        default:  // 2-D, strides NULL
            x.ndim = 2;
            d->shape[0] = (int64_t)base_cols, d->shape[1] = (int64_t)rows;
            break;
    }
    x.shape = d->shape;
    d->t.manager_ctx = d;
    d->t.deleter = dl_deleter;
    if (ext_ok(field, ext) && cols_out % ext) valid = false;
    gp_buffer *h = reinterpret_cast<gp_buffer *>(&S);
    gp_context *ctx = mode == kNullCtx ? nullptr : S.ctx;
    const int st = CALL("gp_buffer_from_dlpack",
                        gp_buffer_from_dlpack(ctx, (gp_field)field, ext, mode == kNullData ? nullptr : &d->t,
                                              mode == kNullOut ? nullptr : &h));
    if (st != GP_OK) {
        EXPECT(d->deleted == 0, "a failed gp_buffer_from_dlpack called the deleter");
        if (ctx && mode != kNullOut && mode != kNullData) {
            EXPECT(h == nullptr, "a failed gp_buffer_from_dlpack left a handle");
            if (valid)
                EXPECT(!canonical && st == GP_ERR_NON_CANONICAL, "gp_buffer_from_dlpack of a valid tensor: %s",
                       sname(st));
        } else {
            EXPECT(st == GP_ERR_NULL_POINTER, "gp_buffer_from_dlpack with NULL: %s", sname(st));
        }
        dl_free(d);
        return;
    }
    EXPECT(valid && canonical, "gp_buffer_from_dlpack succeeded (valid %d, canonical %d, form %d)", valid, canonical,
           form % 8);
    const int slot = adopt_buf(h, field, ext, rows_out, cols_out / ext);
    Buf &b = S.bufs[slot];
    b.dl = d;
    b.shadow = layout_to_row_major(static_cast<const uint8_t *>(d->mem) + offset, rows_out, cols_out, esz);
    b.known = true;
    read_buf(slot);
}

void op_interop(Input &in) {
    trace("interop");
    const uint8_t what = in.u8();
    switch (what % 5) {
        case 0: interop_wrap(in); break;
        case 1: interop_data(in); break;
        case 2: interop_to_dlpack(in); break;
        case 3: interop_from_dlpack(in); break;
        default: {
            const uint8_t mode = in.u8();
            void *stream = mode % 2 ? reinterpret_cast<void *>(&S) : nullptr;
            const int st = CALL("gp_context_set_stream",
                                gp_context_set_stream(mode == kNullCtx ? nullptr : S.ctx, stream));
            if (mode == kNullCtx) EXPECT(st != GP_OK, "gp_context_set_stream(NULL) succeeded");
            else if (stream) EXPECT(st == GP_ERR_UNSUPPORTED, "a stream on the CPU backend: %s", sname(st));
            else EXPECT(st == GP_OK, "gp_context_set_stream(NULL stream): %s", sname(st));
            break;
        }
    }
}

/* ------------------------------------------------------------------------ */
/* Cancellation, progress, log, counters                                    */
/* ------------------------------------------------------------------------ */

struct Monitor {
    std::thread::id main_thread;
    uint64_t progress_calls = 0, log_lines = 0;
    std::string last_line;
    bool reenter = false;  // the progress callback calls the library on its own context
} M;

void on_progress(void *user, const char *stage, uint64_t done, uint64_t total) {
    if (user != &M) die("the progress callback got user %p", user);
    if (std::this_thread::get_id() != M.main_thread) die("the progress callback ran on another thread");
    if (!stage || !stage[0]) die("the progress callback got no stage");
    if (done > total) die("progress of stage %s: %llu of %llu", stage, (unsigned long long)done,
                          (unsigned long long)total);
    M.progress_calls++;
    if (M.reenter) {
        // Refused, the call in progress unaffected (the oracles after it
        // check its result); the context and the other contexts go on.
        const int st = CALL("gp_context_trim", gp_context_trim(S.ctx));
        if (st != GP_ERR_INVALID_ARGUMENT || !std::strstr(gp_last_error(), "progress callback"))
            die("a call on the context from its progress callback: %s \"%s\"", sname(st), gp_last_error());
        gp_context_destroy(S.ctx);  // refused as well
        if ((int)gp_context_backend(S.ctx) != GP_BACKEND_CPU) die("the progress callback destroyed its context");
        if (CALL("gp_context_trim", gp_context_trim(S.foreign)) != GP_OK) die("another context from a callback");
    }
}

void on_log(void *user, const char *line) {
    if (user != &M) die("the log callback got user %p", user);
    if (std::this_thread::get_id() != M.main_thread) die("the log callback ran on another thread");
    if (!line || std::strncmp(line, "gp_", 3) != 0) die("log line \"%s\"", line ? line : "(null)");
    M.log_lines++;
    M.last_line = line;
}

gp_counters read_counters() {
    gp_counters c;
    std::memset(&c, 0, sizeof c);
    c.struct_size = sizeof c;
    EXPECT(CALL("gp_context_counters", gp_context_counters(S.ctx, &c)) == GP_OK);
    EXPECT(c.failed_calls <= c.calls, "counters: %llu failed of %llu calls", (unsigned long long)c.failed_calls,
           (unsigned long long)c.calls);
    return c;
}

void op_monitor(Input &in) {
    trace("monitor");
    const uint8_t what = in.u8();
    const uint8_t arg = in.u8();
    switch (what % 6) {
        case 0: {
            // Cancelling an idle context does nothing; the next call runs.
            int st = CALL("gp_context_cancel", gp_context_cancel(arg == kNullCtx ? nullptr : S.ctx));
            if (arg == kNullCtx) {
                EXPECT(st != GP_OK, "gp_context_cancel(NULL) succeeded");
                break;
            }
            EXPECT(st == GP_OK, "gp_context_cancel: %s", sname(st));
            st = CALL("gp_context_trim", gp_context_trim(S.ctx));
            EXPECT(st == GP_OK, "a call after cancelling an idle context: %s", sname(st));
            break;
        }
        case 1: {
            const int st = CALL("gp_context_set_progress",
                                gp_context_set_progress(arg == kNullCtx ? nullptr : S.ctx, arg % 2 ? on_progress : nullptr,
                                                        &M));
            EXPECT((st == GP_OK) == (arg != kNullCtx), "gp_context_set_progress: %s", sname(st));
            if (st == GP_OK) M.reenter = (arg & 5) == 5;
            break;
        }
        case 2: {
            const int st = CALL("gp_context_set_log", gp_context_set_log(arg == kNullCtx ? nullptr : S.ctx,
                                                                         arg % 2 ? on_log : nullptr, &M));
            EXPECT((st == GP_OK) == (arg != kNullCtx), "gp_context_set_log: %s", sname(st));
            break;
        }
        case 3: {
            // Counters grow with calls and failures; a reset zeroes them.
            gp_counters c;
            std::memset(&c, 0xEE, sizeof c);
            static const uint32_t sizes[] = {sizeof(gp_counters), 4, 12, 0, 5000, sizeof(gp_counters)};
            c.struct_size = sizes[arg % 6];
            int st = CALL("gp_context_counters",
                          gp_context_counters(S.ctx, arg == kNullOut ? nullptr : &c));
            if (arg == kNullOut || c.struct_size < 4 || c.struct_size > 4096) {
                EXPECT(st != GP_OK, "gp_context_counters with NULL or struct_size %u succeeded", c.struct_size);
                break;
            }
            EXPECT(st == GP_OK, "gp_context_counters: %s", sname(st));
            const gp_counters a = read_counters();
            char name[8];
            st = CALL("gp_context_device_name", gp_context_device_name(S.ctx, name, 0));  // fails
            EXPECT(st != GP_OK);
            const gp_counters b = read_counters();
            EXPECT(b.calls > a.calls && b.failed_calls > a.failed_calls, "counters after a failed call: %llu/%llu -> %llu/%llu",
                   (unsigned long long)a.calls, (unsigned long long)a.failed_calls, (unsigned long long)b.calls,
                   (unsigned long long)b.failed_calls);
            if (arg & 0x40) {
                EXPECT(CALL("gp_context_reset_counters", gp_context_reset_counters(S.ctx)) == GP_OK);
                const gp_counters z = read_counters();
                EXPECT(z.calls <= 1 && z.failed_calls == 0, "counters after a reset: %llu calls, %llu failed",
                       (unsigned long long)z.calls, (unsigned long long)z.failed_calls);
            }
            break;
        }
        case 4: {
            // Per-entry statistics: the count, then some or all entries.
            size_t n = 0;
            int st = CALL("gp_context_call_stats", gp_context_call_stats(S.ctx, nullptr, 0, &n));
            EXPECT(st == GP_OK, "gp_context_call_stats (count): %s", sname(st));
            const size_t cap = arg % 4 == 0 ? n + 2 : (arg % 4 == 1 ? n / 2 : (arg % 4 == 2 ? 0 : 1));
            std::vector<gp_call_stats> v(cap + 1);
            std::memset(v.data(), 0x5B, v.size() * sizeof(gp_call_stats));
            size_t m = 0;
            st = CALL("gp_context_call_stats",
                      gp_context_call_stats(S.ctx, cap ? v.data() : nullptr, cap, arg == kNullOut ? nullptr : &m));
            if (arg == kNullOut) {
                EXPECT(st != GP_OK, "gp_context_call_stats without a count pointer succeeded");
                break;
            }
            EXPECT(st == GP_OK && m >= n, "gp_context_call_stats: %s, %zu entries (%zu before)", sname(st), m, n);
            const size_t got = m < cap ? m : cap;
            for (size_t i = 0; i < got; ++i) {
                EXPECT(v[i].name && std::strncmp(v[i].name, "gp_", 3) == 0 && v[i].failed_calls <= v[i].calls,
                       "call stats entry %zu", i);
                if (i) EXPECT(std::strcmp(v[i - 1].name, v[i].name) < 0, "call stats not sorted by name at %zu", i);
            }
            const uint8_t *guard = reinterpret_cast<const uint8_t *>(&v[cap]);
            for (size_t i = 0; i < sizeof(gp_call_stats); ++i)
                EXPECT(guard[i] == 0x5B, "gp_context_call_stats wrote past its capacity %zu", cap);
            break;
        }
        default: {
            // One log line per finished call, naming the call and its status.
            EXPECT(CALL("gp_context_set_log", gp_context_set_log(S.ctx, on_log, &M)) == GP_OK);
            M.last_line.clear();
            EXPECT(CALL("gp_context_trim", gp_context_trim(S.ctx)) == GP_OK);
            EXPECT(M.last_line.rfind("gp_context_trim GP_OK", 0) == 0, "log line \"%s\" after gp_context_trim",
                   M.last_line.c_str());
            char name[8];
            const int st = CALL("gp_context_device_name", gp_context_device_name(S.ctx, name, 0));
            const std::string want = std::string("gp_context_device_name ") + sname(st);
            EXPECT(M.last_line.rfind(want, 0) == 0, "log line \"%s\" after a failed call", M.last_line.c_str());
            if (arg % 2 == 0)
                EXPECT(CALL("gp_context_set_log", gp_context_set_log(S.ctx, nullptr, nullptr)) == GP_OK);
            break;
        }
    }
}

/* ------------------------------------------------------------------------ */
/* One-call commitment of host traces, host memory, devices                 */
/* ------------------------------------------------------------------------ */

// The root and the opening (rows, paths) of index `idx` of a tree.
struct TreeView {
    Bytes root, rows, paths;
    uint64_t row_bytes = 0, path_bytes = 0;
};
TreeView view_tree(gp_merkle_tree *t, uint64_t idx, bool rows) {
    TreeView v;
    v.root.resize(gp_merkle_digest_size(t));
    EXPECT(CALL("gp_merkle_root", gp_merkle_root(t, v.root.data(), v.root.size())) == GP_OK);
    EXPECT(CALL("gp_merkle_opening_size", gp_merkle_opening_size(t, &v.row_bytes, &v.path_bytes)) == GP_OK);
    v.rows.resize(rows ? v.row_bytes : 0);
    v.paths.resize(v.path_bytes);
    const int st = CALL("gp_merkle_open", gp_merkle_open(t, &idx, 1, rows ? v.rows.data() : nullptr, v.rows.size(),
                                                          v.paths.data(), v.paths.size()));
    EXPECT(st == GP_OK, "gp_merkle_open of index %llu: %s", (unsigned long long)idx, sname(st));
    return v;
}

// gp_commit_host in every gp_keep mode, against gp_lde_batch_host into
// buffers then gp_merkle_commit of them (the header's definition): the same
// outcome, root, opening and LDE. With keep = GP_KEEP_DEVICE the LDE
// buffers and the tree join the input's handles; sometimes one buffer is
// destroyed first, after which the tree opens paths but refuses rows.
// Reads: mode, field, ext, count, per matrix (rows, cols, elements), keep,
// blowup, order, options mode, Merkle profile, index.
void op_commit_host(Input &in) {
    trace("commit_host");
    const uint8_t mode = in.u8();
    bool valid = true;
    const int field = sel_field(in, &valid);
    const uint32_t ext = sel_ext(in, field, &valid);
    const uint32_t count = 1 + in.u8() % 3;
    std::vector<gp_commit_matrix> mats(count);
    std::vector<Bytes> data(count);
    const uint32_t esz = esize(field);
    uint64_t work = 0;
    for (uint32_t i = 0; i < count; ++i) {
        const uint8_t rb = in.u8();
        gp_commit_matrix &m = mats[i];
        m.rows = 1ull << (rb % 6);
        m.cols = 1 + in.u8() % 3;
        m.ext_degree = ext;
        bool canonical = true;
        // An invalid degree is refused before the data is read: no array of
        // that many elements (it may be 2^32 - 1).
        const uint64_t held = ext <= 4 ? ext : 1;
        data[i] = gen_elems(in, field, m.rows * m.cols * held, &canonical);
        if (!canonical) valid = false;
        m.data = data[i].data();
        work += m.rows * m.cols * held;
    }
    const uint8_t kb = in.u8();
    const int keep = kb < 0xF0 ? kb % 3 : (kb % 2 ? 3 : -1);  // judged as the library reads it, below
    gp_lde_options lo;
    gp_lde_options_init(&lo);
    lo.blowup = 1u << (in.u8() % 3);
    set_enum(lo.output_order, in.u8() % 2);
    const OptSel os = sel_opts(in, sizeof(gp_commit_options), &valid);
    gp_merkle_options mo;
    bool merkle_known = true;  // whether the profile is one the harness can tell is valid
    sel_merkle(in, valid && finfo(field) ? field : GP_FIELD_GOLDILOCKS, mo, &merkle_known);
    const uint16_t iv = in.u16();
    if (!spend(work * lo.blowup * 8)) return;

    gp_commit_options o;
    gp_commit_options_init(&o);
    o.lde = &lo;
    o.merkle = &mo;
    set_enum(o.keep, keep);
    if (mode == 0xF4) o.device_budget = 1;  // below any working set
    Bytes big;
    const gp_commit_options *op = opts_ptr(os, o, big);
    // What the library reads (a short struct_size leaves defaults).
    const gp_commit_options eff = effective(os, o, gp_commit_options_init);
    const bool on_device = get_enum(eff.keep) == GP_KEEP_DEVICE;
    if (get_enum(eff.keep) < GP_KEEP_DEVICE || get_enum(eff.keep) > GP_KEEP_NONE) valid = false;
    const uint32_t blowup = eff.lde ? lo.blowup : 2;
    gp_merkle_options mo_eff;
    gp_merkle_options_init(&mo_eff);
    if (eff.merkle) mo_eff = mo;
    std::vector<Bytes> host(count);
    if (get_enum(eff.keep) == GP_KEEP_HOST)
        for (uint32_t i = 0; i < count; ++i) {
            const uint64_t bytes = mats[i].rows * blowup * mats[i].cols * (ext <= 4 ? ext : 1) * esz;
            host[i].assign(bytes + 64, 0xA5);
            mats[i].lde_host = host[i].data();
            mats[i].lde_host_bytes = bytes;
        }
    std::vector<gp_buffer *> out(count, reinterpret_cast<gp_buffer *>(&S));
    gp_merkle_tree *t = reinterpret_cast<gp_merkle_tree *>(&S);
    gp_context *ctx = mode == kNullCtx ? nullptr : S.ctx;
    const int st = CALL("gp_commit_host",
                        gp_commit_host(ctx, (gp_field)field, mode == kNullData ? nullptr : mats.data(), count, op,
                                       on_device ? out.data() : nullptr, mode == kNullOut ? nullptr : &t));
    if (!ctx || mode == kNullOut) {
        EXPECT(st == GP_ERR_NULL_POINTER, "gp_commit_host with a NULL pointer: %s", sname(st));
        return;
    }
    if (st != GP_OK) {
        EXPECT(t == nullptr, "a failed gp_commit_host left a tree");
        // lde_out is written once the options say it is an array (a known
        // struct_size, keep = GP_KEEP_DEVICE); until then it is not touched.
        const bool opts_ok = os.mode != OPT_SIZE || (os.size >= 4 && os.size <= 4096);
        if (on_device && opts_ok)
            for (gp_buffer *b : out) EXPECT(b == nullptr, "a failed gp_commit_host left an LDE buffer");
    }
    if (mode == kNullData || eff.device_budget != 0 || !valid) {  // a budget of 1 byte, if read
        EXPECT(st != GP_OK, "gp_commit_host with invalid arguments (mode %u) succeeded", mode);
        return;
    }

    // The reference: gp_lde_batch_host into buffers, gp_merkle_commit of them.
    std::vector<gp_buffer *> ref(count, nullptr);
    int rst = GP_OK;
    for (uint32_t i = 0; i < count && rst == GP_OK; ++i) {
        rst = CALL("gp_buffer_create", gp_buffer_create(S.ctx, (gp_field)field, ext, mats[i].rows * blowup,
                                                        mats[i].cols, &ref[i]));
        EXPECT(rst == GP_OK, "gp_buffer_create: %s", sname(rst));
        rst = CALL("gp_lde_batch_host", gp_lde_batch_host(S.ctx, (gp_field)field, ext, mats[i].data, mats[i].rows,
                                                          mats[i].cols, eff.lde, ref[i]));
        EXPECT(rst == GP_OK, "gp_lde_batch_host of a valid matrix: %s", sname(rst));
    }
    gp_merkle_tree *rt = nullptr;
    rst = CALL("gp_merkle_commit", gp_merkle_commit(S.ctx, ref.data(), count, &mo_eff, &rt));
    // gp_commit_host refuses Miden's LMCS (documented at GP_MERKLE_MIDEN_LMCS).
    const bool lmcs = get_enum(mo_eff.kind) == GP_MERKLE_MIDEN_LMCS;
    if (lmcs) EXPECT(st != GP_OK, "gp_commit_host of a GP_MERKLE_MIDEN_LMCS tree succeeded");
    else
        EXPECT((st == GP_OK) == (rst == GP_OK), "gp_commit_host: %s, gp_lde_batch_host + gp_merkle_commit: %s",
               sname(st), sname(rst));
    if (st == GP_OK && rst == GP_OK) {
        uint64_t H = 0;
        for (const gp_commit_matrix &m : mats) H = m.rows * blowup > H ? m.rows * blowup : H;
        const uint64_t idx = iv % H;
        const TreeView a = view_tree(t, idx, true), b = view_tree(rt, idx, true);
        EXPECT(a.root == b.root && a.rows == b.rows && a.paths == b.paths,
               "gp_commit_host (keep %d) and the composed calls differ at index %llu", get_enum(eff.keep),
               (unsigned long long)idx);
        for (uint32_t i = 0; i < count; ++i) {
            Bytes want(gp_buffer_size_bytes(ref[i]));
            EXPECT(CALL("gp_buffer_to_host", gp_buffer_to_host(ref[i], GP_LAYOUT_COL_MAJOR, want.data(),
                                                               want.size())) == GP_OK);
            if (get_enum(eff.keep) == GP_KEEP_HOST) {
                EXPECT(std::equal(want.begin(), want.end(), host[i].begin()),
                       "matrix %u's LDE in lde_host differs from gp_lde_batch_host's", i);
                for (size_t k = want.size(); k < host[i].size(); ++k)
                    EXPECT(host[i][k] == 0xA5, "gp_commit_host wrote past lde_host_bytes of matrix %u", i);
            } else if (on_device) {
                Bytes got(want.size());
                EXPECT(CALL("gp_buffer_to_host", gp_buffer_to_host(out[i], GP_LAYOUT_COL_MAJOR, got.data(),
                                                                   got.size())) == GP_OK);
                EXPECT(got == want, "matrix %u's LDE buffer differs from gp_lde_batch_host's", i);
            }
        }
        if (on_device && (mode & 0x40)) {
            // The caller destroys an LDE buffer the tree committed: rows are
            // a status, paths still come from the tree.
            gp_buffer_destroy(out[0]);
            out[0] = nullptr;
            Bytes r(a.row_bytes), pth(a.path_bytes);
            int s2 = CALL("gp_merkle_open", gp_merkle_open(t, &idx, 1, r.data(), r.size(), nullptr, 0));
            EXPECT(s2 == GP_ERR_INVALID_ARGUMENT, "opening rows of a destroyed matrix: %s", sname(s2));
            s2 = CALL("gp_merkle_open", gp_merkle_open(t, &idx, 1, nullptr, 0, pth.data(), pth.size()));
            EXPECT(s2 == GP_OK && pth == a.paths, "opening paths after a matrix was destroyed: %s", sname(s2));
        }
    }
    gp_merkle_tree_destroy(rt);
    for (gp_buffer *b : ref) gp_buffer_destroy(b);
    if (st != GP_OK) return;
    // Keep the tree and its LDE buffers as handles of the input.
    std::vector<int> slots;
    bool kept = on_device && out[0] != nullptr;
    for (uint32_t i = 0; kept && i < count; ++i) {
        const int slot = adopt_buf(out[i], field, ext, mats[i].rows * blowup, mats[i].cols);
        out[i] = nullptr;  // a slot's now, or destroyed by adopt_buf when none is free
        if (slot < 0) {
            kept = false;
            break;
        }
        slots.push_back(slot);
    }
    if (kept) {
        adopt_tree(t, OptSel{OPT_EXACT, (uint32_t)sizeof mo_eff}, mo_eff, field, slots);
        return;
    }
    gp_merkle_tree_destroy(t);
    for (int slot : slots) destroy_buf(slot);
    if (on_device)
        for (gp_buffer *b : out) gp_buffer_destroy(b);
}

// gp_host_alloc and gp_host_free: sizes (0, small, one that wraps), the
// memory used as a host input, frees of NULL, foreign, interior and freed
// pointers and on another context.
void op_host_mem(Input &in) {
    trace("host_mem");
    const uint8_t mode = in.u8();
    const uint8_t sb = in.u8();
    const size_t bytes = sb == 0 ? 0 : sb >= 0xF0 ? ~(size_t)0 - (sb % 8) : (size_t)sb * 64;
    void *p = reinterpret_cast<void *>(&S);
    int st = CALL("gp_host_alloc", gp_host_alloc(mode == kNullCtx ? nullptr : S.ctx, bytes,
                                                 mode == kNullOut ? nullptr : &p));
    if (mode == kNullCtx || mode == kNullOut) {
        EXPECT(st == GP_ERR_NULL_POINTER, "gp_host_alloc with NULL: %s", sname(st));
        return;
    }
    if (bytes == 0 || bytes > ((size_t)1 << 40)) {
        EXPECT(st != GP_OK && p == nullptr, "gp_host_alloc of %zu bytes: %s", bytes, sname(st));
        return;
    }
    EXPECT(st == GP_OK && p && reinterpret_cast<uintptr_t>(p) % 4096 == 0, "gp_host_alloc of %zu bytes: %s", bytes,
           sname(st));
    std::memset(p, 0, bytes);  // all of it is the caller's
    if (bytes >= 32) {
        // As host input: a Goldilocks column of bytes / 8 rows (rounded down to a power of two).
        uint64_t rows = 1;
        while (rows * 2 * 8 <= bytes) rows *= 2;
        static_cast<uint64_t *>(p)[0] = 7;
        gp_buffer *b = nullptr;
        st = CALL("gp_buffer_from_host", gp_buffer_from_host(S.ctx, GP_FIELD_GOLDILOCKS, 1, rows, 1,
                                                             GP_LAYOUT_COL_MAJOR, p, &b));
        EXPECT(st == GP_OK, "gp_buffer_from_host of gp_host_alloc memory: %s", sname(st));
        uint64_t first = 0;
        if (st == GP_OK && rows == 1)
            EXPECT(CALL("gp_buffer_to_host", gp_buffer_to_host(b, GP_LAYOUT_COL_MAJOR, &first, 8)) == GP_OK &&
                   first == 7);
        gp_buffer_destroy(b);
    }
    // Frees that are not of this allocation fail and change nothing.
    st = CALL("gp_host_free", gp_host_free(S.ctx, nullptr));
    EXPECT(st == GP_OK, "gp_host_free(NULL): %s", sname(st));
    st = CALL("gp_host_free", gp_host_free(S.ctx, static_cast<char *>(p) + 8));
    EXPECT(st == GP_ERR_INVALID_ARGUMENT, "gp_host_free of an interior pointer: %s", sname(st));
    st = CALL("gp_host_free", gp_host_free(S.ctx, &S));
    EXPECT(st == GP_ERR_INVALID_ARGUMENT, "gp_host_free of harness memory: %s", sname(st));
    st = CALL("gp_host_free", gp_host_free(S.foreign, p));
    EXPECT(st == GP_ERR_INVALID_ARGUMENT, "gp_host_free on another context: %s", sname(st));
    st = CALL("gp_host_free", gp_host_free(nullptr, p));
    EXPECT(st == GP_ERR_NULL_POINTER, "gp_host_free(NULL context): %s", sname(st));
    st = CALL("gp_host_free", gp_host_free(S.ctx, p));
    EXPECT(st == GP_OK, "gp_host_free: %s", sname(st));
    st = CALL("gp_host_free", gp_host_free(S.ctx, p));
    EXPECT(st == GP_ERR_INVALID_ARGUMENT, "gp_host_free twice: %s", sname(st));
}

// gp_context_device_count, gp_context_device_info (indices, struct_size
// values, NULLs; what it writes stays within struct_size),
// gp_context_remote_fallback and gp_context_cpu_fallback.
void op_devices(Input &in) {
    trace("devices");
    const uint8_t mode = in.u8();
    const uint8_t arg = in.u8();
    EXPECT(gp_context_device_count(S.ctx) == 1 && gp_context_device_count(nullptr) == 0,
           "gp_context_device_count of a CPU context: %u", gp_context_device_count(S.ctx));
    EXPECT(gp_context_remote_fallback(S.ctx) == nullptr && gp_context_remote_fallback(nullptr) == nullptr,
           "gp_context_remote_fallback of a CPU context");
    EXPECT(gp_context_cpu_fallback(S.ctx) == nullptr && gp_context_cpu_fallback(nullptr) == nullptr,
           "gp_context_cpu_fallback of a context created with GP_BACKEND_CPU");
    static const uint32_t sizes[] = {sizeof(gp_device_info), 4, 12, 0, 5000, sizeof(gp_device_info) + 16, 140};
    const uint32_t size = sizes[arg % 7];
    const uint32_t index = mode % 4 == 3 ? 1 + (arg >> 4) : 0;
    Bytes mem(sizeof(gp_device_info) + 64, 0x6B);
    gp_device_info *info = reinterpret_cast<gp_device_info *>(mem.data());
    info->struct_size = size;
    const int st = CALL("gp_context_device_info",
                        gp_context_device_info(mode == kNullCtx ? nullptr : S.ctx, index,
                                               mode == kNullOut ? nullptr : info));
    if (mode == kNullCtx || mode == kNullOut) {
        EXPECT(st == GP_ERR_NULL_POINTER, "gp_context_device_info with NULL: %s", sname(st));
        return;
    }
    const bool ok = index == 0 && size >= 4 && size <= 4096;
    EXPECT((st == GP_OK) == ok, "gp_context_device_info(index %u, struct_size %u): %s", index, size, sname(st));
    if (st != GP_OK) return;
    EXPECT(info->struct_size == size, "gp_context_device_info changed struct_size");
    const size_t written = size < sizeof(gp_device_info) ? size : sizeof(gp_device_info);
    for (size_t i = written; i < mem.size(); ++i)
        EXPECT(mem[i] == 0x6B, "gp_context_device_info wrote byte %zu past struct_size %u", i, size);
    if (size >= sizeof(gp_device_info)) {
        char name[128];
        EXPECT(CALL("gp_context_device_name", gp_context_device_name(S.ctx, name, sizeof name)) == GP_OK);
        EXPECT(info->ordinal == -1 && std::memchr(info->name, 0, sizeof info->name) &&
                   std::strcmp(info->name, name) == 0 && info->free_bytes == 0 && info->total_bytes == 0,
               "gp_context_device_info of the CPU: ordinal %d, name \"%.128s\"", info->ordinal, info->name);
        gp_memory_stats ms;
        ms.struct_size = sizeof ms;
        EXPECT(CALL("gp_context_memory_stats", gp_context_memory_stats(S.ctx, &ms)) == GP_OK);
        EXPECT(info->buffer_bytes == ms.buffer_bytes, "device buffer_bytes %llu, context %llu",
               (unsigned long long)info->buffer_bytes, (unsigned long long)ms.buffer_bytes);
    }
}

// A constraint program (well formed, or broken in one of the ways the
// library names) over one of the harness's buffers, and its quotient into
// a fresh buffer. A well-formed program is created; a broken one never is;
// a well-formed evaluation succeeds.
void op_quotient(Input &in) {
    trace("quotient");
    const int slot = pick_buf(in);
    const int field = slot >= 0 ? S.bufs[slot].field : GP_FIELD_GOLDILOCKS;
    const uint8_t eb = in.u8();
    const uint32_t ext = field == GP_FIELD_GOLDILOCKS ? 1 + eb % 3 : (eb % 2 ? 4 : 1);
    const uint32_t width = slot >= 0 ? (uint32_t)std::min<uint64_t>(S.bufs[slot].cols, 64) : 1;
    bool valid = true;
    std::vector<gp_cp_node> nodes;
    const uint32_t nn = in.u8() % 24;
    for (uint32_t i = 0; i < nn; ++i) {
        const uint8_t k = in.u8();
        gp_cp_node n{};
        if (i == 0 || k % 3 == 0) {
            n.op = width && k % 2 ? GP_CP_MAIN : (k % 5 == 0 ? GP_CP_IS_TRANSITION : GP_CP_CONST);
            if (n.op == GP_CP_MAIN) n.a = in.u8() % width, n.b = (k >> 3) & 1;
        } else {
            const uint32_t ops[4] = {GP_CP_ADD, GP_CP_SUB, GP_CP_MUL, GP_CP_NEG};
            n.op = ops[k % 4];
            n.a = in.u8() % i;
            n.b = in.u8() % i;
        }
        switch (in.u8()) {
            case 0xFF: n.op = 0, valid = false; break;                      // no op
            case 0xFE: n.op = GP_CP_ADD, n.a = i, n.b = 0, valid = false; break;  // a cycle
            case 0xFD: n.op = GP_CP_MAIN, n.a = width, valid = false; break;      // past the width
            case 0xFC: n.op = GP_CP_MAIN, n.a = 0, n.b = 2, valid = false; break; // row offset 2
            default: break;
        }
        nodes.push_back(n);
    }
    Rng rng{in.u32()};
    Bytes constants = random_elems(rng, field, 1);
    if (in.u8() == 0xFF) set_el(constants.data(), esize(field), 0, finfo(field)->p), valid = false;
    std::vector<uint32_t> cons;
    const uint32_t nc = nn ? in.u8() % 5 : 0;
    for (uint32_t j = 0; j < nc; ++j) cons.push_back(in.u8() % nn);
    if (nn && in.u8() == 0xFF) cons.push_back(nn), valid = false;
    gp_constraint_program_desc d;
    gp_constraint_program_desc_init(&d);
    d.field = (gp_field)field;
    d.ext_degree = ext;
    d.main_width = width;
    d.nodes = nodes.data();
    d.node_count = (uint32_t)nodes.size();
    d.constants = constants.data();
    d.constant_count = 1;
    d.constraints = cons.data();
    d.constraint_count = (uint32_t)cons.size();
    gp_constraint_program *prog = reinterpret_cast<gp_constraint_program *>(&S);
    const int st = CALL("gp_constraint_program_create", gp_constraint_program_create(&d, &prog));
    EXPECT((st == GP_OK) == valid, "gp_constraint_program_create of a %s program: %s", valid ? "valid" : "broken", sname(st));
    if (st != GP_OK) {
        EXPECT(prog == nullptr, "a failed gp_constraint_program_create left a handle");
        return;
    }
    gp_constraint_program_info info;
    info.struct_size = sizeof info;
    EXPECT(CALL("gp_constraint_program_get_info", gp_constraint_program_get_info(prog, &info)) == GP_OK,
           "gp_constraint_program_get_info of a live program");
    EXPECT(info.constraints == nc && info.nodes <= nn, "program info: %llu constraints of %u, %llu nodes of %u",
           (unsigned long long)info.constraints, nc, (unsigned long long)info.nodes, nn);
    if (slot >= 0) {
        const Buf &b = S.bufs[slot];
        const bool shape_ok = b.ext == 1 && b.rows && (b.rows & (b.rows - 1)) == 0 && b.cols == width && width;
        if (shape_ok && spend(b.rows * (nn + nc + 1) * 16)) {
            const uint32_t log_q = (uint32_t)__builtin_ctzll(b.rows);
            gp_quotient_options o;
            gp_quotient_options_init(&o);
            o.log_quotient_rows = log_q;
            o.log_trace_rows = log_q - (log_q ? in.u8() % 2 : 0);
            o.order = in.u8() % 2 ? GP_ORDER_NATURAL : GP_ORDER_BIT_REVERSED;
            o.main = b.h;
            Bytes alpha = random_elems(rng, field, ext);
            o.alpha = alpha.data();
            gp_buffer *out = nullptr;
            if (CALL("gp_buffer_create", gp_buffer_create(S.ctx, (gp_field)field, ext, b.rows, 1, &out)) == GP_OK) {
                const int qs = CALL("gp_quotient_evaluate", gp_quotient_evaluate(S.ctx, prog, &o, out));
                EXPECT(qs == GP_OK, "gp_quotient_evaluate with valid arguments: %s", sname(qs));
                gp_buffer_destroy(out);
            }
        }
    }
    gp_constraint_program_destroy(prog);
    gp_constraint_program_destroy(prog);  // a dead handle: a no-op
}

using Op = void (*)(Input &);
const Op kOps[] = {
    op_buffer_create,  op_buffer_from_host, op_buffer_to_host, op_buffer_destroy,   op_ntt,
    op_ntt_roundtrip,  op_lde,              op_lde_host,       op_permute,          op_merkle_commit,
    op_merkle_hash_rows, op_merkle_query,   op_merkle_open,    op_merkle_verify_raw, op_tree_destroy,
    op_fri_begin,      op_fri_begin_host,   op_fri_fold,       op_fri_remainder,    op_fri_open,
    op_fri_verify_raw, op_fri_commit,       op_fri_destroy,    op_fri_run,          op_ood,
    op_deep,           op_constraint,       op_context,        op_foreign,          op_interop,
    op_monitor,        op_commit_host,      op_host_mem,       op_devices,          op_quotient,
};
constexpr int kNumOps = sizeof kOps / sizeof kOps[0];

/* ------------------------------------------------------------------------ */
/* Per input                                                                */
/* ------------------------------------------------------------------------ */

// A fixed LDE; its output bytes.
Bytes canary_lde() {
    const uint64_t data[4] = {1, 2, 3, 4};
    gp_buffer *in = nullptr, *out = nullptr;
    int st = CALL("gp_buffer_from_host",
                  gp_buffer_from_host(S.ctx, GP_FIELD_GOLDILOCKS, 1, 4, 1, GP_LAYOUT_COL_MAJOR, data, &in));
    EXPECT(st == GP_OK, "the context stopped working: gp_buffer_from_host: %s", sname(st));
    st = CALL("gp_buffer_create", gp_buffer_create(S.ctx, GP_FIELD_GOLDILOCKS, 1, 8, 1, &out));
    EXPECT(st == GP_OK, "the context stopped working: gp_buffer_create: %s", sname(st));
    st = CALL("gp_lde_batch", gp_lde_batch(S.ctx, in, nullptr, out));
    EXPECT(st == GP_OK, "the context stopped working: gp_lde_batch: %s", sname(st));
    Bytes r(8 * 8);
    st = CALL("gp_buffer_to_host", gp_buffer_to_host(out, GP_LAYOUT_COL_MAJOR, r.data(), r.size()));
    EXPECT(st == GP_OK, "the context stopped working: gp_buffer_to_host: %s", sname(st));
    gp_buffer_destroy(in);
    gp_buffer_destroy(out);
    return r;
}

void init() {
    g_trace = std::getenv("GP_FUZZ_TRACE") && std::getenv("GP_FUZZ_TRACE")[0] == '1';
    gp_context_options o;
    gp_context_options_init(&o);
    o.backend = GP_BACKEND_CPU;
    const char *t = std::getenv("GP_FUZZ_THREADS");
    o.cpu_threads = t ? (uint32_t)std::atoi(t) : 1;
    if (o.cpu_threads == 0) o.cpu_threads = 1;
    if (gp_context_create(&o, &S.ctx) != GP_OK) die("gp_context_create: %s", gp_last_error());
    o.cpu_threads = 1;
    if (gp_context_create(&o, &S.foreign) != GP_OK) die("gp_context_create: %s", gp_last_error());
    S.canary_out = canary_lde();
    M.main_thread = std::this_thread::get_id();
}

void finish_input() {
    // Callbacks set by the input end with it.
    EXPECT(CALL("gp_context_set_progress", gp_context_set_progress(S.ctx, nullptr, nullptr)) == GP_OK);
    M.reenter = false;
    EXPECT(CALL("gp_context_set_log", gp_context_set_log(S.ctx, nullptr, nullptr)) == GP_OK);
    for (int t = 0; t < kMaxTrees; ++t) destroy_tree(t);
    for (int f = 0; f < kMaxFris; ++f) destroy_fri(f);
    for (int b = 0; b < kMaxBufs; ++b) destroy_buf(b);
    for (const Buf &b : S.bufs) EXPECT(!b.live, "a buffer slot is still live");
    gp_memory_stats ms;
    ms.struct_size = sizeof ms;
    int st = CALL("gp_context_memory_stats", gp_context_memory_stats(S.ctx, &ms));
    EXPECT(st == GP_OK && ms.buffer_bytes == 0, "after destroying every handle, buffer_bytes = %llu",
           (unsigned long long)ms.buffer_bytes);
    EXPECT(canary_lde() == S.canary_out, "the fixed LDE at the end of the input changed its result");
    st = CALL("gp_context_trim", gp_context_trim(S.ctx));
    EXPECT(st == GP_OK);
    st = CALL("gp_context_memory_stats", gp_context_memory_stats(S.ctx, &ms));
    EXPECT(st == GP_OK && ms.buffer_bytes == 0 && ms.cache_bytes == 0, "after trim: buffer_bytes %llu, cache_bytes %llu",
           (unsigned long long)ms.buffer_bytes, (unsigned long long)ms.cache_bytes);
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
    if (!S.ctx) init();
    Input in{data, size};
    S.work = 0;
    for (int n = 0; n < kMaxOps && !in.done(); ++n) kOps[in.u8() % kNumOps](in);
    finish_input();
    return 0;
}
