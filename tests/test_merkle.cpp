// SPDX-License-Identifier: MIT OR Apache-2.0
// gp_merkle_commit (GP_MERKLE_FIELD_SPONGE) against an independent naive
// reference of Plonky3's MerkleTreeMmcs<PaddingFreeSponge, TruncatedPermutation>.
//
// The reference re-implements only the sponge, the compression and the tree
// (recursively, node by node); the permutation itself is gp_permute_batch on a
// private single-threaded CPU context, which test_hash_*.cpp pin to the
// reference implementations' known-answer vectors.
//
// Conventions, as read from Plonky3's source (merkle-tree/src/merkle_tree.rs,
// merkle-tree/src/mmcs/batch.rs, symmetric/src/sponge.rs,
// symmetric/src/compression.rs):
//  - PaddingFreeSponge: state starts all zero; every chunk of up to `rate`
//    input elements overwrites state[0..len) (a short last chunk leaves
//    state[len..rate) as the previous permutation left it) and is followed by
//    one permutation; an input that ends exactly on a chunk boundary gets no
//    extra permutation; the digest is state[0..digest).
//  - TruncatedPermutation (N = 2): state = left || right || zeros, permute,
//    first `digest` elements.
//  - Matrices are sorted tallest first with a stable sort, so matrices of one
//    height keep their insertion order even when they are not adjacent in the
//    input. Leaf i = H(row i of every tallest matrix, concatenated). At the
//    layer of h nodes, if matrices of height h exist:
//    node = C(C(left, right), H(row i of every height-h matrix, concatenated)).
//  - The cap of height c is the layer of 2^c nodes.
//  - Extension elements enter as their base coefficients, lowest first
//    (ExtensionMmcs flattens rows with flatten_to_base).
#include <gtest/gtest.h>

#include <cstddef>
#include <cstdint>
#include <cstring>
#include <memory>
#include <sstream>
#include <string>
#include <vector>

#include "test_util.h"

using namespace gpt;

namespace {

/* ------------------------------------------------------------------------ */
/* Permutations                                                             */
/* ------------------------------------------------------------------------ */

struct PermCase {
    gp_permutation perm;
    const char *name;
};

// Plonky3's Poseidon2 instances: the permutations the header's defaults
// (digest 4 for Goldilocks, 8 for BabyBear/KoalaBear) are meant for.
const PermCase kPoseidon2[] = {
    {GP_PERM_POSEIDON2_GOLDILOCKS_8, "poseidon2_goldilocks_8"},
    {GP_PERM_POSEIDON2_GOLDILOCKS_12, "poseidon2_goldilocks_12"},
    {GP_PERM_POSEIDON2_GOLDILOCKS_16, "poseidon2_goldilocks_16"},
    {GP_PERM_POSEIDON2_BABYBEAR_16, "poseidon2_babybear_16"},
    {GP_PERM_POSEIDON2_BABYBEAR_24, "poseidon2_babybear_24"},
    {GP_PERM_POSEIDON2_KOALABEAR_16, "poseidon2_koalabear_16"},
    {GP_PERM_POSEIDON2_KOALABEAR_24, "poseidon2_koalabear_24"},
};

// The other field permutations (all over Goldilocks). The header does not
// restrict `perm` to Poseidon2, so they are tested too, but an
// implementation may answer GP_ERR_UNSUPPORTED for them.
const PermCase kOtherFieldPerms[] = {
    {GP_PERM_POSEIDON2_GOLDILOCKS_HL_8, "poseidon2_goldilocks_hl_8"},
    {GP_PERM_RPO256, "rpo256"},
    {GP_PERM_RPX256, "rpx256"},
    {GP_PERM_POSEIDON_GOLDILOCKS_12, "poseidon_goldilocks_12"},
    {GP_PERM_TIP5, "tip5"},
};

struct PermInfo {
    uint32_t width = 0;
    gp_field field = GP_FIELD_GOLDILOCKS;
};

PermInfo perm_info(gp_permutation perm) {
    PermInfo info;
    gp_field f = (gp_field)0;
    EXPECT_EQ(gp_permutation_info(perm, &info.width, &f), GP_OK) << gp_last_error();
    info.field = f;
    return info;
}

uint32_t default_digest(gp_field f) { return f == GP_FIELD_GOLDILOCKS ? 4u : 8u; }

/* ------------------------------------------------------------------------ */
/* Reference                                                                */
/* ------------------------------------------------------------------------ */

using Digest = std::vector<uint64_t>;

// One permutation, applied one state at a time through gp_permute_batch on a
// private single-threaded CPU context (never the context under test).
class RefPerm {
   public:
    explicit RefPerm(gp_permutation perm) : perm_(perm) {
        const PermInfo info = perm_info(perm);
        width_ = info.width;
        field_ = info.field;
        esz_ = gp_field_element_size(field_);
        EXPECT_EQ(make_context(GP_BACKEND_CPU, &ctx_, 1), GP_OK) << gp_last_error();
    }
    uint32_t width() const { return width_; }
    gp_field field() const { return field_; }
    uint32_t elem_size() const { return esz_; }
    uint64_t calls() const { return calls_; }

    void permute(std::vector<uint64_t> &state) const {
        ApiData d(state, esz_);
        const gp_status st = gp_permute_batch(ctx_.get(), perm_, d.data(), 1);
        EXPECT_EQ(st, GP_OK) << "reference gp_permute_batch: " << gp_last_error();
        state = d.values();
        ++calls_;
    }

   private:
    gp_permutation perm_;
    uint32_t width_ = 0;
    gp_field field_ = GP_FIELD_GOLDILOCKS;
    uint32_t esz_ = 8;
    CtxPtr ctx_;
    mutable uint64_t calls_ = 0;
};

// PaddingFreeSponge<perm, WIDTH, RATE, OUT = digest>.
Digest ref_sponge(const RefPerm &P, uint32_t rate, uint32_t digest, const std::vector<uint64_t> &in) {
    std::vector<uint64_t> state(P.width(), 0);
    size_t pos = 0;
    while (pos < in.size()) {
        const size_t n = std::min<size_t>(rate, in.size() - pos);
        for (size_t j = 0; j < n; ++j) state[j] = in[pos + j]; /* overwrite only n */
        P.permute(state);
        pos += n;
    }
    return Digest(state.begin(), state.begin() + digest);
}

// TruncatedPermutation<perm, N = 2, CHUNK = digest, WIDTH>.
Digest ref_compress(const RefPerm &P, const Digest &left, const Digest &right) {
    std::vector<uint64_t> state(P.width(), 0);
    std::copy(left.begin(), left.end(), state.begin());
    std::copy(right.begin(), right.end(), state.begin() + left.size());
    P.permute(state);
    return Digest(state.begin(), state.begin() + left.size());
}

// Naive recursive MerkleTreeMmcs over the given matrices, in commit order.
class RefTree {
   public:
    RefTree(const RefPerm &P, std::vector<const HostMat *> mats, uint32_t digest, uint32_t rate)
        : P_(P), mats_(std::move(mats)), digest_(digest), rate_(rate) {
        for (const HostMat *m : mats_) max_h_ = std::max(max_h_, m->rows);
        while ((1ull << log_h_) < max_h_) ++log_h_;
        memo_.resize(log_h_ + 1);
        for (uint32_t k = 0; k <= log_h_; ++k) memo_[k].resize((size_t)(1ull << (log_h_ - k)));
    }

    // Layer k's nodes: ceil(max_h / 2^k); stored padded to an even length
    // with a zero digest (Plonky3's first_digest_layer and
    // compress_and_inject), so a node past the end reads as zero.
    uint64_t layer_rows(uint32_t k) const { return ((max_h_ - 1) >> k) + 1; }
    static uint64_t padded(uint64_t r) { return r <= 1 ? r : r + (r & 1); }

    uint32_t log_height() const { return log_h_; }

    // Row i of every matrix of height h, in commit order, flattened to base
    // coefficients (c0 of col 0, c1 of col 0, ..., c0 of col 1, ...).
    std::vector<uint64_t> rows_of_height(uint64_t h, uint64_t i) const {
        std::vector<uint64_t> out;
        for (const HostMat *m : mats_) {
            if (m->rows != h) continue;
            for (uint64_t c = 0; c < m->cols; ++c)
                for (uint32_t k = 0; k < m->d; ++k) out.push_back(m->at(i, c, k));
        }
        return out;
    }
    bool has_height(uint64_t h) const {
        for (const HostMat *m : mats_)
            if (m->rows == h) return true;
        return false;
    }

    // Node i of the layer k levels above the leaves (layer_rows(k) nodes,
    // then zero digests).
    const Digest &node(uint32_t k, uint64_t i) {
        Digest &slot = memo_[k][(size_t)i];
        if (!slot.empty()) return slot;
        Digest d;
        if (i >= layer_rows(k)) {
            d.assign(digest_, 0);
        } else if (k == 0) {
            d = ref_sponge(P_, rate_, digest_, rows_of_height(max_h_, i));
        } else {
            const Digest left = node(k - 1, 2 * i);
            const Digest right = node(k - 1, 2 * i + 1);
            d = ref_compress(P_, left, right);
            const uint64_t h = layer_rows(k);
            if (has_height(h)) d = ref_compress(P_, d, ref_sponge(P_, rate_, digest_, rows_of_height(h, i)));
        }
        memo_[k][(size_t)i] = d;
        return memo_[k][(size_t)i];
    }

