// SPDX-License-Identifier: MIT OR Apache-2.0
// Shared by the remote backend (client) and gpuprover-server: the protocol
// version, and the core objects to and from their messages
// (proto/gpuprover.proto).
#pragma once

#include <cstdint>

#include "core/core.h"
#include "gpuprover.pb.h"

namespace gp {
namespace wire {

namespace v1 = ::gpuprover::v1;

// The protocol version this build speaks (Hello.version).
constexpr uint32_t kVersion = 1;
// Bytes of host data per Put/Get message on TCP.
constexpr uint64_t kChunkBytes = 8ull << 20;
// The largest message either side accepts by default.
constexpr int kMaxMessageBytes = 64 << 20;
// The most randomizer addend one Lde request carries (Lde.rand_add).
constexpr uint64_t kMaxRandAddBytes = 16ull << 20;

inline void put_buffer(const Buffer &b, v1::BufferRef *r) {
    r->set_field((int)b.field->id);
    r->set_ext(b.ext);
    r->set_rows(b.rows);
    r->set_cols(b.cols);
    r->set_addr(reinterpret_cast<uint64_t>(b.data));
    r->set_stride(b.stride);
}

inline void put_spec(const TreeSpec &s, v1::TreeSpec *r) {
    r->set_kind(s.kind);
    r->set_perm(s.perm);
    r->set_field(s.field);
    r->set_compress_perm(s.compress_perm);
    r->set_rate(s.rate);
    r->set_digest(s.digest);
    r->set_word_size(s.word_size);
}

inline TreeSpec get_spec(const v1::TreeSpec &r) {
    TreeSpec s;
    s.kind = r.kind();
    s.perm = r.perm();
    s.field = r.field();
    s.compress_perm = r.compress_perm();
    s.rate = r.rate();
    s.digest = r.digest();
    s.word_size = r.word_size();
    return s;
}

inline bool same_spec(const TreeSpec &a, const TreeSpec &b) {
    return a.kind == b.kind && a.perm == b.perm && a.field == b.field && a.compress_perm == b.compress_perm &&
           a.rate == b.rate && a.digest == b.digest && a.word_size == b.word_size;
}

inline void put_tree(const MerkleTree &t, v1::TreeRef *r) {
    put_spec(t.spec, r->mutable_spec());
    r->set_cap_height(t.cap_height);
    r->set_log_h(t.log_h);
    r->set_nodes(reinterpret_cast<uint64_t>(t.nodes));
    for (const Buffer *b : t.committed) put_buffer(*b, r->add_committed());
}

}  // namespace wire
}  // namespace gp
