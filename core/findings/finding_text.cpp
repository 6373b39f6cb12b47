#include "core/findings/finding_text.h"

#include <cmath>
#include <cstdio>

namespace ls {

std::string findingMs(double ns) {
    const double ms = ns / 1e6;
    char buf[48];
    const double a = std::fabs(ms);
    std::snprintf(buf, sizeof buf, a >= 100 ? "%.0f ms" : a >= 10 ? "%.1f ms" : "%.2f ms", ms);
    return buf;
}

std::string findingPercent(double pc) {
    char buf[48];
    std::snprintf(buf, sizeof buf, "%.1f %%", pc);
    return buf;
}

} // namespace ls
