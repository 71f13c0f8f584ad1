#include "device_check.hpp"

#include "gpu.hpp"

#include <algorithm>
#include <cmath>
#include <cstring>

namespace harness {

namespace {

// Copies a host vector to the start of a device buffer on harness::stream(),
// which does not synchronize with the legacy default stream: the caller
// synchronizes the stream before the data is used.
void upload(const DeviceBuffer<float>& device, const std::vector<float>& host) {
    CUDA_CHECK(cudaMemcpyAsync(device.data(), host.data(), host.size() * sizeof(float), cudaMemcpyHostToDevice,
                               stream()));
}

}  // namespace

DeviceProblem::DeviceProblem(const Problem& problem, const Inputs& inputs)
    : problem_(problem),
      A_(inputs.A.size()),
      B_(inputs.B.size()),
      X_storage_(static_cast<size_t>(problem.x_elements() + 2 * guard)) {
    upload(A_, inputs.A);
    upload(B_, inputs.B);
    CUDA_CHECK(cudaStreamSynchronize(stream()));
}

void DeviceProblem::poison_output() const {
    static_assert(poison_bits == 0xFFFFFFFFu, "cudaMemset writes bytes: the poison must repeat one byte");
    CUDA_CHECK(cudaMemsetAsync(X_storage_.data(), 0xFF, X_storage_.size() * sizeof(float), stream()));
}

std::vector<float> DeviceProblem::fetch_output() const {
    std::vector<float> all(X_storage_.size());
    CUDA_CHECK(cudaMemcpyAsync(all.data(), X_storage_.data(), all.size() * sizeof(float), cudaMemcpyDeviceToHost,
                               stream()));
    CUDA_CHECK(cudaStreamSynchronize(stream()));
    for (size_t i = 0; i < all.size(); ++i) {
        const bool in_guard = i < static_cast<size_t>(guard) || i >= all.size() - static_cast<size_t>(guard);
        uint32_t   bits;
        std::memcpy(&bits, &all[i], sizeof(bits));
        if (in_guard && bits != poison_bits) {
            throw std::runtime_error("the step wrote outside X: guard element " + std::to_string(i) +
                                     " of the output buffer was overwritten");
        }
    }
    return {all.begin() + guard, all.end() - guard};
}

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

RotatingBuffers::RotatingBuffers(const Problem& problem, const Inputs& inputs, const int sets)
    : a_stride_(set_stride(problem.a_elements())),
      b_stride_(set_stride(problem.b_elements())),
      x_stride_(set_stride(problem.x_elements())),
      sets_(at_least_one_set(sets)),
      A_(static_cast<size_t>(a_stride_ * sets)),
      B_(static_cast<size_t>(b_stride_ * sets)),
      X_(static_cast<size_t>(x_stride_ * sets)) {
    // Upload the first set, then copy it on the device to the others.
    upload(A_, inputs.A);
    upload(B_, inputs.B);
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

int RotatingBuffers::sets_for(const Problem& problem, const int64_t l2_bytes, const double multiple_of_l2,
                              const int max_sets) {
    const double set_bytes = static_cast<double>(sizeof(float)) *
                             static_cast<double>(set_stride(problem.a_elements()) + set_stride(problem.b_elements()) +
                                                 set_stride(problem.x_elements()));
    if (set_bytes <= 0.0) {
        return 1;
    }
    const double wanted = std::ceil(multiple_of_l2 * static_cast<double>(l2_bytes) / set_bytes);
    return static_cast<int>(std::clamp(wanted, 1.0, static_cast<double>(std::max(max_sets, 1))));
}

std::vector<float> run_step(const Step& step, const Problem& problem, const DeviceProblem& device) {
    device.poison_output();
    step.solve(device.A(), device.B(), device.X(), problem, stream());
    CUDA_CHECK(cudaStreamSynchronize(stream()));
    return device.fetch_output();
}

Check check_step(const Step& step, const Problem& problem, const Family family, const uint64_t seed) {
    const Inputs        inputs = make_inputs(family, problem, seed);
    const DeviceProblem device(problem, inputs);
    Check               check;
    check.X       = run_step(step, problem, device);
    check.verdict = judge(problem, family, inputs, solve_reference(problem, inputs), check.X);
    return check;
}

}  // namespace harness
