// SPDX-License-Identifier: MIT OR Apache-2.0
// Host-side cache of the per-field tables the transforms need (twiddles,
// coset power tables), generated once per context, field and size.
#pragma once

#include <cstdint>
#include <map>
#include <tuple>
#include <vector>

#include "core/host_alloc.h"
#include "core/thread_pool.h"
#include "math/field.h"
#include "math/ntt.h"

namespace gp {

enum class TableKind : int {
    TwiddlesFwd = 0,  // size 2^log, forward roots
    TwiddlesInv = 1,  // size 2^log, inverse roots
    Powers = 2,       // size 2^log: to_tw(c * base^k); param = base, param2 = c
    SegmentFwd = 3,   // size 2^log: build_segment_factors, forward roots; param = t
    SegmentInv = 4,   // the same with the inverse roots
    GroupFwd = 5,     // size 2^log: build_group_twiddles, forward roots
    PowersRev = 6,    // Powers in bit-reversed order: entry k is c * base^bit_reverse(k, log)
};

struct TableKey {
    FieldId field;
    TableKind kind;
    uint32_t log;
    uint64_t param, param2;
    bool operator<(const TableKey &o) const {
        return std::tie(field, kind, log, param, param2) <
               std::tie(o.field, o.kind, o.log, o.param, o.param2);
    }
    bool operator==(const TableKey &o) const { return !(*this < o) && !(o < *this); }
};

// Coset power tables are kept least-recently-used within a budget: a
// prover that extends onto a new coset shift every round would otherwise add
// one table per shift without bound. Twiddles (one per field and direction,
// grown to the largest size) are not counted.
constexpr uint64_t kPowersBudgetBytes = 256ull << 20;
constexpr uint64_t kPowersBudgetTables = 64;

// The use order of a cache's power tables.
class PowersLru {
public:
    // Records a use of table `k` of `bytes` bytes (inserting it if new).
    void touch(const TableKey &k, uint64_t bytes) {
        auto it = m_.find(k);
        if (it == m_.end()) {
            m_.emplace(k, Use{++tick_, bytes});
            total_ += bytes;
        } else {
            it->second.tick = ++tick_;
        }
    }
    // The least recently used tables other than `keep` whose removal brings
    // the rest within the budget; they are forgotten here and counted as
    // evictions, the caller frees them.
    std::vector<TableKey> evict(const TableKey &keep) {
        std::vector<TableKey> out;
        while ((total_ > kPowersBudgetBytes || m_.size() > kPowersBudgetTables) && m_.size() > 1) {
            auto oldest = m_.end();
            for (auto it = m_.begin(); it != m_.end(); ++it)
                if (!(it->first == keep) && (oldest == m_.end() || it->second.tick < oldest->second.tick)) oldest = it;
            out.push_back(oldest->first);
            total_ -= oldest->second.bytes;
            m_.erase(oldest);
            ++evictions_;
        }
        return out;
    }
    void clear() {
        m_.clear();
        total_ = 0;
    }
    uint64_t evictions() const { return evictions_; }

private:
    struct Use {
        uint64_t tick, bytes;
    };
    std::map<TableKey, Use> m_;
    uint64_t tick_ = 0, total_ = 0, evictions_ = 0;
};

class HostTables {
public:
    explicit HostTables(ThreadPool &pool) : pool_(pool) {}

    // Twiddles serving every size up to 2^log. A cached larger table is
    // returned when one exists (its prefix is the smaller table).
    template <class F>
    const typename F::Tw *twiddles(FieldId id, uint32_t log, bool inverse) {
        return grown_table<F>(id, inverse ? TableKind::TwiddlesInv : TableKind::TwiddlesFwd, log,
                              [&](typename F::Tw *t) { build_twiddles<F>(t, log, inverse, pool_); });
    }

