// SPDX-License-Identifier: MIT OR Apache-2.0
// gp_evaluate_ood and gp_deep_composition against direct evaluation.
//
// The columns are LDEs (gp_lde_batch, default coset) of polynomials whose
// coefficients the test draws; OOD values must equal Horner evaluation of
// those coefficients at z, and the DEEP codeword must equal the formula
// sum_j sum_k alpha_jk (f_k(x) - f_k(z_j)) / (x - z_j) evaluated row by row
// with the coset points computed here. Extension arithmetic is the library's
// header (src/math/ext.h), which the FRI tests pin against an independent
// implementation.
#include <gtest/gtest.h>

#include <cstdint>
#include <vector>

#include "math/ext.h"
#include "test_util.h"

using namespace gpt;

namespace {

template <class F, int E>
using X = gp::Ext<F, E>;

template <class F, int E>
X<F, E> ext_of(const std::vector<uint64_t> &w, size_t i) {
    X<F, E> e;
    for (int k = 0; k < E; ++k) e.c[k] = (typename F::T)w[i * E + k];
    return e;
}

class DeepTest : public BackendTest {
   protected:
    // Columns: `cols` columns of degree d (1 or E) holding polynomials of
    // degree < n, extended by `blowup` on the default coset, in `order`.
    template <class F, int E>
    void run(gp_field field, uint32_t d, uint64_t n, uint64_t cols, uint32_t blowup, gp_order order,
             uint64_t degree_bound, uint64_t seed) {
        SCOPED_TRACE(::testing::Message() << "field " << field << " d=" << d << " E=" << E << " n=" << n << " cols="
                                          << cols << " B=" << blowup << " order " << order << " bound "
                                          << degree_bound);
        using T = typename F::T;
        const FieldRef &FR = field_ref(field);
        Rng rng(seed);
        const uint64_t m = n * blowup;
        // Coefficients and the trace evaluations on <omega_n> (natural order).
        HostMat coeff = random_mat(FR, n, cols, d, rng), trace(n, cols, d);
        const T wn = gp::two_adic_generator<F>((uint32_t)__builtin_ctzll(n));
        for (uint64_t c = 0; c < cols; ++c)
            for (uint32_t k = 0; k < d; ++k)
                for (uint64_t r = 0; r < n; ++r) {
                    const T x = gp::fpow<F>(wn, r);
                    T acc = 0;
                    for (uint64_t i = n; i-- > 0;) acc = F::add(F::mul(acc, x), (T)coeff.at(i, c, k));
                    trace.at(r, c, k) = acc;
                }
        BufPtr in, lde;
        ASSERT_GP_OK(upload(ctx(), FR, trace, GP_LAYOUT_COL_MAJOR, &in));
        gp_buffer *raw = nullptr;
        ASSERT_GP_OK(gp_buffer_create(ctx(), field, d, m, cols, &raw));
        lde.reset(raw);
        gp_lde_options lo;
        gp_lde_options_init(&lo);
        lo.blowup = blowup;
        lo.output_order = order;
        ASSERT_GP_OK(gp_lde_batch(ctx(), in.get(), &lo, lde.get()));

        gp_ood_options o;
        gp_ood_options_init(&o);
        o.order = order;
        o.degree_bound = degree_bound;
        o.challenge_degree = E;
        const uint32_t np = 2;
        std::vector<uint64_t> zw(np * E);
        for (auto &v : zw) v = rng.elem(FR.p);
        std::vector<unsigned char> zb(zw.size() * FR.elem_size), out(np * cols * E * FR.elem_size);
        for (size_t i = 0; i < zw.size(); ++i) std::memcpy(&zb[i * FR.elem_size], &zw[i], FR.elem_size);
        const gp_buffer *cb = lde.get();
        ASSERT_GP_OK(gp_evaluate_ood(ctx(), &cb, 1, &o, zb.data(), np, out.data(), out.size()));
        std::vector<uint64_t> got(np * cols * E);
        for (size_t i = 0; i < got.size(); ++i) {
            got[i] = 0;
            std::memcpy(&got[i], &out[i * FR.elem_size], FR.elem_size);
        }
        // Horner at z with extension coefficients.
        X<F, E> xgen = X<F, E>::zero();
        if constexpr (E > 1) xgen.c[1] = 1;
        std::vector<X<F, E>> want(np * cols);
        for (uint32_t j = 0; j < np; ++j) {
            const X<F, E> z = ext_of<F, E>(zw, j);
            for (uint64_t c = 0; c < cols; ++c) {
                X<F, E> acc = X<F, E>::zero();
                for (uint64_t i = n; i-- > 0;) {
                    X<F, E> ci = X<F, E>::zero(), xp = X<F, E>::from_base(1);
                    for (uint32_t k = 0; k < d; ++k, xp = xp * xgen) ci = ci + xp.scale((T)coeff.at(i, c, k));
                    acc = acc * z + ci;
                }
                want[j * cols + c] = acc;
                EXPECT_TRUE((ext_of<F, E>(got, j * cols + c) == acc)) << "point " << j << " column " << c;
            }
        }

        // DEEP with random alphas, against the formula row by row.
        std::vector<uint64_t> aw(np * cols * E);
        for (auto &v : aw) v = rng.elem(FR.p);
        std::vector<unsigned char> ab(aw.size() * FR.elem_size);
        for (size_t i = 0; i < aw.size(); ++i) std::memcpy(&ab[i * FR.elem_size], &aw[i], FR.elem_size);
        ASSERT_GP_OK(gp_buffer_create(ctx(), field, E, m, 1, &raw));
        BufPtr q(raw);
        ASSERT_GP_OK(gp_deep_composition(ctx(), &cb, 1, &o, zb.data(), np, out.data(), ab.data(), q.get()));
        HostMat qh, lh;
        ASSERT_GP_OK(download(q.get(), FR, GP_LAYOUT_COL_MAJOR, &qh));
        ASSERT_GP_OK(download(lde.get(), FR, GP_LAYOUT_COL_MAJOR, &lh));
        const uint32_t log_m = (uint32_t)__builtin_ctzll(m);
        const T wm = gp::two_adic_generator<F>(log_m);
        size_t bad = 0;
        for (uint64_t r = 0; r < m; ++r) {
            const uint64_t nat = order == GP_ORDER_BIT_REVERSED ? gp::bit_reverse(r, log_m) : r;
            const T x = F::mul((T)F::GENERATOR, gp::fpow<F>(wm, nat));
            X<F, E> acc = X<F, E>::zero();
            for (uint32_t j = 0; j < np; ++j) {
                const X<F, E> inv = (X<F, E>::from_base(x) - ext_of<F, E>(zw, j)).inv();
                for (uint64_t c = 0; c < cols; ++c) {
                    X<F, E> f = X<F, E>::zero(), xp = X<F, E>::from_base(1);
                    for (uint32_t k = 0; k < d; ++k, xp = xp * xgen) f = f + xp.scale((T)lh.at(r, c, k));
                    acc = acc + ext_of<F, E>(aw, j * cols + c) * (f - want[j * cols + c]) * inv;
                }
            }
            X<F, E> g;
            for (int k = 0; k < E; ++k) g.c[k] = (T)qh.at(r, 0, k);
            if (!(g == acc)) ++bad;
        }
        EXPECT_EQ(bad, 0u) << "DEEP rows differ";
    }
};

}  // namespace

