#pragma once
// PyProf's kernel table (apex.pyprof `prof.py`): the column set pyprof2 users know, computed from
// our model. docs/pyprof.md explains each column and where we differ on purpose.
#include "core/views/kernel_table.h"

#include <memory>
#include <string>
#include <string_view>
#include <vector>

namespace ls {

// idx, seq, altseq, tid, layer, trace, dir, sub, mod, op, kernel, params, sil, tc, device,
// stream, grid, block, flops, bytes: prof.py's names and order.
const std::vector<std::string_view>& pyprofColumns();

class RawTextReader;

class PyprofTable {
  public:
    explicit PyprofTable(const KernelTable& table);
    ~PyprofTable();
    // One kernel's cells in the order of `columns` (names from pyprofColumns()).
    std::vector<std::string> row(KernelId k, const std::vector<std::string_view>& columns) const;

  private:
    struct DictContext {
        std::string mod, op, params, trace;
    };
    DictContext dictContext(KernelId k) const;

    const KernelTable& table_;
    mutable std::unique_ptr<RawTextReader> raw_; // one connection for all re-read marker texts
    std::vector<uint32_t> sub_; // per kernel: its index among its op instance's kernels
};

} // namespace ls
