// Step 19: persistent blocks that copy the next matrix in while they solve this one.
//
// In step 18 a block copies its matrix, waits for it, solves, stores and
// ends; while it solves it has nothing in flight, and a new block starts its
// copies only when an old one ends. Here, where step 18 runs one thread
// per column (k > 32) and the batch is at least twice what the GPU holds at
// once, the grid holds only as many blocks as fit on the GPU, and each block
// walks the batch with a stride of the grid: matrix m, m + grid, m + 2 * grid,
// ... Before it solves one matrix it starts the copies of the next, with
// cp.async, so the solve runs while they are in flight. A is double-buffered
// (the solve reads one buffer while the next matrix fills the other) and
// copied in chunks taken in turn, step 17's copy rather than step 18's row per
// thread, which loses here (docs/experiments.md). B passes through shared
// memory once per matrix, as a flat array of 16-byte chunks, and each thread
// takes its column from there into registers before the next B may overwrite
// it: registers cannot take a copy that nothing waits for. A block then needs
// 2 x 17 KB for A and 8 KB of B per warp, more than the 48 KB a static array
// may hold, so fewer blocks fit on an SM and the buffers are dynamic shared
// memory. Which entries are copied and the arithmetic are step 18's: the
// output is the same, bit for bit.
#include "step.cuh"

#include <cuda_pipeline_primitives.h>

#include <iterator>
#include <map>
#include <mutex>
#include <type_traits>
#include <utility>

