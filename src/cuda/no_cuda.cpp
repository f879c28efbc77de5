// SPDX-License-Identifier: MIT OR Apache-2.0
// Built when the library is configured without CUDA.
#include "core/core.h"

namespace gp {

std::unique_ptr<Backend> make_cuda_backend(int, unsigned, std::string &why) {
    why = "this build of gpuprover has no CUDA backend (configured with GP_ENABLE_CUDA=OFF, or no nvcc was found)";
    return nullptr;
}

int cuda_device_count() { return 0; }

}  // namespace gp
