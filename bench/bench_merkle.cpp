// SPDX-License-Identifier: MIT OR Apache-2.0
// Benchmarks of the Merkle and FRI commitments (Google Benchmark).
//
// BM_Commit_{CUDA,CPU}: gp_merkle_commit of a random matrix already in the
//   backend's memory (the LDE's place). Counters: perms (permutations per
//   commit: leaf sponge blocks + internal nodes), Mperm_s, and for the
//   algebraic hashes with a known multiplication count the arithmetic floor
//   (perms x multiplications per permutation over the multiply rate measured
//   in this run, bench/modmul.cu) and x_floor.
// BM_Workload_CUDA: the issue workloads end to end: trace in pinned host
//   memory -> gp_lde_batch_host (bit-reversed, device-resident) ->
//   gp_merkle_commit -> gp_merkle_root. W2's floor is the PCIe upload (input
//   bytes over the pinned H2D bandwidth measured in this run); W3's and W4's
//   the hashing arithmetic as above.
// BM_FRI_{CUDA,CPU}: the FRI commit phase (gp_fri_begin, every gp_fri_fold,
//   gp_fri_remainder) of a random device-resident codeword. Floors: the bytes
//   of every layer read once and written once over the device-to-device
//   bandwidth, and the hashing arithmetic of the layer trees; x_floor uses
//   the larger.
#include <benchmark/benchmark.h>

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

// args: profile, field, log_rows (or, above 64, the rows themselves: a
// height that is not a power of two), cols
void run_commit(benchmark::State &st, gp_backend backend) {
    gp_context *ctx = context_or_skip(st, backend);
    if (!ctx) return;
    const ProfileInfo pi = info(st.range(0));
    const gp_field f = field_of(st.range(1));
    const uint64_t n = st.range(2) > 64 ? (uint64_t)st.range(2) : 1ull << st.range(2), cols = (uint64_t)st.range(3);
    const uint32_t es = gp_field_element_size(f);
    st.SetLabel(pi.name);
    std::vector<unsigned char> host(n * cols * es);
    fill_trace(host.data(), f, n * cols, 11);
    gp_buffer *m = nullptr;
    if (gp_buffer_from_host(ctx, f, 1, n, cols, GP_LAYOUT_COL_MAJOR, host.data(), &m) != GP_OK) {
        st.SkipWithError(gp_last_error());
        return;
    }
    host.clear();
    host.shrink_to_fit();
    const gp_merkle_options o = options_of(pi);
    const gp_buffer *mats[1] = {m};
    gp_merkle_tree *t = nullptr;
    if (gp_merkle_commit(ctx, mats, 1, &o, &t) != GP_OK) {  // warm-up
        st.SkipWithError(gp_last_error());
        gp_buffer_destroy(m);
        return;
    }
    gp_merkle_tree_destroy(t);
    for (auto _ : st) {
        if (gp_merkle_commit(ctx, mats, 1, &o, &t) != GP_OK) {
            st.SkipWithError(gp_last_error());
            break;
        }
        gp_merkle_tree_destroy(t);
    }
    hash_counters(st, pi, perms_of(pi, n, cols, es), f, backend == GP_BACKEND_CUDA);
    gp_buffer_destroy(m);
}

void BM_Commit_CUDA(benchmark::State &st) { run_commit(st, GP_BACKEND_CUDA); }
void BM_Commit_CPU(benchmark::State &st) { run_commit(st, GP_BACKEND_CPU); }

