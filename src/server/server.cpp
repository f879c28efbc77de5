#include "server/server.h"

#include <arpa/inet.h>
#include <fcntl.h>
#include <grpcpp/grpcpp.h>
#include <grpcpp/health_check_service_interface.h>
#include <netinet/in.h>
#include <poll.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/un.h>
#include <unistd.h>

#include <chrono>
#include <condition_variable>
#include <cstdio>
#include <cstring>
#include <map>
#include <mutex>
#include <random>
#include <sstream>
#include <thread>

#include "core/monitor.h"
#include "gpuprover.grpc.pb.h"
#include "remote/endpoint.h"
#include "server/scheduler.h"
#include "server/session_ops.h"

namespace gp {
namespace server {

namespace {

double ms_between(Clock::time_point a, Clock::time_point b) {
    return std::chrono::duration<double, std::milli>(b - a).count();
}

std::string now_text() {
    const auto t = std::chrono::system_clock::now();
    const std::time_t s = std::chrono::system_clock::to_time_t(t);
    const long ms = (long)(std::chrono::duration_cast<std::chrono::milliseconds>(t.time_since_epoch()).count() % 1000);
    char buf[64];
    std::tm tm;
    gmtime_r(&s, &tm);
    std::strftime(buf, sizeof buf, "%Y-%m-%dT%H:%M:%S", &tm);
    char out[80];
    std::snprintf(out, sizeof out, "%s.%03ldZ", buf, ms);
    return out;
}

// One structured (logfmt) line on stderr.
std::mutex g_log_mu;
void log_line(const std::string &event, const std::string &fields) {
    std::lock_guard<std::mutex> lock(g_log_mu);
    std::fprintf(stderr, "ts=%s event=%s %s\n", now_text().c_str(), event.c_str(), fields.c_str());
    std::fflush(stderr);
}

std::string quote(const std::string &s) {
    std::string o = "\"";
    for (char c : s) {
        if (c == '"' || c == '\\') o += '\\';
        o += (c == '\n') ? ' ' : c;
    }
    return o + "\"";
}

bool peer_is_unix(const std::string &peer) { return peer.rfind("unix:", 0) == 0; }

bool same_secret(const std::string &a, const std::string &b) {
    unsigned char d = (unsigned char)(a.size() != b.size());
    for (size_t i = 0; i < a.size() && i < b.size(); ++i) d |= (unsigned char)(a[i] ^ b[i]);
    return d == 0;
}

std::string random_nonce() {
    std::random_device rd;
    std::string n(32, '\0');
    for (auto &c : n) c = (char)(rd() & 0xff);
    return n;
}

struct Device {
    Device(std::string n, int ord, unsigned k, double aging) : name(std::move(n)), ordinal(ord), queue(name, k, aging) {}
    std::string name;
    int ordinal;  // -1: the CPU pool
    DeviceQueue queue;
    std::unique_ptr<Backend> probe;  // memory figures of a GPU
    std::atomic<uint64_t> bytes{0};
    std::atomic<int> sessions{0};
    uint64_t total = 0;
};

struct SessionState {
    uint64_t id = 0;
    std::string client, peer;
    int prio = 0;
    bool force_cpu = false;
    Device *dev = nullptr;
    std::unique_ptr<Backend> backend;
    CallMonitor monitor;
    std::unique_ptr<SessionMemory> mem;
    std::string nonce;
    std::atomic<uint64_t> jobs{0}, bytes{0};
};

}  // namespace

struct Server::Impl final : public v1::Prover::Service {
    Config cfg;
    std::vector<std::unique_ptr<Device>> gpus;
    std::unique_ptr<Device> cpu;
    std::unique_ptr<grpc::Server> grpc_server;
    mutable std::mutex mu;
    std::map<uint64_t, SessionState *> sessions;
    uint64_t next_session = 1, opened = 0, closed = 0;
    std::atomic<bool> stopping{false};
    std::atomic<uint64_t> seq{0};
    Clock::time_point started = Clock::now();
    // descriptors passed over "<path>.fd"
    int fd_listen = -1, metrics_listen = -1, wake[2] = {-1, -1};
    std::thread fd_thread, metrics_thread;
    std::mutex fd_mu;
    std::condition_variable fd_cv;
    std::map<std::string, int> pending_fds;
    std::mutex done_mu;
    std::condition_variable done_cv;
    bool done = false;

    explicit Impl(Config c) : cfg(std::move(c)) {}

