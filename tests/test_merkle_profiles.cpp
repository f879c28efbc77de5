// SPDX-License-Identifier: MIT OR Apache-2.0
// The Merkle profiles other than Plonky3's field sponge (GP_MERKLE_MIDEN,
// GP_MERKLE_MIDEN_V0_11, GP_MERKLE_MIDEN_V0_10, GP_MERKLE_KECCAK_PLONKY3,
// GP_MERKLE_KECCAK_BE), gp_merkle_hash_rows, gp_merkle_root, openings and
// gp_merkle_verify (for every kind, GP_MERKLE_FIELD_SPONGE included).
//
// Two kinds of expected values:
//  - Known answers: rpo256.json's hash_elements vectors in the three
//    miden-crypto sponge layouts, rpx256.json's HEAD-layout vectors and
//    keccak256.json's Keccak-256 vectors, fed to gp_merkle_hash_rows as
//    one-row matrices.
//  - A naive reference written here: the sponges (miden-crypto
//    hash_elements / merge, Keccak-256, Plonky3's PaddingFreeSponge and
//    TruncatedPermutation) on top of gp_permute_batch on a private
//    single-threaded CPU context, and a recursive tree. The reference sponges
//    are pinned to the same known answers first (MerkleProfileReference).
//
// Conventions, from gpuprover.h and the upstream sources it names:
//  - miden-crypto hash_elements (HEAD, v0.21+): state = 0, state[8] = len % 8,
//    elements overwrite state[0..8] in order with a permutation after every 8,
//    a partial last block is zero-filled and permuted; digest state[0..4].
//    merge(a, b): state[0..4] = a, state[4..8] = b, capacity 0, permute,
//    state[0..4]. v0.11..v0.20: capacity state[0..4] (state[0] = len % 8),
//    rate state[4..12], digest state[4..8]; merge writes a || b to
//    state[4..12]. v0.10 and before: as v0.11 but state[0] = 1 iff
//    len % 8 != 0, and a partial block is padded with 1 then zeros.
//    Tree (winterfell / miden-crypto): leaf = hash_elements(row), node =
//    merge(left, right), one height only.
//  - Keccak-256: rate 136 bytes, pad 0x01 ... 0x80 (original Keccak, not
//    SHA3), output the first 32 state bytes. Plonky3 (SerializingHasher over
//    Keccak256Hash, CompressionFunctionFromHasher): leaf = keccak256(row
//    bytes, each base element little-endian; Goldilocks canonical 8 bytes,
//    BabyBear/KoalaBear Montgomery x * 2^32 mod p, 4 bytes), node =
//    keccak256(left || right); mixed heights injected as in Plonky3's
//    MerkleTreeMmcs: node = C(C(left, right), H(rows of that height)).
//    Big-endian (lambdaworks): Goldilocks elements as 8 bytes big-endian.
#include <gtest/gtest.h>

#include <cstddef>
#include <cstdint>
#include <cstring>
#include <functional>
#include <memory>
#include <sstream>
#include <string>
#include <vector>

#include "test_util.h"

using namespace gpt;

namespace {

/* ------------------------------------------------------------------------ */
/* Small helpers                                                            */
/* ------------------------------------------------------------------------ */

Bytes bytes_from_hex(const std::string &h) {
    Bytes out(h.size() / 2);
    for (size_t i = 0; i < out.size(); ++i) out[i] = (unsigned char)std::stoul(h.substr(2 * i, 2), nullptr, 16);
    return out;
}

uint64_t mont_form(uint64_t x, uint64_t p) { return mul_mod(x, (1ull << 32) % p, p); }
uint64_t from_mont_form(uint64_t m, uint64_t p) { return mul_mod(m, inv_mod((1ull << 32) % p, p), p); }

/* ------------------------------------------------------------------------ */
/* Permutations (through gp_permute_batch on a private CPU context)         */
/* ------------------------------------------------------------------------ */

class Perm {
   public:
    explicit Perm(gp_permutation perm) : perm_(perm) {
        int f = 0;
        gp_field fld = GP_FIELD_GOLDILOCKS;
        EXPECT_EQ(gp_permutation_info(perm, &width_, &fld), GP_OK) << gp_last_error();
        std::memcpy(&f, &fld, sizeof f);
        field_ = f;
        esz_ = f == 0 ? 8 : gp_field_element_size(fld); /* Keccak: 64-bit lanes */
        EXPECT_EQ(make_context(GP_BACKEND_CPU, &ctx_, 1), GP_OK) << gp_last_error();
    }
    uint32_t width() const { return width_; }
    void permute(Elems &state) const {
        EXPECT_EQ(state.size(), width_);
        gp_status st;
        if (esz_ == 8) {
            st = gp_permute_batch(ctx_.get(), perm_, state.data(), 1);
        } else {
            std::vector<uint32_t> s32(state.begin(), state.end());
            st = gp_permute_batch(ctx_.get(), perm_, s32.data(), 1);
            for (size_t i = 0; i < s32.size(); ++i) state[i] = s32[i];
        }
        EXPECT_EQ(st, GP_OK) << "reference gp_permute_batch: " << gp_last_error();
    }

   private:
    gp_permutation perm_;
    uint32_t width_ = 0;
    int field_ = 0;
    uint32_t esz_ = 8;
    CtxPtr ctx_;
};

/* Keccak-256 (original padding) on Keccak-f[1600]. */
Bytes keccak256(const Perm &K, const Bytes &msg) {
    const size_t rate = 136;
    Bytes padded = msg;
    padded.push_back(0x01);
    while (padded.size() % rate) padded.push_back(0);
    padded.back() |= 0x80;
    Elems st(25, 0);
    for (size_t off = 0; off < padded.size(); off += rate) {
        for (size_t j = 0; j < rate; ++j) st[j / 8] ^= (uint64_t)padded[off + j] << (8 * (j % 8));
        K.permute(st);
    }
    Bytes out(32);
    for (size_t j = 0; j < 32; ++j) out[j] = (unsigned char)(st[j / 8] >> (8 * (j % 8)));
    return out;
}

enum class MidenLayout { kHead, kV011, kV010 };

/* miden-crypto hash_elements in one of the three layouts. */
Elems miden_hash(const Perm &P, MidenLayout L, const Elems &in) {
    const size_t r = L == MidenLayout::kHead ? 0 : 4, cap = L == MidenLayout::kHead ? 8 : 0;
    Elems st(12, 0);
    if (L == MidenLayout::kV010) st[cap] = in.size() % 8 ? 1 : 0;
    else st[cap] = in.size() % 8;
    size_t i = 0;
    for (uint64_t x : in) {
        st[r + i] = x;
        if (++i == 8) {
            P.permute(st);
            i = 0;
        }
    }
    if (i > 0) {
        if (L == MidenLayout::kV010) st[r + i++] = 1;
        while (i < 8) st[r + i++] = 0;
        P.permute(st);
    }
    return Elems(st.begin() + r, st.begin() + r + 4);
}

Elems miden_merge(const Perm &P, MidenLayout L, const Elems &a, const Elems &b) {
    const size_t r = L == MidenLayout::kHead ? 0 : 4;
    Elems st(12, 0);
    for (size_t j = 0; j < 4; ++j) {
        st[r + j] = a[j];
        st[r + 4 + j] = b[j];
    }
    P.permute(st);
    return Elems(st.begin() + r, st.begin() + r + 4);
}

/* Plonky3 PaddingFreeSponge (overwrite mode) and TruncatedPermutation. */
Elems p3_sponge(const Perm &P, uint32_t rate, uint32_t digest, const Elems &in) {
    Elems st(P.width(), 0);
    for (size_t pos = 0; pos < in.size();) {
        const size_t n = std::min<size_t>(rate, in.size() - pos);
        for (size_t j = 0; j < n; ++j) st[j] = in[pos + j];
        P.permute(st);
        pos += n;
    }
    return Elems(st.begin(), st.begin() + digest);
}

Elems p3_compress(const Perm &P, const Elems &l, const Elems &r) {
    Elems st(P.width(), 0);
    std::copy(l.begin(), l.end(), st.begin());
    std::copy(r.begin(), r.end(), st.begin() + l.size());
    P.permute(st);
    return Elems(st.begin(), st.begin() + l.size());
}

/* ------------------------------------------------------------------------ */
/* Profiles: one commitment scheme, as the reference computes it            */
/* ------------------------------------------------------------------------ */

struct Profile {
    std::string name;
    gp_merkle_kind kind = GP_MERKLE_FIELD_SPONGE;
    gp_permutation perm = GP_PERM_POSEIDON2_GOLDILOCKS_8;
    gp_field field = GP_FIELD_GOLDILOCKS;
    uint64_t digest_bytes = 32;
    uint32_t digest_esz = 8;     /* bytes per digest element; 0: raw hash bytes */
    bool mixed_heights = false;  /* Plonky3 injection allowed */
    std::shared_ptr<Perm> P;
    std::function<Bytes(const Elems &)> hash; /* a row's base elements, canonical */
    std::function<Bytes(const Bytes &, const Bytes &)> compress;

    gp_merkle_options options(uint32_t cap_height = 0) const {
        gp_merkle_options o;
        gp_merkle_options_init(&o);
        o.kind = kind;
        o.perm = perm;
        o.cap_height = cap_height;
        return o;
    }
    uint64_t p() const { return field_ref(field).p; }
    uint32_t esz() const { return field_ref(field).elem_size; }
};

const char *layout_name(MidenLayout L) {
    return L == MidenLayout::kHead ? "head" : L == MidenLayout::kV011 ? "v0.11" : "v0.10";
}

Profile miden_profile(gp_merkle_kind kind, gp_permutation perm) {
    Profile pr;
    const MidenLayout L = kind == GP_MERKLE_MIDEN        ? MidenLayout::kHead
                          : kind == GP_MERKLE_MIDEN_V0_11 ? MidenLayout::kV011
                                                          : MidenLayout::kV010;
    pr.name = std::string("miden ") + layout_name(L) + (perm == GP_PERM_RPO256 ? " rpo256" : " rpx256");
    pr.kind = kind;
    pr.perm = perm;
    pr.field = GP_FIELD_GOLDILOCKS;
    pr.digest_bytes = 32;
    pr.digest_esz = 8;
    pr.P = std::make_shared<Perm>(perm);
    std::shared_ptr<Perm> P = pr.P;
    pr.hash = [P, L](const Elems &in) { return le_bytes(miden_hash(*P, L, in), 8); };
    pr.compress = [P, L](const Bytes &a, const Bytes &b) {
        return le_bytes(miden_merge(*P, L, le_elems(a, 8), le_elems(b, 8)), 8);
    };
    return pr;
}

Profile keccak_profile(gp_merkle_kind kind, gp_field field) {
    Profile pr;
    const FieldRef &F = field_ref(field);
    pr.name = std::string(kind == GP_MERKLE_KECCAK_BE ? "keccak big-endian " : "keccak plonky3 ") + F.name;
    pr.kind = kind;
    pr.perm = GP_PERM_KECCAK_F1600;
    pr.field = field;
    pr.digest_bytes = 32;
    pr.digest_esz = 0;
    pr.mixed_heights = kind == GP_MERKLE_KECCAK_PLONKY3;
    pr.P = std::make_shared<Perm>(GP_PERM_KECCAK_F1600);
    std::shared_ptr<Perm> P = pr.P;
    const uint64_t p = F.p;
    const bool be = kind == GP_MERKLE_KECCAK_BE;
    pr.hash = [P, p, be](const Elems &in) {
        Bytes msg;
        for (uint64_t x : in) {
            if (be) {
                for (int b = 7; b >= 0; --b) msg.push_back((unsigned char)(x >> (8 * b)));
            } else if (p >> 32) {
                for (int b = 0; b < 8; ++b) msg.push_back((unsigned char)(x >> (8 * b)));
            } else {
                const uint64_t m = mont_form(x, p);
                for (int b = 0; b < 4; ++b) msg.push_back((unsigned char)(m >> (8 * b)));
            }
        }
        return keccak256(*P, msg);
    };
    pr.compress = [P](const Bytes &a, const Bytes &b) {
        Bytes msg = a;
        msg.insert(msg.end(), b.begin(), b.end());
        return keccak256(*P, msg);
    };
    return pr;
}

Profile sponge_profile(gp_permutation perm) {
    Profile pr;
    pr.P = std::make_shared<Perm>(perm);
    gp_field f = GP_FIELD_GOLDILOCKS;
    EXPECT_EQ(gp_permutation_info(perm, nullptr, &f), GP_OK);
    const FieldRef &F = field_ref(f);
    const uint32_t digest = f == GP_FIELD_GOLDILOCKS ? 4 : 8;
    const uint32_t rate = pr.P->width() - digest;
    pr.name = "field sponge perm " + std::to_string((int)perm);
    pr.kind = GP_MERKLE_FIELD_SPONGE;
    pr.perm = perm;
    pr.field = f;
    pr.digest_bytes = (uint64_t)digest * F.elem_size;
    pr.digest_esz = F.elem_size;
    pr.mixed_heights = true;
    std::shared_ptr<Perm> P = pr.P;
    const uint32_t esz = F.elem_size;
    pr.hash = [P, rate, digest, esz](const Elems &in) { return le_bytes(p3_sponge(*P, rate, digest, in), esz); };
    pr.compress = [P, esz](const Bytes &a, const Bytes &b) {
        return le_bytes(p3_compress(*P, le_elems(a, esz), le_elems(b, esz)), esz);
    };
    return pr;
}

/* ------------------------------------------------------------------------ */
/* Naive reference tree                                                     */
/* ------------------------------------------------------------------------ */

class RefTree {
   public:
    RefTree(const Profile &pr, std::vector<const HostMat *> mats) : pr_(pr), mats_(std::move(mats)) {
        for (const HostMat *m : mats_) max_h_ = std::max(max_h_, m->rows);
        log_h_ = log2_exact(max_h_);
        memo_.resize(log_h_ + 1);
        for (uint32_t k = 0; k <= log_h_; ++k) memo_[k].resize((size_t)(max_h_ >> k));
    }
    uint32_t log_height() const { return log_h_; }
    uint64_t height() const { return max_h_; }

