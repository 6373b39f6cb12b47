#include "core/present/time_axis.h"

#include <algorithm>
#include <cmath>

namespace ls {

double nsPerPixel(const TimeSpan& window, int widthPx) {
    return window.width() / std::max(1, widthPx);
}

double timeToX(const TimeSpan& window, int widthPx, double ns) {
    return (ns - window.from) / nsPerPixel(window, widthPx);
}

double xToTime(const TimeSpan& window, int widthPx, double x) {
    return window.from + x * nsPerPixel(window, widthPx);
}

TimeWindow timeWindowOf(const TimeSpan& window, int widthPx) {
    return fitWindow(window.from, window.to, widthPx);
}

TimeAxis::TimeAxis(double minWidthNs) : minWidth_(std::max(1e-3, minWidthNs)) {
    window_ = {0, minWidth_};
}

void TimeAxis::setBounds(double fromNs, double toNs) {
    if (!std::isfinite(fromNs) || !std::isfinite(toNs)) return;
    if (toNs - fromNs < minWidth_) {
        const double mid = (fromNs + toNs) / 2;
        fromNs = mid - minWidth_ / 2;
        toNs = mid + minWidth_ / 2;
    }
    bounded_ = true;
    bounds_ = {fromNs, toNs};
    clearHistory();
    window_ = clamp(window_);
}

TimeSpan TimeAxis::clamp(TimeSpan w) const {
    if (w.width() < minWidth_) {
        const double mid = (w.from + w.to) / 2;
        w = {mid - minWidth_ / 2, mid + minWidth_ / 2};
    }
    if (!bounded_) return w;
    if (w.width() >= bounds_.width()) return bounds_;
    if (w.from < bounds_.from) return {bounds_.from, bounds_.from + w.width()};
    if (w.to > bounds_.to) return {bounds_.to - w.width(), bounds_.to};
    return w;
}

bool TimeAxis::apply(TimeSpan w, bool record) {
    if (!std::isfinite(w.from) || !std::isfinite(w.to)) return false;
    const TimeSpan before = window_;
    window_ = clamp(w);
    if (record) this->record();
    return !(window_ == before);
}

bool TimeAxis::setWindow(double fromNs, double toNs, bool record) {
    return apply({fromNs, toNs}, record);
}

bool TimeAxis::zoomBy(double factor, double fraction) {
    if (!(factor > 0) || !std::isfinite(factor) || !std::isfinite(fraction)) return false;
    double width = std::max(minWidth_, window_.width() * factor);
    if (bounded_) width = std::min(width, bounds_.width());
    const double anchor = window_.from + fraction * window_.width();
    const double from = anchor - fraction * width;
    return apply({from, from + width}, false);
}

bool TimeAxis::zoomAt(double factor, double anchorNs) {
    return zoomBy(factor, (anchorNs - window_.from) / window_.width());
}

bool TimeAxis::panBy(double fraction) { return panByNs(fraction * window_.width()); }

bool TimeAxis::panByNs(double ns) { return apply({window_.from + ns, window_.to + ns}, false); }

bool TimeAxis::fitAll(bool record) {
    if (!bounded_) return false;
    return apply(bounds_, record);
}

void TimeAxis::record() {
    if (!history_.empty() && history_[pos_] == window_) return;
    if (!history_.empty()) history_.resize(pos_ + 1);
    history_.push_back(window_);
    if (history_.size() > kHistoryCap)
        history_.erase(history_.begin(), history_.begin() + static_cast<std::ptrdiff_t>(
                                                                history_.size() - kHistoryCap));
    pos_ = history_.size() - 1;
}

bool TimeAxis::back() {
    if (!canGoBack()) return false;
    --pos_;
    window_ = clamp(history_[pos_]);
    return true;
}

bool TimeAxis::forward() {
    if (!canGoForward()) return false;
    ++pos_;
    window_ = clamp(history_[pos_]);
    return true;
}

void TimeAxis::clearHistory() {
    history_.clear();
    pos_ = 0;
}

} // namespace ls
