// SPDX-License-Identifier: MIT OR Apache-2.0
// C entry points: cancellation, progress and log callbacks, counters.
#include "api/common.h"

using namespace gp;

GP_EXPORT gp_status gp_context_cancel(gp_context *ctx) {
    return guard("gp_context_cancel", [&] {
        GP_REQUIRE_PTR(ctx);
        // Not the call lock: the call to cancel holds it.
        const bool live = with_live(ctx, HandleKind::Context, false, [&] {
            ctx_of(ctx)->monitor->cancel();
            return true;
        });
        if (!live) fail(GP_ERR_INVALID_ARGUMENT, "`ctx` is not a live gp_context");
    });
}

GP_EXPORT gp_status gp_context_set_progress(gp_context *ctx, gp_progress_fn fn, void *user) {
    return guard("gp_context_set_progress", [&] {
        ContextCall call(ctx, HandleKind::Context, "ctx");
        call.ctx()->monitor->set_progress(fn, user);
    });
}

GP_EXPORT gp_status gp_context_set_log(gp_context *ctx, gp_log_fn fn, void *user) {
    return guard("gp_context_set_log", [&] {
        ContextCall call(ctx, HandleKind::Context, "ctx");
        call.ctx()->monitor->set_log(fn, user);
    });
}

GP_EXPORT gp_status gp_context_counters(const gp_context *ctx, gp_counters *counters) {
    return guard("gp_context_counters", [&] {
        ContextCall call(ctx, HandleKind::Context, "ctx");
        GP_REQUIRE_PTR(counters);
        check_struct_size(counters->struct_size, "counters");
        gp_counters c;
        std::memset(&c, 0, sizeof c);
        call.ctx()->monitor->counters(c);
        const uint32_t keep = counters->struct_size;
        std::memcpy(counters, &c, keep < sizeof c ? keep : sizeof c);
        counters->struct_size = keep;
    });
}

GP_EXPORT gp_status gp_context_call_stats(const gp_context *ctx, gp_call_stats *out, size_t capacity, size_t *count) {
    return guard("gp_context_call_stats", [&] {
        ContextCall call(ctx, HandleKind::Context, "ctx");
        GP_REQUIRE_PTR(count);
        if (capacity && !out) fail(GP_ERR_NULL_POINTER, "argument `out` is NULL but capacity = ", capacity);
        *count = call.ctx()->monitor->call_stats(out, capacity);
    });
}

GP_EXPORT gp_status gp_context_reset_counters(gp_context *ctx) {
    return guard("gp_context_reset_counters", [&] {
        ContextCall call(ctx, HandleKind::Context, "ctx");
        call.ctx()->monitor->reset();
    });
}
