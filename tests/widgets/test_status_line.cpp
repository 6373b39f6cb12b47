// StatusLine: the loading page's lines take a new text several times a second while the loader
// keeps both cores busy. A new text repaints the line only: the page is not laid out again (a
// QLabel in its place asks for a layout at every new text), and the text reads back whole.
#include "tests/widgets/widget_test_support.h"
#include "widgets/util/status_line.h"

#include <QCoreApplication>
#include <QEvent>
#include <QLabel>
#include <QVBoxLayout>
#include <QWidget>
#include <gtest/gtest.h>

namespace {

// How many layout requests the page gets while `line` takes ten new texts.
template <typename Line> int layoutsForTexts(Line* line, QWidget& page) {
    page.show();
    QCoreApplication::processEvents();
    ls::gui::test::EventCounter requests(QEvent::LayoutRequest);
    page.installEventFilter(&requests);
    for (int i = 0; i < 10; ++i) {
        line->setText(QStringLiteral("Reading NVTX_EVENTS  ·  %L1 of 8,117,280 rows").arg(i * 977));
        QCoreApplication::processEvents();
    }
    page.removeEventFilter(&requests);
    return requests.count;
}

TEST(StatusLine, NewTextsRepaintTheLineButNeverLayOutThePage) {
    QWidget page;
    auto* layout = new QVBoxLayout(&page);
    auto* line = new ls::gui::StatusLine;
    layout->addWidget(line);
    layout->addWidget(new QLabel(QStringLiteral("below")), 1);
    page.resize(600, 200);
    EXPECT_EQ(layoutsForTexts(line, page), 0);
    EXPECT_EQ(line->text(), QStringLiteral("Reading NVTX_EVENTS  ·  8,793 of 8,117,280 rows"));
    EXPECT_EQ(line->sizeHint().height(), line->fontMetrics().height());
    EXPECT_EQ(line->height(), line->fontMetrics().height()) << "one line high in its layout";

    // The same page with a label in the line's place does ask (what the line is for).
    QWidget labelPage;
    auto* labelLayout = new QVBoxLayout(&labelPage);
    auto* label = new QLabel;
    label->setSizePolicy(QSizePolicy::Ignored, QSizePolicy::Fixed);
    label->setFixedHeight(label->fontMetrics().height());
    labelLayout->addWidget(label);
    labelLayout->addWidget(new QLabel(QStringLiteral("below")), 1);
    labelPage.resize(600, 200);
    EXPECT_GT(layoutsForTexts(label, labelPage), 0);
}

} // namespace
