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
    // Maps a received descriptor (taking it over); checks its size.
    void map(int fd, uint64_t bytes);
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

// Sends `fd` with `nonce` to the server's side socket (throws GP_ERR_REMOTE).
void send_fd(const std::string &socket_path, const std::string &nonce, int fd);

// Receives one message: up to `max_nonce` bytes and a descriptor (-1 if
// none). Returns false on a malformed message.
bool recv_fd(int conn, std::string &nonce, int &fd, size_t max_nonce);

// memcpy with several threads for large copies.
void parallel_copy(void *dst, const void *src, uint64_t bytes);

}  // namespace gp
