#pragma once
// The kernel table's filter language, shared by the GUI's filter bar and
// `layerscope-cli kernels --filter`:
//
//   expression := term { ("and" | "&&" | ";") term }     every term must match; blank: all rows
//   term       := COLUMN OP VALUE | /regex/ | free text
//   OP         := = == != < <= > >= ~ =~ (regex search) !~
//
// COLUMN is a `kernels` column name (duration_ns, name, tc, …) or an alias (duration, start,
// end, kernel, correlation, range, path, shapes, tflops, gbytes), case-insensitive; a word
// followed by an operator that names no column is an error. Numbers take unit suffixes by
// column: ns us µs ms s (none: ns) for times; k M G T P, optionally + FLOP(s), for FLOPs; B kB
// MB GB TB (powers of 1000) and KiB MiB GiB TiB for bytes; k M G T for other numbers. start and
// end count from the capture start, as the GUI shows them. Unknown cells never match a numeric
// condition; `~` on a numeric column searches the cell's CLI text. Text values are bare (the
// rest of the term, trimmed) or "quoted" (\" escapes); = and != compare whole cells ignoring
// case; < <= > >= on text is an error. nvtx_range matches the range's normalized name (the raw
// marker texts are not kept in memory). Regexes are ECMAScript, case-insensitive, searched
// anywhere in the cell; `~ /re/` may wrap them in slashes. Free text is a case-insensitive
// substring of name, op or layer; /regex/ searches the same three.
//
// Matching decides each distinct string (string id, NVTX path node, vocabulary code, number)
// once, so filtering a million rows costs a few array lookups per row.
#include "core/views/kernel_table.h"

#include <cstdint>
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
    // The column a term means by this name: a `kernels` column name or an alias, any case.
    static std::optional<KernelField> column(std::string_view name);
    // The rows, in the given order, that match every term.
    std::vector<KernelId> apply(const KernelTable& table, const std::vector<KernelId>& rows) const;

    enum class Op : uint8_t { Eq, Ne, Lt, Le, Gt, Ge, Match, NoMatch };
    struct Term;

  private:
    std::vector<std::shared_ptr<const Term>> terms_; // shared: copies of a filter are cheap
};

struct FilterParse {
    std::optional<KernelFilter> filter; // set on success
    std::string error;                  // one line, on failure
};

} // namespace ls
