// SPDX-License-Identifier: MIT OR Apache-2.0
/*
 * test_util.h - shared helpers for the gpuprover test suite.
 *
 * Everything in here is written independently of the library: exact modular
 * arithmetic for the three fields (plain % reduction, unsigned __int128 for
 * Goldilocks), two-adic roots computed as GENERATOR^((p-1)/2^k), naive O(n^2)
 * interpolation and Horner evaluation, bit reversal, a deterministic RNG and
 * host-side matrix layout conversion. Only the small glue helpers at the end
 * (context/buffer RAII, upload/download, cuda_available) call the library.
 */
#ifndef GP_TEST_UTIL_H
#define GP_TEST_UTIL_H

#include <gtest/gtest.h>

#include <algorithm>
#include <cstdint>
#include <cstring>
#include <fstream>
#include <initializer_list>
#include <memory>
#include <ostream>
#include <sstream>
#include <cstdlib>
#include <string>
#include <vector>

#include "gpuprover.h"

/* 1 in AddressSanitizer / UndefinedBehaviorSanitizer builds. */
#if defined(__SANITIZE_ADDRESS__) || defined(__SANITIZE_UNDEFINED__)
#define GP_TEST_SANITIZED 1
#elif defined(__has_feature)
#if __has_feature(address_sanitizer) || __has_feature(undefined_behavior_sanitizer)
#define GP_TEST_SANITIZED 1
#endif
#endif
#ifndef GP_TEST_SANITIZED
#define GP_TEST_SANITIZED 0
#endif

#ifndef GP_VECTORS_DIR
#define GP_VECTORS_DIR "/work/shared/vectors"
#endif

/* Pretty-print gp_status in gtest failure messages without calling into the
 * library (a library call could reset gp_last_error()). */
inline const char *gpt_status_str(int s) {
    static const char *const names[] = {
        "GP_OK",
        "GP_ERR_INVALID_ARGUMENT",
        "GP_ERR_NULL_POINTER",
        "GP_ERR_UNSUPPORTED",
        "GP_ERR_NO_DEVICE",
        "GP_ERR_HOST_OUT_OF_MEMORY",
        "GP_ERR_DEVICE_OUT_OF_MEMORY",
        "GP_ERR_SIZE_OVERFLOW",
        "GP_ERR_FIELD_MISMATCH",
        "GP_ERR_CONTEXT_MISMATCH",
        "GP_ERR_SHAPE_MISMATCH",
        "GP_ERR_TWO_ADICITY",
        "GP_ERR_NON_CANONICAL",
        "GP_ERR_CUDA",
        "GP_ERR_INTERNAL",
        "GP_ERR_VERIFY_FAILED",
        "GP_ERR_CANCELLED",
        "GP_ERR_REMOTE",
    };
    if (s >= 0 && s < (int)(sizeof(names) / sizeof(names[0]))) return names[s];
    return "GP_ERR_UNKNOWN";
}
inline void PrintTo(gp_status s, std::ostream *os) {
    *os << gpt_status_str((int)s) << " (" << (int)s << ")";
}

