// SPDX-License-Identifier: MIT OR Apache-2.0
// Plonky2's Poseidon over Goldilocks (width 12) and its sponge conventions
// (0xPolygonZero/plonky2: plonky2/src/hash/poseidon.rs, poseidon_goldilocks.rs,
// hashing.rs, plonk/config.rs), written once for host and device.
//
// Permutation (the naive form, poseidon_naive; Plonky2's fast partial rounds
// compute the same function): 30 rounds, r = 0..29:
//     state[i] += ALL_ROUND_CONSTANTS[12 * r + i]           for all i
//     full rounds (r < 4 or r >= 26): state[i] = state[i]^7  for all i
//     partial rounds (4 <= r < 26):   state[0] = state[0]^7
//     state = MDS(state), out[r] = sum_i state[(i + r) % 12] * CIRC[i] + state[r] * DIAG[r]
//
// Sponge: rate 8 (state[0..8]), capacity 4 (state[8..12]), hashes are state[0..4].
// Inputs must be canonical (< p); outputs are canonical.
#pragma once

#include <cstddef>
#include <cstdint>

#include "math/field.h"
#include "poseidon_gl_constants.h"

namespace gp {

namespace poseidon_gl_detail {

using F = Goldilocks;
using C = PoseidonGlConstants;

GP_HD uint64_t round_constant(int i) {
    return GP_TABLE(C::kRoundConstants[i], poseidon_gl_device::kRoundConstants[i]);
}
GP_HD uint64_t mds_circ(int i) {
    return GP_TABLE(C::kMdsCirc[i], poseidon_gl_device::kMdsCirc[i]);
}
GP_HD uint64_t mds_diag(int i) {
    return GP_TABLE(C::kMdsDiag[i], poseidon_gl_device::kMdsDiag[i]);
}

// The MDS entries are small (< 2^16), so 32-bit halves times entries, 13
// terms, sum to < 2^52 in 64-bit accumulators; lo + hi * 2^32 is reduced once.
GP_HD void mds(uint64_t s[12]) {
    uint64_t out[12];
    GP_UNROLL
    for (int r = 0; r < 12; ++r) {
        uint64_t lo = 0, hi = 0;
        GP_UNROLL
        for (int i = 0; i < 12; ++i) {
            const uint64_t c = mds_circ(i), x = s[(i + r) % 12];
            lo += c * (x & 0xffffffffull);
            hi += c * (x >> 32);
        }
        const uint64_t d = mds_diag(r);
        lo += d * (s[r] & 0xffffffffull);
        hi += d * (s[r] >> 32);
        uint64_t l = lo + (hi << 32);
        uint64_t h = (hi >> 32) + (l < lo ? 1 : 0);
        out[r] = F::reduce128(l, h);
    }
    GP_UNROLL
    for (int r = 0; r < 12; ++r) s[r] = out[r];
}

GP_HD void add_round_constants(uint64_t s[12], int round) {
    GP_UNROLL
    for (int i = 0; i < 12; ++i) s[i] = F::add(s[i], round_constant(12 * round + i));
}

GP_HD void full_round(uint64_t s[12], int round) {
    add_round_constants(s, round);
    GP_UNROLL
    for (int i = 0; i < 12; ++i) s[i] = pow_small_tw<F, 7>(s[i]);
    mds(s);
}

GP_HD void partial_round(uint64_t s[12], int round) {
    add_round_constants(s, round);
    s[0] = pow_small_tw<F, 7>(s[0]);
    mds(s);
}

}  // namespace poseidon_gl_detail

// Plonky2 Poseidon permutation (GoldilocksField::poseidon), in place.
GP_HD void poseidon_gl_permute(uint64_t state[12]) {
    using C = PoseidonGlConstants;
    int r = 0;
    for (int k = 0; k < C::kHalfFullRounds; ++k, ++r) poseidon_gl_detail::full_round(state, r);
    for (int k = 0; k < C::kPartialRounds; ++k, ++r) poseidon_gl_detail::partial_round(state, r);
    for (int k = 0; k < C::kHalfFullRounds; ++k, ++r) poseidon_gl_detail::full_round(state, r);
}

// hashing.rs hash_n_to_m_no_pad: zero state; for each chunk of up to 8
// inputs, overwrite state[0..len] (the rest of the state is kept) and
// permute; then squeeze state[0..8] as often as needed, permuting between
// squeezes. No input permutes nothing (the output is then zeros).
// `out` may alias `input`.
GP_HD void poseidon_gl_hash_n_to_m_no_pad(const uint64_t *input, size_t n, uint64_t *out,
                                          size_t num_outputs) {
    if (num_outputs == 0) return;
    uint64_t s[12];
    for (int i = 0; i < 12; ++i) s[i] = 0;
    for (size_t pos = 0; pos < n; pos += 8) {
        const size_t len = n - pos < 8 ? n - pos : 8;
        for (size_t i = 0; i < len; ++i) s[i] = input[pos + i];
        poseidon_gl_permute(s);
    }
    for (size_t done = 0;;) {
        for (int i = 0; i < 8; ++i) {
            out[done++] = s[i];
            if (done == num_outputs) return;
        }
        poseidon_gl_permute(s);
    }
}

// PoseidonHash::hash_no_pad = hash_n_to_hash_no_pad: 4 outputs.
GP_HD void poseidon_gl_hash_no_pad(const uint64_t *input, size_t n, uint64_t out[4]) {
    poseidon_gl_hash_n_to_m_no_pad(input, n, out, 4);
}

// Hasher::hash_or_noop (Plonky2's Merkle leaf hash): up to 4 inputs are
// returned as they are, zero-padded to 4; longer inputs go to hash_no_pad.
GP_HD void poseidon_gl_hash_or_noop(const uint64_t *input, size_t n, uint64_t out[4]) {
    if (n <= 4) {
        uint64_t t[4];
        for (size_t i = 0; i < 4; ++i) t[i] = i < n ? input[i] : 0;
        for (int i = 0; i < 4; ++i) out[i] = t[i];
    } else {
        poseidon_gl_hash_no_pad(input, n, out);
    }
}

// PoseidonHash::two_to_one = hashing::compress (Plonky2's Merkle node hash):
// state = left(4) || right(4) || zeros(4), permute, output state[0..4].
// `out` may alias `left` or `right`.
GP_HD void poseidon_gl_two_to_one(const uint64_t left[4], const uint64_t right[4], uint64_t out[4]) {
    uint64_t s[12];
    for (int i = 0; i < 4; ++i) s[i] = left[i];
    for (int i = 0; i < 4; ++i) s[4 + i] = right[i];
    for (int i = 8; i < 12; ++i) s[i] = 0;
    poseidon_gl_permute(s);
    for (int i = 0; i < 4; ++i) out[i] = s[i];
}

}  // namespace gp
