// Step 10: persistent blocks that copy the next matrix in while they solve this one.
//
// In step 09 a block loads its matrix, waits for it, solves, stores and ends;
// while it solves, it has nothing in flight, and while it waits, its SM's
// lanes idle unless other blocks have work. With many matrices the memory
// system then sees bursts instead of a steady stream. Here the grid holds only
// as many blocks as fit on the GPU at once, and each block walks the batch
// with a stride of the grid: matrix m, m + grid, m + 2*grid, ... Before it
// solves one matrix it starts the copy of its next one, with cp.async: the
// copy goes from global to shared memory without passing through registers,
// so the solve runs while the copy is in flight. A is double-buffered (the
// solve reads one buffer while the next matrix fills the other); B passes
// through shared memory once per matrix, as a flat array of 16-byte chunks,
// and each thread takes its column from there into registers before the next
// B may overwrite it. Which entries of A are copied is step 09's choice (the
// lower triangle, in 16-byte chunks where n allows), and the arithmetic is
// unchanged: the output is step 09's, bit for bit. Shared memory grows to
// 2 x 16 KB for A plus 8 KB of B per warp, so fewer blocks fit on an SM.
#include "kernel_support.cuh"
#include "problem.hpp"

#include <cuda_pipeline_primitives.h>

#include <algorithm>

#include <iterator>

