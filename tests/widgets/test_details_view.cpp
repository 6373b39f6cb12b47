// The Details dock as a user reads it: a first width that fits a launch call and a GEMM name,
// long values wrapped at their punctuation only, selectable text that copies without the
// invisible break opportunities.
#include "tests/widgets/widget_test_support.h"
#include "widgets/tables/details_view.h"
#include "widgets/tables/kernel_table_view.h"
#include "widgets/window/main_window.h"

#include <QAbstractTextDocumentLayout>
#include <QApplication>
#include <QClipboard>
#include <QDockWidget>
#include <QSettings>
#include <QSignalSpy>
#include <QStandardPaths>
#include <QTest>
#include <QTextBlock>
#include <QTextLayout>
#include <gtest/gtest.h>

namespace {

using ls::KernelId;
using ls::gui::DetailsView;
using ls::gui::MainWindow;

// The lines `block` is laid out in, as the text of each.
QStringList linesOf(const QTextBlock& block) {
    QStringList lines;
    const QTextLayout* layout = block.layout();
    for (int i = 0; i < layout->lineCount(); ++i)
        lines << block.text().mid(layout->lineAt(i).textStart(), layout->lineAt(i).textLength());
    return lines;
}

// The first block whose text, without break opportunities, is exactly `text`.
QTextBlock blockWithText(QTextDocument* doc, const QString& text) {
    doc->documentLayout()->documentSize(); // lays everything out
    for (QTextBlock b = doc->begin(); b.isValid(); b = b.next())
        if (ls::gui::withoutBreaks(b.text()) == text) return b;
    return {};
}

TEST(BreakableHtml, BreaksAfterPunctuationOnly) {
    const QString zw(QChar(0x200B));
    EXPECT_EQ(ls::gui::breakableHtml(QStringLiteral("cuLaunchKernel")),
              QStringLiteral("cuLaunchKernel"));
    EXPECT_EQ(ls::gui::breakableHtml(QStringLiteral("at::native::f<a_b, c>")),
              QStringLiteral("at::") + zw + QStringLiteral("native::") + zw +
                  QStringLiteral("f&lt;") + zw + QStringLiteral("a_") + zw + QStringLiteral("b,") +
                  zw + QStringLiteral(" c&gt;"));
    EXPECT_EQ(ls::gui::withoutBreaks(ls::gui::breakableHtml(QStringLiteral("a_b"))),
              QStringLiteral("a_b"));
}

TEST(DetailsView, FirstWidthIsAQuarterOfTheWindowAtLeast420) {
    EXPECT_EQ(DetailsView::firstWidth(1000), 420);
    EXPECT_EQ(DetailsView::firstWidth(1920), 480);
}

TEST(DetailsView, ReadableWidthWholeCallNameAndCopyableText) {
    QStandardPaths::setTestModeEnabled(true);
    QSettings().clear(); // a first start: no saved dock layout
    MainWindow w;
    w.resize(1728, 972); // the first start's 90% of a 1920x1080 screen
    w.show();
    QSignalSpy loaded(&w, &MainWindow::traceLoaded);
    w.openFile(ls::gui::test::samplePath());
    ASSERT_TRUE(loaded.wait(30000));
    auto* dock = w.findChild<QDockWidget*>(QStringLiteral("detailsDock"));
    ASSERT_TRUE(dock);
    EXPECT_GE(dock->width(), 420) << "the central widget needs "
                                  << w.centralWidget()->minimumSizeHint().width() << " px";

    auto* details = qobject_cast<DetailsView*>(w.detailsView());
    ASSERT_TRUE(details);
    EXPECT_TRUE(details->textInteractionFlags() & Qt::TextSelectableByMouse);
    EXPECT_TRUE(details->textInteractionFlags() & Qt::TextSelectableByKeyboard);

    // A kernel launched by cuLaunchKernel, with a long templated name.
    const ls::Trace& t = *w.trace();
    KernelId chosen;
    for (uint32_t k = 0; k < t.kernels.size() && !chosen.valid(); ++k) {
        const ls::ApiCallId call = t.kernels.launch[k];
        if (call.valid() && t.str(t.apiCalls.name[call.value]) == "cuLaunchKernel")
            chosen = KernelId(k);
    }
    ASSERT_TRUE(chosen.valid());
    ASSERT_TRUE(w.kernelView()->selectKernel(chosen));
    const QString name = QString::fromStdString(std::string(t.str(t.kernels.name[chosen.value])));

    for (int width :
         {dock->width(), 260}) { // the first width, and narrower than anyone should make it
        details->setFixedWidth(width);
        QTest::qWait(1);
        const QTextBlock call =
            blockWithText(details->document(), QStringLiteral("cuLaunchKernel"));
        ASSERT_TRUE(call.isValid());
        EXPECT_EQ(linesOf(call).size(), 1)
            << linesOf(call).join(QStringLiteral(" / ")).toStdString();
        // The kernel name wraps only after a space or an inserted break opportunity.
        const QTextBlock title = blockWithText(details->document(), name);
        ASSERT_TRUE(title.isValid());
        const QStringList lines = linesOf(title);
        for (qsizetype i = 0; i + 1 < lines.size(); ++i)
            EXPECT_TRUE(lines[i].endsWith(QChar(0x200B)) || lines[i].endsWith(QLatin1Char(' ')))
                << lines[i].toStdString();
    }

    details->selectAll();
    details->copy();
    const QString copied = QApplication::clipboard()->text();
    EXPECT_TRUE(copied.contains(name));
    EXPECT_TRUE(copied.contains(QStringLiteral("cuLaunchKernel")));
    EXPECT_FALSE(copied.contains(QChar(0x200B)));
}

} // namespace
