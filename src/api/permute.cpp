// SPDX-License-Identifier: MIT OR Apache-2.0
// C entry points: batched hash permutations.
#include "api/common.h"
#include "hash/permutations.h"

using namespace gp;

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
        ContextCall call(ctx, HandleKind::Context, "ctx");
        int id = raw(perm);
        PermShape p = perm_shape(id, "perm");
        if (const char *hash = perm::hash_name(id))
            fail(GP_ERR_UNSUPPORTED, "perm = ", hash, " is a hash function; it has no permutation to apply");
        if (count == 0) return;  // nothing to permute
        GP_REQUIRE_PTR(states);
        checked_mul(checked_mul(count, p.width, "count * width"), p.elem_size, "state bytes");
        reinterpret_cast<Context *>(ctx)->backend->permute(id, states, count);
    });
}
