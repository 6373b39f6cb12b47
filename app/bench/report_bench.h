#pragma once
// layerscope-bench FILE --reports: every `layerscope-cli summary --report X` run in this process
// (its output counted and dropped, as into /dev/null), alternating with the full load
// (`info --no-cache`), medians and each report's ratio to the load. Memory per report needs
// whole processes: tools/bench_reports.sh.
#include <string>
#include <vector>

// `only`: these reports (names as `summary --report` takes them); empty: all of them.
int runReportBench(const std::string& path, int runs, bool json,
                   const std::vector<std::string>& only = {});
