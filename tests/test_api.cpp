// SPDX-License-Identifier: MIT OR Apache-2.0
/*
 * test_api.cpp - API surface of gpuprover on the CPU backend: versions,
 * status names, field constants, contexts, buffers and layouts, option
 * defaults, every documented error path, and memory accounting.
 */
#include <thread>

#include "test_util.h"

using namespace gpt;

namespace {

/* A small LDE compared against the naive reference: the context still works. */
::testing::AssertionResult context_works(gp_context *ctx) {
    static uint64_t seed = 1000;
    Rng rng(seed++);
    struct Case { gp_field f; uint32_t d; };
    for (const Case &c : {Case{GP_FIELD_GOLDILOCKS, 1}, Case{GP_FIELD_BABYBEAR, 4}}) {
        const FieldRef &F = field_ref(c.f);
        HostMat in = random_mat(F, 8, 2, c.d, rng);
        gp_lde_options o;
        gp_lde_options_init(&o);
        o.blowup = 4;
        o.shift = rng.nonzero(F.p);
        o.output_order = GP_ORDER_BIT_REVERSED;
        HostMat got;
        gp_status st = run_lde(ctx, F, in, o, LdePath::kBuffer, GP_LAYOUT_COL_MAJOR, &got);
        if (st != GP_OK)
            return ::testing::AssertionFailure()
                   << "valid LDE after a failed call returned " << gpt_status_str(st) << ": "
                   << gp_last_error();
        ::testing::AssertionResult eq = mats_equal(got, naive_lde_for(F, in, o));
        if (!eq) return eq;
        if (std::string(gp_last_error()) != "")
            return ::testing::AssertionFailure()
                   << "gp_last_error() not cleared by successful calls: " << gp_last_error();
    }
    return ::testing::AssertionSuccess();
}

#define EXPECT_CONTEXT_WORKS(ctx) EXPECT_TRUE(context_works(ctx)) << "context unusable after failure"

/* Expect `call` to fail with `code`, then check that the context still works. */
#define EXPECT_ERR_THEN_WORKS(ctx, call, code) \
    do {                                       \
        EXPECT_GP_ERR(call, code);             \
        EXPECT_CONTEXT_WORKS(ctx);             \
    } while (0)

gp_lde_options lde_opts(uint32_t blowup = 2, uint64_t n = 0) {
    gp_lde_options o;
    gp_lde_options_init(&o);
    o.blowup = blowup;
    o.n = n;
    return o;
}

}  // namespace

/* ------------------------------------------------------------------------ */
/* Version and status names                                                 */
/* ------------------------------------------------------------------------ */

TEST(Version, StringAndNumber) {
    ASSERT_NE(gp_version(), nullptr);
    const std::string expected = std::to_string(GP_VERSION_MAJOR) + "." +
                                 std::to_string(GP_VERSION_MINOR) + "." +
                                 std::to_string(GP_VERSION_PATCH);
    EXPECT_EQ(std::string(gp_version()), expected);
    EXPECT_EQ(std::string(gp_version()), "0.1.0");
    EXPECT_EQ(gp_version_number(), (uint32_t)GP_VERSION_NUMBER);
    EXPECT_EQ(gp_version_number(), 100u);
}

TEST(Status, NamesOfEveryCode) {
    const std::pair<gp_status, const char *> expected[] = {
        {GP_OK, "GP_OK"},
        {GP_ERR_INVALID_ARGUMENT, "GP_ERR_INVALID_ARGUMENT"},
        {GP_ERR_NULL_POINTER, "GP_ERR_NULL_POINTER"},
        {GP_ERR_UNSUPPORTED, "GP_ERR_UNSUPPORTED"},
        {GP_ERR_NO_DEVICE, "GP_ERR_NO_DEVICE"},
        {GP_ERR_HOST_OUT_OF_MEMORY, "GP_ERR_HOST_OUT_OF_MEMORY"},
        {GP_ERR_DEVICE_OUT_OF_MEMORY, "GP_ERR_DEVICE_OUT_OF_MEMORY"},
        {GP_ERR_SIZE_OVERFLOW, "GP_ERR_SIZE_OVERFLOW"},
        {GP_ERR_FIELD_MISMATCH, "GP_ERR_FIELD_MISMATCH"},
        {GP_ERR_CONTEXT_MISMATCH, "GP_ERR_CONTEXT_MISMATCH"},
        {GP_ERR_SHAPE_MISMATCH, "GP_ERR_SHAPE_MISMATCH"},
        {GP_ERR_TWO_ADICITY, "GP_ERR_TWO_ADICITY"},
        {GP_ERR_NON_CANONICAL, "GP_ERR_NON_CANONICAL"},
        {GP_ERR_CUDA, "GP_ERR_CUDA"},
        {GP_ERR_INTERNAL, "GP_ERR_INTERNAL"},
        {GP_ERR_VERIFY_FAILED, "GP_ERR_VERIFY_FAILED"},
        {GP_ERR_CANCELLED, "GP_ERR_CANCELLED"},
    };
    for (const auto &e : expected) {
        const char *name = gp_status_name(e.first);
        ASSERT_NE(name, nullptr) << (int)e.first;
        EXPECT_STREQ(name, e.second) << "code " << (int)e.first;
    }
    /* 77 is past the last code (and outside the C++ range of gp_status) */
    if (!GP_TEST_SANITIZED) {
        const char *name = gp_status_name(raw_enum<gp_status>(77));
        ASSERT_NE(name, nullptr);
        EXPECT_STREQ(name, "GP_ERR_UNKNOWN");
    }
}

TEST(Status, LastErrorClearedBySuccess) {
    ASSERT_NE(gp_last_error(), nullptr);
    uint64_t root = 0;
    EXPECT_GP_ERR(gp_field_two_adic_generator(GP_FIELD_BABYBEAR, 3, nullptr), GP_ERR_NULL_POINTER);
    EXPECT_GP_OK(gp_field_two_adic_generator(GP_FIELD_BABYBEAR, 3, &root));
    ASSERT_NE(gp_last_error(), nullptr);
    EXPECT_STREQ(gp_last_error(), "");
}

/* ------------------------------------------------------------------------ */
/* Fields                                                                   */
/* ------------------------------------------------------------------------ */

TEST(Fields, ElementSize) {
    EXPECT_EQ(gp_field_element_size(GP_FIELD_GOLDILOCKS), 8u);
    EXPECT_EQ(gp_field_element_size(GP_FIELD_BABYBEAR), 4u);
    EXPECT_EQ(gp_field_element_size(GP_FIELD_KOALABEAR), 4u);
    EXPECT_EQ(gp_field_element_size(raw_enum<gp_field>(0)), 0u);
}

TEST(Fields, Info) {
    struct Expect { gp_field f; uint64_t p, g; uint32_t adicity; };
    const Expect table[] = {
        {GP_FIELD_GOLDILOCKS, 18446744069414584321ull, 7, 32},
        {GP_FIELD_BABYBEAR, 2013265921ull, 31, 27},
        {GP_FIELD_KOALABEAR, 2130706433ull, 3, 24},
    };
    for (const Expect &e : table) {
        uint64_t p = 0, g = 0;
        uint32_t a = 0;
        ASSERT_GP_OK(gp_field_info(e.f, &p, &g, &a));
        EXPECT_EQ(p, e.p);
        EXPECT_EQ(g, e.g);
        EXPECT_EQ(a, e.adicity);
        EXPECT_STREQ(gp_last_error(), "");
        /* Any output pointer may be NULL. */
        EXPECT_GP_OK(gp_field_info(e.f, nullptr, nullptr, nullptr));
        uint64_t p2 = 0;
        EXPECT_GP_OK(gp_field_info(e.f, &p2, nullptr, nullptr));
        EXPECT_EQ(p2, e.p);
        uint32_t a2 = 0;
        EXPECT_GP_OK(gp_field_info(e.f, nullptr, nullptr, &a2));
        EXPECT_EQ(a2, e.adicity);
    }
    /* Moduli match their closed forms. */
    EXPECT_EQ(table[0].p, (uint64_t)((((unsigned __int128)1) << 64) - (1ull << 32) + 1));
    EXPECT_EQ(table[1].p, (1ull << 31) - (1ull << 27) + 1);
    EXPECT_EQ(table[2].p, (1ull << 31) - (1ull << 24) + 1);
    uint64_t p = 0;
    EXPECT_GP_ERR(gp_field_info(raw_enum<gp_field>(0), &p, nullptr, nullptr), GP_ERR_INVALID_ARGUMENT);
}

/* The reference's roots GENERATOR^((p-1)/2^k) equal the Plonky3 tables. This
 * checks the test reference itself (and that the vectors file is found). */
TEST(Fields, ReferenceRootsMatchVectors) {
    const std::string json = read_text_file(vectors_path("ntt_conventions.json"));
    ASSERT_FALSE(json.empty()) << "cannot read " << vectors_path("ntt_conventions.json");
    for (const FieldRef &F : all_fields()) {
        const std::vector<uint64_t> table = json_two_adic_table(json, F.name);
        ASSERT_EQ(table.size(), (size_t)F.two_adicity + 1) << F.name;
        for (uint32_t k = 0; k <= F.two_adicity; ++k) {
            EXPECT_EQ(ref_root(F, k), table[k]) << F.name << " log_n " << k;
            /* primitive 2^k-th root */
            EXPECT_EQ(pow_mod(table[k], 1ull << k, F.p), 1u) << F.name << " " << k;
            if (k > 0) {
                EXPECT_EQ(pow_mod(table[k], 1ull << (k - 1), F.p), F.p - 1) << F.name << " " << k;
            }
        }
    }
}

TEST(Fields, TwoAdicGeneratorMatchesVectors) {
    const std::string json = read_text_file(vectors_path("ntt_conventions.json"));
    ASSERT_FALSE(json.empty()) << "cannot read " << vectors_path("ntt_conventions.json");
    for (const FieldRef &F : all_fields()) {
        const std::vector<uint64_t> table = json_two_adic_table(json, F.name);
        ASSERT_EQ(table.size(), (size_t)F.two_adicity + 1) << F.name;
        for (uint32_t k = 0; k <= F.two_adicity; ++k) {
            uint64_t root = 0xdeadbeef;
            ASSERT_GP_OK(gp_field_two_adic_generator(F.field, k, &root));
            EXPECT_EQ(root, table[k]) << F.name << " log_n " << k;
        }
        uint64_t root = 0;
        EXPECT_GP_ERR(gp_field_two_adic_generator(F.field, F.two_adicity + 1, &root),
                      GP_ERR_TWO_ADICITY);
        EXPECT_GP_ERR(gp_field_two_adic_generator(F.field, 64, &root), GP_ERR_TWO_ADICITY);
        EXPECT_GP_ERR(gp_field_two_adic_generator(F.field, 0xffffffffu, &root), GP_ERR_TWO_ADICITY);
        EXPECT_GP_ERR(gp_field_two_adic_generator(F.field, 2, nullptr), GP_ERR_NULL_POINTER);
    }
    uint64_t root = 0;
    EXPECT_GP_ERR(gp_field_two_adic_generator(raw_enum<gp_field>(0), 2, &root),
                  GP_ERR_INVALID_ARGUMENT);
}

