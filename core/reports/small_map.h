#pragma once
// A map of a few entries kept in a vector and found by a scan: matching walks millions of
// communication kernels through maps of a handful of keys (types, streams, communicators), where a
// tree's allocations and pointer chasing cost more than comparing each entry.
#include <algorithm>
#include <utility>
#include <vector>

namespace ls {

template <typename Key, typename Value> class SmallMap {
  public:
    // The value of `key`, made (value-initialised) when absent, and whether it was made. The
    // pointer holds until the next insertion.
    std::pair<Value*, bool> tryEmplace(const Key& key) {
        for (auto& entry : entries_)
            if (entry.first == key) return {&entry.second, false};
        entries_.emplace_back(key, Value{});
        return {&entries_.back().second, true};
    }
    // The entries by key.
    std::vector<std::pair<Key, Value>> sorted() const {
        auto copy = entries_;
        std::sort(copy.begin(), copy.end());
        return copy;
    }

  private:
    std::vector<std::pair<Key, Value>> entries_;
};

} // namespace ls
