// SPDX-License-Identifier: MIT OR Apache-2.0
// Merkle commitments against the Backend interface: profile validation, tree
// planning (heights, cap, injection groups), commitment, reading digests,
// and the host verifier of an opening.
#pragma once

#include <cstdint>
#include <utility>
#include <vector>

#include "core/core.h"
#include "gpuprover.h"

namespace gp {

// The name of a gp_merkle_kind value, or nullptr.
const char *merkle_kind_name(int kind);

// Validates a Merkle profile for matrices over `f` (named by `what`).
TreeSpec tree_spec(const gp_merkle_options &o, const FieldDesc &f, const char *what);

// The tree's shape: for Plonky3's MMCS kinds any heights on the ladder
// ceil(tallest / 2^k), for the other kinds powers of two of one height; the
// cap within the least height; matrices sorted tallest first (stable) and
// grouped per layer (group k: height ceil(tallest / 2^k)).
struct TreePlan {
    uint32_t log_h = 0;
    uint64_t leaves = 0;  // the tallest height when not a power of two, else 0
    std::vector<uint32_t> order;
    std::vector<std::pair<uint32_t, uint32_t>> groups;
};
TreePlan plan_tree(const TreeSpec &s, const std::vector<uint64_t> &heights, uint32_t cap_height,
                   const char *what);

// Validates a profile for matrices (of one field); fills `a` (spec, sorted
// matrices, groups, log_h).
void plan_request(const std::vector<const Buffer *> &mats, const gp_merkle_options &o, bool leaves_only,
                  MerkleArgs &a);

// Commits validated matrices and registers the tree with the context.
// Refuses leaf_rows = 2 where `where` commits one row per leaf.
// GP_MERKLE_TRITON_DIGEST takes at most 5 elements per leaf.
void check_leaf_width(const gp_merkle_options &o, uint64_t row_elems, const char *what);

void one_row_per_leaf(const gp_merkle_options &o, const char *where);

MerkleTree *commit_matrices(Context *c, const std::vector<const Buffer *> &committed, const gp_merkle_options &o);

// The leaf digests of validated matrices of one height into host memory
// (`size_bytes` checked against the digests' size).
void hash_rows(Context *c, const std::vector<const Buffer *> &mats, const gp_merkle_options &o, void *digests,
               uint64_t size_bytes);

// Copies the first `bytes` bytes of layer `k` of a tree to host memory.
void read_digests(const MerkleTree &t, uint32_t k, uint64_t bytes, void *out);
void read_cap(const MerkleTree &t, void *out);

// Bytes of one opened row of `mats` (GP_ERR_SIZE_OVERFLOW past 64 bits).
GP_PLUGIN_EXPORT uint64_t opened_row_bytes(const std::vector<const Buffer *> &mats);

// Records what the tree needs of t.committed after they are gone (their
// serials, the opened row's bytes); called whenever t.committed is set.
void note_committed(MerkleTree &t);

// The first of t.committed that is no longer the live buffer the tree
// committed (destroyed, whatever buffer now has its address), or
// t.committed.size() when all are; always the latter for a tree with a
// source, whose rows do not come from buffers.
size_t first_dead_committed(const MerkleTree &t);

// Checks one opening on the host; throws GP_ERR_VERIFY_FAILED when it does
// not hash to the cap, or the status of a malformed argument.
void merkle_verify_opening(const gp_merkle_options &o, const FieldDesc &f, const gp_matrix_dims *dims,
                           uint32_t count, const void *cap, uint64_t cap_size, uint64_t index, const void *rows,
                           uint64_t rows_size, const void *path, uint64_t path_size);

}  // namespace gp
