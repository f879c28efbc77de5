// SPDX-License-Identifier: MIT OR Apache-2.0
// Throughput through gpuprover-server against in process (Google
// Benchmark): the issue workloads W2 and W3 run by 1 and 4 concurrent
// clients, each with a context of its own, and the host LDE of W2's shape
// alone (the shared-memory path).
//
//   W2_keccak   Goldilocks 2^20 x 256, B=4: host trace (pinned) ->
//               gp_lde_batch_host -> Keccak (Plonky3) root
//   W3_p2gl12   the same with Poseidon2 Goldilocks w12
//   LDE_host    W2's gp_lde_batch_host alone
//
// Rows: <workload>/<mode>/threads:K, real time per job (each of the K
// clients runs jobs back to back); jobs_per_s is the throughput of all K
// together. Every root is checked equal to the in-process one. Modes:
//   inproc       in process, the trace in gp_host_alloc memory (page-locked)
//   server       through the server, the trace in gp_host_alloc memory
//                (shared with the server: handed over without a copy)
//   server_copy  through the server, the trace in the process's own
//                page-locked memory (copied into the session's window)
//
// Options (removed before Google Benchmark sees the command line):
//   --server=ENDPOINT   the gpuprover-server (required for the server rows)
//   --tcp=HOST:PORT     the same server's TCP address, for the transport rows
//   --backend=cuda|cpu  in-process backend (default cuda)
//   --scale=N           divides the trace rows by 2^N (quick runs)
// Run: gpuprover-server --unix /tmp/gp.sock & ./gp_bench_server --server=/tmp/gp.sock
#include <benchmark/benchmark.h>

#include <atomic>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <map>
#include <mutex>
#include <random>
#include <string>
#include <vector>

#include "gpuprover.h"
#ifdef GP_HAVE_CUDA
#include <cuda_runtime_api.h>
#endif

