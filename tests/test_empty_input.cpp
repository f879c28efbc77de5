// SPDX-License-Identifier: MIT OR Apache-2.0
// Empty sponge inputs: matrices of width 0 (buffers with no columns) hash
// their rows as the references hash an empty input, on every backend.
// Expected digests, by reference:
//  - Plonky3 PaddingFreeSponge::hash_iter([]) and the u64 Keccak sponge: no
//    permutation, the zero digest (symmetric/src/sponge.rs, v0.6.0);
//  - SerializingHasher<Keccak256Hash> and lambdaworks' Keccak leaf:
//    keccak256 of no bytes, c5d24601...5d85a470 (the well-known value);
//  - miden-crypto hash_elements([]) (every layout, RPO, RPX, Poseidon2): the
//    zero digest (rpo/tests.rs hash_empty); Miden's LMCS: a width-0 row absorbs
//    nothing, so a leaf of only such rows is the zero digest;
//  - twenty-first Tip5::hash_varlen([]): one permutation of [1, 0, ...]
//    (tests/vectors/tip5.json hash_varlen_empty);
//  - Digest trees: the zero digest.
// Roots over empty leaves: miden-crypto's EMPTY_SUBTREES (crates/crypto/src/
// merkle/empty_roots.rs, 0xMiden/miden-vm db4fd2f6): e_1 = merge(0, 0),
// e_2, e_3 with Poseidon2 (Plonky3's instance), which Miden's LMCS and the
// current Miden tree share for zero leaves.
#include <gtest/gtest.h>

#include <cstdint>
#include <string>
#include <vector>

#include "test_util.h"

using namespace gpt;

namespace {

class EmptyInput : public BackendTest {
protected:
    BufPtr empty(uint64_t rows) {
        gp_buffer *b = nullptr;
        EXPECT_EQ(gp_buffer_create(ctx(), GP_FIELD_GOLDILOCKS, 1, rows, 0, &b), GP_OK) << gp_last_error();
        return BufPtr(b);
    }
    Bytes leaf(const gp_buffer *b, gp_merkle_kind kind, gp_permutation perm) {
        gp_merkle_options o;
        gp_merkle_options_init(&o);
        o.kind = kind;
        o.perm = perm;
        const gp_buffer *mats[1] = {b};
        const uint64_t rows = gp_buffer_rows(b);
        Bytes d((size_t)(rows * 40), 0xee);
        const gp_status st = gp_merkle_hash_rows(ctx(), mats, 1, &o, d.data(), d.size());
        EXPECT_EQ(st, GP_OK) << gp_last_error();
        gp_merkle_tree *t = nullptr;
        EXPECT_EQ(gp_merkle_commit(ctx(), mats, 1, &o, &t), GP_OK) << gp_last_error();
        const uint64_t ds = gp_merkle_digest_size(t);
        gp_merkle_tree_destroy(t);
        return Bytes(d.begin(), d.begin() + (ptrdiff_t)ds);
    }
};

Bytes hex_to_bytes(const std::string &h) {
    Bytes out;
    for (size_t i = 0; i + 1 < h.size(); i += 2) out.push_back((unsigned char)std::stoul(h.substr(i, 2), nullptr, 16));
    return out;
}

}  // namespace

