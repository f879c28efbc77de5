// SPDX-License-Identifier: MIT OR Apache-2.0
// The remote backend: a session on a gpuprover-server. Every Backend method
// becomes one request on the session's stream (proto/gpuprover.proto);
// memory is named by the server's session addresses, which this side
// stores in Buffer::data and MerkleTree::nodes and never dereferences. Bulk
// host data goes through the session's window (shared memory on unix
// sockets, Put/Get on TCP). On a server that relays (HelloReply.relay),
// progress reports of a request running there reach the context's progress
// callback, and gp_context_cancel reaches the request.
#include <grpcpp/grpcpp.h>
#include <sys/stat.h>
#include <unistd.h>

#include <atomic>
#include <chrono>
#include <condition_variable>
#include <functional>
#include <cstdlib>
#include <cstring>
#include <deque>
#include <fstream>
#include <map>
#include <memory>
#include <mutex>
#include <sstream>
#include <thread>

#include "core/checks.h"
#include "core/quotient.h"
#include "core/merkle_tree.h"
#include "gpuprover.grpc.pb.h"
#include "remote/client_link.h"
#include "remote/endpoint.h"
#include "remote/shm.h"
#include "remote/wire.h"

namespace gp {

namespace {

namespace v1 = ::gpuprover::v1;

std::string read_token(const std::string &path) {
    std::ifstream f(path, std::ios::binary);
    if (!f) fail(GP_ERR_REMOTE, "cannot read the token file ", path);
    std::stringstream ss;
    ss << f.rdbuf();
    std::string t = ss.str();
    while (!t.empty() && (t.back() == '\n' || t.back() == '\r' || t.back() == ' ')) t.pop_back();
    return t;
}

int connect_timeout_ms() {
    const char *s = std::getenv("GPUPROVER_CONNECT_TIMEOUT_MS");
    if (s && *s) {
        char *end = nullptr;
        long v = std::strtol(s, &end, 10);
        if (end && !*end && v > 0 && v < 600000) return (int)v;
    }
    return 3000;
}

std::shared_ptr<grpc::Channel> make_channel(const std::string &target) {
    grpc::ChannelArguments args;
    args.SetMaxReceiveMessageSize(wire::kMaxMessageBytes);
    args.SetMaxSendMessageSize(wire::kMaxMessageBytes);
    // Sessions are spread over every address the target resolves to, and
    // only servers whose health service says SERVING get new ones.
    args.SetServiceConfigJSON(
        R"({"loadBalancingConfig":[{"round_robin":{}}],"healthCheckConfig":{"serviceName":""}})");
    // Large HTTP/2 windows and frames: TCP clients send bulk data in 8 MiB
    // messages, which the default 64 KiB window would throttle.
    args.SetInt(GRPC_ARG_HTTP2_STREAM_LOOKAHEAD_BYTES, 32 << 20);
    args.SetInt(GRPC_ARG_HTTP2_MAX_FRAME_SIZE, (16 << 20) - 1);
    args.SetInt(GRPC_ARG_HTTP2_BDP_PROBE, 0);
    args.SetInt(GRPC_ARG_KEEPALIVE_TIME_MS, 20000);
    args.SetInt(GRPC_ARG_KEEPALIVE_TIMEOUT_MS, 10000);
    // Each context gets a connection of its own (no sharing between the
    // channels of one process), so that a session's stream is its own.
    args.SetInt(GRPC_ARG_USE_LOCAL_SUBCHANNEL_POOL, 1);
    return grpc::CreateCustomChannel(target, grpc::InsecureChannelCredentials(), args);
}

// Round-robin start among endpoints that cannot share one channel.
std::atomic<uint32_t> g_next_endpoint{0};

// The gRPC Session stream of a channel (GPUPROVER_TRANSPORT=grpc).
class GrpcClientLink final : public ClientLink {
public:
    explicit GrpcClientLink(std::shared_ptr<grpc::Channel> channel)
        : channel_(std::move(channel)), stub_(v1::Prover::NewStub(channel_)),
          ctx_(std::make_unique<grpc::ClientContext>()), stream_(stub_->Session(ctx_.get())) {}
    ~GrpcClientLink() override { close(); }

    bool write(v1::Request &q, const void *payload, uint64_t n) override {
        if (n) q.mutable_put()->set_data(payload, n);
        return stream_->Write(q);
    }
    bool read(v1::Reply &r, void *, uint64_t, bool *sunk) override {
        if (sunk) *sunk = false;
        return stream_->Read(&r);
    }
    void cancel() override { ctx_->TryCancel(); }
    std::string finish() override {
        finished_ = true;
        return stream_->Finish().error_message();
    }
    void close() override {
        if (finished_) return;
        finished_ = true;
        stream_->WritesDone();
        ctx_->TryCancel();
        stream_->Finish().ok();
    }

private:
    std::shared_ptr<grpc::Channel> channel_;
    std::unique_ptr<v1::Prover::Stub> stub_;
    std::unique_ptr<grpc::ClientContext> ctx_;
    std::unique_ptr<grpc::ClientReaderWriter<v1::Request, v1::Reply>> stream_;
    bool finished_ = false;
};

class RemoteBackend final : public Backend {
public:
    explicit RemoteBackend(const RemoteOptions &o) : text_(o.endpoint) {
        const std::vector<Endpoint> eps = parse_endpoints(o.endpoint);
        const std::string token = o.token_file.empty() ? std::string() : read_token(o.token_file);
        std::vector<std::pair<std::string, const Endpoint *>> targets;
        grpc_ = transport_is_grpc();
        const std::string shared = grpc_ ? shared_target(eps) : std::string();
        if (!shared.empty()) targets.push_back({shared, nullptr});
        else {
            const uint32_t start = g_next_endpoint.fetch_add(1);
            for (size_t i = 0; i < eps.size(); ++i) {
                const Endpoint &e = eps[(start + i) % eps.size()];
                targets.push_back({e.target, &e});
            }
        }
        std::string errors;
        for (auto &t : targets) {
            try {
                open(t.first, t.second, o, token);
                return;
            } catch (const Error &e) {
                if (e.status != GP_ERR_REMOTE) throw;
                errors += (errors.empty() ? "" : "; ") + std::string(e.what());
            }
        }
        fail(GP_ERR_REMOTE, errors);
    }

