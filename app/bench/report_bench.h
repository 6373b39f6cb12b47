#pragma once
// layerscope-bench FILE --reports: every `layerscope-cli summary --report X` run in this process
// (its output counted and dropped, as into /dev/null), alternating with the full load
// (`info --no-cache`), medians and each report's ratio to the load. Memory per report needs
// whole processes: tools/bench_reports.sh.
#include <string>

int runReportBench(const std::string& path, int runs, bool json);
