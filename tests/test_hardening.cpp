// SPDX-License-Identifier: MIT OR Apache-2.0
// Regression tests of the hardening of the C API: size products that wrap,
// allocation failures (injected through the test-only hook), the table
// cache, thread-pool start failures, enums from C, argument names in
// messages, dead handles, contexts shared between threads, and contexts that
// own their FRI commitments.
#include <gtest/gtest.h>

#include <sys/resource.h>
#include <sys/wait.h>
#include <unistd.h>

#include <atomic>
#include <cctype>
#include <csignal>
#include <cstdio>
#include <cstddef>
#include <cstdint>
#include <functional>
#include <string>
#include <thread>
#include <vector>

#include "enum_calls.h"
#include "test_util.h"

using namespace gpt;

namespace {

constexpr int kHost = 0, kDevice = 1;

// Turns the allocation hook off when a test ends, whatever happened.
struct FaultOff {
    ~FaultOff() {
        gp_testing_fail_allocation(kHost, 0);
        gp_testing_fail_allocation(kDevice, 0);
    }
};

uint64_t buffer_bytes(gp_context *ctx) {
    gp_memory_stats s;
    s.struct_size = sizeof s;
    EXPECT_EQ(gp_context_memory_stats(ctx, &s), GP_OK) << gp_last_error();
    return s.buffer_bytes;
}

std::vector<uint64_t> words(const gp_buffer *b) {
    const FieldRef &F = field_ref(gp_buffer_field(b));
    HostMat m;
    EXPECT_EQ(download(b, F, GP_LAYOUT_COL_MAJOR, &m), GP_OK) << gp_last_error();
    return m.v;
}

// Each operation runs on a context, releases what it created, and appends
// what it computed to `out`; it returns the first failing status.
using Op = std::function<gp_status(gp_context *, std::vector<uint64_t> &)>;

#define GP_TRY(call)                          \
    do {                                      \
        gp_status st_ = (call);               \
        if (st_ != GP_OK) return st_;         \
    } while (0)

const FieldRef &GL() { return field_ref(GP_FIELD_GOLDILOCKS); }

HostMat trace(uint64_t rows, uint64_t cols, uint32_t d, uint64_t seed) {
    Rng rng(seed);
    return random_mat(GL(), rows, cols, d, rng);
}

gp_status op_lde(gp_context *ctx, std::vector<uint64_t> &out) {
    const HostMat t = trace(64, 3, 1, 1);
    BufPtr lde;
    GP_TRY(create_buffer(ctx, GL(), 1, 256, 3, &lde));
    gp_lde_options o;
    gp_lde_options_init(&o);
    o.blowup = 4;
    o.output_order = GP_ORDER_BIT_REVERSED;
    ApiData d(t.v, 8);
    GP_TRY(gp_lde_batch_host(ctx, GP_FIELD_GOLDILOCKS, 1, d.data(), 64, 3, &o, lde.get()));
    // A second LDE of another shift reaches another coset table.
    BufPtr in, lde2;
    GP_TRY(upload(ctx, GL(), t, GP_LAYOUT_COL_MAJOR, &in));
    GP_TRY(create_buffer(ctx, GL(), 1, 128, 3, &lde2));
    o.blowup = 2;
    o.shift = 5;
    GP_TRY(gp_lde_batch(ctx, in.get(), &o, lde2.get()));
    for (const gp_buffer *b : {lde.get(), lde2.get()})
        for (uint64_t w : words(b)) out.push_back(w);
    return GP_OK;
}

gp_status op_ntt(gp_context *ctx, std::vector<uint64_t> &out) {
    BufPtr b;
    GP_TRY(upload(ctx, GL(), trace(128, 2, 2, 2), GP_LAYOUT_COL_MAJOR, &b));
    gp_ntt_options o;
    gp_ntt_options_init(&o);
    o.shift = 7;
    GP_TRY(gp_ntt_batch(ctx, b.get(), &o));
    for (uint64_t w : words(b.get())) out.push_back(w);
    o.direction = GP_NTT_INVERSE;
    GP_TRY(gp_ntt_batch(ctx, b.get(), &o));
    for (uint64_t w : words(b.get())) out.push_back(w);
    return GP_OK;
}

struct TreeDeleter {
    void operator()(gp_merkle_tree *t) const { gp_merkle_tree_destroy(t); }
};
using TreePtr = std::unique_ptr<gp_merkle_tree, TreeDeleter>;
struct FriDeleter {
    void operator()(gp_fri *f) const { gp_fri_destroy(f); }
};
using FriPtr = std::unique_ptr<gp_fri, FriDeleter>;

gp_status op_merkle(gp_context *ctx, std::vector<uint64_t> &out) {
    BufPtr a, b;
    GP_TRY(upload(ctx, GL(), trace(64, 5, 1, 3), GP_LAYOUT_COL_MAJOR, &a));
    GP_TRY(upload(ctx, GL(), trace(16, 2, 2, 4), GP_LAYOUT_COL_MAJOR, &b));
    const gp_buffer *mats[2] = {a.get(), b.get()};
    gp_merkle_options o;
    gp_merkle_options_init(&o);
    o.perm = GP_PERM_POSEIDON2_GOLDILOCKS_12;
    o.cap_height = 1;
    gp_merkle_tree *raw = nullptr;
    GP_TRY(gp_merkle_commit(ctx, mats, 2, &o, &raw));
    TreePtr t(raw);
    std::vector<uint64_t> cap(gp_merkle_cap_size(t.get()) / 8);
    GP_TRY(gp_merkle_cap(t.get(), cap.data(), cap.size() * 8));
    uint64_t rb = 0, pb = 0;
    GP_TRY(gp_merkle_opening_size(t.get(), &rb, &pb));
    std::vector<uint64_t> rows(2 * rb / 8), paths(2 * pb / 8);
    const uint64_t idx[2] = {3, 60};
    GP_TRY(gp_merkle_open(t.get(), idx, 2, rows.data(), rows.size() * 8, paths.data(), paths.size() * 8));
    for (auto *v : {&cap, &rows, &paths}) out.insert(out.end(), v->begin(), v->end());
    return GP_OK;
}

gp_status challenge(void *, uint32_t layer, const void *, uint64_t, void *beta, uint64_t size) {
    for (uint64_t i = 0; i < size / 8; ++i) static_cast<uint64_t *>(beta)[i] = 1000 + 17 * layer + i;
    return GP_OK;
}

gp_status op_fri(gp_context *ctx, std::vector<uint64_t> &out) {
    BufPtr cw;
    GP_TRY(upload(ctx, GL(), trace(256, 1, 3, 5), GP_LAYOUT_COL_MAJOR, &cw));
    gp_fri_options o;
    gp_fri_options_init(&o);
    o.arity = 4;
    o.final_size = 4;
    gp_fri *raw = nullptr;
    GP_TRY(gp_fri_commit(ctx, cw.get(), &o, challenge, nullptr, &raw));
    FriPtr f(raw);
    std::vector<uint64_t> rem(gp_fri_remainder_size(f.get()) / 8), op(gp_fri_opening_size(f.get()) / 8);
    GP_TRY(gp_fri_remainder(f.get(), rem.data(), rem.size() * 8));
    const uint64_t q = 77;
    GP_TRY(gp_fri_open(f.get(), &q, 1, op.data(), op.size() * 8));
    for (auto *v : {&rem, &op}) out.insert(out.end(), v->begin(), v->end());
    return GP_OK;
}

gp_status op_ood_deep(gp_context *ctx, std::vector<uint64_t> &out) {
    BufPtr a, b, q;
    GP_TRY(upload(ctx, GL(), trace(64, 3, 1, 6), GP_LAYOUT_COL_MAJOR, &a));
    GP_TRY(upload(ctx, GL(), trace(64, 1, 3, 7), GP_LAYOUT_COL_MAJOR, &b));
    const gp_buffer *cols[2] = {a.get(), b.get()};
    const uint64_t z[6] = {11, 12, 13, 21, 22, 23};
    std::vector<uint64_t> vals(2 * 4 * 3);
    GP_TRY(gp_evaluate_ood(ctx, cols, 2, nullptr, z, 2, vals.data(), vals.size() * 8));
    std::vector<uint64_t> alphas(vals.size());
    for (size_t i = 0; i < alphas.size(); ++i) alphas[i] = 3 * i + 1;
    GP_TRY(create_buffer(ctx, GL(), 3, 64, 1, &q));
    GP_TRY(gp_deep_composition(ctx, cols, 2, nullptr, z, 2, vals.data(), alphas.data(), q.get()));
    out.insert(out.end(), vals.begin(), vals.end());
    for (uint64_t w : words(q.get())) out.push_back(w);
    return GP_OK;
}

gp_status op_constraint(gp_context *ctx, std::vector<uint64_t> &out) {
    BufPtr ev;
    GP_TRY(upload(ctx, GL(), trace(128, 1, 2, 8), GP_LAYOUT_COL_MAJOR, &ev));
    for (int split : {GP_COMPOSITION_PLONKY3, GP_COMPOSITION_WINTERFELL}) {
        gp_constraint_options o;
        gp_constraint_options_init(&o);
        o.split = (gp_composition_split)split;
        o.segments = 4;
        gp_buffer *seg = nullptr;
        gp_merkle_tree *tree = nullptr;
        GP_TRY(gp_constraint_commit(ctx, ev.get(), &o, &seg, &tree));
        BufPtr s(seg);
        TreePtr t(tree);
        std::vector<uint64_t> root(gp_merkle_digest_size(t.get()) / 8);
        GP_TRY(gp_merkle_root(t.get(), root.data(), root.size() * 8));
        out.insert(out.end(), root.begin(), root.end());
    }
    return GP_OK;
}

struct NamedOp {
    const char *name;
    Op op;
};

const std::vector<NamedOp> &all_ops() {
    static const std::vector<NamedOp> ops = {
        {"lde", op_lde},       {"ntt", op_ntt},           {"merkle", op_merkle},
        {"fri", op_fri},       {"ood_deep", op_ood_deep}, {"constraint", op_constraint},
    };
    return ops;
}

class Hardening : public BackendTest {};

// The k-th host or device allocation of each operation fails, for every k
// the operation reaches: the call returns an out-of-memory status with a
// message, releases what it allocated, and the same context then computes
// the same result as an undisturbed one.
TEST_P(Hardening, EveryAllocationFailureIsAStatusAndTheContextRecovers) {
    FaultOff off;
    for (const NamedOp &nop : all_ops()) {
        std::vector<uint64_t> ref;
        {
            GP_CONTEXT_OR_SKIP(c, GetParam());
            ASSERT_EQ(nop.op(c.get(), ref), GP_OK) << nop.name << ": " << gp_last_error();
        }
        uint64_t fired = 0;
        for (int kind : {kHost, kDevice}) {
            for (uint64_t k = 1; k <= 400; ++k) {
                SCOPED_TRACE(::testing::Message() << nop.name << (kind == kHost ? " host" : " device")
                                                  << " allocation " << k);
                GP_CONTEXT_OR_SKIP(c, GetParam());
                const uint64_t base = buffer_bytes(c.get());
                std::vector<uint64_t> got;
                gp_testing_fail_allocation(kind, k);
                const gp_status st = nop.op(c.get(), got);
                const uint64_t left = gp_testing_fail_allocation(kind, 0);
                if (left > 0) {  // fewer than k allocations: it ran undisturbed
                    ASSERT_EQ(st, GP_OK) << gp_last_error();
                    EXPECT_EQ(got, ref);
                    break;
                }
                ++fired;
                EXPECT_TRUE(st == GP_ERR_HOST_OUT_OF_MEMORY || st == GP_ERR_DEVICE_OUT_OF_MEMORY)
                    << gp_status_name(st) << ": " << gp_last_error();
                // (The operation destroyed its handles on the way out: the
                // destroy functions keep the failed call's message.)
                EXPECT_NE(std::string(gp_last_error()), "");
                EXPECT_EQ(buffer_bytes(c.get()), base) << "a failed call kept buffers";
                std::vector<uint64_t> again;
                ASSERT_EQ(nop.op(c.get(), again), GP_OK) << gp_last_error();
                EXPECT_EQ(again, ref);
            }
        }
        EXPECT_GT(fired, 0u) << nop.name;
        RecordProperty(std::string("injected_failures_") + nop.name, (int)fired);
    }
}

// A failed table allocation leaves no empty table behind: the next, smaller
// LDE (served from the cache on success) is right.
TEST_P(Hardening, FailedTableAllocationDoesNotPoisonTheCache) {
    FaultOff off;
    GP_CONTEXT_OR_SKIP(c, GetParam());
    const HostMat t = trace(1024, 1, 1, 9);
    BufPtr big;
    ASSERT_GP_OK(create_buffer(c.get(), GL(), 1, 4096, 1, &big));
    ApiData d(t.v, 8);
    gp_lde_options o;
    gp_lde_options_init(&o);
    o.blowup = 4;
    gp_testing_fail_allocation(kHost, 1);  // the first table
    EXPECT_EQ(gp_lde_batch_host(c.get(), GP_FIELD_GOLDILOCKS, 1, d.data(), 1024, 1, &o, big.get()),
              GP_ERR_HOST_OUT_OF_MEMORY);
    EXPECT_EQ(gp_testing_fail_allocation(kHost, 0), 0u);
    // Smaller and then the same size, against a fresh context.
    for (uint64_t n : {256u, 1024u}) {
        std::vector<uint64_t> want, got;
        for (gp_context *ctx : {c.get(), (gp_context *)nullptr}) {
            CtxPtr fresh;
            if (!ctx) {
                ASSERT_GP_OK(make_context(GetParam(), &fresh));
                ctx = fresh.get();
            }
            BufPtr out;
            ASSERT_GP_OK(create_buffer(ctx, GL(), 1, 4 * n, 1, &out));
            ASSERT_GP_OK(gp_lde_batch_host(ctx, GP_FIELD_GOLDILOCKS, 1, d.data(), n, 1, &o, out.get()));
            (fresh ? want : got) = words(out.get());
        }
        EXPECT_EQ(got, want) << "n = " << n;
    }
}

// Coset power tables are cached least recently used within a budget.
TEST_P(Hardening, CosetTableCacheIsBounded) {
    GP_CONTEXT_OR_SKIP(c, GetParam());
    const HostMat t = trace(32, 1, 1, 10);
    BufPtr in, out;
    ASSERT_GP_OK(upload(c.get(), GL(), t, GP_LAYOUT_COL_MAJOR, &in));
    ASSERT_GP_OK(create_buffer(c.get(), GL(), 1, 64, 1, &out));
    gp_lde_options o;
    gp_lde_options_init(&o);
    gp_memory_stats s;
    s.struct_size = sizeof s;
    uint64_t peak = 0;
    std::vector<uint64_t> first;
    for (uint64_t shift = 2; shift < 202; ++shift) {
        o.shift = shift;
        ASSERT_GP_OK(gp_lde_batch(c.get(), in.get(), &o, out.get()));
        if (shift == 2) first = words(out.get());
        ASSERT_GP_OK(gp_context_memory_stats(c.get(), &s));
        peak = std::max(peak, s.cache_bytes);
    }
    EXPECT_GE(s.evictions, 200u - 64u);
    // An evicted table is rebuilt with the same values.
    o.shift = 2;
    ASSERT_GP_OK(gp_lde_batch(c.get(), in.get(), &o, out.get()));
    EXPECT_EQ(words(out.get()), first);
    // 64 tables of 32 entries plus twiddles and scratch: far below what 200
    // tables would hold on the CPU backend.
    if (GetParam() == GP_BACKEND_CPU) EXPECT_LT(peak, 200u * 32 * 8);
    // A caller whose struct ends before `evictions` does not get it.
    gp_memory_stats old;
    old.struct_size = (uint32_t)offsetof(gp_memory_stats, evictions);
    old.evictions = 12345;
    ASSERT_GP_OK(gp_context_memory_stats(c.get(), &old));
    EXPECT_EQ(old.evictions, 12345u);
}

// Sizes that wrap 64 bits are refused before anything is read: many handles
// of one wide buffer and a point count near 2^32.
TEST_P(Hardening, OodAndDeepSizeProductsThatWrapAreRefused) {
    GP_CONTEXT_OR_SKIP(c, GetParam());
    BufPtr wide, q;
    ASSERT_GP_OK(create_buffer(c.get(), GL(), 1, 1, 1u << 16, &wide));
    ASSERT_GP_OK(create_buffer(c.get(), GL(), 3, 1, 1, &q));
    std::vector<const gp_buffer *> cols(1u << 16, wide.get());  // 2^32 columns
    const uint64_t z[3] = {5, 6, 7};  // one point's worth: never read past the checks
    std::vector<uint64_t> out(16);
    const uint32_t points = 0xffffffffu;
    EXPECT_EQ(gp_evaluate_ood(c.get(), cols.data(), (uint32_t)cols.size(), nullptr, z, points, out.data(), 128),
              GP_ERR_SIZE_OVERFLOW)
        << gp_last_error();
    EXPECT_NE(std::string(gp_last_error()).find("num_points"), std::string::npos) << gp_last_error();
    EXPECT_EQ(gp_deep_composition(c.get(), cols.data(), (uint32_t)cols.size(), nullptr, z, points, z, z, q.get()),
              GP_ERR_SIZE_OVERFLOW)
        << gp_last_error();
    // Without the wrap, a short output is named with its real size.
    EXPECT_EQ(gp_evaluate_ood(c.get(), cols.data(), 1, nullptr, z, 1, out.data(), 8), GP_ERR_INVALID_ARGUMENT);
    EXPECT_NE(std::string(gp_last_error()).find("size_bytes = 8"), std::string::npos) << gp_last_error();
}

// gp_merkle_open checks `count` before it reads `indices`.
TEST_P(Hardening, MerkleOpenChecksCountBeforeIndices) {
    GP_CONTEXT_OR_SKIP(c, GetParam());
    BufPtr a;
    ASSERT_GP_OK(upload(c.get(), GL(), trace(8, 1, 1, 11), GP_LAYOUT_COL_MAJOR, &a));
    const gp_buffer *m = a.get();
    gp_merkle_tree *raw = nullptr;
    ASSERT_GP_OK(gp_merkle_commit(c.get(), &m, 1, nullptr, &raw));
    TreePtr t(raw);
    const uint64_t idx[1] = {1};
    uint64_t rows[8], paths[64];
    for (void *r : {(void *)rows, (void *)nullptr}) {
        EXPECT_EQ(gp_merkle_open(t.get(), idx, 1ull << 62, r, sizeof rows, paths, sizeof paths), GP_ERR_SIZE_OVERFLOW)
            << gp_last_error();
    }
    EXPECT_EQ(gp_merkle_open(t.get(), idx, 1ull << 40, rows, sizeof rows, nullptr, 0), GP_ERR_INVALID_ARGUMENT);
    EXPECT_NE(std::string(gp_last_error()).find("rows_size"), std::string::npos) << gp_last_error();
}

// Messages name the caller's parameters.
TEST_P(Hardening, MessagesNameTheCallersArguments) {
    GP_CONTEXT_OR_SKIP(c, GetParam());
    BufPtr a;
    ASSERT_GP_OK(upload(c.get(), GL(), trace(8, 1, 1, 12), GP_LAYOUT_COL_MAJOR, &a));
    const gp_buffer *cols[2] = {a.get(), nullptr};
    const uint64_t z[3] = {5, 6, 7};
    uint64_t out[6];
    EXPECT_EQ(gp_evaluate_ood(c.get(), cols, 2, nullptr, z, 1, out, sizeof out), GP_ERR_NULL_POINTER);
    EXPECT_NE(std::string(gp_last_error()).find("columns[1]"), std::string::npos) << gp_last_error();
    EXPECT_EQ(gp_evaluate_ood(c.get(), nullptr, 1, nullptr, z, 1, out, sizeof out), GP_ERR_NULL_POINTER);
    EXPECT_NE(std::string(gp_last_error()).find("`columns`"), std::string::npos) << gp_last_error();
    std::vector<uint64_t> cw(8, 1);
    cw[5] = ~0ull;
    gp_fri *f = nullptr;
    EXPECT_EQ(gp_fri_begin_host(c.get(), GP_FIELD_GOLDILOCKS, 1, cw.data(), 8, nullptr, nullptr, 0, &f),
              GP_ERR_NON_CANONICAL);
    EXPECT_EQ(f, nullptr);
    EXPECT_NE(std::string(gp_last_error()).find("gp_fri_begin_host: codeword[5]"), std::string::npos)
        << gp_last_error();
    std::vector<uint64_t> states(12, ~0ull);
    EXPECT_EQ(gp_permute_batch(c.get(), GP_PERM_POSEIDON2_GOLDILOCKS_12, states.data(), 1), GP_ERR_NON_CANONICAL);
    EXPECT_NE(std::string(gp_last_error()).find("states[0]"), std::string::npos) << gp_last_error();
}

// Destroyed handles get a status (destroy: nothing), never a read of freed
// memory; the sanitizer build checks the "never".
TEST_P(Hardening, DeadHandlesAreRecognised) {
    GP_CONTEXT_OR_SKIP(c, GetParam());
    gp_buffer *b = nullptr;
    ASSERT_GP_OK(gp_buffer_create(c.get(), GP_FIELD_GOLDILOCKS, 1, 8, 1, &b));
    const gp_buffer *m = b;
    gp_merkle_tree *t = nullptr;
    ASSERT_GP_OK(gp_merkle_commit(c.get(), &m, 1, nullptr, &t));
    BufPtr out;  // made first: a buffer made later may take b's address
    ASSERT_GP_OK(create_buffer(c.get(), GL(), 1, 16, 1, &out));
    gp_buffer_destroy(b);
    gp_buffer_destroy(b);  // twice: nothing
    uint64_t data[8];
    EXPECT_EQ(gp_buffer_to_host(b, GP_LAYOUT_COL_MAJOR, data, sizeof data), GP_ERR_INVALID_ARGUMENT);
    EXPECT_NE(std::string(gp_last_error()).find("not a live gp_buffer"), std::string::npos) << gp_last_error();
    EXPECT_EQ(gp_buffer_rows(b), 0u);
    EXPECT_EQ(gp_lde_batch(c.get(), b, nullptr, out.get()), GP_ERR_INVALID_ARGUMENT);
    gp_merkle_tree_destroy(t);
    gp_merkle_tree_destroy(t);
    uint64_t root[4];
    EXPECT_EQ(gp_merkle_root(t, root, sizeof root), GP_ERR_INVALID_ARGUMENT);
    EXPECT_EQ(gp_merkle_digest_size(t), 0u);
    // A pointer that never was a handle.
    uint64_t junk[16] = {0};
    EXPECT_EQ(gp_merkle_root(reinterpret_cast<gp_merkle_tree *>(junk), root, sizeof root), GP_ERR_INVALID_ARGUMENT);
    EXPECT_EQ(gp_fri_layer_count(reinterpret_cast<gp_fri *>(junk)), 0u);
    EXPECT_EQ(buffer_bytes(c.get()), 16u * 8);
}

// Destroying a context releases its FRI commitments (the sanitizer build's
// leak check fails otherwise) and kills every handle of it.
TEST_P(Hardening, ContextOwnsItsFriCommitments) {
    gp_context *raw = nullptr;
    gp_context_options co;
    gp_context_options_init(&co);
    co.backend = GetParam();
    if (GetParam() == GP_BACKEND_CUDA && !cuda_available()) GTEST_SKIP() << "no usable CUDA device";
    ASSERT_GP_OK(gp_context_create(&co, &raw));
    gp_buffer *cw = nullptr;
    ASSERT_GP_OK(gp_buffer_create(raw, GP_FIELD_GOLDILOCKS, 1, 64, 1, &cw));
    gp_fri *f = nullptr;
    ASSERT_GP_OK(gp_fri_commit(raw, cw, nullptr, challenge, nullptr, &f));
    gp_context_destroy(raw);
    EXPECT_NE(std::string(gp_last_error()).find("released 2"), std::string::npos) << gp_last_error();
    EXPECT_EQ(gp_fri_layer_count(f), 0u);
    uint64_t rem[8];
    EXPECT_EQ(gp_fri_remainder(f, rem, sizeof rem), GP_ERR_INVALID_ARGUMENT);
    gp_fri_destroy(f);
    gp_buffer_destroy(cw);
    gp_context_destroy(raw);  // twice: nothing
    EXPECT_EQ(gp_context_backend(raw), GP_BACKEND_AUTO);
    uint64_t data[64];
    EXPECT_EQ(gp_buffer_to_host(cw, GP_LAYOUT_COL_MAJOR, data, sizeof data), GP_ERR_INVALID_ARGUMENT);
}

// Threads sharing one context: every call is serialized, every result is
// the single-threaded one, and a destroy racing with uses is a status.
TEST_P(Hardening, ThreadsShareOneContext) {
    GP_CONTEXT_OR_SKIP(c, GetParam());
    const std::vector<NamedOp> &ops = all_ops();
    std::vector<std::vector<uint64_t>> ref(ops.size());
    for (size_t i = 0; i < ops.size(); ++i) ASSERT_EQ(ops[i].op(c.get(), ref[i]), GP_OK) << gp_last_error();
    const int kThreads = 8, kJobs = 12;
    std::atomic<int> bad{0};
    std::vector<std::thread> th;
    for (int t = 0; t < kThreads; ++t)
        th.emplace_back([&, t] {
            for (int j = 0; j < kJobs; ++j) {
                const size_t i = (size_t)(t + j) % ops.size();
                std::vector<uint64_t> got;
                if (ops[i].op(c.get(), got) != GP_OK || got != ref[i]) ++bad;
            }
        });
    // Meanwhile: a buffer created and destroyed over and over, and used
    // from another thread that must see it live or dead, never freed.
    std::atomic<gp_buffer *> shared{nullptr};
    std::atomic<bool> stop{false};
    std::thread user([&] {
        uint64_t d[4];
        while (!stop) {
            gp_buffer *b = shared.load();
            if (!b) continue;
            const gp_status st = gp_buffer_to_host(b, GP_LAYOUT_COL_MAJOR, d, sizeof d);
            if (st != GP_OK && st != GP_ERR_INVALID_ARGUMENT) ++bad;
        }
    });
    for (int r = 0; r < 200; ++r) {
        gp_buffer *b = nullptr;
        if (gp_buffer_create(c.get(), GP_FIELD_GOLDILOCKS, 1, 4, 1, &b) != GP_OK) ++bad;
        shared = b;
        gp_buffer_destroy(b);
    }
    for (auto &x : th) x.join();
    stop = true;
    user.join();
    EXPECT_EQ(bad.load(), 0);
    EXPECT_EQ(buffer_bytes(c.get()), 0u);
}

// A tree outlives one of its committed matrices: opening rows is a status
// naming the matrix (never a read of the freed buffer, which the sanitizer
// build checks), even when a new buffer took the old one's address; the
// paths, root, cap and opening sizes come from the tree itself and still
// work.
TEST_P(Hardening, MerkleOpenAfterAMatrixWasDestroyed) {
    GP_CONTEXT_OR_SKIP(c, GetParam());
    if (test_remote_endpoint()) GTEST_SKIP() << "a server session keeps its own matrices";
    BufPtr a, b;
    ASSERT_GP_OK(upload(c.get(), GL(), trace(16, 2, 1, 21), GP_LAYOUT_COL_MAJOR, &a));
    ASSERT_GP_OK(upload(c.get(), GL(), trace(8, 1, 1, 22), GP_LAYOUT_COL_MAJOR, &b));
    const gp_buffer *mats[2] = {a.get(), b.get()};
    gp_merkle_tree *raw = nullptr;
    ASSERT_GP_OK(gp_merkle_commit(c.get(), mats, 2, nullptr, &raw));
    TreePtr t(raw);
    uint64_t rb = 0, pb = 0;
    ASSERT_GP_OK(gp_merkle_opening_size(t.get(), &rb, &pb));
    EXPECT_EQ(rb, 3u * 8);
    const uint64_t idx[2] = {3, 9};
    std::vector<uint64_t> rows(2 * rb / 8), paths(2 * pb / 8), root(gp_merkle_digest_size(t.get()) / 8);
    ASSERT_GP_OK(gp_merkle_open(t.get(), idx, 2, rows.data(), rows.size() * 8, paths.data(), paths.size() * 8));
    ASSERT_GP_OK(gp_merkle_root(t.get(), root.data(), root.size() * 8));

    gp_buffer_destroy(b.release());
    BufPtr again;  // may take the destroyed buffer's address
    ASSERT_GP_OK(upload(c.get(), GL(), trace(8, 1, 1, 23), GP_LAYOUT_COL_MAJOR, &again));

    std::vector<uint64_t> rows2(rows.size()), paths2(paths.size()), root2(root.size());
    EXPECT_EQ(gp_merkle_open(t.get(), idx, 2, rows2.data(), rows2.size() * 8, paths2.data(), paths2.size() * 8),
              GP_ERR_INVALID_ARGUMENT);
    EXPECT_NE(std::string(gp_last_error()).find("committed matrix 1"), std::string::npos) << gp_last_error();
    EXPECT_NE(std::string(gp_last_error()).find("destroyed"), std::string::npos) << gp_last_error();
    EXPECT_EQ(gp_merkle_open(t.get(), idx, 2, rows2.data(), rows2.size() * 8, nullptr, 0), GP_ERR_INVALID_ARGUMENT);
    // What the tree holds itself.
    uint64_t rb2 = 0, pb2 = 0;
    EXPECT_GP_OK(gp_merkle_opening_size(t.get(), &rb2, &pb2));
    EXPECT_EQ(rb2, rb);
    EXPECT_EQ(pb2, pb);
    EXPECT_GP_OK(gp_merkle_open(t.get(), idx, 2, nullptr, 0, paths2.data(), paths2.size() * 8));
    EXPECT_EQ(paths2, paths);
    EXPECT_GP_OK(gp_merkle_root(t.get(), root2.data(), root2.size() * 8));
    EXPECT_EQ(root2, root);
    // The matrix still alive opens as before; the tree and context go on.
    const gp_buffer *alive = a.get();
    gp_merkle_tree *raw2 = nullptr;
    ASSERT_GP_OK(gp_merkle_commit(c.get(), &alive, 1, nullptr, &raw2));
    gp_merkle_tree_destroy(raw2);
    t.reset();
    EXPECT_EQ(buffer_bytes(c.get()), (16u * 2 + 8) * 8);
}

INSTANTIATE_TEST_SUITE_P(Backends, Hardening, ::testing::Values(GP_BACKEND_CPU, GP_BACKEND_CUDA),
                         [](const ::testing::TestParamInfo<gp_backend> &i) { return backend_name(i.param); });

// Threads with their own contexts: 8 x 100 jobs equal to a single-threaded
// run (the TSan build of CI runs this).
TEST(HardeningThreads, OwnContextsMatchASingleThreadedRun) {
    const std::vector<NamedOp> &ops = all_ops();
    std::vector<std::vector<uint64_t>> ref(ops.size());
    {
        CtxPtr c;
        ASSERT_GP_OK(make_context(GP_BACKEND_CPU, &c, 1));
        for (size_t i = 0; i < ops.size(); ++i) ASSERT_EQ(ops[i].op(c.get(), ref[i]), GP_OK) << gp_last_error();
    }
    std::atomic<int> bad{0};
    std::vector<std::thread> th;
    for (int t = 0; t < 8; ++t)
        th.emplace_back([&, t] {
            CtxPtr c;
            if (make_context(GP_BACKEND_CPU, &c, 2) != GP_OK) {
                ++bad;
                return;
            }
            for (int j = 0; j < 100; ++j) {
                const size_t i = (size_t)(t * 7 + j) % ops.size();
                std::vector<uint64_t> got;
                if (ops[i].op(c.get(), got) != GP_OK || got != ref[i]) ++bad;
            }
        });
    for (auto &x : th) x.join();
    EXPECT_EQ(bad.load(), 0);
}

// A worker thread that cannot start unwinds the pool: a status, no hang.
TEST(HardeningThreads, ThreadStartFailureIsAStatus) {
    FaultOff off;
    for (uint64_t k : {1u, 5u, 30u}) {
        gp_context_options o;
        gp_context_options_init(&o);
        o.backend = GP_BACKEND_CPU;
        o.cpu_threads = 64;
        gp_context *c = nullptr;
        gp_testing_fail_allocation(kHost, k);
        EXPECT_EQ(gp_context_create(&o, &c), GP_ERR_HOST_OUT_OF_MEMORY);
        gp_testing_fail_allocation(kHost, 0);
        EXPECT_EQ(c, nullptr);
        EXPECT_NE(std::string(gp_last_error()).find("worker thread"), std::string::npos) << gp_last_error();
    }
}

// The same under a real limit: 1000 threads in a child process whose
// address space cannot hold their stacks.
TEST(HardeningThreads, ThousandThreadsUnderAMemoryLimit) {
#if GP_TEST_SANITIZED || defined(__SANITIZE_THREAD__)
    GTEST_SKIP() << "sanitizer runtimes reserve more address space than the limit";
#else
    const pid_t pid = fork();
    ASSERT_GE(pid, 0);
    if (pid == 0) {
        struct rlimit r = {1ull << 30, 1ull << 30};
        setrlimit(RLIMIT_AS, &r);
        alarm(60);  // a hang ends the child, and the test fails
        gp_context_options o;
        gp_context_options_init(&o);
        o.backend = GP_BACKEND_CPU;
        o.cpu_threads = 1000;
        gp_context *c = nullptr;
        const gp_status st = gp_context_create(&o, &c);
        if (st == GP_OK) gp_context_destroy(c);
        _exit(st == GP_OK ? 10 : st == GP_ERR_HOST_OUT_OF_MEMORY ? 0 : 20);
    }
    int status = 0;
    ASSERT_EQ(waitpid(pid, &status, 0), pid);
    ASSERT_TRUE(WIFEXITED(status)) << "the child died (signal " << WTERMSIG(status) << ")";
    // 1000 stacks of 8 MiB do not fit 1 GiB: creation must fail, cleanly.
    EXPECT_EQ(WEXITSTATUS(status), 0);
#endif
}

// Enum values from C outside the enums: a status, never undefined behaviour
// (the sanitizer build aborts on an enum-typed load of such a value).
TEST(HardeningEnums, OutOfRangeFieldsAndLayoutsFromC) {
    CtxPtr c;
    ASSERT_GP_OK(make_context(GP_BACKEND_CPU, &c));
    BufPtr out, b;
    ASSERT_GP_OK(create_buffer(c.get(), GL(), 1, 8, 1, &out));
    ASSERT_GP_OK(create_buffer(c.get(), GL(), 1, 4, 1, &b));
    for (int v : {4, 77, -1, 0x7fffffff}) {
        SCOPED_TRACE(v);
        EXPECT_EQ(call_field_info(v), GP_ERR_INVALID_ARGUMENT);
        EXPECT_EQ(call_two_adic_generator(v), GP_ERR_INVALID_ARGUMENT);
        EXPECT_EQ(call_element_size(v), 0u);
        EXPECT_EQ(call_buffer_create(c.get(), v), GP_ERR_INVALID_ARGUMENT);
        EXPECT_EQ(call_buffer_from_host(c.get(), v, GP_LAYOUT_COL_MAJOR), GP_ERR_INVALID_ARGUMENT);
        EXPECT_EQ(call_buffer_from_host(c.get(), GP_FIELD_GOLDILOCKS, v), GP_ERR_INVALID_ARGUMENT);
        EXPECT_EQ(call_buffer_to_host(b.get(), v), GP_ERR_INVALID_ARGUMENT);
        EXPECT_EQ(call_lde_batch_host(c.get(), v, out.get()), GP_ERR_INVALID_ARGUMENT);
        EXPECT_EQ(call_merkle_verify(v), GP_ERR_INVALID_ARGUMENT);
        EXPECT_EQ(call_fri_begin_host(c.get(), v), GP_ERR_INVALID_ARGUMENT);
        EXPECT_EQ(call_fri_verify(v), GP_ERR_INVALID_ARGUMENT);
    }
}

// A gp_status from C outside the enum: a status the callback could not have
// meant is GP_ERR_INVALID_ARGUMENT with a message, never an enum load of the
// value (which the sanitizer build aborts on); a known failure is returned
// as it is.
TEST(HardeningEnums, OutOfRangeStatusesFromC) {
    if (test_remote_endpoint()) GTEST_SKIP() << "the challenge callback of a server session runs in the client";
    CtxPtr c;
    ASSERT_GP_OK(make_context(GP_BACKEND_CPU, &c));
    BufPtr cw;
    ASSERT_GP_OK(upload(c.get(), GL(), trace(16, 1, 1, 31), GP_LAYOUT_COL_MAJOR, &cw));
    for (int v : {12345, -1, 32, 18, 0x7fffffff, -0x7fffffff - 1}) {
        SCOPED_TRACE(v);
        EXPECT_EQ(call_fri_commit_returning(c.get(), cw.get(), v), GP_ERR_INVALID_ARGUMENT);
        EXPECT_NE(std::string(gp_last_error()).find("not a gp_status"), std::string::npos) << gp_last_error();
        EXPECT_NE(std::string(gp_last_error()).find(std::to_string(v)), std::string::npos) << gp_last_error();
        EXPECT_STREQ(call_status_name(v), "GP_ERR_UNKNOWN");
    }
    EXPECT_EQ(call_fri_commit_returning(c.get(), cw.get(), GP_ERR_CANCELLED), GP_ERR_CANCELLED);
    EXPECT_NE(std::string(gp_last_error()).find("GP_ERR_CANCELLED"), std::string::npos) << gp_last_error();
    EXPECT_GP_OK(call_fri_commit_returning(c.get(), cw.get(), GP_OK));
    EXPECT_STREQ(call_status_name(GP_ERR_REMOTE), "GP_ERR_REMOTE");
    EXPECT_EQ(buffer_bytes(c.get()), 16u * 8);
}

// A DLPack device type outside DLDeviceType: GP_ERR_CONTEXT_MISMATCH naming
// the value, the tensor still the caller's (its deleter not run).
TEST(HardeningEnums, OutOfRangeDlpackDeviceTypesFromC) {
    if (test_remote_endpoint()) GTEST_SKIP() << "a server session imports no DLPack tensors";
    CtxPtr c;
    ASSERT_GP_OK(make_context(GP_BACKEND_CPU, &c));
    for (int v : {12345, -1, 0, 14, 0x7fffffff, 2 /* kDLCUDA */}) {
        SCOPED_TRACE(v);
        int deleted = 0;
        EXPECT_EQ(call_buffer_from_dlpack_device(c.get(), v, &deleted), GP_ERR_CONTEXT_MISMATCH);
        EXPECT_NE(std::string(gp_last_error()).find("device type " + std::to_string(v)), std::string::npos)
            << gp_last_error();
        EXPECT_EQ(deleted, 0);
    }
    int deleted = 0;
    EXPECT_GP_OK(call_buffer_from_dlpack_device(c.get(), 1 /* kDLCPU */, &deleted));
    EXPECT_EQ(deleted, 1);
    EXPECT_EQ(buffer_bytes(c.get()), 0u);
}

// Runs `body` in a child process that an alarm ends after `seconds`, so that
// a deadlock or a crash there fails the test instead of hanging or ending
// the whole run. The body returns what failed ("" when nothing did).
std::string in_child(unsigned seconds, const std::function<std::string()> &body) {
    int fds[2];
    if (pipe(fds) != 0) return "pipe() failed";
    std::fflush(nullptr);
    const pid_t pid = fork();
    if (pid < 0) return "fork() failed";
    if (pid == 0) {
        close(fds[0]);
        alarm(seconds);
        const std::string r = body();
        if (!r.empty() && write(fds[1], r.data(), r.size()) < 0) _exit(3);
        _exit(r.empty() ? 0 : 1);
    }
    close(fds[1]);
    std::string got;
    char chunk[256];
    ssize_t n;
    while ((n = read(fds[0], chunk, sizeof chunk)) > 0) got.append(chunk, (size_t)n);
    close(fds[0]);
    int status = 0;
    if (waitpid(pid, &status, 0) != pid) return "waitpid() failed";
    if (WIFSIGNALED(status))
        return got + "the child died of signal " + std::to_string(WTERMSIG(status)) +
               (WTERMSIG(status) == SIGALRM ? " (the alarm: it hung)" : "");
    if (!WIFEXITED(status) || WEXITSTATUS(status) != 0)
        return got + " (the child exited with " + std::to_string(WEXITSTATUS(status)) + ")";
    return got;
}

// What a progress callback does on its own context, and what it saw.
struct Reentry {
    gp_context *ctx = nullptr;
    const gp_buffer *input = nullptr;
    gp_buffer *output = nullptr;  // of a second LDE
    const gp_lde_options *options = nullptr;
    int what = 0;                 // 0: an LDE, 1: destroy the input, 2: destroy the context
    int calls = 0;
    gp_status st = GP_OK;
    std::string message;
    uint64_t input_rows_after = 0;
    bool ctx_live_after = false;
};

// On every report (some come from inside the pool's parallel sections,
// where the calling thread runs its share of the work).
void reenter(void *user, const char *, uint64_t, uint64_t) {
    auto *r = static_cast<Reentry *>(user);
    r->calls++;
    switch (r->what) {
        case 0: {
            const gp_status st = gp_lde_batch(r->ctx, r->input, r->options, r->output);
            if (r->calls == 1 || st != GP_ERR_INVALID_ARGUMENT) r->st = st;  // the first, or one not refused
            break;
        }
        case 1:
            gp_buffer_destroy(const_cast<gp_buffer *>(r->input));
            r->input_rows_after = gp_buffer_rows(r->input);
            break;
        default:
            gp_context_destroy(r->ctx);
            r->ctx_live_after = gp_context_backend(r->ctx) == GP_BACKEND_CPU;  // a getter: no call lock
            break;
    }
    r->message = gp_last_error();
}

// A progress callback that calls the library on its own context (which the
// header forbids, gp_context_cancel aside): the inner call is refused with
// GP_ERR_INVALID_ARGUMENT (a destroy function refuses without a status,
// leaving the message), the outer call completes with its normal result,
// and the context stays usable. Before, the inner LDE deadlocked in the
// thread pool, and the destroys freed memory the outer call still used.
std::string progress_reentry(int what) {
    std::string bad;
    auto check = [&](bool ok, const std::string &what_failed) {
        if (!ok) bad += what_failed + "; ";
    };
    gp_context_options o;
    gp_context_options_init(&o);
    o.backend = GP_BACKEND_CPU;
    o.cpu_threads = 4;  // the pool runs the LDE; the callback comes from inside it
    gp_context *ctx = nullptr;
    if (gp_context_create(&o, &ctx) != GP_OK) return std::string("gp_context_create: ") + gp_last_error();
    constexpr uint64_t kCols = 16;
    const HostMat t = trace(64, kCols, 1, 41);
    ApiData d(t.v, 8);
    gp_buffer *in = nullptr, *out = nullptr, *out2 = nullptr, *ref = nullptr;
    check(gp_buffer_from_host(ctx, GP_FIELD_GOLDILOCKS, 1, 64, kCols, GP_LAYOUT_COL_MAJOR, d.data(), &in) == GP_OK,
          "gp_buffer_from_host");
    for (gp_buffer **b : {&out, &out2, &ref})
        check(gp_buffer_create(ctx, GP_FIELD_GOLDILOCKS, 1, 256, kCols, b) == GP_OK, "gp_buffer_create");
    gp_lde_options lo;
    gp_lde_options_init(&lo);
    lo.blowup = 4;
    check(gp_lde_batch(ctx, in, &lo, ref) == GP_OK, "the reference LDE");

    Reentry r;
    r.ctx = ctx;
    r.input = in;
    r.output = out2;
    r.options = &lo;
    r.what = what;
    check(gp_context_set_progress(ctx, reenter, &r) == GP_OK, "gp_context_set_progress");
    const gp_status outer = gp_lde_batch(ctx, in, &lo, out);
    const std::string outer_message = gp_last_error();
    check(outer == GP_OK, std::string("the outer LDE returned ") + gpt_status_str(outer) + ": " + outer_message);
    check(outer_message.empty(), "gp_last_error() after the outer call is \"" + outer_message + "\"");
    check(r.calls > 0, "no progress report");
    if (what == 0)
        check(r.st == GP_ERR_INVALID_ARGUMENT, std::string("the inner LDE returned ") + gpt_status_str(r.st));
    if (what == 1) check(r.input_rows_after == 64, "the input was destroyed inside the callback");
    if (what == 2) check(r.ctx_live_after, "the context was destroyed inside the callback");
    check(r.message.find("progress callback") != std::string::npos,
          "the refusal's message is \"" + r.message + "\"");
    check(gp_context_set_progress(ctx, nullptr, nullptr) == GP_OK, "clearing the callback");
    // Same result as without the callback; the context goes on working.
    std::vector<uint64_t> a(256 * kCols), b(256 * kCols);
    check(gp_buffer_to_host(out, GP_LAYOUT_COL_MAJOR, a.data(), a.size() * 8) == GP_OK &&
              gp_buffer_to_host(ref, GP_LAYOUT_COL_MAJOR, b.data(), b.size() * 8) == GP_OK && a == b,
          "the outer LDE's result differs from the reference");
    check(gp_lde_batch(ctx, in, &lo, out2) == GP_OK, std::string("an LDE afterwards: ") + gp_last_error());
    for (gp_buffer *x : {in, out, out2, ref}) gp_buffer_destroy(x);
    gp_context_destroy(ctx);
    return bad;
}

TEST(HardeningProgress, CallbackCallingAnLdeOnItsContextIsRefused) {
    if (test_remote_endpoint()) GTEST_SKIP() << "progress of a server session";
    const std::string r = in_child(30, [] { return progress_reentry(0); });
    EXPECT_TRUE(r.empty()) << r;
}

TEST(HardeningProgress, CallbackDestroyingABufferInUseIsRefused) {
    if (test_remote_endpoint()) GTEST_SKIP() << "progress of a server session";
    const std::string r = in_child(30, [] { return progress_reentry(1); });
    EXPECT_TRUE(r.empty()) << r;
}

TEST(HardeningProgress, CallbackDestroyingItsContextIsRefused) {
    if (test_remote_endpoint()) GTEST_SKIP() << "progress of a server session";
    const std::string r = in_child(30, [] { return progress_reentry(2); });
    EXPECT_TRUE(r.empty()) << r;
}

// The libFuzzer harness (tests/fuzz/fuzz_api.cpp) calls every function the
// header declares.
TEST(HardeningFuzz, HarnessCallsEveryEntryPoint) {
    const std::string root = std::string(GP_VECTORS_DIR) + "/../..";
    const std::string header = read_text_file(root + "/include/gpuprover.h");
    const std::string harness = read_text_file(root + "/tests/fuzz/fuzz_api.cpp");
    ASSERT_FALSE(header.empty());
    ASSERT_FALSE(harness.empty());
    auto is_ident = [](char ch) { return std::isalnum((unsigned char)ch) || ch == '_'; };
    std::vector<std::string> declared, missing;
    for (size_t at = header.find("GP_API "); at != std::string::npos; at = header.find("GP_API ", at + 1)) {
        if (at > 0 && header[at - 1] != '\n') continue;  // declarations start a line
        const size_t paren = header.find('(', at);
        size_t b = paren;
        while (b > at && is_ident(header[b - 1])) --b;
        const std::string name = header.substr(b, paren - b);
        if (name.rfind("gp_", 0) != 0) continue;
        declared.push_back(name);
        bool called = false;
        for (size_t p = harness.find(name + "("); p != std::string::npos && !called; p = harness.find(name + "(", p + 1))
            called = p == 0 || !is_ident(harness[p - 1]);
        if (!called) missing.push_back(name);
    }
    EXPECT_EQ(declared.size(), 85u);
    std::string list;
    for (const std::string &m : missing) list += m + " ";
    EXPECT_TRUE(missing.empty()) << "not called by tests/fuzz/fuzz_api.cpp: " << list;
}

}  // namespace

