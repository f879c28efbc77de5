// SPDX-License-Identifier: MIT OR Apache-2.0
// C entry points: buffers over the caller's memory, their addresses, the
// caller's CUDA stream, and DLPack export and import.
#include <dlpack/dlpack.h>

#include "api/common.h"

using namespace gp;

namespace {

// A buffer spread over several devices has no one address.
void require_one_device(const Buffer &b, const char *arg) {
    if (b.ctx->backend->kind() == GP_BACKEND_REMOTE)
        fail(GP_ERR_UNSUPPORTED, arg, " lives on a gpuprover-server (GP_BACKEND_REMOTE) and has no address in this "
             "process; copy it to the host");
    if (!b.shards.empty())
        fail(GP_ERR_UNSUPPORTED, arg, " is spread over ", b.shards.size(),
             " devices (by column blocks) and has no single address; copy it to the host, or create it with one "
             "column to keep it on the first device");
}

}  // namespace

GP_EXPORT gp_status gp_buffer_wrap(gp_context *ctx, gp_field field, uint32_t ext_degree, uint64_t rows,
                                   uint64_t cols, void *data, gp_buffer **out) {
    return guard("gp_buffer_wrap", [&] {
        ContextCall call(ctx, HandleKind::Context, "ctx");
        GP_REQUIRE_PTR(out);
        *out = nullptr;
        GP_REQUIRE_PTR(data);
        const FieldDesc &f = field_desc(field);
        check_ext_degree(f, ext_degree);
        *out = reinterpret_cast<gp_buffer *>(wrap_buffer(call.ctx(), f, ext_degree, rows, cols, data, nullptr));
    });
}

GP_EXPORT gp_status gp_buffer_data(const gp_buffer *buf, void **data) {
    return guard("gp_buffer_data", [&] {
        ContextCall call(buf, HandleKind::Buffer, "buf");
        GP_REQUIRE_PTR(data);
        *data = nullptr;
        require_one_device(*buf_of(buf), "buf");
        *data = buf_of(buf)->data;
    });
}

GP_EXPORT gp_status gp_host_alloc(gp_context *ctx, size_t bytes, void **out) {
    return guard("gp_host_alloc", [&] {
        ContextCall call(ctx, HandleKind::Context, "ctx");
        GP_REQUIRE_PTR(out);
        *out = nullptr;
        if (bytes == 0) fail(GP_ERR_INVALID_ARGUMENT, "bytes = 0");
        Context *c = call.ctx();
        void *p = c->backend->transfer_alloc(bytes);
        try {
            c->host_allocs[p] = bytes;
        } catch (...) {
            c->backend->transfer_free(p);
            throw;
        }
        *out = p;
    });
}

GP_EXPORT gp_status gp_host_free(gp_context *ctx, void *p) {
    return guard("gp_host_free", [&] {
        ContextCall call(ctx, HandleKind::Context, "ctx");
        if (!p) return;
        Context *c = call.ctx();
        auto it = c->host_allocs.find(p);
        if (it == c->host_allocs.end())
            fail(GP_ERR_INVALID_ARGUMENT, "p = ", p, " is not memory from gp_host_alloc on this context");
        c->host_allocs.erase(it);
        c->backend->transfer_free(p);
    });
}

GP_EXPORT gp_status gp_context_set_stream(gp_context *ctx, void *stream) {
    return guard("gp_context_set_stream", [&] {
        ContextCall call(ctx, HandleKind::Context, "ctx");
        call.ctx()->backend->set_stream(stream);
    });
}

namespace {

// A DLPack view of a buffer: the managed tensor and the arrays it points to.
struct Export {
    DLManagedTensor t;
    int64_t shape[2], strides[2];
};

void delete_export(DLManagedTensor *self) { delete static_cast<Export *>(self->manager_ctx); }

}  // namespace

