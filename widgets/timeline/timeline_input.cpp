// TimelineView's input: trackpad pinch, Ctrl+wheel zoom, drag to pan, Shift+drag to measure, clicks
// on bars and headers, and the keys (W/S/A/D, F, 0, Alt+Left/Right, Escape).
#include "widgets/timeline/timeline_layout.h"
#include "widgets/timeline/timeline_view.h"

#include <QHelpEvent>
#include <QKeyEvent>
#include <QNativeGestureEvent>
#include <QScrollBar>
#include <QToolTip>
#include <QWheelEvent>
#include <algorithm>
#include <cmath>

namespace ls::gui {

using namespace timeline;

bool TimelineView::viewportEvent(QEvent* e) {
    if (e->type() == QEvent::NativeGesture) { // trackpad pinch
        auto* g = static_cast<QNativeGestureEvent*>(e);
        if (g->gestureType() == Qt::ZoomNativeGesture) {
            zoomBy(std::clamp(1.0 - g->value(), 0.2, 5.0), g->position().x() - kHeaderWidth);
            return true;
        }
        if (g->gestureType() == Qt::EndNativeGesture) axis_.record();
    }
    if (e->type() == QEvent::ToolTip) {
        auto* help = static_cast<QHelpEvent*>(e);
        if (const auto hit = hitAt(help->pos()))
            QToolTip::showText(help->globalPos(), tooltipFor(*hit), viewport());
        else
            QToolTip::hideText();
        return true;
    }
    return QAbstractScrollArea::viewportEvent(e);
}

void TimelineView::resizeEvent(QResizeEvent* e) {
    QAbstractScrollArea::resizeEvent(e); // the axis keeps the visible time span
    updateScrollBar();
}

void TimelineView::scrollContentsBy(int, int) { viewport()->update(); }

void TimelineView::wheelEvent(QWheelEvent* e) {
    const double steps = e->angleDelta().y() / 120.0;
    if (e->modifiers() & Qt::ControlModifier) {
        zoomBy(std::pow(0.8, steps), e->position().x() - kHeaderWidth);
        axis_.record();
    } else if (e->modifiers() & Qt::ShiftModifier) {
        panBy(-steps * lanesWidth() * 0.1);
    } else {
        QAbstractScrollArea::wheelEvent(e);
    }
}

void TimelineView::mousePressEvent(QMouseEvent* e) {
    setFocus();
    if (e->button() == Qt::BackButton) return back();
    if (e->button() == Qt::ForwardButton) return forward();
    if (e->button() != Qt::LeftButton || !data()) return;
    pressPos_ = e->pos();
    moved_ = false;
    if (e->pos().y() < kMinimapHeight &&
        e->pos().x() >= kHeaderWidth) { // jump there on the minimap
        const double centre = rows_.spanStart() + (rows_.spanEnd() - rows_.spanStart()) *
                                                      (e->pos().x() - kHeaderWidth) / lanesWidth();
        const double half = axis_.width() / 2;
        setWindow(centre - half, centre + half);
        return;
    }
    if (e->pos().y() >= kTop &&
        e->pos().x() < kHeaderWidth) { // a rank or group header: click toggles, drag reorders
        draggedHeader_ = headerAt(e->pos().y());
        if (draggedHeader_) return;
    }
    measuring_ = e->modifiers() & Qt::ShiftModifier;
    panning_ = !measuring_;
    pressStartNs_ = axis_.toTime(e->pos().x() - kHeaderWidth, lanesWidth());
}

void TimelineView::mouseMoveEvent(QMouseEvent* e) {
    if (!(e->buttons() & Qt::LeftButton) || !data()) return;
    const QPoint d = e->pos() - pressPos_;
    if (!moved_ && d.manhattanLength() < 4) return;
    if (draggedHeader_) {
        moved_ = true;
        viewport()->setCursor(Qt::ClosedHandCursor);
        return;
    }
    if (!moved_) axis_.record();
    moved_ = true;
    if (panning_) {
        const QPoint step = e->pos() - pressPos_;
        pressPos_ = e->pos();
        panBy(-step.x());
        verticalScrollBar()->setValue(verticalScrollBar()->value() - step.y());
    } else if (measuring_) {
        const double now = axis_.toTime(e->pos().x() - kHeaderWidth, lanesWidth());
        setMeasure(std::min(pressStartNs_, now), std::max(pressStartNs_, now));
    }
}

void TimelineView::mouseReleaseEvent(QMouseEvent* e) {
    if (e->button() != Qt::LeftButton || !data()) return;
    if (draggedHeader_) {
        const Row header = *draggedHeader_;
        draggedHeader_.reset();
        viewport()->unsetCursor();
        const bool dragged = moved_;
        moved_ = false;
        if (dragged) {
            rows_.dropHeader(header, e->pos().y() - kTop + verticalScrollBar()->value());
            return rowsChanged();
        }
        if (header.kind == RowKind::Rank)
            return setRankCollapsed(header.index, !rows_.sectionCollapsed(header.index));
        return setGroupCollapsed(header.index, !rows_.groupCollapsed(header.index));
    }
    const bool click = !moved_;
    if (moved_ && panning_) axis_.record();
    panning_ = measuring_ = moved_ = false;
    if (!click) return;
    const auto hit = hitAt(e->pos());
    if (!hit) {
        marks_.measure.reset();
        viewport()->update();
        return;
    }
    if (hit->count > 1) { // a folded bar: zoom into what it holds
        const double margin = (hit->toNs - hit->fromNs) * 0.05;
        setWindow(hit->fromNs - margin, hit->toNs + margin);
        return;
    }
    if (hit->kind == TimelineEventKind::Kernel) {
        selectSlotKernel(hit->slot, KernelId(hit->id), false);
        if (hit->slot == 0) {
            emit kernelClicked(KernelId(hit->id));
        } else { // another rank's kernel: the rank of its row
            const uint32_t lane = rows_.kernelLane(hit->slot, KernelId(hit->id));
            const int section =
                lane == UINT32_MAX ? -1 : rows_.groupSection(rows_.groupOfLane(lane));
            if (section >= 0)
                emit otherRankKernelClicked(
                    rows_.session()->sections[static_cast<size_t>(section)].rank,
                    KernelId(hit->id));
        }
    } else if (hit->kind == TimelineEventKind::Range && hit->slot == 0) {
        emit rangeClicked(RangeId(hit->id));
    }
}

void TimelineView::mouseDoubleClickEvent(QMouseEvent* e) {
    if (const auto hit = hitAt(e->pos())) {
        const double margin = (hit->toNs - hit->fromNs) * 0.1 + 1;
        setWindow(hit->fromNs - margin, hit->toNs + margin);
    }
}

void TimelineView::keyPressEvent(QKeyEvent* e) {
    const QPoint cursor = viewport()->mapFromGlobal(QCursor::pos());
    const double atX = viewport()->rect().contains(cursor) && cursor.x() > kHeaderWidth
                           ? cursor.x() - kHeaderWidth
                           : lanesWidth() / 2.0;
    switch (e->key()) {
    case Qt::Key_W:
        zoomBy(0.7, atX);
        axis_.record();
        break;
    case Qt::Key_S:
        zoomBy(1 / 0.7, atX);
        axis_.record();
        break;
    case Qt::Key_A:
        panBy(-lanesWidth() * 0.15);
        break;
    case Qt::Key_D:
        panBy(lanesWidth() * 0.15);
        break;
    case Qt::Key_F:
        zoomToSelection();
        break;
    case Qt::Key_0:
        fitAll();
        break;
    case Qt::Key_Left:
        if (e->modifiers() & Qt::AltModifier)
            back();
        else
            panBy(-lanesWidth() * 0.15);
        break;
    case Qt::Key_Right:
        if (e->modifiers() & Qt::AltModifier)
            forward();
        else
            panBy(lanesWidth() * 0.15);
        break;
    case Qt::Key_Escape:
        marks_.measure.reset();
        viewport()->update();
        break;
    default:
        QAbstractScrollArea::keyPressEvent(e);
        return;
    }
}

} // namespace ls::gui
