// SPDX-License-Identifier: MIT OR Apache-2.0
#include "server/server.h"

#include <arpa/inet.h>
#include <fcntl.h>
#include <grpcpp/grpcpp.h>
#include <grpcpp/health_check_service_interface.h>
#include <grpcpp/resource_quota.h>
#include <grpcpp/server_posix.h>
#include <netdb.h>
#include <netinet/in.h>
#include <poll.h>
#include <sys/file.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/un.h>
#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <condition_variable>
#include <cstdio>
#include <cstring>
#include <map>
#include <mutex>
#include <set>
#include <thread>

#include "gpuprover.grpc.pb.h"
#include "remote/endpoint.h"
#include "remote/frame.h"
#include "remote/shm.h"
#include "remote/wire.h"
#include "server/limits.h"
#include "server/link.h"
#include "server/session_core.h"

namespace gp {
namespace server {

namespace {

constexpr const char *kTokenHeader = "gpuprover-token";
constexpr const char *kSessionMethod = "/gpuprover.v1.Prover/Session";
constexpr const char *kStatsMethod = "/gpuprover.v1.Prover/Stats";

std::string errno_text() { return std::strerror(errno); }

// A listening socket bound to `path` (mode 0660: owner and group only).
int listen_unix(const std::string &path) {
    sockaddr_un addr{};
    addr.sun_family = AF_UNIX;
    if (path.size() >= sizeof(addr.sun_path)) throw std::runtime_error("socket path too long: " + path);
    std::memcpy(addr.sun_path, path.c_str(), path.size() + 1);
    unlink(path.c_str());
    const int s = socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC | SOCK_NONBLOCK, 0);
    const mode_t old = umask(0117);  // never world-reachable, not even between bind and chmod
    const bool ok = s >= 0 && bind(s, reinterpret_cast<sockaddr *>(&addr), sizeof(addr)) == 0 && listen(s, 128) == 0;
    umask(old);
    if (!ok) {
        const std::string e = errno_text();
        if (s >= 0) close(s);
        throw std::runtime_error("cannot listen on " + path + ": " + e);
    }
    chmod(path.c_str(), 0660);
    return s;
}

// A listening TCP socket on HOST:PORT (IPv4 or IPv6; port 0 picks one).
// Never SO_REUSEPORT: a second server on the same port fails to bind.
int listen_tcp(const std::string &hostport, int *port_out) {
    const Endpoint e = parse_endpoints(hostport)[0];
    addrinfo hints{}, *res = nullptr;
    hints.ai_socktype = SOCK_STREAM;
    hints.ai_flags = AI_PASSIVE | AI_NUMERICSERV;
    const std::string host = e.host == "localhost" ? "127.0.0.1" : e.host;
    if (getaddrinfo(host.c_str(), e.port.c_str(), &hints, &res) != 0 || !res)
        throw std::runtime_error("cannot resolve " + hostport);
    const int s = socket(res->ai_family, SOCK_STREAM | SOCK_CLOEXEC | SOCK_NONBLOCK, 0);
    int one = 1;
    if (s >= 0) setsockopt(s, SOL_SOCKET, SO_REUSEADDR, &one, sizeof one);
    const bool ok = s >= 0 && bind(s, res->ai_addr, res->ai_addrlen) == 0 && listen(s, 128) == 0;
    freeaddrinfo(res);
    if (!ok) {
        const std::string err = errno_text();
        if (s >= 0) close(s);
        throw std::runtime_error("cannot listen on " + hostport + ": " + err);
    }
    sockaddr_storage a{};
    socklen_t n = sizeof a;
    getsockname(s, reinterpret_cast<sockaddr *>(&a), &n);
    if (port_out)
        *port_out = ntohs(a.ss_family == AF_INET6 ? reinterpret_cast<sockaddr_in6 *>(&a)->sin6_port
                                                  : reinterpret_cast<sockaddr_in *>(&a)->sin_port);
    return s;
}

// Who is on the other end of accepted connection `c`.
Peer peer_of(int c, bool unix_socket) {
    Peer p;
    if (unix_socket) {
        ucred cr{};
        socklen_t n = sizeof cr;
        p.local = true;
        if (getsockopt(c, SOL_SOCKET, SO_PEERCRED, &cr, &n) == 0) {
            p.text = "unix:uid=" + std::to_string(cr.uid) + ",pid=" + std::to_string(cr.pid);
            p.client = "uid:" + std::to_string(cr.uid);
        } else {
            p.text = p.client = "unix:unknown";
        }
        return p;
    }
    sockaddr_storage a{};
    socklen_t n = sizeof a;
    char host[INET6_ADDRSTRLEN] = "?";
    int port = 0;
    if (getpeername(c, reinterpret_cast<sockaddr *>(&a), &n) == 0) {
        if (a.ss_family == AF_INET6) {
            auto *v6 = reinterpret_cast<sockaddr_in6 *>(&a);
            inet_ntop(AF_INET6, &v6->sin6_addr, host, sizeof host);
            port = ntohs(v6->sin6_port);
        } else {
            auto *v4 = reinterpret_cast<sockaddr_in *>(&a);
            inet_ntop(AF_INET, &v4->sin_addr, host, sizeof host);
            port = ntohs(v4->sin_port);
        }
    }
    p.text = std::string(a.ss_family == AF_INET6 ? "ipv6:" : "ipv4:") + host + ":" + std::to_string(port);
    p.client = std::string("ip:") + host;
    return p;
}

// Whether an HTTP request carries "Authorization: Bearer TOKEN" (header
// name and scheme in any case, the token compared in constant time).
bool has_bearer(const std::string &req, const std::string &token) {
    static const std::string pre = "\r\nauthorization: bearer ";
    std::string lower = req;
    for (auto &ch : lower) ch = (char)std::tolower((unsigned char)ch);
    for (size_t at = lower.find(pre); at != std::string::npos; at = lower.find(pre, at + 2)) {
        const size_t from = at + pre.size(), end = req.find("\r\n", from);
        if (same_secret(req.substr(from, end == std::string::npos ? std::string::npos : end - from), token))
            return true;
    }
    return false;
}

ino_t inode_of(int fd) {
    struct stat st;
    return fstat(fd, &st) == 0 ? st.st_ino : 0;
}

// A bounded pool of bytes (replies being written).
class ByteBudget {
public:
    explicit ByteBudget(uint64_t cap) : cap_(cap) {}
    // Waits until `n` bytes fit (a reply larger than the whole budget waits
    // for an empty pool; a small one never waits, so that slow readers of
    // large answers cannot hold up everyone's small replies); false when
    // `give_up()` turns true first.
    bool acquire(uint64_t n, const std::function<bool()> &give_up) {
        constexpr uint64_t kSmall = 64 << 10;
        std::unique_lock<std::mutex> lock(mu_);
        while (n > kSmall && used_ && used_ + n > cap_) {
            cv_.wait_for(lock, std::chrono::milliseconds(50));
            if (give_up()) return false;
        }
        used_ += n;
        return true;
    }
    void release(uint64_t n) {
        {
            std::lock_guard<std::mutex> lock(mu_);
            used_ -= n;
        }
        cv_.notify_all();
    }

private:
    std::mutex mu_;
    std::condition_variable cv_;
    uint64_t cap_, used_ = 0;
};

}  // namespace

struct Server::Impl final : public grpc::Service {
    Core core;
    std::unique_ptr<grpc::Server> grpc_server;
    ByteBudget replies;
    int unix_listen = -1, tcp_listen = -1, fd_listen = -1, metrics_listen = -1, lock_fd = -1, reserve_fd = -1;
    int wake[2] = {-1, -1};
    int tcp_port = 0;
    std::vector<std::thread> threads;
    std::atomic<bool> stopped{false};
    std::mutex done_mu;
    std::condition_variable done_cv;
    bool done = false;

