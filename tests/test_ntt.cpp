// SPDX-License-Identifier: MIT OR Apache-2.0
/*
 * test_ntt.cpp - batched NTT and coset LDE against a naive O(n^2) reference,
 * parameterized over the backend (CPU always; CUDA skipped without a device).
 */
#include <utility>

#include "math/field.h"
#include "math/ntt.h"
#include "test_util.h"

using namespace gpt;

namespace {

std::string describe(const FieldRef &F, const HostMat &in, const gp_lde_options &o, LdePath path,
                     gp_layout out_layout) {
    std::ostringstream s;
    s << F.name << " d=" << in.d << " rows=" << in.rows << " cols=" << in.cols << " n=" << o.n
      << " blowup=" << o.blowup << " shift=" << o.shift << " input_shift=" << o.input_shift
      << " order=" << (o.output_order == GP_ORDER_NATURAL ? "natural" : "bitrev")
      << " in_layout=" << (o.input_layout == GP_LAYOUT_COL_MAJOR ? "col" : "row")
      << " path=" << path_name(path)
      << " out_layout=" << (out_layout == GP_LAYOUT_COL_MAJOR ? "col" : "row");
    return s.str();
}


/* Run one LDE and compare with the naive reference. */
void check_lde(gp_context *ctx, const FieldRef &F, const HostMat &in, const gp_lde_options &o,
               LdePath path, gp_layout out_layout) {
    SCOPED_TRACE(describe(F, in, o, path, out_layout));
    HostMat got;
    gp_status st = run_lde(ctx, F, in, o, path, out_layout, &got);
    ASSERT_EQ(st, GP_OK) << gp_last_error();
    EXPECT_TRUE(mats_equal(got, naive_lde_for(F, in, o)));
}

/* Run one NTT on a copy of `in` and return the result. */
gp_status run_ntt(gp_context *ctx, const FieldRef &F, const HostMat &in, const gp_ntt_options &o,
                  gp_layout layout, HostMat *out) {
    BufPtr b;
    gp_status st = upload(ctx, F, in, layout, &b);
    if (st != GP_OK) return st;
    st = gp_ntt_batch(ctx, b.get(), &o);
    if (st != GP_OK) return st;
    return download(b.get(), F, layout == GP_LAYOUT_COL_MAJOR ? GP_LAYOUT_ROW_MAJOR : GP_LAYOUT_COL_MAJOR,
                    out);
}

const gp_order kOrders[] = {GP_ORDER_NATURAL, GP_ORDER_BIT_REVERSED};
const gp_layout kLayouts[] = {GP_LAYOUT_COL_MAJOR, GP_LAYOUT_ROW_MAJOR};

class NttTest : public BackendTest {};

}  // namespace

/* ------------------------------------------------------------------------ */
/* The reference itself against the independently derived size-8 examples   */
/* ------------------------------------------------------------------------ */

TEST(Reference, MatchesDerivedExamples) {
    const std::string json = read_text_file(vectors_path("ntt_conventions.json"));
    ASSERT_FALSE(json.empty()) << "cannot read " << vectors_path("ntt_conventions.json");
    for (const FieldRef &F : all_fields()) {
        SCOPED_TRACE(F.name);
        DerivedDftExample ex = json_derived_example(json, F.name);
        ASSERT_TRUE(ex.found);
        ASSERT_EQ(ex.n, 8u);
        ASSERT_EQ(ex.coefficients.size(), 8u);
        ASSERT_EQ(ex.dft.size(), 8u);
        ASSERT_EQ(ex.coset_dft.size(), 8u);
        EXPECT_EQ(ex.root, ref_root(F, 3));
        EXPECT_EQ(ex.coset_shift, F.generator);
        for (uint64_t i = 0; i < 8; ++i) EXPECT_EQ(ex.coefficients[i], i);
        EXPECT_EQ(naive_eval_coset(F, ex.coefficients, 8, 1, GP_ORDER_NATURAL), ex.dft);
        EXPECT_EQ(naive_eval_coset(F, ex.coefficients, 8, F.generator, GP_ORDER_NATURAL), ex.coset_dft);
        EXPECT_EQ(naive_interpolate(F, ex.dft, 8, 1), ex.coefficients);
        EXPECT_EQ(naive_interpolate(F, ex.coset_dft, 8, F.generator), ex.coefficients);
        /* the LDE reference of the coset example with blowup 1 */
        HostMat in(8, 1, 1);
        in.v = ex.dft;
        EXPECT_EQ(naive_lde(F, in, 8, 1, F.generator, 1, GP_ORDER_NATURAL).v, ex.coset_dft);
    }
}

/* The O(n) spot-check formula agrees with the full naive transform. */
TEST(Reference, NttPointMatchesNaive) {
    Rng rng(100);
    for (const FieldRef &F : all_fields())
        for (uint64_t n : {1ull, 2ull, 16ull, 64ull})
            for (gp_ntt_direction dir : {GP_NTT_FORWARD, GP_NTT_INVERSE}) {
                HostMat in = random_mat(F, n, 1, 1, rng);
                const uint64_t shift = rng.nonzero(F.p);
                const HostMat full = naive_ntt(F, in, dir, shift, GP_ORDER_NATURAL, GP_ORDER_NATURAL);
                for (uint64_t k = 0; k < n; ++k)
                    EXPECT_EQ(ntt_point(F, in.v, dir, shift, k), full.v[k]) << F.name << " n " << n << " k " << k;
                /* forward then inverse is the identity in the reference too */
                if (dir == GP_NTT_FORWARD) {
                    const HostMat back = naive_ntt(F, full, GP_NTT_INVERSE, shift, GP_ORDER_NATURAL, GP_ORDER_NATURAL);
                    EXPECT_EQ(back.v, in.v) << F.name << " n " << n;
                }
            }
}

/* The power-of-two products of the Goldilocks NTT kernels' inner twiddles:
 * Goldilocks::mul_pow2<E> with its sign is x * 2^E for every E < 192
 * (2^96 = -1), canonical, for edge and random canonical x (the device build
 * of the same header: tests/test_math_cuda.cu); root_log2 names the roots
 * of the twiddle tables. */