namespace gpt {

/* ------------------------------------------------------------------------ */
/* Field reference                                                          */
/* ------------------------------------------------------------------------ */

struct FieldRef {
    gp_field field;
    const char *name;       /* key used in the JSON vectors */
    uint64_t p;
    uint64_t generator;
    uint32_t two_adicity;
    uint32_t elem_size;     /* bytes per base element across the ABI */
    std::vector<uint32_t> ext_degrees;
};

inline const std::vector<FieldRef> &all_fields() {
    static const std::vector<FieldRef> fields = {
        {GP_FIELD_GOLDILOCKS, "goldilocks", 0xffffffff00000001ull, 7, 32, 8, {1, 2, 3}},
        {GP_FIELD_BABYBEAR, "babybear", 0x78000001ull, 31, 27, 4, {1, 4}},
        {GP_FIELD_KOALABEAR, "koalabear", 0x7f000001ull, 3, 24, 4, {1, 4}},
    };
    return fields;
}

inline const FieldRef &field_ref(gp_field f) {
    for (const FieldRef &F : all_fields())
        if (F.field == f) return F;
    return all_fields()[0]; /* unreachable for valid fields */
}

inline uint64_t add_mod(uint64_t a, uint64_t b, uint64_t p) {
    unsigned __int128 s = (unsigned __int128)a + b;
    if (s >= p) s -= p;
    return (uint64_t)s;
}
inline uint64_t sub_mod(uint64_t a, uint64_t b, uint64_t p) {
    return a >= b ? a - b : a + (p - b);
}
inline uint64_t neg_mod(uint64_t a, uint64_t p) { return a == 0 ? 0 : p - a; }
inline uint64_t mul_mod(uint64_t a, uint64_t b, uint64_t p) {
    if ((p >> 32) == 0) return (a * b) % p; /* both < 2^31: product < 2^62 */
    return (uint64_t)(((unsigned __int128)a * b) % p);
}
inline uint64_t pow_mod(uint64_t a, uint64_t e, uint64_t p) {
    uint64_t r = 1 % p;
    a %= p;
    while (e) {
        if (e & 1) r = mul_mod(r, a, p);
        a = mul_mod(a, a, p);
        e >>= 1;
    }
    return r;
}
/* Fermat inverse; inv(0) = 0. */
inline uint64_t inv_mod(uint64_t a, uint64_t p) { return pow_mod(a, p - 2, p); }

/* Primitive 2^log_n-th root of unity, Plonky3's choice:
 * TWO_ADIC_GENERATORS[bits] = GENERATOR^((p-1)/2^bits). */
inline uint64_t ref_root(const FieldRef &F, uint32_t log_n) {
    return pow_mod(F.generator, (F.p - 1) >> log_n, F.p);
}

/* The primitive 2^log_n-th root of unity drawn from `root` (an element of
 * order 2^two_adicity, as gp_ntt_options.root), or ref_root for root 0. */
inline uint64_t ref_root(const FieldRef &F, uint32_t log_n, uint64_t root) {
    return root ? pow_mod(root, 1ull << (F.two_adicity - log_n), F.p) : ref_root(F, log_n);
}

inline uint64_t bit_reverse(uint64_t x, uint32_t log_n) {
    uint64_t r = 0;
    for (uint32_t i = 0; i < log_n; ++i) {
        r = (r << 1) | (x & 1);
        x >>= 1;
    }
    return r;
}
inline uint32_t log2_exact(uint64_t n) {
    uint32_t l = 0;
    while ((1ull << l) < n) ++l;
    return l;
}
inline bool is_pow2(uint64_t n) { return n && !(n & (n - 1)); }

/* ------------------------------------------------------------------------ */
/* Deterministic RNG                                                        */
/* ------------------------------------------------------------------------ */

struct Rng {
    uint64_t state;
    explicit Rng(uint64_t seed) : state(seed) {}
    uint64_t next() { /* splitmix64 */
        uint64_t z = (state += 0x9e3779b97f4a7c15ull);
        z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
        z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
        return z ^ (z >> 31);
    }
    /* Canonical element in [0, p); about 1 in 32 draws is an edge value. */
    uint64_t elem(uint64_t p) {
        uint64_t r = next();
        if ((r & 31) == 0) {
            const uint64_t edges[4] = {0, 1, p - 1, p - 2};
            return edges[(r >> 5) & 3];
        }
        uint64_t mask = p - 1;
        mask |= mask >> 1; mask |= mask >> 2; mask |= mask >> 4;
        mask |= mask >> 8; mask |= mask >> 16; mask |= mask >> 32;
        for (;;) {
            uint64_t x = next() & mask;
            if (x < p) return x;
        }
    }
    uint64_t nonzero(uint64_t p) {
        for (;;) {
            uint64_t x = elem(p);
            if (x != 0) return x;
        }
    }
};

/* ------------------------------------------------------------------------ */
/* Host matrices                                                            */
/* ------------------------------------------------------------------------ */

/* rows x cols elements of degree d, stored canonically column-major:
 * base value k of element (r, c) at (c * rows + r) * d + k. */
struct HostMat {
    uint64_t rows = 0, cols = 0;
    uint32_t d = 1;
    std::vector<uint64_t> v;

    HostMat() = default;
    HostMat(uint64_t r, uint64_t c, uint32_t deg)
        : rows(r), cols(c), d(deg), v((size_t)(r * c * deg), 0) {}
    uint64_t &at(uint64_t r, uint64_t c, uint32_t k) { return v[(size_t)((c * rows + r) * d + k)]; }
    uint64_t at(uint64_t r, uint64_t c, uint32_t k) const { return v[(size_t)((c * rows + r) * d + k)]; }
    /* Base column (c, k) as a vector of rows values. */
    std::vector<uint64_t> base_col(uint64_t c, uint32_t k) const {
        std::vector<uint64_t> out((size_t)rows);
        for (uint64_t r = 0; r < rows; ++r) out[(size_t)r] = at(r, c, k);
        return out;
    }
    void set_base_col(uint64_t c, uint32_t k, const std::vector<uint64_t> &col) {
        for (uint64_t r = 0; r < rows; ++r) at(r, c, k) = col[(size_t)r];
    }
};

inline HostMat random_mat(const FieldRef &F, uint64_t rows, uint64_t cols, uint32_t d, Rng &rng) {
    HostMat m(rows, cols, d);
    for (auto &x : m.v) x = rng.elem(F.p);
    return m;
}

/* Flat host array in `layout`, as documented in gpuprover.h. */
inline std::vector<uint64_t> to_layout(const HostMat &m, gp_layout layout) {
    if (layout == GP_LAYOUT_COL_MAJOR) return m.v;
    std::vector<uint64_t> out(m.v.size());
    for (uint64_t r = 0; r < m.rows; ++r)
        for (uint64_t c = 0; c < m.cols; ++c)
            for (uint32_t k = 0; k < m.d; ++k)
                out[(size_t)((r * m.cols + c) * m.d + k)] = m.at(r, c, k);
    return out;
}
inline HostMat from_layout(const std::vector<uint64_t> &flat, uint64_t rows, uint64_t cols,
                           uint32_t d, gp_layout layout) {
    HostMat m(rows, cols, d);
    if (layout == GP_LAYOUT_COL_MAJOR) {
        m.v = flat;
        m.v.resize((size_t)(rows * cols * d));
        return m;
    }
    for (uint64_t r = 0; r < rows; ++r)
        for (uint64_t c = 0; c < cols; ++c)
            for (uint32_t k = 0; k < d; ++k)
                m.at(r, c, k) = flat[(size_t)((r * cols + c) * d + k)];
    return m;
}

/* Host data in the ABI's element width (uint64_t or uint32_t). */
struct ApiData {
    uint32_t esz = 8;
    std::vector<uint64_t> w64;
    std::vector<uint32_t> w32;

