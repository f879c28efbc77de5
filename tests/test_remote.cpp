// SPDX-License-Identifier: MIT OR Apache-2.0
// gpuprover-server and the remote backend (GP_BACKEND_REMOTE), on the CPU
// backend in CI: each test starts its own server process on a unix socket
// and/or 127.0.0.1. The whole CPU suite also runs through a server
// (tests/run_remote.sh); these tests cover what only a server has:
// transports, scheduling, faults, security, load and monitoring. GPU
// variants skip without a device.
#include <fcntl.h>
#include <signal.h>
#include <spawn.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/un.h>
#include <sys/wait.h>
#include <unistd.h>
#include <arpa/inet.h>
#include <netinet/in.h>

#include <atomic>
#include <chrono>
#include <condition_variable>
#include <fstream>
#include <functional>
#include <map>
#include <mutex>
#include <set>
#include <thread>

#include <grpcpp/grpcpp.h>

#include <grpcpp/impl/codegen/client_unary_call.h>
#include <sys/mman.h>

#include "core/merkle_tree.h"
#include "gpuprover.grpc.pb.h"
#include "remote/frame.h"
#include "remote/shm.h"
#include "remote/wire.h"
#include "server/scheduler.h"
#include "test_util.h"

extern char **environ;

using namespace gpt;
using Clock = std::chrono::steady_clock;

namespace {

// The binaries under test; GP_SERVER_BIN and GP_REMOTE_CLIENT_BIN in the
// environment override the build tree's (a copied build).
std::string server_bin() {
    const char *e = std::getenv("GP_SERVER_BIN");
    return e && *e ? e : GP_SERVER_BIN;
}
std::string client_bin() {
    const char *e = std::getenv("GP_REMOTE_CLIENT_BIN");
    return e && *e ? e : GP_REMOTE_CLIENT_BIN;
}

std::string unique_path(const char *tag) {
    static std::atomic<int> n{0};
    return "/tmp/gp-test-" + std::to_string(getpid()) + "-" + tag + "-" + std::to_string(n++);
}

// Spawns `argv` with stdout and stderr to `log`; returns the pid.
pid_t spawn(const std::vector<std::string> &args, const std::string &log) {
    std::vector<char *> argv;
    for (const auto &a : args) argv.push_back(const_cast<char *>(a.c_str()));
    argv.push_back(nullptr);
    posix_spawn_file_actions_t fa;
    posix_spawn_file_actions_init(&fa);
    posix_spawn_file_actions_addopen(&fa, 1, log.c_str(), O_WRONLY | O_CREAT | O_APPEND, 0600);
    posix_spawn_file_actions_adddup2(&fa, 1, 2);
    pid_t pid = -1;
    if (posix_spawn(&pid, argv[0], &fa, nullptr, argv.data(), environ) != 0) pid = -1;
    posix_spawn_file_actions_destroy(&fa);
    return pid;
}

// Waits up to `ms` for `pid` to exit; returns its status or -1.
int wait_exit(pid_t pid, int ms) {
    const auto end = Clock::now() + std::chrono::milliseconds(ms);
    int st = 0;
    while (Clock::now() < end) {
        const pid_t r = waitpid(pid, &st, WNOHANG);
        if (r == pid) return st;
        std::this_thread::sleep_for(std::chrono::milliseconds(10));
    }
    return -1;
}

struct Server {
    pid_t pid = -1;
    std::string sock, log;
    int tcp_port = 0, metrics_port = 0;
    std::vector<std::string> prefix;  // e.g. prlimit: runs the server under it

    // Starts gpuprover-server with `extra` options (and --unix unless
    // `unix` is false); waits until it listens.
    bool start(std::vector<std::string> extra, bool unix_socket = true, const std::string &path = "") {
        if (log.empty()) log = unique_path("log");
        if (unix_socket) sock = path.empty() ? (sock.empty() ? unique_path("sock") : sock) : path;
        std::vector<std::string> args = prefix;
        // GP_TEST_SERVER_GPUS runs these servers on GPUs (default: the CPU pool).
        const char *gpus = std::getenv("GP_TEST_SERVER_GPUS");
        args.insert(args.end(), {server_bin(), "--num-gpus", gpus && *gpus ? gpus : "0"});
        if (unix_socket) args.insert(args.end(), {"--unix", sock});
        args.insert(args.end(), extra.begin(), extra.end());
        const size_t before = read_text_file_or_empty(log).size();
        pid = spawn(args, log);
        if (pid < 0) return false;
        const auto end = Clock::now() + std::chrono::seconds(120);  // a loaded machine's bound
        while (Clock::now() < end) {
            const std::string t = read_text_file_or_empty(log).substr(before);
            const size_t at = t.find("tcp_port=");
            if (at != std::string::npos) {
                tcp_port = std::atoi(t.c_str() + at + 9);
                const size_t mp = t.find("metrics_port=");
                if (mp != std::string::npos) metrics_port = std::atoi(t.c_str() + mp + 13);
                return true;
            }
            if (waitpid(pid, nullptr, WNOHANG) == pid) {
                pid = -1;
                return false;
            }
            std::this_thread::sleep_for(std::chrono::milliseconds(20));
        }
        return false;
    }
    void kill_now(int sig) {
        if (pid < 0) return;
        kill(pid, sig);
        if (wait_exit(pid, 20000) == -1) {
            kill(pid, SIGKILL);
            waitpid(pid, nullptr, 0);
        }
        pid = -1;
    }
    ~Server() {
        kill_now(SIGTERM);
        if (!sock.empty()) {
            unlink(sock.c_str());
            unlink((sock + ".fd").c_str());
            unlink((sock + ".lock").c_str());
        }
        if (!log.empty() && !::testing::Test::HasFailure()) unlink(log.c_str());
    }
    static std::string read_text_file_or_empty(const std::string &p) {
        std::ifstream f(p, std::ios::binary);
        std::stringstream ss;
        ss << f.rdbuf();
        return ss.str();
    }
    std::string tcp() const { return "127.0.0.1:" + std::to_string(tcp_port); }
    // `gpuprover-server --status`.
    std::string status(const std::string &ep = "") const {
        const std::string cmd = server_bin() + " --status " + (ep.empty() ? sock : ep) + " 2>&1";
        std::string out;
        if (FILE *p = popen(cmd.c_str(), "r")) {
            char buf[4096];
            size_t n;
            while ((n = fread(buf, 1, sizeof buf, p)) > 0) out.append(buf, n);
            pclose(p);
        }
        return out;
    }
    // Waits until every session opened has closed and no memory is held:
    // a bound for a loaded machine, not a timing (it returns when drained).
    bool drained(int ms = 180000) const {
        const auto end = Clock::now() + std::chrono::milliseconds(ms);
        while (Clock::now() < end) {
            const std::string s = status();
            unsigned long long o = 0, c = 0;
            const size_t at = s.find("sessions opened ");
            if (at != std::string::npos && std::sscanf(s.c_str() + at, "sessions opened %llu, closed %llu", &o, &c) == 2 &&
                o == c && s.find("0.0 MiB held") != std::string::npos)
                return true;
            std::this_thread::sleep_for(std::chrono::milliseconds(50));
        }
        return false;
    }
};

gp_status remote_ctx(const std::string &ep, CtxPtr *out, gp_priority prio = GP_PRIORITY_NORMAL,
                     const char *token_file = nullptr, bool force_cpu = false) {
    gp_context_options o;
    gp_context_options_init(&o);
    o.backend = GP_BACKEND_REMOTE;
    o.endpoint = ep.c_str();
    o.priority = prio;
    o.token_file = token_file;
    o.force_cpu = force_cpu ? 1 : 0;
    gp_context *raw = nullptr;
    const gp_status st = gp_context_create(&o, &raw);
    out->reset(st == GP_OK ? raw : nullptr);
    return st;
}

// LDE from host in both layouts, a Merkle commitment, a cap and openings:
// everything as bytes.
Bytes workload(gp_context *ctx, gp_field field, uint64_t rows, uint64_t cols, uint64_t seed) {
    const FieldRef &F = field_ref(field);
    Rng rng(seed);
    const HostMat in = random_mat(F, rows, cols, 1, rng);
    Bytes out;
    for (gp_layout layout : {GP_LAYOUT_COL_MAJOR, GP_LAYOUT_ROW_MAJOR}) {
        gp_lde_options o = make_opts(0, 4, 0, 0, GP_ORDER_BIT_REVERSED, layout);
        HostMat lde;
        EXPECT_GP_OK(run_lde(ctx, F, in, o, LdePath::kHost, GP_LAYOUT_ROW_MAJOR, &lde));
        for (uint64_t v : lde.v) out.push_back((uint8_t)v), out.push_back((uint8_t)(v >> 32));
        BufPtr b;
        EXPECT_GP_OK(upload(ctx, F, lde, GP_LAYOUT_COL_MAJOR, &b));
        if (!b) return out;
        gp_merkle_options m;
        gp_merkle_options_init(&m);
        m.perm = field == GP_FIELD_GOLDILOCKS ? GP_PERM_POSEIDON2_GOLDILOCKS_8
                 : field == GP_FIELD_BABYBEAR ? GP_PERM_POSEIDON2_BABYBEAR_16
                                              : GP_PERM_POSEIDON2_KOALABEAR_16;
        m.cap_height = 2;
        gp_merkle_tree *t = nullptr;
        const gp_buffer *mats[1] = {b.get()};
        EXPECT_GP_OK(gp_merkle_commit(ctx, mats, 1, &m, &t));
        if (!t) return out;
        const Bytes cap = merkle_cap_bytes(t);
        out.insert(out.end(), cap.begin(), cap.end());
        uint64_t rb = 0, pb = 0;
        EXPECT_GP_OK(gp_merkle_opening_size(t, &rb, &pb));
        const uint64_t idx[2] = {1, lde.rows - 2};
        Bytes rws(2 * rb), paths(2 * pb);
        EXPECT_GP_OK(gp_merkle_open(t, idx, 2, rws.data(), rws.size(), paths.data(), paths.size()));
        out.insert(out.end(), rws.begin(), rws.end());
        out.insert(out.end(), paths.begin(), paths.end());
        gp_merkle_tree_destroy(t);
    }
    return out;
}

Bytes local_workload(gp_field field, uint64_t rows, uint64_t cols, uint64_t seed) {
    gp_context_options o;
    gp_context_options_init(&o);
    o.backend = GP_BACKEND_CPU;
    gp_context *raw = nullptr;
    EXPECT_EQ(gp_context_create(&o, &raw), GP_OK);
    CtxPtr c(raw);
    return workload(c.get(), field, rows, cols, seed);
}

// A long job (about a second on one CPU thread): a Merkle commitment.
gp_status long_job(gp_context *ctx, uint64_t rows = 1u << 15) {
    gp_buffer *b = nullptr;
    gp_status st = gp_buffer_create(ctx, GP_FIELD_GOLDILOCKS, 1, rows, 64, &b);
    if (st != GP_OK) return st;
    gp_merkle_options m;
    gp_merkle_options_init(&m);
    m.perm = GP_PERM_POSEIDON2_GOLDILOCKS_16;
    gp_merkle_tree *t = nullptr;
    const gp_buffer *mats[1] = {b};
    st = gp_merkle_commit(ctx, mats, 1, &m, &t);
    gp_merkle_tree_destroy(t);
    gp_buffer_destroy(b);
    return st;
}

}  // namespace

TEST(Remote, SameBytesOverUnixSocketAndTcp) {
    Server s;
    ASSERT_TRUE(s.start({"--tcp", "127.0.0.1:0", "--cpu-jobs", "2"})) << s.log;
    for (gp_field f : {GP_FIELD_GOLDILOCKS, GP_FIELD_BABYBEAR}) {
        // 2^11 x 600 Goldilocks is 9.4 MiB: more than one 8 MiB chunk on TCP.
        const uint64_t rows = f == GP_FIELD_GOLDILOCKS ? 1u << 11 : 1u << 9, cols = f == GP_FIELD_GOLDILOCKS ? 600 : 7;
        const Bytes want = local_workload(f, rows, cols, 7);
        for (const std::string &ep : {s.sock, "unix:" + s.sock, s.tcp()}) {
            CtxPtr c;
            ASSERT_GP_OK(remote_ctx(ep, &c));
            EXPECT_EQ(gp_context_backend(c.get()), GP_BACKEND_REMOTE);
            EXPECT_EQ(gp_context_remote_fallback(c.get()), nullptr);
            char name[256];
            ASSERT_GP_OK(gp_context_device_name(c.get(), name, sizeof name));
            EXPECT_NE(std::string(name).find("gpuprover-server"), std::string::npos) << name;
            EXPECT_TRUE(bytes_equal(workload(c.get(), f, rows, cols, 7), want)) << ep;
        }
    }
    EXPECT_TRUE(s.drained()) << s.status();
}

TEST(Remote, AutoUsesTheServerOrFallsBackAndSaysWhy) {
    Server s;
    ASSERT_TRUE(s.start({}));
    gp_context_options o;
    gp_context_options_init(&o);
    o.backend = GP_BACKEND_AUTO;
    o.endpoint = s.sock.c_str();
    gp_context *raw = nullptr;
    ASSERT_EQ(gp_context_create(&o, &raw), GP_OK) << gp_last_error();
    EXPECT_EQ(gp_context_backend(raw), GP_BACKEND_REMOTE);
    EXPECT_EQ(gp_context_remote_fallback(raw), nullptr);
    gp_context_destroy(raw);

    const std::string gone = unique_path("nothing");
    o.endpoint = gone.c_str();
    ASSERT_EQ(gp_context_create(&o, &raw), GP_OK) << gp_last_error();
    EXPECT_NE(gp_context_backend(raw), GP_BACKEND_REMOTE);
    ASSERT_NE(gp_context_remote_fallback(raw), nullptr);
    EXPECT_NE(std::string(gp_context_remote_fallback(raw)).find(gone), std::string::npos);
    gp_context_destroy(raw);

    o.backend = GP_BACKEND_REMOTE;
    EXPECT_GP_ERR(gp_context_create(&o, &raw), GP_ERR_REMOTE);
    o.endpoint = nullptr;
    unsetenv("GPUPROVER_SERVER");
    EXPECT_GP_ERR(gp_context_create(&o, &raw), GP_ERR_INVALID_ARGUMENT);
    setenv("GPUPROVER_SERVER", s.sock.c_str(), 1);  // the variable provers already set
    ASSERT_EQ(gp_context_create(&o, &raw), GP_OK) << gp_last_error();
    EXPECT_EQ(gp_context_backend(raw), GP_BACKEND_REMOTE);
    gp_context_destroy(raw);
    unsetenv("GPUPROVER_SERVER");
    o.endpoint = "host-without-port:";
    EXPECT_GP_ERR(gp_context_create(&o, &raw), GP_ERR_INVALID_ARGUMENT);
    store_raw(&o.priority, 9);
    o.endpoint = s.sock.c_str();
    EXPECT_GP_ERR(gp_context_create(&o, &raw), GP_ERR_INVALID_ARGUMENT);
}

// gp_host_alloc on a unix-socket session is shared with the server: LDE
// input, downloads and permutation states are handed over in place. Over
// TCP it is ordinary memory. The bytes are the in-process ones either way.
TEST(Remote, HostAllocIsSharedWithTheServer) {
    Server s;
    ASSERT_TRUE(s.start({"--tcp", "127.0.0.1:0"}));
    const FieldRef &F = field_ref(GP_FIELD_BABYBEAR);
    Rng rng(11);
    const HostMat in = random_mat(F, 128, 9, 1, rng);
    gp_lde_options o = make_opts(0, 2, 0, 0, GP_ORDER_BIT_REVERSED);
    const HostMat want = naive_lde_for(F, in, o);
    for (const std::string &ep : {s.sock, s.tcp()}) {
        CtxPtr c;
        ASSERT_GP_OK(remote_ctx(ep, &c));
        void *mem = nullptr, *back = nullptr, *states = nullptr;
        ASSERT_GP_OK(gp_host_alloc(c.get(), in.v.size() * 4, &mem));
        for (size_t i = 0; i < in.v.size(); ++i) static_cast<uint32_t *>(mem)[i] = (uint32_t)in.v[i];
        BufPtr out;
        ASSERT_GP_OK(create_buffer(c.get(), F, 1, 256, 9, &out));
        ASSERT_GP_OK(gp_lde_batch_host(c.get(), F.field, 1, mem, 128, 9, &o, out.get()));
        ASSERT_GP_OK(gp_host_alloc(c.get(), 256 * 9 * 4 + 100, &back));
        ASSERT_GP_OK(gp_buffer_to_host(out.get(), GP_LAYOUT_COL_MAJOR, static_cast<char *>(back) + 100, 256 * 9 * 4));
        for (size_t i = 0; i < want.v.size(); ++i)
            ASSERT_EQ(static_cast<uint32_t *>(static_cast<void *>(static_cast<char *>(back) + 100))[i], (uint32_t)want.v[i])
                << ep << " " << i;
        // Permutation states in place, against an in-process context.
        std::vector<uint32_t> st(16 * 24);
        for (auto &v : st) v = (uint32_t)(rng.next() % F.p);
        ASSERT_GP_OK(gp_host_alloc(c.get(), st.size() * 4, &states));
        std::memcpy(states, st.data(), st.size() * 4);
        ASSERT_GP_OK(gp_permute_batch(c.get(), GP_PERM_POSEIDON2_BABYBEAR_24, states, 16));
        CtxPtr local;
        ASSERT_GP_OK(make_context(GP_BACKEND_CPU, &local));
        ASSERT_GP_OK(gp_permute_batch(local.get(), GP_PERM_POSEIDON2_BABYBEAR_24, st.data(), 16));
        EXPECT_EQ(std::memcmp(states, st.data(), st.size() * 4), 0) << ep;
        ASSERT_GP_OK(gp_host_free(c.get(), mem));
        ASSERT_GP_OK(gp_host_free(c.get(), states));
        // `back` goes with the context.
    }
    EXPECT_TRUE(s.drained()) << s.status();
}