#ifdef GP_HAVE_CUDA
// args: profile, field, log_n, cols, blowup
void BM_Workload_CUDA(benchmark::State &st) {
    gp_context *ctx = context(GP_BACKEND_CUDA);
    if (!ctx) {
        st.SkipWithError("no CUDA device");
        return;
    }
    const ProfileInfo pi = info(st.range(0));
    const gp_field f = field_of(st.range(1));
    const uint64_t n = 1ull << st.range(2), cols = (uint64_t)st.range(3), B = (uint64_t)st.range(4);
    const uint32_t es = gp_field_element_size(f);
    st.SetLabel(pi.name);
    const uint64_t in_bytes = n * cols * es;
    void *host = nullptr;
    if (cudaHostAlloc(&host, in_bytes, cudaHostAllocDefault) != cudaSuccess) {
        st.SkipWithError("cudaHostAlloc failed");
        return;
    }
    fill_trace(host, f, n * cols, 7);
    gp_buffer *lde = nullptr;
    if (gp_buffer_create(ctx, f, 1, n * B, cols, &lde) != GP_OK) {
        st.SkipWithError(gp_last_error());
        cudaFreeHost(host);
        return;
    }
    gp_lde_options lo;
    gp_lde_options_init(&lo);
    lo.blowup = (uint32_t)B;
    lo.output_order = GP_ORDER_BIT_REVERSED;
    const gp_merkle_options mo = options_of(pi);
    const gp_buffer *mats[1] = {lde};
    unsigned char root[64];
    auto once = [&]() {
        gp_merkle_tree *t = nullptr;
        if (gp_lde_batch_host(ctx, f, 1, host, n, cols, &lo, lde) != GP_OK ||
            gp_merkle_commit(ctx, mats, 1, &mo, &t) != GP_OK || gp_merkle_root(t, root, sizeof root) != GP_OK) {
            gp_merkle_tree_destroy(t);
            return false;
        }
        gp_merkle_tree_destroy(t);
        return true;
    };
    timed_loop(st, once);
    const double perms = perms_of(pi, n * B, cols, es);
    hash_counters(st, pi, perms, f, true);
    const double upload_s = in_bytes / h2d_bandwidth();
    st.counters["upload_floor_ms"] = upload_s * 1e3;
    if (pi.muls == 0) {  // Keccak: the upload is the floor
        st.counters["x_floor"] = x_floor_counter(upload_s);
    }
    gp_buffer_destroy(lde);
    cudaFreeHost(host);
}
#endif

// args: profile, field, ext, log_n, arity, log_final
void run_fri(benchmark::State &st, gp_backend backend) {
    gp_context *ctx = context_or_skip(st, backend);
    if (!ctx) return;
    const ProfileInfo pi = info(st.range(0));
    const gp_field f = field_of(st.range(1));
    const uint32_t ext = (uint32_t)st.range(2);
    const uint64_t n = 1ull << st.range(3);
    const uint32_t es = gp_field_element_size(f);
    st.SetLabel(pi.name);
    std::vector<unsigned char> host(n * ext * es);
    fill_trace(host.data(), f, n * ext, 5);
    gp_buffer *cw = nullptr;
    if (gp_buffer_from_host(ctx, f, ext, n, 1, GP_LAYOUT_ROW_MAJOR, host.data(), &cw) != GP_OK) {
        st.SkipWithError(gp_last_error());
        return;
    }
    gp_fri_options o;
    gp_fri_options_init(&o);
    o.arity = (uint32_t)st.range(4);
    o.final_size = 1ull << st.range(5);
    o.merkle = options_of(pi);
    const bool triton = pi.kind == GP_MERKLE_TRITON_DIGEST;
    if (triton) {  // Triton VM's FRI: natural order on 7 * <w>, its cubic, one value per leaf
        o.order = GP_ORDER_NATURAL;
        o.shift = 7;
        o.extension = GP_EXT_TRITON;
        o.leaf = GP_FRI_LEAF_ELEMENT;
    }
    std::vector<unsigned char> beta(ext * es, 0), cap(1024), rem;
    beta[0] = 3;
    beta[es] = 5;
    auto once = [&]() {
        gp_fri *fri = nullptr;
        if (gp_fri_begin(ctx, cw, &o, cap.data(), cap.size(), &fri) != GP_OK) return false;
        bool ok = true;
        for (uint32_t k = 0; ok && k < gp_fri_layer_count(fri); ++k)
            ok = gp_fri_fold(fri, beta.data(), beta.size(), cap.data(), cap.size()) == GP_OK;
        rem.resize(gp_fri_remainder_size(fri));
        ok = ok && gp_fri_remainder(fri, rem.data(), rem.size()) == GP_OK;
        gp_fri_destroy(fri);
        return ok;
    };
    timed_loop(st, once);
    // Layer k: n_k values read and written once; its tree hashes n_k / a
    // leaves of a * ext elements.
    double bytes = 0, perms = 0;
    for (uint64_t nk = n; nk > o.final_size; nk /= o.arity) {
        bytes += 2.0 * nk * ext * es;
        perms += triton ? perms_of(pi, nk, ext, es) : perms_of(pi, nk / o.arity, o.arity * ext, es);
    }
    st.counters["perms"] = perms;
#ifdef GP_HAVE_CUDA
    if (backend == GP_BACKEND_CUDA) {
        const double mem_s = bytes / d2d_bandwidth();
        const double hash_s = pi.muls > 0 ? perms * pi.muls / modmul_rate(f) : 0;
        st.counters["mem_floor_ms"] = mem_s * 1e3;
        if (hash_s > 0) st.counters["hash_floor_ms"] = hash_s * 1e3;
        const double floor_s = mem_s > hash_s ? mem_s : hash_s;
        st.counters["x_floor"] = x_floor_counter(floor_s);
    }
#endif
    gp_buffer_destroy(cw);
}
void BM_FRI_CUDA(benchmark::State &st) { run_fri(st, GP_BACKEND_CUDA); }
void BM_FRI_CPU(benchmark::State &st) { run_fri(st, GP_BACKEND_CPU); }

