// SPDX-License-Identifier: MIT OR Apache-2.0
// Naive references for Triton VM's conventions (Neptune-Crypto/twenty-first
// v2.0.2, TritonVM/triton-vm v7.0.0), written from their definitions and
// independent of the library's own code paths:
//  - Tip5 hash_varlen / hash_pair and twenty-first's MerkleTree, built on the
//    library's Tip5 permutation (itself checked against twenty-first's
//    known answers in test_hash_misc.cpp);
//  - XFieldElement arithmetic, Goldilocks[X] / (X^3 - X + 1), schoolbook
//    product reduced with X^3 = X - 1 and X^4 = X^2 - X.
#pragma once

#include <gtest/gtest.h>

#include <array>
#include <cstdint>
#include <vector>

#include "gpuprover.h"
#include "test_util.h"

namespace gpt {

// twenty-first's Tip5 (twenty-first/src/tip5/mod.rs and util_types/sponge.rs)
// from the permutation: hash_varlen = zero state, overwrite-absorb 10-element
// chunks of input || 1 || zeros, permute after each, digest state[0..5];
// hash_pair = left || right || [1; 6], permute, state[0..5]. MerkleTree:
// node = hash_pair(left child, right child).
class TritonReference {
public:
    using Digest = std::vector<uint64_t>;
    explicit TritonReference(gp_context *cpu) : cpu_(cpu) {}
    Digest hash(std::vector<uint64_t> e) const {
        e.push_back(1);
        while (e.size() % 10) e.push_back(0);
        Digest st(16, 0);
        for (size_t i = 0; i < e.size(); i += 10) {
            for (int k = 0; k < 10; ++k) st[k] = e[i + k];
            permute(st);
        }
        return Digest(st.begin(), st.begin() + 5);
    }
    Digest compress(const Digest &l, const Digest &r) const {
        Digest st(16, 1);
        for (int k = 0; k < 5; ++k) {
            st[k] = l[k];
            st[5 + k] = r[k];
        }
        permute(st);
        return Digest(st.begin(), st.begin() + 5);
    }
    // Every layer of MerkleTree::par_new(leaves) (layer 0 = the leaves) for a
    // power-of-two number of leaves, and its root.
    std::vector<std::vector<Digest>> layers(std::vector<Digest> leaves) const {
        std::vector<std::vector<Digest>> out{std::move(leaves)};
        while (out.back().size() > 1) {
            std::vector<Digest> next;
            const std::vector<Digest> &below = out.back();
            for (size_t i = 0; i < below.size(); i += 2) next.push_back(compress(below[i], below[i + 1]));
            out.push_back(std::move(next));
        }
        return out;
    }
    Digest root(std::vector<Digest> leaves) const { return layers(std::move(leaves)).back()[0]; }

private:
    void permute(Digest &st) const {
        ASSERT_EQ(gp_permute_batch(cpu_, GP_PERM_TIP5, st.data(), 1), GP_OK) << gp_last_error();
    }
    gp_context *cpu_;
};

// twenty-first's XFieldElement: [c0, c1, c2] = c0 + c1 X + c2 X^2 modulo
// the Shah polynomial X^3 - X + 1.
struct Xfe {
    static constexpr uint64_t P = 0xffffffff00000001ull;
    std::array<uint64_t, 3> c{};

    static Xfe of(uint64_t a, uint64_t b = 0, uint64_t d = 0) {
        Xfe r;
        r.c = {a, b, d};
        return r;
    }
    Xfe operator+(const Xfe &o) const {
        return of(add_mod(c[0], o.c[0], P), add_mod(c[1], o.c[1], P), add_mod(c[2], o.c[2], P));
    }
    Xfe operator-(const Xfe &o) const {
        return of(sub_mod(c[0], o.c[0], P), sub_mod(c[1], o.c[1], P), sub_mod(c[2], o.c[2], P));
    }
    Xfe scale(uint64_t s) const { return of(mul_mod(c[0], s, P), mul_mod(c[1], s, P), mul_mod(c[2], s, P)); }
    Xfe operator*(const Xfe &o) const {
        uint64_t t[5] = {0, 0, 0, 0, 0};
        for (int i = 0; i < 3; ++i)
            for (int j = 0; j < 3; ++j) t[i + j] = add_mod(t[i + j], mul_mod(c[i], o.c[j], P), P);
        // X^3 = X - 1, X^4 = X^2 - X
        return of(sub_mod(t[0], t[3], P), sub_mod(add_mod(t[1], t[3], P), t[4], P), add_mod(t[2], t[4], P));
    }
    bool operator==(const Xfe &o) const { return c == o.c; }
    static Xfe at(const std::vector<uint64_t> &v, uint64_t i) { return of(v[3 * i], v[3 * i + 1], v[3 * i + 2]); }
    void put(std::vector<uint64_t> &v, uint64_t i) const {
        for (int k = 0; k < 3; ++k) v[3 * i + k] = c[k];
    }
};

}  // namespace gpt
