// SPDX-License-Identifier: MIT OR Apache-2.0
// The CUDA backend's host side, shared by its translation units: the
// CudaBackend class, error and launch helpers, and the cached device scratch.
// Its members are defined one capability a file: cuda_context.cu (device,
// memory, staging, layout), cuda_ntt.cu (LDE and NTT), cuda_merkle.cu
// (permutations and Merkle trees), cuda_fri.cu (FRI) and cuda_deep.cu (OOD
// and DEEP).
#pragma once

#include <cuda_runtime.h>

#include <algorithm>
#include <array>
#include <cstdint>
#include <map>
#include <string>
#include <vector>

#include "core/core.h"
#include "core/tables.h"
#include "core/thread_pool.h"
#include "math/field.h"
#include "math/ntt.h"

namespace gp {

template <class T>
struct MatView;  // hash/tree_hash.h

namespace cuda {

#define GP_CUDA(call)                                                                    \
    do {                                                                                 \
        cudaError_t e_ = (call);                                                         \
        if (e_ != cudaSuccess) cuda_fail(e_, #call, __FILE__, __LINE__);                 \
    } while (0)

[[noreturn]] inline void cuda_fail(cudaError_t e, const char *what, const char *file, int line) {
    cudaGetLastError();  // clear sticky-free errors so the context stays usable
    if (e == cudaErrorMemoryAllocation)
        fail(GP_ERR_DEVICE_OUT_OF_MEMORY, "device allocation failed (", what, ")");
    fail(GP_ERR_CUDA, cudaGetErrorName(e), ": ", cudaGetErrorString(e), " at ", file, ":", line,
         " (", what, ")");
}

inline void check_launch() { GP_CUDA(cudaGetLastError()); }

// `bytes` rounded up to a multiple of 8 (one scratch block cut in parts).
constexpr uint64_t up8(uint64_t bytes) { return (bytes + 7) & ~7ull; }

inline uint32_t grid_for(uint64_t blocks, uint32_t cap = 1u << 30) {
    return (uint32_t)std::max<uint64_t>(1, std::min<uint64_t>(blocks, cap));
}

// A grow-only device allocation reused across calls.
struct DeviceScratch {
    void *ptr = nullptr;
    uint64_t bytes = 0;
};

class CudaBackend final : public Backend {
public:
    CudaBackend(int device, unsigned threads);
    ~CudaBackend() override;

    gp_backend kind() const override;
    std::string device_name() const override;

    void *alloc_buffer(uint64_t bytes) override;
    void free_buffer(void *p) override;

    void upload(Buffer &dst, const void *host, gp_layout layout, const char *arg) override;
    void download(const Buffer &src, void *host, gp_layout layout) override;

    void lde(const LdeArgs &a) override;
    bool lde_adds() const override { return true; }
    bool lde_takes_coefficients() const override { return true; }
    void ntt(Buffer &buf, const NttArgs &a) override;

    void permute(int perm, void *states, uint64_t count) override;

    template <class T>
    const MatView<T> *device_views(const std::vector<const Buffer *> &mats);

    void merkle_commit(const MerkleArgs &a, MerkleTree &t) override;
    bool streams() const override { return true; }
    void absorb_rows(const AbsorbArgs &a) override;
    void download_begin(const Buffer &src, void *host, int slot) override;
    void download_end(int slot, bool run) override;
    void merkle_open(const MerkleTree &t, const uint64_t *indices, uint64_t count, void *rows,
                     void *paths) override;
    void fri_fold(const FriFoldArgs &a) override;
    void fri_to_matrix(uint32_t elem_size, uint32_t ext, uint32_t log_n, uint32_t log_a, bool bitrev,
                       const void *in, void *out) override;
    void gather_rows(const Buffer &src, uint64_t mult, Buffer &dst) override;
    void copy_rows(const Buffer &src, uint64_t src_col, uint64_t start, uint64_t stride, uint64_t count, Buffer &dst,
                   uint64_t dst_col) override;
    void ood_sums(const OodArgs &a, uint64_t *out) override;
    void deep(const DeepArgs &a) override;
    void quotient(const QuotientArgs &a) override;
    void read_tree(const MerkleTree &t, uint64_t offset, void *out, uint64_t bytes) override;

    void begin_call() override;
    uint64_t end_call() noexcept override;
    void set_stream(void *stream) override;
    void check_foreign(const void *data, uint64_t bytes, const char *arg) override;
    void check_buffer_values(const Buffer &b, const char *arg) override;
    int device_ordinal() const override { return device_; }

    void mem_info(uint64_t &free_bytes, uint64_t &total_bytes) override;
    void bind_thread() override;
    bool connect(Backend &peer) override;
    void copy_peer(const void *src, uint64_t spitch, void *dst, uint64_t dpitch, uint64_t width,
                   uint64_t height) override;
    void add_into(const FieldDesc &f, void *dst, const void *src, uint64_t count) override;

    void trim() override;
    void pin_host(void *p, uint64_t bytes) override;
    void *transfer_alloc(uint64_t bytes) override;
    void transfer_free(void *p) override;
    void unpin_host(void *p) override;
    uint64_t cache_bytes() const override;
    uint64_t allocations() const override;
    uint64_t evictions() const override { return dev_lru_.evictions(); }

private:
    static constexpr int kSlots = 3;
    static constexpr uint64_t kStageBytes = 64ull << 20;

    template <class F>
    static void set_smem_limit_for();
    void set_smem_limits();

    // ---- memory ----
    void *device_alloc(uint64_t bytes, const char *what);
    void *scratch(DeviceScratch &s, uint64_t bytes, const char *what);
    struct Pinned {
        void *ptr = nullptr;
        uint64_t bytes = 0;
    };
    void *pinned(int i, uint64_t bytes);
    void *pinned_block(Pinned &p, uint64_t bytes);
    void release_caches();

    template <class F>
    const typename F::Tw *device_table(const TableKey &key, const typename F::Tw *host, uint64_t count);
    template <class F>
    const typename F::Tw *dev_twiddles(FieldId id, uint32_t log, bool inverse);
    template <class F>
    const typename F::Tw *dev_powers(FieldId id, uint32_t log, typename F::T base, typename F::T c);
    template <class F>
    const typename F::Tw *dev_powers_rev(FieldId id, uint32_t log, typename F::T base, typename F::T c);
    // The forward roots in group order (build_group_twiddles), one table
    // grown to the largest size, as dev_twiddles.
    template <class F>
    const typename F::Tw *dev_group_twiddles(FieldId id, uint32_t log);
    // The four-step factors of a top segment (build_segment_factors).
    template <class F>
    const typename F::Tw *dev_segment_factors(FieldId id, uint32_t log, uint32_t t, bool inverse);
    // A device table kept at the largest size asked for (2^log entries or
    // more; key.log is 0): a smaller one is replaced, copied from host().
    template <class F, class Host>
    const typename F::Tw *dev_grown_table(const TableKey &key, uint32_t log, Host &&host);
    // A device table under the least-recently-used budget (dev_lru_),
    // copied from host() when missing.
    template <class F, class Host>
    const typename F::Tw *dev_lru_table(const TableKey &key, Host &&host);

    // ---- host -> device staging ----
    bool is_pinned(const void *p);
    void stage_chunk(const void *host, void *dst, uint64_t bytes, bool direct);
    void stage_to_device(const void *host, void *dst, uint64_t bytes);

    void check_device_canonical(const FieldDesc &f, const void *data, uint64_t count, uint64_t offset,
                                const char *arg);
    void queue_canonical_check(const FieldDesc &f, const void *data, uint64_t count, uint64_t offset);
    void finish_canonical_check(const char *arg);

    void transpose(uint32_t es, const void *in, void *out, uint64_t batch, uint64_t R, uint64_t C);

    // ---- transforms ----
    template <class F>
    struct LdePlan {
        uint32_t log_n, log_b;
        SegmentPlan seg;
        bool single, natural;
        const typename F::Tw *tw_inv, *tw_fwd, *scale;
        // The spread pass's four-step factors (null: the twiddled form).
        const typename F::Tw *seg_inv = nullptr, *seg_fwd = nullptr;
        // The forward group table where the forward transform runs in the
        // group form (kern::TileCfg<F>::kGroupTw; null: the DIF form).
        const typename F::Tw *zeta = nullptr;
        // Natural order in the turned form (kern::TileCfg<F>::kTurn): scale
        // is then in bit-reversed order, step the coset step in that order,
        // and seg_inv / seg_fwd the two top segments' factors.
        // Its segments: bits [0, turn_lo) and [turn_lo, log_n); the last
        // pass's tiles hold 2^turn_lb cosets (kern::k_turn_pass).
        bool turn = false;
        uint32_t turn_lo = 0, turn_lb = 0;
        const typename F::Tw *step = nullptr;
        // The randomizer addend (LdeArgs::rand_add, rand_m) of base column
        // 0, on the device.
        const typename F::T *radd = nullptr;
        uint64_t rm = 0;
    };

    template <class F>
    static size_t smem_bytes(uint32_t t, uint32_t logC);
    template <class F>
    static uint32_t strided_logC(uint32_t lo);
    uint32_t grid_blocks(uint64_t blocks);

    template <class F, bool DIF>
    void tile_passes(typename F::T *data, uint64_t col_stride, uint64_t ncols, uint32_t n,
                     const SegmentPlan &seg, uint32_t first, uint32_t last, const typename F::Tw *tw,
                     bool inverse);
    template <class F>
    SegmentPlan plan_for(uint32_t n, bool &single);
    template <class F>
    uint32_t threads_for(uint32_t tile_log) const;
    uint32_t tile_group(bool spread) const;
    template <class F>
    void lde_columns(const LdePlan<F> &p, const typename F::T *in, uint64_t in_stride,
                     uint64_t rows_in, typename F::T *out, uint64_t col0, uint64_t ncols);
    // Whether an LDE of 2^log_n rows to 2^log_b cosets in this order takes
    // the turned form where its plan allows it (turn_mode_).
    bool turn_for(uint32_t elem_bytes, uint32_t log_n, uint32_t log_b, bool natural) const;
    template <class F>
    void lde_impl(const LdeArgs &a);
    template <class F>
    void ntt_impl(Buffer &buf, const NttArgs &a);
    template <class F>
    void ntt_columns(FieldId id, typename F::T *data, uint64_t ncols, uint32_t n, bool inverse, bool in_rev,
                     const typename F::Tw *tw);
    template <class F>
    void bitrev_columns(typename F::T *data, uint64_t ncols, uint32_t n);
    template <class F>
    void encode_impl(const LdeArgs &a);
    // Device to host copies of results, counted as transfers.
    void to_host(void *dst, const void *src, uint64_t bytes);
    // A batch or layer boundary: progress, and on cancellation the queued
    // work is drained before the call unwinds (it may read the caller's
    // memory).
    void poll(const char *stage, uint64_t done, uint64_t total);

    int device_;
    std::string name_;
    int sms_ = 1;
    ThreadPool pool_;
    HostTables tables_;
    // compute_: kernels; copy_: uploads; down_: streamed downloads.
    cudaStream_t compute_{}, copy_{}, down_{};
    cudaEvent_t ev_copied_[kSlots]{}, ev_done_[kSlots]{}, ev_pin_[kSlots]{};
    // The caller's stream (gp_context_set_stream) and the events that order
    // and time each call's work.
    cudaStream_t user_stream_ = nullptr;
    cudaEvent_t ev_user_{}, ev_call_start_{}, ev_call_stop_{};
    uint64_t pin_counter_ = 0;
    uint32_t threads_override_ = 0;
    uint32_t tile_log_override_ = 0;
    uint32_t tile_group_override_ = 0;  // GP_CUDA_TILE_GROUP + 1, 0 when unset
    bool four_step_ = true;             // GP_CUDA_FOUR_STEP=0 clears it
    // GP_CUDA_TURN: 0 never the turned form, 1 wherever it applies; unset
    // (-1): where it measured faster on this kind of device (turn_for).
    int turn_mode_ = -1;
    // Peak DRAM bytes per SM clock cycle (device attributes;
    // turn_plan.h): the bandwidth the other form's extra passes draw on.
    double dram_bytes_per_sm_cycle_ = 0;
    uint32_t turn_low_override_ = 0;    // GP_CUDA_TURN_LOW, 0 when unset
    unsigned long long *flag_ = nullptr;
    std::map<TableKey, DeviceScratch> dev_tables_;
    PowersLru dev_lru_;
    DeviceScratch perm_, regions_, in_slot_[kSlots], merkle_views_;
    DeviceScratch radd_;  // the randomizer addend of an LDE (LdeArgs::rand_add)
    // Every cached scratch allocation, for accounting and release.
    std::array<DeviceScratch *, 6 + kSlots> scratches() const {
        static_assert(kSlots == 3, "list every input slot below");
        auto *self = const_cast<CudaBackend *>(this);
        return {&self->perm_,         &self->regions_,      &self->in_slot_[0],   &self->in_slot_[1],
                &self->in_slot_[2],   &self->merkle_views_, &self->views_dev_[0], &self->views_dev_[1],
                &self->radd_};
    }
    Pinned pinned_[kSlots];
    // Queued absorptions (absorb_rows): their matrix descriptors, in two
    // halves used in turn, each rewritten once its last kernel finished.
    Pinned views_pin_[2];
    DeviceScratch views_dev_[2];
    cudaEvent_t ev_views_[2]{};
    uint64_t views_turn_ = 0;
    // Streamed downloads (download_begin/end) per batch slot: the LDE they
    // wait for, their completion, and the pageable ones still to copy.
    struct PendingDownload {
        const char *dev;
        char *host;
        uint64_t bytes;
    };
    cudaEvent_t ev_lde_[2]{}, ev_down_[2]{};
    std::vector<PendingDownload> pending_down_[2];
    uint64_t allocations_ = 0;
};

}  // namespace cuda
}  // namespace gp
