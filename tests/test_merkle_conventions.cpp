// SPDX-License-Identifier: MIT OR Apache-2.0
// Merkle conventions of the provers served beyond the default profiles:
// Plonky3's Keccak-f sponge over 64-bit lanes (GP_MERKLE_KECCAK_U64).
// Each is checked against a naive reference written here from the
// reference implementation's definition (Plonky3: SerializingHasher,
// RawDataSerializable::into_u64_stream, PaddingFreeSponge,
// CompressionFunctionFromHasher, MerkleTreeMmcs), on top of the permutation
// alone (gp_permute_batch, itself checked against known answers), on every
// backend available.
#include <gtest/gtest.h>

#include <cstdint>
#include <cstring>
#include <random>
#include <vector>

#include "hash/permutations.h"
#include "hash/tree_hash.h"
#include "test_triton_ref.h"
#include "test_util.h"

namespace {

using Lanes = std::vector<uint64_t>;
using gpt::TritonReference;

struct Mat {
    uint64_t rows, cols;  // base columns
    std::vector<uint64_t> v;  // column-major canonical values
    uint64_t at(uint64_t r, uint64_t c) const { return v[c * rows + r]; }
};

// MerkleTreeMmcs over hash h (h.hash, h.compress): matrices of
// power-of-two heights, leaves hash the tallest rows concatenated, shorter
// matrices injected at their layer. Returns the root.
template <class H>
Lanes mmcs_root(const std::vector<Mat> &mats, const H &h) {
    uint64_t height = 0;
    for (const Mat &m : mats) height = std::max(height, m.rows);
    auto row_of = [&](uint64_t rows, uint64_t i) {
        std::vector<uint64_t> e;
        for (const Mat &m : mats)
            if (m.rows == rows)
                for (uint64_t c = 0; c < m.cols; ++c) e.push_back(m.at(i, c));
        return e;
    };
    std::vector<Lanes> layer;
    for (uint64_t i = 0; i < height; ++i) layer.push_back(h.hash(row_of(height, i)));
    for (uint64_t size = height / 2; size >= 1; size /= 2) {
        bool inject = false;
        for (const Mat &m : mats) inject = inject || m.rows == size;
        std::vector<Lanes> next;
        for (uint64_t i = 0; i < size; ++i) {
            Lanes node = h.compress(layer[2 * i], layer[2 * i + 1]);
            if (inject) node = h.compress(node, h.hash(row_of(size, i)));
            next.push_back(node);
        }
        layer.swap(next);
    }
    return layer[0];
}

class KeccakU64Reference {
public:
    KeccakU64Reference(gp_field field, gp_context *cpu) : field_(field), cpu_(cpu) {
        gp_field_info(field, &p_, nullptr, nullptr);
    }

    // x * 2^32 mod p for the 31-bit fields (their Montgomery form), the
    // canonical value for Goldilocks.
    uint64_t word(uint64_t x) const {
        if (field_ == GP_FIELD_GOLDILOCKS) return x;
        return (uint64_t)(((unsigned __int128)x << 32) % p_);
    }

    // into_u64_stream of the elements, then PaddingFreeSponge<KeccakF, 25, 17, 4>.
    Lanes hash(const std::vector<uint64_t> &elems) const {
        Lanes lanes;
        const bool pack = field_ != GP_FIELD_GOLDILOCKS;
        for (size_t i = 0; i < elems.size(); i += pack ? 2 : 1) {
            uint64_t w = word(elems[i]);
            if (pack && i + 1 < elems.size()) w |= word(elems[i + 1]) << 32;
            lanes.push_back(w);
        }
        Lanes s(25, 0);
        for (size_t i = 0; i < lanes.size(); i += 17) {
            for (size_t k = 0; k < 17 && i + k < lanes.size(); ++k) s[k] = lanes[i + k];
            permute(s);
        }
        return Lanes(s.begin(), s.begin() + 4);
    }
    // CompressionFunctionFromHasher: the sponge over left || right.
    Lanes compress(const Lanes &l, const Lanes &r) const {
        Lanes s(25, 0);
        for (int k = 0; k < 4; ++k) {
            s[k] = l[k];
            s[4 + k] = r[k];
        }
        permute(s);
        return Lanes(s.begin(), s.begin() + 4);
    }

