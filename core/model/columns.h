#pragma once
// Generic operations over a struct of column vectors exposing tie(): append, permute, free.
#include "core/model/platform.h"

#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <cstring>
#include <functional>
#include <memory>
#include <thread>
#include <tuple>
#include <type_traits>
#include <utility>
#include <vector>

namespace ls::columns {

template <typename Cols, typename F> void forEach(Cols& c, F&& f) {
    std::apply([&](auto&... v) { (f(v), ...); }, c.tie());
}

// The columns importers write of a table with packed ones (importTie()), as a table of its own for
// the operations below.
template <typename Cols> struct Imports {
    Cols& c;
    auto tie() { return c.importTie(); }
};
template <typename Cols> Imports<Cols> imports(Cols& c) { return {c}; }

// Some columns, tied (std::tie), as a table of their own for the operations below.
template <typename Tied> struct Some {
    Tied columns;
    Tied tie() { return columns; }
};

template <typename T, typename A> void release(std::vector<T, A>& v) {
    std::vector<T, A>().swap(v);
}

// Runs f on every column, spread over `threads` threads: passes over big columns are bound by
// memory and page faults, which a second core halves.
template <typename Cols, typename F> void forEachParallel(Cols& c, F&& f, unsigned threads) {
    std::vector<std::function<void()>> work;
    forEach(c, [&](auto& v) { work.emplace_back([&v, &f] { f(v); }); });
    if (threads < 2 || work.size() < 2) {
        for (auto& w : work) w();
        return;
    }
    std::vector<std::jthread> pool; // joins even if starting a later thread throws
    for (unsigned t = 0; t < threads; ++t)
        pool.emplace_back([&, t] {
            for (size_t i = t; i < work.size(); i += threads) work[i]();
        });
}

// Concatenates parts into dest column by column, freeing each part's column as it goes, so the
// peak is the result plus one column rather than twice everything.
template <typename Cols> void concat(Cols& dest, std::vector<Cols>& parts) {
    constexpr size_t n = std::tuple_size_v<decltype(dest.tie())>;
    [&]<size_t... K>(std::index_sequence<K...>) {
        (
            [&] {
                auto& d = std::get<K>(dest.tie());
                size_t total = d.size();
                for (auto& p : parts) total += std::get<K>(p.tie()).size();
                d.reserve(total);
                for (auto& p : parts) {
                    auto& s = std::get<K>(p.tie());
                    d.insert(d.end(), s.begin(), s.end());
                    release(s);
                }
            }(),
            ...);
    }
    (std::make_index_sequence<n>{});
}

// Reorders every column so that new row i is old row perm[i] (perm is a permutation of the rows;
// every column is empty or has perm.size() rows).
// Each column is gathered into one scratch buffer shared by all of them, then copied back: no
// column's memory is allocated and faulted in (zeroed by the kernel) a second time, which made
// the permutation of 8.1M NVTX ranges take 0.8 s. Both passes run on `threads` threads over
// disjoint parts; the peak is one extra widest column, as before.
template <typename Cols, typename Perm = std::vector<uint32_t>>
void permute(Cols& c, const Perm& perm, unsigned threads = 1) {
    const size_t n = perm.size();
    size_t widest = 0;
    forEach(c, [&](auto& v) {
        if (!v.empty()) widest = std::max(widest, sizeof(v[0]));
    });
    if (!widest || !n) return;
    const std::unique_ptr<std::byte[]> scratch(
        new std::byte[widest * n]); // left uninitialised: every byte used is written
    const size_t parts = std::max(1u, threads);
    auto inParts = [&](auto&& f) {
        std::vector<std::jthread> pool;
        for (size_t p = 1; p < parts; ++p)
            pool.emplace_back([&, p] { f(n * p / parts, n * (p + 1) / parts); });
        f(0, n / parts);
    };
    forEach(c, [&](auto& v) {
        if (v.empty()) return;
        using T = std::remove_reference_t<decltype(v[0])>;
        static_assert(std::is_trivially_copyable_v<T>);
        T* out = reinterpret_cast<T*>(scratch.get());
        inParts([&](size_t from, size_t to) {
            for (size_t i = from; i < to; ++i) out[i] = v[perm[i]];
        });
        inParts([&](size_t from, size_t to) {
            std::memcpy(v.data() + from, out + from, (to - from) * sizeof(T));
        });
    });
}

// Keeps rows whose keep flag is set, in order.
template <typename Cols, typename Keep>
void compact(Cols& c, const Keep& keep, unsigned threads = 1) {
    forEachParallel(
        c,
        [&](auto& v) {
            if (v.empty()) return;
            size_t w = 0;
            for (size_t r = 0; r < v.size(); ++r)
                if (keep[r]) v[w++] = v[r];
            v.resize(w); // no shrink_to_fit: it would copy the column to save the few skipped rows
        },
        threads);
}

} // namespace ls::columns
