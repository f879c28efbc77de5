// SPDX-License-Identifier: MIT OR Apache-2.0
// gp_commit_host: the one-call streamed commitment of host traces against
// the two-call path (gp_lde_batch_host into buffers, then gp_merkle_commit),
// which the LDE and Merkle suites pin to naive references and upstream
// known answers. Every profile, mixed heights, extension columns, caps,
// both input layouts, every keep mode with its openings, device budgets
// down to the least one (many batches, carried columns), and the faults.
#include <gtest/gtest.h>

#include <atomic>
#include <cstring>
#include <memory>
#include <string>
#include <vector>

#include "test_util.h"

using namespace gpt;

namespace {

struct Case {
    const char *name;
    gp_field field;
    gp_merkle_kind kind;
    gp_permutation perm;
    gp_permutation compress = (gp_permutation)0;
    bool one_height = false;  // the kind commits matrices of one height
};

const std::vector<Case> &cases() {
    static const std::vector<Case> v = {
        {"P2_GL8", GP_FIELD_GOLDILOCKS, GP_MERKLE_FIELD_SPONGE, GP_PERM_POSEIDON2_GOLDILOCKS_8},
        {"P2_GL12", GP_FIELD_GOLDILOCKS, GP_MERKLE_FIELD_SPONGE, GP_PERM_POSEIDON2_GOLDILOCKS_12},
        {"P2_GL12_to_8", GP_FIELD_GOLDILOCKS, GP_MERKLE_FIELD_SPONGE, GP_PERM_POSEIDON2_GOLDILOCKS_12,
         GP_PERM_POSEIDON2_GOLDILOCKS_8},
        {"P2_BB16", GP_FIELD_BABYBEAR, GP_MERKLE_FIELD_SPONGE, GP_PERM_POSEIDON2_BABYBEAR_16},
        {"P2_BB24_to_16", GP_FIELD_BABYBEAR, GP_MERKLE_FIELD_SPONGE, GP_PERM_POSEIDON2_BABYBEAR_24,
         GP_PERM_POSEIDON2_BABYBEAR_16},
        {"P2_KB16", GP_FIELD_KOALABEAR, GP_MERKLE_FIELD_SPONGE, GP_PERM_POSEIDON2_KOALABEAR_16},
        {"Poseidon_GL12", GP_FIELD_GOLDILOCKS, GP_MERKLE_FIELD_SPONGE, GP_PERM_POSEIDON_GOLDILOCKS_12},
        {"Miden_RPO", GP_FIELD_GOLDILOCKS, GP_MERKLE_MIDEN, GP_PERM_RPO256, (gp_permutation)0, true},
        {"Miden_RPX", GP_FIELD_GOLDILOCKS, GP_MERKLE_MIDEN, GP_PERM_RPX256, (gp_permutation)0, true},
        {"Miden_P2", GP_FIELD_GOLDILOCKS, GP_MERKLE_MIDEN, GP_PERM_POSEIDON2_GOLDILOCKS_12, (gp_permutation)0,
         true},
        {"Miden_v0_11", GP_FIELD_GOLDILOCKS, GP_MERKLE_MIDEN_V0_11, GP_PERM_RPO256, (gp_permutation)0, true},
        {"Miden_v0_10", GP_FIELD_GOLDILOCKS, GP_MERKLE_MIDEN_V0_10, GP_PERM_RPO256, (gp_permutation)0, true},
        {"Keccak_GL", GP_FIELD_GOLDILOCKS, GP_MERKLE_KECCAK_PLONKY3, GP_PERM_KECCAK_F1600},
        {"Keccak_BB", GP_FIELD_BABYBEAR, GP_MERKLE_KECCAK_PLONKY3, GP_PERM_KECCAK_F1600},
        {"KeccakBE_GL", GP_FIELD_GOLDILOCKS, GP_MERKLE_KECCAK_BE, GP_PERM_KECCAK_F1600, (gp_permutation)0, true},
        {"KeccakU64_GL", GP_FIELD_GOLDILOCKS, GP_MERKLE_KECCAK_U64, GP_PERM_KECCAK_F1600},
        {"KeccakU64_KB", GP_FIELD_KOALABEAR, GP_MERKLE_KECCAK_U64, GP_PERM_KECCAK_F1600},
        {"Triton_Tip5", GP_FIELD_GOLDILOCKS, GP_MERKLE_TRITON, GP_PERM_TIP5, (gp_permutation)0, true},
        {"Winterfell_Sha3", GP_FIELD_GOLDILOCKS, GP_MERKLE_WINTERFELL, GP_PERM_SHA3_256, (gp_permutation)0, true},
        {"Winterfell_Blake3_256", GP_FIELD_GOLDILOCKS, GP_MERKLE_WINTERFELL, GP_PERM_BLAKE3, (gp_permutation)0, true},
        {"Winterfell_Blake3_192", GP_FIELD_GOLDILOCKS, GP_MERKLE_WINTERFELL, GP_PERM_BLAKE3_192, (gp_permutation)0,
         true},
        {"Winterfell_Rp64", GP_FIELD_GOLDILOCKS, GP_MERKLE_WINTERFELL, GP_PERM_RP64_256, (gp_permutation)0, true},
    };
    return v;
}

gp_merkle_options merkle_opts(const Case &c, uint32_t cap_height) {
    gp_merkle_options o;
    gp_merkle_options_init(&o);
    o.kind = c.kind;
    o.perm = c.perm;
    o.compress_perm = c.compress;
    o.cap_height = cap_height;
    return o;
}

// The trace shapes of a case: several matrices, extension columns, mixed
// heights where the kind injects shorter matrices.
std::vector<MatSpec> shapes_for(const Case &c) {
    const uint32_t ext = c.field == GP_FIELD_GOLDILOCKS ? 2 : 4;
    if (c.one_height) return {{16, 7, 1}, {16, 3, ext}, {16, 1, 1}};
    return {{16, 7, 1}, {8, 3, ext}, {16, 2, ext}, {4, 5, 1}};
}

// A flat host copy of a matrix in the field's element width.
ApiData host_data(const FieldRef &F, const HostMat &m, gp_layout layout) {
    return ApiData(to_layout(m, layout), F.elem_size);
}

// What the two-call path gives: its LDE buffers (downloaded, column-major
// flat), root, cap and openings.
struct Commitment {
    std::vector<std::vector<uint64_t>> lde;  // per matrix, column-major base values
    Bytes root, cap, rows, paths;
};

const std::vector<uint64_t> kIndices = {0, 1, 5, 31, 17, 63};

// Root, cap and openings (at the indices that fit) of a tree.
void read_tree(const gp_merkle_tree *t, Commitment &out) {
    out.root.assign(gp_merkle_digest_size(t), 0);
    ASSERT_EQ(gp_merkle_root(t, out.root.data(), out.root.size()), GP_OK) << gp_last_error();
    out.cap.assign(gp_merkle_cap_size(t), 0);
    ASSERT_EQ(gp_merkle_cap(t, out.cap.data(), out.cap.size()), GP_OK) << gp_last_error();
    uint64_t rb = 0, pb = 0;
    ASSERT_EQ(gp_merkle_opening_size(t, &rb, &pb), GP_OK) << gp_last_error();
    std::vector<uint64_t> idx;
    for (uint64_t i : kIndices)
        if (i < 32) idx.push_back(i);  // every tree here has 32 or 64 leaves
    out.rows.assign(idx.size() * rb, 0);
    out.paths.assign(idx.size() * pb, 0);
    ASSERT_EQ(gp_merkle_open(t, idx.data(), idx.size(), out.rows.data(), out.rows.size(), out.paths.data(),
                             out.paths.size()),
              GP_OK)
        << gp_last_error();
}

std::vector<uint64_t> flat_values(const FieldRef &F, const gp_buffer *b) {
    HostMat m;
    EXPECT_EQ(download(b, F, GP_LAYOUT_COL_MAJOR, &m), GP_OK) << gp_last_error();
    return m.v;
}

Commitment two_calls(gp_context *ctx, const FieldRef &F, const std::vector<HostMat> &mats,
                     const gp_lde_options &lo, const gp_merkle_options &mo) {
    Commitment out;
    std::vector<BufPtr> bufs;
    std::vector<const gp_buffer *> raw;
    for (const HostMat &m : mats) {
        BufPtr b;
        EXPECT_EQ(create_buffer(ctx, F, m.d, m.rows * lo.blowup, m.cols, &b), GP_OK) << gp_last_error();
        ApiData data = host_data(F, m, lo.input_layout);
        EXPECT_EQ(gp_lde_batch_host(ctx, F.field, m.d, data.data(), m.rows, m.cols, &lo, b.get()), GP_OK)
            << gp_last_error();
        out.lde.push_back(flat_values(F, b.get()));
        raw.push_back(b.get());
        bufs.push_back(std::move(b));
    }
    gp_merkle_tree *t = nullptr;
    EXPECT_EQ(gp_merkle_commit(ctx, raw.data(), (uint32_t)raw.size(), &mo, &t), GP_OK) << gp_last_error();
    TreePtr tree(t);
    if (t) read_tree(t, out);
    return out;
}

// Page-locked host memory of a context (gp_host_alloc), freed on scope exit.
struct PinnedCopy {
    gp_context *ctx;
    void *p = nullptr;
    PinnedCopy(gp_context *c, const ApiData &from) : ctx(c) {
        EXPECT_EQ(gp_host_alloc(ctx, from.size_bytes() ? from.size_bytes() : 1, &p), GP_OK) << gp_last_error();
        if (p && from.size_bytes()) std::memcpy(p, from.data(), from.size_bytes());
    }
    ~PinnedCopy() { gp_host_free(ctx, p); }
};

// Where the trace and the GP_KEEP_HOST destination live.
enum class HostMem { Pageable, Pinned, PinnedLdeOnly };

// gp_commit_host with `keep` and `budget`; the LDE it kept, as values.
// `into`: GP_KEEP_DEVICE into these buffers (options->lde_into).
gp_status one_call(gp_context *ctx, const FieldRef &F, const std::vector<HostMat> &mats, const gp_lde_options &lo,
                   const gp_merkle_options &mo, gp_keep keep, uint64_t budget, Commitment *out,
                   HostMem mem = HostMem::Pageable, const std::vector<gp_buffer *> *into = nullptr) {
    std::vector<ApiData> data;
    std::vector<ApiData> lde_host;
    std::vector<gp_commit_matrix> cm;
    std::vector<std::unique_ptr<PinnedCopy>> pinned_in, pinned_out;
    for (const HostMat &m : mats) data.push_back(host_data(F, m, lo.input_layout));
    for (size_t i = 0; i < mats.size(); ++i) {
        gp_commit_matrix x{};
        x.data = data[i].data();
        if (mem == HostMem::Pinned) {
            pinned_in.push_back(std::make_unique<PinnedCopy>(ctx, data[i]));
            x.data = pinned_in.back()->p;
        }
        x.rows = mats[i].rows;
        x.cols = mats[i].cols;
        x.ext_degree = mats[i].d;
        lde_host.push_back(ApiData::zeros(keep == GP_KEEP_HOST ? mats[i].v.size() * lo.blowup : 0, F.elem_size));
        cm.push_back(x);
    }
    for (size_t i = 0; i < mats.size(); ++i)
        if (keep == GP_KEEP_HOST) {
            cm[i].lde_host = lde_host[i].data();
            cm[i].lde_host_bytes = lde_host[i].size_bytes();
            if (mem != HostMem::Pageable) {
                pinned_out.push_back(std::make_unique<PinnedCopy>(ctx, lde_host[i]));
                cm[i].lde_host = pinned_out.back()->p;
            }
        }
    gp_commit_options co;
    gp_commit_options_init(&co);
    co.lde = &lo;
    co.merkle = &mo;
    co.keep = keep;
    co.device_budget = budget;
    if (into) co.lde_into = into->data();
    std::vector<gp_buffer *> kept(mats.size(), nullptr);
    gp_merkle_tree *t = nullptr;
    gp_status st = gp_commit_host(ctx, F.field, cm.data(), (uint32_t)cm.size(), &co,
                                  keep == GP_KEEP_DEVICE && !into ? kept.data() : nullptr, &t);
    if (st != GP_OK) return st;
    TreePtr tree(t);
    if (into) kept = *into;
    std::vector<BufPtr> owned;
    if (!into)
        for (gp_buffer *b : kept) owned.emplace_back(b);
    for (size_t i = 0; i < pinned_out.size(); ++i)
        std::memcpy(lde_host[i].data(), pinned_out[i]->p, lde_host[i].size_bytes());
    read_tree(t, *out);
    out->lde.clear();
    for (size_t i = 0; i < mats.size(); ++i) {
        if (keep == GP_KEEP_DEVICE) out->lde.push_back(flat_values(F, kept[i]));
        if (keep == GP_KEEP_HOST) out->lde.push_back(lde_host[i].values());
    }
    return st;
}

// The least budget, read from the message of a budget of one byte.
uint64_t least_budget(gp_context *ctx, const FieldRef &F, const std::vector<HostMat> &mats,
                      const gp_lde_options &lo, const gp_merkle_options &mo, gp_keep keep) {
    Commitment got;
    EXPECT_EQ(one_call(ctx, F, mats, lo, mo, keep, 1, &got), GP_ERR_INVALID_ARGUMENT);
    const std::string msg = gp_last_error();
    const size_t at = msg.find("below the minimum ");
    EXPECT_NE(at, std::string::npos) << msg;
    if (at == std::string::npos) return 0;
    return std::stoull(msg.substr(at + 18));
}

void expect_same(const Commitment &got, const Commitment &want, bool lde) {
    EXPECT_TRUE(bytes_equal(got.root, want.root, 1));
    EXPECT_TRUE(bytes_equal(got.cap, want.cap, 1));
    EXPECT_TRUE(bytes_equal(got.rows, want.rows, 1));
    EXPECT_TRUE(bytes_equal(got.paths, want.paths, 1));
    if (lde) EXPECT_EQ(got.lde, want.lde);
}

class CommitHost : public BackendTest {};

// Every profile, every keep mode, budgets from unlimited to the least one.
TEST_P(CommitHost, MatchesTwoCallsEveryProfile) {
    for (const Case &c : cases()) {
        SCOPED_TRACE(c.name);
        const FieldRef &F = field_ref(c.field);
        const std::vector<MatSpec> specs = shapes_for(c);
        const std::vector<HostMat> mats = make_mats(c.field, specs, 0xc0ffee + c.kind * 31 + c.perm);
        const gp_lde_options lo = make_opts(0, 2, 0, 0, GP_ORDER_BIT_REVERSED);
        const gp_merkle_options mo = merkle_opts(c, 1);
        const Commitment want = two_calls(ctx(), F, mats, lo, mo);
        for (gp_keep keep : {GP_KEEP_DEVICE, GP_KEEP_HOST, GP_KEEP_NONE}) {
            SCOPED_TRACE(keep);
            const uint64_t least = least_budget(ctx(), F, mats, lo, mo, keep);
            for (uint64_t budget : {(uint64_t)0, least, least + 4096}) {
                SCOPED_TRACE(budget);
                Commitment got;
                ASSERT_EQ(one_call(ctx(), F, mats, lo, mo, keep, budget, &got), GP_OK) << gp_last_error();
                expect_same(got, want, keep != GP_KEEP_NONE);
            }
        }
    }
}

// Row-major input, natural order, a shift and an input shift, blowup 4,
// cap 2, and one column per matrix.
TEST_P(CommitHost, LayoutsOrdersAndShifts) {
    const FieldRef &F = field_ref(GP_FIELD_GOLDILOCKS);
    const Case c = cases()[1];
    for (gp_layout layout : {GP_LAYOUT_COL_MAJOR, GP_LAYOUT_ROW_MAJOR})
        for (gp_order order : {GP_ORDER_NATURAL, GP_ORDER_BIT_REVERSED}) {
            SCOPED_TRACE(std::to_string(layout) + "/" + std::to_string(order));
            const std::vector<HostMat> mats = make_mats(GP_FIELD_GOLDILOCKS, {{16, 9, 1}, {8, 1, 3}, {16, 4, 2}}, 7);
            const gp_lde_options lo = make_opts(0, 4, 11, 5, order, layout);
            const gp_merkle_options mo = merkle_opts(c, 2);
            const Commitment want = two_calls(ctx(), F, mats, lo, mo);
            for (gp_keep keep : {GP_KEEP_DEVICE, GP_KEEP_HOST, GP_KEEP_NONE}) {
                const uint64_t least = least_budget(ctx(), F, mats, lo, mo, keep);
                Commitment got;
                ASSERT_EQ(one_call(ctx(), F, mats, lo, mo, keep, least, &got), GP_OK) << gp_last_error();
                expect_same(got, want, keep != GP_KEEP_NONE);
            }
        }
}

// A budget below the least working set names the minimum; the least one
// works; lde_host too small, bad keep values and stray arguments are refused.
TEST_P(CommitHost, BadInput) {
    const FieldRef &F = field_ref(GP_FIELD_GOLDILOCKS);
    const std::vector<HostMat> mats = make_mats(GP_FIELD_GOLDILOCKS, {{16, 20, 1}}, 3);
    const gp_lde_options lo = make_opts(0, 2, 0, 0, GP_ORDER_BIT_REVERSED);
    const gp_merkle_options mo = merkle_opts(cases()[0], 0);
    const uint64_t least = least_budget(ctx(), F, mats, lo, mo, GP_KEEP_NONE);
    ASSERT_GT(least, 0u);
    Commitment got;
    EXPECT_EQ(one_call(ctx(), F, mats, lo, mo, GP_KEEP_NONE, least - 1, &got), GP_ERR_INVALID_ARGUMENT);
    EXPECT_NE(std::string(gp_last_error()).find("minimum " + std::to_string(least) + " bytes"), std::string::npos)
        << gp_last_error();

    ApiData data = host_data(F, mats[0], GP_LAYOUT_COL_MAJOR);
    ApiData small = ApiData::zeros(mats[0].v.size() * 2 - 1, F.elem_size);
    gp_commit_matrix m{};
    m.data = data.data();
    m.rows = 16;
    m.cols = 20;
    m.ext_degree = 1;
    m.lde_host = small.data();
    m.lde_host_bytes = small.size_bytes();
    gp_commit_options co;
    gp_commit_options_init(&co);
    co.lde = &lo;
    co.merkle = &mo;
    co.keep = GP_KEEP_HOST;
    gp_merkle_tree *t = nullptr;
    EXPECT_EQ(gp_commit_host(ctx(), F.field, &m, 1, &co, nullptr, &t), GP_ERR_INVALID_ARGUMENT);
    EXPECT_NE(std::string(gp_last_error()).find("matrices[0].lde_host_bytes"), std::string::npos)
        << gp_last_error();
    EXPECT_EQ(t, nullptr);
    m.lde_host = nullptr;
    EXPECT_EQ(gp_commit_host(ctx(), F.field, &m, 1, &co, nullptr, &t), GP_ERR_NULL_POINTER);
    m.lde_host_bytes = 0;
    co.keep = GP_KEEP_NONE;
    gp_buffer *outs[1] = {nullptr};
    EXPECT_EQ(gp_commit_host(ctx(), F.field, &m, 1, &co, outs, &t), GP_ERR_INVALID_ARGUMENT);
    store_raw(&co.keep, 7);
    EXPECT_EQ(gp_commit_host(ctx(), F.field, &m, 1, &co, nullptr, &t), GP_ERR_INVALID_ARGUMENT);
    co.keep = GP_KEEP_DEVICE;
    EXPECT_EQ(gp_commit_host(ctx(), F.field, &m, 1, &co, nullptr, &t), GP_ERR_NULL_POINTER);
    EXPECT_EQ(gp_commit_host(ctx(), F.field, &m, 0, &co, outs, &t), GP_ERR_INVALID_ARGUMENT);
    gp_lde_options padded = lo;
    padded.n = 32;
    co.lde = &padded;
    EXPECT_EQ(gp_commit_host(ctx(), F.field, &m, 1, &co, outs, &t), GP_ERR_UNSUPPORTED);
    co.lde = &lo;
    m.rows = 12;
    EXPECT_EQ(gp_commit_host(ctx(), F.field, &m, 1, &co, outs, &t), GP_ERR_INVALID_ARGUMENT);
    EXPECT_NE(std::string(gp_last_error()).find("matrices[0]"), std::string::npos) << gp_last_error();
    m.rows = 16;
    data.set(5, F.p);  // not canonical
    EXPECT_EQ(gp_commit_host(ctx(), F.field, &m, 1, &co, outs, &t), GP_ERR_NON_CANONICAL);
    EXPECT_EQ(t, nullptr);
    EXPECT_EQ(outs[0], nullptr);
    EXPECT_EQ(stats_of(ctx()).buffer_bytes, 0u);
}

// Pinned and pageable traces and LDE destinations over many batches (the
// CUDA backend queues a batch's download while its columns are hashed, by
// a direct copy into pinned memory or staged into pageable memory).
// winterfell's trees over rows of several sponge blocks and BLAKE3 chunks
// (302 elements: 3 chunks), absorbed over many column batches at the least
// budget; BLAKE3's streamed state refuses rows past its bound.
TEST_P(CommitHost, WinterfellWideRowsInBatches) {
    const FieldRef &F = field_ref(GP_FIELD_GOLDILOCKS);
    const std::vector<HostMat> mats = make_mats(GP_FIELD_GOLDILOCKS, {{16, 296, 1}, {16, 2, 3}}, 0x3f);
    const gp_lde_options lo = make_opts(0, 2, 0, 0, GP_ORDER_NATURAL);
    for (const Case &c : cases()) {
        if (c.kind != GP_MERKLE_WINTERFELL) continue;
        SCOPED_TRACE(c.name);
        const gp_merkle_options mo = merkle_opts(c, 2);
        const Commitment want = two_calls(ctx(), F, mats, lo, mo);
        for (gp_keep keep : {GP_KEEP_DEVICE, GP_KEEP_HOST, GP_KEEP_NONE}) {
            SCOPED_TRACE(keep);
            const uint64_t least = least_budget(ctx(), F, mats, lo, mo, keep);
            Commitment got;
            ASSERT_EQ(one_call(ctx(), F, mats, lo, mo, keep, least, &got), GP_OK) << gp_last_error();
            expect_same(got, want, keep != GP_KEEP_NONE);
        }
    }
    const std::vector<HostMat> wide = make_mats(GP_FIELD_GOLDILOCKS, {{2, 131073, 1}}, 9);
    for (gp_permutation perm : {GP_PERM_BLAKE3, GP_PERM_BLAKE3_192}) {
        Case c = cases()[0];
        c.kind = GP_MERKLE_WINTERFELL;
        c.perm = perm;
        Commitment got;
        EXPECT_EQ(one_call(ctx(), F, wide, lo, merkle_opts(c, 0), GP_KEEP_NONE, 0, &got), GP_ERR_UNSUPPORTED);
        EXPECT_NE(std::string(gp_last_error()).find("at most 131072"), std::string::npos) << gp_last_error();
    }
}

TEST_P(CommitHost, PinnedAndPageableHostMemory) {
    const FieldRef &F = field_ref(GP_FIELD_GOLDILOCKS);
    const Case c = cases()[1];
    const std::vector<HostMat> mats =
        make_mats(GP_FIELD_GOLDILOCKS, {{1024, 37, 1}, {1024, 3, 2}, {512, 11, 1}, {1024, 5, 1}}, 9);
    const gp_lde_options lo = make_opts(0, 4, 0, 0, GP_ORDER_BIT_REVERSED);
    const gp_merkle_options mo = merkle_opts(c, 1);
    const Commitment want = two_calls(ctx(), F, mats, lo, mo);
    for (gp_keep keep : {GP_KEEP_HOST, GP_KEEP_NONE, GP_KEEP_DEVICE}) {
        const uint64_t least = least_budget(ctx(), F, mats, lo, mo, keep);
        for (HostMem mem : {HostMem::Pageable, HostMem::Pinned, HostMem::PinnedLdeOnly})
            for (uint64_t budget : {least, least + 20 * 4096 * 8, (uint64_t)0}) {
                SCOPED_TRACE(std::to_string(keep) + "/" + std::to_string((int)mem) + "/" + std::to_string(budget));
                Commitment got;
                ASSERT_EQ(one_call(ctx(), F, mats, lo, mo, keep, budget, &got, mem), GP_OK) << gp_last_error();
                expect_same(got, want, keep != GP_KEEP_NONE);
            }
    }
}

// GP_KEEP_DEVICE into the caller's buffers (options->lde_into): the same
// tree and LDE, the buffers stay the caller's (reused by a second call),
// are not counted in the budget, and bad ones are refused.
TEST_P(CommitHost, LdeIntoCallerBuffers) {
    const FieldRef &F = field_ref(GP_FIELD_BABYBEAR);
    const Case c = cases()[3];
    const std::vector<MatSpec> specs = {{16, 7, 1}, {8, 3, 4}, {16, 2, 4}};
    const gp_lde_options lo = make_opts(0, 4, 0, 0, GP_ORDER_BIT_REVERSED);
    const gp_merkle_options mo = merkle_opts(c, 1);
    std::vector<BufPtr> owned;
    std::vector<gp_buffer *> into;
    for (const MatSpec &m : specs) {
        BufPtr b;
        ASSERT_EQ(create_buffer(ctx(), F, m.d, m.rows * 4, m.cols, &b), GP_OK) << gp_last_error();
        into.push_back(b.get());
        owned.push_back(std::move(b));
    }
    const uint64_t least_new =
        least_budget(ctx(), F, make_mats(GP_FIELD_BABYBEAR, specs, 1), lo, mo, GP_KEEP_DEVICE);
    const uint64_t lde_bytes = (16 * 7 + 8 * 3 * 4 + 16 * 2 * 4) * 4 * 4;  // blowup 4, 4-byte elements
    for (uint64_t seed : {11, 12}) {  // the second call reuses the buffers
        const std::vector<HostMat> mats = make_mats(GP_FIELD_BABYBEAR, specs, seed);
        const Commitment want = two_calls(ctx(), F, mats, lo, mo);
        Commitment got;
        ASSERT_EQ(one_call(ctx(), F, mats, lo, mo, GP_KEEP_DEVICE, 0, &got, HostMem::Pageable, &into), GP_OK)
            << gp_last_error();
        expect_same(got, want, true);
        // The least budget leaves the caller's buffers out.
        Commitment least_got;
        ASSERT_EQ(one_call(ctx(), F, mats, lo, mo, GP_KEEP_DEVICE, least_new - lde_bytes, &least_got,
                           HostMem::Pageable, &into),
                  GP_OK)
            << gp_last_error();
        expect_same(least_got, want, true);
        EXPECT_EQ(one_call(ctx(), F, mats, lo, mo, GP_KEEP_DEVICE, least_new - lde_bytes - 1, &least_got,
                           HostMem::Pageable, &into),
                  GP_ERR_INVALID_ARGUMENT);
    }
    EXPECT_EQ(stats_of(ctx()).buffer_bytes, lde_bytes);  // still the caller's, nothing else left

    const std::vector<HostMat> mats = make_mats(GP_FIELD_BABYBEAR, specs, 13);
    ApiData d0 = host_data(F, mats[0], GP_LAYOUT_COL_MAJOR), d1 = host_data(F, mats[1], GP_LAYOUT_COL_MAJOR),
            d2 = host_data(F, mats[2], GP_LAYOUT_COL_MAJOR);
    gp_commit_matrix cm[3] = {};
    const ApiData *ds[3] = {&d0, &d1, &d2};
    for (int i = 0; i < 3; ++i) {
        cm[i].data = ds[i]->data();
        cm[i].rows = specs[i].rows;
        cm[i].cols = specs[i].cols;
        cm[i].ext_degree = specs[i].d;
    }
    gp_commit_options co;
    gp_commit_options_init(&co);
    co.lde = &lo;
    co.merkle = &mo;
    gp_merkle_tree *t = nullptr;
    gp_buffer *outs[3] = {};
    std::vector<gp_buffer *> bad = into;
    co.lde_into = bad.data();
    EXPECT_EQ(gp_commit_host(ctx(), F.field, cm, 3, &co, outs, &t), GP_ERR_INVALID_ARGUMENT);  // and lde_out
    EXPECT_NE(std::string(gp_last_error()).find("lde_out must be NULL"), std::string::npos) << gp_last_error();
    std::swap(bad[1], bad[2]);  // shapes differ
    EXPECT_EQ(gp_commit_host(ctx(), F.field, cm, 3, &co, nullptr, &t), GP_ERR_SHAPE_MISMATCH);
    EXPECT_NE(std::string(gp_last_error()).find("options->lde_into[1]"), std::string::npos) << gp_last_error();
    bad = into;
    bad[2] = bad[0];
    cm[2] = cm[0];
    EXPECT_EQ(gp_commit_host(ctx(), F.field, cm, 3, &co, nullptr, &t), GP_ERR_INVALID_ARGUMENT);  // twice
    cm[2].data = d2.data();
    cm[2].rows = 16;
    cm[2].cols = 2;
    cm[2].ext_degree = 4;
    bad = into;
    bad[0] = nullptr;
    EXPECT_EQ(gp_commit_host(ctx(), F.field, cm, 3, &co, nullptr, &t), GP_ERR_NULL_POINTER);
    bad = into;
    cm[0].ext_degree = 1;
    BufPtr gl;
    ASSERT_EQ(create_buffer(ctx(), field_ref(GP_FIELD_GOLDILOCKS), 1, 64, 7, &gl), GP_OK);
    bad[0] = gl.get();
    EXPECT_EQ(gp_commit_host(ctx(), F.field, cm, 3, &co, nullptr, &t), GP_ERR_FIELD_MISMATCH);
    bad = into;
    co.keep = GP_KEEP_NONE;
    EXPECT_EQ(gp_commit_host(ctx(), F.field, cm, 3, &co, nullptr, &t), GP_ERR_INVALID_ARGUMENT);
    EXPECT_EQ(t, nullptr);
}

struct CancelAt {
    gp_context *ctx;
    uint64_t after;
    std::atomic<uint64_t> calls{0};
    uint64_t last_done = 0, last_total = 0;
};

// Cancelled from the progress callback in the middle of the stream: the
// call fails with GP_ERR_CANCELLED, nothing is left allocated, and the
// context commits again afterwards.
TEST_P(CommitHost, CancelMidStream) {
    const FieldRef &F = field_ref(GP_FIELD_GOLDILOCKS);
    const std::vector<HostMat> mats = make_mats(GP_FIELD_GOLDILOCKS, {{32, 40, 1}, {32, 8, 2}}, 5);
    const gp_lde_options lo = make_opts(0, 2, 0, 0, GP_ORDER_BIT_REVERSED);
    const gp_merkle_options mo = merkle_opts(cases()[0], 0);
    const Commitment want = two_calls(ctx(), F, mats, lo, mo);
    const uint64_t least = least_budget(ctx(), F, mats, lo, mo, GP_KEEP_DEVICE);
    CancelAt state{ctx(), 3};
    ASSERT_EQ(gp_context_set_progress(
                  ctx(),
                  [](void *user, const char *stage, uint64_t done, uint64_t total) {
                      auto *s = static_cast<CancelAt *>(user);
                      if (std::string(stage) != "commit") return;
                      s->last_done = done;
                      s->last_total = total;
                      if (++s->calls == s->after) gp_context_cancel(s->ctx);
                  },
                  &state),
              GP_OK);
    Commitment got;
    EXPECT_EQ(one_call(ctx(), F, mats, lo, mo, GP_KEEP_DEVICE, least, &got), GP_ERR_CANCELLED);
    EXPECT_EQ(stats_of(ctx()).buffer_bytes, 0u);
    EXPECT_LT(state.last_done, state.last_total);
    state.after = ~0ull;
    state.calls = 0;
    ASSERT_EQ(one_call(ctx(), F, mats, lo, mo, GP_KEEP_DEVICE, least, &got), GP_OK) << gp_last_error();
    expect_same(got, want, true);
    EXPECT_EQ(state.last_done, 56u);  // every base column reported
    EXPECT_EQ(state.last_total, 56u);
    EXPECT_GT(state.calls.load(), 3u);
    // The same with the LDE going to pinned and to pageable host memory:
    // cancelled with downloads queued, then whole.
    for (HostMem mem : {HostMem::Pinned, HostMem::Pageable}) {
        const uint64_t least_host = least_budget(ctx(), F, mats, lo, mo, GP_KEEP_HOST);
        state.after = 3;
        state.calls = 0;
        EXPECT_EQ(one_call(ctx(), F, mats, lo, mo, GP_KEEP_HOST, least_host, &got, mem), GP_ERR_CANCELLED);
        EXPECT_EQ(stats_of(ctx()).buffer_bytes, 0u);
        state.after = ~0ull;
        ASSERT_EQ(one_call(ctx(), F, mats, lo, mo, GP_KEEP_HOST, least_host, &got, mem), GP_OK) << gp_last_error();
        expect_same(got, want, true);
    }
    ASSERT_EQ(gp_context_set_progress(ctx(), nullptr, nullptr), GP_OK);
}

INSTANTIATE_TEST_SUITE_P(Commit, CommitHost, ::testing::Values(GP_BACKEND_CPU, GP_BACKEND_CUDA),
                         [](const ::testing::TestParamInfo<gp_backend> &info) {
                             return std::string(backend_name(info.param));
                         });

}  // namespace
