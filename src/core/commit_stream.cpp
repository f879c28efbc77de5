// SPDX-License-Identifier: MIT OR Apache-2.0
// gp_commit_host against the Backend interface (see commit_stream.h).
//
// The tree's rows are grouped by height (plan_tree). For each group, tallest
// first, its matrices' columns form one stream of base columns: batches of
// whole extension columns are extended (Backend::lde from host) into batch
// buffers (or into the kept LDE), written to the caller's host memory when
// asked, and absorbed (Backend::absorb_rows) into one sponge state per row.
// A batch absorbs a whole number of sponge blocks; the columns left over
// (fewer than a block) are absorbed with the next batch, read in place from
// the previous batch buffer, so batches alternate between two buffers. The
// last batch finishes the sponges: the row digests of the tallest group are
// the tree's leaf layer, those of a shorter group are injected at its layer
// (MerkleArgs::inject), and Backend::merkle_commit builds the layers above.
// The backend may queue the absorption and the downloads (download_begin)
// and return: a batch's download then runs while its columns are hashed,
// and the next batch's upload while they are; download_end orders the
// rewrite of a slot after the copies out of it.
#include "core/commit_stream.h"

#include <algorithm>
#include <cstring>
#include <string>

#include "core/checks.h"
#include "core/host_alloc.h"
#include "core/lde_random.h"
#include "core/merkle_ops.h"
#include "core/merkle_tree.h"

