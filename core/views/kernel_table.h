#pragma once
// The kernel table: one catalog of columns (the CLI's `kernels` columns, in its order), each
// kernel's cell as text (exactly what the CLI writes) or as a number, and sorting of a row
// permutation by any column. Shared by layerscope-cli and the GUI's table model so that a CSV
// exported from either is the same.
#include "core/model/session.h"
#include "core/model/trace.h"

#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace ls {

enum class KernelField : uint8_t {
    Id,
    Start,
    End,
    Duration,
    Device,
    Context,
    Stream,
    Pid,
    Tid,
    Correlation,
    Api,
    Name,
    ShortName,
    Grid,
    Block,
    Registers,
    StaticSmem,
    DynamicSmem,
    NvtxRange,
    NvtxPath,
    Layer,
    Op,
    Seq,
    TorchOpId,
    Dir,
    FwdOpId,
    Sizes,
    Flops,
    Bytes,
    DataType,
    Intensity,
    TflopsS,
    GbytesS,
    Tc,
    TcReason,
    FlopsRule,
    DataTypeSource,
    Rank,
    OccupancyPct,
    OccupancyLimiter,
    Graph,
};
inline constexpr size_t kKernelFieldCount = static_cast<size_t>(KernelField::Graph) + 1;

// How a column's values are measured: decides display units, filter value suffixes and sorting.
enum class FieldUnit : uint8_t {
    Integer,   // counts and ids
    Timestamp, // ns on the trace clock
    Duration,  // ns
    Flops,
    Bytes,
    Intensity, // FLOP/byte
    Tflops,    // TFLOP/s
    Gbytes,    // GB/s
    Text,
    Dim,     // grid/block "x,y,z"; sorts by x*y*z
    Percent, // 0 to 100
};

struct KernelFieldInfo {
    KernelField field;
    std::string_view name;  // CLI header
    std::string_view title; // GUI header
    FieldUnit unit;
    std::string_view help; // one line for tooltips and --help
};

const std::vector<KernelFieldInfo>& kernelFields();
const KernelFieldInfo& kernelFieldInfo(KernelField f);
std::optional<KernelField> kernelFieldByName(std::string_view name);

class RawTextReader;

// Rows with their sort keys, for KernelTable::sort and SessionKernelTable::sort: orderKeyedRows
// writes the known rows stably sorted by key, then the unknown rows in their order.
struct KeyedRow {
    double real;
    int64_t integer;
    KernelId row;
};
bool sortsByInteger(FieldUnit u); // text keys, counts, times and dims compare as integers
void orderKeyedRows(std::vector<KernelId>& rows, std::vector<KeyedRow>& known,
                    const std::vector<KernelId>& unknown, bool byInteger, bool descending);

// Every kernel of the trace in the order of a column that the kernels' own times give (Start, End,
// Duration): the order KernelTable::sort gives all rows, without a table. It reads only the
// kernels' columns, so the app sorts while the load still prices the kernels
// (LoadOptions::correlated).
bool isKernelTimeField(KernelField f);
std::vector<KernelId> kernelsInTimeOrder(const Trace& t, KernelField f, bool descending);

// Each distinct NVTX stack of the trace's kernels as one node of a trie of names (node 0: the
// empty path) and the node of each kernel, so that sorting and filtering by the path compare
// node ranks instead of joined strings. Built once per trace; the view cache keeps it
// (core/prepared/view_file.h).
struct KernelPaths {
    struct Node {
        uint32_t parent;
        StringId name;
    };
    std::vector<Node> nodes;
    std::vector<uint32_t> ofKernel;
};
KernelPaths buildKernelPaths(const Trace& t);

class KernelTable {
  public:
    // Builds the per-kernel keys that are too slow to derive per sort (NVTX path ids). The rank
    // column numbers the trace as a session of one would (core/model/rank_labels.h).
    explicit KernelTable(std::shared_ptr<const Trace> trace);
    // The trace as rank(s) of a larger session: the rank column follows it.
    KernelTable(std::shared_ptr<const Trace> trace, const Session& session, uint32_t traceIndex);
    // The same with the trace's paths built before (buildKernelPaths of this trace).
    KernelTable(std::shared_ptr<const Trace> trace, const Session& session, uint32_t traceIndex,
                std::shared_ptr<const KernelPaths> paths);
    ~KernelTable();
    KernelTable(const KernelTable&) = delete;
    KernelTable& operator=(const KernelTable&) = delete;

    const Trace& trace() const { return *trace_; }
    const std::shared_ptr<const Trace>& tracePtr() const { return trace_; }
    size_t size() const { return trace_->kernels.size(); }

    // The cell as the CLI writes it: raw units, empty when unknown. NvtxRange re-reads the raw
    // marker text from the file, so call it on the thread that owns the table.
    std::string text(KernelId k, KernelField f) const;
    // The cell as a number (integers and measures); NaN when unknown or for text columns.
    double number(KernelId k, KernelField f) const;
    // The interned string behind a text column, when there is one (name, op, layer, …); lets a
    // filter decide once per distinct string. Invalid id for other columns.
    std::optional<StringId> stringId(KernelId k, KernelField f) const;

    // Closed-vocabulary columns (direction, dtype, tc, tc_reason, dtype_source, occupancy_limiter):
    // a small code per cell, equal codes meaning equal texts, so callers can decide once per code.
    static bool isVocabulary(KernelField f);
    uint32_t vocabularyCode(KernelId k, KernelField f) const;

    // Normalized names of the kernel's NVTX stack, outermost first, joined by " > ".
    std::string nvtxPath(KernelId k) const;
    // Each distinct stack is one path node (0: no ranges); filters decide once per node.
    uint32_t pathNode(KernelId k) const { return paths_->ofKernel[k.value]; }
    size_t pathNodeCount() const { return paths_->nodes.size(); }
    const std::shared_ptr<const KernelPaths>& paths() const { return paths_; }
    std::string pathText(uint32_t node) const;

    // Sorts rows by column f; ties keep their current order, unknown cells go last either way.
    void sort(std::vector<KernelId>& rows, KernelField f, bool descending) const;

    // Sort keys of a text column: equal keys for equal texts, in byte order of the text. labels,
    // when given, receives the text of each key (NvtxRange: of key >> 32; its low 32 bits order
    // the op ids under one name), so keys of several tables can be merged (SessionKernelTable).
    std::vector<int64_t> textKeys(const std::vector<KernelId>& rows, KernelField f,
                                  std::vector<std::string>* labels = nullptr) const;
    // The sort key of a number column's cell; false when the cell is unknown. Timestamps stay
    // exact integers (they can exceed 2^53 ns).
    struct NumberKey {
        double real = 0;
        int64_t integer = 0;
    };
    bool numberKey(KernelId k, KernelField f, NumberKey& key) const;

    static constexpr std::string_view kPathSeparator = " > ";

  private:
    void setRanks(const Session& session, uint32_t traceIndex);
    int rankOf(KernelId k) const;
    std::vector<uint32_t> pathRanks() const;

    std::shared_ptr<const Trace> trace_;
    std::shared_ptr<const KernelPaths> paths_;
    mutable std::unique_ptr<RawTextReader> raw_;
    struct RankOf {
        ProcessId process;
        uint32_t device;
        int rank;
    };
    std::vector<RankOf> ranks_; // a handful: one per GPU the trace's processes used
};

} // namespace ls