GP_EXPORT gp_status gp_buffer_to_dlpack(gp_buffer *buf, DLManagedTensor **out) {
    return guard("gp_buffer_to_dlpack", [&] {
        ContextCall call(buf, HandleKind::Buffer, "buf");
        GP_REQUIRE_PTR(out);
        *out = nullptr;
        const Buffer &b = *buf_of(buf);
        if (b.cols == 0) fail(GP_ERR_INVALID_ARGUMENT, "buf has 0 columns (no memory to export)");
        require_one_device(b, "buf");
        auto e = std::make_unique<Export>();
        e->shape[0] = (int64_t)b.base_cols();
        e->shape[1] = (int64_t)b.rows;
        e->strides[0] = (int64_t)b.rows;
        e->strides[1] = 1;
        DLTensor &x = e->t.dl_tensor;
        x.data = b.data;
        const int dev = call.ctx()->backend->device_ordinal();
        x.device = DLDevice{dev < 0 ? kDLCPU : kDLCUDA, dev < 0 ? 0 : dev};
        x.ndim = 2;
        x.dtype = DLDataType{kDLUInt, (uint8_t)(8 * b.field->elem_size), 1};
        x.shape = e->shape;
        x.strides = e->strides;
        x.byte_offset = 0;
        e->t.manager_ctx = e.get();
        e->t.deleter = delete_export;
        *out = &e.release()->t;
    });
}

GP_EXPORT gp_status gp_buffer_from_dlpack(gp_context *ctx, gp_field field, uint32_t ext_degree,
                                          DLManagedTensor *tensor, gp_buffer **out) {
    return guard("gp_buffer_from_dlpack", [&] {
        ContextCall call(ctx, HandleKind::Context, "ctx");
        GP_REQUIRE_PTR(out);
        *out = nullptr;
        GP_REQUIRE_PTR(tensor);
        const FieldDesc &f = field_desc(field);
        check_ext_degree(f, ext_degree);
        const DLTensor &x = tensor->dl_tensor;
        if (x.dtype.code != kDLUInt || x.dtype.bits != 8 * f.elem_size || x.dtype.lanes != 1)
            fail(GP_ERR_FIELD_MISMATCH, "tensor dtype (code ", (int)x.dtype.code, ", ", (int)x.dtype.bits,
                 " bits, ", (int)x.dtype.lanes, " lanes) is not uint", 8 * f.elem_size, ", the element of ", f.name);
        if (x.ndim != 1 && x.ndim != 2)
            fail(GP_ERR_SHAPE_MISMATCH, "tensor has ", x.ndim, " dimensions; a buffer is a 1-D column or a 2-D "
                 "[base columns, rows] tensor");
        GP_REQUIRE_PTR(x.shape);
        for (int i = 0; i < x.ndim; ++i)
            if (x.shape[i] <= 0) fail(GP_ERR_SHAPE_MISMATCH, "tensor shape[", i, "] = ", x.shape[i]);
        const uint64_t rows = (uint64_t)x.shape[x.ndim - 1], base_cols = x.ndim == 2 ? (uint64_t)x.shape[0] : 1;
        if (x.strides) {
            const bool compact = x.strides[x.ndim - 1] == 1 && (x.ndim == 1 || x.strides[0] == x.shape[1]);
            if (!compact)
                fail(GP_ERR_SHAPE_MISMATCH, "tensor strides are not the compact [rows, 1] of the buffer layout");
        }
        if (base_cols % ext_degree)
            fail(GP_ERR_SHAPE_MISMATCH, "tensor has ", base_cols, " base columns, not a multiple of ext_degree = ",
                 ext_degree);
        if (x.byte_offset % f.elem_size)
            fail(GP_ERR_INVALID_ARGUMENT, "tensor byte_offset = ", x.byte_offset, " is not a multiple of ",
                 f.elem_size);
        const int dev = call.ctx()->backend->device_ordinal();
        // The caller's DLDeviceType may hold any int: read it as one (an
        // enum-typed load of a value outside the enum is undefined).
        const int type = raw(x.device.device_type);
        const bool ok = dev < 0 ? (type == kDLCPU || type == kDLCUDAHost)
                                : ((type == kDLCUDA || type == kDLCUDAManaged) && x.device.device_id == dev);
        if (!ok)
            fail(GP_ERR_CONTEXT_MISMATCH, "tensor is on device type ", type, " id ",
                 x.device.device_id, "; this context's buffers are ",
                 dev < 0 ? std::string("host memory (kDLCPU)") : "kDLCUDA device " + std::to_string(dev));
        void *data = static_cast<char *>(x.data) + x.byte_offset;
        *out = reinterpret_cast<gp_buffer *>(wrap_buffer(call.ctx(), f, ext_degree, rows, base_cols / ext_degree,
                                                         data, [tensor] {
                                                             if (tensor->deleter) tensor->deleter(tensor);
                                                         }));
    });
}
