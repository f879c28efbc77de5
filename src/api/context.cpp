// C entry points: version, status names and the last error, fields,
// contexts.
#include "api/common.h"
#include "math/field.h"

using namespace gp;

GP_EXPORT const char *gp_version(void) { return "0.1.0"; }
GP_EXPORT uint32_t gp_version_number(void) { return GP_VERSION_NUMBER; }

GP_EXPORT const char *gp_status_name(gp_status status) {
    switch (raw(status)) {
        case GP_OK: return "GP_OK";
        case GP_ERR_INVALID_ARGUMENT: return "GP_ERR_INVALID_ARGUMENT";
        case GP_ERR_NULL_POINTER: return "GP_ERR_NULL_POINTER";
        case GP_ERR_UNSUPPORTED: return "GP_ERR_UNSUPPORTED";
        case GP_ERR_NO_DEVICE: return "GP_ERR_NO_DEVICE";
        case GP_ERR_HOST_OUT_OF_MEMORY: return "GP_ERR_HOST_OUT_OF_MEMORY";
        case GP_ERR_DEVICE_OUT_OF_MEMORY: return "GP_ERR_DEVICE_OUT_OF_MEMORY";
        case GP_ERR_SIZE_OVERFLOW: return "GP_ERR_SIZE_OVERFLOW";
        case GP_ERR_FIELD_MISMATCH: return "GP_ERR_FIELD_MISMATCH";
        case GP_ERR_CONTEXT_MISMATCH: return "GP_ERR_CONTEXT_MISMATCH";
        case GP_ERR_SHAPE_MISMATCH: return "GP_ERR_SHAPE_MISMATCH";
        case GP_ERR_TWO_ADICITY: return "GP_ERR_TWO_ADICITY";
        case GP_ERR_NON_CANONICAL: return "GP_ERR_NON_CANONICAL";
        case GP_ERR_CUDA: return "GP_ERR_CUDA";
        case GP_ERR_INTERNAL: return "GP_ERR_INTERNAL";
        case GP_ERR_VERIFY_FAILED: return "GP_ERR_VERIFY_FAILED";
        case GP_ERR_CANCELLED: return "GP_ERR_CANCELLED";
    }
    return "GP_ERR_UNKNOWN";
}

GP_EXPORT uint32_t gp_field_element_size(gp_field field) { return field_elem_size(raw(field)); }

GP_EXPORT gp_status gp_field_info(gp_field field, uint64_t *modulus, uint64_t *generator,
                                  uint32_t *two_adicity) {
    return guard("gp_field_info", [&] {
        const FieldDesc &f = field_desc(field);
        if (modulus) *modulus = f.modulus;
        if (generator) *generator = f.generator;
        if (two_adicity) *two_adicity = f.two_adicity;
    });
}

GP_EXPORT gp_status gp_field_two_adic_generator(gp_field field, uint32_t log_n, uint64_t *root) {
    return guard("gp_field_two_adic_generator", [&] {
        GP_REQUIRE_PTR(root);
        const FieldDesc &f = field_desc(field);
        if (log_n > f.two_adicity)
            fail(GP_ERR_TWO_ADICITY, "log_n = ", log_n, " exceeds the two-adicity of ", f.name,
                 " (", f.two_adicity, ")");
        *root = dispatch_field(f.id, [&](auto F) -> uint64_t {
            return (uint64_t)two_adic_generator<decltype(F)>(log_n);
        });
    });
}

GP_EXPORT void gp_context_options_init(gp_context_options *o) {
    if (!o) return;
    std::memset(o, 0, sizeof(*o));
    o->struct_size = sizeof(*o);
    o->backend = GP_BACKEND_AUTO;
}