    ~RemoteBackend() override {
        if (cancels_) {
            // The monitor may keep the hook: it does nothing from here on.
            std::thread sender;
            {
                std::lock_guard<std::mutex> lock(cancels_->mu);
                cancels_->closed = true;
                sender = std::move(cancels_->sender);
            }
            cancels_->cv.notify_all();
            if (sender.joinable()) sender.join();
        }
        // A dead connection is cut rather than closed in order (the link's
        // destructor closes it).
        if (link_ && dead_) link_->cancel();
    }

    gp_backend kind() const override { return GP_BACKEND_REMOTE; }
    void begin_call() override { ++call_; }
    std::string device_name() const override { return "gpuprover-server " + text_ + ": " + device_; }

    void check_foreign(const void *, uint64_t, const char *arg) override {
        fail(GP_ERR_UNSUPPORTED, arg, ": a remote context (GP_BACKEND_REMOTE) cannot borrow memory of this process");
    }

    void check_buffer_values(const Buffer &b, const char *arg) override {
        v1::Request q;
        wire::put_buffer(b, q.mutable_check_values()->mutable_buf());
        q.mutable_check_values()->set_arg(arg);
        call(q);
    }

    void *alloc_buffer(uint64_t bytes) override {
        v1::Request q;
        q.mutable_alloc()->set_bytes(bytes);
        return reinterpret_cast<void *>(call(q).addr());
    }

    void free_buffer(void *p) override {
        if (!p || dead_) return;
        v1::Request q;
        q.mutable_free()->set_addr(reinterpret_cast<uint64_t>(p));
        try {
            call(q);
        } catch (const Error &) {
            // the server went away: it released the session's memory itself
        }
    }

    void copy_peer(const void *, uint64_t, void *, uint64_t, uint64_t, uint64_t) override {
        fail(GP_ERR_UNSUPPORTED, "peer copies between remote contexts");
    }

    void add_into(const FieldDesc &f, void *dst, const void *src, uint64_t count) override {
        v1::Request q;
        auto *a = q.mutable_add_into();
        a->set_field((int)f.id);
        a->set_dst(reinterpret_cast<uint64_t>(dst));
        a->set_src(reinterpret_cast<uint64_t>(src));
        a->set_count(count);
        call(q);
    }

    void upload(Buffer &dst, const void *host, gp_layout layout, const char *arg) override {
        const uint64_t col_bytes = dst.rows * dst.ext * dst.field->elem_size;
        v1::HostData whole;
        if (layout == GP_LAYOUT_COL_MAJOR && !dst.stride && !in_region(host, dst.bytes, &whole)) {
            const auto chunks = column_chunks(dst.cols, col_bytes);
            if (!chunks.empty()) {  // blocks of whole columns, each a view of dst
                pipelined(static_cast<const char *>(host), chunks, *dst.field, arg,
                          [&](v1::Request &q, size_t k, const v1::HostData &d) {
                              auto *u = q.mutable_upload();
                              Buffer part = dst;
                              part.cols = chunks[k].second / col_bytes;
                              part.data = static_cast<char *>(dst.data) + chunks[k].first;
                              wire::put_buffer(part, u->mutable_dst());
                              u->set_layout(layout);
                              u->set_arg(arg);
                              *u->mutable_data() = d;
                          });
                return;
            }
        }
        v1::Request q;
        auto *u = q.mutable_upload();
        wire::put_buffer(dst, u->mutable_dst());
        u->set_layout(layout);
        u->set_arg(arg);
        put_host(host, dst.bytes, u->mutable_data());
        call(q);
    }

    void download(const Buffer &src, void *host, gp_layout layout) override {
        v1::Request q;
        auto *d = q.mutable_download();
        wire::put_buffer(src, d->mutable_src());
        d->set_layout(layout);
        if (in_region(host, src.bytes, d->mutable_data())) {  // written in place
            call(q);
            return;
        }
        ensure_window(src.bytes);
        d->mutable_data()->set_offset(0);
        d->mutable_data()->set_size(src.bytes);
        call(q);
        get_host(host, src.bytes);
    }

