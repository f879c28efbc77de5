// SPDX-License-Identifier: MIT OR Apache-2.0
// The leaf and node hashes of the Merkle profiles, written once for host and
// device. A tree hasher H has
//   T                  the matrices' element type
//   W                  the digest word (T for field hashes, uint64_t Keccak
//                      lanes for byte hashes)
//   kMaxDigest         an upper bound on digest words (array sizes)
//   digest             words per digest
//   hash_row(mats, m0, m1, row, out)   leaf hash of row `row` of matrices
//                      [m0, m1), their base columns concatenated in order
//   compress(l, r, out)                node hash of two digests
// and, for the streamed commitment (core/commit_stream.cpp), the leaf
// sponge in pieces over a state kept between column batches:
//   S, kState          state word and words of state
//   block()            elements absorbed per permutation
//   init(s, n)         the state before a row of n elements
//   absorb(s, c, left, count)   with `left` elements of the row still to
//                      come, absorbs the next `count` from cursor c; count
//                      is a multiple of block() unless count == left, which
//                      also finishes the sponge (padding, last permutation)
//   squeeze(s, out)    the digest of a finished sponge
// hash_row is init, one absorb of the whole row, squeeze.
// Rows are read through a cursor, one element at a time, and every state
// index is a compile-time constant, so sponge states stay in registers on
// the device whatever the row length, rate or digest.
#pragma once

#include <cstddef>
#include <cstdint>
#include <type_traits>

#include "hash/blake3.h"
#include "hash/keccak.h"
#include "hash/rp64.h"
#include "hash/rpo.h"
#include "hash/tip5.h"
#include "math/field.h"

namespace gp {

// A matrix as the tree reads it: base columns of `rows` contiguous
// elements, `stride` elements apart (rows, unless the view is a block of
// rows of a taller matrix).
template <class T>
struct MatView {
    const T *data;
    uint64_t rows;
    uint64_t base_cols;
    uint64_t stride;
};

// Base elements of one row of matrices [m0, m1).
template <class T>
GP_HD uint64_t row_length(const MatView<T> *mats, uint32_t m0, uint32_t m1) {
    uint64_t n = 0;
    for (uint32_t m = m0; m < m1; ++m) n += mats[m].base_cols;
    return n;
}

// Reads row `row` of matrices [m0, m1) element by element, in order.
template <class T>
struct RowCursor {
    const MatView<T> *mats;
    uint32_t m;
    uint64_t row, j;
    GP_HD RowCursor(const MatView<T> *v, uint32_t m0, uint64_t r) : mats(v), m(m0), row(r), j(0) {}
    GP_HD T next() {
        while (j == mats[m].base_cols) {  // skips matrices without columns
            j = 0;
            ++m;
        }
        const T x = mats[m].data[j * mats[m].stride + row];
        ++j;
        return x;
    }
};

// A hasher's leaf hash from its sponge pieces: init, absorb the whole row,
// squeeze (on a state of N words: H::kState, or more where a whole row
// needs more than a column batch).
template <class H, class T, int N = H::kState>
GP_HD void sponge_hash_row(const H &h, const MatView<T> *mats, uint32_t m0, uint32_t m1, uint64_t row,
                           typename H::W *out) {
    typename H::S s[N];
    const uint64_t n = row_length(mats, m0, m1);
    h.init(s, n);
    RowCursor<T> c(mats, m0, row);
    h.absorb(s, c, n, n);
    h.squeeze(s, out);
}

// ---- Plonky3 PaddingFreeSponge (overwrite mode) + TruncatedPermutation ----

// Whether permutation type X runs on a Tw form (apply_tw, to_tw, from_tw;
// hash/permutations.h).
template <class X, class = void>
struct PermHasTw {
    static constexpr bool value = false;
};
template <class X>
struct PermHasTw<X, std::void_t<decltype(X::kTw)>> {
    static constexpr bool value = X::kTw;
};
// Into and out of X's working form, and X on it (the identity and
// X::apply where it has no Tw form).
template <class X>
GP_HD typename X::T perm_in(typename X::T v) {
    if constexpr (PermHasTw<X>::value) return X::to_tw(v);
    else return v;
}
template <class X>
GP_HD typename X::T perm_out(typename X::T v) {
    if constexpr (PermHasTw<X>::value) return X::from_tw(v);
    else return v;
}
template <class X>
GP_HD void perm_run(typename X::T *s) {
    if constexpr (PermHasTw<X>::value) X::apply_tw(s);
    else X::apply(s);
}

// P: the sponge's permutation; C: the compression's (Plonky3 may pair a
// wide sponge with a narrow compression). Where P has a Tw form the state
// stays in it from one permutation to the next (absorbed elements are
// converted as they enter, the digest as it leaves): the same bytes as the
// canonical state, with a conversion an absorbed element instead of two a
// state word and permutation. The compression converts its inputs and
// digest likewise.
template <class P, class C = P>
struct FieldSpongeHasher {
    using T = typename P::T;
    using W = T;
    static constexpr int kWidth = P::WIDTH;
    static constexpr int kCWidth = C::WIDTH;
    static constexpr uint32_t kMaxDigest = (P::WIDTH < C::WIDTH ? P::WIDTH : C::WIDTH) / 2;
    uint32_t rate, digest;

