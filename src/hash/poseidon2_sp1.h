// SPDX-License-Identifier: MIT OR Apache-2.0
// SP1's Poseidon2 instances (width 16), written once for host and device:
//   Sp1KoalaBearW16  SP1 v6 ("Hypercube"): slop's KoalaPerm, Poseidon2 over
//                    KoalaBear with Plonky3 0.4.3-succinct's
//                    DiffusionMatrixKoalaBear (sp1
//                    slop/crates/koala-bear/src/koala_bear_poseidon2.rs).
//   Sp1BabyBearW16   SP1 v4 and v5: Poseidon2 over BabyBear with
//                    DiffusionMatrixBabyBear of Plonky3 0.2.x-succinct (sp1
//                    v5.2.4 crates/primitives/src/lib.rs, poseidon2_init;
//                    the same in v4.1.4, v4.2.1, v5.0.0).
// Both: R_F = 8 (4 + 4), Plonky3's external layer (MDSMat4 blocks, then the
// sums of each residue class mod 4), and the internal layer of Plonky3 0.1
// to 0.4-succinct, which differs from Plonky3's current one:
//   s'_i = 2^-32 (sum(s) + D_i s_i),  D = (-2, 2^0, 2^1, ..., 2^13, 2^15)
// on canonical values (Plonky3 computed it on Montgomery words as one
// Montgomery reduction of sum + (s_i << k) per lane; 2^-32 is that
// reduction's factor and multiplies the sum too). KoalaBear: x^3, R_P = 20,
// the Grain-LFSR constants of Plonky3 >= 0.5 (poseidon2_constants::
// KoalaBearW16, equal to SP1's RC16 value for value). BabyBear: x^7,
// R_P = 13, SP1's own constants RC_16_30 reduced mod p (rows 0-3 the initial
// external rounds, rows 4-16 column 0 the internal rounds, rows 17-20 the
// terminal external rounds; rows 21-29 unused), transcribed below.
// Known answers: tests/vectors/sp1_poseidon2.json.
#pragma once

#include <cstdint>

#include "hash/poseidon2.h"

