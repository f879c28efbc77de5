// SPDX-License-Identifier: MIT OR Apache-2.0
/*
 * test_gpu.cpp - CUDA backend against the CPU backend, bit for bit, on large
 * random inputs; skipped (GTEST_SKIP) when no usable CUDA device exists.
 */
#include <chrono>

#include "test_util.h"

using namespace gpt;

namespace {

ApiData random_api(const FieldRef &F, size_t count, Rng &rng) {
    ApiData a = ApiData::zeros(count, F.elem_size);
    if (F.elem_size == 8) {
        for (auto &x : a.w64) x = rng.elem(F.p);
    } else {
        for (auto &x : a.w32) x = (uint32_t)rng.elem(F.p);
    }
    return a;
}

/* LDE of flat host data `in` (rows x cols x d in o.input_layout); output
 * downloaded in `out_layout` as a flat array. */
gp_status lde_raw(gp_context *ctx, const FieldRef &F, uint32_t d, const ApiData &in, uint64_t rows,
                  uint64_t cols, const gp_lde_options &o, LdePath path, gp_layout out_layout, ApiData *out) {
    const uint64_t n = o.n ? o.n : rows;
    BufPtr output;
    gp_status st = create_buffer(ctx, F, d, n * o.blowup, cols, &output);
    if (st != GP_OK) return st;
    if (path == LdePath::kHost) {
        st = gp_lde_batch_host(ctx, F.field, d, in.data(), rows, cols, &o, output.get());
    } else {
        gp_buffer *raw = nullptr;
        st = gp_buffer_from_host(ctx, F.field, d, rows, cols, o.input_layout, in.data(), &raw);
        if (st != GP_OK) return st;
        BufPtr input(raw);
        st = gp_lde_batch(ctx, input.get(), &o, output.get());
    }
    if (st != GP_OK) return st;
    *out = ApiData::zeros((size_t)(n * o.blowup * cols * d), F.elem_size);
    return gp_buffer_to_host(output.get(), out_layout, out->data(), out->size_bytes());
}

::testing::AssertionResult raw_equal(const ApiData &got, const ApiData &want) {
    if (got.count() != want.count() || got.esz != want.esz)
        return ::testing::AssertionFailure() << "sizes differ: " << got.count() << " vs " << want.count();
    if (std::memcmp(got.data(), want.data(), (size_t)want.size_bytes()) == 0)
        return ::testing::AssertionSuccess();
    size_t first = 0, count = 0;
    for (size_t i = 0; i < want.count(); ++i)
        if (got.get(i) != want.get(i)) {
            if (count++ == 0) first = i;
        }
    std::ostringstream msg;
    msg << count << " of " << want.count() << " values differ; first at flat index " << first << ": 0x" << std::hex
        << got.get(first) << " vs 0x" << want.get(first);
    return ::testing::AssertionFailure() << msg.str();
}



const gp_order kOrders[] = {GP_ORDER_NATURAL, GP_ORDER_BIT_REVERSED};
const gp_layout kLayouts[] = {GP_LAYOUT_COL_MAJOR, GP_LAYOUT_ROW_MAJOR};

class Gpu : public ::testing::Test {
   protected:
    void SetUp() override {
        GP_CONTEXT_OR_SKIP(g, GP_BACKEND_CUDA);
        GP_CONTEXT_OR_SKIP(c, GP_BACKEND_CPU);
        gpu_ = std::move(g);
        cpu_ = std::move(c);
    }
    gp_context *gpu() { return gpu_.get(); }
    gp_context *cpu() { return cpu_.get(); }

    /* Replaces gpu() by a CUDA context made with tuning knobs set (the
     * environment as the context reads it when created), e.g.
     * {{"GP_CUDA_TURN", "0"}}: the forms the defaults no longer take (or,
     * on some devices, take only for some shapes). */
    ::testing::AssertionResult use_gpu_with(std::initializer_list<std::pair<const char *, const char *>> env) {
        for (const auto &e : env) setenv(e.first, e.second, 1);
        CtxPtr g;
        const gp_status st = gpt::make_context(GP_BACKEND_CUDA, &g);
        for (const auto &e : env) unsetenv(e.first);
        if (st != GP_OK) return ::testing::AssertionFailure() << gp_last_error();
        gpu_ = std::move(g);
        return ::testing::AssertionSuccess();
    }

    /* Same LDE on both backends; outputs must be identical. */
    void compare_lde(const FieldRef &F, uint32_t d, const ApiData &in, uint64_t rows, uint64_t cols,
                     const gp_lde_options &o, LdePath path, gp_layout out_layout, const char *what = "") {
        SCOPED_TRACE(::testing::Message()
                     << what << " " << F.name << " d=" << d << " rows=" << rows << " cols=" << cols << " n=" << o.n
                     << " blowup=" << o.blowup << " shift=" << o.shift << " input_shift=" << o.input_shift
                     << " order=" << o.output_order << " in_layout=" << o.input_layout << " path=" << path_name(path)
                     << " out_layout=" << out_layout);
        ApiData g, c;
        const auto t0 = std::chrono::steady_clock::now();
        ASSERT_GP_OK(lde_raw(gpu(), F, d, in, rows, cols, o, path, out_layout, &g));
        const auto t1 = std::chrono::steady_clock::now();
        ASSERT_GP_OK(lde_raw(cpu(), F, d, in, rows, cols, o, path, out_layout, &c));
        const auto t2 = std::chrono::steady_clock::now();
        EXPECT_TRUE(raw_equal(g, c));
        if (rows * cols * d >= (1u << 20))
            std::printf("  [%s] %s d=%u n=%llu cols=%llu B=%u: GPU %.3f s, CPU %.3f s (incl. transfers)\n", what,
                        F.name, d, (unsigned long long)(o.n ? o.n : rows), (unsigned long long)cols, o.blowup,
                        std::chrono::duration<double>(t1 - t0).count(),
                        std::chrono::duration<double>(t2 - t1).count());
    }

    CtxPtr gpu_, cpu_;
};

}  // namespace

TEST_F(Gpu, ContextReportsCuda) {
    EXPECT_EQ(gp_context_backend(gpu()), GP_BACKEND_CUDA);
    char name[256] = {0};
    ASSERT_GP_OK(gp_context_device_name(gpu(), name, sizeof name));
    EXPECT_GT(std::strlen(name), 0u);
    std::printf("  device: %s\n", name);
    CtxPtr autoctx;
    ASSERT_GP_OK(make_context(GP_BACKEND_AUTO, &autoctx));
    EXPECT_EQ(gp_context_backend(autoctx.get()), GP_BACKEND_CUDA);
    /* explicit device 0 */
    const int32_t dev0[1] = {0};
    gp_context_options o;
    gp_context_options_init(&o);
    o.backend = GP_BACKEND_CUDA;
    o.devices = dev0;
    o.num_devices = 1;
    gp_context *raw = nullptr;
    ASSERT_GP_OK(gp_context_create(&o, &raw));
    gp_context_destroy(raw);
}

/* A small case against the naive reference, so that agreement with the CPU
 * backend is not agreement on a shared mistake. */
TEST_F(Gpu, SmallLdeMatchesNaive) {
    Rng rng(301);
    for (const FieldRef &F : all_fields())
        for (uint32_t d : F.ext_degrees)
            for (gp_order order : kOrders) {
                HostMat in = random_mat(F, 64, 3, d, rng);
                gp_lde_options o = make_opts(0, 8, rng.nonzero(F.p), rng.nonzero(F.p), order, GP_LAYOUT_ROW_MAJOR);
                HostMat got;
                ASSERT_GP_OK(run_lde(gpu(), F, in, o, LdePath::kHost, GP_LAYOUT_COL_MAJOR, &got));
                EXPECT_TRUE(mats_equal(got, naive_lde_for(F, in, o))) << F.name << " d=" << d;
            }
}

/* Every field and extension degree, both orders, both input layouts, both
 * paths and both download layouts. */
TEST_F(Gpu, LdeAllFieldsAndDegrees) {
    Rng rng(302);
    unsigned k = 0;
    for (const FieldRef &F : all_fields())
        for (uint32_t d : F.ext_degrees)
            for (uint32_t blowup : {2u, 8u})
                for (gp_order order : kOrders)
                    for (gp_layout in_layout : kLayouts) {
                        const uint64_t rows = 1 << 12, cols = d == 1 ? 8 : 3;
                        ApiData in = random_api(F, (size_t)(rows * cols * d), rng);
                        gp_lde_options o = make_opts(0, blowup, (k & 1) ? rng.nonzero(F.p) : 0,
                                                     (k & 2) ? rng.nonzero(F.p) : 0, order, in_layout);
                        compare_lde(F, d, in, rows, cols, o, (k & 4) ? LdePath::kBuffer : LdePath::kHost,
                                    kLayouts[(k >> 3) & 1], "all");
                        ++k;
                    }
}

/* Over winterfell's root (gp_lde_options.root): the gathers on the device
 * against the CPU backend's, with extension columns and virtual padding. */
TEST_F(Gpu, LdeWinterfellRootMatchesCpu) {
    const FieldRef &F = field_ref(GP_FIELD_GOLDILOCKS);
    Rng rng(330);
    for (uint32_t d : F.ext_degrees)
        for (uint32_t blowup : {2u, 8u}) {
            const uint64_t n = 1 << 16, rows = blowup == 8 ? n - 100 : n, cols = d == 1 ? 6 : 2;
            ApiData in = random_api(F, (size_t)(rows * cols * d), rng);
            gp_lde_options o = make_opts(n, blowup, 0, 0, GP_ORDER_NATURAL, kLayouts[blowup == 8]);
            o.root = 7277203076849721926ull;
            compare_lde(F, d, in, rows, cols, o, blowup == 8 ? LdePath::kBuffer : LdePath::kHost,
                        GP_LAYOUT_COL_MAJOR, "winterfell root");
        }
}

