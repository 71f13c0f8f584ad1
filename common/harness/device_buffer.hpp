// Device memory that frees itself; move-only.
#pragma once

#include "cuda_check.hpp"

#include <cstddef>
#include <stdexcept>
#include <string>
#include <vector>

namespace harness {

template <typename T>
class DeviceBuffer {
public:
    DeviceBuffer() = default;
    explicit DeviceBuffer(const size_t count) : count_(count) {
        if (count > 0) {
            CUDA_CHECK(cudaMalloc(reinterpret_cast<void**>(&data_), count * sizeof(T)));
        }
    }
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

// Copies a host vector into a device buffer, `offset` elements past its start,
// on the given stream, which does not synchronize with the legacy default
// stream: the caller synchronizes the stream before the data is used.
template <typename T, typename Allocator>
void upload(const DeviceBuffer<T>& device, const std::vector<T, Allocator>& host, cudaStream_t stream,
            const size_t offset = 0) {
    if (offset + host.size() > device.size()) {
        throw std::logic_error("upload: " + std::to_string(host.size()) + " elements at offset " +
                               std::to_string(offset) + " do not fit a buffer of " + std::to_string(device.size()));
    }
    CUDA_CHECK(
        cudaMemcpyAsync(device.data() + offset, host.data(), host.size() * sizeof(T), cudaMemcpyHostToDevice, stream));
}

}  // namespace harness
