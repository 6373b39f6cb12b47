#include "core/compare/diff_table.h"

#include <cmath>
#include <cstdio>

namespace ls {
namespace {

std::string number(double v, int decimals) {
    if (std::isnan(v)) return {};
    char buf[64];
    std::snprintf(buf, sizeof buf, "%.*f", decimals, v);
    return buf;
}

// Whole nanoseconds print as integers (a one-iteration trace matches SQL sums digit for digit).
std::string nanoseconds(double v) {
    if (std::isnan(v)) return {};
    return std::abs(v - std::round(v)) < 1e-6 ? number(std::round(v), 0) : number(v, 1);
}

std::string share(double fraction) {
    return std::isnan(fraction) ? std::string() : number(100.0 * fraction, 2);
}

} // namespace

std::vector<DiffColumn> diffColumns(DiffLevel level) {
    std::vector<DiffColumn> c = {
        {"key", "the layer, op (its name and ordinal in its layer, direction and iteration), "
                "kernel family, kernel name, direction or iteration"},
        {"direction", "forward, backward, optimizer or other"},
        {"a_count", "kernels of A in the row over all iterations (op instances at the op level); "
                    "0: only in B"},
        {"b_count", "kernels of B in the row over all iterations (op instances at the op level); "
                    "0: only in A"},
        {"a_gpu_time_ns", "A's GPU time in ns per iteration (per sample with --per-sample)"},
        {"b_gpu_time_ns", "B's GPU time in ns per iteration (per sample with --per-sample)"},
        {"delta_ns", "b_gpu_time_ns - a_gpu_time_ns"},
        {"ratio", "b_gpu_time_ns / a_gpu_time_ns"},
        {"a_flops", "A's FLOPs per iteration (kernels with a known formula)"},
        {"b_flops", "B's FLOPs per iteration (kernels with a known formula)"},
        {"a_tflops_s", "A's achieved TFLOP/s over the kernels with known FLOPs"},
        {"b_tflops_s", "B's achieved TFLOP/s over the kernels with known FLOPs"},
        {"a_tc", "share of A's GPU time on kernels that used Tensor Cores, in %"},
        {"b_tc", "share of B's GPU time on kernels that used Tensor Cores, in %"},
    };
    if (level == DiffLevel::Op) {
        c.push_back({"a_shapes", "input shapes of A's first instance of the op"});
        c.push_back({"b_shapes", "input shapes of B's first instance of the op"});
    }
    return c;
}

std::vector<std::string> diffRowCells(const DiffRow& r, DiffLevel level) {
    std::vector<std::string> f = {
        r.key,
        r.direction,
        std::to_string(r.a.count),
        std::to_string(r.b.count),
        nanoseconds(r.a.gpuTimeNs),
        nanoseconds(r.b.gpuTimeNs),
        nanoseconds(r.deltaNs()),
        number(r.ratio(), 4),
        number(r.a.flops, 0),
        number(r.b.flops, 0),
        number(r.a.tflopsPerSecond(), 3),
        number(r.b.tflopsPerSecond(), 3),
        share(r.a.tcShare()),
        share(r.b.tcShare()),
    };
    if (level == DiffLevel::Op) {
        f.push_back(r.a.shapes);
        f.push_back(r.b.shapes);
    }
    return f;
}

} // namespace ls