/* ------------------------------------------------------------------------ */
/* Option defaults                                                          */
/* ------------------------------------------------------------------------ */

TEST(Options, Defaults) {
    gp_context_options c;
    std::memset(&c, 0xab, sizeof c);
    gp_context_options_init(&c);
    EXPECT_EQ(c.struct_size, (uint32_t)sizeof(gp_context_options));
    EXPECT_EQ(c.backend, GP_BACKEND_AUTO);
    EXPECT_EQ(c.devices, nullptr);
    EXPECT_EQ(c.num_devices, 0u);
    EXPECT_EQ(c.cpu_threads, 0u);

    gp_ntt_options n;
    std::memset(&n, 0xab, sizeof n);
    gp_ntt_options_init(&n);
    EXPECT_EQ(n.struct_size, (uint32_t)sizeof(gp_ntt_options));
    EXPECT_EQ(n.direction, GP_NTT_FORWARD);
    EXPECT_EQ(n.shift, 0u);
    EXPECT_EQ(n.input_order, GP_ORDER_NATURAL);
    EXPECT_EQ(n.output_order, GP_ORDER_NATURAL);

    gp_lde_options l;
    std::memset(&l, 0xab, sizeof l);
    gp_lde_options_init(&l);
    EXPECT_EQ(l.struct_size, (uint32_t)sizeof(gp_lde_options));
    EXPECT_EQ(l.n, 0u);
    EXPECT_EQ(l.blowup, 2u);
    EXPECT_EQ(l.shift, 0u);
    EXPECT_EQ(l.input_shift, 0u);
    EXPECT_EQ(l.output_order, GP_ORDER_NATURAL);
    EXPECT_EQ(l.input_layout, GP_LAYOUT_COL_MAJOR);
}

/* ------------------------------------------------------------------------ */
/* Contexts                                                                 */
/* ------------------------------------------------------------------------ */

TEST(Context, CreateDestroyCpu) {
    CtxPtr ctx;
    ASSERT_GP_OK(make_context(GP_BACKEND_CPU, &ctx));
    ASSERT_NE(ctx.get(), nullptr);
    EXPECT_EQ(gp_context_backend(ctx.get()), expected_backend(GP_BACKEND_CPU));
    char name[256];
    std::memset(name, 'x', sizeof name);
    ASSERT_GP_OK(gp_context_device_name(ctx.get(), name, sizeof name));
    ASSERT_NE(std::memchr(name, '\0', sizeof name), nullptr) << "name not NUL-terminated";
    EXPECT_GT(std::strlen(name), 0u);
    EXPECT_CONTEXT_WORKS(ctx.get());
    ctx.reset();

    /* Several contexts at once, created and destroyed in any order. */
    CtxPtr a, b, c;
    ASSERT_GP_OK(make_context(GP_BACKEND_CPU, &a));
    ASSERT_GP_OK(make_context(GP_BACKEND_CPU, &b));
    ASSERT_GP_OK(make_context(GP_BACKEND_CPU, &c));
    EXPECT_NE(a.get(), b.get());
    b.reset();
    EXPECT_CONTEXT_WORKS(a.get());
    EXPECT_CONTEXT_WORKS(c.get());
}

TEST(Context, NullOptionsMeansAuto) {
    gp_context *raw = nullptr;
    ASSERT_GP_OK(gp_context_create(nullptr, &raw));
    CtxPtr ctx(raw);
    ASSERT_NE(raw, nullptr);
    const gp_backend b = gp_context_backend(raw);
    EXPECT_TRUE(b == GP_BACKEND_CPU || b == GP_BACKEND_CUDA) << (int)b;
    EXPECT_EQ(b, cuda_available() ? GP_BACKEND_CUDA : GP_BACKEND_CPU);
}

TEST(Context, Auto) {
    CtxPtr ctx;
    ASSERT_GP_OK(make_context(GP_BACKEND_AUTO, &ctx));
    const gp_backend b = gp_context_backend(ctx.get());
    EXPECT_NE(b, GP_BACKEND_AUTO);
    EXPECT_TRUE(b == GP_BACKEND_CPU || b == GP_BACKEND_CUDA) << (int)b;
    /* AUTO means CUDA if a usable GPU exists, else the CPU. */
    EXPECT_EQ(b, cuda_available() ? GP_BACKEND_CUDA : GP_BACKEND_CPU);
    if (b == GP_BACKEND_CUDA) EXPECT_EQ(gp_context_cpu_fallback(ctx.get()), nullptr);
    char name[128] = {0};
    ASSERT_GP_OK(gp_context_device_name(ctx.get(), name, sizeof name));
    EXPECT_GT(std::strlen(name), 0u);
    EXPECT_CONTEXT_WORKS(ctx.get());
}

TEST(Context, CudaWithoutDevice) {
    if (cuda_available()) GTEST_SKIP() << "a CUDA device is available";
    gp_context_options o;
    gp_context_options_init(&o);
    o.backend = GP_BACKEND_CUDA;
    gp_context *raw = nullptr;
    EXPECT_GP_ERR(gp_context_create(&o, &raw), GP_ERR_NO_DEVICE);
    EXPECT_EQ(raw, nullptr);
    if (raw) gp_context_destroy(raw);
    const std::string why = gp_last_error();
    EXPECT_NE(why.find("CUDA"), std::string::npos) << why;
    /* AUTO takes the CPU and keeps the same reason; the CPU asked for has
       none to give. */
    o.backend = GP_BACKEND_AUTO;
    ASSERT_GP_OK(gp_context_create(&o, &raw));
    CtxPtr autoc(raw);
    if (gp_context_backend(raw) == GP_BACKEND_CPU) {
        ASSERT_NE(gp_context_cpu_fallback(raw), nullptr);
        EXPECT_GT(std::strlen(gp_context_cpu_fallback(raw)), 0u);
        EXPECT_NE(why.find(gp_context_cpu_fallback(raw)), std::string::npos)
            << why << " / " << gp_context_cpu_fallback(raw);
    }
    o.backend = GP_BACKEND_CPU;
    ASSERT_GP_OK(gp_context_create(&o, &raw));
    CtxPtr cpuc(raw);
    EXPECT_EQ(gp_context_cpu_fallback(raw), nullptr);
    EXPECT_EQ(gp_context_cpu_fallback(nullptr), nullptr);
}

TEST(Context, CudaBadDeviceOrdinal) {
    const int32_t devices[1] = {4095};
    gp_context_options o;
    gp_context_options_init(&o);
    o.backend = GP_BACKEND_CUDA;
    o.devices = devices;
    o.num_devices = 1;
    gp_context *raw = nullptr;
    EXPECT_GP_ERR(gp_context_create(&o, &raw), GP_ERR_NO_DEVICE);
    EXPECT_EQ(raw, nullptr);
    if (raw) gp_context_destroy(raw);
}

TEST(Context, NullHandles) {
    gp_context_destroy(nullptr);
    gp_buffer_destroy(nullptr);
    EXPECT_EQ(gp_context_backend(nullptr), GP_BACKEND_AUTO);
    EXPECT_EQ(gp_buffer_rows(nullptr), 0u);
    EXPECT_EQ(gp_buffer_cols(nullptr), 0u);
    EXPECT_EQ((int)gp_buffer_field(nullptr), 0);
    EXPECT_EQ(gp_buffer_ext_degree(nullptr), 0u);
    EXPECT_EQ(gp_buffer_size_bytes(nullptr), 0u);
}

TEST(Context, DeviceNameTruncation) {
    CtxPtr ctx;
    ASSERT_GP_OK(make_context(GP_BACKEND_CPU, &ctx));
    char full[256] = {0};
    ASSERT_GP_OK(gp_context_device_name(ctx.get(), full, sizeof full));
    const size_t len = std::strlen(full);
    ASSERT_GT(len, 0u);
    for (size_t size : {(size_t)1, (size_t)2, (size_t)4, len, len + 1}) {
        std::vector<char> small(size + 8, 'x');
        ASSERT_GP_OK(gp_context_device_name(ctx.get(), small.data(), size));
        const size_t want = std::min(len, size - 1);
        EXPECT_EQ(small[want], '\0') << "size " << size;
        EXPECT_EQ(std::string(small.data()), std::string(full, want)) << "size " << size;
        for (size_t i = size; i < small.size(); ++i)
            ASSERT_EQ(small[i], 'x') << "wrote past size " << size << " at " << i;
    }
}

TEST(Context, CpuThreadsOption) {
    const FieldRef &F = field_ref(GP_FIELD_KOALABEAR);
    Rng rng(77);
    HostMat in = random_mat(F, 256, 5, 1, rng);
    gp_lde_options o = lde_opts(4);
    o.output_order = GP_ORDER_BIT_REVERSED;
    const HostMat want = naive_lde_for(F, in, o);
    for (uint32_t threads : {1u, 2u, 3u, 7u}) {
        CtxPtr ctx;
        ASSERT_GP_OK(make_context(GP_BACKEND_CPU, &ctx, threads));
        EXPECT_EQ(gp_context_backend(ctx.get()), expected_backend(GP_BACKEND_CPU));
        HostMat got;
        ASSERT_GP_OK(run_lde(ctx.get(), F, in, o, LdePath::kHost, GP_LAYOUT_COL_MAJOR, &got));
        EXPECT_TRUE(mats_equal(got, want)) << "cpu_threads " << threads;
    }
}

/* Destroying a context with a live buffer releases it (ASan/LSan would flag a
 * leak) and reports the leak in gp_last_error(). */
TEST(Context, DestroyWithLiveBufferReportsLeak) {
    gp_context *ctx = nullptr;
    gp_context_options o;
    gp_context_options_init(&o);
    o.backend = GP_BACKEND_CPU;
    ASSERT_GP_OK(gp_context_create(&o, &ctx));
    gp_buffer *buf = nullptr;
    ASSERT_GP_OK(gp_buffer_create(ctx, GP_FIELD_GOLDILOCKS, 2, 64, 3, &buf));
    ASSERT_NE(buf, nullptr);
    gp_context_destroy(ctx); /* buf is released with it; do not touch it again */
    EXPECT_STRNE(gp_last_error(), "") << "leaked buffer not reported";
}

