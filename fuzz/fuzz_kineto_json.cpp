// Fuzz target: the PyTorch profiler (Kineto) JSON importer on whole files (core/import/kineto),
// through loadTrace as the app calls it: the streaming splitter, the simdjson event parser, the
// exact time parser, the builder, the assembler and correlation. The input is handed over as an
// anonymous in-memory file (memfd), so nothing is written to disk. The splitter alone runs twice
// first, with the whole input in one read block and with tiny blocks: it must cut the text the
// same.
#include "core/import/kineto/chrome_trace_stream.h"
#include "core/import/kineto/json_time.h"
#include "core/load/load.h"
#include "fuzz/fuzz_check.h"

#include <cstddef>
#include <cstdint>
#include <string>
#include <string_view>
#include <sys/mman.h>
#include <unistd.h>

namespace {

// Every run of digits, dots, signs and exponents as a time text.
void fuzzTimes(std::string_view text) {
    size_t i = 0;
    for (int n = 0; i < text.size() && n < 64; ++n) {
        const size_t start = text.find_first_of("-0123456789", i);
        if (start == std::string_view::npos) break;
        size_t end = start + 1;
        while (end < text.size() &&
               std::string_view("0123456789.eE+-").find(text[end]) != std::string_view::npos)
            ++end;
        const auto ns = ls::microsTextToNs(text.substr(start, end - start));
        (void)ns;
        i = end;
    }
}

// The splitter's items, verdict and byte offsets, as one text.
std::string split(const std::string& path, size_t block) {
    ls::ChromeTraceStream stream(path, block);
    std::string out;
    std::string_view key, value;
    for (auto item = stream.next(key, value); item != ls::ChromeTraceStream::Item::End;
         item = stream.next(key, value)) {
        const volatile char* after =
            value.data() + value.size(); // volatile: the reads stay, ASan checks them
        for (size_t k = 0; k < ls::ChromeTraceStream::kPadding; ++k)
            (void)after[k]; // the padding promised to simdjson
        out += item == ls::ChromeTraceStream::Item::Event
                   ? std::string("E")
                   : "M" + std::to_string(key.size()) + ":" + std::string(key);
        out += std::to_string(value.size()) + ":" + std::string(value);
    }
    out += stream.problem() ? "P" + *stream.problem() : std::string("-");
    out += stream.sawTraceEvents() ? "T" : "t";
    return out;
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
    const std::string path = "/proc/self/fd/" + std::to_string(fd);
    // Real blocks are 2 MiB, so a refill lands inside a token only in big files: here, everywhere.
    // Blocks of 1 to 64 bytes (each costs a hand-over between threads: 1-byte ones are slow).
    FUZZ_CHECK(split(path, size + 1) == split(path, 1 + (size ? data[size / 2] % 64 : 0)));

    ls::LoadOptions options;
    options.threads = 1;
    const ls::LoadResult r = ls::loadTrace(path, options);
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
        FUZZ_CHECK(t.rangeThread(ls::RangeId(static_cast<uint32_t>(i))).value < t.threads.size());
        FUZZ_CHECK(!t.ranges.parent[i].valid() || t.ranges.parent[i].value < i);
    }
    FUZZ_CHECK(t.kernelLinks.layer.size() == t.kernels.size() &&
               t.metrics.flops.size() == t.kernels.size());
    return 0;
}
