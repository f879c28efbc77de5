/*
 * gp_demo - commit a pseudo-random trace: batched coset LDE, then a Merkle
 * tree over the LDE's rows.
 *
 * Usage: gp_demo [--log-n K] [--cols C] [--blowup B]
 *                [--field goldilocks|babybear|koalabear]
 *                [--hash poseidon2|keccak|rpo]
 *                [--backend auto|cpu|cuda]
 *
 * The demo generates a deterministic trace of 2^K rows and C base-field
 * columns (splitmix64, reduced to canonical elements), extends it to 2^K * B
 * rows on the field generator's coset with the output rows in bit-reversed
 * order (the matrix Plonky3 commits to), and prints the time and throughput of
 * one call after a warm-up call. It then commits the LDE where it lies (on
 * the GPU for the CUDA backend) with Plonky3's MerkleTreeMmcs over Poseidon2
 * (default; width 8 for Goldilocks, 16 for BabyBear and KoalaBear) or
 * Keccak-256, or with miden-crypto's RPO256 tree (Goldilocks), and prints
 * the commit time and the root. The checksum and root lines depend only on
 * the arguments, never on the backend, so CPU and CUDA runs can be compared:
 *
 *   ./build/gp_demo --backend cpu  | grep -E 'checksum|root'
 *   ./build/gp_demo --backend cuda | grep -E 'checksum|root'
 *
 * Exit status: 0 on success, 1 when a gpuprover call fails, 2 on bad
 * command-line arguments.
 */
#define _POSIX_C_SOURCE 199309L

#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "gpuprover.h"

/* The output is downloaded once for the checksum; keep that copy bounded. */
#define HOST_OUTPUT_LIMIT ((uint64_t)8 << 30)

#define EXIT_GP_ERROR 1
#define EXIT_USAGE 2

typedef struct demo_args {
    uint32_t log_n;
    uint64_t cols;
    uint32_t blowup;
    gp_field field;
    const char *hash;
    gp_backend backend;
} demo_args;

static void usage(FILE *f)
{
    fprintf(f,
            "usage: gp_demo [--log-n K] [--cols C] [--blowup B]\n"
            "               [--field goldilocks|babybear|koalabear]\n"
            "               [--hash poseidon2|keccak|rpo]\n"
            "               [--backend auto|cpu|cuda]\n"
            "\n"
            "  --log-n K    trace length 2^K rows (default 20)\n"
            "  --cols C     number of base-field columns (default 64)\n"
            "  --blowup B   LDE blowup, a power of two in [1, 32] (default 4)\n"
            "  --field F    goldilocks (default), babybear or koalabear\n"
            "  --hash H     Merkle hash: poseidon2 (default), keccak, or rpo\n"
            "               (Goldilocks only)\n"
            "  --backend X  auto (default: CUDA if a GPU is usable, else CPU),\n"
            "               cpu or cuda\n");
}

static const char *field_name(gp_field field)
{
    switch (field) {
    case GP_FIELD_GOLDILOCKS: return "goldilocks";
    case GP_FIELD_BABYBEAR: return "babybear";
    case GP_FIELD_KOALABEAR: return "koalabear";
    }
    return "unknown";
}

static const char *backend_name(gp_backend backend)
{
    switch (backend) {
    case GP_BACKEND_AUTO: return "auto";
    case GP_BACKEND_CPU: return "cpu";
    case GP_BACKEND_CUDA: return "cuda";
    }
    return "unknown";
}

/* Parses a decimal integer in [min, max]; returns 0 and prints why if not. */
static int parse_u64(const char *opt, const char *text, uint64_t min,
                     uint64_t max, uint64_t *out)
{
    char *end = NULL;
    unsigned long long v;

    if (text[0] < '0' || text[0] > '9') {
        goto bad;
    }
    errno = 0;
    v = strtoull(text, &end, 10);
    if (errno != 0 || end == text || *end != '\0' || v < min || v > max) {
        goto bad;
    }
    *out = (uint64_t)v;
    return 1;
bad:
    fprintf(stderr,
            "gp_demo: %s expects an integer in [%" PRIu64 ", %" PRIu64
            "], got '%s'\n",
            opt, min, max, text);
    return 0;
}