/* Large shapes: up to 2^20 rows and a few hundred columns, row-major input. */
TEST_F(Gpu, LdeLarge) {
    Rng rng(303);
    struct Case { gp_field f; uint32_t d; uint64_t n, cols; uint32_t blowup; };
    for (const Case &c : {Case{GP_FIELD_GOLDILOCKS, 1, 1ull << 16, 256, 4}, Case{GP_FIELD_BABYBEAR, 1, 1ull << 20, 16, 2},
                          Case{GP_FIELD_KOALABEAR, 1, 1ull << 18, 64, 8}, Case{GP_FIELD_GOLDILOCKS, 2, 1ull << 20, 2, 2},
                          Case{GP_FIELD_BABYBEAR, 4, 1ull << 18, 8, 4}}) {
        const FieldRef &F = field_ref(c.f);
        ApiData in = random_api(F, (size_t)(c.n * c.cols * c.d), rng);
        for (gp_order order : kOrders) {
            gp_lde_options o = make_opts(0, c.blowup, 0, 0, order, GP_LAYOUT_ROW_MAJOR);
            compare_lde(F, c.d, in, c.n, c.cols, o, LdePath::kHost, GP_LAYOUT_COL_MAJOR, "large");
        }
        gp_lde_options o = make_opts(0, c.blowup, rng.nonzero(F.p), rng.nonzero(F.p), GP_ORDER_BIT_REVERSED,
                                     GP_LAYOUT_ROW_MAJOR);
        compare_lde(F, c.d, in, c.n, c.cols, o, LdePath::kBuffer, GP_LAYOUT_ROW_MAJOR, "large-buffer");
    }
}

/* Blowup 2 on the 31-bit fields: the spread pass in its 16-byte, four-step
 * form (it also runs the top segment of both cosets' forward DIF), one size just
 * above a single tile and sizes of two and three segments, both
 * orders, shifts on and off, several columns. */
TEST_F(Gpu, LdeBlowup2SpreadForms) {
    Rng rng(311);
    unsigned k = 0;
    for (gp_field f : {GP_FIELD_BABYBEAR, GP_FIELD_KOALABEAR})
        for (uint32_t log_n : {15u, 16u, 21u, 22u, 23u}) {
            const FieldRef &F = field_ref(f);
            const uint64_t rows = 1ull << log_n, cols = log_n <= 16 ? 5 : 1;
            ApiData in = random_api(F, (size_t)(rows * cols), rng);
            for (gp_order order : kOrders) {
                gp_lde_options o = make_opts(0, 2, (k & 1) ? rng.nonzero(F.p) : 0, (k & 2) ? rng.nonzero(F.p) : 0,
                                             order, GP_LAYOUT_COL_MAJOR);
                compare_lde(F, 1, in, rows, cols, o, LdePath::kBuffer, GP_LAYOUT_COL_MAJOR, "blowup2");
                ++k;
            }
        }
}

/* The 31-bit fields' group form (bit-reversed output, two segments, B >= 2,
 * where the turned form is not taken: the spread's columns transforms
 * without the four-step factors, then k_pair_pass on two regions a tile)
 * at every blowup 2..32, with the spread in four-step form and in its
 * twiddled form (contexts made with GP_CUDA_TURN=0, and GP_CUDA_FOUR_STEP=0
 * for the second); extension columns, shifts on and off. */
TEST_F(Gpu, LdeGroupFormEveryBlowup) {
    Rng rng(313);
    for (bool four : {true, false}) {
        // a context without the turned form (and, !four, the four-step spread)
        if (four)
            ASSERT_TRUE(use_gpu_with({{"GP_CUDA_TURN", "0"}}));
        else
            ASSERT_TRUE(use_gpu_with({{"GP_CUDA_TURN", "0"}, {"GP_CUDA_FOUR_STEP", "0"}}));
        unsigned k = 0;
        for (gp_field f : {GP_FIELD_BABYBEAR, GP_FIELD_KOALABEAR}) {
            const FieldRef &F = field_ref(f);
            for (uint32_t log_n : {15u, 18u, 22u})
                for (uint32_t log_b = 1; log_b <= 5; ++log_b, ++k) {
                    if (log_n + log_b > F.two_adicity || (log_n == 22 && log_b > 1)) continue;
                    const uint32_t d = F.ext_degrees[k % F.ext_degrees.size()];
                    const uint64_t rows = 1ull << log_n, cols = log_n >= 22 ? 1 : 3;
                    ApiData in = random_api(F, (size_t)(rows * cols * d), rng);
                    gp_lde_options o = make_opts(0, 1u << log_b, (k & 1) ? rng.nonzero(F.p) : 0,
                                                 (k & 2) ? rng.nonzero(F.p) : 0, GP_ORDER_BIT_REVERSED,
                                                 GP_LAYOUT_COL_MAJOR);
                    compare_lde(F, d, in, rows, cols, o, LdePath::kBuffer, GP_LAYOUT_COL_MAJOR,
                                four ? "group form" : "group form, twiddled spread");
                }
        }
    }
}

/* The turned form (two segments: the inverse as a DIF into bit-reversed
 * coefficients, the forward as a DIT whose last pass writes the interleaved
 * rows or the bit-reversed regions; kernels/ntt.cuh, k_turn_pass) at every
 * blowup 1..32 in both orders (a context made with GP_CUDA_TURN=1) and, in
 * one made with GP_CUDA_TURN=0, the forms it replaces; every field,
 * extension columns, shifts on and off, and inputs shorter than n (odd row
 * counts, rows past the input zero). */
TEST_F(Gpu, LdeTurnedForm) {
    Rng rng(314);
    for (bool turn : {true, false}) {
        // GP_CUDA_TURN=1: wherever the plan allows it, also the shapes for
        // which the device keeps the other form by default (turn_for).
        ASSERT_TRUE(use_gpu_with({{"GP_CUDA_TURN", turn ? "1" : "0"}}));
        unsigned k = 0;
        for (const FieldRef &F : all_fields())
            for (uint32_t log_n : {15u, 17u, 19u, 20u, 21u, 22u, 23u})
                for (uint32_t log_b = 0; log_b <= 5; ++log_b, ++k) {
                    // From 2^19 on, the high-blowup splits (kTurnLowMaxB8;
                    // natural order with fewer cosets than B a tile row: 2^19
                    // B=32, 2^20 B=16, Goldilocks 2^21 and 2^22 B=8) and
                    // B=2, 4 at 2^22, 2^23.
                    const bool big = (log_n == 19 && (log_b == 3 || log_b == 5)) || (log_n == 20 && log_b == 4) ||
                                     (log_n == 21 && log_b == 3) || (log_n == 22 && (log_b == 1 || log_b == 3)) ||
                                     (log_n == 23 && log_b == 2);
                    if (log_n + log_b > F.two_adicity || (log_n >= 19 && !big)) continue;
                    const uint32_t d = F.ext_degrees[k % F.ext_degrees.size()];
                    const uint64_t n = 1ull << log_n, cols = log_n >= 19 ? 1 : 3;
                    const uint64_t rows = (k % 3 == 2) ? n - 2 * (k % 7) - 1 : n;
                    ApiData in = random_api(F, (size_t)(rows * cols * d), rng);
                    for (gp_order order : kOrders) {
                        gp_lde_options o = make_opts(n, 1u << log_b, (k & 1) ? rng.nonzero(F.p) : 0,
                                                     (k & 2) ? rng.nonzero(F.p) : 0, order, GP_LAYOUT_COL_MAJOR);
                        compare_lde(F, d, in, rows, cols, o, LdePath::kBuffer, GP_LAYOUT_COL_MAJOR,
                                    turn ? "turned" : "not turned");
                    }
                }
    }
}

/* Every size from 2^0 to 2^24 rows, so each pass plan is met at and around
 * its tile boundaries (one tile, two segments, three segments; the 31-bit
 * fields' spread pass that also runs the top DIF segment), with every
 * blowup from 1 to 32 among the sizes, both orders, shifts on and off. */
TEST_F(Gpu, LdeTileBoundaries) {
    Rng rng(306);
    unsigned k = 0;
    for (gp_field f : {GP_FIELD_GOLDILOCKS, GP_FIELD_BABYBEAR, GP_FIELD_KOALABEAR}) {
        const FieldRef &F = field_ref(f);
        for (uint32_t log_n = 0; log_n <= 24; ++log_n, ++k) {
            const uint64_t rows = 1ull << log_n, cols = log_n <= 16 ? 3 : 1;
            uint32_t log_b = log_n >= 23 ? (log_n & 1) : k % 6;
            log_b = std::min(log_b, F.two_adicity - log_n);  // KoalaBear: n * B <= 2^24
            const uint32_t blowup = 1u << log_b;
            ApiData in = random_api(F, (size_t)(rows * cols), rng);
            gp_lde_options o = make_opts(0, blowup, (k & 1) ? rng.nonzero(F.p) : 0, (k & 2) ? rng.nonzero(F.p) : 0,
                                         kOrders[(k >> 2) & 1], GP_LAYOUT_COL_MAJOR);
            compare_lde(F, 1, in, rows, cols, o, LdePath::kBuffer, GP_LAYOUT_COL_MAJOR, "boundaries");
        }
    }
}

/* Natural order at every blowup 1..16 on sizes of one, two and three
 * segments: the scatter pass interleaves the B cosets of a tile itself
 * where B <= 2^logC (Goldilocks 4, the 31-bit fields 8) and takes groups
 * of 2^logC cosets above that; base and extension columns. */
TEST_F(Gpu, LdeNaturalEveryBlowup) {
    Rng rng(312);
    unsigned k = 0;
    for (const FieldRef &F : all_fields())
        for (uint32_t log_n : {10u, 15u, 17u, 23u})
            for (uint32_t log_b = 0; log_b <= 4; ++log_b, ++k) {
                if (log_n + log_b > F.two_adicity || (log_n == 23 && log_b > 1)) continue;
                const uint32_t d = F.ext_degrees[k % F.ext_degrees.size()];
                const uint64_t rows = 1ull << log_n, cols = log_n >= 23 ? 1 : log_n >= 17 ? 2 : 3;
                ApiData in = random_api(F, (size_t)(rows * cols * d), rng);
                gp_lde_options o = make_opts(0, 1u << log_b, (k & 1) ? rng.nonzero(F.p) : 0,
                                             (k & 2) ? rng.nonzero(F.p) : 0, GP_ORDER_NATURAL, GP_LAYOUT_COL_MAJOR);
                compare_lde(F, d, in, rows, cols, o, LdePath::kBuffer, GP_LAYOUT_COL_MAJOR, "natural");
            }
}

