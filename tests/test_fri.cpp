// SPDX-License-Identifier: MIT OR Apache-2.0
// FRI commitment: gp_fri_begin / gp_fri_begin_host / gp_fri_fold /
// gp_fri_remainder / gp_fri_commit / gp_fri_open / gp_fri_verify.
//
// Expected values come from a naive reference written here:
//  - extension fields as Plonky3 defines them (Goldilocks X^2 = 7 and
//    X^3 = X + 1, BabyBear X^4 = 11, KoalaBear X^4 = 3), coefficients lowest
//    first;
//  - the domain of a layer of size m: shift_k * <w_m>, w_m =
//    GENERATOR^((p-1)/m); in bit-reversed order position q holds the value at
//    shift_k * w_m^bitrev(q), in natural order at shift_k * w_m^q;
//  - a fold of arity a: group g (bit-reversed: positions a*g .. a*g+a-1,
//    natural: positions g + j*m/a) is replaced by the value at beta of the
//    Lagrange interpolant of degree < a through its (point, value) pairs,
//    times a for GP_FRI_FOLD_UNHALVED; the result sits at position g of the
//    next layer (size m/a, shift_k^a);
//  - layer k's Merkle leaf g is the group, a*D base columns, member-major and
//    coefficient-minor, committed through gp_merkle_commit of a host-built
//    matrix with the same gp_merkle_options.
// Independent cross-checks: Plonky3's arity-2 formula by hand, the fold of
// the coefficient vector (sum_r beta^r f_r), arity 4 as two arity-2 folds,
// and the degree of the remainder after folding a low-degree codeword.
#include <gtest/gtest.h>

#include <array>
#include <cstdint>
#include <cstring>
#include <memory>
#include <sstream>
#include <string>
#include <vector>

#include "test_util.h"

using namespace gpt;

namespace {

/* ------------------------------------------------------------------------ */
/* Bytes                                                                    */
/* ------------------------------------------------------------------------ */

Bytes slice(const Bytes &b, size_t from, size_t n) { return Bytes(b.begin() + from, b.begin() + from + n); }

/* ------------------------------------------------------------------------ */
/* Extension-field reference                                                */
/* ------------------------------------------------------------------------ */

using E = std::array<uint64_t, 4>;

// The degree-d extension of one base field: X^d = sum red[i] X^i.
struct Fx {
    const FieldRef *F;
    uint32_t d;
    uint64_t p;
    uint32_t esz;
    E red{};

    Fx(gp_field f, uint32_t deg) : F(&field_ref(f)), d(deg), p(field_ref(f).p), esz(field_ref(f).elem_size) {
        if (f == GP_FIELD_GOLDILOCKS && d == 2) red = {7, 0, 0, 0};
        if (f == GP_FIELD_GOLDILOCKS && d == 3) red = {1, 1, 0, 0};
        if (f == GP_FIELD_BABYBEAR && d == 4) red = {11, 0, 0, 0};
        if (f == GP_FIELD_KOALABEAR && d == 4) red = {3, 0, 0, 0};
    }
    uint32_t elem_bytes() const { return d * esz; }
    E zero() const { return E{}; }
    E base(uint64_t x) const {
        E r{};
        r[0] = x;
        return r;
    }
    E add(const E &a, const E &b) const {
        E r{};
        for (uint32_t i = 0; i < d; ++i) r[i] = add_mod(a[i], b[i], p);
        return r;
    }
    E sub(const E &a, const E &b) const {
        E r{};
        for (uint32_t i = 0; i < d; ++i) r[i] = sub_mod(a[i], b[i], p);
        return r;
    }
    E scale(const E &a, uint64_t s) const {
        E r{};
        for (uint32_t i = 0; i < d; ++i) r[i] = mul_mod(a[i], s, p);
        return r;
    }
    E mul(const E &a, const E &b) const {
        uint64_t t[7] = {0, 0, 0, 0, 0, 0, 0};
        for (uint32_t i = 0; i < d; ++i)
            for (uint32_t j = 0; j < d; ++j) t[i + j] = add_mod(t[i + j], mul_mod(a[i], b[j], p), p);
        for (uint32_t k = 2 * d - 2; k >= d && k > 0; --k) {
            const uint64_t c = t[k];
            t[k] = 0;
            for (uint32_t i = 0; i < d; ++i) t[k - d + i] = add_mod(t[k - d + i], mul_mod(c, red[i], p), p);
        }
        E r{};
        for (uint32_t i = 0; i < d; ++i) r[i] = t[i];
        return r;
    }
    E pow(E a, uint64_t e) const {
        E r = base(1);
        while (e) {
            if (e & 1) r = mul(r, a);
            a = mul(a, a);
            e >>= 1;
        }
        return r;
    }
    E random(Rng &rng) const {
        E r{};
        for (uint32_t i = 0; i < d; ++i) r[i] = rng.elem(p);
        return r;
    }
    E get(const Elems &v, uint64_t i) const {
        E r{};
        for (uint32_t c = 0; c < d; ++c) r[c] = v[(size_t)(i * d + c)];
        return r;
    }
    void put(Elems &v, uint64_t i, const E &x) const {
        for (uint32_t c = 0; c < d; ++c) v[(size_t)(i * d + c)] = x[c];
    }
    Elems random_vec(uint64_t count, Rng &rng) const {
        Elems v((size_t)(count * d));
        for (auto &x : v) x = rng.elem(p);
        return v;
    }
    std::string str(const E &x) const {
        std::ostringstream s;
        s << "(";
        for (uint32_t i = 0; i < d; ++i) s << (i ? ", " : "") << "0x" << std::hex << x[i];
        s << ")";
        return s.str();
    }
};

uint64_t root_of(const FieldRef &F, uint32_t log_m) { return ref_root(F, log_m); }

// The evaluation point of position q of a layer of 2^log_m values on
// shift * <w_m>.
uint64_t point_at(const FieldRef &F, uint32_t log_m, uint64_t shift, bool bitrev, uint64_t q) {
    const uint64_t e = bitrev ? bit_reverse(q, log_m) : q;
    return mul_mod(shift, pow_mod(root_of(F, log_m), e, F.p), F.p);
}

uint64_t member_pos(uint64_t m, uint32_t a, bool bitrev, uint64_t g, uint32_t j) {
    return bitrev ? a * g + j : g + j * (m / a);
}
uint64_t group_of(uint64_t m, uint32_t a, bool bitrev, uint64_t q) { return bitrev ? q / a : q % (m / a); }

// The value at beta of the polynomial of degree < xs.size() through
// (xs[j], vs[j]) (Lagrange form).
E lagrange_at(const Fx &X, const std::vector<uint64_t> &xs, const std::vector<E> &vs, const E &beta) {
    const uint64_t p = X.p;
    E acc = X.zero();
    for (size_t j = 0; j < xs.size(); ++j) {
        E num = X.base(1);
        uint64_t den = 1;
        for (size_t i = 0; i < xs.size(); ++i) {
            if (i == j) continue;
            num = X.mul(num, X.sub(beta, X.base(xs[i])));
            den = mul_mod(den, sub_mod(xs[j], xs[i], p), p);
        }
        acc = X.add(acc, X.scale(X.mul(vs[j], num), inv_mod(den, p)));
    }
    return acc;
}

// One fold of a layer of m values on shift * <w_m>.
Elems ref_fold(const Fx &X, const Elems &layer, uint64_t m, uint32_t a, bool bitrev, uint64_t shift, const E &beta,
               bool unhalved) {
    const uint32_t log_m = log2_exact(m);
    Elems out((size_t)(m / a * X.d));
    std::vector<uint64_t> xs(a);
    std::vector<E> vs(a);
    for (uint64_t g = 0; g < m / a; ++g) {
        for (uint32_t j = 0; j < a; ++j) {
            const uint64_t q = member_pos(m, a, bitrev, g, j);
            xs[j] = point_at(*X.F, log_m, shift, bitrev, q);
            vs[j] = X.get(layer, q);
        }
        E v = lagrange_at(X, xs, vs, beta);
        if (unhalved) v = X.scale(v, a);
        X.put(out, g, v);
    }
    return out;
}

/* ------------------------------------------------------------------------ */
/* Configurations                                                           */
/* ------------------------------------------------------------------------ */

gp_permutation sponge_perm(gp_field f, bool alt) {
    if (f == GP_FIELD_GOLDILOCKS) return alt ? GP_PERM_POSEIDON2_GOLDILOCKS_12 : GP_PERM_POSEIDON2_GOLDILOCKS_8;
    if (f == GP_FIELD_BABYBEAR) return alt ? GP_PERM_POSEIDON2_BABYBEAR_24 : GP_PERM_POSEIDON2_BABYBEAR_16;
    return alt ? GP_PERM_POSEIDON2_KOALABEAR_24 : GP_PERM_POSEIDON2_KOALABEAR_16;
}

// Merkle profiles: 0 = Poseidon2 field sponge (the field's default width),
// 1 = Plonky3 Keccak-256, 2 = Poseidon2 field sponge of the other width.
gp_merkle_options merkle_profile(gp_field f, int profile, uint32_t cap_height) {
    gp_merkle_options o;
    gp_merkle_options_init(&o);
    if (profile == 1) {
        o.kind = GP_MERKLE_KECCAK_PLONKY3;
        o.perm = GP_PERM_KECCAK_F1600;
    } else {
        o.kind = GP_MERKLE_FIELD_SPONGE;
        o.perm = sponge_perm(f, profile == 2);
    }
    o.cap_height = cap_height;
    return o;
}

struct Cfg {
    gp_field field = GP_FIELD_GOLDILOCKS;
    uint32_t d = 1;
    uint32_t arity = 2;
    gp_order order = GP_ORDER_BIT_REVERSED;
    uint64_t shift = 1;
    gp_fri_fold_kind fold = GP_FRI_FOLD_HALVED;
    uint64_t n = 16, final_size = 1;
    int profile = 0;
    uint32_t cap_height = 0;

    // A configuration by shape; shift and fold keep their defaults.
    static Cfg shape(gp_field f, uint32_t d, uint32_t a, gp_order order, uint64_t n, uint64_t final_size,
                     int profile, uint32_t cap) {
        Cfg c;
        c.field = f;
        c.d = d;
        c.arity = a;
        c.order = order;
        c.n = n;
        c.final_size = final_size;
        c.profile = profile;
        c.cap_height = cap;
        return c;
    }

