// SPDX-License-Identifier: MIT OR Apache-2.0
// Contexts of several devices: every entry point gives the bytes one device
// gives. On the CPU backend the devices are emulated (shares of the thread
// pool running the same split and exchange as GPUs), so CI runs the
// distribution logic; with a GPU, device 0 listed twice exercises the peer
// copies and the split on one card.
#include <gtest/gtest.h>

#include <cstdint>
#include <cstdlib>
#include <cstring>
#include <random>
#include <string>
#include <vector>

#include "enum_calls.h"
#include "test_util.h"

namespace {

using Bytes = std::vector<uint8_t>;

struct Ctx {
    gp_context *c = nullptr;
    Ctx(gp_backend backend, const std::vector<int32_t> &devs) {
        gp_context_options o;
        gp_context_options_init(&o);
        o.backend = backend;
        o.devices = devs.data();
        o.num_devices = (uint32_t)devs.size();
        o.cpu_threads = 4;
        EXPECT_EQ(gp_context_create(&o, &c), GP_OK) << gp_last_error();
    }
    ~Ctx() { gp_context_destroy(c); }
    operator gp_context *() const { return c; }
};

struct Buf {
    gp_buffer *b = nullptr;
    ~Buf() { gp_buffer_destroy(b); }
    operator gp_buffer *() const { return b; }
};
struct Tree {
    gp_merkle_tree *t = nullptr;
    ~Tree() { gp_merkle_tree_destroy(t); }
};

void put(Bytes &out, const void *p, size_t n) {
    const uint8_t *b = static_cast<const uint8_t *>(p);
    out.insert(out.end(), b, b + n);
}

// `count` canonical elements of `field`, as bytes of its element size.
Bytes random_elems(gp_field field, uint64_t count, uint32_t seed) {
    uint64_t p = 0;
    gp_field_info(field, &p, nullptr, nullptr);
    const uint32_t es = gp_field_element_size(field);
    std::mt19937_64 rng(seed);
    Bytes out(count * es);
    for (uint64_t i = 0; i < count; ++i) {
        uint64_t v = rng() % p;
        if (es == 8) std::memcpy(&out[i * 8], &v, 8);
        else {
            uint32_t w = (uint32_t)v;
            std::memcpy(&out[i * 4], &w, 4);
        }
    }
    return out;
}

Bytes download(gp_buffer *b, gp_layout layout) {
    Bytes out(gp_buffer_size_bytes(b));
    EXPECT_EQ(gp_buffer_to_host(b, layout, out.data(), out.size()), GP_OK) << gp_last_error();
    return out;
}

// Commits, then records the cap and the openings of a few leaves.
void commit_and_open(gp_context *ctx, const std::vector<gp_buffer *> &mats, const gp_merkle_options &o,
                     Bytes &out) {
    Tree t;
    std::vector<const gp_buffer *> m(mats.begin(), mats.end());
    ASSERT_EQ(gp_merkle_commit(ctx, m.data(), (uint32_t)m.size(), &o, &t.t), GP_OK) << gp_last_error();
    Bytes cap(gp_merkle_cap_size(t.t));
    ASSERT_EQ(gp_merkle_cap(t.t, cap.data(), cap.size()), GP_OK);
    put(out, cap.data(), cap.size());
    uint64_t rb = 0, pb = 0;
    ASSERT_EQ(gp_merkle_opening_size(t.t, &rb, &pb), GP_OK);
    uint64_t h = 0;
    for (gp_buffer *b : mats) h = std::max<uint64_t>(h, gp_buffer_rows(b));
    const std::vector<uint64_t> idx = {0, 1, h / 2 + 3, h - 1, h / 3};
    Bytes rows(rb * idx.size()), paths(pb * idx.size());
    ASSERT_EQ(gp_merkle_open(t.t, idx.data(), idx.size(), rows.data(), rows.size(), paths.data(), paths.size()),
              GP_OK)
        << gp_last_error();
    put(out, rows.data(), rows.size());
    put(out, paths.data(), paths.size());
}

// LDEs (host and buffer input, both layouts, ext columns, odd column
// counts), NTTs, downloads in both layouts, Merkle trees of mixed heights
// with caps in three profiles, openings, row hashes.
Bytes lde_and_merkle(gp_backend backend, const std::vector<int32_t> &devs, gp_field field, uint32_t ext,
                     uint64_t cols) {
    Ctx ctx(backend, devs);
    Bytes out;
    const uint64_t n = 1 << 10, blowup = 4;
    const Bytes trace = random_elems(field, n * cols * ext, 7);
    gp_lde_options lo;
    gp_lde_options_init(&lo);
    lo.blowup = (uint32_t)blowup;
    Buf host_lde, buf_lde, in, tiny;
    for (gp_layout layout : {GP_LAYOUT_COL_MAJOR, GP_LAYOUT_ROW_MAJOR}) {
        Buf o;
        EXPECT_EQ(gp_buffer_create(ctx, field, ext, n * blowup, cols, &o.b), GP_OK) << gp_last_error();
        lo.input_layout = layout;
        lo.output_order = layout == GP_LAYOUT_COL_MAJOR ? GP_ORDER_BIT_REVERSED : GP_ORDER_NATURAL;
        EXPECT_EQ(gp_lde_batch_host(ctx, field, ext, trace.data(), n, cols, &lo, o), GP_OK) << gp_last_error();
        Bytes d = download(o, GP_LAYOUT_ROW_MAJOR);
        put(out, d.data(), d.size());
        if (layout == GP_LAYOUT_COL_MAJOR) std::swap(host_lde.b, o.b);
    }
    EXPECT_EQ(gp_buffer_from_host(ctx, field, ext, n, cols, GP_LAYOUT_ROW_MAJOR, trace.data(), &in.b), GP_OK);
    {
        Bytes d = download(in, GP_LAYOUT_COL_MAJOR);
        put(out, d.data(), d.size());
    }
    gp_lde_options_init(&lo);
    lo.blowup = 2;
    lo.output_order = GP_ORDER_BIT_REVERSED;
    EXPECT_EQ(gp_buffer_create(ctx, field, ext, n * 2, cols, &buf_lde.b), GP_OK);
    EXPECT_EQ(gp_lde_batch(ctx, in, &lo, buf_lde), GP_OK) << gp_last_error();
    gp_ntt_options no;
    gp_ntt_options_init(&no);
    EXPECT_EQ(gp_ntt_batch(ctx, in, &no), GP_OK) << gp_last_error();
    for (gp_buffer *b : {buf_lde.b, in.b}) {
        Bytes d = download(b, GP_LAYOUT_COL_MAJOR);
        put(out, d.data(), d.size());
    }
    const Bytes t2 = random_elems(field, 2 * 3 * ext, 9);
    EXPECT_EQ(gp_buffer_from_host(ctx, field, ext, 2, 3, GP_LAYOUT_COL_MAJOR, t2.data(), &tiny.b), GP_OK);

    gp_merkle_options mo;
    gp_merkle_options_init(&mo);
    if (field != GP_FIELD_GOLDILOCKS)
        mo.perm = field == GP_FIELD_BABYBEAR ? GP_PERM_POSEIDON2_BABYBEAR_16 : GP_PERM_POSEIDON2_KOALABEAR_16;
    commit_and_open(ctx, {host_lde, buf_lde, in, tiny}, mo, out);
    mo.cap_height = 1;
    commit_and_open(ctx, {tiny, host_lde, in}, mo, out);
    gp_merkle_options_init(&mo);
    mo.kind = GP_MERKLE_KECCAK_PLONKY3;
    mo.perm = GP_PERM_KECCAK_F1600;
    commit_and_open(ctx, {host_lde, in, buf_lde}, mo, out);
    if (field == GP_FIELD_GOLDILOCKS) {
        gp_merkle_options_init(&mo);
        mo.kind = GP_MERKLE_MIDEN;
        mo.perm = GP_PERM_RPO256;
        mo.cap_height = 2;
        commit_and_open(ctx, {host_lde}, mo, out);
        Bytes digests(n * blowup * 32);
        const gp_buffer *one[] = {host_lde};
        EXPECT_EQ(gp_merkle_hash_rows(ctx, one, 1, &mo, digests.data(), digests.size()), GP_OK) << gp_last_error();
        put(out, digests.data(), digests.size());
    }
    return out;
}

gp_status challenge(void *user, uint32_t layer, const void *cap, uint64_t cap_size, void *beta, uint64_t beta_size) {
    (void)user;
    std::memset(beta, 0, beta_size);
    uint64_t v = 0x1234567 + layer;
    for (uint64_t i = 0; i < cap_size; ++i) v = v * 131 + static_cast<const uint8_t *>(cap)[i];
    for (uint64_t i = 0; i + 8 <= beta_size && i < 8; i += 8) {
        uint64_t w = v % 0xffffffff00000001ull;
        std::memcpy(static_cast<char *>(beta) + i, &w, 8);
    }
    return GP_OK;
}

// FRI at every arity over a Goldilocks ext-2 codeword, then OOD and DEEP
// over spread columns, then both constraint commitments.
Bytes fri_deep_constraint(gp_backend backend, const std::vector<int32_t> &devs) {
    Ctx ctx(backend, devs);
    Bytes out;
    const gp_field field = GP_FIELD_GOLDILOCKS;
    const uint64_t m = 1 << 12;
    Buf cw;
    const Bytes cwd = random_elems(field, m * 2, 11);
    EXPECT_EQ(gp_buffer_from_host(ctx, field, 2, m, 1, GP_LAYOUT_COL_MAJOR, cwd.data(), &cw.b), GP_OK);
    for (uint32_t arity : {2u, 4u, 8u}) {
        gp_fri_options fo;
        gp_fri_options_init(&fo);
        fo.arity = arity;
        fo.final_size = arity == 4 ? 16 : 8;
        gp_fri *f = nullptr;
        EXPECT_EQ(gp_fri_commit(ctx, cw, &fo, challenge, nullptr, &f), GP_OK) << gp_last_error();
        if (!f) continue;
        Bytes rem(gp_fri_remainder_size(f));
        EXPECT_EQ(gp_fri_remainder(f, rem.data(), rem.size()), GP_OK);
        put(out, rem.data(), rem.size());
        const std::vector<uint64_t> idx = {0, 5, m - 1, m / 2};
        Bytes op(gp_fri_opening_size(f) * idx.size());
        EXPECT_EQ(gp_fri_open(f, idx.data(), idx.size(), op.data(), op.size()), GP_OK) << gp_last_error();
        put(out, op.data(), op.size());
        gp_fri_destroy(f);
    }

    {  // Triton VM's FRI: its cubic, one value per leaf, rows as digests.
        Buf cw3;
        const Bytes c3 = random_elems(field, m * 3, 18);
        EXPECT_EQ(gp_buffer_from_host(ctx, field, 3, m, 1, GP_LAYOUT_COL_MAJOR, c3.data(), &cw3.b), GP_OK);
        gp_fri_options fo;
        gp_fri_options_init(&fo);
        fo.final_size = 8;
        fo.order = GP_ORDER_NATURAL;
        fo.shift = 7;
        fo.extension = GP_EXT_TRITON;
        fo.leaf = GP_FRI_LEAF_ELEMENT;
        fo.merkle.kind = GP_MERKLE_TRITON_DIGEST;
        fo.merkle.perm = GP_PERM_TIP5;
        gp_fri *f = nullptr;
        EXPECT_EQ(gp_fri_commit(ctx, cw3, &fo, challenge, nullptr, &f), GP_OK) << gp_last_error();
        if (f) {
            Bytes rem(gp_fri_remainder_size(f));
            EXPECT_EQ(gp_fri_remainder(f, rem.data(), rem.size()), GP_OK);
            put(out, rem.data(), rem.size());
            const std::vector<uint64_t> idx = {3, m - 2};
            Bytes op(gp_fri_opening_size(f) * idx.size());
            EXPECT_EQ(gp_fri_open(f, idx.data(), idx.size(), op.data(), op.size()), GP_OK) << gp_last_error();
            put(out, op.data(), op.size());
            gp_fri_destroy(f);
        }
    }

    // Columns: a 5-column base LDE (spread) and a 3-column ext-2 LDE.
    const uint64_t n = 1 << 8;
    Buf base, ext2;
    gp_lde_options lo;
    gp_lde_options_init(&lo);
    lo.blowup = 4;
    EXPECT_EQ(gp_buffer_create(ctx, field, 1, n * 4, 5, &base.b), GP_OK);
    EXPECT_EQ(gp_buffer_create(ctx, field, 2, n * 4, 3, &ext2.b), GP_OK);
    const Bytes t1 = random_elems(field, n * 5, 12), t2 = random_elems(field, n * 3 * 2, 13);
    EXPECT_EQ(gp_lde_batch_host(ctx, field, 1, t1.data(), n, 5, &lo, base), GP_OK) << gp_last_error();
    EXPECT_EQ(gp_lde_batch_host(ctx, field, 2, t2.data(), n, 3, &lo, ext2), GP_OK) << gp_last_error();
    gp_ood_options oo;
    gp_ood_options_init(&oo);
    oo.degree_bound = n;
    oo.challenge_degree = 2;
    const gp_buffer *cols[] = {base, ext2};
    const Bytes z = random_elems(field, 2 * 2, 14);
    Bytes vals(2 * 8 * 2 * 8);  // 2 points x 8 columns x E words
    EXPECT_EQ(gp_evaluate_ood(ctx, cols, 2, &oo, z.data(), 2, vals.data(), vals.size()), GP_OK) << gp_last_error();
    put(out, vals.data(), vals.size());
    {  // The base columns at points of Triton VM's cubic.
        gp_ood_options to = oo;
        to.challenge_degree = 3;
        to.extension = GP_EXT_TRITON;
        const Bytes z3 = random_elems(field, 2 * 3, 19);
        Bytes v3(2 * 5 * 3 * 8);
        EXPECT_EQ(gp_evaluate_ood(ctx, cols, 1, &to, z3.data(), 2, v3.data(), v3.size()), GP_OK) << gp_last_error();
        put(out, v3.data(), v3.size());
    }
    const Bytes alphas = random_elems(field, 2 * 8 * 2, 15);
    Buf q;
    EXPECT_EQ(gp_buffer_create(ctx, field, 2, n * 4, 1, &q.b), GP_OK);
    EXPECT_EQ(gp_deep_composition(ctx, cols, 2, &oo, z.data(), 2, vals.data(), alphas.data(), q), GP_OK)
        << gp_last_error();
    {
        Bytes d = download(q, GP_LAYOUT_COL_MAJOR);
        put(out, d.data(), d.size());
    }

    for (gp_composition_split split : {GP_COMPOSITION_PLONKY3, GP_COMPOSITION_WINTERFELL, GP_COMPOSITION_TRITON}) {
        gp_constraint_options co;
        gp_constraint_options_init(&co);
        co.split = split;
        co.segments = 4;
        co.blowup = 2;
        Buf ev, seg;
        const Bytes e = random_elems(field, m * 2, 16);
        EXPECT_EQ(gp_buffer_from_host(ctx, field, 2, m, 1, GP_LAYOUT_COL_MAJOR, e.data(), &ev.b), GP_OK);
        Tree t;
        EXPECT_EQ(gp_constraint_commit(ctx, ev, &co, &seg.b, &t.t), GP_OK) << gp_last_error();
        if (!t.t) continue;
        Bytes root(gp_merkle_digest_size(t.t));
        EXPECT_EQ(gp_merkle_root(t.t, root.data(), root.size()), GP_OK);
        put(out, root.data(), root.size());
        Bytes d = download(seg, GP_LAYOUT_ROW_MAJOR);
        put(out, d.data(), d.size());
    }

    // Permutations split over the devices.
    uint32_t width = 0;
    gp_permutation_info(GP_PERM_POSEIDON2_GOLDILOCKS_12, &width, nullptr);
    Bytes states = random_elems(field, 20000ull * width, 17);
    EXPECT_EQ(gp_permute_batch(ctx, GP_PERM_POSEIDON2_GOLDILOCKS_12, states.data(), 20000), GP_OK)
        << gp_last_error();
    put(out, states.data(), states.size());
    return out;
}

const std::vector<std::vector<int32_t>> kEmulated = {{0}, {0, 0}, {0, 0, 0}, {0, 0, 0, 0}};

TEST(Multi, DeviceCountAndInfo) {
    for (const auto &devs : kEmulated) {
        Ctx ctx(GP_BACKEND_CPU, devs);
        ASSERT_EQ(gp_context_device_count(ctx), devs.size());
        Buf b;
        ASSERT_EQ(gp_buffer_create(ctx, GP_FIELD_GOLDILOCKS, 1, 1024, 10, &b.b), GP_OK);
        uint64_t held = 0;
        for (uint32_t i = 0; i < devs.size(); ++i) {
            gp_device_info info;
            info.struct_size = sizeof info;
            ASSERT_EQ(gp_context_device_info(ctx, i, &info), GP_OK) << gp_last_error();
            EXPECT_EQ(info.ordinal, -1);
            EXPECT_NE(std::string(info.name).find("CPU"), std::string::npos) << info.name;
            // Columns in blocks: 10 over n devices, the first 10 % n one longer.
            const uint64_t cols = 10 / devs.size() + (i < 10 % devs.size() ? 1 : 0);
            EXPECT_EQ(info.buffer_bytes, cols * 1024 * 8) << "device " << i;
            held += info.buffer_bytes;
        }
        EXPECT_EQ(held, 1024 * 10 * 8u);
        gp_device_info info;
        info.struct_size = sizeof info;
        EXPECT_GP_ERR(gp_context_device_info(ctx, (uint32_t)devs.size(), &info), GP_ERR_INVALID_ARGUMENT);
        EXPECT_GP_ERR(gp_context_device_info(ctx, 0, nullptr), GP_ERR_NULL_POINTER);
        char name[256];
        ASSERT_EQ(gp_context_device_name(ctx, name, sizeof name), GP_OK);
        if (devs.size() > 1) EXPECT_EQ(std::string(name).rfind(std::to_string(devs.size()) + " devices: ", 0), 0u) << name;
    }
    EXPECT_EQ(gp_context_device_count(nullptr), 0u);
}

TEST(Multi, AllDevicesOnCpuIsOneShare) {
    Ctx ctx(GP_BACKEND_CPU, {GP_DEVICES_ALL});
    EXPECT_EQ(gp_context_device_count(ctx), 1u);
}

TEST(Multi, TooManyDevicesIsRefused) {
    std::vector<int32_t> devs(65, 0);
    gp_context_options o;
    gp_context_options_init(&o);
    o.backend = GP_BACKEND_CPU;
    o.devices = devs.data();
    o.num_devices = (uint32_t)devs.size();
    gp_context *c = nullptr;
    EXPECT_GP_ERR(gp_context_create(&o, &c), GP_ERR_INVALID_ARGUMENT);
    EXPECT_EQ(c, nullptr);
}

TEST(Multi, EmulatedDevicesMatchOneDevice) {
    struct Case {
        gp_field field;
        uint32_t ext;
        uint64_t cols;
    };
    for (const Case &k : {Case{GP_FIELD_GOLDILOCKS, 1, 7}, Case{GP_FIELD_GOLDILOCKS, 2, 5},
                          Case{GP_FIELD_BABYBEAR, 4, 3}, Case{GP_FIELD_KOALABEAR, 1, 2}}) {
        SCOPED_TRACE("field " + std::to_string(k.field) + " ext " + std::to_string(k.ext) + " cols " +
                     std::to_string(k.cols));
        const Bytes one = lde_and_merkle(GP_BACKEND_CPU, {0}, k.field, k.ext, k.cols);
        ASSERT_FALSE(one.empty());
        for (size_t i = 1; i < kEmulated.size(); ++i) {
            SCOPED_TRACE(std::to_string(kEmulated[i].size()) + " devices");
            const Bytes many = lde_and_merkle(GP_BACKEND_CPU, kEmulated[i], k.field, k.ext, k.cols);
            ASSERT_EQ(many.size(), one.size());
            EXPECT_TRUE(many == one);
        }
    }
}

// Sets GP_MULTI_COPY_ROWS for the contexts made while it lives: their
// Merkle commitments copy peers' rows instead of reading them in place.
struct CopyRows {
    CopyRows() { setenv("GP_MULTI_COPY_ROWS", "1", 1); }
    ~CopyRows() { unsetenv("GP_MULTI_COPY_ROWS"); }
};

TEST(Multi, EmulatedDevicesCopyingRowsMatchOneDevice) {
    const Bytes one = lde_and_merkle(GP_BACKEND_CPU, {0}, GP_FIELD_GOLDILOCKS, 2, 5);
    CopyRows copy;
    for (size_t i = 1; i < kEmulated.size(); ++i) {
        SCOPED_TRACE(std::to_string(kEmulated[i].size()) + " devices");
        EXPECT_TRUE(lde_and_merkle(GP_BACKEND_CPU, kEmulated[i], GP_FIELD_GOLDILOCKS, 2, 5) == one);
    }
}

TEST(Multi, EmulatedFriDeepConstraintMatchOneDevice) {
    const Bytes one = fri_deep_constraint(GP_BACKEND_CPU, {0});
    ASSERT_FALSE(one.empty());
    for (size_t i = 1; i < kEmulated.size(); ++i) {
        SCOPED_TRACE(std::to_string(kEmulated[i].size()) + " devices");
        const Bytes many = fri_deep_constraint(GP_BACKEND_CPU, kEmulated[i]);
        ASSERT_EQ(many.size(), one.size());
        EXPECT_TRUE(many == one);
    }
}

// Randomized LDEs on emulated devices (each its columns' randomizers, added
// inside its LDE), from host and from a spread buffer, and gp_commit_host
// with randomizers: the bytes and the root of one device. More
// coefficients than the LDE adds itself are refused, naming the rule.
TEST(Multi, RandomizedLdeMatchesOneDevice) {
    const gp_field f = GP_FIELD_GOLDILOCKS;
    const uint64_t rows = 64, cols = 5, m = 9;
    for (uint32_t ext : {1u, 3u}) {
        SCOPED_TRACE("ext " + std::to_string(ext));
        const Bytes trace = random_elems(f, rows * cols * ext, 61 + ext), r = random_elems(f, m * cols * ext, 71);
        gp_lde_options lo;
        gp_lde_options_init(&lo);
        lo.blowup = 4;
        lo.shift = 7;
        lo.randomizers = r.data();
        lo.randomizer_count = m;
        gp_merkle_options mo;
        gp_merkle_options_init(&mo);
        mo.kind = GP_MERKLE_TRITON;
        mo.perm = GP_PERM_TIP5;
        // The LDE from host, from a buffer, and the streamed commitment's root.
        auto run = [&](const std::vector<int32_t> &devs) {
            Ctx ctx(GP_BACKEND_CPU, devs);
            Bytes out(rows * 4 * cols * ext * 8), again(out.size()), root(40);
            Buf o, in;
            EXPECT_GP_OK(gp_buffer_create(ctx, f, ext, rows * 4, cols, &o.b));
            EXPECT_GP_OK(gp_lde_batch_host(ctx, f, ext, trace.data(), rows, cols, &lo, o));
            EXPECT_GP_OK(gp_buffer_to_host(o, GP_LAYOUT_COL_MAJOR, out.data(), out.size()));
            EXPECT_GP_OK(gp_buffer_from_host(ctx, f, ext, rows, cols, GP_LAYOUT_COL_MAJOR, trace.data(), &in.b));
            EXPECT_GP_OK(gp_lde_batch(ctx, in, &lo, o));
            EXPECT_GP_OK(gp_buffer_to_host(o, GP_LAYOUT_COL_MAJOR, again.data(), again.size()));
            EXPECT_TRUE(again == out);
            gp_commit_matrix mat{};
            mat.data = trace.data();
            mat.rows = rows;
            mat.cols = cols;
            mat.ext_degree = ext;
            gp_commit_options co;
            gp_commit_options_init(&co);
            co.lde = &lo;
            co.merkle = &mo;
            co.keep = GP_KEEP_NONE;
            Tree t;
            EXPECT_GP_OK(gp_commit_host(ctx, f, &mat, 1, &co, nullptr, &t.t));
            if (t.t) EXPECT_GP_OK(gp_merkle_root(t.t, root.data(), root.size()));
            put(out, root.data(), root.size());
            return out;
        };
        const Bytes one = run({0});
        for (size_t i = 1; i < kEmulated.size(); ++i) {
            SCOPED_TRACE(std::to_string(kEmulated[i].size()) + " devices");
            EXPECT_TRUE(run(kEmulated[i]) == one);
        }
    }
    Ctx ctx(GP_BACKEND_CPU, {0, 0});
    const Bytes trace = random_elems(f, 8 * 2, 81), r = random_elems(f, 5 * 2, 82);
    gp_lde_options lo;
    gp_lde_options_init(&lo);
    lo.blowup = 2;
    lo.randomizers = r.data();
    lo.randomizer_count = 5;  // <= n (B - 1) = 8, but B m > n
    Buf o;
    ASSERT_GP_OK(gp_buffer_create(ctx, f, 1, 16, 2, &o.b));
    EXPECT_GP_ERR(gp_lde_batch_host(ctx, f, 1, trace.data(), 8, 2, &lo, o), GP_ERR_UNSUPPORTED);
    EXPECT_NE(std::string(gp_last_error()).find("several devices"), std::string::npos) << gp_last_error();
}

TEST(Multi, SpreadBuffersHaveNoSingleAddress) {
    Ctx ctx(GP_BACKEND_CPU, {0, 0});
    Buf spread, one_col;
    ASSERT_EQ(gp_buffer_create(ctx, GP_FIELD_GOLDILOCKS, 1, 64, 4, &spread.b), GP_OK);
    ASSERT_EQ(gp_buffer_create(ctx, GP_FIELD_GOLDILOCKS, 1, 64, 1, &one_col.b), GP_OK);
    void *p = nullptr;
    EXPECT_GP_ERR(gp_buffer_data(spread, &p), GP_ERR_UNSUPPORTED);
    EXPECT_EQ(p, nullptr);
    EXPECT_NE(std::string(gp_last_error()).find("spread over 2 devices"), std::string::npos) << gp_last_error();
    ASSERT_EQ(gp_buffer_data(one_col, &p), GP_OK);
    EXPECT_NE(p, nullptr);
    // Wrapped memory lives on the first device and mixes with spread buffers.
    std::vector<uint64_t> mine(64 * 4);
    for (size_t i = 0; i < mine.size(); ++i) mine[i] = i * 977;
    Buf wrapped, out1, out2;
    ASSERT_EQ(gp_buffer_wrap(ctx, GP_FIELD_GOLDILOCKS, 1, 64, 4, mine.data(), &wrapped.b), GP_OK) << gp_last_error();
    ASSERT_EQ(gp_buffer_create(ctx, GP_FIELD_GOLDILOCKS, 1, 128, 4, &out1.b), GP_OK);
    gp_lde_options lo;
    gp_lde_options_init(&lo);
    lo.blowup = 2;
    ASSERT_EQ(gp_lde_batch(ctx, wrapped, &lo, out1), GP_OK) << gp_last_error();
    Ctx single(GP_BACKEND_CPU, {0});
    Buf in1;
    ASSERT_EQ(gp_buffer_from_host(single, GP_FIELD_GOLDILOCKS, 1, 64, 4, GP_LAYOUT_COL_MAJOR, mine.data(), &in1.b),
              GP_OK);
    ASSERT_EQ(gp_buffer_create(single, GP_FIELD_GOLDILOCKS, 1, 128, 4, &out2.b), GP_OK);
    ASSERT_EQ(gp_lde_batch(single, in1, &lo, out2), GP_OK);
    EXPECT_TRUE(download(out1, GP_LAYOUT_COL_MAJOR) == download(out2, GP_LAYOUT_COL_MAJOR));
}

// Miden's LMCS pads each matrix's row as a whole: refused over spread
// columns. A matrix of width 0 beside a spread one commits as on one device.
TEST(Multi, LiftedTreesRefusedAndWidthZeroMatrices) {
    Ctx ctx(GP_BACKEND_CPU, {0, 0});
    Ctx single(GP_BACKEND_CPU, {0});
    const Bytes data = random_elems(GP_FIELD_GOLDILOCKS, 64 * 6, 21);
    Buf a, e, a1, e1;
    ASSERT_EQ(gp_buffer_from_host(ctx, GP_FIELD_GOLDILOCKS, 1, 64, 6, GP_LAYOUT_COL_MAJOR, data.data(), &a.b), GP_OK);
    ASSERT_EQ(gp_buffer_create(ctx, GP_FIELD_GOLDILOCKS, 1, 32, 0, &e.b), GP_OK) << gp_last_error();
    ASSERT_EQ(gp_buffer_from_host(single, GP_FIELD_GOLDILOCKS, 1, 64, 6, GP_LAYOUT_COL_MAJOR, data.data(), &a1.b),
              GP_OK);
    ASSERT_EQ(gp_buffer_create(single, GP_FIELD_GOLDILOCKS, 1, 32, 0, &e1.b), GP_OK);
    gp_merkle_options o;
    gp_merkle_options_init(&o);
    const gp_buffer *many[2] = {a, e}, *one[2] = {a1, e1};
    Tree t, t1;
    ASSERT_EQ(gp_merkle_commit(ctx, many, 2, &o, &t.t), GP_OK) << gp_last_error();
    ASSERT_EQ(gp_merkle_commit(single, one, 2, &o, &t1.t), GP_OK) << gp_last_error();
    Bytes r(32), r1(32);
    ASSERT_EQ(gp_merkle_root(t.t, r.data(), r.size()), GP_OK);
    ASSERT_EQ(gp_merkle_root(t1.t, r1.data(), r1.size()), GP_OK);
    EXPECT_TRUE(r == r1);
    o.kind = GP_MERKLE_MIDEN_LMCS;
    o.perm = GP_PERM_POSEIDON2_GOLDILOCKS_12;
    const gp_buffer *lifted[1] = {a};
    gp_merkle_tree *raw = nullptr;
    EXPECT_EQ(gp_merkle_commit(ctx, lifted, 1, &o, &raw), GP_ERR_UNSUPPORTED);
    EXPECT_EQ(raw, nullptr);
}

TEST(Multi, NonCanonicalInputNamesTheCallersIndex) {
    Ctx ctx(GP_BACKEND_CPU, {0, 0, 0});
    const uint64_t rows = 16, cols = 6;
    for (gp_layout layout : {GP_LAYOUT_COL_MAJOR, GP_LAYOUT_ROW_MAJOR}) {
        std::vector<uint64_t> host(rows * cols, 1);
        host[rows * cols - 3] = ~0ull;  // on the last device's block in either layout
        Buf b;
        EXPECT_GP_ERR(gp_buffer_from_host(ctx, GP_FIELD_GOLDILOCKS, 1, rows, cols, layout, host.data(), &b.b),
                      GP_ERR_NON_CANONICAL);
        EXPECT_NE(std::string(gp_last_error()).find("data[" + std::to_string(rows * cols - 3) + "]"),
                  std::string::npos)
            << gp_last_error();
        EXPECT_EQ(b.b, nullptr);
    }
}

TEST(Multi, FailedAllocationNamesTheDevice) {
    Ctx ctx(GP_BACKEND_CPU, {0, 0, 0});
    gp_memory_stats before;
    before.struct_size = sizeof before;
    ASSERT_EQ(gp_context_memory_stats(ctx, &before), GP_OK);
    // The third device allocation of the call fails: device 2's block.
    gp_testing_fail_allocation(1, 3);
    Buf b;
    EXPECT_GP_ERR(gp_buffer_create(ctx, GP_FIELD_GOLDILOCKS, 1, 256, 9, &b.b), GP_ERR_HOST_OUT_OF_MEMORY);
    gp_testing_fail_allocation(1, 0);
    EXPECT_NE(std::string(gp_last_error()).find("device 2"), std::string::npos) << gp_last_error();
    gp_memory_stats after;
    after.struct_size = sizeof after;
    ASSERT_EQ(gp_context_memory_stats(ctx, &after), GP_OK);
    EXPECT_EQ(after.buffer_bytes, before.buffer_bytes);
    for (uint32_t i = 0; i < 3; ++i) {
        gp_device_info info;
        info.struct_size = sizeof info;
        ASSERT_EQ(gp_context_device_info(ctx, i, &info), GP_OK);
        EXPECT_EQ(info.buffer_bytes, 0u) << "device " << i << " kept memory of the failed buffer";
    }
    ASSERT_EQ(gp_buffer_create(ctx, GP_FIELD_GOLDILOCKS, 1, 256, 9, &b.b), GP_OK) << gp_last_error();
}

// One GPU listed twice: the split and the peer copies on one card give the
// single device's bytes (skipped without a GPU).
TEST(MultiCuda, DeviceListedTwiceMatchesOneDevice) {
    if (!gpt::cuda_available()) GTEST_SKIP() << "no usable CUDA device";
    {
        Ctx twice(GP_BACKEND_CUDA, {0, 0});
        ASSERT_EQ(gp_context_device_count(twice), 2u);
    }
    for (uint64_t cols : {7ull, 2ull}) {
        const Bytes one = lde_and_merkle(GP_BACKEND_CUDA, {0}, GP_FIELD_GOLDILOCKS, 1, cols);
        EXPECT_TRUE(lde_and_merkle(GP_BACKEND_CUDA, {0, 0}, GP_FIELD_GOLDILOCKS, 1, cols) == one);
        EXPECT_TRUE(lde_and_merkle(GP_BACKEND_CUDA, {0, 0, 0}, GP_FIELD_GOLDILOCKS, 1, cols) == one);
        EXPECT_TRUE(lde_and_merkle(GP_BACKEND_CPU, {0, 0}, GP_FIELD_GOLDILOCKS, 1, cols) == one);
    }
    const Bytes b1 = lde_and_merkle(GP_BACKEND_CUDA, {0}, GP_FIELD_BABYBEAR, 4, 3);
    EXPECT_TRUE(lde_and_merkle(GP_BACKEND_CUDA, {0, 0}, GP_FIELD_BABYBEAR, 4, 3) == b1);
    {
        CopyRows copy;
        EXPECT_TRUE(lde_and_merkle(GP_BACKEND_CUDA, {0, 0}, GP_FIELD_BABYBEAR, 4, 3) == b1);
    }
    const Bytes f1 = fri_deep_constraint(GP_BACKEND_CUDA, {0});
    EXPECT_TRUE(fri_deep_constraint(GP_BACKEND_CUDA, {0, 0}) == f1);
    EXPECT_TRUE(fri_deep_constraint(GP_BACKEND_CPU, {0, 0, 0}) == f1);
}

// Every visible GPU (two or more only on a multi-GPU machine).
TEST(MultiCuda, AllVisibleDevicesMatchOneDevice) {
    if (!gpt::cuda_available()) GTEST_SKIP() << "no usable CUDA device";
    Ctx all(GP_BACKEND_CUDA, {GP_DEVICES_ALL});
    const uint32_t n = gp_context_device_count(all);
    ASSERT_GE(n, 1u);
    std::vector<int32_t> devs;
    for (uint32_t i = 0; i < n; ++i) devs.push_back((int32_t)i);
    const Bytes one = lde_and_merkle(GP_BACKEND_CUDA, {0}, GP_FIELD_KOALABEAR, 1, 9);
    EXPECT_TRUE(lde_and_merkle(GP_BACKEND_CUDA, devs, GP_FIELD_KOALABEAR, 1, 9) == one);
    EXPECT_TRUE(fri_deep_constraint(GP_BACKEND_CUDA, devs) == fri_deep_constraint(GP_BACKEND_CUDA, {0}));
    CopyRows copy;
    EXPECT_TRUE(lde_and_merkle(GP_BACKEND_CUDA, devs, GP_FIELD_KOALABEAR, 1, 9) == one);
}

}  // namespace
