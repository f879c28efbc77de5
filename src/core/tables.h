// Host-side cache of the per-field tables the transforms need (twiddles,
// coset power tables), generated once per context, field and size.
#pragma once

#include <cstdint>
#include <map>
#include <tuple>
#include <vector>

#include <mimalloc.h>

#include "core/thread_pool.h"
#include "math/field.h"
#include "math/ntt.h"

namespace gp {

template <class T>
using mvector = std::vector<T, mi_stl_allocator<T>>;

enum class TableKind : int {
    TwiddlesFwd = 0,  // size 2^log, forward roots
    TwiddlesInv = 1,  // size 2^log, inverse roots
    Powers = 2,       // size 2^log: to_tw(c * base^k); param = base, param2 = c
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
};

class HostTables {
public:
    explicit HostTables(ThreadPool &pool) : pool_(pool) {}

    // Twiddles serving every size up to 2^log. A cached larger table is
    // returned when one exists (its prefix is the smaller table).
    template <class F>
    const typename F::Tw *twiddles(FieldId id, uint32_t log, bool inverse) {
        TableKind k = inverse ? TableKind::TwiddlesInv : TableKind::TwiddlesFwd;
        for (auto it = map_.lower_bound({id, k, log, 0, 0});
             it != map_.end() && it->first.field == id && it->first.kind == k; ++it)
            return reinterpret_cast<const typename F::Tw *>(it->second.data());
        auto &v = make<F>({id, k, log, 0, 0}, 1ull << log);
        build_twiddles<F>(reinterpret_cast<typename F::Tw *>(v.data()), log, inverse, pool_);
        return reinterpret_cast<const typename F::Tw *>(v.data());
    }

    // to_tw(c * base^k) for k < 2^log.
    template <class F>
    const typename F::Tw *powers(FieldId id, uint32_t log, typename F::T base, typename F::T c) {
        TableKey key{id, TableKind::Powers, log, (uint64_t)base, (uint64_t)c};
        auto it = map_.find(key);
        if (it != map_.end()) return reinterpret_cast<const typename F::Tw *>(it->second.data());
        auto &v = make<F>(key, 1ull << log);
        build_powers<F>(reinterpret_cast<typename F::Tw *>(v.data()), 1ull << log, base, c, pool_);
        return reinterpret_cast<const typename F::Tw *>(v.data());
    }

    uint64_t bytes() const {
        uint64_t b = 0;
        for (auto &kv : map_) b += kv.second.size();
        return b;
    }
    uint64_t allocations() const { return allocations_; }
    void clear() { map_.clear(); }

private:
    template <class F>
    mvector<uint8_t> &make(const TableKey &key, uint64_t count) {
        auto &v = map_[key];
        v.resize(count * sizeof(typename F::Tw));
        ++allocations_;
        return v;
    }

    ThreadPool &pool_;
    std::map<TableKey, mvector<uint8_t>> map_;
    uint64_t allocations_ = 0;
};

}  // namespace gp
