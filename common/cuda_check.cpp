#include "cuda_check.hpp"

namespace harness {

void check_cuda(const cudaError_t status, const char* call, const char* file, const int line) {
    if (status != cudaSuccess) {
        throw CudaError(status, std::string(file) + ":" + std::to_string(line) + ": " + call + " failed: " +
                                    cudaGetErrorName(status) + " (" + cudaGetErrorString(status) + ")");
    }
}

void check_launch(const char* kernel, const char* file, const int line) {
    check_cuda(cudaGetLastError(), kernel, file, line);
}

}  // namespace harness

#include "launch_recorder.hpp"

namespace harness {

namespace {
thread_local LaunchRecorder* active_recorder = nullptr;
}

LaunchRecorder::LaunchRecorder() : previous_(active_recorder) { active_recorder = this; }
LaunchRecorder::~LaunchRecorder() { active_recorder = previous_; }
LaunchRecorder* LaunchRecorder::active() { return active_recorder; }

}  // namespace harness
