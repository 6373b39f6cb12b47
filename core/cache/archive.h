#pragma once
// The container of the cache files (core/cache/trace_file.h, core/prepared/view_file.h): a
// header with a magic, the format version and the identity of what the file was made from, then
// a payload of values and columns that a Writer and a Reader visit in the same order, then the
// payload's length and checksum. A file that is truncated, of another version, made from
// another file or damaged is rejected with a reason, never trusted. Big columns start on 64 KiB
// boundaries so that a reader can map them as they lie (core/model/column.h).
#include "core/cache/cache_file_mapping.h"
#include "core/model/column.h"
#include "core/model/load_report.h"
#include "core/model/string_pool.h"

#include <cstdint>
#include <cstdio>
#include <cstring>
#include <functional>
#include <string>
#include <type_traits>
#include <vector>

namespace ls::archive {

// A checksum over each section (fast: four independent 64-bit lanes), folded in order.
uint64_t hashBytes(const void* data, size_t n, uint64_t seed);

// Columns of kMappedBytes or more start on a 64 KiB boundary of the file, so a reader can map
// them as they lie (core/model/column.h) where pages are 4 KiB and on 64 KiB-page hosts (aarch64
// Grace nodes) alike; the zero bytes before one are in no checksum.
inline constexpr uint64_t kColumnAlign = uint64_t(64) << 10;
inline uint64_t paddingBefore(uint64_t offset, size_t bytes) {
    return bytes >= column_memory::kMappedBytes
               ? (kColumnAlign - offset % kColumnAlign) % kColumnAlign
               : 0;
}

class Writer {
  public:
    // `offset`: where the payload starts in the file.
    Writer(std::FILE* f, uint64_t offset) : f_(f), offset_(offset) {}
    bool ok() const { return ok_; }
    uint64_t bytes() const { return bytes_; }
    uint64_t checksum() const { return sum_; }

    void raw(const void* p, size_t n) {
        write(p, n);
        sum_ = hashBytes(p, n, sum_);
    }
    template <typename T> void pod(const T& v) {
        static_assert(std::is_trivially_copyable_v<T>);
        raw(&v, sizeof v);
    }
    void count(size_t n) { pod(static_cast<uint64_t>(n)); }
    // A column: its length, its bytes, and their own checksum, which is what the file's
    // checksum folds in (so a reader may skip the bytes of a column it does not want).
    template <typename T, typename A> void vec(const std::vector<T, A>& v) {
        static_assert(std::is_trivially_copyable_v<T>);
        count(v.size());
        const size_t n = v.size() * sizeof(T);
        static constexpr char kZeros[kColumnAlign] = {};
        write(kZeros, paddingBefore(offset_ + bytes_, n));
        write(v.data(), n);
        pod(hashBytes(v.data(), n, 0));
    }
    template <typename F> void part(uint32_t, F&& f) { f(); }
    void text(const std::string& s) {
        count(s.size());
        raw(s.data(), s.size());
    }
    template <typename T, typename F> void list(std::vector<T>& v, F&& each) {
        count(v.size());
        for (auto& x : v) each(x);
    }
    void pool(const StringPool& p) {
        text(p.arena());
        vec(p.offsets());
    }
    void report(const LoadReport& r) {
        for (size_t a = 0; a < static_cast<size_t>(Anomaly::Count_); ++a) {
            pod(r.count(static_cast<Anomaly>(a)));
            const auto& details = r.details(static_cast<Anomaly>(a));
            count(details.size());
            for (const auto& d : details) text(d);
        }
    }

  private:
    void write(const void* p, size_t n) {
        if (n && std::fwrite(p, 1, n, f_) != n) ok_ = false;
        bytes_ += n;
    }
    std::FILE* f_;
    uint64_t offset_;
    bool ok_ = true;
    uint64_t bytes_ = 0, sum_ = 0;
};

// Reads the payload from the mapped file. A big column adopts a private mapping of its pages
// (nothing is copied; a later write to the model copies that page only); a small one is copied.
class Reader {
  public:
    // The payload is [offset, offset + payload) of file. Columns of parts beyond `wanted` are
    // skipped (left empty).
    Reader(const CacheFileMapping& file, uint64_t offset, uint64_t payload, uint32_t wanted)
        : file_(file), pos_(offset), end_(offset + payload), wanted_(wanted) {}
    bool ok() const { return ok_; }
    uint64_t checksum() const { return sum_; }
    uint64_t left() const { return end_ - pos_; }