    bool bitrev() const { return order == GP_ORDER_BIT_REVERSED; }
    bool unhalved() const { return fold == GP_FRI_FOLD_UNHALVED; }
    uint32_t log_a() const { return log2_exact(arity); }
    uint32_t layers() const { return (log2_exact(n) - log2_exact(final_size)) / log_a(); }
    uint64_t layer_size(uint32_t k) const { return n >> (k * log_a()); }
    bool field_digests() const { return profile != 1; }
    gp_merkle_options merkle() const { return merkle_profile(field, profile, cap_height); }
    gp_fri_options options() const {
        gp_fri_options o;
        gp_fri_options_init(&o);
        o.arity = arity;
        o.final_size = final_size;
        o.order = order;
        o.shift = shift;
        o.fold = fold;
        o.merkle = merkle();
        return o;
    }
    std::string str() const {
        std::ostringstream s;
        s << field_ref(field).name << " degree " << d << ", arity " << arity << ", "
          << (bitrev() ? "bit-reversed" : "natural") << ", shift " << shift << ", "
          << (unhalved() ? "unhalved" : "halved") << ", n " << n << ", final " << final_size << ", merkle "
          << (profile == 1 ? "keccak" : profile == 2 ? "sponge(alt width)" : "sponge") << " cap_height "
          << cap_height;
        return s.str();
    }
};

// Sizes of one query's opening, by layer.
uint64_t group_bytes(const Cfg &c) { return (uint64_t)c.arity * c.d * field_ref(c.field).elem_size; }
uint64_t path_bytes(const Cfg &c, uint32_t k) {
    return (uint64_t)(log2_exact(c.layer_size(k)) - c.log_a() - c.cap_height) * 32;
}
uint64_t opening_bytes(const Cfg &c) {
    uint64_t t = 0;
    for (uint32_t k = 0; k < c.layers(); ++k) t += group_bytes(c) + path_bytes(c, k);
    return t;
}

/* ------------------------------------------------------------------------ */
/* Reference commit phase                                                   */
/* ------------------------------------------------------------------------ */

struct FriDeleter {
    void operator()(gp_fri *f) const { gp_fri_destroy(f); }
};
using FriPtr = std::unique_ptr<gp_fri, FriDeleter>;

// Every layer, the codeword first and the remainder last.
std::vector<Elems> ref_layers(const Cfg &c, const Elems &codeword, const Elems &betas) {
    const Fx X(c.field, c.d);
    std::vector<Elems> layers{codeword};
    uint64_t m = c.n, s = c.shift;
    for (uint32_t k = 0; k < c.layers(); ++k) {
        layers.push_back(ref_fold(X, layers.back(), m, c.arity, c.bitrev(), s, X.get(betas, k), c.unhalved()));
        m /= c.arity;
        s = pow_mod(s, c.arity, X.p);
    }
    return layers;
}

// Layer k as its Merkle leaves: m/a rows of a*d base values, member-major.
Elems leaf_matrix(const Cfg &c, const Elems &layer, uint64_t m) {
    const uint64_t rows = m / c.arity, width = (uint64_t)c.arity * c.d;
    Elems out((size_t)(rows * width));
    for (uint64_t g = 0; g < rows; ++g)
        for (uint32_t j = 0; j < c.arity; ++j) {
            const uint64_t q = member_pos(m, c.arity, c.bitrev(), g, j);
            for (uint32_t co = 0; co < c.d; ++co)
                out[(size_t)(g * width + j * c.d + co)] = layer[(size_t)(q * c.d + co)];
        }
    return out;
}

// A Merkle tree of one layer's leaf matrix (host-built, row-major, base columns).
struct RefTree {
    BufPtr buf;
    TreePtr tree;
};

gp_status make_ref_tree(gp_context *ctx, const Cfg &c, const Elems &layer, uint64_t m, RefTree *out) {
    const FieldRef &F = field_ref(c.field);
    const Elems leaves = leaf_matrix(c, layer, m);
    ApiData data(leaves, F.elem_size);
    gp_buffer *b = nullptr;
    gp_status st = gp_buffer_from_host(ctx, c.field, 1, m / c.arity, (uint64_t)c.arity * c.d, GP_LAYOUT_ROW_MAJOR,
                                       data.data(), &b);
    if (st != GP_OK) return st;
    out->buf.reset(b);
    const gp_buffer *mats[1] = {b};
    const gp_merkle_options mo = c.merkle();
    gp_merkle_tree *t = nullptr;
    st = gp_merkle_commit(ctx, mats, 1, &mo, &t);
    if (st != GP_OK) return st;
    out->tree.reset(t);
    return GP_OK;
}

// The reference caps of every committed layer.
std::vector<Bytes> ref_caps(gp_context *ctx, const Cfg &c, const std::vector<Elems> &layers) {
    std::vector<Bytes> caps;
    for (uint32_t k = 0; k < c.layers(); ++k) {
        RefTree rt;
        const gp_status st = make_ref_tree(ctx, c, layers[k], c.layer_size(k), &rt);
        EXPECT_EQ(st, GP_OK) << "reference tree of layer " << k << ": " << gp_last_error();
        caps.push_back(st == GP_OK ? merkle_cap_bytes(rt.tree.get()) : Bytes());
    }
    return caps;
}

/* ------------------------------------------------------------------------ */
/* The library's commit phase                                               */
/* ------------------------------------------------------------------------ */

struct LibRun {
    FriPtr fri;
    std::vector<Bytes> caps;
    Bytes remainder;
};

gp_status upload_codeword(gp_context *ctx, const Cfg &c, const Elems &codeword, BufPtr *out) {
    HostMat m(c.n, 1, c.d);
    m.v = codeword;
    return upload(ctx, field_ref(c.field), m, GP_LAYOUT_ROW_MAJOR, out);
}

gp_status begin(gp_context *ctx, const Cfg &c, const Elems &codeword, bool host, Bytes *cap, FriPtr *out) {
    const FieldRef &F = field_ref(c.field);
    const gp_fri_options o = c.options();
    gp_fri *raw = nullptr;
    gp_status st;
    if (host) {
        ApiData data(codeword, F.elem_size);
        st = gp_fri_begin_host(ctx, c.field, c.d, data.data(), c.n, &o, cap ? cap->data() : nullptr,
                               cap ? cap->size() : 0, &raw);
    } else {
        BufPtr buf;
        st = upload_codeword(ctx, c, codeword, &buf);
        if (st != GP_OK) return st;
        st = gp_fri_begin(ctx, buf.get(), &o, cap ? cap->data() : nullptr, cap ? cap->size() : 0, &raw);
    }
    out->reset(st == GP_OK ? raw : nullptr);
    if (st != GP_OK) {
        EXPECT_EQ(raw, nullptr) << "a failed begin wrote a handle";
    }
    return st;
}

// begin, then every fold with betas[k]; checks the sizes the handle reports
// and that the last fold leaves its cap argument alone.
::testing::AssertionResult lib_run(gp_context *ctx, const Cfg &c, const Elems &codeword, const Elems &betas, bool host,
                                   LibRun *out) {
    const Fx X(c.field, c.d);
    const uint64_t cap_bytes = 32ull << c.cap_height;
    Bytes cap((size_t)cap_bytes, 0xa5);
    gp_status st = begin(ctx, c, codeword, host, &cap, &out->fri);
    if (st != GP_OK)
        return ::testing::AssertionFailure() << (host ? "gp_fri_begin_host: " : "gp_fri_begin: ") << gpt_status_str((int)st)
                                             << " " << gp_last_error();
    gp_fri *f = out->fri.get();
    if (gp_fri_layer_count(f) != c.layers())
        return ::testing::AssertionFailure() << "gp_fri_layer_count " << gp_fri_layer_count(f) << " != " << c.layers();
    if (gp_fri_cap_size(f) != cap_bytes)
        return ::testing::AssertionFailure() << "gp_fri_cap_size " << gp_fri_cap_size(f) << " != " << cap_bytes;
    if (gp_fri_remainder_size(f) != c.final_size * X.elem_bytes())
        return ::testing::AssertionFailure() << "gp_fri_remainder_size " << gp_fri_remainder_size(f);
    out->caps.push_back(cap);
    for (uint32_t k = 0; k < c.layers(); ++k) {
        const Bytes beta = le_bytes(Elems(betas.begin() + k * c.d, betas.begin() + (k + 1) * c.d), X.esz);
        std::fill(cap.begin(), cap.end(), 0xa5);
        st = gp_fri_fold(f, beta.data(), beta.size(), cap.data(), cap.size());
        if (st != GP_OK)
            return ::testing::AssertionFailure() << "gp_fri_fold " << k << ": " << gpt_status_str((int)st) << " "
                                                 << gp_last_error();
        if (k + 1 < c.layers()) {
            out->caps.push_back(cap);
        } else if (cap != Bytes((size_t)cap_bytes, 0xa5)) {
            return ::testing::AssertionFailure() << "the last fold (to the remainder) wrote its cap argument";
        }
    }
    out->remainder.assign((size_t)gp_fri_remainder_size(f), 0);
    st = gp_fri_remainder(f, out->remainder.data(), out->remainder.size());
    if (st != GP_OK)
        return ::testing::AssertionFailure() << "gp_fri_remainder: " << gpt_status_str((int)st) << " " << gp_last_error();
    if (gp_fri_opening_size(f) != opening_bytes(c))
        return ::testing::AssertionFailure() << "gp_fri_opening_size " << gp_fri_opening_size(f) << " != "
                                             << opening_bytes(c);
    return ::testing::AssertionSuccess();
}

// Compares a run with the reference; returns whether everything matched.
bool check_against_reference(gp_context *ctx, const Cfg &c, const Elems &codeword, const Elems &betas, bool host,
                             LibRun *run_out = nullptr, std::vector<Elems> *layers_out = nullptr) {
    SCOPED_TRACE(c.str() + (host ? ", host codeword" : ", buffer codeword"));
    const FieldRef &F = field_ref(c.field);
    const std::vector<Elems> layers = ref_layers(c, codeword, betas);
    LibRun run;
    const ::testing::AssertionResult r = lib_run(ctx, c, codeword, betas, host, &run);
    EXPECT_TRUE(r);
    if (!r) return false;
    bool ok = true;
    const Bytes want_rem = le_bytes(layers.back(), F.elem_size);
    EXPECT_TRUE(bytes_equal(run.remainder, want_rem, (size_t)c.d * F.elem_size)) << "remainder";
    ok = ok && run.remainder == want_rem;
    const std::vector<Bytes> caps = ref_caps(ctx, c, layers);
    EXPECT_EQ(run.caps.size(), caps.size());
    for (size_t k = 0; k < caps.size() && k < run.caps.size(); ++k) {
        EXPECT_TRUE(bytes_equal(run.caps[k], caps[k])) << "cap of layer " << k;
        ok = ok && run.caps[k] == caps[k];
    }
    if (run_out) *run_out = std::move(run);
    if (layers_out) *layers_out = layers;
    return ok;
}

class FriTest : public BackendTest {
   protected:
    // A small commitment still matches the reference (after error cases).
    void expect_context_works() {
        SCOPED_TRACE("context still usable");
        Cfg c = Cfg::shape(GP_FIELD_BABYBEAR, 4, 4, GP_ORDER_BIT_REVERSED, 64, 4, 0, 0);
        c.shift = 31;
        const Fx X(c.field, c.d);
        Rng rng(4242);
        const Elems cw = X.random_vec(c.n, rng), betas = X.random_vec(c.layers(), rng);
        EXPECT_TRUE(check_against_reference(ctx(), c, cw, betas, true));
        EXPECT_STREQ(gp_last_error(), "");
    }
};

/* ------------------------------------------------------------------------ */
/* The reference itself                                                     */
/* ------------------------------------------------------------------------ */

TEST(FriReference, ExtensionArithmetic) {
    Rng rng(7);
    for (const FieldRef &F : all_fields())
        for (uint32_t d : F.ext_degrees) {
            SCOPED_TRACE(std::string(F.name) + " degree " + std::to_string(d));
            const Fx X(F.field, d);
            if (d > 1) {
                // X * X^(d-1) = X^d reduces to the defining relation.
                E x{}, xd1{};
                x[1] = 1;
                xd1[d - 1] = 1;
                const E want = X.red;
                EXPECT_EQ(X.mul(x, xd1), want);
            }
            for (int t = 0; t < 20; ++t) {
                const E a = X.random(rng), b = X.random(rng), c = X.random(rng);
                EXPECT_EQ(X.mul(X.mul(a, b), c), X.mul(a, X.mul(b, c)));
                EXPECT_EQ(X.mul(a, X.add(b, c)), X.add(X.mul(a, b), X.mul(a, c)));
                EXPECT_EQ(X.mul(a, b), X.mul(b, a));
                EXPECT_EQ(X.mul(a, X.base(1)), a);
            }
            // The multiplicative group has order p^d - 1: a^(p^d) = a.
            const E a = X.random(rng);
            E f = a;
            for (uint32_t i = 0; i < d; ++i) f = X.pow(f, X.p);
            EXPECT_EQ(f, a);
        }
}

TEST(FriReference, RootsMatchTheLibrary) {
    for (const FieldRef &F : all_fields())
        for (uint32_t log = 0; log <= 10; ++log) {
            uint64_t r = 0;
            ASSERT_EQ(gp_field_two_adic_generator(F.field, log, &r), GP_OK) << gp_last_error();
            EXPECT_EQ(r, root_of(F, log)) << F.name << " log " << log;
        }
}

TEST(FriReference, LagrangeFoldIsCoefficientFold) {
    // Folding evaluations of f = sum_k c_k X^k gives the evaluations of
    // sum_j (sum_r beta^r c_{a j + r}) Y^j.
    Rng rng(11);
    const Fx X(GP_FIELD_GOLDILOCKS, 3);
    const FieldRef &F = *X.F;
    for (uint32_t a : {2u, 4u, 8u})
        for (bool bitrev : {true, false}) {
            const uint64_t m = 32, shift = 7;
            const Elems coeffs = X.random_vec(m, rng);
            Elems evals((size_t)(m * 3));
            for (uint64_t q = 0; q < m; ++q) {
                const uint64_t x = point_at(F, 5, shift, bitrev, q);
                E v = X.zero();
                for (uint64_t k = m; k-- > 0;) v = X.add(X.scale(v, x), X.get(coeffs, k));
                X.put(evals, q, v);
            }
            const E beta = X.random(rng);
            const Elems folded = ref_fold(X, evals, m, a, bitrev, shift, beta, false);
            const uint64_t s2 = pow_mod(shift, a, F.p);
            for (uint64_t q = 0; q < m / a; ++q) {
                const uint64_t y = point_at(F, log2_exact(m / a), s2, bitrev, q);
                E want = X.zero();
                for (uint64_t j = m / a; j-- > 0;) {
                    E cj = X.zero();
                    for (uint32_t r = 0; r < a; ++r) cj = X.add(cj, X.mul(X.pow(beta, r), X.get(coeffs, a * j + r)));
                    want = X.add(X.scale(want, y), cj);
                }
                EXPECT_EQ(X.get(folded, q), want) << "arity " << a << (bitrev ? " bit-reversed" : " natural")
                                                  << " position " << q;
            }
        }
}

/* ------------------------------------------------------------------------ */
/* 1. Commit phase against the reference                                    */
/* ------------------------------------------------------------------------ */

TEST_P(FriTest, CommitPhaseMatchesReference) {
    uint64_t seed = 1000;
    int runs = 0;
    for (const FieldRef &F : all_fields())
        for (uint32_t d : F.ext_degrees)
            for (uint32_t a : {2u, 4u, 8u})
                for (gp_order order : {GP_ORDER_BIT_REVERSED, GP_ORDER_NATURAL})
                    for (bool shifted : {false, true})
                        for (gp_fri_fold_kind fold : {GP_FRI_FOLD_HALVED, GP_FRI_FOLD_UNHALVED})
                            for (int profile = 0; profile < 3; ++profile) {
                                Cfg c;
                                c.field = F.field;
                                c.d = d;
                                c.arity = a;
                                c.order = order;
                                c.shift = shifted ? F.generator : 1;
                                c.fold = fold;
                                c.profile = profile;
                                // Profile 0: final 1, cap 0; 1: final 2, cap 0 or 1;
                                // 2: final 4, cap 2.
                                const uint32_t log_final = (uint32_t)profile;
                                c.final_size = 1ull << log_final;
                                c.cap_height = profile == 2 ? 2 : profile == 1 && shifted ? 1 : 0;
                                const uint32_t K = a == 2 ? 3 : 2;
                                c.n = 1ull << (log_final + K * log2_exact(a));
                                const Fx X(c.field, d);
                                Rng rng(seed++);
                                const Elems cw = X.random_vec(c.n, rng), betas = X.random_vec(K, rng);
                                ASSERT_TRUE(check_against_reference(ctx(), c, cw, betas, (runs & 1) != 0))
                                    << "stopping at the first mismatching configuration";
                                ++runs;
                            }
    EXPECT_EQ(runs, 7 * 3 * 2 * 2 * 2 * 3);
}

TEST_P(FriTest, LargerCodewordsAndDeepFolds) {
    // Longer codewords and more layers, with several final sizes.
    const Cfg cases[] = {
        Cfg::shape(GP_FIELD_GOLDILOCKS, 2, 2, GP_ORDER_BIT_REVERSED, 4096, 1, 0, 0),
        Cfg::shape(GP_FIELD_GOLDILOCKS, 3, 4, GP_ORDER_NATURAL, 4096, 16, 1, 4),
        Cfg::shape(GP_FIELD_BABYBEAR, 4, 8, GP_ORDER_BIT_REVERSED, 4096, 8, 2, 3),
        Cfg::shape(GP_FIELD_KOALABEAR, 4, 2, GP_ORDER_NATURAL, 2048, 32, 0, 5),
        Cfg::shape(GP_FIELD_KOALABEAR, 1, 4, GP_ORDER_BIT_REVERSED, 2048, 2, 1, 1),
        Cfg::shape(GP_FIELD_BABYBEAR, 1, 2, GP_ORDER_BIT_REVERSED, 2, 1, 0, 0),
        Cfg::shape(GP_FIELD_GOLDILOCKS, 1, 8, GP_ORDER_NATURAL, 8, 1, 1, 0),
    };
    uint64_t seed = 77;
    for (Cfg c : cases) {
        c.fold = seed & 1 ? GP_FRI_FOLD_UNHALVED : GP_FRI_FOLD_HALVED;
        const Fx X(c.field, c.d);
        Rng rng(seed++);
        c.shift = rng.nonzero(X.p);  // an arbitrary coset
        const Elems cw = X.random_vec(c.n, rng), betas = X.random_vec(c.layers(), rng);
        EXPECT_TRUE(check_against_reference(ctx(), c, cw, betas, (seed & 1) != 0));
    }
}

TEST_P(FriTest, HostAndBufferCodewordsAgree) {
    for (gp_order order : {GP_ORDER_BIT_REVERSED, GP_ORDER_NATURAL}) {
        const Cfg c = Cfg::shape(GP_FIELD_GOLDILOCKS, 2, 4, order, 256, 4, 0, 1);
        const Fx X(c.field, c.d);
        Rng rng(5 + order);
        const Elems cw = X.random_vec(c.n, rng), betas = X.random_vec(c.layers(), rng);
        LibRun h, b;
        ASSERT_TRUE(lib_run(ctx(), c, cw, betas, true, &h));
        ASSERT_TRUE(lib_run(ctx(), c, cw, betas, false, &b));
        EXPECT_EQ(h.caps, b.caps);
        EXPECT_EQ(h.remainder, b.remainder);
        // The codeword buffer may be destroyed right after gp_fri_begin.
        BufPtr buf;
        ASSERT_GP_OK(upload_codeword(ctx(), c, cw, &buf));
        const gp_fri_options o = c.options();
        gp_fri *raw = nullptr;
        Bytes cap(64);
        ASSERT_GP_OK(gp_fri_begin(ctx(), buf.get(), &o, cap.data(), cap.size(), &raw));
        FriPtr f(raw);
        buf.reset();
        EXPECT_EQ(cap, h.caps[0]);
        for (uint32_t k = 0; k < c.layers(); ++k) {
            const Bytes beta = le_bytes(Elems(betas.begin() + 2 * k, betas.begin() + 2 * k + 2), 8);
            ASSERT_GP_OK(gp_fri_fold(f.get(), beta.data(), beta.size(), nullptr, 0));
        }
        Bytes rem((size_t)gp_fri_remainder_size(f.get()));
        ASSERT_GP_OK(gp_fri_remainder(f.get(), rem.data(), rem.size()));
        EXPECT_EQ(rem, h.remainder);
    }
}

/* ------------------------------------------------------------------------ */
/* 2. Plonky3's arity-2 formula by hand                                     */
/* ------------------------------------------------------------------------ */

TEST_P(FriTest, Arity2FormulaByHand) {
    // f'(x^2) = (f(x) + f(-x))/2 + beta (f(x) - f(-x))/(2x); Lambda VM's
    // unhalved variant (f(x) + f(-x)) + beta (f(x) - f(-x))/x. Bit-reversed:
    // lo = v[2g], hi = v[2g+1], x = shift_k * w_m^bitrev(g, log m - 1);
    // natural: lo = v[g], hi = v[g + m/2], x = shift_k * w_m^g.
    struct Case {
        gp_field f;
        uint32_t d;
    };
    const Case cases[] = {{GP_FIELD_GOLDILOCKS, 1}, {GP_FIELD_GOLDILOCKS, 2}, {GP_FIELD_BABYBEAR, 4},
                          {GP_FIELD_KOALABEAR, 1}};
    uint64_t seed = 31;
    for (const Case &cs : cases)
        for (gp_order order : {GP_ORDER_BIT_REVERSED, GP_ORDER_NATURAL})
            for (bool unhalved : {false, true})
                for (bool shifted : {false, true}) {
                    const Fx X(cs.f, cs.d);
                    const FieldRef &F = *X.F;
                    const bool bitrev = order == GP_ORDER_BIT_REVERSED;
                    Rng rng(seed++);
                    const Elems v0 = X.random_vec(8, rng);
                    const Elems betas = X.random_vec(3, rng);
                    const uint64_t shift = shifted ? F.generator : 1;
                    const uint64_t inv2 = inv_mod(2, F.p);
                    std::vector<Elems> by_hand{v0};
                    uint64_t s = shift;
                    for (uint32_t k = 0; k < 3; ++k) {
                        const Elems &v = by_hand.back();
                        const uint64_t m = 8 >> k;
                        const uint32_t log_m = 3 - k;
                        const uint64_t w = root_of(F, log_m);
                        const E beta = X.get(betas, k);
                        Elems next((size_t)(m / 2 * cs.d));
                        for (uint64_t g = 0; g < m / 2; ++g) {
                            const E lo = X.get(v, bitrev ? 2 * g : g);
                            const E hi = X.get(v, bitrev ? 2 * g + 1 : g + m / 2);
                            const uint64_t x =
                                mul_mod(s, pow_mod(w, bitrev ? bit_reverse(g, log_m - 1) : g, F.p), F.p);
                            // The pair really sits at x and -x.
                            EXPECT_EQ(point_at(F, log_m, s, bitrev, bitrev ? 2 * g : g), x);
                            EXPECT_EQ(point_at(F, log_m, s, bitrev, bitrev ? 2 * g + 1 : g + m / 2), neg_mod(x, F.p));
                            E r;
                            if (!unhalved)
                                r = X.add(X.scale(X.add(lo, hi), inv2),
                                          X.mul(beta, X.scale(X.sub(lo, hi), inv_mod(mul_mod(2, x, F.p), F.p))));
                            else
                                r = X.add(X.add(lo, hi), X.mul(beta, X.scale(X.sub(lo, hi), inv_mod(x, F.p))));
                            X.put(next, g, r);
                        }
                        by_hand.push_back(next);
                        s = mul_mod(s, s, F.p);
                    }
                    for (uint64_t final_size : {4u, 2u, 1u}) {
                        Cfg c;
                        c.field = cs.f;
                        c.d = cs.d;
                        c.order = order;
                        c.shift = shift;
                        c.fold = unhalved ? GP_FRI_FOLD_UNHALVED : GP_FRI_FOLD_HALVED;
                        c.n = 8;
                        c.final_size = final_size;
                        SCOPED_TRACE(c.str());
                        LibRun run;
                        ASSERT_TRUE(lib_run(ctx(), c, v0, betas, false, &run));
                        const uint32_t K = c.layers();
                        EXPECT_TRUE(bytes_equal(run.remainder, le_bytes(by_hand[K], F.elem_size)));
                        // The reference agrees as well.
                        EXPECT_EQ(ref_layers(c, v0, betas).back(), by_hand[K]);
                    }
                }
}

TEST_P(FriTest, Arity4And8AreRepeatedArity2Folds) {
    // An arity-2^t fold with beta equals t arity-2 folds with beta, beta^2, ...
    uint64_t seed = 901;
    for (gp_field f : {GP_FIELD_GOLDILOCKS, GP_FIELD_KOALABEAR})
        for (uint32_t a : {4u, 8u})
            for (gp_order order : {GP_ORDER_BIT_REVERSED, GP_ORDER_NATURAL})
                for (gp_fri_fold_kind fold : {GP_FRI_FOLD_HALVED, GP_FRI_FOLD_UNHALVED}) {
                    const uint32_t d = f == GP_FIELD_GOLDILOCKS ? 3 : 4;
                    const Fx X(f, d);
                    Cfg big;
                    big.field = f;
                    big.d = d;
                    big.arity = a;
                    big.order = order;
                    big.fold = fold;
                    big.shift = field_ref(f).generator;
                    big.n = (uint64_t)a * a * 2;
                    big.final_size = 2;
                    Cfg two = big;
                    two.arity = 2;
                    SCOPED_TRACE(big.str());
                    Rng rng(seed++);
                    const Elems cw = X.random_vec(big.n, rng), betas = X.random_vec(2, rng);
                    Elems betas2;
                    for (uint32_t k = 0; k < 2; ++k) {
                        E b = X.get(betas, k);
                        for (uint32_t t = 0; t < log2_exact(a); ++t) {
                            for (uint32_t co = 0; co < d; ++co) betas2.push_back(b[co]);
                            b = X.mul(b, b);
                        }
                    }
                    LibRun r_big, r_two;
                    ASSERT_TRUE(lib_run(ctx(), big, cw, betas, true, &r_big));
                    ASSERT_TRUE(lib_run(ctx(), two, cw, betas2, true, &r_two));
                    EXPECT_TRUE(bytes_equal(r_big.remainder, r_two.remainder));
                    EXPECT_TRUE(bytes_equal(r_big.remainder, le_bytes(ref_layers(big, cw, betas).back(),
                                                                       field_ref(f).elem_size)));
                }
}

/* ------------------------------------------------------------------------ */
/* 3. Low degree                                                            */
/* ------------------------------------------------------------------------ */

TEST_P(FriTest, LowDegreeFoldsToLowDegree) {
    // A polynomial of degree < dd * a^K on a domain of n = blowup * dd * a^K
    // points folds, after K folds, to the evaluations of a polynomial of
    // degree < dd (on shift^(a^K) * <w_(n/a^K)>), namely the coefficient fold
    // sum_r beta^r f_r (times a per fold when unhalved). A random codeword
    // does not.
    const uint32_t dd = 2, blowup = 4;
    uint64_t seed = 3000;
    for (const FieldRef &F : all_fields())
        for (uint32_t d : {1u, F.ext_degrees.back()})
            for (uint32_t a : {2u, 4u, 8u})
                for (gp_order order : {GP_ORDER_BIT_REVERSED, GP_ORDER_NATURAL})
                    for (bool shifted : {false, true}) {
                        const Fx X(F.field, d);
                        const uint32_t K = a == 8 ? 2 : 3;
                        uint64_t N = dd;
                        for (uint32_t k = 0; k < K; ++k) N *= a;
                        Cfg c;
                        c.field = F.field;
                        c.d = d;
                        c.arity = a;
                        c.order = order;
                        c.shift = shifted ? F.generator : 1;
                        c.fold = seed & 1 ? GP_FRI_FOLD_UNHALVED : GP_FRI_FOLD_HALVED;
                        c.n = N * blowup;
                        c.final_size = blowup * dd;
                        c.profile = (int)(seed % 3);
                        SCOPED_TRACE(c.str());
                        ASSERT_EQ(c.layers(), K);
                        Rng rng(seed++);
                        const Elems coeffs = X.random_vec(N, rng);
                        // Evaluate each base coordinate of the coefficients on the domain.
                        Elems cw((size_t)(c.n * d));
                        for (uint32_t co = 0; co < d; ++co) {
                            std::vector<uint64_t> cc((size_t)N);
                            for (uint64_t k = 0; k < N; ++k) cc[(size_t)k] = coeffs[(size_t)(k * d + co)];
                            const std::vector<uint64_t> ev = naive_eval_coset(F, cc, c.n, c.shift, order);
                            for (uint64_t q = 0; q < c.n; ++q) cw[(size_t)(q * d + co)] = ev[(size_t)q];
                        }
                        const Elems betas = X.random_vec(K, rng);
                        // Coefficient fold.
                        Elems fc = coeffs;
                        uint64_t len = N;
                        for (uint32_t k = 0; k < K; ++k) {
                            const E beta = X.get(betas, k);
                            Elems next((size_t)(len / a * d));
                            for (uint64_t j = 0; j < len / a; ++j) {
                                E acc = X.zero();
                                for (uint32_t r = 0; r < a; ++r)
                                    acc = X.add(acc, X.mul(X.pow(beta, r), X.get(fc, a * j + r)));
                                if (c.unhalved()) acc = X.scale(acc, a);
                                X.put(next, j, acc);
                            }
                            fc = next;
                            len /= a;
                        }
                        ASSERT_EQ(len, dd);
                        LibRun run;
                        ASSERT_TRUE(lib_run(ctx(), c, cw, betas, (seed & 2) != 0, &run));
                        const Elems rem = le_elems(run.remainder, F.elem_size);
                        const uint64_t m = c.final_size;
                        const uint32_t log_m = log2_exact(m);
                        const uint64_t sK = pow_mod(c.shift, N / dd, F.p);  // shift^(a^K)
                        for (uint32_t co = 0; co < d; ++co) {
                            std::vector<uint64_t> nat((size_t)m);
                            for (uint64_t i = 0; i < m; ++i)
                                nat[(size_t)i] = rem[(size_t)((c.bitrev() ? bit_reverse(i, log_m) : i) * d + co)];
                            const std::vector<uint64_t> ic = naive_interpolate(F, nat, m, sK);
                            for (uint64_t k = 0; k < m; ++k) {
                                const uint64_t want = k < dd ? fc[(size_t)(k * d + co)] : 0;
                                EXPECT_EQ(ic[(size_t)k], want) << "coefficient " << k << " coordinate " << co;
                            }
                        }
                        // A random codeword of the same size is far from low degree.
                        const Elems noise = X.random_vec(c.n, rng);
                        LibRun nrun;
                        ASSERT_TRUE(lib_run(ctx(), c, noise, betas, false, &nrun));
                        const Elems nrem = le_elems(nrun.remainder, F.elem_size);
                        bool high = false;
                        for (uint32_t co = 0; co < d; ++co) {
                            std::vector<uint64_t> nat((size_t)m);
                            for (uint64_t i = 0; i < m; ++i)
                                nat[(size_t)i] = nrem[(size_t)((c.bitrev() ? bit_reverse(i, log_m) : i) * d + co)];
                            const std::vector<uint64_t> ic = naive_interpolate(F, nat, m, sK);
                            for (uint64_t k = dd; k < m; ++k) high = high || ic[(size_t)k] != 0;
                        }
                        EXPECT_TRUE(high) << "a random codeword folded to degree < " << dd;
                        EXPECT_EQ(nrun.remainder, le_bytes(ref_layers(c, noise, betas).back(), F.elem_size));
                    }
}

/* ------------------------------------------------------------------------ */
/* 4. gp_fri_commit with a challenge callback                               */
/* ------------------------------------------------------------------------ */

// Challenges derived from the cap bytes and the layer (FNV-1a, then the RNG).
E derive_beta(const Fx &X, uint32_t layer, const unsigned char *cap, uint64_t cap_size) {
    uint64_t h = 0xcbf29ce484222325ull ^ layer;
    for (uint64_t i = 0; i < cap_size; ++i) h = (h ^ cap[i]) * 0x100000001b3ull;
    Rng rng(h);
    return X.random(rng);
}

struct Transcript {
    const Fx *X = nullptr;
    std::vector<uint32_t> layers;
    std::vector<Bytes> caps;
    Elems betas;
    bool bad_beta_size = false;
    int fail_at = -1;
    gp_status fail_with = GP_OK;
    int non_canonical_at = -1;
};

gp_status challenge_cb(void *user, uint32_t layer, const void *cap, uint64_t cap_size, void *beta,
                       uint64_t beta_size) {
    Transcript &t = *static_cast<Transcript *>(user);
    t.layers.push_back(layer);
    const auto *cb = static_cast<const unsigned char *>(cap);
    t.caps.emplace_back(cb, cb + cap_size);
    if (beta_size != t.X->elem_bytes()) t.bad_beta_size = true;
    if ((int)layer == t.fail_at) return t.fail_with;
    const E b = derive_beta(*t.X, layer, cb, cap_size);
    Elems v(t.X->d);
    for (uint32_t c = 0; c < t.X->d; ++c) v[c] = b[c];
    if ((int)layer == t.non_canonical_at) v[t.X->d - 1] = t.X->p;
    const Bytes bytes = le_bytes(v, t.X->esz);
    std::memcpy(beta, bytes.data(), std::min<size_t>(bytes.size(), (size_t)beta_size));
    for (uint32_t c = 0; c < t.X->d; ++c) t.betas.push_back(v[c]);
    return GP_OK;
}

TEST_P(FriTest, CommitWithCallbackEqualsStepwise) {
    const Cfg cases[] = {
        Cfg::shape(GP_FIELD_GOLDILOCKS, 3, 2, GP_ORDER_BIT_REVERSED, 128, 1, 0, 0),
        Cfg::shape(GP_FIELD_GOLDILOCKS, 1, 4, GP_ORDER_NATURAL, 256, 4, 1, 2),
        Cfg::shape(GP_FIELD_BABYBEAR, 4, 8, GP_ORDER_BIT_REVERSED, 512, 8, 2, 1),
        Cfg::shape(GP_FIELD_KOALABEAR, 4, 2, GP_ORDER_NATURAL, 64, 2, 0, 1),
    };
    uint64_t seed = 5000;
    for (Cfg c : cases) {
        c.shift = field_ref(c.field).generator;
        c.fold = seed & 1 ? GP_FRI_FOLD_UNHALVED : GP_FRI_FOLD_HALVED;
        SCOPED_TRACE(c.str());
        const Fx X(c.field, c.d);
        Rng rng(seed++);
        const Elems cw = X.random_vec(c.n, rng);
        BufPtr buf;
        ASSERT_GP_OK(upload_codeword(ctx(), c, cw, &buf));
        const gp_fri_options o = c.options();

        Transcript t;
        t.X = &X;
        gp_fri *raw = nullptr;
        ASSERT_GP_OK(gp_fri_commit(ctx(), buf.get(), &o, challenge_cb, &t, &raw));
        FriPtr committed(raw);
        ASSERT_NE(committed.get(), nullptr);
        EXPECT_STREQ(gp_last_error(), "");
        EXPECT_FALSE(t.bad_beta_size) << "beta_size != one extension element";
        ASSERT_EQ(t.layers.size(), c.layers());
        for (uint32_t k = 0; k < c.layers(); ++k) {
            EXPECT_EQ(t.layers[k], k);
            EXPECT_EQ(t.caps[k].size(), 32u << c.cap_height);
        }

        // Step by step, deriving the challenges from the caps gp_fri_fold returns.
        Bytes cap((size_t)(32u << c.cap_height));
        FriPtr stepped;
        ASSERT_GP_OK(begin(ctx(), c, cw, false, &cap, &stepped));
        Elems betas;
        std::vector<Bytes> caps;
        for (uint32_t k = 0; k < c.layers(); ++k) {
            caps.push_back(cap);
            const E b = derive_beta(X, k, cap.data(), cap.size());
            Elems v(b.begin(), b.begin() + c.d);
            betas.insert(betas.end(), v.begin(), v.end());
            const Bytes bb = le_bytes(v, X.esz);
            ASSERT_GP_OK(gp_fri_fold(stepped.get(), bb.data(), bb.size(), cap.data(), cap.size()));
        }
        EXPECT_EQ(t.caps, caps);
        EXPECT_EQ(t.betas, betas);
        Bytes r1((size_t)gp_fri_remainder_size(committed.get())), r2((size_t)gp_fri_remainder_size(stepped.get()));
        ASSERT_GP_OK(gp_fri_remainder(committed.get(), r1.data(), r1.size()));
        ASSERT_GP_OK(gp_fri_remainder(stepped.get(), r2.data(), r2.size()));
        EXPECT_EQ(r1, r2);
        // Both equal the reference with those challenges.
        const std::vector<Elems> layers = ref_layers(c, cw, betas);
        EXPECT_TRUE(bytes_equal(r1, le_bytes(layers.back(), X.esz)));
        EXPECT_EQ(ref_caps(ctx(), c, layers), caps);
        // Same openings.
        const uint64_t idx[3] = {0, c.n - 1, rng.next() % c.n};
        const uint64_t each = gp_fri_opening_size(committed.get());
        ASSERT_EQ(each, gp_fri_opening_size(stepped.get()));
        Bytes o1((size_t)(3 * each)), o2((size_t)(3 * each));
        ASSERT_GP_OK(gp_fri_open(committed.get(), idx, 3, o1.data(), o1.size()));
        ASSERT_GP_OK(gp_fri_open(stepped.get(), idx, 3, o2.data(), o2.size()));
        EXPECT_EQ(o1, o2);
    }
}

TEST_P(FriTest, CommitWithAWideCap) {
    // A cap of 2^12 digests (128 KiB) reaches the callback whole.
    const Cfg c = Cfg::shape(GP_FIELD_GOLDILOCKS, 1, 2, GP_ORDER_BIT_REVERSED, 1ull << 14, 1ull << 12, 1, 12);
    const Fx X(c.field, c.d);
    Rng rng(5500);
    const Elems cw = X.random_vec(c.n, rng);
    BufPtr buf;
    ASSERT_GP_OK(upload_codeword(ctx(), c, cw, &buf));
    const gp_fri_options o = c.options();
    Transcript t;
    t.X = &X;
    gp_fri *raw = nullptr;
    ASSERT_GP_OK(gp_fri_commit(ctx(), buf.get(), &o, challenge_cb, &t, &raw));
    FriPtr f(raw);
    ASSERT_EQ(t.caps.size(), 2u);
    const std::vector<Elems> layers = ref_layers(c, cw, t.betas);
    const std::vector<Bytes> caps = ref_caps(ctx(), c, layers);
    for (size_t k = 0; k < 2; ++k) EXPECT_TRUE(bytes_equal(t.caps[k], caps[k])) << "cap of layer " << k;
    Bytes rem((size_t)gp_fri_remainder_size(f.get()));
    ASSERT_GP_OK(gp_fri_remainder(f.get(), rem.data(), rem.size()));
    EXPECT_TRUE(bytes_equal(rem, le_bytes(layers.back(), 8), 8));
}

TEST_P(FriTest, CommitCallbackErrorsStopIt) {
    const Cfg c = Cfg::shape(GP_FIELD_GOLDILOCKS, 2, 2, GP_ORDER_BIT_REVERSED, 64, 2, 0, 0);
    const Fx X(c.field, c.d);
    Rng rng(6000);
    const Elems cw = X.random_vec(c.n, rng);
    BufPtr buf;
    ASSERT_GP_OK(upload_codeword(ctx(), c, cw, &buf));
    const gp_fri_options o = c.options();
    const int K = (int)c.layers();
    ASSERT_EQ(K, 5);
    for (int at : {0, 2, K - 1})
        for (gp_status code : {GP_ERR_VERIFY_FAILED, GP_ERR_UNSUPPORTED, GP_ERR_HOST_OUT_OF_MEMORY}) {
            SCOPED_TRACE("callback fails at layer " + std::to_string(at) + " with " + gpt_status_str((int)code));
            Transcript t;
            t.X = &X;
            t.fail_at = at;
            t.fail_with = code;
            gp_fri *raw = nullptr;
            EXPECT_GP_ERR(gp_fri_commit(ctx(), buf.get(), &o, challenge_cb, &t, &raw), code);
            EXPECT_EQ(raw, nullptr);
            gp_fri_destroy(raw);
            EXPECT_EQ(t.layers.size(), (size_t)at + 1) << "the callback was called after it failed";
        }
    {
        SCOPED_TRACE("callback writes a non-canonical challenge");
        Transcript t;
        t.X = &X;
        t.non_canonical_at = 1;
        gp_fri *raw = nullptr;
        EXPECT_GP_ERR(gp_fri_commit(ctx(), buf.get(), &o, challenge_cb, &t, &raw), GP_ERR_NON_CANONICAL);
        EXPECT_EQ(raw, nullptr);
        gp_fri_destroy(raw);
        EXPECT_EQ(t.layers.size(), 2u);
    }
    {
        gp_fri *raw = nullptr;
        EXPECT_GP_ERR(gp_fri_commit(ctx(), buf.get(), &o, nullptr, nullptr, &raw), GP_ERR_NULL_POINTER);
        EXPECT_EQ(raw, nullptr);
        gp_fri_destroy(raw);
    }
    {
        // Bad options fail before the callback is ever called.
        Transcript t;
        t.X = &X;
        gp_fri_options bad = o;
        bad.arity = 3;
        gp_fri *raw = nullptr;
        EXPECT_GP_ERR(gp_fri_commit(ctx(), buf.get(), &bad, challenge_cb, &t, &raw), GP_ERR_INVALID_ARGUMENT);
        EXPECT_EQ(raw, nullptr);
        gp_fri_destroy(raw);
        EXPECT_TRUE(t.layers.empty());
    }
    expect_context_works();
}

/* ------------------------------------------------------------------------ */
/* 5. Openings                                                              */
/* ------------------------------------------------------------------------ */

struct Flip {
    bool field_element;  // the byte belongs to a canonical field element
    size_t elem_start;   // first byte of that element
};

// Whether flipping bit 0 of byte b (inside a field element starting at
// elem_start) makes the element >= p.
bool flip_non_canonical(const Bytes &buf, size_t b, size_t elem_start, uint32_t esz, uint64_t p) {
    uint64_t x = 0;
    for (uint32_t k = 0; k < esz; ++k) {
        unsigned char byte = buf[elem_start + k];
        if (elem_start + k == b) byte ^= 1;
        x |= (uint64_t)byte << (8 * k);
    }
    return x >= p;
}

class FriOpenTest : public FriTest {
   protected:
    gp_status verify(const Cfg &c, const Bytes &caps, const Bytes &betas, const Bytes &rem, uint64_t index,
                     const Bytes &op) {
        const gp_fri_options o = c.options();
        return gp_fri_verify(&o, c.field, c.d, c.n, caps.data(), caps.size(), betas.data(), betas.size(), rem.data(),
                             rem.size(), index, op.data(), op.size());
    }

