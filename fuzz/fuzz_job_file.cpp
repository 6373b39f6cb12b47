// Fuzz target: the job file reader (core/job/job_file.h). A job file comes from another machine
// (the cluster) and is opened on a laptop: any bytes must give a one-line error or a job whose
// pieces agree with each other, never a crash, a hang or an allocation sized by a damaged count.
#include "core/job/job_file.h"
#include "fuzz/fuzz_check.h"

#include <cstddef>
#include <cstdint>
#include <string_view>

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
    const std::string_view bytes(reinterpret_cast<const char*>(data), size);
    const ls::job::JobFile job = ls::job::readJobBytes(bytes, "fuzz.lsjob");
    if (!job.error.empty()) {
        FUZZ_CHECK(job.error.find('\n') == std::string::npos); // one line
        return 0;
    }
    FUZZ_CHECK(job.paths.size() == job.summaries.traces.size());
    FUZZ_CHECK(job.summaries.session.traces.size() == job.summaries.traces.size());
    for (const auto& rank : job.summaries.session.ranks)
        FUZZ_CHECK(rank.trace < job.summaries.session.traces.size());
    return 0;
}
