// SPDX-License-Identifier: MIT OR Apache-2.0
// Constraint programs (gp_constraint_program_*, gp_quotient_evaluate)
// against a naive evaluator: every node of the caller's DAG evaluated as
// written (no common subexpressions, no slots), in the extension, the
// constraints folded by Horner's rule (acc = acc * alpha + c_j) and divided
// by Z_H(x) computed from its definition, inputs read at the rows the
// header documents (natural: row i M/Q; bit-reversed: row
// bitrev_{log M}(i M/Q)). Malformed programs and inputs get their status.
#include <gtest/gtest.h>

#include <cstdint>
#include <cstring>
#include <memory>
#include <vector>

#include "math/ext.h"
#include "test_util.h"

using namespace gpt;

namespace {

struct ProgDeleter {
    void operator()(gp_constraint_program *p) const { gp_constraint_program_destroy(p); }
};
using ProgPtr = std::unique_ptr<gp_constraint_program, ProgDeleter>;

// A program as the caller writes it, with its constants as words.
struct Prog {
    int field = GP_FIELD_GOLDILOCKS;  // an int: tests pass values outside gp_field
    uint32_t ext = 1, main_w = 0, prep_w = 0, periodic_w = 0, pub_n = 0, chal_n = 0;
    std::vector<gp_cp_node> nodes;
    std::vector<uint64_t> constants;
    std::vector<uint32_t> constraints;
    ApiData const_data;
    gp_constraint_program_desc desc() {
        gp_constraint_program_desc d;
        gp_constraint_program_desc_init(&d);
        std::memcpy(&d.field, &field, sizeof field);  // no load of an out-of-range enum
        d.ext_degree = ext;
        d.main_width = main_w;
        d.preprocessed_width = prep_w;
        d.periodic_width = periodic_w;
        d.public_count = pub_n;
        d.challenge_count = chal_n;
        d.nodes = nodes.data();
        d.node_count = (uint32_t)nodes.size();
        const bool known = field >= GP_FIELD_GOLDILOCKS && field <= GP_FIELD_KOALABEAR;
        const_data = ApiData(constants, known ? field_ref((gp_field)field).elem_size : 8);
        d.constants = constants.empty() ? nullptr : const_data.data();
        d.constant_count = (uint32_t)constants.size();
        d.constraints = constraints.data();
        d.constraint_count = (uint32_t)constraints.size();
        return d;
    }
    gp_status create(ProgPtr *out) {
        gp_constraint_program_desc d = desc();
        gp_constraint_program *raw = nullptr;
        gp_status st = gp_constraint_program_create(&d, &raw);
        out->reset(raw);
        return st;
    }
};

// A random DAG over every kind of leaf, `ops` operations, `cons`
// constraints (some nodes more than once, some nodes unused).
Prog random_prog(const FieldRef &FR, uint32_t ext, Rng &rng, uint32_t ops, uint32_t cons, bool with_ext) {
    Prog p;
    p.field = FR.field;
    p.ext = ext;
    p.main_w = 5, p.prep_w = 3, p.periodic_w = 2, p.pub_n = 3, p.chal_n = with_ext ? 2 : 0;
    for (int i = 0; i < 4; ++i) p.constants.push_back(rng.elem(FR.p));
    auto leaf = [&]() -> gp_cp_node {
        switch (rng.next() % (with_ext ? 10 : 9)) {
            case 0:
            case 1: return {GP_CP_MAIN, (uint32_t)(rng.next() % p.main_w), (uint32_t)(rng.next() % 2)};
            case 2: return {GP_CP_PREPROCESSED, (uint32_t)(rng.next() % p.prep_w), (uint32_t)(rng.next() % 2)};
            case 3: return {GP_CP_PERIODIC, (uint32_t)(rng.next() % p.periodic_w), 0};
            case 4: return {GP_CP_PUBLIC, (uint32_t)(rng.next() % p.pub_n), 0};
            case 5: return {GP_CP_CONST, (uint32_t)(rng.next() % p.constants.size()), 0};
            case 6: return {GP_CP_IS_FIRST_ROW, 0, 0};
            case 7: return {GP_CP_IS_LAST_ROW, 0, 0};
            case 8: return {GP_CP_IS_TRANSITION, 0, 0};
            default: return {GP_CP_CHALLENGE, (uint32_t)(rng.next() % p.chal_n), 0};
        }
    };
    for (int i = 0; i < 12; ++i) p.nodes.push_back(leaf());
    for (uint32_t k = 0; k < ops; ++k) {
        const uint32_t n = (uint32_t)p.nodes.size();
        // Mostly recent operands (deep chains), some far back (long lives).
        auto pick = [&]() -> uint32_t {
            return rng.next() % 4 ? n - 1 - (uint32_t)(rng.next() % std::min<uint32_t>(n, 6)) : (uint32_t)(rng.next() % n);
        };
        const uint32_t r = rng.next() % 16;
        if (r < 2) p.nodes.push_back(leaf());
        else if (r < 3) p.nodes.push_back({GP_CP_NEG, pick(), 0});
        else if (r < 4 && n > 2) {  // a repeated node, operands swapped: one node after CSE
            const gp_cp_node &o = p.nodes[n - 1];
            if (o.op == GP_CP_ADD || o.op == GP_CP_MUL) p.nodes.push_back({o.op, o.b, o.a});
            else p.nodes.push_back(o);
        } else {
            const uint32_t opk[3] = {GP_CP_ADD, GP_CP_SUB, GP_CP_MUL};
            p.nodes.push_back({opk[rng.next() % 3], pick(), pick()});
        }
    }
    const uint32_t n = (uint32_t)p.nodes.size();
    for (uint32_t j = 0; j < cons; ++j) p.constraints.push_back(n - 1 - (uint32_t)(rng.next() % std::min<uint32_t>(n, 40)));
    if (cons > 2) p.constraints[cons / 2] = p.constraints[0];  // one constraint twice
    return p;
}

template <class F, int D>
using X = gp::Ext<F, D>;

template <class F>
typename F::T naive_pow(typename F::T b, uint64_t e, uint64_t p) {
    uint64_t r = 1, x = b;
    while (e) {
        if (e & 1) r = mul_mod(r, x, p);
        x = mul_mod(x, x, p);
        e >>= 1;
    }
    return (typename F::T)r;
}

struct QInputsHost {
    uint32_t log_n = 0, log_q = 0, log_m = 0;
    bool bitrev = true;
    HostMat main, prep;
    std::vector<uint64_t> periodic;  // periodic_rows x width
    uint64_t periodic_rows = 1;
    std::vector<uint64_t> pub, chal, alpha;
};

// The naive quotient at every row of the domain.
template <class F, int D>
std::vector<X<F, D>> naive_quotient(const Prog &p, const QInputsHost &in) {
    using T = typename F::T;
    const FieldRef &FR = field_ref((gp_field)p.field);
    const uint64_t P = FR.p, q = 1ull << in.log_q, n = 1ull << in.log_n, m = 1ull << in.log_m;
    const T g = (T)FR.generator;
    // w_k = generator^((p-1)/2^k) as Plonky3 defines two-adic generators.
    auto root = [&](uint32_t k) { return naive_pow<F>(naive_pow<F>(g, (P - 1) >> FR.two_adicity, P), 1ull << (FR.two_adicity - k), P); };
    const T wq = root(in.log_q), wn = root(in.log_n);
    const T wn_inv = naive_pow<F>(wn, n - 1, P);
    auto inv = [&](T v) { return naive_pow<F>(v, P - 2, P); };
    X<F, D> alpha;
    for (int k = 0; k < D; ++k) alpha.c[k] = (T)in.alpha[k];
    std::vector<X<F, D>> out(q), val(p.nodes.size());
    for (uint64_t i = 0; i < q; ++i) {
        const T x = (T)mul_mod(g, naive_pow<F>(wq, i, P), P);
        const T zh = (T)sub_mod(naive_pow<F>(x, n, P), 1, P);
        auto row_of = [&](uint64_t ii) {
            const uint64_t nat = (ii % q) * (m / q);
            return in.bitrev ? gp::bit_reverse(nat, in.log_m) : nat;
        };
        const uint64_t r0 = row_of(i), r1 = row_of(i + q / n);
        for (size_t k = 0; k < p.nodes.size(); ++k) {
            const gp_cp_node &nd = p.nodes[k];
            X<F, D> v = X<F, D>::zero();
            switch (nd.op) {
                case GP_CP_MAIN: v = X<F, D>::from_base((T)in.main.at(nd.b ? r1 : r0, nd.a, 0)); break;
                case GP_CP_PREPROCESSED: v = X<F, D>::from_base((T)in.prep.at(nd.b ? r1 : r0, nd.a, 0)); break;
                case GP_CP_PERIODIC: v = X<F, D>::from_base((T)in.periodic[(i % in.periodic_rows) * p.periodic_w + nd.a]); break;
                case GP_CP_PUBLIC: v = X<F, D>::from_base((T)in.pub[nd.a]); break;
                case GP_CP_CONST: v = X<F, D>::from_base((T)p.constants[nd.a]); break;
                case GP_CP_CHALLENGE:
                    for (int c = 0; c < D; ++c) v.c[c] = (T)in.chal[nd.a * D + c];
                    break;
                case GP_CP_IS_FIRST_ROW: v = X<F, D>::from_base((T)mul_mod(zh, inv((T)sub_mod(x, 1, P)), P)); break;
                case GP_CP_IS_LAST_ROW: v = X<F, D>::from_base((T)mul_mod(zh, inv((T)sub_mod(x, wn_inv, P)), P)); break;
                case GP_CP_IS_TRANSITION: v = X<F, D>::from_base((T)sub_mod(x, wn_inv, P)); break;
                case GP_CP_ADD: v = val[nd.a] + val[nd.b]; break;
                case GP_CP_SUB: v = val[nd.a] - val[nd.b]; break;
                case GP_CP_MUL: v = val[nd.a] * val[nd.b]; break;
                case GP_CP_NEG: v = X<F, D>::zero() - val[nd.a]; break;
            }
            val[k] = v;
        }
        X<F, D> acc = X<F, D>::zero();
        for (uint32_t c : p.constraints) acc = acc * alpha + val[c];
        out[i] = acc.scale(inv(zh));
    }
    return out;
}

class QuotientTest : public BackendTest {
   protected:
    template <class F, int D>
    void run(gp_field field, uint32_t log_n, uint32_t log_qn, uint32_t log_mq, gp_order order, uint32_t ops,
             uint32_t cons, bool with_ext, uint64_t seed) {
        SCOPED_TRACE(::testing::Message() << "field " << field << " D=" << D << " log_n=" << log_n << " log_qn="
                                          << log_qn << " log_mq=" << log_mq << " order " << order << " seed " << seed);
        const FieldRef &FR = field_ref(field);
        Rng rng(seed);
        Prog p = random_prog(FR, D, rng, ops, cons, with_ext);
        ProgPtr prog;
        ASSERT_GP_OK(p.create(&prog));
        gp_constraint_program_info info;
        info.struct_size = sizeof(info);
        ASSERT_GP_OK(gp_constraint_program_get_info(prog.get(), &info));
        EXPECT_LT(info.nodes, p.nodes.size());  // the swapped repeats are one node each
        EXPECT_EQ(info.constraints, cons);

        QInputsHost in;
        in.log_n = log_n, in.log_q = log_n + log_qn, in.log_m = in.log_q + log_mq;
        in.bitrev = order == GP_ORDER_BIT_REVERSED;
        const uint64_t m = 1ull << in.log_m, q = 1ull << in.log_q;
        in.main = random_mat(FR, m, p.main_w, 1, rng);
        in.prep = random_mat(FR, m, p.prep_w, 1, rng);
        in.periodic_rows = std::min<uint64_t>(q, 4);
        for (uint64_t k = 0; k < in.periodic_rows * p.periodic_w; ++k) in.periodic.push_back(rng.elem(FR.p));
        for (uint32_t k = 0; k < p.pub_n; ++k) in.pub.push_back(rng.elem(FR.p));
        for (uint32_t k = 0; k < p.chal_n * D; ++k) in.chal.push_back(rng.elem(FR.p));
        for (int k = 0; k < D; ++k) in.alpha.push_back(rng.elem(FR.p));

        BufPtr mb, pb;
        ASSERT_GP_OK(upload(ctx(), FR, in.main, GP_LAYOUT_COL_MAJOR, &mb));
        ASSERT_GP_OK(upload(ctx(), FR, in.prep, GP_LAYOUT_COL_MAJOR, &pb));
        gp_buffer *raw = nullptr;
        // Degrees 5 and 8 (no buffer takes them) come as D base columns.
        const bool base_cols = D > 4;
        ASSERT_GP_OK(gp_buffer_create(ctx(), field, base_cols ? 1 : D, q, base_cols ? D : 1, &raw));
        BufPtr out(raw);
        ApiData per(in.periodic, FR.elem_size), pub(in.pub, FR.elem_size), chal(in.chal, FR.elem_size),
            alpha(in.alpha, FR.elem_size);
        gp_quotient_options o;
        gp_quotient_options_init(&o);
        o.log_trace_rows = in.log_n;
        o.log_quotient_rows = in.log_q;
        o.order = order;
        o.main = mb.get();
        o.preprocessed = pb.get();
        o.periodic = per.data();
        o.periodic_rows = in.periodic_rows;
        o.public_values = pub.data();
        o.challenges = p.chal_n ? chal.data() : nullptr;
        o.alpha = alpha.data();
        ASSERT_GP_OK(gp_quotient_evaluate(ctx(), prog.get(), &o, out.get()));
        HostMat got;
        ASSERT_GP_OK(download(out.get(), FR, GP_LAYOUT_COL_MAJOR, &got));
        const auto want = naive_quotient<F, D>(p, in);
        size_t bad = 0;
        for (uint64_t i = 0; i < q; ++i)
            for (int k = 0; k < D; ++k) {
                const uint64_t g = base_cols ? got.at(i, k, 0) : got.at(i, 0, k);
                if (g != (uint64_t)want[i].c[k] && bad++ < 5)
                    ADD_FAILURE() << "row " << i << " coefficient " << k << ": " << g << " != " << (uint64_t)want[i].c[k];
            }
        EXPECT_EQ(bad, 0u);
    }
};

TEST_P(QuotientTest, RandomProgramsMatchNaiveEvaluation) {
    uint64_t seed = 1;
    for (gp_order order : {GP_ORDER_BIT_REVERSED, GP_ORDER_NATURAL}) {
        run<gp::Goldilocks, 2>(GP_FIELD_GOLDILOCKS, 4, 1, 1, order, 300, 20, false, seed++);
        run<gp::Goldilocks, 1>(GP_FIELD_GOLDILOCKS, 3, 2, 0, order, 200, 9, false, seed++);
        run<gp::Goldilocks, 3>(GP_FIELD_GOLDILOCKS, 3, 1, 2, order, 200, 9, true, seed++);
        run<gp::BabyBear, 4>(GP_FIELD_BABYBEAR, 5, 1, 1, order, 400, 30, false, seed++);
        run<gp::BabyBear, 4>(GP_FIELD_BABYBEAR, 4, 2, 0, order, 300, 17, true, seed++);
        run<gp::KoalaBear, 4>(GP_FIELD_KOALABEAR, 6, 1, 0, order, 500, 40, false, seed++);
        run<gp::KoalaBear, 1>(GP_FIELD_KOALABEAR, 2, 3, 1, order, 100, 5, false, seed++);
        run<gp::BabyBear, 5>(GP_FIELD_BABYBEAR, 4, 1, 1, order, 300, 20, true, seed++);
        run<gp::BabyBear, 8>(GP_FIELD_BABYBEAR, 3, 1, 0, order, 200, 12, true, seed++);
        run<gp::KoalaBear, 8>(GP_FIELD_KOALABEAR, 3, 2, 1, order, 200, 12, true, seed++);
    }
}

TEST_P(QuotientTest, ManyRowsAndAWideProgram) {
    // Rows beyond one GPU wave and a program with many live values.
    run<gp::KoalaBear, 4>(GP_FIELD_KOALABEAR, 15, 1, 1, GP_ORDER_BIT_REVERSED, 3000, 200, false, 77);
    run<gp::Goldilocks, 2>(GP_FIELD_GOLDILOCKS, 14, 2, 0, GP_ORDER_NATURAL, 2000, 100, true, 78);
}

TEST_P(QuotientTest, NoConstraintsGiveZero) {
    Prog p;
    p.field = GP_FIELD_BABYBEAR;
    p.ext = 4;
    ProgPtr prog;
    ASSERT_GP_OK(p.create(&prog));
    gp_buffer *raw = nullptr;
    ASSERT_GP_OK(gp_buffer_create(ctx(), GP_FIELD_BABYBEAR, 4, 8, 1, &raw));
    BufPtr out(raw);
    const uint32_t alpha[4] = {1, 2, 3, 4};
    gp_quotient_options o;
    gp_quotient_options_init(&o);
    o.log_trace_rows = 2, o.log_quotient_rows = 3, o.alpha = alpha;
    ASSERT_GP_OK(gp_quotient_evaluate(ctx(), prog.get(), &o, out.get()));
    HostMat got;
    ASSERT_GP_OK(download(out.get(), field_ref(GP_FIELD_BABYBEAR), GP_LAYOUT_COL_MAJOR, &got));
    for (uint64_t v : got.v) EXPECT_EQ(v, 0u);
}

TEST_P(QuotientTest, BadInputsAreRefused) {
    const FieldRef &FR = field_ref(GP_FIELD_GOLDILOCKS);
    Rng rng(5);
    Prog p = random_prog(FR, 2, rng, 50, 4, false);
    ProgPtr prog;
    ASSERT_GP_OK(p.create(&prog));
    const uint64_t q = 16;
    HostMat mm = random_mat(FR, 32, p.main_w, 1, rng), pm = random_mat(FR, 32, p.prep_w, 1, rng);
    BufPtr mb, pb, wrong_w, wrong_f, ext_b;
    ASSERT_GP_OK(upload(ctx(), FR, mm, GP_LAYOUT_COL_MAJOR, &mb));
    ASSERT_GP_OK(upload(ctx(), FR, pm, GP_LAYOUT_COL_MAJOR, &pb));
    ASSERT_GP_OK(upload(ctx(), FR, random_mat(FR, 32, 2, 1, rng), GP_LAYOUT_COL_MAJOR, &wrong_w));
    const FieldRef &BB = field_ref(GP_FIELD_BABYBEAR);
    ASSERT_GP_OK(upload(ctx(), BB, random_mat(BB, 32, p.main_w, 1, rng), GP_LAYOUT_COL_MAJOR, &wrong_f));
    ASSERT_GP_OK(upload(ctx(), FR, random_mat(FR, 32, p.main_w, 2, rng), GP_LAYOUT_COL_MAJOR, &ext_b));
    gp_buffer *raw = nullptr;
    ASSERT_GP_OK(gp_buffer_create(ctx(), GP_FIELD_GOLDILOCKS, 2, q, 1, &raw));
    BufPtr out(raw);
    ASSERT_GP_OK(gp_buffer_create(ctx(), GP_FIELD_GOLDILOCKS, 2, q / 2, 1, &raw));
    BufPtr short_out(raw);
    std::vector<uint64_t> per(4 * p.periodic_w, 1), pub(p.pub_n, 2), alpha = {3, 4};
    auto opts = [&] {
        gp_quotient_options o;
        gp_quotient_options_init(&o);
        o.log_trace_rows = 3, o.log_quotient_rows = 4;
        o.main = mb.get(), o.preprocessed = pb.get();
        o.periodic = per.data(), o.periodic_rows = 4;
        o.public_values = pub.data(), o.alpha = alpha.data();
        return o;
    };
    gp_quotient_options o = opts();
    ASSERT_GP_OK(gp_quotient_evaluate(ctx(), prog.get(), &o, out.get()));
    auto refused = [&](gp_quotient_options bad, gp_buffer *dst, std::initializer_list<gp_status> codes, const char *what) {
        SCOPED_TRACE(what);
        const gp_status st = gp_quotient_evaluate(ctx(), prog.get(), &bad, dst);
        EXPECT_NE(st, GP_OK);
        EXPECT_TRUE(std::find(codes.begin(), codes.end(), st) != codes.end()) << gpt_status_str(st) << ": " << gp_last_error();
        EXPECT_STRNE(gp_last_error(), "");
    };
    o = opts(), o.main = nullptr;
    refused(o, out.get(), {GP_ERR_NULL_POINTER}, "no main");
    o = opts(), o.main = wrong_w.get();
    refused(o, out.get(), {GP_ERR_SHAPE_MISMATCH}, "main of another width");
    o = opts(), o.main = wrong_f.get();
    refused(o, out.get(), {GP_ERR_FIELD_MISMATCH}, "main of another field");
    o = opts(), o.main = ext_b.get();
    refused(o, out.get(), {GP_ERR_SHAPE_MISMATCH}, "main of extension columns");
    o = opts(), o.log_quotient_rows = 6;
    refused(o, out.get(), {GP_ERR_SHAPE_MISMATCH}, "fewer rows than the domain");
    o = opts(), o.log_trace_rows = 5;
    refused(o, out.get(), {GP_ERR_INVALID_ARGUMENT}, "trace larger than the quotient domain");
    o = opts(), o.log_quotient_rows = 40;
    refused(o, out.get(), {GP_ERR_TWO_ADICITY}, "past the two-adicity");
    o = opts(), o.shift = 1;
    refused(o, out.get(), {GP_ERR_INVALID_ARGUMENT}, "shift 1: the domain meets H");
    o = opts(), o.shift = FR.p;
    refused(o, out.get(), {GP_ERR_INVALID_ARGUMENT, GP_ERR_NON_CANONICAL}, "shift not canonical");
    o = opts(), o.order = (gp_order)7;
    refused(o, out.get(), {GP_ERR_INVALID_ARGUMENT}, "unknown order");
    o = opts(), o.periodic_rows = 3;
    refused(o, out.get(), {GP_ERR_INVALID_ARGUMENT}, "periodic rows not a power of two");
    o = opts(), o.periodic_rows = 32;
    refused(o, out.get(), {GP_ERR_INVALID_ARGUMENT}, "periodic rows past Q");
    o = opts(), o.periodic = nullptr;
    refused(o, out.get(), {GP_ERR_NULL_POINTER}, "no periodic table");
    o = opts(), o.public_values = nullptr;
    refused(o, out.get(), {GP_ERR_NULL_POINTER}, "no public values");
    o = opts(), o.alpha = nullptr;
    refused(o, out.get(), {GP_ERR_NULL_POINTER}, "no alpha");
    std::vector<uint64_t> bad_alpha = {FR.p, 1};
    o = opts(), o.alpha = bad_alpha.data();
    refused(o, out.get(), {GP_ERR_NON_CANONICAL}, "alpha not canonical");
    std::vector<uint64_t> bad_pub(p.pub_n, FR.p + 3);
    o = opts(), o.public_values = bad_pub.data();
    refused(o, out.get(), {GP_ERR_NON_CANONICAL}, "public value not canonical");
    o = opts();
    refused(o, short_out.get(), {GP_ERR_SHAPE_MISMATCH}, "output of the wrong height");
    refused(o, nullptr, {GP_ERR_NULL_POINTER}, "no output");
    o = opts(), o.struct_size = 0;
    refused(o, out.get(), {GP_ERR_INVALID_ARGUMENT}, "struct_size 0");
    // A destroyed program is refused, not read; destroying twice is a no-op.
    gp_constraint_program *dead = prog.release();
    gp_constraint_program_destroy(dead);
    gp_constraint_program_destroy(dead);
    o = opts();
    EXPECT_EQ(gp_quotient_evaluate(ctx(), dead, &o, out.get()), GP_ERR_INVALID_ARGUMENT);
    EXPECT_EQ(gp_quotient_evaluate(ctx(), nullptr, &o, out.get()), GP_ERR_NULL_POINTER);
}

INSTANTIATE_TEST_SUITE_P(Backends, QuotientTest, ::testing::Values(GP_BACKEND_CPU, GP_BACKEND_CUDA),
                         [](const ::testing::TestParamInfo<gp_backend> &info) {
                             return std::string(backend_name(info.param));
                         });

// Malformed programs: a status naming what is wrong, never a crash.
TEST(ConstraintProgram, MalformedProgramsAreRefused) {
    auto base = [] {
        Prog p;
        p.field = GP_FIELD_BABYBEAR;
        p.ext = 4;
        p.main_w = 2, p.prep_w = 1, p.periodic_w = 1, p.pub_n = 1, p.chal_n = 1;
        p.constants = {5};
        p.nodes = {{GP_CP_MAIN, 0, 0}, {GP_CP_MAIN, 1, 1}, {GP_CP_MUL, 0, 1}, {GP_CP_CONST, 0, 0}, {GP_CP_SUB, 2, 3}};
        p.constraints = {4, 2};
        return p;
    };
    ProgPtr ok;
    {
        Prog p = base();
        ASSERT_GP_OK(p.create(&ok));
    }
    struct Case {
        const char *what;
        std::function<void(Prog &)> edit;
        gp_status want;
    };
    const std::vector<Case> cases = {
        {"unknown op", [](Prog &p) { p.nodes[2].op = 42; }, GP_ERR_INVALID_ARGUMENT},
        {"op 0", [](Prog &p) { p.nodes[0].op = 0; }, GP_ERR_INVALID_ARGUMENT},
        {"forward reference (a cycle)", [](Prog &p) { p.nodes[2].b = 4; }, GP_ERR_INVALID_ARGUMENT},
        {"self reference", [](Prog &p) { p.nodes[2].a = 2; }, GP_ERR_INVALID_ARGUMENT},
        {"operand past the nodes", [](Prog &p) { p.nodes[4].a = 0xffffffffu; }, GP_ERR_INVALID_ARGUMENT},
        {"main column past the width", [](Prog &p) { p.nodes[1].a = 2; }, GP_ERR_INVALID_ARGUMENT},
        {"row offset 2", [](Prog &p) { p.nodes[1].b = 2; }, GP_ERR_INVALID_ARGUMENT},
        {"preprocessed past the width", [](Prog &p) { p.nodes[0] = {GP_CP_PREPROCESSED, 1, 0}; }, GP_ERR_INVALID_ARGUMENT},
        {"periodic past the width", [](Prog &p) { p.nodes[0] = {GP_CP_PERIODIC, 1, 0}; }, GP_ERR_INVALID_ARGUMENT},
        {"public past the count", [](Prog &p) { p.nodes[0] = {GP_CP_PUBLIC, 1, 0}; }, GP_ERR_INVALID_ARGUMENT},
        {"constant past the count", [](Prog &p) { p.nodes[3].a = 1; }, GP_ERR_INVALID_ARGUMENT},
        {"challenge past the count", [](Prog &p) { p.nodes[0] = {GP_CP_CHALLENGE, 1, 0}; }, GP_ERR_INVALID_ARGUMENT},
        {"constraint past the nodes", [](Prog &p) { p.constraints.push_back(5); }, GP_ERR_INVALID_ARGUMENT},
        {"constant not canonical", [](Prog &p) { p.constants[0] = 0x78000001u; }, GP_ERR_NON_CANONICAL},
        {"extension degree 3 of BabyBear", [](Prog &p) { p.ext = 3; }, GP_ERR_UNSUPPORTED},
        {"unknown field", [](Prog &p) { p.field = 99; }, GP_ERR_INVALID_ARGUMENT},
        {"main width past its bound", [](Prog &p) { p.main_w = GP_CP_MAX_WIDTH + 1; }, GP_ERR_INVALID_ARGUMENT},
        {"challenges past their bound", [](Prog &p) { p.chal_n = GP_CP_MAX_SMALL + 1; }, GP_ERR_INVALID_ARGUMENT},
    };
    for (const Case &c : cases) {
        SCOPED_TRACE(c.what);
        Prog p = base();
        c.edit(p);
        ProgPtr prog;
        const gp_status st = p.create(&prog);
        EXPECT_EQ(st, c.want) << gp_last_error();
        EXPECT_EQ(prog.get(), nullptr);
        EXPECT_STRNE(gp_last_error(), "");
    }
    // Counts past their bounds are refused before the arrays are read.
    Prog p = base();
    gp_constraint_program_desc d = p.desc();
    gp_constraint_program *raw = nullptr;
    d.node_count = GP_CP_MAX_NODES + 1;
    EXPECT_EQ(gp_constraint_program_create(&d, &raw), GP_ERR_INVALID_ARGUMENT);
    d = p.desc(), d.nodes = nullptr;
    EXPECT_EQ(gp_constraint_program_create(&d, &raw), GP_ERR_NULL_POINTER);
    d = p.desc(), d.constraints = nullptr;
    EXPECT_EQ(gp_constraint_program_create(&d, &raw), GP_ERR_NULL_POINTER);
    d = p.desc(), d.struct_size = 2;
    EXPECT_EQ(gp_constraint_program_create(&d, &raw), GP_ERR_INVALID_ARGUMENT);
    EXPECT_EQ(gp_constraint_program_create(nullptr, &raw), GP_ERR_NULL_POINTER);
    EXPECT_EQ(gp_constraint_program_create(&d, nullptr), GP_ERR_NULL_POINTER);
    EXPECT_EQ(raw, nullptr);
}

// Common subexpressions are computed once and slots are reused.
TEST(ConstraintProgram, CommonSubexpressionsAndSlots) {
    Prog p;
    p.field = GP_FIELD_KOALABEAR;
    p.ext = 4;
    p.main_w = 3;
    p.nodes = {{GP_CP_MAIN, 0, 0}, {GP_CP_MAIN, 1, 0}, {GP_CP_ADD, 0, 1}, {GP_CP_ADD, 1, 0},
               {GP_CP_MAIN, 0, 0}, {GP_CP_MUL, 2, 3}, {GP_CP_MUL, 3, 2}, {GP_CP_MAIN, 2, 1}};
    p.constraints = {5, 6};  // node 7 is unused
    ProgPtr prog;
    ASSERT_GP_OK(p.create(&prog));
    gp_constraint_program_info info;
    info.struct_size = sizeof(info);
    ASSERT_GP_OK(gp_constraint_program_get_info(prog.get(), &info));
    EXPECT_EQ(info.nodes, 4u);         // m0, m1, m0 + m1, (m0 + m1)^2
    EXPECT_EQ(info.instructions, 4u);  // 2 operations, 2 folds (inputs are read where used)
    EXPECT_EQ(info.max_degree, 2u);
    EXPECT_EQ(info.constraints, 2u);
    // A long chain of products needs one slot, not one per node.
    Prog c;
    c.field = GP_FIELD_GOLDILOCKS;
    c.main_w = 1;
    c.nodes = {{GP_CP_MAIN, 0, 0}};
    for (uint32_t k = 0; k < 1000; ++k) c.nodes.push_back({GP_CP_MUL, k, 0});
    c.constraints = {1000};
    ASSERT_GP_OK(c.create(&prog));
    ASSERT_GP_OK(gp_constraint_program_get_info(prog.get(), &info));
    EXPECT_EQ(info.base_slots, 1u);
    EXPECT_EQ(info.max_degree, 1001u);
    EXPECT_EQ(gp_constraint_program_get_info(nullptr, &info), GP_ERR_NULL_POINTER);
}

}  // namespace
