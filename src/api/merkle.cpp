// SPDX-License-Identifier: MIT OR Apache-2.0
// C entry points: Merkle commitments, digests, openings and verification.
#include "api/common.h"
#include "core/commit_stream.h"
#include "core/merkle_bind.h"
#include "core/merkle_tree.h"

using namespace gp;

GP_EXPORT void gp_merkle_options_init(gp_merkle_options *o) {
    if (!o) return;
    std::memset(o, 0, sizeof(*o));
    o->struct_size = sizeof(*o);
    o->kind = GP_MERKLE_FIELD_SPONGE;
    o->perm = GP_PERM_POSEIDON2_GOLDILOCKS_8;
}

GP_EXPORT gp_status gp_merkle_commit(gp_context *ctx, const gp_buffer *const *matrices, uint32_t count,
                                     const gp_merkle_options *options, gp_merkle_tree **out) {
    return guard("gp_merkle_commit", [&] {
        ContextCall call(ctx, HandleKind::Context, "ctx");
        GP_REQUIRE_PTR(out);
        *out = nullptr;
        gp_merkle_options o = read_options(options, gp_merkle_options_init, "gp_merkle_options");
        std::vector<const Buffer *> mats = checked_matrices(ctx, matrices, count);
        *out = reinterpret_cast<gp_merkle_tree *>(commit_matrices(ctx_of(ctx), mats, o));
    });
}

GP_EXPORT gp_status gp_merkle_hash_rows(gp_context *ctx, const gp_buffer *const *matrices, uint32_t count,
                                        const gp_merkle_options *options, void *digests, uint64_t size_bytes) {
    return guard("gp_merkle_hash_rows", [&] {
        ContextCall call(ctx, HandleKind::Context, "ctx");
        gp_merkle_options o = read_options(options, gp_merkle_options_init, "gp_merkle_options");
        hash_rows(ctx_of(ctx), checked_matrices(ctx, matrices, count), o, digests, size_bytes);
    });
}

GP_EXPORT uint64_t gp_merkle_digest_size(const gp_merkle_tree *tree) {
    return with_live(tree, HandleKind::Tree, (uint64_t)0, [&] { return tree_of(tree)->digest_bytes(); });
}

GP_EXPORT uint64_t gp_merkle_cap_size(const gp_merkle_tree *tree) {
    return with_live(tree, HandleKind::Tree, (uint64_t)0, [&] { return tree_of(tree)->cap_bytes(); });
}

namespace {
// Refuses an output of size_bytes that cannot hold `need` bytes of `what`.
void require_room(const char *what, uint64_t size_bytes, uint64_t need) {
    if (size_bytes < need)
        fail(GP_ERR_INVALID_ARGUMENT, "size_bytes = ", size_bytes, " is smaller than the ", what, " (", need,
             " bytes)");
}

// The root or the cap (`what`) of a tree into out[size_bytes].
void read_layer(const char *what, const gp_merkle_tree *tree, void *out, uint64_t size_bytes, bool cap) {
    ContextCall call(tree, HandleKind::Tree, "tree");
    GP_REQUIRE_PTR(out);
    const MerkleTree &t = *tree_of(tree);
    const uint64_t need = cap ? t.cap_bytes() : t.digest_bytes();
    require_room(what, size_bytes, need);
    read_digests(t, cap ? t.cap_layer() : t.log_h, need, out);
}
}  // namespace

GP_EXPORT gp_status gp_merkle_root(const gp_merkle_tree *tree, void *out, uint64_t size_bytes) {
    return guard("gp_merkle_root", [&] { read_layer("root", tree, out, size_bytes, false); });
}

GP_EXPORT gp_status gp_merkle_cap(const gp_merkle_tree *tree, void *out, uint64_t size_bytes) {
    return guard("gp_merkle_cap", [&] { read_layer("cap", tree, out, size_bytes, true); });
}

GP_EXPORT gp_status gp_merkle_sp1_commitment(const gp_merkle_tree *tree, void *out, uint64_t size_bytes) {
    return guard("gp_merkle_sp1_commitment", [&] {
        ContextCall call(tree, HandleKind::Tree, "tree");
        GP_REQUIRE_PTR(out);
        const MerkleTree &t = *tree_of(tree);
        require_room("commitment", size_bytes, t.digest_bytes());
        sp1_commitment(t, out);
    });
}

