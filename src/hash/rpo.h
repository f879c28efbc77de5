// SPDX-License-Identifier: MIT OR Apache-2.0
// RPO256 and RPX256 (miden-crypto's Rescue Prime Optimized and Rescue Prime
// eXtension, https://eprint.iacr.org/2023/1045) over Goldilocks, written once
// for host and device.
//
// Permutations (state width 12, Goldilocks elements as uint64_t):
//   RPO: 7 rounds of  MDS; +ARK1[r]; x^7; MDS; +ARK2[r]; x^(1/7).
//   RPX: FB(0) E(1) FB(2) E(3) FB(4) E(5) M(6), where
//        FB(r) is the RPO round r,
//        E(r)  is +ARK1[r], then each of (s0,s1,s2) (s3,s4,s5) (s6,s7,s8)
//              (s9,s10,s11), read as a0 + a1*phi + a2*phi^2 in
//              F_p[phi]/(phi^3 - phi - 1), is raised to the 7th power,
//        M(r)  is MDS; +ARK1[r].
//   MDS is circulant: out[i] = sum_j row[(j - i) mod 12] * s[j] with row =
//   [7, 23, 8, 26, 13, 10, 9, 7, 6, 22, 21, 8]. Constants: rpo_constants.h.
//
// The sponges built on them (hash_elements, merge) are in tree_hash.h.
//
// Inputs may be any uint64_t, read mod p (as a miden Felt would): both
// permutations begin with the MDS layer, which takes arbitrary 64-bit words
// and reduces exactly. Outputs are always canonical.
#pragma once

#include <cstddef>
#include <cstdint>

#include "hash/rpo_constants.h"
#include "math/field.h"

