#include "timing.hpp"

#include "device_buffer.hpp"
#include "gpu.hpp"

#include <algorithm>
#include <cmath>
#include <memory>

namespace harness {

namespace {

class Event {
public:
    Event() { CUDA_CHECK(cudaEventCreate(&event_)); }
    ~Event() { cudaEventDestroy(event_); }
    Event(const Event&)                 = delete;
    Event&      operator=(const Event&) = delete;
    cudaEvent_t get() const { return event_; }

private:
    cudaEvent_t event_ = nullptr;
};

// Milliseconds that the work `enqueue` puts on harness::stream() takes, after
// `lead_in` (if any) has been put there untimed.
double time_on_stream(const std::function<void()>& enqueue, const Event& start, const Event& stop,
                      const std::function<void()>& lead_in = {}) {
    if (lead_in) {
        lead_in();
    }
    CUDA_CHECK(cudaEventRecord(start.get(), stream()));
    enqueue();
    CUDA_CHECK(cudaEventRecord(stop.get(), stream()));
    CUDA_CHECK(cudaEventSynchronize(stop.get()));
    float ms = 0.0f;
    CUDA_CHECK(cudaEventElapsedTime(&ms, start.get(), stop.get()));
    return static_cast<double>(ms);
}

// Milliseconds for `launches` back-to-back calls.
double time_launches(const std::function<void()>& launch, const int launches, const Event& start, const Event& stop) {
    return time_on_stream(
        [&] {
            for (int i = 0; i < launches; ++i) {
                launch();
            }
        },
        start, stop);
}

// Warms a candidate up, then sizes its sample from a short trial, so that a
// sample lasts long enough for the events' resolution.
int warm_up_and_size_sample(const std::function<void()>& launch, const TimingConfig& config, const Sampling& sampling,
                            const Event& start, const Event& stop) {
    for (int i = 0; i < config.warmup_launches; ++i) {
        launch();
    }
    CUDA_CHECK(cudaStreamSynchronize(stream()));
    constexpr int trial         = 20;
    const double  trial_ms      = time_launches(launch, trial, start, stop);
    const double  per_launch_ms = std::max(trial_ms / trial, 1e-4);
    const int     launches      = static_cast<int>(std::ceil(sampling.target_ms / per_launch_ms));
    return std::max(std::clamp(launches, 20, 20000), config.min_launches_per_sample);
}

// One candidate, ready to sample: what one sample enqueues, and how many
// launches that is; what is enqueued untimed before it, if anything.
struct Sampler {
    std::function<void()> enqueue_sample;
    int                   launches = 0;
    std::function<void()> lead_in;
};

Timing summarize(std::vector<double> us, const int launches_per_sample) {
    std::sort(us.begin(), us.end());
    Timing t;
    t.samples             = static_cast<int>(us.size());
    t.launches_per_sample = launches_per_sample;
    t.min_us              = us.front();
    t.max_us              = us.back();
    t.median_us           = us.size() % 2 == 1 ? us[us.size() / 2] : 0.5 * (us[us.size() / 2 - 1] + us[us.size() / 2]);
    return t;
}

// The samples of all candidates, interleaved: sample s of every candidate
// before sample s + 1 of any. Round s starts at candidate s (mod their
// number), so that each candidate takes every place in the order in turn.
std::vector<Timing> sample_interleaved(const std::vector<Sampler>& samplers, const int samples, const Event& start,
                                       const Event& stop) {
    std::vector<std::vector<double>> us_per_launch(samplers.size());
    for (int s = 0; s < samples; ++s) {
        for (size_t i = 0; i < samplers.size(); ++i) {
            const size_t c  = (static_cast<size_t>(s) + i) % samplers.size();
            const double ms = time_on_stream(samplers[c].enqueue_sample, start, stop, samplers[c].lead_in);
            us_per_launch[c].push_back(1000.0 * ms / samplers[c].launches);
        }
    }
    std::vector<Timing> timings;
    for (size_t c = 0; c < samplers.size(); ++c) {
        timings.push_back(summarize(us_per_launch[c], samplers[c].launches));
    }
    return timings;
}

// A CUDA graph of `launches` calls of one candidate, captured on harness::stream().
class GraphOfLaunches {
public:
    GraphOfLaunches(const std::function<void()>& launch, const int launches) {
        CUDA_CHECK(cudaStreamBeginCapture(stream(), cudaStreamCaptureModeThreadLocal));
        try {
            for (int i = 0; i < launches; ++i) {
                launch();
            }
        } catch (...) {
            abandon_capture();
            throw;
        }
        cudaGraph_t       graph = nullptr;
        const cudaError_t ended = cudaStreamEndCapture(stream(), &graph);
        if (ended != cudaSuccess) {
            abandon_capture();
            CUDA_CHECK(ended);
        }
        const cudaError_t instantiated = cudaGraphInstantiate(&exec_, graph, 0);
        cudaGraphDestroy(graph);  // the executable graph keeps what it needs
        CUDA_CHECK(instantiated);
    }
    ~GraphOfLaunches() {
        if (exec_ != nullptr) {
            cudaGraphExecDestroy(exec_);
        }
    }
    GraphOfLaunches(const GraphOfLaunches&)            = delete;
    GraphOfLaunches& operator=(const GraphOfLaunches&) = delete;

