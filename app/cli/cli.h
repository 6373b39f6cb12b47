#pragma once
// layerscope-cli as a function, so tests run it in-process with string streams.
#include <iosfwd>
#include <string>
#include <vector>

namespace ls::cli {

enum ExitCode { kOk = 0, kUsage = 2, kUnreadable = 3 };

int run(const std::vector<std::string>& args, std::ostream& out, std::ostream& err);

} // namespace ls::cli
