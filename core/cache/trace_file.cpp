#include "core/cache/trace_file.h"

#include "core/cache/mapped_file.h"
#include "core/cache/trace_fields.h"
#include "core/model/column.h"

#include <algorithm>
#include <atomic>
#include <cstdio>
#include <cstring>
#include <filesystem>
#include <functional>
#include <thread>
#include <type_traits>

namespace ls {
namespace {

constexpr char kMagic[8] = {'L', 'S', 'T', 'R', 'A', 'C', 'E', '\0'};

// A checksum over each section (fast: four independent 64-bit lanes), folded in order.
uint64_t hashBytes(const void* data, size_t n, uint64_t seed) {
    constexpr uint64_t kMul = 0x9E3779B97F4A7C15ull;
    const auto* p = static_cast<const unsigned char*>(data);
    uint64_t lane[4] = {seed, seed ^ 0x1234567, seed + kMul, seed - kMul};
    size_t i = 0;
    for (; i + 32 <= n; i += 32)
        for (int k = 0; k < 4; ++k) {
            uint64_t w;
            std::memcpy(&w, p + i + 8 * k, 8);
            lane[k] = (lane[k] ^ w) * kMul;
            lane[k] ^= lane[k] >> 29;
        }
    uint64_t h = n;
    for (uint64_t l : lane) h = (h ^ l) * kMul;
    for (; i < n; ++i) h = (h ^ p[i]) * 0x100000001B3ull;
    return h ^ (h >> 31);
}

// Columns of kMappedBytes or more start on a 64 KiB boundary of the file, so a reader can map
// them as they lie (core/model/column.h) where pages are 4 KiB and on 64 KiB-page hosts (aarch64
// Grace nodes) alike; the zero bytes before one are in no checksum.
constexpr uint64_t kColumnAlign = uint64_t(64) << 10;
uint64_t paddingBefore(uint64_t offset, size_t bytes) {
    return bytes >= column_memory::kMappedBytes ? (kColumnAlign - offset % kColumnAlign) % kColumnAlign : 0;
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
    Reader(const MappedFile& file, uint64_t offset, uint64_t payload, uint32_t wanted)
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
        if (adoptable(v, bytes)) { // mapped and checked with the other big columns in finish()
            deferred_.push_back([this, &v, at, n, stored] { return adopt(v, at, n, stored); });
            return;
        }
        v.resize(n);
        if (bytes) std::memcpy(v.data(), file_.data() + at, bytes);
        if (stored != hashBytes(v.data(), bytes, 0)) fail();
    }
    // Maps the big columns and checks their checksums, on every core: the checksums read
    // every page once, which is most of a reopen's time.
    void finish() {
        std::atomic<size_t> next{0};
        std::atomic<bool> good{true};
        auto work = [&] {
            for (size_t i; (i = next++) < deferred_.size();) try {
                    if (!deferred_[i]()) good = false;
                } catch (const std::exception&) { // no memory for a copy: the file is not used
                    good = false;
                }
        };
        {
            std::vector<std::jthread> helpers;
            const unsigned threads = std::clamp(std::thread::hardware_concurrency(), 1u, 4u);
            try {
                for (unsigned t = 1; t < threads && t < deferred_.size(); ++t) helpers.emplace_back(work);
            } catch (const std::system_error&) { // fewer threads, then
            }
            work();
        }
        deferred_.clear();
        if (!good) fail();
    }
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
    template <typename T, typename A> static bool adoptable(const std::vector<T, A>&, size_t bytes) {
        return std::is_same_v<A, ColumnAllocator<T>> && bytes >= column_memory::kMappedBytes;
    }
    // The column takes a private mapping of its bytes (a copy where the file cannot be mapped).
    template <typename T, typename A> bool adopt(std::vector<T, A>& v, uint64_t at, size_t n, uint64_t stored) const {
        const size_t bytes = n * sizeof(T);
        std::vector<T, A>().swap(v); // no block of its own (a CSR's offsets start with one)
        if (void* pages = file_.mapPrivate(at, bytes)) {
            // However assign ends, the mapping is the column's or unmapped, and nothing stays pending.
            struct Pending {
                void* pages;
                size_t bytes;
                ~Pending() {
                    if (column_memory::takeAdopted(bytes)) column_memory::deallocate(pages, bytes);
                }
            } pending{pages, bytes};
            column_memory::adoptNext(pages, bytes);
            const T* first = static_cast<const T*>(pages);
            v.assign(first, first + n); // takes the pages as they are (ColumnAllocator::construct)
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
    const MappedFile& file_;
    uint64_t pos_, end_, sum_ = 0;
    bool ok_ = true, skipping_ = false;
    uint32_t wanted_;
    std::vector<std::function<bool()>> deferred_;
};

struct Header {
    char magic[8];
    uint32_t version;
    uint32_t identityBytes;
};

struct Trailer {
    uint64_t payloadBytes, checksum;
};

struct FileCloser {
    void operator()(std::FILE* f) const { std::fclose(f); }
};
using File = std::unique_ptr<std::FILE, FileCloser>;

// Every table's columns have one length, and every id into the string pool is in it: what the
// views rely on, checked once so a cache that passes the checksum by accident cannot crash them.
bool consistent(Trace& t) {
    bool ok = true;
    auto same = [&](auto&& tuple) {
        std::apply([&](auto& first, auto&... rest) { ((ok &= rest.empty() || rest.size() == first.size()), ...); }, tuple);
    };
    same(t.kernels.tie());
    same(t.memcpys.tie());
    same(t.memsets.tie());
    same(t.apiCalls.tie());
    same(t.ranges.tie());
    ok &= t.rangeSourceRows.consistent(t.ranges.size());
    ok &= t.threadRangeBegin.empty() || (t.threadRangeBegin.front() == 0 && t.threadRangeBegin.back() == t.ranges.size() &&
                                         std::is_sorted(t.threadRangeBegin.begin(), t.threadRangeBegin.end()));
    const size_t strings = t.strings.size();
    for (const auto* names : {&t.kernels.name, &t.kernels.shortName, &t.apiCalls.name, &t.ranges.name, &t.ranges.sizes})
        for (StringId id : *names) ok &= id.value < strings;
    return ok;
}

} // namespace

std::string writeTraceFile(const Trace& trace, const std::string& identity, const std::string& file) {
    File f(std::fopen(file.c_str(), "wb"));
    if (!f) return "cannot write " + file + ": " + std::strerror(errno);
    Header h{};
    std::memcpy(h.magic, kMagic, sizeof kMagic);
    h.version = kTraceCacheVersion;
    h.identityBytes = static_cast<uint32_t>(identity.size());
    bool ok = std::fwrite(&h, sizeof h, 1, f.get()) == 1 && std::fwrite(identity.data(), 1, identity.size(), f.get()) == identity.size();
    Writer w(f.get(), sizeof h + identity.size());
    cache_fields::visit(w, const_cast<Trace&>(trace)); // the writer only reads what it visits
    const Trailer trailer{w.bytes(), w.checksum()};
    ok = ok && w.ok() && std::fwrite(&trailer, sizeof trailer, 1, f.get()) == 1;
    ok = std::fflush(f.get()) == 0 && ok;
    if (!ok) return "cannot write " + file + ": " + std::strerror(errno);
    return {};
}

// A trace read in part, as a partial import leaves it: parts left out are empty and nothing
// points into them.
void markParts(Trace& t, uint32_t wanted) {
    t.parts &= heldLoadParts(wanted);
    if (!(wanted & kLoadApiCalls))
        for (auto* launch : {&t.kernels.launch, &t.memcpys.launch, &t.memsets.launch}) std::fill(launch->begin(), launch->end(), ApiCallId());
}

TraceFileRead readTraceFile(const std::string& file, const std::string& identity, uint32_t parts) {
    std::error_code ec;
    if (!std::filesystem::exists(file, ec)) return {nullptr, "no cache file"};
    MappedFile mapped;
    if (!mapped.open(file).empty()) return {nullptr, "cannot read the cache file"};
    const uint64_t size = mapped.size();
    Header h{};
    if (size < sizeof h + sizeof(Trailer)) return {nullptr, "not a Layerscope cache file"};
    std::memcpy(&h, mapped.data(), sizeof h);
    if (std::memcmp(h.magic, kMagic, sizeof kMagic) != 0) return {nullptr, "not a Layerscope cache file"};
    if (h.version != kTraceCacheVersion) return {nullptr, "made by another version of the cache format"};
    if (h.identityBytes != identity.size() || size < sizeof h + h.identityBytes + sizeof(Trailer)) return {nullptr, "made from another file"};
    if (std::memcmp(mapped.data() + sizeof h, identity.data(), identity.size()) != 0) return {nullptr, "made from another file"};
    const uint64_t payload = size - sizeof h - h.identityBytes - sizeof(Trailer);
    Trailer trailer{};
    std::memcpy(&trailer, mapped.data() + size - sizeof trailer, sizeof trailer);
    if (trailer.payloadBytes != payload) return {nullptr, "truncated"};
    auto trace = std::make_shared<Trace>();
    const uint32_t wanted = closeLoadParts(parts);
    Reader r(mapped, sizeof h + h.identityBytes, payload, wanted);
    cache_fields::visit(r, *trace);
    r.finish();
    if (!r.ok() || r.left() != 0) return {nullptr, "damaged (sections do not add up or a column's checksum differs)"};
    if (r.checksum() != trailer.checksum) return {nullptr, "damaged (checksum mismatch)"};
    if (!consistent(*trace)) return {nullptr, "damaged (inconsistent columns)"};
    markParts(*trace, wanted);
    return {std::move(trace), {}};
}

} // namespace ls
