#include "core/views/pyprof_columns.h"

#include "core/import/common/pytorch_marker.h"
#include "core/import/common/raw_text.h"
#include "core/pytorch/correlation.h"
#include "core/pytorch/dict_context.h"

#include <unordered_map>

namespace ls {
namespace {

const std::vector<std::string_view> kColumns = {
    "idx",    "seq",    "altseq", "tid", "layer",  "trace",  "dir",  "sub",   "mod",   "op",
    "kernel", "params", "sil",    "tc",  "device", "stream", "grid", "block", "flops", "bytes"};

// "{'traceMarker': ['a.py:1', 'b.py:2']}" -> "a.py:1;b.py:2"
std::string traceOf(std::string_view raw) {
    const size_t open = raw.find('['), close = raw.rfind(']');
    if (open == std::string_view::npos || close == std::string_view::npos || close <= open)
        return {};
    // The user's frames only: PyProf leaves out the library's (site-packages).
    std::string out, frame;
    auto flush = [&] {
        if (!frame.empty() && frame.find("site-packages") == std::string::npos)
            out += (out.empty() ? "" : ";") + frame;
        frame.clear();
    };
    for (char c : raw.substr(open + 1, close - open - 1)) {
        if (c == '\'' || c == '"' || c == ' ') continue;
        if (c == ',')
            flush();
        else
            frame += c;
    }
    flush();
    return out;
}

} // namespace

const std::vector<std::string_view>& pyprofColumns() { return kColumns; }

PyprofTable::PyprofTable(const KernelTable& table) : table_(table) {
    const Trace& t = table.trace();
    sub_.assign(t.kernels.size(), 0);
    std::unordered_map<uint32_t, uint32_t>
        next; // op instance -> kernels seen (kernels are in start order)
    for (uint32_t k = 0; k < t.kernels.size(); ++k)
        if (const OpId op = t.kernelLinks.opInstance[k]; op.valid()) sub_[k] = next[op.value]++;
}

PyprofTable::~PyprofTable() = default;

// The innermost apex/pyprof dict marker ({'mod', 'op', 'args'}) and traceMarker on the
// kernel's NVTX stack; their texts are re-read from the file.
PyprofTable::DictContext PyprofTable::dictContext(KernelId k) const {
    DictContext c;
    const Trace& t = table_.trace();
    if (!raw_) raw_ = std::make_unique<RawTextReader>(t);
    RawTextReader& raw = *raw_;
    const std::vector<RangeId> stack = pyprofMarkerStack(t, k); // innermost first
    for (RangeId r : stack) {
        const std::string_view name = t.str(t.ranges.name[r.value]);
        if (name == "traceMarker") { // the innermost call site wins
            if (c.trace.empty()) c.trace = traceOf(raw.text(r, true));
            continue;
        }
        if (!isDictCall(t, r)) continue;
        // The outermost dict wins, as in PyProf: torch.nn.functional.embedding, not
        // torch.embedding.
        const auto dict = parseDictMarker(raw.text(r, true), false); // params need the shapes only
        if (!dict || dict->name == "traceMarker") continue;
        const size_t dot = dict->name.rfind('.');
        c.mod = dict->name.substr(0, dot);
        c.op = dict->name.substr(dot + 1);
        c.params = dict->sizes.empty()
                       ? std::string()
                       : "T=" + dict->sizes + (dict->dtype.empty() ? "" : "," + dict->dtype);
    }
    return c;
}

std::vector<std::string> PyprofTable::row(KernelId k,
                                          const std::vector<std::string_view>& columns) const {
    const Trace& t = table_.trace();
    const uint32_t i = k.value;
    const OpId op = t.kernelLinks.opInstance[i];
    std::optional<DictContext> dict;
    auto ctx = [&]() -> const DictContext& {
        if (!dict) dict = dictContext(k);
        return *dict;
    };
    std::vector<std::string> out;
    for (std::string_view c : columns) {
        if (c == "idx")
            out.push_back(std::to_string(i));
        else if (c == "seq")
            out.push_back(table_.text(k, KernelField::Seq));
        else if (c == "altseq") {
            // bprop kernels: the seq of the forward op they pair with.
            std::string alt;
            if (op.valid() && t.ops.direction[op.value] == Direction::Backward &&
                t.ops.paired[op.value].valid()) {
                const int32_t s = t.ranges.seq[t.ops.range[t.ops.paired[op.value].value].value];
                if (s >= 0) alt = std::to_string(s);
            }
            out.push_back(alt);
        } else if (c == "tid")
            out.push_back(table_.text(k, KernelField::Tid));
        else if (c == "layer")
            out.push_back(table_.text(k, KernelField::Layer));
        else if (c == "trace")
            out.push_back(ctx().trace);
        else if (c == "dir") {
            const Direction d = t.kernelLinks.direction[i];
            out.emplace_back(d == Direction::Forward    ? "fprop"
                             : d == Direction::Backward ? "bprop"
                                                        : "");
        } else if (c == "sub")
            out.push_back(op.valid() ? std::to_string(sub_[i]) : std::string());
        else if (c == "mod")
            out.push_back(ctx().mod.empty() ? std::string("na")
                                            : ctx().mod); // PyProf's word for none
        else if (c == "op")
            out.push_back(ctx().op.empty() ? table_.text(k, KernelField::Op) : ctx().op);
        else if (c == "kernel")
            out.push_back(table_.text(k, KernelField::ShortName));
        else if (c == "params")
            out.push_back(ctx().params.empty() ? table_.text(k, KernelField::Sizes) : ctx().params);
        else if (c == "sil")
            out.push_back(table_.text(k, KernelField::Duration));
        else if (c == "tc") {
            const TcState s = t.metrics.tc[i];
            out.emplace_back(s == TcState::Used ? "1" : s == TcState::NotUsed ? "0" : "-");
        } else if (c == "device")
            out.push_back(table_.text(k, KernelField::Device));
        else if (c == "stream")
            out.push_back(table_.text(k, KernelField::Stream));
        else if (c == "grid")
            out.push_back(table_.text(k, KernelField::Grid));
        else if (c == "block")
            out.push_back(table_.text(k, KernelField::Block));
        else if (c == "flops")
            out.push_back(table_.text(k, KernelField::Flops));
        else if (c == "bytes")
            out.push_back(table_.text(k, KernelField::Bytes));
        else
            out.emplace_back();
    }
    return out;
}

} // namespace ls
