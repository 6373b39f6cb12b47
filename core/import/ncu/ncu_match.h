#pragma once
// Nsight Compute kernels matched to a loaded trace's kernels, and the imported metrics as a store
// read by KernelId. The two files come from two runs of one program (ncu cannot run under nsys),
// so kernels are matched by launch order and name, never by time; a kernel that cannot be placed
// for sure stays unmatched or ambiguous, with a reason. The Trace itself is never changed.
// docs/ncu.md describes the rules.
#include "core/import/ncu/ncu_csv.h"
#include "core/model/trace.h"

#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace ls {

enum class NcuMatchState : uint8_t { Matched, Unmatched, Ambiguous };
std::string_view ncuMatchStateName(NcuMatchState s); // "matched", "unmatched", "ambiguous"

struct NcuMatch {
    static constexpr uint32_t kNone = UINT32_MAX;
    // Per ncu kernel (NcuCsv::kernels order).
    std::vector<KernelId> kernelOfNcu; // invalid unless matched
    std::vector<NcuMatchState> state;
    std::vector<std::string> reason; // how it was placed, or why not
    // Per trace kernel: the ncu kernel measured for it, or kNone.
    std::vector<uint32_t> ncuOfKernel;
    size_t matched = 0, unmatched = 0, ambiguous = 0;
    // One line per ncu process: which trace process it was paired with and how it was aligned.
    std::vector<std::string> notes;

    uint32_t ncuOf(KernelId k) const {
        return k.value < ncuOfKernel.size() ? ncuOfKernel[k.value] : kNone;
    }
};

// The name key both sides are compared by: ncu's style and Nsight Systems' style of one
// demangled name give the same key (namespace qualifiers dropped, `(int)4` → `4`,
// `(anonymous namespace)` = `<unnamed>`, whitespace collapsed).
std::string ncuNameKey(std::string_view demangledName);

NcuMatch matchNcuKernels(const Trace& t, const NcuCsv& csv);

} // namespace ls