    void lde(const LdeArgs &a) override {
        v1::Request q;
        auto *l = q.mutable_lde();
        l->set_field((int)a.field->id);
        l->set_ext(a.ext);
        l->set_rows_in(a.rows_in);
        l->set_cols(a.cols);
        l->set_log_n(a.log_n);
        l->set_log_blowup(a.log_blowup);
        l->set_shift(a.shift);
        l->set_input_shift(a.input_shift);
        l->set_order(a.order);
        l->set_in_layout(a.in_layout);
        wire::put_buffer(*a.out, l->mutable_out());
        // Columns [c0, c0 + cn)'s part of the randomizer addend.
        const uint64_t rand_col = a.rand_add ? (a.rand_m * a.ext * a.field->elem_size) << a.log_blowup : 0;
        auto randomize = [&](v1::Lde *p, uint64_t c0, uint64_t cn) {
            if (!a.rand_add) return;
            p->set_rand_add(static_cast<const char *>(a.rand_add) + c0 * rand_col, cn * rand_col);
            p->set_rand_m(a.rand_m);
        };
        if (a.in_buf) {
            wire::put_buffer(*a.in_buf, l->mutable_in_buf());
            randomize(l, 0, a.cols);
            call(q);
            return;
        }
        const uint64_t bytes = checked_mul(checked_mul(a.rows_in, a.cols * a.ext, "input elements"),
                                           a.field->elem_size, "input bytes");
        if ((a.in_layout == GP_LAYOUT_COL_MAJOR || a.cols == 1) && !in_region(a.in_host, bytes, l->mutable_in_host())) {
            // Blocks of whole columns: each an LDE of its own, into a view of out.
            const uint64_t in_col = a.rows_in * a.ext * a.field->elem_size;
            const uint64_t out_col = a.out->rows * a.ext * a.field->elem_size;
            const auto chunks = column_chunks(a.cols, in_col);
            if (!chunks.empty()) {
                pipelined(static_cast<const char *>(a.in_host), chunks, *a.field, "data",
                          [&](v1::Request &r, size_t k, const v1::HostData &d) {
                              auto *p = r.mutable_lde();
                              *p = *l;
                              const uint64_t c0 = chunks[k].first / in_col, cn = chunks[k].second / in_col;
                              p->set_cols(cn);
                              Buffer part = *a.out;
                              part.cols = cn;
                              part.data = static_cast<char *>(a.out->data) + c0 * out_col;
                              wire::put_buffer(part, p->mutable_out());
                              *p->mutable_in_host() = d;
                              randomize(p, c0, cn);
                          });
                return;
            }
        }
        put_host(a.in_host, bytes, l->mutable_in_host());
        randomize(l, 0, a.cols);
        call(q);
    }

    void ntt(Buffer &buf, const NttArgs &a) override {
        v1::Request q;
        auto *n = q.mutable_ntt();
        wire::put_buffer(buf, n->mutable_buf());
        n->set_direction(a.direction);
        n->set_shift(a.shift);
        n->set_input_order(a.input_order);
        n->set_output_order(a.output_order);
        call(q);
    }

    void permute(int perm, void *states, uint64_t count) override {
        const PermShape p = perm_shape(perm, "perm");
        const uint64_t bytes = checked_mul(checked_mul(count, p.width, "count * width"), p.elem_size, "state bytes");
        v1::Request q;
        auto *m = q.mutable_permute();
        m->set_perm(perm);
        m->set_count(count);
        const bool shared = put_host(states, bytes, m->mutable_states());
        call(q);
        if (!shared) get_host(states, bytes);
    }

    void merkle_commit(const MerkleArgs &a, MerkleTree &t) override {
        if (a.leaves)
            fail(GP_ERR_UNSUPPORTED, "through gpuprover-server, the tallest height of a tree must be a power of two; "
                                     "this one has ", a.leaves, " rows");
        v1::Request q;
        auto *m = q.mutable_merkle_commit();
        wire::put_spec(a.spec, m->mutable_spec());
        m->set_cap_height(a.cap_height);
        m->set_log_h(a.log_h);
        m->set_leaves_only(a.leaves_only);
        for (const Buffer *b : a.mats) wire::put_buffer(*b, m->add_mats());
        for (auto &g : a.groups) {
            m->add_group_begin(g.first);
            m->add_group_end(g.second);
        }
        m->set_nodes(reinterpret_cast<uint64_t>(t.nodes));  // allocated by the caller
        call(q);
    }

    void read_tree(const MerkleTree &t, uint64_t offset, void *out, uint64_t bytes) override {
        for (uint64_t done = 0; done < bytes;) {
            const uint64_t n = std::min(bytes - done, wire::kChunkBytes);
            v1::Request q;
            auto *r = q.mutable_read_tree();
            wire::put_tree(t, r->mutable_tree());
            r->set_offset(offset + done);
            r->set_bytes(n);
            const v1::Reply rep = call(q);
            if (rep.data().size() != n) fail(GP_ERR_REMOTE, "the server sent ", rep.data().size(), " bytes for ", n);
            std::memcpy(static_cast<char *>(out) + done, rep.data().data(), n);
            done += n;
        }
    }

