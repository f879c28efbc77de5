// SPDX-License-Identifier: MIT OR Apache-2.0
// The direct transport of a session (docs/SERVER.md, "Transports"): the
// same Request and Reply messages as the gRPC Session stream, framed on a
// plain stream socket, on the server's own listeners. A connection opens
// with the 8 bytes of kPreface (gRPC's begin with "PRI * HTTP/2.0", so the
// server tells them apart from the first bytes); then every message is a
// frame:
//
//   u32 message length (little endian) | u32 0 | u64 payload length
//   | the serialized message | the payload
//
// The payload carries the bulk bytes of a message beside it, so that they
// are neither copied into nor parsed out of the message: a Put's data (the
// Put's own data field then empty) and a Reply's data. Every other frame
// has an empty payload.
#pragma once

#include <cstddef>
#include <cstdint>
#include <string>

namespace gp {
namespace frame {

constexpr char kPreface[8] = {'G', 'P', 'D', 'I', 'R', 'E', 'C', '1'};
constexpr size_t kHeaderBytes = 16;

enum class Read {
    ok,
    end,       // the peer closed the connection before a frame began
    lost,      // a read failed, or the connection ended inside a frame
    oversize,  // a length beyond the limits given (nothing more was read)
    malformed  // the reserved word is not 0
};

// Writes everything, retrying on EINTR and short writes (MSG_NOSIGNAL: a
// closed peer is an error, not a signal). False when the connection failed.
bool write_all(int fd, const void *p, size_t n);
bool read_all(int fd, void *p, size_t n);

// One frame: header, `message`, then `n` payload bytes at `payload`.
bool write_frame(int fd, const std::string &message, const void *payload, uint64_t n);

// The header of the next frame, its lengths checked against the limits.
Read read_header(int fd, uint32_t max_message, uint64_t max_payload, uint32_t &message_bytes,
                 uint64_t &payload_bytes);

// Reads `n` bytes into `out` (resized to n); false when the connection failed.
bool read_string(int fd, std::string &out, uint64_t n);

}  // namespace frame
}  // namespace gp
