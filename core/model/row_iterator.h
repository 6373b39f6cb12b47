#pragma once
// A random-access iterator over a column read by value (c[i]), for the packed columns whose rows
// are decoded on read (core/model/time_column.h, end_column.h, narrow_columns.h): range-for, sort
// checks and binary searches take them as they take a plain column.
#include <cstddef>
#include <iterator>

namespace ls {

template <typename Col, typename T> class RowIterator {
  public:
    using iterator_category = std::random_access_iterator_tag;
    using value_type = T;
    using difference_type = std::ptrdiff_t;
    using pointer = void;
    using reference = T;
    RowIterator() = default;
    RowIterator(const Col* c, size_t i) : c_(c), i_(i) {}
    T operator*() const { return (*c_)[i_]; }
    T operator[](difference_type n) const { return (*c_)[i_ + static_cast<size_t>(n)]; }
    RowIterator& operator++() { return ++i_, *this; }
    RowIterator& operator--() { return --i_, *this; }
    RowIterator operator++(int) { return {c_, i_++}; }
    RowIterator operator--(int) { return {c_, i_--}; }
    RowIterator& operator+=(difference_type n) {
        i_ += static_cast<size_t>(n);
        return *this;
    }
    RowIterator& operator-=(difference_type n) {
        i_ -= static_cast<size_t>(n);
        return *this;
    }
    friend RowIterator operator+(RowIterator a, difference_type n) { return a += n; }
    friend RowIterator operator+(difference_type n, RowIterator a) { return a += n; }
    friend RowIterator operator-(RowIterator a, difference_type n) { return a -= n; }
    friend difference_type operator-(const RowIterator& a, const RowIterator& b) {
        return static_cast<difference_type>(a.i_) - static_cast<difference_type>(b.i_);
    }
    bool operator==(const RowIterator& o) const { return i_ == o.i_; }
    auto operator<=>(const RowIterator& o) const { return i_ <=> o.i_; }

  private:
    const Col* c_ = nullptr;
    size_t i_ = 0;
};

} // namespace ls
