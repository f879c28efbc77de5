// SPDX-License-Identifier: MIT OR Apache-2.0
// Benchmarks of the one-call streamed commitment, gp_commit_host.
//
// BM_CommitHost_CUDA: a trace in host memory -> gp_commit_host -> root.
//   args: profile (bench_profiles.h), field, log_n, cols, blowup, keep
//   (GP_KEEP_*, or 3: GP_KEEP_DEVICE into a buffer made once), pinned (1: the trace and the GP_KEEP_HOST destination are
//   page-locked, 0: pageable), budget_mib (options.device_budget in MiB; 0:
//   the default, what the device has free).
//   Counters:
//   - upload_floor_ms: the trace's bytes over the pinned host-to-device rate
//     measured in this run; download_floor_ms (GP_KEEP_HOST): the LDE's bytes
//     over the pinned device-to-host rate; pcie_floor_ms the larger (the
//     link is full duplex).
//   - floor_ms / x_floor: the hashing's arithmetic floor (permutations x
//     multiplications over the measured multiply rate) where the profile
//     has one; x_pcie: time over pcie_floor_ms.
//   - dev_used_GiB: device memory in use at the call's batch boundaries
//     (sampled from its progress callback) beyond what was in use before
//     the benchmark's first call, the context's caches trimmed;
//     budget_GiB: the budget the call was given (0: default).
//   The two-call path of the same shapes is BM_Workload_CUDA
//   (bench_merkle.cpp), in the same program.
// BM_BufferCreateDestroy_CUDA: gp_buffer_create + gp_buffer_destroy of 1
//   and 8 GiB, the part of a GP_KEEP_DEVICE call that allocates its result.
// BM_CommitHostBig_CUDA: the same over a trace whose LDE exceeds device
//   memory (Goldilocks 2^22 x 512, blowup 4, Poseidon2 w12: 16 GiB of trace,
//   64 GiB of LDE written to host memory). It needs about 81 GiB of host
//   memory and runs only with GP_BENCH_BIG=1 in the environment.
#include <benchmark/benchmark.h>

#include <algorithm>
#include <cstdlib>
#include <cstring>
#include <string>
#include <vector>

#include "bench_profiles.h"
#include "bench_util.h"
#include "gpuprover.h"
#ifdef GP_HAVE_CUDA
#include <cuda_runtime.h>
#endif

using namespace gpb;

