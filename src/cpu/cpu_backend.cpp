// SPDX-License-Identifier: MIT OR Apache-2.0
// The CPU backend: the reference for tests and the fallback without a GPU.
// Multi-threaded over columns (and cosets), on the same math headers as the
// CUDA kernels, so both produce identical field elements.
#include <atomic>
#include <cstring>
#include <string>
#include <thread>

#include <unistd.h>

#include "core/checks.h"
#include "core/core.h"
#include "core/tables.h"
#include "core/thread_pool.h"
#include "core/deep_ops.h"
#include "core/fri_ops.h"
#include "core/merkle_ops.h"
#include "core/quotient.h"
#include "hash/permutations.h"
#include "math/field.h"
#include "math/ntt.h"

namespace gp {
namespace {

class CpuBackend final : public Backend {
public:
    explicit CpuBackend(unsigned threads) : pool_(threads), tables_(pool_) {}

    gp_backend kind() const override { return GP_BACKEND_CPU; }
    std::string device_name() const override {
        return "CPU, " + std::to_string(pool_.size()) + " threads";
    }

    void *alloc_buffer(uint64_t bytes) override {
        // Lazily committing allocators accept reservations far beyond RAM;
        // refuse what the machine cannot hold before touching it.
        uint64_t phys = (uint64_t)sysconf(_SC_PHYS_PAGES) * (uint64_t)sysconf(_SC_PAGESIZE);
        if (bytes > phys)
            fail(GP_ERR_HOST_OUT_OF_MEMORY, "a buffer of ", bytes, " bytes exceeds the host's ", phys,
                 " bytes of memory");
        void *p = host_alloc(bytes, "buffer", true, AllocKind::Device);
        ++allocations_;
        return p;
    }
    void free_buffer(void *p) override { host_free(p); }
    void check_foreign(const void *data, uint64_t, const char *arg) override {
        require_ptr(data != nullptr, arg);
    }
    void check_buffer_values(const Buffer &b, const char *arg) override {
        check_host_canonical(*b.field, b.data, b.rows * b.base_cols(), arg);
    }

    void upload(Buffer &dst, const void *host, gp_layout layout, const char *arg) override {
        check_host_canonical(*dst.field, host, dst.rows * dst.base_cols(), arg);
        dispatch_field(dst.field->id, [&](auto F) {
            using T = typename decltype(F)::T;
            const T *src = static_cast<const T *>(host);
            T *d = static_cast<T *>(dst.data);
            uint64_t rows = dst.rows, cols = dst.cols;
            uint32_t ext = dst.ext;
            pool_.parallel_ranges(dst.base_cols(), [&](uint64_t j0, uint64_t j1) {
                for (uint64_t j = j0; j < j1; ++j)
                    for (uint64_t r = 0; r < rows; ++r)
                        d[j * rows + r] = src[host_index(layout, rows, cols, ext, r, j)];
            });
        });
    }

    void download(const Buffer &src, void *host, gp_layout layout) override {
        dispatch_field(src.field->id, [&](auto F) {
            using T = typename decltype(F)::T;
            const T *s = static_cast<const T *>(src.data);
            T *d = static_cast<T *>(host);
            uint64_t rows = src.rows, cols = src.cols;
            uint32_t ext = src.ext;
            pool_.parallel_ranges(src.base_cols(), [&](uint64_t j0, uint64_t j1) {
                for (uint64_t j = j0; j < j1; ++j)
                    for (uint64_t r = 0; r < rows; ++r)
                        d[host_index(layout, rows, cols, ext, r, j)] = s[j * rows + r];
            });
        });
    }

    bool lde_adds() const override { return true; }
    void lde(const LdeArgs &a) override {
        dispatch_field(a.field->id, [&](auto F) { lde_impl<decltype(F)>(a); });
    }

    void ntt(Buffer &buf, const NttArgs &a) override {
        dispatch_field(buf.field->id, [&](auto F) { ntt_impl<decltype(F)>(buf, a); });
    }

