// Every CUDA call is checked; a failure throws with the call and the place.
#pragma once

#include <cuda_runtime_api.h>

#include <cstddef>
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

// Checks the launch just made: a bad configuration shows here, an error
// inside a kernel shows at the next synchronizing call, itself checked.
void check_launch(const char* kernel, const char* file, int line);

// Owns device memory; move-only.
template <typename T>
class DeviceBuffer {
public:
    DeviceBuffer() = default;
    explicit DeviceBuffer(size_t count);
    ~DeviceBuffer() { release(); }
    DeviceBuffer(DeviceBuffer&& other) noexcept : data_(other.data_), count_(other.count_) {
        other.data_  = nullptr;
        other.count_ = 0;
    }
    DeviceBuffer& operator=(DeviceBuffer&& other) noexcept {
        if (this != &other) {
            release();
            data_        = other.data_;
            count_       = other.count_;
            other.data_  = nullptr;
            other.count_ = 0;
        }
        return *this;
    }
    DeviceBuffer(const DeviceBuffer&)            = delete;
    DeviceBuffer& operator=(const DeviceBuffer&) = delete;

    T*     data() const { return data_; }
    size_t size() const { return count_; }

private:
    void release() noexcept {
        if (data_ != nullptr) {
            cudaFree(data_);  // cannot throw from a destructor; a failed free leaks at worst
        }
        data_ = nullptr;
    }
    T*     data_  = nullptr;
    size_t count_ = 0;
};

}  // namespace harness

#define CUDA_CHECK(call) ::harness::check_cuda((call), #call, __FILE__, __LINE__)

template <typename T>
harness::DeviceBuffer<T>::DeviceBuffer(const size_t count) : count_(count) {
    if (count > 0) {
        CUDA_CHECK(cudaMalloc(reinterpret_cast<void**>(&data_), count * sizeof(T)));
    }
}
