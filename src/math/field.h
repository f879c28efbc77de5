// SPDX-License-Identifier: MIT OR Apache-2.0
// Prime fields used by STARK provers, written once for host and device.
//
// Every field type F exposes the same static interface:
//   T                      storage type (uint64_t or uint32_t), canonical form
//   P, GENERATOR, TWO_ADICITY, NAME
//   add, sub, neg, mul     canonical in, canonical out
//   Tw                     a "prepared multiplier": to_tw(w) once, then
//   mul_tw(x, tw) == mul(x, w), cheaper when one operand is a constant
//   (twiddles, coset powers). For Goldilocks Tw is the value itself; for the
//   31-bit fields it is w in Montgomery form, so mul_tw is one Montgomery
//   reduction and data never leaves canonical form.
#pragma once

#include <cstdint>

#if defined(__CUDACC__)
#define GP_HD __host__ __device__ __forceinline__
#else
#define GP_HD inline
#endif

// Unrolls a loop in device code; host builds (references and tests) keep it
// rolled, where code size and compile time matter more than speed.
#if defined(__CUDA_ARCH__)
#define GP_UNROLL _Pragma("unroll")
#else
#define GP_UNROLL
#endif

// Keeps a loop over hash rounds rolled in device code. An expanded
// permutation is thousands of instructions; kernels that run one per thread
// then stall on instruction fetch (docs/PERF.md, "Instruction cache").
#if defined(__CUDA_ARCH__)
#define GP_ROLLED _Pragma("unroll 1")
#else
#define GP_ROLLED
#endif

// A constant table has a host copy and, under nvcc, a __constant__ (or
// __device__) copy: GP_TABLE(host_expr, device_expr) reads the one that the
// current compilation pass can see.
#if defined(__CUDA_ARCH__)
#define GP_TABLE(host, device) (device)
#else
#define GP_TABLE(host, device) (host)
#endif

namespace gp {

#if defined(__CUDACC__)
// 2^32 - 1 (Goldilocks' EPS) as data: a multiply-add by it stays one
// IMAD.WIDE (the multiply pipe). Written as an immediate, ptxas strength-
// reduces the product to a shift and subtractions on the integer ALU pipe,
// which bounds the Goldilocks hash kernels.
static __constant__ const uint32_t kGoldilocksEpsData = 0xffffffffu;
#endif

struct Goldilocks {
    using T = uint64_t;
    using Tw = uint64_t;
    static constexpr uint64_t P = 0xffffffff00000001ull;
    static constexpr uint64_t EPS = 0xffffffffull;  // 2^64 mod p
    static constexpr uint64_t GENERATOR = 7;
    static constexpr uint32_t TWO_ADICITY = 32;
    static constexpr const char *NAME = "goldilocks";