// OOD at 2 points and DEEP over `cols` Goldilocks base columns of an LDE of
// 2^log_n rows at blowup B (bit-reversed), challenges in the cubic extension.
// args: log_n, cols, blowup, which (0 OOD, 1 DEEP)
void run_ood_deep(benchmark::State &st, gp_backend backend) {
    gp_context *ctx = context_or_skip(st, backend);
    if (!ctx) return;
    const uint64_t n = 1ull << st.range(0), cols = (uint64_t)st.range(1), B = (uint64_t)st.range(2);
    const bool deep = st.range(3) != 0;
    std::vector<uint64_t> host(n * B * cols);
    fill_trace(host.data(), GP_FIELD_GOLDILOCKS, host.size(), 3);
    gp_buffer *lde = nullptr, *q = nullptr;
    if (gp_buffer_from_host(ctx, GP_FIELD_GOLDILOCKS, 1, n * B, cols, GP_LAYOUT_COL_MAJOR, host.data(), &lde) !=
            GP_OK ||
        gp_buffer_create(ctx, GP_FIELD_GOLDILOCKS, 3, n * B, 1, &q) != GP_OK) {
        st.SkipWithError(gp_last_error());
        gp_buffer_destroy(lde);
        return;
    }
    host.clear();
    host.shrink_to_fit();
    gp_ood_options o;
    gp_ood_options_init(&o);
    o.order = GP_ORDER_BIT_REVERSED;
    o.degree_bound = n;
    const uint64_t z[6] = {11, 22, 33, 44, 55, 66};
    std::vector<uint64_t> vals(2 * cols * 3), alphas(2 * cols * 3, 5);
    const gp_buffer *cb = lde;
    auto once = [&]() {
        return deep ? gp_deep_composition(ctx, &cb, 1, &o, z, 2, vals.data(), alphas.data(), q) == GP_OK
                    : gp_evaluate_ood(ctx, &cb, 1, &o, z, 2, vals.data(), vals.size() * 8) == GP_OK;
    };
    timed_loop(st, once);
    // Floors: bytes read once (OOD: the N-row sub-coset; DEEP: all rows,
    // plus the cubic output written) over the device bandwidth, and the
    // multiplications (base x cubic = 3 per column per point and row).
    const double rows = deep ? (double)(n * B) : (double)n;
    const double bytes = rows * cols * 8 + (deep ? rows * 24 : 0);
    const double muls = rows * cols * 2 * 3;
    st.counters["GBps"] = benchmark::Counter(bytes, benchmark::Counter::kIsIterationInvariantRate);
#ifdef GP_HAVE_CUDA
    if (backend == GP_BACKEND_CUDA) {
        const double mem_s = bytes / d2d_bandwidth();  // bytes read + written, as the copy rate counts
        const double mul_s = muls / modmul_rate(GP_FIELD_GOLDILOCKS);
        st.counters["mem_floor_ms"] = mem_s * 1e3;
        st.counters["mul_floor_ms"] = mul_s * 1e3;
        st.counters["x_floor"] = x_floor_counter(mem_s > mul_s ? mem_s : mul_s);
    }
#endif
    gp_buffer_destroy(lde);
    gp_buffer_destroy(q);
}
void BM_OodDeep_CUDA(benchmark::State &st) { run_ood_deep(st, GP_BACKEND_CUDA); }

