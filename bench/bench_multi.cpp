// SPDX-License-Identifier: MIT OR Apache-2.0
// The issue workloads on contexts that own several devices (Google
// Benchmark): every workload is registered once per device configuration,
// checked bit for bit against the first configuration, and summarised with
// its speedup over the first single-device configuration.
//
// Options (read and removed before Google Benchmark sees the command line):
//   --devices=LISTS     device configurations separated by ';', each a
//                       comma-separated list of device ordinals (an ordinal
//                       may repeat: shares of one GPU) or `all`
//                       (GP_DEVICES_ALL). Quote it in a shell:
//                       --devices='0;0,1;all'. Default '0;all' (cuda),
//                       '0;0,0' (cpu). `server:ENDPOINT` is a session on
//                       the gpuprover-server at ENDPOINT (GP_BACKEND_REMOTE):
//                       --devices='0;server:/tmp/gpu-prover.sock'.
//   --backend=cuda|cpu  default cuda; cpu runs the same split and exchange
//                       over emulated devices (one per list entry), for
//                       smoke tests.
//   --scale=N           divides every shape's trace rows by 2^N (quick runs).
//   --big               also runs BIG and HUGE.
//
// Workloads (bit-reversed LDE output, Plonky3's order, as gp_bench):
//   W1_lde      Goldilocks 2^20 x 256, B=4: gp_lde_batch from a
//               device-resident input buffer into an output buffer.
//   W2_keccak   Goldilocks 2^20 x 256, B=4: trace in pinned host memory ->
//               gp_lde_batch_host -> gp_merkle_commit (Keccak-256, Plonky3)
//               -> gp_merkle_root, as gp_bench's BM_Workload_CUDA.
//   W3_p2gl12   the same with Poseidon2 Goldilocks w12 (rate 8, digest 4).
//   W4_p2kb16   KoalaBear 2^22 x 128, B=2, Poseidon2 KoalaBear w16 (rate 8,
//               digest 8).
//   BIG_p2gl12  (--big) Goldilocks 2^22 x 1024, B=4, as W3: 32 GiB of trace,
//               128 GiB of LDE, for several GPUs; where it does not fit, the
//               failed allocation's status skips it.
//   HUGE_p2gl12 (--big) as BIG with 1280 columns: 160 GiB of LDE, more than
//               one 80 GB or 141 GB GPU holds.
//
// Timing: real time per iteration (every call returns after its device
// work), after an untimed warm-up call, in ms. Counters: devices
// (gp_context_device_count), bytes_per_second (W1: input + output bytes; the
// others: host trace + LDE bytes), items_per_second (LDE rows).
//
// Verification, once per workload and configuration, outside the timing:
// W1's output is downloaded and digested column by column; the others'
// Merkle roots are compared byte for byte (on a difference, their LDE is
// downloaded too, to say whether the LDE or the commitment differs). The
// first configuration that runs a workload is its reference. A difference
// fails the benchmark (SkipWithError) and the exit status.
//
// Run: ./gp_bench_multi --devices='0;0,1' [--benchmark_filter=W3]
//      ./gp_bench_multi --backend=cpu --devices='0;0,0;0,0,0' --scale=8
#include <benchmark/benchmark.h>
#include <unistd.h>

#include <algorithm>
#include <atomic>
#include <cinttypes>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <map>
#include <memory>
#include <new>
#include <string>
#include <thread>
#include <tuple>
#include <type_traits>
#include <utility>
#include <vector>

#include "bench_util.h"
#include "gpuprover.h"
#ifdef GP_HAVE_CUDA
#include <cuda_runtime.h>
#endif

using namespace gpb;

