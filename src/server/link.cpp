// SPDX-License-Identifier: MIT OR Apache-2.0
#include "server/link.h"

#include <poll.h>
#include <sys/socket.h>

#include "remote/frame.h"

namespace gp {
namespace server {

LinkRead GrpcLink::read(std::string &message, std::string &payload) {
    payload.clear();
    grpc::ByteBuffer bb;
    if (!stream_->Read(&bb)) return LinkRead::end;
    std::vector<grpc::Slice> slices;
    message.clear();
    if (!bb.Dump(&slices).ok()) return LinkRead::message;  // an empty string: no request
    for (const auto &s : slices) message.append(reinterpret_cast<const char *>(s.begin()), s.size());
    return LinkRead::message;
}

bool GrpcLink::write(v1::Reply &r) {
    grpc::ByteBuffer bb;
    bool own = false;
    return grpc::GenericSerialize<grpc::ProtoBufferWriter, v1::Reply>(r, &bb, &own).ok() && stream_->Write(bb);
}

LinkRead DirectLink::read(std::string &message, std::string &payload) {
    uint32_t mb = 0;
    uint64_t pb = 0;
    switch (frame::read_header(fd_, max_message_, max_payload_, mb, pb)) {
        case frame::Read::ok: break;
        case frame::Read::oversize:
            why_ = "a frame of " + std::to_string(mb) + " message and " + std::to_string(pb) +
                   " payload bytes exceeds the server's limits of " + std::to_string(max_message_) + " and " +
                   std::to_string(max_payload_) + " bytes; the session ends";
            return LinkRead::broken;
        case frame::Read::malformed:
            why_ = "a frame whose reserved word is not 0; the session ends";
            return LinkRead::broken;
        default: gone_ = true; return LinkRead::end;
    }
    {
        std::lock_guard<std::mutex> lock(spare_mu_);
        if (pb && !spare_.empty()) {
            payload.swap(spare_.back());
            spare_.pop_back();
        }
    }
    if (!frame::read_string(fd_, message, mb) || !frame::read_string(fd_, payload, pb)) {
        gone_ = true;
        return LinkRead::end;
    }
    return LinkRead::message;
}

bool DirectLink::write(v1::Reply &r) {
    std::string data;
    data.swap(*r.mutable_data());
    std::string message;
    const bool serialized = r.SerializeToString(&message);
    const bool ok = serialized && frame::write_frame(fd_, message, data.data(), data.size());
    data.swap(*r.mutable_data());
    if (!ok) gone_ = true;
    return ok;
}

bool DirectLink::cancelled() {
    if (gone_) return true;
    pollfd p{fd_, POLLRDHUP, 0};
    if (poll(&p, 1, 0) > 0 && (p.revents & (POLLRDHUP | POLLHUP | POLLERR | POLLNVAL))) gone_ = true;
    return gone_;
}

void DirectLink::cancel() {
    gone_ = true;
    shutdown(fd_, SHUT_RDWR);
}

void DirectLink::recycle(std::string &&s) {
    if (s.capacity() == 0) return;
    std::lock_guard<std::mutex> lock(spare_mu_);
    if (spare_.size() < 2) spare_.push_back(std::move(s));
}

}  // namespace server
}  // namespace gp
