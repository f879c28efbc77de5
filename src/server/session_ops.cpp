// SPDX-License-Identifier: MIT OR Apache-2.0
#include "server/session_ops.h"

#include <algorithm>
#include <cstring>
#include <unistd.h>

#include "core/checks.h"
#include "core/merkle_ops.h"
#include "core/merkle_tree.h"
#include "core/quotient.h"
#include "server/limits.h"

namespace gp {
namespace server {

namespace {

// ---- memory ----

uint64_t round_up(uint64_t x, uint64_t a) { return (x + a - 1) / a * a; }

}  // namespace

SessionMemory::~SessionMemory() { clear(); }

uint64_t SessionMemory::add(void *real, uint64_t bytes) {
    const uint64_t a = next_;
    next_ += round_up(std::max<uint64_t>(bytes, 1), 1ull << 12) + (1ull << 12);  // a gap between allocations
    allocs_[a] = Alloc{real, bytes};
    bytes_ += bytes;
    return a;
}

uint64_t SessionMemory::remove(uint64_t addr) {
    auto it = allocs_.find(addr);
    if (it == allocs_.end())
        fail(GP_ERR_INVALID_ARGUMENT, "address 0x", std::hex, addr, std::dec, " is no allocation of this session");
    const uint64_t n = it->second.bytes;
    backend_.free_buffer(it->second.real);
    bytes_ -= n;
    allocs_.erase(it);
    return n;
}

void *SessionMemory::resolve(uint64_t addr, uint64_t extent, const char *what) const {
    auto it = allocs_.upper_bound(addr);
    if (it != allocs_.begin()) {
        --it;
        const uint64_t off = addr - it->first;
        if (off <= it->second.bytes && extent <= it->second.bytes - off)
            return static_cast<char *>(it->second.real) + off;
    }
    fail(GP_ERR_INVALID_ARGUMENT, what, ": [0x", std::hex, addr, ", +0x", extent, std::dec,
         ") is not memory of this session");
}

void SessionMemory::attach_region(uint64_t id, int fd, uint64_t bytes) {
    if (id == 0 || regions_.count(id)) {
        close(fd);
        fail(GP_ERR_INVALID_ARGUMENT, "attach_region: region id ", id, " is taken or invalid");
    }
    if (regions_.size() >= max_regions_) {
        close(fd);
        fail(GP_ERR_HOST_OUT_OF_MEMORY, "attach_region: the session holds ", regions_.size(),
             " shared regions, the server's limit (detach one first)");
    }
    auto r = std::make_unique<ShmRegion>();
    r->map(fd, bytes);
    backend_.pin_host(r->data(), bytes);
    regions_[id] = std::move(r);
}

void SessionMemory::detach_region(uint64_t id) {
    auto it = regions_.find(id);
    if (it == regions_.end()) fail(GP_ERR_INVALID_ARGUMENT, "detach_region: no region ", id);
    backend_.unpin_host(it->second->data());
    regions_.erase(it);
}

char *SessionMemory::host(const v1::HostData &d, uint64_t size, uint64_t align, const char *what) const {
    if (d.size() != size) fail(GP_ERR_INVALID_ARGUMENT, what, ": ", d.size(), " bytes sent, ", size, " expected");
    // Windows and regions are mapped on page boundaries: an aligned offset
    // is an aligned address.
    if (d.offset() % align)
        fail(GP_ERR_INVALID_ARGUMENT, what, ": offset ", d.offset(), " is not a multiple of ", align, " bytes");
    if (!d.region()) return window(d.offset(), size, what);
    auto it = regions_.find(d.region());
    if (it == regions_.end()) fail(GP_ERR_INVALID_ARGUMENT, what, ": no shared region ", d.region());
    const uint64_t have = it->second->size();
    if (d.offset() > have || size > have - d.offset())
        fail(GP_ERR_INVALID_ARGUMENT, what, ": bytes [", d.offset(), ", ", d.offset() + size, ") exceed region ",
             d.region(), " of ", have, " bytes");
    return it->second->data() + d.offset();
}

void SessionMemory::clear() {
    for (auto &r : regions_) backend_.unpin_host(r.second->data());
    regions_.clear();
    for (auto &a : allocs_) backend_.free_buffer(a.second.real);
    allocs_.clear();
    bytes_ = 0;
    unpin();
    shm_.reset();
    priv_.reset();
    priv_bytes_ = 0;
}

void SessionMemory::unpin() {
    if (shm_.size()) backend_.unpin_host(shm_.data());
}

void SessionMemory::attach_shared(int fd, uint64_t bytes) {
    unpin();
    priv_.reset();
    priv_bytes_ = 0;
    shm_.map(fd, bytes);
    backend_.pin_host(shm_.data(), bytes);
}

void SessionMemory::attach_private(uint64_t bytes) {
    unpin();
    shm_.reset();
    priv_.reset();
    priv_bytes_ = 0;
    priv_.reset(new (std::nothrow) char[bytes]);
    if (!priv_) fail(GP_ERR_HOST_OUT_OF_MEMORY, "the server cannot allocate a ", bytes, "-byte window");
    priv_bytes_ = bytes;
}

char *SessionMemory::window(uint64_t offset, uint64_t size, const char *what) const {
    const uint64_t have = shm_.size() ? shm_.size() : priv_bytes_;
    char *base = shm_.size() ? shm_.data() : priv_.get();
    if (offset > have || size > have - offset)
        fail(GP_ERR_INVALID_ARGUMENT, what, ": bytes [", offset, ", ", offset + size, ") exceed the session's ",
             have, "-byte window");
    return base + offset;
}

namespace {

// ---- checks of what a request names ----

// Enums arrive as raw integers: each is checked as an int before it becomes
// the C enum (loading an out-of-range value as an enum is undefined).
const FieldDesc &field_of(int v, const char *what) {
    if (field_elem_size(v) == 0) fail(GP_ERR_INVALID_ARGUMENT, what, " = ", v, " is not a gp_field");
    gp_field g;
    std::memcpy(&g, &v, sizeof v);
    return field_desc(g, what);
}

// A session address of elements of `align` bytes.
uint64_t aligned(uint64_t addr, uint64_t align, const char *what) {
    if (addr % align)
        fail(GP_ERR_INVALID_ARGUMENT, what, ": address 0x", std::hex, addr, std::dec, " is not a multiple of ", align,
             " bytes");
    return addr;
}

// The backend memory of [addr, addr + bytes) of elements of `align` bytes.
void *memory_of(const SessionMemory &mem, uint64_t addr, uint64_t bytes, uint64_t align, const char *what) {
    return mem.resolve(aligned(addr, align, what), bytes, what);
}

void check_log(uint32_t v, uint32_t max, const char *what) {
    if (v > max) fail(GP_ERR_INVALID_ARGUMENT, what, " = ", v, " exceeds ", max);
}

// Bytes from a buffer's first element to past its last: rows x base
// columns, or (base columns - 1) x stride + rows elements when strided;
// every product and sum checked.
uint64_t buffer_extent(const Buffer &b, const char *what) {
    if (!b.stride) return b.bytes;
    if (b.stride < b.rows) fail(GP_ERR_INVALID_ARGUMENT, what, ": stride ", b.stride, " < rows ", b.rows);
    const uint64_t elems = checked_add(checked_mul(b.base_cols() - 1, b.stride, what), b.rows, what);
    return checked_mul(elems, b.field->elem_size, what);
}

// A buffer the request names, its memory resolved.
Buffer buffer_of(const SessionMemory &mem, const v1::BufferRef &r, const char *what) {
    Buffer b;
    b.field = &field_of(r.field(), what);
    check_ext_degree(*b.field, r.ext(), what);
    b.ext = r.ext();
    b.rows = r.rows();
    b.cols = r.cols();
    if (b.rows == 0 || b.rows > (1ull << kMaxLog) || b.cols > kMaxCols)
        fail(GP_ERR_INVALID_ARGUMENT, what, ": ", b.rows, " x ", b.cols, " is no buffer shape");
    b.bytes = checked_mul(checked_mul(b.rows, b.base_cols(), what), b.field->elem_size, what);
    b.stride = r.stride();
    if (b.cols == 0) return b;  // a matrix of width 0: no memory
    b.data = memory_of(mem, r.addr(), buffer_extent(b, what), b.field->elem_size, what);
    return b;
}

// The buffers of a repeated field, kept at stable addresses.
std::vector<Buffer> buffers_of(const SessionMemory &mem,
                               const google::protobuf::RepeatedPtrField<v1::BufferRef> &refs, const char *what) {
    if ((uint64_t)refs.size() > kMaxBuffers)
        fail(GP_ERR_INVALID_ARGUMENT, what, ": ", refs.size(), " buffers, more than ", kMaxBuffers);
    std::vector<Buffer> out;
    out.reserve(refs.size());
    uint64_t named = 0;
    const uint64_t cap = checked_mul(kMaxRepeat, mem.bytes(), what);
    for (const auto &r : refs) {
        out.push_back(buffer_of(mem, r, what));
        if (out.back().cols) named = checked_add(named, buffer_extent(out.back(), what), what);
        if (named > cap)
            fail(GP_ERR_INVALID_ARGUMENT, what, ": the buffers name ", named, " bytes, more than ", kMaxRepeat,
                 " times the session's ", mem.bytes());
    }
    return out;
}

std::vector<const Buffer *> pointers(const std::vector<Buffer> &v) {
    std::vector<const Buffer *> p;
    for (const Buffer &b : v) p.push_back(&b);
    return p;
}

// A tree spec the library itself would build.
TreeSpec spec_of(const v1::TreeSpec &r) {
    const TreeSpec s = wire::get_spec(r);
    gp_merkle_options o;
    gp_merkle_options_init(&o);
    std::memcpy(&o.kind, &s.kind, sizeof(int));
    std::memcpy(&o.perm, &s.perm, sizeof(int));
    std::memcpy(&o.compress_perm, &s.compress_perm, sizeof(int));
    const FieldDesc *f = nullptr;
    for (int id = 1; id <= 3 && !f; ++id) {
        const FieldDesc &d = field_of(id, "field");
        if (s.field == 0 || s.field == id) f = &d;
    }
    if (!f) fail(GP_ERR_INVALID_ARGUMENT, "tree: field ", s.field, " is no gp_field");
    auto same = [&](const TreeSpec &v) { return wire::same_spec(v, s); };
    TreeSpec v = tree_spec(o, *f, "tree");
    if (same(v)) return s;
    o.rate = s.rate;
    o.digest = s.digest;
    try {
        v = tree_spec(o, *f, "tree");
    } catch (const Error &) {
    }
    if (!same(v)) fail(GP_ERR_INVALID_ARGUMENT, "tree: the profile is not one the library builds");
    return s;
}

// The column buffers of an OOD or DEEP request: 2^log_m rows of field f.
std::vector<Buffer> columns_of(const SessionMemory &mem, const google::protobuf::RepeatedPtrField<v1::BufferRef> &refs,
                               const FieldDesc &f, uint32_t E, uint32_t log_m, const char *what) {
    std::vector<Buffer> bufs = buffers_of(mem, refs, what);
    for (const Buffer &b : bufs)
        if (b.rows != (1ull << log_m) || b.field != &f || b.stride || (b.ext != 1 && b.ext != E))
            fail(GP_ERR_INVALID_ARGUMENT, what, ": a buffer of another shape (columns are ", 1ull << log_m,
                 " rows of degree 1 or ", E, " over the request's field)");
    return bufs;
}

uint64_t tree_nodes(uint32_t log_h) { return (2ull << log_h) - 1; }

// A committed tree the request names: its nodes and matrices resolved.
struct TreeView {
    std::vector<Buffer> mats;
    MerkleTree t;
};

// `matrices` / `nodes`: the request reads the committed rows / the tree's
// nodes (a streamed commitment that kept its LDE in host memory opens paths
// without matrices, and recomputed rows without nodes).
void tree_of(const SessionMemory &mem, const v1::TreeRef &r, TreeView &v, bool matrices = true, bool nodes = true) {
    v.t.spec = spec_of(r.spec());
    v.t.cap_height = r.cap_height();
    v.t.log_h = r.log_h();
    check_log(v.t.log_h, kMaxLog, "tree log_h");
    if (v.t.cap_height > v.t.log_h) fail(GP_ERR_INVALID_ARGUMENT, "tree: cap height exceeds log_h");
    const uint64_t bytes = checked_mul(tree_nodes(v.t.log_h), v.t.digest_bytes(), "tree bytes");
    if (nodes) v.t.nodes = memory_of(mem, r.nodes(), bytes, 8, "tree nodes");
    v.mats = buffers_of(mem, r.committed(), "tree matrices");
    if (v.mats.empty() && matrices) fail(GP_ERR_INVALID_ARGUMENT, "tree: no matrices");
    for (const Buffer &b : v.mats) {
        if (!is_pow2(b.rows) || b.rows > (1ull << v.t.log_h) || b.field != v.mats[0].field)
            fail(GP_ERR_INVALID_ARGUMENT, "tree matrices: ", b.rows, " rows do not fit a tree of height 2^",
                 v.t.log_h);
        v.t.committed.push_back(&b);
    }
    if (v.t.spec.field && !v.mats.empty() && (int)v.mats[0].field->id != v.t.spec.field)
        fail(GP_ERR_FIELD_MISMATCH, "tree: matrices of another field than the profile's");
}

uint64_t host_bytes(const FieldDesc &f, uint64_t rows, uint64_t base_cols) {
    return checked_mul(checked_mul(rows, base_cols, "elements"), f.elem_size, "bytes");
}

// Bytes of a FRI layer of 2^log_n values of `ext` elements.
uint64_t layer_bytes(uint32_t elem_size, uint32_t ext, uint32_t log_n) {
    if (log_n > kMaxLog) fail(GP_ERR_INVALID_ARGUMENT, "fri: log_n = ", log_n, " exceeds ", kMaxLog);
    return checked_mul(checked_mul(1ull << log_n, ext, "layer elements"), elem_size, "layer bytes");
}

// A reply of `bytes` bytes fits a message.
void check_reply(uint64_t bytes, const char *what) {
    if (bytes > kMaxReplyBytes)
        fail(GP_ERR_INVALID_ARGUMENT, what, ": the answer of ", bytes, " bytes exceeds ", kMaxReplyBytes,
             " (ask in parts)");
}

}  // namespace

uint64_t reply_bound(const v1::Request &q) {
    switch (q.op_case()) {
        case v1::Request::kGet: return std::min(q.get().size(), kMaxChunkBytes);
        case v1::Request::kReadTree: return std::min(q.read_tree().bytes(), kMaxChunkBytes);
        case v1::Request::kMerkleOpen:
        case v1::Request::kOod: return kMaxReplyBytes;
        default: return 0;
    }
}

bool is_job(const v1::Request &q) {
    switch (q.op_case()) {
        case v1::Request::kHello:
        case v1::Request::kFree:
        case v1::Request::kAttachShm:
        case v1::Request::kPut:
        case v1::Request::kGet:
        case v1::Request::kAttachRegion:
        case v1::Request::kDetachRegion:
        case v1::Request::kInfo:
        case v1::Request::kTrim:
        case v1::Request::kCancel:
        case v1::Request::kAck:
        case v1::Request::kReadTree: return false;
        default: return true;
    }
}

void run_op(Backend &be, SessionMemory &mem, const v1::Request &q, v1::Reply &rep) {
    switch (q.op_case()) {
        case v1::Request::kFree: mem.remove(q.free().addr()); return;
        case v1::Request::kDetachRegion: mem.detach_region(q.detach_region().id()); return;
        case v1::Request::kPut: {
            const auto &p = q.put();
            char *dst = mem.window(p.offset(), p.data().size(), "put");
            if (!p.data().empty()) std::memcpy(dst, p.data().data(), p.data().size());
            return;
        }
        case v1::Request::kGet: {
            const auto &g = q.get();
            if (g.size() > kMaxChunkBytes) fail(GP_ERR_INVALID_ARGUMENT, "get: ", g.size(), " bytes at once");
            rep.set_data(mem.window(g.offset(), g.size(), "get"), g.size());
            return;
        }
        case v1::Request::kCheckValues: {
            const Buffer b = buffer_of(mem, q.check_values().buf(), "buf");
            be.check_buffer_values(b, q.check_values().arg().c_str());
            return;
        }
        case v1::Request::kUpload: {
            const auto &u = q.upload();
            Buffer b = buffer_of(mem, u.dst(), "dst");
            const gp_layout layout = layout_from(u.layout(), "layout");
            be.upload(b, mem.host(u.data(), b.bytes, b.field->elem_size, "upload"), layout, u.arg().c_str());
            return;
        }
        case v1::Request::kDownload: {
            const auto &d = q.download();
            const Buffer b = buffer_of(mem, d.src(), "src");
            const gp_layout layout = layout_from(d.layout(), "layout");
            be.download(b, mem.host(d.data(), b.bytes, b.field->elem_size, "download"), layout);
            return;
        }
        case v1::Request::kLde: {
            const auto &l = q.lde();
            LdeArgs a;
            a.field = &field_of(l.field(), "field");
            check_ext_degree(*a.field, l.ext());
            a.ext = l.ext();
            a.rows_in = l.rows_in();
            a.cols = l.cols();
            a.log_n = l.log_n();
            a.log_blowup = l.log_blowup();
            if (a.log_n + (uint64_t)a.log_blowup > a.field->two_adicity || a.rows_in == 0 ||
                a.rows_in > (1ull << a.log_n) || a.cols == 0)
                fail(GP_ERR_INVALID_ARGUMENT, "lde: inconsistent sizes");
            check_shift(*a.field, l.shift(), "shift");
            check_shift(*a.field, l.input_shift(), "input_shift");
            a.shift = l.shift();
            a.input_shift = l.input_shift();
            a.order = order_from(l.order(), "order");
            a.in_layout = layout_from(l.in_layout(), "in_layout");
            Buffer out = buffer_of(mem, l.out(), "out");
            if (out.field != a.field || out.ext != a.ext || out.cols != a.cols ||
                out.rows != (1ull << (a.log_n + a.log_blowup)) || out.stride)
                fail(GP_ERR_SHAPE_MISMATCH, "lde: out does not match the transform");
            a.out = &out;
            Buffer in;
            if (l.has_in_buf()) {
                in = buffer_of(mem, l.in_buf(), "in");
                if (in.field != a.field || in.ext != a.ext || in.cols != a.cols || in.rows < a.rows_in || in.stride)
                    fail(GP_ERR_SHAPE_MISMATCH, "lde: in does not match the transform");
                a.in_buf = &in;
            } else {
                const uint64_t bytes = host_bytes(*a.field, a.rows_in, a.cols * a.ext);
                a.in_host = mem.host(l.in_host(), bytes, a.field->elem_size, "lde input");
            }
            if (l.rand_m() || !l.rand_add().empty()) {
                // As lde_adds_randomizers admits them: m <= n, B m <= max(n, nB/8).
                const uint64_t n = 1ull << a.log_n, m = l.rand_m();
                if (!be.lde_adds() || m == 0 || m > n || (m << a.log_blowup) > std::max(n, (n << a.log_blowup) / 8))
                    fail(GP_ERR_INVALID_ARGUMENT, "lde: rand_m = ", m, " is not added inside an LDE of n = ", n,
                         " and blowup ", 1ull << a.log_blowup);
                const uint64_t elems = checked_mul(a.cols * a.ext, m << a.log_blowup, "lde: rand_add elements");
                if (l.rand_add().size() != checked_mul(elems, a.field->elem_size, "lde: rand_add bytes"))
                    fail(GP_ERR_SHAPE_MISMATCH, "lde: rand_add has ", l.rand_add().size(), " bytes, not ", elems,
                         " elements");
                const uint64_t bad = first_non_canonical(*a.field, l.rand_add().data(), 0, elems);
                if (bad < elems) fail_non_canonical(*a.field, l.rand_add().data(), bad, "lde: rand_add");
                a.rand_add = l.rand_add().data();
                a.rand_m = m;
            }
            be.lde(a);
            return;
        }
        case v1::Request::kNtt: {
            const auto &n = q.ntt();
            Buffer b = buffer_of(mem, n.buf(), "buf");
            if (b.stride) fail(GP_ERR_INVALID_ARGUMENT, "ntt: strided buffer");
            check_log_size(*b.field, b.rows, "rows");
            NttArgs a;
            if (n.direction() != GP_NTT_FORWARD && n.direction() != GP_NTT_INVERSE)
                fail(GP_ERR_INVALID_ARGUMENT, "direction = ", n.direction(), " is not a gp_ntt_direction");
            a.direction = static_cast<gp_ntt_direction>(n.direction());
            check_shift(*b.field, n.shift(), "shift");
            a.shift = n.shift();
            a.input_order = order_from(n.input_order(), "input_order");
            a.output_order = order_from(n.output_order(), "output_order");
            be.ntt(b, a);
            return;
        }
        case v1::Request::kPermute: {
            const auto &p = q.permute();
            const PermShape s = perm_shape(p.perm(), "perm");
            if (const char *hash = perm::hash_name(p.perm()))  // no permutation to run
                fail(GP_ERR_UNSUPPORTED, "permute: perm = ", hash, " is a hash function");
            if (p.count() > (1ull << kMaxLog)) fail(GP_ERR_INVALID_ARGUMENT, "permute: count");
            const uint64_t bytes = checked_mul(checked_mul(p.count(), s.width, "count"), s.elem_size, "bytes");
            be.permute(p.perm(), mem.host(p.states(), bytes, s.elem_size, "permute"), p.count());
            return;
        }
        case v1::Request::kMerkleCommit: {
            const auto &m = q.merkle_commit();
            MerkleArgs a;
            a.spec = spec_of(m.spec());
            a.cap_height = m.cap_height();
            a.log_h = m.log_h();
            a.leaves_only = m.leaves_only();
            check_log(a.log_h, kMaxLog, "log_h");
            if (a.cap_height > a.log_h) fail(GP_ERR_INVALID_ARGUMENT, "cap_height exceeds log_h");
            const std::vector<Buffer> mats = buffers_of(mem, m.mats(), "matrices");
            // One group per layer of the tree: the backend reads all log_h + 1.
            if (mats.empty() || m.group_begin_size() != m.group_end_size() ||
                (uint64_t)m.group_begin_size() != (uint64_t)a.log_h + 1)
                fail(GP_ERR_INVALID_ARGUMENT, "merkle_commit: ", m.group_begin_size(), " groups for a tree of ",
                     (uint64_t)a.log_h + 1, " layers");
            a.mats = pointers(mats);
            // The groups cover the matrices in order; group k has height
            // 2^(log_h - k). Lifted trees (Miden's LMCS): every matrix in
            // group 0, powers of two up to 2^log_h in ascending order.
            const bool lifted = lifted_kind(a.spec.kind);
            uint32_t next = 0;
            for (int k = 0; k < m.group_begin_size(); ++k) {
                const uint32_t b = m.group_begin(k), e = m.group_end(k);
                if (b != next || e < b || e > mats.size() || (lifted && k > 0 && e != b))
                    fail(GP_ERR_INVALID_ARGUMENT, "merkle_commit: malformed groups");
                for (uint32_t i = b; i < e; ++i) {
                    const bool height_ok =
                        lifted ? is_pow2(mats[i].rows) && mats[i].rows <= (1ull << a.log_h) &&
                                     (i == 0 || mats[i].rows >= mats[i - 1].rows)
                               : mats[i].rows == (1ull << (a.log_h - k));
                    if (!height_ok || mats[i].field != mats[0].field)
                        fail(GP_ERR_INVALID_ARGUMENT, "merkle_commit: matrix ", i, " is not of its group's height");
                }
                a.groups.push_back({b, e});
                next = e;
            }
            if (next != mats.size() || (lifted ? mats.back().rows : mats[0].rows) != (1ull << a.log_h))
                fail(GP_ERR_INVALID_ARGUMENT, "merkle_commit: malformed groups");
            if (a.spec.field && (int)mats[0].field->id != a.spec.field)
                fail(GP_ERR_FIELD_MISMATCH, "merkle_commit: matrices of another field than the profile's");
            MerkleTree t;
            t.spec = a.spec;
            t.cap_height = a.cap_height;
            t.log_h = a.log_h;
            for (const Buffer &b : mats) t.committed.push_back(&b);
            const uint64_t nodes = a.leaves_only ? (1ull << a.log_h) : tree_nodes(a.log_h);
            t.nodes = memory_of(mem, m.nodes(), checked_mul(nodes, t.digest_bytes(), "tree bytes"), 8, "tree nodes");
            be.merkle_commit(a, t);
            return;
        }
        case v1::Request::kReadTree: {
            const auto &r = q.read_tree();
            if (r.bytes() > kMaxChunkBytes) fail(GP_ERR_INVALID_ARGUMENT, "read_tree: too many bytes at once");
            TreeView v;
            v.t.spec = spec_of(r.tree().spec());
            v.t.log_h = r.tree().log_h();
            v.t.cap_height = r.tree().cap_height();
            if (r.offset() > (1ull << 50)) fail(GP_ERR_INVALID_ARGUMENT, "read_tree: offset");
            check_log(v.t.log_h, kMaxLog, "tree log_h");
            v.t.nodes = memory_of(mem, r.tree().nodes(), r.offset() + r.bytes(), 8, "tree nodes");
            std::string out(r.bytes(), '\0');
            be.read_tree(v.t, r.offset(), &out[0], r.bytes());
            rep.set_data(std::move(out));
            return;
        }
        case v1::Request::kMerkleOpen: {
            const auto &m = q.merkle_open();
            TreeView v;
            tree_of(mem, m.tree(), v, m.rows(), m.paths());
            if ((uint64_t)m.indices_size() > kMaxIndices) fail(GP_ERR_INVALID_ARGUMENT, "merkle_open: too many indices");
            for (uint64_t i : m.indices())
                if (i >> v.t.log_h) fail(GP_ERR_INVALID_ARGUMENT, "merkle_open: index ", i, " out of range");
            const uint64_t n = m.indices_size();
            const uint64_t rb = m.rows() ? checked_mul(n, opened_row_bytes(v.t.committed), "merkle_open rows") : 0;
            const uint64_t pb =
                m.paths() ? checked_mul(checked_mul(n, v.t.path_len(), "paths"), v.t.digest_bytes(), "paths") : 0;
            check_reply(checked_add(rb, pb, "merkle_open"), "merkle_open");
            // Rows and paths in buffers of their own, aligned for their words.
            std::vector<uint64_t> rows((rb + 7) / 8), paths((pb + 7) / 8);
            be.merkle_open(v.t, m.indices().data(), n, m.rows() ? rows.data() : nullptr,
                           m.paths() ? paths.data() : nullptr);
            std::string out(rb + pb, '\0');
            if (rb) std::memcpy(&out[0], rows.data(), rb);
            if (pb) std::memcpy(&out[0] + rb, paths.data(), pb);
            rep.set_data(std::move(out));
            return;
        }
        case v1::Request::kFriFold: {
            const auto &f = q.fri_fold();
            FriFoldArgs a;
            const FieldDesc &fd = field_of(f.field(), "field");
            check_ext_degree(fd, f.ext());
            a.field = fd.id;
            a.ext = f.ext();
            a.log_n = f.log_n();
            a.log_a = f.log_a();
            // Arity 2, 4 or 8; a layer that is not the last is stored in rows
            // of 2^log_a values (or one per leaf), so it holds at least one.
            const uint32_t log_leaf = f.leaf_element() ? 0 : a.log_a;
            if (a.log_a < 1 || a.log_a > kMaxFriLogArity || a.log_n > fd.two_adicity || a.log_n < a.log_a ||
                (!f.final_out() && a.log_n - a.log_a < log_leaf))
                fail(GP_ERR_INVALID_ARGUMENT, "fri_fold: log_n = ", a.log_n, ", log_a = ", a.log_a,
                     " is no fold (arity 2 to 8, and a next layer of one stored row at least)");
            a.bitrev = f.bitrev();
            a.halve = f.halve();
            a.final_out = f.final_out();
            a.omega_inv = f.omega_inv();
            a.shift_inv = f.shift_inv();
            a.zeta_inv = f.zeta_inv();
            a.ext_kind = check_extension(fd, a.ext, (int)f.ext_kind(), "fri_fold: ext_kind");
            a.leaf_element = f.leaf_element();
            if (f.beta_size() > 4) fail(GP_ERR_INVALID_ARGUMENT, "fri_fold: beta");
            for (int i = 0; i < f.beta_size(); ++i) a.beta[i] = f.beta(i);
            const uint64_t in_bytes = layer_bytes(fd.elem_size, a.ext, a.log_n);
            a.in = memory_of(mem, f.in(), in_bytes, fd.elem_size, "fri in");
            a.out = memory_of(mem, f.out(), in_bytes >> a.log_a, fd.elem_size, "fri out");
            be.fri_fold(a);
            return;
        }
        case v1::Request::kFriToMatrix: {
            const auto &f = q.fri_to_matrix();
            if ((f.elem_size() != 4 && f.elem_size() != 8) || f.ext() < 1 || f.ext() > 4 || f.log_n() > kMaxLog ||
                f.log_a() > kMaxFriLogArity || f.log_a() > f.log_n())
                fail(GP_ERR_INVALID_ARGUMENT, "fri_to_matrix: sizes");
            const uint64_t bytes = layer_bytes(f.elem_size(), f.ext(), f.log_n());
            be.fri_to_matrix(f.elem_size(), f.ext(), f.log_n(), f.log_a(), f.bitrev(),
                             memory_of(mem, f.in(), bytes, f.elem_size(), "fri in"),
                             memory_of(mem, f.out(), bytes, f.elem_size(), "fri out"));
            return;
        }
        case v1::Request::kCopyRows: {
            const auto &c = q.copy_rows();
            const Buffer src = buffer_of(mem, c.src(), "src");
            Buffer dst = buffer_of(mem, c.dst(), "dst");
            if (src.field != dst.field || src.ext != dst.ext || c.src_col() >= src.cols || c.dst_col() >= dst.cols ||
                c.count() > dst.rows || src.stride || dst.stride ||
                (c.count() && (c.stride() == 0 || c.start() >= src.rows ||
                               (c.count() - 1) > (src.rows - 1 - c.start()) / c.stride())))
                fail(GP_ERR_INVALID_ARGUMENT, "copy_rows: out of range");
            be.copy_rows(src, c.src_col(), c.start(), c.stride(), c.count(), dst, c.dst_col());
            return;
        }
        case v1::Request::kOod: {
            const auto &o = q.ood();
            OodArgs a;
            const FieldDesc &fd = field_of(o.field(), "field");
            a.field = fd.id;
            check_ext_degree(fd, o.e(), "E");
            a.E = o.e();
            a.ext_kind = check_extension(fd, a.E, (int)o.ext_kind(), "ood: ext_kind");
            a.log_m = o.log_m();
            a.log_nb = o.log_nb();
            if (a.log_m > fd.two_adicity || a.log_nb > a.log_m) fail(GP_ERR_INVALID_ARGUMENT, "ood: sizes");
            a.bitrev = o.bitrev();
            a.shift = o.shift();
            a.omega_n = o.omega_n();
            if ((uint32_t)o.z_size() < a.E || o.z_size() > 4) fail(GP_ERR_INVALID_ARGUMENT, "ood: z");
            for (int e = 0; e < o.z_size(); ++e) a.z[e] = o.z(e);
            // No columns, no data: refused, not 2^log_nb weights computed
            // for nothing (the C entry point takes one buffer at least).
            if (o.bufs_size() == 0) fail(GP_ERR_INVALID_ARGUMENT, "ood: no columns");
            const std::vector<Buffer> bufs = columns_of(mem, o.bufs(), fd, a.E, a.log_m, "ood bufs");
            uint64_t words = 0;
            for (const Buffer &b : bufs) words = checked_add(words, checked_mul(b.base_cols(), a.E, "ood"), "ood");
            check_reply(checked_mul(words, 8, "ood"), "ood");
            a.bufs = pointers(bufs);
            std::vector<uint64_t> out(words);
            be.ood_sums(a, out.data());
            for (uint64_t w : out) rep.add_words(w);
            return;
        }
        case v1::Request::kDeep: {
            const auto &d = q.deep();
            DeepArgs a;
            const FieldDesc &fd = field_of(d.field(), "field");
            a.field = fd.id;
            check_ext_degree(fd, d.e(), "E");
            a.E = d.e();
            a.ext_kind = check_extension(fd, a.E, (int)d.ext_kind(), "deep: ext_kind");
            a.log_m = d.log_m();
            a.npoints = d.npoints();
            if (a.log_m > fd.two_adicity || a.npoints == 0 || a.npoints > 64) fail(GP_ERR_INVALID_ARGUMENT, "deep: sizes");
            a.bitrev = d.bitrev();
            a.shift = d.shift();
            a.omega_m = d.omega_m();
            a.ncols = d.ncols();
            const std::vector<Buffer> bufs = columns_of(mem, d.bufs(), fd, a.E, a.log_m, "deep bufs");
            uint64_t cols = 0;
            for (const Buffer &b : bufs) cols = checked_add(cols, b.cols, "deep columns");
            if (cols != a.ncols || (uint64_t)d.z_size() != (uint64_t)a.npoints * a.E ||
                (uint64_t)d.corr_size() != (uint64_t)a.npoints * a.E ||
                (uint64_t)d.alpha_size() != (uint64_t)a.npoints * a.ncols * a.E)
                fail(GP_ERR_INVALID_ARGUMENT, "deep: inconsistent sizes");
            a.bufs = pointers(bufs);
            a.z.assign(d.z().begin(), d.z().end());
            a.alpha.assign(d.alpha().begin(), d.alpha().end());
            a.corr.assign(d.corr().begin(), d.corr().end());
            Buffer out = buffer_of(mem, d.out(), "out");
            if (out.field != &fd || out.ext != a.E || out.cols != 1 || out.rows != (1ull << a.log_m) || out.stride)
                fail(GP_ERR_SHAPE_MISMATCH, "deep: out");
            a.out = &out;
            be.deep(a);
            return;
        }
        case v1::Request::kQuotient: {
            const auto &d = q.quotient();
            const FieldDesc &fd = field_of(d.field(), "quotient: field");
            // The program is validated and compiled as gp_constraint_program_create
            // does it; the arrays go to it in the field's element size.
            if (d.node_op_size() != d.node_a_size() || d.node_op_size() != d.node_b_size())
                fail(GP_ERR_INVALID_ARGUMENT, "quotient: node arrays of different lengths");
            std::vector<gp_cp_node> nodes((size_t)d.node_op_size());
            for (int i = 0; i < d.node_op_size(); ++i) nodes[(size_t)i] = {d.node_op(i), d.node_a(i), d.node_b(i)};
            const std::vector<uint32_t> cons(d.constraints().begin(), d.constraints().end());
            auto elems = [&](const google::protobuf::RepeatedField<uint64_t> &w) {
                std::vector<unsigned char> out(checked_mul((uint64_t)w.size(), fd.elem_size, "quotient array"));
                words_out(fd, std::vector<uint64_t>(w.begin(), w.end()), out.data());
                return out;
            };
            const std::vector<unsigned char> constants = elems(d.constants()), periodic = elems(d.periodic()),
                                             pub = elems(d.public_values()), chal = elems(d.challenges()),
                                             alpha = elems(d.alpha());
            gp_constraint_program_desc pd;
            gp_constraint_program_desc_init(&pd);
            pd.field = (gp_field)(int)fd.id;
            pd.ext_degree = d.ext();
            pd.main_width = d.main_width();
            pd.preprocessed_width = d.preprocessed_width();
            pd.periodic_width = d.periodic_width();
            pd.public_count = d.public_count();
            pd.challenge_count = d.challenge_count();
            if (nodes.size() > GP_CP_MAX_NODES || cons.size() > GP_CP_MAX_NODES || (uint64_t)d.constants_size() > GP_CP_MAX_NODES)
                fail(GP_ERR_INVALID_ARGUMENT, "quotient: program past its bounds");
            pd.nodes = nodes.data();
            pd.node_count = (uint32_t)nodes.size();
            pd.constants = constants.data();
            pd.constant_count = (uint32_t)d.constants_size();
            pd.constraints = cons.data();
            pd.constraint_count = (uint32_t)cons.size();
            const std::shared_ptr<const CompiledProgram> prog = compile_program(pd);
            // The counts the options' arrays must hold, checked before
            // quotient_args reads them.
            if ((uint64_t)d.public_values_size() != prog->public_count ||
                (uint64_t)d.challenges_size() != (uint64_t)prog->challenge_count * prog->ext ||
                (uint64_t)d.alpha_size() != prog->ext ||
                (uint64_t)d.periodic_size() != (prog->periodic_width ? checked_mul(d.periodic_rows(), prog->periodic_width, "periodic") : 0))
                fail(GP_ERR_INVALID_ARGUMENT, "quotient: array sizes differ from the program's");
            gp_quotient_options o;
            gp_quotient_options_init(&o);
            o.log_trace_rows = d.log_n();
            o.log_quotient_rows = d.log_q();
            o.shift = d.shift();
            if (o.shift == 0) fail(GP_ERR_INVALID_ARGUMENT, "quotient: shift 0");
            o.order = d.bitrev() ? GP_ORDER_BIT_REVERSED : GP_ORDER_NATURAL;
            o.periodic = periodic.empty() ? nullptr : periodic.data();
            o.periodic_rows = d.periodic_rows();
            o.public_values = pub.empty() ? nullptr : pub.data();
            o.challenges = chal.empty() ? nullptr : chal.data();
            o.alpha = alpha.empty() ? nullptr : alpha.data();
            Buffer main, prep;
            if (d.has_main()) main = buffer_of(mem, d.main(), "quotient: main");
            if (d.has_preprocessed()) prep = buffer_of(mem, d.preprocessed(), "quotient: preprocessed");
            for (const Buffer *b : {&main, &prep})
                if (b->data && b->stride) fail(GP_ERR_SHAPE_MISMATCH, "quotient: inputs are whole buffers");
            Buffer out = buffer_of(mem, d.out(), "quotient: out");
            if (out.stride) fail(GP_ERR_SHAPE_MISMATCH, "quotient: out");
            const QuotientArgs a = quotient_args(*prog, o, d.has_main() ? &main : nullptr,
                                                 d.has_preprocessed() ? &prep : nullptr, out);
            be.quotient(a);
            return;
        }
        case v1::Request::kAddInto: {
            const auto &a = q.add_into();
            const FieldDesc &fd = field_of(a.field(), "field");
            if (a.count() > (1ull << kMaxLog)) fail(GP_ERR_INVALID_ARGUMENT, "add_into: count");
            const uint64_t bytes = a.count() * fd.elem_size;
            be.add_into(fd, memory_of(mem, a.dst(), bytes, fd.elem_size, "dst"),
                        memory_of(mem, a.src(), bytes, fd.elem_size, "src"), a.count());
            return;
        }
        case v1::Request::kTrim: be.trim(); return;
        default: fail(GP_ERR_INVALID_ARGUMENT, "request ", (int)q.op_case(), " is no operation of protocol version ",
                      wire::kVersion);
    }
}

}  // namespace server
}  // namespace gp
