// SPDX-License-Identifier: MIT OR Apache-2.0
// The interface between libgpuprover.so and its remote plugin,
// libgpuprover-remote.so (the gRPC client of gpuprover-server). The core
// library links no RPC library: the first GP_BACKEND_REMOTE context (or
// GP_BACKEND_AUTO with GPUPROVER_SERVER set) loads the plugin
// (remote/remote_loader.cpp), whose one exported function makes the remote
// backend (remote/plugin_entry.cpp). Both sides are built from the same
// sources in the same build, so the plugin may use the core's internal C++
// types; the loader refuses a plugin of another version.
#pragma once

#include <cstddef>

#include "core/core.h"

namespace gp {

// The plugin's entry point: makes the backend for `o` into *out (owned by the
// caller, destroyed through Backend's virtual destructor). Never throws:
// returns GP_OK, or a status with its message in msg (NUL-terminated,
// truncated to msg_len). `version` is the loading library's
// GP_PLUGIN_VERSION; another version is refused with GP_ERR_UNSUPPORTED.
using RemotePluginMake = gp_status (*)(const char *version, const RemoteOptions *o, Backend **out, char *msg,
                                       size_t msg_len);

inline constexpr const char *kRemotePluginSymbol = "gp_remote_plugin_make_v1";
// The environment variable naming the plugin's path (overrides the search).
inline constexpr const char *kRemotePluginEnv = "GPUPROVER_REMOTE_PLUGIN";

}  // namespace gp
