// SPDX-License-Identifier: MIT OR Apache-2.0
// gp-bench: times one gpuprover operation on the caller's own shape and
// compares it with the floor its unavoidable memory traffic sets on the
// machine it runs on. It uses the public C API (gpuprover.h) only, plus the
// CUDA runtime, when built with it, to measure that floor's bandwidth.
//
// `gp-bench --help` documents the options, the bytes counted and the floors.
// Exit status: 0 on success, 1 when a gpuprover call fails (the call, its
// status and gp_last_error() go to stderr), 2 on bad arguments or a shape
// refused before anything is allocated.
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <chrono>
#include <cinttypes>
#include <cstdarg>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <functional>
#include <set>
#include <string>
#include <vector>

#include "gpuprover.h"
#ifdef GP_HAVE_CUDA
#include <cuda_runtime.h>
#endif

namespace {

constexpr int kExitGpError = 1;
constexpr int kExitUsage = 2;

// Default shapes, per backend (as gp_demo).
constexpr uint32_t kDefaultLogNCuda = 20;
constexpr uint32_t kDefaultLogNCpu = 14;
constexpr uint64_t kDefaultCols = 64;
// Outputs are downloaded for their checksum only up to this size.
constexpr uint64_t kChecksumLimit = uint64_t(1) << 30;
constexpr uint64_t kMiB = uint64_t(1) << 20;

// ---------------------------------------------------------------------------
// Operations and Merkle profiles

enum class Op { Lde, Ntt, Merkle, Commit, Fri, Deep, Upload, Download };

struct OpInfo {
    Op op;
    const char *name;
    const char *call;  // the timed entry point
    bool hashes;       // takes --hash and --cap-height
};

const OpInfo kOps[] = {
    {Op::Lde, "lde", "gp_lde_batch", false},         {Op::Ntt, "ntt", "gp_ntt_batch", false},
    {Op::Merkle, "merkle", "gp_merkle_commit", true}, {Op::Commit, "commit", "gp_commit_host", true},
    {Op::Fri, "fri", "gp_fri_commit", true},          {Op::Deep, "deep", "gp_deep_composition", false},
    {Op::Upload, "upload", "gp_buffer_from_host", false}, {Op::Download, "download", "gp_buffer_to_host", false},
};

const OpInfo &op_info(Op op) {
    for (const OpInfo &o : kOps)
        if (o.op == op) return o;
    return kOps[0];
}

constexpr gp_permutation kNone = gp_permutation(0);

// A --hash name: the Merkle kind and, per field (Goldilocks, BabyBear,
// KoalaBear), the permutation (kNone: not offered for that field) and the
// compression's permutation where it differs (GP_MERKLE_FIELD_SPONGE).
struct HashProfile {
    const char *name;
    gp_merkle_kind kind;
    gp_permutation perm[3];
    gp_permutation compress[3];
    const char *label;
};

const HashProfile kHashes[] = {
    {"poseidon2", GP_MERKLE_FIELD_SPONGE,
     {GP_PERM_POSEIDON2_GOLDILOCKS_8, GP_PERM_POSEIDON2_BABYBEAR_16, GP_PERM_POSEIDON2_KOALABEAR_16},
     {kNone, kNone, kNone},
     "Plonky3 MMCS, Poseidon2 sponge, width 8 (g) or 16 (b, k)"},
    {"poseidon2-w8", GP_MERKLE_FIELD_SPONGE, {GP_PERM_POSEIDON2_GOLDILOCKS_8, kNone, kNone}, {kNone, kNone, kNone},
     "Plonky3 MMCS, Poseidon2 width 8"},
    {"poseidon2-w12", GP_MERKLE_FIELD_SPONGE, {GP_PERM_POSEIDON2_GOLDILOCKS_12, kNone, kNone}, {kNone, kNone, kNone},
     "Plonky3 MMCS, Poseidon2 width 12"},
    {"poseidon2-w16", GP_MERKLE_FIELD_SPONGE,
     {GP_PERM_POSEIDON2_GOLDILOCKS_16, GP_PERM_POSEIDON2_BABYBEAR_16, GP_PERM_POSEIDON2_KOALABEAR_16},
     {kNone, kNone, kNone}, "Plonky3 MMCS, Poseidon2 width 16"},
    {"poseidon2-w24", GP_MERKLE_FIELD_SPONGE, {kNone, GP_PERM_POSEIDON2_BABYBEAR_24, GP_PERM_POSEIDON2_KOALABEAR_24},
     {kNone, kNone, kNone}, "Plonky3 MMCS, Poseidon2 width 24"},
    {"poseidon2-w32", GP_MERKLE_FIELD_SPONGE, {kNone, GP_PERM_POSEIDON2_BABYBEAR_32, GP_PERM_POSEIDON2_KOALABEAR_32},
     {kNone, kNone, kNone}, "Plonky3 MMCS, Poseidon2 width 32"},
    {"poseidon2-sp1", GP_MERKLE_FIELD_SPONGE, {kNone, GP_PERM_POSEIDON2_BABYBEAR_16_SP1, GP_PERM_POSEIDON2_KOALABEAR_16_SP1},
     {kNone, kNone, kNone}, "SP1's tensor tree, Poseidon2 width 16 (k: SP1 v6, b: SP1 v4/v5)"},
    {"poseidon2-w12c8", GP_MERKLE_FIELD_SPONGE, {GP_PERM_POSEIDON2_GOLDILOCKS_12, kNone, kNone},
     {GP_PERM_POSEIDON2_GOLDILOCKS_8, kNone, kNone},
     "Plonky3 MMCS, Poseidon2 width 12 sponge, width 8 compression"},
    {"poseidon2-w16c8", GP_MERKLE_FIELD_SPONGE, {GP_PERM_POSEIDON2_GOLDILOCKS_16, kNone, kNone},
     {GP_PERM_POSEIDON2_GOLDILOCKS_8, kNone, kNone},
     "Plonky3 MMCS, Poseidon2 width 16 sponge, width 8 compression"},
    {"poseidon2-w24c16", GP_MERKLE_FIELD_SPONGE,
     {kNone, GP_PERM_POSEIDON2_BABYBEAR_24, GP_PERM_POSEIDON2_KOALABEAR_24},
     {kNone, GP_PERM_POSEIDON2_BABYBEAR_16, GP_PERM_POSEIDON2_KOALABEAR_16},
     "Plonky3 MMCS, Poseidon2 width 24 sponge, width 16 compression"},
    {"poseidon2-hl-w8", GP_MERKLE_FIELD_SPONGE, {GP_PERM_POSEIDON2_GOLDILOCKS_HL_8, kNone, kNone},
     {kNone, kNone, kNone}, "field sponge tree, HorizenLabs Poseidon2 width 8"},
    {"poseidon2-hl-w12", GP_MERKLE_FIELD_SPONGE, {GP_PERM_POSEIDON2_GOLDILOCKS_HL_12, kNone, kNone},
     {kNone, kNone, kNone}, "field sponge tree, HorizenLabs Poseidon2 width 12"},
    {"poseidon2-hl-w16", GP_MERKLE_FIELD_SPONGE, {kNone, GP_PERM_POSEIDON2_BABYBEAR_HL_16, kNone},
     {kNone, kNone, kNone}, "field sponge tree, HorizenLabs Poseidon2 width 16"},
    {"poseidon2-hl-w24", GP_MERKLE_FIELD_SPONGE, {kNone, GP_PERM_POSEIDON2_BABYBEAR_HL_24, kNone},
     {kNone, kNone, kNone}, "field sponge tree, HorizenLabs Poseidon2 width 24"},
    {"poseidon", GP_MERKLE_FIELD_SPONGE, {GP_PERM_POSEIDON_GOLDILOCKS_12, kNone, kNone}, {kNone, kNone, kNone},
     "field sponge tree, Plonky2 Poseidon width 12"},
    {"keccak", GP_MERKLE_KECCAK_PLONKY3,
     {GP_PERM_KECCAK_F1600, GP_PERM_KECCAK_F1600, GP_PERM_KECCAK_F1600}, {kNone, kNone, kNone},
     "Plonky3 MMCS, Keccak-256"},
    {"keccak-u64", GP_MERKLE_KECCAK_U64,
     {GP_PERM_KECCAK_F1600, GP_PERM_KECCAK_F1600, GP_PERM_KECCAK_F1600}, {kNone, kNone, kNone},
     "Plonky3 MMCS, Keccak-f sponge on 64-bit lanes"},
    {"keccak-be", GP_MERKLE_KECCAK_BE, {GP_PERM_KECCAK_F1600, kNone, kNone}, {kNone, kNone, kNone},
     "lambdaworks Keccak-256 tree, big-endian elements"},
    {"rpo", GP_MERKLE_MIDEN, {GP_PERM_RPO256, kNone, kNone}, {kNone, kNone, kNone}, "miden-crypto MerkleTree, RPO256"},
    {"rpx", GP_MERKLE_MIDEN, {GP_PERM_RPX256, kNone, kNone}, {kNone, kNone, kNone}, "miden-crypto MerkleTree, RPX256"},
    {"rpo-v0.11", GP_MERKLE_MIDEN_V0_11, {GP_PERM_RPO256, kNone, kNone}, {kNone, kNone, kNone},
     "miden-crypto v0.11-v0.20 MerkleTree, RPO256"},
    {"rpx-v0.11", GP_MERKLE_MIDEN_V0_11, {GP_PERM_RPX256, kNone, kNone}, {kNone, kNone, kNone},
     "miden-crypto v0.11-v0.20 MerkleTree, RPX256"},
    {"rpo-v0.10", GP_MERKLE_MIDEN_V0_10, {GP_PERM_RPO256, kNone, kNone}, {kNone, kNone, kNone},
     "miden-crypto v0.10 MerkleTree, RPO256"},
    {"rpx-v0.10", GP_MERKLE_MIDEN_V0_10, {GP_PERM_RPX256, kNone, kNone}, {kNone, kNone, kNone},
     "miden-crypto v0.10 MerkleTree, RPX256"},
    {"miden-poseidon2", GP_MERKLE_MIDEN, {GP_PERM_POSEIDON2_GOLDILOCKS_12, kNone, kNone}, {kNone, kNone, kNone},
     "miden-crypto MerkleTree, Poseidon2 width 12 (v0.24 on)"},
    {"miden-poseidon2-hl", GP_MERKLE_MIDEN, {GP_PERM_POSEIDON2_GOLDILOCKS_HL_12, kNone, kNone},
     {kNone, kNone, kNone}, "miden-crypto MerkleTree, HorizenLabs Poseidon2 w12 (v0.22, v0.23)"},
    {"lmcs-blake3", GP_MERKLE_MIDEN_LMCS, {GP_PERM_BLAKE3, kNone, kNone}, {kNone, kNone, kNone},
     "Miden lifted MMCS, BLAKE3 (lmcs-*: not with --op commit)"},
    {"lmcs-rpo", GP_MERKLE_MIDEN_LMCS, {GP_PERM_RPO256, kNone, kNone}, {kNone, kNone, kNone},
     "Miden lifted MMCS, RPO256"},
    {"lmcs-rpx", GP_MERKLE_MIDEN_LMCS, {GP_PERM_RPX256, kNone, kNone}, {kNone, kNone, kNone},
     "Miden lifted MMCS, RPX256"},
    {"lmcs-poseidon2", GP_MERKLE_MIDEN_LMCS, {GP_PERM_POSEIDON2_GOLDILOCKS_12, kNone, kNone}, {kNone, kNone, kNone},
     "Miden lifted MMCS, Poseidon2 width 12"},
    {"lmcs-keccak", GP_MERKLE_MIDEN_LMCS, {GP_PERM_KECCAK_F1600, kNone, kNone}, {kNone, kNone, kNone},
     "Miden lifted MMCS, Keccak-f on 64-bit lanes"},
    {"tip5", GP_MERKLE_TRITON, {GP_PERM_TIP5, kNone, kNone}, {kNone, kNone, kNone},
     "Triton VM (twenty-first MerkleTree), Tip5"},
    {"blake3-256", GP_MERKLE_WINTERFELL, {GP_PERM_BLAKE3, kNone, kNone}, {kNone, kNone, kNone},
     "winterfell MerkleTree<Blake3_256>"},
    {"blake3-192", GP_MERKLE_WINTERFELL, {GP_PERM_BLAKE3_192, kNone, kNone}, {kNone, kNone, kNone},
     "winterfell MerkleTree<Blake3_192>"},
    {"sha3-256", GP_MERKLE_WINTERFELL, {GP_PERM_SHA3_256, kNone, kNone}, {kNone, kNone, kNone},
     "winterfell MerkleTree<Sha3_256>"},
    {"rp64-256", GP_MERKLE_WINTERFELL, {GP_PERM_RP64_256, kNone, kNone}, {kNone, kNone, kNone},
     "winterfell MerkleTree<Rp64_256>"},
};

int field_index(gp_field f) { return f == GP_FIELD_GOLDILOCKS ? 0 : f == GP_FIELD_BABYBEAR ? 1 : 2; }

const char *field_name(gp_field f) {
    switch (f) {
    case GP_FIELD_GOLDILOCKS: return "goldilocks";
    case GP_FIELD_BABYBEAR: return "babybear";
    case GP_FIELD_KOALABEAR: return "koalabear";
    }
    return "unknown";
}

const char *backend_name(gp_backend b) {
    switch (b) {
    case GP_BACKEND_AUTO: return "auto";
    case GP_BACKEND_CPU: return "cpu";
    case GP_BACKEND_CUDA: return "cuda";
    case GP_BACKEND_REMOTE: return "remote";
    }
    return "unknown";
}

// The extension FRI and DEEP use unless --ext names one: 2 for Goldilocks,
// 4 for the 31-bit fields.
uint32_t default_extension(gp_field f) { return f == GP_FIELD_GOLDILOCKS ? 2 : 4; }

bool extension_supported(gp_field f, uint32_t d) {
    return f == GP_FIELD_GOLDILOCKS ? (d >= 1 && d <= 3) : (d == 1 || d == 4);
}

// ---------------------------------------------------------------------------
// Command line

struct Args {
    Op op = Op::Lde;
    gp_field field = GP_FIELD_GOLDILOCKS;
    uint32_t log_n = kDefaultLogNCpu;
    bool log_n_given = false;
    uint64_t cols = kDefaultCols;
    uint32_t ext = 1;
    bool ext_given = false;
    uint32_t blowup = 4;
    gp_order order = GP_ORDER_BIT_REVERSED;
    gp_lde_input input = GP_LDE_INPUT_EVALUATIONS;
    const HashProfile *hash = &kHashes[0];
    uint32_t cap_height = 0;
    gp_backend backend = GP_BACKEND_AUTO;
    bool backend_given = false;
    std::string server;
    std::vector<int32_t> devices;
    uint32_t threads = 0;
    uint32_t reps = 5;
    bool json = false;
    uint64_t seed = 1;
    uint32_t points = 2;  // deep
    uint32_t arity = 2;   // fri
    uint64_t floor_mib = 1024;
};

void usage(FILE *f) {
    std::fprintf(
        f,
        "usage: gp-bench [--op OP] [--field F] [--log-n K] [--cols C] [--ext D]\n"
        "                [--blowup B] [--order natural|bitrev] [--hash NAME]\n"
        "                [--cap-height H] [--backend auto|cpu|cuda|remote]\n"
        "                [--server ADDR] [--devices LIST] [--threads N] [--reps N]\n"
        "                [--seed S] [--points 1|2] [--arity 2|4|8] [--floor-mib M]\n"
        "                [--json] [--version] [--help]\n"
        "\n"
        "Times one gpuprover operation on a shape you give: one untimed warm-up call,\n"
        "then --reps timed calls (wall time around the call, which returns after its\n"
        "device work). Inputs are deterministic pseudo-random canonical elements\n"
        "(splitmix64 from --seed, reduced mod p), so the root or checksum printed\n"
        "depends on the arguments only, never on the backend or the device count.\n"
        "\n"
        "Operations (--op, default lde). n = 2^K trace rows, C columns of degree D,\n"
        "N = n * B LDE rows, e = element bytes (8 Goldilocks, 4 BabyBear/KoalaBear):\n"
        "  lde       gp_lde_batch: an n x C buffer of the context into a reused N x C\n"
        "            output. bytes: input + output (n*C*D*e + N*C*D*e).\n"
        "  ntt       gp_ntt_batch forward, in place, on an n x C buffer (natural input,\n"
        "            --order output). bytes: the buffer read and written (2*n*C*D*e).\n"
        "  merkle    gp_merkle_commit of an n x C buffer (the trace shape, no LDE).\n"
        "            bytes: the matrix read (n*C*D*e).\n"
        "  commit    gp_commit_host: an n x C trace in host memory (gp_host_alloc:\n"
        "            page-locked on CUDA) -> coset LDE -> Merkle tree in one call, the\n"
        "            LDE kept in a reused N x C buffer. bytes: input + output LDE.\n"
        "  fri       gp_fri_commit of one codeword of N elements of degree D (default:\n"
        "            2 Goldilocks, 4 BabyBear/KoalaBear), challenges fixed canonical\n"
        "            values from --seed, folded to a final layer of 2^H elements (H =\n"
        "            --cap-height; 2 at least with a winterfell hash; raised until the\n"
        "            folds of --arity reach it). bytes: the codeword read + every\n"
        "            folded layer written.\n"
        "  deep      gp_deep_composition of an N x C buffer (LDE-shaped, --order rows,\n"
        "            base columns, or degree-D columns with --ext D > 1) at --points\n"
        "            points (default 2: z and a second point, as Plonky3 opens z and\n"
        "            z*g) of degree D (the field's default when D = 1), into a reused\n"
        "            N-row output. bytes: the columns read + the output written.\n"
        "  upload    gp_buffer_from_host of the n x C trace (gp_host_alloc memory; each\n"
        "            call creates its buffer, destroyed untimed). bytes: those copied.\n"
        "  download  gp_buffer_to_host of an n x C buffer into gp_host_alloc memory.\n"
        "            bytes: those copied.\n"
        "GB/s = bytes / median time.\n"
        "\n"
        "Shape and profile:\n"
        "  --field F       goldilocks (default), babybear, koalabear\n"
        "  --log-n K       trace rows 2^K, 1..32 (default %u on CUDA and on a server's\n"
        "                  GPU, %u on the CPU; decided once the context exists)\n"
        "  --cols C        columns (default %llu)\n"
        "  --ext D         extension degree of the columns: goldilocks 1, 2, 3;\n"
        "                  babybear, koalabear 1, 4 (default 1; see fri and deep)\n"
        "  --blowup B      LDE blowup, a power of two in 1..32 (default 4)\n"
        "  --input I       evals (default) or coeffs: what lde's input rows hold (coeffs:\n"
        "                  basefold's encoding, GP_LDE_INPUT_COEFFICIENTS; not with commit)\n"
        "  --order O       bitrev (default) or natural: the LDE's and the NTT's output\n"
        "                  rows, FRI's codeword order, DEEP's column rows\n"
        "  --hash NAME     Merkle profile of merkle, commit and fri (default poseidon2);\n"
        "                  NAME, fields (g goldilocks, b babybear, k koalabear), profile:\n",
        kDefaultLogNCuda, kDefaultLogNCpu, (unsigned long long)kDefaultCols);
    for (const HashProfile &h : kHashes) {
        char fields[8] = "";
        size_t k = 0;
        for (int i = 0; i < 3; ++i)
            if (h.perm[i] != kNone) fields[k++] = "gbk"[i];
        fields[k] = '\0';
        std::fprintf(f, "    %-18s %-3s %s\n", h.name, fields, h.label);
    }
    std::fprintf(
        f,
        "  --cap-height H  Merkle cap height (default 0: the root)\n"
        "  --points P      deep: 1 or 2 points (default 2)\n"
        "  --arity A       fri: folding arity 2 (default), 4 or 8\n"
        "\n"
        "Context:\n"
        "  --backend X     auto (default), cpu, cuda or remote\n"
        "  --server ADDR   a gpuprover-server address (unix socket path, unix:PATH or\n"
        "                  HOST:PORT); implies --backend remote (auto falls back)\n"
        "  --devices LIST  comma-separated CUDA ordinals (an ordinal may repeat: shares\n"
        "                  of one GPU) or 'all'; on the CPU backend the list's length\n"
        "                  is the number of emulated devices (default: one device)\n"
        "  --threads N     worker threads of the CPU backend and of host staging\n"
        "                  (default 0: one per hardware thread)\n"
        "\n"
        "Run and output:\n"
        "  --reps N        timed calls after the warm-up (default 5)\n"
        "  --seed S        input seed (default 1)\n"
        "  --floor-mib M   size of the bandwidth probe's copies in MiB (default 1024;\n"
        "                  less when memory is short; 0: no floor)\n"
        "  --json          one JSON object on stdout instead of the table\n"
        "  --version       print the version and exit\n"
        "\n"
        "Floor: the time the operation's unavoidable traffic takes at this machine's\n"
        "bandwidth, measured once at start (copies of --floor-mib, best of 3):\n"
        "  CUDA, device-resident ops (lde, ntt, merkle, fri, deep): their bytes (as\n"
        "    above, read + written) / the cudaMemcpy device-to-device rate of the\n"
        "    context's first device (read + write counted) x the distinct GPUs.\n"
        "  CUDA, host-input ops (commit, upload): the trace's bytes / the pinned\n"
        "    (cudaHostAlloc) host-to-device rate x the distinct GPUs (each has its\n"
        "    own link); download: its bytes / the pinned device-to-host rate.\n"
        "  CPU: bytes read + written (as above; commit: the trace + the LDE; upload,\n"
        "    download: twice the bytes copied) / the rate of a single-threaded host\n"
        "    memcpy (read + write counted), so the library's threads can beat it.\n"
        "  remote: none (the server's machine is not measured from here).\n"
        "x_floor = median / floor: 1.00 is at the floor, 2.00 takes twice as long;\n"
        "fraction_of_floor = floor / median, its inverse (1.00 at the floor).\n"
        "\n"
        "Root and checksum: merkle and commit print the root (gp_merkle_root, hex);\n"
        "fri layer 0's cap and a checksum of every cap and the remainder; lde, ntt,\n"
        "deep, upload and download a 64-bit checksum of the output of the warm-up\n"
        "call, downloaded column-major (an FNV-1a style fold of the base elements),\n"
        "\"skipped\" when that output exceeds 1 GiB. CPU and CUDA runs of one shape\n"
        "print the same values.\n"
        "\n"
        "Exit status: 0 success, 1 a gpuprover call failed, 2 bad arguments or a\n"
        "shape that does not fit (refused before anything is allocated).\n");
}

__attribute__((format(printf, 1, 2))) int usage_error(const char *fmt, ...) {
    std::va_list ap;
    va_start(ap, fmt);
    std::fprintf(stderr, "gp-bench: ");
    std::vfprintf(stderr, fmt, ap);
    std::fprintf(stderr, "\n");
    va_end(ap);
    return kExitUsage;
}

bool parse_u64(const char *text, uint64_t min, uint64_t max, uint64_t &out) {
    if (text[0] < '0' || text[0] > '9') return false;
    errno = 0;
    char *end = nullptr;
    const unsigned long long v = std::strtoull(text, &end, 10);
    if (errno != 0 || end == text || *end != '\0' || v < min || v > max) return false;
    out = v;
    return true;
}

int range_error(const char *opt, uint64_t min, uint64_t max, const char *got) {
    std::fprintf(stderr, "gp-bench: %s expects an integer in [%" PRIu64 ", %" PRIu64 "], got '%s'\n", opt, min,
                 max, got);
    return kExitUsage;
}

std::string hash_names() {
    std::string s;
    for (const HashProfile &h : kHashes) s += (s.empty() ? "" : ", ") + std::string(h.name);
    return s;
}

// Returns 0, kExitUsage, or -1 for --help and --version (exit 0).
int parse_args(int argc, char **argv, Args &a) {
    for (int i = 1; i < argc; ++i) {
        const std::string opt = argv[i];
        if (opt == "-h" || opt == "--help") {
            usage(stdout);
            return -1;
        }
        if (opt == "--version") {
            std::printf("gp-bench (gpuprover %s)\n", gp_version());
            return -1;
        }
        if (opt == "--json") {
            a.json = true;
            continue;
        }
        static const char *const kValued[] = {"--op",      "--field",   "--log-n",   "--cols",    "--ext",
                                              "--blowup",  "--order",   "--hash",    "--cap-height",
                                              "--backend", "--server",  "--devices", "--threads", "--reps",
                                              "--seed",    "--points",  "--arity",   "--floor-mib", "--input"};
        bool known = false;
        for (const char *k : kValued) known = known || opt == k;
        if (!known) {
            std::fprintf(stderr, "gp-bench: unknown argument '%s' (see gp-bench --help)\n", opt.c_str());
            return kExitUsage;
        }
        if (i + 1 >= argc) return usage_error("%s needs a value (see gp-bench --help)", opt.c_str());
        const char *val = argv[++i];
        const std::string v = val;
        uint64_t x = 0;
        if (opt == "--op") {
            bool found = false;
            for (const OpInfo &o : kOps)
                if (v == o.name) {
                    a.op = o.op;
                    found = true;
                }
            if (!found)
                return usage_error("--op must be lde, ntt, merkle, commit, fri, deep, upload or download, got '%s'",
                                   val);
        } else if (opt == "--field") {
            if (v == "goldilocks")
                a.field = GP_FIELD_GOLDILOCKS;
            else if (v == "babybear")
                a.field = GP_FIELD_BABYBEAR;
            else if (v == "koalabear")
                a.field = GP_FIELD_KOALABEAR;
            else
                return usage_error("--field must be goldilocks, babybear or koalabear, got '%s'", val);
        } else if (opt == "--log-n") {
            if (!parse_u64(val, 1, 32, x)) return range_error("--log-n", 1, 32, val);
            a.log_n = (uint32_t)x;
            a.log_n_given = true;
        } else if (opt == "--cols") {
            if (!parse_u64(val, 1, uint64_t(1) << 32, x)) return range_error("--cols", 1, uint64_t(1) << 32, val);
            a.cols = x;
        } else if (opt == "--ext") {
            if (!parse_u64(val, 1, 4, x))
                return usage_error("--ext must be 1, 2 or 3 (goldilocks) or 1 or 4 (babybear, koalabear), got '%s'",
                                   val);
            a.ext = (uint32_t)x;
            a.ext_given = true;
        } else if (opt == "--blowup") {
            if (!parse_u64(val, 1, 32, x) || (x & (x - 1)) != 0)
                return usage_error("--blowup must be a power of two in [1, 32] (1, 2, 4, 8, 16 or 32), got '%s'", val);
            a.blowup = (uint32_t)x;
        } else if (opt == "--input") {
            if (v == "evals")
                a.input = GP_LDE_INPUT_EVALUATIONS;
            else if (v == "coeffs")
                a.input = GP_LDE_INPUT_COEFFICIENTS;
            else
                return usage_error("--input must be evals or coeffs, got '%s'", val);
        } else if (opt == "--order") {
            if (v == "bitrev" || v == "bit-reversed")
                a.order = GP_ORDER_BIT_REVERSED;
            else if (v == "natural")
                a.order = GP_ORDER_NATURAL;
            else
                return usage_error("--order must be natural or bitrev, got '%s'", val);
        } else if (opt == "--hash") {
            const HashProfile *found = nullptr;
            for (const HashProfile &h : kHashes)
                if (v == h.name) found = &h;
            if (!found) {
                const std::string names = hash_names();
                return usage_error("--hash must be one of %s; got '%s'", names.c_str(), val);
            }
            a.hash = found;
        } else if (opt == "--cap-height") {
            if (!parse_u64(val, 0, 32, x)) return range_error("--cap-height", 0, 32, val);
            a.cap_height = (uint32_t)x;
        } else if (opt == "--backend") {
            if (v == "auto")
                a.backend = GP_BACKEND_AUTO;
            else if (v == "cpu")
                a.backend = GP_BACKEND_CPU;
            else if (v == "cuda")
                a.backend = GP_BACKEND_CUDA;
            else if (v == "remote")
                a.backend = GP_BACKEND_REMOTE;
            else
                return usage_error("--backend must be auto, cpu, cuda or remote, got '%s'", val);
            a.backend_given = true;
        } else if (opt == "--server") {
            if (v.empty()) return usage_error("--server needs an address (a unix socket path, unix:PATH or HOST:PORT)");
            a.server = v;
        } else if (opt == "--devices") {
            a.devices.clear();
            if (v == "all") {
                a.devices.push_back(GP_DEVICES_ALL);
            } else {
                size_t p = 0;
                while (p <= v.size()) {
                    size_t q = v.find(',', p);
                    if (q == std::string::npos) q = v.size();
                    const std::string tok = v.substr(p, q - p);
                    p = q + 1;
                    if (!parse_u64(tok.c_str(), 0, 4095, x))
                        return usage_error("--devices must be 'all' or a comma-separated list of device ordinals "
                                           "(integers in [0, 4095]), got '%s'",
                                           val);
                    a.devices.push_back((int32_t)x);
                }
            }
        } else if (opt == "--threads") {
            if (!parse_u64(val, 0, 65536, x)) return range_error("--threads", 0, 65536, val);
            a.threads = (uint32_t)x;
        } else if (opt == "--reps") {
            if (!parse_u64(val, 1, 1000000, x)) return range_error("--reps", 1, 1000000, val);
            a.reps = (uint32_t)x;
        } else if (opt == "--seed") {
            if (!parse_u64(val, 0, UINT64_MAX, x)) return range_error("--seed", 0, UINT64_MAX, val);
            a.seed = x;
        } else if (opt == "--points") {
            if (!parse_u64(val, 1, 2, x)) return usage_error("--points must be 1 or 2, got '%s'", val);
            a.points = (uint32_t)x;
        } else if (opt == "--arity") {
            if (!parse_u64(val, 2, 8, x) || (x != 2 && x != 4 && x != 8))
                return usage_error("--arity must be 2, 4 or 8, got '%s'", val);
            a.arity = (uint32_t)x;
        } else {  // --floor-mib
            if (!parse_u64(val, 0, uint64_t(1) << 20, x)) return range_error("--floor-mib", 0, uint64_t(1) << 20, val);
            a.floor_mib = x;
        }
    }
    if (!a.server.empty()) {
        if (a.backend_given && a.backend != GP_BACKEND_REMOTE && a.backend != GP_BACKEND_AUTO)
            return usage_error("--server needs --backend remote or auto (it implies remote), got --backend %s",
                               backend_name(a.backend));
        if (!a.backend_given) a.backend = GP_BACKEND_REMOTE;
    }
    // The column degree of every op but fri, whose default is the field's
    // extension (deep's points take it too when the columns are base).
    if (a.op == Op::Fri && !a.ext_given) a.ext = default_extension(a.field);
    if (!extension_supported(a.field, a.ext))
        return usage_error("--ext %s is not an extension degree of %s (goldilocks takes 1, 2, 3; babybear and "
                           "koalabear take 1, 4)",
                           std::to_string(a.ext).c_str(), field_name(a.field));
    if (op_info(a.op).hashes) {
        if (a.hash->perm[field_index(a.field)] == kNone) {
            std::string takes;
            for (int i = 0; i < 3; ++i)
                if (a.hash->perm[i] != kNone)
                    takes += (takes.empty() ? "" : ", ") + std::string(field_name(gp_field(i + 1)));
            std::fprintf(stderr, "gp-bench: --hash %s takes --field %s only, not %s\n", a.hash->name, takes.c_str(),
                         field_name(a.field));
            return kExitUsage;
        }
    }
    return 0;
}

// ---------------------------------------------------------------------------
// Sizes

// a * b, clearing `ok` on overflow.
uint64_t mul(uint64_t a, uint64_t b, bool &ok) {
    if (a != 0 && b > UINT64_MAX / a) {
        ok = false;
        return 0;
    }
    return a * b;
}

uint64_t add(uint64_t a, uint64_t b, bool &ok) {
    if (a > UINT64_MAX - b) {
        ok = false;
        return 0;
    }
    return a + b;
}

uint32_t log2_of(uint64_t x) {
    uint32_t k = 0;
    while ((uint64_t(1) << k) < x) ++k;
    return k;
}

struct Shape {
    uint32_t es = 0;          // element bytes
    uint32_t log_blowup = 0;
    uint64_t n = 0, lde_rows = 0;
    uint64_t trace_elems = 0;  // n x cols x ext base elements
    uint64_t trace_bytes = 0, lde_bytes = 0;
    // fri
    uint32_t log_final = 0, fri_layers = 0;
    uint64_t codeword_bytes = 0, layers_bytes = 0;
    // deep
    uint32_t deep_degree = 0;
    uint64_t deep_out_bytes = 0;
    // What the timed call moves: `bytes` for GB/s, `traffic` (read +
    // written) for the device-copy and memcpy floors, `host_bytes` for the
    // pinned-copy floors.
    uint64_t bytes = 0, traffic = 0, host_bytes = 0;
    const char *bytes_what = "";
    const char *traffic_what = "";  // what `traffic` counts
    // Memory needed: in the context (device memory on CUDA) and on the host.
    uint64_t device_need = 0, host_need = 0;
    // The output whose checksum is printed, and its size.
    uint64_t check_bytes = 0;
};

std::string human_bytes(uint64_t b) {
    char t[64];
    if (b >= (uint64_t(1) << 30))
        std::snprintf(t, sizeof t, "%.2f GiB", double(b) / double(uint64_t(1) << 30));
    else if (b >= kMiB)
        std::snprintf(t, sizeof t, "%.2f MiB", double(b) / double(kMiB));
    else
        std::snprintf(t, sizeof t, "%.2f KiB", double(b) / 1024.0);
    return t;
}

// Fills `s` from the arguments; returns 0 or kExitUsage after saying why.
int compute_shape(const Args &a, Shape &s) {
    uint64_t modulus = 0;
    uint32_t two_adicity = 0;
    gp_field_info(a.field, &modulus, nullptr, &two_adicity);
    s.es = gp_field_element_size(a.field);
    s.log_blowup = log2_of(a.blowup);
    const bool uses_lde = a.op == Op::Lde || a.op == Op::Commit || a.op == Op::Fri || a.op == Op::Deep;
    const uint32_t log_rows = a.log_n + (uses_lde ? s.log_blowup : 0);
    if (log_rows > two_adicity) {
        std::fprintf(stderr,
                     "gp-bench: --log-n %u%s needs a 2^%u-th root of unity, but %s has two-adicity %u; use a smaller "
                     "--log-n%s\n",
                     a.log_n, uses_lde ? (" with --blowup " + std::to_string(a.blowup)).c_str() : "", log_rows,
                     field_name(a.field), two_adicity, uses_lde ? " or --blowup" : "");
        return kExitUsage;
    }
    bool ok = true;
    s.n = uint64_t(1) << a.log_n;
    s.lde_rows = s.n << s.log_blowup;
    s.trace_elems = mul(mul(s.n, a.cols, ok), a.ext, ok);
    s.trace_bytes = mul(s.trace_elems, s.es, ok);
    s.lde_bytes = mul(mul(mul(s.lde_rows, a.cols, ok), a.ext, ok), s.es, ok);
    const uint64_t tree_bytes = mul(2 * s.lde_rows, 64, ok);  // a generous bound on any tree's nodes
    switch (a.op) {
    case Op::Lde:
        s.bytes = s.traffic = add(s.trace_bytes, s.lde_bytes, ok);
        s.bytes_what = "input + output LDE";
        s.traffic_what = "the input read + the LDE written";
        s.device_need = s.traffic;
        s.check_bytes = s.lde_bytes;
        s.host_need = s.trace_bytes;
        break;
    case Op::Ntt:
        s.bytes = s.traffic = mul(2, s.trace_bytes, ok);
        s.bytes_what = s.traffic_what = "the buffer read + written";
        s.device_need = s.trace_bytes;
        s.check_bytes = s.trace_bytes;
        s.host_need = s.trace_bytes;
        break;
    case Op::Merkle:
        s.bytes = s.traffic = s.trace_bytes;
        s.bytes_what = s.traffic_what = "the matrix read";
        s.device_need = add(s.trace_bytes, tree_bytes, ok);
        s.host_need = s.trace_bytes;
        break;
    case Op::Commit:
        s.bytes = s.traffic = add(s.trace_bytes, s.lde_bytes, ok);
        s.bytes_what = "input + output LDE";
        s.traffic_what = "the trace read + the LDE written";
        s.host_bytes = s.trace_bytes;
        s.device_need = add(s.lde_bytes, tree_bytes, ok);
        s.host_need = s.trace_bytes;
        break;
    case Op::Fri: {
        const uint32_t log_a = log2_of(a.arity);
        const uint32_t log_cw = a.log_n + s.log_blowup;
        uint32_t lf = a.cap_height;
        if (a.hash->kind == GP_MERKLE_WINTERFELL && lf < 1) lf = 1;
        while (lf < log_cw && (log_cw - lf) % log_a != 0) ++lf;
        if (lf >= log_cw) {
            std::fprintf(stderr,
                         "gp-bench: --op fri folds a codeword of 2^%u elements (--log-n %u, --blowup %u) with "
                         "--arity %u to a final layer of at least 2^%u (--cap-height %u%s); the codeword must be "
                         "larger: raise --log-n or --blowup\n",
                         log_cw, a.log_n, a.blowup, a.arity, lf, a.cap_height,
                         a.hash->kind == GP_MERKLE_WINTERFELL ? ", winterfell trees of two leaves or more" : "");
            return kExitUsage;
        }
        s.log_final = lf;
        s.fri_layers = (log_cw - lf) / log_a;
        s.codeword_bytes = mul(mul(s.lde_rows, a.ext, ok), s.es, ok);
        for (uint32_t k = 1; k <= s.fri_layers; ++k) s.layers_bytes += s.codeword_bytes >> (k * log_a);
        s.bytes = s.traffic = s.codeword_bytes + s.layers_bytes;
        s.bytes_what = s.traffic_what = "the codeword read + the folded layers written";
        s.device_need = add(mul(3, s.codeword_bytes, ok), tree_bytes, ok);
        s.host_need = s.codeword_bytes;
        break;
    }
    case Op::Deep:
        s.deep_degree = a.ext > 1 ? a.ext : default_extension(a.field);
        s.deep_out_bytes = mul(mul(s.lde_rows, s.deep_degree, ok), s.es, ok);
        s.bytes = s.traffic = add(s.lde_bytes, s.deep_out_bytes, ok);
        s.bytes_what = s.traffic_what = "the columns read + the output written";
        s.device_need = s.traffic;
        s.check_bytes = s.deep_out_bytes;
        s.host_need = s.lde_bytes;
        break;
    case Op::Upload:
    case Op::Download:
        s.bytes = s.host_bytes = s.trace_bytes;
        s.traffic = mul(2, s.trace_bytes, ok);
        s.bytes_what = "the bytes copied";
        s.traffic_what = "the bytes copied, read + written";
        s.device_need = s.trace_bytes;
        s.check_bytes = s.trace_bytes;
        s.host_need = mul(2, s.trace_bytes, ok);
        break;
    }
    if (s.check_bytes > 0 && s.check_bytes <= kChecksumLimit) s.host_need = add(s.host_need, s.check_bytes, ok);
    if (!ok) {
        std::fprintf(stderr, "gp-bench: --op %s at 2^%u x %llu (ext %u, blowup %u) needs more than 2^64 bytes\n",
                     op_info(a.op).name, a.log_n, (unsigned long long)a.cols, a.ext, a.blowup);
        return kExitUsage;
    }
    return 0;
}

uint64_t physical_memory() {
    const long pages = sysconf(_SC_PHYS_PAGES), size = sysconf(_SC_PAGE_SIZE);
    return pages > 0 && size > 0 ? uint64_t(pages) * uint64_t(size) : 0;
}

// ---------------------------------------------------------------------------
// Errors of library calls

void report(const char *call, gp_status st) {
    const std::string message = gp_last_error();  // copied before any other call
    std::fprintf(stderr, "gp-bench: %s failed: %s: %s\n", call, gp_status_name(st), message.c_str());
}

#define GP_TRY(fn, args)                      \
    do {                                      \
        const gp_status try_status_ = fn args; \
        if (try_status_ != GP_OK) {           \
            report(#fn, try_status_);         \
            return kExitGpError;              \
        }                                     \
    } while (0)

// ---------------------------------------------------------------------------
// Inputs and checksums

uint64_t splitmix64(uint64_t &state) {
    uint64_t z = (state += 0x9E3779B97F4A7C15ull);
    z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ull;
    z = (z ^ (z >> 27)) * 0x94D049BB133111EBull;
    return z ^ (z >> 31);
}

// `count` canonical base elements from `state`.
void fill(void *dst, uint64_t count, uint32_t es, uint64_t modulus, uint64_t &state) {
    if (es == 8) {
        auto *d = static_cast<uint64_t *>(dst);
        for (uint64_t i = 0; i < count; ++i) d[i] = splitmix64(state) % modulus;
    } else {
        auto *d = static_cast<uint32_t *>(dst);
        for (uint64_t i = 0; i < count; ++i) d[i] = uint32_t(splitmix64(state) % modulus);
    }
}

constexpr uint64_t kFoldStart = 0xCBF29CE484222325ull, kFoldPrime = 0x100000001B3ull;

// Folds `count` base elements into `h` (an FNV-1a style fold over whole
// elements, which also notices rows in another order).
uint64_t fold_elements(uint64_t h, const void *data, uint64_t count, uint32_t es) {
    for (uint64_t i = 0; i < count; ++i) {
        const uint64_t v = es == 8 ? static_cast<const uint64_t *>(data)[i] : static_cast<const uint32_t *>(data)[i];
        h = (h ^ v) * kFoldPrime;
    }
    return h;
}

uint64_t fold_bytes(uint64_t h, const void *data, uint64_t count) {
    for (uint64_t i = 0; i < count; ++i) h = (h ^ static_cast<const unsigned char *>(data)[i]) * kFoldPrime;
    return h;
}

std::string hex(const std::vector<unsigned char> &b) {
    static const char digits[] = "0123456789abcdef";
    std::string s;
    for (unsigned char c : b) {
        s += digits[c >> 4];
        s += digits[c & 15];
    }
    return s;
}

std::string checksum_text(uint64_t h) {
    char t[32];
    std::snprintf(t, sizeof t, "0x%016" PRIx64, h);
    return t;
}

// ---------------------------------------------------------------------------
// Floors: the bandwidth the traffic is measured against

struct Floor {
    double seconds = 0;  // 0: none
    std::string basis;   // how it was derived (printed)
    std::string rates;   // the measured rates (table output)
};

double now_s() {
    return std::chrono::duration<double>(std::chrono::steady_clock::now().time_since_epoch()).count();
}

// Host memcpy on one thread, read + write counted; 0 if it cannot be measured.
double host_copy_rate(uint64_t bytes) {
    if (bytes == 0) return 0;
    char *a = static_cast<char *>(std::malloc(bytes)), *b = static_cast<char *>(std::malloc(bytes));
    if (!a || !b) {
        std::free(a);
        std::free(b);
        return 0;
    }
    std::memset(a, 1, bytes);
    std::memset(b, 2, bytes);
    std::memcpy(b, a, bytes);  // warm-up
    double best = 1e30;
    for (int r = 0; r < 3; ++r) {
        const double t0 = now_s();
        std::memcpy(b, a, bytes);
        __asm__ __volatile__("" : : "r"(b) : "memory");  // the copy is not dead
        const double t = now_s() - t0;
        best = std::min(best, t);
    }
    std::free(a);
    std::free(b);
    return best > 0 ? 2.0 * double(bytes) / best : 0;
}

#ifdef GP_HAVE_CUDA
struct CudaRates {
    double d2d = 0, h2d = 0, d2h = 0;  // bytes per second (d2d: read + write)
    uint64_t bytes = 0;
    std::string error;
};

// Best of 3 (after a warm-up) of `copy` on the default stream, in seconds.
template <class Copy>
double best_copy_seconds(Copy &&copy) {
    cudaEvent_t e0 = nullptr, e1 = nullptr;
    if (cudaEventCreate(&e0) != cudaSuccess || cudaEventCreate(&e1) != cudaSuccess) return 0;
    double best = 0;
    if (copy() == cudaSuccess && cudaDeviceSynchronize() == cudaSuccess) {
        best = 1e30;
        for (int r = 0; r < 3 && best > 0; ++r) {
            float ms = 0;
            if (cudaEventRecord(e0) != cudaSuccess || copy() != cudaSuccess || cudaEventRecord(e1) != cudaSuccess ||
                cudaEventSynchronize(e1) != cudaSuccess || cudaEventElapsedTime(&ms, e0, e1) != cudaSuccess) {
                best = 0;
                break;
            }
            best = std::min(best, double(ms) * 1e-3);
        }
    }
    cudaEventDestroy(e0);
    cudaEventDestroy(e1);
    return best;
}

// The copy rates of CUDA device `ordinal`: device to device (1 GiB or
// `want` bytes, at most a quarter of the free memory), pinned host to
// device and device to host.
CudaRates cuda_rates(int ordinal, uint64_t want, bool d2h) {
    CudaRates r;
    size_t free_b = 0, total_b = 0;
    if (cudaSetDevice(ordinal) != cudaSuccess || cudaMemGetInfo(&free_b, &total_b) != cudaSuccess) {
        r.error = cudaGetErrorString(cudaGetLastError());
        return r;
    }
    uint64_t bytes = std::min<uint64_t>(want, free_b / 4) / kMiB * kMiB;
    if (bytes == 0) {
        r.error = "too little free device memory to measure";
        return r;
    }
    r.bytes = bytes;
    void *a = nullptr, *b = nullptr, *h = nullptr;
    if (cudaMalloc(&a, bytes) == cudaSuccess && cudaMalloc(&b, bytes) == cudaSuccess &&
        cudaMemset(a, 1, bytes) == cudaSuccess) {
        const double s = best_copy_seconds([&] { return cudaMemcpy(b, a, bytes, cudaMemcpyDeviceToDevice); });
        if (s > 0) r.d2d = 2.0 * double(bytes) / s;
        if (cudaHostAlloc(&h, bytes, cudaHostAllocDefault) == cudaSuccess) {
            std::memset(h, 1, bytes);
            const double su = best_copy_seconds([&] { return cudaMemcpy(a, h, bytes, cudaMemcpyHostToDevice); });
            if (su > 0) r.h2d = double(bytes) / su;
            if (d2h) {
                const double sd = best_copy_seconds([&] { return cudaMemcpy(h, b, bytes, cudaMemcpyDeviceToHost); });
                if (sd > 0) r.d2h = double(bytes) / sd;
            }
        }
    }
    if (r.d2d == 0) r.error = cudaGetErrorString(cudaGetLastError());
    cudaGetLastError();
    if (h) cudaFreeHost(h);
    if (a) cudaFree(a);
    if (b) cudaFree(b);
    return r;
}
#endif

// Milliseconds with three significant digits at least.
std::string ms_text(double ms) {
    char t[32];
    std::snprintf(t, sizeof t, ms >= 1 ? "%.3f" : "%.3g", ms);
    return t;
}

std::string rate_text(double bps) {
    char t[64];
    std::snprintf(t, sizeof t, "%.2f GB/s", bps / 1e9);
    return t;
}

// Measures the rates the op's floor needs and derives the floor.
Floor measure_floor(const Args &a, const Shape &s, gp_context *ctx, gp_backend backend, uint32_t gpus) {
    Floor f;
    const uint64_t want = a.floor_mib * kMiB;
    if (want == 0) {
        f.basis = "none (--floor-mib 0)";
        return f;
    }
    if (backend == GP_BACKEND_REMOTE) {
        f.basis = "none on the remote backend (the server's machine is not measured from here)";
        return f;
    }
    if (backend == GP_BACKEND_CPU) {
        const uint64_t phys = physical_memory();
        uint64_t bytes = phys ? std::min<uint64_t>(want, phys / 8) / kMiB * kMiB : want;
        if (bytes == 0) bytes = kMiB;
        const double bw = host_copy_rate(bytes);
        if (bw <= 0) {
            f.basis = "none (the host copy could not be measured)";
            return f;
        }
        f.seconds = double(s.traffic) / bw;
        f.rates = "host memcpy " + rate_text(bw) + " (one thread, read + write, copies of " +
                  std::to_string(bytes / kMiB) + " MiB, best of 3)";
        f.basis = human_bytes(s.traffic) + " (" + s.traffic_what + ") / single-threaded host memcpy " +
                  rate_text(bw) + " (read + write counted)";
        return f;
    }
#ifdef GP_HAVE_CUDA
    gp_device_info info;
    std::memset(&info, 0, sizeof info);
    info.struct_size = sizeof info;
    if (gp_context_device_info(ctx, 0, &info) != GP_OK || info.ordinal < 0) {
        f.basis = "none (the context's first device has no CUDA ordinal)";
        return f;
    }
    const CudaRates r = cuda_rates(info.ordinal, want, a.op == Op::Download);
    const std::string per = gpus > 1 ? " x " + std::to_string(gpus) + " GPUs" : "";
    char rates[256];
    std::snprintf(rates, sizeof rates,
                  "GPU %d: device-to-device %.1f GB/s (read + write), pinned host-to-device %.2f GB/s%s%s "
                  "(copies of %llu MiB, best of 3)",
                  info.ordinal, r.d2d / 1e9, r.h2d / 1e9, a.op == Op::Download ? ", device-to-host " : "",
                  a.op == Op::Download ? rate_text(r.d2h).c_str() : "", (unsigned long long)(r.bytes / kMiB));
    f.rates = rates;
    if (a.op == Op::Commit || a.op == Op::Upload) {
        if (r.h2d <= 0) {
            f.basis = "none (pinned host-to-device copy not measured: " + r.error + ")";
            return f;
        }
        f.seconds = double(s.host_bytes) / (r.h2d * gpus);
        f.basis = human_bytes(s.host_bytes) + " of host trace / pinned host-to-device " + rate_text(r.h2d) + per;
    } else if (a.op == Op::Download) {
        if (r.d2h <= 0) {
            f.basis = "none (pinned device-to-host copy not measured: " + r.error + ")";
            return f;
        }
        f.seconds = double(s.host_bytes) / (r.d2h * gpus);
        f.basis = human_bytes(s.host_bytes) + " to host / pinned device-to-host " + rate_text(r.d2h) + per;
    } else {
        if (r.d2d <= 0) {
            f.basis = "none (device-to-device copy not measured: " + r.error + ")";
            return f;
        }
        f.seconds = double(s.traffic) / (r.d2d * gpus);
        f.basis = human_bytes(s.traffic) + " (" + s.traffic_what + ") / device-to-device copy " +
                  rate_text(r.d2d) + " (read + write counted)" + per;
    }
    return f;
#else
    (void)s;
    (void)ctx;
    (void)gpus;
    f.basis = "none (gp-bench was built without the CUDA runtime)";
    return f;
#endif
}

// ---------------------------------------------------------------------------
// JSON, by hand

std::string json_string(const std::string &s) {
    std::string o = "\"";
    for (unsigned char c : s) {
        if (c == '"' || c == '\\') {
            o += '\\';
            o += char(c);
        } else if (c < 0x20) {
            char t[8];
            std::snprintf(t, sizeof t, "\\u%04x", c);
            o += t;
        } else {
            o += char(c);
        }
    }
    return o + "\"";
}

std::string json_number(double v) {
    char t[64];
    std::snprintf(t, sizeof t, "%.6g", v);
    return t;
}

// ---------------------------------------------------------------------------
// The run

struct FriCapture {
    uint64_t modulus = 0;
    uint64_t seed = 0;
    uint32_t es = 0;
    bool record = false;
    std::vector<std::vector<unsigned char>> caps;
};

// gp_fri_challenge_fn: fixed canonical challenges (from the seed and the
// layer), recording the caps of the warm-up call.
gp_status fri_challenge(void *user, uint32_t layer, const void *cap, uint64_t cap_size, void *beta,
                        uint64_t beta_size) {
    FriCapture *c = static_cast<FriCapture *>(user);
    if (c->record) {
        const auto *p = static_cast<const unsigned char *>(cap);
        c->caps.emplace_back(p, p + cap_size);
    }
    uint64_t state = c->seed ^ (0xF51C4A11E4C3ull * (uint64_t(layer) + 1));
    fill(beta, beta_size / c->es, c->es, c->modulus, state);
    return GP_OK;
}

struct Result {
    std::vector<double> ms;
    std::string root;      // hex, or empty
    std::string checksum;  // "0x...", "skipped", or empty
};

// Downloads `buf` (column-major) and folds it, unless it exceeds the limit.
int buffer_checksum(const gp_buffer *buf, std::string &out) {
    const uint64_t bytes = gp_buffer_size_bytes(buf);
    if (bytes > kChecksumLimit) {
        out = "skipped";
        return 0;
    }
    const uint32_t es = gp_field_element_size(gp_buffer_field(buf));
    std::vector<unsigned char> host(bytes);
    GP_TRY(gp_buffer_to_host, (buf, GP_LAYOUT_COL_MAJOR, host.data(), bytes));
    out = checksum_text(fold_elements(kFoldStart, host.data(), bytes / es, es));
    return 0;
}

int tree_root(const gp_merkle_tree *tree, std::string &out) {
    std::vector<unsigned char> root(gp_merkle_digest_size(tree));
    GP_TRY(gp_merkle_root, (tree, root.data(), root.size()));
    out = hex(root);
    return 0;
}

// One warm-up call (whose output gives the root or checksum), then the
// timed calls. `call` is timed; `capture` runs after the warm-up call and
// `after` after every call, both untimed.
int time_calls(const Args &a, const char *name, const std::function<gp_status()> &call,
               const std::function<int()> &capture, const std::function<void()> &after, Result &res) {
    for (uint32_t i = 0; i <= a.reps; ++i) {
        const double t0 = now_s();
        const gp_status st = call();
        const double t = now_s() - t0;
        if (st != GP_OK) {
            report(name, st);
            return kExitGpError;
        }
        if (i == 0) {
            const int rc = capture();
            if (rc != 0) return rc;
        } else {
            res.ms.push_back(t * 1e3);
        }
        after();
    }
    return 0;
}

int run_op(const Args &a, const Shape &s, gp_context *ctx, Result &res) {
    uint64_t modulus = 0;
    gp_field_info(a.field, &modulus, nullptr, nullptr);
    uint64_t state = a.seed;
    const char *name = op_info(a.op).call;

    gp_merkle_options mo;
    gp_merkle_options_init(&mo);
    mo.kind = a.hash->kind;
    mo.perm = a.hash->perm[field_index(a.field)];
    mo.compress_perm = a.hash->compress[field_index(a.field)];
    mo.cap_height = a.cap_height;

    gp_lde_options lo;
    gp_lde_options_init(&lo);
    lo.blowup = a.blowup;
    lo.output_order = a.order;
    lo.input = a.input;

    const auto nothing = [] {};

    // A trace of n x cols (x ext) in host memory, uploaded into a buffer.
    const auto upload_trace = [&](uint64_t rows, uint32_t ext, gp_buffer **out) -> int {
        const uint64_t count = rows * a.cols * ext;
        std::vector<unsigned char> host(count * s.es);
        fill(host.data(), count, s.es, modulus, state);
        GP_TRY(gp_buffer_from_host, (ctx, a.field, ext, rows, a.cols, GP_LAYOUT_COL_MAJOR, host.data(), out));
        return 0;
    };
    // The trace in memory the context transfers fastest (gp_host_alloc).
    const auto host_trace = [&](void **out) -> int {
        GP_TRY(gp_host_alloc, (ctx, s.trace_bytes, out));
        fill(*out, s.trace_elems, s.es, modulus, state);
        return 0;
    };

    int rc = 0;
    switch (a.op) {
    case Op::Lde: {
        gp_buffer *in = nullptr, *out = nullptr;
        if ((rc = upload_trace(s.n, a.ext, &in)) != 0) return rc;
        GP_TRY(gp_buffer_create, (ctx, a.field, a.ext, s.lde_rows, a.cols, &out));
        rc = time_calls(
            a, name, [&] { return gp_lde_batch(ctx, in, &lo, out); },
            [&] { return buffer_checksum(out, res.checksum); }, nothing, res);
        gp_buffer_destroy(in);
        gp_buffer_destroy(out);
        return rc;
    }
    case Op::Ntt: {
        gp_buffer *buf = nullptr;
        if ((rc = upload_trace(s.n, a.ext, &buf)) != 0) return rc;
        gp_ntt_options no;
        gp_ntt_options_init(&no);
        no.direction = GP_NTT_FORWARD;
        no.input_order = GP_ORDER_NATURAL;
        no.output_order = a.order;
        rc = time_calls(
            a, name, [&] { return gp_ntt_batch(ctx, buf, &no); },
            [&] { return buffer_checksum(buf, res.checksum); }, nothing, res);
        gp_buffer_destroy(buf);
        return rc;
    }
    case Op::Merkle: {
        gp_buffer *mat = nullptr;
        if ((rc = upload_trace(s.n, a.ext, &mat)) != 0) return rc;
        const gp_buffer *mats[1] = {mat};
        gp_merkle_tree *tree = nullptr;
        rc = time_calls(
            a, name, [&] { return gp_merkle_commit(ctx, mats, 1, &mo, &tree); },
            [&] { return tree_root(tree, res.root); },
            [&] {
                gp_merkle_tree_destroy(tree);
                tree = nullptr;
            },
            res);
        gp_buffer_destroy(mat);
        return rc;
    }
    case Op::Commit: {
        void *trace = nullptr;
        if ((rc = host_trace(&trace)) != 0) return rc;
        gp_buffer *out = nullptr;
        GP_TRY(gp_buffer_create, (ctx, a.field, a.ext, s.lde_rows, a.cols, &out));
        gp_commit_matrix m;
        std::memset(&m, 0, sizeof m);
        m.data = trace;
        m.rows = s.n;
        m.cols = a.cols;
        m.ext_degree = a.ext;
        gp_buffer *into[1] = {out};
        gp_commit_options co;
        gp_commit_options_init(&co);
        lo.input_layout = GP_LAYOUT_COL_MAJOR;
        co.lde = &lo;
        co.merkle = &mo;
        co.keep = GP_KEEP_DEVICE;
        co.lde_into = into;
        gp_merkle_tree *tree = nullptr;
        rc = time_calls(
            a, name, [&] { return gp_commit_host(ctx, a.field, &m, 1, &co, nullptr, &tree); },
            [&] { return tree_root(tree, res.root); },
            [&] {
                gp_merkle_tree_destroy(tree);
                tree = nullptr;
            },
            res);
        gp_buffer_destroy(out);
        gp_host_free(ctx, trace);
        return rc;
    }
    case Op::Fri: {
        gp_buffer *cw = nullptr;
        {
            const uint64_t count = s.lde_rows * a.ext;
            std::vector<unsigned char> host(count * s.es);
            fill(host.data(), count, s.es, modulus, state);
            GP_TRY(gp_buffer_from_host, (ctx, a.field, a.ext, s.lde_rows, 1, GP_LAYOUT_COL_MAJOR, host.data(), &cw));
        }
        gp_fri_options fo;
        gp_fri_options_init(&fo);
        fo.arity = a.arity;
        fo.final_size = uint64_t(1) << s.log_final;
        fo.order = a.order;
        fo.merkle = mo;
        FriCapture cap;
        cap.modulus = modulus;
        cap.seed = a.seed;
        cap.es = s.es;
        cap.record = true;  // the warm-up call's caps
        gp_fri *fri = nullptr;
        rc = time_calls(
            a, name,
            [&] { return gp_fri_commit(ctx, cw, &fo, fri_challenge, &cap, &fri); },
            [&]() -> int {
                cap.record = false;
                if (cap.caps.empty()) cap.caps.emplace_back();
                res.root = hex(cap.caps[0]);
                uint64_t h = kFoldStart;
                for (const auto &c : cap.caps) h = fold_bytes(h, c.data(), c.size());
                std::vector<unsigned char> rem(gp_fri_remainder_size(fri));
                GP_TRY(gp_fri_remainder, (fri, rem.data(), rem.size()));
                res.checksum = checksum_text(fold_elements(h, rem.data(), rem.size() / s.es, s.es));
                return 0;
            },
            [&] {
                gp_fri_destroy(fri);
                fri = nullptr;
            },
            res);
        gp_buffer_destroy(cw);
        return rc;
    }
    case Op::Deep: {
        gp_buffer *cols = nullptr, *out = nullptr;
        if ((rc = upload_trace(s.lde_rows, a.ext, &cols)) != 0) return rc;
        const uint32_t E = s.deep_degree;
        GP_TRY(gp_buffer_create, (ctx, a.field, E, s.lde_rows, 1, &out));
        // Points off the base field (coefficient 1 nonzero), so none lies in
        // the evaluation coset; values and coefficients at random.
        std::vector<unsigned char> points(uint64_t(a.points) * E * s.es);
        fill(points.data(), uint64_t(a.points) * E, s.es, modulus, state);
        for (uint32_t j = 0; j < a.points; ++j) {
            unsigned char *c1 = points.data() + (uint64_t(j) * E + 1) * s.es;
            if (s.es == 8) {
                uint64_t v;
                std::memcpy(&v, c1, 8);
                if (v == 0) v = 1;
                std::memcpy(c1, &v, 8);
            } else {
                uint32_t v;
                std::memcpy(&v, c1, 4);
                if (v == 0) v = 1;
                std::memcpy(c1, &v, 4);
            }
        }
        const uint64_t vcount = uint64_t(a.points) * a.cols * E;
        std::vector<unsigned char> values(vcount * s.es), alphas(vcount * s.es);
        fill(values.data(), vcount, s.es, modulus, state);
        fill(alphas.data(), vcount, s.es, modulus, state);
        gp_ood_options oo;
        gp_ood_options_init(&oo);
        oo.order = a.order;
        oo.degree_bound = s.n;
        oo.challenge_degree = E;
        const gp_buffer *in[1] = {cols};
        rc = time_calls(
            a, name,
            [&] {
                return gp_deep_composition(ctx, in, 1, &oo, points.data(), a.points, values.data(), alphas.data(),
                                           out);
            },
            [&] { return buffer_checksum(out, res.checksum); }, nothing, res);
        gp_buffer_destroy(cols);
        gp_buffer_destroy(out);
        return rc;
    }
    case Op::Upload: {
        void *trace = nullptr;
        if ((rc = host_trace(&trace)) != 0) return rc;
        gp_buffer *buf = nullptr;
        rc = time_calls(
            a, name,
            [&] { return gp_buffer_from_host(ctx, a.field, a.ext, s.n, a.cols, GP_LAYOUT_COL_MAJOR, trace, &buf); },
            [&] { return buffer_checksum(buf, res.checksum); },
            [&] {
                gp_buffer_destroy(buf);
                buf = nullptr;
            },
            res);
        gp_host_free(ctx, trace);
        return rc;
    }
    case Op::Download: {
        gp_buffer *buf = nullptr;
        if ((rc = upload_trace(s.n, a.ext, &buf)) != 0) return rc;
        void *dst = nullptr;
        GP_TRY(gp_host_alloc, (ctx, s.trace_bytes, &dst));
        rc = time_calls(
            a, name, [&] { return gp_buffer_to_host(buf, GP_LAYOUT_COL_MAJOR, dst, s.trace_bytes); },
            [&] {
                res.checksum = s.trace_bytes > kChecksumLimit
                                   ? "skipped"
                                   : checksum_text(fold_elements(kFoldStart, dst, s.trace_elems, s.es));
                return 0;
            },
            nothing, res);
        gp_host_free(ctx, dst);
        gp_buffer_destroy(buf);
        return rc;
    }
    }
    return 0;
}

// Refuses (kExitUsage) a shape whose memory the context or the host lacks.
int check_memory(const Args &a, const Shape &s, gp_context *ctx, gp_backend backend) {
    const uint64_t phys = physical_memory();
    const uint64_t host_cap = phys / 2;
    char shape[160];
    std::snprintf(shape, sizeof shape, "--op %s at 2^%u x %llu %s (ext %u, blowup %u)", op_info(a.op).name, a.log_n,
                  (unsigned long long)a.cols, field_name(a.field), a.ext, a.blowup);
    const char *advice = "use a smaller --log-n, --cols, --ext or --blowup";
    if (backend == GP_BACKEND_CPU) {
        const uint64_t need = s.device_need + s.host_need;
        if (phys != 0 && need > host_cap) {
            std::fprintf(stderr,
                         "gp-bench: %s needs about %s of host memory (the CPU backend's buffers and the host "
                         "copies), more than half of this machine's %s; %s\n",
                         shape, human_bytes(need).c_str(), human_bytes(phys).c_str(), advice);
            return kExitUsage;
        }
        return 0;
    }
    if (phys != 0 && s.host_need > host_cap) {
        std::fprintf(stderr, "gp-bench: %s needs about %s of host memory, more than half of this machine's %s; %s\n",
                     shape, human_bytes(s.host_need).c_str(), human_bytes(phys).c_str(), advice);
        return kExitUsage;
    }
    // Device memory: the free bytes of every distinct GPU of the context.
    uint64_t free_bytes = 0;
    std::set<int32_t> seen;
    const uint32_t count = gp_context_device_count(ctx);
    for (uint32_t d = 0; d < count; ++d) {
        gp_device_info info;
        std::memset(&info, 0, sizeof info);
        info.struct_size = sizeof info;
        if (gp_context_device_info(ctx, d, &info) != GP_OK) continue;
        if (backend == GP_BACKEND_CUDA && !seen.insert(info.ordinal).second) continue;
        free_bytes += info.free_bytes;
    }
    if (free_bytes != 0 && s.device_need > free_bytes) {
        std::fprintf(stderr,
                     "gp-bench: %s needs about %s of device memory, but the context's devices have %s free; %s\n",
                     shape, human_bytes(s.device_need).c_str(), human_bytes(free_bytes).c_str(), advice);
        return kExitUsage;
    }
    return 0;
}

// The number of distinct GPUs of a CUDA context (1 otherwise).
uint32_t distinct_gpus(gp_context *ctx, gp_backend backend) {
    if (backend != GP_BACKEND_CUDA) return 1;
    std::set<int32_t> seen;
    const uint32_t count = gp_context_device_count(ctx);
    for (uint32_t d = 0; d < count; ++d) {
        gp_device_info info;
        std::memset(&info, 0, sizeof info);
        info.struct_size = sizeof info;
        if (gp_context_device_info(ctx, d, &info) == GP_OK) seen.insert(info.ordinal);
    }
    return seen.empty() ? 1 : uint32_t(seen.size());
}

int run(int argc, char **argv) {
    Args a;
    const int prc = parse_args(argc, argv, a);
    if (prc == -1) return 0;
    if (prc != 0) return prc;

    Shape s;
    // With --log-n given the shape is known: refuse a bad one before the
    // context exists.
    if (a.log_n_given && compute_shape(a, s) != 0) return kExitUsage;

    gp_context_options co;
    gp_context_options_init(&co);
    co.backend = a.backend;
    co.cpu_threads = a.threads;
    if (!a.devices.empty()) {
        co.devices = a.devices.data();
        co.num_devices = uint32_t(a.devices.size());
    }
    if (!a.server.empty()) co.endpoint = a.server.c_str();
    gp_context *ctx = nullptr;
    GP_TRY(gp_context_create, (&co, &ctx));
    struct Destroy {
        gp_context *c;
        ~Destroy() { gp_context_destroy(c); }
    } destroy{ctx};

    char device[512] = "";
    GP_TRY(gp_context_device_name, (ctx, device, sizeof device));
    const gp_backend backend = gp_context_backend(ctx);
    const uint32_t devices = gp_context_device_count(ctx);

    if (!a.log_n_given) {
        const bool gpu = backend == GP_BACKEND_CUDA ||
                         (backend == GP_BACKEND_REMOTE && std::strstr(device, ": CPU") == nullptr);
        a.log_n = gpu ? kDefaultLogNCuda : kDefaultLogNCpu;
        if (compute_shape(a, s) != 0) return kExitUsage;
    }
    if (const int rc = check_memory(a, s, ctx, backend)) return rc;

    const uint32_t gpus = distinct_gpus(ctx, backend);
    const Floor fl = measure_floor(a, s, ctx, backend, gpus);
    const OpInfo &oi = op_info(a.op);
    const std::string order = a.order == GP_ORDER_BIT_REVERSED ? "bitrev" : "natural";

    if (!a.json) {
        std::printf("gp-bench (gpuprover %s)\n", gp_version());
        std::printf("device:     %s\n", device);
        std::printf("backend:    %s, %u device%s\n", backend_name(backend), devices, devices == 1 ? "" : "s");
        if (const char *why = gp_context_cpu_fallback(ctx)) std::printf("            (CUDA not used: %s)\n", why);
        if (const char *why = gp_context_remote_fallback(ctx))
            std::printf("            (the server not used: %s)\n", why);
        std::printf("op:         %s (%s)\n", oi.name, oi.call);
        std::printf("shape:      2^%u x %llu %s, ext %u", a.log_n, (unsigned long long)a.cols, field_name(a.field),
                    a.ext);
        if (a.op == Op::Lde || a.op == Op::Commit || a.op == Op::Deep)
            std::printf(", blowup %u -> %llu rows, %s", a.blowup, (unsigned long long)s.lde_rows, order.c_str());
        else if (a.op == Op::Ntt)
            std::printf(", output %s", order.c_str());
        std::printf("\n");
        if (a.op == Op::Fri)
            std::printf("fri:        one column of 2^%u elements of degree %u (blowup %u), arity %u, %u layers, "
                        "final size 2^%u, %s\n",
                        a.log_n + s.log_blowup, a.ext, a.blowup, a.arity, s.fri_layers, s.log_final, order.c_str());
        if (a.op == Op::Deep)
            std::printf("deep:       %u point%s of degree %u, degree bound 2^%u\n", a.points, a.points == 1 ? "" : "s",
                        s.deep_degree, a.log_n);
        if (oi.hashes)
            std::printf("hash:       %s: %s, cap height %u\n", a.hash->name, a.hash->label, a.cap_height);
        if (!fl.rates.empty()) std::printf("measured:   %s\n", fl.rates.c_str());
        std::fflush(stdout);
    }

    Result res;
    if (const int rc = run_op(a, s, ctx, res)) return rc;

    std::vector<double> sorted = res.ms;
    std::sort(sorted.begin(), sorted.end());
    const size_t k = sorted.size();
    const double min_ms = sorted.front();
    const double median_ms = k % 2 ? sorted[k / 2] : 0.5 * (sorted[k / 2 - 1] + sorted[k / 2]);
    double mean_ms = 0;
    for (double t : sorted) mean_ms += t;
    mean_ms /= double(k);
    const double median_s = std::max(median_ms, 1e-9) * 1e-3;
    const double gbps = double(s.bytes) / median_s / 1e9;
    const double floor_ms = fl.seconds * 1e3;
    const double x_floor = fl.seconds > 0 ? median_s / fl.seconds : 0;

    if (a.json) {
        std::string j = "{";
        const auto field = [&](const char *key, const std::string &value) {
            if (j.size() > 1) j += ", ";
            j += json_string(key) + ": " + value;
        };
        field("tool", json_string("gp-bench"));
        field("version", json_string(gp_version()));
        field("op", json_string(oi.name));
        field("call", json_string(oi.call));
        field("field", json_string(field_name(a.field)));
        field("log_n", std::to_string(a.log_n));
        field("cols", std::to_string(a.cols));
        field("ext", std::to_string(a.ext));
        field("blowup", std::to_string(a.blowup));
        field("order", json_string(order));
        field("hash", oi.hashes ? json_string(a.hash->name) : "null");
        field("cap_height", oi.hashes ? std::to_string(a.cap_height) : "null");
        if (a.op == Op::Fri) {
            field("arity", std::to_string(a.arity));
            field("fri_layers", std::to_string(s.fri_layers));
        }
        if (a.op == Op::Deep) {
            field("points", std::to_string(a.points));
            field("point_degree", std::to_string(s.deep_degree));
        }
        field("backend", json_string(backend_name(backend)));
        field("device", json_string(device));
        field("devices", std::to_string(devices));
        field("threads", std::to_string(a.threads));
        field("seed", std::to_string(a.seed));
        field("reps", std::to_string(a.reps));
        std::string times = "[";
        for (size_t i = 0; i < res.ms.size(); ++i) times += (i ? ", " : "") + json_number(res.ms[i]);
        field("times_ms", times + "]");
        field("min_ms", json_number(min_ms));
        field("median_ms", json_number(median_ms));
        field("mean_ms", json_number(mean_ms));
        field("bytes", std::to_string(s.bytes));
        field("bytes_counted", json_string(s.bytes_what));
        field("gb_per_s", json_number(gbps));
        field("floor_ms", fl.seconds > 0 ? json_number(floor_ms) : "null");
        field("x_floor", fl.seconds > 0 ? json_number(x_floor) : "null");
        field("fraction_of_floor", fl.seconds > 0 ? json_number(fl.seconds / median_s) : "null");
        field("floor_basis", json_string(fl.basis));
        field("root", res.root.empty() ? "null" : json_string(res.root));
        field("checksum", res.checksum.empty() ? "null" : json_string(res.checksum));
        std::printf("%s}\n", j.c_str());
        return 0;
    }

    std::printf("reps:       %u timed calls after one warm-up\n", a.reps);
    std::printf("times:     ");
    for (double t : res.ms) std::printf(" %s", ms_text(t).c_str());
    std::printf(" ms\n");
    std::printf("min / median / mean: %s / %s / %s ms\n", ms_text(min_ms).c_str(), ms_text(median_ms).c_str(),
                ms_text(mean_ms).c_str());
    std::printf("bytes:      %s (%s)\n", human_bytes(s.bytes).c_str(), s.bytes_what);
    std::printf("GB/s:       %.2f (bytes / median)\n", gbps);
    if (fl.seconds > 0) {
        std::printf("floor:      %s ms = %s\n", ms_text(floor_ms).c_str(), fl.basis.c_str());
        std::printf("x floor:    %.2f (median / floor: 1.00 is at the floor, 2.00 twice as long; floor / median "
                    "%.3f)\n",
                    x_floor, fl.seconds / median_s);
    } else {
        std::printf("floor:      %s\n", fl.basis.c_str());
    }
    if (!res.root.empty()) std::printf("%s 0x%s\n", a.op == Op::Fri ? "cap 0:     " : "root:      ", res.root.c_str());
    if (!res.checksum.empty()) std::printf("checksum:   %s\n", res.checksum.c_str());
    return 0;
}

}  // namespace

int main(int argc, char **argv) { return run(argc, argv); }
