// SPDX-License-Identifier: MIT OR Apache-2.0
// C entry points: batched NTTs and coset LDEs.
#include "api/common.h"
#include "core/lde_random.h"
#include "core/lde_coeffs.h"
#include "core/lde_root.h"

using namespace gp;

GP_EXPORT void gp_ntt_options_init(gp_ntt_options *o) {
    if (!o) return;
    std::memset(o, 0, sizeof(*o));
    o->struct_size = sizeof(*o);
    o->direction = GP_NTT_FORWARD;
}


GP_EXPORT gp_status gp_ntt_batch(gp_context *ctx, gp_buffer *buf, const gp_ntt_options *options) {
    return guard("gp_ntt_batch", [&] {
        ContextCall call(ctx, HandleKind::Context, "ctx");
        GP_REQUIRE_PTR(buf);
        check_buffer(ctx, buf, "buf");
        gp_ntt_options o = read_options(options, gp_ntt_options_init, "gp_ntt_options");
        auto *b = reinterpret_cast<Buffer *>(buf);
        if (b->cols == 0) fail(GP_ERR_INVALID_ARGUMENT, "buf has 0 columns: nothing to transform");
        int dir = raw(o.direction);
        if (dir != GP_NTT_FORWARD && dir != GP_NTT_INVERSE)
            fail(GP_ERR_INVALID_ARGUMENT, "options->direction = ", dir, " is not a gp_ntt_direction");
        check_order(o.input_order, "options->input_order");
        check_order(o.output_order, "options->output_order");
        check_log_size(*b->field, b->rows, "rows");
        check_shift(*b->field, o.shift, "options->shift");
        NttArgs a{o.direction, o.shift ? o.shift : 1, o.input_order, o.output_order};
        const uint64_t power = root_power(*b->field, o.root, "options->root");
        if (power == 1) return b->ctx->backend->ntt(*b, a);
        if (o.input_order != GP_ORDER_NATURAL || o.output_order != GP_ORDER_NATURAL)
            fail(GP_ERR_UNSUPPORTED, "options->root: another root than the library's takes natural orders only");
        check_root_backend(*b->ctx->backend, "options->root");
        ntt_with_root(b->ctx, *b, a, power);
    });
}

GP_EXPORT void gp_lde_options_init(gp_lde_options *o) {
    if (!o) return;
    std::memset(o, 0, sizeof(*o));
    o->struct_size = sizeof(*o);
    o->blowup = 2;
    o->output_order = GP_ORDER_NATURAL;
    o->input_layout = GP_LAYOUT_COL_MAJOR;
}

namespace gp {
LdeArgs lde_args(const FieldDesc &f, uint32_t ext, uint64_t rows, uint64_t cols, const gp_lde_options &o) {
    if (rows == 0) fail(GP_ERR_INVALID_ARGUMENT, "the input has 0 rows");
    if (cols == 0) fail(GP_ERR_INVALID_ARGUMENT, "the input has 0 columns");
    uint64_t n = o.n ? o.n : rows;
    uint32_t log_n = check_log_size(f, n, o.n ? "options->n" : "input rows (options->n = 0)");
    if (rows > n)
        fail(GP_ERR_SHAPE_MISMATCH, "the input has ", rows, " rows, more than options->n = ", n);
    if (!is_pow2(o.blowup) || o.blowup > 32)
        fail(GP_ERR_INVALID_ARGUMENT, "options->blowup = ", o.blowup,
             " is not a power of two in [1, 32]");
    uint32_t log_b = log2_exact(o.blowup);
    if (log_n + log_b > f.two_adicity)
        fail(GP_ERR_TWO_ADICITY, "n * blowup = 2^", log_n + log_b, " exceeds the two-adicity of ",
             f.name, " (2^", f.two_adicity, ")");
    check_shift(f, o.shift, "options->shift");
    check_shift(f, o.input_shift, "options->input_shift");
    check_order(o.output_order, "options->output_order");
    check_layout(o.input_layout, "options->input_layout");
    LdeArgs a{};
    a.field = &f;
    a.ext = ext;
    a.rows_in = rows;
    a.cols = cols;
    a.log_n = log_n;
    a.log_blowup = log_b;
    a.shift = o.shift ? o.shift : f.generator;
    a.input_shift = o.input_shift ? o.input_shift : 1;
    a.order = o.output_order;
    a.in_layout = o.input_layout;
    a.root_power = root_power(f, o.root, "options->root");
    const int input = raw(o.input);
    if (input != GP_LDE_INPUT_EVALUATIONS && input != GP_LDE_INPUT_COEFFICIENTS)
        fail(GP_ERR_INVALID_ARGUMENT, "options->input = ", input, " is no gp_lde_input");
    a.coefficients = input == GP_LDE_INPUT_COEFFICIENTS;
    if (a.coefficients) {
        if (o.input_shift > 1)
            fail(GP_ERR_INVALID_ARGUMENT, "options->input_shift = ", o.input_shift,
                 ": coefficients have no input domain (GP_LDE_INPUT_COEFFICIENTS takes 0 or 1)");
        if (o.randomizers || o.randomizer_count)
            fail(GP_ERR_UNSUPPORTED, "options->input = GP_LDE_INPUT_COEFFICIENTS does not randomize LDEs");
        if (o.root)
            fail(GP_ERR_UNSUPPORTED, "options->input = GP_LDE_INPUT_COEFFICIENTS takes the library's root only");
    }
    if (a.root_power != 1) {
        if (o.output_order != GP_ORDER_NATURAL)
            fail(GP_ERR_UNSUPPORTED, "options->root: another root than the library's takes the natural output "
                                     "order only");
        if (o.randomizers || o.randomizer_count)
            fail(GP_ERR_UNSUPPORTED, "options->root: another root than the library's does not randomize LDEs");
    }
    return a;
}
}  // namespace gp