namespace gp {
namespace poseidon2_constants {

// SP1 v6's KoalaBear instance: KoalaBearW16's round constants; the diagonal
// here is D of the internal layer above (read by Poseidon2MontyShiftDiag's
// documentation and tests only; the layer is not 1 + diag(V)).
struct Sp1KoalaBearW16 : KoalaBearW16 {
    static constexpr const char *SOURCE = "sp1_v6_koalabear_w16";
    static constexpr T internal_diag[16] = {
        0x7eFFFFFFu, 1u, 2u, 4u, 8u, 16u, 32u, 64u, 128u, 256u, 512u, 1024u, 2048u, 4096u, 8192u, 32768u,
    };
};

// SP1 v4/v5's BabyBear instance.
struct Sp1BabyBearW16 {
    using Field = ::gp::BabyBear;
    using T = Field::T;
    static constexpr int WIDTH = 16;
    static constexpr int ROUNDS_P = 13;
    static constexpr int SBOX_DEGREE = 7;
    static constexpr Poseidon2Mat4 MAT4 = Poseidon2Mat4::Plonky3;
    static constexpr const char *SOURCE = "sp1_v5_babybear_w16";
    static constexpr T external_initial[4][16] = {
        {
            0x05c44304u, 0x74548efcu, 0x0a92dc75u, 0x2ae63782u, 0x263157efu, 0x52e360ffu,
            0x664898b9u, 0x5fc45609u, 0x681b1d07u, 0x57619f03u, 0x594e6152u, 0x3189b835u,
            0x3d585060u, 0x756a60ffu, 0x04f8c794u, 0x71f37c2du,
        },
        {
            0x64f22fefu, 0x2d3f4a46u, 0x44cebd25u, 0x43761839u, 0x406b02dcu, 0x03319b3bu,
            0x3542fef1u, 0x0061d4bcu, 0x427ab78bu, 0x229bded7u, 0x4b5c8423u, 0x323e1dc8u,
            0x20b73decu, 0x5f162cd9u, 0x5d200eabu, 0x04e090d2u,
        },
        {
            0x0fa64335u, 0x5d37bc66u, 0x55d50d1du, 0x0afe6861u, 0x22e445dfu, 0x533f25f2u,
            0x5dedfd22u, 0x4ceccd58u, 0x082c5e5cu, 0x2d9920e4u, 0x25c5205bu, 0x01766962u,
            0x2162d003u, 0x70fe8a27u, 0x2046e05fu, 0x6a4c434fu,
        },
        {
            0x257787e3u, 0x3cf1c46du, 0x62ea6ca5u, 0x0ea49b8fu, 0x00ba12cfu, 0x0c0451e9u,
            0x110f53bfu, 0x03fd7ae9u, 0x1e2d9ed5u, 0x3f9fbfddu, 0x2ca0cda7u, 0x4a29c2b8u,
            0x241f68b7u, 0x45b4c55eu, 0x045a0296u, 0x2150b878u,
        },
    };
    static constexpr T internal[13] = {
        0x47556cf2u, 0x0226080au, 0x58eebefeu, 0x6f28f3ebu, 0x34abd7e2u, 0x6940a1deu,
        0x5492eac7u, 0x53b52e36u, 0x333d6416u, 0x5c4796bau, 0x06411997u, 0x0aa5e397u,
        0x608d4abeu,
    };
    static constexpr T external_terminal[4][16] = {
        {
            0x07c26dfdu, 0x2c4468fcu, 0x20576d41u, 0x2fda526du, 0x7324b864u, 0x01dc2637u,
            0x65eb202du, 0x3723f412u, 0x60fc174cu, 0x51ecc05fu, 0x0a9a4a6bu, 0x2534fd81u,
            0x0c823e36u, 0x1074d7fdu, 0x6c7c8fd1u, 0x3a16665cu,
        },
        {
            0x4d179d28u, 0x0d348f34u, 0x46db60e1u, 0x0d56a7bcu, 0x0e0cb856u, 0x11ac8a1cu,
            0x009aa89au, 0x4b6fb2e4u, 0x00876124u, 0x2252cbcfu, 0x601db98cu, 0x720c07a7u,
            0x4dcd09f0u, 0x227cb37du, 0x0b36522bu, 0x0b655c03u,
        },
        {
            0x5d3bf2f1u, 0x08667386u, 0x1a9bd874u, 0x331a67f8u, 0x51f50851u, 0x5b29a0e9u,
            0x123f5612u, 0x3234aabau, 0x4a53ab2fu, 0x3c43230au, 0x7228b4dbu, 0x489cf324u,
            0x1bc75463u, 0x3a3526aau, 0x308a6e3cu, 0x00ca16afu,
        },
        {
            0x4574c574u, 0x47c355b9u, 0x6b605040u, 0x726b2f24u, 0x23c6f057u, 0x2e17264fu,
            0x1d023a02u, 0x0d8fa228u, 0x54578bcdu, 0x1df8bb26u, 0x0bde46e4u, 0x1e694b67u,
            0x09ebbf12u, 0x55477325u, 0x520bf85eu, 0x69d9f379u,
        },
    };
    static constexpr T internal_diag[16] = {
        0x77FFFFFFu, 1u, 2u, 4u, 8u, 16u, 32u, 64u, 128u, 256u, 512u, 1024u, 2048u, 4096u, 8192u, 32768u,
    };
};

}  // namespace poseidon2_constants

// The internal layer of SP1's instances (width 16, 31-bit fields):
// s'_i = 2^-32 (sum + D_i s_i),  D = (-2, 2^0, ..., 2^13, 2^15). Linear, so
// the same on canonical values and on the Tw form. Two forms of a lane:
//   - one Montgomery reduction of a 64-bit integer: sum + 2 (p - s_0) for
//     D_0 = -2, sum + (s_i << k) for the powers of two (three products: the
//     wide sum, m, the high half of m p);
//   - for k >= 8: 2^-32 sum + s_i / 2^(32 - k), the first term shared by the
//     lanes and the division exact in 32 bits (F::div_pow2's form for
//     K <= 24, p = 1 mod 2^K: one product), so these lanes load the integer
//     adders instead of the multipliers, which bound the Merkle leaf kernel
//     (H100: the permutation 6% faster).
// Lazy (kLazy): lanes 1..15 leave the reductions uncorrected. A reduced lane
// is hi - q + p in (0, 2p); a divided one (x + m p) / 2^K + 2^-32 sum is
// below 2p + 2p / 2^17 (< 2^32 - 2^24, so x + 2^K - 1 and the next layer's
// sums stay in range; sum + (s_i << k) < 2^48 stays far below p 2^32, the
// reduction's bound). Lane 0, which meets the S-box next, is canonical. The
// lane sum takes lanes below 2^32 (poseidon2_lane_sum<..., true>), and
// poseidon2_permute makes lanes 1..15 canonical once after the partial
// rounds (lazy_canonical).
template <class F>
struct Poseidon2MontyShiftDiag {
    using T = typename F::T;
    static_assert(sizeof(T) == 4, "SP1's internal layer is defined for the 31-bit fields");
    static constexpr bool kLazy = true;
    template <int I>
    GP_HD static T term(T x, T sum) {
        static_assert(I >= 0 && I < 16, "width 16");
        if constexpr (I == 0) {
            return F::mont_reduce((uint64_t)sum + 2 * (uint64_t)(F::P - x));
        } else {
            constexpr int k = I == 15 ? 15 : I - 1;
            constexpr int K = 32 - k;
            if constexpr (K <= 24 && ((F::P - 1) & (((uint64_t)1 << K) - 1)) == 0) {
                // F::div_pow2's one-product form; mont_reduce(sum) is the
                // same in every such lane (one CSE).
                return F::template div_pow2<K>(x) + F::mont_reduce(sum);
            } else {
                return F::mont_reduce_lazy((uint64_t)sum + ((uint64_t)x << k));
            }
        }
    }
    // A lazy lane (below 2p + 2p / 2^17) made canonical.
    GP_HD static T lazy_canonical(T x) {
        x = F::umn(x, x - 2 * F::P);
        return F::umn(x, x - F::P);
    }
};

// SP1 instance C in place on state[16] (canonical in and out).
template <class C>
GP_HD void poseidon2_permute_sp1(typename C::Field::T *state) {
    poseidon2_permute(poseidon2_params<C>(), Poseidon2MontyShiftDiag<typename C::Field>{}, state);
}
// The same on the Tw form (poseidon2_permute_tw).
template <class C>
GP_HD void poseidon2_permute_sp1_tw(typename C::Field::Tw *s) {
    poseidon2_permute_tw(poseidon2_params<C>(), Poseidon2MontyShiftDiag<typename C::Field>{}, s);
}

}  // namespace gp
