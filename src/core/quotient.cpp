// SPDX-License-Identifier: MIT OR Apache-2.0
// Constraint programs: validation, compilation and the quotient evaluation
// against the Backend interface (see quotient.h).
#include "core/quotient.h"

#include <algorithm>
#include <unordered_map>

#include "core/checks.h"
#include "math/ext.h"

namespace gp {
namespace {

const char *op_name(uint32_t op) {
    switch (op) {
        case GP_CP_MAIN: return "GP_CP_MAIN";
        case GP_CP_PREPROCESSED: return "GP_CP_PREPROCESSED";
        case GP_CP_PERIODIC: return "GP_CP_PERIODIC";
        case GP_CP_PUBLIC: return "GP_CP_PUBLIC";
        case GP_CP_CONST: return "GP_CP_CONST";
        case GP_CP_CHALLENGE: return "GP_CP_CHALLENGE";
        case GP_CP_IS_FIRST_ROW: return "GP_CP_IS_FIRST_ROW";
        case GP_CP_IS_LAST_ROW: return "GP_CP_IS_LAST_ROW";
        case GP_CP_IS_TRANSITION: return "GP_CP_IS_TRANSITION";
        case GP_CP_ADD: return "GP_CP_ADD";
        case GP_CP_SUB: return "GP_CP_SUB";
        case GP_CP_MUL: return "GP_CP_MUL";
        case GP_CP_NEG: return "GP_CP_NEG";
        default: return nullptr;
    }
}

bool binary(uint32_t op) { return op == GP_CP_ADD || op == GP_CP_SUB || op == GP_CP_MUL; }

void check_count(uint64_t v, uint64_t bound, const char *what) {
    if (v > bound) fail(GP_ERR_INVALID_ARGUMENT, what, " = ", v, " exceeds its bound ", bound);
}

// One node as the checks see it: its leaf index against the declared width.
void check_node(const gp_constraint_program_desc &d, uint32_t i) {
    const gp_cp_node &n = d.nodes[i];
    const char *name = op_name(n.op);
    if (!name) fail(GP_ERR_INVALID_ARGUMENT, "desc->nodes[", i, "].op = ", n.op, " is not a gp_cp_op");
    auto within = [&](uint32_t width, const char *what) {
        if (n.a >= width)
            fail(GP_ERR_INVALID_ARGUMENT, "desc->nodes[", i, "] (", name, ") reads ", what, " ", n.a, " of ", width,
                 " declared");
    };
    auto offset = [&] {
        if (n.b > 1)
            fail(GP_ERR_INVALID_ARGUMENT, "desc->nodes[", i, "] (", name, ") has row offset b = ", n.b,
                 " (0 this row, 1 the next)");
    };
    switch (n.op) {
        case GP_CP_MAIN: within(d.main_width, "main column"), offset(); break;
        case GP_CP_PREPROCESSED: within(d.preprocessed_width, "preprocessed column"), offset(); break;
        case GP_CP_PERIODIC: within(d.periodic_width, "periodic column"); break;
        case GP_CP_PUBLIC: within(d.public_count, "public value"); break;
        case GP_CP_CONST: within(d.constant_count, "constant"); break;
        case GP_CP_CHALLENGE: within(d.challenge_count, "challenge"); break;
        case GP_CP_ADD:
        case GP_CP_SUB:
        case GP_CP_MUL:
        case GP_CP_NEG: {
            const uint32_t ops[2] = {n.a, n.b};
            for (int k = 0; k < (n.op == GP_CP_NEG ? 1 : 2); ++k)
                if (ops[k] >= i)
                    fail(GP_ERR_INVALID_ARGUMENT, "desc->nodes[", i, "] (", name, ") operand ", k ? "b" : "a", " = ",
                         ops[k], " is not an earlier node (nodes are in topological order, so a program has no "
                                 "cycle)");
            break;
        }
        default: break;  // selectors take no operand
    }
}

struct Key {
    uint32_t op, a, b;
    bool operator==(const Key &o) const { return op == o.op && a == o.a && b == o.b; }
};
struct KeyHash {
    size_t operator()(const Key &k) const {
        uint64_t h = k.op * 0x9e3779b97f4a7c15ull;
        h ^= (k.a + 0x632be59bd9b4e019ull) * 0xbf58476d1ce4e5b9ull;
        h ^= (k.b + 0x8cb92ba72f3d8dd7ull) * 0x94d049bb133111ebull;
        return (size_t)(h ^ (h >> 31));
    }
};

// A value slot allocator of one kind (base or extension).
struct SlotPool {
    std::vector<uint32_t> free;
    uint32_t count = 0;
    uint32_t take() {
        if (free.empty()) return count++;
        const uint32_t s = free.back();
        free.pop_back();
        return s;
    }
    void give(uint32_t s) { free.push_back(s); }
};

}  // namespace

std::shared_ptr<const CompiledProgram> compile_program(const gp_constraint_program_desc &d) {
    auto p = std::make_shared<CompiledProgram>();
    p->field = &field_desc(d.field, "desc->field");
    if (!quotient_ext_ok(p->field->id, d.ext_degree))
        fail(GP_ERR_UNSUPPORTED, "desc->ext_degree = ", d.ext_degree, " is not an extension degree of ", p->field->name,
             " that constraint programs take (Goldilocks 1-3, BabyBear 1, 4, 5, 8, KoalaBear 1, 4, 8)");
    p->ext = d.ext_degree;
    check_count(d.main_width, GP_CP_MAX_WIDTH, "desc->main_width");
    check_count(d.preprocessed_width, GP_CP_MAX_WIDTH, "desc->preprocessed_width");
    check_count(d.public_count, GP_CP_MAX_WIDTH, "desc->public_count");
    check_count(d.periodic_width, GP_CP_MAX_SMALL, "desc->periodic_width");
    check_count(d.challenge_count, GP_CP_MAX_SMALL, "desc->challenge_count");
    check_count(d.node_count, GP_CP_MAX_NODES, "desc->node_count");
    check_count(d.constant_count, GP_CP_MAX_NODES, "desc->constant_count");
    check_count(d.constraint_count, GP_CP_MAX_NODES, "desc->constraint_count");
    if (d.node_count) GP_REQUIRE_PTR(d.nodes);
    if (d.constraint_count) GP_REQUIRE_PTR(d.constraints);
    if (d.constant_count) {
        GP_REQUIRE_PTR(d.constants);
        check_canonical(*p->field, d.constants, 0, d.constant_count, "desc->constants");
        p->constants = words_in(*p->field, d.constants, d.constant_count);
    }
    p->main_width = d.main_width;
    p->prep_width = d.preprocessed_width;
    p->periodic_width = d.periodic_width;
    p->public_count = d.public_count;
    p->challenge_count = d.challenge_count;
    p->constraints = d.constraint_count;
    for (uint32_t i = 0; i < d.node_count; ++i) check_node(d, i);
    p->desc_nodes.assign(d.nodes, d.nodes + d.node_count);
    p->desc_constraints.assign(d.constraints, d.constraints + d.constraint_count);
    for (uint32_t j = 0; j < d.constraint_count; ++j)
        if (d.constraints[j] >= d.node_count)
            fail(GP_ERR_INVALID_ARGUMENT, "desc->constraints[", j, "] = ", d.constraints[j], " names no node (",
                 d.node_count, " nodes)");

    // What the constraints reach.
    std::vector<uint8_t> live(d.node_count, 0);
    for (uint32_t j = 0; j < d.constraint_count; ++j) live[d.constraints[j]] = 1;
    for (uint32_t i = d.node_count; i-- > 0;) {
        if (!live[i]) continue;
        const gp_cp_node &n = d.nodes[i];
        if (binary(n.op)) live[n.a] = live[n.b] = 1;
        else if (n.op == GP_CP_NEG) live[n.a] = 1;
    }

    // Distinct nodes, in topological order: equal op and operands (sums and
    // products in either order) are one node.
    struct Unique {
        uint32_t op, a, b;
        bool ext;
        uint64_t degree;
    };
    std::vector<Unique> u;
    std::vector<uint32_t> canon(d.node_count, UINT32_MAX);
    std::unordered_map<Key, uint32_t, KeyHash> seen;
    for (uint32_t i = 0; i < d.node_count; ++i) {
        if (!live[i]) continue;
        const gp_cp_node &n = d.nodes[i];
        Key k{n.op, 0, 0};
        bool ext = false;
        uint64_t deg = 0;
        switch (n.op) {
            case GP_CP_MAIN:
            case GP_CP_PREPROCESSED: k.a = n.a, k.b = n.b, deg = 1; break;
            case GP_CP_PERIODIC: k.a = n.a, deg = 1; break;
            case GP_CP_PUBLIC:
            case GP_CP_CONST: k.a = n.a; break;
            case GP_CP_CHALLENGE: k.a = n.a, ext = true; break;
            case GP_CP_IS_FIRST_ROW:
            case GP_CP_IS_LAST_ROW: deg = 1; break;
            case GP_CP_IS_TRANSITION: break;
            case GP_CP_NEG:
                k.a = canon[n.a];
                ext = u[k.a].ext, deg = u[k.a].degree;
                break;
            default:  // binary
                k.a = canon[n.a], k.b = canon[n.b];
                if ((n.op == GP_CP_ADD || n.op == GP_CP_MUL) && k.a > k.b) std::swap(k.a, k.b);
                ext = u[k.a].ext || u[k.b].ext;
                deg = n.op == GP_CP_MUL ? u[k.a].degree + u[k.b].degree : std::max(u[k.a].degree, u[k.b].degree);
                break;
        }
        auto it = seen.find(k);
        if (it != seen.end()) {
            canon[i] = it->second;
            continue;
        }
        canon[i] = (uint32_t)u.size();
        seen.emplace(k, canon[i]);
        u.push_back({k.op, k.a, k.b, ext, deg});
    }
    p->nodes = u.size();

    // Folds per distinct node, in constraint order.
    std::vector<std::vector<uint32_t>> folds(u.size());
    for (uint32_t j = 0; j < d.constraint_count; ++j) {
        const uint32_t c = canon[d.constraints[j]];
        folds[c].push_back(j);
        p->max_degree = std::max(p->max_degree, u[c].degree);
    }
    // Schedule positions: node v's instruction, then its folds; the last
    // position that reads each node.
    std::vector<uint64_t> at(u.size()), last(u.size(), 0);
    uint64_t pos = 0;
    for (uint32_t v = 0; v < u.size(); ++v) {
        at[v] = pos++;
        if (binary(u[v].op)) last[u[v].a] = last[u[v].b] = at[v];
        else if (u[v].op == GP_CP_NEG) last[u[v].a] = at[v];
        pos += folds[v].size();
        if (!folds[v].empty()) last[v] = pos - 1;
    }
    p->code.reserve(pos);
    SlotPool base, ext;
    // Inputs (trace columns, constants, publics) take no slot: their
    // operand reads them where used.
    auto input = [&](uint32_t v) {
        const uint32_t op = u[v].op;
        return op == GP_CP_MAIN || op == GP_CP_PREPROCESSED || op == GP_CP_CONST || op == GP_CP_PUBLIC;
    };
    std::vector<uint32_t> slot(u.size());
    auto release = [&](uint32_t v) {
        if (input(v)) return;
        if (u[v].ext) ext.give(slot[v]);
        else base.give(slot[v]);
    };
    for (uint32_t v = 0; v < u.size(); ++v) {
        const Unique &n = u[v];
        if (input(v)) {
            switch (n.op) {
                case GP_CP_MAIN: slot[v] = q_operand(n.b ? kQMainNext : kQMainCur, n.a); break;
                case GP_CP_PREPROCESSED: slot[v] = q_operand(n.b ? kQPrepNext : kQPrepCur, n.a); break;
                case GP_CP_CONST: slot[v] = q_operand(kQUni, n.a); break;
                default: slot[v] = q_operand(kQUni, (uint32_t)p->constants.size() + n.a); break;
            }
            for (uint32_t j : folds[v]) p->code.push_back(QIns{kQFoldB, 0, slot[v], j});
            continue;
        }
        QIns ins{0, 0, n.a, n.b};
        // Operands whose last reader this is free their slots first (an
        // instruction reads its operands before it writes).
        if (binary(n.op) || n.op == GP_CP_NEG) {
            if (last[n.a] == at[v]) release(n.a);
            if (binary(n.op) && n.b != n.a && last[n.b] == at[v]) release(n.b);
        }
        switch (n.op) {
            case GP_CP_PERIODIC: ins.op = kQPeriodic; break;
            case GP_CP_CHALLENGE: ins.op = kQChallenge; break;
            case GP_CP_IS_FIRST_ROW: ins.op = kQSelector, ins.a = 0, p->uses_first = true; break;
            case GP_CP_IS_LAST_ROW: ins.op = kQSelector, ins.a = 1, p->uses_last = true; break;
            case GP_CP_IS_TRANSITION: ins.op = kQSelector, ins.a = 2; break;
            default: {
                const uint32_t base_op = n.op == GP_CP_ADD ? kQAdd : n.op == GP_CP_SUB ? kQSub : n.op == GP_CP_MUL ? kQMul : kQNeg;
                ins.a = slot[n.a];
                ins.b = binary(n.op) ? slot[n.b] : 0;
                if (n.ext) {
                    ins.op = base_op - kQAdd + kQEAdd;
                    if (u[n.a].ext) ins.op |= kQExtA;
                    if (binary(n.op) && u[n.b].ext) ins.op |= kQExtB;
                } else {
                    ins.op = base_op;
                }
                break;
            }
        }
        slot[v] = n.ext ? ext.take() : base.take();
        ins.dst = slot[v];
        p->code.push_back(ins);
        for (uint32_t j : folds[v]) p->code.push_back(QIns{n.ext ? (uint32_t)kQFoldE : (uint32_t)kQFoldB, 0, slot[v], j});
        if (!folds[v].empty() && last[v] == at[v] + folds[v].size()) release(v);
    }
    p->base_slots = base.count;
    p->ext_slots = ext.count;
    return p;
}

QuotientArgs quotient_args(const CompiledProgram &p, const gp_quotient_options &o, const Buffer *main,
                           const Buffer *prep, Buffer &out) {
    const FieldDesc &f = *p.field;
    QuotientArgs a;
    a.prog = &p;
    if (o.log_quotient_rows > f.two_adicity)
        fail(GP_ERR_TWO_ADICITY, "options->log_quotient_rows = ", o.log_quotient_rows, " exceeds ", f.name,
             "'s two-adicity ", f.two_adicity);
    if (o.log_trace_rows > o.log_quotient_rows)
        fail(GP_ERR_INVALID_ARGUMENT, "options->log_trace_rows = ", o.log_trace_rows,
             " exceeds options->log_quotient_rows = ", o.log_quotient_rows);
    a.log_n = o.log_trace_rows;
    a.log_q = o.log_quotient_rows;
    const uint64_t q = 1ull << a.log_q;
    check_order(o.order, "options->order");
    a.bitrev = raw(o.order) == GP_ORDER_BIT_REVERSED;
    a.shift = o.shift ? o.shift : f.generator;
    check_shift(f, a.shift, "options->shift");
    dispatch_field(f.id, [&](auto F) {
        using Fd = decltype(F);
        using T = typename Fd::T;
        if (fpow<Fd>((T)a.shift, q) == (T)1)
            fail(GP_ERR_INVALID_ARGUMENT, "options->shift = ", a.shift, ": shift^", q,
                 " = 1, so the quotient domain meets the trace domain (Z_H vanishes on it)");
    });
    auto check_input = [&](const Buffer *b, uint32_t width, const char *arg) {
        if (!width) return (const Buffer *)nullptr;
        if (!b) fail(GP_ERR_NULL_POINTER, "argument `", arg, "` is NULL but the program reads ", width, " columns");
        if (b->field != &f)
            fail(GP_ERR_FIELD_MISMATCH, arg, " holds ", b->field->name, " elements; the program is over ", f.name);
        if (b->ext != 1) fail(GP_ERR_SHAPE_MISMATCH, arg, " has extension degree ", b->ext, "; base columns only");
        if (b->cols != width)
            fail(GP_ERR_SHAPE_MISMATCH, arg, " has ", b->cols, " columns; the program declares ", width);
        if (!is_pow2(b->rows) || b->rows < q)
            fail(GP_ERR_SHAPE_MISMATCH, arg, " has ", b->rows, " rows; a power of two >= Q = ", q, " is needed");
        check_log_size(f, b->rows, arg);
        if (!b->shards.empty())
            fail(GP_ERR_UNSUPPORTED, arg, " is spread over several devices; quotients take one device's buffers");
        return b;
    };
    a.main = check_input(main, p.main_width, "options->main");
    a.prep = check_input(prep, p.prep_width, "options->preprocessed");
    if (p.periodic_width) {
        GP_REQUIRE_PTR(o.periodic);
        if (!is_pow2(o.periodic_rows) || o.periodic_rows > q)
            fail(GP_ERR_INVALID_ARGUMENT, "options->periodic_rows = ", o.periodic_rows,
                 " is not a power of two <= Q = ", q);
        const uint64_t n = checked_mul(o.periodic_rows, p.periodic_width, "periodic_rows * periodic_width");
        checked_mul(n, f.elem_size, "periodic table bytes");
        check_canonical(f, o.periodic, 0, n, "options->periodic");
        a.periodic = words_in(f, o.periodic, n);
        a.periodic_rows = o.periodic_rows;
    }
    a.uniform = p.constants;
    if (p.public_count) {
        GP_REQUIRE_PTR(o.public_values);
        check_canonical(f, o.public_values, 0, p.public_count, "options->public_values");
        const std::vector<uint64_t> pub = words_in(f, o.public_values, p.public_count);
        a.uniform.insert(a.uniform.end(), pub.begin(), pub.end());
    }
    if (p.challenge_count) {
        GP_REQUIRE_PTR(o.challenges);
        const uint64_t n = (uint64_t)p.challenge_count * p.ext;
        check_canonical(f, o.challenges, 0, n, "options->challenges");
        a.challenges = words_in(f, o.challenges, n);
    }
    GP_REQUIRE_PTR(o.alpha);
    check_canonical(f, o.alpha, 0, p.ext, "options->alpha");
    a.alpha = words_in(f, o.alpha, p.ext);
    const std::vector<uint64_t> &alpha = a.alpha;
    if (out.field != &f)
        fail(GP_ERR_FIELD_MISMATCH, "out holds ", out.field->name, " elements; the program is over ", f.name);
    // One column of the program's degree, or (the same memory) that many
    // base columns: the degrees buffers do not take (5, 8) come so.
    const bool one_col = out.ext == p.ext && out.cols == 1, base_cols = out.ext == 1 && out.cols == p.ext;
    if (!(one_col || base_cols) || out.rows != q)
        fail(GP_ERR_SHAPE_MISMATCH, "out is ", out.rows, " x ", out.cols, " of degree ", out.ext, "; the quotient is ",
             q, " x 1 of degree ", p.ext, " (or ", q, " x ", p.ext, " base columns)");
    if (!out.shards.empty())
        fail(GP_ERR_UNSUPPORTED, "out is spread over several devices; quotients take one device's buffers");
    a.out = &out;
    // Weights alpha^(C-1-j): the Horner fold of the constraints.
    quotient_ext_dispatch(f.id, p.ext, [&](auto F, auto Dc) {
        using Fd = decltype(F);
        constexpr int D = decltype(Dc)::value;
        Ext<Fd, D> al, w = Ext<Fd, D>::from_base(1);
        for (int k = 0; k < D; ++k) al.c[k] = (typename Fd::T)alpha[k];
        a.weights.assign(p.constraints * D, 0);
        for (uint64_t j = p.constraints; j-- > 0;) {
            for (int k = 0; k < D; ++k) a.weights[j * D + k] = w.c[k];
            w = w * al;
        }
    });
    return a;
}

void evaluate_quotient(Context *c, const CompiledProgram &p, const gp_quotient_options &o, const Buffer *main,
                       const Buffer *prep, Buffer &out) {
    const QuotientArgs a = quotient_args(p, o, main, prep, out);
    const uint64_t q = 1ull << a.log_q;
    c->monitor->poll("quotient", 0, q);
    c->backend->quotient(a);
    c->monitor->poll("quotient", q, q);
}

}  // namespace gp
