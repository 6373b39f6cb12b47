#include "core/import/paddle/paddle_importer.h"

#include "core/import/common/trace_assembler.h"
#include "core/import/kineto/chrome_trace_stream.h"
#include "core/import/kineto/kineto_builder.h"
#include "core/import/paddle/paddle_categories.h"
#include "core/import/paddle/paddle_event.h"
#include "core/import/paddle/paddle_memory.h"

#include <algorithm>
#include <cctype>
#include <map>
#include <simdjson.h>
#include <stdexcept>
#include <thread>
#include <unordered_map>

namespace ls {
namespace {

bool isEmptyObject(std::string_view v) {
    if (v.size() < 2 || v.front() != '{' || v.back() != '}') return false;
    return v.find_first_not_of(" \n\r\t", 1) == v.size() - 1;
}

// ChromeTracingLogger::StartLog writes "schemaVersion", "displayTimeUnit" and "span_indx" before
// anything else; no other Chrome-trace writer names a member span_indx.
bool startsLikePaddle(const std::string& path) {
    ChromeTraceStream stream(path);
    std::string_view key, value;
    for (int members = 0; members < 8; ++members) {
        if (stream.next(key, value) != ChromeTraceStream::Item::Member) return false;
        if (key == "span_indx") return true;
    }
    return false;
}

// Paddle writes the SM count as "smCount" where Kineto writes "numSms"; the builder reads the
// latter. The copy ends in the simdjson padding the builder reads past the text.
std::string kinetoDeviceProperties(std::string_view json, size_t& textSize) {
    std::string s(json);
    for (size_t at = 0; (at = s.find("\"smCount\"", at)) != std::string::npos; at += 8)
        s.replace(at, 9, "\"numSms\"");
    textSize = s.size();
    s.append(ChromeTraceStream::kPadding, ' ');
    return s;
}

// "ExtraInfo": {"Process Cpu Utilization": "1.02", ...}: the run's own figures, kept as
// metadata ExtraInfo.<key>.
void keepExtraInfo(std::string_view json, ExportInfo& info) {
    simdjson::ondemand::parser parser;
    simdjson::ondemand::document doc;
    if (parser.iterate(json.data(), json.size(), json.size() + simdjson::SIMDJSON_PADDING)
            .get(doc) != simdjson::SUCCESS)
        return;
    simdjson::ondemand::object o;
    if (doc.get_object().get(o) != simdjson::SUCCESS) return;
    for (auto field : o) {
        std::string_view k, v;
        if (field.unescaped_key().get(k) != simdjson::SUCCESS) return;
        if (field.value().get_string().get(v) != simdjson::SUCCESS) continue;
        info.metadata.emplace_back("ExtraInfo." + std::string(k), std::string(v));
    }
}

class PaddleReader {
  public:
    explicit PaddleReader(Trace& t) : t_(t), builder_(t) {}

    void member(std::string_view key, std::string_view json) {
        if (key == "ExtraInfo") return keepExtraInfo(json, extra_);
        if (key == "deviceProperties") {
            size_t size = 0;
            const std::string copy = kinetoDeviceProperties(json, size);
            return builder_.member(key, std::string_view(copy.data(), size));
        }
        builder_.member(key, json); // schemaVersion, displayTimeUnit, span_indx
    }

