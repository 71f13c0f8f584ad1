#include "device_problem.hpp"

#include "gpu.hpp"

#include <chrono>
#include <cstdio>
#include <cstring>
#include <stdexcept>
#include <string>

namespace harness {

namespace {

// Says on stderr what a copy of many gigabytes is doing while it runs (it
// takes seconds), and how long it took; a small copy passes silently.
class CopyNote {
public:
    CopyNote(const size_t bytes, const char* const what) : loud_(bytes >= (size_t{1} << 32)), what_(what) {
        if (loud_) {
            std::fprintf(stderr, "%s: %.1f GiB\n", what, static_cast<double>(bytes) / (1u << 30));
        }
    }
    ~CopyNote() {
        if (loud_) {
            const std::chrono::duration<double> took = std::chrono::steady_clock::now() - start_;
            std::fprintf(stderr, "%s: done in %.1f s\n", what_, took.count());
        }
    }
    CopyNote(const CopyNote&)            = delete;
    CopyNote& operator=(const CopyNote&) = delete;

private:
    const bool                                  loud_;
    const char* const                           what_;
    const std::chrono::steady_clock::time_point start_ = std::chrono::steady_clock::now();
};

}  // namespace

DeviceProblem::DeviceProblem(const Problem& problem, const Inputs& inputs, const int64_t offset)
    : offset_(offset),
      A_(inputs.A.size() + static_cast<size_t>(offset)),
      B_(inputs.B.size() + static_cast<size_t>(offset)),
      X_storage_(static_cast<size_t>(offset + problem.x_elements() + 2 * guard)) {
    const CopyNote note((inputs.A.size() + inputs.B.size()) * sizeof(float), "copying A and B to the GPU");
    upload(A_, inputs.A, stream(), static_cast<size_t>(offset_));
    upload(B_, inputs.B, stream(), static_cast<size_t>(offset_));
    CUDA_CHECK(cudaStreamSynchronize(stream()));
}

void DeviceProblem::poison_output() const {
    static_assert(poison_bits == 0xFFFFFFFFu, "cudaMemset writes bytes: the poison must repeat one byte");
    CUDA_CHECK(cudaMemsetAsync(X_storage_.data(), 0xFF, X_storage_.size() * sizeof(float), stream()));
}

HostFloats DeviceProblem::fetch_output() const {
    // Poisoned on all cores: the pages are touched before the copy needs them.
    HostFloats     X = filled_floats(static_cast<int64_t>(X_storage_.size()) - offset_ - 2 * guard, poison_value());
    const CopyNote note(X.size() * sizeof(float), "copying X back from the GPU");
    float          before[guard], after[guard];
    float* const   start = X_storage_.data() + offset_;
    CUDA_CHECK(cudaMemcpyAsync(before, start, sizeof(before), cudaMemcpyDeviceToHost, stream()));
    CUDA_CHECK(cudaMemcpyAsync(X.data(), start + guard, X.size() * sizeof(float), cudaMemcpyDeviceToHost, stream()));
    CUDA_CHECK(cudaMemcpyAsync(after, start + guard + X.size(), sizeof(after), cudaMemcpyDeviceToHost, stream()));
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

HostFloats run_step(const Step& step, const Problem& problem, const DeviceProblem& device) {
    device.poison_output();
    step.solve(device.A(), device.B(), device.X(), problem, stream());
    CUDA_CHECK(cudaStreamSynchronize(stream()));
    return device.fetch_output();
}

}  // namespace harness
