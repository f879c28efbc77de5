// SPDX-License-Identifier: MIT OR Apache-2.0
// Several devices behind one Backend: buffers spread by column blocks, each
// call run on every device at once, rows exchanged for Merkle commitments.
// Written against the Backend interface only, so the same split and
// exchange run over CUDA devices and over emulated CPU devices (CI).
//
// Layout: device d holds extension columns [col0, col0 + cols) of a spread
// buffer (Buffer::shards; column_block() below). Buffers a protocol keeps
// for itself (FRI layers), tree nodes and wrapped memory live on device 0.
#include <algorithm>
#include <cstdlib>
#include <cstring>
#include <exception>
#include <map>
#include <memory>
#include <mutex>
#include <string>
#include <thread>
#include <vector>

#include "core/checks.h"
#include "core/core.h"
#include "core/host_alloc.h"
#include "core/merkle_ops.h"
#include "hash/permutations.h"

namespace gp {
namespace {

using Shard = Buffer::Shard;

// Memory one call borrows on some devices, freed when the call ends.
class Scratch {
public:
    explicit Scratch(std::vector<std::unique_ptr<Backend>> &parts) : parts_(parts) {}
    ~Scratch() {
        for (auto &a : allocs_) parts_[a.first]->free_buffer(a.second);
    }
    void *get(uint32_t d, uint64_t bytes) {
        allocs_.reserve(allocs_.size() + 1);
        void *p = parts_[d]->alloc_buffer(std::max<uint64_t>(bytes, 1));
        allocs_.emplace_back(d, p);
        return p;
    }
    Scratch(const Scratch &) = delete;
    Scratch &operator=(const Scratch &) = delete;

private:
    std::vector<std::unique_ptr<Backend>> &parts_;
    std::vector<std::pair<uint32_t, void *>> allocs_;
};

class MultiBackend final : public Backend {
public:
    explicit MultiBackend(std::vector<std::unique_ptr<Backend>> parts)
        : parts_(std::move(parts)), held_(parts_.size(), 0), reads_(parts_.size(), std::vector<bool>(parts_.size())) {
        // GP_MULTI_COPY_ROWS=1 makes the Merkle commitment copy the rows it
        // needs instead of reading peers' memory in place (tests, and
        // comparing the two).
        const char *v = std::getenv("GP_MULTI_COPY_ROWS");
        const bool copy = v && *v && *v != '0';
        for (uint32_t a = 0; a < n(); ++a)
            for (uint32_t b = 0; b < n(); ++b) reads_[a][b] = (a == b || parts_[a]->connect(*parts_[b])) && !copy;
    }

    uint32_t n() const { return (uint32_t)parts_.size(); }

    // ---- identity ----
    gp_backend kind() const override { return parts_[0]->kind(); }
    std::string device_name() const override {
        std::string s = std::to_string(n()) + " devices: ";
        for (uint32_t d = 0; d < n(); ++d) s += (d ? ", [" : "[") + std::to_string(d) + "] " + parts_[d]->device_name();
        return s;
    }
    int device_ordinal() const override { return parts_[0]->device_ordinal(); }
    uint32_t device_count() const override { return n(); }
    void device_info(uint32_t i, gp_device_info &out) override {
        parts_[i]->device_info(0, out);
        std::lock_guard<std::mutex> lock(mu_);
        out.buffer_bytes = held_[i];
    }

    // ---- calls ----
    void begin_call() override {
        for (auto &p : parts_) {
            p->monitor = monitor;
            p->begin_call();
        }
    }
    uint64_t end_call() noexcept override {
        // The call's device time is that of its busiest device.
        uint64_t t = 0;
        for (auto &p : parts_) t = std::max(t, p->end_call());
        return t;
    }
    void set_stream(void *stream) override { parts_[0]->set_stream(stream); }

