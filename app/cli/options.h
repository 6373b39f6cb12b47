#pragma once
// Minimal option parsing shared by the CLI commands: one positional FILE, --key value pairs
// and flags, with a usage error for anything unknown.
#include <map>
#include <optional>
#include <set>
#include <string>
#include <vector>

namespace ls::cli {

struct Options {
    std::vector<std::string> positional;
    std::map<std::string, std::string> values;
    std::set<std::string> flags;
    bool help = false;
    std::string get(const std::string& key, const std::string& fallback) const {
        auto it = values.find(key);
        return it == values.end() ? fallback : it->second;
    }
};

// Parses args (without the command); error is set for an unknown option or a missing value.
Options parseOptions(const std::vector<std::string>& args,
                     const std::set<std::string>& valueOptions,
                     const std::set<std::string>& flagOptions, std::string& error);

} // namespace ls::cli
