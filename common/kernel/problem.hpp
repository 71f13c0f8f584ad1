// The problem every step solves, the interface every step offers, and the
// checks a launcher makes before it launches anything.
#pragma once

#include <cuda_runtime_api.h>

#include <cstddef>
#include <cstdint>
#include <optional>
#include <stdexcept>
#include <string>

namespace harness {

// A batch of lower-triangular systems A·X = B in ggml's layout (docs/00_overview.md):
// per batch matrix, A is n×n, B and X are n×k, all row-major (A[r*n + c],
// B[r*k + c], X[r*k + c]). The batch is ne02 × ne03 matrices; matrix (i02, i03)
// of A starts at element i02*nb02 + i03*nb03, of B at i02*nb12 + i03*nb13, of X
// at i02*nb2 + i03*nb3. Strides are in elements (ggml's nb / sizeof(float)), so
// batch matrices need not be contiguous.
struct Problem {
    int64_t n    = 0;            // rows of A, B and X; columns of A
    int64_t k    = 0;            // right-hand-side columns: columns of B and X
    int64_t ne02 = 0;            // batch, inner dimension
    int64_t ne03 = 0;            // batch, outer dimension
    int64_t nb02 = 0, nb03 = 0;  // A's batch strides
    int64_t nb12 = 0, nb13 = 0;  // B's batch strides
    int64_t nb2 = 0, nb3 = 0;    // X's batch strides

    // Densely packed batches, as ggml allocates them.
    static Problem contiguous(int64_t n, int64_t k, int64_t ne02, int64_t ne03);
    // Batches with a gap of pad elements after each matrix and after each ne02
    // group, so that a kernel that ignores the strides reads or writes the
    // gaps; every stride rounded up to a multiple of stride_multiple elements.
    static Problem padded(int64_t n, int64_t k, int64_t ne02, int64_t ne03, int64_t pad, int64_t stride_multiple = 1);

    int64_t batch() const { return ne02 * ne03; }
    // Elements a buffer must hold for A, B and X (the last matrix's end).
    int64_t a_elements() const;
    int64_t b_elements() const;
    int64_t x_elements() const;
    // Bytes that test-backend-ops counts for one run: A, B and X once each.
    double      bytes_moved() const;
    std::string describe() const;  // "A{64,64,4,2} B{6,64,4,2}" in ggml's ne order
};

// A shape that runs one of a step's compile-time instances, with the batch
// (ne02 x ne03 matrices) at which the step's launcher picks that instance.
struct Shape {
    int n;
    int k;
    int ne02 = 3;
    int ne03 = 2;
};

// What a step can do. A launcher refuses anything else before it launches.
struct Limits {
    int max_n;
    int max_k;
    // Bytes to which A, B and X and every batch stride must be aligned: 4 (a
    // float) for scalar loads, 16 for a step that moves matrices as float4.
    int alignment_bytes = static_cast<int>(sizeof(float));
};

// Refused input: the message names the limit that was broken.
class InvalidProblem : public std::invalid_argument {
public:
    using std::invalid_argument::invalid_argument;
};

// Throws InvalidProblem unless the problem is within the limits and the
// pointers and strides are usable: 1 <= n <= max_n, 1 <= k <= max_k, batch
// counts >= 0 with at most max_batch matrices, non-negative strides under
// which no two batch matrices of one tensor overlap, non-null pointers when
// there is work, pointers and batch strides aligned to limits.alignment_bytes,
// and an output that overlaps neither input.
void validate(const Problem& problem, const Limits& limits, const float* A, const float* B, const float* X);

// The first of the six batch strides that is not a multiple of alignment_bytes
// (in floats: a multiple of alignment_bytes / 4), or none.
std::optional<int64_t> misaligned_stride(const Problem& problem, int alignment_bytes);

// The most matrices one launch accepts: one block per matrix, and the grid's
// x dimension holds 2^31 - 1 blocks.
constexpr int64_t max_batch = (int64_t{1} << 31) - 1;

// The launcher signature every step shares.
using Launcher = void (*)(const float* A, const float* B, float* X, const Problem& problem, cudaStream_t stream);

// What a launcher launches for a problem: the kernel instance and its launch
// configuration. Each step's launcher launches exactly what its plan says, and
// the report reads the kernel's registers, shared memory and occupancy from it.
template <typename Kernel>
struct Launch {
    Kernel kernel;
    dim3   grid;
    dim3   block;
    size_t shared_bytes;
};

// The same, with the kernel's type erased, for the CUDA runtime's queries.
struct KernelLaunch {
    const void* kernel;
    dim3        grid;
    dim3        block;
    size_t      shared_bytes;
};

template <typename Kernel>
KernelLaunch erase(const Launch<Kernel>& launch) {
    return {reinterpret_cast<const void*>(launch.kernel), launch.grid, launch.block, launch.shared_bytes};
}

// One step of the workbook, as the tests and the report see it.
struct Step {
    const char*  name;  // its directory, e.g. "03_loop_splitting"
    Limits       limits;
    const Shape* specialized;  // shapes with their own compile-time instance
    int          specialized_count;
    Launcher     solve;
    KernelLaunch (*plan)(const Problem& problem);  // what solve launches for a valid, non-empty problem
    // The largest n it solves on the current device, where a device may hold
    // less than limits.max_n (its shared memory a block); null: limits.max_n.
    int (*max_n_here)() = nullptr;
};

// The largest n a step solves on the current device.
inline int64_t max_n_on_device(const Step& step) {
    return step.max_n_here != nullptr ? step.max_n_here() : step.limits.max_n;
}

}  // namespace harness
