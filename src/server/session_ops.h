// SPDX-License-Identifier: MIT OR Apache-2.0
// The operations of one gpuprover-server session: a request of the
// protocol (proto/gpuprover.proto) checked against the session's memory
// and run on its backend.
#pragma once

#include <cstdint>
#include <map>
#include <memory>
#include <string>
#include <vector>

#include "core/core.h"
#include "remote/shm.h"
#include "remote/wire.h"

namespace gp {
namespace server {

namespace v1 = ::gpuprover::v1;

// A session's memory: allocations of its backend, each at a range of the
// session's own address space (what its client sees), and its window.
class SessionMemory {
public:
    explicit SessionMemory(Backend &b, unsigned max_regions = 256) : backend_(b), max_regions_(max_regions) {}
    ~SessionMemory();

    // Registers backend memory; returns its session address.
    uint64_t add(void *real, uint64_t bytes);
    // Frees the allocation at exactly `addr`; returns its size.
    uint64_t remove(uint64_t addr);
    // The backend address of [addr, addr + extent), which must lie in one
    // allocation (else GP_ERR_INVALID_ARGUMENT naming `what`).
    void *resolve(uint64_t addr, uint64_t extent, const char *what) const;
    // Frees everything.
    void clear();
    // Bytes of backend allocations.
    uint64_t bytes() const { return bytes_; }
    // Every allocation: session address and bytes, in address order.
    std::vector<std::pair<uint64_t, uint64_t>> allocations() const {
        std::vector<std::pair<uint64_t, uint64_t>> v;
        for (const auto &a : allocs_) v.emplace_back(a.first, a.second.bytes);
        return v;
    }
    // Bytes the server holds for the session besides its allocations (a
    // private window); counted in the quota with bytes().
    uint64_t private_bytes() const { return priv_bytes_; }
    // Descriptors the session holds (a shared window, shared regions).
    unsigned descriptors() const { return (shm_.size() ? 1u : 0u) + (unsigned)regions_.size(); }

    // The window: shared memory mapped from a client's memfd, or private.
    void attach_shared(int fd, uint64_t bytes);
    void attach_private(uint64_t bytes);
    char *window(uint64_t offset, uint64_t size, const char *what) const;
    // A range of the window or of a region, checked to hold `size` bytes
    // at an offset that is a multiple of `align`.
    char *host(const v1::HostData &d, uint64_t size, uint64_t align, const char *what) const;
    // Shared regions of the client's own memory (gp_host_alloc).
    void attach_region(uint64_t id, int fd, uint64_t bytes);
    void detach_region(uint64_t id);
    bool shared() const { return shm_.size() != 0; }

private:
    struct Alloc {
        void *real;
        uint64_t bytes;
    };
    Backend &backend_;
    unsigned max_regions_;
    std::map<uint64_t, Alloc> allocs_;
    uint64_t next_ = 1ull << 40;
    uint64_t bytes_ = 0;
    ShmRegion shm_;
    std::map<uint64_t, std::unique_ptr<ShmRegion>> regions_;
    std::unique_ptr<char[]> priv_;
    uint64_t priv_bytes_ = 0;
    void unpin();
};

// Runs one request other than Hello, AttachShm and Alloc (the session
// handles those) into `rep`; throws gp::Error. Every field of the request
// is checked (limits.h) before the backend is called.
void run_op(Backend &b, SessionMemory &mem, const v1::Request &q, v1::Reply &rep);

// Whether the request is device work that waits in the job queue.
bool is_job(const v1::Request &q);

// The most bytes of data the reply to `q` can carry (0 for the requests
// whose replies are small): the transport reserves them before the request
// runs, so that replies held for slow readers stay within one budget.
uint64_t reply_bound(const v1::Request &q);

}  // namespace server
}  // namespace gp
