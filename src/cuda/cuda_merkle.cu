// SPDX-License-Identifier: MIT OR Apache-2.0
// The CUDA backend's hashing: batched permutations (kernels/hash.cuh), and
// Merkle commitments and openings (kernels/merkle.cuh).
//
// The hash kernels (permutations, leaves, layers, streamed absorption) are
// compute-bound and launch one block of 128 threads per 128 items, uncapped:
// the block scheduler then refills each SM as its blocks finish, down to
// the last. A grid capped at 32 blocks an SM (each thread looping over about
// 8 leaves) left partial waves at the end: SP1's commitment of 2^22 x 128
// KoalaBear took 17.54-17.68 ms against 17.04-17.14 ms uncapped, and one
// wave of resident blocks (a thread per 21 leaves) 18.5 ms (H100).
#include <cuda_runtime.h>

#include <cstring>
#include <vector>

#include "core/core.h"
#include "core/trace.h"
#include "cuda/cuda_backend.h"
#include "kernels/hash.cuh"
#include "kernels/merkle.cuh"

namespace gp {
namespace cuda {

// The matrices' descriptors on the device (scratch `merkle_views_`).
template <class T>
const MatView<T> *CudaBackend::device_views(const std::vector<const Buffer *> &mats) {
    std::vector<MatView<T>> views = make_mat_views<T>(mats);
    auto *dv = static_cast<MatView<T> *>(
        scratch(merkle_views_, views.size() * sizeof(MatView<T>), "matrix descriptors"));
    GP_CUDA(cudaMemcpyAsync(dv, views.data(), views.size() * sizeof(MatView<T>), cudaMemcpyHostToDevice,
                            compute_));
    // The host vector dies here: wait for the copy.
    GP_CUDA(cudaStreamSynchronize(compute_));
    return dv;
}

void CudaBackend::permute(int perm, void *states, uint64_t count) {
    TraceRange trace("cuda: permute");
    GP_CUDA(cudaSetDevice(device_));
    int field = perm::field_of(perm);
    perm::dispatch(perm, [&](auto P) {
        using Perm = decltype(P);
        using T = typename Perm::T;
        const uint64_t elems = count * Perm::WIDTH, bytes = elems * sizeof(T);
        T *dev = static_cast<T *>(scratch(perm_, bytes, "permutation states"));
        stage_to_device(states, dev, bytes);
        if (field) check_device_canonical(field_desc((gp_field)field), dev, elems, 0, "states");
        kern::k_permute<Perm><<<grid_for((count + 127) / 128), 128, 0, compute_>>>(dev, count);
        check_launch();
        GP_CUDA(cudaStreamSynchronize(compute_));
        to_host(states, dev, bytes);
    });
}

void CudaBackend::merkle_commit(const MerkleArgs &a, MerkleTree &t) {
    TraceRange trace("cuda: merkle commit");
    GP_CUDA(cudaSetDevice(device_));
    tree_dispatch(a.spec, [&](auto h) {
        using H = decltype(h);
        using W = typename H::W;
        const bool streamed = !a.inject.empty();  // leaves and injected rows hashed already
        const MatView<typename H::T> *dv = streamed ? nullptr : device_views<typename H::T>(a.mats);
        W *nodes = static_cast<W *>(t.nodes);
        const uint32_t d = h.digest;
        const uint64_t n = a.leaf_count();
        if (!streamed) {
            kern::k_merkle_leaves<H><<<grid_for((n + 127) / 128), 128, 0, compute_>>>(
                h, dv, a.groups[0].first, a.groups[0].second, n, nodes);
            check_launch();
        }
        for (uint32_t k = 1; k <= (a.leaves_only ? 0 : a.log_h); ++k) {
            poll("merkle", k, a.log_h);
            const uint64_t m = merkle_layer_rows(n, k);  // the padding digest past it stays zero
            kern::k_merkle_layer<H><<<grid_for((m + 127) / 128), 128, 0, compute_>>>(
                h, nodes + merkle_layer_offset(a.log_h, k - 1) * d, m, dv, a.groups[k].first, a.groups[k].second,
                streamed ? static_cast<const W *>(a.inject[k]) : nullptr, nodes + merkle_layer_offset(a.log_h, k) * d);
            check_launch();
        }
        GP_CUDA(cudaStreamSynchronize(compute_));
    });
}

void CudaBackend::absorb_rows(const AbsorbArgs &a) {
    TraceRange trace("cuda: absorb rows");
    GP_CUDA(cudaSetDevice(device_));
    tree_dispatch(a.spec, [&](auto h) {
        using H = decltype(h);
        using V = MatView<typename H::T>;
        // Queued without waiting: the descriptors go through a pinned half
        // that the previous kernel reading it has finished with.
        const std::vector<V> views = make_mat_views<typename H::T>(a.mats);
        const uint64_t bytes = views.size() * sizeof(V);
        const int half = (int)(views_turn_++ & 1);
        GP_CUDA(cudaEventSynchronize(ev_views_[half]));
        void *pin = pinned_block(views_pin_[half], bytes);
        std::memcpy(pin, views.data(), bytes);
        auto *dv = static_cast<V *>(scratch(views_dev_[half], bytes, "matrix descriptors"));
        GP_CUDA(cudaMemcpyAsync(dv, pin, bytes, cudaMemcpyHostToDevice, compute_));
        kern::k_merkle_absorb<H><<<grid_for((a.rows + 127) / 128), 128, 0, compute_>>>(
            h, dv, static_cast<typename H::S *>(a.states), a.rows, a.n, a.left, a.count, a.first,
            static_cast<typename H::W *>(a.digests));
        check_launch();
        GP_CUDA(cudaEventRecord(ev_views_[half], compute_));
    });
}

void CudaBackend::merkle_open(const MerkleTree &t, const uint64_t *indices, uint64_t count, void *rows,
                              void *paths) {
    TraceRange trace("cuda: merkle open");
    GP_CUDA(cudaSetDevice(device_));
    tree_dispatch(t.spec, [&](auto h) {
        using H = decltype(h);
        using T = typename H::T;
        using W = typename H::W;
        uint64_t row_elems = 0;
        for (const Buffer *b : t.committed) row_elems += b->base_cols();
        const uint64_t row_bytes = rows ? count * row_elems * sizeof(T) : 0;
        const uint64_t path_bytes = paths ? count * (uint64_t)t.path_len() * t.spec.digest * sizeof(W) : 0;
        const uint64_t idx_bytes = count * sizeof(uint64_t);
        const MatView<T> *dv = device_views<T>(t.committed);
        // One scratch block: indices, then rows, then paths.
        const uint64_t row_span = (row_bytes + 7) & ~7ull;  // keeps the paths 8-byte aligned
        char *base = static_cast<char *>(scratch(perm_, idx_bytes + row_span + path_bytes, "openings"));
        GP_CUDA(cudaMemcpyAsync(base, indices, idx_bytes, cudaMemcpyHostToDevice, compute_));
        T *drows = rows ? reinterpret_cast<T *>(base + idx_bytes) : nullptr;
        W *dpaths = paths ? reinterpret_cast<W *>(base + idx_bytes + row_span) : nullptr;
        kern::k_merkle_open<T, W><<<grid_for((count + 127) / 128, (uint32_t)sms_ * 8), 128, 0, compute_>>>(
            dv, (uint32_t)t.committed.size(), row_elems, static_cast<const W *>(t.nodes), t.log_h,
            lifted_kind(t.spec.kind), t.path_len(), t.spec.digest, reinterpret_cast<const uint64_t *>(base), count, drows, dpaths);
        check_launch();
        GP_CUDA(cudaStreamSynchronize(compute_));
        if (rows) to_host(rows, drows, row_bytes);
        if (paths) to_host(paths, dpaths, path_bytes);
    });
}

}  // namespace cuda
}  // namespace gp
