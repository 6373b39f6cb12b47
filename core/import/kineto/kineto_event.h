#pragma once
// One Chrome-trace event of a PyTorch profiler (Kineto) trace, read from its JSON text with
// simdjson's on-demand API: only the fields the importer uses, numbers as numbers, times in ns.
// String views point into the parser and stay valid until it parses the next event.
#include "core/model/trace.h"

#include <cstdint>
#include <memory>
#include <optional>
#include <string_view>

namespace ls {

struct KinetoEvent {
    char ph = 0;
    std::string_view cat, name;
    int64_t pid = 0, tid = 0;
    bool hasPid = false, hasTid = false;
    std::optional<TimeNs> ts, dur;
    int64_t id = -1; // flow id
    // args (-1 when absent)
    int64_t correlation = -1, externalId = -1, seq = -1;
    int64_t device = -1, context = -1, stream = -1;
    int64_t registers = -1, sharedMemory = -1, bytes = -1;
    Dim3 grid, block;
    std::string_view inputDims; // raw JSON text of "Input Dims"
    std::string_view argName;   // "name" of a metadata event (process_name, thread_name)
    // A collective kernel's args (PyTorch 2.x): element counts, element type, process group.
    int64_t inMsgNelems = -1, outMsgNelems = -1;
    std::string_view dtype, processGroup;
    // A "[memory]" instant event's args (profile_memory=True): the change in bytes (negative for
    // a release), the allocator's totals after it, the address and where (Device Type 1: CUDA).
    std::optional<int64_t> memoryBytes;
    int64_t totalAllocated = -1, totalReserved = -1, address = -1;
    int64_t memoryDevice = -1, memoryDeviceType = -1;
};

class KinetoEventParser {
  public:
    KinetoEventParser();
    ~KinetoEventParser();
    KinetoEventParser(const KinetoEventParser&) = delete;
    KinetoEventParser& operator=(const KinetoEventParser&) = delete;

    // text must be followed by ChromeTraceStream::kPadding readable bytes. False when the text is
    // not a JSON object (the event is skipped and counted by the caller).
    bool parse(std::string_view text, KinetoEvent& e);

  private:
    struct Impl;
    std::unique_ptr<Impl> impl_;
};

} // namespace ls
