#include "widgets/tables/details_view.h"

#include <QApplication>
#include <QClipboard>
#include <QContextMenuEvent>
#include <QDockWidget>
#include <QMainWindow>
#include <QMenu>
#include <QMimeData>
#include <QTextDocumentFragment>
#include <QTimer>
#include <algorithm>

namespace ls::gui {
namespace {
constexpr QChar kBreak(0x200B); // zero-width space: a line may break here, nothing is drawn
} // namespace

QString breakableHtml(const QString& text) {
    QString out;
    out.reserve(text.size() + text.size() / 4);
    for (qsizetype i = 0; i < text.size(); ++i) {
        const QChar c = text[i];
        out += c;
        const bool afterScope = c == QLatin1Char(':') && i > 0 && text[i - 1] == QLatin1Char(':');
        const bool punct = c == QLatin1Char('<') || c == QLatin1Char(',') ||
                           c == QLatin1Char('_') || c == QLatin1Char('(') || c == QLatin1Char('/');
        // Not at the very end, nor between two colons of one "::".
        if ((afterScope || punct) && i + 1 < text.size() && text[i + 1] != QLatin1Char(':'))
            out += kBreak;
    }
    return out.toHtmlEscaped();
}

QString withoutBreaks(QString text) { return text.remove(kBreak); }

DetailsView::DetailsView(QWidget* parent) : QTextBrowser(parent) {
    setOpenLinks(false);
    // Breaks only where the text allows one (spaces and the inserted ones): Qt's default also
    // breaks anywhere, which split "cuLaunchKernel" in a narrow dock.
    setWordWrapMode(QTextOption::WordWrap);
    setTextInteractionFlags(Qt::TextSelectableByMouse | Qt::TextSelectableByKeyboard |
                            Qt::LinksAccessibleByMouse);
}

int DetailsView::firstWidth(int windowWidth) { return std::max(420, windowWidth / 4); }

void DetailsView::showEvent(QShowEvent* e) {
    QTextBrowser::showEvent(e);
    if (!widenDock_) return;
    widenDock_ = false;
    // After this event: the window's dock layout is in place by then.
    QTimer::singleShot(0, this, [this] {
        auto* dock = qobject_cast<QDockWidget*>(parentWidget());
        auto* window = dock ? qobject_cast<QMainWindow*>(dock->parentWidget()) : nullptr;
        if (window && !dock->isFloating())
            window->resizeDocks({dock}, {firstWidth(window->width())}, Qt::Horizontal);
    });
}

QMimeData* DetailsView::createMimeDataFromSelection() const {
    auto* mime = new QMimeData;
    mime->setText(withoutBreaks(textCursor().selection().toPlainText()));
    return mime;
}

void DetailsView::contextMenuEvent(QContextMenuEvent* e) {
    QMenu menu(this);
    QAction* copy =
        menu.addAction(QStringLiteral("&Copy"), QKeySequence::Copy, this, &QTextEdit::copy);
    copy->setEnabled(textCursor().hasSelection());
    menu.addAction(QStringLiteral("Copy &All"), this,
                   [this] { QApplication::clipboard()->setText(plainText()); });
    menu.addSeparator();
    menu.addAction(QStringLiteral("Select &All"), QKeySequence::SelectAll, this,
                   &QTextEdit::selectAll);
    menu.exec(e->globalPos());
}

} // namespace ls::gui
