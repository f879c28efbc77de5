// Built when the library is configured without CUDA.
#include "core/core.h"

namespace gp {

std::unique_ptr<Backend> make_cuda_backend(int, unsigned, std::string &why) {
    why = "this build of gpuprover has no CUDA backend (configured without nvcc)";
    return nullptr;
}

}  // namespace gp
