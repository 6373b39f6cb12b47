#pragma once
// The short kernel names lists and timeline bars show, told apart: three different CUTLASS
// GEMMs all have the short name "Kernel2", so each gets the template part that distinguishes
// it ("Kernel2 ·f16 128x128 tn", core/views/distinct_names.h). One label per distinct full
// name of the trace, so a kernel reads the same in the timeline, the lists and the charts.
#include "core/model/trace.h"

#include <string>
#include <unordered_map>

namespace ls {

class KernelLabels {
  public:
    explicit KernelLabels(const Trace& t);
    // The kernel's label: its short name, or more of its name where the short name is shared.
    const std::string& of(uint32_t kernel) const;

  private:
    const Trace* trace_;
    std::unordered_map<uint32_t, std::string> byName_; // full name id → label
    std::string empty_;
};

} // namespace ls
