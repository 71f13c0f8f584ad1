// Step 08: one thread per right-hand-side column, the whole column in registers.
//
// Steps 01-07 gave each column a warp, so every solved value had to travel
// between lanes (a reduction, then a shuffle) before the next row could use
// it, and every column's warp read all of A, reciprocals included. Here thread
// c of the block owns column c: x[0..63] are its rows in registers (the loops
// over rows unroll, so x is never indexed at run time), and a solved x_j is
// already where every later row of the column needs it. The arithmetic is
// step 07's: x_j scaled by 1/a_jj, then a_ij x_j subtracted from every later
// row i, in the order j = 0, 1, ...: the output is step 07's, bit for bit.
// All threads of a warp read the same element of A at a time, a broadcast:
// no bank can conflict, so step 07's padding no longer matters (it stays).
// B and X move in rows: thread c reads B[r*k + c], so a warp reads k
// consecutive floats. A block is one warp, so k stays at most 32, as in step
// 07. The cost: a column's 2,016 multiply-adds, each with its own read of A
// from shared memory in the source (the compiler merges four entries of a row
// into one 16-byte load wherever they are 16-byte aligned), run one after
// another on one thread.
#include "step.cuh"

#include <iterator>

namespace step08 {

constexpr int max_n = 64;
constexpr int max_k = 32;
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
template <int n_template>
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

    copy_a<harness::warp_size>(A_batch, sA, n, col);

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

using Kernel = decltype(&solve_tri_kernel<0>);

// What solve_tri launches: one block per batch matrix, one thread per column
// in a warp.
static harness::Launch<Kernel> plan(const harness::Problem& p) {
    return {p.n == 64 ? solve_tri_kernel<64> : solve_tri_kernel<0>, dim3(p.ne02 * p.ne03), dim3(harness::warp_size), 0};
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

// The n = 64 instance; every k uses it.
const harness::Shape specialized[] = {{64, 32}};

extern const harness::Step step = {"08_thread_per_column",
                                   {max_n, max_k},
                                   specialized,
                                   static_cast<int>(std::size(specialized)),
                                   solve_tri,
                                   [](const harness::Problem& p) { return harness::erase(plan(p)); }};

}  // namespace step08
