// SPDX-License-Identifier: MIT OR Apache-2.0
// GP_PLUGIN_EXPORT marks the few internal declarations the remote plugin
// (libgpuprover-remote.so, src/remote/plugin.h) calls in libgpuprover.so:
// the library is compiled with hidden visibility, and these must reach the
// dynamic symbol table, where cmake/gpuprover.map exports exactly them under
// the version node GPUPROVER_PRIVATE (no other program may rely on them).
#pragma once

#define GP_PLUGIN_EXPORT __attribute__((visibility("default")))
