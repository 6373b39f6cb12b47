#pragma once
// The median of a benchmark's runs (the mean of the middle two of an even count; 0 for none).
#include <algorithm>
#include <vector>

inline double benchMedian(std::vector<double> v) {
    std::sort(v.begin(), v.end());
    const size_t n = v.size();
    return n == 0 ? 0 : n % 2 ? v[n / 2] : (v[n / 2 - 1] + v[n / 2]) / 2;
}
