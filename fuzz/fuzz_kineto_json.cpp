// Fuzz target: the PyTorch profiler (Kineto) JSON importer on whole files (core/import/kineto),
// through loadTrace as the app calls it: the streaming splitter, the simdjson event parser, the
// exact time parser, the builder, the assembler and correlation. The input is handed over as an
// anonymous in-memory file (memfd), so nothing is written to disk.
#include "core/import/kineto/json_time.h"
#include "core/load/load.h"
#include "fuzz/fuzz_check.h"

#include <sys/mman.h>
#include <unistd.h>

#include <cstddef>
#include <cstdint>
#include <string>
#include <string_view>

namespace {

// Every run of digits, dots, signs and exponents as a time text.
void fuzzTimes(std::string_view text) {
    size_t i = 0;
    for (int n = 0; i < text.size() && n < 64; ++n) {
        const size_t start = text.find_first_of("-0123456789", i);
        if (start == std::string_view::npos) break;
        size_t end = start + 1;
        while (end < text.size() && std::string_view("0123456789.eE+-").find(text[end]) != std::string_view::npos) ++end;
        const auto ns = ls::microsTextToNs(text.substr(start, end - start));
        (void)ns;
        i = end;
    }
}

} // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
    const std::string_view text(reinterpret_cast<const char*>(data), size);
    fuzzTimes(text);

    const int fd = memfd_create("kineto-fuzz", 0);
    FUZZ_CHECK(fd >= 0);
    for (size_t done = 0; done < size;) {
        const ssize_t n = write(fd, data + done, size - done);
        FUZZ_CHECK(n > 0);
        done += static_cast<size_t>(n);
    }
    ls::LoadOptions options;
    options.threads = 1;
    const ls::LoadResult r = ls::loadTrace("/proc/self/fd/" + std::to_string(fd), options);
    close(fd);
    FUZZ_CHECK(r.ok() != r.error.has_value());
    if (!r.ok()) {
        FUZZ_CHECK(!r.error->reason.empty() && r.error->reason.find('\n') == std::string::npos);
        return 0;
    }
    // The model's invariants every view relies on.
    const ls::Trace& t = *r.trace;
    for (size_t k = 0; k < t.kernels.size(); ++k) {
        FUZZ_CHECK(t.kernels.start[k] <= t.kernels.end[k]);
        FUZZ_CHECK(!t.kernels.launch[k].valid() || t.kernels.launch[k].value < t.apiCalls.size());
        FUZZ_CHECK(t.kernels.streamIndex[k].value < t.streams.size());
    }
    for (size_t i = 0; i < t.ranges.size(); ++i) {
        FUZZ_CHECK(t.ranges.start[i] <= t.ranges.end[i]);
        FUZZ_CHECK(t.ranges.thread[i].value < t.threads.size());
        FUZZ_CHECK(!t.ranges.parent[i].valid() || t.ranges.parent[i].value < i);
    }
    FUZZ_CHECK(t.kernelLinks.layer.size() == t.kernels.size() && t.metrics.flops.size() == t.kernels.size());
    return 0;
}
