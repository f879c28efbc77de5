// SPDX-License-Identifier: MIT OR Apache-2.0
// Out-of-domain evaluation and DEEP composition against the Backend
// interface (see deep.h).
#include "core/deep.h"

#include "core/checks.h"
#include "core/deep_ops.h"
#include "math/ext.h"
#include "math/field.h"

namespace gp {

OodShape ood_shape(const std::vector<const Buffer *> &bufs, const gp_ood_options &o, const void *points,
                   uint32_t num_points) {
    OodShape s;
    s.bufs = bufs;
    const FieldDesc &f = *s.bufs[0]->field;
    s.f = &f;
    s.E = o.challenge_degree ? o.challenge_degree : (f.id == FieldId::Goldilocks ? 3 : 4);
    check_ext_degree(f, s.E, "options->challenge_degree");
    s.ext_kind = check_extension(f, s.E, raw(o.extension), "options->extension");
    const uint64_t m = s.bufs[0]->rows;
    for (size_t i = 0; i < s.bufs.size(); ++i) {
        if (s.bufs[i]->rows != m)
            fail(GP_ERR_SHAPE_MISMATCH, "columns[", i, "] has ", s.bufs[i]->rows, " rows but columns[0] has ", m);
        if (s.bufs[i]->cols == 0) fail(GP_ERR_SHAPE_MISMATCH, "columns[", i, "] has 0 columns");
        if (s.bufs[i]->ext != 1 && s.bufs[i]->ext != s.E)
            fail(GP_ERR_SHAPE_MISMATCH, "columns[", i, "] has extension degree ", s.bufs[i]->ext,
                 "; columns must be base columns or of the challenge degree ", s.E);
        if (__builtin_add_overflow(s.ncols, s.bufs[i]->cols, &s.ncols))
            fail(GP_ERR_SIZE_OVERFLOW, "the column count of columns[0..", i, "] overflows 64 bits");
    }
    s.log_m = check_log_size(f, m, "rows");
    const uint64_t nb = o.degree_bound ? o.degree_bound : m;
    if (!is_pow2(nb) || nb > m)
        fail(GP_ERR_INVALID_ARGUMENT, "options->degree_bound = ", o.degree_bound, " is not a power of two <= ", m);
    s.log_nb = log2_exact(nb);
    check_order(o.order, "options->order");
    s.bitrev = raw(o.order) == GP_ORDER_BIT_REVERSED;
    s.shift = o.shift ? o.shift : f.generator;
    check_shift(f, s.shift, "options->shift");
    if (num_points == 0) fail(GP_ERR_INVALID_ARGUMENT, "num_points = 0");
    // Every size the call derives, checked before anything is read.
    const uint64_t zwords = checked_mul(num_points, s.E, "num_points * challenge degree");
    s.nwords = checked_mul(checked_mul(num_points, s.ncols, "num_points * columns"), s.E,
                           "num_points * columns * challenge degree");
    checked_mul(s.nwords, f.elem_size, "num_points * columns * challenge degree * element size");
    GP_REQUIRE_PTR(points);
    check_canonical(f, points, 0, zwords, "points");
    s.z = words_in(f, points, zwords);
    // No point may lie in the coset the formulas divide by: z^N != s^N with
    // N = degree bound (OOD) or M (DEEP; a superset of the former).
    ext_dispatch(f.id, s.E, s.ext_kind, [&](auto F, auto Ec) {
        using Fd = decltype(F);
        constexpr int E = decltype(Ec)::value;
        const auto zs = ext_from_words<Fd, E>(s.z);
        for (size_t j = 0; j < zs.size(); ++j) {
            const auto sm = Ext<Fd, E>::from_base((typename Fd::T)s.shift).pow(m);
            if (zs[j].pow(m) == sm)
                fail(GP_ERR_INVALID_ARGUMENT, "points[", j, "] lies in the evaluation coset (z^", m, " = shift^", m, ")");
        }
    });
    return s;
}

void evaluate_ood(Context *c, const OodShape &s, uint32_t num_points, void *out, uint64_t size_bytes) {
    const uint64_t need = s.nwords * s.f->elem_size;  // checked by ood_shape
    if (size_bytes < need)
        fail(GP_ERR_INVALID_ARGUMENT, "size_bytes = ", size_bytes, " is smaller than ", num_points, " points x ",
             s.ncols, " columns x ", s.E, " coefficients (", need, " bytes)");
    uint64_t base_cols = 0;
    for (const Buffer *b : s.bufs) base_cols += b->base_cols();
    std::vector<uint64_t> result(s.nwords);
    ext_dispatch(s.f->id, s.E, s.ext_kind, [&](auto F, auto Ec) {
        using Fd = decltype(F);
        using T = typename Fd::T;
        constexpr int E = decltype(Ec)::value;
        const T omega_n = two_adic_generator<Fd>(s.log_nb);
        const T sn = fpow<Fd>((T)s.shift, 1ull << s.log_nb);
        const T scale = finv<Fd>(Fd::mul(sn, (T)((1ull << s.log_nb) % Fd::P)));
        const auto zs = ext_from_words<Fd, E>(s.z);
        std::vector<uint64_t> sums(base_cols * E);
        for (uint32_t j = 0; j < num_points; ++j) {
            c->monitor->poll("ood", j, num_points);
            OodArgs a;
            a.field = s.f->id;
            a.E = E;
            a.ext_kind = s.ext_kind;
            a.log_m = s.log_m;
            a.log_nb = s.log_nb;
            a.bitrev = s.bitrev;
            a.shift = s.shift;
            a.omega_n = omega_n;
            for (int e = 0; e < E; ++e) a.z[e] = zs[j].c[e];
            a.bufs = s.bufs;
            c->backend->ood_sums(a, sums.data());
            // (z^N - s^N) / (N s^N), then recombine extension columns.
            const Ext<Fd, E> factor = (zs[j].pow(1ull << s.log_nb) - Ext<Fd, E>::from_base(sn)).scale(scale);
            uint64_t bc = 0, k = 0;
            for (const Buffer *b : s.bufs)
                for (uint64_t col = 0; col < b->cols; ++col, ++k) {
                    Ext<Fd, E> v = Ext<Fd, E>::zero(), xpow = Ext<Fd, E>::from_base(1), xgen = Ext<Fd, E>::zero();
                    if constexpr (E > 1) xgen.c[1] = 1;
                    for (uint32_t comp = 0; comp < b->ext; ++comp, ++bc) {
                        Ext<Fd, E> part;
                        for (int e = 0; e < E; ++e) part.c[e] = (T)sums[bc * E + e];
                        v = v + part * xpow;
                        xpow = xpow * xgen;
                    }
                    v = v * factor;
                    for (int e = 0; e < E; ++e) result[((uint64_t)j * s.ncols + k) * E + e] = v.c[e];
                }
        }
    });
    words_out(*s.f, result, out);
}

void deep_composition(Context *c, const OodShape &s, uint32_t num_points, const void *values, const void *alphas,
                      Buffer &out) {
    if (out.field != s.f || out.ext != s.E || out.cols != 1 || out.rows != (1ull << s.log_m))
        fail(GP_ERR_SHAPE_MISMATCH, "out must be one ", s.f->name, " column of degree ", s.E, " with ",
             1ull << s.log_m, " rows; it has ", out.cols, " column(s) of degree ", out.ext, " over ",
             out.field->name, " with ", out.rows, " rows");
    for (const Buffer *b : s.bufs)
        if (b == &out) fail(GP_ERR_INVALID_ARGUMENT, "out is also one of the input columns");
    const uint64_t nwords = s.nwords;
    check_canonical(*s.f, values, 0, nwords, "values");
    check_canonical(*s.f, alphas, 0, nwords, "alphas");
    DeepArgs a;
    a.field = s.f->id;
    a.E = s.E;
    a.ext_kind = s.ext_kind;
    a.log_m = s.log_m;
    a.npoints = num_points;
    a.bitrev = s.bitrev;
    a.shift = s.shift;
    a.ncols = s.ncols;
    a.bufs = s.bufs;
    a.z = s.z;
    a.alpha = words_in(*s.f, alphas, nwords);
    a.out = &out;
    ext_dispatch(s.f->id, s.E, s.ext_kind, [&](auto F, auto Ec) {
        using Fd = decltype(F);
        constexpr int E = decltype(Ec)::value;
        a.omega_m = two_adic_generator<Fd>(s.log_m);
        const auto al = ext_from_words<Fd, E>(a.alpha), vs = ext_from_words<Fd, E>(words_in(*s.f, values, nwords));
        for (uint32_t j = 0; j < num_points; ++j) {
            Ext<Fd, E> corr = Ext<Fd, E>::zero();
            for (uint64_t k = 0; k < s.ncols; ++k) corr = corr + al[j * s.ncols + k] * vs[j * s.ncols + k];
            for (int e = 0; e < E; ++e) a.corr.push_back(corr.c[e]);
        }
    });
    c->backend->deep(a);
}

}  // namespace gp
