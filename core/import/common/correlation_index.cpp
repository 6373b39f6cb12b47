#include "core/import/common/correlation_index.h"

namespace ls {

void CorrelationIndex::drop(uint32_t row, size_t n) {
    if (duplicates_.size() != n) duplicates_.assign(n, false);
    duplicates_.set(row, true);
    ++duplicateCount_;
}

void CorrelationIndex::clear() {
    std::vector<size_t>().swap(begin_);
    Column<uint32_t>().swap(rows_);
    duplicates_.clear();
    duplicateCount_ = 0;
}

} // namespace ls
