#include "core/views/kernel_filter.h"

#include <bit>
#include <cctype>
#include <charconv>
#include <cmath>
#include <regex>
#include <span>
#include <unordered_map>

namespace ls {

namespace {

// A regex searched anywhere in a cell. `whole`: re is "[\s\S]*(?:pattern)[\s\S]*", matched
// against the whole cell (see compileRegex).
struct CellRegex {
    std::regex re;
    bool whole = false;
    bool search(std::string_view cell) const {
        return whole ? std::regex_match(cell.begin(), cell.end(), re)
                     : std::regex_search(cell.begin(), cell.end(), re);
    }
};

} // namespace

struct KernelFilter::Term {
    enum class Kind : uint8_t { Compare, FreeText, FreeRegex };
    Kind kind = Kind::FreeText;
    KernelField field = KernelField::Name;
    Op op = Op::Eq;
    double number = 0;
    std::string text; // lower-cased: the value of = and !=, or the free text
    std::optional<CellRegex> regex;

    // The verdict on one cell's text for a text comparison, a regex or free text.
    bool matches(std::string_view cell) const;
};

namespace {

using Term = KernelFilter::Term;
using Op = KernelFilter::Op;

bool isSpace(char c) { return std::isspace(static_cast<unsigned char>(c)) != 0; }
bool isIdentStart(char c) { return std::isalpha(static_cast<unsigned char>(c)) || c == '_'; }
bool isIdentChar(char c) { return std::isalnum(static_cast<unsigned char>(c)) || c == '_'; }

std::string lower(std::string_view s) {
    std::string out(s);
    for (char& c : out) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
    return out;
}

bool equalsIgnoringCase(std::string_view cell, std::string_view lowered) {
    if (cell.size() != lowered.size()) return false;
    for (size_t i = 0; i < cell.size(); ++i)
        if (std::tolower(static_cast<unsigned char>(cell[i])) !=
            static_cast<unsigned char>(lowered[i]))
            return false;
    return true;
}

bool containsIgnoringCase(std::string_view cell, std::string_view lowered) {
    if (lowered.empty()) return true;
    if (lowered.size() > cell.size()) return false;
    for (size_t i = 0; i + lowered.size() <= cell.size(); ++i)
        if (equalsIgnoringCase(cell.substr(i, lowered.size()), lowered)) return true;
    return false;
}

std::string_view trim(std::string_view s) {
    while (!s.empty() && isSpace(s.front())) s.remove_prefix(1);
    while (!s.empty() && isSpace(s.back())) s.remove_suffix(1);
    return s;
}

// Length of the joiner (`;`, `&&`, or the word `and` between blanks or at the end) at s[i], or 0.
size_t joinerAt(std::string_view s, size_t i) {
    if (s[i] == ';') return 1;
    if (s[i] == '&' && i + 1 < s.size() && s[i + 1] == '&') return 2;
    if (i > 0 && isSpace(s[i - 1]) && i + 3 <= s.size() &&
        equalsIgnoringCase(s.substr(i, 3), "and") && (i + 3 == s.size() || isSpace(s[i + 3])))
        return 3;
    return 0;
}

// Splits on joiners outside "quoted" text and /regex/ spans (a slash opens one at the start of a
// term or right after a regex operator).
std::vector<std::string_view> splitTerms(std::string_view s) {
    std::vector<std::string_view> out;
    size_t begin = 0;
    for (size_t i = 0; i < s.size(); ++i) {
        const char c = s[i];
        if (c == '/') {
            const std::string_view before = trim(s.substr(begin, i - begin));
            if (!before.empty() && before.back() != '~') continue;
        }
        if (c == '"' || c == '/') {
            for (++i; i < s.size() && s[i] != c; ++i)
                if (s[i] == '\\') ++i;
            continue;
        }
        if (const size_t n = joinerAt(s, i)) {
            out.push_back(s.substr(begin, i - begin));
            begin = i + n;
            i += n - 1;
        }
    }
    out.push_back(s.substr(begin));
    return out;
}

} // namespace

std::optional<KernelField> KernelFilter::column(std::string_view name) {
    static const std::pair<std::string_view, KernelField> aliases[] = {
        {"duration", KernelField::Duration},
        {"start", KernelField::Start},
        {"end", KernelField::End},
        {"kernel", KernelField::Name},
        {"correlation", KernelField::Correlation},
        {"range", KernelField::NvtxRange},
        {"path", KernelField::NvtxPath},
        {"shapes", KernelField::Sizes},
        {"tflops", KernelField::TflopsS},
        {"gbytes", KernelField::GbytesS},
    };
    const std::string n = lower(name);
    if (auto f = kernelFieldByName(n)) return f;
    for (const auto& [alias, field] : aliases)
        if (alias == n) return field;
    return std::nullopt;
}

namespace {

std::string columnList() {
    std::string out;
    for (const auto& f : kernelFields()) {
        if (!out.empty()) out += ", ";
        out += f.name;
    }
    return out;
}

// The operator at the start of s and its length.
std::optional<std::pair<Op, size_t>> parseOp(std::string_view s) {
    static const std::pair<std::string_view, Op> ops[] = {
        {"!~", Op::NoMatch}, {"=~", Op::Match}, {"==", Op::Eq}, {"!=", Op::Ne}, {"<=", Op::Le},
        {">=", Op::Ge},      {"=", Op::Eq},     {"<", Op::Lt},  {">", Op::Gt},  {"~", Op::Match},
    };
    for (const auto& [text, op] : ops)
        if (s.starts_with(text)) return std::make_pair(op, text.size());
    return std::nullopt;
}

bool isOrdering(Op op) { return op == Op::Lt || op == Op::Le || op == Op::Gt || op == Op::Ge; }
bool isRegex(Op op) { return op == Op::Match || op == Op::NoMatch; }

struct Suffix {
    std::string_view text; // lower case
    double scale;
};

// Parses "50us", "1.5 ms", "3 GFLOP", "2GiB" for a column of the given unit; suffixes are
// matched ignoring case (an M is mega for FLOPs and bytes: nobody filters by milli-FLOPs).
std::optional<double> parseNumber(std::string_view v, FieldUnit unit, std::string& error) {
    static const Suffix time[] = {{"ns", 1},          {"us", 1e3}, {"\xc2\xb5s", 1e3},
                                  {"\xce\xbcs", 1e3}, {"ms", 1e6}, {"s", 1e9}};
    static const Suffix multipliers[] = {
        {"k", 1e3}, {"m", 1e6}, {"g", 1e9}, {"t", 1e12}, {"p", 1e15}};
    static const Suffix bytes[] = {{"b", 1},
                                   {"kb", 1e3},
                                   {"mb", 1e6},
                                   {"gb", 1e9},
                                   {"tb", 1e12},
                                   {"kib", 1024.0},
                                   {"mib", 1048576.0},
                                   {"gib", 1073741824.0},
                                   {"tib", 1099511627776.0},
                                   {"k", 1e3},
                                   {"m", 1e6},
                                   {"g", 1e9},
                                   {"t", 1e12}};
    const char* kind = "a number";
    std::span<const Suffix> table = multipliers;
    if (unit == FieldUnit::Duration || unit == FieldUnit::Timestamp) {
        kind = "a duration (use ns, us, ms or s)";
        table = time;
    } else if (unit == FieldUnit::Bytes) {
        kind = "a byte count (use B, kB, MB, GB, KiB, MiB or GiB)";
        table = bytes;
    } else if (unit == FieldUnit::Flops) {
        kind = "a FLOP count (use k, M, G, T or P, optionally followed by FLOP)";
    }
    const char* first = v.data();
    const char* last = v.data() + v.size();
    if (first != last && *first == '+') ++first; // from_chars takes '-' only
    double value = 0;
    const auto [end, ec] = std::from_chars(first, last, value);
    std::string suffix = lower(trim(std::string_view(end, static_cast<size_t>(last - end))));
    if (unit == FieldUnit::Flops)
        for (std::string_view word : {"flops", "flop"})
            if (suffix.ends_with(word)) {
                suffix =
                    lower(trim(std::string_view(suffix).substr(0, suffix.size() - word.size())));
                break;
            }
    if (ec == std::errc() && end != first && std::isfinite(value)) {
        double scale = suffix.empty() ? 1.0 : 0.0;
        for (const auto& s : table)
            if (s.text == suffix) scale = s.scale;
        if (scale != 0) {
            // 0.05ms is 50000 ns, not 50000.000000000007: snap decimal noise to the integer.
            const double scaled = value * scale, nearest = std::round(scaled);
            return std::abs(scaled - nearest) <= 1e-9 * std::abs(scaled) ? nearest : scaled;
        }
    }
    error = "\"" + std::string(v) + "\" is not " + kind;
    return std::nullopt;
}

// A bare value (trimmed) or a "quoted" one with \" and \\ escapes.
std::optional<std::string> parseValue(std::string_view v, std::string& error) {
    v = trim(v);
    if (v.empty() || v.front() != '"') return std::string(v);
    std::string out;
    for (size_t i = 1; i < v.size(); ++i) {
        if (v[i] == '\\' && i + 1 < v.size()) {
            out += v[++i];
        } else if (v[i] == '"') {
            if (!trim(v.substr(i + 1)).empty()) {
                error = "unexpected text after the quoted value " + std::string(v.substr(0, i + 1));
                return std::nullopt;
            }
            return out;
        } else {
            out += v[i];
        }
    }
    error = "unterminated quote in " + std::string(v);
    return std::nullopt;
}

std::optional<CellRegex> compileRegex(const std::string& pattern, std::string& error) {
    constexpr auto flags = std::regex::ECMAScript | std::regex::icase | std::regex::optimize;
    try {
        std::regex re(pattern, flags); // errors name the pattern as written
#ifdef __GLIBCXX__
        // libstdc++ matches by backtracking, exponential in nested repeats: `name ~ .**x` froze
        // the filter (found by fuzz/fuzz_kernel_filter). Its polynomial executor gives the same
        // verdicts without that, but a search with it restarts at every position; one whole-cell
        // match with a match-anything prefix and suffix is a single pass. Back-references exist
        // only in the backtracking executor, so those patterns keep it.
        try {
            return CellRegex{std::regex("[\\s\\S]*(?:" + pattern + ")[\\s\\S]*",
                                        flags | std::regex_constants::__polynomial),
                             true};
        } catch (const std::regex_error&) {
        }
#endif
        return CellRegex{std::move(re), false};
    } catch (const std::regex_error& e) {
        error = "bad regular expression \"" + pattern + "\": " + e.what();
        return std::nullopt;
    }
}

std::optional<Term> parseTerm(std::string_view s, std::string& error) {
    Term term;
    if (s.size() >= 2 && s.front() == '/' && s.back() == '/') {
        term.kind = Term::Kind::FreeRegex;
        term.regex = compileRegex(std::string(s.substr(1, s.size() - 2)), error);
        if (!term.regex) return std::nullopt;
        return term;
    }
    size_t i = 0;
    if (!s.empty() && isIdentStart(s.front()))
        while (i < s.size() && isIdentChar(s[i])) ++i;
    const std::string_view ident = s.substr(0, i);
    size_t j = i;
    while (j < s.size() && isSpace(s[j])) ++j;
    const auto op = ident.empty() ? std::nullopt : parseOp(s.substr(j));
    if (!op) { // free text: `aten::mm`, `128x128`, `"a and b"`
        const auto text = parseValue(s, error);
        if (!text) return std::nullopt;
        term.kind = Term::Kind::FreeText;
        term.text = lower(*text);
        return term;
    }
    const auto field = KernelFilter::column(ident);
    if (!field) {
        error = "unknown column \"" + std::string(ident) + "\"; columns: " + columnList();
        return std::nullopt;
    }
    term.kind = Term::Kind::Compare;
    term.field = *field;
    term.op = op->first;
    const std::string_view rest = trim(s.substr(j + op->second));
    const FieldUnit unit = kernelFieldInfo(*field).unit;
    if (isRegex(term.op)) {
        std::optional<std::string> pattern;
        if (rest.size() >= 2 && rest.front() == '/' && rest.back() == '/')
            pattern = std::string(rest.substr(1, rest.size() - 2));
        else
            pattern = parseValue(rest, error);
        if (!pattern) return std::nullopt;
        term.regex = compileRegex(*pattern, error);
        if (!term.regex) return std::nullopt;
        return term;
    }
    const auto value = parseValue(rest, error);
    if (!value) return std::nullopt;
    if (unit == FieldUnit::Text || unit == FieldUnit::Dim) {
        if (isOrdering(term.op)) {
            error = "operator " + std::string(s.substr(j, op->second)) +
                    " needs a numeric column; " + std::string(kernelFieldInfo(*field).name) +
                    " is text (use = != ~ !~)";
            return std::nullopt;
        }
        term.text = lower(*value);
        return term;
    }
    const auto number = parseNumber(*value, unit, error);
    if (!number) return std::nullopt;
    term.number = *number;
    return term;
}

bool compare(double v, Op op, double x) {
    switch (op) {
    case Op::Eq:
        return v == x;
    case Op::Ne:
        return v != x;
    case Op::Lt:
        return v < x;
    case Op::Le:
        return v <= x;
    case Op::Gt:
        return v > x;
    case Op::Ge:
        return v >= x;
    default:
        return false;
    }
}

// Verdicts of one term per small dense key (string id, path node, vocabulary code), each
// decided on first use.
class Verdicts {
  public:
    explicit Verdicts(size_t keys) : verdict_(keys, kUnknown) {}
    template <typename Decide> bool operator()(size_t key, Decide&& decide) {
        if (key >= verdict_.size()) verdict_.resize(key + 1, kUnknown);
        if (verdict_[key] == kUnknown) verdict_[key] = decide() ? 1 : 0;
        return verdict_[key] == 1;
    }

