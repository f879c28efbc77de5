// SPDX-License-Identifier: MIT OR Apache-2.0
// gp_permute_batch on the CPU backend: every gp_permutation maps to the
// intended instance (checked against the header implementations, which the
// known-answer tests pin to the reference vectors), and bad input is refused.
#include <gtest/gtest.h>

#include <cstring>
#include <vector>

#include "hash/permutations.h"
#include "test_util.h"

using namespace gpt;

namespace {

const gp_permutation kAll[] = {
    GP_PERM_POSEIDON2_GOLDILOCKS_8,  GP_PERM_POSEIDON2_GOLDILOCKS_12, GP_PERM_POSEIDON2_GOLDILOCKS_16,
    GP_PERM_POSEIDON2_GOLDILOCKS_HL_8, GP_PERM_POSEIDON2_BABYBEAR_16, GP_PERM_POSEIDON2_BABYBEAR_24,
    GP_PERM_POSEIDON2_KOALABEAR_16,  GP_PERM_POSEIDON2_KOALABEAR_24, GP_PERM_RPO256,
    GP_PERM_RPX256,                  GP_PERM_POSEIDON_GOLDILOCKS_12,  GP_PERM_TIP5,
    GP_PERM_KECCAK_F1600,            GP_PERM_POSEIDON2_BABYBEAR_32,   GP_PERM_POSEIDON2_KOALABEAR_32,
    GP_PERM_POSEIDON2_BABYBEAR_HL_16, GP_PERM_POSEIDON2_BABYBEAR_HL_24, GP_PERM_POSEIDON2_GOLDILOCKS_HL_12,
    GP_PERM_RP64_256,                GP_PERM_POSEIDON2_KOALABEAR_16_SP1, GP_PERM_POSEIDON2_BABYBEAR_16_SP1};

struct Expect {
    gp_permutation id;
    uint32_t width;
    gp_field field;
};
const Expect kInfo[] = {
    {GP_PERM_POSEIDON2_GOLDILOCKS_8, 8, GP_FIELD_GOLDILOCKS},
    {GP_PERM_POSEIDON2_GOLDILOCKS_12, 12, GP_FIELD_GOLDILOCKS},
    {GP_PERM_POSEIDON2_GOLDILOCKS_16, 16, GP_FIELD_GOLDILOCKS},
    {GP_PERM_POSEIDON2_GOLDILOCKS_HL_8, 8, GP_FIELD_GOLDILOCKS},
    {GP_PERM_POSEIDON2_BABYBEAR_16, 16, GP_FIELD_BABYBEAR},
    {GP_PERM_POSEIDON2_BABYBEAR_24, 24, GP_FIELD_BABYBEAR},
    {GP_PERM_POSEIDON2_KOALABEAR_16, 16, GP_FIELD_KOALABEAR},
    {GP_PERM_POSEIDON2_KOALABEAR_24, 24, GP_FIELD_KOALABEAR},
    {GP_PERM_RPO256, 12, GP_FIELD_GOLDILOCKS},
    {GP_PERM_RPX256, 12, GP_FIELD_GOLDILOCKS},
    {GP_PERM_POSEIDON_GOLDILOCKS_12, 12, GP_FIELD_GOLDILOCKS},
    {GP_PERM_TIP5, 16, GP_FIELD_GOLDILOCKS},
    {GP_PERM_KECCAK_F1600, 25, (gp_field)0},
    {GP_PERM_POSEIDON2_BABYBEAR_32, 32, GP_FIELD_BABYBEAR},
    {GP_PERM_POSEIDON2_KOALABEAR_32, 32, GP_FIELD_KOALABEAR},
    {GP_PERM_POSEIDON2_BABYBEAR_HL_16, 16, GP_FIELD_BABYBEAR},
    {GP_PERM_POSEIDON2_BABYBEAR_HL_24, 24, GP_FIELD_BABYBEAR},
    {GP_PERM_POSEIDON2_GOLDILOCKS_HL_12, 12, GP_FIELD_GOLDILOCKS},
    {GP_PERM_RP64_256, 12, GP_FIELD_GOLDILOCKS},
    {GP_PERM_POSEIDON2_KOALABEAR_16_SP1, 16, GP_FIELD_KOALABEAR},
    {GP_PERM_POSEIDON2_BABYBEAR_16_SP1, 16, GP_FIELD_BABYBEAR},
};

// count random states of `perm` as raw bytes (canonical for field states).
std::vector<unsigned char> random_states(gp_permutation perm, uint64_t count, uint64_t seed) {
    uint32_t width = 0;
    gp_field field = (gp_field)0;
    EXPECT_EQ(gp_permutation_info(perm, &width, &field), GP_OK);
    uint64_t p = 0;
    if (field) gp_field_info(field, &p, nullptr, nullptr);
    uint32_t es = field ? gp_field_element_size(field) : 8;
    std::vector<unsigned char> v(count * width * es);
    Rng rng(seed);
    for (uint64_t i = 0; i < count * width; ++i) {
        uint64_t x = rng.next();
        if (field) x %= p;
        if (es == 8)
            std::memcpy(&v[i * 8], &x, 8);
        else {
            uint32_t y = (uint32_t)x;
            std::memcpy(&v[i * 4], &y, 4);
        }
    }
    return v;
}

// The same states permuted one at a time through the header.
std::vector<unsigned char> reference(gp_permutation perm, std::vector<unsigned char> v) {
    gp::perm::dispatch(perm, [&](auto P) {
        using Perm = decltype(P);
        using T = typename Perm::T;
        T *s = reinterpret_cast<T *>(v.data());
        uint64_t count = v.size() / (sizeof(T) * Perm::WIDTH);
        for (uint64_t i = 0; i < count; ++i) Perm::apply(s + i * Perm::WIDTH);
    });
    return v;
}

}  // namespace