// Several endpoints: sessions are spread over them (unix sockets in turn,
// TCP addresses by gRPC's round_robin policy), an unreachable one is
// skipped, and a server that goes away stops getting sessions.
TEST(Remote, SeveralEndpointsShareTheSessions) {
    Server a, b;
    ASSERT_TRUE(a.start({"--tcp", "127.0.0.1:0"}));
    ASSERT_TRUE(b.start({"--tcp", "127.0.0.1:0"}));
    const std::string dead = unique_path("dead");
    {
        std::vector<CtxPtr> cs(6);
        for (auto &c : cs) ASSERT_GP_OK(remote_ctx(a.sock + "," + dead + "," + b.sock, &c));
        const std::string sa = a.status(), sb = b.status();
        unsigned na = 0, nb = 0;
        ASSERT_EQ(std::sscanf(sa.c_str() + sa.find("sessions opened"), "sessions opened %u", &na), 1) << sa;
        ASSERT_EQ(std::sscanf(sb.c_str() + sb.find("sessions opened"), "sessions opened %u", &nb), 1) << sb;
        // In turn from a rotating start; the unreachable one's turns go to the next.
        EXPECT_GE(na, 2u);
        EXPECT_GE(nb, 2u);
        EXPECT_EQ(na + nb, 6u);
        for (auto &c : cs)
            EXPECT_TRUE(bytes_equal(workload(c.get(), GP_FIELD_GOLDILOCKS, 16, 2, 5),
                                    local_workload(GP_FIELD_GOLDILOCKS, 16, 2, 5)));
    }
    const std::string both = a.tcp() + "," + b.tcp();
    {
        std::vector<CtxPtr> cs(6);
        for (auto &c : cs) ASSERT_GP_OK(remote_ctx(both, &c));
    }
    b.kill_now(SIGKILL);
    {
        std::vector<CtxPtr> cs(4);
        for (auto &c : cs) {
            ASSERT_GP_OK(remote_ctx(both, &c));
            EXPECT_TRUE(bytes_equal(workload(c.get(), GP_FIELD_BABYBEAR, 16, 2, 6),
                                    local_workload(GP_FIELD_BABYBEAR, 16, 2, 6)));
        }
    }
    EXPECT_TRUE(a.drained()) << a.status();
}

TEST(Remote, RemoteBuffersHaveNoLocalAddress) {
    Server s;
    ASSERT_TRUE(s.start({}));
    CtxPtr c;
    ASSERT_GP_OK(remote_ctx(s.sock, &c));
    BufPtr b;
    const FieldRef &F = field_ref(GP_FIELD_GOLDILOCKS);
    ASSERT_GP_OK(create_buffer(c.get(), F, 1, 8, 2, &b));
    void *p = nullptr;
    EXPECT_GP_ERR(gp_buffer_data(b.get(), &p), GP_ERR_UNSUPPORTED);
    std::vector<uint64_t> mem(16, 1);
    gp_buffer *w = nullptr;
    EXPECT_GP_ERR(gp_buffer_wrap(c.get(), GP_FIELD_GOLDILOCKS, 1, 8, 2, mem.data(), &w), GP_ERR_UNSUPPORTED);
}

// A Merkle commitment of a buffer made beforehand: on a one-thread CPU
// server, about a second for 2^16 rows.
gp_status commit_job(gp_context *ctx, gp_buffer *b) {
    gp_merkle_options m;
    gp_merkle_options_init(&m);
    m.perm = GP_PERM_POSEIDON2_GOLDILOCKS_16;
    gp_merkle_tree *t = nullptr;
    const gp_buffer *mats[1] = {b};
    const gp_status st = gp_merkle_commit(ctx, mats, 1, &m, &t);
    gp_merkle_tree_destroy(t);
    return st;
}

// With one job at a time and no aging, a HIGH job queued behind LOW ones
// runs next. (A job is one request; each commitment here is two, a small
// allocation and the commitment, so a LOW job may slip into the moment
// between HIGH's two: at most one LOW finishes first.)
TEST(Remote, HighPriorityOvertakesQueuedLowJobs) {
    Server s;
    ASSERT_TRUE(s.start({"--cpu-jobs", "1", "--cpu-threads", "1", "--aging-ms", "0"}));
    const FieldRef &F = field_ref(GP_FIELD_GOLDILOCKS);
    CtxPtr blk, low[3], high;
    BufPtr bb, lb[3], hb;
    ASSERT_GP_OK(remote_ctx(s.sock, &blk, GP_PRIORITY_LOW));
    ASSERT_GP_OK(create_buffer(blk.get(), F, 1, 1u << 16, 64, &bb));
    for (int i = 0; i < 3; ++i) {
        ASSERT_GP_OK(remote_ctx(s.sock, &low[i], GP_PRIORITY_LOW));
        ASSERT_GP_OK(create_buffer(low[i].get(), F, 1, 1u << 12, 64, &lb[i]));
    }
    ASSERT_GP_OK(remote_ctx(s.sock, &high, GP_PRIORITY_HIGH));
    ASSERT_GP_OK(create_buffer(high.get(), F, 1, 1u << 12, 64, &hb));
    std::atomic<int> ticket{0};
    int blocker_done = -1, high_done = -1, low_done[3] = {-1, -1, -1};
    std::thread blocker([&] {
        EXPECT_GP_OK(commit_job(blk.get(), bb.get()));
        blocker_done = ticket++;
    });
    std::this_thread::sleep_for(std::chrono::milliseconds(300));  // the blocker runs
    std::vector<std::thread> ts;
    for (int i = 0; i < 3; ++i) {
        ts.emplace_back([&, i] {
            EXPECT_GP_OK(commit_job(low[i].get(), lb[i].get()));
            low_done[i] = ticket++;
        });
        std::this_thread::sleep_for(std::chrono::milliseconds(50));
    }
    ts.emplace_back([&] {
        EXPECT_GP_OK(commit_job(high.get(), hb.get()));
        high_done = ticket++;
    });
    for (auto &t : ts) t.join();
    blocker.join();
    EXPECT_EQ(blocker_done, 0) << "the blocker must still have been running when the others queued";
    int lows_first = 0;
    for (int i = 0; i < 3; ++i) lows_first += low_done[i] < high_done;
    EXPECT_LE(lows_first, 1) << "high finished " << high_done << "th";
    const std::string st = s.status();
    EXPECT_NE(st.find("high   queued 0 running 0 done 3 failed 0"), std::string::npos) << st;  // two allocations, one commitment
}

// The queue's order, with arrival times set by the test: strict priority
// without aging, and a LOW job that has waited long enough ranking above a
// HIGH job that has just arrived with it.
TEST(RemoteQueue, PriorityThenArrivalThenAging) {
    using gp::server::DeviceQueue;
    for (double aging : {0.0, 100.0}) {
        DeviceQueue q("test", 1, aging);
        const auto now = Clock::now();
        auto never = [] { return false; };
        ASSERT_TRUE(q.acquire(GP_PRIORITY_NORMAL, now, 0, never));  // holds the only slot
        std::vector<int> order;
        std::mutex mu;
        // LOW arrived 500 ms ago, NORMAL 10 ms ago, HIGH now, then HIGH again.
        struct J { int prio; int ago_ms; uint64_t seq; int id; };
        const J jobs[] = {{GP_PRIORITY_LOW, 500, 1, 0}, {GP_PRIORITY_NORMAL, 10, 2, 1}, {GP_PRIORITY_HIGH, 0, 3, 2},
                          {GP_PRIORITY_HIGH, 0, 4, 3}};
        std::vector<std::thread> ts;
        for (const J &j : jobs)
            ts.emplace_back([&, j] {
                ASSERT_TRUE(q.acquire(j.prio, now - std::chrono::milliseconds(j.ago_ms), j.seq, never));
                {
                    std::lock_guard<std::mutex> l(mu);
                    order.push_back(j.id);
                }
                q.release(j.prio, true, 0, 0);
            });
        // All four are queued once the counters say so.
        for (int i = 0; i < 500; ++i) {
            uint64_t queued = 0;
            q.read([&](gp::server::PriorityCounters *c, unsigned) { queued = c[0].queued + c[1].queued + c[2].queued; });
            if (queued == 4) break;
            std::this_thread::sleep_for(std::chrono::milliseconds(2));
        }
        q.release(GP_PRIORITY_NORMAL, true, 0, 0);
        for (auto &t : ts) t.join();
        if (aging == 0) EXPECT_EQ(order, (std::vector<int>{2, 3, 1, 0})) << "strict: HIGH, HIGH, NORMAL, LOW";
        else EXPECT_EQ(order, (std::vector<int>{0, 2, 3, 1})) << "aged 500 ms at 100 ms per level, LOW ranks 5";
        uint64_t done = 0;
        q.read([&](gp::server::PriorityCounters *c, unsigned) { done = c[0].done + c[1].done + c[2].done; });
        EXPECT_EQ(done, 5u);
    }
}

// Under a stream of HIGH jobs (always three queued: each client's calls
// are single jobs, NTTs of a buffer made beforehand), a LOW job runs only
// once the stream ends without aging, and while it goes on with aging.
TEST(Remote, AgingLetsLowPriorityFinishUnderAStreamOfHighJobs) {
    for (int aging : {0, 150}) {
        Server s;
        ASSERT_TRUE(s.start({"--cpu-jobs", "1", "--cpu-threads", "1", "--aging-ms", std::to_string(aging)}));
        const FieldRef &F = field_ref(GP_FIELD_GOLDILOCKS);
        std::atomic<bool> stop{false};
        std::atomic<int> ready{0}, streaming{0};
        std::vector<std::thread> stream;
        for (int i = 0; i < 4; ++i)
            stream.emplace_back([&] {
                CtxPtr c;
                BufPtr b;
                ASSERT_GP_OK(remote_ctx(s.sock, &c, GP_PRIORITY_HIGH));
                ASSERT_GP_OK(create_buffer(c.get(), F, 1, 1u << 15, 16, &b));
                ++streaming;
                ++ready;
                while (ready < 4) std::this_thread::yield();
                const auto end = Clock::now() + std::chrono::seconds(aging ? 30 : 3);
                while (!stop && Clock::now() < end) EXPECT_GP_OK(gp_ntt_batch(c.get(), b.get(), nullptr));
                --streaming;
            });
        CtxPtr low;
        BufPtr lb;
        ASSERT_GP_OK(remote_ctx(s.sock, &low, GP_PRIORITY_LOW));
        ASSERT_GP_OK(create_buffer(low.get(), F, 1, 1u << 15, 16, &lb));
        while (ready < 4) std::this_thread::yield();
        std::this_thread::sleep_for(std::chrono::milliseconds(300));
        EXPECT_GP_OK(gp_ntt_batch(low.get(), lb.get(), nullptr));
        const int still = streaming;
        stop = true;
        for (auto &t : stream) t.join();
        if (aging) EXPECT_EQ(still, 4) << "the low job waited for the stream to end";
        else EXPECT_EQ(still, 0) << "without aging the low job overtook queued high jobs";
    }
}

// A gp_remote_client "hold" process on the server at `sock` (output to
// `out`), returned once it reports its commitment running (at most 120 s).
pid_t spawn_running_client(const std::string &sock, const std::string &out) {
    const pid_t child = spawn({client_bin(), "hold", sock}, out);
    if (child <= 0) return child;
    const auto end = Clock::now() + std::chrono::seconds(120);
    while (Clock::now() < end && Server::read_text_file_or_empty(out).find("running") == std::string::npos)
        std::this_thread::sleep_for(std::chrono::milliseconds(20));
    return child;
}

TEST(Remote, ClientKilledMidJobReleasesEverything) {
    Server s;
    ASSERT_TRUE(s.start({"--cpu-jobs", "2"}));
    const std::string out = unique_path("client");
    const pid_t child = spawn_running_client(s.sock, out);
    ASSERT_GT(child, 0);
    std::this_thread::sleep_for(std::chrono::milliseconds(300));  // inside a commitment
    kill(child, SIGKILL);
    waitpid(child, nullptr, 0);
    unlink(out.c_str());
    EXPECT_TRUE(s.drained()) << s.status();
    CtxPtr c;
    ASSERT_GP_OK(remote_ctx(s.sock, &c));
    EXPECT_TRUE(bytes_equal(workload(c.get(), GP_FIELD_GOLDILOCKS, 64, 3, 1), local_workload(GP_FIELD_GOLDILOCKS, 64, 3, 1)));
}

TEST(Remote, ServerKilledMidJobGivesAClearErrorAndARestartServesAgain) {
    Server s;
    ASSERT_TRUE(s.start({"--cpu-threads", "1"}));
    CtxPtr c;
    ASSERT_GP_OK(remote_ctx(s.sock, &c));
    gp_status st = GP_OK;
    std::string msg;
    std::thread t([&] {
        st = long_job(c.get(), 1u << 17);
        msg = gp_last_error();
    });
    std::this_thread::sleep_for(std::chrono::milliseconds(500));
    s.kill_now(SIGKILL);
    t.join();
    EXPECT_EQ(st, GP_ERR_REMOTE) << msg;
    EXPECT_NE(msg.find("lost"), std::string::npos) << msg;
    BufPtr b;
    EXPECT_GP_ERR(create_buffer(c.get(), field_ref(GP_FIELD_GOLDILOCKS), 1, 8, 1, &b), GP_ERR_REMOTE);
    c.reset();  // destroying a context whose server is gone does not hang
    ASSERT_TRUE(s.start({}, true, s.sock));
    ASSERT_GP_OK(remote_ctx(s.sock, &c));
    EXPECT_TRUE(bytes_equal(workload(c.get(), GP_FIELD_BABYBEAR, 32, 2, 3), local_workload(GP_FIELD_BABYBEAR, 32, 2, 3)));
}

// SIGTERM: the job running finishes within the grace period, the session
// then ends (later calls fail clearly), and the server exits. The grace
// period is far beyond the job's time on a loaded machine; the server exits
// as soon as its last session has closed, not at the end of the period.
TEST(Remote, ShutdownFinishesTheRunningJobAndRefusesMore) {
    Server s;
    ASSERT_TRUE(s.start({"--cpu-threads", "1", "--grace-ms", "600000"}));
    CtxPtr c;
    ASSERT_GP_OK(remote_ctx(s.sock, &c));
    BufPtr b;
    ASSERT_GP_OK(create_buffer(c.get(), field_ref(GP_FIELD_GOLDILOCKS), 1, 1u << 16, 64, &b));
    gp_status st = GP_ERR_INTERNAL;
    std::thread t([&] { st = commit_job(c.get(), b.get()); });
    std::this_thread::sleep_for(std::chrono::milliseconds(300));
    kill(s.pid, SIGTERM);
    t.join();
    EXPECT_EQ(st, GP_OK) << "the running job finishes";
    BufPtr more;
    EXPECT_GP_ERR(create_buffer(c.get(), field_ref(GP_FIELD_GOLDILOCKS), 1, 8, 1, &more), GP_ERR_REMOTE);
    b.reset();  // its session is gone; destroying it does not hang
    const int code = wait_exit(s.pid, 300000);
    s.pid = -1;
    EXPECT_TRUE(code != -1 && WIFEXITED(code) && WEXITSTATUS(code) == 0) << code;
    EXPECT_NE(access(s.sock.c_str(), F_OK), 0) << "the socket is removed";
    CtxPtr late;
    EXPECT_GP_ERR(remote_ctx(s.sock, &late), GP_ERR_REMOTE);
}

