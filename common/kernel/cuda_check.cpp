#include "cuda_check.hpp"

namespace harness {

void check_cuda(const cudaError_t status, const char* call, const char* file, const int line) {
    if (status != cudaSuccess) {
        throw CudaError(status, std::string(file) + ":" + std::to_string(line) + ": " + call +
                                    " failed: " + cudaGetErrorName(status) + " (" + cudaGetErrorString(status) + ")");
    }
}

}  // namespace harness
