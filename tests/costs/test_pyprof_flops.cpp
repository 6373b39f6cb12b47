// FLOPs and bytes on the apex/pyprof LSTM example against PyProf's own numbers for it
// (pyprof_lstm_v100.prof.csv). The shapes come from the apex dict markers; every kernel either
// equals PyProf or is listed below under the reason it differs. Where PyProf has a formula the
// reason checks the exact relation between the two numbers; where it prints 0 for want of one,
// our values are checked against hand computations after the list.
#include "tests/support/cli_table.h"
#include "tests/support/test_support.h"

#include <cmath>
#include <functional>
#include <gtest/gtest.h>
#include <map>
#include <set>
#include <utility>

namespace {

using namespace ls::test;

const fs::path kTrace = thirdPartyTrace("pyprof_lstm_v100.nvprof.sql");
const fs::path kProf = sharedDir() / "traces" / "third-party" / "pyprof_lstm_v100.prof.csv";

constexpr double kF32 = 4;

struct Kernel {
    size_t idx;
    std::string name, op, dir;
    double refFlops, refBytes;
    std::optional<double> flops, bytes; // ours; nullopt: an empty cell (unknown)
};

bool near(double a, double b, double slack = 0.5) {
    return std::fabs(a - b) <= slack + 1e-9 * std::fabs(b);
}

struct Reason {
    std::string why;
    std::set<size_t> kernels;                 // the kernels it explains, listed
    std::function<bool(const Kernel&)> holds; // the exact relation between ours and PyProf's
};

// Our per-kernel numbers for one op's kernels split by duration: check the sum.
double sumOf(const std::vector<Kernel>& ks, std::initializer_list<size_t> idx, bool flops) {
    double s = 0;
    for (size_t i : idx) s += (flops ? ks[i].flops : ks[i].bytes).value_or(NAN);
    return s;
}

TEST(PyprofFlops, EqualToPyProfOrAListedDifference) {
    LS_REQUIRE_FILE(kTrace);
    LS_REQUIRE_FILE(kProf);
    const auto ours =
        cliTable({"kernels", kTrace.string(), "--pyprof", "-c", "kernel,op,dir,flops,bytes"});
    const auto ref =
        parseCsv(readFile(kProf)); // Kernel, Module, Op, Direction, Sil(ns), TC, FLOPs, Bytes, ...
    ASSERT_EQ(ours.rows.size() + 1, ref.size());
    std::vector<Kernel> ks;
    for (size_t i = 0; i < ours.rows.size(); ++i) {
        const auto& r = ref[i + 1];
        Kernel k{i, r[0], r[2], r[3], std::stod(r[6]), std::stod(r[7]), std::nullopt, std::nullopt};
        if (!ours.at(i, "flops").empty()) k.flops = std::stod(ours.at(i, "flops"));
        if (!ours.at(i, "bytes").empty()) k.bytes = std::stod(ours.at(i, "bytes"));
        ASSERT_EQ(ours.at(i, "kernel"), k.name) << i;
        ks.push_back(k);
    }
    const size_t n = 35 * 20 * 200; // the model's activations: seq 35 x batch 20 x d_model 200
    const double linearGemm[][3] = {{700, 200, 200}, {700, 33278, 200}}; // M rows, N out, K in

    const std::vector<Reason> reasons = {
        {"PyProf's pointwise FLOPs are half the elements it moves ((a+b+out)/2); an add is one "
         "FLOP per output element, and "
         "add_(p, alpha, g) is a multiply and an add. Bytes agree.",
         {3, 27, 37, 144, 145, 146, 147, 148, 149, 150, 151, 152, 153, 154, 155, 156, 157, 158,
          159},
         [&](const Kernel& k) {
             const double moved = k.refBytes / kF32;
             if (!k.flops || !k.bytes || !near(k.refFlops, moved / 2) ||
                 !near(*k.bytes, k.refBytes))
                 return false;
             if (k.op == "add_")
                 return near(*k.flops, 2 * moved / 3); // same shapes: moved = 3 x elements
             return near(*k.flops, n);                 // __add__: 35x20x200 outputs
         }},
        {"PyProf's Linear bytes formula has an operator-precedence bug: m*n + m*k + n*k*size "
         "instead of (m*n + m*k + n*k)*size "
         "(its m is the output features, n the rows). FLOPs agree (2MNK, for the forward GEMM and "
         "for each of dgrad and wgrad).",
         {30, 34, 40, 51, 52, 63, 64, 70, 71},
         [&](const Kernel& k) {
             for (const auto& g : linearGemm) {
                 const double m = g[0], nOut = g[1], kIn = g[2];
                 if (k.flops && k.bytes && near(*k.flops, 2 * m * nOut * kIn) &&
                     near(k.refFlops, *k.flops) &&
                     near(k.refBytes, nOut * m + nOut * kIn + m * kIn * kF32) &&
                     near(*k.bytes, (m * nOut + m * kIn + nOut * kIn) * kF32))
                     return true;
             }
             return false;
         }},
        {"The bias add of linear also reads the bias vector (N elements); PyProf counts only the M "
         "x N read and write. FLOPs agree.",
         {31, 35, 41},
         [&](const Kernel& k) {
             const double nOut = k.refFlops / 700; // M = 700 rows
             return k.flops && k.bytes && near(*k.flops, k.refFlops) &&
                    near(*k.bytes - k.refBytes, nOut * kF32);
         }},
        {"Dropout: PyProf estimates 5 FLOPs per element for the RNG and leaves out the one-byte "
         "mask, in both directions; we count "
         "the compare and the scale (2 per element) and the mask written forward, read backward.",
         {4, 26, 33, 36, 60, 66, 80, 103},
         [&](const Kernel& k) {
             return k.flops && k.bytes && near(k.refFlops, 5.0 * n) &&
                    near(k.refBytes, 2.0 * n * kF32) && near(*k.flops, 2.0 * n) &&
                    near(*k.bytes, 2.0 * n * kF32 + n);
         }},
        {"log_softmax: PyProf's FLOPs are commented out (0) and its bytes are 3x (forward) and 5x "
         "(backward) the tensor, marked "
         "'verify'; we count 5 FLOPs per element forward and 4 backward, and read + write (+ the "
         "output read backward) once.",
         {42, 48},
         [&](const Kernel& k) {
             const double v = 35.0 * 20 * 33278;
             if (!k.flops || !k.bytes || k.refFlops != 0) return false;
             if (k.dir == "fprop")
                 return near(k.refBytes, 3 * v * kF32) && near(*k.flops, 5 * v) &&
                        near(*k.bytes, 2 * v * kF32);
             return near(k.refBytes, 5 * v * kF32) && near(*k.flops, 4 * v) &&
                    near(*k.bytes, 3 * v * kF32);
         }},
        {"PyProf has no formula for layer_norm or cross_entropy (its Foo class prints 0); ours: "
         "layer norm 8 FLOPs per element "
         "forward and 16 backward, split over the op's kernels by duration; cross_entropy as its "
         "log_softmax and nll_loss.",
         {28, 29, 38, 39, 54, 55, 56, 57, 74, 75, 76, 77, 43, 44, 46, 47},
         [&](const Kernel& k) {
             return k.refFlops == 0 && k.refBytes == 0 && k.flops && k.bytes && *k.flops > 0 &&
                    *k.bytes > 0;
         }},
        {"Embedding backward: PyProf puts 3 x I x D x size on the op's first kernel (the zero "
         "fill) and 0 on the second; we count "
         "the op's I x D adds and its gradient and index traffic, split over both kernels by "
         "duration.",
         {105, 106, 109, 110},
         [&](const Kernel& k) { return k.refFlops == 0 && k.flops && k.bytes && *k.flops > 0; }},
        {"PyProf has no formula for multi_head_attention_forward (0); we price each inner op on "
         "the shapes it gets from the "
         "call's arguments (in-projection, Q K^T, softmax, dropout, A V, output projection, ...); "
         "each value is checked below.",
         {11, 12, 13, 14, 15, 16, 17, 18, 19, 20, 21, 22, 23, 24,
          25, 83, 84, 86, 87, 88, 89, 90, 91, 92, 93, 99, 100},
         [&](const Kernel& k) { return k.refFlops == 0 && k.refBytes == 0 && k.flops && k.bytes; }},
        {"No formula on either side, so PyProf prints 0 and we leave the cells empty (unknown, not "
         "zero): torch.equal's "
         "kernels in multi_head_attention_forward, the Tensor.backward seed, SplitBackward's cat, "
         "and the gradient "
         "accumulation kernels (add_/add/sum, seq = 0) that run under no marker.",
         {5,  6,  7,  8,  9,  10, 45, 49, 50, 53, 58, 59, 61,  62,  65,  68,  69,
          72, 73, 78, 79, 81, 82, 85, 94, 95, 96, 97, 98, 101, 102, 104, 107, 111},
         [&](const Kernel& k) {
             return k.refFlops == 0 && k.refBytes == 0 && !k.flops && !k.bytes;
         }},
    };

    size_t equal = 0;
    std::map<size_t, const Reason*> listed;
    for (const auto& r : reasons)
        for (size_t i : r.kernels) {
            ASSERT_LT(i, ks.size());
            EXPECT_FALSE(listed.count(i)) << "kernel " << i << " listed twice";
            listed[i] = &r;
        }
    for (const Kernel& k : ks) {
        const bool same =
            k.flops && k.bytes && near(*k.flops, k.refFlops) && near(*k.bytes, k.refBytes);
        const auto it = listed.find(k.idx);
        if (it == listed.end()) {
            EXPECT_TRUE(same) << "kernel " << k.idx << " " << k.name << " (" << k.op << ", "
                              << k.dir << "): ours "
                              << (k.flops ? std::to_string(*k.flops) : "empty") << " FLOPs / "
                              << (k.bytes ? std::to_string(*k.bytes) : "empty") << " B, PyProf "
                              << k.refFlops << " / " << k.refBytes << ", and no reason listed";
            equal += same;
            continue;
        }
        EXPECT_FALSE(same) << "kernel " << k.idx << " is listed as different but equals PyProf";
        EXPECT_TRUE(it->second->holds(k))
            << "kernel " << k.idx << " " << k.name << " (" << k.op << ", " << k.dir << "): ours "
            << (k.flops ? std::to_string(*k.flops) : "empty") << " / "
            << (k.bytes ? std::to_string(*k.bytes) : "empty") << ", PyProf " << k.refFlops << " / "
            << k.refBytes << "; listed under: " << it->second->why;
    }
    // embedding, __mul__ (both directions), relu (both), and the optimizer's norm and mul_ calls.
    EXPECT_EQ(equal, 38u);

    // Split kernels: their sums are the op's formula, checked by hand.
    const double x = n, ln = 200;
    // Both layers' norms, forward (8 per element: x read, y written, weight and bias read) and
    // backward (16 per element: grad and x read, dx written).
    for (auto fwd :
         {std::initializer_list<size_t>{28, 29}, std::initializer_list<size_t>{38, 39}}) {
        EXPECT_NEAR(sumOf(ks, fwd, true), 8 * x, 2);
        EXPECT_NEAR(sumOf(ks, fwd, false), (2 * x + 2 * ln) * kF32, 2);
    }
    for (auto bwd : {std::initializer_list<size_t>{54, 55, 56, 57},
                     std::initializer_list<size_t>{74, 75, 76, 77}}) {
        EXPECT_NEAR(sumOf(ks, bwd, true), 16 * x, 4);
        EXPECT_NEAR(sumOf(ks, bwd, false), 3 * x * kF32, 4);
    }
    const double rows = 700, vocab = 33278, logits = rows * vocab;
    auto flops = [&](size_t i) { return ks[i].flops.value_or(NAN); };
    auto bytes = [&](size_t i) { return ks[i].bytes.value_or(NAN); };
    EXPECT_NEAR(flops(43), 5 * logits, 1); // cross_entropy's log_softmax
    EXPECT_NEAR(bytes(43), 2 * logits * kF32, 1);
    EXPECT_NEAR(flops(44), rows, 0.5);              // nll_loss: one per sample
    EXPECT_NEAR(bytes(44), rows * (kF32 + 8), 0.5); // one logit and one int64 target per sample
    EXPECT_NEAR(flops(46), rows, 0.5);
    EXPECT_NEAR(bytes(46), rows * (kF32 + 8), 0.5); // backward writes one gradient per sample
    EXPECT_NEAR(flops(47), 4 * logits, 1);
    EXPECT_NEAR(bytes(47), 3 * logits * kF32, 1); // grad and output read, input gradient written
    // Embedding backward: I x D adds, gradient read and written, int64 indices (I = 700 tokens,
    // then I = 35 positions).
    EXPECT_NEAR(sumOf(ks, {109, 110}, true), rows * ln, 2);
    EXPECT_NEAR(sumOf(ks, {109, 110}, false), 2 * rows * ln * kF32 + rows * 8, 2);
    EXPECT_NEAR(sumOf(ks, {105, 106}, true), 35 * ln, 2);
    EXPECT_NEAR(sumOf(ks, {105, 106}, false), 2 * 35 * ln * kF32 + 35 * 8, 2);

    // multi_head_attention_forward on query = key = value [L 35, N 20, E 200], 1 head, a [35, 35]
    // mask: B = N x heads = 20 batched heads of d = 200.
    const double L = 35, N = 20, E = 200, B = 20, d = 200, S = 35, tokens = L * N,
                 scores = B * L * S;
    const std::map<size_t, std::pair<double, double>> mha = {
        {11,
         {2 * tokens * E * 3 * E,
          (tokens * E + E * 3 * E + tokens * 3 * E) * kF32}},        // in-projection
        {12, {tokens * 3 * E, (2 * tokens * 3 * E + 3 * E) * kF32}}, // its bias
        {13, {tokens * E, 2 * tokens * E * kF32}},                   // q * scaling
        {14, {0, 2 * S * N * E * kF32}},                             // k, v made contiguous
        {15, {0, 2 * S * N * E * kF32}},
        {16, {2 * B * L * S * d, B * (L * d + d * S + L * S) * kF32}}, // Q K^T
        {17, {scores, (2 * scores + L * S) * kF32}},                   // + mask
        {18, {5 * scores, 2 * scores * kF32}},                         // softmax
        {19, {2 * scores, 2 * scores * kF32 + scores}},                // dropout and its mask
        {20, {2 * B * L * S * d, B * (L * S + S * d + L * d) * kF32}}, // A V
        {21, {0, 2 * tokens * E * kF32}},
        {22, {2 * tokens * E * E, (tokens * E + E * E + tokens * E) * kF32}}, // output projection
        {23, {tokens * E, (2 * tokens * E + E) * kF32}},
        {24, {scores, scores * kF32}},           // weights summed over heads
        {25, {N * L * S, 2 * N * L * S * kF32}}, // and divided
        // backward: dgrad and wgrad of each GEMM cost its forward; dropout and mul as forward
        {83, {2 * tokens * E * E, (tokens * E + E * E + tokens * E) * kF32}},
        {84, {2 * tokens * E * E, (tokens * E + E * E + tokens * E) * kF32}},
        {86, {2 * B * L * S * d, B * (L * S + S * d + L * d) * kF32}},
        {87, {2 * B * L * S * d, B * (L * S + S * d + L * d) * kF32}},
        {88, {2 * scores, 2 * scores * kF32 + scores}},
        {91, {2 * B * L * S * d, B * (L * d + d * S + L * S) * kF32}},
        {92, {2 * B * L * S * d, B * (L * d + d * S + L * S) * kF32}},
        {93, {tokens * E, 2 * tokens * E * kF32}},
        {99, {2 * tokens * E * 3 * E, (tokens * E + E * 3 * E + tokens * 3 * E) * kF32}},
        {100, {2 * tokens * E * 3 * E, (tokens * E + E * 3 * E + tokens * 3 * E) * kF32}},
    };
    for (const auto& [i, v] : mha) {
        EXPECT_NEAR(ks[i].flops.value_or(NAN), v.first, 0.5) << "kernel " << i << " " << ks[i].name;
        EXPECT_NEAR(ks[i].bytes.value_or(NAN), v.second, 0.5)
            << "kernel " << i << " " << ks[i].name;
    }
    EXPECT_NEAR(sumOf(ks, {89, 90}, true), 4 * scores,
                2); // softmax backward, split over its two kernels
    EXPECT_NEAR(sumOf(ks, {89, 90}, false), 3 * scores * kF32, 2);
    // The attention products, Q K^T and A V, are 4 x B x L x S x d, the attention convention.
    EXPECT_DOUBLE_EQ(flops(16) + flops(20), 4 * B * L * S * d);
}

// op_sum on a row where only some kernels have FLOPs (the seven forward `sum` kernels: six are
// gradient accumulation under no marker, one averages multi_head_attention's weights): the rate is
// over the known kernel's time, not the row's.
TEST(PyprofFlops, OpSumRateIsOverTheKernelsWithFlops) {
    LS_REQUIRE_FILE(kTrace);
    const auto kernels = cliTable({"kernels", kTrace.string()});
    const auto ops = cliTable({"summary", kTrace.string(), "--report", "op_sum"});
    double flops = 0, knownNs = 0, allNs = 0;
    size_t known = 0;
    for (size_t i = 0; i < kernels.rows.size(); ++i) {
        if (kernels.at(i, "op") != "sum" || kernels.at(i, "direction") != "forward") continue;
        allNs += std::stod(kernels.at(i, "duration_ns"));
        if (kernels.at(i, "flops").empty()) continue;
        ++known;
        flops += std::stod(kernels.at(i, "flops"));
        knownNs += std::stod(kernels.at(i, "duration_ns"));
    }
    ASSERT_EQ(known, 1u);
    bool found = false;
    for (size_t i = 0; i < ops.rows.size(); ++i) {
        if (ops.at(i, "op") != "sum" || ops.at(i, "direction") != "forward") continue;
        found = true;
        EXPECT_EQ(std::stod(ops.at(i, "gpu_time_ns")), allNs);
        EXPECT_EQ(std::stod(ops.at(i, "flops")), flops);
        EXPECT_NEAR(std::stod(ops.at(i, "tflops_s")), flops / knownNs / 1e3, 0.0006);
        EXPECT_GT(std::stod(ops.at(i, "tflops_s")), 0.0005)
            << "not diluted by the six unknown kernels";
    }
    EXPECT_TRUE(found);
}

// The dtype comes from the dict marker ("float32"), not from the kernel name.
TEST(PyprofFlops, DtypeFromTheDictMarker) {
    LS_REQUIRE_FILE(kTrace);
    const auto t =
        cliTable({"kernels", kTrace.string(), "-c", "short_name,op,dtype,dtype_source,flops_rule"});
    ASSERT_GT(t.rows.size(), 40u);
    EXPECT_EQ(t.at(30, "short_name").rfind("volta_sgemm", 0), 0u);
    EXPECT_EQ(t.at(30, "dtype"), "float32");
    EXPECT_EQ(t.at(30, "dtype_source"), "marker");
    EXPECT_NE(t.at(30, "flops_rule").find("torch.nn.functional.linear"), std::string::npos)
        << t.at(30, "flops_rule");
    EXPECT_NE(t.at(144, "flops_rule").find("scaling factor"), std::string::npos)
        << t.at(144, "flops_rule");
}

} // namespace
