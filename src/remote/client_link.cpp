// SPDX-License-Identifier: MIT OR Apache-2.0
#include "remote/client_link.h"

#include <fcntl.h>
#include <netdb.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <poll.h>
#include <sys/socket.h>
#include <sys/un.h>
#include <unistd.h>

#include <atomic>
#include <cerrno>
#include <chrono>
#include <cstdlib>
#include <cstring>
#include <vector>

#include "core/checks.h"
#include "remote/frame.h"
#include "remote/wire.h"

namespace gp {

namespace {

std::atomic<uint32_t> g_next_address{0};
constexpr int kCloseWaitMs = 5000;

using Clock = std::chrono::steady_clock;

// Waits for `events` on fd until `end`: > 0 when they came, 0 at the
// deadline, < 0 on an error (EINTR retried).
int poll_until(int fd, short events, Clock::time_point end) {
    for (;;) {
        const auto left = std::chrono::duration_cast<std::chrono::milliseconds>(end - Clock::now());
        if (left.count() <= 0) return 0;
        pollfd p{fd, events, 0};
        const int r = poll(&p, 1, (int)left.count());
        if (r >= 0 || errno != EINTR) return r;
    }
}

class DirectClientLink final : public ClientLink {
public:
    explicit DirectClientLink(int fd) : fd_(fd) {}
    ~DirectClientLink() override { close(); }

    bool write(v1::Request &q, const void *payload, uint64_t n) override {
        std::string m;
        return q.SerializeToString(&m) && frame::write_frame(fd_, m, payload, n);
    }

    bool read(v1::Reply &r, void *sink, uint64_t sink_bytes, bool *sunk) override {
        if (sunk) *sunk = false;
        uint32_t mb = 0;
        uint64_t pb = 0;
        const frame::Read h = frame::read_header(fd_, (uint32_t)wire::kMaxMessageBytes, wire::kMaxMessageBytes, mb, pb);
        if (h != frame::Read::ok) {
            why_ = h == frame::Read::end    ? "the server closed the connection"
                   : h == frame::Read::lost ? std::string("reading failed: ") + std::strerror(errno)
                                            : "the server sent a malformed frame";
            return false;
        }
        std::string m;
        if (!frame::read_string(fd_, m, mb)) return lost();
        if (!r.ParseFromString(m)) {
            why_ = "the server sent a malformed reply";
            return false;
        }
        if (pb && sink && pb == sink_bytes) {
            if (!frame::read_all(fd_, sink, pb)) return lost();
            if (sunk) *sunk = true;
        } else if (pb && !frame::read_string(fd_, *r.mutable_data(), pb)) {
            return lost();
        }
        return true;
    }

    void cancel() override {
        if (fd_ >= 0) shutdown(fd_, SHUT_RDWR);
    }

    std::string finish() override { return why_; }

    // The stream's end, then the server's: the session is closed there
    // (its memory released) by the time this returns, as gRPC's Finish
    // waits for the call's end. Bounded: a server that does not close
    // within kCloseWaitMs is left to notice the closed socket itself.
    void close() override {
        if (fd_ < 0) return;
        if (shutdown(fd_, SHUT_WR) == 0) {
            const auto end = Clock::now() + std::chrono::milliseconds(kCloseWaitMs);
            char sink[4096];
            while (poll_until(fd_, POLLIN, end) > 0) {
                const ssize_t n = recv(fd_, sink, sizeof sink, 0);  // replies no one waits for
                if (n == 0 || (n < 0 && errno != EINTR)) break;
            }
        }
        ::close(fd_);
        fd_ = -1;
    }

private:
    bool lost() {
        why_ = "the connection ended inside a reply";
        return false;
    }

    int fd_;
    std::string why_;
};

// Connects `s` to `a` within the time left until `end`; s is blocking again
// on success.
bool connect_by(int s, const sockaddr *a, socklen_t n, Clock::time_point end) {
    fcntl(s, F_SETFL, fcntl(s, F_GETFL) | O_NONBLOCK);
    if (connect(s, a, n) != 0) {
        if (errno != EINPROGRESS || poll_until(s, POLLOUT, end) <= 0) return false;
        int err = 0;
        socklen_t len = sizeof err;
        if (getsockopt(s, SOL_SOCKET, SO_ERROR, &err, &len) != 0 || err != 0) return false;
    }
    fcntl(s, F_SETFL, fcntl(s, F_GETFL) & ~O_NONBLOCK);
    return true;
}

}  // namespace

bool transport_is_grpc() {
    const char *t = std::getenv("GPUPROVER_TRANSPORT");
    if (!t || !*t || std::strcmp(t, "direct") == 0) return false;
    if (std::strcmp(t, "grpc") == 0) return true;
    fail(GP_ERR_INVALID_ARGUMENT, "GPUPROVER_TRANSPORT=\"", t, "\": not \"direct\" or \"grpc\"");
}

std::unique_ptr<ClientLink> connect_direct(const Endpoint &e, int timeout_ms) {
    const auto end = Clock::now() + std::chrono::milliseconds(timeout_ms);
    int fd = -1;
    if (e.is_unix) {
        sockaddr_un a{};
        a.sun_family = AF_UNIX;
        if (e.path.size() >= sizeof a.sun_path) fail(GP_ERR_REMOTE, "socket path too long: ", e.path);
        std::memcpy(a.sun_path, e.path.c_str(), e.path.size() + 1);
        fd = socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0);
        if (fd >= 0 && connect(fd, reinterpret_cast<sockaddr *>(&a), sizeof a) != 0) {
            ::close(fd);
            fd = -1;
        }
    } else {
        addrinfo hints{}, *res = nullptr;
        hints.ai_socktype = SOCK_STREAM;
        hints.ai_flags = AI_NUMERICSERV;
        if (getaddrinfo(e.host.c_str(), e.port.c_str(), &hints, &res) != 0 || !res)
            fail(GP_ERR_REMOTE, "cannot resolve ", e.text);
        // Every address of the name, from a rotating start, so that the
        // sessions of a name with several addresses spread over them.
        std::vector<addrinfo *> all;
        for (addrinfo *a = res; a; a = a->ai_next) all.push_back(a);
        const size_t start = g_next_address.fetch_add(1) % all.size();
        for (size_t i = 0; i < all.size() && fd < 0; ++i) {
            const addrinfo *a = all[(start + i) % all.size()];
            fd = socket(a->ai_family, SOCK_STREAM | SOCK_CLOEXEC, 0);
            if (fd >= 0 && !connect_by(fd, a->ai_addr, a->ai_addrlen, end)) {
                ::close(fd);
                fd = -1;
            }
        }
        freeaddrinfo(res);
        if (fd >= 0) {
            int one = 1;
            setsockopt(fd, IPPROTO_TCP, TCP_NODELAY, &one, sizeof one);
        }
    }
    if (fd < 0) fail(GP_ERR_REMOTE, "no gpuprover-server answered at ", e.text, " within ", timeout_ms, " ms");
    if (!frame::write_all(fd, frame::kPreface, sizeof frame::kPreface)) {
        ::close(fd);
        fail(GP_ERR_REMOTE, "the connection to gpuprover-server at ", e.text, " was lost");
    }
    return std::make_unique<DirectClientLink>(fd);
}

}  // namespace gp