    ~Impl() override {
        for (auto &p : pending_fds) close(p.second);
        if (fd_listen >= 0) close(fd_listen);
        if (metrics_listen >= 0) close(metrics_listen);
        for (int w : wake)
            if (w >= 0) close(w);
    }

    // ---- sessions ----

    Device &place(bool force_cpu) {
        if (force_cpu || gpus.empty()) return *cpu;
        Device *best = nullptr;
        uint64_t best_free = 0;
        for (auto &g : gpus) {
            uint64_t fr = 0, tot = 0;
            try {
                g->probe->mem_info(fr, tot);
            } catch (const Error &) {
            }
            if (!best || fr > best_free) {
                best = g.get();
                best_free = fr;
            }
        }
        return *best;
    }

    std::unique_ptr<SessionState> open_session(grpc::ServerContext *ctx, const v1::Request &q, v1::Reply &rep) {
        if (q.op_case() != v1::Request::kHello) fail(GP_ERR_REMOTE, "the first request of a session must be Hello");
        const v1::Hello &h = q.hello();
        if (h.version() != wire::kVersion)
            fail(GP_ERR_REMOTE, "protocol version ", h.version(), " is not supported (this server speaks ",
                 wire::kVersion, ")");
        auto s = std::make_unique<SessionState>();
        s->peer = ctx->peer();
        if (!cfg.token.empty() && !peer_is_unix(s->peer) && !same_secret(h.token(), cfg.token))
            fail(GP_ERR_REMOTE, "wrong or missing token (set GPUPROVER_SERVER_TOKEN_FILE or options.token_file)");
        const int p = h.priority();
        if (p != 0 && p != 1 && p != 2) fail(GP_ERR_INVALID_ARGUMENT, "priority ", p, " is no gp_priority");
        s->prio = p;
        s->force_cpu = h.force_cpu();
        s->client = h.client().substr(0, 200);
        Device &d = place(s->force_cpu);
        s->dev = &d;
        if (d.ordinal >= 0) {
            std::string why;
            s->backend = make_cuda_backend(d.ordinal, cfg.staging_threads, why);
            if (!s->backend) fail(GP_ERR_NO_DEVICE, "the server cannot open ", d.name, ": ", why);
        } else {
            const unsigned hw = std::max(1u, std::thread::hardware_concurrency());
            s->backend = make_cpu_backend(cfg.cpu_threads ? cfg.cpu_threads : std::max(1u, hw / cfg.cpu_jobs));
        }
        s->backend->monitor = &s->monitor;
        s->mem = std::make_unique<SessionMemory>(*s->backend);
        if (peer_is_unix(s->peer) && fd_listen >= 0) s->nonce = random_nonce();
        {
            std::lock_guard<std::mutex> lock(mu);
            s->id = next_session++;
            sessions[s->id] = s.get();
            ++opened;
        }
        d.sessions++;
        auto *hr = rep.mutable_hello();
        hr->set_version(wire::kVersion);
        hr->set_session(s->id);
        hr->set_device_name(d.name);
        hr->set_backend(s->backend->kind());
        hr->set_shm_nonce(s->nonce);
        hr->set_quota_bytes(cfg.quota_bytes);
        log_line("session_open", "session=" + std::to_string(s->id) + " client=" + quote(s->client) +
                                     " peer=" + quote(s->peer) + " device=" + quote(d.name) +
                                     " priority=" + priority_name(s->prio));
        return s;
    }

    void close_session(std::unique_ptr<SessionState> s) {
        const uint64_t held = s->mem->bytes();
        s->mem->clear();  // buffers, trees and the window
        s->dev->bytes -= held;
        s->dev->queue.note_freed();
        s->dev->sessions--;
        {
            std::lock_guard<std::mutex> lock(mu);
            sessions.erase(s->id);
            ++closed;
        }
        {
            std::lock_guard<std::mutex> lock(fd_mu);
            auto it = pending_fds.find(s->nonce);
            if (it != pending_fds.end()) {
                close(it->second);
                pending_fds.erase(it);
            }
        }
        log_line("session_close", "session=" + std::to_string(s->id) + " jobs=" + std::to_string(s->jobs.load()) +
                                      " released_bytes=" + std::to_string(held));
    }

