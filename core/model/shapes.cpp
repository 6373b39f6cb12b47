#include "core/model/shapes.h"

#include <algorithm>
#include <charconv>

namespace ls {

std::optional<Shapes> parseShapes(std::string_view text) {
    Shapes out;
    size_t i = 0;
    auto skipSpaces = [&] {
        while (i < text.size() && text[i] == ' ') ++i;
    };
    skipSpaces();
    if (i >= text.size() || text[i] != '[') return std::nullopt;
    ++i;
    for (;;) {
        skipSpaces();
        if (i < text.size() && text[i] == ']') // end of the outer list; nothing may follow it
            return text.find_first_not_of(' ', i + 1) == std::string_view::npos
                       ? std::optional<Shapes>(std::move(out))
                       : std::nullopt;
        if (i >= text.size() || text[i] != '[') return std::nullopt;
        ++i;
        Shape shape;
        for (;;) {
            skipSpaces();
            if (i < text.size() && text[i] == ']') {
                ++i;
                break;
            }
            int64_t v = 0;
            const auto [p, ec] = std::from_chars(text.data() + i, text.data() + text.size(), v);
            if (ec != std::errc() || v < 0) return std::nullopt;
            shape.push_back(v);
            i = static_cast<size_t>(p - text.data());
            skipSpaces();
            if (i < text.size() && text[i] == ',') ++i;
        }
        out.push_back(std::move(shape));
        skipSpaces();
        if (i < text.size() && text[i] == ',') ++i;
    }
}

double numel(const Shape& s) {
    if (s.empty()) return 0;
    double n = 1;
    for (int64_t d : s) n *= static_cast<double>(d);
    return n;
}

std::optional<Shape> broadcastShape(const Shapes& shapes) {
    Shape out;
    for (const auto& s : shapes) {
        if (s.empty()) continue;
        if (s.size() > out.size()) out.insert(out.begin(), s.size() - out.size(), 1);
        for (size_t k = 0; k < s.size(); ++k) {
            int64_t& o = out[out.size() - s.size() + k];
            const int64_t d = s[k];
            if (o == 1)
                o = d;
            else if (d != 1 && d != o)
                return std::nullopt;
        }
    }
    return out;
}

} // namespace ls