TEST(Remote, MalformedAndOversizedFramesAreRefused) {
    Server s;
    ASSERT_TRUE(s.start({"--tcp", "127.0.0.1:0", "--max-message-mib", "1"}));
    // Garbage on the gRPC socket and on the shared-memory side socket.
    for (const std::string &path : {s.sock, s.sock + ".fd"}) {
        for (int round = 0; round < 3; ++round) {
            const int fd = socket(AF_UNIX, SOCK_STREAM, 0);
            sockaddr_un a{};
            a.sun_family = AF_UNIX;
            std::strncpy(a.sun_path, path.c_str(), sizeof a.sun_path - 1);
            ASSERT_EQ(connect(fd, reinterpret_cast<sockaddr *>(&a), sizeof a), 0) << path;
            std::vector<char> junk(round == 0 ? 16 : 70000);
            Rng rng(round);
            for (auto &ch : junk) ch = (char)rng.next();
            if (round == 2) std::memcpy(junk.data(), "PRI * HTTP/2.0\r\n\r\nSM\r\n\r\n", 24);  // a preface, then junk
            (void)!write(fd, junk.data(), junk.size());
            close(fd);
        }
    }
    // A TCP client's 8 MiB chunks exceed the 1 MiB limit: refused, not fatal.
    {
        CtxPtr c;
        ASSERT_GP_OK(remote_ctx(s.tcp(), &c));
        const FieldRef &F = field_ref(GP_FIELD_GOLDILOCKS);
        Rng rng(5);
        BufPtr b;
        EXPECT_GP_ERR(upload(c.get(), F, random_mat(F, 1u << 18, 8, 1, rng), GP_LAYOUT_COL_MAJOR, &b), GP_ERR_REMOTE);
    }
    {
        CtxPtr c;
        ASSERT_GP_OK(remote_ctx(s.sock, &c));
        EXPECT_TRUE(bytes_equal(workload(c.get(), GP_FIELD_GOLDILOCKS, 32, 3, 2), local_workload(GP_FIELD_GOLDILOCKS, 32, 3, 2)));
    }
    EXPECT_TRUE(s.drained()) << s.status();
}

TEST(Remote, TcpClientsNeedTheToken) {
    const std::string tok = unique_path("token"), bad = unique_path("badtoken");
    std::ofstream(tok) << "s3cret-token\n";
    std::ofstream(bad) << "wrong\n";
    chmod(tok.c_str(), 0600);
    Server s;
    ASSERT_TRUE(s.start({"--tcp", "127.0.0.1:0", "--token-file", tok}));
    CtxPtr c;
    EXPECT_GP_ERR(remote_ctx(s.tcp(), &c), GP_ERR_REMOTE);
    EXPECT_NE(std::string(gp_last_error()).find("token"), std::string::npos) << gp_last_error();
    EXPECT_GP_ERR(remote_ctx(s.tcp(), &c, GP_PRIORITY_NORMAL, bad.c_str()), GP_ERR_REMOTE);
    EXPECT_GP_OK(remote_ctx(s.tcp(), &c, GP_PRIORITY_NORMAL, tok.c_str()));
    c.reset();
    EXPECT_GP_OK(remote_ctx(s.sock, &c));  // the unix socket's permissions guard it
    c.reset();
    // Listening beyond loopback without a token is refused at start.
    Server open;
    EXPECT_FALSE(open.start({"--tcp", "0.0.0.0:0"}, false));
    struct stat st;
    ASSERT_EQ(stat(s.sock.c_str(), &st), 0);
    EXPECT_EQ(st.st_mode & 0777, 0660u);
    unlink(tok.c_str());
    unlink(bad.c_str());
}

TEST(Remote, QuotaAndMemory) {
    Server s;
    ASSERT_TRUE(s.start({"--quota-mib", "1"}));
    CtxPtr c;
    ASSERT_GP_OK(remote_ctx(s.sock, &c));
    const FieldRef &F = field_ref(GP_FIELD_GOLDILOCKS);
    BufPtr small, big;
    ASSERT_GP_OK(create_buffer(c.get(), F, 1, 1u << 12, 16, &small));  // 512 KiB
    EXPECT_GP_ERR(create_buffer(c.get(), F, 1, 1u << 12, 32, &big), GP_ERR_DEVICE_OUT_OF_MEMORY);
    EXPECT_NE(std::string(gp_last_error()).find("quota"), std::string::npos) << gp_last_error();
    gp_memory_stats ms = stats_of(c.get());
    EXPECT_EQ(ms.buffer_bytes, 512u << 10);
    small.reset();
    ASSERT_GP_OK(create_buffer(c.get(), F, 1, 1u << 12, 32, &big));  // fits once freed
    EXPECT_NE(s.status().find("1.0 MiB held"), std::string::npos) << s.status();
}

// A device's memory budget: a job that does not fit waits while another
// job of the device runs and succeeds once memory is freed; one that can
// never fit fails.
TEST(Remote, JobsWaitForMemoryOthersWillFree) {
    Server s;
    ASSERT_TRUE(s.start({"--cpu-jobs", "2", "--cpu-threads", "1", "--device-memory-mib", "48"}));
    const FieldRef &F = field_ref(GP_FIELD_GOLDILOCKS);
    CtxPtr a, b, c;
    ASSERT_GP_OK(remote_ctx(s.sock, &a));
    ASSERT_GP_OK(remote_ctx(s.sock, &b));
    ASSERT_GP_OK(remote_ctx(s.sock, &c));
    BufPtr big;
    ASSERT_GP_OK(create_buffer(a.get(), F, 1, 1u << 16, 64, &big));  // 32 MiB
    Clock::time_point a_done;
    std::thread holder([&] {
        EXPECT_GP_OK(commit_job(a.get(), big.get()));  // +4 MiB of tree for about a second
        a_done = Clock::now();
        big.reset();  // frees the 32 MiB
    });
    std::this_thread::sleep_for(std::chrono::milliseconds(300));
    BufPtr mine;
    ASSERT_GP_OK(create_buffer(b.get(), F, 1, 1u << 15, 64, &mine));  // 16 MiB: 52 > 48 until A frees
    const auto t1 = Clock::now();
    holder.join();
    EXPECT_GE(t1, a_done) << "the allocation waited for the holder's commitment to end";
    BufPtr never;
    EXPECT_GP_ERR(create_buffer(c.get(), F, 1, 1u << 17, 64, &never), GP_ERR_DEVICE_OUT_OF_MEMORY);  // 64 MiB
    EXPECT_NE(std::string(gp_last_error()).find("budget"), std::string::npos) << gp_last_error();
}

TEST(Remote, ForceCpuSessionsRunOnTheCpuPool) {
    Server s;
    ASSERT_TRUE(s.start({}));
    CtxPtr c;
    ASSERT_GP_OK(remote_ctx(s.sock, &c, GP_PRIORITY_HIGH, nullptr, true));
    char name[256];
    ASSERT_GP_OK(gp_context_device_name(c.get(), name, sizeof name));
    EXPECT_NE(std::string(name).find(": cpu"), std::string::npos) << name;
    EXPECT_TRUE(bytes_equal(workload(c.get(), GP_FIELD_KOALABEAR, 16, 5, 9), local_workload(GP_FIELD_KOALABEAR, 16, 5, 9)));
}

TEST(Remote, MetricsInPrometheusFormat) {
    // A free port for the metrics endpoint.
    const int fd = socket(AF_INET, SOCK_STREAM, 0);
    sockaddr_in a{};
    a.sin_family = AF_INET;
    a.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
    ASSERT_EQ(bind(fd, reinterpret_cast<sockaddr *>(&a), sizeof a), 0);
    socklen_t len = sizeof a;
    getsockname(fd, reinterpret_cast<sockaddr *>(&a), &len);
    const int port = ntohs(a.sin_port);
    close(fd);
    Server s;
    ASSERT_TRUE(s.start({"--metrics", "127.0.0.1:" + std::to_string(port)}));
    {
        CtxPtr c;
        ASSERT_GP_OK(remote_ctx(s.sock, &c, GP_PRIORITY_LOW));
        workload(c.get(), GP_FIELD_GOLDILOCKS, 16, 2, 1);
    }
    const int c = socket(AF_INET, SOCK_STREAM, 0);
    ASSERT_EQ(connect(c, reinterpret_cast<sockaddr *>(&a), sizeof a), 0);
    const char req[] = "GET /metrics HTTP/1.0\r\n\r\n";
    ASSERT_EQ(write(c, req, sizeof req - 1), (ssize_t)(sizeof req - 1));
    std::string body;
    char buf[4096];
    ssize_t n;
    while ((n = read(c, buf, sizeof buf)) > 0) body.append(buf, (size_t)n);
    close(c);
    EXPECT_NE(body.find("200 OK"), std::string::npos) << body;
    EXPECT_NE(body.find("gpuprover_jobs{device=\"cpu\",priority=\"low\",state=\"done\"}"), std::string::npos) << body;
    EXPECT_EQ(body.find("gpuprover_jobs{device=\"cpu\",priority=\"low\",state=\"done\"} 0\n"), std::string::npos) << body;
    EXPECT_NE(body.find("gpuprover_job_ms{"), std::string::npos);
    EXPECT_NE(body.find("gpuprover_sessions_total{event=\"closed\"} 1"), std::string::npos) << body;
}

// 16 client processes x 50 mixed jobs against one server: every result
// equals the in-process one, and nothing is held afterwards.
TEST(Remote, LoadSixteenClientsFiftyJobsEach) {
    Server s;
    ASSERT_TRUE(s.start({"--cpu-jobs", "2", "--cpu-threads", "1", "--tcp", "127.0.0.1:0"}));
    auto rss_kib = [&] {
        const std::string st = Server::read_text_file_or_empty("/proc/" + std::to_string(s.pid) + "/status");
        const size_t at = st.find("VmRSS:");
        return at == std::string::npos ? 0ul : std::strtoul(st.c_str() + at + 6, nullptr, 10);
    };
    const unsigned long rss_before = rss_kib();
    const auto t0 = Clock::now();
    std::vector<pid_t> kids;
    std::vector<std::string> logs;
    for (int i = 0; i < 16; ++i) {
        logs.push_back(unique_path("load"));
        const std::string ep = i % 4 == 3 ? s.tcp() : s.sock;  // a quarter over TCP
        kids.push_back(spawn({client_bin(), "load", ep, std::to_string(i + 1), "50", std::to_string(i % 3)},
                             logs.back()));
        ASSERT_GT(kids.back(), 0);
    }
    for (size_t i = 0; i < kids.size(); ++i) {
        const int st = wait_exit(kids[i], 600000);
        if (st == -1) kill(kids[i], SIGKILL);
        EXPECT_TRUE(st != -1 && WIFEXITED(st) && WEXITSTATUS(st) == 0)
            << "client " << i << ": " << Server::read_text_file_or_empty(logs[i]);
        unlink(logs[i].c_str());
    }
    const double secs = std::chrono::duration<double>(Clock::now() - t0).count();
    EXPECT_TRUE(s.drained()) << s.status();
    const std::string st = s.status();
    std::printf("load: 16 clients x 50 jobs in %.1f s; server RSS %lu KiB before, %lu KiB after\n%s", secs,
                rss_before, rss_kib(), st.c_str());
    EXPECT_NE(st.find("sessions opened 16, closed 16"), std::string::npos) << st;
}

// ---- placement by load, on emulated devices (--cpu-devices) ----

namespace {

// The server's device of a remote context: "gpuprover-server PATH: cpu:2"
// gives "cpu:2".
std::string server_device(gp_context *ctx) {
    char name[256] = {0};
    if (gp_context_device_name(ctx, name, sizeof name) != GP_OK) return "";
    const std::string n = name;
    const size_t at = n.rfind(": ");
    return at == std::string::npos ? n : n.substr(at + 2);
}

// `count` remote contexts opened at once: every thread waits until all are
// ready (a bound, not a timing), then opens its context.
std::vector<CtxPtr> open_at_once(const std::string &ep, int count) {
    std::vector<CtxPtr> cs(count);
    std::vector<gp_status> st(count, GP_ERR_INTERNAL);
    std::vector<std::string> why(count);
    std::atomic<int> ready{0};
    std::vector<std::thread> ts;
    for (int i = 0; i < count; ++i)
        ts.emplace_back([&, i] {
            ++ready;
            const auto end = Clock::now() + std::chrono::seconds(60);
            while (ready.load() < count && Clock::now() < end) std::this_thread::yield();
            st[i] = remote_ctx(ep, &cs[i]);
            if (st[i] != GP_OK) why[i] = gp_last_error();  // the thread's own
        });
    for (auto &t : ts) t.join();
    for (int i = 0; i < count; ++i) EXPECT_EQ(st[i], GP_OK) << "session " << i << ": " << why[i];
    return cs;
}

// From `gpuprover-server --status`: the sessions and load of device `dev`
// ("device cpu:1: 2 concurrent jobs, 1 sessions, 0.0 MiB held of 0.0 MiB,
// load 1"); false when the line is missing.
bool device_figures(const std::string &status, const std::string &dev, unsigned *sessions, unsigned *load) {
    const size_t at = status.find("device " + dev + ": ");
    if (at == std::string::npos) return false;
    unsigned k = 0, s = 0, l = 0;
    double held = 0, total = 0;
    if (std::sscanf(status.c_str() + at + 9 + dev.size(),
                    "%u concurrent jobs, %u sessions, %lf MiB held of %lf MiB, load %u", &k, &s, &held, &total,
                    &l) != 5)
        return false;
    if (sessions) *sessions = s;
    if (load) *load = l;
    return true;
}

unsigned device_sessions(const std::string &status, const std::string &dev) {
    unsigned s = ~0u;
    device_figures(status, dev, &s, nullptr);
    return s;
}

// Polls the server's status until `pred` holds; false when it never does
// within a loaded machine's bound.
bool status_until(const Server &s, const std::function<bool(const std::string &)> &pred, int ms = 120000) {
    const auto end = Clock::now() + std::chrono::milliseconds(ms);
    while (Clock::now() < end) {
        if (pred(s.status())) return true;
        std::this_thread::sleep_for(std::chrono::milliseconds(20));
    }
    return false;
}

// GET /metrics from the server's metrics port.
std::string metrics_of(const Server &s) {
    const int c = socket(AF_INET, SOCK_STREAM, 0);
    sockaddr_in a{};
    a.sin_family = AF_INET;
    a.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
    a.sin_port = htons((uint16_t)s.metrics_port);
    std::string body;
    if (c >= 0 && connect(c, reinterpret_cast<sockaddr *>(&a), sizeof a) == 0) {
        const char req[] = "GET /metrics HTTP/1.0\r\n\r\n";
        if (write(c, req, sizeof req - 1) == (ssize_t)(sizeof req - 1)) {
            char buf[4096];
            ssize_t n;
            while ((n = read(c, buf, sizeof buf)) > 0) body.append(buf, (size_t)n);
        }
    }
    if (c >= 0) close(c);
    return body;
}

// A metric's value, -1 when absent.
long long metric(const std::string &body, const std::string &series) {
    const size_t at = body.find("\n" + series + " ");
    return at == std::string::npos ? -1 : std::atoll(body.c_str() + at + series.size() + 2);
}

std::string cpu_dev(int i) { return "cpu:" + std::to_string(i); }

}  // namespace

