// SPDX-License-Identifier: MIT OR Apache-2.0
#include "server/session_core.h"

#include <sys/resource.h>
#include <unistd.h>

#include <chrono>
#include <cstdio>
#include <cstring>
#include <random>
#include <sstream>
#include <thread>

#include "remote/wire.h"

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

std::mutex g_log_mu;

std::string random_nonce() {
    std::random_device rd;
    std::string n(32, '\0');
    for (auto &c : n) c = (char)(rd() & 0xff);
    return n;
}

constexpr size_t kNonceBytes = 32, kTicketBytes = 8;

std::string fd_key(const std::string &nonce, uint64_t ticket) {
    std::string k = nonce;
    for (size_t i = 0; i < kTicketBytes; ++i) k += (char)(ticket >> (8 * i));
    return k;
}

// Descriptors all sessions may hold: the configured number, or half the
// process's limit.
unsigned descriptor_limit(const ResourceLimits &l) {
    if (l.max_descriptors) return l.max_descriptors;
    rlimit r{};
    if (getrlimit(RLIMIT_NOFILE, &r) != 0 || r.rlim_cur == RLIM_INFINITY) return 4096;
    return (unsigned)std::max<rlim_t>(16, std::min<rlim_t>(r.rlim_cur / 2, 1u << 20));
}

}  // namespace

void log_line(const std::string &event, const std::string &fields) {
    std::lock_guard<std::mutex> lock(g_log_mu);
    std::fprintf(stderr, "ts=%s event=%s %s\n", now_text().c_str(), event.c_str(), fields.c_str());
    std::fflush(stderr);
}

std::string quote(const std::string &s) {
    std::string o = "\"";
    for (char c : s) {
        if (c == '"' || c == '\\') o += '\\';
        o += (c == '\n' || c == '\r') ? ' ' : c;
    }
    return o + "\"";
}

uint64_t device_load(const v1::DeviceStats &d) {
    uint64_t l = d.sessions();
    for (const auto &p : d.by_priority()) l += p.queued() + p.running();
    return l;
}

bool same_secret(const std::string &a, const std::string &b) {
    unsigned char d = (unsigned char)(a.size() != b.size());
    for (size_t i = 0; i < a.size() && i < b.size(); ++i) d |= (unsigned char)(a[i] ^ b[i]);
    return d == 0;
}

Core::Core(Config c) : cfg_(std::move(c)) {
    cpu_ = std::make_unique<Device>("cpu", -1, cfg_.cpu_jobs, cfg_.aging_ms);
}

Core::~Core() {
    for (auto &p : pending_fds_) ::close(p.second);
}

void Core::open_devices() {
    if (cfg_.cpu_devices > kMaxCpuDevices)
        throw std::runtime_error("--cpu-devices " + std::to_string(cfg_.cpu_devices) + ": at most " +
                                 std::to_string(kMaxCpuDevices) + " emulated devices");
    if (cfg_.cpu_devices && !cfg_.gpus.empty())
        throw std::runtime_error(
            "--cpu-devices serves emulated devices in place of GPUs: it cannot be combined with GPUs");
    for (int ord : cfg_.gpus) {
        std::string why;
        auto probe = make_cuda_backend(ord, 1, why);
        if (!probe) throw std::runtime_error("GPU " + std::to_string(ord) + " is unusable: " + why);
        auto d = std::make_unique<Device>("cuda:" + std::to_string(ord) + " " + probe->device_name(), ord,
                                          cfg_.jobs_per_gpu, cfg_.aging_ms);
        uint64_t fr = 0;
        probe->mem_info(fr, d->total);
        d->probe = std::move(probe);
        devices_.push_back(std::move(d));
    }
    // Emulated devices: each a queue of its own with the concurrency of a
    // GPU, its sessions on CPU backends of their own.
    for (unsigned i = 0; i < cfg_.cpu_devices; ++i) {
        auto d = std::make_unique<Device>("cpu:" + std::to_string(i), -1, cfg_.jobs_per_gpu, cfg_.aging_ms);
        d->emulated = true;
        d->total = cfg_.device_budget;
        devices_.push_back(std::move(d));
    }
}