    void raw(void* p, size_t n) {
        if (!ok_ || n > left()) return fail();
        if (n) std::memcpy(p, file_.data() + pos_, n);
        pos_ += n;
        sum_ = hashBytes(p, n, sum_);
    }
    template <typename T> void pod(T& v) {
        T read{};
        raw(&read, sizeof read);
        if (!skipping_) v = read; // a skipped part leaves its fields as a load without it would
    }
    // A count of items of `size` bytes each, checked against what the file has left.
    size_t count(size_t size) {
        uint64_t n = 0;
        raw(&n, sizeof n); // read even in a skipped part: it says how far to skip
        if (!ok_ || (size && n > left() / size)) {
            fail();
            return 0;
        }
        return static_cast<size_t>(n);
    }
    template <typename T, typename A> void vec(std::vector<T, A>& v) {
        static_assert(std::is_trivially_copyable_v<T>);
        const size_t n = count(sizeof(T));
        const size_t bytes = n * sizeof(T);
        v.clear();
        const uint64_t pad = paddingBefore(pos_, bytes);
        if (!ok_ || pad + bytes > left()) return fail();
        pos_ += pad;
        const uint64_t at = pos_;
        pos_ += bytes;
        uint64_t stored = 0;
        raw(&stored, sizeof stored);
        if (skipping_ || !ok_) return;
        if constexpr (std::is_same_v<A, ColumnAllocator<T>>)
            if (bytes >= column_memory::kMappedBytes) { // mapped and checked with the other big
                                                        // columns in finish()
                deferred_.push_back([this, &v, at, n, stored] { return adopt(v, at, n, stored); });
                return;
            }
        v.resize(n);
        if (bytes) std::memcpy(v.data(), file_.data() + at, bytes);
        if (stored != hashBytes(v.data(), bytes, 0)) fail();
    }
    // Maps the big columns and checks their checksums, on every core: the checksums read
    // every page once, which is most of a reopen's time.
    void finish();
    // The columns of a part the reader does not want are skipped.
    template <typename F> void part(uint32_t needs, F&& f) {
        skipping_ = (needs & wanted_) != needs;
        f();
        skipping_ = false;
    }
    void text(std::string& s) {
        const size_t n = count(1);
        s.resize(n);
        raw(s.data(), n);
    }
    template <typename T, typename F> void list(std::vector<T>& v, F&& each) {
        const size_t n = count(1); // every item takes at least a byte
        v.clear();
        v.resize(n);
        for (auto& x : v)
            if (ok_) each(x);
    }
    void pool(StringPool& p) {
        std::string arena;
        std::vector<uint32_t> offsets;
        text(arena);
        vec(offsets);
        if (ok_ && !p.assign(std::move(arena), std::move(offsets))) fail();
    }
    void report(LoadReport& r) {
        for (size_t a = 0; a < static_cast<size_t>(Anomaly::Count_) && ok_; ++a) {
            uint64_t n = 0;
            pod(n);
            r.add(static_cast<Anomaly>(a), n);
            const size_t details = count(8);
            for (size_t d = 0; d < details && ok_; ++d) {
                std::string s;
                text(s);
                r.add(static_cast<Anomaly>(a), 0, s);
            }
        }
    }

  private:
    // Only a model column big enough to be a mapping of its own takes the file's pages.
    // The column takes a private mapping of its bytes (a copy where the file cannot be mapped).
    template <typename T> bool adopt(Column<T>& v, uint64_t at, size_t n, uint64_t stored) const {
        const size_t bytes = n * sizeof(T);
        Column<T>().swap(v); // no block of its own (a CSR's offsets start with one)
        if (void* pages = file_.mapPrivate(at, bytes)) {
            // However assign ends, the mapping is the column's or unmapped, and nothing stays
            // pending.
            struct Pending {
                void* pages;
                size_t bytes;
                ~Pending() {
                    if (column_memory::takeAdopted(bytes)) column_memory::deallocate(pages, bytes);
                }
            } pending{pages, bytes};
            adoptColumn(v, pages, n);
        } else {
            v.resize(n);
            std::memcpy(v.data(), file_.data() + at, bytes);
        }
        return stored == hashBytes(v.data(), bytes, 0);
    }
    void fail() {
        ok_ = false;
        pos_ = end_;
    }
    const CacheFileMapping& file_;
    uint64_t pos_, end_, sum_ = 0;
    bool ok_ = true, skipping_ = false;
    uint32_t wanted_;
    std::vector<std::function<bool()>> deferred_;
};

// What tells one kind of cache file from another.
struct Format {
    char magic[8];
    uint32_t version;
};

// Writes file (replaced): the header, what `body` writes, the trailer. An error message, empty
// on success.
std::string write(const std::string& file, const Format& format, const std::string& identity,
                  const std::function<void(Writer&)>& body);
// Reads a file `write` wrote in `format` for the same identity through `body`, skipping the
// parts beyond `wanted`. Empty on success, else why the file was rejected.
std::string read(const std::string& file, const Format& format, const std::string& identity,
                 uint32_t wanted, const std::function<void(Reader&)>& body);

} // namespace ls::archive