    void permute(int perm, void *states, uint64_t count) override {
        int field = perm::field_of(perm);
        perm::dispatch(perm, [&](auto P) {
            using Perm = decltype(P);
            using T = typename Perm::T;
            T *st = static_cast<T *>(states);
            if (field) check_host_canonical(field_desc((gp_field)field), st, count * Perm::WIDTH, "states");
            pool_.parallel_ranges(count, [&](uint64_t b, uint64_t e) {
                for (uint64_t i = b; i < e; ++i) Perm::apply(st + i * Perm::WIDTH);
            });
        });
    }

    void merkle_commit(const MerkleArgs &a, MerkleTree &t) override {
        tree_dispatch(a.spec, [&](auto h) {
            using H = decltype(h);
            using W = typename H::W;
            std::vector<MatView<typename H::T>> views = make_mat_views<typename H::T>(a.mats);
            W *nodes = static_cast<W *>(t.nodes);
            const uint32_t d = h.digest;
            const uint64_t H_ = a.leaf_count();
            std::atomic<uint64_t> done{0};
            const uint64_t parts = row_parts(H_);
            if (a.inject.empty()) {
                pool_.parallel_for(parts, [&](uint64_t p) {
                    step("merkle", done, parts + a.log_h);
                    for (uint64_t i = H_ * p / parts; i < H_ * (p + 1) / parts; ++i)
                        merkle_leaf(h, views.data(), a.groups[0].first, a.groups[0].second, i, nodes + i * d);
                });
            }
            stepped("merkle", done, parts + a.log_h);
            if (a.leaves_only) return;
            for (uint32_t k = 1; k <= a.log_h; ++k) {
                step("merkle", done, parts + a.log_h);
                const W *prev = nodes + merkle_layer_offset(a.log_h, k - 1) * d;
                W *cur = nodes + merkle_layer_offset(a.log_h, k) * d;
                pool_.parallel_ranges(merkle_layer_rows(H_, k), [&](uint64_t b, uint64_t e) {
                    for (uint64_t i = b; i < e; ++i)
                        merkle_node(h, prev, i, views.data(), a.groups[k].first, a.groups[k].second,
                                    a.inject.empty() ? nullptr : static_cast<const W *>(a.inject[k]), cur + i * d);
                });
            }
        });
    }
    bool streams() const override { return true; }
    void absorb_rows(const AbsorbArgs &a) override {
        tree_dispatch(a.spec, [&](auto h) {
            using H = decltype(h);
            using S = typename H::S;
            std::vector<MatView<typename H::T>> views = make_mat_views<typename H::T>(a.mats);
            std::atomic<uint64_t> done{0};
            const uint64_t parts = row_parts(a.rows);
            pool_.parallel_for(parts, [&](uint64_t p) {
                step("absorb", done, parts);
                for (uint64_t i = a.rows * p / parts; i < a.rows * (p + 1) / parts; ++i)
                    merkle_absorb_row(h, views.data(), static_cast<S *>(a.states), a.rows, i, a.n, a.left, a.count,
                                      a.first, static_cast<typename H::W *>(a.digests));
            });
        });
    }
    void read_tree(const MerkleTree &t, uint64_t offset, void *out, uint64_t bytes) override {
        std::memcpy(out, static_cast<const char *>(t.nodes) + offset, bytes);
    }
    void merkle_open(const MerkleTree &t, const uint64_t *indices, uint64_t count, void *rows,
                     void *paths) override {
        tree_dispatch(t.spec, [&](auto h) {
            using H = decltype(h);
            using T = typename H::T;
            using W = typename H::W;
            std::vector<MatView<T>> views = make_mat_views<T>(t.committed);
            const uint64_t row_elems = row_length(views.data(), 0, (uint32_t)views.size());
            const uint64_t path_words = (uint64_t)t.path_len() * t.spec.digest;
            for (uint64_t q = 0; q < count; ++q) {
                if (rows)
                    merkle_open_rows(views.data(), (uint32_t)views.size(), t.log_h, indices[q],
                                     lifted_kind(t.spec.kind), static_cast<T *>(rows) + q * row_elems);
                if (paths)
                    merkle_open_path(static_cast<const W *>(t.nodes), t.log_h, t.path_len(), t.spec.digest,
                                     indices[q], static_cast<W *>(paths) + q * path_words);
            }
        });
    }

