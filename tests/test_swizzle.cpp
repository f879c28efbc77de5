// SPDX-License-Identifier: MIT OR Apache-2.0
// The shared-memory swizzle of the NTT kernels (math/swizzle.h): a bijection
// on every tile, 16-byte words kept whole and in order for 4-byte elements,
// and the minimum number of shared-memory wavefronts for the access
// patterns of the kernels' radix-8 steps (tile_group_stages in
// kernels/ntt.cuh, modelled here thread by thread) and tile copies.
#include <gtest/gtest.h>

#include <algorithm>
#include <cstdint>
#include <map>
#include <set>
#include <vector>

#include "math/swizzle.h"

namespace {

using gp::kern::swz;

// Wavefronts of one warp's shared access: each thread touches the 4-byte
// words of `words[k]` (all threads the same count). A wavefront serves 128
// bytes, so threads go in phases of 32 words; within a phase, a bank serving
// distinct words takes one wavefront each.
int wavefronts(const std::vector<std::vector<uint32_t>> &words) {
    const size_t per = words.empty() ? 1 : words[0].size(), tp = std::max<size_t>(1, 32 / per);
    int total = 0;
    for (size_t p = 0; p < words.size(); p += tp) {
        std::map<uint32_t, std::set<uint32_t>> banks;
        for (size_t k = p; k < std::min(words.size(), p + tp); ++k)
            for (uint32_t w : words[k]) banks[w % 32].insert(w);
        size_t worst = 0;
        for (auto &b : banks) worst = std::max(worst, b.second.size());
        total += (int)worst;
    }
    return total;
}
// The least a warp's access of `bytes` bytes can take.
int min_wavefronts(size_t bytes) { return (int)std::max<size_t>(1, (bytes + 127) / 128); }

// Group sizes of tile_stages: ceil(t / 3) groups, as even as possible.
std::vector<uint32_t> group_sizes(uint32_t t) {
    const uint32_t n = (t + 2) / 3;
    std::vector<uint32_t> r;
    for (uint32_t g = 0; g < n; ++g) r.push_back(t / n + (g < t % n ? 1 : 0));
    return r;
}

// The worst ratio to the minimum over every warp and element access of the
// radix-8 steps of a 2^t x 2^logC tile, with the thread -> group map of
// tile_group_stages: CP columns a thread (8-byte words when 2), and the
// lowest group of a one-column tile as 16-byte words when v16.
template <class T>
double worst_stage_ratio(uint32_t t, uint32_t logC, uint32_t cp, bool v16) {
    const uint32_t ew = sizeof(T) / 4, lcp = cp == 2 ? 1 : 0;
    double worst = 0;
    uint32_t s = 0;
    for (uint32_t rl : group_sizes(t)) {
        const uint32_t groups = 1u << (t - rl + logC - lcp), cmask = (1u << (logC - lcp)) - 1,
                       smask = (1u << s) - 1;
        auto elem = [&](uint32_t g, uint32_t j) {
            const uint32_t c = (g & cmask) << lcp, rest = g >> (logC - lcp);
            const uint32_t m0 = ((rest >> s) << (s + rl)) | (rest & smask);
            return ((m0 << logC) | c) ^ (j << (s + logC));
        };
        const bool words16 = v16 && s == 0 && logC == 0 && rl >= 2;
        for (uint32_t w0 = 0; w0 < groups; w0 += 32) {
            const uint32_t n = std::min<uint32_t>(32, groups - w0);
            for (uint32_t j = 0; j < (1u << rl); j += words16 ? 4 : 1) {
                std::vector<std::vector<uint32_t>> acc(n);
                const uint32_t span = words16 ? 4 : cp;  // elements an access
                for (uint32_t k = 0; k < n; ++k) {
                    const uint32_t first = swz<T>(elem(w0 + k, j));
                    for (uint32_t i = 0; i < span; ++i) {
                        // the kernels read the span as one word: its slots are consecutive
                        EXPECT_EQ(swz<T>(elem(w0 + k, j) + i), first + i);
                        for (uint32_t b = 0; b < ew; ++b) acc[k].push_back((first + i) * ew + b);
                    }
                }
                const double r = (double)wavefronts(acc) / min_wavefronts((size_t)n * span * sizeof(T));
                worst = std::max(worst, r);
            }
        }
        s += rl;
    }
    return worst;
}

TEST(Swizzle, IsABijectionOnEveryTile) {
    for (uint32_t k = 1; k <= 15; ++k) {
        std::vector<bool> seen4(1u << k), seen8(1u << k);
        for (uint32_t i = 0; i < (1u << k); ++i) {
            const uint32_t a = swz<uint32_t>(i), b = swz<uint64_t>(i);
            ASSERT_LT(a, 1u << k);
            ASSERT_LT(b, 1u << k);
            EXPECT_FALSE(seen4[a]) << "k " << k << " i " << i;
            EXPECT_FALSE(seen8[b]) << "k " << k << " i " << i;
            seen4[a] = seen8[b] = true;
        }
    }
}

TEST(Swizzle, KeepsSixteenByteWordsWholeAndInOrder) {
    static_assert(gp::kern::kSwz16<uint32_t> && !gp::kern::kSwz16<uint64_t>, "31-bit fields only");
    for (uint32_t e = 0; e < (1u << 15); e += 4) {
        ASSERT_EQ(swz<uint32_t>(e) % 4, 0u) << e;
        for (uint32_t i = 1; i < 4; ++i) ASSERT_EQ(swz<uint32_t>(e + i), swz<uint32_t>(e) + i) << e;
        // linear over GF(2): the kernels XOR a group's base slot with per-bit offsets
        for (uint32_t f = 1; f < (1u << 15); f <<= 3) EXPECT_EQ(swz<uint32_t>(e ^ f), swz<uint32_t>(e) ^ swz<uint32_t>(f));
    }
}

// The tiles the plans produce: one-column tiles (logC = 0, the lowest
// segment's tile passes) and 8-column tiles (strided passes, the gather, the
// spread: 32-byte rows of 4-byte elements; 4 columns of 8-byte ones).
TEST(Swizzle, RadixStepsTakeTheMinimumWavefronts) {
    for (uint32_t t = 6; t <= 12; ++t) {
        SCOPED_TRACE(t);
        // t = 7 (groups 3 + 2 + 2): in a one-column tile the radix-4 step at
        // stage 3 is 2-way for both element sizes, as it was before kSwz16.
        const double one_column = t == 7 ? 2.0 : 1.0;
        EXPECT_EQ(worst_stage_ratio<uint32_t>(t, 0, 1, true), one_column);  // B_1, V16 lowest group
        EXPECT_EQ(worst_stage_ratio<uint32_t>(t, 3, 1, false), 1.0);        // strided tile passes
        EXPECT_EQ(worst_stage_ratio<uint32_t>(t, 3, 2, false), 1.0);        // column pairs
        EXPECT_EQ(worst_stage_ratio<uint64_t>(t, 0, 1, false), one_column);  // Goldilocks
        EXPECT_EQ(worst_stage_ratio<uint64_t>(t, 2, 1, false), 1.0);
    }
    // Without the 16-byte words the lowest group of a one-column tile is a
    // stride-8 access that 4-byte words cannot spread over the banks.
    EXPECT_EQ(worst_stage_ratio<uint32_t>(11, 0, 1, false), 4.0);
}

// tile_copy and the coset scaling: thread q moves the 16-byte word of tile
// elements 4q .. 4q + 3 (q = lane + 32 k) as one shared access.
TEST(Swizzle, TileCopiesTakeTheMinimumWavefronts) {
    for (uint32_t w0 = 0; w0 < (1u << 14) / 4; w0 += 32) {
        std::vector<std::vector<uint32_t>> acc(32);
        for (uint32_t k = 0; k < 32; ++k)
            for (uint32_t i = 0; i < 4; ++i) acc[k].push_back(swz<uint32_t>(4 * (w0 + k)) + i);
        ASSERT_EQ(wavefronts(acc), min_wavefronts(32 * 16)) << w0;
    }
}

// The bit-reversed P_3's store (rev_word_item) on every tile shape it
// takes: the items read every shared word of the tile once and write every
// output once (element (m, c) to output bit_reverse(m, t) of column c), each
// warp's shared reads take the minimum wavefronts, and each store
// instruction writes whole 32-byte sectors.
TEST(Swizzle, BitReversedStoreTakesTheMinimumAndWholeSectors) {
    using gp::kern::rev_word_item;
    using gp::kern::rev_word_store;
    unsigned shapes = 0;
    for (uint32_t tile = 8; tile <= 14; ++tile)
        for (uint32_t logC = 2; logC + 3 <= tile; ++logC) {
            const uint32_t t = tile - logC;
            ASSERT_TRUE(rev_word_store(t, logC));
            SCOPED_TRACE(testing::Message() << "t " << t << " logC " << logC);
            ++shapes;
            const uint32_t items = 1u << (tile - 3);
            std::vector<int> read(1u << tile), wrote(1u << tile);
            for (uint32_t q0 = 0; q0 < items; q0 += 32) {
                // one warp: lane l takes item q0 + l
                for (uint32_t k = 0; k < 4; ++k) {
                    std::vector<std::vector<uint32_t>> acc(32);
                    for (uint32_t l = 0; l < 32; ++l) {
                        const auto it = rev_word_item(q0 + l, t, logC);
                        const uint32_t e = it.e0 | ((uint32_t)gp::bit_reverse(k, 2) << (t - 2 + logC));
                        ASSERT_EQ(e & ((1u << logC) - 1), 2 * it.pair);
                        ASSERT_EQ(e >> logC, gp::bit_reverse(4 * it.g + k, t));
                        ASSERT_EQ(swz<uint32_t>(e) % 2, 0u);
                        for (uint32_t i = 0; i < 2; ++i) {
                            ASSERT_EQ(swz<uint32_t>(e + i), swz<uint32_t>(e) + i);
                            ++read[e + i];
                            acc[l].push_back(swz<uint32_t>(e) + i);
                        }
                    }
                    ASSERT_EQ(wavefronts(acc), min_wavefronts(32 * 8)) << "warp " << q0 / 32 << " k " << k;
                }
                // store instruction j: lane l writes outputs 4g..4g+3 of column 2 pair + j
                for (uint32_t j = 0; j < 2; ++j) {
                    std::map<uint32_t, std::set<uint32_t>> sectors;  // 8 aligned outputs of a column -> written
                    for (uint32_t l = 0; l < 32; ++l) {
                        const auto it = rev_word_item(q0 + l, t, logC);
                        for (uint32_t k = 0; k < 4; ++k) {
                            const uint32_t o = ((2 * it.pair + j) << t) + 4 * it.g + k;
                            sectors[o / 8].insert(o);
                            ++wrote[o];
                        }
                    }
                    ASSERT_EQ(sectors.size(), 16u);
                    for (auto &r : sectors) ASSERT_EQ(r.second.size(), 8u);
                }
            }
            for (uint32_t e = 0; e < (1u << tile); ++e) {
                ASSERT_EQ(read[e], 1) << e;
                ASSERT_EQ(wrote[e], 1) << e;
            }
        }
    EXPECT_EQ(shapes, 49u);
    EXPECT_FALSE(rev_word_store(2, 12));
    EXPECT_FALSE(rev_word_store(12, 1));
    EXPECT_FALSE(rev_word_store(4, 3));
}

}  // namespace
