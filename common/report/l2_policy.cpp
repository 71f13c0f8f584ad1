#include "l2_policy.hpp"

#include "gpu.hpp"

#include <algorithm>
#include <cmath>
#include <stdexcept>
#include <string>

namespace harness {

namespace {

// Elements from one buffer set to the next: the extent rounded up to 256 bytes.
int64_t set_stride(const int64_t elements) {
    constexpr int64_t boundary = 256 / sizeof(float);
    return (elements + boundary - 1) / boundary * boundary;
}

int at_least_one_set(const int sets) {
    if (sets < 1) {
        throw std::invalid_argument("RotatingBuffers needs at least one set, got " + std::to_string(sets));
    }
    return sets;
}

}  // namespace

bool memory_bound(const Problem& problem, const int64_t l2_bytes) {
    return problem.bytes_moved() > l2_hot_fraction * static_cast<double>(l2_bytes);
}

const char* rotation_description(const Rotation rotation) {
    switch (rotation) {
        case Rotation::automatic:
            return "shapes beyond a quarter of the L2 rotated over 4x the L2; smaller ones L2-hot";
        case Rotation::always: return "every shape rotated over 4x the L2";
        case Rotation::never: return "not rotated (L2-hot where it fits)";
    }
    return "?";
}

int rotation_sets(const Problem& problem, const int64_t l2_bytes, const Rotation rotation) {
    const bool rotate =
        rotation == Rotation::always || (rotation == Rotation::automatic && memory_bound(problem, l2_bytes));
    const double set_bytes = static_cast<double>(sizeof(float)) *
                             static_cast<double>(set_stride(problem.a_elements()) + set_stride(problem.b_elements()) +
                                                 set_stride(problem.x_elements()));
    if (!rotate || set_bytes <= 0.0) {
        return 1;
    }
    const double wanted = std::ceil(rotation_multiple_of_l2 * static_cast<double>(l2_bytes) / set_bytes);
    return static_cast<int>(std::clamp(wanted, 1.0, static_cast<double>(max_rotation_sets)));
}

RotatingBuffers::RotatingBuffers(const Problem& problem, const Inputs& inputs, const int sets)
    : a_stride_(set_stride(problem.a_elements())),
      b_stride_(set_stride(problem.b_elements())),
      x_stride_(set_stride(problem.x_elements())),
      sets_(at_least_one_set(sets)),
      A_(static_cast<size_t>(a_stride_ * sets)),
      B_(static_cast<size_t>(b_stride_ * sets)),
      X_(static_cast<size_t>(x_stride_ * sets)) {
    // Upload the first set, then copy it on the device to the others.
    upload(A_, inputs.A, stream());
    upload(B_, inputs.B, stream());
    for (int set = 1; set < sets; ++set) {
        CUDA_CHECK(cudaMemcpyAsync(A_.data() + set * a_stride_, A_.data(), inputs.A.size() * sizeof(float),
                                   cudaMemcpyDeviceToDevice, stream()));
        CUDA_CHECK(cudaMemcpyAsync(B_.data() + set * b_stride_, B_.data(), inputs.B.size() * sizeof(float),
                                   cudaMemcpyDeviceToDevice, stream()));
    }
    CUDA_CHECK(cudaMemsetAsync(X_.data(), 0, X_.size() * sizeof(float), stream()));
    CUDA_CHECK(cudaStreamSynchronize(stream()));
}

double RotatingBuffers::bytes() const {
    return static_cast<double>(sizeof(float)) * static_cast<double>(A_.size() + B_.size() + X_.size());
}

}  // namespace harness
