// Device helpers every step's kernel uses, as ggml's common.cuh provides them
// upstream, and the one way a step launches a kernel.
#pragma once

#include "cuda_check.hpp"
#include "fast_divisor.hpp"
#include "launch_recorder.hpp"

namespace harness {

constexpr int warp_size = 32;

// Sum over the 32 lanes of a warp: a butterfly of five shuffles, after which
// every lane holds the total.
__device__ __forceinline__ float warp_reduce_sum(float x) {
#pragma unroll
    for (int offset = warp_size / 2; offset > 0; offset >>= 1) {
        x += __shfl_xor_sync(0xffffffffu, x, offset, warp_size);
    }
    return x;
}

// Every step launches through here: the launch is checked at once.
template <typename... KernelParams, typename... Args>
void launch(void (*kernel)(KernelParams...), const dim3 grid, const dim3 block, const size_t dynamic_shared_bytes,
            const cudaStream_t stream, Args... args) {
    if (LaunchRecorder* const recorder = LaunchRecorder::active()) {
        recorder->store({reinterpret_cast<const void*>(kernel), grid, block, dynamic_shared_bytes});
        return;
    }
    kernel<<<grid, block, dynamic_shared_bytes, stream>>>(args...);
    check_launch("kernel launch", __FILE__, __LINE__);
}

}  // namespace harness
