// Timing as test-backend-ops does it: launches back to back on one stream,
// so us/run includes each launch's overhead.
#pragma once

#include "problem.hpp"

#include <functional>
#include <vector>

namespace harness {

struct TimingConfig {
    int    warmup_launches   = 50;
    int    samples           = 21;   // the median of these is the figure
    double sample_target_ms  = 4.0;  // each sample launches this long, at least 20 launches
};

struct Timing {
    double median_us = 0.0;  // per launch
    double min_us    = 0.0;
    double max_us    = 0.0;
    int    samples   = 0;
    int    launches_per_sample = 0;
};

// Times every candidate (each call makes one launch on harness::stream()).
// Each sample times `launches_per_sample` back-to-back launches between two
// CUDA events; the samples of the candidates interleave, so that a drift of
// clocks or temperature hits all of them alike.
std::vector<Timing> time_back_to_back(const std::vector<std::function<void()>>& candidates,
                                      const TimingConfig& config = {});

// test-backend-ops' throughput: bytes of A, B and X per run over the time, in GiB/s.
double gib_per_second(const Problem& problem, double us_per_run);

}  // namespace harness
