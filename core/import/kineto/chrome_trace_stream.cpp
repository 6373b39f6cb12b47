#include "core/import/kineto/chrome_trace_stream.h"

#include <zlib.h>

#ifdef __SSE2__
#include <emmintrin.h>
#endif

#include <algorithm>
#include <atomic>
#include <condition_variable>
#include <cstring>
#include <deque>
#include <mutex>
#include <stdexcept>
#include <thread>

namespace ls {
namespace {

constexpr size_t kMaxValue = size_t(1) << 31; // one event or member larger than this is not a trace

bool blank(char c) { return c == ' ' || c == '\n' || c == '\r' || c == '\t'; }

// Bit k set when p[k] is a quote, a backslash or a bracket; p[0..15] must be readable.
unsigned interestingBytes(const char* p) {
#ifdef __SSE2__
    const __m128i v = _mm_loadu_si128(reinterpret_cast<const __m128i*>(p));
    __m128i m =
        _mm_or_si128(_mm_cmpeq_epi8(v, _mm_set1_epi8('"')), _mm_cmpeq_epi8(v, _mm_set1_epi8('\\')));
    // '[' 0x5B and '{' 0x7B, ']' 0x5D and '}' 0x7D differ in bit 5 only: clear it, compare twice.
    const __m128i folded = _mm_and_si128(v, _mm_set1_epi8(static_cast<char>(0xDF)));
    m = _mm_or_si128(m, _mm_or_si128(_mm_cmpeq_epi8(folded, _mm_set1_epi8('[')),
                                     _mm_cmpeq_epi8(folded, _mm_set1_epi8(']'))));
    return static_cast<unsigned>(_mm_movemask_epi8(m));
#else
    unsigned mask = 0;
    for (unsigned k = 0; k < 16; ++k) {
        const char c = p[k];
        if (c == '"' || c == '\\' || c == '[' || c == ']' || c == '{' || c == '}') mask |= 1u << k;
    }
    return mask;
#endif
}

} // namespace

// zlib's gz reader passes plain files through unchanged, so one code path reads both. A reader
// thread keeps up to two blocks of text ahead of the splitter: the kernel's copy out of the page
// cache and gzip's inflation overlap the parsing instead of adding to it.
struct ChromeTraceStream::File {
    struct Block {
        std::unique_ptr<char[]> data;
        size_t size = 0;
    };
    gzFile gz = nullptr;
    size_t block = kBlockBytes;
    std::thread reader;
    std::mutex mutex;
    std::condition_variable changed;
    std::deque<Block> ready, spare; // spare blocks are reused: no fresh pages to fault in per block
    bool done = false, stopping = false;
    std::string error;
    std::atomic<uint64_t> offset{0};

    void run() {
        for (;;) {
            Block b;
            {
                std::unique_lock lock(mutex);
                changed.wait(lock, [&] { return ready.size() < 2 || stopping; });
                if (stopping) return;
                if (!spare.empty()) {
                    b = std::move(spare.front());
                    spare.pop_front();
                }
            }
            if (!b.data) b.data.reset(new char[block]);
            const int got = gzread(gz, b.data.get(), static_cast<unsigned>(block));
            const auto off = gzoffset(gz);
            offset.store(off > 0 ? static_cast<uint64_t>(off) : 0, std::memory_order_relaxed);
            std::lock_guard lock(mutex);
            if (got <= 0) {
                if (got < 0) {
                    int code = 0;
                    const char* msg = gzerror(gz, &code);
                    error = std::string("cannot decompress (") + (msg ? msg : "zlib error") + ")";
                }
                done = true;
                changed.notify_all();
                return;
            }
            b.size = static_cast<size_t>(got);
            ready.push_back(std::move(b));
            changed.notify_all();
        }
    }

    // The next block, or one without data at the end of the text (error says why, if it failed).
    Block next() {
        std::unique_lock lock(mutex);
        changed.wait(lock, [&] { return !ready.empty() || done; });
        if (ready.empty()) return {};
        Block b = std::move(ready.front());
        ready.pop_front();
        changed.notify_all();
        return b;
    }

    void recycle(Block b) {
        std::lock_guard lock(mutex);
        spare.push_back(std::move(b));
    }

