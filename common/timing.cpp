#include "timing.hpp"

#include "cuda_check.hpp"
#include "gpu.hpp"

#include <algorithm>
#include <cmath>

namespace harness {

namespace {

class Event {
public:
    Event() { CUDA_CHECK(cudaEventCreate(&event_)); }
    ~Event() { cudaEventDestroy(event_); }
    Event(const Event&)            = delete;
    Event& operator=(const Event&) = delete;
    cudaEvent_t get() const { return event_; }

private:
    cudaEvent_t event_ = nullptr;
};

// Milliseconds for `launches` back-to-back calls.
double time_launches(const std::function<void()>& launch, const int launches, const Event& start, const Event& stop) {
    CUDA_CHECK(cudaEventRecord(start.get(), stream()));
    for (int i = 0; i < launches; ++i) {
        launch();
    }
    CUDA_CHECK(cudaEventRecord(stop.get(), stream()));
    CUDA_CHECK(cudaEventSynchronize(stop.get()));
    float ms = 0.0f;
    CUDA_CHECK(cudaEventElapsedTime(&ms, start.get(), stop.get()));
    return static_cast<double>(ms);
}

}  // namespace

std::vector<Timing> time_back_to_back(const std::vector<std::function<void()>>& candidates,
                                      const TimingConfig& config) {
    const Event start, stop;
    std::vector<int> launches(candidates.size());
    for (size_t c = 0; c < candidates.size(); ++c) {
        for (int i = 0; i < config.warmup_launches; ++i) {
            candidates[c]();
        }
        CUDA_CHECK(cudaStreamSynchronize(stream()));
        // Size the sample from a short trial, so that it lasts long enough for the events' resolution.
        constexpr int trial = 20;
        const double  trial_ms = time_launches(candidates[c], trial, start, stop);
        const double  per_launch_ms = std::max(trial_ms / trial, 1e-4);
        launches[c] = std::clamp(static_cast<int>(std::ceil(config.sample_target_ms / per_launch_ms)), 20, 20000);
    }
    std::vector<std::vector<double>> samples(candidates.size());
    for (int s = 0; s < config.samples; ++s) {
        for (size_t c = 0; c < candidates.size(); ++c) {
            samples[c].push_back(1000.0 * time_launches(candidates[c], launches[c], start, stop) / launches[c]);
        }
    }
    std::vector<Timing> timings;
    for (size_t c = 0; c < candidates.size(); ++c) {
        std::vector<double>& us = samples[c];
        std::sort(us.begin(), us.end());
        Timing t;
        t.samples             = static_cast<int>(us.size());
        t.launches_per_sample = launches[c];
        t.min_us              = us.front();
        t.max_us              = us.back();
        t.median_us = us.size() % 2 == 1 ? us[us.size() / 2] : 0.5 * (us[us.size() / 2 - 1] + us[us.size() / 2]);
        timings.push_back(t);
    }
    return timings;
}

double gib_per_second(const Problem& problem, const double us_per_run) {
    return problem.bytes_moved() / (us_per_run * 1e-6) / (1024.0 * 1024.0 * 1024.0);
}

}  // namespace harness
