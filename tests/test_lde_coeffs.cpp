// SPDX-License-Identifier: MIT OR Apache-2.0
// gp_lde_options.input = GP_LDE_INPUT_COEFFICIENTS (basefold's encoding:
// coefficients zero-padded by the blowup, evaluated on a coset or the
// subgroup): against Horner evaluation of the coefficients at every output
// point, every field and extension degree, both orders, shifts 1 and the
// generator, fewer input rows than n, host and buffer input, on every
// backend; equality with gp_ntt_batch of a caller-padded buffer; the
// refusals.
#include <gtest/gtest.h>

#include <cstdint>
#include <string>
#include <vector>

#include "test_util.h"

using namespace gpt;

namespace {

// The evaluations of each column's coefficients (in.rows of them; zero up to
// n) on n * blowup points g * w^idx(j).
HostMat naive_encode(const FieldRef &F, const HostMat &in, uint64_t n, uint32_t blowup, uint64_t g, gp_order order) {
    HostMat out(n * blowup, in.cols, in.d);
    for (uint64_t c = 0; c < in.cols; ++c)
        for (uint32_t k = 0; k < in.d; ++k)
            out.set_base_col(c, k, naive_eval_coset(F, in.base_col(c, k), n * blowup, g, order));
    return out;
}

gp_lde_options coeff_opts(uint64_t n, uint32_t blowup, uint64_t shift, gp_order order,
                          gp_layout layout = GP_LAYOUT_COL_MAJOR) {
    gp_lde_options o = make_opts(n, blowup, shift, 0, order, layout);
    o.input = GP_LDE_INPUT_COEFFICIENTS;
    return o;
}

class LdeCoeffs : public BackendTest {};

TEST_P(LdeCoeffs, MatchesHornerEverywhere) {
    Rng rng(0xC0EF);
    for (const FieldRef &F : all_fields())
        for (uint32_t d : F.ext_degrees)
            for (gp_order order : {GP_ORDER_NATURAL, GP_ORDER_BIT_REVERSED})
                for (uint64_t shift : {(uint64_t)1, F.generator})
                    for (uint64_t rows : {(uint64_t)16, (uint64_t)5})
                        for (LdePath path : {LdePath::kBuffer, LdePath::kHost}) {
                            const HostMat in = random_mat(F, rows, 3, d, rng);
                            const gp_lde_options o =
                                coeff_opts(16, 4, shift, order,
                                           path == LdePath::kHost ? GP_LAYOUT_ROW_MAJOR : GP_LAYOUT_COL_MAJOR);
                            HostMat out;
                            ASSERT_GP_OK(run_lde(ctx(), F, in, o, path, GP_LAYOUT_COL_MAJOR, &out));
                            EXPECT_TRUE(mats_equal(out, naive_encode(F, in, 16, 4, shift, order)))
                                << F.name << " d=" << d << " order=" << order << " shift=" << shift
                                << " rows=" << rows << " " << path_name(path);
                        }
}

// The same bytes as the caller's own padding + gp_ntt_batch, at sizes where
// the transforms run their real kernels (the CUDA backend encodes in B
// n-point transforms: each blowup, both orders, a shift, fewer rows than n,
// one transform of several tile passes).
TEST_P(LdeCoeffs, EqualsNttOfPaddedCoefficients) {
    Rng rng(77);
    struct Case {
        gp_field field;
        uint32_t d;
        uint64_t n, rows;
        uint32_t blowup;
        uint64_t shift;
        gp_order order;
    };
    const Case cases[] = {
        {GP_FIELD_KOALABEAR, 1, 1 << 12, 1 << 12, 4, 1, GP_ORDER_BIT_REVERSED},
        {GP_FIELD_GOLDILOCKS, 1, 1 << 12, 1 << 12, 4, 1, GP_ORDER_BIT_REVERSED},
        {GP_FIELD_KOALABEAR, 1, 1 << 12, (1 << 12) - 3, 2, 3, GP_ORDER_NATURAL},
        {GP_FIELD_BABYBEAR, 4, 1 << 11, 1 << 11, 8, 31, GP_ORDER_BIT_REVERSED},
        {GP_FIELD_GOLDILOCKS, 2, 1 << 10, 1000, 1, 7, GP_ORDER_NATURAL},
        {GP_FIELD_BABYBEAR, 1, 1 << 10, 1 << 10, 32, 1, GP_ORDER_NATURAL},
        {GP_FIELD_KOALABEAR, 1, 1 << 16, (1 << 16) - 1, 2, 3, GP_ORDER_BIT_REVERSED},
        {GP_FIELD_GOLDILOCKS, 1, 1 << 16, 1 << 16, 2, 7, GP_ORDER_NATURAL},
    };
    for (const Case &k : cases) {
        const FieldRef &F = field_ref(k.field);
        const HostMat in = random_mat(F, k.rows, 3, k.d, rng);
        const gp_lde_options o = coeff_opts(k.n, k.blowup, k.shift, k.order);
        HostMat got;
        ASSERT_GP_OK(run_lde(ctx(), F, in, o, LdePath::kBuffer, GP_LAYOUT_COL_MAJOR, &got));
        HostMat padded(k.n * k.blowup, in.cols, k.d);
        for (uint64_t c = 0; c < in.cols; ++c)
            for (uint64_t r = 0; r < k.rows; ++r)
                for (uint32_t j = 0; j < k.d; ++j) padded.at(r, c, j) = in.at(r, c, j);
        BufPtr buf;
        ASSERT_GP_OK(upload(ctx(), F, padded, GP_LAYOUT_COL_MAJOR, &buf));
        const gp_ntt_options no = ntt_opts(GP_NTT_FORWARD, k.shift, GP_ORDER_NATURAL, k.order);
        ASSERT_GP_OK(gp_ntt_batch(ctx(), buf.get(), &no));
        HostMat want;
        ASSERT_GP_OK(download(buf.get(), F, GP_LAYOUT_COL_MAJOR, &want));
        EXPECT_TRUE(mats_equal(got, want)) << F.name << " d=" << k.d << " n=" << k.n << " rows=" << k.rows
                                           << " B=" << k.blowup << " order=" << k.order;
    }
}

TEST_P(LdeCoeffs, Refusals) {
    const FieldRef &F = field_ref(GP_FIELD_BABYBEAR);
    Rng rng(5);
    BufPtr in, out;
    ASSERT_GP_OK(upload(ctx(), F, random_mat(F, 8, 2, 1, rng), GP_LAYOUT_COL_MAJOR, &in));
    ASSERT_GP_OK(create_buffer(ctx(), F, 1, 32, 2, &out));
    gp_lde_options o = coeff_opts(0, 4, 1, GP_ORDER_NATURAL);
    ASSERT_GP_OK(gp_lde_batch(ctx(), in.get(), &o, out.get()));
    o.input_shift = 5;
    EXPECT_EQ(gp_lde_batch(ctx(), in.get(), &o, out.get()), GP_ERR_INVALID_ARGUMENT);
    EXPECT_NE(std::string(gp_last_error()).find("input_shift"), std::string::npos) << gp_last_error();
    o.input_shift = 0;
    const uint64_t r[2] = {1, 2};
    o.randomizers = r;
    o.randomizer_count = 1;
    EXPECT_EQ(gp_lde_batch(ctx(), in.get(), &o, out.get()), GP_ERR_UNSUPPORTED);
    o.randomizers = nullptr;
    o.randomizer_count = 0;
    store_raw(&o.input, 2);
    EXPECT_EQ(gp_lde_batch(ctx(), in.get(), &o, out.get()), GP_ERR_INVALID_ARGUMENT);
    EXPECT_NE(std::string(gp_last_error()).find("options->input = 2"), std::string::npos) << gp_last_error();
    // gp_commit_host extends evaluations only.
    gp_lde_options lo = coeff_opts(0, 2, 0, GP_ORDER_BIT_REVERSED);
    gp_merkle_tree *tree = nullptr;
    const HostMat m = random_mat(F, 8, 2, 1, rng);
    EXPECT_EQ(commit_host_one(ctx(), F, m, &lo, nullptr, &tree), GP_ERR_UNSUPPORTED);
    EXPECT_EQ(tree, nullptr);
    EXPECT_NE(std::string(gp_last_error()).find("GP_LDE_INPUT_COEFFICIENTS"), std::string::npos) << gp_last_error();
}

INSTANTIATE_TEST_SUITE_P(Backends, LdeCoeffs, ::testing::Values(GP_BACKEND_CPU, GP_BACKEND_CUDA),
                         [](const auto &i) { return std::string(backend_name(i.param)); });

}  // namespace
