// gpuprover-server: sessions of remote contexts (src/remote) on this
// machine's devices, a job queue per device (scheduler.h), shared memory
// for bulk data, statistics. main.cpp parses the command line.
#pragma once

#include <atomic>
#include <cstdint>
#include <memory>
#include <string>
#include <vector>

namespace gp {
namespace server {

struct Config {
    std::string unix_path;           // "" for none
    std::string tcp;                 // HOST:PORT, "" for none
    std::vector<int> gpus;           // CUDA ordinals served (empty: CPU only)
    unsigned jobs_per_gpu = 2;       // concurrent jobs per GPU
    unsigned cpu_jobs = 1;           // concurrent jobs of the CPU pool
    unsigned cpu_threads = 0;        // threads per CPU job (0: hardware / cpu_jobs)
    unsigned staging_threads = 0;    // host threads per GPU session (0: default)
    double aging_ms = 2000;          // one priority level per this much waiting
    uint64_t quota_bytes = 0;        // per session; 0: none
    uint64_t device_budget = 0;      // buffer bytes all sessions of one device may hold; 0: its memory
    std::string token;               // required of TCP clients when set
    int max_message_bytes = 64 << 20;
    std::string metrics;             // HOST:PORT of the Prometheus endpoint, "" for none
    bool log_json = false;
};

class Server {
public:
    explicit Server(Config c);
    ~Server();
    // Listens; throws std::runtime_error when it cannot.
    void start();
    // Blocks until shutdown() (from a signal handler thread or a test).
    void wait();
    // Refuses new sessions, cancels running jobs after `grace_ms`, and
    // closes every session.
    void shutdown(int grace_ms);
    // The figures of the Stats call, in Prometheus text format.
    std::string prometheus() const;

    struct Impl;

private:
    std::unique_ptr<Impl> impl_;
};

// `gpuprover-server --status ENDPOINT`: prints the server's figures.
int print_status(const std::string &endpoint, const std::string &token_file);

}  // namespace server
}  // namespace gp
