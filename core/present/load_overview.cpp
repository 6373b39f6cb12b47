#include "core/present/load_overview.h"

#include <algorithm>

namespace ls {
namespace {
// Beyond this bin width the range would overflow TimeNs: a crafted file's absurd times are
// clamped into the range instead of widening it further.
constexpr TimeNs kWidestBin = TimeNs(1) << 50;
constexpr TimeNs kFarthest = TimeNs(1) << 60; // times beyond are clamped: no overflow below

TimeNs clampTime(TimeNs t) { return std::clamp(t, -kFarthest, kFarthest); }

TimeNs powerOfTwoAtLeast(TimeNs v) {
    TimeNs p = 1;
    while (p < v && p < kWidestBin) p *= 2;
    return p;
}
} // namespace

double LoadOverviewSnapshot::busyShare(const LoadOverviewLane& lane, double t0, double t1) const {
    if (binNs <= 0 || lane.busyNs.empty()) return 0;
    const double bin = static_cast<double>(binNs), origin = static_cast<double>(originNs);
    const auto last = static_cast<double>(lane.busyNs.size() - 1);
    const auto b0 = static_cast<size_t>(std::clamp((t0 - origin) / bin, 0.0, last));
    const auto b1 = static_cast<size_t>(std::clamp((t1 - origin) / bin, 0.0, last));
    double busiest = 0;
    for (size_t b = b0; b <= b1; ++b) busiest = std::max(busiest, lane.busyNs[b]);
    return std::min(1.0, busiest / bin);
}

void LoadOverview::add(std::span<const KernelSpan> kernels) {
    if (kernels.empty()) return;
    TimeNs lo = clampTime(kernels.front().start), hi = lo;
    for (const KernelSpan& k : kernels) {
        lo = std::min(lo, clampTime(k.start));
        hi = std::max(hi, clampTime(std::max(k.start, k.end)));
    }
    std::lock_guard lock(mutex_);
    cover(lo, hi);
    LoadOverviewLane* lane = nullptr;
    for (const KernelSpan& k : kernels) {
        if (!lane || lane->device != k.device || lane->stream != k.stream)
            lane = &laneOf(k.device, k.stream);
        ++lane->kernels;
        addBusy(*lane, clampTime(k.start), clampTime(std::max(k.start, k.end)));
    }
    state_.fromNs = state_.kernels ? std::min(state_.fromNs, lo) : lo;
    state_.toNs = state_.kernels ? std::max(state_.toNs, hi) : hi;
    state_.kernels += kernels.size();
    ++state_.version;
}

LoadOverviewSnapshot LoadOverview::snapshot() const {
    std::lock_guard lock(mutex_);
    return state_;
}

uint64_t LoadOverview::version() const {
    std::lock_guard lock(mutex_);
    return state_.version;
}

uint64_t LoadOverview::kernels() const {
    std::lock_guard lock(mutex_);
    return state_.kernels;
}

LoadOverviewLane& LoadOverview::laneOf(uint32_t device, uint32_t stream) {
    auto& lanes = state_.lanes;
    const auto at =
        std::lower_bound(lanes.begin(), lanes.end(), std::pair(device, stream),
                         [](const LoadOverviewLane& l, std::pair<uint32_t, uint32_t> k) {
                             return std::pair(l.device, l.stream) < k;
                         });
    if (at != lanes.end() && at->device == device && at->stream == stream) return *at;
    LoadOverviewLane lane{device, stream, 0, std::vector<double>(kBins, 0.0)};
    return *lanes.insert(at, std::move(lane));
}

// The first batch sets the bins' width to its own span; later ones double it, keeping the old
// bins as the new range's lower half (a later kernel) or upper half (an earlier one).
void LoadOverview::cover(TimeNs start, TimeNs end) {
    auto& s = state_;
    const auto bins = static_cast<TimeNs>(kBins);
    if (s.binNs == 0) {
        s.binNs = powerOfTwoAtLeast(std::max<TimeNs>(1, (end - start) / bins + 1));
        s.originNs = start;
    }
    while (s.binNs < kWidestBin && (start < s.originNs || end > s.originNs + bins * s.binNs)) {
        const bool earlier = start < s.originNs;
        const size_t offset = earlier ? kBins / 2 : 0;
        for (auto& lane : s.lanes) {
            std::vector<double> merged(kBins, 0.0);
            for (size_t j = 0; j < kBins / 2; ++j)
                merged[offset + j] = lane.busyNs[2 * j] + lane.busyNs[2 * j + 1];
            lane.busyNs = std::move(merged);
        }
        if (earlier) s.originNs -= bins * s.binNs;
        s.binNs *= 2;
    }
}

void LoadOverview::addBusy(LoadOverviewLane& lane, TimeNs start, TimeNs end) {
    const auto& s = state_;
    const auto last = static_cast<TimeNs>(kBins - 1);
    const TimeNs b0 = std::clamp<TimeNs>((start - s.originNs) / s.binNs, 0, last);
    const TimeNs b1 =
        std::clamp<TimeNs>((std::max(start, end - 1) - s.originNs) / s.binNs, 0, last);
    for (TimeNs b = b0; b <= b1; ++b) {
        const TimeNs binStart = s.originNs + b * s.binNs;
        const TimeNs inside = std::min(end, binStart + s.binNs) - std::max(start, binStart);
        if (inside > 0) lane.busyNs[static_cast<size_t>(b)] += static_cast<double>(inside);
    }
}

} // namespace ls