    void merkle_open(const MerkleTree &t, const uint64_t *indices, uint64_t count, void *rows,
                     void *paths) override {
        const uint64_t row_bytes = opened_row_bytes(t.committed);
        const uint64_t path_bytes = (uint64_t)t.path_len() * t.digest_bytes();
        // Batches of indices whose answer fits a message.
        const uint64_t per = (rows ? row_bytes : 0) + (paths ? path_bytes : 0);
        const uint64_t batch = std::max<uint64_t>(1, wire::kChunkBytes / std::max<uint64_t>(per, 1));
        for (uint64_t i0 = 0; i0 < count; i0 += batch) {
            const uint64_t n = std::min(batch, count - i0);
            v1::Request q;
            auto *m = q.mutable_merkle_open();
            wire::put_tree(t, m->mutable_tree());
            for (uint64_t i = 0; i < n; ++i) m->add_indices(indices[i0 + i]);
            m->set_rows(rows != nullptr);
            m->set_paths(paths != nullptr);
            const v1::Reply rep = call(q);
            const uint64_t rb = rows ? n * row_bytes : 0, pb = paths ? n * path_bytes : 0;
            if (rep.data().size() != rb + pb)
                fail(GP_ERR_REMOTE, "the server sent ", rep.data().size(), " bytes of openings for ", rb + pb);
            if (rows) std::memcpy(static_cast<char *>(rows) + i0 * row_bytes, rep.data().data(), rb);
            if (paths) std::memcpy(static_cast<char *>(paths) + i0 * path_bytes, rep.data().data() + rb, pb);
        }
    }

    void fri_fold(const FriFoldArgs &a) override {
        v1::Request q;
        auto *f = q.mutable_fri_fold();
        f->set_field((int)a.field);
        f->set_ext(a.ext);
        f->set_log_n(a.log_n);
        f->set_log_a(a.log_a);
        f->set_bitrev(a.bitrev);
        f->set_halve(a.halve);
        f->set_final_out(a.final_out);
        f->set_omega_inv(a.omega_inv);
        f->set_shift_inv(a.shift_inv);
        f->set_zeta_inv(a.zeta_inv);
        for (uint64_t b : a.beta) f->add_beta(b);
        f->set_in(reinterpret_cast<uint64_t>(a.in));
        f->set_out(reinterpret_cast<uint64_t>(a.out));
        f->set_ext_kind(a.ext_kind);
        f->set_leaf_element(a.leaf_element);
        call(q);
    }

    void fri_to_matrix(uint32_t elem_size, uint32_t ext, uint32_t log_n, uint32_t log_a, bool bitrev,
                       const void *in, void *out) override {
        v1::Request q;
        auto *f = q.mutable_fri_to_matrix();
        f->set_elem_size(elem_size);
        f->set_ext(ext);
        f->set_log_n(log_n);
        f->set_log_a(log_a);
        f->set_bitrev(bitrev);
        f->set_in(reinterpret_cast<uint64_t>(in));
        f->set_out(reinterpret_cast<uint64_t>(out));
        call(q);
    }

    void copy_rows(const Buffer &src, uint64_t src_col, uint64_t start, uint64_t stride, uint64_t count,
                   Buffer &dst, uint64_t dst_col) override {
        v1::Request q;
        auto *c = q.mutable_copy_rows();
        wire::put_buffer(src, c->mutable_src());
        c->set_src_col(src_col);
        c->set_start(start);
        c->set_stride(stride);
        c->set_count(count);
        wire::put_buffer(dst, c->mutable_dst());
        c->set_dst_col(dst_col);
        call(q);
    }

    void ood_sums(const OodArgs &a, uint64_t *out) override {
        v1::Request q;
        auto *o = q.mutable_ood();
        o->set_field((int)a.field);
        o->set_e(a.E);
        o->set_log_m(a.log_m);
        o->set_log_nb(a.log_nb);
        o->set_bitrev(a.bitrev);
        o->set_shift(a.shift);
        o->set_omega_n(a.omega_n);
        o->set_ext_kind(a.ext_kind);
        for (uint64_t z : a.z) o->add_z(z);
        uint64_t words = 0;
        for (const Buffer *b : a.bufs) {
            wire::put_buffer(*b, o->add_bufs());
            words += b->base_cols() * a.E;
        }
        const v1::Reply rep = call(q);
        if ((uint64_t)rep.words_size() != words)
            fail(GP_ERR_REMOTE, "the server sent ", rep.words_size(), " out-of-domain words for ", words);
        for (uint64_t i = 0; i < words; ++i) out[i] = rep.words((int)i);
    }

    void deep(const DeepArgs &a) override {
        v1::Request q;
        auto *d = q.mutable_deep();
        d->set_field((int)a.field);
        d->set_e(a.E);
        d->set_log_m(a.log_m);
        d->set_npoints(a.npoints);
        d->set_bitrev(a.bitrev);
        d->set_shift(a.shift);
        d->set_omega_m(a.omega_m);
        d->set_ncols(a.ncols);
        d->set_ext_kind(a.ext_kind);
        for (const Buffer *b : a.bufs) wire::put_buffer(*b, d->add_bufs());
        for (uint64_t v : a.z) d->add_z(v);
        for (uint64_t v : a.alpha) d->add_alpha(v);
        for (uint64_t v : a.corr) d->add_corr(v);
        wire::put_buffer(*a.out, d->mutable_out());
        call(q);
    }

