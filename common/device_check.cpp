#include "device_check.hpp"

#include "gpu.hpp"

#include <cstring>

namespace harness {

DeviceProblem::DeviceProblem(const Problem& problem, const Inputs& inputs)
    : problem_(problem),
      A_(inputs.A.size()),
      B_(inputs.B.size()),
      X_storage_(static_cast<size_t>(problem.x_elements() + 2 * guard)) {
    // Everything runs on harness::stream(), which does not synchronize with
    // the legacy default stream: copy on it, and wait for the copies.
    CUDA_CHECK(cudaMemcpyAsync(A_.data(), inputs.A.data(), inputs.A.size() * sizeof(float), cudaMemcpyHostToDevice,
                               stream()));
    CUDA_CHECK(cudaMemcpyAsync(B_.data(), inputs.B.data(), inputs.B.size() * sizeof(float), cudaMemcpyHostToDevice,
                               stream()));
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