    // A flipped byte must be rejected: VERIFY_FAILED, or NON_CANONICAL when
    // it made a field element >= p.
    void expect_rejected(gp_status st, bool non_canonical, const std::string &what) {
        ++rejections_;
        if (non_canonical)
            EXPECT_TRUE(st == GP_ERR_NON_CANONICAL || st == (gp_status)15)
                << what << ": " << gpt_status_str((int)st) << " (" << gp_last_error() << ")";
        else
            EXPECT_EQ(st, (gp_status)15) << what << ": " << gpt_status_str((int)st) << " (" << gp_last_error() << ")";
        if (st != GP_OK) {
            EXPECT_STRNE(gp_last_error(), "") << what;
        }
    }

    uint64_t rejections_ = 0;

    // Opens `indices`, checks every group and path against the reference
    // trees, verifies, and (for the first `flips` indices) tampers with every
    // byte that the query depends on.
    void check_openings(const Cfg &c, uint64_t seed, size_t flips) {
        SCOPED_TRACE(c.str());
        const Fx X(c.field, c.d);
        const FieldRef &F = *X.F;
        Rng rng(seed);
        const Elems cw = X.random_vec(c.n, rng), betas_v = X.random_vec(c.layers(), rng);
        LibRun run;
        std::vector<Elems> layers;
        ASSERT_TRUE(check_against_reference(ctx(), c, cw, betas_v, (seed & 1) != 0, &run, &layers));
        const uint32_t K = c.layers();
        std::vector<RefTree> trees(K);
        for (uint32_t k = 0; k < K; ++k) ASSERT_GP_OK(make_ref_tree(ctx(), c, layers[k], c.layer_size(k), &trees[k]));

        std::vector<uint64_t> idx = {0, c.n - 1};
        for (int i = 0; i < 3; ++i) idx.push_back(rng.next() % c.n);
        const uint64_t each = gp_fri_opening_size(run.fri.get());
        ASSERT_EQ(each, opening_bytes(c));
        Bytes all((size_t)(each * idx.size()) + 16, 0xee);
        ASSERT_GP_OK(gp_fri_open(run.fri.get(), idx.data(), idx.size(), all.data(), all.size()));
        EXPECT_EQ(slice(all, all.size() - 16, 16), Bytes(16, 0xee)) << "wrote past the openings";

        Bytes caps;
        for (const Bytes &cp : run.caps) caps.insert(caps.end(), cp.begin(), cp.end());
        const Bytes betas = le_bytes(betas_v, F.elem_size);
        const Bytes &rem = run.remainder;
        const uint64_t gb = group_bytes(c), cap_bytes = 32ull << c.cap_height;

        for (size_t qi = 0; qi < idx.size(); ++qi) {
            const uint64_t index = idx[qi];
            SCOPED_TRACE("index " + std::to_string(index));
            const Bytes op = slice(all, (size_t)(qi * each), (size_t)each);
            // Groups and paths against the reference layers and trees.
            uint64_t off = 0;
            std::vector<uint64_t> groups(K), offsets(K);
            for (uint32_t k = 0; k < K; ++k) {
                const uint64_t m = c.layer_size(k);
                const uint64_t q = c.bitrev() ? index >> (k * c.log_a()) : index % m;
                const uint64_t g = group_of(m, c.arity, c.bitrev(), q);
                groups[k] = g;
                offsets[k] = off;
                Elems want;
                for (uint32_t j = 0; j < c.arity; ++j) {
                    const E v = X.get(layers[k], member_pos(m, c.arity, c.bitrev(), g, j));
                    for (uint32_t co = 0; co < c.d; ++co) want.push_back(v[co]);
                }
                EXPECT_TRUE(bytes_equal(slice(op, (size_t)off, (size_t)gb), le_bytes(want, F.elem_size)))
                    << "group of layer " << k;
                const uint64_t pb = path_bytes(c, k);
                Bytes rrow((size_t)gb), rpath((size_t)pb);
                ASSERT_GP_OK(gp_merkle_open(trees[k].tree.get(), &g, 1, rrow.data(), rrow.size(),
                                            pb ? rpath.data() : nullptr, pb));
                EXPECT_EQ(slice(op, (size_t)off, (size_t)gb), rrow) << "layer " << k;
                EXPECT_TRUE(bytes_equal(slice(op, (size_t)(off + gb), (size_t)pb), rpath)) << "path of layer " << k;
                off += gb + pb;
            }
            ASSERT_EQ(off, each);
            ASSERT_EQ(verify(c, caps, betas, rem, index, op), GP_OK) << gp_last_error();
            EXPECT_STREQ(gp_last_error(), "");

            // A query in another group fails; the sibling positions of the
            // same group (same groups at every layer) pass.
            const uint64_t other = c.bitrev() ? index ^ c.arity : index ^ 1;
            expect_rejected(verify(c, caps, betas, rem, other, op), false, "index " + std::to_string(other));
            const uint64_t sibling = c.bitrev() ? index ^ 1 : index ^ (c.n / 2);
            EXPECT_EQ(verify(c, caps, betas, rem, sibling, op), GP_OK)
                << "sibling index " << sibling << ": " << gp_last_error();

            if (qi >= flips) continue;
            // Every byte of the opening.
            for (uint32_t k = 0; k < K; ++k) {
                const uint64_t pb = path_bytes(c, k);
                for (uint64_t b = offsets[k]; b < offsets[k] + gb + pb; ++b) {
                    const bool in_group = b < offsets[k] + gb;
                    const bool fe = in_group || c.field_digests();
                    const size_t start = (size_t)(offsets[k] + (b - offsets[k]) / F.elem_size * F.elem_size);
                    Bytes t = op;
                    t[(size_t)b] ^= 1;
                    expect_rejected(verify(c, caps, betas, rem, index, t),
                                    fe && flip_non_canonical(op, (size_t)b, start, F.elem_size, F.p),
                                    std::string(in_group ? "group" : "path") + " byte " + std::to_string(b) +
                                        " of layer " + std::to_string(k));
                }
            }
            // The cap digest each layer's path ends in; other cap digests do not matter.
            for (uint32_t k = 0; k < K; ++k) {
                const uint32_t log_rows = log2_exact(c.layer_size(k) / c.arity);
                const uint64_t used = groups[k] >> (log_rows - c.cap_height);
                for (uint64_t b = 0; b < cap_bytes; ++b) {
                    const uint64_t pos = k * cap_bytes + b;
                    const bool in_used = b / 32 == used;
                    if (!in_used && (b % 32) != 0) continue;
                    Bytes t = caps;
                    t[(size_t)pos] ^= 1;
                    const gp_status st = verify(c, t, betas, rem, index, op);
                    if (!in_used) {
                        EXPECT_EQ(st, GP_OK) << "unused cap digest " << b / 32 << " of layer " << k;
                        continue;
                    }
                    const size_t start = (size_t)(pos / F.elem_size * F.elem_size);
                    expect_rejected(st, c.field_digests() && flip_non_canonical(caps, (size_t)pos, start, F.elem_size, F.p),
                                    "cap byte " + std::to_string(b) + " of layer " + std::to_string(k));
                }
            }
            // Every byte of every challenge.
            for (size_t b = 0; b < betas.size(); ++b) {
                Bytes t = betas;
                t[b] ^= 1;
                expect_rejected(verify(c, caps, t, rem, index, op),
                                flip_non_canonical(betas, b, b / F.elem_size * F.elem_size, F.elem_size, F.p),
                                "beta byte " + std::to_string(b));
            }
            // The remainder element the query reaches.
            const uint64_t rpos = c.bitrev() ? index >> (K * c.log_a()) : index % c.final_size;
            const uint64_t eb = X.elem_bytes();
            for (uint64_t b = rpos * eb; b < (rpos + 1) * eb; ++b) {
                Bytes t = rem;
                t[(size_t)b] ^= 1;
                expect_rejected(verify(c, caps, betas, t, index, op),
                                flip_non_canonical(rem, (size_t)b, (size_t)(b / F.elem_size * F.elem_size),
                                                   F.elem_size, F.p),
                                "remainder byte " + std::to_string(b));
            }
            if (HasFailure()) return;
        }
    }
};

TEST_P(FriOpenTest, OpenAndVerify) {
    uint64_t seed = 7000;
    for (const FieldRef &F : all_fields())
        for (uint32_t d : F.ext_degrees)
            for (uint32_t a : {2u, 4u, 8u})
                for (gp_order order : {GP_ORDER_BIT_REVERSED, GP_ORDER_NATURAL}) {
                    Cfg c;
                    c.field = F.field;
                    c.d = d;
                    c.arity = a;
                    c.order = order;
                    c.profile = (int)(seed % 3);
                    const uint32_t log_final = c.profile == 2 ? 2 : c.profile;
                    c.final_size = 1ull << log_final;
                    c.cap_height = c.profile == 2 ? 1 : c.profile == 1 ? 1 : 0;
                    c.n = 1ull << (log_final + (a == 2 ? 4 : 2) * log2_exact(a));
                    c.shift = seed & 1 ? F.generator : 1;
                    c.fold = seed & 2 ? GP_FRI_FOLD_UNHALVED : GP_FRI_FOLD_HALVED;
                    check_openings(c, seed++, 5);
                    if (HasFailure()) return;
                }
    // Every configuration tampered with every byte of five queries.
    EXPECT_GT(rejections_, 50000u);
}

TEST_P(FriOpenTest, OpenEveryIndexOfASmallCodeword) {
    for (gp_order order : {GP_ORDER_BIT_REVERSED, GP_ORDER_NATURAL}) {
        Cfg c;
        c.field = GP_FIELD_KOALABEAR;
        c.d = 4;
        c.arity = 2;
        c.order = order;
        c.n = 16;
        c.final_size = 2;
        c.cap_height = 1;
        c.shift = 3;
        SCOPED_TRACE(c.str());
        const Fx X(c.field, c.d);
        Rng rng(8000 + order);
        const Elems cw = X.random_vec(c.n, rng), bv = X.random_vec(c.layers(), rng);
        LibRun run;
        ASSERT_TRUE(lib_run(ctx(), c, cw, bv, false, &run));
        std::vector<uint64_t> idx;
        for (uint64_t i = 0; i < c.n; ++i) idx.push_back(c.n - 1 - i);
        const uint64_t each = gp_fri_opening_size(run.fri.get());
        Bytes all((size_t)(each * c.n));
        ASSERT_GP_OK(gp_fri_open(run.fri.get(), idx.data(), idx.size(), all.data(), all.size()));
        Bytes caps;
        for (const Bytes &cp : run.caps) caps.insert(caps.end(), cp.begin(), cp.end());
        const Bytes betas = le_bytes(bv, 4);
        for (uint64_t i = 0; i < c.n; ++i) {
            const Bytes op = slice(all, (size_t)(i * each), (size_t)each);
            EXPECT_EQ(verify(c, caps, betas, run.remainder, idx[i], op), GP_OK)
                << "index " << idx[i] << ": " << gp_last_error();
            // One query at a time gives the same bytes.
            Bytes one((size_t)each);
            ASSERT_GP_OK(gp_fri_open(run.fri.get(), &idx[i], 1, one.data(), one.size()));
            EXPECT_EQ(one, op);
        }
    }
}

TEST_P(FriOpenTest, VerifyWithOtherOptionsFails) {
    Cfg c;
    c.field = GP_FIELD_GOLDILOCKS;
    c.d = 2;
    c.arity = 2;
    c.n = 64;
    c.final_size = 4;
    c.shift = 7;
    const Fx X(c.field, c.d);
    Rng rng(8100);
    const Elems cw = X.random_vec(c.n, rng), bv = X.random_vec(c.layers(), rng);
    LibRun run;
    ASSERT_TRUE(lib_run(ctx(), c, cw, bv, true, &run));
    Bytes caps;
    for (const Bytes &cp : run.caps) caps.insert(caps.end(), cp.begin(), cp.end());
    const Bytes betas = le_bytes(bv, 8);
    const uint64_t index = 37;
    Bytes op((size_t)gp_fri_opening_size(run.fri.get()));
    ASSERT_GP_OK(gp_fri_open(run.fri.get(), &index, 1, op.data(), op.size()));
    ASSERT_EQ(verify(c, caps, betas, run.remainder, index, op), GP_OK) << gp_last_error();
    // Same sizes, other semantics: each must fail.
    Cfg other = c;
    other.shift = 1;
    expect_rejected(verify(other, caps, betas, run.remainder, index, op), false, "other shift");
    other = c;
    other.fold = GP_FRI_FOLD_UNHALVED;
    expect_rejected(verify(other, caps, betas, run.remainder, index, op), false, "unhalved");
    other = c;
    other.order = GP_ORDER_NATURAL;
    expect_rejected(verify(other, caps, betas, run.remainder, index, op), false, "natural order");
    other = c;
    other.profile = 2;
    expect_rejected(verify(other, caps, betas, run.remainder, index, op), false, "other permutation");
}

/* ------------------------------------------------------------------------ */
/* 6. Bad input                                                             */
/* ------------------------------------------------------------------------ */

TEST_P(FriTest, BadOptions) {
    Cfg c;
    c.field = GP_FIELD_GOLDILOCKS;
    c.d = 1;
    c.n = 32;
    const Fx X(c.field, c.d);
    Rng rng(9000);
    const Elems cw = X.random_vec(64, rng);
    BufPtr buf;
    ASSERT_GP_OK(upload_codeword(ctx(), c, Elems(cw.begin(), cw.begin() + 32), &buf));
    ApiData host(cw, 8);
    auto try_begin = [&](const gp_fri_options &o, bool use_host, uint64_t n) {
        gp_fri *raw = nullptr;
        const gp_status st = use_host ? gp_fri_begin_host(ctx(), c.field, 1, host.data(), n, &o, nullptr, 0, &raw)
                                      : gp_fri_begin(ctx(), buf.get(), &o, nullptr, 0, &raw);
        EXPECT_EQ(raw, nullptr);
        gp_fri_destroy(raw);
        return st;
    };
    gp_fri_options o;
    gp_fri_options_init(&o);
    // Defaults: arity 2, final 1, bit-reversed, shift 1, halved.
    EXPECT_EQ(o.struct_size, sizeof(gp_fri_options));
    EXPECT_EQ(o.arity, 2u);
    EXPECT_EQ(o.final_size, 1u);
    EXPECT_EQ(o.order, GP_ORDER_BIT_REVERSED);
    EXPECT_EQ(o.shift, 1u);
    EXPECT_EQ(o.fold, GP_FRI_FOLD_HALVED);
    EXPECT_EQ(o.merkle.kind, GP_MERKLE_FIELD_SPONGE);
    EXPECT_EQ(o.merkle.perm, GP_PERM_POSEIDON2_GOLDILOCKS_8);
    EXPECT_EQ(o.merkle.cap_height, 0u);
    for (bool use_host : {false, true}) {
        SCOPED_TRACE(use_host ? "host" : "buffer");
        for (uint32_t arity : {0u, 1u, 3u, 16u}) {
            gp_fri_options b = o;
            b.arity = arity;
            EXPECT_GP_ERR(try_begin(b, use_host, 32), GP_ERR_INVALID_ARGUMENT);
        }
        for (uint64_t fs : {32ull, 64ull, 3ull}) {
            gp_fri_options b = o;
            b.final_size = fs;
            EXPECT_GP_ERR(try_begin(b, use_host, 32), GP_ERR_INVALID_ARGUMENT);
        }
        {
            // 2^5 -> 1 by folds of 4 and 8, 2^5 -> 2 by folds of 8: not reachable.
            gp_fri_options b = o;
            b.arity = 4;
            EXPECT_GP_ERR(try_begin(b, use_host, 32), GP_ERR_INVALID_ARGUMENT);
            b.arity = 8;
            EXPECT_GP_ERR(try_begin(b, use_host, 32), GP_ERR_INVALID_ARGUMENT);
            b.final_size = 2;
            EXPECT_GP_ERR(try_begin(b, use_host, 32), GP_ERR_INVALID_ARGUMENT);
            b.final_size = 4;
            gp_fri *raw = nullptr;
            EXPECT_GP_OK(use_host ? gp_fri_begin_host(ctx(), c.field, 1, host.data(), 32, &b, nullptr, 0, &raw)
                                  : gp_fri_begin(ctx(), buf.get(), &b, nullptr, 0, &raw));
            EXPECT_EQ(gp_fri_layer_count(raw), 1u);
            gp_fri_destroy(raw);
        }
        {
            // cap_height above log2(final_size).
            gp_fri_options b = o;
            b.merkle.cap_height = 1;
            EXPECT_GP_ERR(try_begin(b, use_host, 32), GP_ERR_INVALID_ARGUMENT);
            b.final_size = 2;
            b.merkle.cap_height = 2;
            EXPECT_GP_ERR(try_begin(b, use_host, 32), GP_ERR_INVALID_ARGUMENT);
            b.merkle.cap_height = 1;
            gp_fri *raw = nullptr;
            EXPECT_GP_OK(use_host ? gp_fri_begin_host(ctx(), c.field, 1, host.data(), 32, &b, nullptr, 0, &raw)
                                  : gp_fri_begin(ctx(), buf.get(), &b, nullptr, 0, &raw));
            gp_fri_destroy(raw);
        }
        {
            gp_fri_options b = o;
            b.shift = X.p;
            EXPECT_GP_ERR_ANY(try_begin(b, use_host, 32), GP_ERR_INVALID_ARGUMENT, GP_ERR_NON_CANONICAL);
        }
#if !GP_TEST_SANITIZED
        {
            gp_fri_options b = o;
            store_raw(&b.order, 2);
            EXPECT_GP_ERR(try_begin(b, use_host, 32), GP_ERR_INVALID_ARGUMENT);
            b = o;
            store_raw(&b.fold, 2);
            EXPECT_GP_ERR(try_begin(b, use_host, 32), GP_ERR_INVALID_ARGUMENT);
            b = o;
            store_raw(&b.fold, -1);
            EXPECT_GP_ERR(try_begin(b, use_host, 32), GP_ERR_INVALID_ARGUMENT);
        }
#endif
    }
    // Host codewords whose size is not a power of two (>= 2).
    for (uint64_t n : {12ull, 33ull, 1ull}) {
        SCOPED_TRACE("n = " + std::to_string(n));
        EXPECT_GP_ERR(try_begin(o, true, n), GP_ERR_INVALID_ARGUMENT);
    }
    // A non-canonical host codeword.
    {
        ApiData bad = host;
        bad.set(17, X.p);
        gp_fri *raw = nullptr;
        EXPECT_GP_ERR(gp_fri_begin_host(ctx(), c.field, 1, bad.data(), 32, &o, nullptr, 0, &raw),
                      GP_ERR_NON_CANONICAL);
        EXPECT_EQ(raw, nullptr);
        gp_fri_destroy(raw);
    }
    // A Merkle permutation of another field.
    {
        const Fx Y(GP_FIELD_BABYBEAR, 4);
        const Elems bw = Y.random_vec(32, rng);
        ApiData bh(bw, 4);
        gp_fri *raw = nullptr;
        EXPECT_GP_ERR_ANY(gp_fri_begin_host(ctx(), GP_FIELD_BABYBEAR, 4, bh.data(), 32, &o, nullptr, 0, &raw),
                          GP_ERR_INVALID_ARGUMENT, GP_ERR_FIELD_MISMATCH, GP_ERR_UNSUPPORTED);
        EXPECT_EQ(raw, nullptr);
        gp_fri_destroy(raw);
        // An unsupported extension degree.
        EXPECT_GP_ERR_ANY(gp_fri_begin_host(ctx(), GP_FIELD_BABYBEAR, 2, bh.data(), 32, &o, nullptr, 0, &raw),
                          GP_ERR_INVALID_ARGUMENT, GP_ERR_UNSUPPORTED);
        gp_fri_destroy(raw);
    }
    // A codeword of two columns.
    {
        HostMat m(32, 2, 1);
        m.v.assign(cw.begin(), cw.end());
        BufPtr two;
        ASSERT_GP_OK(upload(ctx(), field_ref(c.field), m, GP_LAYOUT_COL_MAJOR, &two));
        gp_fri *raw = nullptr;
        EXPECT_GP_ERR(gp_fri_begin(ctx(), two.get(), &o, nullptr, 0, &raw), GP_ERR_SHAPE_MISMATCH);
        EXPECT_EQ(raw, nullptr);
        gp_fri_destroy(raw);
    }
    // A cap buffer that is too small.
    {
        Bytes cap(31);
        gp_fri *raw = nullptr;
        EXPECT_GP_ERR_ANY(gp_fri_begin(ctx(), buf.get(), &o, cap.data(), cap.size(), &raw), GP_ERR_INVALID_ARGUMENT,
                          GP_ERR_SHAPE_MISMATCH);
        EXPECT_EQ(raw, nullptr);
        gp_fri_destroy(raw);
    }
    // NULL pointers.
    {
        gp_fri *raw = nullptr;
        EXPECT_GP_ERR(gp_fri_begin(nullptr, buf.get(), &o, nullptr, 0, &raw), GP_ERR_NULL_POINTER);
        EXPECT_GP_ERR(gp_fri_begin(ctx(), nullptr, &o, nullptr, 0, &raw), GP_ERR_NULL_POINTER);
        EXPECT_GP_ERR(gp_fri_begin(ctx(), buf.get(), &o, nullptr, 0, nullptr), GP_ERR_NULL_POINTER);
        EXPECT_GP_ERR(gp_fri_begin_host(ctx(), c.field, 1, nullptr, 32, &o, nullptr, 0, &raw), GP_ERR_NULL_POINTER);
        EXPECT_EQ(raw, nullptr);
    }
    // NULL handles.
    EXPECT_EQ(gp_fri_layer_count(nullptr), 0u);
    EXPECT_EQ(gp_fri_cap_size(nullptr), 0u);
    EXPECT_EQ(gp_fri_remainder_size(nullptr), 0u);
    EXPECT_EQ(gp_fri_opening_size(nullptr), 0u);
    gp_fri_destroy(nullptr);
    // The defaults of gp_fri_options_init commit as the reference does.
    {
        gp_fri *raw = nullptr;
        Bytes cap(32);
        ASSERT_GP_OK(gp_fri_begin(ctx(), buf.get(), &o, cap.data(), cap.size(), &raw));
        FriPtr f(raw);
        EXPECT_EQ(gp_fri_layer_count(f.get()), 5u);
        Cfg dc;
        dc.n = 32;
        dc.d = 1;
        RefTree rt;
        ASSERT_GP_OK(make_ref_tree(ctx(), dc, Elems(cw.begin(), cw.begin() + 32), 32, &rt));
        EXPECT_EQ(cap, merkle_cap_bytes(rt.tree.get()));
    }
    expect_context_works();
}

TEST_P(FriTest, BadFoldRemainderAndOpenCalls) {
    Cfg c;
    c.field = GP_FIELD_GOLDILOCKS;
    c.d = 2;
    c.arity = 4;
    c.n = 64;
    c.final_size = 4;
    c.shift = 7;
    c.order = GP_ORDER_NATURAL;
    const Fx X(c.field, c.d);
    Rng rng(9100);
    const Elems cw = X.random_vec(c.n, rng), bv = X.random_vec(c.layers(), rng);
    ASSERT_EQ(c.layers(), 2u);
    FriPtr f;
    Bytes cap(32);
    ASSERT_GP_OK(begin(ctx(), c, cw, false, &cap, &f));
    const Bytes beta0 = le_bytes(Elems(bv.begin(), bv.begin() + 2), 8);
    const Bytes beta1 = le_bytes(Elems(bv.begin() + 2, bv.begin() + 4), 8);
    Bytes rem((size_t)gp_fri_remainder_size(f.get()));
    Bytes op((size_t)opening_bytes(c));
    const uint64_t zero = 0;
    // Before the last fold.
    EXPECT_GP_ERR(gp_fri_remainder(f.get(), rem.data(), rem.size()), GP_ERR_INVALID_ARGUMENT);
    EXPECT_GP_ERR(gp_fri_open(f.get(), &zero, 1, op.data(), op.size()), GP_ERR_INVALID_ARGUMENT);
    // Challenges of the wrong size: a base element, three coefficients, a byte short.
    {
        const Bytes b1 = le_bytes(Elems{bv[0]}, 8);
        EXPECT_GP_ERR_ANY(gp_fri_fold(f.get(), b1.data(), b1.size(), cap.data(), cap.size()),
                          GP_ERR_INVALID_ARGUMENT, GP_ERR_SHAPE_MISMATCH, GP_ERR_FIELD_MISMATCH);
        const Bytes b3 = le_bytes(Elems{bv[0], bv[1], 5}, 8);
        EXPECT_GP_ERR_ANY(gp_fri_fold(f.get(), b3.data(), b3.size(), cap.data(), cap.size()),
                          GP_ERR_INVALID_ARGUMENT, GP_ERR_SHAPE_MISMATCH, GP_ERR_FIELD_MISMATCH);
        EXPECT_GP_ERR_ANY(gp_fri_fold(f.get(), beta0.data(), beta0.size() - 1, cap.data(), cap.size()),
                          GP_ERR_INVALID_ARGUMENT, GP_ERR_SHAPE_MISMATCH);
    }
    // Non-canonical challenges, in either coefficient.
    for (int co = 0; co < 2; ++co) {
        Elems b(bv.begin(), bv.begin() + 2);
        b[co] = X.p + (co ? 5 : 0);
        const Bytes bb = le_bytes(b, 8);
        EXPECT_GP_ERR(gp_fri_fold(f.get(), bb.data(), bb.size(), cap.data(), cap.size()), GP_ERR_NON_CANONICAL);
        b[co] = ~0ull;
        const Bytes bm = le_bytes(b, 8);
        EXPECT_GP_ERR(gp_fri_fold(f.get(), bm.data(), bm.size(), cap.data(), cap.size()), GP_ERR_NON_CANONICAL);
    }
    EXPECT_GP_ERR(gp_fri_fold(f.get(), nullptr, 16, cap.data(), cap.size()), GP_ERR_NULL_POINTER);
    EXPECT_GP_ERR(gp_fri_fold(nullptr, beta0.data(), beta0.size(), cap.data(), cap.size()), GP_ERR_NULL_POINTER);
    // A cap buffer that is too small for the committed layer.
    {
        Bytes small(16);
        EXPECT_GP_ERR_ANY(gp_fri_fold(f.get(), beta0.data(), beta0.size(), small.data(), small.size()),
                          GP_ERR_INVALID_ARGUMENT, GP_ERR_SHAPE_MISMATCH);
    }
    // None of that changed anything: fold properly and compare.
    const std::vector<Elems> layers = ref_layers(c, cw, bv);
    const std::vector<Bytes> caps = ref_caps(ctx(), c, layers);
    EXPECT_EQ(cap, caps[0]);
    ASSERT_GP_OK(gp_fri_fold(f.get(), beta0.data(), beta0.size(), cap.data(), cap.size()));
    EXPECT_EQ(cap, caps[1]);
    EXPECT_GP_ERR(gp_fri_remainder(f.get(), rem.data(), rem.size()), GP_ERR_INVALID_ARGUMENT);
    EXPECT_GP_ERR(gp_fri_open(f.get(), &zero, 1, op.data(), op.size()), GP_ERR_INVALID_ARGUMENT);
    ASSERT_GP_OK(gp_fri_fold(f.get(), beta1.data(), beta1.size(), nullptr, 0));
    // Folding past the last layer.
    EXPECT_GP_ERR(gp_fri_fold(f.get(), beta1.data(), beta1.size(), nullptr, 0), GP_ERR_INVALID_ARGUMENT);
    EXPECT_GP_ERR(gp_fri_fold(f.get(), beta0.data(), beta0.size(), cap.data(), cap.size()), GP_ERR_INVALID_ARGUMENT);
    // Remainder: too small a buffer, NULL; then the real one.
    EXPECT_GP_ERR(gp_fri_remainder(f.get(), rem.data(), rem.size() - 1), GP_ERR_INVALID_ARGUMENT);
    EXPECT_GP_ERR(gp_fri_remainder(f.get(), nullptr, rem.size()), GP_ERR_NULL_POINTER);
    EXPECT_GP_ERR(gp_fri_remainder(nullptr, rem.data(), rem.size()), GP_ERR_NULL_POINTER);
    ASSERT_GP_OK(gp_fri_remainder(f.get(), rem.data(), rem.size()));
    EXPECT_EQ(rem, le_bytes(layers.back(), 8));
    ASSERT_EQ(gp_fri_opening_size(f.get()), op.size());
    // Open: index past the end, too small a buffer, NULL.
    {
        const uint64_t past[2] = {3, c.n};
        EXPECT_GP_ERR(gp_fri_open(f.get(), past, 2, Bytes(2 * op.size()).data(), 2 * op.size()),
                      GP_ERR_INVALID_ARGUMENT);
        const uint64_t huge = ~0ull;
        EXPECT_GP_ERR(gp_fri_open(f.get(), &huge, 1, op.data(), op.size()), GP_ERR_INVALID_ARGUMENT);
        EXPECT_GP_ERR(gp_fri_open(f.get(), &zero, 1, op.data(), op.size() - 1), GP_ERR_INVALID_ARGUMENT);
        EXPECT_GP_ERR(gp_fri_open(f.get(), nullptr, 1, op.data(), op.size()), GP_ERR_NULL_POINTER);
        EXPECT_GP_ERR(gp_fri_open(f.get(), &zero, 1, nullptr, op.size()), GP_ERR_NULL_POINTER);
        EXPECT_GP_ERR(gp_fri_open(nullptr, &zero, 1, op.data(), op.size()), GP_ERR_NULL_POINTER);
    }
    // The handle still opens and verifies.
    const uint64_t index = c.n - 3;
    ASSERT_GP_OK(gp_fri_open(f.get(), &index, 1, op.data(), op.size()));
    Bytes all_caps = caps[0];
    all_caps.insert(all_caps.end(), caps[1].begin(), caps[1].end());
    const Bytes betas = le_bytes(bv, 8);
    const gp_fri_options o = c.options();
    EXPECT_GP_OK(gp_fri_verify(&o, c.field, c.d, c.n, all_caps.data(), all_caps.size(), betas.data(), betas.size(),
                               rem.data(), rem.size(), index, op.data(), op.size()));
    expect_context_works();
}

TEST_P(FriOpenTest, BadVerifyArguments) {
    Cfg c;
    c.field = GP_FIELD_BABYBEAR;
    c.d = 4;
    c.arity = 2;
    c.n = 32;
    c.final_size = 2;
    c.cap_height = 1;
    c.shift = 31;
    const Fx X(c.field, c.d);
    Rng rng(9200);
    const Elems cw = X.random_vec(c.n, rng), bv = X.random_vec(c.layers(), rng);
    LibRun run;
    ASSERT_TRUE(lib_run(ctx(), c, cw, bv, true, &run));
    Bytes caps;
    for (const Bytes &cp : run.caps) caps.insert(caps.end(), cp.begin(), cp.end());
    const Bytes betas = le_bytes(bv, 4);
    const Bytes &rem = run.remainder;
    const uint64_t index = 21;
    Bytes op((size_t)gp_fri_opening_size(run.fri.get()));
    ASSERT_GP_OK(gp_fri_open(run.fri.get(), &index, 1, op.data(), op.size()));
    ASSERT_EQ(verify(c, caps, betas, rem, index, op), GP_OK) << gp_last_error();
    const gp_fri_options o = c.options();
    auto call = [&](const gp_fri_options *opts, gp_field f, uint32_t d, uint64_t n, const Bytes &cp, uint64_t cps,
                    const Bytes &bt, uint64_t bts, const Bytes &rm, uint64_t rms, uint64_t idx, const Bytes &opn,
                    uint64_t ops) {
        return gp_fri_verify(opts, f, d, n, cp.data(), cps, bt.data(), bts, rm.data(), rms, idx, opn.data(), ops);
    };
    // Wrong sizes: GP_ERR_SHAPE_MISMATCH.
    Bytes big_caps = caps, big_betas = betas, big_rem = rem, big_op = op;
    big_caps.resize(caps.size() + 64);
    big_betas.resize(betas.size() + 16);
    big_rem.resize(rem.size() + 16);
    big_op.resize(op.size() + 64);
    EXPECT_GP_ERR(call(&o, c.field, 4, c.n, caps, caps.size() - 32, betas, betas.size(), rem, rem.size(), index, op,
                       op.size()),
                  GP_ERR_SHAPE_MISMATCH);
    EXPECT_GP_ERR(call(&o, c.field, 4, c.n, big_caps, caps.size() + 64, betas, betas.size(), rem, rem.size(), index,
                       op, op.size()),
                  GP_ERR_SHAPE_MISMATCH);
    EXPECT_GP_ERR(call(&o, c.field, 4, c.n, caps, caps.size(), betas, betas.size() - 16, rem, rem.size(), index, op,
                       op.size()),
                  GP_ERR_SHAPE_MISMATCH);
    EXPECT_GP_ERR(call(&o, c.field, 4, c.n, caps, caps.size(), big_betas, betas.size() + 16, rem, rem.size(), index,
                       op, op.size()),
                  GP_ERR_SHAPE_MISMATCH);
    EXPECT_GP_ERR(call(&o, c.field, 4, c.n, caps, caps.size(), betas, betas.size(), rem, rem.size() - 16, index, op,
                       op.size()),
                  GP_ERR_SHAPE_MISMATCH);
    EXPECT_GP_ERR(call(&o, c.field, 4, c.n, caps, caps.size(), betas, betas.size(), big_rem, rem.size() + 16, index,
                       op, op.size()),
                  GP_ERR_SHAPE_MISMATCH);
    EXPECT_GP_ERR(call(&o, c.field, 4, c.n, caps, caps.size(), betas, betas.size(), rem, rem.size(), index, op,
                       op.size() - 1),
                  GP_ERR_SHAPE_MISMATCH);
    EXPECT_GP_ERR(call(&o, c.field, 4, c.n, caps, caps.size(), betas, betas.size(), rem, rem.size(), index, big_op,
                       op.size() + 32),
                  GP_ERR_SHAPE_MISMATCH);
    // A codeword size other than the commitment's changes every size.
    EXPECT_GP_ERR_ANY(call(&o, c.field, 4, c.n * 2, caps, caps.size(), betas, betas.size(), rem, rem.size(), index,
                           op, op.size()),
                      GP_ERR_SHAPE_MISMATCH);
    // Malformed arguments.
    EXPECT_GP_ERR_ANY(call(&o, c.field, 4, c.n, caps, caps.size(), betas, betas.size(), rem, rem.size(), c.n, op,
                           op.size()),
                      GP_ERR_INVALID_ARGUMENT, (gp_status)15);
    EXPECT_GP_ERR_ANY(call(&o, c.field, 4, 24, caps, caps.size(), betas, betas.size(), rem, rem.size(), index, op,
                           op.size()),
                      GP_ERR_INVALID_ARGUMENT, GP_ERR_SHAPE_MISMATCH);
    EXPECT_GP_ERR_ANY(call(&o, c.field, 2, c.n, caps, caps.size(), betas, betas.size(), rem, rem.size(), index, op,
                           op.size()),
                      GP_ERR_INVALID_ARGUMENT, GP_ERR_UNSUPPORTED, GP_ERR_SHAPE_MISMATCH);
    {
        gp_fri_options b = o;
        b.arity = 3;
        EXPECT_GP_ERR(call(&b, c.field, 4, c.n, caps, caps.size(), betas, betas.size(), rem, rem.size(), index, op,
                           op.size()),
                      GP_ERR_INVALID_ARGUMENT);
        b = o;
        b.merkle.cap_height = 2;
        EXPECT_GP_ERR(call(&b, c.field, 4, c.n, caps, caps.size(), betas, betas.size(), rem, rem.size(), index, op,
                           op.size()),
                      GP_ERR_INVALID_ARGUMENT);
    }
    // Non-canonical challenges and remainder elements.
    {
        Bytes t = betas;
        const Bytes pb = le_bytes(Elems{X.p}, 4);
        std::memcpy(t.data() + 4, pb.data(), 4);
        EXPECT_GP_ERR(call(&o, c.field, 4, c.n, caps, caps.size(), t, t.size(), rem, rem.size(), index, op, op.size()),
                      GP_ERR_NON_CANONICAL);
        Bytes r = rem;
        std::memcpy(r.data() + r.size() - 4, pb.data(), 4);
        EXPECT_GP_ERR(call(&o, c.field, 4, c.n, caps, caps.size(), betas, betas.size(), r, r.size(), index, op,
                           op.size()),
                      GP_ERR_NON_CANONICAL);
        Bytes g = op;
        std::memcpy(g.data(), pb.data(), 4);
        EXPECT_GP_ERR_ANY(call(&o, c.field, 4, c.n, caps, caps.size(), betas, betas.size(), rem, rem.size(), index, g,
                               g.size()),
                          GP_ERR_NON_CANONICAL);
    }
    // NULL pointers.
    {
        EXPECT_GP_ERR(gp_fri_verify(&o, c.field, 4, c.n, nullptr, caps.size(), betas.data(), betas.size(), rem.data(),
                                    rem.size(), index, op.data(), op.size()),
                      GP_ERR_NULL_POINTER);
        EXPECT_GP_ERR(gp_fri_verify(&o, c.field, 4, c.n, caps.data(), caps.size(), nullptr, betas.size(), rem.data(),
                                    rem.size(), index, op.data(), op.size()),
                      GP_ERR_NULL_POINTER);
        EXPECT_GP_ERR(gp_fri_verify(&o, c.field, 4, c.n, caps.data(), caps.size(), betas.data(), betas.size(), nullptr,
                                    rem.size(), index, op.data(), op.size()),
                      GP_ERR_NULL_POINTER);
        EXPECT_GP_ERR(gp_fri_verify(&o, c.field, 4, c.n, caps.data(), caps.size(), betas.data(), betas.size(),
                                    rem.data(), rem.size(), index, nullptr, op.size()),
                      GP_ERR_NULL_POINTER);
    }
    // Still verifies afterwards, and clears the message.
    EXPECT_GP_OK(verify(c, caps, betas, rem, index, op));
    EXPECT_STREQ(gp_last_error(), "");
    expect_context_works();
}

INSTANTIATE_TEST_SUITE_P(Fri, FriTest, ::testing::Values(GP_BACKEND_CPU, GP_BACKEND_CUDA),
                         [](const ::testing::TestParamInfo<gp_backend> &info) {
                             return std::string(backend_name(info.param));
                         });
INSTANTIATE_TEST_SUITE_P(Fri, FriOpenTest, ::testing::Values(GP_BACKEND_CPU, GP_BACKEND_CUDA),
                         [](const ::testing::TestParamInfo<gp_backend> &info) {
                             return std::string(backend_name(info.param));
                         });

}  // namespace
