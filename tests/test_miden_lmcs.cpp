// SPDX-License-Identifier: MIT OR Apache-2.0
// GP_MERKLE_MIDEN_LMCS: Miden's lifted MMCS (0xMiden/miden-vm db4fd2f6,
// crates/lifted-stark/src/lmcs/lifted_tree.rs, crates/stateful-hasher
// field_sponge.rs and serializing_sponge.rs, air/src/config.rs) against a
// reference written here from that definition, on every backend:
//  - leaf i = StatefulSponge over row (i mod h) of every matrix of height h,
//    in the order given (ascending heights), each row overwriting the rate
//    in chunks (8 elements of a width-12 state, or 17 lanes of Keccak-f),
//    its last chunk zero-filled, one permutation per chunk, no length tag;
//    leaf = state[0..4];
//  - node = permutation of left || right || zeros, state[0..4];
// with the permutations from gp_permute_batch (each pinned to upstream
// known answers elsewhere). Known answers: a one-row matrix of 8 or 16
// elements hashes as miden-crypto's hash_elements (the length tag is 0),
// which upstream checks (crates/crypto/src/hash/algebraic_sponge/poseidon2/
// test.rs, LMCS leaf vs hash_elements for 8 and 16 elements); the RPO
// digests of [0..7] and [0..15] are tests/vectors/rpo256.json's.
#include <gtest/gtest.h>

#include <cstdint>
#include <string>
#include <vector>

#include "hash/blake3.h"
#include "test_util.h"

using namespace gpt;

namespace {

using Digest = std::vector<uint64_t>;

// BLAKE3 of bytes, through the byte path of the library's header (pinned to
// the upstream vectors below).
Digest blake3_bytes(const Bytes &in) {
    gp::blake3::Stream b;
    b.init();
    for (unsigned char c : in) b.put_byte(c);
    uint32_t out[8];
    b.finish(out);
    Digest d(4);
    for (int k = 0; k < 4; ++k) d[k] = (uint64_t)out[2 * k] | ((uint64_t)out[2 * k + 1] << 32);
    return d;
}

struct LmcsRef {
    gp_context *cpu;
    gp_permutation perm;
    bool blake3() const { return perm == GP_PERM_BLAKE3; }
    bool keccak() const { return perm == GP_PERM_KECCAK_F1600; }
    uint32_t width() const { return keccak() ? 25 : 12; }
    uint32_t rate() const { return keccak() ? 17 : 8; }
    void permute(Digest &s) const { ASSERT_EQ(gp_permute_batch(cpu, perm, s.data(), 1), GP_OK) << gp_last_error(); }
    // Leaf of the rows given, one per matrix.
    Digest leaf(const std::vector<Elems> &rows) const {
        if (blake3()) {  // ChainingHasher: state = BLAKE3(state || row bytes), per matrix
            Digest st(4, 0);
            for (const Elems &row : rows) {
                Elems words = st;
                words.insert(words.end(), row.begin(), row.end());
                st = blake3_bytes(le_bytes(words, 8));
            }
            return st;
        }
        Digest s(width(), 0);
        for (const Elems &row : rows)
            for (size_t j = 0; j < row.size(); j += rate()) {
                for (uint32_t k = 0; k < rate(); ++k) s[k] = j + k < row.size() ? row[j + k] : 0;
                permute(s);
            }
        return Digest(s.begin(), s.begin() + 4);
    }
    Digest merge(const Digest &l, const Digest &r) const {
        if (blake3()) {
            Elems lr = l;
            lr.insert(lr.end(), r.begin(), r.end());
            return blake3_bytes(le_bytes(lr, 8));
        }
        Digest s(width(), 0);
        for (int k = 0; k < 4; ++k) {
            s[k] = l[k];
            s[4 + k] = r[k];
        }
        permute(s);
        return Digest(s.begin(), s.begin() + 4);
    }
};

const char *perm_name(gp_permutation p) {
    switch (p) {
        case GP_PERM_RPO256: return "rpo256";
        case GP_PERM_RPX256: return "rpx256";
        case GP_PERM_POSEIDON2_GOLDILOCKS_12: return "poseidon2_gl12";
        case GP_PERM_BLAKE3: return "blake3";
        default: return "keccak_f1600";
    }
}

gp_merkle_options lmcs(gp_permutation perm) {
    gp_merkle_options o;
    gp_merkle_options_init(&o);
    o.kind = GP_MERKLE_MIDEN_LMCS;
    o.perm = perm;
    return o;
}

class MidenLmcs : public BackendTest {};

}  // namespace

