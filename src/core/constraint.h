// SPDX-License-Identifier: MIT OR Apache-2.0
// The constraint commitment against the Backend interface: the composition
// polynomial split into segments (Plonky3 or winterfell convention), each
// extended to the LDE coset, all committed in one tree.
#pragma once

#include "core/core.h"
#include "gpuprover.h"

namespace gp {

// Segments of `ev` (one column of N·D evaluations) extended and committed;
// `o` is read over the defaults. Returns the segment buffer (D columns) and
// its tree, both registered with the context.
void constraint_commit(Context *c, const Buffer &ev, const gp_constraint_options &o, Buffer *&segments,
                       MerkleTree *&tree);

}  // namespace gp