namespace {

#ifdef GP_HAVE_CUDA
// Host memory for the benchmark: page-locked, or pageable with its pages
// touched (so the first call does not pay the faults).
struct HostBlock {
    void *p = nullptr;
    bool pinned = false;
    HostBlock(uint64_t bytes, bool want_pinned) {
        if (want_pinned && cudaHostAlloc(&p, bytes, cudaHostAllocDefault) == cudaSuccess) {
            pinned = true;
            return;
        }
        cudaGetLastError();
        p = std::malloc(bytes);
        if (p) std::memset(p, 0, bytes);
    }
    ~HostBlock() {
        if (pinned)
            cudaFreeHost(p);
        else
            std::free(p);
    }
};

// The least free device memory seen at the call's progress reports.
struct MemWatch {
    uint64_t least_free = ~0ull;
    static void on_progress(void *user, const char *, uint64_t, uint64_t) {
        size_t free_b = 0, total_b = 0;
        if (cudaMemGetInfo(&free_b, &total_b) != cudaSuccess) return;
        auto *w = static_cast<MemWatch *>(user);
        w->least_free = std::min<uint64_t>(w->least_free, free_b);
    }
};

// The keep argument's fourth value: GP_KEEP_DEVICE into a buffer made
// once (options.lde_into), as a prover committing trace after trace does.
constexpr int64_t kKeepInto = 3;

void run_commit_host(benchmark::State &st) {
    gp_context *ctx = context_or_skip(st, GP_BACKEND_CUDA);
    if (!ctx) return;
    const ProfileInfo pi = info(st.range(0));
    const gp_field f = field_of(st.range(1));
    const uint64_t n = 1ull << st.range(2), cols = (uint64_t)st.range(3), B = (uint64_t)st.range(4);
    const bool reuse = st.range(5) == kKeepInto;
    const gp_keep keep = reuse ? GP_KEEP_DEVICE : (gp_keep)st.range(5);
    const bool want_pinned = st.range(6) != 0;
    const uint64_t budget = (uint64_t)st.range(7) << 20;
    const uint32_t es = gp_field_element_size(f);
    const uint64_t in_bytes = n * cols * es, lde_bytes = in_bytes * B;

    HostBlock trace(in_bytes, want_pinned);
    HostBlock out(keep == GP_KEEP_HOST ? lde_bytes : 0, want_pinned);
    if (!trace.p || (keep == GP_KEEP_HOST && !out.p)) {
        st.SkipWithError("host allocation failed");
        return;
    }
    fill_trace(trace.p, f, n * cols, 7);
    static const char *keeps[] = {"device", "host", "none"};
    std::string label = std::string(pi.name) + " keep=" + keeps[keep] + (reuse ? " (into)" : "") +
                        (trace.pinned ? " pinned" : " pageable");
    if (keep == GP_KEEP_HOST && out.pinned != trace.pinned) label += out.pinned ? "/lde pinned" : "/lde pageable";
    st.SetLabel(label);

    gp_commit_matrix m{};
    m.data = trace.p;
    m.rows = n;
    m.cols = cols;
    m.ext_degree = 1;
    if (keep == GP_KEEP_HOST) {
        m.lde_host = out.p;
        m.lde_host_bytes = lde_bytes;
    }
    gp_lde_options lo;
    gp_lde_options_init(&lo);
    lo.blowup = (uint32_t)B;
    lo.output_order = GP_ORDER_BIT_REVERSED;
    const gp_merkle_options mo = options_of(pi);
    gp_commit_options co;
    gp_commit_options_init(&co);
    co.lde = &lo;
    co.merkle = &mo;
    co.keep = keep;
    co.device_budget = budget;
    gp_buffer *into = nullptr;
    if (reuse) {
        if (gp_buffer_create(ctx, f, 1, n * B, cols, &into) != GP_OK) {
            st.SkipWithError(gp_last_error());
            return;
        }
        co.lde_into = &into;
    }

    gp_context_trim(ctx);
    size_t free0 = 0, total = 0;
    cudaMemGetInfo(&free0, &total);
    MemWatch watch;
    gp_context_set_progress(ctx, &MemWatch::on_progress, &watch);
    unsigned char root[64];
    auto once = [&]() {
        gp_merkle_tree *t = nullptr;
        gp_buffer *lde = nullptr;
        const gp_status s =
            gp_commit_host(ctx, f, &m, 1, &co, keep == GP_KEEP_DEVICE && !reuse ? &lde : nullptr, &t);
        const bool ok = s == GP_OK && gp_merkle_root(t, root, sizeof root) == GP_OK;
        gp_merkle_tree_destroy(t);
        gp_buffer_destroy(lde);
        return ok;
    };
    timed_loop(st, once);
    gp_context_set_progress(ctx, nullptr, nullptr);
    gp_buffer_destroy(into);

    hash_counters(st, pi, perms_of(pi, n * B, cols, es), f, true);
    const double up_s = in_bytes / h2d_bandwidth();
    const double down_s = keep == GP_KEEP_HOST ? lde_bytes / d2h_bandwidth() : 0;
    const double pcie_s = std::max(up_s, down_s);
    st.counters["upload_floor_ms"] = up_s * 1e3;
    if (keep == GP_KEEP_HOST) st.counters["download_floor_ms"] = down_s * 1e3;
    st.counters["pcie_floor_ms"] = pcie_s * 1e3;
    st.counters["x_pcie"] = x_floor_counter(pcie_s);
    const double gib = 1024.0 * 1024 * 1024;
    if (watch.least_free != ~0ull && watch.least_free <= free0)
        st.counters["dev_used_GiB"] = (double)(free0 - watch.least_free) / gib;
    st.counters["budget_GiB"] = (double)budget / gib;
}

void BM_CommitHost_CUDA(benchmark::State &st) { run_commit_host(st); }

// What GP_KEEP_DEVICE's new buffers cost by themselves: gp_buffer_create
// (allocation and zero fill) and gp_buffer_destroy of `GiB` of device memory.
void BM_BufferCreateDestroy_CUDA(benchmark::State &st) {
    gp_context *ctx = context_or_skip(st, GP_BACKEND_CUDA);
    if (!ctx) return;
    const uint64_t rows = (uint64_t)st.range(0) << 27;  // GiB of Goldilocks elements
    auto once = [&]() {
        gp_buffer *b = nullptr;
        if (gp_buffer_create(ctx, GP_FIELD_GOLDILOCKS, 1, rows, 1, &b) != GP_OK) return false;
        gp_buffer_destroy(b);
        return true;
    };
    timed_loop(st, once);
}

// Triton VM's tables at their shapes: Goldilocks, `cols` columns of
// `ext` (1: the main table, 3: the auxiliary table's cubic columns), 2^log_n
// trace rows, blowup B (Triton's FRI domain: 8x the padded height at 98
// randomizers), 98 randomizer coefficients a column (0: none), natural
// order on the coset 7 <w>, committed under twenty-first's Tip5 tree.
// path 0: device-resident table in, gp_lde_batch (randomized) then
// gp_merkle_commit, root out (the whole LDE on the device); path 1:
// gp_commit_host from pinned host memory with GP_KEEP_NONE (streamed, the
// LDE never whole). Counters: dev_used_GiB (path 1: sampled at its batch
// boundaries; path 0: the input, the LDE and the tree as allocated),
// upload_floor_ms (path 1).
// args: cols, ext, log_n, blowup, randomizers, path
void BM_TritonTable_CUDA(benchmark::State &st) {
    gp_context *ctx = context_or_skip(st, GP_BACKEND_CUDA);
    if (!ctx) return;
    const gp_field f = GP_FIELD_GOLDILOCKS;
    const uint64_t cols = (uint64_t)st.range(0), n = 1ull << st.range(2), B = (uint64_t)st.range(3);
    const uint32_t ext = (uint32_t)st.range(1);
    const uint64_t m = (uint64_t)st.range(4);
    const bool streamed = st.range(5) != 0;
    const uint64_t in_bytes = n * cols * ext * 8, lde_bytes = in_bytes * B;
    HostBlock trace(in_bytes, true);
    if (!trace.p) {
        st.SkipWithError("host allocation failed");
        return;
    }
    fill_trace(trace.p, f, n * cols * ext, 11);
    std::vector<unsigned char> coeffs(m * cols * ext * 8);
    if (m) fill_trace(coeffs.data(), f, m * cols * ext, 12);
    gp_lde_options lo;
    gp_lde_options_init(&lo);
    lo.blowup = (uint32_t)B;
    lo.shift = 7;
    lo.output_order = GP_ORDER_NATURAL;
    lo.randomizers = m ? coeffs.data() : nullptr;
    lo.randomizer_count = m;
    gp_merkle_options mo;
    gp_merkle_options_init(&mo);
    mo.kind = GP_MERKLE_TRITON;
    mo.perm = GP_PERM_TIP5;
    st.SetLabel(std::string(ext == 1 ? "main" : "aux cubic") + (m ? " randomized" : " plain") +
                (streamed ? " gp_commit_host keep=none" : " device-resident"));
    gp_context_trim(ctx);
    size_t free0 = 0, total = 0;
    cudaMemGetInfo(&free0, &total);
    MemWatch watch;
    unsigned char root[40];
    gp_buffer *in = nullptr, *out = nullptr;
    if (!streamed) {
        if (gp_buffer_from_host(ctx, f, ext, n, cols, GP_LAYOUT_COL_MAJOR, trace.p, &in) != GP_OK ||
            gp_buffer_create(ctx, f, ext, n * B, cols, &out) != GP_OK) {
            st.SkipWithError(gp_last_error());
            gp_buffer_destroy(in);
            return;
        }
    }
    gp_context_set_progress(ctx, &MemWatch::on_progress, &watch);
    auto once = [&]() {
        gp_merkle_tree *t = nullptr;
        gp_status s;
        if (streamed) {
            gp_commit_matrix mat{};
            mat.data = trace.p;
            mat.rows = n;
            mat.cols = cols;
            mat.ext_degree = ext;
            gp_commit_options co;
            gp_commit_options_init(&co);
            co.lde = &lo;
            co.merkle = &mo;
            co.keep = GP_KEEP_NONE;
            s = gp_commit_host(ctx, f, &mat, 1, &co, nullptr, &t);
        } else {
            s = gp_lde_batch(ctx, in, &lo, out);
            const gp_buffer *mats[1] = {out};
            if (s == GP_OK) s = gp_merkle_commit(ctx, mats, 1, &mo, &t);
            MemWatch::on_progress(&watch, "", 0, 0);  // the tree allocated too
        }
        const bool ok = s == GP_OK && gp_merkle_root(t, root, sizeof root) == GP_OK;
        if (!ok) st.SkipWithError(gp_last_error());
        gp_merkle_tree_destroy(t);
        return ok;
    };
    timed_loop(st, once);
    gp_context_set_progress(ctx, nullptr, nullptr);
    gp_buffer_destroy(in);
    gp_buffer_destroy(out);
    const double gib = 1024.0 * 1024 * 1024;
    if (watch.least_free != ~0ull && watch.least_free <= free0)
        st.counters["dev_used_GiB"] = (double)(free0 - watch.least_free + (streamed ? 0 : in_bytes + lde_bytes)) / gib;
    st.counters["lde_GiB"] = (double)lde_bytes / gib;
    if (streamed) st.counters["upload_floor_ms"] = in_bytes / h2d_bandwidth() * 1e3;
    st.counters["root0"] = root[0];
}

void BM_CommitHostBig_CUDA(benchmark::State &st) {
    const char *big = std::getenv("GP_BENCH_BIG");
    if (!big || std::string(big) != "1") {
        st.SkipWithError("needs about 81 GiB of host memory: set GP_BENCH_BIG=1");
        return;
    }
    run_commit_host(st);
}
#endif

}  // namespace

