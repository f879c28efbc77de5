// SPDX-License-Identifier: MIT OR Apache-2.0
// The turned LDE's plan (kernels/ntt.cuh, k_turn_pass; cuda_ntt.cu,
// lde_impl): where its passes split the transform, and where a device takes
// it by default. Host arithmetic only, written once for the CUDA backend and
// for the CPU test of its rules (tests/test_turn_plan.cpp).
#pragma once

#include <algorithm>
#include <cstdint>

namespace gp {
namespace cuda {

// A field's tile constants (kern::TileCfg<F>): the largest tile (log2
// elements), the columns of a 32-byte row (log2), and the largest lowest
// segment below blowup 8 and from blowup 8 on.
struct TurnTiles {
    int tile_log, log_c, low_max, low_max_b8;
    constexpr bool operator==(const TurnTiles &o) const {
        return tile_log == o.tile_log && log_c == o.log_c && low_max == o.low_max && low_max_b8 == o.low_max_b8;
    }
};
// Their values, for the CPU test (cuda_ntt.cu asserts that kern::TileCfg
// holds the same): Goldilocks, and BabyBear / KoalaBear.
constexpr TurnTiles kTurnTilesGoldilocks{13, 2, 11, 11};
constexpr TurnTiles kTurnTiles31{14, 3, 14, 12};

// The split of a two-segment LDE of 2^log_n rows to 2^log_b cosets: the
// lowest segment t0 (P_2 on chunks of 2^t0 positions) and the top one,
// log_n - t0 (P_1 and P_3 in four-step form); lb: natural order, the cosets
// of a P_3 tile row (log2; all B of them make whole interleaved rows, fewer,
// at least 2^log_c, runs of 2^lb outputs B apart); bit-reversed, 0 (lb then
// only sized the split). ok: the tiles allow the form.
struct TurnSplit {
    bool ok;
    uint32_t t0, lb;
};

// P_3's tiles are rows of 2^(log_c + lb) columns and as many rows as the
// largest tile holds (t1 = tile_log - log_c - lb), the lowest segment takes
// the rest, at most low_max (low_max_b8 from blowup 8 on) where lb allows
// it. low_override (the GP_CUDA_TURN_LOW tuning knob, 0 when unset) forces
// t0 where the tiles allow it: a top segment that fits a tile of
// 2^(log_c + lb) columns with lb not below lb_min (natural: lb at most
// log_b, a smaller top segment then widens the rows).
inline TurnSplit turn_split(const TurnTiles &c, uint32_t log_n, uint32_t log_blowup, bool natural,
                            uint32_t low_override) {
    const int kTile = c.tile_log, kC = c.log_c, n = (int)log_n, log_b = (int)log_blowup;
    // natural rows: whole 32-byte sectors (measured: half sectors lost
    // 5-14%, docs/PERF.md v36)
    const int lb_min = natural ? std::min(kC, log_b) : 0;
    const int low_max = log_b >= 3 ? c.low_max_b8 : c.low_max;
    int lb = std::min(log_b, 2 * kTile - kC - n);
    lb = std::min(lb, std::max(lb_min, low_max - n + kTile - kC));
    int t1 = kTile - kC - lb;
    if (low_override && low_override < log_n) {
        const int o1 = n - (int)low_override;
        const int l = natural ? std::min(log_b, kTile - kC - o1) : kTile - kC - o1;
        if (l >= lb_min) {
            t1 = o1;
            lb = l;
        }
    }
    const int t0 = n - t1;
    const bool ok = lb >= lb_min && t0 >= kC + lb && t0 <= kTile;
    return {ok, ok ? (uint32_t)t0 : 0u, ok && natural ? (uint32_t)lb : 0u};
}

// Peak DRAM bytes per SM clock cycle from which the bit-reversed
// Goldilocks LDEs of blowup 2 and 4 with at most 2^23 output rows keep the
// other form (the four-step spread), which makes more passes over memory
// with fewer instructions: on the H200 (about 18.4 bytes) W1 33.4 against
// 34.2 ms, while the 2^24-row outputs and higher blowups stayed faster
// turned (2^22 x 64 B=4 37.0 against 38.8); on the H100 (12.8) the turned
// form won (35.5 against 39.5; docs/PERF.md v36). The 31-bit fields' group
// form won BabyBear 2^22 x 128 B=2 on the H200 too (14.8 against 15.2)
// until the turned form's last pass wrote whole sectors (v37: 14.4-14.5
// against 14.8), so they take the turned form everywhere.
constexpr double kWideMemoryBytesPerSmCycle = 16.0;

// Peak DRAM bytes per SM clock cycle: double data rate over the bus
// (memory clock and SM clock in kHz, bus width in bits), over every SM's
// cycle; 0 where an attribute is missing.
inline double dram_bytes_per_sm_cycle(int mem_khz, int bus_bits, int sm_khz, int sms) {
    if (mem_khz <= 0 || bus_bits <= 0 || sm_khz <= 0 || sms <= 0) return 0.0;
    return 2.0 * mem_khz * (bus_bits / 8.0) / ((double)sm_khz * sms);
}

// Whether the turned form is the default for this LDE of elem_bytes-byte
// field elements on a device of that bandwidth (where its plan allows it;
// GP_CUDA_TURN overrides).
inline bool turn_by_default(double bytes_per_sm_cycle, uint32_t elem_bytes, uint32_t log_n, uint32_t log_b,
                            bool natural) {
    return natural || elem_bytes < 8 || bytes_per_sm_cycle < kWideMemoryBytesPerSmCycle || log_b == 0 ||
           log_b > 2 || log_n + log_b > 23;
}

}  // namespace cuda
}  // namespace gp
