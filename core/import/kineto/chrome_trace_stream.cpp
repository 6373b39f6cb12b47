#include "core/import/kineto/chrome_trace_stream.h"

#include <zlib.h>

#include <algorithm>
#include <cstring>
#include <stdexcept>

namespace ls {
namespace {

constexpr size_t kBlock = 8u << 20;          // text read per fill
constexpr size_t kMaxValue = size_t(1) << 31; // one event or member larger than this is not a trace

bool blank(char c) { return c == ' ' || c == '\n' || c == '\r' || c == '\t'; }

} // namespace

// zlib's gz reader passes plain files through unchanged, so one code path reads both.
struct ChromeTraceStream::File {
    gzFile gz = nullptr;
    ~File() {
        if (gz) gzclose(gz);
    }
};

ChromeTraceStream::ChromeTraceStream(const std::string& path) : file_(std::make_unique<File>()) {
    file_->gz = gzopen(path.c_str(), "rb");
    if (!file_->gz) throw std::runtime_error("cannot open for reading");
    gzbuffer(file_->gz, 1u << 20);
    buf_.resize(kBlock + kPadding);
    fill();
    gzip_ = gzdirect(file_->gz) == 0;
}

ChromeTraceStream::~ChromeTraceStream() = default;

uint64_t ChromeTraceStream::compressedBytesRead() const {
    const auto off = gzoffset(file_->gz);
    return off > 0 ? static_cast<uint64_t>(off) : 0;
}

bool ChromeTraceStream::fill() {
    if (eof_) return false;
    // Keep the unread text, moved to the front; grow when one value fills the whole buffer.
    if (pos_ > 0) {
        std::memmove(buf_.data(), buf_.data() + pos_, end_ - pos_);
        consumed_ += pos_;
        end_ -= pos_;
        pos_ = 0;
    }
    if (buf_.size() - kPadding - end_ < kBlock / 2) {
        if (buf_.size() - kPadding >= kMaxValue) {
            stop("one JSON value is larger than 2 GiB");
            return false;
        }
        buf_.resize((buf_.size() - kPadding) * 2 + kPadding);
    }
    const size_t room = buf_.size() - kPadding - end_;
    const int got = gzread(file_->gz, buf_.data() + end_, static_cast<unsigned>(std::min<size_t>(room, 1u << 30)));
    if (got < 0) {
        int code = 0;
        const char* msg = gzerror(file_->gz, &code);
        stop(std::string("cannot decompress (") + (msg ? msg : "zlib error") + ")");
        eof_ = true;
        return false;
    }
    if (got == 0) {
        eof_ = true;
        return false;
    }
    end_ += static_cast<size_t>(got);
    std::memset(buf_.data() + end_, ' ', kPadding);
    return true;
}

void ChromeTraceStream::stop(std::string why) {
    if (!problem_) problem_ = std::move(why) + " at byte " + std::to_string(consumed_ + pos_);
    state_ = State::Done;
}

bool ChromeTraceStream::skipSpace() {
    for (;;) {
        while (pos_ < end_ && blank(buf_[pos_])) ++pos_;
        if (pos_ < end_) return true;
        if (!fill()) return false;
    }
}

// On return true, end is one past the closing quote. Offsets survive a refill relative to pos_.
bool ChromeTraceStream::scanString(size_t from, size_t& end) {
    size_t i = from + 1;
    for (;;) {
        const char* q = static_cast<const char*>(std::memchr(buf_.data() + i, '"', end_ - i));
        if (!q) {
            const size_t rel = i - pos_, relFrom = from - pos_;
            if (!fill()) return false;
            i = pos_ + rel;
            from = pos_ + relFrom;
            continue;
        }
        size_t k = static_cast<size_t>(q - buf_.data());
        size_t slashes = 0;
        while (k - slashes > from + 1 && buf_[k - slashes - 1] == '\\') ++slashes;
        if (slashes % 2 == 0) {
            end = k + 1;
            return true;
        }
        i = k + 1;
    }
}

bool ChromeTraceStream::scanValue(size_t& end) {
    const char first = buf_[pos_];
    if (first == '"') return scanString(pos_, end);
    size_t i = pos_;
    if (first != '{' && first != '[') { // a number, true, false or null
        for (;;) {
            while (i < end_ && !blank(buf_[i]) && buf_[i] != ',' && buf_[i] != '}' && buf_[i] != ']') ++i;
            if (i < end_ || eof_) break;
            const size_t rel = i - pos_;
            if (!fill()) break;
            i = pos_ + rel;
        }
        end = i;
        return i > pos_;
    }
    int depth = 0;
    for (;;) {
        for (; i < end_; ++i) {
            const char c = buf_[i];
            if (c == '"') {
                size_t close = 0;
                if (!scanString(i, close)) return false;
                i = close - 1; // scanString may have refilled: close is already rebased
            } else if (c == '{' || c == '[') {
                ++depth;
            } else if (c == '}' || c == ']') {
                if (--depth == 0) {
                    end = i + 1;
                    return true;
                }
            }
        }
        const size_t rel = i - pos_;
        if (!fill()) return false;
        i = pos_ + rel;
    }
}

ChromeTraceStream::Item ChromeTraceStream::next(std::string_view& key, std::string_view& value) {
    for (;;) {
        if (state_ == State::Done) return Item::End;
        if (!skipSpace()) {
            stop("the JSON ends early (truncated file?)");
            return Item::End;
        }
        const char c = buf_[pos_];
        switch (state_) {
        case State::Start:
            if (c == '{') state_ = State::Key;
            else if (c == '[') { // the JSON Array Format: events only
                state_ = State::Events;
                sawTraceEvents_ = true;
            } else {
                stop("not JSON");
                return Item::End;
            }
            ++pos_;
            break;
        case State::Key: {
            if (c == '}') {
                state_ = State::Done;
                return Item::End;
            }
            size_t close = 0;
            if (c != '"' || !scanString(pos_, close)) {
                stop("a top-level member without a name");
                return Item::End;
            }
            key_.assign(buf_.data() + pos_ + 1, close - pos_ - 2);
            pos_ = close;
            if (!skipSpace() || buf_[pos_] != ':') {
                stop("a top-level member without a value");
                return Item::End;
            }
            ++pos_;
            if (!skipSpace()) {
                stop("the JSON ends early (truncated file?)");
                return Item::End;
            }
            if (key_ == "traceEvents" && buf_[pos_] == '[') {
                ++pos_;
                sawTraceEvents_ = true;
                state_ = State::Events;
                break;
            }
            size_t valueEnd = 0;
            if (!scanValue(valueEnd)) {
                stop("the JSON ends early (truncated file?)");
                return Item::End;
            }
            key = key_;
            value = std::string_view(buf_.data() + pos_, valueEnd - pos_);
            pos_ = valueEnd;
            state_ = State::AfterMember;
            return Item::Member;
        }
        case State::AfterMember:
            if (c == ',') state_ = State::Key;
            else if (c == '}') state_ = State::Done;
            else {
                stop("a top-level member is followed by neither ',' nor '}'");
                return Item::End;
            }
            ++pos_;
            break;
        case State::Events: {
            if (c == ']') {
                ++pos_;
                state_ = State::AfterMember;
                break;
            }
            size_t valueEnd = 0;
            if (!scanValue(valueEnd)) {
                stop("the JSON ends inside an event (truncated file?)");
                return Item::End;
            }
            key = {};
            value = std::string_view(buf_.data() + pos_, valueEnd - pos_);
            pos_ = valueEnd;
            state_ = State::AfterEvent;
            return Item::Event;
        }
        case State::AfterEvent:
            if (c == ',') state_ = State::Events;
            else if (c == ']') state_ = State::AfterMember;
            else {
                stop("an event is followed by neither ',' nor ']'");
                return Item::End;
            }
            ++pos_;
            break;
        case State::Done: return Item::End;
        }
    }
}

} // namespace ls