// Constraint commitment: a degree-D N composition given as N D evaluations
// in the cubic extension, D segments extended at blowup B and committed with
// Poseidon2 Goldilocks w12. args: log_n, D, blowup, split
void BM_ConstraintCommit_CUDA(benchmark::State &st) {
    gp_context *ctx = context(GP_BACKEND_CUDA);
    if (!ctx) {
        st.SkipWithError("no CUDA device");
        return;
    }
    const uint64_t n = 1ull << st.range(0), D = (uint64_t)st.range(1), B = (uint64_t)st.range(2);
    std::vector<uint64_t> host(n * D * 3);
    fill_trace(host.data(), GP_FIELD_GOLDILOCKS, host.size(), 9);
    gp_buffer *ev = nullptr;
    if (gp_buffer_from_host(ctx, GP_FIELD_GOLDILOCKS, 3, n * D, 1, GP_LAYOUT_COL_MAJOR, host.data(), &ev) != GP_OK) {
        st.SkipWithError(gp_last_error());
        return;
    }
    gp_constraint_options o;
    gp_constraint_options_init(&o);
    o.split = (gp_composition_split)st.range(3);
    o.segments = (uint32_t)D;
    o.blowup = (uint32_t)B;
    o.merkle = options_of(info(P2_GL12));
    auto once = [&]() {
        gp_buffer *seg = nullptr;
        gp_merkle_tree *t = nullptr;
        const bool ok = gp_constraint_commit(ctx, ev, &o, &seg, &t) == GP_OK;
        gp_merkle_tree_destroy(t);
        gp_buffer_destroy(seg);
        return ok;
    };
    timed_loop(st, once);
    // Hash floor of the tree: n B leaves of 3 D elements.
    const ProfileInfo pi = info(P2_GL12);
    hash_counters(st, pi, perms_of(pi, n * B, 3 * D, 8), GP_FIELD_GOLDILOCKS, true);
    gp_buffer_destroy(ev);
}
void BM_OodDeep_CPU(benchmark::State &st) { run_ood_deep(st, GP_BACKEND_CPU); }

const int64_t kAllProfiles[] = {P2_GL8, P2_GL12, P2_GL16, P2_GL_HL8, P2_BB16, P2_BB24, P2_KB16, P2_KB16_SP1,
                                P2_BB16_SP1, P2_KB24, RPO, RPX, TIP5, PLONKY2, KECCAK};

int64_t field_for(int64_t p) {
    switch (p) {
        case P2_BB16:
        case P2_BB16_SP1:
        case P2_BB24: return BB;
        case P2_KB16:
        case P2_KB16_SP1:
        case P2_KB24: return KB;
        default: return GL;
    }
}

// Hash rates: one permutation per leaf (cols = rate; Keccak 17 lanes is one
// block plus the padding block), 2^20 leaves.
void hash_rate_args(benchmark::internal::Benchmark *b) {
    for (int64_t p : kAllProfiles) {
        const ProfileInfo pi = info(p);
        b->Args({p, field_for(p), 20, pi.kind == GP_MERKLE_KECCAK_PLONKY3 ? 16 : (int64_t)pi.rate});
    }
}

BENCHMARK(BM_Commit_CUDA)->Apply(hash_rate_args)->Unit(benchmark::kMillisecond)->UseRealTime();
// The commitment step of W2/W3/W4 alone (the LDE-sized matrix on the device).
BENCHMARK(BM_Commit_CUDA)
    ->Args({KECCAK, GL, 22, 256})
    ->Args({P2_GL12, GL, 22, 256})
    ->Args({P2_KB16, KB, 23, 128})
    ->Args({P2_KB16, KB, 22, 128})
    ->Args({P2_KB16_SP1, KB, 22, 128})  // SP1's commitment shapes (issue 44)
    ->Args({P2_KB16_SP1, KB, 23, 128})
    ->Args({P2_BB16_SP1, BB, 22, 128})
    ->Args({RPO, GL, 22, 256})
    ->Args({RPX, GL, 22, 256})
    ->Args({TIP5, GL, 22, 256})
    ->Args({KECCAK_U64, GL, 22, 256})
    ->Args({TRITON, GL, 22, 256})
    ->Args({TRITON_DIGEST, GL, 22, 3})  // rows as digests (3 elements: a cubic value)
    ->Args({LMCS_P2, GL, 22, 256})      // Miden's LMCS at W3's commitment shape
    ->Args({LMCS_RPO, GL, 22, 256})
    ->Args({LMCS_KECCAK, GL, 22, 256})
    ->Args({LMCS_BLAKE3, GL, 22, 256})
    ->Args({WF_SHA3, GL, 22, 256})  // winterfell's trees
    ->Args({WF_BLAKE3, GL, 22, 256})
    ->Args({WF_BLAKE3_192, GL, 22, 256})
    ->Args({WF_RP64, GL, 22, 256})
    ->Args({MIDEN_P2, GL, 22, 256})
    ->Args({P2_GL12_8, GL, 22, 256})
    ->Args({P2_GL12, GL, 3 << 20, 256})  // tallest height 3 x 2^20, not a power of two
    ->Args({KECCAK, GL, 3 << 20, 256})
    ->Args({KECCAK_BE, GL, 22, 256})
    ->Args({KECCAK_BE_PAIRS, GL, 22, 256})
    ->Args({KECCAK_U64, KB, 23, 128})
    ->Args({P2_KB24_16, KB, 23, 128})
    ->Args({P2_BB24_16, BB, 23, 128})
    ->Unit(benchmark::kMillisecond)
    ->UseRealTime();
