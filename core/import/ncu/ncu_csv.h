#pragma once
// Nsight Compute `ncu --csv` output read into plain columns: one row per profiled kernel and one
// column per metric. Both pages are understood: the default "details" page (one line per kernel
// and metric: "ID","Process ID",…,"Section Name","Metric Name","Metric Unit","Metric Value") and
// `--page raw` (one line per kernel, one column per metric, a units line under the header).
// Whatever the profiled program printed before the header is skipped, as are ncu's own
// "==PROF==" lines. docs/ncu.md describes the format support.
#include "core/model/trace.h"

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace ls {

enum class NcuPage : uint8_t { Details, Raw };
std::string_view ncuPageName(NcuPage p); // "details", "raw"

// One profiled kernel launch, as ncu identifies it.
struct NcuKernel {
    uint64_t id = 0; // ncu's "ID": profiled launches numbered from 0 in launch order
    uint32_t pid = 0;
    std::string processName, hostName;
    std::string name; // as ncu prints it (demangled, in ncu's style)
    uint32_t context = 0, stream = 0;
    int device = -1; // -1: not in the file
    std::string cc;  // compute capability, e.g. "9.0"
    Dim3 grid, block;
    bool hasDims = false; // "Grid Size" and "Block Size" were present and parsed
    bool operator==(const NcuKernel&) const = default;
};

struct NcuMetricInfo {
    std::string section; // details page: "GPU Speed Of Light Throughput"; raw page: empty
    std::string name;    // "Duration", or a raw metric name such as "gpu__time_duration.sum"
    std::string unit;    // as printed for the first value ("ns", "%", "byte"); may be empty
    bool operator==(const NcuMetricInfo&) const = default;
};

// Metrics Layerscope knows by meaning, found under their details-page or raw-page names.
enum class NcuKnownMetric : uint8_t {
    Duration,             // in ns whatever unit the file uses
    AchievedOccupancy,    // %
    TheoreticalOccupancy, // %
    SmThroughput,         // Compute (SM) Throughput, %
    DramThroughput,       // %
    MemoryThroughput,     // %
    Registers,            // per thread
    Count_
};

// The parsed file: kernels sorted by ID; a kernels × metrics matrix of values (row-major).
struct NcuCsv {
    NcuPage page = NcuPage::Details;
    std::vector<NcuKernel> kernels;
    std::vector<NcuMetricInfo> metrics; // in the file's order
    std::vector<double> values;         // NaN: missing, "n/a" or not a number (see texts)
    std::vector<uint32_t> texts;  // 0: none; else an index into textPool (non-numeric cells, "n/a")
    std::vector<int8_t> decimals; // digits after the point as printed; -1: shortest form
    std::vector<std::string> textPool{std::string()};
    std::vector<uint8_t> present;      // 1 where the file holds a cell for (kernel, metric)
    size_t skippedLines = 0;           // lines before the header (the program's output)
    size_t ruleRows = 0;               // details page: rule/advice lines, not metrics
    std::vector<std::string> warnings; // oddities that did not stop the parse

    size_t index(size_t kernel, uint32_t metric) const { return kernel * metrics.size() + metric; }
    double value(size_t kernel, uint32_t metric) const { return values[index(kernel, metric)]; }
    bool has(size_t kernel, uint32_t metric) const { return present[index(kernel, metric)] != 0; }
    // The cell as text: the number as ncu printed it without thousands separators ("75.30";
    // shortest form after a unit conversion), the text ncu printed ("n/a", "CachePreferNone"), or
    // empty when the file has no such cell.
    std::string text(size_t kernel, uint32_t metric) const;
    // "ncu:Section/Metric Name [unit]" (raw page: "ncu:metric__name [unit]").
    std::string columnName(uint32_t metric) const;
    std::optional<uint32_t> findMetric(std::string_view section, std::string_view name) const;
    std::optional<uint32_t> known(NcuKnownMetric m) const;
    // The known metric's value for a kernel in its canonical unit (Duration in ns); NaN if absent.
    double knownValue(size_t kernel, NcuKnownMetric m) const;
};

struct NcuParseResult {
    std::optional<NcuCsv> csv;
    std::string error; // one line, without the file name: "line 7: …"
    bool ok() const { return csv.has_value(); }
};

NcuParseResult parseNcuCsv(std::string_view text);
// Reads and parses a file; errors say why (missing, unreadable, malformed) without the path.
NcuParseResult readNcuCsvFile(const std::string& path);

// A number as ncu prints it: "1,234.5" (thousands separators), "-3", "1e+06". nullopt for
// anything else ("n/a", "(64, 50, 1)", "1,23").
std::optional<double> parseNcuNumber(std::string_view s);
// "(64, 50, 1)" or "64,50,1".
std::optional<Dim3> parseNcuDim3(std::string_view s);

} // namespace ls