    // The forward roots in group order (build_group_twiddles), serving
    // every size up to 2^log, kept like the twiddles.
    template <class F>
    const typename F::Tw *group_twiddles(FieldId id, uint32_t log) {
        return grown_table<F>(id, TableKind::GroupFwd, log, [&](typename F::Tw *t) {
            build_group_twiddles<F>(t, log, twiddles<F>(id, log, false), pool_);
        });
    }

    // to_tw(c * base^k) for k < 2^log.
    template <class F>
    const typename F::Tw *powers(FieldId id, uint32_t log, typename F::T base, typename F::T c) {
        return lru_table<F>({id, TableKind::Powers, log, (uint64_t)base, (uint64_t)c}, [&](typename F::Tw *t) {
            build_powers<F>(t, 1ull << log, base, c, pool_);
        });
    }

    // to_tw(c * base^bit_reverse(k, log)) for k < 2^log: the coset scaling
    // of the natural-order LDE's turned form (kernels/ntt.cuh, TURN).
    template <class F>
    const typename F::Tw *powers_rev(FieldId id, uint32_t log, typename F::T base, typename F::T c) {
        return lru_table<F>({id, TableKind::PowersRev, log, (uint64_t)base, (uint64_t)c}, [&](typename F::Tw *t) {
            build_powers<F>(t, 1ull << log, base, c, pool_);
            bit_reverse_permute(t, log);
        });
    }

    // The four-step factors of a size-2^log transform's top segment of t
    // bits (build_segment_factors).
    template <class F>
    const typename F::Tw *segment_factors(FieldId id, uint32_t log, uint32_t t, bool inverse) {
        const typename F::Tw *tw = twiddles<F>(id, log, inverse);
        return lru_table<F>({id, inverse ? TableKind::SegmentInv : TableKind::SegmentFwd, log, t, 0},
                            [&](typename F::Tw *out) { build_segment_factors<F>(out, log, t, tw, pool_); });
    }

    uint64_t bytes() const {
        uint64_t b = 0;
        for (auto &kv : map_) b += kv.second.size();
        return b;
    }
    uint64_t allocations() const { return allocations_; }
    uint64_t evictions() const { return lru_.evictions(); }
    void clear() {
        map_.clear();
        lru_.clear();
    }

private:
    // The cached table of kind k serving 2^log entries (the smallest such,
    // whose prefix is the smaller table), built by `build` when none is.
    template <class F, class Build>
    const typename F::Tw *grown_table(FieldId id, TableKind k, uint32_t log, Build &&build) {
        auto it = map_.lower_bound({id, k, log, 0, 0});
        if (it != map_.end() && it->first.field == id && it->first.kind == k)
            return reinterpret_cast<const typename F::Tw *>(it->second.data());
        return make<F>({id, k, log, 0, 0}, 1ull << log, build);
    }

    // A table of 2^key.log entries under the least-recently-used budget
    // (PowersLru), built by `build` when missing.
    template <class F, class Build>
    const typename F::Tw *lru_table(const TableKey &key, Build &&build) {
        auto it = map_.find(key);
        if (it == map_.end()) {
            make<F>(key, 1ull << key.log, build);
            it = map_.find(key);
        }
        lru_.touch(key, it->second.size());
        for (const TableKey &old : lru_.evict(key)) map_.erase(old);
        return reinterpret_cast<const typename F::Tw *>(it->second.data());
    }

    // Builds a table of `count` entries and caches it. The cache changes
    // only once the table is complete: a failed allocation or build leaves
    // it as it was.
    template <class F, class Build>
    const typename F::Tw *make(const TableKey &key, uint64_t count, Build &&build) {
        hvector<uint8_t> v(count * sizeof(typename F::Tw));
        build(reinterpret_cast<typename F::Tw *>(v.data()));
        auto it = map_.emplace(key, std::move(v)).first;
        ++allocations_;
        return reinterpret_cast<const typename F::Tw *>(it->second.data());
    }

    ThreadPool &pool_;
    std::map<TableKey, hvector<uint8_t>> map_;
    PowersLru lru_;
    uint64_t allocations_ = 0;
};

}  // namespace gp