/* On the GPU, the host-input path and the buffer path agree (and with the CPU). */
TEST_F(Gpu, HostPathMatchesBufferPath) {
    Rng rng(304);
    for (const FieldRef &F : all_fields()) {
        const uint32_t d = F.ext_degrees.back();
        const uint64_t rows = 1 << 14, cols = 5;
        HostMat m = random_mat(F, rows, cols, d, rng);
        gp_lde_options o = make_opts(0, 4, rng.nonzero(F.p), 0, GP_ORDER_BIT_REVERSED, GP_LAYOUT_COL_MAJOR);
        std::vector<ApiData> results;
        for (gp_layout in_layout : kLayouts)
            for (LdePath path : {LdePath::kHost, LdePath::kBuffer}) {
                o.input_layout = in_layout;
                ApiData in(to_layout(m, in_layout), F.elem_size), out;
                ASSERT_GP_OK(lde_raw(gpu(), F, d, in, rows, cols, o, path, GP_LAYOUT_ROW_MAJOR, &out));
                results.push_back(std::move(out));
            }
        ApiData cpu_out;
        ApiData in(to_layout(m, GP_LAYOUT_COL_MAJOR), F.elem_size);
        o.input_layout = GP_LAYOUT_COL_MAJOR;
        ASSERT_GP_OK(lde_raw(cpu(), F, d, in, rows, cols, o, LdePath::kBuffer, GP_LAYOUT_ROW_MAJOR, &cpu_out));
        for (size_t i = 0; i < results.size(); ++i) EXPECT_TRUE(raw_equal(results[i], cpu_out)) << F.name << " variant " << i;
    }
}

TEST_F(Gpu, NttMatchesCpu) {
    Rng rng(305);
    struct Size { uint64_t n, cols; bool ext; };
    // Two-segment sizes in the four-step form (the default) and as strided
    // tile passes (GP_CUDA_TURN=0, from 2^16 on).
    for (bool turn : {true, false}) {
        if (!turn) ASSERT_TRUE(use_gpu_with({{"GP_CUDA_TURN", "0"}}));
        for (const FieldRef &F : all_fields())
            for (uint32_t d : F.ext_degrees)
                for (const Size &sz : {Size{1, 3, true}, Size{2, 3, true}, Size{1 << 10, 4, true},
                                       Size{1 << 16, 8, false}, Size{1 << 18, 1, false}, Size{1 << 19, 1, false},
                                       Size{1 << 20, 2, false}, Size{1 << 21, 1, false}, Size{1 << 22, 1, false}})
                    for (gp_ntt_direction dir : {GP_NTT_FORWARD, GP_NTT_INVERSE})
                        for (gp_order in_order : kOrders)
                            for (gp_order out_order : kOrders) {
                                if ((!sz.ext && d > 1) || (!turn && sz.n < (1u << 16))) continue;
                                // Large sizes (around the range where the Goldilocks passes
                                // take power-of-two groups) in the two same-order pairs.
                                if (sz.n >= (1u << 18) && in_order != out_order) continue;
                                const uint64_t shift = (in_order == out_order) ? rng.nonzero(F.p) : 0;
                                SCOPED_TRACE(::testing::Message()
                                             << F.name << " d=" << d << " n=" << sz.n << " dir=" << dir << " orders "
                                             << in_order << "->" << out_order << " shift=" << shift
                                             << (turn ? " four-step" : " tile passes"));
                                ApiData in = random_api(F, (size_t)(sz.n * sz.cols * d), rng);
                                const gp_ntt_options o = ntt_opts(dir, shift, in_order, out_order);
                                ApiData outs[2];
                                gp_context *ctxs[2] = {gpu(), cpu()};
                                for (int b = 0; b < 2; ++b) {
                                    gp_buffer *raw = nullptr;
                                    ASSERT_GP_OK(gp_buffer_from_host(ctxs[b], F.field, d, sz.n, sz.cols,
                                                                     GP_LAYOUT_COL_MAJOR, in.data(), &raw));
                                    BufPtr buf(raw);
                                    ASSERT_GP_OK(gp_ntt_batch(ctxs[b], raw, &o));
                                    outs[b] = ApiData::zeros(in.count(), F.elem_size);
                                    ASSERT_GP_OK(gp_buffer_to_host(raw, GP_LAYOUT_COL_MAJOR, outs[b].data(),
                                                                   outs[b].size_bytes()));
                                }
                                EXPECT_TRUE(raw_equal(outs[0], outs[1])) << "GPU vs CPU";
                                if (sz.n > 1) {
                                    EXPECT_FALSE(raw_equal(outs[0], in)) << "NTT left the data unchanged";
                                }
                                if (sz.n >= (1u << 16) && d == 1) {
                                    /* Spot-check both against the O(n)-per-point formula, so that a
                                     * mismatch says which backend is wrong. */
                                    const uint32_t log_n = log2_exact(sz.n);
                                    for (uint64_t c : {(uint64_t)0, sz.cols - 1}) {
                                        std::vector<uint64_t> logical((size_t)sz.n);
                                        for (uint64_t i = 0; i < sz.n; ++i)
                                            logical[(size_t)i] =
                                                in.get((size_t)(c * sz.n + (in_order == GP_ORDER_BIT_REVERSED
                                                                                ? bit_reverse(i, log_n)
                                                                                : i)));
                                        for (uint64_t k : {(uint64_t)0, (uint64_t)1, (uint64_t)5, sz.n / 2 + 3,
                                                           sz.n - 1, rng.next() % sz.n}) {
                                            const uint64_t want = ntt_point(F, logical, dir, shift, k);
                                            const uint64_t row =
                                                out_order == GP_ORDER_BIT_REVERSED ? bit_reverse(k, log_n) : k;
                                            EXPECT_EQ(outs[0].get((size_t)(c * sz.n + row)), want)
                                                << "GPU wrong at col " << c << " logical index " << k;
                                            EXPECT_EQ(outs[1].get((size_t)(c * sz.n + row)), want)
                                                << "CPU wrong at col " << c << " logical index " << k;
                                        }
                                    }
                                }
                            }
    }
}

/* Virtual padding: fewer input rows than n. */
TEST_F(Gpu, LdePadding) {
    Rng rng(306);
    for (const FieldRef &F : all_fields())
        for (uint32_t d : F.ext_degrees)
            for (uint64_t rows : {1ull, 5000ull, 16383ull, 30001ull}) {
                // 2^15 rows take the gather pass for every field (2^14 is
                // one tile for the 31-bit ones); odd row counts leave every
                // other column, and the last rows, off 16-byte boundaries.
                const uint64_t cols = d == 1 ? 6 : 2, n = rows > (1u << 14) ? 1u << 15 : 1u << 14;
                ApiData in = random_api(F, (size_t)(rows * cols * d), rng);
                for (LdePath path : {LdePath::kHost, LdePath::kBuffer}) {
                    gp_lde_options o = make_opts(n, 4, rng.nonzero(F.p), rows == 1 ? 0 : rng.nonzero(F.p),
                                                 kOrders[rows & 1], kLayouts[path == LdePath::kHost]);
                    compare_lde(F, d, in, rows, cols, o, path, GP_LAYOUT_COL_MAJOR, "padding");
                }
            }
    /* and against the naive reference at a small size */
    for (const FieldRef &F : all_fields()) {
        HostMat in = random_mat(F, 37, 2, 1, rng);
        gp_lde_options o = make_opts(64, 2, 0, rng.nonzero(F.p), GP_ORDER_BIT_REVERSED, GP_LAYOUT_COL_MAJOR);
        for (LdePath path : {LdePath::kHost, LdePath::kBuffer}) {
            HostMat got;
            ASSERT_GP_OK(run_lde(gpu(), F, in, o, path, GP_LAYOUT_ROW_MAJOR, &got));
            EXPECT_TRUE(mats_equal(got, naive_lde_for(F, in, o))) << F.name << " " << path_name(path);
        }
    }
}

/* Reusing one output buffer for one shape allocates nothing (buffer path). */
TEST_F(Gpu, RepeatedLdeDoesNotAllocate) {
    Rng rng(307);
    for (const FieldRef &F : all_fields()) {
        SCOPED_TRACE(F.name);
        const uint64_t rows = 1 << 16, cols = 16;
        ApiData in = random_api(F, (size_t)(rows * cols), rng);
        gp_buffer *raw_in = nullptr, *raw_out = nullptr;
        ASSERT_GP_OK(gp_buffer_from_host(gpu(), F.field, 1, rows, cols, GP_LAYOUT_COL_MAJOR, in.data(), &raw_in));
        BufPtr input(raw_in);
        ASSERT_GP_OK(gp_buffer_create(gpu(), F.field, 1, rows * 4, cols, &raw_out));
        BufPtr output(raw_out);
        gp_lde_options o = make_opts(0, 4, 0, 0, GP_ORDER_BIT_REVERSED, GP_LAYOUT_COL_MAJOR);
        ASSERT_GP_OK(gp_lde_batch(gpu(), raw_in, &o, raw_out));
        ApiData first = ApiData::zeros((size_t)(rows * 4 * cols), F.elem_size);
        ASSERT_GP_OK(gp_buffer_to_host(raw_out, GP_LAYOUT_COL_MAJOR, first.data(), first.size_bytes()));
        const gp_memory_stats s1 = stats_of(gpu());
        for (int rep = 0; rep < 3; ++rep) {
            ASSERT_GP_OK(gp_lde_batch(gpu(), raw_in, &o, raw_out));
            const gp_memory_stats s2 = stats_of(gpu());
            EXPECT_EQ(s2.allocations, s1.allocations) << "call " << rep + 2 << " allocated";
            EXPECT_EQ(s2.buffer_bytes, s1.buffer_bytes);
        }
        ApiData again = ApiData::zeros(first.count(), F.elem_size);
        ASSERT_GP_OK(gp_buffer_to_host(raw_out, GP_LAYOUT_COL_MAJOR, again.data(), again.size_bytes()));
        EXPECT_TRUE(raw_equal(again, first));
        ApiData c;
        ASSERT_GP_OK(lde_raw(cpu(), F, 1, in, rows, cols, o, LdePath::kBuffer, GP_LAYOUT_COL_MAJOR, &c));
        EXPECT_TRUE(raw_equal(first, c));
    }
}

