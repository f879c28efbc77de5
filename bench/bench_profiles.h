// SPDX-License-Identifier: MIT OR Apache-2.0
// The Merkle profiles the benchmarks run, by number (benchmark arguments
// are integers), with the counts behind their arithmetic floors.
#pragma once

#include <benchmark/benchmark.h>

#include "bench_util.h"
#include "gpuprover.h"

namespace gpb {

// A commitment profile by number (benchmark arguments are integers).
enum Profile : int64_t {
    P2_GL8 = 0,    // Poseidon2 Goldilocks w8, rate 4, digest 4 (Plonky3 default)
    P2_GL12 = 1,   // Poseidon2 Goldilocks w12, rate 8, digest 4 (W3)
    P2_GL16 = 2,   // Poseidon2 Goldilocks w16, rate 12, digest 4
    P2_BB16 = 3,   // Poseidon2 BabyBear w16, rate 8, digest 8
    P2_BB24 = 4,   // Poseidon2 BabyBear w24, rate 16, digest 8
    P2_KB16 = 5,   // Poseidon2 KoalaBear w16, rate 8, digest 8 (W4)
    P2_KB24 = 6,   // Poseidon2 KoalaBear w24, rate 16, digest 8
    RPO = 7,       // miden-crypto RPO256 tree
    RPX = 8,       // miden-crypto RPX256 tree
    TIP5 = 9,      // Tip5 sponge, rate 10, digest 5
    PLONKY2 = 10,  // Plonky2 Poseidon w12, rate 8, digest 4
    KECCAK = 11,   // Keccak-256, Plonky3 serialization
    P2_GL_HL8 = 12,
    KECCAK_U64 = 13,  // Plonky3's Keccak-f sponge over u64 lanes (GP_MERKLE_KECCAK_U64)
    P2_BB24_16 = 14,  // Poseidon2 BabyBear sponge w24 (rate 16), compression w16, digest 8
    P2_KB24_16 = 15,  // the same over KoalaBear
    P2_GL12_8 = 16,   // Poseidon2 Goldilocks sponge w12 (rate 8), compression w8, digest 4
    TRITON = 17,      // Triton VM / twenty-first Tip5 tree (hash_varlen leaves, hash_pair nodes)
    MIDEN_P2 = 18,    // miden-crypto v0.24+ tree: Poseidon2 Goldilocks w12 in the Miden sponge layout
    KECCAK_BE = 19,   // lambdaworks' Keccak-256 tree (big-endian elements)
    KECCAK_BE_PAIRS = 20,  // the same with rows 2i and 2i + 1 in leaf i (leaf_rows = 2)
    TRITON_DIGEST = 21,    // twenty-first tree over rows taken as digests (Triton's FRI rounds)
    LMCS_P2 = 22,          // Miden's lifted MMCS, Poseidon2 Goldilocks w12 (StatefulSponge rate 8)
    LMCS_RPO = 23,         // the same over RPO256
    LMCS_KECCAK = 24,      // the same over Keccak-f (rate 17 lanes)
    LMCS_BLAKE3 = 25,      // the same with BLAKE3 (ChainingHasher leaves; Miden's default)
    WF_SHA3 = 26,          // winter-crypto MerkleTree<Sha3_256> (GP_MERKLE_WINTERFELL)
    WF_BLAKE3 = 27,        // the same with Blake3_256
    WF_BLAKE3_192 = 28,    // the same with Blake3_192 (24-byte digests)
    WF_RP64 = 29,          // the same with Rp64_256
    P2_KB16_SP1 = 30,      // SP1 v6's tensor tree: its Poseidon2 KoalaBear w16 instance, rate 8, digest 8
    P2_BB16_SP1 = 31,      // SP1 v4/v5's: its Poseidon2 BabyBear w16 instance
};

struct ProfileInfo {
    const char *name;
    gp_merkle_kind kind;
    gp_permutation perm;
    uint32_t rate, digest;
    double muls;  // field multiplications per permutation (0: no floor)
    // Of those, the ones the library runs as general products: the Plonky3
    // instances' internal diagonals (small integers and +-1/2^k) run as
    // additions and exact halvings, so only their S-boxes remain.
    double general_muls;
    gp_permutation compress = (gp_permutation)0;  // when the compression's differs
    uint32_t leaf_rows = 0;
};

// Multiplication counts of the Poseidon2 instances: x^7 is 4 multiplications
// (x^3 = x*x^2, x^7 = x^3*x^4), x^3 is 2; 8 external rounds of `width`
// S-boxes; each internal round one S-box plus the diagonal (width
// multiplications); the 4x4 and sum layers are additions.
constexpr double p2_muls(double width, double sbox, double partial) {
    return 8 * width * sbox + partial * (sbox + width);
}
constexpr double p2_sbox_muls(double width, double sbox, double partial) {
    return 8 * width * sbox + partial * sbox;
}

inline ProfileInfo info(int64_t p) {
    switch (p) {
        case P2_GL8: return {"poseidon2_gl8", GP_MERKLE_FIELD_SPONGE, GP_PERM_POSEIDON2_GOLDILOCKS_8, 4, 4, p2_muls(8, 4, 22), p2_sbox_muls(8, 4, 22)};
        case P2_GL12: return {"poseidon2_gl12", GP_MERKLE_FIELD_SPONGE, GP_PERM_POSEIDON2_GOLDILOCKS_12, 8, 4, p2_muls(12, 4, 22), p2_sbox_muls(12, 4, 22)};
        case P2_GL16: return {"poseidon2_gl16", GP_MERKLE_FIELD_SPONGE, GP_PERM_POSEIDON2_GOLDILOCKS_16, 12, 4, p2_muls(16, 4, 22), p2_sbox_muls(16, 4, 22)};
        case P2_BB16: return {"poseidon2_bb16", GP_MERKLE_FIELD_SPONGE, GP_PERM_POSEIDON2_BABYBEAR_16, 8, 8, p2_muls(16, 4, 13), p2_sbox_muls(16, 4, 13)};
        case P2_BB24: return {"poseidon2_bb24", GP_MERKLE_FIELD_SPONGE, GP_PERM_POSEIDON2_BABYBEAR_24, 16, 8, p2_muls(24, 4, 21), p2_sbox_muls(24, 4, 21)};
        case P2_KB16: return {"poseidon2_kb16", GP_MERKLE_FIELD_SPONGE, GP_PERM_POSEIDON2_KOALABEAR_16, 8, 8, p2_muls(16, 2, 20), p2_sbox_muls(16, 2, 20)};
        case P2_KB24: return {"poseidon2_kb24", GP_MERKLE_FIELD_SPONGE, GP_PERM_POSEIDON2_KOALABEAR_24, 16, 8, p2_muls(24, 2, 23), p2_sbox_muls(24, 2, 23)};
        case RPO: return {"rpo256", GP_MERKLE_MIDEN, GP_PERM_RPO256, 8, 4, 0, 0};
        case RPX: return {"rpx256", GP_MERKLE_MIDEN, GP_PERM_RPX256, 8, 4, 0, 0};
        case TIP5: return {"tip5", GP_MERKLE_FIELD_SPONGE, GP_PERM_TIP5, 10, 5, 0, 0};
        case PLONKY2: return {"poseidon_plonky2", GP_MERKLE_FIELD_SPONGE, GP_PERM_POSEIDON_GOLDILOCKS_12, 8, 4, 0, 0};
        case KECCAK: return {"keccak256", GP_MERKLE_KECCAK_PLONKY3, GP_PERM_KECCAK_F1600, 0, 0, 0, 0};
        case MIDEN_P2: return {"miden_poseidon2", GP_MERKLE_MIDEN, GP_PERM_POSEIDON2_GOLDILOCKS_12, 8, 4, 0, 0};
        case KECCAK_BE: return {"keccak256_be", GP_MERKLE_KECCAK_BE, GP_PERM_KECCAK_F1600, 0, 0, 0, 0};
        case KECCAK_BE_PAIRS:
            return {"keccak256_be_pairs", GP_MERKLE_KECCAK_BE, GP_PERM_KECCAK_F1600, 0, 0, 0, 0, (gp_permutation)0, 2};
        case TRITON: return {"triton_tip5", GP_MERKLE_TRITON, GP_PERM_TIP5, 0, 0, 0, 0};
        case TRITON_DIGEST: return {"triton_digest", GP_MERKLE_TRITON_DIGEST, GP_PERM_TIP5, 0, 0, 0, 0};
        case LMCS_P2: return {"miden_lmcs_poseidon2", GP_MERKLE_MIDEN_LMCS, GP_PERM_POSEIDON2_GOLDILOCKS_12, 8, 4, p2_muls(12, 4, 22), p2_sbox_muls(12, 4, 22)};
        case LMCS_RPO: return {"miden_lmcs_rpo", GP_MERKLE_MIDEN_LMCS, GP_PERM_RPO256, 8, 4, 0, 0};
        case LMCS_KECCAK: return {"miden_lmcs_keccak", GP_MERKLE_MIDEN_LMCS, GP_PERM_KECCAK_F1600, 17, 4, 0, 0};
        case LMCS_BLAKE3: return {"miden_lmcs_blake3", GP_MERKLE_MIDEN_LMCS, GP_PERM_BLAKE3, 8, 4, 0, 0};
        case KECCAK_U64: return {"keccak_u64", GP_MERKLE_KECCAK_U64, GP_PERM_KECCAK_F1600, 0, 0, 0, 0};
        case WF_SHA3: return {"winterfell_sha3", GP_MERKLE_WINTERFELL, GP_PERM_SHA3_256, 0, 0, 0, 0};
        case WF_BLAKE3: return {"winterfell_blake3", GP_MERKLE_WINTERFELL, GP_PERM_BLAKE3, 8, 4, 0, 0};
        case WF_BLAKE3_192: return {"winterfell_blake3_192", GP_MERKLE_WINTERFELL, GP_PERM_BLAKE3_192, 8, 3, 0, 0};
        case WF_RP64: return {"winterfell_rp64", GP_MERKLE_WINTERFELL, GP_PERM_RP64_256, 8, 4, 0, 0};
        case P2_KB16_SP1: return {"poseidon2_kb16_sp1", GP_MERKLE_FIELD_SPONGE, GP_PERM_POSEIDON2_KOALABEAR_16_SP1, 8, 8, p2_muls(16, 2, 20), p2_muls(16, 2, 20)};
        case P2_BB16_SP1: return {"poseidon2_bb16_sp1", GP_MERKLE_FIELD_SPONGE, GP_PERM_POSEIDON2_BABYBEAR_16_SP1, 8, 8, p2_muls(16, 4, 13), p2_muls(16, 4, 13)};
        case P2_BB24_16: return {"poseidon2_bb24_16", GP_MERKLE_FIELD_SPONGE, GP_PERM_POSEIDON2_BABYBEAR_24, 16, 8, 0, 0, GP_PERM_POSEIDON2_BABYBEAR_16};
        case P2_KB24_16: return {"poseidon2_kb24_16", GP_MERKLE_FIELD_SPONGE, GP_PERM_POSEIDON2_KOALABEAR_24, 16, 8, 0, 0, GP_PERM_POSEIDON2_KOALABEAR_16};
        case P2_GL12_8: return {"poseidon2_gl12_8", GP_MERKLE_FIELD_SPONGE, GP_PERM_POSEIDON2_GOLDILOCKS_12, 8, 4, 0, 0, GP_PERM_POSEIDON2_GOLDILOCKS_8};
        default: return {"poseidon2_gl_hl8", GP_MERKLE_FIELD_SPONGE, GP_PERM_POSEIDON2_GOLDILOCKS_HL_8, 4, 4, p2_muls(8, 4, 22), p2_muls(8, 4, 22)};
    }
}

inline gp_merkle_options options_of(const ProfileInfo &pi) {
    gp_merkle_options o = gpb::merkle_profile(pi.kind, pi.perm, pi.rate, pi.digest);
    o.compress_perm = pi.compress;
    o.leaf_rows = pi.leaf_rows;
    return o;
}

// Permutations of one commitment of `rows` x `cols` base elements.
inline double perms_of(const ProfileInfo &pi, uint64_t rows, uint64_t cols, uint32_t elem_size) {
    double per_leaf;
    if (pi.leaf_rows == 2) {  // half the leaves, each of two rows
        rows /= 2;
        cols *= 2;
    }
    if (pi.kind == GP_MERKLE_KECCAK_PLONKY3 || pi.kind == GP_MERKLE_KECCAK_BE ||
        (pi.kind == GP_MERKLE_WINTERFELL && pi.perm == GP_PERM_SHA3_256))
        per_leaf = (double)(cols * elem_size / 136 + 1);
    else if (pi.kind == GP_MERKLE_KECCAK_U64) per_leaf = (double)(((cols * elem_size + 7) / 8 + 16) / 17);
    else if (pi.kind == GP_MERKLE_TRITON) per_leaf = (double)(cols / 10 + 1);  // hash_varlen pads
    else if (pi.kind == GP_MERKLE_TRITON_DIGEST) per_leaf = 0;  // the row is the digest
    else per_leaf = (double)((cols + pi.rate - 1) / pi.rate);
    return (double)rows * per_leaf + (double)(rows - 1);
}

inline void hash_counters(benchmark::State &st, const ProfileInfo &pi, double perms, gp_field f, bool cuda) {
    st.counters["perms"] = perms;
    st.counters["Mperm_s"] = benchmark::Counter(perms / 1e6, benchmark::Counter::kIsIterationInvariantRate);
#ifdef GP_HAVE_CUDA
    if (cuda && pi.muls > 0) {
        const double floor_s = perms * pi.muls / modmul_rate(f);
        st.counters["floor_ms"] = floor_s * 1e3;
        st.counters["x_floor"] = x_floor_counter(floor_s);
        // The same floor counting only the general products performed.
        const double gen_s = perms * pi.general_muls / modmul_rate(f);
        st.counters["gen_floor_ms"] = gen_s * 1e3;
        st.counters["x_gen"] = x_floor_counter(gen_s);
    }
    // The permutation's own ceiling on this GPU (bench/poseidon2_rate.cu):
    // the commitment's permutations at that rate.
    const double prate = cuda ? poseidon2_perm_rate(pi.perm) : 0;
    if (prate > 0 && (pi.compress == 0 || pi.compress == pi.perm)) {
        const double perm_s = perms / prate;
        st.counters["perm_floor_ms"] = perm_s * 1e3;
        st.counters["x_perm"] = x_floor_counter(perm_s);
    }
#else
    (void)f;
    (void)cuda;
#endif
}

}  // namespace gpb
