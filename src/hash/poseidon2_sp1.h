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
#include <utility>

#include "hash/poseidon2.h"

namespace gp {
namespace poseidon2_constants {

// SP1 v6's KoalaBear instance: KoalaBearW16's round constants; the diagonal
// here is D of the internal layer above, for reference (the layer is not
// 1 + diag(V); Sp1PartialRounds below computes it).
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

// SP1's partial rounds (width 16, 31-bit fields), with the internal layer
//   s'_i = 2^-32 (sum + D_i s_i),  D = (-2, 2^0, 2^1, ..., 2^13, 2^15),
// run on scaled states. Taken as written, each lane of each layer needs a
// Montgomery reduction (a multiply and two high products), and the leaf
// kernels of a commitment are bound by the GPU's multipliers. The factor
// 2^-32 is the expensive part: 2^-K for K <= 15 is an exact division in 32
// bits with one low product (F::div_pow2's form for p = 1 mod 2^K; both
// fields have p = 1 mod 2^24). So each layer computes
//   t'_i = 2^(c - 32) (sum(t) + D_i t_i),  c = kScale = 17,
// 2^c times SP1's layer: lane i >= 1 is S + t_i / 2^(15 - k) (k the shift of
// D_i; lane 15 is S + t_15), lane 0 is S - t_0 / 2^14, and S = sum / 2^15 is
// shared. The state then carries a known scale sigma_r = 2^(c r) before
// partial round r (a linear layer commutes with it); the round constant is
// added scaled (rc[r] = sigma_r c_r), the S-box takes one more product to
// keep the scale (poseidon2_add_sbox_scaled_tw, kappa[r] = sigma_r^(1 - D)),
// and after the last round every lane is multiplied by sigma_R^-1 once
// (unscale). Per round 3 high products instead of 12 (KoalaBear); the
// permutation 6% faster on an H100 (bench/poseidon2_rate.cu), bit for bit the
// same (tests/test_hash_sp1.cpp, the layer at its bounds too).
// Lanes 1..15 stay lazy between layers, below kLaneBound = 2p + 2^24
// (< 2^32): S is canonical, and a lane's t / 2^K, computed as
// (t + m p) / 2^K, is below p + t_max / 2^K: from the lazy input itself
// (t_max = kLaneBound) where K >= kCanonBelow, so below p + 2^23; from the
// input first reduced below p + 2^24 by one subtraction where K is smaller.
// Lane 0, which meets the S-box next, is canonical. The bounds are checked
// at compile time (bounds_hold).
template <class C>
struct Sp1PartialTables {
    using Tw = typename C::Field::Tw;
    Tw rc[C::ROUNDS_P];     // sigma_r c_r, Tw
    Tw kappa[C::ROUNDS_P];  // sigma_r^(1 - D) 2^32 mod p
    Tw unscale;             // sigma_R^-1 2^32 mod p
};

template <class C>
struct Sp1PartialRounds {
    using F = typename C::Field;
    using T = typename F::T;
    static_assert(sizeof(T) == 4 && C::WIDTH == 16, "SP1's internal layer is defined for width 16 over a 31-bit field");
    static constexpr int kScale = 17;
    static constexpr int kSumShift = 32 - kScale;  // S = sum / 2^kSumShift
    static constexpr T kSumMask = ((T)1 << kSumShift) - 1;
    static constexpr uint64_t kLaneBound = 2 * (uint64_t)F::P + ((uint64_t)1 << 24);
    static constexpr int kCanonBelow = 8;
    static_assert(((F::P - 1) & kSumMask) == 0, "p = 1 mod 2^15: exact divisions by one low product");

    // K of lane i >= 1: t_i's term is t_i / 2^K.
    static constexpr int lane_shift(int i) { return kSumShift - (i == 15 ? 15 : i - 1); }

    static constexpr uint64_t umn_bound(uint64_t x_max) {  // max of min(x, x - p) for x <= x_max
        return x_max >= F::P && x_max - F::P > F::P - 1 ? x_max - F::P : F::P - 1;
    }
    static constexpr bool bounds_hold() {
        const uint64_t p = F::P, L = kLaneBound;
        if (L > ((uint64_t)1 << 32)) return false;
        // S before its correction: acc >> kSumShift plus m (p - 1) / 2^kSumShift, below 2p.
        const uint64_t acc = kSumMask + (p - 1) + 15 * (L - 1);
        if ((acc >> kSumShift) + (uint64_t)kSumMask * ((p - 1) >> kSumShift) >= 2 * p) return false;
        for (int i = 1; i < 16; ++i) {
            const int K = lane_shift(i);
            const uint64_t x = K < kCanonBelow ? umn_bound(L - 1) : L - 1;
            if (K > 0 && x + (((uint64_t)1 << K) - 1) >= ((uint64_t)1 << 32)) return false;
            const uint64_t f = K == 0 ? x : (x + (((uint64_t)1 << K) - 1) * p) >> K;
            if ((p - 1) + f >= L) return false;
        }
        return true;
    }
    static_assert(bounds_hold(), "lazy lanes stay below kLaneBound");

