// Damaged PyTorch profiler traces, made at test time from the real gpt2 Kineto trace with fixed
// seeds: truncated, flipped, zeroed, randomized, with broken structure, as plain JSON and as gzip.
// Each copy loads with the damage counted in the load report, or fails with one one-line reason;
// never a crash or a hang.
#include "core/load/load.h"
#include "tests/support/test_support.h"

#include <chrono>
#include <fstream>
#include <gtest/gtest.h>
#include <random>
#include <string>
#include <zlib.h>

namespace ls::test {
namespace {

fs::path gpt2Kineto() {
    return sourceDir() / "tests" / "data" / "kineto" / "gpt2_2layer_fp16_h200.kineto.json.gz";
}

std::string readFile(const fs::path& p) {
    std::ifstream in(p, std::ios::binary);
    return {std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>()};
}

std::string gunzip(const fs::path& p) {
    gzFile gz = gzopen(p.string().c_str(), "rb");
    std::string out;
    char buf[1 << 16];
    int n = 0;
    while ((n = gzread(gz, buf, sizeof buf)) > 0) out.append(buf, static_cast<size_t>(n));
    gzclose(gz);
    return out;
}

std::string gzipText(const std::string& text) {
    uLongf size = compressBound(static_cast<uLong>(text.size())) + 64;
    std::string out(size, '\0');
    z_stream z{};
    deflateInit2(&z, 6, Z_DEFLATED, 16 + MAX_WBITS, 8, Z_DEFAULT_STRATEGY);
    z.next_in = reinterpret_cast<Bytef*>(const_cast<char*>(text.data()));
    z.avail_in = static_cast<uInt>(text.size());
    z.next_out = reinterpret_cast<Bytef*>(out.data());
    z.avail_out = static_cast<uInt>(out.size());
    deflate(&z, Z_FINISH);
    out.resize(z.total_out);
    deflateEnd(&z);
    return out;
}

struct Outcome {
    LoadResult result;
    double seconds = 0;
};

Outcome loadBytes(const TempDir& dir, const std::string& name, const std::string& bytes) {
    const fs::path p = dir / name;
    std::ofstream(p, std::ios::binary)
        .write(bytes.data(), static_cast<std::streamsize>(bytes.size()));
    const auto t0 = std::chrono::steady_clock::now();
    Outcome o{loadTrace(p.string(), {}), 0};
    o.seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
    return o;
}

// A trace, or exactly one line of reason; within a generous time (the intact file takes < 1 s).
void expectTraceOrOneLine(const Outcome& o, const std::string& what) {
    EXPECT_LT(o.seconds, 30.0) << what;
    EXPECT_NE(o.result.ok(), o.result.error.has_value()) << what;
    if (o.result.error) {
        EXPECT_FALSE(o.result.error->reason.empty()) << what;
        EXPECT_EQ(o.result.error->reason.find('\n'), std::string::npos)
            << what << ": " << o.result.error->reason;
    }
}

uint64_t damageCounted(const Trace& t) {
    return t.report.count(Anomaly::TruncatedJson) + t.report.count(Anomaly::MalformedEvent) +
           t.report.count(Anomaly::UnknownEventCategory) + t.report.count(Anomaly::BrokenFlow) +
           t.report.count(Anomaly::NegativeDuration) + t.report.count(Anomaly::OrphanGpuOp);
}

TEST(KinetoCorrupted, TruncationsAnywhereLoadTheEventsBeforeTheCut) {
    const std::string json = gunzip(gpt2Kineto());
    ASSERT_GT(json.size(), 1000000u);
    TempDir dir;
    for (int k = 1; k < 40; ++k) {
        const size_t cut = json.size() * static_cast<size_t>(k) / 40;
        const Outcome o = loadBytes(dir, "cut.json", json.substr(0, cut));
        const std::string what = "cut at " + std::to_string(cut);
        expectTraceOrOneLine(o, what);
        ASSERT_TRUE(o.result.ok())
            << what << ": " << o.result.error->reason; // past the header: events were read
        EXPECT_EQ(o.result.trace->report.count(Anomaly::TruncatedJson), 1u) << what;
        EXPECT_LE(o.result.trace->kernels.size(), 428u) << what;
    }
    // The header alone: no event yet, so an error, on one line.
    const Outcome head = loadBytes(dir, "head.json", json.substr(0, 300));
    expectTraceOrOneLine(head, "300 bytes");
    EXPECT_FALSE(head.result.ok());
}

TEST(KinetoCorrupted, TruncatedGzipStreams) {
    const std::string gz = readFile(gpt2Kineto());
    TempDir dir;
    for (int k = 1; k < 20; ++k) {
        const size_t cut = gz.size() * static_cast<size_t>(k) / 20;
        const Outcome o = loadBytes(dir, "cut.json.gz", gz.substr(0, cut));
        expectTraceOrOneLine(o, "gzip cut at " + std::to_string(cut));
        if (o.result.ok()) {
            EXPECT_GT(o.result.trace->report.count(Anomaly::TruncatedJson), 0u);
        }
    }
}

TEST(KinetoCorrupted, FlippedZeroedAndRandomBytes) {
    const std::string json = gunzip(gpt2Kineto());
    TempDir dir;
    for (unsigned seed = 1; seed <= 30; ++seed) {
        std::mt19937 rng(seed);
        std::string damaged = json;
        std::uniform_int_distribution<size_t> at(0, damaged.size() - 1);
        const std::string kind = seed % 3 == 0   ? "flips"
                                 : seed % 3 == 1 ? "zeroed block"
                                                 : "random block";
        if (seed % 3 == 0) {
            for (int i = 0; i < 40; ++i) damaged[at(rng)] ^= static_cast<char>(1 << (rng() % 8));
        } else {
            const size_t from = at(rng), len = std::min<size_t>(4096, damaged.size() - from);
            for (size_t i = from; i < from + len; ++i)
                damaged[i] = seed % 3 == 1 ? '\0' : static_cast<char>(rng());
        }
        const Outcome o = loadBytes(dir, "damaged.json", damaged);
        const std::string what = kind + ", seed " + std::to_string(seed);
        expectTraceOrOneLine(o, what);
        if (o.result.ok()) {
            EXPECT_GT(damageCounted(*o.result.trace), 0u) << what;
        }
        // The same damage inside a gzip stream.
        expectTraceOrOneLine(loadBytes(dir, "damaged.json.gz", gzipText(damaged)),
                             what + " (gzip)");
    }
    // Flips in the compressed bytes: zlib reports a data or checksum error.
    const std::string gz = readFile(gpt2Kineto());
    for (unsigned seed = 1; seed <= 10; ++seed) {
        std::mt19937 rng(seed);
        std::string damaged = gz;
        for (int i = 0; i < 4; ++i)
            damaged[20 + rng() % (damaged.size() - 20)] ^= static_cast<char>(0x55);
        expectTraceOrOneLine(loadBytes(dir, "flipped.json.gz", damaged),
                             "compressed flips, seed " + std::to_string(seed));
    }
}

TEST(KinetoCorrupted, BrokenStructureAndHostileValues) {
    TempDir dir;
    const std::string kernel =
        R"({"ph": "X", "cat": "kernel", "name": "k", "pid": 0, "tid": 7, "ts": 10.5, "dur": 2, "args": {"correlation": 1, "stream": 7}})";
    const std::string launch =
        R"({"ph": "X", "cat": "cuda_runtime", "name": "cudaLaunchKernel", "pid": 1, "tid": 1, "ts": 9, "dur": 1, "args": {"correlation": 1}})";
    struct Case {
        std::string name, text;
        bool loads;
    };
    const std::string deep(100000, '['), deepEnd(100000, ']');
    const std::vector<Case> cases = {
        {"an event replaced by {", "{\"traceEvents\": [" + launch + ", {, " + kernel + "]}", true},
        {"a stray ] inside", "{\"traceEvents\": [" + launch + "], " + kernel + "]}", true},
        {"closing bracket deleted", "{\"traceEvents\": [" + launch + ", " + kernel + "}", true},
        {"ts as a string",
         R"({"traceEvents": [{"ph": "X", "cat": "kernel", "name": "k", "ts": "abc", "dur": 1}, )" +
             launch + "]}",
         true},
        {"huge numbers",
         R"({"traceEvents": [{"ph": "X", "cat": "kernel", "name": "k", "ts": 1e300, "dur": 99999999999999999999, "args": {"correlation": 18446744073709551615, "grid": [1e30, -5, 3]}}, )" +
             launch + "]}",
         true},
        {"negative duration",
         "{\"traceEvents\": [" + launch +
             R"(, {"ph": "X", "cat": "kernel", "name": "k", "pid": 0, "tid": 7, "ts": 12, "dur": -3, "args": {"correlation": 1}}]})",
         true},
        {"deep nesting in args",
         "{\"traceEvents\": [" + launch +
             R"(, {"ph": "X", "cat": "cpu_op", "name": "op", "pid": 1, "tid": 1, "ts": 1, "dur": 1, "args": {"Input Dims": )" +
             deep + deepEnd + "}}]}",
         true},
        {"byte order mark", "\xEF\xBB\xBF{\"traceEvents\": [" + launch + ", " + kernel + "]}",
         true},
        {"not a trace object", R"({"a": 1})", false},
        {"an empty array", "[]", false},
        {"an array of numbers", "[1, 2, 3]", false},
        {"no events", R"({"traceEvents": []})", false},
        {"unterminated string", R"({"traceEvents": [{"ph": "X, "cat": "kernel"}]})", false},
    };
    for (const Case& c : cases) {
        const Outcome o = loadBytes(dir, "case.json", c.text);
        expectTraceOrOneLine(o, c.name);
        EXPECT_EQ(o.result.ok(), c.loads)
            << c.name << ": " << (o.result.error ? o.result.error->reason : "loaded");
        if (o.result.ok() && c.name != "byte order mark" &&
            c.name != "deep nesting in args") { // both are valid JSON
            EXPECT_GT(damageCounted(*o.result.trace), 0u) << c.name;
        }
    }
    const Outcome negative = loadBytes(dir, "negative.json", cases[5].text);
    ASSERT_TRUE(negative.result.ok());
    EXPECT_EQ(negative.result.trace->report.count(Anomaly::NegativeDuration), 1u);
    EXPECT_EQ(negative.result.trace->kernels.duration(0), 0);
    const Outcome bom = loadBytes(dir, "bom.json", cases[7].text);
    ASSERT_TRUE(bom.result.ok());
    EXPECT_EQ(bom.result.trace->kernels.size(), 1u);
    EXPECT_TRUE(bom.result.trace->kernels.launch[0].valid());
    // JSON that names no trace member is not taken for a trace; one that opens like one but has no
    // traceEvents says so.
    const Outcome notTrace = loadBytes(dir, "a.json", R"({"a": 1})");
    ASSERT_FALSE(notTrace.result.ok());
    EXPECT_NE(notTrace.result.error->reason.find("not a trace"), std::string::npos)
        << notTrace.result.error->reason;
    const Outcome noEvents =
        loadBytes(dir, "b.json", R"({"schemaVersion": 1, "deviceProperties": []})");
    ASSERT_FALSE(noEvents.result.ok());
    EXPECT_NE(noEvents.result.error->reason.find("traceEvents"), std::string::npos)
        << noEvents.result.error->reason;
    // gzip of text that is not JSON is not taken for a profiler trace.
    const Outcome gzText = loadBytes(dir, "notes.json.gz", gzipText("hello, these are my notes\n"));
    ASSERT_FALSE(gzText.result.ok());
    EXPECT_NE(gzText.result.error->reason.find("not a trace"), std::string::npos)
        << gzText.result.error->reason;
    // An empty gzip member.
    expectTraceOrOneLine(loadBytes(dir, "empty.json.gz", gzipText("")), "empty gzip member");
}

TEST(KinetoCorrupted, CliSaysOneLineAndExitsThree) {
    TempDir dir;
    const fs::path p = dir / "settings.json";
    std::ofstream(p) << R"({"editor.fontSize": 14, "files.autoSave": "off"})";
    const auto r = runCli({"info", p.string()});
    EXPECT_EQ(r.rc, 3);
    EXPECT_EQ(r.out, "");
    EXPECT_EQ(r.err.rfind("error: " + p.string() + ": ", 0), 0u) << r.err;
    EXPECT_EQ(std::count(r.err.begin(), r.err.end(), '\n'), 1) << r.err;
}

} // namespace
} // namespace ls::test
