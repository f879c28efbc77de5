// SPDX-License-Identifier: MIT OR Apache-2.0
// NVTX ranges, so that Nsight Systems timelines name the library's calls and
// passes. Header-only NVTX3 from the CUDA toolkit; without it (CPU-only
// builds) the ranges compile to nothing.
#pragma once

#if defined(GP_HAVE_NVTX)
#include <nvtx3/nvToolsExt.h>
#endif

namespace gp {

inline void trace_push(const char *name) {
#if defined(GP_HAVE_NVTX)
    nvtxRangePushA(name);
#else
    (void)name;
#endif
}

inline void trace_pop() {
#if defined(GP_HAVE_NVTX)
    nvtxRangePop();
#endif
}

// A range for the lifetime of a scope.
struct TraceRange {
    explicit TraceRange(const char *name) { trace_push(name); }
    ~TraceRange() { trace_pop(); }
    TraceRange(const TraceRange &) = delete;
    TraceRange &operator=(const TraceRange &) = delete;
};

}  // namespace gp