namespace step10 {

constexpr int max_n = 64;
constexpr int max_k = 128;
// Row stride of sA: a multiple of 4 floats, so that every row starts on a
// 16-byte boundary and four consecutive entries load as one float4.
constexpr int a_stride = max_n;
// Rows are solved, and A's rows read, this many columns at a time.
constexpr int panel = 4;
// Rows below a panel are updated this many at a time, their terms interleaved.
constexpr int group = 8;

// One 16-byte load from shared memory, written out in PTX: left to itself, the
// compiler splits a float4 load whose four parts are used one by one into four
// 4-byte loads, four instructions where one does.
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
constexpr int chunk = alignment_bytes / static_cast<int>(sizeof(float));

// Floats of shared memory a block of `warps` warps uses: two buffers of A and
// one of B, n x k floats at most, k up to the block's columns.
template <int warps>
constexpr int shared_floats = 2 * max_n * a_stride + max_n * warps * harness::warp_size;

// Starts the copy of one matrix's A (its lower triangle) into sA and of its B
// into sB, both with cp.async: nothing waits for them here.
template <int n_template, int warps>
__device__ __forceinline__ void start_copy(const float* const A_batch, const float* const B_batch, float* const sA,
                                           float* const sB, const int n, const int k) {
    constexpr int threads = warps * harness::warp_size;
    const int     col     = threadIdx.x;
    const int     elements = n * n;
#pragma unroll
    for (int i = 0; i < max_n * max_n; i += chunk * threads) {
        const int e = i + chunk * col;
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
    // B as it lies in memory, n x k floats: thread c later reads sB[r*k + c].
    const int b_elements = n * k;
#pragma unroll
    for (int i = 0; i < max_n * threads; i += chunk * threads) {
        const int e = i + chunk * col;
        if (e + chunk <= b_elements) {
            __pipeline_memcpy_async(&sB[e], &B_batch[e], alignment_bytes);
        } else {
#pragma unroll
            for (int q = 0; q < chunk; ++q) {
                if (e + q < b_elements) {
                    __pipeline_memcpy_async(&sB[e + q], &B_batch[e + q], sizeof(float));
                }
            }
        }
    }
}

// n_template == 0 makes the run-time instance: n comes from the argument. Both
// unroll the row loops to max_n, so x stays in registers; the run-time one
// skips a panel or a group of rows past n by a branch, and keeps whatever the
// rows past n hold out of the rows before n (row i only takes terms of rows
// j < i).
// warps is the block's warps, one per 32 columns, fixed at compile time so
// that the copies unroll.
template <int n_template, int warps>
__global__ void solve_tri_kernel(const float* __restrict__ A, const float* __restrict__ B, float* __restrict__ X,
                                 const harness::FastDivisor ne02, const int64_t nb02, const int64_t nb03,
                                 const int64_t nb12, const int64_t nb13, const int64_t nb2, const int64_t nb3,
                                 const int n_arg, const int k, const int batches) {
    const int n = n_template == 0 ? n_arg : n_template;

    const int col = threadIdx.x;

    extern __shared__ __align__(16) float shared[];
    float* const sB = shared + 2 * max_n * a_stride;

    // Matrix batch of the tensors: batch = i03 * ne02 + i02.
    const auto matrix_offsets = [&](const uint32_t batch, int64_t& a, int64_t& b, int64_t& x) {
        const uint32_t i03 = harness::fast_div(batch, ne02);
        const uint32_t i02 = batch - i03 * ne02.divisor;
        a = i02 * nb02 + i03 * nb03;
        b = i02 * nb12 + i03 * nb13;
        x = i02 * nb2 + i03 * nb3;
    };

    int64_t a_offset, b_offset, x_offset;
    matrix_offsets(blockIdx.x, a_offset, b_offset, x_offset);
    start_copy<n_template, warps>(A + a_offset, B + b_offset, shared, sB, n, k);
    __pipeline_commit();

    // 64-bit: batch + gridDim.x may pass 2^31 - 1 on the last round.
    int buffer = 0;
    for (int64_t batch = blockIdx.x; batch < batches; batch += gridDim.x, buffer ^= 1) {
        float* const  X_batch = X + x_offset;
        const float* const sA = shared + buffer * max_n * a_stride;

        // This matrix's copies are the only ones in flight: wait for this
        // thread's, then the barrier waits for every thread's.
        __pipeline_wait_prior(0);
        __syncthreads();

        // Thread col holds its column of B (0 past row n, and in the threads past
        // column k), and each row becomes X's value when the loops below reach it.
        // Apart from loop counters, these are the only variables of the kernel
        // that change.
        float x[max_n];
#pragma unroll
        for (int row = 0; row < max_n; ++row) {
            x[row] = (row < n && col < k) ? sB[row * k + col] : 0.0f;
        }
        // Every thread has its column, and is done with the other buffer of A
        // (the previous matrix's): both may be overwritten.
        __syncthreads();

        const int64_t next = batch + gridDim.x;
        if (next < batches) {
            matrix_offsets(next, a_offset, b_offset, x_offset);
            start_copy<n_template, warps>(A + a_offset, B + b_offset, shared + (buffer ^ 1) * max_n * a_stride, sB,
                                          n, k);
        }
        __pipeline_commit();

#pragma unroll
        for (int j0 = 0; j0 < max_n; j0 += panel) {
            if (j0 >= n) {
                break;
            }
            // The block on the diagonal: rows j0..j0+3 take their terms of the
            // panel's columns in order, each solved before the next row uses it.
#pragma unroll
            for (int row = j0; row < j0 + panel; ++row) {
                const float4 a = load_shared_float4(&sA[row * a_stride + j0]);
                const float  a_row[panel] = {a.x, a.y, a.z, a.w};
#pragma unroll
                for (int j = j0; j < row; ++j) {
                    x[row] = fmaf(-a_row[j - j0], x[j], x[row]);
                }
                // No guard against a zero diagonal: upstream judged such input
                // corrupt anyway, and dropping the guard made the kernel ~30 % faster.
                x[row] *= 1.0f / a_row[row - j0];
            }
            // Every row below the panel takes the panel's four terms, from one
            // 16-byte load per row. The rows go in groups, and within a group the
            // terms go column by column across its rows: consecutive multiply-adds
            // are independent, and a warp alone on its scheduler need not wait out
            // each one's latency (4 cycles). The compiler finds such an order by
            // itself too: written row by row, the kernel timed the same.
#pragma unroll
            for (int i0 = j0 + panel; i0 < max_n; i0 += group) {
                if (i0 >= n) {
                    break;
                }
                float a[group][panel];
#pragma unroll
                for (int r = 0; r < group; ++r) {
                    if (i0 + r < max_n) {
                        const float4 v = load_shared_float4(&sA[(i0 + r) * a_stride + j0]);
                        a[r][0] = v.x;
                        a[r][1] = v.y;
                        a[r][2] = v.z;
                        a[r][3] = v.w;
                    }
                }
#pragma unroll
                for (int j = 0; j < panel; ++j) {
#pragma unroll
                    for (int r = 0; r < group; ++r) {
                        if (i0 + r < max_n) {
                            x[i0 + r] = fmaf(-a[r][j], x[j0 + j], x[i0 + r]);
                        }
                    }
                }
            }
        }

        if (col < k) {
#pragma unroll
            for (int row = 0; row < max_n; ++row) {
                if (row < n) {
                    X_batch[row * k + col] = x[row];
                }
            }
        }
    }
}

// Blocks of one instance that fit on the GPU at once, asked once: the grid
// is no larger (every block then stays until the batch is done). 0 where the
// runtime cannot say (no GPU): the launch then has one block per matrix,
// which is just as correct.
template <int n_template, int warps>
static int resident_blocks() {
    static const int blocks = [] {
        const auto   kernel = solve_tri_kernel<n_template, warps>;
        const size_t bytes  = shared_floats<warps> * sizeof(float);
        int          device = 0, sms = 0, per_sm = 0;
        if (cudaGetDevice(&device) != cudaSuccess ||
            cudaDeviceGetAttribute(&sms, cudaDevAttrMultiProcessorCount, device) != cudaSuccess ||
            cudaFuncSetAttribute(kernel, cudaFuncAttributeMaxDynamicSharedMemorySize, static_cast<int>(bytes)) !=
                cudaSuccess ||
            cudaOccupancyMaxActiveBlocksPerMultiprocessor(&per_sm, kernel, warps * harness::warp_size, bytes) !=
                cudaSuccess) {
            cudaGetLastError();  // not sticky: clear it, so no later check reports it
            return 0;
        }
        return sms * per_sm;
    }();
    return blocks;
}

template <int n_template, int warps>
static void launch_instance(const float* const A, const float* const B, float* const X, const harness::Problem& p,
                            const cudaStream_t stream) {
    const harness::FastDivisor ne02 = harness::make_fast_divisor(p.ne02);
    const int64_t resident = resident_blocks<n_template, warps>();
    const dim3 grid(resident > 0 ? std::min(p.batch(), resident) : p.batch());
    const dim3 block(warps * harness::warp_size);
    harness::launch(solve_tri_kernel<n_template, warps>, grid, block, shared_floats<warps> * sizeof(float), stream,
                    A, B, X, ne02, p.nb02, p.nb03, p.nb12, p.nb13, p.nb2, p.nb3, static_cast<int>(p.n),
                    static_cast<int>(p.k), static_cast<int>(p.batch()));
}

// One warp per 32 columns, rounded up to a power of two: fewer instances.
template <int n_template>
static void launch_for_k(const float* const A, const float* const B, float* const X, const harness::Problem& p,
                         const cudaStream_t stream) {
    if (p.k <= harness::warp_size) {
        launch_instance<n_template, 1>(A, B, X, p, stream);
    } else if (p.k <= 2 * harness::warp_size) {
        launch_instance<n_template, 2>(A, B, X, p, stream);
    } else {
        launch_instance<n_template, 4>(A, B, X, p, stream);
    }
}

void solve_tri(const float* const A, const float* const B, float* const X, const harness::Problem& p,
               const cudaStream_t stream) {
    harness::validate(p, {max_n, max_k, alignment_bytes}, A, B, X);
    if (p.batch() == 0) {
        return;
    }
    if (p.n == 64) {
        launch_for_k<64>(A, B, X, p, stream);
        return;
    }
    launch_for_k<0>(A, B, X, p, stream);
}

// One shape for each n = 64 instance; every k up to the warps' columns uses it.
const harness::Shape specialized[] = {{64, 32}, {64, 64}, {64, 128}};

extern const harness::Step step = {"10_persistent_prefetch", {max_n, max_k, alignment_bytes}, specialized,
                                   static_cast<int>(std::size(specialized)), solve_tri};

}  // namespace step10