namespace {

std::string g_server, g_tcp;
gp_backend g_backend = GP_BACKEND_CUDA;
uint32_t g_scale = 0;

struct Workload {
    const char *name;
    gp_merkle_kind kind;  // GP_MERKLE_FIELD_SPONGE with perm, or Keccak
    gp_permutation perm;
    bool commit;
};
const Workload kWorkloads[] = {
    {"W2_keccak", GP_MERKLE_KECCAK_PLONKY3, GP_PERM_KECCAK_F1600, true},
    {"W3_p2gl12", GP_MERKLE_FIELD_SPONGE, GP_PERM_POSEIDON2_GOLDILOCKS_12, true},
    {"LDE_host", GP_MERKLE_FIELD_SPONGE, GP_PERM_POSEIDON2_GOLDILOCKS_8, false},
};

constexpr uint64_t kCols = 256, kBlowup = 4;
uint64_t rows() { return (1ull << 20) >> g_scale; }

// The host trace (pinned where CUDA is), made once.
const uint64_t *trace() {
    static uint64_t *t = [] {
        const uint64_t n = rows() * kCols, bytes = n * 8;
        void *p = nullptr;
#ifdef GP_HAVE_CUDA
        if (cudaHostAlloc(&p, bytes, cudaHostAllocPortable) != cudaSuccess) p = nullptr;
#endif
        if (!p) p = std::malloc(bytes);
        uint64_t *v = static_cast<uint64_t *>(p);
        std::mt19937_64 rng(42);
        for (uint64_t i = 0; i < n; ++i) v[i] = rng() % 0xffffffff00000001ull;
        return v;
    }();
    return t;
}

// One context, output buffer and trace per (thread, mode).
struct Client {
    gp_context *ctx = nullptr;
    gp_buffer *out = nullptr;
    const uint64_t *trace = nullptr;
    void *own = nullptr;  // gp_host_alloc
    std::string error;
};
std::mutex g_mu;
std::map<std::string, std::vector<unsigned char>> g_roots;  // workload -> in-process root

enum Mode { kInproc = 0, kServer = 1, kServerCopy = 2 };
const char *kModeNames[3] = {"inproc", "server", "server_copy"};

Client make_client(int mode) {
    const bool server = mode != kInproc;
    Client c;
    gp_context_options o;
    gp_context_options_init(&o);
    o.backend = server ? GP_BACKEND_REMOTE : g_backend;
    if (server) o.endpoint = g_server.c_str();
    if (gp_context_create(&o, &c.ctx) != GP_OK) {
        c.error = std::string("gp_context_create: ") + gp_last_error();
        return c;
    }
    if (gp_buffer_create(c.ctx, GP_FIELD_GOLDILOCKS, 1, rows() * kBlowup, kCols, &c.out) != GP_OK)
        c.error = std::string("gp_buffer_create: ") + gp_last_error();
    c.trace = trace();
    if (mode != kServerCopy) {
        const uint64_t bytes = rows() * kCols * 8;
        if (gp_host_alloc(c.ctx, bytes, &c.own) != GP_OK) {
            c.error = std::string("gp_host_alloc: ") + gp_last_error();
            return c;
        }
        std::memcpy(c.own, trace(), bytes);
        c.trace = static_cast<const uint64_t *>(c.own);
    }
    return c;
}

void run(benchmark::State &st, const Workload &w, int mode) {
    if (mode != kInproc && g_server.empty()) {
        st.SkipWithError("no --server=ENDPOINT");
        return;
    }
    Client c = make_client(mode);
    if (!c.error.empty()) {
        st.SkipWithError(c.error.c_str());
        gp_buffer_destroy(c.out);
        gp_context_destroy(c.ctx);
        return;
    }
    gp_lde_options lo;
    gp_lde_options_init(&lo);
    lo.blowup = kBlowup;
    lo.output_order = GP_ORDER_BIT_REVERSED;
    gp_merkle_options mo;
    gp_merkle_options_init(&mo);
    mo.kind = w.kind;
    mo.perm = w.perm;
    const gp_buffer *mats[1] = {c.out};
    std::vector<unsigned char> root;
    std::string err;
    auto once = [&]() -> bool {
        if (gp_lde_batch_host(c.ctx, GP_FIELD_GOLDILOCKS, 1, c.trace, rows(), kCols, &lo, c.out) != GP_OK) {
            err = std::string("gp_lde_batch_host: ") + gp_last_error();
            return false;
        }
        if (!w.commit) return true;
        gp_merkle_tree *t = nullptr;
        if (gp_merkle_commit(c.ctx, mats, 1, &mo, &t) != GP_OK) {
            err = std::string("gp_merkle_commit: ") + gp_last_error();
            return false;
        }
        root.resize(gp_merkle_digest_size(t));
        gp_merkle_root(t, root.data(), root.size());
        gp_merkle_tree_destroy(t);
        return true;
    };
    bool good = once();  // warm-up, checked against the in-process root
    if (good && w.commit) {
        std::lock_guard<std::mutex> lock(g_mu);
        auto it = g_roots.find(w.name);
        if (it == g_roots.end()) g_roots[w.name] = root;
        else if (it->second != root) {
            err = "MISMATCH: the root differs from the first one computed";
            good = false;
        }
    }
    if (!good) st.SkipWithError(err.c_str());
    else
        for (auto _ : st)
            if (!once()) {
                st.SkipWithError(err.c_str());
                break;
            }
    st.counters["jobs_per_s"] = benchmark::Counter((double)st.iterations(), benchmark::Counter::kIsRate);
    gp_buffer_destroy(c.out);
    gp_context_destroy(c.ctx);
}

// The transport alone: a request that does no work (gp_context_memory_stats:
// one round trip), and a 256 MiB upload, in process, over the unix socket
// (shared memory) and over TCP (8 MiB messages).
void transport(benchmark::State &st, int mode, bool upload) {
    const std::string &ep = mode == 1 ? g_server : g_tcp;
    if (mode && ep.empty()) {
        st.SkipWithError("no endpoint for this row");
        return;
    }
    gp_context_options o;
    gp_context_options_init(&o);
    o.backend = mode ? GP_BACKEND_REMOTE : g_backend;
    if (mode) o.endpoint = ep.c_str();
    gp_context *ctx = nullptr;
    if (gp_context_create(&o, &ctx) != GP_OK) {
        st.SkipWithError(gp_last_error());
        return;
    }
    const uint64_t n = 1ull << 15, cols = 1024;  // 256 MiB of Goldilocks
    gp_buffer *b = nullptr;
    if (upload && gp_buffer_create(ctx, GP_FIELD_GOLDILOCKS, 1, n, cols, &b) != GP_OK) {
        st.SkipWithError(gp_last_error());
        gp_context_destroy(ctx);
        return;
    }
    std::vector<uint64_t> host(upload ? n * cols : 0, 7);
    for (auto _ : st) {
        if (upload) {
            gp_buffer *t = nullptr;
            if (gp_buffer_from_host(ctx, GP_FIELD_GOLDILOCKS, 1, n, cols, GP_LAYOUT_COL_MAJOR, host.data(), &t) != GP_OK) {
                st.SkipWithError(gp_last_error());
                break;
            }
            gp_buffer_destroy(t);
        } else {
            gp_memory_stats ms;
            std::memset(&ms, 0, sizeof ms);
            ms.struct_size = sizeof ms;
            gp_context_memory_stats(ctx, &ms);
        }
    }
    if (upload) st.SetBytesProcessed((int64_t)st.iterations() * (int64_t)(n * cols * 8));
    gp_buffer_destroy(b);
    gp_context_destroy(ctx);
}

}  // namespace

