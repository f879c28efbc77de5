// SPDX-License-Identifier: MIT OR Apache-2.0
// C entry point: the one-call commitment of host traces.
#include <algorithm>
#include <string>

#include "api/common.h"
#include "core/lde_random.h"
#include "core/lde_root.h"
#include "core/commit_stream.h"

using namespace gp;

GP_EXPORT void gp_commit_options_init(gp_commit_options *o) {
    if (!o) return;
    std::memset(o, 0, sizeof(*o));
    o->struct_size = sizeof(*o);
    o->keep = GP_KEEP_DEVICE;
}

// Matrix i's randomizers (its columns' in options->lde->randomizers, after
// the earlier matrices'): validated as gp_lde_batch_host's, copied into the
// request. The streamed commitment adds them inside the backend's LDE only.
static void add_randomizers(gp_context *ctx, const FieldDesc &f, const gp_commit_matrix &m, uint32_t i,
                            const gp_lde_options &lo, CommitRequest &r) {
    const std::string at = "matrices[" + std::to_string(i) + "]";
    LdeArgs a = lde_args(f, m.ext_degree, m.rows, m.cols, lo);
    const uint64_t bytes = checked_mul(checked_mul(checked_mul(m.cols, m.ext_degree, "randomized columns"),
                                                   r.rand_m, "randomizer elements"),
                                       f.elem_size, "randomizer bytes");
    const uint64_t at_bytes = r.rand.size();
    const unsigned char *src = static_cast<const unsigned char *>(lo.randomizers) + at_bytes;
    try {
        check_randomizers(*ctx_of(ctx), a, src, r.rand_m);
    } catch (const Error &e) {  // the index within the whole array, the matrix named
        std::string msg = e.what();
        const size_t p = msg.find("options->");
        if (p != std::string::npos) msg.replace(p, 9, "options->lde->");
        throw Error(e.status, at + ": " + msg);
    }
    if (!lde_adds_randomizers(*ctx_of(ctx)->backend, a, r.rand_m))
        fail(GP_ERR_UNSUPPORTED, at, ": options->lde->randomizer_count = ", r.rand_m,
             ": gp_commit_host adds randomizers inside the LDE of a local device or the CPU, for at most n = ",
             1ull << a.log_n, " coefficients with blowup x count <= max(n, n x blowup / 8) (use gp_lde_batch_host "
             "and gp_merkle_commit)");
    r.mats.back().rand_at = at_bytes;
    r.rand.insert(r.rand.end(), src, src + bytes);
}

