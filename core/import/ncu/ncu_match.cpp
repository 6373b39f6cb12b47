#include "core/import/ncu/ncu_match.h"

#include <algorithm>
#include <cctype>
#include <cmath>
#include <cstdio>
#include <map>
#include <set>
#include <tuple>
#include <unordered_map>

namespace ls {
namespace {

// The key's function name, for hints: "vectorized_elementwise_kernel".
std::string baseName(std::string_view key) {
    if (key.rfind("void ", 0) == 0) key.remove_prefix(5);
    const size_t end = key.find_first_of("<(");
    return std::string(key.substr(0, end));
}

std::string shorten(std::string_view s, size_t n = 70) {
    return s.size() <= n ? std::string(s) : std::string(s.substr(0, n - 3)) + "...";
}

std::string dims(const Dim3& d) {
    return "(" + std::to_string(d.x) + ", " + std::to_string(d.y) + ", " + std::to_string(d.z) +
           ")";
}

enum class Level : uint8_t { None, Full, Short };

// Both sides' names as family ids, and the equality used by every alignment.
struct Families {
    std::vector<uint32_t> full, shortName; // per trace kernel
    std::unordered_map<std::string, uint32_t> fullKey, shortKey;
    std::vector<Level> level; // per ncu kernel
    std::vector<uint32_t> fam;

