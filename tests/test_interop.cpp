// SPDX-License-Identifier: MIT OR Apache-2.0
// Fitting into a prover: buffers over the caller's memory, DLPack, streams
// (refused on the CPU backend), cancellation, progress, the log callback and
// the counters. CPU backend; tests/test_interop_cuda.cu covers the device.
#include <gtest/gtest.h>

#include <dlpack/dlpack.h>

#include <atomic>
#include <chrono>
#include <functional>
#include <cstdint>
#include <cstring>
#include <set>
#include <string>
#include <thread>
#include <vector>

#include "test_util.h"

using namespace gpt;

namespace {

const FieldRef &GL() { return field_ref(GP_FIELD_GOLDILOCKS); }

HostMat trace(uint64_t rows, uint64_t cols, uint32_t d, uint64_t seed) {
    Rng rng(seed);
    return random_mat(GL(), rows, cols, d, rng);
}

// The buffer layout of a host matrix: base columns, one after another.
std::vector<uint64_t> base_columns(const HostMat &m) {
    std::vector<uint64_t> v;
    for (uint64_t c = 0; c < m.cols; ++c)
        for (uint32_t k = 0; k < m.d; ++k)
            for (uint64_t r = 0; r < m.rows; ++r) v.push_back(m.at(r, c, k));
    return v;
}

std::vector<uint64_t> lde_of(gp_context *ctx, gp_buffer *in, uint64_t out_rows, uint64_t cols, uint32_t d) {
    BufPtr out;
    EXPECT_GP_OK(create_buffer(ctx, GL(), d, out_rows, cols, &out));
    gp_lde_options o;
    gp_lde_options_init(&o);
    o.blowup = (uint32_t)(out_rows / gp_buffer_rows(in));
    EXPECT_GP_OK(gp_lde_batch(ctx, in, &o, out.get()));
    HostMat m;
    EXPECT_GP_OK(download(out.get(), GL(), GP_LAYOUT_COL_MAJOR, &m));
    return m.v;
}

CtxPtr cpu(uint32_t threads = 2) {
    CtxPtr c;
    EXPECT_GP_OK(make_context(GP_BACKEND_CPU, &c, threads));
    return c;
}

TEST(Interop, WrappedHostMemoryIsUsedInPlace) {
    CtxPtr c = cpu();
    const HostMat t = trace(64, 3, 2, 1);
    std::vector<uint64_t> mem = base_columns(t);
    gp_buffer *w = nullptr;
    ASSERT_GP_OK(gp_buffer_wrap(c.get(), GP_FIELD_GOLDILOCKS, 2, 64, 3, mem.data(), &w));
    BufPtr wrapped(w);
    void *p = nullptr;
    ASSERT_GP_OK(gp_buffer_data(w, &p));
    EXPECT_EQ(p, mem.data());
    // Same LDE as from an uploaded copy.
    BufPtr up;
    ASSERT_GP_OK(upload(c.get(), GL(), t, GP_LAYOUT_COL_MAJOR, &up));
    EXPECT_EQ(lde_of(c.get(), w, 256, 3, 2), lde_of(c.get(), up.get(), 256, 3, 2));
    // As an output: the NTT writes into the caller's memory.
    gp_ntt_options o;
    gp_ntt_options_init(&o);
    ASSERT_GP_OK(gp_ntt_batch(c.get(), w, &o));
    ASSERT_GP_OK(gp_ntt_batch(c.get(), up.get(), &o));
    HostMat m;
    ASSERT_GP_OK(download(up.get(), GL(), GP_LAYOUT_COL_MAJOR, &m));
    HostMat back(64, 3, 2);
    back.v = m.v;
    EXPECT_EQ(mem, base_columns(back));
    wrapped.reset();  // the memory stays the caller's
    mem[0] = 1;
}

TEST(Interop, WrapChecksItsArguments) {
    CtxPtr c = cpu();
    std::vector<uint64_t> mem(17, 5);
    gp_buffer *w = nullptr;
    EXPECT_EQ(gp_buffer_wrap(c.get(), GP_FIELD_GOLDILOCKS, 1, 16, 1, nullptr, &w), GP_ERR_NULL_POINTER);
    EXPECT_EQ(gp_buffer_wrap(c.get(), GP_FIELD_GOLDILOCKS, 1, 8, 1, reinterpret_cast<char *>(mem.data()) + 4, &w),
              GP_ERR_INVALID_ARGUMENT);
    EXPECT_NE(std::string(gp_last_error()).find("aligned"), std::string::npos) << gp_last_error();
    mem[9] = ~0ull;
    EXPECT_EQ(gp_buffer_wrap(c.get(), GP_FIELD_GOLDILOCKS, 1, 16, 1, mem.data(), &w), GP_ERR_NON_CANONICAL);
    EXPECT_NE(std::string(gp_last_error()).find("data[9]"), std::string::npos) << gp_last_error();
    EXPECT_EQ(w, nullptr);
    EXPECT_EQ(gp_buffer_wrap(c.get(), GP_FIELD_GOLDILOCKS, 1, 0, 1, mem.data(), &w), GP_ERR_INVALID_ARGUMENT);
    EXPECT_EQ(gp_buffer_wrap(c.get(), GP_FIELD_GOLDILOCKS, 1, 1ull << 62, 8, mem.data(), &w), GP_ERR_SIZE_OVERFLOW);
    EXPECT_EQ(gp_context_set_stream(c.get(), mem.data()), GP_ERR_UNSUPPORTED);
    EXPECT_GP_OK(gp_context_set_stream(c.get(), nullptr));
}

struct DeleterLog {
    static int calls;
    static void deleter(DLManagedTensor *) { ++calls; }
};
int DeleterLog::calls = 0;

TEST(Interop, DlpackExportAndImport) {
    CtxPtr c = cpu();
    const HostMat t = trace(32, 2, 3, 2);
    BufPtr b;
    ASSERT_GP_OK(upload(c.get(), GL(), t, GP_LAYOUT_COL_MAJOR, &b));
    DLManagedTensor *x = nullptr;
    ASSERT_GP_OK(gp_buffer_to_dlpack(b.get(), &x));
    const DLTensor &d = x->dl_tensor;
    EXPECT_EQ(d.device.device_type, kDLCPU);
    EXPECT_EQ(d.ndim, 2);
    EXPECT_EQ(d.shape[0], 6);
    EXPECT_EQ(d.shape[1], 32);
    EXPECT_EQ(d.strides[0], 32);
    EXPECT_EQ(d.strides[1], 1);
    EXPECT_EQ(d.dtype.code, kDLUInt);
    EXPECT_EQ(d.dtype.bits, 64);
    const std::vector<uint64_t> cols = base_columns(t);
    EXPECT_EQ(std::memcmp(d.data, cols.data(), cols.size() * 8), 0);
    // Imported back (the importer owns the tensor and deletes it).
    gp_buffer *imp = nullptr;
    ASSERT_GP_OK(gp_buffer_from_dlpack(c.get(), GP_FIELD_GOLDILOCKS, 3, x, &imp));
    EXPECT_EQ(gp_buffer_cols(imp), 2u);
    EXPECT_EQ(lde_of(c.get(), imp, 64, 2, 3), lde_of(c.get(), b.get(), 64, 2, 3));
    gp_buffer_destroy(imp);

    // A tensor of the caller's: its deleter runs once, when the buffer goes.
    std::vector<uint64_t> mem(cols);
    int64_t shape[2] = {6, 32};
    DLManagedTensor mine{};
    mine.dl_tensor.data = mem.data();
    mine.dl_tensor.device = DLDevice{kDLCPU, 0};
    mine.dl_tensor.ndim = 2;
    mine.dl_tensor.dtype = DLDataType{kDLUInt, 64, 1};
    mine.dl_tensor.shape = shape;
    mine.deleter = DeleterLog::deleter;
    DeleterLog::calls = 0;
    // Refusals leave the tensor the caller's (no deleter call).
    gp_buffer *bad = nullptr;
    EXPECT_EQ(gp_buffer_from_dlpack(c.get(), GP_FIELD_BABYBEAR, 1, &mine, &bad), GP_ERR_FIELD_MISMATCH);
    EXPECT_EQ(gp_buffer_from_dlpack(c.get(), GP_FIELD_GOLDILOCKS, 4, &mine, &bad), GP_ERR_UNSUPPORTED);
    int64_t strides[2] = {1, 6};
    mine.dl_tensor.strides = strides;
    EXPECT_EQ(gp_buffer_from_dlpack(c.get(), GP_FIELD_GOLDILOCKS, 3, &mine, &bad), GP_ERR_SHAPE_MISMATCH);
    mine.dl_tensor.strides = nullptr;
    mine.dl_tensor.device = DLDevice{kDLCUDA, 0};
    EXPECT_EQ(gp_buffer_from_dlpack(c.get(), GP_FIELD_GOLDILOCKS, 3, &mine, &bad), GP_ERR_CONTEXT_MISMATCH);
    mine.dl_tensor.device = DLDevice{kDLCPU, 0};
    shape[0] = 5;
    EXPECT_EQ(gp_buffer_from_dlpack(c.get(), GP_FIELD_GOLDILOCKS, 3, &mine, &bad), GP_ERR_SHAPE_MISMATCH);
    shape[0] = 6;
    EXPECT_EQ(DeleterLog::calls, 0);
    ASSERT_GP_OK(gp_buffer_from_dlpack(c.get(), GP_FIELD_GOLDILOCKS, 3, &mine, &imp));
    EXPECT_EQ(lde_of(c.get(), imp, 64, 2, 3), lde_of(c.get(), b.get(), 64, 2, 3));
    EXPECT_EQ(DeleterLog::calls, 0);
    gp_buffer_destroy(imp);
    EXPECT_EQ(DeleterLog::calls, 1);
    // Releasing the context releases an import too.
    {
        CtxPtr c2 = cpu();
        ASSERT_GP_OK(gp_buffer_from_dlpack(c2.get(), GP_FIELD_GOLDILOCKS, 3, &mine, &imp));
    }
    EXPECT_EQ(DeleterLog::calls, 2);
}

// Cancelled from the progress callback of the call itself: the call ends
// with GP_ERR_CANCELLED, keeps nothing, and the context goes on.
struct Cancel {
    gp_context *ctx;
    int reports = 0, at = 1;
    static void progress(void *u, const char *, uint64_t, uint64_t) {
        auto *s = static_cast<Cancel *>(u);
        if (++s->reports == s->at) gp_context_cancel(s->ctx);
    }
};

gp_status challenge(void *, uint32_t layer, const void *, uint64_t, void *beta, uint64_t size) {
    for (uint64_t i = 0; i < size / 8; ++i) static_cast<uint64_t *>(beta)[i] = 7 + layer + i;
    return GP_OK;
}

TEST(Cancel, EveryLongCallStopsAndTheContextGoesOn) {
    CtxPtr c = cpu();
    BufPtr t, lde, ev, cw;
    ASSERT_GP_OK(upload(c.get(), GL(), trace(256, 8, 1, 3), GP_LAYOUT_COL_MAJOR, &t));
    ASSERT_GP_OK(create_buffer(c.get(), GL(), 1, 1024, 8, &lde));
    ASSERT_GP_OK(upload(c.get(), GL(), trace(256, 1, 2, 4), GP_LAYOUT_COL_MAJOR, &ev));
    ASSERT_GP_OK(upload(c.get(), GL(), trace(256, 1, 3, 5), GP_LAYOUT_COL_MAJOR, &cw));
    gp_lde_options lo;
    gp_lde_options_init(&lo);
    lo.blowup = 4;
    gp_ntt_options no;
    gp_ntt_options_init(&no);
    const gp_buffer *m = t.get();
    const uint64_t z[3] = {9, 8, 7};
    std::vector<uint64_t> ood(8 * 3);
    struct Case {
        const char *name;
        std::function<gp_status()> run;
    };
    const std::vector<Case> cases = {
        {"lde", [&] { return gp_lde_batch(c.get(), t.get(), &lo, lde.get()); }},
        {"ntt", [&] { return gp_ntt_batch(c.get(), lde.get(), &no); }},
        {"merkle",
         [&] {
             gp_merkle_tree *tr = nullptr;
             gp_status st = gp_merkle_commit(c.get(), &m, 1, nullptr, &tr);
             gp_merkle_tree_destroy(tr);
             return st;
         }},
        {"fri",
         [&] {
             gp_fri *f = nullptr;
             gp_status st = gp_fri_commit(c.get(), cw.get(), nullptr, challenge, nullptr, &f);
             gp_fri_destroy(f);
             return st;
         }},
        {"constraint",
         [&] {
             gp_buffer *s = nullptr;
             gp_merkle_tree *tr = nullptr;
             gp_status st = gp_constraint_commit(c.get(), ev.get(), nullptr, &s, &tr);
             gp_merkle_tree_destroy(tr);
             gp_buffer_destroy(s);
             return st;
         }},
        {"ood", [&] { return gp_evaluate_ood(c.get(), &m, 1, nullptr, z, 1, ood.data(), ood.size() * 8); }},
    };
    gp_memory_stats s;
    s.struct_size = sizeof s;
    ASSERT_GP_OK(gp_context_memory_stats(c.get(), &s));
    const uint64_t base = s.buffer_bytes;
    for (const Case &k : cases) {
        SCOPED_TRACE(k.name);
        Cancel cancel{c.get()};
        ASSERT_GP_OK(gp_context_set_progress(c.get(), Cancel::progress, &cancel));
        EXPECT_EQ(k.run(), GP_ERR_CANCELLED) << gp_last_error();
        EXPECT_NE(std::string(gp_last_error()).find("cancelled"), std::string::npos) << gp_last_error();
        EXPECT_GE(cancel.reports, 1);
        ASSERT_GP_OK(gp_context_set_progress(c.get(), nullptr, nullptr));
        ASSERT_GP_OK(gp_context_memory_stats(c.get(), &s));
        EXPECT_EQ(s.buffer_bytes, base);
        EXPECT_EQ(k.run(), GP_OK) << gp_last_error();  // the next call is not affected
    }
    // Cancelling an idle context does nothing to the next call.
    ASSERT_GP_OK(gp_context_cancel(c.get()));
    EXPECT_GP_OK(gp_lde_batch(c.get(), t.get(), &lo, lde.get()));
}

TEST(Cancel, FromAnotherThread) {
    CtxPtr c = cpu(2);
    BufPtr big, out;
    ASSERT_GP_OK(create_buffer(c.get(), GL(), 1, 1u << 16, 64, &big));
    std::atomic<bool> started{false};
    struct P {
        std::atomic<bool> *started;
        static void fn(void *u, const char *, uint64_t, uint64_t) { *static_cast<P *>(u)->started = true; }
    } p{&started};
    ASSERT_GP_OK(gp_context_set_progress(c.get(), P::fn, &p));
    std::thread canceller([&] {
        const auto t0 = std::chrono::steady_clock::now();
        while (!started && std::chrono::steady_clock::now() - t0 < std::chrono::seconds(30)) std::this_thread::yield();
        gp_context_cancel(c.get());
    });
    const gp_buffer *m = big.get();
    gp_merkle_options mo;
    gp_merkle_options_init(&mo);
    mo.perm = GP_PERM_POSEIDON2_GOLDILOCKS_12;
    gp_merkle_tree *tr = nullptr;
    // 2^16 leaves of 64 elements: long enough on two threads to be cancelled
    // well before its end (each part of 4096 leaves checks).
    const gp_status st = gp_merkle_commit(c.get(), &m, 1, &mo, &tr);
    canceller.join();
    gp_merkle_tree_destroy(tr);
    EXPECT_EQ(st, GP_ERR_CANCELLED) << gp_last_error();
}

// Progress reports: stage names, done <= total, on the calling thread.
TEST(Progress, ReportsEachStageOnTheCallingThread) {
    CtxPtr c = cpu(4);
    struct Log {
        std::thread::id caller;
        std::set<std::string> stages;
        bool bad = false;
        static void fn(void *u, const char *stage, uint64_t done, uint64_t total) {
            auto *l = static_cast<Log *>(u);
            l->stages.insert(stage);
            if (done > total || std::this_thread::get_id() != l->caller) l->bad = true;
        }
    } log{std::this_thread::get_id()};
    ASSERT_GP_OK(gp_context_set_progress(c.get(), Log::fn, &log));
    BufPtr t, lde;
    ASSERT_GP_OK(upload(c.get(), GL(), trace(128, 16, 1, 6), GP_LAYOUT_COL_MAJOR, &t));
    ASSERT_GP_OK(create_buffer(c.get(), GL(), 1, 512, 16, &lde));
    gp_lde_options lo;
    gp_lde_options_init(&lo);
    lo.blowup = 4;
    ASSERT_GP_OK(gp_lde_batch(c.get(), t.get(), &lo, lde.get()));
    const gp_buffer *m = lde.get();
    gp_merkle_tree *tr = nullptr;
    ASSERT_GP_OK(gp_merkle_commit(c.get(), &m, 1, nullptr, &tr));
    gp_merkle_tree_destroy(tr);
    EXPECT_FALSE(log.bad);
    EXPECT_EQ(log.stages, (std::set<std::string>{"lde", "merkle"}));
}

// Counters, per-entry statistics and the log callback.
TEST(Counters, CallsFailuresTimesAndLogLines) {
    CtxPtr c = cpu();
    std::vector<std::string> lines;
    ASSERT_GP_OK(gp_context_set_log(
        c.get(), [](void *u, const char *line) { static_cast<std::vector<std::string> *>(u)->push_back(line); },
        &lines));
    ASSERT_GP_OK(gp_context_reset_counters(c.get()));
    BufPtr t, lde;
    ASSERT_GP_OK(upload(c.get(), GL(), trace(64, 2, 1, 7), GP_LAYOUT_COL_MAJOR, &t));
    ASSERT_GP_OK(create_buffer(c.get(), GL(), 1, 128, 2, &lde));
    for (int i = 0; i < 3; ++i) ASSERT_GP_OK(gp_lde_batch(c.get(), t.get(), nullptr, lde.get()));
    gp_lde_options bad;
    gp_lde_options_init(&bad);
    bad.blowup = 3;
    EXPECT_EQ(gp_lde_batch(c.get(), t.get(), &bad, lde.get()), GP_ERR_INVALID_ARGUMENT);
    gp_counters k;
    k.struct_size = sizeof k;
    ASSERT_GP_OK(gp_context_counters(c.get(), &k));
    // reset, from_host, create, 3 + 1 LDEs (the counters call counts after).
    EXPECT_EQ(k.calls, 7u);
    EXPECT_EQ(k.failed_calls, 1u);
    EXPECT_GT(k.call_ns, 0u);
    EXPECT_EQ(k.bytes_to_device, 0u);  // CPU backend
    size_t n = 0;
    ASSERT_GP_OK(gp_context_call_stats(c.get(), nullptr, 0, &n));
    std::vector<gp_call_stats> st(n + 1);  // this first call adds an entry
    ASSERT_GP_OK(gp_context_call_stats(c.get(), st.data(), st.size(), &n));
    ASSERT_EQ(n, st.size());
    bool found = false;
    for (const gp_call_stats &s : st)
        if (std::string(s.name) == "gp_lde_batch") {
            found = true;
            EXPECT_EQ(s.calls, 4u);
            EXPECT_EQ(s.failed_calls, 1u);
        }
    EXPECT_TRUE(found);
    // set_log, reset, from_host, create, 3 LDEs, the failed one.
    ASSERT_GE(lines.size(), 8u);
    EXPECT_EQ(lines[3].rfind("gp_buffer_create GP_OK ", 0), 0u) << lines[3];
    EXPECT_EQ(lines[7].rfind("gp_lde_batch GP_ERR_INVALID_ARGUMENT ", 0), 0u) << lines[7];
    EXPECT_NE(lines[7].find("blowup = 3"), std::string::npos) << lines[7];
    ASSERT_GP_OK(gp_context_set_log(c.get(), nullptr, nullptr));
    ASSERT_GP_OK(gp_context_reset_counters(c.get()));
    k.struct_size = sizeof k;
    ASSERT_GP_OK(gp_context_counters(c.get(), &k));
    EXPECT_EQ(k.calls, 1u);  // the reset itself
    EXPECT_EQ(gp_context_call_stats(c.get(), nullptr, 1, &n), GP_ERR_NULL_POINTER);
}

}  // namespace