    using S = T;  // in P's Tw form where it has one
    static constexpr int kState = kWidth;
    GP_HD uint64_t block() const { return rate; }
    GP_HD void init(S *s, uint64_t) const {
        GP_UNROLL
        for (int k = 0; k < kWidth; ++k) s[k] = 0;
    }
    // Blocks of `rate` elements overwrite state[0, rate); a short last block
    // overwrites only its own elements.
    template <class Cursor>
    GP_HD void absorb(S *s, Cursor &c, uint64_t left, uint64_t count) const {
        for (const uint64_t end = left - count; left > end;) {
            GP_UNROLL
            for (int k = 0; k < kWidth - 1; ++k)
                if ((uint32_t)k < rate && (uint64_t)k < left) s[k] = perm_in<P>(c.next());
            left -= left < rate ? left : rate;
            perm_run<P>(s);
        }
    }
    // out = state[0, digest).
    GP_HD void squeeze(const S *s, W *out) const {
        GP_UNROLL
        for (uint32_t k = 0; k < kMaxDigest; ++k)
            if (k < digest) out[k] = perm_out<P>(s[k]);
    }
    GP_HD void hash_row(const MatView<T> *mats, uint32_t m0, uint32_t m1, uint64_t row, W *out) const {
        sponge_hash_row(*this, mats, m0, m1, row, out);
    }

    // Permute (left || right || 0...), keep the first `digest` elements.
    GP_HD void compress(const W *l, const W *r, W *out) const {
        T s[kCWidth];
        GP_UNROLL
        for (uint32_t k = 0; k < (uint32_t)kCWidth; ++k) {
            // digest <= kMaxDigest; the clamps only keep the reads provably in bounds.
            const uint32_t kl = k < kMaxDigest ? k : kMaxDigest - 1;
            const uint32_t kr = k - digest < kMaxDigest ? k - digest : kMaxDigest - 1;
            s[k] = perm_in<C>(k < digest ? l[kl] : k < 2 * digest ? r[kr] : 0);  // 0 stays 0
        }
        perm_run<C>(s);
        GP_UNROLL
        for (uint32_t k = 0; k < kMaxDigest; ++k)
            if (k < digest) out[k] = perm_out<C>(s[k]);
    }
};

// ---- miden-crypto Rpo256 / Rpx256 and winterfell Rp64_256 sponges (hash_elements + merge) ----

// The three sponge layouts miden-crypto has used (see rpo.h's header and
// shared/vectors/README.md), and winterfell's:
//   Head: rate [0, 8), capacity [8, 12), digest [0, 4); capacity[0] = n mod 8;
//         a block overwrites the rate, a short last block zero-filled
//         (v0.21 and later).
//   V11:  capacity [0, 4), rate [4, 12), digest [4, 8); otherwise as Head
//         (v0.11 to v0.20).
//   V10:  as V11, but capacity[0] = 1 when n mod 8 != 0 and a short last
//         block is padded with 1 then zeros (v0.10 and before).
//   Winterfell: as V11, but capacity[0] = n and the elements are added into
//         the rate (a short last block adds only its own): winter-crypto's
//         Rp64_256 (merge: capacity[0] = 8).
struct MidenLayoutHead {
    static constexpr int kRate = 0, kCapacity = 8, kDigest = 0;
    static constexpr bool kPadOne = false, kAdd = false;
};
struct MidenLayoutV11 {
    static constexpr int kRate = 4, kCapacity = 0, kDigest = 4;
    static constexpr bool kPadOne = false, kAdd = false;
};
struct MidenLayoutV10 {
    static constexpr int kRate = 4, kCapacity = 0, kDigest = 4;
    static constexpr bool kPadOne = true, kAdd = false;
};
struct WinterfellRpLayout {
    static constexpr int kRate = 4, kCapacity = 0, kDigest = 4;
    static constexpr bool kPadOne = false, kAdd = true;
};

template <class P, class L>
struct MidenHasher {
    using T = uint64_t;
    using W = uint64_t;
    static constexpr uint32_t kMaxDigest = 4;
    static constexpr int kRate = 8;
    uint32_t digest = 4;

