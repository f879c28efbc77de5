// SPDX-License-Identifier: MIT OR Apache-2.0
// GP_MERKLE_WINTERFELL and its hashes against winter-crypto v0.13.1
// (tests/vectors/winterfell_merkle.json and rp64_256.json, computed by
// running the crate; rp64_256.json also holds the crate's own permutation
// test vector): Rp64_256's permutation (the header and gp_permute_batch),
// hash_elements of rows of 0 to 520 elements (partial sponge blocks,
// several BLAKE3 chunks) and merge for Sha3_256, Blake3_256, Blake3_192 and
// Rp64_256, the streamed sponge pieces against the whole-row hash, and
// whole trees (2 to 16 leaves, several matrices, quadratic and cubic
// extension columns): every layer, roots, caps, openings, row hashes and
// gp_merkle_verify, on every backend; then contexts of several devices,
// gp_constraint_commit and the refusals.
#include <gtest/gtest.h>

#include <cstdint>
#include <cstring>
#include <map>
#include <memory>
#include <string>
#include <vector>

#include "hash/rp64.h"
#include "hash/tree_hash.h"
#include "test_util.h"

using namespace gpt;

namespace {

// ---- a small JSON reader (values, as the vector files hold them) ----

struct Json {
    enum Kind { Null, Bool, Number, String, Array, Object } kind = Null;
    std::string text;  // a string's contents or a number's digits
    std::vector<Json> items;
    std::vector<std::pair<std::string, Json>> members;

    const Json &operator[](const std::string &key) const {
        for (const auto &m : members)
            if (m.first == key) return m.second;
        static const Json none;
        ADD_FAILURE() << "no key " << key;
        return none;
    }
    const Json &operator[](size_t i) const { return items.at(i); }
    size_t size() const { return kind == Object ? members.size() : items.size(); }
    uint64_t u64() const {
        return text.rfind("0x", 0) == 0 ? std::stoull(text.substr(2), nullptr, 16) : std::stoull(text);
    }
    Elems elems() const {
        Elems v;
        for (const Json &j : items) v.push_back(j.u64());
        return v;
    }
};

struct JsonParser {
    const std::string &t;
    size_t i = 0;
    void ws() {
        while (i < t.size() && std::isspace((unsigned char)t[i])) ++i;
    }
    Json value() {
        ws();
        Json j;
        if (t[i] == '{') {
            j.kind = Json::Object;
            ++i;
            for (ws(); t[i] != '}';) {
                Json k = value();
                ws();
                ++i;  // ':'
                j.members.emplace_back(k.text, value());
                ws();
                if (t[i] == ',') ++i, ws();
            }
            ++i;
        } else if (t[i] == '[') {
            j.kind = Json::Array;
            ++i;
            for (ws(); t[i] != ']';) {
                j.items.push_back(value());
                ws();
                if (t[i] == ',') ++i, ws();
            }
            ++i;
        } else if (t[i] == '"') {
            j.kind = Json::String;
            for (++i; t[i] != '"'; ++i) {
                if (t[i] == '\\') ++i;  // the files escape nothing but quotes
                j.text += t[i];
            }
            ++i;
        } else if (t.compare(i, 4, "true") == 0 || t.compare(i, 5, "false") == 0) {
            j.kind = Json::Bool;
            j.text = t[i] == 't' ? "true" : "false";
            i += j.text.size();
        } else if (t.compare(i, 4, "null") == 0) {
            i += 4;
        } else {
            j.kind = Json::Number;
            while (i < t.size() && (std::isdigit((unsigned char)t[i]) || t[i] == '-')) j.text += t[i++];
        }
        return j;
    }
};

const Json &vectors(const char *file) {
    static std::map<std::string, std::unique_ptr<Json>> cache;
    auto &slot = cache[file];
    if (!slot) {
        const std::string text = read_text_file(vectors_path(file));
        EXPECT_FALSE(text.empty()) << "cannot read " << vectors_path(file);
        JsonParser p{text};
        slot = std::make_unique<Json>(text.empty() ? Json{} : p.value());
    }
    return *slot;
}

Bytes from_hex(const std::string &h) {
    Bytes b(h.size() / 2);
    for (size_t k = 0; k < b.size(); ++k) b[k] = (unsigned char)std::stoul(h.substr(2 * k, 2), nullptr, 16);
    return b;
}

// The digests of a JSON array, back to back.
Bytes digests(const Json &arr, size_t from = 0, size_t count = (size_t)-1) {
    Bytes out;
    for (size_t k = from; k < arr.size() && k - from < count; ++k) {
        const Bytes d = from_hex(arr[k].text);
        out.insert(out.end(), d.begin(), d.end());
    }
    return out;
}

// ---- the hashers ----

struct Hasher {
    const char *name;  // the key in winterfell_merkle.json
    gp_permutation perm;
    uint32_t digest_bytes;
};
const Hasher kHashers[] = {{"Sha3_256", GP_PERM_SHA3_256, 32},
                           {"Blake3_256", GP_PERM_BLAKE3, 32},
                           {"Blake3_192", GP_PERM_BLAKE3_192, 24},
                           {"Rp64_256", GP_PERM_RP64_256, 32}};

gp_merkle_options wf_opts(gp_permutation perm, uint32_t cap_height = 0) {
    gp_merkle_options o;
    gp_merkle_options_init(&o);
    o.kind = GP_MERKLE_WINTERFELL;
    o.perm = perm;
    o.cap_height = cap_height;
    return o;
}

// Calls fn(h) with the library's tree hasher of `perm` (host code).
template <class Fn>
void with_hasher(gp_permutation perm, Fn &&fn) {
    switch (perm) {
        case GP_PERM_SHA3_256: fn(gp::WinterfellSha3Hasher{}); break;
        case GP_PERM_BLAKE3: fn(gp::WinterfellBlake3Hasher<4>{}); break;
        case GP_PERM_BLAKE3_192: fn(gp::WinterfellBlake3Hasher<3>{}); break;
        default: fn(gp::WinterfellRpHasher{}); break;
    }
}

// A digest's words as winterfell's bytes (little-endian words).
template <class H>
Bytes digest_bytes(const H &h, const uint64_t *w) {
    return le_bytes(Elems(w, w + h.digest), 8);
}

// A tree of the vector file as the library's buffers: one per matrix, its
// rows cut out of the file's concatenated rows.
struct WfTree {
    uint64_t height = 0;
    std::vector<MatSpec> specs;
    std::vector<HostMat> mats;
    Elems rows;  // row-major, every matrix's row concatenated
    uint64_t width = 0;

