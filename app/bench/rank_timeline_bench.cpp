#include "app/bench/rank_timeline_bench.h"

#include "widgets/panes/rank_timeline.h"
#include "widgets/timeline/timeline_view.h"

#include <QApplication>
#include <QImage>
#include <QPainter>
#include <QScrollBar>
#include <algorithm>
#include <chrono>
#include <vector>

RankTimelineFigures measureRankTimelineFrames(ls::gui::RankTimeline& view) {
    RankTimelineFigures f;
    f.rows = static_cast<int>(view.shownRanks().size());
    QImage image(view.size(), QImage::Format_RGB32);
    const double start = view.startNs(), span = view.nsPerPixel() * 1850;
    std::vector<double> times;
    // The whole session, then 10 %, 1 % and 0.1 % of it around its middle; 20 frames panning
    // 40 px at each zoom.
    for (double fraction : {1.0, 0.1, 0.01, 0.001}) {
        double from = start + span * (0.5 - fraction / 2);
        const double width = span * fraction;
        for (int i = 0; i < 20; ++i) {
            view.zoomTo(static_cast<ls::TimeNs>(from), static_cast<ls::TimeNs>(from + width));
            const auto t0 = std::chrono::steady_clock::now();
            view.render(&image);
            times.push_back(
                std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - t0)
                    .count());
            from += width / 1850 * 40;
        }
    }
    std::sort(times.begin(), times.end());
    f.frames = static_cast<int>(times.size());
    f.frameP95Ms = times[static_cast<size_t>(0.95 * static_cast<double>(times.size() - 1))];
    f.frameMaxMs = times.back();
    f.measured = true;
    return f;
}

RankTimelineFigures measureRankTimeline(std::shared_ptr<const ls::RankAnalysis> analysis) {
    if (qEnvironmentVariableIsEmpty("QT_QPA_PLATFORM")) qputenv("QT_QPA_PLATFORM", "offscreen");
    int argc = 1;
    char name[] = "layerscope-bench";
    char* argv[] = {name, nullptr};
    QApplication app(argc, argv);
    ls::gui::RankTimeline view;
    view.resize(1920, 1080);
    view.setAnalysis(analysis);
    RankTimelineFigures f = measureRankTimelineFrames(view);
    QImage image(1920, 1080, QImage::Format_RGB32);

    // The main timeline, every rank expanded: the same zooms, panning, and at each zoom the
    // rows scrolled a screen at a time through all ranks.
    if (!analysis->timelines) return f;
    ls::gui::TimelineView main;
    main.resize(1920, 1080);
    main.setSession(analysis->timelines, 0);
    for (uint32_t s = 0; s < main.rankSections(); ++s) main.setRankCollapsed(s, false);
    f.mainRanks = static_cast<int>(main.shownRankSections().size());
    const auto window = main.window();
    const double mainSpan = window.endNs() - window.startNs;
    QScrollBar* rows = main.verticalScrollBar();
    std::vector<double> mainTimes;
    for (double fraction : {1.0, 0.1, 0.01, 0.001}) {
        double from = window.startNs + mainSpan * (0.5 - fraction / 2);
        main.setWindow(from, from + mainSpan * fraction, false);
        for (int i = 0; i < 20; ++i) {
            rows->setValue(rows->maximum() * i / 19);
            const auto painted = std::chrono::steady_clock::now();
            QPainter p(&image);
            main.paintContent(p, image.size());
            p.end();
            mainTimes.push_back(std::chrono::duration<double, std::milli>(
                                    std::chrono::steady_clock::now() - painted)
                                    .count());
            main.panBy(40);
        }
    }
    std::sort(mainTimes.begin(), mainTimes.end());
    f.mainFrames = static_cast<int>(mainTimes.size());
    f.mainFrameP95Ms =
        mainTimes[static_cast<size_t>(0.95 * static_cast<double>(mainTimes.size() - 1))];
    f.mainFrameMaxMs = mainTimes.back();
    return f;
}