namespace {

// A FRI challenge callback that destroys its context, or the codeword the
// commit is folding, then answers the challenge.
struct DestroyFromChallenge {
    gp_context *ctx;
    gp_buffer *codeword;
    int what;  // 0: the context, 1: the codeword
    std::string error;
};

gp_status destroying_challenge(void *user, uint32_t layer, const void *cap, uint64_t cap_size, void *beta,
                               uint64_t size) {
    auto *d = static_cast<DestroyFromChallenge *>(user);
    if (layer == 0) {
        if (d->what == 0) gp_context_destroy(d->ctx);
        else gp_buffer_destroy(d->codeword);
        d->error = gp_last_error();
    }
    return challenge(nullptr, layer, cap, cap_size, beta, size);
}

}  // namespace

// A FRI challenge callback that destroyed its context (or the codeword in
// use) freed what gp_fri_commit was using: now the destroy is refused and
// the commit completes with the bytes of an undisturbed one.
TEST(HardeningCallbacks, ChallengeCallbackCannotDestroyWhatTheCommitUses) {
    if (test_remote_endpoint()) GTEST_SKIP() << "the challenge callback of a server session runs in the client";
    for (int what : {0, 1}) {
        const std::string r = in_child(60, [what]() -> std::string {
            gp_context_options co;
            gp_context_options_init(&co);
            co.backend = GP_BACKEND_CPU;
            gp_context *ctx = nullptr;
            if (gp_context_create(&co, &ctx) != GP_OK) return "no context";
            std::vector<uint64_t> want;
            if (op_fri(ctx, want) != GP_OK) return "the undisturbed commit failed";
            BufPtr cw;
            if (upload(ctx, GL(), trace(256, 1, 3, 5), GP_LAYOUT_COL_MAJOR, &cw) != GP_OK) return "upload";
            gp_fri_options o;
            gp_fri_options_init(&o);
            o.arity = 4;
            o.final_size = 4;
            DestroyFromChallenge d{ctx, cw.get(), what, ""};
            gp_fri *raw = nullptr;
            const gp_status st = gp_fri_commit(ctx, cw.get(), &o, destroying_challenge, &d, &raw);
            if (st != GP_OK) return std::string("the commit failed: ") + gp_last_error();
            if (d.error.find("inside a call on the same context") == std::string::npos)
                return "the destroy was not refused: " + d.error;
            FriPtr f(raw);
            std::vector<uint64_t> rem(gp_fri_remainder_size(f.get()) / 8), op(gp_fri_opening_size(f.get()) / 8);
            if (gp_fri_remainder(f.get(), rem.data(), rem.size() * 8) != GP_OK) return "remainder";
            const uint64_t q = 77;
            if (gp_fri_open(f.get(), &q, 1, op.data(), op.size() * 8) != GP_OK) return "open";
            std::vector<uint64_t> got;
            for (auto *v : {&rem, &op}) got.insert(got.end(), v->begin(), v->end());
            if (got != want) return "other bytes than the undisturbed commit";
            f.reset();
            cw.reset();
            gp_context_destroy(ctx);
            return "";
        });
        EXPECT_TRUE(r.empty()) << (what ? "codeword: " : "context: ") << r;
    }
}
