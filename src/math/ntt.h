// SPDX-License-Identifier: MIT OR Apache-2.0
// NTT building blocks shared by the CPU and CUDA backends: twiddle tables,
// in-place radix-2 transforms and the per-coset scaling used by the LDE.
//
// Index conventions (n = 2^log_n, w = two_adic_generator(log_n)):
//  - DIF (Gentleman-Sande) maps natural-order input to bit-reversed output.
//  - DIT (Cooley-Tukey) maps bit-reversed input to natural-order output.
//  - Both use the table layout tw[h + j] = w_{2h}^j for h = 2^q, j < h, so a
//    table built for size 2^L serves every size up to 2^L, and its top level
//    (offset 2^(L-1)) holds w_{2^L}^j for j < 2^(L-1).
#pragma once

#include <algorithm>
#include <cstdint>
#include <vector>

#include "core/thread_pool.h"
#include "math/field.h"

namespace gp {

// Fills tw[0, 2^log_size) with the forward (or inverse) twiddles in prepared
// (Tw) form. tw[0] is unused and set to to_tw(1). Pool: a ThreadPool, or
// anything with its parallel_ranges (the table builders run serially in
// unit tests that do not link the library's internals).
template <class F, class Pool = ThreadPool>
void build_twiddles(typename F::Tw *tw, uint32_t log_size, bool inverse, Pool &pool) {
    using T = typename F::T;
    tw[0] = F::to_tw(1);
    if (log_size == 0) return;
    uint64_t half = 1ull << (log_size - 1);
    T root = two_adic_generator<F>(log_size);
    if (inverse) root = finv<F>(root);
    // Top level: tw[half + j] = root^j, computed in parallel chunks.
    pool.parallel_ranges(half, [&](uint64_t b, uint64_t e) {
        T x = fpow<F>(root, b);
        for (uint64_t j = b; j < e; ++j) {
            tw[half + j] = F::to_tw(x);
            x = F::mul(x, root);
        }
    });
    // Lower levels: w_{2h}^j = w_{4h}^{2j}.
    for (uint64_t h = half >> 1; h >= 1; h >>= 1)
        for (uint64_t j = 0; j < h; ++j) tw[h + j] = tw[2 * h + 2 * j];
}

// Fills out[k] = to_tw(c * base^k) for k < count.
template <class F>
void build_powers(typename F::Tw *out, uint64_t count, typename F::T base, typename F::T c,
                  ThreadPool &pool) {
    using T = typename F::T;
    pool.parallel_ranges(count, [&](uint64_t b, uint64_t e) {
        T x = F::mul(c, fpow<F>(base, b));
        for (uint64_t k = b; k < e; ++k) {
            out[k] = F::to_tw(x);
            x = F::mul(x, base);
        }
    });
}

// The four-step factors of a transform's top segment of t bits (lo = log_n
// - t low bits below it), in position order: out[(m << lo) + b] =
// w^(bit_reverse(m, t) b) in Tw form, w the size-2^log_n root (inverse:
// its inverse), from tw, a table of either direction serving 2^log_n
// (w^e for e >= 2^(log_n-1) is minus w^(e - 2^(log_n-1))). Multiplying the
// top segment's input by them before a DIT on bit-reversed rows (or its
// output by them after a DIF on natural rows), with the segment's own
// stages as independent size-2^t transforms, is the segment of the full
// transform (kernels/ntt.cuh, k_lde_spread).
template <class F, class Pool = ThreadPool>
void build_segment_factors(typename F::Tw *out, uint32_t log_n, uint32_t t, const typename F::Tw *tw,
                           Pool &pool) {
    const uint32_t lo = log_n - t;
    const uint64_t half = 1ull << (log_n - 1), rows = 1ull << t, cols = 1ull << lo;
    pool.parallel_ranges(rows, [&](uint64_t b0, uint64_t e0) {
        for (uint64_t m = b0; m < e0; ++m) {
            const uint64_t r = bit_reverse(m, t);
            for (uint64_t b = 0; b < cols; ++b) {
                const uint64_t e = r * b;  // < 2^log_n
                typename F::Tw w = tw[half + (e & (half - 1))];
                if (e & half) w = (typename F::Tw)(F::P - w);  // roots are nonzero
                out[(m << lo) + b] = w;
            }
        }
    });
}

// The group-indexed (bit-reversed) twiddles of the forward transform's
// Cooley-Tukey form: out[m + g] = w_{2m}^bit_reverse(g, log2 m) for m =
// 2^q, g < m, from tw, a table of the same direction serving 2^log_size
// (each level of tw in bit-reversed order); out[0] = to_tw(1). Stage m of
// the form (m = 1, 2, .., n/2 groups of 2h = n/m elements) maps the pair
// (u, v) at offsets j, j + h of group g to (u + z v, u - z v), z = out[m +
// g]: natural-order input, bit-reversed output, the DIF's result. The
// twiddle depends on the group, not on the offset in it, so a tile of the
// top stages reads the table's first entries whatever its position, and a
// tile of the low stages reads one contiguous run a stage (kernels/ntt.cuh,
// tile_group_stages, CT). The entries do not depend on n: one table serves
// every size up to 2^log_size.
template <class F, class Pool = ThreadPool>
void build_group_twiddles(typename F::Tw *out, uint32_t log_size, const typename F::Tw *tw, Pool &pool) {
    out[0] = F::to_tw(1);
    for (uint32_t q = 0; q < log_size; ++q) {
        const uint64_t m = 1ull << q;
        pool.parallel_ranges(m, [&](uint64_t b, uint64_t e) {
            for (uint64_t g = b; g < e; ++g) out[m + g] = tw[m + bit_reverse(g, q)];
        });
    }
}

// In-place forward transform in the Cooley-Tukey form of
// build_group_twiddles (natural-order input, bit-reversed output), group
// twiddles zeta serving 2^log_n: the reference the kernels' form is tested
// against (tests/test_ntt.cpp).
template <class F>
void ct_group_forward(typename F::T *a, uint32_t log_n, const typename F::Tw *zeta) {
    const uint64_t n = 1ull << log_n;
    for (uint64_t m = 1; m < n; m <<= 1) {
        const uint64_t h = n / (2 * m);
        for (uint64_t g = 0; g < m; ++g)
            for (uint64_t j = 0; j < h; ++j) dit_butterfly<F>(a[2 * g * h + j], a[2 * g * h + j + h], zeta[m + g]);
    }
}

// One radix-2 stage of half-size h = 2^q over a[0, len), len a multiple of 2h.
template <class F, bool DIF>
void radix2_stage(typename F::T *a, uint64_t len, uint64_t h, const typename F::Tw *tw) {
    for (uint64_t s = 0; s < len; s += 2 * h)
        for (uint64_t j = 0; j < h; ++j) {
            if (DIF)
                dif_butterfly<F>(a[s + j], a[s + j + h], tw[h + j]);
            else
                dit_butterfly<F>(a[s + j], a[s + j + h], tw[h + j]);
        }
}

// Stages whose butterflies stay inside blocks of 2^kCacheBlockLog elements are
// run block by block (all such stages per block while it is in cache); the
// larger stages sweep the whole array. Same butterflies, same results.
constexpr uint32_t kCacheBlockLog = 13;

// In-place DIT on bit-reversed input, stages [q0, q1) (h = 2^q ascending).
template <class F>
void dit_stages(typename F::T *a, uint32_t log_n, uint32_t q0, uint32_t q1,
                const typename F::Tw *tw) {
    const uint64_t n = 1ull << log_n;
    const uint32_t qb = std::min(q1, std::max(q0, std::min(log_n, kCacheBlockLog)));
    const uint64_t block = 1ull << std::min(log_n, kCacheBlockLog);
    if (q0 < qb)
        for (uint64_t b = 0; b < n; b += block)
            for (uint32_t q = q0; q < qb; ++q) radix2_stage<F, false>(a + b, block, 1ull << q, tw);
    for (uint32_t q = qb; q < q1; ++q) radix2_stage<F, false>(a, n, 1ull << q, tw);
}

// In-place DIF on natural-order input, stages [q0, q1) (h = 2^q descending).
template <class F>
void dif_stages(typename F::T *a, uint32_t log_n, uint32_t q0, uint32_t q1,
                const typename F::Tw *tw) {
    const uint64_t n = 1ull << log_n;
    const uint32_t qb = std::min(q1, std::max(q0, std::min(log_n, kCacheBlockLog)));
    const uint64_t block = 1ull << std::min(log_n, kCacheBlockLog);
    for (uint32_t q = q1; q-- > qb;) radix2_stage<F, true>(a, n, 1ull << q, tw);
    if (q0 < qb)
        for (uint64_t b = 0; b < n; b += block)
            for (uint32_t q = qb; q-- > q0;) radix2_stage<F, true>(a + b, block, 1ull << q, tw);
}

template <class T>
void bit_reverse_permute(T *a, uint32_t log_n) {
    uint64_t n = 1ull << log_n;
    for (uint64_t i = 0; i < n; ++i) {
        uint64_t j = bit_reverse(i, log_n);
        if (i < j) {
            T t = a[i];
            a[i] = a[j];
            a[j] = t;
        }
    }
}

// Coset factor of coefficient k for output coset r of an LDE:
//   (g * w_{nB}^r / s)^k / n = scale[k] * w_{nB}^{r k},
// where scale[k] = to_tw((g/s)^k / n) and w_{nB}^m is read from the forward
// twiddle table's level of size nB (m reduced mod nB, sign for m >= nB/2).
template <class F>
GP_HD typename F::T lde_coset_factor_apply(typename F::T v, uint64_t k, uint32_t r,
                                           uint32_t log_nb, const typename F::Tw *scale,
                                           const typename F::Tw *tw_fwd) {
    v = F::mul_tw(v, scale[k]);
    if (r == 0) return v;
    uint64_t nb = 1ull << log_nb, half = nb >> 1;
    uint64_t m = (k * r) & (nb - 1);
    if (m >= half) {
        v = F::neg(v);
        m -= half;
    }
    return F::mul_tw(v, tw_fwd[half + m]);
}

// Segmentation of log_n bits into passes of at most max_bits each (balanced,
// first segment largest), used by the CUDA backend to plan passes.
struct SegmentPlan {
    uint32_t count = 0;
    uint32_t lo[8] = {0};
    uint32_t bits[8] = {0};
};

inline SegmentPlan plan_segments(uint32_t log_n, uint32_t max_bits) {
    SegmentPlan p;
    uint32_t k = log_n == 0 ? 1 : (log_n + max_bits - 1) / max_bits;
    uint32_t lo = 0;
    for (uint32_t i = 0; i < k; ++i) {
        uint32_t b = log_n / k + (i < log_n % k ? 1 : 0);
        p.lo[i] = lo;
        p.bits[i] = b;
        lo += b;
    }
    p.count = k;
    return p;
}

}  // namespace gp