    // Connections handed to gRPC: descriptor -> (its socket's inode, peer).
    struct Conn {
        ino_t ino;
        Peer peer;
    };
    std::mutex conn_mu;
    std::map<int, Conn> conns;
    // Connection threads (until each knows its transport; direct sessions
    // to their end) and the direct sessions' descriptors.
    std::mutex threads_mu;
    std::condition_variable threads_cv;
    unsigned conn_threads = 0;
    std::set<int> direct_fds;

    explicit Impl(Config c) : core(std::move(c)), replies(core.config().limits.max_reply_bytes_in_flight) {
        AddMethod(new grpc::internal::RpcServiceMethod(
            kSessionMethod, grpc::internal::RpcMethod::BIDI_STREAMING,
            new grpc::internal::BidiStreamingHandler<Impl, grpc::ByteBuffer, grpc::ByteBuffer>(
                [](Impl *s, grpc::ServerContext *ctx, GrpcStream *st) {
                    return s->Session(ctx, st);
                },
                this)));
        AddMethod(new grpc::internal::RpcServiceMethod(
            kStatsMethod, grpc::internal::RpcMethod::NORMAL_RPC,
            new grpc::internal::RpcMethodHandler<Impl, v1::StatsRequest, v1::StatsReply, grpc::protobuf::MessageLite,
                                                 grpc::protobuf::MessageLite>(
                [](Impl *s, grpc::ServerContext *ctx, const v1::StatsRequest *q, v1::StatsReply *r) {
                    return s->Stats(ctx, q, r);
                },
                this)));
    }

    ~Impl() override {
        for (int f : {unix_listen, tcp_listen, fd_listen, metrics_listen, lock_fd, reserve_fd, wake[0], wake[1]})
            if (f >= 0) close(f);
    }

    const Config &cfg() const { return core.config(); }

    // ---- connections ----

