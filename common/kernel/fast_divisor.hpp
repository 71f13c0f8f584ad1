// Division by a divisor fixed at launch, shared by the kernels and the host
// (which tests it): plain C++ outside nvcc.
#pragma once

#include <cstdint>

#if defined(__CUDACC__)
#define HARNESS_HOST_DEVICE __host__ __device__ __forceinline__
#else
#define HARNESS_HOST_DEVICE inline
#endif

namespace harness {

// Division by a divisor fixed at launch, as a multiply-high, an add and a
// shift (Granlund–Montgomery, the form ggml uses): for 1 <= d < 2^31 and
// 0 <= n < 2^31, fast_div(n) == n / d. The kernels use it to split the block
// index into (i02, i03) without an integer division, which costs ~20 instructions.
struct FastDivisor {
    uint32_t multiplier;
    uint32_t shift;
    uint32_t divisor;
};

inline FastDivisor make_fast_divisor(const uint32_t d) {
    uint32_t shift = 0;
    while (shift < 32 && (uint64_t{1} << shift) < d) {
        ++shift;
    }
    const uint64_t multiplier = ((uint64_t{1} << 32) * ((uint64_t{1} << shift) - d)) / d + 1;
    return {static_cast<uint32_t>(multiplier), shift, d};
}

HARNESS_HOST_DEVICE uint32_t fast_div(const uint32_t n, const FastDivisor d) {
#ifdef __CUDA_ARCH__
    const uint32_t high = __umulhi(n, d.multiplier);
#else
    const uint32_t high = static_cast<uint32_t>((static_cast<uint64_t>(n) * d.multiplier) >> 32);
#endif
    return (high + n) >> d.shift;
}

}  // namespace harness
