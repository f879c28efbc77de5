// SPDX-License-Identifier: MIT OR Apache-2.0
// Shared pieces of the benchmarks: contexts, deterministic traces and the
// hardware floors measured in the same run.
#pragma once

#include <benchmark/benchmark.h>

#include <chrono>
#include <cstdio>
#include <cstring>

#include "gpuprover.h"
#ifdef GP_HAVE_CUDA
#include <cuda_runtime.h>
#endif

namespace gpb {


inline gp_context *context(gp_backend want) {
    static gp_context *cpu = nullptr, *cuda = nullptr;
    static bool cuda_tried = false;
    gp_context_options o;
    gp_context_options_init(&o);
    if (want == GP_BACKEND_CPU) {
        if (!cpu) {
            o.backend = GP_BACKEND_CPU;
            gp_context_create(&o, &cpu);
        }
        return cpu;
    }
    if (!cuda_tried) {
        cuda_tried = true;
        o.backend = GP_BACKEND_CUDA;
        if (gp_context_create(&o, &cuda) != GP_OK) cuda = nullptr;
    }
    return cuda;
}

// A Merkle profile: rate and digest apply to field sponges only.
inline gp_merkle_options merkle_profile(gp_merkle_kind kind, gp_permutation perm, uint32_t rate, uint32_t digest) {
    gp_merkle_options o;
    gp_merkle_options_init(&o);
    o.kind = kind;
    o.perm = perm;
    if (kind == GP_MERKLE_FIELD_SPONGE) {
        o.rate = rate;
        o.digest = digest;
    }
    return o;
}

inline uint64_t splitmix(uint64_t &s) {
    uint64_t z = (s += 0x9e3779b97f4a7c15ull);
    z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
    z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
    return z ^ (z >> 31);
}

// Random canonical trace of rows x cols base elements, column-major bytes.
inline void fill_trace(void *dst, gp_field f, uint64_t count, uint64_t seed) {
    uint64_t p = 0;
    gp_field_info(f, &p, nullptr, nullptr);
    if (gp_field_element_size(f) == 8) {
        auto *d = static_cast<uint64_t *>(dst);
        for (uint64_t i = 0; i < count; ++i) d[i] = splitmix(seed) % p;
    } else {
        auto *d = static_cast<uint32_t *>(dst);
        for (uint64_t i = 0; i < count; ++i) d[i] = (uint32_t)(splitmix(seed) % p);
    }
}

#ifdef GP_HAVE_CUDA
// Device-to-device copy bandwidth (bytes read + written per second).
inline double d2d_bandwidth() {
    static double bw = 0;
    if (bw > 0) return bw;
    const size_t bytes = 2ull << 30;
    void *a = nullptr, *b = nullptr;
    if (cudaMalloc(&a, bytes) != cudaSuccess || cudaMalloc(&b, bytes) != cudaSuccess) return 0;
    cudaMemset(a, 1, bytes);
    cudaMemcpy(b, a, bytes, cudaMemcpyDeviceToDevice);
    cudaEvent_t e0, e1;
    cudaEventCreate(&e0);
    cudaEventCreate(&e1);
    float best = 1e30f;
    for (int i = 0; i < 10; ++i) {
        cudaEventRecord(e0);
        cudaMemcpy(b, a, bytes, cudaMemcpyDeviceToDevice);
        cudaEventRecord(e1);
        cudaEventSynchronize(e1);
        float ms;
        cudaEventElapsedTime(&ms, e0, e1);
        if (ms < best) best = ms;
    }
    cudaFree(a);
    cudaFree(b);
    bw = 2.0 * bytes / (best * 1e-3);
    std::fprintf(stderr, "measured device-to-device copy: %.1f GB/s (read + write)\n", bw / 1e9);
    return bw;
}

// Pinned host-device copy bandwidth, one direction (measured once each).
inline double pinned_bandwidth(cudaMemcpyKind kind) {
    static double bw[2] = {0, 0};
    const int k = kind == cudaMemcpyHostToDevice ? 0 : 1;
    if (bw[k] > 0) return bw[k];
    const size_t bytes = 1ull << 30;
    void *h = nullptr, *d = nullptr;
    if (cudaHostAlloc(&h, bytes, cudaHostAllocDefault) != cudaSuccess) return 0;
    if (cudaMalloc(&d, bytes) != cudaSuccess) return 0;
    std::memset(h, 1, bytes);
    double best = 1e30;
    for (int i = 0; i < 5; ++i) {
        auto t0 = std::chrono::steady_clock::now();
        if (k == 0)
            cudaMemcpy(d, h, bytes, cudaMemcpyHostToDevice);
        else
            cudaMemcpy(h, d, bytes, cudaMemcpyDeviceToHost);
        double s = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
        if (s < best) best = s;
    }
    cudaFree(d);
    cudaFreeHost(h);
    bw[k] = bytes / best;
    std::fprintf(stderr, "measured pinned %s copy: %.1f GB/s\n", k == 0 ? "host-to-device" : "device-to-host",
                 bw[k] / 1e9);
    return bw[k];
}
inline double h2d_bandwidth() { return pinned_bandwidth(cudaMemcpyHostToDevice); }
inline double d2h_bandwidth() { return pinned_bandwidth(cudaMemcpyDeviceToHost); }
#endif

#ifdef GP_HAVE_CUDA
// Multiplications per second of the field's modular multiply on the current
// GPU (bench/modmul.cu), measured once per run.
double modmul_rate(gp_field f);
// NTT butterflies (a + b, (a - b) * w) per second on the current GPU, from
// registers: the arithmetic ceiling of any radix-2 NTT (bench/modmul.cu).
double butterfly_rate(gp_field f);
// The same butterflies run as radix-2^k groups whose inner twiddles are
// powers of two (fields where 2 generates the small roots of unity:
// Goldilocks), with 2^k - 1 general products a group; other fields'
// butterfly_rate. The arithmetic ceiling of the decomposed NTT.
double pow2_butterfly_rate(gp_field f);
// Permutations per second of a width-16 Poseidon2 permutation over BabyBear
// or KoalaBear (Plonky3's instances and SP1's) on its Tw form, from
// registers, as the Merkle sponge runs it: the ceiling of a commitment's
// hashing (bench/poseidon2_rate.cu); 0 for other permutations.
double poseidon2_perm_rate(gp_permutation perm);
#endif

// The context of `backend`, or null after marking the benchmark skipped.
inline gp_context *context_or_skip(benchmark::State &st, gp_backend backend) {
    gp_context *ctx = context(backend);
    if (!ctx) st.SkipWithError("backend unavailable");
    return ctx;
}

// time / floor, as a counter (floor_s: the floor of one iteration).
inline benchmark::Counter x_floor_counter(double floor_s) {
    return benchmark::Counter(floor_s, benchmark::Counter::kIsIterationInvariantRate | benchmark::Counter::kInvert);
}

// A warm-up call, then the timed loop; `once` returns false on failure.
template <class Fn>
void timed_loop(benchmark::State &st, Fn &&once) {
    if (!once()) {
        st.SkipWithError(gp_last_error());
        return;
    }
    for (auto _ : st)
        if (!once()) {
            st.SkipWithError(gp_last_error());
            break;
        }
}

inline gp_field field_of(int64_t f) { return (gp_field)f; }

constexpr int64_t GL = GP_FIELD_GOLDILOCKS, BB = GP_FIELD_BABYBEAR, KB = GP_FIELD_KOALABEAR;

}  // namespace gpb
