// C entry points: buffers.
#include "api/common.h"

using namespace gp;

GP_EXPORT gp_status gp_buffer_create(gp_context *ctx, gp_field field, uint32_t ext_degree,
                                     uint64_t rows, uint64_t cols, gp_buffer **out) {
    return guard("gp_buffer_create", [&] {
        GP_REQUIRE_PTR(ctx);
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
        GP_REQUIRE_PTR(ctx);
        GP_REQUIRE_PTR(data);
        GP_REQUIRE_PTR(out);
        *out = nullptr;
        const FieldDesc &f = field_desc(field);
        check_ext_degree(f, ext_degree);
        check_layout(layout, "layout");
        *out = reinterpret_cast<gp_buffer *>(
            buffer_from_host(ctx_of(ctx), f, ext_degree, rows, cols, (gp_layout)raw(layout), data));
    });
}

GP_EXPORT gp_status gp_buffer_to_host(const gp_buffer *buf, gp_layout layout, void *data,
                                      uint64_t size_bytes) {
    return guard("gp_buffer_to_host", [&] {
        GP_REQUIRE_PTR(buf);
        GP_REQUIRE_PTR(data);
        auto *b = reinterpret_cast<const Buffer *>(buf);
        check_layout(layout, "layout");
        if (size_bytes < b->bytes)
            fail(GP_ERR_INVALID_ARGUMENT, "size_bytes = ", size_bytes,
                 " is smaller than the buffer (", b->bytes, " bytes)");
        b->ctx->backend->download(*b, data, layout);
    });
}


GP_EXPORT void gp_buffer_destroy(gp_buffer *buf) {
    if (buf) release_buffer(buf_of(buf));
}

GP_EXPORT uint64_t gp_buffer_rows(const gp_buffer *b) {
    return b ? reinterpret_cast<const Buffer *>(b)->rows : 0;
}
GP_EXPORT uint64_t gp_buffer_cols(const gp_buffer *b) {
    return b ? reinterpret_cast<const Buffer *>(b)->cols : 0;
}
GP_EXPORT gp_field gp_buffer_field(const gp_buffer *b) {
    return b ? (gp_field)(int)reinterpret_cast<const Buffer *>(b)->field->id : (gp_field)0;
}
GP_EXPORT uint32_t gp_buffer_ext_degree(const gp_buffer *b) {
    return b ? reinterpret_cast<const Buffer *>(b)->ext : 0;
}
GP_EXPORT uint64_t gp_buffer_size_bytes(const gp_buffer *b) {
    return b ? reinterpret_cast<const Buffer *>(b)->bytes : 0;
}