std::string Core::device_names(bool gpus_only) const {
    std::string devs;
    for (auto &g : devices_)
        if (!gpus_only || g->ordinal >= 0) devs += (devs.empty() ? "" : ",") + g->name;
    return devs;
}

// ---- sessions ----

// By load, not by free memory: sessions opened together all see the same
// free memory (a session allocates only after it opens), so placing by it
// put them all on one device. The least loaded served device (sessions
// placed + jobs running + jobs queued) takes the session, then the one
// whose sessions hold the fewest bytes, then the lowest index. The session
// is counted before mu_ is released, so the next one sees it.
Device &Core::place_locked(bool force_cpu, unsigned *load) {
    Device *best = cpu_.get();
    unsigned best_load = 0;
    if (!force_cpu && !devices_.empty()) {
        best = nullptr;
        uint64_t best_bytes = 0;
        for (auto &d : devices_) {
            const unsigned l = d->load();
            const uint64_t b = d->bytes.load();
            if (!best || l < best_load || (l == best_load && b < best_bytes)) {
                best = d.get();
                best_load = l;
                best_bytes = b;
            }
        }
    } else {
        best_load = best->load();
    }
    *load = best_load;
    best->sessions++;
    return *best;
}

void Core::unregister(SessionState &s) {
    std::lock_guard<std::mutex> lock(mu_);
    sessions_.erase(s.id);
    auto it = per_client_.find(s.client_key);
    if (it != per_client_.end() && --it->second == 0) per_client_.erase(it);
    if (s.dev) s.dev->sessions--;
    ++closed_;
}

std::unique_ptr<SessionState> Core::open(const v1::Request &q, const Peer &peer, v1::Reply &rep,
                                         std::function<bool()> gone) {
    if (q.op_case() != v1::Request::kHello) fail(GP_ERR_REMOTE, "the first request of a session must be Hello");
    if (stopping_) fail(GP_ERR_REMOTE, "gpuprover-server is shutting down");
    const v1::Hello &h = q.hello();
    if (h.version() != wire::kVersion)
        fail(GP_ERR_REMOTE, "protocol version ", h.version(), " is not supported (this server speaks ", wire::kVersion,
             ")");
    if (!cfg_.token.empty() && !peer.local && !same_secret(h.token(), cfg_.token))
        fail(GP_ERR_REMOTE, "wrong or missing token (set GPUPROVER_SERVER_TOKEN_FILE or options.token_file)");
    // The priority as a raw integer: proto3 keeps unknown enum values.
    const int p = (int)h.priority();
    if (p != 0 && p != 1 && p != 2) fail(GP_ERR_INVALID_ARGUMENT, "priority ", p, " is no gp_priority");
    auto s = std::make_unique<SessionState>();
    s->peer = peer.text;
    s->client_key = peer.client;
    s->local = peer.local;
    s->prio = p;
    s->force_cpu = h.force_cpu();
    s->client = h.client().substr(0, 200);
    s->gone = std::move(gone);
    // Everything Stats and the watchdog read is set before the session is
    // registered; the backend, which they do not read, after.
    unsigned load = 0;
    {
        // Counted before anything is built, so that a burst cannot pass;
        // placed under the same lock, so that sessions opened together see
        // each other.
        std::lock_guard<std::mutex> lock(mu_);
        const ResourceLimits &l = cfg_.limits;
        if (sessions_.size() >= l.max_sessions)
            fail(GP_ERR_REMOTE, "the server has ", sessions_.size(), " sessions open, its limit (--max-sessions)");
        unsigned &mine = per_client_[s->client_key];
        if (mine >= l.max_sessions_per_client)
            fail(GP_ERR_REMOTE, "client ", s->client_key, " has ", mine,
                 " sessions open, the server's limit per client (--max-sessions-per-client)");
        ++mine;
        s->id = next_session_++;
        s->dev = &place_locked(s->force_cpu, &load);
        sessions_[s->id] = s.get();
        ++opened_;
    }
    // From here a failure unregisters the session (and its count on the
    // device) before it is reported.
    try {
        Device &d = *s->dev;
        if (d.ordinal >= 0) {
            std::string why;
            s->backend = make_cuda_backend(d.ordinal, cfg_.staging_threads, why);
            if (!s->backend) fail(GP_ERR_NO_DEVICE, "the server cannot open ", d.name, ": ", why);
        } else {
            // The pool divides the cores among its jobs; emulated devices
            // among all of theirs.
            const unsigned hw = std::max(1u, std::thread::hardware_concurrency());
            const unsigned jobs = d.emulated ? cfg_.cpu_devices * cfg_.jobs_per_gpu : cfg_.cpu_jobs;
            s->backend = make_cpu_backend(cfg_.cpu_threads ? cfg_.cpu_threads : std::max(1u, hw / std::max(1u, jobs)));
        }
        s->backend->monitor = &s->monitor;
        s->mem = std::make_unique<SessionMemory>(*s->backend, cfg_.limits.max_regions_per_session);
        if (s->local && !cfg_.unix_path.empty()) s->nonce = random_nonce();
    } catch (const Error &) {
        unregister(*s);
        throw;
    } catch (const std::bad_alloc &) {
        unregister(*s);
        fail(GP_ERR_HOST_OUT_OF_MEMORY, "the server ran out of host memory opening a session");
    } catch (const std::exception &e) {
        unregister(*s);
        fail(GP_ERR_INTERNAL, "the server cannot open a session: ", e.what());
    } catch (...) {
        unregister(*s);
        fail(GP_ERR_INTERNAL, "the server cannot open a session");
    }
    auto *hr = rep.mutable_hello();
    hr->set_version(wire::kVersion);
    hr->set_session(s->id);
    hr->set_device_name(s->dev->name);
    hr->set_backend(s->backend->kind());
    hr->set_shm_nonce(s->nonce);
    hr->set_quota_bytes(cfg_.quota_bytes);
    // load: the device's sessions + running + queued jobs when it was
    // chosen, the least of the served devices (placement by load).
    log_line("session_open", "session=" + std::to_string(s->id) + " client=" + quote(s->client) +
                                 " peer=" + quote(s->peer) + " device=" + quote(s->dev->name) +
                                 " load=" + std::to_string(load) + " priority=" + priority_name(s->prio));
    return s;
}

