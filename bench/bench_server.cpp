// SPDX-License-Identifier: MIT OR Apache-2.0
// Throughput through gpuprover-server against in process (Google
// Benchmark): the issue workloads W2 and W3 run by 1 and 4 concurrent
// clients, each with a context of its own, and the host LDE of W2's shape
// alone (the shared-memory path).
//
//   W2_keccak   Goldilocks 2^20 x 256, B=4: host trace (pinned) ->
//               gp_lde_batch_host -> Keccak (Plonky3) root
//   W3_p2gl12   the same with Poseidon2 Goldilocks w12
//   LDE_host    W2's gp_lde_batch_host alone
//
// Rows: <workload>/<mode>/threads:K, real time per job (each of the K
// clients runs jobs back to back); jobs_per_s is the throughput of all K
// together. Every root is checked equal to the in-process one. Modes:
//   inproc       in process, the trace in gp_host_alloc memory (page-locked)
//   server       through the server, the trace in gp_host_alloc memory
//                (shared with the server: handed over without a copy)
//   server_copy  through the server, the trace in the process's own
//                page-locked memory (copied into the session's window)
//
// Options (removed before Google Benchmark sees the command line):
//   --server=ENDPOINT   the gpuprover-server (required for the server rows)
//   --tcp=HOST:PORT     the same server's TCP address, for the transport rows
//   --backend=cuda|cpu  in-process backend (default cuda)
//   --scale=N           divides the trace rows by 2^N (quick runs)
// Run: gpuprover-server --unix /tmp/gp.sock & ./gp_bench_server --server=/tmp/gp.sock
#include <benchmark/benchmark.h>

#include <arpa/inet.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <sys/socket.h>
#include <unistd.h>

#include <algorithm>
#include <atomic>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <map>
#include <mutex>
#include <random>
#include <string>
#include <thread>
#include <vector>

#include "gpuprover.h"
#ifdef GP_HAVE_CUDA
#include <cuda_runtime_api.h>
#endif

