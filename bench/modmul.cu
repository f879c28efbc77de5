// SPDX-License-Identifier: MIT OR Apache-2.0
// Field multiplication rate of the GPU, measured with the library's own
// arithmetic (src/math/field.h): the denominator of the arithmetic floors in
// docs/PERF.md. Each thread runs 8 independent dependency chains, enough to
// keep the multiplier pipes busy at full occupancy.
#include <cuda_runtime.h>

#include <algorithm>
#include <cstdint>
#include <cstdio>

#include "bench_util.h"
#include "launch_rate.cuh"
#include "kernels/ntt.cuh"
#include "math/field.h"

namespace {

constexpr int kChains = 8;
constexpr int kSteps = 2048;
constexpr int kGroupSteps = 256;

template <class F>
__global__ void k_modmul(typename F::T *out, uint64_t seed) {
    using T = typename F::T;
    T a[kChains];
    seed_lanes<F>(a, seed);
#pragma unroll 4
    for (int s = 0; s < kSteps; ++s) {
#pragma unroll
        for (int c = 0; c < kChains; ++c) a[c] = F::mul(a[c], a[(c + 1) % kChains]);
    }
    T acc = 0;
#pragma unroll
    for (int c = 0; c < kChains; ++c) acc = F::add(acc, a[c]);
    if (acc == (T)0x12345) out[0] = acc;  // keeps the work; practically never stores
}

// The NTT's unit of work: a DIF butterfly (a + b, (a - b) * w) with a
// prepared twiddle, as the NTT kernels run it (src/math/field.h), on 16
// registers in two pairings per step so that no value settles.
template <class F>
__global__ void k_butterfly(typename F::T *out, uint64_t seed) {
    using T = typename F::T;
    using Tw = typename F::Tw;
    T v[16];
    seed_lanes<F>(v, seed);
    const Tw w0 = F::to_tw((T)(seed * 3 + 5)), w1 = F::to_tw((T)(seed * 7 + 11));
#pragma unroll 2
    for (int s = 0; s < kSteps / 2; ++s) {
#pragma unroll
        for (int c = 0; c < 8; ++c) gp::dif_butterfly<F>(v[c], v[c + 8], (c & 1) ? w1 : w0);
#pragma unroll
        for (int c = 0; c < 8; ++c) gp::dif_butterfly<F>(v[2 * c], v[2 * c + 1], (c & 1) ? w0 : w1);
    }
    T acc = 0;
#pragma unroll
    for (int c = 0; c < 16; ++c) acc = F::add(acc, v[c]);
    if (acc == (T)0x12345) out[0] = acc;
}
constexpr double kButterfliesPerThread = 16.0 * (kSteps / 2);

// A radix-2^RL group as the NTT kernels run it where the inner roots are
// powers of two (kernels/ntt.cuh, Goldilocks): the RL stages with
// power-of-two twiddles (shifts and one reduction, pow2_stages), then the
// 2^RL - 1 general products by beta^rev(j) (scale_by_beta; the twiddles here
// alternate between two registers instead of table loads). The work of RL
// radix-2 stages over 2^RL elements: the arithmetic ceiling of such a
// decomposition.
template <class F, int RL>
__global__ void k_pow2_group(typename F::T *out, uint64_t seed) {
    using T = typename F::T;
    using Tw = typename F::Tw;
    constexpr int R = 1 << RL;
    T v[R];
    seed_lanes<F>(v, seed);
    const Tw w0 = F::to_tw((T)(seed * 3 + 5)), w1 = F::to_tw((T)(seed * 7 + 11));
    for (int s = 0; s < kGroupSteps; ++s) {
        gp::kern::pow2_stages<F, RL, true, false>(v);
#pragma unroll
        for (int j = 1; j < R; ++j) v[j] = F::mul_tw(v[j], (j & 1) ? w1 : w0);
    }
    T acc = 0;
#pragma unroll
    for (int c = 0; c < R; ++c) acc = F::add(acc, v[c]);
    if (acc == (T)0x12345) out[0] = acc;
}

template <class F>
double rate() {
    return launch_rate<typename F::T>(k_modmul<F>, (double)kChains * kSteps);
}
template <class F>
double bfly_rate() {
    return launch_rate<typename F::T>(k_butterfly<F>, kButterfliesPerThread);
}

// Radix-2 butterflies' worth (RL 2^(RL-1) per group) per second.
template <class F, int RL>
double pow2_group_rate() {
    return launch_rate<typename F::T>(k_pow2_group<F, RL>, (double)kGroupSteps * RL * (1 << (RL - 1)));
}

}  // namespace

namespace gpb {

namespace {
// Runs probe(F{}) for the field once per process and reports the result.
template <class Probe>
double cached_rate(gp_field f, double (&cache)[4], const char *what, Probe probe) {
    const int i = (int)f & 3;
    if (cache[i] > 0) return cache[i];
    if (f == GP_FIELD_GOLDILOCKS) cache[i] = probe(gp::Goldilocks{});
    else if (f == GP_FIELD_BABYBEAR) cache[i] = probe(gp::BabyBear{});
    else cache[i] = probe(gp::KoalaBear{});
    std::fprintf(stderr, "measured %s %s: %.3g per second\n",
                 f == GP_FIELD_GOLDILOCKS ? "Goldilocks" : f == GP_FIELD_BABYBEAR ? "BabyBear" : "KoalaBear", what,
                 cache[i]);
    return cache[i];
}
}  // namespace

double modmul_rate(gp_field f) {
    static double r[4] = {0, 0, 0, 0};
    return cached_rate(f, r, "multiplication rate", [](auto F) { return rate<decltype(F)>(); });
}

double butterfly_rate(gp_field f) {
    static double r[4] = {0, 0, 0, 0};
    return cached_rate(f, r, "NTT butterfly rate", [](auto F) { return bfly_rate<decltype(F)>(); });
}

double pow2_butterfly_rate(gp_field f) {
    static double r[4] = {0, 0, 0, 0};
    if (f != GP_FIELD_GOLDILOCKS) return butterfly_rate(f);
    return cached_rate(f, r, "butterfly rate in power-of-two radix-2^k groups (best k of 4, 5, 6)", [](auto) {
        const double k[3] = {pow2_group_rate<gp::Goldilocks, 4>(), pow2_group_rate<gp::Goldilocks, 5>(),
                             pow2_group_rate<gp::Goldilocks, 6>()};
        std::fprintf(stderr, "measured Goldilocks power-of-two radix-16 / 32 / 64 groups: %.3g / %.3g / %.3g "
                     "butterflies per second\n", k[0], k[1], k[2]);
        return std::max({k[0], k[1], k[2]});
    });
}

}  // namespace gpb