    // The peer of a call: gRPC names connections it got from us "fd:N".
    Peer peer_of_call(grpc::ServerContext *ctx) {
        const std::string p = ctx->peer();
        if (p.rfind("fd:", 0) == 0) {
            const int fd = std::atoi(p.c_str() + 3);
            std::lock_guard<std::mutex> lock(conn_mu);
            auto it = conns.find(fd);
            if (it != conns.end() && inode_of(fd) == it->second.ino) return it->second.peer;
        }
        Peer unknown;
        unknown.text = unknown.client = p;
        return unknown;
    }

    // Forgets connections gRPC has closed; returns how many `client` holds.
    unsigned sweep_connections(const std::string &client, unsigned *total) {
        std::lock_guard<std::mutex> lock(conn_mu);
        unsigned mine = 0;
        for (auto it = conns.begin(); it != conns.end();) {
            if (inode_of(it->first) != it->second.ino) {
                it = conns.erase(it);
                continue;
            }
            mine += it->second.peer.client == client;
            ++it;
        }
        *total = (unsigned)conns.size();
        return mine;
    }

    // Accepts on `ls`, keeping one descriptor in reserve: when the process
    // runs out, the reserve is closed to accept and drop the connection, so
    // the listener never stalls and serves again once descriptors free up.
    int accept_one(int ls) {
        const int c = accept4(ls, nullptr, nullptr, SOCK_CLOEXEC | SOCK_NONBLOCK);
        if (c >= 0 || (errno != EMFILE && errno != ENFILE)) return c;
        if (reserve_fd >= 0) {
            close(reserve_fd);
            const int drop = accept4(ls, nullptr, nullptr, SOCK_CLOEXEC);
            if (drop >= 0) close(drop);
            reserve_fd = open("/dev/null", O_RDONLY | O_CLOEXEC);
        }
        log_line("connection_refused", "reason=\"the server is out of descriptors\"");
        return -1;
    }

    // A connection on the session sockets: counted per client, then served
    // on a thread of its own until its first byte tells the transport.
    void serve_connection(int c, bool unix_socket) {
        const Peer p = peer_of(c, unix_socket);
        unsigned total = 0;
        const unsigned mine = sweep_connections(p.client, &total);
        const ResourceLimits &l = cfg().limits;
        if (total >= l.max_connections || mine >= l.max_connections_per_client) {
            log_line("connection_refused", "peer=" + quote(p.text) + " reason=" + quote("connection limit"));
            close(c);
            return;
        }
        {
            std::lock_guard<std::mutex> lock(threads_mu);
            // As many threads as gRPC's quota allows its streams.
            if (conn_threads >= l.max_sessions + 32) {
                log_line("connection_refused", "peer=" + quote(p.text) + " reason=" + quote("thread limit"));
                close(c);
                return;
            }
            ++conn_threads;
        }
        int one = 1;
        if (!unix_socket) setsockopt(c, IPPROTO_TCP, 1 /* TCP_NODELAY */, &one, sizeof one);
        {
            std::lock_guard<std::mutex> lock(conn_mu);
            conns[c] = Conn{inode_of(c), p};
        }
        std::thread([this, c, p] {
            serve_classified(c, p);
            std::lock_guard<std::mutex> lock(threads_mu);
            --conn_threads;
            threads_cv.notify_all();
        }).detach();
    }

    // The first byte: 'G' begins the direct transport's preface
    // (remote/frame.h), anything else (gRPC's "PRI * HTTP/2.0") goes to
    // gRPC. A connection that sends nothing within kPrefaceMs is closed.
    void serve_classified(int c, const Peer &p) {
        pollfd w[2] = {{c, POLLIN, 0}, {wake[0], POLLIN, 0}};
        char first = 0;
        int r;
        do r = poll(w, 2, kPrefaceMs);
        while (r < 0 && errno == EINTR);
        const bool readable = r > 0 && !w[1].revents && (w[0].revents & POLLIN) && recv(c, &first, 1, MSG_PEEK) == 1;
        if (readable && first != frame::kPreface[0]) {
            grpc::AddInsecureChannelFromFd(grpc_server.get(), c);
            return;
        }
        if (readable) {
            fcntl(c, F_SETFL, fcntl(c, F_GETFL) & ~O_NONBLOCK);
            timeval tv{kPrefaceMs / 1000, (kPrefaceMs % 1000) * 1000};
            setsockopt(c, SOL_SOCKET, SO_RCVTIMEO, &tv, sizeof tv);
            char pre[sizeof frame::kPreface];
            if (frame::read_all(c, pre, sizeof pre) && std::memcmp(pre, frame::kPreface, sizeof pre) == 0 &&
                !core.stopping()) {
                timeval none{0, 0};
                setsockopt(c, SOL_SOCKET, SO_RCVTIMEO, &none, sizeof none);
                {
                    std::lock_guard<std::mutex> lock(threads_mu);
                    direct_fds.insert(c);
                }
                // The message limit (--max-message-mib) bounds a payload too.
                const uint64_t max_message = cfg().max_message_bytes;
                DirectLink link(c, (uint32_t)max_message, std::min<uint64_t>(max_message, kMaxChunkBytes));
                serve_session(link, p);
                std::lock_guard<std::mutex> lock(threads_mu);
                direct_fds.erase(c);
            }
        }
        {
            std::lock_guard<std::mutex> lock(conn_mu);
            conns.erase(c);
        }
        close(c);
    }

