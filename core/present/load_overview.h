#pragma once
// The kernels a load has read so far, folded into a fixed number of time bins per GPU stream: what
// the window draws while the rest of the file loads. The importer's reading threads add batches
// (LoadOptions::kernelsRead) in file order, which is roughly but not exactly time order (workers
// read rowid windows in parallel); the GUI thread takes snapshots. The bins cover a range that
// doubles, merging neighbours, whenever a kernel falls outside it, so adding costs the same per
// kernel however long the capture is, and a snapshot copies a few KB per stream, never the
// kernels: the window never walks millions of events while it waits.
#include "core/import/load_error.h"

#include <cstdint>
#include <mutex>
#include <span>
#include <vector>

namespace ls {

struct LoadOverviewLane {
    uint32_t device = 0, stream = 0; // as the file numbers them
    uint64_t kernels = 0;
    std::vector<double> busyNs; // per bin, the kernels' time inside it
};

struct LoadOverviewSnapshot {
    uint64_t kernels = 0; // read so far, over every lane
    TimeNs fromNs = 0;    // the first kernel's start and the last one's end read so far
    TimeNs toNs = 0;
    TimeNs originNs = 0; // bin b covers [originNs + b * binNs, originNs + (b + 1) * binNs)
    TimeNs binNs = 0;    // 0 while no kernel is in
    std::vector<LoadOverviewLane> lanes; // by device, then stream
    uint64_t version = 0;                // changes with every batch added

    // The busiest share of [t0, t1) of a lane, 0..1: the largest bin share overlapping it (a pixel
    // column wider than a bin shows its busiest bin, as a folded bar does).
    double busyShare(const LoadOverviewLane& lane, double t0, double t1) const;
};

class LoadOverview {
  public:
    static constexpr size_t kBins = 4096;

    // Called from the reading threads, possibly two at once.
    void add(std::span<const KernelSpan> kernels);
    LoadOverviewSnapshot snapshot() const;
    uint64_t version() const;
    uint64_t kernels() const;

  private:
    LoadOverviewLane& laneOf(uint32_t device, uint32_t stream);
    void cover(TimeNs start, TimeNs end); // doubles the bins' range until it holds [start, end)
    void addBusy(LoadOverviewLane& lane, TimeNs start, TimeNs end);

    mutable std::mutex mutex_;
    LoadOverviewSnapshot state_;
};

} // namespace ls