TEST_P(EmptyInput, EveryKindHashesAnEmptyRowAsItsReference) {
    BufPtr b = empty(8);
    ASSERT_TRUE(b);
    EXPECT_EQ(gp_buffer_cols(b.get()), 0u);
    EXPECT_EQ(gp_buffer_size_bytes(b.get()), 0u);
    const Bytes zero32(32, 0), zero40(40, 0);
    const Bytes keccak_empty = hex_to_bytes("c5d2460186f7233c927e7db2dcc703c0e500b653ca82273b7bfad8045d85a470");
    EXPECT_EQ(leaf(b.get(), GP_MERKLE_FIELD_SPONGE, GP_PERM_POSEIDON2_GOLDILOCKS_8), zero32);
    EXPECT_EQ(leaf(b.get(), GP_MERKLE_FIELD_SPONGE, GP_PERM_POSEIDON_GOLDILOCKS_12), zero32);
    EXPECT_EQ(leaf(b.get(), GP_MERKLE_KECCAK_U64, GP_PERM_KECCAK_F1600), zero32);
    EXPECT_EQ(leaf(b.get(), GP_MERKLE_KECCAK_PLONKY3, GP_PERM_KECCAK_F1600), keccak_empty);
    EXPECT_EQ(leaf(b.get(), GP_MERKLE_KECCAK_BE, GP_PERM_KECCAK_F1600), keccak_empty);
    for (gp_merkle_kind k : {GP_MERKLE_MIDEN, GP_MERKLE_MIDEN_V0_11, GP_MERKLE_MIDEN_V0_10})
        for (gp_permutation p : {GP_PERM_RPO256, GP_PERM_RPX256})
            EXPECT_EQ(leaf(b.get(), k, p), zero32) << "kind " << k << " perm " << p;
    EXPECT_EQ(leaf(b.get(), GP_MERKLE_MIDEN, GP_PERM_POSEIDON2_GOLDILOCKS_12), zero32);
    for (gp_permutation p : {GP_PERM_RPO256, GP_PERM_POSEIDON2_GOLDILOCKS_12, GP_PERM_KECCAK_F1600})
        EXPECT_EQ(leaf(b.get(), GP_MERKLE_MIDEN_LMCS, p), zero32) << "LMCS perm " << p;
    EXPECT_EQ(leaf(b.get(), GP_MERKLE_TRITON_DIGEST, GP_PERM_TIP5), zero40);
    // Miden's BLAKE3 ChainingHasher hashes even an empty row: BLAKE3 of the
    // 32-byte zero state (value from Debian's b3sum, the reference CLI).
    EXPECT_EQ(leaf(b.get(), GP_MERKLE_MIDEN_LMCS, GP_PERM_BLAKE3),
              hex_to_bytes("2ada83c1819a5372dae1238fc1ded123c8104fdaa15862aaee69428a1820fcda"));
    // winter-crypto's hash_elements of no elements: SHA3-256 and BLAKE3 of
    // no bytes (the FIPS 202 and BLAKE3 empty-message digests), Rp64_256's
    // untouched rate (no permutation runs).
    const Bytes blake3_empty = hex_to_bytes("af1349b9f5f9a1a6a0404dea36dcc9499bcb25c9adc112b7cc9a93cae41f3262");
    EXPECT_EQ(leaf(b.get(), GP_MERKLE_WINTERFELL, GP_PERM_SHA3_256),
              hex_to_bytes("a7ffc6f8bf1ed76651c14756a061d662f580ff4de43b49fa82d80a4b80f8434a"));
    EXPECT_EQ(leaf(b.get(), GP_MERKLE_WINTERFELL, GP_PERM_BLAKE3), blake3_empty);
    EXPECT_EQ(leaf(b.get(), GP_MERKLE_WINTERFELL, GP_PERM_BLAKE3_192),
              Bytes(blake3_empty.begin(), blake3_empty.begin() + 24));
    EXPECT_EQ(leaf(b.get(), GP_MERKLE_WINTERFELL, GP_PERM_RP64_256), zero32);
    const std::string t = read_text_file(vectors_path("tip5.json"));
    ASSERT_FALSE(t.empty());
    const Elems ve = json_hex_array(t, json_find_key(t, "hash_varlen_empty"));
    ASSERT_EQ(ve.size(), 5u);
    EXPECT_EQ(leaf(b.get(), GP_MERKLE_TRITON, GP_PERM_TIP5), le_bytes(ve, 8));
}

TEST_P(EmptyInput, RootsOverEmptyLeavesAreMidenEmptySubtrees) {
    const std::vector<Elems> e = {
        {0x5b31a8b9799ff836ull, 0xe385174fe60f4b08ull, 0xe82c6be88d50767cull, 0x2778f3b6a18981e2ull},
        {0xe0c4c734868c11c6ull, 0xee1f9ed1da448050ull, 0x19fd124dd8f24870ull, 0xcdd77f41d7deff73ull},
        {0xfbc3edafb6c813b9ull, 0x35d8cfadb189f5afull, 0x9cc65f5d198e28f1ull, 0x14a74616a8e04623ull}};
    for (uint32_t d = 1; d <= 3; ++d) {
        BufPtr b = empty(1ull << d);
        const gp_buffer *mats[1] = {b.get()};
        for (gp_merkle_kind kind : {GP_MERKLE_MIDEN, GP_MERKLE_MIDEN_LMCS}) {
            gp_merkle_options o;
            gp_merkle_options_init(&o);
            o.kind = kind;
            o.perm = GP_PERM_POSEIDON2_GOLDILOCKS_12;
            gp_merkle_tree *t = nullptr;
            ASSERT_GP_OK(gp_merkle_commit(ctx(), mats, 1, &o, &t));
            TreePtr tp(t);
            EXPECT_EQ(merkle_cap_bytes(t), le_bytes(e[d - 1], 8)) << "depth " << d << " kind " << kind;
            // An opening of an empty row: no row bytes, the path, verified.
            uint64_t rb = 1, pb = 0;
            ASSERT_GP_OK(gp_merkle_opening_size(t, &rb, &pb));
            EXPECT_EQ(rb, 0u);
            const uint64_t idx = 1;
            Bytes path((size_t)pb);
            ASSERT_GP_OK(gp_merkle_open(t, &idx, 1, nullptr, 0, path.data(), path.size()));
            const gp_matrix_dims dims = {1ull << d, 0, 1};
            const Bytes cap = merkle_cap_bytes(t);
            EXPECT_EQ(gp_merkle_verify(&o, GP_FIELD_GOLDILOCKS, &dims, 1, cap.data(), cap.size(), idx, nullptr, 0,
                                       path.data(), path.size()),
                      GP_OK)
                << gp_last_error();
        }
    }
}