namespace {

std::string g_server, g_tcp;

bool gp_write_all(int fd, const char *p, size_t n) {
    while (n > 0) {
        const ssize_t w = send(fd, p, n, MSG_NOSIGNAL);
        if (w <= 0) return false;
        p += w;
        n -= (size_t)w;
    }
    return true;
}
gp_backend g_backend = GP_BACKEND_CUDA;
uint32_t g_scale = 0;

struct Workload {
    const char *name;
    gp_merkle_kind kind;  // GP_MERKLE_FIELD_SPONGE with perm, or Keccak
    gp_permutation perm;
    bool commit;
};
const Workload kWorkloads[] = {
    {"W2_keccak", GP_MERKLE_KECCAK_PLONKY3, GP_PERM_KECCAK_F1600, true},
    {"W3_p2gl12", GP_MERKLE_FIELD_SPONGE, GP_PERM_POSEIDON2_GOLDILOCKS_12, true},
    {"LDE_host", GP_MERKLE_FIELD_SPONGE, GP_PERM_POSEIDON2_GOLDILOCKS_8, false},
};

constexpr uint64_t kCols = 256, kBlowup = 4;
uint64_t rows() { return (1ull << 20) >> g_scale; }

// The host trace (pinned where CUDA is), made once.
const uint64_t *trace() {
    static uint64_t *t = [] {
        const uint64_t n = rows() * kCols, bytes = n * 8;
        void *p = nullptr;
#ifdef GP_HAVE_CUDA
        if (cudaHostAlloc(&p, bytes, cudaHostAllocPortable) != cudaSuccess) p = nullptr;
#endif
        if (!p) p = std::malloc(bytes);
        uint64_t *v = static_cast<uint64_t *>(p);
        std::mt19937_64 rng(42);
        for (uint64_t i = 0; i < n; ++i) v[i] = rng() % 0xffffffff00000001ull;
        return v;
    }();
    return t;
}

// One context, output buffer and trace per (thread, mode).
struct Client {
    gp_context *ctx = nullptr;
    gp_buffer *out = nullptr;
    const uint64_t *trace = nullptr;
    void *own = nullptr;  // gp_host_alloc
    std::string error;
};
std::mutex g_mu;
std::map<std::string, std::vector<unsigned char>> g_roots;  // workload -> in-process root

enum Mode { kInproc = 0, kServer = 1, kServerCopy = 2 };
const char *kModeNames[3] = {"inproc", "server", "server_copy"};

Client make_client(int mode) {
    const bool server = mode != kInproc;
    Client c;
    gp_context_options o;
    gp_context_options_init(&o);
    o.backend = server ? GP_BACKEND_REMOTE : g_backend;
    if (server) o.endpoint = g_server.c_str();
    if (gp_context_create(&o, &c.ctx) != GP_OK) {
        c.error = std::string("gp_context_create: ") + gp_last_error();
        return c;
    }
    if (gp_buffer_create(c.ctx, GP_FIELD_GOLDILOCKS, 1, rows() * kBlowup, kCols, &c.out) != GP_OK)
        c.error = std::string("gp_buffer_create: ") + gp_last_error();
    c.trace = trace();
    if (mode != kServerCopy) {
        const uint64_t bytes = rows() * kCols * 8;
        if (gp_host_alloc(c.ctx, bytes, &c.own) != GP_OK) {
            c.error = std::string("gp_host_alloc: ") + gp_last_error();
            return c;
        }
        std::memcpy(c.own, trace(), bytes);
        c.trace = static_cast<const uint64_t *>(c.own);
    }
    return c;
}

void run(benchmark::State &st, const Workload &w, int mode) {
    if (mode != kInproc && g_server.empty()) {
        st.SkipWithError("no --server=ENDPOINT");
        return;
    }
    Client c = make_client(mode);
    if (!c.error.empty()) {
        st.SkipWithError(c.error.c_str());
        gp_buffer_destroy(c.out);
        gp_context_destroy(c.ctx);
        return;
    }
    gp_lde_options lo;
    gp_lde_options_init(&lo);
    lo.blowup = kBlowup;
    lo.output_order = GP_ORDER_BIT_REVERSED;
    gp_merkle_options mo;
    gp_merkle_options_init(&mo);
    mo.kind = w.kind;
    mo.perm = w.perm;
    const gp_buffer *mats[1] = {c.out};
    std::vector<unsigned char> root;
    std::string err;
    auto once = [&]() -> bool {
        if (gp_lde_batch_host(c.ctx, GP_FIELD_GOLDILOCKS, 1, c.trace, rows(), kCols, &lo, c.out) != GP_OK) {
            err = std::string("gp_lde_batch_host: ") + gp_last_error();
            return false;
        }
        if (!w.commit) return true;
        gp_merkle_tree *t = nullptr;
        if (gp_merkle_commit(c.ctx, mats, 1, &mo, &t) != GP_OK) {
            err = std::string("gp_merkle_commit: ") + gp_last_error();
            return false;
        }
        root.resize(gp_merkle_digest_size(t));
        gp_merkle_root(t, root.data(), root.size());
        gp_merkle_tree_destroy(t);
        return true;
    };
    bool good = once();  // warm-up, checked against the in-process root
    if (good && w.commit) {
        std::lock_guard<std::mutex> lock(g_mu);
        auto it = g_roots.find(w.name);
        if (it == g_roots.end()) g_roots[w.name] = root;
        else if (it->second != root) {
            err = "MISMATCH: the root differs from the first one computed";
            good = false;
        }
    }
    if (!good) st.SkipWithError(err.c_str());
    else
        for (auto _ : st)
            if (!once()) {
                st.SkipWithError(err.c_str());
                break;
            }
    st.counters["jobs_per_s"] = benchmark::Counter((double)st.iterations(), benchmark::Counter::kIsRate);
    gp_buffer_destroy(c.out);
    gp_context_destroy(c.ctx);
}

// The transport alone: a request that does no work (gp_context_memory_stats:
// one round trip), a 256 MiB upload (gp_buffer_from_host) and download
// (gp_buffer_to_host), in process, over the unix socket (shared memory) and
// over TCP (8 MiB chunks), each through the direct transport and through
// gRPC (GPUPROVER_TRANSPORT=grpc). what: 0 round trip, 1 upload, 2 download.
enum { kInprocT, kUnixT, kTcpT };
void transport(benchmark::State &st, int mode, bool grpc, int what) {
    const std::string &ep = mode == kUnixT ? g_server : g_tcp;
    if (mode != kInprocT && ep.empty()) {
        st.SkipWithError("no endpoint for this row");
        return;
    }
    setenv("GPUPROVER_TRANSPORT", grpc ? "grpc" : "direct", 1);
    gp_context_options o;
    gp_context_options_init(&o);
    o.backend = mode != kInprocT ? GP_BACKEND_REMOTE : g_backend;
    if (mode != kInprocT) o.endpoint = ep.c_str();
    gp_context *ctx = nullptr;
    const gp_status cs = gp_context_create(&o, &ctx);
    unsetenv("GPUPROVER_TRANSPORT");
    if (cs != GP_OK) {
        st.SkipWithError(gp_last_error());
        return;
    }
    const uint64_t n = 1ull << 15, cols = 1024;  // 256 MiB of Goldilocks
    std::vector<uint64_t> host(what ? n * cols : 0, 7);
    gp_buffer *b = nullptr;
    if (what == 2 &&
        gp_buffer_from_host(ctx, GP_FIELD_GOLDILOCKS, 1, n, cols, GP_LAYOUT_COL_MAJOR, host.data(), &b) != GP_OK) {
        st.SkipWithError(gp_last_error());
        gp_context_destroy(ctx);
        return;
    }
    if (what == 2) std::fill(host.begin(), host.end(), 0);  // the download brings the 7s back
    for (auto _ : st) {
        bool ok = true;
        if (what == 1) {
            gp_buffer *t = nullptr;
            ok = gp_buffer_from_host(ctx, GP_FIELD_GOLDILOCKS, 1, n, cols, GP_LAYOUT_COL_MAJOR, host.data(), &t) == GP_OK;
            gp_buffer_destroy(t);
        } else if (what == 2) {
            ok = gp_buffer_to_host(b, GP_LAYOUT_COL_MAJOR, host.data(), host.size() * 8) == GP_OK;
        } else {
            gp_memory_stats ms;
            std::memset(&ms, 0, sizeof ms);
            ms.struct_size = sizeof ms;
            ok = gp_context_memory_stats(ctx, &ms) == GP_OK;
        }
        if (!ok) {
            st.SkipWithError(gp_last_error());
            break;
        }
    }
    if (what) st.SetBytesProcessed((int64_t)st.iterations() * (int64_t)(n * cols * 8));
    if (what == 2 && host[n * cols - 1] != 7) st.SkipWithError("the download differs from the upload");
    gp_buffer_destroy(b);
    gp_context_destroy(ctx);
}

// The floor of the TCP rows: 256 MiB over a plain loopback TCP connection
// of this process (8 MiB writes, one thread reading into one buffer), and
// a one-byte ping-pong (the round trip's floor).
void tcp_floor(benchmark::State &st, bool bulk) {
    const int ls = socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);
    sockaddr_in a{};
    a.sin_family = AF_INET;
    a.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
    socklen_t len = sizeof a;
    if (ls < 0 || bind(ls, reinterpret_cast<sockaddr *>(&a), sizeof a) != 0 || listen(ls, 1) != 0 ||
        getsockname(ls, reinterpret_cast<sockaddr *>(&a), &len) != 0) {
        st.SkipWithError("no loopback socket");
        if (ls >= 0) close(ls);
        return;
    }
    const size_t total = bulk ? 256u << 20 : 1, chunk = 8u << 20;
    const int s = socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);
    int one = 1;
    setsockopt(s, IPPROTO_TCP, TCP_NODELAY, &one, sizeof one);
    if (connect(s, reinterpret_cast<sockaddr *>(&a), sizeof a) != 0) {
        st.SkipWithError("cannot connect on loopback");
        close(s);
        close(ls);
        return;
    }
    const int c = accept(ls, nullptr, nullptr);
    setsockopt(c, IPPROTO_TCP, TCP_NODELAY, &one, sizeof one);
    std::thread peer([c, total] {
        std::vector<char> buf(total);
        for (;;) {
            size_t got = 0;
            while (got < total) {
                const ssize_t r = recv(c, buf.data() + got, total - got, 0);
                if (r <= 0) return;
                got += (size_t)r;
            }
            char ok = 1;
            if (send(c, &ok, 1, MSG_NOSIGNAL) != 1) return;
        }
    });
    std::vector<char> src(total, 7);
    bool ok = true;
    for (auto _ : st) {
        for (size_t o = 0; o < total && ok; o += chunk) {
            const size_t n = std::min(chunk, total - o);
            ok = gp_write_all(s, src.data() + o, n);
        }
        char ack = 0;
        ok = ok && recv(s, &ack, 1, MSG_WAITALL) == 1;
        if (!ok) {
            st.SkipWithError("the loopback connection failed");
            break;
        }
    }
    if (bulk) st.SetBytesProcessed((int64_t)st.iterations() * (int64_t)total);
    shutdown(s, SHUT_RDWR);
    close(s);
    peer.join();
    close(c);
    close(ls);
}

}  // namespace

