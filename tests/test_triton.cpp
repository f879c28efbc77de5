// SPDX-License-Identifier: MIT OR Apache-2.0
// Triton VM's conventions (TritonVM/triton-vm v7.0.0 and its master of
// 2026-06, Neptune-Crypto/twenty-first v2.0.2) on every backend, against
// references written here from Triton's own definitions (test_triton_ref.h):
//  - XFieldElement products: twenty-first's known answers
//    (tests/vectors/triton_xfe.json), in the library's header and here;
//  - FRI (low_degree_test/fri.rs): round r folds c -> ((1 + a/x_i) c[i] +
//    (1 - a/x_i) c[n/2 + i]) / 2, x_i = offset_r g_r^i, natural order, the
//    next domain squared, every round's codeword committed as a MerkleTree of
//    Digest::from(xfe) = [c0, c1, c2, 0, 0] under hash_pair; queries reveal
//    positions a and a + n/2 of each round with their authentication paths;
//  - out-of-domain rows and the DEEP codeword over the Triton cubic;
//  - the quotient segments (split_polynomial_into_segments: coefficient i
//    of segment s is coefficient i D + s of the quotient), extended to the
//    FRI domain and committed as Tip5::hash_varlen of each row.
#include <gtest/gtest.h>

#include <cstdint>
#include <string>
#include <vector>

#include "math/ext.h"
#include "test_triton_ref.h"
#include "test_util.h"

using namespace gpt;

namespace {

constexpr uint64_t P = Xfe::P;
using Digest = TritonReference::Digest;

Xfe xfe_random(Rng &rng) { return Xfe::of(rng.elem(P), rng.elem(P), rng.elem(P)); }

Elems xfe_random_vec(uint64_t n, Rng &rng) {
    Elems v((size_t)(3 * n));
    for (auto &x : v) x = rng.elem(P);
    return v;
}

Digest digest_of(const Xfe &x) { return Digest{x.c[0], x.c[1], x.c[2], 0, 0}; }

Bytes digest_bytes(const Digest &d) { return le_bytes(d, 8); }

Bytes slice_of(const Bytes &b, size_t from, size_t n) { return Bytes(b.begin() + from, b.begin() + from + n); }

gp_merkle_options triton_digest_tree() {
    gp_merkle_options o;
    gp_merkle_options_init(&o);
    o.kind = GP_MERKLE_TRITON_DIGEST;
    o.perm = GP_PERM_TIP5;
    return o;
}

gp_fri_options triton_fri(uint64_t final_size) {
    gp_fri_options o;
    gp_fri_options_init(&o);
    o.arity = 2;
    o.final_size = final_size;
    o.order = GP_ORDER_NATURAL;
    o.shift = 7;
    o.fold = GP_FRI_FOLD_HALVED;
    o.extension = GP_EXT_TRITON;
    o.leaf = GP_FRI_LEAF_ELEMENT;
    o.merkle = triton_digest_tree();
    return o;
}

// The authentication path of leaf i, siblings from the bottom.
Bytes auth_path(const std::vector<std::vector<Digest>> &layers, uint64_t i) {
    Bytes out;
    for (size_t k = 0; k + 1 < layers.size(); ++k, i >>= 1) {
        const Bytes b = digest_bytes(layers[k][(size_t)(i ^ 1)]);
        out.insert(out.end(), b.begin(), b.end());
    }
    return out;
}

// FriProver::split_and_fold of one round on offset * <g>, g of order n.
Elems triton_fold(const Elems &c, uint64_t offset, const Xfe &a) {
    const uint64_t n = c.size() / 3;
    const uint64_t g = ref_root(field_ref(GP_FIELD_GOLDILOCKS), log2_exact(n));
    const Xfe one = Xfe::of(1), two_inv = Xfe::of(inv_mod(2, P));
    Elems out((size_t)(3 * (n / 2)));
    for (uint64_t i = 0; i < n / 2; ++i) {
        const uint64_t x_inv = inv_mod(mul_mod(offset, pow_mod(g, i, P), P), P);
        const Xfe scaled = a.scale(x_inv);
        const Xfe left = (one + scaled) * Xfe::at(c, i), right = (one - scaled) * Xfe::at(c, n / 2 + i);
        ((left + right) * two_inv).put(out, i);
    }
    return out;
}

class Triton : public BackendTest {};

}  // namespace

