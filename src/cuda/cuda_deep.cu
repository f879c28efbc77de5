// SPDX-License-Identifier: MIT OR Apache-2.0
// The CUDA backend's out-of-domain sums and DEEP composition
// (kernels/deep.cuh).
#include <cuda_runtime.h>

#include <vector>

#include "core/core.h"
#include "core/trace.h"
#include "cuda/cuda_backend.h"
#include "kernels/deep.cuh"

namespace gp {
namespace cuda {

void CudaBackend::ood_sums(const OodArgs &a, uint64_t *out) {
    TraceRange trace("cuda: ood sums");
    GP_CUDA(cudaSetDevice(device_));
    ext_dispatch(a.field, a.E, a.ext_kind, [&](auto F, auto Ec) {
        using Fd = decltype(F);
        using T = typename Fd::T;
        constexpr int E = decltype(Ec)::value;
        constexpr int kBlock = 256;
        Ext<Fd, E> z;
        for (int e = 0; e < E; ++e) z.c[e] = (T)a.z[e];
        const uint64_t nb = 1ull << a.log_nb;
        const std::vector<const T *> cols = base_column_ptrs<T>(a.bufs);
        const uint64_t chunks = nb < 64 * kBlock ? (nb + kBlock - 1) / kBlock : 64;
        const uint64_t per_block = (nb + chunks - 1) / chunks;
        // One scratch block: weights, column pointers, partials.
        const uint64_t wb = nb * sizeof(Ext<Fd, E>), cb = cols.size() * sizeof(T *),
                       pb = cols.size() * chunks * E * sizeof(T);
        char *base = static_cast<char *>(scratch(perm_, wb + cb + pb + 64, "OOD scratch"));
        auto *w = reinterpret_cast<Ext<Fd, E> *>(base);
        auto *dcols = reinterpret_cast<const T **>(base + ((wb + 7) & ~7ull));
        auto *partials = reinterpret_cast<T *>(reinterpret_cast<char *>(dcols) + cb);
        GP_CUDA(cudaMemcpyAsync(dcols, cols.data(), cb, cudaMemcpyHostToDevice, compute_));
        kern::k_ood_weights<Fd, E><<<grid_for((nb + 127) / 128, (uint32_t)sms_ * 16), 128, 0, compute_>>>(
            a.log_nb, a.bitrev, (T)a.shift, (T)a.omega_n, z, w);
        check_launch();
        kern::k_ood_partials<Fd, E, kBlock><<<dim3((uint32_t)chunks, (uint32_t)cols.size()), kBlock, 0, compute_>>>(
            dcols, w, a.log_m, a.log_nb, a.bitrev, per_block, partials);
        check_launch();
        std::vector<T> host(cols.size() * chunks * E);
        GP_CUDA(cudaStreamSynchronize(compute_));
        to_host(host.data(), partials, pb);
        for (uint64_t c = 0; c < cols.size(); ++c) {
            Ext<Fd, E> acc = Ext<Fd, E>::zero();
            for (uint64_t q = 0; q < chunks; ++q) {
                Ext<Fd, E> v;
                for (int k = 0; k < E; ++k) v.c[k] = host[(c * chunks + q) * E + k];
                acc = acc + v;
            }
            for (int k = 0; k < E; ++k) out[c * E + k] = acc.c[k];
        }
    });
}

void CudaBackend::deep(const DeepArgs &a) {
    TraceRange trace("cuda: deep");
    GP_CUDA(cudaSetDevice(device_));
    ext_dispatch(a.field, a.E, a.ext_kind, [&](auto F, auto Ec) {
        using Fd = decltype(F);
        using T = typename Fd::T;
        constexpr int E = decltype(Ec)::value;
        const DeepInputs<Fd, E> in(a);
        const auto &z = in.z, &alpha = in.alpha, &corr = in.corr;
        const auto &sets = in.sets;
        const uint64_t sb = sets.size() * sizeof(ColSet<T>), eb = sizeof(Ext<Fd, E>);
        const uint64_t zb = z.size() * eb, ab = alpha.size() * eb, kb = corr.size() * eb;
        char *base = static_cast<char *>(scratch(perm_, up8(sb) + up8(zb) + up8(ab) + up8(kb), "DEEP scratch"));
        char *dz = base + up8(sb), *da = dz + up8(zb), *dk = da + up8(ab);
        GP_CUDA(cudaMemcpyAsync(base, sets.data(), sb, cudaMemcpyHostToDevice, compute_));
        GP_CUDA(cudaMemcpyAsync(dz, z.data(), zb, cudaMemcpyHostToDevice, compute_));
        GP_CUDA(cudaMemcpyAsync(da, alpha.data(), ab, cudaMemcpyHostToDevice, compute_));
        GP_CUDA(cudaMemcpyAsync(dk, corr.data(), kb, cudaMemcpyHostToDevice, compute_));
        const uint64_t m = 1ull << a.log_m;
        kern::k_deep<Fd, E><<<grid_for((m + 127) / 128, (uint32_t)sms_ * 16), 128, 0, compute_>>>(
            reinterpret_cast<const ColSet<T> *>(base), (uint32_t)sets.size(), a.log_m, a.bitrev, (T)a.shift,
            (T)a.omega_m, reinterpret_cast<const Ext<Fd, E> *>(dz), a.npoints,
            reinterpret_cast<const Ext<Fd, E> *>(da), a.ncols, reinterpret_cast<const Ext<Fd, E> *>(dk),
            static_cast<T *>(a.out->data));
        check_launch();
        GP_CUDA(cudaStreamSynchronize(compute_));
    });
}

void CudaBackend::add_into(const FieldDesc &f, void *dst, const void *src, uint64_t count) {
    GP_CUDA(cudaSetDevice(device_));
    dispatch_field(f.id, [&](auto F) {
        using Fd = decltype(F);
        using T = typename Fd::T;
        kern::k_add_into<Fd><<<grid_for((count + 255) / 256, (uint32_t)sms_ * 16), 256, 0, compute_>>>(
            static_cast<T *>(dst), static_cast<const T *>(src), count);
        check_launch();
    });
    GP_CUDA(cudaStreamSynchronize(compute_));
}

}  // namespace cuda
}  // namespace gp