    using S = uint64_t;
    static constexpr int kState = 12;
    GP_HD uint64_t block() const { return kRate; }
    GP_HD void init(S *s, uint64_t n) const {
        GP_UNROLL
        for (int k = 0; k < 12; ++k) s[k] = 0;
        const uint64_t tail = n % kRate;
        s[L::kCapacity] = L::kAdd ? n : L::kPadOne ? (tail != 0) : tail;
    }
    template <class Cursor>
    GP_HD void absorb(S *s, Cursor &c, uint64_t left, uint64_t count) const {
        for (const uint64_t end = left - count; left > end;) {
            GP_UNROLL
            for (int k = 0; k < kRate; ++k) {
                uint64_t &x = s[L::kRate + k];
                if (L::kAdd) x = (uint64_t)k < left ? Goldilocks::add(x, c.next()) : x;
                else x = (uint64_t)k < left ? c.next() : (L::kPadOne && (uint64_t)k == left) ? 1 : 0;
            }
            left -= left < kRate ? left : kRate;
            P::apply(s);
        }
    }
    GP_HD void squeeze(const S *s, W *out) const {
        GP_UNROLL
        for (int k = 0; k < 4; ++k) out[k] = s[L::kDigest + k];
    }
    // hash_elements(row); an empty row gives the zero digest.
    GP_HD void hash_row(const MatView<T> *mats, uint32_t m0, uint32_t m1, uint64_t row, W *out) const {
        sponge_hash_row(*this, mats, m0, m1, row, out);
    }