namespace step19 {

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

// Starts the copy of one matrix's B, n x k floats with rows k floats apart,
// into sB as the same flat array, with cp.async: thread tid takes every
// threads-th 16-byte chunk (single floats at the end of an odd n * k).
// Nothing waits here. The block's threads cover all k columns (T = 1).
template <int threads>
__device__ __forceinline__ void copy_b(const float* const B_batch, float* const sB, const int n, const int k,
                                       const int tid) {
    const int elements = n * k;
#pragma unroll
    for (int i = 0; i < max_n * threads; i += chunk * threads) {
        const int e = i + chunk * tid;
        if (e + chunk <= elements) {
            __pipeline_memcpy_async(&sB[e], &B_batch[e], alignment_bytes);
        } else {
#pragma unroll
            for (int q = 0; q < chunk; ++q) {
                if (e + q < elements) {
                    __pipeline_memcpy_async(&sB[e + q], &B_batch[e + q], sizeof(float));
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
                     const int64_t nb13, const int64_t nb2, const int64_t nb3, const int n_arg, const int k,
                     const int /* batches: the grid's x */) {
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

// Persistent blocks per SM the launch bounds ask for: what an H200 SM's 228 KB
// of shared memory holds (two buffers of A, one of B, and 1 KB the driver
// reserves per block): four of 51 KB with 64 columns, three of 67 KB with 128.
// With 64 columns, four lets the compiler give each thread up to 255 registers.
constexpr int persistent_blocks_per_sm(const int columns) {
    return columns == 64 ? 4 : 3;
}

// The same solve with T = 1, for large batches: each block walks the batch
// with a stride of the grid and copies its next matrix in while it solves
// this one.
template <int n_template, int columns>
__global__ void __launch_bounds__(columns, persistent_blocks_per_sm(columns))
    solve_tri_persistent_kernel(const float* __restrict__ A, const float* __restrict__ B, float* __restrict__ X,
                                const harness::FastDivisor ne02, const int64_t nb02, const int64_t nb03,
                                const int64_t nb12, const int64_t nb13, const int64_t nb2, const int64_t nb3,
                                const int n_arg, const int k, const int batches) {
    const int n = n_template == 0 ? n_arg : n_template;

    const int col = threadIdx.x;

    extern __shared__ __align__(16) float shared[];
    float* const                          sB = shared + 2 * max_n * a_stride;

    // Matrix batch of the tensors: batch = i03 * ne02 + i02.
    const auto matrix_offsets = [&](const uint32_t batch, int64_t& a, int64_t& b, int64_t& x) {
        const uint32_t i03 = harness::fast_div(batch, ne02);
        const uint32_t i02 = batch - i03 * ne02.divisor;
        a                  = i02 * nb02 + i03 * nb03;
        b                  = i02 * nb12 + i03 * nb13;
        x                  = i02 * nb2 + i03 * nb3;
    };

    int64_t a_offset, b_offset, x_offset;
    matrix_offsets(blockIdx.x, a_offset, b_offset, x_offset);
    copy_a<columns, false>(A + a_offset, shared, n, col);
    copy_b<columns>(B + b_offset, sB, n, k, col);
    __pipeline_commit();

    // 64-bit: batch + gridDim.x may pass 2^31 - 1 on the last round.
    int buffer = 0;
    for (int64_t batch = blockIdx.x; batch < batches; batch += gridDim.x, buffer ^= 1) {
        float* const       X_batch = X + x_offset;
        const float* const sA      = shared + buffer * max_n * a_stride;

        // This matrix's copies are the only ones in flight: wait for this
        // thread's, then the barrier waits for every thread's.
        __pipeline_wait_prior(0);
        __syncthreads();

        // Thread col holds its column of B (0 past row n, and in the threads
        // past column k), and each row becomes X's value when solve_column
        // reaches it.
        float x[max_n];
        load_column<1>(sB, x, n, k, col, 0);
        // Every thread has its column, and is done with the other buffer of A
        // (the previous matrix's): both may be overwritten.
        __syncthreads();

        const int64_t next = batch + gridDim.x;
        if (next < batches) {
            matrix_offsets(next, a_offset, b_offset, x_offset);
            copy_a<columns, false>(A + a_offset, shared + (buffer ^ 1) * max_n * a_stride, n, col);
            copy_b<columns>(B + b_offset, sB, n, k, col);
        }
        __pipeline_commit();

        solve_column<1>(sA, x, n, 0);
        store_column<1>(X_batch, x, n, k, col, 0);
    }
}

using Kernel = decltype(&solve_tri_kernel<0, 1, 64>);
static_assert(std::is_same_v<Kernel, decltype(&solve_tri_persistent_kernel<0, 64>)>);

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

template <int n_template>
static Kernel persistent_kernel_for(const int columns) {
    return columns == 64 ? solve_tri_persistent_kernel<n_template, 64> : solve_tri_persistent_kernel<n_template, 128>;
}

// Bytes of shared memory a persistent block of `columns` threads asks for:
// two buffers of A and one of B.
static size_t persistent_shared_bytes(const int columns) {
    return sizeof(float) * (2 * max_n * a_stride + max_n * columns);
}

// Blocks of a persistent kernel that fit on `device` at once: the grid is no
// larger (every block then stays until the batch is done). The kernel's limit
// of dynamic shared memory is an attribute the runtime keeps per device, so it
// is set here, on the device asked about, before that device's first launch.
// 0 where the runtime cannot say (no GPU): then no launch is persistent.
static int64_t resident_blocks(const Kernel kernel, const int columns, const int device) {
    const size_t bytes = persistent_shared_bytes(columns);
    int          sms = 0, per_sm = 0;
    if (cudaDeviceGetAttribute(&sms, cudaDevAttrMultiProcessorCount, device) != cudaSuccess ||
        cudaFuncSetAttribute(kernel, cudaFuncAttributeMaxDynamicSharedMemorySize, static_cast<int>(bytes)) !=
            cudaSuccess ||
        cudaOccupancyMaxActiveBlocksPerMultiprocessor(&per_sm, kernel, columns, bytes) != cudaSuccess) {
        cudaGetLastError();  // not sticky: clear it, so that no later check reports it
        return 0;
    }
    return static_cast<int64_t>(sms) * per_sm;
}

// The same, asked once per device and kernel and then remembered: GPUs of one
// machine may differ, and each needs the attribute set. Launchers on several
// threads may ask at once.
static int64_t resident_blocks_on_current_device(const Kernel kernel, const int columns) {
    int device = 0;
    if (cudaGetDevice(&device) != cudaSuccess) {
        cudaGetLastError();
        return 0;
    }
    static std::mutex                                lock;
    static std::map<std::pair<int, Kernel>, int64_t> known;
    const std::lock_guard<std::mutex>                held(lock);
    int64_t&                                         blocks = known[{device, kernel}];
    if (blocks == 0) {
        blocks = resident_blocks(kernel, columns, device);
    }
    return blocks;
}

// What solve_tri launches: one block per batch matrix and group of columns;
// or, where the batch is at least twice what the GPU holds at once, that many
// persistent blocks.
static harness::Launch<Kernel> plan(const harness::Problem& p) {
    const Split split  = split_for(p);
    const int   groups = static_cast<int>((p.k + split.columns - 1) / split.columns);
    if (split.T == 1) {
        const Kernel persistent =
            p.n == 64 ? persistent_kernel_for<64>(split.columns) : persistent_kernel_for<0>(split.columns);
        const int64_t blocks = resident_blocks_on_current_device(persistent, split.columns);
        if (blocks > 0 && p.batch() >= 2 * blocks) {
            return {persistent, dim3(blocks), dim3(split.columns), persistent_shared_bytes(split.columns)};
        }
    }
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
        static_cast<int>(p.n), static_cast<int>(p.k), static_cast<int>(p.batch()));
    CUDA_CHECK(cudaGetLastError());
}

// Shapes that run the n = 64 instances: small batches (T = 8; T = 2, 64
// columns), large ones (T = 2, 32 columns; T = 1, 64 and 128 columns) and, on
// an H200, ones large enough for the persistent kernel (64 and 128 columns).
const harness::Shape specialized[] = {{64, 6, 3, 2},    {64, 64, 3, 2},    {64, 128, 3, 2},  {64, 32, 32, 32},
                                      {64, 64, 32, 16}, {64, 128, 16, 16}, {64, 64, 64, 64}, {64, 128, 64, 64}};

extern const harness::Step step = {"19_persistent_prefetch",
                                   {max_n, max_k, alignment_bytes},
                                   specialized,
                                   static_cast<int>(std::size(specialized)),
                                   solve_tri,
                                   [](const harness::Problem& p) { return harness::erase(plan(p)); }};

}  // namespace step19