// Sessions opened together all saw the same free memory and landed on one
// device; placed by load, four at once take the four devices, each runs
// its jobs there, and the bytes are the in-process ones.
TEST(RemotePlacement, SessionsOpenedAtOnceTakeDistinctDevices) {
    Server s;
    ASSERT_TRUE(s.start({"--num-gpus", "0", "--cpu-devices", "4", "--cpu-threads", "1", "--metrics", "127.0.0.1:0"}))
        << Server::read_text_file_or_empty(s.log);
    ASSERT_GT(s.metrics_port, 0);
    std::vector<CtxPtr> cs = open_at_once(s.sock, 4);
    std::set<std::string> devs;
    for (auto &c : cs) {
        ASSERT_TRUE(c);
        devs.insert(server_device(c.get()));
    }
    EXPECT_EQ(devs, (std::set<std::string>{cpu_dev(0), cpu_dev(1), cpu_dev(2), cpu_dev(3)}));
    const std::string st = s.status();
    for (int i = 0; i < 4; ++i) EXPECT_EQ(device_sessions(st, cpu_dev(i)), 1u) << st;
    EXPECT_EQ(device_sessions(st, "cpu"), 0u) << st;  // the pool serves force_cpu sessions only
    // Each session's jobs, at once, on its own device; the in-process bytes.
    const Bytes want = local_workload(GP_FIELD_GOLDILOCKS, 32, 3, 21);
    std::vector<Bytes> got(cs.size());
    {
        std::vector<std::thread> ts;
        for (size_t i = 0; i < cs.size(); ++i)
            ts.emplace_back([&, i] { got[i] = workload(cs[i].get(), GP_FIELD_GOLDILOCKS, 32, 3, 21); });
        for (auto &t : ts) t.join();
    }
    for (size_t i = 0; i < cs.size(); ++i) EXPECT_TRUE(bytes_equal(got[i], want)) << "session " << i;
    const std::string m = metrics_of(s);
    for (int i = 0; i < 4; ++i) {
        const std::string d = "device=\"" + cpu_dev(i) + "\"";
        EXPECT_EQ(metric(m, "gpuprover_device_sessions{" + d + "}"), 1) << m;
        EXPECT_GT(metric(m, "gpuprover_jobs{" + d + ",priority=\"normal\",state=\"done\"}"), 0) << m;
        EXPECT_EQ(metric(m, "gpuprover_jobs{" + d + ",priority=\"normal\",state=\"failed\"}"), 0) << m;
    }
    EXPECT_EQ(metric(m, "gpuprover_jobs{device=\"cpu\",priority=\"normal\",state=\"done\"}"), 0) << m;
}

// Eight sessions at once on four devices: two each. A force_cpu session
// goes to the CPU pool and is not counted on them.
TEST(RemotePlacement, EightSessionsTwoPerDevice) {
    Server s;
    ASSERT_TRUE(s.start({"--num-gpus", "0", "--cpu-devices", "4", "--cpu-threads", "1", "--metrics", "127.0.0.1:0"}))
        << Server::read_text_file_or_empty(s.log);
    std::vector<CtxPtr> cs = open_at_once(s.sock, 8);
    std::map<std::string, int> per;
    for (auto &c : cs) {
        ASSERT_TRUE(c);
        ++per[server_device(c.get())];
    }
    EXPECT_EQ(per, (std::map<std::string, int>{{cpu_dev(0), 2}, {cpu_dev(1), 2}, {cpu_dev(2), 2}, {cpu_dev(3), 2}}));
    CtxPtr pool;
    ASSERT_GP_OK(remote_ctx(s.sock, &pool, GP_PRIORITY_NORMAL, nullptr, true));
    EXPECT_EQ(server_device(pool.get()), "cpu");
    const std::string st = s.status();
    for (int i = 0; i < 4; ++i) EXPECT_EQ(device_sessions(st, cpu_dev(i)), 2u) << st;
    EXPECT_EQ(device_sessions(st, "cpu"), 1u) << st;
    const std::string m = metrics_of(s);
    for (int i = 0; i < 4; ++i) {
        EXPECT_EQ(metric(m, "gpuprover_device_sessions{device=\"" + cpu_dev(i) + "\"}"), 2) << m;
        EXPECT_EQ(metric(m, "gpuprover_device_load{device=\"" + cpu_dev(i) + "\"}"), 2) << m;
    }
    // A ninth session (not force_cpu) goes to the lowest index of the tie.
    CtxPtr ninth;
    ASSERT_GP_OK(remote_ctx(s.sock, &ninth));
    EXPECT_EQ(server_device(ninth.get()), cpu_dev(0));
    EXPECT_TRUE(
        bytes_equal(workload(ninth.get(), GP_FIELD_BABYBEAR, 16, 2, 3), local_workload(GP_FIELD_BABYBEAR, 16, 2, 3)));
}

// A session's count is released when it closes, however it closes: a
// client killed mid-job and a context destroyed both leave their device
// the least loaded, and the next session goes there.
TEST(RemotePlacement, ClosingReleasesTheDevice) {
    Server s;
    ASSERT_TRUE(s.start({"--num-gpus", "0", "--cpu-devices", "4", "--cpu-threads", "1"}))
        << Server::read_text_file_or_empty(s.log);
    std::vector<CtxPtr> cs(3);
    for (int i = 0; i < 3; ++i) {
        ASSERT_GP_OK(remote_ctx(s.sock, &cs[i]));
        EXPECT_EQ(server_device(cs[i].get()), cpu_dev(i));  // the lowest index of the least loaded
    }
    // A client process on cpu:3, killed while its commitment runs.
    const std::string out = unique_path("client");
    const pid_t child = spawn_running_client(s.sock, out);
    ASSERT_GT(child, 0);
    EXPECT_TRUE(status_until(s, [](const std::string &st) {
        unsigned n = 0, l = 0;
        return device_figures(st, cpu_dev(3), &n, &l) && n == 1 && l >= 2;  // its session and its commitment
    })) << s.status();
    kill(child, SIGKILL);
    waitpid(child, nullptr, 0);
    unlink(out.c_str());
    EXPECT_TRUE(status_until(s, [](const std::string &st) { return device_sessions(st, cpu_dev(3)) == 0; }))
        << s.status();
    CtxPtr after_kill;
    ASSERT_GP_OK(remote_ctx(s.sock, &after_kill));
    EXPECT_EQ(server_device(after_kill.get()), cpu_dev(3)) << s.status();
    // A context destroyed: its device, cpu:1, takes the next session.
    cs[1].reset();
    EXPECT_TRUE(status_until(s, [](const std::string &st) { return device_sessions(st, cpu_dev(1)) == 0; }))
        << s.status();
    CtxPtr after_close;
    ASSERT_GP_OK(remote_ctx(s.sock, &after_close));
    EXPECT_EQ(server_device(after_close.get()), cpu_dev(1)) << s.status();
    const std::string st = s.status();
    for (int i = 0; i < 4; ++i) EXPECT_EQ(device_sessions(st, cpu_dev(i)), 1u) << st;
    EXPECT_TRUE(bytes_equal(workload(after_close.get(), GP_FIELD_KOALABEAR, 16, 3, 8),
                            local_workload(GP_FIELD_KOALABEAR, 16, 3, 8)));
}

// Jobs count as load: with one session on each of two devices, the one
// running a commitment is passed over, although its sessions hold fewer
// bytes (which alone would favour it).
TEST(RemotePlacement, ADeviceRunningAJobIsPassedOver) {
    Server s;
    ASSERT_TRUE(s.start({"--num-gpus", "0", "--cpu-devices", "2", "--cpu-threads", "1"}))
        << Server::read_text_file_or_empty(s.log);
    const FieldRef &F = field_ref(GP_FIELD_GOLDILOCKS);
    CtxPtr a, b;
    ASSERT_GP_OK(remote_ctx(s.sock, &a));
    ASSERT_GP_OK(remote_ctx(s.sock, &b));
    ASSERT_EQ(server_device(a.get()), cpu_dev(0));
    ASSERT_EQ(server_device(b.get()), cpu_dev(1));
    BufPtr ab, bb;
    ASSERT_GP_OK(create_buffer(a.get(), F, 1, 1u << 17, 64, &ab));  // 64 MiB
    ASSERT_GP_OK(create_buffer(b.get(), F, 1, 1u << 17, 96, &bb));  // 96 MiB: cpu:1 holds more
    // The commitment may end before the next session opens on a stalled
    // machine: then the attempt says nothing and is made again.
    bool conclusive = false;
    for (int attempt = 0; attempt < 3 && !conclusive; ++attempt) {
        std::atomic<bool> done{false};
        std::thread job([&] {
            EXPECT_GP_OK(commit_job(a.get(), ab.get()));  // seconds on one thread
            done = true;
        });
        EXPECT_TRUE(status_until(s, [&](const std::string &st) {
            unsigned n = 0, l = 0;
            return done || (device_figures(st, cpu_dev(0), &n, &l) && l >= 2);
        })) << s.status();
        CtxPtr c;
        EXPECT_GP_OK(remote_ctx(s.sock, &c));
        const std::string dev = c ? server_device(c.get()) : "";
        conclusive = !done;
        job.join();
        if (conclusive) EXPECT_EQ(dev, cpu_dev(1)) << s.status();
        c.reset();
        EXPECT_TRUE(status_until(s, [](const std::string &st) {
            return device_sessions(st, cpu_dev(0)) == 1 && device_sessions(st, cpu_dev(1)) == 1;
        })) << s.status();
    }
    EXPECT_TRUE(conclusive) << "the commitment ended before the session opened, three times";
    // Idle again, and cpu:1's buffer freed: the tie on load goes to the
    // device holding fewer bytes, although cpu:0 has the lower index.
    bb.reset();
    EXPECT_TRUE(status_until(s, [](const std::string &st) {
        unsigned l0 = 0, l1 = 0;
        const std::string freed = "device " + cpu_dev(1) + ": 2 concurrent jobs, 1 sessions, 0.0 MiB held";
        return device_figures(st, cpu_dev(0), nullptr, &l0) && device_figures(st, cpu_dev(1), nullptr, &l1) &&
               l0 == 1 && l1 == 1 && st.find(freed) != std::string::npos;
    })) << s.status();
    CtxPtr idle;
    ASSERT_GP_OK(remote_ctx(s.sock, &idle));
    EXPECT_EQ(server_device(idle.get()), cpu_dev(1)) << s.status();
}

// --cpu-devices N takes 1..64, and never GPUs as well; the variable too.
TEST(RemotePlacement, CpuDevicesOptionIsChecked) {
    const std::string sock = unique_path("nosock");
    struct Case {
        std::string args, says;
    };
    const Case cases[] = {
        {"--cpu-devices 0", "must be 1 to 64"},
        {"--cpu-devices 65", "must be 1 to 64"},
        {"--cpu-devices four", "bad value for --cpu-devices"},
        {"--cpu-devices 2 --num-gpus 1", "cannot be combined with --num-gpus"},
        {"--cpu-devices 2 --devices 0", "cannot be combined with --devices"},
        {"--cpu-devices", "needs a value"},
    };
    auto run = [&](const std::string &env, const std::string &args, int *rc) {
        const std::string cmd = env + " " + server_bin() + " --unix " + sock + " " + args + " 2>&1";
        std::string out;
        *rc = -1;
        if (FILE *p = popen(cmd.c_str(), "r")) {
            char buf[1024];
            size_t n;
            while ((n = fread(buf, 1, sizeof buf, p)) > 0) out.append(buf, n);
            const int st = pclose(p);
            *rc = WIFEXITED(st) ? WEXITSTATUS(st) : -1;
        }
        return out;
    };
    for (const Case &c : cases) {
        int rc = 0;
        const std::string out = run("", c.args, &rc);
        EXPECT_EQ(rc, 2) << c.args << ": " << out;
        EXPECT_NE(out.find(c.says), std::string::npos) << c.args << ": " << out;
    }
    int rc = 0;
    std::string out = run("GPUPROVER_SERVER_CPU_DEVICES=100", "", &rc);
    EXPECT_EQ(rc, 2) << out;
    EXPECT_NE(out.find("GPUPROVER_SERVER_CPU_DEVICES 100: the number of emulated devices must be 1 to 64"),
              std::string::npos)
        << out;
    out = run("GPUPROVER_SERVER_CPU_DEVICES=3", "--devices 1", &rc);
    EXPECT_EQ(rc, 2) << out;
    EXPECT_NE(out.find("cannot be combined with --devices"), std::string::npos) << out;
    EXPECT_NE(access(sock.c_str(), F_OK), 0) << "no server was started";
}

TEST(RemoteCuda, GpuServerGivesTheCpuBytes) {
    if (!cuda_available()) GTEST_SKIP() << "no usable CUDA device";
    Server s;
    s.sock = unique_path("gpusock");
    s.log = unique_path("gpulog");
    std::vector<std::string> args = {server_bin(), "--num-gpus", "1", "--unix", s.sock};
    s.pid = spawn(args, s.log);
    ASSERT_GT(s.pid, 0);
    const auto end = Clock::now() + std::chrono::seconds(30);
    while (Clock::now() < end && access(s.sock.c_str(), F_OK) != 0) std::this_thread::sleep_for(std::chrono::milliseconds(20));
    std::this_thread::sleep_for(std::chrono::milliseconds(200));
    for (gp_field f : {GP_FIELD_GOLDILOCKS, GP_FIELD_BABYBEAR}) {
        CtxPtr c;
        ASSERT_GP_OK(remote_ctx(s.sock, &c));
        char name[256];
        ASSERT_GP_OK(gp_context_device_name(c.get(), name, sizeof name));
        EXPECT_NE(std::string(name).find("cuda:0"), std::string::npos) << name;
        EXPECT_TRUE(bytes_equal(workload(c.get(), f, 1u << 12, 33, 4), local_workload(f, 1u << 12, 33, 4)));
    }
}

// The protocol itself, from a raw client: what the library never sends is
// refused with a reply, and a session cannot touch another's memory.
namespace {
namespace v1 = ::gpuprover::v1;
struct RawSession {
    std::shared_ptr<grpc::Channel> ch;
    std::unique_ptr<v1::Prover::Stub> stub;
    grpc::ClientContext ctx;
    std::unique_ptr<grpc::ClientReaderWriter<v1::Request, v1::Reply>> s;
    uint64_t id = 0;
    // `where`: a unix socket path, or HOST:PORT when `tcp`.
    explicit RawSession(const std::string &where, bool tcp = false) {
        ch = grpc::CreateChannel(tcp ? where : "unix:" + where, grpc::InsecureChannelCredentials());
        stub = v1::Prover::NewStub(ch);
        s = stub->Session(&ctx);
    }
    bool call(v1::Request q, v1::Reply &r) {
        q.set_id(++id);
        return s->Write(q) && s->Read(&r);
    }
    bool hello(uint32_t version, v1::Reply &r) {
        v1::Request q;
        q.mutable_hello()->set_version(version);
        return call(q, r);
    }
};
}  // namespace

TEST(RemoteProtocol, RefusesWhatTheLibraryNeverSends) {
    Server s;
    ASSERT_TRUE(s.start({}));
    v1::Reply r;
    {
        RawSession a(s.sock);
        ASSERT_TRUE(a.hello(99, r));
        EXPECT_EQ(r.status(), GP_ERR_REMOTE);
        EXPECT_NE(r.message().find("version 99"), std::string::npos) << r.message();
    }
    {
        RawSession a(s.sock);
        v1::Request q;
        q.mutable_alloc()->set_bytes(64);
        ASSERT_TRUE(a.call(q, r));  // not Hello first
        EXPECT_EQ(r.status(), GP_ERR_REMOTE);
    }
    RawSession a(s.sock), b(s.sock);
    ASSERT_TRUE(a.hello(1, r));
    ASSERT_EQ(r.status(), 0) << r.message();
    ASSERT_TRUE(b.hello(1, r));
    ASSERT_EQ(r.status(), 0) << r.message();
    v1::Request q;
    q.mutable_alloc()->set_bytes(4096);
    ASSERT_TRUE(a.call(q, r));
    ASSERT_EQ(r.status(), 0);
    const uint64_t addr = r.addr();
    // B names A's memory: refused, in every form.
    v1::Request f;
    f.mutable_free()->set_addr(addr);
    ASSERT_TRUE(b.call(f, r));
    EXPECT_EQ(r.status(), GP_ERR_INVALID_ARGUMENT);
    v1::Request n;
    auto *nb = n.mutable_ntt()->mutable_buf();
    nb->set_field(GP_FIELD_GOLDILOCKS);
    nb->set_ext(1);
    nb->set_rows(512);
    nb->set_cols(1);
    nb->set_addr(addr);
    ASSERT_TRUE(b.call(n, r));
    EXPECT_EQ(r.status(), GP_ERR_INVALID_ARGUMENT);
    EXPECT_NE(r.message().find("not memory of this session"), std::string::npos) << r.message();
    // A's own memory, but an extent past its end (8 x 512 bytes > 4096 - 8).
    nb->set_addr(addr + 8);
    ASSERT_TRUE(a.call(n, r));
    EXPECT_EQ(r.status(), GP_ERR_INVALID_ARGUMENT);
    // Shapes the backend would trust: refused before it sees them.
    v1::Request l;
    auto *lde = l.mutable_lde();
    lde->set_field(GP_FIELD_GOLDILOCKS);
    lde->set_ext(1);
    lde->set_rows_in(8);
    lde->set_cols(1);
    lde->set_log_n(60);
    lde->set_log_blowup(2);
    ASSERT_TRUE(a.call(l, r));
    EXPECT_EQ(r.status(), GP_ERR_INVALID_ARGUMENT);
    v1::Request d;
    auto *dl = d.mutable_download();
    *dl->mutable_src() = *nb;
    dl->mutable_src()->set_addr(addr);
    dl->mutable_src()->set_rows(8);
    dl->mutable_data()->set_offset(1ull << 40);
    dl->mutable_data()->set_size(64);
    ASSERT_TRUE(a.call(d, r));
    EXPECT_EQ(r.status(), GP_ERR_INVALID_ARGUMENT);  // no window that large
    v1::Request none;  // no operation at all
    ASSERT_TRUE(a.call(none, r));
    EXPECT_EQ(r.status(), GP_ERR_INVALID_ARGUMENT);
    v1::Request fld;
    auto *fb = fld.mutable_check_values()->mutable_buf();
    *fb = *nb;
    fb->set_field(77);
    ASSERT_TRUE(a.call(fld, r));
    EXPECT_EQ(r.status(), GP_ERR_INVALID_ARGUMENT);
    // Both sessions still work, and A's memory is A's.
    ASSERT_TRUE(a.call(f, r));
    EXPECT_EQ(r.status(), 0) << r.message();
    v1::Request i;
    i.mutable_info();
    ASSERT_TRUE(b.call(i, r));
    EXPECT_EQ(r.status(), 0);
}

