// SPDX-License-Identifier: MIT OR Apache-2.0
// Out-of-domain evaluation and DEEP composition, written once for host and
// device.
//
// Columns hold evaluations on the coset shift * <omega_M> (M rows, natural or
// bit-reversed order). A polynomial of degree < N (N <= M, the degree bound)
// is determined by its values on the sub-coset shift * <omega_N>, which is
// every (M/N)-th row in natural order and the first N rows in bit-reversed
// order. Barycentric evaluation on that coset S = s<w> of size N:
//   f(z) = (z^N - s^N) / (N s^N) * sum_p f(x_p) * x_p / (z - x_p).
// DEEP composition over all M rows:
//   Q(x) = sum_j sum_k alpha_jk (f_k(x) - f_k(z_j)) / (x - z_j).
#pragma once

#include <cstdint>
#include <type_traits>
#include <vector>

#include "core/core.h"
#include "math/ext.h"
#include "math/field.h"

namespace gp {

// Row of position p < N of the degree-bound sub-coset.
GP_HD uint64_t ood_row(uint32_t log_m, uint32_t log_nb, bool bitrev, uint64_t p) {
    return bitrev ? p : p << (log_m - log_nb);
}

// Point of position p < N of the degree-bound sub-coset.
template <class F>
GP_HD typename F::T ood_point(uint32_t log_nb, bool bitrev, typename F::T shift, typename F::T omega_n, uint64_t p) {
    return F::mul(shift, fpow<F>(omega_n, bitrev ? bit_reverse(p, log_nb) : p));
}

// Barycentric weight x / (z - x) (z outside the coset).
template <class F, int E>
GP_HD Ext<F, E> ood_weight(typename F::T x, const Ext<F, E> &z) {
    return (z - Ext<F, E>::from_base(x)).inv().scale(x);
}

// A committed column set as the DEEP kernel reads it.
template <class T>
struct ColSet {
    const T *data;
    uint64_t cols;  // extension columns
    uint32_t ext;   // 1 or E
};

// Q at row r of M, point x; `alpha` and `ood` are [point j][column k] of E
// coefficients, `corr[j]` = sum_k alpha_jk ood_jk.
template <class F, int E>
GP_HD Ext<F, E> deep_row(const ColSet<typename F::T> *sets, uint32_t nsets, uint64_t rows, uint64_t r,
                         typename F::T x, const Ext<F, E> *z, uint32_t npoints, const Ext<F, E> *alpha,
                         uint64_t ncols, const Ext<F, E> *corr) {
    Ext<F, E> q = Ext<F, E>::zero();
    for (uint32_t j = 0; j < npoints; ++j) {
        Ext<F, E> acc = Ext<F, E>::zero();
        uint64_t k = 0;
        for (uint32_t b = 0; b < nsets; ++b) {
            const ColSet<typename F::T> &s = sets[b];
            for (uint64_t c = 0; c < s.cols; ++c, ++k) {
                const Ext<F, E> &a = alpha[j * ncols + k];
                if (s.ext == 1) {
                    acc = acc + a.scale(s.data[c * rows + r]);
                } else {
                    Ext<F, E> v;
                    for (int e = 0; e < E; ++e) v.c[e] = s.data[(c * E + e) * rows + r];
                    acc = acc + a * v;
                }
            }
        }
        q = q + (acc - corr[j]) * (Ext<F, E>::from_base(x) - z[j]).inv();
    }
    return q;
}

// Host side: words to extension elements, and the (field, E) dispatch.
template <class F, int E>
std::vector<Ext<F, E>> ext_from_words(const std::vector<uint64_t> &w) {
    std::vector<Ext<F, E>> v(w.size() / E);
    for (size_t i = 0; i < v.size(); ++i)
        for (int e = 0; e < E; ++e) v[i].c[e] = (typename F::T)w[i * E + e];
    return v;
}

// Pointers to every base column of `bufs`, in order.
template <class T, class Buf>
std::vector<const T *> base_column_ptrs(const std::vector<const Buf *> &bufs) {
    std::vector<const T *> cols;
    for (const Buf *b : bufs)
        for (uint64_t j = 0; j < b->base_cols(); ++j) cols.push_back(static_cast<const T *>(b->data) + j * b->rows);
    return cols;
}

template <class T, class Buf>
std::vector<ColSet<T>> make_col_sets(const std::vector<const Buf *> &bufs) {
    std::vector<ColSet<T>> v;
    for (const Buf *b : bufs) v.push_back({static_cast<const T *>(b->data), b->cols, b->ext});
    return v;
}

// A DEEP request's inputs as extension elements and column sets.
template <class F, int E>
struct DeepInputs {
    std::vector<Ext<F, E>> z, alpha, corr;
    std::vector<ColSet<typename F::T>> sets;
    explicit DeepInputs(const DeepArgs &a)
        : z(ext_from_words<F, E>(a.z)),
          alpha(ext_from_words<F, E>(a.alpha)),
          corr(ext_from_words<F, E>(a.corr)),
          sets(make_col_sets<typename F::T>(a.bufs)) {}
};

}  // namespace gp
