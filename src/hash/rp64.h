// SPDX-License-Identifier: MIT OR Apache-2.0
// winterfell's Rp64_256 permutation (winter-crypto v0.13.1,
// crypto/src/hash/rescue/rp64_256/): Rescue-XLIX over Goldilocks, state
// width 12, written once for host and device.
//
//   7 rounds of  x^7; MDS; +ARK1[r]; x^(1/7); MDS; +ARK2[r]
//
// with RPO256's circulant MDS matrix and inverse S-box (rpo.h) but the
// round order of Rescue-Prime and round constants of its own
// (rp64_constants.h, generated from tests/vectors/rp64_256.json). The
// sponge built on it (hash_elements, merge) is in tree_hash.h.
#pragma once

#include <cstdint>

#include "hash/rp64_constants.h"
#include "hash/rpo.h"
#include "math/field.h"

namespace gp {
namespace rescue {

// Rescue-XLIX round r.
GP_HD void xlix_round(uint64_t s[kWidth], int r) {
    for_each_lane_group<kWidth>(s, [&](uint64_t *x, int) {
        GP_UNROLL
        for (int i = 0; i < 4; ++i) x[i] = pow_small_tw<Fg, 7>(x[i]);
    });
    apply_mds(s);
    for_each_lane_group<kWidth>(s, [&](uint64_t *x, int g) {
        GP_UNROLL
        for (int i = 0; i < 4; ++i) x[i] = Fg::add(x[i], rp64_ark1(r, g + i));
        pow_inv7_4(x);
    });
    apply_mds(s);
    GP_UNROLL
    for (int i = 0; i < kWidth; ++i) s[i] = Fg::add(s[i], rp64_ark2(r, i));
}

}  // namespace rescue

// Canonical states in and out.
GP_HD void rp64_256_permute(uint64_t state[12]) {
    GP_ROLLED
    for (int r = 0; r < rescue::kRounds; ++r) rescue::xlix_round(state, r);
}

}  // namespace gp
