// SPDX-License-Identifier: MIT OR Apache-2.0
// gpuprover-server's job queue for one device: at most `max_running` jobs
// at once; the next is the waiting job of highest effective priority, its
// level (LOW 0, NORMAL 1, HIGH 2) plus one per `aging_ms` it has waited,
// the earliest arrival among equals. So a HIGH job overtakes every waiting
// NORMAL or LOW job, and a LOW job that has waited 2 x aging_ms ranks with
// a HIGH job that has just arrived (and, arriving earlier, runs first).
#pragma once

#include <algorithm>
#include <chrono>
#include <condition_variable>
#include <cstdint>
#include <functional>
#include <list>
#include <mutex>
#include <string>
#include <vector>

namespace gp {
namespace server {

using Clock = std::chrono::steady_clock;

inline int priority_level(int p) { return p == 2 ? 2 : p == 1 ? 0 : 1; }  // HIGH, LOW, NORMAL
inline const char *priority_name(int p) { return p == 2 ? "high" : p == 1 ? "low" : "normal"; }

// The last samples of a duration, for percentiles.
class Samples {
public:
    void add(double ms) {
        if (v_.size() < kKeep) v_.push_back(ms);
        else v_[next_++ % kKeep] = ms;
        max_ = std::max(max_, ms);
    }
    double pct(double p) const {
        if (v_.empty()) return 0;
        std::vector<double> s = v_;
        const size_t i = std::min(s.size() - 1, (size_t)(p / 100.0 * (double)s.size()));
        std::nth_element(s.begin(), s.begin() + (long)i, s.end());
        return s[i];
    }
    double max() const { return max_; }

private:
    static constexpr size_t kKeep = 4096;
    std::vector<double> v_;
    size_t next_ = 0;
    double max_ = 0;
};

struct PriorityCounters {
    uint64_t queued = 0, running = 0, done = 0, failed = 0;
    Samples wait, run;
};

class DeviceQueue {
public:
    DeviceQueue(std::string name, unsigned max_running, double aging_ms)
        : name_(std::move(name)), max_running_(std::max(1u, max_running)), aging_ms_(aging_ms) {}

    const std::string &name() const { return name_; }
    unsigned max_running() const { return max_running_; }

    // A job of priority `prio` that arrived at `arrival` waits for a slot.
    // Returns false (not running) when `give_up()` turns true (polled every
    // 50 ms) or the queue is closed.
    bool acquire(int prio, Clock::time_point arrival, uint64_t seq, const std::function<bool()> &give_up) {
        std::unique_lock<std::mutex> lock(mu_);
        Waiter w{prio, arrival, seq, false};
        auto it = waiters_.insert(waiters_.end(), &w);
        ++counters_[prio].queued;
        grant_locked();
        while (!w.granted) {
            cv_.wait_for(lock, std::chrono::milliseconds(50));
            if (w.granted) break;
            if (closed_ || give_up()) {
                waiters_.erase(it);
                --counters_[prio].queued;
                grant_locked();
                return false;
            }
            grant_locked();  // aging may have reordered the queue
        }
        return true;
    }

    // The job ends; `ok` says whether it succeeded.
    void release(int prio, bool ok, double wait_ms, double run_ms) {
        std::lock_guard<std::mutex> lock(mu_);
        --running_;
        ++finished_;
        PriorityCounters &c = counters_[prio];
        --c.running;
        ++(ok ? c.done : c.failed);
        c.wait.add(wait_ms);
        c.run.add(run_ms);
        grant_locked();
        cv_.notify_all();
    }

    // A running job that could not get memory gives its slot back and waits
    // until another job of this device ends or memory is freed (note_freed).
    // Returns false, holding its slot again, when no other job runs and
    // nothing is freed within `grace_ms`: then nothing will free memory.
    bool yield_for_memory(int prio, int grace_ms = 250) {
        std::unique_lock<std::mutex> lock(mu_);
        const uint64_t seen_finished = finished_, seen_freed = freed_;
        --running_;
        --counters_[prio].running;
        grant_locked();
        cv_.notify_all();
        auto changed = [&] { return finished_ != seen_finished || freed_ != seen_freed || closed_; };
        if (running_ > 0) cv_.wait(lock, changed);
        else cv_.wait_for(lock, std::chrono::milliseconds(grace_ms), changed);
        if (changed()) return true;
        ++running_;  // the caller fails the job and releases this slot
        ++counters_[prio].running;
        return false;
    }

    // Memory of this device was freed: jobs waiting for memory try again.
    void note_freed() {
        std::lock_guard<std::mutex> lock(mu_);
        ++freed_;
        cv_.notify_all();
    }

    void close() {
        std::lock_guard<std::mutex> lock(mu_);
        closed_ = true;
        cv_.notify_all();
    }

    // Jobs running and waiting: what placement counts besides sessions.
    unsigned load() {
        std::lock_guard<std::mutex> lock(mu_);
        return running_ + (unsigned)waiters_.size();
    }

    template <class Fn>
    void read(Fn &&fn) {
        std::lock_guard<std::mutex> lock(mu_);
        fn(counters_, running_);
    }

private:
    struct Waiter {
        int prio;
        Clock::time_point arrival;
        uint64_t seq;
        bool granted;
    };

    double effective(const Waiter &w, Clock::time_point now) const {
        const double waited = std::chrono::duration<double, std::milli>(now - w.arrival).count();
        return priority_level(w.prio) + (aging_ms_ > 0 ? waited / aging_ms_ : 0.0);
    }

    void grant_locked() {
        bool any = false;
        while (running_ < max_running_ && !waiters_.empty()) {
            const Clock::time_point now = Clock::now();
            auto best = waiters_.begin();
            for (auto it = waiters_.begin(); it != waiters_.end(); ++it) {
                const double e = effective(**it, now), b = effective(**best, now);
                if (e > b || (e == b && (*it)->seq < (*best)->seq)) best = it;
            }
            Waiter *w = *best;
            waiters_.erase(best);
            w->granted = true;
            ++running_;
            --counters_[w->prio].queued;
            ++counters_[w->prio].running;
            any = true;
        }
        if (any) cv_.notify_all();
    }

    std::string name_;
    unsigned max_running_;
    double aging_ms_;
    std::mutex mu_;
    std::condition_variable cv_;
    std::list<Waiter *> waiters_;
    unsigned running_ = 0;
    uint64_t finished_ = 0, freed_ = 0;
    bool closed_ = false;
    PriorityCounters counters_[3];
};

}  // namespace server
}  // namespace gp
