// SPDX-License-Identifier: MIT OR Apache-2.0
// The mimalloc functions the library calls, on top of malloc, for the fuzz
// build only (see CMakeLists.txt): gp_fuzz_api links the library's objects
// without mimalloc, so every library allocation comes from ASan's allocator
// and an access past its end is reported. The declarations come from
// <mimalloc.h>, so a signature that drifts from mimalloc's does not compile.
// A mi_* function the library starts to use that is missing here is a link
// error of gp_fuzz_api: add it below.
#include <mimalloc.h>

#include <cstdlib>
#include <cstring>
#include <new>

namespace {

void *aligned(size_t size, size_t alignment) {
    if (alignment < sizeof(void *)) alignment = sizeof(void *);
    void *p = nullptr;
    // posix_memalign accepts any size (aligned_alloc would want a multiple
    // of the alignment); ASan poisons exactly [p + size, ...).
    if (posix_memalign(&p, alignment, size ? size : 1) != 0) return nullptr;
    return p;
}

void *zeroed(void *p, size_t size) {
    if (p) std::memset(p, 0, size);
    return p;
}

}  // namespace

extern "C" {

void *mi_malloc(size_t size) mi_attr_noexcept { return std::malloc(size ? size : 1); }
void *mi_zalloc(size_t size) mi_attr_noexcept { return std::calloc(1, size ? size : 1); }
void *mi_calloc(size_t count, size_t size) mi_attr_noexcept {
    return std::calloc(count ? count : 1, size ? size : 1);
}
void *mi_realloc(void *p, size_t newsize) mi_attr_noexcept { return std::realloc(p, newsize ? newsize : 1); }
void mi_free(void *p) mi_attr_noexcept { std::free(p); }
void mi_free_size(void *p, size_t) mi_attr_noexcept { std::free(p); }
void mi_free_aligned(void *p, size_t) mi_attr_noexcept { std::free(p); }
void mi_free_size_aligned(void *p, size_t, size_t) mi_attr_noexcept { std::free(p); }

void *mi_malloc_aligned(size_t size, size_t alignment) mi_attr_noexcept { return aligned(size, alignment); }
void *mi_zalloc_aligned(size_t size, size_t alignment) mi_attr_noexcept {
    return zeroed(aligned(size, alignment), size);
}
void *mi_calloc_aligned(size_t count, size_t size, size_t alignment) mi_attr_noexcept {
    size_t bytes;
    if (__builtin_mul_overflow(count, size, &bytes)) return nullptr;
    return zeroed(aligned(bytes, alignment), bytes);
}

void *mi_new(size_t size) {
    void *p = std::malloc(size ? size : 1);
    if (!p) throw std::bad_alloc();
    return p;
}
void *mi_new_nothrow(size_t size) mi_attr_noexcept { return std::malloc(size ? size : 1); }
void *mi_new_aligned(size_t size, size_t alignment) {
    void *p = aligned(size, alignment);
    if (!p) throw std::bad_alloc();
    return p;
}
void *mi_new_n(size_t count, size_t size) {
    size_t bytes;
    if (__builtin_mul_overflow(count, size, &bytes)) throw std::bad_alloc();
    return mi_new(bytes);
}

}  // extern "C"
