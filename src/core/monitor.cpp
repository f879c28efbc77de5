// SPDX-License-Identifier: MIT OR Apache-2.0
// Cancellation, progress and counters of a context's calls (see monitor.h).
#include "core/monitor.h"

#include <algorithm>
#include <cstdio>
#include <cstring>
#include <vector>

#include "core/core.h"

namespace gp {

void CallMonitor::begin() {
    caller_ = std::this_thread::get_id();
    seq_.fetch_add(1);
    in_flight_ = true;
}

void CallMonitor::end() { in_flight_ = false; }

void CallMonitor::cancel() {
    if (!in_flight_) return;
    cancelled_ = seq_.load();
    std::lock_guard<std::mutex> g(hook_mu_);
    if (cancel_hook_) cancel_hook_();
}

void CallMonitor::set_cancel_hook(std::function<void()> hook) {
    std::function<void()> old;
    std::lock_guard<std::mutex> g(hook_mu_);
    old.swap(cancel_hook_);
    cancel_hook_ = std::move(hook);
}

void CallMonitor::check_cancelled() const {
    if (in_flight_ && cancelled_.load() == seq_.load())
        fail(GP_ERR_CANCELLED, "cancelled by gp_context_cancel");
}

namespace {

// The progress callbacks running on this thread, innermost first (a
// callback may call the library on another context, whose callback then
// runs inside it).
struct ProgressFrame {
    const CallMonitor *monitor;
    const ProgressFrame *outer;
};
thread_local const ProgressFrame *t_progress = nullptr;

}  // namespace

bool in_progress_callback(const CallMonitor *m) {
    for (const ProgressFrame *f = t_progress; f; f = f->outer)
        if (f->monitor == m) return true;
    return false;
}

void CallMonitor::poll(const char *stage, uint64_t done, uint64_t total) {
    gp_progress_fn fn = progress_.load();
    if (fn && std::this_thread::get_id() == caller_) {
        const ProgressFrame frame{this, t_progress};
        struct Pop {
            const ProgressFrame *outer;
            ~Pop() { t_progress = outer; }
        } pop{t_progress};
        t_progress = &frame;
        fn(progress_user_.load(), stage, done, total);
    }
    check_cancelled();  // the callback itself may have cancelled
}

void CallMonitor::set_progress(gp_progress_fn fn, void *user) {
    progress_user_ = user;
    progress_ = fn;
}

void CallMonitor::set_log(gp_log_fn fn, void *user) {
    std::lock_guard<std::mutex> g(mu_);
    log_ = fn;
    log_user_ = user;
}

void CallMonitor::record(const char *fname, gp_status st, uint64_t wall_ns, uint64_t device_ns,
                         const char *message) {
    gp_log_fn log;
    void *user;
    {
        std::lock_guard<std::mutex> g(mu_);
        ++calls_;
        call_ns_ += wall_ns;
        device_ns_ += device_ns;
        if (st != GP_OK) ++failed_;
        gp_call_stats &s = per_call_[fname];
        s.name = fname;
        ++s.calls;
        s.call_ns += wall_ns;
        if (st != GP_OK) ++s.failed_calls;
        log = log_;
        user = log_user_;
    }
    if (!log) return;
    char head[160];
    std::snprintf(head, sizeof head, "%s %s %.3f ms", fname, gp_status_name(st), wall_ns / 1e6);
    std::string line = head;
    if (st != GP_OK && message && *message) line += std::string(": ") + message;
    log(user, line.c_str());
}

void CallMonitor::counters(gp_counters &out) {
    std::lock_guard<std::mutex> g(mu_);
    out.calls = calls_;
    out.failed_calls = failed_;
    out.call_ns = call_ns_;
    out.device_ns = device_ns_;
    out.bytes_to_device = to_device_;
    out.bytes_to_host = to_host_;
}

size_t CallMonitor::call_stats(gp_call_stats *out, size_t capacity) {
    std::vector<gp_call_stats> v;
    {
        std::lock_guard<std::mutex> g(mu_);
        for (const auto &kv : per_call_) v.push_back(kv.second);
    }
    std::sort(v.begin(), v.end(), [](const gp_call_stats &a, const gp_call_stats &b) {
        return std::strcmp(a.name, b.name) < 0;
    });
    for (size_t i = 0; out && i < v.size() && i < capacity; ++i) out[i] = v[i];
    return v.size();
}

void CallMonitor::reset() {
    std::lock_guard<std::mutex> g(mu_);
    calls_ = failed_ = call_ns_ = device_ns_ = 0;
    to_device_ = 0;
    to_host_ = 0;
    per_call_.clear();
}

CallRecord &current_call() {
    thread_local CallRecord r;
    return r;
}

}  // namespace gp
