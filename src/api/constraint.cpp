// SPDX-License-Identifier: MIT OR Apache-2.0
// C entry point: the constraint commitment.
#include "api/common.h"
#include "core/constraint.h"

using namespace gp;

GP_EXPORT void gp_constraint_options_init(gp_constraint_options *o) {
    if (!o) return;
    std::memset(o, 0, sizeof(*o));
    o->struct_size = sizeof(*o);
    o->split = GP_COMPOSITION_PLONKY3;
    o->segments = 2;
    o->blowup = 2;
    o->output_order = GP_ORDER_BIT_REVERSED;
    gp_merkle_options_init(&o->merkle);
}

GP_EXPORT gp_status gp_constraint_commit(gp_context *ctx, const gp_buffer *evaluations,
                                         const gp_constraint_options *options, gp_buffer **segments,
                                         gp_merkle_tree **tree) {
    return guard("gp_constraint_commit", [&] {
        ContextCall call(ctx, HandleKind::Context, "ctx");
        GP_REQUIRE_PTR(segments);
        GP_REQUIRE_PTR(tree);
        *segments = nullptr;
        *tree = nullptr;
        GP_REQUIRE_PTR(evaluations);
        check_buffer(ctx, evaluations, "evaluations");
        const gp_constraint_options o = read_options(options, gp_constraint_options_init, "gp_constraint_options");
        Buffer *seg = nullptr;
        MerkleTree *t = nullptr;
        constraint_commit(ctx_of(ctx), *buf_of(evaluations), o, seg, t);
        *segments = reinterpret_cast<gp_buffer *>(seg);
        *tree = reinterpret_cast<gp_merkle_tree *>(t);
    });
}