    // Runs device work of a session through its device's queue.
    void run_job(SessionState &s, grpc::ServerContext *ctx, const char *op, const std::function<void()> &fn,
                 v1::Reply &rep) {
        Device &d = *s.dev;
        const Clock::time_point arrival = Clock::now();
        const uint64_t my_seq = ++seq;
        auto give_up = [&] { return ctx->IsCancelled() || stopping.load(); };
        if (!d.queue.acquire(s.prio, arrival, my_seq, give_up))
            fail(GP_ERR_CANCELLED, "the job was dropped: its client went away or the server is shutting down");
        Clock::time_point start = Clock::now();
        const double wait_ms = ms_between(arrival, start);
        gp_status st = GP_OK;
        std::string msg;
        for (int attempt = 0;; ++attempt) {
            try {
                s.backend->bind_thread();
                s.backend->begin_call();
                s.monitor.begin();
                try {
                    fn();
                } catch (...) {
                    s.monitor.end();
                    s.backend->end_call();
                    throw;
                }
                s.monitor.end();
                rep.set_device_ns(s.backend->end_call());
                break;
            } catch (const Error &e) {
                if (e.status == GP_ERR_DEVICE_OUT_OF_MEMORY && attempt < 64 && !stopping &&
                    d.queue.yield_for_memory(s.prio)) {
                    // Other jobs of this device hold memory: wait for one to end.
                    if (!d.queue.acquire(s.prio, arrival, my_seq, give_up))
                        fail(GP_ERR_CANCELLED, "the job was dropped while waiting for device memory");
                    continue;
                }
                st = e.status;
                msg = e.what();
                break;
            } catch (const std::bad_alloc &) {
                st = GP_ERR_HOST_OUT_OF_MEMORY;
                msg = "the server ran out of host memory";
                break;
            } catch (const std::exception &e) {
                st = GP_ERR_INTERNAL;
                msg = e.what();
                break;
            }
        }
        const double run_ms = ms_between(start, Clock::now());
        d.queue.release(s.prio, st == GP_OK, wait_ms, run_ms);
        s.jobs++;
        char buf[160];
        std::snprintf(buf, sizeof buf, " priority=%s wait_ms=%.3f run_ms=%.3f status=%s", priority_name(s.prio),
                      wait_ms, run_ms, gp_status_name(st));
        log_line("job", "session=" + std::to_string(s.id) + " op=" + op + " device=" + quote(d.name) + buf);
        if (st != GP_OK) throw Error(st, msg);
    }

    void attach(SessionState &s, const v1::AttachShm &a) {
        if (a.bytes() == 0 || a.bytes() > (1ull << 40)) fail(GP_ERR_INVALID_ARGUMENT, "attach_shm: ", a.bytes(), " bytes");
        if (!a.fd()) {
            s.mem->attach_private(a.bytes());
            return;
        }
        s.mem->attach_shared(take_fd(s), a.bytes());
    }

    // The descriptor the session's client passed over the side socket.
    int take_fd(SessionState &s) {
        if (s.nonce.empty()) fail(GP_ERR_UNSUPPORTED, "shared memory needs a unix-socket session");
        int fd = -1;
        {
            std::unique_lock<std::mutex> lock(fd_mu);
            fd_cv.wait_for(lock, std::chrono::seconds(5), [&] { return pending_fds.count(s.nonce) > 0; });
            auto it = pending_fds.find(s.nonce);
            if (it == pending_fds.end()) fail(GP_ERR_REMOTE, "attach_shm: no shared memory arrived on the side socket");
            fd = it->second;
            pending_fds.erase(it);
        }
        return fd;
    }

