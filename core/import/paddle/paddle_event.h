#pragma once
// One event of a PaddlePaddle profiler trace (paddle/fluid/platform/profiler/
// chrometracing_logger.cc), read into the Kineto event the shared builder takes, plus what only
// Paddle writes: operator input shapes and dtypes, the call stack, kernel occupancy, copy
// bandwidth and the fields of its [memory] instant events. Paddle's differences from Kineto are
// handled here: names carry their duration ("matmul dygraph[0.125 ms]"), host thread ids are
// strings ("1234(Python)", "1234(C++)": one OS thread), the correlation id is "correlation id".
#include "core/import/kineto/kineto_event.h"

#include <cstdint>
#include <memory>
#include <string>
#include <string_view>

namespace ls {

struct PaddleMemoryFields {
    std::string_view place; // "Place(gpu:0)"
    uint64_t addr = 0;
    int64_t increaseBytes = 0;
    uint64_t currentAllocated = 0, currentReserved = 0, peakAllocated = 0, peakReserved = 0;
};

struct PaddleEvent {
    KinetoEvent base; // name without the duration suffix; cat as Paddle wrote it
    // Operator events: args.input_shapes ({"X": [[8, 768]], "Y": [[768, 3072]]}) as the sizes
    // text emit_nvtx writes ("[[8, 768], [768, 3072]]", in the dict's order), args.input_dtypes
    // as "X: float32, Y: float32", args.callstack as written.
    std::string sizes, dtypes;
    std::string_view callstack;
    double occupancyPercent = -1; // Kernel: "theoretical achieved occupancy %"
    double blocksPerSm = -1, warpsPerSm = -1;
    double bandwidthGBs = -1; // Memcpy: "memory bandwidth (GB/s)"
    PaddleMemoryFields memory;
};

// "matmul dygraph[0.125 ms]" -> "matmul dygraph"; a name without such a suffix is unchanged.
std::string_view stripPaddleDuration(std::string_view name);

// "1234(Python)" -> 1234; false when the text does not start with a digit.
bool paddleThreadId(std::string_view text, int64_t& out);

class PaddleEventParser {
  public:
    PaddleEventParser();
    ~PaddleEventParser();
    PaddleEventParser(const PaddleEventParser&) = delete;
    PaddleEventParser& operator=(const PaddleEventParser&) = delete;

    // text must be followed by ChromeTraceStream::kPadding readable bytes. False when the text is
    // not a JSON object or a field the event cannot do without is of the wrong type.
    bool parse(std::string_view text, PaddleEvent& e);

  private:
    struct Impl;
    std::unique_ptr<Impl> impl_;
};

} // namespace ls
