// SPDX-License-Identifier: MIT OR Apache-2.0
// The CUDA backend's FRI steps: folding and the matrix form of a codeword
// for its layer commitment (kernels/fri.cuh).
#include <cuda_runtime.h>

#include "core/core.h"
#include "core/trace.h"
#include "cuda/cuda_backend.h"
#include "kernels/fri.cuh"

namespace gp {
namespace cuda {

void CudaBackend::fri_fold(const FriFoldArgs &a) {
    TraceRange trace("cuda: fri fold");
    GP_CUDA(cudaSetDevice(device_));
    ext_dispatch(a.field, a.ext, a.ext_kind, [&](auto F, auto Dc) {
        using Fd = decltype(F);
        constexpr int D = decltype(Dc)::value;
        const uint64_t groups = 1ull << (a.log_n - a.log_a);
        kern::k_fri_fold<Fd, D><<<grid_for((groups + 127) / 128, (uint32_t)sms_ * 32), 128, 0, compute_>>>(
            fri_params<Fd, D>(a), static_cast<const typename Fd::T *>(a.in), groups,
            static_cast<typename Fd::T *>(a.out));
        check_launch();
        GP_CUDA(cudaStreamSynchronize(compute_));
    });
}

void CudaBackend::fri_to_matrix(uint32_t elem_size, uint32_t ext, uint32_t log_n, uint32_t log_a, bool bitrev,
                                const void *in, void *out) {
    TraceRange trace("cuda: fri matrix form");
    GP_CUDA(cudaSetDevice(device_));
    const uint64_t n = 1ull << log_n;
    const uint32_t grid = grid_for((n + 255) / 256, (uint32_t)sms_ * 16);
    if (elem_size == 8)
        kern::k_fri_to_matrix<uint64_t><<<grid, 256, 0, compute_>>>(
            log_n, log_a, bitrev, ext, static_cast<const uint64_t *>(in), static_cast<uint64_t *>(out));
    else
        kern::k_fri_to_matrix<uint32_t><<<grid, 256, 0, compute_>>>(
            log_n, log_a, bitrev, ext, static_cast<const uint32_t *>(in), static_cast<uint32_t *>(out));
    check_launch();
    GP_CUDA(cudaStreamSynchronize(compute_));
}

}  // namespace cuda
}  // namespace gp
