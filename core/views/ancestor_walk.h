#pragma once
// A value for each NVTX range on a chain of ancestors, made on demand from its parent's value:
// for ranges asked about in about time order (the kernels' innermost ranges), the last chain of
// each thread is kept, and only the levels below the part a new range shares with it are made.
// O(depth) a question, and no array over every range of the trace (8M ranges: 32 MB of fresh
// pages for a uint32 each, which took longer than the walks).
#include "core/model/trace.h"

#include <algorithm>
#include <utility>
#include <vector>

namespace ls {

template <typename Value> class AncestorWalk {
public:
    explicit AncestorWalk(const Trace& t) : t_(t), last_(t.threads.size() + 1) {} // the last for a range of no known thread

    // The value of range r (valid); make(const Value* parentValue or null at the top, RangeId).
    template <typename Make> const Value& of(RangeId r, Make&& make) {
        path_.clear();
        for (RangeId a = r; a.valid(); a = t_.ranges.parent[a.value]) path_.push_back(a); // innermost first
        auto& last = last_[std::min<size_t>(t_.rangeThread(r).value, last_.size() - 1)]; // outermost first
        size_t common = 0;
        while (common < path_.size() && common < last.size() && last[common].first == path_[path_.size() - 1 - common]) ++common;
        last.resize(common);
        for (size_t i = path_.size() - common; i-- > 0;) {
            Value v = make(last.empty() ? nullptr : &last.back().second, path_[i]);
            last.emplace_back(path_[i], std::move(v));
        }
        return last.back().second;
    }

private:
    const Trace& t_;
    std::vector<std::vector<std::pair<RangeId, Value>>> last_; // per thread
    std::vector<RangeId> path_;
};

} // namespace ls
