#pragma once
// The centre of the window, where the timeline lives. Until the zoomable timeline widget lands it
// shows the span of what is selected, so "show in timeline" and layer clicks already land here.
#include "core/kernel_table.h"

#include <QWidget>

#include <memory>
#include <vector>

class QLabel;

namespace ls::gui {

class TimelineArea : public QWidget {
    Q_OBJECT
public:
    explicit TimelineArea(QWidget* parent = nullptr);
    void setTable(std::shared_ptr<const KernelTable> table);
    // Kernels selected elsewhere (a layer click, the table's selection).
    void showKernels(const std::vector<KernelId>& kernels, const QString& what);
    void focusKernel(KernelId k);

private:
    std::shared_ptr<const KernelTable> table_;
    QLabel* label_;
};

} // namespace ls::gui
