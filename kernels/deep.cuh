// SPDX-License-Identifier: MIT OR Apache-2.0
// CUDA kernels of the out-of-domain evaluation and the DEEP composition, on
// the shared steps of src/core/deep_ops.h.
#pragma once

#include <cstdint>

#include <cub/block/block_reduce.cuh>

#include "core/deep_ops.h"

namespace gp {
namespace kern {

template <class F, int E>
__global__ void k_ood_weights(uint32_t log_nb, bool bitrev, typename F::T shift, typename F::T omega_n, Ext<F, E> z,
                              Ext<F, E> *w) {
    const uint64_t nb = 1ull << log_nb;
    for (uint64_t p = blockIdx.x * (uint64_t)blockDim.x + threadIdx.x; p < nb; p += (uint64_t)gridDim.x * blockDim.x)
        w[p] = ood_weight<F, E>(ood_point<F>(log_nb, bitrev, shift, omega_n, p), z);
}

template <class F, int E>
struct ExtSum {
    __device__ Ext<F, E> operator()(const Ext<F, E> &a, const Ext<F, E> &b) const { return a + b; }
};

// Block (q, c): the partial sum of column c over positions [q L, (q+1) L).
template <class F, int E, int BLOCK>
__global__ void __launch_bounds__(BLOCK) k_ood_partials(const typename F::T *const *cols, const Ext<F, E> *w,
                                                        uint32_t log_m, uint32_t log_nb, bool bitrev,
                                                        uint64_t per_block, typename F::T *partials) {
    const uint64_t nb = 1ull << log_nb;
    using Reduce = cub::BlockReduce<Ext<F, E>, BLOCK>;
    __shared__ typename Reduce::TempStorage tmp;
    const uint64_t q = blockIdx.x, c = blockIdx.y;
    const typename F::T *col = cols[c];
    Ext<F, E> acc = Ext<F, E>::zero();
    const uint64_t end = (q + 1) * per_block < nb ? (q + 1) * per_block : nb;
    for (uint64_t p = q * per_block + threadIdx.x; p < end; p += BLOCK) acc = acc + w[p].scale(col[ood_row(log_m, log_nb, bitrev, p)]);
    const Ext<F, E> total = Reduce(tmp).Reduce(acc, ExtSum<F, E>{});
    if (threadIdx.x == 0)
        for (int k = 0; k < E; ++k) partials[((uint64_t)c * gridDim.x + q) * E + k] = total.c[k];
}

template <class F, int E>
__global__ void k_deep(const ColSet<typename F::T> *sets, uint32_t nsets, uint32_t log_m, bool bitrev,
                       typename F::T shift, typename F::T omega_m, const Ext<F, E> *z, uint32_t npoints,
                       const Ext<F, E> *alpha, uint64_t ncols, const Ext<F, E> *corr, typename F::T *out) {
    const uint64_t m = 1ull << log_m;
    for (uint64_t r = blockIdx.x * (uint64_t)blockDim.x + threadIdx.x; r < m; r += (uint64_t)gridDim.x * blockDim.x) {
        const uint64_t nat = bitrev ? bit_reverse(r, log_m) : r;
        const typename F::T x = F::mul(shift, fpow<F>(omega_m, nat));
        const Ext<F, E> q = deep_row<F, E>(sets, nsets, m, r, x, z, npoints, alpha, ncols, corr);
        for (int k = 0; k < E; ++k) out[(uint64_t)k * m + r] = q.c[k];
    }
}

// dst[i] += src[i] (the partial DEEP compositions of several devices).
template <class F>
__global__ void k_add_into(typename F::T *dst, const typename F::T *src, uint64_t count) {
    for (uint64_t i = blockIdx.x * (uint64_t)blockDim.x + threadIdx.x; i < count; i += (uint64_t)gridDim.x * blockDim.x)
        dst[i] = F::add(dst[i], src[i]);
}

}  // namespace kern
}  // namespace gp
