#include "core/kernel_filter.h"

#include <algorithm>
#include <charconv>
#include <cmath>
#include <regex>
#include <span>
#include <unordered_map>

namespace ls {

struct KernelFilter::Term {
    enum class Kind : uint8_t { Compare, FreeText, FreeRegex };
    Kind kind = Kind::FreeText;
    KernelField field = KernelField::Name;
    Op op = Op::Eq;
    double number = 0;
    std::string text; // lower-cased for = != and free text
    std::optional<std::regex> regex;
};

namespace {

using Term = KernelFilter::Term;
using Op = KernelFilter::Op;

std::string lower(std::string_view s) {
    std::string out(s);
    for (char& c : out) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
    return out;
}

std::string_view trim(std::string_view s) {
    while (!s.empty() && std::isspace(static_cast<unsigned char>(s.front()))) s.remove_prefix(1);
    while (!s.empty() && std::isspace(static_cast<unsigned char>(s.back()))) s.remove_suffix(1);
    return s;
}

bool isIdentChar(char c) { return std::isalnum(static_cast<unsigned char>(c)) || c == '_'; }

// Splits on `and`, `&&` and `;` outside double quotes and /regex/ terms.
std::vector<std::string_view> splitTerms(std::string_view s) {
    std::vector<std::string_view> out;
    size_t begin = 0;
    bool quoted = false;
    for (size_t i = 0; i < s.size(); ++i) {
        const char c = s[i];
        if (quoted) {
            if (c == '\\') ++i;
            else if (c == '"') quoted = false;
            continue;
        }
        if (c == '"') {
            quoted = true;
            continue;
        }
        size_t sep = 0;
        if (c == ';') sep = 1;
        else if (c == '&' && i + 1 < s.size() && s[i + 1] == '&') sep = 2;
        else if ((c == 'a' || c == 'A') && i > 0 && std::isspace(static_cast<unsigned char>(s[i - 1])) && i + 3 < s.size() &&
                 lower(s.substr(i, 3)) == "and" && std::isspace(static_cast<unsigned char>(s[i + 3])))
            sep = 3;
        if (!sep) continue;
        out.push_back(s.substr(begin, i - begin));
        begin = i + sep;
        i += sep - 1;
    }
    out.push_back(s.substr(begin));
    return out;
}

std::optional<KernelField> fieldByName(std::string_view name) {
    static const std::pair<std::string_view, KernelField> aliases[] = {
        {"duration", KernelField::Duration}, {"start", KernelField::Start},       {"end", KernelField::End},
        {"kernel", KernelField::Name},       {"correlation", KernelField::Correlation}, {"range", KernelField::NvtxRange},
        {"path", KernelField::NvtxPath},     {"shapes", KernelField::Sizes},       {"tflops", KernelField::TflopsS},
        {"gbytes", KernelField::GbytesS},
    };
    const std::string n = lower(name);
    if (auto f = kernelFieldByName(n)) return f;
    for (const auto& [alias, field] : aliases)
        if (alias == n) return field;
    return std::nullopt;
}

std::optional<std::pair<Op, size_t>> parseOp(std::string_view s) {
    static const std::pair<std::string_view, Op> ops[] = {{"!~", Op::NoMatch}, {"==", Op::Eq}, {"!=", Op::Ne}, {"<=", Op::Le},
                                                          {">=", Op::Ge},      {"=", Op::Eq},  {"<", Op::Lt},  {">", Op::Gt},
                                                          {"~", Op::Match}};
    for (const auto& [text, op] : ops)
        if (s.substr(0, text.size()) == text) return std::make_pair(op, text.size());
    return std::nullopt;
}

struct Suffix {
    std::string_view text;
    double scale;
};

// Parses "50us", "1.5 ms", "3G", "2GiB" for a column of the given unit.
std::optional<double> parseNumber(std::string_view v, FieldUnit unit, std::string& error) {
    static const Suffix time[] = {{"ns", 1}, {"us", 1e3}, {"µs", 1e3}, {"ms", 1e6}, {"s", 1e9}};
    static const Suffix flops[] = {{"k", 1e3}, {"m", 1e6}, {"g", 1e9}, {"t", 1e12}, {"p", 1e15}};
    static const Suffix bytes[] = {{"b", 1},      {"kb", 1e3},          {"mb", 1e6},          {"gb", 1e9},
                                   {"tb", 1e12},  {"kib", 1024.0},      {"mib", 1048576.0},   {"gib", 1073741824.0},
                                   {"tib", 1099511627776.0}, {"k", 1e3}, {"m", 1e6}, {"g", 1e9}, {"t", 1e12}};
    double value = 0;
    const auto [end, ec] = std::from_chars(v.data(), v.data() + v.size(), value);
    std::string suffix = lower(trim(std::string_view(end, static_cast<size_t>(v.data() + v.size() - end))));
    const char* kind = "a number";
    std::span<const Suffix> table = std::span<const Suffix>(flops);
    if (unit == FieldUnit::Duration || unit == FieldUnit::Timestamp) {
        kind = "a duration (use ns, us, ms or s)";
        table = time;
    } else if (unit == FieldUnit::Bytes) {
        kind = "a byte count (use B, kB, MB, GB, KiB, MiB or GiB)";
        table = bytes;
    } else if (unit == FieldUnit::Flops) {
        kind = "a FLOP count (use k, M, G, T or P)";
        for (std::string_view word : {"flops", "flop"})
            if (suffix.size() >= word.size() && suffix.compare(suffix.size() - word.size(), word.size(), word) == 0) {
                suffix.resize(suffix.size() - word.size());
                break;
            }
        suffix = lower(trim(suffix));
    }
    if (ec == std::errc() && std::isfinite(value)) {
        if (suffix.empty()) return value;
        for (const auto& s : table)
            if (s.text == suffix) return value * s.scale;
    }
    error = "\"" + std::string(v) + "\" is not " + kind;
    return std::nullopt;
}

std::optional<std::string> parseValue(std::string_view v, std::string& error) {
    v = trim(v);
    if (v.empty() || v.front() != '"') return std::string(v);
    std::string out;
    for (size_t i = 1; i < v.size(); ++i) {
        if (v[i] == '\\' && i + 1 < v.size()) {
            out += v[++i];
        } else if (v[i] == '"') {
            if (!trim(v.substr(i + 1)).empty()) break;
            return out;
        } else {
            out += v[i];
        }
    }
    error = "unterminated or misplaced quote in " + std::string(v);
    return std::nullopt;
}

std::optional<std::regex> compileRegex(const std::string& pattern, std::string& error) {
    try {
        return std::regex(pattern, std::regex::ECMAScript | std::regex::icase | std::regex::optimize);
    } catch (const std::regex_error& e) {
        error = "bad regular expression \"" + pattern + "\": " + e.what();
        return std::nullopt;
    }
}

std::string columnList() {
    std::string out;
    for (const auto& f : kernelFields()) {
        if (!out.empty()) out += ", ";
        out += f.name;
    }
    return out;
}

std::optional<Term> parseTerm(std::string_view s, std::string& error) {
    Term term;
    if (s.size() >= 2 && s.front() == '/' && s.back() == '/') {
        term.kind = Term::Kind::FreeRegex;
        term.regex = compileRegex(std::string(s.substr(1, s.size() - 2)), error);
        return term.regex ? std::optional<Term>(std::move(term)) : std::nullopt;
    }
    size_t i = 0;
    while (i < s.size() && isIdentChar(s[i])) ++i;
    const std::string_view ident = s.substr(0, i);
    size_t j = i;
    while (j < s.size() && std::isspace(static_cast<unsigned char>(s[j]))) ++j;
    const auto op = ident.empty() || std::isdigit(static_cast<unsigned char>(ident.front())) ? std::nullopt : parseOp(s.substr(j));
    if (!op) {
        term.kind = Term::Kind::FreeText;
        term.text = lower(s);
        return term;
    }
    const auto field = fieldByName(ident);
    if (!field) {
        error = "unknown column \"" + std::string(ident) + "\"; columns: " + columnList();
        return std::nullopt;
    }
    term.kind = Term::Kind::Compare;
    term.field = *field;
    term.op = op->first;
    const auto value = parseValue(s.substr(j + op->second), error);
    if (!value) return std::nullopt;
    const FieldUnit unit = kernelFieldInfo(*field).unit;
    const bool ordering = term.op == Op::Lt || term.op == Op::Le || term.op == Op::Gt || term.op == Op::Ge;
    if (term.op == Op::Match || term.op == Op::NoMatch) {
        term.regex = compileRegex(*value, error);
        return term.regex ? std::optional<Term>(std::move(term)) : std::nullopt;
    }
    if (unit == FieldUnit::Text || unit == FieldUnit::Dim) {
        if (ordering) {
            error = "operator " + std::string(s.substr(j, op->second)) + " needs a numeric column; " + std::string(ident) +
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
    case Op::Eq: return v == x;
    case Op::Ne: return v != x;
    case Op::Lt: return v < x;
    case Op::Le: return v <= x;
    case Op::Gt: return v > x;
    case Op::Ge: return v >= x;
    default: return false;
    }
}

bool textMatches(const Term& t, std::string_view cell) {
    switch (t.kind) {
    case Term::Kind::FreeText: return lower(cell).find(t.text) != std::string::npos;
    case Term::Kind::FreeRegex: return std::regex_search(cell.begin(), cell.end(), *t.regex);
    case Term::Kind::Compare: break;
    }
    switch (t.op) {
    case Op::Eq: return lower(cell) == t.text;
    case Op::Ne: return lower(cell) != t.text;
    case Op::Match: return std::regex_search(cell.begin(), cell.end(), *t.regex);
    case Op::NoMatch: return !std::regex_search(cell.begin(), cell.end(), *t.regex);
    default: return false;
    }
}

// Decides a text predicate once per distinct key (string id, path node, vocabulary code).
class Memo {
public:
    explicit Memo(size_t size) : verdict_(size, -1) {}
    template <typename Text> bool operator()(size_t key, Text&& text) {
        auto& v = verdict_[key];
        if (v < 0) v = text() ? 1 : 0;
        return v == 1;
    }

private:
    std::vector<int8_t> verdict_;
};

std::vector<KernelId> applyTerm(const KernelTable& table, const Term& term, const std::vector<KernelId>& rows) {
    const Trace& t = table.trace();
    std::vector<KernelId> out;
    out.reserve(rows.size());
    auto keep = [&](auto&& pred) {
        for (KernelId k : rows)
            if (pred(k)) out.push_back(k);
    };
    auto byString = [&](Memo& memo, StringId id) { return memo(id.valid() ? id.value : 0, [&] { return textMatches(term, t.str(id.valid() ? id : StringId(0))); }); };

    if (term.kind != Term::Kind::Compare) {
        Memo memo(t.strings.size() + 1);
        keep([&](KernelId k) {
            return byString(memo, *table.stringId(k, KernelField::Name)) || byString(memo, *table.stringId(k, KernelField::Op)) ||
                   byString(memo, *table.stringId(k, KernelField::Layer));
        });
        return out;
    }
    const KernelField f = term.field;
    const FieldUnit unit = kernelFieldInfo(f).unit;
    const bool textual = unit == FieldUnit::Text || unit == FieldUnit::Dim || term.op == Op::Match || term.op == Op::NoMatch;
    if (!textual) {
        const bool timestamp = unit == FieldUnit::Timestamp;
        keep([&](KernelId k) {
            const double v = timestamp ? static_cast<double>((f == KernelField::Start ? t.kernels.start[k.value] : t.kernels.end[k.value]) - t.captureStart)
                                 : table.number(k, f);
            return std::isfinite(v) && compare(v, term.op, term.number);
        });
        return out;
    }
    if (!rows.empty() && table.stringId(rows.front(), f)) {
        Memo memo(t.strings.size() + 1);
        keep([&](KernelId k) { return byString(memo, *table.stringId(k, f)); });
    } else if (f == KernelField::NvtxPath) {
        Memo memo(table.pathNodeCount());
        keep([&](KernelId k) { return memo(table.pathNode(k), [&] { return textMatches(term, table.pathText(table.pathNode(k))); }); });
    } else if (f == KernelField::NvtxRange) {
        Memo memo(t.strings.size() + 1);
        keep([&](KernelId k) {
            const RangeId r = t.kernelLinks.range[k.value];
            return byString(memo, r.valid() ? t.ranges.name[r.value] : StringId(0));
        });
    } else if (KernelTable::isVocabulary(f)) {
        std::unordered_map<uint32_t, bool> memo;
        keep([&](KernelId k) {
            const uint32_t code = table.vocabularyCode(k, f);
            auto it = memo.find(code);
            if (it == memo.end()) it = memo.emplace(code, textMatches(term, table.text(k, f))).first;
            return it->second;
        });
    } else {
        // Numbers and dims matched as text (`grid ~ ^1,`): few distinct texts, memo by text.
        std::unordered_map<std::string, bool> memo;
        keep([&](KernelId k) {
            std::string cell = table.text(k, f);
            auto it = memo.find(cell);
            if (it == memo.end()) it = memo.emplace(cell, textMatches(term, cell)).first;
            return it->second;
        });
    }
    return out;
}

} // namespace

FilterParse KernelFilter::parse(std::string_view expression) {
    FilterParse result;
    KernelFilter filter;
    if (trim(expression).empty()) {
        result.filter = std::move(filter);
        return result;
    }
    for (std::string_view part : splitTerms(expression)) {
        part = trim(part);
        if (part.empty()) {
            result.error = "empty condition (two joiners in a row, or one at an end)";
            return result;
        }
        auto term = parseTerm(part, result.error);
        if (!term) return result;
        filter.terms_.push_back(std::make_shared<const Term>(std::move(*term)));
    }
    result.filter = std::move(filter);
    return result;
}

std::vector<KernelId> KernelFilter::apply(const KernelTable& table, const std::vector<KernelId>& rows) const {
    if (terms_.empty()) return rows;
    std::vector<KernelId> current = applyTerm(table, *terms_.front(), rows);
    for (size_t i = 1; i < terms_.size() && !current.empty(); ++i) current = applyTerm(table, *terms_[i], current);
    return current;
}

} // namespace ls
