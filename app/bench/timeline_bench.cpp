#include "app/bench/timeline_bench.h"

#include "widgets/timeline/timeline_view.h"

#include <QApplication>
#include <QImage>
#include <QPainter>
#include <algorithm>
#include <chrono>
#include <vector>

namespace {

double msSince(std::chrono::steady_clock::time_point t0) {
    return std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - t0).count();
}

} // namespace

TimelineFigures measureTimeline(const std::shared_ptr<const ls::TimelineData>& data, int argc,
                                char** argv) {
    if (qEnvironmentVariableIsEmpty("QT_QPA_PLATFORM")) qputenv("QT_QPA_PLATFORM", "offscreen");
    QApplication app(argc, argv);
    TimelineFigures f;
    const ls::Trace* trace = data->trace.get();
    ls::gui::TimelineView view;
    view.resize(1920, 1080);
    view.setData(data);
    QImage image(1920, 1080, QImage::Format_RGB32);
    auto frame = [&] {
        const auto start = std::chrono::steady_clock::now();
        QPainter p(&image);
        view.paintContent(p, image.size());
        return msSince(start);
    };
    f.firstFrameMs = frame();

    // Whole capture, then 10 %, 1 %, 0.1 % and 0.001 % of it around its middle; at each zoom
    // 20 frames panning by 40 px (the view's own pan, as a drag does).
    std::vector<double> times;
    const double start = static_cast<double>(trace->captureStart),
                 span = static_cast<double>(trace->captureEnd - trace->captureStart);
    for (double fraction : {1.0, 0.1, 0.01, 0.001, 0.00001}) {
        const double mid = start + span * 0.5;
        view.setWindow(mid - span * fraction / 2, mid + span * fraction / 2, false);
        for (int i = 0; i < 20; ++i) {
            times.push_back(frame());
            view.panBy(40);
        }
    }
    std::sort(times.begin(), times.end());
    f.frames = static_cast<int>(times.size());
    f.frameP95Ms = times[static_cast<size_t>(0.95 * (times.size() - 1))];
    f.frameMaxMs = times.back();
    f.measured = true;
    return f;
}