TEST(PermuteBatch, InfoMatchesInstances) {
    for (const Expect &e : kInfo) {
        uint32_t width = 0;
        gp_field field = GP_FIELD_GOLDILOCKS;
        ASSERT_GP_OK(gp_permutation_info(e.id, &width, &field));
        EXPECT_EQ(width, e.width) << (int)e.id;
        EXPECT_EQ((int)field, (int)e.field) << (int)e.id;
    }
    EXPECT_EQ(gp_permutation_info((gp_permutation)0, nullptr, nullptr), GP_ERR_INVALID_ARGUMENT);
    EXPECT_EQ(gp_permutation_info((gp_permutation)25, nullptr, nullptr), GP_ERR_INVALID_ARGUMENT);
    // BLAKE3, SHA3-256 and BLAKE3-192 name hashes, not permutations:
    // described, never applied.
    CtxPtr ctx;
    ASSERT_GP_OK(make_context(GP_BACKEND_CPU, &ctx));
    for (const Expect &e : {Expect{GP_PERM_BLAKE3, 16, (gp_field)0}, Expect{GP_PERM_SHA3_256, 25, (gp_field)0},
                            Expect{GP_PERM_BLAKE3_192, 16, (gp_field)0}}) {
        uint32_t width = 0;
        gp_field field = GP_FIELD_GOLDILOCKS;
        ASSERT_GP_OK(gp_permutation_info(e.id, &width, &field));
        EXPECT_EQ(width, e.width) << (int)e.id;
        EXPECT_EQ((int)field, 0) << (int)e.id;
        uint64_t state[25] = {0};
        EXPECT_EQ(gp_permute_batch(ctx.get(), e.id, state, 1), GP_ERR_UNSUPPORTED) << (int)e.id;
    }
}

TEST(PermuteBatch, CpuMatchesHeaderForEveryPermutation) {
    CtxPtr ctx;
    ASSERT_GP_OK(make_context(GP_BACKEND_CPU, &ctx));
    for (gp_permutation perm : kAll) {
        std::vector<unsigned char> v = random_states(perm, 257, 100 + (int)perm);
        std::vector<unsigned char> want = reference(perm, v);
        ASSERT_NE(want, v) << "permutation " << (int)perm << " left its input unchanged";
        ASSERT_GP_OK(gp_permute_batch(ctx.get(), perm, v.data(), 257));
        EXPECT_EQ(v, want) << "permutation " << (int)perm;
    }
}

