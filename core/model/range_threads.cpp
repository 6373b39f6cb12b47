#include "core/model/range_threads.h"

#include <algorithm>

namespace ls {

std::vector<uint32_t> threadsWithRangesBusiestFirst(const Trace& t) {
    const auto& begin = t.threadRangeBegin;
    std::vector<uint32_t> threads;
    if (begin.size() != t.threads.size() + 1 || begin.front() != 0 ||
        begin.back() != t.ranges.size())
        return threads;
    for (uint32_t th = 0; th < t.threads.size(); ++th)
        if (begin[th + 1] > begin[th]) threads.push_back(th);
    const auto rangesOf = [&](uint32_t th) { return begin[th + 1] - begin[th]; };
    std::stable_sort(threads.begin(), threads.end(),
                     [&](uint32_t a, uint32_t b) { return rangesOf(a) > rangesOf(b); });
    return threads;
}

} // namespace ls