TEST_P(MidenLmcs, LiftedTreeMatchesDefinition) {
    CtxPtr cpu;
    ASSERT_GP_OK(make_context(GP_BACKEND_CPU, &cpu));
    const FieldRef &F = field_ref(GP_FIELD_GOLDILOCKS);
    Rng rng(606);
    // Heights ascending, widths below, at and above a rate chunk (and two
    // chunks of Keccak's 17 lanes), a cubic column among them.
    const std::vector<std::pair<uint64_t, uint64_t>> shapes = {{4, 3}, {8, 8}, {8, 1}, {16, 13}, {16, 35}};
    std::vector<HostMat> mats;
    std::vector<BufPtr> bufs;
    std::vector<const gp_buffer *> ptrs;
    for (auto [h, w] : shapes) {
        mats.push_back(random_mat(F, h, w, 1, rng));
        bufs.emplace_back();
        ASSERT_GP_OK(upload(ctx(), F, mats.back(), GP_LAYOUT_COL_MAJOR, &bufs.back()));
        ptrs.push_back(bufs.back().get());
    }
    const uint64_t N = 16;
    for (gp_permutation perm : {GP_PERM_RPO256, GP_PERM_RPX256, GP_PERM_POSEIDON2_GOLDILOCKS_12,
                                GP_PERM_KECCAK_F1600, GP_PERM_BLAKE3}) {
        SCOPED_TRACE(perm_name(perm));
        const LmcsRef ref{cpu.get(), perm};
        auto rows_of = [&](uint64_t i) {
            std::vector<Elems> rows;
            for (const HostMat &m : mats) {
                Elems r;
                for (uint64_t c = 0; c < m.cols; ++c) r.push_back(m.at(i % m.rows, c, 0));
                rows.push_back(r);
            }
            return rows;
        };
        std::vector<std::vector<Digest>> layers(1);
        for (uint64_t i = 0; i < N; ++i) layers[0].push_back(ref.leaf(rows_of(i)));
        while (layers.back().size() > 1) {
            std::vector<Digest> next;
            for (size_t i = 0; i < layers.back().size(); i += 2)
                next.push_back(ref.merge(layers.back()[i], layers.back()[i + 1]));
            layers.push_back(next);
        }
        const gp_merkle_options o = lmcs(perm);
        gp_merkle_tree *raw = nullptr;
        ASSERT_GP_OK(gp_merkle_commit(ctx(), ptrs.data(), (uint32_t)ptrs.size(), &o, &raw));
        TreePtr tree(raw);
        ASSERT_EQ(gp_merkle_digest_size(raw), 32u);
        EXPECT_TRUE(bytes_equal(merkle_cap_bytes(raw), le_bytes(layers.back()[0], 8)));
        // Openings: row (i mod h) of every matrix, the path, and the host verifier.
        uint64_t row_bytes = 0, path_bytes = 0;
        ASSERT_GP_OK(gp_merkle_opening_size(raw, &row_bytes, &path_bytes));
        std::vector<gp_matrix_dims> dims;
        for (auto [h, w] : shapes) dims.push_back({h, (uint32_t)w, 1});
        const Bytes cap = merkle_cap_bytes(raw);
        for (uint64_t idx : std::vector<uint64_t>{0, 5, 15}) {
            Bytes row((size_t)row_bytes), path((size_t)path_bytes);
            ASSERT_GP_OK(gp_merkle_open(raw, &idx, 1, row.data(), row.size(), path.data(), path.size()));
            Elems want;
            for (const Elems &r : rows_of(idx)) want.insert(want.end(), r.begin(), r.end());
            EXPECT_EQ(row, le_bytes(want, 8)) << "rows of leaf " << idx;
            Elems sib;
            for (size_t k = 0; k + 1 < layers.size(); ++k) {
                const Digest &d = layers[k][(size_t)((idx >> k) ^ 1)];
                sib.insert(sib.end(), d.begin(), d.end());
            }
            EXPECT_EQ(path, le_bytes(sib, 8)) << "path of leaf " << idx;
            EXPECT_EQ(gp_merkle_verify(&o, GP_FIELD_GOLDILOCKS, dims.data(), (uint32_t)dims.size(), cap.data(),
                                       cap.size(), idx, row.data(), row.size(), path.data(), path.size()),
                      GP_OK)
                << gp_last_error();
            row[8 * 3 + 2] ^= 4;  // the second matrix's first element
            EXPECT_EQ(gp_merkle_verify(&o, GP_FIELD_GOLDILOCKS, dims.data(), (uint32_t)dims.size(), cap.data(),
                                       cap.size(), idx, row.data(), row.size(), path.data(), path.size()),
                      GP_ERR_VERIFY_FAILED);
        }
        // Plonky3's injection of the same matrices gives another root.
        if (perm == GP_PERM_POSEIDON2_GOLDILOCKS_12) {
            std::vector<const gp_buffer *> desc(ptrs.rbegin(), ptrs.rend());
            EXPECT_GP_ERR(gp_merkle_commit(ctx(), desc.data(), (uint32_t)desc.size(), &o, &raw),
                          GP_ERR_SHAPE_MISMATCH);  // descending heights
        }
    }
}

