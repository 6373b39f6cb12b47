#pragma once
// Sessions the job tests summarise: the shared multi-rank traces (skipped when ../shared is
// absent) and the bundled sample copied twice as rank0 and rank1.
#include "tests/support/test_support.h"

#include <string>
#include <vector>

namespace ls::test {

struct JobCase {
    std::string name;
    std::vector<std::string> files; // empty: its traces are absent
};

inline std::vector<std::string> sharedPair(const std::string& a, const std::string& b) {
    const fs::path dir = sharedDir() / "traces";
    if (!fs::exists(dir / a) || !fs::exists(dir / b)) return {};
    return {(dir / a).string(), (dir / b).string()};
}

// The sample copied as rank0/rank1 into `dir`.
inline std::vector<std::string> samplePair(const fs::path& dir) {
    std::vector<std::string> files;
    for (const char* name : {"rank0.sqlite", "rank1.sqlite"}) {
        fs::copy_file(sampleTrace(), dir / name, fs::copy_options::overwrite_existing);
        files.push_back((dir / name).string());
    }
    return files;
}

} // namespace ls::test
