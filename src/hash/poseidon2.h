// SPDX-License-Identifier: MIT OR Apache-2.0
// Poseidon2 permutation over Goldilocks, BabyBear and KoalaBear, written once
// for host and device (every function is GP_HD; no containers, exceptions or
// allocation).
//
// Round structure (Plonky3 and HorizenLabs agree; R_F = 8):
//   state = M_E(state)
//   4x  state = M_E(sbox(state + rc))                    external_initial[r]
//   R_P state[0] = sbox(state[0] + c); state = M_I(state) internal[r]
//   4x  state = M_E(sbox(state + rc))                    external_terminal[r]
// M_E applies a 4x4 matrix (Poseidon2Mat4) to each 4-element block, then adds
// to every element the sum of the elements of its residue class mod 4.
// M_I(s)[i] = V[i] * s[i] + sum(s), V = internal diagonal.
// sbox: x^7 (Goldilocks, BabyBear) or x^3 (KoalaBear).
//
// API (F = Goldilocks / BabyBear / KoalaBear, T = F::T canonical):
//   Poseidon2Params<F, WIDTH, M4>   constants of one instance (aggregate, by
//       value: ~0.6-1.3 KB; fine as a kernel argument or in __constant__).
//   poseidon2_permute(params, T *state)        in place, state[WIDTH]
//   poseidon2_default_params<F, WIDTH>()       Plonky3 default instance
//   poseidon2_params<poseidon2_constants::X>() any generated instance
//       (both return a const reference to a __constant__ object on the
//        device, to the same constexpr object on the host)
//   poseidon2_permute_instance<poseidon2_constants::X>(T *state)
//       generated instance, internal diagonal folded into the code (below)
//   poseidon2_permute_default<F, WIDTH>(T *state)   the same, Plonky3 default
//   Poseidon2Params<...>::from_canonical(...)  instance from run-time data
//   poseidon2_rounds(params, partial, T *state) / poseidon2_rounds_tw
//       the permutation with its partial rounds from a policy object
//       (Poseidon2DiagRounds<diagonal policy>, or an instance's own, as
//       SP1's Sp1PartialRounds in hash/poseidon2_sp1.h)
// plus the building blocks (poseidon2_sbox, poseidon2_mat4,
// poseidon2_external_linear, poseidon2_internal_linear, the two round kinds,
// which work on the Tw form below) for kernels that want to schedule rounds
// themselves.
//
// Working form. The permutation converts its input once to F::Tw form
// (F::to_tw: Montgomery form x 2^32 mod p for the 31-bit fields, the value
// itself for Goldilocks), runs every round on that form and converts back once
// at the end (F::from_tw). For the 31-bit fields a product of two state
// values is then one Montgomery reduction (F::tw_mul) instead of two
// (F::mul_tw of a value and a freshly prepared one): x^7 costs 4 reductions
// instead of 6, x^3 costs 2 instead of 3, against 2 * WIDTH for the two
// conversions. Everything else in a round is linear, so it is the same code on
// either form: additions, subtractions, the cheap diagonal operations (small
// multiples, negation, F::div_pow2), and a general diagonal product
// F::mul_tw(x, V in Tw form), which maps x 2^32 to V x 2^32. For Goldilocks
// the conversions are the identity and tw_mul is F::mul: its code is unchanged.
//
// Data layout inside Poseidon2Params: every constant is stored in Tw form
// (the *_tw arrays), round constants because they are added to the working
// state, the internal diagonal because each diagonal product is one
// F::mul_tw.
//
// Internal diagonal. The partial rounds are most of the permutation, and
// M_I costs one product V[i] * s[i] per lane. The Plonky3 defaults choose V
// from +-1, +-2, +-3, +-4 and +-1/2^k, so those products need no multiply:
// small multiples are additions, 1/2^k is F::div_pow2<k>, a negative V turns
// the final addition of the sum into a subtraction. M_I takes its diagonal as
// a policy object with term<I>(x, sum) = V[I] * x + sum:
//   Poseidon2RuntimeDiag<F>   V read at run time (prepared), general products
//   Poseidon2StaticDiag<C>    V of generated instance C, each lane's
//       operation chosen at compile time (poseidon2_diag_op); a V outside
//       the cheap set (the HorizenLabs instances) keeps the general product,
//       with the prepared constant as an immediate.
// Both give the same canonical results; poseidon2_permute(params, state) uses
// the first, poseidon2_permute_instance / _default the second.
#pragma once

#include <cstdint>
#include <utility>

#include "hash/poseidon2_constants.h"
#include "math/field.h"

// Storage class for compile-time tables that device code indexes at run time.
#ifndef GP_CONSTANT
#if defined(__CUDACC__)
#define GP_CONSTANT __constant__
#else
#define GP_CONSTANT
#endif
#endif

