// Step 18: in blocks of 64 or more threads, thread r copies row r of A.
//
// Since step 14 a block's threads take A's 16-byte chunks in turn: thread
// tid takes chunks tid, tid + threads, ..., and for each one computes its row
// and column from its place in the matrix, tests whether it lies wholly above
// the diagonal, and computes where that row starts in sA. Every block of
// step 17 at n = 64 has 64 threads or more, one per row of A. Here, where n is
// a multiple of 4, thread r copies row r: its chunks 0, 4, 8, ... up to the
// diagonal, each at a fixed offset from the row's start in A and in sA, so
// that the unrolled loop needs no division, no remainder and no row lookup,
// only a compare with r per chunk. The threads of a warp then copy 32
// different rows at once. The same entries are copied, and the arithmetic is
// step 17's: the output is the same, bit for bit.
#include "step.cuh"

#include <cuda_pipeline_primitives.h>

#include <iterator>

namespace step18 {

constexpr int max_n = 64;
constexpr int max_k = 128;
// Row stride of sA: a multiple of 4 floats, so that every row starts on a
// 16-byte boundary and four consecutive entries load as one float4; and 4 more
// than a row's 64, so that row r + 1 starts four banks after row r.
constexpr int a_stride = max_n + 4;
// Warps that registers should let an SM hold at once: 16, so at most 128
// registers a thread.
constexpr int resident_warps = 16;
// Rows are solved, and A's rows read, this many columns at a time.
constexpr int panel = 4;

// One 16-byte load from shared memory, written out in PTX. A plain float4 load
// compiles to the same LDS.128 loads; the PTX changes the register allocation
// and the instruction order (in step 11, 127 registers against 154). The asm
// statement itself does that: step 11's PTX is the same without volatile and
// without the "memory" clobber (docs/evidence/11_panel_loads.md).
__device__ __forceinline__ float4 load_shared_float4(const float* const p) {
    float4 v;
    asm volatile("ld.shared.v4.f32 {%0, %1, %2, %3}, [%4];"
                 : "=f"(v.x), "=f"(v.y), "=f"(v.z), "=f"(v.w)
                 : "r"(static_cast<uint32_t>(__cvta_generic_to_shared(p)))
                 : "memory");
    return v;
}
// A, B and X, and every batch stride, are aligned to this: A is copied in 16-byte chunks.
constexpr int alignment_bytes = 16;
constexpr int chunk           = alignment_bytes / static_cast<int>(sizeof(float));

// Starts the copy of A's lower triangle into shared memory, row r at
// sA[r * a_stride], with cp.async: thread tid of the block takes every
// threads-th 16-byte chunk. Nothing waits here. With by_rows (a block of 64
// or more threads, n a multiple of 4), thread r copies row r instead, each
// chunk at a fixed offset from the row's start.
template <int threads, bool by_rows = threads >= max_n>
__device__ __forceinline__ void copy_a(const float* const A_batch, float* const sA, const int n, const int tid) {
    if (by_rows && n % chunk == 0) {
        if (tid < n) {
#pragma unroll
            for (int c = 0; c < max_n; c += chunk) {
                if (c <= tid) {
                    __pipeline_memcpy_async(&sA[tid * a_stride + c], &A_batch[tid * n + c], alignment_bytes);
                }
            }
        }
        return;
    }
    const int elements = n * n;
#pragma unroll
    for (int i = 0; i < elements; i += chunk * threads) {
        const int e = i + chunk * tid;
        if (e >= elements) {
            continue;
        }
        int row = e / n;
        int c   = e % n;
        // Wholly above the diagonal: never read, so never copied.
        if (c > row && c + chunk - 1 < n) {
            continue;
        }
        if (n % chunk == 0) {
            __pipeline_memcpy_async(&sA[row * a_stride + c], &A_batch[e], alignment_bytes);
        } else {
#pragma unroll
            for (int q = 0; q < chunk; ++q) {
                if (c <= row && e + q < elements) {
                    __pipeline_memcpy_async(&sA[row * a_stride + c], &A_batch[e + q], sizeof(float));
                }
                if (++c == n) {
                    c = 0;
                    ++row;
                }
            }
        }
    }
}

// Thread t's rows t, t + T, ... of column col of B into x: 0 past row n, and
// in the threads past column k.
template <int T>
__device__ __forceinline__ void load_column(const float* const B_batch, float (&x)[max_n / T], const int n, const int k,
                                            const int col, const int t) {
#pragma unroll
    for (int s = 0; s < max_n / T; ++s) {
        const int row = t + s * T;
        x[s]          = (row < n && col < k) ? B_batch[row * k + col] : 0.0f;
    }
}

// Forward substitution of one column whose rows t, t + T, ... thread t holds
// in registers, A in shared memory, in panels of four columns. The T threads
// of a column are T neighbouring lanes of one warp.
template <int T>
__device__ __forceinline__ void solve_column(const float* const sA, float (&x)[max_n / T], const int n, const int t) {
#pragma unroll
    for (int j0 = 0; j0 < max_n; j0 += panel) {
        if (j0 >= n) {
            break;
        }
        // The panel's rows as their owners hold them: every term of the rows
        // above already taken.
        float v[panel];
#pragma unroll
        for (int q = 0; q < panel; ++q) {
            if constexpr (T == 1) {
                v[q] = x[j0 + q];
            } else {
                v[q] = __shfl_sync(0xffffffffu, x[(j0 + q) / T], (j0 + q) % T, T);
            }
        }
        // The block on the diagonal, solved by every thread of the column:
        // rows j0..j0+3 take their terms of the panel's columns in order, each
        // solved before the next row uses it.
#pragma unroll
        for (int row = j0; row < j0 + panel; ++row) {
            const float4 a            = load_shared_float4(&sA[row * a_stride + j0]);
            const float  a_row[panel] = {a.x, a.y, a.z, a.w};
#pragma unroll
            for (int j = j0; j < row; ++j) {
                v[row - j0] = fmaf(-a_row[j - j0], v[j - j0], v[row - j0]);
            }
            // No guard against a zero diagonal: upstream judged such input
            // corrupt anyway, and dropping the guard made the kernel ~30 % faster.
            v[row - j0] *= 1.0f / a_row[row - j0];
        }
        // Each of the panel's rows keeps its solved value in its owner.
#pragma unroll
        for (int q = 0; q < panel; ++q) {
            if (T == 1 || t == (j0 + q) % T) {
                x[(j0 + q) / T] = v[q];
            }
        }
        // Every row of this thread below the panel takes the panel's four
        // terms, in order, from one 16-byte load; a row at or above it keeps
        // its value. (Rows past n take terms too, of entries never copied:
        // they feed no row before n, and are never stored.)
#pragma unroll
        for (int s = 0; s < max_n / T; ++s) {
            const int i = t + s * T;
            if (s * T + T - 1 >= j0 + panel) {
                const float4 a = load_shared_float4(&sA[i * a_stride + j0]);
                float        y = fmaf(-a.x, v[0], x[s]);
                y              = fmaf(-a.y, v[1], y);
                y              = fmaf(-a.z, v[2], y);
                y              = fmaf(-a.w, v[3], y);
                x[s]           = (s * T >= j0 + panel || i >= j0 + panel) ? y : x[s];
            }
        }
    }
}

// Thread t's rows of column col of x into X: those before n, if col < k.
template <int T>
__device__ __forceinline__ void store_column(float* const X_batch, const float (&x)[max_n / T], const int n,
                                             const int k, const int col, const int t) {
    if (col < k) {
#pragma unroll
        for (int s = 0; s < max_n / T; ++s) {
            const int row = t + s * T;
            if (row < n) {
                X_batch[row * k + col] = x[s];
            }
        }
    }
}

// n_template == 0 makes the run-time instance: n comes from the argument. Both
// unroll the row loops to max_n, so x stays in registers; the run-time one
// skips panels and rows past n by a branch, and keeps whatever the rows past n
// hold out of the rows before n (row i only takes terms of rows j < i).
// T threads share each of the block's columns; T * columns, the block's
// threads, is fixed at compile time so that the copy of A unrolls.
template <int n_template, int T, int columns>
__global__ void __launch_bounds__(T* columns, resident_warps* harness::warp_size / (T * columns))
    solve_tri_kernel(const float* __restrict__ A, const float* __restrict__ B, float* __restrict__ X,
                     const harness::FastDivisor ne02, const int64_t nb02, const int64_t nb03, const int64_t nb12,
                     const int64_t nb13, const int64_t nb2, const int64_t nb3, const int n_arg, const int k) {
    const int n = n_template == 0 ? n_arg : n_template;

    const int batch = blockIdx.x;
    const int tid   = threadIdx.x;
    const int t     = tid % T;
    const int col   = blockIdx.y * columns + tid / T;

    // batch = i03 * ne02 + i02
    const uint32_t i03 = harness::fast_div(batch, ne02);
    const uint32_t i02 = batch - i03 * ne02.divisor;

    const float* const A_batch = A + i02 * nb02 + i03 * nb03;
    const float* const B_batch = B + i02 * nb12 + i03 * nb13;
    float* const       X_batch = X + i02 * nb2 + i03 * nb3;

    __shared__ __align__(16) float sA[max_n * a_stride];

    copy_a<T * columns>(A_batch, sA, n, tid);
    __pipeline_commit();

    // Thread t holds its rows of column col of B (0 past row n, and in the
    // threads past column k), and each row becomes X's value when solve_column
    // reaches it. Apart from loop counters, these are the only variables of
    // the kernel that change.
    float x[max_n / T];
    load_column<T>(B_batch, x, n, k, col, t);
    // This thread's copies have landed; the barrier waits for every thread's.
    __pipeline_wait_prior(0);
    __syncthreads();

    solve_column<T>(sA, x, n, t);
    store_column<T>(X_batch, x, n, k, col, t);
}

using Kernel = decltype(&solve_tri_kernel<0, 1, 64>);

// One thread per column (T = 1) needs a warp per 32 columns of every matrix;
// from this many warps in all, the batch alone is taken to give the GPU's
// schedulers enough work (about two warps for each of an H200's 132 SMs x 4
// schedulers). An untested choice: no committed measurement varies it.
constexpr int64_t enough_warps = 1024;

// Threads per column and columns per block, by shape: see the top of the file.
struct Split {
    int T;
    int columns;
};

static Split split_for(const harness::Problem& p) {
    const int64_t warps_per_matrix = (p.k + harness::warp_size - 1) / harness::warp_size;
    const bool    large_batch      = p.batch() * warps_per_matrix >= enough_warps;
    if (p.k <= harness::warp_size) {
        return large_batch ? Split{2, 32} : Split{8, 8};
    }
    if (large_batch) {
        return {1, p.k <= 2 * harness::warp_size ? 64 : 128};
    }
    return {2, 64};
}

template <int n_template>
static Kernel kernel_for(const Split split) {
    if (split.T == 8) {
        return solve_tri_kernel<n_template, 8, 8>;
    }
    if (split.T == 2) {
        return split.columns == 32 ? solve_tri_kernel<n_template, 2, 32> : solve_tri_kernel<n_template, 2, 64>;
    }
    return split.columns == 64 ? solve_tri_kernel<n_template, 1, 64> : solve_tri_kernel<n_template, 1, 128>;
}

// What solve_tri launches: one block per batch matrix and group of columns.
static harness::Launch<Kernel> plan(const harness::Problem& p) {
    const Split split  = split_for(p);
    const int   groups = static_cast<int>((p.k + split.columns - 1) / split.columns);
    return {p.n == 64 ? kernel_for<64>(split) : kernel_for<0>(split), dim3(p.ne02 * p.ne03, groups),
            dim3(split.T * split.columns), 0};
}

void solve_tri(const float* const A, const float* const B, float* const X, const harness::Problem& p,
               const cudaStream_t stream) {
    harness::validate(p, {max_n, max_k, alignment_bytes}, A, B, X);
    if (p.batch() == 0) {
        return;
    }
    const harness::Launch<Kernel> launch = plan(p);
    launch.kernel<<<launch.grid, launch.block, launch.shared_bytes, stream>>>(
        A, B, X, harness::make_fast_divisor(p.ne02), p.nb02, p.nb03, p.nb12, p.nb13, p.nb2, p.nb3,
        static_cast<int>(p.n), static_cast<int>(p.k));
    CUDA_CHECK(cudaGetLastError());
}

// Shapes that run the n = 64 instances: small batches (T = 8; T = 2, 64
// columns) and large ones (T = 2, 32 columns; T = 1, 64 and 128 columns).
const harness::Shape specialized[] = {{64, 6, 3, 2},    {64, 64, 3, 2},   {64, 128, 3, 2},
                                      {64, 32, 32, 32}, {64, 64, 32, 16}, {64, 128, 16, 16}};

extern const harness::Step step = {"18_row_per_thread_copy",
                                   {max_n, max_k, alignment_bytes},
                                   specialized,
                                   static_cast<int>(std::size(specialized)),
                                   solve_tri,
                                   [](const harness::Problem& p) { return harness::erase(plan(p)); }};

}  // namespace step18