    void handle(SessionState &s, grpc::ServerContext *ctx, const v1::Request &q, v1::Reply &rep) {
        const google::protobuf::FieldDescriptor *fdesc = q.GetDescriptor()->FindFieldByNumber(q.op_case());
        const char *op = fdesc ? fdesc->name().c_str() : "none";
        try {
            switch (q.op_case()) {
                case v1::Request::kHello: fail(GP_ERR_INVALID_ARGUMENT, "Hello twice");
                case v1::Request::kAttachShm: attach(s, q.attach_shm()); return;
                case v1::Request::kAttachRegion: {
                    const auto &r = q.attach_region();
                    if (r.bytes() == 0 || r.bytes() > (1ull << 42))
                        fail(GP_ERR_INVALID_ARGUMENT, "attach_region: ", r.bytes(), " bytes");
                    s.mem->attach_region(r.id(), take_fd(s), r.bytes());
                    return;
                }
                case v1::Request::kInfo: {
                    auto *i = rep.mutable_info();
                    i->set_cache_bytes(s.backend->cache_bytes());
                    i->set_allocations(s.backend->allocations());
                    i->set_evictions(s.backend->evictions());
                    uint64_t fr = 0, tot = 0;
                    s.backend->mem_info(fr, tot);
                    i->set_mem_free(fr);
                    i->set_mem_total(tot);
                    i->set_device_name(s.dev->name);
                    i->set_ordinal(s.dev->ordinal);
                    i->set_session_bytes(s.mem->bytes());
                    return;
                }
                case v1::Request::kAlloc: {
                    const uint64_t bytes = q.alloc().bytes();
                    if (cfg.quota_bytes && bytes > cfg.quota_bytes - std::min(cfg.quota_bytes, s.mem->bytes()))
                        fail(GP_ERR_DEVICE_OUT_OF_MEMORY, "the session's quota of ", cfg.quota_bytes,
                             " bytes on the server is spent (", s.mem->bytes(), " held, ", bytes, " asked)");
                    run_job(s, ctx, op, [&] {
                        // Reserved first, so that concurrent jobs see it.
                        const uint64_t before = s.dev->bytes.fetch_add(bytes);
                        try {
                            if (cfg.device_budget && before + bytes > cfg.device_budget)
                                fail(GP_ERR_DEVICE_OUT_OF_MEMORY, "the server's budget of ", cfg.device_budget,
                                     " bytes for ", s.dev->name, " is spent (", before, " held, ", bytes, " asked)");
                            void *p = s.backend->alloc_buffer(bytes);
                            rep.set_addr(s.mem->add(p, bytes));
                        } catch (...) {
                            s.dev->bytes -= bytes;
                            throw;
                        }
                    }, rep);
                    return;
                }
                case v1::Request::kFree: {
                    const uint64_t before = s.mem->bytes();
                    run_op(*s.backend, *s.mem, q, rep);
                    s.dev->bytes -= before - s.mem->bytes();
                    s.dev->queue.note_freed();
                    return;
                }
                default:
                    if (is_job(q)) run_job(s, ctx, op, [&] { run_op(*s.backend, *s.mem, q, rep); }, rep);
                    else run_op(*s.backend, *s.mem, q, rep);
            }
        } catch (const Error &e) {
            rep.set_status(e.status);
            rep.set_message(e.what());
        } catch (const std::bad_alloc &) {
            rep.set_status(GP_ERR_HOST_OUT_OF_MEMORY);
            rep.set_message("the server ran out of host memory");
        } catch (const std::exception &e) {
            rep.set_status(GP_ERR_INTERNAL);
            rep.set_message(e.what());
        }
        s.bytes = s.mem->bytes();
    }

    grpc::Status Session(grpc::ServerContext *ctx, grpc::ServerReaderWriter<v1::Reply, v1::Request> *stream) override {
        if (stopping) return grpc::Status(grpc::StatusCode::UNAVAILABLE, "gpuprover-server is shutting down");
        v1::Request q;
        if (!stream->Read(&q)) return grpc::Status::OK;
        v1::Reply rep;
        rep.set_id(q.id());
        std::unique_ptr<SessionState> s;
        try {
            s = open_session(ctx, q, rep);
        } catch (const Error &e) {
            rep.set_status(e.status);
            rep.set_message(e.what());
            log_line("session_refused", "peer=" + quote(ctx->peer()) + " reason=" + quote(e.what()));
            stream->Write(rep);
            return grpc::Status::OK;
        }
        if (stream->Write(rep)) {
            while (!stopping && stream->Read(&q)) {
                v1::Reply r;
                r.set_id(q.id());
                handle(*s, ctx, q, r);
                if (!stream->Write(r)) break;
            }
        }
        close_session(std::move(s));
        return grpc::Status::OK;
    }

    // ---- statistics ----