    void quotient(const QuotientArgs &a) override {
        const CompiledProgram &p = *a.prog;
        v1::Request q;
        auto *d = q.mutable_quotient();
        d->set_field((int)p.field->id);
        d->set_ext(p.ext);
        d->set_main_width(p.main_width);
        d->set_preprocessed_width(p.prep_width);
        d->set_periodic_width(p.periodic_width);
        d->set_public_count(p.public_count);
        d->set_challenge_count(p.challenge_count);
        for (const gp_cp_node &n : p.desc_nodes) {
            d->add_node_op(n.op);
            d->add_node_a(n.a);
            d->add_node_b(n.b);
        }
        for (uint64_t v : p.constants) d->add_constants(v);
        for (uint32_t c : p.desc_constraints) d->add_constraints(c);
        d->set_log_n(a.log_n);
        d->set_log_q(a.log_q);
        d->set_shift(a.shift);
        d->set_bitrev(a.bitrev);
        if (a.main) wire::put_buffer(*a.main, d->mutable_main());
        if (a.prep) wire::put_buffer(*a.prep, d->mutable_preprocessed());
        for (uint64_t v : a.periodic) d->add_periodic(v);
        d->set_periodic_rows(a.periodic_rows);
        for (size_t i = p.constants.size(); i < a.uniform.size(); ++i) d->add_public_values(a.uniform[i]);
        for (uint64_t v : a.challenges) d->add_challenges(v);
        for (uint64_t v : a.alpha) d->add_alpha(v);
        wire::put_buffer(*a.out, d->mutable_out());
        call(q);
    }

    void trim() override {
        v1::Request q;
        q.mutable_trim();
        call(q);
    }

    // Shared with the server when the session has a side socket: requests
    // then name ranges of it and nothing is copied.
    void *transfer_alloc(uint64_t bytes) override {
        if (unix_path_.empty()) return Backend::transfer_alloc(bytes);
        const uint64_t n = (bytes + 4095) & ~4095ull;
        auto r = std::make_unique<ShmRegion>();
        r->create(n);
        const uint64_t id = ++next_region_, ticket = ++next_ticket_;
        send_fd(fd_socket_path(unix_path_), nonce_, ticket, r->fd());
        v1::Request q;
        q.mutable_attach_region()->set_id(id);
        q.mutable_attach_region()->set_bytes(n);
        q.mutable_attach_region()->set_ticket(ticket);
        call(q);
        char *p = r->data();
        regions_[p] = Region{id, std::move(r)};
        return p;
    }

    void transfer_free(void *p) override {
        auto it = regions_.find(static_cast<char *>(p));
        if (it == regions_.end()) return Backend::transfer_free(p);
        if (!dead_) {
            v1::Request q;
            q.mutable_detach_region()->set_id(it->second.id);
            try {
                call(q);
            } catch (const Error &) {
                // the server went away: nothing of the session is left there
            }
        }
        regions_.erase(it);
    }

    // The server's backends add randomizers inside the LDE; the addend
    // travels in the Lde request (lde_random.cpp bounds it).
    bool lde_adds() const override { return true; }
    uint64_t max_rand_add_bytes() const override { return wire::kMaxRandAddBytes; }

    uint64_t cache_bytes() const override { return info().cache_bytes(); }
    uint64_t allocations() const override { return info().allocations(); }
    uint64_t evictions() const override { return info().evictions(); }
    void cache_figures(uint64_t &cache, uint64_t &allocs, uint64_t &evicted) const override {
        const v1::InfoReply i = info();
        cache = i.cache_bytes();
        allocs = i.allocations();
        evicted = i.evictions();
    }
    void mem_info(uint64_t &free_bytes, uint64_t &total_bytes) override {
        const v1::InfoReply i = info();
        free_bytes = i.mem_free();
        total_bytes = i.mem_total();
    }

private:
    void open(const std::string &target, const Endpoint *ep, const RemoteOptions &o, const std::string &token) {
        std::vector<Endpoint> eps = parse_endpoints(o.endpoint);
        if (!ep && eps.size() == 1) ep = &eps[0];
        if (ep && ep->is_unix) {
            struct stat st;
            if (stat(ep->path.c_str(), &st) != 0)
                fail(GP_ERR_REMOTE, "no gpuprover-server at ", ep->path, ": ", std::strerror(errno));
            unix_path_ = ep->path;
        }
        if (grpc_) {
            std::shared_ptr<grpc::Channel> channel = make_channel(target);
            const auto deadline = std::chrono::system_clock::now() + std::chrono::milliseconds(connect_timeout_ms());
            if (!channel->WaitForConnected(deadline))
                fail(GP_ERR_REMOTE, "no gpuprover-server answered at ", ep ? ep->text : o.endpoint, " within ",
                     connect_timeout_ms(), " ms");
            link_ = std::make_unique<GrpcClientLink>(std::move(channel));
        } else {
            link_ = connect_direct(*ep, connect_timeout_ms());
        }
        v1::Request q;
        auto *h = q.mutable_hello();
        h->set_version(wire::kVersion);
        h->set_priority((v1::Priority)o.priority);
        h->set_force_cpu(o.force_cpu);
        h->set_token(token);
        h->set_client("pid " + std::to_string(getpid()));
        h->set_relay(true);
        v1::Reply r;
        try {
            r = call(q);
        } catch (const Error &e) {
            link_.reset();
            fail(GP_ERR_REMOTE, "gpuprover-server at ", ep ? ep->text : o.endpoint, " refused the session: ", e.what());
        }
        device_ = r.hello().device_name();
        nonce_ = r.hello().shm_nonce();
        relay_ = r.hello().relay();
        if (relay_) cancels_ = std::make_shared<CancelRelay>();
        if (nonce_.empty()) unix_path_.clear();  // no shared memory: Put and Get
    }

