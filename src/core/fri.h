// SPDX-License-Identifier: MIT OR Apache-2.0
// The FRI commitment against the Backend interface: shape validation, the
// layer sequence (matrix form, fold, commit), openings and the host verifier.
// The fold itself is core/fri_ops.h, shared by the backends.
#pragma once

#include <cstdint>
#include <memory>
#include <vector>

#include "core/core.h"
#include "gpuprover.h"

namespace gp {

// The validated shape of a FRI commitment.
struct FriShape {
    const FieldDesc *f;
    uint32_t ext, log_n, log_a, layers, log_final;
    uint32_t ext_kind;  // kExtPlonky3 or kExtTriton
    uint32_t log_leaf;  // log2 of the values per leaf: log_a (groups) or 0
    bool bitrev, halve;
    uint64_t shift;
    gp_fri_options o;
};

// Validates options `o` (already read over the defaults) for a codeword of n
// elements of degree `ext` over f.
FriShape fri_shape(const gp_fri_options &o, const FieldDesc &f, uint32_t ext, uint64_t n);

// A FRI commitment: layers k < K in matrix form (buffers of the context) with
// their trees, and the remainder. It is registered with its context, which
// releases it if it is still alive when the context goes.
struct FriState {
    explicit FriState(Context *c);
    FriState(const FriState &) = delete;
    FriState &operator=(const FriState &) = delete;
    Context *ctx;
    const FieldDesc *f = nullptr;
    uint32_t ext = 1, log_a = 1, log_n = 0, layers = 0, folded = 0;
    uint32_t ext_kind = 0, log_leaf = 1;
    bool bitrev = true, halve = true;
    uint64_t shift = 1;
    gp_merkle_options mo;
    std::vector<Buffer *> bufs;
    std::vector<MerkleTree *> trees;
    std::vector<unsigned char> remainder;  // host copy of the final layer

    uint32_t log_layer(uint32_t k) const { return log_n - k * log_a; }
    uint64_t elem_bytes() const { return (uint64_t)ext * f->elem_size; }
    uint64_t cap_size() const;
    uint64_t remainder_size() const { return (1ull << log_layer(layers)) * elem_bytes(); }
    // Bytes of one query's opening over every layer.
    uint64_t opening_size() const;
    // Merkle paths per layer in an opening: 1 (a group per leaf) or arity.
    uint32_t paths_per_layer() const { return 1u << (log_a - log_leaf); }
    ~FriState();
};

// Layer 0 of codeword `cw` (one column): matrix form, committed; its cap is
// written to `cap` when not null.
std::unique_ptr<FriState> fri_begin(Context *c, const Buffer &cw, const FriShape &s, void *cap, uint64_t cap_size);

// Folds the next layer with challenge `beta` and commits it (or keeps the
// remainder after the last fold); a failed fold leaves the state as it was.
void fri_fold(FriState &s, const void *beta, uint64_t beta_size, void *cap, uint64_t cap_size);

// Every layer, with each challenge drawn from `challenge` given the caps.
std::unique_ptr<FriState> fri_commit(Context *c, const Buffer &cw, const FriShape &s,
                                     gp_fri_challenge_fn challenge, void *user);

// Openings of `count` codeword positions into `out` (see gp_fri_open).
void fri_open(const FriState &s, const uint64_t *indices, uint64_t count, void *out, uint64_t size_bytes);

// Checks one query's opening on the host (see gp_fri_verify).
void fri_verify(const FriShape &s, const void *caps, uint64_t caps_size, const void *betas, uint64_t betas_size,
                const void *remainder, uint64_t remainder_size, uint64_t index, const void *opening,
                uint64_t opening_size);

}  // namespace gp
