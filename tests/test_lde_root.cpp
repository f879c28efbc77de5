// SPDX-License-Identifier: MIT OR Apache-2.0
// Transforms over another root of unity (gp_ntt_options.root,
// gp_lde_options.root), against naive references written from the
// definition with that root: winterfell's Goldilocks root (its domains list
// the library's in another order), a root of BabyBear and KoalaBear other
// than the library's, both input paths and layouts, virtual padding,
// extension columns; and the refusals.
#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "test_util.h"

using namespace gpt;

namespace {

// winterfell v0.13.1, math/src/field/f64/mod.rs: TWO_ADIC_ROOT_OF_UNITY.
constexpr uint64_t kWinterfellRoot = 7277203076849721926ull;

// A gpuprover-server session (tests/run_remote.sh replays this suite
// through one) transforms over the library's root only: there the tests
// check that the LDE and the NTT say so, and stop.
class LdeRootTest : public BackendTest {
   protected:
    bool refused_remotely() {
        if (gp_context_backend(ctx()) != GP_BACKEND_REMOTE) return false;
        const FieldRef &F = field_ref(GP_FIELD_GOLDILOCKS);
        HostMat in(8, 1, 1), got;
        gp_lde_options o = make_opts(0, 2, 0, 0, GP_ORDER_NATURAL);
        o.root = 7277203076849721926ull;
        EXPECT_EQ(run_lde(ctx(), F, in, o, LdePath::kHost, GP_LAYOUT_COL_MAJOR, &got), GP_ERR_UNSUPPORTED);
        EXPECT_NE(std::string(gp_last_error()).find("gpuprover-server"), std::string::npos) << gp_last_error();
        BufPtr buf;
        EXPECT_GP_OK(upload(ctx(), F, in, GP_LAYOUT_COL_MAJOR, &buf));
        gp_ntt_options no = ntt_opts(GP_NTT_FORWARD, 0, GP_ORDER_NATURAL, GP_ORDER_NATURAL);
        no.root = o.root;
        EXPECT_EQ(gp_ntt_batch(ctx(), buf.get(), &no), GP_ERR_UNSUPPORTED);
        return true;
    }
};

// An element of order 2^two_adicity other than the library's root: winterfell's
// for Goldilocks, the library's root cubed for the 31-bit fields.
uint64_t other_root(const FieldRef &F) {
    if (F.field == GP_FIELD_GOLDILOCKS) return kWinterfellRoot;
    return pow_mod(ref_root(F, F.two_adicity), 3, F.p);
}

// The fact the option rests on: winterfell's root is the library's to the
// odd power 0xf87d1185, so its domains are the library's reordered.
TEST(LdeRoot, WinterfellRootIsAnOddPowerOfTheLibrarys) {
    const FieldRef &F = field_ref(GP_FIELD_GOLDILOCKS);
    EXPECT_EQ(pow_mod(ref_root(F, 32), 0xf87d1185ull, F.p), kWinterfellRoot);
    EXPECT_EQ(pow_mod(kWinterfellRoot, 1ull << 31, F.p), F.p - 1);  // order exactly 2^32
}

TEST_P(LdeRootTest, LdeMatchesNaiveReference) {
    if (refused_remotely()) return;
    Rng rng(601);
    for (const FieldRef &F : all_fields())
        for (uint32_t d : F.ext_degrees)
            for (uint64_t n : {(uint64_t)2, (uint64_t)16})
                for (uint32_t blowup : {1u, 2u, 8u}) {
                    const LdePath path = blowup == 2 ? LdePath::kBuffer : LdePath::kHost;
                    const gp_layout layout = blowup == 8 ? GP_LAYOUT_ROW_MAJOR : GP_LAYOUT_COL_MAJOR;
                    const uint64_t rows = n == 16 && blowup == 8 ? n - 5 : n;  // virtual padding once
                    SCOPED_TRACE(std::string(F.name) + " d=" + std::to_string(d) + " n=" + std::to_string(n) +
                                 " B=" + std::to_string(blowup) + " rows=" + std::to_string(rows) + " " +
                                 path_name(path));
                    const HostMat in = random_mat(F, rows, 3, d, rng);
                    gp_lde_options o = make_opts(n, blowup, 0, blowup == 1 ? 0 : rng.nonzero(F.p),
                                                 GP_ORDER_NATURAL, layout);
                    o.root = other_root(F);
                    HostMat got;
                    ASSERT_GP_OK(run_lde(ctx(), F, in, o, path, GP_LAYOUT_COL_MAJOR, &got));
                    EXPECT_TRUE(mats_equal(got, naive_lde_for(F, in, o)));
                }
}

// winterfell's trace LDE: input row i is the trace at w^i, output row j the
// polynomial at 7 w'^j, with winterfell's w and w'. On every blowup-th row
// of a shift-1 extension the trace comes back in its own order; row j is
// the library's row 0xf87d1185 j mod 512 of the same trace read in the
// library's order.
TEST_P(LdeRootTest, WinterfellRowsAreTheLibrarysReordered) {
    if (refused_remotely()) return;
    const FieldRef &F = field_ref(GP_FIELD_GOLDILOCKS);
    Rng rng(602);
    const HostMat in = random_mat(F, 64, 2, 1, rng);
    gp_lde_options o = make_opts(0, 8, 1, 0, GP_ORDER_NATURAL);
    o.root = kWinterfellRoot;
    HostMat wf;
    ASSERT_GP_OK(run_lde(ctx(), F, in, o, LdePath::kHost, GP_LAYOUT_COL_MAJOR, &wf));
    for (uint64_t c = 0; c < 2; ++c)
        for (uint64_t i = 0; i < 64; ++i) ASSERT_EQ(wf.at(i * 8, c, 0), in.at(i, c, 0)) << "row " << i;
    // The same points in the library's order: trace row i is at w^(k i).
    HostMat lib_in(64, 2, 1), lib;
    for (uint64_t c = 0; c < 2; ++c)
        for (uint64_t i = 0; i < 64; ++i) lib_in.at((0xf87d1185ull * i) % 64, c, 0) = in.at(i, c, 0);
    o.root = 0;
    ASSERT_GP_OK(run_lde(ctx(), F, lib_in, o, LdePath::kHost, GP_LAYOUT_COL_MAJOR, &lib));
    for (uint64_t c = 0; c < 2; ++c)
        for (uint64_t j = 0; j < 512; ++j) ASSERT_EQ(wf.at(j, c, 0), lib.at((0xf87d1185ull * j) % 512, c, 0)) << j;
    EXPECT_FALSE(mats_equal(wf, lib));
    // The library's root given explicitly is the default.
    HostMat explicit_root;
    o.root = ref_root(F, F.two_adicity);
    ASSERT_GP_OK(run_lde(ctx(), F, lib_in, o, LdePath::kHost, GP_LAYOUT_COL_MAJOR, &explicit_root));
    EXPECT_TRUE(mats_equal(explicit_root, lib));
}

TEST_P(LdeRootTest, NttMatchesNaiveReference) {
    if (refused_remotely()) return;
    Rng rng(603);
    for (const FieldRef &F : all_fields())
        for (uint32_t d : F.ext_degrees)
            for (uint64_t n : {(uint64_t)1, (uint64_t)4, (uint64_t)32})
                for (gp_ntt_direction dir : {GP_NTT_FORWARD, GP_NTT_INVERSE}) {
                    SCOPED_TRACE(std::string(F.name) + " d=" + std::to_string(d) + " n=" + std::to_string(n) +
                                 (dir == GP_NTT_FORWARD ? " forward" : " inverse"));
                    const HostMat in = random_mat(F, n, 2, d, rng);
                    const uint64_t shift = n == 4 ? 1 : rng.nonzero(F.p);
                    gp_ntt_options o = ntt_opts(dir, shift, GP_ORDER_NATURAL, GP_ORDER_NATURAL);
                    o.root = other_root(F);
                    BufPtr buf;
                    ASSERT_GP_OK(upload(ctx(), F, in, GP_LAYOUT_COL_MAJOR, &buf));
                    ASSERT_GP_OK(gp_ntt_batch(ctx(), buf.get(), &o));
                    HostMat got;
                    ASSERT_GP_OK(download(buf.get(), F, GP_LAYOUT_COL_MAJOR, &got));
                    EXPECT_TRUE(mats_equal(got, naive_ntt(F, in, dir, shift, GP_ORDER_NATURAL, GP_ORDER_NATURAL,
                                                          o.root)));
                    // And back.
                    o.direction = dir == GP_NTT_FORWARD ? GP_NTT_INVERSE : GP_NTT_FORWARD;
                    ASSERT_GP_OK(gp_ntt_batch(ctx(), buf.get(), &o));
                    ASSERT_GP_OK(download(buf.get(), F, GP_LAYOUT_COL_MAJOR, &got));
                    EXPECT_TRUE(mats_equal(got, in));
                }
}

TEST_P(LdeRootTest, BadInput) {
    const FieldRef &F = field_ref(GP_FIELD_GOLDILOCKS);
    Rng rng(604);
    const HostMat in = random_mat(F, 8, 2, 1, rng);
    HostMat got;
    gp_lde_options o = make_opts(0, 2, 0, 0, GP_ORDER_NATURAL);
    // Not of order 2^32: a root of smaller order, a non-root, a non-canonical value.
    for (uint64_t bad : {pow_mod(kWinterfellRoot, 2, F.p), (uint64_t)5, F.p - 1, F.p, F.p + 3}) {
        o.root = bad;
        EXPECT_EQ(run_lde(ctx(), F, in, o, LdePath::kHost, GP_LAYOUT_COL_MAJOR, &got), GP_ERR_INVALID_ARGUMENT)
            << bad;
        EXPECT_NE(std::string(gp_last_error()).find("options->root"), std::string::npos) << gp_last_error();
    }
    o.root = kWinterfellRoot;
    o.output_order = GP_ORDER_BIT_REVERSED;
    EXPECT_EQ(run_lde(ctx(), F, in, o, LdePath::kBuffer, GP_LAYOUT_COL_MAJOR, &got), GP_ERR_UNSUPPORTED);
    o.output_order = GP_ORDER_NATURAL;
    const std::vector<uint64_t> r(2, 1);
    const ApiData coeffs(r, F.elem_size);
    o.randomizers = coeffs.data();
    o.randomizer_count = 1;
    EXPECT_EQ(run_lde(ctx(), F, in, o, LdePath::kHost, GP_LAYOUT_COL_MAJOR, &got), GP_ERR_UNSUPPORTED);
    EXPECT_NE(std::string(gp_last_error()).find("randomize"), std::string::npos) << gp_last_error();
    o.randomizers = nullptr;
    o.randomizer_count = 0;
    // gp_ntt_batch: bit-reversed orders and a bad root.
    BufPtr buf;
    ASSERT_GP_OK(upload(ctx(), F, in, GP_LAYOUT_COL_MAJOR, &buf));
    gp_ntt_options no = ntt_opts(GP_NTT_FORWARD, 0, GP_ORDER_BIT_REVERSED, GP_ORDER_NATURAL);
    no.root = kWinterfellRoot;
    EXPECT_EQ(gp_ntt_batch(ctx(), buf.get(), &no), GP_ERR_UNSUPPORTED);
    no.input_order = GP_ORDER_NATURAL;
    no.root = 7;
    EXPECT_EQ(gp_ntt_batch(ctx(), buf.get(), &no), GP_ERR_INVALID_ARGUMENT);
    // gp_commit_host extends over the library's root only.
    gp_merkle_tree *t = nullptr;
    EXPECT_EQ(commit_host_one(ctx(), F, in, &o, nullptr, &t), GP_ERR_UNSUPPORTED);
    EXPECT_NE(std::string(gp_last_error()).find("options->lde->root"), std::string::npos) << gp_last_error();
    EXPECT_EQ(t, nullptr);
    buf.reset();
    EXPECT_EQ(stats_of(ctx()).buffer_bytes, 0u);
}

INSTANTIATE_TEST_SUITE_P(Backends, LdeRootTest, ::testing::Values(GP_BACKEND_CPU, GP_BACKEND_CUDA),
                         [](const ::testing::TestParamInfo<gp_backend> &info) {
                             return std::string(backend_name(info.param));
                         });

}  // namespace
