#include "core/views/session_kernel_table.h"

#include <algorithm>

namespace ls {

SessionKernelTable::SessionKernelTable(std::vector<std::shared_ptr<const KernelTable>> tables,
                                       std::vector<std::string> files)
    : tables_(std::move(tables)), files_(std::move(files)) {
    files_.resize(tables_.size());
    base_.reserve(tables_.size() + 1);
    base_.push_back(0);
    for (const auto& p : tables_) base_.push_back(base_.back() + static_cast<uint32_t>(p->size()));
}

uint32_t SessionKernelTable::traceOf(KernelId row) const {
    if (tables_.size() == 1) return 0;
    return static_cast<uint32_t>(std::upper_bound(base_.begin() + 1, base_.end() - 1, row.value) -
                                 (base_.begin() + 1));
}

std::vector<KernelId> SessionKernelTable::filter(const KernelFilter& filter,
                                                 const std::vector<KernelId>& rows) const {
    if (tables_.size() == 1) return filter.apply(*tables_[0], rows);
    std::vector<std::vector<KernelId>> local(tables_.size());
    for (KernelId row : rows) local[traceOf(row)].push_back(localOf(row));
    std::vector<KernelId> kept;
    for (uint32_t p = 0; p < tables_.size(); ++p)
        for (KernelId k : filter.apply(*tables_[p], local[p])) kept.push_back(rowOf(p, k));
    return kept;
}

void SessionKernelTable::sort(std::vector<KernelId>& rows, KernelField f, bool descending) const {
    if (tables_.size() == 1) return tables_[0]->sort(rows, f, descending);
    const FieldUnit unit = kernelFieldInfo(f).unit;
    std::vector<KeyedRow> keyed;
    keyed.reserve(rows.size());
    std::vector<KernelId> unknown;
    if (unit == FieldUnit::Text) {
        // Each trace ranks its own texts; the ranks become indexes into the tables' merged texts.
        std::vector<std::vector<KernelId>> local(tables_.size());
        for (KernelId row : rows) local[traceOf(row)].push_back(localOf(row));
        std::vector<std::vector<int64_t>> keys(tables_.size());
        std::vector<std::vector<std::string>> labels(tables_.size());
        std::vector<std::string> merged;
        for (uint32_t p = 0; p < tables_.size(); ++p) {
            keys[p] = tables_[p]->textKeys(local[p], f, &labels[p]);
            merged.insert(merged.end(), labels[p].begin(), labels[p].end());
        }
        std::sort(merged.begin(), merged.end());
        merged.erase(std::unique(merged.begin(), merged.end()), merged.end());
        const int shift =
            f == KernelField::NvtxRange ? 32 : 0; // its low bits order op ids under a name
        const int64_t lowMask = shift ? 0xFFFFFFFF : 0;
        std::vector<std::vector<int64_t>> globalOf(tables_.size());
        for (uint32_t p = 0; p < tables_.size(); ++p)
            for (const auto& label : labels[p])
                globalOf[p].push_back(std::lower_bound(merged.begin(), merged.end(), label) -
                                      merged.begin());
        // Walk the rows in their current order, so that ties keep it.
        std::vector<size_t> next(tables_.size(), 0);
        for (KernelId row : rows) {
            const uint32_t p = traceOf(row);
            const int64_t k = keys[p][next[p]++];
            keyed.push_back(KeyedRow{
                0, (globalOf[p][static_cast<size_t>(k >> shift)] << shift) | (k & lowMask), row});
        }
    } else {
        KernelTable::NumberKey key;
        for (KernelId row : rows) {
            if (tables_[traceOf(row)]->numberKey(localOf(row), f, key))
                keyed.push_back(KeyedRow{key.real, key.integer, row});
            else
                unknown.push_back(row);
        }
    }
    orderKeyedRows(rows, keyed, unknown, sortsByInteger(unit), descending);
}

} // namespace ls
