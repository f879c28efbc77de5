// SPDX-License-Identifier: MIT OR Apache-2.0
// A small fixed-size worker pool with a blocking parallel_for.
#pragma once

#include <algorithm>
#include <condition_variable>
#include <cstdint>
#include <exception>
#include <functional>
#include <mutex>
#include <system_error>
#include <thread>
#include <vector>

#include "core/core.h"
#include "core/host_alloc.h"

namespace gp {

class ThreadPool {
public:
    // Starts threads - 1 workers (the caller is the last). When a thread
    // cannot be started, the ones already running are stopped and joined and
    // GP_ERR_HOST_OUT_OF_MEMORY is thrown. A thread start counts as a host
    // allocation for the fault hook.
    explicit ThreadPool(unsigned threads) {
        if (threads == 0) threads = std::max(1u, std::thread::hardware_concurrency());
        n_ = threads;
        try {
            workers_.reserve(n_ - 1);
            for (unsigned i = 1; i < n_; ++i) {
                if (alloc_fault(AllocKind::Host))
                    throw std::system_error(std::make_error_code(std::errc::resource_unavailable_try_again));
                workers_.emplace_back([this] { loop(); });
            }
        } catch (const std::exception &e) {
            const size_t started = workers_.size();
            stop();
            fail(GP_ERR_HOST_OUT_OF_MEMORY, "cannot start worker thread ", started + 1, " of ", n_ - 1, " (",
                 e.what(), "); ask for fewer threads");
        }
    }
    ~ThreadPool() { stop(); }
    ThreadPool(const ThreadPool &) = delete;
    ThreadPool &operator=(const ThreadPool &) = delete;

    unsigned size() const { return n_; }

    // Runs fn(i) for i in [0, count) on all threads (the caller included) and
    // returns when every call has finished. The first exception is rethrown.
    void parallel_for(uint64_t count, const std::function<void(uint64_t)> &fn) {
        if (count == 0) return;
        if (n_ == 1 || count == 1) {
            for (uint64_t i = 0; i < count; ++i) fn(i);
            return;
        }
        std::unique_lock<std::mutex> call(call_m_);  // one parallel_for at a time
        {
            std::lock_guard<std::mutex> g(m_);
            fn_ = &fn;
            count_ = count;
            next_ = 0;
            active_ = (unsigned)workers_.size();
            error_ = nullptr;
            ++generation_;
        }
        cv_.notify_all();
        work();
        std::unique_lock<std::mutex> g(m_);
        done_cv_.wait(g, [this] { return active_ == 0; });
        fn_ = nullptr;
        if (error_) std::rethrow_exception(error_);
    }

    // Splits [0, total) into about size() * 4 contiguous ranges.
    void parallel_ranges(uint64_t total, const std::function<void(uint64_t, uint64_t)> &fn) {
        uint64_t parts = std::min<uint64_t>(total, (uint64_t)n_ * 4);
        if (parts == 0) return;
        parallel_for(parts, [&](uint64_t p) {
            uint64_t b = total * p / parts, e = total * (p + 1) / parts;
            if (b < e) fn(b, e);
        });
    }

private:
    void stop() {
        {
            std::lock_guard<std::mutex> g(m_);
            stop_ = true;
        }
        cv_.notify_all();
        for (auto &t : workers_) t.join();
        workers_.clear();
    }
    void work() {
        for (;;) {
            uint64_t i;
            {
                std::lock_guard<std::mutex> g(m_);
                if (next_ >= count_) return;
                i = next_++;
            }
            try {
                (*fn_)(i);
            } catch (...) {
                std::lock_guard<std::mutex> g(m_);
                if (!error_) error_ = std::current_exception();
                next_ = count_;
            }
        }
    }
    void loop() {
        uint64_t seen = 0;
        for (;;) {
            {
                std::unique_lock<std::mutex> g(m_);
                cv_.wait(g, [&] { return stop_ || generation_ != seen; });
                if (stop_) return;
                seen = generation_;
            }
            work();
            std::lock_guard<std::mutex> g(m_);
            if (--active_ == 0) done_cv_.notify_all();
        }
    }

    unsigned n_ = 1;
    std::vector<std::thread> workers_;
    std::mutex m_, call_m_;
    std::condition_variable cv_, done_cv_;
    const std::function<void(uint64_t)> *fn_ = nullptr;
    uint64_t count_ = 0, next_ = 0, generation_ = 0;
    unsigned active_ = 0;
    std::exception_ptr error_;
    bool stop_ = false;
};

}  // namespace gp
