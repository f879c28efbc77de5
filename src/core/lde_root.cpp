// SPDX-License-Identifier: MIT OR Apache-2.0
// Transforms over another root of unity (see lde_root.h). With r = w^p, the
// domain of n rows under r has row i at s * w_n^(p i mod n): the library's
// row p i mod n. Gathering row (p i mod n) into row i turns a library
// evaluation into the root's; gathering row (p^-1 i mod n) turns the root's
// back into the library's.
#include "core/lde_root.h"

#include "core/checks.h"
#include "math/field.h"

namespace gp {

namespace {

// p^-1 mod 2^64 for odd p (Newton's iteration doubles the correct bits),
// hence mod every power of two: gather_rows reduces the product mod rows.
uint64_t inverse_odd(uint64_t p) {
    uint64_t x = p;  // correct to 3 bits for odd p
    for (int i = 0; i < 5; ++i) x *= 2 - p * x;
    return x;
}

// Every column of src into dst (same shape).
void copy_columns(Backend &be, const Buffer &src, uint64_t rows, Buffer &dst) {
    for (uint64_t col = 0; col < src.cols; ++col) be.copy_rows(src, col, 0, 1, rows, dst, col);
}

}  // namespace

uint64_t root_power(const FieldDesc &f, uint64_t root, const char *arg) {
    if (root == 0) return 1;
    if (root >= f.modulus)
        fail(GP_ERR_INVALID_ARGUMENT, arg, " = ", root, " is not a canonical ", f.name, " element");
    return dispatch_field(f.id, [&](auto F) -> uint64_t {
        using Fd = decltype(F);
        using T = typename Fd::T;
        const uint32_t k = Fd::TWO_ADICITY;
        const T w = two_adic_generator<Fd>(k), r = (T)root;
        // Order exactly 2^k: r^(2^(k-1)) = -1.
        if (fpow<Fd>(r, 1ull << (k - 1)) != (T)(Fd::P - 1))
            fail(GP_ERR_INVALID_ARGUMENT, arg, " = ", root, " is not a root of unity of order 2^", k, " in ", f.name,
                 " (the order of the field's two-adic subgroup)");
        // Pohlig-Hellman in the cyclic group of order 2^k: bit j of the
        // logarithm is whether (r w^-x)^(2^(k-1-j)) is -1.
        const T w_inv = finv<Fd>(w);
        uint64_t x = 0;
        for (uint32_t j = 0; j < k; ++j) {
            const T h = Fd::mul(r, fpow<Fd>(w_inv, x));
            if (fpow<Fd>(h, 1ull << (k - 1 - j)) != (T)1) x |= 1ull << j;
        }
        return x;
    });
}

void check_root_backend(const Backend &be, const char *arg) {
    if (be.device_count() > 1)
        fail(GP_ERR_UNSUPPORTED, arg, ": a context of several devices transforms over the library's root only");
    if (be.kind() == GP_BACKEND_REMOTE)
        fail(GP_ERR_UNSUPPORTED, arg, ": a gpuprover-server session transforms over the library's root only");
}

void lde_with_root(Context *c, const LdeArgs &a, uint64_t power) {
    Backend &be = *c->backend;
    const FieldDesc &f = *a.field;
    const uint64_t n = 1ull << a.log_n;
    TempBuffers tmp;
    // The input as a buffer of n rows in the root's order (zero beyond
    // rows_in), then in the library's.
    const Buffer *in = a.in_buf;
    if (a.in_host)
        in = tmp.adopt(buffer_from_host(c, f, a.ext, a.rows_in, a.cols, a.in_layout, a.in_host, "input"));
    if (in->rows != n) {
        Buffer *padded = tmp.make(c, f, a.ext, n, a.cols);
        copy_columns(be, *in, a.rows_in, *padded);
        in = padded;
    }
    Buffer *lib_in = tmp.make(c, f, a.ext, n, a.cols);
    be.gather_rows(*in, inverse_odd(power), *lib_in);
    LdeArgs b = a;
    b.in_buf = lib_in;
    b.in_host = nullptr;
    b.rows_in = n;
    b.in_layout = GP_LAYOUT_COL_MAJOR;
    b.out = tmp.make(c, f, a.ext, a.out->rows, a.cols);
    be.lde(b);
    be.gather_rows(*b.out, power, *a.out);
}

void ntt_with_root(Context *c, Buffer &buf, const NttArgs &a, uint64_t power) {
    Backend &be = *c->backend;
    TempBuffers tmp;
    Buffer *copy = tmp.make(c, *buf.field, buf.ext, buf.rows, buf.cols);
    const bool forward = a.direction == GP_NTT_FORWARD;
    if (forward) be.ntt(buf, a);  // the evaluations come out: gather them
    copy_columns(be, buf, buf.rows, *copy);
    be.gather_rows(*copy, forward ? power : inverse_odd(power), buf);
    if (!forward) be.ntt(buf, a);  // the evaluations went in, gathered
}

}  // namespace gp