template <int... E>
void check_mul_pow2(const std::vector<uint64_t> &xs, std::integer_sequence<int, E...>) {
    using G = gp::Goldilocks;
    auto one = [&](auto ec) {
        constexpr int kE = decltype(ec)::value;
        const uint64_t two_e = gp::fpow<G>(2, kE);
        for (uint64_t x : xs) {
            const uint64_t y = G::mul_pow2<kE>(x);
            ASSERT_LT(y, G::P) << "E = " << kE << ", x = " << x;
            ASSERT_EQ(G::pow2_neg<kE>() ? G::sub(0, y) : y, G::mul(x, two_e)) << "E = " << kE << ", x = " << x;
        }
    };
    (one(std::integral_constant<int, E>{}), ...);
}

TEST(Reference, GoldilocksPowerOfTwoProducts) {
    using G = gp::Goldilocks;
    std::vector<uint64_t> xs = {0, 1, 2, 3, G::P - 1, G::P - 2, G::P / 2, G::P / 2 + 1, 0xffffffffull, 1ull << 32};
    for (int b = 1; b < 64; ++b)
        for (uint64_t x : {(1ull << b) - 1, 1ull << b, G::P - (1ull << b)})
            if (x < G::P) xs.push_back(x);
    Rng rng(107);
    for (int i = 0; i < 200; ++i) xs.push_back(rng.elem(G::P));
    check_mul_pow2(xs, std::make_integer_sequence<int, 192>{});
    for (int m = 0; m <= 6; ++m) {
        const uint64_t w = gp::two_adic_generator<G>(m);
        EXPECT_EQ(gp::fpow<G>(2, G::root_log2(m, false)), w) << "m = " << m;
        EXPECT_EQ(gp::fpow<G>(2, G::root_log2(m, true)), gp::finv<G>(w)) << "m = " << m;
    }
}

/* The four-step factors (build_segment_factors): the top t stages of a
 * size-2^n DIT on bit-reversed rows equal the factors times the input, then
 * independent size-2^t DITs of the 2^(n-t) columns; the top t stages of a
 * DIF equal the column DIFs, then the factors. Compared against the
 * radix-2 stages for every split of small sizes, both directions. */
struct SerialRanges {
    template <class Fn>
    void parallel_ranges(uint64_t count, Fn &&fn) {
        fn(0, count);
    }
};

template <class F>
static void check_segment_factors(uint64_t seed) {
    using T = typename F::T;
    using Tw = typename F::Tw;
    SerialRanges pool;
    Rng rng(seed);
    for (uint32_t n = 2; n <= 11; ++n)
        for (uint32_t t = 1; t < n; ++t)
            for (bool inverse : {false, true}) {
                const uint32_t lo = n - t;
                const uint64_t N = 1ull << n, rows = 1ull << t, cols = 1ull << lo;
                std::vector<Tw> tw(N), fac(N);
                gp::build_twiddles<F>(tw.data(), n, inverse, pool);
                gp::build_segment_factors<F>(fac.data(), n, t, tw.data(), pool);
                std::vector<T> a(N);
                for (T &x : a) x = (T)rng.elem(F::P);
                auto columns = [&](std::vector<T> &v, bool dif) {
                    std::vector<T> col(rows);
                    for (uint64_t b = 0; b < cols; ++b) {
                        for (uint64_t m = 0; m < rows; ++m) col[m] = v[(m << lo) + b];
                        if (dif) gp::dif_stages<F>(col.data(), t, 0, t, tw.data());
                        else gp::dit_stages<F>(col.data(), t, 0, t, tw.data());
                        for (uint64_t m = 0; m < rows; ++m) v[(m << lo) + b] = col[m];
                    }
                };
                auto times = [&](std::vector<T> &v) {
                    for (uint64_t i = 0; i < N; ++i) v[i] = F::mul_tw(v[i], fac[i]);
                };
                std::vector<T> want = a, got = a;
                gp::dit_stages<F>(want.data(), n, lo, n, tw.data());
                times(got);
                columns(got, false);
                ASSERT_EQ(got, want) << "DIT n=" << n << " t=" << t << " inverse=" << inverse;
                want = a, got = a;
                gp::dif_stages<F>(want.data(), n, lo, n, tw.data());
                columns(got, true);
                times(got);
                ASSERT_EQ(got, want) << "DIF n=" << n << " t=" << t << " inverse=" << inverse;
            }
}

TEST(Reference, SegmentFactorsGiveTheTopSegment) {
    check_segment_factors<gp::BabyBear>(108);
    check_segment_factors<gp::KoalaBear>(109);
    check_segment_factors<gp::Goldilocks>(110);
}

/* The turned LDE (what the CUDA backend's two-segment LDE computes,
 * kernels/ntt.cuh k_turn_pass): the inverse as a DIF from natural
 * evaluations to bit-reversed coefficients, the scaling (g/s)^k / n and the
 * coset step w_{nB}^k read at position bit_reverse(k) (TableKind::PowersRev),
 * each coset's forward transform as a DIT to natural evaluations. Compared,
 * for every size up to 2^10 and blowup up to 8, with the CPU backend's
 * route (bit-reversed gather, inverse DIT, scaling, forward DIF,
 * bit-reversed output) and, below 2^5, with the polynomial evaluated
 * directly. */
