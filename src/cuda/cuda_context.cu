// SPDX-License-Identifier: MIT OR Apache-2.0
// The CUDA backend's device context: construction on a device, buffers and
// cached device memory, pinned host->device staging, the canonical-form
// checks of uploaded data, layout transposes (upload, download) and row
// copies (kernels/layout.cuh).
#include <cuda_runtime.h>

#include <algorithm>
#include <cstdlib>
#include <cstring>
#include <memory>
#include <mutex>
#include <set>
#include <utility>
#include <string>

#include "core/core.h"
#include "core/trace.h"
#include "core/host_alloc.h"
#include "cuda/cuda_backend.h"
#include "cuda/turn_plan.h"
#include "kernels/layout.cuh"
#include "kernels/ntt.cuh"  // kern::kThreads bounds GP_CUDA_THREADS

namespace gp {
namespace cuda {

CudaBackend::CudaBackend(int device, unsigned threads) : device_(device), pool_(threads), tables_(pool_) {
    GP_CUDA(cudaSetDevice(device_));
    cudaDeviceProp prop;
    GP_CUDA(cudaGetDeviceProperties(&prop, device_));
    name_ = prop.name;
    sms_ = prop.multiProcessorCount;
    {
        int mem_khz = 0, bus_bits = 0, sm_khz = 0;
        GP_CUDA(cudaDeviceGetAttribute(&mem_khz, cudaDevAttrMemoryClockRate, device_));
        GP_CUDA(cudaDeviceGetAttribute(&bus_bits, cudaDevAttrGlobalMemoryBusWidth, device_));
        GP_CUDA(cudaDeviceGetAttribute(&sm_khz, cudaDevAttrClockRate, device_));
        dram_bytes_per_sm_cycle_ = dram_bytes_per_sm_cycle(mem_khz, bus_bits, sm_khz, sms_);
    }
    GP_CUDA(cudaStreamCreateWithFlags(&compute_, cudaStreamNonBlocking));
    GP_CUDA(cudaStreamCreateWithFlags(&copy_, cudaStreamNonBlocking));
    GP_CUDA(cudaStreamCreateWithFlags(&down_, cudaStreamNonBlocking));
    for (auto &e : ev_copied_) GP_CUDA(cudaEventCreateWithFlags(&e, cudaEventDisableTiming));
    for (auto &e : ev_done_) GP_CUDA(cudaEventCreateWithFlags(&e, cudaEventDisableTiming));
    for (auto &e : ev_pin_) GP_CUDA(cudaEventCreateWithFlags(&e, cudaEventDisableTiming));
    for (cudaEvent_t *e : {&ev_views_[0], &ev_views_[1], &ev_lde_[0], &ev_lde_[1], &ev_down_[0], &ev_down_[1]})
        GP_CUDA(cudaEventCreateWithFlags(e, cudaEventDisableTiming));
    GP_CUDA(cudaEventCreateWithFlags(&ev_user_, cudaEventDisableTiming));
    GP_CUDA(cudaEventCreate(&ev_call_start_));
    GP_CUDA(cudaEventCreate(&ev_call_stop_));
    GP_CUDA(cudaMalloc(&flag_, sizeof(unsigned long long)));
    ++allocations_;
    set_smem_limits();
    // Tuning knobs for experiments: threads per block (128..512, power
    // of two), the largest tile (log2 elements) and the tile order.
    if (const char *v = std::getenv("GP_CUDA_THREADS")) {
        uint32_t t = (uint32_t)std::strtoul(v, nullptr, 10);
        if (is_pow2(t) && t >= 64 && t <= (uint32_t)kern::kThreads) threads_override_ = t;
    }
    if (const char *v = std::getenv("GP_CUDA_TILE_LOG")) {
        uint32_t t = (uint32_t)std::strtoul(v, nullptr, 10);
        if (t >= 8) tile_log_override_ = t;
    }
    // Tile order of the strided passes (kern::tile_of_block): log2 of the
    // neighbouring tiles of one column taken together, 63 column by column.
    if (const char *v = std::getenv("GP_CUDA_TILE_GROUP"))
        tile_group_override_ = 1 + std::min<uint32_t>(63, (uint32_t)std::strtoul(v, nullptr, 10));
    // The spread pass's four-step form (0: off; kernels/ntt.cuh, FOUR).
    if (const char *v = std::getenv("GP_CUDA_FOUR_STEP")) four_step_ = std::strtoul(v, nullptr, 10) != 0;
    // The turned form (0: off, 1: wherever it applies, unset: turn_for;
    // kernels/ntt.cuh, k_turn_pass): the two-segment LDEs in both orders
    // and the 31-bit NTTs' four-step top segment.
    if (const char *v = std::getenv("GP_CUDA_TURN")) turn_mode_ = std::strtoul(v, nullptr, 10) != 0;
    // The turned form's lowest segment (log2 size; cuda_ntt.cu, lde_impl).
    if (const char *v = std::getenv("GP_CUDA_TURN_LOW")) turn_low_override_ = (uint32_t)std::strtoul(v, nullptr, 10);
}

CudaBackend::~CudaBackend() {
    cudaSetDevice(device_);
    cudaStreamSynchronize(compute_);
    cudaStreamSynchronize(copy_);
    cudaStreamSynchronize(down_);
    release_caches();
    cudaFree(flag_);
    for (auto &e : ev_copied_) cudaEventDestroy(e);
    for (auto &e : ev_done_) cudaEventDestroy(e);
    for (auto &e : ev_pin_) cudaEventDestroy(e);
    for (cudaEvent_t e : {ev_user_, ev_call_start_, ev_call_stop_, ev_views_[0], ev_views_[1], ev_lde_[0], ev_lde_[1],
                          ev_down_[0], ev_down_[1]})
        cudaEventDestroy(e);
    cudaStreamDestroy(compute_);
    cudaStreamDestroy(copy_);
    cudaStreamDestroy(down_);
}

gp_backend CudaBackend::kind() const { return GP_BACKEND_CUDA; }

void CudaBackend::begin_call() {
    GP_CUDA(cudaSetDevice(device_));
    if (user_stream_) {  // the caller's work queued so far comes first
        GP_CUDA(cudaEventRecord(ev_user_, user_stream_));
        GP_CUDA(cudaStreamWaitEvent(compute_, ev_user_, 0));
        GP_CUDA(cudaStreamWaitEvent(copy_, ev_user_, 0));
    }
    GP_CUDA(cudaEventRecord(ev_call_start_, compute_));
}

uint64_t CudaBackend::end_call() noexcept {
    // Every method has finished its device work before it returned; the
    // events time the span of the call's work on the compute stream.
    float ms = 0;
    bool ok = cudaSetDevice(device_) == cudaSuccess && cudaEventRecord(ev_call_stop_, compute_) == cudaSuccess;
    if (ok && user_stream_) ok = cudaStreamWaitEvent(user_stream_, ev_call_stop_, 0) == cudaSuccess;
    ok = ok && cudaEventSynchronize(ev_call_stop_) == cudaSuccess &&
         cudaEventElapsedTime(&ms, ev_call_start_, ev_call_stop_) == cudaSuccess;
    if (!ok) {
        cudaGetLastError();
        return 0;
    }
    return (uint64_t)((double)ms * 1e6);
}

// A stream handle cannot be validated without using it (the runtime reads
// through it): the header makes a valid stream of this GPU the caller's part.
void CudaBackend::set_stream(void *stream) { user_stream_ = static_cast<cudaStream_t>(stream); }

void CudaBackend::check_foreign(const void *data, uint64_t, const char *arg) {
    if (!data) fail(GP_ERR_NULL_POINTER, "argument `", arg, "` is NULL");
    cudaPointerAttributes attr;
    if (cudaPointerGetAttributes(&attr, data) != cudaSuccess) {
        cudaGetLastError();
        attr.type = cudaMemoryTypeUnregistered;
    }
    const bool ok = (attr.type == cudaMemoryTypeDevice && attr.device == device_) || attr.type == cudaMemoryTypeManaged;
    if (!ok)
        fail(GP_ERR_INVALID_ARGUMENT, arg, " = ", data, " is not device memory of device ", device_, " (", name_,
             "); the CUDA backend wraps cudaMalloc'd or managed memory of its GPU");
}

void CudaBackend::check_buffer_values(const Buffer &b, const char *arg) {
    GP_CUDA(cudaSetDevice(device_));
    check_device_canonical(*b.field, b.data, b.rows * b.base_cols(), 0, arg);
}

void CudaBackend::poll(const char *stage, uint64_t done, uint64_t total) {
    if (!monitor) return;
    try {
        monitor->poll(stage, done, total);
    } catch (...) {
        cudaStreamSynchronize(copy_);
        cudaStreamSynchronize(down_);
        cudaStreamSynchronize(compute_);
        throw;
    }
}

void CudaBackend::to_host(void *dst, const void *src, uint64_t bytes) {
    GP_CUDA(cudaMemcpy(dst, src, bytes, cudaMemcpyDeviceToHost));
    if (monitor) monitor->add_transfer(0, bytes);
}
std::string CudaBackend::device_name() const { return name_; }

void *CudaBackend::alloc_buffer(uint64_t bytes) {
    GP_CUDA(cudaSetDevice(device_));
    void *p = device_alloc(bytes, "buffer");
    cudaError_t e = cudaMemsetAsync(p, 0, bytes, compute_);
    if (e == cudaSuccess) e = cudaStreamSynchronize(compute_);
    if (e != cudaSuccess) {
        cudaFree(p);
        cuda_fail(e, "cudaMemsetAsync", __FILE__, __LINE__);
    }
    return p;
}

void CudaBackend::mem_info(uint64_t &free_bytes, uint64_t &total_bytes) {
    GP_CUDA(cudaSetDevice(device_));
    size_t f = 0, t = 0;
    GP_CUDA(cudaMemGetInfo(&f, &t));
    free_bytes = f;
    total_bytes = t;
}

void CudaBackend::bind_thread() { GP_CUDA(cudaSetDevice(device_)); }

bool CudaBackend::connect(Backend &peer) {
    const int other = peer.device_ordinal();
    if (other < 0) return false;
    if (other == device_) return true;
    GP_CUDA(cudaSetDevice(device_));
    int can = 0;
    GP_CUDA(cudaDeviceCanAccessPeer(&can, device_, other));
    if (!can) return false;  // copies are staged by the runtime instead
    // Peer access is a property of the process, never turned off here:
    // enable each pair once (asking again is an error the runtime logs).
    static std::mutex mu;
    static std::set<std::pair<int, int>> enabled;
    std::lock_guard<std::mutex> lock(mu);
    if (enabled.count({device_, other})) return true;
    cudaError_t e = cudaDeviceEnablePeerAccess(other, 0);
    if (e == cudaErrorPeerAccessAlreadyEnabled) cudaGetLastError();  // the caller enabled it
    else GP_CUDA(e);
    enabled.insert({device_, other});
    return true;
}

void CudaBackend::copy_peer(const void *src, uint64_t spitch, void *dst, uint64_t dpitch, uint64_t width,
                            uint64_t height) {
    // Unified addressing: the runtime knows where each pointer lives.
    GP_CUDA(cudaSetDevice(device_));
    if (!width || !height) return;
    const char *s = static_cast<const char *>(src);
    char *d = static_cast<char *>(dst);
    // One 2-D copy where the pitches allow it (the runtime bounds them),
    // one copy per run otherwise.
    if (height == 1 || (spitch < (1ull << 30) && dpitch < (1ull << 30))) {
        GP_CUDA(cudaMemcpy2DAsync(d, height == 1 ? width : dpitch, s, height == 1 ? width : spitch, width, height,
                                  cudaMemcpyDefault, compute_));
    } else {
        for (uint64_t k = 0; k < height; ++k)
            GP_CUDA(cudaMemcpyAsync(d + k * dpitch, s + k * spitch, width, cudaMemcpyDefault, compute_));
    }
    GP_CUDA(cudaStreamSynchronize(compute_));
}

void CudaBackend::free_buffer(void *p) {
    cudaSetDevice(device_);
    cudaStreamSynchronize(compute_);
    cudaFree(p);
}

void CudaBackend::upload(Buffer &dst, const void *host, gp_layout layout, const char *arg) {
    TraceRange trace("cuda: upload");
    GP_CUDA(cudaSetDevice(device_));
    const uint32_t es = dst.field->elem_size;
    const uint64_t count = dst.rows * dst.base_cols();
    bool direct = layout == GP_LAYOUT_COL_MAJOR && dst.ext == 1;
    void *target = direct ? dst.data : scratch(perm_, dst.bytes, "layout scratch");
    stage_to_device(host, target, dst.bytes);
    check_device_canonical(*dst.field, target, count, 0, arg);
    if (!direct) {
        // Host layout -> base columns: rows x (cols*ext) transpose (row-major),
        // or per extension column a rows x ext transpose (column-major).
        bool rm = layout == GP_LAYOUT_ROW_MAJOR;
        transpose(es, target, dst.data, rm ? 1 : dst.cols, dst.rows, rm ? dst.base_cols() : dst.ext);
    }
    GP_CUDA(cudaStreamSynchronize(compute_));
}

void CudaBackend::download(const Buffer &src, void *host, gp_layout layout) {
    TraceRange trace("cuda: download");
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
    to_host(host, from, src.bytes);
}

void CudaBackend::download_begin(const Buffer &src, void *host, int slot) {
    TraceRange trace("cuda: download (queued)");
    GP_CUDA(cudaSetDevice(device_));
    if (src.ext > 1) {  // interleaving coordinates needs scratch: at once
        download(src, host, GP_LAYOUT_COL_MAJOR);
        return;
    }
    // The copy waits for the work queued so far (the batch's LDE), not
    // for what the caller queues next (its absorption).
    // Downloads have a stream of their own: the link is full duplex, so
    // they cross while the next batch uploads on copy_.
    GP_CUDA(cudaEventRecord(ev_lde_[slot], compute_));
    if (is_pinned(host)) {
        GP_CUDA(cudaStreamWaitEvent(down_, ev_lde_[slot], 0));
        GP_CUDA(cudaMemcpyAsync(host, src.data, src.bytes, cudaMemcpyDeviceToHost, down_));
        if (monitor) monitor->add_transfer(0, src.bytes);
        GP_CUDA(cudaEventRecord(ev_down_[slot], down_));
    } else {
        pending_down_[slot].push_back({static_cast<const char *>(src.data), static_cast<char *>(host), src.bytes});
    }
}

void CudaBackend::download_end(int slot, bool run) {
    GP_CUDA(cudaSetDevice(device_));
    std::vector<PendingDownload> todo;
    todo.swap(pending_down_[slot]);
    if (!run) {
        GP_CUDA(cudaStreamSynchronize(down_));
        return;
    }
    // Pageable memory: staged through the pinned buffers, a chunk copied
    // out on the host while the next one crosses; the device meanwhile
    // runs what was queued after the LDE.
    if (!todo.empty()) GP_CUDA(cudaStreamWaitEvent(down_, ev_lde_[slot], 0));
    struct Chunk {
        int pin;
        char *to;
        uint64_t len;
    };
    std::vector<Chunk> chunks;
    auto drain = [&](const Chunk &c) {
        GP_CUDA(cudaEventSynchronize(ev_pin_[c.pin]));
        const char *from = static_cast<const char *>(pinned_[c.pin].ptr);
        pool_.parallel_ranges((c.len + 4095) / 4096, [&](uint64_t b, uint64_t e) {
            const uint64_t lo = b * 4096, hi = std::min(c.len, e * 4096);
            std::memcpy(c.to + lo, from + lo, hi - lo);
        });
    };
    for (const PendingDownload &d : todo)
        for (uint64_t off = 0; off < d.bytes; off += kStageBytes) {
            const uint64_t len = std::min(kStageBytes, d.bytes - off);
            const int pin = (int)(pin_counter_++ % kSlots);
            // Every staging buffer in flight belongs to a chunk not yet drained.
            if (chunks.size() >= (size_t)kSlots - 1) {
                drain(chunks.front());
                chunks.erase(chunks.begin());
            }
            GP_CUDA(cudaEventSynchronize(ev_pin_[pin]));
            void *buf = pinned(pin, kStageBytes);
            GP_CUDA(cudaMemcpyAsync(buf, d.dev + off, len, cudaMemcpyDeviceToHost, down_));
            GP_CUDA(cudaEventRecord(ev_pin_[pin], down_));
            if (monitor) monitor->add_transfer(0, len);
            chunks.push_back({pin, d.host + off, len});
        }
    for (const Chunk &c : chunks) drain(c);
    if (!todo.empty()) GP_CUDA(cudaEventRecord(ev_down_[slot], down_));
    // Later device work (a rewrite of the slot) waits for the copies.
    GP_CUDA(cudaStreamWaitEvent(compute_, ev_down_[slot], 0));
}

void CudaBackend::copy_rows(const Buffer &src, uint64_t src_col, uint64_t start, uint64_t stride, uint64_t count,
                            Buffer &dst, uint64_t dst_col) {
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

void CudaBackend::gather_rows(const Buffer &src, uint64_t mult, Buffer &dst) {
    GP_CUDA(cudaSetDevice(device_));
    const uint64_t cols = src.cols * src.ext;
    const dim3 grid(grid_for((src.rows + 255) / 256, (uint32_t)sms_ * 16), (uint32_t)std::min<uint64_t>(cols, 65535));
    if (src.field->elem_size == 8)
        kern::k_gather_rows<uint64_t><<<grid, 256, 0, compute_>>>(static_cast<const uint64_t *>(src.data), mult,
                                                                   src.rows, cols, static_cast<uint64_t *>(dst.data));
    else
        kern::k_gather_rows<uint32_t><<<grid, 256, 0, compute_>>>(static_cast<const uint32_t *>(src.data), mult,
                                                                   src.rows, cols, static_cast<uint32_t *>(dst.data));
    check_launch();
    GP_CUDA(cudaStreamSynchronize(compute_));
}

void CudaBackend::read_tree(const MerkleTree &t, uint64_t offset, void *out, uint64_t bytes) {
    GP_CUDA(cudaSetDevice(device_));
    GP_CUDA(cudaStreamSynchronize(compute_));
    to_host(out, static_cast<const char *>(t.nodes) + offset, bytes);
}

void CudaBackend::pin_host(void *p, uint64_t bytes) {
    GP_CUDA(cudaSetDevice(device_));
    if (cudaHostRegister(p, bytes, cudaHostRegisterDefault) != cudaSuccess) cudaGetLastError();  // staged instead
}

void *CudaBackend::transfer_alloc(uint64_t bytes) {
    GP_CUDA(cudaSetDevice(device_));
    void *p = nullptr;
    // Portable: page-locked for every device of a several-device context.
    if (cudaHostAlloc(&p, bytes, cudaHostAllocPortable) != cudaSuccess) {
        cudaGetLastError();
        fail(GP_ERR_HOST_OUT_OF_MEMORY, "cannot allocate ", bytes, " bytes of page-locked host memory");
    }
    return p;
}

void CudaBackend::transfer_free(void *p) {
    if (p && cudaFreeHost(p) != cudaSuccess) cudaGetLastError();
}

void CudaBackend::unpin_host(void *p) {
    GP_CUDA(cudaSetDevice(device_));
    if (cudaHostUnregister(p) != cudaSuccess) cudaGetLastError();
}

void CudaBackend::trim() {
    GP_CUDA(cudaSetDevice(device_));
    GP_CUDA(cudaStreamSynchronize(compute_));
    GP_CUDA(cudaStreamSynchronize(copy_));
    GP_CUDA(cudaStreamSynchronize(down_));
    release_caches();
}

uint64_t CudaBackend::cache_bytes() const {
    uint64_t b = 0;
    for (auto &kv : dev_tables_) b += kv.second.bytes;
    for (const DeviceScratch *s : scratches()) b += s->bytes;
    for (auto &s : pinned_) b += s.bytes;
    return b;
}

uint64_t CudaBackend::allocations() const { return allocations_; }

// ---- memory ----
void *CudaBackend::device_alloc(uint64_t bytes, const char *what) {
    size_t free_b = 0, total_b = 0;
    GP_CUDA(cudaMemGetInfo(&free_b, &total_b));
    if (bytes > free_b)
        fail(GP_ERR_DEVICE_OUT_OF_MEMORY, what, " needs ", bytes, " bytes of device memory; ",
             free_b, " of ", total_b, " are free on ", name_);
    if (alloc_fault(AllocKind::Device))
        fail(GP_ERR_DEVICE_OUT_OF_MEMORY, what, ": cudaMalloc of ", bytes, " bytes failed (injected fault)");
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

void *CudaBackend::scratch(DeviceScratch &s, uint64_t bytes, const char *what) {
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

void *CudaBackend::pinned(int i, uint64_t bytes) { return pinned_block(pinned_[i], bytes); }

void *CudaBackend::pinned_block(Pinned &p, uint64_t bytes) {
    if (p.bytes >= bytes) return p.ptr;
    if (p.ptr) cudaFreeHost(p.ptr);
    p.ptr = nullptr;
    p.bytes = 0;
    cudaError_t e = alloc_fault(AllocKind::Host) ? cudaErrorMemoryAllocation
                                                 : cudaHostAlloc(&p.ptr, bytes, cudaHostAllocDefault);
    if (e != cudaSuccess) {
        cudaGetLastError();
        fail(GP_ERR_HOST_OUT_OF_MEMORY, "cannot allocate ", bytes, " bytes of pinned staging");
    }
    p.bytes = bytes;
    ++allocations_;
    return p.ptr;
}

void CudaBackend::release_caches() {
    for (auto &kv : dev_tables_) cudaFree(kv.second.ptr);
    dev_tables_.clear();
    dev_lru_.clear();
    for (DeviceScratch *s : scratches()) {
        cudaFree(s->ptr);
        *s = DeviceScratch{};
    }
    for (Pinned *p : {&pinned_[0], &pinned_[1], &pinned_[2], &views_pin_[0], &views_pin_[1]}) {
        static_assert(kSlots == 3, "list every staging buffer above");
        if (p->ptr) cudaFreeHost(p->ptr);
        *p = Pinned{};
    }
    tables_.clear();
}

// ---- host -> device staging ----
bool CudaBackend::is_pinned(const void *p) {
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
void CudaBackend::stage_chunk(const void *host, void *dst, uint64_t bytes, bool direct) {
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
    if (monitor) monitor->add_transfer(bytes, 0);
    GP_CUDA(cudaEventRecord(ev_pin_[slot], copy_));
}

void CudaBackend::stage_to_device(const void *host, void *dst, uint64_t bytes) {
    bool direct = is_pinned(host);
    for (uint64_t off = 0; off < bytes; off += kStageBytes) {
        uint64_t len = std::min(kStageBytes, bytes - off);
        stage_chunk(static_cast<const char *>(host) + off, static_cast<char *>(dst) + off, len, direct);
    }
    GP_CUDA(cudaStreamSynchronize(copy_));
}

void CudaBackend::check_device_canonical(const FieldDesc &f, const void *data, uint64_t count, uint64_t offset,
                                         const char *arg) {
    unsigned long long none = ~0ull;
    GP_CUDA(cudaMemcpyAsync(flag_, &none, sizeof(none), cudaMemcpyHostToDevice, compute_));
    queue_canonical_check(f, data, count, offset);
    finish_canonical_check(arg);
}

void CudaBackend::queue_canonical_check(const FieldDesc &f, const void *data, uint64_t count, uint64_t offset) {
    uint32_t grid = grid_for((count + 255) / 256, (uint32_t)sms_ * 8);
    if (f.elem_size == 8)
        kern::k_check_canonical<uint64_t><<<grid, 256, 0, compute_>>>(
            static_cast<const uint64_t *>(data), count, f.modulus, offset, flag_);
    else
        kern::k_check_canonical<uint32_t><<<grid, 256, 0, compute_>>>(
            static_cast<const uint32_t *>(data), count, f.modulus, offset, flag_);
    check_launch();
}

void CudaBackend::finish_canonical_check(const char *arg) {
    unsigned long long bad = 0;
    GP_CUDA(cudaMemcpyAsync(&bad, flag_, sizeof(bad), cudaMemcpyDeviceToHost, compute_));
    GP_CUDA(cudaStreamSynchronize(compute_));
    if (bad != ~0ull)
        fail(GP_ERR_NON_CANONICAL, arg, "[", bad, "] is not a canonical field element");
}

void CudaBackend::transpose(uint32_t es, const void *in, void *out, uint64_t batch, uint64_t R, uint64_t C) {
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

}  // namespace cuda

int cuda_device_count() {
    int count = 0;
    if (cudaGetDeviceCount(&count) != cudaSuccess) {
        cudaGetLastError();
        return 0;
    }
    return count;
}

namespace {

std::string cuda_version(int v) { return std::to_string(v / 1000) + "." + std::to_string(v % 1000 / 10); }

std::string no_visible_device() {
    const char *env = std::getenv("CUDA_VISIBLE_DEVICES");
    return env ? std::string("no CUDA device is visible (CUDA_VISIBLE_DEVICES=\"") + env + "\")"
               : std::string("no CUDA device is visible");
}

// Why cudaGetDeviceCount failed, in the words an operator acts on: the
// runtime is linked statically, so "insufficient driver" also means "no
// driver at all".
std::string cuda_unavailable_reason(cudaError_t e) {
    int driver = 0, runtime = 0;
    cudaDriverGetVersion(&driver);
    cudaRuntimeGetVersion(&runtime);
    cudaGetLastError();
    const std::string detail = std::string(" (") + cudaGetErrorName(e) + ": " + cudaGetErrorString(e) + ")";
    if (e == cudaErrorNoDevice) return no_visible_device() + detail;
    if (driver == 0)
        return "no NVIDIA driver is loaded (no GPU on this machine, or its driver is not installed)" + detail;
    if (e == cudaErrorInsufficientDriver || driver < runtime)
        return "the NVIDIA driver supports CUDA " + cuda_version(driver) + ", older than the CUDA " +
               cuda_version(runtime) + " runtime this library was built with: update the driver" + detail;
    return "no usable CUDA device" + detail;
}

}  // namespace

std::unique_ptr<Backend> make_cuda_backend(int device, unsigned threads, std::string &why) {
    int count = 0;
    cudaError_t e = cudaGetDeviceCount(&count);
    if (e != cudaSuccess) {
        cudaGetLastError();
        why = cuda_unavailable_reason(e);
        return nullptr;
    }
    if (count == 0) {
        why = no_visible_device();
        return nullptr;
    }
    if (device < 0 || device >= count) {
        why = "device ordinal " + std::to_string(device) + " does not exist (" + std::to_string(count) +
              " device(s) visible)";
        return nullptr;
    }
    try {
        return std::make_unique<cuda::CudaBackend>(device, threads);
    } catch (const Error &err) {
        why = err.what();
        return nullptr;
    }
}

}  // namespace gp
