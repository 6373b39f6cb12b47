// Nsight Systems reports (.nsys-rep/.qdrep): exported on open with a local nsys into the cache
// folder, then read by the nsys importer. Fake nsys scripts check the plumbing (arguments, the
// error when nsys is missing or fails, progress, cancel, the cache); the real nsys 2022.4, when
// there is one (LAYERSCOPE_NSYS, PATH, or tools/get_nsys.sh's /tmp/nsys-2022.4), converts the
// report in tests/data/nsys_rep and its NVTX ranges are checked.
#include "core/import/importer.h"
#include "core/import/nsys_rep/nsys_locator.h"
#include "core/import/nsys_rep/nsys_rep_importer.h"
#include "core/load/load.h"
#include "core/model/platform.h"
#include "tests/support/test_support.h"

#include <atomic>
#include <chrono>
#include <cstdlib>
#include <filesystem>
#include <gtest/gtest.h>
#include <map>
#include <optional>

namespace {

using namespace ls::test;

const fs::path kReport = sourceDir() / "tests" / "data" / "nsys_rep" / "nvtx_ranges.nsys-rep";

// Sets (or unsets, with nullopt) an environment variable for the scope of a test.
class ScopedEnv {
  public:
    ScopedEnv(const char* name, std::optional<std::string> value) : name_(name) {
        if (const char* old = std::getenv(name)) old_ = old;
        if (value)
            ::setenv(name, value->c_str(), 1);
        else
            ::unsetenv(name);
    }
    ~ScopedEnv() {
        if (old_)
            ::setenv(name_, old_->c_str(), 1);
        else
            ::unsetenv(name_);
    }
    ScopedEnv(const ScopedEnv&) = delete;
    ScopedEnv& operator=(const ScopedEnv&) = delete;