template <class F>
static void check_turned_lde(uint64_t seed) {
    using T = typename F::T;
    using Tw = typename F::Tw;
    SerialRanges pool;
    Rng rng(seed);
    for (uint32_t n = 1; n <= 10; ++n)
        for (uint32_t log_b = 0; log_b <= 3; ++log_b) {
            const uint64_t N = 1ull << n, B = 1ull << log_b;
            std::vector<Tw> tw_inv(N), tw_fwd(N * B);
            gp::build_twiddles<F>(tw_inv.data(), n, true, pool);
            gp::build_twiddles<F>(tw_fwd.data(), n + log_b, false, pool);
            const T g = (T)(rng.elem(F::P - 1) + 1), s = (T)(rng.elem(F::P - 1) + 1);
            const T g_over_s = F::mul(g, gp::finv<F>(s)), inv_n = gp::finv<F>((T)(N % F::P));
            const T w_nb = gp::two_adic_generator<F>(n + log_b);
            std::vector<T> a(N);
            for (T &x : a) x = (T)rng.elem(F::P);
            // The CPU route: out[i B + r] = coset r's evaluation i.
            std::vector<T> coef = a, want(N * B), got(N * B);
            gp::bit_reverse_permute(coef.data(), n);
            gp::dit_stages<F>(coef.data(), n, 0, n, tw_inv.data());
            for (uint64_t r = 0; r < B; ++r) {
                const T c = F::mul(g_over_s, gp::fpow<F>(w_nb, r));
                std::vector<T> y(N);
                for (uint64_t k = 0; k < N; ++k) y[k] = F::mul(F::mul(coef[k], inv_n), gp::fpow<F>(c, k));
                gp::dif_stages<F>(y.data(), n, 0, n, tw_fwd.data());
                for (uint64_t i = 0; i < N; ++i) want[i * B + r] = y[gp::bit_reverse(i, n)];
            }
            // The turned route.
            std::vector<T> rc = a;
            gp::dif_stages<F>(rc.data(), n, 0, n, tw_inv.data());
            std::vector<T> x(N), step(N);
            for (uint64_t p = 0; p < N; ++p) {
                const uint64_t k = gp::bit_reverse(p, n);
                x[p] = F::mul(rc[p], F::mul(inv_n, gp::fpow<F>(g_over_s, k)));
                step[p] = gp::fpow<F>(w_nb, k);
            }
            for (uint64_t r = 0; r < B; ++r) {
                std::vector<T> y = x;
                gp::dit_stages<F>(y.data(), n, 0, n, tw_fwd.data());
                for (uint64_t i = 0; i < N; ++i) got[i * B + r] = y[i];
                for (uint64_t p = 0; p < N; ++p) x[p] = F::mul(x[p], step[p]);
            }
            ASSERT_EQ(got, want) << "n=" << n << " log_b=" << log_b;
            if (n > 4) continue;
            // Directly: f(s w_n^i) = a[i] for the f of degree < N whose
            // coefficients the CPU route found; out[j] = f(g w_{nB}^j).
            for (uint64_t j = 0; j < N * B; ++j) {
                const T xj = F::mul(g, gp::fpow<F>(w_nb, j));
                T acc = 0, xp = 1;
                const T xs = F::mul(xj, gp::finv<F>(s));
                for (uint64_t k = 0; k < N; ++k) {
                    acc = F::add(acc, F::mul(F::mul(coef[k], inv_n), xp));
                    xp = F::mul(xp, xs);
                }
                ASSERT_EQ(got[j], acc) << "naive n=" << n << " log_b=" << log_b << " j=" << j;
            }
        }
}

TEST(Reference, TurnedLdeGivesTheLde) {
    check_turned_lde<gp::BabyBear>(111);
    check_turned_lde<gp::KoalaBear>(112);
    check_turned_lde<gp::Goldilocks>(113);
}

/* The group-indexed twiddles (build_group_twiddles): entry m + g is
 * w_{2m}^bit_reverse(g) by powers of the generator, and the Cooley-Tukey
 * form with them (ct_group_forward, what the 31-bit LDE kernels run) gives
 * the DIF's bit-reversed output for every size up to 2^12, the table built
 * larger than the transform as the library keeps it. */
template <class F>
static void check_group_twiddles(uint64_t seed) {
    using T = typename F::T;
    using Tw = typename F::Tw;
    SerialRanges pool;
    Rng rng(seed);
    constexpr uint32_t L = 13;
    std::vector<Tw> tw(1u << L), zeta(1u << L);
    gp::build_twiddles<F>(tw.data(), L, false, pool);
    gp::build_group_twiddles<F>(zeta.data(), L, tw.data(), pool);
    EXPECT_EQ(F::from_tw(zeta[0]), (T)1);
    for (uint32_t q = 0; q < L; ++q) {
        const T w = gp::two_adic_generator<F>(q + 1);
        for (uint64_t g = 0; g < (1ull << q); g += 1 + (g >> 4))
            ASSERT_EQ(F::from_tw(zeta[(1ull << q) + g]), gp::fpow<F>(w, gp::bit_reverse(g, q))) << "q=" << q << " g=" << g;
    }
    for (uint32_t n = 0; n <= 12; ++n) {
        std::vector<T> a(1ull << n);
        for (T &x : a) x = (T)rng.elem(F::P);
        std::vector<T> want = a, got = a;
        gp::dif_stages<F>(want.data(), n, 0, n, tw.data());
        gp::ct_group_forward<F>(got.data(), n, zeta.data());
        ASSERT_EQ(got, want) << "n=" << n;
    }
}

TEST(Reference, GroupTwiddlesGiveTheForwardTransform) {
    check_group_twiddles<gp::BabyBear>(111);
    check_group_twiddles<gp::KoalaBear>(112);
    check_group_twiddles<gp::Goldilocks>(113);
}

/* ------------------------------------------------------------------------ */
/* gp_ntt_batch                                                             */
/* ------------------------------------------------------------------------ */