TEST(TritonExtension, TwentyFirstKnownProducts) {
    const std::string t = read_text_file(vectors_path("triton_xfe.json"));
    ASSERT_FALSE(t.empty()) << vectors_path("triton_xfe.json");
    using X3 = gp::Ext<gp::GoldilocksTriton, 3>;
    auto lib = [](const Elems &v) {
        X3 e;
        for (int k = 0; k < 3; ++k) e.c[k] = v[k];
        return e;
    };
    size_t pos = json_find_key(t, "products"), cases = 0;
    while ((pos = json_find_key(t, "a", pos)) != std::string::npos && pos < json_find_key(t, "derived")) {
        const Elems a = json_hex_array(t, pos), b = json_hex_array(t, json_find_key(t, "b", pos)),
                    want = json_hex_array(t, json_find_key(t, "a_times_b", pos));
        ASSERT_EQ(a.size(), 3u);
        const Xfe r = Xfe::of(a[0], a[1], a[2]) * Xfe::of(b[0], b[1], b[2]);
        EXPECT_EQ(Elems(r.c.begin(), r.c.end()), want) << "reference, case " << cases;
        const X3 l = lib(a) * lib(b);
        EXPECT_EQ(Elems(l.c, l.c + 3), want) << "library, case " << cases;
        // Plonky3's cubic (X^3 = X + 1) differs wherever a reduction happens.
        pos = json_find_key(t, "a_times_b", pos);
        ++cases;
    }
    EXPECT_EQ(cases, 6u);
    const Elems x = json_hex_array(t, json_find_key(t, "x")), xi = json_hex_array(t, json_find_key(t, "x_inverse"));
    const X3 inv = lib(x).inv();
    EXPECT_EQ(Elems(inv.c, inv.c + 3), xi);
    const X3 one = lib(x) * lib(xi);
    EXPECT_EQ(Elems(one.c, one.c + 3), (Elems{1, 0, 0}));
    using P3 = gp::Ext<gp::Goldilocks, 3>;
    P3 px, py;
    for (int k = 0; k < 3; ++k) px.c[k] = py.c[k] = 0;
    px.c[1] = 1;
    py.c[2] = 1;
    const P3 pz = px * py;  // X^3 = X + 1 in Plonky3's cubic
    EXPECT_EQ(Elems(pz.c, pz.c + 3), (Elems{1, 1, 0}));

    // ArithmeticDomain::of_length(n) generators equal the library's roots.
    const size_t roots = json_find_key(t, "log2_n_to_root");
    for (uint32_t log_n : {2u, 3u, 8u, 10u, 20u, 32u}) {
        const size_t at = json_find_key(t, std::to_string(log_n), roots);
        ASSERT_NE(at, std::string::npos);
        uint64_t root = 0;
        ASSERT_GP_OK(gp_field_two_adic_generator(GP_FIELD_GOLDILOCKS, log_n, &root));
        EXPECT_EQ(root, json_number(t, at)) << "2^" << log_n;
    }
}

