#include "core/pytorch_marker.h"

#include <charconv>

namespace ls {
namespace {

// Returns the position of the next ", " at bracket depth 0 at or after from, or npos.
size_t nextSeparator(std::string_view s, size_t from) {
    int depth = 0;
    for (size_t i = from; i + 1 < s.size(); ++i) {
        const char c = s[i];
        if (c == '[' || c == '(') ++depth;
        else if ((c == ']' || c == ')') && depth > 0) --depth;
        else if (c == ',' && depth == 0 && s[i + 1] == ' ') return i;
    }
    return std::string_view::npos;
}

bool startsWith(std::string_view s, std::string_view prefix) {
    return s.size() >= prefix.size() && s.compare(0, prefix.size(), prefix) == 0;
}

bool parseInt(std::string_view s, int64_t& out) {
    if (s.empty()) return false;
    const auto [ptr, ec] = std::from_chars(s.data(), s.data() + s.size(), out);
    return ec == std::errc() && ptr == s.data() + s.size();
}

} // namespace

MarkerFields parseMarker(std::string_view text) {
    MarkerFields f;
    f.name = text;
    size_t sep = nextSeparator(text, 0);
    if (sep == std::string_view::npos) return f;
    const std::string_view name = text.substr(0, sep);
    bool any = false;
    while (sep != std::string_view::npos) {
        const size_t begin = sep + 2;
        const size_t next = nextSeparator(text, begin);
        const std::string_view tok =
            text.substr(begin, next == std::string_view::npos ? std::string_view::npos : next - begin);
        int64_t v = 0;
        if (startsWith(tok, "seq = ") && parseInt(tok.substr(6), v)) {
            f.seq = v;
            any = true;
        } else if (startsWith(tok, "stashed seq = ") && parseInt(tok.substr(14), v)) {
            f.seq = v;
            f.seqIsStashed = true;
            any = true;
        } else if (startsWith(tok, "op_id = ") && parseInt(tok.substr(8), v)) {
            f.opId = v;
            any = true;
        } else if (startsWith(tok, "sizes = ")) {
            f.sizes = tok.substr(8);
            any = true;
        } else if (startsWith(tok, "input_op_ids = ")) {
            any = true;
        }
        sep = next;
    }
    if (any) {
        f.name = name;
        f.isPytorchMarker = true;
    } else {
        f = MarkerFields{};
        f.name = text;
    }
    return f;
}

} // namespace ls
