#pragma once
#include "app/cli/cli.h"
#include "app/cli/options.h"
#include "core/load.h"

#include <iosfwd>
#include <memory>

namespace ls::cli {

struct Context {
    std::ostream& out;
    std::ostream& err;
};

int commandInfo(const Options& o, Context& c);
int commandKernels(const Options& o, Context& c);
int commandSummary(const Options& o, Context& c);

// Loads the one FILE argument; prints the error line and returns nullptr on failure.
std::shared_ptr<const Trace> loadForCommand(const Options& o, Context& c, int& exitCode);

} // namespace ls::cli
