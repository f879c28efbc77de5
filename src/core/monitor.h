// SPDX-License-Identifier: MIT OR Apache-2.0
// What a context knows of the calls made on it: the call in flight (its
// cancellation and progress) and counters over all of them.
#pragma once

#include <atomic>
#include <cstdint>
#include <functional>
#include <map>
#include <memory>
#include <mutex>
#include <string>
#include <thread>

#include "core/plugin_export.h"
#include "gpuprover.h"

namespace gp {

class CallMonitor {
public:
    // The outermost call on the context begins and ends (under its call
    // lock, on the calling thread).
    void begin();
    void end();
    // From any thread: cancels the call in flight, if any, then runs the
    // cancel hook.
    void cancel();
    // At a batch or layer boundary of the call in flight, on any of its
    // threads: on the calling thread reports progress; then throws
    // GP_ERR_CANCELLED if the call was cancelled.
    GP_PLUGIN_EXPORT void poll(const char *stage, uint64_t done, uint64_t total);
    // Throws GP_ERR_CANCELLED if the call in flight was cancelled.
    GP_PLUGIN_EXPORT void check_cancelled() const;
    // Whether the call in flight was cancelled (check_cancelled, no throw).
    bool cancelled() const { return in_flight_ && cancelled_.load() == seq_.load(); }
    // Whether a progress callback is set.
    bool has_progress() const { return progress_.load() != nullptr; }
    // Runs after cancel() marked a call in flight, on the cancelling thread
    // (under gp_context_cancel's registry lock: it must neither block nor
    // call the library): the remote backend relays the cancellation to its
    // server. Null removes it; a hook that is running is waited for.
    GP_PLUGIN_EXPORT void set_cancel_hook(std::function<void()> hook);

    void set_progress(gp_progress_fn fn, void *user);
    void set_log(gp_log_fn fn, void *user);

    // Accounting of a finished call (on the calling thread, after it let go
    // of the call lock); calls the log callback.
    void record(const char *fname, gp_status st, uint64_t wall_ns, uint64_t device_ns, const char *message);
    void add_transfer(uint64_t to_device, uint64_t to_host) {
        to_device_ += to_device;
        to_host_ += to_host;
    }
    void counters(gp_counters &out);
    size_t call_stats(gp_call_stats *out, size_t capacity);
    void reset();

    uint32_t depth = 0;  // nesting of calls on the thread holding the call lock

private:
    std::atomic<uint64_t> seq_{0}, cancelled_{0};
    std::atomic<bool> in_flight_{false};
    std::thread::id caller_;
    std::atomic<gp_progress_fn> progress_{nullptr};
    std::atomic<void *> progress_user_{nullptr};
    std::atomic<uint64_t> to_device_{0}, to_host_{0};
    std::mutex hook_mu_;
    std::function<void()> cancel_hook_;
    std::mutex mu_;  // the fields below
    gp_log_fn log_ = nullptr;
    void *log_user_ = nullptr;
    uint64_t calls_ = 0, failed_ = 0, call_ns_ = 0, device_ns_ = 0;
    // Keyed by the entry point's name, a string literal: no allocation per
    // call; sorted by name when read.
    std::map<const char *, gp_call_stats> per_call_;
};

// Whether this thread is running the progress callback of the context
// whose monitor is `m` (compared by address, never read): that callback may
// call gp_context_cancel on its context and nothing else, so ContextCall
// refuses every other call on the context from there (a call would deadlock
// in the thread pool the outer call is inside, or free what it is using).
bool in_progress_callback(const CallMonitor *m);

// The call of this thread that guard() runs: what ContextCall tells it.
struct CallRecord {
    std::shared_ptr<CallMonitor> monitor;  // set once a context is entered
    uint64_t device_ns = 0;
};
CallRecord &current_call();

}  // namespace gp
