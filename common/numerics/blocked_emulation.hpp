// The accuracy a blocked solve keeps when its off-diagonal block products run
// on tensor cores, answered on the CPU before any such kernel exists: the
// blocked algorithm in plain C++, with those products emulated in FP32, in
// TF32 or in split 3xTF32, the same with each diagonal block solved through
// its inverse, and the row-by-row FP32 solve to compare with.
#pragma once

#include "host_floats.hpp"
#include "inputs.hpp"
#include "problem.hpp"

#include <cstdint>

namespace numerics {

// The blocked solve cuts A into square blocks of this many rows (an mma's
// m = 16); the last block holds what is left, n % 16 rows where that is not 0.
constexpr int64_t block_rows = 16;

// The depth of one emulated tensor-core instruction: mma.sync's TF32 shape
// m16n8k8 multiplies 8 columns of a block of A by 8 rows of X at a time.
constexpr int64_t mma_depth = 8;

// How the products of a row block with the rows already solved,
// B_i - Σ_{j<i} L_ij · X_j, are computed. Every mode accumulates in FP32
// (round to nearest even), starting from B_i and subtracting, as an mma
// computes D = (-L_ij)·X_j + C with C = B_i.
enum class ProductMode {
    fp32,    // FP32 operands, one fmaf per product: the blocked order without tensor cores
    tf32,    // both operands rounded to TF32 (round_to_tf32), exact products: plain TF32 mma
    tf32x3,  // both operands split a = hi + lo in TF32, three products lo·hi, hi·lo, hi·hi: 3xTF32
};

// The solves the tool and the tests compare: row-by-row FP32 forward
// substitution; the blocked solve in each product mode; and the blocked solve
// with each diagonal block inverted (solve_blocked_inverse), which would take
// the diagonal chains out of a kernel's dependent path, its products in FP32
// or in 3xTF32.
enum class Method { rows_fp32, blocked_fp32, blocked_tf32, blocked_tf32x3, inverse_fp32, inverse_tf32x3 };

constexpr Method all_methods[] = {Method::rows_fp32,      Method::blocked_fp32, Method::blocked_tf32,
                                  Method::blocked_tf32x3, Method::inverse_fp32, Method::inverse_tf32x3};

const char* method_name(Method method);

// FP32 to TF32 as cvt.rna.tf32.f32 rounds: the 13 low mantissa bits dropped,
// the remaining 10 rounded to nearest with ties away from zero; the result is
// a float whose 13 low bits are zero. Modelled: every finite input, subnormals
// included (TF32 keeps float's 8-bit exponent), and overflow to infinity where
// a value rounds past the largest TF32 (the .satfinite form would clamp
// instead). Not modelled: NaN comes back as it went in, where the hardware may
// return a canonical NaN (no input of the tool or the tests holds one).
float round_to_tf32(float value);

// 3xTF32's operand split: hi = tf32(a), lo = tf32(a - hi). a - hi is exact
// in FP32 (hi is a rounding of a), so hi + lo is a to within 2^-22 |a|
// (|lo| <= 2^-11 |a|, rounded to 11 significant bits), and the product lo·lo
// that 3xTF32 leaves out is at most 2^-22 |a·b|.
struct Tf32Split {
    float hi;
    float lo;
};
Tf32Split split_tf32(float value);

// Solves one matrix by blocks of block_rows rows: for each row block i in
// turn, C_i = B_i - Σ_{j<i} L_ij · X_j in the product mode, then the diagonal
// block L_ii · X_i = C_i by FP32 forward substitution, row by row:
// x = (c - Σ) / a_rr, Σ an fmaf chain from 0 over the block's rows above.
// A is n x n row-major (only its lower triangle is read), B and X are n x k
// row-major; any n >= 1 and k >= 1.
//
// What the emulation models of a tensor-core kernel: the operands' rounding to
// TF32 (or their split), exact products, FP32 accumulation in a register that
// starts from B_i. What it does not model exactly: the order and rounding of
// the additions inside one mma (the hardware sums an instruction's 8 products
// and the accumulator in an order, and with an internal precision and
// rounding, that PTX does not specify; here each product is added to the
// accumulator in turn, in column order, rounded to nearest each time). Nor
// the order in which a kernel's warps would visit the blocks: here block
// column j = 0, 1, ... in turn. For 3xTF32 each k-step of 8
// columns adds its three products as three mma would be issued: the 8
// lo·hi, then the 8 hi·lo, then the 8 hi·hi, the small terms first.
void solve_blocked(int64_t n, int64_t k, const float* A, const float* B, float* X, ProductMode mode);

// The same blocks, each diagonal block solved through its inverse: M_i =
// L_ii^-1 by FP32 forward substitution of the identity's columns (the
// arithmetic of solve_by_rows), then X_i = M_i C_i. Every product, the
// off-diagonal ones and M_i C_i, is taken in `mode` (fp32 or tf32x3), as a
// kernel would take them all on the same units; M_i C_i over the block's
// rows padded with zeros to a multiple of mma_depth. Any mode works; the tool
// and the tests use fp32 and tf32x3.
void solve_blocked_inverse(int64_t n, int64_t k, const float* A, const float* B, float* X, ProductMode mode);

// The row-by-row FP32 forward substitution, the arithmetic of the steps
// without blocks: x_r = (b_r - Σ_{j<r} a_rj x_j) / a_rr, Σ an fmaf chain over
// j from 0, then one subtraction and one division.
void solve_by_rows(int64_t n, int64_t k, const float* A, const float* B, float* X);

// One matrix by a method.
void solve_matrix(Method method, int64_t n, int64_t k, const float* A, const float* B, float* X);

// Every matrix of a batch by a method, on all cores: X in the problem's
// layout (problem.x_elements() floats), the gaps between its matrices left
// holding harness::poison_value(), as the judge expects of a device's output.
harness::HostFloats solve_batch(Method method, const harness::Problem& problem, const harness::Inputs& inputs);

}  // namespace numerics