#ifdef GP_HAVE_CUDA
// profile, field, log_n, cols, blowup, keep, pinned, budget_mib
BENCHMARK(BM_CommitHost_CUDA)
    ->Args({KECCAK, GL, 20, 256, 4, GP_KEEP_DEVICE, 1, 0})  // W2
    ->Args({KECCAK, GL, 20, 256, 4, kKeepInto, 1, 0})
    ->Args({KECCAK, GL, 20, 256, 4, GP_KEEP_HOST, 1, 0})
    ->Args({KECCAK, GL, 20, 256, 4, GP_KEEP_NONE, 1, 0})
    ->Args({KECCAK, GL, 20, 256, 4, GP_KEEP_NONE, 0, 0})
    ->Args({P2_GL12, GL, 20, 256, 4, GP_KEEP_DEVICE, 1, 0})  // W3
    ->Args({P2_GL12, GL, 20, 256, 4, kKeepInto, 1, 0})
    ->Args({P2_GL12, GL, 20, 256, 4, GP_KEEP_HOST, 1, 0})
    ->Args({P2_GL12, GL, 20, 256, 4, GP_KEEP_NONE, 1, 0})
    ->Args({P2_GL12, GL, 20, 256, 4, GP_KEEP_NONE, 1, 1536})
    ->Args({P2_KB16, KB, 22, 128, 2, GP_KEEP_DEVICE, 1, 0})  // W4
    ->Args({P2_KB16, KB, 22, 128, 2, kKeepInto, 1, 0})
    ->Args({P2_KB16, KB, 22, 128, 2, GP_KEEP_HOST, 1, 0})
    ->Args({P2_KB16, KB, 22, 128, 2, GP_KEEP_NONE, 1, 0})
    ->Unit(benchmark::kMillisecond)
    ->UseRealTime();
