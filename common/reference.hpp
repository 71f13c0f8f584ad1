// The double-precision CPU reference and the rules a step's output must meet.
#pragma once

#include "inputs.hpp"
#include "problem.hpp"

#include <cstdint>
#include <string>
#include <vector>

namespace harness {

// The exact solution of the float inputs, computed in double, and for every
// element the quantity (|A^-1|·|A|·|x|)_i that bounds the rounding error of
// any backward-stable forward substitution (Higham, Accuracy and Stability of
// Numerical Algorithms, Thm 8.5: the computed x̂ solves (A + ΔA)x̂ = b with
// |ΔA| <= γ_n |A|, so |x̂ - x| <= γ_n |A^-1||A||x̂|).
// Dense layout: element (matrix m, row r, column c) at (m*n + r)*k + c, with m
// in batch order (i03 outer, i02 inner).
struct Reference {
    std::vector<double> X;
    std::vector<double> bound;
};

// Set `with_bound` to false to skip the O(n^3) inverse per matrix where only
// the solution is wanted.
Reference solve_reference(const Problem& problem, const Inputs& inputs, bool with_bound = true);

// γ_m = m·u / (1 - m·u) for float's unit roundoff u = 2^-24.
double gamma_float(int64_t m);

// How a step's output X (problem.x_elements() floats, as copied back from the
// device) compares with the reference.
struct Verdict {
    bool        passed = true;
    std::string failure;          // the first broken rule, with the element it broke at
    double      nmse = 0.0;       // Σ(x - ref)² / Σ ref², test-backend-ops' metric
    double      max_rel_error = 0.0;  // max over columns of ||x - ref||∞ / ||ref||∞
    double      worst_bound_ratio = 0.0;  // max over elements of |x - ref| / tolerance (<= 1 passes)
    int64_t     elements = 0;
};

// The rules, each of which fails the check:
// - every element is written and finite (the output is poisoned with NaN
//   before the launch, and NaN compares false with everything);
// - the gaps between X's batch matrices keep the poison: nothing was written
//   outside the matrices;
// - every element is within 2·γ_{n+4}·(|A^-1||A||x|)_i of the reference: the
//   forward-substitution bound, with 4 extra units of roundoff for an
//   approximate division (fast math: up to 2 ulp) or reciprocal and fmaf, and
//   a factor 2 for bounding with x instead of x̂;
// - family backend_ops: NMSE <= 1e-7, test-backend-ops' own threshold;
// - family exact: every element equal to the exact solution, bit for bit.
//
// `expect_non_finite`, when given (dense layout, as Reference), marks the
// elements that must come out NaN or Inf instead: the rows a zero diagonal, a
// NaN or an Inf in the input poisons (written: not the poison's bits). Every
// other element follows the rules.
Verdict judge(const Problem& problem, Family family, const Inputs& inputs, const Reference& reference,
              const std::vector<float>& X, const std::vector<char>* expect_non_finite = nullptr);

constexpr double backend_ops_max_nmse = 1e-7;

}  // namespace harness