    // Row i of every matrix of height h (commit order), base coefficients.
    Elems rows_of_height(uint64_t h, uint64_t i) const {
        Elems out;
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
    // Node i of layer k (k = 0: leaves).
    const Bytes &node(uint32_t k, uint64_t i) {
        Bytes &slot = memo_[k][(size_t)i];
        if (!slot.empty()) return slot;
        Bytes d;
        if (k == 0) {
            d = pr_.hash(rows_of_height(max_h_, i));
        } else {
            const Bytes l = node(k - 1, 2 * i), r = node(k - 1, 2 * i + 1);
            d = pr_.compress(l, r);
            const uint64_t h = max_h_ >> k;
            if (has_height(h)) d = pr_.compress(d, pr_.hash(rows_of_height(h, i)));
        }
        memo_[k][(size_t)i] = d;
        return memo_[k][(size_t)i];
    }
    Bytes layer(uint32_t k) {
        Bytes out;
        for (uint64_t i = 0; i < (max_h_ >> k); ++i) {
            const Bytes &d = node(k, i);
            out.insert(out.end(), d.begin(), d.end());
        }
        return out;
    }
    Bytes cap(uint32_t cap_height) { return layer(log_h_ - cap_height); }
    Bytes root() { return node(log_h_, 0); }
    // The opened rows of leaf `index`, as gp_merkle_open writes them.
    Bytes opened_rows(uint64_t index) const {
        Elems v;
        for (const HostMat *m : mats_) {
            const uint64_t r = index >> (log_h_ - log2_exact(m->rows));
            for (uint64_t c = 0; c < m->cols; ++c)
                for (uint32_t k = 0; k < m->d; ++k) v.push_back(m->at(r, c, k));
        }
        return le_bytes(v, pr_.esz());
    }
    Bytes path(uint64_t index, uint32_t cap_height) {
        Bytes out;
        for (uint32_t k = 0; k + cap_height < log_h_; ++k) {
            const Bytes &d = node(k, (index >> k) ^ 1);
            out.insert(out.end(), d.begin(), d.end());
        }
        return out;
    }
    std::vector<gp_matrix_dims> dims() const {
        std::vector<gp_matrix_dims> out;
        for (const HostMat *m : mats_) out.push_back({m->rows, (uint32_t)m->cols, m->d});
        return out;
    }

   private:
    const Profile &pr_;
    std::vector<const HostMat *> mats_;
    uint64_t max_h_ = 0;
    uint32_t log_h_ = 0;
    std::vector<std::vector<Bytes>> memo_;
};

/* ------------------------------------------------------------------------ */
/* Library side                                                             */
/* ------------------------------------------------------------------------ */



// Uploaded matrices (alternating column- and row-major host layouts).
struct Uploaded {
    std::vector<BufPtr> bufs;
    std::vector<const gp_buffer *> ptrs;
    uint32_t count() const { return (uint32_t)ptrs.size(); }
};

gp_status upload_all(gp_context *ctx, const std::vector<const HostMat *> &mats, gp_field field, Uploaded *out) {
    const FieldRef &F = field_ref(field);
    out->bufs.clear();
    out->ptrs.clear();
    for (size_t j = 0; j < mats.size(); ++j) {
        BufPtr b;
        const gp_status st = upload(ctx, F, *mats[j], j % 2 ? GP_LAYOUT_ROW_MAJOR : GP_LAYOUT_COL_MAJOR, &b);
        if (st != GP_OK) return st;
        out->ptrs.push_back(b.get());
        out->bufs.push_back(std::move(b));
    }
    return GP_OK;
}

TreePtr commit(gp_context *ctx, const Uploaded &up, const gp_merkle_options &o) {
    gp_merkle_tree *raw = nullptr;
    const gp_status st = gp_merkle_commit(ctx, up.ptrs.data(), up.count(), &o, &raw);
    EXPECT_EQ(st, GP_OK) << "gp_merkle_commit: " << gp_last_error();
    if (st != GP_OK) return TreePtr();
    EXPECT_NE(raw, nullptr);
    return TreePtr(raw);
}

Bytes lib_root(const gp_merkle_tree *t) {
    Bytes out((size_t)gp_merkle_digest_size(t));
    EXPECT_EQ(gp_merkle_root(t, out.data(), out.size()), GP_OK) << gp_last_error();
    return out;
}

// gp_merkle_hash_rows over all of `up` (one height); empty on failure.
Bytes lib_hash_rows(gp_context *ctx, const Uploaded &up, const gp_merkle_options &o, uint64_t size) {
    Bytes out((size_t)size, 0xee);
    const gp_status st = gp_merkle_hash_rows(ctx, up.ptrs.data(), up.count(), &o, out.data(), out.size());
    EXPECT_EQ(st, GP_OK) << "gp_merkle_hash_rows: " << gp_last_error();
    if (st != GP_OK) return {};
    return out;
}

/* ------------------------------------------------------------------------ */
/* Known-answer vectors                                                     */
/* ------------------------------------------------------------------------ */

std::string load_vectors(const char *file) { return read_text_file(vectors_path(file)); }

std::string json_string(const std::string &t, size_t pos) {
    if (pos == std::string::npos) return std::string();
    while (pos < t.size() && (t[pos] == ' ' || t[pos] == '\n' || t[pos] == '\t' || t[pos] == '\r')) ++pos;
    if (pos >= t.size() || t[pos] != '"') return std::string();
    std::string out;
    for (size_t i = pos + 1; i < t.size(); ++i) {
        if (t[i] == '\\' && i + 1 < t.size()) out += t[++i];
        else if (t[i] == '"') return out;
        else out += t[i];
    }
    return std::string();
}

struct Kat {
    Elems input, digest;
};

// Every ("input", "digest") pair of hex arrays whose "input" lies in [from, to).
std::vector<Kat> json_kats(const std::string &t, size_t from, size_t to) {
    std::vector<Kat> kats;
    if (from == std::string::npos) return kats;
    for (size_t pos = from;;) {
        const size_t in = json_find_key(t, "input", pos);
        if (in == std::string::npos || in >= to) break;
        const size_t out = json_find_key(t, "digest", in);
        if (out == std::string::npos || out >= to) break;
        kats.push_back({json_hex_array(t, in), json_hex_array(t, out)});
        pos = out;
    }
    return kats;
}

struct MidenVariant {
    gp_merkle_kind kind;
    MidenLayout layout;
    std::string id;
    std::vector<Kat> kats;
};

// rpo256.json's sponge_variants, told apart by their layout and padding rule.
std::vector<MidenVariant> load_rpo_variants(std::string *err) {
    const std::string t = load_vectors("rpo256.json");
    std::vector<MidenVariant> out;
    const size_t begin = json_find_key(t, "sponge_variants");
    const size_t end = json_find_key(t, "derived_permutation_vectors");
    if (t.empty() || begin == std::string::npos || end == std::string::npos) {
        *err = "rpo256.json not found or without sponge_variants at " + vectors_path("rpo256.json");
        return out;
    }
    std::vector<size_t> starts;
    for (size_t p = json_find_key(t, "id", begin); p != std::string::npos && p < end; p = json_find_key(t, "id", p))
        starts.push_back(p);
    for (size_t k = 0; k < starts.size(); ++k) {
        const size_t lo = starts[k], hi = k + 1 < starts.size() ? starts[k + 1] : end;
        MidenVariant v;
        v.id = json_string(t, lo);
        const std::string layout = json_string(t, json_find_key(t, "layout", lo));
        const std::string rule = json_string(t, json_find_key(t, "hash_elements", lo));
        if (layout.rfind("rate = state[0..8]", 0) == 0 && rule.find("state[8] = len % 8") != std::string::npos) {
            v.kind = GP_MERKLE_MIDEN;
            v.layout = MidenLayout::kHead;
        } else if (layout.rfind("capacity = state[0..4]", 0) == 0 &&
                   rule.find("state[0] = len % 8") != std::string::npos) {
            v.kind = GP_MERKLE_MIDEN_V0_11;
            v.layout = MidenLayout::kV011;
        } else if (layout.rfind("capacity = state[0..4]", 0) == 0 &&
                   rule.find("state[0] = 1 iff len % 8 != 0") != std::string::npos) {
            v.kind = GP_MERKLE_MIDEN_V0_10;
            v.layout = MidenLayout::kV010;
        } else {
            *err = "unrecognised sponge variant: " + v.id;
            return {};
        }
        v.kats = json_kats(t, lo, hi);
        out.push_back(v);
    }
    return out;
}

std::vector<Kat> load_rpx_head_kats(std::string *err) {
    const std::string t = load_vectors("rpx256.json");
    const size_t begin = json_find_key(t, "hash_elements_HEAD_layout");
    if (t.empty() || begin == std::string::npos) {
        *err = "rpx256.json not found or without hash_elements_HEAD_layout at " + vectors_path("rpx256.json");
        return {};
    }
    return json_kats(t, begin, std::string::npos);
}

struct KeccakKat {
    std::string name;
    Bytes msg, digest;
};

std::vector<KeccakKat> load_keccak_kats(std::string *err) {
    const std::string t = load_vectors("keccak256.json");
    std::vector<KeccakKat> out;
    const size_t begin = json_find_key(t, "vectors");
    if (t.empty() || begin == std::string::npos) {
        *err = "keccak256.json not found or without vectors at " + vectors_path("keccak256.json");
        return out;
    }
    for (size_t pos = begin;;) {
        const size_t n = json_find_key(t, "name", pos);
        if (n == std::string::npos) break;
        const size_t m = json_find_key(t, "message_hex", n);
        const size_t k = json_find_key(t, "keccak256", m);
        if (m == std::string::npos || k == std::string::npos) break;
        out.push_back({json_string(t, n), bytes_from_hex(json_string(t, m)), bytes_from_hex(json_string(t, k))});
        pos = k;
    }
    return out;
}

/* ------------------------------------------------------------------------ */
/* The reference sponges against the known answers                          */
/* ------------------------------------------------------------------------ */

TEST(MerkleProfileReference, Keccak256MatchesVectors) {
    std::string err;
    const std::vector<KeccakKat> kats = load_keccak_kats(&err);
    ASSERT_TRUE(err.empty()) << err;
    ASSERT_GE(kats.size(), 8u);
    const Perm K(GP_PERM_KECCAK_F1600);
    for (const KeccakKat &k : kats) {
        SCOPED_TRACE(k.name);
        ASSERT_EQ(k.digest.size(), 32u);
        EXPECT_TRUE(bytes_equal(keccak256(K, k.msg), k.digest));
    }
}

TEST(MerkleProfileReference, MidenHashMatchesVectors) {
    std::string err;
    const std::vector<MidenVariant> variants = load_rpo_variants(&err);
    ASSERT_TRUE(err.empty()) << err;
    ASSERT_EQ(variants.size(), 3u);
    const Perm rpo(GP_PERM_RPO256), rpx(GP_PERM_RPX256);
    for (const MidenVariant &v : variants) {
        SCOPED_TRACE(v.id);
        ASSERT_EQ(v.kats.size(), 19u);
        for (size_t j = 0; j < v.kats.size(); ++j) {
            ASSERT_EQ(v.kats[j].input.size(), j + 1);
            EXPECT_EQ(miden_hash(rpo, v.layout, v.kats[j].input), v.kats[j].digest) << "hash_elements([0.." << j << "])";
        }
    }
    const std::vector<Kat> xk = load_rpx_head_kats(&err);
    ASSERT_TRUE(err.empty()) << err;
    ASSERT_EQ(xk.size(), 19u);
    for (size_t j = 0; j < xk.size(); ++j)
        EXPECT_EQ(miden_hash(rpx, MidenLayout::kHead, xk[j].input), xk[j].digest) << "rpx hash_elements([0.." << j
                                                                                   << "])";
}

TEST(MerkleProfileReference, TreeShapeByHand) {
    // Keccak Plonky3 over Goldilocks, heights 4, 2, 1:
    // root = C(C(C(C(H(a0), H(a1)), H(b0)), C(C(H(a2), H(a3)), H(b1))), H(c0)).
    const Profile pr = keccak_profile(GP_MERKLE_KECCAK_PLONKY3, GP_FIELD_GOLDILOCKS);
    const std::vector<HostMat> m = make_mats(GP_FIELD_GOLDILOCKS, {{2, 3, 1}, {4, 2, 1}, {1, 1, 1}}, 1);
    RefTree ref(pr, ptrs_of(m));
    auto row = [](const HostMat &x, uint64_t i) {
        Bytes msg;
        for (uint64_t c = 0; c < x.cols; ++c)
            for (int b = 0; b < 8; ++b) msg.push_back((unsigned char)(x.at(i, c, 0) >> (8 * b)));
        return msg;
    };
    auto H = [&](const Bytes &b) { return keccak256(*pr.P, b); };
    auto C = [&](Bytes a, const Bytes &b) {
        a.insert(a.end(), b.begin(), b.end());
        return H(a);
    };
    const Bytes n0 = C(C(H(row(m[1], 0)), H(row(m[1], 1))), H(row(m[0], 0)));
    const Bytes n1 = C(C(H(row(m[1], 2)), H(row(m[1], 3))), H(row(m[0], 1)));
    EXPECT_EQ(ref.root(), C(C(n0, n1), H(row(m[2], 0))));
    EXPECT_EQ(ref.path(2, 0), [&] {
        Bytes p = H(row(m[1], 3));
        p.insert(p.end(), n0.begin(), n0.end());
        return p;
    }());
    // Montgomery form round trip.
    for (gp_field f : {GP_FIELD_BABYBEAR, GP_FIELD_KOALABEAR}) {
        const uint64_t p = field_ref(f).p;
        EXPECT_EQ(mont_form(from_mont_form(0x61616161, p), p), 0x61616161u);
        EXPECT_EQ(mont_form(1, p), (1ull << 32) % p);
    }
}

/* ------------------------------------------------------------------------ */
/* Fixture                                                                  */
/* ------------------------------------------------------------------------ */

class MerkleProfileTest : public BackendTest {
   protected:
    // Commits `specs` (random data from `seed`) under `pr` at every cap height
    // in `caps` (all valid ones when empty) and compares root and cap with
    // the reference; for one height also gp_merkle_hash_rows with the leaves.
    void check_tree(const Profile &pr, const std::vector<MatSpec> &specs, uint64_t seed,
                    std::vector<uint32_t> caps = {}) {
        SCOPED_TRACE(pr.name + ", " + describe(specs));
        const std::vector<HostMat> mats = make_mats(pr.field, specs, seed);
        RefTree ref(pr, ptrs_of(mats));
        Uploaded up;
        ASSERT_GP_OK(upload_all(ctx(), ptrs_of(mats), pr.field, &up));
        uint32_t least = 64;
        for (const MatSpec &s : specs) least = std::min(least, log2_exact(s.rows));
        if (caps.empty())
            for (uint32_t c = 0; c <= least; ++c) caps.push_back(c);
        const Bytes root = ref.root();
        for (uint32_t cap : caps) {
            SCOPED_TRACE("cap_height " + std::to_string(cap));
            TreePtr t = commit(ctx(), up, pr.options(cap));
            ASSERT_TRUE(t);
            EXPECT_EQ(gp_merkle_digest_size(t.get()), pr.digest_bytes);
            EXPECT_EQ(gp_merkle_cap_size(t.get()), pr.digest_bytes << cap);
            EXPECT_TRUE(bytes_equal(merkle_cap_bytes(t.get()), ref.cap(cap), pr.digest_bytes));
            EXPECT_TRUE(bytes_equal(lib_root(t.get()), root, pr.digest_bytes));
        }
        if (least == ref.log_height()) {
            const Bytes leaves = ref.layer(0);
            EXPECT_TRUE(bytes_equal(lib_hash_rows(ctx(), up, pr.options(), leaves.size()), leaves, pr.digest_bytes))
                << "gp_merkle_hash_rows";
        }
    }

