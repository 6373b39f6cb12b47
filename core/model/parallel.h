#pragma once
// Splits [0, n) into `parts` contiguous pieces and runs f(begin, end, part) on each, one thread
// per piece (the calling thread takes the first). Pieces must write disjoint data.
#include <algorithm>
#include <atomic>
#include <cstddef>
#include <thread>
#include <vector>

namespace ls {

// Below this many rows a pass is not worth a second thread (its start costs more than it saves).
inline constexpr size_t kParallelRows = 65536;

template <typename F> void parallelFor(size_t n, unsigned parts, F&& f) {
    parts = static_cast<unsigned>(std::clamp<size_t>(n, 1, std::max(1u, parts)));
    std::vector<std::jthread> pool; // joins even if starting a later thread throws
    for (unsigned p = 1; p < parts; ++p)
        pool.emplace_back([&, p] { f(n * p / parts, n * (p + 1) / parts, p); });
    f(0, n / parts, 0u);
}

// Runs every task once on up to `threads` threads (the calling thread is one), each thread taking
// the next task not yet taken: put the longest first. Tasks must write disjoint data.
template <typename Task> void runTasks(std::vector<Task>& tasks, unsigned threads) {
    std::atomic<size_t> next{0};
    auto work = [&] {
        for (size_t i; (i = next.fetch_add(1)) < tasks.size();) tasks[i]();
    };
    std::vector<std::jthread> pool;
    for (unsigned t = 1; t < std::min<size_t>(std::max(1u, threads), tasks.size()); ++t)
        pool.emplace_back(work);
    work();
}

// Sorts [first, last) on up to `parts` threads: halves sorted at once, then merged.
template <typename It, typename Less>
void parallelSort(It first, It last, unsigned parts, Less less) {
    const auto n = last - first;
    if (parts < 2 || static_cast<size_t>(n) < kParallelRows) {
        std::sort(first, last, less);
        return;
    }
    const It mid = first + n / 2;
    {
        std::jthread other([&] { parallelSort(mid, last, parts - parts / 2, less); });
        parallelSort(first, mid, parts / 2, less);
    }
    std::inplace_merge(first, mid, last, less);
}

} // namespace ls