TEST_P(NttTest, DerivedExamples) {
    const std::string json = read_text_file(vectors_path("ntt_conventions.json"));
    ASSERT_FALSE(json.empty()) << "cannot read " << vectors_path("ntt_conventions.json");
    for (const FieldRef &F : all_fields()) {
        SCOPED_TRACE(F.name);
        const DerivedDftExample ex = json_derived_example(json, F.name);
        ASSERT_TRUE(ex.found);
        ASSERT_EQ(ex.dft.size(), 8u);
        HostMat coeffs(8, 1, 1), dft(8, 1, 1), coset(8, 1, 1);
        coeffs.v = ex.coefficients;
        dft.v = ex.dft;
        coset.v = ex.coset_dft;
        HostMat got;
        /* forward, natural order, shift default (0 = 1) and explicit 1 */
        ASSERT_GP_OK(run_ntt(ctx(), F, coeffs, ntt_opts(GP_NTT_FORWARD, 0, GP_ORDER_NATURAL, GP_ORDER_NATURAL),
                             GP_LAYOUT_COL_MAJOR, &got));
        EXPECT_EQ(got.v, ex.dft);
        ASSERT_GP_OK(run_ntt(ctx(), F, coeffs, ntt_opts(GP_NTT_FORWARD, 1, GP_ORDER_NATURAL, GP_ORDER_NATURAL),
                             GP_LAYOUT_ROW_MAJOR, &got));
        EXPECT_EQ(got.v, ex.dft);
        /* forward on the coset GENERATOR * H */
        ASSERT_GP_OK(run_ntt(ctx(), F, coeffs,
                             ntt_opts(GP_NTT_FORWARD, ex.coset_shift, GP_ORDER_NATURAL, GP_ORDER_NATURAL),
                             GP_LAYOUT_COL_MAJOR, &got));
        EXPECT_EQ(got.v, ex.coset_dft);
        /* bit-reversed input rows and bit-reversed output rows */
        HostMat coeffs_br(8, 1, 1), coset_br(8, 1, 1);
        for (uint64_t i = 0; i < 8; ++i) {
            coeffs_br.v[i] = ex.coefficients[bit_reverse(i, 3)];
            coset_br.v[i] = ex.coset_dft[bit_reverse(i, 3)];
        }
        ASSERT_GP_OK(run_ntt(ctx(), F, coeffs_br,
                             ntt_opts(GP_NTT_FORWARD, ex.coset_shift, GP_ORDER_BIT_REVERSED, GP_ORDER_NATURAL),
                             GP_LAYOUT_COL_MAJOR, &got));
        EXPECT_EQ(got.v, ex.coset_dft);
        ASSERT_GP_OK(run_ntt(ctx(), F, coeffs,
                             ntt_opts(GP_NTT_FORWARD, ex.coset_shift, GP_ORDER_NATURAL, GP_ORDER_BIT_REVERSED),
                             GP_LAYOUT_COL_MAJOR, &got));
        EXPECT_EQ(got.v, coset_br.v);
        /* inverse transforms give the coefficients back */
        ASSERT_GP_OK(run_ntt(ctx(), F, dft, ntt_opts(GP_NTT_INVERSE, 0, GP_ORDER_NATURAL, GP_ORDER_NATURAL),
                             GP_LAYOUT_COL_MAJOR, &got));
        EXPECT_EQ(got.v, ex.coefficients);
        ASSERT_GP_OK(run_ntt(ctx(), F, coset,
                             ntt_opts(GP_NTT_INVERSE, ex.coset_shift, GP_ORDER_NATURAL, GP_ORDER_NATURAL),
                             GP_LAYOUT_COL_MAJOR, &got));
        EXPECT_EQ(got.v, ex.coefficients);
        ASSERT_GP_OK(run_ntt(ctx(), F, coset_br,
                             ntt_opts(GP_NTT_INVERSE, ex.coset_shift, GP_ORDER_BIT_REVERSED, GP_ORDER_BIT_REVERSED),
                             GP_LAYOUT_COL_MAJOR, &got));
        EXPECT_EQ(got.v, coeffs_br.v);
    }
}

TEST_P(NttTest, ForwardAndInverseMatchNaive) {
    Rng rng(101);
    for (const FieldRef &F : all_fields())
        for (uint32_t d : F.ext_degrees)
            for (uint64_t n : {1ull, 2ull, 4ull, 16ull, 64ull}) {
                const uint64_t shifts[3] = {0, F.generator, rng.nonzero(F.p)};
                for (uint64_t shift : shifts)
                    for (gp_ntt_direction dir : {GP_NTT_FORWARD, GP_NTT_INVERSE})
                        for (gp_order in_order : kOrders)
                            for (gp_order out_order : kOrders) {
                                SCOPED_TRACE(::testing::Message()
                                             << F.name << " d=" << d << " n=" << n << " shift=" << shift
                                             << " dir=" << dir << " in_order=" << in_order
                                             << " out_order=" << out_order);
                                HostMat in = random_mat(F, n, 2, d, rng);
                                HostMat got;
                                ASSERT_GP_OK(run_ntt(ctx(), F, in, ntt_opts(dir, shift, in_order, out_order),
                                                     kLayouts[n & 1 ? 0 : (n >> 2) & 1], &got));
                                EXPECT_TRUE(mats_equal(got, naive_ntt(F, in, dir, shift, in_order, out_order)));
                            }
            }
}

TEST_P(NttTest, LargerForwardMatchesNaive) {
    Rng rng(102);
    for (const FieldRef &F : all_fields()) {
        SCOPED_TRACE(F.name);
        HostMat in = random_mat(F, 512, 2, 1, rng);
        const uint64_t shift = rng.nonzero(F.p);
        HostMat got;
        ASSERT_GP_OK(run_ntt(ctx(), F, in,
                             ntt_opts(GP_NTT_FORWARD, shift, GP_ORDER_NATURAL, GP_ORDER_BIT_REVERSED),
                             GP_LAYOUT_COL_MAJOR, &got));
        EXPECT_TRUE(mats_equal(got, naive_ntt(F, in, GP_NTT_FORWARD, shift, GP_ORDER_NATURAL,
                                              GP_ORDER_BIT_REVERSED)));
        ASSERT_GP_OK(run_ntt(ctx(), F, in,
                             ntt_opts(GP_NTT_INVERSE, 0, GP_ORDER_BIT_REVERSED, GP_ORDER_NATURAL),
                             GP_LAYOUT_ROW_MAJOR, &got));
        EXPECT_TRUE(mats_equal(got, naive_ntt(F, in, GP_NTT_INVERSE, 0, GP_ORDER_BIT_REVERSED,
                                              GP_ORDER_NATURAL)));
    }
}

/* inverse(forward(x)) == x and forward(inverse(x)) == x for every pair of
 * orders and several shifts, on one buffer transformed twice in place. */
