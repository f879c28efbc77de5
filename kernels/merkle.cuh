// CUDA kernels of the Merkle commitment: one thread per leaf or node, on the
// shared steps of src/core/merkle_ops.h. Leaves read the column-major matrices
// directly: neighbouring threads read neighbouring rows of each column.
#pragma once

#include <cstdint>

#include "core/merkle_ops.h"

namespace gp {
namespace kern {

template <class P>
__global__ void k_merkle_leaves(const MatView<typename P::T> *mats, uint32_t m0, uint32_t m1,
                                uint64_t count, uint32_t rate, uint32_t digest, typename P::T *out) {
    for (uint64_t i = blockIdx.x * (uint64_t)blockDim.x + threadIdx.x; i < count;
         i += (uint64_t)gridDim.x * blockDim.x)
        merkle_hash_row<P>(mats, m0, m1, i, rate, digest, out + i * digest);
}

template <class P>
__global__ void k_merkle_layer(const typename P::T *children, uint64_t count,
                               const MatView<typename P::T> *mats, uint32_t m0, uint32_t m1,
                               uint32_t rate, uint32_t digest, typename P::T *out) {
    for (uint64_t i = blockIdx.x * (uint64_t)blockDim.x + threadIdx.x; i < count;
         i += (uint64_t)gridDim.x * blockDim.x)
        merkle_node<P>(children, i, mats, m0, m1, rate, digest, out + i * digest);
}

}  // namespace kern
}  // namespace gp