    // Accepts on the gRPC listeners until shutdown.
    void grpc_accept_loop() {
        for (;;) {
            pollfd p[3] = {{wake[0], POLLIN, 0}, {unix_listen, POLLIN, 0}, {tcp_listen, POLLIN, 0}};
            if (poll(p, 3, -1) < 0) {
                if (errno == EINTR) continue;
                return;
            }
            if (p[0].revents) return;
            for (int i = 1; i < 3; ++i) {
                if (p[i].fd < 0 || !(p[i].revents & POLLIN)) continue;
                const int c = accept_one(p[i].fd);
                if (c >= 0) serve_connection(c, i == 1);
                else if (errno == EMFILE || errno == ENFILE) std::this_thread::sleep_for(std::chrono::milliseconds(10));
            }
        }
    }

    // The side socket: descriptors of shared memory. Many connections wait
    // at once, each for at most side_timeout_ms; when the pool (or a
    // client's share of it) is full, its oldest waiting connection gives
    // way. Connections that have sent are served first, so an idle one
    // delays nobody else.
    void side_loop() {
        struct Waiting {
            int fd;
            std::string client;
            Clock::time_point deadline;
        };
        std::vector<Waiting> waiting;
        const ResourceLimits &l = cfg().limits;
        for (;;) {
            std::vector<pollfd> p = {{wake[0], POLLIN, 0}, {fd_listen, POLLIN, 0}};
            for (const Waiting &w : waiting) p.push_back({w.fd, POLLIN, 0});
            if (poll(p.data(), p.size(), 100) < 0 && errno != EINTR) break;
            if (p[0].revents) break;
            const Clock::time_point now = Clock::now();
            std::vector<Waiting> keep;
            for (size_t i = 0; i < waiting.size(); ++i) {
                Waiting &w = waiting[i];
                if (p[i + 2].revents) {
                    std::string msg;
                    int fd = -1;
                    if (recv_fd(w.fd, msg, fd, 64)) core.deliver_fd(msg, fd);
                    close(w.fd);
                } else if (now >= w.deadline) {
                    close(w.fd);
                } else {
                    keep.push_back(w);
                }
            }
            waiting.swap(keep);
            if (p[1].revents & POLLIN) {
                const int c = accept_one(fd_listen);
                if (c < 0) continue;
                const Peer peer = peer_of(c, true);
                unsigned mine = 0;
                for (const Waiting &w : waiting) mine += w.client == peer.client;
                const bool client_full = mine >= l.max_side_connections_per_client;
                if (client_full || waiting.size() >= l.max_side_connections) {
                    for (auto it = waiting.begin(); it != waiting.end(); ++it)
                        if (!client_full || it->client == peer.client) {
                            close(it->fd);
                            waiting.erase(it);
                            break;
                        }
                }
                waiting.push_back({c, peer.client, now + std::chrono::milliseconds(l.side_timeout_ms)});
            }
        }
        for (const Waiting &w : waiting) close(w.fd);
    }

    // Prometheus text; with a token, the scrape must carry it
    // ("Authorization: Bearer TOKEN").
    void serve_metrics(int c) {
        fcntl(c, F_SETFL, fcntl(c, F_GETFL) & ~O_NONBLOCK);  // blocking, with timeouts
        timeval tv{1, 0};
        setsockopt(c, SOL_SOCKET, SO_RCVTIMEO, &tv, sizeof tv);
        setsockopt(c, SOL_SOCKET, SO_SNDTIMEO, &tv, sizeof tv);
        char buf[4096];
        const ssize_t n = recv(c, buf, sizeof buf - 1, 0);
        if (n <= 0) return;
        buf[n] = 0;
        const std::string req(buf, (size_t)n);
        const bool path_ok = req.rfind("GET /metrics", 0) == 0 || req.rfind("GET / ", 0) == 0;
        const bool auth_ok = cfg().token.empty() || has_bearer(req, cfg().token);
        const char *status = !auth_ok ? "401 Unauthorized" : path_ok ? "200 OK" : "404 Not Found";
        const std::string body = !auth_ok ? "a token is required (Authorization: Bearer)\n"
                                 : path_ok ? core.prometheus()
                                           : "not found\n";
        const std::string all = std::string("HTTP/1.0 ") + status +
                                "\r\nContent-Type: text/plain; version=0.0.4\r\nContent-Length: " +
                                std::to_string(body.size()) + "\r\nConnection: close\r\n\r\n" + body;
        size_t off = 0;
        while (off < all.size()) {
            const ssize_t w = send(c, all.data() + off, all.size() - off, MSG_NOSIGNAL);
            if (w <= 0) break;
            off += (size_t)w;
        }
    }