BENCHMARK(BM_BufferCreateDestroy_CUDA)->Arg(1)->Arg(8)->Unit(benchmark::kMillisecond)->UseRealTime();
// cols, ext, log_n, blowup, randomizers, path (0 device-resident, 1 streamed)
BENCHMARK(BM_TritonTable_CUDA)
    ->Args({379, 1, 21, 4, 0, 0})  // issue 43's table: expansion 4, no randomizers
    ->Args({379, 1, 21, 4, 98, 0})
    ->Args({88, 3, 21, 4, 98, 0})
    ->Args({379, 1, 21, 8, 98, 0})  // Triton's real FRI domain: 2^24 rows
    ->Args({88, 3, 21, 8, 98, 0})
    ->Args({379, 1, 21, 8, 98, 1})
    ->Args({88, 3, 21, 8, 98, 1})
    ->Unit(benchmark::kMillisecond)
    ->UseRealTime()
    ->Iterations(2);
BENCHMARK(BM_CommitHostBig_CUDA)
    ->Args({P2_GL12, GL, 22, 512, 4, GP_KEEP_HOST, 1, 0})
    ->Args({P2_GL12, GL, 22, 512, 4, GP_KEEP_HOST, 1, 16384})
    ->Args({P2_GL12, GL, 22, 512, 4, GP_KEEP_NONE, 1, 0})
    ->Unit(benchmark::kMillisecond)
    ->UseRealTime()
    ->Iterations(1);
#endif