    // ---- memory ----
    void *alloc_buffer(uint64_t bytes) override { return alloc_on(0, bytes); }
    void free_buffer(void *p) override {
        if (!p) return;
        uint32_t d = 0;
        {
            std::lock_guard<std::mutex> lock(mu_);
            auto it = owner_.find(p);
            if (it != owner_.end()) {
                d = it->second.first;
                held_[d] -= it->second.second;
                owner_.erase(it);
            }
        }
        parts_[d]->free_buffer(p);
    }
    void alloc_storage(Buffer &b, bool spread) override {
        if (!spread || b.cols == 1) {
            b.data = alloc_on(0, b.bytes);
            return;
        }
        std::vector<Shard> shards;
        try {
            for (uint32_t d = 0; d < n(); ++d) {
                Shard s = column_block(b.cols, d);
                if (!s.cols) continue;
                s.data = alloc_on(d, b.rows * s.cols * b.ext * b.field->elem_size);
                shards.push_back(s);
            }
        } catch (...) {
            for (const Shard &s : shards) free_buffer(s.data);
            throw;
        }
        b.shards = std::move(shards);
        b.data = nullptr;
    }
    void free_storage(Buffer &b) override {
        if (b.shards.empty()) free_buffer(b.data);
        for (const Shard &s : b.shards) free_buffer(s.data);
    }
    void check_foreign(const void *data, uint64_t bytes, const char *arg) override {
        parts_[0]->check_foreign(data, bytes, arg);
    }
    void check_buffer_values(const Buffer &b, const char *arg) override {
        for_shards(b, [&](const Shard &s) { parts_[s.dev]->check_buffer_values(view(b, s), arg); });
    }
    void trim() override {
        each([&](uint32_t d) { parts_[d]->trim(); });
    }
    // Host memory of the first device's kind (page-locked for every GPU).
    void *transfer_alloc(uint64_t bytes) override { return parts_[0]->transfer_alloc(bytes); }
    void transfer_free(void *p) override { parts_[0]->transfer_free(p); }
    void pin_host(void *p, uint64_t bytes) override { parts_[0]->pin_host(p, bytes); }
    void unpin_host(void *p) override { parts_[0]->unpin_host(p); }
    uint64_t cache_bytes() const override { return sum([](Backend &p) { return p.cache_bytes(); }); }
    uint64_t allocations() const override { return sum([](Backend &p) { return p.allocations(); }); }
    uint64_t evictions() const override { return sum([](Backend &p) { return p.evictions(); }); }

    // ---- transfers ----
    void upload(Buffer &dst, const void *host, gp_layout layout, const char *arg) override {
        const uint64_t es = dst.field->elem_size, row = dst.base_cols() * es;
        recheck_host_values(*dst.field, host, dst.rows * dst.base_cols(), arg, [&] {
            for_shards(dst, [&](const Shard &s) {
                Buffer v = view(dst, s);
                const uint64_t width = s.cols * dst.ext * es;
                if (layout == GP_LAYOUT_COL_MAJOR) {
                    parts_[s.dev]->upload(v, static_cast<const char *>(host) + s.col0 * dst.ext * dst.rows * es,
                                          layout, arg);
                } else {  // this device's columns of every row, packed
                    const hvector<char> packed = pack_columns(host, dst.rows, row, s.col0 * dst.ext * es, width);
                    parts_[s.dev]->upload(v, packed.data(), layout, arg);
                }
            });
        });
    }
    void download(const Buffer &src, void *host, gp_layout layout) override {
        const uint64_t es = src.field->elem_size, row = src.base_cols() * es;
        for_shards(src, [&](const Shard &s) {
            Buffer v = view(src, s);
            const uint64_t width = s.cols * src.ext * es;
            if (layout == GP_LAYOUT_COL_MAJOR) {
                parts_[s.dev]->download(v, static_cast<char *>(host) + s.col0 * src.ext * src.rows * es, layout);
            } else {
                hvector<char> packed(src.rows * width);
                parts_[s.dev]->download(v, packed.data(), layout);
                strided_copy(packed.data(), width, static_cast<char *>(host) + s.col0 * src.ext * es, row, width,
                             src.rows);
            }
        });
    }

