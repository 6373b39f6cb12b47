#pragma once
// Splits [0, n) into `parts` contiguous pieces and runs f(begin, end, part) on each, one thread
// per piece (the calling thread takes the first). Pieces must write disjoint data.
#include <algorithm>
#include <cstddef>
#include <thread>
#include <vector>

namespace ls {

template <typename F> void parallelFor(size_t n, unsigned parts, F&& f) {
    parts = static_cast<unsigned>(std::clamp<size_t>(n, 1, std::max(1u, parts)));
    std::vector<std::jthread> pool; // joins even if starting a later thread throws
    for (unsigned p = 1; p < parts; ++p) pool.emplace_back([&, p] { f(n * p / parts, n * (p + 1) / parts, p); });
    f(0, n / parts, 0u);
}

} // namespace ls