    // Sends a request without waiting for its reply; returns its id. On a
    // relaying server it asks for progress reports when the context has a
    // progress callback, and is cancelled at once if its call already is.
    // A Put's data may come as `payload` (payload_bytes bytes) instead of
    // in q, so that the direct transport sends it from where it is.
    uint64_t send(v1::Request &q, const void *payload = nullptr, uint64_t payload_bytes = 0) const {
        if (relay_ && monitor && !hooked_) hook_cancel();
        bool ok;
        {
            std::lock_guard<std::mutex> lock(write_mu_);
            if (dead_) fail(GP_ERR_REMOTE, dead_why_);
            q.set_id(++next_id_);
            if (relay_ && monitor && monitor->has_progress()) q.set_progress(true);
            {
                std::lock_guard<std::mutex> o(out_mu_);
                outstanding_.push_back({q.id(), call_.load()});
            }
            ok = link_->write(q, payload, payload_bytes);
        }
        if (!ok) lost();
        // gp_context_cancel from another thread may have found no request
        // in flight just before this one.
        if (relay_ && monitor && q.op_case() != v1::Request::kFree && monitor->cancelled()) write_cancel(q.id());
        return q.id();
    }

    // The reply to request `id` (the next one on the stream); its status is
    // not checked. Progress frames of `id` before it go to the monitor, each
    // answered with an Ack, or with a Cancel when the poll throws (the
    // callback cancelled the call); the reply is read all the same.
    // A reply whose data has exactly sink_bytes bytes may put them at `sink`
    // instead of in its data (the direct transport reads them there; *sunk
    // says so).
    v1::Reply receive(uint64_t id, void *sink = nullptr, uint64_t sink_bytes = 0, bool *sunk = nullptr) const {
        std::lock_guard<std::mutex> lock(read_mu_);
        for (;;) {
            if (dead_) fail(GP_ERR_REMOTE, dead_why_);
            v1::Reply r;
            if (!link_->read(r, sink, sink_bytes, sunk)) lost();
            if (r.id() == 0 && r.status() != GP_OK && !r.has_progress()) {
                // The server ended the session over a request it could not read.
                dead_ = true;
                dead_why_ = "gpuprover-server at " + text_ + " ended the session: " + r.message();
                fail(GP_ERR_REMOTE, dead_why_);
            }
            if (r.id() != id || (r.has_progress() && !relay_)) {
                dead_ = true;
                dead_why_ = "gpuprover-server at " + text_ + " answered out of order";
                fail(GP_ERR_REMOTE, dead_why_);
            }
            if (r.has_progress()) {
                answer_progress(r);
                continue;
            }
            std::lock_guard<std::mutex> o(out_mu_);
            if (!outstanding_.empty() && outstanding_.front().first == id) outstanding_.pop_front();
            return r;
        }
    }

    void answer_progress(const v1::Reply &r) const {
        bool stop = false;
        if (monitor) {
            answering_ = std::this_thread::get_id();
            try {
                const v1::Progress &p = r.progress();
                monitor->poll(p.stage().c_str(), p.done(), p.total());
            } catch (...) {
                stop = true;  // cancelled (the only way a poll throws)
            }
            answering_ = std::thread::id();
        }
        v1::Request a;
        if (stop) a.mutable_cancel()->set_target(r.id());
        else a.mutable_ack()->set_seq(r.progress().seq());
        std::lock_guard<std::mutex> lock(write_mu_);
        if (!dead_) link_->write(a, nullptr, 0);  // a failure shows at the next read
    }

    // ---- gp_context_cancel, relayed ----
    //
    // The monitor's cancel hook runs under the library's registry lock, so
    // it only marks the call; a thread of this backend's own (started at
    // the first cancellation) writes the Cancel for the oldest request in
    // flight, if it belongs to that call. A cancellation from inside the
    // progress callback is answered by answer_progress instead.
    struct CancelRelay {
        std::mutex mu;
        std::condition_variable cv;
        bool closed = false;   // the backend is going
        uint64_t pending = 0;  // the call (call_) to cancel; 0: none
        std::thread sender;
    };

    void hook_cancel() const {
        hooked_ = true;
        std::shared_ptr<CancelRelay> relay = cancels_;
        const RemoteBackend *self = this;
        monitor->set_cancel_hook([relay, self] {
            std::lock_guard<std::mutex> lock(relay->mu);
            if (relay->closed || self->answering_.load() == std::this_thread::get_id()) return;
            relay->pending = self->call_.load();
            if (!relay->sender.joinable()) relay->sender = std::thread([self] { self->send_cancels(); });
            relay->cv.notify_all();
        });
    }

    void send_cancels() const {
        std::unique_lock<std::mutex> lock(cancels_->mu);
        for (;;) {
            cancels_->cv.wait(lock, [&] { return cancels_->closed || cancels_->pending; });
            if (cancels_->closed) return;
            const uint64_t call = cancels_->pending;
            cancels_->pending = 0;
            lock.unlock();
            uint64_t target = 0;
            {
                std::lock_guard<std::mutex> o(out_mu_);
                if (!outstanding_.empty() && outstanding_.front().second == call) target = outstanding_.front().first;
            }
            if (target) write_cancel(target);
            lock.lock();
        }
    }