// Shared validation of both LDE entry points; fills everything but the input.
static LdeArgs prepare_lde(gp_context *ctx, const FieldDesc &f, uint32_t ext, uint64_t rows,
                           uint64_t cols, const gp_lde_options *options, gp_buffer *output,
                           gp_lde_options &o) {
    o = read_options(options, gp_lde_options_init, "gp_lde_options");
    LdeArgs a = lde_args(f, ext, rows, cols, o);
    GP_REQUIRE_PTR(output);
    a.out = checked_lde_output(ctx, a, output, "output");
    if (o.randomizers || o.randomizer_count) check_randomizers(*ctx_of(ctx), a, o.randomizers, o.randomizer_count);
    return a;
}

// The LDE, randomized when asked.
static void run_lde(gp_context *ctx, const LdeArgs &a, const gp_lde_options &o) {
    Context *c = ctx_of(ctx);
    if (a.coefficients) return lde_from_coefficients(c, a);
    if (a.root_power != 1) {
        check_root_backend(*c->backend, "options->root");
        return lde_with_root(c, a, a.root_power);
    }
    if (o.randomizers && lde_adds_randomizers(*c->backend, a, o.randomizer_count)) {
        const std::vector<unsigned char> addend = randomizer_addend(a, o.randomizers, o.randomizer_count);
        LdeArgs r = a;
        r.rand_add = addend.data();
        r.rand_m = o.randomizer_count;
        return c->backend->lde(r);
    }
    c->backend->lde(a);
    if (o.randomizers) add_randomizers(c, a, o.randomizers, o.randomizer_count);
}

Buffer *gp::checked_lde_output(gp_context *ctx, const LdeArgs &a, gp_buffer *output, const char *arg) {
    check_buffer(ctx, output, arg);
    auto *out = reinterpret_cast<Buffer *>(output);
    const FieldDesc &f = *a.field;
    if (out->field != &f || out->ext != a.ext)
        fail(GP_ERR_FIELD_MISMATCH, arg, " is ", out->field->name, "^", out->ext, " but the input is ", f.name, "^",
             a.ext);
    uint64_t out_rows = checked_mul(1ull << a.log_n, 1ull << a.log_blowup, "n * blowup");
    if (out->rows != out_rows || out->cols != a.cols)
        fail(GP_ERR_SHAPE_MISMATCH, arg, " is ", out->rows, " x ", out->cols, ", expected ", out_rows, " x ",
             a.cols, " (n * blowup rows, input columns)");
    return out;
}

GP_EXPORT gp_status gp_lde_batch(gp_context *ctx, const gp_buffer *input,
                                 const gp_lde_options *options, gp_buffer *output) {
    return guard("gp_lde_batch", [&] {
        ContextCall call(ctx, HandleKind::Context, "ctx");
        GP_REQUIRE_PTR(input);
        check_buffer(ctx, input, "input");
        auto *in = reinterpret_cast<const Buffer *>(input);
        gp_lde_options o;
        LdeArgs a = prepare_lde(ctx, *in->field, in->ext, in->rows, in->cols, options, output, o);
        if (input == output) fail(GP_ERR_INVALID_ARGUMENT, "input and output are the same buffer");
        a.in_buf = in;
        run_lde(ctx, a, o);
    });
}

GP_EXPORT gp_status gp_lde_batch_host(gp_context *ctx, gp_field field, uint32_t ext_degree,
                                      const void *data, uint64_t rows, uint64_t cols,
                                      const gp_lde_options *options, gp_buffer *output) {
    return guard("gp_lde_batch_host", [&] {
        ContextCall call(ctx, HandleKind::Context, "ctx");
        GP_REQUIRE_PTR(data);
        const FieldDesc &f = field_desc(field);
        check_ext_degree(f, ext_degree);
        gp_lde_options o;
        LdeArgs a = prepare_lde(ctx, f, ext_degree, rows, cols, options, output, o);
        checked_mul(checked_mul(rows, cols, "rows * cols"), ext_degree * f.elem_size,
                    "input bytes");
        a.in_host = data;
        run_lde(ctx, a, o);
    });
}
