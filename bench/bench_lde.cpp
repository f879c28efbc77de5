// SPDX-License-Identifier: MIT OR Apache-2.0
// Benchmarks of the batched coset LDE (Google Benchmark).
//
// Counters:
//   GBps      bytes read once + written once, over the time
//   floor_ms  the one-pass floor: those bytes over the device-to-device copy
//             bandwidth measured in this run (device input), or the input
//             bytes over the pinned host-to-device bandwidth (host input)
//   x_floor   time / floor
//   arith_ms  the arithmetic floor of a device LDE: its butterflies (the
//             inverse NTT of n plus B forward NTTs of n, n/2 log2 n each, per
//             column) over the butterfly rate measured in this run
//   x_arith   time / arith_ms
//   arith2_ms the same butterflies at the rate of radix-2^k groups with
//             power-of-two inner twiddles (pow2_butterfly_rate: Goldilocks;
//             other fields equal arith_ms)
//   x_arith2  time / arith2_ms
//
// Run: ./gp_bench [--benchmark_filter=...]
#include <benchmark/benchmark.h>

#include <chrono>
#include <cstdio>
#include <cstring>
#include <string>
#include <vector>

#include "bench_util.h"
#include "gpuprover.h"
#ifdef GP_HAVE_CUDA
#include <cuda_runtime.h>
#endif

using namespace gpb;

