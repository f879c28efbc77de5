// SPDX-License-Identifier: MIT OR Apache-2.0
// The turned LDE's plan (src/cuda/turn_plan.h), on the CPU: the splits the
// CUDA backend measured and ships (docs/PERF.md versions 34-36), the
// constraints of its tiles on every shape, the tuning knob, and which form a
// device of a given bandwidth takes by default.
#include <gtest/gtest.h>

#include <algorithm>
#include <cstdint>

#include "cuda/turn_plan.h"

namespace {

using gp::cuda::dram_bytes_per_sm_cycle;
using gp::cuda::turn_by_default;
using gp::cuda::turn_split;
using gp::cuda::TurnSplit;
using gp::cuda::TurnTiles;

// kern::TileCfg's values (the CUDA build asserts them): tile log, log2
// columns of a 32-byte row, the largest lowest segment below blowup 8 and
// from blowup 8 on.
constexpr TurnTiles kGoldilocks = gp::cuda::kTurnTilesGoldilocks;
constexpr TurnTiles kBabyBear = gp::cuda::kTurnTiles31;  // KoalaBear the same

void expect_split(const TurnTiles &c, uint32_t log_n, uint32_t log_b, bool natural, uint32_t t0, uint32_t lb,
                  uint32_t knob = 0) {
    const TurnSplit s = turn_split(c, log_n, log_b, natural, knob);
    EXPECT_TRUE(s.ok) << log_n << " " << log_b << " " << natural;
    EXPECT_EQ(s.t0, t0) << "2^" << log_n << " B=2^" << log_b << (natural ? " natural" : " bit-reversed");
    EXPECT_EQ(s.lb, lb) << "2^" << log_n << " B=2^" << log_b << (natural ? " natural" : " bit-reversed");
}

TEST(TurnPlan, MeasuredSplits) {
    // bit-reversed (lb is 0: it only sized the split)
    expect_split(kGoldilocks, 20, 2, false, 11, 0);  // W1
    expect_split(kBabyBear, 22, 1, false, 12, 0);
    expect_split(kBabyBear, 23, 1, false, 13, 0);
    expect_split(kBabyBear, 21, 3, false, 12, 0);  // kTurnLowMaxB8
    expect_split(kBabyBear, 19, 5, false, 12, 0);
    expect_split(kGoldilocks, 19, 5, false, 11, 0);
    // natural: all B cosets a row below 2^(kLogC + 1), then at least 2^kLogC
    expect_split(kGoldilocks, 20, 2, true, 11, 2);
    expect_split(kBabyBear, 22, 1, true, 12, 1);
    expect_split(kBabyBear, 21, 3, true, 13, 3);
    expect_split(kBabyBear, 19, 5, true, 12, 4);
    expect_split(kGoldilocks, 21, 3, true, 12, 2);
    expect_split(kGoldilocks, 20, 4, true, 11, 2);
    expect_split(kGoldilocks, 22, 3, true, 13, 2);
}

TEST(TurnPlan, WhereTheTilesDoNotAllowIt) {
    // natural order needs 2^kLogC cosets (a 32-byte sector) of a row
    EXPECT_FALSE(turn_split(kGoldilocks, 23, 3, true, 0).ok);
    EXPECT_FALSE(turn_split(kBabyBear, 23, 3, true, 0).ok);
    // three-segment sizes: the top segment cannot fit a tile
    EXPECT_FALSE(turn_split(kGoldilocks, 25, 1, false, 0).ok);
    EXPECT_FALSE(turn_split(kBabyBear, 26, 0, false, 0).ok);
    // below two tiles' worth of rows the lowest segment cannot hold its rows
    EXPECT_FALSE(turn_split(kBabyBear, 4, 1, true, 0).ok);
}

TEST(TurnPlan, TuningKnob) {
    // GP_CUDA_TURN_LOW forces t0 where the tiles allow it
    expect_split(kBabyBear, 19, 5, true, 11, 3, 11);
    expect_split(kBabyBear, 19, 5, true, 13, 5, 13);
    expect_split(kGoldilocks, 20, 2, false, 12, 0, 12);
    // natural rows of fewer than 2^kLogC cosets: ignored, the default split
    expect_split(kBabyBear, 19, 5, true, 12, 4, 10);
    expect_split(kGoldilocks, 21, 3, true, 12, 2, 11);
    // at or above log_n: ignored
    expect_split(kBabyBear, 22, 1, false, 12, 0, 22);
}

// Every shape, both orders, every knob value: the passes' tiles hold what
// the split gives them.
TEST(TurnPlan, EveryShapeFitsTheTiles) {
    int taken = 0;
    for (const TurnTiles &c : {kGoldilocks, kBabyBear})
        for (uint32_t log_n = 1; log_n <= 30; ++log_n)
            for (uint32_t log_b = 0; log_b <= 5; ++log_b)
                for (bool natural : {false, true})
                    for (uint32_t knob = 0; knob <= 16; ++knob) {
                        const TurnSplit s = turn_split(c, log_n, log_b, natural, knob);
                        if (!s.ok) continue;
                        ++taken;
                        SCOPED_TRACE(::testing::Message() << "tile " << c.tile_log << " 2^" << log_n << " B=2^"
                                                          << log_b << (natural ? " natural" : " bit-reversed")
                                                          << " knob " << knob);
                        const int t0 = (int)s.t0, t1 = (int)log_n - t0, lb = (int)s.lb;
                        // P_2 runs 2^t0 positions a tile, P_1 / P_3 2^t1 rows
                        EXPECT_LE(t0, c.tile_log);
                        EXPECT_GE(t1, 1);
                        if (natural) {
                            // rows of 2^lb cosets of 2^kLogC indices: the tile
                            // holds them, and each run is whole sectors
                            EXPECT_LE(lb, (int)log_b);
                            EXPECT_TRUE(lb >= c.log_c || lb == (int)log_b);
                            EXPECT_LE(t1 + c.log_c + lb, c.tile_log);
                            EXPECT_GE(t0, c.log_c + lb);
                        } else {
                            EXPECT_EQ(lb, 0);
                            EXPECT_LE(t1 + c.log_c, c.tile_log);
                            EXPECT_GE(t0, c.log_c);
                        }
                        if (knob == 0) {
                            // at most the largest lowest segment where a top
                            // segment of the tile's rows allows it
                            const int low_max = log_b >= 3 ? c.low_max_b8 : c.low_max;
                            const int least_lb = natural ? std::min<int>(c.log_c, log_b) : 0;
                            EXPECT_LE(t0, std::max(low_max, (int)log_n - (c.tile_log - c.log_c - least_lb)));
                        } else if (knob < log_n && (int)knob != t0) {
                            // a knob not taken: the tiles could not hold it
                            const int o1 = (int)(log_n - knob);
                            const int l = natural ? std::min<int>(log_b, c.tile_log - c.log_c - o1)
                                                  : c.tile_log - c.log_c - o1;
                            EXPECT_LT(l, natural ? std::min<int>(c.log_c, log_b) : 0);
                        }
                    }
    EXPECT_GT(taken, 1000);
}

TEST(TurnPlan, DefaultFormByDevice) {
    // device attributes as the H200 and the H100 80GB HBM3 report them
    const double h200 = dram_bytes_per_sm_cycle(3201000, 6016, 1980000, 132);
    const double h100 = dram_bytes_per_sm_cycle(2619000, 5120, 1980000, 132);
    EXPECT_NEAR(h200, 18.42, 0.01);
    EXPECT_NEAR(h100, 12.83, 0.01);
    EXPECT_EQ(dram_bytes_per_sm_cycle(0, 5120, 1980000, 132), 0.0);
    // the H200 keeps the other form for bit-reversed Goldilocks B = 2, 4 up
    // to 2^23 rows
    EXPECT_FALSE(turn_by_default(h200, 8, 20, 2, false));  // W1
    EXPECT_FALSE(turn_by_default(h200, 8, 22, 1, false));
    EXPECT_FALSE(turn_by_default(h200, 8, 21, 2, false));
    EXPECT_TRUE(turn_by_default(h200, 8, 20, 2, true));
    EXPECT_TRUE(turn_by_default(h200, 8, 22, 2, false));  // 2^24 rows out
    EXPECT_TRUE(turn_by_default(h200, 8, 23, 1, false));
    EXPECT_TRUE(turn_by_default(h200, 8, 20, 3, false));  // B = 8
    EXPECT_TRUE(turn_by_default(h200, 8, 20, 0, false));  // B = 1
    // the 31-bit fields take the turned form there (v37: BabyBear 2^22 B=2)
    EXPECT_TRUE(turn_by_default(h200, 4, 22, 1, false));
    EXPECT_TRUE(turn_by_default(h200, 4, 20, 2, false));
    // the H100 (and a device with no attributes) takes the turned form
    for (double d : {h100, 0.0})
        for (uint32_t bytes : {4u, 8u}) {
            EXPECT_TRUE(turn_by_default(d, bytes, 20, 2, false));
            EXPECT_TRUE(turn_by_default(d, bytes, 22, 1, false));
        }
}

}  // namespace
