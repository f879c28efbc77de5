// SPDX-License-Identifier: MIT OR Apache-2.0
/*
 * gp_demo - commit a pseudo-random trace: upload, batched coset LDE, a
 * Merkle tree over the LDE's rows, download.
 *
 * Usage: gp_demo [--log-n K] [--cols C] [--blowup B]
 *                [--field goldilocks|babybear|koalabear]
 *                [--hash poseidon2|keccak|rpo]
 *                [--backend auto|cpu|cuda]
 *
 * The demo generates a deterministic trace of 2^K rows and C base-field
 * columns (splitmix64, reduced to canonical elements) and runs four steps,
 * each as a warm-up call followed by a timed call:
 *
 *   upload    gp_buffer_from_host: the trace into a buffer of the context
 *   LDE       gp_lde_batch: extend it to 2^K * B rows on the field
 *             generator's coset, rows in bit-reversed order (the matrix
 *             Plonky3 commits to)
 *   commit    gp_merkle_commit: commit the LDE where it lies (on the GPU for
 *             the CUDA backend) with Plonky3's MerkleTreeMmcs over Poseidon2
 *             (default; width 8 for Goldilocks, 16 for BabyBear and
 *             KoalaBear) or Keccak-256, or with miden-crypto's RPO256 tree
 *             (Goldilocks)
 *   download  gp_buffer_to_host: the LDE back to host memory
 *
 * It shows a progress line while a step runs (updated in place on a
 * terminal, plain lines otherwise) and ends with a table of the steps' times
 * and throughputs. The default shape depends on the backend the context got:
 * 2^20 x 64 on CUDA, 2^14 x 64 on the CPU (a few seconds on two cores);
 * --log-n and --cols override it. The checksum and root lines depend only on
 * the shape and the other arguments, never on the backend, so CPU and CUDA
 * runs of one shape can be compared:
 *
 *   ./build/gp_demo --log-n 16 --backend cpu  | grep -E '^(checksum|root):'
 *   ./build/gp_demo --log-n 16 --backend cuda | grep -E '^(checksum|root):'
 *
 * Exit status: 0 on success, 1 when a gpuprover call fails, 2 on bad
 * command-line arguments (including shapes the demo refuses before it
 * allocates any buffer: an LDE over 8 GiB, or beyond the field's
 * two-adicity; with --log-n given, before it creates the context).
 */
#define _POSIX_C_SOURCE 199309L

#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "gpuprover.h"

/* The output is downloaded once for the checksum; keep that copy bounded. */
#define HOST_OUTPUT_LIMIT ((uint64_t)8 << 30)

/* Default shapes, per backend. Both have 64 columns. */
#define DEFAULT_LOG_N_CUDA 20
#define DEFAULT_LOG_N_CPU 14
#define DEFAULT_COLS 64

#define EXIT_GP_ERROR 1
#define EXIT_USAGE 2

typedef struct demo_args {
    uint32_t log_n;
    uint64_t cols;
    uint32_t blowup;
    gp_field field;
    const char *hash;
    gp_backend backend;
    int log_n_given; /* --log-n was on the command line */
} demo_args;

