// SPDX-License-Identifier: MIT OR Apache-2.0
// The FRI commitment against the Backend interface (see fri.h).
#include "core/fri.h"

#include <algorithm>
#include <cstring>
#include <string>

#include "core/checks.h"
#include "core/fri_ops.h"
#include "core/merkle_tree.h"
#include "core/registry.h"
#include "math/ext.h"
#include "math/field.h"

namespace gp {

FriShape fri_shape(const gp_fri_options &o, const FieldDesc &f, uint32_t ext, uint64_t n) {
    FriShape s;
    s.o = o;
    s.o.merkle.struct_size = sizeof(gp_merkle_options);  // embedded: same version as the outer struct
    s.f = &f;
    s.ext = ext;
    if (s.o.arity != 2 && s.o.arity != 4 && s.o.arity != 8)
        fail(GP_ERR_INVALID_ARGUMENT, "options->arity = ", s.o.arity, " (FRI folds with arity 2, 4 or 8)");
    s.log_a = log2_exact(s.o.arity);
    if (!is_pow2(n) || n < 2) fail(GP_ERR_INVALID_ARGUMENT, "the codeword has ", n, " elements, not a power of two >= 2");
    s.log_n = check_log_size(f, n, "codeword size");
    if (!is_pow2(s.o.final_size))
        fail(GP_ERR_INVALID_ARGUMENT, "options->final_size = ", s.o.final_size, " is not a power of two");
    if (s.o.final_size >= n)
        fail(GP_ERR_INVALID_ARGUMENT, "options->final_size = ", s.o.final_size, " is not below the codeword size ", n);
    s.log_final = log2_exact(s.o.final_size);
    if ((s.log_n - s.log_final) % s.log_a != 0)
        fail(GP_ERR_INVALID_ARGUMENT, "options->final_size = ", s.o.final_size, " is not reached from ", n,
             " by folds of arity ", s.o.arity);
    s.layers = (s.log_n - s.log_final) / s.log_a;
    check_order(s.o.order, "options->order");
    s.bitrev = raw(s.o.order) == GP_ORDER_BIT_REVERSED;
    const int fold = raw(s.o.fold);
    if (fold != GP_FRI_FOLD_HALVED && fold != GP_FRI_FOLD_UNHALVED)
        fail(GP_ERR_INVALID_ARGUMENT, "options->fold = ", fold, " is not a gp_fri_fold_kind");
    s.halve = fold == GP_FRI_FOLD_HALVED;
    if (s.o.shift == 0 || s.o.shift >= f.modulus)
        fail(GP_ERR_INVALID_ARGUMENT, "options->shift = ", s.o.shift, " is not a nonzero canonical ", f.name,
             " element");
    s.shift = s.o.shift;
    s.ext_kind = check_extension(f, ext, raw(s.o.extension), "options->extension");
    const int leaf = raw(s.o.leaf);
    if (leaf != GP_FRI_LEAF_GROUP && leaf != GP_FRI_LEAF_ELEMENT)
        fail(GP_ERR_INVALID_ARGUMENT, "options->leaf = ", leaf, " is not a gp_fri_leaf");
    s.log_leaf = leaf == GP_FRI_LEAF_ELEMENT ? 0 : s.log_a;
    tree_spec(s.o.merkle, f, "the FRI layers");
    one_row_per_leaf(s.o.merkle, "the FRI commitment");
    check_leaf_width(s.o.merkle, (uint64_t)ext << s.log_leaf, "a FRI layer's leaf");
    // The last committed layer has final_size * arity elements; refused here,
    // before any layer is committed, rather than at the fold that needs it.
    const uint32_t log_last_leaves = s.log_final + s.log_a - s.log_leaf;
    if (raw(s.o.merkle.kind) == GP_MERKLE_WINTERFELL && log_last_leaves == 0)
        fail(GP_ERR_INVALID_ARGUMENT, "options->final_size = ", s.o.final_size,
             " with one group per leaf leaves the last committed layer's tree a single leaf; winterfell's "
             "MerkleTree (options->merkle.kind = GP_MERKLE_WINTERFELL) has two leaves or more");
    if (s.o.merkle.cap_height > s.log_final)
        fail(GP_ERR_INVALID_ARGUMENT, "options->merkle.cap_height = ", s.o.merkle.cap_height,
             " exceeds log2(final_size) = ", s.log_final, ", the height of the last committed layer's tree");
    return s;
}

FriState::FriState(Context *c) : ctx(c) {
    c->fris.insert(this);
    try {
        register_handle(this, HandleKind::Fri, c);
    } catch (...) {
        c->fris.erase(this);
        throw;
    }
}

FriState::~FriState() {
    unregister_handle(this);
    ctx->fris.erase(this);
    for (MerkleTree *t : trees) release_tree(t);
    for (Buffer *b : bufs) release_buffer(b);
}

uint64_t FriState::cap_size() const { return trees[0]->cap_bytes(); }

namespace {

// Bytes of one query's opening: per layer k, the group (arity values of
// elem_bytes) and one path per leaf the group spans (1, or arity with one
// value per leaf), each (log2 of the layer's leaves - cap_height) digests.
uint64_t fri_opening_bytes(uint32_t log_n, uint32_t log_a, uint32_t log_leaf, uint32_t layers, uint32_t cap_height,
                           uint64_t elem_bytes, uint64_t digest_bytes) {
    uint64_t total = 0;
    for (uint32_t k = 0; k < layers; ++k)
        total += (elem_bytes << log_a) +
                 ((uint64_t)1 << (log_a - log_leaf)) * (log_n - k * log_a - log_leaf - cap_height) * digest_bytes;
    return total;
}

// The tree row of member m of group g: the group's row, or with one value
// per leaf (log_leaf = 0) the member's position.
uint64_t fri_leaf_row(uint32_t log_nk, uint32_t log_a, uint32_t log_leaf, bool bitrev, uint64_t g, uint32_t m) {
    return log_leaf == log_a ? g : fri_member(log_nk, log_a, bitrev, g, m);
}

}  // namespace

uint64_t FriState::opening_size() const {  // every layer, committed yet or not
    return fri_opening_bytes(log_n, log_a, log_leaf, layers, trees[0]->cap_height, elem_bytes(),
                             trees[0]->digest_bytes());
}

namespace {

// Commits layer k (already in matrix form in fri->bufs[k]) and writes its cap.
void fri_commit_layer(FriState &fri, uint32_t k, void *cap, uint64_t cap_size) {
    MerkleTree *t = commit_matrices(fri.ctx, {fri.bufs[k]}, fri.mo);
    fri.trees.push_back(t);
    if (cap) {
        if (cap_size < t->cap_bytes())
            fail(GP_ERR_INVALID_ARGUMENT, "cap_size = ", cap_size, " is smaller than the cap (", t->cap_bytes(),
                 " bytes)");
        read_cap(*t, cap);
    }
}

// omega^-1 of 2^log_n, zeta^-1 of the arity, and shift^-(a^k), as raw words.
void fri_roots(const FieldDesc &f, uint32_t log_n, uint32_t log_a, uint64_t shift, uint32_t k, uint64_t &omega_inv,
               uint64_t &zeta_inv, uint64_t &shift_inv) {
    dispatch_field(f.id, [&](auto F) {
        using Fd = decltype(F);
        using T = typename Fd::T;
        const T w = two_adic_generator<Fd>(log_n);
        const T wi = finv<Fd>(w);
        omega_inv = wi;
        zeta_inv = fpow<Fd>(wi, 1ull << (log_n - log_a));
        T s = (T)shift;
        for (uint32_t i = 0; i < k * log_a; ++i) s = Fd::mul(s, s);  // shift^(a^k)
        shift_inv = finv<Fd>(s);
    });
}

uint64_t fri_path_bytes(const FriState &s, uint32_t k) {
    const MerkleTree *t = s.trees[k];
    return (uint64_t)t->path_len() * t->digest_bytes();
}

// Position of query q in layer k, and its group there.
uint64_t fri_position(uint32_t log_n, uint32_t log_a, bool bitrev, uint32_t k, uint64_t q) {
    return bitrev ? q >> (k * log_a) : q & ((1ull << (log_n - k * log_a)) - 1);
}

}  // namespace

std::unique_ptr<FriState> fri_begin(Context *c, const Buffer &cw, const FriShape &s, void *cap, uint64_t cap_size) {
    auto fri = std::make_unique<FriState>(c);
    fri->f = cw.field;
    fri->ext = cw.ext;
    fri->log_a = s.log_a;
    fri->log_n = s.log_n;
    fri->layers = s.layers;
    fri->bitrev = s.bitrev;
    fri->halve = s.halve;
    fri->shift = s.shift;
    fri->ext_kind = s.ext_kind;
    fri->log_leaf = s.log_leaf;
    fri->mo = s.o.merkle;
    fri->bufs.push_back(new_buffer(c, *cw.field, cw.ext, cw.rows >> s.log_leaf, 1ull << s.log_leaf, false));
    c->backend->fri_to_matrix(cw.field->elem_size, cw.ext, s.log_n, s.log_leaf, s.bitrev, cw.data, fri->bufs[0]->data);
    fri_commit_layer(*fri, 0, cap, cap_size);
    return fri;
}

void fri_fold(FriState &s, const void *beta, uint64_t beta_size, void *cap, uint64_t cap_size) {
    if (s.folded == s.layers)
        fail(GP_ERR_INVALID_ARGUMENT, "all ", s.layers, " layers are folded already");
    if (beta_size != s.elem_bytes())
        fail(GP_ERR_INVALID_ARGUMENT, "beta_size = ", beta_size, " bytes, but a challenge is one degree-", s.ext,
             " ", s.f->name, " element (", s.elem_bytes(), " bytes)");
    check_canonical(*s.f, beta, 0, s.ext, "beta");
    const uint32_t k = s.folded;
    FriFoldArgs a;
    a.field = s.f->id;
    a.ext = s.ext;
    a.log_n = s.log_layer(k);
    a.log_a = s.log_a;
    a.bitrev = s.bitrev;
    a.halve = s.halve;
    a.ext_kind = s.ext_kind;
    a.leaf_element = s.log_leaf == 0;
    a.final_out = k + 1 == s.layers;
    fri_roots(*s.f, a.log_n, a.log_a, s.shift, k, a.omega_inv, a.zeta_inv, a.shift_inv);
    const std::vector<uint64_t> bw = words_in(*s.f, beta, s.ext);
    std::copy(bw.begin(), bw.end(), a.beta);
    if (cap && !a.final_out && cap_size < s.cap_size())
        fail(GP_ERR_INVALID_ARGUMENT, "cap_size = ", cap_size, " is smaller than the cap (", s.cap_size(),
             " bytes)");
    a.in = s.bufs[k]->data;
    const uint64_t next = 1ull << (a.log_n - a.log_a);
    Buffer *out = a.final_out ? new_buffer(s.ctx, *s.f, s.ext, next, 1, false)
                              : new_buffer(s.ctx, *s.f, s.ext, next >> s.log_leaf, 1ull << s.log_leaf, false);
    a.out = out->data;
    try {
        s.ctx->backend->fri_fold(a);
        if (a.final_out) {  // kept on the host only
            s.remainder.resize(next * s.elem_bytes());
            s.ctx->backend->download(*out, s.remainder.data(), GP_LAYOUT_ROW_MAJOR);
            release_buffer(out);
        } else {
            s.bufs.push_back(out);
            fri_commit_layer(s, k + 1, cap, cap_size);
        }
    } catch (...) {
        if (!a.final_out && s.bufs.size() > k + 1) s.bufs.pop_back();
        if (s.trees.size() > k + 1) {
            release_tree(s.trees.back());
            s.trees.pop_back();
        }
        s.remainder.clear();
        release_buffer(out);
        throw;
    }
    s.folded++;
}

std::unique_ptr<FriState> fri_commit(Context *c, const Buffer &cw, const FriShape &s,
                                     gp_fri_challenge_fn challenge, void *user) {
    std::unique_ptr<FriState> fri = fri_begin(c, cw, s, nullptr, 0);
    std::vector<unsigned char> cap(fri->cap_size());
    read_cap(*fri->trees[0], cap.data());
    std::vector<unsigned char> beta(fri->elem_bytes());
    for (uint32_t k = 0; k < fri->layers; ++k) {
        c->monitor->poll("fri", k, fri->layers);
        // The callback is the caller's code: its status is read as an int
        // (an enum-typed load of a value outside gp_status is undefined).
        const int st = raw(challenge(user, k, cap.data(), cap.size(), beta.data(), beta.size()));
        if (st != GP_OK) {
            if (!is_status(st))
                fail(GP_ERR_INVALID_ARGUMENT, "the challenge callback returned ", st, " for layer ", k,
                     ", which is not a gp_status");
            fail(static_cast<gp_status>(st), "the challenge callback returned ", gp_status_name(static_cast<gp_status>(st)),
                 " for layer ", k);
        }
        fri_fold(*fri, beta.data(), beta.size(), cap.data(), cap.size());
    }
    return fri;
}

void fri_open(const FriState &s, const uint64_t *indices, uint64_t count, void *out, uint64_t size_bytes) {
    if (s.folded != s.layers)
        fail(GP_ERR_INVALID_ARGUMENT, s.folded, " of ", s.layers, " layers folded; open after the last fold");
    if (count == 0) return;
    GP_REQUIRE_PTR(indices);
    GP_REQUIRE_PTR(out);
    const uint64_t each = s.opening_size();
    const uint64_t need = checked_mul(count, each, "count * opening size");
    if (size_bytes < need)
        fail(GP_ERR_INVALID_ARGUMENT, "size_bytes = ", size_bytes, " is smaller than ", count, " x ", each, " = ",
             need, " bytes");
    const uint64_t n = 1ull << s.log_n;
    for (uint64_t i = 0; i < count; ++i)
        if (indices[i] >= n)
            fail(GP_ERR_INVALID_ARGUMENT, "indices[", i, "] = ", indices[i], " is past the end of the codeword (",
                 n, " elements)");
    // Per layer and query: the rows holding the group (its row, or one row
    // per member with one value per leaf), opened together.
    const uint64_t gbytes = s.elem_bytes() << s.log_a;
    const uint32_t per = s.paths_per_layer();
    uint64_t off = 0;
    std::vector<uint64_t> rows_at(count * per);
    std::vector<unsigned char> rows, paths;
    for (uint32_t k = 0; k < s.trees.size(); ++k) {
        const uint32_t log_nk = s.log_layer(k);
        for (uint64_t i = 0; i < count; ++i) {
            uint64_t g;
            uint32_t member;
            fri_slot(log_nk, s.log_a, s.bitrev, fri_position(s.log_n, s.log_a, s.bitrev, k, indices[i]), g, member);
            for (uint32_t m = 0; m < per; ++m)
                rows_at[i * per + m] = fri_leaf_row(log_nk, s.log_a, s.log_leaf, s.bitrev, g, m);
        }
        const uint64_t pb = fri_path_bytes(s, k);
        rows.resize(count * gbytes);
        paths.resize(count * per * pb);
        s.ctx->backend->merkle_open(*s.trees[k], rows_at.data(), count * per, rows.data(),
                                    pb ? paths.data() : nullptr);
        for (uint64_t i = 0; i < count; ++i) {
            unsigned char *dst = static_cast<unsigned char *>(out) + i * each + off;
            std::memcpy(dst, rows.data() + i * gbytes, gbytes);
            if (pb) std::memcpy(dst + gbytes, paths.data() + i * per * pb, per * pb);
        }
        off += gbytes + per * pb;
    }
}

void fri_verify(const FriShape &s, const void *caps, uint64_t caps_size, const void *betas, uint64_t betas_size,
                const void *remainder, uint64_t remainder_size, uint64_t index, const void *opening,
                uint64_t opening_size) {
    const FieldDesc &f = *s.f;
    const uint32_t ext_degree = s.ext;
    const uint64_t n = 1ull << s.log_n;
    const TreeSpec spec = tree_spec(s.o.merkle, f, "the FRI layers");
    const uint64_t eb = (uint64_t)ext_degree * f.elem_size, gbytes = eb << s.log_a;
    const uint64_t cap_bytes = ((uint64_t)spec.digest * spec.word_size) << s.o.merkle.cap_height;
    auto exact = [](uint64_t got, uint64_t want, const char *what) {
        if (got != want) fail(GP_ERR_SHAPE_MISMATCH, what, " = ", got, " bytes, but the shape gives ", want);
    };
    exact(caps_size, cap_bytes * s.layers, "caps_size");
    exact(betas_size, eb * s.layers, "betas_size");
    exact(remainder_size, eb << s.log_final, "remainder_size");
    const uint32_t per = 1u << (s.log_a - s.log_leaf);  // paths per layer
    const uint64_t dbytes = (uint64_t)spec.digest * spec.word_size;
    exact(opening_size, fri_opening_bytes(s.log_n, s.log_a, s.log_leaf, s.layers, s.o.merkle.cap_height, eb, dbytes),
          "opening_size");
    if (index >= n) fail(GP_ERR_INVALID_ARGUMENT, "index = ", index, " is past the end of the codeword (", n, ")");
    check_canonical(f, betas, 0, (uint64_t)ext_degree * s.layers, "betas");
    check_canonical(f, remainder, 0, (uint64_t)ext_degree << s.log_final, "remainder");
    const auto *op = static_cast<const unsigned char *>(opening);
    uint64_t off = 0;
    ext_dispatch(f.id, ext_degree, s.ext_kind, [&](auto F, auto Dc) {
        using Fd = decltype(F);
        using T = typename Fd::T;
        constexpr int D = decltype(Dc)::value;
        auto ext_at = [&](const void *base, uint64_t i) {
            Ext<Fd, D> e;
            std::memcpy(e.c, static_cast<const unsigned char *>(base) + i * eb, eb);
            return e;
        };
        for (uint32_t k = 0; k < s.layers; ++k) {
            const uint32_t log_nk = s.log_n - k * s.log_a;
            const uint64_t p = fri_position(s.log_n, s.log_a, s.bitrev, k, index);
            uint64_t g;
            uint32_t member;
            fri_slot(log_nk, s.log_a, s.bitrev, p, g, member);
            const uint64_t pb = (uint64_t)(log_nk - s.log_leaf - s.o.merkle.cap_height) * dbytes;
            const gp_matrix_dims dims = {1ull << (log_nk - s.log_leaf), 1u << s.log_leaf, ext_degree};
            try {
                for (uint32_t m = 0; m < per; ++m)  // the group's row, or each member's
                    merkle_verify_opening(s.o.merkle, f, &dims, 1,
                                          static_cast<const unsigned char *>(caps) + k * cap_bytes, cap_bytes,
                                          fri_leaf_row(log_nk, s.log_a, s.log_leaf, s.bitrev, g, m),
                                          op + off + m * (gbytes / per), gbytes / per, op + off + gbytes + m * pb, pb);
            } catch (const Error &e) {
                if (e.status == GP_ERR_VERIFY_FAILED)
                    fail(GP_ERR_VERIFY_FAILED, "layer ", k, ": the group of position ", p,
                         " does not hash to the layer's cap");
                fail(e.status, "layer ", k, ": ", e.what());
            }
            // Fold the group and compare with the next layer or the remainder.
            Ext<Fd, D> v[8];
            for (uint32_t m = 0; m < (1u << s.log_a); ++m) v[m] = ext_at(op + off, m);
            uint64_t omega_inv, zeta_inv, shift_inv;
            fri_roots(f, log_nk, s.log_a, s.shift, k, omega_inv, zeta_inv, shift_inv);
            const uint64_t e = s.bitrev ? bit_reverse(g, log_nk - s.log_a) : g;
            const T x0inv = Fd::mul((T)shift_inv, fpow<Fd>((T)omega_inv, e));
            const Ext<Fd, D> beta = ext_at(betas, k);
            const Ext<Fd, D> folded = fri_fold_values<Fd, D>(v, s.log_a, s.bitrev, x0inv, (T)zeta_inv, beta,
                                                             s.halve, finv<Fd>((T)(1u << s.log_a)));
            off += gbytes + per * pb;
            const uint64_t pn = fri_position(s.log_n, s.log_a, s.bitrev, k + 1, index);
            Ext<Fd, D> want;
            if (k + 1 == s.layers) {
                want = ext_at(remainder, pn);
            } else {
                uint64_t g2;
                uint32_t m2;
                fri_slot(log_nk - s.log_a, s.log_a, s.bitrev, pn, g2, m2);
                want = ext_at(op + off, m2);
            }
            if (!(folded == want))
                fail(GP_ERR_VERIFY_FAILED, "layer ", k, ": folding the group of position ", p,
                     " does not give the value at position ", pn, " of layer ", k + 1);
        }
    });
}

}  // namespace gp
