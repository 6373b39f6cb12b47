#include "core/import/common/pytorch_marker.h"

#include <algorithm>
#include <array>
#include <charconv>
#include <cstring>
#include <set>

namespace ls {
namespace {

enum class Field { None, Seq, StashedSeq, OpId, Sizes, InputOpIds };

// The field whose key starts at pos, and the length of that key.
Field fieldAt(std::string_view s, size_t pos, size_t& keyLength) {
    const std::string_view rest = s.substr(pos);
    // One candidate key from the first letters; each test is against a literal, which the
    // compiler compares inline (this runs at every ", " of millions of marker texts).
    const auto is = [&](std::string_view key, Field f) {
        if (!rest.starts_with(key)) return Field::None;
        keyLength = key.size();
        return f;
    };
    if (rest.size() < 2) return Field::None;
    switch (rest[0]) {
    case 's':
        return rest[1] == 'e'   ? is("seq = ", Field::Seq)
               : rest[1] == 'i' ? is("sizes = ", Field::Sizes)
                                : is("stashed seq = ", Field::StashedSeq);
    case 'o':
        return is("op_id = ", Field::OpId);
    case 'i':
        return is("input_op_ids = ", Field::InputOpIds);
    default:
        return Field::None;
    }
}

// End of the bracketed value starting at pos ('[' ... matching ']'), or npos.
size_t bracketEnd(std::string_view s, size_t pos) {
    int depth = 0;
    for (size_t i = pos; i < s.size(); ++i) {
        if (s[i] == '[')
            ++depth;
        else if (s[i] == ']' && --depth == 0)
            return i + 1;
    }
    return std::string_view::npos;
}

// Whether the next field's ", " starts at pos. Two byte tests, not a compare call: this runs a few
// times on each of millions of marker texts.
bool separatorAt(std::string_view s, size_t pos) {
    return pos + 1 < s.size() && s[pos] == ',' && s[pos + 1] == ' ';
}

// A number that ends the text or is followed by the next field's ", ". Up to 18 digits are
// added up here (they cannot overflow); longer ones go through from_chars, which says whether
// they fit.
size_t parseNumber(std::string_view s, size_t pos, int64_t& out) {
    size_t i = pos;
    const bool negative = i < s.size() && s[i] == '-';
    if (negative) ++i;
    const size_t digits = i;
    uint64_t v = 0;
    while (i < s.size() && i - digits < 19 && s[i] >= '0' && s[i] <= '9')
        v = v * 10 + static_cast<uint64_t>(s[i++] - '0');
    size_t end = i;
    if (i == digits) return std::string_view::npos;
    if (i - digits < 19) {
        out = negative ? -static_cast<int64_t>(v) : static_cast<int64_t>(v);
    } else {
        const auto [ptr, ec] = std::from_chars(s.data() + pos, s.data() + s.size(), out);
        if (ec != std::errc()) return std::string_view::npos;
        end = static_cast<size_t>(ptr - s.data());
    }
    if (end != s.size() && !separatorAt(s, end)) return std::string_view::npos;
    return end;
}

// Calls fn(entry, isTensor) for each "(op,output)" entry of the input_op_ids list that starts the
// text, as text: "(3944,0)" twice is the same tensor. "(0,-1)" is a non-tensor or a tensor with no
// recorded producer (a parameter): isTensor false, never matched. Stops when fn returns false.
template <class Fn> void forEachInputId(std::string_view list, Fn&& fn) {
    if (list.empty() || list[0] != '[') return;
    // One pass over the list: each entry runs from a '(' to the first ')' after it, and the
    // list ends at its first ']'.
    const char* const begin = list.data();
    const char* const stop = begin + std::min(list.find(']'), list.size());
    const char* close = begin; // the first ')' after the last '(' seen, once looked for
    for (const char* open = begin; open < stop; ++open) {
        if (*open != '(') continue;
        if (close <= open) {
            close = open + 1;
            while (close < stop && *close != ')') ++close;
            if (close >= stop) return; // no ')' before the list's end
        }
        const std::string_view id(open, static_cast<size_t>(close - open) + 1);
        if (!fn(id, !(id.size() > 3 && id[id.size() - 3] == '-'))) return; // ",-1)"
    }
}

// A tensor input that appears twice. Runs on every marker at load: up to 16 entries by pairwise
// compare without allocating; longer lists (a _foreach_ call over thousands of parameters) by
// sorting.
bool anyRepeatedInput(std::string_view list) {
    // An entry of up to 8 bytes inside its parentheses ("3944,0") compares as one integer.
    struct Entry {
        uint64_t packed;
        std::string_view text;
        bool operator==(const Entry& o) const {
            return packed == o.packed && (packed != 0 || text == o.text);
        }
    };
    const auto entry = [](std::string_view id) {
        const std::string_view inner = id.substr(1, id.size() - 2);
        uint64_t packed = 0;
        if (inner.size() <= 8 && !inner.empty())
            std::memcpy(&packed, inner.data(), inner.size()); // no NUL in a number pair
        return Entry{packed, id};
    };
    std::array<Entry, 16> small;
    size_t count = 0;
    std::vector<std::string_view> many;
    bool repeated = false;
    forEachInputId(list, [&](std::string_view id, bool tensor) {
        if (!tensor) return true;
        if (count < small.size()) {
            const Entry e = entry(id);
            repeated = std::find(small.begin(), small.begin() + static_cast<ptrdiff_t>(count), e) !=
                       small.begin() + static_cast<ptrdiff_t>(count);
            small[count++] = e;
            return !repeated;
        }
        if (many.empty())
            for (const Entry& e : small) many.push_back(e.text);
        many.push_back(id);
        return true;
    });
    if (repeated || many.empty()) return repeated;
    std::sort(many.begin(), many.end());
    return std::adjacent_find(many.begin(), many.end()) != many.end();
}

} // namespace

std::vector<uint8_t> repeatedInputs(std::string_view text) {
    std::vector<uint8_t> out;
    constexpr std::string_view kKey = "input_op_ids = ";
    const size_t at = text.find(kKey);
    if (at == std::string_view::npos) return out;
    std::set<std::string_view> seen;
    forEachInputId(text.substr(at + kKey.size()), [&](std::string_view id, bool tensor) {
        out.push_back(tensor && !seen.insert(id).second ? 1 : 0);
        return true;
    });
    return out;
}

MarkerFields parseMarker(std::string_view text) {
    MarkerFields f;
    f.name = text;
    // The name ends at the first ", " that a known field follows; most user ranges have none.
    size_t sep = 0, keyLength = 0;
    Field field = Field::None;
    while ((sep = text.find(", ", sep)) != std::string_view::npos) {
        field = fieldAt(text, sep + 2, keyLength);
        if (field != Field::None) break;
        sep += 1;
    }
    if (field == Field::None) return f;
    const MarkerFields plain = f;
    f.name = text.substr(0, sep);
    f.isPytorchMarker = true;
    // Fields follow in emit_nvtx's order; stop at the first thing we do not recognise. A text
    // whose first field is malformed is not a marker and keeps its whole text.
    bool parsedAny = false;
    while (field != Field::None) {
        size_t pos = sep + 2 + keyLength;
        int64_t v = 0;
        switch (field) {
        case Field::Seq:
        case Field::StashedSeq:
        case Field::OpId:
            pos = parseNumber(text, pos, v);
            if (pos == std::string_view::npos) return parsedAny ? f : plain;
            if (field == Field::OpId) {
                f.opId = v;
            } else {
                f.seq = v;
                f.seqIsStashed = field == Field::StashedSeq;
            }
            break;
        case Field::Sizes: {
            const size_t end = bracketEnd(text, pos);
            if (end == std::string_view::npos) return parsedAny ? f : plain;
            f.sizes = text.substr(pos, end - pos);
            pos = end;
            break;
        }
        case Field::InputOpIds: // only whether a tensor repeats; the raw text can be re-read for
                                // the rest
            f.repeatedInput = anyRepeatedInput(text.substr(pos));
            return f;
        case Field::None:
            return parsedAny ? f : plain;
        }
        parsedAny = true;
        if (!separatorAt(text, pos)) return f;
        sep = pos;
        field = fieldAt(text, sep + 2, keyLength);
    }
    return f;
}

namespace {

// The quoted value after `'key': '`, or nullopt.
std::optional<std::string_view> quotedValue(std::string_view text, std::string_view key) {
    const std::string pattern = "'" + std::string(key) + "': '";
    const size_t at = text.find(pattern);
    if (at == std::string_view::npos) return std::nullopt;
    const size_t begin = at + pattern.size();
    const size_t end = text.find('\'', begin);
    if (end == std::string_view::npos) return std::nullopt;
    return text.substr(begin, end - begin);
}

// End of the Python value that starts at pos: the first closing bracket at depth 0, or the
// first ',' at depth 0 when stopAtComma; outside quotes.
size_t valueEnd(std::string_view s, size_t pos, bool stopAtComma = true) {
    int depth = 0;
    char quote = 0;
    for (size_t i = pos; i < s.size(); ++i) {
        const char c = s[i];
        if (quote) {
            if (c == quote) quote = 0;
        } else if (c == '\'' || c == '"') {
            quote = c;
        } else if (c == '(' || c == '[' || c == '{') {
            ++depth;
        } else if (c == ')' || c == ']' || c == '}') {
            if (depth-- == 0) return i;
        } else if (c == ',' && depth == 0 && stopAtComma) {
            return i;
        }
    }
    return s.size();
}

// The raw value text after `'key': ` inside one argument's dict, or nullopt.
std::optional<std::string_view> rawValue(std::string_view arg, std::string_view key) {
    const std::string pattern = "'" + std::string(key) + "': ";
    const size_t at = arg.find(pattern);
    if (at == std::string_view::npos) return std::nullopt;
    const size_t begin = at + pattern.size();
    return arg.substr(begin, valueEnd(arg, begin) - begin);
}

std::string_view unquoted(std::string_view v) {
    if (v.size() >= 2 && (v.front() == '\'' || v.front() == '"') && v.back() == v.front())
        return v.substr(1, v.size() - 2);
    return v;
}

// "(35, 20, 200)" or "(600,)" or "()" -> dims; nullopt when not a tuple of integers.
std::optional<std::vector<int64_t>> tupleOfInts(std::string_view v) {
    if (v.size() < 2 || v.front() != '(' || v.back() != ')') return std::nullopt;
    std::vector<int64_t> dims;
    size_t pos = 1;
    while (pos < v.size() - 1) {
        while (pos < v.size() - 1 && (v[pos] == ' ' || v[pos] == ',')) ++pos;
        if (pos >= v.size() - 1) break;
        int64_t d = 0;
        const auto [ptr, ec] = std::from_chars(v.data() + pos, v.data() + v.size() - 1, d);
        if (ec != std::errc() || d < 0 || d > (int64_t(1) << 40))
            return std::nullopt; // no shape, not a wrong one
        dims.push_back(d);
        pos = static_cast<size_t>(ptr - v.data());
    }
    return dims;
}

// The list after "'args': [": one DictArg per "{...}" element.
std::vector<DictArg> parseArgs(std::string_view text) {
    std::vector<DictArg> args;
    constexpr std::string_view kArgs = "'args': [";
    const size_t at = text.find(kArgs);
    if (at == std::string_view::npos) return args;
    size_t pos = at + kArgs.size();
    while (pos < text.size()) {
        while (pos < text.size() && (text[pos] == ' ' || text[pos] == ',')) ++pos;
        if (pos >= text.size() || text[pos] != '{') break;
        const size_t end = valueEnd(text, pos + 1, false); // the element's closing '}'
        if (end >= text.size() || text[end] != '}') break;
        const std::string_view element = text.substr(pos + 1, end - pos - 1);
        DictArg a;
        if (auto v = rawValue(element, "name")) a.name = std::string(unquoted(*v));
        if (auto v = rawValue(element, "type")) a.type = std::string(unquoted(*v));
        if (auto v = rawValue(element, "dtype")) a.dtype = std::string(unquoted(*v));
        if (auto v = rawValue(element, "shape")) {
            if (auto dims = tupleOfInts(*v))
                a.shape = std::move(*dims);
            else
                a.badShape = true;
        }
        if (auto v = rawValue(element, "value")) a.value = std::string(*v);
        args.push_back(std::move(a));
        pos = end + 1;
    }
    return args;
}

} // namespace

std::optional<DictMarker> parseDictMarker(std::string_view text, bool withArgs) {
    if (text.substr(0, 2) != "{'") return std::nullopt;
    DictMarker d;
    if (text.substr(0, 15) == "{'traceMarker':") {
        d.name = "traceMarker";
        return d;
    }
    const auto mod = quotedValue(text, "mod"), op = quotedValue(text, "op");
    if (!op) return std::nullopt;
    d.isOp = true;
    d.name = mod && !mod->empty() ? std::string(*mod) + "." + std::string(*op) : std::string(*op);
    if (const auto dtype = quotedValue(text, "dtype")) d.dtype = std::string(*dtype);
    // Every "'shape': (a, b)" becomes "[a, b]"; a one-element tuple "(a,)" becomes "[a]".
    constexpr std::string_view kShape = "'shape': (";
    std::string sizes;
    for (size_t at = text.find(kShape); at != std::string_view::npos;
         at = text.find(kShape, at + 1)) {
        const size_t begin = at + kShape.size();
        const size_t end = text.find(')', begin);
        if (end == std::string_view::npos) break;
        std::string dims(text.substr(begin, end - begin));
        if (!dims.empty() && dims.back() == ',') dims.pop_back();
        sizes += sizes.empty() ? "[" : ", ";
        sizes += "[" + dims + "]";
    }
    if (!sizes.empty()) d.sizes = sizes + "]";
    if (withArgs) d.args = parseArgs(text);
    return d;
}

} // namespace ls