    // ---- transforms: each device its own columns ----
    bool lde_adds() const override {
        return std::all_of(parts_.begin(), parts_.end(), [](const std::unique_ptr<Backend> &p) { return p->lde_adds(); });
    }
    bool lde_takes_coefficients() const override {
        return std::all_of(parts_.begin(), parts_.end(),
                           [](const std::unique_ptr<Backend> &p) { return p->lde_takes_coefficients(); });
    }
    void lde(const LdeArgs &a) override {
        const uint64_t es = a.field->elem_size;
        recheck_host_values(*a.field, a.in_host, a.rows_in * a.cols * a.ext, "data", [&] {
            for_shards(*a.out, [&](const Shard &s) {
                Scratch scratch(parts_);
                Buffer out = view(*a.out, s), in;
                hvector<char> packed;
                LdeArgs b = a;
                b.cols = s.cols;
                b.out = &out;
                if (a.rand_add)  // the shard's columns of the addend
                    b.rand_add = static_cast<const char *>(a.rand_add) + s.col0 * a.ext * (a.rand_m << a.log_blowup) * es;
                if (a.in_buf) {
                    in = local_columns(*a.in_buf, s.dev, s.col0, s.cols, scratch);
                    b.in_buf = &in;
                } else if (a.in_layout == GP_LAYOUT_COL_MAJOR) {
                    b.in_host = static_cast<const char *>(a.in_host) + s.col0 * a.ext * a.rows_in * es;
                } else {
                    packed = pack_columns(a.in_host, a.rows_in, a.cols * a.ext * es, s.col0 * a.ext * es,
                                          s.cols * a.ext * es);
                    b.in_host = packed.data();
                }
                parts_[s.dev]->lde(b);
            });
        });
    }
    void ntt(Buffer &buf, const NttArgs &a) override {
        for_shards(buf, [&](const Shard &s) {
            Buffer v = view(buf, s);
            parts_[s.dev]->ntt(v, a);
        });
    }
    void permute(int perm, void *states, uint64_t count) override {
        const PermShape p = perm_shape(perm, "perm");
        const uint64_t state = (uint64_t)p.width * p.elem_size;
        const int field = perm::field_of(perm);
        // Small batches are not worth the threads.
        const uint32_t used = (uint32_t)std::min<uint64_t>(n(), std::max<uint64_t>(1, count / 4096));
        auto run = [&] {
            each(
                [&](uint32_t d) {
                    const uint64_t b = count * d / used, e = count * (d + 1) / used;
                    if (e > b) parts_[d]->permute(perm, static_cast<char *>(states) + b * state, e - b);
                },
                used);
        };
        if (field) recheck_host_values(field_desc((gp_field)field), states, count * p.width, "states", run);
        else run();
    }

    // ---- Merkle trees ----
    void merkle_commit(const MerkleArgs &a, MerkleTree &t) override;
    void read_tree(const MerkleTree &t, uint64_t offset, void *out, uint64_t bytes) override {
        parts_[0]->read_tree(t, offset, out, bytes);
    }
    void merkle_open(const MerkleTree &t, const uint64_t *indices, uint64_t count, void *rows,
                     void *paths) override;

    // ---- FRI: on device 0, where its layers live ----
    void fri_fold(const FriFoldArgs &a) override { parts_[0]->fri_fold(a); }
    void fri_to_matrix(uint32_t elem_size, uint32_t ext, uint32_t log_n, uint32_t log_a, bool bitrev,
                       const void *in, void *out) override {
        parts_[0]->fri_to_matrix(elem_size, ext, log_n, log_a, bitrev, in, out);
    }
    void copy_rows(const Buffer &src, uint64_t src_col, uint64_t start, uint64_t stride, uint64_t count,
                   Buffer &dst, uint64_t dst_col) override {
        const Shard ss = shard_of(src, src_col), ds = shard_of(dst, dst_col);
        Buffer sv = view(src, ss), dv = view(dst, ds);
        if (ss.dev == ds.dev) {
            parts_[ss.dev]->copy_rows(sv, src_col - ss.col0, start, stride, count, dv, dst_col - ds.col0);
            return;
        }
        // Gather on the source device into a column of dst's shape, then
        // one copy to the destination device.
        Scratch scratch(parts_);
        Buffer col = dst;
        col.shards.clear();
        col.cols = 1;
        col.bytes = dst.rows * dst.ext * dst.field->elem_size;
        col.data = scratch.get(ss.dev, col.bytes);
        col.owned = false;
        col.release = nullptr;
        parts_[ss.dev]->copy_rows(sv, src_col - ss.col0, start, stride, count, col, 0);
        parts_[ss.dev]->copy_peer(col.data, 0, static_cast<char *>(ds.data) + (dst_col - ds.col0) * col.bytes, 0,
                                  col.bytes, 1);
    }

    // ---- OOD and DEEP: each device its own columns ----
    void ood_sums(const OodArgs &a, uint64_t *out) override;
    void deep(const DeepArgs &a) override;

