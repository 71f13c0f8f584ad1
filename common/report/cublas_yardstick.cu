#include "cublas_yardstick.hpp"

#include "device_buffer.hpp"
#include "step.cuh"

#include <cublas_v2.h>

#include <climits>
#include <string>

namespace harness {

namespace {

void check_cublas(const cublasStatus_t status, const char* call) {
    if (status != CUBLAS_STATUS_SUCCESS) {
        throw std::runtime_error(std::string(call) + " failed: " + cublasGetStatusName(status) + " (" +
                                 cublasGetStatusString(status) + ")");
    }
}

#define CUBLAS_CHECK(call) check_cublas((call), #call)

// Pointer arrays for the batched call: matrix b = i03 * ne02 + i02.
__global__ void batch_pointers_kernel(const float* const A, float* const X, const float** const A_pointers,
                                      float** const X_pointers, const FastDivisor ne02, const int64_t nb02,
                                      const int64_t nb03, const int64_t nb2, const int64_t nb3, const int batch) {
    const int b = blockIdx.x * blockDim.x + threadIdx.x;
    if (b >= batch) {
        return;
    }
    const uint32_t i03 = fast_div(b, ne02);
    const uint32_t i02 = b - i03 * ne02.divisor;
    A_pointers[b]      = A + i02 * nb02 + i03 * nb03;
    X_pointers[b]      = X + i02 * nb2 + i03 * nb3;
}

// The handle and the pointer arrays live as long as the program. ggml keeps
// both per device too (its pool hands the arrays back after each call).
struct CublasState {
    cublasHandle_t             handle = nullptr;
    DeviceBuffer<const float*> A_pointers;
    DeviceBuffer<float*>       X_pointers;

    CublasState() { CUBLAS_CHECK(cublasCreate(&handle)); }

    void reserve(const int64_t batch) {
        if (A_pointers.size() < static_cast<size_t>(batch)) {
            A_pointers = DeviceBuffer<const float*>(static_cast<size_t>(batch));
            X_pointers = DeviceBuffer<float*>(static_cast<size_t>(batch));
        }
    }
};

CublasState& state() {
    // Never destroyed: at exit the CUDA runtime may already be torn down,
    // and freeing a handle then can crash. The process's end frees it.
    static CublasState* const created = new CublasState();
    return *created;
}

constexpr int max_dimension = 4096;

void solve_tri_cublas(const float* const A, const float* const B, float* const X, const Problem& p,
                      const cudaStream_t stream) {
    validate(p, {max_dimension, max_dimension}, A, B, X);
    if (p.nb12 != p.nb2 || p.nb13 != p.nb3) {
        throw InvalidProblem(
            "solve_tri refused: the cuBLAS path copies B into X in one piece, so B and X must "
            "share their batch strides");
    }
    if (p.batch() > INT_MAX) {
        throw InvalidProblem("solve_tri refused: cublasStrsmBatched takes at most INT_MAX matrices");
    }
    if (p.batch() == 0) {
        return;
    }
    CublasState& cublas = state();
    cublas.reserve(p.batch());
    const int batch = static_cast<int>(p.batch());

    CUDA_CHECK(
        cudaMemcpyAsync(X, B, static_cast<size_t>(p.b_elements()) * sizeof(float), cudaMemcpyDeviceToDevice, stream));
    const float** const A_pointers = cublas.A_pointers.data();
    float** const       X_pointers = cublas.X_pointers.data();
    constexpr int       threads    = 256;
    batch_pointers_kernel<<<(batch + threads - 1) / threads, threads, 0, stream>>>(
        A, X, A_pointers, X_pointers, make_fast_divisor(static_cast<uint32_t>(p.ne02)), p.nb02, p.nb03, p.nb2, p.nb3,
        batch);
    CUDA_CHECK(cudaGetLastError());

    const float alpha = 1.0f;
    CUBLAS_CHECK(cublasSetStream(cublas.handle, stream));
    CUBLAS_CHECK(cublasSetMathMode(cublas.handle, CUBLAS_DEFAULT_MATH));
    CUBLAS_CHECK(cublasStrsmBatched(cublas.handle, CUBLAS_SIDE_RIGHT, CUBLAS_FILL_MODE_UPPER, CUBLAS_OP_N,
                                    CUBLAS_DIAG_NON_UNIT, static_cast<int>(p.k), static_cast<int>(p.n), &alpha,
                                    A_pointers, static_cast<int>(p.n), X_pointers, static_cast<int>(p.k), batch));
}

}  // namespace

const Step& cublas_step() {
    // No plan: cuBLAS launches kernels of its own, whose resources the report cannot read.
    static const Step step = {
        "cuBLAS trsmBatched", {max_dimension, max_dimension}, nullptr, 0, solve_tri_cublas, nullptr};
    return step;
}

}  // namespace harness
