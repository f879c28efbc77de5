// SPDX-License-Identifier: MIT OR Apache-2.0
// FRI folding, written once for host and device.
//
// A layer of size n (extension elements of degree D, in natural or
// bit-reversed order) is stored in "matrix form" for its commitment: a
// matrix of n / a rows and a extension columns (a = arity) whose row g is the
// group of a sibling values that one fold combines, i.e. a Merkle leaf:
//   bit-reversed: group g = positions a*g .. a*g + a - 1 (Plonky3),
//   natural:      group g = positions g + k * n/a, k < a (winterfell).
// Base column (k * D + c) holds coefficient c of member k of every group, so
// the tree hashes a row as the a values flattened, lowest coefficient first.
// With one value per leaf (Triton VM's FRI) the layer is stored as matrix
// form of arity 1: D base columns of n values, position p at row p; the fold
// reads and writes every value through its storage slot (log_leaf = 0)
// instead of its group's row (log_leaf = log a).
//
// Member k of group g is the evaluation at x0 * zeta^sigma(k), with zeta a
// primitive a-th root of unity, sigma(k) = k (natural) or bitrev(k) (bit-
// reversed), and x0 = shift * omega^e, e = g (natural) or bitrev(g, log(n/a))
// (bit-reversed), omega the layer's 2^log n-th root. The fold is
//   f'(x0^a) = sum_j beta^j f_j(x0^a),  f_j = (1/a) x0^-j sum_k v_k zeta^(-j sigma(k)),
// the value at beta of the polynomial of degree < a through the group (Plonky3's
// fold_row / fold_matrix; for a = 2 it is (lo + hi)/2 + beta (lo - hi)/(2 x0)).
// Without halving (Lambda VM's variant) the 1/a is left out.
#pragma once

#include <cstdint>
#include <type_traits>

#include "core/core.h"
#include "math/ext.h"
#include "math/field.h"