TEST_P(Triton, DigestTreeIsTwentyFirstMerkleTreeOfDigests) {
    CtxPtr cpu;
    ASSERT_GP_OK(make_context(GP_BACKEND_CPU, &cpu));
    const TritonReference ref(cpu.get());
    const FieldRef &F = field_ref(GP_FIELD_GOLDILOCKS);
    Rng rng(91);
    const gp_merkle_options o = triton_digest_tree();
    // One cubic column (Triton's FRI rounds) and two base columns.
    for (uint32_t d : {3u, 1u}) {
        const uint64_t cols = d == 3 ? 1 : 2, rows = 32;
        SCOPED_TRACE(::testing::Message() << cols << " column(s) of degree " << d);
        const HostMat m = random_mat(F, rows, cols, d, rng);
        BufPtr b;
        ASSERT_GP_OK(upload(ctx(), F, m, GP_LAYOUT_COL_MAJOR, &b));
        std::vector<Digest> leaves;
        for (uint64_t r = 0; r < rows; ++r) {
            Digest dg(5, 0);
            size_t k = 0;
            for (uint64_t c = 0; c < cols; ++c)
                for (uint32_t e = 0; e < d; ++e) dg[k++] = m.at(r, c, e);
            leaves.push_back(dg);
        }
        const gp_buffer *mats[1] = {b.get()};
        gp_merkle_tree *raw = nullptr;
        ASSERT_GP_OK(gp_merkle_commit(ctx(), mats, 1, &o, &raw));
        TreePtr tree(raw);
        ASSERT_EQ(gp_merkle_digest_size(raw), 40u);
        EXPECT_TRUE(bytes_equal(merkle_cap_bytes(raw), digest_bytes(ref.root(leaves)), 40));
        Bytes digests((size_t)(rows * 40));
        ASSERT_GP_OK(gp_merkle_hash_rows(ctx(), mats, 1, &o, digests.data(), digests.size()));
        EXPECT_EQ(slice_of(digests, 40 * 5, 40), digest_bytes(leaves[5]));
        // An opening verifies on the host; a flipped value does not.
        const uint64_t idx = 13, row_bytes = cols * d * 8;
        Bytes row((size_t)row_bytes), path(5 * 40);
        ASSERT_GP_OK(gp_merkle_open(raw, &idx, 1, row.data(), row.size(), path.data(), path.size()));
        EXPECT_EQ(path, auth_path(ref.layers(leaves), idx));
        const gp_matrix_dims dims = {rows, (uint32_t)cols, d};
        const Bytes cap = merkle_cap_bytes(raw);
        EXPECT_EQ(gp_merkle_verify(&o, GP_FIELD_GOLDILOCKS, &dims, 1, cap.data(), cap.size(), idx, row.data(),
                                   row.size(), path.data(), path.size()),
                  GP_OK)
            << gp_last_error();
        row[3] ^= 1;
        EXPECT_EQ(gp_merkle_verify(&o, GP_FIELD_GOLDILOCKS, &dims, 1, cap.data(), cap.size(), idx, row.data(),
                                   row.size(), path.data(), path.size()),
                  GP_ERR_VERIFY_FAILED);
    }
    // Six elements do not fit a digest.
    const HostMat wide = random_mat(F, 8, 2, 3, rng);
    BufPtr w;
    ASSERT_GP_OK(upload(ctx(), F, wide, GP_LAYOUT_COL_MAJOR, &w));
    const gp_buffer *mats[1] = {w.get()};
    gp_merkle_tree *raw = nullptr;
    EXPECT_GP_ERR(gp_merkle_commit(ctx(), mats, 1, &o, &raw), GP_ERR_SHAPE_MISMATCH);
    EXPECT_EQ(raw, nullptr);
    const gp_matrix_dims dims = {8, 2, 3};
    Bytes row(48), path(3 * 40), cap(40);
    EXPECT_GP_ERR(gp_merkle_verify(&o, GP_FIELD_GOLDILOCKS, &dims, 1, cap.data(), cap.size(), 0, row.data(),
                                   row.size(), path.data(), path.size()),
                  GP_ERR_SHAPE_MISMATCH);
    // A FRI over it with groups of two cubic values per leaf is refused too.
    gp_fri_options fo = triton_fri(4);
    fo.leaf = GP_FRI_LEAF_GROUP;
    const Elems cw = xfe_random_vec(16, rng);
    const ApiData data(cw, 8);
    gp_fri *fri = nullptr;
    EXPECT_GP_ERR(gp_fri_begin_host(ctx(), GP_FIELD_GOLDILOCKS, 3, data.data(), 16, &fo, nullptr, 0, &fri),
                  GP_ERR_SHAPE_MISMATCH);
}