namespace gp {
namespace rescue {

using Fg = Goldilocks;
constexpr int kWidth = 12;
constexpr int kRounds = 7;

// Squaring with a possibly non-canonical result (Goldilocks::mul_lazy):
// chains of products keep only their last one canonical.
GP_HD uint64_t sqr(uint64_t x) { return Fg::mul_lazy(x, x); }

// x[j] = x[j]^(2^n) * t[j] for four lanes; the loop over n stays rolled in
// device code (its body holds four independent squarings).
GP_HD void sqr_n_mul4(uint64_t x[4], int n, const uint64_t t[4]) {
    GP_ROLLED
    for (int k = 0; k < n; ++k) {
        GP_UNROLL
        for (int j = 0; j < 4; ++j) x[j] = sqr(x[j]);
    }
    GP_UNROLL
    for (int j = 0; j < 4; ++j) x[j] = Fg::mul_lazy(x[j], t[j]);
}

// x^(1/7) = x^INV_ALPHA on four lanes, by an addition chain of 72
// multiplications, where INV_ALPHA = 10540996611094048183 (7^-1 mod p - 1)
// is, in binary,
//   1001001001001001001001001001000110110110110110110110110110110111
// Writing e(k) for the number whose binary form is "100" repeated k times:
//   INV_ALPHA = ((e(10) * 2^31 + e(10)) * 2 + e(10)) * 4 + 0b111.
// e(2k) = e(k) * 2^(3k) + e(k) builds e(10) from e(1) = 0b100 cheaply.
// Any representatives in, canonical out.
GP_HD void pow_inv7_4(uint64_t x[4]) {
    uint64_t x2[4], x4[4], e2[4], e4[4], e10[4], y[4];
    GP_UNROLL
    for (int j = 0; j < 4; ++j) {
        x2[j] = sqr(x[j]);                       // x^0b10
        x4[j] = sqr(x2[j]);                      // x^e(1) = x^0b100
        e2[j] = x4[j];
    }
    sqr_n_mul4(e2, 3, x4);                       // x^e(2) = x^0b100100
    GP_UNROLL
    for (int j = 0; j < 4; ++j) e4[j] = e2[j];
    sqr_n_mul4(e4, 6, e2);                       // x^e(4)
    GP_UNROLL
    for (int j = 0; j < 4; ++j) e10[j] = e4[j];
    sqr_n_mul4(e10, 12, e4);                     // x^e(8)
    sqr_n_mul4(e10, 6, e2);                      // x^e(10) (30 bits)
    GP_UNROLL
    for (int j = 0; j < 4; ++j) y[j] = e10[j];
    sqr_n_mul4(y, 31, e10);                      // x^(e(10) 2^31 + e(10))
    GP_UNROLL
    for (int j = 0; j < 4; ++j) {
        uint64_t r = Fg::mul_lazy(sqr(y[j]), e10[j]);
        r = sqr(sqr(r));
        x[j] = Fg::mul(r, Fg::mul_lazy(Fg::mul_lazy(x2[j], x4[j]), x[j]));
    }
}

// state = MDS * state, for any 64-bit inputs (canonical or not); canonical
// outputs. The entries are small (row sum 160), so each output is accumulated
// exactly from the 32-bit halves of the inputs:
//   sum_j m_j s_j = sum_j m_j lo_j + 2^32 sum_j m_j hi_j  (< 160 * 2^64),
// then reduced once.
GP_HD void apply_mds(uint64_t s[kWidth]) {
    constexpr uint32_t row[kWidth] = GP_RESCUE_MDS_ROW_INIT;
    uint32_t lo[kWidth], hi[kWidth];
    GP_UNROLL
    for (int j = 0; j < kWidth; ++j) {
        lo[j] = (uint32_t)s[j];
        hi[j] = (uint32_t)(s[j] >> 32);
    }
    GP_UNROLL
    for (int i = 0; i < kWidth; ++i) {
        uint64_t acc_lo = 0, acc_hi = 0;  // each < 160 * 2^32
        GP_UNROLL
        for (int j = 0; j < kWidth; ++j) {
            const uint32_t m = row[(j - i + kWidth) % kWidth];
            acc_lo += (uint64_t)m * lo[j];
            acc_hi += (uint64_t)m * hi[j];
        }
        const uint64_t low = acc_lo + (acc_hi << 32);
        const uint64_t high = (acc_hi >> 32) + (low < acc_lo ? 1u : 0u);
        s[i] = Fg::reduce128(low, high);
    }
}

// Forward-backward round r (the RPO round).
GP_HD void fb_round(uint64_t s[kWidth], int r) {
    apply_mds(s);
    for_each_lane_group<kWidth>(s, [&](uint64_t *x, int g) {
        GP_UNROLL
        for (int i = 0; i < 4; ++i) x[i] = pow_small_tw<Fg, 7>(Fg::add(x[i], ark1(r, g + i)));
    });
    apply_mds(s);
    for_each_lane_group<kWidth>(s, [&](uint64_t *x, int g) {
        GP_UNROLL
        for (int i = 0; i < 4; ++i) x[i] = Fg::add(x[i], ark2(r, g + i));
        pow_inv7_4(x);
    });
}

// ---- cubic extension F_p[phi] / (phi^3 - phi - 1), a = a0 + a1 phi + a2 phi^2 ----
// A product c0 + c1 phi + ... + c4 phi^4 folds with phi^3 = phi + 1 and
// phi^4 = phi^2 + phi:  (c0 + c3) + (c1 + c3 + c4) phi + (c2 + c4) phi^2.

// r = a * b (6 base multiplications, Karatsuba). r may alias a or b.
GP_HD void ext3_mul(const uint64_t a[3], const uint64_t b[3], uint64_t r[3]) {
    const uint64_t p00 = Fg::mul(a[0], b[0]);
    const uint64_t p11 = Fg::mul(a[1], b[1]);
    const uint64_t p22 = Fg::mul(a[2], b[2]);
    const uint64_t s01 = Fg::mul(Fg::add(a[0], a[1]), Fg::add(b[0], b[1]));
    const uint64_t s02 = Fg::mul(Fg::add(a[0], a[2]), Fg::add(b[0], b[2]));
    const uint64_t s12 = Fg::mul(Fg::add(a[1], a[2]), Fg::add(b[1], b[2]));
    const uint64_t c1 = Fg::sub(s01, Fg::add(p00, p11));           // a0b1 + a1b0
    const uint64_t c2 = Fg::add(Fg::sub(s02, Fg::add(p00, p22)), p11);  // a0b2 + a1b1 + a2b0
    const uint64_t c3 = Fg::sub(s12, Fg::add(p11, p22));           // a1b2 + a2b1
    r[0] = Fg::add(p00, c3);
    r[1] = Fg::add(Fg::add(c1, c3), p22);
    r[2] = Fg::add(c2, p22);
}

// r = a^2 (6 base multiplications). r may alias a.
GP_HD void ext3_sqr(const uint64_t a[3], uint64_t r[3]) {
    const uint64_t s00 = sqr(a[0]);
    const uint64_t s11 = sqr(a[1]);
    const uint64_t s22 = sqr(a[2]);
    uint64_t d01 = Fg::mul(a[0], a[1]);
    uint64_t d02 = Fg::mul(a[0], a[2]);
    uint64_t d12 = Fg::mul(a[1], a[2]);
    d01 = Fg::add(d01, d01);
    d02 = Fg::add(d02, d02);
    d12 = Fg::add(d12, d12);
    r[0] = Fg::add(s00, d12);
    r[1] = Fg::add(Fg::add(d01, d12), s22);
    r[2] = Fg::add(Fg::add(d02, s11), s22);
}

// a = a^7 in the extension: x^2, x^3, x^6, x^7.
GP_HD void ext3_pow7(uint64_t a[3]) {
    uint64_t t[3];
    ext3_sqr(a, t);      // a^2
    ext3_mul(t, a, t);   // a^3
    ext3_sqr(t, t);      // a^6
    ext3_mul(t, a, a);   // a^7
}

// RPX extension round r: +ARK1[r], then x^7 on the four extension elements.
GP_HD void ext_round(uint64_t s[kWidth], int r) {
    GP_UNROLL
    for (int i = 0; i < kWidth; ++i) s[i] = Fg::add(s[i], ark1(r, i));
    GP_UNROLL
    for (int k = 0; k < kWidth; k += 3) ext3_pow7(s + k);
}

// RPX final (M) round r: MDS, +ARK1[r].
GP_HD void m_round(uint64_t s[kWidth], int r) {
    apply_mds(s);
    GP_UNROLL
    for (int i = 0; i < kWidth; ++i) s[i] = Fg::add(s[i], ark1(r, i));
}

}  // namespace rescue

// ---- permutations ----

GP_HD void rpo256_permute(uint64_t state[12]) {
    GP_ROLLED
    for (int r = 0; r < rescue::kRounds; ++r) rescue::fb_round(state, r);
}

GP_HD void rpx256_permute(uint64_t state[12]) {
    GP_ROLLED
    for (int r = 0; r < 6; r += 2) {
        rescue::fb_round(state, r);       // FB(0), FB(2), FB(4)
        rescue::ext_round(state, r + 1);  // E(1),  E(3),  E(5)
    }
    rescue::m_round(state, 6);            // M(6)
}

}  // namespace gp
