// Step 06: right-looking substitution: one shuffle per row instead of a reduction.
//
// One block per batch matrix and one warp per right-hand-side column
// (blockDim = (32, k)), lane i keeping rows i and 32 + i of its column in
// x_low and x_high, as in step 05. What changes is the order of the work.
// Step 05 computed row r as a dot product of row r of A with the rows above,
// so every row waited for a five-level butterfly (~150 cycles on an H200).
// Here each register keeps b_i minus the terms known so far: when row j is
// reached, its register already holds b_j - sum_{i<j} a_ji x_i, its owner
// lane only scales it by 1/a_jj, one shuffle broadcasts x_j, and every lane
// subtracts a_ij x_j from its rows below j. The dependent chain per row drops
// from a butterfly to a multiply, one shuffle and a multiply-add (~35 cycles). Each x_i
// still accumulates its terms in the order j = 0, 1, ..., every one of them
// computed, so a NaN or Inf of an earlier row reaches every later one.
// The price: lane i now reads column j of A, sA[i*n + j], and with n = 64
// the 32 lanes' addresses are 64 floats apart: all in one bank, a 32-way
// conflict on every such load. Step 07 measures what that costs and removes it.
#include "step.cuh"

#include <iterator>

namespace step06 {

constexpr int max_n = 64;
constexpr int max_k = 32;

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

    __shared__ float sA[max_n * max_n];

    const int tid = lane + col * harness::warp_size;
#pragma unroll
    for (int i = 0; i < n * n; i += k * harness::warp_size) {
        const int idx = i + tid;
        if (idx < n * n) {
            sA[idx] = A_batch[idx];
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
            x_low *= 1.0f / sA[row * n + row];
        }
        const float x_row = __shfl_sync(0xffffffffu, x_low, row);

        if (lane > row && lane < n) {
            x_low = fmaf(-sA[lane * n + row], x_row, x_low);
        }
        if (harness::warp_size + lane < n) {
            x_high = fmaf(-sA[(harness::warp_size + lane) * n + row], x_row, x_high);
        }
    }

#pragma unroll
    for (int row = harness::warp_size; row < n; ++row) {
        if (lane == row - harness::warp_size) {
            x_high *= 1.0f / sA[row * n + row];
        }
        const float x_row = __shfl_sync(0xffffffffu, x_high, row - harness::warp_size);

        if (harness::warp_size + lane > row && harness::warp_size + lane < n) {
            x_high = fmaf(-sA[(harness::warp_size + lane) * n + row], x_row, x_high);
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

extern const harness::Step step = {
    "06_right_looking", {max_n, max_k},
    specialized,        static_cast<int>(std::size(specialized)),
    solve_tri,          [](const harness::Problem& p) { return harness::erase(plan(p)); }};

}  // namespace step06
