// SPDX-License-Identifier: MIT OR Apache-2.0
// C entry points: version, status names and the last error, fields,
// contexts.
#include <algorithm>
#include <cstdlib>
#include <cstring>
#include <thread>
#include <vector>

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
        case GP_ERR_REMOTE: return "GP_ERR_REMOTE";
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

namespace {

constexpr uint32_t kMaxDevices = 64;

// The context's backend: one device's, or several behind a multi-device
// backend; CPU shares when asked for, or when AUTO finds no GPU.
// `fallback` receives why AUTO took the CPU (gp_context_cpu_fallback).
std::unique_ptr<Backend> make_backend(int backend, const std::vector<int32_t> &devs, bool all, uint32_t threads,
                                      std::string &fallback) {
    std::vector<std::unique_ptr<Backend>> parts;
    const unsigned hw = std::max(1u, std::thread::hardware_concurrency());
    auto share = [&](size_t count) -> unsigned {
        return count == 1 ? threads : std::max<unsigned>(1, (threads ? threads : hw) / (unsigned)count);
    };
    if (backend != GP_BACKEND_CPU) {
        std::vector<int32_t> ords = devs;
        if (all) {
            ords.clear();
            for (int i = 0; i < cuda_device_count(); ++i) ords.push_back(i);
            if (ords.empty()) ords.push_back(0);  // make_cuda_backend says why there is none
        }
        for (size_t i = 0; i < ords.size(); ++i) {
            std::string why;
            std::unique_ptr<Backend> b = make_cuda_backend(ords[i], share(ords.size()), why);
            if (!b) {
                if (backend == GP_BACKEND_CUDA) {
                    if (ords.size() == 1) fail(GP_ERR_NO_DEVICE, "the CUDA backend is unavailable: ", why);
                    fail(GP_ERR_NO_DEVICE, "the CUDA backend is unavailable for devices[", i, "] = ", ords[i], ": ",
                         why);
                }
                parts.clear();  // AUTO: the CPU instead
                fallback = ords.size() == 1 ? why
                                            : "devices[" + std::to_string(i) + "] = " + std::to_string(ords[i]) +
                                                  ": " + why;
                break;
            }
            parts.push_back(std::move(b));
        }
    }
    if (parts.empty()) {
        const size_t count = all ? 1 : devs.size();
        for (size_t i = 0; i < count; ++i) parts.push_back(make_cpu_backend(share(count)));
    }
    if (parts.size() == 1) return std::move(parts[0]);
    return make_multi_backend(std::move(parts));
}

}  // namespace

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
        if (backend != GP_BACKEND_AUTO && backend != GP_BACKEND_CPU && backend != GP_BACKEND_CUDA &&
            backend != GP_BACKEND_REMOTE)
            fail(GP_ERR_INVALID_ARGUMENT, "options->backend = ", backend, " is not a gp_backend");
        const int priority = raw(o.priority);
        if (priority != GP_PRIORITY_NORMAL && priority != GP_PRIORITY_LOW && priority != GP_PRIORITY_HIGH)
            fail(GP_ERR_INVALID_ARGUMENT, "options->priority = ", priority, " is not a gp_priority");
        if (o.num_devices > 0 && !o.devices)
            fail(GP_ERR_NULL_POINTER, "options->devices is NULL but num_devices = ",
                 o.num_devices);
        if (o.num_devices > kMaxDevices)
            fail(GP_ERR_INVALID_ARGUMENT, "options->num_devices = ", o.num_devices, " exceeds ", kMaxDevices);
        std::vector<int32_t> devs(o.devices, o.devices + o.num_devices);
        if (devs.empty()) devs.push_back(0);
        const bool all = devs.size() == 1 && devs[0] == GP_DEVICES_ALL;
        auto ctx = std::make_unique<Context>();
        if (backend == GP_BACKEND_REMOTE || backend == GP_BACKEND_AUTO) {
            RemoteOptions r;
            const char *env = std::getenv("GPUPROVER_SERVER");
            r.endpoint = o.endpoint ? o.endpoint : (env ? env : "");
            r.priority = priority;
            r.force_cpu = o.force_cpu != 0;
            const char *tok = o.token_file ? o.token_file : std::getenv("GPUPROVER_SERVER_TOKEN_FILE");
            if (tok) r.token_file = tok;
            if (r.endpoint.empty() && backend == GP_BACKEND_REMOTE)
                fail(GP_ERR_INVALID_ARGUMENT,
                     "GP_BACKEND_REMOTE needs options->endpoint or the GPUPROVER_SERVER environment variable");
            if (!r.endpoint.empty()) {
                try {
                    ctx->backend = make_remote_backend(r);
                } catch (const Error &e) {
                    if (backend == GP_BACKEND_REMOTE) throw;
                    ctx->remote_fallback = e.what();  // AUTO: in process instead
                }
            }
        }
        if (!ctx->backend) ctx->backend = make_backend(backend, devs, all, o.cpu_threads, ctx->cpu_fallback);
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
        call.refuse_if_nested("gp_context_destroy");
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

GP_EXPORT const char *gp_context_remote_fallback(const gp_context *ctx) {
    return with_live(ctx, HandleKind::Context, (const char *)nullptr, [&]() -> const char * {
        const std::string &s = ctx_of(ctx)->remote_fallback;
        return s.empty() ? nullptr : s.c_str();
    });
}

GP_EXPORT const char *gp_context_cpu_fallback(const gp_context *ctx) {
    return with_live(ctx, HandleKind::Context, (const char *)nullptr, [&]() -> const char * {
        const std::string &s = ctx_of(ctx)->cpu_fallback;
        return s.empty() ? nullptr : s.c_str();
    });
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
        c->backend->cache_figures(s.cache_bytes, s.allocations, s.evictions);
        size_t n = stats->struct_size < sizeof(s) ? stats->struct_size : sizeof(s);
        uint32_t keep = stats->struct_size;
        std::memcpy(stats, &s, n);
        stats->struct_size = keep;
    });
}

GP_EXPORT uint32_t gp_context_device_count(const gp_context *ctx) {
    return with_live(ctx, HandleKind::Context, (uint32_t)0, [&] { return ctx_of(ctx)->backend->device_count(); });
}

GP_EXPORT gp_status gp_context_device_info(const gp_context *ctx, uint32_t index, gp_device_info *info) {
    return guard("gp_context_device_info", [&] {
        ContextCall call(ctx, HandleKind::Context, "ctx");
        GP_REQUIRE_PTR(info);
        check_struct_size(info->struct_size, "info");
        Context *c = call.ctx();
        const uint32_t count = c->backend->device_count();
        if (index >= count)
            fail(GP_ERR_INVALID_ARGUMENT, "index = ", index, " but the context has ", count, " device(s)");
        gp_device_info d;
        std::memset(&d, 0, sizeof(d));
        d.struct_size = sizeof(d);
        c->backend->device_info(index, d);
        if (count == 1) d.buffer_bytes = c->buffer_bytes;
        const uint32_t keep = info->struct_size;
        std::memcpy(info, &d, std::min<size_t>(keep, sizeof(d)));
        info->struct_size = keep;
    });
}

GP_EXPORT gp_status gp_context_trim(gp_context *ctx) {
    return guard("gp_context_trim", [&] {
        ContextCall call(ctx, HandleKind::Context, "ctx");
        reinterpret_cast<Context *>(ctx)->backend->trim();
    });
}