TEST_P(NttTest, RoundTripIdentity) {
    Rng rng(103);
    struct Size { uint64_t n, cols; };
    for (const FieldRef &F : all_fields())
        for (uint32_t d : F.ext_degrees)
            for (const Size &sz : {Size{1, 3}, Size{2, 2}, Size{32, 5}, Size{1024, 2}, Size{4096, 1}}) {
                if (sz.n >= 1024 && d > 1 && F.field != GP_FIELD_BABYBEAR) continue;
                const uint64_t shifts[3] = {0, F.generator, rng.nonzero(F.p)};
                for (uint64_t shift : shifts)
                    for (gp_order a : kOrders)
                        for (gp_order b : kOrders)
                            for (gp_ntt_direction first : {GP_NTT_FORWARD, GP_NTT_INVERSE}) {
                                SCOPED_TRACE(::testing::Message()
                                             << F.name << " d=" << d << " n=" << sz.n << " shift=" << shift
                                             << " orders " << a << "->" << b << " first=" << first);
                                const gp_ntt_direction second =
                                    first == GP_NTT_FORWARD ? GP_NTT_INVERSE : GP_NTT_FORWARD;
                                HostMat in = random_mat(F, sz.n, sz.cols, d, rng);
                                BufPtr buf;
                                ASSERT_GP_OK(upload(ctx(), F, in, GP_LAYOUT_ROW_MAJOR, &buf));
                                gp_ntt_options o1 = ntt_opts(first, shift, a, b);
                                gp_ntt_options o2 = ntt_opts(second, shift, b, a);
                                ASSERT_GP_OK(gp_ntt_batch(ctx(), buf.get(), &o1));
                                HostMat mid;
                                ASSERT_GP_OK(download(buf.get(), F, GP_LAYOUT_COL_MAJOR, &mid));
                                if (sz.n > 1) {
                                    EXPECT_NE(mid.v, in.v) << "transform did nothing";
                                }
                                ASSERT_GP_OK(gp_ntt_batch(ctx(), buf.get(), &o2));
                                HostMat back;
                                ASSERT_GP_OK(download(buf.get(), F, GP_LAYOUT_COL_MAJOR, &back));
                                EXPECT_TRUE(mats_equal(back, in));
                            }
            }
}

/* Large transforms (n = 2^16): every order pair and direction,
 * spot-checked point by point against the O(n) formula, plus a round trip. */
TEST_P(NttTest, LargeNttSpotCheck) {
    Rng rng(105);
    for (const FieldRef &F : all_fields())
        for (uint64_t n : {1ull << 16}) {
            const uint32_t log_n = log2_exact(n);
            HostMat in = random_mat(F, n, 1, 1, rng);
            for (gp_ntt_direction dir : {GP_NTT_FORWARD, GP_NTT_INVERSE})
                for (gp_order in_order : kOrders)
                    for (gp_order out_order : kOrders) {
                        const uint64_t shift = (in_order == out_order) ? rng.nonzero(F.p) : 0;
                        SCOPED_TRACE(::testing::Message() << F.name << " n=" << n << " dir=" << dir << " orders "
                                                          << in_order << "->" << out_order << " shift=" << shift);
                        BufPtr buf;
                        ASSERT_GP_OK(upload(ctx(), F, in, GP_LAYOUT_COL_MAJOR, &buf));
                        gp_ntt_options o = ntt_opts(dir, shift, in_order, out_order);
                        ASSERT_GP_OK(gp_ntt_batch(ctx(), buf.get(), &o));
                        HostMat got;
                        ASSERT_GP_OK(download(buf.get(), F, GP_LAYOUT_COL_MAJOR, &got));
                        const uint64_t c = 0;
                        std::vector<uint64_t> logical((size_t)n);
                        for (uint64_t i = 0; i < n; ++i)
                            logical[(size_t)i] =
                                in.at(in_order == GP_ORDER_BIT_REVERSED ? bit_reverse(i, log_n) : i, c, 0);
                        int bad = 0;
                        for (uint64_t k : {(uint64_t)0, (uint64_t)1, (uint64_t)2, n / 2 + 7, n - 1, rng.next() % n}) {
                            const uint64_t row = out_order == GP_ORDER_BIT_REVERSED ? bit_reverse(k, log_n) : k;
                            const uint64_t want = ntt_point(F, logical, dir, shift, k);
                            if (got.at(row, c, 0) != want && bad++ < 3)
                                ADD_FAILURE() << "column " << c << " logical index " << k << " (row " << row
                                              << "): got " << got.at(row, c, 0) << " expected " << want;
                        }
                        /* and back */
                        gp_ntt_options back = ntt_opts(dir == GP_NTT_FORWARD ? GP_NTT_INVERSE : GP_NTT_FORWARD,
                                                       shift, out_order, in_order);
                        ASSERT_GP_OK(gp_ntt_batch(ctx(), buf.get(), &back));
                        HostMat round;
                        ASSERT_GP_OK(download(buf.get(), F, GP_LAYOUT_ROW_MAJOR, &round));
                        EXPECT_TRUE(mats_equal(round, in)) << "round trip";
                    }
        }
}

/* A transform of n = 1 is the identity (f constant), whatever the shift. */
TEST_P(NttTest, SizeOneIsIdentity) {
    Rng rng(104);
    for (const FieldRef &F : all_fields()) {
        HostMat in = random_mat(F, 1, 7, F.ext_degrees.back(), rng);
        for (gp_ntt_direction dir : {GP_NTT_FORWARD, GP_NTT_INVERSE}) {
            HostMat got;
            ASSERT_GP_OK(run_ntt(ctx(), F, in, ntt_opts(dir, rng.nonzero(F.p), GP_ORDER_BIT_REVERSED,
                                                        GP_ORDER_NATURAL),
                                 GP_LAYOUT_COL_MAJOR, &got));
            EXPECT_TRUE(mats_equal(got, in)) << F.name << " dir " << dir;
        }
    }
}