    void fri_fold(const FriFoldArgs &a) override {
        ext_dispatch(a.field, a.ext, a.ext_kind, [&](auto F, auto Dc) {
            using Fd = decltype(F);
            constexpr int D = decltype(Dc)::value;
            const FriFoldParams<Fd, D> p = fri_params<Fd, D>(a);
            auto *in = static_cast<const typename Fd::T *>(a.in);
            auto *out = static_cast<typename Fd::T *>(a.out);
            pool_.parallel_ranges(1ull << (a.log_n - a.log_a), [&](uint64_t b, uint64_t e) {
                for (uint64_t g = b; g < e; ++g) fri_fold_group<Fd, D>(p, in, g, out);
            });
        });
    }
    void fri_to_matrix(uint32_t elem_size, uint32_t ext, uint32_t log_n, uint32_t log_a, bool bitrev,
                       const void *in, void *out) override {
        auto run = [&](auto *typed_in, auto *typed_out) {
            pool_.parallel_ranges(1ull << log_n, [&](uint64_t b, uint64_t e) {
                for (uint64_t p = b; p < e; ++p) gp::fri_to_matrix(log_n, log_a, bitrev, ext, typed_in, p, typed_out);
            });
        };
        if (elem_size == 8) run(static_cast<const uint64_t *>(in), static_cast<uint64_t *>(out));
        else run(static_cast<const uint32_t *>(in), static_cast<uint32_t *>(out));
    }

    void copy_rows(const Buffer &src, uint64_t src_col, uint64_t start, uint64_t stride, uint64_t count, Buffer &dst,
                   uint64_t dst_col) override {
        const uint32_t es = src.field->elem_size;
        for (uint32_t c = 0; c < src.ext; ++c) {
            const char *from = static_cast<const char *>(src.data) + (src_col * src.ext + c) * src.rows * es;
            char *to = static_cast<char *>(dst.data) + (dst_col * dst.ext + c) * dst.rows * es;
            pool_.parallel_ranges(count, [&](uint64_t b, uint64_t e) {
                for (uint64_t k = b; k < e; ++k) std::memcpy(to + k * es, from + (start + k * stride) * es, es);
            });
            std::memset(to + count * es, 0, (dst.rows - count) * es);
        }
    }
    void gather_rows(const Buffer &src, uint64_t mult, Buffer &dst) override {
        const uint32_t es = src.field->elem_size;
        const uint64_t rows = src.rows, mask = rows - 1;
        for (uint64_t j = 0; j < src.cols * src.ext; ++j) {
            const char *from = static_cast<const char *>(src.data) + j * rows * es;
            char *to = static_cast<char *>(dst.data) + j * rows * es;
            pool_.parallel_ranges(rows, [&](uint64_t b, uint64_t e) {
                for (uint64_t i = b; i < e; ++i) std::memcpy(to + i * es, from + ((mult * i) & mask) * es, es);
            });
        }
    }
    void ood_sums(const OodArgs &a, uint64_t *out) override {
        ext_dispatch(a.field, a.E, a.ext_kind, [&](auto F, auto Ec) {
            using Fd = decltype(F);
            using T = typename Fd::T;
            constexpr int E = decltype(Ec)::value;
            Ext<Fd, E> z;
            for (int e = 0; e < E; ++e) z.c[e] = (T)a.z[e];
            const uint64_t nb = 1ull << a.log_nb;
            std::vector<Ext<Fd, E>> w(nb);
            pool_.parallel_ranges(nb, [&](uint64_t b, uint64_t e) {
                for (uint64_t p = b; p < e; ++p)
                    w[p] = ood_weight<Fd, E>(ood_point<Fd>(a.log_nb, a.bitrev, (T)a.shift, (T)a.omega_n, p), z);
            });
            const std::vector<const T *> cols = base_column_ptrs<T>(a.bufs);
            pool_.parallel_ranges(cols.size(), [&](uint64_t b, uint64_t e) {
                for (uint64_t c = b; c < e; ++c) {
                    Ext<Fd, E> acc = Ext<Fd, E>::zero();
                    for (uint64_t p = 0; p < nb; ++p)
                        acc = acc + w[p].scale(cols[c][ood_row(a.log_m, a.log_nb, a.bitrev, p)]);
                    for (int k = 0; k < E; ++k) out[c * E + k] = acc.c[k];
                }
            });
        });
    }
    void deep(const DeepArgs &a) override {
        ext_dispatch(a.field, a.E, a.ext_kind, [&](auto F, auto Ec) {
            using Fd = decltype(F);
            using T = typename Fd::T;
            constexpr int E = decltype(Ec)::value;
            const DeepInputs<Fd, E> in(a);
            const auto &z = in.z, &alpha = in.alpha, &corr = in.corr;
            const auto &sets = in.sets;
            const uint64_t m = 1ull << a.log_m;
            T *out = static_cast<T *>(a.out->data);
            pool_.parallel_ranges(m, [&](uint64_t b, uint64_t e) {
                for (uint64_t r = b; r < e; ++r) {
                    const uint64_t nat = a.bitrev ? bit_reverse(r, a.log_m) : r;
                    const T x = Fd::mul((T)a.shift, fpow<Fd>((T)a.omega_m, nat));
                    const Ext<Fd, E> q = deep_row<Fd, E>(sets.data(), (uint32_t)sets.size(), m, r, x, z.data(),
                                                         a.npoints, alpha.data(), a.ncols, corr.data());
                    for (int k = 0; k < E; ++k) out[(uint64_t)k * m + r] = q.c[k];
                }
            });
        });
    }

