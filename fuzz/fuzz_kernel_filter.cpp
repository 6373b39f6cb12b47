// Fuzz target: the kernel table's filter language (core/views/kernel_filter.h), typed into the
// GUI's filter bar or passed to `layerscope-cli kernels --filter`. Each expression that parses is
// also applied to the bundled sample trace, loaded and tabled once for the whole run.
#include "core/load/load.h"
#include "core/views/kernel_filter.h"
#include "core/views/kernel_table.h"
#include "fuzz/fuzz_check.h"

#include <cstddef>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <memory>
#include <string>
#include <string_view>
#include <vector>

namespace {

struct Sample {
    std::unique_ptr<ls::KernelTable> table;
    std::vector<ls::KernelId> rows; // every kernel, in table order
};

// LAYERSCOPE_FUZZ_TRACE in the environment picks another trace.
const Sample& sample() {
    static const Sample s = [] {
        const char* env = std::getenv("LAYERSCOPE_FUZZ_TRACE");
        const std::string path = env && *env ? env : LAYERSCOPE_SAMPLE_TRACE;
        auto r = ls::loadTrace(path);
        if (!r.ok()) {
            std::fprintf(stderr, "fuzz_kernel_filter: cannot load %s: %s\n", path.c_str(),
                         r.error ? r.error->reason.c_str() : "");
            std::abort();
        }
        Sample out;
        out.table = std::make_unique<ls::KernelTable>(r.trace);
        for (uint32_t k = 0; k < out.table->size(); ++k) out.rows.push_back(ls::KernelId(k));
        return out;
    }();
    return s;
}

} // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
    const std::string_view text(reinterpret_cast<const char*>(data), size);
    const Sample& s = sample();
    (void)ls::KernelFilter::column(text);
    const ls::FilterParse p = ls::KernelFilter::parse(text);
    FUZZ_CHECK(p.filter.has_value() == p.error.empty());
    if (!p.filter) return 0;
    // The kept rows are a subsequence of the rows given.
    const std::vector<ls::KernelId> kept = p.filter->apply(*s.table, s.rows);
    FUZZ_CHECK(kept.size() <= s.rows.size());
    for (size_t i = 1; i < kept.size(); ++i) FUZZ_CHECK(kept[i - 1].value < kept[i].value);
    if (p.filter->empty()) FUZZ_CHECK(kept.size() == s.rows.size());
    return 0;
}