TEST_P(DeepTest, OodAndDeepMatchDirectEvaluation) {
    for (gp_order order : {GP_ORDER_NATURAL, GP_ORDER_BIT_REVERSED}) {
        run<gp::Goldilocks, 3>(GP_FIELD_GOLDILOCKS, 1, 64, 5, 4, order, 64, 1);
        run<gp::Goldilocks, 3>(GP_FIELD_GOLDILOCKS, 3, 32, 3, 2, order, 0, 2);  // full domain
        run<gp::Goldilocks, 2>(GP_FIELD_GOLDILOCKS, 2, 16, 2, 8, order, 16, 3);
        run<gp::BabyBear, 4>(GP_FIELD_BABYBEAR, 1, 64, 4, 4, order, 64, 4);
        run<gp::BabyBear, 4>(GP_FIELD_BABYBEAR, 4, 32, 2, 2, order, 32, 5);
        run<gp::KoalaBear, 4>(GP_FIELD_KOALABEAR, 4, 16, 3, 4, order, 0, 6);
    }
}

TEST_P(DeepTest, BadInput) {
    const FieldRef &F = field_ref(GP_FIELD_GOLDILOCKS);
    Rng rng(9);
    BufPtr a, b, e;
    ASSERT_GP_OK(upload(ctx(), F, random_mat(F, 16, 2, 1, rng), GP_LAYOUT_COL_MAJOR, &a));
    ASSERT_GP_OK(upload(ctx(), F, random_mat(F, 8, 2, 1, rng), GP_LAYOUT_COL_MAJOR, &b));
    ASSERT_GP_OK(upload(ctx(), F, random_mat(F, 16, 1, 2, rng), GP_LAYOUT_COL_MAJOR, &e));
    gp_ood_options o;
    gp_ood_options_init(&o);
    uint64_t z[3] = {12345, 678, 9}, out[64];
    const gp_buffer *ab[2] = {a.get(), b.get()}, *one = a.get(), *ext2 = e.get();
    EXPECT_EQ(gp_evaluate_ood(ctx(), ab, 2, &o, z, 1, out, sizeof out), GP_ERR_SHAPE_MISMATCH);
    EXPECT_STRNE(gp_last_error(), "");
    EXPECT_EQ(gp_evaluate_ood(ctx(), &ext2, 1, &o, z, 1, out, sizeof out), GP_ERR_SHAPE_MISMATCH);  // degree 2 vs E 3
    // z in the evaluation coset: the generator times a 16th root of unity.
    uint64_t w = 0;
    ASSERT_GP_OK(gp_field_two_adic_generator(GP_FIELD_GOLDILOCKS, 4, &w));
    uint64_t zin[3] = {(uint64_t)((unsigned __int128)7 * w % F.p), 0, 0};
    EXPECT_EQ(gp_evaluate_ood(ctx(), &one, 1, &o, zin, 1, out, sizeof out), GP_ERR_INVALID_ARGUMENT);
    EXPECT_NE(std::string(gp_last_error()).find("coset"), std::string::npos) << gp_last_error();
    o.degree_bound = 3;
    EXPECT_EQ(gp_evaluate_ood(ctx(), &one, 1, &o, z, 1, out, sizeof out), GP_ERR_INVALID_ARGUMENT);
    o.degree_bound = 32;
    EXPECT_EQ(gp_evaluate_ood(ctx(), &one, 1, &o, z, 1, out, sizeof out), GP_ERR_INVALID_ARGUMENT);
    o.degree_bound = 0;
    EXPECT_EQ(gp_evaluate_ood(ctx(), &one, 1, &o, z, 1, out, 8), GP_ERR_INVALID_ARGUMENT);  // out too small
    uint64_t zbad[3] = {F.p, 0, 0};
    EXPECT_EQ(gp_evaluate_ood(ctx(), &one, 1, &o, zbad, 1, out, sizeof out), GP_ERR_NON_CANONICAL);
    o.challenge_degree = 4;
    EXPECT_EQ(gp_evaluate_ood(ctx(), &one, 1, &o, z, 1, out, sizeof out), GP_ERR_UNSUPPORTED);
    o.challenge_degree = 3;
    // DEEP output of the wrong shape.
    uint64_t vals[6] = {0}, alph[6] = {1, 0, 0, 1, 0, 0};
    EXPECT_EQ(gp_deep_composition(ctx(), &one, 1, &o, z, 1, vals, alph, b.get()), GP_ERR_SHAPE_MISMATCH);
    gp_buffer *raw = nullptr;
    ASSERT_GP_OK(gp_buffer_create(ctx(), GP_FIELD_GOLDILOCKS, 3, 16, 1, &raw));
    BufPtr q(raw);
    EXPECT_EQ(gp_deep_composition(ctx(), &one, 1, &o, z, 1, vals, alph, q.get()), GP_OK) << gp_last_error();
    EXPECT_EQ(gp_deep_composition(ctx(), &one, 1, &o, zin, 1, vals, alph, q.get()), GP_ERR_INVALID_ARGUMENT);
    EXPECT_EQ(gp_deep_composition(ctx(), &one, 1, &o, z, 1, nullptr, alph, q.get()), GP_ERR_NULL_POINTER);
}

