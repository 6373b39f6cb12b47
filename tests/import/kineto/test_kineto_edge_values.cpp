// Edge cases of the Kineto reader's text splitting, found by reading, crafting inputs and fuzzing:
// a backslash as the last byte of a read block (its escape must carry over), a byte order mark
// split over two blocks, a number cut by the end of the file, the same split whatever the block
// size, real traces cut inside an event; and times so large that an end or a capture span would
// overflow int64 (UB before; such events are now skipped and counted).
#include "core/import/kineto/chrome_trace_stream.h"
#include "core/load/load.h"
#include "tests/support/test_support.h"

#include <gtest/gtest.h>
#include <string>
#include <vector>
#include <zlib.h>

namespace ls::test {
namespace {

std::string launch(int i) {
    return R"({"ph": "X", "cat": "cuda_runtime", "name": "cudaLaunchKernel", "pid": 1, "tid": 1, "ts": )" +
           std::to_string(10 * i) + R"(, "dur": 1, "args": {"correlation": )" + std::to_string(i) +
           "}}";
}

// ChromeTraceStream reads 2 MiB blocks (kBlockBytes); the bracket scanner
// walks 16 bytes at a time from the event's start, so its last step before a block's end is short.
TEST(KinetoEdgeValues, AnEscapeAtTheEndOfAReadBlockStaysInItsString) {
    constexpr size_t kBlock = ChromeTraceStream::kBlockBytes;
    std::string text = "{\"traceEvents\": [\n";
    int n = 0;
    while (text.size() < kBlock - 400) text += launch(n++) + ",\n";
    if (text.size() % 16 == 0) text += ' '; // a short last step (a full one was always right)
    // A kernel whose name holds \"}} with the backslash as the block's last byte: read as the end
    // of the string, the }} closed the event early and the rest of the file was lost.
    const std::string head = R"({"ph": "X", "cat": "kernel", "name": ")";
    text += head + std::string(kBlock - 1 - text.size() - head.size(), 'a') +
            "\\\"}}, \", \"pid\": 0, \"tid\": 7, \"ts\": 5, \"dur\": 1, "
            "\"args\": {\"correlation\": 0, \"stream\": 7}}";
    ASSERT_EQ(text[kBlock - 1], '\\');
    ASSERT_EQ(text[kBlock], '"');
    for (int i = 0; i < 50; ++i) text += ",\n" + launch(n++);
    text += "\n]}";
    TempDir dir;
    writeFile(dir / "escape.json", text);

    ChromeTraceStream stream((dir / "escape.json").string());
    std::string_view key, value;
    size_t events = 0;
    bool kernelWhole = false;
    while (stream.next(key, value) == ChromeTraceStream::Item::Event) {
        ++events;
        if (value.substr(0, head.size()) == head) kernelWhole = value.ends_with("\"stream\": 7}}");
    }
    EXPECT_FALSE(stream.problem().has_value()) << *stream.problem();
    EXPECT_EQ(events, static_cast<size_t>(n) + 1);
    EXPECT_TRUE(kernelWhole);