    explicit WfTree(const Json &t) {
        height = t["height"].u64();
        rows = t["rows"].elems();
        for (const Json &m : t["matrices"].items) specs.push_back({height, m["cols"].u64(), (uint32_t)m["ext"].u64()});
        for (const MatSpec &s : specs) width += s.cols * s.d;
        EXPECT_EQ(rows.size(), height * width);
        uint64_t at = 0;
        for (const MatSpec &s : specs) {
            HostMat m(s.rows, s.cols, s.d);
            for (uint64_t r = 0; r < height; ++r)
                for (uint64_t c = 0; c < s.cols; ++c)
                    for (uint32_t k = 0; k < s.d; ++k) m.at(r, c, k) = rows[r * width + at + c * s.d + k];
            at += s.cols * s.d;
            mats.push_back(std::move(m));
        }
    }
    std::vector<gp_matrix_dims> dims() const {
        std::vector<gp_matrix_dims> d;
        for (const MatSpec &s : specs) d.push_back({s.rows, (uint32_t)s.cols, s.d});
        return d;
    }
    Bytes row_bytes(uint64_t r) const { return le_bytes(Elems(&rows[r * width], &rows[r * width] + width), 8); }
};

struct Uploaded {
    std::vector<BufPtr> bufs;
    std::vector<const gp_buffer *> ptrs;
    Uploaded(gp_context *ctx, const std::vector<HostMat> &mats) {
        const FieldRef &F = field_ref(GP_FIELD_GOLDILOCKS);
        for (const HostMat &m : mats) {
            bufs.emplace_back();
            EXPECT_EQ(upload(ctx, F, m, GP_LAYOUT_COL_MAJOR, &bufs.back()), GP_OK) << gp_last_error();
            ptrs.push_back(bufs.back().get());
        }
    }
};

TreePtr commit(gp_context *ctx, const Uploaded &u, const gp_merkle_options &o) {
    gp_merkle_tree *t = nullptr;
    EXPECT_EQ(gp_merkle_commit(ctx, u.ptrs.data(), (uint32_t)u.ptrs.size(), &o, &t), GP_OK) << gp_last_error();
    return TreePtr(t);
}

Bytes root_of(const gp_merkle_tree *t) {
    Bytes r(gp_merkle_digest_size(t));
    EXPECT_EQ(gp_merkle_root(t, r.data(), r.size()), GP_OK) << gp_last_error();
    return r;
}

class WinterfellTrees : public BackendTest {};

}  // namespace