// Loop unrolling. GP_P2_UNROLL: loops over the state (width <= 32), unrolled
// so that the state lives in registers. GP_ROLLED (math/field.h): loops
// over full rounds. Device code keeps the round loops rolled (partial rounds unrolled
// by Poseidon2Field<F>::kPartialUnroll): a fully expanded permutation is 6k
// (KoalaBear width 16) to 20k (Goldilocks width 12) instructions, far more
// than the instruction cache holds, and its kernels stalled on instruction
// fetch (H200: rolling made Merkle leaf hashing 1.25x faster for KoalaBear,
// with the grouped S-boxes below 1.4x for Goldilocks). Host builds unroll
// only the state loops: fully unrolled rounds make GCC take minutes per
// instantiation for no real gain. The host pass of nvcc gets neither (its
// front end warns on both pragma spellings there).
#ifndef GP_P2_UNROLL
#if defined(__CUDA_ARCH__) || (defined(__clang__) && !defined(__CUDACC__))
#define GP_P2_UNROLL _Pragma("unroll")
#elif defined(__GNUC__) && !defined(__CUDACC__)
#define GP_P2_UNROLL _Pragma("GCC unroll 32")
#else
#define GP_P2_UNROLL
#endif
#endif

namespace gp {

// ---- per-field parameters ----

template <class F>
struct Poseidon2Field;

template <>
struct Poseidon2Field<Goldilocks> {
    static constexpr int SBOX_DEGREE = 7;
    // Device code: S-boxes of a full round in a rolled loop over groups of
    // four lanes (poseidon2_external_round); partial rounds unrolled by this
    // factor (measured best on the H200: 1 for Goldilocks, 2 for the 31-bit
    // fields).
    static constexpr bool kRollSboxLanes = true;
    static constexpr int kPartialUnroll = 1;
    // poseidon2_round_numbers_128 for a 64-bit field, d = 7: 22 for widths 8..20.
    static constexpr int rounds_p(int width) {
        return (width >= 8 && width <= 20 && width % 4 == 0) ? 22 : 0;
    }
    // Prepared multiplier (F::Tw) of a canonical constant, at compile time.
    GP_HD static constexpr uint64_t const_tw(uint64_t v) { return v; }
};

template <>
struct Poseidon2Field<BabyBear> {
    static constexpr int SBOX_DEGREE = 7;
    static constexpr bool kRollSboxLanes = false;
    static constexpr int kPartialUnroll = 2;
    static constexpr int rounds_p(int width) {
        return width == 16 ? 13 : width == 24 ? 21 : width == 32 ? 30 : 0;
    }
    GP_HD static constexpr uint32_t const_tw(uint32_t v) {  // v * 2^32 mod p
        return (uint32_t)(((uint64_t)v << 32) % BabyBear::P);
    }
};

template <>
struct Poseidon2Field<KoalaBear> {
    static constexpr int SBOX_DEGREE = 3;
    static constexpr bool kRollSboxLanes = false;
    static constexpr int kPartialUnroll = 2;
    static constexpr int rounds_p(int width) {
        return width == 16 ? 20 : width == 24 ? 23 : width == 32 ? 31 : 0;
    }
    GP_HD static constexpr uint32_t const_tw(uint32_t v) {
        return (uint32_t)(((uint64_t)v << 32) % KoalaBear::P);
    }
};

// ---- instance constants ----

template <class F, int WIDTH, Poseidon2Mat4 M4 = Poseidon2Mat4::Plonky3>
struct Poseidon2Params {
    using Field = F;
    using T = typename F::T;
    using Tw = typename F::Tw;
    static constexpr int kWidth = WIDTH;
    static constexpr int kHalfRoundsF = 4;
    static constexpr int kRoundsP = Poseidon2Field<F>::rounds_p(WIDTH);
    static constexpr int kSboxDegree = Poseidon2Field<F>::SBOX_DEGREE;
    static constexpr Poseidon2Mat4 kMat4 = M4;
    static_assert(WIDTH >= 8 && WIDTH % 4 == 0, "Poseidon2 width must be a multiple of 4, >= 8");
    static_assert(kRoundsP > 0, "no partial-round count known for this field and width");

    // All F::to_tw of the canonical constants (see "Working form" above).
    Tw external_initial_tw[kHalfRoundsF][WIDTH];
    Tw internal_tw[kRoundsP];  // added to state[0]
    Tw external_terminal_tw[kHalfRoundsF][WIDTH];
    Tw internal_diag_tw[WIDTH];  // V[i]