TEST(PermuteBatch, DistinctPermutationsDiffer) {
    // Same-width instances must not be mapped to one another.
    CtxPtr ctx;
    ASSERT_GP_OK(make_context(GP_BACKEND_CPU, &ctx));
    std::vector<uint64_t> a(12, 5), b(12, 5), c(12, 5), d(12, 5);
    ASSERT_GP_OK(gp_permute_batch(ctx.get(), GP_PERM_RPO256, a.data(), 1));
    ASSERT_GP_OK(gp_permute_batch(ctx.get(), GP_PERM_RPX256, b.data(), 1));
    ASSERT_GP_OK(gp_permute_batch(ctx.get(), GP_PERM_POSEIDON_GOLDILOCKS_12, c.data(), 1));
    ASSERT_GP_OK(gp_permute_batch(ctx.get(), GP_PERM_POSEIDON2_GOLDILOCKS_12, d.data(), 1));
    EXPECT_NE(a, b);
    EXPECT_NE(a, c);
    EXPECT_NE(a, d);
    EXPECT_NE(b, c);
    EXPECT_NE(c, d);
    std::vector<uint64_t> e(8, 5), f(8, 5);
    ASSERT_GP_OK(gp_permute_batch(ctx.get(), GP_PERM_POSEIDON2_GOLDILOCKS_8, e.data(), 1));
    ASSERT_GP_OK(gp_permute_batch(ctx.get(), GP_PERM_POSEIDON2_GOLDILOCKS_HL_8, f.data(), 1));
    EXPECT_NE(e, f);
}

TEST(PermuteBatch, BadInput) {
    CtxPtr ctx;
    ASSERT_GP_OK(make_context(GP_BACKEND_CPU, &ctx));
    std::vector<uint64_t> s(12, 1);
    EXPECT_EQ(gp_permute_batch(nullptr, GP_PERM_RPO256, s.data(), 1), GP_ERR_NULL_POINTER);
    EXPECT_EQ(gp_permute_batch(ctx.get(), GP_PERM_RPO256, nullptr, 1), GP_ERR_NULL_POINTER);
    EXPECT_EQ(gp_permute_batch(ctx.get(), (gp_permutation)99, s.data(), 1), GP_ERR_INVALID_ARGUMENT);
    EXPECT_NE(std::string(gp_last_error()).find("99"), std::string::npos) << gp_last_error();
    EXPECT_EQ(gp_permute_batch(ctx.get(), GP_PERM_RPO256, s.data(), 1ull << 62), GP_ERR_SIZE_OVERFLOW);
    // count 0 is a no-op, even with no states
    EXPECT_EQ(gp_permute_batch(ctx.get(), GP_PERM_RPO256, nullptr, 0), GP_OK);
    // a non-canonical element is refused and the states are left as they were
    s[7] = 0xffffffff00000001ull;  // p
    std::vector<uint64_t> before = s;
    EXPECT_EQ(gp_permute_batch(ctx.get(), GP_PERM_RPO256, s.data(), 1), GP_ERR_NON_CANONICAL);
    EXPECT_NE(std::string(gp_last_error()).find("[7]"), std::string::npos) << gp_last_error();
    EXPECT_EQ(s, before);
    std::vector<uint32_t> bb(16, 1);
    bb[3] = 0x78000001u;
    EXPECT_EQ(gp_permute_batch(ctx.get(), GP_PERM_POSEIDON2_BABYBEAR_16, bb.data(), 1), GP_ERR_NON_CANONICAL);
    // Keccak lanes are raw 64-bit words: any value is fine
    std::vector<uint64_t> k(25, ~0ull);
    EXPECT_EQ(gp_permute_batch(ctx.get(), GP_PERM_KECCAK_F1600, k.data(), 1), GP_OK);
    EXPECT_NE(k[0], ~0ull);
}
