#include "core/reports/gpu_trace.h"

#include "core/reports/memory_summary.h"
#include "core/reports/summary.h"

#include <array>
#include <limits>
#include <map>
#include <string>
#include <vector>

namespace ls {

std::optional<std::string_view> cuptiMemoryKindName(uint8_t kind) {
    static constexpr std::array<std::string_view, 8> kNames = {
        "Pageable", "Pinned",        "Device",         "Array",
        "Managed",  "Device Static", "Managed Static", "Unknown"};
    if (kind >= kNames.size()) return std::nullopt;
    return kNames[kind];
}

std::optional<std::string_view> cuptiCopyOperationName(uint8_t copyKind) {
    static constexpr std::array<std::string_view, 14> kNames = {
        "[CUDA memcpy Unknown]",
        "[CUDA memcpy HtoD]",
        "[CUDA memcpy DtoH]",
        "[CUDA memcpy HtoA]",
        "[CUDA memcpy AtoH]",
        "[CUDA memcpy AtoA]",
        "[CUDA memcpy AtoD]",
        "[CUDA memcpy DtoA]",
        "[CUDA memcpy DtoD]",
        "[CUDA memcpy HtoH]",
        "[CUDA memcpy PtoP]",
        "[CUDA Unified Memory memcpy HtoD]",
        "[CUDA Unified Memory memcpy DtoH]",
        "[CUDA Unified Memory memcpy DtoD]"};
    if (copyKind >= kNames.size()) return std::nullopt;
    return kNames[copyKind];
}

std::optional<double> gpuTraceThroughput(uint64_t bytes, TimeNs duration) {
    if (duration <= 0) return std::nullopt; // SQLite: x / 0 is NULL
    const auto perSecond = static_cast<uint64_t>(1000000000 / duration);
    constexpr auto kMax = static_cast<uint64_t>(std::numeric_limits<int64_t>::max());
    // SQLite turns an integer product that overflows into a REAL.
    if (perSecond != 0 && bytes > kMax / perSecond)
        return static_cast<double>(bytes) * static_cast<double>(perSecond);
    return static_cast<double>(bytes * perSecond);
}

namespace {

const std::string kNone = "None";

std::string orNone(std::optional<std::string_view> v) { return v ? std::string(*v) : kNone; }
std::string megabytes(uint64_t bytes) { return formatMegabytes(static_cast<double>(bytes)); }

std::string throughput(uint64_t bytes, TimeNs duration) {
    const auto v = gpuTraceThroughput(bytes, duration);
    return v ? formatMegabytes(*v) : kNone; // MB per second, the unit nsys converts B/s to
}

// "NVIDIA H200 (0)": TARGET_INFO_GPU's name and the device id.
class DeviceNames {
  public:
    explicit DeviceNames(const Trace& t) {
        for (const auto& d : t.devices) names_[d.id] = d.name + " (" + std::to_string(d.id) + ")";
    }
    const std::string& operator()(uint32_t id) {
        auto [it, added] = names_.try_emplace(id);
        if (added)
            it->second = " (" + std::to_string(id) + ")"; // no GPU row: SQLite's printf of NULL
        return it->second;
    }

