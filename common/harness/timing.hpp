// Timing kernels two ways: launches back to back on one stream (us/run
// includes each launch's overhead), and replays of a CUDA graph of many
// launches (launch overhead removed). Which of the two test-backend-ops'
// perf mode resembles depends on ggml's build (docs/upstream.md).
#pragma once

#include "problem.hpp"

#include <cstddef>
#include <functional>
#include <optional>
#include <string>
#include <vector>

namespace harness {

enum class TimingMode {
    back_to_back,  // one stream, one launch after another: test-backend-ops' us/run
    graph_replay,  // many launches captured in one CUDA graph, replayed: the kernels alone
};

// "back-to-back" or "graph replay", as the tables print it.
const char* mode_name(TimingMode mode);
// "back_to_back" or "graph_replay", as the CSV and JSON files write it.
const char* mode_key(TimingMode mode);

// How each candidate is sampled in one timing mode.
struct Sampling {
    int    samples;    // the median of these is the figure
    double target_ms;  // each sample launches this long, at least min_launches_per_sample launches
};

struct TimingConfig {
    int warmup_launches = 50;
    // Back to back, a kernel shorter than a launch's host time runs at the
    // host's rate, and that rate wanders from sample to sample: there the
    // median needs more samples, and shorter ones keep the run's length.
    Sampling back_to_back = {63, 1.0};
    Sampling graph_replay = {21, 4.0};
    // A caller that rotates its inputs over several buffer sets sets this to
    // the number of sets, so that every sample (and every captured graph)
    // goes through all of them.
    int min_launches_per_sample = 20;

    const Sampling& sampling(TimingMode mode) const {
        return mode == TimingMode::back_to_back ? back_to_back : graph_replay;
    }
};

struct Timing {
    double median_us           = 0.0;  // per launch
    double min_us              = 0.0;
    double max_us              = 0.0;
    int    samples             = 0;
    int    launches_per_sample = 0;
};

// Times every candidate (each call makes one launch on harness::stream()).
// Each sample times `launches_per_sample` back-to-back launches between two
// CUDA events, after one launch of the candidate before the first event, so
// that the GPU is not idle at a sample's start waiting for the host. The
// samples of the candidates interleave, so that a drift of clocks or
// temperature hits all of them alike, and each round starts one candidate
// further on, so that no candidate always follows the same one.
std::vector<Timing> time_back_to_back(const std::vector<std::function<void()>>& candidates,
                                      const TimingConfig&                       config = {});

// Times every candidate inside a CUDA graph: its launches are captured once on
// harness::stream() into a graph of `launches_per_sample` launches (or a
// divisor of it, replayed that many times), and each sample replays it
// between two events; per launch = replay time / launches. Samples
// interleave and rotate as above. Throws CudaError if a candidate cannot be captured:
// ask graph_capture_failure first.
std::vector<Timing> time_graph_replay(const std::vector<std::function<void()>>& candidates,
                                      const TimingConfig&                       config = {});

// Either of the above.
std::vector<Timing> time_candidates(TimingMode mode, const std::vector<std::function<void()>>& candidates,
                                    const TimingConfig& config = {});

// Why a candidate cannot be captured into a graph (a library call that
// synchronizes or allocates, say), or nothing when it can: captures, and
// discards, a graph of one launch.
std::optional<std::string> graph_capture_failure(const std::function<void()>& candidate);

// test-backend-ops' throughput: bytes of A, B and X per run over the time, in GiB/s.
double gib_per_second(const Problem& problem, double us_per_run);

// The device's own memory bandwidth, as a large device-to-device
// cudaMemcpyAsync on harness::stream() moves it: bytes read plus bytes
// written over the median time of one copy.
struct CopyBandwidth {
    size_t bytes_per_copy = 0;  // each copy reads this many bytes and writes as many
    Timing timing;              // of one copy
    double bytes_per_second = 0.0;
};

CopyBandwidth measure_copy_bandwidth(size_t bytes_per_copy, const TimingConfig& config = {});

}  // namespace harness