    ApiData() = default;
    ApiData(const std::vector<uint64_t> &vals, uint32_t elem_size) : esz(elem_size) {
        if (esz == 8) {
            w64 = vals;
        } else {
            w32.resize(vals.size());
            for (size_t i = 0; i < vals.size(); ++i) w32[i] = (uint32_t)vals[i];
        }
    }
    /* Zero-filled, `count` elements. */
    static ApiData zeros(size_t count, uint32_t elem_size) {
        ApiData a;
        a.esz = elem_size;
        if (elem_size == 8) a.w64.assign(count, 0);
        else a.w32.assign(count, 0);
        return a;
    }
    size_t count() const { return esz == 8 ? w64.size() : w32.size(); }
    void *data() { return esz == 8 ? (void *)w64.data() : (void *)w32.data(); }
    const void *data() const { return esz == 8 ? (const void *)w64.data() : (const void *)w32.data(); }
    uint64_t size_bytes() const { return (uint64_t)count() * esz; }
    uint64_t get(size_t i) const { return esz == 8 ? w64[i] : (uint64_t)w32[i]; }
    void set(size_t i, uint64_t x) {
        if (esz == 8) w64[i] = x;
        else w32[i] = (uint32_t)x;
    }
    std::vector<uint64_t> values() const {
        std::vector<uint64_t> out(count());
        for (size_t i = 0; i < out.size(); ++i) out[i] = get(i);
        return out;
    }
};

/* First difference between two matrices, as an assertion result. */
inline ::testing::AssertionResult mats_equal(const HostMat &got, const HostMat &want) {
    if (got.rows != want.rows || got.cols != want.cols || got.d != want.d)
        return ::testing::AssertionFailure()
               << "shape " << got.rows << "x" << got.cols << "x" << got.d << " != expected "
               << want.rows << "x" << want.cols << "x" << want.d;
    size_t mismatches = 0;
    std::ostringstream first;
    for (uint64_t c = 0; c < want.cols; ++c)
        for (uint64_t r = 0; r < want.rows; ++r)
            for (uint32_t k = 0; k < want.d; ++k)
                if (got.at(r, c, k) != want.at(r, c, k)) {
                    if (mismatches == 0)
                        first << "first mismatch at row " << r << " col " << c << " coord " << k
                              << ": got 0x" << std::hex << got.at(r, c, k) << " expected 0x"
                              << want.at(r, c, k) << std::dec;
                    ++mismatches;
                }
    if (mismatches == 0) return ::testing::AssertionSuccess();
    return ::testing::AssertionFailure()
           << mismatches << " of " << want.v.size() << " values differ; " << first.str();
}

/* ------------------------------------------------------------------------ */
/* Naive reference transforms                                               */
/* ------------------------------------------------------------------------ */

/* Coefficients (n of them) of the unique f with deg f < n and
 * f(s * w_n^i) = vals[i] for i < rows, f(s * w_n^i) = 0 for rows <= i < n.
 * c_k = n^-1 s^-k sum_i vals[i] w_n^(-ik). O(n * rows). */
inline std::vector<uint64_t> naive_interpolate(const FieldRef &F, const std::vector<uint64_t> &vals,
                                               uint64_t n, uint64_t s, uint64_t root = 0) {
    const uint64_t p = F.p;
    const uint64_t rows = std::min<uint64_t>(vals.size(), n);
    const uint32_t log_n = log2_exact(n);
    const uint64_t winv = inv_mod(ref_root(F, log_n, root), p);
    std::vector<uint64_t> tab((size_t)n);
    tab[0] = 1;
    for (uint64_t t = 1; t < n; ++t) tab[(size_t)t] = mul_mod(tab[(size_t)(t - 1)], winv, p);
    const uint64_t *v = vals.data();
    const uint64_t *tw = tab.data();
    const uint64_t mask = n - 1;
    std::vector<uint64_t> coeffs((size_t)n);
    const uint64_t n_inv = inv_mod(n % p, p);
    const uint64_t s_inv = inv_mod(s, p);
    uint64_t scale = n_inv; /* n^-1 * s^-k */
    for (uint64_t k = 0; k < n; ++k) {
        uint64_t acc = 0, idx = 0;
        for (uint64_t i = 0; i < rows; ++i) {
            acc = add_mod(acc, mul_mod(v[i], tw[idx], p), p);
            idx = (idx + k) & mask;
        }
        coeffs[(size_t)k] = mul_mod(acc, scale, p);
        scale = mul_mod(scale, s_inv, p);
    }
    return coeffs;
}

inline uint64_t horner(const FieldRef &F, const std::vector<uint64_t> &coeffs, uint64_t x) {
    const uint64_t p = F.p;
    uint64_t acc = 0;
    for (size_t k = coeffs.size(); k-- > 0;) acc = add_mod(mul_mod(acc, x, p), coeffs[k], p);
    return acc;
}

/* out[j] = f(shift * w_m^idx(j)), idx(j) = j (natural) or bitrev(j, log m);
 * w_m drawn from `root` as ref_root does. */
inline std::vector<uint64_t> naive_eval_coset(const FieldRef &F, const std::vector<uint64_t> &coeffs,
                                              uint64_t m, uint64_t shift, gp_order order, uint64_t root = 0) {
    const uint32_t log_m = log2_exact(m);
    const uint64_t w = ref_root(F, log_m, root);
    std::vector<uint64_t> out((size_t)m);
    uint64_t x = shift % F.p;
    for (uint64_t i = 0; i < m; ++i) {
        const uint64_t row = order == GP_ORDER_BIT_REVERSED ? bit_reverse(i, log_m) : i;
        out[(size_t)row] = horner(F, coeffs, x);
        x = mul_mod(x, w, F.p);
    }
    return out;
}

/* Reference coset LDE: input column values f(s * w_n^i) for i < in.rows
 * (zero beyond), output n*B rows f(g * w_{nB}^idx(j)). Componentwise for
 * extension elements. */
inline HostMat naive_lde(const FieldRef &F, const HostMat &in, uint64_t n, uint32_t blowup,
                         uint64_t g, uint64_t s, gp_order order, uint64_t root = 0) {
    HostMat out(n * blowup, in.cols, in.d);
    for (uint64_t c = 0; c < in.cols; ++c)
        for (uint32_t k = 0; k < in.d; ++k) {
            const std::vector<uint64_t> coeffs = naive_interpolate(F, in.base_col(c, k), n, s, root);
            out.set_base_col(c, k, naive_eval_coset(F, coeffs, n * blowup, g, order, root));
        }
    return out;
}

/* Reference for gp_ntt_batch on a whole matrix (rows = n). */
inline HostMat naive_ntt(const FieldRef &F, const HostMat &in, gp_ntt_direction dir, uint64_t shift,
                         gp_order in_order, gp_order out_order, uint64_t root = 0) {
    const uint64_t n = in.rows;
    const uint32_t log_n = log2_exact(n);
    const uint64_t s = shift == 0 ? 1 : shift;
    HostMat out(n, in.cols, in.d);
    for (uint64_t c = 0; c < in.cols; ++c)
        for (uint32_t k = 0; k < in.d; ++k) {
            std::vector<uint64_t> col = in.base_col(c, k), logical((size_t)n);
            for (uint64_t i = 0; i < n; ++i)
                logical[(size_t)i] =
                    col[(size_t)(in_order == GP_ORDER_BIT_REVERSED ? bit_reverse(i, log_n) : i)];
            std::vector<uint64_t> res;
            if (dir == GP_NTT_FORWARD) {
                res = naive_eval_coset(F, logical, n, s, GP_ORDER_NATURAL, root);
            } else {
                res = naive_interpolate(F, logical, n, s, root);
            }
            std::vector<uint64_t> placed((size_t)n);
            for (uint64_t i = 0; i < n; ++i)
                placed[(size_t)(out_order == GP_ORDER_BIT_REVERSED ? bit_reverse(i, log_n) : i)] =
                    res[(size_t)i];
            out.set_base_col(c, k, placed);
        }
    return out;
}

/* One output value of a size-n transform, in O(n): the value at logical
 * (natural-order) index k of gp_ntt_batch applied to `logical` (the input in
 * natural order). Forward: f(s * w^k) with f = sum logical[j] X^j. Inverse:
 * c_k = n^-1 s^-k sum_i logical[i] w^(-ik). For spot checks at large n. */
inline uint64_t ntt_point(const FieldRef &F, const std::vector<uint64_t> &logical, gp_ntt_direction dir,
                          uint64_t shift, uint64_t k) {
    const uint64_t n = logical.size(), p = F.p;
    const uint64_t s = shift == 0 ? 1 : shift;
    const uint64_t w = ref_root(F, log2_exact(n));
    if (dir == GP_NTT_FORWARD) return horner(F, logical, mul_mod(s, pow_mod(w, k, p), p));
    const uint64_t x = inv_mod(pow_mod(w, k, p), p);
    const uint64_t scale = mul_mod(inv_mod(n % p, p), inv_mod(pow_mod(s, k, p), p), p);
    return mul_mod(horner(F, logical, x), scale, p);
}

/* ------------------------------------------------------------------------ */
/* Minimal JSON scanning (no JSON library available)                        */
/* ------------------------------------------------------------------------ */

inline std::string read_text_file(const std::string &path) {
    std::ifstream f(path, std::ios::binary);
    if (!f) return std::string();
    std::ostringstream ss;
    ss << f.rdbuf();
    return ss.str();
}

// GP_VECTORS_DIR (environment) overrides the compiled-in folder, so the test
// binaries can run from a copy of the tree elsewhere.
inline std::string vectors_path(const char *file) {
    const char *env = std::getenv("GP_VECTORS_DIR");
    return std::string(env && *env ? env : GP_VECTORS_DIR) + "/" + file;
}

/* Position just after the ':' of the first "key": at or after `from`, or npos. */
inline size_t json_find_key(const std::string &t, const std::string &key, size_t from = 0) {
    const std::string quoted = "\"" + key + "\"";
    size_t pos = from;
    while ((pos = t.find(quoted, pos)) != std::string::npos) {
        size_t q = pos + quoted.size();
        while (q < t.size() && (t[q] == ' ' || t[q] == '\t' || t[q] == '\n' || t[q] == '\r')) ++q;
        if (q < t.size() && t[q] == ':') return q + 1;
        pos += 1;
    }
    return std::string::npos;
}

/* Parses the array starting at the first '[' at or after `pos`: every
 * "0x..." string up to the closing ']'. */
inline std::vector<uint64_t> json_hex_array(const std::string &t, size_t pos) {
    std::vector<uint64_t> out;
    if (pos == std::string::npos) return out;
    size_t lb = t.find('[', pos);
    if (lb == std::string::npos) return out;
    size_t rb = t.find(']', lb);
    if (rb == std::string::npos) return out;
    size_t i = lb;
    while ((i = t.find("\"0x", i)) != std::string::npos && i < rb) {
        out.push_back(std::stoull(t.substr(i + 3, t.find('"', i + 3) - (i + 3)), nullptr, 16));
        i += 3;
    }
    return out;
}

/* Integer (decimal) or "0x.." string value right after `pos`. */
inline uint64_t json_number(const std::string &t, size_t pos) {
    while (pos < t.size() && (t[pos] == ' ' || t[pos] == '\n' || t[pos] == '\t')) ++pos;
    if (pos < t.size() && t[pos] == '"') return std::stoull(t.substr(pos + 3), nullptr, 16);
    return std::stoull(t.substr(pos), nullptr, 10);
}

/* The TWO_ADIC_GENERATORS table of one field object ("goldilocks", ...). */
inline std::vector<uint64_t> json_two_adic_table(const std::string &t, const char *field_name) {
    size_t obj = json_find_key(t, field_name);
    if (obj == std::string::npos) return {};
    return json_hex_array(t, json_find_key(t, "two_adic_generator(bits) = TWO_ADIC_GENERATORS[bits]", obj));
}

struct DerivedDftExample {
    bool found = false;
    uint64_t n = 0;
    uint64_t root = 0;
    std::vector<uint64_t> coefficients, dft, coset_dft;
    uint64_t coset_shift = 0;
};

/* derived_examples.examples[] entry whose "field" is field_name. */
inline DerivedDftExample json_derived_example(const std::string &t, const char *field_name) {
    DerivedDftExample ex;
    size_t pos = json_find_key(t, "derived_examples");
    if (pos == std::string::npos) return ex;
    const std::string want = std::string("\"") + field_name + "\"";
    while ((pos = json_find_key(t, "field", pos)) != std::string::npos) {
        size_t q = pos;
        while (q < t.size() && t[q] == ' ') ++q;
        if (t.compare(q, want.size(), want) == 0) {
            ex.n = json_number(t, json_find_key(t, "n", q));
            ex.root = json_number(t, json_find_key(t, "root_g = two_adic_generator(3)", q));
            ex.coefficients = json_hex_array(t, json_find_key(t, "coefficients", q));
            ex.dft = json_hex_array(t, json_find_key(t, "dft_natural_order", q));
            ex.coset_shift = json_number(t, json_find_key(t, "coset_dft_shift_GENERATOR", q));
            ex.coset_dft = json_hex_array(t, json_find_key(t, "coset_dft_natural_order", q));
            ex.found = true;
            return ex;
        }
    }
    return ex;
}

/* ------------------------------------------------------------------------ */
/* Library glue                                                             */
/* ------------------------------------------------------------------------ */

struct CtxDeleter {
    void operator()(gp_context *c) const { gp_context_destroy(c); }
};
using CtxPtr = std::unique_ptr<gp_context, CtxDeleter>;
struct BufDeleter {
    void operator()(gp_buffer *b) const { gp_buffer_destroy(b); }
};
using BufPtr = std::unique_ptr<gp_buffer, BufDeleter>;

/* An arbitrary integer as an enum value, the way a C caller can pass one.
 * Values outside the C++ range of the enum (e.g. 2 for gp_order, 4 for
 * gp_field) are only used where GP_TEST_SANITIZED is 0: loading them from an
 * enum-typed object is undefined in C++ and aborts under -fsanitize=enum. */
template <typename E>
inline E raw_enum(int v) {
    E e;
    static_assert(sizeof(E) == sizeof(int), "enum is int-sized");
    std::memcpy(&e, &v, sizeof e);
    return e;
}
/* Stores an arbitrary integer into an enum-typed struct field without
 * loading it as an enum on the test side. */
template <typename E>
inline void store_raw(E *dst, int v) {
    static_assert(sizeof(E) == sizeof(int), "enum is int-sized");
    std::memcpy(dst, &v, sizeof v);
}

/* GP_TEST_REMOTE=ENDPOINT (tests/run_remote.sh sets it): the suites' CPU
 * contexts are sessions on the gpuprover-server at ENDPOINT instead, so
 * every CPU test also checks the remote backend against the same answers. */
inline const char *test_remote_endpoint() {
    const char *r = std::getenv("GP_TEST_REMOTE");
    return r && *r ? r : nullptr;
}

/* The backend a context asked for as `b` runs on. */
inline gp_backend expected_backend(gp_backend b) {
    return b == GP_BACKEND_CPU && test_remote_endpoint() ? GP_BACKEND_REMOTE : b;
}

inline gp_status make_context(gp_backend backend, CtxPtr *out, uint32_t cpu_threads = 0) {
    gp_context_options o;
    gp_context_options_init(&o);
    o.backend = backend;
    o.cpu_threads = cpu_threads;
    if (backend == GP_BACKEND_CPU && test_remote_endpoint()) {
        o.backend = GP_BACKEND_REMOTE;
        o.endpoint = test_remote_endpoint();
    }
    gp_context *raw = nullptr;
    gp_status st = gp_context_create(&o, &raw);
    out->reset(st == GP_OK ? raw : nullptr);
    return st;
}

/* Whether a CUDA context can be created (cached after the first call). */
inline bool cuda_available() {
    static int cached = -1;
    if (cached < 0) {
        gp_context_options o;
        gp_context_options_init(&o);
        o.backend = GP_BACKEND_CUDA;
        gp_context *raw = nullptr;
        gp_status st = gp_context_create(&o, &raw);
        cached = st == GP_OK ? 1 : 0;
        if (st == GP_OK) gp_context_destroy(raw);
    }
    return cached == 1;
}

inline const char *backend_name(gp_backend b) {
    return b == GP_BACKEND_CPU ? "CPU" : b == GP_BACKEND_CUDA ? "CUDA" : "AUTO";
}

/* Upload a host matrix through gp_buffer_from_host in `layout`. */
inline gp_status upload(gp_context *ctx, const FieldRef &F, const HostMat &m, gp_layout layout,
                        BufPtr *out) {
    ApiData data(to_layout(m, layout), F.elem_size);
    gp_buffer *raw = nullptr;
    gp_status st = gp_buffer_from_host(ctx, F.field, m.d, m.rows, m.cols, layout, data.data(), &raw);
    out->reset(st == GP_OK ? raw : nullptr);
    return st;
}

/* Download a buffer through gp_buffer_to_host in `layout`. */
inline gp_status download(const gp_buffer *buf, const FieldRef &F, gp_layout layout, HostMat *out) {
    const uint64_t rows = gp_buffer_rows(buf), cols = gp_buffer_cols(buf);
    const uint32_t d = gp_buffer_ext_degree(buf);
    ApiData data = ApiData::zeros((size_t)(rows * cols * d), F.elem_size);
    gp_status st = gp_buffer_to_host(buf, layout, data.data(), data.size_bytes());
    if (st == GP_OK) *out = from_layout(data.values(), rows, cols, d, layout);
    return st;
}

inline gp_status create_buffer(gp_context *ctx, const FieldRef &F, uint32_t d, uint64_t rows,
                               uint64_t cols, BufPtr *out) {
    gp_buffer *raw = nullptr;
    gp_status st = gp_buffer_create(ctx, F.field, d, rows, cols, &raw);
    out->reset(st == GP_OK ? raw : nullptr);
    return st;
}

/* How the LDE input reaches the library. */
enum class LdePath { kHost, kBuffer };
inline const char *path_name(LdePath p) { return p == LdePath::kHost ? "host" : "buffer"; }

inline uint64_t lde_n(const gp_lde_options &o, const HostMat &in) { return o.n ? o.n : in.rows; }

/* Runs an LDE of `in` with `opts` through gp_lde_batch_host (input in
 * opts.input_layout) or gp_buffer_from_host (opts.input_layout) +
 * gp_lde_batch, then downloads the output in `out_layout`. */
inline gp_status run_lde(gp_context *ctx, const FieldRef &F, const HostMat &in,
                         const gp_lde_options &opts, LdePath path, gp_layout out_layout,
                         HostMat *out) {
    BufPtr output;
    gp_status st = create_buffer(ctx, F, in.d, lde_n(opts, in) * opts.blowup, in.cols, &output);
    if (st != GP_OK) return st;
    if (path == LdePath::kHost) {
        ApiData data(to_layout(in, opts.input_layout), F.elem_size);
        st = gp_lde_batch_host(ctx, F.field, in.d, data.data(), in.rows, in.cols, &opts,
                               output.get());
    } else {
        BufPtr input;
        st = upload(ctx, F, in, opts.input_layout, &input);
        if (st != GP_OK) return st;
        st = gp_lde_batch(ctx, input.get(), &opts, output.get());
    }
    if (st != GP_OK) return st;
    return download(output.get(), F, out_layout, out);
}

/* Naive reference for the same call. */
inline HostMat naive_lde_for(const FieldRef &F, const HostMat &in, const gp_lde_options &opts) {
    return naive_lde(F, in, lde_n(opts, in), opts.blowup, opts.shift ? opts.shift : F.generator,
                     opts.input_shift ? opts.input_shift : 1, opts.output_order, opts.root);
}

// NTT options with every field set.
inline gp_ntt_options ntt_opts(gp_ntt_direction dir, uint64_t shift, gp_order in_order, gp_order out_order) {
    gp_ntt_options o;
    gp_ntt_options_init(&o);
    o.direction = dir;
    o.shift = shift;
    o.input_order = in_order;
    o.output_order = out_order;
    return o;
}

// LDE options with every field set (the rest at their defaults).
inline gp_lde_options make_opts(uint64_t n, uint32_t blowup, uint64_t shift, uint64_t input_shift,
                                gp_order order, gp_layout in_layout = GP_LAYOUT_COL_MAJOR) {
    gp_lde_options o;
    gp_lde_options_init(&o);
    o.n = n;
    o.blowup = blowup;
    o.shift = shift;
    o.input_shift = input_shift;
    o.output_order = order;
    o.input_layout = in_layout;
    return o;
}

/* gp_commit_host of one host matrix (column-major) with the given LDE and
 * Merkle options (NULL: defaults), keeping nothing but the tree in *tree
 * (NULL when the call fails). */
inline gp_status commit_host_one(gp_context *ctx, const FieldRef &F, const HostMat &in, const gp_lde_options *lde,
                                 const gp_merkle_options *merkle, gp_merkle_tree **tree) {
    const ApiData data(in.v, F.elem_size);
    gp_commit_matrix m{};
    m.data = data.data();
    m.rows = in.rows;
    m.cols = in.cols;
    m.ext_degree = in.d;
    gp_commit_options co;
    gp_commit_options_init(&co);
    co.lde = lde;
    co.merkle = merkle;
    *tree = nullptr;
    gp_buffer *kept[1] = {nullptr};  // GP_KEEP_DEVICE's LDE, not wanted
    const gp_status st = gp_commit_host(ctx, F.field, &m, 1, &co, kept, tree);
    gp_buffer_destroy(kept[0]);
    return st;
}

// The context's memory statistics (a failed query fails the test).
inline gp_memory_stats stats_of(gp_context *ctx) {
    gp_memory_stats s;
    std::memset(&s, 0, sizeof s);
    s.struct_size = sizeof s;
    gp_status st = gp_context_memory_stats(ctx, &s);
    EXPECT_EQ(st, GP_OK) << gp_last_error();
    return s;
}


/* Merkle test helpers: tree ownership, random matrices by shape. */
struct TreeDeleter {
    void operator()(gp_merkle_tree *t) const { gp_merkle_tree_destroy(t); }
};
using TreePtr = std::unique_ptr<gp_merkle_tree, TreeDeleter>;

struct MatSpec {
    uint64_t rows, cols;
    uint32_t d;
};

inline std::vector<HostMat> make_mats(gp_field field, const std::vector<MatSpec> &specs, uint64_t seed) {
    const FieldRef &F = field_ref(field);
    Rng rng(seed);
    std::vector<HostMat> out;
    for (const MatSpec &s : specs) out.push_back(random_mat(F, s.rows, s.cols, s.d, rng));
    return out;
}

inline std::vector<const HostMat *> ptrs_of(const std::vector<HostMat> &mats) {
    std::vector<const HostMat *> out;
    for (const HostMat &m : mats) out.push_back(&m);
    return out;
}

inline std::string describe(const std::vector<MatSpec> &specs) {
    std::ostringstream os;
    os << "matrices";
    for (const MatSpec &s : specs) os << " " << s.rows << "x" << s.cols << "x" << s.d;
    return os.str();
}


/* Bytes across the ABI: elements as little-endian words of `esz` bytes, hex
 * dumps and a byte comparison that shows the first differing `unit`. */
using Bytes = std::vector<unsigned char>;
using Elems = std::vector<uint64_t>;

inline Bytes le_bytes(const Elems &v, uint32_t esz) {
    Bytes out(v.size() * esz);
    for (size_t j = 0; j < v.size(); ++j)
        for (uint32_t b = 0; b < esz; ++b) out[j * esz + b] = (unsigned char)(v[j] >> (8 * b));
    return out;
}

/* `count` elements (all remaining when -1) from byte offset `from`. */
inline Elems le_elems(const Bytes &b, uint32_t esz, size_t from = 0, size_t count = (size_t)-1) {
    if (count == (size_t)-1) count = (b.size() - from) / esz;
    Elems out(count);
    for (size_t j = 0; j < count; ++j) {
        uint64_t x = 0;
        for (uint32_t k = 0; k < esz; ++k) x |= (uint64_t)b[from + j * esz + k] << (8 * k);
        out[j] = x;
    }
    return out;
}

inline std::string hex_bytes(const Bytes &b, size_t from = 0, size_t n = (size_t)-1) {
    static const char *digits = "0123456789abcdef";
    std::string s;
    for (size_t i = from; i < b.size() && i - from < n; ++i) {
        s += digits[b[i] >> 4];
        s += digits[b[i] & 15];
    }
    return s;
}

inline ::testing::AssertionResult bytes_equal(const Bytes &got, const Bytes &want, size_t unit = 32) {
    if (got.size() != want.size())
        return ::testing::AssertionFailure() << got.size() << " bytes, expected " << want.size();
    if (got == want) return ::testing::AssertionSuccess();
    size_t first = 0, bad = 0;
    for (size_t i = 0; i < got.size(); ++i)
        if (got[i] != want[i] && bad++ == 0) first = i;
    const size_t start = first / unit * unit;
    return ::testing::AssertionFailure()
           << bad << " of " << want.size() << " bytes differ; first at byte " << first << " (unit "
           << first / unit << " of " << unit << " bytes): got " << hex_bytes(got, start, unit) << " expected "
           << hex_bytes(want, start, unit);
}

/* A tree's cap as gp_merkle_cap writes it (empty on failure, which fails the
 * test). */
inline Bytes merkle_cap_bytes(const gp_merkle_tree *t) {
    Bytes cap((size_t)gp_merkle_cap_size(t));
    EXPECT_EQ(gp_merkle_cap(t, cap.data(), cap.size()), GP_OK) << gp_last_error();
    return cap;
}

}  // namespace gpt

