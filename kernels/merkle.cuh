// CUDA kernels of the Merkle commitment: one thread per leaf, node or
// opening, on the shared steps of src/core/merkle_ops.h and any tree hasher
// of src/hash/tree_hash.h. Leaves read the column-major matrices directly:
// neighbouring threads read neighbouring rows of each column.
#pragma once

#include <cstdint>

#include "core/fri_ops.h"
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
                               const MatView<typename H::T> *mats, uint32_t m0, uint32_t m1, typename H::W *out) {
    for (uint64_t i = blockIdx.x * (uint64_t)blockDim.x + threadIdx.x; i < count;
         i += (uint64_t)gridDim.x * blockDim.x)
        merkle_node(h, children, i, mats, m0, m1, out + i * h.digest);
}

// Opening q: rows of every matrix (rows != null) and the path (paths != null).
template <class T, class W>
__global__ void k_merkle_open(const MatView<T> *mats, uint32_t nmats, uint64_t row_elems, const W *nodes,
                              uint32_t log_h, uint32_t path_len, uint32_t digest, const uint64_t *indices,
                              uint64_t count, T *rows, W *paths) {
    for (uint64_t q = blockIdx.x * (uint64_t)blockDim.x + threadIdx.x; q < count;
         q += (uint64_t)gridDim.x * blockDim.x) {
        if (rows) merkle_open_rows(mats, nmats, log_h, indices[q], rows + q * row_elems);
        if (paths)
            merkle_open_path(nodes, log_h, path_len, digest, indices[q], paths + q * (uint64_t)path_len * digest);
    }
}

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