    // merge(l, r) = hash of the 8 elements l || r (one block: capacity zero,
    // or 8 in winterfell's layout).
    GP_HD void compress(const W *l, const W *r, W *out) const {
        T s[12];
        init(s, 2 * 4);
        GP_UNROLL
        for (int k = 0; k < 4; ++k) {
            s[L::kRate + k] = l[k];
            s[L::kRate + 4 + k] = r[k];
        }
        P::apply(s);
        GP_UNROLL
        for (int k = 0; k < 4; ++k) out[k] = s[L::kDigest + k];
    }
};

struct RpoApply {
    GP_HD static void apply(uint64_t s[12]) { rpo256_permute(s); }
};
struct RpxApply {
    GP_HD static void apply(uint64_t s[12]) { rpx256_permute(s); }
};
struct Rp64Apply {
    GP_HD static void apply(uint64_t s[12]) { rp64_256_permute(s); }
};
// winter-crypto's Rp64_256::hash_elements and merge.
using WinterfellRpHasher = MidenHasher<Rp64Apply, WinterfellRpLayout>;

// miden-crypto (v0.21+) Rpo256/Rpx256::hash_elements and merge on plain arrays.
GP_HD void rpo256_hash_elements(const uint64_t *in, size_t n, uint64_t out[4]) {
    const MatView<uint64_t> v{in, 1, n, 1};
    MidenHasher<RpoApply, MidenLayoutHead>{}.hash_row(&v, 0, 1, 0, out);
}
GP_HD void rpx256_hash_elements(const uint64_t *in, size_t n, uint64_t out[4]) {
    const MatView<uint64_t> v{in, 1, n, 1};
    MidenHasher<RpxApply, MidenLayoutHead>{}.hash_row(&v, 0, 1, 0, out);
}
GP_HD void rpo256_merge(const uint64_t a[4], const uint64_t b[4], uint64_t out[4]) {
    MidenHasher<RpoApply, MidenLayoutHead>{}.compress(a, b, out);
}
GP_HD void rpx256_merge(const uint64_t a[4], const uint64_t b[4], uint64_t out[4]) {
    MidenHasher<RpxApply, MidenLayoutHead>{}.compress(a, b, out);
}

// ---- Keccak-256 byte trees ----

// How a field element becomes bytes before Keccak-256:
//   Plonky3: little-endian, Goldilocks canonical (8 bytes), BabyBear and
//            KoalaBear in Montgomery form x * 2^32 mod p (4 bytes), as its
//            SerializingHasher writes them.
//   BigEndian: the canonical value big-endian (lambdaworks' Goldilocks
//            FieldElement::as_bytes, Lambda VM). Used for Goldilocks only:
//            lambdaworks writes 31-bit base fields in Montgomery form but
//            their extensions canonically, which a column buffer cannot tell
//            apart.
enum class ByteEncoding { Plonky3, BigEndian };

GP_HD uint64_t bswap64(uint64_t x) {
#if defined(__CUDA_ARCH__)
    uint32_t lo = __byte_perm((uint32_t)x, 0, 0x0123), hi = __byte_perm((uint32_t)(x >> 32), 0, 0x0123);
    return ((uint64_t)lo << 32) | hi;
#else
    return __builtin_bswap64(x);
#endif
}
GP_HD uint32_t bswap32(uint32_t x) {
#if defined(__CUDA_ARCH__)
    return __byte_perm(x, 0, 0x0123);
#else
    return __builtin_bswap32(x);
#endif
}

// Domain: the first padding byte, 0x01 for Keccak-256 (Plonky3, lambdaworks)
// or 0x06 for SHA3-256 (winter-crypto's Sha3_256 over canonical little-endian
// Goldilocks: ByteEncoding::Plonky3's bytes).
template <class F, ByteEncoding E, uint8_t Domain = 0x01>
struct KeccakHasher {
    using T = typename F::T;
    using W = uint64_t;  // a digest is 4 lanes: its 32 bytes little-endian
    static constexpr uint32_t kMaxDigest = 4;
    static constexpr int kLanes = 17;  // 136-byte rate
    static constexpr int kPerLane = 8 / (int)sizeof(T);
    uint32_t digest = 4;

    // The bytes of x as they appear in the message, read as a little-endian
    // integer of sizeof(T) bytes.
    GP_HD static T encode(T x) {
        if (E == ByteEncoding::BigEndian) {
            if (sizeof(T) == 8) return (T)bswap64((uint64_t)x);
            return (T)bswap32((uint32_t)x);
        }
        if (sizeof(T) == 4) return (T)F::to_tw(x);  // Montgomery form
        return x;
    }