void Core::close(std::unique_ptr<SessionState> s) {
    const uint64_t held = s->mem->bytes();
    try {
        s->mem->clear();  // buffers, trees, the window and regions
    } catch (const std::exception &e) {
        // The session's bookkeeping is released all the same.
        log_line("session_release_failed", "session=" + std::to_string(s->id) + " reason=" + quote(e.what()));
    }
    descriptors_ -= s->descriptors;
    s->descriptors = 0;
    s->dev->bytes -= held;
    s->dev->queue.note_freed();
    unregister(*s);
    drop_pending(s->nonce);
    log_line("session_close", "session=" + std::to_string(s->id) + " jobs=" + std::to_string(s->jobs.load()) +
                                  " released_bytes=" + std::to_string(held));
}

bool Core::idle() {
    std::lock_guard<std::mutex> lock(mu_);
    return sessions_.empty();
}

void Core::cancel_all() {
    std::lock_guard<std::mutex> lock(mu_);
    for (auto &kv : sessions_) kv.second->monitor.cancel();
}

void Core::close_queues() {
    for (auto &g : devices_) g->queue.close();
    cpu_->queue.close();
    fd_cv_.notify_all();
}

void Core::watch() {
    std::lock_guard<std::mutex> lock(mu_);
    for (auto &kv : sessions_)
        if (kv.second->gone && kv.second->gone()) kv.second->monitor.cancel();
}

// ---- memory the session makes the server hold ----

uint64_t Core::held(const SessionState &s) const { return s.mem->bytes() + s.mem->private_bytes(); }

void Core::check_quota(const SessionState &s, uint64_t more, const char *what) const {
    const uint64_t q = cfg_.quota_bytes, h = held(s);
    if (q && more > q - std::min(q, h))
        fail(GP_ERR_DEVICE_OUT_OF_MEMORY, what, ": the session's quota of ", q, " bytes on the server is spent (", h,
             " held, ", more, " asked)");
}

