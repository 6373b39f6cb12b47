#pragma once
// The timeline's overview of a load in progress: one row per GPU stream with the kernels read so
// far (core/present/load_overview.h), each pixel column as busy as its busiest bin, over the span
// read so far (it widens as the load proceeds). It copies a snapshot of a few KB per stream when
// the overview has changed and paints that, never the kernels themselves.
#include "core/present/load_overview.h"

#include <QWidget>
#include <memory>

namespace ls::gui {

class LoadOverviewView : public QWidget {
    Q_OBJECT
  public:
    explicit LoadOverviewView(QWidget* parent = nullptr);
    void setOverview(std::shared_ptr<const LoadOverview> overview);
    // Takes a new snapshot when the overview changed since the last one, and repaints.
    void refresh();
    const LoadOverviewSnapshot& snapshot() const { return snapshot_; }

  signals:
    // After each paint that drew kernels, with how many were drawn.
    void painted(quint64 kernels);

  protected:
    void paintEvent(QPaintEvent* e) override;

  private:
    std::shared_ptr<const LoadOverview> overview_;
    LoadOverviewSnapshot snapshot_;
};

} // namespace ls::gui