namespace {

// ---------------------------------------------------------------------------
// Command line

struct Config {
    std::string label;             // "devs:0,1", "devs:all"
    std::vector<int32_t> devices;  // {GP_DEVICES_ALL} for `all`
    std::string endpoint;          // server:ENDPOINT (GP_BACKEND_REMOTE)
    bool single() const { return endpoint.empty() && devices.size() == 1 && devices[0] != GP_DEVICES_ALL; }
    bool all() const { return devices.size() == 1 && devices[0] == GP_DEVICES_ALL; }
};

struct Options {
    gp_backend backend = GP_BACKEND_CUDA;
    std::vector<Config> configs;
    uint32_t scale = 0;
    bool big = false;
} g_opt;

void usage(FILE *f) {
    std::fprintf(f,
                 "gp_bench_multi options (besides Google Benchmark's):\n"
                 "  --devices=LISTS     configurations separated by ';', each a comma-separated\n"
                 "                      list of device ordinals or 'all'; quote it in a shell:\n"
                 "                      --devices='0;0,1;all' (default '0;all', cpu: '0;0,0')\n"
                 "  --backend=cuda|cpu  default cuda; cpu emulates one device per list entry\n"
                 "  --scale=N           divide every shape's rows by 2^N\n"
                 "  --big               also run BIG and HUGE (Goldilocks 2^22 x 1024 and x 1280, B=4, Poseidon2 w12)\n");
}

std::string trim(const std::string &s) {
    size_t b = s.find_first_not_of(" \t"), e = s.find_last_not_of(" \t");
    return b == std::string::npos ? std::string() : s.substr(b, e - b + 1);
}

bool parse_devices(const std::string &spec, std::vector<Config> &out, std::string &err) {
    size_t start = 0;
    while (start <= spec.size()) {
        size_t end = spec.find(';', start);
        if (end == std::string::npos) end = spec.size();
        const std::string item = trim(spec.substr(start, end - start));
        start = end + 1;
        if (item.empty()) continue;
        Config c;
        if (item.rfind("server:", 0) == 0) {  // a gpuprover-server session
            c.endpoint = item.substr(7);
            c.label = "server";
        } else if (item == "all") {
            c.devices = {GP_DEVICES_ALL};
            c.label = "devs:all";
        } else {
            size_t p = 0;
            while (p <= item.size()) {
                size_t q = item.find(',', p);
                if (q == std::string::npos) q = item.size();
                const std::string tok = trim(item.substr(p, q - p));
                p = q + 1;
                char *endp = nullptr;
                const long v = tok.empty() ? -1 : std::strtol(tok.c_str(), &endp, 10);
                if (tok.empty() || *endp != '\0' || v < 0 || v > 4095) {
                    err = "bad device ordinal '" + tok + "' in '" + item + "' (want ordinals >= 0 or 'all')";
                    return false;
                }
                c.devices.push_back((int32_t)v);
            }
            c.label = "devs:";
            for (size_t i = 0; i < c.devices.size(); ++i)
                c.label += (i ? "," : "") + std::to_string(c.devices[i]);
        }
        bool dup = false;
        for (const Config &o : out) dup = dup || o.label == c.label;
        if (dup)
            std::fprintf(stderr, "gp_bench_multi: configuration %s listed twice; running it once\n", c.label.c_str());
        else
            out.push_back(c);
    }
    if (out.empty()) {
        err = "no device configuration in '" + spec + "'";
        return false;
    }
    return true;
}

// Google Benchmark 1.8 takes --benchmark_min_time=0.5s (and 100x); older
// versions a bare number of seconds. Detected by State::SkipWithMessage,
// which came with the suffixes.
template <class S, class = void>
struct HasSkipWithMessage : std::false_type {};
template <class S>
struct HasSkipWithMessage<S, std::void_t<decltype(std::declval<S &>().SkipWithMessage(std::string()))>>
    : std::true_type {};
constexpr bool kMinTimeTakesSuffix = HasSkipWithMessage<benchmark::State>::value;

// ---------------------------------------------------------------------------
// Workloads

enum class Kind { Lde, Commit };

struct Workload {
    const char *name;
    Kind kind;
    gp_field field;
    uint32_t log_n;  // before --scale
    uint64_t cols;
    uint32_t blowup;
    gp_merkle_kind mkind;
    gp_permutation perm;
    uint32_t rate, digest;
    bool opt_in;  // --big
};

const Workload kWorkloads[] = {
    {"W1_lde", Kind::Lde, GP_FIELD_GOLDILOCKS, 20, 256, 4, GP_MERKLE_FIELD_SPONGE, GP_PERM_POSEIDON2_GOLDILOCKS_8, 0, 0,
     false},
    {"W2_keccak", Kind::Commit, GP_FIELD_GOLDILOCKS, 20, 256, 4, GP_MERKLE_KECCAK_PLONKY3, GP_PERM_KECCAK_F1600, 0, 0,
     false},
    {"W3_p2gl12", Kind::Commit, GP_FIELD_GOLDILOCKS, 20, 256, 4, GP_MERKLE_FIELD_SPONGE,
     GP_PERM_POSEIDON2_GOLDILOCKS_12, 8, 4, false},
    {"W4_p2kb16", Kind::Commit, GP_FIELD_KOALABEAR, 22, 128, 2, GP_MERKLE_FIELD_SPONGE,
     GP_PERM_POSEIDON2_KOALABEAR_16, 8, 8, false},
    {"BIG_p2gl12", Kind::Commit, GP_FIELD_GOLDILOCKS, 22, 1024, 4, GP_MERKLE_FIELD_SPONGE,
     GP_PERM_POSEIDON2_GOLDILOCKS_12, 8, 4, true},
    // 160 GiB of LDE: more than one H100 or H200 holds.
    {"HUGE_p2gl12", Kind::Commit, GP_FIELD_GOLDILOCKS, 22, 1280, 4, GP_MERKLE_FIELD_SPONGE,
     GP_PERM_POSEIDON2_GOLDILOCKS_12, 8, 4, true},
};
constexpr size_t kNumWorkloads = sizeof kWorkloads / sizeof kWorkloads[0];

uint32_t log_rows(const Workload &w) { return w.log_n > g_opt.scale + 2 ? w.log_n - g_opt.scale : 2; }

std::string bench_name(const Workload &w, const Config &c) { return std::string(w.name) + "/" + c.label; }

gp_merkle_options merkle_options(const Workload &w) { return gpb::merkle_profile(w.mkind, w.perm, w.rate, w.digest); }

// ---------------------------------------------------------------------------
// Failures: every failing gp_* call is reported with its status and
// gp_last_error(), read right after the call.

std::string failure(const char *call, gp_status s) {
    return std::string(call) + " failed: " + gp_status_name(s) + ": " + gp_last_error();
}

bool ok(gp_status s, const char *call, std::string &err) {
    if (s == GP_OK) return true;
    err = failure(call, s);
    return false;
}

std::map<std::string, std::string> g_failures;  // benchmark name -> first message
std::map<std::string, std::string> g_verdicts;  // benchmark name -> "" (identical) or the mismatch
bool g_mismatch = false;

void fail(benchmark::State &st, const std::string &name, const std::string &msg) {
    g_failures.emplace(name, msg);
    st.SkipWithError(msg.c_str());
}

// ---------------------------------------------------------------------------
// Host-side helpers: parallel fill and digests

template <class Fn>
void parallel_for(uint64_t count, Fn &&fn) {
    uint64_t t = std::max(1u, std::thread::hardware_concurrency());
    t = std::min<uint64_t>(t, count);
    std::atomic<uint64_t> next{0};
    auto worker = [&] {
        for (uint64_t i; (i = next.fetch_add(1)) < count;) fn(i);
    };
    std::vector<std::thread> threads;
    for (uint64_t k = 1; k < t; ++k) threads.emplace_back(worker);
    worker();
    for (auto &th : threads) th.join();
}

// fill_trace in chunks of 2^20 elements, each with its own seed: the same
// trace whatever the number of threads.
void fill_parallel(void *dst, gp_field f, uint64_t count, uint64_t seed) {
    const uint64_t chunk = 1ull << 20, es = gp_field_element_size(f);
    parallel_for((count + chunk - 1) / chunk, [&](uint64_t i) {
        const uint64_t len = std::min(chunk, count - i * chunk);
        fill_trace(static_cast<unsigned char *>(dst) + i * chunk * es, f, len, seed * 0x9e3779b97f4a7c15ull + i);
    });
}

inline uint64_t mix64(uint64_t z) {
    z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
    z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
    return z ^ (z >> 31);
}

// A 64-bit digest of each column of a column-major download.
std::vector<uint64_t> column_digests(const unsigned char *data, uint64_t rows, uint64_t cols, uint32_t es) {
    std::vector<uint64_t> d(cols);
    const uint64_t col_bytes = rows * es;
    parallel_for(cols, [&](uint64_t c) {
        const unsigned char *p = data + c * col_bytes;
        uint64_t h = mix64(0x243f6a8885a308d3ull ^ c), i = 0;
        for (; i + 8 <= col_bytes; i += 8) {
            uint64_t w;
            std::memcpy(&w, p + i, 8);
            h = mix64(h ^ w) + i;
        }
        for (; i < col_bytes; ++i) h = mix64(h ^ p[i]);
        d[c] = h;
    });
    return d;
}

std::string hex(const std::vector<unsigned char> &b) {
    static const char *digits = "0123456789abcdef";
    std::string s;
    for (unsigned char c : b) {
        s += digits[c >> 4];
        s += digits[c & 15];
    }
    return s;
}

std::string gib(double bytes) {
    char s[32];
    if (bytes >= 1024.0 * 1024 * 1024)
        std::snprintf(s, sizeof s, "%.2f GiB", bytes / (1024.0 * 1024 * 1024));
    else
        std::snprintf(s, sizeof s, "%.2f MiB", bytes / (1024.0 * 1024));
    return s;
}

// ---------------------------------------------------------------------------
// Host traces (pinned on the CUDA backend), made once per shape

struct HostTrace {
    void *data = nullptr;
    uint64_t bytes = 0;
    bool pinned = false;
    std::string error;
};
std::map<std::tuple<int, uint32_t, uint64_t>, HostTrace> g_traces;

const HostTrace &host_trace(gp_field f, uint32_t log_n, uint64_t cols) {
    HostTrace &t = g_traces[std::make_tuple((int)f, log_n, cols)];
    if (t.data || !t.error.empty()) return t;
    const uint64_t count = (1ull << log_n) * cols;
    t.bytes = count * gp_field_element_size(f);
#ifdef GP_HAVE_CUDA
    if (g_opt.backend == GP_BACKEND_CUDA) {
        // Portable: pinned for every device's copy engine.
        const cudaError_t e = cudaHostAlloc(&t.data, t.bytes, cudaHostAllocPortable);
        if (e == cudaSuccess) {
            t.pinned = true;
        } else {
            t.data = nullptr;
            cudaGetLastError();
            std::fprintf(stderr, "gp_bench_multi: cudaHostAlloc(%s) failed (%s); using pageable memory\n",
                         gib((double)t.bytes).c_str(), cudaGetErrorString(e));
        }
    }
#endif
    if (!t.data) t.data = ::operator new((size_t)t.bytes, std::nothrow);
    if (!t.data) {
        t.error = "host allocation of the trace (" + gib((double)t.bytes) + ") failed";
        return t;
    }
    fill_parallel(t.data, f, count, 7);
    return t;
}

void free_traces() {
    for (auto &kv : g_traces) {
        HostTrace &t = kv.second;
        if (!t.data) continue;
#ifdef GP_HAVE_CUDA
        if (t.pinned) {
            cudaFreeHost(t.data);
            continue;
        }
#endif
        ::operator delete(t.data);
    }
    g_traces.clear();
}

// ---------------------------------------------------------------------------
// One context per configuration, made on first use

struct CtxEntry {
    gp_context *ctx = nullptr;
    std::string error;
};
std::map<std::string, CtxEntry> g_contexts;

void describe(const Config &c, gp_context *ctx) {
    const uint32_t n = gp_context_device_count(ctx);
    std::fprintf(stderr, "gp_bench_multi: %s: %u device%s\n", c.label.c_str(), n, n == 1 ? "" : "s");
    for (uint32_t i = 0; i < n; ++i) {
        gp_device_info info;
        std::memset(&info, 0, sizeof info);
        info.struct_size = sizeof info;
        const gp_status s = gp_context_device_info(ctx, i, &info);
        if (s != GP_OK) {
            std::fprintf(stderr, "  [%u] %s\n", i, failure("gp_context_device_info", s).c_str());
            continue;
        }
        std::fprintf(stderr, "  [%u] ordinal %d, %s%s\n", i, info.ordinal, info.name,
                     info.total_bytes ? (", " + gib((double)info.total_bytes) + " total").c_str() : "");
    }
}

gp_context *context_for(const Config &c, std::string &err) {
    auto it = g_contexts.find(c.label);
    if (it == g_contexts.end()) {
        CtxEntry e;
        gp_context_options o;
        gp_context_options_init(&o);
        o.backend = g_opt.backend;
        o.devices = c.devices.data();
        o.num_devices = (uint32_t)c.devices.size();
        if (!c.endpoint.empty()) {
            o.backend = GP_BACKEND_REMOTE;
            o.endpoint = c.endpoint.c_str();
            o.devices = nullptr;
            o.num_devices = 0;
        }
        const gp_status s = gp_context_create(&o, &e.ctx);
        if (s != GP_OK) {
            e.error = failure(("gp_context_create(" + c.label + ")").c_str(), s);
            e.ctx = nullptr;
        } else {
            describe(c, e.ctx);
        }
        it = g_contexts.emplace(c.label, e).first;
    }
    err = it->second.error;
    return it->second.ctx;
}

// Where a buffer's bytes went, once per benchmark: shows the split.
void log_split(const std::string &name, gp_context *ctx) {
    std::string line = "gp_bench_multi: " + name + ": buffers per device:";
    const uint32_t n = gp_context_device_count(ctx);
    for (uint32_t i = 0; i < n; ++i) {
        gp_device_info info;
        std::memset(&info, 0, sizeof info);
        info.struct_size = sizeof info;
        const gp_status s = gp_context_device_info(ctx, i, &info);
        line += " [" + std::to_string(i) + "] " +
                (s == GP_OK ? gib((double)info.buffer_bytes) : failure("gp_context_device_info", s));
    }
    std::fprintf(stderr, "%s\n", line.c_str());
}

// ---------------------------------------------------------------------------
// References: the first configuration that runs a workload

struct LdeRef {
    std::string config;
    std::vector<uint64_t> digests;
};
// (field, log_n, cols, blowup) -> digests of the bit-reversed LDE. W1, W2 and
// W3 share one shape, hence one reference.
std::map<std::tuple<int, uint32_t, uint64_t, uint32_t>, LdeRef> g_lde_refs;

struct RootRef {
    std::string config;
    std::vector<unsigned char> root;
};
std::map<std::string, RootRef> g_root_refs;  // workload -> root

// LDEs larger than this are not downloaded (BIG's 128 GiB).
constexpr uint64_t kMaxDownload = 16ull << 30;

enum class Check { Identical, Recorded, Differs, Error };

// Downloads `buf` (an LDE of workload `w`) and compares its column digests
// with the reference, or records them as the reference.
Check check_lde(const Workload &w, const Config &c, const gp_buffer *buf, std::string &msg) {
    const auto key = std::make_tuple((int)w.field, log_rows(w), w.cols, w.blowup);
    const uint64_t rows = gp_buffer_rows(buf), cols = gp_buffer_cols(buf), bytes = gp_buffer_size_bytes(buf);
    std::unique_ptr<unsigned char[]> host(new (std::nothrow) unsigned char[bytes]);
    if (!host) {
        msg = "host allocation for the LDE download (" + gib((double)bytes) + ") failed";
        return Check::Error;
    }
    const gp_status s = gp_buffer_to_host(buf, GP_LAYOUT_COL_MAJOR, host.get(), bytes);
    if (s != GP_OK) {
        msg = failure("gp_buffer_to_host", s);
        return Check::Error;
    }
    std::vector<uint64_t> d = column_digests(host.get(), rows, cols, gp_field_element_size(w.field));
    auto it = g_lde_refs.find(key);
    if (it == g_lde_refs.end()) {
        g_lde_refs[key] = {c.label, std::move(d)};
        return Check::Recorded;
    }
    uint64_t differ = 0, first = 0;
    for (uint64_t i = 0; i < cols; ++i)
        if (d[i] != it->second.digests[i] && differ++ == 0) first = i;
    if (differ == 0) return Check::Identical;
    msg = "LDE output differs from " + it->second.config + "'s in " + std::to_string(differ) + " of " +
          std::to_string(cols) + " columns (first: column " + std::to_string(first) + ")";
    return Check::Differs;
}

// The Merkle root of workload `w` against the reference; on a difference the
// LDE is checked too, to say which step differs.
Check check_root(const Workload &w, const Config &c, const std::vector<unsigned char> &root, const gp_buffer *lde,
                 std::string &msg) {
    const bool small = gp_buffer_size_bytes(lde) <= kMaxDownload;
    const auto key = std::make_tuple((int)w.field, log_rows(w), w.cols, w.blowup);
    auto it = g_root_refs.find(w.name);
    if (it == g_root_refs.end()) {
        g_root_refs[w.name] = {c.label, root};
        // Keep the LDE's digests for explaining a later difference.
        if (small && !g_lde_refs.count(key)) {
            const Check k = check_lde(w, c, lde, msg);
            if (k == Check::Error) return k;
        }
        return Check::Recorded;
    }
    if (root == it->second.root) return Check::Identical;
    msg = "Merkle root differs from " + it->second.config + "'s (" + hex(root) + " vs " + hex(it->second.root) + ")";
    if (small && g_lde_refs.count(key)) {
        std::string lmsg;
        const Check k = check_lde(w, c, lde, lmsg);
        msg += k == Check::Identical ? "; the LDE is identical, the commitment differs" : "; " + lmsg;
    }
    return Check::Differs;
}

// ---------------------------------------------------------------------------
// The benchmark

// Buffers of one benchmark invocation; the context's caches are trimmed
// afterwards so that the contexts of other configurations find the memory.
struct Scope {
    gp_context *ctx;
    gp_buffer *in = nullptr, *out = nullptr;
    explicit Scope(gp_context *c) : ctx(c) {}
    ~Scope() {
        gp_buffer_destroy(in);
        gp_buffer_destroy(out);
        const gp_status s = gp_context_trim(ctx);
        if (s != GP_OK) std::fprintf(stderr, "gp_bench_multi: %s\n", failure("gp_context_trim", s).c_str());
    }
};

void run_workload(benchmark::State &st, size_t wi, size_t ci) {
    const Workload &w = kWorkloads[wi];
    const Config &c = g_opt.configs[ci];
    const std::string name = bench_name(w, c);
    auto verdict = g_verdicts.find(name);
    if (verdict != g_verdicts.end() && !verdict->second.empty()) {
        fail(st, name, verdict->second);
        return;
    }
    std::string err;
    gp_context *ctx = context_for(c, err);
    if (!ctx) {
        fail(st, name, err);
        return;
    }
    st.counters["devices"] = gp_context_device_count(ctx);

    const gp_field f = w.field;
    const uint32_t log_n = log_rows(w);
    const uint64_t n = 1ull << log_n, cols = w.cols, B = w.blowup, es = gp_field_element_size(f);
    const uint64_t in_bytes = n * cols * es, lde_bytes = n * B * cols * es;
    Scope sc(ctx);
    // The output first: a shape too large for the devices fails here, before
    // the host trace is made.
    if (!ok(gp_buffer_create(ctx, f, 1, n * B, cols, &sc.out), "gp_buffer_create(output)", err)) {
        fail(st, name, err);
        return;
    }
    const HostTrace &t = host_trace(f, log_n, cols);
    if (!t.data) {
        fail(st, name, t.error);
        return;
    }
    if (g_opt.backend == GP_BACKEND_CUDA && !t.pinned) st.SetLabel("pageable input");

    gp_lde_options lo;
    gp_lde_options_init(&lo);
    lo.blowup = w.blowup;
    lo.output_order = GP_ORDER_BIT_REVERSED;
    const gp_merkle_options mo = merkle_options(w);
    const gp_buffer *mats[1] = {sc.out};
    std::vector<unsigned char> root;

    auto once = [&]() -> bool {
        if (w.kind == Kind::Lde) return ok(gp_lde_batch(ctx, sc.in, &lo, sc.out), "gp_lde_batch", err);
        if (!ok(gp_lde_batch_host(ctx, f, 1, t.data, n, cols, &lo, sc.out), "gp_lde_batch_host", err))
            return false;
        gp_merkle_tree *tree = nullptr;
        if (!ok(gp_merkle_commit(ctx, mats, 1, &mo, &tree), "gp_merkle_commit", err)) return false;
        root.resize(gp_merkle_digest_size(tree));
        const bool good = ok(gp_merkle_root(tree, root.data(), root.size()), "gp_merkle_root", err);
        gp_merkle_tree_destroy(tree);
        return good;
    };

    if (w.kind == Kind::Lde &&
        !ok(gp_buffer_from_host(ctx, f, 1, n, cols, GP_LAYOUT_COL_MAJOR, t.data, &sc.in), "gp_buffer_from_host",
            err)) {
        fail(st, name, err);
        return;
    }
    if (!once()) {  // warm-up: tables, scratch; its result is verified
        fail(st, name, err);
        return;
    }
    if (verdict == g_verdicts.end()) {
        log_split(name, ctx);
        std::string msg;
        const Check k = w.kind == Kind::Lde ? check_lde(w, c, sc.out, msg) : check_root(w, c, root, sc.out, msg);
        if (k == Check::Error) {  // not a verdict: a later invocation tries again
            fail(st, name, "verification: " + msg);
            return;
        }
        if (k == Check::Differs) {
            g_mismatch = true;
            msg = "MISMATCH: " + msg;
            std::fprintf(stderr, "gp_bench_multi: %s: %s\n", name.c_str(), msg.c_str());
            g_verdicts[name] = msg;
            fail(st, name, msg);
            return;
        }
        g_verdicts[name] = "";
    }

    for (auto _ : st) {
        if (!once()) {
            fail(st, name, err);
            break;
        }
    }
    const uint64_t bytes = in_bytes + lde_bytes;  // W1: read + written; others: uploaded + extended
    st.SetBytesProcessed((int64_t)(bytes * (uint64_t)st.iterations()));
    st.SetItemsProcessed((int64_t)(n * B * (uint64_t)st.iterations()));
}

// ---------------------------------------------------------------------------
// Results for the summary

struct Result {
    double ms = 0;
    int runs = 0;
    bool median = false;
    double devices = 0;
};
std::map<std::string, Result> g_results;

double to_ms(benchmark::TimeUnit u) {
    switch (u) {
        case benchmark::kNanosecond: return 1e-6;
        case benchmark::kMicrosecond: return 1e-3;
        case benchmark::kSecond: return 1e3;
        default: return 1;
    }
}

void record(const benchmark::BenchmarkReporter::Run &r) {
    Result &res = g_results[r.run_name.function_name];
    const auto dc = r.counters.find("devices");
    if (dc != r.counters.end() && dc->second.value > 0) res.devices = dc->second.value;  // not stddev's 0
    const double ms = r.GetAdjustedRealTime() * to_ms(r.time_unit);
    if (r.run_type == benchmark::BenchmarkReporter::Run::RT_Aggregate) {
        if (r.aggregate_name == "median") {
            res.ms = ms;
            res.median = true;
        }
        return;
    }
    if (res.median) return;
    res.ms = (res.ms * res.runs + ms) / (res.runs + 1);  // mean over repetitions
    ++res.runs;
}

// The display reporter chosen by --benchmark_format, recording every run.
template <class Base>
class Recorder : public Base {
public:
    using Base::Base;
    void ReportRuns(const std::vector<benchmark::BenchmarkReporter::Run> &runs) override {
        for (const auto &r : runs) record(r);
        Base::ReportRuns(runs);
    }
};

std::string fmt_ms(double ms) {
    char s[32];
    std::snprintf(s, sizeof s, ms < 1 ? "%.3f ms" : ms < 100 ? "%.2f ms" : "%.1f ms", ms);
    return s;
}

void print_summary(FILE *f) {
    const Config *base = nullptr;
    for (const Config &c : g_opt.configs)
        if (!base && c.single()) base = &c;
    if (!base) base = &g_opt.configs[0];
    std::fprintf(f, "\nSummary (backend %s%s): real time per iteration, speedup over %s\n",
                 g_opt.backend == GP_BACKEND_CPU ? "cpu, emulated devices" : "cuda",
                 g_opt.scale ? (", rows / 2^" + std::to_string(g_opt.scale)).c_str() : "", base->label.c_str());
    std::vector<std::string> notes;
    for (size_t wi = 0; wi < kNumWorkloads; ++wi) {
        const Workload &w = kWorkloads[wi];
        bool any = false;
        for (const Config &c : g_opt.configs) any = any || g_results.count(bench_name(w, c));
        if (!any) continue;
        const std::string bname = bench_name(w, *base);
        const bool base_ok = g_results.count(bname) && !g_failures.count(bname);
        const double base_ms = base_ok ? g_results[bname].ms : 0;
        std::string line;
        char head[32];
        std::snprintf(head, sizeof head, "%-11s", w.name);
        line = head;
        for (const Config &c : g_opt.configs) {
            const std::string name = bench_name(w, c);
            auto it = g_results.find(name);
            if (it == g_results.end()) continue;  // filtered out
            std::string label = c.label;
            if (c.all() && it->second.devices > 0) label += "(" + std::to_string((int)it->second.devices) + ")";
            std::string cell = "  " + label + ": ";
            auto fl = g_failures.find(name);
            if (fl != g_failures.end()) {
                const bool mismatch = fl->second.compare(0, 9, "MISMATCH:") == 0;
                cell += mismatch ? "MISMATCH" : "FAILED";
                notes.push_back(name + ": " + fl->second);
            } else {
                cell += fmt_ms(it->second.ms);
                if (base_ok && &c != base && it->second.ms > 0) {
                    char sp[32];
                    std::snprintf(sp, sizeof sp, " (%.2fx)", base_ms / it->second.ms);
                    cell += sp;
                }
            }
            line += cell;
        }
        std::fprintf(f, "%s\n", line.c_str());
    }
    for (const std::string &n : notes) std::fprintf(f, "  ! %s\n", n.c_str());
    if (g_mismatch)
        std::fprintf(f, "VERIFICATION FAILED: results differ between device configurations\n");
    else if (!g_verdicts.empty())
        std::fprintf(f, "Verified: every configuration's result is bit-identical to its workload's reference\n");
}

}  // namespace

