// SPDX-License-Identifier: MIT OR Apache-2.0
// Extension fields of degree D over the base fields, written once for host
// and device, as Plonky3 defines them:
//   Goldilocks D = 2: X^2 = 7           (BinomialExtensionField, W = 7)
//   Goldilocks D = 3: X^3 = X + 1       (cubic trinomial x^3 - x - 1)
//   and, over GoldilocksTriton (Goldilocks with Triton VM's extension):
//   Goldilocks D = 3: X^3 = X - 1       (twenty-first's XFieldElement,
//                                        the Shah polynomial x^3 - x + 1)
//   BabyBear   D = 4: X^4 = 11          (W = 11)
//   BabyBear   D = 5: X^5 = 2, D = 8: X^8 = 11
//   KoalaBear  D = 4: X^4 = 3           (W = 3), D = 8: X^8 = 3
//   (degrees 5 and 8 serve the constraint programs: quotient_ext_dispatch)
//   D = 1: the base field itself.
// An element is its D base coefficients, lowest degree first.
#pragma once

#include <cstdint>
#include <type_traits>

#include "math/field.h"

namespace gp {

// Goldilocks whose cubic extension is Triton VM's (X^3 - X + 1): the same
// base field; only Ext<GoldilocksTriton, 3>'s product differs.
struct GoldilocksTriton : Goldilocks {};
template <class F>
struct TritonCubic : std::false_type {};
template <>
struct TritonCubic<GoldilocksTriton> : std::true_type {};

// Which cubic a Goldilocks degree-3 element lives in (internal mirror of
// gp_extension).
enum : uint32_t { kExtPlonky3 = 0, kExtTriton = 1 };

template <class F, int D>
struct Ext {
    using T = typename F::T;
    T c[D];

    GP_HD static Ext zero() {
        Ext r;
        for (int i = 0; i < D; ++i) r.c[i] = 0;
        return r;
    }
    GP_HD static Ext from_base(T x) {
        Ext r = zero();
        r.c[0] = x;
        return r;
    }
    GP_HD Ext operator+(const Ext &b) const {
        Ext r;
        for (int i = 0; i < D; ++i) r.c[i] = F::add(c[i], b.c[i]);
        return r;
    }
    GP_HD Ext operator-(const Ext &b) const {
        Ext r;
        for (int i = 0; i < D; ++i) r.c[i] = F::sub(c[i], b.c[i]);
        return r;
    }
    // Times a base-field element.
    GP_HD Ext scale(T s) const {
        Ext r;
        for (int i = 0; i < D; ++i) r.c[i] = F::mul(c[i], s);
        return r;
    }
    GP_HD bool operator==(const Ext &b) const {
        for (int i = 0; i < D; ++i)
            if (c[i] != b.c[i]) return false;
        return true;
    }

    GP_HD Ext operator*(const Ext &b) const {
        if constexpr (D == 1) {
            Ext r;
            r.c[0] = F::mul(c[0], b.c[0]);
            return r;
        } else {
            return mul_ext(b);
        }
    }

