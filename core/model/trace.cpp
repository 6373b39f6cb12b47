#include "core/model/trace.h"

namespace ls {

std::string_view copyKindName(CopyKind k) {
    switch (k) {
    case CopyKind::HtoD: return "HtoD";
    case CopyKind::DtoH: return "DtoH";
    case CopyKind::HtoH: return "HtoH";
    case CopyKind::DtoD: return "DtoD";
    case CopyKind::PtoP: return "PtoP";
    case CopyKind::Other: return "other";
    case CopyKind::Unknown: break;
    }
    return "unknown";
}

} // namespace ls
