// SPDX-License-Identifier: MIT OR Apache-2.0
// CUDA kernels of the Merkle commitment: one thread per leaf, node or
// opening, on the shared steps of src/core/merkle_ops.h and any tree hasher
// of src/hash/tree_hash.h. Leaves read the column-major matrices directly:
// neighbouring threads read neighbouring rows of each column.
#pragma once

#include <cstdint>

#include "core/merkle_ops.h"

namespace gp {
namespace kern {

template <class H>
__global__ void k_merkle_leaves(H h, const MatView<typename H::T> *mats, uint32_t m0, uint32_t m1, uint64_t count,
                                typename H::W *out) {
    for (uint64_t i = blockIdx.x * (uint64_t)blockDim.x + threadIdx.x; i < count;
         i += (uint64_t)gridDim.x * blockDim.x)
        merkle_leaf(h, mats, m0, m1, i, out + i * h.digest);
}

template <class H>
__global__ void k_merkle_layer(H h, const typename H::W *children, uint64_t count,
                               const MatView<typename H::T> *mats, uint32_t m0, uint32_t m1,
                               const typename H::W *inject, typename H::W *out) {
    for (uint64_t i = blockIdx.x * (uint64_t)blockDim.x + threadIdx.x; i < count;
         i += (uint64_t)gridDim.x * blockDim.x)
        merkle_node(h, children, i, mats, m0, m1, inject, out + i * h.digest);
}

// One column batch of a streamed leaf hash (AbsorbArgs): one thread per row;
// state words are `rows` apart, so neighbouring threads touch neighbouring
// words.
template <class H>
__global__ void k_merkle_absorb(H h, const MatView<typename H::T> *mats, typename H::S *states, uint64_t rows,
                                uint64_t n, uint64_t left, uint64_t count, bool first, typename H::W *digests) {
    for (uint64_t i = blockIdx.x * (uint64_t)blockDim.x + threadIdx.x; i < rows;
         i += (uint64_t)gridDim.x * blockDim.x)
        merkle_absorb_row(h, mats, states, rows, i, n, left, count, first, digests);
}

// Opening q: rows of every matrix (rows != null) and the path (paths != null).
template <class T, class W>
__global__ void k_merkle_open(const MatView<T> *mats, uint32_t nmats, uint64_t row_elems, const W *nodes,
                              uint32_t log_h, bool lifted, uint32_t path_len, uint32_t digest, const uint64_t *indices,
                              uint64_t count, T *rows, W *paths) {
    for (uint64_t q = blockIdx.x * (uint64_t)blockDim.x + threadIdx.x; q < count;
         q += (uint64_t)gridDim.x * blockDim.x) {
        if (rows) merkle_open_rows(mats, nmats, log_h, indices[q], lifted, rows + q * row_elems);
        if (paths)
            merkle_open_path(nodes, log_h, path_len, digest, indices[q], paths + q * (uint64_t)path_len * digest);
    }
}

}  // namespace kern
}  // namespace gp
