// SPDX-License-Identifier: MIT OR Apache-2.0
// Tip5 permutation and sponge over Goldilocks, as in Neptune-Crypto's
// twenty-first (v2.0.2, twenty-first/src/tip5/mod.rs and
// util_types/sponge.rs), written once for host and device.
//
// State: 16 canonical Goldilocks elements; rate 10 (state[0..10]), capacity 6
// (state[10..16]); 5 rounds of
//     state[0..4]  <- split-and-lookup   (on the Montgomery form, R = 2^64)
//     state[4..16] <- x^7
//     state        <- circulant MDS (given by its first column)
//     state[i]     += ROUND_CONSTANTS[16 * round + i]
// Digests are state[0..5].
//
// Inputs must be canonical (< p); outputs are canonical.
#pragma once

#include <cstddef>
#include <cstdint>

#include "math/field.h"
#include "tip5_constants.h"

namespace gp {

namespace tip5_detail {

using F = Goldilocks;

GP_HD uint32_t lookup(uint32_t byte) {
    return GP_TABLE(Tip5Constants::kLookupTable[byte], tip5_device::kLookupTable[byte]);
}
GP_HD uint64_t round_constant(int i) {
    return GP_TABLE(Tip5Constants::kRoundConstants[i], tip5_device::kRoundConstants[i]);
}
GP_HD uint64_t mds_column(int i) {
    return GP_TABLE(Tip5Constants::kMdsFirstColumn[i], tip5_device::kMdsFirstColumn[i]);
}

// lo + hi * 2^32 mod p, for lo, hi < 2^64.
GP_HD uint64_t combine_halves(uint64_t lo, uint64_t hi) {
    uint64_t l = lo + (hi << 32);
    uint64_t h = (hi >> 32) + (l < lo ? 1 : 0);
    return F::reduce128(l, h);
}



// twenty-first keeps elements as m = x * 2^64 mod p and replaces each of the
// 8 little-endian bytes of m by LOOKUP_TABLE[byte]. m' stays below p (the
// table fixes 0 and 255 only, so the top half is 0xffffffff only for
// m = 0xffffffff00000000, whose low bytes map to zero).
GP_HD uint64_t split_and_lookup(uint64_t x) {
    uint64_t m = F::mul(x, Tip5Constants::kMontR);
    uint64_t r = 0;
    GP_UNROLL
    for (int k = 0; k < 8; ++k) r |= (uint64_t)lookup((uint32_t)(m >> (8 * k)) & 0xffu) << (8 * k);
    return F::mul(r, Tip5Constants::kMontRInv);
}

// out[i] = sum_j col[(i - j) mod 16] * s[j]. The column entries are 16-bit,
// so the products of 32-bit halves sum to < 2^52 in 64-bit accumulators.
GP_HD void mds(uint64_t s[16]) {
    uint64_t out[16];
    GP_UNROLL
    for (int i = 0; i < 16; ++i) {
        uint64_t lo = 0, hi = 0;
        GP_UNROLL
        for (int j = 0; j < 16; ++j) {
            uint64_t c = mds_column((i - j) & 15);
            lo += c * (s[j] & 0xffffffffull);
            hi += c * (s[j] >> 32);
        }
        out[i] = combine_halves(lo, hi);
    }
    GP_UNROLL
    for (int i = 0; i < 16; ++i) s[i] = out[i];
}

GP_HD void round(uint64_t s[16], int r) {
    GP_UNROLL
    for (int i = 0; i < Tip5Constants::kNumSplitAndLookup; ++i) s[i] = split_and_lookup(s[i]);
    constexpr int kLookups = Tip5Constants::kNumSplitAndLookup;
    static_assert(kLookups % 4 == 0, "the power-map lanes come in groups of four");
    for_each_lane_group<16 - kLookups>(s + kLookups, [](uint64_t *x, int) {
        GP_UNROLL
        for (int i = 0; i < 4; ++i) x[i] = pow_small_tw<F, 7>(x[i]);
    });
    mds(s);
    GP_UNROLL
    for (int i = 0; i < 16; ++i) s[i] = F::add(s[i], round_constant(16 * r + i));
}

}  // namespace tip5_detail

// The Tip5 permutation, in place.
GP_HD void tip5_permute(uint64_t state[16]) {
    GP_ROLLED
    for (int r = 0; r < Tip5Constants::kRounds; ++r) tip5_detail::round(state, r);
}

// Tip5::hash_10: state = input(10) || [1; 6] (Domain::FixedLength), permute,
// digest = state[0..5]. `out` may alias `input`.
GP_HD void tip5_hash_10(const uint64_t input[10], uint64_t out[5]) {
    uint64_t s[16];
    for (int i = 0; i < 10; ++i) s[i] = input[i];
    for (int i = 10; i < 16; ++i) s[i] = 1;
    tip5_permute(s);
    for (int i = 0; i < 5; ++i) out[i] = s[i];
}

// Tip5::hash_pair, twenty-first's Merkle node hash: hash_10(left || right).
// `out` may alias `left` or `right`.
GP_HD void tip5_hash_pair(const uint64_t left[5], const uint64_t right[5], uint64_t out[5]) {
    uint64_t s[16];
    for (int i = 0; i < 5; ++i) s[i] = left[i];
    for (int i = 0; i < 5; ++i) s[5 + i] = right[i];
    for (int i = 10; i < 16; ++i) s[i] = 1;
    tip5_permute(s);
    for (int i = 0; i < 5; ++i) out[i] = s[i];
}

// The sponge of hash_varlen in pieces (the streamed commitment keeps the
// state between column batches): `left` elements of the input are not yet
// absorbed; absorbs the next `count` of them (a multiple of 10 unless
// count == left, which also absorbs the padded last chunk).
template <class Source>
GP_HD void tip5_varlen_absorb(uint64_t s[16], Source &in, uint64_t left, uint64_t count) {
    const uint64_t end = left - count;
    for (; left > end && left >= 10; left -= 10) {
        for (int i = 0; i < 10; ++i) s[i] = in.next();
        tip5_permute(s);
    }
    if (end != 0) return;
    const int rem = (int)left;
    for (int i = 0; i < 10; ++i) s[i] = i < rem ? in.next() : (i == rem ? 1 : 0);
    tip5_permute(s);
}

struct Tip5ArraySource {
    const uint64_t *p;
    GP_HD uint64_t next() { return *p++; }
};

// Tip5::hash_varlen: zero state (Domain::VariableLength); absorb (overwrite
// state[0..10], permute) every full 10-chunk, then the remainder || 1 ||
// zeros (always at least one padding element); digest = state[0..5].
GP_HD void tip5_hash_varlen(const uint64_t *input, size_t n, uint64_t out[5]) {
    Tip5ArraySource in{input};
    uint64_t s[16];
    for (int i = 0; i < 16; ++i) s[i] = 0;
    tip5_varlen_absorb(s, in, n, n);
    for (int i = 0; i < 5; ++i) out[i] = s[i];
}

}  // namespace gp
