// Benchmarks of the batched coset LDE (Google Benchmark).
//
// Counters:
//   GBps      bytes read once + written once, over the time
//   floor_ms  the one-pass floor: those bytes over the device-to-device copy
//             bandwidth measured in this run (device input), or the input
//             bytes over the pinned host-to-device bandwidth (host input)
//   x_floor   time / floor
//
// Run: ./gp_bench [--benchmark_filter=...]
#include <benchmark/benchmark.h>

#include <chrono>
#include <cstdio>
#include <cstring>
#include <string>
#include <vector>

#include "gpuprover.h"
#ifdef GP_HAVE_CUDA
#include <cuda_runtime.h>
#endif

namespace {

gp_context *context(gp_backend want) {
    static gp_context *cpu = nullptr, *cuda = nullptr;
    static bool cuda_tried = false;
    gp_context_options o;
    gp_context_options_init(&o);
    if (want == GP_BACKEND_CPU) {
        if (!cpu) {
            o.backend = GP_BACKEND_CPU;
            gp_context_create(&o, &cpu);
        }
        return cpu;
    }
    if (!cuda_tried) {
        cuda_tried = true;
        o.backend = GP_BACKEND_CUDA;
        if (gp_context_create(&o, &cuda) != GP_OK) cuda = nullptr;
    }
    return cuda;
}

uint64_t splitmix(uint64_t &s) {
    uint64_t z = (s += 0x9e3779b97f4a7c15ull);
    z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
    z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
    return z ^ (z >> 31);
}

// Random canonical trace of rows x cols base elements, column-major bytes.
void fill_trace(void *dst, gp_field f, uint64_t count, uint64_t seed) {
    uint64_t p = 0;
    gp_field_info(f, &p, nullptr, nullptr);
    if (gp_field_element_size(f) == 8) {
        auto *d = static_cast<uint64_t *>(dst);
        for (uint64_t i = 0; i < count; ++i) d[i] = splitmix(seed) % p;
    } else {
        auto *d = static_cast<uint32_t *>(dst);
        for (uint64_t i = 0; i < count; ++i) d[i] = (uint32_t)(splitmix(seed) % p);
    }
}

#ifdef GP_HAVE_CUDA
// Device-to-device copy bandwidth (bytes read + written per second).
double d2d_bandwidth() {
    static double bw = 0;
    if (bw > 0) return bw;
    const size_t bytes = 2ull << 30;
    void *a = nullptr, *b = nullptr;
    if (cudaMalloc(&a, bytes) != cudaSuccess || cudaMalloc(&b, bytes) != cudaSuccess) return 0;
    cudaMemset(a, 1, bytes);
    cudaMemcpy(b, a, bytes, cudaMemcpyDeviceToDevice);
    cudaEvent_t e0, e1;
    cudaEventCreate(&e0);
    cudaEventCreate(&e1);
    float best = 1e30f;
    for (int i = 0; i < 10; ++i) {
        cudaEventRecord(e0);
        cudaMemcpy(b, a, bytes, cudaMemcpyDeviceToDevice);
        cudaEventRecord(e1);
        cudaEventSynchronize(e1);
        float ms;
        cudaEventElapsedTime(&ms, e0, e1);
        if (ms < best) best = ms;
    }
    cudaFree(a);
    cudaFree(b);
    bw = 2.0 * bytes / (best * 1e-3);
    std::fprintf(stderr, "measured device-to-device copy: %.1f GB/s (read + write)\n", bw / 1e9);
    return bw;
}

// Pinned host-to-device bandwidth.
double h2d_bandwidth() {
    static double bw = 0;
    if (bw > 0) return bw;
    const size_t bytes = 1ull << 30;
    void *h = nullptr, *d = nullptr;
    if (cudaHostAlloc(&h, bytes, cudaHostAllocDefault) != cudaSuccess) return 0;
    if (cudaMalloc(&d, bytes) != cudaSuccess) return 0;
    std::memset(h, 1, bytes);
    double best = 1e30;
    for (int i = 0; i < 5; ++i) {
        auto t0 = std::chrono::steady_clock::now();
        cudaMemcpy(d, h, bytes, cudaMemcpyHostToDevice);
        double s = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
        if (s < best) best = s;
    }
    cudaFree(d);
    cudaFreeHost(h);
    bw = bytes / best;
    std::fprintf(stderr, "measured pinned host-to-device copy: %.1f GB/s\n", bw / 1e9);
    return bw;
}
#endif

gp_field field_of(int64_t f) { return (gp_field)f; }

// args: field, log_n, cols, blowup, order (0 natural, 1 bit-reversed)
void run_device_lde(benchmark::State &st, gp_backend backend) {
    gp_context *ctx = context(backend);
    if (!ctx) {
        st.SkipWithError("backend unavailable");
        return;
    }
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
        st.counters["x_floor"] = benchmark::Counter(floor_s, benchmark::Counter::kIsIterationInvariantRate |
                                                                       benchmark::Counter::kInvert);
    }
#endif
    gp_buffer_destroy(in);
    gp_buffer_destroy(out);
}

void BM_LDE_Device_CUDA(benchmark::State &st) { run_device_lde(st, GP_BACKEND_CUDA); }
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
    st.counters["x_floor"] = benchmark::Counter(floor_s, benchmark::Counter::kIsIterationInvariantRate |
                                                                   benchmark::Counter::kInvert);
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
    gp_buffer_destroy(buf);
}

const int64_t GL = GP_FIELD_GOLDILOCKS, BB = GP_FIELD_BABYBEAR, KB = GP_FIELD_KOALABEAR;

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
#ifdef GP_HAVE_CUDA
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

BENCHMARK_MAIN();
