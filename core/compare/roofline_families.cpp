#include "core/compare/roofline_families.h"

#include "core/compare/kernel_family.h"

#include <memory>
#include <string>
#include <unordered_map>

namespace ls {

RooflineGroupOf rooflineFamilyGroups(const Trace& t) {
    auto cache = std::make_shared<std::unordered_map<uint32_t, std::string>>();
    return [&t, cache](uint32_t k) {
        const StringId id = t.kernels.name[k];
        auto it = cache->find(id.value);
        if (it == cache->end()) it = cache->emplace(id.value, kernelFamily(t.str(id))).first;
        return RooflineGroup{it->second, Direction::Other};
    };
}

} // namespace ls
