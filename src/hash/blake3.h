// SPDX-License-Identifier: MIT OR Apache-2.0
// BLAKE3 (hash mode, 32-byte output), written once for host and device,
// from the BLAKE3 specification (BLAKE3-team/BLAKE3, blake3.pdf): the
// compression function (7 rounds of G over a 4x4 state of 32-bit words,
// SHA-256's IV, the fixed message permutation), 1024-byte chunks of 64-byte
// blocks with CHUNK_START / CHUNK_END, chunk chaining values merged into a
// left-balanced binary tree of PARENT nodes, ROOT on the last compression.
// Checked against the upstream test vectors (tests/vectors/blake3.json).
//
// Blake3Stream takes its input as bytes or as whole 8-byte little-endian
// words (the library's Goldilocks elements, which keep the block aligned).
// words_absorb hashes a message of whole words in pieces of whole chunks,
// with the chunk tree's stack kept in caller-owned words between pieces
// (the streamed leaf hash of winterfell's trees).
#pragma once

#include <cstdint>

#include "math/field.h"  // GP_HD

namespace gp {
namespace blake3 {

enum : uint32_t { kChunkStart = 1, kChunkEnd = 2, kParent = 4, kRoot = 8 };
constexpr uint32_t kBlockLen = 64, kChunkLen = 1024;
constexpr int kMaxDepth = 24;  // chunk tree levels held: rows up to 2^24 chunks

GP_HD uint32_t iv(int i) {
    switch (i) {
        case 0: return 0x6A09E667u;
        case 1: return 0xBB67AE85u;
        case 2: return 0x3C6EF372u;
        case 3: return 0xA54FF53Au;
        case 4: return 0x510E527Fu;
        case 5: return 0x9B05688Cu;
        case 6: return 0x1F83D9ABu;
        default: return 0x5BE0CD19u;
    }
}

GP_HD uint32_t rotr(uint32_t x, int n) { return (x >> n) | (x << (32 - n)); }

GP_HD void g(uint32_t *s, int a, int b, int c, int d, uint32_t mx, uint32_t my) {
    s[a] = s[a] + s[b] + mx;
    s[d] = rotr(s[d] ^ s[a], 16);
    s[c] = s[c] + s[d];
    s[b] = rotr(s[b] ^ s[c], 12);
    s[a] = s[a] + s[b] + my;
    s[d] = rotr(s[d] ^ s[a], 8);
    s[c] = s[c] + s[d];
    s[b] = rotr(s[b] ^ s[c], 7);
}

// The compression function's first 8 output words (a chaining value, or
// the 32-byte hash at the root).
GP_HD void compress(const uint32_t cv[8], const uint32_t block[16], uint64_t counter, uint32_t len,
                           uint32_t flags, uint32_t out[8]) {
    uint32_t s[16], m[16];
    GP_UNROLL
    for (int i = 0; i < 8; ++i) s[i] = cv[i];
    GP_UNROLL
    for (int i = 0; i < 4; ++i) s[8 + i] = iv(i);
    s[12] = (uint32_t)counter;
    s[13] = (uint32_t)(counter >> 32);
    s[14] = len;
    s[15] = flags;
    GP_UNROLL
    for (int i = 0; i < 16; ++i) m[i] = block[i];
    GP_UNROLL
    for (int r = 0; r < 7; ++r) {
        g(s, 0, 4, 8, 12, m[0], m[1]);
        g(s, 1, 5, 9, 13, m[2], m[3]);
        g(s, 2, 6, 10, 14, m[4], m[5]);
        g(s, 3, 7, 11, 15, m[6], m[7]);
        g(s, 0, 5, 10, 15, m[8], m[9]);
        g(s, 1, 6, 11, 12, m[10], m[11]);
        g(s, 2, 7, 8, 13, m[12], m[13]);
        g(s, 3, 4, 9, 14, m[14], m[15]);
        // The message permutation 2, 6, 3, 10, 7, 0, 4, 13, 1, 11, 12, 5, 9, 14, 15, 8.
        const uint32_t t[16] = {m[2], m[6],  m[3],  m[10], m[7],  m[0],  m[4],  m[13],
                                m[1], m[11], m[12], m[5],  m[9],  m[14], m[15], m[8]};
        GP_UNROLL
        for (int i = 0; i < 16; ++i) m[i] = t[i];
    }
    GP_UNROLL
    for (int i = 0; i < 8; ++i) out[i] = s[i] ^ s[i + 8];
}

// The hash of at most 64 bytes (one block of one chunk, zero past `len`):
// a Merkle node of two 32-byte (or 24-byte) digests.
GP_HD void hash_block(const uint32_t block[16], uint32_t out[8], uint32_t len = kBlockLen) {
    uint32_t key[8];
    GP_UNROLL
    for (int i = 0; i < 8; ++i) key[i] = iv(i);
    compress(key, block, 0, len, kChunkStart | kChunkEnd | kRoot, out);
}

// The chaining value of a parent node (with kRoot in `flags`, the hash).
// `out` may alias `l` or `r`.
GP_HD void parent(const uint32_t l[8], const uint32_t r[8], uint32_t flags, uint32_t out[8]) {
    uint32_t pb[16], key[8];
    GP_UNROLL
    for (int i = 0; i < 8; ++i) {
        pb[i] = l[i];
        pb[8 + i] = r[i];
        key[i] = iv(i);
    }
    compress(key, pb, 0, kBlockLen, kParent | flags, out);
}

// Incremental hash of one message.
struct Stream {
    uint32_t cv[8];
    uint32_t block[16];
    uint32_t block_len;  // bytes held in `block`
    uint32_t blocks;     // blocks of this chunk compressed
    uint64_t chunk;      // this chunk's index
    uint32_t stack[kMaxDepth][8];
    uint32_t depth;

