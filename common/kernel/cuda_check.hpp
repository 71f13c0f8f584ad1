// Every CUDA call is checked; a failure throws with the call and the place.
#pragma once

#include <cuda_runtime_api.h>

#include <stdexcept>
#include <string>

namespace harness {

class CudaError : public std::runtime_error {
public:
    CudaError(cudaError_t code, const std::string& what) : std::runtime_error(what), code_(code) {}
    cudaError_t code() const { return code_; }

private:
    cudaError_t code_;
};

void check_cuda(cudaError_t status, const char* call, const char* file, int line);

}  // namespace harness

// After a launch, CUDA_CHECK(cudaGetLastError()) reports a bad configuration at
// once; an error inside the kernel shows at the next synchronizing call,
// itself checked.
#define CUDA_CHECK(call) ::harness::check_cuda((call), #call, __FILE__, __LINE__)
