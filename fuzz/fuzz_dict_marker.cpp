// Fuzz target: apex/pyprof dict markers (ls::parseDictMarker) and what is built on them: the
// mapping of the dict call's arguments onto its inner aten op (core/pytorch/dict_op_shapes.h)
// and that op's FLOP formula. Old nvprof traces carry these Python dict strings as NVTX texts.
#include "core/costs/op_costs.h"
#include "core/import/common/pytorch_marker.h"
#include "core/model/dtype.h"
#include "core/model/shapes.h"
#include "core/pytorch/dict_op_shapes.h"
#include "fuzz/fuzz_check.h"

#include <cstddef>
#include <cstdint>
#include <string_view>

namespace {

// Inner op names the mapping knows (docs/flops.md), and one it does not.
constexpr std::string_view kInnerOps[] = {"aten::addmm",
                                          "mm",
                                          "matmul",
                                          "linear",
                                          "bmm",
                                          "add",
                                          "add_",
                                          "sum",
                                          "_fused_dropout",
                                          "native_dropout",
                                          "_masked_scale",
                                          "native_layer_norm",
                                          "native_layer_norm_backward",
                                          "cudnn_batch_norm",
                                          "_softmax",
                                          "_log_softmax_backward_data",
                                          "nll_loss_forward",
                                          "nll_loss_backward",
                                          "embedding",
                                          "embedding_dense_backward",
                                          "threshold_backward",
                                          "mul",
                                          "div",
                                          "contiguous",
                                          "softmax",
                                          "dropout",
                                          "unknown_op"};

void priced(const ls::InferredOp& op) { (void)ls::opCost(op.name, op.shapes, op.dtype); }

} // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
    const std::string_view text(reinterpret_cast<const char*>(data), size);
    const auto full = ls::parseDictMarker(text, true);
    const auto lite = ls::parseDictMarker(text, false);
    // The loader's cheap pass (no args) must agree with the full parse on everything else.
    FUZZ_CHECK(full.has_value() == lite.has_value());
    if (!full) return 0;
    FUZZ_CHECK(full->name == lite->name && full->sizes == lite->sizes &&
               full->dtype == lite->dtype && full->isOp == lite->isOp && lite->args.empty());
    if (!full->sizes.empty()) (void)ls::parseShapes(full->sizes);
    (void)ls::dtypeFromName(full->dtype);
    for (const auto& a : full->args) (void)ls::dtypeFromName(a.dtype);

    for (std::string_view inner : kInnerOps) {
        if (const auto op = ls::inferInnerOp(*full, inner)) priced(*op);
        // Calls with several ops of one name (multi_head_attention_forward) also take the site.
        for (uint32_t count = 1; count <= 3; ++count)
            for (uint32_t ordinal = 0; ordinal < count; ++ordinal) {
                const ls::InnerSite site{inner, ordinal, count};
                if (const auto op = ls::inferInnerOp(*full, inner, &site)) priced(*op);
            }
    }
    return 0;
}
