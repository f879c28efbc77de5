// SPDX-License-Identifier: MIT OR Apache-2.0
#include "remote/shm.h"

#include <fcntl.h>
#include <sys/mman.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/un.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstring>
#include <thread>
#include <vector>

#include "core/core.h"

namespace gp {

ShmRegion::~ShmRegion() { reset(); }

void ShmRegion::reset() {
    if (ptr_) munmap(ptr_, bytes_);
    if (fd_ >= 0) close(fd_);
    ptr_ = nullptr;
    fd_ = -1;
    bytes_ = 0;
}

void ShmRegion::create(uint64_t bytes) {
    reset();
    int fd = memfd_create("gpuprover-window", MFD_CLOEXEC | MFD_ALLOW_SEALING);
    if (fd < 0) fail(GP_ERR_HOST_OUT_OF_MEMORY, "memfd_create: ", std::strerror(errno));
    // Sealed at its size: the server maps it and may rely on every page
    // staying there (a shrunk file would fault the server's accesses).
    if (ftruncate(fd, (off_t)bytes) != 0 || fcntl(fd, F_ADD_SEALS, kShmSeals | F_SEAL_SEAL) != 0) {
        const int e = errno;
        close(fd);
        fail(GP_ERR_HOST_OUT_OF_MEMORY, "cannot size and seal shared memory of ", bytes, " bytes: ",
             std::strerror(e));
    }
    map(fd, bytes, false);
}

void ShmRegion::map(int fd, uint64_t bytes, bool require_seals) {
    reset();
    if (require_seals) {
        // Only a memfd sealed against shrinking and growing: a regular file,
        // a pipe or an unsealed memfd could lose pages under the mapping.
        const int seals = fcntl(fd, F_GET_SEALS);
        if (seals < 0 || (seals & kShmSeals) != kShmSeals) {
            close(fd);
            fail(GP_ERR_INVALID_ARGUMENT, "the shared memory passed is not a memfd sealed with F_SEAL_SHRINK and "
                                          "F_SEAL_GROW");
        }
    }
    struct stat st;
    if (fstat(fd, &st) != 0 || !S_ISREG(st.st_mode) || (uint64_t)st.st_size < bytes) {
        close(fd);
        fail(GP_ERR_INVALID_ARGUMENT, "the shared memory passed holds fewer than ", bytes, " bytes");
    }
    void *p = mmap(nullptr, bytes, PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0);
    if (p == MAP_FAILED) {
        const int e = errno;
        close(fd);
        fail(GP_ERR_HOST_OUT_OF_MEMORY, "cannot map ", bytes, " bytes of shared memory: ", std::strerror(e));
    }
    fd_ = fd;
    ptr_ = p;
    bytes_ = bytes;
}

void send_fd(const std::string &socket_path, const std::string &nonce, uint64_t ticket, int fd) {
    sockaddr_un addr{};
    addr.sun_family = AF_UNIX;
    if (socket_path.size() >= sizeof(addr.sun_path))
        fail(GP_ERR_REMOTE, "socket path ", socket_path, " is too long");
    std::memcpy(addr.sun_path, socket_path.c_str(), socket_path.size() + 1);
    const int s = socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0);
    if (s < 0) fail(GP_ERR_REMOTE, "socket: ", std::strerror(errno));
    if (connect(s, reinterpret_cast<sockaddr *>(&addr), sizeof(addr)) != 0) {
        const int e = errno;
        close(s);
        fail(GP_ERR_REMOTE, "cannot reach the shared-memory socket ", socket_path, ": ", std::strerror(e));
    }
    std::string msg = nonce;
    for (int i = 0; i < 8; ++i) msg += (char)(ticket >> (8 * i));
    iovec iov{const_cast<char *>(msg.data()), msg.size()};
    alignas(cmsghdr) char ctl[CMSG_SPACE(sizeof(int))] = {};
    msghdr m{};
    m.msg_iov = &iov;
    m.msg_iovlen = 1;
    m.msg_control = ctl;
    m.msg_controllen = sizeof(ctl);
    cmsghdr *c = CMSG_FIRSTHDR(&m);
    c->cmsg_level = SOL_SOCKET;
    c->cmsg_type = SCM_RIGHTS;
    c->cmsg_len = CMSG_LEN(sizeof(int));
    std::memcpy(CMSG_DATA(c), &fd, sizeof(int));
    const ssize_t n = sendmsg(s, &m, MSG_NOSIGNAL);
    const int e = errno;
    close(s);
    if (n != (ssize_t)msg.size()) fail(GP_ERR_REMOTE, "cannot pass shared memory to the server: ", std::strerror(e));
}

bool recv_fd(int conn, std::string &nonce, int &fd, size_t max_nonce) {
    fd = -1;
    std::vector<char> buf(max_nonce + 1);
    iovec iov{buf.data(), buf.size()};
    alignas(cmsghdr) char ctl[CMSG_SPACE(sizeof(int) * 4)] = {};
    msghdr m{};
    m.msg_iov = &iov;
    m.msg_iovlen = 1;
    m.msg_control = ctl;
    m.msg_controllen = sizeof(ctl);
    const ssize_t n = recvmsg(conn, &m, MSG_CMSG_CLOEXEC | MSG_DONTWAIT);
    // Every descriptor that came is ours to close unless it is the one.
    for (cmsghdr *c = CMSG_FIRSTHDR(&m); c; c = CMSG_NXTHDR(&m, c)) {
        if (c->cmsg_level != SOL_SOCKET || c->cmsg_type != SCM_RIGHTS) continue;
        const size_t k = (c->cmsg_len - CMSG_LEN(0)) / sizeof(int);
        for (size_t i = 0; i < k; ++i) {
            int f;
            std::memcpy(&f, CMSG_DATA(c) + i * sizeof(int), sizeof(int));
            if (fd < 0) fd = f;
            else close(f);
        }
    }
    if (n <= 0 || (size_t)n > max_nonce || (m.msg_flags & (MSG_CTRUNC | MSG_TRUNC)) || fd < 0) {
        if (fd >= 0) close(fd);
        fd = -1;
        return false;
    }
    nonce.assign(buf.data(), (size_t)n);
    return true;
}

void parallel_copy(void *dst, const void *src, uint64_t bytes) {
    constexpr uint64_t kMin = 16ull << 20;
    const unsigned hw = std::max(1u, std::thread::hardware_concurrency());
    if (bytes == 0) return;
    const uint64_t parts = std::min<uint64_t>(std::min(hw, 16u), bytes / kMin);
    if (parts <= 1) {
        std::memcpy(dst, src, bytes);
        return;
    }
    const uint64_t step = (bytes / parts + 4095) & ~4095ull;
    std::vector<std::thread> ts;
    for (uint64_t i = 1; i < parts; ++i) {
        const uint64_t b = i * step;
        if (b >= bytes) break;
        const uint64_t n = std::min(step, bytes - b);
        ts.emplace_back([=] { std::memcpy(static_cast<char *>(dst) + b, static_cast<const char *>(src) + b, n); });
    }
    std::memcpy(dst, src, std::min(step, bytes));
    for (auto &t : ts) t.join();
}

}  // namespace gp
