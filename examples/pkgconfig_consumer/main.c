// SPDX-License-Identifier: MIT OR Apache-2.0
/*
 * Smallest gpuprover consumer: prints the library version and the first
 * value of the coset LDE of an 8-row Goldilocks column on the CPU backend.
 * Built by the Makefile (pkg-config) and by CMakeLists.txt (find_package) to
 * check that an installed gpuprover can be found and linked both ways.
 */
#include <inttypes.h>
#include <stdio.h>

#include <gpuprover.h>

static int fail(const char *what, gp_status status)
{
    /* gp_last_error() first: it is valid only until the next gp_* call. */
    const char *message = gp_last_error();
    fprintf(stderr, "consumer: %s failed: %s", what, message);
    fprintf(stderr, " (%s)\n", gp_status_name(status));
    return 1;
}

int main(void)
{
    enum { ROWS = 8, BLOWUP = 2 };
    uint64_t trace[ROWS];
    uint64_t lde[ROWS * BLOWUP];
    gp_context_options ctx_opts;
    gp_lde_options lde_opts;
    gp_context *ctx = NULL;
    gp_buffer *out = NULL;
    gp_status st;
    int rc = 1;
    int i;

    printf("gpuprover %s\n", gp_version());
    if (gp_version_number() != GP_VERSION_NUMBER) {
        fprintf(stderr, "consumer: header is version %d but the library is %u\n",
                GP_VERSION_NUMBER, (unsigned)gp_version_number());
        return 1;
    }

    for (i = 0; i < ROWS; i++) {
        trace[i] = (uint64_t)(i * i + 1); /* evaluations of one column */
    }

    gp_context_options_init(&ctx_opts);
    ctx_opts.backend = GP_BACKEND_CPU;
    st = gp_context_create(&ctx_opts, &ctx);
    if (st != GP_OK) {
        return fail("gp_context_create", st);
    }

    st = gp_buffer_create(ctx, GP_FIELD_GOLDILOCKS, 1, ROWS * BLOWUP, 1, &out);
    if (st != GP_OK) {
        rc = fail("gp_buffer_create", st);
        goto done;
    }

    gp_lde_options_init(&lde_opts);
    lde_opts.blowup = BLOWUP;
    st = gp_lde_batch_host(ctx, GP_FIELD_GOLDILOCKS, 1, trace, ROWS, 1,
                           &lde_opts, out);
    if (st != GP_OK) {
        rc = fail("gp_lde_batch_host", st);
        goto done;
    }

    st = gp_buffer_to_host(out, GP_LAYOUT_COL_MAJOR, lde, sizeof lde);
    if (st != GP_OK) {
        rc = fail("gp_buffer_to_host", st);
        goto done;
    }

    printf("first LDE value: %" PRIu64 "\n", lde[0]);
    rc = 0;

done:
    gp_buffer_destroy(out);
    gp_context_destroy(ctx);
    return rc;
}
