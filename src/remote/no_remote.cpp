// SPDX-License-Identifier: MIT OR Apache-2.0
// Built when the library is configured without gRPC (GP_ENABLE_REMOTE=OFF,
// or gRPC/protobuf not found).
#include "core/core.h"

namespace gp {

std::unique_ptr<Backend> make_remote_backend(const RemoteOptions &o) {
    fail(GP_ERR_UNSUPPORTED, "endpoint \"", o.endpoint,
         "\": this build of gpuprover has no remote backend (configured without gRPC)");
}

}  // namespace gp
