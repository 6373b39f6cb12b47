#include "widgets/start/start_page.h"

#include <QCheckBox>
#include <QDir>
#include <QDockWidget>
#include <QFileInfo>
#include <QGuiApplication>
#include <QHBoxLayout>
#include <QLabel>
#include <QListWidget>
#include <QMainWindow>
#include <QPushButton>
#include <QScreen>
#include <QScrollArea>
#include <QSettings>
#include <QVBoxLayout>

namespace ls::gui {
namespace {

const auto kOpenSampleKey = QStringLiteral("startup/openSample");

// Exact commands: a user copies them onto the cluster.
const char* const kHowTo =
    "<h3>Getting a trace</h3>"
    "<p>Profile with Nsight Systems (CUDA, NVTX and OS runtime; only between "
    "<code>torch.cuda.profiler.start()</code> and <code>stop()</code>):</p>"
    "<pre>nsys profile -t cuda,nvtx,osrt --capture-range=cudaProfilerApi -o run python "
    "train.py</pre>"
    "<p>then export the report to SQLite and copy <code>run.sqlite</code> here (a "
    "<code>.nsys-rep</code> also "
    "opens when <code>nsys</code> is installed on this machine):</p>"
    "<pre>nsys export --type sqlite run.nsys-rep</pre>"
    "<p><b>Tip:</b> wrap the profiled steps in "
    "<code>torch.autograd.profiler.emit_nvtx(record_shapes=True)</code>: "
    "every op gets an NVTX marker with its shapes, which gives layers, forward/backward pairs, "
    "FLOPs and the "
    "Tensor Core verdict.</p>"
    "<h3>Inputs Layerscope reads</h3><ul>"
    "<li>Nsight Systems: <code>.sqlite</code> exports, <code>.nsys-rep</code> / "
    "<code>.qdrep</code> reports</li>"
    "<li>nvprof: <code>.sql</code> and <code>.nvvp</code> databases</li>"
    "<li>PyTorch profiler (Kineto) traces: <code>.json</code>, <code>.json.gz</code></li>"
    "<li>Nsight Compute CSV (<code>ncu --csv</code>): File → Import Nsight Compute CSV, onto an "
    "open trace</li>"
    "</ul><p>Several files, or a folder, open together as the ranks of one job. Files are opened "
    "read-only.</p>";

QLabel* richLabel(const QString& html) {
    auto* l = new QLabel(html);
    l->setTextFormat(Qt::RichText);
    l->setWordWrap(true);
    l->setTextInteractionFlags(Qt::TextSelectableByMouse); // the commands are for copying
    return l;
}

} // namespace

StartPage::StartPage(QMainWindow* window, int stateVersion)
    : QWidget(window), window_(window), stateVersion_(stateVersion),
      open_(new QPushButton(QStringLiteral("Open File…"))),
      sample_(new QPushButton(QStringLiteral("Open the Sample Trace"))), recent_(new QListWidget),
      openSample_(new QCheckBox(
          QStringLiteral("Open the sample trace when Layerscope starts without a file"))) {
    setObjectName(QStringLiteral("startPage"));
    hide();
    open_->setToolTip(
        QStringLiteral("Open a trace, or several (one per rank) as one session (Ctrl+O)"));
    sample_->setToolTip(QStringLiteral(
        "A two-layer GPT-2 training run in fp16 on an H200, traced with nsys and emit_nvtx"));
    open_->setDefault(true);
    recent_->setObjectName(QStringLiteral("startRecent"));
    recent_->setToolTip(QStringLiteral("Click a file to open it"));
    recent_->setMaximumHeight(recent_->fontMetrics().height() * 9);
    openSample_->setToolTip(QStringLiteral("Also: layerscope --no-sample starts on this page"));
    openSample_->setChecked(openSampleAtStart());

    auto* title = new QLabel(QStringLiteral("<h1 style='margin-bottom:0'>Layerscope</h1>"
                                            "<p style='color:#555'>GPU traces of deep-learning "
                                            "jobs, by layer: open a trace to begin.</p>"));
    auto* buttons = new QHBoxLayout;
    buttons->addWidget(open_);
    buttons->addWidget(sample_);
    buttons->addStretch(1);

    auto* column = new QWidget;
    column->setMaximumWidth(860);
    auto* layout = new QVBoxLayout(column);
    layout->addWidget(title);
    layout->addLayout(buttons);
    layout->addSpacing(8);
    layout->addWidget(new QLabel(QStringLiteral("<h3>Recent files</h3>")));
    layout->addWidget(recent_);
    layout->addWidget(richLabel(QString::fromUtf8(kHowTo)));
    layout->addWidget(openSample_);
    layout->addStretch(1);

    auto* centred = new QWidget;
    auto* row = new QHBoxLayout(centred);
    row->addStretch(1);
    row->addWidget(column, 4);
    row->addStretch(1);
    auto* scroll = new QScrollArea;
    scroll->setWidgetResizable(true);
    scroll->setFrameShape(QFrame::NoFrame);
    scroll->setWidget(centred);
    auto* outer = new QVBoxLayout(this);
    outer->setContentsMargins(0, 0, 0, 0);
    outer->addWidget(scroll);

    connect(open_, &QPushButton::clicked, this, &StartPage::openRequested);
    connect(sample_, &QPushButton::clicked, this, [this] { emit fileRequested(samplePath_); });
    connect(recent_, &QListWidget::itemActivated, this, [this](QListWidgetItem* item) {
        emit fileRequested(item->data(Qt::UserRole).toString());
    });
    connect(recent_, &QListWidget::itemClicked, this, [this](QListWidgetItem* item) {
        emit fileRequested(item->data(Qt::UserRole).toString());
    });
    connect(openSample_, &QCheckBox::toggled, this,
            [](bool on) { QSettings().setValue(kOpenSampleKey, on); });
}

bool StartPage::openSampleAtStart() { return QSettings().value(kOpenSampleKey, true).toBool(); }

void StartPage::showIn(const QStringList& recentFiles, const QString& samplePath) {
    samplePath_ = samplePath;
    const bool haveSample = QFileInfo::exists(samplePath);
    sample_->setEnabled(haveSample);
    if (!haveSample)
        sample_->setToolTip(QStringLiteral("The sample is not installed (%1)")
                                .arg(QDir::toNativeSeparators(samplePath)));
    recent_->clear();
    for (const QString& path : recentFiles) {
        const QFileInfo info(path);
        auto* item = new QListWidgetItem(
            QStringLiteral("%1    —    %2")
                .arg(info.fileName(), QDir::toNativeSeparators(info.absolutePath())),
            recent_);
        item->setData(Qt::UserRole, path);
        item->setToolTip(path);
        if (!info.exists()) item->setForeground(Qt::gray);
    }
    if (recentFiles.isEmpty()) recent_->addItem(QStringLiteral("(none yet)"));
    recent_->setEnabled(!recentFiles.isEmpty());
    if (shown()) return;
    dockState_ = window_->saveState(stateVersion_);
    for (QDockWidget* dock : window_->findChildren<QDockWidget*>(Qt::FindDirectChildrenOnly))
        dock->hide();
    content_ = window_->takeCentralWidget();
    content_->setParent(window_); // owned by the window while the page stands in for it
    content_->hide();
    window_->setCentralWidget(this);
    show();
}

void StartPage::leave() {
    if (!shown()) return;
    window_->takeCentralWidget();
    setParent(window_);
    hide();
    window_->setCentralWidget(content_);
    content_->show();
    content_ = nullptr;
    window_->restoreState(dockState_, stateVersion_);
}

QByteArray StartPage::windowState() const {
    return shown() ? dockState_ : window_->saveState(stateVersion_);
}

void fitToScreen(QWidget* window, double share) {
    const QScreen* screen = window->screen() ? window->screen() : QGuiApplication::primaryScreen();
    if (!screen) return;
    const QRect available = screen->availableGeometry();
    const QSize size(static_cast<int>(available.width() * share),
                     static_cast<int>(available.height() * share));
    window->resize(size);
    window->move(available.center() - QPoint(size.width() / 2, size.height() / 2));
}

} // namespace ls::gui
