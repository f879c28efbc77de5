// SPDX-License-Identifier: MIT OR Apache-2.0
// Host memory for the library's own tables, temporaries and CPU buffers:
// mimalloc, with every failure turned into GP_ERR_HOST_OUT_OF_MEMORY.
// (mimalloc's C entry points return NULL; its C++ STL allocator is built as
// C in the distributions' packages and aborts the process instead of
// throwing.) Allocations here also pass the test-only fault hook
// (gp_testing_fail_allocation), which makes the k-th one fail on purpose.
#pragma once

#include <cstddef>
#include <cstdint>
#include <cstring>
#include <new>
#include <vector>

namespace gp {

enum class AllocKind : int { Host = 0, Device = 1 };

// True when the fault hook says this allocation of `kind` must fail.
bool alloc_fault(AllocKind kind);

// `bytes` (at least 1) 64-byte aligned bytes, zero-filled when `zero`;
// throws GP_ERR_HOST_OUT_OF_MEMORY naming `what`. `kind` is what the fault
// hook counts it as (the CPU backend's buffers stand for device memory).
void *host_alloc(uint64_t bytes, const char *what, bool zero = false, AllocKind kind = AllocKind::Host);
void host_free(void *p);

// std::allocator's interface over host_alloc.
template <class T>
struct HostAllocator {
    using value_type = T;
    HostAllocator() = default;
    template <class U>
    HostAllocator(const HostAllocator<U> &) {}
    T *allocate(size_t n) {
        if (n > SIZE_MAX / sizeof(T)) throw std::bad_array_new_length();
        return static_cast<T *>(host_alloc(n * sizeof(T), "host table"));
    }
    void deallocate(T *p, size_t) { host_free(p); }
    template <class U>
    bool operator==(const HostAllocator<U> &) const { return true; }
    template <class U>
    bool operator!=(const HostAllocator<U> &) const { return false; }
};

template <class T>
using hvector = std::vector<T, HostAllocator<T>>;

// `height` runs of `width` bytes between host arrays.
inline void strided_copy(const char *src, uint64_t spitch, char *dst, uint64_t dpitch, uint64_t width,
                         uint64_t height) {
    for (uint64_t k = 0; k < height; ++k) std::memcpy(dst + k * dpitch, src + k * spitch, width);
}

// Bytes [offset, offset + width) of each of `rows` rows `pitch` bytes
// apart in a row-major host array (some of its columns), packed.
inline hvector<char> pack_columns(const void *host, uint64_t rows, uint64_t pitch, uint64_t offset,
                                  uint64_t width) {
    hvector<char> packed(rows * width);
    strided_copy(static_cast<const char *>(host) + offset, pitch, packed.data(), width, width, rows);
    return packed;
}

}  // namespace gp