    void fill_device(Device &d, v1::DeviceStats *o) {
        o->set_name(d.name);
        o->set_max_concurrent(d.queue.max_running());
        o->set_memory_in_use(d.bytes.load());
        o->set_sessions((uint32_t)d.sessions.load());
        uint64_t fr = 0, tot = 0;
        if (d.probe) {
            try {
                d.probe->mem_info(fr, tot);
            } catch (const Error &) {
            }
        }
        o->set_memory_total(tot);
        d.queue.read([&](PriorityCounters *c, unsigned) {
            for (int p : {2, 0, 1}) {
                auto *ps = o->add_by_priority();
                ps->set_priority((v1::Priority)p);
                ps->set_queued(c[p].queued);
                ps->set_running(c[p].running);
                ps->set_done(c[p].done);
                ps->set_failed(c[p].failed);
                for (auto pr : {std::make_pair(&c[p].wait, ps->mutable_wait()), std::make_pair(&c[p].run, ps->mutable_run())}) {
                    pr.second->set_p50_ms(pr.first->pct(50));
                    pr.second->set_p90_ms(pr.first->pct(90));
                    pr.second->set_p99_ms(pr.first->pct(99));
                    pr.second->set_max_ms(pr.first->max());
                }
            }
        });
    }

    void fill_stats(v1::StatsReply *r) {
        r->set_version(wire::kVersion);
        for (auto &g : gpus) fill_device(*g, r->add_devices());
        fill_device(*cpu, r->add_devices());
        std::lock_guard<std::mutex> lock(mu);
        for (auto &kv : sessions) {
            const SessionState &s = *kv.second;
            auto *c = r->add_clients();
            c->set_session(s.id);
            c->set_client(s.client);
            c->set_device(s.dev->name);
            c->set_priority((v1::Priority)s.prio);
            c->set_bytes(s.bytes.load());
            c->set_jobs(s.jobs.load());
        }
        r->set_sessions_opened(opened);
        r->set_sessions_closed(closed);
        r->set_uptime_s(ms_between(started, Clock::now()) / 1000);
    }

    grpc::Status Stats(grpc::ServerContext *, const v1::StatsRequest *, v1::StatsReply *r) override {
        fill_stats(r);
        return grpc::Status::OK;
    }

    std::string prometheus() {
        v1::StatsReply r;
        fill_stats(&r);
        std::ostringstream o;
        o << "# HELP gpuprover_jobs Jobs by device, priority and state.\n# TYPE gpuprover_jobs gauge\n";
        for (const auto &d : r.devices())
            for (const auto &p : d.by_priority()) {
                const std::string l = "device=\"" + d.name() + "\",priority=\"" + priority_name(p.priority()) + "\"";
                o << "gpuprover_jobs{" << l << ",state=\"queued\"} " << p.queued() << "\n";
                o << "gpuprover_jobs{" << l << ",state=\"running\"} " << p.running() << "\n";
                o << "gpuprover_jobs{" << l << ",state=\"done\"} " << p.done() << "\n";
                o << "gpuprover_jobs{" << l << ",state=\"failed\"} " << p.failed() << "\n";
            }
        o << "# HELP gpuprover_job_ms Queue wait and run time percentiles of recent jobs (ms).\n"
             "# TYPE gpuprover_job_ms gauge\n";
        for (const auto &d : r.devices())
            for (const auto &p : d.by_priority()) {
                const std::string l = "device=\"" + d.name() + "\",priority=\"" + priority_name(p.priority()) + "\"";
                for (auto w : {std::make_pair("wait", &p.wait()), std::make_pair("run", &p.run())}) {
                    o << "gpuprover_job_ms{" << l << ",phase=\"" << w.first << "\",quantile=\"0.5\"} " << w.second->p50_ms() << "\n";
                    o << "gpuprover_job_ms{" << l << ",phase=\"" << w.first << "\",quantile=\"0.9\"} " << w.second->p90_ms() << "\n";
                    o << "gpuprover_job_ms{" << l << ",phase=\"" << w.first << "\",quantile=\"0.99\"} " << w.second->p99_ms() << "\n";
                }
            }
        o << "# HELP gpuprover_device_memory_bytes Device memory held by sessions, and in all.\n"
             "# TYPE gpuprover_device_memory_bytes gauge\n";
        for (const auto &d : r.devices()) {
            o << "gpuprover_device_memory_bytes{device=\"" << d.name() << "\",kind=\"sessions\"} " << d.memory_in_use() << "\n";
            o << "gpuprover_device_memory_bytes{device=\"" << d.name() << "\",kind=\"total\"} " << d.memory_total() << "\n";
        }
        o << "# HELP gpuprover_client_bytes Memory held per session.\n# TYPE gpuprover_client_bytes gauge\n";
        for (const auto &c : r.clients())
            o << "gpuprover_client_bytes{session=\"" << c.session() << "\",device=\"" << c.device() << "\"} " << c.bytes() << "\n";
        o << "# HELP gpuprover_sessions_total Sessions opened and closed.\n# TYPE gpuprover_sessions_total counter\n";
        o << "gpuprover_sessions_total{event=\"opened\"} " << r.sessions_opened() << "\n";
        o << "gpuprover_sessions_total{event=\"closed\"} " << r.sessions_closed() << "\n";
        return o.str();
    }

