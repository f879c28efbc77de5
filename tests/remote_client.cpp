// SPDX-License-Identifier: MIT OR Apache-2.0
// A client process for the server tests (tests/test_remote.cpp):
//   gp_remote_client load ENDPOINT SEED JOBS [PRIORITY]
//     runs JOBS mixed jobs (LDE from host, Merkle commit of several
//     profiles, openings, NTT, permutations) on a remote context and on an
//     in-process CPU context; exit 0 when every result is equal, 1 on a
//     mismatch, 2 on an error.
//   gp_remote_client hold ENDPOINT
//     commits large trees on a remote context until it is killed; prints
//     "running" once its first job is under way.
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <random>
#include <string>
#include <vector>

#include "gpuprover.h"

namespace {

struct Ctx {
    gp_context *c = nullptr;
    ~Ctx() { gp_context_destroy(c); }
};

int die(const char *what) {
    std::fprintf(stderr, "gp_remote_client: %s: %s\n", what, gp_last_error());
    return 2;
}

#define CHECK(call)                      \
    do {                                 \
        if ((call) != GP_OK) return die(#call); \
    } while (0)

struct Result {
    std::vector<uint8_t> bytes;
};

// One job on `ctx`; appends everything it computed to `out`.
int job(gp_context *ctx, uint64_t seed, std::vector<uint8_t> &out) {
    std::mt19937_64 rng(seed);
    const gp_field fields[3] = {GP_FIELD_GOLDILOCKS, GP_FIELD_BABYBEAR, GP_FIELD_KOALABEAR};
    const gp_field f = fields[rng() % 3];
    uint64_t p = 0;
    CHECK(gp_field_info(f, &p, nullptr, nullptr));
    const uint32_t esz = gp_field_element_size(f);
    const uint32_t log_n = 3 + (uint32_t)(rng() % 7);
    const uint64_t n = 1ull << log_n, cols = 1 + rng() % 9;
    std::vector<uint8_t> host(n * cols * esz);
    for (uint64_t i = 0; i < n * cols; ++i) {
        const uint64_t v = rng() % p;
        std::memcpy(&host[i * esz], &v, esz);
    }
    const int kind = (int)(rng() % 3);
    auto append = [&](const void *d, size_t len) {
        out.insert(out.end(), static_cast<const uint8_t *>(d), static_cast<const uint8_t *>(d) + len);
    };
    if (kind == 0) {  // LDE from host, commit, open
        gp_lde_options o;
        gp_lde_options_init(&o);
        o.blowup = 2u << (rng() % 2);
        o.output_order = GP_ORDER_BIT_REVERSED;
        gp_buffer *lde = nullptr;
        CHECK(gp_buffer_create(ctx, f, 1, n * o.blowup, cols, &lde));
        gp_status st = gp_lde_batch_host(ctx, f, 1, host.data(), n, cols, &o, lde);
        gp_merkle_options m;
        gp_merkle_options_init(&m);
        m.perm = f == GP_FIELD_GOLDILOCKS ? GP_PERM_POSEIDON2_GOLDILOCKS_8
                 : f == GP_FIELD_BABYBEAR ? GP_PERM_POSEIDON2_BABYBEAR_16
                                          : GP_PERM_POSEIDON2_KOALABEAR_16;
        if (rng() % 2) {
            m.kind = GP_MERKLE_KECCAK_PLONKY3;
            m.perm = GP_PERM_KECCAK_F1600;
        }
        gp_merkle_tree *t = nullptr;
        if (st == GP_OK) st = gp_merkle_commit(ctx, (const gp_buffer *const *)&lde, 1, &m, &t);
        if (st == GP_OK) {
            uint8_t root[64];
            const uint64_t ds = gp_merkle_digest_size(t);
            st = gp_merkle_root(t, root, sizeof root);
            append(root, ds);
            uint64_t rb = 0, pb = 0;
            if (st == GP_OK) st = gp_merkle_opening_size(t, &rb, &pb);
            const uint64_t idx[3] = {0, rng() % (n * o.blowup), n * o.blowup - 1};
            std::vector<uint8_t> rows(3 * rb), paths(3 * pb);
            if (st == GP_OK) st = gp_merkle_open(t, idx, 3, rows.data(), rows.size(), paths.data(), paths.size());
            append(rows.data(), rows.size());
            append(paths.data(), paths.size());
        }
        gp_merkle_tree_destroy(t);
        gp_buffer_destroy(lde);
        if (st != GP_OK) return die("lde/commit/open");
    } else if (kind == 1) {  // upload, NTT, download
        gp_buffer *b = nullptr;
        CHECK(gp_buffer_from_host(ctx, f, 1, n, cols, GP_LAYOUT_ROW_MAJOR, host.data(), &b));
        gp_ntt_options o;
        gp_ntt_options_init(&o);
        gp_status st = gp_ntt_batch(ctx, b, &o);
        std::vector<uint8_t> back(host.size());
        if (st == GP_OK) st = gp_buffer_to_host(b, GP_LAYOUT_COL_MAJOR, back.data(), back.size());
        gp_buffer_destroy(b);
        if (st != GP_OK) return die("ntt");
        append(back.data(), back.size());
    } else {  // permutations
        const gp_permutation perm = f == GP_FIELD_GOLDILOCKS ? GP_PERM_RPO256
                                    : f == GP_FIELD_BABYBEAR ? GP_PERM_POSEIDON2_BABYBEAR_24
                                                             : GP_PERM_POSEIDON2_KOALABEAR_16;
        uint32_t width = 0;
        CHECK(gp_permutation_info(perm, &width, nullptr));
        const uint64_t count = n;
        std::vector<uint8_t> states(count * width * esz);
        for (uint64_t i = 0; i < count * width; ++i) {
            const uint64_t v = rng() % p;
            std::memcpy(&states[i * esz], &v, esz);
        }
        CHECK(gp_permute_batch(ctx, perm, states.data(), count));
        append(states.data(), states.size());
    }
    return 0;
}

}  // namespace

int main(int argc, char **argv) {
    if (argc < 3) {
        std::fprintf(stderr, "usage: gp_remote_client load ENDPOINT SEED JOBS [PRIORITY] | hold ENDPOINT\n");
        return 2;
    }
    const std::string mode = argv[1];
    gp_context_options o;
    gp_context_options_init(&o);
    o.backend = GP_BACKEND_REMOTE;
    o.endpoint = argv[2];
    Ctx remote;
    if (mode == "hold") {
        CHECK(gp_context_create(&o, &remote.c));
        gp_buffer *b = nullptr;
        CHECK(gp_buffer_create(remote.c, GP_FIELD_GOLDILOCKS, 1, 1u << 16, 64, &b));
        gp_merkle_options m;
        gp_merkle_options_init(&m);
        m.perm = GP_PERM_POSEIDON2_GOLDILOCKS_16;
        std::printf("running\n");
        std::fflush(stdout);
        for (;;) {
            gp_merkle_tree *t = nullptr;
            CHECK(gp_merkle_commit(remote.c, (const gp_buffer *const *)&b, 1, &m, &t));
            gp_merkle_tree_destroy(t);
        }
    }
    if (mode != "load" || argc < 5) return 2;
    const uint64_t seed = std::strtoull(argv[3], nullptr, 10);
    const int jobs = std::atoi(argv[4]);
    if (argc > 5) o.priority = (gp_priority)std::atoi(argv[5]);
    CHECK(gp_context_create(&o, &remote.c));
    gp_context_options lo;
    gp_context_options_init(&lo);
    lo.backend = GP_BACKEND_CPU;
    lo.cpu_threads = 1;
    Ctx local;
    CHECK(gp_context_create(&lo, &local.c));
    int mismatches = 0;
    for (int j = 0; j < jobs; ++j) {
        std::vector<uint8_t> a, b;
        if (int rc = job(remote.c, seed * 1000 + (uint64_t)j, a)) return rc;
        if (int rc = job(local.c, seed * 1000 + (uint64_t)j, b)) return rc;
        if (a != b) {
            ++mismatches;
            std::fprintf(stderr, "gp_remote_client: job %d of seed %llu differs\n", j, (unsigned long long)seed);
        }
    }
    gp_memory_stats ms;
    std::memset(&ms, 0, sizeof ms);
    ms.struct_size = sizeof ms;
    CHECK(gp_context_memory_stats(remote.c, &ms));
    std::printf("jobs %d mismatches %d buffer_bytes %llu\n", jobs, mismatches, (unsigned long long)ms.buffer_bytes);
    return mismatches ? 1 : 0;
}