  private:
    static constexpr int8_t kUnknown = -1;
    std::vector<int8_t> verdict_;
};

// The same for sparse keys (numbers matched as text, grid/block texts).
template <typename Key> class SparseVerdicts {
  public:
    template <typename Decide> bool operator()(const Key& key, Decide&& decide) {
        auto it = verdict_.find(key);
        if (it == verdict_.end()) it = verdict_.emplace(key, decide()).first;
        return it->second;
    }

  private:
    std::unordered_map<Key, bool> verdict_;
};

uint32_t stringKey(StringId id) {
    return id.valid() ? id.value : 0;
} // invalid reads as "" like id 0

template <typename Pred>
std::vector<KernelId> keep(const std::vector<KernelId>& rows, Pred&& pred) {
    std::vector<KernelId> out;
    out.reserve(rows.size());
    for (KernelId k : rows)
        if (pred(k)) out.push_back(k);
    return out;
}

std::vector<KernelId> applyTerm(const KernelTable& table, const Term& term,
                                const std::vector<KernelId>& rows) {
    const Trace& t = table.trace();
    const auto byString = [&](Verdicts& memo, StringId id) {
        const uint32_t key = stringKey(id);
        return memo(key, [&] { return term.matches(t.str(StringId(key))); });
    };
    if (term.kind != Term::Kind::Compare) {
        Verdicts memo(t.strings.size());
        return keep(rows, [&](KernelId k) {
            return byString(memo, t.kernels.name[k.value]) ||
                   byString(memo, *table.stringId(k, KernelField::Op)) ||
                   byString(memo, *table.stringId(k, KernelField::Layer));
        });
    }

    const KernelField f = term.field;
    const FieldUnit unit = kernelFieldInfo(f).unit;
    if (unit != FieldUnit::Text && unit != FieldUnit::Dim && !isRegex(term.op)) {
        if (f == KernelField::Start || f == KernelField::End) {
            const auto& col = f == KernelField::Start ? t.kernels.start : t.kernels.end;
            return keep(rows, [&](KernelId k) {
                return compare(static_cast<double>(col[k.value] - t.captureStart), term.op,
                               term.number);
            });
        }
        return keep(rows, [&](KernelId k) {
            const double v = table.number(k, f);
            return std::isfinite(v) && compare(v, term.op, term.number);
        });
    }

    const KernelId probe(0);
    if (t.kernels.size() > 0 && table.stringId(probe, f)) {
        Verdicts memo(t.strings.size());
        return keep(rows, [&](KernelId k) { return byString(memo, *table.stringId(k, f)); });
    }
    switch (f) {
    case KernelField::NvtxPath: {
        Verdicts memo(table.pathNodeCount());
        return keep(rows, [&](KernelId k) {
            const uint32_t node = table.pathNode(k);
            return memo(node, [&] { return term.matches(table.pathText(node)); });
        });
    }
    case KernelField::NvtxRange: {
        Verdicts memo(t.strings.size());
        return keep(rows, [&](KernelId k) {
            const RangeId r = t.kernelLinks.range[k.value];
            return byString(memo, r.valid() ? t.ranges.name[r.value] : StringId(0));
        });
    }
    case KernelField::Grid:
    case KernelField::Block: {
        SparseVerdicts<std::string> memo;
        return keep(rows, [&](KernelId k) {
            const std::string cell = table.text(k, f);
            return memo(cell, [&] { return term.matches(cell); });
        });
    }
    case KernelField::Start:
    case KernelField::End: { // the cell text is the exact integer
        const auto& col = f == KernelField::Start ? t.kernels.start : t.kernels.end;
        SparseVerdicts<int64_t> memo;
        return keep(rows, [&](KernelId k) {
            return memo(col[k.value], [&] { return term.matches(table.text(k, f)); });
        });
    }
    default:
        break;
    }
    if (KernelTable::isVocabulary(f)) {
        Verdicts memo(64);
        return keep(rows, [&](KernelId k) {
            return memo(table.vocabularyCode(k, f), [&] { return term.matches(table.text(k, f)); });
        });
    }
    // A number searched as text (`registers ~ ^12`): the text is a function of the number.
    SparseVerdicts<uint64_t> memo;
    return keep(rows, [&](KernelId k) {
        const double v = table.number(k, f);
        const uint64_t key = std::isfinite(v) ? std::bit_cast<uint64_t>(v) : ~uint64_t(0);
        return memo(key, [&] { return term.matches(table.text(k, f)); });
    });
}

} // namespace

bool KernelFilter::Term::matches(std::string_view cell) const {
    switch (kind) {
    case Kind::FreeText:
        return containsIgnoringCase(cell, text);
    case Kind::FreeRegex:
        return regex->search(cell);
    case Kind::Compare:
        break;
    }
    switch (op) {
    case Op::Eq:
        return equalsIgnoringCase(cell, text);
    case Op::Ne:
        return !equalsIgnoringCase(cell, text);
    case Op::Match:
        return regex->search(cell);
    case Op::NoMatch:
        return !regex->search(cell);
    default:
        return false;
    }
}

FilterParse KernelFilter::parse(std::string_view expression) {
    FilterParse result;
    KernelFilter filter;
    const auto parts = splitTerms(expression);
    for (size_t p = 0; p < parts.size(); ++p) {
        const std::string_view part = trim(parts[p]);
        if (part.empty()) {
            if (p + 1 == parts.size()) break; // "a and " while typing: the last term is still empty
            result.error = "empty condition (a joiner at the start or two in a row)";
            return result;
        }
        auto term = parseTerm(part, result.error);
        if (!term) return result;
        filter.terms_.push_back(std::make_shared<const Term>(std::move(*term)));
    }
    result.filter = std::move(filter);
    return result;
}

std::vector<KernelId> KernelFilter::apply(const KernelTable& table,
                                          const std::vector<KernelId>& rows) const {
    if (terms_.empty()) return rows;
    std::vector<KernelId> current = applyTerm(table, *terms_.front(), rows);
    for (size_t i = 1; i < terms_.size() && !current.empty(); ++i)
        current = applyTerm(table, *terms_[i], current);
    return current;
}

} // namespace ls
