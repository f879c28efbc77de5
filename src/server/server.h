// SPDX-License-Identifier: MIT OR Apache-2.0
// gpuprover-server: the transport around the session core
// (session_core.h): gRPC on sockets the server accepts itself (unix and
// TCP), the shared-memory side socket, the metrics listener, a lock per
// socket path. main.cpp parses the command line.
#pragma once

#include <memory>
#include <string>

#include "server/session_core.h"

namespace gp {
namespace server {

class Server {
public:
    explicit Server(Config c);
    ~Server();
    // Listens; throws std::runtime_error when it cannot.
    void start();
    // Blocks until shutdown() (from a signal handler thread or a test).
    void wait();
    // Refuses new sessions, cancels running jobs after `grace_ms`, and
    // closes every session.
    void shutdown(int grace_ms);
    // The figures of the Stats call, in Prometheus text format.
    std::string prometheus() const;

    struct Impl;

private:
    std::unique_ptr<Impl> impl_;
};

// `gpuprover-server --status ENDPOINT`: prints the server's figures
// (`token`: what a TCP server with a token requires; "" for none).
int print_status(const std::string &endpoint, const std::string &token);

}  // namespace server
}  // namespace gp