/* Returns 0 on success, EXIT_USAGE on bad arguments, -1 for --help. */
static int parse_args(int argc, char **argv, demo_args *a)
{
    int i;

    a->log_n = 20;
    a->cols = 64;
    a->blowup = 4;
    a->field = GP_FIELD_GOLDILOCKS;
    a->hash = "poseidon2";
    a->backend = GP_BACKEND_AUTO;

    for (i = 1; i < argc; i++) {
        const char *opt = argv[i];
        const char *val;
        uint64_t v;

        if (strcmp(opt, "-h") == 0 || strcmp(opt, "--help") == 0) {
            usage(stdout);
            return -1;
        }
        if (strcmp(opt, "--log-n") != 0 && strcmp(opt, "--cols") != 0 &&
            strcmp(opt, "--blowup") != 0 && strcmp(opt, "--field") != 0 &&
            strcmp(opt, "--backend") != 0 && strcmp(opt, "--hash") != 0) {
            fprintf(stderr, "gp_demo: unknown argument '%s'\n", opt);
            usage(stderr);
            return EXIT_USAGE;
        }
        if (i + 1 >= argc) {
            fprintf(stderr, "gp_demo: %s needs a value\n", opt);
            return EXIT_USAGE;
        }
        val = argv[++i];

        if (strcmp(opt, "--log-n") == 0) {
            if (!parse_u64(opt, val, 0, 40, &v)) {
                return EXIT_USAGE;
            }
            a->log_n = (uint32_t)v;
        } else if (strcmp(opt, "--cols") == 0) {
            if (!parse_u64(opt, val, 1, (uint64_t)1 << 32, &v)) {
                return EXIT_USAGE;
            }
            a->cols = v;
        } else if (strcmp(opt, "--blowup") == 0) {
            if (!parse_u64(opt, val, 1, 32, &v)) {
                return EXIT_USAGE;
            }
            if ((v & (v - 1)) != 0) {
                fprintf(stderr,
                        "gp_demo: --blowup must be a power of two in [1, 32], "
                        "got '%s'\n",
                        val);
                return EXIT_USAGE;
            }
            a->blowup = (uint32_t)v;
        } else if (strcmp(opt, "--field") == 0) {
            if (strcmp(val, "goldilocks") == 0) {
                a->field = GP_FIELD_GOLDILOCKS;
            } else if (strcmp(val, "babybear") == 0) {
                a->field = GP_FIELD_BABYBEAR;
            } else if (strcmp(val, "koalabear") == 0) {
                a->field = GP_FIELD_KOALABEAR;
            } else {
                fprintf(stderr,
                        "gp_demo: --field must be goldilocks, babybear or "
                        "koalabear, got '%s'\n",
                        val);
                return EXIT_USAGE;
            }
        } else if (strcmp(opt, "--hash") == 0) {
            if (strcmp(val, "poseidon2") != 0 && strcmp(val, "keccak") != 0 &&
                strcmp(val, "rpo") != 0) {
                fprintf(stderr,
                        "gp_demo: --hash must be poseidon2, keccak or rpo, "
                        "got '%s'\n",
                        val);
                return EXIT_USAGE;
            }
            a->hash = val;
        } else { /* --backend */
            if (strcmp(val, "auto") == 0) {
                a->backend = GP_BACKEND_AUTO;
            } else if (strcmp(val, "cpu") == 0) {
                a->backend = GP_BACKEND_CPU;
            } else if (strcmp(val, "cuda") == 0) {
                a->backend = GP_BACKEND_CUDA;
            } else {
                fprintf(stderr,
                        "gp_demo: --backend must be auto, cpu or cuda, "
                        "got '%s'\n",
                        val);
                return EXIT_USAGE;
            }
        }
    }
    if (strcmp(a->hash, "rpo") == 0 && a->field != GP_FIELD_GOLDILOCKS) {
        fprintf(stderr, "gp_demo: --hash rpo needs --field goldilocks\n");
        return EXIT_USAGE;
    }
    return 0;
}

