#include "core/model/string_pool.h"

#include <algorithm>
#include <stdexcept>

namespace ls {

StringPool::StringPool() {
    offsets_.push_back(0);
    intern({});
}

bool StringPool::assign(std::string arena, std::vector<uint32_t> offsets) {
    if (offsets.size() < 2 || offsets.front() != 0 || offsets[1] != 0 ||
        offsets.back() != arena.size())
        return false;
    if (!std::is_sorted(offsets.begin(), offsets.end())) return false;
    arena_ = std::move(arena);
    offsets_ = std::move(offsets);
    index_.clear();
    index_.reserve(offsets_.size());
    for (uint32_t i = 0; i + 1 < offsets_.size(); ++i)
        index_.emplace(std::string(view(StringId(i))), i);
    return index_.size() + 1 == offsets_.size(); // interned strings are distinct
}

StringId StringPool::intern(std::string_view s) {
    if (auto it = index_.find(s); it != index_.end()) return StringId(it->second);
    const auto id = static_cast<uint32_t>(offsets_.size() - 1);
    if (arena_.size() + s.size() > std::numeric_limits<uint32_t>::max())
        throw std::length_error("string pool exceeds 4 GiB");
    arena_.append(s);
    offsets_.push_back(static_cast<uint32_t>(arena_.size()));
    index_.emplace(std::string(s), id);
    return StringId(id);
}

StringId StringPool::find(std::string_view s) const {
    if (auto it = index_.find(s); it != index_.end()) return StringId(it->second);
    return {};
}

std::string_view StringPool::view(StringId id) const {
    if (!id.valid() || id.value + 1 >= offsets_.size()) return {};
    return std::string_view(arena_).substr(offsets_[id.value],
                                           offsets_[id.value + 1] - offsets_[id.value]);
}

} // namespace ls
