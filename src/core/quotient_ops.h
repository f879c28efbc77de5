// SPDX-License-Identifier: MIT OR Apache-2.0
// A compiled constraint program (core/quotient.h) evaluated on one row of
// the quotient domain, written once for host and device.
//
// The program is a straight line of instructions over value slots (inputs
// are read where they are used and hold none): base
// slots hold base-field values in the field's multiplication form (Tw:
// Montgomery for the 31-bit fields, plain for Goldilocks), so that a
// product is one reduction; extension slots hold canonical coefficients.
// Constraints are folded as they are computed: the accumulator adds
// weight_j * c_j (weight_j = alpha^(C-1-j)), base constraints in the Tw
// form, extension ones canonically, and the row's quotient is the sum
// divided by Z_H(x).
#pragma once

#include <cstdint>

#include "math/ext.h"
#include "math/field.h"

namespace gp {

enum QOp : uint32_t {
    kQPeriodic = 2,  // dst <- periodic column a
    kQSelector = 4,  // dst <- selector a (0 first row, 1 last row, 2 transition)
    kQAdd = 5,       // base: dst <- a + b (base operands: QOperand)
    kQSub = 6,
    kQMul = 7,
    kQNeg = 8,       // dst <- -a
    kQChallenge = 9, // ext dst <- challenge a
    kQEAdd = 10,     // ext dst <- a + b; kQExtA / kQExtB say which operands are ext slots
    kQESub = 11,
    kQEMul = 12,
    kQENeg = 13,     // ext dst <- -a (a ext)
    kQFoldB = 14,    // acc += weight b * base operand a
    kQFoldE = 15,    // acc += weight b * ext slot a
    kQOpMask = 0xff,
    kQExtA = 1u << 8,
    kQExtB = 1u << 9,
};

struct QIns {
    uint32_t op, dst, a, b;
};

// A base operand (a, b of the operations and folds): a slot, or an input
// read where it is used (main and preprocessed columns at this or the next
// row, uniform values), so that inputs hold no slot: kind in the top three
// bits, index below.
enum QOperand : uint32_t {
    kQSlot = 0,
    kQMainCur = 1,
    kQMainNext = 2,
    kQPrepCur = 3,
    kQPrepNext = 4,
    kQUni = 5,
    kQKindShift = 29,
    kQIndexMask = (1u << 29) - 1,
};
GP_HD constexpr uint32_t q_operand(uint32_t kind, uint32_t index) { return kind << kQKindShift | index; }

// Where one row's inputs are (device or host memory): base columns of
// `rows` elements each, `col` at data + col * rows.
template <class F, int D>
struct QInputs {
    using T = typename F::T;
    using Tw = typename F::Tw;
    const T *main = nullptr;
    uint64_t main_rows = 0;
    const T *prep = nullptr;
    uint64_t prep_rows = 0;
    const T *periodic = nullptr;  // row-major: periodic_rows x periodic_width
    uint64_t periodic_mask = 0;   // periodic_rows - 1
    uint32_t periodic_width = 0;
    const Tw *uniform = nullptr;            // constants then publics, Tw form
    const Ext<F, D> *challenges = nullptr;  // canonical
    const Tw *weights_tw = nullptr;         // C x D: alpha^(C-1-j) coefficients, Tw form
    const Ext<F, D> *weights = nullptr;     // C: the same, canonical
    uint32_t log_q = 0, log_qn = 0;         // log Q, log (Q / N)
    bool bitrev = true;
    uint32_t log_mq_main = 0, log_mq_prep = 0;  // log (M / Q) of each input (natural order)
    T shift = 0;       // the quotient coset's
    T omega_q = 0;     // w_Q
    T shift_n = 0;     // shift^N
    T omega_qn = 0;    // w_{Q/N} = w_Q^N
    T omega_n_inv = 0; // w_N^-1
};

// Row of an input of 2^(log_q + log_mq) rows holding quotient-domain row i.
GP_HD uint64_t q_input_row(uint64_t i, uint32_t log_q, uint32_t log_mq, bool bitrev) {
    return bitrev ? bit_reverse(i, log_q) : i << log_mq;
}

// The row's selectors and 1 / Z_H(x), computed once a row.
template <class F>
struct QRowPoint {
    using T = typename F::T;
    T x, zh, first, last, trans, inv_zh;
};

template <class F, int D>
GP_HD QRowPoint<F> q_row_point(const QInputs<F, D> &in, uint64_t i, bool need_first, bool need_last) {
    using T = typename F::T;
    QRowPoint<F> p;
    p.x = F::mul(in.shift, fpow<F>(in.omega_q, i));
    // x^N = shift^N w_{Q/N}^(i mod Q/N); Z_H(x) = x^N - 1, never 0 (the
    // shift was checked).
    const uint64_t qn_mask = (1ull << in.log_qn) - 1;
    p.zh = F::sub(F::mul(in.shift_n, fpow<F>(in.omega_qn, i & qn_mask)), (T)1);
    p.inv_zh = finv<F>(p.zh);
    p.trans = F::sub(p.x, in.omega_n_inv);
    p.first = need_first ? F::mul(p.zh, finv<F>(F::sub(p.x, (T)1))) : (T)0;
    p.last = need_last ? F::mul(p.zh, finv<F>(p.trans)) : (T)0;
    return p;
}

// Evaluates `n` instructions for quotient-domain row i and returns q(x_i)
// (canonical). `S` stores slots: S::b(s) is a base slot (Tw), S::e(s, k)
// coefficient k of an extension slot (canonical).
template <class F, int D, class S>
GP_HD Ext<F, D> q_eval_row(const QIns *prog, uint64_t n, const QInputs<F, D> &in, uint64_t i,
                           const QRowPoint<F> &pt, S &slots) {
    using T = typename F::T;
    using Tw = typename F::Tw;
    using X = Ext<F, D>;
    const uint64_t q_mask = (1ull << in.log_q) - 1;
    const uint64_t i_next = (i + (1ull << in.log_qn)) & q_mask;
    const uint64_t main_row[2] = {q_input_row(i, in.log_q, in.log_mq_main, in.bitrev),
                                  q_input_row(i_next, in.log_q, in.log_mq_main, in.bitrev)};
    const uint64_t prep_row[2] = {q_input_row(i, in.log_q, in.log_mq_prep, in.bitrev),
                                  q_input_row(i_next, in.log_q, in.log_mq_prep, in.bitrev)};
    const T *periodic_row = in.periodic ? in.periodic + (i & in.periodic_mask) * in.periodic_width : nullptr;
    Tw acc_b[D];
    for (int k = 0; k < D; ++k) acc_b[k] = 0;
    X acc_e = X::zero();
    // A base operand's value (Tw form).
    auto fetch = [&](uint32_t x) -> Tw {
        const uint32_t i = x & kQIndexMask;
        switch (x >> kQKindShift) {
            case kQSlot: return slots.b(i);
            case kQMainCur: return F::to_tw(in.main[i * in.main_rows + main_row[0]]);
            case kQMainNext: return F::to_tw(in.main[i * in.main_rows + main_row[1]]);
            case kQPrepCur: return F::to_tw(in.prep[i * in.prep_rows + prep_row[0]]);
            case kQPrepNext: return F::to_tw(in.prep[i * in.prep_rows + prep_row[1]]);
            default: return in.uniform[i];
        }
    };
    auto ext_of = [&](uint32_t s, bool is_ext) {
        if (is_ext) {
            X v;
            for (int k = 0; k < D; ++k) v.c[k] = slots.e(s, k);
            return v;
        }
        return X::from_base(F::from_tw(fetch(s)));
    };
    for (uint64_t k = 0; k < n; ++k) {
        const QIns ins = prog[k];
        switch (ins.op & kQOpMask) {
            case kQPeriodic: slots.b(ins.dst) = F::to_tw(periodic_row[ins.a]); break;
            case kQSelector:
                slots.b(ins.dst) = F::to_tw(ins.a == 0 ? pt.first : ins.a == 1 ? pt.last : pt.trans);
                break;
            case kQAdd: slots.b(ins.dst) = F::add(fetch(ins.a), fetch(ins.b)); break;
            case kQSub: slots.b(ins.dst) = F::sub(fetch(ins.a), fetch(ins.b)); break;
            case kQMul: slots.b(ins.dst) = F::tw_mul(fetch(ins.a), fetch(ins.b)); break;
            case kQNeg: slots.b(ins.dst) = F::neg(fetch(ins.a)); break;
            case kQChallenge:
                for (int c = 0; c < D; ++c) slots.e(ins.dst, c) = in.challenges[ins.a].c[c];
                break;
            case kQEAdd:
            case kQESub:
            case kQEMul:
            case kQENeg: {
                const X a = ext_of(ins.a, ins.op & kQExtA);
                X r;
                switch (ins.op & kQOpMask) {
                    case kQEAdd: r = a + ext_of(ins.b, ins.op & kQExtB); break;
                    case kQESub: r = a - ext_of(ins.b, ins.op & kQExtB); break;
                    case kQEMul: r = a * ext_of(ins.b, ins.op & kQExtB); break;
                    default: r = X::zero() - a; break;
                }
                for (int c = 0; c < D; ++c) slots.e(ins.dst, c) = r.c[c];
                break;
            }
            case kQFoldB: {
                const Tw v = fetch(ins.a);
                const Tw *w = in.weights_tw + (uint64_t)ins.b * D;
                for (int c = 0; c < D; ++c) acc_b[c] = F::add(acc_b[c], F::tw_mul(w[c], v));
                break;
            }
            case kQFoldE: acc_e = acc_e + in.weights[ins.b] * ext_of(ins.a, true); break;
            default: break;  // compiled programs hold no other op
        }
    }
    X acc = acc_e;
    for (int c = 0; c < D; ++c) acc.c[c] = F::add(acc.c[c], F::from_tw(acc_b[c]));
    return acc.scale(pt.inv_zh);
}

}  // namespace gp