// Rp64_256's permutation: the crate's own test vector (Sage reference) and
// states run through the crate, in the header and through gp_permute_batch.
TEST(Rp64Permutation, MatchesWinterfell) {
    const Json &v = vectors("rp64_256.json");
    CtxPtr cpu;
    ASSERT_GP_OK(make_context(GP_BACKEND_CPU, &cpu));
    size_t n = 0;
    for (const char *set : {"upstream_vectors", "derived_vectors"})
        for (const Json &c : v[set].items) {
            const Elems in = c["input"].elems(), want = c["output"].elems();
            ASSERT_EQ(in.size(), 12u);
            Elems s = in;
            gp::rp64_256_permute(s.data());
            EXPECT_EQ(s, want) << set;
            s = in;
            ASSERT_GP_OK(gp_permute_batch(cpu.get(), GP_PERM_RP64_256, s.data(), 1));
            EXPECT_EQ(s, want) << set;
            ++n;
        }
    EXPECT_EQ(n, 4u);
    // Not RPO256: the same state through the library's RPO differs.
    Elems s = v["upstream_vectors"][0]["input"].elems();
    ASSERT_GP_OK(gp_permute_batch(cpu.get(), GP_PERM_RPO256, s.data(), 1));
    EXPECT_NE(s, v["upstream_vectors"][0]["output"].elems());
}

// The new ids in gp_permutation_info and gp_permute_batch.
TEST(Rp64Permutation, InfoAndHashIdsRefused) {
    uint32_t width = 0;
    gp_field field = GP_FIELD_BABYBEAR;
    ASSERT_GP_OK(gp_permutation_info(GP_PERM_RP64_256, &width, &field));
    EXPECT_EQ(width, 12u);
    EXPECT_EQ(field, GP_FIELD_GOLDILOCKS);
    ASSERT_GP_OK(gp_permutation_info(GP_PERM_SHA3_256, &width, &field));
    EXPECT_EQ(width, 25u);
    EXPECT_EQ((int)field, 0);
    ASSERT_GP_OK(gp_permutation_info(GP_PERM_BLAKE3_192, &width, &field));
    EXPECT_EQ(width, 16u);
    EXPECT_EQ((int)field, 0);
    EXPECT_GP_ERR(gp_permutation_info(raw_enum<gp_permutation>(25), &width, &field), GP_ERR_INVALID_ARGUMENT);
    CtxPtr cpu;
    ASSERT_GP_OK(make_context(GP_BACKEND_CPU, &cpu));
    std::vector<uint64_t> state(25, 1);
    for (gp_permutation p : {GP_PERM_SHA3_256, GP_PERM_BLAKE3_192}) {
        EXPECT_GP_ERR(gp_permute_batch(cpu.get(), p, state.data(), 1), GP_ERR_UNSUPPORTED);
        EXPECT_NE(std::string(gp_last_error()).find("hash function"), std::string::npos) << gp_last_error();
    }
    std::vector<uint64_t> bad(12, 5);
    bad[3] = 0xffffffff00000001ull;
    EXPECT_GP_ERR(gp_permute_batch(cpu.get(), GP_PERM_RP64_256, bad.data(), 1), GP_ERR_NON_CANONICAL);
}