    Lanes root(const std::vector<Mat> &mats) const { return mmcs_root(mats, *this); }

private:
    void permute(Lanes &s) const {
        ASSERT_EQ(gp_permute_batch(cpu_, GP_PERM_KECCAK_F1600, s.data(), 1), GP_OK) << gp_last_error();
    }
    gp_field field_;
    gp_context *cpu_;
    uint64_t p_ = 0;
};

Mat random_mat(gp_field field, uint64_t rows, uint64_t cols, uint32_t seed) {
    uint64_t p = 0;
    gp_field_info(field, &p, nullptr, nullptr);
    std::mt19937_64 rng(seed);
    Mat m{rows, cols, {}};
    for (uint64_t i = 0; i < rows * cols; ++i) m.v.push_back(rng() % p);
    return m;
}

gp_buffer *upload(gp_context *ctx, gp_field field, const Mat &m) {
    const uint32_t es = gp_field_element_size(field);
    std::vector<uint8_t> bytes(m.v.size() * es);
    for (size_t i = 0; i < m.v.size(); ++i) {
        if (es == 8) std::memcpy(&bytes[i * 8], &m.v[i], 8);
        else {
            const uint32_t w = (uint32_t)m.v[i];
            std::memcpy(&bytes[i * 4], &w, 4);
        }
    }
    gp_buffer *b = nullptr;
    EXPECT_EQ(gp_buffer_from_host(ctx, field, 1, m.rows, m.cols, GP_LAYOUT_COL_MAJOR, bytes.data(), &b), GP_OK)
        << gp_last_error();
    return b;
}

// Opens leaf q of t and checks the opening with the host verifier against
// the root.
void expect_opening_verifies(gp_merkle_tree *t, const gp_merkle_options &o, gp_field field,
                             const std::vector<gp_matrix_dims> &dims, const void *root, uint64_t root_size,
                             uint64_t q) {
    uint64_t rb = 0, pb = 0;
    ASSERT_EQ(gp_merkle_opening_size(t, &rb, &pb), GP_OK);
    std::vector<uint8_t> row(rb), path(pb);
    ASSERT_EQ(gp_merkle_open(t, &q, 1, row.data(), rb, path.data(), pb), GP_OK) << gp_last_error();
    EXPECT_EQ(gp_merkle_verify(&o, field, dims.data(), (uint32_t)dims.size(), root, root_size, q, row.data(), rb,
                               path.data(), pb),
              GP_OK)
        << gp_last_error();
}

std::vector<gp_matrix_dims> dims_of(const std::vector<Mat> &mats) {
    std::vector<gp_matrix_dims> dims;
    for (const Mat &m : mats) dims.push_back({m.rows, (uint32_t)m.cols, 1});
    return dims;
}

class KeccakU64 : public ::testing::TestWithParam<gp_backend> {};

TEST_P(KeccakU64, MatchesPlonky3Definition) {
    GP_CONTEXT_OR_SKIP(ctx, GetParam());
    gpt::CtxPtr cpu;
    ASSERT_EQ(gpt::make_context(GP_BACKEND_CPU, &cpu), GP_OK);
    gp_merkle_options o;
    gp_merkle_options_init(&o);
    o.kind = GP_MERKLE_KECCAK_U64;
    o.perm = GP_PERM_KECCAK_F1600;
    for (gp_field field : {GP_FIELD_GOLDILOCKS, GP_FIELD_BABYBEAR, GP_FIELD_KOALABEAR}) {
        SCOPED_TRACE("field " + std::to_string(field));
        const KeccakU64Reference ref(field, cpu.get());
        // Rows of 0..40 elements: empty, one lane, a block boundary (17 or
        // 34 elements), odd counts (a lone last 31-bit element); mixed
        // heights injected at their layers.
        for (uint64_t cols : {1ull, 17ull, 18ull, 33ull, 34ull, 35ull}) {
            std::vector<Mat> mats = {random_mat(field, 64, cols, (uint32_t)cols),
                                     random_mat(field, 16, 3, 100 + (uint32_t)cols),
                                     random_mat(field, 64, 2, 200 + (uint32_t)cols),
                                     random_mat(field, 4, 5, 300 + (uint32_t)cols)};
            std::vector<gp_buffer *> bufs;
            for (const Mat &m : mats) bufs.push_back(upload(ctx.get(), field, m));
            std::vector<const gp_buffer *> cb(bufs.begin(), bufs.end());
            gp_merkle_tree *t = nullptr;
            ASSERT_EQ(gp_merkle_commit(ctx.get(), cb.data(), (uint32_t)cb.size(), &o, &t), GP_OK) << gp_last_error();
            ASSERT_EQ(gp_merkle_digest_size(t), 32u);
            Lanes root(4);
            ASSERT_EQ(gp_merkle_root(t, root.data(), 32), GP_OK);
            EXPECT_EQ(root, ref.root(mats)) << cols << " columns";
            expect_opening_verifies(t, o, field, dims_of(mats), root.data(), 32, 37);
            gp_merkle_tree_destroy(t);
            for (gp_buffer *b : bufs) gp_buffer_destroy(b);
        }
    }
}

TEST_P(KeccakU64, RejectsOtherPermutationsAndDigests) {
    GP_CONTEXT_OR_SKIP(ctx, GetParam());
    const Mat m = random_mat(GP_FIELD_GOLDILOCKS, 8, 2, 1);
    gp_buffer *b = upload(ctx.get(), GP_FIELD_GOLDILOCKS, m);
    const gp_buffer *cb[] = {b};
    gp_merkle_options o;
    gp_merkle_options_init(&o);
    o.kind = GP_MERKLE_KECCAK_U64;
    gp_merkle_tree *t = nullptr;
    EXPECT_GP_ERR(gp_merkle_commit(ctx.get(), cb, 1, &o, &t), GP_ERR_INVALID_ARGUMENT);  // Poseidon2 default perm
    o.perm = GP_PERM_KECCAK_F1600;
    o.digest = 8;
    EXPECT_GP_ERR(gp_merkle_commit(ctx.get(), cb, 1, &o, &t), GP_ERR_INVALID_ARGUMENT);
    EXPECT_EQ(t, nullptr);
    gp_buffer_destroy(b);
}

// Plonky3's MerkleTreeMmcs over PaddingFreeSponge<S, WS, rate, digest> and
// TruncatedPermutation<C, 2, digest, WC>, from the permutations alone.
class SpongeReference {
public:
    SpongeReference(gp_context *cpu, gp_permutation sponge, gp_permutation compression, uint32_t rate,
                    uint32_t digest)
        : cpu_(cpu), s_(sponge), c_(compression), rate_(rate), digest_(digest) {
        gp_field f;
        gp_permutation_info(sponge, &ws_, &f);
        gp_permutation_info(compression, &wc_, nullptr);
        es_ = gp_field_element_size(f);
    }
    Lanes hash(const std::vector<uint64_t> &e) const {
        Lanes st(ws_, 0);
        for (size_t i = 0; i < e.size(); i += rate_) {
            for (size_t k = 0; k < rate_ && i + k < e.size(); ++k) st[k] = e[i + k];
            permute(s_, st);
        }
        return Lanes(st.begin(), st.begin() + digest_);
    }
    Lanes compress(const Lanes &l, const Lanes &r) const {
        Lanes st(wc_, 0);
        for (uint32_t k = 0; k < digest_; ++k) {
            st[k] = l[k];
            st[digest_ + k] = r[k];
        }
        permute(c_, st);
        return Lanes(st.begin(), st.begin() + digest_);
    }
    Lanes root(const std::vector<Mat> &mats) const { return mmcs_root(mats, *this); }

private:
    // States travel as 64-bit words here and as elements of es_ bytes in
    // the call.
    void permute(gp_permutation p, Lanes &st) const {
        std::vector<uint8_t> b(st.size() * es_);
        for (size_t i = 0; i < st.size(); ++i) std::memcpy(&b[i * es_], &st[i], es_);
        ASSERT_EQ(gp_permute_batch(cpu_, p, b.data(), 1), GP_OK) << gp_last_error();
        for (size_t i = 0; i < st.size(); ++i) {
            st[i] = 0;
            std::memcpy(&st[i], &b[i * es_], es_);
        }
    }
    gp_context *cpu_;
    gp_permutation s_, c_;
    uint32_t rate_, digest_, ws_ = 0, wc_ = 0, es_ = 0;
};

class SplitPermutations : public ::testing::TestWithParam<gp_backend> {};

TEST_P(SplitPermutations, MatchPlonky3Definition) {
    GP_CONTEXT_OR_SKIP(ctx, GetParam());
    gpt::CtxPtr cpu;
    ASSERT_EQ(gpt::make_context(GP_BACKEND_CPU, &cpu), GP_OK);
    struct Case {
        gp_field field;
        gp_permutation sponge, compression;
        uint32_t rate, digest;
    };
    for (const Case &k : {Case{GP_FIELD_BABYBEAR, GP_PERM_POSEIDON2_BABYBEAR_24, GP_PERM_POSEIDON2_BABYBEAR_16, 16, 8},
                          Case{GP_FIELD_KOALABEAR, GP_PERM_POSEIDON2_KOALABEAR_24, GP_PERM_POSEIDON2_KOALABEAR_16, 16, 8},
                          Case{GP_FIELD_GOLDILOCKS, GP_PERM_POSEIDON2_GOLDILOCKS_12, GP_PERM_POSEIDON2_GOLDILOCKS_8, 8, 4},
                          Case{GP_FIELD_GOLDILOCKS, GP_PERM_POSEIDON2_GOLDILOCKS_16, GP_PERM_POSEIDON2_GOLDILOCKS_8, 12,
                               4}}) {
        SCOPED_TRACE("sponge " + std::to_string(k.sponge));
        const SpongeReference ref(cpu.get(), k.sponge, k.compression, k.rate, k.digest);
        const std::vector<Mat> mats = {random_mat(k.field, 32, 37, 1), random_mat(k.field, 8, 4, 2)};
        std::vector<gp_buffer *> bufs;
        for (const Mat &m : mats) bufs.push_back(upload(ctx.get(), k.field, m));
        std::vector<const gp_buffer *> cb(bufs.begin(), bufs.end());
        gp_merkle_options o;
        gp_merkle_options_init(&o);
        o.perm = k.sponge;
        o.compress_perm = k.compression;
        o.rate = k.rate;
        o.digest = k.digest;
        gp_merkle_tree *t = nullptr;
        ASSERT_EQ(gp_merkle_commit(ctx.get(), cb.data(), 2, &o, &t), GP_OK) << gp_last_error();
        const uint32_t es = gp_field_element_size(k.field);
        std::vector<uint8_t> root(gp_merkle_digest_size(t));
        ASSERT_EQ(gp_merkle_root(t, root.data(), root.size()), GP_OK);
        const Lanes want = ref.root(mats);
        ASSERT_EQ(root.size(), want.size() * es);
        for (size_t i = 0; i < want.size(); ++i) {
            uint64_t got = 0;
            std::memcpy(&got, &root[i * es], es);
            EXPECT_EQ(got, want[i]) << "root word " << i;
        }
        // The host verifier uses the same pair.
        expect_opening_verifies(t, o, k.field, dims_of(mats), root.data(), root.size(), 21);
        gp_merkle_tree_destroy(t);
        for (gp_buffer *b : bufs) gp_buffer_destroy(b);
    }
}

TEST_P(SplitPermutations, OnlyOfferedPairs) {
    GP_CONTEXT_OR_SKIP(ctx, GetParam());
    const Mat m = random_mat(GP_FIELD_BABYBEAR, 8, 2, 1);
    gp_buffer *b = upload(ctx.get(), GP_FIELD_BABYBEAR, m);
    const gp_buffer *cb[] = {b};
    gp_merkle_options o;
    gp_merkle_options_init(&o);
    o.perm = GP_PERM_POSEIDON2_BABYBEAR_16;
    o.compress_perm = GP_PERM_POSEIDON2_BABYBEAR_24;  // narrow sponge, wide compression: not offered
    gp_merkle_tree *t = nullptr;
    EXPECT_GP_ERR(gp_merkle_commit(ctx.get(), cb, 1, &o, &t), GP_ERR_UNSUPPORTED);
    o.perm = GP_PERM_POSEIDON2_BABYBEAR_24;
    o.compress_perm = GP_PERM_POSEIDON2_KOALABEAR_16;  // another field
    EXPECT_GP_ERR(gp_merkle_commit(ctx.get(), cb, 1, &o, &t), GP_ERR_UNSUPPORTED);
    gpt::store_raw(&o.compress_perm, 999);
    EXPECT_GP_ERR(gp_merkle_commit(ctx.get(), cb, 1, &o, &t), GP_ERR_INVALID_ARGUMENT);
    // The same permutation named twice is the plain profile.
    o.perm = GP_PERM_POSEIDON2_BABYBEAR_16;
    o.compress_perm = GP_PERM_POSEIDON2_BABYBEAR_16;
    gp_merkle_tree *same = nullptr, *plain = nullptr;
    ASSERT_EQ(gp_merkle_commit(ctx.get(), cb, 1, &o, &same), GP_OK) << gp_last_error();
    o.compress_perm = (gp_permutation)0;
    ASSERT_EQ(gp_merkle_commit(ctx.get(), cb, 1, &o, &plain), GP_OK);
    std::vector<uint8_t> r1(32), r2(32);
    ASSERT_EQ(gp_merkle_root(same, r1.data(), 32), GP_OK);
    ASSERT_EQ(gp_merkle_root(plain, r2.data(), 32), GP_OK);
    EXPECT_EQ(r1, r2);
    // Other kinds take no compression permutation.
    gp_merkle_options k;
    gp_merkle_options_init(&k);
    k.kind = GP_MERKLE_KECCAK_U64;
    k.perm = GP_PERM_KECCAK_F1600;
    k.compress_perm = GP_PERM_KECCAK_F1600;
    EXPECT_GP_ERR(gp_merkle_commit(ctx.get(), cb, 1, &k, &t), GP_ERR_INVALID_ARGUMENT);
    gp_merkle_tree_destroy(same);
    gp_merkle_tree_destroy(plain);
    gp_buffer_destroy(b);
}

class TritonTree : public ::testing::TestWithParam<gp_backend> {};

TEST_P(TritonTree, MatchesTwentyFirstDefinition) {
    GP_CONTEXT_OR_SKIP(ctx, GetParam());
    gpt::CtxPtr cpu;
    ASSERT_EQ(gpt::make_context(GP_BACKEND_CPU, &cpu), GP_OK);
    const TritonReference ref(cpu.get());
    gp_merkle_options o;
    gp_merkle_options_init(&o);
    o.kind = GP_MERKLE_TRITON;
    o.perm = GP_PERM_TIP5;
    // A main-table-like matrix (base columns; 9, 10 and 23 elements: short,
    // exactly one chunk plus a padding chunk, several chunks) beside an
    // auxiliary-table-like one (cubic extension columns, each element its
    // three coefficients in a row).
    for (uint64_t cols : {9ull, 10ull, 23ull}) {
        SCOPED_TRACE(std::to_string(cols) + " base columns");
        const Mat base = random_mat(GP_FIELD_GOLDILOCKS, 32, cols, (uint32_t)cols);
        const Mat aux = random_mat(GP_FIELD_GOLDILOCKS, 32, 3 * 4, 50 + (uint32_t)cols);  // 4 cubic columns
        gp_buffer *b0 = upload(ctx.get(), GP_FIELD_GOLDILOCKS, base);
        // The aux matrix as 4 extension columns of degree 3: base column
        // 3c + k is coefficient k of column c, as the buffer layout stores it.
        gp_buffer *b1 = nullptr;
        ASSERT_EQ(gp_buffer_create(ctx.get(), GP_FIELD_GOLDILOCKS, 3, 32, 4, &b1), GP_OK);
        {
            std::vector<uint64_t> row_major(32 * 12);
            for (uint64_t r = 0; r < 32; ++r)
                for (uint64_t j = 0; j < 12; ++j) row_major[r * 12 + j] = aux.at(r, j);
            gp_buffer_destroy(b1);
            ASSERT_EQ(gp_buffer_from_host(ctx.get(), GP_FIELD_GOLDILOCKS, 3, 32, 4, GP_LAYOUT_ROW_MAJOR,
                                          row_major.data(), &b1),
                      GP_OK);
        }
        for (int which = 0; which < 2; ++which) {
            const gp_buffer *cb[] = {which ? b1 : b0};
            const Mat &m = which ? aux : base;
            gp_merkle_tree *t = nullptr;
            ASSERT_EQ(gp_merkle_commit(ctx.get(), cb, 1, &o, &t), GP_OK) << gp_last_error();
            ASSERT_EQ(gp_merkle_digest_size(t), 40u);
            Lanes root(5);
            ASSERT_EQ(gp_merkle_root(t, root.data(), 40), GP_OK);
            EXPECT_EQ(root, mmcs_root(std::vector<Mat>{m}, ref)) << (which ? "aux" : "base");
            const gp_matrix_dims dims = which ? gp_matrix_dims{32, 4, 3} : gp_matrix_dims{32, (uint32_t)cols, 1};
            expect_opening_verifies(t, o, GP_FIELD_GOLDILOCKS, {dims}, root.data(), 40, 19);
            gp_merkle_tree_destroy(t);
        }
        gp_buffer_destroy(b0);
        gp_buffer_destroy(b1);
    }
    // One height, Tip5 only.
    const Mat a = random_mat(GP_FIELD_GOLDILOCKS, 16, 2, 1), b = random_mat(GP_FIELD_GOLDILOCKS, 8, 2, 2);
    gp_buffer *ba = upload(ctx.get(), GP_FIELD_GOLDILOCKS, a), *bb = upload(ctx.get(), GP_FIELD_GOLDILOCKS, b);
    const gp_buffer *two[] = {ba, bb};
    gp_merkle_tree *t = nullptr;
    EXPECT_GP_ERR(gp_merkle_commit(ctx.get(), two, 2, &o, &t), GP_ERR_SHAPE_MISMATCH);
    o.perm = GP_PERM_POSEIDON2_GOLDILOCKS_12;
    EXPECT_GP_ERR(gp_merkle_commit(ctx.get(), two, 1, &o, &t), GP_ERR_INVALID_ARGUMENT);
    gp_buffer_destroy(ba);
    gp_buffer_destroy(bb);
}

// miden-crypto's current trees: the GP_MERKLE_MIDEN layout with Poseidon2
// (tests/vectors/miden_poseidon2.json gives each value's provenance).
using MidenP2 = gp::MidenHasher<gp::perm::Poseidon2Default<gp::Goldilocks, 12>, gp::MidenLayoutHead>;
using MidenP2Hl =
    gp::MidenHasher<gp::perm::Poseidon2Instance<gp::poseidon2_constants::GoldilocksHLW12>, gp::MidenLayoutHead>;

TEST(MidenPoseidon2, MergeMatchesUpstream) {
    const uint64_t zero[4] = {0, 0, 0, 0};
    uint64_t m1[4], m2[4], hl[4];
    MidenP2{}.compress(zero, zero, m1);
    MidenP2{}.compress(m1, m1, m2);
    MidenP2Hl{}.compress(zero, zero, hl);
    EXPECT_EQ(Lanes(m1, m1 + 4), (Lanes{0x5b31a8b9799ff836, 0xe385174fe60f4b08, 0xe82c6be88d50767c, 0x2778f3b6a18981e2}));
    EXPECT_EQ(Lanes(m2, m2 + 4), (Lanes{0xe0c4c734868c11c6, 0xee1f9ed1da448050, 0x19fd124dd8f24870, 0xcdd77f41d7deff73}));
    EXPECT_EQ(Lanes(hl, hl + 4), (Lanes{0xef311849263abcb4, 0x8bf04d36f9a01799, 0x9e570c4df0f2699f, 0x6927c3a96db0b2ad}));
    // miden-vm's 8-leaf ACE circuit registry: its MerkleTree root.
    const uint64_t leaves[8][4] = {
        {11837859209345903758ull, 9815638019877886793ull, 9625207076207895997ull, 9695069585445924735ull},
        {9259510150343331840ull, 9964209990365158348ull, 9771094394334616804ull, 6801591902715947619ull},
        {13344682865201754218ull, 15894423116029143536ull, 14467138423458194619ull, 7897270834863694594ull},
        {4099186920626073427ull, 682092905703283829ull, 12849329509929050984ull, 16382140914209989580ull},
        {14539896184148634413ull, 16739205143055038643ull, 714188673764061491ull, 212073732483360886ull},
        {3223252693442251987ull, 16359545287906460326ull, 7603623116366423371ull, 1382565076671067911ull},
        {1422687632582465263ull, 6762842649754512176ull, 204555358186721414ull, 14644894839315568530ull},
        {17922044667460564880ull, 15528373781338840444ull, 17550563904831590003ull, 14149524031833665710ull}};
    uint64_t layer[8][4];
    std::memcpy(layer, leaves, sizeof layer);
    for (int n = 4; n >= 1; n /= 2)
        for (int i = 0; i < n; ++i) MidenP2{}.compress(layer[2 * i], layer[2 * i + 1], layer[i]);
    EXPECT_EQ(Lanes(layer[0], layer[0] + 4),
              (Lanes{14555859356618613041ull, 12263818504402094214ull, 8947171757737633119ull, 15898708917413488144ull}));
}

class MidenTree : public ::testing::TestWithParam<gp_backend> {};

// Leaves hash_elements(row) through gp_merkle_commit: a one-row matrix's
// root is its leaf.
TEST_P(MidenTree, HashElementsMatchesUpstream) {
    GP_CONTEXT_OR_SKIP(ctx, GetParam());
    gp_merkle_options o;
    gp_merkle_options_init(&o);
    o.kind = GP_MERKLE_MIDEN;
    o.perm = GP_PERM_POSEIDON2_GOLDILOCKS_12;
    struct Kat {
        std::vector<uint64_t> row;
        Lanes digest;
    };
    const Lanes root = {14555859356618613041ull, 12263818504402094214ull, 8947171757737633119ull,
                        15898708917413488144ull};
    const Kat kats[] = {
        {{0xace, 6}, {1422687632582465263ull, 6762842649754512176ull, 204555358186721414ull, 14644894839315568530ull}},
        {{0xace, 7},
         {17922044667460564880ull, 15528373781338840444ull, 17550563904831590003ull, 14149524031833665710ull}},
        {{0, root[0], root[1], root[2], root[3]},
         {837197885082815666ull, 17812429367884914ull, 12945170128166309606ull, 6547471563106428306ull}}};
    for (const Kat &k : kats) {
        Mat m{1, k.row.size(), k.row};
        gp_buffer *b = upload(ctx.get(), GP_FIELD_GOLDILOCKS, m);
        const gp_buffer *cb[] = {b};
        gp_merkle_tree *t = nullptr;
        ASSERT_EQ(gp_merkle_commit(ctx.get(), cb, 1, &o, &t), GP_OK) << gp_last_error();
        Lanes got(4);
        ASSERT_EQ(gp_merkle_root(t, got.data(), 32), GP_OK);
        EXPECT_EQ(got, k.digest);
        gp_merkle_tree_destroy(t);
        gp_buffer_destroy(b);
    }
    // Two leaves: the root is merge(leaf 6, leaf 7); the HorizenLabs
    // instance (v0.22, v0.23) gives another tree; older layouts refuse
    // Poseidon2.
    Mat two{2, 2, {0xace, 0xace, 6, 7}};
    gp_buffer *b = upload(ctx.get(), GP_FIELD_GOLDILOCKS, two);
    const gp_buffer *cb[] = {b};
    gp_merkle_tree *t = nullptr;
    ASSERT_EQ(gp_merkle_commit(ctx.get(), cb, 1, &o, &t), GP_OK);
    Lanes got(4), want(4);
    ASSERT_EQ(gp_merkle_root(t, got.data(), 32), GP_OK);
    MidenP2{}.compress(kats[0].digest.data(), kats[1].digest.data(), want.data());
    EXPECT_EQ(got, want);
    gp_merkle_tree_destroy(t);
    o.perm = GP_PERM_POSEIDON2_GOLDILOCKS_HL_12;
    ASSERT_EQ(gp_merkle_commit(ctx.get(), cb, 1, &o, &t), GP_OK) << gp_last_error();
    ASSERT_EQ(gp_merkle_root(t, got.data(), 32), GP_OK);
    EXPECT_NE(got, want);
    gp_merkle_tree_destroy(t);
    o.kind = GP_MERKLE_MIDEN_V0_11;
    EXPECT_GP_ERR(gp_merkle_commit(ctx.get(), cb, 1, &o, &t), GP_ERR_INVALID_ARGUMENT);
    gp_buffer_destroy(b);
}

INSTANTIATE_TEST_SUITE_P(Backends, MidenTree, ::testing::Values(GP_BACKEND_CPU, GP_BACKEND_CUDA),
                         [](const ::testing::TestParamInfo<gp_backend> &i) {
                             return std::string(gpt::backend_name(i.param));
                         });

INSTANTIATE_TEST_SUITE_P(Backends, TritonTree, ::testing::Values(GP_BACKEND_CPU, GP_BACKEND_CUDA),
                         [](const ::testing::TestParamInfo<gp_backend> &i) {
                             return std::string(gpt::backend_name(i.param));
                         });

INSTANTIATE_TEST_SUITE_P(Backends, SplitPermutations, ::testing::Values(GP_BACKEND_CPU, GP_BACKEND_CUDA),
                         [](const ::testing::TestParamInfo<gp_backend> &i) {
                             return std::string(gpt::backend_name(i.param));
                         });

INSTANTIATE_TEST_SUITE_P(Backends, KeccakU64, ::testing::Values(GP_BACKEND_CPU, GP_BACKEND_CUDA),
                         [](const ::testing::TestParamInfo<gp_backend> &i) {
                             return std::string(gpt::backend_name(i.param));
                         });

}  // namespace