    const auto r = loadTrace((dir / "escape.json").string(), {});
    ASSERT_TRUE(r.ok()) << r.error->reason;
    EXPECT_EQ(r.trace->kernels.size(), 1u);
    EXPECT_EQ(r.trace->apiCalls.size(), static_cast<size_t>(n));
    EXPECT_EQ(r.trace->report.count(Anomaly::MalformedEvent), 0u);
    EXPECT_EQ(r.trace->report.count(Anomaly::TruncatedJson), 0u);
}

// The splitter's items and verdict, read in blocks of the given size.
std::vector<std::string> split(const fs::path& file, size_t block) {
    ChromeTraceStream stream(file.string(), block);
    std::vector<std::string> out;
    std::string_view key, value;
    while (stream.next(key, value) != ChromeTraceStream::Item::End)
        out.push_back(std::string(key) + "|" + std::string(value));
    out.push_back(stream.problem().value_or("clean") +
                  (stream.sawTraceEvents() ? " with traceEvents" : ""));
    return out;
}

// A refill can land anywhere in the text: inside a key, a number, a string, an escape, a byte
// order mark. The real trace, whole and cut, and a BOM split as 2 MiB blocks and as tiny ones.
TEST(KinetoEdgeValues, TheTextSplitsTheSameWhateverTheReadBlockSize) {
    TempDir dir;
    const fs::path gpt2 =
        sourceDir() / "tests" / "data" / "kineto" / "gpt2_2layer_fp16_h200.kineto.json.gz";
    const auto whole = split(gpt2, ChromeTraceStream::kBlockBytes);
    ASSERT_GT(whole.size(), 5000u);
    EXPECT_EQ(whole.back(), "clean with traceEvents");
    EXPECT_EQ(split(gpt2, 4093), whole);
    const std::string text = "\xEF\xBB\xBF{\"traceEvents\": [{\"name\": \"a\\\\\\\"b\", \"ts\": "
                             "12.5, \"args\": {\"Input Dims\": [[1, 2], []]}}], \"x\": -1.5e3}";
    writeFile(dir / "small.json", text);
    const auto reference = split(dir / "small.json", ChromeTraceStream::kBlockBytes);
    EXPECT_EQ(reference.back(), "clean with traceEvents");
    for (size_t block = 1; block <= 17; ++block)
        EXPECT_EQ(split(dir / "small.json", block), reference) << block << "-byte blocks";
    writeFile(dir / "cut.json", text.substr(0, text.size() / 2));
    const auto cut = split(dir / "cut.json", ChromeTraceStream::kBlockBytes);
    for (size_t block = 1; block <= 5; ++block)
        EXPECT_EQ(split(dir / "cut.json", block), cut) << block << "-byte blocks";
    // Cut in a number at the end of the text (fuzzing found it): the last refill moved the text to
    // the front of the buffer, but the scan kept its old offset and handed out the number followed
    // by stale bytes, and "at byte" counted past the end of the file.
    const std::string numberAtEnd = R"({"traceEvents": [], "baseTimeNanoseconds": 17908570)";
    writeFile(dir / "number.json", numberAtEnd);
    const auto number = split(dir / "number.json", ChromeTraceStream::kBlockBytes);
    ASSERT_EQ(number.size(), 2u);
    EXPECT_EQ(number[0], "baseTimeNanoseconds|17908570");
    EXPECT_EQ(number[1], "the JSON ends early (truncated file?) at byte " +
                             std::to_string(numberAtEnd.size()) + " with traceEvents");
    for (size_t block = 1; block <= 5; ++block)
        EXPECT_EQ(split(dir / "number.json", block), number) << block << "-byte blocks";
}

std::string gunzip(const fs::path& p) {
    gzFile gz = gzopen(p.string().c_str(), "rb");
    std::string out;
    char buf[1 << 16];
    for (int n = 0; gz && (n = gzread(gz, buf, sizeof buf)) > 0;)
        out.append(buf, static_cast<size_t>(n));
    if (gz) gzclose(gz);
    return out;
}

// [begin, end) of each element of traceEvents: brackets and strings, written apart from the
// reader's scanner so that the two check each other.
std::vector<std::pair<size_t, size_t>> eventSpans(const std::string& json) {
    std::vector<std::pair<size_t, size_t>> out;
    size_t i = json.find("\"traceEvents\"");
    if (i == std::string::npos) return out;
    int depth = 0;
    bool inString = false;
    size_t begin = 0;
    for (i = json.find('[', i) + 1; i < json.size(); ++i) {
        const char c = json[i];
        if (inString) {
            if (c == '\\')
                ++i;
            else if (c == '"')
                inString = false;
        } else if (c == '"') {
            inString = true;
        } else if (c == '{' || c == '[') {
            if (depth++ == 0) begin = i;
        } else if (c == '}' || c == ']') {
            if (depth == 0) break; // the end of traceEvents
            if (--depth == 0) out.emplace_back(begin, i + 1);
        }
    }
    return out;
}

// Real traces (the project's, and ../shared's third-party HTA traces when present: one of them
// spans several read blocks) cut inside an event: every kernel before the cut loads, the report
// says where the text stopped: at the start of the cut event.
TEST(KinetoEdgeValues, ACutInsideTraceEventsKeepsEveryKernelBeforeIt) {
    const fs::path ours = sourceDir() / "tests" / "data" / "kineto",
                   hta = sharedDir() / "traces" / "third-party" / "kineto";
    TempDir dir;
    size_t sources = 0;
    for (const fs::path& p :
         {ours / "gpt2_2layer_fp16_h200.kineto.json.gz", ours / "fsdp_rank0.kineto.json.gz",
          hta / "HTA__critical_path_alexnet_benchmark_result_2869224_1695835535_trace.json.gz",
          hta / "HTA__trace_filter_sampled_rank-0.json.gz",
          hta / "HTA__ns_resolution_trace_rank-0.Apr_03_18_51_38.1102.pt.trace.json.gz"}) {
        if (!fs::exists(p)) continue; // third-party traces are optional
        ++sources;
        const std::string json = gunzip(p);
        const auto spans = eventSpans(json);
        ASSERT_GT(spans.size(), 100u) << p;
        for (const size_t k : {spans.size() / 3, spans.size() * 2 / 3}) {
            const size_t cut = (spans[k].first + spans[k].second) / 2;
            SCOPED_TRACE(p.filename().string() + " cut at " + std::to_string(cut));
            size_t kernels = 0;
            for (size_t e = 0; e < k; ++e)
                kernels += std::string_view(json)
                               .substr(spans[e].first, spans[e].second - spans[e].first)
                               .find("\"cat\": \"kernel\"") != std::string_view::npos;
            writeFile(dir / "cut.json", std::string_view(json).substr(0, cut));
            const auto r = loadTrace((dir / "cut.json").string(), {});
            ASSERT_TRUE(r.ok()) << r.error->reason;
            EXPECT_EQ(r.trace->kernels.size(), kernels);
            ASSERT_EQ(r.trace->report.count(Anomaly::TruncatedJson), 1u);
            EXPECT_EQ(r.trace->report.details(Anomaly::TruncatedJson).at(0),
                      "the JSON ends inside an event (truncated file?) at byte " +
                          std::to_string(spans[k].first));
        }
    }
    EXPECT_GE(sources, 2u);
}

// ts + dur overflowed in the builder (dur 9.223e18 ns), and a far-negative ts made the capture span
// overflow in `info`: beyond +-2^62 ns an event has no usable time, as in the nsys importer.
TEST(KinetoEdgeValues, TimesBeyondTwoToThe62NsAreSkippedNotOverflowed) {
    const std::string kernel =
        R"({"ph": "X", "cat": "kernel", "name": "k", "pid": 0, "tid": 7, "args": {"correlation": 1}, )";
    struct Case {
        const char* what;
        std::string times;
        size_t kernels;
    };
    for (const Case& c :
         {Case{"dur 9.223e18 ns", R"("ts": 4628894605263.866, "dur": 9223000000000000)", 0},
          Case{"ts -9.223e18 ns", R"("ts": -9223000000000000, "dur": 1)", 0},
          Case{"end just past 2^62 ns", R"("ts": 4611686018427387, "dur": 1)", 0},
          Case{"end just below 2^62 ns", R"("ts": 4611686018427386, "dur": 1.903)", 1}}) {
        SCOPED_TRACE(c.what);
        TempDir dir;
        const fs::path file = dir / "far.json";
        writeFile(file, "{\"traceEvents\": [" + launch(1) + ", " + kernel + c.times + "}]}");
        const auto r = loadTrace(file.string(), {});
        ASSERT_TRUE(r.ok()) << r.error->reason;
        EXPECT_EQ(r.trace->kernels.size(), c.kernels);
        EXPECT_EQ(r.trace->report.count(Anomaly::MalformedEvent), 1u - c.kernels);
        EXPECT_LE(r.trace->captureStart, r.trace->captureEnd);
        const auto info = runCli({"info", file.string()});
        EXPECT_EQ(info.rc, 0) << info.err;
    }
}

} // namespace
} // namespace ls::test
