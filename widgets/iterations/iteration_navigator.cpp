#include "widgets/iterations/iteration_navigator.h"

#include "widgets/iterations/iteration_chart.h"
#include "widgets/timeline/timeline_view.h"
#include "widgets/util/units.h"

#include <QAction>
#include <QHBoxLayout>
#include <QLabel>
#include <QToolButton>
#include <QVBoxLayout>
#include <algorithm>
#include <cmath>

namespace ls::gui {
namespace {

constexpr int kChartHeight = 96;

QToolButton* buttonFor(QAction* action) {
    auto* b = new QToolButton;
    b->setDefaultAction(action);
    b->setToolButtonStyle(Qt::ToolButtonTextOnly);
    return b;
}

QString duration(TimeNs ns) { return formatDuration(static_cast<double>(ns)); }

QString plural(size_t n, const char* one, const char* many) {
    return QStringLiteral("%L1 %2").arg(n).arg(QLatin1String(n == 1 ? one : many));
}

} // namespace

IterationNavigator::IterationNavigator(TimelineView* timeline, QWidget* parent)
    : QWidget(parent), timeline_(timeline),
      previous_(new QAction(QStringLiteral("Previous Iteration"), this)),
      next_(new QAction(QStringLiteral("Next Iteration"), this)),
      slowest_(new QAction(QStringLiteral("Slowest Iteration"), this)), position_(new QLabel),
      rule_(new QLabel), none_(new QLabel), controls_(new QWidget), chart_(new IterationChart) {
    setObjectName(QStringLiteral("iterationNavigator"));
    previous_->setIconText(QStringLiteral("◀ Previous"));
    previous_->setShortcuts(
        {QKeySequence(Qt::ALT | Qt::Key_PageUp), QKeySequence(Qt::Key_BracketLeft)});
    previous_->setToolTip(
        QStringLiteral("Zoom the timeline to the previous iteration (Alt+PgUp or [)"));
    next_->setIconText(QStringLiteral("Next ▶"));
    next_->setShortcuts(
        {QKeySequence(Qt::ALT | Qt::Key_PageDown), QKeySequence(Qt::Key_BracketRight)});
    next_->setToolTip(QStringLiteral("Zoom the timeline to the next iteration (Alt+PgDown or ])"));
    slowest_->setIconText(QStringLiteral("Slowest"));
    slowest_->setToolTip(QStringLiteral("Zoom the timeline to the longest iteration"));
    connect(previous_, &QAction::triggered, this, &IterationNavigator::previous);
    connect(next_, &QAction::triggered, this, &IterationNavigator::next);
    connect(slowest_, &QAction::triggered, this, &IterationNavigator::slowest);

    position_->setTextFormat(Qt::RichText);
    position_->setTextInteractionFlags(Qt::TextSelectableByMouse);
    position_->setWordWrap(true);
    rule_->setStyleSheet(QStringLiteral("color:#667"));
    rule_->setWordWrap(true);
    none_->setStyleSheet(QStringLiteral("color:#667"));
    none_->setText(QStringLiteral(
        "No iterations in this trace: no iteration ranges (iteration N, step N, ProfilerStep#N), "
        "no optimizer steps and no repeating op sequence to navigate by."));
    auto* buttons = new QHBoxLayout;
    buttons->setContentsMargins(0, 0, 0, 0);
    buttons->setSpacing(2);
    for (QAction* a : {previous_, next_, slowest_}) buttons->addWidget(buttonFor(a));
    buttons->addStretch(1);
    auto* column = new QVBoxLayout(controls_);
    column->setContentsMargins(0, 0, 0, 0);
    column->setSpacing(2);
    column->addLayout(buttons);
    column->addWidget(position_);
    column->addWidget(rule_);
    column->addStretch(1);
    controls_->setFixedWidth(430);
    chart_->setFixedHeight(kChartHeight);

    auto* layout = new QHBoxLayout(this);
    layout->setContentsMargins(6, 2, 6, 2);
    layout->addWidget(controls_);
    layout->addWidget(chart_, 1);
    layout->addWidget(none_, 1);

    connect(chart_, &IterationChart::barClicked, this, &IterationNavigator::goTo);
    connect(timeline_, &TimelineView::windowChanged, this, &IterationNavigator::followTimeline);
    setSummary(nullptr);
}

void IterationNavigator::setSummary(std::shared_ptr<const IterationSummary> summary) {
    summary_ = std::move(summary);
    current_ = -1;
    chart_->setSummary(summary_);
    const bool any = count() > 0;
    setVisible(summary_ != nullptr);
    controls_->setVisible(any);
    chart_->setVisible(any);
    none_->setVisible(summary_ && !any);
    rule_->setText(ruleText());
    rule_->setToolTip(rule_->text());
    refresh();
}

int IterationNavigator::count() const {
    return summary_ ? static_cast<int>(summary_->rows.size()) : 0;
}

int IterationNavigator::slowestIndex() const {
    if (count() == 0) return -1;
    const auto& rows = summary_->rows;
    return static_cast<int>(std::max_element(rows.begin(), rows.end(),
                                             [](const IterationRow& a, const IterationRow& b) {
                                                 return a.duration() < b.duration();
                                             }) -
                            rows.begin());
}

void IterationNavigator::goTo(int index) {
    if (count() == 0) return;
    current_ = std::clamp(index, 0, count() - 1);
    refresh();
    emit navigated(current_); // the timeline is shown before it is zoomed: its width is then right
    const IterationRow& r = summary_->rows[static_cast<size_t>(current_)];
    zooming_ = true;
    timeline_->setWindow(static_cast<double>(r.windowStart()),
                         static_cast<double>(r.windowEnd())); // its range and its GPU work
    zooming_ = false;
}

void IterationNavigator::next() { goTo(current_ < 0 ? 0 : current_ + 1); }

void IterationNavigator::previous() { goTo(current_ < 0 ? count() - 1 : current_ - 1); }

void IterationNavigator::slowest() { goTo(slowestIndex()); }

// Zoomed by hand onto one iteration (its centre inside it, not much wider than it): that
// iteration becomes the current one, so Next and Previous go on from what is on screen.
void IterationNavigator::followTimeline() {
    if (zooming_ || count() == 0) return;
    const TimeSpan w = timeline_->axis().window();
    const double centre = (w.from + w.to) / 2;
    const auto& rows = summary_->rows;
    const auto it =
        std::upper_bound(rows.begin(), rows.end(), centre, [](double t, const IterationRow& r) {
            return t < static_cast<double>(r.start);
        });
    if (it == rows.begin()) return;
    const IterationRow& r = *(it - 1);
    const auto shown = static_cast<double>(r.windowEnd() - r.windowStart());
    if (centre > static_cast<double>(r.windowEnd()) || w.width() > 1.5 * shown) return;
    const int index = static_cast<int>(it - 1 - rows.begin());
    if (index == current_) return;
    current_ = index;
    refresh();
}

void IterationNavigator::refresh() {
    const int n = count();
    previous_->setEnabled(n > 0 && current_ != 0);
    next_->setEnabled(n > 0 && current_ != n - 1);
    slowest_->setEnabled(n > 1);
    position_->setText(position(true));
    chart_->setCurrent(current_);
}

QString IterationNavigator::positionText() const { return position(false); }

// "iteration 3 · 2 of 5 · 24.4 ms (median 24.4 ms) · slowest · outlier"; as HTML, the name and
// the duration in bold and the tags in the outlier colour.
QString IterationNavigator::position(bool html) const {
    const int n = count();
    if (n == 0) return {};
    const auto& rows = summary_->rows;
    const auto bold = [html](const QString& s) {
        return html ? QStringLiteral("<b>%1</b>").arg(s.toHtmlEscaped()) : s;
    };
    const QString median = duration(summary_->median.duration());
    if (current_ < 0) {
        const IterationRow& slow = rows[static_cast<size_t>(slowestIndex())];
        return n == 1 ? QStringLiteral("1 iteration · %1").arg(bold(duration(slow.duration())))
                      : QStringLiteral("%1 · median %2 · slowest %3 (%4)")
                            .arg(bold(QStringLiteral("%1 iterations").arg(n)), median,
                                 QString::fromStdString(slow.name), duration(slow.duration()));
    }
    const IterationRow& r = rows[static_cast<size_t>(current_)];
    QString text = QStringLiteral("%1 · %2 of %3 · %4 (median %5)")
                       .arg(bold(QString::fromStdString(r.name)))
                       .arg(current_ + 1)
                       .arg(n)
                       .arg(bold(duration(r.duration())), median);
    QString tags;
    if (n > 1 && current_ == slowestIndex()) tags += QStringLiteral(" · slowest");
    if (r.outlier) tags += QStringLiteral(" · outlier");
    return text + (html && !tags.isEmpty()
                       ? QStringLiteral("<span style='color:#a84700'>%1</span>").arg(tags)
                       : tags);
}

QString IterationNavigator::ruleSentence(const IterationSummary& s) {
    const size_t n = s.rows.size();
    const auto pct = static_cast<int>(std::lround(100 * s.confidence));
    switch (s.rule) {
    case IterationRule::None:
        return {};
    case IterationRule::Ranges:
        return plural(n, "iteration range", "iteration ranges");
    case IterationRule::OptimizerSteps:
        if (n == 1) return QStringLiteral("1 training step detected from a run of optimizer ops");
        return QStringLiteral("%1 detected from optimizer runs (op counts agree within %2 %)")
            .arg(plural(n, "training step", "training steps"))
            .arg(100 - pct);
    case IterationRule::RepeatingOps:
        return QStringLiteral("%1 detected from a repeating op sequence (%2 % of positions repeat)")
            .arg(plural(n, "pass", "passes"))
            .arg(pct);
    }
    return {};
}

QString IterationNavigator::ruleText() const {
    if (count() == 0) return {};
    QString text = ruleSentence(*summary_);
    const auto outliers = std::count_if(summary_->rows.begin(), summary_->rows.end(),
                                        [](const IterationRow& r) { return r.outlier; });
    if (outliers > 0)
        text += QStringLiteral(" · %1 (orange)")
                    .arg(plural(static_cast<size_t>(outliers), "outlier", "outliers"));
    else if (count() >= 4)
        text += QStringLiteral(" · no outliers");
    return text;
}

QList<QAction*> IterationNavigator::navigationActions() const {
    return {previous_, next_, slowest_};
}

} // namespace ls::gui