/* ---- gp_constraint_commit ---- */

namespace {
struct Committed2 {
    BufPtr seg;
    gp_merkle_tree *tree = nullptr;
    ~Committed2() { gp_merkle_tree_destroy(tree); }
};

// `rows` random evaluations of degree d (column-major, one column) drawn from
// rng into *evals and onto the device in *ev, committed with `o` into *cc.
void commit_random(gp_context *ctx, const FieldRef &FR, uint64_t rows, uint32_t d, Rng &rng,
                   const gp_constraint_options &o, HostMat *evals, BufPtr *ev, Committed2 *cc) {
    *evals = random_mat(FR, rows, 1, d, rng);
    ASSERT_GP_OK(upload(ctx, FR, *evals, GP_LAYOUT_COL_MAJOR, ev));
    gp_buffer *seg = nullptr;
    ASSERT_GP_OK(gp_constraint_commit(ctx, ev->get(), &o, &seg, &cc->tree));
    cc->seg.reset(seg);
}
}  // namespace

// winterfell's split: sum_i x^(iN) h_i(x) equals h on the LDE coset, where h
// is extended directly from its N D evaluations (blowup B / D).
template <class F>
void check_winterfell(gp_context *ctx, gp_field field, uint32_t d, uint64_t N, uint32_t D, uint32_t B, uint64_t seed) {
    SCOPED_TRACE(::testing::Message() << "winterfell field " << field << " d=" << d << " N=" << N << " D=" << D
                                      << " B=" << B);
    using T = typename F::T;
    const FieldRef &FR = field_ref(field);
    gp_constraint_options o;
    gp_constraint_options_init(&o);
    o.split = GP_COMPOSITION_WINTERFELL;
    o.segments = D;
    o.blowup = B;
    o.output_order = GP_ORDER_NATURAL;
    o.merkle.perm = field == GP_FIELD_GOLDILOCKS ? GP_PERM_POSEIDON2_GOLDILOCKS_8
                    : field == GP_FIELD_BABYBEAR ? GP_PERM_POSEIDON2_BABYBEAR_16
                                                 : GP_PERM_POSEIDON2_KOALABEAR_16;
    HostMat h;
    BufPtr ev;
    Committed2 cc;
    Rng rng(seed);
    commit_random(ctx, FR, N * D, d, rng, o, &h, &ev, &cc);
    if (::testing::Test::HasFatalFailure()) return;
    const gp_buffer *seg = cc.seg.get();
    // h extended directly.
    gp_buffer *raw = nullptr;
    ASSERT_GP_OK(gp_buffer_create(ctx, field, d, N * B, 1, &raw));
    BufPtr full(raw);
    gp_lde_options lo;
    gp_lde_options_init(&lo);
    lo.blowup = B / D;
    lo.input_shift = FR.generator;
    ASSERT_GP_OK(gp_lde_batch(ctx, ev.get(), &lo, full.get()));
    HostMat sh, fh;
    ASSERT_GP_OK(download(seg, FR, GP_LAYOUT_COL_MAJOR, &sh));
    ASSERT_GP_OK(download(full.get(), FR, GP_LAYOUT_COL_MAJOR, &fh));
    ASSERT_EQ(sh.cols, (uint64_t)D);
    const uint32_t log_m = (uint32_t)__builtin_ctzll(N * B);
    const T w = gp::two_adic_generator<F>(log_m);
    size_t bad = 0;
    for (uint64_t r = 0; r < N * B; ++r) {
        const T x = F::mul((T)FR.generator, gp::fpow<F>(w, r)), xn = gp::fpow<F>(x, N);
        for (uint32_t k = 0; k < d; ++k) {  // componentwise: x is in the base field
            T acc = 0, xp = 1;
            for (uint32_t i = 0; i < D; ++i, xp = F::mul(xp, xn)) acc = F::add(acc, F::mul(xp, (T)sh.at(r, i, k)));
            if (acc != (T)fh.at(r, 0, k)) ++bad;
        }
    }
    EXPECT_EQ(bad, 0u);
    // The tree is the commitment of the segment buffer.
    gp_merkle_options mo = o.merkle;
    {
        gp_merkle_tree *t2 = nullptr;
        ASSERT_GP_OK(gp_merkle_commit(ctx, &seg, 1, &mo, &t2));
        unsigned char a[32], b[32];
        EXPECT_EQ(gp_merkle_root(cc.tree, a, 32), GP_OK);
        EXPECT_EQ(gp_merkle_root(t2, b, 32), GP_OK);
        gp_merkle_tree_destroy(t2);
        EXPECT_EQ(std::memcmp(a, b, 32), 0);  // 32 bytes: 4 Goldilocks or 8 31-bit elements
    }
}

