// SPDX-License-Identifier: MIT OR Apache-2.0
// The CUDA backend's transforms: the launch sequences of the LDE and NTT
// passes (kernels/ntt.cuh), their pass plans and shared-memory limits, and
// the cached device twiddle and power tables.
#include <cuda_runtime.h>

#include <algorithm>
#include <type_traits>

#include "core/core.h"
#include "core/trace.h"
#include "core/tables.h"
#include "cuda/cuda_backend.h"
#include "cuda/turn_plan.h"
#include "kernels/ntt.cuh"
#include "math/field.h"
#include "math/ntt.h"

namespace gp {
namespace cuda {

// The k_tile_pass instance for a direction and twiddle table. Only the
// power-of-two groups (fields with power-of-two inner roots, for the sizes
// where they measured faster: kernels/ntt.cuh) need to know the table's
// direction; the general form takes any table.
// wide: the 31-bit instance at two blocks an SM (kern::use_wide_regs).
template <class F>
static auto tile_pass_kernel(bool dif, bool inverse, bool pow2, bool wide) {
    if constexpr (F::kPow2Roots) {
        if (pow2)
            return dif ? (inverse ? kern::k_tile_pass<F, true, true, true> : kern::k_tile_pass<F, true, false, true>)
                       : (inverse ? kern::k_tile_pass<F, false, true, true> : kern::k_tile_pass<F, false, false, true>);
    } else {
        if (wide) return dif ? kern::k_tile_pass<F, true, false, false, 2> : kern::k_tile_pass<F, false, false, false, 2>;
    }
    (void)inverse;
    (void)pow2;
    (void)wide;
    return dif ? kern::k_tile_pass<F, true, false, false> : kern::k_tile_pass<F, false, false, false>;
}

// The gather pass (k_chunk_pass, GATHER) instance: power-of-two groups as
// tile_pass_kernel chooses them.
template <class F>
static auto gather_kernel(bool pow2) {
    if constexpr (F::kPow2Roots) {
        if (pow2) return kern::k_chunk_pass<F, true, true>;
    }
    (void)pow2;
    return kern::k_chunk_pass<F, true>;
}

// The k_lde_spread instance: the coset scaling one element or 16 bytes
// (W = 16 / sizeof(T)) at a time. spread_wide: the 16-byte form applies
// (a tile row holds W elements, every column of dst is 16-byte aligned) and
// pays: blowups up to 4; at 8 and 32 it measured slower (docs/PERF.md
// version 22). From blowup 8 on, the 31-bit fields' instance has the
// higher register cap (kernels/ntt.cuh, MINB).
// four: the four-step form (LdePlan::seg_inv; top-DIF fields only).
// group: the forward group form (LdePlan::zeta; kern::TileCfg<F>::kGroupTw).
template <class F, bool FOUR, bool GROUP>
static auto spread_instance(bool wide, uint32_t log_b) {
    constexpr uint32_t V = 16 / sizeof(typename F::T);
    constexpr bool top = kern::TileCfg<F>::kTopDif;
    constexpr int M = kern::TileCfg<F>::kMinBlocks;
    if constexpr (sizeof(typename F::T) == 4) {
        if (!wide && log_b >= 3) return kern::k_lde_spread<F, top, 1, 2, FOUR, GROUP>;
    }
    (void)log_b;
    return wide ? kern::k_lde_spread<F, top, V, M, FOUR, GROUP> : kern::k_lde_spread<F, top, 1, M, FOUR, GROUP>;
}
template <class F, bool GROUP>
static auto spread_four(bool wide, uint32_t log_b, bool four) {
    if constexpr (kern::TileCfg<F>::kTopDif) {
        if (four) return spread_instance<F, true, GROUP>(wide, log_b);
    }
    (void)four;
    return spread_instance<F, false, GROUP>(wide, log_b);
}
template <class F>
static auto spread_kernel(bool wide, uint32_t log_b, bool four, bool group) {
    if constexpr (kern::TileCfg<F>::kGroupTw) {
        if (group) return spread_four<F, true>(wide, log_b, four);
    }
    (void)group;
    return spread_four<F, false>(wide, log_b, four);
}

// The turned form's lowest-segment pass (k_lde_spread, TURN): 16 bytes at a
// time (its tiles are whole chunks of the 16-byte aligned scratch).
template <class F>
static auto turn_spread_kernel() {
    return kern::k_lde_spread<F, true, 16 / sizeof(typename F::T), kern::TileCfg<F>::kMinBlocks, false, false, true>;
}

template <class F>
static bool spread_wide(const kern::FusedArgs &fa) {
    constexpr uint32_t V = 16 / sizeof(typename F::T);
    return fa.log_b <= 2 && ((1u << fa.logC) >= V || (fa.lo == 0 && fa.logC == 0)) &&
           reinterpret_cast<uintptr_t>(fa.dst) % 16 == 0 && fa.dst_stride % V == 0;
}

template <class F>
void CudaBackend::set_smem_limit_for() {
    int bytes = (int)kern::tile_bytes<F>(1u << kern::TileCfg<F>::kTileLog);
    for (bool dif : {false, true})
        for (bool inv : {false, true})
            for (bool pow2 : {false, true})
                for (bool wide : {false, true})
                    cudaFuncSetAttribute(tile_pass_kernel<F>(dif, inv, pow2, wide),
                                         cudaFuncAttributeMaxDynamicSharedMemorySize, bytes);
    for (bool pow2 : {false, true})
        cudaFuncSetAttribute(gather_kernel<F>(pow2), cudaFuncAttributeMaxDynamicSharedMemorySize, bytes);
    cudaFuncSetAttribute(kern::k_chunk_pass<F, false>, cudaFuncAttributeMaxDynamicSharedMemorySize, bytes);
    cudaFuncSetAttribute(kern::k_turn_pass<F, false>, cudaFuncAttributeMaxDynamicSharedMemorySize, bytes);
    cudaFuncSetAttribute(kern::k_turn_pass<F, true>, cudaFuncAttributeMaxDynamicSharedMemorySize, bytes);
    cudaFuncSetAttribute(kern::k_turn_pass<F, true, true>, cudaFuncAttributeMaxDynamicSharedMemorySize, bytes);
    cudaFuncSetAttribute(turn_spread_kernel<F>(), cudaFuncAttributeMaxDynamicSharedMemorySize, bytes);
    cudaFuncSetAttribute(kern::k_lde_fused<F>, cudaFuncAttributeMaxDynamicSharedMemorySize, bytes);
    for (bool wide : {false, true})
        for (uint32_t log_b : {0u, 3u})
            for (bool four : {false, true})
                for (bool group : {false, true})
                    cudaFuncSetAttribute(spread_kernel<F>(wide, log_b, four, group),
                                         cudaFuncAttributeMaxDynamicSharedMemorySize, bytes);
}

void CudaBackend::set_smem_limits() {
    set_smem_limit_for<Goldilocks>();
    set_smem_limit_for<BabyBear>();
    set_smem_limit_for<KoalaBear>();
    GP_CUDA(cudaGetLastError());
}

// Device copy of a host table, cached under the same key.
template <class F>
const typename F::Tw *CudaBackend::device_table(const TableKey &key, const typename F::Tw *host, uint64_t count) {
    auto it = dev_tables_.find(key);
    if (it != dev_tables_.end()) return static_cast<const typename F::Tw *>(it->second.ptr);
    uint64_t bytes = count * sizeof(typename F::Tw);
    void *p = device_alloc(bytes, "twiddle table");
    // Ordered before the kernels that read it (a plain cudaMemcpy from
    // pageable memory may return before its DMA lands, and compute_ does
    // not synchronise with the legacy stream). The cache changes only once
    // the table is on its way.
    cudaError_t e = cudaMemcpyAsync(p, host, bytes, cudaMemcpyHostToDevice, compute_);
    if (e != cudaSuccess) {
        cudaFree(p);
        cuda_fail(e, "cudaMemcpyAsync", __FILE__, __LINE__);
    }
    try {
        dev_tables_.emplace(key, DeviceScratch{p, bytes});
    } catch (...) {
        cudaFree(p);
        throw;
    }
    return static_cast<const typename F::Tw *>(p);
}

template <class F, class Host>
const typename F::Tw *CudaBackend::dev_grown_table(const TableKey &key, uint32_t log, Host &&host) {
    auto it = dev_tables_.find(key);
    if (it != dev_tables_.end() && it->second.bytes >= (sizeof(typename F::Tw) << log))
        return static_cast<const typename F::Tw *>(it->second.ptr);
    if (it != dev_tables_.end()) {
        GP_CUDA(cudaStreamSynchronize(compute_));
        cudaFree(it->second.ptr);
        dev_tables_.erase(it);
    }
    return device_table<F>(key, host(), 1ull << log);
}

template <class F>
const typename F::Tw *CudaBackend::dev_twiddles(FieldId id, uint32_t log, bool inverse) {
    // Always keep one table per direction at the largest size seen.
    return dev_grown_table<F>({id, inverse ? TableKind::TwiddlesInv : TableKind::TwiddlesFwd, 0, 0, 0}, log,
                              [&] { return tables_.twiddles<F>(id, log, inverse); });
}

template <class F>
const typename F::Tw *CudaBackend::dev_group_twiddles(FieldId id, uint32_t log) {
    return dev_grown_table<F>({id, TableKind::GroupFwd, 0, 0, 0}, log,
                              [&] { return tables_.group_twiddles<F>(id, log); });
}

template <class F>
const typename F::Tw *CudaBackend::dev_powers(FieldId id, uint32_t log, typename F::T base, typename F::T c) {
    return dev_lru_table<F>({id, TableKind::Powers, log, (uint64_t)base, (uint64_t)c},
                            [&] { return tables_.powers<F>(id, log, base, c); });
}

template <class F>
const typename F::Tw *CudaBackend::dev_powers_rev(FieldId id, uint32_t log, typename F::T base, typename F::T c) {
    return dev_lru_table<F>({id, TableKind::PowersRev, log, (uint64_t)base, (uint64_t)c},
                            [&] { return tables_.powers_rev<F>(id, log, base, c); });
}

template <class F>
const typename F::Tw *CudaBackend::dev_segment_factors(FieldId id, uint32_t log, uint32_t t, bool inverse) {
    return dev_lru_table<F>({id, inverse ? TableKind::SegmentInv : TableKind::SegmentFwd, log, t, 0},
                            [&] { return tables_.segment_factors<F>(id, log, t, inverse); });
}

template <class F, class Host>
const typename F::Tw *CudaBackend::dev_lru_table(const TableKey &key, Host &&host) {
    auto it = dev_tables_.find(key);
    const typename F::Tw *t = it != dev_tables_.end() ? static_cast<const typename F::Tw *>(it->second.ptr)
                                                      : device_table<F>(key, host(), 1ull << key.log);
    // Least recently used tables beyond the budget go (core/tables.h),
    // once the kernels queued before this call are done with them.
    dev_lru_.touch(key, sizeof(typename F::Tw) << key.log);
    const std::vector<TableKey> old = dev_lru_.evict(key);
    if (!old.empty()) GP_CUDA(cudaStreamSynchronize(compute_));
    for (const TableKey &k : old) {
        auto e = dev_tables_.find(k);
        if (e == dev_tables_.end()) continue;
        cudaFree(e->second.ptr);
        dev_tables_.erase(e);
    }
    return t;
}

// ---- transforms ----
template <class F>
size_t CudaBackend::smem_bytes(uint32_t t, uint32_t logC) {
    return kern::tile_bytes<F>(1u << (t + logC));
}

template <class F>
uint32_t CudaBackend::strided_logC(uint32_t lo) {
    return std::min<uint32_t>(lo, kern::TileCfg<F>::kLogC);
}

uint32_t CudaBackend::grid_blocks(uint64_t blocks) { return grid_for(blocks, (uint32_t)sms_ * 64); }

// In-place passes over the segments [first, last) of a plan, DIT
// ascending or DIF descending, on ncols columns of 2^n, with the forward or
// the inverse (`inverse`) twiddle table tw.
template <class F, bool DIF>
void CudaBackend::tile_passes(typename F::T *data, uint64_t col_stride, uint64_t ncols, uint32_t n,
                              const SegmentPlan &seg, uint32_t first, uint32_t last, const typename F::Tw *tw,
                              bool inverse) {
    auto kernel = tile_pass_kernel<F>(DIF, inverse, kern::use_pow2_groups<F>(n), kern::use_wide_regs<F>(n));
    for (uint32_t ii = first; ii < last; ++ii) {
        uint32_t i = DIF ? last - 1 - (ii - first) : ii;
        uint32_t lo = seg.lo[i], t = seg.bits[i];
        uint32_t logC = strided_logC<F>(lo);
        uint64_t blocks = (1ull << (n - t - logC)) * ncols;
        kernel<<<grid_blocks(blocks), threads_for<F>(t + logC), smem_bytes<F>(t, logC), compute_>>>(
            data, col_stride, ncols, n, lo, t, logC, tile_group(false), tw);
        check_launch();
    }
}

// Pass plan for size 2^n: the fewest segments the largest tile allows,
// then the smaller of the two largest tiles that keeps that count (more,
// smaller blocks per SM hide latency better: measured on an H200, see
// docs/PERF.md). GP_CUDA_TILE_LOG caps the tile (a tuning knob).
// Tile order (kern::tile_of_block) of the tile passes or the spread pass.
// The spread pass reads the twiddles of two top segments a tile, the same
// in every column: taking 4 neighbouring tiles of each column in turn, so
// that the columns after the first find them in L2, cut its DRAM traffic
// from 21.7 to 9.6 GB and its time by 8% (BabyBear 2^22 x 128, B=2; W1
// 15.7 -> 11.3 GB). The tile passes stay column by column: grouped, the
// NTTs measured 2% slower (docs/PERF.md version 24).
uint32_t CudaBackend::tile_group(bool spread) const {
    if (tile_group_override_) return tile_group_override_ - 1;
    return spread ? kern::kSpreadGroupLog : 63;
}

template <class F>
SegmentPlan CudaBackend::plan_for(uint32_t n, bool &single) {
    constexpr uint32_t max_log = kern::TileCfg<F>::kTileLog, logC = kern::TileCfg<F>::kLogC;
    uint32_t top = tile_log_override_ ? std::min(max_log, tile_log_override_) : max_log;
    auto segs = [&](uint32_t tl) { return n <= tl ? 1u : (n + tl - logC - 1) / (tl - logC); };
    uint32_t tile_log = top;
    if (top > 9 && segs(top - 1) == segs(top)) tile_log = top - 1;
    single = n <= tile_log;
    return single ? plan_segments(n, tile_log) : plan_segments(n, tile_log - logC);
}

// Threads for a tile of 2^tile_log elements: kEpt elements a thread (the
// fused kernel keeps that many coefficients in registers).
template <class F>
uint32_t CudaBackend::threads_for(uint32_t tile_log) const {
    constexpr uint32_t ept_log = kern::TileCfg<F>::kTileLog - __builtin_ctz(kern::kThreads);  // log2(kEpt)
    uint32_t t = tile_log > ept_log ? 1u << (tile_log - ept_log) : 1u;
    if (threads_override_) t = std::max(t, threads_override_);
    return std::min<uint32_t>(std::max<uint32_t>(t, 64), kern::kThreads);
}

// LDE of ncols base columns, the call's from col0 on: in (col stride
// in_stride, rows_in rows) -> out (col stride n*B). Everything queued on
// compute_.
template <class F>
void CudaBackend::lde_columns(const LdePlan<F> &p, const typename F::T *in, uint64_t in_stride,
                              uint64_t rows_in, typename F::T *out, uint64_t col0, uint64_t ncols) {
    using T = typename F::T;
    const uint32_t n = p.log_n;
    const uint64_t N = 1ull << n, B = 1ull << p.log_b, NB = N * B;
    kern::FusedArgs fa{};
    fa.rows_in = rows_in;
    fa.dst_stride = NB;
    fa.ncols = ncols;
    fa.n = n;
    fa.log_b = p.log_b;
    fa.tw_inv = p.tw_inv;
    fa.tw_fwd = p.tw_fwd;
    fa.scale = p.scale;
    fa.log_group = tile_group(true);
    fa.radd = p.radd ? p.radd + (col0 << p.log_b) * p.rm : nullptr;
    fa.rm = p.rm;
    // The pass's source and destination, its tiles and their order.
    auto pass_args = [&](const void *src, uint64_t src_stride, void *dst, uint32_t lo, uint32_t t, uint32_t logC,
                         bool bitrev_regions, bool natural_out) {
        fa.src = src;
        fa.src_stride = src_stride;
        fa.dst = dst;
        fa.lo = lo;
        fa.t = t;
        fa.logC = logC;
        fa.bitrev_regions = bitrev_regions;
        fa.natural_out = natural_out;
    };
    if (p.single) {
        pass_args(in, in_stride, out, 0, n, 0, true, p.natural);
        kern::k_lde_fused<F><<<grid_blocks(ncols), threads_for<F>(n), smem_bytes<F>(n, 0), compute_>>>(fa);
        check_launch();
        return;
    }
    const SegmentPlan &s = p.seg;
    const uint32_t k = s.count;
    T *R = p.natural || p.turn ? static_cast<T *>(scratch(regions_, ncols * NB * sizeof(T), "LDE scratch")) : out;
    if (p.turn) {
        // The turned form (two segments): the inverse DIF's top segment from
        // the input into region 0; its low segment, the scaling and the
        // forward DIT's low segment into the B regions; the forward DIT's
        // top segment into the interleaved rows (natural order) or the
        // bit-reversed regions.
        constexpr uint32_t kTile = kern::TileCfg<F>::kTileLog;
        const uint32_t t0 = p.turn_lo, t1 = n - t0, lb = p.turn_lb, logC = std::min(kTile - t1, t0);
        uint64_t blocks = (1ull << (t0 - logC)) * ncols;
        kern::k_turn_pass<F, false><<<grid_blocks(blocks), threads_for<F>(t1 + logC), smem_bytes<F>(t1, logC), compute_>>>(
            in, in_stride, rows_in, R, NB, ncols, n, t0, logC, 0, p.log_b, tile_group(true), p.tw_inv, p.seg_inv);
        check_launch();
        pass_args(R, NB, R, 0, t0, 0, false, false);
        fa.step = p.step;
        blocks = (1ull << t1) * ncols;
        turn_spread_kernel<F>()<<<grid_blocks(blocks), threads_for<F>(t0), smem_bytes<F>(t0, 0), compute_>>>(fa);
        check_launch();
        blocks = (1ull << (t0 - (logC - lb) + p.log_b - lb)) * ncols;
        (p.natural ? kern::k_turn_pass<F, true> : kern::k_turn_pass<F, true, true>)<<<grid_blocks(blocks), threads_for<F>(t1 + logC), smem_bytes<F>(t1, logC), compute_>>>(
            R, N, N, out, NB, ncols, n, t0, logC, lb, p.log_b, tile_group(true), p.tw_fwd, p.seg_fwd);
        check_launch();
        return;
    }
    // A_1: gather + inverse DIT on the lowest segment into region 0.
    {
        uint32_t t = s.bits[0], logC = std::min<uint32_t>(n - t, kern::TileCfg<F>::kLogC);
        uint64_t blocks = (1ull << (n - t - logC)) * ncols;
        gather_kernel<F>(kern::use_pow2_groups<F>(n))<<<grid_blocks(blocks), threads_for<F>(t + logC), smem_bytes<F>(t, logC), compute_>>>(
            in, in_stride, rows_in, R, NB, ncols, n, t, logC, p.log_b, p.tw_inv);
        check_launch();
    }
    // A_i: middle segments of the inverse DIT.
    tile_passes<F, false>(R, NB, ncols, n, s, 1, k - 1, p.tw_inv, true);
    // F: top segment of the inverse DIT, coset scaling into the B regions
    // (and, where kTopDif, the top segment of each coset's forward DIF).
    constexpr bool top_dif = kern::TileCfg<F>::kTopDif;
    {
        uint32_t lo = s.lo[k - 1], t = s.bits[k - 1], logC = strided_logC<F>(lo);
        pass_args(R, NB, R, lo, t, logC, !p.natural, false);
        uint64_t blocks = (1ull << (n - t - logC)) * ncols;
        fa.seg_inv = p.seg_inv;
        fa.seg_fwd = p.seg_fwd;
        spread_kernel<F>(spread_wide<F>(fa), fa.log_b, p.seg_inv != nullptr, p.zeta != nullptr)<<<grid_blocks(blocks), threads_for<F>(t + logC), smem_bytes<F>(t, logC), compute_>>>(fa);
        check_launch();
    }
    // B_i: the forward DIF of every region, from the top segment (or the one
    // below it) down to segment 1.
    tile_passes<F, true>(R, N, ncols * B, n, s, 1, top_dif ? k - 1 : k, p.tw_fwd, false);
    // B_1: lowest segment; bit-reversed output in place, natural scattered.
    if (p.zeta) {
        // The group form (two segments, B even): two regions a tile, one
        // set of group twiddles (kern::k_pair_pass).
        if constexpr (kern::TileCfg<F>::kGroupTw) {
            const uint32_t t = s.bits[0];
            const uint64_t npairs = ncols * B / 2, blocks = (1ull << (n - t)) * npairs;
            kern::k_pair_pass<F><<<grid_blocks(blocks), threads_for<F>(t + 1), smem_bytes<F>(t, 1), compute_>>>(
                R, N, npairs, n, t, tile_group(false), p.zeta);
            check_launch();
        }
    } else if (!p.natural) {
        SegmentPlan one = s;
        tile_passes<F, true>(R, N, ncols * B, n, one, 0, 1, p.tw_fwd, false);
    } else {
        uint32_t t = s.bits[0], logC = std::min<uint32_t>(n - t, kern::TileCfg<F>::kLogC);
        uint64_t blocks = (1ull << (n - t - logC)) * ncols * B;
        kern::k_chunk_pass<F, false><<<grid_blocks(blocks), threads_for<F>(t + logC), smem_bytes<F>(t, logC), compute_>>>(
            R, N, 0, out, NB, ncols * B, n, t, logC, p.log_b, p.tw_fwd);
        check_launch();
    }
}

// Where the turned form is the default (turn_plan.h, turn_by_default).
bool CudaBackend::turn_for(uint32_t elem_bytes, uint32_t log_n, uint32_t log_b, bool natural) const {
    if (turn_mode_ >= 0) return turn_mode_ != 0;
    return turn_by_default(dram_bytes_per_sm_cycle_, elem_bytes, log_n, log_b, natural);
}

template <class F>
void CudaBackend::lde_impl(const LdeArgs &a) {
    using T = typename F::T;
    if (a.coefficients) return encode_impl<F>(a);
    const FieldId id = a.field->id;
    LdePlan<F> p{};
    p.log_n = a.log_n;
    p.log_b = a.log_blowup;
    p.natural = a.order == GP_ORDER_NATURAL;
    p.seg = plan_for<F>(a.log_n, p.single);
    p.tw_inv = dev_twiddles<F>(id, a.log_n, true);
    p.tw_fwd = dev_twiddles<F>(id, a.log_n + a.log_blowup, false);
    const uint64_t N = 1ull << a.log_n, NB = N << a.log_blowup;
    const uint64_t base_cols = a.cols * a.ext, rows_in = a.rows_in;
    T g_over_s = F::mul((T)a.shift, finv<F>((T)a.input_shift));
    const T inv_n = finv<F>((T)(N % F::P));
    // The turned form (kern::TileCfg<F>::kTurn; kernels/ntt.cuh, k_turn_pass)
    // for two segments, where its four tables (both segment factors, the
    // scaling and the coset step in bit-reversed order) fit the table
    // budget; its split: turn_plan.h, turn_split.
    {
        using Cfg = kern::TileCfg<F>;
        constexpr TurnTiles tiles{Cfg::kTileLog, Cfg::kLogC, Cfg::kTurnLowMax, Cfg::kTurnLowMaxB8};
        static_assert(tiles == (std::is_same_v<F, Goldilocks> ? kTurnTilesGoldilocks : kTurnTiles31),
                      "turn_plan.h's tile constants (and tests/test_turn_plan.cpp) follow kern::TileCfg");
        const TurnSplit sp = turn_split(tiles, a.log_n, a.log_blowup, p.natural, turn_low_override_);
        p.turn = Cfg::kTurn && turn_for(sizeof(T), a.log_n, a.log_blowup, p.natural) && !p.single && sp.ok &&
                 4 * (sizeof(typename F::Tw) << a.log_n) <= kPowersBudgetBytes;
        p.turn_lo = sp.t0;
        p.turn_lb = sp.lb;
    }
    // Natural order and the turned form need n*B scratch per column: bound
    // it by batching (up to 4 GiB, half the free memory). The bit-reversed
    // order, which needs none in the other form, takes the turned one only
    // where at least 256 MiB of it (or the whole output's size), and one
    // column, fit.
    uint64_t max_cols = base_cols;
    if ((p.natural || p.turn) && !p.single) {
        size_t free_b = 0, total_b = 0;
        GP_CUDA(cudaMemGetInfo(&free_b, &total_b));
        const uint64_t budget = std::max<uint64_t>(regions_.bytes, std::min<uint64_t>(free_b / 2, 4ull << 30));
        const uint64_t col_bytes = NB * sizeof(T);
        if (!p.natural && budget < std::max<uint64_t>(col_bytes, std::min<uint64_t>(base_cols * col_bytes, 256ull << 20)))
            p.turn = false;
        if (p.natural || p.turn) max_cols = std::max<uint64_t>(1, budget / col_bytes);
    }
    if (p.turn) {
        const uint32_t t1 = a.log_n - p.turn_lo;
        p.seg_inv = dev_segment_factors<F>(id, a.log_n, t1, true);
        p.seg_fwd = dev_segment_factors<F>(id, a.log_n, t1, false);
        p.step = dev_powers_rev<F>(id, a.log_n, two_adic_generator<F>(a.log_n + a.log_blowup), 1);
        p.scale = dev_powers_rev<F>(id, a.log_n, g_over_s, inv_n);
    } else {
        // The forward group form (kern::TileCfg<F>::kGroupTw) where it
        // measured faster: two segments, bit-reversed output, an even number
        // of regions (k_pair_pass); it needs no forward four-step factors.
        const bool group = kern::TileCfg<F>::kGroupTw && !p.single && p.seg.count == 2 && !p.natural &&
                           a.log_blowup >= 1 && p.seg.bits[0] >= 2;
        if (group) p.zeta = dev_group_twiddles<F>(id, a.log_n);
        // The spread pass's four-step form (kernels/ntt.cuh, FOUR) where the
        // field runs the top DIF segment there, for the blowups where it
        // measured faster (kern::kFourStepMaxLogB), and where its tables
        // (two, or the inverse one alone in the group form) and the scaling
        // table fit the table budget together (fetched first: the scaling
        // table is then the most recently used, and none of them evicts
        // another).
        if (kern::TileCfg<F>::kTopDif && !p.single && four_step_ && a.log_blowup <= kern::kFourStepMaxLogB &&
            (group ? 2 : 3) * (sizeof(typename F::Tw) << a.log_n) <= kPowersBudgetBytes) {
            const uint32_t t = p.seg.bits[p.seg.count - 1];
            p.seg_inv = dev_segment_factors<F>(id, a.log_n, t, true);
            if (!group) p.seg_fwd = dev_segment_factors<F>(id, a.log_n, t, false);
        }
        p.scale = dev_powers<F>(id, a.log_n, g_over_s, inv_n);
    }
    if (a.rand_add) {  // B m elements a base column, queued ahead of the transforms
        const uint64_t bytes = base_cols * (a.rand_m << a.log_blowup) * sizeof(T);
        T *radd = static_cast<T *>(scratch(radd_, bytes, "randomizer addend"));
        GP_CUDA(cudaMemcpyAsync(radd, a.rand_add, bytes, cudaMemcpyHostToDevice, compute_));
        p.radd = radd;
        p.rm = a.rand_m;
    }
    T *out = static_cast<T *>(a.out->data);

    if (a.in_buf) {
        const T *in = static_cast<const T *>(a.in_buf->data);
        for (uint64_t c0 = 0; c0 < base_cols; c0 += max_cols) {
            uint64_t nc = std::min(max_cols, base_cols - c0);
            lde_columns<F>(p, in + c0 * rows_in, rows_in, rows_in, out + c0 * NB, c0, nc);
        }
        GP_CUDA(cudaStreamSynchronize(compute_));
        return;
    }

    const uint64_t host_bytes = rows_in * base_cols * sizeof(T);
    unsigned long long none = ~0ull;
    GP_CUDA(cudaMemcpyAsync(flag_, &none, sizeof(none), cudaMemcpyHostToDevice, compute_));
    if (a.in_layout == GP_LAYOUT_ROW_MAJOR) {
        // Upload whole, transpose to columns, then transform.
        T *raw = static_cast<T *>(scratch(perm_, host_bytes, "layout scratch"));
        stage_to_device(a.in_host, raw, host_bytes);
        queue_canonical_check(*a.field, raw, rows_in * base_cols, 0);
        T *cols = static_cast<T *>(scratch(in_slot_[0], host_bytes, "LDE input"));
        transpose(sizeof(T), raw, cols, 1, rows_in, base_cols);
        for (uint64_t c0 = 0; c0 < base_cols; c0 += max_cols) {
            uint64_t nc = std::min(max_cols, base_cols - c0);
            lde_columns<F>(p, cols + c0 * rows_in, rows_in, rows_in, out + c0 * NB, c0, nc);
        }
        finish_canonical_check("data");
        return;
    }

    // Column-major host input: pipeline batches of extension columns
    // through kSlots device slots; upload of batch i+1 overlaps the
    // transform of batch i.
    const uint64_t col_bytes = rows_in * a.ext * sizeof(T);
    uint64_t batch = std::max<uint64_t>(1, kStageBytes / col_bytes);
    batch = std::min({batch, a.cols, std::max<uint64_t>(1, max_cols / a.ext)});
    const bool direct = is_pinned(a.in_host);
    const uint64_t slot_bytes = batch * col_bytes;
    T *slot_ptr[kSlots], *slot_cols[kSlots];
    for (int i = 0; i < kSlots; ++i) {
        slot_ptr[i] = static_cast<T *>(scratch(in_slot_[i], slot_bytes * (a.ext > 1 ? 2 : 1), "LDE input slot"));
        slot_cols[i] = a.ext > 1 ? slot_ptr[i] + batch * rows_in * a.ext : slot_ptr[i];
    }
    // ev_done_[slot] was last recorded after the transform that read the
    // slot (every call ends synchronized), so the first uploads wait for
    // nothing: they overlap work the caller queued before this call (a
    // streamed commitment's absorption).
    const char *host = static_cast<const char *>(a.in_host);
    uint64_t i = 0;
    for (uint64_t c0 = 0; c0 < a.cols; c0 += batch, ++i) {
        poll("lde", c0, a.cols);
        int slot = (int)(i % kSlots);
        uint64_t nc = std::min(batch, a.cols - c0);
        uint64_t bytes = nc * col_bytes;
        GP_CUDA(cudaStreamWaitEvent(copy_, ev_done_[slot], 0));  // device slot free
        // Large batches are staged in kStageBytes pieces.
        for (uint64_t off = 0; off < bytes; off += kStageBytes) {
            uint64_t len = std::min(kStageBytes, bytes - off);
            stage_chunk(host + c0 * col_bytes + off, reinterpret_cast<char *>(slot_ptr[slot]) + off, len,
                        direct);
        }
        GP_CUDA(cudaEventRecord(ev_copied_[slot], copy_));
        GP_CUDA(cudaStreamWaitEvent(compute_, ev_copied_[slot], 0));
        queue_canonical_check(*a.field, slot_ptr[slot], nc * rows_in * a.ext, c0 * rows_in * a.ext);
        if (a.ext > 1) transpose(sizeof(T), slot_ptr[slot], slot_cols[slot], nc, rows_in, a.ext);
        lde_columns<F>(p, slot_cols[slot], rows_in, rows_in, out + c0 * a.ext * NB, c0 * a.ext, nc * a.ext);
        GP_CUDA(cudaEventRecord(ev_done_[slot], compute_));
    }
    finish_canonical_check("data");
}

// The transform of ntt_impl without its scalings and reordering, in place on
// ncols contiguous columns of 2^n: natural in, bit-reversed out (DIF), or
// bit-reversed in, natural out (in_rev, DIT); tw the table of direction
// `inverse`.
template <class F>
void CudaBackend::ntt_columns(FieldId id, typename F::T *data, uint64_t ncols, uint32_t n, bool inverse, bool in_rev,
                              const typename F::Tw *tw) {
    const uint64_t N = 1ull << n;
    bool single;
    SegmentPlan seg = plan_for<F>(n, single);
    // Two segments take the top one in four-step form (k_turn_pass, as the
    // turned LDE's first and last passes): the tile's columns transform
    // with twiddles of levels below 2^t1 and one factor an element
    // (build_segment_factors) meets them between the segments, instead of
    // the strided tile pass's twiddles read from the whole table. The top
    // segment has the LDE's bit-reversed B=2 size, kTile - kC - 1 bits.
    // In place: each block reads its whole tile before it writes it, and
    // no two blocks share a tile.
    constexpr uint32_t kTile = kern::TileCfg<F>::kTileLog, kC = kern::TileCfg<F>::kLogC;
    const uint32_t t1 = kTile - kC - 1, t0 = n > t1 ? n - t1 : 0;
    if (kern::TileCfg<F>::kTurnNtt && turn_mode_ != 0 && !single && seg.count == 2 && t0 >= kC + 1 && t0 <= kTile &&
        (sizeof(typename F::Tw) << n) <= kPowersBudgetBytes) {
        const typename F::Tw *factors = dev_segment_factors<F>(id, n, t1, inverse);
        const uint32_t logC = std::min(kTile - t1, t0);
        const uint64_t blocks = (1ull << (t0 - logC)) * ncols;
        SegmentPlan low{};
        low.count = 1;
        low.bits[0] = t0;
        auto top = in_rev ? kern::k_turn_pass<F, true> : kern::k_turn_pass<F, false>;
        if (in_rev) tile_passes<F, false>(data, N, ncols, n, low, 0, 1, tw, inverse);
        top<<<grid_blocks(blocks), threads_for<F>(t1 + logC), smem_bytes<F>(t1, logC), compute_>>>(
            data, N, N, data, N, ncols, n, t0, logC, 0, 0, tile_group(true), tw, factors);
        check_launch();
        if (!in_rev) tile_passes<F, true>(data, N, ncols, n, low, 0, 1, tw, inverse);
    } else if (in_rev) {
        tile_passes<F, false>(data, N, ncols, n, seg, 0, seg.count, tw, inverse);
    } else {
        tile_passes<F, true>(data, N, ncols, n, seg, 0, seg.count, tw, inverse);
    }
}

// Bit-reverses the rows of ncols contiguous columns of 2^n in place: tile
// pairs swapped through shared memory (kern::k_bitrev_tiles) from 2^10
// rows, else through the permutation scratch.
template <class F>
void CudaBackend::bitrev_columns(typename F::T *data, uint64_t ncols, uint32_t n) {
    using T = typename F::T;
    if (n >= 10) {
        kern::k_bitrev_tiles<T><<<grid_blocks(ncols << (n - 10)), dim3(32, 8), 0, compute_>>>(data, ncols, n);
        check_launch();
        return;
    }
    const uint64_t bytes = ncols * (sizeof(T) << n);
    T *tmp = static_cast<T *>(scratch(perm_, bytes, "permutation scratch"));
    kern::k_bitrev_copy<T><<<grid_blocks(((ncols << n) + 255) / 256), 256, 0, compute_>>>(data, tmp, ncols, n);
    check_launch();
    GP_CUDA(cudaMemcpyAsync(data, tmp, bytes, cudaMemcpyDeviceToDevice, compute_));
}

template <class F>
void CudaBackend::ntt_impl(Buffer &buf, const NttArgs &a) {
    using T = typename F::T;
    const FieldId id = buf.field->id;
    const uint32_t n = log2_exact(buf.rows);
    const uint64_t N = buf.rows, ncols = buf.base_cols();
    const bool inverse = a.direction == GP_NTT_INVERSE;
    const bool in_rev = a.input_order == GP_ORDER_BIT_REVERSED;
    T *data = static_cast<T *>(buf.data);
    const typename F::Tw *tw = dev_twiddles<F>(id, n, inverse);
    T s = (T)a.shift;
    uint32_t sgrid = grid_blocks((N * ncols + 255) / 256);
    if (!inverse && s != 1) {
        const typename F::Tw *pw = dev_powers<F>(id, n, s, 1);
        kern::k_scale_powers<F><<<sgrid, 256, 0, compute_>>>(data, N, ncols, n, in_rev, pw);
        check_launch();
    }
    ntt_columns<F>(id, data, ncols, n, inverse, in_rev, tw);
    const bool out_rev = !in_rev;
    if (inverse) {
        const typename F::Tw *pw = dev_powers<F>(id, n, finv<F>(s), finv<F>((T)(N % F::P)));
        kern::k_scale_powers<F><<<sgrid, 256, 0, compute_>>>(data, N, ncols, n, out_rev, pw);
        check_launch();
    }
    if (out_rev != (a.output_order == GP_ORDER_BIT_REVERSED)) bitrev_columns<F>(data, ncols, n);
    GP_CUDA(cudaStreamSynchronize(compute_));
}

// Basefold's encoding (LdeArgs::coefficients, core/lde_coeffs.h). Split the
// nB output points g w_nB^k, k = j + B m (j < B, m < n): they are the n
// points w_n^m of the coset shifted by g w_nB^j, and bit reversal of k
// puts them in region r = bitrev_B(j) of the bit-reversed output, at row
// r n + bitrev_n(m). So each region is the n-point forward transform
// (natural in, bit-reversed out) of the coefficients times the powers of
// its shift g w_nB^j: one scaled copy a region (rows past the input's
// zeroed) and one transform of B n-point columns a column, instead of a
// zero-padded nB-point transform. Natural order: the whole column
// bit-reversed after. Input: a device buffer (the core uploads host
// input first).
template <class F>
void CudaBackend::encode_impl(const LdeArgs &a) {
    using T = typename F::T;
    if (!a.in_buf) fail(GP_ERR_INTERNAL, "encoding from coefficients takes a device buffer");
    const FieldId id = a.field->id;
    const uint32_t n = a.log_n, lb = a.log_blowup;
    const uint64_t N = 1ull << n, B = 1ull << lb, NB = N << lb;
    const uint64_t ncols = a.cols * a.ext, rows_in = a.rows_in;
    const T *in = static_cast<const T *>(a.in_buf->data);
    T *out = static_cast<T *>(a.out->data);
    const T w = two_adic_generator<F>(n + lb);
    const uint32_t grid = grid_blocks((N * ncols + 255) / 256);
    for (uint64_t r = 0; r < B; ++r) {
        // The table of each region is queued for before the next is
        // fetched: a later fetch that evicts it waits for this launch.
        const T base = F::mul((T)a.shift, fpow<F>(w, bit_reverse(r, lb)));
        const typename F::Tw *pw = dev_powers<F>(id, n, base, 1);
        kern::k_scale_into<F><<<grid, 256, 0, compute_>>>(in, rows_in, rows_in, out + r * N, NB, ncols, n, pw);
        check_launch();
    }
    ntt_columns<F>(id, out, ncols * B, n, false, false, dev_twiddles<F>(id, n, false));
    if (a.order == GP_ORDER_NATURAL) bitrev_columns<F>(out, ncols, n + lb);
    GP_CUDA(cudaStreamSynchronize(compute_));
}

void CudaBackend::lde(const LdeArgs &a) {
    TraceRange trace("cuda: lde");
    GP_CUDA(cudaSetDevice(device_));
    dispatch_field(a.field->id, [&](auto F) { lde_impl<decltype(F)>(a); });
}

void CudaBackend::ntt(Buffer &buf, const NttArgs &a) {
    TraceRange trace("cuda: ntt");
    GP_CUDA(cudaSetDevice(device_));
    dispatch_field(buf.field->id, [&](auto F) { ntt_impl<decltype(F)>(buf, a); });
}

}  // namespace cuda
}  // namespace gp
