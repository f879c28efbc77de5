// SPDX-License-Identifier: MIT OR Apache-2.0
// The constraint commitment against the Backend interface (see
// constraint.h): a composition of row copies, coset LDEs or NTTs, and one
// Merkle commitment.
#include "core/constraint.h"

#include <algorithm>
#include <vector>

#include "core/checks.h"
#include "core/merkle_tree.h"
#include "math/field.h"

namespace gp {

void constraint_commit(Context *c, const Buffer &ev, const gp_constraint_options &opts, Buffer *&segments,
                       MerkleTree *&tree) {
    gp_constraint_options o = opts;
    o.merkle.struct_size = sizeof(gp_merkle_options);  // embedded: same version as the outer struct
    const FieldDesc &f = *ev.field;
    if (ev.cols != 1)
        fail(GP_ERR_SHAPE_MISMATCH, "evaluations has ", ev.cols, " columns; the composition is one column");
    const int split = raw(o.split);
    if (split != GP_COMPOSITION_PLONKY3 && split != GP_COMPOSITION_WINTERFELL && split != GP_COMPOSITION_TRITON)
        fail(GP_ERR_INVALID_ARGUMENT, "options->split = ", split, " is not a gp_composition_split");
    const uint32_t log_nd = check_log_size(f, ev.rows, "evaluation count");
    if (!is_pow2(o.segments) || o.segments > ev.rows)
        fail(GP_ERR_INVALID_ARGUMENT, "options->segments = ", o.segments,
             " is not a power of two dividing the ", ev.rows, " evaluations");
    if (!is_pow2(o.blowup) || o.blowup > 32)
        fail(GP_ERR_INVALID_ARGUMENT, "options->blowup = ", o.blowup, " is not a power of two in [1, 32]");
    check_order(o.output_order, "options->output_order");
    const gp_order order = (gp_order)raw(o.output_order);
    const uint64_t shift = o.shift ? o.shift : f.generator;
    check_shift(f, shift, "options->shift");
    const uint64_t D = o.segments, N = ev.rows / D;
    const uint32_t log_n = log2_exact(N), log_b = log2_exact(o.blowup);
    check_log_size(f, N * o.blowup, "segment LDE size");
    tree_spec(o.merkle, f, "the segments");  // fail before any work
    one_row_per_leaf(o.merkle, "the constraint commitment");

    TempBuffers tmp;
    Buffer *seg = tmp.make(c, f, ev.ext, N * o.blowup, D);
    Buffer *one = tmp.make(c, f, ev.ext, N, 1), *lde = tmp.make(c, f, ev.ext, N * o.blowup, 1);
    Backend &be = *c->backend;
    if (split == GP_COMPOSITION_PLONKY3) {
        // Segment i: rows i, i + D, ... on shift * w^i * <w^D>, extended
        // from that coset to shift * <w'>.
        LdeArgs a{};
        a.field = &f;
        a.ext = ev.ext;
        a.rows_in = N;
        a.cols = 1;
        a.log_n = log_n;
        a.log_blowup = log_b;
        a.shift = shift;
        a.order = order;
        a.in_buf = one;
        a.out = lde;
        dispatch_field(f.id, [&](auto F) {
            using Fd = decltype(F);
            const auto w = two_adic_generator<Fd>(log_nd);
            for (uint64_t i = 0; i < D; ++i) {
                c->monitor->poll("constraint", i, D);
                be.copy_rows(ev, 0, i, D, N, *one, 0);
                a.input_shift = Fd::mul((typename Fd::T)shift, fpow<Fd>(w, i));
                be.lde(a);
                be.copy_rows(*lde, 0, 0, 1, N * o.blowup, *seg, i);
            }
        });
    } else {
        // Coefficients of h, then each segment's N coefficients evaluated
        // on the LDE coset: winterfell's segment i holds coefficients
        // i N .. (i + 1) N - 1, Triton's coefficients i, i + D, i + 2D, ....
        Buffer *coeffs = tmp.make(c, f, ev.ext, ev.rows, 1);
        be.copy_rows(ev, 0, 0, 1, ev.rows, *coeffs, 0);
        be.ntt(*coeffs, NttArgs{GP_NTT_INVERSE, shift, GP_ORDER_NATURAL, GP_ORDER_NATURAL});
        const NttArgs forward{GP_NTT_FORWARD, shift, GP_ORDER_NATURAL, order};
        for (uint64_t i = 0; i < D; ++i) {
            c->monitor->poll("constraint", i, D);
            if (split == GP_COMPOSITION_TRITON) be.copy_rows(*coeffs, 0, i, D, N, *lde, 0);
            else be.copy_rows(*coeffs, 0, i * N, 1, N, *lde, 0);
            be.ntt(*lde, forward);
            be.copy_rows(*lde, 0, 0, 1, N * o.blowup, *seg, i);
        }
    }
    tree = commit_matrices(c, {seg}, o.merkle);
    segments = tmp.keep(seg);
}

}  // namespace gp