    void event(std::string_view text) {
        if (!parser_.parse(text, e_)) return builder_.malformedEvent();
        KinetoEvent& k = e_.base;
        // Flows "launch" (cat "async") join a runtime call to its GPU work by correlation id.
        if (k.ph == 's' || k.ph == 'f' || k.ph == 't') {
            if (k.cat == "async" && k.name == "launch") k.cat = "ac2g";
            return builder_.event(k);
        }
        if (k.ph == 'M') return builder_.event(k);
        const PaddleCategory c = paddleCategory(k.cat);
        if (c.role == PaddleRole::Memory && (k.ph == 'i' || k.ph == 'I')) {
            ++events_;
            return memory_.add(e_, builder_);
        }
        if (c.role == PaddleRole::LayerScope) {
            ++events_;
            return builder_.scopeRange(k, kModuleScope);
        }
        if (c.role == PaddleRole::Kineto) {
            if (!e_.sizes.empty()) ++withShapes_; // as written, before a phase shares them
            shareOpShapes(c, k);                  // before k.cat becomes the Kineto category
            k.cat = c.kinetoCategory;
            noteContext(k);
            k.inputDims = e_.sizes; // already in emit_nvtx's form
            if (!e_.dtypes.empty()) ++withDtypes_;
            if (!e_.callstack.empty()) ++withCallstack_;
            if (e_.occupancyPercent >= 0) ++withOccupancy_;
            if (e_.bandwidthGBs >= 0) ++withBandwidth_;
            return builder_.event(k);
        }
        ++events_;
        ++(c.role == PaddleRole::NotModelled ? notModelled_ : unknown_)[std::string(k.cat)];
    }

    uint64_t events() const { return events_ + builder_.events(); }

    // An op's "compute" phase runs its kernels on the op's inputs, but only the Operator event
    // carries input_shapes: the phase gets them, so that the kernels it launches (whose innermost
    // marker it is) find their op's FLOPs formula ("matmul compute" prices as matmul, see
    // core/costs/op_costs.cpp). The logger writes a thread's events parent first, so the open
    // Operator events of the thread are a stack.
    void shareOpShapes(const PaddleCategory& c, const KinetoEvent& k) {
        if (c.kinetoCategory != "cpu_op" || !k.ts || !k.dur) return;
        auto& open = openOps_[k.tid];
        while (!open.empty() && open.back().end <= *k.ts) open.pop_back();
        std::string cat;
        for (char ch : k.cat)
            cat += static_cast<char>(std::tolower(static_cast<unsigned char>(ch)));
        if (cat == "operator" || cat == "communication") {
            open.push_back({*k.ts + *k.dur, e_.sizes});
            return;
        }
        const bool compute = k.name == "compute" || k.name.ends_with(" compute");
        if (compute && e_.sizes.empty() && !open.empty() && *k.ts + *k.dur <= open.back().end)
            e_.sizes = open.back().sizes;
    }

    // HandleTypeMemcpy writes no "context": a copy takes its device's context from the kernels
    // and sets (Paddle uses one context per device), else it would be a stream of its own.
    void noteContext(const KinetoEvent& k) {
        if (k.context >= 0 && k.device >= 0) contextOfDevice_.try_emplace(k.device, k.context);
    }
    void fillCopyContexts() {
        // Rows still in the builder's open part: every copy unless a trace holds more than 256k
        // of them before its first kernel.
        auto& c = t_.memcpys;
        for (size_t i = 0; i < c.size(); ++i)
            if (c.importContext[i] == 0)
                if (auto it = contextOfDevice_.find(c.importDevice[i]);
                    it != contextOfDevice_.end())
                    c.importContext[i] = static_cast<uint32_t>(it->second);
    }

    void finish(unsigned threads) {
        for (const auto& [cat, n] : notModelled_)
            t_.report.add(Anomaly::NotModelledEvent, n,
                          std::to_string(n) + " " + cat +
                              " (Python API spans around the C++ ops they run)");
        for (const auto& [cat, n] : unknown_)
            t_.report.add(Anomaly::UnknownEventCategory, n, std::to_string(n) + " " + cat);
        if (const std::string line = memory_.reportLine(); !line.empty())
            t_.report.add(Anomaly::NotModelledEvent, memory_.notKept(), line);
        fillCopyContexts();
        builder_.finish(threads);
        t_.info.format = "PaddlePaddle profiler JSON";
        for (auto& kv : extra_.metadata) t_.info.metadata.push_back(std::move(kv));
        // What the op events said beyond their shapes: counted, so `info` shows they were read.
        auto note = [&](const char* key, uint64_t n) {
            if (n) t_.info.metadata.emplace_back(key, std::to_string(n));
        };
        note("paddle.ops_with_input_shapes", withShapes_);
        note("paddle.ops_with_input_dtypes", withDtypes_);
        note("paddle.ops_with_callstack", withCallstack_);
        note("paddle.kernels_with_occupancy", withOccupancy_);
        note("paddle.copies_with_bandwidth", withBandwidth_); // bytes / duration: derived here too
    }

