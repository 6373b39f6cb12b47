// Fuzz target: the PyTorch emit_nvtx marker parser (core/import/common/pytorch_marker.h). The
// loader runs it on every NVTX range text of a trace, and those texts are whatever the profiled
// program pushed; the sizes it cuts out go on to parseShapes and the FLOP formulas.
#include "core/costs/op_costs.h"
#include "core/import/common/pytorch_marker.h"
#include "core/model/shapes.h"
#include "fuzz/fuzz_check.h"

#include <cstddef>
#include <cstdint>
#include <string_view>

namespace {

// A view the parser returns must lie inside the text it was given (they are not copies).
bool inside(std::string_view part, std::string_view whole) {
    return part.empty() || (part.data() >= whole.data() &&
                            part.data() + part.size() <= whole.data() + whole.size());
}

} // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
    const std::string_view text(reinterpret_cast<const char*>(data), size);
    const ls::MarkerFields f = ls::parseMarker(text);
    FUZZ_CHECK(inside(f.name, text) && inside(f.sizes, text));
    if (!f.isPytorchMarker) FUZZ_CHECK(f.name == text && f.seq == -1 && f.opId == -1);

    // The per-entry view of input_op_ids that the costs use.
    const auto repeated = ls::repeatedInputs(text);
    for (uint8_t r : repeated) FUZZ_CHECK(r <= 1);

    // What the loader and op_costs do with the sizes.
    for (std::string_view s : {f.sizes, text}) {
        const auto shapes = ls::parseShapes(s);
        if (!shapes) continue;
        for (const auto& shape : *shapes) (void)ls::numel(shape);
        (void)ls::broadcastShape(*shapes);
        (void)ls::opCost(f.name, *shapes, ls::DType::F16);
    }
    return 0;
}
