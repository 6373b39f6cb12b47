#pragma once
#include "app/cli/cli.h"
#include "app/cli/options.h"
#include "core/load/load.h"
#include "core/reports/table_writer.h"

#include <optional>

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
int commandOps(const Options& o, Context& c);

// The --format option (default csv); prints the usage error and returns nullopt when invalid.
std::optional<TableFormat> formatOption(const Options& o, Context& c);

// Loads the one FILE argument; prints the error line and returns nullptr on failure.
std::shared_ptr<const Trace> loadForCommand(const Options& o, Context& c, int& exitCode);

} // namespace ls::cli
