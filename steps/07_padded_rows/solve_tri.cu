// Step 07: pad the rows of A in shared memory, so a column is read without bank conflicts.
//
// Step 06 made each row cost one shuffle, but lane i reads column j of A,
// sA[i*64 + j]: 32 addresses 64 floats apart, all in the same one of the 32
// four-byte banks, so the load is served in 32 passes. Here a row of sA takes
// a_stride = 65 floats: lane i's address moves one bank per lane and the 32
// lanes hit 32 different banks, one pass per load. The stride is the same
// constant for every n, not n + 1: lanes a stride s apart share a bank every
// 32 / gcd(s, 32) lanes, so an odd n would make n + 1 even, and n = 63 would
// make it 64, a 32-way conflict again. The cost is one float per row (16,640
// bytes instead of 16,384) and a division by n in the load, which the n = 64
// instances turn into a shift and a mask (after a sign fix-up: the index is
// a signed int). Nothing about the arithmetic changes: the output is step
// 06's, bit for bit.
#include "step.cuh"

#include <iterator>

namespace step07 {

constexpr int max_n = 64;
constexpr int max_k = 32;
// Row stride of sA: odd, so that the 32 lanes reading one column of A (rows
// i, i + 1, ...) hit 32 different banks.
constexpr int a_stride = max_n + 1;

// n_template == 0 and k_template == 0 make the run-time instance: n and k come
// from the arguments, and the loops below cannot unroll.
template <int n_template, int k_template>
__global__ void solve_tri_kernel(const float* __restrict__ A, const float* __restrict__ B, float* __restrict__ X,
                                 const harness::FastDivisor ne02, const int64_t nb02, const int64_t nb03,
                                 const int64_t nb12, const int64_t nb13, const int64_t nb2, const int64_t nb3,
                                 const int n_arg, const int k_arg) {
    const int n = n_template == 0 ? n_arg : n_template;
    const int k = k_template == 0 ? k_arg : k_template;

    const int batch = blockIdx.x;
    const int lane  = threadIdx.x;
    const int col   = threadIdx.y;

    // batch = i03 * ne02 + i02
    const uint32_t i03 = harness::fast_div(batch, ne02);
    const uint32_t i02 = batch - i03 * ne02.divisor;

    const float* const A_batch = A + i02 * nb02 + i03 * nb03;
    const float* const B_batch = B + i02 * nb12 + i03 * nb13;
    float* const       X_batch = X + i02 * nb2 + i03 * nb3;

    __shared__ float sA[max_n * a_stride];

    const int tid = lane + col * harness::warp_size;
#pragma unroll
    for (int i = 0; i < n * n; i += k * harness::warp_size) {
        const int idx = i + tid;
        if (idx < n * n) {
            sA[idx / n * a_stride + idx % n] = A_batch[idx];
        }
    }

    // Lane i holds rows i (x_low) and 32 + i (x_high) of its column: they start
    // as B's values (0 past row n), every row above subtracts its term from
    // them, and each becomes X's value when the row loops below reach its row.
    // Apart from loop counters, they are the only variables of the kernel that
    // change.
    float x_low  = (lane < n) ? B_batch[lane * k + col] : 0.0f;
    float x_high = (harness::warp_size + lane < n) ? B_batch[(harness::warp_size + lane) * k + col] : 0.0f;
    __syncthreads();

    const int low_rows = n < harness::warp_size ? n : harness::warp_size;
#pragma unroll
    for (int row = 0; row < low_rows; ++row) {
        // No guard against a zero diagonal: upstream judged such input corrupt
        // anyway, and dropping the guard made the kernel ~30 % faster.
        if (lane == row) {
            x_low *= 1.0f / sA[row * a_stride + row];
        }
        const float x_row = __shfl_sync(0xffffffffu, x_low, row);

        if (lane > row && lane < n) {
            x_low = fmaf(-sA[lane * a_stride + row], x_row, x_low);
        }
        if (harness::warp_size + lane < n) {
            x_high = fmaf(-sA[(harness::warp_size + lane) * a_stride + row], x_row, x_high);
        }
    }

#pragma unroll
    for (int row = harness::warp_size; row < n; ++row) {
        if (lane == row - harness::warp_size) {
            x_high *= 1.0f / sA[row * a_stride + row];
        }
        const float x_row = __shfl_sync(0xffffffffu, x_high, row - harness::warp_size);

        if (harness::warp_size + lane > row && harness::warp_size + lane < n) {
            x_high = fmaf(-sA[(harness::warp_size + lane) * a_stride + row], x_row, x_high);
        }
    }

#pragma unroll
    for (int rr = 0; rr < 2; ++rr) {
        const int row = rr * harness::warp_size + lane;
        if (row < n) {
            X_batch[row * k + col] = rr == 0 ? x_low : x_high;
        }
    }
}

using Kernel = decltype(&solve_tri_kernel<0, 0>);

// The compile-time instance upstream specializes for n = 64 and this k, else
// the run-time one.
static Kernel kernel_for(const harness::Problem& p) {
    if (p.n == 64) {
        switch (p.k) {
            case 32: return solve_tri_kernel<64, 32>;
            case 16: return solve_tri_kernel<64, 16>;
            case 14: return solve_tri_kernel<64, 14>;
            case 12: return solve_tri_kernel<64, 12>;
            case 10: return solve_tri_kernel<64, 10>;
            case 8: return solve_tri_kernel<64, 8>;
            case 6: return solve_tri_kernel<64, 6>;
            case 4: return solve_tri_kernel<64, 4>;
            case 2: return solve_tri_kernel<64, 2>;
            case 1: return solve_tri_kernel<64, 1>;
            default: break;
        }
    }
    return solve_tri_kernel<0, 0>;
}

// What solve_tri launches: one block per batch matrix, one warp per column.
static harness::Launch<Kernel> plan(const harness::Problem& p) {
    return {kernel_for(p), dim3(p.ne02 * p.ne03), dim3(harness::warp_size, p.k), 0};
}

void solve_tri(const float* const A, const float* const B, float* const X, const harness::Problem& p,
               const cudaStream_t stream) {
    harness::validate(p, {max_n, max_k}, A, B, X);
    if (p.batch() == 0) {
        return;
    }
    const harness::Launch<Kernel> launch = plan(p);
    launch.kernel<<<launch.grid, launch.block, launch.shared_bytes, stream>>>(
        A, B, X, harness::make_fast_divisor(p.ne02), p.nb02, p.nb03, p.nb12, p.nb13, p.nb2, p.nb3,
        static_cast<int>(p.n), static_cast<int>(p.k));
    CUDA_CHECK(cudaGetLastError());
}

const harness::Shape specialized[] = {{64, 32}, {64, 16}, {64, 14}, {64, 12}, {64, 10},
                                      {64, 8},  {64, 6},  {64, 4},  {64, 2},  {64, 1}};

extern const harness::Step step = {"07_padded_rows", {max_n, max_k},
                                   specialized,      static_cast<int>(std::size(specialized)),
                                   solve_tri,        [](const harness::Problem& p) { return harness::erase(plan(p)); }};

}  // namespace step07
