// SPDX-License-Identifier: MIT OR Apache-2.0
// The transport-free core of gpuprover-server: devices and their job
// queues, sessions, the checked handling of every request, descriptors
// passed for shared memory, limits and statistics. server.cpp puts gRPC
// and the sockets around it; the request fuzzer (tests/fuzz) drives it
// directly.
#pragma once

#include <algorithm>
#include <atomic>
#include <condition_variable>
#include <cstdint>
#include <functional>
#include <map>
#include <memory>
#include <mutex>
#include <string>
#include <vector>

#include "core/core.h"
#include "core/monitor.h"
#include "gpuprover.pb.h"
#include "server/limits.h"
#include "server/scheduler.h"
#include "server/session_ops.h"

namespace gp {
namespace server {

// The most emulated devices a server serves (--cpu-devices).
constexpr unsigned kMaxCpuDevices = 64;

struct Config {
    std::string unix_path;           // "" for none
    std::string tcp;                 // HOST:PORT, "" for none
    std::vector<int> gpus;           // CUDA ordinals served (empty: CPU only)
    unsigned cpu_devices = 0;        // emulated devices cpu:0..N-1 on the CPU backend, served
                                     // in place of GPUs (1..kMaxCpuDevices; 0: none)
    unsigned jobs_per_gpu = 2;       // concurrent jobs per served device (GPU or emulated)
    unsigned cpu_jobs = 1;           // concurrent jobs of the CPU pool
    unsigned cpu_threads = 0;        // threads per CPU job (0: hardware / cpu_jobs)
    unsigned staging_threads = 0;    // host threads per GPU session (0: default)
    double aging_ms = 2000;          // one priority level per this much waiting
    uint64_t quota_bytes = 0;        // per session; 0: none
    uint64_t device_budget = 0;      // buffer bytes all sessions of one device may hold; 0: its memory
    std::string token;               // required of TCP clients when set
    int max_message_bytes = 64 << 20;
    std::string metrics;             // HOST:PORT of the Prometheus endpoint, "" for none
    int fd_wait_ms = 5000;           // how long AttachShm waits for its descriptor
    ResourceLimits limits;
};

// Who is on the other end of a connection.
struct Peer {
    std::string text;    // for logs: "unix:uid=1000,pid=42" or "ipv4:127.0.0.1:5123"
    std::string client;  // what per-client limits count: "uid:1000" or "ip:127.0.0.1"
    bool local = false;  // a unix socket (its file permissions admit it; shared memory possible)
};

struct Device {
    Device(std::string n, int ord, unsigned k, double aging) : name(std::move(n)), ordinal(ord), queue(name, k, aging) {}
    std::string name;
    int ordinal;            // the CUDA ordinal; -1: backed by the CPU (the pool, or an emulated device)
    bool emulated = false;  // cpu:i of --cpu-devices
    DeviceQueue queue;
    std::unique_ptr<Backend> probe;  // memory figures of a GPU
    std::atomic<uint64_t> bytes{0};
    // Sessions placed here: counted by placement under Core's lock, released
    // by Core::close (or by open when the session fails to start).
    std::atomic<int> sessions{0};
    uint64_t total = 0;  // memory of a GPU; the budget of an emulated device (0: none)
    // What placement compares: sessions placed + jobs running + jobs queued.
    unsigned load() { return (unsigned)std::max(0, sessions.load()) + queue.load(); }
};

struct SessionState {
    uint64_t id = 0;
    std::string client, peer, client_key;
    int prio = 0;
    bool force_cpu = false;
    bool local = false;
    Device *dev = nullptr;
    std::unique_ptr<Backend> backend;
    CallMonitor monitor;
    std::unique_ptr<SessionMemory> mem;
    std::string nonce;
    unsigned descriptors = 0;  // counted in Core's total
    // Whether the client has gone (polled by the watchdog, which then
    // cancels the running job at its next batch boundary); set before the
    // session is registered, never after.
    std::function<bool()> gone;
    std::atomic<uint64_t> jobs{0}, bytes{0};
    // The id of the request being handled (0: none) and the last one the
    // client cancelled (Core::cancel); `request` changes under cancel_mu.
    std::mutex cancel_mu;
    std::atomic<uint64_t> request{0}, cancel_request{0};
};

class Core {
public:
    explicit Core(Config c);
    ~Core();
    // Opens the served devices (throws std::runtime_error).
    void open_devices();