    // On the device, add/sub/reduce are written as 32-bit carry chains: the
    // compiler's lowering of 64-bit compares and selects costs about twice
    // as many instructions. Both paths compute the same canonical result.
    GP_HD static T add(T a, T b) {
#if defined(__CUDA_ARCH__)
        // a + b = a - (p - b); when that borrows, the true value is t + p,
        // i.e. t - EPS modulo 2^64.
        uint32_t t0, t1;
        asm("{\n\t.reg .u32 n0, n1, m;\n\t"
            "sub.cc.u32 n0, 1, %4;\n\t"
            "subc.u32 n1, 0xffffffff, %5;\n\t"
            "sub.cc.u32 %0, %2, n0;\n\t"
            "subc.cc.u32 %1, %3, n1;\n\t"
            "subc.u32 m, 0, 0;\n\t"
            "sub.cc.u32 %0, %0, m;\n\t"
            "subc.u32 %1, %1, 0;\n\t}"
            : "=&r"(t0), "=&r"(t1)
            : "r"((uint32_t)a), "r"((uint32_t)(a >> 32)), "r"((uint32_t)b), "r"((uint32_t)(b >> 32)));
        return ((uint64_t)t1 << 32) | t0;
#else
        // Branch-free (random field data defeats branch prediction):
        // a + b = a - (p - b), and a borrow means adding p = taking EPS.
        uint64_t nb = P - b;
        uint64_t t = a - nb;
        return t - (((uint64_t)0 - (uint64_t)(a < nb)) & EPS);
#endif
    }
    GP_HD static T sub(T a, T b) {
#if defined(__CUDA_ARCH__)
        uint32_t t0, t1;
        asm("{\n\t.reg .u32 m;\n\t"
            "sub.cc.u32 %0, %2, %4;\n\t"
            "subc.cc.u32 %1, %3, %5;\n\t"
            "subc.u32 m, 0, 0;\n\t"
            "sub.cc.u32 %0, %0, m;\n\t"
            "subc.u32 %1, %1, 0;\n\t}"
            : "=&r"(t0), "=&r"(t1)
            : "r"((uint32_t)a), "r"((uint32_t)(a >> 32)), "r"((uint32_t)b), "r"((uint32_t)(b >> 32)));
        return ((uint64_t)t1 << 32) | t0;
#else
        // A borrow wrapped by 2^64; take back 2^64 - p = EPS.
        return (a - b) - (((uint64_t)0 - (uint64_t)(a < b)) & EPS);
#endif
    }
    GP_HD static T neg(T a) { return a == 0 ? 0 : P - a; }