    // Canonical values of the constants.
    GP_HD T external_initial(int r, int i) const { return F::from_tw(external_initial_tw[r][i]); }
    GP_HD T internal(int r) const { return F::from_tw(internal_tw[r]); }
    GP_HD T external_terminal(int r, int i) const { return F::from_tw(external_terminal_tw[r][i]); }
    GP_HD T internal_diag(int i) const { return F::from_tw(internal_diag_tw[i]); }

    // Builds an instance from canonical arrays: ext_init and ext_term are
    // 4 rows of WIDTH (row-major), internal has kRoundsP values, diag WIDTH.
    GP_HD static Poseidon2Params from_canonical(const T *ext_init, const T *internal_rc,
                                                const T *ext_term, const T *diag) {
        Poseidon2Params p{};
        for (int r = 0; r < kHalfRoundsF; ++r)
            for (int i = 0; i < WIDTH; ++i) {
                p.external_initial_tw[r][i] = F::to_tw(ext_init[r * WIDTH + i]);
                p.external_terminal_tw[r][i] = F::to_tw(ext_term[r * WIDTH + i]);
            }
        for (int r = 0; r < kRoundsP; ++r) p.internal_tw[r] = F::to_tw(internal_rc[r]);
        for (int i = 0; i < WIDTH; ++i) p.internal_diag_tw[i] = F::to_tw(diag[i]);
        return p;
    }
};

// Params type of a generated instance (a struct of poseidon2_constants).
template <class C>
using Poseidon2ParamsFor = Poseidon2Params<typename C::Field, C::WIDTH, C::MAT4>;

// Compile-time conversion of a generated instance into Poseidon2Params.
template <class C>
constexpr Poseidon2ParamsFor<C> poseidon2_params_from_constants() {
    using P = Poseidon2ParamsFor<C>;
    static_assert(C::ROUNDS_P == P::kRoundsP, "R_P of the generated instance differs");
    static_assert(C::SBOX_DEGREE == P::kSboxDegree, "S-box degree of the generated instance differs");
    using PF = Poseidon2Field<typename C::Field>;
    P p{};
    for (int r = 0; r < P::kHalfRoundsF; ++r)
        for (int i = 0; i < C::WIDTH; ++i) {
            p.external_initial_tw[r][i] = PF::const_tw(C::external_initial[r][i]);
            p.external_terminal_tw[r][i] = PF::const_tw(C::external_terminal[r][i]);
        }
    for (int r = 0; r < P::kRoundsP; ++r) p.internal_tw[r] = PF::const_tw(C::internal[r]);
    for (int i = 0; i < C::WIDTH; ++i) p.internal_diag_tw[i] = PF::const_tw(C::internal_diag[i]);
    return p;
}

namespace detail {
// One object per generated instance that is actually used (variable template:
// only instantiated instances take __constant__ space). constexpr, so host code
// reads the same values from its own copy.
template <class C>
static GP_CONSTANT constexpr Poseidon2ParamsFor<C> kPoseidon2Params =
    poseidon2_params_from_constants<C>();
}  // namespace detail

// Constants of a generated instance, e.g.
// poseidon2_params<poseidon2_constants::GoldilocksHLW8>().
template <class C>
GP_HD const Poseidon2ParamsFor<C> &poseidon2_params() {
    return detail::kPoseidon2Params<C>;
}

// Plonky3 default instances (default_<field>_poseidon2_<width>()).
template <class F, int WIDTH>
struct Poseidon2Default;
template <> struct Poseidon2Default<Goldilocks, 8> { using Constants = poseidon2_constants::GoldilocksW8; };
template <> struct Poseidon2Default<Goldilocks, 12> { using Constants = poseidon2_constants::GoldilocksW12; };
template <> struct Poseidon2Default<Goldilocks, 16> { using Constants = poseidon2_constants::GoldilocksW16; };
template <> struct Poseidon2Default<BabyBear, 16> { using Constants = poseidon2_constants::BabyBearW16; };
template <> struct Poseidon2Default<BabyBear, 24> { using Constants = poseidon2_constants::BabyBearW24; };
template <> struct Poseidon2Default<BabyBear, 32> { using Constants = poseidon2_constants::BabyBearW32; };
template <> struct Poseidon2Default<KoalaBear, 16> { using Constants = poseidon2_constants::KoalaBearW16; };
template <> struct Poseidon2Default<KoalaBear, 24> { using Constants = poseidon2_constants::KoalaBearW24; };
template <> struct Poseidon2Default<KoalaBear, 32> { using Constants = poseidon2_constants::KoalaBearW32; };

template <class F, int WIDTH>
GP_HD const Poseidon2Params<F, WIDTH> &poseidon2_default_params() {
    return poseidon2_params<typename Poseidon2Default<F, WIDTH>::Constants>();
}

// ---- internal diagonal ----

// How M_I applies one diagonal entry V: V = sign * n (kSmall, n = 1..4),
// V = sign / 2^n (kInvPow2, n = 1..32), or anything else (kMul).
struct Poseidon2DiagOp {
    enum Kind : int { kMul, kSmall, kInvPow2 };
    Kind kind;
    int n;
    bool negate;
};

// Classifies a canonical diagonal entry (compile time for the generated
// instances; usable at run time too).
template <class F>
GP_HD constexpr Poseidon2DiagOp poseidon2_diag_op(typename F::T v) {
    using T = typename F::T;
    const T minus_v = v == 0 ? 0 : (T)(F::P - v);
    for (int neg = 0; neg < 2; ++neg) {
        const T w = neg ? minus_v : v;
        if (w >= 1 && w <= 4) return {Poseidon2DiagOp::kSmall, (int)w, neg != 0};
        // w = 1/2^k  <=>  w * 2^k = 1; double w modulo p up to k = 32.
        T x = w;
        for (int k = 1; k <= 32; ++k) {
            x = x >= F::P - x ? (T)(x - (F::P - x)) : (T)(x + x);
            if (x == 1) return {Poseidon2DiagOp::kInvPow2, k, neg != 0};
        }
    }
    return {Poseidon2DiagOp::kMul, 0, false};
}

// V * x + sum for V described by OP (not kMul), canonical in and out.
template <class F, Poseidon2DiagOp::Kind KIND, int N, bool NEGATE>
GP_HD typename F::T poseidon2_diag_cheap(typename F::T x, typename F::T sum) {
    using T = typename F::T;
    T y;  // |V| * x
    if constexpr (KIND == Poseidon2DiagOp::kInvPow2) {
        y = F::template div_pow2<N>(x);
    } else {
        static_assert(KIND == Poseidon2DiagOp::kSmall && N >= 1 && N <= 4, "small V is 1..4");
        if constexpr (N == 1) {
            y = x;
        } else {
            const T x2 = F::add(x, x);
            if constexpr (N == 2) y = x2;
            else if constexpr (N == 3) y = F::add(x2, x);
            else y = F::add(x2, x2);
        }
    }
    if constexpr (NEGATE) return F::sub(sum, y);
    else return F::add(y, sum);
}

// Diagonal read at run time from prepared multipliers: one F::mul_tw a lane.
template <class F>
struct Poseidon2RuntimeDiag {
    using T = typename F::T;
    const typename F::Tw *diag_tw;  // F::to_tw(V[i])
    template <int I>
    GP_HD T term(T x, T sum) const {
        return F::add(F::mul_tw(x, diag_tw[I]), sum);
    }
};

// Diagonal of generated instance C, fixed at compile time lane by lane.
template <class C>
struct Poseidon2StaticDiag {
    using F = typename C::Field;
    using T = typename F::T;
    template <int I>
    GP_HD static T term(T x, T sum) {
        constexpr T v = C::internal_diag[I];
        constexpr Poseidon2DiagOp op = poseidon2_diag_op<F>(v);
        if constexpr (op.kind == Poseidon2DiagOp::kMul) {
            constexpr typename F::Tw w = Poseidon2Field<F>::const_tw(v);
            return F::add(F::mul_tw(x, w), sum);
        } else {
            return poseidon2_diag_cheap<F, op.kind, op.n, op.negate>(x, sum);
        }
    }
};

// ---- building blocks ----

// x^D with D = 3 or 7 on the Tw form: 2 or 4 products F::tw_mul (one
// Montgomery reduction each for the 31-bit fields, F::mul for Goldilocks).
template <class F, int D>
GP_HD typename F::Tw poseidon2_sbox_tw(typename F::Tw x) {
    return pow_small_tw<F, D>(x);
}

// x + rc, then x^D, on the Tw form (x and rc canonical). For the 31-bit
// fields the sum is taken as x + (rc - P), a signed word in [-P, P), and
// the products run on signed Montgomery reductions (F::mont_reduce_signed),
// which need no correction between them: one correction for the whole
// S-box instead of one for the addition and one a product (10 instead of
// 12 instructions for x^3 on sm_90, 18 instead of 22 for x^7).
namespace detail {
// a^(D-1) b / 2^(32 (D-1)) as a signed value in (-P, P), for a, b in
// (-P, P) (a 31-bit field): the S-box chain with b as its last factor
// (b = a: a^D in the Tw form).
template <class F, int D>
GP_HD int32_t poseidon2_sbox_signed(int32_t a, int32_t b) {
    static_assert(D == 3 || D == 7, "S-box degree 3 or 7");
    const int32_t a2 = F::mont_reduce_signed((int64_t)a * a);
    const int32_t a3 = F::mont_reduce_signed((int64_t)a2 * b);
    if constexpr (D == 3) {
        return a3;
    } else {
        const int32_t a4 = F::mont_reduce_signed((int64_t)a2 * a2);
        return F::mont_reduce_signed((int64_t)a3 * a4);
    }
}
}  // namespace detail

template <class F, int D>
GP_HD typename F::Tw poseidon2_add_sbox_tw(typename F::Tw x, typename F::Tw rc) {
    if constexpr (sizeof(typename F::T) == 4) {
        const int32_t a = (int32_t)(x + (rc - F::P));
        return F::from_signed(detail::poseidon2_sbox_signed<F, D>(a, a));
    } else {
        return poseidon2_sbox_tw<F, D>(F::add(x, rc));
    }
}

// The same on a scaled lane (31-bit fields): x = sigma X for a state value
// X and a known scale sigma, rc = sigma c. With kappa = sigma^(1 - D) 2^32
// (a Tw multiplier) it returns sigma (X + c)^D, the S-box of the unscaled
// value at the same scale: one more product, sigma^(1 - D) (X + c), taken
// beside the chain's first and used as its last factor (the chain's depth
// stays two products for x^3).
template <class F, int D>
GP_HD typename F::Tw poseidon2_add_sbox_scaled_tw(typename F::Tw x, typename F::Tw rc, typename F::Tw kappa) {
    static_assert(sizeof(typename F::T) == 4, "scaled S-boxes are defined for the 31-bit fields");
    const int32_t a = (int32_t)(x + (rc - F::P));
    const int32_t b = F::mont_reduce_signed((int64_t)a * (int32_t)kappa);
    return F::from_signed(detail::poseidon2_sbox_signed<F, D>(a, b));
}

// x^D, canonical in and out.
template <class F, int D>
GP_HD typename F::T poseidon2_sbox(typename F::T x) {
    return F::from_tw(poseidon2_sbox_tw<F, D>(F::to_tw(x)));
}

// Sums inside the linear layers (M_E, and the sum of M_I) go through an
// accumulator: A values, from(x), add(a, b), reduce(a) -> canonical. For the
// 31-bit fields A is the canonical value and add is F::add (three
// instructions on the device). For Goldilocks F::add is a seven-instruction
// carry chain, so A is a 96-bit integer (an addition is three) and each
// output is reduced once (Goldilocks::reduce96). The high word stays small:
// an M_E output is at most 16 (W/4 + 1) canonical values (16 = the largest
// row sum of a 4x4 block), the sum of M_I W of them. (The sum of M_I for the
// 31-bit fields bypasses the accumulator: detail::poseidon2_lane_sum.)
template <class F>
struct Poseidon2Acc {
    using T = typename F::T;
    using A = T;
    GP_HD static A from(T x) { return x; }
    GP_HD static A add(A a, A b) { return F::add(a, b); }
    GP_HD static T reduce(A a) { return a; }
};

template <>
struct Poseidon2Acc<Goldilocks> {
    using T = uint64_t;
    struct A {
        uint64_t lo;
        uint32_t hi;
    };
    GP_HD static A from(T x) { return {x, 0}; }
    GP_HD static A add(A a, A b) {
#if defined(__CUDA_ARCH__)
        uint32_t r0, r1, r2;
        asm("add.cc.u32 %0, %3, %6;\n\t"
            "addc.cc.u32 %1, %4, %7;\n\t"
            "addc.u32 %2, %5, %8;"
            : "=r"(r0), "=r"(r1), "=r"(r2)
            : "r"((uint32_t)a.lo), "r"((uint32_t)(a.lo >> 32)), "r"(a.hi),
              "r"((uint32_t)b.lo), "r"((uint32_t)(b.lo >> 32)), "r"(b.hi));
        return {((uint64_t)r1 << 32) | r0, r2};
#else
        const uint64_t lo = a.lo + b.lo;
        return {lo, a.hi + b.hi + (uint32_t)(lo < a.lo)};
#endif
    }
    GP_HD static T reduce(A a) { return Goldilocks::reduce96(a.lo, a.hi); }
};

// The 4x4 block of M_E on accumulators, additions and doublings only.
template <class F, Poseidon2Mat4 M4>
GP_HD void poseidon2_mat4_acc(typename Poseidon2Acc<F>::A *x) {
    using Acc = Poseidon2Acc<F>;
    using A = typename Acc::A;
    if constexpr (M4 == Poseidon2Mat4::Plonky3) {
        // [[2,3,1,1],[1,2,3,1],[1,1,2,3],[3,1,1,2]] (Plonky3 apply_mat4).
        const A t01 = Acc::add(x[0], x[1]);
        const A t23 = Acc::add(x[2], x[3]);
        const A t0123 = Acc::add(t01, t23);
        const A t01123 = Acc::add(t0123, x[1]);
        const A t01233 = Acc::add(t0123, x[3]);
        const A y3 = Acc::add(t01233, Acc::add(x[0], x[0]));
        const A y1 = Acc::add(t01123, Acc::add(x[2], x[2]));
        const A y0 = Acc::add(t01123, t01);
        const A y2 = Acc::add(t01233, t23);
        x[0] = y0;
        x[1] = y1;
        x[2] = y2;
        x[3] = y3;
    } else {
        // [[5,7,1,3],[4,6,1,1],[1,3,5,7],[1,1,4,6]] (HorizenLabs matmul_m4).
        const A t0 = Acc::add(x[0], x[1]);
        const A t1 = Acc::add(x[2], x[3]);
        const A t2 = Acc::add(Acc::add(x[1], x[1]), t1);  // 2x1 + x2 + x3
        const A t3 = Acc::add(Acc::add(x[3], x[3]), t0);  // x0 + x1 + 2x3
        const A t1_2 = Acc::add(t1, t1);
        const A t0_2 = Acc::add(t0, t0);
        const A t4 = Acc::add(Acc::add(t1_2, t1_2), t3);  // x0 + x1 + 4x2 + 6x3
        const A t5 = Acc::add(Acc::add(t0_2, t0_2), t2);  // 4x0 + 6x1 + x2 + x3
        const A t6 = Acc::add(t3, t5);                    // 5x0 + 7x1 + x2 + 3x3
        const A t7 = Acc::add(t2, t4);                    // x0 + 3x1 + 5x2 + 7x3
        x[0] = t6;
        x[1] = t5;
        x[2] = t7;
        x[3] = t4;
    }
}

// In-place 4x4 block of M_E on canonical values.
template <class F, Poseidon2Mat4 M4>
GP_HD void poseidon2_mat4(typename F::T *x) {
    using Acc = Poseidon2Acc<F>;
    typename Acc::A y[4] = {Acc::from(x[0]), Acc::from(x[1]), Acc::from(x[2]), Acc::from(x[3])};
    poseidon2_mat4_acc<F, M4>(y);
    GP_P2_UNROLL
    for (int i = 0; i < 4; ++i) x[i] = Acc::reduce(y[i]);
}

// M_E in place: the 4x4 block on each chunk, then s[i] += sum_{j = i mod 4} s[j],
// accumulated unreduced and reduced once per output.
template <class F, int WIDTH, Poseidon2Mat4 M4>
GP_HD void poseidon2_external_linear(typename F::T *s) {
    using Acc = Poseidon2Acc<F>;
    using A = typename Acc::A;
    A y[WIDTH];
    GP_P2_UNROLL
    for (int i = 0; i < WIDTH; ++i) y[i] = Acc::from(s[i]);
    GP_P2_UNROLL
    for (int b = 0; b < WIDTH; b += 4) poseidon2_mat4_acc<F, M4>(y + b);
    A sum[4] = {y[0], y[1], y[2], y[3]};
    GP_P2_UNROLL
    for (int b = 4; b < WIDTH; b += 4) {
        GP_P2_UNROLL
        for (int k = 0; k < 4; ++k) sum[k] = Acc::add(sum[k], y[b + k]);
    }
    GP_P2_UNROLL
    for (int i = 0; i < WIDTH; ++i) s[i] = Acc::reduce(Acc::add(y[i], sum[i & 3]));
}

namespace detail {
// Upper bounds (inclusive) on the value after each step of the lane sum's
// reduction below, for a 31-bit field: S <= W (p - 1); one fold
// S = hi 2^31 + lo -> lo + hi (2^31 - p) maps S below 2^31 + (S >> 31) (2^31 - p).
template <class F>
GP_HD constexpr uint64_t poseidon2_fold31_bound(uint64_t bound) {
    return ((uint64_t)1 << 31) - 1 + (bound >> 31) * (((uint64_t)1 << 31) - F::P);
}

// Sum of the WIDTH lanes, canonical. For Goldilocks through the accumulator.
// For the 31-bit fields (p < 2^31) the lanes are added as 64-bit integers
// (two instructions an addition against three for F::add), then reduced once:
// fold the bits from 2^31 up with 2^31 = 2^31 - p (mod p) until the value
// fits in 32 bits, then subtract p as often as the compile-time bound needs
// (once for KoalaBear: 2^31 - p = 2^24 - 1 is small).
template <class F, int WIDTH>
GP_HD typename F::T poseidon2_lane_sum(const typename F::T *s) {
    using T = typename F::T;
    if constexpr (sizeof(T) == 4) {
        static_assert(F::P < ((uint64_t)1 << 31), "31-bit field expected");
        uint64_t acc = s[0];
        GP_P2_UNROLL
        for (int i = 1; i < WIDTH; ++i) acc += s[i];
        constexpr uint64_t b0 = (uint64_t)WIDTH * (F::P - 1);
        constexpr uint64_t b1 = poseidon2_fold31_bound<F>(b0);
        constexpr uint64_t b2 = b1 >> 32 ? poseidon2_fold31_bound<F>(b1) : b1;
        static_assert(b2 >> 32 == 0 && b2 < 4 * (uint64_t)F::P, "lane sum bound");
        constexpr uint32_t c = (uint32_t)(((uint64_t)1 << 31) - F::P);
        uint64_t t = (acc & 0x7fffffffu) + (acc >> 31) * c;
        if constexpr (b1 >> 32) t = (t & 0x7fffffffu) + (t >> 31) * c;
        uint32_t r = (uint32_t)t;
        if constexpr (b2 >= 2 * (uint64_t)F::P) r = r >= 2 * F::P ? r - 2 * F::P : r;
        if constexpr (b2 >= F::P) r = r >= F::P ? r - F::P : r;
        return r;
    } else {
        using Acc = Poseidon2Acc<F>;
        typename Acc::A acc = Acc::from(s[0]);
        GP_P2_UNROLL
        for (int i = 1; i < WIDTH; ++i) acc = Acc::add(acc, Acc::from(s[i]));
        return Acc::reduce(acc);
    }
}

template <class F, int WIDTH, class Diag, int... I>
GP_HD void poseidon2_internal_linear(typename F::T *s, const Diag &diag,
                                     std::integer_sequence<int, I...>) {
    const typename F::T sum = poseidon2_lane_sum<F, WIDTH>(s);
    ((s[I] = diag.template term<I>(s[I], sum)), ...);
}
}  // namespace detail

// M_I in place: s[i] = V[i] * s[i] + sum(s), V given by a diagonal policy
// (Poseidon2RuntimeDiag<F> or Poseidon2StaticDiag<C>). The lanes are
// expanded at compile time so that each one's V can be a constant. Linear:
// the same on canonical values and on the Tw form.
template <class F, int WIDTH, class Diag>
GP_HD void poseidon2_internal_linear(typename F::T *s, const Diag &diag) {
    detail::poseidon2_internal_linear<F, WIDTH>(s, diag, std::make_integer_sequence<int, WIDTH>{});
}

// One full round on the Tw form (state and constants): s = M_E(sbox(s + rc)).
// For a field with kRollSboxLanes (Goldilocks, whose S-box is about 100
// instructions) device code runs the S-boxes four lanes at a time
// (for_each_lane_group): fully expanded, a width-12 round is 1.5k
// instructions and the kernel stalls on instruction fetch.
template <class F, int WIDTH, Poseidon2Mat4 M4>
GP_HD void poseidon2_external_round(typename F::Tw *s, const typename F::Tw *rc) {
    constexpr int D = Poseidon2Field<F>::SBOX_DEGREE;
    using Tw = typename F::Tw;
    if constexpr (Poseidon2Field<F>::kRollSboxLanes) {
        for_each_lane_group<WIDTH>(s, [&](Tw *x, int g) {
            GP_P2_UNROLL
            for (int i = 0; i < 4; ++i) x[i] = poseidon2_add_sbox_tw<F, D>(x[i], rc[g + i]);
        });
    } else {
        GP_P2_UNROLL
        for (int i = 0; i < WIDTH; ++i) s[i] = poseidon2_add_sbox_tw<F, D>(s[i], rc[i]);
    }
    poseidon2_external_linear<F, WIDTH, M4>(s);
}

// One partial round on the Tw form: s[0] = sbox(s[0] + c); s = M_I(s).
template <class F, int WIDTH, class Diag>
GP_HD void poseidon2_internal_round(typename F::Tw *s, typename F::Tw c, const Diag &diag) {
    s[0] = poseidon2_add_sbox_tw<F, Poseidon2Field<F>::SBOX_DEGREE>(s[0], c);
    poseidon2_internal_linear<F, WIDTH>(s, diag);
}

// ---- the permutation ----

// The partial rounds of an instance whose internal layer is a diagonal
// policy (Poseidon2RuntimeDiag, Poseidon2StaticDiag): a policy of the
// partial rounds for poseidon2_rounds_tw, which takes any object with
// operator()(params, s) running all R_P rounds on the Tw form (SP1's
// instances bring their own, hash/poseidon2_sp1.h).
template <class Diag>
struct Poseidon2DiagRounds {
    Diag diag;
    template <class F, int WIDTH, Poseidon2Mat4 M4>
    GP_HD void operator()(const Poseidon2Params<F, WIDTH, M4> &p, typename F::Tw *s) const {
        using P = Poseidon2Params<F, WIDTH, M4>;
#if defined(__CUDA_ARCH__)
        constexpr int kPartialUnroll = Poseidon2Field<F>::kPartialUnroll;
#pragma unroll kPartialUnroll
#endif
        for (int r = 0; r < P::kRoundsP; ++r)
            poseidon2_internal_round<F, WIDTH>(s, p.internal_tw[r], diag);
    }
};

// The rounds on the Tw form, in place on s[WIDTH] (Tw in, Tw out; see
// "Working form" at the top): external rounds with the constants of p, the
// partial rounds from the policy `partial`.
template <class F, int WIDTH, Poseidon2Mat4 M4, class Partial>
GP_HD void poseidon2_rounds_tw(const Poseidon2Params<F, WIDTH, M4> &p, const Partial &partial, typename F::Tw *s) {
    using P = Poseidon2Params<F, WIDTH, M4>;
    poseidon2_external_linear<F, WIDTH, M4>(s);
    GP_ROLLED
    for (int r = 0; r < P::kHalfRoundsF; ++r)
        poseidon2_external_round<F, WIDTH, M4>(s, p.external_initial_tw[r]);
    partial(p, s);
    GP_ROLLED
    for (int r = 0; r < P::kHalfRoundsF; ++r)
        poseidon2_external_round<F, WIDTH, M4>(s, p.external_terminal_tw[r]);
}

// The same on state[WIDTH] (canonical in, canonical out): converted to the
// Tw form once, the rounds, converted back once.
template <class F, int WIDTH, Poseidon2Mat4 M4, class Partial>
GP_HD void poseidon2_rounds(const Poseidon2Params<F, WIDTH, M4> &p, const Partial &partial, typename F::T *state) {
    typename F::Tw *s = state;  // the same storage type for every field
    GP_P2_UNROLL
    for (int i = 0; i < WIDTH; ++i) s[i] = F::to_tw(state[i]);
    poseidon2_rounds_tw(p, partial, s);
    GP_P2_UNROLL
    for (int i = 0; i < WIDTH; ++i) state[i] = F::from_tw(s[i]);
}

// The permutation on the Tw form with internal diagonal from the policy
// diag. A sponge that keeps its state in Tw form between permutations
// (tree_hash.h, FieldSpongeHasher) calls this directly and converts only what
// it absorbs and squeezes.
template <class F, int WIDTH, Poseidon2Mat4 M4, class Diag>
GP_HD void poseidon2_permute_tw(const Poseidon2Params<F, WIDTH, M4> &p, const Diag &diag, typename F::Tw *s) {
    poseidon2_rounds_tw(p, Poseidon2DiagRounds<Diag>{diag}, s);
}

// In place on state[WIDTH] (canonical in, canonical out).
template <class F, int WIDTH, Poseidon2Mat4 M4, class Diag>
GP_HD void poseidon2_permute(const Poseidon2Params<F, WIDTH, M4> &p, const Diag &diag,
                             typename F::T *state) {
    poseidon2_rounds(p, Poseidon2DiagRounds<Diag>{diag}, state);
}

// Any instance, all constants (diagonal included) read from p at run time.
template <class F, int WIDTH, Poseidon2Mat4 M4>
GP_HD void poseidon2_permute(const Poseidon2Params<F, WIDTH, M4> &p, typename F::T *state) {
    poseidon2_permute(p, Poseidon2RuntimeDiag<F>{p.internal_diag_tw}, state);
}

// Generated instance C: round constants from poseidon2_params<C>()
// (__constant__ memory on the device), internal diagonal folded into the code.
template <class C>
GP_HD void poseidon2_permute_instance(typename C::Field::T *state) {
    poseidon2_permute(poseidon2_params<C>(), Poseidon2StaticDiag<C>{}, state);
}
// The same on the Tw form (poseidon2_permute_tw).
template <class C>
GP_HD void poseidon2_permute_instance_tw(typename C::Field::Tw *s) {
    poseidon2_permute_tw(poseidon2_params<C>(), Poseidon2StaticDiag<C>{}, s);
}

// Plonky3 default instance of (F, WIDTH).
template <class F, int WIDTH>
GP_HD void poseidon2_permute_default(typename F::T *state) {
    poseidon2_permute_instance<typename Poseidon2Default<F, WIDTH>::Constants>(state);
}

}  // namespace gp
