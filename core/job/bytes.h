#pragma once
// Little-endian byte encoding for the job file (docs/job-file.md): fixed-width integers, doubles
// by their bits, strings and lists with a length first. The reader checks every length against
// what is left, so a damaged or hostile input gives an error, never a read past the end or a
// huge allocation.
#include <bit>
#include <cstdint>
#include <cstring>
#include <string>
#include <string_view>
#include <type_traits>

namespace ls::job {

static_assert(std::endian::native == std::endian::little, "the job file is little-endian");

class ByteWriter {
  public:
    template <typename T> void pod(T v) {
        static_assert(std::is_arithmetic_v<T>);
        out_.append(reinterpret_cast<const char*>(&v), sizeof v);
    }
    void u8(uint8_t v) { pod(v); }
    void u32(uint32_t v) { pod(v); }
    void u64(uint64_t v) { pod(v); }
    void i64(int64_t v) { pod(v); }
    void f64(double v) { pod(v); }
    void text(std::string_view s) {
        u32(static_cast<uint32_t>(s.size()));
        out_.append(s);
    }
    void bytes(std::string_view s) {
        u64(s.size());
        out_.append(s);
    }
    // LEB128: 7 bits a byte, small numbers in one byte; signed ones zigzag first.
    void uvar(uint64_t v) {
        while (v >= 0x80) {
            out_.push_back(static_cast<char>(v | 0x80));
            v >>= 7;
        }
        out_.push_back(static_cast<char>(v));
    }
    void svar(int64_t v) { uvar((static_cast<uint64_t>(v) << 1) ^ static_cast<uint64_t>(v >> 63)); }
    std::string& str() { return out_; }

  private:
    std::string out_;
};

class ByteReader {
  public:
    explicit ByteReader(std::string_view in) : in_(in) {}
    bool ok() const { return ok_; }
    bool atEnd() const { return at_ == in_.size(); }
    size_t left() const { return in_.size() - at_; }
    void fail() { ok_ = false; }

    template <typename T> T pod() {
        static_assert(std::is_arithmetic_v<T>);
        T v{};
        if (!ok_ || left() < sizeof v) {
            ok_ = false;
            return v;
        }
        std::memcpy(&v, in_.data() + at_, sizeof v);
        at_ += sizeof v;
        return v;
    }
    uint8_t u8() { return pod<uint8_t>(); }
    uint32_t u32() { return pod<uint32_t>(); }
    uint64_t u64() { return pod<uint64_t>(); }
    int64_t i64() { return pod<int64_t>(); }
    int32_t i32() { return pod<int32_t>(); }
    double f64() { return pod<double>(); }
    std::string_view take(uint64_t n) {
        if (!ok_ || n > left()) {
            ok_ = false;
            return {};
        }
        const std::string_view s = in_.substr(at_, n);
        at_ += n;
        return s;
    }
    std::string text() { return std::string(take(u32())); }
    uint64_t uvar() {
        uint64_t v = 0;
        for (int shift = 0; shift < 64; shift += 7) {
            const uint8_t b = u8();
            if (!ok_) return 0;
            if (shift == 63 && b > 1) break; // more than 64 bits
            v |= uint64_t(b & 0x7f) << shift;
            if (!(b & 0x80)) return v;
        }
        ok_ = false;
        return 0;
    }
    int64_t svar() {
        const uint64_t u = uvar();
        return static_cast<int64_t>(u >> 1) ^ -static_cast<int64_t>(u & 1);
    }
    std::string_view bytes() { return take(u64()); }
    // A list's length, checked against the bytes left (each element is at least `minBytes`).
    uint64_t count(size_t minBytes) {
        const uint64_t n = u64();
        if (ok_ && n > left() / (minBytes ? minBytes : 1)) ok_ = false;
        return ok_ ? n : 0;
    }

  private:
    std::string_view in_;
    size_t at_ = 0;
    bool ok_ = true;
};

} // namespace ls::job
