// SPDX-License-Identifier: MIT OR Apache-2.0
// The live handles of the process and the lock that serializes each
// context's calls. A handle is registered when it is created and
// unregistered before its memory is released, so a destroyed or foreign
// pointer is recognised without being read.
#pragma once

#include <cstdint>
#include <memory>
#include <mutex>

namespace gp {

class Context;
class CallMonitor;

enum class HandleKind : uint8_t { Context, Buffer, Tree, Fri, Program };

// The C type name of a kind ("gp_buffer", ...).
const char *handle_kind_name(HandleKind k);

// Registers handle `h` of context `ctx` (may throw std::bad_alloc).
void register_handle(const void *h, HandleKind k, Context *ctx);
// Forgets `h`; nothing if it is not registered.
void unregister_handle(const void *h);
// Forgets `h` if it is a live handle of kind `k` and says whether it was:
// of several threads destroying one handle, one gets true.
bool take_handle(const void *h, HandleKind k);
// Whether `h` is a live handle of kind `k`.
bool is_live(const void *h, HandleKind k);

// Runs fn() while `h` is known to be live (under the registry's lock, so
// no destroy can complete meanwhile) and returns its value, or `dead` when
// `h` is not a live handle of kind `k`. For reads of a handle's fixed
// fields.
template <class R, class Fn>
R with_live(const void *h, HandleKind k, R dead, Fn &&fn);

// A call's hold on the context of a live handle: the context's lock is held
// from construction to destruction, and the handle was live once the lock
// was taken. Throws GP_ERR_NULL_POINTER for NULL and GP_ERR_INVALID_ARGUMENT
// for a handle that is not live, naming `arg`.
//
// The outermost call on a context also begins and ends the call on the
// context's monitor and backend (cancellation, device timing, the caller's
// stream) and tells the running guard() which context it entered.
class ContextCall {
public:
    ContextCall(const void *h, HandleKind k, const char *arg);
    ~ContextCall();
    ContextCall(const ContextCall &) = delete;
    ContextCall &operator=(const ContextCall &) = delete;
    Context *ctx() const { return ctx_; }
    // For gp_context_destroy: the context is about to go; end the call
    // without touching it again.
    void detach();
    // For the destroy functions: refuses (GP_ERR_INVALID_ARGUMENT) when this
    // call runs inside another call on the same context on this thread (a
    // FRI challenge callback, say), whose objects it could free under it.
    void refuse_if_nested(const char *what) const;

private:
    Context *ctx_ = nullptr;
    std::shared_ptr<CallMonitor> monitor_;
    bool outermost_ = false;
    std::shared_ptr<std::recursive_mutex> mu_;
    std::unique_lock<std::recursive_mutex> lock_;
};

// Implementation detail of with_live.
std::unique_lock<std::mutex> registry_lock();
bool is_live_locked(const void *h, HandleKind k);

template <class R, class Fn>
R with_live(const void *h, HandleKind k, R dead, Fn &&fn) {
    std::unique_lock<std::mutex> g = registry_lock();
    return is_live_locked(h, k) ? fn() : dead;
}

}  // namespace gp
