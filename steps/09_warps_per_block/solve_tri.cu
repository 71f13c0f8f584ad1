// Step 09: a block of one warp per 32 columns, so k reaches 128.
//
// Step 08's block is one warp, so it takes at most 32 columns, while
// Qwen3-Next's chunked delta rule solves 64. Here a block has one warp per 32
// columns, rounded up to a power of two (1, 2 or 4 warps, so k <= 128), and
// the warps are a template parameter, so that the copy of A, shared by all the
// block's threads, still unrolls: one instance per warp count, for n = 64 and
// for the run-time n. Threads past column k load zeros and store nothing. At
// k <= 32 the kernel is step 08's with the warp count fixed at 1. The
// arithmetic is step 08's: the output is the same, bit for bit.
#include "step.cuh"

#include <iterator>

namespace step09 {

constexpr int max_n = 64;
constexpr int max_k = 128;
// Row stride of sA: step 07's, which every broadcast read leaves conflict-free too.
constexpr int a_stride = max_n + 1;

// A into shared memory, row r at sA[r * a_stride]: thread tid of the block
// copies every threads-th element.
template <int threads>
__device__ __forceinline__ void copy_a(const float* const A_batch, float* const sA, const int n, const int tid) {
#pragma unroll
    for (int i = 0; i < n * n; i += threads) {
        const int idx = i + tid;
        if (idx < n * n) {
            sA[idx / n * a_stride + idx % n] = A_batch[idx];
        }
    }
}

// Thread col's column of B into x: 0 past row n, and in the threads past
// column k.
__device__ __forceinline__ void load_column(const float* const B_batch, float (&x)[max_n], const int n, const int k,
                                            const int col) {
#pragma unroll
    for (int row = 0; row < max_n; ++row) {
        x[row] = (row < n && col < k) ? B_batch[row * k + col] : 0.0f;
    }
}

// Forward substitution of one column held in registers, A in shared memory:
// x_j scaled by 1/a_jj, then a_ij x_j subtracted from every later row i.
__device__ __forceinline__ void solve_column(const float* const sA, float (&x)[max_n], const int n) {
#pragma unroll
    for (int j = 0; j < max_n; ++j) {
        if (j >= n) {
            break;
        }
        // No guard against a zero diagonal: upstream judged such input corrupt
        // anyway, and dropping the guard made the kernel ~30 % faster.
        x[j] *= 1.0f / sA[j * a_stride + j];
#pragma unroll
        for (int i = j + 1; i < max_n; ++i) {
            if (i < n) {
                x[i] = fmaf(-sA[i * a_stride + j], x[j], x[i]);
            }
        }
    }
}

// Thread col's column of x into X: the rows before n, if col < k.
__device__ __forceinline__ void store_column(float* const X_batch, const float (&x)[max_n], const int n, const int k,
                                             const int col) {
    if (col < k) {
#pragma unroll
        for (int row = 0; row < max_n; ++row) {
            if (row < n) {
                X_batch[row * k + col] = x[row];
            }
        }
    }
}

// n_template == 0 makes the run-time instance: n comes from the argument. Both
// unroll the row loops to max_n, so x stays in registers; the run-time one
// skips rows past n by a branch.
// warps is the block's warps, one per 32 columns, fixed at compile time so
// that the copy of A unrolls.
template <int n_template, int warps>
__global__ void solve_tri_kernel(const float* __restrict__ A, const float* __restrict__ B, float* __restrict__ X,
                                 const harness::FastDivisor ne02, const int64_t nb02, const int64_t nb03,
                                 const int64_t nb12, const int64_t nb13, const int64_t nb2, const int64_t nb3,
                                 const int n_arg, const int k) {
    const int n = n_template == 0 ? n_arg : n_template;

    const int batch = blockIdx.x;
    const int col   = threadIdx.x;

    // batch = i03 * ne02 + i02
    const uint32_t i03 = harness::fast_div(batch, ne02);
    const uint32_t i02 = batch - i03 * ne02.divisor;

    const float* const A_batch = A + i02 * nb02 + i03 * nb03;
    const float* const B_batch = B + i02 * nb12 + i03 * nb13;
    float* const       X_batch = X + i02 * nb2 + i03 * nb3;

    __shared__ float sA[max_n * a_stride];

    copy_a<warps * harness::warp_size>(A_batch, sA, n, col);

    // Thread col holds its column of B (0 past row n, and in the threads past
    // column k), and each row becomes X's value when solve_column reaches it.
    // Apart from loop counters, these are the only variables of the kernel
    // that change.
    float x[max_n];
    load_column(B_batch, x, n, k, col);
    __syncthreads();

    solve_column(sA, x, n);
    store_column(X_batch, x, n, k, col);
}

using Kernel = decltype(&solve_tri_kernel<0, 1>);

// One warp per 32 columns, rounded up to a power of two: fewer instances.
static int warps_for(const int64_t k) {
    return k <= harness::warp_size ? 1 : k <= 2 * harness::warp_size ? 2 : 4;
}

template <int n_template>
static Kernel kernel_for(const int warps) {
    switch (warps) {
        case 1: return solve_tri_kernel<n_template, 1>;
        case 2: return solve_tri_kernel<n_template, 2>;
        default: return solve_tri_kernel<n_template, 4>;
    }
}

// What solve_tri launches: one block per batch matrix, one thread per column.
static harness::Launch<Kernel> plan(const harness::Problem& p) {
    const int warps = warps_for(p.k);
    return {p.n == 64 ? kernel_for<64>(warps) : kernel_for<0>(warps), dim3(p.ne02 * p.ne03),
            dim3(warps * harness::warp_size), 0};
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

// One shape for each n = 64 instance; every k up to the warps' columns uses it.
const harness::Shape specialized[] = {{64, 32}, {64, 64}, {64, 128}};

extern const harness::Step step = {"09_warps_per_block",
                                   {max_n, max_k},
                                   specialized,
                                   static_cast<int>(std::size(specialized)),
                                   solve_tri,
                                   [](const harness::Problem& p) { return harness::erase(plan(p)); }};

}  // namespace step09
