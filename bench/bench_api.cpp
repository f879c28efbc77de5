// SPDX-License-Identifier: MIT OR Apache-2.0
// The cost of the API's per-call bookkeeping: the live-handle checks and the
// context's call lock, on calls that do almost nothing else, and the same
// calls from several threads sharing one context.
#include <mutex>

#include "bench_util.h"

namespace {

// gp_context_memory_stats: one registry look-up, the call lock, a re-check.
void BM_Call_MemoryStats(benchmark::State &st) {
    gp_context *ctx = gpb::context(GP_BACKEND_CPU);
    gp_memory_stats s;
    s.struct_size = sizeof s;
    for (auto _ : st) benchmark::DoNotOptimize(gp_context_memory_stats(ctx, &s));
}
BENCHMARK(BM_Call_MemoryStats)->ThreadRange(1, 8)->UseRealTime();

// A getter: one registry look-up, no call lock.
void BM_Call_BufferRows(benchmark::State &st) {
    gp_context *ctx = gpb::context(GP_BACKEND_CPU);
    gp_buffer *b = nullptr;
    gp_buffer_create(ctx, GP_FIELD_GOLDILOCKS, 1, 4, 1, &b);
    for (auto _ : st) benchmark::DoNotOptimize(gp_buffer_rows(b));
    gp_buffer_destroy(b);
}
BENCHMARK(BM_Call_BufferRows)->UseRealTime();

// A small buffer made, copied out and destroyed: three locked calls and
// real work.
void BM_Call_BufferRoundTrip(benchmark::State &st) {
    gp_context *ctx = gpb::context(GP_BACKEND_CPU);
    uint64_t data[4] = {1, 2, 3, 4};
    for (auto _ : st) {
        gp_buffer *b = nullptr;
        gp_buffer_from_host(ctx, GP_FIELD_GOLDILOCKS, 1, 4, 1, GP_LAYOUT_COL_MAJOR, data, &b);
        gp_buffer_to_host(b, GP_LAYOUT_COL_MAJOR, data, sizeof data);
        gp_buffer_destroy(b);
    }
}
BENCHMARK(BM_Call_BufferRoundTrip)->UseRealTime();

// For scale: an uncontended lock and unlock of the kind of mutex the call
// lock is.
void BM_RecursiveMutex(benchmark::State &st) {
    std::recursive_mutex m;
    for (auto _ : st) {
        m.lock();
        m.unlock();
    }
}
BENCHMARK(BM_RecursiveMutex);

}  // namespace