// ---- Hostile clients ----
//
// Each test below reproduces one way a client could corrupt, crash, stall
// or mislead the server, and checks that the server now refuses it with a
// status and goes on serving.
namespace {

constexpr int kGold = GP_FIELD_GOLDILOCKS;

// A raw session that has said Hello, with helpers for hostile requests.
struct Hostile : RawSession {
    std::string nonce;
    bool ok = false;
    explicit Hostile(const std::string &where, bool tcp = false) : RawSession(where, tcp) {
        v1::Reply r;
        ok = hello(1, r) && r.status() == 0;
        nonce = r.hello().shm_nonce();
    }
    v1::Reply send(const v1::Request &q) {
        v1::Reply r;
        r.set_status(-1);
        r.set_message("no reply");
        call(q, r);
        return r;
    }
    uint64_t alloc(uint64_t bytes) {
        v1::Request q;
        q.mutable_alloc()->set_bytes(bytes);
        const v1::Reply r = send(q);
        EXPECT_EQ(r.status(), 0) << r.message();
        return r.addr();
    }
    v1::Reply private_window(uint64_t bytes) {
        v1::Request q;
        q.mutable_attach_shm()->set_bytes(bytes);
        return send(q);
    }
    v1::Reply attach_fd(int fd, uint64_t bytes, uint64_t ticket, uint64_t send_ticket, const std::string &sock) {
        gp::send_fd(gp::fd_socket_path(sock), nonce, send_ticket, fd);
        v1::Request q;
        q.mutable_attach_shm()->set_bytes(bytes);
        q.mutable_attach_shm()->set_fd(true);
        q.mutable_attach_shm()->set_ticket(ticket);
        return send(q);
    }
};

v1::BufferRef gold_buf(uint64_t addr, uint64_t rows, uint64_t cols, uint64_t stride = 0) {
    v1::BufferRef b;
    b.set_field(kGold);
    b.set_ext(1);
    b.set_rows(rows);
    b.set_cols(cols);
    b.set_addr(addr);
    b.set_stride(stride);
    return b;
}

// Plonky3's Poseidon2 Goldilocks profile, as the library sends it.
void gold_spec(v1::TreeSpec *out) {
    gp_merkle_options o;
    gp_merkle_options_init(&o);
    o.perm = GP_PERM_POSEIDON2_GOLDILOCKS_8;
    gp::wire::put_spec(gp::tree_spec(o, gp::field_desc(GP_FIELD_GOLDILOCKS), "test"), out);
}

// The server still opens sessions and runs a job.
bool serves(const Server &s) {
    Hostile h(s.sock);
    if (!h.ok) return false;
    v1::Request q;
    q.mutable_alloc()->set_bytes(64);
    return h.send(q).status() == 0;
}

int sealed_memfd(uint64_t bytes, bool seal) {
    const int fd = memfd_create("gp-test", MFD_CLOEXEC | (seal ? MFD_ALLOW_SEALING : 0));
    EXPECT_GE(fd, 0);
    EXPECT_EQ(ftruncate(fd, (off_t)bytes), 0);
    if (seal) EXPECT_EQ(fcntl(fd, F_ADD_SEALS, F_SEAL_SHRINK | F_SEAL_GROW), 0);
    return fd;
}

}  // namespace

// A stride of 2^64 - rows + k passed the extent check with k elements while
// Upload, Download and CheckValues touched rows x cols (heap read/write).
TEST(RemoteHostile, StridesThatWrapAreRefused) {
    Server s;
    ASSERT_TRUE(s.start({}));
    Hostile a(s.sock);
    ASSERT_TRUE(a.ok);
    const uint64_t addr = a.alloc(4096);
    ASSERT_EQ(a.private_window(1 << 16).status(), 0);
    for (uint64_t k : {1ull, 2ull, 7ull}) {
        const v1::BufferRef b = gold_buf(addr, 8, 2, 0ull - 8 + k);
        v1::Request d;
        *d.mutable_download()->mutable_src() = b;
        d.mutable_download()->mutable_data()->set_size(128);
        v1::Reply r = a.send(d);
        EXPECT_EQ(r.status(), GP_ERR_SIZE_OVERFLOW) << r.message();
        EXPECT_TRUE(r.data().empty());
        v1::Request u;
        *u.mutable_upload()->mutable_dst() = b;
        u.mutable_upload()->mutable_data()->set_size(128);
        EXPECT_EQ(a.send(u).status(), GP_ERR_SIZE_OVERFLOW);
        v1::Request c;
        *c.mutable_check_values()->mutable_buf() = b;
        EXPECT_EQ(a.send(c).status(), GP_ERR_SIZE_OVERFLOW);
    }
    // A stride that fits is still served.
    v1::Request d;
    *d.mutable_download()->mutable_src() = gold_buf(addr, 8, 2, 16);
    d.mutable_download()->mutable_data()->set_size(128);
    EXPECT_EQ(a.send(d).status(), 0);
    EXPECT_TRUE(serves(s));
}

// n x opened_row_bytes wrapped 64 bits: a 0-byte answer buffer that the
// backend then filled (heap write), with no stride needed.
TEST(RemoteHostile, MerkleOpenAnswerThatWrapsIsRefused) {
    Server s;
    ASSERT_TRUE(s.start({}));
    Hostile a(s.sock);
    ASSERT_TRUE(a.ok);
    const uint64_t addr = a.alloc(64ull << 20);  // one row of 2^23 columns
    v1::Request q;
    auto *m = q.mutable_merkle_open();
    gold_spec(m->mutable_tree()->mutable_spec());
    m->mutable_tree()->set_log_h(18);
    const v1::BufferRef row = gold_buf(addr, 1, 1ull << 23);
    for (int i = 0; i < (1 << 20); ++i) *m->mutable_tree()->add_committed() = row;  // 2^46 bytes a row
    for (uint64_t i = 0; i < (1u << 18); ++i) m->add_indices(i);                       // x 2^18 = 2^64
    m->set_rows(true);
    const v1::Reply r = a.send(q);
    EXPECT_NE(r.status(), 0);
    EXPECT_NE(r.status(), -1) << "no reply";
    EXPECT_TRUE(r.data().empty());
    // Fewer repeats: the answer (2^18 rows of 2^26 bytes) still exceeds a message.
    m->mutable_tree()->clear_committed();
    *m->mutable_tree()->add_committed() = row;
    const v1::Reply r2 = a.send(q);
    EXPECT_EQ(r2.status(), GP_ERR_INVALID_ARGUMENT) << r2.message();
    EXPECT_NE(r2.message().find("exceeds"), std::string::npos) << r2.message();
    EXPECT_TRUE(serves(s));
}

// A commitment with fewer groups than layers: the backend read all log_h + 1.
TEST(RemoteHostile, MerkleCommitNeedsAGroupPerLayer) {
    Server s;
    ASSERT_TRUE(s.start({}));
    Hostile a(s.sock);
    ASSERT_TRUE(a.ok);
    const uint64_t mat = a.alloc(8 * 8), nodes = a.alloc(15 * 32);
    v1::Request q;
    auto *m = q.mutable_merkle_commit();
    gold_spec(m->mutable_spec());
    m->set_log_h(3);
    *m->add_mats() = gold_buf(mat, 8, 1);
    m->add_group_begin(0);
    m->add_group_end(1);
    m->set_nodes(nodes);
    v1::Reply r = a.send(q);
    EXPECT_EQ(r.status(), GP_ERR_INVALID_ARGUMENT) << r.message();
    EXPECT_NE(r.message().find("groups"), std::string::npos) << r.message();
    for (int k = 1; k <= 3; ++k) {  // every layer named: served
        m->add_group_begin(1);
        m->add_group_end(1);
    }
    r = a.send(q);
    EXPECT_EQ(r.status(), 0) << r.message();
}

// Arity 16 overflowed a stack array of 8 values with client data; a
// non-final fold of a layer smaller than one group stored through a shift
// of 2^32 - 2.
TEST(RemoteHostile, FriFoldsBeyondTheLibrarysAreRefused) {
    Server s;
    ASSERT_TRUE(s.start({}));
    Hostile a(s.sock);
    ASSERT_TRUE(a.ok);
    const uint64_t in = a.alloc(4096), out = a.alloc(4096);
    auto fold = [&](uint32_t log_n, uint32_t log_a, bool final_out) {
        v1::Request q;
        auto *f = q.mutable_fri_fold();
        f->set_field(kGold);
        f->set_ext(2);
        f->set_log_n(log_n);
        f->set_log_a(log_a);
        f->set_final_out(final_out);
        f->set_omega_inv(1);
        f->set_shift_inv(1);
        f->set_zeta_inv(1);
        f->add_beta(3);
        f->add_beta(5);
        f->set_in(in);
        f->set_out(out);
        return a.send(q);
    };
    v1::Reply r = fold(5, 4, true);
    EXPECT_EQ(r.status(), GP_ERR_INVALID_ARGUMENT) << r.message();
    r = fold(2, 2, false);
    EXPECT_EQ(r.status(), GP_ERR_INVALID_ARGUMENT) << r.message();
    r = fold(3, 2, false);
    EXPECT_EQ(r.status(), GP_ERR_INVALID_ARGUMENT) << r.message();
    EXPECT_EQ(fold(4, 2, false).status(), 0);  // what the library sends
    EXPECT_EQ(fold(3, 3, true).status(), 0);
    EXPECT_TRUE(serves(s));
}

// A memfd the client could shrink after attaching (or a regular file)
// made the server's next access fault: SIGBUS killed it.
TEST(RemoteHostile, SharedMemoryMustBeSealed) {
    Server s;
    ASSERT_TRUE(s.start({"--fd-wait-ms", "2000"}));
    Hostile a(s.sock);
    ASSERT_TRUE(a.ok);
    ASSERT_FALSE(a.nonce.empty());
    const int loose = sealed_memfd(1 << 20, false);
    v1::Reply r = a.attach_fd(loose, 1 << 20, 1, 1, s.sock);
    EXPECT_EQ(r.status(), GP_ERR_INVALID_ARGUMENT) << r.message();
    EXPECT_NE(r.message().find("sealed"), std::string::npos) << r.message();
    const std::string file = unique_path("plainfile");
    const int plain = open(file.c_str(), O_RDWR | O_CREAT | O_CLOEXEC, 0600);
    ASSERT_EQ(ftruncate(plain, 1 << 20), 0);
    r = a.attach_fd(plain, 1 << 20, 2, 2, s.sock);
    EXPECT_EQ(r.status(), GP_ERR_INVALID_ARGUMENT) << r.message();
    unlink(file.c_str());
    // The shrink that used to kill the server: the server refused the
    // memfd, so its accesses never reach it.
    EXPECT_EQ(ftruncate(loose, 0), 0);
    const uint64_t addr = a.alloc(4096);
    v1::Request d;
    *d.mutable_download()->mutable_src() = gold_buf(addr, 8, 1);
    d.mutable_download()->mutable_data()->set_size(64);
    EXPECT_NE(a.send(d).status(), 0);  // no window
    // A sealed memfd is taken, and cannot be shrunk under the server.
    const int sealed = sealed_memfd(1 << 20, true);
    r = a.attach_fd(sealed, 1 << 20, 3, 3, s.sock);
    EXPECT_EQ(r.status(), 0) << r.message();
    EXPECT_NE(ftruncate(sealed, 0), 0);
    EXPECT_EQ(a.send(d).status(), 0);
    close(loose);
    close(plain);
    close(sealed);
    EXPECT_TRUE(serves(s));
}

// A descriptor that came late was taken by the next attachment: jobs got
// other bytes with GP_OK. Each descriptor now goes to its ticket alone.
TEST(RemoteHostile, DescriptorsGoOnlyToTheirTicket) {
    Server s;
    ASSERT_TRUE(s.start({"--fd-wait-ms", "300"}));
    Hostile a(s.sock), b(s.sock);
    ASSERT_TRUE(a.ok && b.ok);
    const int late = sealed_memfd(1 << 20, true), mine = sealed_memfd(1 << 20, true);
    // The descriptor of ticket 7 arrives; an attachment naming ticket 8 does
    // not take it.
    v1::Reply r = a.attach_fd(late, 1 << 20, 8, 7, s.sock);
    EXPECT_EQ(r.status(), GP_ERR_REMOTE) << r.message();
    EXPECT_NE(r.message().find("ticket 8"), std::string::npos) << r.message();
    // B's descriptors never reach A, whatever the ticket.
    gp::send_fd(gp::fd_socket_path(s.sock), b.nonce, 9, mine);
    v1::Request q;
    q.mutable_attach_shm()->set_bytes(1 << 20);
    q.mutable_attach_shm()->set_fd(true);
    q.mutable_attach_shm()->set_ticket(9);
    EXPECT_EQ(a.send(q).status(), GP_ERR_REMOTE);
    EXPECT_EQ(b.send(q).status(), 0);
    // Ticket 7 is still A's, and no ticket means none.
    q.mutable_attach_shm()->set_ticket(7);
    EXPECT_EQ(a.send(q).status(), 0);
    q.mutable_attach_shm()->set_ticket(0);
    EXPECT_EQ(a.send(q).status(), GP_ERR_INVALID_ARGUMENT);
    close(late);
    close(mine);
}

// Three idle connections to the side socket made every attachment fail
// after 5 s: it served one connection at a time.
TEST(RemoteHostile, IdleSideConnectionsDelayNobody) {
    Server s;
    ASSERT_TRUE(s.start({}));
    std::vector<int> idle;
    for (int i = 0; i < 40; ++i) {
        const int fd = socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0);
        sockaddr_un a{};
        a.sun_family = AF_UNIX;
        std::strncpy(a.sun_path, (s.sock + ".fd").c_str(), sizeof a.sun_path - 1);
        ASSERT_EQ(connect(fd, reinterpret_cast<sockaddr *>(&a), sizeof a), 0);
        idle.push_back(fd);
    }
    CtxPtr c;
    ASSERT_GP_OK(remote_ctx(s.sock, &c));
    for (int round = 0; round < 3; ++round) {  // each upload grows the window: a new descriptor
        const FieldRef &F = field_ref(GP_FIELD_GOLDILOCKS);
        Rng rng(round);
        BufPtr b;
        EXPECT_GP_OK(upload(c.get(), F, random_mat(F, 1u << (16 + round), 4, 1, rng), GP_LAYOUT_COL_MAJOR, &b));
    }
    for (int fd : idle) close(fd);
}

