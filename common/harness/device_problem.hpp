// A problem on the device, and one run of a step on it: inputs uploaded, the
// output poisoned before the launch and fetched after it.
#pragma once

#include "device_buffer.hpp"
#include "host_floats.hpp"
#include "inputs.hpp"
#include "problem.hpp"

namespace harness {

// A problem's inputs on the device, and an output buffer with a guard of
// poison on either side of X, so that a write before or after X is caught.
// With an offset, A, B and X each start that many floats past a 256-byte
// boundary (cudaMalloc's), as a view into a larger tensor may.
class DeviceProblem {
public:
    DeviceProblem(const Problem& problem, const Inputs& inputs, int64_t offset = 0);
    const float* A() const { return A_.data() + offset_; }
    const float* B() const { return B_.data() + offset_; }
    float*       X() const { return X_storage_.data() + offset_ + guard; }
    // Fills X and its guards with poison (NaN), on the measurement stream.
    void poison_output() const;
    // X as the step left it; throws if a guard was overwritten.
    HostFloats fetch_output() const;

    static constexpr int64_t guard = 1024;  // elements of poison before and after X

private:
    int64_t             offset_;
    DeviceBuffer<float> A_, B_, X_storage_;
};

// Poisons the output, solves with the step, synchronizes and returns X.
HostFloats run_step(const Step& step, const Problem& problem, const DeviceProblem& device);

}  // namespace harness