// hash_elements and merge of every hasher, in the host hashers; the
// streamed pieces (one sponge block or BLAKE3 chunk at a time) give the
// whole-row hash.
TEST(WinterfellHash, HashElementsAndMergeMatchWinterfell) {
    const Json &v = vectors("winterfell_merkle.json");
    const Json &inputs = v["hash_elements_inputs"];
    ASSERT_EQ(inputs.size(), 13u);
    for (const Hasher &hs : kHashers) {
        SCOPED_TRACE(hs.name);
        const Json &want = v["hashers"][hs.name];
        EXPECT_EQ(want["digest_bytes"].u64(), hs.digest_bytes);
        with_hasher(hs.perm, [&](auto h) {
            using H = decltype(h);
            std::vector<Bytes> got;
            for (size_t i = 0; i < inputs.size(); ++i) {
                const Elems in = inputs[i]["elements"].elems();
                SCOPED_TRACE("n = " + std::to_string(in.size()));
                const gp::MatView<uint64_t> view{in.data(), 1, in.size(), 1};
                uint64_t out[4] = {0, 0, 0, 0};
                h.hash_row(&view, 0, 1, 0, out);
                got.push_back(digest_bytes(h, out));
                EXPECT_TRUE(bytes_equal(got.back(), from_hex(want["hash_elements"][i].text), hs.digest_bytes));
                // The same through the sponge pieces, a block at a time.
                typename H::S s[H::kState];
                const uint64_t n = in.size();
                h.init(s, n);
                gp::RowCursor<uint64_t> c(&view, 0, 0);
                for (uint64_t left = n;;) {
                    const uint64_t count = left > h.block() ? h.block() : left;
                    h.absorb(s, c, left, count);
                    left -= count;
                    if (left == 0) break;
                }
                uint64_t pieces[4] = {0, 0, 0, 0};
                h.squeeze(s, pieces);
                EXPECT_TRUE(bytes_equal(digest_bytes(h, pieces), got.back(), hs.digest_bytes));
            }
            // merge(hash_elements(1), hash_elements(2)) and the other order.
            const Elems a = le_elems(got[1], 8), b = le_elems(got[2], 8);
            uint64_t m[4] = {0, 0, 0, 0};
            h.compress(a.data(), b.data(), m);
            EXPECT_TRUE(bytes_equal(digest_bytes(h, m), from_hex(want["merge_of_hash_elements_1_2"].text)));
            h.compress(b.data(), a.data(), m);
            EXPECT_TRUE(bytes_equal(digest_bytes(h, m), from_hex(want["merge_of_hash_elements_2_1"].text)));
        });
    }
}

// hash_elements through gp_merkle_hash_rows (two-row matrices: the input,
// then its reverse), and an empty row (a matrix of no columns).
TEST_P(WinterfellTrees, HashRowsMatchHashElements) {
    const Json &v = vectors("winterfell_merkle.json");
    const Json &inputs = v["hash_elements_inputs"];
    const FieldRef &F = field_ref(GP_FIELD_GOLDILOCKS);
    for (const Hasher &hs : kHashers) {
        SCOPED_TRACE(hs.name);
        const gp_merkle_options o = wf_opts(hs.perm);
        for (size_t i = 0; i < inputs.size(); ++i) {
            const Elems in = inputs[i]["elements"].elems();
            HostMat m(2, in.size(), 1);
            for (size_t j = 0; j < in.size(); ++j) {
                m.at(0, j, 0) = in[j];
                m.at(1, j, 0) = in[in.size() - 1 - j];
            }
            BufPtr b;
            ASSERT_GP_OK(in.empty() ? create_buffer(ctx(), F, 1, 2, 0, &b)
                                    : upload(ctx(), F, m, GP_LAYOUT_COL_MAJOR, &b));
            const gp_buffer *one[] = {b.get()};
            Bytes d(2 * hs.digest_bytes);
            ASSERT_GP_OK(gp_merkle_hash_rows(ctx(), one, 1, &o, d.data(), d.size()));
            EXPECT_TRUE(bytes_equal(Bytes(d.begin(), d.begin() + hs.digest_bytes),
                                    from_hex(v["hashers"][hs.name]["hash_elements"][i].text)))
                << "n = " << in.size();
        }
    }
}