/* The Merkle profile of --hash for the field. */
static void merkle_profile(const demo_args *a, gp_merkle_options *o,
                           const char **label)
{
    gp_merkle_options_init(o);
    if (strcmp(a->hash, "keccak") == 0) {
        o->kind = GP_MERKLE_KECCAK_PLONKY3;
        o->perm = GP_PERM_KECCAK_F1600;
        *label = "Keccak-256, Plonky3 MerkleTreeMmcs";
    } else if (strcmp(a->hash, "rpo") == 0) {
        o->kind = GP_MERKLE_MIDEN;
        o->perm = GP_PERM_RPO256;
        *label = "RPO256, miden-crypto MerkleTree";
    } else if (a->field == GP_FIELD_BABYBEAR) {
        o->perm = GP_PERM_POSEIDON2_BABYBEAR_16;
        *label = "Poseidon2 width 16, Plonky3 MerkleTreeMmcs";
    } else if (a->field == GP_FIELD_KOALABEAR) {
        o->perm = GP_PERM_POSEIDON2_KOALABEAR_16;
        *label = "Poseidon2 width 16, Plonky3 MerkleTreeMmcs";
    } else {
        o->perm = GP_PERM_POSEIDON2_GOLDILOCKS_8;
        *label = "Poseidon2 width 8, Plonky3 MerkleTreeMmcs";
    }
}

/* Prints a failed gpuprover call. The message is copied before any other
 * gp_* call, since gp_last_error() is only valid until the next one. */
static void report(const char *what, gp_status status)
{
    char message[1024];

    snprintf(message, sizeof message, "%s", gp_last_error());
    fprintf(stderr, "gp_demo: %s failed: %s: %s\n", what,
            gp_status_name(status), message);
}

