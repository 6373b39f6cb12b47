#include "core/import/paddle/paddle_event.h"

#include "core/import/kineto/json_values.h"

#include <charconv>
#include <cmath>
#include <simdjson.h>

namespace ls {

namespace od = simdjson::ondemand;

struct PaddleEventParser::Impl {
    od::parser parser;
};

std::string_view stripPaddleDuration(std::string_view name) {
    // The logger appends "[%.3f ms]" (and since 2.4 "[%.3f us]" under a millisecond) to every
    // host, runtime and device event name.
    if (name.size() < 5 || name.back() != ']') return name;
    const size_t open = name.rfind('[');
    if (open == std::string_view::npos) return name;
    const std::string_view inside = name.substr(open + 1, name.size() - open - 2);
    const bool unit = inside.ends_with(" ms") || inside.ends_with(" us") ||
                      inside.ends_with(" ns") || inside.ends_with(" s");
    if (!unit || inside.empty() || !(inside[0] >= '0' && inside[0] <= '9')) return name;
    return name.substr(0, open);
}

bool paddleThreadId(std::string_view s, int64_t& out) {
    size_t end = 0;
    while (end < s.size() && end < 18 && s[end] >= '0' && s[end] <= '9') ++end;
    if (end == 0) return false;
    const auto [p, ec] = std::from_chars(s.data(), s.data() + end, out);
    return ec == std::errc();
}

namespace {

using json_values::readDim3;
using json_values::readInt;
using json_values::readTime;

bool readUnsigned(od::value v, uint64_t& out) {
    uint64_t u = 0;
    if (v.get_uint64().get(u) == simdjson::SUCCESS) {
        out = u;
        return true;
    }
    std::string_view s;
    if (v.get_string().get(s) == simdjson::SUCCESS) {
        const auto [end, ec] = std::from_chars(s.data(), s.data() + s.size(), u);
        if (ec == std::errc() && end == s.data() + s.size()) {
            out = u;
            return true;
        }
    }
    int64_t i = 0;
    if (!readInt(v, i) || i < 0) return false;
    out = static_cast<uint64_t>(i);
    return true;
}

bool readDouble(od::value v, double& out) {
    double d = 0;
    if (v.get_double().get(d) != simdjson::SUCCESS || !std::isfinite(d)) return false;
    out = d;
    return true;
}

// Host events write tid as "1234(Python)" or "1234(C++)", device events as the stream number.
bool readThread(od::value v, int64_t& out) {
    std::string_view s;
    if (v.get_string().get(s) == simdjson::SUCCESS) return paddleThreadId(s, out);
    return readInt(v, out);
}

// {"X": [[8, 768]], "Y": [[768, 3072]]} -> "[[8, 768], [768, 3072]]": each input's shapes in
// the dict's order (the logger writes a std::map, so by input name), one list of dims per tensor.
bool readShapes(od::value v, std::string& out) {
    od::object inputs;
    if (v.get_object().get(inputs) != simdjson::SUCCESS) return false;
    out = "[";
    bool firstTensor = true;
    for (auto field : inputs) {
        od::value shapes;
        od::array tensors;
        if (field.value().get(shapes) != simdjson::SUCCESS ||
            shapes.get_array().get(tensors) != simdjson::SUCCESS)
            return false;
        for (auto tensor : tensors) {
            od::array dims;
            if (tensor.get_array().get(dims) != simdjson::SUCCESS) return false;
            out += firstTensor ? "[" : ", [";
            firstTensor = false;
            bool firstDim = true;
            for (auto dim : dims) {
                int64_t n = 0;
                od::value dv;
                if (dim.get(dv) != simdjson::SUCCESS || !readInt(dv, n)) return false;
                if (!firstDim) out += ", ";
                firstDim = false;
                out += std::to_string(n);
            }
            out += "]";
        }
    }
    out += "]";
    return true;
}

// {"X": ["float32"], "Y": ["float16"]} -> "X: float32, Y: float16".
bool readDtypes(od::value v, std::string& out) {
    od::object inputs;
    if (v.get_object().get(inputs) != simdjson::SUCCESS) return false;
    out.clear();
    for (auto field : inputs) {
        std::string_view key;
        od::value types;
        od::array list;
        if (field.unescaped_key().get(key) != simdjson::SUCCESS ||
            field.value().get(types) != simdjson::SUCCESS ||
            types.get_array().get(list) != simdjson::SUCCESS)
            return false;
        std::string joined;
        for (auto t : list) {
            std::string_view s;
            if (t.get_string().get(s) != simdjson::SUCCESS) return false;
            joined += (joined.empty() ? "" : " ") + std::string(s);
        }
        out += (out.empty() ? "" : ", ") + std::string(key) + ": " + joined;
    }
    return true;
}

bool readArgs(od::value v, PaddleEvent& p) {
    KinetoEvent& e = p.base;
    od::object args;
    if (v.get_object().get(args) != simdjson::SUCCESS) return false;
    for (auto field : args) {
        od::raw_json_string key;
        od::value value;
        if (field.key().get(key) != simdjson::SUCCESS ||
            field.value().get(value) != simdjson::SUCCESS)
            return false;
        // The correlation id links a launch to its GPU work: a malformed one is damage. Other
        // fields of an unexpected form are left unknown and the event kept.
        bool ok = true;
        if (key == "correlation id" || key == "correlation")
            ok = readInt(value, e.correlation);
        else if (key == "device")
            readInt(value, e.device);
        else if (key == "context")
            readInt(value, e.context);
        else if (key == "stream")
            readInt(value, e.stream);
        else if (key == "registers per thread")
            readInt(value, e.registers);
        else if (key == "shared memory") // static + dynamic
            readInt(value, e.sharedMemory);
        else if (key == "bytes")
            readInt(value, e.bytes);
        else if (key == "grid")
            ok = readDim3(value, e.grid);
        else if (key == "block")
            ok = readDim3(value, e.block);
        else if (key == "blocks per SM")
            readDouble(value, p.blocksPerSm);
        else if (key == "warps per SM")
            readDouble(value, p.warpsPerSm);
        else if (key == "theoretical achieved occupancy %")
            readDouble(value, p.occupancyPercent);
        else if (key == "memory bandwidth (GB/s)")
            readDouble(value, p.bandwidthGBs);
        else if (key == "input_shapes") {
            if (!readShapes(value, p.sizes)) p.sizes.clear();
        } else if (key == "input_dtypes") {
            if (!readDtypes(value, p.dtypes)) p.dtypes.clear();
        } else if (key == "callstack") {
            if (value.get_string().get(p.callstack) != simdjson::SUCCESS) p.callstack = {};
        } else if (key == "name")
            ok = value.get_string().get(e.argName) == simdjson::SUCCESS;
        else if (key == "place") {
            if (value.get_string().get(p.memory.place) != simdjson::SUCCESS) p.memory.place = {};
        } else if (key == "addr")
            readUnsigned(value, p.memory.addr);
        else if (key == "increase_bytes")
            readInt(value, p.memory.increaseBytes);
        else if (key == "current_allocated")
            readUnsigned(value, p.memory.currentAllocated);
        else if (key == "current_reserved")
            readUnsigned(value, p.memory.currentReserved);
        else if (key == "peak_allocated")
            readUnsigned(value, p.memory.peakAllocated);
        else if (key == "peak_reserved")
            readUnsigned(value, p.memory.peakReserved);
        if (!ok) return false;
    }
    return true;
}

} // namespace

PaddleEventParser::PaddleEventParser() : impl_(std::make_unique<Impl>()) {}
PaddleEventParser::~PaddleEventParser() = default;

bool PaddleEventParser::parse(std::string_view text, PaddleEvent& p) {
    p.base = KinetoEvent{};
    p.sizes.clear();
    p.dtypes.clear();
    p.callstack = {};
    p.occupancyPercent = p.blocksPerSm = p.warpsPerSm = p.bandwidthGBs = -1;
    p.memory = PaddleMemoryFields{};
    KinetoEvent& e = p.base;
    od::document doc;
    if (impl_->parser.iterate(text.data(), text.size(), text.size() + simdjson::SIMDJSON_PADDING)
            .get(doc) != simdjson::SUCCESS)
        return false;
    od::object obj;
    if (doc.get_object().get(obj) != simdjson::SUCCESS) return false;
    for (auto field : obj) {
        od::raw_json_string key;
        od::value value;
        if (field.key().get(key) != simdjson::SUCCESS ||
            field.value().get(value) != simdjson::SUCCESS)
            return false;
        bool ok = true;
        if (key == "ph") {
            std::string_view ph;
            ok = value.get_string().get(ph) == simdjson::SUCCESS && !ph.empty();
            if (ok) e.ph = ph[0];
        } else if (key == "cat")
            ok = value.get_string().get(e.cat) == simdjson::SUCCESS;
        else if (key == "name") {
            ok = value.get_string().get(e.name) == simdjson::SUCCESS;
            if (ok) e.name = stripPaddleDuration(e.name);
        } else if (key == "pid")
            ok = e.hasPid = readThread(value, e.pid); // device events: the device id
        else if (key == "tid")
            ok = e.hasTid = readThread(value, e.tid); // device events: the stream
        else if (key == "ts")
            ok = readTime(value, e.ts);
        else if (key == "dur")
            ok = readTime(value, e.dur);
        else if (key == "id")
            ok = readInt(value, e.id);
        else if (key == "args")
            ok = readArgs(value, p);
        if (!ok) return false;
    }
    return true;
}

} // namespace ls