/* The same for the host-input path (its pinned staging is cached). */
TEST_F(Gpu, RepeatedHostLdeDoesNotAllocate) {
    Rng rng(308);
    const FieldRef &F = field_ref(GP_FIELD_BABYBEAR);
    const uint64_t rows = 1 << 18, cols = 8;
    ApiData in = random_api(F, (size_t)(rows * cols), rng);
    gp_buffer *raw_out = nullptr;
    ASSERT_GP_OK(gp_buffer_create(gpu(), F.field, 1, rows * 2, cols, &raw_out));
    BufPtr output(raw_out);
    gp_lde_options o = make_opts(0, 2, 0, 0, GP_ORDER_BIT_REVERSED, GP_LAYOUT_ROW_MAJOR);
    ASSERT_GP_OK(gp_lde_batch_host(gpu(), F.field, 1, in.data(), rows, cols, &o, raw_out));
    const gp_memory_stats s1 = stats_of(gpu());
    ASSERT_GP_OK(gp_lde_batch_host(gpu(), F.field, 1, in.data(), rows, cols, &o, raw_out));
    ASSERT_GP_OK(gp_lde_batch_host(gpu(), F.field, 1, in.data(), rows, cols, &o, raw_out));
    const gp_memory_stats s2 = stats_of(gpu());
    EXPECT_EQ(s2.allocations, s1.allocations);
    ApiData g = ApiData::zeros((size_t)(rows * 2 * cols), F.elem_size), c;
    ASSERT_GP_OK(gp_buffer_to_host(raw_out, GP_LAYOUT_COL_MAJOR, g.data(), g.size_bytes()));
    ASSERT_GP_OK(lde_raw(cpu(), F, 1, in, rows, cols, o, LdePath::kHost, GP_LAYOUT_COL_MAJOR, &c));
    EXPECT_TRUE(raw_equal(g, c));
}

TEST_F(Gpu, MemoryStatsAndTrim) {
    Rng rng(309);
    const FieldRef &F = field_ref(GP_FIELD_GOLDILOCKS);
    EXPECT_EQ(stats_of(gpu()).buffer_bytes, 0u);
    {
        BufPtr a, b;
        ASSERT_GP_OK(create_buffer(gpu(), F, 3, 1 << 12, 7, &a));
        ASSERT_GP_OK(create_buffer(gpu(), F, 1, 1 << 16, 3, &b));
        EXPECT_GE(stats_of(gpu()).buffer_bytes, gp_buffer_size_bytes(a.get()) + gp_buffer_size_bytes(b.get()));
        /* freshly created device buffers are zero */
        HostMat z;
        ASSERT_GP_OK(download(a.get(), F, GP_LAYOUT_ROW_MAJOR, &z));
        for (uint64_t x : z.v) ASSERT_EQ(x, 0u);
    }
    EXPECT_EQ(stats_of(gpu()).buffer_bytes, 0u);
    ApiData in = random_api(F, (1 << 12) * 4, rng), before, after;
    gp_lde_options o = make_opts(0, 8, 0, 0, GP_ORDER_NATURAL, GP_LAYOUT_COL_MAJOR);
    ASSERT_GP_OK(lde_raw(gpu(), F, 1, in, 1 << 12, 4, o, LdePath::kHost, GP_LAYOUT_COL_MAJOR, &before));
    const uint64_t cache_before = stats_of(gpu()).cache_bytes;
    ASSERT_GP_OK(gp_context_trim(gpu()));
    EXPECT_LE(stats_of(gpu()).cache_bytes, cache_before);
    ASSERT_GP_OK(lde_raw(gpu(), F, 1, in, 1 << 12, 4, o, LdePath::kBuffer, GP_LAYOUT_COL_MAJOR, &after));
    EXPECT_TRUE(raw_equal(after, before));
    EXPECT_EQ(stats_of(gpu()).buffer_bytes, 0u);
}

/* A buffer far larger than device memory fails cleanly and nothing breaks. */
TEST_F(Gpu, DeviceOutOfMemory) {
    const FieldRef &F = field_ref(GP_FIELD_GOLDILOCKS);
    const gp_memory_stats s0 = stats_of(gpu());
    gp_buffer *raw = nullptr;
    /* 2^34 rows x 64 columns x 8 bytes = 8 TiB */
    EXPECT_GP_ERR(gp_buffer_create(gpu(), F.field, 1, 1ull << 34, 64, &raw), GP_ERR_DEVICE_OUT_OF_MEMORY);
    EXPECT_EQ(raw, nullptr);
    if (raw) gp_buffer_destroy(raw);
    /* 2^32 rows x 32 columns x degree 3 x 8 bytes = 3 TiB */
    EXPECT_GP_ERR(gp_buffer_create(gpu(), F.field, 3, 1ull << 32, 32, &raw), GP_ERR_DEVICE_OUT_OF_MEMORY);
    EXPECT_EQ(raw, nullptr);
    if (raw) gp_buffer_destroy(raw);
    EXPECT_EQ(stats_of(gpu()).buffer_bytes, s0.buffer_bytes);
    /* the context still works */
    Rng rng(310);
    HostMat in = random_mat(F, 256, 4, 2, rng);
    gp_lde_options o = make_opts(0, 4, 0, rng.nonzero(F.p), GP_ORDER_BIT_REVERSED, GP_LAYOUT_ROW_MAJOR);
    HostMat got;
    ASSERT_GP_OK(run_lde(gpu(), F, in, o, LdePath::kHost, GP_LAYOUT_COL_MAJOR, &got));
    EXPECT_TRUE(mats_equal(got, naive_lde_for(F, in, o)));
    ApiData big = random_api(F, (size_t)(1 << 20) * 8, rng);
    compare_lde(F, 1, big, 1 << 20, 8, make_opts(0, 2, 0, 0, GP_ORDER_NATURAL, GP_LAYOUT_COL_MAJOR),
                LdePath::kBuffer, GP_LAYOUT_COL_MAJOR, "after-oom");
}

/* Buffers of the CPU context are rejected by the GPU context and vice versa. */
TEST_F(Gpu, CrossBackendContextMismatch) {
    const FieldRef &F = field_ref(GP_FIELD_KOALABEAR);
    Rng rng(311);
    HostMat m = random_mat(F, 32, 2, 1, rng);
    BufPtr in_cpu, out_cpu, in_gpu, out_gpu;
    ASSERT_GP_OK(upload(cpu(), F, m, GP_LAYOUT_COL_MAJOR, &in_cpu));
    ASSERT_GP_OK(upload(gpu(), F, m, GP_LAYOUT_COL_MAJOR, &in_gpu));
    ASSERT_GP_OK(create_buffer(cpu(), F, 1, 64, 2, &out_cpu));
    ASSERT_GP_OK(create_buffer(gpu(), F, 1, 64, 2, &out_gpu));
    gp_lde_options o = make_opts(0, 2, 0, 0, GP_ORDER_NATURAL, GP_LAYOUT_COL_MAJOR);
    EXPECT_GP_ERR(gp_lde_batch(gpu(), in_cpu.get(), &o, out_gpu.get()), GP_ERR_CONTEXT_MISMATCH);
    EXPECT_GP_ERR(gp_lde_batch(gpu(), in_gpu.get(), &o, out_cpu.get()), GP_ERR_CONTEXT_MISMATCH);
    EXPECT_GP_ERR(gp_lde_batch(cpu(), in_gpu.get(), &o, out_cpu.get()), GP_ERR_CONTEXT_MISMATCH);
    gp_ntt_options no;
    gp_ntt_options_init(&no);
    EXPECT_GP_ERR(gp_ntt_batch(gpu(), in_cpu.get(), &no), GP_ERR_CONTEXT_MISMATCH);
    ASSERT_GP_OK(gp_lde_batch(gpu(), in_gpu.get(), &o, out_gpu.get()));
    HostMat got;
    ASSERT_GP_OK(download(out_gpu.get(), F, GP_LAYOUT_COL_MAJOR, &got));
    EXPECT_TRUE(mats_equal(got, naive_lde_for(F, m, o)));
}

/* Error paths on the CUDA backend leave the context usable. */
TEST_F(Gpu, BadInputOnGpu) {
    const FieldRef &F = field_ref(GP_FIELD_BABYBEAR);
    Rng rng(312);
    HostMat m = random_mat(F, 16, 2, 1, rng);
    BufPtr in, out;
    ASSERT_GP_OK(upload(gpu(), F, m, GP_LAYOUT_COL_MAJOR, &in));
    ASSERT_GP_OK(create_buffer(gpu(), F, 1, 32, 2, &out));
    gp_lde_options o = make_opts(0, 3, 0, 0, GP_ORDER_NATURAL, GP_LAYOUT_COL_MAJOR);
    EXPECT_GP_ERR(gp_lde_batch(gpu(), in.get(), &o, out.get()), GP_ERR_INVALID_ARGUMENT);
    o = make_opts(1ull << 26, 4, 0, 0, GP_ORDER_NATURAL, GP_LAYOUT_COL_MAJOR);
    EXPECT_GP_ERR(gp_lde_batch(gpu(), in.get(), &o, out.get()), GP_ERR_TWO_ADICITY);
    o = make_opts(0, 4, 0, 0, GP_ORDER_NATURAL, GP_LAYOUT_COL_MAJOR);
    EXPECT_GP_ERR(gp_lde_batch(gpu(), in.get(), &o, out.get()), GP_ERR_SHAPE_MISMATCH);
    o = make_opts(0, 2, F.p, 0, GP_ORDER_NATURAL, GP_LAYOUT_COL_MAJOR);
    EXPECT_GP_ERR(gp_lde_batch(gpu(), in.get(), &o, out.get()), GP_ERR_INVALID_ARGUMENT);
    std::vector<uint32_t> bad(32, 1);
    bad[31] = (uint32_t)F.p;
    gp_buffer *raw = nullptr;
    EXPECT_GP_ERR(gp_buffer_from_host(gpu(), F.field, 1, 16, 2, GP_LAYOUT_ROW_MAJOR, bad.data(), &raw),
                  GP_ERR_NON_CANONICAL);
    EXPECT_EQ(raw, nullptr);
    o = make_opts(0, 2, 0, 0, GP_ORDER_NATURAL, GP_LAYOUT_ROW_MAJOR);
    EXPECT_GP_ERR(gp_lde_batch_host(gpu(), F.field, 1, bad.data(), 16, 2, &o, out.get()), GP_ERR_NON_CANONICAL);
    ASSERT_GP_OK(gp_lde_batch(gpu(), in.get(), &o, out.get()));
    HostMat got;
    ASSERT_GP_OK(download(out.get(), F, GP_LAYOUT_ROW_MAJOR, &got));
    EXPECT_TRUE(mats_equal(got, naive_lde_for(F, m, o)));
}

