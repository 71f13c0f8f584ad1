// Where a shape's data comes from while it is timed, and whether its figures
// are read against the copy bandwidth: one rule for both.
#pragma once

#include "device_buffer.hpp"
#include "inputs.hpp"
#include "problem.hpp"

#include <cstdint>

namespace harness {

// A shape whose bytes (A, B and X once) fit in a quarter of the L2 is timed
// L2-hot, on one buffer set, as test-backend-ops times it and as the model
// meets it (its inputs were just written by the op before). A larger shape is
// memory-bound: it is timed rotated over enough copies of its inputs to span
// 4x the L2 (at most max_rotation_sets), so that it reads device memory and not
// what the previous launch left in the L2; its table shows % of the copy
// bandwidth, and its plot the copy floor.
constexpr double l2_hot_fraction         = 0.25;
constexpr double rotation_multiple_of_l2 = 4.0;
constexpr int    max_rotation_sets       = 2048;

bool memory_bound(const Problem& problem, int64_t l2_bytes);

enum class Rotation {
    automatic,  // the rule above
    always,     // every shape rotated over 4x the L2
    never,      // one buffer set for every shape
};

const char* rotation_description(Rotation rotation);

// Buffer sets to time a shape over.
int rotation_sets(const Problem& problem, int64_t l2_bytes, Rotation rotation);

// Copies of one problem's inputs on the device, with an output buffer for
// each: a launch that cycles through the copies reads inputs the previous
// launches did not leave in the L2, as long as all the copies together are
// several times larger than the L2. Every copy starts on a 256-byte boundary,
// so any step's alignment limit holds for each.
class RotatingBuffers {
public:
    RotatingBuffers(const Problem& problem, const Inputs& inputs, int sets);
    int          sets() const { return sets_; }
    const float* A(int set) const { return A_.data() + set * a_stride_; }
    const float* B(int set) const { return B_.data() + set * b_stride_; }
    float*       X(int set) const { return X_.data() + set * x_stride_; }
    // Bytes of A, B and X over all sets.
    double bytes() const;

private:
    int64_t             a_stride_, b_stride_, x_stride_;  // elements from one set to the next
    int                 sets_;
    DeviceBuffer<float> A_, B_, X_;
};

}  // namespace harness