    // A valid commit of each family still matches the reference.
    void expect_context_works() {
        SCOPED_TRACE("context still usable");
        check_tree(miden_profile(GP_MERKLE_MIDEN, GP_PERM_RPO256), {{8, 9, 1}}, 901, {0, 2});
        check_tree(keccak_profile(GP_MERKLE_KECCAK_PLONKY3, GP_FIELD_BABYBEAR), {{8, 5, 1}, {2, 1, 4}}, 902, {0, 1});
    }
};

class MerkleOpenTest : public MerkleProfileTest {};

/* ------------------------------------------------------------------------ */
/* Known answers through gp_merkle_hash_rows                                */
/* ------------------------------------------------------------------------ */

// The row `vals` as one-row matrices in several splits: one base matrix;
// two base matrices; one extension matrix (degree 2 or 3) when it divides.
std::vector<std::vector<HostMat>> one_row_splits(const Elems &vals, bool with_ext) {
    std::vector<std::vector<HostMat>> out;
    const uint64_t n = vals.size();
    HostMat whole(1, n, 1);
    for (uint64_t c = 0; c < n; ++c) whole.at(0, c, 0) = vals[c];
    out.push_back({whole});
    if (n >= 2) {
        const uint64_t a = n / 2 + 1 < n ? n / 2 + 1 : 1;
        HostMat m1(1, a, 1), m2(1, n - a, 1);
        for (uint64_t c = 0; c < a; ++c) m1.at(0, c, 0) = vals[c];
        for (uint64_t c = a; c < n; ++c) m2.at(0, c - a, 0) = vals[c];
        out.push_back({m1, m2});
    }
    if (with_ext)
        for (uint32_t d : {2u, 3u})
            if (n % d == 0) {
                HostMat e(1, n / d, d);
                for (uint64_t c = 0; c < n / d; ++c)
                    for (uint32_t k = 0; k < d; ++k) e.at(0, c, k) = vals[c * d + k];
                out.push_back({e});
            }
    return out;
}

TEST_P(MerkleProfileTest, MidenHashRowsKnownAnswers) {
    std::string err;
    const std::vector<MidenVariant> variants = load_rpo_variants(&err);
    ASSERT_TRUE(err.empty()) << err;
    ASSERT_EQ(variants.size(), 3u);
    struct Set {
        gp_merkle_kind kind;
        gp_permutation perm;
        std::string id;
        std::vector<Kat> kats;
    };
    std::vector<Set> sets;
    for (const MidenVariant &v : variants) sets.push_back({v.kind, GP_PERM_RPO256, v.id, v.kats});
    sets.push_back({GP_MERKLE_MIDEN, GP_PERM_RPX256, "rpx256 HEAD layout", load_rpx_head_kats(&err)});
    ASSERT_TRUE(err.empty()) << err;
    const FieldRef &F = field_ref(GP_FIELD_GOLDILOCKS);
    int seen[7] = {0};
    for (const Set &s : sets) {
        SCOPED_TRACE(s.id);
        ASSERT_EQ(s.kats.size(), 19u);
        seen[s.kind]++;
        gp_merkle_options o;
        gp_merkle_options_init(&o);
        o.kind = s.kind;
        o.perm = s.perm;
        for (size_t j = 0; j < s.kats.size(); ++j) {
            const Kat &k = s.kats[j];
            SCOPED_TRACE("hash_elements([0.." + std::to_string(j) + "])");
            ASSERT_EQ(k.input.size(), j + 1);
            ASSERT_EQ(k.digest.size(), 4u);
            const Bytes want = le_bytes(k.digest, 8);
            for (const std::vector<HostMat> &split : one_row_splits(k.input, true)) {
                SCOPED_TRACE(std::to_string(split.size()) + " matrices, degree " + std::to_string(split[0].d));
                Uploaded up;
                std::vector<const HostMat *> ps;
                for (const HostMat &m : split) ps.push_back(&m);
                ASSERT_GP_OK(upload_all(ctx(), ps, F.field, &up));
                EXPECT_TRUE(bytes_equal(lib_hash_rows(ctx(), up, o, 32), want));
            }
            // Four equal rows: four equal digests, written back to back; a
            // larger buffer keeps its tail.
            HostMat four(4, j + 1, 1);
            for (uint64_t r = 0; r < 4; ++r)
                for (uint64_t c = 0; c <= j; ++c) four.at(r, c, 0) = k.input[c];
            Uploaded up;
            ASSERT_GP_OK(upload_all(ctx(), {&four}, F.field, &up));
            Bytes got = lib_hash_rows(ctx(), up, o, 4 * 32 + 8);
            ASSERT_EQ(got.size(), 4u * 32 + 8);
            for (int r = 0; r < 4; ++r)
                EXPECT_TRUE(bytes_equal(Bytes(got.begin() + 32 * r, got.begin() + 32 * (r + 1)), want)) << "row " << r;
            EXPECT_EQ(Bytes(got.end() - 8, got.end()), Bytes(8, 0xee));
        }
    }
    EXPECT_EQ(seen[GP_MERKLE_MIDEN], 2);
    EXPECT_EQ(seen[GP_MERKLE_MIDEN_V0_11], 1);
    EXPECT_EQ(seen[GP_MERKLE_MIDEN_V0_10], 1);
}

TEST_P(MerkleProfileTest, KeccakHashRowsKnownAnswers) {
    std::string err;
    const std::vector<KeccakKat> kats = load_keccak_kats(&err);
    ASSERT_TRUE(err.empty()) << err;
    int used_le = 0, used_be = 0, used31[2] = {0, 0};
    for (const KeccakKat &k : kats) {
        SCOPED_TRACE(k.name);
        if (k.msg.empty()) continue;
        // Goldilocks: 8 bytes per element, little-endian (Plonky3) and
        // big-endian (lambdaworks).
        if (k.msg.size() % 8 == 0) {
            for (gp_merkle_kind kind : {GP_MERKLE_KECCAK_PLONKY3, GP_MERKLE_KECCAK_BE}) {
                const bool be = kind == GP_MERKLE_KECCAK_BE;
                Elems vals(k.msg.size() / 8);
                bool canonical = true;
                for (size_t j = 0; j < vals.size(); ++j) {
                    uint64_t x = 0;
                    for (int b = 0; b < 8; ++b)
                        x |= (uint64_t)k.msg[8 * j + b] << (8 * (be ? 7 - b : b));
                    vals[j] = x;
                    canonical = canonical && x < field_ref(GP_FIELD_GOLDILOCKS).p;
                }
                if (!canonical) continue;
                (be ? used_be : used_le)++;
                gp_merkle_options o;
                gp_merkle_options_init(&o);
                o.kind = kind;
                o.perm = GP_PERM_KECCAK_F1600;
                for (const std::vector<HostMat> &split : one_row_splits(vals, true)) {
                    SCOPED_TRACE(std::string(be ? "big-endian, " : "plonky3, ") + std::to_string(split.size()) +
                                 " matrices, degree " + std::to_string(split[0].d));
                    Uploaded up;
                    std::vector<const HostMat *> ps;
                    for (const HostMat &m : split) ps.push_back(&m);
                    ASSERT_GP_OK(upload_all(ctx(), ps, GP_FIELD_GOLDILOCKS, &up));
                    EXPECT_TRUE(bytes_equal(lib_hash_rows(ctx(), up, o, 32), k.digest));
                }
            }
        }
        // BabyBear / KoalaBear: each 4-byte little-endian word is the
        // Montgomery form of the element x = word * 2^-32 mod p.
        if (k.msg.size() % 4 == 0) {
            for (int fi = 0; fi < 2; ++fi) {
                const gp_field f = fi == 0 ? GP_FIELD_BABYBEAR : GP_FIELD_KOALABEAR;
                const uint64_t p = field_ref(f).p;
                Elems vals(k.msg.size() / 4);
                bool ok = true;
                for (size_t j = 0; j < vals.size(); ++j) {
                    uint64_t w = 0;
                    for (int b = 0; b < 4; ++b) w |= (uint64_t)k.msg[4 * j + b] << (8 * b);
                    ok = ok && w < p;
                    vals[j] = from_mont_form(w % p, p);
                }
                if (!ok) continue;
                used31[fi]++;
                gp_merkle_options o;
                gp_merkle_options_init(&o);
                o.kind = GP_MERKLE_KECCAK_PLONKY3;
                o.perm = GP_PERM_KECCAK_F1600;
                std::vector<std::vector<HostMat>> splits = one_row_splits(vals, false);
                if (vals.size() % 4 == 0) {
                    HostMat e(1, vals.size() / 4, 4);
                    for (uint64_t c = 0; c < e.cols; ++c)
                        for (uint32_t q = 0; q < 4; ++q) e.at(0, c, q) = vals[c * 4 + q];
                    splits.push_back({e});
                }
                for (const std::vector<HostMat> &split : splits) {
                    SCOPED_TRACE(std::string(field_ref(f).name) + ", " + std::to_string(split.size()) +
                                 " matrices, degree " + std::to_string(split[0].d));
                    Uploaded up;
                    std::vector<const HostMat *> ps;
                    for (const HostMat &m : split) ps.push_back(&m);
                    ASSERT_GP_OK(upload_all(ctx(), ps, f, &up));
                    EXPECT_TRUE(bytes_equal(lib_hash_rows(ctx(), up, o, 32), k.digest));
                }
            }
        }
    }
    // 'a' x 136, 'a' x 1000, 200 bytes 0..199, 200 bytes 0xa3 for Goldilocks;
    // the 'a' messages for the 31-bit fields.
    EXPECT_GE(used_le, 4);
    EXPECT_GE(used_be, 4);
    EXPECT_GE(used31[0], 2);
    EXPECT_GE(used31[1], 2);
}

TEST_P(MerkleProfileTest, KeccakOneLaneElement) {
    // 'a' x 136 is one full Keccak block plus a padding block: 17 Goldilocks
    // elements 0x6161616161616161 in both byte orders (the bytes of the
    // element are all equal), 34 BabyBear/KoalaBear elements whose Montgomery
    // form is 0x61616161.
    std::string err;
    const std::vector<KeccakKat> kats = load_keccak_kats(&err);
    ASSERT_TRUE(err.empty()) << err;
    const KeccakKat *a136 = nullptr;
    for (const KeccakKat &k : kats)
        if (k.msg == Bytes(136, 'a')) a136 = &k;
    ASSERT_NE(a136, nullptr) << "no 'a' x 136 vector";
    for (gp_merkle_kind kind : {GP_MERKLE_KECCAK_PLONKY3, GP_MERKLE_KECCAK_BE}) {
        HostMat m(1, 17, 1);
        for (auto &x : m.v) x = 0x6161616161616161ull;
        Uploaded up;
        ASSERT_GP_OK(upload_all(ctx(), {&m}, GP_FIELD_GOLDILOCKS, &up));
        gp_merkle_options o;
        gp_merkle_options_init(&o);
        o.kind = kind;
        o.perm = GP_PERM_KECCAK_F1600;
        EXPECT_TRUE(bytes_equal(lib_hash_rows(ctx(), up, o, 32), a136->digest)) << "kind " << (int)kind;
    }
    for (gp_field f : {GP_FIELD_BABYBEAR, GP_FIELD_KOALABEAR}) {
        const uint64_t p = field_ref(f).p;
        const uint64_t x = mul_mod(0x61616161, inv_mod((1ull << 32) % p, p), p);
        ASSERT_EQ(mul_mod(x, (1ull << 32) % p, p), 0x61616161u);
        HostMat m(1, 34, 1);
        for (auto &v : m.v) v = x;
        Uploaded up;
        ASSERT_GP_OK(upload_all(ctx(), {&m}, f, &up));
        gp_merkle_options o;
        gp_merkle_options_init(&o);
        o.kind = GP_MERKLE_KECCAK_PLONKY3;
        o.perm = GP_PERM_KECCAK_F1600;
        EXPECT_TRUE(bytes_equal(lib_hash_rows(ctx(), up, o, 32), a136->digest)) << field_ref(f).name;
        // The canonical value itself, serialized as is, is another message.
        HostMat c(1, 34, 1);
        for (auto &v : c.v) v = 0x61616161;
        ASSERT_GP_OK(upload_all(ctx(), {&c}, f, &up));
        EXPECT_NE(lib_hash_rows(ctx(), up, o, 32), a136->digest) << field_ref(f).name << ": not in Montgomery form";
    }
}

TEST_P(MerkleProfileTest, FieldSpongeHashRows) {
    for (gp_permutation perm : {GP_PERM_POSEIDON2_GOLDILOCKS_8, GP_PERM_POSEIDON2_BABYBEAR_16,
                                GP_PERM_POSEIDON2_KOALABEAR_24, GP_PERM_RPO256}) {
        const Profile pr = sponge_profile(perm);
        check_tree(pr, {{16, 9, 1}, {16, 2, pr.field == GP_FIELD_GOLDILOCKS ? 3u : 4u}}, 50 + perm, {0});
    }
}

/* ------------------------------------------------------------------------ */
/* Against the reference tree                                               */
/* ------------------------------------------------------------------------ */

const uint64_t kHeights[] = {1, 2, 8, 64, 1024};
const uint64_t kCols[] = {1, 7, 17, 34, 40};

TEST_P(MerkleProfileTest, MidenTrees) {
    struct Case {
        gp_merkle_kind kind;
        gp_permutation perm;
    };
    const Case cases[] = {{GP_MERKLE_MIDEN, GP_PERM_RPO256},       {GP_MERKLE_MIDEN, GP_PERM_RPX256},
                          {GP_MERKLE_MIDEN_V0_11, GP_PERM_RPO256}, {GP_MERKLE_MIDEN_V0_11, GP_PERM_RPX256},
                          {GP_MERKLE_MIDEN_V0_10, GP_PERM_RPO256}, {GP_MERKLE_MIDEN_V0_10, GP_PERM_RPX256}};
    uint64_t seed = 100;
    for (const Case &c : cases) {
        const Profile pr = miden_profile(c.kind, c.perm);
        const bool full = c.kind == GP_MERKLE_MIDEN && c.perm == GP_PERM_RPO256;
        for (uint64_t h : kHeights)
            for (uint64_t cols : kCols) {
                // Every cap height except at 1024 rows, where (to keep the
                // run short: RPO is slow on the CPU) only the HEAD-layout RPO
                // tree of 17 columns takes them all.
                std::vector<uint32_t> caps;
                if (h == 1024) {
                    if (!full && cols != 17) continue;
                    if (!(full && cols == 17)) caps = {0, 3, 10};
                }
                check_tree(pr, {{h, cols, 1}}, seed++, caps);
            }
    }
}

TEST_P(MerkleProfileTest, MidenSeveralMatricesAndExtensions) {
    for (gp_merkle_kind kind : {GP_MERKLE_MIDEN, GP_MERKLE_MIDEN_V0_11, GP_MERKLE_MIDEN_V0_10}) {
        const Profile pr = miden_profile(kind, GP_PERM_RPO256);
        check_tree(pr, {{16, 3, 2}, {16, 5, 1}, {16, 1, 3}}, 200);
        check_tree(pr, {{8, 4, 2}}, 201);
        check_tree(pr, {{32, 7, 1}, {32, 1, 1}}, 202); /* 8 elements: exactly one block */
        check_tree(pr, {{4, 17, 1}, {4, 17, 1}, {4, 2, 3}}, 203);
        check_tree(pr, {{2, 6, 3}}, 204);
    }
}

TEST_P(MerkleProfileTest, KeccakPlonky3Trees) {
    uint64_t seed = 300;
    for (gp_field f : {GP_FIELD_GOLDILOCKS, GP_FIELD_BABYBEAR, GP_FIELD_KOALABEAR}) {
        const Profile pr = keccak_profile(GP_MERKLE_KECCAK_PLONKY3, f);
        for (uint64_t h : kHeights)
            for (uint64_t cols : kCols) {
                if (h == 1024 && cols != 17 && cols != 40) continue;
                check_tree(pr, {{h, cols, 1}}, seed++);
            }
    }
}

TEST_P(MerkleProfileTest, KeccakBigEndianTrees) {
    const Profile pr = keccak_profile(GP_MERKLE_KECCAK_BE, GP_FIELD_GOLDILOCKS);
    uint64_t seed = 400;
    for (uint64_t h : kHeights)
        for (uint64_t cols : kCols) check_tree(pr, {{h, cols, 1}}, seed++);
    check_tree(pr, {{16, 3, 2}, {16, 5, 1}, {16, 4, 3}}, 420);
    check_tree(pr, {{8, 17, 1}, {8, 17, 1}}, 421);
}

// lambdaworks' pair leaves (gp_merkle_options.leaf_rows = 2), against a
// naive tree written from lambdaworks' prover (crates/provers/stark:
// commit_composition_polynomial extends bit-reversed row 2i with row 2i + 1;
// new_fri_layer commits evaluation.chunks(2) of the bit-reversed layer;
// BatchKeccak256Backend hashes the elements' big-endian bytes, nodes are
// Keccak-256(left || right)): the composition polynomial's parts (one and
// several matrices, base and degree-2 columns) and a FRI layer (one
// column). Every opening is checked and verified.
TEST_P(MerkleProfileTest, LambdaworksPairLeaves) {
    const Profile pr = keccak_profile(GP_MERKLE_KECCAK_BE, GP_FIELD_GOLDILOCKS);
    const std::vector<std::vector<MatSpec>> shapes = {
        {{16, 3, 1}},            // composition parts in one matrix
        {{8, 2, 1}, {8, 1, 2}},  // parts over two matrices, one in the extension
        {{32, 1, 2}},            // a FRI layer over the degree-2 extension
        {{2, 1, 1}},             // one leaf
    };
    uint64_t seed = 430;
    for (const std::vector<MatSpec> &spec : shapes) {
        SCOPED_TRACE(describe(spec));
        const std::vector<HostMat> mats = make_mats(pr.field, spec, seed++);
        const uint64_t half = spec[0].rows / 2;
        // Leaf i: row 2i of every matrix, then row 2i + 1 of every matrix.
        std::vector<Elems> leaves(half);
        for (uint64_t i = 0; i < half; ++i)
            for (uint64_t r : {2 * i, 2 * i + 1})
                for (const HostMat &m : mats)
                    for (uint64_t c = 0; c < m.cols; ++c)
                        for (uint32_t k = 0; k < m.d; ++k) leaves[i].push_back(m.at(r, c, k));
        std::vector<std::vector<Bytes>> layers(1);
        for (const Elems &l : leaves) layers[0].push_back(pr.hash(l));
        while (layers.back().size() > 1) {
            std::vector<Bytes> up;
            for (size_t j = 0; j < layers.back().size(); j += 2)
                up.push_back(pr.compress(layers.back()[j], layers.back()[j + 1]));
            layers.push_back(up);
        }
        Uploaded u;
        ASSERT_GP_OK(upload_all(ctx(), ptrs_of(mats), pr.field, &u));
        gp_merkle_options o = pr.options();
        o.leaf_rows = 2;
        TreePtr t = commit(ctx(), u, o);
        ASSERT_TRUE(t);
        EXPECT_EQ(lib_root(t.get()), layers.back()[0]);
        // gp_merkle_hash_rows: the leaf digests.
        std::vector<unsigned char> digests(half * 32);
        ASSERT_GP_OK(gp_merkle_hash_rows(ctx(), u.ptrs.data(), u.count(), &o, digests.data(), digests.size()));
        for (uint64_t i = 0; i < half; ++i)
            EXPECT_EQ(Bytes(digests.begin() + i * 32, digests.begin() + (i + 1) * 32), layers[0][i]) << i;
        // Openings: the leaf's elements, its siblings, and the verifier.
        uint64_t rb = 0, pb = 0;
        ASSERT_GP_OK(gp_merkle_opening_size(t.get(), &rb, &pb));
        ASSERT_EQ(rb, leaves[0].size() * 8);
        std::vector<gp_matrix_dims> dims;
        for (const MatSpec &m : spec) dims.push_back({m.rows, (uint32_t)m.cols, m.d});
        const Bytes root = layers.back()[0];
        for (uint64_t i = 0; i < half; ++i) {
            std::vector<unsigned char> rows(rb), path(pb);
            ASSERT_GP_OK(gp_merkle_open(t.get(), &i, 1, rows.data(), rb, path.data(), pb));
            Elems got(leaves[i].size());
            for (size_t j = 0; j < got.size(); ++j) std::memcpy(&got[j], rows.data() + 8 * j, 8);
            EXPECT_EQ(got, leaves[i]) << "leaf " << i;
            for (size_t k = 0; k + 1 < layers.size(); ++k)
                EXPECT_EQ(Bytes(path.begin() + 32 * k, path.begin() + 32 * (k + 1)), layers[k][(i >> k) ^ 1]);
            EXPECT_EQ(gp_merkle_verify(&o, pr.field, dims.data(), (uint32_t)dims.size(), root.data(), root.size(),
                                       i, rows.data(), rb, path.data(), pb),
                      GP_OK)
                << gp_last_error();
        }
        const uint64_t past = half;
        std::vector<unsigned char> rows(rb);
        EXPECT_EQ(gp_merkle_open(t.get(), &past, 1, rows.data(), rb, nullptr, 0), GP_ERR_INVALID_ARGUMENT);
    }
    // Refused: an odd height, heights that differ, a third row per leaf, and
    // the commitments that hash one row per leaf.
    const std::vector<HostMat> odd = make_mats(pr.field, {{3, 2, 1}}, 440);
    const std::vector<HostMat> two = make_mats(pr.field, {{8, 2, 1}, {4, 2, 1}}, 441);
    Uploaded uo, ut;
    ASSERT_GP_OK(upload_all(ctx(), ptrs_of(odd), pr.field, &uo));
    ASSERT_GP_OK(upload_all(ctx(), ptrs_of(two), pr.field, &ut));
    gp_merkle_options o = keccak_profile(GP_MERKLE_KECCAK_PLONKY3, GP_FIELD_GOLDILOCKS).options();
    o.leaf_rows = 2;
    gp_merkle_tree *raw = nullptr;
    EXPECT_EQ(gp_merkle_commit(ctx(), uo.ptrs.data(), uo.count(), &o, &raw), GP_ERR_SHAPE_MISMATCH);
    EXPECT_EQ(gp_merkle_commit(ctx(), ut.ptrs.data(), ut.count(), &o, &raw), GP_ERR_SHAPE_MISMATCH);
    o.leaf_rows = 3;
    EXPECT_EQ(gp_merkle_commit(ctx(), ut.ptrs.data(), 1, &o, &raw), GP_ERR_INVALID_ARGUMENT);
    EXPECT_EQ(raw, nullptr);
    o.leaf_rows = 2;
    gp_fri_options fo;
    gp_fri_options_init(&fo);
    fo.merkle = o;
    fo.final_size = 4;
    std::vector<uint64_t> codeword(32 * 2, 5);
    unsigned char fri_cap[32];
    gp_fri *fri = nullptr;
    EXPECT_EQ(gp_fri_begin_host(ctx(), GP_FIELD_GOLDILOCKS, 2, codeword.data(), 32, &fo, fri_cap, sizeof fri_cap,
                                &fri),
              GP_ERR_UNSUPPORTED);
    EXPECT_NE(std::string(gp_last_error()).find("leaf_rows"), std::string::npos) << gp_last_error();
    EXPECT_EQ(fri, nullptr);
    EXPECT_EQ(stats_of(ctx()).buffer_bytes, (8 * 2 + 4 * 2 + 3 * 2) * 8u);  // the uploads, no copies left
}

TEST_P(MerkleProfileTest, KeccakPlonky3MixedHeightsAndExtensions) {
    const Profile gl = keccak_profile(GP_MERKLE_KECCAK_PLONKY3, GP_FIELD_GOLDILOCKS);
    check_tree(gl, {{16, 5, 1}, {16, 3, 2}, {8, 7, 1}, {4, 2, 3}, {1, 11, 1}}, 500);
    // Equal heights keep their insertion order, wherever they stand.
    check_tree(gl, {{4, 2, 1}, {16, 3, 1}, {1, 11, 1}, {8, 7, 1}, {16, 5, 1}, {4, 9, 1}}, 501);
    check_tree(gl, {{2, 4, 1}, {64, 6, 1}}, 502);
    check_tree(gl, {{32, 3, 1}, {16, 1, 1}, {8, 2, 1}, {4, 17, 1}, {2, 3, 1}, {1, 5, 1}}, 503);
    check_tree(gl, {{8, 17, 1}, {8, 1, 2}, {2, 34, 1}, {2, 6, 3}}, 504);
    check_tree(gl, {{1024, 17, 1}, {256, 8, 2}, {2, 40, 1}}, 505, {0, 1});
    check_tree(gl, {{16, 2, 2}, {16, 1, 3}}, 506);
    for (gp_field f : {GP_FIELD_BABYBEAR, GP_FIELD_KOALABEAR}) {
        const Profile pr = keccak_profile(GP_MERKLE_KECCAK_PLONKY3, f);
        check_tree(pr, {{16, 2, 4}}, 510);
        check_tree(pr, {{16, 3, 4}, {16, 5, 1}, {4, 1, 4}, {4, 3, 1}, {1, 7, 4}}, 511);
        check_tree(pr, {{64, 34, 1}, {32, 9, 4}, {2, 17, 1}}, 512);
        check_tree(pr, {{1, 1, 1}, {32, 1, 4}, {1, 2, 1}}, 513);
        check_tree(pr, {{256, 10, 4}, {1024, 7, 1}}, 514, {0, 8});
    }
}

TEST_P(MerkleProfileTest, ProfilesDiffer) {
    // The same matrix under every Goldilocks profile: all roots differ.
    const std::vector<HostMat> mats = make_mats(GP_FIELD_GOLDILOCKS, {{8, 9, 1}}, 600);
    Uploaded up;
    ASSERT_GP_OK(upload_all(ctx(), ptrs_of(mats), GP_FIELD_GOLDILOCKS, &up));
    std::vector<Profile> prs = {miden_profile(GP_MERKLE_MIDEN, GP_PERM_RPO256),
                                miden_profile(GP_MERKLE_MIDEN, GP_PERM_RPX256),
                                miden_profile(GP_MERKLE_MIDEN_V0_11, GP_PERM_RPO256),
                                miden_profile(GP_MERKLE_MIDEN_V0_10, GP_PERM_RPO256),
                                keccak_profile(GP_MERKLE_KECCAK_PLONKY3, GP_FIELD_GOLDILOCKS),
                                keccak_profile(GP_MERKLE_KECCAK_BE, GP_FIELD_GOLDILOCKS),
                                sponge_profile(GP_PERM_RPO256)};
    std::vector<Bytes> roots;
    for (const Profile &pr : prs) {
        TreePtr t = commit(ctx(), up, pr.options());
        ASSERT_TRUE(t);
        roots.push_back(lib_root(t.get()));
    }
    for (size_t i = 0; i < roots.size(); ++i)
        for (size_t j = i + 1; j < roots.size(); ++j) EXPECT_NE(roots[i], roots[j]) << prs[i].name << " / " << prs[j].name;
}

TEST_P(MerkleProfileTest, DigestAndOpeningSizes) {
    struct Case {
        Profile pr;
        std::vector<MatSpec> specs;
        uint32_t cap;
        uint64_t row_bytes, path_bytes;
    };
    const std::vector<Case> cases = {
        {miden_profile(GP_MERKLE_MIDEN, GP_PERM_RPO256), {{64, 5, 1}, {64, 2, 3}}, 0, 11 * 8, 6 * 32},
        {miden_profile(GP_MERKLE_MIDEN_V0_10, GP_PERM_RPX256), {{64, 5, 1}}, 4, 5 * 8, 2 * 32},
        {keccak_profile(GP_MERKLE_KECCAK_PLONKY3, GP_FIELD_BABYBEAR), {{32, 3, 4}, {4, 5, 1}}, 2, 17 * 4, 3 * 32},
        {keccak_profile(GP_MERKLE_KECCAK_BE, GP_FIELD_GOLDILOCKS), {{1, 3, 2}}, 0, 6 * 8, 0},
        {sponge_profile(GP_PERM_POSEIDON2_KOALABEAR_16), {{16, 2, 1}, {2, 1, 4}}, 1, 6 * 4, 3 * 32},
        {sponge_profile(GP_PERM_POSEIDON2_GOLDILOCKS_12), {{16, 2, 1}}, 0, 2 * 8, 4 * 32},
    };
    for (const Case &c : cases) {
        SCOPED_TRACE(c.pr.name);
        const std::vector<HostMat> mats = make_mats(c.pr.field, c.specs, 610);
        Uploaded up;
        ASSERT_GP_OK(upload_all(ctx(), ptrs_of(mats), c.pr.field, &up));
        TreePtr t = commit(ctx(), up, c.pr.options(c.cap));
        ASSERT_TRUE(t);
        EXPECT_EQ(gp_merkle_digest_size(t.get()), c.pr.digest_bytes);
        EXPECT_EQ(gp_merkle_cap_size(t.get()), c.pr.digest_bytes << c.cap);
        uint64_t rb = 0, pb = 0;
        ASSERT_GP_OK(gp_merkle_opening_size(t.get(), &rb, &pb));
        EXPECT_EQ(rb, c.row_bytes);
        EXPECT_EQ(pb, c.path_bytes);
        rb = pb = 7;
        ASSERT_GP_OK(gp_merkle_opening_size(t.get(), nullptr, &pb));
        EXPECT_EQ(pb, c.path_bytes);
        ASSERT_GP_OK(gp_merkle_opening_size(t.get(), &rb, nullptr));
        EXPECT_EQ(rb, c.row_bytes);
    }
    EXPECT_EQ(gp_merkle_digest_size(nullptr), 0u);
}

TEST_P(MerkleProfileTest, HashRowsIgnoresCapHeight) {
    const Profile pr = keccak_profile(GP_MERKLE_KECCAK_BE, GP_FIELD_GOLDILOCKS);
    const std::vector<HostMat> mats = make_mats(GP_FIELD_GOLDILOCKS, {{4, 3, 1}}, 620);
    RefTree ref(pr, ptrs_of(mats));
    Uploaded up;
    ASSERT_GP_OK(upload_all(ctx(), ptrs_of(mats), GP_FIELD_GOLDILOCKS, &up));
    for (uint32_t cap : {0u, 2u, 3u, 40u})
        EXPECT_TRUE(bytes_equal(lib_hash_rows(ctx(), up, pr.options(cap), 4 * 32), ref.layer(0))) << "cap " << cap;
}

/* ------------------------------------------------------------------------ */
/* Openings and verification                                                */
/* ------------------------------------------------------------------------ */

struct OpenCase {
    Profile pr;
    std::vector<MatSpec> specs;
    std::vector<uint32_t> caps;
};

std::vector<OpenCase> open_cases() {
    std::vector<OpenCase> v;
    v.push_back({sponge_profile(GP_PERM_POSEIDON2_GOLDILOCKS_8),
                 {{64, 5, 1}, {64, 2, 2}, {16, 3, 1}, {4, 1, 3}, {64, 1, 1}},
                 {0, 1, 2}});
    v.push_back({sponge_profile(GP_PERM_POSEIDON2_BABYBEAR_16), {{8, 9, 1}, {32, 3, 4}, {32, 1, 1}}, {0, 3}});
    v.push_back({sponge_profile(GP_PERM_POSEIDON2_KOALABEAR_24), {{16, 30, 1}}, {0, 4}});
    v.push_back({miden_profile(GP_MERKLE_MIDEN, GP_PERM_RPO256), {{128, 9, 1}, {128, 2, 3}}, {0, 3, 7}});
    v.push_back({miden_profile(GP_MERKLE_MIDEN, GP_PERM_RPX256), {{32, 8, 1}}, {0, 5}});
    v.push_back({miden_profile(GP_MERKLE_MIDEN_V0_11, GP_PERM_RPO256), {{16, 3, 2}}, {0, 2}});
    v.push_back({miden_profile(GP_MERKLE_MIDEN_V0_11, GP_PERM_RPX256), {{8, 5, 1}}, {0, 1}});
    v.push_back({miden_profile(GP_MERKLE_MIDEN_V0_10, GP_PERM_RPO256), {{64, 7, 1}, {64, 1, 1}}, {0, 6}});
    v.push_back({miden_profile(GP_MERKLE_MIDEN_V0_10, GP_PERM_RPX256), {{4, 9, 1}}, {0, 2}});
    v.push_back({keccak_profile(GP_MERKLE_KECCAK_PLONKY3, GP_FIELD_GOLDILOCKS),
                 {{64, 17, 1}, {32, 3, 2}, {8, 5, 3}, {64, 1, 1}},
                 {0, 2, 3}});
    v.push_back({keccak_profile(GP_MERKLE_KECCAK_PLONKY3, GP_FIELD_BABYBEAR), {{32, 4, 4}, {16, 9, 1}, {2, 3, 4}},
                 {0, 1}});
    v.push_back({keccak_profile(GP_MERKLE_KECCAK_PLONKY3, GP_FIELD_KOALABEAR), {{4, 1, 4}, {16, 34, 1}}, {0, 2}});
    v.push_back({keccak_profile(GP_MERKLE_KECCAK_BE, GP_FIELD_GOLDILOCKS), {{32, 7, 1}, {32, 2, 2}}, {0, 5}});
    v.push_back({keccak_profile(GP_MERKLE_KECCAK_BE, GP_FIELD_GOLDILOCKS), {{1024, 17, 1}}, {0, 10}});
    v.push_back({miden_profile(GP_MERKLE_MIDEN, GP_PERM_RPO256), {{1024, 8, 1}, {1024, 1, 1}}, {0, 3}});
    // One leaf: empty paths.
    v.push_back({keccak_profile(GP_MERKLE_KECCAK_BE, GP_FIELD_GOLDILOCKS), {{1, 3, 1}}, {0}});
    v.push_back({miden_profile(GP_MERKLE_MIDEN, GP_PERM_RPO256), {{1, 5, 1}, {1, 1, 2}}, {0}});
    v.push_back({keccak_profile(GP_MERKLE_KECCAK_PLONKY3, GP_FIELD_BABYBEAR), {{1, 2, 4}}, {0}});
    return v;
}

// Whether the element of `esz` bytes containing byte `b` of `buf` is below p.
bool elem_canonical(const Bytes &buf, size_t b, uint32_t esz, uint64_t p) {
    const size_t start = b / esz * esz;
    uint64_t x = 0;
    for (uint32_t k = 0; k < esz; ++k) x |= (uint64_t)buf[start + k] << (8 * k);
    return x < p;
}

class Verifier {
   public:
    Verifier(const Profile &pr, const std::vector<gp_matrix_dims> &dims, uint32_t cap_height)
        : pr_(pr), dims_(dims), o_(pr.options(cap_height)) {}
    gp_status operator()(const Bytes &cap, uint64_t index, const Bytes &rows, const Bytes &path) const {
        return gp_merkle_verify(&o_, pr_.field, dims_.data(), (uint32_t)dims_.size(), cap.data(), cap.size(), index,
                                rows.data(), rows.size(), path.empty() ? nullptr : path.data(), path.size());
    }
    const gp_merkle_options &options() const { return o_; }

