#include "widgets/timeline/timeline_area.h"

#include "widgets/timeline/timeline_palette.h"

#include <QComboBox>
#include <QHBoxLayout>
#include <QLabel>
#include <QLineEdit>
#include <QSettings>
#include <QToolButton>
#include <QVBoxLayout>

namespace ls::gui {
namespace {

const auto kColorKey = QStringLiteral("timeline/colorMode");

QLabel* swatch(const QColor& c, const QString& text) {
    auto* l = new QLabel(
        QStringLiteral("<span style='color:%1'>■</span> %2").arg(c.name(), text.toHtmlEscaped()));
    l->setTextFormat(Qt::RichText);
    l->setMinimumWidth(1); // shrinks (clipped) before it widens the window
    return l;
}

QToolButton* button(const QString& text, const QString& tip, QWidget* parent) {
    auto* b = new QToolButton(parent);
    b->setText(text);
    b->setToolTip(tip);
    b->setAutoRaise(true);
    return b;
}

} // namespace

TimelineArea::TimelineArea(QWidget* parent)
    : QWidget(parent), view_(new TimelineView), colorMode_(new QComboBox), legend_(new QHBoxLayout),
      what_(new QLabel), rankFilter_(new QLineEdit) {
    colorMode_->addItems({QStringLiteral("Colour by kernel class"),
                          QStringLiteral("Colour by layer"),
                          QStringLiteral("Colour by direction")});
    colorMode_->setCurrentIndex(std::clamp(QSettings().value(kColorKey, 0).toInt(), 0, 2));
    view_->setColorMode(static_cast<TimelineView::ColorMode>(colorMode_->currentIndex()));
    auto* back =
        button(QStringLiteral("◀"), QStringLiteral("Back through zoom history (Alt+Left)"), this);
    auto* forward = button(QStringLiteral("▶"),
                           QStringLiteral("Forward through zoom history (Alt+Right)"), this);
    auto* fit = button(QStringLiteral("Fit"), QStringLiteral("Show the whole capture (0)"), this);
    what_->setStyleSheet(QStringLiteral("color:#345"));
    what_->setSizePolicy(QSizePolicy::Ignored, QSizePolicy::Preferred);
    what_->setMinimumWidth(80);
    view_->setToolTip(QString()); // per-event tooltips; the navigation help is on the toolbar
    colorMode_->setToolTip(QStringLiteral(
        "Ctrl+wheel: zoom at the cursor · wheel: scroll rows · drag: pan · Shift+drag: measure\n"
        "W/S: zoom · A/D: pan · F: zoom to selection · 0: fit all · Alt+Left/Right: back/forward\n"
        "Click a kernel to select it, a range to list its kernels, a folded bar to zoom into it."));

    rankFilter_->setPlaceholderText(QStringLiteral("Ranks: all"));
    rankFilter_->setClearButtonEnabled(true);
    rankFilter_->setMaximumWidth(140);
    rankFilter_->setToolTip(QStringLiteral(
        "The ranks whose rows the timeline shows: 0-7, 12, 40- (empty: all).\n"
        "Click a rank header to collapse it, drag it to reorder, right-click for more."));
    rankFilter_->setVisible(false);

    auto* bar = new QHBoxLayout;
    bar->setContentsMargins(4, 2, 4, 0);
    bar->addWidget(back);
    bar->addWidget(forward);
    bar->addWidget(fit);
    bar->addWidget(colorMode_);
    bar->addWidget(rankFilter_);
    bar->addWidget(what_, 1);
    legend_->setContentsMargins(8, 0, 4, 2);
    legend_->setSpacing(10);
    auto* layout = new QVBoxLayout(this);
    layout->setContentsMargins(0, 0, 0, 0);
    layout->setSpacing(0);
    layout->addLayout(bar);
    layout->addLayout(legend_); // a row of its own: it never widens the window
    layout->addWidget(view_, 1);

    connect(back, &QToolButton::clicked, view_, &TimelineView::back);
    connect(forward, &QToolButton::clicked, view_, &TimelineView::forward);
    connect(fit, &QToolButton::clicked, view_, &TimelineView::fitAll);
    connect(rankFilter_, &QLineEdit::textChanged, this, [this](const QString& text) {
        const bool ok = view_->setRankFilter(text);
        rankFilter_->setStyleSheet(ok ? QString()
                                      : QStringLiteral("QLineEdit { background: #fde2e2; }"));
    });
    connect(colorMode_, &QComboBox::currentIndexChanged, this, [this](int i) {
        view_->setColorMode(static_cast<TimelineView::ColorMode>(i));
        QSettings().setValue(kColorKey, i);
        updateLegend();
    });
    updateLegend();
}

void TimelineArea::updateLegend() {
    while (QLayoutItem* item = legend_->takeAt(0)) {
        delete item->widget();
        delete item;
    }
    switch (view_->colorMode()) {
    case TimelineView::ColorMode::KernelClass:
        for (int c = 0; c < kKernelClassCount; ++c) {
            const auto cls = static_cast<KernelClass>(c);
            const auto name = kernelClassName(cls);
            QLabel* l = swatch(kernelClassColor(cls), kernelClassShortName(cls));
            l->setToolTip(QString::fromUtf8(name.data(), static_cast<qsizetype>(name.size())));
            legend_->addWidget(l);
        }
        break;
    case TimelineView::ColorMode::Direction:
        for (Direction d :
             {Direction::Forward, Direction::Backward, Direction::Optimizer, Direction::Other}) {
            const auto name = directionName(d);
            legend_->addWidget(
                swatch(directionColor(d),
                       QString::fromUtf8(name.data(), static_cast<qsizetype>(name.size()))));
        }
        break;
    case TimelineView::ColorMode::Layer: {
        auto* l = new QLabel(QStringLiteral("one colour per layer; grey: no layer"));
        l->setMinimumWidth(1); // shrinks (clipped) before it widens the window
        legend_->addWidget(l);
        break;
    }
    }
    legend_->addStretch(1);
}

void TimelineArea::setData(std::shared_ptr<const TimelineData> timeline) {
    view_->setData(std::move(timeline));
    rankFilter_->setVisible(false);
    what_->clear();
}

void TimelineArea::setSession(std::shared_ptr<const SessionTimeline> session, uint32_t shown) {
    const bool same = session.get() == view_->session();
    view_->setSession(std::move(session), shown);
    rankFilter_->setVisible(view_->rankSections() > 1);
    if (!same)
        rankFilter_->clear();
    else
        view_->setRankFilter(rankFilter_->text());
    what_->clear();
}

void TimelineArea::showKernels(const std::vector<KernelId>& kernels, const QString& what) {
    view_->setProjection(std::nullopt);
    view_->setHighlight(kernels, true);
    what_->setText(QStringLiteral("%1 · %L2 kernels").arg(what).arg(kernels.size()));
}

void TimelineArea::showTraceKernels(const std::vector<std::vector<KernelId>>& byTrace,
                                    const QString& what) {
    view_->setProjection(std::nullopt);
    view_->setTraceHighlight(byTrace, true);
    what_->setText(QStringLiteral("%1 · %L2 kernels").arg(what).arg(view_->highlightedCount()));
}

void TimelineArea::addStrip(QWidget* strip) {
    auto* column = static_cast<QVBoxLayout*>(layout());
    column->insertWidget(column->indexOf(view_), strip);
}

void TimelineArea::focusKernel(KernelId k) { view_->selectKernel(k, true); }

void TimelineArea::clearHighlight() {
    view_->setHighlight({}, false);
    view_->setProjection(std::nullopt);
    what_->clear();
}

} // namespace ls::gui
