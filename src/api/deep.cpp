// SPDX-License-Identifier: MIT OR Apache-2.0
// C entry points: out-of-domain evaluation and DEEP composition.
#include "api/common.h"
#include "core/deep.h"

using namespace gp;

namespace {
OodShape checked_shape(gp_context *ctx, const gp_buffer *const *columns, uint32_t count,
                       const gp_ood_options *options, const void *points, uint32_t num_points) {
    std::vector<const Buffer *> bufs = checked_matrices(ctx, columns, count, "columns");
    return ood_shape(bufs, read_options(options, gp_ood_options_init, "gp_ood_options"), points, num_points);
}
}  // namespace

GP_EXPORT void gp_ood_options_init(gp_ood_options *o) {
    if (!o) return;
    std::memset(o, 0, sizeof(*o));
    o->struct_size = sizeof(*o);
    o->order = GP_ORDER_NATURAL;
}

GP_EXPORT gp_status gp_evaluate_ood(gp_context *ctx, const gp_buffer *const *columns, uint32_t count,
                                    const gp_ood_options *options, const void *points, uint32_t num_points, void *out,
                                    uint64_t size_bytes) {
    return guard("gp_evaluate_ood", [&] {
        ContextCall call(ctx, HandleKind::Context, "ctx");
        const OodShape s = checked_shape(ctx, columns, count, options, points, num_points);
        GP_REQUIRE_PTR(out);
        evaluate_ood(ctx_of(ctx), s, num_points, out, size_bytes);
    });
}

GP_EXPORT gp_status gp_deep_composition(gp_context *ctx, const gp_buffer *const *columns, uint32_t count,
                                        const gp_ood_options *options, const void *points, uint32_t num_points,
                                        const void *values, const void *alphas, gp_buffer *out) {
    return guard("gp_deep_composition", [&] {
        ContextCall call(ctx, HandleKind::Context, "ctx");
        const OodShape s = checked_shape(ctx, columns, count, options, points, num_points);
        GP_REQUIRE_PTR(values);
        GP_REQUIRE_PTR(alphas);
        GP_REQUIRE_PTR(out);
        check_buffer(ctx, out, "out");
        deep_composition(ctx_of(ctx), s, num_points, values, alphas, *buf_of(out));
    });
}
