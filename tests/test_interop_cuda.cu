// SPDX-License-Identifier: MIT OR Apache-2.0
// Interop on the CUDA backend: buffers over device memory the test owns,
// work ordered after the caller's stream, DLPack on the device, transfer
// counters and device time, cancellation of device work. Skips without a
// usable GPU.
#include <gtest/gtest.h>

#include <cuda_runtime.h>
#include <dlpack/dlpack.h>

#include <cstdint>
#include <cstring>
#include <vector>

#include "test_util.h"

using namespace gpt;

namespace {

#define CUDA_OK(call) ASSERT_EQ((call), cudaSuccess) << #call

const FieldRef &GL() { return field_ref(GP_FIELD_GOLDILOCKS); }

HostMat columns(uint64_t rows, uint64_t cols, const std::vector<uint64_t> &v) {
    HostMat m(rows, cols, 1);
    m.v = v;
    return m;
}

std::vector<uint64_t> random_words(uint64_t n, uint64_t seed) {
    Rng rng(seed);
    std::vector<uint64_t> v(n);
    for (auto &x : v) x = rng.elem(GL().p);
    return v;
}

class InteropCuda : public ::testing::Test {
   protected:
    void SetUp() override {
        if (!cuda_available()) GTEST_SKIP() << "no usable CUDA device";
        ASSERT_GP_OK(make_context(GP_BACKEND_CUDA, &ctx_));
    }
    gp_context *ctx() { return ctx_.get(); }
    // A device LDE of the buffer, read back.
    std::vector<uint64_t> lde(gp_buffer *in, uint32_t blowup) {
        BufPtr out;
        EXPECT_GP_OK(create_buffer(ctx(), GL(), 1, gp_buffer_rows(in) * blowup, gp_buffer_cols(in), &out));
        gp_lde_options o;
        gp_lde_options_init(&o);
        o.blowup = blowup;
        EXPECT_GP_OK(gp_lde_batch(ctx(), in, &o, out.get()));
        std::vector<uint64_t> v(gp_buffer_rows(out.get()) * gp_buffer_cols(out.get()));
        EXPECT_GP_OK(gp_buffer_to_host(out.get(), GP_LAYOUT_COL_MAJOR, v.data(), v.size() * 8));
        return v;
    }
    CtxPtr ctx_;
};

TEST_F(InteropCuda, WrappedDeviceMemoryIsUsedInPlace) {
    const uint64_t rows = 1 << 12, cols = 5;
    const std::vector<uint64_t> host = random_words(rows * cols, 1);
    uint64_t *dev = nullptr;
    CUDA_OK(cudaMalloc(&dev, host.size() * 8));
    CUDA_OK(cudaMemcpy(dev, host.data(), host.size() * 8, cudaMemcpyHostToDevice));
    gp_buffer *w = nullptr;
    ASSERT_GP_OK(gp_buffer_wrap(ctx(), GP_FIELD_GOLDILOCKS, 1, rows, cols, dev, &w));
    BufPtr wrapped(w);
    void *p = nullptr;
    ASSERT_GP_OK(gp_buffer_data(w, &p));
    EXPECT_EQ(p, dev);
    BufPtr up;
    ASSERT_GP_OK(upload(ctx(), GL(), columns(rows, cols, host), GP_LAYOUT_COL_MAJOR, &up));
    EXPECT_EQ(lde(w, 4), lde(up.get(), 4));
    // The NTT writes into the test's memory.
    gp_ntt_options o;
    gp_ntt_options_init(&o);
    ASSERT_GP_OK(gp_ntt_batch(ctx(), w, &o));
    ASSERT_GP_OK(gp_ntt_batch(ctx(), up.get(), &o));
    std::vector<uint64_t> a(host.size()), b(host.size());
    CUDA_OK(cudaMemcpy(a.data(), dev, a.size() * 8, cudaMemcpyDeviceToHost));
    ASSERT_GP_OK(gp_buffer_to_host(up.get(), GP_LAYOUT_COL_MAJOR, b.data(), b.size() * 8));
    EXPECT_EQ(a, b);
    wrapped.reset();  // the memory stays the test's
    CUDA_OK(cudaMemset(dev, 0, 8));
    CUDA_OK(cudaFree(dev));
}

// Wrapped memory need only be aligned to its element. The transforms move
// 16 bytes per access where a column allows it and one element at a time
// where it does not: an LDE from and into, and an NTT in place on, columns
// that start one element past a 16-byte boundary give what library buffers
// give.
TEST_F(InteropCuda, ElementAlignedWrappedMemory) {
    for (gp_field f : {GP_FIELD_GOLDILOCKS, GP_FIELD_BABYBEAR}) {
        SCOPED_TRACE(field_ref(f).name);
        const FieldRef &F = field_ref(f);
        const uint64_t rows = 1 << 15, cols = 3, blowup = 2, es = F.elem_size;
        Rng rng(7);
        const HostMat in = random_mat(F, rows, cols, 1, rng);
        BufPtr up;
        ASSERT_GP_OK(upload(ctx(), F, in, GP_LAYOUT_COL_MAJOR, &up));
        // Output columns of rows * blowup elements, then a copy of the input,
        // each at an odd element offset.
        unsigned char *dev = nullptr;
        const uint64_t out_bytes = rows * blowup * cols * es, in_bytes = rows * cols * es;
        CUDA_OK(cudaMalloc(&dev, out_bytes + in_bytes + 32));
        CUDA_OK(cudaMemset(dev, 0, out_bytes + 32));
        unsigned char *in_dev = dev + out_bytes + 16 + es;
        CUDA_OK(cudaMemcpy(in_dev, ApiData(in.v, (uint32_t)es).data(), in_bytes, cudaMemcpyHostToDevice));
        gp_buffer *w = nullptr, *wi = nullptr;
        ASSERT_GP_OK(gp_buffer_wrap(ctx(), f, 1, rows * blowup, cols, dev + es, &w));
        BufPtr wrapped(w);
        ASSERT_GP_OK(gp_buffer_wrap(ctx(), f, 1, rows, cols, in_dev, &wi));
        BufPtr wrapped_in(wi);
        BufPtr ref;
        ASSERT_GP_OK(create_buffer(ctx(), F, 1, rows * blowup, cols, &ref));
        for (gp_order order : {GP_ORDER_BIT_REVERSED, GP_ORDER_NATURAL}) {
            gp_lde_options o;
            gp_lde_options_init(&o);
            o.blowup = blowup;
            o.output_order = order;
            ASSERT_GP_OK(gp_lde_batch(ctx(), wi, &o, w));
            ASSERT_GP_OK(gp_lde_batch(ctx(), up.get(), &o, ref.get()));
            HostMat a, b;
            ASSERT_GP_OK(download(w, F, GP_LAYOUT_COL_MAJOR, &a));
            ASSERT_GP_OK(download(ref.get(), F, GP_LAYOUT_COL_MAJOR, &b));
            EXPECT_EQ(a.v, b.v) << "LDE, order " << (int)order;
        }
        // Both directions of the NTT in place, from the LDE just written.
        for (gp_ntt_direction dir : {GP_NTT_FORWARD, GP_NTT_INVERSE}) {
            gp_ntt_options o;
            gp_ntt_options_init(&o);
            o.direction = dir;
            ASSERT_GP_OK(gp_ntt_batch(ctx(), w, &o));
            ASSERT_GP_OK(gp_ntt_batch(ctx(), ref.get(), &o));
            HostMat a, b;
            ASSERT_GP_OK(download(w, F, GP_LAYOUT_COL_MAJOR, &a));
            ASSERT_GP_OK(download(ref.get(), F, GP_LAYOUT_COL_MAJOR, &b));
            EXPECT_EQ(a.v, b.v) << "NTT, direction " << (int)dir;
        }
        wrapped.reset();
        wrapped_in.reset();
        CUDA_OK(cudaFree(dev));
    }
}

TEST_F(InteropCuda, WrapRefusesHostMemoryAndNonCanonicalValues) {
    std::vector<uint64_t> host(64, 3);
    gp_buffer *w = nullptr;
    EXPECT_EQ(gp_buffer_wrap(ctx(), GP_FIELD_GOLDILOCKS, 1, 64, 1, host.data(), &w), GP_ERR_INVALID_ARGUMENT);
    EXPECT_NE(std::string(gp_last_error()).find("not device memory"), std::string::npos) << gp_last_error();
    host[17] = ~0ull;
    uint64_t *dev = nullptr;
    CUDA_OK(cudaMalloc(&dev, 64 * 8));
    CUDA_OK(cudaMemcpy(dev, host.data(), 64 * 8, cudaMemcpyHostToDevice));
    EXPECT_EQ(gp_buffer_wrap(ctx(), GP_FIELD_GOLDILOCKS, 1, 64, 1, dev, &w), GP_ERR_NON_CANONICAL);
    EXPECT_NE(std::string(gp_last_error()).find("data[17]"), std::string::npos) << gp_last_error();
    CUDA_OK(cudaFree(dev));
}

// The caller's copy into wrapped memory is queued on its stream and not
// waited for; with the stream set, the library's LDE still sees the data.
TEST_F(InteropCuda, WorkIsOrderedAfterTheCallersStream) {
    const uint64_t rows = 1 << 20, cols = 8;
    const std::vector<uint64_t> host = random_words(rows * cols, 2);
    uint64_t *pinned = nullptr, *dev = nullptr;
    CUDA_OK(cudaMallocHost(&pinned, host.size() * 8));
    std::memcpy(pinned, host.data(), host.size() * 8);
    CUDA_OK(cudaMalloc(&dev, host.size() * 8));
    CUDA_OK(cudaMemset(dev, 0, host.size() * 8));
    cudaStream_t s;
    CUDA_OK(cudaStreamCreateWithFlags(&s, cudaStreamNonBlocking));
    gp_buffer *w = nullptr;
    ASSERT_GP_OK(gp_buffer_wrap(ctx(), GP_FIELD_GOLDILOCKS, 1, rows, cols, dev, &w));
    BufPtr wrapped(w);
    ASSERT_GP_OK(gp_context_set_stream(ctx(), s));
    // Several copies in a row keep the stream busy while the call starts.
    for (int i = 0; i < 4; ++i) CUDA_OK(cudaMemcpyAsync(dev, pinned, host.size() * 8, cudaMemcpyHostToDevice, s));
    const std::vector<uint64_t> got = lde(w, 2);
    ASSERT_GP_OK(gp_context_set_stream(ctx(), nullptr));
    CUDA_OK(cudaStreamSynchronize(s));
    BufPtr up;
    ASSERT_GP_OK(upload(ctx(), GL(), columns(rows, cols, host), GP_LAYOUT_COL_MAJOR, &up));
    EXPECT_EQ(got, lde(up.get(), 2));
    wrapped.reset();
    CUDA_OK(cudaStreamDestroy(s));
    CUDA_OK(cudaFree(dev));
    CUDA_OK(cudaFreeHost(pinned));
}

TEST_F(InteropCuda, DlpackOnTheDevice) {
    BufPtr b;
    ASSERT_GP_OK(create_buffer(ctx(), GL(), 3, 256, 2, &b));
    DLManagedTensor *x = nullptr;
    ASSERT_GP_OK(gp_buffer_to_dlpack(b.get(), &x));
    void *p = nullptr;
    ASSERT_GP_OK(gp_buffer_data(b.get(), &p));
    EXPECT_EQ(x->dl_tensor.data, p);
    EXPECT_EQ(x->dl_tensor.device.device_type, kDLCUDA);
    EXPECT_EQ(x->dl_tensor.shape[0], 6);
    EXPECT_EQ(x->dl_tensor.shape[1], 256);
    gp_buffer *imp = nullptr;
    ASSERT_GP_OK(gp_buffer_from_dlpack(ctx(), GP_FIELD_GOLDILOCKS, 3, x, &imp));
    EXPECT_EQ(gp_buffer_cols(imp), 2u);
    gp_buffer_destroy(imp);  // calls the export's deleter
    // A host tensor is refused by a CUDA context.
    int64_t shape[1] = {4};
    uint64_t host[4] = {1, 2, 3, 4};
    DLManagedTensor mine{};
    mine.dl_tensor.data = host;
    mine.dl_tensor.device = DLDevice{kDLCPU, 0};
    mine.dl_tensor.ndim = 1;
    mine.dl_tensor.dtype = DLDataType{kDLUInt, 64, 1};
    mine.dl_tensor.shape = shape;
    EXPECT_EQ(gp_buffer_from_dlpack(ctx(), GP_FIELD_GOLDILOCKS, 1, &mine, &imp), GP_ERR_CONTEXT_MISMATCH);
}

TEST_F(InteropCuda, CountersSeeTransfersAndDeviceTime) {
    ASSERT_GP_OK(gp_context_reset_counters(ctx()));
    const uint64_t rows = 1 << 16, cols = 4;
    const std::vector<uint64_t> host = random_words(rows * cols, 3);
    BufPtr out;
    ASSERT_GP_OK(create_buffer(ctx(), GL(), 1, rows * 2, cols, &out));
    ASSERT_GP_OK(gp_lde_batch_host(ctx(), GP_FIELD_GOLDILOCKS, 1, host.data(), rows, cols, nullptr, out.get()));
    std::vector<uint64_t> back(rows * 2 * cols);
    ASSERT_GP_OK(gp_buffer_to_host(out.get(), GP_LAYOUT_COL_MAJOR, back.data(), back.size() * 8));
    gp_counters k;
    k.struct_size = sizeof k;
    ASSERT_GP_OK(gp_context_counters(ctx(), &k));
    EXPECT_GE(k.bytes_to_device, host.size() * 8);
    EXPECT_GE(k.bytes_to_host, back.size() * 8);
    EXPECT_GT(k.device_ns, 0u);
    EXPECT_EQ(k.calls, 4u);  // reset, create, LDE, to_host
}

struct CancelAt {
    gp_context *ctx;
    int reports = 0;
    static void fn(void *u, const char *, uint64_t, uint64_t) {
        auto *s = static_cast<CancelAt *>(u);
        if (++s->reports == 1) gp_context_cancel(s->ctx);
    }
};

TEST_F(InteropCuda, CancelledCommitAndHostLdeLeaveTheContextWorking) {
    const uint64_t rows = 1 << 20, cols = 16;  // 128 MiB of input: two staging batches
    const std::vector<uint64_t> host = random_words(rows * cols, 4);
    BufPtr out;
    ASSERT_GP_OK(create_buffer(ctx(), GL(), 1, rows * 2, cols, &out));
    CancelAt c{ctx()};
    ASSERT_GP_OK(gp_context_set_progress(ctx(), CancelAt::fn, &c));
    EXPECT_EQ(gp_lde_batch_host(ctx(), GP_FIELD_GOLDILOCKS, 1, host.data(), rows, cols, nullptr, out.get()),
              GP_ERR_CANCELLED)
        << gp_last_error();
    const gp_buffer *m = out.get();
    gp_merkle_tree *t = nullptr;
    c.reports = 0;
    EXPECT_EQ(gp_merkle_commit(ctx(), &m, 1, nullptr, &t), GP_ERR_CANCELLED) << gp_last_error();
    EXPECT_EQ(t, nullptr);
    ASSERT_GP_OK(gp_context_set_progress(ctx(), nullptr, nullptr));
    ASSERT_GP_OK(gp_lde_batch_host(ctx(), GP_FIELD_GOLDILOCKS, 1, host.data(), rows, cols, nullptr, out.get()));
    ASSERT_GP_OK(gp_merkle_commit(ctx(), &m, 1, nullptr, &t));
    uint64_t root[4];
    ASSERT_GP_OK(gp_merkle_root(t, root, sizeof root));
    gp_merkle_tree_destroy(t);
    // The same root from a CPU context.
    CtxPtr cpu;
    ASSERT_GP_OK(make_context(GP_BACKEND_CPU, &cpu));
    BufPtr cout;
    ASSERT_GP_OK(create_buffer(cpu.get(), GL(), 1, rows * 2, cols, &cout));
    ASSERT_GP_OK(gp_lde_batch_host(cpu.get(), GP_FIELD_GOLDILOCKS, 1, host.data(), rows, cols, nullptr, cout.get()));
    const gp_buffer *cm = cout.get();
    ASSERT_GP_OK(gp_merkle_commit(cpu.get(), &cm, 1, nullptr, &t));
    uint64_t want[4];
    ASSERT_GP_OK(gp_merkle_root(t, want, sizeof want));
    gp_merkle_tree_destroy(t);
    EXPECT_EQ(std::memcmp(root, want, sizeof root), 0);
}

}  // namespace
