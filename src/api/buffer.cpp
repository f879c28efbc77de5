// SPDX-License-Identifier: MIT OR Apache-2.0
// C entry points: buffers.
#include "api/common.h"

using namespace gp;

GP_EXPORT gp_status gp_buffer_create(gp_context *ctx, gp_field field, uint32_t ext_degree,
                                     uint64_t rows, uint64_t cols, gp_buffer **out) {
    return guard("gp_buffer_create", [&] {
        ContextCall call(ctx, HandleKind::Context, "ctx");
        GP_REQUIRE_PTR(out);
        *out = nullptr;
        const FieldDesc &f = field_desc(field);
        check_ext_degree(f, ext_degree);
        *out = reinterpret_cast<gp_buffer *>(new_buffer(ctx_of(ctx), f, ext_degree, rows, cols));
    });
}

GP_EXPORT gp_status gp_buffer_from_host(gp_context *ctx, gp_field field, uint32_t ext_degree,
                                        uint64_t rows, uint64_t cols, gp_layout layout,
                                        const void *data, gp_buffer **out) {
    return guard("gp_buffer_from_host", [&] {
        ContextCall call(ctx, HandleKind::Context, "ctx");
        if (cols != 0) GP_REQUIRE_PTR(data);
        GP_REQUIRE_PTR(out);
        *out = nullptr;
        const FieldDesc &f = field_desc(field);
        check_ext_degree(f, ext_degree);
        check_layout(layout, "layout");
        *out = reinterpret_cast<gp_buffer *>(
            buffer_from_host(ctx_of(ctx), f, ext_degree, rows, cols, (gp_layout)raw(layout), data, "data"));
    });
}

GP_EXPORT gp_status gp_buffer_to_host(const gp_buffer *buf, gp_layout layout, void *data,
                                      uint64_t size_bytes) {
    return guard("gp_buffer_to_host", [&] {
        ContextCall call(buf, HandleKind::Buffer, "buf");
        const Buffer *b = buf_of(buf);
        if (b->bytes) GP_REQUIRE_PTR(data);
        check_layout(layout, "layout");
        if (size_bytes < b->bytes)
            fail(GP_ERR_INVALID_ARGUMENT, "size_bytes = ", size_bytes,
                 " is smaller than the buffer (", b->bytes, " bytes)");
        if (b->bytes) b->ctx->backend->download(*b, data, (gp_layout)raw(layout));
    });
}


GP_EXPORT void gp_buffer_destroy(gp_buffer *buf) {
    if (!buf || !is_live(buf, HandleKind::Buffer)) return;
    quietly("gp_buffer_destroy", [&] {
        ContextCall call(buf, HandleKind::Buffer, "buf");
        call.refuse_if_nested("gp_buffer_destroy");
        release_buffer(buf_of(buf));
    });
}

// Fixed fields of a live buffer; 0 for NULL or a dead handle.
GP_EXPORT uint64_t gp_buffer_rows(const gp_buffer *b) {
    return with_live(b, HandleKind::Buffer, (uint64_t)0, [&] { return buf_of(b)->rows; });
}
GP_EXPORT uint64_t gp_buffer_cols(const gp_buffer *b) {
    return with_live(b, HandleKind::Buffer, (uint64_t)0, [&] { return buf_of(b)->cols; });
}
GP_EXPORT gp_field gp_buffer_field(const gp_buffer *b) {
    return with_live(b, HandleKind::Buffer, (gp_field)0, [&] { return (gp_field)(int)buf_of(b)->field->id; });
}
GP_EXPORT uint32_t gp_buffer_ext_degree(const gp_buffer *b) {
    return with_live(b, HandleKind::Buffer, (uint32_t)0, [&] { return buf_of(b)->ext; });
}
GP_EXPORT uint64_t gp_buffer_size_bytes(const gp_buffer *b) {
    return with_live(b, HandleKind::Buffer, (uint64_t)0, [&] { return buf_of(b)->bytes; });
}