TEST(Context, ConcurrentContextsOnThreads) {
    const FieldRef &F = field_ref(GP_FIELD_GOLDILOCKS);
    Rng rng(5);
    std::vector<HostMat> inputs, wants;
    gp_lde_options o = lde_opts(2);
    o.shift = 12345;
    for (int t = 0; t < 4; ++t) {
        inputs.push_back(random_mat(F, 64, 3, 1 + (t % 3), rng));
        wants.push_back(naive_lde_for(F, inputs.back(), o));
    }
    std::vector<HostMat> got(4);
    std::vector<gp_status> status(4, GP_ERR_INTERNAL);
    std::vector<std::thread> threads;
    for (int t = 0; t < 4; ++t)
        threads.emplace_back([&, t] {
            CtxPtr ctx;
            status[t] = make_context(GP_BACKEND_CPU, &ctx, 2);
            if (status[t] != GP_OK) return;
            for (int rep = 0; rep < 3 && status[t] == GP_OK; ++rep)
                status[t] = run_lde(ctx.get(), F, inputs[t], o, LdePath::kBuffer,
                                    GP_LAYOUT_ROW_MAJOR, &got[t]);
        });
    for (auto &th : threads) th.join();
    for (int t = 0; t < 4; ++t) {
        ASSERT_EQ(status[t], GP_OK) << "thread " << t;
        EXPECT_TRUE(mats_equal(got[t], wants[t])) << "thread " << t;
    }
}

TEST(Context, LastErrorIsThreadLocal) {
    uint64_t root = 0;
    EXPECT_GP_ERR(gp_field_two_adic_generator(GP_FIELD_GOLDILOCKS, 1, nullptr), GP_ERR_NULL_POINTER);
    std::string other_initial = "unset", other_after_ok = "unset", other_after_err;
    std::thread th([&] {
        other_initial = gp_last_error();
        uint64_t r = 0;
        gp_field_two_adic_generator(GP_FIELD_GOLDILOCKS, 200, &r);
        other_after_err = gp_last_error();
        gp_field_two_adic_generator(GP_FIELD_GOLDILOCKS, 2, &r);
        other_after_ok = gp_last_error();
    });
    th.join();
    EXPECT_EQ(other_initial, "");
    EXPECT_NE(other_after_err, "");
    EXPECT_EQ(other_after_ok, "");
    /* This thread still has its own failure message. */
    EXPECT_STRNE(gp_last_error(), "");
    EXPECT_GP_OK(gp_field_two_adic_generator(GP_FIELD_GOLDILOCKS, 1, &root));
    EXPECT_STREQ(gp_last_error(), "");
}

/* ------------------------------------------------------------------------ */
/* Buffers                                                                  */
/* ------------------------------------------------------------------------ */

TEST(Buffer, CreateIsZeroFilledWithShape) {
    CtxPtr ctx;
    ASSERT_GP_OK(make_context(GP_BACKEND_CPU, &ctx));
    for (const FieldRef &F : all_fields())
        for (uint32_t d : F.ext_degrees) {
            BufPtr b;
            ASSERT_GP_OK(create_buffer(ctx.get(), F, d, 13, 5, &b));
            EXPECT_EQ(gp_buffer_rows(b.get()), 13u);
            EXPECT_EQ(gp_buffer_cols(b.get()), 5u);
            EXPECT_EQ(gp_buffer_field(b.get()), F.field);
            EXPECT_EQ(gp_buffer_ext_degree(b.get()), d);
            EXPECT_EQ(gp_buffer_size_bytes(b.get()), 13u * 5u * d * F.elem_size);
            for (gp_layout layout : {GP_LAYOUT_COL_MAJOR, GP_LAYOUT_ROW_MAJOR}) {
                ApiData out = ApiData::zeros(13 * 5 * d, F.elem_size);
                for (size_t i = 0; i < out.count(); ++i) out.set(i, 1 + i);
                ASSERT_GP_OK(gp_buffer_to_host(b.get(), layout, out.data(), out.size_bytes()));
                for (size_t i = 0; i < out.count(); ++i)
                    ASSERT_EQ(out.get(i), 0u) << F.name << " d=" << d << " index " << i;
            }
        }
}

/* host -> buffer -> host for every field, degree and layout pair, checking the
 * documented index mapping directly on the flat arrays. */
TEST(Buffer, RoundTripLayouts) {
    CtxPtr ctx;
    ASSERT_GP_OK(make_context(GP_BACKEND_CPU, &ctx));
    Rng rng(42);
    for (const FieldRef &F : all_fields())
        for (uint32_t d : F.ext_degrees)
            for (auto shape : {std::pair<uint64_t, uint64_t>{1, 1}, {7, 3}, {16, 1}, {1, 9}, {33, 17}}) {
                const uint64_t rows = shape.first, cols = shape.second;
                const size_t count = (size_t)(rows * cols * d);
                std::vector<uint64_t> flat(count);
                for (auto &x : flat) x = rng.elem(F.p);
                for (gp_layout in_layout : {GP_LAYOUT_COL_MAJOR, GP_LAYOUT_ROW_MAJOR}) {
                    ApiData host(flat, F.elem_size);
                    gp_buffer *raw = nullptr;
                    ASSERT_GP_OK(gp_buffer_from_host(ctx.get(), F.field, d, rows, cols, in_layout,
                                                     host.data(), &raw));
                    BufPtr b(raw);
                    EXPECT_EQ(gp_buffer_rows(raw), rows);
                    EXPECT_EQ(gp_buffer_cols(raw), cols);
                    EXPECT_EQ(gp_buffer_field(raw), F.field);
                    EXPECT_EQ(gp_buffer_ext_degree(raw), d);
                    EXPECT_EQ(gp_buffer_size_bytes(raw), (uint64_t)count * F.elem_size);
                    for (gp_layout out_layout : {GP_LAYOUT_COL_MAJOR, GP_LAYOUT_ROW_MAJOR}) {
                        ApiData out = ApiData::zeros(count, F.elem_size);
                        ASSERT_GP_OK(gp_buffer_to_host(raw, out_layout, out.data(), out.size_bytes()));
                        size_t bad = 0;
                        for (uint64_t r = 0; r < rows; ++r)
                            for (uint64_t c = 0; c < cols; ++c)
                                for (uint32_t k = 0; k < d; ++k) {
                                    const size_t in_idx = in_layout == GP_LAYOUT_COL_MAJOR
                                                              ? (size_t)((c * rows + r) * d + k)
                                                              : (size_t)((r * cols + c) * d + k);
                                    const size_t out_idx = out_layout == GP_LAYOUT_COL_MAJOR
                                                               ? (size_t)((c * rows + r) * d + k)
                                                               : (size_t)((r * cols + c) * d + k);
                                    if (out.get(out_idx) != flat[in_idx] && bad++ == 0)
                                        ADD_FAILURE() << F.name << " d=" << d << " " << rows << "x"
                                                      << cols << " in layout " << in_layout
                                                      << " out layout " << out_layout << ": (" << r
                                                      << "," << c << "," << k << ") got "
                                                      << out.get(out_idx) << " want " << flat[in_idx];
                                }
                        EXPECT_EQ(bad, 0u);
                    }
                    /* A larger destination is fine; bytes beyond are untouched. */
                    ApiData big = ApiData::zeros(count + 3, F.elem_size);
                    for (size_t i = 0; i < big.count(); ++i) big.set(i, 5);
                    ASSERT_GP_OK(gp_buffer_to_host(raw, in_layout, big.data(), big.size_bytes()));
                    for (size_t i = 0; i < count; ++i) ASSERT_EQ(big.get(i), flat[i]);
                    for (size_t i = count; i < count + 3; ++i) ASSERT_EQ(big.get(i), 5u);
                }
            }
}

/* The smallest and largest canonical values survive the round trip. */
TEST(Buffer, EdgeValuesRoundTrip) {
    CtxPtr ctx;
    ASSERT_GP_OK(make_context(GP_BACKEND_CPU, &ctx));
    for (const FieldRef &F : all_fields()) {
        std::vector<uint64_t> vals = {0, 1, 2, F.p - 1, F.p - 2, F.p / 2, (F.p + 1) / 2, F.generator};
        if (F.elem_size == 8) {
            vals.push_back(0xffffffffull);
            vals.push_back(0x100000000ull);
            vals.push_back(0xffffffff00000000ull);
        }
        ApiData host(vals, F.elem_size);
        gp_buffer *raw = nullptr;
        ASSERT_GP_OK(gp_buffer_from_host(ctx.get(), F.field, 1, vals.size(), 1, GP_LAYOUT_COL_MAJOR,
                                         host.data(), &raw));
        BufPtr b(raw);
        HostMat got;
        ASSERT_GP_OK(download(raw, F, GP_LAYOUT_ROW_MAJOR, &got));
        EXPECT_EQ(got.v, vals) << F.name;
    }
}

/* ------------------------------------------------------------------------ */
/* Bad input                                                                */
/* ------------------------------------------------------------------------ */

