#include "core/job/job_file.h"

#include "core/cache/archive.h"
#include "core/job/bytes.h"
#include "core/model/parallel.h"
#include "core/model/platform.h"

#include <algorithm>
#include <array>
#include <cstdio>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <iterator>
#include <system_error>
#include <thread>

namespace ls::job {
namespace {

namespace fs = std::filesystem;

constexpr std::array<char, 8> kMagic = {'L', 'S', 'J', 'O', 'B', '\0', '\r', '\n'};
constexpr size_t kHeaderBytes = 32; // magic, version, sections, file length, header checksum
constexpr size_t kSectionHead = 24; // tag, index, length, checksum
constexpr uint64_t kMaxSections = 1u << 24;

constexpr uint32_t tag(const char (&s)[5]) {
    return uint32_t(uint8_t(s[0])) | uint32_t(uint8_t(s[1])) << 8 | uint32_t(uint8_t(s[2])) << 16 |
           uint32_t(uint8_t(s[3])) << 24;
}
constexpr uint32_t kMeta = tag("META"), kTrace = tag("TRCE"), kRanks = tag("RANK"),
                   kEnd = tag("END ");

std::string tagName(uint32_t t) {
    std::string s;
    for (int i = 0; i < 4; ++i) {
        const char c = static_cast<char>((t >> (8 * i)) & 0xff);
        s += (c >= 0x20 && c < 0x7f) ? c : '?';
    }
    return s;
}

uint64_t sectionSum(uint32_t t, std::string_view payload) {
    return archive::hashBytes(payload.data(), payload.size(), t);
}

void section(ByteWriter& file, uint32_t t, uint32_t index, const std::string& payload) {
    file.u32(t);
    file.u32(index);
    file.u64(payload.size());
    file.u64(sectionSum(t, payload));
    file.str().append(payload);
}

std::string relativeTo(const fs::path& file, const fs::path& jobFolder) {
    std::error_code ec;
    const fs::path rel = fs::relative(file, jobFolder, ec);
    return ec ? std::string() : rel.generic_string();
}

} // namespace

std::string writeJobFile(const std::string& outPath, const std::vector<std::string>& encoded) {
    std::vector<TraceSummary> summaries(encoded.size());
    for (size_t i = 0; i < encoded.size(); ++i)
        if (const std::string e = decodeSummary(encoded[i], summaries[i]); !e.empty()) {
            summaries[i] = {};
            summaries[i].file = "summary #" + std::to_string(i);
            summaries[i].error = e;
        }
    std::vector<TraceSummary> failed;
    for (const TraceSummary& s : summaries)
        if (!s.error.empty()) failed.push_back(s);
    const SummarySession job = assembleSummaries(std::move(summaries));

    std::error_code ec;
    const fs::path out = fs::absolute(outPath, ec);
    const fs::path folder = out.parent_path();
    ByteWriter file;
    file.str().append(kMagic.data(), kMagic.size());
    file.u32(kJobFileVersion);
    const uint64_t sections = 3 + job.traces.size() + failed.size();
    file.u32(static_cast<uint32_t>(sections));
    file.u64(0); // the file's length, set below
    file.u64(0); // the header's checksum, set below

    ByteWriter meta;
    meta.text("layerscope");
    meta.text(job.session.clockAlignment);
    meta.u64(job.traces.size());
    meta.u64(failed.size());
    section(file, kMeta, 0, meta.str());
    uint32_t index = 0;
    auto writeTrace = [&](const TraceSummary& s) {
        ByteWriter t;
        fs::path abs =
            s.identityKnown ? fs::path(s.identity.absolutePath) : fs::absolute(s.file, ec);
        t.text(s.error.empty() ? relativeTo(abs, folder) : std::string());
        t.text(s.error.empty() ? abs.generic_string() : std::string());
        t.bytes(encodeSummary(s));
        section(file, kTrace, ++index, t.str());
    };
    for (const TraceSummary& s : job.traces) writeTrace(s);
    for (const TraceSummary& s : failed) writeTrace(s);
    ByteWriter ranks;
    ranks.u64(job.session.ranks.size());
    for (const SessionRank& r : job.session.ranks) {
        ranks.pod<int32_t>(r.rank);
        ranks.u8(static_cast<uint8_t>(r.source));
        ranks.u32(r.trace);
        ranks.u32(r.process.value);
        ranks.u32(r.device);
        ranks.text(r.host);
    }
    ranks.u64(job.session.traces.size());
    for (const SessionTrace& t : job.session.traces) ranks.i64(t.offsetNs);
    section(file, kRanks, ++index, ranks.str());
    ByteWriter end;
    end.u64(sections);
    section(file, kEnd, ++index, end.str());

    std::string& bytes = file.str();
    const uint64_t length = bytes.size();
    std::memcpy(bytes.data() + 16, &length, sizeof length);
    const uint64_t headerSum = archive::hashBytes(bytes.data(), 24, 0);
    std::memcpy(bytes.data() + 24, &headerSum, sizeof headerSum);

    const std::string temp = outPath + ".tmp" + std::to_string(std::hash<std::string>{}(outPath));
    {
        std::ofstream f(temp, std::ios::binary | std::ios::trunc);
        f.write(bytes.data(), static_cast<std::streamsize>(bytes.size()));
        f.close();
        if (!f) {
            fs::remove(temp, ec);
            return "cannot write " + outPath;
        }
    }
    fs::rename(temp, outPath, ec);
    if (ec) {
        fs::remove(temp, ec);
        return "cannot write " + outPath + " (" + ec.message() + ")";
    }
    return {};
}

bool isJobFile(const std::string& path) {
    std::ifstream f(path, std::ios::binary);
    std::array<char, 8> head{};
    return f.read(head.data(), head.size()) && head == kMagic;
}

JobFile readJobFile(const std::string& path) {
    // Mapped where the file is on a local disk: its pages are the system's cache, not tens of
    // megabytes of new memory to fault in and copy into (most of a read's time on some VMs). On a
    // network file system another host could shrink the file under the mapping: read there.
    std::string error;
    if (auto file = platform::MappableFile::open(path, error); file && file->onLocalFileSystem())
        if (const uint8_t* whole = file->mapWhole())
            return readJobBytes(
                std::string_view(reinterpret_cast<const char*>(whole), file->size()), path);
    std::ifstream f(path, std::ios::binary);
    if (!f) {
        JobFile job;
        job.error = path + ": cannot open the file";
        return job;
    }
    // Sized once and read in one call: a job of hundreds of ranks is tens of megabytes.
    std::error_code ec;
    const auto size = fs::file_size(path, ec);
    std::string bytes;
    if (!ec) {
        bytes.resize(static_cast<size_t>(size));
        f.read(bytes.data(), static_cast<std::streamsize>(bytes.size()));
        bytes.resize(static_cast<size_t>(f.gcount()));
    }
    if (ec || f.bad()) {
        JobFile job;
        job.error = path + ": cannot read the file";
        return job;
    }
    return readJobBytes(bytes, path);
}

JobFile readJobBytes(std::string_view bytes, const std::string& path) {
    JobFile job;
    auto fail = [&](const std::string& why) {
        job = {};
        job.error = path + ": " + why;
        return job;
    };
    if (bytes.empty()) return fail("empty file, not a Layerscope job file");
    if (bytes.size() < kMagic.size() || !std::equal(kMagic.begin(), kMagic.end(), bytes.begin()))
        return fail("not a Layerscope job file (no LSJOB magic)");
    if (bytes.size() < kHeaderBytes) return fail("the job file is truncated (in its header)");
    ByteReader head(bytes.substr(8, 24));
    const uint32_t version = head.u32();
    const uint32_t sections = head.u32();
    const uint64_t length = head.u64();
    const uint64_t headerSum = head.u64();
    if (archive::hashBytes(bytes.data(), 24, 0) != headerSum)
        return fail("the job file is damaged (its header's checksum does not match)");
    if (version != kJobFileVersion)
        return fail("job file format version " + std::to_string(version) +
                    ", this build reads version " + std::to_string(kJobFileVersion));
    if (length > bytes.size())
        return fail("the job file is truncated (" + std::to_string(bytes.size()) + " of " +
                    std::to_string(length) + " bytes)");
    if (length < bytes.size()) return fail("the job file has bytes after its end");
    if (sections < 3 || sections > kMaxSections)
        return fail("the job file is damaged (impossible section count)");

    // The sections' frames first; then their checksums and the trace summaries on every core (the
    // bulk of the file: a summary per rank); then each section in order, so that the first damage
    // in the file is the one reported.
    struct Frame {
        uint32_t tag = 0, index = 0;
        uint64_t sum = 0;
        std::string_view payload;
        bool summed = false;  // its checksum matches
        TraceSummary summary; // a trace section's, decoded
        std::string summaryError;
    };
    std::vector<Frame> frames;
    uint32_t cutTag = 0; // the tag of the section the file ends in, when truncated
    ByteReader in(bytes.substr(kHeaderBytes));
    while (frames.size() < sections) {
        Frame x;
        x.tag = in.u32();
        x.index = in.u32();
        const uint64_t n = in.u64();
        x.sum = in.u64();
        x.payload = in.take(n);
        if (!in.ok()) { // truncated: reported in order below
            cutTag = x.tag;
            break;
        }
        frames.push_back(std::move(x));
    }
    parallelFor(frames.size(), std::max(1u, std::thread::hardware_concurrency()),
                [&](size_t from, size_t to, unsigned) {
                    for (size_t i = from; i < to; ++i) {
                        Frame& x = frames[i];
                        x.summed = sectionSum(x.tag, x.payload) == x.sum;
                        if (!x.summed || x.tag != kTrace) continue;
                        ByteReader r(x.payload);
                        r.text(); // the paths, read in order below
                        r.text();
                        x.summaryError = decodeSummary(r.bytes(), x.summary);
                    }
                });

    std::vector<TraceSummary> summaries;
    uint64_t traceCount = 0, failedCount = 0;
    std::string clockAlignment;
    std::vector<SessionRank> ranks;
    std::vector<TimeNs> offsets;
    bool ended = false;
    for (uint32_t i = 0; i < sections; ++i) {
        const std::string which = "section " + std::to_string(i) + " (" +
                                  tagName(i < frames.size() ? frames[i].tag : cutTag) + ")";
        if (i >= frames.size()) return fail("the job file is truncated (in " + which + ")");
        Frame& frame = frames[i];
        const uint32_t t = frame.tag;
        const std::string_view payload = frame.payload;
        if (frame.index != i || !frame.summed)
            return fail("the job file is damaged (" + which + ": checksum does not match)");
        ByteReader r(payload);
        std::string bad;
        if (i == 0 && t != kMeta) return fail("the job file is damaged (no META section first)");
        if (t == kMeta) {
            job.writtenBy = r.text();
            clockAlignment = r.text();
            traceCount = r.u64();
            failedCount = r.u64();
            if (traceCount + failedCount != sections - 3)
                return fail("the job file is damaged (" + which + ": wrong trace count)");
        } else if (t == kTrace) {
            JobTrace p;
            p.relativePath = r.text();
            p.absolutePath = r.text();
            (void)r.bytes(); // decoded above
            TraceSummary& s = frame.summary;
            if (const std::string& e = frame.summaryError; !e.empty())
                return fail("the job file is damaged (" + which + ": " + e + ")");
            if (summaries.size() < traceCount) {
                if (!s.error.empty())
                    return fail("the job file is damaged (" + which + ": a failed trace first)");
                job.paths.push_back(std::move(p));
                summaries.push_back(std::move(s));
            } else {
                job.summaries.session.failed.push_back({s.file, s.error});
            }
        } else if (t == kRanks) {
            ranks.resize(r.count(22));
            for (SessionRank& x : ranks) {
                x.rank = r.i32();
                const uint8_t source = r.u8();
                if (source > static_cast<uint8_t>(RankSource::Order)) r.fail();
                x.source = static_cast<RankSource>(source);
                x.trace = r.u32();
                x.process = ProcessId(r.u32());
                x.device = r.u32();
                x.host = r.text();
                if (x.trace >= traceCount) r.fail();
            }
            offsets.resize(r.count(8));
            for (TimeNs& o : offsets) o = r.i64();
            if (offsets.size() != traceCount) r.fail();
        } else if (t == kEnd) {
            if (r.u64() != sections || i + 1 != sections)
                return fail("the job file is damaged (" + which + ": wrong section count)");
            ended = true;
        } else {
            return fail("the job file is damaged (" + which + ": unknown section)");
        }
        if (!r.ok() || !r.atEnd())
            return fail("the job file is damaged (" + which + ": bad lengths)");
    }
    if (!ended || summaries.size() != traceCount || offsets.size() != traceCount)
        return fail("the job file is damaged (sections missing)");
    std::vector<SessionFailure> failed = std::move(job.summaries.session.failed);
    job.summaries = assembleSummaries(std::move(summaries));
    Session& s = job.summaries.session; // the writer's numbering and alignment, as stored
    for (size_t i = 0; i < s.traces.size(); ++i) s.traces[i].offsetNs = offsets[i];
    s.failed = std::move(failed);
    // Ranks must name a rank unit of their trace.
    for (const SessionRank& r : ranks) {
        const auto& units = job.summaries.traces[r.trace].units;
        if (std::none_of(units.begin(), units.end(), [&](const RankUnit& u) {
                return u.process == r.process.value && u.device == r.device;
            }))
            return fail("the job file is damaged (a rank names no GPU of its trace)");
    }
    s.ranks = std::move(ranks);
    s.clockAlignment = std::move(clockAlignment);
    return job;
}

} // namespace ls::job
