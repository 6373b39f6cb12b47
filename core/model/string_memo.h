#pragma once
// A process-wide memo of a pure function of a text, safe to use from many threads. The files of
// a session (the ranks of one job) repeat the same kernel names and the same schema statements,
// and each load asked the same questions of them again. Bounded: it starts afresh once it holds
// `limit` texts.
#include <cstddef>
#include <functional>
#include <mutex>
#include <shared_mutex>
#include <string>
#include <string_view>
#include <unordered_map>

namespace ls {

template <typename Value> class StringMemo {
  public:
    explicit StringMemo(size_t limit) : limit_(limit) {}

    // compute(text) the first time, its copy after.
    template <typename Compute> Value get(std::string_view text, Compute&& compute) {
        {
            std::shared_lock lock(mutex_);
            if (const auto it = values_.find(text); it != values_.end()) return it->second;
        }
        Value v = compute(text);
        std::unique_lock lock(mutex_);
        if (values_.size() >= limit_) values_.clear();
        values_.try_emplace(std::string(text), v);
        return v;
    }

  private:
    struct Hash {
        using is_transparent = void;
        size_t operator()(std::string_view s) const noexcept {
            return std::hash<std::string_view>{}(s);
        }
    };
    const size_t limit_;
    std::shared_mutex mutex_;
    std::unordered_map<std::string, Value, Hash, std::equal_to<>> values_;
};

} // namespace ls
