#pragma once
// A value for each NVTX range on a chain of ancestors, made on demand from its parent's value:
// for ranges asked about in about time order (the kernels' innermost ranges), the last chain of
// each thread is kept, and only the levels below the part a new range shares with it are made.
// A question reads only the ranges its chain does not share with the last (found by their depth),
// and no array spans every range of the trace (8M ranges: 32 MB of fresh pages for a uint32
// each, which took longer than the walks).
#include "core/model/trace.h"

#include <algorithm>
#include <utility>
#include <vector>

namespace ls {

template <typename Value> class AncestorWalk {
  public:
    explicit AncestorWalk(const Trace& t)
        : t_(t), last_(t.threads.size() + 1) {} // the last for a range of no known thread

    // The value of range r (valid); make(const Value* parentValue or null at the top, RangeId).
    template <typename Make> const Value& of(RangeId r, Make&& make) {
        auto& last =
            last_[std::min<size_t>(t_.rangeThread(r).value, last_.size() - 1)]; // outermost first
        const size_t common = shared(r, last);
        last.resize(common);
        for (size_t i = path_.size(); i-- > 0;) {
            Value v = make(last.empty() ? nullptr : &last.back().second, path_[i]);
            last.emplace_back(path_[i], std::move(v));
        }
        return last.back().second;
    }

  private:
    using Chain = std::vector<std::pair<RangeId, Value>>;

    // How many of the last chain's outermost ranges r's chain shares; path_ gets r's other
    // ranges, innermost first. A range of depth d sits at position d of a chain, so the walk up
    // stops at the first ancestor found there (usually r's parent) instead of at the top. Depths
    // are capped at 255, but the range at position 255 of a chain truly has depth 255, so a
    // deeper range never matches one: it is walked past, as it must be.
    size_t shared(RangeId r, const Chain& last) {
        path_.clear();
        const auto& depth = t_.ranges.depth;
        for (RangeId a = r; a.valid(); a = t_.ranges.parent[a.value]) {
            const size_t d = depth[a.value];
            if (d < last.size() && last[d].first == a) return d + 1;
            path_.push_back(a);
        }
        return 0;
    }

    const Trace& t_;
    std::vector<Chain> last_; // per thread
    std::vector<RangeId> path_;
};

} // namespace ls