    void copy_peer(const void *src, uint64_t spitch, void *dst, uint64_t dpitch, uint64_t width,
                   uint64_t height) override {
        parts_[0]->copy_peer(src, spitch, dst, dpitch, width, height);
    }
    void add_into(const FieldDesc &f, void *dst, const void *src, uint64_t count) override {
        parts_[0]->add_into(f, dst, src, count);
    }

private:
    // Extension columns of a `cols`-column buffer on device d: consecutive
    // blocks, the first cols % n one column longer.
    Shard column_block(uint64_t cols, uint32_t d) const {
        const uint64_t base = cols / n(), rem = cols % n();
        return Shard{d, d * base + std::min<uint64_t>(d, rem), base + (d < rem ? 1 : 0), nullptr};
    }
    static std::vector<Shard> shards(const Buffer &b) {
        if (!b.shards.empty()) return b.shards;
        return {Shard{0, 0, b.cols, b.data}};
    }
    static Shard shard_of(const Buffer &b, uint64_t col) {
        for (const Shard &s : shards(b))
            if (col >= s.col0 && col < s.col0 + s.cols) return s;
        fail(GP_ERR_INTERNAL, "column ", col, " of a ", b.cols, "-column buffer is on no device");
    }
    // A buffer over one shard's memory.
    static Buffer view(const Buffer &b, const Shard &s) {
        Buffer v;
        v.ctx = b.ctx;
        v.field = b.field;
        v.ext = b.ext;
        v.rows = b.rows;
        v.cols = s.cols;
        v.bytes = b.rows * s.cols * b.ext * b.field->elem_size;
        v.data = s.data;
        v.owned = false;
        return v;
    }
    // Extension columns [c0, c0 + cols) of b on device d: a view when d
    // holds them, else a copy gathered from the devices that do.
    Buffer local_columns(const Buffer &b, uint32_t d, uint64_t c0, uint64_t cols, Scratch &scratch) {
        const uint64_t col_bytes = b.rows * b.ext * b.field->elem_size;
        Shard out{d, c0, cols, nullptr};
        for (const Shard &s : shards(b))
            if (s.dev == d && s.col0 <= c0 && c0 + cols <= s.col0 + s.cols) {
                out.data = static_cast<char *>(s.data) + (c0 - s.col0) * col_bytes;
                return view(b, out);
            }
        out.data = scratch.get(d, cols * col_bytes);
        for (const Shard &s : shards(b)) {
            const uint64_t lo = std::max(c0, s.col0), hi = std::min(c0 + cols, s.col0 + s.cols);
            if (lo < hi)
                parts_[d]->copy_peer(static_cast<const char *>(s.data) + (lo - s.col0) * col_bytes, 0,
                                     static_cast<char *>(out.data) + (lo - c0) * col_bytes, 0, (hi - lo) * col_bytes,
                                     1);
        }
        return view(b, out);
    }

    void *alloc_on(uint32_t d, uint64_t bytes) {
        void *p = named(d, [&] {
            parts_[d]->bind_thread();
            return parts_[d]->alloc_buffer(bytes);
        });
        std::lock_guard<std::mutex> lock(mu_);
        try {
            owner_[p] = {d, bytes};
        } catch (...) {
            parts_[d]->free_buffer(p);
            throw;
        }
        held_[d] += bytes;
        return p;
    }