    GP_HD void init() {
        for (int i = 0; i < 8; ++i) cv[i] = iv(i);
        for (int i = 0; i < 16; ++i) block[i] = 0;
        block_len = blocks = depth = 0;
        chunk = 0;
    }
    // Makes room for more input: compresses a full block, or finishes a
    // full chunk and merges its chaining value into the tree.
    GP_HD void make_room() {
        if (block_len < kBlockLen) return;
        const uint32_t start = blocks == 0 ? (uint32_t)kChunkStart : 0u;
        if (blocks + 1 < kChunkLen / kBlockLen) {
            compress(cv, block, chunk, kBlockLen, start, cv);
            ++blocks;
        } else {
            uint32_t out[8];
            compress(cv, block, chunk, kBlockLen, start | kChunkEnd, out);
            uint64_t total = ++chunk;
            while ((total & 1) == 0 && depth > 0) {  // merge completed subtrees
                parent(stack[depth - 1], out, 0, out);
                --depth;
                total >>= 1;
            }
            for (int i = 0; i < 8; ++i) stack[depth][i] = out[i];
            ++depth;
            for (int i = 0; i < 8; ++i) cv[i] = iv(i);
            blocks = 0;
        }
        for (int i = 0; i < 16; ++i) block[i] = 0;
        block_len = 0;
    }
    GP_HD void put_byte(uint8_t b) {
        make_room();
        block[block_len / 4] |= (uint32_t)b << (8 * (block_len % 4));
        ++block_len;
    }
    // Eight bytes, little-endian; the input so far must be a whole number
    // of words (block_len a multiple of 8).
    GP_HD void put_word(uint64_t w) {
        make_room();
        block[block_len / 4] = (uint32_t)w;
        block[block_len / 4 + 1] = (uint32_t)(w >> 32);
        block_len += 8;
    }
    GP_HD void finish(uint32_t out[8]) {
        const uint32_t flags = (blocks == 0 ? (uint32_t)kChunkStart : 0u) | kChunkEnd;
        if (depth == 0) {
            compress(cv, block, chunk, block_len, flags | kRoot, out);
            return;
        }
        uint32_t o[8];
        compress(cv, block, chunk, block_len, flags, o);
        for (int d = (int)depth - 1; d >= 0; --d) parent(stack[d], o, d == 0 ? (uint32_t)kRoot : 0u, o);
        for (int i = 0; i < 8; ++i) out[i] = o[i];
    }
};

// ---- A message of whole 8-byte words, hashed in pieces of whole chunks ----
//
// The streamed leaf hash keeps this state per row between column batches,
// as 64-bit words s[]: s[0] counts the chunks finished so far; the
// chaining values of the complete subtrees (the specification's stack,
// popcount(s[0]) of them, merged as soon as a chunk completes one) are at
// s[1 + 4d .. 5 + 4d), eight 32-bit words as four little-endian pairs. The
// stack holds at most `depth` values, so a message of up to 2^depth chunks
// (kChunkWords << depth words) fits in 1 + 4 * depth words.

constexpr uint64_t kChunkWords = kChunkLen / 8;  // 8-byte words per chunk

GP_HD uint32_t popcount64(uint64_t x) {
#if defined(__CUDA_ARCH__)
    return (uint32_t)__popcll((unsigned long long)x);
#else
    return (uint32_t)__builtin_popcountll(x);
#endif
}

GP_HD void load_cv(const uint64_t *w, uint32_t cv[8]) {
    for (int k = 0; k < 4; ++k) {
        cv[2 * k] = (uint32_t)w[k];
        cv[2 * k + 1] = (uint32_t)(w[k] >> 32);
    }
}

GP_HD void store_cv(const uint32_t cv[8], uint64_t *w) {
    for (int k = 0; k < 4; ++k) w[k] = (uint64_t)cv[2 * k] | ((uint64_t)cv[2 * k + 1] << 32);
}

// The output of chunk `chunk` holding the next `words` words of cursor c
// (at most kChunkWords; 0 only for the empty message), `flags` (kRoot)
// added to its last block.
template <class Cursor>
GP_HD void words_chunk(Cursor &c, uint64_t words, uint64_t chunk, uint32_t flags, uint32_t out[8]) {
    GP_UNROLL
    for (int i = 0; i < 8; ++i) out[i] = iv(i);
    const uint64_t blocks = words == 0 ? 1 : (words + 7) / 8;
    for (uint64_t b = 0; b < blocks; ++b) {
        const uint64_t m = b + 1 < blocks ? 8 : words - 8 * b;  // words of this block
        uint32_t blk[16];
        GP_UNROLL
        for (int j = 0; j < 8; ++j) {
            const uint64_t w = (uint64_t)j < m ? c.next() : 0;
            blk[2 * j] = (uint32_t)w;
            blk[2 * j + 1] = (uint32_t)(w >> 32);
        }
        const uint32_t f = (b == 0 ? (uint32_t)kChunkStart : 0u) | (b + 1 == blocks ? kChunkEnd | flags : 0u);
        compress(out, blk, chunk, (uint32_t)(8 * m), f, out);
    }
}

// Absorbs the next `count` words of cursor c into state s, `left` words of
// the message being still to come (this piece's included). A piece with
// count < left is a whole number of chunks; count == left finishes the
// message (an empty one too) and leaves its 32-byte hash in s[1..5).
template <class Cursor>
GP_HD void words_absorb(uint64_t *s, Cursor &c, uint64_t left, uint64_t count) {
    const bool last = count == left;
    uint64_t rest = count;
    for (; rest > kChunkWords || (!last && rest == kChunkWords); rest -= kChunkWords) {
        uint32_t cv[8], l[8];
        words_chunk(c, kChunkWords, s[0], 0, cv);
        uint64_t total = ++s[0];
        uint32_t depth = popcount64(total - 1);
        for (; (total & 1) == 0; total >>= 1) {  // merge the subtrees this chunk completes
            load_cv(s + 1 + 4 * --depth, l);
            parent(l, cv, 0, cv);
        }
        store_cv(cv, s + 1 + 4 * depth);
    }
    if (!last) return;
    uint32_t depth = popcount64(s[0]), o[8], l[8];
    words_chunk(c, rest, s[0], depth == 0 ? (uint32_t)kRoot : 0u, o);
    while (depth > 0) {
        load_cv(s + 1 + 4 * --depth, l);
        parent(l, o, depth == 0 ? (uint32_t)kRoot : 0u, o);
    }
    store_cv(o, s + 1);
}

}  // namespace blake3
}  // namespace gp
