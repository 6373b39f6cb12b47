#include "core/model/rank_labels.h"

#include <algorithm>
#include <cctype>
#include <charconv>
#include <set>
#include <string>
#include <utility>

namespace ls {
namespace {

std::optional<int> number(std::string_view s) {
    int n = 0;
    const auto [end, ec] = std::from_chars(s.data(), s.data() + s.size(), n);
    if (ec != std::errc() || end != s.data() + s.size() || n < 0) return std::nullopt;
    return n;
}

size_t digitsAt(std::string_view s, size_t i) {
    size_t n = 0;
    while (i + n < s.size() && std::isdigit(static_cast<unsigned char>(s[i + n]))) ++n;
    return n;
}

std::string_view baseName(std::string_view path) {
    const size_t slash = path.find_last_of("/\\");
    return slash == std::string_view::npos ? path : path.substr(slash + 1);
}

// The environment variables that give a process its global rank, most specific launcher first;
// LOCAL_RANK (node-local) only when none of them is there.
std::optional<int> rankFromEnvironment(const ExportInfo& info) {
    static constexpr std::string_view kGlobal[] = {
        "RANK",      "OMPI_COMM_WORLD_RANK", "PMIX_RANK",
        "PMI_RANK",  "MV2_COMM_WORLD_RANK",  "SLURM_PROCID",
        "LOCAL_RANK"};
    for (const auto name : kGlobal)
        for (const auto& [n, v] : info.environment)
            if (n == name)
                if (auto r = number(v)) return r;
    return std::nullopt;
}

std::optional<int> rankFromDistributedInfo(const ExportInfo& info) {
    for (const auto& [k, v] : info.metadata)
        if (k == "distributedInfo.rank") return number(v);
    return std::nullopt;
}

// The (process, device) pairs that have GPU work, in pid then device order.
std::vector<std::pair<ProcessId, uint32_t>> gpuUnits(const Trace& t) {
    std::set<std::pair<ProcessId, uint32_t>> units;
    for (const Stream& s : t.streams)
        units.emplace(s.process, s.device); // every stream has GPU work: made from it
    std::vector<std::pair<ProcessId, uint32_t>> out(units.begin(), units.end());
    auto pid = [&](ProcessId p) {
        return p.valid() && p.value < t.processes.size() ? t.processes[p.value].pid : 0u;
    };
    std::stable_sort(out.begin(), out.end(), [&](const auto& a, const auto& b) {
        return std::pair(pid(a.first), a.second) < std::pair(pid(b.first), b.second);
    });
    return out;
}

} // namespace

std::optional<int> rankFromFileName(std::string_view path) {
    const std::string_view name = baseName(path);
    std::string lower(name);
    for (char& c : lower) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
    // "rank3", "rank_3", "rank-3"
    for (size_t at = lower.find("rank"); at != std::string::npos; at = lower.find("rank", at + 1)) {
        size_t i = at + 4;
        if (i < lower.size() && (lower[i] == '_' || lower[i] == '-')) ++i;
        if (const size_t n = digitsAt(lower, i))
            return number(std::string_view(lower).substr(i, n));
    }
    // "_3." or "-3.": a number alone before the first extension
    const size_t dot = lower.find('.');
    if (dot == std::string::npos || dot == 0) return std::nullopt;
    size_t i = dot;
    while (i > 0 && std::isdigit(static_cast<unsigned char>(lower[i - 1]))) --i;
    if (i == dot || i == 0 || (lower[i - 1] != '_' && lower[i - 1] != '-')) return std::nullopt;
    return number(std::string_view(lower).substr(i, dot - i));
}

void labelRanks(Session& session) {
    session.ranks.clear();
    std::set<int> taken;
    std::vector<size_t> unnumbered; // indexes into session.ranks, in the order given
    for (uint32_t ti = 0; ti < session.traces.size(); ++ti) {
        const SessionTrace& st = session.traces[ti];
        const Trace& t = *st.trace;
        const auto units = gpuUnits(t);
        std::optional<int> explicitRank;
        RankSource source = RankSource::Order;
        if (units.size() == 1) {
            if ((explicitRank = rankFromEnvironment(t.info)))
                source = RankSource::Environment;
            else if ((explicitRank = rankFromDistributedInfo(t.info)))
                source = RankSource::DistributedInfo;
            else if ((explicitRank = rankFromFileName(st.file)))
                source = RankSource::FileName;
            if (explicitRank && !taken.insert(*explicitRank).second)
                explicitRank.reset(); // two files claim one rank
        }
        for (const auto& [process, device] : units) {
            SessionRank r;
            r.trace = ti;
            r.process = process;
            r.device = device;
            r.host = t.info.host;
            if (explicitRank) {
                r.rank = *explicitRank;
                r.source = source;
            } else {
                r.source = units.size() > 1 ? RankSource::Device : RankSource::Order;
                unnumbered.push_back(session.ranks.size());
            }
            session.ranks.push_back(std::move(r));
        }
    }
    int next = 0;
    for (const size_t i : unnumbered) {
        while (taken.count(next)) ++next;
        session.ranks[i].rank = next;
        taken.insert(next);
    }
    std::stable_sort(session.ranks.begin(), session.ranks.end(),
                     [](const auto& a, const auto& b) { return a.rank < b.rank; });
}

void alignClocks(Session& session) {
    auto& traces = session.traces;
    for (auto& t : traces) t.offsetNs = 0;
    if (traces.size() < 2) {
        session.clockAlignment = "one trace: its own clock";
        return;
    }
    std::set<std::string> hosts;
    std::vector<std::string> noEpoch;
    int64_t first = 0;
    bool any = false;
    for (const auto& t : traces) {
        hosts.insert(t.trace->info.host);
        if (!t.trace->info.epochKnown) {
            noEpoch.emplace_back(baseName(t.file));
            continue;
        }
        first = any ? std::min(first, t.trace->info.epochNs) : t.trace->info.epochNs;
        any = true;
    }
    for (auto& t : traces)
        if (t.trace->info.epochKnown) t.offsetNs = t.trace->info.epochNs - first;
    std::string s;
    if (!any)
        s = "no trace records its start time: times are used as recorded";
    else if (hosts.size() == 1 && !hosts.begin()->empty())
        s = "one host (" + *hosts.begin() +
            "): aligned on the session start times the exports record, from one clock";
    else if (hosts.size() == 1)
        s = "aligned on the session start times the exports record (host not recorded: clocks of "
            "different hosts may be skewed)";
    else
        s = std::to_string(hosts.size()) + " hosts: aligned on the session start times the exports "
                                           "record; clocks of different hosts may be skewed";
    if (!noEpoch.empty()) {
        s += "; no start time recorded in";
        for (const auto& f : noEpoch) s += " " + f;
        s += " (times used as recorded)";
    }
    session.clockAlignment = std::move(s);
}

} // namespace ls