    void write_cancel(uint64_t target) const {
        v1::Request c;
        c.mutable_cancel()->set_target(target);
        std::lock_guard<std::mutex> lock(write_mu_);
        if (!dead_) link_->write(c, nullptr, 0);  // a failure shows at the next read
    }

    [[noreturn]] void lost() const {
        dead_ = true;
        link_->cancel();
        std::string why;
        {
            // A Cancel being written returns once the call is cancelled.
            std::lock_guard<std::mutex> lock(write_mu_);
            why = link_->finish();
        }
        dead_why_ = "the connection to gpuprover-server at " + text_ + " was lost" +
                    (why.empty() ? std::string() : ": " + why);
        fail(GP_ERR_REMOTE, dead_why_);
    }

    static const v1::Reply &check(const v1::Reply &r) {
        if (r.status() != GP_OK) {
            const int s = r.status();
            throw Error(s > 0 && s <= GP_ERR_REMOTE ? (gp_status)s : GP_ERR_REMOTE, r.message());
        }
        return r;
    }

    v1::Reply call(v1::Request &q) const {
        // Between requests, gp_context_cancel acts here; during one, on a
        // relaying server, through the Cancel that send() or its hook writes.
        if (monitor && q.op_case() != v1::Request::kFree) monitor->check_cancelled();
        v1::Reply r = receive(send(q));
        check(r);
        return r;
    }

    // Host data in chunks through the two halves of the shared window: the
    // copy of chunk k + 1 overlaps the server's work on chunk k. `make`
    // fills the request of chunk k, whose bytes are at `d`.
    // A chunk refused as non-canonical is checked again here over the whole
    // input, so that the message names the index in the caller's array.
    void pipelined(const char *host, const std::vector<std::pair<uint64_t, uint64_t>> &chunks, const FieldDesc &f,
                   const char *arg, const std::function<void(v1::Request &, size_t, const v1::HostData &)> &make) {
        uint64_t slot = 0;
        for (auto &c : chunks) slot = std::max(slot, c.second);
        slot = (slot + 4095) & ~4095ull;
        ensure_window(2 * slot);
        bool pending = false, failed = false;
        uint64_t pending_id = 0;
        v1::Reply bad;
        auto settle = [&] {
            if (!pending) return;
            v1::Reply r = receive(pending_id);
            pending = false;
            if (!failed && r.status() != GP_OK) {
                failed = true;
                bad = r;
            }
        };
        for (size_t k = 0; k < chunks.size() && !failed; ++k) {
            const uint64_t off = (k % 2) * slot;
            parallel_copy(shm_.data() + off, host + chunks[k].first, chunks[k].second);
            settle();
            if (failed) break;
            if (monitor) monitor->check_cancelled();
            v1::Request q;
            v1::HostData d;
            d.set_offset(off);
            d.set_size(chunks[k].second);
            make(q, k, d);
            pending_id = send(q);
            pending = true;
        }
        settle();
        if (failed && bad.status() == GP_ERR_NON_CANONICAL) {
            const uint64_t end = chunks.back().first + chunks.back().second;
            check_canonical(f, host, 0, end / f.elem_size, arg);
        }
        if (failed) check(bad);
    }

    // Column chunks of `cols` columns of `col_bytes` each, for pipelined():
    // empty when the data is small or there is no shared memory.
    std::vector<std::pair<uint64_t, uint64_t>> column_chunks(uint64_t cols, uint64_t col_bytes) const {
        std::vector<std::pair<uint64_t, uint64_t>> out;
        const uint64_t total = cols * col_bytes, target = chunk_target();
        if (unix_path_.empty() || total < target / 2 || cols < 2) return out;
        const uint64_t per = std::max<uint64_t>(1, std::min<uint64_t>(cols / 2, target / col_bytes));
        for (uint64_t c = 0; c < cols; c += per) out.push_back({c * col_bytes, std::min(per, cols - c) * col_bytes});
        return out;
    }

    // Bytes per chunk: 128 MiB, or GPUPROVER_REMOTE_CHUNK_BYTES (tests make
    // it small to cut small inputs into many chunks).
    static uint64_t chunk_target() {
        static const uint64_t v = [] {
            const char *e = std::getenv("GPUPROVER_REMOTE_CHUNK_BYTES");
            const unsigned long long x = e ? std::strtoull(e, nullptr, 10) : 0;
            return x >= 64 ? (uint64_t)x : (128ull << 20);
        }();
        return v;
    }

    v1::InfoReply info() const {
        v1::Request q;
        q.mutable_info();
        return call(q).info();
    }

    // The window holds at least `bytes` bytes.
    void ensure_window(uint64_t bytes) {
        if (bytes <= window_) return;
        const uint64_t want = std::max<uint64_t>((bytes + (1ull << 20) - 1) & ~((1ull << 20) - 1), 1ull << 20);
        v1::Request q;
        q.mutable_attach_shm()->set_bytes(want);
        if (!unix_path_.empty()) {
            shm_.create(want);
            const uint64_t ticket = ++next_ticket_;
            send_fd(fd_socket_path(unix_path_), nonce_, ticket, shm_.fd());
            q.mutable_attach_shm()->set_fd(true);
            q.mutable_attach_shm()->set_ticket(ticket);
        }
        call(q);
        window_ = want;
    }

