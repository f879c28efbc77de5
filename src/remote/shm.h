// SPDX-License-Identifier: MIT OR Apache-2.0
// Shared memory between a client and gpuprover-server on one host: a memfd
// mapped by both, its descriptor passed over a unix socket (SCM_RIGHTS).
#pragma once

#include <cstdint>
#include <string>

namespace gp {

class ShmRegion {
public:
    ShmRegion() = default;
    ShmRegion(const ShmRegion &) = delete;
    ShmRegion &operator=(const ShmRegion &) = delete;
    ~ShmRegion();
    // A new memfd of `bytes` bytes, mapped (throws GP_ERR_HOST_OUT_OF_MEMORY).
    void create(uint64_t bytes);
    // Maps a descriptor (taking it over); checks its size and, for one a
    // client passed, that it is a memfd sealed at its size (kShmSeals).
    void map(int fd, uint64_t bytes, bool require_seals = true);
    void reset();
    int fd() const { return fd_; }
    char *data() const { return static_cast<char *>(ptr_); }
    uint64_t size() const { return bytes_; }

private:
    int fd_ = -1;
    void *ptr_ = nullptr;
    uint64_t bytes_ = 0;
};

// The side socket of a unix endpoint that descriptors travel over.
inline std::string fd_socket_path(const std::string &path) { return path + ".fd"; }

// The seals a shared memfd carries: it can neither shrink nor grow.
constexpr int kShmSeals = 0x0002 | 0x0004;  // F_SEAL_SHRINK | F_SEAL_GROW

// Sends `fd` to the server's side socket with the session's `nonce` and a
// `ticket` that the AttachShm or AttachRegion naming it carries: the
// server hands the descriptor to that request of that session alone
// (throws GP_ERR_REMOTE).
void send_fd(const std::string &socket_path, const std::string &nonce, uint64_t ticket, int fd);

// Receives one message without waiting: up to `max_nonce` bytes and a
// descriptor (-1 if none). Returns false on a malformed message.
bool recv_fd(int conn, std::string &nonce, int &fd, size_t max_nonce);

// memcpy with several threads for large copies.
void parallel_copy(void *dst, const void *src, uint64_t bytes);

}  // namespace gp
