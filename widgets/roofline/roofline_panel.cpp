#include "widgets/roofline/roofline_panel.h"

#include "core/present/step_timing.h"
#include "widgets/roofline/roofline_chart.h"

#include <QComboBox>
#include <QHBoxLayout>
#include <QLabel>
#include <QVBoxLayout>

namespace ls::gui {
namespace {

const std::vector<RooflineRow> kNoRows;

} // namespace

RooflinePanel::RooflinePanel(QWidget* parent)
    : QWidget(parent), level_(new QComboBox), message_(new QLabel), chart_(new RooflineChart) {
    for (size_t l = 0; l < kRooflineLevels; ++l)
        level_->addItem(QString::fromUtf8(rooflineLevelTitle(static_cast<RooflineLevel>(l))));
    level_->setToolTip(QStringLiteral("One point per group of kernels with the same element type "
                                      "and Tensor Core state (docs/roofline.md)"));
    message_->setTextInteractionFlags(Qt::TextSelectableByMouse);
    auto* bar = new QHBoxLayout;
    bar->addWidget(new QLabel(QStringLiteral("Points per")));
    bar->addWidget(level_);
    bar->addSpacing(12);
    bar->addWidget(message_, 1);
    auto* layout = new QVBoxLayout(this);
    layout->setContentsMargins(4, 4, 4, 4);
    layout->addLayout(bar);
    layout->addWidget(chart_, 1);
    connect(level_, &QComboBox::currentIndexChanged, this, [this] { redraw(); });
    connect(chart_, &RooflineChart::pointClicked, this, [this](int row) {
        chart_->select(row);
        emit filterRequested(QString::fromStdString(rows()[static_cast<size_t>(row)].filter));
    });
    redraw();
}

std::vector<std::function<void()>>
RooflinePanel::showSteps(std::shared_ptr<const TraceViews> views) {
    return {[this, views] {
        const StepTiming step("roofline tab");
        setData(views->roofline);
    }};
}

void RooflinePanel::setData(std::shared_ptr<const RooflineData> d) {
    data_ = std::move(d);
    redraw();
}

void RooflinePanel::setLevel(RooflineLevel level) {
    level_->setCurrentIndex(static_cast<int>(level));
}

RooflineLevel RooflinePanel::level() const {
    return static_cast<RooflineLevel>(std::max(0, level_->currentIndex()));
}

const std::vector<RooflineRow>& RooflinePanel::rows() const {
    return data_ ? data_->rows(level()) : kNoRows;
}

void RooflinePanel::redraw() {
    const auto& r = rows();
    // The GPU: the one of the most GPU time (a trace normally has one model).
    const RooflinePoint* top = r.empty() ? nullptr : &r.front().point;
    QString gpu = top ? QString::fromStdString(top->gpu) : QString();
    if (gpu.isEmpty() && data_ && data_->trace && !data_->trace->devices.empty())
        gpu = QString::fromStdString(data_->trace->devices.front().name);
    const DevicePeaks* peaks = top ? top->peaks : nullptr;
    if (!data_ || !data_->trace) {
        message_->setText(QStringLiteral("Open a trace to see its kernels on the roofline."));
    } else if (r.empty()) {
        message_->setText(
            QStringLiteral("No kernel has both FLOPs and bytes known: nothing to plot."));
    } else if (!peaks) {
        message_->setText(QStringLiteral("⚠ No peak figures for the GPU “%1”: roofs not drawn, "
                                         "points still shown (known GPUs: docs/roofline.md).")
                              .arg(gpu.isEmpty() ? QStringLiteral("unknown") : gpu));
    } else {
        message_->setText(
            QStringLiteral(
                "%1 points. Marker size: share of GPU time (≥ 10 %, 1–10 %, < 1 %); colour: Tensor "
                "Core state. Hover a point for its numbers; click it to filter the kernel table.")
                .arg(r.size()));
    }
    chart_->setRows(&r, peaks, gpu);
}

} // namespace ls::gui