#ifdef GP_HAVE_CUDA
BENCHMARK(BM_Workload_CUDA)
    ->Args({KECCAK, GL, 20, 256, 4})   // W2
    ->Args({P2_GL12, GL, 20, 256, 4})  // W3
    ->Args({P2_KB16, KB, 22, 128, 2})  // W4
    ->Args({RPO, GL, 20, 256, 4})
    ->Args({RPX, GL, 20, 256, 4})
    ->Args({TIP5, GL, 20, 256, 4})
    ->Unit(benchmark::kMillisecond)
    ->UseRealTime();
#endif
// W5: Goldilocks cubic 2^24 down to 2^5 (arity 4: 2^4, arity 8: 2^6, the
// nearest reachable sizes); BabyBear quartic 2^24 for ICICLE's figure.
BENCHMARK(BM_FRI_CUDA)
    ->Args({KECCAK, GL, 3, 24, 2, 5})
    ->Args({P2_GL12, GL, 3, 24, 2, 5})
    ->Args({KECCAK, GL, 3, 24, 4, 4})
    ->Args({KECCAK, GL, 3, 24, 8, 6})
    ->Args({P2_GL12, GL, 3, 24, 8, 6})
    ->Args({KECCAK, BB, 4, 24, 2, 5})
    ->Args({P2_BB16, BB, 4, 24, 2, 5})
    ->Args({TRITON_DIGEST, GL, 3, 24, 2, 5})  // Triton's FRI (one value per leaf, Tip5 nodes)
    ->Args({TRITON, GL, 3, 24, 2, 5})         // the same fold, groups hashed with hash_varlen
    ->Unit(benchmark::kMillisecond)
    ->UseRealTime();
BENCHMARK(BM_FRI_CPU)
    ->Args({KECCAK, GL, 3, 18, 2, 5})
    ->Args({P2_GL12, GL, 3, 18, 2, 5})
    ->Args({P2_BB16, BB, 4, 18, 2, 5})
    ->Unit(benchmark::kMillisecond)
    ->UseRealTime()
    ->Iterations(1);
BENCHMARK(BM_ConstraintCommit_CUDA)->Args({20, 4, 4, 0})->Args({20, 4, 4, 1})->Unit(benchmark::kMillisecond)->UseRealTime();
// Issue shape: 2^20 rows x 256 columns at blowup 4, Goldilocks, cubic points.
BENCHMARK(BM_OodDeep_CUDA)->Args({20, 256, 4, 0})->Args({20, 256, 4, 1})->Unit(benchmark::kMillisecond)->UseRealTime();
BENCHMARK(BM_OodDeep_CPU)
    ->Args({14, 256, 4, 0})
    ->Args({14, 256, 4, 1})
    ->Unit(benchmark::kMillisecond)
    ->UseRealTime()
    ->Iterations(1);
// CPU backend: W-shapes scaled down to 2^14 leaves (time is linear in rows).
BENCHMARK(BM_Commit_CPU)
    ->Args({KECCAK, GL, 14, 256})
    ->Args({P2_GL12, GL, 14, 256})
    ->Args({P2_KB16, KB, 14, 128})
    ->Args({RPO, GL, 14, 256})
    ->Args({TIP5, GL, 14, 256})
    ->Unit(benchmark::kMillisecond)
    ->UseRealTime()
    ->Iterations(1);

}  // namespace

BENCHMARK_MAIN();
