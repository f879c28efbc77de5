// SPDX-License-Identifier: MIT OR Apache-2.0
// The timing of the in-register rate probes (bench/modmul.cu,
// bench/poseidon2_rate.cu): a kernel out(T *out, uint64_t seed) launched on
// blocks_per_sm blocks of 256 threads an SM, each thread doing `per_thread`
// work items; one untimed launch, then the best of 5.
#pragma once

#include <cuda_runtime.h>

#include <cstdint>

namespace {

// This thread's N lanes, canonical values of field F drawn from its index
// and the launch's seed.
template <class F, int N>
__device__ __forceinline__ void seed_lanes(typename F::T (&v)[N], uint64_t seed) {
    const uint64_t id = blockIdx.x * (uint64_t)blockDim.x + threadIdx.x;
#pragma unroll
    for (int c = 0; c < N; ++c) v[c] = (typename F::T)((id * 0x9e3779b97f4a7c15ull + seed + c) % F::P);
}

// Best of 5 timed launches of `kernel`, as work items per second.
template <class T, class K>
double launch_rate(K kernel, double per_thread, int blocks_per_sm = 16) {
    int dev = 0, sms = 0;
    cudaGetDevice(&dev);
    cudaDeviceGetAttribute(&sms, cudaDevAttrMultiProcessorCount, dev);
    T *out = nullptr;
    if (cudaMalloc(&out, sizeof(T)) != cudaSuccess) return 0;
    const int threads = 256, blocks = sms * blocks_per_sm;
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

}  // namespace
