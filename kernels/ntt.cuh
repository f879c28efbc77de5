// SPDX-License-Identifier: MIT OR Apache-2.0
// CUDA kernels for batched NTTs and coset LDEs.
//
// A size-2^n transform is split into segments of index bits; one kernel pass
// performs all butterfly stages of one segment for a tile held in shared
// memory, several stages per sync in registers (radix 2^3). A tile is
// 2^t rows x C columns: for a segment of bits [lo, lo + t), row m and column c
// hold index (m << lo) + base + c, so each tile row is C consecutive
// elements (32 bytes) and every global access is coalesced.
//
// A two-segment LDE runs in the turned form (TileCfg::kTurn, k_turn_pass):
//   P_1   the inverse DIF's top segment (natural evaluations in)  (N -> N)
//   P_2   its low segment (bit-reversed coefficients), the coset scaling in
//         that order, each coset's forward DIT low segment (k_lde_spread,
//         TURN)                                                   (N -> B*N)
//   P_3   each coset's forward DIT top segment, written as interleaved
//         natural rows or bit-reversed regions                    (B*N -> B*N)
// Otherwise (three segments, or where its tables or scratch do not fit) it
// runs as
//   A_1   gather the natural-order input in bit-reversed order, inverse DIT
//         on the lowest segment                       (N in,  N out)
//   A_i   inverse DIT on middle segments, in place     (only for 3+ segments)
//   F     the top segment of the inverse DIT, then the coset scaling into
//         B regions; for the 31-bit fields also the top segment of each
//         coset's forward DIF                             (N in, B*N out)
//   B_i   forward DIF on the remaining segments of every coset, in place; the
//         last one writes bit-reversed (in place) or natural (scatter) order.
//         The 31-bit fields' bit-reversed two-segment LDE runs the forward
//         transform in the group form instead (TileCfg::kGroupTw): F's
//         forward stages without the four-step factors, then k_pair_pass.
// A column that fits one tile runs all of it in one kernel (k_lde_fused).
#pragma once

#include <cstdint>
#include <cstring>
#include <type_traits>
#include <utility>

#include "math/field.h"
#include "math/ntt.h"
#include "math/swizzle.h"

