// SPDX-License-Identifier: MIT OR Apache-2.0
// gpuprover-server: shares this machine's GPUs among prover processes.
// `gpuprover-server --help` documents the options; docs/SERVER.md the rest.
#include <signal.h>
#include <sys/resource.h>

#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <fstream>
#include <sstream>
#include <string>
#include <thread>
#include <vector>

#include "core/core.h"
#include "gpuprover.h"
#include "remote/endpoint.h"
#include "server/server.h"

namespace {

const char *kHelp = R"(usage: gpuprover-server [options]
       gpuprover-server --status ENDPOINT

Shares this machine's GPUs among prover processes. A client is any program
using libgpuprover with GP_BACKEND_REMOTE, or with GP_BACKEND_AUTO and the
GPUPROVER_SERVER environment variable set to this server's address.

Listening (default: --unix /tmp/gpu-prover.sock):
  --unix PATH              unix socket (mode 0660: owner and group only); the
                           side socket PATH.fd passes shared memory  [GPUPROVER_SERVER_UNIX]
  --tcp HOST:PORT          TCP; HOST must be loopback unless --token-file
                           is given (port 0: any free port)        [GPUPROVER_SERVER_TCP]
  --token-file FILE        shared token TCP clients must present (never
                           on the command line)                    [GPUPROVER_SERVER_TOKEN_FILE]
Devices and jobs:
  --num-gpus N             serve GPUs 0..N-1 (default: all visible; 0: CPU only)
                                                                   [GPUPROVER_SERVER_NUM_GPUS]
  --devices LIST           serve these GPU ordinals, e.g. 0,2      [GPUPROVER_SERVER_DEVICES]
  --cpu-devices N          serve N emulated devices cpu:0..cpu:N-1 (1..64) in place
                           of GPUs, each a queue of its own on the CPU backend
                           (for testing placement and scheduling without a GPU;
                           not with --num-gpus N>0 or --devices) [GPUPROVER_SERVER_CPU_DEVICES]
  --max-concurrent-jobs K  jobs running at once per GPU or emulated device
                           (default 2)                              [GPUPROVER_SERVER_MAX_JOBS]
  --cpu-jobs K             jobs at once in the CPU pool, which runs force_cpu
                           sessions and everything when no device is served
                           (default 1)                              [GPUPROVER_SERVER_CPU_JOBS]
  --cpu-threads N          threads per CPU job (default: hardware threads / cpu-jobs)
  --aging-ms MS            a waiting job gains one priority level per MS
                           (default 2000; 0: strict priorities)      [GPUPROVER_SERVER_AGING_MS]
  --quota-mib MIB          device memory one session may hold (default: none)
                                                                   [GPUPROVER_SERVER_QUOTA_MIB]
  --device-memory-mib MIB  buffer memory all sessions of one device may hold
                           together (default: the device's own limit); a
                           job beyond it waits while other jobs of the device
                           run or memory is freed, and fails only when
                           neither can make room   [GPUPROVER_SERVER_DEVICE_MEMORY_MIB]
  --max-message-mib MIB    largest request accepted (default 64)
Limits (docs/SERVER.md lists every one; a client beyond one is refused with
a status naming it, and the server goes on serving everyone else):
  --max-sessions N         sessions open at once (default 256)
  --max-sessions-per-client N
                           per uid (unix socket) or address (TCP) (default 64)
  --max-connections N      transport connections held at once (default 1024)
  --max-descriptors N      shared-memory descriptors of all sessions
                           (default: half the descriptor limit)
  --max-regions N          shared regions one session may attach (default 256)
  --max-reply-mib MIB      replies held for clients at once (default 256)
  --fd-wait-ms MS          how long shared-memory attachment waits for its
                           descriptor on the side socket (default 5000)
Monitoring and control:
  --metrics HOST:PORT      Prometheus text format at http://HOST:PORT/metrics
                           (IPv4; loopback unless --token-file)      [GPUPROVER_SERVER_METRICS]
  --grace-ms MS            on SIGTERM/SIGINT, running jobs may finish within
                           MS before they are cancelled (default 10000)
  --status ENDPOINT        print a running server's figures and exit
  --version                print the version (the library's) and exit
  --help                   this text

A session is placed on the served device of least load (sessions + jobs
running + jobs queued), then fewest bytes held, then lowest index.

Logs: one logfmt line on stderr per session opened or closed and per job
(session, operation, device, priority, queue wait, run time, status).
)";

std::string env(const char *name) {
    const char *v = std::getenv(name);
    return v ? v : "";
}

std::string read_file_trimmed(const std::string &path) {
    std::ifstream f(path, std::ios::binary);
    if (!f) throw std::runtime_error("cannot read token file " + path);
    std::stringstream ss;
    ss << f.rdbuf();
    std::string t = ss.str();
    while (!t.empty() && (t.back() == '\n' || t.back() == '\r' || t.back() == ' ')) t.pop_back();
    if (t.empty()) throw std::runtime_error("token file " + path + " is empty");
    return t;
}

unsigned to_uint(const std::string &s, const char *what) {
    char *end = nullptr;
    const unsigned long v = std::strtoul(s.c_str(), &end, 10);
    if (s.empty() || !end || *end || v > 1000000) throw std::runtime_error(std::string("bad value for ") + what + ": " + s);
    return (unsigned)v;
}

}  // namespace

int main(int argc, char **argv) {
    // SIGINT and SIGTERM are taken by one thread, which shuts the server
    // down: blocked before any other thread exists (the CUDA runtime starts
    // threads when the devices are counted below), so that every thread
    // inherits the mask and none dies of the signal.
    sigset_t set;
    sigemptyset(&set);
    sigaddset(&set, SIGINT);
    sigaddset(&set, SIGTERM);
    pthread_sigmask(SIG_BLOCK, &set, nullptr);
    using gp::server::Config;
    Config c;
    std::string status_ep, token_file = env("GPUPROVER_SERVER_TOKEN_FILE");
    std::string num_gpus = env("GPUPROVER_SERVER_NUM_GPUS"), devices = env("GPUPROVER_SERVER_DEVICES");
    std::string cpu_devices = env("GPUPROVER_SERVER_CPU_DEVICES");
    const char *cpu_devices_from = "GPUPROVER_SERVER_CPU_DEVICES";
    bool cpu_devices_set = !cpu_devices.empty();
    c.unix_path = env("GPUPROVER_SERVER_UNIX");
    c.tcp = env("GPUPROVER_SERVER_TCP");
    c.metrics = env("GPUPROVER_SERVER_METRICS");
    int grace_ms = 10000;
    try {
        if (!env("GPUPROVER_SERVER_MAX_JOBS").empty()) c.jobs_per_gpu = to_uint(env("GPUPROVER_SERVER_MAX_JOBS"), "GPUPROVER_SERVER_MAX_JOBS");
        if (!env("GPUPROVER_SERVER_CPU_JOBS").empty()) c.cpu_jobs = to_uint(env("GPUPROVER_SERVER_CPU_JOBS"), "GPUPROVER_SERVER_CPU_JOBS");
        if (!env("GPUPROVER_SERVER_AGING_MS").empty()) c.aging_ms = to_uint(env("GPUPROVER_SERVER_AGING_MS"), "GPUPROVER_SERVER_AGING_MS");
        if (!env("GPUPROVER_SERVER_DEVICE_MEMORY_MIB").empty()) c.device_budget = (uint64_t)to_uint(env("GPUPROVER_SERVER_DEVICE_MEMORY_MIB"), "GPUPROVER_SERVER_DEVICE_MEMORY_MIB") << 20;
        if (!env("GPUPROVER_SERVER_QUOTA_MIB").empty()) c.quota_bytes = (uint64_t)to_uint(env("GPUPROVER_SERVER_QUOTA_MIB"), "GPUPROVER_SERVER_QUOTA_MIB") << 20;
        for (int i = 1; i < argc; ++i) {
            const std::string a = argv[i];
            auto next = [&]() -> std::string {
                if (i + 1 >= argc) throw std::runtime_error(a + " needs a value");
                return argv[++i];
            };
            if (a == "--help" || a == "-h") {
                std::fputs(kHelp, stdout);
                return 0;
            } else if (a == "--version") {
                std::printf("gpuprover-server %s\n", gp_version());
                return 0;
            } else if (a == "--unix") c.unix_path = next();
            else if (a == "--tcp") c.tcp = next();
            else if (a == "--token-file") token_file = next();
            else if (a == "--num-gpus") num_gpus = next();
            else if (a == "--devices") devices = next();
            else if (a == "--cpu-devices") {
                cpu_devices = next();
                cpu_devices_from = "--cpu-devices";
                cpu_devices_set = true;
            }
            else if (a == "--max-concurrent-jobs") c.jobs_per_gpu = to_uint(next(), "--max-concurrent-jobs");
            else if (a == "--cpu-jobs") c.cpu_jobs = to_uint(next(), "--cpu-jobs");
            else if (a == "--cpu-threads") c.cpu_threads = to_uint(next(), "--cpu-threads");
            else if (a == "--aging-ms") c.aging_ms = to_uint(next(), "--aging-ms");
            else if (a == "--quota-mib") c.quota_bytes = (uint64_t)to_uint(next(), "--quota-mib") << 20;
            else if (a == "--device-memory-mib") c.device_budget = (uint64_t)to_uint(next(), "--device-memory-mib") << 20;
            else if (a == "--max-message-mib") c.max_message_bytes = (int)std::min(1024u, to_uint(next(), "--max-message-mib")) << 20;
            else if (a == "--max-sessions") c.limits.max_sessions = std::max(1u, to_uint(next(), "--max-sessions"));
            else if (a == "--max-sessions-per-client")
                c.limits.max_sessions_per_client = std::max(1u, to_uint(next(), "--max-sessions-per-client"));
            else if (a == "--max-connections") c.limits.max_connections = std::max(1u, to_uint(next(), "--max-connections"));
            else if (a == "--max-descriptors") c.limits.max_descriptors = std::max(1u, to_uint(next(), "--max-descriptors"));
            else if (a == "--max-regions")
                c.limits.max_regions_per_session = std::max(1u, to_uint(next(), "--max-regions"));
            else if (a == "--max-reply-mib")
                c.limits.max_reply_bytes_in_flight = (uint64_t)std::max(1u, to_uint(next(), "--max-reply-mib")) << 20;
            else if (a == "--fd-wait-ms") c.fd_wait_ms = (int)std::max(1u, to_uint(next(), "--fd-wait-ms"));
            else if (a == "--metrics") c.metrics = next();
            else if (a == "--grace-ms") grace_ms = (int)to_uint(next(), "--grace-ms");
            else if (a == "--status") status_ep = next();
            else throw std::runtime_error("unknown option " + a + " (see --help)");
        }
        if (!status_ep.empty()) {
            pthread_sigmask(SIG_UNBLOCK, &set, nullptr);
            return gp::server::print_status(status_ep, token_file.empty() ? "" : read_file_trimmed(token_file));
        }
        if (c.jobs_per_gpu == 0 || c.cpu_jobs == 0) throw std::runtime_error("job counts must be at least 1");
        if (c.unix_path.empty() && c.tcp.empty()) c.unix_path = "/tmp/gpu-prover.sock";
        if (!token_file.empty()) c.token = read_file_trimmed(token_file);
        for (const std::string *ep : {&c.tcp, &c.metrics}) {
            if (ep->empty()) continue;
            const auto eps = gp::parse_endpoints(*ep);
            if (eps.size() != 1 || eps[0].is_unix) throw std::runtime_error("expected HOST:PORT, got " + *ep);
            if (!eps[0].loopback && c.token.empty())
                throw std::runtime_error(*ep + " is not a loopback address: give --token-file to listen there");
        }
        if (cpu_devices_set) {
            // Emulated devices stand in for GPUs: placement would treat a
            // CPU device as a GPU's equal, so the two are never mixed.
            const unsigned n = to_uint(cpu_devices, cpu_devices_from);
            if (n < 1 || n > gp::server::kMaxCpuDevices)
                throw std::runtime_error(std::string(cpu_devices_from) + " " + cpu_devices +
                                         ": the number of emulated devices must be 1 to " +
                                         std::to_string(gp::server::kMaxCpuDevices));
            if (!devices.empty())
                throw std::runtime_error(std::string(cpu_devices_from) +
                                         " serves emulated devices in place of GPUs: it cannot be combined with "
                                         "--devices (GPUPROVER_SERVER_DEVICES)");
            if (!num_gpus.empty() && to_uint(num_gpus, "--num-gpus") != 0)
                throw std::runtime_error(std::string(cpu_devices_from) +
                                         " serves emulated devices in place of GPUs: it cannot be combined with "
                                         "--num-gpus " + num_gpus +
                                         " (GPUPROVER_SERVER_NUM_GPUS); give --num-gpus 0 or neither");
            c.cpu_devices = n;
        } else if (!devices.empty()) {
            std::stringstream ss(devices);
            std::string item;
            while (std::getline(ss, item, ',')) c.gpus.push_back((int)to_uint(item, "--devices"));
        } else {
            const int visible = gp::cuda_device_count();
            const int n = num_gpus.empty() ? visible : (int)to_uint(num_gpus, "--num-gpus");
            if (n > visible)
                throw std::runtime_error("--num-gpus " + std::to_string(n) + ": only " + std::to_string(visible) +
                                         " GPU(s) visible");
            for (int i = 0; i < n; ++i) c.gpus.push_back(i);
        }
    } catch (const std::exception &e) {
        std::fprintf(stderr, "gpuprover-server: %s\n", e.what());
        return 2;
    }

    signal(SIGPIPE, SIG_IGN);
    // As many descriptors as the hard limit allows: every session's shared
    // memory is one, and the limits above stay far inside it.
    rlimit rl{};
    if (getrlimit(RLIMIT_NOFILE, &rl) == 0 && rl.rlim_cur < rl.rlim_max) {
        rl.rlim_cur = rl.rlim_max;
        setrlimit(RLIMIT_NOFILE, &rl);
    }

    gp::server::Server server(c);
    try {
        server.start();
    } catch (const std::exception &e) {
        std::fprintf(stderr, "gpuprover-server: %s\n", e.what());
        return 1;
    }
    std::thread sig([&] {
        int s = 0;
        sigwait(&set, &s);
        server.shutdown(grace_ms);
    });
    server.wait();
    // The signal thread is done, or still waits for a signal that never comes.
    if (sig.joinable()) {
        pthread_kill(sig.native_handle(), SIGTERM);
        sig.join();
    }
    return 0;
}
