// WholeLineStream: what `<<` writes in pieces reaches the target as whole lines, one write each,
// so that processes sharing a launcher's stderr cannot split each other's lines.
#include "app/cli/whole_line_stream.h"

#include <gtest/gtest.h>
#include <ostream>
#include <streambuf>
#include <string>
#include <vector>

namespace {

// A target that records every write it is given, as the launcher would see them.
class RecordingBuffer : public std::streambuf {
  public:
    std::vector<std::string> writes;

  protected:
    int_type overflow(int_type c) override {
        if (!traits_type::eq_int_type(c, traits_type::eof()))
            writes.emplace_back(1, traits_type::to_char_type(c));
        return traits_type::not_eof(c);
    }
    std::streamsize xsputn(const char* s, std::streamsize n) override {
        writes.emplace_back(s, static_cast<size_t>(n));
        return n;
    }
};

TEST(WholeLineStream, PiecesOfALineReachTheTargetInOneWrite) {
    RecordingBuffer recorded;
    std::ostream target(&recorded);
    {
        ls::cli::WholeLineStream lines(target);
        lines << "job: " << 6 << " trace files over " << 3 << " MPI processes\n";
        lines << "job: process " << 1 << ": [" << 1 << "/" << 2 << "] a.sqlite\n" << std::flush;
        EXPECT_EQ(recorded.writes.size(), 2u);
        lines << "two lines\nat once\n";
    }
    const std::vector<std::string> want{"job: 6 trace files over 3 MPI processes\n",
                                        "job: process 1: [1/2] a.sqlite\n", "two lines\nat once\n"};
    EXPECT_EQ(recorded.writes, want);
}

TEST(WholeLineStream, AFlushOrTheEndPassesAPartialLine) {
    RecordingBuffer recorded;
    std::ostream target(&recorded);
    {
        ls::cli::WholeLineStream lines(target);
        lines << "progress " << 50 << '%';
        EXPECT_TRUE(recorded.writes.empty());
        lines << std::flush;
        ASSERT_EQ(recorded.writes.size(), 1u);
        EXPECT_EQ(recorded.writes[0], "progress 50%");
        lines << "no newline at the end";
    }
    ASSERT_EQ(recorded.writes.size(), 2u);
    EXPECT_EQ(recorded.writes[1], "no newline at the end");
}

} // namespace