// Plonky3's split: segment i is the LDE of rows i, i + D, ... interpolated
// on shift * w^i * <w^D>, extended to shift * <w'> (bit-reversed).
template <class F>
void check_plonky3(gp_context *ctx, gp_field field, uint32_t d, uint64_t N, uint32_t D, uint32_t B, uint64_t seed) {
    SCOPED_TRACE(::testing::Message() << "plonky3 field " << field << " d=" << d << " N=" << N << " D=" << D
                                      << " B=" << B);
    using T = typename F::T;
    const FieldRef &FR = field_ref(field);
    gp_constraint_options o;
    gp_constraint_options_init(&o);
    o.segments = D;
    o.blowup = B;
    if (field == GP_FIELD_BABYBEAR) o.merkle.perm = GP_PERM_POSEIDON2_BABYBEAR_16;
    if (field == GP_FIELD_KOALABEAR) o.merkle.perm = GP_PERM_POSEIDON2_KOALABEAR_16;
    HostMat q;
    BufPtr ev;
    Committed2 cc;
    Rng rng(seed);
    commit_random(ctx, FR, N * D, d, rng, o, &q, &ev, &cc);
    if (::testing::Test::HasFatalFailure()) return;
    const gp_buffer *seg = cc.seg.get();
    HostMat sh;
    ASSERT_GP_OK(download(seg, FR, GP_LAYOUT_COL_MAJOR, &sh));
    const T w = gp::two_adic_generator<F>((uint32_t)__builtin_ctzll(N * D));
    for (uint32_t i = 0; i < D; ++i) {
        HostMat chunk(N, 1, d);
        for (uint64_t r = 0; r < N; ++r)
            for (uint32_t k = 0; k < d; ++k) chunk.at(r, 0, k) = q.at(i + r * D, 0, k);
        BufPtr cb, lde;
        ASSERT_GP_OK(upload(ctx, FR, chunk, GP_LAYOUT_COL_MAJOR, &cb));
        gp_buffer *raw = nullptr;
        ASSERT_GP_OK(gp_buffer_create(ctx, field, d, N * B, 1, &raw));
        lde.reset(raw);
        gp_lde_options lo;
        gp_lde_options_init(&lo);
        lo.blowup = B;
        lo.output_order = GP_ORDER_BIT_REVERSED;
        lo.input_shift = F::mul((T)FR.generator, gp::fpow<F>(w, i));
        ASSERT_GP_OK(gp_lde_batch(ctx, cb.get(), &lo, lde.get()));
        HostMat lh;
        ASSERT_GP_OK(download(lde.get(), FR, GP_LAYOUT_COL_MAJOR, &lh));
        size_t bad = 0;
        for (uint64_t r = 0; r < N * B; ++r)
            for (uint32_t k = 0; k < d; ++k)
                if (lh.at(r, 0, k) != sh.at(r, i, k)) ++bad;
        EXPECT_EQ(bad, 0u) << "segment " << i;
    }
    // A chunk of a polynomial of degree < N D is one of degree < N on its
    // coset: for q of degree < N, every segment LDE equals q's own LDE.
    if (d == 1) {
        HostMat lowc = random_mat(FR, N, 1, 1, rng), low(N * D, 1, 1);
        const T wn = w;
        for (uint64_t r = 0; r < N * D; ++r) {
            const T x = F::mul((T)FR.generator, gp::fpow<F>(wn, r));
            T acc = 0;
            for (uint64_t j = N; j-- > 0;) acc = F::add(F::mul(acc, x), (T)lowc.at(j, 0, 0));
            low.at(r, 0, 0) = acc;
        }
        BufPtr lb;
        ASSERT_GP_OK(upload(ctx, FR, low, GP_LAYOUT_COL_MAJOR, &lb));
        Committed2 c2;
        gp_buffer *s2 = nullptr;
        ASSERT_GP_OK(gp_constraint_commit(ctx, lb.get(), &o, &s2, &c2.tree));
        c2.seg.reset(s2);
        HostMat h2;
        ASSERT_GP_OK(download(s2, FR, GP_LAYOUT_COL_MAJOR, &h2));
        for (uint32_t i = 1; i < D; ++i)
            for (uint64_t r = 0; r < N * B; ++r) ASSERT_EQ(h2.at(r, i, 0), h2.at(r, 0, 0)) << "segment " << i;
    }
}

