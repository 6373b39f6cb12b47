// rank_sum and collective matching on real multi-GPU traces, against references computed here from
// SQL over the same files (kernel, copy and set intervals per device, NCCL kernels told by name in
// SQL) with a sweep over start/end events: an algorithm of its own, not core/reports/intervals.
#include "core/load/session_load.h"
#include "core/reports/collectives.h"
#include "core/reports/iteration_summary.h"
#include "core/reports/rank_summary.h"
#include "tests/support/test_support.h"

#include <algorithm>
#include <array>
#include <cstdio>
#include <map>
#include <set>
#include <sqlite3.h>
#include <sstream>

namespace ls::test {
namespace {

struct Reference {
    int64_t kernels = 0, span = 0, busy = 0, compute = 0, comm = 0, overlap = 0;
};

struct Event {
    int64_t time;
    int delta; // +1 start, -1 end
    int kind;  // 0 compute kernel, 1 communication kernel, 2 copy or set
};

// sql yields start, end, kind (as Event::kind) for one rank's GPU work: copies and sets keep the
// GPU busy (span and busy) but are neither compute nor communication.
Reference sweep(const SqlReader& db, const std::string& sql) {
    std::vector<Event> events;
    Reference ref;
    int64_t first = INT64_MAX, last = INT64_MIN;
    db.each(sql, [&](sqlite3_stmt* st) {
        const int64_t s = SqlReader::int64(st, 0), e = SqlReader::int64(st, 1);
        const int kind = static_cast<int>(SqlReader::int64(st, 2));
        events.push_back({s, +1, kind});
        events.push_back({e, -1, kind});
        first = std::min(first, s);
        last = std::max(last, e);
        ref.kernels += kind < 2;
    });
    std::sort(events.begin(), events.end(),
              [](const Event& a, const Event& b) { return a.time < b.time; });
    std::array<int, 3> active{}; // running ops of each kind
    int64_t prev = events.empty() ? 0 : events.front().time;
    for (const Event& e : events) {
        const int64_t dt = e.time - prev;
        if (active[0] > 0) ref.compute += dt;
        if (active[1] > 0) ref.comm += dt;
        if (active[0] > 0 && active[1] > 0) ref.overlap += dt;
        if (active[0] > 0 || active[1] > 0 || active[2] > 0) ref.busy += dt;
        active[static_cast<size_t>(e.kind)] += e.delta;
        prev = e.time;
    }
    ref.span = events.empty() ? 0 : last - first;
    return ref;
}

void expectRow(const RankTimeRow& row, const Reference& ref) {
    SCOPED_TRACE("rank " + std::to_string(row.rank));
    EXPECT_EQ(static_cast<int64_t>(row.kernels), ref.kernels);
    EXPECT_EQ(row.span, ref.span);
    EXPECT_EQ(row.busy, ref.busy);
    EXPECT_EQ(row.compute, ref.compute);
    EXPECT_EQ(row.comm, ref.comm);
    EXPECT_EQ(row.overlap, ref.overlap);
    EXPECT_EQ(row.exposedComm, ref.comm - ref.overlap);
    EXPECT_EQ(row.idle, ref.span - ref.busy);
    EXPECT_GT(row.comm, 0);
}

const char* kNsysKernels =
    "SELECT k.start, k.end, lower(s.value) LIKE '%nccl%' FROM CUPTI_ACTIVITY_KIND_KERNEL k "
    "JOIN StringIds s ON s.id = k.demangledName WHERE k.deviceId = ";
// Appended to a kernel query ending in "deviceId = ": the same device's copies and sets, kind 2.
std::string copiesOf(int64_t device) {
    const std::string d = std::to_string(device);
    return d +
           " UNION ALL SELECT start, end, 2 FROM CUPTI_ACTIVITY_KIND_MEMCPY WHERE deviceId = " + d +
           " UNION ALL SELECT start, end, 2 FROM CUPTI_ACTIVITY_KIND_MEMSET WHERE deviceId = " + d;
}

fs::path ddp(int rank) {
    return sharedDir() / "traces" / ("ddp_bf16_h200x2_rank" + std::to_string(rank) + ".sqlite");
}

TEST(RankSummarySql, DdpRanksEqualSqlOverEachFile) {
    LS_REQUIRE_FILE(ddp(0));
    LS_REQUIRE_FILE(ddp(1));
    const Session s =
        loadSession({ddp(1).string(), ddp(0).string()}); // order given does not decide the rank
    ASSERT_TRUE(s.failed.empty());
    ASSERT_EQ(s.ranks.size(), 2u);
    const auto rows = rankTimeSummary(s);
    ASSERT_EQ(rows.size(), 2u);
    for (int r = 0; r < 2; ++r) {
        EXPECT_EQ(rows[r].rank, r);
        EXPECT_EQ(s.ranks[r].source, RankSource::FileName);
        EXPECT_EQ(s.traces[s.ranks[r].trace].file, ddp(r).string());
        EXPECT_EQ(rows[r].host, "vm");
        const SqlReader db(ddp(r));
        const int64_t device =
            db.scalar("SELECT DISTINCT deviceId FROM CUPTI_ACTIVITY_KIND_KERNEL");
        EXPECT_EQ(rows[r].device, static_cast<uint32_t>(device));
        expectRow(rows[r], sweep(db, kNsysKernels + copiesOf(device)));
    }
    // What the Ranks tab's timeline draws: the same unions, on the session's clock (the later
    // recording shifted by the difference of the recorded start times).
    const auto busy = rankBusyIntervals(s);
    ASSERT_EQ(busy.size(), 2u);
    const SqlReader db0(ddp(0)), db1(ddp(1));
    const int64_t e0 = db0.scalar("SELECT utcEpochNs FROM TARGET_INFO_SESSION_START_TIME"),
                  e1 = db1.scalar("SELECT utcEpochNs FROM TARGET_INFO_SESSION_START_TIME");
    for (int r = 0; r < 2; ++r) {
        EXPECT_EQ(lengthOf(busy[r].compute), rows[r].compute);
        EXPECT_EQ(lengthOf(busy[r].comm), rows[r].comm);
        const SqlReader& db = r ? db1 : db0;
        const int64_t first = db.scalar("SELECT min(start) FROM CUPTI_ACTIVITY_KIND_KERNEL") +
                              (r ? e1 : e0) - std::min(e0, e1);
        EXPECT_EQ(std::min(busy[r].compute.front().start, busy[r].comm.front().start), first)
            << "rank " << r;
    }
}

TEST(RankSummarySql, DdpAllReducesMatchOneToOneWithSkewFromSql) {
    LS_REQUIRE_FILE(ddp(0));
    LS_REQUIRE_FILE(ddp(1));
    const Session s = loadSession({ddp(0).string(), ddp(1).string()});
    ASSERT_EQ(s.ranks.size(), 2u);
    // Reference: each rank's NCCL kernel starts in order, shifted onto one axis by the
    // session start times the exports record.
    std::vector<std::vector<int64_t>> starts(2);
    std::vector<int64_t> epoch(2);
    for (int r = 0; r < 2; ++r) {
        const SqlReader db(ddp(r));
        epoch[r] = db.scalar("SELECT utcEpochNs FROM TARGET_INFO_SESSION_START_TIME");
        db.each("SELECT k.start FROM CUPTI_ACTIVITY_KIND_KERNEL k JOIN StringIds s ON s.id = "
                "k.demangledName "
                "WHERE s.value LIKE 'ncclDevKernel_AllReduce%' ORDER BY k.start",
                [&](sqlite3_stmt* st) { starts[r].push_back(SqlReader::int64(st, 0)); });
    }
    const int64_t base = std::min(epoch[0], epoch[1]);
    ASSERT_EQ(starts[0].size(), starts[1].size());
    ASSERT_GT(starts[0].size(), 10u);

    const CollectiveMatch m = matchCollectives(s);
    EXPECT_EQ(m.commKernels, 2 * starts[0].size());
    EXPECT_EQ(m.unmatched, 0u);
    ASSERT_EQ(m.collectives.size(), starts[0].size());
    for (size_t k = 0; k < m.collectives.size(); ++k) {
        SCOPED_TRACE("collective " + std::to_string(k));
        const auto& c = m.collectives[k];
        EXPECT_EQ(c.type, Collective::AllReduce);
        EXPECT_EQ(c.sequence, k);
        ASSERT_EQ(c.members.size(), 2u);
        const int64_t a = starts[0][k] + epoch[0] - base, b = starts[1][k] + epoch[1] - base;
        EXPECT_EQ(c.firstStart, std::min(a, b));
        EXPECT_EQ(c.skew(), std::abs(a - b));
        EXPECT_EQ(c.waited, std::abs(a - b));
        EXPECT_EQ(c.lastRank, b > a ? 1 : 0);
    }
    // Each rank numbers its iterations "step N rank R": per iteration both ranks, one slowest.
    const auto iters = rankIterations(s);
    ASSERT_FALSE(iters.empty());
    std::map<int, int> ranksPerIteration, slowest;
    for (const auto& r : iters) {
        ++ranksPerIteration[r.iteration];
        slowest[r.iteration] += r.slowest;
    }
    for (const auto& [it, n] : ranksPerIteration) {
        EXPECT_EQ(n, 2) << "iteration " << it;
        EXPECT_EQ(slowest[it], 1) << "iteration " << it;
    }
    // Each rank's iteration is measured on the GPU, as iter_sum measures it on that rank's trace
    // (the work launched inside the range), and the slowest rank is the one whose GPU span is
    // longest.
    for (int rank = 0; rank < 2; ++rank) {
        const IterationSummary one = iterationSummary(*s.traces[static_cast<size_t>(rank)].trace);
        std::vector<TimeNs> fromRanks;
        for (const auto& r : iters)
            if (r.rank == rank) fromRanks.push_back(r.duration());
        ASSERT_EQ(fromRanks.size(), one.rows.size());
        for (size_t i = 0; i < fromRanks.size(); ++i)
            EXPECT_EQ(fromRanks[i], one.rows[i].duration())
                << "rank " << rank << " " << one.rows[i].name;
    }
    for (const auto& [it, n] : ranksPerIteration) {
        const RankIterationRow *a = nullptr, *b = nullptr;
        for (const auto& r : iters)
            if (r.iteration == it) (a ? b : a) = &r;
        ASSERT_TRUE(a && b);
        EXPECT_EQ(a->slowest, a->duration() > b->duration()) << "iteration " << it;
    }
}

TEST(RankSummarySql, EightGpuNvprofFileSplitsIntoItsDevices) {
    const fs::path file = thirdPartyTrace("nccl_8xv100.nvprof.nvvp");
    LS_REQUIRE_FILE(file);
    const Session s = loadSession({file.string()});
    ASSERT_TRUE(s.failed.empty());
    const SqlReader db(file);
    std::vector<int64_t> devices;
    db.each("SELECT DISTINCT deviceId FROM CUPTI_ACTIVITY_KIND_CONCURRENT_KERNEL ORDER BY 1",
            [&](sqlite3_stmt* st) { devices.push_back(SqlReader::int64(st, 0)); });
    ASSERT_EQ(s.ranks.size(), devices.size());
    const auto rows = rankTimeSummary(s);
    for (size_t i = 0; i < devices.size(); ++i) {
        EXPECT_EQ(s.ranks[i].rank, static_cast<int>(i));
        EXPECT_EQ(s.ranks[i].source, RankSource::Device);
        EXPECT_EQ(rows[i].device, static_cast<uint32_t>(devices[i]));
        expectRow(rows[i], sweep(db, "SELECT k.start, k.end, lower(s.value) LIKE '%nccl%' FROM "
                                     "CUPTI_ACTIVITY_KIND_CONCURRENT_KERNEL k "
                                     "JOIN StringTable s ON s._id_ = k.name WHERE k.deviceId = " +
                                         copiesOf(devices[i])));
    }
    // One thread launched each collective on all its GPUs with one call: a correlation id is
    // one collective, with one kernel on each GPU that took part.
    std::map<int64_t, int64_t> membersByLaunch;
    db.each("SELECT correlationId, count(DISTINCT deviceId) FROM "
            "CUPTI_ACTIVITY_KIND_CONCURRENT_KERNEL GROUP BY 1",
            [&](sqlite3_stmt* st) {
                membersByLaunch[SqlReader::int64(st, 0)] = SqlReader::int64(st, 1);
            });
    const CollectiveMatch m = matchCollectives(s);
    ASSERT_EQ(m.collectives.size(), membersByLaunch.size());
    for (const auto& c : m.collectives) {
        const int64_t launch = std::stoll(c.comm.substr(c.comm.find(' ') + 1));
        EXPECT_EQ(static_cast<int64_t>(c.members.size()), membersByLaunch[launch]) << c.comm;
        EXPECT_TRUE(c.type == Collective::Broadcast || c.type == Collective::AllReduce);
    }
}

TEST(RankSummarySql, FsdpPytorchProfilerRanksFromDistributedInfo) {
    const fs::path r0 = sharedDir() / "traces/fsdp_rank0.kineto.json.gz",
                   r1 = sharedDir() / "traces/fsdp_rank1.kineto.json.gz";
    LS_REQUIRE_FILE(r0);
    LS_REQUIRE_FILE(r1);
    const Session s = loadSession({r0.string(), r1.string()});
    ASSERT_TRUE(s.failed.empty());
    ASSERT_EQ(s.ranks.size(), 2u);
    for (int r = 0; r < 2; ++r) {
        EXPECT_EQ(s.ranks[r].rank, r);
        EXPECT_EQ(s.ranks[r].source, RankSource::DistributedInfo);
    }
    const CollectiveMatch m = matchCollectives(s);
    std::map<Collective, int> twoRank;
    for (const auto& c : m.collectives)
        if (c.members.size() == 2) ++twoRank[c.type];
    EXPECT_EQ(twoRank[Collective::AllGather], 24);
    EXPECT_EQ(twoRank[Collective::ReduceScatter], 12);
    EXPECT_EQ(m.unmatched, 0u);
    EXPECT_EQ(m.commKernels, 2u * 36u);
    // Message sizes and process groups from the kernels' args, read here by Python's own json.
    for (int r = 0; r < 2; ++r) {
        const std::string script =
            "import gzip, json, sys\n"
            "size = {'BFloat16': 2, 'Half': 2, 'Float': 4, 'Double': 8, 'Long': 8, 'Int': 4}\n"
            "for e in json.load(gzip.open(sys.argv[1]))['traceEvents']:\n"
            "    a = e.get('args', {})\n"
            "    if e.get('cat') == 'kernel' and 'In msg nelems' in a:\n"
            "        print(e['name'].split('_')[1], max(a['In msg nelems'], a['Out msg nelems']) * "
            "size[a['dtype']], a['Process Group Name'])\n";
        const fs::path py = outputDir() / ("collective_args_" + std::to_string(r) + ".py");
        writeFile(py, script);
        FILE* pipe =
            popen(("python3 '" + py.string() + "' '" + (r ? r1 : r0).string() + "'").c_str(), "r");
        ASSERT_NE(pipe, nullptr);
        std::string out;
        std::array<char, 4096> buf{};
        for (size_t n; (n = fread(buf.data(), 1, buf.size(), pipe)) > 0;) out.append(buf.data(), n);
        ASSERT_EQ(pclose(pipe), 0) << "python3 failed";
        std::multiset<std::string> expected, actual;
        std::istringstream lines(out);
        for (std::string type, group; lines;) {
            uint64_t bytes = 0;
            if (lines >> type >> bytes >> group)
                expected.insert(type + " " + std::to_string(bytes) + " group " + group);
        }
        for (const auto& c : m.collectives)
            for (const auto& member : c.members)
                if (member.rank == static_cast<uint32_t>(r))
                    actual.insert(std::string(c.type == Collective::AllGather ? "AllGather"
                                                                              : "ReduceScatter") +
                                  " " + std::to_string(member.bytes) + " " + c.comm);
        EXPECT_EQ(expected.size(), 36u);
        EXPECT_EQ(actual, expected) << "rank " << r;
    }
    for (const auto& row : rankTimeSummary(s)) {
        EXPECT_EQ(row.commKernels, 36u);
        // Copies and sets outside kernels are busy too (exact values: test_hta_agreement.cpp).
        EXPECT_GT(row.busy, row.compute + row.comm - row.overlap);
        EXPECT_GT(row.overlap, 0) << "FSDP prefetches all-gathers under compute";
    }
}

// The same FSDP job recorded with Nsight Systems, one report per rank (tests/data/ranks, recorded
// for this project on two H100s with ../shared/tools/gpu/fsdp.py --mode nvtx): rank_sum against
// the SQL sweep, and every all-gather and reduce-scatter matched to its peer, with the skew from
// the kernels' starts in SQL on the clock the recorded session starts give.
fs::path fsdpNsys(int rank) {
    return sourceDir() / "tests/data/ranks" /
           ("fsdp_nsys_bf16_h100x2_rank" + std::to_string(rank) + ".sqlite");
}

TEST(RankSummarySql, FsdpNsysRanksEqualSqlAndCollectivesMatchOneToOne) {
    LS_REQUIRE_FILE(fsdpNsys(0));
    LS_REQUIRE_FILE(fsdpNsys(1));
    const Session s = loadSession({fsdpNsys(1).string(), fsdpNsys(0).string()});
    ASSERT_TRUE(s.failed.empty());
    ASSERT_EQ(s.ranks.size(), 2u);
    const auto rows = rankTimeSummary(s);
    std::vector<int64_t> epoch(2);
    std::map<std::string, std::vector<std::vector<int64_t>>> starts; // type -> rank -> starts
    for (int r = 0; r < 2; ++r) {
        EXPECT_EQ(s.ranks[r].rank, r);
        const SqlReader db(fsdpNsys(r));
        // torchrun's RANK, as the export recorded the process environment.
        EXPECT_EQ(s.ranks[r].source, RankSource::Environment);
        EXPECT_EQ(db.scalar("SELECT count(*) FROM META_DATA_CAPTURE WHERE name LIKE "
                            "'%ENVIRONMENT_VARIABLE' AND value = 'RANK=\"" +
                            std::to_string(r) + "\"'"),
                  1);
        const int64_t device =
            db.scalar("SELECT DISTINCT deviceId FROM CUPTI_ACTIVITY_KIND_KERNEL");
        EXPECT_EQ(device, r) << "each rank drove its own GPU";
        expectRow(rows[r], sweep(db, kNsysKernels + copiesOf(device)));
        EXPECT_GT(rows[r].overlap, 0) << "FSDP prefetches all-gathers under compute";
        epoch[r] = db.scalar("SELECT utcEpochNs FROM TARGET_INFO_SESSION_START_TIME");
        for (const char* type : {"AllGather", "ReduceScatter"}) {
            starts[type].resize(2);
            db.each(std::string("SELECT k.start FROM CUPTI_ACTIVITY_KIND_KERNEL k JOIN StringIds s "
                                "ON s.id = k.demangledName "
                                "WHERE s.value LIKE 'ncclDevKernel_") +
                        type + "%' ORDER BY k.start",
                    [&](sqlite3_stmt* st) { starts[type][r].push_back(SqlReader::int64(st, 0)); });
        }
    }
    EXPECT_EQ(starts["AllGather"][0].size(), 24u);
    EXPECT_EQ(starts["ReduceScatter"][0].size(), 12u);
    const int64_t base = std::min(epoch[0], epoch[1]);
    const CollectiveMatch m = matchCollectives(s);
    EXPECT_EQ(m.commKernels, 2u * 36u);
    EXPECT_EQ(m.unmatched, 0u);
    ASSERT_EQ(m.collectives.size(), 36u);
    std::map<std::string, size_t> seen;
    for (const auto& c : m.collectives) {
        ASSERT_EQ(c.members.size(), 2u);
        const std::string type = c.type == Collective::AllGather       ? "AllGather"
                                 : c.type == Collective::ReduceScatter ? "ReduceScatter"
                                                                       : "?";
        ASSERT_NE(type, "?");
        const size_t k = seen[type]++;
        const int64_t a = starts[type][0][k] + epoch[0] - base,
                      b = starts[type][1][k] + epoch[1] - base;
        EXPECT_EQ(c.firstStart, std::min(a, b)) << type << " " << k;
        EXPECT_EQ(c.skew(), std::abs(a - b)) << type << " " << k;
        EXPECT_EQ(c.lastRank, b > a ? 1 : 0) << type << " " << k;
    }
    EXPECT_EQ(seen["AllGather"], 24u);
    EXPECT_EQ(seen["ReduceScatter"], 12u);
}

} // namespace
} // namespace ls::test