// Per-session regions, all descriptors, and running out of descriptors:
// the server refuses with a status and accepts again once they are free.
TEST(RemoteHostile, DescriptorsAreBoundedAndExhaustionIsSurvived) {
    Server s;
    s.prefix = {"/usr/bin/prlimit", "--nofile=160:160", "--"};
    ASSERT_TRUE(s.start({"--max-regions", "4", "--max-descriptors", "6", "--fd-wait-ms", "2000"}));
    Hostile a(s.sock), b(s.sock);
    ASSERT_TRUE(a.ok && b.ok);
    auto region = [&](Hostile &h, uint64_t id) {
        const int fd = sealed_memfd(4096, true);
        gp::send_fd(gp::fd_socket_path(s.sock), h.nonce, id, fd);
        close(fd);
        v1::Request q;
        q.mutable_attach_region()->set_id(id);
        q.mutable_attach_region()->set_bytes(4096);
        q.mutable_attach_region()->set_ticket(id);
        return h.send(q);
    };
    for (uint64_t id = 1; id <= 4; ++id) EXPECT_EQ(region(a, id).status(), 0);
    v1::Reply r = region(a, 5);
    EXPECT_EQ(r.status(), GP_ERR_HOST_OUT_OF_MEMORY) << r.message();
    EXPECT_NE(r.message().find("limit"), std::string::npos) << r.message();
    EXPECT_EQ(region(b, 1).status(), 0);
    EXPECT_EQ(region(b, 2).status(), 0);
    r = region(b, 3);  // 6 descriptors held by the server
    EXPECT_EQ(r.status(), GP_ERR_HOST_OUT_OF_MEMORY) << r.message();
    // Connections until the process has no descriptor left, then freed.
    std::vector<int> flood;
    for (int i = 0; i < 300; ++i) {
        const int fd = socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0);
        sockaddr_un ad{};
        ad.sun_family = AF_UNIX;
        std::strncpy(ad.sun_path, s.sock.c_str(), sizeof ad.sun_path - 1);
        if (connect(fd, reinterpret_cast<sockaddr *>(&ad), sizeof ad) != 0) {
            close(fd);
            break;
        }
        flood.push_back(fd);
    }
    std::this_thread::sleep_for(std::chrono::milliseconds(500));
    for (int fd : flood) close(fd);
    // The listener serves again (bounded wait for the server to notice).
    bool back = false;
    for (int i = 0; i < 1200 && !back; ++i) {  // up to 2 minutes on a loaded machine
        CtxPtr c;
        back = remote_ctx(s.sock, &c) == GP_OK;
        if (!back) std::this_thread::sleep_for(std::chrono::milliseconds(100));
    }
    EXPECT_TRUE(back) << "the server stays unreachable after running out of descriptors";
}

// 1000 idle sessions cost 2013 threads: sessions are bounded, on the whole
// server and per client, and the server keeps accepting others.
TEST(RemoteHostile, SessionsAreBounded) {
    Server s;
    ASSERT_TRUE(s.start({"--tcp", "127.0.0.1:0", "--max-sessions", "3", "--max-sessions-per-client", "2"}));
    auto a = std::make_unique<Hostile>(s.sock);
    Hostile b(s.sock);
    ASSERT_TRUE(a->ok && b.ok);
    {
        RawSession c(s.sock);
        v1::Reply r;
        ASSERT_TRUE(c.hello(1, r));
        EXPECT_EQ(r.status(), GP_ERR_REMOTE);
        EXPECT_NE(r.message().find("per client"), std::string::npos) << r.message();
    }
    Hostile t(s.tcp(), true);  // another client
    EXPECT_TRUE(t.ok);
    {
        RawSession u(s.tcp(), true);
        v1::Reply r;
        ASSERT_TRUE(u.hello(1, r));
        EXPECT_EQ(r.status(), GP_ERR_REMOTE);
        EXPECT_NE(r.message().find("--max-sessions"), std::string::npos) << r.message();
    }
    a.reset();  // a session closes: room again
    bool opened = false;
    for (int i = 0; i < 2400 && !opened; ++i) {  // up to 2 minutes on a loaded machine
        Hostile again(s.sock);
        opened = again.ok;
        if (!opened) std::this_thread::sleep_for(std::chrono::milliseconds(50));
    }
    EXPECT_TRUE(opened);
}

// The quota covered Alloc only: a private window grew the server by any
// size. It counts now, and --status shows it per session.
TEST(RemoteHostile, QuotaCoversThePrivateWindow) {
    Server s;
    ASSERT_TRUE(s.start({"--tcp", "127.0.0.1:0", "--quota-mib", "1"}));
    Hostile t(s.tcp(), true);
    ASSERT_TRUE(t.ok);
    v1::Reply r = t.private_window(16ull << 20);
    EXPECT_EQ(r.status(), GP_ERR_DEVICE_OUT_OF_MEMORY) << r.message();
    EXPECT_NE(r.message().find("quota"), std::string::npos) << r.message();
    EXPECT_EQ(t.private_window(512 << 10).status(), 0);
    v1::Request q;
    q.mutable_alloc()->set_bytes(768 << 10);
    EXPECT_EQ(t.send(q).status(), GP_ERR_DEVICE_OUT_OF_MEMORY);
    q.mutable_alloc()->set_bytes(256 << 10);
    r = t.send(q);
    ASSERT_EQ(r.status(), 0);
    EXPECT_NE(s.status().find("0.8 MiB, "), std::string::npos) << s.status();
    v1::Request f;
    f.mutable_free()->set_addr(r.addr());
    EXPECT_EQ(t.send(f).status(), 0);
    EXPECT_NE(s.status().find("0.5 MiB, "), std::string::npos) << s.status();
}

// Without the token, TCP still got Stats (every session's client string)
// and /metrics.
TEST(RemoteHostile, TheTokenGuardsEveryTcpCall) {
    const std::string tok = unique_path("token");
    std::ofstream(tok) << "s3cret-token\n";
    chmod(tok.c_str(), 0600);
    Server s;
    ASSERT_TRUE(s.start({"--tcp", "127.0.0.1:0", "--token-file", tok, "--metrics", "127.0.0.1:0"}));
    ASSERT_GT(s.metrics_port, 0);
    const std::string no_token = s.status(s.tcp());
    EXPECT_EQ(no_token.find("sessions opened"), std::string::npos) << no_token;
    EXPECT_NE(no_token.find("token"), std::string::npos) << no_token;
    const std::string with_token =
        [&] {
            const std::string cmd = server_bin() + " --status " + s.tcp() + " --token-file " + tok + " 2>&1";
            std::string out;
            if (FILE *p = popen(cmd.c_str(), "r")) {
                char buf[4096];
                size_t n;
                while ((n = fread(buf, 1, sizeof buf, p)) > 0) out.append(buf, n);
                pclose(p);
            }
            return out;
        }();
    EXPECT_NE(with_token.find("sessions opened"), std::string::npos) << with_token;
    EXPECT_NE(s.status().find("sessions opened"), std::string::npos) << "the unix socket's permissions guard it";
    auto scrape = [&](const std::string &extra) {
        const int fd = socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);
        sockaddr_in a{};
        a.sin_family = AF_INET;
        a.sin_port = htons((uint16_t)s.metrics_port);
        a.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
        std::string out;
        if (connect(fd, reinterpret_cast<sockaddr *>(&a), sizeof a) == 0) {
            const std::string req = "GET /metrics HTTP/1.0\r\n" + extra + "\r\n";
            (void)!write(fd, req.data(), req.size());
            char buf[4096];
            ssize_t n;
            while ((n = read(fd, buf, sizeof buf)) > 0) out.append(buf, (size_t)n);
        }
        close(fd);
        return out;
    };
    EXPECT_NE(scrape("").find("401"), std::string::npos);
    EXPECT_NE(scrape("Authorization: Bearer wrong\r\n").find("401"), std::string::npos);
    EXPECT_NE(scrape("Authorization: Bearer s3cret-token\r\n").find("gpuprover_sessions_total"), std::string::npos);
    unlink(tok.c_str());
}

// A second server on the same path took it over silently, and stopping the
// first then deleted the second's sockets.
TEST(RemoteHostile, OneServerPerSocketPath) {
    Server s;
    ASSERT_TRUE(s.start({}));
    Server second;
    EXPECT_FALSE(second.start({}, true, s.sock));
    EXPECT_NE(Server::read_text_file_or_empty(second.log).find("another gpuprover-server"), std::string::npos);
    second.sock.clear();  // not its socket to remove
    EXPECT_TRUE(serves(s));
    struct stat st;
    EXPECT_EQ(stat(s.sock.c_str(), &st), 0);
    EXPECT_EQ(stat((s.sock + ".fd").c_str(), &st), 0);
}

// A message that is no Request got no reply; enums out of range were
// loaded as C++ enums; misaligned addresses reached the backend.
TEST(RemoteHostile, MalformedMessagesEnumsAndAlignment) {
    Server s;
    ASSERT_TRUE(s.start({}));
    for (bool first : {true, false}) {
        auto ch = grpc::CreateChannel("unix:" + s.sock, grpc::InsecureChannelCredentials());
        grpc::ClientContext ctx;
        std::unique_ptr<grpc::ClientReaderWriter<grpc::ByteBuffer, grpc::ByteBuffer>> st(
            grpc::internal::ClientReaderWriterFactory<grpc::ByteBuffer, grpc::ByteBuffer>::Create(
                ch.get(), grpc::internal::RpcMethod("/gpuprover.v1.Prover/Session", grpc::internal::RpcMethod::BIDI_STREAMING),
                &ctx));
        grpc::ByteBuffer in;
        v1::Reply r;
        if (!first) {  // a session first
            v1::Request h;
            h.set_id(1);
            h.mutable_hello()->set_version(1);
            grpc::ByteBuffer hb;
            bool own;
            ASSERT_TRUE((grpc::GenericSerialize<grpc::ProtoBufferWriter, v1::Request>(h, &hb, &own).ok()));
            ASSERT_TRUE(st->Write(hb) && st->Read(&in));
        }
        const char junk[] = "\xff\xff\xff\xff\xff\x0a\x80";
        grpc::Slice sl(junk, sizeof junk - 1);
        grpc::ByteBuffer bad(&sl, 1);
        ASSERT_TRUE(st->Write(bad));
        ASSERT_TRUE(st->Read(&in)) << "no reply to a malformed message";
        ASSERT_TRUE((grpc::GenericDeserialize<grpc::ProtoBufferReader, v1::Reply>(&in, &r).ok()));
        EXPECT_NE(r.status(), 0);
        EXPECT_NE(r.message().find("malformed"), std::string::npos) << r.message();
    }
    Hostile a(s.sock);
    ASSERT_TRUE(a.ok);
    const uint64_t addr = a.alloc(4096);
    ASSERT_EQ(a.private_window(4096).status(), 0);
    v1::Request u;
    *u.mutable_upload()->mutable_dst() = gold_buf(addr, 8, 1);
    u.mutable_upload()->set_layout(77);
    u.mutable_upload()->mutable_data()->set_size(64);
    EXPECT_EQ(a.send(u).status(), GP_ERR_INVALID_ARGUMENT);
    u.mutable_upload()->set_layout(-1);
    EXPECT_EQ(a.send(u).status(), GP_ERR_INVALID_ARGUMENT);
    v1::Request n;
    *n.mutable_ntt()->mutable_buf() = gold_buf(addr, 8, 1);
    n.mutable_ntt()->set_direction(9);
    EXPECT_EQ(a.send(n).status(), GP_ERR_INVALID_ARGUMENT);
    n.mutable_ntt()->set_direction(0);
    n.mutable_ntt()->set_input_order(1 << 30);
    EXPECT_EQ(a.send(n).status(), GP_ERR_INVALID_ARGUMENT);
    n.mutable_ntt()->set_input_order(0);
    EXPECT_EQ(a.send(n).status(), 0);
    {
        RawSession p(s.sock);
        v1::Request h;
        h.mutable_hello()->set_version(1);
        h.mutable_hello()->set_priority((v1::Priority)7);
        v1::Reply r;
        ASSERT_TRUE(p.call(h, r));
        EXPECT_EQ(r.status(), GP_ERR_INVALID_ARGUMENT) << r.message();
    }
    // Misaligned: 4 bytes into 8-byte elements.
    *n.mutable_ntt()->mutable_buf() = gold_buf(addr + 4, 8, 1);
    v1::Reply r = a.send(n);
    EXPECT_EQ(r.status(), GP_ERR_INVALID_ARGUMENT);
    EXPECT_NE(r.message().find("multiple of 8"), std::string::npos) << r.message();
    v1::Request ai;
    ai.mutable_add_into()->set_field(kGold);
    ai.mutable_add_into()->set_dst(addr + 1);
    ai.mutable_add_into()->set_src(addr + 2048);
    ai.mutable_add_into()->set_count(4);
    EXPECT_EQ(a.send(ai).status(), GP_ERR_INVALID_ARGUMENT);
    ai.mutable_add_into()->set_dst(addr);
    EXPECT_EQ(a.send(ai).status(), 0);
}

// One OOD request grew the server by 1 GiB (its sums, then a reply too
// large to send); a buffer named again and again multiplied one job's work.
// The randomizer addend of an Lde request (Lde.rand_add, rand_m): the
// counts the LDE admits, the exact size, canonical values (the values of
// randomized LDEs through a server: LdeRandomTest.* in RemoteSuite).
TEST(RemoteHostile, RandomizerAddendIsChecked) {
    Server s;
    ASSERT_TRUE(s.start({}));
    Hostile a(s.sock);
    ASSERT_TRUE(a.ok);
    const uint64_t n = 8, cols = 2, B = 4;
    const uint64_t in = a.alloc(n * cols * 8), out = a.alloc(n * B * cols * 8);
    auto lde = [&](uint64_t m, const std::string &add) {
        v1::Request q;
        auto *l = q.mutable_lde();
        l->set_field(kGold);
        l->set_ext(1);
        l->set_rows_in(n);
        l->set_cols(cols);
        l->set_log_n(3);
        l->set_log_blowup(2);
        l->set_shift(7);
        l->set_input_shift(1);
        *l->mutable_in_buf() = gold_buf(in, n, cols);
        *l->mutable_out() = gold_buf(out, n * B, cols);
        l->set_rand_m(m);
        l->set_rand_add(add);
        return a.send(q);
    };
    auto words = [](uint64_t count, uint64_t v) { return std::string(count * 8, '\0').replace(0, 8, std::string(reinterpret_cast<const char *>(&v), 8)); };
    // m = 2: B m = 8 <= max(n, nB/8) = 8, so 2 x 4 x 2 = 16 words.
    v1::Reply r = lde(2, words(16, 1));
    EXPECT_EQ(r.status(), 0) << r.message();
    r = lde(3, words(24, 1));  // B m = 12 > 8
    EXPECT_EQ(r.status(), GP_ERR_INVALID_ARGUMENT) << r.message();
    r = lde(0, words(16, 1));  // an addend without a count
    EXPECT_EQ(r.status(), GP_ERR_INVALID_ARGUMENT) << r.message();
    r = lde(2, words(15, 1));
    EXPECT_EQ(r.status(), GP_ERR_SHAPE_MISMATCH) << r.message();
    r = lde(2, words(16, ~0ull));  // not canonical
    EXPECT_EQ(r.status(), GP_ERR_NON_CANONICAL) << r.message();
    EXPECT_NE(r.message().find("rand_add"), std::string::npos) << r.message();
    EXPECT_TRUE(serves(s));
}

TEST(RemoteHostile, OodSumsAndRepeatedBuffersAreBounded) {
    Server s;
    ASSERT_TRUE(s.start({}));
    Hostile a(s.sock);
    ASSERT_TRUE(a.ok);
    const uint64_t wide = a.alloc(32ull << 20);  // one row of 2^22 columns
    v1::Request q;
    auto *o = q.mutable_ood();
    o->set_field(kGold);
    o->set_e(2);
    o->set_log_m(0);
    o->set_log_nb(0);
    o->set_shift(7);
    o->set_omega_n(1);
    o->add_z(5);
    o->add_z(6);
    *o->add_bufs() = gold_buf(wide, 1, 1ull << 22);
    v1::Reply r = a.send(q);
    EXPECT_EQ(r.status(), GP_ERR_INVALID_ARGUMENT) << r.message();
    EXPECT_NE(r.message().find("exceeds"), std::string::npos) << r.message();
    Hostile b(s.sock);  // a session that holds 64 bytes
    const uint64_t small = b.alloc(8 * 8);
    o->clear_bufs();
    for (int i = 0; i < 4096; ++i) *o->add_bufs() = gold_buf(small, 8, 1);
    o->set_log_m(3);
    r = b.send(q);
    EXPECT_EQ(r.status(), GP_ERR_INVALID_ARGUMENT) << r.message();
    EXPECT_NE(r.message().find("times the session"), std::string::npos) << r.message();
    // No columns at all: refused at once, not 2^30 barycentric weights
    // computed for no data (the server fuzzer's timeout of 2026-12-07).
    o->clear_bufs();
    o->set_log_m(30);
    o->set_log_nb(30);
    r = b.send(q);
    EXPECT_EQ(r.status(), GP_ERR_INVALID_ARGUMENT) << r.message();
    EXPECT_NE(r.message().find("no columns"), std::string::npos) << r.message();
    EXPECT_TRUE(serves(s));
}

