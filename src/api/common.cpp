// SPDX-License-Identifier: MIT OR Apache-2.0
// What every C shim shares (see common.h).
#include "api/common.h"

#include <chrono>

#include "core/trace.h"

namespace gp {
namespace {
thread_local std::string t_last_error;
}  // namespace

const char *last_error() { return t_last_error.c_str(); }

gp_status set_error(gp_status s, const std::string &msg) {
    t_last_error = msg;
    return s;
}

void clear_error() { t_last_error.clear(); }

namespace {
uint64_t now_ns() {
    return (uint64_t)std::chrono::duration_cast<std::chrono::nanoseconds>(
               std::chrono::steady_clock::now().time_since_epoch())
        .count();
}
}  // namespace

CallScope::CallScope(const char *fname) : fname_(fname), t0_(now_ns()), saved_(std::move(current_call())) {
    current_call() = CallRecord{};
    trace_push(fname);
}

CallScope::~CallScope() {
    trace_pop();
    current_call() = std::move(saved_);
}

gp_status CallScope::finish(gp_status st) {
    CallRecord &r = current_call();
    if (r.monitor) {
        // The log callback may call the library (on another context): the
        // call's own message is what gp_last_error() returns afterwards.
        const std::string message = t_last_error;
        try {
            r.monitor->record(fname_, st, now_ns() - t0_, r.device_ns, message.c_str());
        } catch (...) {  // accounting never changes a call's outcome
        }
        t_last_error = message;
    }
    return st;
}

void check_struct_size(uint32_t got, const char *what) {
    if (got < sizeof(uint32_t) || got > 4096)
        fail(GP_ERR_INVALID_ARGUMENT, what, "->struct_size is ", got,
             " (call the matching *_options_init first)");
}

void check_buffer(const gp_context *ctx, const gp_buffer *b, const char *arg) {
    if (!is_live(b, HandleKind::Buffer))
        fail(GP_ERR_INVALID_ARGUMENT, "buffer `", arg, "` is not a live gp_buffer (it was destroyed, its context was",
             " destroyed, or it never was one)");
    if (!ctx_of(ctx)->buffers.count(const_cast<Buffer *>(buf_of(b))))
        fail(GP_ERR_CONTEXT_MISMATCH, "buffer `", arg, "` does not belong to this context");
}

std::vector<const Buffer *> checked_matrices(gp_context *ctx, const gp_buffer *const *matrices, uint32_t count,
                                             const char *arg) {
    require_ptr(matrices != nullptr, arg);
    if (count == 0) fail(GP_ERR_INVALID_ARGUMENT, "count = 0 (`", arg, "` must hold at least one buffer)");
    std::vector<const Buffer *> mats;
    for (uint32_t i = 0; i < count; ++i) {
        std::string name = std::string(arg) + "[" + std::to_string(i) + "]";
        require_ptr(matrices[i] != nullptr, name.c_str());
        check_buffer(ctx, matrices[i], name.c_str());
        const Buffer *b = buf_of(matrices[i]);
        if (!mats.empty() && b->field != mats[0]->field)
            fail(GP_ERR_FIELD_MISMATCH, name, " is over ", b->field->name, " but ", arg, "[0] is over ",
                 mats[0]->field->name);
        mats.push_back(b);
    }
    return mats;
}

}  // namespace gp

GP_EXPORT const char *gp_last_error(void) { return gp::last_error(); }