    void metrics_loop() {
        for (;;) {
            pollfd p[2] = {{wake[0], POLLIN, 0}, {metrics_listen, POLLIN, 0}};
            if (poll(p, 2, -1) < 0) {
                if (errno == EINTR) continue;
                return;
            }
            if (p[0].revents) return;
            const int c = accept_one(metrics_listen);
            if (c < 0) continue;
            serve_metrics(c);
            close(c);
        }
    }

    // Cancels the jobs of clients that went away; forgets closed connections.
    void watchdog_loop() {
        for (;;) {
            pollfd p{wake[0], POLLIN, 0};
            if (poll(&p, 1, 100) > 0) return;
            core.watch();
            unsigned total = 0;
            sweep_connections("", &total);
        }
    }

    // ---- RPCs ----

    bool token_ok(grpc::ServerContext *ctx, const Peer &p) const {
        if (cfg().token.empty() || p.local) return true;
        const auto &md = ctx->client_metadata();
        auto it = md.find(kTokenHeader);
        return it != md.end() && same_secret(std::string(it->second.data(), it->second.size()), cfg().token);
    }

    grpc::Status Stats(grpc::ServerContext *ctx, const v1::StatsRequest *, v1::StatsReply *r) {
        if (!token_ok(ctx, peer_of_call(ctx)))
            return grpc::Status(grpc::StatusCode::UNAUTHENTICATED, "Stats needs the server's token");
        core.fill_stats(r);
        return grpc::Status::OK;
    }

    // Writes a reply; `reserved` bytes of the reply budget are already
    // held for it (and released here), else its size is reserved first.
    bool write_reply(Link &link, v1::Reply &r, uint64_t reserved = 0) {
        const uint64_t n = reserved ? reserved : r.ByteSizeLong();
        if (!reserved && !replies.acquire(n, [&] { return link.cancelled() || core.stopping(); })) return false;
        const bool ok = link.write(r);
        replies.release(n);
        return ok;
    }

    // The next request of `link`: false at the stream's end. `framed` is
    // false where the bytes are no Request (or the framing was lost), or a
    // payload came beside anything but a Put without data of its own; the
    // session then answers as malformed and ends. A payload becomes the
    // Put's data.
    static bool next_request(Link &link, v1::Request &q, bool &framed, size_t &bytes) {
        std::string message, payload;
        const LinkRead r = link.read(message, payload);
        if (r == LinkRead::end) return false;
        framed = r == LinkRead::message && q.ParseFromString(message);
        bytes = message.size() + payload.size();
        if (framed && !payload.empty()) {
            if (q.op_case() == v1::Request::kPut && q.put().data().empty()) q.mutable_put()->mutable_data()->swap(payload);
            else framed = false;
        }
        return true;
    }

    // A Put's data string goes back to the link for the next payload.
    static void done_with(Link &link, v1::Request &q) {
        if (q.op_case() == v1::Request::kPut) link.recycle(std::move(*q.mutable_put()->mutable_data()));
    }

    // ---- the relay (sessions whose Hello sets relay) ----
    //
    // A reader thread reads the stream while the session's thread (the
    // call's own) handles requests: it hands requests over one at a time,
    // and acts on a Cancel or an Ack at once, so that the job running hears
    // of them. The session's thread also sends the Progress frames, from the
    // progress callback of the session's monitor, and waits for each one's
    // answer: every write is on that thread.
    struct Relay {
        Relay(Impl &i, Link &l, SessionState &ss) : impl(i), link(l), s(ss) {}
        Impl &impl;
        Link &link;
        SessionState &s;
        std::mutex mu;  // everything below
        std::condition_variable cv;
        // A request read and not yet taken: at most one, so that the reader
        // reads no further ahead than that.
        bool has_next = false, next_framed = false;
        v1::Request next;
        size_t next_bytes = 0;
        bool ended = false;  // the reader has stopped (the stream's end, or lost framing)
        bool stop = false;   // the session's thread is done with the stream
        uint64_t current = 0;   // the id of the request being handled
        bool report = false;    // it asked for progress, and answers come
        uint64_t seq = 0;       // the last Progress frame sent
        bool answered = false;  // ... and whether its answer came
    };

    void read_relay(Relay &r) {
        for (;;) {
            v1::Request q;
            bool framed = false;
            size_t bytes = 0;
            if (!next_request(r.link, q, framed, bytes)) break;
            if (framed && q.op_case() == v1::Request::kCancel) {
                const uint64_t target = q.cancel().target();
                core.cancel(r.s, target);
                std::lock_guard<std::mutex> lock(r.mu);
                if (target && target == r.current) r.answered = true;
                r.cv.notify_all();
                continue;
            }
            if (framed && q.op_case() == v1::Request::kAck) {
                std::lock_guard<std::mutex> lock(r.mu);
                if (r.seq && q.ack().seq() == r.seq) r.answered = true;
                r.cv.notify_all();
                continue;
            }
            std::unique_lock<std::mutex> lock(r.mu);
            r.cv.wait(lock, [&] { return !r.has_next || r.stop; });
            if (r.stop) break;
            r.next = std::move(q);
            r.next_framed = framed;
            r.next_bytes = bytes;
            r.has_next = true;
            r.cv.notify_all();
            if (!framed) break;  // the stream lost its framing: the session ends after the reply
        }
        std::lock_guard<std::mutex> lock(r.mu);
        r.ended = true;
        r.cv.notify_all();
    }

