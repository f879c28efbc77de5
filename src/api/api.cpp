// C entry points: validate arguments, catch every exception, record the
// thread-local error message, forward to the context's backend.
#include <algorithm>
#include <cstring>
#include <new>
#include <string>

#include "core/core.h"
#include "gpuprover.h"
#include "core/deep_ops.h"
#include "core/fri_ops.h"
#include "core/merkle_ops.h"
#include "hash/permutations.h"
#include "math/field.h"

namespace gp {

// Reads an enum coming from C without an enum-typed load: C callers may pass
// any int, which is undefined behaviour to load as a C++ enum of smaller range.
template <class E>
int raw(const E &e) {
    static_assert(sizeof(E) == sizeof(int), "C enums are int-sized");
    int v;
    std::memcpy(&v, &e, sizeof v);
    return v;
}

namespace {
thread_local std::string t_last_error;

const FieldDesc kFields[] = {
    {FieldId::Goldilocks, 8, Goldilocks::P, Goldilocks::GENERATOR, Goldilocks::TWO_ADICITY,
     "Goldilocks"},
    {FieldId::BabyBear, 4, BabyBear::P, BabyBear::GENERATOR, BabyBear::TWO_ADICITY, "BabyBear"},
    {FieldId::KoalaBear, 4, KoalaBear::P, KoalaBear::GENERATOR, KoalaBear::TWO_ADICITY,
     "KoalaBear"},
};

gp_status set_error(gp_status s, const std::string &msg) {
    t_last_error = msg;
    return s;
}

// Runs fn, turning exceptions into a status and message.
template <class Fn>
gp_status guard(const char *fname, Fn &&fn) {
    try {
        t_last_error.clear();
        fn();
        return GP_OK;
    } catch (const Error &e) {
        return set_error(e.status, std::string(fname) + ": " + e.what());
    } catch (const std::bad_alloc &) {
        return set_error(GP_ERR_HOST_OUT_OF_MEMORY, std::string(fname) + ": host allocation failed");
    } catch (const std::exception &e) {
        return set_error(GP_ERR_INTERNAL, std::string(fname) + ": internal error: " + e.what());
    } catch (...) {
        return set_error(GP_ERR_INTERNAL, std::string(fname) + ": unknown internal error");
    }
}

#define GP_REQUIRE_PTR(p)                                                      \
    do {                                                                       \
        if (!(p)) ::gp::fail(GP_ERR_NULL_POINTER, "argument `" #p "` is NULL"); \
    } while (0)

void check_struct_size(uint32_t got, size_t min_size, const char *what) {
    if (got < sizeof(uint32_t) || got > 4096)
        fail(GP_ERR_INVALID_ARGUMENT, what, "->struct_size is ", got,
             " (call the matching *_options_init first)");
    (void)min_size;
}

// Copies the caller's options struct over defaults, honouring struct_size so
// that older callers with shorter structs keep working.
template <class Opt>
Opt read_options(const Opt *user, void (*init)(Opt *), const char *what) {
    Opt o;
    init(&o);
    if (user) {
        check_struct_size(user->struct_size, sizeof(Opt), what);
        size_t n = user->struct_size < sizeof(Opt) ? user->struct_size : sizeof(Opt);
        std::memcpy(&o, user, n);
        o.struct_size = sizeof(Opt);
    }
    return o;
}

void check_buffer(const gp_context *ctx, const gp_buffer *b, const char *arg) {
    auto *buf = reinterpret_cast<const Buffer *>(b);
    auto *c = reinterpret_cast<const Context *>(ctx);
    if (!c->buffers.count(const_cast<Buffer *>(buf)))
        fail(GP_ERR_CONTEXT_MISMATCH, "buffer `", arg, "` does not belong to this context");
}

// Width and element size of permutation `id`, or GP_ERR_INVALID_ARGUMENT
// naming `arg`.
struct PermShape {
    uint32_t width, elem_size;
};
PermShape perm_shape(int id, const char *arg) {
    PermShape p{0, 0};
    bool known = perm::dispatch(id, [&](auto P) {
        p.width = (uint32_t)decltype(P)::WIDTH;
        p.elem_size = (uint32_t)sizeof(typename decltype(P)::T);
    });
    if (!known) fail(GP_ERR_INVALID_ARGUMENT, arg, " = ", id, " is not a gp_permutation");
    return p;
}

void check_layout(const gp_layout &l, const char *arg) {
    int v = raw(l);
    if (v != GP_LAYOUT_COL_MAJOR && v != GP_LAYOUT_ROW_MAJOR)
        fail(GP_ERR_INVALID_ARGUMENT, arg, " = ", v, " is not a gp_layout");
}

void check_shift(const FieldDesc &f, uint64_t v, const char *arg) {
    if (v >= f.modulus)
        fail(GP_ERR_INVALID_ARGUMENT, arg, " = ", v, " is not a canonical ", f.name,
             " element (must be < ", f.modulus, ")");
}

uint32_t check_log_size(const FieldDesc &f, uint64_t n, const char *arg) {
    if (!is_pow2(n)) fail(GP_ERR_INVALID_ARGUMENT, arg, " = ", n, " is not a power of two");
    uint32_t l = log2_exact(n);
    if (l > f.two_adicity)
        fail(GP_ERR_TWO_ADICITY, arg, " = 2^", l, " exceeds the two-adicity of ", f.name, " (2^",
             f.two_adicity, ")");
    return l;
}

Buffer *new_buffer(Context *c, const FieldDesc &f, uint32_t ext, uint64_t rows, uint64_t cols) {
    if (rows == 0) fail(GP_ERR_INVALID_ARGUMENT, "rows = 0 (a buffer needs at least one row)");
    if (cols == 0) fail(GP_ERR_INVALID_ARGUMENT, "cols = 0 (a buffer needs at least one column)");
    uint64_t elems = checked_mul(checked_mul(rows, cols, "rows * cols"), ext, "rows * cols * ext");
    uint64_t bytes = checked_mul(elems, f.elem_size, "element count * element size");
    auto *b = new Buffer();
    b->ctx = c;
    b->field = &f;
    b->ext = ext;
    b->rows = rows;
    b->cols = cols;
    b->bytes = bytes;
    try {
        b->data = c->backend->alloc_buffer(bytes);
    } catch (...) {
        delete b;
        throw;
    }
    c->buffers.insert(b);
    c->buffer_bytes += bytes;
    return b;
}

}  // namespace

const FieldDesc &field_desc(gp_field f, const char *arg) {
    int v = raw(f);
    for (const auto &d : kFields)
        if ((int)d.id == v) return d;
    fail(GP_ERR_INVALID_ARGUMENT, arg, " = ", v, " is not a known gp_field");
}

void check_ext_degree(const FieldDesc &f, uint32_t d, const char *arg) {
    bool ok = d == 1 || (f.id == FieldId::Goldilocks ? (d == 2 || d == 3) : d == 4);
    if (!ok)
        fail(GP_ERR_UNSUPPORTED, arg, " = ", d, " is not a supported extension degree of ", f.name,
             f.id == FieldId::Goldilocks ? " (1, 2 or 3)" : " (1 or 4)");
}

void check_canonical(const FieldDesc &f, const void *data, uint64_t begin, uint64_t end,
                     const char *arg) {
    if (f.elem_size == 8) {
        auto *p = static_cast<const uint64_t *>(data);
        for (uint64_t i = begin; i < end; ++i)
            if (p[i] >= f.modulus)
                fail(GP_ERR_NON_CANONICAL, arg, "[", i, "] = ", p[i], " is not a canonical ",
                     f.name, " element");
    } else {
        auto *p = static_cast<const uint32_t *>(data);
        uint32_t m = (uint32_t)f.modulus;
        for (uint64_t i = begin; i < end; ++i)
            if (p[i] >= m)
                fail(GP_ERR_NON_CANONICAL, arg, "[", i, "] = ", p[i], " is not a canonical ",
                     f.name, " element");
    }
}

}  // namespace gp

using namespace gp;

#define GP_EXPORT extern "C" GP_API

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
    }
    return "GP_ERR_UNKNOWN";
}

GP_EXPORT const char *gp_last_error(void) { return t_last_error.c_str(); }

GP_EXPORT uint32_t gp_field_element_size(gp_field field) {
    for (const auto &d : kFields)
        if ((int)d.id == raw(field)) return d.elem_size;
    return 0;
}

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
        *out = reinterpret_cast<gp_context *>(ctx.release());
    });
}

GP_EXPORT void gp_context_destroy(gp_context *ctx) {
    if (!ctx) return;
    auto *c = reinterpret_cast<Context *>(ctx);
    size_t leaked = c->buffers.size() + c->trees.size();
    for (MerkleTree *t : c->trees) {
        c->backend->free_buffer(t->nodes);
        delete t;
    }
    c->trees.clear();
    for (Buffer *b : c->buffers) {
        c->backend->free_buffer(b->data);
        delete b;
    }
    c->buffers.clear();
    delete c;
    if (leaked)
        t_last_error = "gp_context_destroy: released " + std::to_string(leaked) +
                       " buffer(s) or tree(s) that were still alive";
}

GP_EXPORT gp_backend gp_context_backend(const gp_context *ctx) {
    if (!ctx) return GP_BACKEND_AUTO;
    return reinterpret_cast<const Context *>(ctx)->backend->kind();
}

GP_EXPORT gp_status gp_context_device_name(const gp_context *ctx, char *name, size_t size) {
    return guard("gp_context_device_name", [&] {
        GP_REQUIRE_PTR(ctx);
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
        GP_REQUIRE_PTR(ctx);
        GP_REQUIRE_PTR(stats);
        check_struct_size(stats->struct_size, sizeof(*stats), "stats");
        auto *c = reinterpret_cast<const Context *>(ctx);
        gp_memory_stats s;
        s.struct_size = sizeof(s);
        s.buffer_bytes = c->buffer_bytes;
        s.cache_bytes = c->backend->cache_bytes();
        s.allocations = c->backend->allocations();
        size_t n = stats->struct_size < sizeof(s) ? stats->struct_size : sizeof(s);
        uint32_t keep = stats->struct_size;
        std::memcpy(stats, &s, n);
        stats->struct_size = keep;
    });
}

