// SPDX-License-Identifier: MIT OR Apache-2.0
// What every C shim shares: the thread-local error message, `guard` (runs
// the body, turns exceptions into a status and message), reading option
// structs by their struct_size, and the checks of handles from C.
#pragma once

#include <cstring>
#include <new>
#include <string>
#include <vector>

#include "core/checks.h"
#include "core/core.h"
#include "core/monitor.h"
#include "core/registry.h"
#include "gpuprover.h"

#define GP_EXPORT extern "C" GP_API

namespace gp {

// Records `msg` as gp_last_error() of this thread and returns `s`.
gp_status set_error(gp_status s, const std::string &msg);
// Clears gp_last_error() of this thread.
void clear_error();
const char *last_error();

// One public call as guard() runs it: an NVTX range named after the entry
// point, its wall time, and its accounting on the context it entered
// (counters, the log callback). Restores the record of an enclosing call
// (a library call made from a callback).
class CallScope {
public:
    explicit CallScope(const char *fname);
    ~CallScope();
    CallScope(const CallScope &) = delete;
    CallScope &operator=(const CallScope &) = delete;
    gp_status finish(gp_status st);

private:
    const char *fname_;
    uint64_t t0_;
    CallRecord saved_;
};

// Runs fn, turning exceptions into a status and message. A call that
// succeeds leaves gp_last_error() empty, even when fn called the library
// (a callback's call) and that call failed.
template <class Fn>
gp_status guard(const char *fname, Fn &&fn) {
    CallScope scope(fname);
    try {
        clear_error();
        fn();
        clear_error();
        return scope.finish(GP_OK);
    } catch (...) {
        std::string message;
        const gp_status s = exception_status(message);
        return scope.finish(set_error(s, std::string(fname) + ": " + message));
    }
}

// Runs fn for a destroy function: no status to return, so exceptions are
// swallowed, and the call is not counted (its context may be gone). A
// destroy that is refused (from inside a progress callback, say) leaves
// its reason as gp_last_error(); otherwise gp_last_error() keeps the
// message of the last failed call.
template <class Fn>
void quietly(const char *fname, Fn &&fn) {
    CallScope scope(fname);
    try {
        fn();
    } catch (const Error &e) {
        try {
            set_error(error_status(e), std::string(fname) + ": " + e.what());
        } catch (...) {
        }
    } catch (...) {
    }
}

void check_struct_size(uint32_t got, const char *what);

// Copies the caller's options struct over defaults, honouring struct_size so
// that older callers with shorter structs keep working.
template <class Opt>
Opt read_options(const Opt *user, void (*init)(Opt *), const char *what) {
    Opt o;
    init(&o);
    if (user) {
        check_struct_size(user->struct_size, what);
        size_t n = user->struct_size < sizeof(Opt) ? user->struct_size : sizeof(Opt);
        std::memcpy(&o, user, n);
        o.struct_size = sizeof(Opt);
    }
    return o;
}

// Handles and the objects behind them.
inline Context *ctx_of(gp_context *c) { return reinterpret_cast<Context *>(c); }
inline const Context *ctx_of(const gp_context *c) { return reinterpret_cast<const Context *>(c); }
inline Buffer *buf_of(gp_buffer *b) { return reinterpret_cast<Buffer *>(b); }
inline const Buffer *buf_of(const gp_buffer *b) { return reinterpret_cast<const Buffer *>(b); }
inline MerkleTree *tree_of(gp_merkle_tree *t) { return reinterpret_cast<MerkleTree *>(t); }
inline const MerkleTree *tree_of(const gp_merkle_tree *t) { return reinterpret_cast<const MerkleTree *>(t); }

// Throws GP_ERR_INVALID_ARGUMENT unless `b` is a live buffer and
// GP_ERR_CONTEXT_MISMATCH unless it belongs to `ctx` (whose call lock the
// caller holds).
void check_buffer(const gp_context *ctx, const gp_buffer *b, const char *arg);
// Validates `count` buffer handles (named `arg`[i]): non-null, of this
// context, of one field.
std::vector<const Buffer *> checked_matrices(gp_context *ctx, const gp_buffer *const *matrices, uint32_t count,
                                             const char *arg = "matrices");

// Checks LDE options for a rows x cols input of degree `ext` over `f`
// (api/lde.cpp); fills everything but the input and output.
LdeArgs lde_args(const FieldDesc &f, uint32_t ext, uint64_t rows, uint64_t cols, const gp_lde_options &o);
// The LDE output buffer `arg` of a validated request `a` (a.cols columns):
// live, of this context, of a's field and degree, n * blowup rows.
Buffer *checked_lde_output(gp_context *ctx, const LdeArgs &a, gp_buffer *output, const char *arg);

}  // namespace gp