    // The session monitor's progress callback, on the session's thread
    // inside a job: a Progress frame, then its answer awaited (bounded; the
    // stream's end, the client going away, shutdown and a cancellation also
    // end the wait). A Cancel has cancelled the job by then, so the poll
    // that called this throws.
    static void relay_progress(void *user, const char *stage, uint64_t done, uint64_t total) {
        Relay &r = *static_cast<Relay *>(user);
        r.impl.report_progress(r, stage, done, total);
    }

    void report_progress(Relay &r, const char *stage, uint64_t done, uint64_t total) {
        if (r.s.monitor.cancelled()) return;
        v1::Reply p;
        {
            std::lock_guard<std::mutex> lock(r.mu);
            if (!r.report || r.ended) return;
            p.set_id(r.current);
            p.mutable_progress()->set_seq(++r.seq);
            r.answered = false;
        }
        v1::Progress *g = p.mutable_progress();
        g->set_stage(stage ? stage : "");
        g->set_done(done);
        g->set_total(total);
        if (!write_reply(r.link, p)) {
            std::lock_guard<std::mutex> lock(r.mu);
            r.report = false;
            return;
        }
        const auto end = Clock::now() + std::chrono::milliseconds(kProgressAnswerMs);
        std::unique_lock<std::mutex> lock(r.mu);
        while (!r.answered && !r.ended) {
            if (r.link.cancelled() || core.stopping() || r.s.monitor.cancelled()) return;
            if (Clock::now() >= end) {
                r.report = false;  // no more reports for this request
                log_line("progress_unanswered", "session=" + std::to_string(r.s.id) + " request=" +
                                                    std::to_string(r.current) + " ms=" +
                                                    std::to_string(kProgressAnswerMs));
                return;
            }
            r.cv.wait_for(lock, std::chrono::milliseconds(50));
        }
    }

    // One request handled and answered; false when the session ends after it.
    bool serve_one(Link &link, SessionState &s, v1::Request &q, bool framed, size_t n) {
        v1::Reply rep;
        // Replies that may be large wait for room before they are built.
        const uint64_t bound = framed ? reply_bound(q) + 4096 : 0;
        if (bound && !replies.acquire(bound, [&] { return link.cancelled() || core.stopping(); })) return false;
        if (framed) core.handle(s, q, rep, [&link] { return link.cancelled(); });
        else Core::malformed(n, rep, link.why_broken());
        done_with(link, q);
        return write_reply(link, rep, bound) && framed;
    }

    // The requests of a relay session, until its stream ends.
    void serve_relay(Link &link, SessionState &s) {
        Relay r(*this, link, s);
        s.monitor.set_progress(&Impl::relay_progress, &r);
        std::thread reader([this, &r] { read_relay(r); });
        bool broken = false;  // a reply could not be written
        while (!core.stopping()) {
            v1::Request q;
            bool framed = false;
            size_t n = 0;
            {
                std::unique_lock<std::mutex> lock(r.mu);
                while (!r.has_next && !r.ended && !core.stopping())
                    r.cv.wait_for(lock, std::chrono::milliseconds(100));
                if (!r.has_next) break;
                q = std::move(r.next);
                framed = r.next_framed;
                n = r.next_bytes;
                r.has_next = false;
                r.current = framed ? q.id() : 0;
                r.report = framed && q.progress();
                r.cv.notify_all();
            }
            const bool go_on = serve_one(link, s, q, framed, n);
            {
                std::lock_guard<std::mutex> lock(r.mu);
                r.current = 0;
                r.report = false;
            }
            if (!go_on) {
                broken = framed;  // a malformed request ends the session after its reply
                break;
            }
        }
        // Shutdown: a request the reader took already gets its refusal, so
        // that its client does not wait for an answer this session will
        // not give (the client's next request, or its stream's end, then
        // stops the reader below).
        if (!broken && core.stopping()) {
            v1::Request pending;
            bool have = false;
            {
                std::lock_guard<std::mutex> lock(r.mu);
                if (r.has_next && r.next_framed) {
                    pending = std::move(r.next);
                    have = true;
                }
            }
            if (have) {
                v1::Reply rep;
                rep.set_id(pending.id());
                rep.set_status(GP_ERR_REMOTE);
                rep.set_message("gpuprover-server is shutting down: the session takes no more requests");
                write_reply(link, rep);
            }
        }
        bool reading;
        {
            std::lock_guard<std::mutex> lock(r.mu);
            r.stop = true;
            r.has_next = false;
            reading = !r.ended;
            r.cv.notify_all();
        }
        // A reader still waiting for a message: on a broken stream, ending
        // the call wakes it; otherwise (shutdown) it stops at the client's
        // next message or end, or when the server's grace period cancels
        // every call, as the session's thread itself would have waited
        // without the relay. (Cancelling here could lose the reply just
        // written.)
        if (reading && broken) link.cancel();
        reader.join();
        s.monitor.set_progress(nullptr, nullptr);
    }

