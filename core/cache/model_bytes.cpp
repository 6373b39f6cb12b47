#include "core/cache/model_bytes.h"

#include "core/cache/trace_fields.h"

namespace ls {
namespace {

// An archive for cache_fields::visit that adds up allocations instead of writing them.
class ByteCounter {
  public:
    uint64_t bytes = 0;
    template <typename T> void pod(const T& v) { bytes += sizeof v; }
    template <typename T, typename A> void vec(const std::vector<T, A>& v) {
        bytes += v.capacity() * sizeof(T);
    }
    template <typename F> void part(uint32_t, F&& f) { f(); }
    void text(const std::string& s) { bytes += sizeof s + (s.capacity() > 15 ? s.capacity() : 0); }
    template <typename T, typename F> void list(std::vector<T>& v, F&& each) {
        bytes += (v.capacity() - v.size()) * sizeof(T);
        for (auto& x : v) {
            const uint64_t before = bytes;
            each(x);
            // Each element's own fields were counted; its struct's padding and size come with it.
            if (bytes - before < sizeof(T)) bytes = before + sizeof(T);
        }
    }
    void pool(const StringPool& p) { bytes += p.bytes(); }
    void report(const LoadReport& r) {
        for (size_t a = 0; a < static_cast<size_t>(Anomaly::Count_); ++a)
            for (const auto& d : r.details(static_cast<Anomaly>(a))) text(d);
    }
};

} // namespace

uint64_t modelBytes(const Trace& t) {
    ByteCounter counter;
    // The visit takes a mutable trace because the reader fills one; the counter only reads.
    cache_fields::visit(counter,
                        const_cast<Trace&>(t)); // NOLINT(cppcoreguidelines-pro-type-const-cast)
    return counter.bytes + sizeof(Trace);
}

} // namespace ls
