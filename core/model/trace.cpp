#include "core/model/trace.h"

#include <algorithm>

namespace ls {

ThreadId Trace::rangeThread(RangeId r) const {
    const auto it = std::upper_bound(threadRangeBegin.begin(), threadRangeBegin.end(), r.value);
    return ThreadId(static_cast<uint32_t>(it - threadRangeBegin.begin() - 1));
}

std::string_view copyKindName(CopyKind k) {
    switch (k) {
    case CopyKind::HtoD:
        return "HtoD";
    case CopyKind::DtoH:
        return "DtoH";
    case CopyKind::HtoH:
        return "HtoH";
    case CopyKind::DtoD:
        return "DtoD";
    case CopyKind::PtoP:
        return "PtoP";
    case CopyKind::Other:
        return "other";
    case CopyKind::Unknown:
        break;
    }
    return "unknown";
}

} // namespace ls