    // ---- side sockets ----

    static int listen_unix(const std::string &path) {
        sockaddr_un addr{};
        addr.sun_family = AF_UNIX;
        if (path.size() >= sizeof(addr.sun_path)) throw std::runtime_error("socket path too long: " + path);
        std::memcpy(addr.sun_path, path.c_str(), path.size() + 1);
        unlink(path.c_str());
        const int s = socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0);
        if (s < 0 || bind(s, reinterpret_cast<sockaddr *>(&addr), sizeof(addr)) != 0 || listen(s, 64) != 0) {
            const std::string e = std::strerror(errno);
            if (s >= 0) close(s);
            throw std::runtime_error("cannot listen on " + path + ": " + e);
        }
        chmod(path.c_str(), 0660);
        return s;
    }

    static int listen_tcp(const std::string &hostport) {
        const std::vector<Endpoint> eps = parse_endpoints(hostport);
        const Endpoint &e = eps[0];
        sockaddr_in addr{};
        addr.sin_family = AF_INET;
        addr.sin_port = htons((uint16_t)std::stoi(e.port));
        const std::string host = e.host == "localhost" ? "127.0.0.1" : e.host;
        if (inet_pton(AF_INET, host.c_str(), &addr.sin_addr) != 1)
            throw std::runtime_error("metrics address must be an IPv4 address: " + hostport);
        const int s = socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);
        int one = 1;
        setsockopt(s, SOL_SOCKET, SO_REUSEADDR, &one, sizeof one);
        if (s < 0 || bind(s, reinterpret_cast<sockaddr *>(&addr), sizeof(addr)) != 0 || listen(s, 16) != 0) {
            const std::string err = std::strerror(errno);
            if (s >= 0) close(s);
            throw std::runtime_error("cannot listen on " + hostport + ": " + err);
        }
        return s;
    }

    // Accepts connections on `ls` until shutdown; `serve` handles each.
    void accept_loop(int ls, const std::function<void(int)> &serve) {
        for (;;) {
            pollfd p[2] = {{ls, POLLIN, 0}, {wake[0], POLLIN, 0}};
            if (poll(p, 2, -1) < 0) {
                if (errno == EINTR) continue;
                return;
            }
            if (p[1].revents) return;
            const int c = accept4(ls, nullptr, nullptr, SOCK_CLOEXEC);
            if (c < 0) continue;
            timeval tv{2, 0};
            setsockopt(c, SOL_SOCKET, SO_RCVTIMEO, &tv, sizeof tv);
            setsockopt(c, SOL_SOCKET, SO_SNDTIMEO, &tv, sizeof tv);
            serve(c);
            close(c);
        }
    }

    void serve_fd(int c) {
        std::string nonce;
        int fd = -1;
        if (!recv_fd(c, nonce, fd, 64)) return;
        std::lock_guard<std::mutex> lock(fd_mu);
        bool known = false;
        {
            std::lock_guard<std::mutex> l2(mu);
            for (auto &kv : sessions) known = known || (!kv.second->nonce.empty() && kv.second->nonce == nonce);
        }
        if (!known || pending_fds.size() > 4096) {
            close(fd);
            return;
        }
        auto it = pending_fds.find(nonce);
        if (it != pending_fds.end()) close(it->second);
        pending_fds[nonce] = fd;
        fd_cv.notify_all();
    }

    void serve_metrics(int c) {
        char buf[2048];
        const ssize_t n = recv(c, buf, sizeof buf - 1, 0);
        if (n <= 0) return;
        buf[n] = 0;
        const bool ok = std::strncmp(buf, "GET /metrics", 12) == 0 || std::strncmp(buf, "GET / ", 6) == 0;
        const std::string body = ok ? prometheus() : "not found\n";
        const std::string head = std::string(ok ? "HTTP/1.0 200 OK\r\n" : "HTTP/1.0 404 Not Found\r\n") +
                                 "Content-Type: text/plain; version=0.0.4\r\nContent-Length: " +
                                 std::to_string(body.size()) + "\r\nConnection: close\r\n\r\n";
        const std::string all = head + body;
        size_t off = 0;
        while (off < all.size()) {
            const ssize_t w = send(c, all.data() + off, all.size() - off, MSG_NOSIGNAL);
            if (w <= 0) break;
            off += (size_t)w;
        }
    }
};

