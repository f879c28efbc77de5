// SPDX-License-Identifier: MIT OR Apache-2.0
#include "remote/frame.h"

#include <sys/socket.h>
#include <sys/uio.h>

#include <cerrno>
#include <cstring>

namespace gp {
namespace frame {

namespace {

void put_u32(unsigned char *p, uint32_t v) {
    for (int i = 0; i < 4; ++i) p[i] = (unsigned char)(v >> (8 * i));
}

void put_u64(unsigned char *p, uint64_t v) {
    for (int i = 0; i < 8; ++i) p[i] = (unsigned char)(v >> (8 * i));
}

uint64_t get_le(const unsigned char *p, int n) {
    uint64_t v = 0;
    for (int i = n - 1; i >= 0; --i) v = (v << 8) | p[i];
    return v;
}

// sendmsg of the pieces left, retrying until all are written.
bool send_pieces(int fd, iovec *iov, int count) {
    while (count > 0) {
        msghdr m{};
        m.msg_iov = iov;
        m.msg_iovlen = (size_t)count;
        const ssize_t w = sendmsg(fd, &m, MSG_NOSIGNAL);
        if (w < 0) {
            if (errno == EINTR) continue;
            return false;
        }
        size_t left = (size_t)w;
        while (count > 0 && left >= iov->iov_len) {
            left -= iov->iov_len;
            ++iov;
            --count;
        }
        if (count > 0) {
            iov->iov_base = static_cast<char *>(iov->iov_base) + left;
            iov->iov_len -= left;
        }
    }
    return true;
}

}  // namespace

bool write_all(int fd, const void *p, size_t n) {
    iovec v{const_cast<void *>(p), n};
    return send_pieces(fd, &v, n ? 1 : 0);
}

bool read_all(int fd, void *p, size_t n) {
    char *c = static_cast<char *>(p);
    while (n > 0) {
        const ssize_t r = recv(fd, c, n, 0);
        if (r < 0 && errno == EINTR) continue;
        if (r <= 0) return false;
        c += r;
        n -= (size_t)r;
    }
    return true;
}

bool write_frame(int fd, const std::string &message, const void *payload, uint64_t n) {
    unsigned char h[kHeaderBytes];
    put_u32(h, (uint32_t)message.size());
    put_u32(h + 4, 0);
    put_u64(h + 8, n);
    iovec iov[3] = {{h, sizeof h},
                    {const_cast<char *>(message.data()), message.size()},
                    {const_cast<void *>(payload), (size_t)n}};
    return send_pieces(fd, iov, n ? 3 : 2);
}

Read read_header(int fd, uint32_t max_message, uint64_t max_payload, uint32_t &message_bytes,
                 uint64_t &payload_bytes) {
    unsigned char h[kHeaderBytes];
    // The first byte tells a clean end from a lost connection.
    ssize_t r;
    do r = recv(fd, h, 1, 0);
    while (r < 0 && errno == EINTR);
    if (r == 0) return Read::end;
    if (r < 0 || !read_all(fd, h + 1, sizeof h - 1)) return Read::lost;
    message_bytes = (uint32_t)get_le(h, 4);
    payload_bytes = get_le(h + 8, 8);
    if (get_le(h + 4, 4) != 0) return Read::malformed;
    if (message_bytes > max_message || payload_bytes > max_payload) return Read::oversize;
    return Read::ok;
}

bool read_string(int fd, std::string &out, uint64_t n) {
    out.resize(n);
    return read_all(fd, &out[0], n);
}

}  // namespace frame
}  // namespace gp
