#pragma once
// A collective's process group name, interned. A job's ranks hold millions of communication
// kernels that name a handful of process groups: each kernel keeps a 4-byte id (equal names, equal
// ids, in every thread) instead of a string of its own.
#include <cstdint>
#include <string_view>

namespace ls {

class GroupName {
  public:
    GroupName() = default; // no name: the trace does not say
    // The id of `name`; an empty name is no name.
    static GroupName of(std::string_view name);

    bool empty() const { return id_ == 0; }
    std::string_view name() const; // stays valid for the life of the process
    uint32_t id() const { return id_; }
    bool operator==(const GroupName&) const = default;

  private:
    explicit GroupName(uint32_t id) : id_(id) {}
    uint32_t id_ = 0;
};

} // namespace ls