TEST_P(Triton, FriMatchesTritonProver) {
    CtxPtr cpu;
    ASSERT_GP_OK(make_context(GP_BACKEND_CPU, &cpu));
    const TritonReference ref(cpu.get());
    Rng rng(4242);
    for (uint64_t n : {64ull, 1024ull}) {
        const uint64_t final_size = n == 64 ? 4 : 32;
        SCOPED_TRACE(::testing::Message() << "codeword " << n << ", last codeword " << final_size);
        const gp_fri_options o = triton_fri(final_size);
        const uint32_t rounds = log2_exact(n / final_size);
        const Elems cw = xfe_random_vec(n, rng);
        std::vector<Xfe> betas;
        for (uint32_t r = 0; r < rounds; ++r) betas.push_back(xfe_random(rng));
        // The prover's rounds, every codeword committed.
        std::vector<Elems> cws{cw};
        uint64_t offset = 7;
        for (uint32_t r = 0; r < rounds; ++r) {
            cws.push_back(triton_fold(cws.back(), offset, betas[r]));
            offset = mul_mod(offset, offset, P);
        }
        std::vector<std::vector<std::vector<Digest>>> trees;
        for (const Elems &c : cws) {
            std::vector<Digest> leaves;
            for (uint64_t i = 0; i < c.size() / 3; ++i) leaves.push_back(digest_of(Xfe::at(c, i)));
            trees.push_back(ref.layers(leaves));
        }

        const ApiData data(cw, 8);
        gp_fri *raw = nullptr;
        Bytes cap(40);
        ASSERT_GP_OK(gp_fri_begin_host(ctx(), GP_FIELD_GOLDILOCKS, 3, data.data(), n, &o, cap.data(), cap.size(), &raw));
        std::unique_ptr<gp_fri, void (*)(gp_fri *)> fri(raw, gp_fri_destroy);
        ASSERT_EQ(gp_fri_layer_count(raw), rounds);
        EXPECT_EQ(cap, digest_bytes(trees[0].back()[0])) << "round 0 root";
        for (uint32_t r = 0; r < rounds; ++r) {
            const Bytes beta = le_bytes(Elems(betas[r].c.begin(), betas[r].c.end()), 8);
            ASSERT_GP_OK(gp_fri_fold(raw, beta.data(), beta.size(), cap.data(), cap.size()));
            if (r + 1 < rounds) EXPECT_EQ(cap, digest_bytes(trees[r + 1].back()[0])) << "round " << r + 1 << " root";
        }
        Bytes rem((size_t)gp_fri_remainder_size(raw));
        ASSERT_GP_OK(gp_fri_remainder(raw, rem.data(), rem.size()));
        EXPECT_EQ(rem, le_bytes(cws.back(), 8)) << "last codeword";
        // The last round's root: its codeword committed with the same tree.
        HostMat last(final_size, 1, 3);
        last.v = cws.back();
        BufPtr lb;
        ASSERT_GP_OK(upload(ctx(), field_ref(GP_FIELD_GOLDILOCKS), last, GP_LAYOUT_COL_MAJOR, &lb));
        const gp_buffer *mats[1] = {lb.get()};
        gp_merkle_tree *lt = nullptr;
        ASSERT_GP_OK(gp_merkle_commit(ctx(), mats, 1, &o.merkle, &lt));
        TreePtr last_tree(lt);
        EXPECT_EQ(merkle_cap_bytes(lt), digest_bytes(trees.back().back()[0])) << "last round root";

        // Queries: positions a and a + n_r/2 of every committed round, each
        // with its own authentication path.
        const uint64_t each = gp_fri_opening_size(raw);
        uint64_t want_each = 0;
        for (uint32_t r = 0; r < rounds; ++r) want_each += 2 * 24 + 2 * (log2_exact(n >> r) * 40);
        ASSERT_EQ(each, want_each);
        const std::vector<uint64_t> idx = {0, n - 1, rng.next() % n, rng.next() % n};
        Bytes all((size_t)(each * idx.size()));
        ASSERT_GP_OK(gp_fri_open(raw, idx.data(), idx.size(), all.data(), all.size()));
        Bytes caps;
        for (uint32_t r = 0; r < rounds; ++r) {
            const Bytes b = digest_bytes(trees[r].back()[0]);
            caps.insert(caps.end(), b.begin(), b.end());
        }
        Elems bw;
        for (const Xfe &b : betas) bw.insert(bw.end(), b.c.begin(), b.c.end());
        const Bytes betas_b = le_bytes(bw, 8);
        for (size_t q = 0; q < idx.size(); ++q) {
            SCOPED_TRACE("query " + std::to_string(idx[q]));
            const Bytes op(all.begin() + q * each, all.begin() + (q + 1) * each);
            size_t off = 0;
            for (uint32_t r = 0; r < rounds; ++r) {
                const uint64_t m = n >> r, a = idx[q] % (m / 2), b = a + m / 2;
                Elems vals;
                for (uint64_t pos : {a, b})
                    for (int k = 0; k < 3; ++k) vals.push_back(cws[r][3 * pos + k]);
                EXPECT_EQ(Bytes(op.begin() + off, op.begin() + off + 48), le_bytes(vals, 8)) << "round " << r;
                off += 48;
                const size_t pb = log2_exact(m) * 40;
                for (uint64_t pos : {a, b}) {
                    EXPECT_EQ(Bytes(op.begin() + off, op.begin() + off + pb), auth_path(trees[r], pos))
                        << "round " << r << " path of " << pos;
                    off += pb;
                }
            }
            EXPECT_EQ(gp_fri_verify(&o, GP_FIELD_GOLDILOCKS, 3, n, caps.data(), caps.size(), betas_b.data(),
                                    betas_b.size(), rem.data(), rem.size(), idx[q], op.data(), op.size()),
                      GP_OK)
                << gp_last_error();
            for (size_t at : {size_t(0), size_t(48 + 5), op.size() - 1}) {  // a value, a path, the last path
                Bytes t = op;
                t[at] ^= 1;
                EXPECT_NE(gp_fri_verify(&o, GP_FIELD_GOLDILOCKS, 3, n, caps.data(), caps.size(), betas_b.data(),
                                        betas_b.size(), rem.data(), rem.size(), idx[q], t.data(), t.size()),
                          GP_OK)
                    << "byte " << at << " flipped";
            }
        }
        // The same codeword under Plonky3's cubic folds to something else.
        gp_fri_options p3 = o;
        p3.extension = GP_EXT_PLONKY3;
        gp_fri *other = nullptr;
        ASSERT_GP_OK(gp_fri_begin_host(ctx(), GP_FIELD_GOLDILOCKS, 3, data.data(), n, &p3, nullptr, 0, &other));
        std::unique_ptr<gp_fri, void (*)(gp_fri *)> other_fri(other, gp_fri_destroy);
        const Bytes beta0 = le_bytes(Elems(betas[0].c.begin(), betas[0].c.end()), 8);
        ASSERT_GP_OK(gp_fri_fold(other, beta0.data(), beta0.size(), cap.data(), cap.size()));
        EXPECT_NE(cap, digest_bytes(trees[1].back()[0]));
    }
}

