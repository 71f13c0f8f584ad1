// Host time per call of each step's plan (what its launcher decides before
// the launch), and of cudaGetDevice alone, on this machine. Back to back, a
// kernel shorter than a launch's host time runs at the host's rate, so a
// launcher's own host time is part of its us/run there.
//
//   build/plan_host_time       (docs/tools/measure.sh part host-costs runs it)
#include "report_steps.hpp"

#include <cuda_runtime.h>

#include <chrono>
#include <cstdio>
#include <map>
#include <utility>

namespace {

// Nanoseconds per call of `call`, after a tenth as many calls untimed.
template <class Call>
double ns_per_call(const Call& call, const int calls) {
    for (int i = 0; i < calls / 10; ++i) {
        call();
    }
    const auto start = std::chrono::steady_clock::now();
    for (int i = 0; i < calls; ++i) {
        call();
    }
    const auto stop = std::chrono::steady_clock::now();
    return std::chrono::duration<double, std::nano>(stop - start).count() / calls;
}

}  // namespace

int main() {
    if (cudaFree(nullptr) != cudaSuccess) {
        std::printf("plan_host_time: no GPU, nothing to time\n");
        return 77;
    }
    volatile int64_t sink = 0;  // keeps each call's result alive
    // The report's shape ids: the PR's shape, the batch curve's 2 matrices, Kimi-Linear's shape.
    const std::pair<const char*, harness::Problem> shapes[] = {{"pr", harness::Problem::contiguous(64, 6, 4, 2)},
                                                               {"curve_2", harness::Problem::contiguous(64, 64, 2, 1)},
                                                               {"kimi", harness::Problem::contiguous(16, 16, 32, 32)}};
    for (int round = 0; round < 3; ++round) {
        std::printf("cudaGetDevice: %.1f ns\n", ns_per_call(
                                                    [&] {
                                                        int device = 0;
                                                        cudaGetDevice(&device);
                                                        sink = sink + device;
                                                    },
                                                    2000000));
        // What steps 23 to 25 look up once they know the device.
        thread_local std::map<int, int> known;
        std::printf("thread_local map lookup: %.1f ns\n", ns_per_call([&] { sink = sink + known[0]; }, 2000000));
        for (const auto& [id, p] : shapes) {
            std::printf("%s plan ns:", id);
            for (const harness::Step* const step : harness::report_steps()) {
                if (p.n <= step->limits.max_n && p.k <= step->limits.max_k) {
                    const double ns = ns_per_call([&] { sink = sink + step->plan(p).grid.x; }, 500000);
                    std::printf(" %.2s:%.1f", step->name, ns);
                }
            }
            std::printf("\n");
        }
    }
    return 0;
}