namespace {

// A log callback that calls the library (on another context) does not
// replace the logged call's message.
TEST(Counters, LogCallbackKeepsTheCallersMessage) {
    CtxPtr c = cpu(), other = cpu();
    struct Ctx2 {
        gp_context *other;
        static void fn(void *u, const char *) {
            gp_buffer *b = nullptr;  // fails: 0 rows
            gp_buffer_create(static_cast<Ctx2 *>(u)->other, GP_FIELD_GOLDILOCKS, 1, 0, 1, &b);
        }
    } u{other.get()};
    ASSERT_GP_OK(gp_context_set_log(c.get(), Ctx2::fn, &u));
    gp_buffer *b = nullptr;
    EXPECT_EQ(gp_buffer_create(c.get(), GP_FIELD_GOLDILOCKS, 4, 4, 1, &b), GP_ERR_UNSUPPORTED);
    EXPECT_NE(std::string(gp_last_error()).find("ext_degree = 4"), std::string::npos) << gp_last_error();
    ASSERT_GP_OK(gp_context_set_log(c.get(), nullptr, nullptr));
}

}  // namespace

/* gp_host_alloc: memory the context transfers fastest, used as host input and
 * output like any other, released by gp_host_free or with the context. */
TEST(Interop, HostAllocServesAsHostInputAndOutput) {
    for (gp_backend b : {GP_BACKEND_CPU, GP_BACKEND_CUDA}) {
        if (b == GP_BACKEND_CUDA && !cuda_available()) continue;
        CtxPtr ctx;
        ASSERT_GP_OK(make_context(b, &ctx));
        const FieldRef &F = field_ref(GP_FIELD_GOLDILOCKS);
        Rng rng(3);
        const HostMat in = random_mat(F, 64, 5, 1, rng);
        void *mem = nullptr;
        ASSERT_GP_OK(gp_host_alloc(ctx.get(), in.v.size() * 8, &mem));
        ASSERT_NE(mem, nullptr);
        EXPECT_EQ(reinterpret_cast<uintptr_t>(mem) % 4096, 0u);
        std::memcpy(mem, in.v.data(), in.v.size() * 8);
        gp_lde_options o = make_opts(0, 4, 0, 0, GP_ORDER_BIT_REVERSED);
        BufPtr out;
        ASSERT_GP_OK(create_buffer(ctx.get(), F, 1, 256, 5, &out));
        ASSERT_GP_OK(gp_lde_batch_host(ctx.get(), F.field, 1, mem, 64, 5, &o, out.get()));
        void *back = nullptr;
        ASSERT_GP_OK(gp_host_alloc(ctx.get(), 256 * 5 * 8, &back));
        ASSERT_GP_OK(gp_buffer_to_host(out.get(), GP_LAYOUT_COL_MAJOR, back, 256 * 5 * 8));
        const HostMat want = naive_lde_for(F, in, o);
        EXPECT_EQ(std::memcmp(back, want.v.data(), 256 * 5 * 8), 0) << backend_name(b);
        ASSERT_GP_OK(gp_host_free(ctx.get(), mem));
        EXPECT_GP_ERR(gp_host_free(ctx.get(), mem), GP_ERR_INVALID_ARGUMENT);  // twice
        std::vector<uint64_t> other(4);
        EXPECT_GP_ERR(gp_host_free(ctx.get(), other.data()), GP_ERR_INVALID_ARGUMENT);
        EXPECT_GP_OK(gp_host_free(ctx.get(), nullptr));
        EXPECT_GP_ERR(gp_host_alloc(ctx.get(), 0, &mem), GP_ERR_INVALID_ARGUMENT);
        EXPECT_GP_ERR(gp_host_alloc(ctx.get(), 8, nullptr), GP_ERR_NULL_POINTER);
        out.reset();
        gp_context_destroy(ctx.release());  // `back` goes with the context
        EXPECT_NE(std::string(gp_last_error()).find("released 1"), std::string::npos) << gp_last_error();
    }
}
