// SPDX-License-Identifier: MIT OR Apache-2.0
// make_remote_backend in libgpuprover.so: loads the remote plugin
// (remote/plugin.h) on first use, so that the core library links no RPC
// library and an in-process context never loads one. The plugin is
// $GPUPROVER_REMOTE_PLUGIN when set, else libgpuprover-remote.so.VERSION in
// the directory libgpuprover.so was loaded from (or that of the file a
// symbolic link to it points at), else that name on the
// dynamic loader's search path. It stays loaded for the process's life.
#include <dlfcn.h>

#include <algorithm>
#include <cstdlib>
#include <mutex>
#include <string>
#include <vector>

#include "remote/plugin.h"

namespace gp {
namespace {

// The directories libgpuprover.so was loaded from: the one of the path it
// was opened by, then, when that is a symbolic link (as cargo links the
// library into its build directories), the one of the file itself.
std::vector<std::string> own_directories() {
    std::vector<std::string> dirs;
    Dl_info info{};
    if (!dladdr(reinterpret_cast<void *>(&own_directories), &info) || !info.dli_fname) return dirs;
    auto add_dir_of = [&](const std::string &path) {
        const size_t slash = path.rfind('/');
        if (slash == std::string::npos) return;
        std::string dir = path.substr(0, slash + 1);
        if (std::find(dirs.begin(), dirs.end(), dir) == dirs.end()) dirs.push_back(std::move(dir));
    };
    add_dir_of(info.dli_fname);
    if (char *real = realpath(info.dli_fname, nullptr)) {
        add_dir_of(real);
        std::free(real);
    }
    return dirs;
}

struct Plugin {
    RemotePluginMake make = nullptr;
    std::string why;  // when make is null: what was tried and what failed
};

Plugin load() {
    Plugin p;
    std::string tried;  // why each path failed, "; "-separated
    auto failed = [&](const std::string &why) {
        tried += (tried.empty() ? "" : "; ") + why;
        return false;
    };
    auto attempt = [&](const std::string &path) -> bool {
        dlerror();
        void *h = dlopen(path.c_str(), RTLD_NOW | RTLD_LOCAL);
        if (!h) {
            const char *e = dlerror();
            return failed(e ? e : path + ": cannot be loaded");
        }
        p.make = reinterpret_cast<RemotePluginMake>(dlsym(h, kRemotePluginSymbol));
        if (!p.make) {
            dlclose(h);
            return failed(path + " has no " + kRemotePluginSymbol);
        }
        return true;
    };
    if (const char *env = std::getenv(kRemotePluginEnv); env && *env) {
        if (!attempt(env)) p.why = std::string(kRemotePluginEnv) + "=" + env + ": " + tried;
        return p;
    }
    const std::string file = std::string("libgpuprover-remote.so.") + GP_PLUGIN_VERSION;
    std::string where;
    for (const std::string &dir : own_directories()) {
        if (attempt(dir + file)) return p;
        where += (where.empty() ? "" : ", ") + dir;
    }
    if (attempt(file)) return p;
    p.why = "the remote backend's plugin " + file + " is not installed next to libgpuprover (" +
            (where.empty() ? std::string("?") : where) + ") nor on the library path (" + tried +
            "); install it, or set " + kRemotePluginEnv + " to its path";
    return p;
}

}  // namespace

std::unique_ptr<Backend> make_remote_backend(const RemoteOptions &o) {
    // A plugin once loaded is kept; a failed search is tried again by the
    // next remote context (the plugin may have been installed meanwhile).
    static std::mutex mu;
    static Plugin plugin;
    RemotePluginMake make;
    {
        std::lock_guard<std::mutex> lock(mu);
        if (!plugin.make) plugin = load();
        if (!plugin.make) fail(GP_ERR_UNSUPPORTED, "endpoint \"", o.endpoint, "\": ", plugin.why);
        make = plugin.make;
    }
    Backend *b = nullptr;
    char msg[1024] = {0};
    const gp_status s = make(GP_PLUGIN_VERSION, &o, &b, msg, sizeof msg);
    if (s != GP_OK) throw Error(s, msg);
    if (!b) fail(GP_ERR_INTERNAL, "the remote plugin made no backend");
    return std::unique_ptr<Backend>(b);
}

}  // namespace gp
