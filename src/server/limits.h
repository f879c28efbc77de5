// SPDX-License-Identifier: MIT OR Apache-2.0
// Every bound gpuprover-server puts on what a client may ask for or make it
// hold, in one place. docs/SERVER.md ("Limits") prints this table; a change
// here changes that page.
//
// Two kinds:
//  - request limits (constants): what one request may name. A request beyond
//    one is refused with GP_ERR_INVALID_ARGUMENT (or GP_ERR_SIZE_OVERFLOW)
//    before any backend call; nothing of the session changes.
//  - resource limits (ResourceLimits, from the command line): what all of a
//    client's requests together may make the server hold. When one is hit
//    the request or session is refused with a status that names the limit,
//    and the server keeps serving everyone else.
#pragma once

#include <cstdint>

namespace gp {
namespace server {

// ---- request limits ----

// No dimension (rows, tree height, transform size) exceeds 2^kMaxLog.
constexpr uint32_t kMaxLog = 40;
// Columns of one buffer.
constexpr uint64_t kMaxCols = 1ull << 32;
// Buffers one request names (matrices of a commitment, columns of OOD/DEEP).
constexpr uint64_t kMaxBuffers = 1ull << 16;
// Merkle openings in one request.
constexpr uint64_t kMaxIndices = 1ull << 20;
// FRI arity: 2, 4 or 8 (log 1..3), as the library folds.
constexpr uint32_t kMaxFriLogArity = 3;
// Bytes one reply may carry (rows and paths of MerkleOpen, OOD sums,
// ReadTree, Get): half the 64 MiB message limit of either side.
constexpr uint64_t kMaxReplyBytes = 32ull << 20;
// Bytes of one Get or ReadTree.
constexpr uint64_t kMaxChunkBytes = 16ull << 20;
// A shared window or region (client memory the server maps).
constexpr uint64_t kMaxSharedBytes = 1ull << 42;
// Session addresses of buffers, FRI layers and AddInto operands are
// multiples of the element size; a session's allocations start on 4 KiB.
// One request's buffers together may name at most this many times the
// bytes the session holds (a buffer named again and again would multiply
// the work of one job without holding memory).
constexpr uint64_t kMaxRepeat = 4;
// Relay sessions: how long a job waits for the client's answer to one of
// its Progress frames (Ack or Cancel); after that the request reports no
// more progress.
constexpr int kProgressAnswerMs = 30000;
// A new connection's first bytes (gRPC's preface, or the direct
// transport's, remote/frame.h) must come within this many milliseconds.
constexpr int kPrefaceMs = 10000;

// ---- resource limits ----

struct ResourceLimits {
    // Sessions open at once, on the whole server and per client (unix
    // sockets: per uid; TCP: per address).
    unsigned max_sessions = 256;
    unsigned max_sessions_per_client = 64;
    // Transport connections held at once, and per client.
    unsigned max_connections = 1024;
    unsigned max_connections_per_client = 256;
    // Connections to the shared-memory side socket waiting for their
    // descriptor, and per client; each gets `side_timeout_ms`.
    unsigned max_side_connections = 64;
    unsigned max_side_connections_per_client = 16;
    int side_timeout_ms = 2000;
    // Descriptors a session may hold attached (its window and regions), and
    // all sessions together (0: half the process's descriptor limit);
    // descriptors passed but not yet attached, per session and in all.
    unsigned max_regions_per_session = 256;
    unsigned max_descriptors = 0;
    unsigned max_pending_fds_per_session = 8;
    unsigned max_pending_fds = 64;
    // Bytes of replies held for clients at once: those being written, and
    // room reserved by requests whose replies may be large before they run
    // (a slow reader holds its share; the others wait).
    uint64_t max_reply_bytes_in_flight = 256ull << 20;
    // A session's private window (TCP clients), also counted in its quota.
    uint64_t max_private_window = 4ull << 30;
};

}  // namespace server
}  // namespace gp