void Core::reserve_descriptor() {
    const unsigned limit = descriptor_limit(cfg_.limits);
    if (descriptors_.load() >= limit)
        fail(GP_ERR_HOST_OUT_OF_MEMORY, "the server holds ", descriptors_.load(),
             " shared-memory descriptors, its limit (--max-descriptors)");
}

void Core::count_descriptors(SessionState &s) {
    const unsigned now = s.mem->descriptors();
    descriptors_ += now;
    descriptors_ -= s.descriptors;
    s.descriptors = now;
}

// ---- descriptors from the side socket ----

void Core::deliver_fd(const std::string &msg, int fd) {
    if (msg.size() != kNonceBytes + kTicketBytes) {
        ::close(fd);
        return;
    }
    const std::string nonce = msg.substr(0, kNonceBytes);
    bool known = false;
    {
        std::lock_guard<std::mutex> lock(mu_);
        for (auto &kv : sessions_) known = known || (!kv.second->nonce.empty() && same_secret(kv.second->nonce, nonce));
    }
    std::lock_guard<std::mutex> lock(fd_mu_);
    unsigned &n = pending_per_nonce_[nonce];
    const ResourceLimits &l = cfg_.limits;
    if (!known || n >= l.max_pending_fds_per_session || pending_fds_.size() >= l.max_pending_fds ||
        pending_fds_.count(msg)) {
        if (n == 0) pending_per_nonce_.erase(nonce);
        ::close(fd);
        return;
    }
    ++n;
    pending_fds_[msg] = fd;
    fd_cv_.notify_all();
}

void Core::drop_pending(const std::string &nonce) {
    if (nonce.empty()) return;
    std::lock_guard<std::mutex> lock(fd_mu_);
    for (auto it = pending_fds_.begin(); it != pending_fds_.end();) {
        if (it->first.compare(0, kNonceBytes, nonce) == 0) {
            ::close(it->second);
            it = pending_fds_.erase(it);
        } else {
            ++it;
        }
    }
    pending_per_nonce_.erase(nonce);
}

int Core::take_fd(SessionState &s, uint64_t ticket) {
    if (s.nonce.empty()) fail(GP_ERR_UNSUPPORTED, "shared memory needs a unix-socket session");
    if (ticket == 0) fail(GP_ERR_INVALID_ARGUMENT, "shared memory: the request names no ticket (ticket = 0)");
    const std::string key = fd_key(s.nonce, ticket);
    std::unique_lock<std::mutex> lock(fd_mu_);
    fd_cv_.wait_for(lock, std::chrono::milliseconds(cfg_.fd_wait_ms),
                    [&] { return pending_fds_.count(key) > 0 || stopping_.load(); });
    auto it = pending_fds_.find(key);
    if (it == pending_fds_.end())
        fail(GP_ERR_REMOTE, "shared memory: no descriptor with ticket ", ticket, " arrived on the side socket within ",
             cfg_.fd_wait_ms, " ms");
    const int fd = it->second;
    pending_fds_.erase(it);
    auto n = pending_per_nonce_.find(s.nonce);
    if (n != pending_per_nonce_.end() && --n->second == 0) pending_per_nonce_.erase(n);
    return fd;
}

void Core::attach(SessionState &s, const v1::AttachShm &a) {
    if (a.bytes() == 0 || a.bytes() > kMaxSharedBytes)
        fail(GP_ERR_INVALID_ARGUMENT, "attach_shm: ", a.bytes(), " bytes");
    if (!a.fd()) {
        const uint64_t cap = cfg_.limits.max_private_window;
        if (a.bytes() > cap)
            fail(GP_ERR_HOST_OUT_OF_MEMORY, "attach_shm: a private window of ", a.bytes(),
                 " bytes exceeds the server's limit of ", cap);
        // The new window replaces the old one: only the growth counts.
        check_quota(s, a.bytes() - std::min(a.bytes(), s.mem->private_bytes()), "attach_shm");
        s.mem->attach_private(a.bytes());
        return;
    }
    if (!s.mem->shared()) reserve_descriptor();
    s.mem->attach_shared(take_fd(s, a.ticket()), a.bytes());
}

