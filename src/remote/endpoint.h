// SPDX-License-Identifier: MIT OR Apache-2.0
// Server addresses as GPUPROVER_SERVER (and TRITON_VM_PROVER_SOCKET) take
// them: a unix socket path ("/tmp/gpu-prover.sock", "unix:/path"),
// "HOST:PORT", or several of those separated by commas.
#pragma once

#include <string>
#include <vector>

namespace gp {

struct Endpoint {
    bool is_unix = false;
    std::string path;       // unix socket
    std::string host, port; // TCP
    bool loopback = false;  // unix sockets and 127.0.0.0/8, ::1, localhost
    std::string target;     // the gRPC channel target
    std::string text;       // as written
};

// Throws GP_ERR_INVALID_ARGUMENT for an empty or malformed list.
std::vector<Endpoint> parse_endpoints(const std::string &s);

// One gRPC target spreading over several TCP endpoints (an "ipv4:" or
// "ipv6:" address list), or "" when they cannot share one channel.
std::string shared_target(const std::vector<Endpoint> &eps);

}  // namespace gp
