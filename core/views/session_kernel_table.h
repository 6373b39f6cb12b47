#pragma once
// The kernel table over several traces at once (every rank of a session): a row is a session row
// id, trace p's kernels numbered from base(p) in their own order, so the unsorted table lists the
// traces one after another as `layerscope-cli kernels FILE...` writes them. Cells are the
// traces' own KernelTable cells; sorting merges their keys (texts by their bytes), so a column
// sorts across ranks as it sorts within one. A session of one trace has row id == kernel id.
#include "core/views/kernel_filter.h"
#include "core/views/kernel_table.h"

#include <memory>
#include <string>
#include <vector>

namespace ls {

class SessionKernelTable {
  public:
    // files: each trace's file as the user named it (Session::traces[p].file), for a `file` column.
    explicit SessionKernelTable(std::vector<std::shared_ptr<const KernelTable>> tables,
                                std::vector<std::string> files = {});

    size_t traceCount() const { return tables_.size(); }
    const KernelTable& table(uint32_t trace) const { return *tables_[trace]; }
    size_t size() const { return base_.back(); }
    const std::string& file(uint32_t p) const { return files_[p]; }

    uint32_t traceOf(KernelId row) const;
    KernelId localOf(KernelId row) const { return KernelId(row.value - base_[traceOf(row)]); }
    KernelId rowOf(uint32_t trace, KernelId k) const { return KernelId(base_[trace] + k.value); }

    std::string text(KernelId row, KernelField f) const {
        return table(traceOf(row)).text(localOf(row), f);
    }
    double number(KernelId row, KernelField f) const {
        return table(traceOf(row)).number(localOf(row), f);
    }

    // The rows the filter keeps, in their given order when that order is ascending.
    std::vector<KernelId> filter(const KernelFilter& filter,
                                 const std::vector<KernelId>& rows) const;
    // As KernelTable::sort, across the traces.
    void sort(std::vector<KernelId>& rows, KernelField f, bool descending) const;

  private:
    std::vector<std::shared_ptr<const KernelTable>> tables_;
    std::vector<std::string> files_;
    std::vector<uint32_t> base_; // base_[p]: row id of trace p's kernel 0; back(): the total
};

} // namespace ls