GP_EXPORT gp_status gp_context_create(const gp_context_options *options, gp_context **out) {
    return guard("gp_context_create", [&] {
        GP_REQUIRE_PTR(out);
        *out = nullptr;
        gp_context_options o =
            read_options(options, gp_context_options_init, "gp_context_options");
        int backend = raw(o.backend);
        if (backend != GP_BACKEND_AUTO && backend != GP_BACKEND_CPU && backend != GP_BACKEND_CUDA)
            fail(GP_ERR_INVALID_ARGUMENT, "options->backend = ", backend, " is not a gp_backend");
        if (o.num_devices > 0 && !o.devices)
            fail(GP_ERR_NULL_POINTER, "options->devices is NULL but num_devices = ",
                 o.num_devices);
        int device = o.num_devices > 0 ? o.devices[0] : 0;
        auto ctx = std::make_unique<Context>();
        if (backend != GP_BACKEND_CPU) {
            std::string why;
            ctx->backend = make_cuda_backend(device, o.cpu_threads, why);
            if (!ctx->backend && backend == GP_BACKEND_CUDA)
                fail(GP_ERR_NO_DEVICE, "the CUDA backend is unavailable: ", why);
        }
        if (!ctx->backend) ctx->backend = make_cpu_backend(o.cpu_threads);
        ctx->backend->monitor = ctx->monitor.get();
        register_handle(ctx.get(), HandleKind::Context, ctx.get());
        *out = reinterpret_cast<gp_context *>(ctx.release());
    });
}

GP_EXPORT void gp_context_destroy(gp_context *ctx) {
    if (!ctx || !is_live(ctx, HandleKind::Context)) return;
    size_t leaked = 0;
    bool done = false;
    quietly("gp_context_destroy", [&] {
        // Waits for calls in flight; calls that wait behind this one find
        // every handle of the context dead.
        ContextCall call(ctx, HandleKind::Context, "ctx");
        Context *c = call.ctx();
        unregister_handle(c);
        leaked = release_all(*c);
        call.detach();
        delete c;
        done = true;
    });
    if (done && leaked)
        set_error(GP_OK, "gp_context_destroy: released " + std::to_string(leaked) +
                             " buffer(s), tree(s) or FRI commitment(s) that were still alive");
}

GP_EXPORT gp_backend gp_context_backend(const gp_context *ctx) {
    return with_live(ctx, HandleKind::Context, GP_BACKEND_AUTO, [&] { return ctx_of(ctx)->backend->kind(); });
}

GP_EXPORT gp_status gp_context_device_name(const gp_context *ctx, char *name, size_t size) {
    return guard("gp_context_device_name", [&] {
        ContextCall call(ctx, HandleKind::Context, "ctx");
        GP_REQUIRE_PTR(name);
        if (size == 0) fail(GP_ERR_INVALID_ARGUMENT, "size = 0");
        std::string s = reinterpret_cast<const Context *>(ctx)->backend->device_name();
        size_t n = s.size() < size - 1 ? s.size() : size - 1;
        std::memcpy(name, s.data(), n);
        name[n] = '\0';
    });
}

GP_EXPORT gp_status gp_context_memory_stats(const gp_context *ctx, gp_memory_stats *stats) {
    return guard("gp_context_memory_stats", [&] {
        ContextCall call(ctx, HandleKind::Context, "ctx");
        GP_REQUIRE_PTR(stats);
        check_struct_size(stats->struct_size, "stats");
        auto *c = reinterpret_cast<const Context *>(ctx);
        gp_memory_stats s;
        s.struct_size = sizeof(s);
        s.buffer_bytes = c->buffer_bytes;
        s.cache_bytes = c->backend->cache_bytes();
        s.allocations = c->backend->allocations();
        s.evictions = c->backend->evictions();
        size_t n = stats->struct_size < sizeof(s) ? stats->struct_size : sizeof(s);
        uint32_t keep = stats->struct_size;
        std::memcpy(stats, &s, n);
        stats->struct_size = keep;
    });
}

GP_EXPORT gp_status gp_context_trim(gp_context *ctx) {
    return guard("gp_context_trim", [&] {
        ContextCall call(ctx, HandleKind::Context, "ctx");
        reinterpret_cast<Context *>(ctx)->backend->trim();
    });
}