/* ------------------------------------------------------------------------ */
/* gp_lde_batch / gp_lde_batch_host                                          */
/* ------------------------------------------------------------------------ */

/* Every field, degree, small n, every blowup, both orders; path, input
 * layout and download layout rotate through all combinations. */
TEST_P(NttTest, LdeSmallSweep) {
    Rng rng(201);
    unsigned counter = 0;
    for (const FieldRef &F : all_fields())
        for (uint32_t d : F.ext_degrees)
            for (uint64_t n : {1ull, 2ull, 4ull, 8ull, 16ull})
                for (uint32_t blowup : {1u, 2u, 4u, 8u, 16u, 32u})
                    for (gp_order order : kOrders) {
                        const unsigned k = counter++;
                        HostMat in = random_mat(F, n, 2, d, rng);
                        gp_lde_options o = make_opts(k % 3 == 0 ? n : 0, blowup, 0, 0, order, kLayouts[(k >> 1) & 1]);
                        check_lde(ctx(), F, in, o, (k & 1) ? LdePath::kBuffer : LdePath::kHost,
                                  kLayouts[(k >> 2) & 1]);
                    }
}

/* Default / explicit / random output shifts and input shifts. */
TEST_P(NttTest, LdeShifts) {
    Rng rng(202);
    unsigned counter = 0;
    for (const FieldRef &F : all_fields())
        for (uint32_t d : F.ext_degrees)
            for (uint64_t n : {8ull, 32ull}) {
                const uint64_t shifts[3] = {0, F.generator, rng.nonzero(F.p)};
                const uint64_t input_shifts[3] = {0, 1, rng.nonzero(F.p)};
                for (uint64_t shift : shifts)
                    for (uint64_t input_shift : input_shifts) {
                        const unsigned k = counter++;
                        const uint32_t blowup = (k & 1) ? 2 : 8;
                        HostMat in = random_mat(F, n, d == 1 ? 2 : 1, d, rng);
                        gp_lde_options o = make_opts(0, blowup, shift, input_shift, kOrders[(k >> 1) & 1],
                                                     kLayouts[(k >> 2) & 1]);
                        check_lde(ctx(), F, in, o, (k % 3) ? LdePath::kHost : LdePath::kBuffer,
                                  kLayouts[k & 1]);
                    }
                /* shift 1: the output coset contains the input domain, so rows
                 * j = B*i of the natural-order output are the inputs */
                HostMat in = random_mat(F, n, 1, d, rng);
                gp_lde_options o = make_opts(0, 4, 1, 0, GP_ORDER_NATURAL);
                HostMat got;
                ASSERT_GP_OK(run_lde(ctx(), F, in, o, LdePath::kHost, GP_LAYOUT_COL_MAJOR, &got));
                for (uint64_t i = 0; i < n; ++i)
                    for (uint32_t c = 0; c < d; ++c)
                        EXPECT_EQ(got.at(4 * i, 0, c), in.at(i, 0, c)) << F.name << " row " << i;
                EXPECT_TRUE(mats_equal(got, naive_lde_for(F, in, o)));
            }
}

/* Every combination of input layout, path (host vs buffer) and download
 * layout, for every field and degree. */
TEST_P(NttTest, LdeLayoutsAndPaths) {
    Rng rng(203);
    for (const FieldRef &F : all_fields())
        for (uint32_t d : F.ext_degrees)
            for (gp_order order : kOrders) {
                HostMat in = random_mat(F, 16, 3, d, rng);
                const uint64_t shift = rng.nonzero(F.p), input_shift = rng.nonzero(F.p);
                const HostMat want = naive_lde(F, in, 16, 4, shift, input_shift, order);
                for (gp_layout in_layout : kLayouts)
                    for (LdePath path : {LdePath::kHost, LdePath::kBuffer})
                        for (gp_layout out_layout : kLayouts) {
                            gp_lde_options o = make_opts(16, 4, shift, input_shift, order, in_layout);
                            SCOPED_TRACE(describe(F, in, o, path, out_layout));
                            HostMat got;
                            ASSERT_GP_OK(run_lde(ctx(), F, in, o, path, out_layout, &got));
                            EXPECT_TRUE(mats_equal(got, want));
                        }
                /* input_layout only describes host input: gp_lde_batch ignores it */
                for (gp_layout upload_layout : kLayouts) {
                    BufPtr input, output;
                    ASSERT_GP_OK(upload(ctx(), F, in, upload_layout, &input));
                    ASSERT_GP_OK(create_buffer(ctx(), F, d, 64, 3, &output));
                    gp_lde_options o = make_opts(16, 4, shift, input_shift, order,
                                                 upload_layout == GP_LAYOUT_COL_MAJOR ? GP_LAYOUT_ROW_MAJOR
                                                                                     : GP_LAYOUT_COL_MAJOR);
                    ASSERT_GP_OK(gp_lde_batch(ctx(), input.get(), &o, output.get()));
                    HostMat got;
                    ASSERT_GP_OK(download(output.get(), F, GP_LAYOUT_ROW_MAJOR, &got));
                    EXPECT_TRUE(mats_equal(got, want)) << F.name << " d=" << d << " buffer uploaded in layout "
                                                       << upload_layout;
                }
            }
}

