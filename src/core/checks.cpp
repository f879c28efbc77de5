// SPDX-License-Identifier: MIT OR Apache-2.0
// Argument checks shared by the C shims and the protocol code.
#include "core/checks.h"

#include "hash/permutations.h"
#include "math/field.h"

namespace gp {
namespace {

const FieldDesc kFields[] = {
    {FieldId::Goldilocks, 8, Goldilocks::P, Goldilocks::GENERATOR, Goldilocks::TWO_ADICITY,
     "Goldilocks"},
    {FieldId::BabyBear, 4, BabyBear::P, BabyBear::GENERATOR, BabyBear::TWO_ADICITY, "BabyBear"},
    {FieldId::KoalaBear, 4, KoalaBear::P, KoalaBear::GENERATOR, KoalaBear::TWO_ADICITY,
     "KoalaBear"},
};

}  // namespace

const FieldDesc &field_desc(const gp_field &f, const char *arg) {
    int v = raw(f);
    for (const auto &d : kFields)
        if ((int)d.id == v) return d;
    fail(GP_ERR_INVALID_ARGUMENT, arg, " = ", v, " is not a known gp_field");
}

uint32_t field_elem_size(int v) {
    for (const auto &d : kFields)
        if ((int)d.id == v) return d.elem_size;
    return 0;
}

void check_ext_degree(const FieldDesc &f, uint32_t d, const char *arg) {
    bool ok = d == 1 || (f.id == FieldId::Goldilocks ? (d == 2 || d == 3) : d == 4);
    if (!ok)
        fail(GP_ERR_UNSUPPORTED, arg, " = ", d, " is not a supported extension degree of ", f.name,
             f.id == FieldId::Goldilocks ? " (1, 2 or 3)" : " (1 or 4)");
}

uint32_t check_extension(const FieldDesc &f, uint32_t d, int extension, const char *arg) {
    if (extension == GP_EXT_PLONKY3) return 0;
    if (extension != GP_EXT_TRITON) fail(GP_ERR_INVALID_ARGUMENT, arg, " = ", extension, " is not a gp_extension");
    if (f.id != FieldId::Goldilocks || (d != 1 && d != 3))
        fail(GP_ERR_UNSUPPORTED, arg, " = GP_EXT_TRITON is Goldilocks' cubic extension; the elements are of degree ",
             d, " over ", f.name);
    return 1;
}

uint64_t first_non_canonical(const FieldDesc &f, const void *data, uint64_t begin, uint64_t end) {
    if (f.elem_size == 8) {
        auto *p = static_cast<const uint64_t *>(data);
        for (uint64_t i = begin; i < end; ++i)
            if (p[i] >= f.modulus) return i;
    } else {
        auto *p = static_cast<const uint32_t *>(data);
        const uint32_t m = (uint32_t)f.modulus;
        for (uint64_t i = begin; i < end; ++i)
            if (p[i] >= m) return i;
    }
    return end;
}

void fail_non_canonical(const FieldDesc &f, const void *data, uint64_t i, const char *arg) {
    const uint64_t v = f.elem_size == 8 ? static_cast<const uint64_t *>(data)[i] : static_cast<const uint32_t *>(data)[i];
    fail(GP_ERR_NON_CANONICAL, arg, "[", i, "] = ", v, " is not a canonical ", f.name, " element");
}

void check_canonical(const FieldDesc &f, const void *data, uint64_t begin, uint64_t end,
                     const char *arg) {
    const uint64_t i = first_non_canonical(f, data, begin, end);
    if (i < end) fail_non_canonical(f, data, i, arg);
}

gp_layout layout_from(int v, const char *arg) {
    if (v != GP_LAYOUT_COL_MAJOR && v != GP_LAYOUT_ROW_MAJOR)
        fail(GP_ERR_INVALID_ARGUMENT, arg, " = ", v, " is not a gp_layout");
    return static_cast<gp_layout>(v);
}

gp_order order_from(int v, const char *arg) {
    if (v != GP_ORDER_NATURAL && v != GP_ORDER_BIT_REVERSED)
        fail(GP_ERR_INVALID_ARGUMENT, arg, " = ", v, " is not a gp_order");
    return static_cast<gp_order>(v);
}

void check_layout(const gp_layout &l, const char *arg) { layout_from(raw(l), arg); }

void check_order(const gp_order &o, const char *arg) { order_from(raw(o), arg); }

void check_shift(const FieldDesc &f, uint64_t v, const char *arg) {
    if (v >= f.modulus)
        fail(GP_ERR_INVALID_ARGUMENT, arg, " = ", v, " is not a canonical ", f.name,
             " element (must be < ", f.modulus, ")");
}

uint32_t check_log_size(const FieldDesc &f, uint64_t n, const char *arg) {
    if (!is_pow2(n)) fail(GP_ERR_INVALID_ARGUMENT, arg, " = ", n, " is not a power of two");
    uint32_t l = log2_exact(n);
    if (l > f.two_adicity)
        fail(GP_ERR_TWO_ADICITY, arg, " = 2^", l, " exceeds the two-adicity of ", f.name, " (2^",
             f.two_adicity, ")");
    return l;
}

std::string perm_label(int id) {
    switch (id) {
#define GP_PERM_LABEL(x) \
    case x: return #x;
        GP_PERM_LABEL(GP_PERM_POSEIDON2_GOLDILOCKS_8)
        GP_PERM_LABEL(GP_PERM_POSEIDON2_GOLDILOCKS_12)
        GP_PERM_LABEL(GP_PERM_POSEIDON2_GOLDILOCKS_16)
        GP_PERM_LABEL(GP_PERM_POSEIDON2_GOLDILOCKS_HL_8)
        GP_PERM_LABEL(GP_PERM_POSEIDON2_BABYBEAR_16)
        GP_PERM_LABEL(GP_PERM_POSEIDON2_BABYBEAR_24)
        GP_PERM_LABEL(GP_PERM_POSEIDON2_KOALABEAR_16)
        GP_PERM_LABEL(GP_PERM_POSEIDON2_KOALABEAR_24)
        GP_PERM_LABEL(GP_PERM_RPO256)
        GP_PERM_LABEL(GP_PERM_RPX256)
        GP_PERM_LABEL(GP_PERM_POSEIDON_GOLDILOCKS_12)
        GP_PERM_LABEL(GP_PERM_TIP5)
        GP_PERM_LABEL(GP_PERM_KECCAK_F1600)
        GP_PERM_LABEL(GP_PERM_POSEIDON2_BABYBEAR_32)
        GP_PERM_LABEL(GP_PERM_POSEIDON2_KOALABEAR_32)
        GP_PERM_LABEL(GP_PERM_POSEIDON2_BABYBEAR_HL_16)
        GP_PERM_LABEL(GP_PERM_POSEIDON2_BABYBEAR_HL_24)
        GP_PERM_LABEL(GP_PERM_POSEIDON2_GOLDILOCKS_HL_12)
        GP_PERM_LABEL(GP_PERM_BLAKE3)
        GP_PERM_LABEL(GP_PERM_SHA3_256)
        GP_PERM_LABEL(GP_PERM_BLAKE3_192)
        GP_PERM_LABEL(GP_PERM_RP64_256)
        GP_PERM_LABEL(GP_PERM_POSEIDON2_KOALABEAR_16_SP1)
        GP_PERM_LABEL(GP_PERM_POSEIDON2_BABYBEAR_16_SP1)
#undef GP_PERM_LABEL
        default: return std::to_string(id);
    }
}

PermShape perm_shape(int id, const char *arg) {
    PermShape p{0, 0};
    // The byte hashes: the state of their compression (BLAKE3's 16 32-bit
    // words) or permutation (SHA3-256's 25 Keccak-f lanes).
    if (id == GP_PERM_BLAKE3 || id == GP_PERM_BLAKE3_192) return PermShape{16, 4};
    if (id == GP_PERM_SHA3_256) return PermShape{25, 8};
    bool known = perm::dispatch(id, [&](auto P) {
        p.width = (uint32_t)decltype(P)::WIDTH;
        p.elem_size = (uint32_t)sizeof(typename decltype(P)::T);
    });
    if (!known) fail(GP_ERR_INVALID_ARGUMENT, arg, " = ", id, " is not a gp_permutation");
    return p;
}

}  // namespace gp
