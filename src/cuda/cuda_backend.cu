// The CUDA backend's host side: device memory, cached device tables and
// scratch, pinned staging, streams, and the launch sequences of the LDE and
// NTT passes (kernels/ntt.cuh).
#include <cuda_runtime.h>

#include <algorithm>
#include <array>
#include <cstdlib>
#include <cstring>
#include <map>
#include <string>
#include <vector>

#include "core/core.h"
#include "core/tables.h"
#include "core/thread_pool.h"
#include "kernels/hash.cuh"
#include "kernels/deep.cuh"
#include "kernels/merkle.cuh"
#include "kernels/ntt.cuh"
#include "math/field.h"
#include "math/ntt.h"

namespace gp {
namespace {

#define GP_CUDA(call)                                                                    \
    do {                                                                                 \
        cudaError_t e_ = (call);                                                         \
        if (e_ != cudaSuccess) cuda_fail(e_, #call, __FILE__, __LINE__);                 \
    } while (0)

[[noreturn]] void cuda_fail(cudaError_t e, const char *what, const char *file, int line) {
    cudaGetLastError();  // clear sticky-free errors so the context stays usable
    if (e == cudaErrorMemoryAllocation)
        fail(GP_ERR_DEVICE_OUT_OF_MEMORY, "device allocation failed (", what, ")");
    fail(GP_ERR_CUDA, cudaGetErrorName(e), ": ", cudaGetErrorString(e), " at ", file, ":", line,
         " (", what, ")");
}

void check_launch() { GP_CUDA(cudaGetLastError()); }

uint32_t grid_for(uint64_t blocks, uint32_t cap = 1u << 30) {
    return (uint32_t)std::max<uint64_t>(1, std::min<uint64_t>(blocks, cap));
}

// A grow-only device allocation reused across calls.
struct DeviceScratch {
    void *ptr = nullptr;
    uint64_t bytes = 0;
};

class CudaBackend final : public Backend {
public:
    CudaBackend(int device, unsigned threads) : device_(device), pool_(threads), tables_(pool_) {
        GP_CUDA(cudaSetDevice(device_));
        cudaDeviceProp prop;
        GP_CUDA(cudaGetDeviceProperties(&prop, device_));
        name_ = prop.name;
        sms_ = prop.multiProcessorCount;
        GP_CUDA(cudaStreamCreateWithFlags(&compute_, cudaStreamNonBlocking));
        GP_CUDA(cudaStreamCreateWithFlags(&copy_, cudaStreamNonBlocking));
        for (auto &e : ev_copied_) GP_CUDA(cudaEventCreateWithFlags(&e, cudaEventDisableTiming));
        for (auto &e : ev_done_) GP_CUDA(cudaEventCreateWithFlags(&e, cudaEventDisableTiming));
        for (auto &e : ev_pin_) GP_CUDA(cudaEventCreateWithFlags(&e, cudaEventDisableTiming));
        GP_CUDA(cudaMalloc(&flag_, sizeof(unsigned long long)));
        ++allocations_;
        set_smem_limits();
        // Tuning knobs for experiments: threads per block (128..512, power
        // of two) and the largest tile (log2 elements).
        if (const char *v = std::getenv("GP_CUDA_THREADS")) {
            uint32_t t = (uint32_t)std::strtoul(v, nullptr, 10);
            if (is_pow2(t) && t >= 64 && t <= (uint32_t)kern::kThreads) threads_override_ = t;
        }
        if (const char *v = std::getenv("GP_CUDA_TILE_LOG")) {
            uint32_t t = (uint32_t)std::strtoul(v, nullptr, 10);
            if (t >= 8) tile_log_override_ = t;
        }
    }
    ~CudaBackend() override {
        cudaSetDevice(device_);
        cudaStreamSynchronize(compute_);
        cudaStreamSynchronize(copy_);
        release_caches();
        cudaFree(flag_);
        for (auto &e : ev_copied_) cudaEventDestroy(e);
        for (auto &e : ev_done_) cudaEventDestroy(e);
        for (auto &e : ev_pin_) cudaEventDestroy(e);
        cudaStreamDestroy(compute_);
        cudaStreamDestroy(copy_);
    }

    gp_backend kind() const override { return GP_BACKEND_CUDA; }
    std::string device_name() const override { return name_; }

    void *alloc_buffer(uint64_t bytes) override {
        void *p = device_alloc(bytes, "buffer");
        cudaError_t e = cudaMemsetAsync(p, 0, bytes, compute_);
        if (e == cudaSuccess) e = cudaStreamSynchronize(compute_);
        if (e != cudaSuccess) {
            cudaFree(p);
            cuda_fail(e, "cudaMemsetAsync", __FILE__, __LINE__);
        }
        return p;
    }
    void free_buffer(void *p) override {
        cudaSetDevice(device_);
        cudaStreamSynchronize(compute_);
        cudaFree(p);
    }

    void upload(Buffer &dst, const void *host, gp_layout layout) override {
        GP_CUDA(cudaSetDevice(device_));
        const uint32_t es = dst.field->elem_size;
        const uint64_t count = dst.rows * dst.base_cols();
        bool direct = layout == GP_LAYOUT_COL_MAJOR && dst.ext == 1;
        void *target = direct ? dst.data : scratch(perm_, dst.bytes, "layout scratch");
        stage_to_device(host, target, dst.bytes);
        check_device_canonical(*dst.field, target, count, 0);
        if (!direct) {
            // Host layout -> base columns: rows x (cols*ext) transpose (row-major),
            // or per extension column a rows x ext transpose (column-major).
            bool rm = layout == GP_LAYOUT_ROW_MAJOR;
            transpose(es, target, dst.data, rm ? 1 : dst.cols, dst.rows, rm ? dst.base_cols() : dst.ext);
        }
        GP_CUDA(cudaStreamSynchronize(compute_));
    }

    void download(const Buffer &src, void *host, gp_layout layout) override {
        GP_CUDA(cudaSetDevice(device_));
        const uint32_t es = src.field->elem_size;
        bool direct = layout == GP_LAYOUT_COL_MAJOR && src.ext == 1;
        const void *from = src.data;
        if (!direct) {
            void *tmp = scratch(perm_, src.bytes, "layout scratch");
            bool rm = layout == GP_LAYOUT_ROW_MAJOR;
            // inverse of the upload transposes
            if (rm)
                transpose(es, src.data, tmp, 1, src.base_cols(), src.rows);
            else
                transpose(es, src.data, tmp, src.cols, src.ext, src.rows);
            from = tmp;
        }
        GP_CUDA(cudaStreamSynchronize(compute_));
        GP_CUDA(cudaMemcpy(host, from, src.bytes, cudaMemcpyDeviceToHost));
    }

    void lde(const LdeArgs &a) override {
        GP_CUDA(cudaSetDevice(device_));
        dispatch_field(a.field->id, [&](auto F) { lde_impl<decltype(F)>(a); });
    }

    void ntt(Buffer &buf, const NttArgs &a) override {
        GP_CUDA(cudaSetDevice(device_));
        dispatch_field(buf.field->id, [&](auto F) { ntt_impl<decltype(F)>(buf, a); });
    }

    void permute(int perm, void *states, uint64_t count) override {
        GP_CUDA(cudaSetDevice(device_));
        int field = perm::field_of(perm);
        perm::dispatch(perm, [&](auto P) {
            using Perm = decltype(P);
            using T = typename Perm::T;
            const uint64_t elems = count * Perm::WIDTH, bytes = elems * sizeof(T);
            T *dev = static_cast<T *>(scratch(perm_, bytes, "permutation states"));
            stage_to_device(states, dev, bytes);
            if (field) check_device_canonical(field_desc((gp_field)field), dev, elems, 0);
            kern::k_permute<Perm><<<grid_for((count + 127) / 128, (uint32_t)sms_ * 16), 128, 0, compute_>>>(dev, count);
            check_launch();
            GP_CUDA(cudaStreamSynchronize(compute_));
            GP_CUDA(cudaMemcpy(states, dev, bytes, cudaMemcpyDeviceToHost));
        });
    }

    // The matrices' descriptors on the device (scratch `merkle_views_`).
    template <class T>
    const MatView<T> *device_views(const std::vector<const Buffer *> &mats) {
        std::vector<MatView<T>> views = make_mat_views<T>(mats);
        auto *dv = static_cast<MatView<T> *>(
            scratch(merkle_views_, views.size() * sizeof(MatView<T>), "matrix descriptors"));
        GP_CUDA(cudaMemcpyAsync(dv, views.data(), views.size() * sizeof(MatView<T>), cudaMemcpyHostToDevice,
                                compute_));
        // The host vector dies here: wait for the copy.
        GP_CUDA(cudaStreamSynchronize(compute_));
        return dv;
    }

    void merkle_commit(const MerkleArgs &a, MerkleTree &t) override {
        GP_CUDA(cudaSetDevice(device_));
        tree_dispatch(a.spec, [&](auto h) {
            using H = decltype(h);
            using W = typename H::W;
            const MatView<typename H::T> *dv = device_views<typename H::T>(a.mats);
            W *nodes = static_cast<W *>(t.nodes);
            const uint32_t d = h.digest;
            const uint64_t n = 1ull << a.log_h;
            kern::k_merkle_leaves<H><<<grid_for((n + 127) / 128, (uint32_t)sms_ * 32), 128, 0, compute_>>>(
                h, dv, a.groups[0].first, a.groups[0].second, n, nodes);
            check_launch();
            for (uint32_t k = 1; k <= (a.leaves_only ? 0 : a.log_h); ++k) {
                const uint64_t m = n >> k;
                kern::k_merkle_layer<H><<<grid_for((m + 127) / 128, (uint32_t)sms_ * 32), 128, 0, compute_>>>(
                    h, nodes + merkle_layer_offset(a.log_h, k - 1) * d, m, dv, a.groups[k].first,
                    a.groups[k].second, nodes + merkle_layer_offset(a.log_h, k) * d);
                check_launch();
            }
            GP_CUDA(cudaStreamSynchronize(compute_));
        });
    }
    void merkle_open(const MerkleTree &t, const uint64_t *indices, uint64_t count, void *rows,
                     void *paths) override {
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
                t.path_len(), t.spec.digest, reinterpret_cast<const uint64_t *>(base), count, drows, dpaths);
            check_launch();
            GP_CUDA(cudaStreamSynchronize(compute_));
            if (rows) GP_CUDA(cudaMemcpy(rows, drows, row_bytes, cudaMemcpyDeviceToHost));
            if (paths) GP_CUDA(cudaMemcpy(paths, dpaths, path_bytes, cudaMemcpyDeviceToHost));
        });
    }
    void fri_fold(const FriFoldArgs &a) override {
        GP_CUDA(cudaSetDevice(device_));
        ext_dispatch(a.field, a.ext, [&](auto F, auto Dc) {
            using Fd = decltype(F);
            constexpr int D = decltype(Dc)::value;
            const uint64_t groups = 1ull << (a.log_n - a.log_a);
            kern::k_fri_fold<Fd, D><<<grid_for((groups + 127) / 128, (uint32_t)sms_ * 32), 128, 0, compute_>>>(
                fri_params<Fd, D>(a), static_cast<const typename Fd::T *>(a.in), groups,
                static_cast<typename Fd::T *>(a.out));
            check_launch();
            GP_CUDA(cudaStreamSynchronize(compute_));
        });
    }
    void fri_to_matrix(uint32_t elem_size, uint32_t ext, uint32_t log_n, uint32_t log_a, bool bitrev,
                       const void *in, void *out) override {
        GP_CUDA(cudaSetDevice(device_));
        const uint64_t n = 1ull << log_n;
        const uint32_t grid = grid_for((n + 255) / 256, (uint32_t)sms_ * 16);
        if (elem_size == 8)
            kern::k_fri_to_matrix<uint64_t><<<grid, 256, 0, compute_>>>(
                log_n, log_a, bitrev, ext, static_cast<const uint64_t *>(in), static_cast<uint64_t *>(out));
        else
            kern::k_fri_to_matrix<uint32_t><<<grid, 256, 0, compute_>>>(
                log_n, log_a, bitrev, ext, static_cast<const uint32_t *>(in), static_cast<uint32_t *>(out));
        check_launch();
        GP_CUDA(cudaStreamSynchronize(compute_));
    }
    void copy_rows(const Buffer &src, uint64_t src_col, uint64_t start, uint64_t stride, uint64_t count, Buffer &dst,
                   uint64_t dst_col) override {
        GP_CUDA(cudaSetDevice(device_));
        const uint32_t es = src.field->elem_size;
        const uint32_t grid = grid_for((count + 255) / 256, (uint32_t)sms_ * 16);
        for (uint32_t c = 0; c < src.ext; ++c) {
            const char *from = static_cast<const char *>(src.data) + (src_col * src.ext + c) * src.rows * es;
            char *to = static_cast<char *>(dst.data) + (dst_col * dst.ext + c) * dst.rows * es;
            if (es == 8)
                kern::k_copy_rows<uint64_t><<<grid, 256, 0, compute_>>>(reinterpret_cast<const uint64_t *>(from), start,
                                                                         stride, count, reinterpret_cast<uint64_t *>(to));
            else
                kern::k_copy_rows<uint32_t><<<grid, 256, 0, compute_>>>(reinterpret_cast<const uint32_t *>(from), start,
                                                                         stride, count, reinterpret_cast<uint32_t *>(to));
            check_launch();
            if (dst.rows > count) GP_CUDA(cudaMemsetAsync(to + count * es, 0, (dst.rows - count) * es, compute_));
        }
        GP_CUDA(cudaStreamSynchronize(compute_));
    }
    void ood_sums(const OodArgs &a, uint64_t *out) override {
        GP_CUDA(cudaSetDevice(device_));
        ext_dispatch(a.field, a.E, [&](auto F, auto Ec) {
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
            GP_CUDA(cudaMemcpy(host.data(), partials, pb, cudaMemcpyDeviceToHost));
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
    void deep(const DeepArgs &a) override {
        GP_CUDA(cudaSetDevice(device_));
        ext_dispatch(a.field, a.E, [&](auto F, auto Ec) {
            using Fd = decltype(F);
            using T = typename Fd::T;
            constexpr int E = decltype(Ec)::value;
            const DeepInputs<Fd, E> in(a);
            const auto &z = in.z, &alpha = in.alpha, &corr = in.corr;
            const auto &sets = in.sets;
            const uint64_t sb = sets.size() * sizeof(ColSet<T>), eb = sizeof(Ext<Fd, E>);
            const uint64_t zb = z.size() * eb, ab = alpha.size() * eb, kb = corr.size() * eb;
            auto up8 = [](uint64_t x) { return (x + 7) & ~7ull; };
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
    void read_tree(const MerkleTree &t, uint64_t offset, void *out, uint64_t bytes) override {
        GP_CUDA(cudaSetDevice(device_));
        GP_CUDA(cudaStreamSynchronize(compute_));
        GP_CUDA(cudaMemcpy(out, static_cast<const char *>(t.nodes) + offset, bytes, cudaMemcpyDeviceToHost));
    }

    void trim() override {
        GP_CUDA(cudaSetDevice(device_));
        GP_CUDA(cudaStreamSynchronize(compute_));
        GP_CUDA(cudaStreamSynchronize(copy_));
        release_caches();
    }
    uint64_t cache_bytes() const override {
        uint64_t b = 0;
        for (auto &kv : dev_tables_) b += kv.second.bytes;
        for (const DeviceScratch *s : scratches()) b += s->bytes;
        for (auto &s : pinned_) b += s.bytes;
        return b;
    }
    uint64_t allocations() const override { return allocations_; }

private:
    static constexpr int kSlots = 3;
    static constexpr uint64_t kStageBytes = 64ull << 20;

    template <class F>
    static void set_smem_limit_for() {
        int bytes = (int)kern::tile_bytes<F>(1u << kern::TileCfg<F>::kTileLog);
        cudaFuncSetAttribute(kern::k_tile_pass<F, true>, cudaFuncAttributeMaxDynamicSharedMemorySize, bytes);
        cudaFuncSetAttribute(kern::k_tile_pass<F, false>, cudaFuncAttributeMaxDynamicSharedMemorySize, bytes);
        cudaFuncSetAttribute(kern::k_chunk_pass<F, true>, cudaFuncAttributeMaxDynamicSharedMemorySize, bytes);
        cudaFuncSetAttribute(kern::k_chunk_pass<F, false>, cudaFuncAttributeMaxDynamicSharedMemorySize, bytes);
        cudaFuncSetAttribute(kern::k_lde_fused<F>, cudaFuncAttributeMaxDynamicSharedMemorySize, bytes);
        cudaFuncSetAttribute(kern::k_lde_spread<F>, cudaFuncAttributeMaxDynamicSharedMemorySize, bytes);
    }
    void set_smem_limits() {
        set_smem_limit_for<Goldilocks>();
        set_smem_limit_for<BabyBear>();
        set_smem_limit_for<KoalaBear>();
        GP_CUDA(cudaGetLastError());
    }

    // ---- memory ----
    void *device_alloc(uint64_t bytes, const char *what) {
        size_t free_b = 0, total_b = 0;
        GP_CUDA(cudaMemGetInfo(&free_b, &total_b));
        if (bytes > free_b)
            fail(GP_ERR_DEVICE_OUT_OF_MEMORY, what, " needs ", bytes, " bytes of device memory; ",
                 free_b, " of ", total_b, " are free on ", name_);
        void *p = nullptr;
        cudaError_t e = cudaMalloc(&p, std::max<uint64_t>(bytes, 1));
        if (e != cudaSuccess) {
            cudaGetLastError();
            fail(GP_ERR_DEVICE_OUT_OF_MEMORY, what, ": cudaMalloc of ", bytes,
                 " bytes failed: ", cudaGetErrorString(e));
        }
        ++allocations_;
        return p;
    }
    void *scratch(DeviceScratch &s, uint64_t bytes, const char *what) {
        if (s.bytes >= bytes) return s.ptr;
        GP_CUDA(cudaStreamSynchronize(compute_));
        GP_CUDA(cudaStreamSynchronize(copy_));
        cudaFree(s.ptr);
        s.ptr = nullptr;
        s.bytes = 0;
        s.ptr = device_alloc(bytes, what);
        s.bytes = bytes;
        return s.ptr;
    }
    struct Pinned {
        void *ptr = nullptr;
        uint64_t bytes = 0;
    };
    void *pinned(int i, uint64_t bytes) {
        Pinned &p = pinned_[i];
        if (p.bytes >= bytes) return p.ptr;
        if (p.ptr) cudaFreeHost(p.ptr);
        p.ptr = nullptr;
        p.bytes = 0;
        cudaError_t e = cudaHostAlloc(&p.ptr, bytes, cudaHostAllocDefault);
        if (e != cudaSuccess) {
            cudaGetLastError();
            fail(GP_ERR_HOST_OUT_OF_MEMORY, "cannot allocate ", bytes, " bytes of pinned staging");
        }
        p.bytes = bytes;
        ++allocations_;
        return p.ptr;
    }
    void release_caches() {
        for (auto &kv : dev_tables_) cudaFree(kv.second.ptr);
        dev_tables_.clear();
        for (DeviceScratch *s : scratches()) {
            cudaFree(s->ptr);
            *s = DeviceScratch{};
        }
        for (auto &p : pinned_) {
            if (p.ptr) cudaFreeHost(p.ptr);
            p = Pinned{};
        }
        tables_.clear();
    }

    // Device copy of a host table, cached under the same key.
    template <class F>
    const typename F::Tw *device_table(const TableKey &key, const typename F::Tw *host, uint64_t count) {
        auto it = dev_tables_.find(key);
        if (it != dev_tables_.end()) return static_cast<const typename F::Tw *>(it->second.ptr);
        uint64_t bytes = count * sizeof(typename F::Tw);
        void *p = device_alloc(bytes, "twiddle table");
        // Ordered before the kernels that read it (a plain cudaMemcpy from
        // pageable memory may return before its DMA lands, and compute_ does
        // not synchronise with the legacy stream).
        GP_CUDA(cudaMemcpyAsync(p, host, bytes, cudaMemcpyHostToDevice, compute_));
        dev_tables_[key] = DeviceScratch{p, bytes};
        return static_cast<const typename F::Tw *>(p);
    }
    template <class F>
    const typename F::Tw *dev_twiddles(FieldId id, uint32_t log, bool inverse) {
        // Always keep one table per direction at the largest size seen.
        TableKey key{id, inverse ? TableKind::TwiddlesInv : TableKind::TwiddlesFwd, 0, 0, 0};
        auto it = dev_tables_.find(key);
        if (it != dev_tables_.end() && it->second.bytes >= (sizeof(typename F::Tw) << log))
            return static_cast<const typename F::Tw *>(it->second.ptr);
        if (it != dev_tables_.end()) {
            GP_CUDA(cudaStreamSynchronize(compute_));
            cudaFree(it->second.ptr);
            dev_tables_.erase(it);
        }
        const typename F::Tw *h = tables_.twiddles<F>(id, log, inverse);
        return device_table<F>(key, h, 1ull << log);
    }
    template <class F>
    const typename F::Tw *dev_powers(FieldId id, uint32_t log, typename F::T base, typename F::T c) {
        TableKey key{id, TableKind::Powers, log, (uint64_t)base, (uint64_t)c};
        auto it = dev_tables_.find(key);
        if (it != dev_tables_.end()) return static_cast<const typename F::Tw *>(it->second.ptr);
        return device_table<F>(key, tables_.powers<F>(id, log, base, c), 1ull << log);
    }

    // ---- host -> device staging ----
    bool is_pinned(const void *p) {
        cudaPointerAttributes attr;
        if (cudaPointerGetAttributes(&attr, p) != cudaSuccess) {
            cudaGetLastError();
            return false;
        }
        return attr.type == cudaMemoryTypeHost;
    }
    // Copies one chunk (<= kStageBytes) of host memory into the next pinned
    // staging buffer (in parallel) when pageable, then queues the H2D copy on
    // copy_. Staging buffers rotate; each is reused once its copy finished.
    void stage_chunk(const void *host, void *dst, uint64_t bytes, bool direct) {
        const void *from = host;
        int slot = (int)(pin_counter_++ % kSlots);
        if (!direct) {
            GP_CUDA(cudaEventSynchronize(ev_pin_[slot]));  // staging buffer free again
            for (int i = 0; i < kSlots; ++i) pinned(i, kStageBytes);  // all at once: later calls allocate nothing
            void *pin = pinned_[slot].ptr;
            pool_.parallel_ranges((bytes + 4095) / 4096, [&](uint64_t b, uint64_t e) {
                uint64_t lo = b * 4096, hi = std::min(bytes, e * 4096);
                std::memcpy(static_cast<char *>(pin) + lo, static_cast<const char *>(host) + lo, hi - lo);
            });
            from = pin;
        }
        GP_CUDA(cudaMemcpyAsync(dst, from, bytes, cudaMemcpyHostToDevice, copy_));
        GP_CUDA(cudaEventRecord(ev_pin_[slot], copy_));
    }
    void stage_to_device(const void *host, void *dst, uint64_t bytes) {
        bool direct = is_pinned(host);
        for (uint64_t off = 0; off < bytes; off += kStageBytes) {
            uint64_t len = std::min(kStageBytes, bytes - off);
            stage_chunk(static_cast<const char *>(host) + off, static_cast<char *>(dst) + off, len, direct);
        }
        GP_CUDA(cudaStreamSynchronize(copy_));
    }

    void check_device_canonical(const FieldDesc &f, const void *data, uint64_t count, uint64_t offset) {
        unsigned long long none = ~0ull;
        GP_CUDA(cudaMemcpyAsync(flag_, &none, sizeof(none), cudaMemcpyHostToDevice, compute_));
        queue_canonical_check(f, data, count, offset);
        finish_canonical_check("data");
    }
    void queue_canonical_check(const FieldDesc &f, const void *data, uint64_t count, uint64_t offset) {
        uint32_t grid = grid_for((count + 255) / 256, (uint32_t)sms_ * 8);
        if (f.elem_size == 8)
            kern::k_check_canonical<uint64_t><<<grid, 256, 0, compute_>>>(
                static_cast<const uint64_t *>(data), count, f.modulus, offset, flag_);
        else
            kern::k_check_canonical<uint32_t><<<grid, 256, 0, compute_>>>(
                static_cast<const uint32_t *>(data), count, f.modulus, offset, flag_);
        check_launch();
    }
    void finish_canonical_check(const char *arg) {
        unsigned long long bad = 0;
        GP_CUDA(cudaMemcpyAsync(&bad, flag_, sizeof(bad), cudaMemcpyDeviceToHost, compute_));
        GP_CUDA(cudaStreamSynchronize(compute_));
        if (bad != ~0ull)
            fail(GP_ERR_NON_CANONICAL, arg, "[", bad, "] is not a canonical field element");
    }

    void transpose(uint32_t es, const void *in, void *out, uint64_t batch, uint64_t R, uint64_t C) {
        uint64_t tiles = batch * ((R + 31) / 32) * ((C + 31) / 32);
        dim3 block(32, 8);
        uint32_t grid = grid_for(tiles, (uint32_t)sms_ * 32);
        if (es == 8)
            kern::k_transpose<uint64_t><<<grid, block, 0, compute_>>>(
                static_cast<const uint64_t *>(in), static_cast<uint64_t *>(out), batch, R, C);
        else
            kern::k_transpose<uint32_t><<<grid, block, 0, compute_>>>(
                static_cast<const uint32_t *>(in), static_cast<uint32_t *>(out), batch, R, C);
        check_launch();
    }

    // ---- transforms ----
    template <class F>
    struct LdePlan {
        uint32_t log_n, log_b;
        SegmentPlan seg;
        bool single, natural;
        const typename F::Tw *tw_inv, *tw_fwd, *scale;
    };

    template <class F>
    static size_t smem_bytes(uint32_t t, uint32_t logC) {
        return kern::tile_bytes<F>(1u << (t + logC));
    }
    template <class F>
    static uint32_t strided_logC(uint32_t lo) {
        return std::min<uint32_t>(lo, kern::TileCfg<F>::kLogC);
    }
    uint32_t grid_blocks(uint64_t blocks) { return grid_for(blocks, (uint32_t)sms_ * 64); }

    // In-place passes over the segments [first, last) of a plan, DIT
    // ascending or DIF descending, on ncols columns of 2^n.
    template <class F, bool DIF>
    void tile_passes(typename F::T *data, uint64_t col_stride, uint64_t ncols, uint32_t n,
                     const SegmentPlan &seg, uint32_t first, uint32_t last, const typename F::Tw *tw) {
        for (uint32_t ii = first; ii < last; ++ii) {
            uint32_t i = DIF ? last - 1 - (ii - first) : ii;
            uint32_t lo = seg.lo[i], t = seg.bits[i];
            uint32_t logC = strided_logC<F>(lo);
            uint64_t blocks = (1ull << (n - t - logC)) * ncols;
            kern::k_tile_pass<F, DIF><<<grid_blocks(blocks), threads_for<F>(t + logC), smem_bytes<F>(t, logC), compute_>>>(
                data, col_stride, ncols, n, lo, t, logC, tw);
            check_launch();
        }
    }

    // Pass plan for size 2^n: the fewest segments the largest tile allows,
    // then the smaller of the two largest tiles that keeps that count (more,
    // smaller blocks per SM hide latency better: measured on an H200, see
    // docs/PERF.md). GP_CUDA_TILE_LOG caps the tile (a tuning knob).
    template <class F>
    SegmentPlan plan_for(uint32_t n, bool &single) {
        constexpr uint32_t max_log = kern::TileCfg<F>::kTileLog, logC = kern::TileCfg<F>::kLogC;
        uint32_t top = tile_log_override_ ? std::min(max_log, tile_log_override_) : max_log;
        auto segs = [&](uint32_t tl) { return n <= tl ? 1u : (n + tl - logC - 1) / (tl - logC); };
        uint32_t tile_log = top;
        if (top > 9 && segs(top - 1) == segs(top)) tile_log = top - 1;
        single = n <= tile_log;
        return single ? plan_segments(n, tile_log) : plan_segments(n, tile_log - logC);
    }
    // Threads for a tile of 2^tile_log elements: kEpt elements a thread (the
    // fused kernel keeps that many coefficients in registers).
    template <class F>
    uint32_t threads_for(uint32_t tile_log) const {
        constexpr uint32_t ept_log = kern::TileCfg<F>::kTileLog - __builtin_ctz(kern::kThreads);  // log2(kEpt)
        uint32_t t = tile_log > ept_log ? 1u << (tile_log - ept_log) : 1u;
        if (threads_override_) t = std::max(t, threads_override_);
        return std::min<uint32_t>(std::max<uint32_t>(t, 64), kern::kThreads);
    }

    // LDE of ncols base columns: in (col stride in_stride, rows_in rows) ->
    // out (col stride n*B). Everything queued on compute_.
    template <class F>
    void lde_columns(const LdePlan<F> &p, const typename F::T *in, uint64_t in_stride,
                     uint64_t rows_in, typename F::T *out, uint64_t ncols) {
        using T = typename F::T;
        const uint32_t n = p.log_n;
        const uint64_t N = 1ull << n, B = 1ull << p.log_b, NB = N * B;
        kern::FusedArgs fa{};
        fa.rows_in = rows_in;
        fa.dst_stride = NB;
        fa.ncols = ncols;
        fa.n = n;
        fa.log_b = p.log_b;
        fa.tw_inv = p.tw_inv;
        fa.tw_fwd = p.tw_fwd;
        fa.scale = p.scale;
        if (p.single) {
            fa.src = in;
            fa.src_stride = in_stride;
            fa.dst = out;
            fa.lo = 0;
            fa.t = n;
            fa.logC = 0;
            fa.bitrev_regions = true;
            fa.natural_out = p.natural;
            kern::k_lde_fused<F><<<grid_blocks(ncols), threads_for<F>(n), smem_bytes<F>(n, 0), compute_>>>(fa);
            check_launch();
            return;
        }
        const SegmentPlan &s = p.seg;
        const uint32_t k = s.count;
        T *R = p.natural ? static_cast<T *>(scratch(regions_, ncols * NB * sizeof(T), "LDE scratch")) : out;
        // A_1: gather + inverse DIT on the lowest segment into region 0.
        {
            uint32_t t = s.bits[0], logC = std::min<uint32_t>(n - t, kern::TileCfg<F>::kLogC);
            uint64_t blocks = (1ull << (n - t - logC)) * ncols;
            kern::k_chunk_pass<F, true><<<grid_blocks(blocks), threads_for<F>(t + logC), smem_bytes<F>(t, logC), compute_>>>(
                in, in_stride, rows_in, R, NB, ncols, n, t, logC, p.log_b, p.tw_inv);
            check_launch();
        }
        // A_i: middle segments of the inverse DIT.
        tile_passes<F, false>(R, NB, ncols, n, s, 1, k - 1, p.tw_inv);
        // F: top segment of the inverse DIT, coset scaling into the B regions.
        {
            uint32_t lo = s.lo[k - 1], t = s.bits[k - 1], logC = strided_logC<F>(lo);
            fa.src = R;
            fa.src_stride = NB;
            fa.dst = R;
            fa.lo = lo;
            fa.t = t;
            fa.logC = logC;
            fa.bitrev_regions = !p.natural;
            fa.natural_out = false;
            uint64_t blocks = (1ull << (n - t - logC)) * ncols;
            kern::k_lde_spread<F><<<grid_blocks(blocks), threads_for<F>(t + logC), smem_bytes<F>(t, logC), compute_>>>(fa);
            check_launch();
        }
        // B_i: the forward DIF of every region, top segment down to segment 1.
        tile_passes<F, true>(R, N, ncols * B, n, s, 1, k, p.tw_fwd);
        // B_1: lowest segment; bit-reversed output in place, natural scattered.
        if (!p.natural) {
            SegmentPlan one = s;
            tile_passes<F, true>(R, N, ncols * B, n, one, 0, 1, p.tw_fwd);
        } else {
            uint32_t t = s.bits[0], logC = std::min<uint32_t>(n - t, kern::TileCfg<F>::kLogC);
            uint64_t blocks = (1ull << (n - t - logC)) * ncols * B;
            kern::k_chunk_pass<F, false><<<grid_blocks(blocks), threads_for<F>(t + logC), smem_bytes<F>(t, logC), compute_>>>(
                R, N, 0, out, NB, ncols * B, n, t, logC, p.log_b, p.tw_fwd);
            check_launch();
        }
    }

    template <class F>
    void lde_impl(const LdeArgs &a) {
        using T = typename F::T;
        const FieldId id = a.field->id;
        LdePlan<F> p{};
        p.log_n = a.log_n;
        p.log_b = a.log_blowup;
        p.natural = a.order == GP_ORDER_NATURAL;
        p.seg = plan_for<F>(a.log_n, p.single);
        p.tw_inv = dev_twiddles<F>(id, a.log_n, true);
        p.tw_fwd = dev_twiddles<F>(id, a.log_n + a.log_blowup, false);
        const uint64_t N = 1ull << a.log_n, NB = N << a.log_blowup;
        T g_over_s = F::mul((T)a.shift, finv<F>((T)a.input_shift));
        p.scale = dev_powers<F>(id, a.log_n, g_over_s, finv<F>((T)(N % F::P)));

        const uint64_t base_cols = a.cols * a.ext, rows_in = a.rows_in;
        T *out = static_cast<T *>(a.out->data);
        // Natural order needs n*B scratch per column: bound it by batching.
        uint64_t max_cols = base_cols;
        if (p.natural && !p.single) {
            size_t free_b = 0, total_b = 0;
            GP_CUDA(cudaMemGetInfo(&free_b, &total_b));
            uint64_t budget = std::max<uint64_t>(regions_.bytes, std::min<uint64_t>(free_b / 2, 4ull << 30));
            max_cols = std::max<uint64_t>(1, budget / (NB * sizeof(T)));
        }

        if (a.in_buf) {
            const T *in = static_cast<const T *>(a.in_buf->data);
            for (uint64_t c0 = 0; c0 < base_cols; c0 += max_cols) {
                uint64_t nc = std::min(max_cols, base_cols - c0);
                lde_columns<F>(p, in + c0 * rows_in, rows_in, rows_in, out + c0 * NB, nc);
            }
            GP_CUDA(cudaStreamSynchronize(compute_));
            return;
        }

        const uint64_t host_bytes = rows_in * base_cols * sizeof(T);
        unsigned long long none = ~0ull;
        GP_CUDA(cudaMemcpyAsync(flag_, &none, sizeof(none), cudaMemcpyHostToDevice, compute_));
        if (a.in_layout == GP_LAYOUT_ROW_MAJOR) {
            // Upload whole, transpose to columns, then transform.
            T *raw = static_cast<T *>(scratch(perm_, host_bytes, "layout scratch"));
            stage_to_device(a.in_host, raw, host_bytes);
            queue_canonical_check(*a.field, raw, rows_in * base_cols, 0);
            T *cols = static_cast<T *>(scratch(in_slot_[0], host_bytes, "LDE input"));
            transpose(sizeof(T), raw, cols, 1, rows_in, base_cols);
            for (uint64_t c0 = 0; c0 < base_cols; c0 += max_cols) {
                uint64_t nc = std::min(max_cols, base_cols - c0);
                lde_columns<F>(p, cols + c0 * rows_in, rows_in, rows_in, out + c0 * NB, nc);
            }
            finish_canonical_check("data");
            return;
        }

        // Column-major host input: pipeline batches of extension columns
        // through kSlots device slots; upload of batch i+1 overlaps the
        // transform of batch i.
        const uint64_t col_bytes = rows_in * a.ext * sizeof(T);
        uint64_t batch = std::max<uint64_t>(1, kStageBytes / col_bytes);
        batch = std::min({batch, a.cols, std::max<uint64_t>(1, max_cols / a.ext)});
        const bool direct = is_pinned(a.in_host);
        const uint64_t slot_bytes = batch * col_bytes;
        T *slot_ptr[kSlots], *slot_cols[kSlots];
        for (int i = 0; i < kSlots; ++i) {
            slot_ptr[i] = static_cast<T *>(scratch(in_slot_[i], slot_bytes * (a.ext > 1 ? 2 : 1), "LDE input slot"));
            slot_cols[i] = a.ext > 1 ? slot_ptr[i] + batch * rows_in * a.ext : slot_ptr[i];
        }
        for (auto &e : ev_done_) GP_CUDA(cudaEventRecord(e, compute_));
        const char *host = static_cast<const char *>(a.in_host);
        uint64_t i = 0;
        for (uint64_t c0 = 0; c0 < a.cols; c0 += batch, ++i) {
            int slot = (int)(i % kSlots);
            uint64_t nc = std::min(batch, a.cols - c0);
            uint64_t bytes = nc * col_bytes;
            GP_CUDA(cudaStreamWaitEvent(copy_, ev_done_[slot], 0));  // device slot free
            // Large batches are staged in kStageBytes pieces.
            for (uint64_t off = 0; off < bytes; off += kStageBytes) {
                uint64_t len = std::min(kStageBytes, bytes - off);
                stage_chunk(host + c0 * col_bytes + off, reinterpret_cast<char *>(slot_ptr[slot]) + off, len,
                            direct);
            }
            GP_CUDA(cudaEventRecord(ev_copied_[slot], copy_));
            GP_CUDA(cudaStreamWaitEvent(compute_, ev_copied_[slot], 0));
            queue_canonical_check(*a.field, slot_ptr[slot], nc * rows_in * a.ext, c0 * rows_in * a.ext);
            if (a.ext > 1) transpose(sizeof(T), slot_ptr[slot], slot_cols[slot], nc, rows_in, a.ext);
            lde_columns<F>(p, slot_cols[slot], rows_in, rows_in, out + c0 * a.ext * NB, nc * a.ext);
            GP_CUDA(cudaEventRecord(ev_done_[slot], compute_));
        }
        finish_canonical_check("data");
    }

    template <class F>
    void ntt_impl(Buffer &buf, const NttArgs &a) {
        using T = typename F::T;
        const FieldId id = buf.field->id;
        const uint32_t n = log2_exact(buf.rows);
        const uint64_t N = buf.rows, ncols = buf.base_cols();
        const bool inverse = a.direction == GP_NTT_INVERSE;
        const bool in_rev = a.input_order == GP_ORDER_BIT_REVERSED;
        T *data = static_cast<T *>(buf.data);
        const typename F::Tw *tw = dev_twiddles<F>(id, n, inverse);
        T s = (T)a.shift;
        uint32_t sgrid = grid_blocks((N * ncols + 255) / 256);
        if (!inverse && s != 1) {
            const typename F::Tw *pw = dev_powers<F>(id, n, s, 1);
            kern::k_scale_powers<F><<<sgrid, 256, 0, compute_>>>(data, N, ncols, n, in_rev, pw);
            check_launch();
        }
        bool single;
        SegmentPlan seg = plan_for<F>(n, single);
        if (in_rev)
            tile_passes<F, false>(data, N, ncols, n, seg, 0, seg.count, tw);
        else
            tile_passes<F, true>(data, N, ncols, n, seg, 0, seg.count, tw);
        const bool out_rev = !in_rev;
        if (inverse) {
            const typename F::Tw *pw = dev_powers<F>(id, n, finv<F>(s), finv<F>((T)(N % F::P)));
            kern::k_scale_powers<F><<<sgrid, 256, 0, compute_>>>(data, N, ncols, n, out_rev, pw);
            check_launch();
        }
        if (out_rev != (a.output_order == GP_ORDER_BIT_REVERSED)) {
            T *tmp = static_cast<T *>(scratch(perm_, buf.bytes, "permutation scratch"));
            kern::k_bitrev_copy<T><<<sgrid, 256, 0, compute_>>>(data, tmp, ncols, n);
            check_launch();
            GP_CUDA(cudaMemcpyAsync(data, tmp, buf.bytes, cudaMemcpyDeviceToDevice, compute_));
        }
        GP_CUDA(cudaStreamSynchronize(compute_));
    }

    int device_;
    std::string name_;
    int sms_ = 1;
    ThreadPool pool_;
    HostTables tables_;
    cudaStream_t compute_{}, copy_{};
    cudaEvent_t ev_copied_[kSlots]{}, ev_done_[kSlots]{}, ev_pin_[kSlots]{};
    uint64_t pin_counter_ = 0;
    uint32_t threads_override_ = 0;
    uint32_t tile_log_override_ = 0;
    unsigned long long *flag_ = nullptr;
    std::map<TableKey, DeviceScratch> dev_tables_;
    DeviceScratch perm_, regions_, in_slot_[kSlots], merkle_views_;
    // Every cached scratch allocation, for accounting and release.
    std::array<DeviceScratch *, 3 + kSlots> scratches() const {
        static_assert(kSlots == 3, "list every input slot below");
        auto *self = const_cast<CudaBackend *>(this);
        return {&self->perm_, &self->regions_, &self->in_slot_[0], &self->in_slot_[1], &self->in_slot_[2],
                &self->merkle_views_};
    }
    Pinned pinned_[kSlots];
    uint64_t allocations_ = 0;
};

}  // namespace

std::unique_ptr<Backend> make_cuda_backend(int device, unsigned threads, std::string &why) {
    int count = 0;
    cudaError_t e = cudaGetDeviceCount(&count);
    if (e != cudaSuccess) {
        cudaGetLastError();
        why = std::string("no usable CUDA device (") + cudaGetErrorString(e) + ")";
        return nullptr;
    }
    if (count == 0) {
        why = "no CUDA device is visible";
        return nullptr;
    }
    if (device < 0 || device >= count) {
        why = "device ordinal " + std::to_string(device) + " does not exist (" + std::to_string(count) +
              " device(s) visible)";
        return nullptr;
    }
    try {
        return std::make_unique<CudaBackend>(device, threads);
    } catch (const Error &err) {
        why = err.what();
        return nullptr;
    }
}

}  // namespace gp
