// SPDX-License-Identifier: MIT OR Apache-2.0
// CUDA kernels of the FRI layers: one thread per folded group, and one per
// position when a codeword becomes the matrix of its layer commitment, on the
// shared steps of src/core/fri_ops.h.
#pragma once

#include <cstdint>

#include "core/fri_ops.h"

namespace gp {
namespace kern {

template <class F, int D>
__global__ void k_fri_fold(FriFoldParams<F, D> p, const typename F::T *in, uint64_t groups, typename F::T *out) {
    for (uint64_t g = blockIdx.x * (uint64_t)blockDim.x + threadIdx.x; g < groups;
         g += (uint64_t)gridDim.x * blockDim.x)
        fri_fold_group<F, D>(p, in, g, out);
}

template <class T>
__global__ void k_fri_to_matrix(uint32_t log_n, uint32_t log_a, bool bitrev, uint32_t D, const T *in, T *out) {
    const uint64_t n = 1ull << log_n;
    for (uint64_t p = blockIdx.x * (uint64_t)blockDim.x + threadIdx.x; p < n; p += (uint64_t)gridDim.x * blockDim.x)
        fri_to_matrix(log_n, log_a, bitrev, D, in, p, out);
}

}  // namespace kern
}  // namespace gp
