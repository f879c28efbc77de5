// SPDX-License-Identifier: MIT OR Apache-2.0
// Argument checks shared by the C shims and the protocol code: enums read
// from C, field descriptions, sizes, shifts and canonical values. Each
// throws gp::Error naming the caller's argument.
#pragma once

#include <cstdint>
#include <cstring>
#include <new>
#include <stdexcept>
#include <string>

#include "core/core.h"
#include "gpuprover.h"

namespace gp {

// Reads an enum coming from C without an enum-typed load: C callers may pass
// any int, which is undefined behaviour to load as a C++ enum of smaller range.
template <class E>
int raw(const E &e) {
    static_assert(sizeof(E) == sizeof(int), "C enums are int-sized");
    int v;
    std::memcpy(&v, &e, sizeof v);
    return v;
}

// Whether `v` is a value of gp_status (GP_OK to GP_ERR_REMOTE). A status
// from the caller's code (a callback's return value) is read with raw()
// and checked with this before it is treated as a gp_status.
inline bool is_status(int v) { return v >= GP_OK && v <= GP_ERR_REMOTE; }

// The status an Error carries, read without an enum-typed load: a value
// outside gp_status (which no code path should produce) is GP_ERR_INTERNAL.
inline gp_status error_status(const Error &e) {
    const int v = raw(e.status);
    return is_status(v) ? static_cast<gp_status>(v) : GP_ERR_INTERNAL;
}

// The status and message of the exception being handled (call it inside a
// catch block): an Error's own, GP_ERR_HOST_OUT_OF_MEMORY for bad_alloc,
// GP_ERR_INTERNAL for anything else. The C entry points (api/common.h:
// guard) and the remote plugin's entry point (remote/plugin_entry.cpp)
// turn exceptions into statuses with it.
inline gp_status exception_status(std::string &message) {
    try {
        throw;
    } catch (const Error &e) {
        message = e.what();
        return error_status(e);
    } catch (const std::bad_alloc &) {
        message = "host allocation failed";
        return GP_ERR_HOST_OUT_OF_MEMORY;
    } catch (const std::exception &e) {
        message = std::string("internal error: ") + e.what();
        return GP_ERR_INTERNAL;
    } catch (...) {
        message = "unknown internal error";
        return GP_ERR_INTERNAL;
    }
}

// Throws GP_ERR_NULL_POINTER naming `arg` unless the pointer is present.
inline void require_ptr(bool present, const char *arg) {
    if (!present) fail(GP_ERR_NULL_POINTER, "argument `", arg, "` is NULL");
}
#define GP_REQUIRE_PTR(p) ::gp::require_ptr((p) != nullptr, #p)

// The first index in [begin, end) of a value >= p, or end.
uint64_t first_non_canonical(const FieldDesc &f, const void *data, uint64_t begin, uint64_t end);
// Throws GP_ERR_NON_CANONICAL for the value at index i, naming `arg`[i].
[[noreturn]] void fail_non_canonical(const FieldDesc &f, const void *data, uint64_t i, const char *arg);

// The element size of field value `v`, or 0 for an unknown field.
uint32_t field_elem_size(int v);

void check_layout(const gp_layout &l, const char *arg);
void check_order(const gp_order &o, const char *arg);
// The same checks of a raw integer (a request field), returning the enum.
gp_layout layout_from(int v, const char *arg);
gp_order order_from(int v, const char *arg);
// Throws unless v < p.
void check_shift(const FieldDesc &f, uint64_t v, const char *arg);
// log2(n) for a power of two within the field's two-adicity.
uint32_t check_log_size(const FieldDesc &f, uint64_t n, const char *arg);

// Width and element size of permutation `id`, or GP_ERR_INVALID_ARGUMENT
// naming `arg`.
struct PermShape {
    uint32_t width, elem_size;
};
GP_PLUGIN_EXPORT PermShape perm_shape(int id, const char *arg);

// A gp_permutation value as messages print it: its name ("GP_PERM_TIP5"),
// or the number when it names none.
std::string perm_label(int id);

}  // namespace gp