#define CHECK(call)                                                        \
    do {                                                                   \
        gp_status check_status_ = (call);                                  \
        if (check_status_ != GP_OK) {                                      \
            report(#call, check_status_);                                  \
            goto done;                                                     \
        }                                                                  \
    } while (0)

/* a * b, or 0 with *ok cleared if it overflows 64 bits. */
static uint64_t mul_checked(uint64_t a, uint64_t b, int *ok)
{
    if (a != 0 && b > UINT64_MAX / a) {
        *ok = 0;
        return 0;
    }
    return a * b;
}

static uint64_t splitmix64(uint64_t *state)
{
    uint64_t z = (*state += UINT64_C(0x9E3779B97F4A7C15));
    z = (z ^ (z >> 30)) * UINT64_C(0xBF58476D1CE4E5B9);
    z = (z ^ (z >> 27)) * UINT64_C(0x94D049BB133111EB);
    return z ^ (z >> 31);
}

/* Fills `count` canonical elements of `elem_size` bytes (8 or 4). */
static void fill_trace(void *data, uint64_t count, uint32_t elem_size,
                       uint64_t modulus)
{
    uint64_t state = UINT64_C(0x6770726F76657221); /* "gprover!" */
    uint64_t i;

    if (elem_size == 8) {
        uint64_t *d = (uint64_t *)data;
        for (i = 0; i < count; i++) {
            d[i] = splitmix64(&state) % modulus;
        }
    } else {
        uint32_t *d = (uint32_t *)data;
        for (i = 0; i < count; i++) {
            d[i] = (uint32_t)(splitmix64(&state) % modulus);
        }
    }
}

static double now_seconds(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + (double)ts.tv_nsec * 1e-9;
}

static double gib(uint64_t bytes)
{
    return (double)bytes / (double)((uint64_t)1 << 30);
}

/* Formats a byte count as KiB, MiB or GiB. */
static const char *format_bytes(char *text, size_t size, uint64_t bytes)
{
    if (bytes >= ((uint64_t)1 << 30)) {
        snprintf(text, size, "%.2f GiB", gib(bytes));
    } else if (bytes >= ((uint64_t)1 << 20)) {
        snprintf(text, size, "%.2f MiB",
                 (double)bytes / (double)((uint64_t)1 << 20));
    } else {
        snprintf(text, size, "%.2f KiB", (double)bytes / 1024.0);
    }
    return text;
}

int main(int argc, char **argv)
{
    demo_args args;
    int rc = EXIT_GP_ERROR;
    int size_ok = 1;
    gp_context_options ctx_opts;
    gp_lde_options lde_opts;
    gp_context *ctx = NULL;
    gp_buffer *out = NULL;
    gp_merkle_tree *tree = NULL;
    gp_merkle_options merkle_opts;
    const char *merkle_label = NULL;
    unsigned char root[64];
    void *trace = NULL;
    void *host_out = NULL;
    uint64_t modulus = 0;
    uint32_t two_adicity = 0;
    uint32_t elem_size;
    uint32_t log_blowup = 0;
    uint64_t n, out_rows, in_elems, out_elems, in_bytes, out_bytes, i;
    uint64_t first = 0, fold_xor = 0, fold_add = 0;
    uint64_t fold_fnv = UINT64_C(0xCBF29CE484222325);
    char device[256];
    char in_text[32], out_text[32];
    double t0, seconds;

    switch (parse_args(argc, argv, &args)) {
    case 0: break;
    case -1: return 0;
    default: return EXIT_USAGE;
    }

    CHECK(gp_field_info(args.field, &modulus, NULL, &two_adicity));
    elem_size = gp_field_element_size(args.field);
    while (((uint32_t)1 << log_blowup) < args.blowup) {
        log_blowup++;
    }
    if (args.log_n + log_blowup > two_adicity) {
        fprintf(stderr,
                "gp_demo: 2^%" PRIu32 " rows with blowup %" PRIu32
                " needs a 2^%" PRIu32 "-th root of unity, but %s has "
                "two-adicity %" PRIu32 "\n",
                args.log_n, args.blowup, args.log_n + log_blowup,
                field_name(args.field), two_adicity);
        return EXIT_USAGE;
    }

    n = (uint64_t)1 << args.log_n;
    out_rows = n << log_blowup;
    in_elems = mul_checked(n, args.cols, &size_ok);
    out_elems = mul_checked(out_rows, args.cols, &size_ok);
    in_bytes = mul_checked(in_elems, elem_size, &size_ok);
    out_bytes = mul_checked(out_elems, elem_size, &size_ok);
    if (!size_ok || out_bytes > HOST_OUTPUT_LIMIT) {
        char need[64];
        if (size_ok) {
            snprintf(need, sizeof need, "%.1f GiB", gib(out_bytes));
        } else {
            snprintf(need, sizeof need, "more than 2^64 bytes");
        }
        fprintf(stderr,
                "gp_demo: the LDE output of %" PRIu64 " x %" PRIu64
                " %s elements needs %s, but this demo keeps at most "
                "%.0f GiB of output in host memory; use a smaller --log-n, "
                "--cols or --blowup\n",
                out_rows, args.cols, field_name(args.field), need,
                gib(HOST_OUTPUT_LIMIT));
        return EXIT_USAGE;
    }

    gp_context_options_init(&ctx_opts);
    ctx_opts.backend = args.backend;
    CHECK(gp_context_create(&ctx_opts, &ctx));
    CHECK(gp_context_device_name(ctx, device, sizeof device));

    printf("gpuprover:  %s\n", gp_version());
    printf("backend:    %s\n", backend_name(gp_context_backend(ctx)));
    printf("device:     %s\n", device);
    printf("field:      %s (p = %" PRIu64 ", %" PRIu32 "-byte elements)\n",
           field_name(args.field), modulus, elem_size);
    printf("shape:      %" PRIu64 " x %" PRIu64 " (2^%" PRIu32
           " rows), blowup %" PRIu32 " -> %" PRIu64 " x %" PRIu64
           ", bit-reversed output\n",
           n, args.cols, args.log_n, args.blowup, out_rows, args.cols);
    fflush(stdout);

    trace = malloc((size_t)in_bytes);
    if (trace == NULL) {
        fprintf(stderr, "gp_demo: cannot allocate %.2f GiB for the trace\n",
                gib(in_bytes));
        goto done;
    }
    fill_trace(trace, in_elems, elem_size, modulus);

    /* The output buffer is allocated once and reused by both calls. */
    CHECK(gp_buffer_create(ctx, args.field, 1, out_rows, args.cols, &out));

    gp_lde_options_init(&lde_opts);
    lde_opts.blowup = args.blowup;
    lde_opts.output_order = GP_ORDER_BIT_REVERSED;
    lde_opts.input_layout = GP_LAYOUT_COL_MAJOR;

    /* Warm-up: builds twiddle tables and staging memory. */
    CHECK(gp_lde_batch_host(ctx, args.field, 1, trace, n, args.cols,
                            &lde_opts, out));

    t0 = now_seconds();
    CHECK(gp_lde_batch_host(ctx, args.field, 1, trace, n, args.cols,
                            &lde_opts, out));
    seconds = now_seconds() - t0;
    if (seconds <= 0.0) {
        seconds = 1e-9;
    }

    printf("time:       %.3f ms (one call, after one warm-up call)\n",
           seconds * 1e3);
    printf("throughput: %.2f GB/s output written (%s), "
           "%.2f GB/s input read (%s)\n",
           (double)out_bytes / seconds / 1e9,
           format_bytes(out_text, sizeof out_text, out_bytes),
           (double)in_bytes / seconds / 1e9,
           format_bytes(in_text, sizeof in_text, in_bytes));
    fflush(stdout);

    /* Commit the LDE where it lies: a warm-up commit, then a timed one. */
    merkle_profile(&args, &merkle_opts, &merkle_label);
    {
        const gp_buffer *mats[1];
        uint64_t k;
        mats[0] = out;
        CHECK(gp_merkle_commit(ctx, mats, 1, &merkle_opts, &tree));
        gp_merkle_tree_destroy(tree);
        tree = NULL;
        t0 = now_seconds();
        CHECK(gp_merkle_commit(ctx, mats, 1, &merkle_opts, &tree));
        seconds = now_seconds() - t0;
        CHECK(gp_merkle_root(tree, root, sizeof root));
        printf("commit:     %.3f ms (%s over the %" PRIu64 " LDE rows)\n",
               seconds * 1e3, merkle_label, out_rows);
        printf("root:       0x");
        for (k = 0; k < gp_merkle_digest_size(tree); k++) {
            printf("%02x", root[k]);
        }
        printf("\n");
        fflush(stdout);
    }

    /* Release the trace before downloading to keep peak host memory low. */
    free(trace);
    trace = NULL;

    host_out = malloc((size_t)out_bytes);
    if (host_out == NULL) {
        fprintf(stderr, "gp_demo: cannot allocate %.2f GiB for the output\n",
                gib(out_bytes));
        goto done;
    }
    CHECK(gp_buffer_to_host(out, GP_LAYOUT_COL_MAJOR, host_out, out_bytes));

    /* xor and add are order-independent; the FNV-style fold also catches
     * rows in the wrong order (e.g. natural instead of bit-reversed). */
    for (i = 0; i < out_elems; i++) {
        uint64_t v = elem_size == 8 ? ((const uint64_t *)host_out)[i]
                                    : ((const uint32_t *)host_out)[i];
        if (i == 0) {
            first = v;
        }
        fold_xor ^= v;
        fold_add += v;
        fold_fnv = (fold_fnv ^ v) * UINT64_C(0x100000001B3);
    }
    printf("checksum:   first=%" PRIu64 " xor=0x%016" PRIx64
           " sum=0x%016" PRIx64 " fnv=0x%016" PRIx64 "\n",
           first, fold_xor, fold_add, fold_fnv);

    rc = 0;

done:
    free(host_out);
    free(trace);
    gp_merkle_tree_destroy(tree);
    gp_buffer_destroy(out);
    gp_context_destroy(ctx);
    return rc;
}
