// SPDX-License-Identifier: MIT OR Apache-2.0
// Constraint programs (gp_constraint_program_*): validation, compilation to
// the straight-line form of core/quotient_ops.h, and the quotient
// evaluation against the Backend interface (gp_quotient_evaluate).
#pragma once

#include <cstdint>
#include <memory>
#include <vector>

#include "core/core.h"
#include "core/deep_ops.h"
#include "core/quotient_ops.h"

namespace gp {

// A validated, compiled program. Immutable once made: shared by every
// evaluation that holds it.
struct CompiledProgram {
    const FieldDesc *field = nullptr;
    uint32_t ext = 1;
    uint32_t main_width = 0, prep_width = 0, periodic_width = 0, public_count = 0, challenge_count = 0;
    std::vector<uint64_t> constants;  // canonical
    std::vector<QIns> code;
    uint64_t base_slots = 0, ext_slots = 0;
    uint64_t constraints = 0, nodes = 0, max_degree = 0;
    bool uses_first = false, uses_last = false;
    // The description as given (a remote session sends it to its server,
    // which validates and compiles it again).
    std::vector<gp_cp_node> desc_nodes;
    std::vector<uint32_t> desc_constraints;
};

// Validates `d` (GP_ERR_INVALID_ARGUMENT / GP_ERR_NON_CANONICAL naming the
// node and field) and compiles it.
std::shared_ptr<const CompiledProgram> compile_program(const gp_constraint_program_desc &d);

// The object behind a gp_constraint_program handle.
struct ProgramHandle {
    std::shared_ptr<const CompiledProgram> program;
};

// One evaluation as the backends see it: every input validated.
struct QuotientArgs {
    const CompiledProgram *prog = nullptr;
    uint32_t log_n = 0, log_q = 0;
    uint64_t shift = 0;
    bool bitrev = true;
    const Buffer *main = nullptr, *prep = nullptr;
    std::vector<uint64_t> periodic;  // periodic_rows x periodic_width, row-major
    uint64_t periodic_rows = 0;
    std::vector<uint64_t> uniform;     // constants then publics, canonical
    std::vector<uint64_t> challenges;  // challenge_count x ext
    std::vector<uint64_t> weights;     // constraints x ext: alpha^(C-1-j)
    std::vector<uint64_t> alpha;       // ext
    Buffer *out = nullptr;
};

// Fills the row-independent part of QInputs from validated arguments: all
// but the tables (QuotientTables, in the backend's memory).
template <class F, int D>
QInputs<F, D> quotient_geometry(const QuotientArgs &a) {
    using T = typename F::T;
    QInputs<F, D> in;
    in.log_q = a.log_q;
    in.log_qn = a.log_q - a.log_n;
    in.bitrev = a.bitrev;
    in.main = a.main ? static_cast<const T *>(a.main->data) : nullptr;
    in.prep = a.prep ? static_cast<const T *>(a.prep->data) : nullptr;
    in.log_mq_main = a.main ? log2_exact(a.main->rows) - a.log_q : 0;
    in.main_rows = a.main ? a.main->rows : 0;
    in.log_mq_prep = a.prep ? log2_exact(a.prep->rows) - a.log_q : 0;
    in.prep_rows = a.prep ? a.prep->rows : 0;
    in.periodic_mask = a.periodic_rows ? a.periodic_rows - 1 : 0;
    in.periodic_width = a.prog->periodic_width;
    in.shift = (T)a.shift;
    in.omega_q = two_adic_generator<F>(a.log_q);
    in.shift_n = fpow<F>(in.shift, 1ull << a.log_n);
    in.omega_qn = two_adic_generator<F>(a.log_q - a.log_n);
    in.omega_n_inv = finv<F>(two_adic_generator<F>(a.log_n));
    return in;
}

// Host copies of the uniform values (Tw form), challenges and weights.
template <class F, int D>
struct QuotientTables {
    std::vector<typename F::Tw> uniform, weights_tw;
    std::vector<Ext<F, D>> challenges, weights;
    std::vector<typename F::T> periodic;
    explicit QuotientTables(const QuotientArgs &a) {
        using T = typename F::T;
        for (uint64_t v : a.uniform) uniform.push_back(F::to_tw((T)v));
        for (uint64_t v : a.weights) weights_tw.push_back(F::to_tw((T)v));
        challenges = ext_from_words<F, D>(a.challenges);
        weights = ext_from_words<F, D>(a.weights);
        for (uint64_t v : a.periodic) periodic.push_back((T)v);
    }
};

// Validates one evaluation's inputs against `p` (host arrays of the
// field's element size) and fills the arguments a backend takes.
QuotientArgs quotient_args(const CompiledProgram &p, const gp_quotient_options &o, const Buffer *main,
                           const Buffer *prep, Buffer &out);

// gp_quotient_evaluate after the handle checks.
void evaluate_quotient(Context *c, const CompiledProgram &p, const gp_quotient_options &o, const Buffer *main,
                       const Buffer *prep, Buffer &out);

}  // namespace gp