/* Declares `gpt::CtxPtr var` holding a context of `backend`; skips the test
 * when CUDA is requested but unavailable, fails it when creation fails. */
#define GP_CONTEXT_OR_SKIP(var, backend)                                               \
    gpt::CtxPtr var;                                                                   \
    do {                                                                               \
        if ((backend) == GP_BACKEND_CUDA && !gpt::cuda_available())                    \
            GTEST_SKIP() << "no usable CUDA device";                                   \
        gp_status gp_ctx_st_ = gpt::make_context((backend), &var);                     \
        ASSERT_EQ(gp_ctx_st_, GP_OK) << "gp_context_create: " << gp_last_error();      \
        ASSERT_NE(var.get(), nullptr);                                                 \
    } while (0)

/* Expects `call` to fail with `code` and leave a non-empty gp_last_error(). */
#define EXPECT_GP_ERR(call, code)                                                      \
    do {                                                                               \
        gp_status gp_st_ = (call);                                                     \
        std::string gp_msg_ = gp_last_error();                                         \
        EXPECT_EQ(gp_st_, (code)) << #call << " (message: \"" << gp_msg_ << "\")";    \
        EXPECT_FALSE(gp_msg_.empty()) << #call << " failed without a message";         \
    } while (0)

/* Expects `call` to fail with one of the listed codes (for cases where the
 * header does not pin down which of two codes applies). */
