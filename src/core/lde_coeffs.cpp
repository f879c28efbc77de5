// SPDX-License-Identifier: MIT OR Apache-2.0
// The LDE of coefficients (see lde_coeffs.h). Padding n coefficients by the
// blowup and evaluating them on the output coset is one forward transform of
// n * blowup rows with natural input: the output buffer itself holds the
// padded coefficients (copy_rows zero-fills the rows it does not copy), so
// no buffer of the padded size is allocated besides the caller's output. A
// backend that encodes on its own (Backend::lde_takes_coefficients: CUDA's
// B n-point transforms, cuda_ntt.cu encode_impl) gets the device input.
#include "core/lde_coeffs.h"

namespace gp {

void lde_from_coefficients(Context *c, const LdeArgs &a) {
    Backend &be = *c->backend;
    TempBuffers tmp;
    const Buffer *in = a.in_buf;
    if (!in)
        in = tmp.adopt(buffer_from_host(c, *a.field, a.ext, a.rows_in, a.cols, a.in_layout, a.in_host, "data"));
    if (be.lde_takes_coefficients()) {
        LdeArgs b = a;
        b.in_buf = in;
        b.in_host = nullptr;
        b.in_layout = GP_LAYOUT_COL_MAJOR;
        return be.lde(b);
    }
    for (uint64_t col = 0; col < a.cols; ++col) be.copy_rows(*in, col, 0, 1, a.rows_in, *a.out, col);
    be.ntt(*a.out, NttArgs{GP_NTT_FORWARD, a.shift, GP_ORDER_NATURAL, a.order});
}

}  // namespace gp
