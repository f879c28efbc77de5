// Merkle tree steps shared by the CPU and CUDA backends (host+device code):
// Plonky3's PaddingFreeSponge over matrix rows and TruncatedPermutation of two
// digests, on any permutation type of hash/permutations.h.
#pragma once

#include <cstdint>
#include <vector>

#include "math/field.h"

namespace gp {

// A matrix as the tree reads it: base columns of `rows` contiguous elements.
template <class T>
struct MatView {
    const T *data;
    uint64_t rows;
    uint64_t base_cols;
};

// Host side: the views of a request's matrices (Buf has data, rows and
// base_cols()).
template <class T, class Buf>
std::vector<MatView<T>> make_mat_views(const std::vector<const Buf *> &mats) {
    std::vector<MatView<T>> v;
    v.reserve(mats.size());
    for (const Buf *m : mats) v.push_back({static_cast<const T *>(m->data), m->rows, m->base_cols()});
    return v;
}

// Sponge (overwrite mode, no padding) over row `row` of matrices
// [m0, m1): all their base columns in order. A short last chunk overwrites
// only its own elements; out = state[0, digest).
template <class P>
GP_HD void merkle_hash_row(const MatView<typename P::T> *mats, uint32_t m0, uint32_t m1, uint64_t row,
                           uint32_t rate, uint32_t digest, typename P::T *out) {
    using T = typename P::T;
    T s[P::WIDTH];
    for (int k = 0; k < P::WIDTH; ++k) s[k] = 0;
    uint32_t pos = 0;
    for (uint32_t m = m0; m < m1; ++m) {
        const MatView<T> &v = mats[m];
        for (uint64_t j = 0; j < v.base_cols; ++j) {
            s[pos++] = v.data[j * v.rows + row];
            if (pos == rate) {
                P::apply(s);
                pos = 0;
            }
        }
    }
    if (pos > 0) P::apply(s);
    for (uint32_t k = 0; k < digest; ++k) out[k] = s[k];
}

// Compression of two digests: permute (left || right || 0...), keep `digest`.
template <class P>
GP_HD void merkle_compress(const typename P::T *left, const typename P::T *right, uint32_t digest,
                           typename P::T *out) {
    using T = typename P::T;
    T s[P::WIDTH];
    for (int k = 0; k < P::WIDTH; ++k) s[k] = 0;
    for (uint32_t k = 0; k < digest; ++k) {
        s[k] = left[k];
        s[digest + k] = right[k];
    }
    P::apply(s);
    for (uint32_t k = 0; k < digest; ++k) out[k] = s[k];
}

// Node i of a layer above the leaves: compress its two children, then, when
// matrices [m0, m1) have this layer's height, compress with their row hash.
template <class P>
GP_HD void merkle_node(const typename P::T *children, uint64_t i, const MatView<typename P::T> *mats,
                       uint32_t m0, uint32_t m1, uint32_t rate, uint32_t digest, typename P::T *out) {
    using T = typename P::T;
    T node[P::WIDTH / 2];
    merkle_compress<P>(children + (2 * i) * digest, children + (2 * i + 1) * digest, digest, node);
    if (m0 < m1) {
        T rows[P::WIDTH / 2];
        merkle_hash_row<P>(mats, m0, m1, i, rate, digest, rows);
        merkle_compress<P>(node, rows, digest, node);
    }
    for (uint32_t k = 0; k < digest; ++k) out[k] = node[k];
}

// Digest offset (in digests) of layer k of a tree with 2^log_h leaves:
// layers are stored leaves first, each half the one before.
GP_HD uint64_t merkle_layer_offset(uint32_t log_h, uint32_t k) {
    return ((1ull << log_h) * 2) - ((1ull << log_h) >> k) * 2;
}

}  // namespace gp