int main(int argc, char **argv) {
    std::vector<char *> args;
    std::vector<std::string> storage;  // rewritten arguments
    storage.reserve((size_t)argc);
    std::string devices_spec;
    bool help = false;
    for (int i = 0; i < argc; ++i) {
        const std::string a = argv[i];
        if (i > 0 && a.rfind("--devices=", 0) == 0) {
            devices_spec = a.substr(10);
        } else if (i > 0 && a.rfind("--backend=", 0) == 0) {
            const std::string b = a.substr(10);
            if (b == "cuda") {
                g_opt.backend = GP_BACKEND_CUDA;
            } else if (b == "cpu") {
                g_opt.backend = GP_BACKEND_CPU;
            } else {
                std::fprintf(stderr, "gp_bench_multi: --backend must be cuda or cpu, not '%s'\n", b.c_str());
                usage(stderr);
                return 2;
            }
        } else if (i > 0 && a.rfind("--scale=", 0) == 0) {
            char *end = nullptr;
            const long s = std::strtol(a.c_str() + 8, &end, 10);
            if (*end != '\0' || s < 0 || s > 30) {
                std::fprintf(stderr, "gp_bench_multi: bad %s (want 0..30)\n", a.c_str());
                return 2;
            }
            g_opt.scale = (uint32_t)s;
        } else if (i > 0 && a == "--big") {
            g_opt.big = true;
        } else {
            if (a == "--help" || a == "-h") help = true;
            if (!kMinTimeTakesSuffix && a.rfind("--benchmark_min_time=", 0) == 0 && a.size() > 21 && a.back() == 's') {
                storage.push_back(a.substr(0, a.size() - 1));  // this Google Benchmark takes seconds bare
                args.push_back(&storage.back()[0]);
            } else {
                args.push_back(argv[i]);
            }
        }
    }
    if (help) usage(stdout);
    if (devices_spec.empty()) devices_spec = g_opt.backend == GP_BACKEND_CPU ? "0;0,0" : "0;all";
    std::string err;
    if (!parse_devices(devices_spec, g_opt.configs, err)) {
        std::fprintf(stderr, "gp_bench_multi: %s\n", err.c_str());
        usage(stderr);
        return 2;
    }
    bool json = false;
    bool color = isatty(fileno(stdout)) != 0, tabular = false;
    for (char *a : args) {
        const std::string s = a;
        if (s == "--benchmark_format=json") json = true;
        if (s == "--benchmark_format=csv")
            std::fprintf(stderr, "gp_bench_multi: csv display is not supported, showing the console format "
                                 "(--benchmark_out=FILE --benchmark_out_format=csv writes csv)\n");
        if (s.rfind("--benchmark_color=", 0) == 0) {
            const std::string v = s.substr(18);
            color = v == "true" || v == "yes" || v == "1" || (v == "auto" && color);
        }
        if (s == "--benchmark_counters_tabular=true" || s == "--benchmark_counters_tabular") tabular = true;
    }
    args.push_back(nullptr);
    int bargc = (int)args.size() - 1;
    benchmark::Initialize(&bargc, args.data());
    if (benchmark::ReportUnrecognizedArguments(bargc, args.data())) return 1;

    for (size_t wi = 0; wi < kNumWorkloads; ++wi) {
        if (kWorkloads[wi].opt_in && !g_opt.big) continue;
        for (size_t ci = 0; ci < g_opt.configs.size(); ++ci) {
            const std::string name = bench_name(kWorkloads[wi], g_opt.configs[ci]);
            benchmark::RegisterBenchmark(name.c_str(), [wi, ci](benchmark::State &st) { run_workload(st, wi, ci); })
                ->Unit(benchmark::kMillisecond)
                ->UseRealTime();
        }
    }
    if (g_opt.scale)
        std::fprintf(stderr, "gp_bench_multi: shapes scaled down by 2^%u rows (--scale)\n", g_opt.scale);

    if (json) {
        Recorder<benchmark::JSONReporter> rep;
        benchmark::RunSpecifiedBenchmarks(&rep);
        print_summary(stderr);  // stdout is JSON
    } else {
        int opts = benchmark::ConsoleReporter::OO_None;
        if (color) opts |= benchmark::ConsoleReporter::OO_Color;
        if (tabular) opts |= benchmark::ConsoleReporter::OO_Tabular;
        Recorder<benchmark::ConsoleReporter> rep((benchmark::ConsoleReporter::OutputOptions)opts);
        benchmark::RunSpecifiedBenchmarks(&rep);
        std::fflush(stdout);
        print_summary(stdout);
    }

    for (auto &kv : g_contexts) gp_context_destroy(kv.second.ctx);
    g_contexts.clear();
    free_traces();
    benchmark::Shutdown();
    return g_mismatch ? 1 : 0;
}