  private:
    Trace& t_;
    KinetoBuilder builder_;
    PaddleEventParser parser_;
    PaddleEvent e_;
    PaddleMemoryLog memory_; // GPU ones go to the builder, host ones are counted
    ExportInfo extra_;
    std::map<std::string, uint64_t> notModelled_, unknown_;
    std::map<int64_t, int64_t> contextOfDevice_;
    struct OpenOp {
        TimeNs end = 0;
        std::string sizes;
    };
    std::unordered_map<int64_t, std::vector<OpenOp>> openOps_; // by thread

    uint64_t events_ = 0, withShapes_ = 0, withDtypes_ = 0, withCallstack_ = 0, withOccupancy_ = 0,
             withBandwidth_ = 0;
};

} // namespace

bool acceptsPaddleJson(const ImportProbe& probe) {
    if (probe.head.isSqlite()) return false;
    try {
        return startsLikePaddle(probe.path);
    } catch (const std::runtime_error&) {
        return false;
    }
}

LoadResult readPaddleJson(const ImportProbe& probe, const LoadOptions& options) {
    auto trace = std::make_shared<Trace>();
    trace->path = probe.path;
    PhaseTimer timer(*trace);
    std::unique_ptr<ChromeTraceStream> stream;
    try {
        stream = std::make_unique<ChromeTraceStream>(probe.path);
    } catch (const std::runtime_error& e) {
        return {nullptr, LoadError{LoadErrorKind::Unreadable, e.what()}};
    }
    PaddleReader reader(*trace);
    std::string_view key, value;
    uint64_t sinceCheck = 0;
    for (;;) {
        const auto item = stream->next(key, value);
        if (item == ChromeTraceStream::Item::End) break;
        if (item == ChromeTraceStream::Item::Member) {
            reader.member(key, value);
            continue;
        }
        if (!isEmptyObject(value)) reader.event(value); // "{}" ends Paddle's event list
        if (++sinceCheck == 1u << 16) {
            sinceCheck = 0;
            if (options.cancelled())
                return {nullptr, LoadError{LoadErrorKind::Cancelled, "cancelled"}};
            if (options.progress)
                options.progress(LoadProgress{"trace events", stream->compressedBytesRead(),
                                              probe.head.size, true});
        }
    }
    timer.mark("read json");
    if (!stream->sawTraceEvents()) {
        const std::string why =
            stream->problem() ? *stream->problem() : std::string("no traceEvents array");
        return {nullptr, LoadError{LoadErrorKind::UnsupportedFormat,
                                   "not a PaddlePaddle profiler trace (" + why + ")"}};
    }
    if (reader.events() == 0 && stream->problem())
        return {nullptr, LoadError{LoadErrorKind::Corrupt,
                                   "truncated or corrupt JSON (" + *stream->problem() + ")"}};
    if (reader.events() == 0)
        return {nullptr, LoadError{LoadErrorKind::UnsupportedFormat,
                                   "no trace events: traceEvents holds no event objects"}};
    if (stream->problem()) trace->report.add(Anomaly::TruncatedJson, 1, *stream->problem());
    if (options.cancelled()) return {nullptr, LoadError{LoadErrorKind::Cancelled, "cancelled"}};
    const unsigned threads = std::clamp(
        options.threads ? options.threads : std::max(2u, std::thread::hardware_concurrency()), 1u,
        16u);
    reader.finish(threads);
    return {std::move(trace), std::nullopt};
}

} // namespace ls