    // A session on `link`, from its Hello to the stream's end.
    void serve_session(Link &link, const Peer &peer) {
        v1::Request q;
        bool framed = false;
        size_t n = 0;
        if (!next_request(link, q, framed, n)) return;
        v1::Reply rep;
        std::unique_ptr<SessionState> s;
        bool relay = false;
        try {
            if (!framed) fail(GP_ERR_REMOTE, "malformed first request: no gpuprover.v1.Request");
            rep.set_id(q.id());
            s = core.open(q, peer, rep, [&link] { return link.cancelled(); });
            relay = q.hello().relay();
            rep.mutable_hello()->set_relay(relay);
        } catch (const Error &e) {
            rep.set_status(e.status);
            rep.set_message(e.what());
            log_line("session_refused", "peer=" + quote(peer.text) + " reason=" + quote(e.what()));
            write_reply(link, rep);
            return;
        }
        const bool greeted = write_reply(link, rep);
        if (greeted && relay) serve_relay(link, *s);
        if (greeted && !relay) {
            while (!core.stopping()) {
                v1::Request r;
                if (!next_request(link, r, framed, n) || !serve_one(link, *s, r, framed, n)) break;
            }
        }
        core.close(std::move(s));
    }

    grpc::Status Session(grpc::ServerContext *ctx, GrpcStream *stream) {
        if (core.stopping()) return grpc::Status(grpc::StatusCode::UNAVAILABLE, "gpuprover-server is shutting down");
        GrpcLink link(ctx, stream);
        serve_session(link, peer_of_call(ctx));
        return grpc::Status::OK;
    }
};

Server::Server(Config c) : impl_(std::make_unique<Impl>(std::move(c))) {}

Server::~Server() {
    if (impl_->grpc_server) shutdown(0);
}

void Server::start() {
    Impl &m = *impl_;
    const Config &c = m.cfg();
    if (pipe2(m.wake, O_CLOEXEC) != 0) throw std::runtime_error("pipe2 failed");
    m.reserve_fd = open("/dev/null", O_RDONLY | O_CLOEXEC);
    if (!c.unix_path.empty()) {
        // One server per socket path: a second one is refused, and never
        // removes the first one's sockets.
        const std::string lock = c.unix_path + ".lock";
        m.lock_fd = open(lock.c_str(), O_RDWR | O_CREAT | O_CLOEXEC, 0600);
        if (m.lock_fd < 0) throw std::runtime_error("cannot open " + lock + ": " + errno_text());
        if (flock(m.lock_fd, LOCK_EX | LOCK_NB) != 0) {
            char pid[32] = {0};
            (void)!pread(m.lock_fd, pid, sizeof pid - 1, 0);
            close(m.lock_fd);
            m.lock_fd = -1;
            throw std::runtime_error("another gpuprover-server (pid " + std::string(pid) + ") serves " + c.unix_path);
        }
        const std::string me = std::to_string(getpid());
        (void)!ftruncate(m.lock_fd, 0);
        (void)!pwrite(m.lock_fd, me.data(), me.size(), 0);
    }
    m.core.open_devices();

    // Health checks carry no token: a server that requires one serves none
    // (gRPC clients then treat the endpoint as serving).
    grpc::EnableDefaultHealthCheckService(c.token.empty());
    grpc::ServerBuilder b;
    b.SetMaxReceiveMessageSize(c.max_message_bytes);
    b.SetMaxSendMessageSize(wire::kMaxMessageBytes);
    // As the client's channel: windows and frames sized for 8 MiB messages.
    b.AddChannelArgument(GRPC_ARG_HTTP2_STREAM_LOOKAHEAD_BYTES, 32 << 20);
    b.AddChannelArgument(GRPC_ARG_HTTP2_MAX_FRAME_SIZE, (16 << 20) - 1);
    b.AddChannelArgument(GRPC_ARG_HTTP2_BDP_PROBE, 0);
    // Bounded threads (one per open stream) and streams per connection;
    // connections without a call are closed after a minute.
    const ResourceLimits &l = c.limits;
    grpc::ResourceQuota rq("gpuprover-server");
    rq.SetMaxThreads((int)l.max_sessions + 32);
    b.SetResourceQuota(rq);
    b.AddChannelArgument(GRPC_ARG_MAX_CONCURRENT_STREAMS, 64);
    b.AddChannelArgument(GRPC_ARG_MAX_CONNECTION_IDLE_MS, 60000);
    b.RegisterService(&m);
    m.grpc_server = b.BuildAndStart();
    if (!m.grpc_server) throw std::runtime_error("cannot start the gRPC server");
    if (!c.unix_path.empty()) {
        m.unix_listen = listen_unix(c.unix_path);
        m.fd_listen = listen_unix(fd_socket_path(c.unix_path));
    }
    if (!c.tcp.empty()) m.tcp_listen = listen_tcp(c.tcp, &m.tcp_port);
    int metrics_port = 0;
    if (!c.metrics.empty()) m.metrics_listen = listen_tcp(c.metrics, &metrics_port);
    m.threads.emplace_back([&m] { m.grpc_accept_loop(); });
    m.threads.emplace_back([&m] { m.watchdog_loop(); });
    if (m.fd_listen >= 0) m.threads.emplace_back([&m] { m.side_loop(); });
    if (m.metrics_listen >= 0) m.threads.emplace_back([&m] { m.metrics_loop(); });
    log_line("start", "unix=" + quote(c.unix_path) + " tcp=" + quote(c.tcp) + " tcp_port=" +
                          std::to_string(m.tcp_port) + " gpus=" + quote(m.core.device_names(true)) +
                          " devices=" + quote(m.core.device_names()) +
                          " placement=\"least load: sessions+running+queued jobs, then bytes held, then index\"" +
                          " jobs_per_gpu=" +
                          std::to_string(c.jobs_per_gpu) + " cpu_jobs=" + std::to_string(c.cpu_jobs) +
                          " metrics=" + quote(c.metrics) + " metrics_port=" + std::to_string(metrics_port) +
                          " max_sessions=" + std::to_string(l.max_sessions));
}

void Server::wait() {
    std::unique_lock<std::mutex> lock(impl_->done_mu);
    impl_->done_cv.wait(lock, [&] { return impl_->done; });
}

void Server::shutdown(int grace_ms) {
    Impl &m = *impl_;
    if (m.stopped.exchange(true)) return;
    const auto cut = std::chrono::steady_clock::now() + std::chrono::milliseconds(grace_ms + 1000);
    m.core.set_stopping();
    log_line("shutdown", "grace_ms=" + std::to_string(grace_ms));
    // No new connections; running jobs may finish within the grace period,
    // then are cancelled at their next batch boundary and every stream closes.
    if (m.wake[1] >= 0) {
        const char ch = 1;
        (void)!write(m.wake[1], &ch, 1);
    }
    std::thread canceller([&m, grace_ms] {
        const auto end = Clock::now() + std::chrono::milliseconds(grace_ms);
        while (Clock::now() < end) {
            if (m.core.idle()) return;
            std::this_thread::sleep_for(std::chrono::milliseconds(20));
        }
        m.core.cancel_all();
    });
    m.core.close_queues();
    if (m.grpc_server)
        m.grpc_server->Shutdown(std::chrono::system_clock::now() + std::chrono::milliseconds(grace_ms + 1000));
    canceller.join();
    for (auto &t : m.threads)
        if (t.joinable()) t.join();
    {
        // Direct sessions end with their clients' streams, as gRPC's calls
        // do, or are cut once gRPC's deadline has passed too.
        std::unique_lock<std::mutex> lock(m.threads_mu);
        m.threads_cv.wait_until(lock, cut, [&m] { return m.conn_threads == 0; });
        for (int fd : m.direct_fds) ::shutdown(fd, SHUT_RDWR);
        m.threads_cv.wait(lock, [&m] { return m.conn_threads == 0; });
    }
    if (m.grpc_server) m.grpc_server->Wait();
    const Config &c = m.cfg();
    if (!c.unix_path.empty() && m.lock_fd >= 0) {  // ours: this server holds the lock
        unlink(c.unix_path.c_str());
        unlink(fd_socket_path(c.unix_path).c_str());
    }
    log_line("stopped", "sessions_opened=" + std::to_string(m.core.opened()) +
                            " sessions_closed=" + std::to_string(m.core.closed()));
    {
        std::lock_guard<std::mutex> lock(m.done_mu);
        m.done = true;
    }
    m.done_cv.notify_all();
}

std::string Server::prometheus() const { return impl_->core.prometheus(); }

int print_status(const std::string &endpoint, const std::string &token) {
    const std::vector<Endpoint> eps = parse_endpoints(endpoint);
    auto ch = grpc::CreateChannel(eps[0].target, grpc::InsecureChannelCredentials());
    auto stub = v1::Prover::NewStub(ch);
    grpc::ClientContext ctx;
    ctx.set_deadline(std::chrono::system_clock::now() + std::chrono::seconds(5));
    if (!token.empty()) ctx.AddMetadata(kTokenHeader, token);
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
        std::printf("device %s: %u concurrent jobs, %u sessions, %.1f MiB held of %.1f MiB, load %llu\n",
                    d.name().c_str(), d.max_concurrent(), d.sessions(), (double)d.memory_in_use() / 1048576.0,
                    (double)d.memory_total() / 1048576.0, (unsigned long long)device_load(d));
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