TEST(BadInput, NullPointers) {
    CtxPtr ctx;
    ASSERT_GP_OK(make_context(GP_BACKEND_CPU, &ctx));
    gp_context *c = ctx.get();
    const FieldRef &F = field_ref(GP_FIELD_GOLDILOCKS);
    std::vector<uint64_t> host(8 * 2, 1);
    BufPtr in, out;
    ASSERT_GP_OK(create_buffer(c, F, 1, 8, 2, &in));
    ASSERT_GP_OK(create_buffer(c, F, 1, 16, 2, &out));
    gp_buffer *raw = nullptr;
    gp_context *raw_ctx = nullptr;
    char name[32];
    gp_memory_stats stats;
    stats.struct_size = sizeof stats;
    gp_lde_options lo = lde_opts(2);
    gp_ntt_options no;
    gp_ntt_options_init(&no);

    EXPECT_GP_ERR(gp_field_two_adic_generator(F.field, 3, nullptr), GP_ERR_NULL_POINTER);
    EXPECT_GP_ERR(gp_context_create(nullptr, nullptr), GP_ERR_NULL_POINTER);
    gp_context_options co;
    gp_context_options_init(&co);
    co.backend = GP_BACKEND_CPU;
    EXPECT_GP_ERR(gp_context_create(&co, nullptr), GP_ERR_NULL_POINTER);
    EXPECT_GP_ERR(gp_context_device_name(nullptr, name, sizeof name), GP_ERR_NULL_POINTER);
    EXPECT_GP_ERR(gp_context_device_name(c, nullptr, 16), GP_ERR_NULL_POINTER);
    EXPECT_GP_ERR(gp_context_memory_stats(nullptr, &stats), GP_ERR_NULL_POINTER);
    EXPECT_GP_ERR(gp_context_memory_stats(c, nullptr), GP_ERR_NULL_POINTER);
    EXPECT_GP_ERR(gp_context_trim(nullptr), GP_ERR_NULL_POINTER);

    EXPECT_GP_ERR(gp_buffer_create(nullptr, F.field, 1, 8, 2, &raw), GP_ERR_NULL_POINTER);
    EXPECT_EQ(raw, nullptr);
    EXPECT_GP_ERR(gp_buffer_create(c, F.field, 1, 8, 2, nullptr), GP_ERR_NULL_POINTER);
    EXPECT_GP_ERR(gp_buffer_from_host(nullptr, F.field, 1, 8, 2, GP_LAYOUT_COL_MAJOR, host.data(), &raw),
                  GP_ERR_NULL_POINTER);
    EXPECT_GP_ERR(gp_buffer_from_host(c, F.field, 1, 8, 2, GP_LAYOUT_COL_MAJOR, nullptr, &raw),
                  GP_ERR_NULL_POINTER);
    EXPECT_GP_ERR(gp_buffer_from_host(c, F.field, 1, 8, 2, GP_LAYOUT_COL_MAJOR, host.data(), nullptr),
                  GP_ERR_NULL_POINTER);
    EXPECT_EQ(raw, nullptr);
    EXPECT_GP_ERR(gp_buffer_to_host(nullptr, GP_LAYOUT_COL_MAJOR, host.data(), host.size() * 8),
                  GP_ERR_NULL_POINTER);
    EXPECT_GP_ERR(gp_buffer_to_host(in.get(), GP_LAYOUT_COL_MAJOR, nullptr, host.size() * 8),
                  GP_ERR_NULL_POINTER);

    EXPECT_GP_ERR(gp_ntt_batch(nullptr, in.get(), &no), GP_ERR_NULL_POINTER);
    EXPECT_GP_ERR(gp_ntt_batch(c, nullptr, &no), GP_ERR_NULL_POINTER);

    EXPECT_GP_ERR(gp_lde_batch(nullptr, in.get(), &lo, out.get()), GP_ERR_NULL_POINTER);
    EXPECT_GP_ERR(gp_lde_batch(c, nullptr, &lo, out.get()), GP_ERR_NULL_POINTER);
    EXPECT_GP_ERR(gp_lde_batch(c, in.get(), &lo, nullptr), GP_ERR_NULL_POINTER);
    EXPECT_GP_ERR(gp_lde_batch_host(nullptr, F.field, 1, host.data(), 8, 2, &lo, out.get()),
                  GP_ERR_NULL_POINTER);
    EXPECT_GP_ERR(gp_lde_batch_host(c, F.field, 1, nullptr, 8, 2, &lo, out.get()),
                  GP_ERR_NULL_POINTER);
    EXPECT_GP_ERR(gp_lde_batch_host(c, F.field, 1, host.data(), 8, 2, &lo, nullptr),
                  GP_ERR_NULL_POINTER);

    /* Nothing was created by the failed calls and the handles still work. */
    EXPECT_EQ(raw, nullptr);
    EXPECT_EQ(raw_ctx, nullptr);
    EXPECT_GP_OK(gp_context_memory_stats(c, &stats));
    EXPECT_GP_OK(gp_lde_batch_host(c, F.field, 1, host.data(), 8, 2, &lo, out.get()));
    HostMat got;
    ASSERT_GP_OK(download(out.get(), F, GP_LAYOUT_COL_MAJOR, &got));
    for (uint64_t x : got.v) EXPECT_EQ(x, 1u); /* LDE of a constant is that constant */
    EXPECT_CONTEXT_WORKS(c);
}

TEST(BadInput, ZeroRowsOrCols) {
    CtxPtr ctx;
    ASSERT_GP_OK(make_context(GP_BACKEND_CPU, &ctx));
    gp_context *c = ctx.get();
    const FieldRef &F = field_ref(GP_FIELD_BABYBEAR);
    std::vector<uint32_t> host(64, 3);
    gp_buffer *raw = nullptr;
    EXPECT_GP_ERR_ANY(gp_buffer_create(c, F.field, 1, 0, 4, &raw), GP_ERR_INVALID_ARGUMENT,
                      GP_ERR_SHAPE_MISMATCH);
    EXPECT_GP_ERR_ANY(gp_buffer_create(c, F.field, 1, 0, 0, &raw), GP_ERR_INVALID_ARGUMENT,
                      GP_ERR_SHAPE_MISMATCH);
    EXPECT_GP_ERR_ANY(gp_buffer_from_host(c, F.field, 1, 0, 4, GP_LAYOUT_COL_MAJOR, host.data(), &raw),
                      GP_ERR_INVALID_ARGUMENT, GP_ERR_SHAPE_MISMATCH);
    EXPECT_EQ(raw, nullptr);
    // No columns: a matrix of width 0 (empty sponge inputs, test_empty_input.cpp), no memory.
    ASSERT_GP_OK(gp_buffer_create(c, F.field, 1, 4, 0, &raw));
    EXPECT_EQ(gp_buffer_size_bytes(raw), 0u);
    gp_buffer_destroy(raw);
    raw = nullptr;
    ASSERT_GP_OK(gp_buffer_from_host(c, F.field, 1, 4, 0, GP_LAYOUT_ROW_MAJOR, host.data(), &raw));
    EXPECT_EQ(gp_buffer_cols(raw), 0u);
    gp_buffer_destroy(raw);
    raw = nullptr;
    BufPtr out;
    ASSERT_GP_OK(create_buffer(c, F, 1, 16, 4, &out));
    gp_lde_options o = lde_opts(2, 8);
    /* rows = 0 with an explicit n: either rejected, or all rows are virtual
     * zero padding and the output is all zero. */
    {
        std::vector<uint32_t> ones(16 * 4, 1);
        ASSERT_GP_OK(gp_lde_batch_host(c, F.field, 1, ones.data(), 8, 4, &o, out.get()));
        gp_status st = gp_lde_batch_host(c, F.field, 1, host.data(), 0, 4, &o, out.get());
        if (st == GP_OK) {
            HostMat got;
            ASSERT_GP_OK(download(out.get(), F, GP_LAYOUT_COL_MAJOR, &got));
            for (uint64_t x : got.v) ASSERT_EQ(x, 0u) << "rows = 0 LDE is not all zero";
        } else {
            EXPECT_TRUE(st == GP_ERR_INVALID_ARGUMENT || st == GP_ERR_SHAPE_MISMATCH)
                << gpt_status_str(st);
            EXPECT_STRNE(gp_last_error(), "");
        }
    }
    EXPECT_GP_ERR_ANY(gp_lde_batch_host(c, F.field, 1, host.data(), 8, 0, &o, out.get()),
                      GP_ERR_INVALID_ARGUMENT, GP_ERR_SHAPE_MISMATCH);
    EXPECT_CONTEXT_WORKS(c);
}

TEST(BadInput, UnsupportedExtensionDegree) {
    CtxPtr ctx;
    ASSERT_GP_OK(make_context(GP_BACKEND_CPU, &ctx));
    gp_context *c = ctx.get();
    std::vector<uint64_t> host(4 * 4 * 8, 0);
    struct Bad { gp_field f; uint32_t d; };
    for (const Bad &b : {Bad{GP_FIELD_GOLDILOCKS, 0}, Bad{GP_FIELD_GOLDILOCKS, 4}, Bad{GP_FIELD_GOLDILOCKS, 5},
                         Bad{GP_FIELD_BABYBEAR, 0}, Bad{GP_FIELD_BABYBEAR, 2}, Bad{GP_FIELD_BABYBEAR, 3},
                         Bad{GP_FIELD_BABYBEAR, 5}, Bad{GP_FIELD_BABYBEAR, 8}, Bad{GP_FIELD_KOALABEAR, 2},
                         Bad{GP_FIELD_KOALABEAR, 3}, Bad{GP_FIELD_KOALABEAR, 0x80000000u}}) {
        SCOPED_TRACE(::testing::Message() << "field " << (int)b.f << " degree " << b.d);
        gp_buffer *raw = nullptr;
        EXPECT_GP_ERR_ANY(gp_buffer_create(c, b.f, b.d, 4, 4, &raw), GP_ERR_UNSUPPORTED,
                          GP_ERR_INVALID_ARGUMENT);
        EXPECT_GP_ERR_ANY(gp_buffer_from_host(c, b.f, b.d, 4, 4, GP_LAYOUT_COL_MAJOR, host.data(), &raw),
                          GP_ERR_UNSUPPORTED, GP_ERR_INVALID_ARGUMENT);
        EXPECT_EQ(raw, nullptr);
    }
    /* gp_lde_batch_host with an unsupported degree (output of a valid degree). */
    const FieldRef &F = field_ref(GP_FIELD_BABYBEAR);
    BufPtr out;
    ASSERT_GP_OK(create_buffer(c, F, 1, 8, 4, &out));
    gp_lde_options o = lde_opts(2);
    EXPECT_GP_ERR_ANY(gp_lde_batch_host(c, F.field, 2, host.data(), 4, 4, &o, out.get()),
                      GP_ERR_UNSUPPORTED, GP_ERR_INVALID_ARGUMENT, GP_ERR_FIELD_MISMATCH);
    EXPECT_CONTEXT_WORKS(c);
}

/* Invalid values that are inside the C++ range of their enum type. */
TEST(BadInput, InvalidFieldAndBackend) {
    CtxPtr ctx;
    ASSERT_GP_OK(make_context(GP_BACKEND_CPU, &ctx));
    gp_context *c = ctx.get();
    const FieldRef &F = field_ref(GP_FIELD_KOALABEAR);
    std::vector<uint32_t> host(16 * 2, 7);
    gp_buffer *raw = nullptr;
    const gp_field bad_field = raw_enum<gp_field>(0);
    EXPECT_GP_ERR(gp_buffer_create(c, bad_field, 1, 4, 4, &raw), GP_ERR_INVALID_ARGUMENT);
    EXPECT_GP_ERR(gp_buffer_from_host(c, bad_field, 1, 4, 4, GP_LAYOUT_COL_MAJOR, host.data(), &raw),
                  GP_ERR_INVALID_ARGUMENT);
    EXPECT_EQ(raw, nullptr);
    BufPtr out;
    ASSERT_GP_OK(create_buffer(c, F, 1, 32, 2, &out));
    gp_lde_options o = lde_opts(2);
    EXPECT_GP_ERR_ANY(gp_lde_batch_host(c, bad_field, 1, host.data(), 16, 2, &o, out.get()),
                      GP_ERR_INVALID_ARGUMENT, GP_ERR_FIELD_MISMATCH);
    EXPECT_CONTEXT_WORKS(c);

    gp_context_options co;
    gp_context_options_init(&co);
    co.backend = raw_enum<gp_backend>(3);
    gp_context *bad_ctx = nullptr;
    EXPECT_GP_ERR(gp_context_create(&co, &bad_ctx), GP_ERR_INVALID_ARGUMENT);
    EXPECT_EQ(bad_ctx, nullptr);
    if (bad_ctx) gp_context_destroy(bad_ctx);
}

/* Out-of-range enum values, as a C caller may pass them. Skipped in sanitizer
 * builds: in C++ (test side and library side) loading such a value from an
 * enum-typed object is undefined and -fsanitize=enum aborts the process. */
