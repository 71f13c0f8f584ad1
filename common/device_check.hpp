// Running a step on the GPU and judging its output.
#pragma once

#include "cuda_check.hpp"
#include "inputs.hpp"
#include "problem.hpp"
#include "reference.hpp"

#include <vector>

namespace harness {

// A problem's inputs on the device, and an output buffer with a guard of
// poison on either side of X, so that a write before or after X is caught.
class DeviceProblem {
public:
    DeviceProblem(const Problem& problem, const Inputs& inputs);
    const float* A() const { return A_.data(); }
    const float* B() const { return B_.data(); }
    float*       X() const { return X_storage_.data() + guard; }
    // Fills X and its guards with poison (NaN), on the measurement stream.
    void poison_output() const;
    // X as the step left it; throws if a guard was overwritten.
    std::vector<float> fetch_output() const;

    static constexpr int64_t guard = 1024;  // elements of poison before and after X

private:
    Problem             problem_;
    DeviceBuffer<float> A_, B_, X_storage_;
};

// Copies of one problem's inputs on the device, with an output buffer for
// each, for timing: a launch that cycles through the copies reads inputs the
// previous launches did not leave in the L2, as long as all the copies
// together are several times larger than the L2. Every copy starts on a
// 256-byte boundary, so any step's alignment limit holds for each.
class RotatingBuffers {
public:
    RotatingBuffers(const Problem& problem, const Inputs& inputs, int sets);
    int          sets() const { return sets_; }
    const float* A(int set) const { return A_.data() + set * a_stride_; }
    const float* B(int set) const { return B_.data() + set * b_stride_; }
    float*       X(int set) const { return X_.data() + set * x_stride_; }
    // Bytes of A, B and X over all sets.
    double bytes() const;

    // Sets needed for a problem's inputs to span `multiple_of_l2` times the
    // L2 (at least one set, at most max_sets).
    static int sets_for(const Problem& problem, int64_t l2_bytes, double multiple_of_l2, int max_sets);

private:
    int64_t             a_stride_, b_stride_, x_stride_;  // elements from one set to the next
    int                 sets_;
    DeviceBuffer<float> A_, B_, X_;
};

// Poisons the output, solves with the step, synchronizes and returns X.
std::vector<float> run_step(const Step& step, const Problem& problem, const DeviceProblem& device);

struct Check {
    Verdict            verdict;
    std::vector<float> X;
};

// One check: draws the family's inputs from the seed, solves on the GPU and
// judges the output against the double-precision reference.
Check check_step(const Step& step, const Problem& problem, Family family, uint64_t seed);

}  // namespace harness
