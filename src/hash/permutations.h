// SPDX-License-Identifier: MIT OR Apache-2.0
// The permutations behind gp_permute_batch, one entry per gp_permutation:
// each is a type with the state's element type, width and a host+device
// apply(), so the CPU and CUDA backends share one dispatch.
#pragma once

#include <cstdint>

#include "gpuprover.h"
#include "hash/keccak.h"
#include "hash/poseidon2.h"
#include "hash/poseidon2_sp1.h"
#include "hash/poseidon_gl.h"
#include "hash/rp64.h"
#include "hash/rpo.h"
#include "hash/tip5.h"
#include "math/field.h"

namespace gp {
namespace perm {

// The Poseidon2 permutations also run on their Tw form (apply_tw, with
// to_tw / from_tw for the values that enter and leave it): a sponge keeps
// its state so between permutations (tree_hash.h, FieldSpongeHasher) and
// converts only the elements it absorbs and the digest it squeezes, instead
// of the whole state around every permutation. Only the 31-bit fields have
// a form to convert (Goldilocks' is the value itself: kTw false).
template <class C>
struct Poseidon2Instance {
    using T = typename C::Field::T;
    using F = typename C::Field;
    static constexpr int WIDTH = C::WIDTH;
    static constexpr bool kTw = sizeof(T) == 4;
    GP_HD static void apply(T *s) { poseidon2_permute_instance<C>(s); }
    GP_HD static void apply_tw(T *s) { poseidon2_permute_instance_tw<C>(s); }
    GP_HD static T to_tw(T x) { return F::to_tw(x); }
    GP_HD static T from_tw(T x) { return F::from_tw(x); }
};
// Plonky3's default instances (a named instance each).
template <class F, int W>
struct Poseidon2Default : Poseidon2Instance<typename ::gp::Poseidon2Default<F, W>::Constants> {};
// SP1's instances (hash/poseidon2_sp1.h).
template <class C>
struct Poseidon2Sp1 : Poseidon2Instance<C> {
    GP_HD static void apply(typename C::Field::T *s) { poseidon2_permute_sp1<C>(s); }
    GP_HD static void apply_tw(typename C::Field::T *s) { poseidon2_permute_sp1_tw<C>(s); }
};
struct Rpo256 {
    using T = uint64_t;
    static constexpr int WIDTH = 12;
    GP_HD static void apply(T *s) { rpo256_permute(s); }
};
struct Rpx256 {
    using T = uint64_t;
    static constexpr int WIDTH = 12;
    GP_HD static void apply(T *s) { rpx256_permute(s); }
};
// winterfell's Rp64_256 (Rescue-XLIX).
struct Rp64_256 {
    using T = uint64_t;
    static constexpr int WIDTH = 12;
    GP_HD static void apply(T *s) { rp64_256_permute(s); }
};
struct PoseidonGoldilocks12 {
    using T = uint64_t;
    static constexpr int WIDTH = 12;
    GP_HD static void apply(T *s) { poseidon_gl_permute(s); }
};
struct Tip5 {
    using T = uint64_t;
    static constexpr int WIDTH = 16;
    GP_HD static void apply(T *s) { tip5_permute(s); }
};
struct KeccakF1600 {
    using T = uint64_t;
    static constexpr int WIDTH = 25;
    GP_HD static void apply(T *s) { keccak_f1600(s); }
};

// The ids that name hash functions, not permutations (the hashes of the
// Merkle kinds that take them; gp_permute_batch refuses them): their enum
// names, else nullptr.
inline const char *hash_name(int id) {
    switch (id) {
        case GP_PERM_BLAKE3: return "GP_PERM_BLAKE3";
        case GP_PERM_SHA3_256: return "GP_PERM_SHA3_256";
        case GP_PERM_BLAKE3_192: return "GP_PERM_BLAKE3_192";
        default: return nullptr;
    }
}

// Field of a permutation's state elements (0 for Keccak's raw 64-bit lanes
// and the byte hashes).
inline int field_of(int id) {
    switch (id) {
        case GP_PERM_POSEIDON2_BABYBEAR_16:
        case GP_PERM_POSEIDON2_BABYBEAR_24:
        case GP_PERM_POSEIDON2_BABYBEAR_32:
        case GP_PERM_POSEIDON2_BABYBEAR_HL_16:
        case GP_PERM_POSEIDON2_BABYBEAR_HL_24:
        case GP_PERM_POSEIDON2_BABYBEAR_16_SP1: return GP_FIELD_BABYBEAR;
        case GP_PERM_POSEIDON2_KOALABEAR_16:
        case GP_PERM_POSEIDON2_KOALABEAR_24:
        case GP_PERM_POSEIDON2_KOALABEAR_32:
        case GP_PERM_POSEIDON2_KOALABEAR_16_SP1: return GP_FIELD_KOALABEAR;
        case GP_PERM_KECCAK_F1600:
        case GP_PERM_BLAKE3:
        case GP_PERM_SHA3_256:
        case GP_PERM_BLAKE3_192: return 0;
        default: return GP_FIELD_GOLDILOCKS;
    }
}

// Calls fn(P{}) for the permutation `id`; returns false for an unknown id.
template <class Fn>
bool dispatch(int id, Fn &&fn) {
    switch (id) {
        case GP_PERM_POSEIDON2_GOLDILOCKS_8: fn(Poseidon2Default<Goldilocks, 8>{}); return true;
        case GP_PERM_POSEIDON2_GOLDILOCKS_12: fn(Poseidon2Default<Goldilocks, 12>{}); return true;
        case GP_PERM_POSEIDON2_GOLDILOCKS_16: fn(Poseidon2Default<Goldilocks, 16>{}); return true;
        case GP_PERM_POSEIDON2_GOLDILOCKS_HL_8:
            fn(Poseidon2Instance<poseidon2_constants::GoldilocksHLW8>{});
            return true;
        case GP_PERM_POSEIDON2_BABYBEAR_16: fn(Poseidon2Default<BabyBear, 16>{}); return true;
        case GP_PERM_POSEIDON2_BABYBEAR_24: fn(Poseidon2Default<BabyBear, 24>{}); return true;
        case GP_PERM_POSEIDON2_KOALABEAR_16: fn(Poseidon2Default<KoalaBear, 16>{}); return true;
        case GP_PERM_POSEIDON2_KOALABEAR_24: fn(Poseidon2Default<KoalaBear, 24>{}); return true;
        case GP_PERM_RPO256: fn(Rpo256{}); return true;
        case GP_PERM_RPX256: fn(Rpx256{}); return true;
        case GP_PERM_POSEIDON_GOLDILOCKS_12: fn(PoseidonGoldilocks12{}); return true;
        case GP_PERM_TIP5: fn(Tip5{}); return true;
        case GP_PERM_KECCAK_F1600: fn(KeccakF1600{}); return true;
        case GP_PERM_POSEIDON2_BABYBEAR_32: fn(Poseidon2Default<BabyBear, 32>{}); return true;
        case GP_PERM_POSEIDON2_KOALABEAR_32: fn(Poseidon2Default<KoalaBear, 32>{}); return true;
        case GP_PERM_POSEIDON2_BABYBEAR_HL_16:
            fn(Poseidon2Instance<poseidon2_constants::BabyBearHLW16>{});
            return true;
        case GP_PERM_POSEIDON2_BABYBEAR_HL_24:
            fn(Poseidon2Instance<poseidon2_constants::BabyBearHLW24>{});
            return true;
        case GP_PERM_POSEIDON2_GOLDILOCKS_HL_12:
            fn(Poseidon2Instance<poseidon2_constants::GoldilocksHLW12>{});
            return true;
        case GP_PERM_RP64_256: fn(Rp64_256{}); return true;
        case GP_PERM_POSEIDON2_KOALABEAR_16_SP1:
            fn(Poseidon2Sp1<poseidon2_constants::Sp1KoalaBearW16>{});
            return true;
        case GP_PERM_POSEIDON2_BABYBEAR_16_SP1:
            fn(Poseidon2Sp1<poseidon2_constants::Sp1BabyBearW16>{});
            return true;
        default: return false;
    }
}

}  // namespace perm
}  // namespace gp