TEST(BadInput, OutOfRangeEnumValues) {
    if (GP_TEST_SANITIZED) GTEST_SKIP() << "out-of-range enum values are UB in C++ (UBSan enum check)";
    CtxPtr ctx;
    ASSERT_GP_OK(make_context(GP_BACKEND_CPU, &ctx));
    gp_context *c = ctx.get();
    const FieldRef &F = field_ref(GP_FIELD_KOALABEAR);
    std::vector<uint32_t> host(16 * 2, 7);
    gp_buffer *raw = nullptr;

    for (int unknown : {77, 99, 1000, -1, 0x7fffffff})
        EXPECT_STREQ(gp_status_name(raw_enum<gp_status>(unknown)), "GP_ERR_UNKNOWN") << unknown;
    for (int bad_field : {4, 77, -1}) {
        SCOPED_TRACE(::testing::Message() << "field " << bad_field);
        const gp_field f = raw_enum<gp_field>(bad_field);
        EXPECT_EQ(gp_field_element_size(f), 0u);
        uint64_t p = 0;
        EXPECT_GP_ERR(gp_field_info(f, &p, nullptr, nullptr), GP_ERR_INVALID_ARGUMENT);
        EXPECT_GP_ERR(gp_field_two_adic_generator(f, 2, &p), GP_ERR_INVALID_ARGUMENT);
        EXPECT_GP_ERR(gp_buffer_create(c, f, 1, 4, 4, &raw), GP_ERR_INVALID_ARGUMENT);
        EXPECT_GP_ERR(gp_buffer_from_host(c, f, 1, 4, 4, GP_LAYOUT_COL_MAJOR, host.data(), &raw),
                      GP_ERR_INVALID_ARGUMENT);
    }
    EXPECT_EQ(raw, nullptr);
    for (int bad_layout : {2, 3, -1}) {
        EXPECT_GP_ERR(gp_buffer_from_host(c, F.field, 1, 4, 4, raw_enum<gp_layout>(bad_layout),
                                          host.data(), &raw),
                      GP_ERR_INVALID_ARGUMENT);
    }
    EXPECT_EQ(raw, nullptr);

    BufPtr in, out;
    ASSERT_GP_OK(create_buffer(c, F, 1, 16, 2, &in));
    ASSERT_GP_OK(create_buffer(c, F, 1, 32, 2, &out));
    ApiData dl = ApiData::zeros(16 * 2, 4);
    EXPECT_GP_ERR(gp_buffer_to_host(in.get(), raw_enum<gp_layout>(2), dl.data(), dl.size_bytes()),
                  GP_ERR_INVALID_ARGUMENT);

    gp_ntt_options no;
    gp_ntt_options_init(&no);
    store_raw(&no.direction, 2);
    EXPECT_GP_ERR(gp_ntt_batch(c, in.get(), &no), GP_ERR_INVALID_ARGUMENT);
    gp_ntt_options_init(&no);
    store_raw(&no.input_order, 2);
    EXPECT_GP_ERR(gp_ntt_batch(c, in.get(), &no), GP_ERR_INVALID_ARGUMENT);
    gp_ntt_options_init(&no);
    store_raw(&no.output_order, -3);
    EXPECT_GP_ERR(gp_ntt_batch(c, in.get(), &no), GP_ERR_INVALID_ARGUMENT);

    gp_lde_options o = lde_opts(2);
    store_raw(&o.output_order, 2);
    EXPECT_ERR_THEN_WORKS(c, gp_lde_batch(c, in.get(), &o, out.get()), GP_ERR_INVALID_ARGUMENT);
    o = lde_opts(2);
    store_raw(&o.input_layout, 5);
    EXPECT_ERR_THEN_WORKS(c, gp_lde_batch_host(c, F.field, 1, host.data(), 16, 2, &o, out.get()),
                          GP_ERR_INVALID_ARGUMENT);
    gp_context_options co;
    gp_context_options_init(&co);
    store_raw(&co.backend, 7);
    gp_context *bad_ctx = nullptr;
    EXPECT_GP_ERR(gp_context_create(&co, &bad_ctx), GP_ERR_INVALID_ARGUMENT);
    EXPECT_EQ(bad_ctx, nullptr);
    EXPECT_CONTEXT_WORKS(c);
}

TEST(BadInput, NonCanonicalInput) {
    CtxPtr ctx;
    ASSERT_GP_OK(make_context(GP_BACKEND_CPU, &ctx));
    gp_context *c = ctx.get();
    Rng rng(3);
    for (const FieldRef &F : all_fields())
        for (uint32_t d : F.ext_degrees) {
            const uint64_t rows = 16, cols = 3;
            const uint64_t max_word = F.elem_size == 8 ? ~0ull : 0xffffffffull;
            for (uint64_t bad : {F.p, F.p + 1, max_word})
                for (size_t pos : {(size_t)0, (size_t)(rows * cols * d - 1), (size_t)(rows * cols * d / 2 + 1)})
                    for (gp_layout layout : {GP_LAYOUT_COL_MAJOR, GP_LAYOUT_ROW_MAJOR}) {
                        SCOPED_TRACE(::testing::Message() << F.name << " d=" << d << " value " << bad
                                                          << " at " << pos << " layout " << layout);
                        std::vector<uint64_t> vals((size_t)(rows * cols * d));
                        for (auto &x : vals) x = rng.elem(F.p);
                        vals[pos] = bad;
                        ApiData host(vals, F.elem_size);
                        gp_buffer *raw = nullptr;
                        EXPECT_GP_ERR(gp_buffer_from_host(c, F.field, d, rows, cols, layout, host.data(), &raw),
                                      GP_ERR_NON_CANONICAL);
                        EXPECT_EQ(raw, nullptr);
                        if (raw) gp_buffer_destroy(raw);
                        BufPtr out;
                        ASSERT_GP_OK(create_buffer(c, F, d, rows * 2, cols, &out));
                        gp_lde_options o = lde_opts(2);
                        o.input_layout = layout;
                        EXPECT_GP_ERR(gp_lde_batch_host(c, F.field, d, host.data(), rows, cols, &o, out.get()),
                                      GP_ERR_NON_CANONICAL);
                    }
        }
    EXPECT_CONTEXT_WORKS(c);
}

TEST(BadInput, SizeOverflow) {
    CtxPtr ctx;
    ASSERT_GP_OK(make_context(GP_BACKEND_CPU, &ctx));
    gp_context *c = ctx.get();
    std::vector<uint64_t> host(64, 0);
    gp_buffer *raw = nullptr;
    struct Big { gp_field f; uint32_t d; uint64_t rows, cols; };
    for (const Big &b : {Big{GP_FIELD_GOLDILOCKS, 1, 1ull << 40, 1ull << 40},
                         Big{GP_FIELD_BABYBEAR, 1, 1ull << 40, 1ull << 40},
                         Big{GP_FIELD_GOLDILOCKS, 1, ~0ull, 2},
                         Big{GP_FIELD_GOLDILOCKS, 1, 1ull << 61, 1},     /* bytes = 2^64 */
                         Big{GP_FIELD_GOLDILOCKS, 3, 1ull << 31, 1ull << 31}, /* *3*8 overflows */
                         Big{GP_FIELD_KOALABEAR, 4, 1ull << 31, 1ull << 31},  /* *4*4 = 2^66 */
                         Big{GP_FIELD_BABYBEAR, 4, 1ull << 60, 1}}) {
        SCOPED_TRACE(::testing::Message() << "field " << (int)b.f << " d " << b.d << " rows " << b.rows
                                          << " cols " << b.cols);
        EXPECT_GP_ERR(gp_buffer_create(c, b.f, b.d, b.rows, b.cols, &raw), GP_ERR_SIZE_OVERFLOW);
        EXPECT_GP_ERR(gp_buffer_from_host(c, b.f, b.d, b.rows, b.cols, GP_LAYOUT_COL_MAJOR, host.data(), &raw),
                      GP_ERR_SIZE_OVERFLOW);
        EXPECT_EQ(raw, nullptr);
    }
    EXPECT_CONTEXT_WORKS(c);
}

/* Sizes are checked against available memory before anything is allocated. */
TEST(BadInput, HostOutOfMemory) {
    CtxPtr ctx;
    ASSERT_GP_OK(make_context(GP_BACKEND_CPU, &ctx));
    gp_memory_stats before, after;
    before.struct_size = after.struct_size = sizeof before;
    ASSERT_GP_OK(gp_context_memory_stats(ctx.get(), &before));
    gp_buffer *raw = nullptr;
    /* 2^34 x 64 Goldilocks elements x 8 bytes = 8 TiB, far above any host's memory
     * (a server's GPU when the suite runs through one: tests/run_remote.sh) */
    const gp_status st = gp_buffer_create(ctx.get(), GP_FIELD_GOLDILOCKS, 1, 1ull << 34, 64, &raw);
    if (test_remote_endpoint() && st == GP_ERR_DEVICE_OUT_OF_MEMORY) EXPECT_NE(std::string(gp_last_error()), "");
    else EXPECT_EQ(st, GP_ERR_HOST_OUT_OF_MEMORY) << gp_last_error();
    EXPECT_EQ(raw, nullptr);
    if (raw) gp_buffer_destroy(raw);
    ASSERT_GP_OK(gp_context_memory_stats(ctx.get(), &after));
    EXPECT_EQ(after.buffer_bytes, before.buffer_bytes);
    EXPECT_CONTEXT_WORKS(ctx.get());
}

TEST(BadInput, ToHostTooSmall) {
    CtxPtr ctx;
    ASSERT_GP_OK(make_context(GP_BACKEND_CPU, &ctx));
    for (const FieldRef &F : all_fields())
        for (uint32_t d : F.ext_degrees) {
            BufPtr b;
            ASSERT_GP_OK(create_buffer(ctx.get(), F, d, 8, 3, &b));
            const uint64_t need = 8 * 3 * d * F.elem_size;
            std::vector<uint8_t> dst((size_t)need + 16, 0xcd);
            for (uint64_t size : {need - 1, need - F.elem_size, (uint64_t)0, (uint64_t)1}) {
                SCOPED_TRACE(::testing::Message() << F.name << " d " << d << " size " << size);
                for (gp_layout layout : {GP_LAYOUT_COL_MAJOR, GP_LAYOUT_ROW_MAJOR})
                    EXPECT_GP_ERR_ANY(gp_buffer_to_host(b.get(), layout, dst.data(), size),
                                      GP_ERR_INVALID_ARGUMENT, GP_ERR_SHAPE_MISMATCH);
            }
            for (uint8_t x : dst) ASSERT_EQ(x, 0xcd) << "failed to_host wrote into the destination";
            EXPECT_GP_OK(gp_buffer_to_host(b.get(), GP_LAYOUT_ROW_MAJOR, dst.data(), need));
            for (uint64_t i = 0; i < need; ++i) ASSERT_EQ(dst[(size_t)i], 0) << i;
            for (uint64_t i = need; i < dst.size(); ++i) ASSERT_EQ(dst[(size_t)i], 0xcd) << i;
        }
    EXPECT_CONTEXT_WORKS(ctx.get());
}

