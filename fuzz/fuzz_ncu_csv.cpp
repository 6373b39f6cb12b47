// Fuzz target: Nsight Compute CSV (core/import/ncu/ncu_csv.h), read from a file the user names:
// the CSV parser, its number and dim3 parsers, and every accessor a view calls on the result.
#include "core/import/ncu/ncu_csv.h"
#include "fuzz/fuzz_check.h"

#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <string_view>

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
    const std::string_view text(reinterpret_cast<const char*>(data), size);

    // The cell parsers on their own, on every comma-separated piece of the first lines.
    (void)ls::parseNcuNumber(text);
    (void)ls::parseNcuDim3(text);
    size_t pieces = 0;
    for (size_t pos = 0; pos <= text.size() && pieces < 64; ++pieces) {
        const size_t end = std::min(text.find_first_of(",\n", pos), text.size());
        (void)ls::parseNcuNumber(text.substr(pos, end - pos));
        (void)ls::parseNcuDim3(text.substr(pos, end - pos));
        pos = end + 1;
    }

    const ls::NcuParseResult r = ls::parseNcuCsv(text);
    FUZZ_CHECK(r.ok() == r.error.empty());
    if (!r.ok()) return 0;
    const ls::NcuCsv& csv = *r.csv;
    const size_t cells = csv.kernels.size() * csv.metrics.size();
    FUZZ_CHECK(!csv.kernels.empty());
    FUZZ_CHECK(csv.values.size() == cells && csv.texts.size() == cells &&
               csv.decimals.size() == cells && csv.present.size() == cells);
    for (size_t k = 1; k < csv.kernels.size(); ++k)
        FUZZ_CHECK(csv.kernels[k - 1].id < csv.kernels[k].id);
    for (uint32_t t : csv.texts) FUZZ_CHECK(t < csv.textPool.size());

    // What the table views and the CLI read back.
    for (uint32_t m = 0; m < csv.metrics.size(); ++m) {
        (void)csv.columnName(m);
        FUZZ_CHECK(csv.findMetric(csv.metrics[m].section, csv.metrics[m].name).has_value());
    }
    for (size_t k = 0; k < csv.kernels.size(); ++k) {
        for (uint32_t m = 0; m < csv.metrics.size(); ++m) (void)csv.text(k, m);
        for (size_t w = 0; w < static_cast<size_t>(ls::NcuKnownMetric::Count_); ++w)
            (void)csv.knownValue(k, static_cast<ls::NcuKnownMetric>(w));
    }
    return 0;
}