    ~File() {
        {
            std::lock_guard lock(mutex);
            stopping = true;
        }
        changed.notify_all();
        if (reader.joinable()) reader.join();
        if (gz) gzclose(gz);
    }
};

ChromeTraceStream::ChromeTraceStream(const std::string& path, size_t blockBytes)
    : file_(std::make_unique<File>()) {
    file_->block = std::clamp<size_t>(blockBytes, 1, kBlockBytes);
    file_->gz = gzopen(path.c_str(), "rb");
    if (!file_->gz) throw std::runtime_error("cannot open for reading");
    gzbuffer(file_->gz, 1u << 20);
    gzip_ = gzdirect(file_->gz) == 0; // reads the header, before the reader thread owns the file
    file_->reader = std::thread([f = file_.get()] { f->run(); });
    buf_.resize(file_->block * 2 + kPadding);
    fill();
}

ChromeTraceStream::~ChromeTraceStream() = default;

uint64_t ChromeTraceStream::compressedBytesRead() const {
    return file_->offset.load(std::memory_order_relaxed);
}

bool ChromeTraceStream::fill() {
    if (eof_) return false;
    // Keep the unread text, moved to the front; grow when one value outgrows the buffer.
    if (pos_ > 0) {
        std::memmove(buf_.data(), buf_.data() + pos_, end_ - pos_);
        consumed_ += pos_;
        end_ -= pos_;
        pos_ = 0;
    }
    File::Block block = file_->next();
    if (!block.data) {
        eof_ = true;
        std::string error;
        {
            std::lock_guard lock(file_->mutex);
            error = file_->error;
        }
        if (!error.empty()) stop(error);
        return false;
    }
    while (buf_.size() - kPadding - end_ < block.size) {
        if (buf_.size() - kPadding >= kMaxValue) {
            stop("one JSON value is larger than 2 GiB");
            return false;
        }
        buf_.resize((buf_.size() - kPadding) * 2 + kPadding);
    }
    std::memcpy(buf_.data() + end_, block.data.get(), block.size);
    end_ += block.size;
    file_->recycle(std::move(block));
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
            while (i < end_ && !blank(buf_[i]) && buf_[i] != ',' && buf_[i] != '}' &&
                   buf_[i] != ']')
                ++i;
            if (i < end_ || eof_) break;
            const size_t rel = i - pos_;
            const bool more = fill(); // moves the text to the front even when it meets the end
            i = pos_ + rel;
            if (!more) break;
        }
        end = i;
        return i > pos_;
    }
    // Brackets and strings, 16 bytes at a time: a mask of the bytes that matter (quotes,
    // backslashes, brackets) and a walk over its set bits. Events are mostly short keys and values,
    // where a memchr per string costs more than the string.
    int depth = 0;
    bool inString = false, escaped = false; // escaped: the byte at i is escaped by the block before
    for (;;) {
        while (i < end_) {
            const size_t chunk = std::min<size_t>(16, end_ - i);
            unsigned mask = interestingBytes(buf_.data() + i);
            if (chunk < 16) mask &= (1u << chunk) - 1;
            if (escaped) {
                mask &= ~1u;
                escaped = false;
            }
            while (mask) {
                const unsigned bit = static_cast<unsigned>(__builtin_ctz(mask));
                mask &= mask - 1;
                const char c = buf_[i + bit];
                if (inString) {
                    if (c == '"')
                        inString = false;
                    else if (c == '\\') {
                        // The escaped byte may lie past this chunk: past the text read so far, too.
                        if (bit + 1 == chunk)
                            escaped = true;
                        else
                            mask &= ~(1u << (bit + 1));
                    }
                } else if (c == '"') {
                    inString = true;
                } else if (c == '{' || c == '[') {
                    ++depth;
                } else if ((c == '}' || c == ']') && --depth == 0) {
                    end = i + bit + 1;
                    return true;
                }
            }
            i += chunk;
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
            if (c == '\xEF') { // a UTF-8 byte order mark? Its 3 bytes may span two read blocks.
                while (end_ - pos_ < 3 && fill()) {
                }
                if (end_ - pos_ >= 3 && buf_[pos_ + 1] == '\xBB' && buf_[pos_ + 2] == '\xBF') {
                    pos_ += 3;
                    break;
                }
            }
            if (c == '{')
                state_ = State::Key;
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
            if (c == ',')
                state_ = State::Key;
            else if (c == '}')
                state_ = State::Done;
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
            if (c == ',')
                state_ = State::Events;
            else if (c == ']')
                state_ = State::AfterMember;
            else {
                stop("an event is followed by neither ',' nor ']'");
                return Item::End;
            }
            ++pos_;
            break;
        case State::Done:
            return Item::End;
        }
    }
}

} // namespace ls
