#include "core/import/kineto/kineto_event.h"

#include "core/import/kineto/json_values.h"

#include <charconv>
#include <cmath>
#include <functional>
#include <simdjson.h>

namespace ls {

namespace od = simdjson::ondemand;

struct KinetoEventParser::Impl {
    od::parser parser;
};

namespace {

using json_values::readDim3;
using json_values::readInt;
using json_values::readTime;

// pid and tid are numbers in Kineto's CPU and GPU rows, but strings in its own marker rows
// ("Spans", "Traces") and in older traces ("stream 7"): the last run of digits, else a hash.
bool readId(od::value v, int64_t& out) {
    od::json_type type;
    if (v.type().get(type) != simdjson::SUCCESS) return false;
    if (type == od::json_type::number) return readInt(v, out);
    std::string_view s;
    if (v.get_string().get(s) != simdjson::SUCCESS) return false;
    size_t end = s.size();
    while (end > 0 && s[end - 1] == ' ') --end;
    size_t begin = end;
    while (begin > 0 && s[begin - 1] >= '0' && s[begin - 1] <= '9' && end - begin < 9) --begin;
    if (begin < end) {
        int64_t n = 0;
        for (size_t i = begin; i < end; ++i) n = n * 10 + (s[i] - '0');
        out = n;
    } else {
        out =
            static_cast<int64_t>(std::hash<std::string_view>{}(s)&0x3FFFFFFF) | (int64_t(1) << 40);
    }
    return true;
}

bool readArgs(od::value v, KinetoEvent& e) {
    od::object args;
    if (v.get_object().get(args) != simdjson::SUCCESS) return false;
    for (auto field : args) {
        od::raw_json_string key;
        od::value value;
        if (field.key().get(key) != simdjson::SUCCESS ||
            field.value().get(value) != simdjson::SUCCESS)
            return false;
        // A correlation id that is not a number leaves the event unlinkable: it counts as damage.
        // Other numbers of an unexpected form leave their field unknown and the event kept.
        bool ok = true;
        if (key == "correlation")
            ok = readInt(value, e.correlation);
        else if (key == "External id" || key == "external id")
            readInt(value, e.externalId);
        else if (key == "Sequence number")
            readInt(value, e.seq);
        else if (key == "device")
            readInt(value, e.device);
        else if (key == "context")
            readInt(value, e.context);
        else if (key == "stream")
            readInt(value, e.stream);
        else if (key == "registers per thread")
            readInt(value, e.registers);
        else if (key == "shared memory")
            readInt(value, e.sharedMemory);
        else if (key == "bytes")
            readInt(value, e.bytes);
        else if (key == "grid")
            ok = readDim3(value, e.grid);
        else if (key == "block")
            ok = readDim3(value, e.block);
        else if (key == "Input Dims" || key == "Input dims") { // "Input dims" before PyTorch 1.10
            od::array dims;
            ok = value.get_array().get(dims) == simdjson::SUCCESS &&
                 dims.raw_json().get(e.inputDims) == simdjson::SUCCESS;
        } else if (key == "name")
            ok = value.get_string().get(e.argName) == simdjson::SUCCESS;
        else if (key == "In msg nelems")
            readInt(value, e.inMsgNelems);
        else if (key == "Out msg nelems")
            readInt(value, e.outMsgNelems);
        else if (key == "Bytes") {
            int64_t change = 0;
            if (readInt(value, change)) e.memoryBytes = change;
        } else if (key == "Total Allocated")
            readInt(value, e.totalAllocated);
        else if (key == "Total Reserved")
            readInt(value, e.totalReserved);
        else if (key == "Addr")
            readInt(value, e.address);
        else if (key == "Device Id")
            readInt(value, e.memoryDevice);
        else if (key == "Device Type")
            readInt(value, e.memoryDeviceType);
        // Text fields that are not text are ignored, not errors: they only add to what is known.
        else if (key == "dtype") {
            if (value.get_string().get(e.dtype) != simdjson::SUCCESS) e.dtype = {};
        } else if (key == "Process Group Name") {
            if (value.get_string().get(e.processGroup) != simdjson::SUCCESS) e.processGroup = {};
        }
        if (!ok) return false;
    }
    return true;
}

} // namespace

KinetoEventParser::KinetoEventParser() : impl_(std::make_unique<Impl>()) {}
KinetoEventParser::~KinetoEventParser() = default;

bool KinetoEventParser::parse(std::string_view text, KinetoEvent& e) {
    e = KinetoEvent{};
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
        else if (key == "name")
            ok = value.get_string().get(e.name) == simdjson::SUCCESS;
        else if (key == "pid")
            ok = e.hasPid = readId(value, e.pid);
        else if (key == "tid")
            ok = e.hasTid = readId(value, e.tid);
        else if (key == "ts")
            ok = readTime(value, e.ts);
        else if (key == "dur")
            ok = readTime(value, e.dur);
        else if (key == "id")
            ok = readId(value, e.id);
        else if (key == "args")
            ok = readArgs(value, e);
        if (!ok) return false;
    }
    return true; // the span ends at the object's closing brace (ChromeTraceStream)
}

} // namespace ls
