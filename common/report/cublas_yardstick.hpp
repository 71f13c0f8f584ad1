// cuBLAS as ggml's CUDA backend calls it for SOLVE_TRI (docs/upstream.md, "How ggml calls cuBLAS"), as a
// step like the workbook's own, so that the report checks, times and prints
// it the same way.
#pragma once

#include "problem.hpp"

namespace harness {

// Its launcher does what ggml does per call: copies B into X, builds the
// arrays of per-matrix pointers to A and X on the device, sets the handle's
// stream and default math mode (TF32 gives visible errors), and calls
// cublasStrsmBatched on the row-major data as side RIGHT, fill UPPER, op N,
// diag NON_UNIT, m = k, n = n, lda = n, ldb = k (it solves Xᵀ·Aᵀ = Bᵀ in
// column-major terms). B and X must share one batch layout, since B is
// copied into X in one piece. Throws std::runtime_error on a cuBLAS error.
const Step& cublas_step();

}  // namespace harness