TEST(BadInput, LdeNNotPowerOfTwo) {
    CtxPtr ctx;
    ASSERT_GP_OK(make_context(GP_BACKEND_CPU, &ctx));
    gp_context *c = ctx.get();
    const FieldRef &F = field_ref(GP_FIELD_GOLDILOCKS);
    Rng rng(8);
    HostMat six = random_mat(F, 6, 2, 1, rng);
    BufPtr in6, out12;
    ASSERT_GP_OK(upload(c, F, six, GP_LAYOUT_COL_MAJOR, &in6));
    ASSERT_GP_OK(create_buffer(c, F, 1, 12, 2, &out12));
    ApiData host6(six.v, F.elem_size);
    /* explicit n = 6 */
    gp_lde_options o = lde_opts(2, 6);
    EXPECT_ERR_THEN_WORKS(c, gp_lde_batch(c, in6.get(), &o, out12.get()), GP_ERR_INVALID_ARGUMENT);
    EXPECT_ERR_THEN_WORKS(c, gp_lde_batch_host(c, F.field, 1, host6.data(), 6, 2, &o, out12.get()),
                          GP_ERR_INVALID_ARGUMENT);
    /* default n = rows = 6 */
    o = lde_opts(2, 0);
    EXPECT_GP_ERR_ANY(gp_lde_batch(c, in6.get(), &o, out12.get()), GP_ERR_INVALID_ARGUMENT,
                      GP_ERR_SHAPE_MISMATCH);
    EXPECT_CONTEXT_WORKS(c);
    /* n = 12 (even, not a power of two) with 6 input rows */
    BufPtr out24;
    ASSERT_GP_OK(create_buffer(c, F, 1, 24, 2, &out24));
    o = lde_opts(2, 12);
    EXPECT_ERR_THEN_WORKS(c, gp_lde_batch(c, in6.get(), &o, out24.get()), GP_ERR_INVALID_ARGUMENT);
    /* the same buffers work with a valid n */
    BufPtr out16;
    ASSERT_GP_OK(create_buffer(c, F, 1, 16, 2, &out16));
    o = lde_opts(2, 8);
    ASSERT_GP_OK(gp_lde_batch(c, in6.get(), &o, out16.get()));
    HostMat got;
    ASSERT_GP_OK(download(out16.get(), F, GP_LAYOUT_COL_MAJOR, &got));
    EXPECT_TRUE(mats_equal(got, naive_lde_for(F, six, o)));
}

TEST(BadInput, LdeBadBlowup) {
    CtxPtr ctx;
    ASSERT_GP_OK(make_context(GP_BACKEND_CPU, &ctx));
    gp_context *c = ctx.get();
    const FieldRef &F = field_ref(GP_FIELD_BABYBEAR);
    Rng rng(9);
    HostMat m = random_mat(F, 4, 2, 1, rng);
    BufPtr in;
    ASSERT_GP_OK(upload(c, F, m, GP_LAYOUT_COL_MAJOR, &in));
    ApiData host(m.v, F.elem_size);
    for (uint32_t blowup : {0u, 3u, 6u, 12u, 33u, 48u, 64u, 128u}) {
        SCOPED_TRACE(::testing::Message() << "blowup " << blowup);
        /* An output with n * blowup rows where that is possible, else a 2n one:
         * options are validated before the output shape. */
        const uint64_t out_rows = (blowup >= 1 && blowup <= 128) ? 4ull * blowup : 8;
        BufPtr out;
        ASSERT_GP_OK(create_buffer(c, F, 1, out_rows, 2, &out));
        gp_lde_options o = lde_opts(blowup);
        EXPECT_ERR_THEN_WORKS(c, gp_lde_batch(c, in.get(), &o, out.get()), GP_ERR_INVALID_ARGUMENT);
        EXPECT_ERR_THEN_WORKS(c, gp_lde_batch_host(c, F.field, 1, host.data(), 4, 2, &o, out.get()),
                              GP_ERR_INVALID_ARGUMENT);
    }
}

TEST(BadInput, LdeTwoAdicity) {
    CtxPtr ctx;
    ASSERT_GP_OK(make_context(GP_BACKEND_CPU, &ctx));
    gp_context *c = ctx.get();
    Rng rng(10);
    struct Case { gp_field f; uint64_t n; uint32_t blowup; };
    for (const Case &k : {Case{GP_FIELD_KOALABEAR, 1ull << 23, 4}, Case{GP_FIELD_KOALABEAR, 1ull << 24, 2},
                          Case{GP_FIELD_KOALABEAR, 1ull << 25, 1}, Case{GP_FIELD_BABYBEAR, 1ull << 26, 4},
                          Case{GP_FIELD_BABYBEAR, 1ull << 23, 32}, Case{GP_FIELD_GOLDILOCKS, 1ull << 31, 4},
                          Case{GP_FIELD_GOLDILOCKS, 1ull << 40, 2}}) {
        const FieldRef &F = field_ref(k.f);
        SCOPED_TRACE(::testing::Message() << F.name << " n " << k.n << " blowup " << k.blowup);
        HostMat m = random_mat(F, 4, 2, 1, rng);
        BufPtr in, out;
        ASSERT_GP_OK(upload(c, F, m, GP_LAYOUT_COL_MAJOR, &in));
        ASSERT_GP_OK(create_buffer(c, F, 1, 8, 2, &out)); /* deliberately not n*B rows */
        ApiData host(m.v, F.elem_size);
        gp_lde_options o = lde_opts(k.blowup, k.n);
        EXPECT_ERR_THEN_WORKS(c, gp_lde_batch(c, in.get(), &o, out.get()), GP_ERR_TWO_ADICITY);
        EXPECT_ERR_THEN_WORKS(c, gp_lde_batch_host(c, F.field, 1, host.data(), 4, 2, &o, out.get()),
                              GP_ERR_TWO_ADICITY);
    }
    /* Right at the limit the size is fine and the (small) output is the problem. */
    const FieldRef &K = field_ref(GP_FIELD_KOALABEAR);
    HostMat m = random_mat(K, 4, 2, 1, rng);
    BufPtr in, out;
    ASSERT_GP_OK(upload(c, K, m, GP_LAYOUT_COL_MAJOR, &in));
    ASSERT_GP_OK(create_buffer(c, K, 1, 8, 2, &out));
    gp_lde_options o = lde_opts(4, 1ull << 22);
    EXPECT_ERR_THEN_WORKS(c, gp_lde_batch(c, in.get(), &o, out.get()), GP_ERR_SHAPE_MISMATCH);
}

TEST(BadInput, LdeInputRowsAboveN) {
    CtxPtr ctx;
    ASSERT_GP_OK(make_context(GP_BACKEND_CPU, &ctx));
    gp_context *c = ctx.get();
    const FieldRef &F = field_ref(GP_FIELD_GOLDILOCKS);
    Rng rng(11);
    HostMat m = random_mat(F, 16, 2, 2, rng);
    BufPtr in, out;
    ASSERT_GP_OK(upload(c, F, m, GP_LAYOUT_COL_MAJOR, &in));
    ASSERT_GP_OK(create_buffer(c, F, 2, 16, 2, &out)); /* n * B = 8 * 2 */
    ApiData host(m.v, F.elem_size);
    gp_lde_options o = lde_opts(2, 8);
    EXPECT_ERR_THEN_WORKS(c, gp_lde_batch(c, in.get(), &o, out.get()), GP_ERR_SHAPE_MISMATCH);
    EXPECT_ERR_THEN_WORKS(c, gp_lde_batch_host(c, F.field, 2, host.data(), 16, 2, &o, out.get()),
                          GP_ERR_SHAPE_MISMATCH);
    /* 17 rows into n = 16 */
    HostMat m17 = random_mat(F, 17, 2, 2, rng);
    BufPtr in17, out32;
    ASSERT_GP_OK(upload(c, F, m17, GP_LAYOUT_ROW_MAJOR, &in17));
    ASSERT_GP_OK(create_buffer(c, F, 2, 32, 2, &out32));
    o = lde_opts(2, 16);
    EXPECT_ERR_THEN_WORKS(c, gp_lde_batch(c, in17.get(), &o, out32.get()), GP_ERR_SHAPE_MISMATCH);
}

TEST(BadInput, LdeOutputShape) {
    CtxPtr ctx;
    ASSERT_GP_OK(make_context(GP_BACKEND_CPU, &ctx));
    gp_context *c = ctx.get();
    const FieldRef &F = field_ref(GP_FIELD_BABYBEAR);
    Rng rng(12);
    HostMat m = random_mat(F, 8, 3, 4, rng);
    BufPtr in;
    ASSERT_GP_OK(upload(c, F, m, GP_LAYOUT_COL_MAJOR, &in));
    ApiData host(m.v, F.elem_size);
    gp_lde_options o = lde_opts(4);
    for (auto shape : {std::pair<uint64_t, uint64_t>{16, 3}, {64, 3}, {31, 3}, {32, 2}, {32, 4}, {8, 3}, {32, 1}}) {
        SCOPED_TRACE(::testing::Message() << "output " << shape.first << "x" << shape.second);
        BufPtr out;
        ASSERT_GP_OK(create_buffer(c, F, 4, shape.first, shape.second, &out));
        EXPECT_ERR_THEN_WORKS(c, gp_lde_batch(c, in.get(), &o, out.get()), GP_ERR_SHAPE_MISMATCH);
        EXPECT_ERR_THEN_WORKS(c, gp_lde_batch_host(c, F.field, 4, host.data(), 8, 3, &o, out.get()),
                              GP_ERR_SHAPE_MISMATCH);
    }
    /* The input buffer is still fine after all those failures. */
    BufPtr out;
    ASSERT_GP_OK(create_buffer(c, F, 4, 32, 3, &out));
    ASSERT_GP_OK(gp_lde_batch(c, in.get(), &o, out.get()));
    HostMat got;
    ASSERT_GP_OK(download(out.get(), F, GP_LAYOUT_ROW_MAJOR, &got));
    EXPECT_TRUE(mats_equal(got, naive_lde_for(F, m, o)));
}

