// A reopen maps the cache file's big columns instead of copying them: the column's pages are the
// file's, none written by the reopen, a write to the model stays in memory, and a damaged byte
// in such a column is still found.
#include "core/cache/trace_cache.h"
#include "core/cache/trace_file.h"
#include "core/load/load.h"
#include "core/model/columns.h"
#include "tests/support/test_support.h"

#include <fstream>
#include <gtest/gtest.h>
#include <iterator>
#include <sstream>
#include <type_traits>
#include <vector>

#if defined(__linux__)
#include <fcntl.h>
#include <unistd.h>
#endif

namespace ls::test {
namespace {

std::string slurp(const fs::path& p) {
    std::ifstream in(p, std::ios::binary);
    return {std::istreambuf_iterator<char>(in), {}};
}

// The sample with its kernels repeated to `rows`: columns big enough to be mapped.
std::shared_ptr<Trace> bigSample(size_t rows) {
    const auto loaded = loadTrace(sampleTrace().string()).trace;
    if (!loaded) return nullptr;
    auto t = std::make_shared<Trace>(*loaded);
    auto repeat = [rows](auto& column) {
        const size_t n = column.size();
        if (n == 0) return;
        column.resize(rows);
        for (size_t i = n; i < rows; ++i) column[i] = column[i % n];
    };
    columns::forEach(t->kernels, repeat);
    // The kernels' links and costs to match (the cache checks their lengths).
    auto repeatPacked = [rows](auto& column) {
        const size_t n = column.size();
        if (n == 0) return;
        std::vector<std::remove_cvref_t<decltype(column[0])>> whole(rows);
        for (size_t i = 0; i < rows; ++i) whole[i] = column[i % n];
        column = std::remove_cvref_t<decltype(column)>::of(whole, rows);
    };
    repeatPacked(t->kernels.staticSmem);
    repeatPacked(t->kernels.dynamicSmem);
    repeatPacked(t->kernels.smemConfig);
    KernelLinks& l = t->kernelLinks;
    repeatPacked(l.range);
    repeatPacked(l.op);
    repeatPacked(l.opInstance);
    repeatPacked(l.layer);
    repeat(l.direction);
    KernelMetrics& m = t->metrics;
    repeatPacked(m.rule);
    repeatPacked(m.flops);
    repeatPacked(m.bytes);
    repeat(m.dtype);
    repeat(m.dtypeSource);
    repeat(m.tc);
    repeat(m.tcRule);
    repeat(m.tcMathOp);
    repeat(m.occupancy);
    repeat(m.occupancyLimiter);
    return t;
}

// The /proc/self/smaps entry of the mapping holding p: its first line (range, …, path) and
// its Private_Dirty kB; empty where there is none.
struct Mapping {
    std::string path;
    long privateDirtyKb = -1;
};
Mapping mappingOf(const void* p) {
    std::ifstream smaps("/proc/self/smaps");
    const auto at = reinterpret_cast<uintptr_t>(p);
    std::string line;
    bool inside = false;
    Mapping m;
    while (std::getline(smaps, line)) {
        unsigned long lo = 0, hi = 0;
        if (std::sscanf(line.c_str(), "%lx-%lx ", &lo, &hi) == 2 &&
            line.find(':') > line.find(' ')) {
            if (inside) break;
            inside = lo <= at && at < hi;
            if (inside) {
                std::istringstream fields(line);
                std::string skip;
                for (int f = 0; f < 5; ++f) fields >> skip;
                fields >> m.path;
            }
        } else if (inside && line.rfind("Private_Dirty:", 0) == 0) {
            m.privateDirtyKb = std::stol(line.substr(14));
        }
    }
    return m;
}

#if defined(__linux__)
// A file's pages written back, so that a mapping's dirty pages are only those written through it.
void writeBack(const std::string& file) {
    const int fd = ::open(file.c_str(), O_RDONLY);
    ASSERT_GE(fd, 0);
    EXPECT_EQ(::fsync(fd), 0);
    ::close(fd);
}

TEST(MappedReopen, ABigColumnIsTheCacheFilesPagesAndAWriteToItStaysInMemory) {
    if (!fs::exists("/proc/self/smaps"))
        GTEST_SKIP() << "no /proc/self/smaps to see the mappings in";
    TempDir tmp;
    const auto big = bigSample(100'000);
    ASSERT_TRUE(big);
    const std::string identity = traceFileIdentity(sampleTrace().string()),
                      file = (tmp / "a").string();
    ASSERT_EQ(writeTraceFile(*big, identity, file), "");
    writeBack(file);
    const std::string written = slurp(file);
    // Big columns start on 64 KiB boundaries of the file: mappable on 64 KiB-page hosts too.
    for (const auto* column : {&big->kernels.start, &big->kernels.end}) {
        const size_t at = written.find(
            std::string_view(reinterpret_cast<const char*>(column->data()), 64 * sizeof(TimeNs)));
        ASSERT_NE(at, std::string::npos);
        EXPECT_EQ(at % (size_t(64) << 10), 0u);
    }

    auto back = readTraceFile(file, identity);
    ASSERT_TRUE(back.trace) << back.reason;
    Trace& t = *back.trace;
    EXPECT_EQ(t.kernels.start, big->kernels.start);
    EXPECT_EQ(t.kernels.grid, big->kernels.grid);
    const Mapping m = mappingOf(t.kernels.start.data());
    EXPECT_EQ(m.path, fs::canonical(file).string());
    EXPECT_EQ(m.privateDirtyKb, 0) << "the reopen wrote no page of the column";
    EXPECT_NE(mappingOf(t.kernels.name.data()).path, "") << "another big column, mapped as well";

    const TimeNs first = t.kernels.start[0];
    t.kernels.start[0] = first + 12345;
    EXPECT_GT(mappingOf(t.kernels.start.data()).privateDirtyKb, 0)
        << "the written page is now the model's own";
    EXPECT_EQ(slurp(file), written) << "the cache file is never written through the model";
    const auto again = readTraceFile(file, identity);
    ASSERT_TRUE(again.trace) << again.reason;
    EXPECT_EQ(again.trace->kernels.start[0], first);
}
#endif

TEST(MappedReopen, ADamagedByteInAMappedColumnIsFound) {
    TempDir tmp;
    const auto big = bigSample(100'000);
    ASSERT_TRUE(big);
    const std::string identity = traceFileIdentity(sampleTrace().string()),
                      file = (tmp / "a").string();
    ASSERT_EQ(writeTraceFile(*big, identity, file), "");
    std::string bytes = slurp(file);
    // The last of the kernels' start values: deep inside the mapped column.
    const TimeNs last = big->kernels.start.back();
    const size_t at = bytes.rfind(std::string_view(
        reinterpret_cast<const char*>(&big->kernels.start[big->kernels.size() - 4]),
        4 * sizeof last));
    ASSERT_NE(at, std::string::npos);
    bytes[at + 3 * sizeof last + 1] ^= 0x10;
    std::ofstream(file, std::ios::binary | std::ios::trunc) << bytes;
    EXPECT_EQ(readTraceFile(file, identity, kLoadKernels).reason,
              "damaged (sections do not add up or a column's checksum differs)");
    EXPECT_FALSE(readTraceFile(file, identity).trace);
}

} // namespace
} // namespace ls::test
