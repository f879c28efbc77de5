// SPDX-License-Identifier: MIT OR Apache-2.0
// The randomized LDE (see lde_random.h). With n the trace length, s the
// input shift and r_c the randomizer of column c (m coefficients), the
// product P_c(X) = (X^n - s^n) r_c(X) has the coefficients -s^n r_c[j] at j
// and r_c[j] at n + j (added where they meet, m > n). Its evaluations on the
// output coset are a forward transform with the output's shift of P_c
// padded to n * blowup coefficients, in the output's row order, so the sum
// is element by element. The zerofier vanishes on the trace domain: the
// randomized LDE agrees with the trace there.
//
// Where the backend takes it (Backend::lde_adds) and m <= n, the product
// joins the LDE's own coefficients instead: on coset r of the output,
// h_r = g w_{nB}^r, every point x = h_r w_n^i has x^n = h_r^n, so
// P_c(x) = d_r r_c(x) with d_r = h_r^n - s^n, and r_c (degree < m <= n)
// adds d_r r_c[k] h_r^k to coefficient k of the coset's transform. Those
// B m words a base column are all the extra memory and work.
#include "core/lde_random.h"

#include <algorithm>
#include <vector>

#include "core/checks.h"
#include "math/field.h"

namespace gp {

namespace {

uint64_t mul_mod(uint64_t a, uint64_t b, uint64_t p) { return (uint64_t)((__uint128_t)a * b % p); }
uint64_t sub_mod(uint64_t a, uint64_t b, uint64_t p) { return a >= b ? a - b : a + (p - b); }
uint64_t add_mod(uint64_t a, uint64_t b, uint64_t p) { return sub_mod(a, p - b, p); }  // a, b < p
uint64_t pow_mod(uint64_t a, uint64_t e, uint64_t p) {
    uint64_t r = 1;
    for (; e; e >>= 1, a = mul_mod(a, a, p))
        if (e & 1) r = mul_mod(r, a, p);
    return r;
}

}  // namespace

void check_randomizers(const Context &c, const LdeArgs &a, const void *coeffs, uint64_t count) {
    if (count == 0) fail(GP_ERR_INVALID_ARGUMENT, "options->randomizers is set but options->randomizer_count = 0");
    require_ptr(coeffs != nullptr, "options->randomizers");
    const uint64_t n = 1ull << a.log_n, rows = n << a.log_blowup;
    if (count > rows - n)
        fail(GP_ERR_INVALID_ARGUMENT, "options->randomizer_count = ", count, ": the randomized polynomial has degree ",
             "below n + randomizer_count, which must not exceed the ", rows, " output rows (at most ", rows - n,
             " coefficients at n = ", n, ")");
    if (c.backend->device_count() > 1 && !lde_adds_randomizers(*c.backend, a, count))
        fail(GP_ERR_UNSUPPORTED, "options->randomizer_count = ", count, ": a context of several devices adds ",
             "randomizers inside its LDE only, for at most n = ", 1ull << a.log_n,
             " coefficients with blowup x count <= max(n, n x blowup / 8)");
    const uint64_t elems = checked_mul(checked_mul(count, a.cols, "randomizer_count * cols"), a.ext,
                                       "randomizer elements");
    const std::vector<uint64_t> w = words_in(*a.field, coeffs, elems);
    for (uint64_t i = 0; i < elems; ++i)
        if (w[i] >= a.field->modulus)
            fail(GP_ERR_NON_CANONICAL, "options->randomizers[", i, "] is not a canonical ", a.field->name, " element");
}

bool lde_adds_randomizers(const Backend &be, const LdeArgs &a, uint64_t count) {
    const uint64_t n = 1ull << a.log_n;
    // The addend (B m words a column, made on the host) stays small beside
    // the output (n B words) and the second transform's n + m coefficients.
    if (!be.lde_adds() || count > n || (count << a.log_blowup) > std::max(n, (n << a.log_blowup) / 8)) return false;
    // B m elements a base column (at most n by the rule above: no overflow).
    const uint64_t col = (count << a.log_blowup) * a.field->elem_size;
    const uint64_t cols = a.cols * a.ext;
    return cols <= be.max_rand_add_bytes() / col;
}

std::vector<unsigned char> randomizer_addend(const LdeArgs &a, const void *coeffs, uint64_t count) {
    const FieldDesc &f = *a.field;
    const uint64_t n = 1ull << a.log_n, B = 1ull << a.log_blowup, E = a.ext;
    const uint64_t base_cols = a.cols * E;
    const std::vector<uint64_t> r = words_in(f, coeffs, checked_mul(count, base_cols, "randomizer elements"));
    std::vector<uint64_t> w(checked_mul(checked_mul(base_cols, B, "randomizer addend"), count, "randomizer addend"));
    dispatch_field(f.id, [&](auto F) {
        using Fd = decltype(F);
        using T = typename Fd::T;
        const T w_nb = two_adic_generator<Fd>(a.log_n + a.log_blowup);
        const T s_n = fpow<Fd>((T)a.input_shift, n);
        T h = (T)a.shift;  // h_r = g w_nB^r
        for (uint64_t cr = 0; cr < B; ++cr, h = Fd::mul(h, w_nb)) {
            const T d = Fd::sub(fpow<Fd>(h, n), s_n);
            T hk = d;  // d_r h_r^k
            for (uint64_t k = 0; k < count; ++k, hk = Fd::mul(hk, h))
                for (uint64_t b = 0; b < base_cols; ++b) {
                    const uint64_t col = b / E, e = b % E;
                    w[(b * B + cr) * count + k] = (uint64_t)Fd::mul(hk, (T)r[(col * count + k) * E + e]);
                }
        }
    });
    std::vector<unsigned char> bytes(w.size() * f.elem_size);
    words_out(f, w, bytes.data());
    return bytes;
}

void add_randomizers(Context *c, const LdeArgs &a, const void *coeffs, uint64_t count) {
    const FieldDesc &f = *a.field;
    const uint64_t p = f.modulus, n = 1ull << a.log_n, rows = n << a.log_blowup, E = a.ext, es = f.elem_size;
    const uint64_t base_cols = a.cols * E;
    const uint64_t s_n = pow_mod(a.input_shift, n, p);
    const std::vector<uint64_t> r = words_in(f, coeffs, count * base_cols);
    // Coefficient `row` (< n + count) of the product for base column b
    // (coordinate b % E of column b / E).
    auto coef = [&](uint64_t b, uint64_t row) {
        const uint64_t col = b / E, k = b % E;
        uint64_t v = 0;
        if (row < count) v = sub_mod(v, mul_mod(s_n, r[(col * count + row) * E + k], p), p);
        if (row >= n && row - n < count) v = add_mod(v, r[(col * count + row - n) * E + k], p);
        return v;
    };
    Backend &be = *c->backend;
    TempBuffers tmp;
    Buffer *evals = tmp.make(c, f, (uint32_t)E, rows, a.cols);  // zero-filled
    if (be.kind() != GP_BACKEND_REMOTE) {
        // Only the nonzero coefficients cross: rows [0, m) and [n, n + m)
        // of every base column (one run [0, n + m) when they meet), placed
        // by strided device copies into the zeroed buffer.
        const bool apart = count <= n;
        const uint64_t run = apart ? count : n + count;
        const std::vector<uint64_t> at = apart ? std::vector<uint64_t>{0, n} : std::vector<uint64_t>{0};
        std::vector<uint64_t> w(at.size() * base_cols * run);
        for (size_t s = 0; s < at.size(); ++s)
            for (uint64_t b = 0; b < base_cols; ++b)
                for (uint64_t j = 0; j < run; ++j) w[(s * base_cols + b) * run + j] = coef(b, at[s] + j);
        std::vector<unsigned char> bytes(w.size() * es);
        words_out(f, w, bytes.data());
        Buffer *runs = tmp.adopt(buffer_from_host(c, f, 1, run, at.size() * base_cols, GP_LAYOUT_COL_MAJOR,
                                                  bytes.data(), "options->randomizers"));
        for (size_t s = 0; s < at.size(); ++s)
            be.copy_peer(static_cast<const char *>(runs->data) + s * base_cols * run * es, run * es,
                         static_cast<char *>(evals->data) + at[s] * es, rows * es, run * es, base_cols);
    } else {
        // A session on a server (no strided device copies): the product's
        // n + m coefficient rows cross whole.
        const uint64_t prod_rows = n + count;
        std::vector<uint64_t> w(checked_mul(prod_rows, base_cols, "randomized coefficients"));
        for (uint64_t col = 0; col < a.cols; ++col)  // gp_buffer_from_host's column-major, coordinates interleaved
            for (uint64_t j = 0; j < prod_rows; ++j)
                for (uint64_t k = 0; k < E; ++k) w[(col * prod_rows + j) * E + k] = coef(col * E + k, j);
        std::vector<unsigned char> bytes(w.size() * es);
        words_out(f, w, bytes.data());
        Buffer *prod = tmp.adopt(buffer_from_host(c, f, (uint32_t)E, prod_rows, a.cols, GP_LAYOUT_COL_MAJOR,
                                                  bytes.data(), "options->randomizers"));
        for (uint64_t col = 0; col < a.cols; ++col) be.copy_rows(*prod, col, 0, 1, prod_rows, *evals, col);
    }
    be.ntt(*evals, NttArgs{GP_NTT_FORWARD, a.shift, GP_ORDER_NATURAL, a.order});
    be.add_into(f, a.out->data, evals->data, rows * base_cols);
}

}  // namespace gp