// ---- requests ----

void Core::run_job(SessionState &s, const char *op, const std::function<bool()> &give_up,
                   const std::function<void()> &fn, v1::Reply &rep) {
    Device &d = *s.dev;
    const Clock::time_point arrival = Clock::now();
    const uint64_t my_seq = ++seq_;
    auto cancelled = [&] { return s.request.load() && s.cancel_request.load() == s.request.load(); };
    auto drop = [&] { return (give_up && give_up()) || stopping_.load() || cancelled(); };
    auto dropped = [&](const char *when) {
        if (cancelled()) fail(GP_ERR_CANCELLED, "cancelled by gp_context_cancel ", when);
        fail(GP_ERR_CANCELLED, "the job was dropped ", when, ": its client went away or the server is shutting down");
    };
    if (!d.queue.acquire(s.prio, arrival, my_seq, drop)) dropped("in the queue");
    Clock::time_point start = Clock::now();
    const double wait_ms = ms_between(arrival, start);
    gp_status st = GP_OK;
    std::string msg;
    for (int attempt = 0;; ++attempt) {
        try {
            s.backend->bind_thread();
            s.backend->begin_call();
            s.monitor.begin();
            {
                // A Cancel read before the job began (Core::cancel).
                std::lock_guard<std::mutex> lock(s.cancel_mu);
                if (cancelled()) s.monitor.cancel();
            }
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
            if (e.status == GP_ERR_DEVICE_OUT_OF_MEMORY && attempt < 64 && !stopping_ &&
                d.queue.yield_for_memory(s.prio)) {
                // Other jobs of this device hold memory: wait for one to end.
                if (!d.queue.acquire(s.prio, arrival, my_seq, drop)) dropped("while waiting for device memory");
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
    // Caches the job built count in the quota: beyond it they are dropped.
    if (cfg_.quota_bytes && held(s) + s.backend->cache_bytes() > cfg_.quota_bytes) s.backend->trim();
    const double run_ms = ms_between(start, Clock::now());
    d.queue.release(s.prio, st == GP_OK, wait_ms, run_ms);
    s.jobs++;
    char buf[160];
    std::snprintf(buf, sizeof buf, " priority=%s wait_ms=%.3f run_ms=%.3f status=%s", priority_name(s.prio), wait_ms,
                  run_ms, gp_status_name(st));
    log_line("job", "session=" + std::to_string(s.id) + " op=" + op + " device=" + quote(d.name) + buf);
    if (st != GP_OK) throw Error(st, msg);
}

void Core::cancel(SessionState &s, uint64_t target) {
    if (!target) return;
    std::lock_guard<std::mutex> lock(s.cancel_mu);
    s.cancel_request = target;
    if (s.request.load() == target) s.monitor.cancel();  // a no-op unless its job runs
}

void Core::dispatch(SessionState &s, const v1::Request &q, v1::Reply &rep, const std::function<bool()> &give_up,
                    const char *op) {
    switch (q.op_case()) {
        case v1::Request::kHello: fail(GP_ERR_INVALID_ARGUMENT, "Hello twice");
        case v1::Request::kCancel:
        case v1::Request::kAck:
            fail(GP_ERR_INVALID_ARGUMENT, "Cancel and Ack are read only while a request runs, in a session whose "
                                          "Hello asked for the relay");
        case v1::Request::kAttachShm: attach(s, q.attach_shm()); break;
        case v1::Request::kAttachRegion: {
            const auto &r = q.attach_region();
            if (r.bytes() == 0 || r.bytes() > kMaxSharedBytes)
                fail(GP_ERR_INVALID_ARGUMENT, "attach_region: ", r.bytes(), " bytes");
            reserve_descriptor();
            s.mem->attach_region(r.id(), take_fd(s, r.ticket()), r.bytes());
            break;
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
            break;
        }
        case v1::Request::kAlloc: {
            const uint64_t bytes = q.alloc().bytes();
            if (bytes > (1ull << 44)) fail(GP_ERR_DEVICE_OUT_OF_MEMORY, "alloc: ", bytes, " bytes");
            check_quota(s, bytes, "alloc");
            run_job(s, op, give_up, [&] {
                // Reserved first, so that concurrent jobs see it.
                const uint64_t before = s.dev->bytes.fetch_add(bytes);
                try {
                    if (cfg_.device_budget && before + bytes > cfg_.device_budget)
                        fail(GP_ERR_DEVICE_OUT_OF_MEMORY, "the server's budget of ", cfg_.device_budget, " bytes for ",
                             s.dev->name, " is spent (", before, " held, ", bytes, " asked)");
                    void *p = s.backend->alloc_buffer(bytes);
                    rep.set_addr(s.mem->add(p, bytes));
                } catch (...) {
                    s.dev->bytes -= bytes;
                    throw;
                }
            }, rep);
            break;
        }
        case v1::Request::kFree: {
            const uint64_t before = s.mem->bytes();
            run_op(*s.backend, *s.mem, q, rep);
            s.dev->bytes -= before - s.mem->bytes();
            s.dev->queue.note_freed();
            break;
        }
        default:
            if (is_job(q)) run_job(s, op, give_up, [&] { run_op(*s.backend, *s.mem, q, rep); }, rep);
            else run_op(*s.backend, *s.mem, q, rep);
    }
}

void Core::handle(SessionState &s, const v1::Request &q, v1::Reply &rep, const std::function<bool()> &give_up) {
    rep.set_id(q.id());
    const google::protobuf::FieldDescriptor *fdesc = q.GetDescriptor()->FindFieldByNumber(q.op_case());
    const char *op = fdesc ? fdesc->name().c_str() : "none";
    {
        std::lock_guard<std::mutex> lock(s.cancel_mu);
        s.request = q.id();
    }
    struct Done {
        SessionState &s;
        ~Done() {
            std::lock_guard<std::mutex> lock(s.cancel_mu);
            s.request = 0;
        }
    } done{s};
    try {
        dispatch(s, q, rep, give_up, op);
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
    count_descriptors(s);
    s.bytes = held(s);
}

void Core::malformed(size_t bytes, v1::Reply &rep, const std::string &why) {
    rep.set_status(GP_ERR_INVALID_ARGUMENT);
    rep.set_message(!why.empty() ? "malformed request: " + why
                                 : "malformed request: " + std::to_string(bytes) +
                                       " bytes that are no gpuprover.v1.Request; the session ends");
}

bool Core::handle_bytes(SessionState &s, const std::string &bytes, v1::Reply &rep,
                        const std::function<bool()> &give_up) {
    v1::Request q;
    if (!q.ParseFromString(bytes)) {
        malformed(bytes.size(), rep);
        return false;
    }
    handle(s, q, rep, give_up);
    return true;
}

// ---- statistics ----

void Core::fill_device(Device &d, v1::DeviceStats *o) {
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
    o->set_memory_total(d.probe ? tot : d.total);
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

void Core::fill_stats(v1::StatsReply *r) {
    r->set_version(wire::kVersion);
    for (auto &g : devices_) fill_device(*g, r->add_devices());
    fill_device(*cpu_, r->add_devices());
    std::lock_guard<std::mutex> lock(mu_);
    for (auto &kv : sessions_) {
        const SessionState &s = *kv.second;
        auto *c = r->add_clients();
        c->set_session(s.id);
        c->set_client(s.client);
        c->set_device(s.dev ? s.dev->name : "");
        c->set_priority((v1::Priority)s.prio);
        c->set_bytes(s.bytes.load());
        c->set_jobs(s.jobs.load());
    }
    r->set_sessions_opened(opened_);
    r->set_sessions_closed(closed_);
    r->set_uptime_s(ms_between(started_, Clock::now()) / 1000);
}

std::string Core::prometheus() {
    v1::StatsReply r;
    fill_stats(&r);
    std::ostringstream o;
    auto label = [](const std::string &v) {  // a label value, escaped
        std::string e;
        for (char c : v) e += (c == '"' || c == '\\') ? std::string("\\") + c : c == '\n' ? std::string("\\n") : std::string(1, c);
        return e;
    };
    o << "# HELP gpuprover_jobs Jobs by device, priority and state.\n# TYPE gpuprover_jobs gauge\n";
    for (const auto &d : r.devices())
        for (const auto &p : d.by_priority()) {
            const std::string l = "device=\"" + label(d.name()) + "\",priority=\"" + priority_name(p.priority()) + "\"";
            o << "gpuprover_jobs{" << l << ",state=\"queued\"} " << p.queued() << "\n";
            o << "gpuprover_jobs{" << l << ",state=\"running\"} " << p.running() << "\n";
            o << "gpuprover_jobs{" << l << ",state=\"done\"} " << p.done() << "\n";
            o << "gpuprover_jobs{" << l << ",state=\"failed\"} " << p.failed() << "\n";
        }
    o << "# HELP gpuprover_job_ms Queue wait and run time percentiles of recent jobs (ms).\n"
         "# TYPE gpuprover_job_ms gauge\n";
    for (const auto &d : r.devices())
        for (const auto &p : d.by_priority()) {
            const std::string l = "device=\"" + label(d.name()) + "\",priority=\"" + priority_name(p.priority()) + "\"";
            for (auto w : {std::make_pair("wait", &p.wait()), std::make_pair("run", &p.run())}) {
                o << "gpuprover_job_ms{" << l << ",phase=\"" << w.first << "\",quantile=\"0.5\"} " << w.second->p50_ms() << "\n";
                o << "gpuprover_job_ms{" << l << ",phase=\"" << w.first << "\",quantile=\"0.9\"} " << w.second->p90_ms() << "\n";
                o << "gpuprover_job_ms{" << l << ",phase=\"" << w.first << "\",quantile=\"0.99\"} " << w.second->p99_ms() << "\n";
            }
        }
    o << "# HELP gpuprover_device_memory_bytes Device memory held by sessions, and in all.\n"
         "# TYPE gpuprover_device_memory_bytes gauge\n";
    for (const auto &d : r.devices()) {
        o << "gpuprover_device_memory_bytes{device=\"" << label(d.name()) << "\",kind=\"sessions\"} " << d.memory_in_use() << "\n";
        o << "gpuprover_device_memory_bytes{device=\"" << label(d.name()) << "\",kind=\"total\"} " << d.memory_total() << "\n";
    }
    o << "# HELP gpuprover_device_sessions Sessions placed on each device.\n"
         "# TYPE gpuprover_device_sessions gauge\n";
    for (const auto &d : r.devices())
        o << "gpuprover_device_sessions{device=\"" << label(d.name()) << "\"} " << d.sessions() << "\n";
    o << "# HELP gpuprover_device_load What placement compares: sessions + jobs running + jobs queued.\n"
         "# TYPE gpuprover_device_load gauge\n";
    for (const auto &d : r.devices())
        o << "gpuprover_device_load{device=\"" << label(d.name()) << "\"} " << device_load(d) << "\n";
    o << "# HELP gpuprover_client_bytes Memory held per session.\n# TYPE gpuprover_client_bytes gauge\n";
    for (const auto &c : r.clients())
        o << "gpuprover_client_bytes{session=\"" << c.session() << "\",device=\"" << label(c.device()) << "\"} " << c.bytes() << "\n";
    o << "# HELP gpuprover_sessions_total Sessions opened and closed.\n# TYPE gpuprover_sessions_total counter\n";
    o << "gpuprover_sessions_total{event=\"opened\"} " << r.sessions_opened() << "\n";
    o << "gpuprover_sessions_total{event=\"closed\"} " << r.sessions_closed() << "\n";
    o << "# HELP gpuprover_descriptors Shared-memory descriptors held for sessions.\n# TYPE gpuprover_descriptors gauge\n";
    o << "gpuprover_descriptors " << descriptors() << "\n";
    return o.str();
}

}  // namespace server
}  // namespace gp
