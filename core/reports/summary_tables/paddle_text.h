#pragma once
// Text laid out like PaddlePaddle's console summary tables (profiler_statistic.py): fixed-width
// columns, a title centred in dashes, dashed separators. Shared by the time tables and the
// memory table.
#include <string>
#include <string_view>
#include <utility>
#include <vector>

namespace ls {

// Paddle's layout: each column left-aligned in its width and followed by two spaces; a title
// centred in dashes over the whole line.
class PaddleText {
  public:
    explicit PaddleText(std::vector<size_t> widths) : widths_(std::move(widths)) {
        for (size_t w : widths_) length_ += w + 2;
        length_ -= 2;
    }
    void title(std::string_view text) {
        const size_t left = length_ > text.size() ? length_ - text.size() : 0;
        out_ += std::string(left / 2, '-') + std::string(text) + std::string(left - left / 2, '-') +
                "\n";
    }
    void line(std::string_view text) { out_ += std::string(text) + "\n"; }
    void separator() {
        for (size_t w : widths_) out_ += std::string(w, '-') + "  ";
        out_ += "\n";
    }
    void row(const std::vector<std::string>& cells) {
        for (size_t i = 0; i < widths_.size(); ++i) {
            const std::string c = i < cells.size() ? cells[i] : "";
            out_ += c;
            if (c.size() < widths_[i]) out_ += std::string(widths_[i] - c.size(), ' ');
            out_ += "  ";
        }
        out_ += "\n";
    }
    void rule() { out_ += std::string(length_, '-') + "\n"; }
    std::string text() && { return std::move(out_); }

  private:
    std::vector<size_t> widths_;
    size_t length_ = 0;
    std::string out_;
};

} // namespace ls