    // Reduces lo + hi * 2^64 to canonical form, using 2^64 = 2^32 - 1 and
    // 2^96 = -1 (mod p).
    GP_HD static T reduce128(uint64_t lo, uint64_t hi) {
        uint64_t hi_hi = hi >> 32;
        uint64_t hi_lo = hi & EPS;
        uint64_t t0 = lo - hi_hi;
        t0 -= ((uint64_t)0 - (uint64_t)(lo < hi_hi)) & EPS;  // borrow: 2^64 == EPS
        uint64_t t1 = (hi_lo << 32) - hi_lo;                   // hi_lo * EPS
        uint64_t t2 = t0 + t1;
        t2 += ((uint64_t)0 - (uint64_t)(t2 < t1)) & EPS;       // carry: cannot carry again
        return t2 >= P ? t2 - P : t2;
    }
    // Canonical form of lo + hi * 2^64 for hi < 2^32 (a 96-bit sum of
    // canonical values): 2^64 = 2^32 - 1 (mod p), so this is t = lo + hi EPS
    // folded once more. If that addition carries, the value is t + EPS with
    // t < 2^64 - 2^33, already below p; if not, it is t, less p when t >= p.
    // Both cases take d = t + EPS (mod 2^64): when t + EPS carries, t >= p
    // and d = t - p. So the result is d if either addition carried, else t.
    GP_HD static T reduce96(uint64_t lo, uint32_t hi) {
#if defined(__CUDA_ARCH__)
        uint32_t t0, t1, c, d0, d1;
        asm("mad.lo.cc.u32 %0, %7, %8, %5;\n\t"  // t = lo + hi EPS (multiply pipe)
            "madc.hi.cc.u32 %1, %7, %8, %6;\n\t"
            "addc.u32 %2, 0, 0;\n\t"             // c = carry
            "add.cc.u32 %3, %0, 0xffffffff;\n\t" // d = t + EPS
            "addc.cc.u32 %4, %1, 0;\n\t"
            "addc.u32 %2, %2, 0;"                 // c += carry
            : "=&r"(t0), "=&r"(t1), "=&r"(c), "=&r"(d0), "=&r"(d1)
            : "r"((uint32_t)lo), "r"((uint32_t)(lo >> 32)), "r"(hi), "r"(kGoldilocksEpsData));
        return c ? (((uint64_t)d1 << 32) | d0) : (((uint64_t)t1 << 32) | t0);
#else
        const uint64_t u = ((uint64_t)hi << 32) - hi;
        const uint64_t t = lo + u;
        const uint64_t d = t + EPS;
        return (t < u || d < t) ? d : t;
#endif
    }
    GP_HD static T mul(T a, T b) {
#if defined(__CUDA_ARCH__)
        return mul_impl<true>(a, b);
#else
        unsigned __int128 x = (unsigned __int128)a * b;
        return reduce128((uint64_t)x, (uint64_t)(x >> 64));
#endif
    }
    // a * b for any 64-bit representatives a, b, as a 64-bit representative
    // (possibly >= p) on the device: mul without its final conditional
    // subtraction of p, five instructions fewer. Chains of products
    // (S-boxes) keep only their last product canonical. The host returns
    // mul(a, b), which is one such representative.
    GP_HD static T mul_lazy(T a, T b) {
#if defined(__CUDA_ARCH__)
        return mul_impl<false>(a, b);
#else
        return mul(a, b);
#endif
    }
#if defined(__CUDA_ARCH__)
    template <bool kCanonical>
    __device__ static T mul_impl(T a, T b) {
        // 128-bit product from 32-bit multiply-add chains with carries (ten
        // IMADs), cheaper than the generic 64-bit mul.lo + mul.hi lowering.
        uint32_t a0 = (uint32_t)a, a1 = (uint32_t)(a >> 32);
        uint32_t b0 = (uint32_t)b, b1 = (uint32_t)(b >> 32);
        uint32_t r0, r1, r2, r3;
        asm("mul.lo.u32 %0, %4, %6;\n\t"
            "mul.hi.u32 %1, %4, %6;\n\t"
            "mul.lo.u32 %2, %5, %7;\n\t"
            "mul.hi.u32 %3, %5, %7;\n\t"
            "mad.lo.cc.u32 %1, %4, %7, %1;\n\t"
            "madc.hi.cc.u32 %2, %4, %7, %2;\n\t"
            "addc.u32 %3, %3, 0;\n\t"
            "mad.lo.cc.u32 %1, %5, %6, %1;\n\t"
            "madc.hi.cc.u32 %2, %5, %6, %2;\n\t"
            "addc.u32 %3, %3, 0;"
            : "=r"(r0), "=r"(r1), "=r"(r2), "=r"(r3)
            : "r"(a0), "r"(a1), "r"(b0), "r"(b1));
        return reduce128_words<kCanonical>(r0, r1, r2, r3);
    }
    // lo + hi 2^64 with lo = (r1:r0), hi = (r3:r2), any 32-bit words; a
    // 64-bit representative, canonical when kCanonical.
    template <bool kCanonical>
    __device__ static T reduce128_words(uint32_t r0, uint32_t r1, uint32_t r2, uint32_t r3) {
        // x = r0 + r1 2^32 + r2 2^64 + r3 2^96 == (r1:r0) + r2 EPS - r3.
        // t = (r1:r0) + r2 EPS - r3 + c 2^64 with c in {-1, 0, 1}; then
        // t += c EPS (c 2^64 == c EPS), which lands in [0, 2^64): c = 1
        // leaves t < (2^32 - 1)^2, c = -1 leaves t >= 2^64 - 2^32.
        uint32_t t0, t1, c;
        asm("mad.lo.cc.u32 %0, %5, %7, %3;\n\t"  // t = (r1:r0) + r2 EPS
            "madc.hi.cc.u32 %1, %5, %7, %4;\n\t"
            "addc.u32 %2, 0, 0;\n\t"
            "sub.cc.u32 %0, %0, %6;\n\t"         // t -= r3
            "subc.cc.u32 %1, %1, 0;\n\t"
            "subc.u32 %2, %2, 0;"
            : "=&r"(t0), "=&r"(t1), "=&r"(c)
            : "r"(r0), "r"(r1), "r"(r2), "r"(r3), "r"(kGoldilocksEpsData));
        // c EPS as a 64-bit two's-complement word: low -c, high the sign of c.
        asm("add.cc.u32 %0, %0, %2;\n\t"
            "addc.u32 %1, %1, %3;"
            : "+r"(t0), "+r"(t1)
            : "r"(0u - c), "r"((uint32_t)((int32_t)c >> 31)));
        if constexpr (!kCanonical) return ((uint64_t)t1 << 32) | t0;
        uint32_t d0, d1, m;
        asm("add.cc.u32 %0, %3, 0xffffffff;\n\t"  // d = t - p (mod 2^64)
            "addc.cc.u32 %1, %4, 0;\n\t"
            "addc.u32 %2, 0, 0;"                 // carry <=> t >= p
            : "=r"(d0), "=r"(d1), "=r"(m)
            : "r"(t0), "r"(t1));
        return m ? (((uint64_t)d1 << 32) | d0) : (((uint64_t)t1 << 32) | t0);
    }
#endif
    // x / 2^K for 1 <= K <= 32, exact and canonical, without a multiply.
    // A Montgomery reduction by 2^K: m = -x mod 2^K makes x + m p divisible
    // by 2^K (p == 1 mod 2^32), and x + m p < 2^K p keeps the quotient below
    // p. Split as (x + m) / 2^K = ceil(x / 2^K) plus
    // m (p - 1) / 2^K = v (2^32 - 1) with v = m 2^(32-K) < 2^32.
    // x + (2^K - 1) cannot wrap: x < p = 2^64 - 2^32 + 1.
    template <int K>
    GP_HD static T div_pow2(T x) {
        static_assert(K >= 1 && K <= 32, "div_pow2: 1 <= K <= 32");
        constexpr uint64_t mask = ((uint64_t)1 << K) - 1;
        const uint64_t v = (((uint64_t)0 - x) & mask) << (32 - K);
        return ((x + mask) >> K) + ((v << 32) - v);
    }
    // Multiplication by a power of two, 2^E for 0 <= E < 192 (2 has order
    // 192: 2^96 = -1), as shifts and one reduction instead of a product.
    // Every 2^k-th root of unity for k <= 6 is such a power (kRootLog2), so
    // the inner twiddles of radix-2^k NTT steps are. mul_pow2<E>(x) returns
    // y with x 2^E = (pow2_neg<E>() ? -y : y), canonical for canonical x; the
    // sign is left to the caller (a butterfly absorbs it by swapping its sum
    // and difference). 2^K for K in (64, 96) is -2^-(96-K): a division.
    template <int E>
    GP_HD static constexpr bool pow2_neg() {
        return ((E % 192) >= 96) != ((E % 96) > 64);
    }
    template <int E>
    GP_HD static T mul_pow2(T x) {
        constexpr int K = E % 96;
        if constexpr (K == 0) {
            return x;
        } else if constexpr (K > 64) {
            return div_pow2<96 - K>(x);
        } else {
            const uint64_t lo = K == 64 ? 0 : x << (K % 64);
            const uint64_t hi = x >> (64 - K);
#if defined(__CUDA_ARCH__)
            if constexpr (K <= 32)
                return reduce96(lo, (uint32_t)hi);
            else
                return reduce128_words<true>((uint32_t)lo, (uint32_t)(lo >> 32), (uint32_t)hi,
                                             (uint32_t)(hi >> 32));
#else
            return reduce128(lo, hi);
#endif
        }
    }
    // log2 of the 2^m-th root of unity of the twiddle tables (Plonky3's
    // two_adic_generator(m)), m = 0..6, and of its inverse: w_4 = 2^48,
    // w_8 = 2^120, ... (tests/test_ntt.cpp checks them against
    // two_adic_generator).
    GP_HD static constexpr int root_log2(int m, bool inverse) {
        constexpr int kFwd[7] = {0, 96, 48, 120, 156, 78, 39};
        return inverse ? (192 - kFwd[m]) % 192 : kFwd[m];
    }
    // The NTT kernels may run radix-2^k steps with power-of-two inner
    // twiddles (kernels/ntt.cuh).
    static constexpr bool kPow2Roots = true;
    GP_HD static Tw to_tw(T w) { return w; }
    GP_HD static T from_tw(Tw w) { return w; }
    GP_HD static T mul_tw(T a, Tw w) { return mul(a, w); }
    GP_HD static Tw tw_mul(Tw a, Tw b) { return mul(a, b); }
    GP_HD static Tw tw_mul_lazy(Tw a, Tw b) { return mul_lazy(a, b); }
};

// 31-bit prime with Montgomery multiplication (R = 2^32). Values are kept
// canonical; only prepared multipliers (Tw) are in Montgomery form.
template <uint32_t P_, uint32_t GEN_, uint32_t ADICITY_>
struct Mont31 {
    using T = uint32_t;
    using Tw = uint32_t;
    static constexpr uint32_t P = P_;
    static constexpr uint64_t GENERATOR = GEN_;
    static constexpr uint32_t TWO_ADICITY = ADICITY_;