GP_EXPORT gp_status gp_commit_host(gp_context *ctx, gp_field field, const gp_commit_matrix *matrices,
                                   uint32_t count, const gp_commit_options *options, gp_buffer **lde_out,
                                   gp_merkle_tree **tree) {
    return guard("gp_commit_host", [&] {
        ContextCall call(ctx, HandleKind::Context, "ctx");
        GP_REQUIRE_PTR(tree);
        *tree = nullptr;
        const gp_commit_options o = read_options(options, gp_commit_options_init, "gp_commit_options");
        CommitRequest r;
        r.keep = raw(o.keep);
        if (r.keep != GP_KEEP_DEVICE && r.keep != GP_KEEP_HOST && r.keep != GP_KEEP_NONE)
            fail(GP_ERR_INVALID_ARGUMENT, "options->keep = ", r.keep, " is not a gp_keep");
        if (o.lde_into && r.keep != GP_KEEP_DEVICE)
            fail(GP_ERR_INVALID_ARGUMENT, "options->lde_into must be NULL unless options->keep is GP_KEEP_DEVICE");
        if (r.keep == GP_KEEP_DEVICE && !o.lde_into) {
            GP_REQUIRE_PTR(lde_out);
            for (uint32_t i = 0; i < count; ++i) lde_out[i] = nullptr;
        } else if (lde_out) {
            fail(GP_ERR_INVALID_ARGUMENT, o.lde_into ? "lde_out must be NULL when options->lde_into is given"
                                                     : "lde_out must be NULL unless options->keep is GP_KEEP_DEVICE");
        }
        GP_REQUIRE_PTR(matrices);
        if (count == 0) fail(GP_ERR_INVALID_ARGUMENT, "count = 0 (a tree needs at least one matrix)");
        const gp_lde_options lo = read_options(o.lde, gp_lde_options_init, "gp_lde_options");
        r.merkle = read_options(o.merkle, gp_merkle_options_init, "gp_merkle_options");
        if (lo.randomizers || lo.randomizer_count) {
            if (lo.randomizer_count == 0)
                fail(GP_ERR_INVALID_ARGUMENT, "options->lde->randomizers is set but options->lde->randomizer_count = 0");
            require_ptr(lo.randomizers != nullptr, "options->lde->randomizers");
            r.rand_m = lo.randomizer_count;
        }
        if (raw(lo.input) == GP_LDE_INPUT_COEFFICIENTS)
            fail(GP_ERR_UNSUPPORTED, "options->lde->input = GP_LDE_INPUT_COEFFICIENTS: gp_commit_host extends "
                                     "evaluations (use gp_lde_batch_host and gp_merkle_commit for coefficients)");
        if (lo.n != 0)
            fail(GP_ERR_UNSUPPORTED, "options->lde->n = ", lo.n,
                 ": gp_commit_host extends each matrix over its own rows; leave it 0");
        r.budget = o.device_budget;
        const FieldDesc &f = field_desc(field);
        if (root_power(f, lo.root, "options->lde->root") != 1)
            fail(GP_ERR_UNSUPPORTED, "options->lde->root: gp_commit_host extends over the library's root only (use "
                                     "gp_lde_batch_host and gp_merkle_commit)");
        for (uint32_t i = 0; i < count; ++i) {
            const gp_commit_matrix &m = matrices[i];
            const std::string at = "matrices[" + std::to_string(i) + "]";
            try {
                require_ptr(m.data != nullptr, (at + ".data").c_str());
                check_ext_degree(f, m.ext_degree, (at + ".ext_degree").c_str());
                LdeArgs a = lde_args(f, m.ext_degree, m.rows, m.cols, lo);
                if (i == 0) r.lde = a;
                const uint64_t lde_bytes = checked_mul(
                    checked_mul(checked_mul(m.rows << a.log_blowup, m.cols, "LDE rows * cols"), m.ext_degree,
                                "LDE elements"),
                    f.elem_size, "LDE bytes");
                checked_mul(checked_mul(m.rows, m.cols, "rows * cols"), (uint64_t)m.ext_degree * f.elem_size,
                            "input bytes");
                if (r.keep == GP_KEEP_HOST) {
                    require_ptr(m.lde_host != nullptr, (at + ".lde_host").c_str());
                    if (m.lde_host_bytes < lde_bytes)
                        fail(GP_ERR_INVALID_ARGUMENT, ".lde_host_bytes = ", m.lde_host_bytes,
                             " is smaller than the LDE (", lde_bytes, " bytes)");
                } else if (m.lde_host || m.lde_host_bytes) {
                    fail(GP_ERR_INVALID_ARGUMENT, ".lde_host must be NULL and .lde_host_bytes 0 unless "
                                                  "options->keep is GP_KEEP_HOST");
                }
            } catch (const Error &e) {  // name the matrix
                std::string msg = e.what();
                for (size_t p = msg.find("options->"); p != std::string::npos; p = msg.find("options->", p + 14))
                    if (msg.compare(p, 13, "options->keep") != 0) msg.replace(p, 9, "options->lde->");
                if (msg.rfind("argument `", 0) == 0) throw Error(e.status, msg);
                throw Error(e.status, at + (msg[0] == '.' ? "" : ": ") + msg);
            }
            r.mats.push_back({m.data, m.rows, m.cols, m.ext_degree, m.lde_host});
            if (r.rand_m) add_randomizers(ctx, f, m, i, lo, r);
            if (o.lde_into) {
                const std::string name = "options->lde_into[" + std::to_string(i) + "]";
                require_ptr(o.lde_into[i] != nullptr, name.c_str());
                LdeArgs a = lde_args(f, m.ext_degree, m.rows, m.cols, lo);
                Buffer *b = checked_lde_output(ctx, a, o.lde_into[i], name.c_str());
                if (std::find(r.into.begin(), r.into.end(), b) != r.into.end())
                    fail(GP_ERR_INVALID_ARGUMENT, name, " is also an earlier entry: each matrix needs its own buffer");
                r.into.push_back(b);
            }
        }
        std::vector<Buffer *> kept;
        MerkleTree *t = commit_host(ctx_of(ctx), r, kept);
        if (lde_out)
            for (size_t i = 0; i < kept.size(); ++i) lde_out[i] = reinterpret_cast<gp_buffer *>(kept[i]);
        *tree = reinterpret_cast<gp_merkle_tree *>(t);
    });
}
