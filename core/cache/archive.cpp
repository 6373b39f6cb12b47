#include "core/cache/archive.h"

#include <algorithm>
#include <atomic>
#include <filesystem>
#include <memory>
#include <thread>

namespace ls::archive {

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

// Maps the big columns and checks their checksums, on every core: the checksums read
// every page once, which is most of a reopen's time.
void Reader::finish() {
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
            for (unsigned t = 1; t < threads && t < deferred_.size(); ++t)
                helpers.emplace_back(work);
        } catch (const std::system_error&) { // fewer threads, then
        }
        work();
    }
    deferred_.clear();
    if (!good) fail();
}
namespace {

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

} // namespace

std::string write(const std::string& file, const Format& format, const std::string& identity,
                  const std::function<void(Writer&)>& body) {
    File f(std::fopen(file.c_str(), "wb"));
    if (!f) return "cannot write " + file + ": " + std::strerror(errno);
    Header h{};
    std::memcpy(h.magic, format.magic, sizeof h.magic);
    h.version = format.version;
    h.identityBytes = static_cast<uint32_t>(identity.size());
    bool ok = std::fwrite(&h, sizeof h, 1, f.get()) == 1 &&
              std::fwrite(identity.data(), 1, identity.size(), f.get()) == identity.size();
    Writer w(f.get(), sizeof h + identity.size());
    body(w);
    const Trailer trailer{w.bytes(), w.checksum()};
    ok = ok && w.ok() && std::fwrite(&trailer, sizeof trailer, 1, f.get()) == 1;
    ok = std::fflush(f.get()) == 0 && ok;
    if (!ok) return "cannot write " + file + ": " + std::strerror(errno);
    return {};
}

std::string read(const std::string& file, const Format& format, const std::string& identity,
                 uint32_t wanted, const std::function<void(Reader&)>& body) {
    std::error_code ec;
    if (!std::filesystem::exists(file, ec)) return "no cache file";
    CacheFileMapping mapped;
    if (!mapped.open(file).empty()) return "cannot read the cache file";
    const uint64_t size = mapped.size();
    Header h{};
    if (size < sizeof h + sizeof(Trailer)) return "not a Layerscope cache file";
    std::memcpy(&h, mapped.data(), sizeof h);
    if (std::memcmp(h.magic, format.magic, sizeof h.magic) != 0)
        return "not a Layerscope cache file";
    if (h.version != format.version) return "made by another version of the cache format";
    if (h.identityBytes != identity.size() || size < sizeof h + h.identityBytes + sizeof(Trailer))
        return "made from another file";
    if (std::memcmp(mapped.data() + sizeof h, identity.data(), identity.size()) != 0)
        return "made from another file";
    const uint64_t payload = size - sizeof h - h.identityBytes - sizeof(Trailer);
    Trailer trailer{};
    std::memcpy(&trailer, mapped.data() + size - sizeof trailer, sizeof trailer);
    if (trailer.payloadBytes != payload) return "truncated";
    Reader r(mapped, sizeof h + h.identityBytes, payload, wanted);
    body(r);
    r.finish();
    if (!r.ok() || r.left() != 0)
        return "damaged (sections do not add up or a column's checksum differs)";
    if (r.checksum() != trailer.checksum) return "damaged (checksum mismatch)";
    return {};
}

} // namespace ls::archive
