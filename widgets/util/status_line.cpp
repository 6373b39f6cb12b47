#include "widgets/util/status_line.h"

#include <QPainter>

namespace ls::gui {

StatusLine::StatusLine(QWidget* parent) : QWidget(parent) {
    setSizePolicy(QSizePolicy::Ignored, QSizePolicy::Fixed);
}

void StatusLine::setText(const QString& text) {
    if (text == text_) return;
    text_ = text;
    setToolTip(text_); // the whole text where the line elides it
    update();
}

QSize StatusLine::sizeHint() const { return {0, fontMetrics().height()}; }
QSize StatusLine::minimumSizeHint() const { return sizeHint(); }

void StatusLine::paintEvent(QPaintEvent*) {
    QPainter p(this);
    p.setPen(palette().color(QPalette::WindowText));
    p.drawText(rect(), Qt::AlignLeft | Qt::AlignVCenter,
               fontMetrics().elidedText(text_, Qt::ElideRight, width()));
}

} // namespace ls::gui
