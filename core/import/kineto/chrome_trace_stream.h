#pragma once
// Streams a Chrome-trace JSON file (plain or gzip) without holding it whole: the decompressed
// text passes through one growing block buffer, and a small structural scanner cuts it into the
// top-level members ("deviceProperties": {...}) and the elements of "traceEvents", each handed
// out as a text span that simdjson parses on its own. The scanner only balances brackets and
// strings; whether a span is valid JSON is simdjson's verdict, per event, so one bad event never
// costs the rest of the file.
#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace ls {

class ChromeTraceStream {
  public:
    enum class Item { Event, Member, End };

    static constexpr size_t kBlockBytes = 2u << 20; // text read per fill (up to two read ahead)

    // Throws std::runtime_error with a one-line reason when the file cannot be opened. Tests and
    // the fuzzer pass tiny blocks, so that every refill path of the scanner runs on small inputs.
    explicit ChromeTraceStream(const std::string& path, size_t blockBytes = kBlockBytes);
    ~ChromeTraceStream();
    ChromeTraceStream(const ChromeTraceStream&) = delete;
    ChromeTraceStream& operator=(const ChromeTraceStream&) = delete;

    // The next event (value: its object text) or top-level member (key and value text). Spans stay
    // valid until the next call and are followed by at least kPadding readable bytes.
    Item next(std::string_view& key, std::string_view& value);

    static constexpr size_t kPadding = 64; // simdjson's SIMDJSON_PADDING

    // Where and why the text stopped being a trace before its end (truncated, not JSON);
    // nullopt after a clean end.
    const std::optional<std::string>& problem() const { return problem_; }
    bool sawTraceEvents() const { return sawTraceEvents_; }
    bool gzip() const { return gzip_; }
    uint64_t compressedBytesRead() const; // for progress against the file size

  private:
    enum class State { Start, Key, AfterMember, Events, AfterEvent, Done };
    bool fill();                 // reads more text; false at the end of the file
    bool skipSpace();            // true when a non-blank byte is at pos_ (reads as needed)
    bool scanValue(size_t& end); // end of the value starting at pos_ (reads as needed)
    bool scanString(size_t from, size_t& end); // end of the string whose opening quote is at from
    void stop(std::string why);

    struct File;
    std::unique_ptr<File> file_;
    std::vector<char> buf_;
    size_t pos_ = 0, end_ = 0; // unread text is buf_[pos_, end_)
    uint64_t consumed_ = 0;    // text bytes dropped from the buffer's front
    bool eof_ = false;
    bool gzip_ = false;
    bool sawTraceEvents_ = false;
    State state_ = State::Start;
    std::string key_;
    std::optional<std::string> problem_;
};

} // namespace ls
