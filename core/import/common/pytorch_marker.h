#pragma once
// Parses the NVTX text that torch.autograd.profiler.emit_nvtx writes, e.g.
//   "aten::addmm, seq = 5, op_id = 12, sizes = [[8, 768], [768, 3072]], input_op_ids = [(11,0)]"
//   "AddmmBackward0, seq = 5, op_id = 40"   (backward node)
//   "addmm, seq = 5" / "aten::mul, stashed seq = 7"  (older PyTorch)
// Texts without any of these fields are plain user ranges and keep their whole text as name.
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace ls {

struct MarkerFields {
    std::string_view name;  // normalized: the text before the first field
    std::string_view sizes; // "[[8, 768], [768, 3072]]" or empty
    int64_t seq = -1;
    int64_t opId = -1;
    bool seqIsStashed = false;
    bool isPytorchMarker = false;
    bool repeatedInput = false; // input_op_ids names one tensor twice (addcmul_(v, g, g))
};

MarkerFields parseMarker(std::string_view text);

// Per entry of the marker's input_op_ids: whether it is a tensor already listed before it (same
// producing op and output). Such an input is read from memory once. Empty without the field.
std::vector<uint8_t> repeatedInputs(std::string_view text);

// apex.pyprof / pyprof2 markers are Python dict strings:
//   {'mod': 'torch.nn.functional', 'op': 'linear', 'args': [{'name': '', 'type': 'tensor',
//    'shape': (32, 1024), 'dtype': 'float16'}, ...]}     -> name "torch.nn.functional.linear"
//   {'traceMarker': [...call stack...]}                  -> name "traceMarker"
struct DictArg {
    std::string name;           // keyword name; empty for a positional argument
    std::string type;           // "tensor", "float", "int", "bool", "NoneType", "tuple", "str", ...
    std::vector<int64_t> shape; // tensors only
    bool badShape = false;      // a shape was written but is not a tuple of sane sizes
    std::string dtype;          // tensors only, e.g. "float32"
    std::string value;          // non-tensors: the value's Python text, e.g. "-20", "2.0", "(200,)"
};
struct DictMarker {
    std::string name;          // "mod.op", or "traceMarker"
    std::string sizes;         // tensor shapes as emit_nvtx writes them: "[[32, 1024], [1024]]"
    std::string dtype;         // of the first tensor argument, e.g. "float16"
    bool isOp = false;         // a mod/op marker (traceMarker is not an op)
    std::vector<DictArg> args; // every argument in order, tensors and scalars
};
// withArgs = false skips `args` (the loader keeps only name, sizes and dtype).
std::optional<DictMarker> parseDictMarker(std::string_view text, bool withArgs = true);

} // namespace ls
