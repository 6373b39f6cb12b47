#include "widgets/timeline_area.h"

#include "widgets/units.h"

#include <QLabel>
#include <QVBoxLayout>

#include <algorithm>

namespace ls::gui {

TimelineArea::TimelineArea(QWidget* parent) : QWidget(parent), label_(new QLabel) {
    label_->setAlignment(Qt::AlignCenter);
    label_->setWordWrap(true);
    label_->setTextInteractionFlags(Qt::TextSelectableByMouse);
    auto* layout = new QVBoxLayout(this);
    layout->addWidget(label_);
    setTable(nullptr);
}

void TimelineArea::setTable(std::shared_ptr<const KernelTable> table) {
    table_ = std::move(table);
    if (!table_) {
        label_->setText(QStringLiteral("<p style='color:#666'>Open a trace to see its timeline.</p>"));
        return;
    }
    const Trace& t = table_->trace();
    label_->setText(QStringLiteral("<p><b>Timeline</b></p><p style='color:#666'>Capture %1 · %L2 kernels on %3 streams</p>")
                        .arg(formatDuration(static_cast<double>(t.captureEnd - t.captureStart)))
                        .arg(t.kernels.size())
                        .arg(t.streams.size()));
}

void TimelineArea::showKernels(const std::vector<KernelId>& kernels, const QString& what) {
    if (!table_ || kernels.empty()) return;
    const auto& k = table_->trace().kernels;
    TimeNs first = k.start[kernels.front().value], last = k.end[kernels.front().value];
    for (KernelId id : kernels) {
        first = std::min(first, k.start[id.value]);
        last = std::max(last, k.end[id.value]);
    }
    const TimeNs origin = table_->trace().captureStart;
    label_->setText(QStringLiteral("<p><b>%1</b></p><p>%L2 kernels from %3 to %4 (%5)</p>")
                        .arg(what.toHtmlEscaped())
                        .arg(kernels.size())
                        .arg(formatOffset(first - origin), formatOffset(last - origin), formatDuration(static_cast<double>(last - first))));
}

void TimelineArea::focusKernel(KernelId k) {
    if (table_ && k.valid()) showKernels({k}, QString::fromStdString(table_->text(k, KernelField::Name)));
}

} // namespace ls::gui
