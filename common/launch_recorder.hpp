// Recording launches instead of making them (host side, no device code).
#pragma once

#include <cuda_runtime_api.h>

#include <cstddef>

namespace harness {

// What a launch would have been: kernel, grid, block and dynamic shared memory.
struct LaunchRecord {
    const void* kernel = nullptr;
    dim3        grid;
    dim3        block;
    size_t      dynamic_shared_bytes = 0;
};

// While a LaunchRecorder lives, the launches of this thread are recorded
// instead of made. The report reads a step's kernel resources (registers,
// shared memory, occupancy) this way without repeating its dispatch logic.
class LaunchRecorder {
public:
    LaunchRecorder();
    ~LaunchRecorder();
    LaunchRecorder(const LaunchRecorder&)            = delete;
    LaunchRecorder& operator=(const LaunchRecorder&) = delete;
    const LaunchRecord& record() const { return record_; }
    bool                recorded() const { return record_.kernel != nullptr; }
    static LaunchRecorder* active();
    void                   store(const LaunchRecord& record) { record_ = record; }

private:
    LaunchRecord    record_;
    LaunchRecorder* previous_;
};

}  // namespace harness
