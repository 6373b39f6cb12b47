#pragma once
// The builder every importer ends with. Given a Trace whose event columns, processes, threads and
// strings are filled (rows in any order), it drops duplicate API rows, sorts each table by start
// once, assigns streams, links GPU work to its launch call by (process, correlation id), resolves
// NVTX nesting and builds the CSR indexes, so every input format yields the same model.
#include "core/import/common/row_flags.h"
#include "core/model/trace.h"

#include <chrono>
#include <cstdint>
#include <vector>

namespace ls {

struct AssemblyInput {
    // Per API row, 1 where the row is the CUDA backtrace twin of a call (older nsys exports hold
    // two rows per correlation id): of two rows with one id the twin goes. Empty: none.
    RowFlags apiIsBacktrace;
    std::vector<Device> devices; // from the file; devices seen only on streams are added
    ExportInfo info;
    // The ranges' source rows in their order before assembly, where the importer left
    // RangeColumns::importSourceRow empty because the rows' positions say them.
    RowRuns rangeSourceRows;
};

void assembleTrace(Trace& t, AssemblyInput input, unsigned threads);

// Appends (phase, seconds since the previous mark) to Trace::loadPhases.
class PhaseTimer {
  public:
    explicit PhaseTimer(Trace& t) : t_(t) {}
    void mark(const char* phase);

  private:
    Trace& t_;
    std::chrono::steady_clock::time_point last_ = std::chrono::steady_clock::now();
};

} // namespace ls
