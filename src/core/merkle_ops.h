// SPDX-License-Identifier: MIT OR Apache-2.0
// Merkle tree steps shared by the CPU and CUDA backends (host+device code)
// on any tree hasher of hash/tree_hash.h, and the host-side dispatch from a
// validated profile to its hasher type.
#pragma once

#include <cstdint>
#include <type_traits>
#include <vector>

#include "core/core.h"
#include "gpuprover.h"
#include "hash/permutations.h"
#include "hash/tree_hash.h"
#include "math/field.h"

namespace gp {

// Calls fn(h) with the tree hasher of `s` (already validated).
template <class Fn>
void tree_dispatch(const TreeSpec &s, Fn &&fn) {
    switch (s.kind) {
        case GP_MERKLE_FIELD_SPONGE:
            if (s.compress_perm && s.compress_perm != s.perm) {  // the pairs tree_spec offers
                using BB16 = perm::Poseidon2Default<BabyBear, 16>;
                using BB24 = perm::Poseidon2Default<BabyBear, 24>;
                using KB16 = perm::Poseidon2Default<KoalaBear, 16>;
                using KB24 = perm::Poseidon2Default<KoalaBear, 24>;
                using GL8 = perm::Poseidon2Default<Goldilocks, 8>;
                using GL12 = perm::Poseidon2Default<Goldilocks, 12>;
                using GL16 = perm::Poseidon2Default<Goldilocks, 16>;
                if (s.perm == GP_PERM_POSEIDON2_BABYBEAR_24) fn(FieldSpongeHasher<BB24, BB16>{s.rate, s.digest});
                else if (s.perm == GP_PERM_POSEIDON2_KOALABEAR_24) fn(FieldSpongeHasher<KB24, KB16>{s.rate, s.digest});
                else if (s.perm == GP_PERM_POSEIDON2_GOLDILOCKS_12) fn(FieldSpongeHasher<GL12, GL8>{s.rate, s.digest});
                else fn(FieldSpongeHasher<GL16, GL8>{s.rate, s.digest});
                return;
            }
            perm::dispatch(s.perm, [&](auto P) {  // tree_spec refuses Keccak-f and Rp64_256 here
                using Perm = decltype(P);
                if constexpr (!std::is_same<Perm, perm::KeccakF1600>::value &&
                              !std::is_same<Perm, perm::Rp64_256>::value)
                    fn(FieldSpongeHasher<Perm>{s.rate, s.digest});
            });
            return;
        case GP_MERKLE_MIDEN:
        case GP_MERKLE_MIDEN_V0_11:
        case GP_MERKLE_MIDEN_V0_10: {
            auto with_perm = [&](auto layout) {
                using L = decltype(layout);
                if (s.perm == GP_PERM_RPX256)
                    fn(MidenHasher<RpxApply, L>{});
                else if (s.perm == GP_PERM_POSEIDON2_GOLDILOCKS_12)  // miden-crypto v0.24 and later
                    fn(MidenHasher<perm::Poseidon2Default<Goldilocks, 12>, L>{});
                else if (s.perm == GP_PERM_POSEIDON2_GOLDILOCKS_HL_12)  // miden-crypto v0.22, v0.23
                    fn(MidenHasher<perm::Poseidon2Instance<poseidon2_constants::GoldilocksHLW12>, L>{});
                else
                    fn(MidenHasher<RpoApply, L>{});
            };
            if (s.kind == GP_MERKLE_MIDEN) with_perm(MidenLayoutHead{});
            else if (s.kind == GP_MERKLE_MIDEN_V0_11) with_perm(MidenLayoutV11{});
            else with_perm(MidenLayoutV10{});
            return;
        }
        case GP_MERKLE_KECCAK_PLONKY3:
            if (s.field == GP_FIELD_BABYBEAR) fn(KeccakHasher<BabyBear, ByteEncoding::Plonky3>{});
            else if (s.field == GP_FIELD_KOALABEAR) fn(KeccakHasher<KoalaBear, ByteEncoding::Plonky3>{});
            else fn(KeccakHasher<Goldilocks, ByteEncoding::Plonky3>{});
            return;
        case GP_MERKLE_KECCAK_BE:  // Goldilocks only (validated)
            fn(KeccakHasher<Goldilocks, ByteEncoding::BigEndian>{});
            return;
        case GP_MERKLE_TRITON:
            fn(TritonTip5Hasher{});
            return;
        case GP_MERKLE_TRITON_DIGEST:
            fn(TritonDigestHasher{});
            return;
        case GP_MERKLE_MIDEN_LMCS:
            if (s.perm == GP_PERM_RPX256) fn(MidenLmcsHasher<RpxApply>{});
            else if (s.perm == GP_PERM_POSEIDON2_GOLDILOCKS_12)
                fn(MidenLmcsHasher<perm::Poseidon2Default<Goldilocks, 12>>{});
            else if (s.perm == GP_PERM_KECCAK_F1600) fn(MidenLmcsKeccakHasher{});
            else if (s.perm == GP_PERM_BLAKE3) fn(MidenLmcsBlake3Hasher{});
            else fn(MidenLmcsHasher<RpoApply>{});
            return;
        case GP_MERKLE_WINTERFELL:  // winter-crypto's MerkleTree<H>
            if (s.perm == GP_PERM_SHA3_256) fn(WinterfellSha3Hasher{});
            else if (s.perm == GP_PERM_BLAKE3) fn(WinterfellBlake3Hasher<4>{});
            else if (s.perm == GP_PERM_BLAKE3_192) fn(WinterfellBlake3Hasher<3>{});
            else fn(WinterfellRpHasher{});
            return;
        case GP_MERKLE_KECCAK_U64:
            if (s.field == GP_FIELD_BABYBEAR) fn(KeccakLaneHasher<BabyBear>{});
            else if (s.field == GP_FIELD_KOALABEAR) fn(KeccakLaneHasher<KoalaBear>{});
            else fn(KeccakLaneHasher<Goldilocks>{});
            return;
        default: return;
    }
}

// Host side: the views of a request's matrices (Buf has data, rows and
// base_cols()).
template <class T, class Buf>
std::vector<MatView<T>> make_mat_views(const std::vector<const Buf *> &mats) {
    std::vector<MatView<T>> v;
    v.reserve(mats.size());
    for (const Buf *m : mats)
        v.push_back({static_cast<const T *>(m->data), m->rows, m->base_cols(), m->stride ? m->stride : m->rows});
    return v;
}

// Leaf i: the hash of row i of matrices [m0, m1) (the tallest).
template <class H>
GP_HD void merkle_leaf(const H &h, const MatView<typename H::T> *mats, uint32_t m0, uint32_t m1, uint64_t i,
                       typename H::W *out) {
    h.hash_row(mats, m0, m1, i, out);
}

// Node i of a layer above the leaves: compress its two children, then, when
// matrices [m0, m1) have this layer's height, compress with their row hash
// (as Plonky3's MerkleTreeMmcs injects shorter matrices), or with
// inject[i] when their rows were hashed already (a streamed commitment).
template <class H>
GP_HD void merkle_node(const H &h, const typename H::W *children, uint64_t i, const MatView<typename H::T> *mats,
                       uint32_t m0, uint32_t m1, const typename H::W *inject, typename H::W *out) {
    using W = typename H::W;
    const uint32_t d = h.digest;
    W node[H::kMaxDigest];
    h.compress(children + (2 * i) * d, children + (2 * i + 1) * d, node);
    if (inject) {
        h.compress(node, inject + i * d, node);
    } else if (m0 < m1) {
        W rows[H::kMaxDigest];
        h.hash_row(mats, m0, m1, i, rows);
        h.compress(node, rows, node);
    }
    for (uint32_t k = 0; k < d; ++k) out[k] = node[k];
}

// Row i of a streamed leaf hash (AbsorbArgs): the sponge's state is loaded
// (or initialised for a row of n elements), absorbs `count` elements of
// row i of `mats`, then is stored, or squeezed into
// digests[i] when the row is finished (count == left).
template <class H>
GP_HD void merkle_absorb_row(const H &h, const MatView<typename H::T> *mats, typename H::S *states, uint64_t rows, uint64_t i, uint64_t n, uint64_t left,
                             uint64_t count, bool first, typename H::W *digests) {
    typename H::S s[H::kState];
    if (first) {
        h.init(s, n);
    } else {
        GP_UNROLL
        for (int k = 0; k < H::kState; ++k) s[k] = states[k * rows + i];
    }
    RowCursor<typename H::T> c(mats, 0, i);
    h.absorb(s, c, left, count);
    if (count == left) {
        h.squeeze(s, digests + i * h.digest);
    } else {
        GP_UNROLL
        for (int k = 0; k < H::kState; ++k) states[k * rows + i] = s[k];
    }
}

// Digest offset (in digests) of layer k of a tree with 2^log_h leaves:
// layers are stored leaves first, each half the one before.
GP_HD uint64_t merkle_layer_offset(uint32_t log_h, uint32_t k) {
    return ((1ull << log_h) * 2) - ((1ull << log_h) >> k) * 2;
}

// ceil(log2 x) (x >= 1): a matrix of height x of a tree over 2^log_h
// leaves is read at row q >> (log_h - this), whether x is a power of two or
// (Plonky3's MMCS) not.
GP_HD uint32_t log2_ceil_hd(uint64_t x) {
    if (x <= 1) return 0;
#if defined(__CUDA_ARCH__)
    return 64 - (uint32_t)__clzll((long long)(x - 1));
#else
    return 64 - (uint32_t)__builtin_clzll(x - 1);
#endif
}

// Opening of leaf q: the row of every matrix (in the order given, matrix m
// of height x read at row q >> (log_h - ceil(log2 x)), or with `lifted`
// (Miden's LMCS) at row q mod x), base columns in order.
template <class T>
GP_HD void merkle_open_rows(const MatView<T> *mats, uint32_t count, uint32_t log_h, uint64_t q, bool lifted, T *out) {
    for (uint32_t m = 0; m < count; ++m) {
        const MatView<T> &v = mats[m];
        const uint64_t r = lifted ? q & (v.rows - 1) : q >> (log_h - log2_ceil_hd(v.rows));
        for (uint64_t j = 0; j < v.base_cols; ++j) *out++ = v.data[j * v.stride + r];
    }
}

// Authentication path of leaf q: the sibling at each of the `len` layers
// from the leaves up (below the cap).
template <class W>
GP_HD void merkle_open_path(const W *nodes, uint32_t log_h, uint32_t len, uint32_t digest, uint64_t q, W *out) {
    for (uint32_t k = 0; k < len; ++k) {
        const W *sib = nodes + (merkle_layer_offset(log_h, k) + ((q >> k) ^ 1)) * digest;
        for (uint32_t w = 0; w < digest; ++w) *out++ = sib[w];
    }
}

}  // namespace gp
