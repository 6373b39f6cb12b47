#include "core/reports/group_name.h"

#include <deque>
#include <mutex>
#include <shared_mutex>
#include <string>
#include <unordered_map>

namespace ls {
namespace {

// Names are never removed: a process sees a few process groups, whatever it opens.
struct Names {
    std::shared_mutex lock;
    std::deque<std::string> byId{std::string()}; // a deque keeps each name where it is
    std::unordered_map<std::string_view, uint32_t> ids;
};

Names& names() {
    static Names n;
    return n;
}

} // namespace

GroupName GroupName::of(std::string_view name) {
    if (name.empty()) return {};
    Names& n = names();
    {
        std::shared_lock read(n.lock);
        if (const auto it = n.ids.find(name); it != n.ids.end()) return GroupName(it->second);
    }
    std::unique_lock write(n.lock);
    if (const auto it = n.ids.find(name); it != n.ids.end()) return GroupName(it->second);
    const auto id = static_cast<uint32_t>(n.byId.size());
    n.byId.emplace_back(name);
    n.ids.emplace(n.byId.back(), id);
    return GroupName(id);
}

std::string_view GroupName::name() const {
    Names& n = names();
    std::shared_lock read(n.lock);
    return n.byId[id_];
}

} // namespace ls
