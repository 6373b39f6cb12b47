#include "core/job/job_session.h"

#include <filesystem>
#include <system_error>

namespace ls::job {
namespace {

namespace fs = std::filesystem;

bool isFile(const fs::path& p) {
    std::error_code ec;
    return !p.empty() && fs::is_regular_file(p, ec);
}

} // namespace

SummaryOpen openJobSummaries(const std::string& jobPath) {
    SummaryOpen out;
    JobFile job = readJobFile(jobPath);
    if (!job.error.empty()) {
        out.error = job.error;
        return out;
    }
    const fs::path folder = fs::path(jobPath).parent_path();
    for (size_t t = 0; t < job.summaries.traces.size(); ++t) {
        const JobTrace& where = job.paths.at(t);
        const fs::path relative =
            where.relativePath.empty() ? fs::path() : folder / fs::path(where.relativePath);
        const fs::path absolute(where.absolutePath);
        const fs::path beside = folder / fs::path(job.summaries.traces[t].file).filename();
        std::string found;
        for (const fs::path& p : {relative, absolute, beside})
            if (isFile(p)) {
                found = p.lexically_normal().string();
                break;
            }
        out.files.push_back(found);
        const fs::path expected = relative.empty() ? beside : relative;
        out.missing.push_back(found.empty()
                                  ? fs::path(job.summaries.traces[t].file).filename().string() +
                                        " is not on this machine: copy it to " +
                                        expected.lexically_normal().string() + " (it was " +
                                        where.absolutePath + " where the job file was written)"
                                  : std::string());
    }
    out.summaries = std::make_shared<SummarySession>(std::move(job.summaries));
    return out;
}

SummaryOpen
summariseSession(const std::vector<std::string>& files, const SummariseOptions& options,
                 const std::function<void(size_t, size_t, const std::string&)>& fileDone) {
    SummaryOpen out;
    std::vector<TraceSummary> summaries = summariseFiles(files, options, {}, fileDone);
    std::vector<std::string> loaded;
    for (size_t i = 0; i < summaries.size(); ++i)
        if (summaries[i].error.empty()) loaded.push_back(files[i]);
    auto session = std::make_shared<SummarySession>(assembleSummaries(std::move(summaries)));
    if (session->traces.empty() && !session->session.failed.empty())
        out.error =
            session->session.failed.front().file + ": " + session->session.failed.front().reason;
    out.files = std::move(loaded);
    out.missing.assign(out.files.size(), std::string());
    out.summaries = std::move(session);
    return out;
}

bool summariesNeeded(const std::vector<std::string>& files, uint64_t budgetBytes) {
    uint64_t total = 0;
    for (const std::string& f : files) {
        std::error_code ec;
        const auto size = fs::file_size(f, ec);
        if (!ec) total += size;
    }
    return total > budgetBytes / 2;
}

} // namespace ls::job
