// SPDX-License-Identifier: MIT OR Apache-2.0
// Keccak-f[1600] and the Keccak-256 sponge (rate 136 bytes, capacity 512
// bits, 32-byte output), written once for host and device.
//
// keccak256 uses the original Keccak padding (domain byte 0x01, final bit
// 0x80), as Ethereum, tiny-keccak's Keccak::v256 and Plonky3's
// Keccak256Hash do; sha3_256 is the FIPS 202 variant (domain byte 0x06).
// Lanes are little-endian: byte i of a block is byte (i % 8) of lane i / 8;
// lane (x, y) is state[x + 5 * y].
#pragma once

#include <cstddef>
#include <cstdint>

#include "math/field.h"  // GP_HD

#define GP_KECCAK_RC_INIT                                                                  \
    {                                                                                      \
        0x0000000000000001ull, 0x0000000000008082ull, 0x800000000000808aull,               \
            0x8000000080008000ull, 0x000000000000808bull, 0x0000000080000001ull,           \
            0x8000000080008081ull, 0x8000000000008009ull, 0x000000000000008aull,           \
            0x0000000000000088ull, 0x0000000080008009ull, 0x000000008000000aull,           \
            0x000000008000808bull, 0x800000000000008bull, 0x8000000000008089ull,           \
            0x8000000000008003ull, 0x8000000000008002ull, 0x8000000000000080ull,           \
            0x000000000000800aull, 0x800000008000000aull, 0x8000000080008081ull,           \
            0x8000000000008080ull, 0x0000000080000001ull, 0x8000000080008008ull,           \
    }