// Whole trees: every layer (as caps of every height), the root, openings
// (rows and paths) at the file's indices, their verification, tampering,
// and the leaf hashes.
TEST_P(WinterfellTrees, TreesMatchWinterfell) {
    const Json &v = vectors("winterfell_merkle.json");
    const Json &trees = v["trees"];
    ASSERT_EQ(trees.size(), 7u);
    for (const Hasher &hs : kHashers) {
        for (size_t ti = 0; ti < trees.size(); ++ti) {
            SCOPED_TRACE(std::string(hs.name) + " tree " + std::to_string(ti));
            const WfTree wt(trees[ti]);
            const Json &want = v["hashers"][hs.name]["trees"][ti];
            const Json &layers = want["layers"];
            const uint64_t H = wt.height;
            const uint32_t log_h = log2_exact(H);
            ASSERT_EQ(layers.size(), 2 * H - 1);
            const Uploaded u(ctx(), wt.mats);
            // Layer k starts at digest 2H - 2(H >> k) of `layers`.
            auto layer = [&](uint32_t k) { return digests(layers, 2 * H - 2 * (H >> k), H >> k); };
            for (uint32_t cap = 0; cap <= log_h; ++cap) {
                const gp_merkle_options o = wf_opts(hs.perm, cap);
                TreePtr t = commit(ctx(), u, o);
                ASSERT_NE(t, nullptr);
                EXPECT_EQ(gp_merkle_digest_size(t.get()), hs.digest_bytes);
                EXPECT_TRUE(bytes_equal(root_of(t.get()), from_hex(want["root"].text)));
                EXPECT_TRUE(bytes_equal(merkle_cap_bytes(t.get()), layer(log_h - cap), hs.digest_bytes))
                    << "cap " << cap;
            }
            const gp_merkle_options o = wf_opts(hs.perm);
            TreePtr t = commit(ctx(), u, o);
            ASSERT_NE(t, nullptr);
            const Bytes root = root_of(t.get());
            uint64_t rb = 0, pb = 0;
            ASSERT_GP_OK(gp_merkle_opening_size(t.get(), &rb, &pb));
            EXPECT_EQ(rb, wt.width * 8);
            EXPECT_EQ(pb, (uint64_t)log_h * hs.digest_bytes);
            const std::vector<gp_matrix_dims> dims = wt.dims();
            for (const Json &op : want["openings"].items) {
                const uint64_t q = op["index"].u64();
                SCOPED_TRACE("index " + std::to_string(q));
                Bytes rows(rb), path(pb);
                ASSERT_GP_OK(gp_merkle_open(t.get(), &q, 1, rows.data(), rows.size(), path.data(), path.size()));
                EXPECT_TRUE(bytes_equal(rows, wt.row_bytes(q), 8));
                EXPECT_TRUE(bytes_equal(path, digests(op["path"]), hs.digest_bytes));
                EXPECT_GP_OK(gp_merkle_verify(&o, GP_FIELD_GOLDILOCKS, dims.data(), (uint32_t)dims.size(), root.data(),
                                              root.size(), q, rows.data(), rows.size(), path.data(), path.size()));
                for (size_t at : {(size_t)0, path.size() - 1}) {
                    Bytes bad = path;
                    bad[at] ^= 1;
                    EXPECT_GP_ERR(gp_merkle_verify(&o, GP_FIELD_GOLDILOCKS, dims.data(), (uint32_t)dims.size(),
                                                   root.data(), root.size(), q, rows.data(), rows.size(), bad.data(),
                                                   bad.size()),
                                  GP_ERR_VERIFY_FAILED);
                }
                Bytes bad_rows = rows;
                bad_rows[0] ^= 1;  // another canonical element, unless it was p - 1
                if (le_elems(bad_rows, 8, 0, 1)[0] < field_ref(GP_FIELD_GOLDILOCKS).p)
                    EXPECT_GP_ERR(gp_merkle_verify(&o, GP_FIELD_GOLDILOCKS, dims.data(), (uint32_t)dims.size(),
                                                   root.data(), root.size(), q, bad_rows.data(), bad_rows.size(),
                                                   path.data(), path.size()),
                                  GP_ERR_VERIFY_FAILED);
                Bytes bad_root = root;
                bad_root.back() ^= 0x80;
                EXPECT_GP_ERR(gp_merkle_verify(&o, GP_FIELD_GOLDILOCKS, dims.data(), (uint32_t)dims.size(),
                                               bad_root.data(), bad_root.size(), q, rows.data(), rows.size(),
                                               path.data(), path.size()),
                              GP_ERR_VERIFY_FAILED);
            }
            // The leaves through gp_merkle_hash_rows.
            Bytes leaves(H * hs.digest_bytes);
            ASSERT_GP_OK(gp_merkle_hash_rows(ctx(), u.ptrs.data(), (uint32_t)u.ptrs.size(), &o, leaves.data(),
                                             leaves.size()));
            EXPECT_TRUE(bytes_equal(leaves, layer(0), hs.digest_bytes));
        }
    }
}