    void quotient(const QuotientArgs &a) override {
        quotient_ext_dispatch(a.prog->field->id, a.prog->ext, [&](auto F, auto Dc) {
            using Fd = decltype(F);
            using T = typename Fd::T;
            constexpr int D = decltype(Dc)::value;
            const QuotientTables<Fd, D> tab(a);
            QInputs<Fd, D> in = quotient_geometry<Fd, D>(a);
            in.periodic = tab.periodic.empty() ? nullptr : tab.periodic.data();
            in.uniform = tab.uniform.data();
            in.challenges = tab.challenges.data();
            in.weights_tw = tab.weights_tw.data();
            in.weights = tab.weights.data();
            const CompiledProgram &p = *a.prog;
            const uint64_t q = 1ull << a.log_q;
            T *out = static_cast<T *>(a.out->data);
            pool_.parallel_ranges(q, [&](uint64_t b, uint64_t e) {
                struct Slots {
                    std::vector<typename Fd::Tw> base;
                    std::vector<T> ext;
                    typename Fd::Tw &b(uint32_t s) { return base[s]; }
                    T &e(uint32_t s, int k) { return ext[(uint64_t)s * D + k]; }
                } slots{std::vector<typename Fd::Tw>(p.base_slots), std::vector<T>(p.ext_slots * D)};
                for (uint64_t i = b; i < e; ++i) {
                    if (((i - b) & 4095) == 0) monitor->check_cancelled();
                    const QRowPoint<Fd> pt = q_row_point<Fd, D>(in, i, p.uses_first, p.uses_last);
                    const Ext<Fd, D> v = q_eval_row<Fd, D>(p.code.data(), p.code.size(), in, i, pt, slots);
                    for (int k = 0; k < D; ++k) out[(uint64_t)k * q + i] = v.c[k];
                }
            });
        });
    }

    void copy_peer(const void *src, uint64_t spitch, void *dst, uint64_t dpitch, uint64_t width,
                   uint64_t height) override {
        const char *s = static_cast<const char *>(src);
        char *d = static_cast<char *>(dst);
        pool_.parallel_ranges(height, [&](uint64_t b, uint64_t e) {
            for (uint64_t k = b; k < e; ++k) std::memcpy(d + k * dpitch, s + k * spitch, width);
        });
    }
    void add_into(const FieldDesc &f, void *dst, const void *src, uint64_t count) override {
        dispatch_field(f.id, [&](auto F) {
            using Fd = decltype(F);
            using T = typename Fd::T;
            T *d = static_cast<T *>(dst);
            const T *s = static_cast<const T *>(src);
            pool_.parallel_ranges(count, [&](uint64_t b, uint64_t e) {
                for (uint64_t i = b; i < e; ++i) d[i] = Fd::add(d[i], s[i]);
            });
        });
    }