GP_EXPORT gp_status gp_context_trim(gp_context *ctx) {
    return guard("gp_context_trim", [&] {
        GP_REQUIRE_PTR(ctx);
        reinterpret_cast<Context *>(ctx)->backend->trim();
    });
}

GP_EXPORT gp_status gp_buffer_create(gp_context *ctx, gp_field field, uint32_t ext_degree,
                                     uint64_t rows, uint64_t cols, gp_buffer **out) {
    return guard("gp_buffer_create", [&] {
        GP_REQUIRE_PTR(ctx);
        GP_REQUIRE_PTR(out);
        *out = nullptr;
        const FieldDesc &f = field_desc(field);
        check_ext_degree(f, ext_degree);
        *out = reinterpret_cast<gp_buffer *>(
            new_buffer(reinterpret_cast<Context *>(ctx), f, ext_degree, rows, cols));
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
        auto *c = reinterpret_cast<Context *>(ctx);
        Buffer *b = new_buffer(c, f, ext_degree, rows, cols);
        try {
            c->backend->upload(*b, data, layout);
        } catch (...) {
            gp_buffer_destroy(reinterpret_cast<gp_buffer *>(b));
            throw;
        }
        *out = reinterpret_cast<gp_buffer *>(b);
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
    if (!buf) return;
    auto *b = reinterpret_cast<Buffer *>(buf);
    Context *c = b->ctx;
    if (!c->buffers.erase(b)) return;  // not a live buffer of its context
    c->buffer_bytes -= b->bytes;
    c->backend->free_buffer(b->data);
    delete b;
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

GP_EXPORT void gp_ntt_options_init(gp_ntt_options *o) {
    if (!o) return;
    std::memset(o, 0, sizeof(*o));
    o->struct_size = sizeof(*o);
    o->direction = GP_NTT_FORWARD;
}

static void check_order(const gp_order &o, const char *arg) {
    int v = raw(o);
    if (v != GP_ORDER_NATURAL && v != GP_ORDER_BIT_REVERSED)
        fail(GP_ERR_INVALID_ARGUMENT, arg, " = ", v, " is not a gp_order");
}

GP_EXPORT gp_status gp_ntt_batch(gp_context *ctx, gp_buffer *buf, const gp_ntt_options *options) {
    return guard("gp_ntt_batch", [&] {
        GP_REQUIRE_PTR(ctx);
        GP_REQUIRE_PTR(buf);
        check_buffer(ctx, buf, "buf");
        gp_ntt_options o = read_options(options, gp_ntt_options_init, "gp_ntt_options");
        auto *b = reinterpret_cast<Buffer *>(buf);
        int dir = raw(o.direction);
        if (dir != GP_NTT_FORWARD && dir != GP_NTT_INVERSE)
            fail(GP_ERR_INVALID_ARGUMENT, "options->direction = ", dir, " is not a gp_ntt_direction");
        check_order(o.input_order, "options->input_order");
        check_order(o.output_order, "options->output_order");
        check_log_size(*b->field, b->rows, "rows");
        check_shift(*b->field, o.shift, "options->shift");
        NttArgs a{o.direction, o.shift ? o.shift : 1, o.input_order, o.output_order};
        b->ctx->backend->ntt(*b, a);
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

// Shared validation of both LDE entry points; fills everything but the input.
static LdeArgs prepare_lde(gp_context *ctx, const FieldDesc &f, uint32_t ext, uint64_t rows,
                           uint64_t cols, const gp_lde_options *options, gp_buffer *output) {
    gp_lde_options o = read_options(options, gp_lde_options_init, "gp_lde_options");
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
    GP_REQUIRE_PTR(output);
    check_buffer(ctx, output, "output");
    auto *out = reinterpret_cast<Buffer *>(output);
    if (out->field != &f || out->ext != ext)
        fail(GP_ERR_FIELD_MISMATCH, "output is ", out->field->name, "^", out->ext,
             " but the input is ", f.name, "^", ext);
    uint64_t out_rows = checked_mul(n, o.blowup, "n * blowup");
    if (out->rows != out_rows || out->cols != cols)
        fail(GP_ERR_SHAPE_MISMATCH, "output is ", out->rows, " x ", out->cols, ", expected ",
             out_rows, " x ", cols, " (n * blowup rows, input columns)");
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
    a.out = out;
    return a;
}

GP_EXPORT gp_status gp_lde_batch(gp_context *ctx, const gp_buffer *input,
                                 const gp_lde_options *options, gp_buffer *output) {
    return guard("gp_lde_batch", [&] {
        GP_REQUIRE_PTR(ctx);
        GP_REQUIRE_PTR(input);
        check_buffer(ctx, input, "input");
        auto *in = reinterpret_cast<const Buffer *>(input);
        LdeArgs a = prepare_lde(ctx, *in->field, in->ext, in->rows, in->cols, options, output);
        if (input == output) fail(GP_ERR_INVALID_ARGUMENT, "input and output are the same buffer");
        a.in_buf = in;
        reinterpret_cast<Context *>(ctx)->backend->lde(a);
    });
}

GP_EXPORT gp_status gp_lde_batch_host(gp_context *ctx, gp_field field, uint32_t ext_degree,
                                      const void *data, uint64_t rows, uint64_t cols,
                                      const gp_lde_options *options, gp_buffer *output) {
    return guard("gp_lde_batch_host", [&] {
        GP_REQUIRE_PTR(ctx);
        GP_REQUIRE_PTR(data);
        const FieldDesc &f = field_desc(field);
        check_ext_degree(f, ext_degree);
        LdeArgs a = prepare_lde(ctx, f, ext_degree, rows, cols, options, output);
        checked_mul(checked_mul(rows, cols, "rows * cols"), ext_degree * f.elem_size,
                    "input bytes");
        a.in_host = data;
        reinterpret_cast<Context *>(ctx)->backend->lde(a);
    });
}

GP_EXPORT gp_status gp_permutation_info(gp_permutation perm, uint32_t *width, gp_field *field) {
    return guard("gp_permutation_info", [&] {
        int id = raw(perm);
        PermShape p = perm_shape(id, "perm");
        if (width) *width = p.width;
        if (field) *field = (gp_field)perm::field_of(id);
    });
}

GP_EXPORT gp_status gp_permute_batch(gp_context *ctx, gp_permutation perm, void *states,
                                     uint64_t count) {
    return guard("gp_permute_batch", [&] {
        GP_REQUIRE_PTR(ctx);
        int id = raw(perm);
        PermShape p = perm_shape(id, "perm");
        if (count == 0) return;  // nothing to permute
        GP_REQUIRE_PTR(states);
        checked_mul(checked_mul(count, p.width, "count * width"), p.elem_size, "state bytes");
        reinterpret_cast<Context *>(ctx)->backend->permute(id, states, count);
    });
}

GP_EXPORT void gp_merkle_options_init(gp_merkle_options *o) {
    if (!o) return;
    std::memset(o, 0, sizeof(*o));
    o->struct_size = sizeof(*o);
    o->kind = GP_MERKLE_FIELD_SPONGE;
    o->perm = GP_PERM_POSEIDON2_GOLDILOCKS_8;
}

namespace gp {
namespace {

const char *merkle_kind_name(int kind) {
    switch (kind) {
        case GP_MERKLE_FIELD_SPONGE: return "GP_MERKLE_FIELD_SPONGE";
        case GP_MERKLE_MIDEN: return "GP_MERKLE_MIDEN";
        case GP_MERKLE_MIDEN_V0_11: return "GP_MERKLE_MIDEN_V0_11";
        case GP_MERKLE_MIDEN_V0_10: return "GP_MERKLE_MIDEN_V0_10";
        case GP_MERKLE_KECCAK_PLONKY3: return "GP_MERKLE_KECCAK_PLONKY3";
        case GP_MERKLE_KECCAK_BE: return "GP_MERKLE_KECCAK_BE";
        default: return nullptr;
    }
}

// Validates a Merkle profile for matrices over `f` (named by `what`).
TreeSpec tree_spec(const gp_merkle_options &o, const FieldDesc &f, const char *what) {
    TreeSpec s;
    s.kind = raw(o.kind);
    const char *kname = merkle_kind_name(s.kind);
    if (!kname) fail(GP_ERR_INVALID_ARGUMENT, "options->kind = ", s.kind, " is not a gp_merkle_kind");
    s.perm = raw(o.perm);
    const PermShape p = perm_shape(s.perm, "options->perm");
    const int pfield = perm::field_of(s.perm);
    auto fixed_digest = [&](uint32_t words) {
        if (o.digest != 0 || o.rate != 0)
            fail(GP_ERR_INVALID_ARGUMENT, "options->digest = ", o.digest, ", options->rate = ", o.rate,
                 ": ", kname, " has a fixed digest and rate; leave both 0");
        s.digest = words;
        s.word_size = 8;
    };
    switch (s.kind) {
        case GP_MERKLE_FIELD_SPONGE: {
            if (pfield == 0)
                fail(GP_ERR_INVALID_ARGUMENT, "options->perm = ", s.perm,
                     " (Keccak-f) has no field sponge: use GP_MERKLE_KECCAK_PLONKY3 or GP_MERKLE_KECCAK_BE");
            s.field = pfield;
            s.word_size = p.elem_size;
            s.digest = o.digest ? o.digest : (p.elem_size == 8 ? 4 : 8);
            if (s.digest > p.width / 2)
                fail(GP_ERR_INVALID_ARGUMENT, "options->digest = ", s.digest, ": two digests exceed the width ",
                     p.width, " of the permutation");
            s.rate = o.rate ? o.rate : p.width - s.digest;
            // Plonky3's PaddingFreeSponge: 0 < OUT <= RATE < WIDTH.
            if (s.rate >= p.width)
                fail(GP_ERR_INVALID_ARGUMENT, "options->rate = ", s.rate,
                     " must be below the permutation's width ", p.width);
            if (s.digest > s.rate)
                fail(GP_ERR_INVALID_ARGUMENT, "options->digest = ", s.digest, " exceeds the sponge rate ", s.rate);
            break;
        }
        case GP_MERKLE_MIDEN:
        case GP_MERKLE_MIDEN_V0_11:
        case GP_MERKLE_MIDEN_V0_10:
            if (s.perm != GP_PERM_RPO256 && s.perm != GP_PERM_RPX256)
                fail(GP_ERR_INVALID_ARGUMENT, "options->perm = ", s.perm, ": ", kname,
                     " hashes with GP_PERM_RPO256 or GP_PERM_RPX256");
            s.field = GP_FIELD_GOLDILOCKS;
            fixed_digest(4);
            break;
        case GP_MERKLE_KECCAK_PLONKY3:
        case GP_MERKLE_KECCAK_BE:
            if (s.perm != GP_PERM_KECCAK_F1600)
                fail(GP_ERR_INVALID_ARGUMENT, "options->perm = ", s.perm, ": ", kname,
                     " hashes with Keccak-256; set GP_PERM_KECCAK_F1600");
            s.field = (int)f.id;
            if (s.kind == GP_MERKLE_KECCAK_BE && f.id != FieldId::Goldilocks)
                fail(GP_ERR_UNSUPPORTED, what, " are over ", f.name, ": ", kname,
                     " is defined for Goldilocks (lambdaworks writes 31-bit base fields in Montgomery form"
                     " and their extensions canonically)");
            fixed_digest(4);
            break;
    }
    if (s.field != (int)f.id)
        fail(GP_ERR_FIELD_MISMATCH, what, " are over ", f.name, " but ", kname, " with options->perm = ", s.perm,
             " hashes ", field_desc((gp_field)s.field).name, " elements");
    return s;
}

// The tree's shape: heights powers of two, one height for the kinds that
// have no injection, the cap within the least height; matrices sorted
// tallest first (stable) and grouped per layer.
struct TreePlan {
    uint32_t log_h = 0;
    std::vector<uint32_t> order;
    std::vector<std::pair<uint32_t, uint32_t>> groups;
};

TreePlan plan_tree(const TreeSpec &s, const std::vector<uint64_t> &heights, uint32_t cap_height,
                   const char *what) {
    TreePlan p;
    uint64_t hi = 0, lo = ~0ull;
    for (size_t i = 0; i < heights.size(); ++i) {
        if (!is_pow2(heights[i]))
            fail(GP_ERR_INVALID_ARGUMENT, what, "[", i, "] has ", heights[i], " rows, not a power of two");
        hi = std::max(hi, heights[i]);
        lo = std::min(lo, heights[i]);
    }
    const bool one_height = s.kind != GP_MERKLE_FIELD_SPONGE && s.kind != GP_MERKLE_KECCAK_PLONKY3;
    if (one_height && hi != lo)
        fail(GP_ERR_SHAPE_MISMATCH, merkle_kind_name(s.kind), " commits matrices of one height; ", what,
             " have heights from ", lo, " to ", hi);
    p.log_h = log2_exact(hi);
    if (cap_height > log2_exact(lo)) {
        if (hi == lo)
            fail(GP_ERR_INVALID_ARGUMENT, "options->cap_height = ", cap_height, " exceeds the tree's height (",
                 p.log_h, " layers above ", hi, " leaves)");
        fail(GP_ERR_INVALID_ARGUMENT, "options->cap_height = ", cap_height, " exceeds log2 of the least height ",
             lo, ": the rows of a matrix shorter than the cap would not be bound by it");
    }
    p.order.resize(heights.size());
    for (uint32_t i = 0; i < heights.size(); ++i) p.order[i] = i;
    std::stable_sort(p.order.begin(), p.order.end(),
                     [&](uint32_t x, uint32_t y) { return heights[x] > heights[y]; });
    p.groups.assign(p.log_h + 1, {0, 0});
    for (uint32_t k = 0, m = 0; k <= p.log_h; ++k) {
        uint32_t m0 = m;
        while (m < p.order.size() && heights[p.order[m]] == (hi >> k)) ++m;
        p.groups[k] = {m0, m};
    }
    return p;
}

// Validates buffer handles: non-null, of this context, of one field.
std::vector<const Buffer *> checked_matrices(gp_context *ctx, const gp_buffer *const *matrices, uint32_t count) {
    GP_REQUIRE_PTR(matrices);
    if (count == 0) fail(GP_ERR_INVALID_ARGUMENT, "count = 0 (a tree needs at least one matrix)");
    std::vector<const Buffer *> mats;
    for (uint32_t i = 0; i < count; ++i) {
        std::string arg = "matrices[" + std::to_string(i) + "]";
        if (!matrices[i]) fail(GP_ERR_NULL_POINTER, "argument `", arg, "` is NULL");
        check_buffer(ctx, matrices[i], arg.c_str());
        auto *b = reinterpret_cast<const Buffer *>(matrices[i]);
        if (!mats.empty() && b->field != mats[0]->field)
            fail(GP_ERR_FIELD_MISMATCH, arg, " is over ", b->field->name, " but matrices[0] is over ",
                 mats[0]->field->name);
        mats.push_back(b);
    }
    return mats;
}

// Validates a profile for matrices (of one field); fills `a` (spec, sorted
// matrices, groups, log_h).
void plan_request(const std::vector<const Buffer *> &mats, const gp_merkle_options &o, bool leaves_only,
                  MerkleArgs &a) {
    std::vector<uint64_t> heights;
    for (const Buffer *b : mats) heights.push_back(b->rows);
    a.spec = tree_spec(o, *mats[0]->field, "the matrices");
    a.leaves_only = leaves_only;
    if (leaves_only) {
        for (size_t i = 1; i < heights.size(); ++i)
            if (heights[i] != heights[0])
                fail(GP_ERR_SHAPE_MISMATCH, "matrices[", i, "] has ", heights[i], " rows but matrices[0] has ",
                     heights[0], ": rows are hashed across matrices of one height");
    }
    TreePlan p = plan_tree(a.spec, heights, leaves_only ? 0 : o.cap_height, "the matrices");
    a.cap_height = leaves_only ? 0 : o.cap_height;
    a.log_h = p.log_h;
    a.groups = p.groups;
    for (uint32_t i : p.order) a.mats.push_back(mats[i]);
}

// Commits validated matrices and registers the tree with the context.
MerkleTree *commit_matrices(Context *c, const std::vector<const Buffer *> &committed, const gp_merkle_options &o) {
    MerkleArgs a;
    plan_request(committed, o, false, a);
    const uint64_t H = 1ull << a.log_h;
    uint64_t words = checked_mul(2 * H - 1, a.spec.digest, "tree nodes * digest");
    uint64_t bytes = checked_mul(words, a.spec.word_size, "tree bytes");
    auto t = std::make_unique<MerkleTree>();
    t->ctx = c;
    t->spec = a.spec;
    t->cap_height = a.cap_height;
    t->log_h = a.log_h;
    t->committed = committed;
    t->nodes = c->backend->alloc_buffer(bytes);
    try {
        c->backend->merkle_commit(a, *t);
    } catch (...) {
        c->backend->free_buffer(t->nodes);
        throw;
    }
    c->trees.insert(t.get());
    return t.release();
}

}  // namespace
}  // namespace gp

GP_EXPORT gp_status gp_merkle_commit(gp_context *ctx, const gp_buffer *const *matrices, uint32_t count,
                                     const gp_merkle_options *options, gp_merkle_tree **out) {
    return guard("gp_merkle_commit", [&] {
        GP_REQUIRE_PTR(ctx);
        GP_REQUIRE_PTR(out);
        *out = nullptr;
        gp_merkle_options o = read_options(options, gp_merkle_options_init, "gp_merkle_options");
        std::vector<const Buffer *> mats = checked_matrices(ctx, matrices, count);
        *out = reinterpret_cast<gp_merkle_tree *>(commit_matrices(reinterpret_cast<Context *>(ctx), mats, o));
    });
}

GP_EXPORT gp_status gp_merkle_hash_rows(gp_context *ctx, const gp_buffer *const *matrices, uint32_t count,
                                        const gp_merkle_options *options, void *digests, uint64_t size_bytes) {
    return guard("gp_merkle_hash_rows", [&] {
        GP_REQUIRE_PTR(ctx);
        gp_merkle_options o = read_options(options, gp_merkle_options_init, "gp_merkle_options");
        MerkleArgs a;
        plan_request(checked_matrices(ctx, matrices, count), o, true, a);
        GP_REQUIRE_PTR(digests);
        const uint64_t H = 1ull << a.log_h;
        const uint64_t bytes = checked_mul(checked_mul(H, a.spec.digest, "rows * digest"), a.spec.word_size,
                                           "digest bytes");
        if (size_bytes < bytes)
            fail(GP_ERR_INVALID_ARGUMENT, "size_bytes = ", size_bytes, " is smaller than the ", H, " digests (",
                 bytes, " bytes)");
        auto *c = reinterpret_cast<Context *>(ctx);
        MerkleTree t;
        t.ctx = c;
        t.spec = a.spec;
        t.log_h = a.log_h;
        t.nodes = c->backend->alloc_buffer(bytes);
        try {
            c->backend->merkle_commit(a, t);
            c->backend->read_tree(t, 0, digests, bytes);
        } catch (...) {
            c->backend->free_buffer(t.nodes);
            throw;
        }
        c->backend->free_buffer(t.nodes);
    });
}

GP_EXPORT uint64_t gp_merkle_digest_size(const gp_merkle_tree *tree) {
    if (!tree) return 0;
    return reinterpret_cast<const MerkleTree *>(tree)->digest_bytes();
}

GP_EXPORT uint64_t gp_merkle_cap_size(const gp_merkle_tree *tree) {
    if (!tree) return 0;
    return reinterpret_cast<const MerkleTree *>(tree)->cap_bytes();
}

namespace gp {
namespace {
// Copies the first `bytes` bytes of layer `k` of a tree to host memory.
void read_digests(const MerkleTree &t, uint32_t k, uint64_t bytes, void *out) {
    t.ctx->backend->read_tree(t, merkle_layer_offset(t.log_h, k) * t.digest_bytes(), out, bytes);
}
void read_cap(const MerkleTree &t, void *out) { read_digests(t, t.cap_layer(), t.cap_bytes(), out); }

// read_digests for the API: checks the pointers and the output size.
void read_layer(const char *fname, const gp_merkle_tree *tree, uint32_t k, uint64_t need, void *out,
                uint64_t size_bytes) {
    GP_REQUIRE_PTR(tree);
    GP_REQUIRE_PTR(out);
    if (size_bytes < need)
        fail(GP_ERR_INVALID_ARGUMENT, "size_bytes = ", size_bytes, " is smaller than the ", fname, " (", need,
             " bytes)");
    read_digests(*reinterpret_cast<const MerkleTree *>(tree), k, need, out);
}
}  // namespace
}  // namespace gp

GP_EXPORT gp_status gp_merkle_root(const gp_merkle_tree *tree, void *out, uint64_t size_bytes) {
    return guard("gp_merkle_root", [&] {
        auto *t = reinterpret_cast<const MerkleTree *>(tree);
        read_layer("root", tree, t ? t->log_h : 0, gp_merkle_digest_size(tree), out, size_bytes);
    });
}

GP_EXPORT gp_status gp_merkle_cap(const gp_merkle_tree *tree, void *out, uint64_t size_bytes) {
    return guard("gp_merkle_cap", [&] {
        auto *t = reinterpret_cast<const MerkleTree *>(tree);
        read_layer("cap", tree, t ? t->cap_layer() : 0, gp_merkle_cap_size(tree), out, size_bytes);
    });
}

namespace gp {
namespace {
uint64_t opened_row_bytes(const std::vector<const Buffer *> &mats) {
    uint64_t n = 0;
    for (const Buffer *b : mats) n += b->base_cols() * b->field->elem_size;
    return n;
}
}  // namespace
}  // namespace gp

GP_EXPORT gp_status gp_merkle_opening_size(const gp_merkle_tree *tree, uint64_t *row_bytes, uint64_t *path_bytes) {
    return guard("gp_merkle_opening_size", [&] {
        GP_REQUIRE_PTR(tree);
        auto *t = reinterpret_cast<const MerkleTree *>(tree);
        if (row_bytes) *row_bytes = opened_row_bytes(t->committed);
        if (path_bytes) *path_bytes = t->path_len() * t->digest_bytes();
    });
}

GP_EXPORT gp_status gp_merkle_open(const gp_merkle_tree *tree, const uint64_t *indices, uint64_t count, void *rows,
                                   uint64_t rows_size, void *paths, uint64_t paths_size) {
    return guard("gp_merkle_open", [&] {
        GP_REQUIRE_PTR(tree);
        if (count == 0) return;
        GP_REQUIRE_PTR(indices);
        auto *t = reinterpret_cast<const MerkleTree *>(tree);
        const uint64_t H = 1ull << t->log_h;
        for (uint64_t i = 0; i < count; ++i)
            if (indices[i] >= H)
                fail(GP_ERR_INVALID_ARGUMENT, "indices[", i, "] = ", indices[i], " is past the end of the tree (",
                     H, " leaves)");
        auto need = [&](void *p, uint64_t size, uint64_t each, const char *what) {
            if (!p) return;
            uint64_t total = checked_mul(count, each, what);
            if (size < total)
                fail(GP_ERR_INVALID_ARGUMENT, what, "_size = ", size, " is smaller than ", count, " x ", each,
                     " = ", total, " bytes");
        };
        need(rows, rows_size, opened_row_bytes(t->committed), "rows");
        need(paths, paths_size, t->path_len() * t->digest_bytes(), "paths");
        if (!rows && !paths) return;
        t->ctx->backend->merkle_open(*t, indices, count, rows, paths);
    });
}

GP_EXPORT gp_status gp_merkle_verify(const gp_merkle_options *options, gp_field field, const gp_matrix_dims *dims,
                                     uint32_t count, const void *cap, uint64_t cap_size, uint64_t index,
                                     const void *rows, uint64_t rows_size, const void *path, uint64_t path_size) {
    return guard("gp_merkle_verify", [&] {
        GP_REQUIRE_PTR(dims);
        GP_REQUIRE_PTR(cap);
        GP_REQUIRE_PTR(rows);
        if (count == 0) fail(GP_ERR_INVALID_ARGUMENT, "count = 0 (a tree needs at least one matrix)");
        gp_merkle_options o = read_options(options, gp_merkle_options_init, "gp_merkle_options");
        const FieldDesc &f = field_desc(field);
        TreeSpec s = tree_spec(o, f, "the matrices");
        std::vector<uint64_t> heights(count);
        uint64_t row_elems = 0;
        for (uint32_t i = 0; i < count; ++i) {
            std::string arg = "dims[" + std::to_string(i) + "]";
            check_ext_degree(f, dims[i].ext_degree, (arg + ".ext_degree").c_str());
            if (dims[i].cols == 0) fail(GP_ERR_INVALID_ARGUMENT, arg, ".cols = 0");
            heights[i] = dims[i].rows;
            row_elems += (uint64_t)dims[i].cols * dims[i].ext_degree;
        }
        TreePlan p = plan_tree(s, heights, o.cap_height, "dims");
        const uint64_t H = 1ull << p.log_h;
        if (index >= H)
            fail(GP_ERR_INVALID_ARGUMENT, "index = ", index, " is past the end of the tree (", H, " leaves)");
        const uint64_t dbytes = (uint64_t)s.digest * s.word_size;
        const uint32_t len = p.log_h - o.cap_height;
        auto exact = [](uint64_t got, uint64_t want, const char *what) {
            if (got != want)
                fail(GP_ERR_SHAPE_MISMATCH, what, " = ", got, " bytes, but the shapes give ", want);
        };
        exact(cap_size, dbytes << o.cap_height, "cap_size");
        exact(rows_size, row_elems * f.elem_size, "rows_size");
        exact(path_size, len * dbytes, "path_size");
        if (len) GP_REQUIRE_PTR(path);
        check_canonical(f, rows, 0, row_elems, "rows");
        bool ok = false;
        tree_dispatch(s, [&](auto h) {
            using H = decltype(h);
            using T = typename H::T;
            using W = typename H::W;
            // Each matrix's opened row as a one-row view, sorted as committed.
            std::vector<MatView<T>> views(count);
            const T *at = static_cast<const T *>(rows);
            std::vector<const T *> starts(count);
            for (uint32_t i = 0; i < count; ++i) {
                starts[i] = at;
                at += (uint64_t)dims[i].cols * dims[i].ext_degree;
            }
            for (uint32_t m = 0; m < count; ++m) {
                uint32_t i = p.order[m];
                views[m] = {starts[i], 1, (uint64_t)dims[i].cols * dims[i].ext_degree};
            }
            W node[H::kMaxDigest], sib[H::kMaxDigest], inj[H::kMaxDigest];
            h.hash_row(views.data(), p.groups[0].first, p.groups[0].second, 0, node);
            for (uint32_t k = 1; k <= len; ++k) {
                std::memcpy(sib, static_cast<const char *>(path) + (k - 1) * dbytes, dbytes);
                if ((index >> (k - 1)) & 1) h.compress(sib, node, node);
                else h.compress(node, sib, node);
                if (p.groups[k].first < p.groups[k].second) {
                    h.hash_row(views.data(), p.groups[k].first, p.groups[k].second, 0, inj);
                    h.compress(node, inj, node);
                }
            }
            ok = std::memcmp(node, static_cast<const char *>(cap) + (index >> len) * dbytes, dbytes) == 0;
        });
        if (!ok)
            fail(GP_ERR_VERIFY_FAILED, "the opening of index ", index, " does not hash to cap digest ", index >> len);
    });
}

GP_EXPORT void gp_merkle_tree_destroy(gp_merkle_tree *tree) {
    if (!tree) return;
    auto *t = reinterpret_cast<MerkleTree *>(tree);
    Context *c = t->ctx;
    if (!c->trees.erase(t)) return;
    c->backend->free_buffer(t->nodes);
    delete t;
}

/* ------------------------------------------------------------------------ */
/* FRI                                                                      */
/* ------------------------------------------------------------------------ */

GP_EXPORT void gp_fri_options_init(gp_fri_options *o) {
    if (!o) return;
    std::memset(o, 0, sizeof(*o));
    o->struct_size = sizeof(*o);
    o->arity = 2;
    o->final_size = 1;
    o->order = GP_ORDER_BIT_REVERSED;
    o->shift = 1;
    o->fold = GP_FRI_FOLD_HALVED;
    gp_merkle_options_init(&o->merkle);
}

namespace gp {

// A FRI commitment: layers k < K in matrix form (buffers of the context) with
// their trees, and the remainder.
struct FriState {
    Context *ctx = nullptr;
    const FieldDesc *f = nullptr;
    uint32_t ext = 1, log_a = 1, log_n = 0, layers = 0, folded = 0;
    bool bitrev = true, halve = true;
    uint64_t shift = 1;
    gp_merkle_options mo;
    std::vector<Buffer *> bufs;
    std::vector<MerkleTree *> trees;
    std::vector<unsigned char> remainder;  // host copy of the final layer

    uint32_t log_layer(uint32_t k) const { return log_n - k * log_a; }
    uint64_t elem_bytes() const { return (uint64_t)ext * f->elem_size; }
    ~FriState() {
        for (MerkleTree *t : trees) gp_merkle_tree_destroy(reinterpret_cast<gp_merkle_tree *>(t));
        for (Buffer *b : bufs) gp_buffer_destroy(reinterpret_cast<gp_buffer *>(b));
    }
};

namespace {

// Field elements (elem_size bytes each) to and from 64-bit words.
void words_out(const FieldDesc &f, const std::vector<uint64_t> &w, void *out) {
    for (size_t i = 0; i < w.size(); ++i) {
        if (f.elem_size == 8) static_cast<uint64_t *>(out)[i] = w[i];
        else static_cast<uint32_t *>(out)[i] = (uint32_t)w[i];
    }
}
std::vector<uint64_t> words_in(const FieldDesc &f, const void *in, uint64_t count) {
    std::vector<uint64_t> w(count);
    for (uint64_t i = 0; i < count; ++i)
        w[i] = f.elem_size == 8 ? static_cast<const uint64_t *>(in)[i] : static_cast<const uint32_t *>(in)[i];
    return w;
}


// The validated shape of a FRI commitment.
struct FriShape {
    const FieldDesc *f;
    uint32_t ext, log_n, log_a, layers, log_final;
    bool bitrev, halve;
    uint64_t shift;
    gp_fri_options o;
};

FriShape fri_shape(const gp_fri_options *options, const FieldDesc &f, uint32_t ext, uint64_t n) {
    FriShape s;
    s.o = read_options(options, gp_fri_options_init, "gp_fri_options");
    s.o.merkle.struct_size = sizeof(gp_merkle_options);  // embedded: same version as the outer struct
    s.f = &f;
    s.ext = ext;
    if (s.o.arity != 2 && s.o.arity != 4 && s.o.arity != 8)
        fail(GP_ERR_INVALID_ARGUMENT, "options->arity = ", s.o.arity, " (FRI folds with arity 2, 4 or 8)");
    s.log_a = log2_exact(s.o.arity);
    if (!is_pow2(n) || n < 2) fail(GP_ERR_INVALID_ARGUMENT, "the codeword has ", n, " elements, not a power of two >= 2");
    s.log_n = check_log_size(f, n, "codeword size");
    if (!is_pow2(s.o.final_size))
        fail(GP_ERR_INVALID_ARGUMENT, "options->final_size = ", s.o.final_size, " is not a power of two");
    if (s.o.final_size >= n)
        fail(GP_ERR_INVALID_ARGUMENT, "options->final_size = ", s.o.final_size, " is not below the codeword size ", n);
    s.log_final = log2_exact(s.o.final_size);
    if ((s.log_n - s.log_final) % s.log_a != 0)
        fail(GP_ERR_INVALID_ARGUMENT, "options->final_size = ", s.o.final_size, " is not reached from ", n,
             " by folds of arity ", s.o.arity);
    s.layers = (s.log_n - s.log_final) / s.log_a;
    const int order = raw(s.o.order);
    if (order != GP_ORDER_NATURAL && order != GP_ORDER_BIT_REVERSED)
        fail(GP_ERR_INVALID_ARGUMENT, "options->order = ", order, " is not a gp_order");
    s.bitrev = order == GP_ORDER_BIT_REVERSED;
    const int fold = raw(s.o.fold);
    if (fold != GP_FRI_FOLD_HALVED && fold != GP_FRI_FOLD_UNHALVED)
        fail(GP_ERR_INVALID_ARGUMENT, "options->fold = ", fold, " is not a gp_fri_fold_kind");
    s.halve = fold == GP_FRI_FOLD_HALVED;
    if (s.o.shift == 0 || s.o.shift >= f.modulus)
        fail(GP_ERR_INVALID_ARGUMENT, "options->shift = ", s.o.shift, " is not a nonzero canonical ", f.name,
             " element");
    s.shift = s.o.shift;
    tree_spec(s.o.merkle, f, "the FRI layers");
    if (s.o.merkle.cap_height > s.log_final)
        fail(GP_ERR_INVALID_ARGUMENT, "options->merkle.cap_height = ", s.o.merkle.cap_height,
             " exceeds log2(final_size) = ", s.log_final, ", the height of the last committed layer's tree");
    return s;
}

// Commits layer k (already in matrix form in fri->bufs[k]) and writes its cap.
void fri_commit_layer(FriState &fri, uint32_t k, void *cap, uint64_t cap_size) {
    MerkleTree *t = commit_matrices(fri.ctx, {fri.bufs[k]}, fri.mo);
    fri.trees.push_back(t);
    if (cap) {
        if (cap_size < t->cap_bytes())
            fail(GP_ERR_INVALID_ARGUMENT, "cap_size = ", cap_size, " is smaller than the cap (", t->cap_bytes(),
                 " bytes)");
        read_cap(*t, cap);
    }
}

// omega^-1 of 2^log_n, zeta^-1 of the arity, and shift^-(a^k), as raw words.
void fri_roots(const FieldDesc &f, uint32_t log_n, uint32_t log_a, uint64_t shift, uint32_t k, uint64_t &omega_inv,
               uint64_t &zeta_inv, uint64_t &shift_inv) {
    dispatch_field(f.id, [&](auto F) {
        using Fd = decltype(F);
        using T = typename Fd::T;
        const T w = two_adic_generator<Fd>(log_n);
        const T wi = finv<Fd>(w);
        omega_inv = wi;
        zeta_inv = fpow<Fd>(wi, 1ull << (log_n - log_a));
        T s = (T)shift;
        for (uint32_t i = 0; i < k * log_a; ++i) s = Fd::mul(s, s);  // shift^(a^k)
        shift_inv = finv<Fd>(s);
    });
}

}  // namespace
}  // namespace gp

GP_EXPORT gp_status gp_fri_begin(gp_context *ctx, const gp_buffer *codeword, const gp_fri_options *options, void *cap,
                                 uint64_t cap_size, gp_fri **out) {
    return guard("gp_fri_begin", [&] {
        GP_REQUIRE_PTR(ctx);
        GP_REQUIRE_PTR(out);
        *out = nullptr;
        GP_REQUIRE_PTR(codeword);
        check_buffer(ctx, codeword, "codeword");
        auto *cw = reinterpret_cast<const Buffer *>(codeword);
        if (cw->cols != 1)
            fail(GP_ERR_SHAPE_MISMATCH, "codeword has ", cw->cols, " columns; a FRI codeword is one column");
        FriShape s = fri_shape(options, *cw->field, cw->ext, cw->rows);
        auto *c = reinterpret_cast<Context *>(ctx);
        auto fri = std::make_unique<FriState>();
        fri->ctx = c;
        fri->f = cw->field;
        fri->ext = cw->ext;
        fri->log_a = s.log_a;
        fri->log_n = s.log_n;
        fri->layers = s.layers;
        fri->bitrev = s.bitrev;
        fri->halve = s.halve;
        fri->shift = s.shift;
        fri->mo = s.o.merkle;
        fri->bufs.push_back(new_buffer(c, *cw->field, cw->ext, cw->rows >> s.log_a, 1ull << s.log_a));
        c->backend->fri_to_matrix(cw->field->elem_size, cw->ext, s.log_n, s.log_a, s.bitrev, cw->data,
                                  fri->bufs[0]->data);
        fri_commit_layer(*fri, 0, cap, cap_size);
        *out = reinterpret_cast<gp_fri *>(fri.release());
    });
}

GP_EXPORT gp_status gp_fri_begin_host(gp_context *ctx, gp_field field, uint32_t ext_degree, const void *codeword,
                                      uint64_t n, const gp_fri_options *options, void *cap, uint64_t cap_size,
                                      gp_fri **out) {
    if (out) *out = nullptr;
    gp_buffer *b = nullptr;
    gp_status st = gp_buffer_from_host(ctx, field, ext_degree, n, 1, GP_LAYOUT_ROW_MAJOR, codeword, &b);
    if (st != GP_OK) return st;
    st = gp_fri_begin(ctx, b, options, cap, cap_size, out);
    std::string err = gp_last_error();
    gp_buffer_destroy(b);
    if (st != GP_OK) return set_error(st, err);
    return GP_OK;
}

GP_EXPORT uint32_t gp_fri_layer_count(const gp_fri *fri) {
    return fri ? reinterpret_cast<const FriState *>(fri)->layers : 0;
}

GP_EXPORT uint64_t gp_fri_cap_size(const gp_fri *fri) {
    if (!fri) return 0;
    auto *s = reinterpret_cast<const FriState *>(fri);
    return gp_merkle_cap_size(reinterpret_cast<const gp_merkle_tree *>(s->trees[0]));
}

GP_EXPORT gp_status gp_fri_fold(gp_fri *fri, const void *beta, uint64_t beta_size, void *cap, uint64_t cap_size) {
    return guard("gp_fri_fold", [&] {
        GP_REQUIRE_PTR(fri);
        GP_REQUIRE_PTR(beta);
        auto &s = *reinterpret_cast<FriState *>(fri);
        if (s.folded == s.layers)
            fail(GP_ERR_INVALID_ARGUMENT, "all ", s.layers, " layers are folded already");
        if (beta_size != s.elem_bytes())
            fail(GP_ERR_INVALID_ARGUMENT, "beta_size = ", beta_size, " bytes, but a challenge is one degree-", s.ext,
                 " ", s.f->name, " element (", s.elem_bytes(), " bytes)");
        check_canonical(*s.f, beta, 0, s.ext, "beta");
        const uint32_t k = s.folded;
        FriFoldArgs a;
        a.field = s.f->id;
        a.ext = s.ext;
        a.log_n = s.log_layer(k);
        a.log_a = s.log_a;
        a.bitrev = s.bitrev;
        a.halve = s.halve;
        a.final_out = k + 1 == s.layers;
        fri_roots(*s.f, a.log_n, a.log_a, s.shift, k, a.omega_inv, a.zeta_inv, a.shift_inv);
        const std::vector<uint64_t> bw = words_in(*s.f, beta, s.ext);
        std::copy(bw.begin(), bw.end(), a.beta);
        if (cap && !a.final_out && cap_size < gp_fri_cap_size(fri))
            fail(GP_ERR_INVALID_ARGUMENT, "cap_size = ", cap_size, " is smaller than the cap (", gp_fri_cap_size(fri),
                 " bytes)");
        a.in = s.bufs[k]->data;
        const uint64_t next = 1ull << (a.log_n - a.log_a);
        Buffer *out = a.final_out ? new_buffer(s.ctx, *s.f, s.ext, next, 1)
                                  : new_buffer(s.ctx, *s.f, s.ext, next >> s.log_a, 1ull << s.log_a);
        a.out = out->data;
        try {
            s.ctx->backend->fri_fold(a);
            if (a.final_out) {  // kept on the host only
                s.remainder.resize(next * s.elem_bytes());
                s.ctx->backend->download(*out, s.remainder.data(), GP_LAYOUT_ROW_MAJOR);
                gp_buffer_destroy(reinterpret_cast<gp_buffer *>(out));
            } else {
                s.bufs.push_back(out);
                fri_commit_layer(s, k + 1, cap, cap_size);
            }
        } catch (...) {
            if (!a.final_out && s.bufs.size() > k + 1) s.bufs.pop_back();
            if (s.trees.size() > k + 1) {
                gp_merkle_tree_destroy(reinterpret_cast<gp_merkle_tree *>(s.trees.back()));
                s.trees.pop_back();
            }
            s.remainder.clear();
            gp_buffer_destroy(reinterpret_cast<gp_buffer *>(out));
            throw;
        }
        s.folded++;
    });
}

GP_EXPORT uint64_t gp_fri_remainder_size(const gp_fri *fri) {
    if (!fri) return 0;
    auto *s = reinterpret_cast<const FriState *>(fri);
    return (1ull << s->log_layer(s->layers)) * s->elem_bytes();
}

GP_EXPORT gp_status gp_fri_remainder(const gp_fri *fri, void *out, uint64_t size_bytes) {
    return guard("gp_fri_remainder", [&] {
        GP_REQUIRE_PTR(fri);
        GP_REQUIRE_PTR(out);
        auto &s = *reinterpret_cast<const FriState *>(fri);
        if (s.folded != s.layers)
            fail(GP_ERR_INVALID_ARGUMENT, s.folded, " of ", s.layers, " layers folded; the remainder comes after the last");
        if (size_bytes < s.remainder.size())
            fail(GP_ERR_INVALID_ARGUMENT, "size_bytes = ", size_bytes, " is smaller than the remainder (",
                 s.remainder.size(), " bytes)");
        std::memcpy(out, s.remainder.data(), s.remainder.size());
    });
}

GP_EXPORT gp_status gp_fri_commit(gp_context *ctx, const gp_buffer *codeword, const gp_fri_options *options,
                                  gp_fri_challenge_fn challenge, void *user, gp_fri **out) {
    if (out) *out = nullptr;
    if (!challenge) return set_error(GP_ERR_NULL_POINTER, "gp_fri_commit: argument `challenge` is NULL");
    gp_fri *fri = nullptr;
    gp_status st = gp_fri_begin(ctx, codeword, options, nullptr, 0, &fri);
    if (st != GP_OK) return st;
    auto *s = reinterpret_cast<FriState *>(fri);
    std::vector<unsigned char> cap(gp_fri_cap_size(fri));
    read_cap(*s->trees[0], cap.data());
    std::vector<unsigned char> beta(s->elem_bytes());
    for (uint32_t k = 0; k < s->layers; ++k) {
        st = challenge(user, k, cap.data(), cap.size(), beta.data(), beta.size());
        if (st != GP_OK) {
            gp_fri_destroy(fri);
            return set_error(st, "gp_fri_commit: the challenge callback returned " + std::string(gp_status_name(st)) +
                                     " for layer " + std::to_string(k));
        }
        st = gp_fri_fold(fri, beta.data(), beta.size(), cap.data(), cap.size());
        if (st != GP_OK) {
            std::string err = gp_last_error();
            gp_fri_destroy(fri);
            return set_error(st, err);
        }
    }
    if (out) *out = fri;
    else gp_fri_destroy(fri);
    return GP_OK;
}

namespace gp {
namespace {
uint64_t fri_path_bytes(const FriState &s, uint32_t k) {
    const MerkleTree *t = s.trees[k];
    return (uint64_t)t->path_len() * t->digest_bytes();
}
// Position of query q in layer k, and its group there.
uint64_t fri_position(uint32_t log_n, uint32_t log_a, bool bitrev, uint32_t k, uint64_t q) {
    return bitrev ? q >> (k * log_a) : q & ((1ull << (log_n - k * log_a)) - 1);
}
}  // namespace
}  // namespace gp

GP_EXPORT uint64_t gp_fri_opening_size(const gp_fri *fri) {
    if (!fri) return 0;
    auto &s = *reinterpret_cast<const FriState *>(fri);
    const MerkleTree *t0 = s.trees[0];
    uint64_t total = 0;
    for (uint32_t k = 0; k < s.layers; ++k)  // every layer, committed yet or not
        total += (s.elem_bytes() << s.log_a) +
                 (uint64_t)(s.log_layer(k) - s.log_a - t0->cap_height) * t0->digest_bytes();
    return total;
}

GP_EXPORT gp_status gp_fri_open(const gp_fri *fri, const uint64_t *indices, uint64_t count, void *out,
                                uint64_t size_bytes) {
    return guard("gp_fri_open", [&] {
        GP_REQUIRE_PTR(fri);
        auto &s = *reinterpret_cast<const FriState *>(fri);
        if (s.folded != s.layers)
            fail(GP_ERR_INVALID_ARGUMENT, s.folded, " of ", s.layers, " layers folded; open after the last fold");
        if (count == 0) return;
        GP_REQUIRE_PTR(indices);
        GP_REQUIRE_PTR(out);
        const uint64_t each = gp_fri_opening_size(fri);
        const uint64_t need = checked_mul(count, each, "count * opening size");
        if (size_bytes < need)
            fail(GP_ERR_INVALID_ARGUMENT, "size_bytes = ", size_bytes, " is smaller than ", count, " x ", each, " = ",
                 need, " bytes");
        const uint64_t n = 1ull << s.log_n;
        for (uint64_t i = 0; i < count; ++i)
            if (indices[i] >= n)
                fail(GP_ERR_INVALID_ARGUMENT, "indices[", i, "] = ", indices[i], " is past the end of the codeword (",
                     n, " elements)");
        const uint64_t gbytes = s.elem_bytes() << s.log_a;
        uint64_t off = 0;
        std::vector<uint64_t> groups(count);
        std::vector<unsigned char> rows, paths;
        for (uint32_t k = 0; k < s.trees.size(); ++k) {
            for (uint64_t i = 0; i < count; ++i) {
                uint64_t row;
                uint32_t member;
                fri_slot(s.log_layer(k), s.log_a, s.bitrev, fri_position(s.log_n, s.log_a, s.bitrev, k, indices[i]),
                         row, member);
                groups[i] = row;
            }
            const uint64_t pb = fri_path_bytes(s, k);
            rows.resize(count * gbytes);
            paths.resize(count * pb);
            s.ctx->backend->merkle_open(*s.trees[k], groups.data(), count, rows.data(), pb ? paths.data() : nullptr);
            for (uint64_t i = 0; i < count; ++i) {
                unsigned char *dst = static_cast<unsigned char *>(out) + i * each + off;
                std::memcpy(dst, rows.data() + i * gbytes, gbytes);
                if (pb) std::memcpy(dst + gbytes, paths.data() + i * pb, pb);
            }
            off += gbytes + pb;
        }
    });
}

GP_EXPORT gp_status gp_fri_verify(const gp_fri_options *options, gp_field field, uint32_t ext_degree, uint64_t n,
                                  const void *caps, uint64_t caps_size, const void *betas, uint64_t betas_size,
                                  const void *remainder, uint64_t remainder_size, uint64_t index, const void *opening,
                                  uint64_t opening_size) {
    return guard("gp_fri_verify", [&] {
        GP_REQUIRE_PTR(caps);
        GP_REQUIRE_PTR(betas);
        GP_REQUIRE_PTR(remainder);
        GP_REQUIRE_PTR(opening);
        const FieldDesc &f = field_desc(field);
        check_ext_degree(f, ext_degree);
        FriShape s = fri_shape(options, f, ext_degree, n);
        const TreeSpec spec = tree_spec(s.o.merkle, f, "the FRI layers");
        const uint64_t eb = (uint64_t)ext_degree * f.elem_size, gbytes = eb << s.log_a;
        const uint64_t cap_bytes = ((uint64_t)spec.digest * spec.word_size) << s.o.merkle.cap_height;
        auto exact = [](uint64_t got, uint64_t want, const char *what) {
            if (got != want) fail(GP_ERR_SHAPE_MISMATCH, what, " = ", got, " bytes, but the shape gives ", want);
        };
        exact(caps_size, cap_bytes * s.layers, "caps_size");
        exact(betas_size, eb * s.layers, "betas_size");
        exact(remainder_size, eb << s.log_final, "remainder_size");
        uint64_t total = 0;
        for (uint32_t k = 0; k < s.layers; ++k)
            total += gbytes + (uint64_t)(s.log_n - (k + 1) * s.log_a - s.o.merkle.cap_height) * spec.digest *
                                  spec.word_size;
        exact(opening_size, total, "opening_size");
        if (index >= n) fail(GP_ERR_INVALID_ARGUMENT, "index = ", index, " is past the end of the codeword (", n, ")");
        check_canonical(f, betas, 0, (uint64_t)ext_degree * s.layers, "betas");
        check_canonical(f, remainder, 0, (uint64_t)ext_degree << s.log_final, "remainder");
        const auto *op = static_cast<const unsigned char *>(opening);
        uint64_t off = 0;
        ext_dispatch(f.id, ext_degree, [&](auto F, auto Dc) {
            using Fd = decltype(F);
            using T = typename Fd::T;
            constexpr int D = decltype(Dc)::value;
            auto ext_at = [&](const void *base, uint64_t i) {
                Ext<Fd, D> e;
                std::memcpy(e.c, static_cast<const unsigned char *>(base) + i * eb, eb);
                return e;
            };
            for (uint32_t k = 0; k < s.layers; ++k) {
                const uint32_t log_nk = s.log_n - k * s.log_a;
                const uint64_t p = fri_position(s.log_n, s.log_a, s.bitrev, k, index);
                uint64_t g;
                uint32_t member;
                fri_slot(log_nk, s.log_a, s.bitrev, p, g, member);
                const uint64_t pb = (uint64_t)(log_nk - s.log_a - s.o.merkle.cap_height) * spec.digest * spec.word_size;
                const gp_matrix_dims dims = {1ull << (log_nk - s.log_a), 1u << s.log_a, ext_degree};
                const gp_status st = gp_merkle_verify(&s.o.merkle, field, &dims, 1,
                                                      static_cast<const unsigned char *>(caps) + k * cap_bytes,
                                                      cap_bytes, g, op + off, gbytes, op + off + gbytes, pb);
                if (st == GP_ERR_VERIFY_FAILED)
                    fail(GP_ERR_VERIFY_FAILED, "layer ", k, ": the group of position ", p,
                         " does not hash to the layer's cap");
                if (st != GP_OK) fail(st, "layer ", k, ": ", gp_last_error());
                // Fold the group and compare with the next layer or the remainder.
                Ext<Fd, D> v[8];
                for (uint32_t m = 0; m < (1u << s.log_a); ++m) v[m] = ext_at(op + off, m);
                uint64_t omega_inv, zeta_inv, shift_inv;
                fri_roots(f, log_nk, s.log_a, s.shift, k, omega_inv, zeta_inv, shift_inv);
                const uint64_t e = s.bitrev ? bit_reverse(g, log_nk - s.log_a) : g;
                const T x0inv = Fd::mul((T)shift_inv, fpow<Fd>((T)omega_inv, e));
                const Ext<Fd, D> beta = ext_at(betas, k);
                const Ext<Fd, D> folded = fri_fold_values<Fd, D>(v, s.log_a, s.bitrev, x0inv, (T)zeta_inv, beta,
                                                                 s.halve, finv<Fd>((T)(1u << s.log_a)));
                off += gbytes + pb;
                const uint64_t pn = fri_position(s.log_n, s.log_a, s.bitrev, k + 1, index);
                Ext<Fd, D> want;
                if (k + 1 == s.layers) {
                    want = ext_at(remainder, pn);
                } else {
                    uint64_t g2;
                    uint32_t m2;
                    fri_slot(log_nk - s.log_a, s.log_a, s.bitrev, pn, g2, m2);
                    want = ext_at(op + off, m2);
                }
                if (!(folded == want))
                    fail(GP_ERR_VERIFY_FAILED, "layer ", k, ": folding the group of position ", p,
                         " does not give the value at position ", pn, " of layer ", k + 1);
            }
        });
    });
}

GP_EXPORT void gp_fri_destroy(gp_fri *fri) {
    delete reinterpret_cast<FriState *>(fri);
}

/* ------------------------------------------------------------------------ */
/* OOD and DEEP                                                             */
/* ------------------------------------------------------------------------ */

GP_EXPORT void gp_ood_options_init(gp_ood_options *o) {
    if (!o) return;
    std::memset(o, 0, sizeof(*o));
    o->struct_size = sizeof(*o);
    o->order = GP_ORDER_NATURAL;
}

namespace gp {
namespace {

// A validated OOD/DEEP request: field, E, shape, points.
struct OodShape {
    const FieldDesc *f;
    uint32_t E, log_m, log_nb;
    bool bitrev;
    uint64_t shift, ncols = 0;
    std::vector<const Buffer *> bufs;
    std::vector<uint64_t> z;  // num_points * E words
};

OodShape ood_shape(gp_context *ctx, const gp_buffer *const *columns, uint32_t count, const gp_ood_options *options,
                   const void *points, uint32_t num_points) {
    OodShape s;
    s.bufs = checked_matrices(ctx, columns, count);
    const FieldDesc &f = *s.bufs[0]->field;
    s.f = &f;
    gp_ood_options o = read_options(options, gp_ood_options_init, "gp_ood_options");
    s.E = o.challenge_degree ? o.challenge_degree : (f.id == FieldId::Goldilocks ? 3 : 4);
    check_ext_degree(f, s.E, "options->challenge_degree");
    const uint64_t m = s.bufs[0]->rows;
    for (size_t i = 0; i < s.bufs.size(); ++i) {
        if (s.bufs[i]->rows != m)
            fail(GP_ERR_SHAPE_MISMATCH, "columns[", i, "] has ", s.bufs[i]->rows, " rows but columns[0] has ", m);
        if (s.bufs[i]->ext != 1 && s.bufs[i]->ext != s.E)
            fail(GP_ERR_SHAPE_MISMATCH, "columns[", i, "] has extension degree ", s.bufs[i]->ext,
                 "; columns must be base columns or of the challenge degree ", s.E);
        s.ncols += s.bufs[i]->cols;
    }
    s.log_m = check_log_size(f, m, "rows");
    const uint64_t nb = o.degree_bound ? o.degree_bound : m;
    if (!is_pow2(nb) || nb > m)
        fail(GP_ERR_INVALID_ARGUMENT, "options->degree_bound = ", o.degree_bound, " is not a power of two <= ", m);
    s.log_nb = log2_exact(nb);
    const int order = raw(o.order);
    if (order != GP_ORDER_NATURAL && order != GP_ORDER_BIT_REVERSED)
        fail(GP_ERR_INVALID_ARGUMENT, "options->order = ", order, " is not a gp_order");
    s.bitrev = order == GP_ORDER_BIT_REVERSED;
    s.shift = o.shift ? o.shift : f.generator;
    check_shift(f, s.shift, "options->shift");
    if (num_points == 0) fail(GP_ERR_INVALID_ARGUMENT, "num_points = 0");
    GP_REQUIRE_PTR(points);
    check_canonical(f, points, 0, (uint64_t)num_points * s.E, "points");
    s.z = words_in(f, points, (uint64_t)num_points * s.E);
    // No point may lie in the coset the formulas divide by: z^N != s^N with
    // N = degree bound (OOD) or M (DEEP; a superset of the former).
    ext_dispatch(f.id, s.E, [&](auto F, auto Ec) {
        using Fd = decltype(F);
        constexpr int E = decltype(Ec)::value;
        const auto zs = ext_from_words<Fd, E>(s.z);
        for (size_t j = 0; j < zs.size(); ++j) {
            const auto sm = Ext<Fd, E>::from_base((typename Fd::T)s.shift).pow(m);
            if (zs[j].pow(m) == sm)
                fail(GP_ERR_INVALID_ARGUMENT, "points[", j, "] lies in the evaluation coset (z^", m, " = shift^", m, ")");
        }
    });
    return s;
}

}  // namespace
}  // namespace gp

GP_EXPORT gp_status gp_evaluate_ood(gp_context *ctx, const gp_buffer *const *columns, uint32_t count,
                                    const gp_ood_options *options, const void *points, uint32_t num_points, void *out,
                                    uint64_t size_bytes) {
    return guard("gp_evaluate_ood", [&] {
        GP_REQUIRE_PTR(ctx);
        OodShape s = ood_shape(ctx, columns, count, options, points, num_points);
        GP_REQUIRE_PTR(out);
        const uint64_t need = (uint64_t)num_points * s.ncols * s.E * s.f->elem_size;
        if (size_bytes < need)
            fail(GP_ERR_INVALID_ARGUMENT, "size_bytes = ", size_bytes, " is smaller than ", num_points, " points x ",
                 s.ncols, " columns x ", s.E, " coefficients (", need, " bytes)");
        auto *c = reinterpret_cast<Context *>(ctx);
        uint64_t base_cols = 0;
        for (const Buffer *b : s.bufs) base_cols += b->base_cols();
        std::vector<uint64_t> result((uint64_t)num_points * s.ncols * s.E);
        ext_dispatch(s.f->id, s.E, [&](auto F, auto Ec) {
            using Fd = decltype(F);
            using T = typename Fd::T;
            constexpr int E = decltype(Ec)::value;
            const T omega_n = two_adic_generator<Fd>(s.log_nb);
            const T sn = fpow<Fd>((T)s.shift, 1ull << s.log_nb);
            const T scale = finv<Fd>(Fd::mul(sn, (T)((1ull << s.log_nb) % Fd::P)));
            const auto zs = ext_from_words<Fd, E>(s.z);
            std::vector<uint64_t> sums(base_cols * E);
            for (uint32_t j = 0; j < num_points; ++j) {
                OodArgs a;
                a.field = s.f->id;
                a.E = E;
                a.log_m = s.log_m;
                a.log_nb = s.log_nb;
                a.bitrev = s.bitrev;
                a.shift = s.shift;
                a.omega_n = omega_n;
                for (int e = 0; e < E; ++e) a.z[e] = zs[j].c[e];
                a.bufs = s.bufs;
                c->backend->ood_sums(a, sums.data());
                // (z^N - s^N) / (N s^N), then recombine extension columns.
                const Ext<Fd, E> factor = (zs[j].pow(1ull << s.log_nb) - Ext<Fd, E>::from_base(sn)).scale(scale);
                uint64_t bc = 0, k = 0;
                for (const Buffer *b : s.bufs)
                    for (uint64_t col = 0; col < b->cols; ++col, ++k) {
                        Ext<Fd, E> v = Ext<Fd, E>::zero(), xpow = Ext<Fd, E>::from_base(1), xgen = Ext<Fd, E>::zero();
                        if constexpr (E > 1) xgen.c[1] = 1;
                        for (uint32_t comp = 0; comp < b->ext; ++comp, ++bc) {
                            Ext<Fd, E> part;
                            for (int e = 0; e < E; ++e) part.c[e] = (T)sums[bc * E + e];
                            v = v + part * xpow;
                            xpow = xpow * xgen;
                        }
                        v = v * factor;
                        for (int e = 0; e < E; ++e) result[((uint64_t)j * s.ncols + k) * E + e] = v.c[e];
                    }
            }
        });
        words_out(*s.f, result, out);
    });
}

GP_EXPORT gp_status gp_deep_composition(gp_context *ctx, const gp_buffer *const *columns, uint32_t count,
                                        const gp_ood_options *options, const void *points, uint32_t num_points,
                                        const void *values, const void *alphas, gp_buffer *out) {
    return guard("gp_deep_composition", [&] {
        GP_REQUIRE_PTR(ctx);
        OodShape s = ood_shape(ctx, columns, count, options, points, num_points);
        GP_REQUIRE_PTR(values);
        GP_REQUIRE_PTR(alphas);
        GP_REQUIRE_PTR(out);
        check_buffer(ctx, out, "out");
        auto *ob = reinterpret_cast<Buffer *>(out);
        if (ob->field != s.f || ob->ext != s.E || ob->cols != 1 || ob->rows != (1ull << s.log_m))
            fail(GP_ERR_SHAPE_MISMATCH, "out must be one ", s.f->name, " column of degree ", s.E, " with ",
                 1ull << s.log_m, " rows; it has ", ob->cols, " column(s) of degree ", ob->ext, " over ",
                 ob->field->name, " with ", ob->rows, " rows");
        for (const Buffer *b : s.bufs)
            if (b == ob) fail(GP_ERR_INVALID_ARGUMENT, "out is also one of the input columns");
        const uint64_t nwords = (uint64_t)num_points * s.ncols * s.E;
        check_canonical(*s.f, values, 0, nwords, "values");
        check_canonical(*s.f, alphas, 0, nwords, "alphas");
        DeepArgs a;
        a.field = s.f->id;
        a.E = s.E;
        a.log_m = s.log_m;
        a.npoints = num_points;
        a.bitrev = s.bitrev;
        a.shift = s.shift;
        a.ncols = s.ncols;
        a.bufs = s.bufs;
        a.z = s.z;
        a.alpha = words_in(*s.f, alphas, nwords);
        a.out = ob;
        ext_dispatch(s.f->id, s.E, [&](auto F, auto Ec) {
            using Fd = decltype(F);
            constexpr int E = decltype(Ec)::value;
            a.omega_m = two_adic_generator<Fd>(s.log_m);
            const auto al = ext_from_words<Fd, E>(a.alpha), vs = ext_from_words<Fd, E>(words_in(*s.f, values, nwords));
            for (uint32_t j = 0; j < num_points; ++j) {
                Ext<Fd, E> corr = Ext<Fd, E>::zero();
                for (uint64_t k = 0; k < s.ncols; ++k) corr = corr + al[j * s.ncols + k] * vs[j * s.ncols + k];
                for (int e = 0; e < E; ++e) a.corr.push_back(corr.c[e]);
            }
        });
        reinterpret_cast<Context *>(ctx)->backend->deep(a);
    });
}

/* ------------------------------------------------------------------------ */
/* Constraint commitment                                                    */
/* ------------------------------------------------------------------------ */

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
        GP_REQUIRE_PTR(ctx);
        GP_REQUIRE_PTR(segments);
        GP_REQUIRE_PTR(tree);
        *segments = nullptr;
        *tree = nullptr;
        GP_REQUIRE_PTR(evaluations);
        check_buffer(ctx, evaluations, "evaluations");
        auto *c = reinterpret_cast<Context *>(ctx);
        const Buffer &ev = *reinterpret_cast<const Buffer *>(evaluations);
        gp_constraint_options o = read_options(options, gp_constraint_options_init, "gp_constraint_options");
        o.merkle.struct_size = sizeof(gp_merkle_options);
        const FieldDesc &f = *ev.field;
        if (ev.cols != 1)
            fail(GP_ERR_SHAPE_MISMATCH, "evaluations has ", ev.cols, " columns; the composition is one column");
        const int split = raw(o.split);
        if (split != GP_COMPOSITION_PLONKY3 && split != GP_COMPOSITION_WINTERFELL)
            fail(GP_ERR_INVALID_ARGUMENT, "options->split = ", split, " is not a gp_composition_split");
        const uint32_t log_nd = check_log_size(f, ev.rows, "evaluation count");
        if (!is_pow2(o.segments) || o.segments > ev.rows)
            fail(GP_ERR_INVALID_ARGUMENT, "options->segments = ", o.segments,
                 " is not a power of two dividing the ", ev.rows, " evaluations");
        if (!is_pow2(o.blowup) || o.blowup > 32)
            fail(GP_ERR_INVALID_ARGUMENT, "options->blowup = ", o.blowup, " is not a power of two in [1, 32]");
        const int order = raw(o.output_order);
        if (order != GP_ORDER_NATURAL && order != GP_ORDER_BIT_REVERSED)
            fail(GP_ERR_INVALID_ARGUMENT, "options->output_order = ", order, " is not a gp_order");
        const uint64_t shift = o.shift ? o.shift : f.generator;
        check_shift(f, shift, "options->shift");
        const uint64_t D = o.segments, N = ev.rows / D;
        check_log_size(f, N * o.blowup, "segment LDE size");
        tree_spec(o.merkle, f, "the segments");  // fail before any work
        // Every intermediate is a buffer of the context, released on the way out.
        std::vector<gp_buffer *> temps;
        gp_buffer *out = nullptr;
        auto make = [&](uint64_t rows, uint64_t cols) {
            Buffer *b = new_buffer(c, f, ev.ext, rows, cols);
            temps.push_back(reinterpret_cast<gp_buffer *>(b));
            return b;
        };
        auto check = [&](gp_status st) {
            if (st != GP_OK) fail(st, gp_last_error());
        };
        try {
            Buffer *seg = make(N * o.blowup, D);
            Buffer *one = make(N, 1), *lde = make(N * o.blowup, 1);
            gp_lde_options lo;
            gp_lde_options_init(&lo);
            lo.blowup = o.blowup;
            lo.shift = shift;
            lo.output_order = (gp_order)order;
            if (split == GP_COMPOSITION_PLONKY3) {
                // Segment i: rows i, i + D, ... on shift * w^i * <w^D>.
                dispatch_field(f.id, [&](auto F) {
                    using Fd = decltype(F);
                    const auto w = two_adic_generator<Fd>(log_nd);
                    for (uint64_t i = 0; i < D; ++i) {
                        c->backend->copy_rows(ev, 0, i, D, N, *one, 0);
                        lo.input_shift = Fd::mul((typename Fd::T)shift, fpow<Fd>(w, i));
                        check(gp_lde_batch(ctx, reinterpret_cast<gp_buffer *>(one), &lo,
                                           reinterpret_cast<gp_buffer *>(lde)));
                        c->backend->copy_rows(*lde, 0, 0, 1, N * o.blowup, *seg, i);
                    }
                });
            } else {
                // Coefficients of h, then each segment's N coefficients
                // evaluated on the LDE coset.
                Buffer *coeffs = make(ev.rows, 1);
                c->backend->copy_rows(ev, 0, 0, 1, ev.rows, *coeffs, 0);
                gp_ntt_options no;
                gp_ntt_options_init(&no);
                no.direction = GP_NTT_INVERSE;
                no.shift = shift;
                check(gp_ntt_batch(ctx, reinterpret_cast<gp_buffer *>(coeffs), &no));
                gp_ntt_options fo;
                gp_ntt_options_init(&fo);
                fo.shift = shift;
                fo.output_order = (gp_order)order;
                for (uint64_t i = 0; i < D; ++i) {
                    c->backend->copy_rows(*coeffs, 0, i * N, 1, N, *lde, 0);
                    check(gp_ntt_batch(ctx, reinterpret_cast<gp_buffer *>(lde), &fo));
                    c->backend->copy_rows(*lde, 0, 0, 1, N * o.blowup, *seg, i);
                }
            }
            MerkleTree *t = commit_matrices(c, {seg}, o.merkle);
            out = reinterpret_cast<gp_buffer *>(seg);
            temps.erase(std::find(temps.begin(), temps.end(), out));
            *tree = reinterpret_cast<gp_merkle_tree *>(t);
            *segments = out;
        } catch (...) {
            for (gp_buffer *b : temps) gp_buffer_destroy(b);
            throw;
        }
        for (gp_buffer *b : temps) gp_buffer_destroy(b);
    });
}
