#pragma once
// Interned strings: every name column in the trace holds a StringId into one pool.
#include "core/model/ids.h"

#include <string>
#include <string_view>
#include <unordered_map>
#include <vector>

namespace ls {

class StringPool {
  public:
    StringPool();
    // The empty string is always id 0.
    StringId intern(std::string_view s);
    std::string_view view(StringId id) const;
    size_t size() const { return offsets_.size() - 1; }
    // Finds an already interned string without adding it.
    StringId find(std::string_view s) const;
    size_t bytes() const { return arena_.capacity() + offsets_.capacity() * sizeof(uint32_t); }

    // The pool as two arrays, for the model cache (core/cache): all strings back to back, and
    // where each ends. assign() takes them back, checking they describe a pool (false if not).
    const std::string& arena() const { return arena_; }
    const std::vector<uint32_t>& offsets() const { return offsets_; }
    bool assign(std::string arena, std::vector<uint32_t> offsets);

  private:
    struct Hash {
        using is_transparent = void;
        size_t operator()(std::string_view s) const noexcept {
            return std::hash<std::string_view>{}(s);
        }
    };
    std::string arena_;
    std::vector<uint32_t> offsets_; // string i spans [offsets_[i], offsets_[i+1])
    // The index keeps its own copy of each key: a pool holds few distinct strings (kernel
    // names, normalized NVTX names, shapes), so the copy is cheap and lookups stay simple.
    std::unordered_map<std::string, uint32_t, Hash, std::equal_to<>> index_;
};

} // namespace ls