GP_EXPORT gp_status gp_merkle_opening_size(const gp_merkle_tree *tree, uint64_t *row_bytes, uint64_t *path_bytes) {
    return guard("gp_merkle_opening_size", [&] {
        ContextCall call(tree, HandleKind::Tree, "tree");
        const MerkleTree *t = tree_of(tree);
        if (row_bytes) *row_bytes = t->row_bytes;
        if (path_bytes) *path_bytes = t->path_len() * t->digest_bytes();
    });
}

GP_EXPORT gp_status gp_merkle_open(const gp_merkle_tree *tree, const uint64_t *indices, uint64_t count, void *rows,
                                   uint64_t rows_size, void *paths, uint64_t paths_size) {
    return guard("gp_merkle_open", [&] {
        ContextCall call(tree, HandleKind::Tree, "tree");
        if (count == 0) return;
        GP_REQUIRE_PTR(indices);
        const MerkleTree *t = tree_of(tree);
        // Sizes first: `count` is checked before `indices` is read.
        checked_mul(count, sizeof(uint64_t), "count * index size");
        auto need = [&](void *p, uint64_t size, uint64_t each, const char *what) {
            if (!p) return;
            uint64_t total = checked_mul(count, each, what);
            if (size < total)
                fail(GP_ERR_INVALID_ARGUMENT, what, "_size = ", size, " is smaller than ", count, " x ", each,
                     " = ", total, " bytes");
        };
        need(rows, rows_size, t->row_bytes, "rows");
        need(paths, paths_size, t->path_len() * t->digest_bytes(), "paths");
        const uint64_t H = t->leaf_count();
        for (uint64_t i = 0; i < count; ++i)
            if (indices[i] >= H)
                fail(GP_ERR_INVALID_ARGUMENT, "indices[", i, "] = ", indices[i], " is past the end of the tree (",
                     H, " leaves)");
        if (!rows && !paths) return;
        // The caller may have destroyed a committed matrix: rows are then
        // a status, paths still come from the tree's nodes.
        const size_t dead = first_dead_committed(*t);
        if (rows && dead < t->committed.size())
            fail(GP_ERR_INVALID_ARGUMENT, "committed matrix ", dead, " of `tree` (in commit order) was destroyed, so ",
                 "rows cannot be opened (keep the matrices alive while rows are opened; paths, the root and the cap ",
                 "need only the tree)");
        if (!t->source && dead == t->committed.size()) {
            t->ctx->backend->merkle_open(*t, indices, count, rows, paths);
            return;
        }
        // Paths from the nodes alone; for a streamed tree without its LDE on
        // the device, rows from where the source keeps them.
        if (paths) {
            MerkleTree nodes_only = *t;
            nodes_only.committed.clear();
            t->ctx->backend->merkle_open(nodes_only, indices, count, nullptr, paths);
        }
        if (rows) stream_open_rows(*t, indices, count, rows);
    });
}

GP_EXPORT gp_status gp_merkle_verify(const gp_merkle_options *options, gp_field field, const gp_matrix_dims *dims,
                                     uint32_t count, const void *cap, uint64_t cap_size, uint64_t index,
                                     const void *rows, uint64_t rows_size, const void *path, uint64_t path_size) {
    return guard("gp_merkle_verify", [&] {
        GP_REQUIRE_PTR(dims);
        GP_REQUIRE_PTR(cap);
        if (rows_size) GP_REQUIRE_PTR(rows);  // a row of width-0 matrices is empty
        if (count == 0) fail(GP_ERR_INVALID_ARGUMENT, "count = 0 (a tree needs at least one matrix)");
        gp_merkle_options o = read_options(options, gp_merkle_options_init, "gp_merkle_options");
        merkle_verify_opening(o, field_desc(field), dims, count, cap, cap_size, index, rows, rows_size, path,
                              path_size);
    });
}

GP_EXPORT void gp_merkle_tree_destroy(gp_merkle_tree *tree) {
    if (!tree || !is_live(tree, HandleKind::Tree)) return;
    quietly("gp_merkle_tree_destroy", [&] {
        ContextCall call(tree, HandleKind::Tree, "tree");
        call.refuse_if_nested("gp_merkle_tree_destroy");
        release_tree(tree_of(tree));
    });
}
