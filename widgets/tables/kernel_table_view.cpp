#include "widgets/tables/kernel_table_view.h"

#include "widgets/tables/kernel_count.h"
#include "widgets/tables/kernel_table_model.h"
#include "widgets/tables/window_shortcuts.h"

#include <QAction>
#include <QApplication>
#include <QClipboard>
#include <QHBoxLayout>
#include <QHeaderView>
#include <QItemSelectionModel>
#include <QLabel>
#include <QLineEdit>
#include <QMenu>
#include <QSettings>
#include <QTableView>
#include <QTimer>
#include <QToolButton>
#include <QVBoxLayout>
#include <QWhatsThis>
#include <algorithm>
#include <array>

namespace ls::gui {
namespace {

const auto kHeaderKey = QStringLiteral("kernelTable/header");

// What a first-time user sees; the rest is one right-click on the header away.
constexpr std::array kDefaultColumns = {
    KernelField::Start, KernelField::Duration, KernelField::Name,    KernelField::Layer,
    KernelField::Op,    KernelField::Dir,      KernelField::Sizes,   KernelField::Flops,
    KernelField::Bytes, KernelField::TflopsS,  KernelField::GbytesS, KernelField::DataType,
    KernelField::Tc,    KernelField::Grid,     KernelField::Block,   KernelField::Stream,
    KernelField::Graph};

} // namespace

KernelTableView::KernelTableView(KernelTableModel* model, QWidget* parent)
    : QWidget(parent), model_(model), table_(new QTableView), filter_(new QLineEdit),
      scope_(new QLabel), clearScope_(new QToolButton), count_(new QLabel), error_(new QLabel),
      debounce_(new QTimer(this)) {
    filter_->setPlaceholderText(QStringLiteral("Filter kernels: text, /regex/, duration > 50us, tc "
                                               "= not used, layer = layer0 and op ~ mm"));
    filter_->setClearButtonEnabled(true);
    filter_->setToolTip(
        QStringLiteral("Free text matches name, op and layer; /regex/ too.\n"
                       "Conditions: COLUMN OP VALUE with = != < <= > >= ~ (regex) !~,\n"
                       "units ns us ms s, k M G T, B kB MB GB. Join with 'and' or ';'."));
    filter_->setObjectName(QStringLiteral("kernelFilter"));
    letWindowShortcutsThrough(filter_); // Ctrl+E exports from the filter bar too
    clearScope_->setText(QStringLiteral("✕"));
    clearScope_->setToolTip(QStringLiteral("Show all kernels (Esc)"));
    clearScope_->setAutoRaise(true);
    error_->setStyleSheet(QStringLiteral("color: #b00020;"));
    scope_->setStyleSheet(
        QStringLiteral("QLabel { background: #e3ecf8; border-radius: 3px; padding: 1px 6px; }"));

    auto* bar = new QHBoxLayout;
    bar->setContentsMargins(0, 0, 0, 0);
    bar->addWidget(scope_);
    bar->addWidget(clearScope_);
    bar->addWidget(filter_, 1);
    bar->addWidget(error_);
    bar->addWidget(count_);

    table_->setModel(model_);
    table_->setSortingEnabled(true);
    table_->setSelectionBehavior(QAbstractItemView::SelectRows);
    table_->setSelectionMode(QAbstractItemView::ExtendedSelection);
    table_->setWordWrap(false);
    table_->setTextElideMode(Qt::ElideMiddle);
    table_->setContextMenuPolicy(Qt::CustomContextMenu);
    table_->verticalHeader()->hide();
    table_->verticalHeader()->setSectionResizeMode(QHeaderView::Fixed);
    table_->verticalHeader()->setDefaultSectionSize(table_->fontMetrics().height() + 6);
    auto* header = table_->horizontalHeader();
    header->setSectionsMovable(true);
    header->setContextMenuPolicy(Qt::CustomContextMenu);
    header->setDefaultSectionSize(90);
    header->resizeSection(static_cast<int>(KernelField::Name), 360);
    header->resizeSection(static_cast<int>(KernelField::Start), 120);
    header->resizeSection(static_cast<int>(KernelField::End), 120);
    table_->sortByColumn(static_cast<int>(KernelField::Duration),
                         Qt::DescendingOrder); // until a saved layout says otherwise
    header->resizeSection(static_cast<int>(KernelField::Sizes), 180);
    header->resizeSection(static_cast<int>(KernelField::NvtxPath), 260);
    header->resizeSection(static_cast<int>(KernelField::NvtxRange), 260);
    header->resizeSection(static_cast<int>(KernelField::Graph), 150); // "graph 12 node 225"
    for (int c = 0; c < model_->columnCount(); ++c)
        header->setSectionHidden(c,
                                 std::find(kDefaultColumns.begin(), kDefaultColumns.end(),
                                           static_cast<KernelField>(c)) == kDefaultColumns.end());

    auto* layout = new QVBoxLayout(this);
    layout->setContentsMargins(2, 2, 2, 2);
    layout->addLayout(bar);
    layout->addWidget(table_, 1);

    debounce_->setSingleShot(true);
    debounce_->setInterval(250); // typing in a 1M-row table: apply when the user pauses
    connect(filter_, &QLineEdit::textChanged, debounce_, qOverload<>(&QTimer::start));
    connect(filter_, &QLineEdit::returnPressed, this, &KernelTableView::applyFilterNow);
    connect(debounce_, &QTimer::timeout, this, &KernelTableView::applyFilterNow);
    connect(clearScope_, &QToolButton::clicked, model_, &KernelTableModel::clearScope);
    connect(model_, &KernelTableModel::rowsChanged, this, &KernelTableView::updateStatus);
    connect(model_, &QAbstractItemModel::modelReset, this, &KernelTableView::updateStatus);
    connect(header, &QHeaderView::customContextMenuRequested, this,
            &KernelTableView::showHeaderMenu);
    connect(table_, &QTableView::customContextMenuRequested, this, &KernelTableView::showRowMenu);
    connect(table_->selectionModel(), &QItemSelectionModel::currentRowChanged, this,
            [this](const QModelIndex& current) {
                emit currentKernelChanged(model_->kernelAt(current.row()));
            });
    connect(table_->selectionModel(), &QItemSelectionModel::selectionChanged, this,
            [this] { emit selectionChanged(); });

    auto* copy = new QAction(QStringLiteral("Copy rows"), this);
    copy->setShortcut(QKeySequence::Copy);
    copy->setShortcutContext(Qt::WidgetWithChildrenShortcut);
    connect(copy, &QAction::triggered, this, &KernelTableView::copySelection);
    table_->addAction(copy);
    auto* clear = new QAction(QStringLiteral("Show all kernels"), this);
    clear->setShortcut(Qt::Key_Escape);
    clear->setShortcutContext(Qt::WidgetWithChildrenShortcut);
    connect(clear, &QAction::triggered, this, [this] {
        model_->clearScope();
        filter_->clear();
        applyFilterNow();
    });
    addAction(clear);
    updateStatus();
}

void KernelTableView::applyFilter(const QString& expression) {
    filter_->setText(expression);
    applyFilterNow();
}

void KernelTableView::applyFilterNow() {
    debounce_->stop();
    if (filter_->text() == model_->filterText() && error_->text().isEmpty()) return;
    const QString error = model_->setFilter(filter_->text());
    error_->setText(error);
    error_->setToolTip(error);
    filter_->setStyleSheet(
        error.isEmpty() ? QString() : QStringLiteral("QLineEdit { border: 1px solid #b00020; }"));
    updateStatus();
}

void KernelTableView::updateStatus() {
    count_->setText(kernelCountText(model_->tables(), model_->rows(), model_->rowsGpuTimeNs()));
    scope_->setText(model_->scopeLabel());
    scope_->setVisible(model_->hasScope());
    clearScope_->setVisible(model_->hasScope());
}

bool KernelTableView::selectKernel(KernelId k) {
    const int row = model_->rowOf(k);
    if (row < 0) return false;
    model_->revealThrough(row);
    const QModelIndex index = model_->index(row, table_->horizontalHeader()->logicalIndex(0));
    table_->selectionModel()->setCurrentIndex(index, QItemSelectionModel::ClearAndSelect |
                                                         QItemSelectionModel::Rows);
    table_->scrollTo(index, QAbstractItemView::PositionAtCenter);
    return true;
}

KernelId KernelTableView::currentKernel() const {
    return model_->kernelAt(table_->currentIndex().row());
}

void KernelTableView::copySelection() const {
    QApplication::clipboard()->setText(viewText(*table_, true, QLatin1Char('\t')));
}

void KernelTableView::showHeaderMenu(const QPoint& pos) {
    QMenu menu(this);
    auto* header = table_->horizontalHeader();
    fillHeaderMenu(&menu, header->logicalIndexAt(pos), header->mapToGlobal(pos));
    menu.exec(header->mapToGlobal(pos));
}

void KernelTableView::fillHeaderMenu(QMenu* menu, int section, const QPoint& globalPos) {
    auto* header = table_->horizontalHeader();
    if (section >= 0 && section < model_->columnCount()) {
        const QString title =
            model_->headerData(section, Qt::Horizontal, Qt::DisplayRole).toString();
        const QString help =
            model_->headerData(section, Qt::Horizontal, Qt::ToolTipRole).toString();
        QAction* what = menu->addAction(
            QStringLiteral("What's this column? (%1)").arg(title), this,
            [this, title, help, globalPos] {
                QWhatsThis::showText(globalPos,
                                     QStringLiteral("<b>%1</b><br>%2")
                                         .arg(title.toHtmlEscaped(),
                                              help.toHtmlEscaped().replace(QLatin1Char('\n'),
                                                                           QStringLiteral("<br>"))),
                                     this);
            });
        what->setObjectName(QStringLiteral("whatsThisColumn"));
        what->setToolTip(help);
        menu->addSeparator();
    }
    for (int c = 0; c < model_->columnCount(); ++c) {
        QAction* a =
            menu->addAction(model_->headerData(c, Qt::Horizontal, Qt::DisplayRole).toString());
        a->setCheckable(true);
        a->setChecked(!header->isSectionHidden(c));
        a->setToolTip(model_->headerData(c, Qt::Horizontal, Qt::ToolTipRole).toString());
        connect(a, &QAction::toggled, this,
                [header, c](bool on) { header->setSectionHidden(c, !on); });
    }
    menu->setToolTipsVisible(true);
}

void KernelTableView::showRowMenu(const QPoint& pos) {
    const QModelIndex index = table_->indexAt(pos);
    const KernelId k = model_->kernelAt(index.row()); // a row id: the signals carry it
    if (!k.valid() || !model_->tables()) return;
    const KernelTable& table = model_->tableOf(k);
    const KernelId local = model_->localOf(k);
    const Trace& t = table.trace();
    const OpId op = t.kernelLinks.opInstance[local.value];
    const bool paired = op.valid() && t.ops.paired[op.value].valid();
    const bool backward = op.valid() && t.ops.direction[op.value] == Direction::Backward;
    const QString opName = QString::fromStdString(table.text(local, KernelField::Op));
    const QString layer = QString::fromStdString(table.text(local, KernelField::Layer));

    QMenu menu(this);
    menu.addAction(QStringLiteral("Show in timeline"), this, [this, k] { emit showInTimeline(k); });
    QAction* counterpart = menu.addAction(backward ? QStringLiteral("Show forward op's kernels")
                                                   : QStringLiteral("Show backward kernels"),
                                          this, [this, k] { emit showCounterpart(k); });
    counterpart->setEnabled(paired);
    QAction* panes = menu.addAction(QStringLiteral("Show op in Forward/Backward"), this,
                                    [this, k] { emit showInFwdBwd(k); });
    panes->setEnabled(op.valid());
    menu.addSeparator();
    QAction* byOp =
        menu.addAction(QStringLiteral("Filter to op %1").arg(opName), this, [this, opName] {
            QString quoted = opName;
            quoted.replace(QLatin1Char('"'), QStringLiteral("\\\""));
            applyFilter(QStringLiteral("op = \"%1\"").arg(quoted));
        });
    byOp->setEnabled(!opName.isEmpty());
    QAction* byLayer =
        menu.addAction(QStringLiteral("Show layer %1 (forward and backward)").arg(layer), this,
                       [this, k] { emit scopeToLayer(k); });
    byLayer->setEnabled(!layer.isEmpty());
    menu.addSeparator();
    menu.addAction(QStringLiteral("Copy rows"), QKeySequence::Copy, this,
                   &KernelTableView::copySelection);
    menu.exec(table_->viewport()->mapToGlobal(pos));
}

void KernelTableView::saveLayout() const {
    QSettings settings;
    settings.setValue(kHeaderKey, table_->horizontalHeader()->saveState());
}

void KernelTableView::restoreLayout() {
    QSettings settings;
    table_->horizontalHeader()->restoreState(settings.value(kHeaderKey).toByteArray());
}

} // namespace ls::gui
