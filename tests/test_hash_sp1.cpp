// SPDX-License-Identifier: MIT OR Apache-2.0
// SP1's Poseidon2 instances (GP_PERM_POSEIDON2_KOALABEAR_16_SP1, SP1 v6;
// GP_PERM_POSEIDON2_BABYBEAR_16_SP1, SP1 v4/v5) and its tensor commitment:
// SP1's own known answers (tests/vectors/sp1_poseidon2.json), a naive model
// of the permutation written from the formula (s'_i = 2^-32 (sum + D_i s_i)
// for the internal layer, plain modular arithmetic) on random states, a
// naive tree (overwrite sponge of rate 8, truncated-permutation
// compression) against gp_merkle_commit, and gp_merkle_sp1_commitment
// against compress(root, sponge([log2 height, width])), on every backend;
// then its refusals.
#include <gtest/gtest.h>

#include <cstdint>
#include <cstring>
#include <string>
#include <vector>

#include "hash/poseidon2_sp1.h"
#include "test_util.h"

using namespace gpt;

namespace {

struct Sp1Case {
    gp_permutation perm;
    gp_field field;
    const char *key;  // in sp1_poseidon2.json
};
const Sp1Case kCases[] = {
    {GP_PERM_POSEIDON2_KOALABEAR_16_SP1, GP_FIELD_KOALABEAR, "sp1_v6_koalabear_w16"},
    {GP_PERM_POSEIDON2_BABYBEAR_16_SP1, GP_FIELD_BABYBEAR, "sp1_v5_babybear_w16"},
};

// The permutation as its definition reads, on canonical values with plain
// modular arithmetic: no Montgomery forms, no shifts.
template <class C>
std::vector<uint64_t> naive_perm(std::vector<uint64_t> s) {
    const uint64_t p = C::Field::P;
    const int alpha = C::SBOX_DEGREE;
    const uint64_t r_inv = inv_mod(pow_mod(2, 32, p), p);
    const uint64_t D[16] = {p - 2, 1, 2, 4, 8, 16, 32, 64, 128, 256, 512, 1024, 2048, 4096, 8192, 32768};
    auto m4 = [&](uint64_t *x) {
        const uint64_t a = x[0], b = x[1], c = x[2], d = x[3];
        x[0] = (2 * a + 3 * b + c + d) % p;
        x[1] = (a + 2 * b + 3 * c + d) % p;
        x[2] = (a + b + 2 * c + 3 * d) % p;
        x[3] = (3 * a + b + c + 2 * d) % p;
    };
    auto external = [&] {
        for (int i = 0; i < 16; i += 4) m4(&s[i]);
        uint64_t sums[4] = {0, 0, 0, 0};
        for (int i = 0; i < 16; ++i) sums[i % 4] = (sums[i % 4] + s[i]) % p;
        for (int i = 0; i < 16; ++i) s[i] = (s[i] + sums[i % 4]) % p;
    };
    auto internal = [&] {
        uint64_t sum = 0;
        for (int i = 0; i < 16; ++i) sum = (sum + s[i]) % p;
        for (int i = 0; i < 16; ++i) s[i] = mul_mod(r_inv, (sum + mul_mod(D[i], s[i], p)) % p, p);
    };
    external();
    for (int r = 0; r < 4; ++r) {
        for (int i = 0; i < 16; ++i) s[i] = pow_mod((s[i] + C::external_initial[r][i]) % p, alpha, p);
        external();
    }
    for (int r = 0; r < C::ROUNDS_P; ++r) {
        s[0] = pow_mod((s[0] + C::internal[r]) % p, alpha, p);
        internal();
    }
    for (int r = 0; r < 4; ++r) {
        for (int i = 0; i < 16; ++i) s[i] = pow_mod((s[i] + C::external_terminal[r][i]) % p, alpha, p);
        external();
    }
    return s;
}

std::vector<uint64_t> naive(gp_permutation perm, const std::vector<uint64_t> &s) {
    namespace pc = gp::poseidon2_constants;
    return perm == GP_PERM_POSEIDON2_KOALABEAR_16_SP1 ? naive_perm<pc::Sp1KoalaBearW16>(s)
                                                       : naive_perm<pc::Sp1BabyBearW16>(s);
}

// gp_permute_batch of count states (16 canonical 32-bit words each).
std::vector<uint64_t> permute(gp_context *ctx, gp_permutation perm, const std::vector<uint64_t> &in) {
    std::vector<uint32_t> w(in.begin(), in.end());
    EXPECT_EQ(gp_permute_batch(ctx, perm, w.data(), w.size() / 16), GP_OK) << gp_last_error();
    return std::vector<uint64_t>(w.begin(), w.end());
}

// Overwrite sponge (Plonky3's PaddingFreeSponge, rate 8, width 16, digest 8).
std::vector<uint64_t> sponge(gp_permutation perm, const std::vector<uint64_t> &in) {
    std::vector<uint64_t> s(16, 0);
    for (size_t at = 0; at < in.size(); at += 8) {
        for (size_t k = 0; k < 8 && at + k < in.size(); ++k) s[k] = in[at + k];
        s = naive(perm, s);
    }
    s.resize(8);
    return s;
}
std::vector<uint64_t> compress(gp_permutation perm, const std::vector<uint64_t> &l, const std::vector<uint64_t> &r) {
    std::vector<uint64_t> s(l);
    s.insert(s.end(), r.begin(), r.end());
    s = naive(perm, s);
    s.resize(8);
    return s;
}

Elems digest_elems(const Bytes &b) { return le_elems(b, 4); }

class Sp1 : public BackendTest {};

TEST_P(Sp1, KnownAnswersFromSp1) {
    const std::string t = read_text_file(vectors_path("sp1_poseidon2.json"));
    ASSERT_FALSE(t.empty()) << vectors_path("sp1_poseidon2.json");
    for (const Sp1Case &c : kCases) {
        const size_t obj = json_find_key(t, c.key);
        ASSERT_NE(obj, std::string::npos) << c.key;
        const std::vector<uint64_t> in = json_hex_array(t, json_find_key(t, "input", obj));
        const std::vector<uint64_t> want = json_hex_array(t, json_find_key(t, "output", obj));
        ASSERT_EQ(in.size(), 16u);
        ASSERT_EQ(want.size(), 16u);
        EXPECT_EQ(permute(ctx(), c.perm, in), want) << c.key;
        EXPECT_EQ(naive(c.perm, in), want) << c.key << " (the test's own model)";
        uint32_t width = 0;
        gp_field field = (gp_field)0;
        ASSERT_GP_OK(gp_permutation_info(c.perm, &width, &field));
        EXPECT_EQ(width, 16u);
        EXPECT_EQ(field, c.field);
    }
}

TEST_P(Sp1, RandomStatesMatchTheNaiveModel) {
    Rng rng(0x5A1);
    for (const Sp1Case &c : kCases) {
        const uint64_t p = field_ref(c.field).p;
        std::vector<uint64_t> in(16 * 33);
        for (uint64_t &x : in) x = rng.next() % p;
        // Edge values: all p - 1, and a state of zeros but one lane.
        for (int i = 0; i < 16; ++i) in[i] = p - 1, in[16 + i] = 0;
        in[16 + 15] = p - 1;
        const std::vector<uint64_t> got = permute(ctx(), c.perm, in);
        for (size_t k = 0; k < in.size() / 16; ++k) {
            const std::vector<uint64_t> one(in.begin() + 16 * k, in.begin() + 16 * (k + 1));
            const std::vector<uint64_t> g(got.begin() + 16 * k, got.begin() + 16 * (k + 1));
            EXPECT_EQ(g, naive(c.perm, one)) << c.key << " state " << k;
        }
    }
    // SP1's KoalaBear instance shares its constants with Plonky3's current
    // one, not its internal layer: the two differ.
    std::vector<uint64_t> s(16, 7);
    EXPECT_NE(permute(ctx(), GP_PERM_POSEIDON2_KOALABEAR_16_SP1, s), permute(ctx(), GP_PERM_POSEIDON2_KOALABEAR_16, s));
}

// gp_merkle_commit with the SP1 profile against a naive tree, and the bound
// commitment against compress(root, sponge([log_h, width])).
TEST_P(Sp1, TensorCommitmentMatchesNaiveTree) {
    for (const Sp1Case &c : kCases) {
        const FieldRef &F = field_ref(c.field);
        Rng rng(0x7E5 + c.perm);
        for (const std::vector<uint64_t> &widths : {std::vector<uint64_t>{11}, std::vector<uint64_t>{3, 5, 16}}) {
            const uint64_t rows = 32;
            std::vector<HostMat> mats;
            std::vector<BufPtr> bufs;
            std::vector<const gp_buffer *> hs;
            uint64_t total = 0;
            for (uint64_t w : widths) {
                mats.push_back(random_mat(F, rows, w, 1, rng));
                bufs.emplace_back();
                ASSERT_GP_OK(upload(ctx(), F, mats.back(), GP_LAYOUT_ROW_MAJOR, &bufs.back()));
                hs.push_back(bufs.back().get());
                total += w;
            }
            gp_merkle_options o;
            gp_merkle_options_init(&o);
            o.kind = GP_MERKLE_FIELD_SPONGE;
            o.perm = c.perm;
            gp_merkle_tree *raw = nullptr;
            ASSERT_GP_OK(gp_merkle_commit(ctx(), hs.data(), (uint32_t)hs.size(), &o, &raw));
            TreePtr tree(raw);
            ASSERT_EQ(gp_merkle_digest_size(raw), 32u);
            // The naive tree: leaf r = sponge(row r of every matrix, in order).
            std::vector<std::vector<uint64_t>> layer;
            for (uint64_t r = 0; r < rows; ++r) {
                std::vector<uint64_t> row;
                for (const HostMat &m : mats)
                    for (uint64_t j = 0; j < m.cols; ++j) row.push_back(m.at(r, j, 0));
                layer.push_back(sponge(c.perm, row));
            }
            while (layer.size() > 1) {
                std::vector<std::vector<uint64_t>> up;
                for (size_t i = 0; i < layer.size(); i += 2) up.push_back(compress(c.perm, layer[i], layer[i + 1]));
                layer = up;
            }
            Bytes root(32), commit(32);
            ASSERT_GP_OK(gp_merkle_root(raw, root.data(), root.size()));
            EXPECT_EQ(digest_elems(root), Elems(layer[0].begin(), layer[0].end())) << c.key;
            ASSERT_GP_OK(gp_merkle_sp1_commitment(raw, commit.data(), commit.size()));
            const std::vector<uint64_t> want = compress(c.perm, layer[0], sponge(c.perm, {5, total}));
            EXPECT_EQ(digest_elems(commit), Elems(want.begin(), want.end())) << c.key << " width " << total;
            EXPECT_NE(digest_elems(commit), digest_elems(root));
        }
    }
}

TEST_P(Sp1, CommitmentRefusals) {
    const FieldRef &F = field_ref(GP_FIELD_KOALABEAR);
    Rng rng(3);
    BufPtr a, b;
    ASSERT_GP_OK(upload(ctx(), F, random_mat(F, 16, 4, 1, rng), GP_LAYOUT_ROW_MAJOR, &a));
    ASSERT_GP_OK(upload(ctx(), F, random_mat(F, 8, 4, 1, rng), GP_LAYOUT_ROW_MAJOR, &b));
    gp_merkle_options o;
    gp_merkle_options_init(&o);
    o.perm = GP_PERM_POSEIDON2_KOALABEAR_16_SP1;
    Bytes out(64);
    // Matrices of two heights: Plonky3's MMCS commits them, SP1 binds one height.
    const gp_buffer *two[] = {a.get(), b.get()};
    gp_merkle_tree *raw = nullptr;
    ASSERT_GP_OK(gp_merkle_commit(ctx(), two, 2, &o, &raw));
    TreePtr mixed(raw);
    EXPECT_EQ(gp_merkle_sp1_commitment(raw, out.data(), out.size()), GP_ERR_UNSUPPORTED);
    EXPECT_NE(std::string(gp_last_error()).find("several heights"), std::string::npos) << gp_last_error();
    // Another kind.
    gp_merkle_options k;
    gp_merkle_options_init(&k);
    k.kind = GP_MERKLE_KECCAK_PLONKY3;
    k.perm = GP_PERM_KECCAK_F1600;
    ASSERT_GP_OK(gp_merkle_commit(ctx(), two, 1, &k, &raw));
    TreePtr keccak(raw);
    EXPECT_EQ(gp_merkle_sp1_commitment(raw, out.data(), out.size()), GP_ERR_UNSUPPORTED);
    EXPECT_NE(std::string(gp_last_error()).find("GP_MERKLE_KECCAK_PLONKY3"), std::string::npos) << gp_last_error();
    // Short output, NULL output, NULL tree.
    ASSERT_GP_OK(gp_merkle_commit(ctx(), two, 1, &o, &raw));
    TreePtr one(raw);
    EXPECT_EQ(gp_merkle_sp1_commitment(raw, out.data(), 31), GP_ERR_INVALID_ARGUMENT);
    EXPECT_EQ(gp_merkle_sp1_commitment(raw, nullptr, 32), GP_ERR_NULL_POINTER);
    EXPECT_EQ(gp_merkle_sp1_commitment(nullptr, out.data(), 32), GP_ERR_NULL_POINTER);
    EXPECT_EQ(gp_merkle_sp1_commitment(raw, out.data(), 32), GP_OK) << gp_last_error();
}

// The partial rounds run SP1's internal layer at a scale, with lazy lanes
// (Sp1PartialRounds): one layer at the edges of its input ranges (lane 0
// canonical, lanes 1..15 anywhere below kLaneBound, where a lane's
// arithmetic would overflow first) against the layer's formula in plain
// modular arithmetic, 2^(kScale - 32) (sum + D_i t_i), and its output
// ranges.
template <class C>
void check_scaled_layer_at_bounds(const char *key) {
    using L = gp::Sp1PartialRounds<C>;
    const uint64_t p = C::Field::P;
    const uint64_t top = L::kLaneBound - 1;
    const uint64_t D[16] = {p - 2, 1, 2, 4, 8, 16, 32, 64, 128, 256, 512, 1024, 2048, 4096, 8192, 32768};
    const uint64_t scale = inv_mod(pow_mod(2, 32 - L::kScale, p), p);
    const uint64_t lane0[] = {0, 1, p - 1, p / 2};
    const uint64_t edges[] = {0, 1, p - 1, p, 2 * p - 1, 2 * p, top - 1, top};
    Rng rng(0x5CA1E);
    for (int pattern = 0; pattern < 200; ++pattern) {
        uint32_t t[16];
        t[0] = (uint32_t)lane0[pattern % 4];
        for (int i = 1; i < 16; ++i) {
            // All lanes at one edge, then each lane at the top with the
            // others random, then random edges.
            uint64_t v;
            if (pattern < 32) v = edges[pattern % 8];
            else if (pattern < 64) v = i == (pattern % 15) + 1 ? top : rng.next() % (top + 1);
            else v = edges[rng.next() % 8];
            t[i] = (uint32_t)v;
        }
        uint64_t sum = 0;
        for (int i = 0; i < 16; ++i) sum = (sum + t[i]) % p;
        uint64_t want[16];
        for (int i = 0; i < 16; ++i) want[i] = mul_mod(scale, (sum + mul_mod(D[i], t[i] % p, p)) % p, p);
        L::internal_layer(t);
        ASSERT_LT(t[0], p) << key << " pattern " << pattern;
        for (int i = 0; i < 16; ++i) {
            ASSERT_LE(t[i], top) << key << " pattern " << pattern << " lane " << i;
            ASSERT_EQ(t[i] % p, want[i]) << key << " pattern " << pattern << " lane " << i;
        }
    }
}

TEST(Sp1Layer, ScaledInternalLayerAtItsBounds) {
    namespace pc = gp::poseidon2_constants;
    check_scaled_layer_at_bounds<pc::Sp1KoalaBearW16>("sp1_v6_koalabear_w16");
    check_scaled_layer_at_bounds<pc::Sp1BabyBearW16>("sp1_v5_babybear_w16");
}

INSTANTIATE_TEST_SUITE_P(Backends, Sp1, ::testing::Values(GP_BACKEND_CPU, GP_BACKEND_CUDA),
                         [](const auto &i) { return std::string(backend_name(i.param)); });

}  // namespace
