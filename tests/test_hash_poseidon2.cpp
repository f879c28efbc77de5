// SPDX-License-Identifier: MIT OR Apache-2.0
/*
 * test_hash_poseidon2.cpp - Poseidon2 (src/hash/poseidon2.h) against the
 * known-answer files tests/vectors/poseidon2_{goldilocks,babybear,koalabear}.json.
 *
 * The JSON files are parsed at run time (small JSON reader below); no
 * expected output is written in this file. Checks:
 *  - every upstream vector of every instance, with the permutation built from
 *    the constants in the JSON (Poseidon2Params::from_canonical);
 *  - the generated header (poseidon2_constants.h) equals the JSON constants,
 *    and its __constant__/constexpr Params objects reproduce the vectors;
 *  - the building blocks (S-box, 4x4 blocks, M_E, M_I) and the whole
 *    permutation against a naive reference written from the README's
 *    definitions with plain modular arithmetic (test_util.h), on random and
 *    edge-case states, for every instance in the files;
 *  - the RNG-seeded instances' constants follow the documented recipe
 *    (Xoroshiro128+ seeded by SplitMix64, Montgomery reading).
 */
#include "test_util.h"

#include <type_traits>
#include <utility>

#include "hash/poseidon2.h"

namespace {

using gp::Poseidon2Mat4;

/* ------------------------------------------------------------------------ */
/* Minimal JSON reader                                                       */
/* ------------------------------------------------------------------------ */

struct JVal {
    enum Kind { kNull, kBool, kNum, kStr, kArr, kObj } kind = kNull;
    bool b = false;
    bool num_is_uint = false;
    uint64_t u = 0;
    std::string s;  // string value, or the number's text
    std::vector<JVal> arr;
    std::vector<std::pair<std::string, JVal>> obj;

    const JVal *get(const std::string &key) const {
        if (kind != kObj) return nullptr;
        for (const auto &kv : obj)
            if (kv.first == key) return &kv.second;
        return nullptr;
    }
};

class JParser {
   public:
    explicit JParser(const std::string &t) : t_(t) {}
    bool parse(JVal *out) {
        ok_ = true;
        i_ = 0;
        value(out);
        ws();
        return ok_ && i_ == t_.size();
    }

   private:
    const std::string &t_;
    size_t i_ = 0;
    bool ok_ = true;

