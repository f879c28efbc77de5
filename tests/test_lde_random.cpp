// SPDX-License-Identifier: MIT OR Apache-2.0
// The randomized LDE (gp_lde_options.randomizers): f_c(X) + (X^n - s^n)
// r_c(X) on the output coset, against a naive reference written from the
// definition (the interpolant's coefficients plus the product's, evaluated
// point by point), as Triton VM extends its tables (twenty-first's
// `randomized_column_interpolant`: interpolant plus the trace domain's
// zerofier times the randomizer; base randomizers for base columns,
// extension ones coordinate by coordinate for extension columns).
#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "test_util.h"

using namespace gpt;

namespace {

class LdeRandomTest : public BackendTest {};

// Coefficients of column c coordinate k: count per column, layout
// (c x count + j) x d + k.
std::vector<uint64_t> random_coeffs(const FieldRef &F, uint64_t cols, uint32_t d, uint64_t count, Rng &rng) {
    std::vector<uint64_t> r(cols * count * d);
    for (uint64_t &x : r) x = rng.elem(F.p);
    return r;
}

// The naive randomized LDE of `in` with options `o` and randomizers `r`.
HostMat naive_randomized(const FieldRef &F, const HostMat &in, const gp_lde_options &o,
                         const std::vector<uint64_t> &r, uint64_t count) {
    const uint64_t n = lde_n(o, in), s = o.input_shift ? o.input_shift : 1, g = o.shift ? o.shift : F.generator;
    const uint64_t s_n = pow_mod(s, n, F.p);
    HostMat out(n * o.blowup, in.cols, in.d);
    for (uint64_t c = 0; c < in.cols; ++c)
        for (uint32_t k = 0; k < in.d; ++k) {
            std::vector<uint64_t> coeffs = naive_interpolate(F, in.base_col(c, k), n, s);
            coeffs.resize(n + count, 0);
            for (uint64_t j = 0; j < count; ++j) {
                const uint64_t rj = r[(c * count + j) * in.d + k];
                coeffs[j] = sub_mod(coeffs[j], mul_mod(s_n, rj, F.p), F.p);
                coeffs[n + j] = add_mod(coeffs[n + j], rj, F.p);
            }
            out.set_base_col(c, k, naive_eval_coset(F, coeffs, n * o.blowup, g, o.output_order));
        }
    return out;
}

gp_status run_randomized(gp_context *ctx, const FieldRef &F, const HostMat &in, gp_lde_options o,
                         const std::vector<uint64_t> &r, uint64_t count, LdePath path, HostMat *out) {
    const ApiData coeffs(r, F.elem_size);
    o.randomizers = coeffs.data();
    o.randomizer_count = count;
    return run_lde(ctx, F, in, o, path, GP_LAYOUT_COL_MAJOR, out);
}

// Every field and degree, both orders and input paths, shifts, virtual
// padding, and randomizer lengths from one coefficient to n (blowup - 1):
// those the backend adds inside its LDE (m <= n with B m <= max(n, nB / 8):
// 1, and n / 4 at blowup 2) and those added by a second transform.
TEST_P(LdeRandomTest, MatchesNaiveReference) {
    Rng rng(501);
    for (const FieldRef &F : all_fields())
        for (uint32_t d : F.ext_degrees)
            for (uint64_t n : {(uint64_t)8, (uint64_t)32})
                for (uint32_t blowup : {2u, 8u})
                    for (uint64_t count : {(uint64_t)1, n / 4, n / 2 + 1, n * (blowup - 1)}) {
                        const gp_order order = count == 1 ? GP_ORDER_BIT_REVERSED : GP_ORDER_NATURAL;
                        const LdePath path = blowup == 2 ? LdePath::kHost : LdePath::kBuffer;
                        SCOPED_TRACE(std::string(F.name) + " d=" + std::to_string(d) + " n=" + std::to_string(n) +
                                     " B=" + std::to_string(blowup) + " m=" + std::to_string(count) + " " +
                                     path_name(path));
                        const uint64_t rows = count == 1 ? n - 3 : n;  // virtual padding once
                        const HostMat in = random_mat(F, rows, 3, d, rng);
                        gp_lde_options o = make_opts(n, blowup, rng.nonzero(F.p), rng.nonzero(F.p), order);
                        const std::vector<uint64_t> r = random_coeffs(F, 3, d, count, rng);
                        HostMat got;
                        ASSERT_GP_OK(run_randomized(ctx(), F, in, o, r, count, path, &got));
                        EXPECT_TRUE(mats_equal(got, naive_randomized(F, in, o, r, count)));
                    }
}

// Triton VM's shape: Goldilocks, trace domain offset 1, FRI domain offset
// 7 (the generator) and 8 times larger, natural order, 98 randomizer
// coefficients (its default), a base and a cubic extension column. On the
// trace points themselves (output shift 1: rows i x blowup) the values are
// the trace's.
TEST_P(LdeRandomTest, TritonShapeAndTraceDomainUnchanged) {
    const FieldRef &F = field_ref(GP_FIELD_GOLDILOCKS);
    Rng rng(502);
    for (uint32_t d : {1u, 3u}) {
        const HostMat in = random_mat(F, 16, 2, d, rng);
        const std::vector<uint64_t> r = random_coeffs(F, 2, d, 98, rng);
        gp_lde_options o = make_opts(0, 8, 7, 1, GP_ORDER_NATURAL);
        HostMat got;
        ASSERT_GP_OK(run_randomized(ctx(), F, in, o, r, 98, LdePath::kHost, &got));
        EXPECT_TRUE(mats_equal(got, naive_randomized(F, in, o, r, 98)));
        o.shift = 1;
        ASSERT_GP_OK(run_randomized(ctx(), F, in, o, r, 98, LdePath::kBuffer, &got));
        for (uint64_t i = 0; i < 16; ++i)
            for (uint64_t c = 0; c < 2; ++c)
                for (uint32_t k = 0; k < d; ++k) ASSERT_EQ(got.at(i * 8, c, k), in.at(i, c, k)) << i;
        // And the randomizer shows between them.
        HostMat plain;
        o.randomizers = nullptr;
        o.randomizer_count = 0;
        ASSERT_GP_OK(run_lde(ctx(), F, in, o, LdePath::kBuffer, GP_LAYOUT_COL_MAJOR, &plain));
        EXPECT_NE(got.v, plain.v);
    }
}

TEST_P(LdeRandomTest, BadInput) {
    const FieldRef &F = field_ref(GP_FIELD_BABYBEAR);
    Rng rng(503);
    const HostMat in = random_mat(F, 8, 2, 1, rng);
    std::vector<uint64_t> r = random_coeffs(F, 2, 1, 8, rng);
    gp_lde_options o = make_opts(0, 2, 0, 0, GP_ORDER_NATURAL);
    HostMat got;
    EXPECT_EQ(run_randomized(ctx(), F, in, o, r, 9, LdePath::kHost, &got), GP_ERR_INVALID_ARGUMENT);  // > n(B-1)
    EXPECT_NE(std::string(gp_last_error()).find("randomizer_count"), std::string::npos) << gp_last_error();
    EXPECT_EQ(run_randomized(ctx(), F, in, o, r, 0, LdePath::kHost, &got), GP_ERR_INVALID_ARGUMENT);
    r[5] = F.p;
    EXPECT_EQ(run_randomized(ctx(), F, in, o, r, 8, LdePath::kBuffer, &got), GP_ERR_NON_CANONICAL);
    EXPECT_NE(std::string(gp_last_error()).find("options->randomizers[5]"), std::string::npos) << gp_last_error();
    o.randomizer_count = 4;  // and no pointer
    EXPECT_EQ(run_lde(ctx(), F, in, o, LdePath::kHost, GP_LAYOUT_COL_MAJOR, &got), GP_ERR_NULL_POINTER);
    // gp_commit_host: the same checks, the matrix named; more coefficients
    // than its LDE adds inside (m > n) are refused, not computed otherwise.
    gp_merkle_tree *t = nullptr;
    gp_merkle_options mo;
    gp_merkle_options_init(&mo);
    mo.perm = GP_PERM_POSEIDON2_BABYBEAR_16;
    EXPECT_EQ(commit_host_one(ctx(), F, in, &o, &mo, &t), GP_ERR_NULL_POINTER);
    const ApiData coeffs(r, F.elem_size);
    o.randomizers = coeffs.data();
    o.randomizer_count = 8;
    EXPECT_EQ(commit_host_one(ctx(), F, in, &o, &mo, &t), GP_ERR_NON_CANONICAL);
    EXPECT_NE(std::string(gp_last_error()).find("matrices[0]: options->lde->randomizers[5]"), std::string::npos)
        << gp_last_error();
    r[5] = 1;
    const ApiData fine(r, F.elem_size);
    o.randomizers = fine.data();
    o.randomizer_count = 0;
    EXPECT_EQ(commit_host_one(ctx(), F, in, &o, &mo, &t), GP_ERR_INVALID_ARGUMENT);
    const HostMat small = random_mat(F, 4, 2, 1, rng);
    o.randomizer_count = 3;  // <= n (B - 1) = 4, > n / 2 (B m > n)
    EXPECT_EQ(commit_host_one(ctx(), F, small, &o, &mo, &t), GP_ERR_UNSUPPORTED);
    EXPECT_NE(std::string(gp_last_error()).find("randomizer_count = 3"), std::string::npos) << gp_last_error();
    EXPECT_EQ(t, nullptr);
    EXPECT_EQ(stats_of(ctx()).buffer_bytes, 0u);
}

// gp_commit_host with randomizers (two matrices of different heights and
// degrees, the randomizers of both in one array, Triton's shift) commits
// to the randomized LDEs in every keep mode: the root and the opened rows
// of gp_lde_batch_host's randomized LDEs under gp_merkle_commit, also in
// batches of a few columns (a small device budget).
TEST_P(LdeRandomTest, CommitHostMatchesInMemory) {
    const FieldRef &F = field_ref(GP_FIELD_GOLDILOCKS);
    Rng rng(504);
    const HostMat in[2] = {random_mat(F, 64, 5, 1, rng), random_mat(F, 32, 2, 3, rng)};
    const uint64_t m = 7, cols = 5 + 2 * 3;
    const std::vector<uint64_t> r = random_coeffs(F, cols, 1, m, rng);
    const ApiData coeffs(r, F.elem_size);
    gp_lde_options o = make_opts(0, 4, 7, 0, GP_ORDER_NATURAL);
    gp_merkle_options mo;
    gp_merkle_options_init(&mo);
    mo.perm = GP_PERM_POSEIDON2_GOLDILOCKS_8;  // Plonky3's MMCS: mixed heights
    const uint64_t idx[3] = {0, 77, 255};
    std::vector<unsigned char> want(32), want_rows(3 * cols * 8);
    {
        HostMat lde[2];
        BufPtr bufs[2];
        for (int i = 0; i < 2; ++i) {
            const std::vector<uint64_t> part(r.begin() + (i ? 5 * m : 0), r.begin() + (i ? cols * m : 5 * m));
            ASSERT_GP_OK(run_randomized(ctx(), F, in[i], o, part, m, LdePath::kHost, &lde[i]));
            EXPECT_TRUE(mats_equal(lde[i], naive_randomized(F, in[i], o, part, m)));
            ASSERT_GP_OK(upload(ctx(), F, lde[i], GP_LAYOUT_COL_MAJOR, &bufs[i]));
        }
        const gp_buffer *mats[2] = {bufs[0].get(), bufs[1].get()};
        gp_merkle_tree *t = nullptr;
        ASSERT_GP_OK(gp_merkle_commit(ctx(), mats, 2, &mo, &t));
        ASSERT_GP_OK(gp_merkle_root(t, want.data(), want.size()));
        ASSERT_GP_OK(gp_merkle_open(t, idx, 3, want_rows.data(), want_rows.size(), nullptr, 0));
        gp_merkle_tree_destroy(t);
    }
    o.randomizers = coeffs.data();
    o.randomizer_count = m;
    const ApiData data[2] = {ApiData(in[0].v, F.elem_size), ApiData(in[1].v, F.elem_size)};
    for (gp_keep keep : {GP_KEEP_DEVICE, GP_KEEP_HOST, GP_KEEP_NONE})
        for (uint64_t budget : {(uint64_t)0, (uint64_t)(keep == GP_KEEP_DEVICE ? 75000 : 100000)}) {
            // (a budget a little above the least working set: batches of a
            // few columns)
            SCOPED_TRACE(::testing::Message() << "keep=" << keep << " budget=" << budget);
            gp_commit_matrix mats[2]{};
            std::vector<unsigned char> lde_host[2];
            for (int i = 0; i < 2; ++i) {
                mats[i].data = data[i].data();
                mats[i].rows = in[i].rows;
                mats[i].cols = in[i].cols;
                mats[i].ext_degree = in[i].d;
                if (keep == GP_KEEP_HOST) {
                    lde_host[i].resize(in[i].rows * 4 * in[i].cols * in[i].d * 8);
                    mats[i].lde_host = lde_host[i].data();
                    mats[i].lde_host_bytes = lde_host[i].size();
                }
            }
            gp_commit_options co;
            gp_commit_options_init(&co);
            co.keep = keep;
            co.lde = &o;
            co.merkle = &mo;
            co.device_budget = budget;
            gp_buffer *kept[2] = {nullptr, nullptr};
            gp_merkle_tree *t = nullptr;
            ASSERT_GP_OK(gp_commit_host(ctx(), F.field, mats, 2, &co, keep == GP_KEEP_DEVICE ? kept : nullptr, &t));
            std::vector<unsigned char> got(32), rows(want_rows.size());
            ASSERT_GP_OK(gp_merkle_root(t, got.data(), got.size()));
            EXPECT_EQ(got, want);
            ASSERT_GP_OK(gp_merkle_open(t, idx, 3, rows.data(), rows.size(), nullptr, 0));
            EXPECT_EQ(rows, want_rows);
            gp_merkle_tree_destroy(t);
            for (gp_buffer *b : kept) gp_buffer_destroy(b);
        }
}

INSTANTIATE_TEST_SUITE_P(Backends, LdeRandomTest, ::testing::Values(GP_BACKEND_CPU, GP_BACKEND_CUDA),
                         [](const ::testing::TestParamInfo<gp_backend> &info) {
                             return std::string(backend_name(info.param));
                         });

}  // namespace