  private:
    const char* name_;
    std::optional<std::string> old_;
};

// A test's folders: the report copied alone into in/, the cache under cache/ (XDG_CACHE_HOME).
struct ReportDirs {
    TempDir tmp;
    fs::path in = tmp / "in";
    fs::path report = in / "report.nsys-rep";
    fs::path cache = tmp / "cache";
    fs::path exports = cache / "layerscope" / "exports";
    ScopedEnv xdg{"XDG_CACHE_HOME", cache.string()};
    ScopedEnv env{"LAYERSCOPE_NSYS", std::nullopt};
    ReportDirs() {
        fs::create_directories(in);
        fs::copy_file(kReport, report);
    }
    std::vector<std::string> exportFiles() const {
        return fs::exists(exports) ? listDir(exports) : std::vector<std::string>{};
    }
};

void writeScript(const fs::path& file, const std::string& body) {
    writeFile(file, "#!/bin/sh\n" + body);
    fs::permissions(file, fs::perms::owner_all | fs::perms::group_read | fs::perms::group_exec,
                    fs::perm_options::replace);
}

// The nsys this machine has, or empty: LAYERSCOPE_NSYS, nsys on PATH, tools/get_nsys.sh's default.
std::string realNsys() {
    const ls::NsysLocation found = ls::locateNsys(ls::nsysSearchFromEnvironment({}));
    if (found.found()) return found.path;
    const std::string fetched =
        "/tmp/nsys-2022.4/usr/lib/x86_64-linux-gnu/nsight-systems/target-linux-x64/nsys";
    return ls::platform::isExecutableFile(fetched) ? fetched : std::string();
}

std::string oneLine(const ls::LoadResult& r) {
    return r.error ? r.error->reason : std::string("(no error)");
}

// A fake nsys that logs its arguments, counts its runs and "exports" the bundled sample trace.
struct FakeExporter {
    fs::path script, args, runs;
    explicit FakeExporter(const fs::path& dir)
        : script(dir / "bin" / "nsys"), args(dir / "args.txt"), runs(dir / "runs.txt") {
        fs::create_directories(script.parent_path());
        writeScript(
            script,
            "echo run >> '" + runs.string() +
                "'\n"
                "printf '%s\\n' \"$@\" > '" +
                args.string() +
                "'\n"
                "out=\n"
                "while [ $# -gt 0 ]; do [ \"$1\" = --output ] && out=$2; shift; done\n"
                "printf 'Exporting 7 events: [=25%%   ]\\rExporting 7 events: [====100%%]\\n' >&2\n"
                "cp '" +
                sampleTrace().string() + "' \"$out\"\n");
    }
    size_t runCount() const { return fs::exists(runs) ? splitLines(readFile(runs)).size() : 0; }
};

TEST(NsysRep, AcceptedByNameOrMagicButNeverWhenSqlite) {
    const auto accepts = [](const std::string& path, const std::string& bytes) {
        ls::FileHead head;
        head.bytes = bytes;
        head.size = bytes.size();
        return ls::acceptsNsysRep(ls::ImportProbe{path, head, nullptr});
    };
    EXPECT_TRUE(accepts("a/run.nsys-rep", "anything"));
    EXPECT_TRUE(accepts("run.QDREP", "anything"));
    EXPECT_TRUE(accepts("run.bin", ls::test::readFile(kReport).substr(0, 64))); // the report magic
    EXPECT_FALSE(accepts("run.bin", "anything"));
    EXPECT_FALSE(
        accepts("run.nsys-rep", std::string("SQLite format 3\0", 16) + std::string(100, '\0')));
    // The committed report starts with the magic the probe looks for.
    EXPECT_TRUE(ls::test::readFile(kReport).starts_with("NVIDIA Tegra Profiler Report "));
}

TEST(NsysRep, LocatorOrder) {
    TempDir tmp;
    const fs::path a = tmp / "a", b = tmp / "b";
    fs::create_directories(a);
    fs::create_directories(b);
    writeScript(a / "nsys", "exit 0\n");
    writeScript(b / "nsys", "exit 0\n");
    writeFile(tmp / "plain", "not a program");
    // Nothing anywhere: not found, no error text of its own.
    EXPECT_FALSE(ls::locateNsys({}).found());
    EXPECT_EQ(ls::locateNsys({}).error, "");
    // PATH in order, empty entries skipped; install folders after PATH.
    EXPECT_EQ(ls::locateNsys({"", "", "::" + a.string() + ":" + b.string(), {}}).path,
              (a / "nsys").string());
    EXPECT_EQ(ls::locateNsys({"", "", "/nonexistent", {b.string()}}).path, (b / "nsys").string());
    EXPECT_EQ(ls::locateNsys({"", "", "/nonexistent", {b.string()}}).from, "install folder");
    // The preference beats LAYERSCOPE_NSYS, which beats PATH; a folder means its nsys.
    EXPECT_EQ(ls::locateNsys({a.string(), (b / "nsys").string(), b.string(), {}}).path,
              (a / "nsys").string());
    EXPECT_EQ(ls::locateNsys({"", (b / "nsys").string(), a.string(), {}}).path,
              (b / "nsys").string());
    // An explicit setting that names no program is an error, not a fall-back to PATH.
    const auto bad = ls::locateNsys({"", (tmp / "plain").string(), a.string(), {}});
    EXPECT_FALSE(bad.found());
    EXPECT_NE(bad.error.find("LAYERSCOPE_NSYS names"), std::string::npos) << bad.error;
    EXPECT_NE(bad.error.find("not an executable"), std::string::npos) << bad.error;
}

// (1) No nsys: one clear line that says how to get one or how to export on the cluster.
TEST(NsysRep, WithoutNsysTheErrorSaysHowToExport) {
    ReportDirs s;
    {
        ScopedEnv env("LAYERSCOPE_NSYS", (s.tmp / "missing" / "nsys").string());
        const auto r = ls::loadTrace(s.report.string());
        ASSERT_FALSE(r.ok());
        EXPECT_EQ(r.error->kind, ls::LoadErrorKind::NeedsConverter);
        const std::string& why = r.error->reason;
        EXPECT_NE(why.find("LAYERSCOPE_NSYS names " + (s.tmp / "missing" / "nsys").string() +
                           ", which does not exist"),
                  std::string::npos)
            << why;
        EXPECT_NE(why.find("install Nsight Systems or set LAYERSCOPE_NSYS"), std::string::npos)
            << why;
        EXPECT_NE(why.find("`nsys export --type sqlite --output report.sqlite report.nsys-rep`"),
                  std::string::npos)
            << why;
        EXPECT_EQ(why.find('\n'), std::string::npos);
    }
    EXPECT_EQ(listDir(s.in), std::vector<std::string>{"report.nsys-rep"});
    EXPECT_FALSE(fs::exists(s.cache)) << "no cache folder is made before an nsys is found";
    // Nothing set and an empty PATH: unless an install folder of this machine has an nsys.
    ScopedEnv path("PATH", "");
    if (ls::locateNsys({"", "", "", ls::nsysInstallDirs()}).found())
        GTEST_SKIP() << "this machine has an nsys in an install folder";
    const auto r = ls::loadTrace(s.report.string());
    ASSERT_FALSE(r.ok());
    EXPECT_EQ(r.error->kind, ls::LoadErrorKind::NeedsConverter);
    EXPECT_NE(r.error->reason.find(
                  "no Nsight Systems CLI (nsys) on PATH or in the usual install folders"),
              std::string::npos)
        << r.error->reason;
    EXPECT_EQ(listDir(s.in), std::vector<std::string>{"report.nsys-rep"});
    EXPECT_EQ(s.exportFiles(), std::vector<std::string>{});
}

// Named .nsys-rep without the report header: refused before any nsys runs.
TEST(NsysRep, WithoutTheReportHeaderNsysNeverRuns) {
    ReportDirs s;
    FakeExporter fake(s.tmp.path());
    writeFile(s.report, "this is not a report\n");
    ls::LoadOptions options;
    options.nsysPath = fake.script.string();
    const auto r = ls::loadTrace(s.report.string(), options);
    ASSERT_FALSE(r.ok());
    EXPECT_EQ(r.error->kind, ls::LoadErrorKind::NotSqlite);
    EXPECT_EQ(r.error->reason, "not an Nsight Systems report: it does not start with the report "
                               "header (damaged, or another kind of file)");
    EXPECT_EQ(fake.runCount(), 0u);
    EXPECT_FALSE(fs::exists(s.cache));
}

// (2) nsys fails: its exit code and the last line it wrote.
TEST(NsysRep, FailingNsysGivesItsExitCodeAndLastLine) {
    ReportDirs s;
    const fs::path fake = s.tmp / "bin" / "nsys";
    fs::create_directories(fake.parent_path());
    writeScript(fake, "printf 'Exporting 3 events: [10%%   ]\\r' >&2\n"
                      "echo 'Exportation error: fake nsys cannot read this report' >&2\n"
                      "exit 3\n");
    ls::LoadOptions options;
    options.nsysPath = fake.string();
    const auto r = ls::loadTrace(s.report.string(), options);
    ASSERT_FALSE(r.ok());
    EXPECT_EQ(r.error->kind, ls::LoadErrorKind::ConverterFailed);
    EXPECT_EQ(
        r.error->reason,
        "nsys export failed (exit code 3): Exportation error: fake nsys cannot read this report");
    EXPECT_EQ(listDir(s.in), std::vector<std::string>{"report.nsys-rep"});
    EXPECT_EQ(s.exportFiles(), std::vector<std::string>{}); // no partial file left
}

TEST(NsysRep, ExportsIntoTheCacheWithProgressAndReusesIt) {
    ReportDirs s;
    FakeExporter fake(s.tmp.path());
    ls::LoadOptions options;
    options.nsysPath = fake.script.string();
    std::vector<std::tuple<std::string, uint64_t, uint64_t, bool>> progress;
    options.progress = [&](const ls::LoadProgress& p) {
        progress.emplace_back(std::string(p.table), p.rowsRead, p.rowsTotal, p.inBytes);
    };
    const uint64_t size = fs::file_size(s.report);
    const uint64_t reportHash = hashFile(s.report);

    const auto r = ls::loadTrace(s.report.string(), options);
    ASSERT_TRUE(r.ok()) << oneLine(r);
    EXPECT_EQ(fake.runCount(), 1u);
    // The exact command line: nothing is written beside the report.
    const auto args = splitLines(readFile(fake.args));
    ASSERT_EQ(args.size(), 8u);
    EXPECT_EQ(std::vector<std::string>(args.begin(), args.begin() + 6),
              (std::vector<std::string>{"export", "--type", "sqlite", "--force-overwrite", "true",
                                        "--output"}));
    EXPECT_EQ(fs::path(args[6]).parent_path(), s.exports);
    EXPECT_NE(args[6].find(".partial-"), std::string::npos) << args[6];
    EXPECT_EQ(args[7], s.report.string());
    // One complete export in the cache, read as the sample is.
    const auto files = s.exportFiles();
    ASSERT_EQ(files.size(), 1u);
    EXPECT_TRUE(files[0].starts_with("report-") && files[0].ends_with(".sqlite")) << files[0];
    EXPECT_EQ(hashFile(s.exports / files[0]), hashFile(sampleTrace()));
    const auto sample = ls::loadTrace(sampleTrace().string());
    ASSERT_TRUE(sample.ok());
    EXPECT_EQ(r.trace->kernels.size(), sample.trace->kernels.size());
    EXPECT_EQ(r.trace->path, (s.exports / files[0]).string());
    EXPECT_EQ(r.trace->displayPath(), s.report.string());
    EXPECT_EQ(r.trace->info.format, "Nsight Systems report");
    ASSERT_EQ(r.trace->report.count(ls::Anomaly::ConvertedFromNsysRep), 1u);
    EXPECT_TRUE(r.trace->report.details(ls::Anomaly::ConvertedFromNsysRep)
                    .at(0)
                    .starts_with("exported with " + fake.script.string() + " (from preferences)"));
    // Progress in the report's bytes: 0 at the start, nsys's own 25 %, all of it after the export.
    ASSERT_GE(progress.size(), 3u);
    const std::string label = "report.nsys-rep (nsys export)";
    EXPECT_EQ(progress[0], std::make_tuple(label, uint64_t{0}, size, true));
    EXPECT_NE(
        std::find(progress.begin(), progress.end(), std::make_tuple(label, size / 4, size, true)),
        progress.end());
    EXPECT_NE(std::find(progress.begin(), progress.end(), std::make_tuple(label, size, size, true)),
              progress.end());

    // Second open: the cached export, no second nsys run (its run log has one line), the file
    // untouched (an old mtime set on it stays).
    const auto old = fs::file_time_type::clock::now() - std::chrono::hours(24 * 365);
    fs::last_write_time(s.exports / files[0], old);
    const auto again = ls::loadTrace(s.report.string(), options);
    ASSERT_TRUE(again.ok()) << oneLine(again);
    EXPECT_EQ(fake.runCount(), 1u);
    EXPECT_EQ(fs::last_write_time(s.exports / files[0]), old);
    EXPECT_TRUE(again.trace->report.details(ls::Anomaly::ConvertedFromNsysRep)
                    .at(0)
                    .starts_with("reused the export " + (s.exports / files[0]).string()));
    EXPECT_EQ(again.trace->kernels.size(), r.trace->kernels.size());

    // A damaged cached export is not trusted: it is made again.
    fs::resize_file(s.exports / files[0], 4096);
    const auto damaged = ls::loadTrace(s.report.string(), options);
    ASSERT_TRUE(damaged.ok()) << oneLine(damaged);
    EXPECT_EQ(fake.runCount(), 2u);
    EXPECT_EQ(hashFile(s.exports / files[0]), hashFile(sampleTrace()));

    // A changed report (another time) gets a new export, and the old one goes.
    fs::last_write_time(s.report, fs::last_write_time(s.report) - std::chrono::hours(1));
    const auto changed = ls::loadTrace(s.report.string(), options);
    ASSERT_TRUE(changed.ok()) << oneLine(changed);
    EXPECT_EQ(fake.runCount(), 3u);
    const auto after = s.exportFiles();
    ASSERT_EQ(after.size(), 1u);
    EXPECT_NE(after[0], files[0]);

    EXPECT_EQ(listDir(s.in), std::vector<std::string>{"report.nsys-rep"});
    EXPECT_EQ(hashFile(s.report), reportHash);
}

TEST(NsysRep, CancelStopsNsys) {
    ReportDirs s;
    const fs::path fake = s.tmp / "bin" / "nsys";
    fs::create_directories(fake.parent_path());
    writeScript(fake, "printf 'Exporting 1 events: [0%%   ]\\r' >&2\nexec sleep 60\n");
    std::atomic<bool> cancel{false};
    ls::LoadOptions options;
    options.nsysPath = fake.string();
    options.cancel = &cancel;
    // Cancel once nsys is running: the second progress call is its own "0%" (the first is the
    // start).
    int calls = 0;
    options.progress = [&](const ls::LoadProgress&) {
        if (++calls == 2) cancel = true;
    };
    const auto t0 = std::chrono::steady_clock::now();
    const auto r = ls::loadTrace(s.report.string(), options);
    const double seconds =
        std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
    ASSERT_FALSE(r.ok());
    EXPECT_EQ(r.error->kind, ls::LoadErrorKind::Cancelled);
    EXPECT_LT(seconds, 30.0); // far below the fake's 60 s
    EXPECT_EQ(s.exportFiles(), std::vector<std::string>{});
}

// (3) The real nsys: the committed report converts and opens with the NVTX ranges its program made.
TEST(NsysRep, RealNsysConvertsTheCommittedReport) {
    const std::string nsys = realNsys();
    if (nsys.empty())
        GTEST_SKIP() << "no nsys: set LAYERSCOPE_NSYS or put nsys on PATH (tools/get_nsys.sh "
                        "fetches Nsight Systems 2022.4)";
    ReportDirs s;
    const fs::path report = s.in / "nvtx_ranges.nsys-rep";
    fs::rename(s.report, report);
    const uint64_t reportHash = hashFile(report);
    ScopedEnv env("LAYERSCOPE_NSYS", nsys);

    const auto r = ls::loadTrace(report.string());
    ASSERT_TRUE(r.ok()) << oneLine(r);
    const ls::Trace& t = *r.trace;
    EXPECT_EQ(t.displayPath(), report.string());
    EXPECT_EQ(t.info.format, "Nsight Systems report");
    EXPECT_FALSE(t.info.productVersion.empty());
    ASSERT_EQ(t.report.count(ls::Anomaly::ConvertedFromNsysRep), 1u);
    EXPECT_TRUE(t.report.details(ls::Anomaly::ConvertedFromNsysRep)
                    .at(0)
                    .starts_with("exported with " + nsys + " (from LAYERSCOPE_NSYS)"));
    // nvtx_ranges.cpp: twice step > forward > {layer1, layer2} and step > backward, one thread.
    EXPECT_EQ(t.kernels.size(), 0u);
    ASSERT_EQ(t.ranges.size(), 10u);
    std::map<std::string, int> count;
    for (size_t i = 0; i < t.ranges.size(); ++i) {
        const std::string name(t.str(t.ranges.name[i]));
        ++count[name];
        const std::string parent = t.ranges.parent[i].valid()
                                       ? std::string(t.str(t.ranges.name[t.ranges.parent[i].value]))
                                       : "";
        const std::map<std::string, std::pair<int, std::string>> expected = {
            {"step", {0, ""}},
            {"forward", {1, "step"}},
            {"backward", {1, "step"}},
            {"layer1", {2, "forward"}},
            {"layer2", {2, "forward"}}};
        ASSERT_TRUE(expected.count(name)) << name;
        EXPECT_EQ(t.ranges.depth[i], expected.at(name).first) << name;
        EXPECT_EQ(parent, expected.at(name).second) << name;
        EXPECT_GT(t.ranges.end[i], t.ranges.start[i]) << name;
    }
    EXPECT_EQ(count,
              (std::map<std::string, int>{
                  {"backward", 2}, {"forward", 2}, {"layer1", 2}, {"layer2", 2}, {"step", 2}}));
    ASSERT_EQ(t.threads.size(), 1u);

    // One export in the cache; a second open reuses it without running nsys (the cached file
    // keeps the old mtime set on it, and the report says so).
    const auto files = s.exportFiles();
    ASSERT_EQ(files.size(), 1u);
    const auto old = fs::file_time_type::clock::now() - std::chrono::hours(24 * 365);
    fs::last_write_time(s.exports / files[0], old);
    {
        ScopedEnv none("LAYERSCOPE_NSYS", (s.tmp / "no-nsys-needed").string());
        const auto again = ls::loadTrace(report.string());
        ASSERT_TRUE(again.ok()) << oneLine(again);
        EXPECT_EQ(again.trace->ranges.size(), 10u);
        EXPECT_TRUE(again.trace->report.details(ls::Anomaly::ConvertedFromNsysRep)
                        .at(0)
                        .starts_with("reused the export"));
        EXPECT_EQ(fs::last_write_time(s.exports / files[0]), old);
        EXPECT_EQ(s.exportFiles(), files);
    }

    // The CLI opens it through the same loadTrace.
    const auto cli = runCli({"info", report.string()});
    EXPECT_EQ(cli.rc, 0) << cli.err;
    EXPECT_NE(cli.out.find("format: Nsight Systems report\n"), std::string::npos) << cli.out;
    EXPECT_NE(cli.out.find("nvtx ranges: 10 (plus 0 marks)\n"), std::string::npos) << cli.out;
    EXPECT_NE(cli.out.find("converted_from_nsys_rep"), std::string::npos) << cli.out;

    // Nothing beside the report, and the report unchanged.
    EXPECT_EQ(listDir(s.in), std::vector<std::string>{"nvtx_ranges.nsys-rep"});
    EXPECT_EQ(hashFile(report), reportHash);
}

// Damaged reports through the real nsys: a trace or one line of error, never a crash or a hang,
// and nothing beside the report.
TEST(NsysRep, RealNsysOnDamagedReports) {
    const std::string nsys = realNsys();
    if (nsys.empty())
        GTEST_SKIP() << "no nsys: set LAYERSCOPE_NSYS or put nsys on PATH (tools/get_nsys.sh "
                        "fetches Nsight Systems 2022.4)";
    ReportDirs s;
    const std::string original = readFile(s.report);
    const std::vector<std::pair<std::string, std::string>> variants = {
        {"half", original.substr(0, original.size() / 2)},
        {"header only", original.substr(0, 64)},
        {"flipped middle",
         [&] {
             std::string b = original;
             for (size_t i = b.size() / 3; i < b.size() / 3 + 64; ++i)
                 b[i] = static_cast<char>(~b[i]);
             return b;
         }()},
        {"zeroed tail",
         [&] {
             std::string b = original;
             std::fill(b.begin() + static_cast<std::ptrdiff_t>(b.size() / 2), b.end(), '\0');
             return b;
         }()},
        {"magic only", "NVIDIA Tegra Profiler Report 1.\n"},
    };
    ls::LoadOptions options;
    options.nsysPath = nsys;
    for (const auto& [name, bytes] : variants) {
        writeFile(s.report, bytes);
        const auto r = ls::loadTrace(s.report.string(), options);
        if (!r.ok()) {
            EXPECT_EQ(r.error->reason.find('\n'), std::string::npos) << name;
            EXPECT_FALSE(r.error->reason.empty()) << name;
            EXPECT_TRUE(r.error->kind == ls::LoadErrorKind::ConverterFailed ||
                        r.error->kind == ls::LoadErrorKind::NoGpuTables)
                << name << ": " << r.error->reason;
        }
        EXPECT_EQ(listDir(s.in), std::vector<std::string>{"report.nsys-rep"}) << name;
        for (const auto& f : s.exportFiles())
            EXPECT_EQ(f.find(".partial-"), std::string::npos) << name << ": " << f;
    }
}

} // namespace