TEST_P(Triton, ExtensionOptionsAreChecked) {
    const Elems cw = Elems(3 * 16, 5);
    const ApiData data(cw, 8);
    gp_fri_options o = triton_fri(4);
    gp_fri *fri = nullptr;
    EXPECT_GP_ERR(gp_fri_begin_host(ctx(), GP_FIELD_GOLDILOCKS, 2, data.data(), 16, &o, nullptr, 0, &fri),
                  GP_ERR_UNSUPPORTED);  // Triton's extension is cubic
    store_raw(&o.extension, 7);
    EXPECT_GP_ERR(gp_fri_begin_host(ctx(), GP_FIELD_GOLDILOCKS, 3, data.data(), 16, &o, nullptr, 0, &fri),
                  GP_ERR_INVALID_ARGUMENT);
    o = triton_fri(4);
    store_raw(&o.leaf, 2);
    EXPECT_GP_ERR(gp_fri_begin_host(ctx(), GP_FIELD_GOLDILOCKS, 3, data.data(), 16, &o, nullptr, 0, &fri),
                  GP_ERR_INVALID_ARGUMENT);
    EXPECT_EQ(fri, nullptr);
    const Elems bb(4 * 16, 5);
    const ApiData bdata(bb, 4);
    o = triton_fri(4);
    o.merkle = gp_merkle_options{};
    gp_merkle_options_init(&o.merkle);
    o.merkle.perm = GP_PERM_POSEIDON2_BABYBEAR_16;
    EXPECT_GP_ERR(gp_fri_begin_host(ctx(), GP_FIELD_BABYBEAR, 4, bdata.data(), 16, &o, nullptr, 0, &fri),
                  GP_ERR_UNSUPPORTED);
    gp_ood_options oo;
    gp_ood_options_init(&oo);
    oo.extension = GP_EXT_TRITON;
    oo.challenge_degree = 2;
    HostMat m(16, 1, 1);
    BufPtr b;
    ASSERT_GP_OK(upload(ctx(), field_ref(GP_FIELD_GOLDILOCKS), m, GP_LAYOUT_COL_MAJOR, &b));
    const gp_buffer *cols[1] = {b.get()};
    const Elems z = {3, 4};
    Bytes out(16);
    EXPECT_GP_ERR(gp_evaluate_ood(ctx(), cols, 1, &oo, z.data(), 1, out.data(), out.size()), GP_ERR_UNSUPPORTED);
}