namespace gp {

struct KeccakConstants {
    static constexpr int kRounds = 24;
    static constexpr size_t kRate256 = 136;  // bytes, for 256-bit output
    // Iota round constants (FIPS 202, rc(t) LFSR; the tests re-derive them).
    static constexpr uint64_t kRoundConstants[24] = GP_KECCAK_RC_INIT;
};

#if defined(__CUDACC__)
namespace keccak_device {
static __constant__ const uint64_t kRoundConstants[24] = GP_KECCAK_RC_INIT;
}  // namespace keccak_device
#endif

#undef GP_KECCAK_RC_INIT

namespace keccak_detail {

GP_HD uint64_t round_constant(int r) {
    return GP_TABLE(KeccakConstants::kRoundConstants[r], keccak_device::kRoundConstants[r]);
}

template <int N>
GP_HD uint64_t rotl(uint64_t v) {
    return N == 0 ? v : ((v << (N & 63)) | (v >> ((64 - N) & 63)));
}

GP_HD uint64_t load_le64(const uint8_t *p) {
    uint64_t v = 0;
    GP_UNROLL
    for (int k = 0; k < 8; ++k) v |= (uint64_t)p[k] << (8 * k);
    return v;
}

GP_HD void store_le64(uint8_t *p, uint64_t v) {
    GP_UNROLL
    for (int k = 0; k < 8; ++k) p[k] = (uint8_t)(v >> (8 * k));
}

}  // namespace keccak_detail

// The loop over the 24 rounds stays rolled in device code (GP_ROLLED): a
// round is about 200 instructions, the expanded permutation 4k, and kernels
// running it stalled on instruction fetch (rolled, Merkle leaf hashing ran
// 1.35x faster on the H200).

// Keccak-f[1600], in place, on 25 lanes a[x + 5 * y].
GP_HD void keccak_f1600(uint64_t a[25]) {
    using keccak_detail::rotl;
    GP_ROLLED
    for (int round = 0; round < KeccakConstants::kRounds; ++round) {
        // theta
        uint64_t c[5], d[5];
        GP_UNROLL
        for (int x = 0; x < 5; ++x) c[x] = a[x] ^ a[x + 5] ^ a[x + 10] ^ a[x + 15] ^ a[x + 20];
        GP_UNROLL
        for (int x = 0; x < 5; ++x) d[x] = c[(x + 4) % 5] ^ rotl<1>(c[(x + 1) % 5]);
        GP_UNROLL
        for (int i = 0; i < 25; ++i) a[i] ^= d[i % 5];
        // rho and pi: lane (x, y) rotated by its offset moves to (y, 2x + 3y).
        uint64_t b[25];
#define GP_KECCAK_RHO_PI(x, y, r) b[(y) + 5 * ((2 * (x) + 3 * (y)) % 5)] = rotl<r>(a[(x) + 5 * (y)])
        GP_KECCAK_RHO_PI(0, 0, 0);
        GP_KECCAK_RHO_PI(1, 0, 1);
        GP_KECCAK_RHO_PI(2, 0, 62);
        GP_KECCAK_RHO_PI(3, 0, 28);
        GP_KECCAK_RHO_PI(4, 0, 27);
        GP_KECCAK_RHO_PI(0, 1, 36);
        GP_KECCAK_RHO_PI(1, 1, 44);
        GP_KECCAK_RHO_PI(2, 1, 6);
        GP_KECCAK_RHO_PI(3, 1, 55);
        GP_KECCAK_RHO_PI(4, 1, 20);
        GP_KECCAK_RHO_PI(0, 2, 3);
        GP_KECCAK_RHO_PI(1, 2, 10);
        GP_KECCAK_RHO_PI(2, 2, 43);
        GP_KECCAK_RHO_PI(3, 2, 25);
        GP_KECCAK_RHO_PI(4, 2, 39);
        GP_KECCAK_RHO_PI(0, 3, 41);
        GP_KECCAK_RHO_PI(1, 3, 45);
        GP_KECCAK_RHO_PI(2, 3, 15);
        GP_KECCAK_RHO_PI(3, 3, 21);
        GP_KECCAK_RHO_PI(4, 3, 8);
        GP_KECCAK_RHO_PI(0, 4, 18);
        GP_KECCAK_RHO_PI(1, 4, 2);
        GP_KECCAK_RHO_PI(2, 4, 61);
        GP_KECCAK_RHO_PI(3, 4, 56);
        GP_KECCAK_RHO_PI(4, 4, 14);
#undef GP_KECCAK_RHO_PI
        // chi
        GP_UNROLL
        for (int y = 0; y < 25; y += 5) {
            GP_UNROLL
            for (int x = 0; x < 5; ++x)
                a[y + x] = b[y + x] ^ (~b[y + (x + 1) % 5] & b[y + (x + 2) % 5]);
        }
        // iota
        a[0] ^= keccak_detail::round_constant(round);
    }
}

// Keccak sponge with a 136-byte rate and 32-byte output; `domain` is the
// first padding byte (0x01 Keccak, 0x06 SHA3), the last byte of the final
// block gets 0x80 (both may be the same byte). `out` may alias `msg`.
GP_HD void keccak_256_with_domain(const uint8_t *msg, size_t len, uint8_t domain, uint8_t out[32]) {
    constexpr size_t rate = KeccakConstants::kRate256;
    uint64_t s[25];
    for (int i = 0; i < 25; ++i) s[i] = 0;
    for (; len >= rate; msg += rate, len -= rate) {
        for (int k = 0; k < (int)(rate / 8); ++k) s[k] ^= keccak_detail::load_le64(msg + 8 * k);
        keccak_f1600(s);
    }
    for (size_t i = 0; i < len; ++i) s[i / 8] ^= (uint64_t)msg[i] << (8 * (i % 8));
    s[len / 8] ^= (uint64_t)domain << (8 * (len % 8));
    s[(rate - 1) / 8] ^= 0x80ull << 56;
    keccak_f1600(s);
    for (int k = 0; k < 4; ++k) keccak_detail::store_le64(out + 8 * k, s[k]);
}

// Keccak-256 (Ethereum / tiny-keccak v256 / Plonky3 Keccak256Hash).
GP_HD void keccak256(const uint8_t *msg, size_t len, uint8_t out[32]) {
    keccak_256_with_domain(msg, len, 0x01, out);
}

// SHA3-256 (FIPS 202); differs from keccak256 only in the domain byte.
GP_HD void sha3_256(const uint8_t *msg, size_t len, uint8_t out[32]) {
    keccak_256_with_domain(msg, len, 0x06, out);
}

// keccak256(left || right) of two 32-byte digests held as 4 little-endian
// lanes each (Merkle nodes, as Plonky3's CompressionFunctionFromHasher over
// Keccak256Hash); with domain 0x06, SHA3-256(left || right) (winter-crypto's
// Sha3_256::merge). One block. `out` may alias `left` or `right`.
GP_HD void keccak256_pair_lanes(const uint64_t left[4], const uint64_t right[4], uint64_t out[4],
                                uint8_t domain = 0x01) {
    uint64_t s[25];
    GP_UNROLL
    for (int k = 0; k < 4; ++k) {
        s[k] = left[k];
        s[4 + k] = right[k];
    }
    GP_UNROLL
    for (int k = 8; k < 25; ++k) s[k] = 0;
    s[8] = domain;          // domain byte at byte offset 64
    s[16] = 0x80ull << 56;  // final bit at byte offset 135
    keccak_f1600(s);
    GP_UNROLL
    for (int k = 0; k < 4; ++k) out[k] = s[k];
}

// The same on 32-byte strings.
GP_HD void keccak256_pair(const uint8_t left[32], const uint8_t right[32], uint8_t out[32]) {
    uint64_t l[4], r[4];
    for (int k = 0; k < 4; ++k) {
        l[k] = keccak_detail::load_le64(left + 8 * k);
        r[k] = keccak_detail::load_le64(right + 8 * k);
    }
    keccak256_pair_lanes(l, r, l);
    for (int k = 0; k < 4; ++k) keccak_detail::store_le64(out + 8 * k, l[k]);
}

}  // namespace gp
