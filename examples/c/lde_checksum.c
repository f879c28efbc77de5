// SPDX-License-Identifier: MIT OR Apache-2.0
/* The cross-language example: a deterministic Goldilocks trace, its LDE on
 * the best backend present, and a checksum that every binding's example must
 * print identically.
 *
 *   trace:    n = 1024 rows x 8 columns, value(r, c) = x^3 mod p, x = r*8 + c + 1
 *   LDE:      blowup 4, default coset shift (7), bit-reversed output
 *   checksum: FNV-1a 64 over the output downloaded column-major, each element
 *             as 8 little-endian bytes
 *   root:     the LDE buffer committed as one matrix with Plonky3's Poseidon2
 *             default for Goldilocks (GP_MERKLE_FIELD_SPONGE,
 *             GP_PERM_POSEIDON2_GOLDILOCKS_8, default digest 4, rate 4, cap
 *             height 0); gp_merkle_root's 32 bytes printed as hex, in order
 *
 * Build against an installed library:
 *   cc -std=c99 lde_checksum.c $(pkg-config --cflags --libs gpuprover) -o lde_checksum
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>

#include <gpuprover.h>

#define ROWS 1024u
#define COLS 8u
#define BLOWUP 4u

static int check(gp_status s, const char *what) {
    if (s != GP_OK) {
        fprintf(stderr, "%s: %s: %s\n", what, gp_status_name(s), gp_last_error());
        return 1;
    }
    return 0;
}

int main(void) {
    static uint64_t trace[ROWS * COLS];
    static uint64_t out[ROWS * BLOWUP * COLS];
    const uint64_t p = 0xffffffff00000001ull;
    gp_context *ctx = NULL;
    gp_buffer *lde = NULL;
    gp_merkle_tree *tree = NULL;
    gp_lde_options o;
    gp_merkle_options mo;
    unsigned char root[32];
    uint64_t h = 0xcbf29ce484222325ull;
    uint32_t r, c, i, b;
    int rc = 1;

    for (c = 0; c < COLS; ++c)
        for (r = 0; r < ROWS; ++r) {
            uint64_t x = (uint64_t)r * COLS + c + 1;
            trace[c * ROWS + r] = (x * x * x) % p;
        }
    if (check(gp_context_create(NULL, &ctx), "gp_context_create")) return 1;
    if (check(gp_buffer_create(ctx, GP_FIELD_GOLDILOCKS, 1, ROWS * BLOWUP, COLS, &lde), "gp_buffer_create"))
        goto done;
    gp_lde_options_init(&o);
    o.blowup = BLOWUP;
    o.output_order = GP_ORDER_BIT_REVERSED;
    if (check(gp_lde_batch_host(ctx, GP_FIELD_GOLDILOCKS, 1, trace, ROWS, COLS, &o, lde), "gp_lde_batch_host"))
        goto done;
    if (check(gp_buffer_to_host(lde, GP_LAYOUT_COL_MAJOR, out, sizeof out), "gp_buffer_to_host")) goto done;
    for (i = 0; i < ROWS * BLOWUP * COLS; ++i)
        for (b = 0; b < 8; ++b) {
            h ^= (out[i] >> (8 * b)) & 0xff;
            h *= 0x100000001b3ull;
        }
    printf("lde checksum: 0x%016llx\n", (unsigned long long)h);

    gp_merkle_options_init(&mo);
    mo.kind = GP_MERKLE_FIELD_SPONGE;
    mo.perm = GP_PERM_POSEIDON2_GOLDILOCKS_8;
    {
        const gp_buffer *mats[1];
        mats[0] = lde;
        if (check(gp_merkle_commit(ctx, mats, 1, &mo, &tree), "gp_merkle_commit")) goto done;
    }
    if (gp_merkle_digest_size(tree) != sizeof root) {
        fprintf(stderr, "unexpected digest size %llu\n", (unsigned long long)gp_merkle_digest_size(tree));
        goto done;
    }
    if (check(gp_merkle_root(tree, root, sizeof root), "gp_merkle_root")) goto done;
    printf("merkle root: 0x");
    for (i = 0; i < sizeof root; ++i) printf("%02x", root[i]);
    printf("\n");
    rc = 0;
done:
    gp_merkle_tree_destroy(tree);
    gp_buffer_destroy(lde);
    gp_context_destroy(ctx);
    return rc;
}
