#include "core/model/session.h"

namespace ls {

std::string_view rankSourceName(RankSource s) {
    switch (s) {
    case RankSource::Environment:
        return "environment";
    case RankSource::DistributedInfo:
        return "distributedInfo";
    case RankSource::FileName:
        return "file name";
    case RankSource::Device:
        return "device";
    case RankSource::Order:
        return "order";
    }
    return "order";
}

int Session::rankIndexOf(uint32_t trace, ProcessId process, uint32_t device) const {
    for (size_t i = 0; i < ranks.size(); ++i) {
        const SessionRank& r = ranks[i];
        if (r.trace == trace && r.process == process && r.device == device)
            return static_cast<int>(i);
    }
    return -1;
}

int Session::rankOf(uint32_t trace, ProcessId process, uint32_t device) const {
    const int i = rankIndexOf(trace, process, device);
    return i < 0 ? -1 : ranks[static_cast<size_t>(i)].rank;
}

} // namespace ls
