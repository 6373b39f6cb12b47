#pragma once
// One line of text that changes often (a load's progress, a few times a second) and never asks
// its window for a new layout: one text line high and as wide as its layout gives it, whatever it
// says, the text elided to fit. A QLabel asks for a layout of its page at every new text even
// when its size cannot change, and while the loader keeps both cores busy that layout and the
// page's repaint took 20-45 ms of the GUI thread.
#include <QString>
#include <QWidget>

namespace ls::gui {

class StatusLine : public QWidget {
  public:
    explicit StatusLine(QWidget* parent = nullptr);
    void setText(const QString& text); // repaints the line, nothing else
    const QString& text() const { return text_; }
    QSize sizeHint() const override;
    QSize minimumSizeHint() const override;

  protected:
    void paintEvent(QPaintEvent* event) override;

  private:
    QString text_;
};

} // namespace ls::gui