Server::Server(Config c) : impl_(std::make_unique<Impl>(std::move(c))) {}

Server::~Server() {
    if (impl_->grpc_server) shutdown(0);
}

void Server::start() {
    Impl &m = *impl_;
    if (pipe2(m.wake, O_CLOEXEC) != 0) throw std::runtime_error("pipe2 failed");
    const unsigned hw = std::max(1u, std::thread::hardware_concurrency());
    (void)hw;
    for (int ord : m.cfg.gpus) {
        std::string why;
        auto probe = make_cuda_backend(ord, 1, why);
        if (!probe) throw std::runtime_error("GPU " + std::to_string(ord) + " is unusable: " + why);
        auto d = std::make_unique<Device>("cuda:" + std::to_string(ord) + " " + probe->device_name(), ord,
                                          m.cfg.jobs_per_gpu, m.cfg.aging_ms);
        uint64_t fr = 0;
        probe->mem_info(fr, d->total);
        d->probe = std::move(probe);
        m.gpus.push_back(std::move(d));
    }
    m.cpu = std::make_unique<Device>("cpu", -1, m.cfg.cpu_jobs, m.cfg.aging_ms);

    grpc::EnableDefaultHealthCheckService(true);
    grpc::ServerBuilder b;
    b.SetMaxReceiveMessageSize(m.cfg.max_message_bytes);
    b.SetMaxSendMessageSize(wire::kMaxMessageBytes);
    // As the client's channel: windows and frames sized for 8 MiB messages.
    b.AddChannelArgument(GRPC_ARG_HTTP2_STREAM_LOOKAHEAD_BYTES, 32 << 20);
    b.AddChannelArgument(GRPC_ARG_HTTP2_MAX_FRAME_SIZE, (16 << 20) - 1);
    b.AddChannelArgument(GRPC_ARG_HTTP2_BDP_PROBE, 0);
    if (!m.cfg.unix_path.empty()) {
        unlink(m.cfg.unix_path.c_str());
        b.AddListeningPort("unix:" + m.cfg.unix_path, grpc::InsecureServerCredentials());
    }
    int tcp_port = 0;
    if (!m.cfg.tcp.empty()) {
        const Endpoint e = parse_endpoints(m.cfg.tcp)[0];
        const std::string host = e.host.find(':') != std::string::npos ? "[" + e.host + "]" : e.host;
        b.AddListeningPort(host + ":" + e.port, grpc::InsecureServerCredentials(), &tcp_port);
    }
    b.RegisterService(&m);
    m.grpc_server = b.BuildAndStart();
    if (!m.grpc_server || (!m.cfg.tcp.empty() && tcp_port == 0))
        throw std::runtime_error("cannot listen on " + (m.cfg.tcp.empty() ? m.cfg.unix_path : m.cfg.tcp));
    if (!m.cfg.unix_path.empty()) {
        chmod(m.cfg.unix_path.c_str(), 0660);  // owner and group only
        m.fd_listen = Impl::listen_unix(fd_socket_path(m.cfg.unix_path));
        m.fd_thread = std::thread([&m] { m.accept_loop(m.fd_listen, [&m](int c) { m.serve_fd(c); }); });
    }
    if (!m.cfg.metrics.empty()) {
        m.metrics_listen = Impl::listen_tcp(m.cfg.metrics);
        m.metrics_thread = std::thread([&m] { m.accept_loop(m.metrics_listen, [&m](int c) { m.serve_metrics(c); }); });
    }
    std::string devs;
    for (auto &g : m.gpus) devs += (devs.empty() ? "" : ",") + g->name;
    log_line("start", "unix=" + quote(m.cfg.unix_path) + " tcp=" + quote(m.cfg.tcp) + " tcp_port=" +
                          std::to_string(tcp_port) + " gpus=" + quote(devs) + " jobs_per_gpu=" +
                          std::to_string(m.cfg.jobs_per_gpu) + " cpu_jobs=" + std::to_string(m.cfg.cpu_jobs) +
                          " metrics=" + quote(m.cfg.metrics));
}

void Server::wait() {
    std::unique_lock<std::mutex> lock(impl_->done_mu);
    impl_->done_cv.wait(lock, [&] { return impl_->done; });
}

