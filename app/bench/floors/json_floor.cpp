#include "app/bench/floors/json_floor.h"

#include <cstring>
#include <filesystem>
#include <memory>
#include <simdjson.h>
#include <stdexcept>
#include <zlib.h>

namespace ls {

namespace od = simdjson::ondemand;

namespace {

struct Text {
    std::unique_ptr<char[]>
        data; // not a vector: no zero fill, no copy while it grows for a plain file
    size_t size = 0, capacity = 0;
};

// The whole decompressed text with simdjson's padding; a plain file is read into a buffer of its
// size at once, a gzip one grows by doubling.
Text readWhole(const std::string& path) {
    gzFile gz = gzopen(path.c_str(), "rb");
    if (!gz) throw std::runtime_error("cannot open " + path);
    gzbuffer(gz, 1u << 20);
    Text t;
    std::error_code ec;
    const auto fileSize = std::filesystem::file_size(path, ec);
    t.capacity =
        (ec ? size_t(1) << 26 : static_cast<size_t>(fileSize)) + simdjson::SIMDJSON_PADDING;
    t.data.reset(new char[t.capacity]);
    for (;;) {
        if (t.capacity - t.size <= simdjson::SIMDJSON_PADDING) {
            std::unique_ptr<char[]> bigger(new char[t.capacity * 2]);
            std::memcpy(bigger.get(), t.data.get(), t.size);
            t.data = std::move(bigger);
            t.capacity *= 2;
        }
        const size_t room = t.capacity - simdjson::SIMDJSON_PADDING - t.size;
        const int got = gzread(gz, t.data.get() + t.size,
                               static_cast<unsigned>(std::min<size_t>(room, 1u << 30)));
        if (got <= 0) break;
        t.size += static_cast<size_t>(got);
    }
    gzclose(gz);
    std::memset(t.data.get() + t.size, ' ', simdjson::SIMDJSON_PADDING);
    return t;
}

uint64_t visitScalar(od::value v) {
    const std::string_view raw = v.raw_json_token();
    return raw.size() + (raw.empty() ? 0 : static_cast<unsigned char>(raw[0]));
}

uint64_t visitArgs(od::object args) {
    uint64_t sum = 0;
    for (auto field : args) {
        od::raw_json_string key = field.key();
        od::value v = field.value();
        if (key == "Input Dims") {
            od::array a;
            std::string_view raw;
            if (v.get_array().get(a) == simdjson::SUCCESS &&
                a.raw_json().get(raw) == simdjson::SUCCESS)
                sum += raw.size();
        } else if (key == "grid" || key == "block") {
            od::array a;
            if (v.get_array().get(a) == simdjson::SUCCESS)
                for (auto e : a) {
                    int64_t n = 0;
                    if (e.get_int64().get(n) == simdjson::SUCCESS) sum += static_cast<uint64_t>(n);
                }
        } else if (key == "correlation" || key == "External id" || key == "Sequence number" ||
                   key == "device" || key == "context" || key == "stream" ||
                   key == "registers per thread" || key == "shared memory" || key == "bytes") {
            sum += visitScalar(v);
        } else if (key == "name") {
            std::string_view s;
            if (v.get_string().get(s) == simdjson::SUCCESS) sum += s.size();
        }
    }
    return sum;
}

} // namespace

FloorResult scanJsonFloor(const std::string& path) {
    const Text text = readWhole(path);
    od::parser parser;
    od::document doc;
    if (parser.iterate(text.data.get(), text.size, text.capacity).get(doc) != simdjson::SUCCESS)
        throw std::runtime_error("not JSON");
    od::object top;
    if (doc.get_object().get(top) != simdjson::SUCCESS)
        throw std::runtime_error("not a JSON object");
    FloorResult r;
    for (auto member : top) {
        od::raw_json_string key = member.key();
        if (!(key == "traceEvents")) continue;
        od::array events;
        if (member.value().get_array().get(events) != simdjson::SUCCESS)
            throw std::runtime_error("traceEvents is not an array");
        for (auto element : events) {
            od::object e;
            if (element.get_object().get(e) != simdjson::SUCCESS) continue;
            ++r.rows;
            for (auto field : e) {
                od::raw_json_string k = field.key();
                od::value v = field.value();
                if (k == "ph" || k == "cat" || k == "name") {
                    std::string_view s;
                    if (v.get_string().get(s) == simdjson::SUCCESS) r.checksum += s.size();
                } else if (k == "pid" || k == "tid" || k == "ts" || k == "dur" || k == "id") {
                    r.checksum += visitScalar(v);
                } else if (k == "args") {
                    od::object args;
                    if (v.get_object().get(args) == simdjson::SUCCESS)
                        r.checksum += visitArgs(args);
                }
            }
        }
    }
    return r;
}

} // namespace ls
