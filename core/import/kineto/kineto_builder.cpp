#include "core/import/kineto/kineto_builder.h"

#include "core/import/common/kernel_base_name.h"
#include "core/import/common/trace_assembler.h"
#include "core/model/columns.h"

#include <algorithm>
#include <charconv>
#include <iterator>
#include <simdjson.h>

namespace ls {

namespace od = simdjson::ondemand;

namespace {

// Big enough that a part's 4- and 8-byte columns are mapped allocations (platform.cpp sets the
// threshold to 1 MiB), which return to the system when concat frees them; heap-sized parts would
// stay resident beside the joined columns.
constexpr size_t kPartRows = size_t(1) << 18;

int64_t threadKey(int64_t pid, int64_t tid) {
    return static_cast<int64_t>((static_cast<uint64_t>(pid) << 32) ^ static_cast<uint64_t>(tid));
}

uint32_t clampU32(int64_t v) {
    return v < 0 ? 0 : static_cast<uint32_t>(std::min<int64_t>(v, UINT32_MAX));
}

// Times beyond +-2^62 ns (146 years) are corrupt, as in the nsys importer; with starts and ends
// inside, ts + dur and the span between any two times fit in int64.
bool absurd(TimeNs t) { return t >= (TimeNs(1) << 62) || t <= -(TimeNs(1) << 62); }

CopyKind copyKindOf(std::string_view name) {
    // "Memcpy HtoD (Pageable -> Device)"
    if (name.find("HtoD") != std::string_view::npos) return CopyKind::HtoD;
    if (name.find("DtoH") != std::string_view::npos) return CopyKind::DtoH;
    if (name.find("DtoD") != std::string_view::npos) return CopyKind::DtoD;
    if (name.find("HtoH") != std::string_view::npos) return CopyKind::HtoH;
    if (name.find("PtoP") != std::string_view::npos) return CopyKind::PtoP;
    return CopyKind::Unknown;
}

// The memory kinds of "Memcpy HtoD (Pageable -> Device)", as an nsys export numbers them (0
// pageable, 1 pinned, 2 device, 3 array, 4 managed, 5 device static, 6 managed static); Kineto
// writes CUPTI's memory kind names there. kNoCuptiValue where the text names none.
uint8_t memoryKindOf(std::string_view text) {
    static constexpr std::pair<std::string_view, uint8_t> kKinds[] = {
        {"Pageable", 0}, {"Pinned", 1}, {"Device Static", 5}, {"Managed Static", 6},
        {"Device", 2},   {"Array", 3},  {"Managed", 4}};
    for (const auto& [name, kind] : kKinds)
        if (text == name) return kind;
    return kNoCuptiValue;
}

std::pair<uint8_t, uint8_t> copyMemoryKindsOf(std::string_view name) {
    const size_t open = name.rfind('('), arrow = name.find(" -> ", open);
    const size_t close = name.find(')', arrow);
    if (open == std::string_view::npos || arrow == std::string_view::npos ||
        close == std::string_view::npos)
        return {kNoCuptiValue, kNoCuptiValue};
    return {memoryKindOf(name.substr(open + 1, arrow - open - 1)),
            memoryKindOf(name.substr(arrow + 4, close - arrow - 4))};
}

// CUPTI's number for the direction (what an nsys export stores in copyKind).
uint8_t cuptiCopyKindOf(CopyKind k) {
    switch (k) {
    case CopyKind::HtoD:
        return 1;
    case CopyKind::DtoH:
        return 2;
    case CopyKind::DtoD:
        return 8;
    case CopyKind::HtoH:
        return 9;
    case CopyKind::PtoP:
        return 10;
    default:
        return 0;
    }
}

// PyTorch 1.8 and 1.9 wrote capitalized categories: Operator, Runtime, Kernel, Memcpy, Memset,
// Python.
std::string_view currentCategory(std::string_view cat) {
    static constexpr std::pair<std::string_view, std::string_view> kLegacy[] = {
        {"Operator", "cpu_op"},        {"Runtime", "cuda_runtime"}, {"Driver", "cuda_driver"},
        {"Kernel", "kernel"},          {"Memcpy", "gpu_memcpy"},    {"Memset", "gpu_memset"},
        {"Python", "python_function"},
    };
    for (const auto& [old, now] : kLegacy)
        if (cat == old) return now;
    return cat;
}

// Categories the importer understands but does not keep, with why (the load report's detail).
constexpr std::pair<std::string_view, std::string_view> kNotModelled[] = {
    {"gpu_user_annotation",
     "gpu_user_annotation (GPU spans of user annotations; derived from kernels here)"},
    {"cuda_sync", "cuda_sync (synchronization spans on GPU streams)"},
    {"python_function", "python_function (Python stack frames other than nn.Module)"},
    {"Trace", "Trace (the profiler's own span)"},
    {"i", "instant events (profiler markers)"},
    {"[memory] host", "[memory] events on host memory (only GPU memory is kept)"},
};

// Annotations PyTorch itself records around library code: emit_nvtx writes them as op markers
// (with an op_id), so they are ops here too; the user's own record_function names stay user ranges.
bool isFrameworkAnnotation(std::string_view name) {
    for (std::string_view prefix :
         {"Optimizer.", "DistributedDataParallel.", "FullyShardedDataParallel."})
        if (name.substr(0, prefix.size()) == prefix) return true;
    return false;
}

} // namespace

KinetoBuilder::KinetoBuilder(Trace& t) : t_(t) {}

ProcessId KinetoBuilder::process(int64_t pid) {
    auto [it, inserted] =
        processByPid_.try_emplace(pid, static_cast<uint32_t>(t_.processes.size()));
    if (inserted) t_.processes.push_back({clampU32(pid), {}});
    return it->second;
}

ThreadId KinetoBuilder::thread(int64_t pid, int64_t tid) {
    auto [it, inserted] =
        threadByKey_.try_emplace(threadKey(pid, tid), static_cast<uint32_t>(t_.threads.size()));
    if (inserted) t_.threads.push_back({process(pid), clampU32(tid), {}, kNoThreadPriority});
    return it->second;
}

// "Input Dims" as emit_nvtx writes sizes: "[[8, 768], [768, 3072], []]". Kineto nests a tensor
// list argument as a list of shapes ([[[768], [768]], []]); emit_nvtx splices its shapes into the
// argument list, and the FLOPs rules expect that.
StringId KinetoBuilder::sizesOf(std::string_view dims) {
    if (dims.empty()) return StringId(0);
    scratch_.clear();
    std::vector<uint8_t>& dropped = droppedBrackets_; // per open bracket: left out of the text
    dropped.clear();
    for (size_t i = 0; i < dims.size(); ++i) {
        const char c = dims[i];
        if (c == ' ' || c == '\n' || c == '\r' || c == '\t') continue;
        if (c == '[') {
            size_t j = i + 1;
            while (j < dims.size() &&
                   (dims[j] == ' ' || dims[j] == '\n' || dims[j] == '\r' || dims[j] == '\t'))
                ++j;
            const bool listOfShapes = dropped.size() == 1 && j < dims.size() && dims[j] == '[';
            dropped.push_back(listOfShapes ? 1 : 0);
            if (listOfShapes) continue;
        } else if (c == ']' && !dropped.empty()) {
            const bool skip = dropped.back();
            dropped.pop_back();
            if (skip) continue;
        }
        scratch_ += c;
        if (c == ',') scratch_ += ' ';
    }
    return t_.strings.intern(scratch_);
}

template <typename Cols> void KinetoBuilder::gpuOp(Cols& c, const KinetoEvent& e) {
    c.start.push_back(*e.ts);
    c.end.push_back(*e.ts + std::max<TimeNs>(0, *e.dur));
    c.importDevice.push_back(clampU32(e.device >= 0 ? e.device : e.pid));
    c.importContext.push_back(clampU32(e.context));
    c.importStream.push_back(clampU32(e.stream >= 0 ? e.stream : e.tid));
    c.streamIndex.emplace_back();
    c.correlation.push_back(clampU32(e.correlation));
    c.importProcess.emplace_back(); // resolved in finish() from the launch call's process
    c.launch.emplace_back();
}

namespace {

// Element sizes of the dtype names PyTorch writes in a collective's args.
uint64_t elementBytes(std::string_view dtype) {
    static constexpr std::pair<std::string_view, uint64_t> kSizes[] = {
        {"Float", 4},        {"BFloat16", 2},       {"Half", 2},          {"Double", 8},
        {"Int", 4},          {"Long", 8},           {"Short", 2},         {"Byte", 1},
        {"Char", 1},         {"Bool", 1},           {"Float8_e4m3fn", 1}, {"Float8_e5m2", 1},
        {"ComplexFloat", 8}, {"ComplexDouble", 16},
    };
    for (const auto& [name, size] : kSizes)
        if (dtype == name) return size;
    return 0;
}

} // namespace

void KinetoBuilder::collectiveArgs(const KinetoEvent& e) {
    const auto elements =
        static_cast<uint64_t>(std::max<int64_t>({0, e.inMsgNelems, e.outMsgNelems}));
    const uint64_t size = elementBytes(e.dtype);
    const bool overflows = size && elements > UINT64_MAX / size;
    t_.collectiveArgs.push_back(
        {*e.ts, clampU32(e.correlation), overflows ? 0 : elements * size,
         e.processGroup.empty() ? StringId() : t_.strings.intern(e.processGroup)});
}

bool KinetoBuilder::fitsTimeOrigin(TimeNs start, TimeNs end) {
    if (!haveTimeOrigin_) {
        timeOrigin_ = start;
        haveTimeOrigin_ = true;
    }
    return TimeColumn::fits(start, timeOrigin_) && TimeColumn::fits(end, timeOrigin_);
}

void KinetoBuilder::range(const KinetoEvent& e, uint8_t flags) {
    const TimeNs start = *e.ts, end = *e.ts + std::max<TimeNs>(0, *e.dur);
    if (!fitsTimeOrigin(start, end)) return void(++missingTime_);
    auto& r = t_.ranges;
    if (r.size() == 0) r.setOrigin(timeOrigin_);
    r.start.push_back(start);
    r.importEnd.push_back(end);
    r.importThread.wide.push_back(thread(e.pid, e.tid)); // wide: no chunk-local codes here
    r.importName.wide.push_back(t_.strings.intern(e.name));
    r.importSizes.wide.push_back(flags & kPytorchMarker ? sizesOf(e.inputDims) : StringId(0));
    r.importSeq.wide.push_back(e.seq >= 0 && e.seq <= INT32_MAX ? static_cast<int32_t>(e.seq) : -1);
    r.importOpId.wide.push_back(e.externalId >= 0 && e.externalId <= INT32_MAX
                                    ? static_cast<int32_t>(e.externalId)
                                    : -1); // Kineto's per-op id
    r.importKind.push_back(RangeKind::PushPop);
    r.importFlags.push_back(flags);
    r.importSourceRow.push_back(static_cast<uint32_t>(std::min<uint64_t>(events_, UINT32_MAX)));
    sealIfFull(r, rangeParts_);
}

void KinetoBuilder::apiCall(const KinetoEvent& e, ApiKind kind) {
    const TimeNs start = *e.ts, end = *e.ts + std::max<TimeNs>(0, *e.dur);
    if (!fitsTimeOrigin(start, end)) return void(++missingTime_);
    auto& a = t_.apiCalls;
    if (a.size() == 0) a.setOrigin(timeOrigin_);
    a.start.push_back(start);
    a.importEnd.push_back(end);
    a.importThread.wide.push_back(thread(e.pid, e.tid)); // wide: no chunk-local codes here
    a.importCorrelation.push_back(clampU32(e.correlation));
    a.importName.wide.push_back(t_.strings.intern(e.name));
    a.kind.push_back(kind);
    a.importResult.wide.push_back(
        ApiResultBits(static_cast<uint32_t>(kNoApiResult))); // not recorded by Kineto
    sealIfFull(a, apiParts_);
}

void KinetoBuilder::flow(const KinetoEvent& e) {
    if (e.cat == "ac2g") return (e.ph == 's' ? ac2gStarts_ : ac2gFinishes_).push_back(e.id);
    fwdbwd_.push_back({e.id, thread(e.pid, e.tid), e.ph == 's', *e.ts});
}

void KinetoBuilder::metadata(const KinetoEvent& e) {
    if (e.name == "process_name" && !e.argName.empty())
        processNames_[e.pid] = std::string(e.argName);
    else if (e.name == "thread_name" && !e.argName.empty())
        threadNames_[threadKey(e.pid, e.tid)] = std::string(e.argName);
}

void KinetoBuilder::memoryEvent(const JsonMemoryEvent& m) {
    auto& c = t_.memory;
    c.time.push_back(m.time);
    c.bytes.push_back(m.bytes);
    c.pool.push_back(m.pool);
    c.allocated.push_back(m.allocated);
    c.reserved.push_back(m.reserved);
    c.address.push_back(m.address);
    c.device.push_back(m.device);
    c.thread.push_back(thread(m.pid, m.tid));
}

// PyTorch's "[memory]" events (profile_memory=True): Device Type 1 is CUDA; 0 is the CPU.
void KinetoBuilder::kinetoMemory(const KinetoEvent& e) {
    if (!e.ts || absurd(*e.ts) || !e.memoryBytes) return void(++missingTime_);
    if (e.memoryDeviceType != 1 || e.memoryDevice < 0) return hostMemoryEvent();
    auto total = [](int64_t v) { return v < 0 ? kNoMemoryTotal : static_cast<uint64_t>(v); };
    memoryEvent({*e.ts, e.pid, e.tid, *e.memoryBytes, MemoryPool::Allocated,
                 total(e.totalAllocated), total(e.totalReserved),
                 e.address < 0 ? 0 : static_cast<uint64_t>(e.address),
                 static_cast<uint32_t>(e.memoryDevice)});
}

void KinetoBuilder::event(const KinetoEvent& e) {
    ++events_;
    if (e.ph == 'M') return metadata(e);
    if ((e.ph == 'i' || e.ph == 'I') && e.name == "[memory]") return kinetoMemory(e);
    if (e.ph == 'i' || e.ph == 'I') return skipped("i");
    const bool timed = e.ts.has_value() && (e.ph != 'X' || e.dur.has_value());
    if (timed && (absurd(*e.ts) || (e.ph == 'X' && (absurd(*e.dur) || absurd(*e.ts + *e.dur)))))
        return void(++missingTime_);
    if (e.ph == 's' || e.ph == 'f' || e.ph == 't') {
        if (e.cat != "ac2g" && e.cat != "fwdbwd")
            return count(unknown_, "flow " + std::string(e.cat));
        if (!timed || e.id < 0) return void(++missingTime_);
        return flow(e);
    }
    if (e.ph != 'X') return count(unknown_, "ph " + std::string(1, e.ph));
    const std::string_view cat = currentCategory(e.cat);
    auto known = [&](std::string_view c) { return cat == c; };
    const bool module = known("python_function") && e.name.starts_with("nn.Module: ");
    const bool used = known("kernel") || known("gpu_memcpy") || known("gpu_memset") ||
                      known("cuda_runtime") || known("cuda_driver") || known("cpu_op") ||
                      known("user_annotation") || module;
    if (used && !timed) return void(++missingTime_);
    if (used && *e.dur < 0) ++negativeDuration_; // kept, ending where it starts
    if (known("kernel")) {
        auto& k = t_.kernels;
        gpuOp(k, e);
        const StringId name = t_.strings.intern(e.name);
        k.name.push_back(name);
        auto [it, added] = baseNames_.try_emplace(name.value, StringId(0));
        if (added) it->second = t_.strings.intern(kernelBaseName(e.name));
        k.shortName.push_back(it->second);
        k.importGrid.push_back(e.grid);
        k.importBlock.push_back(e.block);
        k.registers.push_back(
            static_cast<uint16_t>(std::clamp<int64_t>(e.registers, 0, UINT16_MAX)));
        k.importStaticSmem.push_back(
            clampU32(e.sharedMemory)); // Kineto writes static + dynamic as one sum
        k.importDynamicSmem.push_back(0);
        k.importSmemConfig.push_back(0); // the carveout is not recorded
        if (e.inMsgNelems >= 0 || e.outMsgNelems >= 0) collectiveArgs(e);
        sealIfFull(k, kernelParts_);
    } else if (known("gpu_memcpy")) {
        gpuOp(t_.memcpys, e);
        t_.memcpys.bytes.push_back(static_cast<uint64_t>(std::max<int64_t>(0, e.bytes)));
        t_.memcpys.kind.push_back(copyKindOf(e.name));
        t_.memcpys.cuptiCopyKind.push_back(cuptiCopyKindOf(t_.memcpys.kind.back()));
        const auto [src, dst] = copyMemoryKindsOf(e.name); // named in the event's text only
        t_.memcpys.srcKind.push_back(src);
        t_.memcpys.dstKind.push_back(dst);
        sealIfFull(t_.memcpys, memcpyParts_);
    } else if (known("gpu_memset")) {
        gpuOp(t_.memsets, e);
        t_.memsets.bytes.push_back(static_cast<uint64_t>(std::max<int64_t>(0, e.bytes)));
        t_.memsets.value.push_back(0); // not recorded by Kineto
        t_.memsets.memKind.push_back(kNoCuptiValue);
        sealIfFull(t_.memsets, memsetParts_);
    } else if (known("cuda_runtime")) {
        apiCall(e, ApiKind::Runtime);
    } else if (known("cuda_driver")) {
        apiCall(e, ApiKind::Driver);
    } else if (known("cpu_op")) {
        range(e, kPytorchMarker);
    } else if (known("user_annotation")) {
        range(e, isFrameworkAnnotation(e.name) ? kPytorchMarker : 0);
    } else if (module) {
        range(e, kModuleScope);
    } else if (std::any_of(std::begin(kNotModelled), std::end(kNotModelled),
                           [&](const auto& m) { return m.first == cat; })) {
        skipped(cat);
    } else {
        count(unknown_, cat.empty() ? std::string_view("(no category)") : cat);
    }
}

void KinetoBuilder::scopeRange(const KinetoEvent& e, uint8_t flags) {
    ++events_;
    if (!e.ts || !e.dur || absurd(*e.ts) || absurd(*e.dur) || absurd(*e.ts + *e.dur))
        return void(++missingTime_);
    if (*e.dur < 0) ++negativeDuration_;
    range(e, flags);
}

void KinetoBuilder::member(std::string_view key, std::string_view json) {
    od::parser parser;
    od::document doc;
    if (parser.iterate(json.data(), json.size(), json.size() + simdjson::SIMDJSON_PADDING)
            .get(doc) != simdjson::SUCCESS)
        return;
    auto text = [](od::value v) {
        std::string s(v.raw_json_token());
        while (!s.empty() &&
               (s.back() == ' ' || s.back() == '\n' || s.back() == '\r' || s.back() == '\t'))
            s.pop_back();
        if (s.size() >= 2 && s.front() == '"') s = s.substr(1, s.size() - 2);
        return s;
    };
    if (key == "deviceProperties") {
        od::array a;
        if (doc.get_array().get(a) != simdjson::SUCCESS) return;
        for (auto element : a) {
            od::object o;
            if (element.get_object().get(o) != simdjson::SUCCESS) return;
            Device d;
            for (auto field : o) {
                od::raw_json_string k;
                od::value v;
                if (field.key().get(k) != simdjson::SUCCESS ||
                    field.value().get(v) != simdjson::SUCCESS)
                    return;
                int64_t n = 0;
                if (k == "id" && v.get_int64().get(n) == simdjson::SUCCESS)
                    d.id = clampU32(n);
                else if (k == "name")
                    d.name = text(v);
                else if (k == "numSms" && v.get_int64().get(n) == simdjson::SUCCESS)
                    d.smCount = clampU32(n);
                else if (k == "totalGlobalMem" && v.get_int64().get(n) == simdjson::SUCCESS)
                    d.memoryBytes = static_cast<uint64_t>(std::max<int64_t>(0, n));
                else if (k == "computeMajor" && v.get_int64().get(n) == simdjson::SUCCESS)
                    d.computeMajor = static_cast<int>(std::clamp<int64_t>(n, 0, 99));
                else if (k == "computeMinor" && v.get_int64().get(n) == simdjson::SUCCESS)
                    d.computeMinor = static_cast<int>(std::clamp<int64_t>(n, 0, 99));
            }
            devices_.push_back(std::move(d));
        }
        return;
    }
    if (key == "distributedInfo") {
        od::object o;
        if (doc.get_object().get(o) != simdjson::SUCCESS) return;
        for (auto field : o) {
            std::string_view k;
            od::value v;
            if (field.unescaped_key().get(k) != simdjson::SUCCESS ||
                field.value().get(v) != simdjson::SUCCESS)
                return;
            od::json_type type;
            if (v.type().get(type) != simdjson::SUCCESS || type == od::json_type::array ||
                type == od::json_type::object)
                continue;
            t_.info.metadata.emplace_back("distributedInfo." + std::string(k), text(v));
        }
        return;
    }
    if (json.empty() || json.front() == '[' || json.front() == '{') return;
    std::string value(json);
    if (value.size() >= 2 && value.front() == '"') value = value.substr(1, value.size() - 2);
    if (key == "schemaVersion") t_.info.schemaVersion = value;
    // ts values count from this UTC time (PyTorch 2.x): what aligns the ranks of one job.
    if (key == "baseTimeNanoseconds") {
        int64_t epoch = 0;
        const auto [end, ec] = std::from_chars(value.data(), value.data() + value.size(), epoch);
        if (ec == std::errc() && end == value.data() + value.size() && epoch > 0) {
            t_.info.epochNs = epoch;
            t_.info.epochKnown = true;
        }
    }
    t_.info.metadata.emplace_back(std::string(key), std::move(value));
}

// ac2g flows join a launch to its GPU work by correlation id: a flow with one end only is broken.
// fwdbwd flows are kept for the correlation step, which checks them against seq pairing.
void KinetoBuilder::checkFlows() {
    std::sort(ac2gStarts_.begin(), ac2gStarts_.end());
    std::sort(ac2gFinishes_.begin(), ac2gFinishes_.end());
    std::vector<int64_t> oneEnd;
    std::set_symmetric_difference(ac2gStarts_.begin(), ac2gStarts_.end(), ac2gFinishes_.begin(),
                                  ac2gFinishes_.end(), std::back_inserter(oneEnd));
    const uint64_t brokenLaunch = oneEnd.size();
    columns::release(ac2gStarts_);
    columns::release(ac2gFinishes_);
    // A start and a finish with one id make a flow; anything else with that id is broken.
    std::sort(fwdbwd_.begin(), fwdbwd_.end(), [](const FlowEnd& a, const FlowEnd& b) {
        return a.id != b.id ? a.id < b.id : a.start > b.start;
    });
    uint64_t brokenFwdBwd = 0;
    for (size_t i = 0; i < fwdbwd_.size();) {
        size_t j = i;
        while (j < fwdbwd_.size() && fwdbwd_[j].id == fwdbwd_[i].id) ++j;
        if (j - i == 2 && fwdbwd_[i].start && !fwdbwd_[i + 1].start)
            t_.fwdBwdFlows.push_back(
                {fwdbwd_[i].thread, fwdbwd_[i].ts, fwdbwd_[i + 1].thread, fwdbwd_[i + 1].ts});
        else
            brokenFwdBwd += j - i;
        i = j;
    }
    columns::release(fwdbwd_);
    std::sort(t_.fwdBwdFlows.begin(), t_.fwdBwdFlows.end(),
              [](const FwdBwdFlow& a, const FwdBwdFlow& b) { return a.fromTs < b.fromTs; });
    if (brokenLaunch)
        t_.report.add(Anomaly::BrokenFlow, brokenLaunch,
                      "ac2g (launch -> GPU): " + std::to_string(brokenLaunch) +
                          " with one end (Kineto also writes ends for calls without GPU work; "
                          "launches link by correlation id)");
    if (brokenFwdBwd)
        t_.report.add(Anomaly::BrokenFlow, brokenFwdBwd,
                      "fwdbwd (forward -> backward): " + std::to_string(brokenFwdBwd) +
                          " with one end");
}

// With CUDA_VISIBLE_DEVICES (or HIP_VISIBLE_DEVICES) set, deviceProperties numbers the visible GPUs
// from 0 while the GPU events carry the physical id (TraceLens's MI300X traces: properties id 0,
// events device 2). One described device and one other used id are the same GPU; anything less
// clear-cut is left as it is, the unknown id named "GPU n".
void KinetoBuilder::matchVisibleDevice() {
    if (devices_.size() != 1) return;
    std::vector<uint32_t> used;
    for (const GpuOpColumns* c : {static_cast<const GpuOpColumns*>(&t_.kernels),
                                  static_cast<const GpuOpColumns*>(&t_.memcpys),
                                  static_cast<const GpuOpColumns*>(&t_.memsets)})
        for (uint32_t d : c->importDevice) {
            if (std::find(used.begin(), used.end(), d) != used.end()) continue;
            used.push_back(d);
            if (used.size() > 1) return;
        }
    if (used.size() != 1 || used[0] == devices_[0].id) return;
    t_.info.metadata.emplace_back(
        "device_mapping", "deviceProperties id " + std::to_string(devices_[0].id) +
                              " is the GPU the events call device " + std::to_string(used[0]) +
                              " (one of each: visible-device numbering)");
    devices_[0].id = used[0];
}

template <typename Cols> void KinetoBuilder::sealIfFull(Cols& c, std::vector<Cols>& parts) {
    if (c.size() < kPartRows) return;
    parts.push_back(std::move(c));
    c = Cols{}; // grows by doubling again: the last part's unused half is at most its own size
}

void KinetoBuilder::joinParts() {
    auto join = [&](auto& c, auto& parts) {
        if (parts.empty()) return;
        parts.push_back(std::move(c));
        c = {};
        if constexpr (requires { c.setOrigin(TimeNs()); })
            c.setOrigin(timeOrigin_); // every part's times are offsets from it
        Column<int64_t> far;          // every part's far ends, in one list (ImportEndColumn)
        if constexpr (requires { c.importEnd.far; })
            for (auto& part : parts) {
                const auto offset = static_cast<uint32_t>(far.size());
                if (offset && !part.importEnd.far.empty()) // else no code of the part moves
                    for (auto& code : part.importEnd.code)
                        if (ImportEndColumn::isFar(code)) code += offset;
                far.insert(far.end(), part.importEnd.far.begin(), part.importEnd.far.end());
            }
        columns::concat(c, parts);
        if constexpr (requires { c.importEnd.far; }) c.importEnd.far = std::move(far);
        parts.clear();
    };
    join(t_.kernels, kernelParts_);
    join(t_.memcpys, memcpyParts_);
    join(t_.memsets, memsetParts_);
    join(t_.apiCalls, apiParts_);
    join(t_.ranges, rangeParts_);
}

void KinetoBuilder::finish(unsigned threads) {
    joinParts();
    for (auto& p : t_.processes)
        if (auto it = processNames_.find(p.pid); it != processNames_.end()) p.name = it->second;
    for (auto& th : t_.threads)
        if (auto it = threadNames_.find(threadKey(t_.processes[th.process.value].pid, th.tid));
            it != threadNames_.end())
            th.name = it->second;

    // GPU rows carry the device as pid; their process is the one whose call has their correlation
    // id.
    std::unordered_map<uint32_t, ProcessId> processOf;
    processOf.reserve(t_.apiCalls.size());
    for (size_t i = 0; i < t_.apiCalls.size(); ++i)
        processOf.try_emplace(t_.apiCalls.importCorrelation[i],
                              t_.threads[t_.apiCalls.importThread[i].value].process);
    const bool anyGpu = t_.kernels.size() + t_.memcpys.size() + t_.memsets.size() > 0;
    const ProcessId fallback = t_.processes.empty() && anyGpu ? process(0) : ProcessId(0);
    auto resolve = [&](GpuOpColumns& c) {
        for (size_t i = 0; i < c.size(); ++i) {
            auto it = processOf.find(c.correlation[i]);
            c.importProcess[i] = it != processOf.end() ? it->second : fallback;
        }
    };
    resolve(t_.kernels);
    resolve(t_.memcpys);
    resolve(t_.memsets);
    std::sort(t_.collectiveArgs.begin(), t_.collectiveArgs.end(),
              [](const auto& a, const auto& b) { return a.key() < b.key(); });
    checkFlows();

    for (const auto& [cat, n] : skipped_) {
        std::string_view why = cat;
        for (const auto& m : kNotModelled)
            if (m.first == cat) why = m.second;
        t_.report.add(Anomaly::NotModelledEvent, n, std::to_string(n) + " " + std::string(why));
    }
    for (const auto& [cat, n] : unknown_)
        t_.report.add(Anomaly::UnknownEventCategory, n, std::to_string(n) + " " + cat);
    if (malformed_)
        t_.report.add(Anomaly::MalformedEvent, malformed_,
                      std::to_string(malformed_) + " not valid JSON objects");
    if (negativeDuration_)
        t_.report.add(Anomaly::NegativeDuration, negativeDuration_, "trace events");
    if (missingTime_)
        t_.report.add(Anomaly::MalformedEvent, missingTime_,
                      std::to_string(missingTime_) + " without a usable ts or dur");
    if (t_.kernels.size() + t_.memcpys.size() + t_.memsets.size() + t_.apiCalls.size() == 0)
        t_.report.add(Anomaly::NoActivity, 1);

    matchVisibleDevice();
    ExportInfo info = std::move(t_.info);
    info.format = "PyTorch profiler (Kineto) JSON";
    assembleTrace(t_, AssemblyInput{{}, std::move(devices_), std::move(info), {}}, threads);
}

} // namespace ls