    // Multiplicative inverse (0 for 0): solves a * b = 1 as the linear
    // system of a's multiplication matrix (columns a * X^j) by Gauss-Jordan.
    GP_HD Ext inv() const {
        T m[D][D + 1];
        Ext xj = from_base(1);
        Ext xgen = zero();
        if constexpr (D > 1) xgen.c[1] = 1;
        for (int j = 0; j < D; ++j) {
            const Ext col = *this * xj;
            for (int r = 0; r < D; ++r) m[r][j] = col.c[r];
            xj = xj * xgen;
        }
        for (int r = 0; r < D; ++r) m[r][D] = r == 0 ? 1 : 0;
        for (int c = 0; c < D; ++c) {
            int piv = c;
            while (piv < D && m[piv][c] == 0) ++piv;
            if (piv == D) return zero();  // a = 0
            if (piv != c)
                for (int k = 0; k <= D; ++k) {
                    T t = m[c][k];
                    m[c][k] = m[piv][k];
                    m[piv][k] = t;
                }
            const T pinv = finv<F>(m[c][c]);
            for (int k = 0; k <= D; ++k) m[c][k] = F::mul(m[c][k], pinv);
            for (int r = 0; r < D; ++r) {
                if (r == c || m[r][c] == 0) continue;
                const T f = m[r][c];
                for (int k = 0; k <= D; ++k) m[r][k] = F::sub(m[r][k], F::mul(f, m[c][k]));
            }
        }
        Ext b;
        for (int r = 0; r < D; ++r) b.c[r] = m[r][D];
        return b;
    }
    GP_HD Ext pow(uint64_t e) const {
        Ext r = from_base(1), b = *this;
        while (e) {
            if (e & 1) r = r * b;
            b = b * b;
            e >>= 1;
        }
        return r;
    }

private:
    // Schoolbook product, then reduction (D > 1).
    GP_HD Ext mul_ext(const Ext &b) const {
        T p[2 * D - 1];
        for (int k = 0; k < 2 * D - 1; ++k) p[k] = 0;
        for (int i = 0; i < D; ++i)
            for (int j = 0; j < D; ++j) p[i + j] = F::add(p[i + j], F::mul(c[i], b.c[j]));
        Ext r;
        if constexpr (D == 3 && TritonCubic<F>::value) {  // X^3 = X - 1, X^4 = X^2 - X
            r.c[0] = F::sub(p[0], p[3]);
            r.c[1] = F::sub(F::add(p[1], p[3]), p[4]);
            r.c[2] = F::add(p[2], p[4]);
        } else if constexpr (D == 3) {  // Goldilocks cubic: X^3 = X + 1, X^4 = X^2 + X
            r.c[0] = F::add(p[0], p[3]);
            r.c[1] = F::add(F::add(p[1], p[3]), p[4]);
            r.c[2] = F::add(p[2], p[4]);
        } else {  // binomial X^D = W
            const T w = (T)(F::P == 0xffffffff00000001ull ? 7 : F::P == 0x78000001u ? (D == 5 ? 2 : 11) : 3);
            for (int k = 0; k < D; ++k) r.c[k] = k + D < 2 * D - 1 ? F::add(p[k], F::mul(w, p[k + D])) : p[k];
        }
        return r;
    }
};

// Calls fn(F{}, std::integral_constant<int, D>{}) for a field and a
// validated extension degree (Goldilocks 1, 2, 3; BabyBear, KoalaBear 1, 4).
template <class Fn>
void ext_dispatch(FieldId id, uint32_t degree, Fn &&fn) {
    dispatch_field(id, [&](auto F) {
        if constexpr (std::is_same<decltype(F), Goldilocks>::value) {
            if (degree == 2) fn(F, std::integral_constant<int, 2>{});
            else if (degree == 3) fn(F, std::integral_constant<int, 3>{});
            else fn(F, std::integral_constant<int, 1>{});
        } else {
            if (degree == 4) fn(F, std::integral_constant<int, 4>{});
            else fn(F, std::integral_constant<int, 1>{});
        }
    });
}

// The degrees a constraint program takes (Plonky3's extensions): Goldilocks
// 1, 2, 3; BabyBear 1, 4, 5, 8; KoalaBear 1, 4, 8.
inline bool quotient_ext_ok(FieldId id, uint32_t d) {
    if (id == FieldId::Goldilocks) return d >= 1 && d <= 3;
    if (id == FieldId::BabyBear) return d == 1 || d == 4 || d == 5 || d == 8;
    return d == 1 || d == 4 || d == 8;
}
template <class Fn>
void quotient_ext_dispatch(FieldId id, uint32_t degree, Fn &&fn) {
    dispatch_field(id, [&](auto F) {
        using Fd = decltype(F);
        if constexpr (std::is_same<Fd, Goldilocks>::value) {
            ext_dispatch(id, degree, fn);
        } else {
            if (degree == 8) fn(F, std::integral_constant<int, 8>{});
            else if (degree == 5 && std::is_same<Fd, BabyBear>::value) fn(F, std::integral_constant<int, 5>{});
            else ext_dispatch(id, degree, fn);
        }
    });
}

// As above, with the extension kind (kExtTriton: Goldilocks degree 3 is
// Triton VM's cubic; validated by check_extension).
template <class Fn>
void ext_dispatch(FieldId id, uint32_t degree, uint32_t ext_kind, Fn &&fn) {
    if (ext_kind == kExtTriton && id == FieldId::Goldilocks && degree == 3)
        fn(GoldilocksTriton{}, std::integral_constant<int, 3>{});
    else
        ext_dispatch(id, degree, fn);
}

}  // namespace gp