    using S = uint64_t;
    static constexpr int kState = 25;
    static constexpr uint64_t kBlock = kLanes * kPerLane;  // elements per block
    GP_HD uint64_t block() const { return kBlock; }
    GP_HD void init(S *s, uint64_t) const {
        GP_UNROLL
        for (int k = 0; k < 25; ++k) s[k] = 0;
    }
    // keccak256 of the row's bytes: 136-byte blocks, then the padding block
    // (Domain after the message, 0x80 in the block's last byte).
    template <class Cursor>
    GP_HD void absorb(S *s, Cursor &c, uint64_t left, uint64_t count) const {
        const uint64_t end = left - count;
        for (;; left -= kBlock) {
            if (end != 0 && left == end) break;
            const bool last = left < kBlock;  // only when end == 0
            GP_UNROLL
            for (int k = 0; k < kLanes; ++k) {
                uint64_t lane = 0;
                GP_UNROLL
                for (int h = 0; h < kPerLane; ++h) {
                    const uint64_t e = (uint64_t)(k * kPerLane + h);
                    const uint64_t v = e < left ? (uint64_t)encode(c.next()) : e == left ? Domain : 0;
                    lane |= v << (8 * sizeof(T) * h);
                }
                s[k] ^= lane;
            }
            if (last) s[kLanes - 1] ^= 0x80ull << 56;
            keccak_f1600(s);
            if (last) break;
        }
    }
    GP_HD void squeeze(const S *s, W *out) const {
        GP_UNROLL
        for (int k = 0; k < 4; ++k) out[k] = s[k];
    }
    GP_HD void hash_row(const MatView<T> *mats, uint32_t m0, uint32_t m1, uint64_t row, W *out) const {
        sponge_hash_row(*this, mats, m0, m1, row, out);
    }

    GP_HD void compress(const W *l, const W *r, W *out) const { keccak256_pair_lanes(l, r, out, Domain); }
};
// winter-crypto's Sha3_256 over Goldilocks: hash_elements = SHA3-256 of the
// canonical little-endian bytes, merge = SHA3-256(left || right).
using WinterfellSha3Hasher = KeccakHasher<Goldilocks, ByteEncoding::Plonky3, 0x06>;

// ---- Plonky3's Keccak-f sponge over u64 lanes ----

// SerializingHasher over PaddingFreeSponge<KeccakF, 25, 17, 4>, with
// CompressionFunctionFromHasher<that sponge, 2, 4>: the row's elements
// become 64-bit lanes (Goldilocks: one canonical element per lane; BabyBear
// and KoalaBear: two elements per lane in Montgomery form, the first in the
// low half, a last odd element alone), which overwrite the first 17 lanes of
// the state block by block, Keccak-f[1600] after each; the digest is lanes
// 0..3. A node hashes the 8 lanes of left || right the same way (one block).
template <class F>
struct KeccakLaneHasher {
    using T = typename F::T;
    using W = uint64_t;
    static constexpr uint32_t kMaxDigest = 4;
    static constexpr int kRate = 17;
    static constexpr int kPerLane = 8 / (int)sizeof(T);
    uint32_t digest = 4;

    GP_HD static uint64_t word(T x) {
        if (sizeof(T) == 4) return (uint64_t)(uint32_t)F::to_tw(x);  // Montgomery form
        return (uint64_t)x;
    }

    using S = uint64_t;
    static constexpr int kState = 25;
    GP_HD uint64_t block() const { return (uint64_t)kRate * kPerLane; }
    GP_HD void init(S *s, uint64_t) const {
        GP_UNROLL
        for (int k = 0; k < 25; ++k) s[k] = 0;
    }
    template <class Cursor>
    GP_HD void absorb(S *s, Cursor &c, uint64_t left, uint64_t count) const {
        for (const uint64_t end = left - count; left > end;) {
            GP_UNROLL
            for (int k = 0; k < kRate; ++k) {
                if (left == 0) break;
                uint64_t lane = word(c.next());
                --left;
                if (kPerLane == 2 && left > 0) {
                    lane |= word(c.next()) << 32;
                    --left;
                }
                s[k] = lane;
            }
            keccak_f1600(s);
        }
    }
    GP_HD void squeeze(const S *s, W *out) const {
        GP_UNROLL
        for (int k = 0; k < 4; ++k) out[k] = s[k];
    }
    GP_HD void hash_row(const MatView<T> *mats, uint32_t m0, uint32_t m1, uint64_t row, W *out) const {
        sponge_hash_row(*this, mats, m0, m1, row, out);
    }