// Out-of-domain rows and the DEEP codeword of a main table (base columns)
// and an auxiliary table (cubic columns) on Triton's FRI domain: 7 * <w>,
// natural order, the trace's polynomials of degree < 16 extended by 4.
TEST_P(Triton, OutOfDomainAndDeepOverTheTritonCubic) {
    const FieldRef &F = field_ref(GP_FIELD_GOLDILOCKS);
    Rng rng(777);
    const uint64_t n = 16, B = 4, m = n * B;
    HostMat main_t = random_mat(F, n, 3, 1, rng), aux_t = random_mat(F, n, 2, 3, rng);
    const gp_lde_options lo = make_opts(n, (uint32_t)B, 7, 1, GP_ORDER_NATURAL);
    HostMat main_l, aux_l;
    ASSERT_GP_OK(run_lde(ctx(), F, main_t, lo, LdePath::kHost, GP_LAYOUT_COL_MAJOR, &main_l));
    ASSERT_GP_OK(run_lde(ctx(), F, aux_t, lo, LdePath::kHost, GP_LAYOUT_COL_MAJOR, &aux_l));
    BufPtr mb, ab;
    ASSERT_GP_OK(upload(ctx(), F, main_l, GP_LAYOUT_COL_MAJOR, &mb));
    ASSERT_GP_OK(upload(ctx(), F, aux_l, GP_LAYOUT_COL_MAJOR, &ab));
    const gp_buffer *cols[2] = {mb.get(), ab.get()};
    // Each column as an Xfe polynomial (coefficients of the trace's interpolant).
    std::vector<std::vector<Xfe>> polys;
    for (const HostMat *t : {&main_t, &aux_t})
        for (uint64_t c = 0; c < t->cols; ++c) {
            std::vector<Xfe> p((size_t)n);
            for (uint32_t k = 0; k < t->d; ++k) {
                const Elems co = naive_interpolate(F, t->base_col(c, k), n, 1);
                for (uint64_t i = 0; i < n; ++i) p[i].c[k] = co[i];
            }
            polys.push_back(p);
        }
    auto eval = [](const std::vector<Xfe> &p, const Xfe &z) {
        Xfe acc;
        for (size_t i = p.size(); i-- > 0;) acc = acc * z + p[i];
        return acc;
    };
    const uint64_t g = ref_root(F, log2_exact(n));
    const Xfe z = xfe_random(rng), gz = z.scale(g);
    const Elems points = {z.c[0], z.c[1], z.c[2], gz.c[0], gz.c[1], gz.c[2]};
    gp_ood_options oo;
    gp_ood_options_init(&oo);
    oo.shift = 7;
    oo.order = GP_ORDER_NATURAL;
    oo.degree_bound = n;
    oo.challenge_degree = 3;
    oo.extension = GP_EXT_TRITON;
    const size_t K = polys.size();
    Bytes vals(2 * K * 24);
    ASSERT_GP_OK(gp_evaluate_ood(ctx(), cols, 2, &oo, points.data(), 2, vals.data(), vals.size()));
    const Elems got = le_elems(vals, 8);
    std::vector<Xfe> v(2 * K);
    for (size_t j = 0; j < 2; ++j)
        for (size_t k = 0; k < K; ++k) {
            v[j * K + k] = eval(polys[k], j ? gz : z);
            EXPECT_EQ(Xfe::at(got, j * K + k), v[j * K + k]) << "point " << j << " column " << k;
        }
    // DEEP: q(x) (x - z)(x - gz) = sum_k a0k (f_k(x) - v0k)(x - gz) + a1k (f_k(x) - v1k)(x - z).
    Elems alphas = xfe_random_vec(2 * K, rng);
    BufPtr out;
    ASSERT_GP_OK(create_buffer(ctx(), F, 3, m, 1, &out));
    ASSERT_GP_OK(gp_deep_composition(ctx(), cols, 2, &oo, points.data(), 2, got.data(), alphas.data(), out.get()));
    HostMat q;
    ASSERT_GP_OK(download(out.get(), F, GP_LAYOUT_COL_MAJOR, &q));
    const uint64_t w = ref_root(F, log2_exact(m));
    size_t bad = 0;
    for (uint64_t r = 0; r < m; ++r) {
        const uint64_t x = mul_mod(7, pow_mod(w, r, P), P);
        const Xfe X = Xfe::of(x);
        Xfe rhs;
        for (size_t k = 0; k < K; ++k) {
            const HostMat &l = k < 3 ? main_l : aux_l;
            const uint64_t c = k < 3 ? k : k - 3;
            const Xfe f = l.d == 1 ? Xfe::of(l.at(r, c, 0)) : Xfe::of(l.at(r, c, 0), l.at(r, c, 1), l.at(r, c, 2));
            rhs = rhs + Xfe::at(alphas, k) * (f - v[k]) * (X - gz) + Xfe::at(alphas, K + k) * (f - v[K + k]) * (X - z);
        }
        const Xfe lhs = Xfe::of(q.at(r, 0, 0), q.at(r, 0, 1), q.at(r, 0, 2)) * (X - z) * (X - gz);
        if (!(lhs == rhs)) ++bad;
    }
    EXPECT_EQ(bad, 0u) << "of " << m << " rows";
}

