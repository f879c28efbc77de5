// SPDX-License-Identifier: MIT OR Apache-2.0
// A session's connection, as the session loop sees it: the gRPC Session
// stream, or the direct transport (remote/frame.h) on a socket of the
// server's own listeners. Both carry the same Request and Reply messages;
// the direct one carries bulk bytes beside them (a Put's data, a Reply's
// data) so that they are neither copied into nor parsed out of a message.
#pragma once

#include <grpcpp/grpcpp.h>

#include "gpuprover.grpc.pb.h"

#include <atomic>
#include <cstdint>
#include <mutex>
#include <string>
#include <vector>

#include "gpuprover.pb.h"

namespace gp {
namespace server {

namespace v1 = ::gpuprover::v1;

enum class LinkRead {
    message,  // a request's bytes (and, direct, its payload)
    end,      // the stream ended (or was lost)
    broken    // the framing is lost: answer as malformed, then end
};

class Link {
public:
    virtual ~Link() = default;
    // The next request: its serialized message, and bulk bytes beside it
    // (direct only; empty otherwise).
    virtual LinkRead read(std::string &message, std::string &payload) = 0;
    // Writes a reply. The direct link sends r's data as the payload (it
    // moves it out and back, so r is unchanged afterwards).
    virtual bool write(v1::Reply &r) = 0;
    // The client went away, or the call was cancelled.
    virtual bool cancelled() = 0;
    // Ends the connection: a blocked read or write returns.
    virtual void cancel() = 0;
    // A payload string no longer needed, for the next read to reuse (its
    // capacity, not its bytes).
    virtual void recycle(std::string &&) {}
    // Why the last read was LinkRead::broken ("" where no more is known).
    virtual std::string why_broken() const { return std::string(); }
};

using GrpcStream = grpc::ServerReaderWriter<grpc::ByteBuffer, grpc::ByteBuffer>;

class GrpcLink final : public Link {
public:
    GrpcLink(grpc::ServerContext *ctx, GrpcStream *stream) : ctx_(ctx), stream_(stream) {}
    LinkRead read(std::string &message, std::string &payload) override;
    bool write(v1::Reply &r) override;
    bool cancelled() override { return ctx_->IsCancelled(); }
    void cancel() override { ctx_->TryCancel(); }

private:
    grpc::ServerContext *ctx_;
    GrpcStream *stream_;
};

// The direct transport on connected socket `fd` (the caller's; not closed
// here). Frames of at most max_message + max_payload bytes.
class DirectLink final : public Link {
public:
    DirectLink(int fd, uint32_t max_message, uint64_t max_payload)
        : fd_(fd), max_message_(max_message), max_payload_(max_payload) {}
    LinkRead read(std::string &message, std::string &payload) override;
    bool write(v1::Reply &r) override;
    bool cancelled() override;
    void cancel() override;
    void recycle(std::string &&s) override;
    std::string why_broken() const override { return why_; }

private:
    std::string why_;
    int fd_;
    uint32_t max_message_;
    uint64_t max_payload_;
    std::atomic<bool> gone_{false};
    std::mutex spare_mu_;
    std::vector<std::string> spare_;  // payload strings to read into again
};

}  // namespace server
}  // namespace gp
