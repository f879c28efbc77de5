// SPDX-License-Identifier: MIT OR Apache-2.0
// Device arithmetic of the internal headers against host references: the
// Goldilocks product for any 64-bit representatives (canonical and lazy
// forms), the S-box power maps, the RPO inverse S-box and the rolled
// lane-group loop. Random states rarely reach the non-canonical
// representatives [p, 2^64) that lazy products produce (about 2^-32 a
// product), so they are tested here directly. Skips without a CUDA device.
#include <gtest/gtest.h>

#include <cuda_runtime.h>

#include <cstdint>
#include <utility>
#include <vector>

#include "hash/rpo.h"
#include "math/field.h"
#include "test_util.h"

namespace {

using gp::Goldilocks;
constexpr uint64_t P = Goldilocks::P;

uint64_t ref_mul(uint64_t a, uint64_t b) { return gpt::mul_mod(a, b, P); }

bool have_device() {
    int n = 0;
    return cudaGetDeviceCount(&n) == cudaSuccess && n > 0;
}

enum Op { kMul, kMulLazy, kPow7Gl, kPow3Kb, kPow7Bb, kInv7, kLaneGroups };

// Each thread handles 4 consecutive inputs (a group for kInv7 / 16 for lanes).
__global__ void k_op(Op op, const uint64_t *a, const uint64_t *b, uint64_t *out, uint32_t n) {
    const uint32_t t = blockIdx.x * blockDim.x + threadIdx.x;
    if (op == kLaneGroups) {
        if ((t + 1) * 16 > n) return;
        uint64_t s[16];
        for (int i = 0; i < 16; ++i) s[i] = a[16 * t + i];
        gp::for_each_lane_group<16>(s, [&](uint64_t *x, int g) {
            for (int i = 0; i < 4; ++i) x[i] = Goldilocks::mul(x[i], b[g + i]);
        });
        for (int i = 0; i < 16; ++i) out[16 * t + i] = s[i];
        return;
    }
    if ((t + 1) * 4 > n) return;
    uint64_t x[4];
    for (int j = 0; j < 4; ++j) x[j] = a[4 * t + j];
    if (op == kInv7) {
        gp::rescue::pow_inv7_4(x);
    } else {
        for (int j = 0; j < 4; ++j) {
            const uint64_t y = b[4 * t + j];
            switch (op) {
                case kMul: x[j] = Goldilocks::mul(x[j], y); break;
                case kMulLazy: x[j] = Goldilocks::mul_lazy(x[j], y); break;
                case kPow7Gl: x[j] = gp::pow_small_tw<Goldilocks, 7>(x[j]); break;
                case kPow3Kb: x[j] = gp::pow_small_tw<gp::KoalaBear, 3>((uint32_t)x[j]); break;
                case kPow7Bb: x[j] = gp::pow_small_tw<gp::BabyBear, 7>((uint32_t)x[j]); break;
                default: break;
            }
        }
    }
    for (int j = 0; j < 4; ++j) out[4 * t + j] = x[j];
}

std::vector<uint64_t> run(Op op, const std::vector<uint64_t> &a, const std::vector<uint64_t> &b) {
    const size_t n = a.size(), bytes = n * sizeof(uint64_t), bb = b.size() * sizeof(uint64_t);
    uint64_t *da = nullptr, *db = nullptr, *dout = nullptr;
    std::vector<uint64_t> out(n);
    EXPECT_EQ(cudaMalloc(&da, bytes), cudaSuccess);
    EXPECT_EQ(cudaMalloc(&db, bb ? bb : 8), cudaSuccess);
    EXPECT_EQ(cudaMalloc(&dout, bytes), cudaSuccess);
    cudaMemcpy(da, a.data(), bytes, cudaMemcpyHostToDevice);
    if (bb) cudaMemcpy(db, b.data(), bb, cudaMemcpyHostToDevice);
    k_op<<<(unsigned)((n / 4 + 127) / 128), 128>>>(op, da, db, dout, (uint32_t)n);
    EXPECT_EQ(cudaDeviceSynchronize(), cudaSuccess);
    cudaMemcpy(out.data(), dout, bytes, cudaMemcpyDeviceToHost);
    cudaFree(da);
    cudaFree(db);
    cudaFree(dout);
    return out;
}

// Edge representatives (canonical and not) plus random 64-bit words.
std::vector<uint64_t> operands(uint64_t seed, size_t n) {
    std::vector<uint64_t> v = {0,           1,      2,          P - 1,      P,         P + 1,
                               ~0ull,       ~0ull - 1, 0xffffffffull, 1ull << 32, 1ull << 63, P - 2,
                               0xffffffff00000000ull, 0x00000000ffffffffull, 3,          ~0ull >> 1};
    gpt::Rng rng(seed);
    while (v.size() < n) v.push_back(rng.next());
    return v;
}

// out[i * 192 + E] = Goldilocks::mul_pow2<E>(x[i]), sign applied.
template <int... E>
__global__ void k_pow2(const uint64_t *x, uint64_t *out, uint32_t n, std::integer_sequence<int, E...>) {
    const uint32_t i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= n) return;
    const uint64_t v = x[i];
    ((out[(uint64_t)i * 192 + E] = Goldilocks::pow2_neg<E>() ? Goldilocks::sub(0, Goldilocks::mul_pow2<E>(v))
                                                              : Goldilocks::mul_pow2<E>(v)),
     ...);
}