    void trim() override { tables_.clear(); }
    uint64_t cache_bytes() const override { return tables_.bytes(); }
    uint64_t allocations() const override { return allocations_ + tables_.allocations(); }
    uint64_t evictions() const override { return tables_.evictions(); }

private:
    // A unit of a long step is starting, on any thread of the pool:
    // cancellation, and progress where the calling thread runs it.
    // Rows in parts of at most 4096, at least four per thread (a
    // cancellation point each).
    uint64_t row_parts(uint64_t rows) const {
        return std::min<uint64_t>(rows, std::max<uint64_t>((uint64_t)pool_.size() * 4, rows >> 12));
    }
    void step(const char *stage, std::atomic<uint64_t> &done, uint64_t total) {
        const uint64_t d = done++;
        if (monitor) monitor->poll(stage, d, total);
    }
    // A parallel section ended: the calling thread reports (the pool's other
    // threads may have run every unit of it) and checks for cancellation.
    void stepped(const char *stage, const std::atomic<uint64_t> &done, uint64_t total) {
        if (monitor) monitor->poll(stage, done.load(), total);
    }

    // Names the first offending index, whichever thread finds one.
    void check_host_canonical(const FieldDesc &f, const void *data, uint64_t count, const char *arg) {
        std::atomic<uint64_t> first{count};
        pool_.parallel_ranges(count, [&](uint64_t b, uint64_t e) {
            const uint64_t end = std::min(e, first.load(std::memory_order_relaxed));
            if (b >= end) return;  // a smaller bad index is known already
            const uint64_t i = first_non_canonical(f, data, b, end);
            if (i == end) return;
            uint64_t cur = first.load(std::memory_order_relaxed);
            while (i < cur && !first.compare_exchange_weak(cur, i, std::memory_order_relaxed)) {
            }
        });
        if (first < count) fail_non_canonical(f, data, first, arg);
    }

    template <class F>
    void lde_impl(const LdeArgs &a) {
        using T = typename F::T;
        using Tw = typename F::Tw;
        const FieldId id = a.field->id;
        const uint32_t log_n = a.log_n, log_b = a.log_blowup, log_nb = log_n + log_b;
        const uint64_t n = 1ull << log_n, B = 1ull << log_b;
        const uint64_t base_cols = a.cols * a.ext, rows_in = a.rows_in;

        if (a.in_host) check_host_canonical(*a.field, a.in_host, rows_in * base_cols, "data");
        const Tw *tw_inv = tables_.twiddles<F>(id, log_n, true);
        const Tw *tw_fwd = tables_.twiddles<F>(id, log_nb, false);
        T g_over_s = F::mul((T)a.shift, finv<F>((T)a.input_shift));
        const Tw *scale = tables_.powers<F>(id, log_n, g_over_s, finv<F>((T)(n % F::P)));

        // Input element (row i, base column j).
        const T *in_buf = a.in_buf ? static_cast<const T *>(a.in_buf->data) : nullptr;
        const T *in_host = static_cast<const T *>(a.in_host);
        auto input = [&](uint64_t i, uint64_t j) -> T {
            if (in_buf) return in_buf[j * rows_in + i];
            return in_host[host_index(a.in_layout, rows_in, a.cols, a.ext, i, j)];
        };

        // Phase 1: coefficients (times n) of every column, natural order.
        T *coeffs = static_cast<T *>(host_alloc(base_cols * n * sizeof(T), "LDE scratch"));
        struct Free {
            void *p;
            ~Free() { host_free(p); }
        } free_coeffs{coeffs};
        std::atomic<uint64_t> done{0};
        const uint64_t steps = base_cols * (1 + B);
        pool_.parallel_for(base_cols, [&](uint64_t j) {
            step("lde", done, steps);
            T *c = coeffs + j * n;
            for (uint64_t i = 0; i < n; ++i) c[bit_reverse(i, log_n)] = i < rows_in ? input(i, j) : 0;
            dit_stages<F>(c, log_n, 0, log_n, tw_inv);
        });
        stepped("lde", done, steps);

        // Phase 2: each (column, coset) independently.
        T *out = static_cast<T *>(a.out->data);
        const uint64_t out_rows = n * B;
        const bool natural = a.order == GP_ORDER_NATURAL;
        // The randomizer addend (LdeArgs::rand_add) of column j, coset r.
        const T *radd = static_cast<const T *>(a.rand_add);
        auto coset_coefficients = [&](T *y, const T *c, uint64_t j, uint32_t r) {
            for (uint64_t k = 0; k < n; ++k) y[k] = lde_coset_factor_apply<F>(c[k], k, r, log_nb, scale, tw_fwd);
            if (radd)
                for (uint64_t k = 0; k < a.rand_m; ++k) y[k] = F::add(y[k], radd[(j * B + r) * a.rand_m + k]);
        };
        pool_.parallel_for(base_cols * B, [&](uint64_t task) {
            step("lde", done, steps);
            uint64_t j = task / B;
            uint32_t r = (uint32_t)(task % B);
            const T *c = coeffs + j * n;
            T *o = out + j * out_rows;
            if (natural) {
                hvector<T> y(n);
                coset_coefficients(y.data(), c, j, r);
                dif_stages<F>(y.data(), log_n, 0, log_n, tw_fwd);
                for (uint64_t p = 0; p < n; ++p) o[bit_reverse(p, log_n) * B + r] = y[p];
            } else {
                T *y = o + bit_reverse(r, log_b) * n;
                coset_coefficients(y, c, j, r);
                dif_stages<F>(y, log_n, 0, log_n, tw_fwd);
            }
        });
        stepped("lde", done, steps);
    }

