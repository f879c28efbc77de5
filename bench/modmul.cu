// Field multiplication rate of the GPU, measured with the library's own
// arithmetic (src/math/field.h): the denominator of the arithmetic floors in
// docs/PERF.md. Each thread runs 8 independent dependency chains, enough to
// keep the multiplier pipes busy at full occupancy.
#include <cuda_runtime.h>

#include <cstdint>
#include <cstdio>

#include "bench_util.h"
#include "math/field.h"

namespace {

constexpr int kChains = 8;
constexpr int kSteps = 2048;

template <class F>
__global__ void k_modmul(typename F::T *out, uint64_t seed) {
    using T = typename F::T;
    T a[kChains];
    const uint64_t id = blockIdx.x * (uint64_t)blockDim.x + threadIdx.x;
#pragma unroll
    for (int c = 0; c < kChains; ++c) a[c] = (T)((id * 0x9e3779b97f4a7c15ull + seed + c) % F::P);
#pragma unroll 4
    for (int s = 0; s < kSteps; ++s) {
#pragma unroll
        for (int c = 0; c < kChains; ++c) a[c] = F::mul(a[c], a[(c + 1) % kChains]);
    }
    T acc = 0;
#pragma unroll
    for (int c = 0; c < kChains; ++c) acc = F::add(acc, a[c]);
    if (acc == (T)0x12345) out[0] = acc;  // keeps the work; practically never stores
}

// The NTT's unit of work: a DIF butterfly (a + b, (a - b) * w) with a
// prepared twiddle, as the NTT kernels run it (src/math/field.h), on 16
// registers in two pairings per step so that no value settles.
template <class F>
__global__ void k_butterfly(typename F::T *out, uint64_t seed) {
    using T = typename F::T;
    using Tw = typename F::Tw;
    T v[16];
    const uint64_t id = blockIdx.x * (uint64_t)blockDim.x + threadIdx.x;
#pragma unroll
    for (int c = 0; c < 16; ++c) v[c] = (T)((id * 0x9e3779b97f4a7c15ull + seed + c) % F::P);
    const Tw w0 = F::to_tw((T)(seed * 3 + 5)), w1 = F::to_tw((T)(seed * 7 + 11));
#pragma unroll 2
    for (int s = 0; s < kSteps / 2; ++s) {
#pragma unroll
        for (int c = 0; c < 8; ++c) gp::dif_butterfly<F>(v[c], v[c + 8], (c & 1) ? w1 : w0);
#pragma unroll
        for (int c = 0; c < 8; ++c) gp::dif_butterfly<F>(v[2 * c], v[2 * c + 1], (c & 1) ? w0 : w1);
    }
    T acc = 0;
#pragma unroll
    for (int c = 0; c < 16; ++c) acc = F::add(acc, v[c]);
    if (acc == (T)0x12345) out[0] = acc;
}
constexpr double kButterfliesPerThread = 16.0 * (kSteps / 2);

// Best of 5 timed launches of `kernel`, as work items per second.
template <class T, class K>
double launch_rate(K kernel, double per_thread) {
    int dev = 0, sms = 0;
    cudaGetDevice(&dev);
    cudaDeviceGetAttribute(&sms, cudaDevAttrMultiProcessorCount, dev);
    T *out = nullptr;
    if (cudaMalloc(&out, sizeof(T)) != cudaSuccess) return 0;
    const int threads = 256, blocks = sms * 16;
    cudaEvent_t e0, e1;
    cudaEventCreate(&e0);
    cudaEventCreate(&e1);
    kernel<<<blocks, threads>>>(out, 1);
    float best = 1e30f;
    for (int i = 0; i < 5; ++i) {
        cudaEventRecord(e0);
        kernel<<<blocks, threads>>>(out, 2 + i);
        cudaEventRecord(e1);
        cudaEventSynchronize(e1);
        float ms = 0;
        cudaEventElapsedTime(&ms, e0, e1);
        if (ms < best) best = ms;
    }
    cudaEventDestroy(e0);
    cudaEventDestroy(e1);
    cudaFree(out);
    if (cudaGetLastError() != cudaSuccess) return 0;
    return (double)blocks * threads * per_thread / (best * 1e-3);
}

template <class F>
double rate() {
    return launch_rate<typename F::T>(k_modmul<F>, (double)kChains * kSteps);
}
template <class F>
double bfly_rate() {
    return launch_rate<typename F::T>(k_butterfly<F>, kButterfliesPerThread);
}

}  // namespace

namespace gpb {

namespace {
// Runs probe(F{}) for the field once per process and reports the result.
template <class Probe>
double cached_rate(gp_field f, double (&cache)[4], const char *what, Probe probe) {
    const int i = (int)f & 3;
    if (cache[i] > 0) return cache[i];
    if (f == GP_FIELD_GOLDILOCKS) cache[i] = probe(gp::Goldilocks{});
    else if (f == GP_FIELD_BABYBEAR) cache[i] = probe(gp::BabyBear{});
    else cache[i] = probe(gp::KoalaBear{});
    std::fprintf(stderr, "measured %s %s: %.3g per second\n",
                 f == GP_FIELD_GOLDILOCKS ? "Goldilocks" : f == GP_FIELD_BABYBEAR ? "BabyBear" : "KoalaBear", what,
                 cache[i]);
    return cache[i];
}
}  // namespace

double modmul_rate(gp_field f) {
    static double r[4] = {0, 0, 0, 0};
    return cached_rate(f, r, "multiplication rate", [](auto F) { return rate<decltype(F)>(); });
}

double butterfly_rate(gp_field f) {
    static double r[4] = {0, 0, 0, 0};
    return cached_rate(f, r, "NTT butterfly rate", [](auto F) { return bfly_rate<decltype(F)>(); });
}

}  // namespace gpb
