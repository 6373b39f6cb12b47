#pragma once
// Turns the events of a PyTorch profiler trace into the model every importer fills: cpu_op,
// user_annotation and nn.Module ranges become the ranges an emit_nvtx trace would hold (op name,
// "Sequence number" as seq, "Input Dims" as sizes), runtime and driver calls become API calls,
// kernels, copies and sets become GPU operations of the process that launched them. Flow events
// are checked against the correlation ids; fwdbwd flows are kept for the pairing check.
#include "core/import/kineto/kineto_event.h"
#include "core/model/trace.h"

#include <map>
#include <string>
#include <string_view>
#include <unordered_map>
#include <vector>

namespace ls {

// A GPU memory event as the JSON formats write it, for Trace::memory.
struct JsonMemoryEvent {
    TimeNs time = 0;
    int64_t pid = 0, tid = 0;
    int64_t bytes = 0; // negative for a release
    MemoryPool pool = MemoryPool::Allocated;
    uint64_t allocated = 0, reserved = kNoMemoryTotal, address = 0;
    uint32_t device = 0;
};

class KinetoBuilder {
  public:
    explicit KinetoBuilder(Trace& t);
    void event(const KinetoEvent& e);
    void malformedEvent() { ++malformed_; }
    // A range whose role the caller knows from its own format (Paddle's Forward events are layer
    // scopes, kModuleScope): counted and checked like any event, kept with `flags`.
    void scopeRange(const KinetoEvent& e, uint8_t flags);
    // A top-level member other than traceEvents (deviceProperties, distributedInfo, ...); json is
    // followed by ChromeTraceStream::kPadding readable bytes.
    void member(std::string_view key, std::string_view json);
    void memoryEvent(const JsonMemoryEvent& m);
    // Memory events on host memory, or without a usable time: counted in the load report.
    void hostMemoryEvent() { skipped("[memory] host"); }
    // Resolves GPU operations to their processes, reports what was skipped and assembles.
    void finish(unsigned threads);
    uint64_t events() const { return events_; }

  private:
    ProcessId process(int64_t pid);
    ThreadId thread(int64_t pid, int64_t tid);
    StringId sizesOf(std::string_view inputDims);
    template <typename Cols> void gpuOp(Cols& c, const KinetoEvent& e);
    void collectiveArgs(const KinetoEvent& e);
    void range(const KinetoEvent& e, uint8_t flags);
    void apiCall(const KinetoEvent& e, ApiKind kind);
    // Whether a call or range from start to end can be held (TimeColumn): the first one read sets
    // the origin of their times.
    bool fitsTimeOrigin(TimeNs start, TimeNs end);
    void flow(const KinetoEvent& e);
    void metadata(const KinetoEvent& e);
    void kinetoMemory(const KinetoEvent& e);
    static void count(std::map<std::string, uint64_t, std::less<>>& counts, std::string_view key) {
        if (auto it = counts.find(key); it != counts.end())
            ++it->second;
        else
            counts.emplace(std::string(key), 1);
    }
    void skipped(std::string_view category) { count(skipped_, category); }
    void matchVisibleDevice();
    void checkFlows();

    Trace& t_;
    std::vector<Device> devices_;
    std::unordered_map<int64_t, ProcessId> processByPid_;
    std::unordered_map<int64_t, ThreadId> threadByKey_;
    std::unordered_map<int64_t, std::string> processNames_;
    std::unordered_map<int64_t, std::string> threadNames_; // by (pid << 32) ^ tid
    std::unordered_map<uint32_t, StringId> baseNames_;     // kernel name -> short name
    std::string scratch_;
    std::vector<uint8_t> droppedBrackets_;
    // Flow ends in arrival order, paired by sorting at the end: flat vectors cost a third of a hash
    // map.
    struct FlowEnd {
        int64_t id = 0;
        ThreadId thread;
        bool start = false;
        TimeNs ts = 0;
    };
    std::vector<int64_t> ac2gStarts_, ac2gFinishes_;
    std::vector<FlowEnd> fwdbwd_;
    // Rows are read into parts of kPartRows and joined once at the end (columns::concat), so the
    // columns never hold a doubling vector's unused half at the peak.
    std::vector<KernelColumns> kernelParts_;
    std::vector<MemcpyColumns> memcpyParts_;
    std::vector<MemsetColumns> memsetParts_;
    std::vector<ApiCallColumns> apiParts_;
    std::vector<RangeColumns> rangeParts_;
    TimeNs timeOrigin_ = 0;
    bool haveTimeOrigin_ = false;
    template <typename Cols> void sealIfFull(Cols& c, std::vector<Cols>& parts);
    void joinParts();
    std::map<std::string, uint64_t, std::less<>> skipped_,
        unknown_; // by category: find without a copy
    uint64_t events_ = 0, malformed_ = 0, missingTime_ = 0, negativeDuration_ = 0;
};

} // namespace ls
