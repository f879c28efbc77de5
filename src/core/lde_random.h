// SPDX-License-Identifier: MIT OR Apache-2.0
// The randomized low-degree extension (gp_lde_options.randomizers): the
// trace domain's zerofier times a caller's randomizer polynomial, added to
// an LDE, against the Backend interface.
#pragma once

#include <cstdint>
#include <vector>

#include "core/core.h"

namespace gp {

// Validates the randomizers of an LDE request `a` (its output already
// written): `count` coefficients per column, host memory, canonical.
void check_randomizers(const Context &c, const LdeArgs &a, const void *coeffs, uint64_t count);

// Whether the backend adds the randomizers inside its LDE (LdeArgs::
// rand_add): it says it can and the m coefficients fit (m <= n, and the
// B m words a column at most n or an eighth of the output's).
bool lde_adds_randomizers(const Backend &be, const LdeArgs &a, uint64_t count);

// The addend of LdeArgs::rand_add for the columns of `a` (`count`
// coefficients a column in `coeffs`, gp_lde_options.randomizers' layout,
// starting at a's first column), as field elements in host memory.
std::vector<unsigned char> randomizer_addend(const LdeArgs &a, const void *coeffs, uint64_t count);

// out += (X^n - input_shift^n) r_c(X) on the output's coset and in its
// order, column by column: one upload of the product's coefficients, one
// forward transform of n * blowup rows, one addition.
void add_randomizers(Context *c, const LdeArgs &a, const void *coeffs, uint64_t count);

}  // namespace gp
