// What a step's kernel file includes: the problem and the checks a launcher
// makes (problem.hpp), checked CUDA calls, the fast division by ne02 and the
// warp's butterfly sum, as ggml's common.cuh provides them upstream.
#pragma once

#include "cuda_check.hpp"
#include "fast_divisor.hpp"
#include "problem.hpp"

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

}  // namespace harness