namespace gp {

// Position of member k of group g in a layer of 2^log_n values.
GP_HD uint64_t fri_member(uint32_t log_n, uint32_t log_a, bool bitrev, uint64_t g, uint32_t k) {
    return bitrev ? (g << log_a) + k : g + ((uint64_t)k << (log_n - log_a));
}

// Row and member of position p in a layer of 2^log_n values.
GP_HD void fri_slot(uint32_t log_n, uint32_t log_a, bool bitrev, uint64_t p, uint64_t &row, uint32_t &k) {
    const uint32_t log_m = log_n - log_a;
    if (bitrev) {
        row = p >> log_a;
        k = (uint32_t)(p & ((1u << log_a) - 1));
    } else {
        row = p & ((1ull << log_m) - 1);
        k = (uint32_t)(p >> log_m);
    }
}

// Base-element index of (row, member k, coefficient c) in matrix form.
GP_HD uint64_t fri_matrix_index(uint32_t log_m, uint32_t D, uint64_t row, uint32_t k, uint32_t c) {
    return ((uint64_t)(k * D + c) << log_m) + row;
}

// The fold of one group: v[k] = member k, x0inv = 1 / x0, zeta_inv = 1 / zeta,
// a_inv = 1 / arity (used when halving).
template <class F, int D>
GP_HD Ext<F, D> fri_fold_values(const Ext<F, D> *v, uint32_t log_a, bool bitrev, typename F::T x0inv,
                                 typename F::T zeta_inv, const Ext<F, D> &beta, bool halve,
                                 typename F::T a_inv) {
    using T = typename F::T;
    const uint32_t a = 1u << log_a;
    T zp[8];  // zeta^-t
    zp[0] = 1;
    for (uint32_t t = 1; t < a; ++t) zp[t] = F::mul(zp[t - 1], zeta_inv);
    // c_j = sum_k v_k zeta^(-j sigma(k)); Horner in t = beta / x0.
    const Ext<F, D> t = beta.scale(x0inv);
    Ext<F, D> r = Ext<F, D>::zero();
    for (int j = (int)a - 1; j >= 0; --j) {
        Ext<F, D> cj = Ext<F, D>::zero();
        for (uint32_t k = 0; k < a; ++k) {
            const uint32_t s = bitrev ? (uint32_t)bit_reverse(k, log_a) : k;
            cj = cj + v[k].scale(zp[(j * s) & (a - 1)]);
        }
        r = (j == (int)a - 1) ? cj : r * t + cj;
    }
    if (halve) r = r.scale(a_inv);
    return r;
}

// Per-fold constants, prepared on the host.
template <class F, int D>
struct FriFoldParams {
    using T = typename F::T;
    uint32_t log_n, log_a;  // input layer size 2^log_n
    uint32_t log_leaf;      // log2 of the values per stored row: log_a, or 0 (one per leaf)
    bool bitrev, halve, final_out;
    T omega_inv;  // 1 / (primitive 2^log_n-th root)
    T shift_inv;  // 1 / (this layer's coset shift)
    T zeta_inv;   // 1 / (primitive a-th root) = omega_inv^(n/a)
    T a_inv;      // 1 / a
    Ext<F, D> beta;
};

// Folds group g of `in` (matrix form) and stores the result at position g of
// the next layer: in its matrix form, or as D base columns for the final one.
template <class F, int D>
GP_HD void fri_fold_group(const FriFoldParams<F, D> &p, const typename F::T *in, uint64_t g, typename F::T *out) {
    const uint32_t log_m = p.log_n - p.log_a, a = 1u << p.log_a;
    Ext<F, D> v[8];
    for (uint32_t k = 0; k < a; ++k) {
        uint64_t row = g;
        uint32_t kk = k;
        if (p.log_leaf != p.log_a) fri_slot(p.log_n, p.log_leaf, p.bitrev, fri_member(p.log_n, p.log_a, p.bitrev, g, k), row, kk);
        for (int c = 0; c < D; ++c) v[k].c[c] = in[fri_matrix_index(p.log_n - p.log_leaf, D, row, kk, c)];
    }
    const uint64_t e = p.bitrev ? bit_reverse(g, log_m) : g;
    const typename F::T x0inv = F::mul(p.shift_inv, fpow<F>(p.omega_inv, e));
    const Ext<F, D> r = fri_fold_values<F, D>(v, p.log_a, p.bitrev, x0inv, p.zeta_inv, p.beta, p.halve, p.a_inv);
    if (p.final_out) {  // D base columns of 2^log_m values
        for (int c = 0; c < D; ++c) out[((uint64_t)c << log_m) + g] = r.c[c];
        return;
    }
    // Next layer: 2^log_m values, stored rows of 2^log_leaf.
    uint64_t row;
    uint32_t k;
    fri_slot(log_m, p.log_leaf, p.bitrev, g, row, k);
    for (int c = 0; c < D; ++c) out[fri_matrix_index(log_m - p.log_leaf, D, row, k, c)] = r.c[c];
}

// Layer 0: D base columns of 2^log_n values (a codeword buffer) to matrix form.
template <class T>
GP_HD void fri_to_matrix(uint32_t log_n, uint32_t log_a, bool bitrev, uint32_t D, const T *in, uint64_t p, T *out) {
    uint64_t row;
    uint32_t k;
    fri_slot(log_n, log_a, bitrev, p, row, k);
    for (uint32_t c = 0; c < D; ++c) out[fri_matrix_index(log_n - log_a, D, row, k, c)] = in[((uint64_t)c << log_n) + p];
}

// The kernel parameters of a validated fold request.
template <class F, int D>
FriFoldParams<F, D> fri_params(const FriFoldArgs &a) {
    FriFoldParams<F, D> p;
    p.log_n = a.log_n;
    p.log_a = a.log_a;
    p.log_leaf = a.leaf_element ? 0 : a.log_a;
    p.bitrev = a.bitrev;
    p.halve = a.halve;
    p.final_out = a.final_out;
    p.omega_inv = (typename F::T)a.omega_inv;
    p.shift_inv = (typename F::T)a.shift_inv;
    p.zeta_inv = (typename F::T)a.zeta_inv;
    p.a_inv = finv<F>((typename F::T)(1u << a.log_a));
    for (int c = 0; c < D; ++c) p.beta.c[c] = (typename F::T)a.beta[c];
    return p;
}

}  // namespace gp
