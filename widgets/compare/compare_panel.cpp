#include "widgets/compare/compare_panel.h"

#include "widgets/compare/compare_timelines.h"
#include "widgets/compare/diff_chart.h"
#include "widgets/compare/diff_table_model.h"
#include "widgets/util/units.h"

#include <QAction>
#include <QCheckBox>
#include <QComboBox>
#include <QDir>
#include <QFileDialog>
#include <QFileInfo>
#include <QHBoxLayout>
#include <QHeaderView>
#include <QItemSelectionModel>
#include <QLabel>
#include <QSettings>
#include <QSplitter>
#include <QTabWidget>
#include <QTableView>
#include <QToolButton>
#include <QVBoxLayout>
#include <cmath>

namespace ls::gui {
namespace {

const auto kLastFileKey = QStringLiteral("compare/lastFile");

constexpr DiffLevel kLevels[] = {DiffLevel::Direction, DiffLevel::Layer,  DiffLevel::Op,
                                 DiffLevel::Family,    DiffLevel::Kernel, DiffLevel::Iteration};

QString levelTitle(DiffLevel l) {
    switch (l) {
    case DiffLevel::Direction:
        return QStringLiteral("Direction");
    case DiffLevel::Layer:
        return QStringLiteral("Layer");
    case DiffLevel::Op:
        return QStringLiteral("Op");
    case DiffLevel::Family:
        return QStringLiteral("Kernel family");
    case DiffLevel::Kernel:
        return QStringLiteral("Kernel");
    case DiffLevel::Iteration:
        return QStringLiteral("Iteration");
    }
    return {};
}

QString levelPlural(DiffLevel l) {
    switch (l) {
    case DiffLevel::Direction:
        return QStringLiteral("directions");
    case DiffLevel::Layer:
        return QStringLiteral("layers");
    case DiffLevel::Op:
        return QStringLiteral("ops");
    case DiffLevel::Family:
        return QStringLiteral("kernel families");
    case DiffLevel::Kernel:
        return QStringLiteral("kernels");
    case DiffLevel::Iteration:
        return QStringLiteral("iterations");
    }
    return {};
}

// The level a drill-down from a row of `l` opens; nullopt where there is none.
std::optional<DiffLevel> nextLevel(DiffLevel l) {
    switch (l) {
    case DiffLevel::Direction:
        return DiffLevel::Layer;
    case DiffLevel::Layer:
        return DiffLevel::Op;
    case DiffLevel::Op:
    case DiffLevel::Family:
        return DiffLevel::Kernel;
    default:
        return std::nullopt;
    }
}

QString q(const std::string& s) { return QString::fromStdString(s); }

// "layer0 backward", "aten::linear #2", a family's name; empty for no scope.
QString scopeLabel(const DiffScope& s) {
    QString where;
    if (s.op)
        where = q(*s.op);
    else if (s.family)
        where = q(*s.family);
    else if (s.layer)
        where = s.layer->empty() ? QStringLiteral("(no layer)") : q(*s.layer);
    if (s.direction && !s.op)
        where += (where.isEmpty() ? QString() : QStringLiteral(" ")) +
                 q(std::string(directionName(*s.direction)));
    return where;
}

QString batchText(int64_t batch, const std::string& source) {
    return batch > 0 ? QStringLiteral("%1 (%2)").arg(batch).arg(q(source))
                     : QStringLiteral("unknown");
}

} // namespace

ComparePanel::ComparePanel(QWidget* parent)
    : QWidget(parent), loader_(new CompareLoader(this)), verdict_(new QLabel),
      normalized_(new QLabel), level_(new QComboBox),
      perSample_(new QCheckBox(QStringLiteral("Per sample"))), back_(new QToolButton),
      crumbs_(new QLabel), model_(new DiffTableModel(this)), proxy_(new DiffSortProxy(this)),
      table_(new QTableView), chart_(new DiffChart), timelines_(new CompareTimelines) {
    verdict_->setObjectName(QStringLiteral("compareVerdict"));
    verdict_->setWordWrap(true);
    verdict_->setTextInteractionFlags(Qt::TextSelectableByMouse);
    QFont big = verdict_->font();
    big.setBold(true);
    big.setPointSizeF(big.pointSizeF() * 1.1);
    verdict_->setFont(big);
    normalized_->setWordWrap(true);
    normalized_->setStyleSheet(QStringLiteral("color:#555"));
    for (DiffLevel l : kLevels) level_->addItem(levelTitle(l), static_cast<int>(l));
    level_->setToolTip(QStringLiteral("What the runs are matched by: direction, layer (and "
                                      "direction), op (the k-th op of a name in a "
                                      "layer and direction), kernel family (precision and tile "
                                      "sizes folded), kernel name, iteration"));
    perSample_->setToolTip(QStringLiteral("Divide times and FLOPs by each run's batch size "
                                          "(samples per iteration, from the forward ops' shapes)"));
    back_->setText(QStringLiteral("◀ Up"));
    back_->setToolTip(QStringLiteral("Back up one drill-down step (Backspace, Alt+Left)"));
    back_->setAutoRaise(true);
    crumbs_->setTextFormat(Qt::RichText);
    crumbs_->setSizePolicy(QSizePolicy::Ignored, QSizePolicy::Preferred);
    crumbs_->setToolTip(QStringLiteral("Double-click or Enter on a row drills down: a direction to "
                                       "its layers, a layer to its ops, an op or "
                                       "a family to its kernels. Click a step to go back to it."));

    proxy_->setSourceModel(model_);
    table_->setObjectName(QStringLiteral("compare"));
    table_->setModel(proxy_);
    table_->setSortingEnabled(true);
    table_->horizontalHeader()->setSortIndicator(
        -1, Qt::AscendingOrder); // the diff's order: largest difference first
    proxy_->sort(-1);
    table_->setSelectionBehavior(QAbstractItemView::SelectRows);
    table_->setAlternatingRowColors(true);
    table_->verticalHeader()->hide();
    table_->setWordWrap(false);
    table_->setTextElideMode(Qt::ElideMiddle);
    table_->verticalHeader()->setDefaultSectionSize(table_->fontMetrics().height() + 6);
    table_->horizontalHeader()->setStretchLastSection(false);
    table_->horizontalHeader()->setHighlightSections(false);

    auto* controls = new QHBoxLayout;
    controls->setContentsMargins(0, 0, 0, 0);
    controls->addWidget(new QLabel(QStringLiteral("Level:")));
    controls->addWidget(level_);
    controls->addWidget(perSample_);
    controls->addSpacing(12);
    controls->addWidget(back_);
    controls->addWidget(crumbs_, 1);
    auto* top = new QSplitter(Qt::Horizontal);
    top->addWidget(table_);
    top->addWidget(chart_);
    top->setStretchFactor(0, 3);
    top->setStretchFactor(1, 2);
    top->setSizes({600, 400}); // scaled to the width it gets
    auto* split = new QSplitter(Qt::Vertical);
    split->addWidget(top);
    split->addWidget(timelines_);
    split->setStretchFactor(0, 2);
    split->setStretchFactor(1, 3);
    split->setSizes({400, 600});
    auto* layout = new QVBoxLayout(this);
    layout->setContentsMargins(6, 4, 6, 0);
    layout->setSpacing(3);
    layout->addWidget(verdict_);
    layout->addWidget(normalized_);
    layout->addLayout(controls);
    layout->addWidget(split, 1);

    auto* up = new QAction(QStringLiteral("Back up"), this);
    up->setShortcuts({QKeySequence(Qt::Key_Backspace), QKeySequence(Qt::ALT | Qt::Key_Left)});
    up->setShortcutContext(Qt::WidgetWithChildrenShortcut);
    table_->addAction(up);
    chart_->addAction(up);
    connect(up, &QAction::triggered, this, &ComparePanel::goBack);
    connect(back_, &QToolButton::clicked, this, &ComparePanel::goBack);
    connect(crumbs_, &QLabel::linkActivated, this,
            [this](const QString& link) { goToStep(link.toULongLong()); });
    connect(level_, &QComboBox::activated, this,
            [this](int i) { setLevel(static_cast<DiffLevel>(level_->itemData(i).toInt())); });
    connect(perSample_, &QCheckBox::toggled, this, &ComparePanel::setPerSample);
    connect(table_, &QTableView::activated, this,
            [this](const QModelIndex& i) { drillDown(proxy_->mapToSource(i).row()); });
    connect(table_->selectionModel(), &QItemSelectionModel::currentRowChanged, this,
            [this](const QModelIndex& current) {
                rowSelected(current.isValid() ? proxy_->mapToSource(current).row() : -1);
            });
    connect(chart_, &DiffChart::rowClicked, this, [this](int row) {
        const QModelIndex i = proxy_->mapFromSource(model_->index(row, 0));
        table_->selectionModel()->setCurrentIndex(i, QItemSelectionModel::ClearAndSelect |
                                                         QItemSelectionModel::Rows);
        table_->scrollTo(i);
    });

    connect(loader_, &CompareLoader::progress, this, &ComparePanel::statusMessage);
    connect(loader_, &CompareLoader::failed, this,
            [this](const QString& path, const QString& reason) {
                emit statusMessage(QStringLiteral("Could not compare with %1: %2")
                                       .arg(QFileInfo(path).fileName(), reason));
            });
    connect(loader_, &CompareLoader::cancelled, this,
            [this] { emit statusMessage(QStringLiteral("Comparison cancelled")); });
    connect(loader_, &CompareLoader::opened, this,
            [this](const std::shared_ptr<const CompareResult>& r) {
                loadingA_.reset();
                pair_ = r->pair;
                history_.clear();
                reselect_.clear();
                timelines_->setPair(pair_);
                const bool stale = r->options.level != options_.level ||
                                   r->options.perSample != options_.perSample;
                show(r);
                emit opened();
                emit statusMessage(QStringLiteral("Comparing %1 (A) with %2 (B) · diff in %3")
                                       .arg(QFileInfo(pair_->pathA).fileName(),
                                            QFileInfo(pair_->pathB).fileName(),
                                            formatDuration(r->seconds * 1e9)));
                if (stale) request(options_); // the level or Per sample changed while B was loading
            });
    connect(loader_, &CompareLoader::diffed, this,
            [this](const std::shared_ptr<const CompareResult>& r) {
                if (r->pair == pair_) show(r);
            });
    updateControls();
}

QString ComparePanel::lastComparedFile() { return QSettings().value(kLastFileKey).toString(); }

QString ComparePanel::chooseFile(QWidget* parent) {
    const QString last = lastComparedFile();
    const QString dir =
        last.isEmpty() ? QSettings().value(QStringLiteral("lastDir"), QDir::homePath()).toString()
                       : last;
    return QFileDialog::getOpenFileName(
        parent, QStringLiteral("Compare the open trace (A) with… (B)"), dir,
        QStringLiteral(
            "Traces (*.sqlite *.sql *.nvvp *.json *.json.gz *.nsys-rep *.qdrep);;All files (*)"));
}

void ComparePanel::compare(std::shared_ptr<const TraceViews> a, const QString& pathB) {
    if (!a || !a->trace) return;
    QSettings().setValue(kLastFileKey, QFileInfo(pathB).absoluteFilePath());
    DiffOptions options = options_;
    options.scope = {};
    options_ = options;
    history_.clear();
    updateControls();
    emit statusMessage(QStringLiteral("Compare: opening %1…").arg(QFileInfo(pathB).fileName()));
    loadingA_ = a->trace;
    loader_->open(a->trace, a->timeline, q(a->trace->displayPath()), pathB, options);
}

void ComparePanel::setBase(const std::shared_ptr<const Trace>& a) {
    if ((pair_ && pair_->a.trace != a) || (loader_->loading() && loadingA_ != a)) close();
}

void ComparePanel::close() {
    loader_->cancel();
    loadingA_.reset();
    const bool wasOpen = pair_ != nullptr;
    pair_.reset();
    shown_.reset();
    shownDiff_.reset();
    history_.clear();
    model_->setResult(nullptr);
    chart_->setResult(nullptr, {}, {});
    timelines_->setPair(nullptr);
    verdict_->clear();
    normalized_->clear();
    updateControls();
    if (wasOpen) emit closed();
}

bool ComparePanel::busy() const { return loader_->loading() || loader_->diffing(); }

void ComparePanel::request(const DiffOptions& options) {
    options_ = options;
    updateControls();
    if (pair_) loader_->diff(pair_, options);
}

void ComparePanel::setLevel(DiffLevel level) {
    DiffOptions o = options_;
    o.level = level;
    request(o);
}

void ComparePanel::setPerSample(bool on) {
    if (on == options_.perSample) return;
    DiffOptions o = options_;
    o.perSample = on;
    request(o);
}

bool ComparePanel::drillDown(int modelRow) {
    const DiffRow* row = model_->rowAt(modelRow);
    if (!row || model_->isTotal(modelRow) || row->scope.empty() || !shown_) return false;
    const auto next = nextLevel(shown_->diff.level);
    if (!next) return false;
    history_.push_back(Step{shown_->options, row->key});
    DiffOptions o = shown_->options;
    // The row's scope is the drill-down's; the outer scope stays where the row leaves a field open.
    if (row->scope.layer) o.scope.layer = row->scope.layer;
    if (row->scope.direction) o.scope.direction = row->scope.direction;
    if (row->scope.op) o.scope.op = row->scope.op;
    if (row->scope.family) o.scope.family = row->scope.family;
    o.level = *next;
    reselect_.clear();
    request(o);
    return true;
}

void ComparePanel::goBack() {
    if (!history_.empty()) goToStep(history_.size() - 1);
}

void ComparePanel::goToStep(size_t step) {
    if (step >= history_.size()) return;
    const Step s = history_[step];
    history_.resize(step);
    reselect_ = s.key;
    request(s.options);
}

QString ComparePanel::stepLabel(size_t step) const {
    const DiffOptions& o = step < history_.size() ? history_[step].options : options_;
    const QString where = scopeLabel(o.scope);
    return where.isEmpty() ? QStringLiteral("All %1").arg(levelPlural(o.level))
                           : QStringLiteral("%1: %2").arg(where, levelPlural(o.level));
}

QString ComparePanel::breadcrumb() const {
    QStringList steps;
    for (size_t i = 0; i <= history_.size(); ++i) steps << stepLabel(i);
    return steps.join(QStringLiteral(" › "));
}

QString ComparePanel::verdict() const { return verdict_->text(); }

void ComparePanel::updateControls() {
    for (int i = 0; i < level_->count(); ++i)
        if (level_->itemData(i).toInt() == static_cast<int>(options_.level))
            level_->setCurrentIndex(i);
    {
        const QSignalBlocker block(perSample_);
        perSample_->setChecked(options_.perSample);
    }
    back_->setEnabled(!history_.empty());
    QStringList steps;
    for (size_t i = 0; i < history_.size(); ++i)
        steps << QStringLiteral("<a href='%1'>%2</a>").arg(i).arg(stepLabel(i).toHtmlEscaped());
    steps << QStringLiteral("<b>%1</b>").arg(stepLabel(history_.size()).toHtmlEscaped());
    crumbs_->setText(steps.join(QStringLiteral(" › ")));
}

void ComparePanel::show(const std::shared_ptr<const CompareResult>& result) {
    shown_ = result;
    shownDiff_ = std::shared_ptr<const DiffResult>(result, &result->diff);
    const DiffResult& d = result->diff;
    const bool newColumns = !model_->result() || model_->result()->level != d.level;
    model_->setResult(shownDiff_);
    chart_->setResult(shownDiff_, q(pair_->a.label), q(pair_->b.label));
    QString verdict = q(d.verdict);
    if (verdict.isEmpty() && std::isfinite(d.total.ratio()))
        verdict = QStringLiteral("B takes %1× the GPU time of A per iteration")
                      .arg(d.total.ratio(), 0, 'f', 2);
    verdict_->setText(verdict);
    QString norm = QStringLiteral("%1 against %2  ·  times per iteration (A over %3, B over %4)")
                       .arg(q(pair_->a.label), q(pair_->b.label))
                       .arg(d.iterationsA)
                       .arg(d.iterationsB);
    norm += result->options.perSample ? QStringLiteral(" and per sample: batch A %1, B %2")
                                      : QStringLiteral("  ·  per sample off (batch A %1, B %2)");
    norm = norm.arg(batchText(d.batchA, d.batchSourceA), batchText(d.batchB, d.batchSourceB));
    for (const auto& note : d.notes) norm += QStringLiteral("  ·  ") + q(note);
    normalized_->setText(norm);
    if (newColumns) { // another level: other keys, and the op level's shapes
        table_->resizeColumnsToContents();
        table_->setColumnWidth(DiffTableModel::Key,
                               std::clamp(table_->columnWidth(DiffTableModel::Key), 120, 420));
        for (int c = DiffTableModel::AShapes; c < model_->columnCount(); ++c)
            table_->setColumnWidth(c, std::min(table_->columnWidth(c), 300));
    }
    updateControls();
    // The row left on the way back is selected again; otherwise the timelines outline the
    // drill-down's scope (the totals row's kernels), or nothing at the top.
    if (reselect_.empty() || !selectKey(reselect_)) {
        if (result->options.scope.empty())
            timelines_->clearHighlight();
        else
            rowSelected(model_->rowCount() - 1);
    }
    reselect_.clear();
    emit resultShown();
}

bool ComparePanel::selectKey(const std::string& key) {
    for (int r = 0; r < model_->rowCount(); ++r) {
        const DiffRow* row = model_->rowAt(r);
        if (!row || row->key != key || model_->isTotal(r)) continue;
        const QModelIndex i = proxy_->mapFromSource(model_->index(r, 0));
        table_->selectionModel()->setCurrentIndex(i, QItemSelectionModel::ClearAndSelect |
                                                         QItemSelectionModel::Rows);
        table_->scrollTo(i);
        return true;
    }
    return false;
}

void ComparePanel::rowSelected(int modelRow) {
    const DiffRow* row = model_->rowAt(modelRow);
    if (!row || !pair_ || !shown_) return;
    const bool total = model_->isTotal(modelRow);
    auto a = diffRowKernels(pair_->a, shown_->options, *row);
    auto b = diffRowKernels(pair_->b, shown_->options, *row);
    QString what = total ? scopeLabel(shown_->options.scope) : q(row->key);
    if (what.isEmpty()) what = QStringLiteral("All kernels");
    if (!total && !row->direction.empty()) what += QStringLiteral(" · ") + q(row->direction);
    timelines_->showKernels(std::move(a), std::move(b), what);
}

void ComparePanel::showAsTabOf(QTabWidget* tabs) {
    setWindowTitle(QStringLiteral(
        "Compare")); // the tab's name, also before it is a tab (Help → Keyboard Shortcuts)
    connect(this, &ComparePanel::opened, tabs, [this, tabs] {
        if (tabs->indexOf(this) < 0) tabs->addTab(this, windowTitle());
        tabs->setCurrentWidget(this);
    });
    connect(this, &ComparePanel::closed, tabs,
            [this, tabs] { tabs->removeTab(tabs->indexOf(this)); });
}

} // namespace ls::gui