    // The cap as gp_merkle_cap writes it: the layer 2^cap_height digests
    // below the root (as stored: padded to an even length, so fewer when the
    // tallest height is not a power of two), element by element,
    // little-endian, in the field's element size.
    std::vector<unsigned char> cap_bytes(uint32_t cap_height) {
        const uint32_t k = log_h_ - cap_height;
        std::vector<uint64_t> vals;
        for (uint64_t i = 0; i < padded(layer_rows(k)); ++i) {
            const Digest &d = node(k, i);
            vals.insert(vals.end(), d.begin(), d.end());
        }
        return to_bytes(vals, P_.elem_size());
    }

    static std::vector<unsigned char> to_bytes(const std::vector<uint64_t> &vals, uint32_t esz) {
        std::vector<unsigned char> out(vals.size() * esz);
        for (size_t j = 0; j < vals.size(); ++j)
            for (uint32_t b = 0; b < esz; ++b) out[j * esz + b] = (unsigned char)(vals[j] >> (8 * b));
        return out;
    }

   private:
    const RefPerm &P_;
    std::vector<const HostMat *> mats_;
    uint32_t digest_, rate_;
    uint64_t max_h_ = 0;
    uint32_t log_h_ = 0;
    std::vector<std::vector<Digest>> memo_;
};

// Decodes little-endian elements of `esz` bytes.
std::vector<uint64_t> from_bytes(const std::vector<unsigned char> &b, uint32_t esz) {
    std::vector<uint64_t> out(b.size() / esz);
    for (size_t j = 0; j < out.size(); ++j) {
        uint64_t x = 0;
        for (uint32_t k = 0; k < esz; ++k) x |= (uint64_t)b[j * esz + k] << (8 * k);
        out[j] = x;
    }
    return out;
}

::testing::AssertionResult caps_equal(const std::vector<unsigned char> &got,
                                      const std::vector<unsigned char> &want, uint32_t esz,
                                      uint32_t digest) {
    if (got.size() != want.size())
        return ::testing::AssertionFailure() << "cap has " << got.size() << " bytes, expected "
                                             << want.size();
    if (got == want) return ::testing::AssertionSuccess();
    const std::vector<uint64_t> g = from_bytes(got, esz), w = from_bytes(want, esz);
    size_t bad = 0, first = 0;
    for (size_t j = 0; j < w.size(); ++j)
        if (g[j] != w[j]) {
            if (bad++ == 0) first = j;
        }
    std::ostringstream os;
    os << bad << " of " << w.size() << " cap elements differ; first at digest " << first / digest
       << " element " << first % digest << ": got 0x" << std::hex << g[first] << " expected 0x"
       << w[first];
    return ::testing::AssertionFailure() << os.str();
}

/* ------------------------------------------------------------------------ */
/* Library side                                                             */
/* ------------------------------------------------------------------------ */


gp_merkle_options merkle_opts(gp_permutation perm, uint32_t cap_height = 0, uint32_t digest = 0,
                              uint32_t rate = 0) {
    gp_merkle_options o;
    gp_merkle_options_init(&o);
    o.perm = perm;
    o.digest = digest;
    o.rate = rate;
    o.cap_height = cap_height;
    return o;
}

// Uploaded matrices (alternating column- and row-major host layouts).
struct Uploaded {
    std::vector<BufPtr> bufs;
    std::vector<const gp_buffer *> ptrs;
};

gp_status upload_all(gp_context *ctx, const std::vector<const HostMat *> &mats, gp_field field,
                     Uploaded *out) {
    const FieldRef &F = field_ref(field);
    out->bufs.clear();
    out->ptrs.clear();
    for (size_t j = 0; j < mats.size(); ++j) {
        BufPtr b;
        const gp_layout layout = j % 2 ? GP_LAYOUT_ROW_MAJOR : GP_LAYOUT_COL_MAJOR;
        const gp_status st = upload(ctx, F, *mats[j], layout, &b);
        if (st != GP_OK) return st;
        out->ptrs.push_back(b.get());
        out->bufs.push_back(std::move(b));
    }
    return GP_OK;
}

// Commits and reads the cap back. Fails the test on any error.
std::vector<unsigned char> lib_cap(gp_context *ctx, const Uploaded &up, const gp_merkle_options &o,
                                   uint64_t expected_size) {
    gp_merkle_tree *raw = nullptr;
    const gp_status st = gp_merkle_commit(ctx, up.ptrs.data(), (uint32_t)up.ptrs.size(), &o, &raw);
    EXPECT_EQ(st, GP_OK) << "gp_merkle_commit: " << gp_last_error();
    if (st != GP_OK) return {};
    TreePtr tree(raw);
    EXPECT_NE(raw, nullptr);
    if (!raw) return {};
    const uint64_t size = gp_merkle_cap_size(raw);
    EXPECT_EQ(size, expected_size);
    std::vector<unsigned char> cap((size_t)size);
    const gp_status cs = gp_merkle_cap(raw, cap.data(), size);
    EXPECT_EQ(cs, GP_OK) << "gp_merkle_cap: " << gp_last_error();
    return cap;
}

// Matrices to commit, as host data owned by the case.

/* ------------------------------------------------------------------------ */
/* Fixture                                                                  */
/* ------------------------------------------------------------------------ */

class MerkleTest : public BackendTest {
   protected:

    // Commits `specs` (random data from `seed`) with `perm`, digest and rate
    // (0 = default) at every cap height in `caps` (all valid heights when
    // empty), and compares each cap with the reference.
    void check(gp_permutation perm, const std::vector<MatSpec> &specs, uint64_t seed, uint32_t digest = 0,
               uint32_t rate = 0, std::vector<uint32_t> caps = {}) {
        const RefPerm P(perm);
        const uint32_t dg = digest ? digest : default_digest(P.field());
        const uint32_t rt = rate ? rate : P.width() - dg;
        SCOPED_TRACE(describe(specs) + ", digest " + std::to_string(dg) + ", rate " + std::to_string(rt) +
                     ", width " + std::to_string(P.width()));
        const std::vector<HostMat> mats = make_mats(P.field(), specs, seed);
        RefTree ref(P, ptrs_of(mats), dg, rt);
        Uploaded up;
        ASSERT_GP_OK(upload_all(ctx(), ptrs_of(mats), P.field(), &up));
        // Every valid cap: at most log2 of the least height (a shorter
        // matrix would be injected above the cap, unbound by it).
        uint64_t least = specs[0].rows;
        for (const MatSpec &s : specs) least = s.rows < least ? s.rows : least;
        if (caps.empty())
            for (uint32_t c = 0; c == 0 || (1ull << (c - 1)) < least; ++c) caps.push_back(c);  // c <= ceil(log2 least)
        for (uint32_t cap : caps) {
            SCOPED_TRACE("cap_height " + std::to_string(cap));
            const gp_merkle_options o = merkle_opts(perm, cap, digest, rate);
            const uint64_t size = ref.cap_bytes(cap).size();
            EXPECT_TRUE(caps_equal(lib_cap(ctx(), up, o, size), ref.cap_bytes(cap), P.elem_size(), dg));
        }
    }

