// SPDX-License-Identifier: MIT OR Apache-2.0
// SP1's shape-bound commitment of a field-sponge tree (slop merkle-tree
// p3sync.rs, checked by tcs.rs's verifier): the root compressed with the
// sponge hash of the two elements [log2 height, total width], with the
// tree's own sponge and compression. Host-only: one permutation and one
// compression on the tree's root.
#include "core/merkle_bind.h"

#include <cstring>
#include <type_traits>
#include <vector>

#include "core/checks.h"
#include "core/merkle_ops.h"
#include "core/merkle_tree.h"

namespace gp {

namespace {
template <class H>
struct IsFieldSponge : std::false_type {};
template <class P, class C>
struct IsFieldSponge<FieldSpongeHasher<P, C>> : std::true_type {};

// The cursor FieldSpongeHasher::absorb reads a row from.
template <class T>
struct ArrayCursor {
    const T *p;
    T next() { return *p++; }
};
}  // namespace

void sp1_commitment(const MerkleTree &t, void *out) {
    if (t.spec.kind != GP_MERKLE_FIELD_SPONGE)
        fail(GP_ERR_UNSUPPORTED, "the tree's kind is ", merkle_kind_name(t.spec.kind),
             ": SP1's commitment binds a GP_MERKLE_FIELD_SPONGE tree (Plonky3's sponge and compression)");
    if (!t.one_height)
        fail(GP_ERR_UNSUPPORTED,
             "the tree commits matrices of several heights: SP1 commits tensors of one height, whose log2 it binds");
    const gp_field field = (gp_field)t.spec.field;
    const FieldDesc &f = field_desc(field);
    const uint64_t width = t.row_bytes / t.spec.word_size;
    if (width >= f.modulus)
        fail(GP_ERR_INVALID_ARGUMENT, "the tree's width (", width, " elements) is not a field element of ", f.name);
    const uint64_t db = t.digest_bytes();
    std::vector<unsigned char> root(db);
    read_digests(t, t.log_h, db, root.data());
    tree_dispatch(t.spec, [&](auto h) {
        using H = decltype(h);
        if constexpr (IsFieldSponge<H>::value) {
            using T = typename H::T;
            if (h.rate < 2) fail(GP_ERR_UNSUPPORTED, "the sponge's rate is ", h.rate, ": below the two shape elements");
            const T shape[2] = {(T)t.log_h, (T)width};
            typename H::S s[H::kState];
            h.init(s, 2);
            ArrayCursor<T> c{shape};
            h.absorb(s, c, 2, 2);
            T meta[H::kState], r[H::kState], o[H::kState];
            h.squeeze(s, meta);
            std::memcpy(r, root.data(), db);
            h.compress(r, meta, o);
            std::memcpy(out, o, db);
        }
    });
}

}  // namespace gp
