#pragma once
// The Details dock's text view: long kernel names wrap at their punctuation (the HTML carries
// zero-width break opportunities, see breakableHtml), never inside a word such as
// cuLaunchKernel; the text is selectable with mouse and keyboard and copies without those
// invisible breaks (Copy, Copy All in the context menu, Ctrl+C).
#include <QTextBrowser>

namespace ls::gui {

// HTML-escaped `text` with a zero-width space after each "::", "<", ",", "_", "(" and "/"
// so that a narrow column breaks a long name there and only there.
QString breakableHtml(const QString& text);
// `text` without the zero-width spaces breakableHtml inserted.
QString withoutBreaks(QString text);

class DetailsView : public QTextBrowser {
    Q_OBJECT
  public:
    explicit DetailsView(QWidget* parent = nullptr);
    // The dock's first width for a window `windowWidth` wide: a quarter of it, at least 420 px,
    // enough for a launch call and a GEMM's name in a few lines.
    static int firstWidth(int windowWidth);
    // Gives the dock holding this view its first width once the window shows it (a dock
    // resized before its window is shown keeps its size hint).
    void widenDockWhenShown() { widenDock_ = true; }
    // What the user reads (and copies): the text without break opportunities.
    QString plainText() const { return withoutBreaks(toPlainText()); }

  protected:
    QMimeData* createMimeDataFromSelection() const override;
    void contextMenuEvent(QContextMenuEvent* e) override;
    void showEvent(QShowEvent* e) override;

  private:
    bool widenDock_ = false;
};

} // namespace ls::gui