    void replay() const { CUDA_CHECK(cudaGraphLaunch(exec_, stream())); }

private:
    // A failed capture leaves the stream capturing, or an error pending:
    // end the capture and clear the error, so that the stream works again.
    static void abandon_capture() {
        cudaStreamCaptureStatus status = cudaStreamCaptureStatusNone;
        if (cudaStreamIsCapturing(stream(), &status) == cudaSuccess && status != cudaStreamCaptureStatusNone) {
            cudaGraph_t partial = nullptr;
            cudaStreamEndCapture(stream(), &partial);
            if (partial != nullptr) {
                cudaGraphDestroy(partial);
            }
        }
        cudaGetLastError();
    }

    cudaGraphExec_t exec_ = nullptr;
};

// A graph of more launches than this takes long to instantiate and gains
// nothing: a longer sample replays the graph several times instead.
constexpr int max_launches_per_graph = 2000;

}  // namespace

const char* mode_name(const TimingMode mode) {
    return mode == TimingMode::back_to_back ? "back-to-back" : "graph replay";
}

const char* mode_key(const TimingMode mode) {
    return mode == TimingMode::back_to_back ? "back_to_back" : "graph_replay";
}

std::vector<Timing> time_back_to_back(const std::vector<std::function<void()>>& candidates,
                                      const TimingConfig&                       config) {
    const Event          start, stop;
    std::vector<Sampler> samplers;
    for (const std::function<void()>& launch : candidates) {
        const int launches = warm_up_and_size_sample(launch, config, config.back_to_back, start, stop);
        samplers.push_back({[&launch, launches] {
                                for (int i = 0; i < launches; ++i) {
                                    launch();
                                }
                            },
                            launches, launch});
    }
    return sample_interleaved(samplers, config.back_to_back.samples, start, stop);
}

std::vector<Timing> time_graph_replay(const std::vector<std::function<void()>>& candidates,
                                      const TimingConfig&                       config) {
    const Event                                   start, stop;
    std::vector<std::unique_ptr<GraphOfLaunches>> graphs;
    std::vector<Sampler>                          samplers;
    for (const std::function<void()>& launch : candidates) {
        // Sized from back-to-back launches, which overestimate a launch's
        // time in a graph: a graph sample is at most as long as the target.
        const int wanted         = warm_up_and_size_sample(launch, config, config.graph_replay, start, stop);
        const int graph_launches = std::max(std::min(wanted, max_launches_per_graph), config.min_launches_per_sample);
        const int replays        = std::max(1, (wanted + graph_launches - 1) / graph_launches);
        graphs.push_back(std::make_unique<GraphOfLaunches>(launch, graph_launches));
        const GraphOfLaunches* const graph = graphs.back().get();
        graph->replay();  // the first replay uploads the graph: keep it out of the samples
        CUDA_CHECK(cudaStreamSynchronize(stream()));
        samplers.push_back({[graph, replays] {
                                for (int r = 0; r < replays; ++r) {
                                    graph->replay();
                                }
                            },
                            graph_launches * replays});
    }
    return sample_interleaved(samplers, config.graph_replay.samples, start, stop);
}

std::vector<Timing> time_candidates(const TimingMode mode, const std::vector<std::function<void()>>& candidates,
                                    const TimingConfig& config) {
    return mode == TimingMode::back_to_back ? time_back_to_back(candidates, config)
                                            : time_graph_replay(candidates, config);
}

std::optional<std::string> graph_capture_failure(const std::function<void()>& candidate) {
    try {
        const GraphOfLaunches graph(candidate, 1);
    } catch (const std::exception& error) {
        return std::string(error.what());
    }
    return std::nullopt;
}

double gib_per_second(const Problem& problem, const double us_per_run) {
    return problem.bytes_moved() / (us_per_run * 1e-6) / (1024.0 * 1024.0 * 1024.0);
}

CopyBandwidth measure_copy_bandwidth(const size_t bytes_per_copy, const TimingConfig& config) {
    const DeviceBuffer<char> source(bytes_per_copy), destination(bytes_per_copy);
    CUDA_CHECK(cudaMemsetAsync(source.data(), 0x3c, bytes_per_copy, stream()));
    const std::function<void()> copy = [&] {
        CUDA_CHECK(
            cudaMemcpyAsync(destination.data(), source.data(), bytes_per_copy, cudaMemcpyDeviceToDevice, stream()));
    };
    CopyBandwidth result;
    result.bytes_per_copy   = bytes_per_copy;
    result.timing           = time_back_to_back({copy}, config).front();
    result.bytes_per_second = 2.0 * static_cast<double>(bytes_per_copy) / (result.timing.median_us * 1e-6);
    return result;
}

}  // namespace harness
