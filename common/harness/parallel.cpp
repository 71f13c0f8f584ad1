#include "parallel.hpp"

#include <unistd.h>

#include <algorithm>
#include <atomic>
#include <chrono>
#include <condition_variable>
#include <cstdio>
#include <exception>
#include <mutex>
#include <thread>
#include <vector>

namespace harness {

void parallel_for(const int64_t count, const std::function<void(int64_t, int64_t)>& body, const char* what) {
    if (count <= 0) {
        return;
    }
    const int64_t threads = std::min<int64_t>(std::max(1u, std::thread::hardware_concurrency()), count);
    // Small ranges, handed out as threads come free: matrices differ in cost
    // (a family's draw, a non-finite column), and the progress line moves.
    const int64_t           grain = std::max<int64_t>(1, count / (threads * 64));
    std::atomic<int64_t>    next{0}, done{0};
    std::atomic<bool>       failed{false};
    std::exception_ptr      error;
    std::mutex              mutex;
    std::condition_variable finished;
    int64_t                 running = threads;

    const auto work = [&] {
        try {
            while (!failed.load()) {
                const int64_t begin = next.fetch_add(grain);
                if (begin >= count) {
                    break;
                }
                const int64_t end = std::min(count, begin + grain);
                body(begin, end);
                done.fetch_add(end - begin);
            }
        } catch (...) {
            const std::lock_guard<std::mutex> lock(mutex);
            if (!error) {
                error = std::current_exception();
            }
            failed.store(true);
        }
        const std::lock_guard<std::mutex> lock(mutex);
        --running;
        finished.notify_all();
    };
    std::vector<std::thread> pool;
    for (int64_t t = 0; t < threads; ++t) {
        pool.emplace_back(work);
    }

    using clock         = std::chrono::steady_clock;
    const auto start    = clock::now();
    const bool terminal = isatty(STDERR_FILENO) != 0;
    bool       printed  = false;
    {
        std::unique_lock<std::mutex> lock(mutex);
        while (running > 0) {
            finished.wait_for(lock, std::chrono::seconds(1));
            if (what != nullptr && running > 0 && clock::now() - start > std::chrono::seconds(2)) {
                std::fprintf(stderr, "%s%s: %.0f %% of %lld%s", terminal ? "\r" : "", what,
                             100.0 * static_cast<double>(done.load()) / static_cast<double>(count),
                             static_cast<long long>(count), terminal ? "" : "\n");
                std::fflush(stderr);
                printed = true;
            }
        }
    }
    for (std::thread& thread : pool) {
        thread.join();
    }
    if (printed) {
        const double seconds = std::chrono::duration<double>(clock::now() - start).count();
        std::fprintf(stderr, "%s%s: done, %lld in %.1f s\n", terminal ? "\r" : "", what, static_cast<long long>(count),
                     seconds);
    }
    if (error) {
        std::rethrow_exception(error);
    }
}

}  // namespace harness