/* Batched permutations: the device gives the CPU's states bit for bit, for
 * every permutation, on random canonical states. */
TEST_F(Gpu, PermuteBatchMatchesCpu) {
    const gp_permutation all[] = {
        GP_PERM_POSEIDON2_GOLDILOCKS_8,  GP_PERM_POSEIDON2_GOLDILOCKS_12, GP_PERM_POSEIDON2_GOLDILOCKS_16,
        GP_PERM_POSEIDON2_GOLDILOCKS_HL_8, GP_PERM_POSEIDON2_BABYBEAR_16, GP_PERM_POSEIDON2_BABYBEAR_24,
        GP_PERM_POSEIDON2_KOALABEAR_16,  GP_PERM_POSEIDON2_KOALABEAR_24, GP_PERM_RPO256,
        GP_PERM_RPX256,                  GP_PERM_POSEIDON_GOLDILOCKS_12,  GP_PERM_TIP5,
        GP_PERM_KECCAK_F1600,            GP_PERM_POSEIDON2_BABYBEAR_32,   GP_PERM_POSEIDON2_KOALABEAR_32,
        GP_PERM_POSEIDON2_BABYBEAR_HL_16, GP_PERM_POSEIDON2_BABYBEAR_HL_24, GP_PERM_POSEIDON2_GOLDILOCKS_HL_12,
        GP_PERM_RP64_256,                GP_PERM_POSEIDON2_KOALABEAR_16_SP1, GP_PERM_POSEIDON2_BABYBEAR_16_SP1};
    const uint64_t count = 20011;
    for (gp_permutation perm : all) {
        uint32_t width = 0;
        gp_field field = (gp_field)0;
        ASSERT_GP_OK(gp_permutation_info(perm, &width, &field));
        uint64_t p = 0;
        if (field) gp_field_info(field, &p, nullptr, nullptr);
        const uint32_t es = field ? gp_field_element_size(field) : 8;
        std::vector<unsigned char> a(count * width * es);
        Rng rng(7 + (int)perm);
        for (uint64_t i = 0; i < count * width; ++i) {
            uint64_t x = rng.next();
            if (field) x %= p;
            std::memcpy(&a[i * es], &x, es);  // little-endian: low bytes
        }
        std::vector<unsigned char> b = a, in = a;
        ASSERT_GP_OK(gp_permute_batch(cpu(), perm, a.data(), count));
        ASSERT_GP_OK(gp_permute_batch(gpu(), perm, b.data(), count));
        EXPECT_NE(a, in) << "permutation " << (int)perm;
        EXPECT_TRUE(a == b) << "GPU and CPU differ for permutation " << (int)perm;
    }
    std::vector<uint64_t> bad(12, 3);
    bad[11] = 0xffffffff00000001ull;
    EXPECT_EQ(gp_permute_batch(gpu(), GP_PERM_RPO256, bad.data(), 1), GP_ERR_NON_CANONICAL);
}

namespace {

struct GpuProfile {
    const char *name;
    gp_merkle_kind kind;
    gp_permutation perm;
    gp_field field;
};

const GpuProfile kGpuProfiles[] = {
    {"poseidon2_gl8", GP_MERKLE_FIELD_SPONGE, GP_PERM_POSEIDON2_GOLDILOCKS_8, GP_FIELD_GOLDILOCKS},
    {"poseidon2_gl12", GP_MERKLE_FIELD_SPONGE, GP_PERM_POSEIDON2_GOLDILOCKS_12, GP_FIELD_GOLDILOCKS},
    {"poseidon2_gl16", GP_MERKLE_FIELD_SPONGE, GP_PERM_POSEIDON2_GOLDILOCKS_16, GP_FIELD_GOLDILOCKS},
    {"poseidon2_gl_hl8", GP_MERKLE_FIELD_SPONGE, GP_PERM_POSEIDON2_GOLDILOCKS_HL_8, GP_FIELD_GOLDILOCKS},
    {"poseidon2_bb16", GP_MERKLE_FIELD_SPONGE, GP_PERM_POSEIDON2_BABYBEAR_16, GP_FIELD_BABYBEAR},
    {"poseidon2_bb24", GP_MERKLE_FIELD_SPONGE, GP_PERM_POSEIDON2_BABYBEAR_24, GP_FIELD_BABYBEAR},
    {"poseidon2_kb16", GP_MERKLE_FIELD_SPONGE, GP_PERM_POSEIDON2_KOALABEAR_16, GP_FIELD_KOALABEAR},
    {"poseidon2_kb24", GP_MERKLE_FIELD_SPONGE, GP_PERM_POSEIDON2_KOALABEAR_24, GP_FIELD_KOALABEAR},
    {"poseidon2_bb32", GP_MERKLE_FIELD_SPONGE, GP_PERM_POSEIDON2_BABYBEAR_32, GP_FIELD_BABYBEAR},
    {"poseidon2_kb32", GP_MERKLE_FIELD_SPONGE, GP_PERM_POSEIDON2_KOALABEAR_32, GP_FIELD_KOALABEAR},
    {"poseidon2_kb16_sp1", GP_MERKLE_FIELD_SPONGE, GP_PERM_POSEIDON2_KOALABEAR_16_SP1, GP_FIELD_KOALABEAR},
    {"poseidon2_bb16_sp1", GP_MERKLE_FIELD_SPONGE, GP_PERM_POSEIDON2_BABYBEAR_16_SP1, GP_FIELD_BABYBEAR},
    {"poseidon2_bb_hl16", GP_MERKLE_FIELD_SPONGE, GP_PERM_POSEIDON2_BABYBEAR_HL_16, GP_FIELD_BABYBEAR},
    {"poseidon2_bb_hl24", GP_MERKLE_FIELD_SPONGE, GP_PERM_POSEIDON2_BABYBEAR_HL_24, GP_FIELD_BABYBEAR},
    {"poseidon2_gl_hl12", GP_MERKLE_FIELD_SPONGE, GP_PERM_POSEIDON2_GOLDILOCKS_HL_12, GP_FIELD_GOLDILOCKS},
    {"keccak_u64_gl", GP_MERKLE_KECCAK_U64, GP_PERM_KECCAK_F1600, GP_FIELD_GOLDILOCKS},
    {"keccak_u64_bb", GP_MERKLE_KECCAK_U64, GP_PERM_KECCAK_F1600, GP_FIELD_BABYBEAR},
    {"triton", GP_MERKLE_TRITON, GP_PERM_TIP5, GP_FIELD_GOLDILOCKS},
    {"tip5", GP_MERKLE_FIELD_SPONGE, GP_PERM_TIP5, GP_FIELD_GOLDILOCKS},
    {"poseidon_plonky2", GP_MERKLE_FIELD_SPONGE, GP_PERM_POSEIDON_GOLDILOCKS_12, GP_FIELD_GOLDILOCKS},
    {"rpo_miden", GP_MERKLE_MIDEN, GP_PERM_RPO256, GP_FIELD_GOLDILOCKS},
    {"rpx_miden", GP_MERKLE_MIDEN, GP_PERM_RPX256, GP_FIELD_GOLDILOCKS},
    {"rpo_miden_v0_11", GP_MERKLE_MIDEN_V0_11, GP_PERM_RPO256, GP_FIELD_GOLDILOCKS},
    {"rpo_miden_v0_10", GP_MERKLE_MIDEN_V0_10, GP_PERM_RPO256, GP_FIELD_GOLDILOCKS},
    {"keccak_plonky3_gl", GP_MERKLE_KECCAK_PLONKY3, GP_PERM_KECCAK_F1600, GP_FIELD_GOLDILOCKS},
    {"keccak_plonky3_bb", GP_MERKLE_KECCAK_PLONKY3, GP_PERM_KECCAK_F1600, GP_FIELD_BABYBEAR},
    {"keccak_plonky3_kb", GP_MERKLE_KECCAK_PLONKY3, GP_PERM_KECCAK_F1600, GP_FIELD_KOALABEAR},
    {"keccak_be_gl", GP_MERKLE_KECCAK_BE, GP_PERM_KECCAK_F1600, GP_FIELD_GOLDILOCKS},
    {"winterfell_sha3", GP_MERKLE_WINTERFELL, GP_PERM_SHA3_256, GP_FIELD_GOLDILOCKS},
    {"winterfell_blake3_256", GP_MERKLE_WINTERFELL, GP_PERM_BLAKE3, GP_FIELD_GOLDILOCKS},
    {"winterfell_blake3_192", GP_MERKLE_WINTERFELL, GP_PERM_BLAKE3_192, GP_FIELD_GOLDILOCKS},
    {"winterfell_rp64", GP_MERKLE_WINTERFELL, GP_PERM_RP64_256, GP_FIELD_GOLDILOCKS},
};

bool mixed_heights_allowed(gp_merkle_kind k) {
    return k == GP_MERKLE_FIELD_SPONGE || k == GP_MERKLE_KECCAK_PLONKY3 || k == GP_MERKLE_KECCAK_U64;
}

struct Committed {
    std::vector<BufPtr> bufs;
    std::vector<const gp_buffer *> ptrs;
    gp_merkle_tree *tree = nullptr;
    ~Committed() { gp_merkle_tree_destroy(tree); }
};

/* Uploads `data[i]` (rows[i] x cols[i] x ext[i], column-major) and commits. */
gp_status commit_on(gp_context *ctx, const FieldRef &F, const std::vector<ApiData> &data,
                    const std::vector<uint64_t> &rows, const std::vector<uint64_t> &cols,
                    const std::vector<uint32_t> &ext, const gp_merkle_options &o, Committed *c) {
    for (size_t i = 0; i < data.size(); ++i) {
        gp_buffer *b = nullptr;
        gp_status st = gp_buffer_from_host(ctx, F.field, ext[i], rows[i], cols[i], GP_LAYOUT_COL_MAJOR,
                                           data[i].data(), &b);
        if (st != GP_OK) return st;
        c->bufs.emplace_back(b);
        c->ptrs.push_back(b);
    }
    return gp_merkle_commit(ctx, c->ptrs.data(), (uint32_t)c->ptrs.size(), &o, &c->tree);
}

}  // namespace