TEST(BadInput, FieldMismatch) {
    CtxPtr ctx;
    ASSERT_GP_OK(make_context(GP_BACKEND_CPU, &ctx));
    gp_context *c = ctx.get();
    Rng rng(13);
    const FieldRef &B = field_ref(GP_FIELD_BABYBEAR);
    const FieldRef &K = field_ref(GP_FIELD_KOALABEAR);
    const FieldRef &G = field_ref(GP_FIELD_GOLDILOCKS);
    HostMat m = random_mat(B, 8, 2, 1, rng);
    BufPtr in;
    ASSERT_GP_OK(upload(c, B, m, GP_LAYOUT_COL_MAJOR, &in));
    ApiData host(m.v, B.elem_size);
    gp_lde_options o = lde_opts(2);
    BufPtr out_k, out_g, out_b4, out_b;
    ASSERT_GP_OK(create_buffer(c, K, 1, 16, 2, &out_k));
    ASSERT_GP_OK(create_buffer(c, G, 1, 16, 2, &out_g));
    ASSERT_GP_OK(create_buffer(c, B, 4, 16, 2, &out_b4));
    ASSERT_GP_OK(create_buffer(c, B, 1, 16, 2, &out_b));
    EXPECT_ERR_THEN_WORKS(c, gp_lde_batch(c, in.get(), &o, out_k.get()), GP_ERR_FIELD_MISMATCH);
    EXPECT_ERR_THEN_WORKS(c, gp_lde_batch(c, in.get(), &o, out_g.get()), GP_ERR_FIELD_MISMATCH);
    EXPECT_ERR_THEN_WORKS(c, gp_lde_batch(c, in.get(), &o, out_b4.get()), GP_ERR_FIELD_MISMATCH);
    /* host variant: the field / degree arguments disagree with the output */
    EXPECT_ERR_THEN_WORKS(c, gp_lde_batch_host(c, K.field, 1, host.data(), 8, 2, &o, out_b.get()),
                          GP_ERR_FIELD_MISMATCH);
    EXPECT_ERR_THEN_WORKS(c, gp_lde_batch_host(c, B.field, 1, host.data(), 8, 2, &o, out_b4.get()),
                          GP_ERR_FIELD_MISMATCH);
    std::vector<uint32_t> host4(8 * 2 * 4, 1);
    EXPECT_ERR_THEN_WORKS(c, gp_lde_batch_host(c, B.field, 4, host4.data(), 8, 2, &o, out_b.get()),
                          GP_ERR_FIELD_MISMATCH);
    /* and the right output works */
    ASSERT_GP_OK(gp_lde_batch(c, in.get(), &o, out_b.get()));
    HostMat got;
    ASSERT_GP_OK(download(out_b.get(), B, GP_LAYOUT_COL_MAJOR, &got));
    EXPECT_TRUE(mats_equal(got, naive_lde_for(B, m, o)));
}

TEST(BadInput, ContextMismatch) {
    CtxPtr ctx_a, ctx_b;
    ASSERT_GP_OK(make_context(GP_BACKEND_CPU, &ctx_a));
    ASSERT_GP_OK(make_context(GP_BACKEND_CPU, &ctx_b));
    gp_context *a = ctx_a.get(), *b = ctx_b.get();
    const FieldRef &F = field_ref(GP_FIELD_GOLDILOCKS);
    Rng rng(14);
    HostMat m = random_mat(F, 8, 2, 1, rng);
    ApiData host(m.v, F.elem_size);
    BufPtr in_a, in_b, out_a, out_b;
    ASSERT_GP_OK(upload(a, F, m, GP_LAYOUT_COL_MAJOR, &in_a));
    ASSERT_GP_OK(upload(b, F, m, GP_LAYOUT_COL_MAJOR, &in_b));
    ASSERT_GP_OK(create_buffer(a, F, 1, 16, 2, &out_a));
    ASSERT_GP_OK(create_buffer(b, F, 1, 16, 2, &out_b));
    gp_lde_options o = lde_opts(2);
    EXPECT_ERR_THEN_WORKS(a, gp_lde_batch(a, in_b.get(), &o, out_a.get()), GP_ERR_CONTEXT_MISMATCH);
    EXPECT_ERR_THEN_WORKS(a, gp_lde_batch(a, in_a.get(), &o, out_b.get()), GP_ERR_CONTEXT_MISMATCH);
    EXPECT_ERR_THEN_WORKS(a, gp_lde_batch(a, in_b.get(), &o, out_b.get()), GP_ERR_CONTEXT_MISMATCH);
    EXPECT_ERR_THEN_WORKS(a, gp_lde_batch_host(a, F.field, 1, host.data(), 8, 2, &o, out_b.get()),
                          GP_ERR_CONTEXT_MISMATCH);
    gp_ntt_options no;
    gp_ntt_options_init(&no);
    EXPECT_ERR_THEN_WORKS(a, gp_ntt_batch(a, in_b.get(), &no), GP_ERR_CONTEXT_MISMATCH);
    /* in_b was not modified by the rejected NTT */
    HostMat back;
    ASSERT_GP_OK(download(in_b.get(), F, GP_LAYOUT_COL_MAJOR, &back));
    EXPECT_TRUE(mats_equal(back, m));
    EXPECT_CONTEXT_WORKS(b);
    /* each context works with its own buffers */
    for (auto pr : {std::make_pair(a, std::make_pair(in_a.get(), out_a.get())),
                    std::make_pair(b, std::make_pair(in_b.get(), out_b.get()))}) {
        ASSERT_GP_OK(gp_lde_batch(pr.first, pr.second.first, &o, pr.second.second));
        HostMat got;
        ASSERT_GP_OK(download(pr.second.second, F, GP_LAYOUT_COL_MAJOR, &got));
        EXPECT_TRUE(mats_equal(got, naive_lde_for(F, m, o)));
    }
}

TEST(BadInput, Shifts) {
    CtxPtr ctx;
    ASSERT_GP_OK(make_context(GP_BACKEND_CPU, &ctx));
    gp_context *c = ctx.get();
    Rng rng(15);
    for (const FieldRef &F : all_fields()) {
        SCOPED_TRACE(F.name);
        HostMat m = random_mat(F, 8, 2, 1, rng);
        BufPtr in, out;
        ASSERT_GP_OK(upload(c, F, m, GP_LAYOUT_COL_MAJOR, &in));
        ASSERT_GP_OK(create_buffer(c, F, 1, 16, 2, &out));
        ApiData host(m.v, F.elem_size);
        /* shift 0 / input_shift 0 are the defaults (generator / 1) */
        gp_lde_options o = lde_opts(2);
        o.shift = 0;
        o.input_shift = 0;
        ASSERT_GP_OK(gp_lde_batch(c, in.get(), &o, out.get()));
        HostMat got;
        ASSERT_GP_OK(download(out.get(), F, GP_LAYOUT_COL_MAJOR, &got));
        EXPECT_TRUE(mats_equal(got, naive_lde(F, m, 8, 2, F.generator, 1, GP_ORDER_NATURAL)));
        std::vector<uint64_t> bad_shifts = {F.p, F.p + 1, ~0ull};
        if (F.elem_size == 4) bad_shifts.push_back((1ull << 32) + 1);
        for (uint64_t bad : bad_shifts) {
            SCOPED_TRACE(::testing::Message() << "shift " << bad);
            o = lde_opts(2);
            o.shift = bad;
            EXPECT_ERR_THEN_WORKS(c, gp_lde_batch(c, in.get(), &o, out.get()), GP_ERR_INVALID_ARGUMENT);
            EXPECT_ERR_THEN_WORKS(c, gp_lde_batch_host(c, F.field, 1, host.data(), 8, 2, &o, out.get()),
                                  GP_ERR_INVALID_ARGUMENT);
            o = lde_opts(2);
            o.input_shift = bad;
            EXPECT_ERR_THEN_WORKS(c, gp_lde_batch(c, in.get(), &o, out.get()), GP_ERR_INVALID_ARGUMENT);
            gp_ntt_options no;
            gp_ntt_options_init(&no);
            no.shift = bad;
            EXPECT_ERR_THEN_WORKS(c, gp_ntt_batch(c, in.get(), &no), GP_ERR_INVALID_ARGUMENT);
            no.direction = GP_NTT_INVERSE;
            EXPECT_ERR_THEN_WORKS(c, gp_ntt_batch(c, in.get(), &no), GP_ERR_INVALID_ARGUMENT);
        }
        /* The rejected NTTs left the buffer alone. */
        HostMat back;
        ASSERT_GP_OK(download(in.get(), F, GP_LAYOUT_COL_MAJOR, &back));
        EXPECT_TRUE(mats_equal(back, m));
    }
}

TEST(BadInput, NttRowsNotPowerOfTwo) {
    CtxPtr ctx;
    ASSERT_GP_OK(make_context(GP_BACKEND_CPU, &ctx));
    gp_context *c = ctx.get();
    const FieldRef &F = field_ref(GP_FIELD_KOALABEAR);
    Rng rng(16);
    for (uint64_t rows : {3ull, 6ull, 12ull, 100ull}) {
        HostMat m = random_mat(F, rows, 2, 1, rng);
        BufPtr b;
        ASSERT_GP_OK(upload(c, F, m, GP_LAYOUT_COL_MAJOR, &b));
        SCOPED_TRACE(::testing::Message() << "rows " << rows);
        for (gp_ntt_direction dir : {GP_NTT_FORWARD, GP_NTT_INVERSE}) {
            gp_ntt_options no;
            gp_ntt_options_init(&no);
            no.direction = dir;
            EXPECT_GP_ERR_ANY(gp_ntt_batch(c, b.get(), &no), GP_ERR_INVALID_ARGUMENT, GP_ERR_SHAPE_MISMATCH);
        }
        HostMat back;
        ASSERT_GP_OK(download(b.get(), F, GP_LAYOUT_COL_MAJOR, &back));
        EXPECT_TRUE(mats_equal(back, m)) << "rejected NTT modified the buffer";
    }
    EXPECT_CONTEXT_WORKS(c);
}

/* ------------------------------------------------------------------------ */
/* Defaults in use                                                          */
/* ------------------------------------------------------------------------ */

TEST(Defaults, LdeNullOptions) {
    CtxPtr ctx;
    ASSERT_GP_OK(make_context(GP_BACKEND_CPU, &ctx));
    Rng rng(17);
    for (const FieldRef &F : all_fields()) {
        HostMat m = random_mat(F, 16, 3, F.ext_degrees.back(), rng);
        BufPtr in, out;
        ASSERT_GP_OK(upload(ctx.get(), F, m, GP_LAYOUT_COL_MAJOR, &in));
        ASSERT_GP_OK(create_buffer(ctx.get(), F, m.d, 32, 3, &out));
        ASSERT_GP_OK(gp_lde_batch(ctx.get(), in.get(), nullptr, out.get()));
        HostMat got;
        ASSERT_GP_OK(download(out.get(), F, GP_LAYOUT_COL_MAJOR, &got));
        /* n = rows, blowup 2, shift = generator, input shift 1, natural order */
        EXPECT_TRUE(mats_equal(got, naive_lde(F, m, 16, 2, F.generator, 1, GP_ORDER_NATURAL))) << F.name;
        /* host variant with NULL options: column-major input */
        BufPtr out2;
        ASSERT_GP_OK(create_buffer(ctx.get(), F, m.d, 32, 3, &out2));
        ApiData host(m.v, F.elem_size);
        ASSERT_GP_OK(gp_lde_batch_host(ctx.get(), F.field, m.d, host.data(), 16, 3, nullptr, out2.get()));
        HostMat got2;
        ASSERT_GP_OK(download(out2.get(), F, GP_LAYOUT_COL_MAJOR, &got2));
        EXPECT_TRUE(mats_equal(got2, got)) << F.name;
    }
}