class MathCuda : public ::testing::Test {
   protected:
    void SetUp() override {
        if (!have_device()) GTEST_SKIP() << "no CUDA device";
    }
};

TEST_F(MathCuda, GoldilocksProductsOfAnyRepresentatives) {
    std::vector<uint64_t> a = operands(1, 4096), b = operands(2, 4096);
    // Every pair of edge values too.
    for (size_t i = 0; i < 16; ++i)
        for (size_t j = 0; j < 16; ++j) {
            a.push_back(a[i]);
            b.push_back(b[j]);
        }
    const std::vector<uint64_t> m = run(kMul, a, b), lazy = run(kMulLazy, a, b);
    for (size_t i = 0; i < a.size(); ++i) {
        const uint64_t want = ref_mul(a[i], b[i]);
        ASSERT_EQ(m[i], want) << std::hex << a[i] << " * " << b[i];
        ASSERT_EQ(lazy[i] % P, want) << std::hex << a[i] << " * " << b[i];
    }
}

TEST_F(MathCuda, SboxPowersMatchHost) {
    const std::vector<uint64_t> a = operands(3, 2048);
    std::vector<uint64_t> kb(a.size()), bb(a.size());
    for (size_t i = 0; i < a.size(); ++i) {
        kb[i] = a[i] % gp::KoalaBear::P;
        bb[i] = a[i] % gp::BabyBear::P;
    }
    const std::vector<uint64_t> gl7 = run(kPow7Gl, a, a), kb3 = run(kPow3Kb, kb, kb), bb7 = run(kPow7Bb, bb, bb);
    for (size_t i = 0; i < a.size(); ++i) {
        ASSERT_EQ(gl7[i], gpt::pow_mod(a[i], 7, P)) << std::hex << a[i];
        // The host computes the same map through the same header.
        ASSERT_EQ(gl7[i], (gp::pow_small_tw<Goldilocks, 7>(a[i])));
        // On the Tw (Montgomery) form, x^3 of the form is the form of x^3 / R^2.
        ASSERT_EQ(kb3[i], (gp::pow_small_tw<gp::KoalaBear, 3>((uint32_t)kb[i])));
        ASSERT_EQ(bb7[i], (gp::pow_small_tw<gp::BabyBear, 7>((uint32_t)bb[i])));
        ASSERT_EQ(gp::KoalaBear::from_tw((uint32_t)kb3[i]),
                  gpt::pow_mod(gp::KoalaBear::from_tw((uint32_t)kb[i]), 3, gp::KoalaBear::P));
    }
}

TEST_F(MathCuda, RpoInverseSboxOfAnyRepresentatives) {
    const std::vector<uint64_t> a = operands(4, 1024);
    const std::vector<uint64_t> y = run(kInv7, a, {});
    for (size_t i = 0; i < a.size(); ++i) ASSERT_EQ(y[i], gpt::pow_mod(a[i], 10540996611094048183ull, P)) << std::hex << a[i];
}

TEST_F(MathCuda, LaneGroupsVisitEachLaneOnce) {
    const std::vector<uint64_t> a = operands(5, 16 * 64);
    std::vector<uint64_t> b(16);
    for (int i = 0; i < 16; ++i) b[i] = 1000 + 7 * i;
    const std::vector<uint64_t> y = run(kLaneGroups, a, b);
    for (size_t i = 0; i < a.size(); ++i) ASSERT_EQ(y[i], ref_mul(a[i], b[i % 16])) << i;
}

// The power-of-two products of the NTT kernels' inner twiddles on the
// device (reduce96, the 128-bit word reduction and div_pow2 paths) against
// the host product, for every E < 192 and edge and random canonical x.
TEST_F(MathCuda, GoldilocksPowerOfTwoProducts) {
    std::vector<uint64_t> x;
    for (uint64_t v : operands(6, 1024)) x.push_back(v % P);
    uint64_t *dx = nullptr, *dout = nullptr;
    ASSERT_EQ(cudaMalloc(&dx, x.size() * 8), cudaSuccess);
    ASSERT_EQ(cudaMalloc(&dout, x.size() * 192 * 8), cudaSuccess);
    cudaMemcpy(dx, x.data(), x.size() * 8, cudaMemcpyHostToDevice);
    k_pow2<<<(unsigned)((x.size() + 127) / 128), 128>>>(dx, dout, (uint32_t)x.size(),
                                                        std::make_integer_sequence<int, 192>{});
    ASSERT_EQ(cudaDeviceSynchronize(), cudaSuccess);
    std::vector<uint64_t> out(x.size() * 192);
    cudaMemcpy(out.data(), dout, out.size() * 8, cudaMemcpyDeviceToHost);
    cudaFree(dx);
    cudaFree(dout);
    for (size_t i = 0; i < x.size(); ++i)
        for (int e = 0; e < 192; ++e)
            ASSERT_EQ(out[i * 192 + e], ref_mul(x[i], gpt::pow_mod(2, (uint64_t)e, P))) << "E = " << e << ", x = " << x[i];
}

}  // namespace
