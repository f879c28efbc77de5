// SPDX-License-Identifier: MIT OR Apache-2.0
// CUDA kernel of the quotient evaluation: one thread a row, on the shared
// row evaluator of src/core/quotient_ops.h.
#pragma once

#include <cstdint>

#include "core/quotient_ops.h"

namespace gp {
namespace kern {

// Value slots of thread t in device scratch, slot-major: slot s of every
// thread is one contiguous run of `stride` words, so a warp's accesses to a
// slot are coalesced.
template <class F, int D>
struct QScratch {
    typename F::Tw *base;
    typename F::T *ext;
    uint64_t stride, t;
    __device__ typename F::Tw &b(uint32_t s) { return base[(uint64_t)s * stride + t]; }
    __device__ typename F::T &e(uint32_t s, int k) { return ext[((uint64_t)s * D + k) * stride + t]; }
};

// Thread t takes the rows r = t, t + stride, ... in the inputs' stored
// order (coalesced reads of this row and, but for a carry, the next), and
// writes quotient-domain row i (natural order) of `out` (D columns of Q).
template <class F, int D>
__global__ void __launch_bounds__(128) k_quotient(const QIns *__restrict__ prog, uint64_t n, QInputs<F, D> in,
                                                  bool need_first, bool need_last, typename F::Tw *slots_b,
                                                  typename F::T *slots_e, uint64_t stride, typename F::T *out) {
    const uint64_t t = blockIdx.x * (uint64_t)blockDim.x + threadIdx.x;
    if (t >= stride) return;
    QScratch<F, D> slots{slots_b, slots_e, stride, t};
    const uint64_t q = 1ull << in.log_q;
    for (uint64_t r = t; r < q; r += stride) {
        const uint64_t i = in.bitrev ? bit_reverse(r, in.log_q) : r;
        const QRowPoint<F> pt = q_row_point<F, D>(in, i, need_first, need_last);
        const Ext<F, D> v = q_eval_row<F, D>(prog, n, in, i, pt, slots);
        for (int k = 0; k < D; ++k) out[(uint64_t)k * q + i] = v.c[k];
    }
}

}  // namespace kern
}  // namespace gp
