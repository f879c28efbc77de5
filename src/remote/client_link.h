// SPDX-License-Identifier: MIT OR Apache-2.0
// A session's connection, as the remote backend sees it: the direct
// transport (remote/frame.h; the default) or the gRPC Session stream
// (GPUPROVER_TRANSPORT=grpc). Both carry the same messages; the direct one
// carries a Put's data and a Reply's data beside the message, written from
// and read into the caller's memory.
#pragma once

#include <cstdint>
#include <memory>
#include <string>

#include "gpuprover.pb.h"
#include "remote/endpoint.h"

namespace gp {

namespace v1 = ::gpuprover::v1;

class ClientLink {
public:
    virtual ~ClientLink() = default;
    // Sends q; a Put's data is `payload` (n bytes) when n > 0 (q's own data
    // field is then empty). One writer at a time.
    virtual bool write(v1::Request &q, const void *payload, uint64_t n) = 0;
    // The next reply. Its data goes straight to `sink` when it has exactly
    // sink_bytes bytes (then *sunk is set and r.data() stays empty), else
    // into r.data(). One reader at a time, beside a writer.
    virtual bool read(v1::Reply &r, void *sink, uint64_t sink_bytes, bool *sunk) = 0;
    // Ends the connection: a blocked read or write returns.
    virtual void cancel() = 0;
    // After cancel() or a failed read: what the transport says went wrong
    // ("" if nothing).
    virtual std::string finish() = 0;
    // Closes a connection still open: tells the server the stream ends.
    virtual void close() = 0;
};

// Whether GPUPROVER_TRANSPORT asks for gRPC ("grpc"); anything else (unset,
// "direct") means the direct transport. Throws GP_ERR_INVALID_ARGUMENT for
// an unknown value.
bool transport_is_grpc();

// A direct connection to one endpoint (every address of a TCP name in
// turn), within timeout_ms; throws GP_ERR_REMOTE when none answers.
std::unique_ptr<ClientLink> connect_direct(const Endpoint &e, int timeout_ms);

}  // namespace gp