/* Every Merkle profile: roots, caps, openings and hash_rows of the GPU equal
 * the CPU's, on 2^20 leaves for the cheap hashes (2^16 for the Rescue ones),
 * with extension columns and, where the profile has them, mixed heights. */
TEST_F(Gpu, MerkleEveryProfileMatchesCpu) {
    for (const GpuProfile &p : kGpuProfiles) {
        SCOPED_TRACE(p.name);
        const FieldRef &F = field_ref(p.field);
        const bool slow = p.perm == GP_PERM_RPO256 || p.perm == GP_PERM_RPX256 || p.perm == GP_PERM_RP64_256;
        const uint64_t H = slow ? (1u << 16) : (1u << 20);
        const uint32_t ext = F.elem_size == 8 ? 2 : 4;
        std::vector<uint64_t> rows = {H, H}, cols = {9, 3};
        std::vector<uint32_t> exts = {1, ext};
        if (mixed_heights_allowed(p.kind)) {
            rows.push_back(H / 8);
            cols.push_back(5);
            exts.push_back(1);
            rows.push_back(H / 8);
            cols.push_back(1);
            exts.push_back(ext);
        }
        Rng rng(1000 + (int)p.kind * 31 + (int)p.perm);
        std::vector<ApiData> data;
        for (size_t i = 0; i < rows.size(); ++i) data.push_back(random_api(F, rows[i] * cols[i] * exts[i], rng));
        gp_merkle_options o;
        gp_merkle_options_init(&o);
        o.kind = p.kind;
        o.perm = p.perm;
        o.cap_height = 3;
        Committed g, c;
        const auto t0 = std::chrono::steady_clock::now();
        ASSERT_GP_OK(commit_on(gpu(), F, data, rows, cols, exts, o, &g));
        const auto t1 = std::chrono::steady_clock::now();
        ASSERT_GP_OK(commit_on(cpu(), F, data, rows, cols, exts, o, &c));
        const auto t2 = std::chrono::steady_clock::now();
        std::printf("  [merkle %s] %llu leaves: GPU %.3f s, CPU %.3f s (incl. uploads)\n", p.name,
                    (unsigned long long)H, std::chrono::duration<double>(t1 - t0).count(),
                    std::chrono::duration<double>(t2 - t1).count());
        EXPECT_EQ(merkle_cap_bytes(g.tree), merkle_cap_bytes(c.tree));
        std::vector<unsigned char> rg(64), rc(64);
        ASSERT_GP_OK(gp_merkle_root(g.tree, rg.data(), rg.size()));
        ASSERT_GP_OK(gp_merkle_root(c.tree, rc.data(), rc.size()));
        EXPECT_EQ(rg, rc);
        // Openings: identical bytes, and they verify.
        const uint64_t idx[] = {0, H - 1, H / 2 + 1, 12345 % H, rng.next() % H};
        const uint64_t nq = sizeof idx / sizeof idx[0];
        uint64_t row_b = 0, path_b = 0;
        ASSERT_GP_OK(gp_merkle_opening_size(g.tree, &row_b, &path_b));
        std::vector<unsigned char> og(nq * row_b), pg(nq * path_b), oc(og.size()), pc(pg.size());
        ASSERT_GP_OK(gp_merkle_open(g.tree, idx, nq, og.data(), og.size(), pg.data(), pg.size()));
        ASSERT_GP_OK(gp_merkle_open(c.tree, idx, nq, oc.data(), oc.size(), pc.data(), pc.size()));
        EXPECT_EQ(og, oc);
        EXPECT_EQ(pg, pc);
        std::vector<gp_matrix_dims> dims;
        for (size_t i = 0; i < rows.size(); ++i) dims.push_back({rows[i], (uint32_t)cols[i], exts[i]});
        const std::vector<unsigned char> cap = merkle_cap_bytes(g.tree);
        for (uint64_t q = 0; q < nq; ++q)
            EXPECT_EQ(gp_merkle_verify(&o, p.field, dims.data(), (uint32_t)dims.size(), cap.data(), cap.size(),
                                       idx[q], og.data() + q * row_b, row_b, pg.data() + q * path_b, path_b),
                      GP_OK)
                << "index " << idx[q] << ": " << gp_last_error();
        // Leaf hashes of the two equal-height matrices.
        const uint64_t dsz = gp_merkle_digest_size(g.tree);
        std::vector<unsigned char> hg(H * dsz), hc(H * dsz);
        ASSERT_GP_OK(gp_merkle_hash_rows(gpu(), g.ptrs.data(), 2, &o, hg.data(), hg.size()));
        ASSERT_GP_OK(gp_merkle_hash_rows(cpu(), c.ptrs.data(), 2, &o, hc.data(), hc.size()));
        EXPECT_TRUE(hg == hc);
    }
}

/* The pipeline the library is for: host trace -> LDE on the device ->
 * commitment of the device-resident LDE, equal to the CPU backend's root. */
/* The randomized LDE with the randomizers added inside the LDE's own
 * passes (LdeArgs::rand_add): every pass form that forms coefficients (one
 * tile, the spread pass in its forms, the turned form, the group form) at
 * each blowup, both orders, every field and degree, shifts on and off,
 * against the CPU backend (itself checked against the definition in
 * test_lde_random.cpp). Then the host input's column batches (the addend's
 * column offset): 30 cubic columns of 2^17 rows cross in three batches. */
TEST_F(Gpu, RandomizedLdeEveryFormMatchesCpu) {
    Rng rng(331);
    for (bool turn : {true, false}) {
        ASSERT_TRUE(use_gpu_with({{"GP_CUDA_TURN", turn ? "1" : "0"}}));
        unsigned k = 0;
        for (const FieldRef &F : all_fields())
            for (uint32_t log_n : {4u, 11u, 15u, 17u, 20u})
                for (uint32_t log_b = 1; log_b <= 5; log_b += 2, ++k) {
                    if (log_n + log_b > F.two_adicity) continue;
                    const uint32_t d = F.ext_degrees[k % F.ext_degrees.size()];
                    const uint64_t n = 1ull << log_n, cols = log_n >= 17 ? 2 : 3;
                    const uint64_t rows = (k % 3 == 2) ? n - 5 : n;
                    // Triton's 98 where it fits the fused rule, else n / 2.
                    const uint64_t m = std::min<uint64_t>(98, n / 2);
                    ApiData in = random_api(F, (size_t)(rows * cols * d), rng);
                    ApiData r = random_api(F, (size_t)(m * cols * d), rng);
                    for (gp_order order : kOrders) {
                        gp_lde_options o = make_opts(n, 1u << log_b, (k & 1) ? rng.nonzero(F.p) : 0,
                                                     (k & 2) ? rng.nonzero(F.p) : 0, order, GP_LAYOUT_COL_MAJOR);
                        o.randomizers = r.data();
                        o.randomizer_count = m;
                        compare_lde(F, d, in, rows, cols, o, (k & 4) ? LdePath::kHost : LdePath::kBuffer,
                                    GP_LAYOUT_COL_MAJOR, turn ? "randomized turned" : "randomized");
                    }
                }
    }
    const FieldRef &F = field_ref(GP_FIELD_GOLDILOCKS);
    const uint64_t n = 1ull << 17, cols = 30;
    ApiData in = random_api(F, (size_t)(n * cols * 3), rng), r = random_api(F, (size_t)(98 * cols * 3), rng);
    for (gp_order order : kOrders) {
        gp_lde_options o = make_opts(0, 2, 7, 0, order, GP_LAYOUT_COL_MAJOR);
        o.randomizers = r.data();
        o.randomizer_count = 98;
        compare_lde(F, 3, in, n, cols, o, LdePath::kHost, GP_LAYOUT_COL_MAJOR, "randomized batches");
    }
}

/* gp_commit_host with randomizers on the device (streamed, every keep mode,
 * a budget that forces several batches) equals the CPU backend's root, and
 * the in-memory path (gp_lde_batch_host, gp_merkle_commit). */
