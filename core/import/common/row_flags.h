#pragma once
// One bit a row: whether the reader kept each row of a table (8.1M NVTX rows take 1 MB, not 8,
// for the whole of the read). Parallel writers each own whole 64-row words (the nsys reader's
// chunks start at multiples of 2^18 rows), so a set needs no atomic operation.
#include <cstddef>
#include <cstdint>
#include <vector>

namespace ls {

class RowFlags {
  public:
    RowFlags() = default;
    explicit RowFlags(size_t n, bool on = false) { assign(n, on); }
    void assign(size_t n, bool on) {
        n_ = n;
        words_.assign((n + 63) / 64, on ? ~uint64_t(0) : 0);
        if (on && n % 64) words_.back() = (uint64_t(1) << (n % 64)) - 1;
    }
    size_t size() const { return n_; }
    bool operator[](size_t i) const { return (words_[i / 64] >> (i % 64)) & 1; }
    void set(size_t i, bool on) {
        const uint64_t bit = uint64_t(1) << (i % 64);
        words_[i / 64] = on ? words_[i / 64] | bit : words_[i / 64] & ~bit;
    }
    // Whether every row is set.
    bool all() const {
        for (size_t w = 0; w + 1 < words_.size(); ++w)
            if (~words_[w]) return false;
        if (words_.empty()) return true;
        const uint64_t last = n_ % 64 ? (uint64_t(1) << (n_ % 64)) - 1 : ~uint64_t(0);
        return (words_.back() & last) == last;
    }
    void clear() {
        std::vector<uint64_t>().swap(words_);
        n_ = 0;
    }

  private:
    std::vector<uint64_t> words_;
    size_t n_ = 0;
};

} // namespace ls
