// SPDX-License-Identifier: MIT OR Apache-2.0
// The lean core library (src/remote/plugin.h): libgpuprover.so links no RPC
// library and an in-process context loads none; the remote backend comes from
// libgpuprover-remote.so on first use; without a usable plugin a remote
// context fails with GP_ERR_UNSUPPORTED and a message saying what to install,
// and GP_BACKEND_AUTO runs in process instead. Each test runs in a process of
// its own (gtest_discover_tests), so what one loads never hides another's.
#include <dlfcn.h>
#include <gtest/gtest.h>

#include <cstdlib>
#include <fstream>
#include <string>
#include <vector>

#include "gpuprover.h"
#include "remote/plugin.h"

namespace {

std::string maps() {
    std::ifstream f("/proc/self/maps");
    return std::string(std::istreambuf_iterator<char>(f), std::istreambuf_iterator<char>());
}

// The RPC libraries the plugin brings (gRPC, protobuf, abseil, OpenSSL, c-ares).
const char *const kRpcLibraries[] = {"libgrpc", "libprotobuf", "libabsl_", "libssl", "libcrypto", "libcares",
                                     "libgpuprover-remote"};

gp_status create(gp_backend backend, const char *endpoint, gp_context **ctx) {
    gp_context_options o;
    gp_context_options_init(&o);
    o.backend = backend;
    o.endpoint = endpoint;
    o.cpu_threads = 2;
    return gp_context_create(&o, ctx);
}

const char kNoServer[] = "unix:/nonexistent-gpuprover-dir/server.sock";

TEST(RemotePlugin, InProcessWorkLoadsNoRpcLibrary) {
    ::unsetenv("GPUPROVER_SERVER");
    for (const char *lib : kRpcLibraries) EXPECT_EQ(maps().find(lib), std::string::npos) << lib << " at start";
    gp_context *ctx = nullptr;
    ASSERT_EQ(create(GP_BACKEND_CPU, nullptr, &ctx), GP_OK) << gp_last_error();
    std::vector<uint64_t> col(16);
    for (size_t i = 0; i < col.size(); ++i) col[i] = i * 7 + 1;
    gp_buffer *in = nullptr, *out = nullptr;
    ASSERT_EQ(gp_buffer_from_host(ctx, GP_FIELD_GOLDILOCKS, 1, 16, 1, GP_LAYOUT_COL_MAJOR, col.data(), &in), GP_OK);
    ASSERT_EQ(gp_buffer_create(ctx, GP_FIELD_GOLDILOCKS, 1, 32, 1, &out), GP_OK);
    ASSERT_EQ(gp_lde_batch(ctx, in, nullptr, out), GP_OK) << gp_last_error();
    gp_buffer_destroy(out);
    gp_buffer_destroy(in);
    gp_context_destroy(ctx);
    // AUTO with no server configured stays in process too.
    ASSERT_EQ(create(GP_BACKEND_AUTO, nullptr, &ctx), GP_OK) << gp_last_error();
    gp_context_destroy(ctx);
    for (const char *lib : kRpcLibraries) EXPECT_EQ(maps().find(lib), std::string::npos) << lib << " was loaded";
}

TEST(RemotePlugin, MissingPluginIsRefusedClearly) {
    ASSERT_EQ(::setenv("GPUPROVER_REMOTE_PLUGIN", "/nonexistent-gpuprover-dir/libgpuprover-remote.so", 1), 0);
    gp_context *ctx = nullptr;
    EXPECT_EQ(create(GP_BACKEND_REMOTE, kNoServer, &ctx), GP_ERR_UNSUPPORTED);
    EXPECT_EQ(ctx, nullptr);
    const std::string msg = gp_last_error();
    EXPECT_NE(msg.find("GPUPROVER_REMOTE_PLUGIN=/nonexistent-gpuprover-dir/libgpuprover-remote.so"),
              std::string::npos)
        << msg;
    EXPECT_NE(msg.find(kNoServer), std::string::npos) << msg;
    // AUTO runs in process and says why the server was not used.
    ASSERT_EQ(create(GP_BACKEND_AUTO, kNoServer, &ctx), GP_OK) << gp_last_error();
    const char *why = gp_context_remote_fallback(ctx);
    ASSERT_NE(why, nullptr);
    EXPECT_NE(std::string(why).find("GPUPROVER_REMOTE_PLUGIN"), std::string::npos) << why;
    gp_context_destroy(ctx);
    ::unsetenv("GPUPROVER_REMOTE_PLUGIN");
}

TEST(RemotePlugin, NotAPluginIsRefused) {
    // A shared object without the entry point: the C library.
    ASSERT_EQ(::setenv("GPUPROVER_REMOTE_PLUGIN", "libc.so.6", 1), 0);
    gp_context *ctx = nullptr;
    EXPECT_EQ(create(GP_BACKEND_REMOTE, kNoServer, &ctx), GP_ERR_UNSUPPORTED);
    const std::string msg = gp_last_error();
    EXPECT_NE(msg.find("has no gp_remote_plugin_make_v1"), std::string::npos) << msg;
    ::unsetenv("GPUPROVER_REMOTE_PLUGIN");
}

TEST(RemotePlugin, LoadedOnFirstRemoteContext) {
    ::unsetenv("GPUPROVER_REMOTE_PLUGIN");
    EXPECT_EQ(maps().find("libgpuprover-remote"), std::string::npos);
    gp_context *ctx = nullptr;
    // The plugin (found next to libgpuprover.so) loads and tries the server.
    EXPECT_EQ(create(GP_BACKEND_REMOTE, kNoServer, &ctx), GP_ERR_REMOTE) << gp_last_error();
    EXPECT_NE(maps().find("libgpuprover-remote"), std::string::npos);
    EXPECT_NE(maps().find("libgrpc"), std::string::npos);
}

TEST(RemotePlugin, PluginOfAnotherVersionRefuses) {
    void *h = dlopen(GP_REMOTE_PLUGIN_PATH, RTLD_NOW | RTLD_LOCAL);
    ASSERT_NE(h, nullptr) << dlerror();
    auto make = reinterpret_cast<gp::RemotePluginMake>(dlsym(h, gp::kRemotePluginSymbol));
    ASSERT_NE(make, nullptr);
    char msg[256] = {0};
    gp::Backend *b = nullptr;
    EXPECT_EQ(make("0.0.0-other", nullptr, &b, msg, sizeof msg), GP_ERR_UNSUPPORTED);
    EXPECT_EQ(b, nullptr);
    EXPECT_NE(std::string(msg).find("does not match libgpuprover 0.0.0-other"), std::string::npos) << msg;
    EXPECT_EQ(make(nullptr, nullptr, &b, msg, sizeof msg), GP_ERR_UNSUPPORTED);
}

}  // namespace
