// SPDX-License-Identifier: MIT OR Apache-2.0
// Permutation rate of the width-16 Poseidon2 instances over BabyBear and
// KoalaBear on the current GPU, with the library's own permutation
// (hash/permutations.h, the Tw form the Merkle sponge runs): the ceiling of
// a commitment's hashing (bench_profiles.h, hash_counters: perm_floor_ms,
// x_perm). Each thread permutes its own state kPerms times in a chain, from
// registers: no memory traffic, every permutation's instructions.
#include <cuda_runtime.h>

#include <cstdint>
#include <cstdio>

#include "bench_util.h"
#include "launch_rate.cuh"
#include "hash/permutations.h"

namespace {

constexpr int kPerms = 16;

template <class P>
__global__ void k_perm_chain(typename P::T *out, uint64_t seed) {
    using T = typename P::T;
    using F = typename P::F;
    T s[16];
    seed_lanes<F>(s, seed);
    for (int r = 0; r < kPerms; ++r) P::apply_tw(s);
    T acc = 0;
#pragma unroll
    for (int i = 0; i < 16; ++i) acc ^= s[i];
    if (acc == (T)0x12345) out[0] = acc;  // keeps the work; practically never stores
}

// Permutations per second.
template <class P>
double chain_rate() {
    return launch_rate<typename P::T>(k_perm_chain<P>, (double)kPerms, 32);
}

}  // namespace

namespace gpb {

double poseidon2_perm_rate(gp_permutation perm) {
    namespace pc = gp::poseidon2_constants;
    static double cache[4] = {0, 0, 0, 0};
    int i = -1;
    switch (perm) {
        case GP_PERM_POSEIDON2_BABYBEAR_16: i = 0; break;
        case GP_PERM_POSEIDON2_KOALABEAR_16: i = 1; break;
        case GP_PERM_POSEIDON2_BABYBEAR_16_SP1: i = 2; break;
        case GP_PERM_POSEIDON2_KOALABEAR_16_SP1: i = 3; break;
        default: return 0;
    }
    if (cache[i] > 0) return cache[i];
    switch (i) {
        case 0: cache[i] = chain_rate<gp::perm::Poseidon2Default<gp::BabyBear, 16>>(); break;
        case 1: cache[i] = chain_rate<gp::perm::Poseidon2Default<gp::KoalaBear, 16>>(); break;
        case 2: cache[i] = chain_rate<gp::perm::Poseidon2Sp1<pc::Sp1BabyBearW16>>(); break;
        default: cache[i] = chain_rate<gp::perm::Poseidon2Sp1<pc::Sp1KoalaBearW16>>(); break;
    }
    std::fprintf(stderr, "measured Poseidon2 permutation rate (gp_permutation %d): %.3g per second\n", (int)perm,
                 cache[i]);
    return cache[i];
}

}  // namespace gpb