/* Input with fewer rows than n: the missing rows are zero. */
TEST_P(NttTest, LdeVirtualPadding) {
    Rng rng(204);
    for (const FieldRef &F : all_fields())
        for (uint32_t d : F.ext_degrees)
            for (uint64_t rows : {1ull, 37ull, 63ull, 64ull}) {
                const unsigned k = (unsigned)rows + d;
                HostMat in = random_mat(F, rows, d == 1 ? 3 : 2, d, rng);
                gp_lde_options o = make_opts(64, (k & 1) ? 2 : 4, (k & 2) ? rng.nonzero(F.p) : 0,
                                             (k & 4) ? rng.nonzero(F.p) : 0, kOrders[(k >> 3) & 1],
                                             kLayouts[k & 1]);
                for (LdePath path : {LdePath::kHost, LdePath::kBuffer})
                    check_lde(ctx(), F, in, o, path, kLayouts[(k >> 1) & 1]);
                /* the same as an explicit zero-padded input */
                HostMat padded(64, in.cols, d);
                for (uint64_t c = 0; c < in.cols; ++c)
                    for (uint64_t r = 0; r < rows; ++r)
                        for (uint32_t j = 0; j < d; ++j) padded.at(r, c, j) = in.at(r, c, j);
                HostMat a, b;
                ASSERT_GP_OK(run_lde(ctx(), F, in, o, LdePath::kHost, GP_LAYOUT_COL_MAJOR, &a));
                ASSERT_GP_OK(run_lde(ctx(), F, padded, o, LdePath::kBuffer, GP_LAYOUT_COL_MAJOR, &b));
                EXPECT_TRUE(mats_equal(a, b)) << F.name << " d=" << d << " rows=" << rows;
            }
    /* a single row with n = 1 and n = 2 */
    for (const FieldRef &F : all_fields()) {
        HostMat in = random_mat(F, 1, 2, 1, rng);
        check_lde(ctx(), F, in, make_opts(1, 32, 0, 0, GP_ORDER_BIT_REVERSED), LdePath::kBuffer,
                  GP_LAYOUT_COL_MAJOR);
        check_lde(ctx(), F, in, make_opts(2, 16, rng.nonzero(F.p), rng.nonzero(F.p), GP_ORDER_NATURAL),
                  LdePath::kHost, GP_LAYOUT_ROW_MAJOR);
    }
}

/* Larger sizes, few columns. */
TEST_P(NttTest, LdeLargerSizes) {
    Rng rng(205);
    struct Case { gp_field f; uint32_t d; uint64_t n, rows, cols; uint32_t blowup; gp_order order; LdePath path; };
    const Case cases[] = {
        {GP_FIELD_GOLDILOCKS, 1, 256, 256, 3, 4, GP_ORDER_BIT_REVERSED, LdePath::kHost},
        {GP_FIELD_BABYBEAR, 1, 256, 256, 3, 4, GP_ORDER_NATURAL, LdePath::kBuffer},
        {GP_FIELD_KOALABEAR, 1, 256, 200, 3, 4, GP_ORDER_BIT_REVERSED, LdePath::kBuffer},
        {GP_FIELD_GOLDILOCKS, 1, 64, 64, 2, 32, GP_ORDER_BIT_REVERSED, LdePath::kBuffer},
        {GP_FIELD_BABYBEAR, 1, 64, 64, 2, 32, GP_ORDER_NATURAL, LdePath::kHost},
        {GP_FIELD_KOALABEAR, 1, 128, 128, 1, 16, GP_ORDER_NATURAL, LdePath::kHost},
        {GP_FIELD_GOLDILOCKS, 1, 1024, 1024, 2, 2, GP_ORDER_NATURAL, LdePath::kBuffer},
        {GP_FIELD_BABYBEAR, 1, 1024, 1024, 2, 2, GP_ORDER_BIT_REVERSED, LdePath::kHost},
        {GP_FIELD_KOALABEAR, 1, 1024, 1024, 2, 2, GP_ORDER_NATURAL, LdePath::kHost},
        {GP_FIELD_BABYBEAR, 4, 1024, 1024, 1, 2, GP_ORDER_BIT_REVERSED, LdePath::kBuffer},
        {GP_FIELD_GOLDILOCKS, 3, 1024, 1000, 1, 1, GP_ORDER_BIT_REVERSED, LdePath::kHost},
        {GP_FIELD_GOLDILOCKS, 1, 4096, 4096, 1, 2, GP_ORDER_BIT_REVERSED, LdePath::kHost},
        {GP_FIELD_BABYBEAR, 1, 4096, 4096, 1, 2, GP_ORDER_NATURAL, LdePath::kBuffer},
        {GP_FIELD_KOALABEAR, 1, 4096, 3000, 1, 2, GP_ORDER_BIT_REVERSED, LdePath::kHost},
    };
    unsigned k = 0;
    for (const Case &c : cases) {
        const FieldRef &F = field_ref(c.f);
        HostMat in = random_mat(F, c.rows, c.cols, c.d, rng);
        gp_lde_options o = make_opts(c.n, c.blowup, (k & 1) ? rng.nonzero(F.p) : 0,
                                     (k & 2) ? rng.nonzero(F.p) : 0, c.order, kLayouts[(k >> 2) & 1]);
        check_lde(ctx(), F, in, o, c.path, kLayouts[k & 1]);
        ++k;
    }
}

/* LDE of a polynomial with known random coefficients: feed its evaluations
 * on s * H_n (Horner), expect its evaluations on g * w_{nB}^j (Horner). */
TEST_P(NttTest, LdeOfKnownPolynomial) {
    Rng rng(206);
    for (const FieldRef &F : all_fields())
        for (uint64_t n : {8ull, 128ull})
            for (uint32_t blowup : {2u, 16u}) {
                const uint32_t d = F.ext_degrees.back();
                const uint64_t g = rng.nonzero(F.p), s = rng.nonzero(F.p);
                const uint64_t wn = ref_root(F, log2_exact(n)), wm = ref_root(F, log2_exact(n * blowup));
                HostMat in(n, 2, d), want(n * blowup, 2, d);
                for (uint64_t c = 0; c < 2; ++c)
                    for (uint32_t j = 0; j < d; ++j) {
                        /* the second column has degree < n/2 */
                        std::vector<uint64_t> coeffs(c == 0 ? n : n / 2);
                        for (auto &x : coeffs) x = rng.elem(F.p);
                        for (uint64_t i = 0; i < n; ++i)
                            in.at(i, c, j) = horner(F, coeffs, mul_mod(s, pow_mod(wn, i, F.p), F.p));
                        for (uint64_t r = 0; r < n * blowup; ++r)
                            want.at(r, c, j) = horner(F, coeffs, mul_mod(g, pow_mod(wm, r, F.p), F.p));
                    }
                gp_lde_options o = make_opts(0, blowup, g, s, GP_ORDER_NATURAL);
                HostMat got;
                ASSERT_GP_OK(run_lde(ctx(), F, in, o, LdePath::kBuffer, GP_LAYOUT_ROW_MAJOR, &got));
                EXPECT_TRUE(mats_equal(got, want)) << F.name << " n=" << n << " blowup=" << blowup;
            }
}

