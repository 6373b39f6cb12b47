#include "widgets/session/jobs_indicator.h"

#include "widgets/session/job_tracker.h"

#include <QHBoxLayout>
#include <QLabel>

namespace ls::gui {
namespace {

// "Opening a.sqlite: Reading CUPTI_ACTIVITY_KIND_KERNEL 40 %"
QString jobLine(const JobTracker::Running& job) {
    QString line = job.title;
    if (!job.text.isEmpty()) line += QStringLiteral(": ") + job.text;
    if (job.total > 0)
        line += QStringLiteral(" %1 %").arg(static_cast<int>(100 * job.done / job.total));
    return line;
}

} // namespace

JobsIndicator::JobsIndicator(JobTracker* tracker, QWidget* parent)
    : QWidget(parent), tracker_(tracker), label_(new QLabel) {
    setObjectName(QStringLiteral("jobsIndicator"));
    auto* layout = new QHBoxLayout(this);
    layout->setContentsMargins(0, 0, 0, 0);
    label_->setTextFormat(Qt::PlainText);
    layout->addWidget(label_);
    connect(tracker_, &JobTracker::changed, this, &JobsIndicator::refresh);
    refresh();
}

QString JobsIndicator::text() const { return label_->text(); }

void JobsIndicator::refresh() {
    const auto jobs = tracker_ ? tracker_->running() : std::vector<JobTracker::Running>{};
    setVisible(!jobs.empty());
    if (jobs.empty()) {
        label_->clear();
        setToolTip(QString());
        return;
    }
    QString text = jobLine(jobs.front());
    if (jobs.size() > 1) text += QStringLiteral("  (+%1)").arg(jobs.size() - 1);
    label_->setText(text);
    QStringList lines;
    for (const auto& job : jobs) lines << jobLine(job);
    setToolTip(QStringLiteral("Running in the background:\n") + lines.join(QLatin1Char('\n')));
}

} // namespace ls::gui
