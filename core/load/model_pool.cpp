#include "core/load/model_pool.h"

#include "core/cache/model_bytes.h"
#include "core/load/load.h"
#include "core/model/platform.h"

#include <algorithm>
#include <filesystem>
#include <system_error>
#include <utility>

namespace ls {

ModelPool::ModelPool(std::vector<std::string> files, std::vector<std::string> missing,
                     uint64_t budgetBytes)
    : files_(std::move(files)), missing_(std::move(missing)), budget_(budgetBytes) {}

ModelPool::Model ModelPool::acquire(uint32_t trace, const LoadOptions& options) {
    Model out;
    if (trace >= files_.size()) {
        out.error = "no such trace in the session";
        return out;
    }
    {
        std::lock_guard lock(mutex_);
        for (Held& h : held_)
            if (h.trace == trace) {
                h.lastUse = ++clock_;
                out.trace = h.model;
                out.wasHeld = true;
                return out;
            }
    }
    if (files_[trace].empty()) {
        out.error = missing_[trace].empty() ? "the trace's file is not reachable" : missing_[trace];
        return out;
    }
    // Room for the load before it starts: the model's expected size from its file's, at the ratio
    // the models loaded so far had (at first, as large as its file: SQLite exports are larger).
    std::error_code ec;
    const uint64_t fileBytes = std::filesystem::file_size(files_[trace], ec);
    size_t evicted = 0;
    {
        std::lock_guard lock(mutex_);
        const double ratio = loadedFileBytes_ ? static_cast<double>(loadedModelBytes_) /
                                                    static_cast<double>(loadedFileBytes_)
                                              : 1.0;
        const auto expected =
            ec ? 0 : static_cast<uint64_t>(static_cast<double>(fileBytes) * ratio);
        evicted = evictTo(modelShare() > expected ? modelShare() - expected : 0, trace);
    }
    if (evicted) platform::releaseFreedMemory(); // a trim walks the whole heap: only when freed
    LoadResult loaded = loadTrace(files_[trace], options);
    if (!loaded.ok()) {
        out.error = loaded.error ? loaded.error->reason : "cannot be read";
        return out;
    }
    out.trace = loaded.trace;
    if (!ec) {
        const uint64_t bytes = modelBytes(*loaded.trace);
        std::lock_guard lock(mutex_);
        loadedFileBytes_ += fileBytes;
        loadedModelBytes_ += bytes;
    }
    hold(trace, loaded.trace);
    return out;
}

void ModelPool::hold(uint32_t trace, std::shared_ptr<const Trace> model) {
    if (!model) return;
    const uint64_t bytes = modelBytes(*model);
    size_t evicted = 0;
    {
        std::lock_guard lock(mutex_);
        std::erase_if(held_, [&](const Held& h) { return h.trace == trace; });
        held_.push_back({trace, std::move(model), bytes, ++clock_, nullptr});
        evicted = evictTo(modelShare(), trace);
    }
    if (evicted) platform::releaseFreedMemory();
}

void ModelPool::attach(uint32_t trace, const Trace* over, std::shared_ptr<const void> built) {
    std::shared_ptr<const void> replaced; // released after the lock
    std::lock_guard lock(mutex_);
    for (Held& h : held_)
        if (h.trace == trace && h.model.get() == over) {
            replaced = std::exchange(h.attached, std::move(built));
            return;
        }
}

ModelPool::HeldModel ModelPool::held(uint32_t trace) {
    std::lock_guard lock(mutex_);
    for (Held& h : held_)
        if (h.trace == trace) {
            h.lastUse = ++clock_;
            return {h.model, h.attached};
        }
    return {};
}

size_t ModelPool::evictTo(uint64_t limit, uint32_t keep) {
    auto total = [&] {
        uint64_t sum = 0;
        for (const Held& h : held_) sum += h.bytes;
        return sum;
    };
    size_t dropped = 0;
    while (total() > limit) {
        auto victim = held_.end();
        for (auto it = held_.begin(); it != held_.end(); ++it)
            if (it->trace != keep && (victim == held_.end() || it->lastUse < victim->lastUse))
                victim = it;
        if (victim == held_.end()) break; // only `keep` is left
        held_.erase(victim);
        ++dropped;
    }
    return dropped;
}

uint64_t ModelPool::heldBytes() const {
    std::lock_guard lock(mutex_);
    uint64_t sum = 0;
    for (const Held& h : held_) sum += h.bytes;
    return sum;
}

std::vector<uint32_t> ModelPool::heldTraces() const {
    std::lock_guard lock(mutex_);
    std::vector<Held> byUse = held_;
    std::sort(byUse.begin(), byUse.end(),
              [](const Held& a, const Held& b) { return a.lastUse > b.lastUse; });
    std::vector<uint32_t> out;
    for (const Held& h : byUse) out.push_back(h.trace);
    return out;
}

} // namespace ls
