// GPU memory over time (Trace::memory, core/reports/gpu_memory.h, `summary --report memory`) on
// the traces recorded for it (tests/data/memory): the PyTorch profiler's events against the JSON
// text read here with a regular expression, the peak against torch.cuda.max_memory_allocated()
// as the recording printed it, and Nsight Systems' events, totals and threads against SQL over
// the export.
#include "core/load/load.h"
#include "core/present/memory_lane.h"
#include "core/present/timeline_data.h"
#include "core/reports/gpu_memory.h"
#include "tests/support/test_support.h"

#include <gtest/gtest.h>
#include <numeric>
#include <regex>
#include <sqlite3.h>
#include <string>
#include <vector>
#include <zlib.h>

namespace ls::test {
namespace {

fs::path memoryDir() { return sourceDir() / "tests" / "data" / "memory"; }

std::shared_ptr<const Trace> load(const fs::path& p) {
    const LoadResult r = loadTrace(p.string(), {});
    EXPECT_TRUE(r.ok()) << (r.error ? r.error->reason : "");
    return r.trace;
}

std::string gunzip(const fs::path& file) {
    gzFile in = gzopen(file.string().c_str(), "rb");
    std::string out;
    char buf[1 << 16];
    for (int n; in && (n = gzread(in, buf, sizeof buf)) > 0;) out.append(buf, size_t(n));
    if (in) gzclose(in);
    return out;
}

struct JsonMemoryEvent {
    double ts = 0;
    int64_t bytes = 0, allocated = 0, reserved = 0, device = 0, deviceType = 0, address = 0;
};

// The "[memory]" events of a PyTorch profiler trace, in file order, read with a regular
// expression over the arguments as PyTorch writes them (one object per event, keys in its order).
std::vector<JsonMemoryEvent> jsonMemoryEvents(const std::string& text) {
    static const std::regex event(
        R"re("name": "\[memory\]",\s*"pid": \d+, "tid": \d+,\s*"ts": ([0-9.]+),\s*"args": \{\s*)re"
        R"re("Total Reserved": (\d+), "Total Allocated": (\d+), "Bytes": (-?\d+), )re"
        R"re("Device Id": (-?\d+), "Device Type": (\d+), "Addr": (\d+))re");
    std::vector<JsonMemoryEvent> out;
    for (auto it = std::sregex_iterator(text.begin(), text.end(), event);
         it != std::sregex_iterator(); ++it) {
        const auto& m = *it;
        out.push_back({std::stod(m[1]), std::stoll(m[4]), std::stoll(m[3]), std::stoll(m[2]),
                       std::stoll(m[5]), std::stoll(m[6]), std::stoll(m[7])});
    }
    return out;
}

int64_t printedPeak() {
    // "memory peak max_memory_allocated 592788480 max_memory_reserved 671088640"
    const std::string text = readFile(memoryDir() / "memory_gpt2.peaks.txt");
    static const std::regex peak(R"(max_memory_allocated (\d+))");
    std::smatch m;
    EXPECT_TRUE(std::regex_search(text, m, peak));
    return m.empty() ? -1 : std::stoll(m[1]);
}

TEST(GpuMemory, PytorchEventsAreTheJsonsAndThePeakIsTorchsMaxMemoryAllocated) {
    const fs::path file = memoryDir() / "memory_gpt2.kineto.json.gz";
    const auto t = load(file);
    ASSERT_TRUE(t);
    const auto json = jsonMemoryEvents(gunzip(file));
    std::vector<JsonMemoryEvent> gpu;
    for (const auto& e : json)
        if (e.deviceType == 1) gpu.push_back(e);
    ASSERT_EQ(json.size(), 912u);
    const auto& m = t->memory;
    ASSERT_EQ(m.size(), gpu.size());
    std::stable_sort(gpu.begin(), gpu.end(), [](auto& a, auto& b) { return a.ts < b.ts; });
    for (size_t i = 0; i < m.size(); ++i) {
        SCOPED_TRACE(i);
        EXPECT_NEAR(double(m.time[i]), gpu[i].ts * 1000, 1.0);
        EXPECT_EQ(m.bytes[i], gpu[i].bytes);
        EXPECT_EQ(m.allocated[i], uint64_t(gpu[i].allocated));
        EXPECT_EQ(m.reserved[i], uint64_t(gpu[i].reserved));
        EXPECT_EQ(m.address[i], uint64_t(gpu[i].address));
        EXPECT_EQ(m.device[i], uint64_t(gpu[i].device));
        EXPECT_EQ(m.pool[i], MemoryPool::Allocated);
        EXPECT_TRUE(m.thread[i].valid());
    }
    const auto peaks = memoryPeaks(*t);
    ASSERT_EQ(peaks.size(), 1u);
    EXPECT_EQ(int64_t(peaks[0].allocated), printedPeak());
    EXPECT_EQ(peaks[0].reserved, 671088640u);
    EXPECT_EQ(peaks[0].events, m.size());
}

// What is held at the peak adds up to it: the allocations made in the window and not released,
// and what was allocated before the window less what of it was released.
TEST(GpuMemory, WhatIsHeldAtThePeakAddsUpToIt) {
    for (const char* name : {"memory_gpt2.kineto.json.gz", "memory_gpt2_nocache.sqlite"}) {
        SCOPED_TRACE(name);
        const auto t = load(memoryDir() / name);
        ASSERT_TRUE(t);
        const auto ops = opsOfMemoryEvents(*t);
        for (const auto& peak : memoryPeaks(*t)) {
            const auto live = liveAtPeak(*t, peak, ops);
            ASSERT_FALSE(live.empty());
            uint64_t sum = 0;
            for (const auto& a : live) sum += a.bytes;
            EXPECT_EQ(sum, peak.allocated);
            for (size_t i = 1; i < live.size(); ++i) EXPECT_GE(live[i - 1].bytes, live[i].bytes);
        }
    }
}

// Each event's op is the innermost op instance around it on its thread, found here by a scan of
// every op.
TEST(GpuMemory, EachEventsOpIsTheInnermostAroundItOnItsThread) {
    const auto t = load(memoryDir() / "memory_gpt2.kineto.json.gz");
    ASSERT_TRUE(t);
    const auto ops = opsOfMemoryEvents(*t);
    ASSERT_EQ(ops.size(), t->memory.size());
    size_t inOp = 0;
    for (size_t i = 0; i < t->memory.size(); ++i) {
        OpId best;
        TimeNs bestStart = 0, bestEnd = 0;
        for (uint32_t o = 0; o < t->ops.size(); ++o) {
            const RangeId r = t->ops.extent[o];
            if (!r.valid() || t->rangeThread(r) != t->memory.thread[i]) continue;
            const TimeNs s = t->ranges.start[r.value], e = t->ranges.end[r.value];
            if (s <= t->memory.time[i] && t->memory.time[i] < e &&
                (!best.valid() || s > bestStart || (s == bestStart && e < bestEnd))) {
                best = OpId(o);
                bestStart = s;
                bestEnd = e;
            }
        }
        EXPECT_EQ(ops[i], best) << i;
        inOp += best.valid();
    }
    EXPECT_GT(inOp, t->memory.size() / 2); // most allocations happen inside ops
}

// Nsight Systems: the GPU rows of CUDA_GPU_MEMORY_USAGE_EVENTS in time order, their running total
// per device, and the thread of the runtime call with their correlation id.
TEST(GpuMemory, NsysEventsTotalsAndThreadsEqualSql) {
    for (const char* name : {"memory_gpt2_nocache.sqlite", "memory_gpt2.sqlite"}) {
        SCOPED_TRACE(name);
        const fs::path file = memoryDir() / name;
        const auto t = load(file);
        ASSERT_TRUE(t);
        SqlReader sql(file);
        ASSERT_TRUE(sql.ok());
        const auto& m = t->memory;
        size_t i = 0;
        sql.each(
            "SELECT e.start, CASE e.memoryOperationType WHEN 1 THEN -e.bytes ELSE e.bytes END, "
            "SUM(CASE e.memoryOperationType WHEN 1 THEN -e.bytes ELSE e.bytes END) OVER "
            "(PARTITION BY e.deviceId ORDER BY e.start, e.rowid), e.address, e.deviceId, "
            "(SELECT r.globalTid & 0xFFFFFF FROM CUPTI_ACTIVITY_KIND_RUNTIME r "
            " WHERE r.correlationId = e.correlationId LIMIT 1) "
            "FROM CUDA_GPU_MEMORY_USAGE_EVENTS e WHERE e.memKind BETWEEN 2 AND 6 "
            "ORDER BY e.start, e.rowid",
            [&](sqlite3_stmt* st) {
                ASSERT_LT(i, m.size());
                EXPECT_EQ(m.time[i], SqlReader::int64(st, 0)) << i;
                EXPECT_EQ(m.bytes[i], SqlReader::int64(st, 1)) << i;
                EXPECT_EQ(int64_t(m.allocated[i]), SqlReader::int64(st, 2)) << i;
                EXPECT_EQ(int64_t(m.address[i]), SqlReader::int64(st, 3)) << i;
                EXPECT_EQ(int64_t(m.device[i]), SqlReader::int64(st, 4)) << i;
                EXPECT_EQ(m.reserved[i], kNoMemoryTotal);
                if (SqlReader::isNull(st, 5)) {
                    EXPECT_FALSE(m.thread[i].valid()) << i;
                } else {
                    EXPECT_TRUE(m.thread[i].valid()) << i;
                    if (m.thread[i].valid()) {
                        EXPECT_EQ(int64_t(t->threads[m.thread[i].value].tid),
                                  SqlReader::int64(st, 5));
                    }
                }
                ++i;
            });
        EXPECT_EQ(i, m.size());
        EXPECT_GT(m.size(), 0u);
    }
}

// `summary --report memory`: the op rows split the events (counts and bytes add up to the
// events'), and --by layer groups the same events.
TEST(GpuMemory, MemoryReportRowsAddUpToTheEvents) {
    const fs::path file = memoryDir() / "memory_gpt2_nocache.sqlite";
    SqlReader sql(file);
    const int64_t allocs = sql.scalar("SELECT COUNT(*) FROM CUDA_GPU_MEMORY_USAGE_EVENTS WHERE "
                                      "memKind BETWEEN 2 AND 6 AND memoryOperationType = 0");
    const int64_t allocBytes =
        sql.scalar("SELECT SUM(bytes) FROM CUDA_GPU_MEMORY_USAGE_EVENTS WHERE "
                   "memKind BETWEEN 2 AND 6 AND memoryOperationType = 0");
    const int64_t frees = sql.scalar("SELECT COUNT(*) FROM CUDA_GPU_MEMORY_USAGE_EVENTS WHERE "
                                     "memKind BETWEEN 2 AND 6 AND memoryOperationType = 1");
    const int64_t peak = sql.scalar(
        "SELECT MAX(total) FROM (SELECT SUM(CASE memoryOperationType WHEN 1 THEN -bytes ELSE bytes "
        "END) OVER (PARTITION BY deviceId ORDER BY start, rowid) AS total FROM "
        "CUDA_GPU_MEMORY_USAGE_EVENTS WHERE memKind BETWEEN 2 AND 6)");
    for (const char* by : {"op", "layer"}) {
        SCOPED_TRACE(by);
        const CliResult r =
            runCli({"summary", file.string(), "--report", "memory", "--by", by, "--no-cache"});
        ASSERT_EQ(r.rc, 0) << r.err;
        std::string error;
        const CsvTable rows = parseCsv(r.out, &error);
        ASSERT_EQ(error, "");
        ASSERT_GE(rows.size(), 2u);
        EXPECT_EQ(formatCsvRow(rows[0]),
                  "name,memory_type,allocation_count,free_count,allocation_bytes,free_bytes,"
                  "increased_bytes,peak_total_bytes");
        int64_t a = 0, f = 0, ab = 0, top = 0;
        for (size_t i = 1; i < rows.size(); ++i) {
            a += std::stoll(rows[i][2]);
            f += std::stoll(rows[i][3]);
            ab += std::stoll(rows[i][4]);
            EXPECT_EQ(std::stoll(rows[i][6]), std::stoll(rows[i][4]) - std::stoll(rows[i][5]));
            top = std::max<int64_t>(top, std::stoll(rows[i][7]));
        }
        EXPECT_EQ(a, allocs);
        EXPECT_EQ(f, frees);
        EXPECT_EQ(ab, allocBytes);
        EXPECT_EQ(top, peak);
    }
    const CliResult text =
        runCli({"summary", file.string(), "--report", "memory", "--format", "table", "--no-cache"});
    ASSERT_EQ(text.rc, 0) << text.err;
    EXPECT_NE(text.out.find("Memory Summary"), std::string::npos) << text.out;
    EXPECT_NE(text.out.find("Held at the Peak of gpu:0"), std::string::npos) << text.out;
}

// The Paddle fixture (tests/data/paddle/make_fixtures.py), by hand: per step the op "matmul
// dygraph" reserves 8 MiB, allocates and frees 4096 bytes; outside any op the reserve is released.
TEST(GpuMemory, PaddleMemoryTableByHand) {
    const fs::path file = sourceDir() / "tests/data/paddle/paddle_gpt_2steps.paddle_trace.json";
    const CliResult r = runCli({"summary", file.string(), "--report", "memory", "--no-cache"});
    ASSERT_EQ(r.rc, 0) << r.err;
    EXPECT_EQ(r.out, "name,memory_type,allocation_count,free_count,allocation_bytes,free_bytes,"
                     "increased_bytes,peak_total_bytes\n"
                     "matmul dygraph,Allocated,2,2,8192,8192,0,4096\n"
                     "matmul dygraph,Reserved,2,0,16777216,0,16777216,8388608\n"
                     "(no op),Reserved,0,2,0,16777216,-16777216,0\n");
}

// The timeline's memory lane: one per device after the streams, holding that device's events,
// and its columns equal a scan of the events: the value in force where the column starts (the
// last event before it) and the highest of the events inside it, at several zooms.
TEST(GpuMemory, LaneColumnsEqualTheEvents) {
    for (const char* name : {"memory_gpt2.kineto.json.gz", "memory_gpt2_nocache.sqlite"}) {
        SCOPED_TRACE(name);
        const auto t = load(memoryDir() / name);
        ASSERT_TRUE(t);
        const TimelineTracks tracks = buildTimelineTracks(*t);
        const TimelineLane* lane = nullptr;
        for (const auto& l : tracks.lanes)
            if (l.kind == TimelineEventKind::Memory) {
                EXPECT_EQ(lane, nullptr); // one device
                lane = &l;
            }
        ASSERT_NE(lane, nullptr);
        EXPECT_EQ(lane->events.size(), t->memory.size());
        EXPECT_EQ(tracks.groups[lane->group].label.rfind("GPU 0 memory", 0), 0u);
        const auto& m = t->memory;
        const TimeNs first = m.time.front(), last = m.time.back();
        for (int width : {37, 400, 5000}) {
            for (double from : {double(first) - 1000, double(first + last) / 2}) {
                SCOPED_TRACE(width);
                const TimeWindow w = fitWindow(from, double(last) + 1000, width);
                const auto columns = memoryLaneColumns(*t, *lane, w);
                ASSERT_FALSE(columns.empty());
                for (size_t c = 0; c < columns.size(); ++c) {
                    const int x = columns[c].x;
                    const double t0 = w.toTime(x), t1 = w.toTime(x + 1);
                    int64_t held = -1;
                    uint64_t allocated = 0;
                    bool any = false;
                    for (size_t i = 0; i < m.size(); ++i) {
                        if (double(m.time[i]) <= t0) held = int64_t(i);
                        if (double(m.time[i]) > t0 && double(m.time[i]) < t1) {
                            allocated = std::max(allocated, m.allocated[i]);
                            any = true;
                        }
                    }
                    if (held >= 0) allocated = std::max(allocated, m.allocated[size_t(held)]);
                    ASSERT_TRUE(held >= 0 || any) << x; // columns start at the first event
                    EXPECT_EQ(columns[c].allocated, allocated) << x;
                    if (c) {
                        EXPECT_EQ(columns[c].x, columns[c - 1].x + 1);
                    }
                }
                EXPECT_EQ(columns.back().x, width - 1);
            }
        }
        const MemoryLaneScale scale = memoryLaneScale(*t, *lane);
        EXPECT_EQ(scale.allocated, memoryPeaks(*t).front().allocated);
        // What the painter reads: the scale computed once with the timeline's data, per lane.
        const auto data = buildTimelineData(t);
        ASSERT_EQ(data->memoryScale.size(), data->tracks.lanes.size());
        for (size_t l = 0; l < data->tracks.lanes.size(); ++l) {
            const bool memory = data->tracks.lanes[l].kind == TimelineEventKind::Memory;
            EXPECT_EQ(data->memoryScale[l].allocated,
                      memory ? memoryLaneScale(*t, data->tracks.lanes[l]).allocated : 0u);
            if (memory) {
                EXPECT_EQ(data->memoryScale[l].allocated, scale.allocated);
            }
        }
    }
}

} // namespace
} // namespace ls::test