    // Opens a session for `hello` (the first request) from `peer`; fills
    // `rep`. Throws gp::Error with the reason it is refused.
    // `gone` tells whether the client has gone (polled by watch()).
    std::unique_ptr<SessionState> open(const v1::Request &hello, const Peer &peer, v1::Reply &rep,
                                       std::function<bool()> gone = {});
    // One request of an open session into `rep` (status and message on
    // failure); `give_up` turns true when a queued job should be dropped.
    void handle(SessionState &s, const v1::Request &q, v1::Reply &rep, const std::function<bool()> &give_up);
    // From another thread while `s` handles requests (the relay's reader):
    // the request `target` of `s`, if it is the one being handled, stops
    // with GP_ERR_CANCELLED at its next batch boundary, or before it starts
    // when it waits in the queue; otherwise nothing happens (id 0: never).
    void cancel(SessionState &s, uint64_t target);
    // A serialized request: parsed, then handled. A message that does not
    // parse gets GP_ERR_INVALID_ARGUMENT; returns false then (the stream
    // has lost its framing and should end).
    bool handle_bytes(SessionState &s, const std::string &bytes, v1::Reply &rep,
                      const std::function<bool()> &give_up);
    // The reply to a message of `bytes` bytes that is no Request.
    static void malformed(size_t bytes, v1::Reply &rep, const std::string &why = std::string());
    void close(std::unique_ptr<SessionState> s);

    // A message and descriptor from the side socket (the descriptor is
    // taken over: kept for its session's request, or closed).
    void deliver_fd(const std::string &msg, int fd);
    // Cancels the running job of every session whose client has gone.
    void watch();

    void fill_stats(v1::StatsReply *r);
    std::string prometheus();
    bool idle();           // no session open
    void cancel_all();     // every session's running job
    void close_queues();   // queued jobs are dropped, new ones refused
    void set_stopping() { stopping_ = true; }
    bool stopping() const { return stopping_; }
    uint64_t opened() const { return opened_; }
    uint64_t closed() const { return closed_; }
    const Config &config() const { return cfg_; }
    // Names of the served devices (GPUs and emulated ones; only GPUs when
    // `gpus_only`), comma-separated.
    std::string device_names(bool gpus_only = false) const;
    // Descriptors held for sessions: attached, and passed but not yet taken.
    unsigned descriptors() {
        std::lock_guard<std::mutex> lock(fd_mu_);
        return descriptors_.load() + (unsigned)pending_fds_.size();
    }

private:
    Config cfg_;
    std::vector<std::unique_ptr<Device>> devices_;  // served: GPUs, or emulated CPU devices
    std::unique_ptr<Device> cpu_;                   // the CPU pool (force_cpu, and all work when none is served)
    mutable std::mutex mu_;
    std::map<uint64_t, SessionState *> sessions_;
    std::map<std::string, unsigned> per_client_;
    uint64_t next_session_ = 1, opened_ = 0, closed_ = 0;
    std::atomic<bool> stopping_{false};
    std::atomic<uint64_t> seq_{0};
    std::atomic<unsigned> descriptors_{0};  // attached windows and regions
    Clock::time_point started_ = Clock::now();
    // Descriptors passed over the side socket, by nonce + ticket.
    std::mutex fd_mu_;
    std::condition_variable fd_cv_;
    std::map<std::string, int> pending_fds_;
    std::map<std::string, unsigned> pending_per_nonce_;

    // Picks the device of a new session and counts the session there; under
    // mu_. `load` is the device's load before this session.
    Device &place_locked(bool force_cpu, unsigned *load);
    // Undoes the registration of a session that failed to start.
    void unregister(SessionState &s);
    void run_job(SessionState &s, const char *op, const std::function<bool()> &give_up,
                 const std::function<void()> &fn, v1::Reply &rep);
    void dispatch(SessionState &s, const v1::Request &q, v1::Reply &rep, const std::function<bool()> &give_up,
                  const char *op);
    void attach(SessionState &s, const v1::AttachShm &a);
    int take_fd(SessionState &s, uint64_t ticket);
    void drop_pending(const std::string &nonce);
    void count_descriptors(SessionState &s);
    // Refuses (GP_ERR_HOST_OUT_OF_MEMORY) when the sessions hold all the
    // descriptors the server allows.
    void reserve_descriptor();
    uint64_t held(const SessionState &s) const;
    void check_quota(const SessionState &s, uint64_t more, const char *what) const;
    void fill_device(Device &d, v1::DeviceStats *o);
};

// One structured (logfmt) line on stderr.
void log_line(const std::string &event, const std::string &fields);
std::string quote(const std::string &s);
bool same_secret(const std::string &a, const std::string &b);
// A device's load in Stats figures: sessions + jobs running + jobs queued.
uint64_t device_load(const v1::DeviceStats &d);

}  // namespace server
}  // namespace gp