    // Runs fn(d) for devices [0, used) at once, device 0 on this thread;
    // the first device's error (naming it) is rethrown after all finish.
    template <class Fn>
    void each(Fn &&fn, uint32_t used = 0) {
        if (!used) used = n();
        std::vector<std::exception_ptr> errs(used);
        auto body = [&](uint32_t d) {
            try {
                named(d, [&] {
                    parts_[d]->bind_thread();
                    fn(d);
                    return 0;
                });
            } catch (...) {
                errs[d] = std::current_exception();
            }
        };
        std::vector<std::thread> threads;
        uint32_t started = 1;
        try {
            threads.reserve(used);
            for (; started < used; ++started) threads.emplace_back(body, started);
        } catch (...) {  // no more threads: the rest run here
        }
        body(0);
        for (uint32_t d = started; d < used; ++d) body(d);
        for (auto &t : threads) t.join();
        parts_[0]->bind_thread();
        for (auto &e : errs)
            if (e) std::rethrow_exception(e);
    }
    template <class Fn>
    void for_shards(const Buffer &b, Fn &&fn) {
        const std::vector<Shard> sh = shards(b);
        if (sh.size() == 1) {
            named(sh[0].dev, [&] {
                parts_[sh[0].dev]->bind_thread();
                fn(sh[0]);
                return 0;
            });
            parts_[0]->bind_thread();
            return;
        }
        std::vector<const Shard *> on(n(), nullptr);
        for (const Shard &s : sh) on[s.dev] = &s;
        each([&](uint32_t d) {
            if (on[d]) fn(*on[d]);
        });
    }
    // Runs fn, prefixing a device's errors with its name (not twice).
    template <class Fn>
    auto named(uint32_t d, Fn &&fn) -> decltype(fn()) {
        try {
            return fn();
        } catch (const Error &e) {
            const std::string tag = "device " + std::to_string(d) + " (";
            if (e.status == GP_ERR_CANCELLED || std::string(e.what()).rfind("device ", 0) == 0) throw;
            throw Error(e.status, tag + parts_[d]->device_name() + "): " + e.what());
        }
    }
    // Runs fn; if a device found a non-canonical value, names the first one
    // by its index in the caller's whole array (devices see only theirs).
    template <class Fn>
    void recheck_host_values(const FieldDesc &f, const void *host, uint64_t count, const char *arg, Fn &&fn) {
        try {
            fn();
        } catch (const Error &e) {
            if (e.status == GP_ERR_NON_CANONICAL && host) check_canonical(f, host, 0, count, arg);
            throw;
        }
    }
    template <class Fn>
    uint64_t sum(Fn &&fn) const {
        uint64_t s = 0;
        for (auto &p : parts_) s += fn(*p);
        return s;
    }
    std::vector<std::unique_ptr<Backend>> parts_;
    mutable std::mutex mu_;  // owner_ and held_
    std::map<void *, std::pair<uint32_t, uint64_t>> owner_;
    std::vector<uint64_t> held_;
    // reads_[a][b]: device a's kernels read device b's memory in place.
    std::vector<std::vector<bool>> reads_;
};

// ---- Merkle commitment ----
//
// The 2^log_h leaves are cut into P = 2^log_p aligned row blocks; block c
// goes to device c * n / P, which commits the block's rows as a tree of
// 2^(log_h - log_p) leaves: that tree's layers are exactly the global tree's
// nodes over the block, since a node depends only on the rows below it
// (matrices of height 2^(log_h - k) are injected at layer k, rows >> k). A
// matrix spread over devices enters as one view per column block: the
// sponge reads a row's matrices one after another, so consecutive column
// blocks hash as the whole row. The device reads its peers' blocks in place
// (peer access; another share of the same GPU; host memory for emulated
// devices) or, where it cannot, copies them first. The sub-trees' layers go
// to the tree's nodes on device 0; the top log_p layers (and the injection
// of matrices shorter than P) are finished on the host.
void MultiBackend::merkle_commit(const MerkleArgs &a, MerkleTree &t) {
    if (lifted_kind(a.spec.kind))  // a matrix's shards would each be padded alone
        fail(GP_ERR_UNSUPPORTED, "a context of several devices does not commit GP_MERKLE_MIDEN_LMCS trees (each "
                                 "matrix's row is padded as a whole; its columns are split across devices)");
    if (a.leaves)  // the row blocks below are aligned powers of two
        fail(GP_ERR_UNSUPPORTED, "a context of several devices commits matrices whose tallest height is a power "
                                 "of two; this one has ", a.leaves, " rows");
    bool all_local = true;
    uint64_t total = 0;
    for (const Buffer *m : a.mats) {
        all_local = all_local && m->shards.empty();
        total += m->bytes;
    }
    const uint64_t H = 1ull << a.log_h;
    bool direct = true;
    for (uint32_t d = 0; d < n(); ++d)
        for (uint32_t e = 0; e < n(); ++e) direct = direct && reads_[d][e];
    // Matrices all on device 0 (a FRI layer, a wrapped matrix): the other
    // devices hash their blocks reading device 0's memory in place, where
    // they can and the tree is worth splitting; else device 0 alone.
    if (all_local && (!direct || H < (uint64_t)n() << 10)) {
        named(0, [&] {
            parts_[0]->merkle_commit(a, t);
            return 0;
        });
        return;
    }
    // Block count: a power of two of at least n blocks (4n when n is not a
    // power of two, for balance); where rows are copied, more while a
    // block's rows exceed 1 GiB; one block for small trees.
    uint32_t log_p = 0;
    while ((1u << log_p) < n()) ++log_p;
    if (!is_pow2(n())) log_p += 2;
    while (!direct && log_p < a.log_h && (total >> log_p) > (1ull << 30)) ++log_p;
    if (H < (uint64_t)n() << 10) log_p = 0;
    log_p = std::min(log_p, a.log_h);
    const uint32_t log_b = a.log_h - log_p;  // a block's sub-tree height
    const uint64_t P = 1ull << log_p, B = 1ull << log_b;
    const uint64_t db = (uint64_t)a.spec.digest * a.spec.word_size;

    // Matrices a block covers: those of height >= P (a prefix of the
    // tallest-first order); the rest are injected in the top layers. Each
    // enters the block's tree as one view per column block.
    size_t covered = 0;
    while (covered < a.mats.size() && a.mats[covered]->rows >= P) ++covered;
    std::vector<uint32_t> first_view(covered + 1, 0);
    for (size_t i = 0; i < covered; ++i) first_view[i + 1] = first_view[i] + (uint32_t)shards(*a.mats[i]).size();
    std::vector<std::pair<uint32_t, uint32_t>> groups(log_b + 1);
    for (uint32_t k = 0; k <= log_b; ++k)
        groups[k] = {first_view[a.groups[k].first], first_view[a.groups[k].second]};

    each([&](uint32_t d) {
        const uint64_t c0 = (d * P + n() - 1) / n(), c1 = ((d + 1) * P + n() - 1) / n();
        if (c0 >= c1) return;
        Scratch scratch(parts_);
        std::vector<Buffer> views;
        views.reserve(first_view[covered]);
        std::vector<void *> copies;  // where a view's rows are copied to, if they are
        for (size_t i = 0; i < covered; ++i) {
            const Buffer &m = *a.mats[i];
            for (const Shard &s : shards(m)) {
                Buffer v = view(m, s);
                v.rows = m.rows >> log_p;
                v.stride = m.rows;
                copies.push_back(nullptr);
                if (!reads_[d][s.dev]) {
                    v.bytes = v.rows * s.cols * m.ext * m.field->elem_size;
                    v.stride = v.rows;
                    copies.back() = v.data = scratch.get(d, v.bytes);
                }
                views.push_back(v);
            }
        }
        MerkleArgs sa;
        sa.spec = a.spec;
        sa.cap_height = 0;
        sa.log_h = log_b;
        sa.leaves_only = a.leaves_only;
        sa.groups = groups;
        for (const Buffer &v : views) sa.mats.push_back(&v);
        MerkleTree sub;
        sub.ctx = t.ctx;
        sub.spec = a.spec;
        sub.log_h = log_b;
        sub.nodes = scratch.get(d, (a.leaves_only ? B : 2 * B - 1) * db);
        for (uint64_t c = c0; c < c1; ++c) {
            if (monitor) monitor->poll("merkle blocks", c - c0, c1 - c0);
            size_t vi = 0;
            for (size_t i = 0; i < covered; ++i) {
                const Buffer &m = *a.mats[i];
                const uint64_t es = m.field->elem_size, h = m.rows >> log_p;
                for (const Shard &s : shards(m)) {
                    Buffer &v = views[vi];
                    const char *rows = static_cast<const char *>(s.data) + c * h * es;
                    if (copies[vi])
                        parts_[d]->copy_peer(rows, m.rows * es, copies[vi], h * es, h * es, s.cols * m.ext);
                    else
                        v.data = const_cast<char *>(rows);
                    ++vi;
                }
            }
            parts_[d]->merkle_commit(sa, sub);
            for (uint32_t k = 0; k <= (a.leaves_only ? 0 : log_b); ++k)
                parts_[d]->copy_peer(static_cast<const char *>(sub.nodes) + merkle_layer_offset(log_b, k) * db, 0,
                                     static_cast<char *>(t.nodes) +
                                         (merkle_layer_offset(a.log_h, k) + (c << (log_b - k))) * db,
                                     0, (B >> k) * db, 1);
        }
    });
    if (a.leaves_only || log_p == 0) return;

    // The top: layers log_b + 1 .. log_h on the host.
    tree_dispatch(a.spec, [&](auto h) {
        using Hh = decltype(h);
        using T = typename Hh::T;
        using W = typename Hh::W;
        const uint32_t d = h.digest;
        std::vector<hvector<T>> host_mats(a.mats.size());
        std::vector<MatView<T>> views(a.mats.size());
        for (size_t i = covered; i < a.mats.size(); ++i) {
            const Buffer &m = *a.mats[i];
            host_mats[i].resize(m.rows * m.base_cols());
            for (const Shard &s : shards(m))
                parts_[s.dev]->copy_peer(s.data, 0, host_mats[i].data() + s.col0 * m.ext * m.rows, 0,
                                         m.rows * s.cols * m.ext * sizeof(T), 1);
            views[i] = {host_mats[i].data(), m.rows, m.base_cols(), m.rows};
        }
        hvector<W> layer(P * d), next;
        parts_[0]->read_tree(t, merkle_layer_offset(a.log_h, log_b) * db, layer.data(), P * db);
        for (uint32_t k = log_b + 1; k <= a.log_h; ++k) {
            const uint64_t m = H >> k;
            next.assign(m * d, W{});
            for (uint64_t i = 0; i < m; ++i)
                merkle_node(h, layer.data(), i, views.data(), a.groups[k].first, a.groups[k].second, nullptr,
                            next.data() + i * d);
            parts_[0]->copy_peer(next.data(), 0, static_cast<char *>(t.nodes) + merkle_layer_offset(a.log_h, k) * db,
                                 0, m * db, 1);
            layer.swap(next);
        }
    });
}

// Paths from device 0's nodes; rows from every device holding some of
// them, interleaved back into the caller's row order.
void MultiBackend::merkle_open(const MerkleTree &t, const uint64_t *indices, uint64_t count, void *rows,
                               void *paths) {
    if (paths) {
        MerkleTree nodes_only = t;
        nodes_only.committed.clear();
        named(0, [&] {
            parts_[0]->merkle_open(nodes_only, indices, count, nullptr, paths);
            return 0;
        });
    }
    if (!rows) return;
    // Per device: views of its shards in the committed order, and the
    // byte length of its part of an opened row.
    std::vector<std::vector<Buffer>> views(n());
    std::vector<uint64_t> len(n(), 0);
    for (const Buffer *m : t.committed)
        for (const Shard &s : shards(*m)) {
            views[s.dev].push_back(view(*m, s));
            len[s.dev] += s.cols * m->ext * m->field->elem_size;
        }
    std::vector<hvector<char>> got(n());
    each([&](uint32_t d) {
        if (views[d].empty()) return;
        MerkleTree part = t;
        part.nodes = nullptr;
        part.committed.clear();
        for (const Buffer &v : views[d]) part.committed.push_back(&v);
        got[d].resize(count * len[d]);
        parts_[d]->merkle_open(part, indices, count, got[d].data(), nullptr);
    });
    char *out = static_cast<char *>(rows);
    for (uint64_t q = 0; q < count; ++q) {
        std::vector<uint64_t> at(n(), 0);
        for (const Buffer *m : t.committed)
            for (const Shard &s : shards(*m)) {
                const uint64_t bytes = s.cols * m->ext * m->field->elem_size;
                std::memcpy(out, got[s.dev].data() + q * len[s.dev] + at[s.dev], bytes);
                at[s.dev] += bytes;
                out += bytes;
            }
    }
}

// ---- OOD sums and DEEP ----

void MultiBackend::ood_sums(const OodArgs &a, uint64_t *out) {
    std::vector<std::vector<Buffer>> views(n());
    std::vector<uint64_t> words(n(), 0);
    for (const Buffer *b : a.bufs)
        for (const Shard &s : shards(*b)) {
            views[s.dev].push_back(view(*b, s));
            words[s.dev] += s.cols * b->ext * a.E;
        }
    std::vector<std::vector<uint64_t>> got(n());
    each([&](uint32_t d) {
        if (views[d].empty()) return;
        OodArgs p = a;
        p.bufs.clear();
        for (const Buffer &v : views[d]) p.bufs.push_back(&v);
        got[d].resize(words[d]);
        parts_[d]->ood_sums(p, got[d].data());
    });
    std::vector<uint64_t> at(n(), 0);
    for (const Buffer *b : a.bufs)
        for (const Shard &s : shards(*b)) {
            const uint64_t w = s.cols * b->ext * a.E;
            std::copy(got[s.dev].begin() + at[s.dev], got[s.dev].begin() + at[s.dev] + w, out);
            at[s.dev] += w;
            out += w;
        }
}

// Q = sum_j (sum_k alpha_jk f_k - corr_j) / (x - z_j) is linear in the
// columns: each device composes its own (with the alphas of their global
// indices; the first device with columns subtracts corr), and the partial
// compositions are added on device 0 where the output lives.
void MultiBackend::deep(const DeepArgs &a) {
    if (!a.out->shards.empty()) fail(GP_ERR_INTERNAL, "the DEEP output is spread over devices");
    std::vector<std::vector<Buffer>> views(n());
    std::vector<std::vector<uint64_t>> cols(n());  // global extension-column indices
    uint64_t k = 0;
    for (const Buffer *b : a.bufs)
        for (const Shard &s : shards(*b)) {
            views[s.dev].push_back(view(*b, s));
            for (uint64_t c = 0; c < s.cols; ++c) cols[s.dev].push_back(k + c);
            k += s.cols;
        }
    std::vector<uint32_t> busy;
    for (uint32_t d = 0; d < n(); ++d)
        if (!views[d].empty()) busy.push_back(d);
    if (busy.size() == 1 && busy[0] == 0) {
        DeepArgs p = a;
        p.bufs.clear();
        for (const Buffer &v : views[0]) p.bufs.push_back(&v);
        named(0, [&] {
            parts_[0]->deep(p);
            return 0;
        });
        return;
    }
    const uint64_t out_bytes = a.out->bytes;
    Scratch scratch(parts_);
    std::vector<Buffer> partial(n());
    for (uint32_t d : busy) {
        partial[d] = *a.out;
        partial[d].owned = false;
        partial[d].release = nullptr;
        partial[d].data = d == 0 ? a.out->data : scratch.get(d, out_bytes);
    }
    each([&](uint32_t d) {
        if (views[d].empty()) return;
        DeepArgs p = a;
        p.bufs.clear();
        for (const Buffer &v : views[d]) p.bufs.push_back(&v);
        p.ncols = cols[d].size();
        p.alpha.assign(a.npoints * p.ncols * a.E, 0);
        for (uint32_t j = 0; j < a.npoints; ++j)
            for (uint64_t c = 0; c < p.ncols; ++c)
                for (uint32_t e = 0; e < a.E; ++e)
                    p.alpha[(j * p.ncols + c) * a.E + e] = a.alpha[(j * a.ncols + cols[d][c]) * a.E + e];
        if (d != busy[0]) p.corr.assign(a.corr.size(), 0);
        p.out = &partial[d];
        parts_[d]->deep(p);
    });
    // Sum into device 0's output.
    void *stage = nullptr;
    for (uint32_t d : busy) {
        if (d == 0) continue;
        if (d == busy[0]) {  // device 0 has no columns: the first partial is the start
            parts_[d]->copy_peer(partial[d].data, 0, a.out->data, 0, out_bytes, 1);
            continue;
        }
        if (!stage) stage = scratch.get(0, out_bytes);
        parts_[d]->copy_peer(partial[d].data, 0, stage, 0, out_bytes, 1);
        parts_[0]->bind_thread();
        parts_[0]->add_into(*a.out->field, a.out->data, stage, a.out->rows * a.out->base_cols());
    }
}

}  // namespace

std::unique_ptr<Backend> make_multi_backend(std::vector<std::unique_ptr<Backend>> parts) {
    return std::make_unique<MultiBackend>(std::move(parts));
}

void Backend::device_info(uint32_t, gp_device_info &out) {
    out.ordinal = device_ordinal();
    const std::string name = device_name();
    const size_t len = std::min(name.size(), sizeof(out.name) - 1);
    std::memcpy(out.name, name.data(), len);
    out.name[len] = '\0';
    out.buffer_bytes = 0;
    out.cache_bytes = cache_bytes();
    out.allocations = allocations();
    mem_info(out.free_bytes, out.total_bytes);
}

}  // namespace gp
