#include "core/pytorch_marker.h"

#include <charconv>

namespace ls {
namespace {

enum class Field { None, Seq, StashedSeq, OpId, Sizes, InputOpIds };

struct Key {
    std::string_view text;
    Field field;
};
constexpr Key kKeys[] = {{"seq = ", Field::Seq},
                         {"stashed seq = ", Field::StashedSeq},
                         {"op_id = ", Field::OpId},
                         {"sizes = ", Field::Sizes},
                         {"input_op_ids = ", Field::InputOpIds}};

// The field whose key starts at pos, and the length of that key.
Field fieldAt(std::string_view s, size_t pos, size_t& keyLength) {
    const std::string_view rest = s.substr(pos);
    for (const auto& k : kKeys)
        if (rest.substr(0, k.text.size()) == k.text) {
            keyLength = k.text.size();
            return k.field;
        }
    return Field::None;
}

// End of the bracketed value starting at pos ('[' ... matching ']'), or npos.
size_t bracketEnd(std::string_view s, size_t pos) {
    int depth = 0;
    for (size_t i = pos; i < s.size(); ++i) {
        if (s[i] == '[') ++depth;
        else if (s[i] == ']' && --depth == 0) return i + 1;
    }
    return std::string_view::npos;
}

// A number that ends the text or is followed by the next field's ", ".
size_t parseNumber(std::string_view s, size_t pos, int64_t& out) {
    const auto [ptr, ec] = std::from_chars(s.data() + pos, s.data() + s.size(), out);
    const auto end = static_cast<size_t>(ptr - s.data());
    if (ec != std::errc() || (end != s.size() && s.substr(end, 2) != ", ")) return std::string_view::npos;
    return end;
}

} // namespace

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
        case Field::InputOpIds: // not needed: the raw text can be re-read by the range's source row
            return f;
        case Field::None: return parsedAny ? f : plain;
        }
        parsedAny = true;
        if (text.substr(pos, 2) != ", ") return f;
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

} // namespace

std::optional<DictMarker> parseDictMarker(std::string_view text) {
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
    for (size_t at = text.find(kShape); at != std::string_view::npos; at = text.find(kShape, at + 1)) {
        const size_t begin = at + kShape.size();
        const size_t end = text.find(')', begin);
        if (end == std::string_view::npos) break;
        std::string dims(text.substr(begin, end - begin));
        if (!dims.empty() && dims.back() == ',') dims.pop_back();
        sizes += sizes.empty() ? "[" : ", ";
        sizes += "[" + dims + "]";
    }
    if (!sizes.empty()) d.sizes = sizes + "]";
    return d;
}

} // namespace ls