// The BLAKE3 header against the upstream vectors (inputs i mod 251), byte by
// byte, and word by word where the length allows.
TEST(Blake3, UpstreamVectors) {
    const std::string t = read_text_file(vectors_path("blake3.json"));
    ASSERT_FALSE(t.empty());
    size_t cases = 0;
    for (size_t pos = 0; (pos = json_find_key(t, "input_len", pos)) != std::string::npos; ++cases) {
        const uint64_t n = json_number(t, pos);
        const size_t h = t.find('"', json_find_key(t, "hash", pos)) + 1;
        const std::string want = t.substr(h, 64);
        pos = h;
        Bytes in((size_t)n);
        for (uint64_t i = 0; i < n; ++i) in[(size_t)i] = (unsigned char)(i % 251);
        const Bytes got = le_bytes(blake3_bytes(in), 8);
        EXPECT_EQ(hex_bytes(got), want) << n << " bytes";
        if (n % 8 == 0) {
            gp::blake3::Stream b;
            b.init();
            for (uint64_t i = 0; i < n; i += 8) {
                uint64_t w = 0;
                for (int k = 0; k < 8; ++k) w |= (uint64_t)in[(size_t)(i + k)] << (8 * k);
                b.put_word(w);
            }
            uint32_t out[8];
            b.finish(out);
            Elems d(4);
            for (int k = 0; k < 4; ++k) d[k] = (uint64_t)out[2 * k] | ((uint64_t)out[2 * k + 1] << 32);
            EXPECT_EQ(hex_bytes(le_bytes(d, 8)), want) << n << " bytes, word by word";
        }
    }
    EXPECT_EQ(cases, 22u);
}