TEST_F(Gpu, RandomizedCommitHostMatchesCpu) {
    const FieldRef &F = field_ref(GP_FIELD_GOLDILOCKS);
    Rng rng(332);
    const uint64_t n = 1u << 15, cols[2] = {40, 6};
    const uint32_t ext[2] = {1, 3};
    const uint64_t m = 98;
    ApiData data[2] = {random_api(F, n * cols[0], rng), random_api(F, n * cols[1] * 3, rng)};
    ApiData r = random_api(F, (size_t)(m * (cols[0] + 3 * cols[1])), rng);
    gp_lde_options lo = make_opts(0, 8, 7, 0, GP_ORDER_NATURAL, GP_LAYOUT_COL_MAJOR);
    lo.randomizers = r.data();
    lo.randomizer_count = m;
    gp_merkle_options mo;
    gp_merkle_options_init(&mo);
    mo.kind = GP_MERKLE_TRITON;
    mo.perm = GP_PERM_TIP5;
    std::vector<unsigned char> want(40), got(40);
    const uint64_t idx[2] = {5, n * 8 - 1};
    std::vector<unsigned char> want_rows(2 * (cols[0] + 3 * cols[1]) * 8), got_rows(want_rows.size());
    {  // in memory, on the CPU: the randomized LDEs, then one tree
        BufPtr out[2];
        for (int i = 0; i < 2; ++i) {
            ASSERT_GP_OK(create_buffer(cpu(), F, ext[i], n * 8, cols[i], &out[i]));
            gp_lde_options o = lo;
            o.randomizers = static_cast<const unsigned char *>(r.data()) + (i ? cols[0] * m * 8 : 0);
            ASSERT_GP_OK(gp_lde_batch_host(cpu(), F.field, ext[i], data[i].data(), n, cols[i], &o, out[i].get()));
        }
        const gp_buffer *mats[2] = {out[0].get(), out[1].get()};
        gp_merkle_tree *t = nullptr;
        ASSERT_GP_OK(gp_merkle_commit(cpu(), mats, 2, &mo, &t));
        ASSERT_GP_OK(gp_merkle_root(t, want.data(), want.size()));
        ASSERT_GP_OK(gp_merkle_open(t, idx, 2, want_rows.data(), want_rows.size(), nullptr, 0));
        gp_merkle_tree_destroy(t);
    }
    for (gp_context *ctx : {gpu(), cpu()})
        for (gp_keep keep : {GP_KEEP_DEVICE, GP_KEEP_HOST, GP_KEEP_NONE}) {
            SCOPED_TRACE(::testing::Message() << (ctx == gpu() ? "gpu" : "cpu") << " keep=" << keep);
            gp_commit_matrix mats[2];
            std::vector<unsigned char> lde_host[2];
            for (int i = 0; i < 2; ++i) {
                std::memset(&mats[i], 0, sizeof(mats[i]));
                mats[i].data = data[i].data();
                mats[i].rows = n;
                mats[i].cols = cols[i];
                mats[i].ext_degree = ext[i];
                if (keep == GP_KEEP_HOST) {
                    lde_host[i].resize(n * 8 * cols[i] * ext[i] * 8);
                    mats[i].lde_host = lde_host[i].data();
                    mats[i].lde_host_bytes = lde_host[i].size();
                }
            }
            gp_commit_options co;
            gp_commit_options_init(&co);
            co.keep = keep;
            co.lde = &lo;
            co.merkle = &mo;
            // Several batches on the device: the tree (21 MB), the sponge
            // states (34 MB) and a batch of 12 columns (82 MB with its two
            // batch buffers; 136 MB in all) are the least this commitment
            // takes, and a kept LDE 122 MB more.
            co.device_budget = (keep == GP_KEEP_DEVICE ? 232ull : 150ull) << 20;
            gp_buffer *kept[2] = {nullptr, nullptr};
            gp_merkle_tree *t = nullptr;
            ASSERT_GP_OK(gp_commit_host(ctx, F.field, mats, 2, &co, keep == GP_KEEP_DEVICE ? kept : nullptr, &t));
            ASSERT_GP_OK(gp_merkle_root(t, got.data(), got.size()));
            EXPECT_EQ(got, want);
            // The opened rows (GP_KEEP_NONE: the randomized LDE again).
            ASSERT_GP_OK(gp_merkle_open(t, idx, 2, got_rows.data(), got_rows.size(), nullptr, 0));
            EXPECT_EQ(got_rows, want_rows);
            gp_merkle_tree_destroy(t);
            for (gp_buffer *b : kept) gp_buffer_destroy(b);
        }
}

TEST_F(Gpu, LdeThenCommitMatchesCpu) {
    const FieldRef &F = field_ref(GP_FIELD_GOLDILOCKS);
    Rng rng(4242);
    const uint64_t n = 1u << 14, cols = 24;
    const ApiData trace = random_api(F, n * cols, rng);
    gp_lde_options lo;
    gp_lde_options_init(&lo);
    lo.blowup = 4;
    lo.output_order = GP_ORDER_BIT_REVERSED;
    std::vector<unsigned char> roots[2];
    gp_context *ctxs[2] = {gpu(), cpu()};
    for (int k = 0; k < 2; ++k) {
        BufPtr out;
        ASSERT_GP_OK(create_buffer(ctxs[k], F, 1, n * 4, cols, &out));
        ASSERT_GP_OK(gp_lde_batch_host(ctxs[k], F.field, 1, trace.data(), n, cols, &lo, out.get()));
        gp_merkle_options o;
        gp_merkle_options_init(&o);
        o.kind = GP_MERKLE_KECCAK_PLONKY3;
        o.perm = GP_PERM_KECCAK_F1600;
        const gp_buffer *m = out.get();
        gp_merkle_tree *t = nullptr;
        ASSERT_GP_OK(gp_merkle_commit(ctxs[k], &m, 1, &o, &t));
        roots[k].resize(32);
        EXPECT_EQ(gp_merkle_root(t, roots[k].data(), 32), GP_OK);
        gp_merkle_tree_destroy(t);
    }
    EXPECT_EQ(roots[0], roots[1]);
}

namespace {
struct FriRun {
    std::vector<std::vector<unsigned char>> caps;
    std::vector<unsigned char> remainder, openings;
};

/* The step-wise commit phase with deterministic challenges, then openings. */
gp_status fri_run(gp_context *ctx, const FieldRef &F, uint32_t d, const ApiData &cw, uint64_t n,
                  const gp_fri_options &o, const std::vector<uint64_t> &queries, FriRun *r) {
    gp_fri *fri = nullptr;
    std::vector<unsigned char> cap(4096);
    gp_status st = gp_fri_begin_host(ctx, F.field, d, cw.data(), n, &o, cap.data(), cap.size(), &fri);
    if (st != GP_OK) return st;
    cap.resize(gp_fri_cap_size(fri));
    r->caps.push_back(cap);
    std::vector<unsigned char> beta(d * F.elem_size, 0);
    for (uint32_t k = 0; k < gp_fri_layer_count(fri); ++k) {
        for (uint32_t c = 0; c < d; ++c) beta[c * F.elem_size] = (unsigned char)(3 + 7 * k + c);
        if ((st = gp_fri_fold(fri, beta.data(), beta.size(), cap.data(), cap.size())) != GP_OK) break;
        if (k + 1 < gp_fri_layer_count(fri)) r->caps.push_back(cap);
    }
    if (st == GP_OK) {
        r->remainder.resize(gp_fri_remainder_size(fri));
        st = gp_fri_remainder(fri, r->remainder.data(), r->remainder.size());
    }
    if (st == GP_OK) {
        r->openings.resize(queries.size() * gp_fri_opening_size(fri));
        st = gp_fri_open(fri, queries.data(), queries.size(), r->openings.data(), r->openings.size());
    }
    gp_fri_destroy(fri);
    return st;
}
}  // namespace

/* FRI on the GPU equals the CPU: caps of every layer, remainder and openings,
 * for 2^20-element codewords of every field and degree, every arity, both
 * orders and two hash profiles. */
TEST_F(Gpu, FriMatchesCpu) {
    struct Case {
        gp_field field;
        uint32_t d, arity, log_final;
        gp_order order;
        bool keccak;
    };
    const Case cases[] = {
        {GP_FIELD_GOLDILOCKS, 3, 2, 5, GP_ORDER_BIT_REVERSED, true},
        {GP_FIELD_GOLDILOCKS, 3, 4, 4, GP_ORDER_NATURAL, false},
        {GP_FIELD_GOLDILOCKS, 2, 8, 2, GP_ORDER_BIT_REVERSED, false},
        {GP_FIELD_GOLDILOCKS, 1, 2, 0, GP_ORDER_NATURAL, true},
        {GP_FIELD_BABYBEAR, 4, 2, 5, GP_ORDER_BIT_REVERSED, false},
        {GP_FIELD_BABYBEAR, 4, 8, 2, GP_ORDER_NATURAL, true},
        {GP_FIELD_KOALABEAR, 4, 4, 4, GP_ORDER_BIT_REVERSED, true},
        {GP_FIELD_KOALABEAR, 1, 2, 3, GP_ORDER_BIT_REVERSED, false},
    };
    const uint32_t log_n = 20;
    for (const Case &c : cases) {
        SCOPED_TRACE(::testing::Message() << "field " << c.field << " d=" << c.d << " arity " << c.arity
                                          << " order " << c.order << (c.keccak ? " keccak" : " poseidon2"));
        const FieldRef &F = field_ref(c.field);
        Rng rng(77 + c.d * 10 + c.arity);
        const uint64_t n = 1ull << log_n;
        const ApiData cw = random_api(F, n * c.d, rng);
        gp_fri_options o;
        gp_fri_options_init(&o);
        o.arity = c.arity;
        o.final_size = 1ull << c.log_final;
        o.order = c.order;
        o.shift = c.field == GP_FIELD_GOLDILOCKS ? 7 : 1;
        o.merkle.cap_height = c.log_final > 2 ? 2 : 0;
        if (c.keccak) {
            o.merkle.kind = GP_MERKLE_KECCAK_PLONKY3;
            o.merkle.perm = GP_PERM_KECCAK_F1600;
        } else {
            o.merkle.perm = c.field == GP_FIELD_GOLDILOCKS ? GP_PERM_POSEIDON2_GOLDILOCKS_12
                            : c.field == GP_FIELD_BABYBEAR ? GP_PERM_POSEIDON2_BABYBEAR_16
                                                           : GP_PERM_POSEIDON2_KOALABEAR_16;
        }
        const std::vector<uint64_t> queries = {0, n - 1, n / 3, rng.next() % n, rng.next() % n};
        FriRun g, h;
        const auto t0 = std::chrono::steady_clock::now();
        ASSERT_GP_OK(fri_run(gpu(), F, c.d, cw, n, o, queries, &g));
        const auto t1 = std::chrono::steady_clock::now();
        ASSERT_GP_OK(fri_run(cpu(), F, c.d, cw, n, o, queries, &h));
        const auto t2 = std::chrono::steady_clock::now();
        std::printf("  [fri] %s d=%u arity %u: GPU %.3f s, CPU %.3f s (incl. upload)\n", F.name, c.d, c.arity,
                    std::chrono::duration<double>(t1 - t0).count(), std::chrono::duration<double>(t2 - t1).count());
        EXPECT_EQ(g.caps, h.caps);
        EXPECT_EQ(g.remainder, h.remainder);
        EXPECT_TRUE(g.openings == h.openings);
        // The openings verify against the caps and challenges.
        std::vector<unsigned char> caps, betas;
        for (const auto &cp : g.caps) caps.insert(caps.end(), cp.begin(), cp.end());
        std::vector<unsigned char> beta(c.d * F.elem_size, 0);
        for (uint32_t k = 0; k < g.caps.size(); ++k) {
            for (uint32_t j = 0; j < c.d; ++j) beta[j * F.elem_size] = (unsigned char)(3 + 7 * k + j);
            betas.insert(betas.end(), beta.begin(), beta.end());
        }
        const uint64_t each = g.openings.size() / queries.size();
        for (size_t q = 0; q < queries.size(); ++q)
            EXPECT_EQ(gp_fri_verify(&o, c.field, c.d, n, caps.data(), caps.size(), betas.data(), betas.size(),
                                    g.remainder.data(), g.remainder.size(), queries[q], g.openings.data() + q * each,
                                    each),
                      GP_OK)
                << "query " << queries[q] << ": " << gp_last_error();
    }
}