namespace gp {
namespace kern {

constexpr int kThreads = 512;
// Transform sizes 2^n for which k_tile_pass and the gather pass run the
// power-of-two groups (POW2, separate kernels so that the general ones keep
// their registers; use_pow2_groups):
// the range where they measured faster (n = 19, 20, 21: 5-12%). At n = 22
// the LDE was 1.6% slower and at n = 23 (three segments of 7-8 bits, twiddle
// levels of 64 MiB) 21% slower, so larger sizes keep the general form, as
// do the smaller ones, which were not measured (docs/PERF.md version 19).
constexpr uint32_t kPow2MinLog = 19, kPow2MaxLog = 21;
// The spread pass's tile order (tile_of_block): runs of 2^kSpreadGroupLog
// neighbouring tiles of each column in turn, for every field (the tile
// passes go column by column; src/cuda/cuda_ntt.cu, tile_group).
constexpr uint32_t kSpreadGroupLog = 2;
// Blowups 2^log_b for which the 31-bit spread pass runs in four-step form
// (k_lde_spread, FOUR): measured faster at 2 and 8 (BabyBear 2^22 x 128 at
// B=2 17.9 -> 17.3-17.4 ms, 2^21 x 64 at B=8 15.2 -> 14.8-14.9), slower at
// 32 (14.1 -> 14.4, against the factored twiddles; docs/PERF.md v27).
constexpr uint32_t kFourStepMaxLogB = 3;
template <class F>
constexpr bool use_pow2_groups(uint32_t n) {
    return F::kPow2Roots && n >= kPow2MinLog && n <= kPow2MaxLog;
}

// Transform sizes 2^n for which the 31-bit tile passes run at two blocks an
// SM (64 registers) instead of three (k_tile_pass's MINB): three or more
// segments, whose middle passes take 64-thread-block tiles of few rows.
template <class F>
struct TileCfg;
template <class F>
constexpr bool use_wide_regs(uint32_t n);
// kMinBlocks: blocks of kThreads an SM must hold (the register cap ptxas
// works to; 0 leaves ptxas its default). The 31-bit passes fit 40 registers
// without spilling, so three 64 KiB tiles share an SM (75% of the warp slots
// instead of 50%: 12% faster LDE, docs/PERF.md version 15); Goldilocks
// spills at 40, and a cap of 1 or 2 blocks lets ptxas take 62-84 registers
// (natural-order W1 10% slower), so it keeps the default (50-60).
// kTopDif: the coset spread also runs the top segment of the forward DIF
// (k_lde_spread): 8% faster for the 31-bit fields, 2-5% slower for
// Goldilocks, whose passes are bound by arithmetic, not memory
// (docs/PERF.md version 17).
// kGroupTw: the LDE's forward transform may run in the group form
// (math/ntt.h, build_group_twiddles; the host takes it for two segments
// and bit-reversed output): its top segment is the columns' size-2^t
// transforms with no four-step factor after them (k_lde_spread, GROUP),
// and its lowest segment reads group twiddles (k_pair_pass). BabyBear
// 2^22 x 128 B=2 15.4 -> 14.8 ms on the H200 (docs/PERF.md v33).
// kTurn: two-segment LDEs run in the turned form (k_turn_pass, k_lde_spread
// TURN; the host takes it where its plan and tables fit): the inverse DIF,
// the coset scaling in bit-reversed order and the forward DIT, with the
// top segments in four-step form in the first and last passes. On the
// H100 it took BabyBear 2^22 x 128 B=2 from 17.9 to 14.6 ms in natural
// order and 16.0 to 15.6 bit-reversed, W1 from 38.3 / 39.6 to 32.2 /
// 35.4, and the three-segment 2^23 sizes to two segments (BabyBear B=2
// 30.8 -> 16.6; docs/PERF.md v34). kTurnLowMax: the split's largest
// lowest segment (Goldilocks 2^22 and 2^23 at 2^11-2^12 were 2-10% faster
// than at 2^13 bit-reversed; the 31-bit fields gained up to 2^13-2^14),
// and kTurnLowMaxB8 the same from blowup 8 on, where the lowest segment's
// pass runs once a coset: 2^12, four radix-8 groups, took BabyBear 2^21 x
// 64 at B=8 from 12.7 to 11.8 ms and 2^19 x 64 at B=32 from 12.0 to 11.0
// bit-reversed on the H100 (2^13 is five groups; docs/PERF.md v35), and in
// natural order, where the tiles allow it from blowup 2^(kLogC + 1) on,
// BabyBear B=32 10.0 -> 9.5 and Goldilocks 2^21 B=8 31.8 -> 29.9 on the
// H200 (v36).
// kTurnNtt: two-segment NTTs run their top segment in four-step form
// (k_turn_pass in place; cuda_ntt.cu, ntt_impl): BabyBear 2^22 x 128
// 5.68 -> 4.48 ms on the H100; Goldilocks 2^20 x 256 6.12 -> 6.31, whose
// strided pass takes the power-of-two groups the four-step one lacks.
// kPow2RadixLog: the largest group of stages in k_tile_pass when the field's
// inner roots are powers of two (tile_stages): Goldilocks radix-16 (its
// inner twiddles cost no registers there) measured 9% faster than radix-8
// on W1 and 12% on the NTT; radix-8 with power-of-two roots was slower than
// the general form on the LDE (docs/PERF.md version 19).
template <>
struct TileCfg<Goldilocks> {
    static constexpr int kTileLog = 13;  // 8192 elements, 64 KiB
    static constexpr int kLogC = 2;      // 4 x 8 B = 32 B rows
    static constexpr int kMinBlocks = 0;
    static constexpr bool kTopDif = false;
    static constexpr int kPow2RadixLog = 4;
    static constexpr bool kGroupTw = false;
    static constexpr bool kTurn = true;
    static constexpr int kTurnLowMax = 11;
    static constexpr int kTurnLowMaxB8 = 11;
    static constexpr bool kTurnNtt = false;
};
template <class F>
struct TileCfg {
    static constexpr int kTileLog = 14;  // 16384 elements, 64 KiB
    static constexpr int kLogC = 3;      // 8 x 4 B = 32 B rows
    static constexpr int kMinBlocks = 3;
    static constexpr bool kTopDif = true;
    static constexpr int kPow2RadixLog = 3;  // unused: no power-of-two roots
    static constexpr bool kGroupTw = true;
    static constexpr bool kTurn = true;
    static constexpr int kTurnLowMax = 14;
    static constexpr int kTurnLowMaxB8 = 12;
    static constexpr bool kTurnNtt = true;
};

template <class F>
constexpr bool use_wide_regs(uint32_t n) {
    return !F::kPow2Roots && n > 2 * (uint32_t)(TileCfg<F>::kTileLog - TileCfg<F>::kLogC);
}

// Blocks of kThreads an SM must hold, the register cap of a pass kernel:
// TileCfg<F>::kMinBlocks, and two for the power-of-two group kernels, whose
// radix-16 groups ptxas otherwise gives 82-88 registers (one block an SM);
// at two blocks they keep 64 with a few bytes of spills, as they measured.
template <class F>
constexpr int min_blocks(bool pow2) {
    return pow2 ? 2 : TileCfg<F>::kMinBlocks;
}

// Tile slots: swz<T> and kSwz16 (math/swizzle.h).
// N consecutive elements x[0 .. N) from or to the 8 or 16 bytes at p
// (aligned, global or shared): one access.
template <uint32_t N, class T>
using WordOf = std::conditional_t<N * sizeof(T) == 16, uint4, uint2>;
template <uint32_t N, class T>
__device__ __forceinline__ void word_load(T *x, const T *p) {
    static_assert(N * sizeof(T) == sizeof(WordOf<N, T>), "8- or 16-byte words");
    const WordOf<N, T> w = *reinterpret_cast<const WordOf<N, T> *>(p);
    memcpy(x, &w, sizeof w);
}
template <uint32_t N, class T>
__device__ __forceinline__ void word_store(T *p, const T *x) {
    static_assert(N * sizeof(T) == sizeof(WordOf<N, T>), "8- or 16-byte words");
    WordOf<N, T> w;
    memcpy(&w, x, sizeof w);
    *reinterpret_cast<WordOf<N, T> *>(p) = w;
}
// 16 bytes of elements at p (16-byte aligned) to and from registers.
template <class T>
__device__ __forceinline__ void load16(T (&x)[16 / sizeof(T)], const T *p) {
    word_load<16 / sizeof(T)>(x, p);
}
template <class T>
__device__ __forceinline__ void store16(T *p, const T (&x)[16 / sizeof(T)]) {
    word_store<16 / sizeof(T)>(p, x);
}
// The W elements of shared slots s ^ i (i < W, s = swz(e) for e a multiple
// of W) to and from x: one 16-byte access where W elements are 16 bytes and
// kSwz16 keeps them in order, else one access an element.
template <uint32_t W, class T>
__device__ __forceinline__ void sm_get(T (&x)[16 / sizeof(T)], const T *sm, uint32_t s) {
    if constexpr (W * sizeof(T) == 16 && kSwz16<T>) {
        load16(x, sm + s);
    } else {
#pragma unroll
        for (uint32_t i = 0; i < W; ++i) x[i] = sm[s ^ i];
    }
}
template <uint32_t W, class T>
__device__ __forceinline__ void sm_put(T *sm, uint32_t s, const T (&x)[16 / sizeof(T)]) {
    if constexpr (W * sizeof(T) == 16 && kSwz16<T>) {
        store16(sm + s, x);
    } else {
#pragma unroll
        for (uint32_t i = 0; i < W; ++i) sm[s ^ i] = x[i];
    }
}
// Two neighbouring elements a, b from or to the 8 bytes at p.
template <bool LOAD, class T>
__device__ __forceinline__ void pair_word(T &a, T &b, T *p) {
    T v[2] = {a, b};
    if constexpr (LOAD) {
        word_load<2>(v, p);
        a = v[0], b = v[1];
    } else {
        word_store<2>(p, v);
    }
}
// 16 bytes from global g (16-byte aligned) to shared slot s without passing
// through registers (cp.async): the first src_bytes of the 16 are read, the
// rest zero-filled. cp_async_wait() before the barrier that publishes them.
template <class T>
__device__ __forceinline__ void cp_async16(T *sm, uint32_t s, const T *g, uint32_t src_bytes = 16) {
    const uint32_t dst = (uint32_t)__cvta_generic_to_shared(sm + s);
    asm volatile("cp.async.cg.shared.global [%0], [%1], 16, %2;\n" ::"r"(dst), "l"(g), "r"(src_bytes) : "memory");
}
__device__ __forceinline__ void cp_async_wait() { asm volatile("cp.async.wait_all;\n" ::: "memory"); }
template <class F>
constexpr size_t tile_bytes(uint32_t elems) {
    return (size_t)elems * sizeof(typename F::T);
}

__host__ __device__ constexpr uint32_t bit_reverse_const(uint32_t x, int bits) {
    uint32_t r = 0;
    for (int i = 0; i < bits; ++i) r |= ((x >> i) & 1u) << (bits - 1 - i);
    return r;
}

// f(std::integral_constant<int, I>) for I = 0 .. N-1, unrolled with each I a
// constant expression (the power-of-two twiddles are template arguments).
template <class Fn, int... I>
__device__ __forceinline__ void static_for_impl(Fn &&f, std::integer_sequence<int, I...>) {
    (f(std::integral_constant<int, I>{}), ...);
}
template <int N, class Fn>
__device__ __forceinline__ void static_for(Fn &&f) {
    static_for_impl(f, std::make_integer_sequence<int, N>{});
}

// Butterfly whose twiddle is 2^E (fields with kPow2Roots): a shift and one
// reduction instead of a product; a negative power swaps the difference.
template <class F, bool DIF, int E>
__device__ __forceinline__ void pow2_butterfly(typename F::T &a, typename F::T &b) {
    constexpr bool neg = F::template pow2_neg<E>();
    if constexpr (DIF) {
        typename F::T d = neg ? F::sub(b, a) : F::sub(a, b);
        a = F::add(a, b);
        b = F::template mul_pow2<E>(d);
    } else {
        typename F::T v = F::template mul_pow2<E>(b);
        b = neg ? F::add(a, v) : F::sub(a, v);
        a = neg ? F::sub(a, v) : F::add(a, v);
    }
}

// The first W elements of x: 16 bytes (W = 16 / sizeof(T)) or one element.
template <uint32_t W, class T>
__device__ __forceinline__ void load_w(T (&x)[16 / sizeof(T)], const T *p) {
    if constexpr (W > 1) load16(x, p);
    else x[0] = *p;
}
template <uint32_t W, class T>
__device__ __forceinline__ void store_w(T *p, const T (&x)[16 / sizeof(T)]) {
    if constexpr (W > 1) store16(p, x);
    else *p = x[0];
}

// Moves a tile of 2^(t + logC) elements between global memory, where tile
// element e is g[((e >> logC) << lo) + (e & (2^logC - 1))], and its shared
// slot swz(e): LOAD reads global, else writes it. The index of e + blockDim.x
// is the index of e plus a constant (blockDim.x is a multiple of 2^logC), so
// it is carried, not recomputed. Where each tile row holds a whole number of
// 16-byte words (logC = lo = 0: one row; or 2^logC elements of at least 16
// bytes) and g is 16-byte aligned, a thread moves 16 bytes per access, V
// consecutive elements whose slots are swz(e) ^ i (e a multiple of V <= 8
// leaves e >> 3 unchanged). Wrapped caller memory need only be aligned to
// the element: such tiles take the one-element loop.
// F (not void): each element is multiplied on its way by the entry of tab
// (F::Tw, 16-byte aligned) at the same offset as its global position.
// ASYNC (loads of 4-byte elements, 16 bytes at a time): every word of the
// thread goes global -> shared by cp.async before the first is waited for,
// instead of one load, wait and store after another (then, with a table,
// each word is multiplied in place by the thread that copied it).
// BabyBear 2^22 x 128 B=2: NTT 5.53 -> 5.36 ms on the H200; the 64-register
// tile passes (use_wide_regs) keep plain loads (2^23 B=2 26.9 -> 28.9 with
// them; docs/PERF.md v28).
template <class T, bool LOAD, class F = void, bool ASYNC = false>
__device__ __forceinline__ void tile_copy(T *sm, T *g, uint32_t size, uint32_t lo, uint32_t logC,
                                          const void *tab = nullptr) {
    constexpr uint32_t V = 16 / sizeof(T);
    constexpr bool kTab = !std::is_void_v<F>;
    auto times = [&](T(&x)[V], uint64_t i, uint32_t n) {
        if constexpr (kTab) {
            using Tw = typename F::Tw;
            static_assert(sizeof(Tw) == sizeof(T), "tables in element-sized words");
            const Tw *tb = static_cast<const Tw *>(tab) + i;
            Tw w[V];
            if (n == V) load16(w, tb);
            else w[0] = tb[0];
#pragma unroll
            for (uint32_t k = 0; k < V; ++k)
                if (k < n) x[k] = F::mul_tw(x[k], w[k]);
        } else {
            (void)x, (void)i, (void)n;
        }
    };
    const uint32_t cmask = (1u << logC) - 1, bd = blockDim.x;
    const bool rows_whole = (lo == 0 && logC == 0) || (1u << logC) >= V;
    if (rows_whole && size >= V && (reinterpret_cast<uintptr_t>(g) & 15) == 0) {
        const uint64_t step = (uint64_t)((bd * V) >> logC) << lo;
        const uint32_t e0 = threadIdx.x * V;
        const uint64_t idx0 = ((uint64_t)(e0 >> logC) << lo) + (e0 & cmask);
        constexpr bool kAsync = LOAD && ASYNC && kSwz16<T>;
        if constexpr (kAsync) {
            uint64_t idx = idx0;
            for (uint32_t e = e0; e < size; e += bd * V, idx += step) cp_async16(sm, swz<T>(e), g + idx);
            cp_async_wait();
        }
        if constexpr (!kAsync || kTab) {
            uint64_t idx = idx0;
            for (uint32_t e = e0; e < size; e += bd * V, idx += step) {
                const uint32_t s = swz<T>(e);
                T x[V];
                if constexpr (LOAD) {
                    if constexpr (kAsync) sm_get<V>(x, sm, s);  // this thread's own copy
                    else load16(x, g + idx);
                    times(x, idx, V);
                    sm_put<V>(sm, s, x);
                } else {
                    sm_get<V>(x, sm, s);
                    times(x, idx, V);
                    store16(g + idx, x);
                }
            }
        }
    } else {
        const uint64_t step = (uint64_t)(bd >> logC) << lo;
        uint32_t e = threadIdx.x;
        uint64_t idx = ((uint64_t)(e >> logC) << lo) + (e & cmask);
        for (; e < size; e += bd, idx += step) {
            T x[V];
            if constexpr (LOAD) {
                x[0] = g[idx];
                times(x, idx, 1);
                sm[swz<T>(e)] = x[0];
            } else {
                x[0] = sm[swz<T>(e)];
                times(x, idx, 1);
                g[idx] = x[0];
            }
        }
    }
}
template <class T, class F = void, bool ASYNC = false>
__device__ __forceinline__ void tile_load(T *sm, const T *g, uint32_t size, uint32_t lo, uint32_t logC,
                                          const void *tab = nullptr) {
    tile_copy<T, true, F, ASYNC>(sm, const_cast<T *>(g), size, lo, logC, tab);
}
template <class T, class F = void>
__device__ __forceinline__ void tile_store(T *sm, T *g, uint32_t size, uint32_t lo, uint32_t logC,
                                           const void *tab = nullptr) {
    tile_copy<T, false, F>(sm, g, size, lo, logC, tab);
}

// Moves nvec groups of W elements between global memory and shared slots:
// group q is g[gidx(q) .. gidx(q) + W), contiguous, gidx(q) a multiple of W,
// and its element i sits in slot(q, i). Groups go as one 16-byte access
// where g is 16-byte aligned (W = 16 / sizeof(T)), else one element at a
// time. LOAD reads elements below `limit` and zero above it.
// IN_ORDER: slot(q, i) = slot(q, 0) ^ i with slot(q, 0) = swz(e), e a
// multiple of W (shared side through sm_get / sm_put); 16-byte loads of
// 4-byte elements then go by cp.async, zero-filled past `limit`.
template <class T, uint32_t W, bool LOAD, bool IN_ORDER, class Index, class Slot>
__device__ __forceinline__ void copy_groups(T *sm, T *g, uint32_t nvec, uint64_t limit, Index gidx, Slot slot) {
    static_assert(W == 1 || W * sizeof(T) == 16, "a group is one element or 16 bytes");
    const bool vec = W > 1 && (reinterpret_cast<uintptr_t>(g) & 15) == 0;
    constexpr bool kAsync = LOAD && IN_ORDER && W * sizeof(T) == 16 && kSwz16<T>;
    for (uint32_t q = threadIdx.x; q < nvec; q += blockDim.x) {
        const uint64_t i0 = gidx(q);
        T x[16 / sizeof(T)];
        if constexpr (kAsync) {
            // Whole words, and words wholly past `limit` (zero-filled, no
            // read); a word that `limit` cuts takes the element loop below
            // (a 16-byte cp.async reading fewer bytes still addresses all 16).
            if (vec && (i0 + W <= limit || i0 >= limit)) {
                const uint32_t bytes = i0 + W <= limit ? 16u : 0u;
                cp_async16(sm, slot(q, 0), bytes ? g + i0 : g, bytes);
                continue;
            }
        }
        if constexpr (LOAD) {
            if (vec && i0 + W <= limit) {
                load_w<W>(x, g + i0);
            } else {
#pragma unroll
                for (uint32_t i = 0; i < W; ++i) x[i] = i0 + i < limit ? g[i0 + i] : T(0);
            }
            if constexpr (IN_ORDER) {
                sm_put<W>(sm, slot(q, 0), x);
            } else {
#pragma unroll
                for (uint32_t i = 0; i < W; ++i) sm[slot(q, i)] = x[i];
            }
        } else {
            if constexpr (IN_ORDER) {
                sm_get<W>(x, sm, slot(q, 0));
            } else {
#pragma unroll
                for (uint32_t i = 0; i < W; ++i) x[i] = sm[slot(q, i)];
            }
            if (vec) {
                store_w<W>(g + i0, x);
            } else {
#pragma unroll
                for (uint32_t i = 0; i < W; ++i) g[i0 + i] = x[i];
            }
        }
    }
    if constexpr (kAsync) cp_async_wait();
}

// x[j] *= beta^rev(j) for j = 1 .. 2^RL - 1, beta = w_{2^L}^K0 (L = lo + s +
// RL, K0 < 2^(L - RL)): the general twiddles of a radix-2^RL step, taken out
// of its stages (see tile_group_stages). beta^m with m = m_odd 2^z is
// w_{2^(L-z)}^(m_odd K0), entry m_odd K0 of that table level when below its
// half, else minus the entry half lower.
template <class F, int RL>
__device__ __forceinline__ void scale_by_beta(typename F::T *x, const typename F::Tw *__restrict__ tw,
                                              uint32_t L, uint32_t K0) {
    static_for<(1 << RL) - 1>([&](auto jc) {
        constexpr int j = decltype(jc)::value + 1;
        constexpr int m = (int)bit_reverse_const(j, RL);
        constexpr int z = __builtin_ctz(m), m_odd = m >> z;
        // m_odd K0 < m_odd 2^(L-RL) reaches the level's half 2^(L-z-1) only
        // when m_odd > 2^(RL-z-1).
        constexpr bool may_wrap = m_odd > (1 << (RL - z - 1));
        const uint32_t half = 1u << (L - z - 1), e = (uint32_t)m_odd * K0;
        typename F::Tw w;
        if constexpr (may_wrap) {
            const bool wrap = e >= half;
            w = __ldg(&tw[half + (wrap ? e - half : e)]);
            if (wrap) w = F::P - w;  // roots are nonzero: still canonical
        } else {
            w = __ldg(&tw[half + e]);
        }
        x[j] = F::mul_tw(x[j], w);
    });
}

// The RL stages of a radix-2^RL group whose twiddles are the inner roots
// w_{2^(u+1)}^jj alone (powers of two: fields with kPow2Roots), DIF
// descending or DIT ascending, on x[0 .. 2^RL) in registers. INV: the
// inverse roots.
template <class F, int RL, bool DIF, bool INV>
__device__ __forceinline__ void pow2_stages(typename F::T *x) {
    constexpr uint32_t R = 1u << RL;
    static_for<RL>([&](auto uc) {
        constexpr int u = DIF ? RL - 1 - decltype(uc)::value : decltype(uc)::value;
        static_for<(1 << u)>([&](auto jc) {
            constexpr int jj = decltype(jc)::value;
            constexpr int E = (F::root_log2(u + 1, INV) * jj) % 192;
#pragma unroll
            for (uint32_t j = jj; j < R; j += (2u << u)) pow2_butterfly<F, DIF, E>(x[j], x[j + (1u << u)]);
        });
    });
}

// N consecutive table entries from p (a multiple of N entries from a
// 16-byte aligned table): one 8- or 16-byte load where they fill one.
template <uint32_t N, class Tw>
__device__ __forceinline__ void ldg_run(Tw *w, const Tw *__restrict__ p) {
    if constexpr (N * sizeof(Tw) == 16) {
        const uint4 v = __ldg(reinterpret_cast<const uint4 *>(p));
        memcpy(w, &v, 16);
    } else if constexpr (N * sizeof(Tw) == 8) {
        const uint2 v = __ldg(reinterpret_cast<const uint2 *>(p));
        memcpy(w, &v, 8);
    } else {
#pragma unroll
        for (uint32_t i = 0; i < N; ++i) w[i] = __ldg(p + i);
    }
}

// Performs local stages [s, s + RL) of a tile of 2^t rows x 2^logC columns in
// shared memory. Global stage bit of local bit u is lo + u. When c_low, the
// tile column adds (low_add + c) to the index (it holds the index's low bits);
// otherwise columns are independent transforms of size 2^t (lo must be 0).
// Each thread takes groups of 2^RL elements; the 2^RL - 1 distinct twiddles
// of a group are loaded once each. Indices fit 32 bits: a stage bit is at
// most 31 (two-adicity <= 32).
// FACT: each twiddle of a strided tile (lo > 0, c_low, low_add + c < 2^lo)
// as the product of an entry of a level below 2^t and one entry a stage
// that depends on the tile's column alone, both read through L1, instead
// of one entry of a level up to 2^(lo+t) that L1 misses: one product more
// a twiddle, for loads that do not wait on L2.
// UNIT: every group of this call has K0 = 0 (the lowest stages of a
// transform, lo + s = 0 with no column offset), so beta = 1: the twiddles
// are the inner roots w_{2^(u+1)}^jj, and those with jj = 0 are 1, whose
// products are skipped (7 of the 12 butterflies of a radix-8 group, 3 of 4
// of a radix-4 one).
// CP = 2 (4-byte elements, independent columns: !c_low, logC >= 1): a
// thread takes the groups of two neighbouring columns, whose elements sit
// side by side in one 8-byte shared word (swz leaves bit 0 alone), with one
// set of twiddles (they depend on the row alone): half the shared accesses
// and twiddle loads an element.
// CT (forward, DIF order): the Cooley-Tukey form of build_group_twiddles
// (math/ntt.h), tw its table. A butterfly at global bit P of index i
// takes zeta[2^(n-1-P) + (i >> (P+1))]; for a tile of rows [lo, lo + t)
// whose index bits above them are U that is zeta[(H << (t-1-p)) + (row >>
// (p+1))] at local bit p, H = 2^(n-lo-t) + U, the same for every column of
// the tile; the caller passes H as low_add (c_low unused). A group's
// twiddles are then 2^(RL-1-u) consecutive entries a stage u, read 8 or 16
// bytes at a time, 2^RL - 1 in all.
template <class F, int RL, bool DIF, bool UNIT, bool INV, bool POW2, bool FACT = false, bool V16 = false,
          int CP = 1, bool CT = false>
__device__ __forceinline__ void tile_group_stages(typename F::T *sm, uint32_t t, uint32_t logC,
                                                  uint32_t s, uint32_t lo, uint32_t low_add,
                                                  bool c_low, const typename F::Tw *__restrict__ tw) {
    using T = typename F::T;
    constexpr uint32_t R = 1u << RL;
    static_assert(CP == 1 || (CP == 2 && sizeof(T) == 4 && !POW2 && !FACT && !V16), "column pairs");
    static_assert(!CT || (DIF && !UNIT && !INV && !POW2 && !FACT && !V16), "the forward group form");
    constexpr uint32_t kLcp = CP == 2 ? 1 : 0;
    const uint32_t groups = 1u << (t - RL + logC - kLcp);
    const uint32_t cmask = (1u << (logC - kLcp)) - 1, smask = (1u << s) - 1;
    // swz is linear over GF(2) (shifts, a mask and XOR), so the slot of
    // element j of a group, index i0 ^ (j << (s + logC)), is swz(i0) ^
    // swz(j << (s + logC)): the XOR of the group's base slot and of d[k] =
    // swz(2^(s + logC + k)) for the bits k of j, in bytes. One LOP3 an
    // element instead of the index arithmetic.
    uint32_t d[RL];
#pragma unroll
    for (int k = 0; k < RL; ++k) d[k] = swz<T>(1u << (s + logC + k)) * (uint32_t)sizeof(T);
    unsigned char *smb = reinterpret_cast<unsigned char *>(sm);
    const size_t tw_stride = (size_t)1 << (lo + s);  // twiddle entries between a group's levels
    auto slot = [&](uint32_t sb, uint32_t j) {
        uint32_t o = sb;
#pragma unroll
        for (int k = 0; k < RL; ++k)
            if ((j >> k) & 1) o ^= d[k];
        return reinterpret_cast<T *>(smb + o);
    };
    // V16 (s = 0, logC = 0, 4-byte elements): a group's elements are 2^RL
    // consecutive ones, whole 16-byte words in order under kSwz16 (see swz).
    static_assert(!V16 || (kSwz16<T> && RL >= 2), "16-byte groups");
    for (uint32_t g = threadIdx.x; g < groups; g += blockDim.x) {
        uint32_t c = (g & cmask) << kLcp, rest = g >> (logC - kLcp);
        uint32_t m_low = rest & smask, m_high = rest >> s;
        uint32_t m0 = (m_high << (s + RL)) | m_low;
        uint32_t add = c_low ? low_add + c : 0;
        const uint32_t sb = swz<T>((m0 << logC) | c) * (uint32_t)sizeof(T);
        T x[R], x1[R];  // x1: column c + 1 (CP = 2), one 8-byte access with x
        // The group's elements from (LOAD) or to their shared slots.
        auto move = [&](auto load) {
            constexpr bool LOAD = decltype(load)::value;
            if constexpr (V16) {
#pragma unroll
                for (uint32_t h = 0; h < R; h += 4) {
                    if constexpr (LOAD) word_load<4>(&x[h], slot(sb, h));
                    else word_store<4>(slot(sb, h), &x[h]);
                }
            } else {
#pragma unroll
                for (uint32_t j = 0; j < R; ++j) {
                    T *p = slot(sb, j);
                    if constexpr (CP == 2) pair_word<LOAD>(x[j], x1[j], p);
                    else if constexpr (LOAD) x[j] = *p;
                    else *p = x[j];
                }
            }
        };
        move(std::true_type{});
        if constexpr (CT) {
            // Stage u (DIF order: u = RL-1 first) pairs j, j + 2^u (bit u of
            // j clear) with zeta[(G << (RL-1-u)) + (j >> (u+1))].
            const uint32_t G = (low_add << (t - s - RL)) + m_high;
            static_for<RL>([&](auto uc) {
                constexpr int u = RL - 1 - decltype(uc)::value;
                constexpr uint32_t kRun = 1u << (RL - 1 - u);
                typename F::Tw w[kRun];
                ldg_run<kRun>(w, tw + ((size_t)G << (RL - 1 - u)));
#pragma unroll
                for (uint32_t j = 0; j < R; ++j) {
                    if ((j >> u) & 1) continue;
#pragma unroll
                    for (int cc = 0; cc < CP; ++cc) {
                        T(&y)[R] = cc == 0 ? x : x1;
                        dit_butterfly<F>(y[j], y[j + (1u << u)], w[j >> (u + 1)]);
                    }
                }
            });
        } else if constexpr (POW2) {
            // The twiddle of stage u is beta^(2^(RL-1-u)) w_{2^(u+1)}^jj (below).
            // A factor applied to the difference of a DIF butterfly commutes
            // with the later (lower) stages, which combine only elements
            // that carry it alike, so the beta powers move to the end: the
            // output at position j takes beta^rev(j). For DIT they move to the
            // start the same way. What remains inside are the inner roots
            // w_{2^(u+1)}^jj, powers of two: 2^RL - 1 general products a
            // group instead of RL 2^(RL-1).
            const uint32_t K0 = (m_low << lo) + add;
            if constexpr (!DIF && !UNIT) scale_by_beta<F, RL>(x, tw, lo + s + RL, K0);
            pow2_stages<F, RL, DIF, INV>(x);
            if constexpr (DIF && !UNIT) scale_by_beta<F, RL>(x, tw, lo + s + RL, K0);
        } else {
            // Twiddle of stage u for pairs with j mod 2^u = jj:
            //   w_{2^(q+1)}^(K0 + jj 2^(s+lo)), K0 = (m_low << lo) + add,
            // each loaded. (Deriving the 31-bit fields' 2^RL - 1 twiddles
            // from one load, by products, was 4% slower on the LDE, and
            // Shoup multipliers loaded in pairs 7% slower: docs/PERF.md
            // version 23.)
            typename F::Tw wt[RL][R / 2];
            if constexpr (UNIT) {
#pragma unroll
                for (int u = 0; u < RL; ++u)
#pragma unroll
                    for (uint32_t jj = 1; jj < (1u << u); ++jj) wt[u][jj] = __ldg(&tw[(1u << u) + jj]);
            } else if constexpr (FACT) {
                // Entry 2^(lo+s+u) + ((m_low + jj 2^s) << lo) + add is
                // w_{2^L}^((J << lo) + add), L = lo+s+u+1, J = m_low + jj 2^s,
                // add < 2^lo (the tile's column among the low bits):
                // w_{2^(L-lo)}^J w_{2^L}^add, entry 2^(s+u) + J of a level
                // below 2^t (a table L1 holds) times one entry a stage.
                const typename F::Tw *tws = tw + m_low;
#pragma unroll
                for (int u = 0; u < RL; ++u) {
                    const typename F::Tw cf = __ldg(tw + ((size_t)1 << (lo + s + u)) + add);
#pragma unroll
                    for (uint32_t jj = 0; jj < (1u << u); ++jj)
                        wt[u][jj] = F::tw_mul(__ldg(tws + ((size_t)((1u << u) + jj) << s)), cf);
                }
            } else {
                // Entry 2^(lo+s+u) + ((m_low + jj 2^s) << lo) + add is
                // K0 + (2^u + jj) 2^(lo+s): a constant multiple of one
                // stride from the group's base, one multiply-add an address.
                const typename F::Tw *twk = tw + ((m_low << lo) + add);
#pragma unroll
                for (int u = 0; u < RL; ++u)
#pragma unroll
                    for (uint32_t jj = 0; jj < (1u << u); ++jj)
                        wt[u][jj] = __ldg(twk + (size_t)((1u << u) + jj) * tw_stride);
            }
#pragma unroll
            for (int uu = 0; uu < RL; ++uu) {
                const int u = DIF ? RL - 1 - uu : uu;
#pragma unroll
                for (uint32_t jj = 0; jj < (1u << u); ++jj) {
                    typename F::Tw w = wt[u][jj];
#pragma unroll
                    for (uint32_t j = jj; j < R; j += (2u << u)) {
#pragma unroll
                        for (int cc = 0; cc < CP; ++cc) {
                            T(&y)[R] = cc == 0 ? x : x1;
                            if (UNIT && jj == 0)
                                unit_butterfly<F>(y[j], y[j + (1u << u)]);
                            else if (DIF)
                                dif_butterfly<F>(y[j], y[j + (1u << u)], w);
                            else
                                dit_butterfly<F>(y[j], y[j + (1u << u)], w);
                        }
                    }
                }
            }
        }
        move(std::false_type{});
    }
    __syncthreads();
}

// All local stages [0, t) of a tile, DIT ascending or DIF descending, in
// ceil(t / K) groups of at most K stages, the sizes as even as possible
// (10 stages, K = 3: 3 + 3 + 2 + 2, not 3 + 3 + 3 + 1). Every group is one
// round trip through shared memory and one barrier. K = 3 with general
// twiddles: radix-16 groups held 15 twiddles in registers and measured 1.3x
// slower (docs/PERF.md version 11). POW2 (fields with power-of-two inner
// roots) takes the groups with the twiddles outside their stages, K =
// TileCfg<F>::kPow2RadixLog: used by k_tile_pass for the transform
// sizes where it measured faster (kPow2MinLog..kPow2MaxLog, version 19),
// and by the gather pass (k_chunk_pass, version 20) for the same sizes. The
// scatter and spread passes were slower with it and keep the general form.
// KMAX caps the general groups' K (the paired scatter's radix-4 groups,
// kScatterRadixLog).
// CT: the forward group form (tile_group_stages; DIF order, tw the group
// table, low_add the tile's H, c_low unused).
template <class F, bool DIF, bool INV, bool POW2 = false, bool FACT = false, int CP = 1, int KMAX = 3,
          bool CT = false>
__device__ void tile_stages(typename F::T *sm, uint32_t t, uint32_t logC, uint32_t lo,
                            uint32_t low_add, bool c_low, const typename F::Tw *tw) {
    static_assert(!CT || DIF, "the group form runs in DIF order");
    static_assert(KMAX >= 1 && KMAX <= 3, "general groups of 2 to 8 elements");
    constexpr uint32_t K = POW2 ? TileCfg<F>::kPow2RadixLog : KMAX;
    const uint32_t groups = (t + K - 1) / K;
    for (uint32_t gi = 0; gi < groups; ++gi) {
        // Group gi in execution order; DIF runs the groups from the top down.
        const uint32_t g = DIF ? groups - 1 - gi : gi;
        const uint32_t q = t / groups, extra = t % groups;
        const uint32_t rl = q + (g < extra ? 1 : 0);
        const uint32_t s = g * q + (g < extra ? g : extra);
        // The lowest group of a transform (K0 = 0 in every group).
        const bool unit = !CT && s == 0 && lo == 0 && (!c_low || (low_add == 0 && logC == 0));
        // The lowest group of a one-column tile moves 16-byte words (V16).
        auto run = [&](auto rlc, auto unitc) {
            constexpr int RL = decltype(rlc)::value;
            constexpr bool U = decltype(unitc)::value;
            if constexpr (CT) {
                if constexpr (!U)
                    tile_group_stages<F, RL, DIF, U, INV, POW2, FACT, false, CP, CT>(sm, t, logC, s, lo, low_add,
                                                                                     c_low, tw);
            } else {
                constexpr bool kV16 = CP == 1 && kSwz16<typename F::T> && U && RL >= 2;
                if (kV16 && logC == 0)
                    tile_group_stages<F, RL, DIF, U, INV, POW2, FACT, kV16>(sm, t, logC, s, lo, low_add, c_low, tw);
                else
                    tile_group_stages<F, RL, DIF, U, INV, POW2, FACT, false, CP>(sm, t, logC, s, lo, low_add, c_low,
                                                                                 tw);
            }
        };
        using Yes = std::true_type;
        using No = std::false_type;
        switch (rl * 2 + unit) {
            case 9: if constexpr (K >= 4) run(std::integral_constant<int, 4>{}, Yes{}); break;
            case 8: if constexpr (K >= 4) run(std::integral_constant<int, 4>{}, No{}); break;
            case 7: if constexpr (K >= 3) run(std::integral_constant<int, 3>{}, Yes{}); break;
            case 6: if constexpr (K >= 3) run(std::integral_constant<int, 3>{}, No{}); break;
            case 5: run(std::integral_constant<int, 2>{}, Yes{}); break;
            case 4: run(std::integral_constant<int, 2>{}, No{}); break;
            case 3: run(std::integral_constant<int, 1>{}, Yes{}); break;
            default: run(std::integral_constant<int, 1>{}, No{}); break;
        }
    }
}

// Columns a thread takes in the stages of tiles of independent columns
// (tile_group_stages' CP; logC >= 1 there: the chunk passes run only where a
// column spans several chunks, the four-step spread at lo >= 1). Pairs in
// the gather and the four-step spread: BabyBear 2^22 x 128 B=2 16.0 -> 15.5
// ms on the H200 (the spread spills 16 bytes at its 40-register cap and
// still gains; docs/PERF.md v28).
template <class F, bool POW2>
constexpr int kPairs = sizeof(typename F::T) == 4 && !POW2 ? 2 : 1;
// The natural-order scatter's largest group: with pairs, radix-4 groups
// (16 elements a thread, as one column's radix-8 group). Paired radix-8
// groups spilled 52 bytes at its 40-register cap and lost 0.5 ms; paired
// radix-4 groups do not spill and gained 0.2-0.3 ms (BabyBear 2^22 x 128
// B=2 natural, 19.2-19.3 -> 19.0 on the H200; docs/PERF.md v29).
template <class F, bool POW2>
constexpr int kScatterRadixLog = kPairs<F, POW2> == 2 ? 2 : 3;

// Block blk's column v and tile position among tiles_per_col positions of
// ncols columns: runs of 2^log_group neighbouring tiles of one column (their
// 32-byte rows fill whole DRAM bursts together), the runs at one position of
// every column next to each other, so that the twiddles a position reads,
// the same in every column, come from L2 for all columns but the first.
// 2^log_group >= tiles_per_col: column after column.
__device__ __forceinline__ void tile_of_block(uint64_t blk, uint64_t tiles_per_col, uint64_t ncols,
                                              uint32_t log_group, uint64_t &v, uint64_t &tile) {
    const uint64_t g = log_group < 63 && (1ull << log_group) < tiles_per_col ? 1ull << log_group : tiles_per_col;
    const uint64_t run = g * ncols, grp = blk / run, rem = blk - grp * run;
    v = rem / g;
    tile = grp * g + (rem - v * g);
}

// In-place pass over bits [lo, lo + t) of `ncols` columns of 2^n elements,
// column v at data + v * col_stride. Tiles of 2^t x 2^logC (logC = 0 when
// lo = 0). DIF or DIT with the given table.
// INV (the table is the inverse one) matters to POW2 only.
template <class F, bool DIF, bool INV, bool POW2, int MINB = min_blocks<F>(POW2)>
__global__ void __launch_bounds__(kThreads, MINB) k_tile_pass(typename F::T *data, uint64_t col_stride,
                                                        uint64_t ncols, uint32_t n, uint32_t lo,
                                                        uint32_t t, uint32_t logC, uint32_t log_group,
                                                        const typename F::Tw *__restrict__ tw) {
    using T = typename F::T;
    extern __shared__ __align__(16) unsigned char smem_raw[];
    T *sm = reinterpret_cast<T *>(smem_raw);
    const uint64_t tiles_per_col = 1ull << (n - t - logC);
    const uint64_t bases = 1ull << (lo - logC);  // tile positions among the low bits
    for (uint64_t blk = blockIdx.x; blk < tiles_per_col * ncols; blk += gridDim.x) {
        uint64_t v, tile;
        tile_of_block(blk, tiles_per_col, ncols, log_group, v, tile);
        uint64_t base0 = (tile % bases) << logC;
        uint64_t upper = (tile / bases) << (lo + t);
        T *col = data + v * col_stride + upper + base0;
        const uint32_t size = 1u << (t + logC);
        tile_load<T, void, MINB != 2>(sm, col, size, lo, logC);
        __syncthreads();
        tile_stages<F, DIF, INV, POW2>(sm, t, logC, lo, (uint32_t)base0, true, tw);
        tile_store(sm, col, size, lo, logC);
        __syncthreads();
    }
}

// The lowest segment of the group-form forward transform (bits [0, t), in
// place, bit-reversed output) on two columns at once: column pair v is
// columns 2v and 2v + 1 (at data + (2v + c) col_stride), and a tile holds
// chunk U (2^t consecutive elements) of both, element j of column c in slot
// (j << 1) + c. The two columns' butterflies take one set of twiddles (the
// group form's depend on the chunk alone: H = 2^(n-t) + U), read once for
// both (tile_group_stages, CP = 2): half the group-table reads of
// k_tile_pass's one-column tiles. Requires 2^t >= 4 (16-byte words).
template <class F>
__global__ void __launch_bounds__(kThreads, TileCfg<F>::kMinBlocks)
    k_pair_pass(typename F::T *data, uint64_t col_stride, uint64_t npairs, uint32_t n, uint32_t t,
                uint32_t log_group, const typename F::Tw *__restrict__ tw) {
    using T = typename F::T;
    static_assert(sizeof(T) == 4 && kSwz16<T>, "4-byte elements, 16-byte shared words");
    extern __shared__ __align__(16) unsigned char smem_raw[];
    T *sm = reinterpret_cast<T *>(smem_raw);
    const uint64_t chunks = 1ull << (n - t);
    const uint32_t words = 1u << (t - 2);  // 16-byte words of a chunk
    for (uint64_t blk = blockIdx.x; blk < chunks * npairs; blk += gridDim.x) {
        uint64_t v, u;
        tile_of_block(blk, chunks, npairs, log_group, v, u);
        T *g0 = data + 2 * v * col_stride + (u << t), *g1 = g0 + col_stride;
        // Word q of each column: elements 4q .. 4q + 3, slots 8q .. 8q + 7
        // interleaved (two 16-byte shared words).
        for (uint32_t q = threadIdx.x; q < words; q += blockDim.x) {
            T a[4], b[4];
            load16(a, g0 + 4 * q);
            load16(b, g1 + 4 * q);
            const T lo[4] = {a[0], b[0], a[1], b[1]}, hi[4] = {a[2], b[2], a[3], b[3]};
            sm_put<4>(sm, swz<T>(8 * q), lo);
            sm_put<4>(sm, swz<T>(8 * q + 4), hi);
        }
        __syncthreads();
        tile_stages<F, true, false, false, false, 2, 3, true>(sm, t, 1, 0, (1u << (n - t)) + (uint32_t)u, false, tw);
        for (uint32_t q = threadIdx.x; q < words; q += blockDim.x) {
            T lo[4], hi[4];
            sm_get<4>(lo, sm, swz<T>(8 * q));
            sm_get<4>(hi, sm, swz<T>(8 * q + 4));
            const T a[4] = {lo[0], lo[2], hi[0], hi[2]}, b[4] = {lo[1], lo[3], hi[1], hi[3]};
            store16(g0 + 4 * q, a);
            store16(g1 + 4 * q, b);
        }
        __syncthreads();
    }
}

// Lowest segment with a bit-reversal on one side. 2^(n-t) chunks of 2^t per
// column; a block takes chunks whose bit-reversed ids are consecutive, so
// the natural-order side is read/written in 32-byte runs.
//  GATHER (A_1): natural-order input (rows >= rows_in are zero) ->
//     bit-reversed chunks, inverse DIT.   src col stride src_stride.
//  !GATHER (B_1 natural): chunk-ordered forward DIF of the B coset regions
//     (ncols = columns x B, region r of column v at (v B + r) src_stride) ->
//     natural-order interleaved LDE rows: out row i*B + r of column v.
template <class F, bool GATHER, bool POW2 = false>
__global__ void __launch_bounds__(kThreads, min_blocks<F>(POW2))
    k_chunk_pass(const typename F::T *__restrict__ src, uint64_t src_stride, uint64_t rows_in,
                 typename F::T *dst, uint64_t dst_stride, uint64_t ncols, uint32_t n, uint32_t t,
                 uint32_t logC, uint32_t log_b, const typename F::Tw *__restrict__ tw) {
    using T = typename F::T;
    extern __shared__ __align__(16) unsigned char smem_raw[];
    T *sm = reinterpret_cast<T *>(smem_raw);
    const uint32_t nt = n - t;
    const uint64_t sets = 1ull << (nt - logC);
    const uint32_t size = 1u << (t + logC), tmask = (1u << t) - 1, cmask = (1u << logC) - 1;
    // Scatter (natural order, B = 2^log_b cosets): a tile's 2^logC columns
    // are 2^lp chunks c' of each of 2^lb cosets (cg << lb) + r, lb =
    // min(log_b, logC), cg the block's coset group, so that each tile row is
    // 2^logC consecutive elements of the interleaved rows from
    // (((m << nt) + r0) << log_b) + (cg << lb): whole 32-byte sectors from
    // one block (docs/PERF.md v30-32). ncols counts regions (columns times
    // B). kRowStore (the 31-bit fields): column (c' << lb) + r, so a tile
    // row is those elements in order and goes out 16 bytes at a time
    // (rows). Goldilocks: column (r << lp) + c' and an element loop, which
    // measured 0.1-0.5 ms faster there than the 16-byte rows (v32).
    const uint32_t lb = GATHER ? 0 : (log_b < logC ? log_b : logC), lp = logC - lb, ob = GATHER ? 0 : log_b;
    constexpr bool kRowStore = kSwz16<T>;
    uint64_t cg = 0;
    for (uint64_t blk = blockIdx.x; blk < sets * ncols; blk += gridDim.x) {
        // Neighbouring blocks take neighbouring chunk sets of one column, and
        // when scattering, first the coset groups of one chunk set (their
        // sectors are neighbours in the same interleaved rows).
        uint64_t v, set;
        if (GATHER) {
            v = blk / sets;
            set = blk % sets;
        } else {  // v: the column (its B regions), set: 2^lp chunks
            const uint64_t x = blk % (sets << log_b);
            v = blk / (sets << log_b);
            cg = x & ((1ull << (log_b - lb)) - 1);
            set = x >> (log_b - lb);
        }
        uint64_t r0 = set << lp;  // first bit-reversed chunk id
        constexpr uint32_t V = 16 / sizeof(T);
        // Natural-order side: row m of the tile is 2^logC consecutive
        // elements from (m << nt) + r0 (the scatter's, kRowStore: from
        // (((m << nt) + r0) << log_b) + (cg << lb)); its slot row is
        // bit_reverse(m, t). Chunk side: tile column c is chunk
        // bit_reverse(r0 + c, nt) (the scatter's: as above), 2^t consecutive
        // elements, element j in slot (j << logC) + c.
        // rows_w / chunks_w move Wd elements a group; rows / chunks take
        // 16 bytes where a tile row (2^logC) or a chunk (2^t) holds them.
        auto rows_w = [&](auto w, T *g, uint64_t limit, auto load) {
            constexpr uint32_t Wd = decltype(w)::value;
            copy_groups<T, Wd, decltype(load)::value, true>(
                sm, g, size / Wd, limit,
                [&](uint32_t q) {
                    const uint32_t e = q * Wd;
                    return ((((uint64_t)(e >> logC) << nt) + r0) << ob) + (cg << lb) + (e & cmask);
                },
                [&](uint32_t q, uint32_t i) {
                    const uint32_t e = q * Wd;
                    return swz<T>(((uint32_t)bit_reverse(e >> logC, t) << logC) + (e & cmask)) ^ i;
                });
        };
        auto chunks_w = [&](auto w, T *g, auto load) {
            constexpr uint32_t Wd = decltype(w)::value;
            copy_groups<T, Wd, decltype(load)::value, false>(
                sm, g, size / Wd, ~0ull,
                [&](uint32_t q) {
                    const uint32_t e = q * Wd, c = e >> t;
                    if (!GATHER)  // coset (cg << lb) + r's region, its chunk c'
                        return (((cg << lb) + (kRowStore ? c & ((1u << lb) - 1) : c >> lp)) * src_stride) +
                               (bit_reverse(r0 + (kRowStore ? c >> lb : c & ((1u << lp) - 1)), nt) << t) + (e & tmask);
                    return (bit_reverse(r0 + c, nt) << t) + (e & tmask);
                },
                [&](uint32_t q, uint32_t i) {
                    const uint32_t e = q * Wd;
                    return swz<T>((((e & tmask) + i) << logC) + (e >> t));
                });
        };
        using Wide = std::integral_constant<uint32_t, V>;
        using One = std::integral_constant<uint32_t, 1>;
        using Load = std::true_type;
        using Store = std::false_type;
        auto rows = [&](T *g, uint64_t limit, auto load) {
            if ((1u << logC) >= V) rows_w(Wide{}, g, limit, load);
            else rows_w(One{}, g, limit, load);
        };
        auto chunks = [&](T *g, auto load) {
            if ((1u << t) >= V) chunks_w(Wide{}, g, load);
            else chunks_w(One{}, g, load);
        };
        T *in = const_cast<T *>(src) + (GATHER ? v : v << log_b) * src_stride;
        if (GATHER) rows(in, rows_in, Load{});
        else chunks(in, Load{});
        __syncthreads();
        tile_stages<F, !GATHER, GATHER, POW2, false, kPairs<F, POW2>, GATHER ? 3 : kScatterRadixLog<F, POW2>>(
            sm, t, logC, 0, 0, false, tw);
        if (GATHER) {
            chunks(dst + v * dst_stride, Store{});
        } else if (kRowStore) {
            rows(dst + v * dst_stride, ~0ull, Store{});
        } else {
            // Output row m of the tile: 2^logC consecutive elements from
            // (((m << nt) + r0) << log_b) + (cg << lb); element p of them is
            // chunk p >> lb's coset (cg << lb) + (p mod 2^lb), tile column
            // ((p mod 2^lb) << lp) + (p >> lb).
            T *col = dst + v * dst_stride;
            const uint32_t lmask = (1u << lb) - 1;
            const uint64_t off = cg << lb;
            for (uint32_t e = threadIdx.x; e < size; e += blockDim.x) {
                const uint32_t m = e >> logC, p = e & cmask, c = ((p & lmask) << lp) + (p >> lb);
                const uint64_t i = ((((uint64_t)m << nt) + r0) << log_b) + off + p;
                col[i] = sm[swz<T>(((uint32_t)bit_reverse(m, t) << logC) + c)];
            }
        }
        __syncthreads();
    }
}

struct FusedArgs {
    const void *src;       // A-pass result (region 0) or, when single, the input
    uint64_t src_stride;   // column stride of src
    uint64_t rows_in;      // single: rows present in the input
    void *dst;             // regions (or, when single, the output)
    uint64_t dst_stride;   // column stride of dst (n * B)
    uint64_t ncols;
    uint32_t n, lo, t, logC, log_b;
    uint32_t log_group;    // tile order (tile_of_block)
    bool bitrev_regions;   // coset r goes to region bit_reverse(r, log_b), else r
    bool natural_out;      // single only: write natural interleaved LDE rows
    const void *tw_inv, *tw_fwd, *scale;
    // k_lde_spread's FOUR form: the top segment's four-step factors
    // (build_segment_factors), inverse and forward, position-ordered.
    const void *seg_inv, *seg_fwd;
    // k_lde_spread's TURN form: the step from coset r to r + 1 at tile
    // position k, w_{nB}^bit_reverse(k, n) (scale is then in the same order).
    const void *step;
    // The randomizer addend (LdeArgs::rand_add) of this launch's first
    // column, or null: radd[(v B + r) rm + k] joins coefficient k < rm of
    // coset r of column v before the forward transform.
    const void *radd;
    uint64_t rm;
};

// Adds the randomizer addend `add` (rm words, one coset of one column) to
// the tile elements holding coefficients k < rm: tile element elem(k), or
// none where elem returns ~0u (the coefficient lies in another tile). The
// caller synchronizes the block before and after.
template <class F, class Elem>
__device__ __forceinline__ void add_randomizer(typename F::T *sm, const typename F::T *__restrict__ add,
                                               uint64_t rm, Elem elem) {
    using T = typename F::T;
    for (uint64_t k = threadIdx.x; k < rm; k += blockDim.x) {
        const uint32_t e = elem(k);
        if (e != ~0u) sm[swz<T>(e)] = F::add(sm[swz<T>(e)], add[k]);
    }
}

// Coefficient k of coset r is c_k * scale[k] * w_{nB}^(r k): scale once, then
// step from coset r to r + 1 with one multiplication by w_{nB}^k (a
// coalesced load, k < n <= nB/2), not a scattered lookup of w^(r k).

// Whole-column LDE when a column fits one tile (lo = 0, logC = 0): gather in
// bit-reversed order, the inverse DIT, then for each coset the scaled
// coefficients and the whole forward DIF, written bit-reversed by region or
// as natural interleaved rows. Requires 2^n <= kEpt * blockDim.x.
template <class F>
__global__ void __launch_bounds__(kThreads) k_lde_fused(FusedArgs a) {
    using T = typename F::T;
    using Tw = typename F::Tw;
    constexpr int kEpt = (1 << TileCfg<F>::kTileLog) / kThreads;
    extern __shared__ __align__(16) unsigned char smem_raw[];
    T *sm = reinterpret_cast<T *>(smem_raw);
    const Tw *tw_inv = static_cast<const Tw *>(a.tw_inv);
    const Tw *tw_fwd = static_cast<const Tw *>(a.tw_fwd);
    const Tw *scale = static_cast<const Tw *>(a.scale);
    const uint32_t size = 1u << a.n;
    const uint64_t N = 1ull << a.n, B = 1ull << a.log_b, NB = N << a.log_b;
    for (uint64_t v = blockIdx.x; v < a.ncols; v += gridDim.x) {
        const T *src = static_cast<const T *>(a.src) + v * a.src_stride;
        for (uint32_t e = threadIdx.x; e < size; e += blockDim.x)
            sm[swz<T>((uint32_t)bit_reverse(e, a.n))] = e < a.rows_in ? src[e] : T(0);
        __syncthreads();
        tile_stages<F, false, true>(sm, a.n, 0, 0, 0, true, tw_inv);
        T coef[kEpt];
#pragma unroll
        for (int i = 0; i < kEpt; ++i) {
            uint32_t e = threadIdx.x + i * blockDim.x;
            if (e < size) coef[i] = F::mul_tw(sm[swz<T>(e)], scale[e]);
        }
        T *dst = static_cast<T *>(a.dst) + v * a.dst_stride;
        const Tw *w_nb = tw_fwd + (NB >> 1);  // w_{nB}^k at w_nb[k]
        for (uint32_t r = 0; r < B; ++r) {
            __syncthreads();
#pragma unroll
            for (int i = 0; i < kEpt; ++i) {
                uint32_t e = threadIdx.x + i * blockDim.x;
                if (e < size) {
                    sm[swz<T>(e)] = coef[i];
                    if (r + 1 < B) coef[i] = F::mul_tw(coef[i], w_nb[e]);
                }
            }
            __syncthreads();
            if (a.radd) {  // coefficient k at element k
                add_randomizer<F>(sm, static_cast<const T *>(a.radd) + (v * B + r) * a.rm, a.rm,
                                  [](uint64_t k) { return (uint32_t)k; });
                __syncthreads();
            }
            tile_stages<F, true, false>(sm, a.n, 0, 0, 0, true, tw_fwd);
            if (a.natural_out) {  // Y_r[i] sits at position bitrev(i)
                for (uint32_t e = threadIdx.x; e < size; e += blockDim.x)
                    dst[(uint64_t)e * B + r] = sm[swz<T>((uint32_t)bit_reverse(e, a.n))];
            } else {
                T *reg = dst + (a.bitrev_regions ? bit_reverse(r, a.log_b) : r) * N;
                for (uint32_t e = threadIdx.x; e < size; e += blockDim.x) reg[e] = sm[swz<T>(e)];
            }
        }
        __syncthreads();
    }
}

// Top segment of the inverse DIT over region 0, then the coset scaling:
// coset r's coefficients are c_k scale[k] w_{nB}^(r k), stepped from coset r
// to r + 1 with one multiplication by w_{nB}^k. Two forms (TileCfg<F>::
// kTopDif picks one; docs/PERF.md versions 10 and 17):
//  - !TOP_DIF: the B scaled copies are written, one per coset region; the
//    forward DIF of every region follows as ordinary tile passes. This
//    costs B*N writes and reads, and buys a kernel without a per-thread
//    coefficient array (the version that kept them in registers needed 128
//    registers and ran at a quarter occupancy).
//  - TOP_DIF: the top segment of each coset's forward DIF runs here too. It
//    covers the same index set as the inverse DIT's top segment (bits
//    [lo, n), the tile's low bits fixed), so the block turns its tile into
//    the B coset tiles without the copies going through memory. While the
//    DIF of coset r runs in shared memory, coset r+1's coefficients wait in
//    a stash at the tile's positions of coset B-1's region: this block's own
//    positions, overwritten last, so the stash stays in L2 and takes no
//    registers or shared memory. The lower DIF segments follow as tile
//    passes.
// W: tile elements a thread handles at a time in the scaling, 1 or
// V = 16 / sizeof(T). With V, V consecutive tile elements are consecutive
// coefficients, and the tables (the library's, 16-byte aligned) and the
// regions are read and written 16 bytes at a time; the host takes it
// (spread_wide) where a tile row holds V elements and every column of dst
// is 16-byte aligned. Separate kernels: the 31-bit stash loop with both
// widths in one kernel spilled under its 40-register cap.
// MINB: the register cap (blocks an SM must hold, as TileCfg::kMinBlocks).
// The 31-bit fields take two blocks (64 registers) for blowups of 8 and
// more, whose coset loop runs B times a tile: 10% faster there, 6% slower
// at B = 2 (docs/PERF.md version 24). That instance also takes the
// factored twiddles (tile_group_stages, FACT; version 26).
// GROUP (TOP_DIF, TileCfg::kGroupTw): the forward transform in the group
// form (build_group_twiddles), whose top segment is the tile columns'
// size-2^t transforms in bit-reversed order and nothing after them: the
// same stages as FOUR's forward ones, stored without a.seg_fwd (a.seg_fwd
// unused), for either form of the inverse. k_pair_pass runs the rest.
// FOUR (TOP_DIF): the top segments in four-step form. The inverse DIT's
// input is multiplied by a.seg_inv as it is loaded and the forward DIF's
// output by a.seg_fwd as it is stored (one product an element); between
// them the stages are independent size-2^t transforms of the tile's
// columns, whose twiddles all lie in levels below 2^t (8 KiB, L1), instead
// of stages whose twiddles reach levels up to 2^n (L2).
// TURN (TOP_DIF, natural order; k_turn_pass runs the top segments): the
// lowest segment (lo = 0, logC = 0: a tile is 2^t consecutive positions,
// tile number u at u 2^t) of the turned transforms. The inverse DIF's last
// stages leave coefficient bit_reverse(k, n) at position k; a.scale and
// a.step hold the scaling and the coset step in that order; the forward
// DIT's first stages follow, and the regions are in natural coset order.
template <class F, bool TOP_DIF, uint32_t W, int MINB = TileCfg<F>::kMinBlocks, bool FOUR = false,
          bool GROUP = false, bool TURN = false>
__global__ void __launch_bounds__(kThreads, MINB) k_lde_spread(FusedArgs a) {
    using T = typename F::T;
    using Tw = typename F::Tw;
    extern __shared__ __align__(16) unsigned char smem_raw[];
    T *sm = reinterpret_cast<T *>(smem_raw);
    const Tw *scale = static_cast<const Tw *>(a.scale);
    const Tw *tw_fwd = static_cast<const Tw *>(a.tw_fwd);
    const uint32_t logC = a.logC, size = 1u << (a.t + logC), cmask = (1u << logC) - 1;
    const uint64_t N = 1ull << a.n, B = 1ull << a.log_b, NB = N << a.log_b;
    const uint64_t tiles = 1ull << (a.n - a.t - logC);
    // w_{nB}^k at w_nb[k] (TURN: the step at position k)
    const Tw *w_nb = TURN ? static_cast<const Tw *>(a.step) : tw_fwd + (NB >> 1);
    static_assert(!TURN || (TOP_DIF && !FOUR && !GROUP), "the turned form's lowest segment");
    for (uint64_t blk = blockIdx.x; blk < tiles * a.ncols; blk += gridDim.x) {
        uint64_t v, tile;
        tile_of_block(blk, tiles, a.ncols, a.log_group, v, tile);
        const uint64_t base0 = TURN ? tile << a.t : tile << logC;
        // Tile element e holds index k(e) of the column.
        auto index = [&](uint32_t e) { return ((uint64_t)(e >> logC) << a.lo) + base0 + (e & cmask); };
        // The tile element holding coefficient k, or ~0u: TURN, position
        // bit_reverse(k, n) of the tile's 2^t; else index(e) = k.
        auto elem_of = [&](uint64_t k) -> uint32_t {
            if constexpr (TURN) {
                const uint64_t p = bit_reverse(k, a.n) - base0;
                return p < size ? (uint32_t)p : ~0u;
            } else {
                const uint64_t low = (k & ((1ull << a.lo) - 1)) - base0;
                return low <= cmask ? (uint32_t)(((k >> a.lo) << logC) | low) : ~0u;
            }
        };
        const T *radd = static_cast<const T *>(a.radd) + v * B * a.rm;  // a.radd: coset r at r a.rm
        const T *src = static_cast<const T *>(a.src) + v * a.src_stride;
        static_assert(!FOUR || TOP_DIF, "the four-step form is the top-DIF spread's");
        static_assert(!GROUP || (TOP_DIF && TileCfg<F>::kGroupTw), "the group form is the 31-bit top-DIF spread's");
        if constexpr (FOUR)
            tile_load<T, F, true>(sm, src + base0, size, a.lo, logC, static_cast<const Tw *>(a.seg_inv) + base0);
        else
            tile_load<T, void, true>(sm, src + base0, size, a.lo, logC);
        __syncthreads();
        // The factored twiddles (tile_group_stages, FACT) where the cap is
        // two blocks (blowups of 8 and more, those above kFourStepMaxLogB
        // since the four-step form): 4% faster there; at three blocks
        // (B = 2) the extra products cost 7% (docs/PERF.md v26).
        constexpr bool kFact = MINB == 2 && !F::kPow2Roots && !FOUR && !TURN;
        if constexpr (TURN)
            tile_stages<F, true, true>(sm, a.t, 0, 0, 0, true, static_cast<const Tw *>(a.tw_inv));
        else if constexpr (FOUR)
            tile_stages<F, false, true, false, false, kPairs<F, false>>(sm, a.t, logC, 0, 0, false,
                                                                    static_cast<const Tw *>(a.tw_inv));
        else
            tile_stages<F, false, true, false, kFact>(sm, a.t, logC, a.lo, (uint32_t)base0, true,
                                                      static_cast<const Tw *>(a.tw_inv));
        T *dst = static_cast<T *>(a.dst) + v * a.dst_stride;
        auto region = [&](uint64_t r) { return dst + (a.bitrev_regions ? bit_reverse(r, a.log_b) : r) * N; };
        constexpr uint32_t V = 16 / sizeof(T);
        static_assert(sizeof(Tw) == sizeof(T) && (W == 1 || W == V), "16-byte table reads");
        if constexpr (!TOP_DIF) {
            for (uint32_t q = threadIdx.x; q < size / W; q += blockDim.x) {
                const uint32_t e0 = q * W, s0 = swz<T>(e0);
                const uint64_t k0 = index(e0);
                T x[V], w[V];
                load_w<W>(x, scale + k0);
                if (B > 1) load_w<W>(w, w_nb + k0);  // w_nb has nB/2 entries
#pragma unroll
                for (uint32_t i = 0; i < W; ++i) x[i] = F::mul_tw(sm[s0 ^ i], x[i]);
                for (uint64_t r = 0; r < B; ++r) {
                    store_w<W>(region(r) + k0, x);
                    if (r + 1 < B)
#pragma unroll
                        for (uint32_t i = 0; i < W; ++i) x[i] = F::mul_tw(x[i], w[i]);
                }
            }
            __syncthreads();
            if (a.radd) {  // the tile's coefficients k < rm, in every region
                for (uint64_t k = threadIdx.x; k < a.rm; k += blockDim.x)
                    if (elem_of(k) != ~0u)
                        for (uint64_t r = 0; r < B; ++r) region(r)[k] = F::add(region(r)[k], radd[r * a.rm + k]);
                __syncthreads();
            }
        } else {
            T *stash = dst + (B - 1) * N;  // coset B-1's region in either order
            constexpr bool kStashAsync = FOUR || MINB != 2;
            for (uint64_t r = 0; r < B; ++r) {
                // The last coset's coefficients are the stash as it stands:
                // cp.async copies them into the tile (docs/PERF.md v29). Not
                // in the factored 64-register form (blowups above 8), which
                // measured 0.1 ms slower with it at B = 32, as the wide tile
                // passes are with cp.async (v28).
                if (kStashAsync && r > 0 && r + 1 == B) {
                    tile_load<T, void, true>(sm, stash + base0, size, a.lo, logC);
                } else {
                    for (uint32_t q = threadIdx.x; q < size / W; q += blockDim.x) {
                        const uint32_t e0 = q * W, s0 = swz<T>(e0);
                        const uint64_t k0 = index(e0);
                        T x[V], w[V];
                        load_w<W>(x, (r == 0 ? scale : stash) + k0);
                        if (r == 0) {
                            sm_get<W>(w, sm, s0);
#pragma unroll
                            for (uint32_t i = 0; i < W; ++i) x[i] = F::mul_tw(w[i], x[i]);
                        }
                        sm_put<W>(sm, s0, x);
                        if (r + 1 < B) {  // x becomes coset r + 1's
                            load_w<W>(w, w_nb + k0);
#pragma unroll
                            for (uint32_t i = 0; i < W; ++i) x[i] = F::mul_tw(x[i], w[i]);
                            store_w<W>(stash + k0, x);
                        }
                    }
                }
                __syncthreads();
                if (a.radd) {  // after the stash took coset r + 1's values
                    add_randomizer<F>(sm, radd + r * a.rm, a.rm, elem_of);
                    __syncthreads();
                }
                if constexpr (TURN) {
                    tile_stages<F, false, false>(sm, a.t, 0, 0, 0, true, tw_fwd);
                    tile_store(sm, region(r) + base0, size, 0, 0);
                } else if constexpr (GROUP || FOUR) {
                    // The columns' size-2^t transforms, then the four-step
                    // factors; the group form's top segment is the
                    // transforms alone, stored as they are.
                    tile_stages<F, true, false, false, false, kPairs<F, false>>(sm, a.t, logC, 0, 0, false, tw_fwd);
                    if constexpr (GROUP)
                        tile_store(sm, region(r) + base0, size, a.lo, logC);
                    else
                        tile_store<T, F>(sm, region(r) + base0, size, a.lo, logC,
                                         static_cast<const Tw *>(a.seg_fwd) + base0);
                } else {
                    tile_stages<F, true, false, false, kFact>(sm, a.t, logC, a.lo, (uint32_t)base0, true, tw_fwd);
                    tile_store(sm, region(r) + base0, size, a.lo, logC);
                }
                __syncthreads();  // also frees the tile for the next block
            }
        }
    }
}

// The top segment (bits [lo, n), t = n - lo) of the natural-order LDE's
// transforms in their turned form (TileCfg::kTurn; docs/ARCHITECTURE.md):
// the inverse as a DIF from natural evaluations to bit-reversed
// coefficients, the forward as a DIT from bit-reversed coefficients to
// natural evaluations, so that no pass permutes. Both run in four-step
// form: the tile's 2^logC columns (a row is 2^logC neighbouring indices)
// take independent size-2^t transforms, whose twiddles lie in levels below
// 2^t, and seg (build_segment_factors, position order) multiplies the DIF's
// output or the DIT's input.
//  !OUT (first pass): column v of the input (src + v src_stride, rows >=
//     rows_in zero) -> the inverse DIF's top segment, times seg -> dst +
//     v dst_stride (region 0 of the column's scratch).
//  OUT (last pass): the B = 2^log_b coset regions of column v (region r at
//     src + (v B + r) src_stride) -> seg times, the forward DIT's top
//     segment -> the natural-order interleaved rows of column v (dst + v
//     dst_stride, row i of coset r at i B + r). A tile holds 2^lb cosets
//     (lb <= log_b) of 2^lp = 2^(logC - lb) neighbouring indices, column
//     (c' << lb) + r for index c' of coset (cg << lb) + r, so a tile row is
//     2^logC consecutive output elements, and it reads 2^lp neighbouring
//     elements of each coset's region (the host takes 2^lp a 32-byte
//     sector). Where lb < log_b a row is 2^lp runs of 2^lb consecutive
//     outputs, B apart (the host takes lb >= kLogC: whole sectors).
//  OUT, REV (lb = 0): the same, written in bit-reversed order instead
//     (coset r's region at bit_reverse(r, log_b) N of the column, each
//     region bit-reversed): a tile column is 2^t consecutive outputs.
// ncols counts columns; blocks take (column, tile, coset group) with the
// coset groups of one tile side by side and runs of 2^log_group tiles of
// one column (tile_of_block: the seg entries of a tile, the same in every
// column, come from L2 after the first).
// src may be dst (the NTT runs it in place: each block reads its whole
// tile before it writes it), so it is not __restrict__; with or without the
// qualifier sm_90 gets the same instructions.
template <class F, bool OUT, bool REV = false>
__global__ void __launch_bounds__(kThreads, TileCfg<F>::kMinBlocks ? TileCfg<F>::kMinBlocks : 2)
    k_turn_pass(const typename F::T *src, uint64_t src_stride, uint64_t rows_in,
                typename F::T *dst, uint64_t dst_stride, uint64_t ncols, uint32_t n, uint32_t lo,
                uint32_t logC, uint32_t lb, uint32_t log_b, uint32_t log_group,
                const typename F::Tw *__restrict__ tw, const typename F::Tw *__restrict__ seg) {
    using T = typename F::T;
    using Tw = typename F::Tw;
    constexpr uint32_t V = 16 / sizeof(T), LV = V == 4 ? 2 : 1;
    extern __shared__ __align__(16) unsigned char smem_raw[];
    T *sm = reinterpret_cast<T *>(smem_raw);
    const uint32_t t = n - lo, size = 1u << (t + logC), cmask = (1u << logC) - 1;
    if (!OUT) lb = 0;
    const uint32_t lp = logC - lb, lg = OUT ? log_b - lb : 0, lmask = (1u << lb) - 1;
    const uint64_t N = 1ull << n;
    const uint64_t units = 1ull << (lo - lp + lg);  // (tile, coset group) pairs of a column
    for (uint64_t blk = blockIdx.x; blk < units * ncols; blk += gridDim.x) {
        uint64_t v, x;
        tile_of_block(blk, units, ncols, log_group, v, x);
        const uint64_t cg = x & ((1ull << lg) - 1), base = (x >> lg) << lp;
        if constexpr (!OUT) {
            const T *g = src + v * src_stride + base;
            if (rows_in >= N) {
                tile_load<T, void, true>(sm, g, size, lo, logC);
            } else {
                for (uint32_t e = threadIdx.x; e < size; e += blockDim.x) {
                    const uint64_t i = ((uint64_t)(e >> logC) << lo) + (e & cmask);
                    sm[swz<T>(e)] = base + i < rows_in ? g[i] : T(0);
                }
            }
            __syncthreads();
            tile_stages<F, true, true, false, false, kPairs<F, false>>(sm, t, logC, 0, 0, false, tw);
            tile_store<T, F>(sm, dst + v * dst_stride + base, size, lo, logC, seg + base);
        } else {
            const T *reg = src + ((v << log_b) + (cg << lb)) * src_stride + base;
            const bool vec = lp >= LV && (reinterpret_cast<uintptr_t>(reg) & 15) == 0 && src_stride % V == 0;
            if (lb == 0) {
                // (bit-reversed only) every word in flight by cp.async
                // before the factors: docs/PERF.md v35.
                tile_load<T, F, true>(sm, reg, size, lo, logC, seg + base);
            } else if (vec) {
                // V neighbouring indices of one row and coset a thread (16
                // bytes of its region and of seg), the cosets of a row side
                // by side among the threads. Two cosets of 4-byte elements:
                // both a thread, interleaved into two 16-byte shared words.
                constexpr bool kPair = V == 4 && kSwz16<T>;
                const uint32_t pair = kPair && lb == 1, lq = lp - LV;
                for (uint32_t q = threadIdx.x; q < (size >> (LV + pair)); q += blockDim.x) {
                    const uint32_t r = pair ? 0 : q & lmask, rest = pair ? q : q >> lb;
                    const uint32_t m = rest >> lq, c0 = (rest & ((1u << lq) - 1)) << LV;
                    const uint64_t i = ((uint64_t)m << lo) + c0;
                    T a[V];
                    Tw w[V];
                    load16(a, reg + r * src_stride + i);
                    load16(w, seg + base + i);
#pragma unroll
                    for (uint32_t k = 0; k < V; ++k) a[k] = F::mul_tw(a[k], w[k]);
                    const uint32_t e0 = (m << logC) + (c0 << lb) + r;
                    if constexpr (kPair) {
                        if (pair) {
                            T b[V];
                            load16(b, reg + src_stride + i);
#pragma unroll
                            for (uint32_t k = 0; k < V; ++k) b[k] = F::mul_tw(b[k], w[k]);
                            const T l4[V] = {a[0], b[0], a[1], b[1]}, h4[V] = {a[2], b[2], a[3], b[3]};
                            sm_put<V>(sm, swz<T>(e0), l4);
                            sm_put<V>(sm, swz<T>(e0 + 4), h4);
                            continue;
                        }
                    }
#pragma unroll
                    for (uint32_t k = 0; k < V; ++k) sm[swz<T>(e0 + (k << lb))] = a[k];
                }
            } else {
                for (uint32_t e = threadIdx.x; e < size; e += blockDim.x) {
                    const uint32_t c = e & cmask;
                    const uint64_t i = ((uint64_t)(e >> logC) << lo) + (c >> lb);
                    sm[swz<T>(e)] = F::mul_tw(reg[(c & lmask) * src_stride + i], seg[base + i]);
                }
            }
            __syncthreads();
            tile_stages<F, false, false, false, false, kPairs<F, false>>(sm, t, logC, 0, 0, false, tw);
            if constexpr (REV) {
                // Index i = (m << lo) + base + c of coset cg goes to
                // bit_reverse(i, n) of region bit_reverse(cg, log_b):
                // (bit_reverse(base + c, lo) << t) + bit_reverse(m, t), so
                // each tile column is 2^t consecutive outputs, its rows in
                // bit-reversed order.
                T *out = dst + v * dst_stride + bit_reverse(cg, log_b) * N;
                const uint32_t tmask = (1u << t) - 1;
                const bool aligned = (reinterpret_cast<uintptr_t>(out) & 15) == 0;
                if (kSwz16<T> && aligned && rev_word_store(t, logC)) {
                    if constexpr (kSwz16<T>) {
                        // Two columns x four outputs a thread: 8-byte
                        // shared words (rows bit_reverse(4g + k, t),
                        // columns 2p, 2p + 1) written as two 16-byte column
                        // runs, whole 32-byte sectors a store instruction
                        // (rev_word_item, math/swizzle.h; docs/PERF.md v37).
                        // Offsets in 32 bits: a region of a 31-bit field
                        // has at most 2^27 elements.
                        constexpr uint32_t kRev2[4] = {0, 2, 1, 3};
                        const uint32_t rb = (uint32_t)bit_reverse(base, lo), sh = t - 2 + logC, cs = lo - 1 + t;
                        for (uint32_t q = threadIdx.x; q < (size >> 3); q += blockDim.x) {
                            const RevWordItem it = rev_word_item(q, t, logC);
                            T x[4][2];
#pragma unroll
                            for (uint32_t k = 0; k < 4; ++k) word_load<2>(x[k], sm + swz<T>(it.e0 | (kRev2[k] << sh)));
                            const uint32_t o = ((rb + (uint32_t)bit_reverse(it.pair << 1, lo)) << t) + (it.g << 2);
#pragma unroll
                            for (uint32_t j = 0; j < 2; ++j) {
                                const T y[4] = {x[0][j], x[1][j], x[2][j], x[3][j]};
                                store16(out + (o + (j << cs)), y);
                            }
                        }
                    }
                } else if (!kSwz16<T> && t >= 5 && aligned) {
                    // 8-byte elements (version 37 measured the 4-byte
                    // elements' store for them and kept this one, PERF):
                    // a thread writes 8 consecutive outputs of a column (a
                    // 32-byte sector or two); the lanes of a warp take the
                    // columns and the top two bits of the row, so that the
                    // rows they read differ in their low bits and the
                    // shared slots in their banks (swz).
                    // Row bit_reverse(j0 + k, t) is bit_reverse(j0, t) with
                    // bit_reverse(k, 3) in its top three bits (j0 is a
                    // multiple of 8), and swz is linear over GF(2): the
                    // slot of output k is the slot of output 0 XOR dk[k].
                    uint32_t dk[8];
#pragma unroll
                    for (uint32_t k = 0; k < 8; ++k) dk[k] = swz<T>((uint32_t)bit_reverse(k, 3) << (t - 3 + logC));
                    for (uint32_t q = threadIdx.x; q < (size >> 3); q += blockDim.x) {
                        const uint32_t c = q & cmask, h = (q >> logC) & 3, mid = q >> (logC + 2);
                        const uint32_t j0 = (h << (t - 2)) | (mid << 3);
                        const uint32_t s0 = swz<T>(((uint32_t)bit_reverse(j0, t) << logC) + c);
                        T y[8];
#pragma unroll
                        for (uint32_t k = 0; k < 8; ++k) y[k] = sm[s0 ^ dk[k]];
                        T *g = out + (bit_reverse(base + c, lo) << t) + j0;
#pragma unroll
                        for (uint32_t k = 0; k < 8; k += V) word_store<V>(g + k, y + k);
                    }
                } else {
                    for (uint32_t e = threadIdx.x; e < size; e += blockDim.x) {
                        const uint32_t c = e >> t, j = e & tmask;
                        out[(bit_reverse(base + c, lo) << t) + j] =
                            sm[swz<T>(((uint32_t)bit_reverse(j, t) << logC) + c)];
                    }
                }
            } else if (lb == log_b) {
                tile_store(sm, dst + v * dst_stride + (base << log_b) + (cg << lb), size, lo + log_b, logC);
            } else {
                // 2^lp runs of 2^lb consecutive outputs a row (lb >= kLogC:
                // whole 32-byte sectors), B apart.
                T *out = dst + v * dst_stride + (base << log_b) + (cg << lb);
                auto index = [&](uint32_t e) {
                    const uint32_t c = e & cmask;
                    return ((uint64_t)(e >> logC) << (lo + log_b)) + ((uint64_t)(c >> lb) << log_b) + (c & lmask);
                };
                if ((reinterpret_cast<uintptr_t>(out) & 15) == 0 && (1u << lb) >= V) {
                    for (uint32_t e = threadIdx.x * V; e < size; e += blockDim.x * V) {
                        T x[V];
                        sm_get<V>(x, sm, swz<T>(e));
                        store16(out + index(e), x);
                    }
                } else {
                    for (uint32_t e = threadIdx.x; e < size; e += blockDim.x) out[index(e)] = sm[swz<T>(e)];
                }
            }
        }
        __syncthreads();
    }
}

// x[i] *= pw[bitrev(i) or i] for every column (powers table in Tw form).
template <class F>
__global__ void k_scale_powers(typename F::T *data, uint64_t col_stride, uint64_t ncols, uint32_t n,
                               bool rev, const typename F::Tw *__restrict__ pw) {
    const uint64_t N = 1ull << n, total = N * ncols;
    for (uint64_t g = blockIdx.x * (uint64_t)blockDim.x + threadIdx.x; g < total;
         g += (uint64_t)gridDim.x * blockDim.x) {
        uint64_t v = g >> n, i = g & (N - 1);
        typename F::T *p = data + v * col_stride + i;
        *p = F::mul_tw(*p, pw[rev ? bit_reverse(i, n) : i]);
    }
}

// dst[v dst_stride + i] = src[v src_stride + i] pw[i] for i < rows_in and
// 0 for rows_in <= i < 2^n, per column v: a coset region of basefold's
// encoding (CudaBackend::encode_impl).
template <class F>
__global__ void k_scale_into(const typename F::T *__restrict__ src, uint64_t src_stride, uint64_t rows_in,
                             typename F::T *__restrict__ dst, uint64_t dst_stride, uint64_t ncols, uint32_t n,
                             const typename F::Tw *__restrict__ pw) {
    const uint64_t N = 1ull << n, total = N * ncols;
    for (uint64_t g = blockIdx.x * (uint64_t)blockDim.x + threadIdx.x; g < total;
         g += (uint64_t)gridDim.x * blockDim.x) {
        uint64_t v = g >> n, i = g & (N - 1);
        dst[v * dst_stride + i] = i < rows_in ? F::mul_tw(src[v * src_stride + i], pw[i]) : (typename F::T)0;
    }
}

// Bit reversal of the rows of each column (2^n rows, n >= 10, columns 2^n
// apart), in place. Row i = (a, b, c), a the top 5 bits, c the low 5, b the
// n - 10 between: bitrev(i) = (rev c, rev b, rev a). Every row of the tile
// {(a, b, c): a, c < 32} lands in the tile of rev b, so one block swaps a
// tile with its partner (or transposes a tile that is its own), through
// shared memory: each 32-row run of the loads and the stores is contiguous
// (the naive copy's stores land 2^(n-1) rows apart).
template <class T>
__global__ void k_bitrev_tiles(T *data, uint64_t ncols, uint32_t n) {
    __shared__ T x[32][33], y[32][33];
    const uint32_t mid = n - 10;
    const uint64_t tiles = 1ull << mid, total = tiles * ncols;
    const uint32_t tx = threadIdx.x, ty = threadIdx.y;
    const uint32_t rtx = __brev(tx) >> 27;
    for (uint64_t g = blockIdx.x; g < total; g += gridDim.x) {
        const uint64_t v = g >> mid, b = g & (tiles - 1);
        const uint64_t rb = mid ? (uint64_t)(__brevll(b) >> (64 - mid)) : 0;
        if (rb < b) continue;  // the partner's block does it
        T *col = data + (v << n);
        const uint32_t hi = n - 5;
        for (uint32_t a = ty; a < 32; a += 8) {
            x[a][tx] = col[((uint64_t)a << hi) | (b << 5) | tx];
            y[a][tx] = col[((uint64_t)a << hi) | (rb << 5) | tx];
        }
        __syncthreads();
        // Row (rev c, rev b, rev a) of the tile of rev b takes x[a][c]:
        // thread tx stores rev a = tx, a = rtx.
        for (uint32_t c = ty; c < 32; c += 8) {
            const uint64_t rc = __brev(c) >> 27;
            col[(rc << hi) | (rb << 5) | tx] = x[rtx][c];
            if (rb != b) col[(rc << hi) | (b << 5) | tx] = y[rtx][c];
        }
        __syncthreads();
    }
}

// dst[bitrev(i)] = src[i] per column.
template <class T>
__global__ void k_bitrev_copy(const T *__restrict__ src, T *__restrict__ dst, uint64_t ncols,
                              uint32_t n) {
    const uint64_t N = 1ull << n, total = N * ncols;
    for (uint64_t g = blockIdx.x * (uint64_t)blockDim.x + threadIdx.x; g < total;
         g += (uint64_t)gridDim.x * blockDim.x) {
        uint64_t v = g >> n, i = g & (N - 1);
        dst[v * N + bit_reverse(i, n)] = src[g];
    }
}

}  // namespace kern
}  // namespace gp
