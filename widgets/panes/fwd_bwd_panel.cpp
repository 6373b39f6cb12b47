#include "widgets/panes/fwd_bwd_panel.h"

#include "core/present/step_timing.h"
#include "core/pytorch/correlation.h"
#include "widgets/panes/fwd_bwd_models.h"
#include "widgets/tables/kernel_table_model.h"

#include <QComboBox>
#include <QHBoxLayout>
#include <QHeaderView>
#include <QItemSelectionModel>
#include <QLabel>
#include <QSortFilterProxyModel>
#include <QSplitter>
#include <QTableView>
#include <QVBoxLayout>
#include <set>

namespace ls::gui {
namespace {

QTableView* makeTable(QAbstractItemModel* model, const QString& name) {
    auto* v = new QTableView;
    v->setObjectName(name);
    v->setModel(model);
    v->setSortingEnabled(true);
    v->setSelectionBehavior(QAbstractItemView::SelectRows);
    v->setSelectionMode(QAbstractItemView::ExtendedSelection);
    v->setWordWrap(false);
    v->setTextElideMode(Qt::ElideMiddle);
    v->verticalHeader()->hide();
    v->verticalHeader()->setSectionResizeMode(
        QHeaderView::Fixed); // rows of one height: no per-row sizes to track
    v->verticalHeader()->setDefaultSectionSize(v->fontMetrics().height() + 6);
    v->horizontalHeader()->setDefaultSectionSize(85);
    v->horizontalHeader()->setSectionsMovable(true);
    return v;
}

// A kernel list under an op table: the few columns that tell one kernel from another.
void showKernelColumns(QTableView* v) {
    for (int c = 0; c < v->model()->columnCount(); ++c) {
        const auto f = static_cast<KernelField>(c);
        // Short names told apart (the full name on hover): the lists are narrow.
        v->setColumnHidden(c, !(f == KernelField::Start || f == KernelField::Duration ||
                                f == KernelField::ShortName || f == KernelField::Op ||
                                f == KernelField::Flops || f == KernelField::TflopsS ||
                                f == KernelField::Tc));
    }
    v->horizontalHeader()->resizeSection(static_cast<int>(KernelField::ShortName), 260);
    v->horizontalHeader()->resizeSection(static_cast<int>(KernelField::Start), 110);
    v->sortByColumn(static_cast<int>(KernelField::Start), Qt::AscendingOrder);
}

QWidget* titled(const QString& title, QWidget* w) {
    auto* box = new QWidget;
    auto* l = new QVBoxLayout(box);
    l->setContentsMargins(0, 0, 0, 0);
    l->setSpacing(2);
    auto* label = new QLabel(QStringLiteral("<b>%1</b>").arg(title));
    l->addWidget(label);
    l->addWidget(w, 1);
    return box;
}

} // namespace

FwdBwdPanel::FwdBwdPanel(QWidget* parent)
    : QWidget(parent), forward_(new OpSideModel(OpSideModel::Side::Forward, this)),
      backward_(new OpSideModel(OpSideModel::Side::Backward, this)),
      forwardKernels_(new KernelTableModel(this)), backwardKernels_(new KernelTableModel(this)),
      ratios_(new FwdBwdRatioModel(this)), layer_(new QComboBox), ratioKey_(new QComboBox) {
    forwardView_ = makeTable(forward_, QStringLiteral("forwardOps"));
    backwardView_ = makeTable(backward_, QStringLiteral("backwardNodes"));
    forwardKernelsView_ = makeTable(forwardKernels_, QStringLiteral("forwardKernels"));
    backwardKernelsView_ = makeTable(backwardKernels_, QStringLiteral("backwardKernels"));
    auto* ratioProxy = new QSortFilterProxyModel(this);
    ratioProxy->setSourceModel(ratios_);
    ratioProxy->setSortRole(FwdBwdRatioModel::SortRole);
    ratioView_ = makeTable(ratioProxy, QStringLiteral("fwdBwdRatios"));
    for (QTableView* v : {forwardView_, backwardView_}) {
        v->horizontalHeader()->resizeSection(OpSideModel::Name, 230);
        v->horizontalHeader()->resizeSection(OpSideModel::Partner, 200);
        v->horizontalHeader()->resizeSection(OpSideModel::Shapes, 160);
        v->horizontalHeader()->resizeSection(OpSideModel::Unpaired, 300);
    }
    ratioView_->horizontalHeader()->resizeSection(FwdBwdRatioModel::Key, 240);
    ratioView_->horizontalHeader()->setDefaultSectionSize(120);
    for (QTableView* v : {forwardView_, backwardView_})
        v->sortByColumn(OpSideModel::GpuTime, Qt::DescendingOrder); // costliest first
    ratioView_->horizontalHeader()->setSortIndicator(FwdBwdRatioModel::Ratio, Qt::DescendingOrder);
    ratioKey_->addItems({QStringLiteral("per layer"), QStringLiteral("per op type")});
    ratioKey_->setToolTip(
        QStringLiteral("Rows of the backward/forward table: one per layer, or one per op type"));
    layer_->setToolTip(QStringLiteral("Show the ops of one layer"));

    auto* left = new QSplitter(Qt::Vertical);
    left->addWidget(titled(QStringLiteral("Forward ops"), forwardView_));
    left->addWidget(titled(QStringLiteral("Their kernels"), forwardKernelsView_));
    auto* right = new QSplitter(Qt::Vertical);
    right->addWidget(titled(QStringLiteral("Backward nodes"), backwardView_));
    right->addWidget(titled(QStringLiteral("Their kernels"), backwardKernelsView_));
    auto* sides = new QSplitter(Qt::Horizontal);
    sides->addWidget(left);
    sides->addWidget(right);
    auto* ratioBox = new QWidget;
    auto* ratioLayout = new QVBoxLayout(ratioBox);
    ratioLayout->setContentsMargins(0, 0, 0, 0);
    auto* ratioBar = new QHBoxLayout;
    ratioBar->addWidget(new QLabel(QStringLiteral("<b>Backward / forward GPU time</b>")));
    ratioBar->addWidget(ratioKey_);
    ratioBar->addStretch(1);
    ratioLayout->addLayout(ratioBar);
    ratioLayout->addWidget(ratioView_, 1);
    auto* all = new QSplitter(Qt::Vertical);
    all->addWidget(sides);
    all->addWidget(ratioBox);
    all->setStretchFactor(0, 3);
    all->setStretchFactor(1, 1);

    auto* bar = new QHBoxLayout;
    bar->addWidget(new QLabel(QStringLiteral("Layer:")));
    bar->addWidget(layer_);
    bar->addWidget(new QLabel(QStringLiteral(
                       "<span style='color:#777'>Select a forward op to see the backward work it "
                       "caused, or the "
                       "reverse. Grey rows are unpaired; the last column says why.</span>")),
                   1);
    auto* layout = new QVBoxLayout(this);
    layout->setContentsMargins(4, 4, 4, 4);
    layout->addLayout(bar);
    layout->addWidget(all, 1);

    connect(forwardView_->selectionModel(), &QItemSelectionModel::selectionChanged, this,
            [this] { sideSelected(true); });
    connect(backwardView_->selectionModel(), &QItemSelectionModel::selectionChanged, this,
            [this] { sideSelected(false); });
    connect(layer_, &QComboBox::currentIndexChanged, this,
            [this](int i) { showLayer(i <= 0 ? QString() : layer_->itemText(i)); });
    connect(ratioKey_, &QComboBox::currentIndexChanged, this, &FwdBwdPanel::fillRatios);
}

void FwdBwdPanel::setSession(std::shared_ptr<const KernelTable> table,
                             std::shared_ptr<const FwdBwdData> rows) {
    for (const auto& step : sessionSteps(std::move(table), std::move(rows))) step();
}

std::vector<std::function<void()>> FwdBwdPanel::showSteps(std::shared_ptr<const TraceViews> views) {
    std::vector<std::function<void()>> steps;
    for (auto& step : sessionSteps(views->kernels, views->fwdBwd))
        steps.emplace_back([step = std::move(step)] {
            const StepTiming timing("forward/backward step");
            step();
        });
    return steps;
}

bool FwdBwdPanel::showKernel(KernelId k) {
    if (!table_ || !k.valid() || k.value >= table_->trace().kernelLinks.opInstance.size())
        return false;
    return selectOp(table_->trace().kernelLinks.opInstance[k.value]);
}

std::vector<QAbstractItemView*> FwdBwdPanel::exportViews() const {
    return {forwardView_, backwardView_, ratioView_, forwardKernelsView_, backwardKernelsView_};
}

// One step per side (each side's reset is ~15 ms for a million kernels), then the layer list,
// then the ratios. Both sides are emptied first, so that no selection pairs one trace's rows with
// another's.
std::vector<std::function<void()>>
FwdBwdPanel::sessionSteps(std::shared_ptr<const KernelTable> table,
                          std::shared_ptr<const FwdBwdData> rows) {
    std::vector<std::function<void()>> steps;
    steps.emplace_back([this, table, rows] {
        forward_->setPairs(nullptr, nullptr);
        backward_->setPairs(nullptr, nullptr);
        forward_->setLayer(QString()); // every layer's rows for the new trace, sorted once
        backward_->setLayer(QString());
        table_ = table;
        data_ = table_ ? rows : nullptr;
        pairs_ = data_ ? data_->pairs : nullptr;
        forwardKernels_->setScopedTable(table_, {}, QString()); // empty until an op is selected
        backwardKernels_->setScopedTable(table_, {}, QString());
        showKernelColumns(forwardKernelsView_);
        showKernelColumns(backwardKernelsView_);
        // The rows' GPU-time order shared with the data that holds it.
        forward_->setPairs(
            table_ ? table_->tracePtr() : nullptr, pairs_,
            data_ ? std::shared_ptr<const std::vector<uint32_t>>(data_, &data_->forwardByTime)
                  : nullptr);
    });
    steps.emplace_back([this] {
        backward_->setPairs(
            table_ ? table_->tracePtr() : nullptr, pairs_,
            data_ ? std::shared_ptr<const std::vector<uint32_t>>(data_, &data_->backwardByTime)
                  : nullptr);
    });
    steps.emplace_back([this] {
        const QSignalBlocker block(layer_);
        QStringList layers{QStringLiteral("All layers")};
        if (data_)
            for (const auto& l : data_->layers) layers << QString::fromStdString(l);
        layer_->clear();
        layer_->addItems(layers); // one insertion into the combo's model, not one per layer
        showLayer(QString());
    });
    steps.emplace_back([this] { fillRatios(); });
    return steps;
}

void FwdBwdPanel::fillRatios() {
    if (!data_) return ratios_->setRows({}, QStringLiteral("Layer"));
    const bool byLayer = ratioKey_->currentIndex() == 0;
    ratios_->setRows(byLayer ? data_->byLayer : data_->byOpType,
                     byLayer ? QStringLiteral("Layer") : QStringLiteral("Forward op"));
    ratioView_->sortByColumn(FwdBwdRatioModel::Ratio, Qt::DescendingOrder);
}

void FwdBwdPanel::showLayer(const QString& layer) {
    forward_->setLayer(layer);
    backward_->setLayer(layer);
    const QSignalBlocker block(layer_);
    layer_->setCurrentIndex(layer.isEmpty() ? 0 : std::max(0, layer_->findText(layer)));
}

std::vector<uint32_t> FwdBwdPanel::selectedRows(QTableView* view) const {
    std::vector<uint32_t> rows;
    const auto* model = static_cast<const OpSideModel*>(view->model());
    for (const QModelIndex& i : view->selectionModel()->selectedRows())
        rows.push_back(model->pairRow(i.row()));
    std::sort(rows.begin(), rows.end());
    return rows;
}

void FwdBwdPanel::selectRows(QTableView* view, const std::vector<uint32_t>& rows) {
    QItemSelection selection;
    auto* model = static_cast<OpSideModel*>(view->model());
    for (uint32_t r : rows) {
        model->revealThrough(model->modelRow(r));
        const QModelIndex i = model->index(model->modelRow(r), 0);
        if (i.isValid()) selection.select(i, i);
    }
    view->selectionModel()->select(selection,
                                   QItemSelectionModel::ClearAndSelect | QItemSelectionModel::Rows);
    if (!selection.isEmpty()) view->scrollTo(selection.indexes().front());
}

// One side's selection picks its partners on the other side and both kernel lists.
void FwdBwdPanel::sideSelected(bool forwardSide) {
    if (syncing_ || !pairs_) return;
    const Trace& t = table_->trace();
    const auto mine = forwardSide ? selectedRows(forwardView_) : selectedRows(backwardView_);
    const auto& rows = forwardSide ? pairs_->forward : pairs_->backward;
    std::vector<uint32_t> partners;
    for (uint32_t r : mine)
        partners.insert(partners.end(), rows[r].partners.begin(), rows[r].partners.end());
    std::sort(partners.begin(), partners.end());
    partners.erase(std::unique(partners.begin(), partners.end()), partners.end());
    syncing_ = true;
    if (forwardSide)
        selectRows(backwardView_, partners);
    else
        selectRows(forwardView_, partners);
    syncing_ = false;

    const auto& fwdRows = forwardSide ? mine : partners;
    const auto& bwdRows = forwardSide ? partners : mine;
    std::vector<KernelId> fwdKernels, bwdKernels;
    for (uint32_t r : fwdRows)
        for (KernelId k : kernelsOfOp(t, pairs_->forward[r].op)) fwdKernels.push_back(k);
    for (uint32_t r : bwdRows)
        for (KernelId k : kernelsOfOp(t, pairs_->backward[r].op)) bwdKernels.push_back(k);
    forwardKernels_->setScope(fwdKernels, QString());
    backwardKernels_->setScope(bwdKernels, QString());
    std::vector<KernelId> both = fwdKernels;
    both.insert(both.end(), bwdKernels.begin(), bwdKernels.end());
    if (!both.empty()) {
        const auto& first =
            forwardSide ? pairs_->forward[mine.front()] : pairs_->backward[mine.front()];
        emit kernelsSelected(both, QString::fromStdString(std::string(
                                       t.str(t.ranges.name[t.ops.range[first.op.value].value]))) +
                                       QStringLiteral(": forward and backward"));
    }
}

bool FwdBwdPanel::selectOp(OpId op) {
    if (!pairs_ || !op.valid() || op.value >= pairs_->forwardRowOfOp.size()) return false;
    showLayer(QString());
    if (const uint32_t f = pairs_->forwardRowOfOp[op.value]; f != UINT32_MAX) {
        selectRows(forwardView_, {f});
        return true;
    }
    if (const uint32_t b = pairs_->backwardRowOfOp[op.value]; b != UINT32_MAX) {
        selectRows(backwardView_, {b});
        return true;
    }
    return false;
}

} // namespace ls::gui