    // Names [host, host + bytes) in `d` when it lies in one shared region
    // at a multiple of 8 bytes (the server takes host data at offsets that
    // are multiples of the element size; other data goes by the window).
    bool in_region(const void *host, uint64_t bytes, v1::HostData *d) const {
        if (reinterpret_cast<uintptr_t>(host) % 8) return false;
        const char *h = static_cast<const char *>(host);
        auto it = regions_.upper_bound(const_cast<char *>(h));
        if (it == regions_.begin()) return false;
        --it;
        const uint64_t off = (uint64_t)(h - it->first), size = it->second.shm->size();
        if (off > size || bytes > size - off) return false;
        d->set_region(it->second.id);
        d->set_offset(off);
        d->set_size(bytes);
        return true;
    }

    // Puts host data where a request can name it: in place when it is in a
    // shared region (returns true), else in the window.
    bool put_host(const void *host, uint64_t bytes, v1::HostData *d) {
        if (in_region(host, bytes, d)) return true;
        ensure_window(bytes);
        d->set_offset(0);
        d->set_size(bytes);
        if (!unix_path_.empty()) {
            parallel_copy(shm_.data(), host, bytes);
            return false;
        }
        // Several Puts in flight: the next is serialized while the server
        // stores the previous ones.
        streamed(bytes, [&](v1::Request &q, uint64_t done, uint64_t) -> const void * {
            q.mutable_put()->set_offset(done);
            return static_cast<const char *>(host) + done;  // the Put's data
        }, nullptr, nullptr);
        return false;
    }

    // Requests for the 8 MiB chunks of `bytes`, up to kInFlight sent ahead
    // of their replies; `make` fills each and returns its Put's data (or
    // nullptr); `take` (if set) consumes each reply in order, whose data
    // may have gone to `sink` + the chunk's offset instead (the bool).
    void streamed(uint64_t bytes, const std::function<const void *(v1::Request &, uint64_t, uint64_t)> &make,
                  const std::function<void(const v1::Reply &, uint64_t, uint64_t, bool)> &take, char *sink) {
        constexpr size_t kInFlight = 8;
        struct Sent {
            uint64_t id, done, n;
        };
        std::vector<Sent> sent;
        size_t next_reply = 0;
        bool failed = false;
        v1::Reply bad;
        auto settle = [&] {
            const Sent &x = sent[next_reply++];
            bool sunk = false;
            const v1::Reply r = receive(x.id, sink ? sink + x.done : nullptr, x.n, &sunk);
            if (failed) return;
            if (r.status() != GP_OK) {
                failed = true;
                bad = r;
            } else if (take) {
                take(r, x.done, x.n, sunk);
            }
        };
        for (uint64_t done = 0; done < bytes && !failed;) {
            const uint64_t n = std::min(bytes - done, wire::kChunkBytes);
            if (sent.size() - next_reply >= kInFlight) settle();
            if (failed) break;
            v1::Request q;
            const void *payload = make(q, done, n);
            sent.push_back({send(q, payload, payload ? n : 0), done, n});
            done += n;
        }
        while (next_reply < sent.size()) settle();
        if (failed) check(bad);
    }

    void get_host(void *host, uint64_t bytes) {
        if (!unix_path_.empty()) {
            parallel_copy(host, shm_.data(), bytes);
            return;
        }
        streamed(bytes, [&](v1::Request &q, uint64_t done, uint64_t n) -> const void * {
            q.mutable_get()->set_offset(done);
            q.mutable_get()->set_size(n);
            return nullptr;
        }, [&](const v1::Reply &r, uint64_t done, uint64_t n, bool sunk) {
            if (sunk) return;
            if (r.data().size() != n) fail(GP_ERR_REMOTE, "the server sent ", r.data().size(), " bytes for ", n);
            std::memcpy(static_cast<char *>(host) + done, r.data().data(), n);
        }, static_cast<char *>(host));
    }

    std::string text_, device_, nonce_, unix_path_;
    bool grpc_ = false;  // GPUPROVER_TRANSPORT=grpc
    std::unique_ptr<ClientLink> link_;
    // Writes (the calling thread's requests and answers, the sender's
    // Cancels) and reads (the calling thread's) of the stream.
    mutable std::mutex write_mu_, read_mu_;
    mutable uint64_t next_id_ = 0;
    bool relay_ = false;  // the server relays progress and cancellation
    // Requests sent and not yet answered, oldest first, with their call.
    mutable std::mutex out_mu_;
    mutable std::deque<std::pair<uint64_t, uint64_t>> outstanding_;
    std::atomic<uint64_t> call_{0};  // outermost calls begun on the context
    std::shared_ptr<CancelRelay> cancels_;  // when relay_
    mutable bool hooked_ = false;           // the monitor has the cancel hook
    // The thread answering a Progress frame (the monitor's poll runs there).
    mutable std::atomic<std::thread::id> answering_{};
    mutable std::atomic<bool> dead_{false};
    mutable std::string dead_why_;
    ShmRegion shm_;
    uint64_t window_ = 0;
    struct Region {
        uint64_t id;
        std::unique_ptr<ShmRegion> shm;
    };
    std::map<char *, Region> regions_;  // gp_host_alloc memory shared with the server
    uint64_t next_region_ = 0;
    uint64_t next_ticket_ = 0;  // of descriptors passed over the side socket
};

}  // namespace

std::unique_ptr<Backend> make_remote_backend(const RemoteOptions &o) { return std::make_unique<RemoteBackend>(o); }

}  // namespace gp