// The quotient segments: Triton's interleaved split, extended to the FRI
// domain (7 * <w>, natural) and committed as Tip5::hash_varlen of each row.
TEST_P(Triton, QuotientSegmentsMatchTritonSplit) {
    CtxPtr cpu;
    ASSERT_GP_OK(make_context(GP_BACKEND_CPU, &cpu));
    const TritonReference ref(cpu.get());
    const FieldRef &F = field_ref(GP_FIELD_GOLDILOCKS);
    Rng rng(31337);
    const uint64_t N = 16, D = 4, B = 4;
    HostMat ev = random_mat(F, N * D, 1, 3, rng);
    BufPtr evb;
    ASSERT_GP_OK(upload(ctx(), F, ev, GP_LAYOUT_COL_MAJOR, &evb));
    gp_constraint_options o;
    gp_constraint_options_init(&o);
    o.split = GP_COMPOSITION_TRITON;
    o.segments = (uint32_t)D;
    o.blowup = (uint32_t)B;
    o.shift = 7;
    o.output_order = GP_ORDER_NATURAL;
    o.merkle.kind = GP_MERKLE_TRITON;
    o.merkle.perm = GP_PERM_TIP5;
    gp_buffer *seg = nullptr;
    gp_merkle_tree *tree = nullptr;
    ASSERT_GP_OK(gp_constraint_commit(ctx(), evb.get(), &o, &seg, &tree));
    BufPtr segp(seg);
    TreePtr treep(tree);
    HostMat s;
    ASSERT_GP_OK(download(seg, F, GP_LAYOUT_COL_MAJOR, &s));
    ASSERT_EQ(s.rows, N * B);
    ASSERT_EQ(s.cols, D);
    // Segment i: coefficients i, i + D, ... of the quotient's interpolant.
    std::vector<Elems> want(D * 3);
    for (uint32_t k = 0; k < 3; ++k) {
        const Elems h = naive_interpolate(F, ev.base_col(0, k), N * D, 7);
        for (uint64_t i = 0; i < D; ++i) {
            Elems part((size_t)N);
            for (uint64_t j = 0; j < N; ++j) part[j] = h[j * D + i];
            want[i * 3 + k] = naive_eval_coset(F, part, N * B, 7, GP_ORDER_NATURAL);
        }
    }
    std::vector<Digest> leaves;
    for (uint64_t r = 0; r < N * B; ++r) {
        Elems row;
        for (uint64_t i = 0; i < D; ++i)
            for (uint32_t k = 0; k < 3; ++k) {
                EXPECT_EQ(s.at(r, i, k), want[i * 3 + k][r]) << "row " << r << " segment " << i;
                row.push_back(want[i * 3 + k][r]);
            }
        leaves.push_back(ref.hash(row));
    }
    EXPECT_EQ(merkle_cap_bytes(tree), digest_bytes(ref.root(leaves)));
    // Back at the quotient domain: h(x) = sum_i x^i h_i(x^D) at one point.
    const uint64_t x = 7, xd = pow_mod(x, D, P);
    Xfe h_x, sum;
    for (uint32_t k = 0; k < 3; ++k) h_x.c[k] = horner(F, naive_interpolate(F, ev.base_col(0, k), N * D, 7), x);
    for (uint64_t i = 0; i < D; ++i) {
        Xfe hi;
        for (uint32_t k = 0; k < 3; ++k) {
            Elems part((size_t)N);
            const Elems h = naive_interpolate(F, ev.base_col(0, k), N * D, 7);
            for (uint64_t j = 0; j < N; ++j) part[j] = h[j * D + i];
            hi.c[k] = horner(F, part, xd);
        }
        sum = sum + hi.scale(pow_mod(x, i, P));
    }
    EXPECT_EQ(sum, h_x);
}