int main(int argc, char **argv) {
    std::vector<char *> rest;
    for (int i = 0; i < argc; ++i) {
        const std::string a = argv[i];
        if (i > 0 && a.rfind("--server=", 0) == 0) g_server = a.substr(9);
        else if (i > 0 && a.rfind("--tcp=", 0) == 0) g_tcp = a.substr(6);
        else if (i > 0 && a == "--backend=cpu") g_backend = GP_BACKEND_CPU;
        else if (i > 0 && a == "--backend=cuda") g_backend = GP_BACKEND_CUDA;
        else if (i > 0 && a.rfind("--scale=", 0) == 0) g_scale = (uint32_t)std::atoi(a.c_str() + 8);
        else rest.push_back(argv[i]);
    }
    int n = (int)rest.size();
    for (const Workload &w : kWorkloads)
        for (int mode : {kInproc, kServer, kServerCopy})
            benchmark::RegisterBenchmark((std::string(w.name) + "/" + kModeNames[mode]).c_str(),
                                         [&w, mode](benchmark::State &st) { run(st, w, mode); })
                ->Unit(benchmark::kMillisecond)
                ->UseRealTime()
                ->MeasureProcessCPUTime()
                ->Threads(1)
                ->Threads(4)
                ->MinTime(0.5);
    const char *modes[3] = {"inproc", "server", "server_tcp"};
    const char *whats[3] = {"RoundTrip", "Upload256MiB", "Download256MiB"};
    for (int what = 0; what < 3; ++what)
        for (int m = 0; m < 3; ++m)
            for (int grpc = 0; grpc < (m == kInprocT ? 1 : 2); ++grpc) {
                const std::string name = std::string(whats[what]) + "/" + modes[m] + (grpc ? "_grpc" : "");
                benchmark::RegisterBenchmark(name.c_str(), [m, grpc, what](benchmark::State &st) {
                    transport(st, m, grpc != 0, what);
                })->Unit(what ? benchmark::kMillisecond : benchmark::kMicrosecond)->UseRealTime();
            }
    benchmark::RegisterBenchmark("RoundTrip/tcp_floor", [](benchmark::State &st) { tcp_floor(st, false); })
        ->Unit(benchmark::kMicrosecond)
        ->UseRealTime();
    benchmark::RegisterBenchmark("Upload256MiB/tcp_floor", [](benchmark::State &st) { tcp_floor(st, true); })
        ->Unit(benchmark::kMillisecond)
        ->UseRealTime();
    benchmark::Initialize(&n, rest.data());
    benchmark::RunSpecifiedBenchmarks();
    benchmark::Shutdown();
    return 0;
}