    GP_HD void compress(const W *l, const W *r, W *out) const {
        uint64_t s[25];
        GP_UNROLL
        for (int k = 0; k < 25; ++k) s[k] = k < 4 ? l[k] : k < 8 ? r[k - 4] : 0;
        keccak_f1600(s);
        GP_UNROLL
        for (int k = 0; k < 4; ++k) out[k] = s[k];
    }
};

// ---- Triton VM / twenty-first: the Tip5 Merkle tree ----

// twenty-first's MerkleTree as Triton VM commits its tables: leaf =
// Tip5::hash_varlen of the row (every matrix's row concatenated, extension
// elements as their coefficients), node = Tip5::hash_pair(left, right).
struct TritonTip5Hasher {
    using T = uint64_t;
    using W = uint64_t;
    static constexpr uint32_t kMaxDigest = 5;
    uint32_t digest = 5;

    using S = uint64_t;
    static constexpr int kState = 16;
    GP_HD uint64_t block() const { return 10; }
    GP_HD void init(S *s, uint64_t) const {
        for (int k = 0; k < 16; ++k) s[k] = 0;
    }
    template <class Cursor>
    GP_HD void absorb(S *s, Cursor &c, uint64_t left, uint64_t count) const {
        tip5_varlen_absorb(s, c, left, count);
    }
    GP_HD void squeeze(const S *s, W *out) const {
        for (int k = 0; k < 5; ++k) out[k] = s[k];
    }
    GP_HD void hash_row(const MatView<T> *mats, uint32_t m0, uint32_t m1, uint64_t row, W *out) const {
        sponge_hash_row(*this, mats, m0, m1, row, out);
    }
    GP_HD void compress(const W *l, const W *r, W *out) const { tip5_hash_pair(l, r, out); }
};

// ---- Miden's lifted MMCS (miden-vm crates/lifted-stark, stateful-hasher) ----

// StatefulSponge of width N and rate R over permutation P (zero start, no
// length tag): each matrix's row overwrites the rate R elements at a time,
// its last chunk zero-filled, one permutation per chunk; leaf = state[0..4].
// Leaf i reads row i mod h of a matrix of height h (lifting). Node = C's
// compression. The streamed pieces (init/absorb/squeeze) treat the row as
// one matrix; the streamed commitment refuses this kind.
//   Algebraic configurations: N = 12, R = 8 (capacity state[8..12]), node =
//   TruncatedPermutation (miden-crypto's merge).
//   Keccak: one canonical Goldilocks element per 64-bit lane, N = 25, R = 17
//   lanes, node = Keccak-f of left || right (Plonky3's u64 compression).
template <class P, int N, int R, class C>
struct MidenLmcsSponge {
    using T = uint64_t;
    using W = uint64_t;
    static constexpr uint32_t kMaxDigest = 4;
    static constexpr int kRate = R;
    uint32_t digest = 4;

