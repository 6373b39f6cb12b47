#include "widgets/window/loading_page.h"

#include "widgets/timeline/load_overview_view.h"
#include "widgets/util/status_line.h"
#include "widgets/util/units.h"

#include <QHBoxLayout>
#include <QLabel>
#include <QMainWindow>
#include <QPushButton>
#include <QTimer>
#include <QVBoxLayout>

namespace ls::gui {
namespace {
constexpr int kTickMs = 200;
}

LoadingPage::LoadingPage(QMainWindow* window) : QWidget(window), window_(window) {
    setObjectName(QStringLiteral("loadingPage"));
    title_ = new QLabel;
    QFont big = title_->font();
    big.setPointSizeF(big.pointSizeF() * 1.3);
    big.setBold(true);
    title_->setFont(big);
    // The two lines change text at every tick: StatusLine repaints itself and asks for no layout
    // of the page (a relayout and a repaint of the whole page on the GUI thread, tens of ms
    // while the loader keeps both cores busy).
    progress_ = new StatusLine;
    kernels_ = new StatusLine;
    overview_ = new LoadOverviewView;
    cancel_ = new QPushButton(QStringLiteral("Cancel"));
    cancel_->setToolTip(QStringLiteral("Stop loading (the window keeps what it showed before)"));
    auto* note = new QLabel(
        QStringLiteral("The kernel table, the layer tree and the other tabs open once the whole "
                       "file is read, its kernels matched to their calls and layers and priced."));
    note->setWordWrap(true);
    note->setForegroundRole(QPalette::PlaceholderText);
    auto* top = new QHBoxLayout;
    top->addWidget(title_, 1);
    top->addWidget(cancel_);
    auto* layout = new QVBoxLayout(this);
    layout->addLayout(top);
    layout->addWidget(progress_);
    layout->addWidget(kernels_);
    layout->addWidget(overview_, 1);
    layout->addWidget(note);
    timer_ = new QTimer(this);
    timer_->setInterval(kTickMs);
    connect(timer_, &QTimer::timeout, this, &LoadingPage::tick);
    connect(cancel_, &QPushButton::clicked, this, &LoadingPage::cancelRequested);
    hide();
}

void LoadingPage::begin(const QString& title, std::shared_ptr<const LoadOverview> overview,
                        qint64 fileBytes) {
    title_->setText(title);
    fileBytes_ = fileBytes;
    done_ = total_ = 0;
    inBytes_ = false;
    table_.clear();
    overview_->setOverview(std::move(overview));
    clock_.start();
    tick();
    timer_->start();
    if (shown()) return; // a load that supersedes one still loading
    content_ = window_->takeCentralWidget();
    content_->setParent(window_); // owned by the window while the page stands in for it
    content_->hide();
    window_->setCentralWidget(this); // the window owns the page now: end() takes it back
    show();
}

void LoadingPage::setProgress(qint64 done, qint64 total, const QString& table, bool inBytes) {
    done_ = done;
    total_ = total;
    table_ = table;
    inBytes_ = inBytes;
    tick();
}

void LoadingPage::end() {
    timer_->stop();
    overview_->setOverview(nullptr);
    if (!shown()) return;
    window_->takeCentralWidget();
    setParent(window_);
    hide();
    window_->setCentralWidget(content_);
    content_->show();
    content_ = nullptr;
}

QString LoadingPage::progressText() const { return progress_->text(); }

void LoadingPage::tick() {
    overview_->refresh();
    const QString elapsed = formatDuration(static_cast<double>(clock_.nsecsElapsed()));
    if (total_ <= 0) {
        // The reader draws the file's first kernels, then makes room for all the rows (seconds
        // on a big file) before it reports any.
        progress_->setText(
            overview_->snapshot().kernels
                ? QStringLiteral("Making room for the rest of the file…  ·  %1").arg(elapsed)
                : QStringLiteral("Opening the file…  ·  %1").arg(elapsed));
    } else if (inBytes_) {
        progress_->setText(QStringLiteral("Read %1 of %2 (%3 %)  ·  %4")
                               .arg(formatBytes(static_cast<double>(done_)),
                                    formatBytes(static_cast<double>(total_)))
                               .arg(100 * done_ / total_)
                               .arg(elapsed));
    } else {
        // Rows are what the reader counts; the bytes follow from them (rows take about the same
        // room across an event table's pages).
        const QString bytes =
            fileBytes_ > 0
                ? QStringLiteral("  ·  about %1 of %2")
                      .arg(formatBytes(static_cast<double>(fileBytes_) *
                                       static_cast<double>(done_) / static_cast<double>(total_)),
                           formatBytes(static_cast<double>(fileBytes_)))
                : QString();
        const QString what = done_ < total_
                                 ? QStringLiteral("Reading %1").arg(table_)
                                 : QStringLiteral("Every row read; sorting, matching "
                                                  "kernels to calls and layers, pricing");
        progress_->setText(QStringLiteral("%1  ·  %L2 of %L3 rows (%4 %)%5  ·  %6")
                               .arg(what)
                               .arg(done_)
                               .arg(total_)
                               .arg(100 * done_ / total_)
                               .arg(bytes, elapsed));
    }
    const auto& s = overview_->snapshot();
    kernels_->setText(s.kernels ? QStringLiteral("%L1 kernels read on %2 stream%3, spanning %4")
                                      .arg(s.kernels)
                                      .arg(s.lanes.size())
                                      .arg(s.lanes.size() == 1 ? QString() : QStringLiteral("s"))
                                      .arg(formatDuration(static_cast<double>(s.toNs - s.fromNs)))
                                : QString());
}

} // namespace ls::gui
