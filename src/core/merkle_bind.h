// SPDX-License-Identifier: MIT OR Apache-2.0
// A field-sponge tree's root bound to its shape, as SP1's tensor commitment
// scheme (slop's MerkleTreeTcs) publishes it:
// compress(root, sponge([log2 height, width])).
#pragma once

#include <cstdint>

#include "core/core.h"

namespace gp {

// Writes the bound commitment (the tree's digest size) to out; refuses trees
// that are not GP_MERKLE_FIELD_SPONGE, trees of matrices of several heights,
// and widths that are not field elements.
void sp1_commitment(const MerkleTree &t, void *out);

}  // namespace gp
