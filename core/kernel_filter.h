#pragma once
// The kernel table's filter language, shared by the GUI's filter bar and
// `layerscope-cli kernels --filter`:
//
//   expression := term { ("and" | "&&" | ";") term }        every term must match
//   term       := COLUMN OP VALUE | /regex/ | free text
//   OP         := = == != < <= > >= ~ (regex search) !~
//
// COLUMN is a `kernels` column name (duration_ns, name, tc, …) or an alias (duration, start,
// end, kernel, correlation, range, path, shapes, tflops, gbytes), case-insensitive. Numbers take
// unit suffixes by column: ns us µs ms s for times; k M G T P (and FLOP) for FLOPs; B kB MB GB TB
// KiB MiB GiB for bytes. start and end count from the capture start. Unknown cells never match a
// numeric condition. Text values may be "quoted"; = and != compare whole cells ignoring case;
// nvtx_range matches the range's normalized name. Free text is a case-insensitive substring of
// name, op or layer; /regex/ searches the same three.
#include "core/kernel_table.h"

#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace ls {

struct FilterParse;

class KernelFilter {
public:
    static FilterParse parse(std::string_view expression);
    bool empty() const { return terms_.empty(); }
    // The rows, in the given order, that match every term.
    std::vector<KernelId> apply(const KernelTable& table, const std::vector<KernelId>& rows) const;

    enum class Op : uint8_t { Eq, Ne, Lt, Le, Gt, Ge, Match, NoMatch };
    struct Term;

private:
    std::vector<std::shared_ptr<const Term>> terms_;
};

struct FilterParse {
    std::optional<KernelFilter> filter; // set on success
    std::string error;                  // one line, on failure
};

} // namespace ls