TEST_P(MidenLmcs, OneRowOfEightOrSixteenIsHashElements) {
    const std::string t = read_text_file(vectors_path("rpo256.json"));
    ASSERT_FALSE(t.empty());
    // The current layout's vectors (the first sponge variant): inputs [0..k].
    const size_t variant = json_find_key(t, "sponge_variants");
    const size_t end = json_find_key(t, "vectors_note", variant);
    std::vector<std::pair<Elems, Elems>> vec;
    for (size_t pos = variant; (pos = json_find_key(t, "input", pos)) != std::string::npos && pos < end;) {
        vec.push_back({json_hex_array(t, pos), json_hex_array(t, json_find_key(t, "digest", pos))});
        pos = json_find_key(t, "digest", pos);
    }
    ASSERT_EQ(vec.size(), 19u);
    const FieldRef &F = field_ref(GP_FIELD_GOLDILOCKS);
    for (uint64_t w : {8ull, 16ull}) {
        const Elems &in = vec[w - 1].first;
        ASSERT_EQ(in.size(), w);
        HostMat m(1, w, 1);
        for (uint64_t c = 0; c < w; ++c) m.at(0, c, 0) = in[c];
        BufPtr b;
        ASSERT_GP_OK(upload(ctx(), F, m, GP_LAYOUT_COL_MAJOR, &b));
        const gp_buffer *mats[1] = {b.get()};
        const gp_merkle_options o = lmcs(GP_PERM_RPO256);
        gp_merkle_tree *raw = nullptr;
        ASSERT_GP_OK(gp_merkle_commit(ctx(), mats, 1, &o, &raw));  // one leaf: the root is the leaf
        TreePtr tree(raw);
        EXPECT_EQ(merkle_cap_bytes(raw), le_bytes(vec[w - 1].second, 8)) << w << " elements";
    }
    // Poseidon2: the LMCS leaf equals miden-crypto's hash_elements when the
    // row is a multiple of 8 long, and differs otherwise (its length tag).
    Rng rng(8);
    for (uint64_t w : {5ull, 8ull, 16ull}) {
        const HostMat m = random_mat(F, 4, w, 1, rng);
        BufPtr b;
        ASSERT_GP_OK(upload(ctx(), F, m, GP_LAYOUT_COL_MAJOR, &b));
        const gp_buffer *mats[1] = {b.get()};
        gp_merkle_options o = lmcs(GP_PERM_POSEIDON2_GOLDILOCKS_12), mo = o;
        mo.kind = GP_MERKLE_MIDEN;
        Bytes a(4 * 32), c(4 * 32);
        ASSERT_GP_OK(gp_merkle_hash_rows(ctx(), mats, 1, &o, a.data(), a.size()));
        ASSERT_GP_OK(gp_merkle_hash_rows(ctx(), mats, 1, &mo, c.data(), c.size()));
        if (w % 8 == 0) EXPECT_EQ(a, c) << w << " elements";
        else EXPECT_NE(a, c) << w << " elements";
    }
}

TEST_P(MidenLmcs, RefusedShapesAndCalls) {
    const FieldRef &F = field_ref(GP_FIELD_GOLDILOCKS);
    Rng rng(9);
    HostMat a = random_mat(F, 8, 2, 1, rng), b = random_mat(F, 6, 2, 1, rng);
    BufPtr ba, bb;
    ASSERT_GP_OK(upload(ctx(), F, a, GP_LAYOUT_COL_MAJOR, &ba));
    ASSERT_GP_OK(upload(ctx(), F, b, GP_LAYOUT_COL_MAJOR, &bb));
    gp_merkle_tree *raw = nullptr;
    gp_merkle_options o = lmcs(GP_PERM_RPO256);
    const gp_buffer *six[2] = {bb.get(), ba.get()};
    EXPECT_GP_ERR(gp_merkle_commit(ctx(), six, 2, &o, &raw), GP_ERR_INVALID_ARGUMENT);  // 6 rows
    o.perm = GP_PERM_TIP5;
    const gp_buffer *one[1] = {ba.get()};
    EXPECT_GP_ERR(gp_merkle_commit(ctx(), one, 1, &o, &raw), GP_ERR_INVALID_ARGUMENT);
    o = lmcs(GP_PERM_RPO256);
    o.cap_height = 4;
    EXPECT_GP_ERR(gp_merkle_commit(ctx(), one, 1, &o, &raw), GP_ERR_INVALID_ARGUMENT);
    EXPECT_EQ(raw, nullptr);
    // gp_commit_host streams rows by column batches: refused.
    o = lmcs(GP_PERM_RPO256);
    HostMat trace(8, 2, 1);
    for (uint64_t &x : trace.v) x = 1;
    EXPECT_GP_ERR(commit_host_one(ctx(), field_ref(GP_FIELD_GOLDILOCKS), trace, nullptr, &o, &raw),
                  GP_ERR_UNSUPPORTED);
    EXPECT_EQ(raw, nullptr);
}

INSTANTIATE_TEST_SUITE_P(Backends, MidenLmcs, ::testing::Values(GP_BACKEND_CPU, GP_BACKEND_CUDA),
                         [](const ::testing::TestParamInfo<gp_backend> &i) { return std::string(backend_name(i.param)); });
