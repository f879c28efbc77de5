// SPDX-License-Identifier: MIT OR Apache-2.0
// Host memory and the allocation fault hook (see host_alloc.h).
#include "core/host_alloc.h"

#include <atomic>
#include <cstdlib>
#include <cstring>

#include <mimalloc.h>

#include "core/core.h"

namespace gp {
namespace {
// Per kind: allocations left before the one that fails (0: the hook is off).
std::atomic<uint64_t> g_fault_countdown[2];
}  // namespace

bool alloc_fault(AllocKind kind) {
    std::atomic<uint64_t> &c = g_fault_countdown[(int)kind];
    uint64_t v = c.load(std::memory_order_relaxed);
    while (v != 0)
        if (c.compare_exchange_weak(v, v - 1, std::memory_order_relaxed)) return v == 1;
    return false;
}

// ThreadSanitizer cannot see the synchronization inside (uninstrumented)
// mimalloc, and reports memory one thread freed and another reused as a
// race: its builds use the C library's allocator, which it intercepts.
#if defined(__SANITIZE_THREAD__)
void *host_alloc(uint64_t bytes, const char *what, bool zero, AllocKind kind) {
    void *p = nullptr;
    if (!alloc_fault(kind) && posix_memalign(&p, 64, bytes ? bytes : 1) != 0) p = nullptr;
    if (!p) fail(GP_ERR_HOST_OUT_OF_MEMORY, "cannot allocate ", bytes, " bytes of host memory (", what, ")");
    if (zero) std::memset(p, 0, bytes);
    return p;
}

void host_free(void *p) { std::free(p); }
#else
void *host_alloc(uint64_t bytes, const char *what, bool zero, AllocKind kind) {
    void *p = nullptr;
    if (!alloc_fault(kind))
        p = zero ? mi_zalloc_aligned(bytes ? bytes : 1, 64) : mi_malloc_aligned(bytes ? bytes : 1, 64);
    if (!p) fail(GP_ERR_HOST_OUT_OF_MEMORY, "cannot allocate ", bytes, " bytes of host memory (", what, ")");
    return p;
}

void host_free(void *p) { mi_free(p); }
#endif

}  // namespace gp

// Test-only, not in the public header: the k-th allocation of `kind` (0
// host, 1 device; the CPU backend's buffers count as device memory) from now
// on fails; k = 0 turns the hook off. Returns the allocations that were
// still to come before the previous setting's failure (0: it fired, or the
// hook was off).
extern "C" GP_API uint64_t gp_testing_fail_allocation(int kind, uint64_t k) {
    if (kind != 0 && kind != 1) return 0;
    return gp::g_fault_countdown[kind].exchange(k, std::memory_order_relaxed);
}