    template <int I>
    GP_HD static T lane(T x, T S) {
        constexpr int K = lane_shift(I);
        if constexpr (K < kCanonBelow) x = F::umn(x, x - F::P);
        if constexpr (K == 0) {
            return S + x;
        } else {
            return S + F::template div_pow2<K>(x);
        }
    }
    template <int... I>
    GP_HD static void lanes(T *t, T S, std::integer_sequence<int, 0, I...>) {
        ((t[I] = lane<I>(t[I], S)), ...);
    }
    // One internal layer at scale 2^kScale: t'_i = 2^(kScale - 32) (sum +
    // D_i t_i), lane 0 canonical in and out, lanes 1..15 below kLaneBound in
    // and out.
    GP_HD static void internal_layer(T *t) {
        uint64_t acc = kSumMask;  // acc = sum + 2^K - 1: ceil(sum / 2^K) is acc >> K, -sum mod 2^K is ~acc
        GP_P2_UNROLL
        for (int i = 0; i < 16; ++i) acc += t[i];
        T S = (T)(acc >> kSumShift) + (~(T)acc & kSumMask) * ((F::P - 1) >> kSumShift);
        S = F::umn(S, S - F::P);
        t[0] = F::sub(S, F::template div_pow2<kSumShift - 1>(t[0]));
        lanes(t, S, std::make_integer_sequence<int, 16>{});
    }

    // The R_P partial rounds on the Tw form (a policy for poseidon2_rounds_tw;
    // the round constants come scaled from Sp1PartialTables, not from p).
    template <class Params>
    GP_HD void operator()(const Params &, T *s) const;
};

namespace detail {
constexpr uint32_t sp1_pow_mod(uint64_t b, uint64_t e, uint32_t p) {
    uint64_t r = 1;
    b %= p;
    for (; e; e >>= 1, b = b * b % p)
        if (e & 1) r = r * b % p;
    return (uint32_t)r;
}
template <class C>
constexpr Sp1PartialTables<C> sp1_partial_tables() {
    using PF = Poseidon2Field<typename C::Field>;  // const_tw: v 2^32 mod p
    constexpr uint32_t p = C::Field::P;
    constexpr int c = Sp1PartialRounds<C>::kScale;
    Sp1PartialTables<C> t{};
    for (int r = 0; r < C::ROUNDS_P; ++r) {
        const uint64_t sigma = sp1_pow_mod(2, (uint64_t)c * r, p);
        const uint32_t sigma_inv = sp1_pow_mod(sigma, p - 2, p);
        t.rc[r] = (uint32_t)(sigma * PF::const_tw(C::internal[r]) % p);
        t.kappa[r] = PF::const_tw(sp1_pow_mod(sigma_inv, C::SBOX_DEGREE - 1, p));
    }
    const uint32_t sigma_end = sp1_pow_mod(2, (uint64_t)c * C::ROUNDS_P, p);
    t.unscale = PF::const_tw(sp1_pow_mod(sigma_end, p - 2, p));
    return t;
}
template <class C>
static GP_CONSTANT constexpr Sp1PartialTables<C> kSp1PartialTables = sp1_partial_tables<C>();
}  // namespace detail

template <class C>
template <class Params>
GP_HD void Sp1PartialRounds<C>::operator()(const Params &, T *s) const {
    const Sp1PartialTables<C> &tab = detail::kSp1PartialTables<C>;
#if defined(__CUDA_ARCH__)
    constexpr int kPartialUnroll = Poseidon2Field<F>::kPartialUnroll;
#pragma unroll kPartialUnroll
#endif
    for (int r = 0; r < C::ROUNDS_P; ++r) {
        s[0] = poseidon2_add_sbox_scaled_tw<F, C::SBOX_DEGREE>(s[0], tab.rc[r], tab.kappa[r]);
        internal_layer(s);
    }
    GP_P2_UNROLL
    for (int i = 0; i < 16; ++i) s[i] = F::mul_tw(s[i], tab.unscale);
}

// SP1 instance C in place on state[16] (canonical in and out).
template <class C>
GP_HD void poseidon2_permute_sp1(typename C::Field::T *state) {
    poseidon2_rounds(poseidon2_params<C>(), Sp1PartialRounds<C>{}, state);
}
// The same on the Tw form (poseidon2_rounds_tw).
template <class C>
GP_HD void poseidon2_permute_sp1_tw(typename C::Field::Tw *s) {
    poseidon2_rounds_tw(poseidon2_params<C>(), Sp1PartialRounds<C>{}, s);
}

}  // namespace gp
