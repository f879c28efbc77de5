// SPDX-License-Identifier: MIT OR Apache-2.0
// CUDA kernels for batched hash permutations.
#pragma once

#include <cstdint>

#include "hash/permutations.h"

namespace gp {
namespace kern {

// One state per thread: states[i * WIDTH .. (i + 1) * WIDTH), in place.
template <class P>
__global__ void k_permute(typename P::T *states, uint64_t count) {
    using T = typename P::T;
    for (uint64_t i = blockIdx.x * (uint64_t)blockDim.x + threadIdx.x; i < count;
         i += (uint64_t)gridDim.x * blockDim.x) {
        T s[P::WIDTH];
        T *p = states + i * P::WIDTH;
#pragma unroll
        for (int j = 0; j < P::WIDTH; ++j) s[j] = p[j];
        P::apply(s);
#pragma unroll
        for (int j = 0; j < P::WIDTH; ++j) p[j] = s[j];
    }
}

}  // namespace kern
}  // namespace gp
