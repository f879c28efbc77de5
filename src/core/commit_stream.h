// SPDX-License-Identifier: MIT OR Apache-2.0
// The one-call commitment of host traces (gp_commit_host), streamed in
// column batches through per-row sponge states, against the Backend
// interface; and the openings of a tree whose LDE is not on the device.
#pragma once

#include <cstdint>
#include <memory>
#include <vector>

#include "core/core.h"
#include "gpuprover.h"

namespace gp {

// A validated request. `lde` carries the field, log_blowup, shift,
// input_shift, order and in_layout every matrix shares.
struct CommitRequest {
    struct Mat {
        const void *data;
        uint64_t rows_in, cols;
        uint32_t ext;
        void *lde_host;  // GP_KEEP_HOST
        uint64_t rand_at = 0;  // byte offset of its randomizers in `rand`
    };
    std::vector<Mat> mats;  // the caller's order
    LdeArgs lde{};
    // gp_lde_options.randomizers (rand_m coefficients a column, the
    // matrices' columns in turn), copied: a GP_KEEP_NONE tree extends again
    // when it opens. Added inside the backend's LDE (lde_adds_randomizers).
    uint64_t rand_m = 0;
    std::vector<unsigned char> rand;
    gp_merkle_options merkle{};
    int keep = GP_KEEP_DEVICE;
    uint64_t budget = 0;  // 0: the device's free memory (no limit on the CPU)
    // GP_KEEP_DEVICE: the caller's buffers that receive the LDE (validated,
    // one per matrix), or empty for new ones.
    std::vector<Buffer *> into;
};

// Where the openings of a GP_KEEP_HOST or GP_KEEP_NONE tree find their rows:
// the request (its host pointers stay the caller's) and the shapes the tree
// lists as `committed` (no memory).
struct StreamSource {
    CommitRequest req;
    std::vector<std::unique_ptr<Buffer>> shapes;
};

// Commits; returns the registered tree and, for GP_KEEP_DEVICE, the new
// LDE buffers (registered, caller's order) in `kept` (none with r.into).
MerkleTree *commit_host(Context *c, const CommitRequest &r, std::vector<Buffer *> &kept);

// The rows of `count` validated openings of a tree with a source.
void stream_open_rows(const MerkleTree &t, const uint64_t *indices, uint64_t count, void *rows);

}  // namespace gp