int main(int argc, char **argv) {
    std::vector<char *> rest;
    for (int i = 0; i < argc; ++i) {
        const std::string a = argv[i];
        if (i > 0 && a.rfind("--server=", 0) == 0) g_server = a.substr(9);
        else if (i > 0 && a.rfind("--tcp=", 0) == 0) g_tcp = a.substr(6);
        else if (i > 0 && a == "--backend=cpu") g_backend = GP_BACKEND_CPU;
        else if (i > 0 && a == "--backend=cuda") g_backend = GP_BACKEND_CUDA;
        else if (i > 0 && a.rfind("--scale=", 0) == 0) g_scale = (uint32_t)std::atoi(a.c_str() + 8);
        else rest.push_back(argv[i]);
    }
    int n = (int)rest.size();
    for (const Workload &w : kWorkloads)
        for (int mode : {kInproc, kServer, kServerCopy})
            benchmark::RegisterBenchmark((std::string(w.name) + "/" + kModeNames[mode]).c_str(),
                                         [&w, mode](benchmark::State &st) { run(st, w, mode); })
                ->Unit(benchmark::kMillisecond)
                ->UseRealTime()
                ->MeasureProcessCPUTime()
                ->Threads(1)
                ->Threads(4)
                ->MinTime(0.5);
    const char *modes[3] = {"inproc", "server", "server_tcp"};
    for (int m = 0; m < 3; ++m) {
        benchmark::RegisterBenchmark((std::string("RoundTrip/") + modes[m]).c_str(),
                                     [m](benchmark::State &st) { transport(st, m, false); })
            ->Unit(benchmark::kMicrosecond)
            ->UseRealTime();
        benchmark::RegisterBenchmark((std::string("Upload256MiB/") + modes[m]).c_str(),
                                     [m](benchmark::State &st) { transport(st, m, true); })
            ->Unit(benchmark::kMillisecond)
            ->UseRealTime();
    }
    benchmark::Initialize(&n, rest.data());
    benchmark::RunSpecifiedBenchmarks();
    benchmark::Shutdown();
    return 0;
}
