// SPDX-License-Identifier: MIT OR Apache-2.0
// Merkle commitments against the Backend interface (see merkle_tree.h).
#include "core/merkle_tree.h"

#include <algorithm>
#include <cstring>
#include <memory>
#include <string>

#include "core/checks.h"
#include "core/merkle_ops.h"
#include "hash/permutations.h"

namespace gp {

const char *merkle_kind_name(int kind) {
    switch (kind) {
        case GP_MERKLE_FIELD_SPONGE: return "GP_MERKLE_FIELD_SPONGE";
        case GP_MERKLE_MIDEN: return "GP_MERKLE_MIDEN";
        case GP_MERKLE_MIDEN_V0_11: return "GP_MERKLE_MIDEN_V0_11";
        case GP_MERKLE_MIDEN_V0_10: return "GP_MERKLE_MIDEN_V0_10";
        case GP_MERKLE_KECCAK_PLONKY3: return "GP_MERKLE_KECCAK_PLONKY3";
        case GP_MERKLE_KECCAK_BE: return "GP_MERKLE_KECCAK_BE";
        case GP_MERKLE_KECCAK_U64: return "GP_MERKLE_KECCAK_U64";
        case GP_MERKLE_TRITON: return "GP_MERKLE_TRITON";
        case GP_MERKLE_TRITON_DIGEST: return "GP_MERKLE_TRITON_DIGEST";
        case GP_MERKLE_MIDEN_LMCS: return "GP_MERKLE_MIDEN_LMCS";
        case GP_MERKLE_WINTERFELL: return "GP_MERKLE_WINTERFELL";
        default: return nullptr;
    }
}

// Validates a Merkle profile for matrices over `f` (named by `what`).
TreeSpec tree_spec(const gp_merkle_options &o, const FieldDesc &f, const char *what) {
    if (o.leaf_rows > 2)
        fail(GP_ERR_INVALID_ARGUMENT, "options->leaf_rows = ", o.leaf_rows, ": a leaf hashes 1 row or 2 (0 means 1)");
    TreeSpec s;
    s.kind = raw(o.kind);
    const char *kname = merkle_kind_name(s.kind);
    if (!kname) fail(GP_ERR_INVALID_ARGUMENT, "options->kind = ", s.kind, " is not a gp_merkle_kind");
    s.perm = raw(o.perm);
    const PermShape p = perm_shape(s.perm, "options->perm");
    const int pfield = perm::field_of(s.perm);
    auto fixed_digest = [&](uint32_t words) {
        if (o.digest != 0 || o.rate != 0)
            fail(GP_ERR_INVALID_ARGUMENT, "options->digest = ", o.digest, ", options->rate = ", o.rate,
                 ": ", kname, " has a fixed digest and rate; leave both 0");
        s.digest = words;
        s.word_size = 8;
    };
    switch (s.kind) {
        case GP_MERKLE_FIELD_SPONGE: {
            if (const char *hash = perm::hash_name(s.perm))
                fail(GP_ERR_INVALID_ARGUMENT, "options->perm = ", hash, " is a hash, not a sponge permutation (",
                     s.perm == GP_PERM_BLAKE3 ? "GP_MERKLE_MIDEN_LMCS and GP_MERKLE_WINTERFELL take it"
                                              : "GP_MERKLE_WINTERFELL takes it",
                     ")");
            if (s.perm == GP_PERM_RP64_256)
                fail(GP_ERR_UNSUPPORTED, "options->perm = GP_PERM_RP64_256 is winterfell's hash: GP_MERKLE_WINTERFELL "
                                         "takes it (its sponge adds the row into the rate after a length tag)");
            if (pfield == 0)
                fail(GP_ERR_INVALID_ARGUMENT, "options->perm = ", perm_label(s.perm),
                     " (Keccak-f) has no field sponge: use GP_MERKLE_KECCAK_U64 (its sponge over 64-bit lanes), "
                     "GP_MERKLE_KECCAK_PLONKY3 or GP_MERKLE_KECCAK_BE");
            s.field = pfield;
            s.word_size = p.elem_size;
            s.digest = o.digest ? o.digest : (p.elem_size == 8 ? 4 : 8);
            if (s.digest > p.width / 2)
                fail(GP_ERR_INVALID_ARGUMENT, "options->digest = ", s.digest, ": two digests exceed the width ",
                     p.width, " of the permutation");
            uint32_t cwidth = p.width;
            if (raw(o.compress_perm) != 0 && raw(o.compress_perm) != s.perm) {
                s.compress_perm = raw(o.compress_perm);
                const PermShape c = perm_shape(s.compress_perm, "options->compress_perm");
                const bool offered = (s.perm == GP_PERM_POSEIDON2_BABYBEAR_24 &&
                                      s.compress_perm == GP_PERM_POSEIDON2_BABYBEAR_16) ||
                                     (s.perm == GP_PERM_POSEIDON2_KOALABEAR_24 &&
                                      s.compress_perm == GP_PERM_POSEIDON2_KOALABEAR_16) ||
                                     ((s.perm == GP_PERM_POSEIDON2_GOLDILOCKS_12 ||
                                       s.perm == GP_PERM_POSEIDON2_GOLDILOCKS_16) &&
                                      s.compress_perm == GP_PERM_POSEIDON2_GOLDILOCKS_8);
                if (!offered)
                    fail(GP_ERR_UNSUPPORTED, "options->compress_perm = ", perm_label(s.compress_perm), " with options->perm = ",
                         perm_label(s.perm),
                         ": the offered sponge -> compression pairs are Poseidon2 BabyBear 24 -> 16, KoalaBear "
                         "24 -> 16 and Goldilocks 12 or 16 -> 8");
                cwidth = c.width;
            }
            if (s.digest > cwidth / 2)
                fail(GP_ERR_INVALID_ARGUMENT, "options->digest = ", s.digest,
                     ": two digests exceed the width ", cwidth, " of the compression");
            s.rate = o.rate ? o.rate : p.width - s.digest;
            // Plonky3's PaddingFreeSponge: 0 < OUT <= RATE < WIDTH.
            if (s.rate >= p.width)
                fail(GP_ERR_INVALID_ARGUMENT, "options->rate = ", s.rate,
                     " must be below the permutation's width ", p.width);
            if (s.digest > s.rate)
                fail(GP_ERR_INVALID_ARGUMENT, "options->digest = ", s.digest, " exceeds the sponge rate ", s.rate);
            break;
        }
        case GP_MERKLE_MIDEN:
        case GP_MERKLE_MIDEN_V0_11:
        case GP_MERKLE_MIDEN_V0_10:
            if (s.kind == GP_MERKLE_MIDEN &&
                (s.perm == GP_PERM_POSEIDON2_GOLDILOCKS_12 || s.perm == GP_PERM_POSEIDON2_GOLDILOCKS_HL_12)) {
                // miden-crypto v0.22 and later merge with Poseidon2
            } else if (s.perm != GP_PERM_RPO256 && s.perm != GP_PERM_RPX256) {
                fail(GP_ERR_INVALID_ARGUMENT, "options->perm = ", perm_label(s.perm), ": ", kname,
                     " hashes with GP_PERM_RPO256 or GP_PERM_RPX256",
                     s.kind == GP_MERKLE_MIDEN ? " (or, as miden-crypto v0.22 and later, "
                                                 "GP_PERM_POSEIDON2_GOLDILOCKS_12 or _HL_12)"
                                               : "");
            }
            s.field = GP_FIELD_GOLDILOCKS;
            fixed_digest(4);
            break;
        case GP_MERKLE_MIDEN_LMCS:
            if (s.perm != GP_PERM_RPO256 && s.perm != GP_PERM_RPX256 && s.perm != GP_PERM_POSEIDON2_GOLDILOCKS_12 &&
                s.perm != GP_PERM_KECCAK_F1600 && s.perm != GP_PERM_BLAKE3)
                fail(GP_ERR_INVALID_ARGUMENT, "options->perm = ", perm_label(s.perm), ": ", kname,
                     " hashes with GP_PERM_BLAKE3, GP_PERM_RPO256, GP_PERM_RPX256, GP_PERM_POSEIDON2_GOLDILOCKS_12 "
                     "or GP_PERM_KECCAK_F1600 (Miden's configurations)");
            s.field = GP_FIELD_GOLDILOCKS;
            fixed_digest(4);
            break;
        case GP_MERKLE_WINTERFELL:
            if (s.perm != GP_PERM_SHA3_256 && s.perm != GP_PERM_BLAKE3 && s.perm != GP_PERM_BLAKE3_192 &&
                s.perm != GP_PERM_RP64_256)
                fail(GP_ERR_INVALID_ARGUMENT, "options->perm = ", perm_label(s.perm), ": ", kname,
                     " hashes with GP_PERM_SHA3_256, GP_PERM_BLAKE3, GP_PERM_BLAKE3_192 or GP_PERM_RP64_256 "
                     "(winter-crypto's Sha3_256, Blake3_256, Blake3_192, Rp64_256)");
            s.field = GP_FIELD_GOLDILOCKS;
            fixed_digest(s.perm == GP_PERM_BLAKE3_192 ? 3 : 4);  // 24 bytes, or 32
            break;
        case GP_MERKLE_TRITON:
        case GP_MERKLE_TRITON_DIGEST:
            if (s.perm != GP_PERM_TIP5)
                fail(GP_ERR_INVALID_ARGUMENT, "options->perm = ", perm_label(s.perm), ": ", kname,
                     " hashes with Tip5; set GP_PERM_TIP5");
            s.field = GP_FIELD_GOLDILOCKS;
            fixed_digest(5);
            break;
        case GP_MERKLE_KECCAK_PLONKY3:
        case GP_MERKLE_KECCAK_BE:
        case GP_MERKLE_KECCAK_U64:
            if (s.perm != GP_PERM_KECCAK_F1600)
                fail(GP_ERR_INVALID_ARGUMENT, "options->perm = ", perm_label(s.perm), ": ", kname,
                     " hashes with Keccak-256; set GP_PERM_KECCAK_F1600");
            s.field = (int)f.id;
            if (s.kind == GP_MERKLE_KECCAK_BE && f.id != FieldId::Goldilocks)
                fail(GP_ERR_UNSUPPORTED, what, " are over ", f.name, ": ", kname,
                     " is defined for Goldilocks (lambdaworks writes 31-bit base fields in Montgomery form"
                     " and their extensions canonically)");
            fixed_digest(4);
            break;
    }
    if (s.kind != GP_MERKLE_FIELD_SPONGE && raw(o.compress_perm) != 0)
        fail(GP_ERR_INVALID_ARGUMENT, "options->compress_perm = ", perm_label(raw(o.compress_perm)), ": ", kname,
             " has one fixed hash; leave it 0");
    if (s.field != (int)f.id)
        fail(GP_ERR_FIELD_MISMATCH, what, " are over ", f.name, " but ", kname, " with options->perm = ", perm_label(s.perm),
             " hashes ", field_desc((gp_field)s.field).name, " elements");
    return s;
}

TreePlan plan_tree(const TreeSpec &s, const std::vector<uint64_t> &heights, uint32_t cap_height,
                   const char *what) {
    TreePlan p;
    // Plonky3's MMCS commits any heights on one ladder (below); the other
    // kinds take powers of two, of one height.
    const bool mmcs =
        s.kind == GP_MERKLE_FIELD_SPONGE || s.kind == GP_MERKLE_KECCAK_PLONKY3 || s.kind == GP_MERKLE_KECCAK_U64;
    const bool lifted = s.kind == GP_MERKLE_MIDEN_LMCS;
    uint64_t hi = 0, lo = ~0ull;
    for (size_t i = 0; i < heights.size(); ++i) {
        if (heights[i] == 0) fail(GP_ERR_INVALID_ARGUMENT, what, "[", i, "] has 0 rows");
        if (heights[i] > (1ull << 62))
            fail(GP_ERR_INVALID_ARGUMENT, what, "[", i, "] has ", heights[i], " rows; a tree has at most 2^62 leaves");
        if (!mmcs && !is_pow2(heights[i]))
            fail(GP_ERR_INVALID_ARGUMENT, what, "[", i, "] has ", heights[i], " rows, not a power of two (",
                 merkle_kind_name(s.kind), " trees)");
        if (lifted && i > 0 && heights[i] < heights[i - 1])
            fail(GP_ERR_SHAPE_MISMATCH, what, "[", i, "] has ", heights[i], " rows, fewer than ", what, "[", i - 1,
                 "] (", heights[i - 1], "): ", merkle_kind_name(s.kind),
                 " takes matrices in ascending order of height, the order its leaves absorb them");
        hi = std::max(hi, heights[i]);
        lo = std::min(lo, heights[i]);
    }
    if (lifted) {  // every matrix lifted into every leaf: no injection, the order kept
        p.log_h = log2_ceil(hi);
        if (cap_height > p.log_h)
            fail(GP_ERR_INVALID_ARGUMENT, "options->cap_height = ", cap_height, " exceeds the tree's height (",
                 p.log_h, " layers above ", hi, " leaves)");
        p.order.resize(heights.size());
        for (uint32_t i = 0; i < heights.size(); ++i) p.order[i] = i;
        const uint32_t n = (uint32_t)heights.size();
        p.groups.assign(p.log_h + 1, {n, n});
        p.groups[0] = {0, n};
        return p;
    }
    if (!mmcs && hi != lo)
        fail(GP_ERR_SHAPE_MISMATCH, merkle_kind_name(s.kind), " commits matrices of one height; ", what,
             " have heights from ", lo, " to ", hi);
    if (s.kind == GP_MERKLE_WINTERFELL && hi < 2)
        fail(GP_ERR_SHAPE_MISMATCH, what, " have ", hi, " row: winterfell's MerkleTree (", merkle_kind_name(s.kind),
             ") has two leaves or more");
    p.log_h = log2_ceil(hi);
    p.leaves = is_pow2(hi) ? 0 : hi;
    // The ladder: a matrix is injected at the layer k whose length
    // ceil(hi / 2^k) is its height, so a height must be one of those (as
    // Plonky3's MMCS requires: 12 takes 6, 3, 2 and 1 below it, not 5).
    for (size_t i = 0; i < heights.size(); ++i) {
        const uint32_t k = p.log_h - log2_ceil(heights[i]);
        if (heights[i] != merkle_layer_rows(hi, k))
            fail(GP_ERR_SHAPE_MISMATCH, what, "[", i, "] has ", heights[i], " rows, which a tree over ", hi,
                 " rows cannot inject (heights below ", hi, " must be ceil(", hi, " / 2^k): the nearest is ",
                 merkle_layer_rows(hi, k), ")");
    }
    if (cap_height > log2_ceil(lo)) {
        if (hi == lo)
            fail(GP_ERR_INVALID_ARGUMENT, "options->cap_height = ", cap_height, " exceeds the tree's height (",
                 p.log_h, " layers above ", hi, " leaves)");
        fail(GP_ERR_INVALID_ARGUMENT, "options->cap_height = ", cap_height, " exceeds log2 of the least height ",
             lo, ": the rows of a matrix shorter than the cap would not be bound by it");
    }
    p.order.resize(heights.size());
    for (uint32_t i = 0; i < heights.size(); ++i) p.order[i] = i;
    std::stable_sort(p.order.begin(), p.order.end(),
                     [&](uint32_t x, uint32_t y) { return heights[x] > heights[y]; });
    p.groups.assign(p.log_h + 1, {0, 0});
    for (uint32_t k = 0, m = 0; k <= p.log_h; ++k) {
        uint32_t m0 = m;
        while (m < p.order.size() && heights[p.order[m]] == merkle_layer_rows(hi, k)) ++m;
        p.groups[k] = {m0, m};
    }
    return p;
}

// Validates a profile for matrices (of one field); fills `a` (spec, sorted
// matrices, groups, log_h).
void plan_request(const std::vector<const Buffer *> &mats, const gp_merkle_options &o, bool leaves_only,
                  MerkleArgs &a) {
    std::vector<uint64_t> heights;
    for (const Buffer *b : mats) heights.push_back(b->rows);
    a.spec = tree_spec(o, *mats[0]->field, "the matrices");
    a.leaves_only = leaves_only;
    if (leaves_only) {
        for (size_t i = 1; i < heights.size(); ++i)
            if (heights[i] != heights[0])
                fail(GP_ERR_SHAPE_MISMATCH, "matrices[", i, "] has ", heights[i], " rows but matrices[0] has ",
                     heights[0], ": rows are hashed across matrices of one height");
    }
    TreePlan p = plan_tree(a.spec, heights, leaves_only ? 0 : o.cap_height, "the matrices");
    uint64_t row_elems = 0;
    for (const Buffer *b : mats) row_elems += b->base_cols();
    check_leaf_width(o, row_elems, "a row of the matrices");
    a.cap_height = leaves_only ? 0 : o.cap_height;
    a.log_h = p.log_h;
    a.leaves = p.leaves;
    a.groups = p.groups;
    for (uint32_t i : p.order) a.mats.push_back(mats[i]);
}

void check_leaf_width(const gp_merkle_options &o, uint64_t row_elems, const char *what) {
    if (raw(o.kind) == GP_MERKLE_TRITON_DIGEST && row_elems > 5)
        fail(GP_ERR_SHAPE_MISMATCH, what, " holds ", row_elems,
             " base elements; GP_MERKLE_TRITON_DIGEST takes a leaf's elements as its digest (at most 5)");
    // BLAKE3's chunk tree is held to 2^24 chunks of 1 KiB (blake3::kMaxDepth).
    const bool blake3 = raw(o.perm) == GP_PERM_BLAKE3 || raw(o.perm) == GP_PERM_BLAKE3_192;
    if ((raw(o.kind) == GP_MERKLE_MIDEN_LMCS || raw(o.kind) == GP_MERKLE_WINTERFELL) && blake3 &&
        row_elems > (1ull << 30))
        fail(GP_ERR_SHAPE_MISMATCH, what, " holds ", row_elems,
             " base elements; BLAKE3 leaves take at most 2^30 (8 GiB) per row");
}

void one_row_per_leaf(const gp_merkle_options &o, const char *where) {
    if (o.leaf_rows > 1)
        fail(GP_ERR_UNSUPPORTED, "options->leaf_rows = ", o.leaf_rows, ": ", where,
             " hashes one row per leaf (two rows per leaf is for gp_merkle_commit, gp_merkle_hash_rows and "
             "gp_merkle_verify)");
}

namespace {

// The even-or-odd half of a height: leaf_rows = 2 needs one even height.
uint64_t paired_height(const std::vector<uint64_t> &heights, const char *what) {
    for (size_t i = 0; i < heights.size(); ++i)
        if (heights[i] != heights[0])
            fail(GP_ERR_SHAPE_MISMATCH, "options->leaf_rows = 2 pairs the rows of matrices of one height; ", what,
                 "[", i, "] has ", heights[i], " rows, ", what, "[0] ", heights[0]);
    if (heights[0] < 2 || heights[0] % 2)
        fail(GP_ERR_SHAPE_MISMATCH, "options->leaf_rows = 2 pairs rows 2i and 2i + 1; ", what, " have ", heights[0],
             " rows, not an even number");
    return heights[0] / 2;
}

// leaf_rows = 2: the matrices as the tree commits them, one row per leaf:
// the even rows of each matrix, then the odd rows of each (Backend::
// copy_rows), so that leaf i hashes row 2i of every matrix, then row 2i + 1
// of every matrix. `owner` releases the copies.
std::vector<const Buffer *> paired_rows(Context *c, const std::vector<const Buffer *> &mats,
                                        std::shared_ptr<void> &owner) {
    std::vector<uint64_t> heights;
    for (const Buffer *b : mats) heights.push_back(b->rows);
    const uint64_t half = paired_height(heights, "the matrices");
    auto *made = new std::vector<Buffer *>;
    owner = std::shared_ptr<void>(made, [](void *p) {
        auto *v = static_cast<std::vector<Buffer *> *>(p);
        for (Buffer *b : *v) release_buffer(b);
        delete v;
    });
    std::vector<const Buffer *> out;
    for (uint64_t start : {0, 1})
        for (const Buffer *m : mats) {
            made->push_back(new_buffer(c, *m->field, m->ext, half, m->cols));
            for (uint64_t j = 0; j < m->cols; ++j) c->backend->copy_rows(*m, j, start, 2, half, *made->back(), j);
            out.push_back(made->back());
        }
    return out;
}

}  // namespace

// Commits validated matrices and registers the tree with the context.
MerkleTree *commit_matrices(Context *c, const std::vector<const Buffer *> &given, const gp_merkle_options &o) {
    std::shared_ptr<void> owned;
    tree_spec(o, *given[0]->field, "the matrices");  // fail before any copy
    const std::vector<const Buffer *> committed = o.leaf_rows == 2 ? paired_rows(c, given, owned) : given;
    MerkleArgs a;
    plan_request(committed, o, false, a);
    const uint64_t H = 1ull << a.log_h;
    uint64_t words = checked_mul(2 * H - 1, a.spec.digest, "tree nodes * digest");
    uint64_t bytes = checked_mul(words, a.spec.word_size, "tree bytes");
    auto t = std::make_unique<MerkleTree>();
    t->ctx = c;
    t->spec = a.spec;
    t->cap_height = a.cap_height;
    t->log_h = a.log_h;
    t->leaves = a.leaves;
    t->committed = committed;
    note_committed(*t);
    t->owned = owned;
    t->nodes = c->backend->alloc_buffer(bytes);
    try {
        c->backend->merkle_commit(a, *t);
        adopt_tree(t.get());
    } catch (...) {
        c->backend->free_buffer(t->nodes);
        throw;
    }
    return t.release();
}

void hash_rows(Context *c, const std::vector<const Buffer *> &given, const gp_merkle_options &o, void *digests,
               uint64_t size_bytes) {
    std::shared_ptr<void> owned;
    tree_spec(o, *given[0]->field, "the matrices");  // fail before any copy
    const std::vector<const Buffer *> mats = o.leaf_rows == 2 ? paired_rows(c, given, owned) : given;
    MerkleArgs a;
    plan_request(mats, o, true, a);
    GP_REQUIRE_PTR(digests);
    const uint64_t H = a.leaf_count();
    const uint64_t bytes = checked_mul(checked_mul(H, a.spec.digest, "rows * digest"), a.spec.word_size,
                                       "digest bytes");
    if (size_bytes < bytes)
        fail(GP_ERR_INVALID_ARGUMENT, "size_bytes = ", size_bytes, " is smaller than the ", H, " digests (",
             bytes, " bytes)");
    MerkleTree t;
    t.ctx = c;
    t.spec = a.spec;
    t.log_h = a.log_h;
    t.leaves = a.leaves;
    t.nodes = c->backend->alloc_buffer(bytes);
    try {
        c->backend->merkle_commit(a, t);
        c->backend->read_tree(t, 0, digests, bytes);
    } catch (...) {
        c->backend->free_buffer(t.nodes);
        throw;
    }
    c->backend->free_buffer(t.nodes);
}

void read_digests(const MerkleTree &t, uint32_t k, uint64_t bytes, void *out) {
    t.ctx->backend->read_tree(t, merkle_layer_offset(t.log_h, k) * t.digest_bytes(), out, bytes);
}

void read_cap(const MerkleTree &t, void *out) { read_digests(t, t.cap_layer(), t.cap_bytes(), out); }

uint64_t opened_row_bytes(const std::vector<const Buffer *> &mats) {
    uint64_t n = 0;
    for (const Buffer *b : mats) n = checked_add(n, checked_mul(b->base_cols(), b->field->elem_size, "row"), "row");
    return n;
}

void note_committed(MerkleTree &t) {
    t.row_bytes = opened_row_bytes(t.committed);
    t.one_height = true;
    for (const Buffer *b : t.committed) t.one_height = t.one_height && b->rows == t.committed[0]->rows;
    t.committed_serials.clear();
    for (const Buffer *b : t.committed) t.committed_serials.push_back(b->serial);
}

size_t first_dead_committed(const MerkleTree &t) {
    if (t.source) return t.committed.size();
    for (size_t i = 0; i < t.committed.size(); ++i) {
        // The pointer is only read once the context knows it as a live
        // buffer; the serial tells a later buffer at the same address.
        Buffer *b = const_cast<Buffer *>(t.committed[i]);
        if (!t.ctx->buffers.count(b) || b->serial != t.committed_serials[i]) return i;
    }
    return t.committed.size();
}

void merkle_verify_opening(const gp_merkle_options &o, const FieldDesc &f, const gp_matrix_dims *dims,
                           uint32_t count, const void *cap, uint64_t cap_size, uint64_t index, const void *rows,
                           uint64_t rows_size, const void *path, uint64_t path_size) {
    TreeSpec s = tree_spec(o, f, "the matrices");
    std::vector<uint64_t> heights(count);
    uint64_t row_elems = 0;
    for (uint32_t i = 0; i < count; ++i) {
        std::string arg = "dims[" + std::to_string(i) + "]";
        check_ext_degree(f, dims[i].ext_degree, (arg + ".ext_degree").c_str());
        heights[i] = dims[i].rows;
        if (__builtin_add_overflow(row_elems, (uint64_t)dims[i].cols * dims[i].ext_degree, &row_elems))
            fail(GP_ERR_SIZE_OVERFLOW, "the row length of dims[0..", i, "] overflows 64 bits");
    }
    if (o.leaf_rows == 2) {  // the committed matrices: even rows of each, then odd rows of each
        const uint64_t half = paired_height(heights, "dims");
        std::vector<gp_matrix_dims> paired;
        for (int pass = 0; pass < 2; ++pass)
            for (uint32_t i = 0; i < count; ++i) paired.push_back({half, dims[i].cols, dims[i].ext_degree});
        gp_merkle_options one = o;
        one.leaf_rows = 1;
        merkle_verify_opening(one, f, paired.data(), 2 * count, cap, cap_size, index, rows, rows_size, path,
                              path_size);
        return;
    }
    TreePlan p = plan_tree(s, heights, o.cap_height, "dims");
    check_leaf_width(o, row_elems, "a row of dims");
    const uint64_t leaves = p.leaves ? p.leaves : 1ull << p.log_h;
    if (index >= leaves)
        fail(GP_ERR_INVALID_ARGUMENT, "index = ", index, " is past the end of the tree (", leaves, " leaves)");
    const uint64_t dbytes = (uint64_t)s.digest * s.word_size;
    const uint32_t len = p.log_h - o.cap_height;
    auto exact = [](uint64_t got, uint64_t want, const char *what) {
        if (got != want)
            fail(GP_ERR_SHAPE_MISMATCH, what, " = ", got, " bytes, but the shapes give ", want);
    };
    exact(cap_size, dbytes * merkle_padded_rows(merkle_layer_rows(leaves, len)), "cap_size");
    exact(rows_size, checked_mul(row_elems, f.elem_size, "row elements * element size"), "rows_size");
    exact(path_size, len * dbytes, "path_size");
    if (len) GP_REQUIRE_PTR(path);
    check_canonical(f, rows, 0, row_elems, "rows");
    bool ok = false;
    tree_dispatch(s, [&](auto h) {
        using H = decltype(h);
        using T = typename H::T;
        using W = typename H::W;
        // Each matrix's opened row as a one-row view, sorted as committed.
        std::vector<MatView<T>> views(count);
        const T *at = static_cast<const T *>(rows);
        std::vector<const T *> starts(count);
        for (uint32_t i = 0; i < count; ++i) {
            starts[i] = at;
            at += (uint64_t)dims[i].cols * dims[i].ext_degree;
        }
        for (uint32_t m = 0; m < count; ++m) {
            uint32_t i = p.order[m];
            views[m] = {starts[i], 1, (uint64_t)dims[i].cols * dims[i].ext_degree, 1};
        }
        W node[H::kMaxDigest], sib[H::kMaxDigest], inj[H::kMaxDigest];
        h.hash_row(views.data(), p.groups[0].first, p.groups[0].second, 0, node);
        for (uint32_t k = 1; k <= len; ++k) {
            std::memcpy(sib, static_cast<const char *>(path) + (k - 1) * dbytes, dbytes);
            if ((index >> (k - 1)) & 1) h.compress(sib, node, node);
            else h.compress(node, sib, node);
            if (p.groups[k].first < p.groups[k].second) {
                h.hash_row(views.data(), p.groups[k].first, p.groups[k].second, 0, inj);
                h.compress(node, inj, node);
            }
        }
        ok = std::memcmp(node, static_cast<const char *>(cap) + (index >> len) * dbytes, dbytes) == 0;
    });
    if (!ok)
        fail(GP_ERR_VERIFY_FAILED, "the opening of index ", index, " does not hash to cap digest ", index >> len);
}

}  // namespace gp