// One value per leaf with any order, arity and profile: the remainder equals
// the grouped layout's, layer 0's cap is the tree of the codeword itself (one
// row per value), and every opening verifies while a flipped byte does not.
TEST_P(Triton, OneValuePerLeafInAnyOrderAndArity) {
    Rng rng(2718);
    const uint64_t n = 256;
    for (gp_order order : {GP_ORDER_NATURAL, GP_ORDER_BIT_REVERSED})
        for (uint32_t arity : {2u, 4u}) {
            SCOPED_TRACE(::testing::Message() << "order " << order << " arity " << arity);
            gp_fri_options o;
            gp_fri_options_init(&o);
            o.arity = arity;
            o.final_size = 4;
            o.order = order;
            o.merkle.perm = GP_PERM_POSEIDON2_GOLDILOCKS_8;
            o.leaf = GP_FRI_LEAF_ELEMENT;
            gp_fri_options grouped = o;
            grouped.leaf = GP_FRI_LEAF_GROUP;
            const Elems cw = xfe_random_vec(n, rng);
            const ApiData data(cw, 8);
            const Bytes beta = le_bytes(Elems{3, 1, 4}, 8);
            Bytes rems[2], cap0(32);
            std::unique_ptr<gp_fri, void (*)(gp_fri *)> kept(nullptr, gp_fri_destroy);
            for (int g = 0; g < 2; ++g) {
                gp_fri *raw = nullptr;
                ASSERT_GP_OK(gp_fri_begin_host(ctx(), GP_FIELD_GOLDILOCKS, 3, data.data(), n, g ? &grouped : &o,
                                               cap0.data(), cap0.size(), &raw));
                std::unique_ptr<gp_fri, void (*)(gp_fri *)> f(raw, gp_fri_destroy);
                for (uint32_t k = 0; k < gp_fri_layer_count(raw); ++k)
                    ASSERT_GP_OK(gp_fri_fold(raw, beta.data(), beta.size(), nullptr, 0));
                rems[g].resize((size_t)gp_fri_remainder_size(raw));
                ASSERT_GP_OK(gp_fri_remainder(raw, rems[g].data(), rems[g].size()));
                if (g == 0) {
                    HostMat m(n, 1, 3);
                    m.v = cw;
                    BufPtr b;
                    ASSERT_GP_OK(upload(ctx(), field_ref(GP_FIELD_GOLDILOCKS), m, GP_LAYOUT_COL_MAJOR, &b));
                    const gp_buffer *mats[1] = {b.get()};
                    gp_merkle_tree *t = nullptr;
                    ASSERT_GP_OK(gp_merkle_commit(ctx(), mats, 1, &o.merkle, &t));
                    TreePtr tp(t);
                    EXPECT_EQ(cap0, merkle_cap_bytes(t)) << "layer 0";
                    kept = std::move(f);
                }
            }
            EXPECT_EQ(rems[0], rems[1]);
            gp_fri *f = kept.get();
            const uint32_t K = gp_fri_layer_count(f);
            // Caps of every layer, from a stepwise run with caps.
            gp_fri *raw = nullptr;
            Bytes caps((size_t)(32 * K)), c(32);
            ASSERT_GP_OK(gp_fri_begin_host(ctx(), GP_FIELD_GOLDILOCKS, 3, data.data(), n, &o, caps.data(), 32, &raw));
            std::unique_ptr<gp_fri, void (*)(gp_fri *)> again(raw, gp_fri_destroy);
            Elems bw;
            for (uint32_t k = 0; k < K; ++k) {
                ASSERT_GP_OK(gp_fri_fold(raw, beta.data(), beta.size(), c.data(), c.size()));
                if (k + 1 < K) std::copy(c.begin(), c.end(), caps.begin() + 32 * (k + 1));
                bw.insert(bw.end(), {3, 1, 4});
            }
            const Bytes betas = le_bytes(bw, 8);
            const uint64_t each = gp_fri_opening_size(f);
            for (uint64_t idx : std::vector<uint64_t>{0, n - 1, rng.next() % n}) {
                Bytes op((size_t)each);
                ASSERT_GP_OK(gp_fri_open(f, &idx, 1, op.data(), op.size()));
                EXPECT_EQ(gp_fri_verify(&o, GP_FIELD_GOLDILOCKS, 3, n, caps.data(), caps.size(), betas.data(),
                                        betas.size(), rems[0].data(), rems[0].size(), idx, op.data(), op.size()),
                          GP_OK)
                    << "index " << idx << ": " << gp_last_error();
                for (size_t at : {size_t(1), (size_t)(24 * arity + 9), op.size() - 2}) {
                    Bytes t = op;
                    t[at] ^= 1;
                    EXPECT_NE(gp_fri_verify(&o, GP_FIELD_GOLDILOCKS, 3, n, caps.data(), caps.size(), betas.data(),
                                            betas.size(), rems[0].data(), rems[0].size(), idx, t.data(), t.size()),
                              GP_OK)
                        << "index " << idx << " byte " << at;
                }
            }
        }
}

INSTANTIATE_TEST_SUITE_P(Backends, Triton, ::testing::Values(GP_BACKEND_CPU, GP_BACKEND_CUDA),
                         [](const ::testing::TestParamInfo<gp_backend> &i) { return std::string(backend_name(i.param)); });
