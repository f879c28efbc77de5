// SPDX-License-Identifier: MIT OR Apache-2.0
// The LDE of coefficients (gp_lde_options.input = GP_LDE_INPUT_COEFFICIENTS):
// basefold's encoding, against the Backend interface.
#pragma once

#include "core/core.h"

namespace gp {

// Writes into a.out the evaluations of each column's coefficients (rows
// [0, rows_in); zero up to n * blowup) on the output coset, in a.order: the
// coefficients copied into the output's first rows, the rest zeroed, then
// one forward transform of the output in place.
void lde_from_coefficients(Context *c, const LdeArgs &a);

}  // namespace gp