/* OOD values and the DEEP codeword of the GPU equal the CPU's on an LDE of
 * 2^20 rows (Goldilocks base and cubic columns, BabyBear quartic). */
TEST_F(Gpu, OodAndDeepMatchCpu) {
    struct Case {
        gp_field field;
        uint32_t d, E;
        gp_order order;
    };
    const Case cases[] = {{GP_FIELD_GOLDILOCKS, 1, 3, GP_ORDER_BIT_REVERSED},
                          {GP_FIELD_GOLDILOCKS, 3, 3, GP_ORDER_NATURAL},
                          {GP_FIELD_BABYBEAR, 4, 4, GP_ORDER_BIT_REVERSED}};
    for (const Case &c : cases) {
        SCOPED_TRACE(::testing::Message() << "field " << c.field << " d=" << c.d);
        const FieldRef &F = field_ref(c.field);
        Rng rng(500 + c.d);
        const uint64_t m = 1u << 20, cols = 6;
        const ApiData data = random_api(F, m * cols * c.d, rng);
        std::vector<unsigned char> z(2 * c.E * F.elem_size), alpha(2 * cols * c.E * F.elem_size);
        for (size_t i = 0; i < z.size() / F.elem_size; ++i) {
            const uint64_t v = rng.elem(F.p);
            std::memcpy(&z[i * F.elem_size], &v, F.elem_size);
        }
        for (size_t i = 0; i < alpha.size() / F.elem_size; ++i) {
            const uint64_t v = rng.elem(F.p);
            std::memcpy(&alpha[i * F.elem_size], &v, F.elem_size);
        }
        gp_ood_options o;
        gp_ood_options_init(&o);
        o.order = c.order;
        o.degree_bound = m / 4;
        std::vector<unsigned char> ood[2], deep[2];
        gp_context *ctxs[2] = {gpu(), cpu()};
        for (int k = 0; k < 2; ++k) {
            gp_buffer *raw = nullptr;
            ASSERT_GP_OK(gp_buffer_from_host(ctxs[k], c.field, c.d, m, cols, GP_LAYOUT_COL_MAJOR, data.data(), &raw));
            BufPtr b(raw);
            ASSERT_GP_OK(gp_buffer_create(ctxs[k], c.field, c.E, m, 1, &raw));
            BufPtr q(raw);
            const gp_buffer *cb = b.get();
            ood[k].resize(2 * cols * c.E * F.elem_size);
            ASSERT_GP_OK(gp_evaluate_ood(ctxs[k], &cb, 1, &o, z.data(), 2, ood[k].data(), ood[k].size()));
            ASSERT_GP_OK(gp_deep_composition(ctxs[k], &cb, 1, &o, z.data(), 2, ood[k].data(), alpha.data(), q.get()));
            deep[k].resize(m * c.E * F.elem_size);
            ASSERT_GP_OK(gp_buffer_to_host(q.get(), GP_LAYOUT_COL_MAJOR, deep[k].data(), deep[k].size()));
        }
        EXPECT_TRUE(ood[0] == ood[1]);
        EXPECT_TRUE(deep[0] == deep[1]);
    }
}

/* The constraint commitment on the GPU equals the CPU's (segments and root),
 * both splits, 2^16 x 4 cubic evaluations at blowup 4. */
TEST_F(Gpu, ConstraintCommitMatchesCpu) {
    const FieldRef &F = field_ref(GP_FIELD_GOLDILOCKS);
    Rng rng(808);
    const uint64_t N = 1u << 16, D = 4;
    const ApiData ev = random_api(F, N * D * 3, rng);
    for (gp_composition_split split : {GP_COMPOSITION_PLONKY3, GP_COMPOSITION_WINTERFELL}) {
        SCOPED_TRACE(::testing::Message() << "split " << split);
        gp_constraint_options o;
        gp_constraint_options_init(&o);
        o.split = split;
        o.segments = (uint32_t)D;
        o.blowup = 4;
        std::vector<unsigned char> segs[2], roots[2];
        gp_context *ctxs[2] = {gpu(), cpu()};
        for (int k = 0; k < 2; ++k) {
            gp_buffer *raw = nullptr;
            ASSERT_GP_OK(gp_buffer_from_host(ctxs[k], F.field, 3, N * D, 1, GP_LAYOUT_COL_MAJOR, ev.data(), &raw));
            BufPtr in(raw);
            gp_buffer *seg = nullptr;
            gp_merkle_tree *t = nullptr;
            ASSERT_GP_OK(gp_constraint_commit(ctxs[k], in.get(), &o, &seg, &t));
            BufPtr sg(seg);
            segs[k].resize(N * 4 * D * 3 * 8);
            roots[k].resize(32);
            EXPECT_EQ(gp_buffer_to_host(seg, GP_LAYOUT_COL_MAJOR, segs[k].data(), segs[k].size()), GP_OK);
            EXPECT_EQ(gp_merkle_root(t, roots[k].data(), 32), GP_OK);
            gp_merkle_tree_destroy(t);
        }
        EXPECT_TRUE(segs[0] == segs[1]);
        EXPECT_EQ(roots[0], roots[1]);
    }
}

/* winterfell's trees over rows of 306 elements (three BLAKE3 chunks, many
 * sponge blocks): the GPU's caps, openings and leaf hashes equal the CPU's,
 * and so does gp_commit_host's streamed tree at its least budget (column
 * batches carrying BLAKE3's chunk tree between them). */
TEST_F(Gpu, WinterfellWideRowsMatchCpu) {
    const FieldRef &F = field_ref(GP_FIELD_GOLDILOCKS);
    Rng rng(4711);
    const uint64_t n = 1u << 12, blowup = 4, H = n * blowup;
    const uint64_t cols[2] = {300, 2};
    const uint32_t exts[2] = {1, 3};
    ApiData trace[2] = {random_api(F, n * cols[0], rng), random_api(F, n * cols[1] * exts[1], rng)};
    gp_lde_options lo;
    gp_lde_options_init(&lo);
    lo.blowup = (uint32_t)blowup;
    lo.output_order = GP_ORDER_NATURAL;
    for (gp_permutation perm : {GP_PERM_SHA3_256, GP_PERM_BLAKE3, GP_PERM_BLAKE3_192, GP_PERM_RP64_256}) {
        SCOPED_TRACE((int)perm);
        gp_merkle_options o;
        gp_merkle_options_init(&o);
        o.kind = GP_MERKLE_WINTERFELL;
        o.perm = perm;
        o.cap_height = 2;
        std::vector<unsigned char> caps[2], opened[2], leaves[2], streamed[2];
        gp_context *ctxs[2] = {gpu(), cpu()};
        const uint64_t idx[] = {0, 5, H / 2 + 1, H - 1};
        for (int k = 0; k < 2; ++k) {
            BufPtr lde[2];
            const gp_buffer *m[2];
            for (int i = 0; i < 2; ++i) {
                ASSERT_GP_OK(create_buffer(ctxs[k], F, exts[i], H, cols[i], &lde[i]));
                ASSERT_GP_OK(
                    gp_lde_batch_host(ctxs[k], F.field, exts[i], trace[i].data(), n, cols[i], &lo, lde[i].get()));
                m[i] = lde[i].get();
            }
            gp_merkle_tree *t = nullptr;
            ASSERT_GP_OK(gp_merkle_commit(ctxs[k], m, 2, &o, &t));
            TreePtr tree(t);
            caps[k] = merkle_cap_bytes(t);
            uint64_t rb = 0, pb = 0;
            ASSERT_GP_OK(gp_merkle_opening_size(t, &rb, &pb));
            opened[k].resize(4 * (rb + pb));
            ASSERT_GP_OK(gp_merkle_open(t, idx, 4, opened[k].data(), 4 * rb, opened[k].data() + 4 * rb, 4 * pb));
            leaves[k].resize(H * gp_merkle_digest_size(t));
            ASSERT_GP_OK(gp_merkle_hash_rows(ctxs[k], m, 2, &o, leaves[k].data(), leaves[k].size()));
            // The streamed commitment at its least budget.
            gp_commit_matrix cm[2] = {};
            for (int i = 0; i < 2; ++i) {
                cm[i].data = trace[i].data();
                cm[i].rows = n;
                cm[i].cols = cols[i];
                cm[i].ext_degree = exts[i];
            }
            gp_commit_options co;
            gp_commit_options_init(&co);
            co.lde = &lo;
            co.merkle = &o;
            co.keep = GP_KEEP_NONE;
            co.device_budget = 1;
            gp_merkle_tree *s = nullptr;
            ASSERT_EQ(gp_commit_host(ctxs[k], F.field, cm, 2, &co, nullptr, &s), GP_ERR_INVALID_ARGUMENT);
            const std::string msg = gp_last_error();
            const size_t at = msg.find("below the minimum ");
            ASSERT_NE(at, std::string::npos) << msg;
            co.device_budget = std::stoull(msg.substr(at + 18));
            ASSERT_GP_OK(gp_commit_host(ctxs[k], F.field, cm, 2, &co, nullptr, &s));
            TreePtr st(s);
            streamed[k] = merkle_cap_bytes(s);
            EXPECT_EQ(streamed[k], caps[k]);
        }
        EXPECT_TRUE(caps[0] == caps[1]);
        EXPECT_TRUE(opened[0] == opened[1]);
        EXPECT_TRUE(leaves[0] == leaves[1]);
        EXPECT_TRUE(streamed[0] == streamed[1]);
    }
}
