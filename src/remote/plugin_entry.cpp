// SPDX-License-Identifier: MIT OR Apache-2.0
// libgpuprover-remote.so's one exported function (remote/plugin.h): the
// remote backend of remote/remote_backend.cpp, made without letting an
// exception cross the plugin's C boundary.
#include <cstdio>
#include <cstring>

#include "core/checks.h"
#include "remote/plugin.h"

extern "C" __attribute__((visibility("default"))) gp_status gp_remote_plugin_make_v1(
    const char *version, const gp::RemoteOptions *o, gp::Backend **out, char *msg, size_t msg_len) {
    auto say = [&](const char *text) {
        if (msg && msg_len) std::snprintf(msg, msg_len, "%s", text);
    };
    if (!version || std::strcmp(version, GP_PLUGIN_VERSION) != 0) {
        std::string m = std::string("libgpuprover-remote ") + GP_PLUGIN_VERSION + " does not match libgpuprover " +
                        (version ? version : "(none)");
        say(m.c_str());
        return GP_ERR_UNSUPPORTED;
    }
    try {
        *out = gp::make_remote_backend(*o).release();
        return GP_OK;
    } catch (...) {
        std::string m;
        const gp_status s = gp::exception_status(m);
        say(m.c_str());
        return s;
    }
}
