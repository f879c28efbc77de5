// SPDX-License-Identifier: MIT OR Apache-2.0
// Out-of-domain evaluation and DEEP composition against the Backend
// interface: request validation, the barycentric factor and the
// recombination of extension columns, the DEEP correction terms. The row
// formulas are core/deep_ops.h, shared by the backends.
#pragma once

#include <cstdint>
#include <vector>

#include "core/core.h"
#include "gpuprover.h"

namespace gp {

// A validated OOD/DEEP request: field, E, shape, points.
struct OodShape {
    const FieldDesc *f;
    uint32_t E, log_m, log_nb;
    uint32_t ext_kind = 0;  // kExtPlonky3 or kExtTriton
    bool bitrev;
    uint64_t shift, ncols = 0;
    uint64_t nwords = 0;  // num_points * ncols * E: the values, alphas and results
    std::vector<const Buffer *> bufs;
    std::vector<uint64_t> z;  // num_points * E words
};

// Validates columns `bufs` (non-empty, of one context and field), options
// `o` (read over the defaults) and `num_points` points.
OodShape ood_shape(const std::vector<const Buffer *> &bufs, const gp_ood_options &o, const void *points,
                   uint32_t num_points);

// Values of every column at every point into `out` (see gp_evaluate_ood).
void evaluate_ood(Context *c, const OodShape &s, uint32_t num_points, void *out, uint64_t size_bytes);

// DEEP composition of the columns into `out` (see gp_deep_composition).
void deep_composition(Context *c, const OodShape &s, uint32_t num_points, const void *values, const void *alphas,
                      Buffer &out);

}  // namespace gp