    using S = uint64_t;
    static constexpr int kState = N;
    GP_HD uint64_t block() const { return kRate; }
    GP_HD void init(S *s, uint64_t) const {
        GP_UNROLL
        for (int k = 0; k < N; ++k) s[k] = 0;
    }
    template <class Cursor>
    GP_HD void absorb(S *s, Cursor &c, uint64_t left, uint64_t count) const {
        for (const uint64_t end = left - count; left > end;) {
            GP_UNROLL
            for (int k = 0; k < kRate; ++k) s[k] = (uint64_t)k < left ? c.next() : 0;
            left -= left < kRate ? left : kRate;
            P::apply(s);
        }
    }
    GP_HD void squeeze(const S *s, uint64_t *out) const {
        GP_UNROLL
        for (int k = 0; k < 4; ++k) out[k] = s[k];
    }
    GP_HD void hash_row(const MatView<T> *mats, uint32_t m0, uint32_t m1, uint64_t row, uint64_t *out) const {
        S s[N];
        init(s, 0);
        for (uint32_t m = m0; m < m1; ++m) {
            const MatView<T> &v = mats[m];
            const uint64_t r = row & (v.rows - 1);
            for (uint64_t j = 0; j < v.base_cols; j += kRate) {
                GP_UNROLL
                for (int k = 0; k < kRate; ++k) s[k] = j + k < v.base_cols ? v.data[(j + k) * v.stride + r] : 0;
                P::apply(s);
            }
        }
        squeeze(s, out);
    }
    GP_HD void compress(const uint64_t *l, const uint64_t *r, uint64_t *out) const { C{}.compress(l, r, out); }
};

struct KeccakApply {
    GP_HD static void apply(uint64_t *s) { keccak_f1600(s); }
};
template <class P>
using MidenLmcsHasher = MidenLmcsSponge<P, 12, 8, MidenHasher<P, MidenLayoutHead>>;
using MidenLmcsKeccakHasher = MidenLmcsSponge<KeccakApply, 25, 17, KeccakLaneHasher<Goldilocks>>;

// Miden's BLAKE3 configuration: ChainingHasher (a 32-byte state, zero at
// first; per matrix, state = BLAKE3(state || the row's elements as 8-byte
// little-endian words), a width-0 row too) and node = BLAKE3(left || right)
// (CompressionFunctionFromHasher). Digests are the 32 bytes as 4 words. The
// streamed pieces hash their whole input as one matrix row (the streamed
// commitment refuses this kind).
struct MidenLmcsBlake3Hasher {
    using T = uint64_t;
    using W = uint64_t;
    static constexpr uint32_t kMaxDigest = 4;
    uint32_t digest = 4;

    using S = uint64_t;
    static constexpr int kState = 4;
    GP_HD uint64_t block() const { return 1ull << 40; }
    GP_HD void init(S *s, uint64_t) const {
        for (int k = 0; k < 4; ++k) s[k] = 0;
    }
    GP_HD static void chain(S *s, blake3::Stream &b) {
        uint32_t out[8];
        b.finish(out);
        for (int k = 0; k < 4; ++k) s[k] = (uint64_t)out[2 * k] | ((uint64_t)out[2 * k + 1] << 32);
    }
    template <class Cursor>
    GP_HD void absorb(S *s, Cursor &c, uint64_t, uint64_t count) const {
        blake3::Stream b;
        b.init();
        for (int k = 0; k < 4; ++k) b.put_word(s[k]);
        for (uint64_t i = 0; i < count; ++i) b.put_word(c.next());
        chain(s, b);
    }
    GP_HD void squeeze(const S *s, W *out) const {
        for (int k = 0; k < 4; ++k) out[k] = s[k];
    }
    GP_HD void hash_row(const MatView<T> *mats, uint32_t m0, uint32_t m1, uint64_t row, W *out) const {
        S s[4] = {0, 0, 0, 0};
        for (uint32_t m = m0; m < m1; ++m) {
            const MatView<T> &v = mats[m];
            const uint64_t r = row & (v.rows - 1);
            blake3::Stream b;
            b.init();
            for (int k = 0; k < 4; ++k) b.put_word(s[k]);
            for (uint64_t j = 0; j < v.base_cols; ++j) b.put_word(v.data[j * v.stride + r]);
            chain(s, b);
        }
        squeeze(s, out);
    }
    GP_HD void compress(const W *l, const W *r, W *out) const {
        uint32_t blk[16], o[8];
        for (int k = 0; k < 4; ++k) {
            blk[2 * k] = (uint32_t)l[k];
            blk[2 * k + 1] = (uint32_t)(l[k] >> 32);
            blk[8 + 2 * k] = (uint32_t)r[k];
            blk[8 + 2 * k + 1] = (uint32_t)(r[k] >> 32);
        }
        blake3::hash_block(blk, o);
        for (int k = 0; k < 4; ++k) out[k] = (uint64_t)o[2 * k] | ((uint64_t)o[2 * k + 1] << 32);
    }
};

// ---- winter-crypto's Blake3_256 and Blake3_192 ----

// hash_elements = BLAKE3 of the row's canonical elements, 8 little-endian
// bytes each; merge = BLAKE3(left || right); Blake3_192 keeps the first 24
// bytes of each (Words = 3 digest words, else 4). The sponge pieces are
// BLAKE3's chunk tree over whole chunks of 128 elements (blake3::
// words_absorb); their state holds kStreamDepth chaining values, so the
// streamed commitment takes rows of at most kStreamRowLimit elements, while
// hash_row keeps blake3::kMaxDepth of them (rows up to 2^30 elements are
// validated).
template <uint32_t Words>
struct WinterfellBlake3Hasher {
    using T = uint64_t;
    using W = uint64_t;
    static constexpr uint32_t kMaxDigest = 4;
    static constexpr uint32_t digest = Words;  // a constant: the tree steps' loops see 3 words as such

