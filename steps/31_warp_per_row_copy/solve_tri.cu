// Step 31: the 64-row instance copies single floats a warp per row.
//
// In step 30's copy of A by rows, each thread of a block of 64 copies one row
// of the 64-row instance, one float per cp.async where chunks are single
// floats: one instruction of a warp reads 32 rows, n floats apart, and the
// thread of row r issues r + 1 of them. That instance runs every n in 33-63
// that is not a multiple of 4, and any n in 33-64 without 16-byte alignment.
// Here each warp copies whole rows in turn instead, its lanes along the
// columns, and leaves at its first row past n: one instruction reads up to 32
// neighbouring floats of one row. The other instances copy as step 30's do,
// and the arithmetic is step 30's: the output is the same, bit for bit.
#include "step.cuh"

#include <cuda_pipeline_primitives.h>

#include <algorithm>
#include <iterator>
#include <map>
#include <string>
#include <type_traits>
#include <utility>

namespace step31 {

constexpr int max_n = 64;
// The largest k: 65,535 groups of 64 columns, the fewest a group holds past
// k = 32 (65,535 is the grid's limit in y). n * k stays below 2^31, so every
// offset within a matrix fits an int.
constexpr int max_k = 65535 * 64;
// The largest n a streamed block solves: X's rows, 73,728 bytes of shared
// memory at 256, and two block rows of A, 33,280 bytes, so that two blocks
// fit an SM.
constexpr int max_streamed_n = 256;
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
// Where A, B and X, and every batch stride, are aligned to 16 bytes and n is a
// multiple of 4, A is copied in chunks of four floats; elsewhere in chunks of
// one.
constexpr int wide_chunk = 16 / static_cast<int>(sizeof(float));

// Starts the copy of A's lower triangle into shared memory, row r at
// sA[r * a_stride], with cp.async: thread tid of the block takes every
// threads-th chunk of `chunk` floats. Nothing waits here. With by_rows (a block of 64
// or more threads), each row is copied instead by threads / rows neighbouring
// threads, which take its chunks in turn, each at a fixed offset from the
// row's start; in the 64-row instance with single floats, by one warp, its
// lanes along the row. Either way n must be a multiple of chunk, as the plan makes it,
// so that no chunk crosses a row. An instance of at most `rows` rows copies no
// chunk past them.
template <int threads, int chunk, bool by_rows = threads >= max_n, int rows = max_n>
__device__ __forceinline__ void copy_a(const float* const A_batch, float* const sA, const int n, const int tid) {
    if constexpr (by_rows) {
        // Threads per row: 1 or 2 at 64 rows, 4 or 8 at 16.
        constexpr int sharers = threads / rows;
        static_assert(sharers * rows == threads, "a block's threads split evenly over the rows");
        if constexpr (rows == max_n && chunk == 1) {
            // A warp per row, rows a block's warps apart: lane l takes columns l
            // and l + 32, so that each cp.async of the warp reads neighbouring
            // floats of one row.
            constexpr int warps = threads / harness::warp_size;
            const int     warp  = tid / harness::warp_size;
            const int     lane  = tid % harness::warp_size;
#pragma unroll
            for (int r = 0; r < rows; r += warps) {
                const int row = r + warp;
                if (row >= n) {
                    break;
                }
#pragma unroll
                for (int j = 0; j < rows; j += harness::warp_size) {
                    const int c = j + lane;
                    if (c <= row) {
                        __pipeline_memcpy_async(&sA[row * a_stride + c], &A_batch[row * n + c], sizeof(float));
                    }
                }
            }
            return;
        }
        const int row   = tid / sharers;
        const int first = tid % sharers * chunk;
        if (row < n) {
#pragma unroll
            for (int j = 0; j < rows; j += sharers * chunk) {
                const int c = j + first;
                if (c <= row) {
                    __pipeline_memcpy_async(&sA[row * a_stride + c], &A_batch[row * n + c], chunk * sizeof(float));
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
        const int row = e / n;
        const int c   = e % n;
        // Wholly above the diagonal: never read, so never copied.
        if (c > row && c + chunk - 1 < n) {
            continue;
        }
        __pipeline_memcpy_async(&sA[row * a_stride + c], &A_batch[e], chunk * sizeof(float));
    }
}

// Starts the copy of one matrix's B, n x k floats with rows k floats apart,
// into sB as the same flat array, with cp.async: thread tid takes every
// threads-th chunk of `chunk` floats (single floats at the end of an odd n * k).
// Nothing waits here. The block's threads cover all k columns (T = 1).
template <int threads, int chunk>
__device__ __forceinline__ void copy_b(const float* const B_batch, float* const sB, const int n, const int k,
                                       const int tid) {
    const int elements = n * k;
#pragma unroll
    for (int i = 0; i < max_n * threads; i += chunk * threads) {
        const int e = i + chunk * tid;
        if (e + chunk <= elements) {
            __pipeline_memcpy_async(&sB[e], &B_batch[e], chunk * sizeof(float));
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
template <int T, int rows = max_n>
__device__ __forceinline__ void load_column(const float* const B_batch, float (&x)[rows / T], const int n, const int k,
                                            const int col, const int t) {
#pragma unroll
    for (int s = 0; s < rows / T; ++s) {
        const int row = t + s * T;
        x[s]          = (row < n && col < k) ? B_batch[row * k + col] : 0.0f;
    }
}

// Forward substitution of one column whose rows t, t + T, ... thread t holds
// in registers, A in shared memory, in panels of four columns. The T threads
// of a column are T neighbouring lanes of one warp.
template <int T, int rows = max_n>
__device__ __forceinline__ void solve_column(const float* const sA, float (&x)[rows / T], const int n, const int t) {
#pragma unroll
    for (int j0 = 0; j0 < rows; j0 += panel) {
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
        for (int s = 0; s < rows / T; ++s) {
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
template <int T, int rows = max_n>
__device__ __forceinline__ void store_column(float* const X_batch, const float (&x)[rows / T], const int n, const int k,
                                             const int col, const int t) {
    if (col < k) {
#pragma unroll
        for (int s = 0; s < rows / T; ++s) {
            const int row = t + s * T;
            if (row < n) {
                X_batch[row * k + col] = x[s];
            }
        }
    }
}

// n_template == 0 makes a run-time instance: n comes from the argument, at
// most `rows`. Every instance unrolls the row loops to its rows (n_template's,
// where n is fixed), so x stays in registers; a run-time one skips panels and
// rows past n by a branch, and keeps whatever the rows past n hold out of the
// rows before n (row i only takes terms of rows j < i).
// T threads share each of the block's columns; T * columns, the block's
// threads, is fixed at compile time so that the copy of A unrolls.
template <int n_template, int T, int columns, int chunk, int rows = n_template == 0 ? max_n : n_template>
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

    __shared__ __align__(16) float sA[rows * a_stride];

    copy_a<T * columns, chunk, T * columns >= max_n, rows>(A_batch, sA, n, tid);
    __pipeline_commit();

    // Thread t holds its rows of column col of B (0 past row n, and in the
    // threads past column k), and each row becomes X's value when solve_column
    // reaches it. Apart from loop counters, these are the only variables of
    // the kernel that change.
    float x[rows / T];
    load_column<T, rows>(B_batch, x, n, k, col, t);
    // This thread's copies have landed; the barrier waits for every thread's.
    __pipeline_wait_prior(0);
    __syncthreads();

    solve_column<T, rows>(sA, x, n, t);
    store_column<T, rows>(X_batch, x, n, k, col, t);
}

// The blocked solve cuts A into blocks of block_rows rows and columns: row
// block i of X is B_i - sum_{j<i} L_ij X_j (the products), then solved by
// the diagonal block L_ii (the chain). The products are tiles of 16 rows and 8
// columns, the shape of one tensor-core instruction (mma m16n8k8).
constexpr int block_rows   = 16;
constexpr int tile_columns = 8;
// Row stride of sX: 8 more than a row's 64, so that rows r and r + 1 of one
// column sit 8 banks apart, and a 16-byte multiple.
constexpr int x_stride = max_n + 8;
// Threads of a blocked block: four warps, which share the products' tiles.
constexpr int blocked_threads = 128;
// Columns of X a blocked block solves.
constexpr int blocked_columns = 64;

// One tile of the products: rows r0..r0+15, columns c0..c0+7 of sX, minus
// A's rows r0..r0+15, columns 0..depth-1, times sX's rows 0..depth-1 of the
// same columns, in steps of 8 columns of A. A's row r0 is row a_row0 of sA,
// whose rows are row_stride floats apart. Each lane holds the four entries
// an mma's accumulator gives it: rows g and g + 8 (g = lane / 4), columns 2q
// and 2q + 1 (q = lane % 4), and takes its products in order of A's column.
__device__ __forceinline__ void product_tile(const float* const sA, const int a_row0, const int row_stride,
                                             float* const sX, const int r0, const int c0, const int depth,
                                             const int lane) {
    const int    g      = lane / 4;
    const int    q      = lane % 4;
    float* const top    = &sX[(r0 + g) * x_stride + c0 + 2 * q];
    float* const bottom = &sX[(r0 + g + 8) * x_stride + c0 + 2 * q];
    float        acc[4] = {top[0], top[1], bottom[0], bottom[1]};
    for (int j0 = 0; j0 < depth; j0 += 8) {
#pragma unroll
        for (int d = 0; d < 8; ++d) {
            const float  a_top    = sA[(a_row0 + g) * row_stride + j0 + d];
            const float  a_bottom = sA[(a_row0 + g + 8) * row_stride + j0 + d];
            const float2 x        = *reinterpret_cast<const float2*>(&sX[(j0 + d) * x_stride + c0 + 2 * q]);
            acc[0]                = fmaf(-a_top, x.x, acc[0]);
            acc[1]                = fmaf(-a_top, x.y, acc[1]);
            acc[2]                = fmaf(-a_bottom, x.x, acc[2]);
            acc[3]                = fmaf(-a_bottom, x.y, acc[3]);
        }
    }
    top[0]    = acc[0];
    top[1]    = acc[1];
    bottom[0] = acc[2];
    bottom[1] = acc[3];
}

// A float as TF32, in the bits an mma reads: rounded to nearest (ties away
// from zero) at mantissa bit 13 and the 13 bits below it cleared, as
// cvt.rna.tf32.f32 rounds a finite value; Inf stays Inf. The addition can
// carry a NaN into anything (0x7fffffff becomes -0), so only the hi part
// rounds.
__device__ __forceinline__ uint32_t tf32_rounded(const float value) {
    return (__float_as_uint(value) + 0x1000u) & 0xffffe000u;
}

// The same bits truncated: the GPU's NaN (0x7fffffff) stays NaN. The lo
// part, value - hi, is that NaN wherever the value is NaN or Inf, so NaN
// propagates through the products that take it (an Inf comes out NaN, and so
// does a value within 2^-12 of FLT_MAX, whose hi rounds to Inf).
__device__ __forceinline__ uint32_t tf32_truncated(const float value) {
    return __float_as_uint(value) & 0xffffe000u;
}

// acc += a · b on the tensor cores, a 16 x 8 tile of A by an 8 x 8 tile of X,
// in the fragments of mma.sync's m16n8k8 TF32 shape.
__device__ __forceinline__ void mma_tf32(float (&acc)[4], const uint32_t (&a)[4], const uint32_t (&b)[2]) {
#if __CUDA_ARCH__ >= 800
    asm("mma.sync.aligned.m16n8k8.row.col.f32.tf32.tf32.f32 {%0, %1, %2, %3}, {%4, %5, %6, %7}, {%8, %9}, "
        "{%0, %1, %2, %3};"
        : "+f"(acc[0]), "+f"(acc[1]), "+f"(acc[2]), "+f"(acc[3])
        : "r"(a[0]), "r"(a[1]), "r"(a[2]), "r"(a[3]), "r"(b[0]), "r"(b[1]));
#endif
}

// product_tile's tile on the tensor cores (below sm_80, product_tile itself).
// Per step of 8 columns of A, lane (g, q) loads A's rows g and g + 8 at
// columns q and q + 4, and X's rows q and q + 4 at column g: the mma's
// fragments. Each is split in two TF32 parts, hi rounded and lo = value - hi
// truncated (hi + lo within 2^-21 of the value), and the three products go to
// three accumulators, so that no mma waits on another's result; their sum is
// subtracted once, at the end. The accumulators hold what product_tile's do:
// rows g and g + 8, columns 2q and 2q + 1.
__device__ __forceinline__ void product_tile_tensor(const float* const sA, const int a_row0, const int row_stride,
                                                    float* const sX, const int r0, const int c0, const int depth,
                                                    const int lane) {
#if __CUDA_ARCH__ >= 800
    const int g          = lane / 4;
    const int q          = lane % 4;
    float     hi_hi[4]   = {};
    float     lo_a_hi[4] = {};
    float     hi_a_lo[4] = {};
    for (int j0 = 0; j0 < depth; j0 += 8) {
        const float a[4] = {sA[(a_row0 + g) * row_stride + j0 + q], sA[(a_row0 + g + 8) * row_stride + j0 + q],
                            sA[(a_row0 + g) * row_stride + j0 + q + 4], sA[(a_row0 + g + 8) * row_stride + j0 + q + 4]};
        const float x[2] = {sX[(j0 + q) * x_stride + c0 + g], sX[(j0 + q + 4) * x_stride + c0 + g]};
        uint32_t    a_hi[4], a_lo[4], x_hi[2], x_lo[2];
#pragma unroll
        for (int i = 0; i < 4; ++i) {
            a_hi[i] = tf32_rounded(a[i]);
            a_lo[i] = tf32_truncated(a[i] - __uint_as_float(a_hi[i]));
        }
#pragma unroll
        for (int i = 0; i < 2; ++i) {
            x_hi[i] = tf32_rounded(x[i]);
            x_lo[i] = tf32_truncated(x[i] - __uint_as_float(x_hi[i]));
        }
        mma_tf32(hi_hi, a_hi, x_hi);
        mma_tf32(lo_a_hi, a_lo, x_hi);
        mma_tf32(hi_a_lo, a_hi, x_lo);
    }
    float* const top    = &sX[(r0 + g) * x_stride + c0 + 2 * q];
    float* const bottom = &sX[(r0 + g + 8) * x_stride + c0 + 2 * q];
    top[0] -= hi_hi[0] + (lo_a_hi[0] + hi_a_lo[0]);
    top[1] -= hi_hi[1] + (lo_a_hi[1] + hi_a_lo[1]);
    bottom[0] -= hi_hi[2] + (lo_a_hi[2] + hi_a_lo[2]);
    bottom[1] -= hi_hi[3] + (lo_a_hi[3] + hi_a_lo[3]);
#else
    product_tile(sA, a_row0, row_stride, sX, r0, c0, depth, lane);
#endif
}

// The chain: thread tid solves column col's diagonal block, rows r0..r0+15
// of sX, A's row r0 being row a_row0 of sA (rows row_stride floats apart), and
// writes X's rows: every one, or with every_row false those before n.
template <bool every_row>
__device__ __forceinline__ void solve_diagonal_block(const float* const sA, const int a_row0, const int row_stride,
                                                     float* const sX, const int r0, float* const X_batch, const int n,
                                                     const int k, const int col, const int tid) {
    float x[block_rows];
#pragma unroll
    for (int r = 0; r < block_rows; ++r) {
        x[r] = sX[(r0 + r) * x_stride + tid];
    }
#pragma unroll
    for (int j = 0; j < block_rows; ++j) {
        x[j] *= 1.0f / sA[(a_row0 + j) * row_stride + r0 + j];
#pragma unroll
        for (int r = j + 1; r < block_rows; ++r) {
            x[r] = fmaf(-sA[(a_row0 + r) * row_stride + r0 + j], x[j], x[r]);
        }
    }
#pragma unroll
    for (int r = 0; r < block_rows; ++r) {
        sX[(r0 + r) * x_stride + tid] = x[r];
        if (every_row || r0 + r < n) {
            X_batch[(r0 + r) * k + col] = x[r];
        }
    }
}

// Starts the copy of columns col0.. of one matrix's B (n rows, k floats
// apart) into sX, row r at sX[r * x_stride], with cp.async: chunks of `chunk`
// floats, thread tid taking every threads-th. Nothing waits here.
template <int chunk, int threads = blocked_threads>
__device__ __forceinline__ void copy_b_columns(const float* const B_batch, float* const sX, const int n, const int k,
                                               const int col0, const int tid) {
    const int cols   = min(blocked_columns, k - col0);
    const int chunks = cols / chunk;
    for (int e = tid; e < n * chunks; e += threads) {
        const int row = e / chunks;
        const int c   = e % chunks * chunk;
        __pipeline_memcpy_async(&sX[row * x_stride + c], &B_batch[row * k + col0 + c], chunk * sizeof(float));
    }
}

// n = 64 by blocks: one block of four warps per matrix and group of 64
// columns. Block row i: the four warps take the products' tiles in turn, then
// one thread per column solves the diagonal block, as the other kernels solve
// a column, and writes X's rows.
template <int b_chunk>
__global__ void __launch_bounds__(blocked_threads)
    solve_tri_blocked_kernel(const float* __restrict__ A, const float* __restrict__ B, float* __restrict__ X,
                             const harness::FastDivisor ne02, const int64_t nb02, const int64_t nb03,
                             const int64_t nb12, const int64_t nb13, const int64_t nb2, const int64_t nb3,
                             const int /* n: 64 */, const int k, const int /* batches: the grid's x */) {
    const int batch = blockIdx.x;
    const int tid   = threadIdx.x;
    const int warp  = tid / harness::warp_size;
    const int lane  = tid % harness::warp_size;
    const int col0  = blockIdx.y * blocked_columns;
    const int col   = col0 + tid;
    // Columns of this group, and the products' columns: whole tiles.
    const int cols   = min(blocked_columns, k - col0);
    const int tiles  = (cols + tile_columns - 1) / tile_columns;
    const int padded = tiles * tile_columns;

    // batch = i03 * ne02 + i02
    const uint32_t i03 = harness::fast_div(batch, ne02);
    const uint32_t i02 = batch - i03 * ne02.divisor;

    const float* const A_batch = A + i02 * nb02 + i03 * nb03;
    const float* const B_batch = B + i02 * nb12 + i03 * nb13;
    float* const       X_batch = X + i02 * nb2 + i03 * nb3;

    __shared__ __align__(16) float sA[max_n * a_stride];
    __shared__ __align__(16) float sX[max_n * x_stride];

    copy_a<blocked_threads, wide_chunk>(A_batch, sA, max_n, tid);
    copy_b_columns<b_chunk>(B_batch, sX, max_n, k, col0, tid);
    __pipeline_commit();
    // A last tile's columns past k are worked on and never read by a column
    // before k: they start as zeros, so that nothing there is NaN.
    if (padded > cols) {
        for (int e = tid; e < max_n * (padded - cols); e += blocked_threads) {
            sX[e / (padded - cols) * x_stride + cols + e % (padded - cols)] = 0.0f;
        }
    }
    __pipeline_wait_prior(0);
    __syncthreads();

#pragma unroll 1
    for (int r0 = 0; r0 < max_n; r0 += block_rows) {
        // The products: B_i minus every solved block row's share.
        if (r0 > 0) {
            for (int tile = warp; tile < tiles; tile += blocked_threads / harness::warp_size) {
                product_tile(sA, r0, a_stride, sX, r0, tile * tile_columns, r0, lane);
            }
            __syncthreads();
        }
        // The chain: one thread per column solves the diagonal block.
        if (col < k && tid < blocked_columns) {
            solve_diagonal_block<true>(sA, r0, a_stride, sX, r0, X_batch, max_n, k, col, tid);
        }
        __syncthreads();
    }
}

// Threads of a streamed block: eight warps, one product tile each at 64
// columns.
constexpr int streamed_threads = 256;

// Rows of X a streamed block solves for n: n rounded up to whole block rows.
__host__ __device__ constexpr int streamed_rows(const int n) {
    return (n + block_rows - 1) / block_rows * block_rows;
}

// Row stride of a streamed block's buffers of A: a multiple of 4 floats, and
// 4 or 20 more than a multiple of 32, so that the eight rows a product tile's
// lanes read at once sit in eight different banks.
__host__ __device__ constexpr int streamed_a_stride(const int n) {
    return streamed_rows(n) + 4;
}

// Starts the copy of A's block row r0 (rows r0..r0+15, columns 0..r0+15)
// into `a_rows`, rows row_stride floats apart, with cp.async: chunks of `chunk`
// floats, each row's taken by 16 neighbouring threads in turn. Rows past n
// are written as the identity's instead, with plain stores. Nothing waits
// here.
template <int chunk>
__device__ __forceinline__ void copy_block_row(const float* const A_batch, float* const a_rows, const int row_stride,
                                               const int n, const int r0, const int tid) {
    constexpr int sharers = streamed_threads / block_rows;
    const int     r       = tid / sharers;
    const int     row     = r0 + r;
    const int     width   = min(r0 + block_rows, n);
    if (row < n) {
        for (int c = tid % sharers * chunk; c < width; c += sharers * chunk) {
            __pipeline_memcpy_async(&a_rows[r * row_stride + c], &A_batch[row * n + c], chunk * sizeof(float));
        }
    } else {
        for (int c = tid % sharers; c < r0 + block_rows; c += sharers) {
            a_rows[r * row_stride + c] = c == row ? 1.0f : 0.0f;
        }
    }
}

// n = 65..256: the blocked solve with A streamed. One block of eight warps
// per matrix and group of 64 columns holds X's rows in shared memory and two
// buffers of one block row of A each. Block row i: its copy has landed and
// the next one's is in flight; the warps take the products' tiles, then one
// thread per column solves the diagonal block.
template <int a_chunk, int b_chunk>
__global__ void __launch_bounds__(streamed_threads)
    solve_tri_streamed_kernel(const float* __restrict__ A, const float* __restrict__ B, float* __restrict__ X,
                              const harness::FastDivisor ne02, const int64_t nb02, const int64_t nb03,
                              const int64_t nb12, const int64_t nb13, const int64_t nb2, const int64_t nb3, const int n,
                              const int k, const int /* batches: the grid's x */) {
    const int batch = blockIdx.x;
    const int tid   = threadIdx.x;
    const int warp  = tid / harness::warp_size;
    const int lane  = tid % harness::warp_size;
    const int col0  = blockIdx.y * blocked_columns;
    const int col   = col0 + tid;
    // Columns of this group, and the products' columns: whole tiles.
    const int cols   = min(blocked_columns, k - col0);
    const int tiles  = (cols + tile_columns - 1) / tile_columns;
    const int padded = tiles * tile_columns;
    // Rows solved: whole block rows, those past n zero in B.
    const int rows       = streamed_rows(n);
    const int row_stride = streamed_a_stride(n);

    // batch = i03 * ne02 + i02
    const uint32_t i03 = harness::fast_div(batch, ne02);
    const uint32_t i02 = batch - i03 * ne02.divisor;

    const float* const A_batch = A + i02 * nb02 + i03 * nb03;
    const float* const B_batch = B + i02 * nb12 + i03 * nb13;
    float* const       X_batch = X + i02 * nb2 + i03 * nb3;

    // Two buffers of a block row of A, then X's rows.
    extern __shared__ __align__(16) float streamed_shared[];
    float* const                          sX = streamed_shared + 2 * block_rows * row_stride;

    copy_block_row<a_chunk>(A_batch, streamed_shared, row_stride, n, 0, tid);
    copy_b_columns<b_chunk, streamed_threads>(B_batch, sX, n, k, col0, tid);
    __pipeline_commit();
    // What no copy writes starts as zeros: a last tile's columns past k, and
    // the rows past n.
    for (int e = tid; e < n * (padded - cols); e += streamed_threads) {
        sX[e / (padded - cols) * x_stride + cols + e % (padded - cols)] = 0.0f;
    }
    for (int e = tid; e < (rows - n) * padded; e += streamed_threads) {
        sX[(n + e / padded) * x_stride + e % padded] = 0.0f;
    }

#pragma unroll 1
    for (int r0 = 0, buffer = 0; r0 < rows; r0 += block_rows, buffer ^= 1) {
        // The next block row's copy starts; this one's (and B's) must land.
        // The buffer it fills was last read before the barrier that ended
        // the previous block row.
        if (r0 + block_rows < rows) {
            copy_block_row<a_chunk>(A_batch, streamed_shared + (buffer ^ 1) * block_rows * row_stride, row_stride, n,
                                    r0 + block_rows, tid);
        }
        __pipeline_commit();
        __pipeline_wait_prior(1);
        __syncthreads();
        const float* const a_rows = streamed_shared + buffer * block_rows * row_stride;
        // The products: B_i minus every solved block row's share.
        if (r0 > 0) {
            for (int tile = warp; tile < tiles; tile += streamed_threads / harness::warp_size) {
                product_tile_tensor(a_rows, 0, row_stride, sX, r0, tile * tile_columns, r0, lane);
            }
            __syncthreads();
        }
        // The chain: one thread per column solves the diagonal block.
        if (col < k && tid < blocked_columns) {
            solve_diagonal_block<false>(a_rows, 0, row_stride, sX, r0, X_batch, n, k, col, tid);
        }
        __syncthreads();
    }
}

// Bytes of shared memory a streamed block asks for at n: two block rows of
// A and X's rows.
static size_t streamed_shared_bytes(const int64_t n) {
    const int rows = streamed_rows(static_cast<int>(n));
    return sizeof(float) * (2 * block_rows * streamed_a_stride(static_cast<int>(n)) + rows * x_stride);
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
template <int n_template, int columns, int chunk>
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
    copy_a<columns, chunk, false>(A + a_offset, shared, n, col);
    copy_b<columns, chunk>(B + b_offset, sB, n, k, col);
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
            copy_a<columns, chunk, false>(A + a_offset, shared + (buffer ^ 1) * max_n * a_stride, n, col);
            copy_b<columns, chunk>(B + b_offset, sB, n, k, col);
        }
        __pipeline_commit();

        solve_column<1>(sA, x, n, 0);
        store_column<1>(X_batch, x, n, k, col, 0);
    }
}

using Kernel = decltype(&solve_tri_kernel<0, 1, 64, wide_chunk>);
static_assert(std::is_same_v<Kernel, decltype(&solve_tri_persistent_kernel<64, 64, wide_chunk>)>);

// Warp schedulers per SM: four on every architecture from Volta (sm_70) on.
constexpr int64_t schedulers_per_sm = 4;
// The persistent kernel is kept up to this many waves of the grid's resident
// blocks: on the H100, where the copies bind, the grid overtakes it between
// 5.8 and 7.8 waves in five runs of six, and between 3.9 and 5.8 in the sixth,
// where at 5.8 it is 2.2 % ahead; on the H200 between 7.8 and 11.6.
constexpr int64_t persistent_grid_waves = 6;

// What the launcher asks of a device, once: its SMs, and how many blocks an SM
// holds at once of the persistent kernel and of the grid kernel it stands in
// for (n = 64, one thread per column, 64 columns). All 0 where the runtime
// cannot say (no GPU): then no launch is persistent.
struct DeviceCounts {
    int64_t sms               = 0;
    int64_t persistent_per_sm = 0;
    int64_t grid_per_sm       = 0;
    // The most bytes of dynamic shared memory a streamed block may ask for here.
    size_t streamed_bytes = 0;
};

// Threads per column and columns per block, by shape: see the top of the file.
struct Split {
    int T;
    int columns;
};

// One thread per column (T = 1) needs a warp per 32 columns of every matrix;
// from three warps for every two of the GPU's schedulers, the batch alone
// gives them enough work. (On the H100's batch curve of n = k = 64, T = 2 is
// faster at 1.45 warps a scheduler, 384 matrices, and T = 1 at 1.94, 512.)
static Split split_for(const harness::Problem& p, const DeviceCounts& device) {
    const int64_t enough_warps     = 3 * schedulers_per_sm * device.sms / 2;
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

template <int n_template, int chunk, int rows = n_template == 0 ? max_n : n_template>
static Kernel kernel_for(const Split split) {
    if (split.T == 8) {
        return solve_tri_kernel<n_template, 8, 8, chunk, rows>;
    }
    if (split.T == 2) {
        return split.columns == 32 ? solve_tri_kernel<n_template, 2, 32, chunk, rows>
                                   : solve_tri_kernel<n_template, 2, 64, chunk, rows>;
    }
    return split.columns == 64 ? solve_tri_kernel<n_template, 1, 64, chunk, rows>
                               : solve_tri_kernel<n_template, 1, 128, chunk, rows>;
}

// The run-time instance of the fewest rows that hold n: 16, 32 or max_n.
template <int chunk>
static Kernel run_time_kernel_for(const int64_t n, const Split split) {
    return n <= 16   ? kernel_for<0, chunk, 16>(split)
           : n <= 32 ? kernel_for<0, chunk, 32>(split)
                     : kernel_for<0, chunk>(split);
}

// Bytes of shared memory a persistent block of `columns` threads asks for:
// two buffers of A and one of B.
static size_t persistent_shared_bytes(const int columns) {
    return sizeof(float) * (2 * max_n * a_stride + max_n * columns);
}

// The streamed kernel's instances: 16-byte copies of A and B, of A only, and
// of neither.
const Kernel streamed_kernels[] = {solve_tri_streamed_kernel<wide_chunk, wide_chunk>,
                                   solve_tri_streamed_kernel<wide_chunk, 1>, solve_tri_streamed_kernel<1, 1>};

// The device's counts. The persistent and streamed kernels' limits of dynamic
// shared memory are attributes the runtime keeps per device, so they are set
// here, on the device asked about, before that device's first launch: the
// streamed kernel's to what n = max_streamed_n needs, or the device's most.
static DeviceCounts counts_of(const int device) {
    const Kernel persistent = solve_tri_persistent_kernel<64, 64, wide_chunk>;
    const Kernel grid       = solve_tri_kernel<64, 1, 64, wide_chunk>;
    const size_t bytes      = persistent_shared_bytes(64);
    int          sms = 0, persistent_per_sm = 0, grid_per_sm = 0, most_bytes = 0;
    if (cudaDeviceGetAttribute(&sms, cudaDevAttrMultiProcessorCount, device) != cudaSuccess ||
        cudaDeviceGetAttribute(&most_bytes, cudaDevAttrMaxSharedMemoryPerBlockOptin, device) != cudaSuccess ||
        cudaFuncSetAttribute(persistent, cudaFuncAttributeMaxDynamicSharedMemorySize, static_cast<int>(bytes)) !=
            cudaSuccess ||
        cudaOccupancyMaxActiveBlocksPerMultiprocessor(&persistent_per_sm, persistent, 64, bytes) != cudaSuccess ||
        cudaOccupancyMaxActiveBlocksPerMultiprocessor(&grid_per_sm, grid, 64, 0) != cudaSuccess) {
        cudaGetLastError();  // not sticky: clear it, so that no later check reports it
        return {};
    }
    // A block's static shared memory (none in the streamed kernels) counts
    // against the same limit. Where the attribute cannot be set, a block gets
    // the default 48 KB.
    cudaFuncAttributes streamed_attributes{};
    if (cudaFuncGetAttributes(&streamed_attributes, streamed_kernels[0]) != cudaSuccess) {
        cudaGetLastError();
    }
    const size_t most_dynamic   = static_cast<size_t>(most_bytes) - streamed_attributes.sharedSizeBytes;
    size_t       streamed_bytes = std::min(streamed_shared_bytes(max_streamed_n), most_dynamic);
    for (const Kernel streamed : streamed_kernels) {
        if (cudaFuncSetAttribute(streamed, cudaFuncAttributeMaxDynamicSharedMemorySize,
                                 static_cast<int>(streamed_bytes)) != cudaSuccess) {
            cudaGetLastError();
            streamed_bytes = 48 * 1024 - streamed_attributes.sharedSizeBytes;
        }
    }
    return {sms, persistent_per_sm, grid_per_sm, streamed_bytes};
}

// The largest n whose streamed block fits `bytes` of shared memory: whole
// block rows past max_n, at most max_streamed_n.
static int largest_streamed_n(const size_t bytes) {
    int n = max_n;
    while (n < max_streamed_n && streamed_shared_bytes(n + block_rows) <= bytes) {
        n += block_rows;
    }
    return n;
}

// The largest n this step solves on the current device: max_streamed_n on an
// H100 or H200 (227 KB a block), 240 where a block gets 99 KB (sm_86, sm_89,
// sm_120), 144 with 64 KB (sm_75); max_streamed_n where the runtime cannot
// tell (no GPU).
static int max_n_on_current_device();

// The same, asked once per device and launching thread and then remembered:
// GPUs of one machine may differ, and each needs the attribute set. Kept per
// thread, so that a launch takes no lock: it runs on every launch, and back to
// back the host's time per launch is the kernel's.
static DeviceCounts counts_on_current_device() {
    int device = 0;
    if (cudaGetDevice(&device) != cudaSuccess) {
        cudaGetLastError();
        return {};
    }
    thread_local std::map<int, DeviceCounts> known;
    DeviceCounts&                            counts = known[device];
    if (counts.sms == 0) {
        counts = counts_of(device);
    }
    return counts;
}

// Whether the persistent kernel pays for a batch at n = 64 with 64 columns.
// Where it was measured, it holds half the grid's warps (two a block, as the
// grid kernel has; 4 blocks an SM against 8 on an H100 or H200); where it would
// hold fewer, the grid is launched. Then from 15/16 of two rounds of its own
// resident blocks (step 21) up to persistent_grid_waves waves of the grid's.
static bool persistent_pays(const int64_t batch, const DeviceCounts& device) {
    const int64_t persistent_blocks = device.sms * device.persistent_per_sm;
    const int64_t grid_blocks       = device.sms * device.grid_per_sm;
    return persistent_blocks > 0 && 2 * device.persistent_per_sm >= device.grid_per_sm &&
           8 * batch >= 15 * persistent_blocks && batch <= persistent_grid_waves * grid_blocks;
}

// Whether the blocked kernel pays: at n = 64 with one group of columns, past
// the persistent kernel's window, where the grid launches. On an H100 it won
// there (8,192 and 16,384 matrices) and lost below the window (17-50 % slower
// from 1 to 768 matrices at k = 64); with more than 64 columns each group's
// block copies A's triangle again, 12 % more bytes at k = 128, and it lost.
static bool blocked_pays(const harness::Problem& p, const DeviceCounts& device) {
    const int64_t grid_blocks = device.sms * device.grid_per_sm;
    return p.n == 64 && p.k <= blocked_columns && grid_blocks > 0 && p.batch() > persistent_grid_waves * grid_blocks;
}

// Whether A, B and X and every batch stride are multiples of 16 bytes, so
// that every matrix of A and B starts on a 16-byte boundary (n * n and n * k
// multiples of 4 where the batch is contiguous), and n is a multiple of 4, so
// that every row of A does too.
static bool wide_copies_fit(const harness::Problem& p, const float* const A, const float* const B,
                            const float* const X) {
    const auto aligned = [](const uintptr_t address) { return address % (wide_chunk * sizeof(float)) == 0; };
    if (p.n % wide_chunk != 0) {
        return false;
    }
    for (const int64_t stride : {p.nb02, p.nb03, p.nb12, p.nb13, p.nb2, p.nb3}) {
        if (stride % wide_chunk != 0) {
            return false;
        }
    }
    return aligned(reinterpret_cast<uintptr_t>(A)) && aligned(reinterpret_cast<uintptr_t>(B)) &&
           aligned(reinterpret_cast<uintptr_t>(X));
}

// What solve_tri launches: one block per batch matrix and group of columns;
// or, at n = 64 with 64 columns and a batch where persistent_pays, as many
// persistent blocks as the GPU holds at once. Without 16-byte
// alignment or with n not a multiple of 4 (wide == false), the run-time
// instance with single-float copies,
// one block per matrix: a persistent kernel with single-float copies spills
// (108 and 508 bytes a thread, nvcc -Xptxas -v, sm_90), and the grid's
// instances do not.
static harness::Launch<Kernel> plan(const harness::Problem& p, const bool wide) {
    const DeviceCounts device = counts_on_current_device();
    const Split        split  = split_for(p, device);
    const int          groups = static_cast<int>((p.k + split.columns - 1) / split.columns);
    if (p.n > max_n) {
        const Kernel streamed = !wide                   ? streamed_kernels[2]
                                : p.k % wide_chunk == 0 ? streamed_kernels[0]
                                                        : streamed_kernels[1];
        return {streamed, dim3(p.ne02 * p.ne03, (p.k + blocked_columns - 1) / blocked_columns), dim3(streamed_threads),
                streamed_shared_bytes(p.n)};
    }
    if (!wide) {
        return {run_time_kernel_for<1>(p.n, split), dim3(p.ne02 * p.ne03, groups), dim3(split.T * split.columns), 0};
    }
    if (split.T == 1 && split.columns == 64 && p.n == 64 && persistent_pays(p.batch(), device)) {
        return {solve_tri_persistent_kernel<64, 64, wide_chunk>, dim3(device.sms * device.persistent_per_sm),
                dim3(split.columns), persistent_shared_bytes(split.columns)};
    }
    if (blocked_pays(p, device)) {
        const Kernel blocked =
            p.k % wide_chunk == 0 ? solve_tri_blocked_kernel<wide_chunk> : solve_tri_blocked_kernel<1>;
        return {blocked, dim3(p.ne02 * p.ne03, (p.k + blocked_columns - 1) / blocked_columns), dim3(blocked_threads),
                0};
    }
    const Kernel kernel = p.n == 64   ? kernel_for<64, wide_chunk>(split)
                          : p.n == 16 ? kernel_for<16, wide_chunk>(split)
                                      : run_time_kernel_for<wide_chunk>(p.n, split);
    return {kernel, dim3(p.ne02 * p.ne03, groups), dim3(split.T * split.columns), 0};
}

static int max_n_on_current_device() {
    const size_t bytes = counts_on_current_device().streamed_bytes;
    return bytes == 0 ? max_streamed_n : largest_streamed_n(bytes);
}

void solve_tri(const float* const A, const float* const B, float* const X, const harness::Problem& p,
               const cudaStream_t stream) {
    harness::validate(p, {max_streamed_n, max_k}, A, B, X);
    if (p.batch() == 0) {
        return;
    }
    // Past what this GPU's shared memory a block holds: refused, with the
    // largest n it takes.
    if (p.n > max_n && p.n > max_n_on_current_device()) {
        throw harness::InvalidProblem("solve_tri refused: n = " + std::to_string(p.n) + " needs " +
                                      std::to_string(streamed_shared_bytes(p.n)) +
                                      " bytes of shared memory a block, more than this GPU gives: n <= " +
                                      std::to_string(max_n_on_current_device()) + " here");
    }
    const harness::Launch<Kernel> launch = plan(p, wide_copies_fit(p, A, B, X));
    launch.kernel<<<launch.grid, launch.block, launch.shared_bytes, stream>>>(
        A, B, X, harness::make_fast_divisor(p.ne02), p.nb02, p.nb03, p.nb12, p.nb13, p.nb2, p.nb3,
        static_cast<int>(p.n), static_cast<int>(p.k), static_cast<int>(p.batch()));
    CUDA_CHECK(cudaGetLastError());
}

// Shapes that run the n = 64 instances: small batches (T = 8; T = 2, 64
// columns), large ones (T = 2, 32 columns; T = 1, 64 and 128 columns) and, on
// an H100 or H200 (132 SMs), one inside the persistent kernel's window (64
// columns; with 128, the grid again) and three past it (the blocked kernel:
// 16-byte and single-float copies of B, a whole group of 64 columns and one
// of 32); and the same splits at n = 16.
const harness::Shape specialized[] = {{64, 6, 3, 2},     {64, 64, 3, 2},    {64, 128, 3, 2},   {64, 32, 32, 64},
                                      {64, 64, 32, 24},  {64, 128, 16, 32}, {64, 64, 64, 64},  {64, 128, 64, 64},
                                      {64, 64, 128, 64}, {64, 6, 128, 64},  {64, 32, 128, 64}, {16, 16, 3, 2},
                                      {16, 64, 3, 2},    {16, 32, 32, 64},  {16, 64, 32, 24},  {16, 128, 16, 32}};

// The plan for the harness's own buffers (cudaMalloc's, aligned to 256 bytes):
// the strides decide.
extern const harness::Step step = {"31_warp_per_row_copy",
                                   {max_streamed_n, max_k},
                                   specialized,
                                   static_cast<int>(std::size(specialized)),
                                   solve_tri,
                                   [](const harness::Problem& p) {
                                       const float* const aligned = nullptr;
                                       return harness::erase(plan(p, wide_copies_fit(p, aligned, aligned, aligned)));
                                   },
                                   max_n_on_current_device};

}  // namespace step31