TEST_P(DeepTest, ConstraintCommitSplits) {
    check_winterfell<gp::Goldilocks>(ctx(), GP_FIELD_GOLDILOCKS, 1, 64, 4, 4, 11);
    check_winterfell<gp::Goldilocks>(ctx(), GP_FIELD_GOLDILOCKS, 3, 32, 2, 8, 12);
    check_winterfell<gp::BabyBear>(ctx(), GP_FIELD_BABYBEAR, 4, 32, 4, 4, 13);
    check_plonky3<gp::Goldilocks>(ctx(), GP_FIELD_GOLDILOCKS, 1, 64, 4, 2, 21);
    check_plonky3<gp::Goldilocks>(ctx(), GP_FIELD_GOLDILOCKS, 3, 32, 2, 4, 22);
    check_plonky3<gp::KoalaBear>(ctx(), GP_FIELD_KOALABEAR, 4, 16, 8, 2, 23);
    check_plonky3<gp::BabyBear>(ctx(), GP_FIELD_BABYBEAR, 1, 32, 2, 2, 24);
}

TEST_P(DeepTest, ConstraintCommitBadInput) {
    const FieldRef &F = field_ref(GP_FIELD_GOLDILOCKS);
    Rng rng(31);
    BufPtr ev, two;
    ASSERT_GP_OK(upload(ctx(), F, random_mat(F, 64, 1, 1, rng), GP_LAYOUT_COL_MAJOR, &ev));
    ASSERT_GP_OK(upload(ctx(), F, random_mat(F, 64, 2, 1, rng), GP_LAYOUT_COL_MAJOR, &two));
    gp_buffer *seg = nullptr;
    gp_merkle_tree *t = nullptr;
    gp_constraint_options o;
    gp_constraint_options_init(&o);
    EXPECT_EQ(gp_constraint_commit(ctx(), two.get(), &o, &seg, &t), GP_ERR_SHAPE_MISMATCH);
    EXPECT_STRNE(gp_last_error(), "");
    o.segments = 3;
    EXPECT_EQ(gp_constraint_commit(ctx(), ev.get(), &o, &seg, &t), GP_ERR_INVALID_ARGUMENT);
    o.segments = 128;
    EXPECT_EQ(gp_constraint_commit(ctx(), ev.get(), &o, &seg, &t), GP_ERR_INVALID_ARGUMENT);
    o.segments = 2;
    o.blowup = 64;
    EXPECT_EQ(gp_constraint_commit(ctx(), ev.get(), &o, &seg, &t), GP_ERR_INVALID_ARGUMENT);
    o.blowup = 2;
    o.merkle.perm = GP_PERM_POSEIDON2_BABYBEAR_16;
    EXPECT_EQ(gp_constraint_commit(ctx(), ev.get(), &o, &seg, &t), GP_ERR_FIELD_MISMATCH);
    EXPECT_EQ(seg, nullptr);
    EXPECT_EQ(t, nullptr);
    o.merkle.perm = GP_PERM_POSEIDON2_GOLDILOCKS_8;
    ASSERT_GP_OK(gp_constraint_commit(ctx(), ev.get(), &o, &seg, &t));
    gp_merkle_tree_destroy(t);
    gp_buffer_destroy(seg);
}

INSTANTIATE_TEST_SUITE_P(Backends, DeepTest, ::testing::Values(GP_BACKEND_CPU, GP_BACKEND_CUDA),
                         [](const ::testing::TestParamInfo<gp_backend> &info) {
                             return std::string(backend_name(info.param));
                         });