    using S = uint64_t;
    static constexpr int kStreamDepth = 10;
    static constexpr int kState = 1 + 4 * kStreamDepth;
    static constexpr uint64_t kStreamRowLimit = blake3::kChunkWords << kStreamDepth;
    GP_HD uint64_t block() const { return blake3::kChunkWords; }
    GP_HD void init(S *s, uint64_t) const { s[0] = 0; }
    template <class Cursor>
    GP_HD void absorb(S *s, Cursor &c, uint64_t left, uint64_t count) const {
        blake3::words_absorb(s, c, left, count);
    }
    GP_HD void squeeze(const S *s, W *out) const {
        GP_UNROLL
        for (uint32_t k = 0; k < Words; ++k) out[k] = s[1 + k];
    }
    GP_HD void hash_row(const MatView<T> *mats, uint32_t m0, uint32_t m1, uint64_t row, W *out) const {
        sponge_hash_row<WinterfellBlake3Hasher, T, 1 + 4 * blake3::kMaxDepth>(*this, mats, m0, m1, row, out);
    }
    GP_HD void compress(const W *l, const W *r, W *out) const {
        uint32_t blk[16], o[8];
        GP_UNROLL
        for (int k = 0; k < 16; ++k) blk[k] = 0;
        GP_UNROLL
        for (uint32_t k = 0; k < Words; ++k) {
            blk[2 * k] = (uint32_t)l[k];
            blk[2 * k + 1] = (uint32_t)(l[k] >> 32);
            blk[2 * (Words + k)] = (uint32_t)r[k];
            blk[2 * (Words + k) + 1] = (uint32_t)(r[k] >> 32);
        }
        blake3::hash_block(blk, o, 16 * Words);
        GP_UNROLL
        for (uint32_t k = 0; k < Words; ++k) out[k] = (uint64_t)o[2 * k] | ((uint64_t)o[2 * k + 1] << 32);
    }
};

// twenty-first's MerkleTree over digests given as such (Triton VM's FRI
// rounds): the leaf is the row's elements themselves, zero-filled to 5
// (Digest::from(XFieldElement) = [c0, c1, c2, 0, 0]), no hashing; node =
// Tip5::hash_pair. Rows have at most 5 elements (validated); the state keeps
// the elements taken so far in s[5].
struct TritonDigestHasher {
    using T = uint64_t;
    using W = uint64_t;
    static constexpr uint32_t kMaxDigest = 5;
    uint32_t digest = 5;

    using S = uint64_t;
    static constexpr int kState = 6;
    GP_HD uint64_t block() const { return 5; }
    GP_HD void init(S *s, uint64_t) const {
        for (int k = 0; k < 6; ++k) s[k] = 0;
    }
    template <class Cursor>
    GP_HD void absorb(S *s, Cursor &c, uint64_t, uint64_t count) const {
        for (uint64_t i = 0; i < count; ++i) {
            const uint64_t x = c.next();
            if (s[5] < 5) s[s[5]] = x;
            ++s[5];
        }
    }
    GP_HD void squeeze(const S *s, W *out) const {
        for (int k = 0; k < 5; ++k) out[k] = s[k];
    }
    GP_HD void hash_row(const MatView<T> *mats, uint32_t m0, uint32_t m1, uint64_t row, W *out) const {
        sponge_hash_row(*this, mats, m0, m1, row, out);
    }
    GP_HD void compress(const W *l, const W *r, W *out) const { tip5_hash_pair(l, r, out); }
};

}  // namespace gp