namespace gp {

namespace {

// Backend memory released on scope exit.
struct DeviceBlock {
    Backend &be;
    void *p = nullptr;
    DeviceBlock(Backend &b, uint64_t bytes) : be(b), p(bytes ? b.alloc_buffer(bytes) : nullptr) {}
    ~DeviceBlock() {
        if (p) be.free_buffer(p);
    }
    DeviceBlock(const DeviceBlock &) = delete;
    DeviceBlock &operator=(const DeviceBlock &) = delete;
};

// Registered buffers released unless kept.
struct KeptBuffers {
    std::vector<Buffer *> v;
    bool keep = false, owned = true;  // not owned: the caller's (lde_into)
    // GP_KEEP_DEVICE's buffers: the caller's, else new ones.
    void make(Context *c, const CommitRequest &r) {
        owned = r.into.empty();
        for (size_t i = 0; i < r.mats.size(); ++i)
            v.push_back(owned ? new_buffer(c, *r.lde.field, r.mats[i].ext, r.mats[i].rows_in << r.lde.log_blowup,
                                           r.mats[i].cols)
                              : r.into[i]);
    }
    // Hands the new buffers to the caller.
    void give(std::vector<Buffer *> &out) {
        keep = true;
        if (owned) out = v;
    }
    ~KeptBuffers() {
        if (!keep && owned)
            for (Buffer *b : v) release_buffer(b);
    }
};

// A view of `cols` extension columns of degree `ext`, `rows` rows each, at `data`.
Buffer view_of(const FieldDesc &f, uint32_t ext, uint64_t rows, uint64_t cols, void *data) {
    Buffer b;
    b.field = &f;
    b.ext = ext;
    b.rows = rows;
    b.cols = cols;
    b.bytes = rows * cols * ext * f.elem_size;
    b.data = data;
    return b;
}

// The row length a hasher's streamed state holds: H::kStreamRowLimit
// where it declares one (a bounded chunk tree), else any.
template <class H, class = void>
struct StreamRowLimit {
    static constexpr uint64_t value = ~0ull;
};
template <class H>
struct StreamRowLimit<H, decltype((void)H::kStreamRowLimit)> {
    static constexpr uint64_t value = H::kStreamRowLimit;
};

// The sponge of a profile: state bytes per row, elements per block, and
// the longest row its state holds.
struct SpongeShape {
    uint64_t state_bytes = 0, block = 1, max_row = ~0ull;
};
SpongeShape sponge_shape(const TreeSpec &s) {
    SpongeShape out;
    tree_dispatch(s, [&](auto h) {
        using H = decltype(h);
        out.state_bytes = (uint64_t)H::kState * sizeof(typename H::S);
        out.block = h.block();
        out.max_row = StreamRowLimit<H>::value;
    });
    return out;
}

// The LDE of extension columns [c0, c0 + nc) of matrix m into `out`.
void lde_columns(Backend &be, const CommitRequest &r, const CommitRequest::Mat &m, uint64_t c0, uint64_t nc,
                 Buffer &out) {
    const uint64_t es = r.lde.field->elem_size;
    LdeArgs a = r.lde;
    a.ext = m.ext;
    a.rows_in = m.rows_in;
    a.cols = nc;
    a.log_n = log2_exact(m.rows_in);
    a.out = &out;
    hvector<char> packed;
    if (r.lde.in_layout == GP_LAYOUT_COL_MAJOR || nc == m.cols) {
        a.in_host = static_cast<const char *>(m.data) + c0 * m.ext * m.rows_in * es;
    } else {
        packed = pack_columns(m.data, m.rows_in, m.cols * m.ext * es, c0 * m.ext * es, nc * m.ext * es);
        a.in_host = packed.data();
    }
    std::vector<unsigned char> addend;
    if (r.rand_m) {
        addend = randomizer_addend(a, r.rand.data() + m.rand_at + c0 * m.ext * r.rand_m * es, r.rand_m);
        a.rand_add = addend.data();
        a.rand_m = r.rand_m;
    }
    be.lde(a);
}

// The two-call composition for backends that do not stream.
MerkleTree *compose(Context *c, const CommitRequest &r, std::vector<Buffer *> &kept,
                    std::shared_ptr<StreamSource> source) {
    Backend &be = *c->backend;
    KeptBuffers bufs;
    bufs.make(c, r);
    for (size_t i = 0; i < r.mats.size(); ++i) lde_columns(be, r, r.mats[i], 0, r.mats[i].cols, *bufs.v[i]);
    std::vector<const Buffer *> mats(bufs.v.begin(), bufs.v.end());
    MerkleTree *t = commit_matrices(c, mats, r.merkle);
    if (r.keep == GP_KEEP_DEVICE) {
        bufs.give(kept);
        return t;
    }
    try {
        if (r.keep == GP_KEEP_HOST)
            for (size_t i = 0; i < r.mats.size(); ++i) be.download(*bufs.v[i], r.mats[i].lde_host, GP_LAYOUT_COL_MAJOR);
    } catch (...) {
        release_tree(t);
        throw;
    }
    t->committed.clear();
    for (auto &s : source->shapes) t->committed.push_back(s.get());
    note_committed(*t);
    t->source = source;
    return t;
}

// The device bytes a call may use: the caller's budget, else `share` of
// what the device has free (no limit on a backend without device memory).
uint64_t budget_of(Backend &be, uint64_t requested, uint64_t share) {
    if (requested) return requested;
    uint64_t free_b = 0, total_b = 0;
    be.mem_info(free_b, total_b);
    return free_b ? free_b / share : ~0ull;
}

// Device bytes per base column of a batch of `rows` LDE rows: `buffers`
// batch buffers, the transform's scratch in natural order, and the staged
// input (two slots).
uint64_t column_bytes(const CommitRequest &r, uint64_t rows, uint64_t buffers) {
    const uint64_t es = r.lde.field->elem_size;
    return rows * es * (buffers + (r.lde.order == GP_ORDER_NATURAL)) + 2 * (rows >> r.lde.log_blowup) * es;
}

// Base columns per batch. Enough batches that the upload, the transform
// and the downloads of one overlap the hashing of another (kBatches), each
// of at least kMinBatchBytes of LDE (smaller ones only repeat the sponge
// states' traffic), whole sponge blocks where possible; never more than the
// budget allows (`most`) nor less than `least`.
constexpr uint64_t kBatches = 16, kMinBatchBytes = 512ull << 20;
uint64_t plan_batch(uint64_t total_cols, uint64_t least, uint64_t block, uint64_t most, uint64_t col_bytes) {
    uint64_t want = std::max((total_cols + kBatches - 1) / kBatches, (kMinBatchBytes + col_bytes - 1) / col_bytes);
    want = (want + block - 1) / block * block;
    return std::min(std::max(least, std::min(want, most)), total_cols);
}

// The streamed downloads of both batch slots: finished on the way out,
// dropped (and the copies in flight waited for) when unwinding.
struct Downloads {
    Backend &be;
    void finish() {
        be.download_end(0, true);
        be.download_end(1, true);
    }
    ~Downloads() {
        try {
            be.download_end(0, false);
            be.download_end(1, false);
        } catch (...) {
        }
    }
};

// Base columns [j0, j1) of a list of base-column views, as views.
std::vector<Buffer> slice(const std::vector<Buffer> &views, uint64_t j0, uint64_t j1) {
    std::vector<Buffer> out;
    uint64_t at = 0;
    for (const Buffer &v : views) {
        const uint64_t b = std::max(j0, at), e = std::min(j1, at + v.cols);
        if (b < e) {
            Buffer s = v;
            s.cols = e - b;
            s.data = static_cast<char *>(v.data) + (b - at) * v.rows * v.field->elem_size;
            s.bytes = s.rows * s.cols * v.field->elem_size;
            out.push_back(s);
        }
        at += v.cols;
    }
    return out;
}

}  // namespace

MerkleTree *commit_host(Context *c, const CommitRequest &r, std::vector<Buffer *> &kept) {
    Backend &be = *c->backend;
    const FieldDesc &f = *r.lde.field;
    const uint64_t es = f.elem_size;
    const uint32_t log_b = r.lde.log_blowup;

    // The plan: the profile, heights, groups.
    std::vector<uint64_t> heights;
    for (const CommitRequest::Mat &m : r.mats) heights.push_back(checked_mul(m.rows_in, 1ull << log_b, "rows * blowup"));
    const TreeSpec spec = tree_spec(r.merkle, f, "the matrices");
    one_row_per_leaf(r.merkle, "gp_commit_host");
    if (lifted_kind(spec.kind))
        fail(GP_ERR_UNSUPPORTED, merkle_kind_name(spec.kind),
             " absorbs each matrix's row with its own padding; gp_commit_host streams rows by column batches "
             "(use gp_lde_batch and gp_merkle_commit)");
    const TreePlan plan = plan_tree(spec, heights, r.merkle.cap_height, "the matrices");
    uint64_t row_elems = 0;
    for (const CommitRequest::Mat &m : r.mats) row_elems += m.cols * m.ext;
    check_leaf_width(r.merkle, row_elems, "a row of the matrices");

    std::shared_ptr<StreamSource> source;
    if (r.keep != GP_KEEP_DEVICE) {
        source = std::make_shared<StreamSource>();
        source->req = r;
        for (size_t i = 0; i < r.mats.size(); ++i) {
            auto b = std::make_unique<Buffer>(view_of(f, r.mats[i].ext, heights[i], r.mats[i].cols, nullptr));
            b->ctx = c;
            source->shapes.push_back(std::move(b));
        }
    }

    const SpongeShape sp = sponge_shape(spec);
    if (row_elems > sp.max_row)
        fail(GP_ERR_UNSUPPORTED, "a row of the matrices holds ", row_elems, " base elements; ",
             merkle_kind_name(spec.kind), " with options->perm = ", perm_label(spec.perm),
             " keeps a streamed leaf state that holds rows of at most ", sp.max_row,
             " (use gp_lde_batch and gp_merkle_commit, which take any)");
    const uint64_t H = 1ull << plan.log_h;
    const uint64_t dbytes = (uint64_t)spec.digest * spec.word_size;
    const uint64_t tree_bytes = checked_mul(2 * H - 1, dbytes, "tree bytes");
    uint64_t inject_bytes = 0, kept_bytes = 0;
    for (uint32_t k = 1; k <= plan.log_h; ++k)
        if (plan.groups[k].first < plan.groups[k].second) inject_bytes += (H >> k) * dbytes;
    uint32_t max_ext = 1;
    for (size_t i = 0; i < r.mats.size(); ++i) {
        max_ext = std::max(max_ext, r.mats[i].ext);
        if (r.keep == GP_KEEP_DEVICE && r.into.empty())  // the caller's are not the call's to count
            kept_bytes += checked_mul(checked_mul(heights[i], r.mats[i].cols * r.mats[i].ext, "LDE elements"), es,
                                      "LDE bytes");
    }
    const uint64_t states_bytes = checked_mul(H, sp.state_bytes, "sponge state bytes");
    // A batch of the tallest group has two batch buffers, none when the LDE is kept.
    const uint64_t per_col = column_bytes(r, H, r.keep == GP_KEEP_DEVICE ? 0 : 2);
    const uint64_t fixed = tree_bytes + inject_bytes + kept_bytes + states_bytes;
    const uint64_t min_cols = sp.block + max_ext - 1;
    const uint64_t minimum = fixed + min_cols * per_col;
    const uint64_t budget = budget_of(be, r.budget, 1);
    if (budget < minimum)
        fail(r.budget ? GP_ERR_INVALID_ARGUMENT : GP_ERR_DEVICE_OUT_OF_MEMORY,
             r.budget ? "options->device_budget = " : "the device's free memory, ", budget,
             " bytes, is below the minimum ", minimum, " bytes this commitment needs (tree ", tree_bytes,
             ", row digests ", inject_bytes, ", sponge states ", states_bytes,
             kept_bytes ? ", the kept LDE " : "", kept_bytes ? std::to_string(kept_bytes) : "",
             ", one batch of ", min_cols, " columns ", min_cols * per_col, ")");
    // A backend that does not stream composes the two calls: the same
    // budget floor is checked (so a budget means the same on every
    // backend), though the composition holds the whole LDE.
    if (!be.streams()) return compose(c, r, kept, source);
    uint64_t total_cols = 0;
    for (const CommitRequest::Mat &m : r.mats) total_cols += m.cols * m.ext;
    const uint64_t batch_cols = plan_batch(total_cols, min_cols, sp.block, (budget - fixed) / per_col, H * es);

    KeptBuffers keep;
    if (r.keep == GP_KEEP_DEVICE) keep.make(c, r);

    auto t = std::make_unique<MerkleTree>();
    t->ctx = c;
    t->spec = spec;
    t->cap_height = r.merkle.cap_height;
    t->log_h = plan.log_h;
    DeviceBlock nodes(be, tree_bytes);
    t->nodes = nodes.p;
    DeviceBlock injected(be, inject_bytes);
    DeviceBlock batch(be, r.keep == GP_KEEP_DEVICE ? 0 : checked_mul(2 * batch_cols, H * es, "batch bytes"));
    MerkleArgs ma;
    ma.spec = spec;
    ma.cap_height = r.merkle.cap_height;
    ma.log_h = plan.log_h;
    ma.groups = plan.groups;
    ma.inject.assign(plan.log_h + 1, nullptr);

    Downloads downloads{be};
    uint64_t cols_done = 0, bytes_done = 0, bytes_total = 0;
    for (const CommitRequest::Mat &m : r.mats) bytes_total += m.rows_in * m.cols * m.ext * es;
    char *inject_at = static_cast<char *>(injected.p);
    for (uint32_t k = 0; k <= plan.log_h; ++k) {
        const auto [g0, g1] = plan.groups[k];
        if (g0 == g1) continue;
        const uint64_t R = H >> k;
        void *digests = k == 0 ? nodes.p : inject_at;
        if (k) {
            ma.inject[k] = inject_at;
            inject_at += R * dbytes;
        }
        uint64_t n = 0;
        for (uint32_t g = g0; g < g1; ++g) n += r.mats[plan.order[g]].cols * r.mats[plan.order[g]].ext;
        DeviceBlock states(be, R * sp.state_bytes);
        AbsorbArgs aa;
        aa.spec = spec;
        aa.rows = R;
        aa.n = aa.left = n;
        aa.first = true;
        aa.states = states.p;
        aa.digests = digests;
        std::vector<Buffer> carry;  // base-column views not yet absorbed
        uint32_t g = g0;
        uint64_t c0 = 0;  // next extension column of matrix order[g]
        for (int slot = 0; aa.left > 0; slot ^= 1) {
            // The slot's buffer is written again: its downloads come first.
            if (r.keep == GP_KEEP_HOST) be.download_end(slot, true);
            // One batch: whole extension columns, up to batch_cols base columns.
            std::vector<Buffer> views = carry;
            uint64_t taken = 0;
            char *slot_base = batch.p ? static_cast<char *>(batch.p) + slot * batch_cols * R * es : nullptr;
            while (g < g1) {
                const uint32_t mi = plan.order[g];
                const CommitRequest::Mat &m = r.mats[mi];
                const uint64_t room = (batch_cols - taken) / m.ext;
                if (room == 0) break;
                const uint64_t nc = std::min(room, m.cols - c0);
                c->monitor->poll("commit", cols_done, total_cols);
                c->monitor->poll("commit bytes", bytes_done, bytes_total);
                void *dst = r.keep == GP_KEEP_DEVICE ? static_cast<char *>(keep.v[mi]->data) + c0 * m.ext * R * es
                                                     : slot_base + taken * R * es;
                Buffer out = view_of(f, m.ext, R, nc, dst);
                lde_columns(be, r, m, c0, nc, out);
                if (r.keep == GP_KEEP_HOST)
                    be.download_begin(out, static_cast<char *>(m.lde_host) + c0 * m.ext * R * es, slot);
                views.push_back(view_of(f, 1, R, nc * m.ext, dst));
                taken += nc * m.ext;
                cols_done += nc * m.ext;
                bytes_done += nc * m.ext * m.rows_in * es;
                c0 += nc;
                if (c0 == m.cols) {
                    c0 = 0;
                    ++g;
                }
            }
            uint64_t avail = 0;
            for (const Buffer &v : views) avail += v.cols;
            aa.count = g == g1 ? aa.left : avail / sp.block * sp.block;
            std::vector<Buffer> absorbed = slice(views, 0, aa.count);
            aa.mats.clear();
            for (const Buffer &v : absorbed) aa.mats.push_back(&v);
            be.absorb_rows(aa);
            aa.first = false;
            aa.left -= aa.count;
            carry = slice(views, aa.count, avail);
        }
        // The next group's batches overlay both slots.
        if (r.keep == GP_KEEP_HOST) downloads.finish();
    }
    c->monitor->poll("commit", cols_done, total_cols);
    be.merkle_commit(ma, *t);

    if (r.keep == GP_KEEP_DEVICE) {
        for (Buffer *b : keep.v) t->committed.push_back(b);
    } else {
        for (auto &s : source->shapes) t->committed.push_back(s.get());
        t->source = source;
    }
    note_committed(*t);
    adopt_tree(t.get());
    nodes.p = nullptr;  // the tree's now
    if (r.keep == GP_KEEP_DEVICE) keep.give(kept);
    return t.release();
}

void stream_open_rows(const MerkleTree &t, const uint64_t *indices, uint64_t count, void *rows) {
    const CommitRequest &r = t.source->req;
    const FieldDesc &f = *r.lde.field;
    const uint64_t es = f.elem_size;
    uint64_t row_bytes = 0;
    for (const CommitRequest::Mat &m : r.mats) row_bytes += m.cols * m.ext * es;
    char *out = static_cast<char *>(rows);
    uint64_t at = 0;  // byte offset of the matrix's part of an opened row
    if (r.keep == GP_KEEP_HOST) {
        for (const CommitRequest::Mat &m : r.mats) {
            const uint64_t R = m.rows_in << r.lde.log_blowup, w = m.cols * m.ext;
            const uint32_t shift = t.log_h - log2_exact(R);
            const char *src = static_cast<const char *>(m.lde_host);
            for (uint64_t q = 0; q < count; ++q) {
                const uint64_t row = indices[q] >> shift;
                for (uint64_t j = 0; j < w; ++j)  // coordinate j % ext of column j / ext
                    std::memcpy(out + q * row_bytes + at + j * es,
                                src + (host_index(GP_LAYOUT_COL_MAJOR, R, m.cols, m.ext, row, j)) * es, es);
            }
            at += w * es;
        }
        return;
    }
    // GP_KEEP_NONE: the LDE again, one batch of columns at a time, and the
    // opened rows of each batch gathered by the backend.
    Backend &be = *t.ctx->backend;
    const uint64_t budget = budget_of(be, r.budget, 2);
    uint64_t most = 0;
    for (const CommitRequest::Mat &m : r.mats) most = std::max(most, m.rows_in << r.lde.log_blowup);
    const uint64_t per_col = column_bytes(r, most, 2);
    const uint64_t batch_cols = std::max<uint64_t>(1, std::min<uint64_t>(budget / per_col, 1024));
    DeviceBlock batch(be, checked_mul(batch_cols, most * es, "batch bytes"));
    hvector<char> got;
    for (size_t i = 0; i < r.mats.size(); ++i) {
        const CommitRequest::Mat &m = r.mats[i];
        const uint64_t R = m.rows_in << r.lde.log_blowup;
        const uint64_t per = std::max<uint64_t>(1, batch_cols / m.ext);
        for (uint64_t c0 = 0; c0 < m.cols; c0 += per) {
            t.ctx->monitor->poll("open", c0, m.cols);
            const uint64_t nc = std::min(per, m.cols - c0);
            Buffer lde = view_of(f, m.ext, R, nc, batch.p);
            lde_columns(be, r, m, c0, nc, lde);
            MerkleTree part;
            part.ctx = t.ctx;
            part.spec = t.spec;
            part.log_h = t.log_h;
            part.cap_height = t.cap_height;
            part.committed.push_back(&lde);
            const uint64_t w = nc * m.ext * es;
            got.resize(count * w);
            be.merkle_open(part, indices, count, got.data(), nullptr);
            for (uint64_t q = 0; q < count; ++q)
                std::memcpy(out + q * row_bytes + at + c0 * m.ext * es, got.data() + q * w, w);
        }
        at += m.cols * m.ext * es;
    }
}

}  // namespace gp