/* Plonky3's committed LDE: bit-reversed output, row j = f(g * w_{nB}^bitrev(j)),
 * g = GENERATOR, input on H (shift 1). */
TEST_P(NttTest, LdeBitReversedMatchesPlonky3Convention) {
    Rng rng(207);
    for (const FieldRef &F : all_fields())
        for (uint32_t d : F.ext_degrees) {
            const uint64_t n = 32;
            const uint32_t blowup = 4;
            const uint64_t m = n * blowup;
            const uint32_t log_m = log2_exact(m);
            const uint64_t wn = ref_root(F, 5), wm = ref_root(F, log_m);
            HostMat in(n, 2, d), want(m, 2, d);
            for (uint64_t c = 0; c < 2; ++c)
                for (uint32_t j = 0; j < d; ++j) {
                    std::vector<uint64_t> coeffs(n);
                    for (auto &x : coeffs) x = rng.elem(F.p);
                    for (uint64_t i = 0; i < n; ++i) in.at(i, c, j) = horner(F, coeffs, pow_mod(wn, i, F.p));
                    for (uint64_t r = 0; r < m; ++r) {
                        const uint64_t x = mul_mod(F.generator, pow_mod(wm, bit_reverse(r, log_m), F.p), F.p);
                        want.at(r, c, j) = horner(F, coeffs, x);
                    }
                }
            gp_lde_options o = make_opts(0, blowup, 0, 0, GP_ORDER_BIT_REVERSED, GP_LAYOUT_ROW_MAJOR);
            for (LdePath path : {LdePath::kHost, LdePath::kBuffer}) {
                HostMat got;
                ASSERT_GP_OK(run_lde(ctx(), F, in, o, path, GP_LAYOUT_ROW_MAJOR, &got));
                EXPECT_TRUE(mats_equal(got, want)) << F.name << " d=" << d << " path " << path_name(path);
            }
            /* natural order is the same rows, un-permuted */
            o.output_order = GP_ORDER_NATURAL;
            HostMat nat;
            ASSERT_GP_OK(run_lde(ctx(), F, in, o, LdePath::kHost, GP_LAYOUT_COL_MAJOR, &nat));
            for (uint64_t r = 0; r < m; ++r)
                for (uint32_t j = 0; j < d; ++j)
                    ASSERT_EQ(nat.at(bit_reverse(r, log_m), 1, j), want.at(r, 1, j)) << F.name << " row " << r;
        }
}

/* The LDE, interpolated back from g * H_{nB} by the library's inverse NTT, has
 * the input's coefficients and zeros above degree n. */
TEST_P(NttTest, LdeThenInverseNttGivesCoefficients) {
    Rng rng(208);
    for (const FieldRef &F : all_fields()) {
        const uint64_t n = 256;
        const uint32_t blowup = 8;
        HostMat in = random_mat(F, n, 2, 1, rng);
        const uint64_t g = rng.nonzero(F.p), s = rng.nonzero(F.p);
        BufPtr input, output;
        ASSERT_GP_OK(upload(ctx(), F, in, GP_LAYOUT_COL_MAJOR, &input));
        ASSERT_GP_OK(create_buffer(ctx(), F, 1, n * blowup, 2, &output));
        gp_lde_options o = make_opts(0, blowup, g, s, GP_ORDER_BIT_REVERSED);
        ASSERT_GP_OK(gp_lde_batch(ctx(), input.get(), &o, output.get()));
        gp_ntt_options no = ntt_opts(GP_NTT_INVERSE, g, GP_ORDER_BIT_REVERSED, GP_ORDER_NATURAL);
        ASSERT_GP_OK(gp_ntt_batch(ctx(), output.get(), &no));
        HostMat got;
        ASSERT_GP_OK(download(output.get(), F, GP_LAYOUT_COL_MAJOR, &got));
        for (uint64_t c = 0; c < 2; ++c) {
            const std::vector<uint64_t> coeffs = naive_interpolate(F, in.base_col(c, 0), n, s);
            std::vector<uint64_t> want(n * blowup, 0);
            std::copy(coeffs.begin(), coeffs.end(), want.begin());
            EXPECT_EQ(got.base_col(c, 0), want) << F.name << " col " << c;
        }
    }
}

/* One output buffer reused for different inputs, shifts and orders. */
TEST_P(NttTest, LdeOutputBufferReuse) {
    Rng rng(209);
    const FieldRef &F = field_ref(GP_FIELD_GOLDILOCKS);
    BufPtr output;
    ASSERT_GP_OK(create_buffer(ctx(), F, 2, 128, 3, &output));
    for (int rep = 0; rep < 6; ++rep) {
        const uint64_t rows = rep == 3 ? 9 : 32;
        HostMat in = random_mat(F, rows, 3, 2, rng);
        gp_lde_options o = make_opts(32, 4, rep & 1 ? rng.nonzero(F.p) : 0, rep & 2 ? rng.nonzero(F.p) : 0,
                                     kOrders[rep & 1], kLayouts[(rep >> 1) & 1]);
        ApiData host(to_layout(in, o.input_layout), F.elem_size);
        ASSERT_GP_OK(gp_lde_batch_host(ctx(), F.field, 2, host.data(), rows, 3, &o, output.get()));
        HostMat got;
        ASSERT_GP_OK(download(output.get(), F, kLayouts[rep % 2], &got));
        EXPECT_TRUE(mats_equal(got, naive_lde_for(F, in, o))) << "rep " << rep;
    }
}

INSTANTIATE_TEST_SUITE_P(Backends, NttTest, ::testing::Values(GP_BACKEND_CPU, GP_BACKEND_CUDA),
                         [](const ::testing::TestParamInfo<gp_backend> &info) {
                             return std::string(backend_name(info.param));
                         });
