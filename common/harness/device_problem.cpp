#include "device_problem.hpp"

#include "gpu.hpp"

#include <cstring>
#include <stdexcept>
#include <string>

namespace harness {

DeviceProblem::DeviceProblem(const Problem& problem, const Inputs& inputs)
    : A_(inputs.A.size()), B_(inputs.B.size()), X_storage_(static_cast<size_t>(problem.x_elements() + 2 * guard)) {
    upload(A_, inputs.A, stream());
    upload(B_, inputs.B, stream());
    CUDA_CHECK(cudaStreamSynchronize(stream()));
}

void DeviceProblem::poison_output() const {
    static_assert(poison_bits == 0xFFFFFFFFu, "cudaMemset writes bytes: the poison must repeat one byte");
    CUDA_CHECK(cudaMemsetAsync(X_storage_.data(), 0xFF, X_storage_.size() * sizeof(float), stream()));
}

std::vector<float> DeviceProblem::fetch_output() const {
    std::vector<float> X(X_storage_.size() - 2 * guard);
    float              before[guard], after[guard];
    CUDA_CHECK(cudaMemcpyAsync(before, X_storage_.data(), sizeof(before), cudaMemcpyDeviceToHost, stream()));
    CUDA_CHECK(cudaMemcpyAsync(X.data(), X_storage_.data() + guard, X.size() * sizeof(float), cudaMemcpyDeviceToHost,
                               stream()));
    CUDA_CHECK(
        cudaMemcpyAsync(after, X_storage_.data() + guard + X.size(), sizeof(after), cudaMemcpyDeviceToHost, stream()));
    CUDA_CHECK(cudaStreamSynchronize(stream()));
    for (int64_t i = 0; i < guard; ++i) {
        for (const float* const side : {before, after}) {
            uint32_t bits;
            std::memcpy(&bits, &side[i], sizeof(bits));
            if (bits != poison_bits) {
                throw std::runtime_error(std::string("the step wrote outside X: guard element ") + std::to_string(i) +
                                         (side == before ? " before X" : " after X") + " was overwritten");
            }
        }
    }
    return X;
}

std::vector<float> run_step(const Step& step, const Problem& problem, const DeviceProblem& device) {
    device.poison_output();
    step.solve(device.A(), device.B(), device.X(), problem, stream());
    CUDA_CHECK(cudaStreamSynchronize(stream()));
    return device.fetch_output();
}

}  // namespace harness
