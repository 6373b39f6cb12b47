#pragma once
// One rowid window of one event table, read by one worker into chunk-local columns. Ids that
// need a shared table (threads, processes, NVTX strings) are chunk-local here and remapped when
// the chunks are merged, so workers never share mutable state.
#include "core/import/common/row_flags.h"
#include "core/import/nsys/dict16_filler.h"
#include "core/import/nsys/nsys_schema.h"
#include "core/model/trace.h"

#include <atomic>
#include <cstdint>
#include <functional>
#include <string>
#include <unordered_map>
#include <vector>

namespace ls {

class Statement;
class TableScan;

// StringIds of the export, read before the workers start and shared read-only.
// Dense by id as exports number them; a map when the ids are too sparse for that.
struct NsysStrings {
    std::vector<std::string> text;
    std::vector<uint8_t> present;
    std::unordered_map<int64_t, std::string> sparse;
    const std::string* find(int64_t id) const {
        if (id >= 0 && static_cast<uint64_t>(id) < text.size())
            return present[static_cast<size_t>(id)] ? &text[static_cast<size_t>(id)] : nullptr;
        auto it = sparse.find(id);
        return it == sparse.end() ? nullptr : &it->second;
    }
};

// A chunk's distinct values of one kind (threads' globalTids, kernel grids, GPU streams), numbered
// as first met: the reader writes the number, the merge makes it an id of the whole trace.
// Consecutive rows mostly repeat the last value, which is checked before the hash map.
template <typename T, typename Hash = std::hash<T>> class LocalValues {
  public:
    uint32_t get(const T& v) {
        if (!values_.empty() && v == values_[last_]) return last_;
        auto [it, inserted] = index_.try_emplace(v, static_cast<uint32_t>(values_.size()));
        if (inserted) values_.push_back(v);
        return last_ = it->second;
    }
    const std::vector<T>& values() const { return values_; }

  private:
    std::vector<T> values_;
    std::unordered_map<T, uint32_t, Hash> index_;
    uint32_t last_ = 0;
};

// A GPU operation's stream as the export keys it.
struct StreamKey {
    int64_t globalPid = 0;
    uint32_t device = 0, context = 0, stream = 0;
    bool operator==(const StreamKey&) const = default;
};
struct StreamKeyHash {
    size_t operator()(const StreamKey& k) const noexcept {
        return std::hash<int64_t>{}(k.globalPid) ^ (uint64_t(k.device) * 0x9E3779B97F4A7C15ull) ^
               (uint64_t(k.context) << 20) ^ (uint64_t(k.stream) << 40);
    }
};

struct DomainName {
    int64_t globalTid;
    int64_t domainId;
    std::string name;
};

inline constexpr uint32_t kNoNsysString = UINT32_MAX;

// A range or API call whose chunk-local thread, name, sizes or result does not fit its 16-bit
// code. The columns in the order the reader writes a row's.
struct WideLocal {
    enum Column : uint8_t { Thread, Name, Sizes, Result };
    size_t row;
    uint32_t id;
    Column column;
};
inline constexpr size_t kEventTables = 5;

// The destination of all workers: the trace's columns, presized to each table's rowid span so a
// row lands at (rowid - firstRowid). Workers write disjoint slices; rows never written (gaps,
// skipped rows) are dropped by compaction after the read.
struct EventSink {
    Trace& trace;
    RowFlags apiIsBacktrace;      // per API row: a CUDA backtrace row (AssemblyInput)
    RowFlags valid[kEventTables]; // per table, whether each row was read and kept
    int64_t firstRowid[kEventTables] = {};
    bool sequential[kEventTables] = {}; // sparse rowids: rows are placed in read order instead
    // NVTX rows placed by rowid need no source row column: row i is rowid firstRowid + i
    // (RangeColumns::importSourceRow stays empty; the builder keeps the rowids as runs).
    bool impliedRangeRows() const { return !sequential[static_cast<size_t>(EventTable::Nvtx)]; }
    bool nvtxNames = true; // false: ranges keep the empty name and no marker fields
    // The origin of the API calls' and ranges' times (TimeColumn): the first such time a worker
    // reads, agreed on by all of them; kNoOrigin until then.
    static constexpr TimeNs kNoOrigin = INT64_MIN;
    std::atomic<TimeNs> timeOrigin{kNoOrigin};
    TimeNs originFor(TimeNs first) {
        TimeNs expected = timeOrigin.load(std::memory_order_relaxed);
        if (expected != kNoOrigin) return expected;
        return timeOrigin.compare_exchange_strong(expected, first) ? first : expected;
    }
    explicit EventSink(Trace& t) : trace(t) {}
    void presize(EventTable table, int64_t firstRow, size_t rows, unsigned threads);
};

// What one chunk read besides its rows: chunk-local keys and strings, to be remapped over the
// chunk's slice [begin, end) once all chunks are in.
struct Chunk {
    EventTable kind = EventTable::Kernel;
    size_t begin = 0, end = 0;
    StringPool strings; // NVTX names and sizes
    std::vector<std::pair<size_t, int64_t>>
        rangeDomains; // (row, domainId) outside the default domain
    std::vector<DomainName> domains;
    LocalValues<int64_t> threads; // API calls' and ranges' globalTids
    // GPU operations' streams: the reader writes the index into this as the row's streamIndex.
    LocalValues<StreamKey, StreamKeyHash> streams;
    // API calls' names (the export's string ids) and results (their bit patterns), whose indexes
    // the reader writes as 16-bit codes.
    LocalValues<uint32_t> apiNames, apiResults;
    // Ends of 2^31 ns or more (API calls, ranges): (row, duration), the row's importEnd code
    // pointing at its index here until the chunk is merged (ImportEndColumn::adopt).
    std::vector<std::pair<size_t, int64_t>> farEnds;
    // Kernels' grids and blocks, the chunk's distinct ones: grid.code and block.code index
    // them until the chunk is merged.
    LocalValues<Dim3, Dim3Hash> grids, blocks;
    // Op ids and seqs out of their block's reach (RowidBlockInt32Column::encode).
    std::vector<RowidBlockInt32Column::Far> farOpIds, farSeqs;
    std::vector<WideLocal> wideLocals; // by row
    LoadReport report;
};

struct ChunkTask {
    const TableSpec* spec = nullptr;
    int64_t firstRowid = 0, lastRowid = 0;
};

// Called every few thousand rows with the number of rows read since the last call.
using RowsReadFn = std::function<void(uint64_t rows)>;

// Reads the rows of task through st (prepared by buildSelect with ranged=true) into sink.
// Stops early when stop becomes true.
void readChunk(Statement& st, const ChunkTask& task, const NsysStrings& strings, EventSink& sink,
               Chunk& out, const std::atomic<bool>& stop, const RowsReadFn& rowsRead);
// The same straight from the file's pages (scan over the table's layout for the same columns).
void readChunk(TableScan& scan, const ChunkTask& task, const NsysStrings& strings, EventSink& sink,
               Chunk& out, const std::atomic<bool>& stop, const RowsReadFn& rowsRead);

} // namespace ls
