#include "core/pytorch/dict_op_shapes.h"

#include <algorithm>
#include <charconv>
#include <initializer_list>

namespace ls {
namespace {

bool isFloating(DType d) {
    return d == DType::F64 || d == DType::F32 || d == DType::TF32 || d == DType::F16 ||
           d == DType::BF16 || d == DType::FP8;
}

bool oneOf(std::string_view s, std::initializer_list<std::string_view> names) {
    return std::find(names.begin(), names.end(), s) != names.end();
}

// "__iadd__" -> "add", "add_" -> "add", "__truediv__" -> "div": the math, whatever the spelling.
std::string_view baseName(std::string_view op) {
    if (op.size() > 4 && op.substr(0, 2) == "__" && op.substr(op.size() - 2) == "__") {
        op = op.substr(2, op.size() - 4);
        if (op.size() > 1 && (op[0] == 'i' || op[0] == 'r') &&
            !oneOf(op, {"invert", "rshift", "round"}))
            op.remove_prefix(1);
        if (op == "truediv") return "div";
    }
    if (op.size() > 1 && op.back() == '_') op.remove_suffix(1);
    return op;
}

// A numeric argument other than 1: the alpha of add(a, alpha, b) in PyTorch 1.x's spelling.
bool hasScalingFactor(const DictMarker& d) {
    for (const auto& a : d.args) {
        if (a.type != "int" && a.type != "float") continue;
        double v = 1;
        const auto [ptr, ec] = std::from_chars(a.value.data(), a.value.data() + a.value.size(), v);
        if (ec == std::errc() && v != 1) return true;
    }
    return false;
}

Shape withLast(Shape s, int64_t last) {
    if (s.empty()) return s;
    s.back() = last;
    return s;
}

DictArg tensorArg(Shape shape, const std::string& dtype) {
    DictArg a;
    a.type = "tensor";
    a.shape = std::move(shape);
    a.dtype = dtype;
    return a;
}

// PyTorch 1.x's F.multi_head_attention_forward(query, key, value, embed_dim, num_heads,
// in_proj_weight, in_proj_bias, bias_k, bias_v, add_zero_attn, dropout_p, out_proj_weight,
// out_proj_bias, training, key_padding_mask, need_weights, attn_mask) on self-attention (one
// input projection: two GEMMs in all). Each inner op, found by its name and index, becomes the
// call it makes on [L, N, E] inputs with B = N x heads, d = E / heads:
//   mm #0 in-projection [L*N, E] x [E, 3E], add_ #0 its bias, mul the query scaling,
//   contiguous the head reshapes, bmm #0 Q K^T [B, L, d] x [B, d, S], add_ #1 the attention mask,
//   softmax and dropout on [B, L, S], bmm #1 [B, L, S] x [B, S, d], mm #1 the output projection
//   [L*N, E] x [E, E], add_ #2 its bias, sum and div averaging the weights over heads.
std::optional<InferredOp> multiHeadAttention(const DictMarker& dict, std::string_view inner,
                                             const InnerSite& site) {
    const auto& a = dict.args;
    if (a.size() < 13 || a[0].shape.size() != 3 || a[1].shape.size() != 3 ||
        a[0].shape != a[2].shape || a[1].shape != a[2].shape)
        return std::nullopt;
    // bias_k/bias_v or add_zero_attn lengthen the keys by one: not this layout.
    if (a[7].type != "NoneType" || a[8].type != "NoneType" || a[9].value != "False")
        return std::nullopt;
    int64_t heads = 0;
    std::from_chars(a[4].value.data(), a[4].value.data() + a[4].value.size(), heads);
    const int64_t l = a[0].shape[0], n = a[0].shape[1], e = a[0].shape[2], s = a[1].shape[0];
    if (heads <= 0 || heads > (1 << 20) || e % heads != 0) return std::nullopt;
    const int64_t b = n * heads, d = e / heads;
    const bool mask = a.size() > 16 && a[16].type == "tensor";
    const std::string& dtype = a[0].dtype;
    DictMarker call;
    call.isOp = true;
    auto as = [&](std::string name, std::initializer_list<Shape> shapes) {
        call.name = std::move(name);
        for (const auto& sh : shapes) call.args.push_back(tensorArg(sh, dtype));
    };
    const std::string_view f = site.name;
    if (f == "mm" || f == "matmul") {
        if (site.count != 2) return std::nullopt; // separate q/k/v projections: not this layout
        as("linear", {{l, n, e}, {site.ordinal == 0 ? 3 * e : e, e}});
    } else if (f == "bmm") {
        if (site.count != 2) return std::nullopt;
        if (site.ordinal == 0)
            as("bmm", {{b, l, d}, {b, d, s}});
        else
            as("bmm", {{b, l, s}, {b, s, d}});
    } else if (f == "add_") {
        if (site.count != (mask ? 3u : 2u)) return std::nullopt;
        if (site.ordinal == 0)
            as("add_", {{l, n, 3 * e}, {3 * e}});
        else if (mask && site.ordinal == 1)
            as("add_", {{b, l, s}, {l, s}});
        else
            as("add_", {{l, n, e}, {e}});
    } else if (f == "mul") {
        as("mul", {{l, n, e}});
    } else if (f == "contiguous") {
        as("contiguous", {{site.ordinal + 1 == site.count ? l : s, n, e}});
    } else if (f == "softmax" || f == "_softmax") {
        as("softmax", {{b, l, s}});
    } else if (f == "dropout" || f == "_fused_dropout") {
        as("dropout", {{b, l, s}});
    } else if (f == "sum") {
        as("sum", {{n, heads, l, s}});
    } else if (f == "div") {
        as("div", {{n, l, s}});
    } else {
        return std::nullopt;
    }
    return inferInnerOp(call, inner);
}

} // namespace

std::optional<InferredOp> inferInnerOp(const DictMarker& dict, std::string_view inner,
                                       const InnerSite* site) {
    if (!dict.isOp) return std::nullopt;
    if (inner.substr(0, 6) == "aten::") inner.remove_prefix(6);
    std::string_view op = dict.name;
    if (const size_t dot = op.rfind('.'); dot != std::string_view::npos) op.remove_prefix(dot + 1);

    InferredOp out;
    Shapes t;        // tensor arguments in order
    Shapes floating; // the floating-point ones
    Shapes integral; // indices and targets
    for (const auto& a : dict.args) {
        if (a.type != "tensor") continue;
        if (a.badShape) return std::nullopt;
        t.push_back(a.shape);
        const DType d = dtypeFromName(a.dtype);
        if (isFloating(d)) {
            floating.push_back(a.shape);
            if (out.dtype == DType::Unknown) out.dtype = d;
        } else {
            integral.push_back(a.shape);
        }
    }
    if (out.dtype == DType::Unknown && !dict.args.empty()) out.dtype = dtypeFromName(dict.dtype);
    auto result = [&](std::string_view name, Shapes shapes) -> std::optional<InferredOp> {
        out.name = std::string(name);
        out.shapes = std::move(shapes);
        return out;
    };

    if (op == "multi_head_attention_forward")
        return site ? multiHeadAttention(dict, inner, *site) : std::nullopt;
    if (op == "linear") { // x [..., K], weight [N, K], bias [N]
        if (t.size() < 2 || t[0].empty() || t[1].size() != 2) return std::nullopt;
        const Shape& x = t[0];
        const int64_t k = x.back(), n = t[1][0];
        int64_t m = 1;
        for (size_t i = 0; i + 1 < x.size(); ++i) {
            if (x[i] != 0 && m > (int64_t(1) << 53) / x[i])
                return std::nullopt; // no shape is that large
            m *= x[i];
        }
        const bool bias = t.size() >= 3 && t[2].size() == 1;
        // Forward GEMM, dgrad and wgrad each multiply the same three extents.
        if (inner == "addmm" && bias) return result("addmm", {t[2], {m, k}, {k, n}});
        if (oneOf(inner, {"mm", "matmul", "addmm", "linear", "bmm"}))
            return result("mm", {{m, k}, {k, n}});
        if (bias && oneOf(inner, {"add", "add_"})) return result("add_", {withLast(x, n), t[2]});
        if (inner == "sum") return result("sum", {withLast(x, n)}); // the bias gradient
        return std::nullopt;
    }
    if (oneOf(op, {"matmul", "mm", "bmm", "__matmul__"})) {
        if (t.size() < 2 || !oneOf(inner, {"mm", "bmm", "matmul"})) return std::nullopt;
        return result("matmul", {t[0], t[1]});
    }
    if (oneOf(op, {"dropout", "dropout2d", "dropout3d", "alpha_dropout"})) {
        if (t.empty()) return std::nullopt;
        if (oneOf(inner, {"_fused_dropout", "native_dropout", "dropout", "bernoulli_"}))
            return result("native_dropout", {t[0]});
        if (oneOf(inner, {"_masked_scale", "native_dropout_backward"}))
            return result("native_dropout_backward", {t[0], t[0]});
        return std::nullopt;
    }
    if (op == "layer_norm" || op == "batch_norm" || op == "group_norm") {
        if (t.empty()) return std::nullopt;
        const std::string native = "native_" + std::string(op);
        if (oneOf(inner, {op, std::string_view(native), "cudnn_batch_norm"})) {
            Shapes s = {t[0]};
            for (size_t i = 1; i < floating.size(); ++i)
                s.push_back(floating[i]); // weight, bias, running stats
            return result(native, s);
        }
        if (inner == native + "_backward" || inner == "cudnn_batch_norm_backward")
            return result(native + "_backward", {t[0], t[0]});
        return std::nullopt;
    }
    const bool crossEntropy = op == "cross_entropy";
    if (op == "softmax" || op == "log_softmax" || crossEntropy) {
        if (t.empty()) return std::nullopt;
        if (oneOf(inner, {"_softmax", "softmax", "_log_softmax", "log_softmax"}))
            return result(inner.find("log") != std::string_view::npos ? "_log_softmax" : "_softmax",
                          {t[0]});
        if (oneOf(inner, {"_softmax_backward_data", "_log_softmax_backward_data"}))
            return result(inner, {t[0], t[0]});
        if (!crossEntropy) return std::nullopt;
    }
    if (crossEntropy || op == "nll_loss") { // logits [N, C], target [N]
        if (t.size() < 2) return std::nullopt;
        if (oneOf(inner, {"nll_loss", "nll_loss_forward", "nll_loss2d_forward"}))
            return result("nll_loss_forward", {t[0], t[1]});
        if (oneOf(inner, {"nll_loss_backward", "nll_loss2d_backward"}))
            return result("nll_loss_backward", {{}, t[0], t[1]});
        return std::nullopt;
    }
    if (op == "embedding") { // F.embedding(indices, weight) and torch.embedding(weight, indices)
        if (floating.empty() || integral.empty() || floating[0].size() != 2) return std::nullopt;
        const Shape& weight = floating[0];
        const Shape& indices = integral[0];
        if (oneOf(inner, {"embedding", "index_select"}))
            return result("embedding", {weight, indices});
        if (oneOf(inner, {"embedding_backward", "embedding_dense_backward"})) {
            Shape grad = indices;
            grad.push_back(weight[1]);
            return result("embedding_dense_backward", {grad, indices});
        }
        return std::nullopt;
    }
    if (op == "relu" && inner == "threshold_backward" && !t.empty())
        return result("threshold_backward", {t[0], t[0]});

    // The call is the op itself (Tensor.norm -> norm, Tensor.__iadd__ -> add_, Tensor.mul_ -> mul,
    // which MulBackward0 also runs): its tensors are the op's inputs.
    if (baseName(inner) != baseName(op)) return std::nullopt;
    if (t.empty()) return std::nullopt;
    out.alpha = oneOf(baseName(op), {"add", "sub"}) && t.size() >= 2 && hasScalingFactor(dict);
    return result(inner, t);
}

} // namespace ls