void Server::shutdown(int grace_ms) {
    Impl &m = *impl_;
    if (m.stopping.exchange(true)) return;
    log_line("shutdown", "grace_ms=" + std::to_string(grace_ms));
    // Running jobs may finish within the grace period; then they are cancelled
    // at their next batch boundary and every stream is closed.
    std::thread canceller([&m, grace_ms] {
        const auto end = Clock::now() + std::chrono::milliseconds(grace_ms);
        while (Clock::now() < end) {
            {
                std::lock_guard<std::mutex> lock(m.mu);
                if (m.sessions.empty()) return;
            }
            std::this_thread::sleep_for(std::chrono::milliseconds(20));
        }
        std::lock_guard<std::mutex> lock(m.mu);
        for (auto &kv : m.sessions) kv.second->monitor.cancel();
    });
    for (auto &g : m.gpus) g->queue.close();
    m.cpu->queue.close();
    if (m.grpc_server)
        m.grpc_server->Shutdown(std::chrono::system_clock::now() + std::chrono::milliseconds(grace_ms + 1000));
    canceller.join();
    if (m.wake[1] >= 0) {
        const char c = 1;
        (void)!write(m.wake[1], &c, 1);
    }
    if (m.fd_thread.joinable()) m.fd_thread.join();
    if (m.metrics_thread.joinable()) m.metrics_thread.join();
    if (m.grpc_server) m.grpc_server->Wait();
    if (!m.cfg.unix_path.empty()) {
        unlink(m.cfg.unix_path.c_str());
        unlink(fd_socket_path(m.cfg.unix_path).c_str());
    }
    log_line("stopped", "sessions_opened=" + std::to_string(m.opened) + " sessions_closed=" + std::to_string(m.closed));
    {
        std::lock_guard<std::mutex> lock(m.done_mu);
        m.done = true;
    }
    m.done_cv.notify_all();
}

std::string Server::prometheus() const { return impl_->prometheus(); }

int print_status(const std::string &endpoint, const std::string &) {
    const std::vector<Endpoint> eps = parse_endpoints(endpoint);
    auto ch = grpc::CreateChannel(eps[0].target, grpc::InsecureChannelCredentials());
    auto stub = v1::Prover::NewStub(ch);
    grpc::ClientContext ctx;
    ctx.set_deadline(std::chrono::system_clock::now() + std::chrono::seconds(5));
    v1::StatsRequest q;
    v1::StatsReply r;
    const grpc::Status st = stub->Stats(&ctx, q, &r);
    if (!st.ok()) {
        std::fprintf(stderr, "gpuprover-server --status: %s: %s\n", endpoint.c_str(), st.error_message().c_str());
        return 1;
    }
    std::printf("gpuprover-server at %s: protocol %u, up %.1f s, sessions opened %llu, closed %llu\n",
                endpoint.c_str(), r.version(), r.uptime_s(), (unsigned long long)r.sessions_opened(),
                (unsigned long long)r.sessions_closed());
    for (const auto &d : r.devices()) {
        std::printf("device %s: %u concurrent jobs, %u sessions, %.1f MiB held of %.1f MiB\n", d.name().c_str(),
                    d.max_concurrent(), d.sessions(), (double)d.memory_in_use() / 1048576.0,
                    (double)d.memory_total() / 1048576.0);
        for (const auto &p : d.by_priority())
            std::printf("  %-6s queued %llu running %llu done %llu failed %llu  wait p50/p90/p99 %.2f/%.2f/%.2f ms"
                        "  run p50/p90/p99 %.2f/%.2f/%.2f ms\n",
                        priority_name(p.priority()), (unsigned long long)p.queued(), (unsigned long long)p.running(),
                        (unsigned long long)p.done(), (unsigned long long)p.failed(), p.wait().p50_ms(),
                        p.wait().p90_ms(), p.wait().p99_ms(), p.run().p50_ms(), p.run().p90_ms(), p.run().p99_ms());
    }
    for (const auto &c : r.clients())
        std::printf("session %llu (%s) on %s, %s: %.1f MiB, %llu jobs\n", (unsigned long long)c.session(),
                    c.client().c_str(), c.device().c_str(), priority_name(c.priority()),
                    (double)c.bytes() / 1048576.0, (unsigned long long)c.jobs());
    return 0;
}

}  // namespace server
}  // namespace gp
