#include "core/costs/op_costs.h"

#include <algorithm>
#include <array>
#include <optional>

namespace ls {
namespace {

double dim(const Shape& s, int fromEnd) {
    return static_cast<double>(s[s.size() - static_cast<size_t>(fromEnd)]);
}
double product(const Shape& s, size_t first, size_t last) {
    double p = 1;
    for (size_t i = first; i < last && i < s.size(); ++i) p *= static_cast<double>(s[i]);
    return p;
}

// Tensors among the inputs: shapes that are not [] (a scalar or a non-tensor argument).
Shapes tensors(const Shapes& shapes) {
    Shapes out;
    for (const auto& s : shapes)
        if (!s.empty()) out.push_back(s);
    return out;
}

OpCost make(OpFamily family, double flops, double elementsMoved, int b, std::string_view rule) {
    return {flops, b > 0 ? elementsMoved * b : NAN, family, rule};
}

// --- GEMM ---------------------------------------------------------------------------------
std::optional<OpCost> gemm(std::string_view op, const Shapes& s, int b) {
    if (op == "mm" && s.size() >= 2 && s[0].size() == 2 && s[1].size() == 2) {
        const double m = dim(s[0], 2), k = dim(s[0], 1), n = dim(s[1], 1);
        return make(OpFamily::Gemm, 2 * m * n * k, m * k + k * n + m * n, b, "gemm: 2*M*N*K");
    }
    if (op == "addmm" && s.size() >= 3 && s[1].size() == 2 && s[2].size() == 2) {
        const double m = dim(s[1], 2), k = dim(s[1], 1), n = dim(s[2], 1);
        return make(OpFamily::Gemm, 2 * m * n * k, m * k + k * n + m * n + numel(s[0]), b,
                    "gemm: 2*M*N*K (bias add in the epilogue not counted)");
    }
    if ((op == "bmm" || op == "baddbmm") && s.size() >= 2) {
        const size_t a = op == "bmm" ? 0 : 1;
        if (s.size() < a + 2 || s[a].size() != 3 || s[a + 1].size() != 3) return std::nullopt;
        const double batch = dim(s[a], 3), m = dim(s[a], 2), k = dim(s[a], 1), n = dim(s[a + 1], 1);
        const double extra = op == "baddbmm" ? numel(s[0]) : 0;
        return make(OpFamily::Gemm, 2 * batch * m * n * k, batch * (m * k + k * n + m * n) + extra,
                    b, "batched gemm: 2*B*M*N*K");
    }
    if (op == "matmul" && s.size() >= 2 && !s[0].empty() && !s[1].empty()) {
        const Shape& x = s[0];
        const Shape& y = s[1];
        const double m = x.size() >= 2 ? dim(x, 2) : 1, k = dim(x, 1),
                     n = y.size() >= 2 ? dim(y, 1) : 1;
        Shape bx(x.begin(), x.end() - std::min<size_t>(2, x.size())),
            by(y.begin(), y.end() - std::min<size_t>(2, y.size()));
        const auto batchShape =
            broadcastShape({bx.empty() ? Shape{1} : bx, by.empty() ? Shape{1} : by});
        if (!batchShape) return std::nullopt;
        const double batch = numel(*batchShape);
        // Each input is read once even when broadcast over the batch; the output is batch*M*N.
        return make(OpFamily::Gemm, 2 * batch * m * n * k, numel(x) + numel(y) + batch * m * n, b,
                    "matmul: 2*batch*M*N*K");
    }
    if (op == "linear" && s.size() >= 2 && !s[0].empty() && s[1].size() == 2) {
        const double k = dim(s[0], 1), m = product(s[0], 0, s[0].size() - 1), n = dim(s[1], 2);
        const double bias = s.size() >= 3 ? numel(s[2]) : 0;
        return make(OpFamily::Gemm, 2 * m * n * k, m * k + n * k + m * n + bias, b,
                    "linear: 2*M*N*K");
    }
    return std::nullopt;
}

// --- attention ----------------------------------------------------------------------------
// q, k, v as [B, H, L, E] (scaled_dot_product_*) or [B, L, H, E] (_flash/_efficient_attention_*).
std::optional<OpCost> attention(std::string_view op, const Shapes& s, int b) {
    const bool known = op.find("scaled_dot_product") != std::string_view::npos ||
                       op.find("attention_forward") != std::string_view::npos ||
                       op.find("attention_backward") != std::string_view::npos;
    if (!known) return std::nullopt;
    const bool backward = op.find("backward") != std::string_view::npos;
    const size_t first = backward ? 1 : 0; // backward ops take grad_out first
    if (s.size() < first + 3) return std::nullopt;
    const Shape &q = s[first], &k = s[first + 1], &v = s[first + 2];
    if (q.size() != 4 || k.size() != 4 || v.size() != 4) return std::nullopt;
    const bool blhe = op == "_flash_attention_forward" || op == "_flash_attention_backward" ||
                      op == "_efficient_attention_forward" || op == "_efficient_attention_backward";
    const double batch = dim(q, 4), heads = blhe ? dim(q, 2) : dim(q, 3),
                 l = blhe ? dim(q, 3) : dim(q, 2);
    const double sk = blhe ? dim(k, 3) : dim(k, 2), e = dim(q, 1), ev = dim(v, 1);
    // Dense count, whatever the mask: QK^T and PV are 2*B*H*L*S*E each forward; backward has four
    // such products (dQ, dK, dV, dP). FlashAttention's recompute of QK^T is not counted.
    const double fwd = 2 * batch * heads * l * sk * (e + ev);
    const double qkv = numel(q) + numel(k) + numel(v), out = batch * heads * l * ev;
    if (backward)
        return make(OpFamily::Attention, 2 * fwd, 2 * qkv + 2 * out, b,
                    "attention backward: 8*B*H*L*S*E (dense, no recompute)");
    return make(OpFamily::Attention, fwd, qkv + out, b,
                "attention forward: 4*B*H*L*S*E (dense, mask not subtracted)");
}

// --- convolution --------------------------------------------------------------------------
std::optional<OpCost> convolution(std::string_view op, const Shapes& s, int b) {
    if (op == "convolution_backward" || op == "cudnn_convolution_backward") {
        if (s.size() < 3 || s[0].size() < 3 || s[0].size() != s[1].size() ||
            s[2].size() != s[0].size())
            return std::nullopt;
        const Shape &gout = s[0], &in = s[1], &w = s[2];
        // Each of dgrad and wgrad does the forward's 2*N*K*prod(out)*C/g*prod(kernel).
        const double pass = 2 * static_cast<double>(gout[0]) * static_cast<double>(w[0]) *
                            product(gout, 2, gout.size()) * static_cast<double>(w[1]) *
                            product(w, 2, w.size());
        return make(OpFamily::Conv, 2 * pass, 2 * numel(gout) + 2 * numel(in) + 2 * numel(w), b,
                    "convolution backward: dgrad + wgrad, 2*N*K*P*Q*(C/g)*R*S each");
    }
    static constexpr std::array<std::string_view, 7> forward = {
        "convolution", "_convolution", "cudnn_convolution", "conv1d",
        "conv2d",      "conv3d",       "_convolution_mode"};
    if (std::find(forward.begin(), forward.end(), op) != forward.end())
        return OpCost{NAN, NAN, OpFamily::Conv,
                      "convolution forward: emit_nvtx records no stride or padding, so the output "
                      "size is unknown"};
    return std::nullopt;
}

// --- per-element families -----------------------------------------------------------------
struct ElementRule {
    std::string_view op;
    OpFamily family;
    double flopsPerElement;
    bool readsInputs; // fill_/zero_ only write
};

constexpr ElementRule kElementRules[] = {
    // norms (per element of the input; affine parameters are negligible)
    {"native_layer_norm", OpFamily::Norm, 8, true},
    {"native_layer_norm_backward", OpFamily::Norm, 16, true},
    {"native_batch_norm", OpFamily::Norm, 8, true},
    {"cudnn_batch_norm", OpFamily::Norm, 8, true},
    {"native_batch_norm_backward", OpFamily::Norm, 16, true},
    {"cudnn_batch_norm_backward", OpFamily::Norm, 16, true},
    {"native_group_norm", OpFamily::Norm, 8, true},
    {"native_group_norm_backward", OpFamily::Norm, 16, true},
    // softmax: max, subtract, exp, sum, divide (log for log_softmax)
    {"_softmax", OpFamily::Softmax, 5, true},
    {"_log_softmax", OpFamily::Softmax, 5, true},
    {"_softmax_backward_data", OpFamily::Softmax, 4, true},
    {"_log_softmax_backward_data", OpFamily::Softmax, 4, true},
    // elementwise and activations
    {"add", OpFamily::Elementwise, 1, true},
    {"add_", OpFamily::Elementwise, 1, true},
    {"sub", OpFamily::Elementwise, 1, true},
    {"sub_", OpFamily::Elementwise, 1, true},
    {"rsub", OpFamily::Elementwise, 1, true},
    {"mul", OpFamily::Elementwise, 1, true},
    {"mul_", OpFamily::Elementwise, 1, true},
    {"div", OpFamily::Elementwise, 1, true},
    {"div_", OpFamily::Elementwise, 1, true},
    {"pow", OpFamily::Elementwise, 1, true},
    {"maximum", OpFamily::Elementwise, 1, true},
    {"minimum", OpFamily::Elementwise, 1, true},
    {"neg", OpFamily::Elementwise, 1, true},
    {"abs", OpFamily::Elementwise, 1, true},
    {"exp", OpFamily::Elementwise, 1, true},
    {"log", OpFamily::Elementwise, 1, true},
    {"sqrt", OpFamily::Elementwise, 1, true},
    {"rsqrt", OpFamily::Elementwise, 1, true},
    {"reciprocal", OpFamily::Elementwise, 1, true},
    {"clamp", OpFamily::Elementwise, 1, true},
    {"clamp_", OpFamily::Elementwise, 1, true},
    {"relu", OpFamily::Elementwise, 1, true},
    {"relu_", OpFamily::Elementwise, 1, true},
    {"threshold_backward", OpFamily::Elementwise, 1, true},
    {"gelu", OpFamily::Elementwise, 8, true},
    {"gelu_backward", OpFamily::Elementwise, 12, true},
    {"silu", OpFamily::Elementwise, 4, true},
    {"silu_", OpFamily::Elementwise, 4, true},
    {"silu_backward", OpFamily::Elementwise, 6, true},
    {"sigmoid", OpFamily::Elementwise, 4, true},
    {"sigmoid_backward", OpFamily::Elementwise, 2, true},
    {"tanh", OpFamily::Elementwise, 4, true},
    {"tanh_backward", OpFamily::Elementwise, 2, true},
    {"masked_fill", OpFamily::Elementwise, 1, true},
    {"masked_fill_", OpFamily::Elementwise, 1, true},
    {"where", OpFamily::Elementwise, 1, true},
    {"addcmul", OpFamily::Elementwise, 2, true},
    {"addcmul_", OpFamily::Elementwise, 2, true},
    {"addcdiv", OpFamily::Elementwise, 2, true},
    {"addcdiv_", OpFamily::Elementwise, 2, true},
    {"lerp", OpFamily::Elementwise, 2, true},
    {"lerp_", OpFamily::Elementwise, 2, true},
    {"fill_", OpFamily::Elementwise, 0, false},
    {"zero_", OpFamily::Elementwise, 0, false},
    {"triu", OpFamily::Elementwise, 0, true},
    {"tril", OpFamily::Elementwise, 0, true},
    // copies and casts
    {"copy_", OpFamily::Copy, 0, true},
    {"to", OpFamily::Copy, 0, true},
    {"_to_copy", OpFamily::Copy, 0, true},
    {"clone", OpFamily::Copy, 0, true},
    {"contiguous", OpFamily::Copy, 0, true},
};

constexpr std::string_view kReductions[] = {
    "sum", "mean", "amax",   "amin",   "max",       "min", "prod", "norm", "linalg_vector_norm",
    "var", "std",  "argmax", "argmin", "logsumexp", "any", "all"};

// Dropout moves a one-byte mask besides its data: forward writes it, backward reads it.
std::optional<OpCost> dropout(std::string_view op, const Shapes& s, int b) {
    const bool forward = op == "native_dropout" || op == "_fused_dropout";
    if (!forward && op != "native_dropout_backward" && op != "_masked_scale") return std::nullopt;
    const Shapes t = tensors(s);
    if (t.empty())
        return OpCost{NAN, NAN, OpFamily::Elementwise, "dropout: no tensor shapes recorded"};
    const double n = numel(t[0]);
    constexpr double kMaskBytes = 1; // bool
    if (forward)
        return OpCost{2 * n, b > 0 ? 2 * n * b + n * kMaskBytes : NAN, OpFamily::Elementwise,
                      "dropout: compare + scale per element (random numbers not counted); input "
                      "read, output and mask written"};
    return OpCost{
        2 * n, b > 0 ? 2 * n * b + n * kMaskBytes : NAN, OpFamily::Elementwise,
        "dropout backward: grad*mask*scale per element; grad and mask read, output written"};
}

std::optional<OpCost> perElement(std::string_view op, const Shapes& s, int b) {
    if (auto c = dropout(op, s, b)) return c;
    const Shapes t = tensors(s);
    for (const auto& r : kElementRules) {
        if (r.op != op) continue;
        if (t.empty()) return OpCost{NAN, NAN, r.family, "elementwise: no tensor shapes recorded"};
        // Norms and softmax: the first tensor is the data; others are parameters or statistics.
        const bool dataFirst = r.family == OpFamily::Norm || r.family == OpFamily::Softmax;
        double outElements = numel(t[0]), readElements = 0;
        if (!dataFirst && r.family != OpFamily::Copy) {
            const auto out = broadcastShape(t);
            if (!out) return std::nullopt;
            outElements = numel(*out);
        }
        if (r.readsInputs)
            for (const auto& x : t) readElements += numel(x);
        if (r.family == OpFamily::Copy && op == "copy_")
            readElements = numel(t.back()); // copy_(self, src): src is read
        const std::string_view rule =
            r.family == OpFamily::Norm      ? "normalization: per-element cost x elements"
            : r.family == OpFamily::Softmax ? "softmax: per-element cost x elements"
            : r.family == OpFamily::Copy    ? "copy/cast: elements read + written"
                                            : "elementwise: per-element cost x output elements";
        return make(r.family, r.flopsPerElement * outElements, readElements + outElements, b, rule);
    }
    if (std::find(std::begin(kReductions), std::end(kReductions), op) != std::end(kReductions)) {
        if (t.empty())
            return OpCost{NAN, NAN, OpFamily::Reduction, "reduction: no tensor shapes recorded"};
        const double n = numel(t[0]);
        if (op == "norm" ||
            op == "linalg_vector_norm") // emit_nvtx records no dims: taken as a full reduction
            return make(OpFamily::Reduction, 2 * n + 1, n, b,
                        "norm: square and add per element, one root; bytes count the input");
        const double per = op == "var" || op == "std" ? 2 : 1;
        return make(OpFamily::Reduction, per * n, n, b,
                    "reduction: one op per input element; bytes count the input");
    }
    return std::nullopt;
}

// --- embedding, losses, optimizers ----------------------------------------------------------
std::optional<OpCost> special(std::string_view op, const Shapes& s, int b) {
    constexpr double kIndexBytes = 8; // int64 indices
    if ((op == "embedding" || op == "index_select") && s.size() >= 2 && s[0].size() == 2) {
        const Shape& idx = op == "embedding" ? s[1] : s.back();
        const double rows = numel(idx), width = dim(s[0], 1);
        return OpCost{0, b > 0 ? rows * kIndexBytes + 2 * rows * width * b : NAN,
                      OpFamily::Embedding, "embedding: rows gathered (read + written) + indices"};
    }
    if (op == "gather" && !tensors(s).empty()) {
        const double n = numel(tensors(s).back());
        return OpCost{0, b > 0 ? n * kIndexBytes + 2 * n * b : NAN, OpFamily::Embedding,
                      "gather: elements gathered (read + written) + indices"};
    }
    if (op == "embedding_dense_backward" && s.size() >= 2 && !s[0].empty()) {
        const double n = numel(s[0]);
        return OpCost{n, b > 0 ? 2 * n * b + numel(s[1]) * kIndexBytes : NAN, OpFamily::Embedding,
                      "embedding backward: one add per gradient element"};
    }
    if (op == "nll_loss_forward" && s.size() >= 2 && !s[1].empty()) {
        const double n = numel(s[1]);
        return OpCost{n, b > 0 ? n * (b + kIndexBytes) : NAN, OpFamily::Loss,
                      "nll_loss: one add per sample; reads one logit per sample"};
    }
    if (op == "nll_loss_backward" && s.size() >= 3 && !s[1].empty()) {
        const double n = numel(s[2]);
        return OpCost{n, b > 0 ? n * (b + kIndexBytes) : NAN, OpFamily::Loss,
                      "nll_loss backward: one gradient per sample written (the zero fill of the "
                      "rest is aten::zero_'s kernel)"};
    }
    if (op.substr(0, 9) == "_foreach_" || op.find("_fused_adam") != std::string_view::npos ||
        op == "_amp_foreach_non_finite_check_and_unscale_") {
        // emit_nvtx flattens every tensor list into sizes: [p1, p2, .., p1, p2, ..]. The shortest
        // period of the shape sequence is one list; T counts its elements.
        const Shapes t = tensors(s);
        if (t.empty())
            return OpCost{NAN, NAN, OpFamily::Optimizer,
                          "optimizer: tensor list shapes not recorded"};
        size_t period = t.size();
        for (size_t p = 1; p < t.size(); ++p) {
            if (t.size() % p) continue;
            bool repeats = true;
            for (size_t i = p; i < t.size() && repeats; ++i) repeats = t[i] == t[i - p];
            if (repeats) {
                period = p;
                break;
            }
        }
        double n = 0;
        for (size_t i = 0; i < period; ++i) n += numel(t[i]);
        const double lists = static_cast<double>(
            t.size() / period); // NOLINT(bugprone-integer-division): whole lists
        const bool adam = op.find("_fused_adam") != std::string_view::npos;
        const bool ternary = op.find("addcmul") != std::string_view::npos ||
                             op.find("addcdiv") != std::string_view::npos ||
                             op.find("lerp") != std::string_view::npos;
        if (adam)
            return make(OpFamily::Optimizer, 12 * n, 7 * n, b,
                        "fused Adam: 12 FLOPs per parameter; 4 tensors read, 3 written");
        // Each list read once, the updated (first) list written once.
        return make(
            OpFamily::Optimizer, (ternary ? 2 : 1) * n, (lists + 1) * n, b,
            "foreach: per-element cost x elements of one list; every list read, one written");
    }
    return std::nullopt;
}

} // namespace

std::optional<OpCost> opCost(std::string_view name, const Shapes& shapes, DType dtype) {
    // PaddlePaddle's eager ops and their compute phase: "matmul dygraph", "matmul compute".
    for (std::string_view paddle : {" dygraph", " compute"})
        if (name.ends_with(paddle)) name.remove_suffix(paddle.size());
    if (name.substr(0, 6) == "aten::")
        name.remove_prefix(6);
    else if (const auto dot = name.rfind('.'); dot != std::string_view::npos)
        name.remove_prefix(dot + 1); // torch.nn.functional.linear
    const int b = dtypeBytes(dtype);
    if (auto c = gemm(name, shapes, b)) return c;
    if (auto c = attention(name, shapes, b)) return c;
    if (auto c = convolution(name, shapes, b)) return c;
    if (auto c = perElement(name, shapes, b)) return c;
    return special(name, shapes, b);
}

bool isMathKernelName(std::string_view k) {
    constexpr std::string_view patterns[] = {"gemm",  "nvjet", "cutlass",   "xmma",     "sdpa",
                                             "flash", "fmha",  "attention", "convolve", "winograd",
                                             "dgrad", "wgrad", "fprop",     "bprop",    "gemv"};
    // Helpers of math libraries that do no GEMM math themselves.
    constexpr std::string_view helpers[] = {"dot_do_o",       "convert_dq",   "splitkv_combine",
                                            "computeOffsets", "splitKreduce", "fbgemm"};
    const auto has = [&](std::string_view p) { return k.find(p) != std::string_view::npos; };
    return std::any_of(std::begin(patterns), std::end(patterns), has) &&
           std::none_of(std::begin(helpers), std::end(helpers), has);
}

} // namespace ls