   private:
    const Profile &pr_;
    std::vector<gp_matrix_dims> dims_;
    gp_merkle_options o_;
};

// Flips the lowest bit of every byte of rows, path and cap in turn.
void check_flips(const Profile &pr, const Verifier &verify, const Bytes &cap, uint64_t index, const Bytes &rows,
                 const Bytes &path, uint32_t path_len) {
    int failures = 0;
    auto report = [&](const char *what, size_t b, gp_status got, const char *want) {
        if (failures++ < 5)
            ADD_FAILURE() << "index " << index << ": flipping " << what << " byte " << b << " gave "
                          << gpt_status_str((int)got) << " (" << (int)got << "), expected " << want;
    };
    for (size_t b = 0; b < rows.size(); ++b) {
        Bytes r = rows;
        r[b] ^= 1;
        const gp_status st = verify(cap, index, r, path);
        if (elem_canonical(r, b, pr.esz(), pr.p())) {
            if (st != GP_ERR_VERIFY_FAILED) report("row", b, st, "GP_ERR_VERIFY_FAILED");
        } else if (st != GP_ERR_NON_CANONICAL) {
            report("row", b, st, "GP_ERR_NON_CANONICAL (the element is no longer canonical)");
        }
        if (st != GP_OK && std::string(gp_last_error()).empty()) report("row (empty message)", b, st, "a message");
    }
    auto digest_flip_ok = [&](const Bytes &buf, size_t b, gp_status st) {
        if (st == GP_ERR_VERIFY_FAILED) return true;
        // A digest element flipped out of the field may also be refused as such.
        return pr.digest_esz != 0 && st == GP_ERR_NON_CANONICAL && !elem_canonical(buf, b, pr.digest_esz, pr.p());
    };
    for (size_t b = 0; b < path.size(); ++b) {
        Bytes q = path;
        q[b] ^= 1;
        const gp_status st = verify(cap, index, rows, q);
        if (!digest_flip_ok(q, b, st)) report("path", b, st, "GP_ERR_VERIFY_FAILED");
    }
    const uint64_t mine = index >> path_len;
    for (size_t b = 0; b < cap.size(); ++b) {
        Bytes c = cap;
        c[b] ^= 1;
        const gp_status st = verify(c, index, rows, path);
        if (b / pr.digest_bytes == mine) {
            if (!digest_flip_ok(c, b, st)) report("cap", b, st, "GP_ERR_VERIFY_FAILED");
        } else if (st != GP_OK) {
            report("cap (another cap digest)", b, st, "GP_OK");
        }
    }
    EXPECT_EQ(failures, 0) << failures << " flips misjudged";
}

TEST_P(MerkleOpenTest, OpenAndVerifyEveryKind) {
    uint64_t seed = 700;
    for (const OpenCase &oc : open_cases()) {
        const Profile &pr = oc.pr;
        SCOPED_TRACE(pr.name + ", " + describe(oc.specs));
        const std::vector<HostMat> mats = make_mats(pr.field, oc.specs, seed++);
        RefTree ref(pr, ptrs_of(mats));
        Uploaded up;
        ASSERT_GP_OK(upload_all(ctx(), ptrs_of(mats), pr.field, &up));
        const uint64_t H = ref.height();
        uint64_t row_bytes = 0;
        for (const MatSpec &s : oc.specs) row_bytes += s.cols * s.d * pr.esz();
        Rng rng(seed * 31);
        std::vector<uint64_t> idx = {0, H - 1};
        for (int j = 0; j < 4; ++j) idx.push_back(rng.next() % H);
        idx.push_back(idx[2]); /* a repeated index */
        for (uint32_t cap : oc.caps) {
            SCOPED_TRACE("cap_height " + std::to_string(cap));
            TreePtr t = commit(ctx(), up, pr.options(cap));
            ASSERT_TRUE(t);
            const uint32_t len = ref.log_height() - cap;
            const uint64_t path_bytes = len * pr.digest_bytes;
            uint64_t rb = 0, pb = 0;
            ASSERT_GP_OK(gp_merkle_opening_size(t.get(), &rb, &pb));
            ASSERT_EQ(rb, row_bytes);
            ASSERT_EQ(pb, path_bytes);
            const Bytes cap_bytes = merkle_cap_bytes(t.get());
            ASSERT_TRUE(bytes_equal(cap_bytes, ref.cap(cap), pr.digest_bytes));
            EXPECT_TRUE(bytes_equal(lib_root(t.get()), ref.root(), pr.digest_bytes));

            // All indices in one call.
            Bytes rows(idx.size() * row_bytes, 0xcd), paths(idx.size() * path_bytes, 0xcd);
            ASSERT_GP_OK(gp_merkle_open(t.get(), idx.data(), idx.size(), rows.data(), rows.size(),
                                        paths.empty() ? nullptr : paths.data(), paths.size()));
            const Verifier verify(pr, ref.dims(), cap);
            for (size_t q = 0; q < idx.size(); ++q) {
                const uint64_t i = idx[q];
                SCOPED_TRACE("index " + std::to_string(i));
                const Bytes r(rows.begin() + q * row_bytes, rows.begin() + (q + 1) * row_bytes);
                const Bytes p(paths.begin() + q * path_bytes, paths.begin() + (q + 1) * path_bytes);
                EXPECT_TRUE(bytes_equal(r, ref.opened_rows(i), pr.esz())) << "rows";
                EXPECT_TRUE(bytes_equal(p, ref.path(i, cap), pr.digest_bytes)) << "path";
                EXPECT_GP_OK(verify(cap_bytes, i, r, p));
                EXPECT_STREQ(gp_last_error(), "");
                // Another index with these rows and this path.
                for (uint64_t j : {i ^ 1, (i + 1) % H, H - 1 - i, i ^ (H >> 1)}) {
                    if (j == i || j >= H) continue;
                    EXPECT_GP_ERR(verify(cap_bytes, j, r, p), GP_ERR_VERIFY_FAILED);
                }
                if (q < 2) check_flips(pr, verify, cap_bytes, i, r, p, len);
            }

            // One index at a time gives the same bytes.
            for (size_t q = 0; q < 3; ++q) {
                Bytes r1(row_bytes), p1(path_bytes);
                ASSERT_GP_OK(gp_merkle_open(t.get(), &idx[q], 1, r1.data(), r1.size(),
                                            p1.empty() ? nullptr : p1.data(), p1.size()));
                EXPECT_EQ(r1, Bytes(rows.begin() + q * row_bytes, rows.begin() + (q + 1) * row_bytes));
                EXPECT_EQ(p1, Bytes(paths.begin() + q * path_bytes, paths.begin() + (q + 1) * path_bytes));
            }
            // Rows only, paths only.
            Bytes rows_only(rows.size(), 0), paths_only(paths.size(), 0);
            ASSERT_GP_OK(
                gp_merkle_open(t.get(), idx.data(), idx.size(), rows_only.data(), rows_only.size(), nullptr, 0));
            EXPECT_EQ(rows_only, rows);
            if (!paths.empty()) {
                ASSERT_GP_OK(gp_merkle_open(t.get(), idx.data(), idx.size(), nullptr, 0, paths_only.data(),
                                            paths_only.size()));
                EXPECT_EQ(paths_only, paths);
            }
            // Larger buffers than needed: the tail is left alone.
            Bytes big(row_bytes + 16, 0x77);
            ASSERT_GP_OK(gp_merkle_open(t.get(), &idx[1], 1, big.data(), big.size(), nullptr, 0));
            EXPECT_EQ(Bytes(big.begin(), big.begin() + row_bytes), ref.opened_rows(idx[1]));
            EXPECT_EQ(Bytes(big.begin() + row_bytes, big.end()), Bytes(16, 0x77));
        }
    }
}

TEST_P(MerkleOpenTest, EveryIndexOfSmallTrees) {
    // Every leaf of a mixed-height Keccak tree and of a Miden tree verifies,
    // and the rows of a height-h matrix are those of row i >> log2(H / h).
    struct Case {
        Profile pr;
        std::vector<MatSpec> specs;
        uint32_t cap;
    };
    const std::vector<Case> cases = {
        {keccak_profile(GP_MERKLE_KECCAK_PLONKY3, GP_FIELD_GOLDILOCKS), {{2, 1, 1}, {16, 2, 1}, {4, 1, 2}, {8, 3, 1}},
         1},
        {keccak_profile(GP_MERKLE_KECCAK_PLONKY3, GP_FIELD_KOALABEAR), {{16, 2, 1}, {1, 1, 4}}, 0},
        {sponge_profile(GP_PERM_POSEIDON2_BABYBEAR_24), {{16, 2, 1}, {2, 3, 4}}, 1},
        {miden_profile(GP_MERKLE_MIDEN_V0_10, GP_PERM_RPO256), {{16, 10, 1}}, 0},
    };
    for (const Case &c : cases) {
        SCOPED_TRACE(c.pr.name + ", " + describe(c.specs));
        const std::vector<HostMat> mats = make_mats(c.pr.field, c.specs, 800);
        RefTree ref(c.pr, ptrs_of(mats));
        Uploaded up;
        ASSERT_GP_OK(upload_all(ctx(), ptrs_of(mats), c.pr.field, &up));
        TreePtr t = commit(ctx(), up, c.pr.options(c.cap));
        ASSERT_TRUE(t);
        const uint64_t H = ref.height();
        uint64_t rb = 0, pb = 0;
        ASSERT_GP_OK(gp_merkle_opening_size(t.get(), &rb, &pb));
        std::vector<uint64_t> idx(H);
        for (uint64_t i = 0; i < H; ++i) idx[i] = H - 1 - i;
        Bytes rows(H * rb), paths(H * pb);
        ASSERT_GP_OK(gp_merkle_open(t.get(), idx.data(), H, rows.data(), rows.size(), paths.data(), paths.size()));
        const Bytes cap = merkle_cap_bytes(t.get());
        const Verifier verify(c.pr, ref.dims(), c.cap);
        for (uint64_t q = 0; q < H; ++q) {
            const Bytes r(rows.begin() + q * rb, rows.begin() + (q + 1) * rb);
            const Bytes p(paths.begin() + q * pb, paths.begin() + (q + 1) * pb);
            EXPECT_EQ(r, ref.opened_rows(idx[q])) << "index " << idx[q];
            EXPECT_EQ(p, ref.path(idx[q], c.cap)) << "index " << idx[q];
            EXPECT_GP_OK(verify(cap, idx[q], r, p));
        }
        // Spot check of the row selection against the matrices directly.
        const HostMat &first = mats[0];
        const uint64_t i = H - 1, r = i >> (ref.log_height() - log2_exact(first.rows));
        const Elems got = le_elems(Bytes(rows.begin(), rows.begin() + first.cols * first.d * c.pr.esz()), c.pr.esz());
        for (uint64_t col = 0; col < first.cols; ++col)
            for (uint32_t k = 0; k < first.d; ++k)
                EXPECT_EQ(got[col * first.d + k], first.at(r, col, k)) << "matrix 0 col " << col << " coord " << k;
    }
}

TEST_P(MerkleOpenTest, VerifyWithOtherOptionsFails) {
    // Same shapes, another profile: the opening does not verify.
    const std::vector<HostMat> mats = make_mats(GP_FIELD_GOLDILOCKS, {{16, 6, 1}}, 810);
    const Profile prs[] = {miden_profile(GP_MERKLE_MIDEN, GP_PERM_RPO256),
                           miden_profile(GP_MERKLE_MIDEN, GP_PERM_RPX256),
                           miden_profile(GP_MERKLE_MIDEN_V0_11, GP_PERM_RPO256),
                           miden_profile(GP_MERKLE_MIDEN_V0_10, GP_PERM_RPO256),
                           keccak_profile(GP_MERKLE_KECCAK_PLONKY3, GP_FIELD_GOLDILOCKS),
                           keccak_profile(GP_MERKLE_KECCAK_BE, GP_FIELD_GOLDILOCKS)};
    Uploaded up;
    ASSERT_GP_OK(upload_all(ctx(), ptrs_of(mats), GP_FIELD_GOLDILOCKS, &up));
    const gp_matrix_dims dims = {16, 6, 1};
    for (const Profile &a : prs) {
        TreePtr t = commit(ctx(), up, a.options(1));
        ASSERT_TRUE(t);
        const Bytes cap = merkle_cap_bytes(t.get());
        const uint64_t index = 5;
        Bytes rows(6 * 8), path(3 * 32);
        ASSERT_GP_OK(gp_merkle_open(t.get(), &index, 1, rows.data(), rows.size(), path.data(), path.size()));
        for (const Profile &b : prs) {
            const gp_merkle_options o = b.options(1);
            const gp_status st = gp_merkle_verify(&o, GP_FIELD_GOLDILOCKS, &dims, 1, cap.data(), cap.size(), index,
                                                  rows.data(), rows.size(), path.data(), path.size());
            if (&a == &b) EXPECT_EQ(st, GP_OK) << a.name << ": " << gp_last_error();
            else EXPECT_EQ(st, GP_ERR_VERIFY_FAILED) << a.name << " verified as " << b.name;
        }
    }
}

TEST_P(MerkleOpenTest, VerifyNeedsNoContext) {
    // gp_merkle_verify works from the reference's own bytes, with no tree:
    // a Plonky3 Keccak opening over BabyBear with mixed heights and a cap.
    const Profile pr = keccak_profile(GP_MERKLE_KECCAK_PLONKY3, GP_FIELD_BABYBEAR);
    const std::vector<HostMat> mats = make_mats(GP_FIELD_BABYBEAR, {{4, 3, 4}, {32, 2, 1}, {8, 5, 1}}, 820);
    RefTree ref(pr, ptrs_of(mats));
    const Verifier verify(pr, ref.dims(), 2);
    const Bytes cap = ref.cap(2);
    for (uint64_t i : {0ull, 7ull, 13ull, 31ull}) {
        EXPECT_GP_OK(verify(cap, i, ref.opened_rows(i), ref.path(i, 2)));
        EXPECT_GP_ERR(verify(cap, i, ref.opened_rows(i ^ 8), ref.path(i, 2)), GP_ERR_VERIFY_FAILED);
    }
    // The same with the committed-by-the-library cap (same bytes).
    Uploaded up;
    ASSERT_GP_OK(upload_all(ctx(), ptrs_of(mats), GP_FIELD_BABYBEAR, &up));
    TreePtr t = commit(ctx(), up, pr.options(2));
    ASSERT_TRUE(t);
    EXPECT_TRUE(bytes_equal(merkle_cap_bytes(t.get()), cap));
}

/* ------------------------------------------------------------------------ */
/* Bad input                                                                */
/* ------------------------------------------------------------------------ */

gp_merkle_options opts_of(gp_merkle_kind kind, gp_permutation perm, uint32_t cap = 0, uint32_t digest = 0,
                          uint32_t rate = 0) {
    gp_merkle_options o;
    gp_merkle_options_init(&o);
    o.kind = kind;
    o.perm = perm;
    o.cap_height = cap;
    o.digest = digest;
    o.rate = rate;
    return o;
}

// Expects a commit and a hash_rows of the same request to fail with one of
// the codes, leave no tree, and leave the context usable.
#define EXPECT_PROFILE_FAILS(up, o, ...)                                                                   \
    do {                                                                                                   \
        gp_merkle_tree *t_ = nullptr;                                                                      \
        EXPECT_GP_ERR_ANY(gp_merkle_commit(ctx(), (up).ptrs.data(), (up).count(), &(o), &t_), __VA_ARGS__); \
        EXPECT_EQ(t_, nullptr);                                                                            \
        gp_merkle_tree_destroy(t_);                                                                        \
        Bytes d_((size_t)1 << 16);                                                                         \
        EXPECT_GP_ERR_ANY(                                                                                 \
            gp_merkle_hash_rows(ctx(), (up).ptrs.data(), (up).count(), &(o), d_.data(), d_.size()),        \
            __VA_ARGS__);                                                                                  \
        expect_context_works();                                                                            \
    } while (0)

TEST_P(MerkleProfileTest, BadPermutationForKind) {
    const std::vector<HostMat> gl = make_mats(GP_FIELD_GOLDILOCKS, {{8, 5, 1}}, 1000);
    Uploaded up;
    ASSERT_GP_OK(upload_all(ctx(), ptrs_of(gl), GP_FIELD_GOLDILOCKS, &up));
    const gp_matrix_dims dims = {8, 5, 1};
    Bytes cap(32), rows(5 * 8), path(3 * 32);
    for (gp_merkle_kind kind : {GP_MERKLE_MIDEN, GP_MERKLE_MIDEN_V0_11, GP_MERKLE_MIDEN_V0_10}) {
        for (gp_permutation perm : {GP_PERM_POSEIDON2_GOLDILOCKS_8, GP_PERM_POSEIDON2_GOLDILOCKS_12,
                                    GP_PERM_POSEIDON_GOLDILOCKS_12, GP_PERM_TIP5, GP_PERM_KECCAK_F1600,
                                    GP_PERM_POSEIDON2_BABYBEAR_16}) {
            // miden-crypto's current layout merges with Poseidon2 GL12
            // (tests/test_merkle_conventions.cpp); its older layouts do not.
            if (kind == GP_MERKLE_MIDEN && perm == GP_PERM_POSEIDON2_GOLDILOCKS_12) continue;
            SCOPED_TRACE("kind " + std::to_string((int)kind) + " perm " + std::to_string((int)perm));
            const gp_merkle_options o = opts_of(kind, perm);
            EXPECT_PROFILE_FAILS(up, o, GP_ERR_INVALID_ARGUMENT);
            EXPECT_GP_ERR(gp_merkle_verify(&o, GP_FIELD_GOLDILOCKS, &dims, 1, cap.data(), cap.size(), 0, rows.data(),
                                           rows.size(), path.data(), path.size()),
                          GP_ERR_INVALID_ARGUMENT);
        }
    }
    for (gp_merkle_kind kind : {GP_MERKLE_KECCAK_PLONKY3, GP_MERKLE_KECCAK_BE}) {
        for (gp_permutation perm : {GP_PERM_RPO256, GP_PERM_POSEIDON2_GOLDILOCKS_8, GP_PERM_RPX256,
                                    GP_PERM_POSEIDON2_KOALABEAR_16}) {
            SCOPED_TRACE("kind " + std::to_string((int)kind) + " perm " + std::to_string((int)perm));
            const gp_merkle_options o = opts_of(kind, perm);
            EXPECT_PROFILE_FAILS(up, o, GP_ERR_INVALID_ARGUMENT);
            EXPECT_GP_ERR(gp_merkle_verify(&o, GP_FIELD_GOLDILOCKS, &dims, 1, cap.data(), cap.size(), 0, rows.data(),
                                           rows.size(), path.data(), path.size()),
                          GP_ERR_INVALID_ARGUMENT);
        }
    }
    {
        SCOPED_TRACE("field sponge over Keccak-f");
        const gp_merkle_options o = opts_of(GP_MERKLE_FIELD_SPONGE, GP_PERM_KECCAK_F1600);
        EXPECT_PROFILE_FAILS(up, o, GP_ERR_INVALID_ARGUMENT, GP_ERR_UNSUPPORTED);
        EXPECT_GP_ERR_ANY(gp_merkle_verify(&o, GP_FIELD_GOLDILOCKS, &dims, 1, cap.data(), cap.size(), 0,
                                           rows.data(), rows.size(), path.data(), path.size()),
                          GP_ERR_INVALID_ARGUMENT, GP_ERR_UNSUPPORTED);
    }
}

TEST_P(MerkleProfileTest, BadFieldForKind) {
    const std::vector<HostMat> bb = make_mats(GP_FIELD_BABYBEAR, {{8, 5, 1}}, 1010);
    const std::vector<HostMat> kb = make_mats(GP_FIELD_KOALABEAR, {{8, 4, 4}}, 1011);
    Uploaded ubb, ukb;
    ASSERT_GP_OK(upload_all(ctx(), ptrs_of(bb), GP_FIELD_BABYBEAR, &ubb));
    ASSERT_GP_OK(upload_all(ctx(), ptrs_of(kb), GP_FIELD_KOALABEAR, &ukb));
    const gp_matrix_dims dims = {8, 5, 1};
    Bytes cap(32), rows(5 * 4), path(3 * 32);
    // Keccak big-endian is defined for Goldilocks only.
    {
        const gp_merkle_options o = opts_of(GP_MERKLE_KECCAK_BE, GP_PERM_KECCAK_F1600);
        EXPECT_PROFILE_FAILS(ubb, o, GP_ERR_UNSUPPORTED);
        EXPECT_PROFILE_FAILS(ukb, o, GP_ERR_UNSUPPORTED);
        EXPECT_GP_ERR(gp_merkle_verify(&o, GP_FIELD_BABYBEAR, &dims, 1, cap.data(), cap.size(), 0, rows.data(),
                                       rows.size(), path.data(), path.size()),
                      GP_ERR_UNSUPPORTED);
    }
    // Miden hashes Goldilocks elements.
    for (gp_merkle_kind kind : {GP_MERKLE_MIDEN, GP_MERKLE_MIDEN_V0_11, GP_MERKLE_MIDEN_V0_10}) {
        for (gp_permutation perm : {GP_PERM_RPO256, GP_PERM_RPX256}) {
            SCOPED_TRACE("kind " + std::to_string((int)kind) + " perm " + std::to_string((int)perm));
            const gp_merkle_options o = opts_of(kind, perm);
            EXPECT_PROFILE_FAILS(ubb, o, GP_ERR_FIELD_MISMATCH);
            EXPECT_PROFILE_FAILS(ukb, o, GP_ERR_FIELD_MISMATCH);
            EXPECT_GP_ERR(gp_merkle_verify(&o, GP_FIELD_KOALABEAR, &dims, 1, cap.data(), cap.size(), 0, rows.data(),
                                           rows.size(), path.data(), path.size()),
                          GP_ERR_FIELD_MISMATCH);
        }
    }
    // Matrices of two fields under a Keccak profile.
    const std::vector<HostMat> gl = make_mats(GP_FIELD_GOLDILOCKS, {{8, 5, 1}}, 1012);
    Uploaded ugl;
    ASSERT_GP_OK(upload_all(ctx(), ptrs_of(gl), GP_FIELD_GOLDILOCKS, &ugl));
    Uploaded mixed;
    mixed.ptrs = {ugl.ptrs[0], ubb.ptrs[0]};
    const gp_merkle_options o = opts_of(GP_MERKLE_KECCAK_PLONKY3, GP_PERM_KECCAK_F1600);
    EXPECT_PROFILE_FAILS(mixed, o, GP_ERR_FIELD_MISMATCH);
}

TEST_P(MerkleProfileTest, MixedHeightsNeedInjection) {
    const std::vector<HostMat> mats = make_mats(GP_FIELD_GOLDILOCKS, {{8, 5, 1}, {4, 2, 1}}, 1020);
    Uploaded up;
    ASSERT_GP_OK(upload_all(ctx(), ptrs_of(mats), GP_FIELD_GOLDILOCKS, &up));
    const gp_matrix_dims dims[2] = {{8, 5, 1}, {4, 2, 1}};
    Bytes cap(32), rows(7 * 8), path(3 * 32);
    struct Case {
        gp_merkle_kind kind;
        gp_permutation perm;
    };
    for (const Case &c : {Case{GP_MERKLE_MIDEN, GP_PERM_RPO256}, Case{GP_MERKLE_MIDEN_V0_11, GP_PERM_RPX256},
                          Case{GP_MERKLE_MIDEN_V0_10, GP_PERM_RPO256}, Case{GP_MERKLE_KECCAK_BE, GP_PERM_KECCAK_F1600}}) {
        SCOPED_TRACE("kind " + std::to_string((int)c.kind));
        const gp_merkle_options o = opts_of(c.kind, c.perm);
        EXPECT_PROFILE_FAILS(up, o, GP_ERR_SHAPE_MISMATCH);
        EXPECT_GP_ERR(gp_merkle_verify(&o, GP_FIELD_GOLDILOCKS, dims, 2, cap.data(), cap.size(), 0, rows.data(),
                                       rows.size(), path.data(), path.size()),
                      GP_ERR_SHAPE_MISMATCH);
    }
    // Plonky3 Keccak commits them, but gp_merkle_hash_rows hashes rows of one
    // height only.
    for (const Profile &pr : {keccak_profile(GP_MERKLE_KECCAK_PLONKY3, GP_FIELD_GOLDILOCKS),
                              sponge_profile(GP_PERM_POSEIDON2_GOLDILOCKS_8)}) {
        SCOPED_TRACE(pr.name);
        const gp_merkle_options o = pr.options();
        TreePtr t = commit(ctx(), up, o);
        EXPECT_TRUE(t);
        Bytes d(8 * pr.digest_bytes, 0x11);
        EXPECT_GP_ERR(gp_merkle_hash_rows(ctx(), up.ptrs.data(), 2, &o, d.data(), d.size()), GP_ERR_SHAPE_MISMATCH);
        EXPECT_EQ(d, Bytes(d.size(), 0x11));
        expect_context_works();
    }
}

TEST_P(MerkleProfileTest, FixedDigestAndRate) {
    const std::vector<HostMat> mats = make_mats(GP_FIELD_GOLDILOCKS, {{8, 5, 1}}, 1030);
    Uploaded up;
    ASSERT_GP_OK(upload_all(ctx(), ptrs_of(mats), GP_FIELD_GOLDILOCKS, &up));
    const gp_matrix_dims dims = {8, 5, 1};
    Bytes cap(32), rows(5 * 8), path(3 * 32);
    struct Case {
        gp_merkle_kind kind;
        gp_permutation perm;
    };
    for (const Case &c : {Case{GP_MERKLE_MIDEN, GP_PERM_RPO256}, Case{GP_MERKLE_MIDEN_V0_11, GP_PERM_RPO256},
                          Case{GP_MERKLE_MIDEN_V0_10, GP_PERM_RPX256}, Case{GP_MERKLE_KECCAK_PLONKY3, GP_PERM_KECCAK_F1600},
                          Case{GP_MERKLE_KECCAK_BE, GP_PERM_KECCAK_F1600}}) {
        for (uint32_t digest : {0u, 4u, 1u})
            for (uint32_t rate : {0u, 8u, 4u}) {
                if (digest == 0 && rate == 0) continue;
                SCOPED_TRACE("kind " + std::to_string((int)c.kind) + " digest " + std::to_string(digest) + " rate " +
                             std::to_string(rate));
                const gp_merkle_options o = opts_of(c.kind, c.perm, 0, digest, rate);
                EXPECT_PROFILE_FAILS(up, o, GP_ERR_INVALID_ARGUMENT);
                EXPECT_GP_ERR(gp_merkle_verify(&o, GP_FIELD_GOLDILOCKS, &dims, 1, cap.data(), cap.size(), 0,
                                               rows.data(), rows.size(), path.data(), path.size()),
                              GP_ERR_INVALID_ARGUMENT);
            }
    }
}

TEST_P(MerkleProfileTest, UnknownKind) {
    const std::vector<HostMat> mats = make_mats(GP_FIELD_GOLDILOCKS, {{8, 5, 1}}, 1040);
    Uploaded up;
    ASSERT_GP_OK(upload_all(ctx(), ptrs_of(mats), GP_FIELD_GOLDILOCKS, &up));
    const gp_matrix_dims dims = {8, 5, 1};
    Bytes cap(32), rows(5 * 8), path(3 * 32);
    std::vector<int> kinds = {0, 77};  // kinds 1..8 exist
    if (!GP_TEST_SANITIZED) kinds.push_back(99), kinds.push_back(-1);
    for (int kind : kinds) {
        for (gp_permutation perm : {GP_PERM_RPO256, GP_PERM_KECCAK_F1600, GP_PERM_POSEIDON2_GOLDILOCKS_8}) {
            SCOPED_TRACE("kind " + std::to_string(kind) + " perm " + std::to_string((int)perm));
            gp_merkle_options o = opts_of(GP_MERKLE_MIDEN, perm);
            store_raw(&o.kind, kind);
            EXPECT_PROFILE_FAILS(up, o, GP_ERR_INVALID_ARGUMENT);
            EXPECT_GP_ERR(gp_merkle_verify(&o, GP_FIELD_GOLDILOCKS, &dims, 1, cap.data(), cap.size(), 0, rows.data(),
                                           rows.size(), path.data(), path.size()),
                          GP_ERR_INVALID_ARGUMENT);
        }
    }
}

TEST_P(MerkleProfileTest, CapAboveLeastHeight) {
    const Profile pr = keccak_profile(GP_MERKLE_KECCAK_PLONKY3, GP_FIELD_GOLDILOCKS);
    const std::vector<HostMat> mats = make_mats(GP_FIELD_GOLDILOCKS, {{16, 3, 1}, {4, 2, 1}}, 1050);
    Uploaded up;
    ASSERT_GP_OK(upload_all(ctx(), ptrs_of(mats), GP_FIELD_GOLDILOCKS, &up));
    const gp_matrix_dims dims[2] = {{16, 3, 1}, {4, 2, 1}};
    for (uint32_t cap : {3u, 4u, 5u, 63u, 64u, 0xffffffffu}) {
        SCOPED_TRACE("cap_height " + std::to_string(cap));
        const gp_merkle_options o = pr.options(cap);
        gp_merkle_tree *t = nullptr;
        EXPECT_GP_ERR(gp_merkle_commit(ctx(), up.ptrs.data(), 2, &o, &t), GP_ERR_INVALID_ARGUMENT);
        EXPECT_EQ(t, nullptr);
        gp_merkle_tree_destroy(t);
        const uint64_t cs = cap < 8 ? (32ull << cap) : 32;
        Bytes capb((size_t)cs), rows(5 * 8), path(32);
        EXPECT_GP_ERR(gp_merkle_verify(&o, GP_FIELD_GOLDILOCKS, dims, 2, capb.data(), capb.size(), 0, rows.data(),
                                       rows.size(), path.data(), path.size()),
                      GP_ERR_INVALID_ARGUMENT);
        expect_context_works();
    }
    // cap_height 2 = log2(4) is valid and verifies.
    check_tree(pr, {{16, 3, 1}, {4, 2, 1}}, 1050, {2});
    // One height: the cap may reach the leaves, not above.
    const Profile be = keccak_profile(GP_MERKLE_KECCAK_BE, GP_FIELD_GOLDILOCKS);
    Uploaded one;
    ASSERT_GP_OK(upload_all(ctx(), {&mats[0]}, GP_FIELD_GOLDILOCKS, &one));
    const gp_merkle_options o5 = be.options(5);
    gp_merkle_tree *t = nullptr;
    EXPECT_GP_ERR(gp_merkle_commit(ctx(), one.ptrs.data(), 1, &o5, &t), GP_ERR_INVALID_ARGUMENT);
    gp_merkle_tree_destroy(t);
    check_tree(be, {{16, 3, 1}}, 1050, {4});
}

TEST_P(MerkleOpenTest, BadOpenArguments) {
    const Profile pr = miden_profile(GP_MERKLE_MIDEN, GP_PERM_RPO256);
    const std::vector<HostMat> mats = make_mats(GP_FIELD_GOLDILOCKS, {{16, 5, 1}, {16, 1, 2}}, 1060);
    RefTree ref(pr, ptrs_of(mats));
    Uploaded up;
    ASSERT_GP_OK(upload_all(ctx(), ptrs_of(mats), GP_FIELD_GOLDILOCKS, &up));
    TreePtr tree = commit(ctx(), up, pr.options(1));
    ASSERT_TRUE(tree);
    gp_merkle_tree *t = tree.get();
    const uint64_t rb = 7 * 8, pb = 3 * 32;
    // Index past the end, alone or after valid ones.
    for (const std::vector<uint64_t> &idx : {std::vector<uint64_t>{16}, std::vector<uint64_t>{0, 3, 17},
                                             std::vector<uint64_t>{~0ull}, std::vector<uint64_t>{1ull << 40, 2}}) {
        Bytes rows(idx.size() * rb, 0x3c), paths(idx.size() * pb, 0x3c);
        EXPECT_GP_ERR(gp_merkle_open(t, idx.data(), idx.size(), rows.data(), rows.size(), paths.data(), paths.size()),
                      GP_ERR_INVALID_ARGUMENT);
        EXPECT_EQ(rows, Bytes(rows.size(), 0x3c));
        EXPECT_EQ(paths, Bytes(paths.size(), 0x3c));
    }
    // Buffers too small for the count.
    const uint64_t idx[3] = {0, 5, 15};
    {
        Bytes rows(3 * rb - 1, 0x3c), paths(3 * pb, 0x3c);
        EXPECT_GP_ERR(gp_merkle_open(t, idx, 3, rows.data(), rows.size(), paths.data(), paths.size()),
                      GP_ERR_INVALID_ARGUMENT);
        EXPECT_EQ(rows, Bytes(rows.size(), 0x3c));
        EXPECT_EQ(paths, Bytes(paths.size(), 0x3c));
        EXPECT_GP_ERR(gp_merkle_open(t, idx, 3, rows.data(), rows.size(), nullptr, 0), GP_ERR_INVALID_ARGUMENT);
        EXPECT_GP_ERR(gp_merkle_open(t, idx, 3, rows.data(), 2 * rb, nullptr, 0), GP_ERR_INVALID_ARGUMENT);
    }
    {
        Bytes rows(3 * rb, 0x3c), paths(3 * pb - 1, 0x3c);
        EXPECT_GP_ERR(gp_merkle_open(t, idx, 3, rows.data(), rows.size(), paths.data(), paths.size()),
                      GP_ERR_INVALID_ARGUMENT);
        EXPECT_EQ(rows, Bytes(rows.size(), 0x3c));
        EXPECT_GP_ERR(gp_merkle_open(t, idx, 3, nullptr, 0, paths.data(), 0), GP_ERR_INVALID_ARGUMENT);
    }
    EXPECT_GP_ERR(gp_merkle_open(nullptr, idx, 1, nullptr, 0, nullptr, 0), GP_ERR_NULL_POINTER);
    // Root buffer too small, NULL tree or output.
    {
        Bytes small(31, 0x3c);
        EXPECT_GP_ERR(gp_merkle_root(t, small.data(), small.size()), GP_ERR_INVALID_ARGUMENT);
        EXPECT_EQ(small, Bytes(31, 0x3c));
        EXPECT_GP_ERR(gp_merkle_root(t, small.data(), 0), GP_ERR_INVALID_ARGUMENT);
        EXPECT_GP_ERR(gp_merkle_root(nullptr, small.data(), 32), GP_ERR_NULL_POINTER);
        EXPECT_GP_ERR(gp_merkle_root(t, nullptr, 32), GP_ERR_NULL_POINTER);
        Bytes cap(63, 0x3c);
        EXPECT_GP_ERR(gp_merkle_cap(t, cap.data(), cap.size()), GP_ERR_INVALID_ARGUMENT);
        EXPECT_EQ(cap, Bytes(63, 0x3c));
        EXPECT_GP_ERR(gp_merkle_opening_size(nullptr, nullptr, nullptr), GP_ERR_NULL_POINTER);
    }
    // The tree still opens and reads correctly.
    Bytes rows(3 * rb), paths(3 * pb);
    ASSERT_GP_OK(gp_merkle_open(t, idx, 3, rows.data(), rows.size(), paths.data(), paths.size()));
    for (int q = 0; q < 3; ++q) {
        EXPECT_EQ(Bytes(rows.begin() + q * rb, rows.begin() + (q + 1) * rb), ref.opened_rows(idx[q]));
        EXPECT_EQ(Bytes(paths.begin() + q * pb, paths.begin() + (q + 1) * pb), ref.path(idx[q], 1));
    }
    EXPECT_TRUE(bytes_equal(lib_root(t), ref.root()));
    expect_context_works();
}

TEST_P(MerkleProfileTest, BadHashRowsArguments) {
    const Profile pr = keccak_profile(GP_MERKLE_KECCAK_PLONKY3, GP_FIELD_KOALABEAR);
    const std::vector<HostMat> mats = make_mats(GP_FIELD_KOALABEAR, {{8, 5, 1}, {8, 2, 4}, {4, 1, 1}}, 1070);
    RefTree ref(pr, {&mats[0], &mats[1]});
    Uploaded up;
    ASSERT_GP_OK(upload_all(ctx(), ptrs_of(mats), GP_FIELD_KOALABEAR, &up));
    const gp_merkle_options o = pr.options();
    Bytes d(8 * 32 - 1, 0x5a);
    EXPECT_GP_ERR(gp_merkle_hash_rows(ctx(), up.ptrs.data(), 2, &o, d.data(), d.size()), GP_ERR_INVALID_ARGUMENT);
    EXPECT_EQ(d, Bytes(d.size(), 0x5a));
    EXPECT_GP_ERR(gp_merkle_hash_rows(ctx(), up.ptrs.data(), 2, &o, d.data(), 0), GP_ERR_INVALID_ARGUMENT);
    EXPECT_GP_ERR(gp_merkle_hash_rows(ctx(), up.ptrs.data(), 2, &o, nullptr, 8 * 32), GP_ERR_NULL_POINTER);
    EXPECT_GP_ERR(gp_merkle_hash_rows(ctx(), up.ptrs.data(), 3, &o, d.data(), d.size()), GP_ERR_SHAPE_MISMATCH);
    EXPECT_GP_ERR(gp_merkle_hash_rows(ctx(), up.ptrs.data() + 1, 2, &o, d.data(), d.size()), GP_ERR_SHAPE_MISMATCH);
    EXPECT_GP_ERR(gp_merkle_hash_rows(ctx(), up.ptrs.data(), 0, &o, d.data(), d.size()), GP_ERR_INVALID_ARGUMENT);
    EXPECT_GP_ERR(gp_merkle_hash_rows(nullptr, up.ptrs.data(), 2, &o, d.data(), d.size()), GP_ERR_NULL_POINTER);
    // And then the right answer.
    Uploaded two;
    ASSERT_GP_OK(upload_all(ctx(), {&mats[0], &mats[1]}, GP_FIELD_KOALABEAR, &two));
    EXPECT_TRUE(bytes_equal(lib_hash_rows(ctx(), two, o, 8 * 32), ref.layer(0)));
    expect_context_works();
}

TEST_P(MerkleOpenTest, BadVerifyArguments) {
    const Profile pr = keccak_profile(GP_MERKLE_KECCAK_PLONKY3, GP_FIELD_GOLDILOCKS);
    const std::vector<HostMat> mats = make_mats(GP_FIELD_GOLDILOCKS, {{16, 5, 1}, {4, 1, 2}}, 1080);
    RefTree ref(pr, ptrs_of(mats));
    const uint32_t capH = 1;
    const std::vector<gp_matrix_dims> dims = ref.dims();
    const gp_merkle_options o = pr.options(capH);
    const Bytes cap = ref.cap(capH);
    const uint64_t index = 6;
    const Bytes rows = ref.opened_rows(index), path = ref.path(index, capH);
    ASSERT_EQ(rows.size(), 7u * 8);
    ASSERT_EQ(path.size(), 3u * 32);
    auto verify = [&](const gp_matrix_dims *dm, uint32_t count, const Bytes &c, uint64_t cs, uint64_t i,
                      const Bytes &r, uint64_t rs, const Bytes &p, uint64_t ps) {
        return gp_merkle_verify(&o, GP_FIELD_GOLDILOCKS, dm, count, c.data(), cs, i, r.data(), rs, p.data(), ps);
    };
    ASSERT_GP_OK(verify(dims.data(), 2, cap, cap.size(), index, rows, rows.size(), path, path.size()));
    // Sizes that do not match the shapes (the buffers are large enough).
    Bytes cap2 = cap, rows2 = rows, path2 = path;
    cap2.resize(cap.size() + 64);
    rows2.resize(rows.size() + 64);
    path2.resize(path.size() + 64);
    for (int64_t delta : {-1, 1, -8, 8, -32, 32}) {
        SCOPED_TRACE("delta " + std::to_string(delta));
        EXPECT_GP_ERR(verify(dims.data(), 2, cap2, cap.size() + delta, index, rows2, rows.size(), path2, path.size()),
                      GP_ERR_SHAPE_MISMATCH);
        EXPECT_GP_ERR(verify(dims.data(), 2, cap2, cap.size(), index, rows2, rows.size() + delta, path2, path.size()),
                      GP_ERR_SHAPE_MISMATCH);
        EXPECT_GP_ERR(verify(dims.data(), 2, cap2, cap.size(), index, rows2, rows.size(), path2, path.size() + delta),
                      GP_ERR_SHAPE_MISMATCH);
    }
    // Dims that describe other shapes.
    {
        std::vector<gp_matrix_dims> d2 = dims;
        d2[0].cols = 6;
        EXPECT_GP_ERR(verify(d2.data(), 2, cap, cap.size(), index, rows, rows.size(), path, path.size()),
                      GP_ERR_SHAPE_MISMATCH);
        d2 = dims;
        d2[0].rows = 32; /* one more path level */
        EXPECT_GP_ERR(verify(d2.data(), 2, cap, cap.size(), index, rows, rows.size(), path, path.size()),
                      GP_ERR_SHAPE_MISMATCH);
        EXPECT_GP_ERR(verify(dims.data(), 1, cap, cap.size(), index, rows, rows.size(), path, path.size()),
                      GP_ERR_SHAPE_MISMATCH);
        d2 = dims;
        d2[1].rows = 3;
        EXPECT_GP_ERR_ANY(verify(d2.data(), 2, cap, cap.size(), index, rows, rows.size(), path, path.size()),
                          GP_ERR_INVALID_ARGUMENT, GP_ERR_SHAPE_MISMATCH);
        d2 = dims;
        d2[0].cols = 0;
        EXPECT_GP_ERR_ANY(verify(d2.data(), 2, cap, cap.size(), index, rows, rows.size(), path, path.size()),
                          GP_ERR_INVALID_ARGUMENT, GP_ERR_SHAPE_MISMATCH);
        d2 = dims;
        d2[1].ext_degree = 4; /* not a Goldilocks degree */
        EXPECT_GP_ERR_ANY(verify(d2.data(), 2, cap, cap.size(), index, rows, rows.size(), path, path.size()),
                          GP_ERR_INVALID_ARGUMENT, GP_ERR_FIELD_MISMATCH, GP_ERR_UNSUPPORTED);
        EXPECT_GP_ERR(verify(dims.data(), 0, cap, cap.size(), index, rows, rows.size(), path, path.size()),
                      GP_ERR_INVALID_ARGUMENT);
    }
    // Index past the end.
    for (uint64_t i : {16ull, 17ull, 1ull << 50, ~0ull})
        EXPECT_GP_ERR(verify(dims.data(), 2, cap, cap.size(), i, rows, rows.size(), path, path.size()),
                      GP_ERR_INVALID_ARGUMENT);
    // A row element equal to p.
    {
        Bytes r = rows;
        const Bytes pb = le_bytes({pr.p()}, 8);
        std::copy(pb.begin(), pb.end(), r.begin() + 16);
        EXPECT_GP_ERR(verify(dims.data(), 2, cap, cap.size(), index, r, r.size(), path, path.size()),
                      GP_ERR_NON_CANONICAL);
    }
    // NULL pointers.
    EXPECT_GP_ERR(gp_merkle_verify(&o, GP_FIELD_GOLDILOCKS, nullptr, 2, cap.data(), cap.size(), index, rows.data(),
                                   rows.size(), path.data(), path.size()),
                  GP_ERR_NULL_POINTER);
    EXPECT_GP_ERR(gp_merkle_verify(&o, GP_FIELD_GOLDILOCKS, dims.data(), 2, nullptr, cap.size(), index, rows.data(),
                                   rows.size(), path.data(), path.size()),
                  GP_ERR_NULL_POINTER);
    EXPECT_GP_ERR(gp_merkle_verify(&o, GP_FIELD_GOLDILOCKS, dims.data(), 2, cap.data(), cap.size(), index, nullptr,
                                   rows.size(), path.data(), path.size()),
                  GP_ERR_NULL_POINTER);
    EXPECT_GP_ERR(gp_merkle_verify(&o, GP_FIELD_GOLDILOCKS, dims.data(), 2, cap.data(), cap.size(), index,
                                   rows.data(), rows.size(), nullptr, path.size()),
                  GP_ERR_NULL_POINTER);
    // A field other than the matrices' (degree 2 does not exist over BabyBear;
    // with base-field dims the row bytes no longer match).
    EXPECT_GP_ERR_ANY(gp_merkle_verify(&o, GP_FIELD_BABYBEAR, dims.data(), 2, cap.data(), cap.size(), index,
                                       rows.data(), rows.size(), path.data(), path.size()),
                      GP_ERR_SHAPE_MISMATCH, GP_ERR_INVALID_ARGUMENT, GP_ERR_FIELD_MISMATCH, GP_ERR_UNSUPPORTED);
    {
        std::vector<gp_matrix_dims> d2 = dims;
        d2[1].ext_degree = 1;
        d2[1].cols = 2;
        EXPECT_GP_ERR(gp_merkle_verify(&o, GP_FIELD_BABYBEAR, d2.data(), 2, cap.data(), cap.size(), index,
                                       rows.data(), rows.size(), path.data(), path.size()),
                      GP_ERR_SHAPE_MISMATCH);
    }
    // Still fine afterwards.
    EXPECT_GP_OK(verify(dims.data(), 2, cap, cap.size(), index, rows, rows.size(), path, path.size()));
    EXPECT_STREQ(gp_last_error(), "");
}

INSTANTIATE_TEST_SUITE_P(MerkleProfiles, MerkleProfileTest, ::testing::Values(GP_BACKEND_CPU, GP_BACKEND_CUDA),
                         [](const ::testing::TestParamInfo<gp_backend> &info) {
                             return std::string(backend_name(info.param));
                         });
INSTANTIATE_TEST_SUITE_P(MerkleProfiles, MerkleOpenTest, ::testing::Values(GP_BACKEND_CPU, GP_BACKEND_CUDA),
                         [](const ::testing::TestParamInfo<gp_backend> &info) {
                             return std::string(backend_name(info.param));
                         });

}  // namespace
