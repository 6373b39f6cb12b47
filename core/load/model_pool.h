#pragma once
// The full models of a session's traces that a memory budget allows, for a session opened from
// its ranks' summaries (a job file, or more ranks than the budget holds): every rank stays on
// screen from its summary, and a rank the user looks at gets its trace's model from here. The
// least recently used models go first; one comes back from the model cache (a mapping, a fraction
// of a second) or, the first time, from its file.
//
// The models get half the budget: the other half is for what the window builds over the shown
// model (table, tree, timeline rows: about as much again) and for a load in progress.
#include "core/import/load_error.h"
#include "core/model/trace.h"

#include <cstdint>
#include <memory>
#include <mutex>
#include <string>
#include <vector>

namespace ls {

class ModelPool {
  public:
    // Per trace: its file (empty when not reachable from here), and for an unreachable one the
    // one-line message that says which file to copy where.
    ModelPool(std::vector<std::string> files, std::vector<std::string> missing,
              uint64_t budgetBytes);

    struct Model {
        std::shared_ptr<const Trace> trace; // null: `error` says why
        std::string error;
        bool wasHeld = false; // came from the pool, no load
    };
    // Trace `trace`'s model: held, else loaded (options: the cache, progress, cancel). Blocks;
    // safe from any thread. Makes room first (least recently used out) and keeps the result
    // within the models' share while it can: the newest model is always kept.
    Model acquire(uint32_t trace, const LoadOptions& options);
    // A model loaded elsewhere (the session's first shown rank).
    void hold(uint32_t trace, std::shared_ptr<const Trace> model);
    // What the window built over a held model (its views: a small fraction of the model's bytes),
    // kept with it so that going back to that rank shows it at once, and dropped with it. Ignored
    // unless `over` is the model held for `trace`.
    void attach(uint32_t trace, const Trace* over, std::shared_ptr<const void> built);
    // The model held for `trace` and what is attached to it (a use, as acquire's); nulls when the
    // model is not held.
    struct HeldModel {
        std::shared_ptr<const Trace> trace;
        std::shared_ptr<const void> attached;
    };
    HeldModel held(uint32_t trace);

    uint64_t budget() const { return budget_; }
    uint64_t modelShare() const { return budget_ / 2; }
    uint64_t heldBytes() const;
    std::vector<uint32_t> heldTraces() const; // most recently used first
    size_t traceCount() const { return files_.size(); }
    const std::string& fileOf(uint32_t trace) const { return files_.at(trace); }
    const std::string& missingOf(uint32_t trace) const { return missing_.at(trace); }

  private:
    struct Held {
        uint32_t trace = 0;
        std::shared_ptr<const Trace> model;
        uint64_t bytes = 0, lastUse = 0;
        std::shared_ptr<const void> attached; // see attach()
    };
    // Drops least recently used models (never `keep`) until at most `limit` bytes are held; how
    // many it dropped.
    size_t evictTo(uint64_t limit, uint32_t keep);

    const std::vector<std::string> files_, missing_;
    const uint64_t budget_;
    mutable std::mutex mutex_;
    std::vector<Held> held_;
    uint64_t clock_ = 0;
    uint64_t loadedFileBytes_ = 0, loadedModelBytes_ = 0; // the loads so far: model per file byte
};

} // namespace ls
