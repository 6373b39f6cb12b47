#include "widgets/compare/compare_timelines.h"

#include "widgets/timeline/timeline_palette.h"
#include "widgets/util/units.h"

#include <QComboBox>
#include <QHBoxLayout>
#include <QLabel>
#include <QSpinBox>
#include <QSplitter>
#include <QToolButton>
#include <QVBoxLayout>
#include <algorithm>
#include <optional>

namespace ls::gui {
namespace {

struct Anchor {
    double start = 0, length = 1;
    QString what; // "iteration 3", "first kernel"
};

Anchor anchorOf(const TimelineData& d, const std::vector<IterationSpan>& spans, int index) {
    if (!spans.empty()) {
        const IterationSpan& s =
            spans[static_cast<size_t>(std::clamp(index, 0, static_cast<int>(spans.size()) - 1))];
        return {static_cast<double>(s.start), std::max(1.0, static_cast<double>(s.end - s.start)),
                QString::fromStdString(s.name)};
    }
    const Trace& t = *d.trace;
    const double start =
        static_cast<double>(t.kernels.size() ? t.kernels.start.front() : d.tracks.start);
    return {start, std::max(1.0, static_cast<double>(d.tracks.end) - start),
            QStringLiteral("first kernel")};
}

// GPU streams first, CPU threads collapsed to their header row.
void compactRows(TimelineView* view) {
    const auto& groups = view->data()->tracks.groups;
    size_t position = 0;
    for (uint32_t g = 0; g < groups.size(); ++g) {
        if (groups[g].gpu)
            view->moveGroup(g, position++);
        else
            view->setGroupCollapsed(g, true);
    }
}

// The kernels' span relative to the anchor: those starting in the anchored iteration, else all.
std::optional<std::pair<double, double>>
relativeSpan(const TimelineData& d, const std::vector<KernelId>& kernels, const Anchor& anchor) {
    const auto& k = d.trace->kernels;
    std::optional<std::pair<double, double>> inside, all;
    const auto extend = [](std::optional<std::pair<double, double>>& s, double a, double b) {
        s = s ? std::make_pair(std::min(s->first, a), std::max(s->second, b))
              : std::make_pair(a, b);
    };
    for (KernelId id : kernels) {
        const double s = static_cast<double>(k.start[id.value]) - anchor.start,
                     e = static_cast<double>(k.end[id.value]) - anchor.start;
        extend(all, s, e);
        if (s >= 0 && s <= anchor.length) extend(inside, s, e);
    }
    return inside ? inside : all;
}

QLabel* sideLabel(QWidget* parent) {
    auto* l = new QLabel(parent);
    l->setStyleSheet(QStringLiteral("font-weight:600; padding:2px 4px"));
    l->setSizePolicy(QSizePolicy::Ignored, QSizePolicy::Preferred);
    return l;
}

} // namespace

CompareTimelines::CompareTimelines(QWidget* parent)
    : QWidget(parent), a_(new TimelineView), b_(new TimelineView), labelA_(sideLabel(this)),
      labelB_(sideLabel(this)), what_(new QLabel), legend_(new QLabel), iteration_(new QSpinBox),
      colorMode_(new QComboBox) {
    a_->setObjectName(QStringLiteral("compareTimelineA"));
    b_->setObjectName(QStringLiteral("compareTimelineB"));
    for (TimelineView* v : {a_, b_}) {
        v->setVerticalScrollBarPolicy(
            Qt::ScrollBarAlwaysOn); // equal lane widths keep one time scale
        v->setToolTip(QString());
        v->setMinimumHeight(110); // the ruler, the minimap and the first GPU stream
    }
    iteration_->setPrefix(QStringLiteral("Align at iteration "));
    iteration_->setRange(1, 1);
    iteration_->setToolTip(
        QStringLiteral("Both timelines start at this iteration of each run (without iteration "
                       "ranges: at each run's first kernel)"));
    colorMode_->addItems({QStringLiteral("Colour by kernel class"),
                          QStringLiteral("Colour by layer"),
                          QStringLiteral("Colour by direction")});
    colorMode_->setToolTip(QStringLiteral(
        "Ctrl+wheel: zoom at the cursor · drag: pan · W/S/A/D · 0: fit · the other run follows"));
    auto* fit = new QToolButton;
    fit->setText(QStringLiteral("Fit iteration"));
    fit->setToolTip(QStringLiteral("Show the aligned iteration of both runs"));
    fit->setAutoRaise(true);
    what_->setStyleSheet(QStringLiteral("color:#345"));
    what_->setSizePolicy(QSizePolicy::Ignored, QSizePolicy::Preferred);
    legend_->setTextFormat(Qt::RichText);
    legend_->setSizePolicy(QSizePolicy::Ignored, QSizePolicy::Preferred);

    auto* bar = new QHBoxLayout;
    bar->setContentsMargins(4, 2, 4, 0);
    bar->addWidget(iteration_);
    bar->addWidget(fit);
    bar->addWidget(colorMode_);
    bar->addWidget(what_, 1);
    auto* sideA = new QWidget;
    auto* layoutA = new QVBoxLayout(sideA);
    layoutA->setContentsMargins(0, 0, 0, 0);
    layoutA->setSpacing(0);
    layoutA->addWidget(labelA_);
    layoutA->addWidget(a_, 1);
    auto* sideB = new QWidget;
    auto* layoutB = new QVBoxLayout(sideB);
    layoutB->setContentsMargins(0, 0, 0, 0);
    layoutB->setSpacing(0);
    layoutB->addWidget(labelB_);
    layoutB->addWidget(b_, 1);
    auto* split = new QSplitter(Qt::Vertical);
    split->addWidget(sideA);
    split->addWidget(sideB);
    split->setChildrenCollapsible(false);
    auto* layout = new QVBoxLayout(this);
    layout->setContentsMargins(0, 0, 0, 0);
    layout->setSpacing(0);
    layout->addLayout(bar);
    layout->addWidget(legend_);
    layout->addWidget(split, 1);

    connect(a_, &TimelineView::windowChanged, this, [this] { follow(a_, b_, offsetNs()); });
    connect(b_, &TimelineView::windowChanged, this, [this] { follow(b_, a_, -offsetNs()); });
    connect(iteration_, &QSpinBox::valueChanged, this, [this](int v) { alignAt(v - 1); });
    connect(fit, &QToolButton::clicked, this, [this] { alignAt(iteration_->value() - 1); });
    connect(colorMode_, &QComboBox::currentIndexChanged, this, [this](int i) {
        a_->setColorMode(static_cast<TimelineView::ColorMode>(i));
        b_->setColorMode(static_cast<TimelineView::ColorMode>(i));
        updateLegend();
    });
    updateLegend();
}

void CompareTimelines::updateLegend() {
    QStringList items;
    const auto swatch = [](const QColor& c, const QString& text) {
        return QStringLiteral("<span style='color:%1'>■</span> %2")
            .arg(c.name(), text.toHtmlEscaped());
    };
    if (a_->colorMode() == TimelineView::ColorMode::KernelClass) {
        for (int c = 0; c < kKernelClassCount; ++c)
            items << swatch(kernelClassColor(static_cast<KernelClass>(c)),
                            kernelClassShortName(static_cast<KernelClass>(c)));
    } else if (a_->colorMode() == TimelineView::ColorMode::Direction) {
        for (Direction d :
             {Direction::Forward, Direction::Backward, Direction::Optimizer, Direction::Other})
            items << swatch(directionColor(d),
                            QString::fromStdString(std::string(directionName(d))));
    } else {
        items << QStringLiteral("one colour per layer; grey: no layer");
    }
    legend_->setText(
        QStringLiteral("&nbsp;") + items.join(QStringLiteral("&nbsp;&nbsp; ")) +
        QStringLiteral(
            "&nbsp;&nbsp; <span style='color:#666'>· outlined: the selected row's kernels</span>"));
}

void CompareTimelines::setPair(std::shared_ptr<const ComparePair> pair) {
    pair_ = std::move(pair);
    syncing_ = true; // each view fits itself on setData; they align below
    a_->setData(pair_ ? pair_->timelineA : nullptr);
    b_->setData(pair_ ? pair_->timelineB : nullptr);
    syncing_ = false;
    what_->clear();
    if (!pair_) return;
    compactRows(a_);
    compactRows(b_);
    const int iterations =
        static_cast<int>(std::max(pair_->iterationsA.size(), pair_->iterationsB.size()));
    const QSignalBlocker block(iteration_);
    iteration_->setRange(1, std::max(1, iterations));
    iteration_->setValue(1);
    iteration_->setEnabled(iterations > 1);
    alignAt(0);
}

void CompareTimelines::alignAt(int index) {
    if (!pair_) return;
    const Anchor a = anchorOf(*pair_->timelineA, pair_->iterationsA, index);
    const Anchor b = anchorOf(*pair_->timelineB, pair_->iterationsB, index);
    alignA_ = a.start;
    alignB_ = b.start;
    lengthA_ = a.length;
    lengthB_ = b.length;
    const auto text = [](const std::string& label, const Anchor& anchor, const QString& run) {
        return QStringLiteral("%1   ·   aligned at the start of %2 (%3 into run %4, lasting %5)")
            .arg(QString::fromStdString(label), anchor.what, formatDuration(anchor.start), run,
                 formatDuration(anchor.length));
    };
    const Trace& ta = *pair_->timelineA->trace;
    const Trace& tb = *pair_->timelineB->trace;
    labelA_->setText(text(pair_->a.label,
                          Anchor{a.start - static_cast<double>(ta.captureStart), a.length, a.what},
                          QStringLiteral("A")));
    labelB_->setText(text(pair_->b.label,
                          Anchor{b.start - static_cast<double>(tb.captureStart), b.length, b.what},
                          QStringLiteral("B")));
    // Both axes span both runs, aligned: whatever A shows, B can show at the same offset.
    const TimelineRowModel& rowsA = a_->rows();
    const TimelineRowModel& rowsB = b_->rows();
    const double lo = std::min(rowsA.spanStart(), rowsB.spanStart() - offsetNs()),
                 hi = std::max(rowsA.spanEnd(), rowsB.spanEnd() - offsetNs());
    const double from = lo - (hi - lo) * 0.01, to = hi + (hi - lo) * 0.01;
    syncing_ = true;
    a_->setBounds(from, to);
    b_->setBounds(from + offsetNs(), to + offsetNs());
    syncing_ = false;
    const double length = std::max(lengthA_, lengthB_);
    a_->setWindow(alignA_ - length * 0.02, alignA_ + length * 1.02); // B follows
}

// One axis moved: the other shows the same span, shifted onto its run's clock.
void CompareTimelines::follow(const TimelineView* from, TimelineView* to, double shiftNs) {
    if (syncing_ || !to->data()) return;
    syncing_ = true;
    const TimeSpan w = from->axis().window();
    to->setWindow(w.from + shiftNs, w.to + shiftNs, false);
    syncing_ = false;
}

void CompareTimelines::showKernels(std::vector<KernelId> a, std::vector<KernelId> b,
                                   const QString& what) {
    if (!pair_) return;
    what_->setText(
        QStringLiteral("%1 · A %L2 kernels · B %L3 kernels").arg(what).arg(a.size()).arg(b.size()));
    const Anchor anchorA{alignA_, lengthA_, {}}, anchorB{alignB_, lengthB_, {}};
    auto spanA = relativeSpan(*pair_->timelineA, a, anchorA),
         spanB = relativeSpan(*pair_->timelineB, b, anchorB);
    a_->setHighlight(std::move(a), false);
    b_->setHighlight(std::move(b), false);
    if (!spanA && !spanB) return;
    const double lo =
        std::min(spanA ? spanA->first : spanB->first, spanB ? spanB->first : spanA->first);
    const double hi =
        std::max(spanA ? spanA->second : spanB->second, spanB ? spanB->second : spanA->second);
    const double margin = std::max(1000.0, (hi - lo) * 0.05);
    a_->setWindow(alignA_ + lo - margin, alignA_ + hi + margin); // B follows
}

void CompareTimelines::clearHighlight() {
    a_->setHighlight({}, false);
    b_->setHighlight({}, false);
    what_->clear();
}

} // namespace ls::gui