#define EXPECT_GP_ERR_ANY(call, ...)                                                   \
    do {                                                                               \
        gp_status gp_st_ = (call);                                                     \
        std::string gp_msg_ = gp_last_error();                                         \
        const std::initializer_list<gp_status> gp_ok_codes_ = {__VA_ARGS__};           \
        EXPECT_TRUE(std::find(gp_ok_codes_.begin(), gp_ok_codes_.end(), gp_st_) !=     \
                    gp_ok_codes_.end())                                                \
            << #call << " returned " << gpt_status_str((int)gp_st_)                    \
            << ", expected one of {" #__VA_ARGS__ "} (message: \"" << gp_msg_ << "\")"; \
        EXPECT_NE(gp_st_, GP_OK);                                                      \
        EXPECT_FALSE(gp_msg_.empty()) << #call << " failed without a message";         \
    } while (0)

#define ASSERT_GP_OK(call)                                                             \
    do {                                                                               \
        gp_status gp_st_ = (call);                                                     \
        ASSERT_EQ(gp_st_, GP_OK) << #call << ": " << gp_last_error();                  \
    } while (0)

#define EXPECT_GP_OK(call)                                                             \
    do {                                                                               \
        gp_status gp_st_ = (call);                                                     \
        EXPECT_EQ(gp_st_, GP_OK) << #call << ": " << gp_last_error();                  \
    } while (0)

namespace gpt {
// Base of the tests parameterised over backends: a context of the
// parameter's backend (CUDA cases skip when no device is usable).
class BackendTest : public ::testing::TestWithParam<gp_backend> {
   protected:
    void SetUp() override {
        GP_CONTEXT_OR_SKIP(c, GetParam());
        ctx_ = std::move(c);
        ASSERT_EQ(gp_context_backend(ctx_.get()), expected_backend(GetParam()));
    }
    gp_context *ctx() { return ctx_.get(); }
    CtxPtr ctx_;
};
}  // namespace gpt

#endif /* GP_TEST_UTIL_H */