TEST(Defaults, NttNullOptions) {
    CtxPtr ctx;
    ASSERT_GP_OK(make_context(GP_BACKEND_CPU, &ctx));
    Rng rng(18);
    for (const FieldRef &F : all_fields()) {
        HostMat m = random_mat(F, 32, 2, 1, rng);
        BufPtr b;
        ASSERT_GP_OK(upload(ctx.get(), F, m, GP_LAYOUT_COL_MAJOR, &b));
        ASSERT_GP_OK(gp_ntt_batch(ctx.get(), b.get(), nullptr));
        HostMat got;
        ASSERT_GP_OK(download(b.get(), F, GP_LAYOUT_COL_MAJOR, &got));
        EXPECT_TRUE(mats_equal(got, naive_ntt(F, m, GP_NTT_FORWARD, 1, GP_ORDER_NATURAL, GP_ORDER_NATURAL)))
            << F.name;
    }
}

/* ------------------------------------------------------------------------ */
/* Memory accounting                                                        */
/* ------------------------------------------------------------------------ */

namespace {
}  // namespace

TEST(Memory, BufferBytesReturnToZero) {
    CtxPtr ctx;
    ASSERT_GP_OK(make_context(GP_BACKEND_CPU, &ctx));
    gp_context *c = ctx.get();
    const gp_memory_stats s0 = stats_of(c);
    EXPECT_EQ(s0.buffer_bytes, 0u);
    Rng rng(19);
    {
        std::vector<BufPtr> bufs;
        uint64_t total = 0, allocs = s0.allocations;
        for (const FieldRef &F : all_fields())
            for (uint32_t d : F.ext_degrees) {
                BufPtr b;
                ASSERT_GP_OK(create_buffer(c, F, d, 100, 3, &b));
                total += gp_buffer_size_bytes(b.get());
                gp_memory_stats s = stats_of(c);
                EXPECT_GE(s.buffer_bytes, total);
                EXPECT_GT(s.allocations, allocs) << "buffer creation counted no allocation";
                allocs = s.allocations;
                bufs.push_back(std::move(b));
                HostMat m = random_mat(F, 64, 2, d, rng);
                BufPtr u;
                ASSERT_GP_OK(upload(c, F, m, GP_LAYOUT_ROW_MAJOR, &u));
                total += gp_buffer_size_bytes(u.get());
                bufs.push_back(std::move(u));
            }
        EXPECT_GE(stats_of(c).buffer_bytes, total);
        /* run some work so that caches fill */
        const FieldRef &F = field_ref(GP_FIELD_GOLDILOCKS);
        HostMat m = random_mat(F, 64, 2, 1, rng);
        HostMat got;
        gp_lde_options o = lde_opts(4);
        ASSERT_GP_OK(run_lde(c, F, m, o, LdePath::kHost, GP_LAYOUT_COL_MAJOR, &got));
        /* destroy half, then the rest */
        for (size_t i = 0; i < bufs.size(); i += 2) bufs[i].reset();
        EXPECT_LT(stats_of(c).buffer_bytes, total);
        bufs.clear();
    }
    EXPECT_EQ(stats_of(c).buffer_bytes, 0u);
    EXPECT_CONTEXT_WORKS(c);
    EXPECT_EQ(stats_of(c).buffer_bytes, 0u);
}

TEST(Memory, RepeatedLdeDoesNotAllocate) {
    CtxPtr ctx;
    ASSERT_GP_OK(make_context(GP_BACKEND_CPU, &ctx));
    gp_context *c = ctx.get();
    Rng rng(20);
    for (const FieldRef &F : all_fields()) {
        SCOPED_TRACE(F.name);
        HostMat m = random_mat(F, 256, 4, F.ext_degrees.back(), rng);
        BufPtr in, out;
        ASSERT_GP_OK(upload(c, F, m, GP_LAYOUT_COL_MAJOR, &in));
        ASSERT_GP_OK(create_buffer(c, F, m.d, 1024, 4, &out));
        gp_lde_options o = lde_opts(4);
        o.output_order = GP_ORDER_BIT_REVERSED;
        ASSERT_GP_OK(gp_lde_batch(c, in.get(), &o, out.get()));
        const gp_memory_stats s1 = stats_of(c);
        ASSERT_GP_OK(gp_lde_batch(c, in.get(), &o, out.get()));
        const gp_memory_stats s2 = stats_of(c);
        EXPECT_EQ(s2.allocations, s1.allocations) << "second LDE of the same shape allocated";
        EXPECT_EQ(s2.buffer_bytes, s1.buffer_bytes);
        ASSERT_GP_OK(gp_lde_batch(c, in.get(), &o, out.get()));
        EXPECT_EQ(stats_of(c).allocations, s1.allocations) << "third LDE of the same shape allocated";
        HostMat got;
        ASSERT_GP_OK(download(out.get(), F, GP_LAYOUT_COL_MAJOR, &got));
        EXPECT_TRUE(mats_equal(got, naive_lde_for(F, m, o)));
    }
}

TEST(Memory, TrimKeepsResultsAndReleasesCaches) {
    CtxPtr ctx;
    ASSERT_GP_OK(make_context(GP_BACKEND_CPU, &ctx));
    gp_context *c = ctx.get();
    const FieldRef &F = field_ref(GP_FIELD_BABYBEAR);
    Rng rng(21);
    HostMat m = random_mat(F, 128, 3, 1, rng);
    gp_lde_options o = lde_opts(8);
    const HostMat want = naive_lde_for(F, m, o);
    HostMat got;
    ASSERT_GP_OK(run_lde(c, F, m, o, LdePath::kBuffer, GP_LAYOUT_COL_MAJOR, &got));
    EXPECT_TRUE(mats_equal(got, want));
    const gp_memory_stats before = stats_of(c);
    ASSERT_GP_OK(gp_context_trim(c));
    const gp_memory_stats after = stats_of(c);
    EXPECT_LE(after.cache_bytes, before.cache_bytes);
    EXPECT_EQ(after.buffer_bytes, 0u);
    ASSERT_GP_OK(run_lde(c, F, m, o, LdePath::kHost, GP_LAYOUT_ROW_MAJOR, &got));
    EXPECT_TRUE(mats_equal(got, want)) << "wrong result after gp_context_trim";
    ASSERT_GP_OK(gp_context_trim(c));
    ASSERT_GP_OK(gp_context_trim(c));
    EXPECT_CONTEXT_WORKS(c);
}

/* The cross-language example (examples/c/lde_checksum.c and each binding's
 * example) must print this value: FNV-1a 64 of the bit-reversed blowup-4 LDE
 * of the 1024 x 8 Goldilocks trace value(r, c) = (8r + c + 1)^3. */
TEST(Examples, CrossLanguageChecksum) {
    CtxPtr ctx;
    ASSERT_GP_OK(make_context(GP_BACKEND_CPU, &ctx));
    const uint64_t rows = 1024, cols = 8, blowup = 4, p = 0xffffffff00000001ull;
    std::vector<uint64_t> trace(rows * cols);
    for (uint64_t c = 0; c < cols; ++c)
        for (uint64_t r = 0; r < rows; ++r) {
            uint64_t x = r * cols + c + 1;
            trace[c * rows + r] = (x * x * x) % p;
        }
    gp_buffer *out = nullptr;
    ASSERT_GP_OK(gp_buffer_create(ctx.get(), GP_FIELD_GOLDILOCKS, 1, rows * blowup, cols, &out));
    BufPtr guard(out);
    gp_lde_options o;
    gp_lde_options_init(&o);
    o.blowup = (uint32_t)blowup;
    o.output_order = GP_ORDER_BIT_REVERSED;
    ASSERT_GP_OK(gp_lde_batch_host(ctx.get(), GP_FIELD_GOLDILOCKS, 1, trace.data(), rows, cols, &o, out));
    std::vector<uint64_t> lde(rows * blowup * cols);
    ASSERT_GP_OK(gp_buffer_to_host(out, GP_LAYOUT_COL_MAJOR, lde.data(), lde.size() * 8));
    uint64_t h = 0xcbf29ce484222325ull;
    for (uint64_t v : lde)
        for (int b = 0; b < 8; ++b) {
            h ^= (v >> (8 * b)) & 0xff;
            h *= 0x100000001b3ull;
        }
    EXPECT_EQ(h, 0x40445ea8c51c1e87ull);
    // Row 0 of the bit-reversed LDE is f(7) for column 0's interpolant f:
    // barycentric, f(x) = (x^n - 1)/n * sum_i v_i w^i / (x - w^i).
    auto mul = [&](uint64_t a, uint64_t b) { return (uint64_t)((unsigned __int128)a * b % p); };
    auto pw = [&](uint64_t b, uint64_t e) {
        uint64_t r = 1;
        for (; e; e >>= 1, b = mul(b, b))
            if (e & 1) r = mul(r, b);
        return r;
    };
    uint64_t w = 0;
    ASSERT_GP_OK(gp_field_two_adic_generator(GP_FIELD_GOLDILOCKS, 10, &w));
    uint64_t sum = 0, wi = 1;
    for (uint64_t i = 0; i < rows; ++i, wi = mul(wi, w)) {
        uint64_t den = (7 + p - wi) % p;
        sum = (uint64_t)(((unsigned __int128)sum + mul(mul(trace[i], wi), pw(den, p - 2))) % p);
    }
    uint64_t x_n_minus_1 = (uint64_t)(((unsigned __int128)pw(7, rows) + p - 1) % p);
    uint64_t f7 = mul(mul(x_n_minus_1, pw(rows, p - 2)), sum);
    EXPECT_EQ(lde[0], f7);
    // Every language's example commits this LDE with Plonky3's Goldilocks
    // Poseidon2 profile (the gp_merkle_options defaults) and prints
    // `merkle root: 0x1b2845fd...`: the root's bytes, which the Python
    // binding's tests also rebuild from a naive tree over gp_permute_batch.
    gp_merkle_options mo;
    gp_merkle_options_init(&mo);
    const gp_buffer *m = out;
    gp_merkle_tree *tree = nullptr;
    ASSERT_GP_OK(gp_merkle_commit(ctx.get(), &m, 1, &mo, &tree));
    uint64_t root[4] = {0, 0, 0, 0};
    EXPECT_EQ(gp_merkle_root(tree, root, sizeof root), GP_OK);
    gp_merkle_tree_destroy(tree);
    EXPECT_EQ(root[0], 0xeb579af7fd45281bull);
    EXPECT_EQ(root[1], 0xb10776c686dbcf43ull);
    EXPECT_EQ(root[2], 0x0982d4e27f81030cull);
    EXPECT_EQ(root[3], 0xdc4a593bd7bf7181ull);
}