    void ws() {
        while (i_ < t_.size() && (t_[i_] == ' ' || t_[i_] == '\n' || t_[i_] == '\r' || t_[i_] == '\t'))
            ++i_;
    }
    bool lit(const char *w) {
        size_t n = std::strlen(w);
        if (t_.compare(i_, n, w) != 0) return ok_ = false;
        i_ += n;
        return true;
    }
    void str(std::string *out) {
        if (i_ >= t_.size() || t_[i_] != '"') {
            ok_ = false;
            return;
        }
        ++i_;
        while (i_ < t_.size() && t_[i_] != '"') {
            char c = t_[i_++];
            if (c == '\\') {
                if (i_ >= t_.size()) break;
                char e = t_[i_++];
                switch (e) {
                    case 'n': out->push_back('\n'); break;
                    case 't': out->push_back('\t'); break;
                    case 'r': out->push_back('\r'); break;
                    case 'b': out->push_back('\b'); break;
                    case 'f': out->push_back('\f'); break;
                    case 'u':  // keep \uXXXX verbatim (only used in prose)
                        out->append("\\u");
                        break;
                    default: out->push_back(e); break;
                }
            } else {
                out->push_back(c);
            }
        }
        if (i_ >= t_.size()) {
            ok_ = false;
            return;
        }
        ++i_;
    }
    void value(JVal *v) {
        ws();
        if (!ok_ || i_ >= t_.size()) {
            ok_ = false;
            return;
        }
        char c = t_[i_];
        if (c == '{') {
            v->kind = JVal::kObj;
            ++i_;
            ws();
            if (i_ < t_.size() && t_[i_] == '}') {
                ++i_;
                return;
            }
            while (ok_) {
                ws();
                std::pair<std::string, JVal> kv;
                str(&kv.first);
                ws();
                if (!ok_ || i_ >= t_.size() || t_[i_] != ':') {
                    ok_ = false;
                    return;
                }
                ++i_;
                value(&kv.second);
                v->obj.push_back(std::move(kv));
                ws();
                if (i_ < t_.size() && t_[i_] == ',') {
                    ++i_;
                    continue;
                }
                if (i_ < t_.size() && t_[i_] == '}') {
                    ++i_;
                    return;
                }
                ok_ = false;
            }
        } else if (c == '[') {
            v->kind = JVal::kArr;
            ++i_;
            ws();
            if (i_ < t_.size() && t_[i_] == ']') {
                ++i_;
                return;
            }
            while (ok_) {
                v->arr.emplace_back();
                value(&v->arr.back());
                ws();
                if (i_ < t_.size() && t_[i_] == ',') {
                    ++i_;
                    continue;
                }
                if (i_ < t_.size() && t_[i_] == ']') {
                    ++i_;
                    return;
                }
                ok_ = false;
            }
        } else if (c == '"') {
            v->kind = JVal::kStr;
            str(&v->s);
        } else if (c == 't') {
            v->kind = JVal::kBool;
            v->b = true;
            lit("true");
        } else if (c == 'f') {
            v->kind = JVal::kBool;
            lit("false");
        } else if (c == 'n') {
            lit("null");
        } else if (c == '-' || (c >= '0' && c <= '9')) {
            v->kind = JVal::kNum;
            size_t b = i_;
            while (i_ < t_.size() && std::strchr("+-0123456789.eE", t_[i_])) ++i_;
            v->s = t_.substr(b, i_ - b);
            v->num_is_uint = v->s.find_first_not_of("0123456789") == std::string::npos &&
                             v->s.size() <= 19;
            if (v->num_is_uint) v->u = std::stoull(v->s);
        } else {
            ok_ = false;
        }
    }
};

/* ------------------------------------------------------------------------ */
/* Instances from the JSON files                                            */
/* ------------------------------------------------------------------------ */

enum class Fk { kGoldilocks, kBabyBear, kKoalaBear };

struct KnownAnswer {
    std::string name;
    std::vector<uint64_t> input, output;
};

struct Instance {
    std::string file, id;
    Fk field = Fk::kGoldilocks;
    uint64_t p = 0;
    int width = 0, rounds_f = 0, rounds_p = 0, degree = 0;
    int mat4 = -1;  // 0 Plonky3, 1 HorizenLabs, -1 other
    std::vector<std::vector<uint64_t>> m4;
    std::vector<uint64_t> diag, internal;
    std::vector<std::vector<uint64_t>> ext_init, ext_term;
    std::vector<KnownAnswer> vectors;
    std::string describe() const { return file + ":" + id; }
};

struct FileSpec {
    const char *file;
    const char *field_name;  // JSON field.name
    Fk field;
    uint64_t p;
    size_t upstream_vectors;  // from shared/vectors/README.md's table
};

const FileSpec kFiles[] = {
    {"poseidon2_goldilocks.json", "Goldilocks", Fk::kGoldilocks, 0xffffffff00000001ull, 7},
    {"poseidon2_babybear.json", "BabyBear", Fk::kBabyBear, 0x78000001ull, 6},
    {"poseidon2_koalabear.json", "KoalaBear", Fk::kKoalaBear, 0x7f000001ull, 5},
};

/* "0x..." string -> value; sets *ok = false on anything else. */
uint64_t hex_value(const JVal &v, bool *ok) {
    if (v.kind != JVal::kStr || v.s.size() < 3 || v.s[0] != '0' || (v.s[1] != 'x' && v.s[1] != 'X') ||
        v.s.size() > 18 || v.s.find_first_not_of("0123456789abcdefABCDEF", 2) != std::string::npos) {
        *ok = false;
        return 0;
    }
    return std::stoull(v.s.substr(2), nullptr, 16);
}

std::vector<uint64_t> hex_list(const JVal *v, bool *ok) {
    std::vector<uint64_t> out;
    if (!v || v->kind != JVal::kArr) {
        *ok = false;
        return out;
    }
    for (const JVal &e : v->arr) out.push_back(hex_value(e, ok));
    return out;
}

std::vector<std::vector<uint64_t>> hex_rows(const JVal *v, bool *ok) {
    std::vector<std::vector<uint64_t>> out;
    if (!v || v->kind != JVal::kArr) {
        *ok = false;
        return out;
    }
    for (const JVal &r : v->arr) out.push_back(hex_list(&r, ok));
    return out;
}

int int_of(const JVal *v, bool *ok) {
    if (!v || v->kind != JVal::kNum || !v->num_is_uint) {
        *ok = false;
        return 0;
    }
    return (int)v->u;
}

struct Loaded {
    bool ok = false;
    std::string error;
    std::vector<Instance> instances;
};

Loaded load_file(const FileSpec &spec) {
    Loaded L;
    const std::string path = gpt::vectors_path(spec.file);
    const std::string text = gpt::read_text_file(path);
    if (text.empty()) {
        L.error = "cannot read " + path;
        return L;
    }
    JVal root;
    if (!JParser(text).parse(&root)) {
        L.error = "JSON parse error in " + path;
        return L;
    }
    const JVal *field = root.get("field");
    bool ok = true;
    if (!field || !field->get("name") || field->get("name")->s != spec.field_name ||
        !field->get("p") || hex_value(*field->get("p"), &ok) != spec.p || !ok) {
        L.error = path + ": unexpected field object";
        return L;
    }
    const JVal *insts = root.get("instances");
    if (!insts || insts->kind != JVal::kArr || insts->arr.empty()) {
        L.error = path + ": no instances";
        return L;
    }
    for (const JVal &iv : insts->arr) {
        Instance in;
        in.file = spec.file;
        in.field = spec.field;
        in.p = spec.p;
        const JVal *id = iv.get("id");
        in.id = id ? id->s : "?";
        const JVal *pr = iv.get("params");
        const JVal *rc = iv.get("round_constants");
        if (!pr || !rc) {
            L.error = in.describe() + ": missing params/round_constants";
            return L;
        }
        in.width = int_of(pr->get("width"), &ok);
        in.rounds_f = int_of(pr->get("rounds_f"), &ok);
        in.rounds_p = int_of(pr->get("rounds_p"), &ok);
        const JVal *sbox = pr->get("sbox");
        if (sbox && sbox->s.rfind("x^", 0) == 0) in.degree = std::atoi(sbox->s.c_str() + 2);
        const JVal *m4 = pr->get("external_m4");
        if (m4 && m4->kind == JVal::kArr)
            for (const JVal &row : m4->arr) {
                in.m4.emplace_back();
                for (const JVal &e : row.arr) in.m4.back().push_back(e.u);
            }
        const std::vector<std::vector<uint64_t>> p3 = {{2, 3, 1, 1}, {1, 2, 3, 1}, {1, 1, 2, 3}, {3, 1, 1, 2}};
        const std::vector<std::vector<uint64_t>> hl = {{5, 7, 1, 3}, {4, 6, 1, 1}, {1, 3, 5, 7}, {1, 1, 4, 6}};
        in.mat4 = in.m4 == p3 ? 0 : in.m4 == hl ? 1 : -1;
        in.diag = hex_list(pr->get("internal_diag_V"), &ok);
        in.ext_init = hex_rows(rc->get("external_initial"), &ok);
        in.internal = hex_list(rc->get("internal"), &ok);
        in.ext_term = hex_rows(rc->get("external_terminal"), &ok);
        const JVal *vecs = iv.get("vectors");
        if (!vecs || vecs->kind != JVal::kArr) ok = false;
        if (vecs)
            for (const JVal &v : vecs->arr) {
                KnownAnswer ka;
                ka.name = v.get("name") ? v.get("name")->s : "?";
                ka.input = hex_list(v.get("input"), &ok);
                ka.output = hex_list(v.get("output"), &ok);
                in.vectors.push_back(std::move(ka));
            }
        if (!ok) {
            L.error = in.describe() + ": malformed entry";
            return L;
        }
        L.instances.push_back(std::move(in));
    }
    L.ok = true;
    return L;
}

/* All three files, loaded once. */
const std::vector<Loaded> &all_files() {
    static const std::vector<Loaded> files = [] {
        std::vector<Loaded> v;
        for (const FileSpec &s : kFiles) v.push_back(load_file(s));
        return v;
    }();
    return files;
}

#define LOAD_ALL_OR_FAIL(var)                                                   \
    std::vector<const Instance *> var;                                          \
    do {                                                                        \
        for (const Loaded &L_ : all_files()) {                                  \
            ASSERT_TRUE(L_.ok) << L_.error;                                     \
            for (const Instance &I_ : L_.instances) var.push_back(&I_);         \
        }                                                                       \
        ASSERT_FALSE(var.empty());                                              \
    } while (0)

const Instance *find_instance(const std::vector<const Instance *> &all, const std::string &id) {
    for (const Instance *i : all)
        if (i->id == id) return i;
    return nullptr;
}

/* Shapes agree with what Params<F, W, M4> hard-codes; guards from_canonical's reads. */
template <class P>
::testing::AssertionResult shape_matches(const Instance &in) {
    const size_t W = (size_t)P::kWidth;
    if (in.width != P::kWidth) return ::testing::AssertionFailure() << "width " << in.width;
    if (in.rounds_f != 2 * P::kHalfRoundsF) return ::testing::AssertionFailure() << "rounds_f " << in.rounds_f;
    if (in.rounds_p != P::kRoundsP)
        return ::testing::AssertionFailure() << "rounds_p " << in.rounds_p << " vs header " << P::kRoundsP;
    if (in.degree != P::kSboxDegree)
        return ::testing::AssertionFailure() << "S-box degree " << in.degree << " vs header " << P::kSboxDegree;
    if (in.mat4 != (int)P::kMat4) return ::testing::AssertionFailure() << "4x4 matrix kind " << in.mat4;
    if (in.ext_init.size() != 4 || in.ext_term.size() != 4)
        return ::testing::AssertionFailure() << "external round count";
    for (int r = 0; r < 4; ++r)
        if (in.ext_init[r].size() != W || in.ext_term[r].size() != W)
            return ::testing::AssertionFailure() << "external row length";
    if (in.internal.size() != (size_t)P::kRoundsP) return ::testing::AssertionFailure() << "internal length";
    if (in.diag.size() != W) return ::testing::AssertionFailure() << "diag length";
    for (const KnownAnswer &ka : in.vectors)
        if (ka.input.size() != W || ka.output.size() != W)
            return ::testing::AssertionFailure() << "vector " << ka.name << " length";
    return ::testing::AssertionSuccess();
}

template <class F, int W, Poseidon2Mat4 M4>
gp::Poseidon2Params<F, W, M4> params_from_json(const Instance &in) {
    using T = typename F::T;
    std::vector<T> ei, et, it, dg;
    for (int r = 0; r < 4; ++r)
        for (int i = 0; i < W; ++i) {
            ei.push_back((T)in.ext_init[r][i]);
            et.push_back((T)in.ext_term[r][i]);
        }
    for (uint64_t c : in.internal) it.push_back((T)c);
    for (uint64_t d : in.diag) dg.push_back((T)d);
    return gp::Poseidon2Params<F, W, M4>::from_canonical(ei.data(), it.data(), et.data(), dg.data());
}

template <class P>
std::vector<uint64_t> run_permute(const P &params, const std::vector<uint64_t> &input) {
    typename P::T s[P::kWidth];
    for (int i = 0; i < P::kWidth; ++i) s[i] = (typename P::T)input[(size_t)i];
    gp::poseidon2_permute(params, s);
    return std::vector<uint64_t>(s, s + P::kWidth);
}

/* Naive Poseidon2 from the README's definitions: generic 4x4 matrix from the
 * JSON, M_E / M_I written out, plain modular arithmetic. */
std::vector<uint64_t> naive_external_linear(const Instance &in, const std::vector<uint64_t> &s) {
    const uint64_t p = in.p;
    const size_t W = s.size();
    std::vector<uint64_t> y(W, 0), out(W, 0);
    for (size_t b = 0; b < W; b += 4)
        for (size_t i = 0; i < 4; ++i) {
            uint64_t acc = 0;
            for (size_t j = 0; j < 4; ++j) acc = gpt::add_mod(acc, gpt::mul_mod(in.m4[i][j] % p, s[b + j], p), p);
            y[b + i] = acc;
        }
    for (size_t i = 0; i < W; ++i) {
        uint64_t acc = y[i];
        for (size_t j = i % 4; j < W; j += 4) acc = gpt::add_mod(acc, y[j], p);
        out[i] = acc;
    }
    return out;
}

std::vector<uint64_t> naive_internal_linear(const Instance &in, const std::vector<uint64_t> &s) {
    const uint64_t p = in.p;
    uint64_t sum = 0;
    for (uint64_t x : s) sum = gpt::add_mod(sum, x, p);
    std::vector<uint64_t> out(s.size());
    for (size_t i = 0; i < s.size(); ++i) out[i] = gpt::add_mod(gpt::mul_mod(in.diag[i], s[i], p), sum, p);
    return out;
}

std::vector<uint64_t> naive_permute(const Instance &in, std::vector<uint64_t> s) {
    const uint64_t p = in.p;
    auto full = [&](const std::vector<uint64_t> &rc) {
        for (size_t i = 0; i < s.size(); ++i) s[i] = gpt::pow_mod(gpt::add_mod(s[i], rc[i], p), (uint64_t)in.degree, p);
        s = naive_external_linear(in, s);
    };
    s = naive_external_linear(in, s);
    for (const auto &rc : in.ext_init) full(rc);
    for (uint64_t c : in.internal) {
        s[0] = gpt::pow_mod(gpt::add_mod(s[0], c, p), (uint64_t)in.degree, p);
        s = naive_internal_linear(in, s);
    }
    for (const auto &rc : in.ext_term) full(rc);
    return s;
}

std::string hex_vec(const std::vector<uint64_t> &v) {
    std::ostringstream o;
    o << std::hex << "[";
    for (size_t i = 0; i < v.size(); ++i) o << (i ? ", 0x" : "0x") << v[i];
    o << "]";
    return o.str();
}

::testing::AssertionResult same_state(const std::vector<uint64_t> &got, const std::vector<uint64_t> &want) {
    if (got == want) return ::testing::AssertionSuccess();
    auto f = ::testing::AssertionFailure();
    for (size_t i = 0; i < std::min(got.size(), want.size()); ++i)
        if (got[i] != want[i]) {
            f << "first difference at state[" << i << "]; ";
            break;
        }
    return f << "\n  got:  " << hex_vec(got) << "\n  want: " << hex_vec(want);
}

/* ------------------------------------------------------------------------ */
/* Run-time dispatch over the instantiations the JSON files need            */
/* ------------------------------------------------------------------------ */

/* One instantiation of the header's templates (field, width, 4x4 matrix),
 * driven with the constants of a JSON instance. Params objects (~1 KB) are
 * built on the heap. */
struct Runner {
    virtual ~Runner() = default;
    virtual ::testing::AssertionResult shape(const Instance &in) const = 0;
    virtual std::vector<uint64_t> permute(const Instance &in, const std::vector<uint64_t> &x) const = 0;
    virtual std::vector<uint64_t> external_linear(const std::vector<uint64_t> &x) const = 0;
    virtual std::vector<uint64_t> internal_linear(const Instance &in, const std::vector<uint64_t> &x) const = 0;
    virtual std::vector<uint64_t> mat4(const std::vector<uint64_t> &x) const = 0;
    virtual uint64_t sbox(uint64_t x) const = 0;
};

template <class F, int W, Poseidon2Mat4 M4>
struct RunnerImpl : Runner {
    using P = gp::Poseidon2Params<F, W, M4>;
    using T = typename F::T;
    ::testing::AssertionResult shape(const Instance &in) const override { return shape_matches<P>(in); }
    std::vector<uint64_t> permute(const Instance &in, const std::vector<uint64_t> &x) const override {
        std::unique_ptr<P> p(new P(params_from_json<F, W, M4>(in)));
        return run_permute(*p, x);
    }
    std::vector<uint64_t> external_linear(const std::vector<uint64_t> &x) const override {
        T s[W];
        for (int i = 0; i < W; ++i) s[i] = (T)x[(size_t)i];
        gp::poseidon2_external_linear<F, W, M4>(s);
        return std::vector<uint64_t>(s, s + W);
    }
    std::vector<uint64_t> internal_linear(const Instance &in, const std::vector<uint64_t> &x) const override {
        std::unique_ptr<P> p(new P(params_from_json<F, W, M4>(in)));
        T s[W];
        for (int i = 0; i < W; ++i) s[i] = (T)x[(size_t)i];
        gp::poseidon2_internal_linear<F, W>(s, gp::Poseidon2RuntimeDiag<F>{p->internal_diag_tw});
        return std::vector<uint64_t>(s, s + W);
    }
    std::vector<uint64_t> mat4(const std::vector<uint64_t> &x) const override {
        T s[4];
        for (int i = 0; i < 4; ++i) s[i] = (T)x[(size_t)i];
        gp::poseidon2_mat4<F, M4>(s);
        return std::vector<uint64_t>(s, s + 4);
    }
    uint64_t sbox(uint64_t x) const override { return gp::poseidon2_sbox<F, P::kSboxDegree>((T)x); }
};

template <class F, Poseidon2Mat4 M4>
const Runner *runner_for_width(int w) {
    if constexpr (std::is_same<F, gp::Goldilocks>::value) {
        static const RunnerImpl<F, 8, M4> r8{};
        static const RunnerImpl<F, 12, M4> r12{};
        static const RunnerImpl<F, 16, M4> r16{};
        return w == 8 ? (const Runner *)&r8 : w == 12 ? (const Runner *)&r12 : w == 16 ? (const Runner *)&r16 : nullptr;
    } else {
        static const RunnerImpl<F, 16, M4> r16{};
        static const RunnerImpl<F, 24, M4> r24{};
        static const RunnerImpl<F, 32, M4> r32{};
        return w == 16 ? (const Runner *)&r16 : w == 24 ? (const Runner *)&r24 : w == 32 ? (const Runner *)&r32 : nullptr;
    }
}

template <class F>
const Runner *runner_for_field(const Instance &in) {
    if (in.mat4 == 0) return runner_for_width<F, Poseidon2Mat4::Plonky3>(in.width);
    if (in.mat4 == 1) return runner_for_width<F, Poseidon2Mat4::HorizenLabs>(in.width);
    return nullptr;
}

const Runner *runner_for(const Instance &in) {
    switch (in.field) {
        case Fk::kGoldilocks: return runner_for_field<gp::Goldilocks>(in);
        case Fk::kBabyBear: return runner_for_field<gp::BabyBear>(in);
        case Fk::kKoalaBear: return runner_for_field<gp::KoalaBear>(in);
    }
    return nullptr;
}

/* ------------------------------------------------------------------------ */
/* Known answers, constants from the JSON                                    */
/* ------------------------------------------------------------------------ */

TEST(Poseidon2Vectors, FilesParse) {
    for (const FileSpec &s : kFiles) {
        SCOPED_TRACE(s.file);
        const Loaded &L = all_files()[(size_t)(&s - kFiles)];
        ASSERT_TRUE(L.ok) << L.error;
        size_t n = 0;
        for (const Instance &in : L.instances) n += in.vectors.size();
        // The README's count of upstream vectors: guards against a reader
        // that silently finds fewer.
        EXPECT_EQ(n, s.upstream_vectors);
    }
}

/* Every upstream vector, every file, permutation built from the JSON constants. */
void check_file_vectors(size_t file_index) {
    const FileSpec &spec = kFiles[file_index];
    const Loaded &L = all_files()[file_index];
    ASSERT_TRUE(L.ok) << L.error;
    size_t checked = 0;
    for (const Instance &in : L.instances) {
        SCOPED_TRACE(in.describe());
        const Runner *r = runner_for(in);
        ASSERT_NE(r, nullptr) << "no Poseidon2 instantiation for width " << in.width << ", matrix kind " << in.mat4;
        ASSERT_TRUE(r->shape(in));
        for (const KnownAnswer &ka : in.vectors) {
            SCOPED_TRACE(ka.name);
            EXPECT_TRUE(same_state(r->permute(in, ka.input), ka.output));
            ++checked;
        }
    }
    EXPECT_EQ(checked, spec.upstream_vectors);
}

TEST(Poseidon2Vectors, Goldilocks) { check_file_vectors(0); }
TEST(Poseidon2Vectors, BabyBear) { check_file_vectors(1); }
TEST(Poseidon2Vectors, KoalaBear) { check_file_vectors(2); }

/* The naive reference itself reproduces the vectors (so the comparisons
 * below are against something that is right). */
TEST(Poseidon2Reference, NaiveReproducesVectors) {
    LOAD_ALL_OR_FAIL(all);
    size_t checked = 0;
    for (const Instance *in : all) {
        SCOPED_TRACE(in->describe());
        for (const KnownAnswer &ka : in->vectors) {
            SCOPED_TRACE(ka.name);
            EXPECT_TRUE(same_state(naive_permute(*in, ka.input), ka.output));
            ++checked;
        }
    }
    EXPECT_EQ(checked, (size_t)(7 + 6 + 5));
}

/* ------------------------------------------------------------------------ */
/* Against the naive reference: random and edge states, all instances       */
/* ------------------------------------------------------------------------ */

std::vector<std::vector<uint64_t>> test_states(uint64_t p, int width, uint64_t seed) {
    std::vector<std::vector<uint64_t>> states;
    const size_t W = (size_t)width;
    states.push_back(std::vector<uint64_t>(W, 0));
    states.push_back(std::vector<uint64_t>(W, p - 1));
    states.push_back(std::vector<uint64_t>(W, 1));
    std::vector<uint64_t> ramp(W), alt(W);
    for (size_t i = 0; i < W; ++i) {
        ramp[i] = i;
        alt[i] = (i & 1) ? p - 1 - i : i;
    }
    states.push_back(ramp);
    states.push_back(alt);
    gpt::Rng rng(seed);
    for (int k = 0; k < 24; ++k) {
        std::vector<uint64_t> s(W);
        for (size_t i = 0; i < W; ++i) s[i] = rng.elem(p);
        states.push_back(s);
    }
    return states;
}

TEST(Poseidon2Reference, PermutationMatchesNaive) {
    LOAD_ALL_OR_FAIL(all);
    size_t instances = 0;
    for (const Instance *in : all) {
        SCOPED_TRACE(in->describe());
        const Runner *r = runner_for(*in);
        ASSERT_NE(r, nullptr);
        ASSERT_TRUE(r->shape(*in));
        for (const auto &s : test_states(in->p, in->width, 0x9025 + instances)) {
            SCOPED_TRACE("input " + hex_vec(s));
            std::vector<uint64_t> got = r->permute(*in, s);
            for (uint64_t x : got) ASSERT_LT(x, in->p) << "non-canonical output";
            EXPECT_TRUE(same_state(got, naive_permute(*in, s)));
        }
        ++instances;
    }
    EXPECT_GE(instances, (size_t)18);  // every instance in the three files
}

TEST(Poseidon2Blocks, LinearLayersAndSboxMatchNaive) {
    LOAD_ALL_OR_FAIL(all);
    for (const Instance *in : all) {
        SCOPED_TRACE(in->describe());
        const Runner *r = runner_for(*in);
        ASSERT_NE(r, nullptr);
        ASSERT_TRUE(r->shape(*in));
        const uint64_t p = in->p;
        // 4x4 block: unit vectors give the JSON matrix's columns.
        for (size_t j = 0; j < 4; ++j) {
            std::vector<uint64_t> e(4, 0);
            e[j] = 1;
            std::vector<uint64_t> col = r->mat4(e);
            for (size_t i = 0; i < 4; ++i) EXPECT_EQ(col[i], in->m4[i][j]) << "M4[" << i << "][" << j << "]";
        }
        gpt::Rng rng(0xb10c + (uint64_t)in->width);
        for (const auto &s : test_states(p, in->width, rng.next())) {
            SCOPED_TRACE("input " + hex_vec(s));
            std::vector<uint64_t> s4(s.begin(), s.begin() + 4), want4(4, 0);
            for (size_t i = 0; i < 4; ++i)
                for (size_t j = 0; j < 4; ++j)
                    want4[i] = gpt::add_mod(want4[i], gpt::mul_mod(in->m4[i][j], s4[j], p), p);
            EXPECT_TRUE(same_state(r->mat4(s4), want4));
            EXPECT_TRUE(same_state(r->external_linear(s), naive_external_linear(*in, s)));
            EXPECT_TRUE(same_state(r->internal_linear(*in, s), naive_internal_linear(*in, s)));
            for (uint64_t x : s) EXPECT_EQ(r->sbox(x), gpt::pow_mod(x, (uint64_t)in->degree, p)) << "x = " << x;
        }
    }
}

/* ------------------------------------------------------------------------ */
/* The generated header                                                     */
/* ------------------------------------------------------------------------ */

template <class C>
void check_generated(const std::vector<const Instance *> &all, size_t *vectors_run) {
    using P = gp::Poseidon2ParamsFor<C>;
    using F = typename C::Field;
    SCOPED_TRACE(std::string("generated instance ") + C::SOURCE);
    const Instance *in = find_instance(all, C::SOURCE);
    ASSERT_NE(in, nullptr) << "no JSON instance with this id";
    ASSERT_TRUE(shape_matches<P>(*in));
    EXPECT_EQ((uint64_t)F::P, in->p);
    EXPECT_EQ(C::ROUNDS_P, in->rounds_p);
    EXPECT_EQ(C::SBOX_DEGREE, in->degree);
    // Raw arrays of the generated header.
    for (int r = 0; r < 4; ++r)
        for (int i = 0; i < C::WIDTH; ++i) {
            EXPECT_EQ((uint64_t)C::external_initial[r][i], in->ext_init[r][i]) << "external_initial " << r << "," << i;
            EXPECT_EQ((uint64_t)C::external_terminal[r][i], in->ext_term[r][i]) << "external_terminal " << r << "," << i;
        }
    for (int r = 0; r < C::ROUNDS_P; ++r) EXPECT_EQ((uint64_t)C::internal[r], in->internal[r]) << "internal " << r;
    for (int i = 0; i < C::WIDTH; ++i) EXPECT_EQ((uint64_t)C::internal_diag[i], in->diag[i]) << "diag " << i;
    // The constexpr Params object (the one device code reads from __constant__).
    const P &p = gp::poseidon2_params<C>();
    for (int r = 0; r < 4; ++r)
        for (int i = 0; i < C::WIDTH; ++i) {
            EXPECT_EQ((uint64_t)p.external_initial(r, i), in->ext_init[r][i]);
            EXPECT_EQ((uint64_t)p.external_terminal(r, i), in->ext_term[r][i]);
            EXPECT_EQ(p.external_initial_tw[r][i], F::to_tw((typename F::T)in->ext_init[r][i]));
            EXPECT_EQ(p.external_terminal_tw[r][i], F::to_tw((typename F::T)in->ext_term[r][i]));
        }
    for (int r = 0; r < P::kRoundsP; ++r) {
        EXPECT_EQ((uint64_t)p.internal(r), in->internal[r]);
        EXPECT_EQ(p.internal_tw[r], F::to_tw((typename F::T)in->internal[r]));
    }
    for (int i = 0; i < C::WIDTH; ++i) {
        EXPECT_EQ((uint64_t)p.internal_diag(i), in->diag[i]) << "diag " << i;
        EXPECT_EQ(p.internal_diag_tw[i], F::to_tw((typename F::T)in->diag[i])) << "prepared diag " << i;
    }
    for (const KnownAnswer &ka : in->vectors) {
        SCOPED_TRACE(ka.name);
        EXPECT_TRUE(same_state(run_permute(p, ka.input), ka.output));
        ++*vectors_run;
    }
    // The compiled-in instance (constants converted to the Tw form at compile
    // time, rounds on the Tw form, diagonal folded into the code) against the
    // naive reference in plain modular arithmetic, on edge and random states.
    // A wrong conversion into or out of the working form, or a constant
    // converted twice or not at all, shows here.
    for (const auto &st : test_states(F::P, C::WIDTH, 0x70F0 + C::WIDTH + (uint64_t)in->rounds_p)) {
        SCOPED_TRACE("input " + hex_vec(st));
        typename F::T s[C::WIDTH];
        for (int i = 0; i < C::WIDTH; ++i) s[i] = (typename F::T)st[(size_t)i];
        gp::poseidon2_permute_instance<C>(s);
        EXPECT_TRUE(same_state(std::vector<uint64_t>(s, s + C::WIDTH), naive_permute(*in, st)));
    }
}

TEST(Poseidon2Constants, GeneratedHeaderMatchesJsonAndVectors) {
    LOAD_ALL_OR_FAIL(all);
    namespace pc = gp::poseidon2_constants;
    size_t run = 0;
    check_generated<pc::GoldilocksW8>(all, &run);
    check_generated<pc::GoldilocksW12>(all, &run);
    check_generated<pc::GoldilocksW16>(all, &run);
    check_generated<pc::GoldilocksHLW8>(all, &run);
    check_generated<pc::GoldilocksHLW12>(all, &run);
    check_generated<pc::BabyBearW16>(all, &run);
    check_generated<pc::BabyBearW24>(all, &run);
    check_generated<pc::BabyBearW32>(all, &run);
    check_generated<pc::BabyBearHLW16>(all, &run);
    check_generated<pc::BabyBearHLW24>(all, &run);
    check_generated<pc::KoalaBearW16>(all, &run);
    check_generated<pc::KoalaBearW24>(all, &run);
    check_generated<pc::KoalaBearW32>(all, &run);
    // All upstream vectors except the 4 RNG-seeded ones (not compiled in).
    EXPECT_EQ(run, (size_t)(7 + 6 + 5 - 4));
}

/* The same HorizenLabs width-8 constants are listed twice in the file. */
TEST(Poseidon2Constants, HorizenLabsGoldilocksW8ListedConsistently) {
    LOAD_ALL_OR_FAIL(all);
    const Instance *a = find_instance(all, "horizenlabs_goldilocks_w8");
    const Instance *b = find_instance(all, "plonky3_old_horizenlabs_compatible_goldilocks_w8");
    ASSERT_NE(a, nullptr);
    ASSERT_NE(b, nullptr);
    EXPECT_EQ(a->ext_init, b->ext_init);
    EXPECT_EQ(a->internal, b->internal);
    EXPECT_EQ(a->ext_term, b->ext_term);
    EXPECT_EQ(a->diag, b->diag);
    EXPECT_EQ(a->m4, b->m4);
}

/* poseidon2_permute_default<F, W> is the Plonky3 default instance. */
template <class F, int W>
void check_default(const std::vector<const Instance *> &all, const char *id, size_t *run) {
    SCOPED_TRACE(id);
    const Instance *in = find_instance(all, id);
    ASSERT_NE(in, nullptr);
    ASSERT_TRUE((shape_matches<gp::Poseidon2Params<F, W>>(*in)));
    ASSERT_FALSE(in->vectors.empty());
    for (const KnownAnswer &ka : in->vectors) {
        typename F::T s[W];
        for (int i = 0; i < W; ++i) s[i] = (typename F::T)ka.input[(size_t)i];
        gp::poseidon2_permute_default<F, W>(s);
        EXPECT_TRUE(same_state(std::vector<uint64_t>(s, s + W), ka.output)) << ka.name;
        ++*run;
    }
}

TEST(Poseidon2Constants, DefaultInstancesAreThePlonky3Defaults) {
    LOAD_ALL_OR_FAIL(all);
    size_t run = 0;
    check_default<gp::Goldilocks, 8>(all, "plonky3_default_goldilocks_w8", &run);
    check_default<gp::Goldilocks, 12>(all, "plonky3_default_goldilocks_w12", &run);
    check_default<gp::Goldilocks, 16>(all, "plonky3_default_goldilocks_w16", &run);
    check_default<gp::BabyBear, 16>(all, "plonky3_default_babybear_w16", &run);
    check_default<gp::BabyBear, 24>(all, "plonky3_default_babybear_w24", &run);
    check_default<gp::BabyBear, 32>(all, "plonky3_default_babybear_w32", &run);
    check_default<gp::KoalaBear, 16>(all, "plonky3_default_koalabear_w16", &run);
    check_default<gp::KoalaBear, 24>(all, "plonky3_default_koalabear_w24", &run);
    check_default<gp::KoalaBear, 32>(all, "plonky3_default_koalabear_w32", &run);
    EXPECT_EQ(run, (size_t)9);
}

/* ------------------------------------------------------------------------ */
/* Internal diagonal folded at compile time                                  */
/* ------------------------------------------------------------------------ */

/* Values where exact division by 2^K can go wrong: around 0, p and powers of
 * two, plus random ones. */
template <class F>
std::vector<typename F::T> div_pow2_inputs(uint64_t seed) {
    using T = typename F::T;
    const uint64_t p = F::P;
    std::vector<T> xs = {0, 1, 2, 3, (T)(p - 1), (T)(p - 2), (T)(p / 2), (T)(p / 2 + 1)};
    for (int b = 1; b < 64 && ((uint64_t)1 << b) < p; ++b) {
        const uint64_t t = (uint64_t)1 << b;
        for (uint64_t x : {t - 1, t, t + 1, p - t, p - t + 1, p - t - 1})
            if (x < p) xs.push_back((T)x);
    }
    gpt::Rng rng(seed);
    for (int i = 0; i < 400; ++i) xs.push_back((T)rng.elem(p));
    return xs;
}

template <class F, int... K>
void check_div_pow2(std::integer_sequence<int, K...>) {
    using T = typename F::T;
    const std::vector<T> xs = div_pow2_inputs<F>(0xd1f2 + F::P);
    auto one = [&](auto k) {
        constexpr int kK = decltype(k)::value;
        const T two_k = (T)gp::fpow<F>(2, kK);
        for (T x : xs) {
            const T q = F::template div_pow2<kK>(x);
            ASSERT_LT((uint64_t)q, (uint64_t)F::P) << "K = " << kK << ", x = " << x;
            ASSERT_EQ(F::mul(q, two_k), x) << "K = " << kK << ", x = " << x;
        }
    };
    (one(std::integral_constant<int, K + 1>{}), ...);
}

/* F::div_pow2<K> (1 <= K <= 32) is exact division by 2^K, canonical out. */
/* The S-box on the working form: F::from_tw(sbox_tw(F::to_tw(x))) is x^D
 * computed with canonical F::mul, and the round trip through the Tw form is
 * the identity, for edge and random x. */
template <class F, int D>
void check_sbox_tw(uint64_t seed) {
    using T = typename F::T;
    std::vector<T> xs = {0, 1, 2, (T)(F::P - 1), (T)(F::P - 2), (T)(F::P / 2), (T)(F::P / 2 + 1)};
    gpt::Rng rng(seed);
    for (int k = 0; k < 200; ++k) xs.push_back((T)rng.elem(F::P));
    for (T x : xs) {
        T want = x;
        for (int k = 1; k < D; ++k) want = F::mul(want, x);
        EXPECT_EQ(F::from_tw(F::to_tw(x)), x);
        EXPECT_EQ((F::from_tw(gp::poseidon2_sbox_tw<F, D>(F::to_tw(x)))), want) << "x = " << x;
        EXPECT_EQ((gp::poseidon2_sbox<F, D>(x)), want) << "x = " << x;
    }
}

TEST(Poseidon2WorkingForm, SboxOnTwFormMatchesCanonicalProducts) {
    check_sbox_tw<gp::Goldilocks, 7>(1);
    check_sbox_tw<gp::BabyBear, 7>(2);
    check_sbox_tw<gp::KoalaBear, 3>(3);
}

TEST(Poseidon2Diagonal, DivPow2IsExactDivision) {
    check_div_pow2<gp::Goldilocks>(std::make_integer_sequence<int, 32>{});
    check_div_pow2<gp::BabyBear>(std::make_integer_sequence<int, 32>{});
    check_div_pow2<gp::KoalaBear>(std::make_integer_sequence<int, 32>{});
}

/* The Goldilocks accumulator of the linear layers: 96-bit sums reduce to the
 * canonical value of the integer, also for high words far beyond what the
 * layers produce and where the fold carries. */
TEST(Poseidon2Diagonal, GoldilocksAccumulatorReducesExactly) {
    using Acc = gp::Poseidon2Acc<gp::Goldilocks>;
    const uint64_t p = gp::Goldilocks::P;
    const unsigned __int128 P128 = p;
    gpt::Rng rng(0xacc96);
    std::vector<uint64_t> los = {0, 1, p - 1, p, p + 1, ~0ull, ~0ull - 1, 0xffffffffull, 0x100000000ull};
    std::vector<uint32_t> his = {0, 1, 2, 63, 64, 0xffffffffu, 0xfffffffeu, 0x80000000u};
    for (int i = 0; i < 64; ++i) {
        los.push_back(rng.next());
        his.push_back((uint32_t)rng.next());
    }
    for (uint64_t lo : los)
        for (uint32_t hi : his) {
            const unsigned __int128 x = ((unsigned __int128)hi << 64) | lo;
            ASSERT_EQ(gp::Goldilocks::reduce96(lo, hi), (uint64_t)(x % P128)) << "lo = " << lo << ", hi = " << hi;
        }
    // Sums of canonical values, as M_E accumulates them.
    for (int k = 0; k < 200; ++k) {
        Acc::A a = Acc::from(rng.elem(p));
        unsigned __int128 want = a.lo;
        for (int j = 0; j < 80; ++j) {
            const uint64_t x = rng.elem(p);
            a = Acc::add(a, Acc::from(x));
            want += x;
        }
        ASSERT_EQ(Acc::reduce(a), (uint64_t)(want % P128));
    }
}

/* The value a classification stands for: +-n or +-1/2^n. */
template <class F>
typename F::T diag_value(const gp::Poseidon2DiagOp &op) {
    using T = typename F::T;
    T v = op.kind == gp::Poseidon2DiagOp::kSmall ? (T)op.n : gp::finv<F>(gp::fpow<F>(2, (uint64_t)op.n));
    return op.negate ? F::neg(v) : v;
}

/* For generated instance C: every lane's classification stands for V[i];
 * the compile-time diagonal (Poseidon2StaticDiag) equals the run-time one
 * (general products) in M_I and in the whole permutation, on edge and
 * random states. Returns the number of lanes without a general product. */
template <class C>
size_t check_static_diag(uint64_t seed) {
    using F = typename C::Field;
    using T = typename F::T;
    constexpr int W = C::WIDTH;
    SCOPED_TRACE(std::string("generated instance ") + C::SOURCE);
    size_t cheap = 0;
    for (int i = 0; i < W; ++i) {
        const gp::Poseidon2DiagOp op = gp::poseidon2_diag_op<F>(C::internal_diag[i]);
        if (op.kind == gp::Poseidon2DiagOp::kMul) continue;
        ++cheap;
        EXPECT_EQ(diag_value<F>(op), C::internal_diag[i]) << "lane " << i;
    }
    const auto &params = gp::poseidon2_params<C>();
    const gp::Poseidon2RuntimeDiag<F> runtime{params.internal_diag_tw};
    std::vector<std::vector<uint64_t>> states = test_states(F::P, W, seed);
    // Every lane through the edge inputs of division by powers of two.
    const std::vector<T> edges = div_pow2_inputs<F>(seed + 1);
    for (size_t j = 0; j < edges.size(); j += (size_t)W) {
        std::vector<uint64_t> s(W);
        for (int i = 0; i < W; ++i) s[(size_t)i] = edges[(j + (size_t)i) % edges.size()];
        states.push_back(s);
    }
    for (const auto &st : states) {
        SCOPED_TRACE("input " + hex_vec(st));
        T a[W], b[W];
        for (int i = 0; i < W; ++i) a[i] = b[i] = (T)st[(size_t)i];
        gp::poseidon2_internal_linear<F, W>(a, runtime);
        gp::poseidon2_internal_linear<F, W>(b, gp::Poseidon2StaticDiag<C>{});
        EXPECT_TRUE(same_state(std::vector<uint64_t>(b, b + W), std::vector<uint64_t>(a, a + W))) << "M_I";
        for (int i = 0; i < W; ++i) a[i] = b[i] = (T)st[(size_t)i];
        gp::poseidon2_permute(params, a);
        gp::poseidon2_permute_instance<C>(b);
        EXPECT_TRUE(same_state(std::vector<uint64_t>(b, b + W), std::vector<uint64_t>(a, a + W))) << "permutation";
    }
    return cheap;
}

TEST(Poseidon2Diagonal, StaticDiagonalMatchesGeneralProducts) {
    namespace pc = gp::poseidon2_constants;
    // Plonky3 defaults: every lane avoids the general product.
    EXPECT_EQ(check_static_diag<pc::GoldilocksW8>(1), (size_t)8);
    EXPECT_EQ(check_static_diag<pc::GoldilocksW12>(2), (size_t)12);
    EXPECT_EQ(check_static_diag<pc::GoldilocksW16>(3), (size_t)16);
    EXPECT_EQ(check_static_diag<pc::BabyBearW16>(4), (size_t)16);
    EXPECT_EQ(check_static_diag<pc::BabyBearW24>(5), (size_t)24);
    EXPECT_EQ(check_static_diag<pc::BabyBearW32>(6), (size_t)32);
    EXPECT_EQ(check_static_diag<pc::KoalaBearW16>(7), (size_t)16);
    EXPECT_EQ(check_static_diag<pc::KoalaBearW24>(8), (size_t)24);
    EXPECT_EQ(check_static_diag<pc::KoalaBearW32>(9), (size_t)32);
    // HorizenLabs: random diagonals, general products throughout.
    EXPECT_EQ(check_static_diag<pc::GoldilocksHLW8>(10), (size_t)0);
    EXPECT_EQ(check_static_diag<pc::GoldilocksHLW12>(11), (size_t)0);
    EXPECT_EQ(check_static_diag<pc::BabyBearHLW16>(12), (size_t)0);
    EXPECT_EQ(check_static_diag<pc::BabyBearHLW24>(13), (size_t)0);
}

/* A wrong constant is caught: flipping any single constant of an instance
 * changes the known answer (so no constant is silently unused). */
TEST(Poseidon2Constants, EveryConstantMatters) {
    LOAD_ALL_OR_FAIL(all);
    for (const char *id : {"plonky3_default_goldilocks_w8", "plonky3_default_babybear_w16",
                           "plonky3_default_koalabear_w16"}) {
        SCOPED_TRACE(id);
        const Instance *base = find_instance(all, id);
        ASSERT_NE(base, nullptr);
        ASSERT_FALSE(base->vectors.empty());
        const Runner *r = runner_for(*base);
        ASSERT_NE(r, nullptr);
        const KnownAnswer &ka = base->vectors[0];
        ASSERT_EQ(r->permute(*base, ka.input), ka.output);
        auto bump = [&](uint64_t &v) { v = gpt::add_mod(v, 1, base->p); };
        auto expect_changed = [&](const Instance &m, const std::string &what) {
            EXPECT_NE(r->permute(m, ka.input), ka.output) << "changing " << what << " left the output unchanged";
        };
        for (int row = 0; row < 4; ++row)
            for (int i = 0; i < base->width; ++i) {
                Instance m = *base;
                bump(m.ext_init[row][i]);
                expect_changed(m, "external_initial[" + std::to_string(row) + "][" + std::to_string(i) + "]");
                m = *base;
                bump(m.ext_term[row][i]);
                expect_changed(m, "external_terminal[" + std::to_string(row) + "][" + std::to_string(i) + "]");
            }
        for (int k = 0; k < base->rounds_p; ++k) {
            Instance m = *base;
            bump(m.internal[k]);
            expect_changed(m, "internal[" + std::to_string(k) + "]");
        }
        for (int i = 0; i < base->width; ++i) {
            Instance m = *base;
            bump(m.diag[i]);
            expect_changed(m, "diag[" + std::to_string(i) + "]");
        }
    }
}

/* ------------------------------------------------------------------------ */
/* RNG-seeded instances: the JSON's reconstructed constants follow the       */
/* documented recipe                                                         */
/* ------------------------------------------------------------------------ */

/* rand_xoshiro::Xoroshiro128Plus::seed_from_u64: state = two SplitMix64 outputs. */
struct Xoroshiro128Plus {
    uint64_t s0, s1;
    explicit Xoroshiro128Plus(uint64_t seed) {
        gpt::Rng sm(seed);  // test_util's Rng::next() is SplitMix64
        s0 = sm.next();
        s1 = sm.next();
    }
    static uint64_t rotl(uint64_t x, int k) { return (x << k) | (x >> (64 - k)); }
    uint64_t next_u64() {
        const uint64_t r = s0 + s1;
        const uint64_t t = s1 ^ s0;
        s0 = rotl(s0, 24) ^ t ^ (t << 16);
        s1 = rotl(t, 37);
        return r;
    }
    uint32_t next_u32() { return (uint32_t)(next_u64() >> 32); }
};

TEST(Poseidon2Rng, ReconstructedConstantsFollowRecipe) {
    LOAD_ALL_OR_FAIL(all);
    size_t checked = 0;
    for (const Instance *in : all) {
        if (in->id.find("rng_seed1") == std::string::npos) continue;
        SCOPED_TRACE(in->describe());
        ASSERT_NE(in->field, Fk::kGoldilocks);  // recipe is MontyField31's
        const uint64_t p = in->p;
        const uint64_t r_inv = gpt::inv_mod(gpt::pow_mod(2, 32, p), p);
        Xoroshiro128Plus rng(1);
        auto draw = [&]() -> uint64_t {
            for (;;) {
                const uint64_t v = rng.next_u32() >> 1;
                if (v < p) return gpt::mul_mod(v, r_inv, p);  // v is the Montgomery form
            }
        };
        std::vector<std::vector<uint64_t>> ei(4), et(4);
        for (auto &row : ei)
            for (int i = 0; i < in->width; ++i) row.push_back(draw());
        for (auto &row : et)
            for (int i = 0; i < in->width; ++i) row.push_back(draw());
        std::vector<uint64_t> it;
        for (int k = 0; k < in->rounds_p; ++k) it.push_back(draw());
        EXPECT_EQ(ei, in->ext_init);
        EXPECT_EQ(et, in->ext_term);
        EXPECT_EQ(it, in->internal);
        ++checked;
    }
    EXPECT_EQ(checked, (size_t)4);  // BabyBear and KoalaBear, widths 16 and 24
}

}  // namespace