static void usage(FILE *f)
{
    fprintf(f,
            "usage: gp_demo [--log-n K] [--cols C] [--blowup B]\n"
            "               [--field goldilocks|babybear|koalabear]\n"
            "               [--hash poseidon2|keccak|rpo]\n"
            "               [--backend auto|cpu|cuda]\n"
            "\n"
            "  --log-n K    trace length 2^K rows (default: %d on the CUDA "
            "backend,\n"
            "               %d on the CPU backend)\n"
            "  --cols C     number of base-field columns (default %d)\n"
            "  --blowup B   LDE blowup, a power of two in [1, 32] (default 4)\n"
            "  --field F    goldilocks (default), babybear or koalabear\n"
            "  --hash H     Merkle hash: poseidon2 (default), keccak, or rpo\n"
            "               (Goldilocks only; on the CPU about ten times "
            "slower\n"
            "               than poseidon2)\n"
            "  --backend X  auto (default: CUDA if a GPU is usable, else CPU),\n"
            "               cpu or cuda\n"
            "  --version    print the library's version and exit\n",
            DEFAULT_LOG_N_CUDA, DEFAULT_LOG_N_CPU, DEFAULT_COLS);
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
    case GP_BACKEND_REMOTE: return "remote";
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

/* Returns 0 on success, EXIT_USAGE on bad arguments, -1 for --help and
   --version (exit 0). */
static int parse_args(int argc, char **argv, demo_args *a)
{
    int i;

    a->log_n = DEFAULT_LOG_N_CPU; /* replaced once the backend is known */
    a->cols = DEFAULT_COLS;
    a->blowup = 4;
    a->field = GP_FIELD_GOLDILOCKS;
    a->hash = "poseidon2";
    a->backend = GP_BACKEND_AUTO;
    a->log_n_given = 0;

    for (i = 1; i < argc; i++) {
        const char *opt = argv[i];
        const char *val;
        uint64_t v;

        if (strcmp(opt, "-h") == 0 || strcmp(opt, "--help") == 0) {
            usage(stdout);
            return -1;
        }
        if (strcmp(opt, "--version") == 0) {
            printf("gp_demo (gpuprover %s)\n", gp_version());
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
            a->log_n_given = 1;
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

/* The sizes of one run, derived from the shape. */
typedef struct demo_shape {
    uint32_t log_blowup;
    uint64_t n, out_rows, in_elems, out_elems, in_bytes, out_bytes;
} demo_shape;

/* a * b, or 0 with *ok cleared if it overflows 64 bits. */
static uint64_t mul_checked(uint64_t a, uint64_t b, int *ok)
{
    if (a != 0 && b > UINT64_MAX / a) {
        *ok = 0;
        return 0;
    }
    return a * b;
}

static double gib(uint64_t bytes)
{
    return (double)bytes / (double)((uint64_t)1 << 30);
}

/* Checks the shape of `a` against the field and the demo's host-memory
 * bound and fills `s`. Returns 0, or EXIT_USAGE after saying why. */
static int check_shape(const demo_args *a, uint32_t two_adicity,
                       uint32_t elem_size, demo_shape *s)
{
    int size_ok = 1;

    s->log_blowup = 0;
    while (((uint32_t)1 << s->log_blowup) < a->blowup) {
        s->log_blowup++;
    }
    if (a->log_n + s->log_blowup > two_adicity) {
        fprintf(stderr,
                "gp_demo: 2^%" PRIu32 " rows with blowup %" PRIu32
                " needs a 2^%" PRIu32 "-th root of unity, but %s has "
                "two-adicity %" PRIu32 "\n",
                a->log_n, a->blowup, a->log_n + s->log_blowup,
                field_name(a->field), two_adicity);
        return EXIT_USAGE;
    }

    s->n = (uint64_t)1 << a->log_n;
    s->out_rows = s->n << s->log_blowup;
    s->in_elems = mul_checked(s->n, a->cols, &size_ok);
    s->out_elems = mul_checked(s->out_rows, a->cols, &size_ok);
    s->in_bytes = mul_checked(s->in_elems, elem_size, &size_ok);
    s->out_bytes = mul_checked(s->out_elems, elem_size, &size_ok);
    if (!size_ok || s->out_bytes > HOST_OUTPUT_LIMIT) {
        char need[64];
        if (size_ok) {
            snprintf(need, sizeof need, "%.1f GiB", gib(s->out_bytes));
        } else {
            snprintf(need, sizeof need, "more than 2^64 bytes");
        }
        fprintf(stderr,
                "gp_demo: the LDE output of %" PRIu64 " x %" PRIu64
                " %s elements needs %s, but this demo keeps at most "
                "%.0f GiB of output in host memory; use a smaller --log-n, "
                "--cols or --blowup\n",
                s->out_rows, a->cols, field_name(a->field), need,
                gib(HOST_OUTPUT_LIMIT));
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

/* ------------------------------------------------------------------------ */
/* Progress                                                                 */
/* ------------------------------------------------------------------------ */

#define NUM_STEPS 4

/* One line per step: "[2/4] LDE: ..." On a terminal the line is rewritten
 * in place (carriage return) while the step runs; otherwise each update is
 * a line of its own, at most one a second, so that logs stay short. */
typedef struct progress {
    int tty;
    int step;          /* 1-based */
    const char *name;  /* of the step */
    const char *call;  /* "warm-up" or "timed" */
    double started;    /* the step's start */
    double last_shown; /* the last in-step update */
    size_t width;      /* characters of the line on the terminal now */
} progress;

static void progress_show(progress *p, const char *text, int final)
{
    char line[256];
    int len = snprintf(line, sizeof line, "[%d/%d] %s: %s", p->step,
                       NUM_STEPS, p->name, text);
    size_t n = len < 0 ? 0 : (size_t)len;

    if (n >= sizeof line) {
        n = sizeof line - 1;
    }
    if (p->tty) {
        /* Rewrite the line; blank what is left of a longer previous one. */
        printf("\r%s", line);
        while (p->width > n) {
            putchar(' ');
            p->width--;
        }
        p->width = n;
        if (final) {
            putchar('\n');
            p->width = 0;
        }
    } else {
        printf("%s\n", line);
    }
    fflush(stdout);
}

static void progress_begin(progress *p, int step, const char *name,
                           const char *what)
{
    char text[160];

    p->step = step;
    p->name = name;
    p->call = "warm-up";
    p->started = now_seconds();
    p->last_shown = p->started;
    snprintf(text, sizeof text, "%s (a warm-up call, then a timed call) ...",
             what);
    progress_show(p, text, 0);
}

static void progress_call(progress *p, const char *call)
{
    p->call = call;
}

static void progress_end(progress *p, double timed_seconds)
{
    char text[160];

    snprintf(text, sizeof text, "done, %.3f ms timed (%.1f s for both calls)",
             timed_seconds * 1e3, now_seconds() - p->started);
    progress_show(p, text, 1);
}

/* gp_progress_fn: called between batches and layers of a long call. */
static void on_progress(void *user, const char *stage, uint64_t done,
                        uint64_t total)
{
    progress *p = (progress *)user;
    double now = now_seconds();
    char text[160];

    if (now - p->last_shown < (p->tty ? 0.1 : 1.0)) {
        return;
    }
    p->last_shown = now;
    if (total > 0) {
        snprintf(text, sizeof text,
                 "%s call, %s %" PRIu64 " of %" PRIu64 " (%.0f%%), %.1f s",
                 p->call, stage, done, total,
                 100.0 * (double)done / (double)total, now - p->started);
    } else {
        snprintf(text, sizeof text, "%s call, %s, %.1f s", p->call, stage,
                 now - p->started);
    }
    progress_show(p, text, 0);
}

/* ------------------------------------------------------------------------ */
/* Floors                                                                   */
/* ------------------------------------------------------------------------ */

/* The ceilings docs/PERF.md measured on an NVIDIA H200 (141 GB HBM3e, 132
 * SMs, CUDA 13.0). The demo states floors only for that device; other GPUs
 * and the CPU backend get "-". */
#define H200_PINNED_UPLOAD_BPS 55.5e9       /* pinned host-to-device copy */
#define H200_DEVICE_COPY_BPS 4.27e12        /* bytes read + written */
#define H200_BUTTERFLIES_GOLDILOCKS 6.15e11 /* NTT butterflies per second */
#define H200_BUTTERFLIES_31BIT 1.74e12

typedef struct step_floors {
    double upload, lde, commit, download; /* seconds; 0 = none stated */
} step_floors;

/* The floors of the steps on an H200: the time a step needs at
 * docs/PERF.md's ceilings. Upload: the input crosses PCIe once (the demo
 * uploads pageable memory, which is no faster than pinned). LDE: the input
 * is read and the output written once, and the butterflies are done (an
 * inverse NTT of n and B forward NTTs of n per column), whichever takes
 * longer. None for the commit (docs/PERF.md's commit floors count
 * multiplications by a model that the 31-bit kernels beat, so they are no
 * bound) nor for the download (docs/PERF.md measures no device-to-host
 * ceiling). */
static void h200_floors(const demo_args *a, const demo_shape *s,
                        step_floors *f)
{
    const double n = (double)s->n;
    const double butterflies =
        (1.0 + (double)a->blowup) * (n / 2.0) * (double)a->log_n *
        (double)a->cols;
    const double memory =
        (double)(s->in_bytes + s->out_bytes) / H200_DEVICE_COPY_BPS;
    const double arithmetic =
        butterflies / (a->field == GP_FIELD_GOLDILOCKS
                           ? H200_BUTTERFLIES_GOLDILOCKS
                           : H200_BUTTERFLIES_31BIT);

    f->upload = (double)s->in_bytes / H200_PINNED_UPLOAD_BPS;
    f->lde = memory > arithmetic ? memory : arithmetic;
    f->commit = 0.0;
    f->download = 0.0;
}

static void print_step_row(const char *name, double seconds, uint64_t bytes,
                           const char *moved, double floor)
{
    char floor_text[32], ratio_text[32];

    if (seconds <= 0.0) {
        seconds = 1e-9;
    }
    if (floor > 0.0) {
        snprintf(floor_text, sizeof floor_text, "%.3f ms", floor * 1e3);
        snprintf(ratio_text, sizeof ratio_text, "%.2f", seconds / floor);
    } else {
        snprintf(floor_text, sizeof floor_text, "-");
        snprintf(ratio_text, sizeof ratio_text, "-");
    }
    printf("%-9s %12.3f ms %9.2f  %-32s %12s %8s\n", name, seconds * 1e3,
           (double)bytes / seconds / 1e9, moved, floor_text, ratio_text);
}

/* ------------------------------------------------------------------------ */

#define CHECK(call)                                                        \
    do {                                                                   \
        gp_status check_status_ = (call);                                  \
        if (check_status_ != GP_OK) {                                      \
            if (prog.tty && prog.width > 0) {                              \
                putchar('\n');                                             \
                fflush(stdout);                                            \
            }                                                              \
            report(#call, check_status_);                                  \
            goto done;                                                     \
        }                                                                  \
    } while (0)

int main(int argc, char **argv)
{
    demo_args args;
    demo_shape shape;
    progress prog;
    int rc = EXIT_GP_ERROR;
    gp_context_options ctx_opts;
    gp_lde_options lde_opts;
    gp_context *ctx = NULL;
    gp_backend backend;
    gp_buffer *in = NULL;
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
    uint64_t i, k;
    uint64_t first = 0, fold_xor = 0, fold_add = 0;
    uint64_t fold_fnv = UINT64_C(0xCBF29CE484222325);
    char device[256];
    char t1[32], t2[32], moved[4][64];
    double t0;
    double upload_s = 0.0, lde_s = 0.0, commit_s = 0.0, download_s = 0.0;
    step_floors floors;
    const char *floor_note;

    memset(&prog, 0, sizeof prog);
    prog.tty = isatty(fileno(stdout));

    switch (parse_args(argc, argv, &args)) {
    case 0: break;
    case -1: return 0;
    default: return EXIT_USAGE;
    }

    CHECK(gp_field_info(args.field, &modulus, NULL, &two_adicity));
    elem_size = gp_field_element_size(args.field);

    /* Both default shapes have DEFAULT_COLS columns, so with --log-n given
     * the shape is known now: refuse a bad one before creating anything. */
    if (args.log_n_given &&
        check_shape(&args, two_adicity, elem_size, &shape) != 0) {
        return EXIT_USAGE;
    }

    gp_context_options_init(&ctx_opts);
    ctx_opts.backend = args.backend;
    CHECK(gp_context_create(&ctx_opts, &ctx));
    CHECK(gp_context_device_name(ctx, device, sizeof device));
    backend = gp_context_backend(ctx);

    /* The default shape suits the backend the context got. */
    if (!args.log_n_given) {
        args.log_n =
            backend == GP_BACKEND_CUDA ? DEFAULT_LOG_N_CUDA : DEFAULT_LOG_N_CPU;
    }
    if (check_shape(&args, two_adicity, elem_size, &shape) != 0) {
        rc = EXIT_USAGE;
        goto done;
    }
    merkle_profile(&args, &merkle_opts, &merkle_label);

    printf("gpuprover:  %s\n", gp_version());
    printf("backend:    %s\n", backend_name(backend));
    if (gp_context_cpu_fallback(ctx) != NULL) {
        printf("            (CUDA not used: %s)\n", gp_context_cpu_fallback(ctx));
    }
    if (gp_context_remote_fallback(ctx) != NULL) {
        printf("            (GPUPROVER_SERVER not used: %s)\n",
               gp_context_remote_fallback(ctx));
    }
    printf("device:     %s\n", device);
    printf("field:      %s (p = %" PRIu64 ", %" PRIu32 "-byte elements)\n",
           field_name(args.field), modulus, elem_size);
    printf("shape:      %" PRIu64 " x %" PRIu64 " (2^%" PRIu32
           " rows), blowup %" PRIu32 " -> %" PRIu64 " x %" PRIu64
           ", bit-reversed output\n",
           shape.n, args.cols, args.log_n, args.blowup, shape.out_rows,
           args.cols);
    if (!args.log_n_given) {
        printf("            (the %s backend's default; --log-n and --cols "
               "change it)\n",
               backend_name(backend));
    }
    printf("merkle:     %s\n", merkle_label);
    fflush(stdout);

    {
        /* Not fatal: without it the steps still print a line before and
         * after. */
        gp_status st = gp_context_set_progress(ctx, on_progress, &prog);
        if (st != GP_OK) {
            report("gp_context_set_progress", st);
        }
    }

    trace = malloc((size_t)shape.in_bytes);
    if (trace == NULL) {
        fprintf(stderr, "gp_demo: cannot allocate %.2f GiB for the trace\n",
                gib(shape.in_bytes));
        goto done;
    }
    fill_trace(trace, shape.in_elems, elem_size, modulus);

    /* 1. Upload. The warm-up call sets up staging memory. */
    progress_begin(&prog, 1, "upload", "gp_buffer_from_host");
    CHECK(gp_buffer_from_host(ctx, args.field, 1, shape.n, args.cols,
                              GP_LAYOUT_COL_MAJOR, trace, &in));
    gp_buffer_destroy(in);
    in = NULL;
    progress_call(&prog, "timed");
    t0 = now_seconds();
    CHECK(gp_buffer_from_host(ctx, args.field, 1, shape.n, args.cols,
                              GP_LAYOUT_COL_MAJOR, trace, &in));
    upload_s = now_seconds() - t0;
    progress_end(&prog, upload_s);
    free(trace); /* keeps peak host memory low */
    trace = NULL;

    /* 2. LDE. The output buffer is allocated once and reused by both calls;
     * the warm-up call builds the twiddle tables. */
    CHECK(gp_buffer_create(ctx, args.field, 1, shape.out_rows, args.cols,
                           &out));
    gp_lde_options_init(&lde_opts);
    lde_opts.blowup = args.blowup;
    lde_opts.output_order = GP_ORDER_BIT_REVERSED;
    progress_begin(&prog, 2, "LDE", "gp_lde_batch");
    CHECK(gp_lde_batch(ctx, in, &lde_opts, out));
    progress_call(&prog, "timed");
    t0 = now_seconds();
    CHECK(gp_lde_batch(ctx, in, &lde_opts, out));
    lde_s = now_seconds() - t0;
    progress_end(&prog, lde_s);
    gp_buffer_destroy(in);
    in = NULL;

    /* 3. Commit the LDE where it lies. */
    {
        const gp_buffer *mats[1];
        mats[0] = out;
        progress_begin(&prog, 3, "commit", "gp_merkle_commit");
        CHECK(gp_merkle_commit(ctx, mats, 1, &merkle_opts, &tree));
        gp_merkle_tree_destroy(tree);
        tree = NULL;
        progress_call(&prog, "timed");
        t0 = now_seconds();
        CHECK(gp_merkle_commit(ctx, mats, 1, &merkle_opts, &tree));
        commit_s = now_seconds() - t0;
        progress_end(&prog, commit_s);
    }
    CHECK(gp_merkle_root(tree, root, sizeof root));
    printf("root:       0x");
    for (k = 0; k < gp_merkle_digest_size(tree); k++) {
        printf("%02x", root[k]);
    }
    printf("\n");
    fflush(stdout);

    /* 4. Download. The warm-up call also faults in the host pages. */
    host_out = malloc((size_t)shape.out_bytes);
    if (host_out == NULL) {
        fprintf(stderr, "gp_demo: cannot allocate %.2f GiB for the output\n",
                gib(shape.out_bytes));
        goto done;
    }
    progress_begin(&prog, 4, "download", "gp_buffer_to_host");
    CHECK(gp_buffer_to_host(out, GP_LAYOUT_COL_MAJOR, host_out,
                            shape.out_bytes));
    progress_call(&prog, "timed");
    t0 = now_seconds();
    CHECK(gp_buffer_to_host(out, GP_LAYOUT_COL_MAJOR, host_out,
                            shape.out_bytes));
    download_s = now_seconds() - t0;
    progress_end(&prog, download_s);

    /* xor and add are order-independent; the FNV-style fold also catches
     * rows in the wrong order (e.g. natural instead of bit-reversed). */
    for (i = 0; i < shape.out_elems; i++) {
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

    /* The table: each step's timed call. */
    memset(&floors, 0, sizeof floors);
    if (backend == GP_BACKEND_CPU) {
        floor_note = "floor: none is stated for the CPU backend";
    } else if (strstr(device, "H200") != NULL) {
        h200_floors(&args, &shape, &floors);
        floor_note =
            "floor: the step's time at the ceilings docs/PERF.md measured "
            "on an H200\n"
            "       (55.5 GB/s pinned upload; 4.27 TB/s device copy and NTT "
            "butterfly rate\n"
            "       for the LDE); another machine's ceilings differ. x floor "
            "= time / floor.\n"
            "       None is stated for the commit or the download.";
    } else {
        floor_note = "floor: docs/PERF.md measures ceilings on an H200 only; "
                     "none is stated\n       for this device";
    }
    snprintf(moved[0], sizeof moved[0], "%s in",
             format_bytes(t1, sizeof t1, shape.in_bytes));
    snprintf(moved[1], sizeof moved[1], "%s in + %s out",
             format_bytes(t1, sizeof t1, shape.in_bytes),
             format_bytes(t2, sizeof t2, shape.out_bytes));
    snprintf(moved[2], sizeof moved[2], "%s hashed",
             format_bytes(t1, sizeof t1, shape.out_bytes));
    snprintf(moved[3], sizeof moved[3], "%s out",
             format_bytes(t1, sizeof t1, shape.out_bytes));
    printf("\n%-9s %15s %9s  %-32s %12s %8s\n", "step", "time", "GB/s",
           "bytes", "floor", "x floor");
    print_step_row("upload", upload_s, shape.in_bytes, moved[0],
                   floors.upload);
    print_step_row("LDE", lde_s, shape.in_bytes + shape.out_bytes, moved[1],
                   floors.lde);
    print_step_row("commit", commit_s, shape.out_bytes, moved[2],
                   floors.commit);
    print_step_row("download", download_s, shape.out_bytes, moved[3],
                   floors.download);
    printf("%s\n", floor_note);
    printf("\nTime another operation, shape, field or hash with gp-bench "
           "(gp-bench --help), e.g.\n  gp-bench --op commit --log-n %u --cols %" PRIu64
           " --blowup %u --field %s --hash %s\n",
           args.log_n, args.cols, args.blowup, field_name(args.field),
           args.hash);

    rc = 0;

done:
    free(host_out);
    free(trace);
    gp_merkle_tree_destroy(tree);
    gp_buffer_destroy(out);
    gp_buffer_destroy(in);
    gp_context_destroy(ctx);
    return rc;
}
