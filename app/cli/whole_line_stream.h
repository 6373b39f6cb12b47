// An ostream that passes its target whole lines, each in one write. Under mpirun the launcher
// merges every process's stderr into one and forwards whatever each write() gave it, so the
// pieces that `<<` writes one by one to the unbuffered std::cerr can land inside another
// process's line; a line handed over whole cannot be split that way.
#pragma once

#include <ostream>
#include <streambuf>
#include <string>

namespace ls::cli {

class WholeLineBuffer : public std::streambuf {
  public:
    explicit WholeLineBuffer(std::ostream& target) : target_(target) {}
    ~WholeLineBuffer() override { sync(); }

  protected:
    int_type overflow(int_type c) override {
        if (traits_type::eq_int_type(c, traits_type::eof())) return traits_type::not_eof(c);
        pending_.push_back(traits_type::to_char_type(c));
        if (c == '\n') passCompleteLines();
        return c;
    }
    std::streamsize xsputn(const char* s, std::streamsize n) override {
        pending_.append(s, static_cast<size_t>(n));
        passCompleteLines();
        return n;
    }
    // An explicit flush passes a partial line too: the caller asked for it to be seen now.
    int sync() override {
        if (!pending_.empty()) target_.write(pending_.data(), std::streamsize(pending_.size()));
        pending_.clear();
        target_.flush();
        return target_ ? 0 : -1;
    }

  private:
    void passCompleteLines() {
        const size_t end = pending_.rfind('\n');
        if (end == std::string::npos) return;
        target_.write(pending_.data(), std::streamsize(end + 1));
        pending_.erase(0, end + 1);
    }

    std::ostream& target_;
    std::string pending_;
};

// The buffer is a base listed before std::ostream, so that it exists when the stream takes it.
struct WholeLineBufferHolder {
    explicit WholeLineBufferHolder(std::ostream& target) : buffer(target) {}
    WholeLineBuffer buffer;
};

class WholeLineStream : private WholeLineBufferHolder, public std::ostream {
  public:
    explicit WholeLineStream(std::ostream& target)
        : WholeLineBufferHolder(target), std::ostream(&buffer) {}
    ~WholeLineStream() override { buffer.pubsync(); }
};

} // namespace ls::cli