    template <class F>
    void ntt_impl(Buffer &buf, const NttArgs &a) {
        using T = typename F::T;
        using Tw = typename F::Tw;
        const FieldId id = buf.field->id;
        const uint32_t log_n = log2_exact(buf.rows);
        const uint64_t n = buf.rows;
        const bool inverse = a.direction == GP_NTT_INVERSE;
        const Tw *tw = tables_.twiddles<F>(id, log_n, inverse);
        // Forward: c_k *= s^k before the transform. Inverse: v_k *= s^-k / n after.
        T s = (T)a.shift;
        const Tw *pw = inverse ? tables_.powers<F>(id, log_n, finv<F>(s), finv<F>((T)(n % F::P)))
                               : tables_.powers<F>(id, log_n, s, 1);
        const bool in_rev = a.input_order == GP_ORDER_BIT_REVERSED;
        T *data = static_cast<T *>(buf.data);
        std::atomic<uint64_t> done{0};
        pool_.parallel_for(buf.base_cols(), [&](uint64_t j) {
            step("ntt", done, buf.base_cols());
            T *x = data + j * n;
            // DIF takes natural input to bit-reversed output; DIT the reverse.
            auto coeff_index = [&](uint64_t pos, bool rev) { return rev ? bit_reverse(pos, log_n) : pos; };
            if (!inverse)
                for (uint64_t p = 0; p < n; ++p) x[p] = F::mul_tw(x[p], pw[coeff_index(p, in_rev)]);
            if (in_rev)
                dit_stages<F>(x, log_n, 0, log_n, tw);
            else
                dif_stages<F>(x, log_n, 0, log_n, tw);
            bool out_rev = !in_rev;  // order the transform produced
            if (inverse)
                for (uint64_t p = 0; p < n; ++p) x[p] = F::mul_tw(x[p], pw[coeff_index(p, out_rev)]);
            if (out_rev != (a.output_order == GP_ORDER_BIT_REVERSED)) bit_reverse_permute(x, log_n);
        });
        stepped("ntt", done, buf.base_cols());
    }

    ThreadPool pool_;
    HostTables tables_;
    uint64_t allocations_ = 0;
};

}  // namespace

std::unique_ptr<Backend> make_cpu_backend(unsigned threads) {
    return std::make_unique<CpuBackend>(threads);
}

}  // namespace gp
