// SPDX-License-Identifier: MIT OR Apache-2.0
// gp_quotient_evaluate on an AIR-shaped program: W trace columns, per
// column a degree-3 constraint a*b*c - d on this row and a transition
// constraint (next a - a*b) gated by is_transition, KoalaBear with
// degree-4 challenges, the quotient domain twice the trace (Plonky3's
// degree-3 AIRs). Counters: rows and instructions per second, the
// program's size, and (CUDA) the floor of reading each trace row twice
// (this row and the next) at the device's copy bandwidth.
#include <vector>

#include "bench_util.h"

namespace {

struct Shape {
    uint32_t width, log_n;
};

gp_constraint_program *air_program(uint32_t width, uint64_t seed) {
    std::vector<gp_cp_node> nodes;
    std::vector<uint32_t> cons;
    auto col = [&](uint32_t c, uint32_t next) {
        nodes.push_back({GP_CP_MAIN, c, next});
        return (uint32_t)nodes.size() - 1;
    };
    auto op = [&](uint32_t o, uint32_t a, uint32_t b) {
        nodes.push_back({o, a, b});
        return (uint32_t)nodes.size() - 1;
    };
    nodes.push_back({GP_CP_IS_TRANSITION, 0, 0});
    const uint32_t trans = 0;
    for (uint32_t k = 0; k < width; ++k) {
        const uint32_t a = col(k, 0), b = col((uint32_t)(gpb::splitmix(seed) % width), 0),
                       c = col((uint32_t)(gpb::splitmix(seed) % width), 0),
                       d = col((uint32_t)(gpb::splitmix(seed) % width), 0);
        cons.push_back(op(GP_CP_SUB, op(GP_CP_MUL, op(GP_CP_MUL, a, b), c), d));
        cons.push_back(op(GP_CP_MUL, trans, op(GP_CP_SUB, col(k, 1), op(GP_CP_MUL, a, b))));
    }
    gp_constraint_program_desc d;
    gp_constraint_program_desc_init(&d);
    d.field = GP_FIELD_KOALABEAR;
    d.ext_degree = 4;
    d.main_width = width;
    d.nodes = nodes.data();
    d.node_count = (uint32_t)nodes.size();
    d.constraints = cons.data();
    d.constraint_count = (uint32_t)cons.size();
    gp_constraint_program *p = nullptr;
    gp_constraint_program_create(&d, &p);
    return p;
}

void BM_Quotient(benchmark::State &st, gp_backend backend, Shape s) {
    gp_context *ctx = gpb::context(backend);
    if (!ctx) return st.SkipWithError("no such backend");
    const uint32_t log_q = s.log_n + 1;
    const uint64_t q = 1ull << log_q;
    std::vector<uint32_t> host((size_t)(q * s.width));
    gpb::fill_trace(host.data(), GP_FIELD_KOALABEAR, host.size(), 7);
    gp_buffer *main = nullptr, *out = nullptr;
    if (gp_buffer_from_host(ctx, GP_FIELD_KOALABEAR, 1, q, s.width, GP_LAYOUT_COL_MAJOR, host.data(), &main) != GP_OK ||
        gp_buffer_create(ctx, GP_FIELD_KOALABEAR, 4, q, 1, &out) != GP_OK)
        return st.SkipWithError(gp_last_error());
    gp_constraint_program *prog = air_program(s.width, 11);
    gp_constraint_program_info info;
    info.struct_size = sizeof info;
    gp_constraint_program_get_info(prog, &info);
    const uint32_t alpha[4] = {5, 6, 7, 8};
    gp_quotient_options o;
    gp_quotient_options_init(&o);
    o.log_trace_rows = s.log_n;
    o.log_quotient_rows = log_q;
    o.main = main;
    o.alpha = alpha;
    for (auto _ : st)
        if (gp_quotient_evaluate(ctx, prog, &o, out) != GP_OK) return st.SkipWithError(gp_last_error());
    st.counters["rows_per_s"] = benchmark::Counter((double)q, benchmark::Counter::kIsIterationInvariantRate);
    st.counters["Ginstr_per_s"] =
        benchmark::Counter((double)q * info.instructions / 1e9, benchmark::Counter::kIsIterationInvariantRate);
    st.counters["instructions"] = (double)info.instructions;
    st.counters["base_slots"] = (double)info.base_slots;
#ifdef GP_HAVE_CUDA
    if (backend == GP_BACKEND_CUDA) {
        const double bw = gpb::d2d_bandwidth() / 2;  // read bytes per second
        if (bw > 0) st.counters["read_floor_ms"] = 2.0 * q * s.width * 4 / bw * 1e3;
    }
#endif
    gp_constraint_program_destroy(prog);
    gp_buffer_destroy(main);
    gp_buffer_destroy(out);
}

BENCHMARK_CAPTURE(BM_Quotient, cpu_w64_n14, GP_BACKEND_CPU, Shape{64, 14})->Unit(benchmark::kMillisecond)->UseRealTime();
BENCHMARK_CAPTURE(BM_Quotient, cuda_w64_n20, GP_BACKEND_CUDA, Shape{64, 20})->Unit(benchmark::kMillisecond)->UseRealTime();
BENCHMARK_CAPTURE(BM_Quotient, cuda_w512_n19, GP_BACKEND_CUDA, Shape{512, 19})->Unit(benchmark::kMillisecond)->UseRealTime();

}  // namespace
