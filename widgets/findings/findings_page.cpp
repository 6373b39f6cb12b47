#include "widgets/findings/findings_page.h"

#include "core/findings/findings.h"
#include "core/present/rank_analysis.h"
#include "widgets/session/background_job.h"

#include <QCheckBox>
#include <QHBoxLayout>
#include <QHeaderView>
#include <QLabel>
#include <QSettings>
#include <QSplitter>
#include <QTextBrowser>
#include <QTreeWidget>
#include <QVBoxLayout>
#include <set>

namespace ls::gui {
namespace {

const char* kShowFirstKey = "findings/showFirst";
enum Column { Rank, Cost, Share, Statement, ColumnCount };
constexpr int kFindingRole = Qt::UserRole + 1;

QString ms(double v) { return QString::number(v, 'f', v >= 100 ? 0 : v >= 10 ? 1 : 2); }

// A session of one for a trace opened alone: one rank per process and device it ran work on.
Session sessionOfOne(const std::shared_ptr<const Trace>& t) {
    Session s;
    s.traces.push_back({t->displayPath(), t, 0});
    std::set<std::pair<uint32_t, uint32_t>> seen;
    for (const Stream& st : t->streams)
        if (seen.insert({st.process.value, st.device}).second)
            s.ranks.push_back({static_cast<int>(s.ranks.size()), RankSource::Order, 0, st.process,
                               st.device, t->info.host});
    return s;
}

} // namespace

FindingsPage::FindingsPage(QWidget* parent)
    : QWidget(parent), header_(new QLabel), showFirstBox_(new QCheckBox), tree_(new QTreeWidget),
      details_(new QTextBrowser),
      job_(new BackgroundJob(this, QStringLiteral("findings"),
                             QStringLiteral("Looking for what is wrong"))) {
    header_->setWordWrap(true);
    header_->setTextFormat(Qt::PlainText);
    header_->setText(QStringLiteral("Open a trace to see what is wrong with it."));
    showFirstBox_->setText(QStringLiteral("Show this tab first after a load"));
    showFirstBox_->setToolTip(QStringLiteral(
        "After a trace opens, show the Findings tab instead of the one shown before (remembered)"));
    showFirstBox_->setChecked(showFirst());
    connect(showFirstBox_, &QCheckBox::toggled, this, [](bool on) { setShowFirst(on); });
    auto* top = new QHBoxLayout;
    top->addWidget(header_, 1);
    top->addWidget(showFirstBox_, 0, Qt::AlignTop);

    tree_->setColumnCount(ColumnCount);
    tree_->setHeaderLabels({QStringLiteral("#"), QStringLiteral("ms / iteration"),
                            QStringLiteral("% of iteration"), QStringLiteral("Finding")});
    tree_->setWordWrap(true);
    tree_->setUniformRowHeights(false);
    tree_->setAlternatingRowColors(true);
    tree_->setExpandsOnDoubleClick(false);
    tree_->header()->setStretchLastSection(true);
    tree_->header()->setSectionResizeMode(Rank, QHeaderView::ResizeToContents);
    tree_->header()->setSectionResizeMode(Cost, QHeaderView::ResizeToContents);
    tree_->header()->setSectionResizeMode(Share, QHeaderView::ResizeToContents);
    tree_->setToolTip(QStringLiteral("Click a finding to select its evidence in the kernel "
                                     "table, the layer tree and the timeline"));
    connect(tree_, &QTreeWidget::itemClicked, this, [this](QTreeWidgetItem* item) {
        const int index = findingOf(item);
        if (index >= 0) pick(index);
    });

    // A tree elides long lines (its rows are one line high): the pane below shows the current
    // finding whole.
    tree_->setTextElideMode(Qt::ElideRight);
    details_->setOpenLinks(false);
    auto* split = new QSplitter(Qt::Vertical);
    split->addWidget(tree_);
    split->addWidget(details_);
    split->setStretchFactor(0, 3);
    split->setStretchFactor(1, 1);
    connect(tree_, &QTreeWidget::currentItemChanged, this,
            [this](QTreeWidgetItem* item) { showDetails(findingOf(item)); });

    auto* layout = new QVBoxLayout(this);
    layout->addLayout(top);
    layout->addWidget(split, 1);
}

bool FindingsPage::showFirst() { return QSettings().value(kShowFirstKey, true).toBool(); }
void FindingsPage::setShowFirst(bool on) { QSettings().setValue(kShowFirstKey, on); }

std::vector<std::function<void()>>
FindingsPage::showSteps(std::shared_ptr<const TraceViews> views) {
    return {[this, views] {
        views_ = views;
        tree_->clear();
        list_ = {};
        if (!views || !views->trace) {
            header_->setText(QStringLiteral("Findings need the trace itself: %1")
                                 .arg(QString::fromStdString(views ? views->notice : "")));
            return;
        }
        const std::shared_ptr<const RankAnalysis> ranks = views->ranks;
        header_->setText(QStringLiteral("Looking for what is wrong…"));
        const std::shared_ptr<const Trace> trace = views->trace;
        job_->run([this, ranks, trace]() -> BackgroundJob::Done {
            // A session of summaries has stand-ins for its traces: the shown rank's model alone.
            FindingList list = ranks && ranks->session && !ranks->session->traces.empty() &&
                                       !ranks->fromSummaries()
                                   ? ls::findings(*ranks->session)
                                   : ls::findings(sessionOfOne(trace));
            return [this, list = std::move(list)]() mutable { showList(std::move(list)); };
        });
    }};
}

void FindingsPage::showList(FindingList list) {
    list_ = std::move(list);
    tree_->clear();
    double total = 0;
    for (const Finding& f : list_.findings) total += f.costMsPerIteration;
    header_->setText(
        list_.findings.empty()
            ? QStringLiteral("No findings: nothing costs more than 1 % of a %1 ms iteration (%2).")
                  .arg(ms(list_.iterationMs), QString::fromStdString(list_.iterationBasis))
            : QStringLiteral("%1 finding%6, together about %2 ms of a %3 ms iteration (%4 over %5 "
                             "iterations). Click one to select its evidence.")
                  .arg(list_.findings.size())
                  .arg(ms(total), ms(list_.iterationMs),
                       QString::fromStdString(list_.iterationBasis))
                  .arg(list_.iterations)
                  .arg(list_.findings.size() == 1 ? QString() : QStringLiteral("s")));
    for (size_t i = 0; i < list_.findings.size(); ++i) {
        const Finding& f = list_.findings[i];
        auto* item = new QTreeWidgetItem(tree_);
        item->setText(Rank, QString::number(i + 1));
        item->setText(Cost, ms(f.costMsPerIteration));
        item->setTextAlignment(Cost, Qt::AlignRight | Qt::AlignVCenter);
        item->setText(Share,
                      list_.iterationMs > 0
                          ? QString::number(100 * f.costMsPerIteration / list_.iterationMs, 'f', 1)
                          : QString());
        item->setTextAlignment(Share, Qt::AlignRight | Qt::AlignVCenter);
        item->setText(Statement, QString::fromStdString(f.statement));
        item->setToolTip(Statement, QString::fromStdString(f.statement));
        item->setData(Rank, kFindingRole, static_cast<int>(i));
        QFont bold = item->font(Statement);
        bold.setBold(i < 3);
        item->setFont(Statement, bold);
        for (const auto& [label, text] : std::initializer_list<std::pair<QString, std::string>>{
                 {QStringLiteral("Rule"), f.rule},
                 {QStringLiteral("Cost estimated against"), f.bound},
                 {QStringLiteral("Evidence"),
                  f.evidence.text + " (" + std::to_string(f.evidence.kernels.size()) +
                      " kernels, " + std::to_string(f.evidence.ranges.size()) +
                      " ranges): click to select"},
                 {QStringLiteral("Fix"), f.fix}}) {
            auto* child = new QTreeWidgetItem(item);
            child->setText(Statement,
                           QStringLiteral("%1: %2").arg(label, QString::fromStdString(text)));
            child->setToolTip(Statement, child->text(Statement));
            child->setFirstColumnSpanned(false);
        }
    }
    details_->clear();
    if (!list_.findings.empty()) {
        tree_->topLevelItem(0)->setExpanded(true);
        showDetails(0);
    }
    emit findingsShown();
}

int FindingsPage::findingOf(QTreeWidgetItem* item) const {
    if (!item) return -1;
    if (item->parent()) item = item->parent();
    const QVariant v = item->data(Rank, kFindingRole);
    return v.isValid() ? v.toInt() : -1;
}

void FindingsPage::showDetails(int index) {
    if (index < 0 || static_cast<size_t>(index) >= list_.findings.size()) return;
    const Finding& f = list_.findings[static_cast<size_t>(index)];
    auto esc = [](const std::string& s) { return QString::fromStdString(s).toHtmlEscaped(); };
    details_->setHtml(
        QStringLiteral("<p><b>%1. %2</b></p><p>%3 ms per iteration (<code>%4</code>), estimated "
                       "against %5.</p><p><b>Evidence:</b> %6: %7 kernels, %8 ranges. Click "
                       "the finding to select them.</p><p><b>Fix:</b> %9</p>")
            .arg(index + 1)
            .arg(esc(f.statement), ms(f.costMsPerIteration), esc(f.rule), esc(f.bound),
                 esc(f.evidence.text))
            .arg(f.evidence.kernels.size())
            .arg(f.evidence.ranges.size())
            .arg(esc(f.fix)));
}

void FindingsPage::pick(int index) {
    if (index < 0 || index >= tree_->topLevelItemCount() ||
        static_cast<size_t>(index) >= list_.findings.size())
        return;
    QTreeWidgetItem* item = tree_->topLevelItem(index);
    item->setExpanded(true);
    tree_->setCurrentItem(item);
    emit evidenceRequested(list_.findings[static_cast<size_t>(index)]);
}

} // namespace ls::gui
