#pragma once
// Pieces of work made on helper threads and used in order on the calling thread: a report of
// millions of rows makes them in chunks on every core while the calling thread writes the chunks
// made so far, in order.
#include <algorithm>
#include <condition_variable>
#include <cstddef>
#include <exception>
#include <map>
#include <mutex>
#include <thread>
#include <vector>

namespace ls {

// Pieces [0, n) made by make(i, piece) on `threads` helper threads, at most `window` of them made
// and not yet used, each handed to use(piece) on the calling thread in order. A piece is a used
// one handed back (make must clear it), so its memory is not faulted in again. An exception from
// make or use stops the helpers and is rethrown here once they have stopped.
template <typename Piece, typename Make, typename Use>
void makeInOrder(size_t n, unsigned threads, size_t window, Make&& make, Use&& use) {
    std::mutex mutex;
    std::condition_variable changed;
    std::map<size_t, Piece> made;
    std::vector<Piece> spare;
    size_t nextToUse = 0, nextToMake = 0;
    bool stop = false;
    std::exception_ptr failure;
    window = std::max<size_t>(window, 1);
    auto helper = [&] {
        Piece piece{};
        for (;;) {
            size_t i;
            {
                std::unique_lock lock(mutex);
                changed.wait(lock, [&] {
                    return stop || nextToMake >= n || nextToMake < nextToUse + window;
                });
                if (stop || nextToMake >= n) return;
                i = nextToMake++;
                if (!spare.empty()) {
                    piece = std::move(spare.back());
                    spare.pop_back();
                }
            }
            try {
                make(i, piece);
            } catch (...) {
                std::lock_guard lock(mutex);
                if (!failure) failure = std::current_exception();
                stop = true;
                changed.notify_all();
                return;
            }
            std::lock_guard lock(mutex);
            made.emplace(i, std::move(piece));
            piece = Piece{};
            changed.notify_all();
        }
    };
    {
        std::vector<std::jthread> pool;
        struct StopOnExit { // a failing use must not leave the helpers waiting for room
            std::mutex& mutex;
            std::condition_variable& changed;
            bool& stop;
            ~StopOnExit() {
                std::lock_guard lock(mutex);
                stop = true;
                changed.notify_all();
            }
        } stopOnExit{mutex, changed, stop}; // destroyed before the pool joins
        for (unsigned t = 0; t < std::max(1u, threads); ++t) pool.emplace_back(helper);
        while (nextToUse < n) {
            Piece piece;
            {
                std::unique_lock lock(mutex);
                changed.wait(lock, [&] { return stop || made.count(nextToUse); });
                const auto it = made.find(nextToUse);
                if (it == made.end()) break; // a helper failed
                piece = std::move(it->second);
                made.erase(it);
                ++nextToUse;
                changed.notify_all();
            }
            use(piece);
            std::lock_guard lock(mutex);
            spare.push_back(std::move(piece));
        }
    }
    if (failure) std::rethrow_exception(failure);
}

} // namespace ls