// Plonky3's MMCS injects a matrix by its height whatever its width: a
// width-0 matrix at a shorter height changes the root (H(empty) = 0 is
// compressed in), one of the tallest height beside another does not.
TEST_P(EmptyInput, PlonkyInjectsAWidthZeroMatrix) {
    const FieldRef &F = field_ref(GP_FIELD_GOLDILOCKS);
    Rng rng(5);
    const HostMat m = random_mat(F, 8, 3, 1, rng);
    BufPtr a;
    ASSERT_GP_OK(upload(ctx(), F, m, GP_LAYOUT_COL_MAJOR, &a));
    BufPtr e4 = empty(4), e8 = empty(8);
    gp_merkle_options o;
    gp_merkle_options_init(&o);
    auto root = [&](std::vector<const gp_buffer *> mats) {
        gp_merkle_tree *t = nullptr;
        EXPECT_EQ(gp_merkle_commit(ctx(), mats.data(), (uint32_t)mats.size(), &o, &t), GP_OK) << gp_last_error();
        const Bytes r = merkle_cap_bytes(t);
        gp_merkle_tree_destroy(t);
        return r;
    };
    const Bytes alone = root({a.get()});
    EXPECT_EQ(root({a.get(), e8.get()}), alone);
    EXPECT_NE(root({a.get(), e4.get()}), alone);
}

TEST_P(EmptyInput, BuffersWithoutColumns) {
    BufPtr b = empty(16);
    // Host copies of nothing take NULL.
    EXPECT_EQ(gp_buffer_to_host(b.get(), GP_LAYOUT_COL_MAJOR, nullptr, 0), GP_OK) << gp_last_error();
    gp_buffer *raw = nullptr;
    EXPECT_EQ(gp_buffer_from_host(ctx(), GP_FIELD_GOLDILOCKS, 3, 4, 0, GP_LAYOUT_ROW_MAJOR, nullptr, &raw), GP_OK)
        << gp_last_error();
    BufPtr h(raw);
    EXPECT_EQ(gp_buffer_rows(raw), 4u);
    // Transforms, LDEs, DEEP and exports of nothing are refused.
    gp_ntt_options no;
    gp_ntt_options_init(&no);
    EXPECT_GP_ERR(gp_ntt_batch(ctx(), b.get(), &no), GP_ERR_INVALID_ARGUMENT);
    gp_lde_options lo;
    gp_lde_options_init(&lo);
    gp_buffer *out = nullptr;
    ASSERT_GP_OK(gp_buffer_create(ctx(), GP_FIELD_GOLDILOCKS, 1, 32, 0, &out));
    BufPtr outp(out);
    EXPECT_GP_ERR(gp_lde_batch(ctx(), b.get(), &lo, out), GP_ERR_INVALID_ARGUMENT);
    gp_ood_options oo;
    gp_ood_options_init(&oo);
    const gp_buffer *cols[1] = {b.get()};
    const Elems z = {5, 6, 7};
    Bytes v(24);
    EXPECT_GP_ERR(gp_evaluate_ood(ctx(), cols, 1, &oo, z.data(), 1, v.data(), v.size()), GP_ERR_SHAPE_MISMATCH);
    uint64_t dummy = 0;
    EXPECT_GP_ERR(gp_buffer_wrap(ctx(), GP_FIELD_GOLDILOCKS, 1, 16, 0, &dummy, &raw),
                  GP_ERR_INVALID_ARGUMENT);
}

INSTANTIATE_TEST_SUITE_P(Backends, EmptyInput, ::testing::Values(GP_BACKEND_CPU, GP_BACKEND_CUDA),
                         [](const ::testing::TestParamInfo<gp_backend> &i) { return std::string(backend_name(i.param)); });