// 20 clients that asked for 16 MiB answers and never read them grew the
// server by 644 MiB: replies held for clients now share one budget, and a
// request whose answer may be large waits for room before it is built.
TEST(RemoteHostile, SlowReadersShareOneReplyBudget) {
    Server s;
    ASSERT_TRUE(s.start({"--tcp", "127.0.0.1:0", "--max-reply-mib", "48"}));
    auto rss_mib = [&] {
        std::ifstream f("/proc/" + std::to_string(s.pid) + "/status");
        std::string line;
        while (std::getline(f, line))
            if (line.rfind("VmRSS:", 0) == 0) return std::atof(line.c_str() + 6) / 1024.0;
        return 0.0;
    };
    std::vector<std::unique_ptr<Hostile>> slow;
    for (int i = 0; i < 16; ++i) {
        slow.push_back(std::make_unique<Hostile>(s.tcp(), true));
        ASSERT_TRUE(slow.back()->ok);
        ASSERT_EQ(slow.back()->private_window(16 << 20).status(), 0);
    }
    const double before = rss_mib();
    for (auto &h : slow)
        for (int k = 0; k < 4; ++k) {  // sent, never read
            v1::Request q;
            q.set_id(100 + k);
            q.mutable_get()->set_size(16 << 20);
            ASSERT_TRUE(h->s->Write(q));
        }
    std::this_thread::sleep_for(std::chrono::seconds(2));
    const double grown = rss_mib() - before;
    std::printf("slow readers: 16 clients x 4 answers of 16 MiB unread; server RSS grew %.0f MiB\n", grown);
    // 48 MiB of replies, and what gRPC copies of them; without the budget
    // every client's answers were held: over 1 GiB.
    EXPECT_LT(grown, 200.0);
    // An honest client is served meanwhile (its small replies fit).
    Hostile honest(s.sock);
    EXPECT_TRUE(honest.ok);
    EXPECT_NE(honest.alloc(4096), 0u);
    for (auto &h : slow) h->ctx.TryCancel();
    slow.clear();
    EXPECT_TRUE(serves(s));
}

// Found by the request fuzzer (tests/fuzz/fuzz_server.cpp): host data at an
// offset that is no multiple of the element size (a misaligned load), OOD
// and DEEP columns of a degree other than 1 and E, and a Merkle opening of
// matrices of another field than the profile's.
TEST(RemoteHostile, FuzzerFindings) {
    Server s;
    ASSERT_TRUE(s.start({}));
    Hostile a(s.sock);
    ASSERT_TRUE(a.ok);
    const uint64_t addr = a.alloc(1 << 16);
    ASSERT_EQ(a.private_window(1 << 16).status(), 0);
    v1::Request u;
    *u.mutable_upload()->mutable_dst() = gold_buf(addr, 8, 1);
    u.mutable_upload()->mutable_data()->set_offset(3);
    u.mutable_upload()->mutable_data()->set_size(64);
    v1::Reply r = a.send(u);
    EXPECT_EQ(r.status(), GP_ERR_INVALID_ARGUMENT);
    EXPECT_NE(r.message().find("multiple of 8"), std::string::npos) << r.message();
    u.mutable_upload()->mutable_data()->set_offset(8);
    EXPECT_EQ(a.send(u).status(), 0);
    // Columns of degree 3 in a request over the quadratic extension.
    v1::Request q;
    auto *o = q.mutable_ood();
    o->set_field(kGold);
    o->set_e(2);
    o->set_log_m(3);
    o->set_log_nb(3);
    o->set_shift(7);
    o->set_omega_n(1);
    o->add_z(5);
    o->add_z(6);
    v1::BufferRef cubic = gold_buf(addr, 8, 1);
    cubic.set_ext(3);
    *o->add_bufs() = cubic;
    r = a.send(q);
    EXPECT_EQ(r.status(), GP_ERR_INVALID_ARGUMENT) << r.message();
    *o->mutable_bufs(0) = gold_buf(addr, 8, 1);
    EXPECT_EQ(a.send(q).status(), 0);
    // BabyBear matrices under a Goldilocks profile.
    v1::Request m;
    auto *mo = m.mutable_merkle_open();
    gold_spec(mo->mutable_tree()->mutable_spec());
    mo->mutable_tree()->set_log_h(3);
    v1::BufferRef bb = gold_buf(addr, 8, 1);
    bb.set_field(GP_FIELD_BABYBEAR);
    *mo->mutable_tree()->add_committed() = bb;
    mo->add_indices(1);
    mo->set_rows(true);
    r = a.send(m);
    EXPECT_EQ(r.status(), GP_ERR_FIELD_MISMATCH) << r.message();
    EXPECT_TRUE(serves(s));
}

// ---- Progress and cancellation relayed during one request ----
//
// A context on a server that relays (every server of this build) hears of
// the progress of the request running there, and its gp_context_cancel
// reaches that request: in process and remote alike, a long call reports
// progress and stops at its next batch boundary.
namespace {

// The job lines of the server's log for `op` (ending with `status` when set).
int job_lines(const Server &s, const std::string &op, const std::string &status = "") {
    const std::string log = Server::read_text_file_or_empty(s.log);
    int n = 0;
    for (size_t at = log.find("event=job "); at != std::string::npos; at = log.find("event=job ", at + 1)) {
        const std::string line = log.substr(at, log.find('\n', at) - at);
        n += line.find(" op=" + op + " ") != std::string::npos &&
             (status.empty() || line.find(" status=" + status) != std::string::npos);
    }
    return n;
}

// Waits (a loaded machine's bound, not a timing) until `pred` holds.
bool eventually(const std::function<bool()> &pred, int ms = 120000) {
    const auto end = Clock::now() + std::chrono::milliseconds(ms);
    while (Clock::now() < end) {
        if (pred()) return true;
        std::this_thread::sleep_for(std::chrono::milliseconds(10));
    }
    return pred();
}

// The progress callback of these tests: counts reports by stage, checks
// them, cancels the call at report `cancel_at`, and at report `hold_at`
// stays in the callback until release() (the calling thread kept busy).
struct Relayed {
    gp_context *ctx = nullptr;
    std::thread::id caller = std::this_thread::get_id();
    std::map<std::string, int> stages;
    int reports = 0, cancel_at = 0, hold_at = 0;
    bool bad = false;
    std::mutex mu;
    std::condition_variable cv;
    bool holding = false, released = false;

    static void fn(void *u, const char *stage, uint64_t done, uint64_t total) {
        auto *r = static_cast<Relayed *>(u);
        r->stages[stage]++;
        if (done > total || std::this_thread::get_id() != r->caller) r->bad = true;
        ++r->reports;
        if (r->reports == r->cancel_at) gp_context_cancel(r->ctx);
        if (r->reports == r->hold_at) {
            std::unique_lock<std::mutex> lock(r->mu);
            r->holding = true;
            r->cv.notify_all();
            r->cv.wait(lock, [&] { return r->released; });
        }
    }
    bool wait_holding() {
        std::unique_lock<std::mutex> lock(mu);
        return cv.wait_for(lock, std::chrono::seconds(120), [&] { return holding; });
    }
    void release() {
        std::lock_guard<std::mutex> lock(mu);
        released = true;
        cv.notify_all();
    }
};

// One request: the LDE of a buffer (2^12 rows, 32 columns, blowup 4), on a
// server of one CPU thread, whose calling thread then runs (and reports)
// every column and coset.
struct LdeJob {
    const FieldRef &F = field_ref(GP_FIELD_GOLDILOCKS);
    HostMat input;
    BufPtr in, out;
    gp_lde_options o = make_opts(0, 4, 0, 0, GP_ORDER_BIT_REVERSED);
    explicit LdeJob(gp_context *c, uint64_t seed = 21) {
        Rng rng(seed);
        input = random_mat(F, 1u << 12, 32, 1, rng);
        EXPECT_GP_OK(upload(c, F, input, GP_LAYOUT_COL_MAJOR, &in));
        EXPECT_GP_OK(create_buffer(c, F, 1, 1u << 14, 32, &out));
    }
    gp_status run(gp_context *c) { return gp_lde_batch(c, in.get(), &o, out.get()); }
    HostMat result() {
        HostMat m;
        EXPECT_GP_OK(download(out.get(), F, GP_LAYOUT_COL_MAJOR, &m));
        return m;
    }
    // The same LDE in process.
    HostMat expected() {
        gp_context_options co;
        gp_context_options_init(&co);
        co.backend = GP_BACKEND_CPU;
        gp_context *raw = nullptr;
        EXPECT_EQ(gp_context_create(&co, &raw), GP_OK);
        CtxPtr c(raw);
        HostMat m;
        EXPECT_GP_OK(run_lde(c.get(), F, input, o, LdePath::kBuffer, GP_LAYOUT_COL_MAJOR, &m));
        return m;
    }
};

}  // namespace

// The progress callback is called many times during one request (one LDE
// job, one Merkle job on the server), on the calling thread, over the unix
// socket and TCP; the answers are those of the library in process.
TEST(RemoteRelay, ProgressReportsDuringOneRequest) {
    Server s;
    ASSERT_TRUE(s.start({"--cpu-threads", "1", "--tcp", "127.0.0.1:0"}));
    for (const std::string &ep : {s.sock, s.tcp()}) {
        SCOPED_TRACE(ep);
        CtxPtr c;
        ASSERT_GP_OK(remote_ctx(ep, &c));
        LdeJob job(c.get());
        const int ldes = job_lines(s, "lde"), commits = job_lines(s, "merkle_commit");
        Relayed log;
        ASSERT_GP_OK(gp_context_set_progress(c.get(), Relayed::fn, &log));
        ASSERT_GP_OK(job.run(c.get()));
        EXPECT_EQ(job_lines(s, "lde"), ldes + 1) << "one request";
        EXPECT_GE(log.stages["lde"], 32) << "a report per column at least";
        const gp_buffer *m = job.out.get();
        gp_merkle_tree *t = nullptr;
        ASSERT_GP_OK(gp_merkle_commit(c.get(), &m, 1, nullptr, &t));
        gp_merkle_tree_destroy(t);
        EXPECT_EQ(job_lines(s, "merkle_commit"), commits + 1) << "one request";
        EXPECT_GE(log.stages["merkle"], 2);
        EXPECT_FALSE(log.bad) << "done > total, or off the calling thread";
        ASSERT_GP_OK(gp_context_set_progress(c.get(), nullptr, nullptr));
        EXPECT_TRUE(mats_equal(job.result(), job.expected()));
    }
    EXPECT_TRUE(s.drained()) << s.status();
}

// gp_context_cancel from inside the progress callback stops the request at
// that report: the server's job ends with GP_ERR_CANCELLED, no report
// follows, and the session goes on.
TEST(RemoteRelay, CancelFromTheProgressCallbackStopsTheRequest) {
    Server s;
    ASSERT_TRUE(s.start({"--cpu-threads", "1"}));
    CtxPtr c;
    ASSERT_GP_OK(remote_ctx(s.sock, &c));
    LdeJob job(c.get());
    Relayed log;
    log.ctx = c.get();
    log.cancel_at = 3;
    ASSERT_GP_OK(gp_context_set_progress(c.get(), Relayed::fn, &log));
    EXPECT_EQ(job.run(c.get()), GP_ERR_CANCELLED);
    EXPECT_NE(std::string(gp_last_error()).find("cancelled"), std::string::npos) << gp_last_error();
    EXPECT_EQ(log.reports, 3);
    EXPECT_EQ(job_lines(s, "lde", "GP_ERR_CANCELLED"), 1);
    EXPECT_FALSE(log.bad);
    // The next call is not affected, with or without the callback.
    log.cancel_at = 0;
    ASSERT_GP_OK(job.run(c.get()));
    EXPECT_GT(log.reports, 3);
    ASSERT_GP_OK(gp_context_set_progress(c.get(), nullptr, nullptr));
    EXPECT_TRUE(mats_equal(job.result(), job.expected()));
    EXPECT_EQ(job_lines(s, "lde", "GP_OK"), 1);
}

// gp_context_cancel from another thread while the calling thread is busy in
// its progress callback (so that only the relayed Cancel can tell the
// server): the server's job ends cancelled before the callback returns,
// the call returns GP_ERR_CANCELLED, and the session goes on.
TEST(RemoteRelay, CancelFromAnotherThreadReachesTheRunningJob) {
    Server s;
    ASSERT_TRUE(s.start({"--cpu-threads", "1"}));
    CtxPtr c;
    ASSERT_GP_OK(remote_ctx(s.sock, &c));
    LdeJob job(c.get());
    gp_status st = GP_ERR_INTERNAL;
    std::string msg;
    std::thread caller([&] {
        Relayed log;
        log.hold_at = 2;
        gp_context_set_progress(c.get(), Relayed::fn, &log);
        std::thread watcher([&] {
            if (!log.wait_holding()) return;
            gp_context_cancel(c.get());
            // The job on the server stops while the caller is still held.
            EXPECT_TRUE(eventually([&] { return job_lines(s, "lde", "GP_ERR_CANCELLED") == 1; })) << s.status();
            log.release();
        });
        st = job.run(c.get());
        msg = gp_last_error();
        log.release();
        watcher.join();
        EXPECT_EQ(log.reports, 2);
        gp_context_set_progress(c.get(), nullptr, nullptr);
    });
    caller.join();
    EXPECT_EQ(st, GP_ERR_CANCELLED) << msg;
    EXPECT_NE(msg.find("cancelled"), std::string::npos) << msg;
    ASSERT_GP_OK(job.run(c.get()));
    EXPECT_TRUE(mats_equal(job.result(), job.expected()));
    EXPECT_TRUE(bytes_equal(workload(c.get(), GP_FIELD_GOLDILOCKS, 64, 3, 1), local_workload(GP_FIELD_GOLDILOCKS, 64, 3, 1)));
}

// A request waiting in the device's queue is cancelled there: one job at a
// time, held by another session whose caller sits in its progress
// callback; the waiting LDE (of a context without a callback) returns
// GP_ERR_CANCELLED at once, and both sessions go on.
TEST(RemoteRelay, CancelFromAnotherThreadDropsAQueuedRequest) {
    Server s;
    ASSERT_TRUE(s.start({"--cpu-threads", "1", "--cpu-jobs", "1"}));
    CtxPtr holder, c;
    ASSERT_GP_OK(remote_ctx(s.sock, &holder));
    ASSERT_GP_OK(remote_ctx(s.sock, &c));
    LdeJob held(holder.get(), 22), job(c.get());
    Relayed log;  // (its caller is thread h: log.bad is not looked at)
    log.hold_at = 1;
    ASSERT_GP_OK(gp_context_set_progress(holder.get(), Relayed::fn, &log));
    gp_status held_st = GP_ERR_INTERNAL, st = GP_ERR_INTERNAL;
    std::string msg;
    std::thread h([&] { held_st = held.run(holder.get()); });
    const bool holding = log.wait_holding();
    EXPECT_TRUE(holding) << "no progress report from the holder's job";
    if (!holding) {
        h.join();
        return;
    }
    std::thread t([&] {
        st = job.run(c.get());
        msg = gp_last_error();
    });
    const bool queued = status_until(s, [](const std::string &x) { return x.find("queued 1 running 1") != std::string::npos; });
    EXPECT_TRUE(queued) << s.status();
    gp_context_cancel(c.get());
    t.join();
    log.release();
    h.join();
    EXPECT_EQ(st, GP_ERR_CANCELLED) << msg;
    EXPECT_NE(msg.find("cancelled by gp_context_cancel in the queue"), std::string::npos) << msg;
    EXPECT_EQ(held_st, GP_OK);
    ASSERT_GP_OK(gp_context_set_progress(holder.get(), nullptr, nullptr));
    EXPECT_TRUE(mats_equal(held.result(), held.expected()));
    ASSERT_GP_OK(job.run(c.get()));
    EXPECT_TRUE(mats_equal(job.result(), job.expected()));
}

