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
// padding, and randomizer lengths from one coefficient to n (blowup - 1).
TEST_P(LdeRandomTest, MatchesNaiveReference) {
    Rng rng(501);
    for (const FieldRef &F : all_fields())
        for (uint32_t d : F.ext_degrees)
            for (uint64_t n : {(uint64_t)8, (uint64_t)32})
                for (uint32_t blowup : {2u, 8u})
                    for (uint64_t count : {(uint64_t)1, (uint64_t)(n / 2 + 1), (uint64_t)(n * (blowup - 1))}) {
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
    // gp_commit_host takes no randomizers.
    r[5] = 1;
    const ApiData coeffs(r, F.elem_size);
    o.randomizers = coeffs.data();
    gp_merkle_tree *t = nullptr;
    gp_merkle_options mo;
    gp_merkle_options_init(&mo);
    mo.perm = GP_PERM_POSEIDON2_BABYBEAR_16;
    EXPECT_EQ(commit_host_one(ctx(), F, in, &o, &mo, &t), GP_ERR_UNSUPPORTED);
    EXPECT_EQ(t, nullptr);
    EXPECT_EQ(stats_of(ctx()).buffer_bytes, 0u);
}

INSTANTIATE_TEST_SUITE_P(Backends, LdeRandomTest, ::testing::Values(GP_BACKEND_CPU, GP_BACKEND_CUDA),
                         [](const ::testing::TestParamInfo<gp_backend> &info) {
                             return std::string(backend_name(info.param));
                         });

}  // namespace