    // A valid commit still works and matches the reference (used after every
    // rejected call).
    void expect_context_works() {
        SCOPED_TRACE("context still usable");
        check(GP_PERM_POSEIDON2_GOLDILOCKS_8, {{8, 3, 1}, {4, 2, 2}}, 777, 0, 0, {0, 1});
    }
};

/* ------------------------------------------------------------------------ */
/* The reference against hand computations                                  */
/* ------------------------------------------------------------------------ */

TEST(MerkleReference, SpongeChunkingByHand) {
    const RefPerm P(GP_PERM_POSEIDON2_GOLDILOCKS_8); /* width 8 */
    const FieldRef &F = field_ref(GP_FIELD_GOLDILOCKS);
    Rng rng(5);
    std::vector<uint64_t> in(6);
    for (auto &x : in) x = rng.elem(F.p);
    /* rate 4: chunk [0..4) then the partial chunk [4..6) overwrites only
     * state[0..2), keeping state[2..8) from the first permutation. */
    std::vector<uint64_t> st(8, 0);
    for (int j = 0; j < 4; ++j) st[j] = in[j];
    P.permute(st);
    st[0] = in[4];
    st[1] = in[5];
    P.permute(st);
    EXPECT_EQ(ref_sponge(P, 4, 4, in), Digest(st.begin(), st.begin() + 4));
    /* Exactly one chunk: one permutation, none after. */
    std::vector<uint64_t> in4(in.begin(), in.begin() + 4), st4(8, 0);
    for (int j = 0; j < 4; ++j) st4[j] = in4[j];
    P.permute(st4);
    EXPECT_EQ(ref_sponge(P, 4, 4, in4), Digest(st4.begin(), st4.begin() + 4));
    /* Empty input: no permutation, zero digest (Plonky3's hash_iter). */
    const uint64_t before = P.calls();
    EXPECT_EQ(ref_sponge(P, 4, 4, {}), Digest(4, 0));
    EXPECT_EQ(P.calls(), before);
    /* Compression: left || right, nothing else, first `digest` out. */
    Digest a(in.begin(), in.begin() + 3), b(in.begin() + 3, in.begin() + 6);
    std::vector<uint64_t> cs = {in[0], in[1], in[2], in[3], in[4], in[5], 0, 0};
    P.permute(cs);
    EXPECT_EQ(ref_compress(P, a, b), Digest(cs.begin(), cs.begin() + 3));
}

// Row i of a base-field matrix.
std::vector<uint64_t> base_row(const HostMat &m, uint64_t i) {
    std::vector<uint64_t> v;
    for (uint64_t c = 0; c < m.cols; ++c) v.push_back(m.at(i, c, 0));
    return v;
}

TEST(MerkleReference, TreeShapeByHand) {
    /* heights 4 (tallest, two matrices, hashed together), 2 and 1. */
    const RefPerm P(GP_PERM_POSEIDON2_BABYBEAR_16);
    const std::vector<HostMat> mats =
        make_mats(GP_FIELD_BABYBEAR, {{2, 3, 1}, {4, 5, 1}, {1, 9, 1}, {4, 2, 4}}, 9);
    RefTree ref(P, ptrs_of(mats), 8, 8);
    auto leaf_input = [&](uint64_t i) {
        std::vector<uint64_t> v;
        for (uint64_t c = 0; c < 5; ++c) v.push_back(mats[1].at(i, c, 0));
        for (uint64_t c = 0; c < 2; ++c)
            for (uint32_t k = 0; k < 4; ++k) v.push_back(mats[3].at(i, c, k));
        return v;
    };
    auto H = [&](const std::vector<uint64_t> &v) { return ref_sponge(P, 8, 8, v); };
    auto C = [&](const Digest &l, const Digest &r) { return ref_compress(P, l, r); };
    const Digest n10 = C(C(H(leaf_input(0)), H(leaf_input(1))), H(base_row(mats[0], 0)));
    const Digest n11 = C(C(H(leaf_input(2)), H(leaf_input(3))), H(base_row(mats[0], 1)));
    const Digest root = C(C(n10, n11), H(base_row(mats[2], 0)));
    EXPECT_EQ(ref.node(2, 0), root);
    EXPECT_EQ(ref.node(1, 1), n11);
    EXPECT_EQ(ref.cap_bytes(0), RefTree::to_bytes(root, 4));
}

TEST(MerkleReference, NonPowerOfTwoShapeByHand) {
    /* Heights 5 and 3, the tree of Plonky3's `commit_mixed` test
     * (merkle-tree/src/mmcs): layers of 6, 4, 2 and 1 digests, a zero digest
     * padding each odd layer above one digest, and the height-3 matrix
     * injected at the layer of ceil(5 / 2) = 3 nodes. */
    const RefPerm P(GP_PERM_POSEIDON2_BABYBEAR_16);
    const std::vector<HostMat> mats = make_mats(GP_FIELD_BABYBEAR, {{3, 2, 1}, {5, 3, 1}}, 19);
    RefTree ref(P, ptrs_of(mats), 8, 8);
    auto H = [&](const std::vector<uint64_t> &v) { return ref_sponge(P, 8, 8, v); };
    auto C = [&](const Digest &l, const Digest &r) { return ref_compress(P, l, r); };
    const HostMat &a = mats[1], &b = mats[0];
    const Digest zero(8, 0);
    const Digest l1_0 = C(C(H(base_row(a, 0)), H(base_row(a, 1))), H(base_row(b, 0)));
    const Digest l1_1 = C(C(H(base_row(a, 2)), H(base_row(a, 3))), H(base_row(b, 1)));
    const Digest l1_2 = C(C(H(base_row(a, 4)), zero), H(base_row(b, 2)));
    const Digest root = C(C(l1_0, l1_1), C(l1_2, zero));
    EXPECT_EQ(ref.node(3, 0), root);
    EXPECT_EQ(ref.node(1, 3), zero);
    EXPECT_EQ(ref.cap_bytes(0), RefTree::to_bytes(root, 4));
    // Cap height 1: two digests; cap height 2: the layer of 3 nodes stored as 4.
    EXPECT_EQ(ref.cap_bytes(2).size(), 4u * 8 * 4);
}

/* ------------------------------------------------------------------------ */
/* Direct identities, computed by hand through gp_permute_batch             */
/* ------------------------------------------------------------------------ */

TEST_P(MerkleTest, TwoRowsRootIsCompressOfRowHashes) {
    // Goldilocks width 8: rate 4, digest 4. Rows of 6 elements (a full chunk,
    // then a partial one) and BabyBear width 16: rate 8, digest 8, rows of
    // exactly 8 elements (one permutation, no trailing one).
    struct Case {
        gp_permutation perm;
        uint64_t cols;
    };
    for (const Case &cs : {Case{GP_PERM_POSEIDON2_GOLDILOCKS_8, 6}, Case{GP_PERM_POSEIDON2_GOLDILOCKS_8, 3},
                           Case{GP_PERM_POSEIDON2_BABYBEAR_16, 8}, Case{GP_PERM_POSEIDON2_KOALABEAR_24, 17}}) {
        const RefPerm P(cs.perm);
        const uint32_t w = P.width(), dg = default_digest(P.field()), rate = w - dg;
        SCOPED_TRACE("width " + std::to_string(w) + ", cols " + std::to_string(cs.cols));
        const FieldRef &F = field_ref(P.field());
        Rng rng(100 + cs.cols);
        const HostMat m = random_mat(F, 2, cs.cols, 1, rng);
        Digest leaf[2];
        for (uint64_t r = 0; r < 2; ++r) {
            std::vector<uint64_t> st(w, 0);
            for (uint64_t c = 0; c < cs.cols; c += rate) {
                for (uint64_t j = c; j < std::min<uint64_t>(c + rate, cs.cols); ++j) st[(size_t)(j - c)] = m.at(r, j, 0);
                P.permute(st);
            }
            leaf[r] = Digest(st.begin(), st.begin() + dg);
        }
        std::vector<uint64_t> st(w, 0);
        for (uint32_t j = 0; j < dg; ++j) {
            st[j] = leaf[0][j];
            st[dg + j] = leaf[1][j];
        }
        P.permute(st);
        const Digest root(st.begin(), st.begin() + dg);

        Uploaded up;
        ASSERT_GP_OK(upload_all(ctx(), {&m}, P.field(), &up));
        const gp_merkle_options o = merkle_opts(cs.perm);
        EXPECT_TRUE(caps_equal(lib_cap(ctx(), up, o, dg * P.elem_size()),
                               RefTree::to_bytes(root, P.elem_size()), P.elem_size(), dg));
        // Cap height 1: the two leaf digests themselves.
        std::vector<uint64_t> leaves = leaf[0];
        leaves.insert(leaves.end(), leaf[1].begin(), leaf[1].end());
        EXPECT_TRUE(caps_equal(lib_cap(ctx(), up, merkle_opts(cs.perm, 1), 2 * dg * P.elem_size()),
                               RefTree::to_bytes(leaves, P.elem_size()), P.elem_size(), dg));
    }
}

TEST_P(MerkleTest, OneRowRootIsRowHash) {
    const RefPerm P(GP_PERM_POSEIDON2_GOLDILOCKS_8);
    const FieldRef &F = field_ref(GP_FIELD_GOLDILOCKS);
    Rng rng(3);
    const HostMat m = random_mat(F, 1, 5, 1, rng);
    std::vector<uint64_t> st(8, 0);
    for (int j = 0; j < 4; ++j) st[j] = m.at(0, j, 0);
    P.permute(st);
    st[0] = m.at(0, 4, 0);
    P.permute(st);
    Uploaded up;
    ASSERT_GP_OK(upload_all(ctx(), {&m}, F.field, &up));
    EXPECT_TRUE(caps_equal(lib_cap(ctx(), up, merkle_opts(GP_PERM_POSEIDON2_GOLDILOCKS_8), 32),
                           RefTree::to_bytes(Digest(st.begin(), st.begin() + 4), 8), 8, 4));
}

TEST_P(MerkleTest, InjectedMatrixByHand) {
    // One 2-row matrix and one 1-row matrix: root = C(C(H(a0), H(a1)), H(b0)).
    const RefPerm P(GP_PERM_POSEIDON2_GOLDILOCKS_8);
    const FieldRef &F = field_ref(GP_FIELD_GOLDILOCKS);
    Rng rng(4);
    const HostMat a = random_mat(F, 2, 2, 1, rng), b = random_mat(F, 1, 3, 1, rng);
    auto hash = [&](std::vector<uint64_t> in) {
        std::vector<uint64_t> st(8, 0);
        std::copy(in.begin(), in.end(), st.begin()); /* fewer than 4: one chunk */
        P.permute(st);
        return Digest(st.begin(), st.begin() + 4);
    };
    auto comp = [&](const Digest &l, const Digest &r) {
        std::vector<uint64_t> st(l);
        st.insert(st.end(), r.begin(), r.end());
        P.permute(st);
        return Digest(st.begin(), st.begin() + 4);
    };
    const Digest root = comp(comp(hash({a.at(0, 0, 0), a.at(0, 1, 0)}), hash({a.at(1, 0, 0), a.at(1, 1, 0)})),
                             hash({b.at(0, 0, 0), b.at(0, 1, 0), b.at(0, 2, 0)}));
    const gp_merkle_options o = merkle_opts(GP_PERM_POSEIDON2_GOLDILOCKS_8);
    for (bool small_first : {false, true}) {
        SCOPED_TRACE(small_first ? "short matrix given first" : "tall matrix given first");
        Uploaded up;
        if (small_first)
            ASSERT_GP_OK(upload_all(ctx(), {&b, &a}, F.field, &up));
        else
            ASSERT_GP_OK(upload_all(ctx(), {&a, &b}, F.field, &up));
        EXPECT_TRUE(caps_equal(lib_cap(ctx(), up, o, 32), RefTree::to_bytes(root, 8), 8, 4));
    }
}

/* ------------------------------------------------------------------------ */
/* Against the reference                                                    */
/* ------------------------------------------------------------------------ */

TEST_P(MerkleTest, SingleMatrixEveryPermutationAndCap) {
    for (const PermCase &pc : kPoseidon2) {
        SCOPED_TRACE(pc.name);
        const uint32_t w = perm_info(pc.perm).width;
        const uint32_t rate = w - default_digest(perm_info(pc.perm).field);
        uint64_t seed = 10;
        // Row lengths below, at and above the rate, and a multiple of it.
        for (uint64_t rows : {1ull, 2ull, 4ull, 8ull, 32ull, 128ull})
            for (uint64_t cols : {(uint64_t)1, (uint64_t)rate - 1, (uint64_t)rate, (uint64_t)rate + 1,
                                  (uint64_t)2 * rate, (uint64_t)3 * rate + 2}) {
                if (cols == 0) continue;
                check(pc.perm, {{rows, cols, 1}}, seed++);
            }
    }
}

TEST_P(MerkleTest, SameHeightMatricesAreHashedTogether) {
    for (const PermCase &pc : kPoseidon2) {
        SCOPED_TRACE(pc.name);
        const uint32_t rate = perm_info(pc.perm).width - default_digest(perm_info(pc.perm).field);
        // Per-matrix widths that do not line up with the rate: a chunk spans
        // two matrices.
        check(pc.perm, {{16, 1, 1}, {16, rate + 1, 1}, {16, 3, 1}}, 20);
        check(pc.perm, {{32, rate, 1}, {32, rate, 1}}, 21);
        check(pc.perm, {{8, 2, 1}, {8, 1, 1}, {8, 1, 1}, {8, rate - 1, 1}, {8, 5, 1}}, 22);
    }
}

TEST_P(MerkleTest, MixedHeights) {
    for (const PermCase &pc : kPoseidon2) {
        SCOPED_TRACE(pc.name);
        // Sorted input, as in the brief: 16, 16, 8, 4, 1.
        check(pc.perm, {{16, 5, 1}, {16, 3, 1}, {8, 7, 1}, {4, 2, 1}, {1, 11, 1}}, 30);
        // The same heights in an interleaved order: equal heights keep their
        // relative (insertion) order, which is not their position overall.
        check(pc.perm, {{4, 2, 1}, {16, 3, 1}, {1, 11, 1}, {8, 7, 1}, {16, 5, 1}, {4, 9, 1}}, 31);
        // Gaps: only some layers receive an injection.
        check(pc.perm, {{2, 4, 1}, {64, 6, 1}}, 32);
        check(pc.perm, {{1, 1, 1}, {32, 1, 1}, {1, 2, 1}}, 33);
        // Every layer receives an injection.
        check(pc.perm, {{32, 3, 1}, {16, 1, 1}, {8, 2, 1}, {4, 17, 1}, {2, 3, 1}, {1, 5, 1}}, 34);
    }
}

// Plonky3's MMCS over heights that are not powers of two: every layer
// ceil(tallest / 2^k) long, padded with a zero digest to an even length;
// matrices injected where the layer length is their height.
TEST_P(MerkleTest, NonPowerOfTwoHeights) {
    for (const PermCase &pc : kPoseidon2) {
        SCOPED_TRACE(pc.name);
        check(pc.perm, {{5, 3, 1}, {3, 2, 1}}, 40);               // commit_mixed's shape
        check(pc.perm, {{3, 7, 1}}, 41);                          // one matrix
        check(pc.perm, {{12, 4, 1}, {6, 2, 1}, {3, 5, 1}, {2, 1, 1}, {1, 3, 1}}, 42);  // every layer
        check(pc.perm, {{6, 1, 1}, {12, 3, 1}, {12, 2, 1}, {3, 9, 1}}, 43);  // tallest twice, given late
        check(pc.perm, {{1000, 2, 1}, {125, 3, 1}, {8, 1, 1}, {1, 2, 1}}, 44, 0, 0, {0});  // Plonky3's size_gaps
        const uint32_t ext = perm_info(pc.perm).field == GP_FIELD_GOLDILOCKS ? 2 : 4;
        check(pc.perm, {{7, 2, ext}, {4, 1, 1}, {2, 3, ext}}, 45);  // extension columns
    }
}

// Openings of such a tree: rows at index >> (log_h - ceil(log2 height)),
// paths through the zero padding, each verified by gp_merkle_verify; an
// index past the tallest height, heights off the ladder and kinds other
// than Plonky3's MMCS are refused.
TEST_P(MerkleTest, NonPowerOfTwoOpenings) {
    const FieldRef &F = field_ref(GP_FIELD_KOALABEAR);
    const std::vector<MatSpec> specs = {{12, 3, 1}, {3, 2, 4}, {6, 1, 1}};
    const std::vector<HostMat> mats = make_mats(F.field, specs, 46);
    Uploaded up;
    ASSERT_GP_OK(upload_all(ctx(), ptrs_of(mats), F.field, &up));
    std::vector<gp_matrix_dims> dims;
    for (const MatSpec &m : specs) dims.push_back({m.rows, (uint32_t)m.cols, m.d});
    for (gp_merkle_kind kind : {GP_MERKLE_FIELD_SPONGE, GP_MERKLE_KECCAK_PLONKY3, GP_MERKLE_KECCAK_U64})
        for (uint32_t cap : {0u, 1u, 2u}) {
            SCOPED_TRACE(std::to_string(kind) + " cap " + std::to_string(cap));
            gp_merkle_options o;
            gp_merkle_options_init(&o);
            o.kind = kind;
            o.perm = kind == GP_MERKLE_FIELD_SPONGE ? GP_PERM_POSEIDON2_KOALABEAR_16 : GP_PERM_KECCAK_F1600;
            o.cap_height = cap;
            gp_merkle_tree *raw = nullptr;
            ASSERT_GP_OK(gp_merkle_commit(ctx(), up.ptrs.data(), (uint32_t)up.ptrs.size(), &o, &raw));
            TreePtr tree(raw);
            const uint64_t dbytes = gp_merkle_digest_size(raw);
            // Layer 4 - cap: ceil(12 / 2^(4 - cap)) = 1, 2, 3 digests, stored as 1, 2, 4.
            const uint64_t cap_digests[] = {1, 2, 4};
            ASSERT_EQ(gp_merkle_cap_size(raw), cap_digests[cap] * dbytes);
            std::vector<unsigned char> capb(gp_merkle_cap_size(raw));
            ASSERT_GP_OK(gp_merkle_cap(raw, capb.data(), capb.size()));
            if (cap == 2)  // the padding digest of the layer of 3
                EXPECT_EQ(std::vector<unsigned char>(capb.end() - dbytes, capb.end()),
                          std::vector<unsigned char>(dbytes, 0));
            uint64_t rb = 0, pb = 0;
            ASSERT_GP_OK(gp_merkle_opening_size(raw, &rb, &pb));
            EXPECT_EQ(pb, (4 - cap) * dbytes);
            for (uint64_t q = 0; q < 12; ++q) {
                std::vector<unsigned char> rows(rb), path(pb);
                ASSERT_GP_OK(gp_merkle_open(raw, &q, 1, rows.data(), rb, path.data(), pb));
                // Rows of 12, 3 (degree 4) and 6: q, q >> 2, q >> 1.
                std::vector<uint64_t> want;
                const uint64_t at[] = {q, q >> 2, q >> 1};
                for (size_t i = 0; i < mats.size(); ++i)
                    for (uint64_t c = 0; c < mats[i].cols; ++c)
                        for (uint32_t k = 0; k < mats[i].d; ++k) want.push_back(mats[i].at(at[i], c, k));
                EXPECT_EQ(from_bytes(rows, F.elem_size), want) << "index " << q;
                EXPECT_EQ(gp_merkle_verify(&o, F.field, dims.data(), (uint32_t)dims.size(), capb.data(),
                                           capb.size(), q, rows.data(), rb, path.data(), pb),
                          GP_OK)
                    << "index " << q << ": " << gp_last_error();
                path[0] ^= 1;
                EXPECT_EQ(gp_merkle_verify(&o, F.field, dims.data(), (uint32_t)dims.size(), capb.data(),
                                           capb.size(), q, rows.data(), rb, path.data(), pb),
                          GP_ERR_VERIFY_FAILED);
            }
            const uint64_t past = 12;
            std::vector<unsigned char> rows(rb);
            EXPECT_EQ(gp_merkle_open(raw, &past, 1, rows.data(), rb, nullptr, 0), GP_ERR_INVALID_ARGUMENT);
        }
    // Off the ladder: under 12 the heights are 6, 3, 2 and 1, not 5 or 4.
    for (uint64_t bad : {5ull, 4ull}) {
        const std::vector<HostMat> two = make_mats(F.field, {{12, 1, 1}, {bad, 1, 1}}, 47);
        Uploaded u2;
        ASSERT_GP_OK(upload_all(ctx(), ptrs_of(two), F.field, &u2));
        gp_merkle_options o = merkle_opts(GP_PERM_POSEIDON2_KOALABEAR_16);
        gp_merkle_tree *raw = nullptr;
        EXPECT_EQ(gp_merkle_commit(ctx(), u2.ptrs.data(), 2, &o, &raw), GP_ERR_SHAPE_MISMATCH);
        EXPECT_NE(std::string(gp_last_error()).find("cannot inject"), std::string::npos) << gp_last_error();
    }
    // A cap above the least height's layer would leave it unbound.
    gp_merkle_options o = merkle_opts(GP_PERM_POSEIDON2_KOALABEAR_16);
    o.cap_height = 3;  // the height-3 matrix enters at the layer of 3 (cap 2 at most)
    gp_merkle_tree *raw = nullptr;
    EXPECT_EQ(gp_merkle_commit(ctx(), up.ptrs.data(), (uint32_t)up.ptrs.size(), &o, &raw), GP_ERR_INVALID_ARGUMENT);
    // Trees of other kinds take powers of two.
    const std::vector<HostMat> gl = make_mats(GP_FIELD_GOLDILOCKS, {{6, 2, 1}}, 48);
    Uploaded u3;
    ASSERT_GP_OK(upload_all(ctx(), ptrs_of(gl), GP_FIELD_GOLDILOCKS, &u3));
    gp_merkle_options_init(&o);
    o.kind = GP_MERKLE_MIDEN;
    o.perm = GP_PERM_RPO256;
    EXPECT_EQ(gp_merkle_commit(ctx(), u3.ptrs.data(), 1, &o, &raw), GP_ERR_INVALID_ARGUMENT);
    EXPECT_NE(std::string(gp_last_error()).find("not a power of two"), std::string::npos) << gp_last_error();
    expect_context_works();
}

TEST_P(MerkleTest, ExtensionMatrices) {
    // Goldilocks degrees 2 and 3; BabyBear and KoalaBear degree 4; alone,
    // together with base-field matrices of the same height, and injected.
    check(GP_PERM_POSEIDON2_GOLDILOCKS_8, {{16, 3, 2}}, 40);
    check(GP_PERM_POSEIDON2_GOLDILOCKS_8, {{16, 1, 3}, {16, 2, 1}, {16, 2, 2}}, 41);
    check(GP_PERM_POSEIDON2_GOLDILOCKS_12, {{32, 5, 2}, {8, 3, 3}, {2, 1, 2}, {8, 1, 1}}, 42);
    check(GP_PERM_POSEIDON2_GOLDILOCKS_16, {{8, 7, 3}, {8, 2, 2}, {1, 4, 3}}, 43);
    for (gp_permutation perm : {GP_PERM_POSEIDON2_BABYBEAR_16, GP_PERM_POSEIDON2_BABYBEAR_24,
                                GP_PERM_POSEIDON2_KOALABEAR_16, GP_PERM_POSEIDON2_KOALABEAR_24}) {
        SCOPED_TRACE((int)perm);
        check(perm, {{16, 2, 4}}, 44);
        check(perm, {{16, 3, 4}, {16, 5, 1}, {4, 1, 4}, {4, 3, 1}, {1, 7, 4}}, 45);
    }
}

TEST_P(MerkleTest, ExtensionMatrixEqualsItsFlattenedBaseMatrix) {
    // A degree-d matrix commits exactly like the base matrix whose row is the
    // flattened row (c0 of col 0, c1 of col 0, c0 of col 1, ...).
    for (gp_field f : {GP_FIELD_GOLDILOCKS, GP_FIELD_BABYBEAR}) {
        const FieldRef &F = field_ref(f);
        const gp_permutation perm = f == GP_FIELD_GOLDILOCKS ? GP_PERM_POSEIDON2_GOLDILOCKS_8
                                                              : GP_PERM_POSEIDON2_BABYBEAR_16;
        for (uint32_t d : F.ext_degrees) {
            SCOPED_TRACE(std::string(F.name) + " degree " + std::to_string(d));
            Rng rng(50 + d);
            const HostMat ext = random_mat(F, 8, 3, d, rng);
            HostMat flat(8, 3 * d, 1);
            for (uint64_t r = 0; r < 8; ++r)
                for (uint64_t c = 0; c < 3; ++c)
                    for (uint32_t k = 0; k < d; ++k) flat.at(r, c * d + k, 0) = ext.at(r, c, k);
            Uploaded a, b;
            ASSERT_GP_OK(upload_all(ctx(), {&ext}, f, &a));
            ASSERT_GP_OK(upload_all(ctx(), {&flat}, f, &b));
            const uint64_t size = 2ull * default_digest(f) * F.elem_size;
            const gp_merkle_options o = merkle_opts(perm, 1);
            EXPECT_EQ(lib_cap(ctx(), a, o, size), lib_cap(ctx(), b, o, size));
        }
    }
}

TEST_P(MerkleTest, NonDefaultRateAndDigest) {
    struct Case {
        gp_permutation perm;
        uint32_t digest, rate;
    };
    const Case cases[] = {
        {GP_PERM_POSEIDON2_GOLDILOCKS_8, 2, 0},   /* rate 6 */
        {GP_PERM_POSEIDON2_GOLDILOCKS_8, 2, 2},
        {GP_PERM_POSEIDON2_GOLDILOCKS_8, 3, 5},
        {GP_PERM_POSEIDON2_GOLDILOCKS_8, 0, 7},   /* digest 4 */
        {GP_PERM_POSEIDON2_GOLDILOCKS_12, 6, 6},
        {GP_PERM_POSEIDON2_GOLDILOCKS_12, 4, 4},
        {GP_PERM_POSEIDON2_GOLDILOCKS_16, 8, 0},  /* rate 8 */
        {GP_PERM_POSEIDON2_GOLDILOCKS_16, 4, 8},
        {GP_PERM_POSEIDON2_BABYBEAR_16, 4, 0},    /* rate 12 */
        {GP_PERM_POSEIDON2_BABYBEAR_16, 4, 4},
        {GP_PERM_POSEIDON2_BABYBEAR_24, 12, 0},   /* rate 12 */
        {GP_PERM_POSEIDON2_BABYBEAR_24, 8, 8},
        {GP_PERM_POSEIDON2_KOALABEAR_16, 5, 9},
        {GP_PERM_POSEIDON2_KOALABEAR_24, 8, 23},
        {GP_PERM_POSEIDON2_KOALABEAR_24, 1, 1},
    };
    uint64_t seed = 60;
    for (const Case &c : cases) {
        const PermInfo info = perm_info(c.perm);
        const uint32_t dg = c.digest ? c.digest : default_digest(info.field);
        const uint32_t rate = c.rate ? c.rate : info.width - dg;
        SCOPED_TRACE("perm " + std::to_string((int)c.perm));
        check(c.perm, {{8, rate - 1 ? rate - 1 : 1, 1}}, seed++, c.digest, c.rate);
        check(c.perm, {{8, rate, 1}}, seed++, c.digest, c.rate);
        check(c.perm, {{8, rate + 1, 1}}, seed++, c.digest, c.rate);
        check(c.perm, {{8, 2 * rate, 1}}, seed++, c.digest, c.rate);
        check(c.perm, {{16, 3, 1}, {16, rate, 1}, {4, 2 * rate + 1, 1}, {2, 1, 1}}, seed++, c.digest, c.rate);
    }
}

TEST_P(MerkleTest, RowLengthAroundTheRate) {
    // Every row length from 1 to 3 * rate + 1 with the default Goldilocks
    // width-8 sponge (rate 4), leaves and injected rows.
    for (uint64_t cols = 1; cols <= 13; ++cols) {
        check(GP_PERM_POSEIDON2_GOLDILOCKS_8, {{4, cols, 1}}, 70 + cols, 0, 0, {0, 2});
        check(GP_PERM_POSEIDON2_GOLDILOCKS_8, {{4, 2, 1}, {2, cols, 1}}, 90 + cols, 0, 0, {0});
    }
}

TEST_P(MerkleTest, LargeHeights) {
    // 2^12 rows with every cap height (0..12), and injections down to 1 row.
    check(GP_PERM_POSEIDON2_GOLDILOCKS_8, {{4096, 6, 1}}, 200);
    check(GP_PERM_POSEIDON2_BABYBEAR_16, {{4096, 3, 1}, {4096, 2, 4}, {512, 9, 1}, {1, 3, 1}}, 201);
    check(GP_PERM_POSEIDON2_KOALABEAR_24, {{1024, 20, 1}, {2048, 1, 1}, {64, 2, 4}}, 202, 0, 0, {0, 5, 6});
    check(GP_PERM_POSEIDON2_GOLDILOCKS_12, {{2048, 3, 2}, {256, 4, 1}, {2, 1, 3}}, 203, 0, 0, {0, 1});
    check(GP_PERM_POSEIDON2_GOLDILOCKS_12, {{2048, 3, 2}, {256, 4, 1}}, 204, 0, 0, {0, 7, 8});
}

TEST_P(MerkleTest, SameBufferTwice) {
    const RefPerm P(GP_PERM_POSEIDON2_GOLDILOCKS_8);
    const FieldRef &F = field_ref(GP_FIELD_GOLDILOCKS);
    Rng rng(300);
    const HostMat m = random_mat(F, 8, 3, 1, rng), s = random_mat(F, 2, 2, 1, rng);
    Uploaded up;
    ASSERT_GP_OK(upload_all(ctx(), {&m, &s}, F.field, &up));
    up.ptrs = {up.ptrs[0], up.ptrs[1], up.ptrs[0], up.ptrs[1]};
    RefTree ref(P, {&m, &s, &m, &s}, 4, 4);
    for (uint32_t cap = 0; cap <= 1; ++cap)  // the least height is 2
        EXPECT_TRUE(caps_equal(lib_cap(ctx(), up, merkle_opts(GP_PERM_POSEIDON2_GOLDILOCKS_8, cap),
                                       (1ull << cap) * 32),
                               ref.cap_bytes(cap), 8, 4));
}

TEST_P(MerkleTest, OtherFieldPermutations) {
    // Not restricted by the header; an implementation may refuse them with
    // GP_ERR_UNSUPPORTED, but what it accepts must follow the same rules.
    for (const PermCase &pc : kOtherFieldPerms) {
        SCOPED_TRACE(pc.name);
        const FieldRef &F = field_ref(GP_FIELD_GOLDILOCKS);
        Rng rng(400);
        const HostMat m = random_mat(F, 4, 9, 1, rng);
        Uploaded up;
        ASSERT_GP_OK(upload_all(ctx(), {&m}, F.field, &up));
        const gp_merkle_options o = merkle_opts(pc.perm);
        gp_merkle_tree *raw = nullptr;
        const gp_status st = gp_merkle_commit(ctx(), up.ptrs.data(), 1, &o, &raw);
        TreePtr tree(raw);
        if (st == GP_ERR_UNSUPPORTED) {
            EXPECT_EQ(raw, nullptr);
            continue;
        }
        ASSERT_EQ(st, GP_OK) << gp_last_error();
        tree.reset();
        check(pc.perm, {{4, 9, 1}, {2, 3, 1}}, 401);
        check(pc.perm, {{8, 1, 1}}, 402, 2, 3);
    }
}

TEST_P(MerkleTest, RepeatedCommitsAndReads) {
    const RefPerm P(GP_PERM_POSEIDON2_BABYBEAR_16);
    const std::vector<HostMat> mats = make_mats(GP_FIELD_BABYBEAR, {{64, 5, 1}, {16, 2, 4}}, 500);
    RefTree ref(P, ptrs_of(mats), 8, 8);
    Uploaded up;
    ASSERT_GP_OK(upload_all(ctx(), ptrs_of(mats), GP_FIELD_BABYBEAR, &up));
    const gp_merkle_options o0 = merkle_opts(GP_PERM_POSEIDON2_BABYBEAR_16, 0);
    const gp_merkle_options o3 = merkle_opts(GP_PERM_POSEIDON2_BABYBEAR_16, 3);
    gp_merkle_tree *t0 = nullptr, *t3 = nullptr;
    ASSERT_GP_OK(gp_merkle_commit(ctx(), up.ptrs.data(), 2, &o0, &t0));
    TreePtr tree0(t0);
    ASSERT_GP_OK(gp_merkle_commit(ctx(), up.ptrs.data(), 2, &o3, &t3));
    TreePtr tree3(t3);
    // Two live trees over the same matrices, each read twice.
    for (int rep = 0; rep < 2; ++rep) {
        std::vector<unsigned char> c0(32), c3(8 * 32);
        ASSERT_EQ(gp_merkle_cap_size(t0), 32u);
        ASSERT_EQ(gp_merkle_cap_size(t3), 8u * 32u);
        ASSERT_GP_OK(gp_merkle_cap(t0, c0.data(), c0.size()));
        ASSERT_GP_OK(gp_merkle_cap(t3, c3.data(), c3.size()));
        EXPECT_TRUE(caps_equal(c0, ref.cap_bytes(0), 4, 8));
        EXPECT_TRUE(caps_equal(c3, ref.cap_bytes(3), 4, 8));
    }
}

TEST_P(MerkleTest, NullOptionsMeanDefaults) {
    // Not spelled out for gp_merkle_commit; the header's convention elsewhere
    // is that NULL options mean the defaults. Accept a refusal as
    // GP_ERR_NULL_POINTER, but an accepted call must use the defaults
    // (Poseidon2 Goldilocks width 8, digest 4, rate 4, root).
    const RefPerm P(GP_PERM_POSEIDON2_GOLDILOCKS_8);
    const std::vector<HostMat> mats = make_mats(GP_FIELD_GOLDILOCKS, {{8, 6, 1}}, 510);
    RefTree ref(P, ptrs_of(mats), 4, 4);
    Uploaded up;
    ASSERT_GP_OK(upload_all(ctx(), ptrs_of(mats), GP_FIELD_GOLDILOCKS, &up));
    gp_merkle_tree *raw = nullptr;
    const gp_status st = gp_merkle_commit(ctx(), up.ptrs.data(), 1, nullptr, &raw);
    TreePtr tree(raw);
    if (st == GP_ERR_NULL_POINTER) return;
    ASSERT_EQ(st, GP_OK) << gp_last_error();
    std::vector<unsigned char> cap((size_t)gp_merkle_cap_size(raw));
    ASSERT_EQ(cap.size(), 32u);
    ASSERT_GP_OK(gp_merkle_cap(raw, cap.data(), cap.size()));
    EXPECT_TRUE(caps_equal(cap, ref.cap_bytes(0), 8, 4));
}

TEST(MerkleOptions, InitDefaults) {
    gp_merkle_options o;
    std::memset(&o, 0xab, sizeof o);
    gp_merkle_options_init(&o);
    EXPECT_EQ(o.struct_size, sizeof o);
    EXPECT_EQ(o.kind, GP_MERKLE_FIELD_SPONGE);
    EXPECT_EQ(o.perm, GP_PERM_POSEIDON2_GOLDILOCKS_8);
    EXPECT_EQ(o.digest, 0u);
    EXPECT_EQ(o.rate, 0u);
    EXPECT_EQ(o.cap_height, 0u);
}

TEST_P(MerkleTest, ShorterOptionsStructUsesDefaultsForTheRest) {
    // An older caller's struct without cap_height: the field takes its
    // default (the root), whatever lies after the declared size.
    const RefPerm P(GP_PERM_POSEIDON2_BABYBEAR_16);
    const std::vector<HostMat> mats = make_mats(GP_FIELD_BABYBEAR, {{16, 4, 1}}, 520);
    RefTree ref(P, ptrs_of(mats), 8, 8);
    Uploaded up;
    ASSERT_GP_OK(upload_all(ctx(), ptrs_of(mats), GP_FIELD_BABYBEAR, &up));
    gp_merkle_options o = merkle_opts(GP_PERM_POSEIDON2_BABYBEAR_16, 99);
    o.struct_size = (uint32_t)offsetof(gp_merkle_options, cap_height);
    EXPECT_TRUE(caps_equal(lib_cap(ctx(), up, o, 32), ref.cap_bytes(0), 4, 8));
}

/* ------------------------------------------------------------------------ */
/* Cap size and cap reads                                                   */
/* ------------------------------------------------------------------------ */

TEST_P(MerkleTest, CapSize) {
    struct Case {
        gp_permutation perm;
        uint32_t digest;
    };
    for (const Case &c : {Case{GP_PERM_POSEIDON2_GOLDILOCKS_8, 0}, Case{GP_PERM_POSEIDON2_GOLDILOCKS_16, 7},
                          Case{GP_PERM_POSEIDON2_BABYBEAR_16, 0}, Case{GP_PERM_POSEIDON2_KOALABEAR_24, 3}}) {
        const PermInfo info = perm_info(c.perm);
        const FieldRef &F = field_ref(info.field);
        const uint32_t dg = c.digest ? c.digest : default_digest(info.field);
        const std::vector<HostMat> mats = make_mats(info.field, {{32, 2, 1}}, 600);
        Uploaded up;
        ASSERT_GP_OK(upload_all(ctx(), ptrs_of(mats), info.field, &up));
        for (uint32_t cap = 0; cap <= 5; ++cap) {
            const gp_merkle_options o = merkle_opts(c.perm, cap, c.digest);
            gp_merkle_tree *raw = nullptr;
            ASSERT_GP_OK(gp_merkle_commit(ctx(), up.ptrs.data(), 1, &o, &raw));
            TreePtr tree(raw);
            EXPECT_EQ(gp_merkle_cap_size(raw), (1ull << cap) * dg * F.elem_size)
                << "perm " << (int)c.perm << " cap_height " << cap;
        }
    }
    EXPECT_EQ(gp_merkle_cap_size(nullptr), 0u);
}

TEST_P(MerkleTest, CapReadBounds) {
    const RefPerm P(GP_PERM_POSEIDON2_GOLDILOCKS_8);
    const std::vector<HostMat> mats = make_mats(GP_FIELD_GOLDILOCKS, {{16, 5, 1}}, 610);
    RefTree ref(P, ptrs_of(mats), 4, 4);
    Uploaded up;
    ASSERT_GP_OK(upload_all(ctx(), ptrs_of(mats), GP_FIELD_GOLDILOCKS, &up));
    const gp_merkle_options o = merkle_opts(GP_PERM_POSEIDON2_GOLDILOCKS_8, 2);
    gp_merkle_tree *raw = nullptr;
    ASSERT_GP_OK(gp_merkle_commit(ctx(), up.ptrs.data(), 1, &o, &raw));
    TreePtr tree(raw);
    const uint64_t size = gp_merkle_cap_size(raw);
    ASSERT_EQ(size, 4u * 4u * 8u);

    // Too small: refused, nothing written.
    std::vector<unsigned char> small((size_t)size - 1, 0x5a);
    EXPECT_GP_ERR(gp_merkle_cap(raw, small.data(), small.size()), GP_ERR_INVALID_ARGUMENT);
    EXPECT_EQ(small, std::vector<unsigned char>(small.size(), 0x5a));
    EXPECT_GP_ERR(gp_merkle_cap(raw, small.data(), 0), GP_ERR_INVALID_ARGUMENT);
    // NULL tree / NULL out.
    EXPECT_GP_ERR(gp_merkle_cap(nullptr, small.data(), size), GP_ERR_NULL_POINTER);
    EXPECT_GP_ERR(gp_merkle_cap(raw, nullptr, size), GP_ERR_NULL_POINTER);
    // Larger than needed: the cap, and the bytes after it untouched.
    std::vector<unsigned char> big((size_t)size + 16, 0xc3);
    ASSERT_GP_OK(gp_merkle_cap(raw, big.data(), big.size()));
    EXPECT_TRUE(caps_equal(std::vector<unsigned char>(big.begin(), big.begin() + size), ref.cap_bytes(2), 8, 4));
    EXPECT_EQ(std::vector<unsigned char>(big.begin() + size, big.end()), std::vector<unsigned char>(16, 0xc3));
    // Exact size, after the failures.
    std::vector<unsigned char> exact((size_t)size);
    ASSERT_GP_OK(gp_merkle_cap(raw, exact.data(), exact.size()));
    EXPECT_TRUE(caps_equal(exact, ref.cap_bytes(2), 8, 4));
    EXPECT_STREQ(gp_last_error(), "");
}

/* ------------------------------------------------------------------------ */
/* Bad input                                                                */
/* ------------------------------------------------------------------------ */

// Expects `call` (a gp_merkle_commit writing to `out_var`) to fail with one
// of the codes, leave no tree, and leave the context usable.
#define EXPECT_COMMIT_FAILS(out_var, call, ...)                  \
    do {                                                         \
        out_var = nullptr;                                       \
        EXPECT_GP_ERR_ANY(call, __VA_ARGS__);                    \
        EXPECT_EQ(out_var, nullptr) << #call << " left a tree";  \
        gp_merkle_tree_destroy(out_var);                         \
        out_var = nullptr;                                       \
        expect_context_works();                                  \
    } while (0)

TEST_P(MerkleTest, BadPointersAndCounts) {
    const std::vector<HostMat> mats = make_mats(GP_FIELD_GOLDILOCKS, {{8, 3, 1}}, 700);
    Uploaded up;
    ASSERT_GP_OK(upload_all(ctx(), ptrs_of(mats), GP_FIELD_GOLDILOCKS, &up));
    const gp_merkle_options o = merkle_opts(GP_PERM_POSEIDON2_GOLDILOCKS_8);
    gp_merkle_tree *t = nullptr;
    EXPECT_COMMIT_FAILS(t, gp_merkle_commit(nullptr, up.ptrs.data(), 1, &o, &t), GP_ERR_NULL_POINTER);
    EXPECT_COMMIT_FAILS(t, gp_merkle_commit(ctx(), nullptr, 1, &o, &t), GP_ERR_NULL_POINTER);
    EXPECT_GP_ERR(gp_merkle_commit(ctx(), up.ptrs.data(), 1, &o, nullptr), GP_ERR_NULL_POINTER);
    expect_context_works();
    const gp_buffer *with_null[2] = {up.ptrs[0], nullptr};
    EXPECT_COMMIT_FAILS(t, gp_merkle_commit(ctx(), with_null, 2, &o, &t), GP_ERR_NULL_POINTER);
    EXPECT_COMMIT_FAILS(t, gp_merkle_commit(ctx(), up.ptrs.data(), 0, &o, &t), GP_ERR_INVALID_ARGUMENT);
    gp_merkle_tree_destroy(nullptr); /* no-op */
    EXPECT_EQ(gp_merkle_cap_size(nullptr), 0u);
}

TEST_P(MerkleTest, MatrixFromAnotherContext) {
    CtxPtr other;
    ASSERT_GP_OK(make_context(GP_BACKEND_CPU, &other));
    const std::vector<HostMat> mats = make_mats(GP_FIELD_GOLDILOCKS, {{8, 3, 1}, {4, 2, 1}}, 710);
    Uploaded mine, theirs;
    ASSERT_GP_OK(upload_all(ctx(), ptrs_of(mats), GP_FIELD_GOLDILOCKS, &mine));
    ASSERT_GP_OK(upload_all(other.get(), ptrs_of(mats), GP_FIELD_GOLDILOCKS, &theirs));
    const gp_merkle_options o = merkle_opts(GP_PERM_POSEIDON2_GOLDILOCKS_8);
    gp_merkle_tree *t = nullptr;
    const gp_buffer *mixed[2] = {mine.ptrs[0], theirs.ptrs[1]};
    EXPECT_COMMIT_FAILS(t, gp_merkle_commit(ctx(), mixed, 2, &o, &t), GP_ERR_CONTEXT_MISMATCH);
    EXPECT_COMMIT_FAILS(t, gp_merkle_commit(ctx(), theirs.ptrs.data(), 2, &o, &t), GP_ERR_CONTEXT_MISMATCH);
    // Both contexts still commit their own buffers to the same cap.
    std::vector<unsigned char> a = lib_cap(ctx(), mine, o, 32);
    std::vector<unsigned char> b = lib_cap(other.get(), theirs, o, 32);
    EXPECT_EQ(a, b);
}

TEST_P(MerkleTest, FieldMismatch) {
    const std::vector<HostMat> gl = make_mats(GP_FIELD_GOLDILOCKS, {{8, 3, 1}}, 720);
    const std::vector<HostMat> bb = make_mats(GP_FIELD_BABYBEAR, {{8, 3, 1}, {4, 1, 4}}, 721);
    const std::vector<HostMat> kb = make_mats(GP_FIELD_KOALABEAR, {{8, 3, 1}}, 722);
    Uploaded ugl, ubb, ukb;
    ASSERT_GP_OK(upload_all(ctx(), ptrs_of(gl), GP_FIELD_GOLDILOCKS, &ugl));
    ASSERT_GP_OK(upload_all(ctx(), ptrs_of(bb), GP_FIELD_BABYBEAR, &ubb));
    ASSERT_GP_OK(upload_all(ctx(), ptrs_of(kb), GP_FIELD_KOALABEAR, &ukb));
    gp_merkle_tree *t = nullptr;
    const gp_merkle_options ogl = merkle_opts(GP_PERM_POSEIDON2_GOLDILOCKS_8);
    const gp_merkle_options obb = merkle_opts(GP_PERM_POSEIDON2_BABYBEAR_16);
    const gp_merkle_options okb = merkle_opts(GP_PERM_POSEIDON2_KOALABEAR_24);
    EXPECT_COMMIT_FAILS(t, gp_merkle_commit(ctx(), ubb.ptrs.data(), 1, &ogl, &t), GP_ERR_FIELD_MISMATCH);
    EXPECT_COMMIT_FAILS(t, gp_merkle_commit(ctx(), ubb.ptrs.data() + 1, 1, &ogl, &t), GP_ERR_FIELD_MISMATCH);
    EXPECT_COMMIT_FAILS(t, gp_merkle_commit(ctx(), ugl.ptrs.data(), 1, &obb, &t), GP_ERR_FIELD_MISMATCH);
    EXPECT_COMMIT_FAILS(t, gp_merkle_commit(ctx(), ubb.ptrs.data(), 1, &okb, &t), GP_ERR_FIELD_MISMATCH);
    EXPECT_COMMIT_FAILS(t, gp_merkle_commit(ctx(), ukb.ptrs.data(), 1, &obb, &t), GP_ERR_FIELD_MISMATCH);
    // One matrix of the right field and one of another.
    const gp_buffer *mixed[2] = {ubb.ptrs[0], ukb.ptrs[0]};
    EXPECT_COMMIT_FAILS(t, gp_merkle_commit(ctx(), mixed, 2, &obb, &t), GP_ERR_FIELD_MISMATCH);
    const gp_buffer *mixed2[2] = {ugl.ptrs[0], ubb.ptrs[0]};
    EXPECT_COMMIT_FAILS(t, gp_merkle_commit(ctx(), mixed2, 2, &ogl, &t), GP_ERR_FIELD_MISMATCH);
}

TEST_P(MerkleTest, HeightsOffTheLadder) {
    const std::vector<HostMat> mats =
        make_mats(GP_FIELD_GOLDILOCKS, {{3, 2, 1}, {8, 2, 1}, {6, 1, 1}, {12, 1, 1}, {5, 1, 1}}, 730);
    Uploaded up;
    ASSERT_GP_OK(upload_all(ctx(), ptrs_of(mats), GP_FIELD_GOLDILOCKS, &up));
    const gp_merkle_options o = merkle_opts(GP_PERM_POSEIDON2_GOLDILOCKS_8);
    gp_merkle_tree *t = nullptr;
    /* Plonky3's MMCS: one matrix of any height, and heights on the ladder
     * ceil(max / 2^k) under the tallest (12 takes 6). */
    ASSERT_GP_OK(gp_merkle_commit(ctx(), &up.ptrs[0], 1, &o, &t));
    gp_merkle_tree_destroy(t);
    const gp_buffer *ladder[2] = {up.ptrs[3], up.ptrs[2]};
    ASSERT_GP_OK(gp_merkle_commit(ctx(), ladder, 2, &o, &t));
    gp_merkle_tree_destroy(t);
    /* 3 under 8 (whose ladder is 4, 2, 1) and 5 under 8 are not. */
    t = nullptr;
    EXPECT_COMMIT_FAILS(t, gp_merkle_commit(ctx(), &up.ptrs[0], 2, &o, &t), GP_ERR_SHAPE_MISMATCH);
    const gp_buffer *off[2] = {up.ptrs[1], up.ptrs[4]};
    EXPECT_COMMIT_FAILS(t, gp_merkle_commit(ctx(), off, 2, &o, &t), GP_ERR_SHAPE_MISMATCH);
}

TEST_P(MerkleTest, CapHeightAboveTreeHeight) {
    const std::vector<HostMat> mats = make_mats(GP_FIELD_GOLDILOCKS, {{8, 2, 1}, {1, 1, 1}}, 740);
    Uploaded up;
    ASSERT_GP_OK(upload_all(ctx(), ptrs_of(mats), GP_FIELD_GOLDILOCKS, &up));
    gp_merkle_tree *t = nullptr;
    for (uint32_t cap : {4u, 5u, 31u, 32u, 64u, 0xffffffffu}) {
        SCOPED_TRACE("cap_height " + std::to_string(cap));
        const gp_merkle_options o = merkle_opts(GP_PERM_POSEIDON2_GOLDILOCKS_8, cap);
        EXPECT_COMMIT_FAILS(t, gp_merkle_commit(ctx(), up.ptrs.data(), 2, &o, &t), GP_ERR_INVALID_ARGUMENT);
        EXPECT_COMMIT_FAILS(t, gp_merkle_commit(ctx(), up.ptrs.data(), 1, &o, &t), GP_ERR_INVALID_ARGUMENT);
    }
    const gp_merkle_options o1 = merkle_opts(GP_PERM_POSEIDON2_GOLDILOCKS_8, 1);
    EXPECT_COMMIT_FAILS(t, gp_merkle_commit(ctx(), &up.ptrs[1], 1, &o1, &t), GP_ERR_INVALID_ARGUMENT);
    // With the one-row matrix injected at the root, any cap above the root
    // would leave it unbound.
    EXPECT_EQ(gp_merkle_commit(ctx(), up.ptrs.data(), 2, &o1, &t), GP_ERR_INVALID_ARGUMENT);
    EXPECT_EQ(t, nullptr);
    EXPECT_NE(std::string(gp_last_error()).find("least height"), std::string::npos) << gp_last_error();
    // cap_height 3 == log2(8) is the leaf layer: valid for the 8-row matrix alone.
    const gp_merkle_options o3 = merkle_opts(GP_PERM_POSEIDON2_GOLDILOCKS_8, 3);
    ASSERT_GP_OK(gp_merkle_commit(ctx(), up.ptrs.data(), 1, &o3, &t));
    gp_merkle_tree_destroy(t);
}

TEST_P(MerkleTest, BadDigestAndRate) {
    const std::vector<HostMat> gl = make_mats(GP_FIELD_GOLDILOCKS, {{8, 5, 1}}, 750);
    const std::vector<HostMat> bb = make_mats(GP_FIELD_BABYBEAR, {{8, 5, 1}}, 751);
    Uploaded ugl, ubb;
    ASSERT_GP_OK(upload_all(ctx(), ptrs_of(gl), GP_FIELD_GOLDILOCKS, &ugl));
    ASSERT_GP_OK(upload_all(ctx(), ptrs_of(bb), GP_FIELD_BABYBEAR, &ubb));
    gp_merkle_tree *t = nullptr;
    struct Case {
        gp_permutation perm;
        uint32_t digest, rate;
    };
    const Case bad[] = {
        {GP_PERM_POSEIDON2_GOLDILOCKS_8, 5, 0},    /* 2 * 5 > 8 */
        {GP_PERM_POSEIDON2_GOLDILOCKS_8, 5, 3},
        {GP_PERM_POSEIDON2_GOLDILOCKS_12, 7, 4},   /* 2 * 7 > 12 */
        {GP_PERM_POSEIDON2_GOLDILOCKS_16, 9, 0},
        {GP_PERM_POSEIDON2_GOLDILOCKS_8, 0xffffffffu, 0},
        {GP_PERM_POSEIDON2_GOLDILOCKS_8, 0x80000000u, 0}, /* 2 * digest wraps to 0 */
        {GP_PERM_POSEIDON2_GOLDILOCKS_8, 0, 9},    /* rate > width */
        {GP_PERM_POSEIDON2_GOLDILOCKS_16, 4, 17},
        {GP_PERM_POSEIDON2_GOLDILOCKS_8, 0, 0xffffffffu},
        {GP_PERM_POSEIDON2_BABYBEAR_16, 9, 0},     /* 2 * 9 > 16 */
        {GP_PERM_POSEIDON2_BABYBEAR_24, 13, 0},
        {GP_PERM_POSEIDON2_BABYBEAR_16, 0, 17},
        {GP_PERM_POSEIDON2_KOALABEAR_24, 8, 25},
    };
    for (const Case &c : bad) {
        SCOPED_TRACE("perm " + std::to_string((int)c.perm) + " digest " + std::to_string(c.digest) + " rate " +
                     std::to_string(c.rate));
        const gp_merkle_options o = merkle_opts(c.perm, 0, c.digest, c.rate);
        const bool gold = perm_info(c.perm).field == GP_FIELD_GOLDILOCKS;
        EXPECT_COMMIT_FAILS(t, gp_merkle_commit(ctx(), gold ? ugl.ptrs.data() : ubb.ptrs.data(), 1, &o, &t),
                            GP_ERR_INVALID_ARGUMENT);
    }
}

TEST_P(MerkleTest, RateOutsidePlonky3Bounds) {
    // Plonky3's PaddingFreeSponge::new asserts RATE < WIDTH and OUT <= RATE
    // (symmetric/src/sponge.rs). The header only bounds 2 * digest <= width,
    // so rate == width and rate < digest may be accepted or refused with
    // GP_ERR_INVALID_ARGUMENT; what is accepted must follow the sponge rules.
    struct Case {
        gp_permutation perm;
        uint32_t digest, rate;
    };
    const Case cases[] = {
        {GP_PERM_POSEIDON2_GOLDILOCKS_8, 4, 8},  /* rate == width */
        {GP_PERM_POSEIDON2_GOLDILOCKS_8, 4, 2},  /* rate < digest */
        {GP_PERM_POSEIDON2_BABYBEAR_16, 0, 16},
        {GP_PERM_POSEIDON2_BABYBEAR_16, 8, 1},
    };
    for (const Case &c : cases) {
        SCOPED_TRACE("perm " + std::to_string((int)c.perm) + " digest " + std::to_string(c.digest) + " rate " +
                     std::to_string(c.rate));
        const PermInfo info = perm_info(c.perm);
        const std::vector<HostMat> mats = make_mats(info.field, {{4, 3, 1}}, 760);
        Uploaded up;
        ASSERT_GP_OK(upload_all(ctx(), ptrs_of(mats), info.field, &up));
        const gp_merkle_options o = merkle_opts(c.perm, 0, c.digest, c.rate);
        gp_merkle_tree *raw = nullptr;
        const gp_status st = gp_merkle_commit(ctx(), up.ptrs.data(), 1, &o, &raw);
        TreePtr tree(raw);
        if (st != GP_OK) {
            EXPECT_EQ(st, GP_ERR_INVALID_ARGUMENT) << gp_last_error();
            EXPECT_EQ(raw, nullptr);
            continue;
        }
        tree.reset();
        check(c.perm, {{4, 3, 1}, {2, 2 * c.rate + 1, 1}, {4, c.rate, 1}}, 761, c.digest, c.rate);
    }
}

TEST_P(MerkleTest, BadPermutationKindAndStructSize) {
    const std::vector<HostMat> mats = make_mats(GP_FIELD_GOLDILOCKS, {{8, 5, 1}}, 770);
    Uploaded up;
    ASSERT_GP_OK(upload_all(ctx(), ptrs_of(mats), GP_FIELD_GOLDILOCKS, &up));
    gp_merkle_tree *t = nullptr;
    gp_merkle_options o = merkle_opts(GP_PERM_KECCAK_F1600);
    // Keccak-f has no field (it works on raw lanes): no field sponge over it.
    // FIELD_MISMATCH is also a fair reading (its field is 0).
    EXPECT_COMMIT_FAILS(t, gp_merkle_commit(ctx(), up.ptrs.data(), 1, &o, &t), GP_ERR_UNSUPPORTED,
                        GP_ERR_INVALID_ARGUMENT, GP_ERR_FIELD_MISMATCH);
    o = merkle_opts(GP_PERM_POSEIDON2_GOLDILOCKS_8);
    store_raw(&o.perm, 0);
    EXPECT_COMMIT_FAILS(t, gp_merkle_commit(ctx(), up.ptrs.data(), 1, &o, &t), GP_ERR_INVALID_ARGUMENT);
    o = merkle_opts(GP_PERM_POSEIDON2_GOLDILOCKS_8);
    store_raw(&o.kind, 0);
    EXPECT_COMMIT_FAILS(t, gp_merkle_commit(ctx(), up.ptrs.data(), 1, &o, &t), GP_ERR_INVALID_ARGUMENT,
                        GP_ERR_UNSUPPORTED);
    if (!GP_TEST_SANITIZED) {
        o = merkle_opts(GP_PERM_POSEIDON2_GOLDILOCKS_8);
        store_raw(&o.perm, 99);
        EXPECT_COMMIT_FAILS(t, gp_merkle_commit(ctx(), up.ptrs.data(), 1, &o, &t), GP_ERR_INVALID_ARGUMENT);
        o = merkle_opts(GP_PERM_POSEIDON2_GOLDILOCKS_8);
        store_raw(&o.kind, 2);
        EXPECT_COMMIT_FAILS(t, gp_merkle_commit(ctx(), up.ptrs.data(), 1, &o, &t), GP_ERR_INVALID_ARGUMENT,
                            GP_ERR_UNSUPPORTED);
    }
    o = merkle_opts(GP_PERM_POSEIDON2_GOLDILOCKS_8);
    o.struct_size = 0;
    EXPECT_COMMIT_FAILS(t, gp_merkle_commit(ctx(), up.ptrs.data(), 1, &o, &t), GP_ERR_INVALID_ARGUMENT);
}

INSTANTIATE_TEST_SUITE_P(Backends, MerkleTest, ::testing::Values(GP_BACKEND_CPU, GP_BACKEND_CUDA),
                         [](const ::testing::TestParamInfo<gp_backend> &info) {
                             return std::string(backend_name(info.param));
                         });

}  // namespace
