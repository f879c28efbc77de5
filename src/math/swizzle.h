// SPDX-License-Identifier: MIT OR Apache-2.0
// Shared-memory slots of the NTT kernels' tiles (kernels/ntt.cuh), written
// once for the kernels and for the host test of their bank behaviour
// (tests/test_swizzle.cpp).
//
// Tiles are XOR-swizzled: element i lives at slot i ^ ((i >> 3) & 31), a
// bijection on every power-of-two tile. Every access pattern of the
// radix-8 steps (contiguous, stride 8, stride 8C plus column) then takes the
// minimum number of wavefronts for 4- and 8-byte elements (one-in-eight
// padding took 1.5-1.9 times the minimum, which the profiler confirmed as
// 44% excess wavefronts). 4-byte elements take i ^ ((i >> 3) & 28) instead
// (kSwz16), which leaves every aligned group of four elements in one aligned
// 16-byte word, in order: tile copies and the lowest group of stages of a
// one-column tile move 16 bytes an access, and two neighbouring columns
// share an 8-byte word (bit 0 is left alone). The radix-8 steps keep the
// minimum but the stride-8 one of a one-column tile's lowest group, which
// the 16-byte words serve instead (docs/PERF.md version 28).
#pragma once

#include <cstdint>

#include "math/field.h"  // GP_HD

namespace gp {
namespace kern {

template <class T>
constexpr bool kSwz16 = sizeof(T) == 4;

template <class T>
GP_HD uint32_t swz(uint32_t i) {
    return i ^ ((i >> 3) & (kSwz16<T> ? 28u : 31u));
}

// The bit-reversed P_3's store of 4-byte elements (kernels/ntt.cuh,
// k_turn_pass REV), where tile element (m, c) of a 2^t x 2^logC tile goes
// to output bit_reverse(m, t) of column c's run. Item q (of 2^(t + logC - 3))
// reads the 8-byte shared words of columns 2p, 2p + 1 (p = pair) in rows
// bit_reverse(4g + k, t), k < 4 (tile index e0 for k = 0, then
// e0 | bit_reverse(k, 2) << (t - 2 + logC)), and writes outputs 4g..4g+3 of
// each of the two columns, 16 bytes each: eight values a thread, so the
// 40-register passes keep them in registers. The 16 lanes of a half warp
// take 8 consecutive z = bit_reverse(g >> 1, t - 3) << (logC - 2) | (p >> 1)
// and both halves of each 16-byte word, 16 distinct bank pairs of swz; the
// two half warps take g & 1 = 0, 1, so a store instruction writes 16 whole
// 32-byte sectors, where 16 bytes a lane wrote half sectors before. Needs
// t >= 3, logC >= 2 and t + logC >= 8 (a warp's 32 items).
struct RevWordItem {
    uint32_t pair, g, e0;
};
GP_HD RevWordItem rev_word_item(uint32_t q, uint32_t t, uint32_t logC) {
    const uint32_t h = (q >> 3) & 1, b = (q >> 4) & 1, z = (q & 7) | ((q >> 5) << 3), lw = logC - 2;
    const uint32_t w = z & ((1u << lw) - 1), grh = z >> lw;
    return {(w << 1) | h, ((uint32_t)bit_reverse(grh, t - 3) << 1) | b, (z << 2) | (h << 1) | (b << (t - 3 + logC))};
}
// Whether a tile takes rev_word_item's store.
GP_HD bool rev_word_store(uint32_t t, uint32_t logC) { return t >= 3 && logC >= 2 && t + logC >= 8; }

}  // namespace kern
}  // namespace gp