    // -P^{-1} mod 2^32 by Newton iteration.
    static constexpr uint32_t pinv() {
        uint32_t x = 1;
        for (int i = 0; i < 5; ++i) x *= 2u - P_ * x;
        return 0u - x;
    }
    static constexpr uint32_t NEG_PINV = pinv();
    static constexpr uint32_t R2 = (uint32_t)(((unsigned __int128)1 << 64) % P_);

    // min(s, s - P) and min(d, d + P) as unsigned words: the wrapped
    // candidate is the larger one, so the minimum is the canonical value
    // (one VIADDMNMX on sm_90; the compare-and-select form measured 1.3x
    // slower in add/sub-only butterflies, bench/modmul.cu).
    GP_HD static T umn(T a, T b) { return a < b ? a : b; }
    GP_HD static T add(T a, T b) {
        T s = a + b;
        return umn(s, s - P);
    }
    GP_HD static T sub(T a, T b) {
        T d = a - b;
        return umn(d, d + P);
    }
    GP_HD static T neg(T a) { return a == 0 ? 0 : P - a; }
    static constexpr uint32_t PINV_POS = 0u - NEG_PINV;
    // x < P * 2^32  ->  x * 2^-32 mod P, canonical. m = lo(x) P^-1 makes
    // m P agree with x in the low word, so (x - m P) / 2^32 = hi(x) - hi(m P),
    // in (-P, P): two 32-bit high products instead of a 64-bit
    // multiply-accumulate, and a minimum for the correction. On an H200,
    // with add and sub as minima too, a register-only butterfly test went
    // from 1.78e12 to 2.04e12/s (the 64-bit form with minimum corrections:
    // 2.09e12) and the BabyBear LDE 2^22 x 128 from 22.8 to 20.6 ms
    // (docs/PERF.md version 23).
    GP_HD static T mont_reduce(uint64_t x) {
        uint32_t lo = (uint32_t)x, hi = (uint32_t)(x >> 32);
        uint32_t m = lo * PINV_POS;
        uint32_t q = (uint32_t)(((uint64_t)m * P) >> 32);
        uint32_t t = hi - q;
        return umn(t, t + P);
    }
    // Signed Montgomery reduction: |x| < P 2^31 -> x 2^-32 mod P as a value
    // in (-P, P). m = lo(x) P^-1 read as a signed word makes m P agree with
    // x in the low word, so (x - m P) / 2^32 = hi(x) - hi(m P) exactly, and
    // |m P| <= 2^31 P keeps it in range. No correction: products of such
    // values (|a b| < P^2) reduce again directly, so a chain of products
    // (the Poseidon2 S-box) corrects once at its end (from_signed).
    GP_HD static int32_t mont_reduce_signed(int64_t x) {
        const int32_t m = (int32_t)((uint32_t)x * PINV_POS);
#if defined(__CUDA_ARCH__)
        const int32_t q = __mulhi(m, (int32_t)P);
#else
        const int32_t q = (int32_t)(((int64_t)m * (int64_t)P) >> 32);
#endif
        return (int32_t)(x >> 32) - q;
    }
    // (-P, P) -> canonical: the unsigned minimum of t and t + P.
    GP_HD static T from_signed(int32_t t) { return umn((T)t, (T)t + P); }
    // x / 2^K for 1 <= K <= 32, exact and canonical: a Montgomery reduction
    // by 2^K instead of 2^32. m = -x P^-1 mod 2^K makes x + m P divisible by
    // 2^K, and x + m P < 2^K P keeps the quotient below P.
    template <int K>
    GP_HD static T div_pow2(T x) {
        static_assert(K >= 1 && K <= 32, "div_pow2: 1 <= K <= 32");
        constexpr uint32_t mask = (uint32_t)(((uint64_t)1 << K) - 1);
        if constexpr (((P - 1) & mask) == 0) {
            // P == 1 mod 2^K (so K <= 30): m = -x mod 2^K, and (x + m P) / 2^K
            // splits into (x + m) / 2^K = ceil(x / 2^K) plus m (P - 1) / 2^K,
            // all in 32 bits (one 32-bit multiply, no wide product).
            const uint32_t m = (0u - x) & mask;
            return ((x + mask) >> K) + m * ((P - 1) >> K);
        } else {
            const uint32_t m = (x * NEG_PINV) & mask;
            return (uint32_t)(((uint64_t)m * P + x) >> K);
        }
    }
    GP_HD static Tw to_tw(T w) { return mont_reduce((uint64_t)w * R2); }
    GP_HD static T from_tw(Tw w) { return mont_reduce(w); }
    GP_HD static T mul_tw(T a, Tw w) { return mont_reduce((uint64_t)a * w); }
    GP_HD static T mul(T a, T b) { return mul_tw(a, to_tw(b)); }
    // Product of two prepared multipliers, itself prepared: aR * bR / R.
    GP_HD static Tw tw_mul(Tw a, Tw b) { return mont_reduce((uint64_t)a * b); }
    // Montgomery products are canonical already: the lazy form is the same.
    GP_HD static Tw tw_mul_lazy(Tw a, Tw b) { return tw_mul(a, b); }
    static constexpr bool kPow2Roots = false;
};

struct BabyBear : Mont31<0x78000001u, 31u, 27u> {
    static constexpr const char *NAME = "babybear";
};
struct KoalaBear : Mont31<0x7f000001u, 3u, 24u> {
    static constexpr const char *NAME = "koalabear";
};

// ---- host+device helpers on any field ----

template <class F>
GP_HD typename F::T fpow(typename F::T b, uint64_t e) {
    typename F::T r = 1;
    while (e) {
        if (e & 1) r = F::mul(r, b);
        b = F::mul(b, b);
        e >>= 1;
    }
    return r;
}

template <class F>
GP_HD typename F::T finv(typename F::T a) {
    return fpow<F>(a, (uint64_t)F::P - 2);
}

// Primitive 2^log_n-th root of unity: GENERATOR^((p-1)/2^TWO_ADICITY) squared
// (TWO_ADICITY - log_n) times -- Plonky3's two_adic_generator.
template <class F>
inline typename F::T two_adic_generator(uint32_t log_n) {
    typename F::T w = fpow<F>((typename F::T)F::GENERATOR,
                              ((uint64_t)F::P - 1) >> F::TWO_ADICITY);
    for (uint32_t i = log_n; i < F::TWO_ADICITY; ++i) w = F::mul(w, w);
    return w;
}

GP_HD uint64_t bit_reverse(uint64_t x, uint32_t bits) {
#if defined(__CUDA_ARCH__)
    return bits == 0 ? 0 : (__brevll(x) >> (64 - bits));
#else
    if (bits == 0) return 0;
    x = ((x >> 1) & 0x5555555555555555ull) | ((x & 0x5555555555555555ull) << 1);
    x = ((x >> 2) & 0x3333333333333333ull) | ((x & 0x3333333333333333ull) << 2);
    x = ((x >> 4) & 0x0f0f0f0f0f0f0f0full) | ((x & 0x0f0f0f0f0f0f0f0full) << 4);
    x = ((x >> 8) & 0x00ff00ff00ff00ffull) | ((x & 0x00ff00ff00ff00ffull) << 8);
    x = ((x >> 16) & 0x0000ffff0000ffffull) | ((x & 0x0000ffff0000ffffull) << 16);
    x = (x >> 32) | (x << 32);
    return x >> (64 - bits);
#endif
}

// Butterflies. Twiddle for the pair (i, i + h) at the stage of half-size h is
// w_{2h}^(i mod h), stored at tw[h + (i mod h)] (see TwiddleTable).
template <class F>
GP_HD void dit_butterfly(typename F::T &a, typename F::T &b, typename F::Tw w) {
    typename F::T v = F::mul_tw(b, w);
    b = F::sub(a, v);
    a = F::add(a, v);
}
// Either butterfly with twiddle 1: (a + b, a - b).
template <class F>
GP_HD void unit_butterfly(typename F::T &a, typename F::T &b) {
    typename F::T d = F::sub(a, b);
    a = F::add(a, b);
    b = d;
}
template <class F>
GP_HD void dif_butterfly(typename F::T &a, typename F::T &b, typename F::Tw w) {
    typename F::T d = F::sub(a, b);
    a = F::add(a, b);
    b = F::mul_tw(d, w);
}

// x^3 or x^7 on the Tw form (F::tw_mul products): the power maps of the hash
// S-boxes. Only the last product is reduced to canonical form
// (F::tw_mul_lazy before it); the input may be any representative.
template <class F, int D>
GP_HD typename F::Tw pow_small_tw(typename F::Tw x) {
    static_assert(D == 3 || D == 7, "S-box degree 3 or 7");
    using Tw = typename F::Tw;
    const Tw x2 = F::tw_mul_lazy(x, x);
    if constexpr (D == 3) {
        return F::tw_mul(x2, x);
    } else {
        const Tw x3 = F::tw_mul_lazy(x2, x);
        const Tw x4 = F::tw_mul_lazy(x2, x2);
        return F::tw_mul(x3, x4);
    }
}

// Runs fn(lanes, g) on each group of four lanes of s[WIDTH] (WIDTH a
// multiple of 4): lanes points at the group's four values, g is the index of
// its first lane; fn updates them in place. Device code keeps the loop over
// groups rolled and rotates the state by four lanes after each group (the
// indices into s stay compile-time constants, so s stays in registers): a
// hash round whose per-lane work is long (Goldilocks S-boxes) then fits the
// instruction cache, for one register move per lane and group.
template <int WIDTH, class T, class Fn>
GP_HD void for_each_lane_group(T *s, Fn &&fn) {
    static_assert(WIDTH % 4 == 0, "lanes come in groups of four");
#if defined(__CUDA_ARCH__)
#pragma unroll 1
    for (int g = 0; g < WIDTH; g += 4) {
        fn(s, g);
        T t[4] = {s[0], s[1], s[2], s[3]};
#pragma unroll
        for (int i = 0; i < WIDTH - 4; ++i) s[i] = s[i + 4];
#pragma unroll
        for (int i = 0; i < 4; ++i) s[WIDTH - 4 + i] = t[i];
    }
#else
    for (int g = 0; g < WIDTH; g += 4) fn(s + g, g);
#endif
}

// Calls fn.template operator()<F>() with the field type for a runtime id.
enum class FieldId : int { Goldilocks = 1, BabyBear = 2, KoalaBear = 3 };

template <class Fn>
inline auto dispatch_field(FieldId id, Fn &&fn) {
    switch (id) {
        case FieldId::BabyBear: return fn(BabyBear{});
        case FieldId::KoalaBear: return fn(KoalaBear{});
        case FieldId::Goldilocks:
        default: return fn(Goldilocks{});
    }
}

}  // namespace gp