namespace {

#ifdef GP_HAVE_CUDA
// arith_ms / x_arith and arith2_ms / x_arith2 for `bflies` radix-2
// butterflies (see the top of the file).
void arith_counters(benchmark::State &st, gp_field f, double bflies) {
    const double arith_s = bflies / butterfly_rate(f);
    st.counters["arith_ms"] = arith_s * 1e3;
    st.counters["x_arith"] = x_floor_counter(arith_s);
    const double arith2_s = bflies / pow2_butterfly_rate(f);
    st.counters["arith2_ms"] = arith2_s * 1e3;
    st.counters["x_arith2"] = x_floor_counter(arith2_s);
}
#endif

// args: field, log_n, cols, blowup, order (0 natural, 1 bit-reversed);
// `randomizers` coefficients of a randomizer per column (0: none).
void run_device_lde(benchmark::State &st, gp_backend backend, uint64_t randomizers = 0) {
    gp_context *ctx = context_or_skip(st, backend);
    if (!ctx) return;
    gp_field f = field_of(st.range(0));
    uint64_t n = 1ull << st.range(1), cols = (uint64_t)st.range(2), B = (uint64_t)st.range(3);
    uint32_t es = gp_field_element_size(f);
    std::vector<unsigned char> host(n * cols * es);
    fill_trace(host.data(), f, n * cols, 42);
    gp_buffer *in = nullptr, *out = nullptr;
    if (gp_buffer_from_host(ctx, f, 1, n, cols, GP_LAYOUT_COL_MAJOR, host.data(), &in) != GP_OK ||
        gp_buffer_create(ctx, f, 1, n * B, cols, &out) != GP_OK) {
        st.SkipWithError(gp_last_error());
        gp_buffer_destroy(in);
        return;
    }
    gp_lde_options o;
    gp_lde_options_init(&o);
    o.blowup = (uint32_t)B;
    o.output_order = st.range(4) ? GP_ORDER_BIT_REVERSED : GP_ORDER_NATURAL;
    std::vector<unsigned char> coeffs(randomizers * cols * es);
    if (randomizers) {
        fill_trace(coeffs.data(), f, randomizers * cols, 43);
        o.randomizers = coeffs.data();
        o.randomizer_count = randomizers;
    }
    gp_lde_batch(ctx, in, &o, out);  // warm-up: tables, scratch
    for (auto _ : st) {
        if (gp_lde_batch(ctx, in, &o, out) != GP_OK) {
            st.SkipWithError(gp_last_error());
            break;
        }
    }
    double bytes = (double)(n * cols + n * B * cols) * es;
    st.counters["GBps"] = benchmark::Counter(bytes, benchmark::Counter::kIsIterationInvariantRate);
#ifdef GP_HAVE_CUDA
    if (backend == GP_BACKEND_CUDA) {
        double floor_s = bytes / d2d_bandwidth();
        st.counters["floor_ms"] = floor_s * 1e3;
        st.counters["x_floor"] = x_floor_counter(floor_s);
        arith_counters(st, f, (double)(1 + B) * (n / 2) * st.range(1) * cols);
    }
#endif
    gp_buffer_destroy(in);
    gp_buffer_destroy(out);
}

void BM_LDE_Device_CUDA(benchmark::State &st) { run_device_lde(st, GP_BACKEND_CUDA); }
// The randomized LDE (Triton VM's: 98 coefficients per column); arg 5: the count.
void BM_LDE_Randomized_CUDA(benchmark::State &st) { run_device_lde(st, GP_BACKEND_CUDA, (uint64_t)st.range(5)); }
void BM_LDE_Device_CPU(benchmark::State &st) { run_device_lde(st, GP_BACKEND_CPU); }

#ifdef GP_HAVE_CUDA
// Host input (args: pinned, field, log_n, cols, blowup) -> device-resident
// bit-reversed LDE. Floor: input bytes over pinned H2D bandwidth.
void BM_LDE_Host_CUDA(benchmark::State &st) {
    gp_context *ctx = context(GP_BACKEND_CUDA);
    if (!ctx) {
        st.SkipWithError("no CUDA device");
        return;
    }
    bool pinned = st.range(0) != 0;
    gp_field f = field_of(st.range(1));
    uint64_t n = 1ull << st.range(2), cols = (uint64_t)st.range(3), B = (uint64_t)st.range(4);
    uint32_t es = gp_field_element_size(f);
    uint64_t in_bytes = n * cols * es;
    void *host = nullptr;
    std::vector<unsigned char> pageable;
    if (pinned) {
        if (cudaHostAlloc(&host, in_bytes, cudaHostAllocDefault) != cudaSuccess) {
            st.SkipWithError("cudaHostAlloc failed");
            return;
        }
    } else {
        pageable.resize(in_bytes);
        host = pageable.data();
    }
    fill_trace(host, f, n * cols, 7);
    gp_buffer *out = nullptr;
    if (gp_buffer_create(ctx, f, 1, n * B, cols, &out) != GP_OK) {
        st.SkipWithError(gp_last_error());
        if (pinned) cudaFreeHost(host);
        return;
    }
    gp_lde_options o;
    gp_lde_options_init(&o);
    o.blowup = (uint32_t)B;
    o.output_order = GP_ORDER_BIT_REVERSED;
    gp_lde_batch_host(ctx, f, 1, host, n, cols, &o, out);
    for (auto _ : st) {
        if (gp_lde_batch_host(ctx, f, 1, host, n, cols, &o, out) != GP_OK) {
            st.SkipWithError(gp_last_error());
            break;
        }
    }
    double floor_s = in_bytes / h2d_bandwidth();
    st.counters["floor_ms"] = floor_s * 1e3;
    st.counters["x_floor"] = x_floor_counter(floor_s);
    st.counters["in_GBps"] = benchmark::Counter((double)in_bytes, benchmark::Counter::kIsIterationInvariantRate);
    gp_buffer_destroy(out);
    if (pinned) cudaFreeHost(host);
}
#endif

// Batched forward NTT in place (args: field, log_n, cols).
void BM_NTT_CUDA(benchmark::State &st) {
    gp_context *ctx = context(GP_BACKEND_CUDA);
    if (!ctx) {
        st.SkipWithError("no CUDA device");
        return;
    }
    gp_field f = field_of(st.range(0));
    uint64_t n = 1ull << st.range(1), cols = (uint64_t)st.range(2);
    uint32_t es = gp_field_element_size(f);
    gp_buffer *buf = nullptr;
    if (gp_buffer_create(ctx, f, 1, n, cols, &buf) != GP_OK) {
        st.SkipWithError(gp_last_error());
        return;
    }
    gp_ntt_options o;
    gp_ntt_options_init(&o);
    o.output_order = GP_ORDER_BIT_REVERSED;
    gp_ntt_batch(ctx, buf, &o);
    for (auto _ : st) gp_ntt_batch(ctx, buf, &o);
    st.counters["GBps"] = benchmark::Counter(2.0 * n * cols * es, benchmark::Counter::kIsIterationInvariantRate);
#ifdef GP_HAVE_CUDA
    arith_counters(st, f, (double)(n / 2) * st.range(1) * cols);
#endif
    gp_buffer_destroy(buf);
}

// W1 and the 31-bit shapes, bit-reversed (Plonky3) and natural order.
BENCHMARK(BM_LDE_Device_CUDA)
    ->Args({GL, 20, 256, 4, 1})
    ->Args({GL, 20, 256, 4, 0})
    ->Args({BB, 22, 128, 2, 1})
    ->Args({KB, 22, 128, 2, 1})
    ->Args({BB, 22, 128, 2, 0})
    ->Unit(benchmark::kMillisecond)
    ->UseRealTime()
    ->MinTime(0.5);
// Every blowup 2..32 at the same output size (2^24 rows x 64 columns of
// LDE), to compare per base column and output element with the rows above.
BENCHMARK(BM_LDE_Device_CUDA)
    ->Name("BM_LDE_Blowups_CUDA")
    ->Args({GL, 23, 64, 2, 1})
    ->Args({GL, 22, 64, 4, 1})
    ->Args({GL, 21, 64, 8, 1})
    ->Args({GL, 20, 64, 16, 1})
    ->Args({GL, 19, 64, 32, 1})
    ->Args({BB, 23, 64, 2, 1})
    ->Args({BB, 21, 64, 8, 1})
    ->Args({BB, 19, 64, 32, 1})
    // natural order: every Goldilocks blowup from 8 on, the 31-bit B=8, 32
    ->Args({GL, 21, 64, 8, 0})
    ->Args({GL, 20, 64, 16, 0})
    ->Args({GL, 19, 64, 32, 0})
    ->Args({BB, 21, 64, 8, 0})
    ->Args({BB, 19, 64, 32, 0})
    // beyond 2^24 rows a column: natural order's rows of 2^kLogC of the B
    // cosets (kernels/ntt.cuh, k_turn_pass)
    ->Args({GL, 22, 32, 8, 0})
    ->Unit(benchmark::kMillisecond)
    ->UseRealTime()
    ->MinTime(0.2);
#ifdef GP_HAVE_CUDA
// Each randomized shape beside its plain LDE (the same args, count 0): W1
// in both orders, Triton's main table (379 columns) and auxiliary table (88
// cubic columns: 264 base columns) at expansion 4 and its FRI domain's 8,
// BabyBear at blowup 2 and 8.
BENCHMARK(BM_LDE_Randomized_CUDA)
    ->Args({GL, 20, 256, 4, 0, 98})
    ->Args({GL, 20, 256, 4, 0, 0})
    ->Args({GL, 20, 256, 4, 1, 98})
    ->Args({GL, 20, 256, 4, 1, 0})
    ->Args({GL, 21, 379, 4, 0, 98})
    ->Args({GL, 21, 379, 4, 0, 0})
    ->Args({GL, 21, 264, 4, 0, 98})
    ->Args({GL, 21, 264, 4, 0, 0})
    ->Args({GL, 21, 96, 8, 0, 98})
    ->Args({GL, 21, 96, 8, 0, 0})
    ->Args({BB, 22, 128, 2, 1, 98})
    ->Args({BB, 22, 128, 2, 1, 0})
    ->Args({BB, 21, 64, 8, 0, 98})
    ->Args({BB, 21, 64, 8, 0, 0})
    ->Unit(benchmark::kMillisecond)
    ->UseRealTime();
BENCHMARK(BM_LDE_Host_CUDA)
    ->Args({1, GL, 20, 256, 4})
    ->Args({0, GL, 20, 256, 4})
    ->Unit(benchmark::kMillisecond)
    ->UseRealTime()
    ->MinTime(0.5);
#endif
BENCHMARK(BM_NTT_CUDA)->Args({GL, 20, 256})->Args({BB, 22, 128})->Unit(benchmark::kMillisecond)->UseRealTime();
// CPU backend: same row counts, fewer columns (time scales linearly in columns).
BENCHMARK(BM_LDE_Device_CPU)
    ->Args({GL, 20, 16, 4, 1})
    ->Args({BB, 22, 8, 2, 1})
    ->Args({KB, 22, 8, 2, 1})
    ->Unit(benchmark::kMillisecond)
    ->UseRealTime()
    ->Iterations(2);

}  // namespace