    Families(const Trace& t, const NcuCsv& csv) {
        std::unordered_map<uint32_t, uint32_t> byName, byShort;
        full.resize(t.kernels.size());
        shortName.resize(t.kernels.size());
        for (size_t k = 0; k < t.kernels.size(); ++k) {
            full[k] = familyOf(t, t.kernels.name[k], byName, fullKey);
            shortName[k] = familyOf(t, t.kernels.shortName[k], byShort, shortKey);
        }
        level.resize(csv.kernels.size(), Level::None);
        fam.resize(csv.kernels.size(), UINT32_MAX);
        std::unordered_map<std::string, std::pair<Level, uint32_t>> memo;
        for (size_t i = 0; i < csv.kernels.size(); ++i) {
            auto [it, added] = memo.try_emplace(csv.kernels[i].name, Level::None, UINT32_MAX);
            if (added) {
                const std::string key = ncuNameKey(csv.kernels[i].name);
                if (auto f = fullKey.find(key); f != fullKey.end())
                    it->second = {Level::Full, f->second};
                else if (auto s = shortKey.find(key); s != shortKey.end())
                    it->second = {Level::Short, s->second};
            }
            level[i] = it->second.first;
            fam[i] = it->second.second;
        }
    }
    static uint32_t familyOf(const Trace& t, StringId name,
                             std::unordered_map<uint32_t, uint32_t>& memo,
                             std::unordered_map<std::string, uint32_t>& keys) {
        if (auto it = memo.find(name.value); it != memo.end()) return it->second;
        auto [it, added] =
            keys.try_emplace(ncuNameKey(t.str(name)), static_cast<uint32_t>(keys.size()));
        memo.emplace(name.value, it->second);
        return it->second;
    }
    bool sameName(uint32_t i, uint32_t k) const {
        return level[i] == Level::Full ? full[k] == fam[i]
                                       : level[i] == Level::Short && shortName[k] == fam[i];
    }
    // How many distinct trace kernel names share each base name (for hints), built on first use.
    const std::unordered_map<std::string, size_t>& baseCount() const {
        if (bases.empty())
            for (const auto& [key, id] : fullKey) ++bases[baseName(key)];
        return bases;
    }
    mutable std::unordered_map<std::string, size_t> bases;
    uint64_t nameKey(uint32_t i) const { return (static_cast<uint64_t>(level[i]) << 32) | fam[i]; }
    uint64_t traceKey(Level l, uint32_t k) const {
        return (static_cast<uint64_t>(l) << 32) | (l == Level::Full ? full[k] : shortName[k]);
    }
};

struct Context {
    const Trace& t;
    const NcuCsv& csv;
    const Families& fam;
    bool same(uint32_t i, uint32_t k) const {
        if (!fam.sameName(i, k)) return false;
        const NcuKernel& n = csv.kernels[i];
        return !n.hasDims || (n.grid == t.kernels.grid[k] && n.block == t.kernels.block[k]);
    }
    std::string traceKernel(uint32_t k) const {
        return "#" + std::to_string(k) + " " + shorten(t.str(t.kernels.name[k]), 50) + " grid " +
               dims(t.kernels.grid[k]) + " block " + dims(t.kernels.block[k]);
    }
};

// One ncu process aligned against one trace process.
struct Alignment {
    std::vector<uint32_t> kernel; // per local ncu kernel: trace kernel or kNone
    std::vector<NcuMatchState> state;
    std::vector<std::string> reason;
    size_t matched = 0, eligible = 0;
    std::string method;
};

constexpr uint32_t kNone = NcuMatch::kNone;

// Placements of `items` (ncu kernel, its slot) on `seq` at offsets: seq[offset + slot].
struct PlacementSearch {
    size_t best = 0;
    std::vector<int64_t> bestOffsets; // up to kKeep
    size_t bestCount = 0;             // how many offsets reach best (capped at kStop when perfect)
    static constexpr size_t kKeep = 4, kStop = 4;
};

PlacementSearch
searchPlacements(const Context& c, const std::vector<std::pair<uint32_t, uint32_t>>& items,
                 const std::vector<uint32_t>& seq,
                 const std::unordered_map<uint64_t, std::vector<uint32_t>>& positions,
                 size_t minScore) {
    PlacementSearch r;
    if (items.empty()) return r;
    // Anchors: the items whose names are rarest in seq; every sensible offset puts one of them
    // on one of its name's positions.
    std::vector<size_t> order(items.size());
    for (size_t i = 0; i < order.size(); ++i) order[i] = i;
    auto count = [&](size_t i) {
        auto it = positions.find(c.fam.nameKey(items[i].first));
        return it == positions.end() ? size_t(0) : it->second.size();
    };
    std::stable_sort(order.begin(), order.end(),
                     [&](size_t a, size_t b) { return count(a) < count(b); });
    std::set<int64_t> offsets;
    for (size_t a = 0; a < std::min<size_t>(order.size(), 4); ++a) {
        const auto& [i, slot] = items[order[a]];
        auto it = positions.find(c.fam.nameKey(i));
        if (it == positions.end()) continue;
        for (uint32_t p : it->second)
            if (c.same(i, seq[p])) offsets.insert(static_cast<int64_t>(p) - slot);
    }
    const int64_t n = static_cast<int64_t>(seq.size());
    for (int64_t off : offsets) {
        const size_t floor = std::max(r.best, minScore);
        size_t score = 0, misses = 0;
        for (const auto& [i, slot] : items) {
            const int64_t p = off + slot;
            if (p >= 0 && p < n && c.same(i, seq[static_cast<size_t>(p)]))
                ++score;
            else if (++misses + floor > items.size())
                break; // cannot reach the best any more
        }
        if (score < floor || score == 0) continue;
        if (score > r.best) {
            r.best = score;
            r.bestOffsets.clear();
            r.bestCount = 0;
        }
        if (r.bestOffsets.size() < PlacementSearch::kKeep) r.bestOffsets.push_back(off);
        ++r.bestCount;
        if (r.best == items.size() && r.bestCount >= PlacementSearch::kStop)
            break; // ambiguous for sure
    }
    return r;
}

Alignment alignProcess(const Context& c, const std::vector<uint32_t>& ncu,
                       const std::vector<uint32_t>& seq) {
    Alignment a;
    const size_t n = ncu.size();
    a.kernel.assign(n, kNone);
    a.state.assign(n, NcuMatchState::Unmatched);
    a.reason.assign(n, std::string());
    std::unordered_map<uint64_t, std::vector<uint32_t>> positions; // name key → positions in seq
    std::set<uint64_t> wanted;
    for (uint32_t i : ncu)
        if (c.fam.level[i] != Level::None) wanted.insert(c.fam.nameKey(i));
    for (uint32_t p = 0; p < seq.size(); ++p)
        for (Level l : {Level::Full, Level::Short})
            if (const uint64_t key = c.fam.traceKey(l, seq[p]); wanted.count(key))
                positions[key].push_back(p);

    // Eligible: the name occurs in this process with the same grid and block.
    std::vector<std::pair<uint32_t, uint32_t>> items; // (ncu kernel, slot in the ncu sequence)
    for (uint32_t q = 0; q < n; ++q) {
        const uint32_t i = ncu[q];
        const NcuKernel& k = c.csv.kernels[i];
        auto it =
            c.fam.level[i] == Level::None ? positions.end() : positions.find(c.fam.nameKey(i));
        if (it == positions.end()) {
            if (k.name.rfind("_Z", 0) == 0)
                a.reason[q] = "a mangled name: run ncu with demangled names (the default)";
            else if (c.fam.level[i] == Level::None) {
                const std::string base = baseName(ncuNameKey(k.name));
                const auto found = c.fam.baseCount().find(base);
                const size_t sameBase = found == c.fam.baseCount().end() ? 0 : found->second;
                a.reason[q] = "no kernel of this name in the trace" +
                              (sameBase ? " (" + std::to_string(sameBase) +
                                              " trace kernel names share its base name " + base +
                                              " with other template arguments or parameters)"
                                        : std::string());
            } else {
                a.reason[q] = "no kernel of this name in this trace process";
            }
            continue;
        }
        if (std::none_of(it->second.begin(), it->second.end(),
                         [&](uint32_t p) { return c.same(i, seq[p]); })) {
            std::set<std::pair<Dim3, Dim3>> seen;
            for (uint32_t p : it->second)
                seen.insert({c.t.kernels.grid[seq[p]], c.t.kernels.block[seq[p]]});
            std::string list;
            size_t shown = 0;
            for (const auto& [g, b] : seen) {
                if (shown++ == 3) {
                    list += ", ...";
                    break;
                }
                list += (list.empty() ? "" : ", ") + std::string("grid ") + dims(g) + " block " +
                        dims(b);
            }
            a.reason[q] = "the trace has " + std::to_string(it->second.size()) +
                          " kernels of this name, none with grid " + dims(k.grid) + " block " +
                          dims(k.block) + " (it has " + list + ")";
            continue;
        }
        items.emplace_back(i, q);
    }
    a.eligible = items.size();
    if (items.empty()) return a;
    // Too few of the file's kernels occur here to place any of them by launch order.
    const size_t half = (n + 1) / 2;
    auto tooFew = [&] {
        for (auto [i, q] : items)
            a.reason[q] = "its name occurs in the trace, but only " + std::to_string(items.size()) +
                          " of the " + std::to_string(n) +
                          " kernels of its process do: too few to place it by launch order";
        return a;
    };
    if (items.size() < half) return tooFew();

    auto accept = [&](uint32_t q, uint32_t k, const std::string& how) {
        a.kernel[q] = k;
        a.state[q] = NcuMatchState::Matched;
        a.reason[q] = how;
        ++a.matched;
    };
    auto noteSlots = [&](int64_t off, const std::vector<uint32_t>& s) {
        for (uint32_t q = 0; q < n; ++q) {
            if (a.state[q] == NcuMatchState::Matched) continue;
            const int64_t p = off + q;
            a.reason[q] += p >= 0 && p < static_cast<int64_t>(s.size())
                               ? "; its place in launch order holds trace kernel " +
                                     c.traceKernel(s[static_cast<size_t>(p)])
                               : "; its place in launch order is outside the trace";
        }
    };
    auto ambiguousPlaces = [&](const PlacementSearch& r, const std::vector<uint32_t>& s,
                               const char* what) {
        std::string starts;
        for (int64_t off : r.bestOffsets)
            starts +=
                (starts.empty() ? "#" : ", #") + (off >= 0 && off < static_cast<int64_t>(s.size())
                                                      ? std::to_string(s[static_cast<size_t>(off)])
                                                      : std::string("?"));
        for (auto [i, q] : items) {
            a.state[q] = NcuMatchState::Ambiguous;
            a.reason[q] = std::string("the file's kernels fit ") +
                          (r.bestCount >= PlacementSearch::kStop ? "at least " : "") +
                          std::to_string(r.bestCount) + " places " + what +
                          " (starting at trace kernels " + starts + ")";
        }
        a.method = "ambiguous: fits " + std::to_string(r.bestCount) + " places " + what;
        return a;
    };

    // 1. A run of consecutive launches (ncu --launch-skip/--launch-count).
    const PlacementSearch run = searchPlacements(c, items, seq, positions, half);
    if (run.best == items.size()) {
        if (run.bestCount > 1) return ambiguousPlaces(run, seq, "in launch order");
        const int64_t off = run.bestOffsets[0];
        for (auto [i, q] : items)
            accept(q, seq[static_cast<size_t>(off + q)], "consecutive launches");
        noteSlots(off, seq);
        a.method = "consecutive launches from trace kernel #" +
                   std::to_string(seq[static_cast<size_t>(off + items[0].second)]);
        return a;
    }

    // 2. A run of consecutive launches among the kernels of the names it holds (ncu --kernel-name).
    std::vector<uint32_t> filtered;
    std::unordered_map<uint64_t, std::vector<uint32_t>> filteredPositions;
    for (uint32_t p = 0; p < seq.size(); ++p) {
        bool keep = false;
        for (Level l : {Level::Full, Level::Short}) {
            const uint64_t key = c.fam.traceKey(l, seq[p]);
            if (wanted.count(key)) {
                filteredPositions[key].push_back(static_cast<uint32_t>(filtered.size()));
                keep = true;
            }
        }
        if (keep) filtered.push_back(seq[p]);
    }
    std::vector<std::pair<uint32_t, uint32_t>> dense(items.size());
    for (uint32_t e = 0; e < items.size(); ++e) dense[e] = {items[e].first, e};
    const PlacementSearch byName = searchPlacements(c, dense, filtered, filteredPositions, half);
    if (byName.best == items.size()) {
        if (byName.bestCount > 1)
            return ambiguousPlaces(byName, filtered, "among the launches of its kernel names");
        const int64_t off = byName.bestOffsets[0];
        for (uint32_t e = 0; e < items.size(); ++e)
            accept(items[e].second, filtered[static_cast<size_t>(off + e)],
                   "consecutive launches of its kernel names");
        a.method = "consecutive launches of the file's kernel names from trace kernel #" +
                   std::to_string(filtered[static_cast<size_t>(off)]);
        return a;
    }

    // 3. Mostly consecutive launches (the two runs differ in a few kernels): keep the agreeing
    // ones.
    //    Before 4, which would shift every later kernel past a kernel the runs disagree on.
    const size_t mostly = (items.size() * 4 + 4) / 5;
    if (run.best >= mostly && run.bestCount == 1) {
        const int64_t off = run.bestOffsets[0];
        for (auto [i, q] : items) {
            const int64_t p = off + q;
            if (p >= 0 && p < static_cast<int64_t>(seq.size()) &&
                c.same(i, seq[static_cast<size_t>(p)]))
                accept(q, seq[static_cast<size_t>(p)],
                       "consecutive launches (most of the file agrees)");
            else
                a.reason[q] = "the two runs differ here";
        }
        noteSlots(off, seq);
        a.method = "consecutive launches where " + std::to_string(a.matched) + " of " +
                   std::to_string(items.size()) + " agree";
        return a;
    }
    // 4. Any in-order subsequence: a kernel is placed where the earliest and the latest fitting
    //    embeddings agree, ambiguous where they do not.
    auto embed = [&](bool forward, std::vector<int64_t>& at) {
        at.assign(items.size(), -1);
        int64_t p = forward ? -1 : static_cast<int64_t>(seq.size());
        for (size_t s = 0; s < items.size(); ++s) {
            const size_t e = forward ? s : items.size() - 1 - s;
            const auto& pos = positions.at(c.fam.nameKey(items[e].first));
            if (forward) {
                auto it = std::upper_bound(pos.begin(), pos.end(), p);
                while (it != pos.end() && !c.same(items[e].first, seq[*it])) ++it;
                if (it == pos.end()) return false;
                p = *it;
            } else {
                auto it = std::lower_bound(pos.begin(), pos.end(), p);
                while (it != pos.begin() && !c.same(items[e].first, seq[*(it - 1)])) --it;
                if (it == pos.begin()) return false;
                p = *(it - 1);
            }
            at[e] = p;
        }
        return true;
    };
    std::vector<int64_t> first, last;
    if (embed(true, first) && embed(false, last)) {
        for (size_t e = 0; e < items.size(); ++e) {
            const uint32_t q = items[e].second;
            if (first[e] == last[e]) {
                accept(q, seq[static_cast<size_t>(first[e])], "the only place in launch order");
            } else {
                a.state[q] = NcuMatchState::Ambiguous;
                a.reason[q] = "fits anywhere from trace kernel #" +
                              std::to_string(seq[static_cast<size_t>(first[e])]) + " to #" +
                              std::to_string(seq[static_cast<size_t>(last[e])]) +
                              " (the file's kernels are not consecutive launches, so their order "
                              "alone does not decide)";
            }
        }
        a.method = "kernels in launch order with gaps, " + std::to_string(a.matched) + " of " +
                   std::to_string(items.size()) + " placed for sure";
        return a;
    }

    for (auto [i, q] : items)
        a.reason[q] = "its name occurs in the trace, but the file's order fits no place in the "
                      "trace's launch order (" +
                      (run.best ? "at most " + std::to_string(run.best) + " of " +
                                      std::to_string(items.size())
                                : std::string("fewer than half")) +
                      " agree in any run of consecutive launches)";
    a.method = "no placement fits";
    return a;
}

std::string processText(const Trace& t, ProcessId p) {
    if (!p.valid() || p.value >= t.processes.size()) return "(unknown process)";
    const Process& pr = t.processes[p.value];
    return "pid " + std::to_string(pr.pid) +
           (pr.name.empty() ? std::string() : " (" + pr.name + ")");
}

} // namespace

std::string_view ncuMatchStateName(NcuMatchState s) {
    return s == NcuMatchState::Matched     ? "matched"
           : s == NcuMatchState::Unmatched ? "unmatched"
                                           : "ambiguous";
}

NcuMatch matchNcuKernels(const Trace& t, const NcuCsv& csv) {
    NcuMatch m;
    const size_t nn = csv.kernels.size();
    m.kernelOfNcu.assign(nn, KernelId());
    m.state.assign(nn, NcuMatchState::Unmatched);
    m.reason.assign(nn, "the trace has no kernels");
    m.ncuOfKernel.assign(t.kernels.size(), kNone);
    const Families fam(t, csv);
    const Context c{t, csv, fam};

    // ncu processes by pid (kernels in ID order); trace processes by launch order.
    std::vector<uint32_t> pids;
    std::map<uint32_t, std::vector<uint32_t>> ncuByPid;
    for (uint32_t i = 0; i < nn; ++i) {
        auto& list = ncuByPid[csv.kernels[i].pid];
        if (list.empty()) pids.push_back(csv.kernels[i].pid);
        list.push_back(i);
    }
    std::map<uint32_t, std::vector<uint32_t>> traceByProcess;
    for (uint32_t k = 0; k < t.kernels.size(); ++k)
        traceByProcess[t.streamOf(t.kernels, k).process.value].push_back(k);
    std::vector<uint32_t> procs;
    for (auto& [p, list] : traceByProcess) {
        auto launched = [&](uint32_t k) {
            const ApiCallId call = t.kernels.launch[k];
            return call.valid() ? t.apiCalls.start[call.value] : t.kernels.start[k];
        };
        std::stable_sort(list.begin(), list.end(), [&](uint32_t a, uint32_t b) {
            return std::make_tuple(launched(a), t.kernels.start[a], a) <
                   std::make_tuple(launched(b), t.kernels.start[b], b);
        });
        procs.push_back(p);
    }
    if (procs.empty()) {
        m.unmatched = nn;
        return m;
    }

    struct Pair {
        size_t g, p;
        Alignment a;
        bool samePid, sameDevice;
    };
    std::vector<Pair> pairs;
    for (size_t g = 0; g < pids.size(); ++g) {
        const auto& ncu = ncuByPid[pids[g]];
        for (size_t p = 0; p < procs.size(); ++p) {
            const ProcessId pid(procs[p]);
            const bool samePid = pid.valid() && pid.value < t.processes.size() &&
                                 t.processes[pid.value].pid == pids[g];
            if (pids.size() * procs.size() > 256 && !samePid && procs.size() > 1)
                continue; // too many to try all
            const auto& seq = traceByProcess[procs[p]];
            const bool sameDevice = csv.kernels[ncu[0]].device >= 0 &&
                                    t.streamOf(t.kernels, seq[0]).device ==
                                        static_cast<uint32_t>(csv.kernels[ncu[0]].device);
            pairs.push_back(Pair{g, p, alignProcess(c, ncu, seq), samePid, sameDevice});
        }
    }
    auto rank = [](const Pair& x) {
        return std::make_tuple(x.a.matched, x.samePid, x.sameDevice, x.a.eligible);
    };
    std::stable_sort(pairs.begin(), pairs.end(),
                     [&](const Pair& x, const Pair& y) { return rank(x) > rank(y); });

    std::vector<char> groupDone(pids.size()), procUsed(procs.size());
    auto apply = [&](const Pair& pr) {
        const auto& ncu = ncuByPid[pids[pr.g]];
        for (size_t q = 0; q < ncu.size(); ++q) {
            const uint32_t i = ncu[q];
            m.state[i] = pr.a.state[q];
            m.reason[i] = pr.a.reason[q];
            if (pr.a.state[q] == NcuMatchState::Matched) {
                m.kernelOfNcu[i] = KernelId(pr.a.kernel[q]);
                m.ncuOfKernel[pr.a.kernel[q]] = i;
            }
        }
    };
    auto ncuText = [&](size_t g) {
        const auto& ncu = ncuByPid[pids[g]];
        const std::string& name = csv.kernels[ncu[0]].processName;
        return "ncu pid " + std::to_string(pids[g]) +
               (name.empty() ? std::string() : " (" + name + ")") + ", " +
               std::to_string(ncu.size()) + " kernels";
    };
    for (size_t x = 0; x < pairs.size(); ++x) {
        const Pair& pr = pairs[x];
        if (pr.a.matched == 0) break;
        if (groupDone[pr.g] || procUsed[pr.p]) continue;
        // Another unused partner that fits exactly as well: say so instead of picking one. Two ncu
        // processes fitting one trace process equally are both left ambiguous and the trace
        // process is taken; one ncu process fitting two trace processes leaves them free.
        std::vector<const Pair*> rivals;
        for (size_t y = x + 1; y < pairs.size() && rank(pairs[y]) == rank(pr); ++y)
            if ((pairs[y].g == pr.g && !procUsed[pairs[y].p]) ||
                (pairs[y].p == pr.p && !groupDone[pairs[y].g]))
                rivals.push_back(&pairs[y]);
        const std::string trace = processText(t, ProcessId(procs[pr.p]));
        if (!rivals.empty()) {
            std::vector<size_t> groups{pr.g};
            std::string ncuPids = "pid " + std::to_string(pids[pr.g]), tracePids = trace;
            for (const Pair* r : rivals) {
                if (r->g == pr.g) {
                    tracePids += ", " + processText(t, ProcessId(procs[r->p]));
                } else if (std::find(groups.begin(), groups.end(), r->g) == groups.end()) {
                    groups.push_back(r->g);
                    ncuPids += ", pid " + std::to_string(pids[r->g]);
                    procUsed[pr.p] = 1;
                }
            }
            std::string why = "ncu ";
            why += groups.size() > 1 ? "processes " : "process ";
            why += ncuPids;
            why += " and trace ";
            why += tracePids == trace ? "process " : "processes ";
            why += tracePids;
            why += " fit each other equally well";
            for (size_t g : groups) {
                groupDone[g] = 1;
                for (uint32_t i : ncuByPid[pids[g]]) {
                    m.state[i] = NcuMatchState::Ambiguous;
                    m.reason[i] = why;
                }
                m.notes.push_back(ncuText(g) + ": not matched: " + why);
            }
            continue;
        }
        groupDone[pr.g] = 1;
        procUsed[pr.p] = 1;
        apply(pr);
        m.notes.push_back(ncuText(pr.g) + " -> trace " + trace + ": " +
                          std::to_string(pr.a.matched) + " matched, " + pr.a.method);
    }
    for (size_t g = 0; g < pids.size(); ++g) {
        if (groupDone[g]) continue;
        const Pair* best = nullptr; // the explanation from the closest trace process
        for (const Pair& pr : pairs)
            if (pr.g == g && (!best || pr.a.eligible > best->a.eligible)) best = &pr;
        if (best) {
            Pair none = *best;
            for (size_t q = 0; q < none.a.state.size(); ++q)
                if (none.a.state[q] == NcuMatchState::Matched) {
                    none.a.state[q] = NcuMatchState::Unmatched;
                    none.a.reason[q] = "its best trace process fits another ncu process better";
                }
            apply(none);
            const std::string closest = processText(t, ProcessId(procs[best->p]));
            m.notes.push_back(ncuText(g) +
                              (best->a.method.empty() || best->a.matched
                                   ? ": no trace process fits (closest: " + closest + ")"
                                   : " -> trace " + closest + ": " + best->a.method));
        } else {
            for (uint32_t i : ncuByPid[pids[g]]) m.reason[i] = "no trace process to compare with";
        }
    }
    for (auto s : m.state)
        (s == NcuMatchState::Matched     ? m.matched
         : s == NcuMatchState::Ambiguous ? m.ambiguous
                                         : m.unmatched)++;
    return m;
}

} // namespace ls