  private:
    std::map<uint32_t, std::string> names_;
};

enum class OpTable : uint8_t { Kernel, Memcpy, Memset };

} // namespace

void writeGpuTrace(TableWriter& w, const Trace& t) {
    w.header({"Start (ns)",   "Duration (ns)",
              "CorrId",       "GrdX",
              "GrdY",         "GrdZ",
              "BlkX",         "BlkY",
              "BlkZ",         "Reg/Trd",
              "StcSMem (MB)", "DymSMem (MB)",
              "Bytes (MB)",   "Throughput (MBps)",
              "SrcMemKd",     "DstMemKd",
              "Device",       "Ctx",
              "Strm",         "Name"});
    DeviceNames device(t);
    const auto& k = t.kernels;
    const auto& c = t.memcpys;
    const auto& s = t.memsets;
    auto common = [&](const GpuOpColumns& g, size_t i) {
        std::vector<std::string> f;
        f.reserve(20);
        f.insert(f.end(), {std::to_string(g.start[i]), std::to_string(g.duration(i)),
                           std::to_string(g.correlation[i])});
        return f;
    };
    auto tail = [&](std::vector<std::string>& f, const GpuOpColumns& g, size_t i,
                    std::string name) {
        const Stream& st = t.streamOf(g, i);
        f.insert(f.end(), {device(st.device), std::to_string(st.context), std::to_string(st.stream),
                           std::move(name)});
    };
    auto kernelRow = [&](size_t i) {
        auto f = common(k, i);
        for (const Dim3* d : {&k.grid[i], &k.block[i]})
            f.insert(f.end(), {std::to_string(d->x), std::to_string(d->y), std::to_string(d->z)});
        f.insert(f.end(), {std::to_string(k.registers[i]), megabytes(k.staticSmem[i]),
                           megabytes(k.dynamicSmem[i]), kNone, std::string(), kNone,
                           kNone}); // nsys's throughput of a kernel is '', its bytes NULL
        tail(f, k, i, std::string(t.str(k.name[i])));
        return f;
    };
    auto memoryRow = [&](const GpuOpColumns& g, size_t i, uint64_t bytes, uint8_t src, uint8_t dst,
                         std::string name) {
        auto f = common(g, i);
        f.insert(f.end(), 9, kNone); // grid, block, registers, shared memory
        f.insert(f.end(), {megabytes(bytes), throughput(bytes, g.duration(i)),
                           orNone(cuptiMemoryKindName(src)), orNone(cuptiMemoryKindName(dst))});
        tail(f, g, i, std::move(name));
        return f;
    };
    auto at = [](const Column<uint8_t>& v, size_t i) {
        return i < v.size() ? v[i] : kNoCuptiValue;
    };

    // A three-way merge of the tables (each sorted by start); equal starts: kernels, copies, sets.
    size_t ki = 0, ci = 0, si = 0;
    constexpr TimeNs kEnd = std::numeric_limits<TimeNs>::max();
    while (ki < k.size() || ci < c.size() || si < s.size()) {
        const TimeNs ks = ki < k.size() ? k.start[ki] : kEnd,
                     cs = ci < c.size() ? c.start[ci] : kEnd,
                     ss = si < s.size() ? s.start[si] : kEnd;
        const OpTable next = ki < k.size() && ks <= cs && ks <= ss ? OpTable::Kernel
                             : ci < c.size() && cs <= ss           ? OpTable::Memcpy
                                                                   : OpTable::Memset;
        switch (next) {
        case OpTable::Kernel:
            w.row(kernelRow(ki++));
            break;
        case OpTable::Memcpy: {
            const uint8_t op = at(c.cuptiCopyKind, ci);
            w.row(memoryRow(c, ci, c.bytes[ci], at(c.srcKind, ci), at(c.dstKind, ci),
                            orNone(cuptiCopyOperationName(op))));
            ++ci;
            break;
        }
        case OpTable::Memset:
            w.row(memoryRow(s, si, s.bytes[si], at(s.memKind, si), kNoCuptiValue, "[CUDA memset]"));
            ++si;
            break;
        }
    }
}

void writeApiTrace(TableWriter& w, const Trace& t) {
    w.header({"Start (ns)", "Duration (ns)", "Name", "Result", "CorrID", "Pid", "Tid", "T-Pri",
              "Thread Name"});
    const auto& a = t.apiCalls;
    for (size_t i = 0; i < a.size(); ++i) {
        const ThreadId th = a.thread[i];
        const Thread* thread =
            th.valid() && th.value < t.threads.size() ? &t.threads[th.value] : nullptr;
        const uint32_t pid =
            thread && thread->process.valid() && thread->process.value < t.processes.size()
                ? t.processes[thread->process.value].pid
                : 0;
        const int32_t result = i < a.result.size() ? a.result[i] : kNoApiResult;
        // No ThreadNames row: nsys's outer join gives None for both the priority and the name.
        const bool named =
            thread && (thread->priority != kNoThreadPriority || !thread->name.empty());
        w.row({std::to_string(a.start[i]), std::to_string(a.end[i] - a.start[i]),
               std::string(stripApiVersion(t.str(a.name[i]))),
               result == kNoApiResult ? kNone : std::to_string(result),
               std::to_string(a.correlationOf(i)), std::to_string(pid),
               std::to_string(thread ? thread->tid : 0),
               thread && thread->priority != kNoThreadPriority ? std::to_string(thread->priority)
                                                               : kNone,
               named ? thread->name : kNone});
    }
}

} // namespace ls
