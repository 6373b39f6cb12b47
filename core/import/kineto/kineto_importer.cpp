#include "core/import/kineto/kineto_importer.h"

#include "core/import/common/trace_assembler.h"
#include "core/import/kineto/chrome_trace_stream.h"
#include "core/import/kineto/kineto_builder.h"
#include "core/import/kineto/kineto_event.h"

#include <algorithm>
#include <stdexcept>
#include <thread>
#include <zlib.h>

namespace ls {
namespace {

bool isGzip(const std::string& b) {
    return b.size() >= 2 && static_cast<unsigned char>(b[0]) == 0x1f &&
           static_cast<unsigned char>(b[1]) == 0x8b;
}

// The first decompressed bytes of a gzip head (as many as the head's compressed bytes give).
std::string gunzipHead(const std::string& compressed) {
    std::string out(64 * 1024, '\0');
    z_stream z{};
    if (inflateInit2(&z, 16 + MAX_WBITS) != Z_OK) return {};
    z.next_in = reinterpret_cast<Bytef*>(const_cast<char*>(compressed.data()));
    z.avail_in = static_cast<uInt>(compressed.size());
    z.next_out = reinterpret_cast<Bytef*>(out.data());
    z.avail_out = static_cast<uInt>(out.size());
    inflate(&z, Z_SYNC_FLUSH);
    out.resize(out.size() - z.avail_out);
    inflateEnd(&z);
    return out;
}

bool isEmptyObject(std::string_view v) {
    if (v.size() < 2 || v.front() != '{' || v.back() != '}') return false;
    return v.find_first_not_of(" \n\r\t", 1) == v.size() - 1;
}

} // namespace

// Told by its structure, not its first bytes: a JSON object with a "traceEvents" array among its
// members (in any order: PyTorch 2.x writes a large "metadata" object first, Paddle
// "schemaVersion"), or a bare array whose first element is an event object. The head only rules
// out what cannot be JSON; the stream then reads members until the first event (or the end).
bool acceptsKinetoJson(const ImportProbe& probe) {
    if (probe.head.isSqlite()) return false;
    const std::string text =
        isGzip(probe.head.bytes) ? gunzipHead(probe.head.bytes) : probe.head.bytes;
    size_t i = text.compare(0, 3, "\xEF\xBB\xBF") == 0 ? 3 : 0;
    while (i < text.size() &&
           (text[i] == ' ' || text[i] == '\n' || text[i] == '\r' || text[i] == '\t'))
        ++i;
    if (i >= text.size() || (text[i] != '{' && text[i] != '[')) return false;
    try {
        ChromeTraceStream stream(probe.path);
        std::string_view key, value;
        bool namedTraceMember = false;
        for (;;) {
            const auto item = stream.next(key, value);
            if (item == ChromeTraceStream::Item::Event)
                return !value.empty() && value.front() == '{';
            if (item == ChromeTraceStream::Item::End)
                return text[i] == '{' && (stream.sawTraceEvents() || namedTraceMember);
            // An object of trace members without events is taken, so that its error says what is
            // missing.
            for (std::string_view k :
                 {"schemaVersion", "deviceProperties", "displayTimeUnit", "traceName"})
                namedTraceMember = namedTraceMember || key == k;
        }
    } catch (const std::runtime_error&) {
        return false;
    }
}

LoadResult readKinetoJson(const ImportProbe& probe, const LoadOptions& options) {
    auto trace = std::make_shared<Trace>();
    trace->path = probe.path;
    PhaseTimer timer(*trace);
    std::unique_ptr<ChromeTraceStream> stream;
    try {
        stream = std::make_unique<ChromeTraceStream>(probe.path);
    } catch (const std::runtime_error& e) {
        return {nullptr, LoadError{LoadErrorKind::Unreadable, e.what()}};
    }
    KinetoBuilder builder(*trace);
    KinetoEventParser parser;
    KinetoEvent event;
    std::string_view key, value;
    uint64_t sinceCheck = 0;
    for (;;) {
        const auto item = stream->next(key, value);
        if (item == ChromeTraceStream::Item::End) break;
        if (item == ChromeTraceStream::Item::Member) {
            builder.member(key, value);
            continue;
        }
        if (isEmptyObject(value))
            continue; // the "{}" Paddle's profiler writes after the last event
        if (parser.parse(value, event))
            builder.event(event);
        else
            builder.malformedEvent();
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
                                   "not a PyTorch profiler or Chrome trace (" + why + ")"}};
    }
    if (builder.events() == 0 && stream->problem())
        return {nullptr, LoadError{LoadErrorKind::Corrupt,
                                   "truncated or corrupt JSON (" + *stream->problem() + ")"}};
    if (builder.events() == 0)
        return {nullptr, LoadError{LoadErrorKind::UnsupportedFormat,
                                   "no trace events: traceEvents holds no event objects"}};
    if (stream->problem()) trace->report.add(Anomaly::TruncatedJson, 1, *stream->problem());
    if (options.cancelled()) return {nullptr, LoadError{LoadErrorKind::Cancelled, "cancelled"}};
    const unsigned threads = std::clamp(
        options.threads ? options.threads : std::max(2u, std::thread::hardware_concurrency()), 1u,
        16u);
    builder.finish(threads);
    return {std::move(trace), std::nullopt};
}

} // namespace ls
