// SPDX-License-Identifier: MIT OR Apache-2.0
// The CUDA backend's quotient evaluation (kernels/quotient.cuh).
#include <cuda_runtime.h>

#include <cstdlib>
#include <vector>

#include "core/core.h"
#include "core/quotient.h"
#include "core/trace.h"
#include "cuda/cuda_backend.h"
#include "kernels/quotient.cuh"

namespace gp {
namespace cuda {

namespace {
// Device memory of one call, released as a buffer's is (after the compute
// stream drains) when the call ends or unwinds.
struct CallMemory {
    Backend &be;
    void *ptr = nullptr;
    ~CallMemory() {
        if (ptr) be.free_buffer(ptr);
    }
};
}  // namespace

void CudaBackend::quotient(const QuotientArgs &a) {
    TraceRange trace("cuda: quotient");
    GP_CUDA(cudaSetDevice(device_));
    quotient_ext_dispatch(a.prog->field->id, a.prog->ext, [&](auto F, auto Dc) {
        using Fd = decltype(F);
        using T = typename Fd::T;
        using Tw = typename Fd::Tw;
        constexpr int D = decltype(Dc)::value;
        const CompiledProgram &p = *a.prog;
        const QuotientTables<Fd, D> tab(a);
        const uint64_t q = 1ull << a.log_q;
        // Threads in flight: enough to fill the device, fewer when their
        // slots would pass a quarter of the free memory (rows are then
        // taken in turns).
        const uint64_t per_thread = p.base_slots * sizeof(Tw) + p.ext_slots * D * sizeof(T);
        size_t free_b = 0, total_b = 0;
        GP_CUDA(cudaMemGetInfo(&free_b, &total_b));
        // GP_CUDA_QUOTIENT_THREADS: threads in flight, for tuning.
        static const uint64_t threads_env = [] {
            const char *e = std::getenv("GP_CUDA_QUOTIENT_THREADS");
            return e ? std::strtoull(e, nullptr, 10) : 0ull;
        }();
        uint64_t stride = std::min<uint64_t>(q, threads_env ? threads_env : (uint64_t)sms_ * 2048);
        if (per_thread) stride = std::min<uint64_t>(stride, std::max<uint64_t>(128, free_b / 4 / per_thread));
        if (stride > 128) stride &= ~127ull;
        const uint64_t code_b = p.code.size() * sizeof(QIns), uni_b = tab.uniform.size() * sizeof(Tw),
                       chal_b = tab.challenges.size() * sizeof(Ext<Fd, D>),
                       wtw_b = tab.weights_tw.size() * sizeof(Tw), w_b = tab.weights.size() * sizeof(Ext<Fd, D>),
                       per_b = tab.periodic.size() * sizeof(T), sb_b = p.base_slots * stride * sizeof(Tw),
                       se_b = p.ext_slots * D * stride * sizeof(T);
        const uint64_t total = up8(code_b) + up8(uni_b) + up8(chal_b) + up8(wtw_b) + up8(w_b) + up8(per_b) +
                               up8(sb_b) + up8(se_b);
        CallMemory mem{*this};
        mem.ptr = device_alloc(total, "quotient program and slots");
        char *at = static_cast<char *>(mem.ptr);
        auto place = [&](const void *host, uint64_t bytes) {
            char *d = at;
            if (host && bytes) GP_CUDA(cudaMemcpyAsync(d, host, bytes, cudaMemcpyHostToDevice, compute_));
            at += up8(bytes);
            return d;
        };
        const auto *code = reinterpret_cast<const QIns *>(place(p.code.data(), code_b));
        QInputs<Fd, D> in = quotient_geometry<Fd, D>(a);
        in.uniform = reinterpret_cast<const Tw *>(place(tab.uniform.data(), uni_b));
        in.challenges = reinterpret_cast<const Ext<Fd, D> *>(place(tab.challenges.data(), chal_b));
        in.weights_tw = reinterpret_cast<const Tw *>(place(tab.weights_tw.data(), wtw_b));
        in.weights = reinterpret_cast<const Ext<Fd, D> *>(place(tab.weights.data(), w_b));
        const T *periodic = reinterpret_cast<const T *>(place(tab.periodic.data(), per_b));
        in.periodic = tab.periodic.empty() ? nullptr : periodic;
        auto *sb = reinterpret_cast<Tw *>(place(nullptr, sb_b));
        auto *se = reinterpret_cast<T *>(place(nullptr, se_b));
        kern::k_quotient<Fd, D><<<grid_for((stride + 127) / 128), 128, 0, compute_>>>(
            code, p.code.size(), in, p.uses_first, p.uses_last, sb, se, stride, static_cast<T *>(a.out->data));
        check_launch();
        GP_CUDA(cudaStreamSynchronize(compute_));
    });
}

}  // namespace cuda
}  // namespace gp