INSTANTIATE_TEST_SUITE_P(Backends, WinterfellTrees, ::testing::Values(GP_BACKEND_CPU, GP_BACKEND_CUDA),
                         [](const ::testing::TestParamInfo<gp_backend> &i) { return backend_name(i.param); });

// Wide rows (several BLAKE3 chunks, a row spread over the devices' column
// blocks) on contexts of 2 and 3 emulated devices: the one device's bytes.
TEST(WinterfellMulti, EmulatedDevicesMatchOneDevice) {
    const std::vector<HostMat> mats = make_mats(GP_FIELD_GOLDILOCKS, {{1024, 150, 1}, {1024, 3, 3}}, 41);
    auto run = [&](const std::vector<int32_t> &devs, gp_permutation perm) {
        gp_context_options co;
        gp_context_options_init(&co);
        co.backend = GP_BACKEND_CPU;
        co.devices = devs.data();
        co.num_devices = (uint32_t)devs.size();
        co.cpu_threads = 4;
        gp_context *raw = nullptr;
        EXPECT_EQ(gp_context_create(&co, &raw), GP_OK) << gp_last_error();
        CtxPtr ctx(raw);
        Bytes out;
        if (!raw) return out;
        const Uploaded u(raw, mats);
        TreePtr t = commit(raw, u, wf_opts(perm, 2));
        if (!t) return out;
        out = merkle_cap_bytes(t.get());
        const std::vector<uint64_t> idx = {0, 777, 1023};
        uint64_t rb = 0, pb = 0;
        EXPECT_EQ(gp_merkle_opening_size(t.get(), &rb, &pb), GP_OK);
        Bytes rows(rb * idx.size()), paths(pb * idx.size());
        EXPECT_EQ(gp_merkle_open(t.get(), idx.data(), idx.size(), rows.data(), rows.size(), paths.data(), paths.size()),
                  GP_OK)
            << gp_last_error();
        out.insert(out.end(), rows.begin(), rows.end());
        out.insert(out.end(), paths.begin(), paths.end());
        Bytes leaves(1024 * gp_merkle_digest_size(t.get()));
        const gp_merkle_options leaf_opts = wf_opts(perm);
        EXPECT_EQ(gp_merkle_hash_rows(raw, u.ptrs.data(), 2, &leaf_opts, leaves.data(), leaves.size()), GP_OK)
            << gp_last_error();
        out.insert(out.end(), leaves.begin(), leaves.end());
        return out;
    };
    for (const Hasher &hs : kHashers) {
        SCOPED_TRACE(hs.name);
        const Bytes one = run({0}, hs.perm);
        ASSERT_FALSE(one.empty());
        EXPECT_TRUE(run({0, 0}, hs.perm) == one);
        EXPECT_TRUE(run({0, 0, 0}, hs.perm) == one);
    }
}

// gp_constraint_commit with winterfell's split and trees: its tree is the
// gp_merkle_commit tree of its segments.
TEST_P(WinterfellTrees, ConstraintCommit) {
    const FieldRef &F = field_ref(GP_FIELD_GOLDILOCKS);
    Rng rng(77);
    const HostMat evals = random_mat(F, 64, 1, 3, rng);
    BufPtr ev;
    ASSERT_GP_OK(upload(ctx(), F, evals, GP_LAYOUT_COL_MAJOR, &ev));
    for (const Hasher &hs : kHashers) {
        SCOPED_TRACE(hs.name);
        gp_constraint_options o;
        gp_constraint_options_init(&o);
        o.split = GP_COMPOSITION_WINTERFELL;
        o.segments = 2;
        o.blowup = 4;
        o.output_order = GP_ORDER_NATURAL;
        o.merkle = wf_opts(hs.perm, 1);
        gp_buffer *seg = nullptr;
        gp_merkle_tree *t = nullptr;
        ASSERT_GP_OK(gp_constraint_commit(ctx(), ev.get(), &o, &seg, &t));
        BufPtr segments(seg);
        TreePtr tree(t);
        EXPECT_EQ(gp_buffer_rows(seg), 128u);
        const gp_buffer *one[] = {seg};
        gp_merkle_tree *t2 = nullptr;
        ASSERT_GP_OK(gp_merkle_commit(ctx(), one, 1, &o.merkle, &t2));
        TreePtr again(t2);
        EXPECT_EQ(root_of(t), root_of(t2));
        EXPECT_EQ(merkle_cap_bytes(t), merkle_cap_bytes(t2));
    }
}