// The relay on the wire, from raw clients: Progress frames of a request
// that asks for them, answered with Acks and then a Cancel; stray Cancels
// and Acks get no reply in a relay session, and a reply refusing them in
// one without (older clients see what they saw before); a client that
// goes away without answering, and a malformed frame, end the session
// cleanly and the server goes on.
TEST(RemoteRelay, TheProtocolFromRawClients) {
    Server s;
    ASSERT_TRUE(s.start({"--cpu-threads", "1"}));
    v1::Reply r;
    v1::Request cancel, ack, info;
    cancel.mutable_cancel()->set_target(77);
    ack.mutable_ack()->set_seq(5);
    info.mutable_info();
    {
        Hostile old(s.sock);  // no relay asked
        ASSERT_TRUE(old.ok);
        ASSERT_TRUE(old.call(cancel, r));
        EXPECT_EQ(r.status(), GP_ERR_INVALID_ARGUMENT) << r.message();
        ASSERT_TRUE(old.call(ack, r));
        EXPECT_EQ(r.status(), GP_ERR_INVALID_ARGUMENT) << r.message();
        ASSERT_TRUE(old.call(info, r));
        EXPECT_EQ(r.status(), 0);
        EXPECT_EQ(r.id(), old.id);
    }
    auto relay_session = [&](RawSession &a) {
        v1::Request h;
        h.mutable_hello()->set_version(1);
        h.mutable_hello()->set_relay(true);
        v1::Reply hr;
        return a.call(h, hr) && hr.status() == 0 && hr.hello().relay();
    };
    // An LDE of 2^12 x 32 on buffers of the session.
    auto lde_request = [](uint64_t in, uint64_t out) {
        v1::Request q;
        auto *l = q.mutable_lde();
        l->set_field(kGold);
        l->set_ext(1);
        l->set_rows_in(1u << 12);
        l->set_cols(32);
        l->set_log_n(12);
        l->set_log_blowup(2);
        l->set_shift(7);
        l->set_input_shift(1);
        *l->mutable_in_buf() = gold_buf(in, 1u << 12, 32);
        *l->mutable_out() = gold_buf(out, 1u << 14, 32);
        return q;
    };
    {
        RawSession a(s.sock);
        ASSERT_TRUE(relay_session(a));
        // Stray frames: no reply; the next reply is Info's.
        v1::Request none_running;
        none_running.mutable_cancel()->set_target(0);
        for (const v1::Request *q : {&cancel, &ack, &none_running}) ASSERT_TRUE(a.s->Write(*q));
        ASSERT_TRUE(a.call(info, r));
        EXPECT_EQ(r.status(), 0);
        EXPECT_EQ(r.id(), a.id);
        EXPECT_FALSE(r.has_progress());
        v1::Request al;
        al.mutable_alloc()->set_bytes((1u << 12) * 32 * 8);
        ASSERT_TRUE(a.call(al, r));
        const uint64_t in = r.addr();
        al.mutable_alloc()->set_bytes((1u << 14) * 32 * 8);
        ASSERT_TRUE(a.call(al, r));
        const uint64_t out = r.addr();
        // Without the flag: no Progress frame, the reply at once.
        ASSERT_TRUE(a.call(lde_request(in, out), r));
        EXPECT_FALSE(r.has_progress());
        EXPECT_EQ(r.status(), 0) << r.message();
        // With it: Progress frames, numbered, each waiting for its answer.
        v1::Request q = lde_request(in, out);
        q.set_progress(true);
        q.set_id(++a.id);
        ASSERT_TRUE(a.s->Write(q));
        int frames = 0;
        uint64_t last_seq = 0;
        for (;;) {
            ASSERT_TRUE(a.s->Read(&r));
            ASSERT_EQ(r.id(), q.id());
            if (!r.has_progress()) break;
            ++frames;
            EXPECT_EQ(r.progress().stage(), "lde");
            EXPECT_LE(r.progress().done(), r.progress().total());
            EXPECT_GT(r.progress().seq(), last_seq);
            last_seq = r.progress().seq();
            v1::Request answer;
            if (frames < 3) answer.mutable_ack()->set_seq(r.progress().seq());
            else answer.mutable_cancel()->set_target(q.id());
            ASSERT_TRUE(a.s->Write(answer));
        }
        EXPECT_EQ(frames, 3);
        EXPECT_EQ(r.status(), GP_ERR_CANCELLED) << r.message();
        ASSERT_TRUE(a.call(info, r));
        EXPECT_EQ(r.status(), 0);
        EXPECT_EQ(r.id(), a.id);
        // Going away without answering: the session is released.
        q.set_id(++a.id);
        ASSERT_TRUE(a.s->Write(q));
        ASSERT_TRUE(a.s->Read(&r));
        EXPECT_TRUE(r.has_progress());
        a.ctx.TryCancel();
    }
    EXPECT_TRUE(s.drained()) << s.status();
    {
        // A malformed frame in a relay session: a reply, then the stream ends.
        auto ch = grpc::CreateChannel("unix:" + s.sock, grpc::InsecureChannelCredentials());
        grpc::ClientContext ctx;
        std::unique_ptr<grpc::ClientReaderWriter<grpc::ByteBuffer, grpc::ByteBuffer>> st(
            grpc::internal::ClientReaderWriterFactory<grpc::ByteBuffer, grpc::ByteBuffer>::Create(
                ch.get(), grpc::internal::RpcMethod("/gpuprover.v1.Prover/Session", grpc::internal::RpcMethod::BIDI_STREAMING),
                &ctx));
        v1::Request h;
        h.set_id(1);
        h.mutable_hello()->set_version(1);
        h.mutable_hello()->set_relay(true);
        grpc::ByteBuffer hb, in;
        bool own;
        ASSERT_TRUE((grpc::GenericSerialize<grpc::ProtoBufferWriter, v1::Request>(h, &hb, &own).ok()));
        ASSERT_TRUE(st->Write(hb) && st->Read(&in));
        const char junk[] = "\xff\xff\xff\xff\xff\x0a\x80";
        grpc::Slice sl(junk, sizeof junk - 1);
        grpc::ByteBuffer bad(&sl, 1);
        ASSERT_TRUE(st->Write(bad));
        ASSERT_TRUE(st->Read(&in)) << "no reply to a malformed message";
        ASSERT_TRUE((grpc::GenericDeserialize<grpc::ProtoBufferReader, v1::Reply>(&in, &r).ok()));
        EXPECT_NE(r.message().find("malformed"), std::string::npos) << r.message();
        EXPECT_FALSE(st->Read(&in));
    }
    EXPECT_TRUE(s.drained()) << s.status();
    EXPECT_TRUE(serves(s));
}

// ---- the direct transport (remote/frame.h) beside gRPC ----

namespace {

// Sets GPUPROVER_TRANSPORT while it lives (contexts read it when created).
struct TransportEnv {
    explicit TransportEnv(const char *t) { setenv("GPUPROVER_TRANSPORT", t, 1); }
    ~TransportEnv() { unsetenv("GPUPROVER_TRANSPORT"); }
};

// A direct connection written by hand: the preface, then frames.
struct DirectRaw {
    int fd = -1;
    uint64_t id = 0;
    explicit DirectRaw(const std::string &path, bool preface = true) {
        fd = socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0);
        sockaddr_un a{};
        a.sun_family = AF_UNIX;
        std::strncpy(a.sun_path, path.c_str(), sizeof a.sun_path - 1);
        EXPECT_EQ(connect(fd, reinterpret_cast<sockaddr *>(&a), sizeof a), 0) << path;
        timeval tv{20, 0};  // a test never waits forever on a server that went quiet
        setsockopt(fd, SOL_SOCKET, SO_RCVTIMEO, &tv, sizeof tv);
        if (preface) EXPECT_TRUE(gp::frame::write_all(fd, gp::frame::kPreface, sizeof gp::frame::kPreface));
    }
    ~DirectRaw() { close(fd); }
    bool send(v1::Request q, const std::string &payload = std::string()) {
        q.set_id(++id);
        std::string m;
        return q.SerializeToString(&m) && gp::frame::write_frame(fd, m, payload.data(), payload.size());
    }
    bool header(uint32_t message, uint32_t reserved, uint64_t payload) {
        unsigned char h[16];
        for (int i = 0; i < 4; ++i) h[i] = (unsigned char)(message >> (8 * i)), h[4 + i] = (unsigned char)(reserved >> (8 * i));
        for (int i = 0; i < 8; ++i) h[8 + i] = (unsigned char)(payload >> (8 * i));
        return gp::frame::write_all(fd, h, sizeof h);
    }
    // The next reply; false at the connection's end.
    bool reply(v1::Reply &r, std::string *payload = nullptr) {
        uint32_t mb = 0;
        uint64_t pb = 0;
        if (gp::frame::read_header(fd, 64u << 20, 64u << 20, mb, pb) != gp::frame::Read::ok) return false;
        std::string m, p;
        if (!gp::frame::read_string(fd, m, mb) || !gp::frame::read_string(fd, p, pb)) return false;
        if (payload) *payload = p;
        return r.ParseFromString(m);
    }
    bool hello(v1::Reply &r) {
        v1::Request q;
        q.mutable_hello()->set_version(1);
        return send(q) && reply(r) && r.status() == 0;
    }
    // True once the server has closed the connection.
    bool closed() {
        char c;
        return recv(fd, &c, 1, 0) == 0;
    }
};

}  // namespace

TEST(RemoteDirect, BothTransportsGiveTheSameBytes) {
    Server s;
    ASSERT_TRUE(s.start({"--tcp", "127.0.0.1:0"}));
    const Bytes want = local_workload(GP_FIELD_GOLDILOCKS, 64, 5, 9);
    const FieldRef &F = field_ref(GP_FIELD_GOLDILOCKS);
    Rng rng(11);
    // 2^18 x 9 Goldilocks: 18 MiB, two whole 8 MiB chunks and a part over TCP.
    const HostMat big = random_mat(F, 1u << 18, 9, 1, rng);
    for (const char *t : {"direct", "grpc"}) {
        TransportEnv env(t);
        for (const std::string &ep : {s.sock, s.tcp()}) {
            CtxPtr c;
            ASSERT_GP_OK(remote_ctx(ep, &c));
            EXPECT_TRUE(bytes_equal(workload(c.get(), GP_FIELD_GOLDILOCKS, 64, 5, 9), want)) << t << " " << ep;
            BufPtr b;
            ASSERT_GP_OK(upload(c.get(), F, big, GP_LAYOUT_COL_MAJOR, &b));
            HostMat back;
            ASSERT_GP_OK(download(b.get(), F, GP_LAYOUT_COL_MAJOR, &back));
            EXPECT_TRUE(back.v == big.v) << t << " " << ep;
        }
    }
    {
        TransportEnv env("carrier-pigeon");
        CtxPtr c;
        EXPECT_GP_ERR(remote_ctx(s.sock, &c), GP_ERR_INVALID_ARGUMENT);
        EXPECT_NE(std::string(gp_last_error()).find("GPUPROVER_TRANSPORT"), std::string::npos) << gp_last_error();
    }
    EXPECT_TRUE(s.drained()) << s.status();
}

// Shutdown while a relay session's request runs and its next one already
// waits in the session's reader: the running one finishes, the waiting one
// is answered (done, or refused as the server shuts down) instead of left
// without an answer while the reader waits for more, and the server exits
// once the client goes.
TEST(RemoteDirect, ShutdownAnswersTheRequestWaitingBehindTheRunningOne) {
    Server s;
    ASSERT_TRUE(s.start({"--cpu-threads", "1", "--grace-ms", "600000"}));
    DirectRaw a(s.sock);
    v1::Reply r;
    v1::Request hello;
    hello.mutable_hello()->set_version(1);
    hello.mutable_hello()->set_relay(true);
    ASSERT_TRUE(a.send(hello) && a.reply(r));
    ASSERT_EQ(r.status(), 0) << r.message();
    const uint64_t states = 1u << 13, bytes = states * 12 * 8;  // RPO states of the zero window
    v1::Request w;
    w.mutable_attach_shm()->set_bytes(bytes);
    ASSERT_TRUE(a.send(w) && a.reply(r));
    ASSERT_EQ(r.status(), 0) << r.message();
    v1::Request job, info;
    job.mutable_permute()->set_perm(GP_PERM_RPO256);
    job.mutable_permute()->set_count(states);
    job.mutable_permute()->mutable_states()->set_size(bytes);
    info.mutable_info();
    ASSERT_TRUE(a.send(job) && a.send(info));  // ids 3 and 4
    std::this_thread::sleep_for(std::chrono::milliseconds(100));
    kill(s.pid, SIGTERM);
    ASSERT_TRUE(a.reply(r)) << "the running request's answer";
    EXPECT_EQ(r.id(), 3u);
    EXPECT_EQ(r.status(), 0) << r.message();
    ASSERT_TRUE(a.reply(r)) << "the waiting request's answer";
    EXPECT_EQ(r.id(), 4u);
    EXPECT_TRUE(r.status() == 0 || (r.status() == GP_ERR_REMOTE && r.message().find("shutting down") != std::string::npos))
        << r.status() << " " << r.message();
    close(a.fd);
    a.fd = -1;
    const int code = wait_exit(s.pid, 300000);
    s.pid = -1;
    EXPECT_TRUE(code != -1 && WIFEXITED(code) && WEXITSTATUS(code) == 0) << code;
}

TEST(RemoteDirect, MalformedFramesEndOnlyTheirSession) {
    Server s;
    ASSERT_TRUE(s.start({"--max-message-mib", "1"}));
    v1::Reply r;
    v1::Request info;
    info.mutable_info();
    {
        // A length beyond the limit: answered, then the connection ends
        // (nothing of the frame is read).
        DirectRaw a(s.sock);
        ASSERT_TRUE(a.hello(r)) << r.message();
        ASSERT_TRUE(a.header(3u << 20, 0, 0));
        ASSERT_TRUE(a.reply(r));
        EXPECT_EQ(r.status(), GP_ERR_INVALID_ARGUMENT);
        EXPECT_NE(r.message().find("exceeds the server's limits"), std::string::npos) << r.message();
        EXPECT_TRUE(a.closed());
    }
    {
        // A payload beyond the limit, and a nonzero reserved word.
        DirectRaw a(s.sock), b(s.sock);
        ASSERT_TRUE(a.hello(r) && b.hello(r));
        ASSERT_TRUE(a.header(8, 0, 2u << 20));
        ASSERT_TRUE(a.reply(r));
        EXPECT_EQ(r.status(), GP_ERR_INVALID_ARGUMENT) << r.message();
        ASSERT_TRUE(b.header(8, 1, 0));
        ASSERT_TRUE(b.reply(r));
        EXPECT_NE(r.message().find("reserved"), std::string::npos) << r.message();
        EXPECT_TRUE(a.closed() && b.closed());
    }
    {
        // A payload beside anything but a Put: malformed, the session ends.
        DirectRaw a(s.sock);
        ASSERT_TRUE(a.hello(r));
        ASSERT_TRUE(a.send(info, "bulk"));
        ASSERT_TRUE(a.reply(r));
        EXPECT_EQ(r.status(), GP_ERR_INVALID_ARGUMENT);
        EXPECT_NE(r.message().find("malformed"), std::string::npos) << r.message();
        EXPECT_TRUE(a.closed());
        DirectRaw h(s.sock);
        v1::Request q;
        q.mutable_hello()->set_version(1);
        ASSERT_TRUE(h.send(q, "bulk"));  // ... the first one too
        ASSERT_TRUE(h.reply(r));
        EXPECT_EQ(r.status(), GP_ERR_REMOTE);
        EXPECT_TRUE(h.closed());
    }
    {
        // A Put of the window through the payload, read back by Get.
        DirectRaw a(s.sock);
        ASSERT_TRUE(a.hello(r));
        v1::Request w;
        w.mutable_attach_shm()->set_bytes(1u << 16);
        ASSERT_TRUE(a.send(w) && a.reply(r));
        ASSERT_EQ(r.status(), 0) << r.message();
        v1::Request put, get;
        put.mutable_put()->set_offset(100);
        get.mutable_get()->set_offset(100);
        get.mutable_get()->set_size(5);
        ASSERT_TRUE(a.send(put, "hello") && a.reply(r));
        ASSERT_EQ(r.status(), 0) << r.message();
        std::string got;
        ASSERT_TRUE(a.send(get) && a.reply(r, &got));
        ASSERT_EQ(r.status(), 0) << r.message();
        EXPECT_EQ(got, "hello");
        EXPECT_TRUE(r.data().empty());  // the bytes came beside the message
        put.mutable_put()->set_offset((1u << 16) - 2);  // past the window's end
        ASSERT_TRUE(a.send(put, "hello") && a.reply(r));
        EXPECT_EQ(r.status(), GP_ERR_INVALID_ARGUMENT) << r.message();
        ASSERT_TRUE(a.send(info) && a.reply(r));  // the session goes on
        EXPECT_EQ(r.status(), 0) << r.message();
    }
    {
        // A frame cut short, a wrong preface, a connection that says nothing.
        DirectRaw a(s.sock);
        ASSERT_TRUE(a.hello(r));
        ASSERT_TRUE(a.header(100, 0, 0));
        ASSERT_TRUE(gp::frame::write_all(a.fd, "abc", 3));
        DirectRaw b(s.sock, false), quiet(s.sock, false);
        ASSERT_TRUE(gp::frame::write_all(b.fd, "GPWRONG!", 8));
        EXPECT_TRUE(b.closed());
    }
    CtxPtr c;
    ASSERT_GP_OK(remote_ctx(s.sock, &c));
    EXPECT_TRUE(bytes_equal(workload(c.get(), GP_FIELD_GOLDILOCKS, 32, 3, 2), local_workload(GP_FIELD_GOLDILOCKS, 32, 3, 2)));
    c.reset();
    EXPECT_TRUE(s.drained()) << s.status();
}
