// SPDX-License-Identifier: MIT OR Apache-2.0
// C entry points: the FRI commitment, its openings and verification.
#include "api/common.h"
#include "core/fri.h"

using namespace gp;

namespace {
FriState *fri_of(gp_fri *f) { return reinterpret_cast<FriState *>(f); }
const FriState *fri_of(const gp_fri *f) { return reinterpret_cast<const FriState *>(f); }

// The FRI shape of a codeword buffer of the context.
FriShape codeword_shape(gp_context *ctx, const gp_buffer *codeword, const gp_fri_options *options) {
    GP_REQUIRE_PTR(codeword);
    check_buffer(ctx, codeword, "codeword");
    const Buffer *cw = buf_of(codeword);
    if (cw->cols != 1)
        fail(GP_ERR_SHAPE_MISMATCH, "codeword has ", cw->cols, " columns; a FRI codeword is one column");
    return fri_shape(read_options(options, gp_fri_options_init, "gp_fri_options"), *cw->field, cw->ext, cw->rows);
}

// The FRI shape of a codeword of n elements described by field and degree.
FriShape described_shape(const gp_field &field, uint32_t ext_degree, uint64_t n, const gp_fri_options *options) {
    const FieldDesc &f = field_desc(field);
    check_ext_degree(f, ext_degree);
    return fri_shape(read_options(options, gp_fri_options_init, "gp_fri_options"), f, ext_degree, n);
}
}  // namespace

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

GP_EXPORT gp_status gp_fri_begin(gp_context *ctx, const gp_buffer *codeword, const gp_fri_options *options, void *cap,
                                 uint64_t cap_size, gp_fri **out) {
    return guard("gp_fri_begin", [&] {
        ContextCall call(ctx, HandleKind::Context, "ctx");
        GP_REQUIRE_PTR(out);
        *out = nullptr;
        const FriShape s = codeword_shape(ctx, codeword, options);
        *out = reinterpret_cast<gp_fri *>(fri_begin(ctx_of(ctx), *buf_of(codeword), s, cap, cap_size).release());
    });
}

GP_EXPORT gp_status gp_fri_begin_host(gp_context *ctx, gp_field field, uint32_t ext_degree, const void *codeword,
                                      uint64_t n, const gp_fri_options *options, void *cap, uint64_t cap_size,
                                      gp_fri **out) {
    return guard("gp_fri_begin_host", [&] {
        ContextCall call(ctx, HandleKind::Context, "ctx");
        GP_REQUIRE_PTR(codeword);
        GP_REQUIRE_PTR(out);
        *out = nullptr;
        const FriShape s = described_shape(field, ext_degree, n, options);
        Context *c = ctx_of(ctx);
        Buffer *b = buffer_from_host(c, *s.f, ext_degree, n, 1, GP_LAYOUT_ROW_MAJOR, codeword, "codeword");
        try {
            *out = reinterpret_cast<gp_fri *>(fri_begin(c, *b, s, cap, cap_size).release());
        } catch (...) {
            release_buffer(b);
            throw;
        }
        release_buffer(b);
    });
}

// Fixed figures of a live FRI commitment; 0 for NULL or a dead handle.
GP_EXPORT uint32_t gp_fri_layer_count(const gp_fri *fri) {
    return with_live(fri, HandleKind::Fri, (uint32_t)0, [&] { return fri_of(fri)->layers; });
}

GP_EXPORT uint64_t gp_fri_cap_size(const gp_fri *fri) {
    return with_live(fri, HandleKind::Fri, (uint64_t)0, [&] { return fri_of(fri)->cap_size(); });
}

GP_EXPORT gp_status gp_fri_fold(gp_fri *fri, const void *beta, uint64_t beta_size, void *cap, uint64_t cap_size) {
    return guard("gp_fri_fold", [&] {
        ContextCall call(fri, HandleKind::Fri, "fri");
        GP_REQUIRE_PTR(beta);
        fri_fold(*fri_of(fri), beta, beta_size, cap, cap_size);
    });
}

GP_EXPORT uint64_t gp_fri_remainder_size(const gp_fri *fri) {
    return with_live(fri, HandleKind::Fri, (uint64_t)0, [&] { return fri_of(fri)->remainder_size(); });
}

GP_EXPORT gp_status gp_fri_remainder(const gp_fri *fri, void *out, uint64_t size_bytes) {
    return guard("gp_fri_remainder", [&] {
        ContextCall call(fri, HandleKind::Fri, "fri");
        GP_REQUIRE_PTR(out);
        const FriState &s = *fri_of(fri);
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
    return guard("gp_fri_commit", [&] {
        if (out) *out = nullptr;
        ContextCall call(ctx, HandleKind::Context, "ctx");
        GP_REQUIRE_PTR(challenge);
        const FriShape s = codeword_shape(ctx, codeword, options);
        std::unique_ptr<FriState> fri = fri_commit(ctx_of(ctx), *buf_of(codeword), s, challenge, user);
        if (out) *out = reinterpret_cast<gp_fri *>(fri.release());
    });
}

GP_EXPORT uint64_t gp_fri_opening_size(const gp_fri *fri) {
    return with_live(fri, HandleKind::Fri, (uint64_t)0, [&] { return fri_of(fri)->opening_size(); });
}

GP_EXPORT gp_status gp_fri_open(const gp_fri *fri, const uint64_t *indices, uint64_t count, void *out,
                                uint64_t size_bytes) {
    return guard("gp_fri_open", [&] {
        ContextCall call(fri, HandleKind::Fri, "fri");
        fri_open(*fri_of(fri), indices, count, out, size_bytes);
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
        fri_verify(described_shape(field, ext_degree, n, options), caps, caps_size, betas, betas_size, remainder,
                   remainder_size, index, opening, opening_size);
    });
}

GP_EXPORT void gp_fri_destroy(gp_fri *fri) {
    if (!fri || !is_live(fri, HandleKind::Fri)) return;
    quietly("gp_fri_destroy", [&] {
        ContextCall call(fri, HandleKind::Fri, "fri");
        call.refuse_if_nested("gp_fri_destroy");
        delete fri_of(fri);
    });
}