// What the kind refuses, with the codes the other kinds give.
TEST_P(WinterfellTrees, Refusals) {
    const FieldRef &G = field_ref(GP_FIELD_GOLDILOCKS), &B = field_ref(GP_FIELD_BABYBEAR);
    Rng rng(5);
    BufPtr g8, g6, g1, g4, bb8;
    ASSERT_GP_OK(upload(ctx(), G, random_mat(G, 8, 3, 1, rng), GP_LAYOUT_COL_MAJOR, &g8));
    ASSERT_GP_OK(upload(ctx(), G, random_mat(G, 6, 3, 1, rng), GP_LAYOUT_COL_MAJOR, &g6));
    ASSERT_GP_OK(upload(ctx(), G, random_mat(G, 1, 3, 1, rng), GP_LAYOUT_COL_MAJOR, &g1));
    ASSERT_GP_OK(upload(ctx(), G, random_mat(G, 4, 3, 1, rng), GP_LAYOUT_COL_MAJOR, &g4));
    ASSERT_GP_OK(upload(ctx(), B, random_mat(B, 8, 3, 1, rng), GP_LAYOUT_COL_MAJOR, &bb8));
    gp_merkle_tree *t = nullptr;
    auto commit_st = [&](std::vector<const gp_buffer *> m, const gp_merkle_options &o) {
        gp_status st = gp_merkle_commit(ctx(), m.data(), (uint32_t)m.size(), &o, &t);
        gp_merkle_tree_destroy(t);
        t = nullptr;
        return st;
    };
    for (const Hasher &hs : kHashers) {
        SCOPED_TRACE(hs.name);
        const gp_merkle_options o = wf_opts(hs.perm);
        EXPECT_GP_OK(commit_st({g8.get()}, o));
        EXPECT_GP_ERR(commit_st({bb8.get()}, o), GP_ERR_FIELD_MISMATCH);
        EXPECT_GP_ERR(commit_st({g6.get()}, o), GP_ERR_INVALID_ARGUMENT);  // not a power of two
        EXPECT_GP_ERR(commit_st({g1.get()}, o), GP_ERR_SHAPE_MISMATCH);    // one leaf
        EXPECT_NE(std::string(gp_last_error()).find("two leaves"), std::string::npos) << gp_last_error();
        EXPECT_GP_ERR(commit_st({g8.get(), g4.get()}, o), GP_ERR_SHAPE_MISMATCH);  // two heights
        gp_merkle_options bad = o;
        bad.digest = hs.digest_bytes / 8;
        EXPECT_GP_ERR(commit_st({g8.get()}, bad), GP_ERR_INVALID_ARGUMENT);
        bad = o;
        bad.compress_perm = GP_PERM_RPO256;
        EXPECT_GP_ERR(commit_st({g8.get()}, bad), GP_ERR_INVALID_ARGUMENT);
        bad = o;
        bad.cap_height = 4;
        EXPECT_GP_ERR(commit_st({g8.get()}, bad), GP_ERR_INVALID_ARGUMENT);
    }
    for (int perm : {(int)GP_PERM_RPO256, (int)GP_PERM_KECCAK_F1600, (int)GP_PERM_TIP5, 0, 23, 99}) {
        gp_merkle_options o = wf_opts(GP_PERM_SHA3_256);
        store_raw(&o.perm, perm);
        EXPECT_GP_ERR(commit_st({g8.get()}, o), GP_ERR_INVALID_ARGUMENT);
    }
    // The new ids in other kinds.
    for (gp_permutation p : {GP_PERM_SHA3_256, GP_PERM_BLAKE3_192}) {
        gp_merkle_options o = wf_opts(p);
        for (gp_merkle_kind k :
             {GP_MERKLE_FIELD_SPONGE, GP_MERKLE_MIDEN, GP_MERKLE_MIDEN_LMCS, GP_MERKLE_KECCAK_PLONKY3}) {
            o.kind = k;
            EXPECT_GP_ERR(commit_st({g8.get()}, o), GP_ERR_INVALID_ARGUMENT);
            // The permutation by its name, not its number.
            const std::string msg = gp_last_error();
            EXPECT_NE(msg.find(p == GP_PERM_SHA3_256 ? "GP_PERM_SHA3_256" : "GP_PERM_BLAKE3_192"), std::string::npos)
                << msg;
            EXPECT_EQ(msg.find("perm = 2"), std::string::npos) << msg;
        }
    }
    gp_merkle_options sponge = wf_opts(GP_PERM_RP64_256);
    sponge.kind = GP_MERKLE_FIELD_SPONGE;
    EXPECT_GP_ERR(commit_st({g8.get()}, sponge), GP_ERR_UNSUPPORTED);
    sponge.kind = GP_MERKLE_MIDEN;
    EXPECT_GP_ERR(commit_st({g8.get()}, sponge), GP_ERR_INVALID_ARGUMENT);
    // FRI over winterfell trees: a last committed layer of one group (one
    // leaf) is refused when the commitment begins, not at the fold that
    // would commit it; a final size of 2 folds to the end.
    for (uint64_t final_size : {1, 2}) {
        gp_fri_options fo;
        gp_fri_options_init(&fo);
        fo.merkle = wf_opts(GP_PERM_SHA3_256);
        fo.order = GP_ORDER_NATURAL;
        fo.final_size = final_size;
        std::vector<uint64_t> codeword(8 * 2, 7);
        Bytes fcap(32);
        gp_fri *fri = nullptr;
        const gp_status st =
            gp_fri_begin_host(ctx(), GP_FIELD_GOLDILOCKS, 2, codeword.data(), 8, &fo, fcap.data(), fcap.size(), &fri);
        if (final_size == 1) {
            EXPECT_GP_ERR(st, GP_ERR_INVALID_ARGUMENT);
            EXPECT_NE(std::string(gp_last_error()).find("two leaves"), std::string::npos) << gp_last_error();
            EXPECT_EQ(fri, nullptr);
            continue;
        }
        ASSERT_GP_OK(st);
        const std::vector<uint64_t> beta = {3, 4};
        for (uint32_t k = 0; k < gp_fri_layer_count(fri); ++k)
            EXPECT_GP_OK(gp_fri_fold(fri, beta.data(), 16, fcap.data(), fcap.size()));
        gp_fri_destroy(fri);
    }
    // gp_merkle_verify checks the same shapes.
    const gp_merkle_options o = wf_opts(GP_PERM_BLAKE3_192);
    Bytes cap(24), rows(3 * 8), path(3 * 24);
    const gp_matrix_dims one_row = {1, 3, 1}, odd = {6, 3, 1}, good = {8, 3, 1};
    EXPECT_GP_ERR(gp_merkle_verify(&o, GP_FIELD_GOLDILOCKS, &one_row, 1, cap.data(), cap.size(), 0, rows.data(),
                                   rows.size(), nullptr, 0),
                  GP_ERR_SHAPE_MISMATCH);
    EXPECT_GP_ERR(gp_merkle_verify(&o, GP_FIELD_GOLDILOCKS, &odd, 1, cap.data(), cap.size(), 0, rows.data(),
                                   rows.size(), path.data(), path.size()),
                  GP_ERR_INVALID_ARGUMENT);
    EXPECT_GP_ERR(gp_merkle_verify(&o, GP_FIELD_BABYBEAR, &good, 1, cap.data(), cap.size(), 0, rows.data(),
                                   12, path.data(), path.size()),
                  GP_ERR_FIELD_MISMATCH);
    EXPECT_GP_ERR(gp_merkle_verify(&o, GP_FIELD_GOLDILOCKS, &good, 1, cap.data(), 32, 0, rows.data(), rows.size(),
                                   path.data(), path.size()),
                  GP_ERR_SHAPE_MISMATCH);  // a 24-byte digest
    EXPECT_GP_ERR(gp_merkle_verify(&o, GP_FIELD_GOLDILOCKS, &good, 1, cap.data(), cap.size(), 0, rows.data(),
                                   rows.size(), path.data(), path.size()),
                  GP_ERR_VERIFY_FAILED);
}
