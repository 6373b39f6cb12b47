// KernelTable's sorting: rows ordered by any field's key (integers kept exact, reals, text by
// rank), with an O(n) check for rows already in order or reversed and a stable radix sort for big
// tables; the kernels of a trace in time order.
#include "core/views/kernel_table.h"
#include "core/views/radix_order.h"

#include <algorithm>
#include <cmath>

namespace ls {
namespace {

using F = KernelField;
using U = FieldUnit;

bool isIntegerKey(FieldUnit u) {
    return u == U::Integer || u == U::Timestamp || u == U::Duration || u == U::Dim;
}

} // namespace

bool sortsByInteger(FieldUnit u) { return u == U::Text || isIntegerKey(u); }

// Below this many rows a comparison sort is as fast.
constexpr size_t kRadixRows = 1 << 14;

void orderKeyedRows(std::vector<KernelId>& rows, std::vector<KeyedRow>& known,
                    const std::vector<KernelId>& unknown, bool byInteger, bool descending) {
    auto less = [&](const KeyedRow& a, const KeyedRow& b) {
        if (byInteger) return descending ? a.integer > b.integer : a.integer < b.integer;
        return descending ? a.real > b.real : a.real < b.real;
    };
    // Rows often come in the order asked for or its reverse (by id or start, the table's own
    // order): a check of O(n) instead of a sort. Strictly reversed keys have no ties to keep.
    if (std::is_sorted(known.begin(), known.end(), less)) {
    } else if (std::adjacent_find(known.begin(), known.end(),
                                  [&](const KeyedRow& a, const KeyedRow& b) {
                                      return !less(b, a);
                                  }) == known.end()) {
        std::reverse(known.begin(), known.end());
    } else if (known.size() >= kRadixRows) {
        std::vector<RadixItem> items(known.size());
        for (size_t i = 0; i < known.size(); ++i) {
            const uint64_t key =
                byInteger ? orderedKey(known[i].integer) : orderedKey(known[i].real);
            items[i] = RadixItem{descending ? descendingKey(key) : key, known[i].row.value};
        }
        radixSortStable(items);
        for (size_t i = 0; i < items.size(); ++i)
            known[i].row = KernelId(items[i].value); // only the rows are read below
    } else {
        std::stable_sort(known.begin(), known.end(), less);
    }
    size_t r = 0;
    for (const auto& k : known) rows[r++] = k.row;
    for (KernelId u : unknown) rows[r++] = u;
}

namespace {

// Timestamps can exceed 2^53 ns: the integer keys of the time columns stay exact.
int64_t kernelTimeKey(const KernelColumns& kern, uint32_t i, KernelField f) {
    if (f == F::Start) return kern.start[i];
    if (f == F::End) return kern.end[i];
    return kern.duration(i);
}

} // namespace

bool isKernelTimeField(KernelField f) { return f == F::Start || f == F::End || f == F::Duration; }

std::vector<KernelId> kernelsInTimeOrder(const Trace& t, KernelField f, bool descending) {
    // Straight to the radix sort's items (keyed rows were 24 MB of fresh pages a million kernels):
    // the stable order orderKeyedRows gives, ties by id.
    const auto n = static_cast<uint32_t>(t.kernels.size());
    std::vector<RadixItem> items(n);
    for (uint32_t k = 0; k < n; ++k) {
        const uint64_t key = orderedKey(kernelTimeKey(t.kernels, k, f));
        items[k] = RadixItem{descending ? descendingKey(key) : key, k};
    }
    radixSortStable(items);
    std::vector<KernelId> rows(n);
    for (uint32_t i = 0; i < n; ++i) rows[i] = KernelId(items[i].value);
    return rows;
}

bool KernelTable::numberKey(KernelId k, KernelField f, NumberKey& key) const {
    if (isKernelTimeField(f)) {
        key.integer = kernelTimeKey(trace_->kernels, k.value, f);
        key.real = static_cast<double>(key.integer);
        return true;
    }
    const double v = number(k, f);
    if (!std::isfinite(v)) return false;
    key.real = v;
    key.integer = isIntegerKey(kernelFieldInfo(f).unit) ? static_cast<int64_t>(v) : 0;
    return true;
}

void KernelTable::sort(std::vector<KernelId>& rows, KernelField f, bool descending) const {
    const FieldUnit unit = kernelFieldInfo(f).unit;
    std::vector<KeyedRow> keyed;
    keyed.reserve(rows.size());
    std::vector<KernelId> unknown;
    if (unit == U::Text) {
        const auto keys = textKeys(rows, f);
        for (size_t r = 0; r < rows.size(); ++r) keyed.push_back(KeyedRow{0, keys[r], rows[r]});
    } else {
        NumberKey key;
        for (KernelId row : rows) {
            if (numberKey(row, f, key))
                keyed.push_back(KeyedRow{key.real, key.integer, row});
            else
                unknown.push_back(row);
        }
    }
    orderKeyedRows(rows, keyed, unknown, sortsByInteger(unit), descending);
}

} // namespace ls
