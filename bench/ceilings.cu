// SPDX-License-Identifier: MIT OR Apache-2.0
// Hardware ceilings of a machine's GPUs, for the multi-device work: the HBM
// copy rate of each GPU, peer-to-peer copies between every ordered pair
// (cudaMemcpyPeerAsync, with peer access enabled where the runtime allows
// it; never NVLink multicast), and pinned host-to-device copies to each GPU
// alone and to all GPUs at once.
//
//   gp_ceilings [MiB per copy, default 1024]
#include <cuda_runtime.h>

#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <vector>

namespace {

#define CK(call)                                                                              \
    do {                                                                                      \
        cudaError_t e_ = (call);                                                              \
        if (e_ != cudaSuccess) {                                                              \
            std::fprintf(stderr, "%s failed: %s (%s:%d)\n", #call, cudaGetErrorString(e_), __FILE__, __LINE__); \
            std::exit(1);                                                                     \
        }                                                                                     \
    } while (0)

// Best of `reps` timed runs of `copy` on `s`, in seconds (one warm-up).
template <class Copy>
double best_seconds(cudaStream_t s, int reps, Copy &&copy) {
    cudaEvent_t a, b;
    CK(cudaEventCreate(&a));
    CK(cudaEventCreate(&b));
    copy();
    CK(cudaStreamSynchronize(s));
    double best = 1e30;
    for (int r = 0; r < reps; ++r) {
        CK(cudaEventRecord(a, s));
        copy();
        CK(cudaEventRecord(b, s));
        CK(cudaEventSynchronize(b));
        float ms = 0;
        CK(cudaEventElapsedTime(&ms, a, b));
        if (ms / 1e3 < best) best = ms / 1e3;
    }
    CK(cudaEventDestroy(a));
    CK(cudaEventDestroy(b));
    return best;
}

}  // namespace

int main(int argc, char **argv) {
    const size_t bytes = (size_t)(argc > 1 ? std::atoi(argv[1]) : 1024) << 20;
    int n = 0;
    CK(cudaGetDeviceCount(&n));
    std::printf("devices: %d, copy size %zu MiB\n", n, bytes >> 20);
    std::vector<void *> a(n), b(n), host(n);
    std::vector<cudaStream_t> st(n);
    for (int d = 0; d < n; ++d) {
        cudaDeviceProp p;
        CK(cudaGetDeviceProperties(&p, d));
        CK(cudaSetDevice(d));
        CK(cudaMalloc(&a[d], bytes));
        CK(cudaMalloc(&b[d], bytes));
        CK(cudaMemset(a[d], 1, bytes));
        CK(cudaStreamCreateWithFlags(&st[d], cudaStreamNonBlocking));
        CK(cudaMallocHost(&host[d], bytes));
        std::printf("device %d: %s, PCI %04x:%02x:%02x\n", d, p.name, p.pciDomainID, p.pciBusID, p.pciDeviceID);
    }
    // HBM: device-to-device copy within each GPU, read + write counted.
    for (int d = 0; d < n; ++d) {
        CK(cudaSetDevice(d));
        const double s = best_seconds(st[d], 5, [&] { CK(cudaMemcpyAsync(b[d], a[d], bytes, cudaMemcpyDeviceToDevice, st[d])); });
        std::printf("hbm copy   dev %d: %7.1f GB/s (read + write)\n", d, 2.0 * bytes / s / 1e9);
    }
    // Peer copies between every ordered pair, on the source GPU's stream.
    for (int i = 0; i < n; ++i)
        for (int j = 0; j < n; ++j) {
            if (i == j) continue;
            int can = 0;
            CK(cudaDeviceCanAccessPeer(&can, i, j));
            CK(cudaSetDevice(i));
            if (can) {
                cudaError_t e = cudaDeviceEnablePeerAccess(j, 0);
                if (e != cudaSuccess && e != cudaErrorPeerAccessAlreadyEnabled) CK(e);
                cudaGetLastError();
            }
            const double s = best_seconds(st[i], 5, [&] { CK(cudaMemcpyPeerAsync(b[j], j, a[i], i, bytes, st[i])); });
            std::printf("peer copy  %d -> %d: %7.1f GB/s (peer access %s)\n", i, j, bytes / s / 1e9, can ? "yes" : "no");
        }
    // Pinned host-to-device: each GPU alone, then all at once.
    for (int d = 0; d < n; ++d) {
        CK(cudaSetDevice(d));
        const double s = best_seconds(st[d], 5, [&] { CK(cudaMemcpyAsync(a[d], host[d], bytes, cudaMemcpyHostToDevice, st[d])); });
        std::printf("h2d alone  dev %d: %7.1f GB/s\n", d, bytes / s / 1e9);
    }
    double best = 1e30;
    for (int r = 0; r < 5; ++r) {
        const auto t0 = std::chrono::steady_clock::now();
        for (int d = 0; d < n; ++d) {
            CK(cudaSetDevice(d));
            CK(cudaMemcpyAsync(a[d], host[d], bytes, cudaMemcpyHostToDevice, st[d]));
        }
        for (int d = 0; d < n; ++d) {
            CK(cudaSetDevice(d));
            CK(cudaStreamSynchronize(st[d]));
        }
        const double s = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
        if (r > 0 && s < best) best = s;  // the first round warms up
    }
    std::printf("h2d all %d GPUs at once: %7.1f GB/s in total (%.1f GB/s each)\n", n, n * (double)bytes / best / 1e9,
                bytes / best / 1e9);
    for (int d = 0; d < n; ++d) {
        CK(cudaSetDevice(d));
        CK(cudaFree(a[d]));
        CK(cudaFree(b[d]));
        CK(cudaFreeHost(host[d]));
        CK(cudaStreamDestroy(st[d]));
    }
    return 0;
}
