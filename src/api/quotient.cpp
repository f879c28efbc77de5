// SPDX-License-Identifier: MIT OR Apache-2.0
// C entry points: constraint programs and quotient evaluation.
#include "api/common.h"
#include "core/quotient.h"
#include "core/registry.h"

using namespace gp;

namespace {
ProgramHandle *program_of(const gp_constraint_program *p) {
    return reinterpret_cast<ProgramHandle *>(const_cast<gp_constraint_program *>(p));
}

// The compiled program behind a live handle, held for the caller's use
// (a concurrent destroy leaves it alive until released).
std::shared_ptr<const CompiledProgram> held_program(const gp_constraint_program *p, const char *arg) {
    if (!p) fail(GP_ERR_NULL_POINTER, "argument `", arg, "` is NULL");
    auto held = with_live(p, HandleKind::Program, std::shared_ptr<const CompiledProgram>(),
                          [&] { return program_of(p)->program; });
    if (!held) fail(GP_ERR_INVALID_ARGUMENT, arg, " is not a live gp_constraint_program");
    return held;
}
}  // namespace

GP_EXPORT void gp_constraint_program_desc_init(gp_constraint_program_desc *d) {
    if (!d) return;
    std::memset(d, 0, sizeof(*d));
    d->struct_size = sizeof(*d);
    d->ext_degree = 1;
}

GP_EXPORT gp_status gp_constraint_program_create(const gp_constraint_program_desc *desc,
                                                 gp_constraint_program **out) {
    return guard("gp_constraint_program_create", [&] {
        GP_REQUIRE_PTR(out);
        *out = nullptr;
        GP_REQUIRE_PTR(desc);
        const gp_constraint_program_desc d =
            read_options(desc, gp_constraint_program_desc_init, "gp_constraint_program_desc");
        auto h = std::make_unique<ProgramHandle>();
        h->program = compile_program(d);
        register_handle(h.get(), HandleKind::Program, nullptr);
        *out = reinterpret_cast<gp_constraint_program *>(h.release());
    });
}

GP_EXPORT void gp_constraint_program_destroy(gp_constraint_program *program) {
    if (!program || !take_handle(program, HandleKind::Program)) return;
    delete program_of(program);
}

GP_EXPORT gp_status gp_constraint_program_get_info(const gp_constraint_program *program,
                                                   gp_constraint_program_info *info) {
    return guard("gp_constraint_program_get_info", [&] {
        const auto p = held_program(program, "program");
        GP_REQUIRE_PTR(info);
        check_struct_size(info->struct_size, "gp_constraint_program_info");
        gp_constraint_program_info r;
        std::memset(&r, 0, sizeof(r));
        r.struct_size = sizeof(r);
        r.nodes = p->nodes;
        r.instructions = p->code.size();
        r.base_slots = p->base_slots;
        r.ext_slots = p->ext_slots;
        r.constraints = p->constraints;
        r.max_degree = p->max_degree;
        const uint32_t n = info->struct_size < sizeof(r) ? info->struct_size : (uint32_t)sizeof(r);
        std::memcpy(info, &r, n);
        info->struct_size = n;
    });
}

GP_EXPORT void gp_quotient_options_init(gp_quotient_options *o) {
    if (!o) return;
    std::memset(o, 0, sizeof(*o));
    o->struct_size = sizeof(*o);
    o->order = GP_ORDER_BIT_REVERSED;
}

GP_EXPORT gp_status gp_quotient_evaluate(gp_context *ctx, const gp_constraint_program *program,
                                         const gp_quotient_options *options, gp_buffer *out) {
    return guard("gp_quotient_evaluate", [&] {
        ContextCall call(ctx, HandleKind::Context, "ctx");
        const auto p = held_program(program, "program");
        GP_REQUIRE_PTR(options);
        const gp_quotient_options o = read_options(options, gp_quotient_options_init, "gp_quotient_options");
        if (o.main) check_buffer(ctx, o.main, "options->main");
        if (o.preprocessed) check_buffer(ctx, o.preprocessed, "options->preprocessed");
        GP_REQUIRE_PTR(out);
        check_buffer(ctx, out, "out");
        evaluate_quotient(ctx_of(ctx), *p, o, o.main ? buf_of(o.main) : nullptr,
                          o.preprocessed ? buf_of(o.preprocessed) : nullptr, *buf_of(out));
    });
}
