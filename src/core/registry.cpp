// SPDX-License-Identifier: MIT OR Apache-2.0
// The live handles of the process (see registry.h).
#include "core/registry.h"

#include <unordered_map>

#include "core/checks.h"
#include "core/core.h"

namespace gp {
namespace {

struct Entry {
    HandleKind kind;
    Context *ctx;
};

std::mutex &mu() {
    static std::mutex m;
    return m;
}
std::unordered_map<const void *, Entry> &live() {
    static auto *m = new std::unordered_map<const void *, Entry>();  // outlives static destructors
    return *m;
}

}  // namespace

const char *handle_kind_name(HandleKind k) {
    switch (k) {
        case HandleKind::Context: return "gp_context";
        case HandleKind::Buffer: return "gp_buffer";
        case HandleKind::Tree: return "gp_merkle_tree";
        case HandleKind::Fri: return "gp_fri";
        case HandleKind::Program: return "gp_constraint_program";
    }
    return "handle";
}

std::unique_lock<std::mutex> registry_lock() { return std::unique_lock<std::mutex>(mu()); }

bool is_live_locked(const void *h, HandleKind k) {
    auto it = live().find(h);
    return it != live().end() && it->second.kind == k;
}

void register_handle(const void *h, HandleKind k, Context *ctx) {
    std::lock_guard<std::mutex> g(mu());
    live()[h] = Entry{k, ctx};
}

void unregister_handle(const void *h) {
    std::lock_guard<std::mutex> g(mu());
    live().erase(h);
}

bool take_handle(const void *h, HandleKind k) {
    std::lock_guard<std::mutex> g(mu());
    if (!is_live_locked(h, k)) return false;
    live().erase(h);
    return true;
}

bool is_live(const void *h, HandleKind k) {
    std::lock_guard<std::mutex> g(mu());
    return is_live_locked(h, k);
}

void ContextCall::refuse_if_nested(const char *what) const {
    if (!outermost_)
        fail(GP_ERR_INVALID_ARGUMENT, what, " called from inside a call on the same context (a callback): nothing was "
                                            "destroyed; destroy it once the call returns");
}

ContextCall::ContextCall(const void *h, HandleKind k, const char *arg) {
    require_ptr(h != nullptr, arg);
    auto dead = [&] {
        fail(GP_ERR_INVALID_ARGUMENT, "`", arg, "` is not a live ", handle_kind_name(k),
             " (it was destroyed, its context was destroyed, or it never was one)");
    };
    bool reentrant = false;
    {
        std::lock_guard<std::mutex> g(mu());
        auto it = live().find(h);
        if (it == live().end() || it->second.kind != k) dead();
        ctx_ = it->second.ctx;
        mu_ = ctx_->call_mutex;  // kept alive by this copy even if the context goes
        reentrant = in_progress_callback(ctx_->monitor.get());
    }
    if (reentrant) {
        ctx_ = nullptr;
        fail(GP_ERR_INVALID_ARGUMENT, "called from inside the progress callback of ",
             k == HandleKind::Context ? "this context" : std::string("the context of `") + arg + "`",
             " (a progress callback may call gp_context_cancel on its context, nothing else); the call in "
             "progress goes on");
    }
    lock_ = std::unique_lock<std::recursive_mutex>(*mu_);
    // Destroyed while this call waited for the lock?
    {
        std::lock_guard<std::mutex> g(mu());
        auto it = live().find(h);
        if (it == live().end() || it->second.kind != k || it->second.ctx != ctx_) dead();
    }
    monitor_ = ctx_->monitor;
    if (monitor_->depth++ == 0) {
        try {
            ctx_->backend->begin_call();
        } catch (...) {
            --monitor_->depth;
            throw;
        }
        monitor_->begin();
        outermost_ = true;
        current_call().monitor = monitor_;
    }
}

ContextCall::~ContextCall() {
    if (!ctx_) return;
    if (outermost_) {
        current_call().device_ns += ctx_->backend->end_call();
        monitor_->end();
    }
    --monitor_->depth;
}

void ContextCall::detach() {
    if (outermost_) monitor_->end();
    --monitor_->depth;
    ctx_ = nullptr;
}

}  // namespace gp
