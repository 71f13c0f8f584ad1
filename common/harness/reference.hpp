// The double-precision CPU reference: the exact solution of the float inputs,
// and the quantity that bounds a forward substitution's rounding error.
#pragma once

#include "inputs.hpp"
#include "problem.hpp"

#include <cstdint>
#include <vector>

namespace harness {

// Solves one batch matrix at a time, in double, with scratch of its own:
// one solver per thread.
class ReferenceSolver {
public:
    explicit ReferenceSolver(int64_t n, int64_t k);

    // Solves matrix m (batch order: i03 outer, i02 inner) of the problem's
    // inputs, reading only A's lower triangle. x(): n x k, row-major. With
    // `with_bound`, bound() holds for every element the quantity
    // (|A^-1|·|A|·|x|)_i that bounds the rounding error of any backward-stable
    // forward substitution (Higham, Accuracy and Stability of Numerical
    // Algorithms, Thm 8.5: the computed x̂ solves (A + ΔA)x̂ = b with
    // |ΔA| <= γ_n |A|, so |x̂ - x| <= γ_n |A^-1||A||x̂|).
    void solve(const Problem& problem, const Inputs& inputs, int64_t m, bool with_bound);

    const std::vector<double>& x() const { return x_; }
    const std::vector<double>& bound() const { return bound_; }

private:
    std::vector<double> a_, inverse_, product_, x_, abs_x_, bound_;
};

// The whole batch at once, in a dense layout: element (matrix m, row r,
// column c) at (m*n + r)*k + c. For small problems; the judge solves matrix
// by matrix and keeps none of this.
struct Reference {
    std::vector<double> X;
    std::vector<double> bound;
};

Reference solve_reference(const Problem& problem, const Inputs& inputs, bool with_bound = true);

// γ_m = m·u / (1 - m·u) for float's unit roundoff u = 2^-24.
double gamma_float(int64_t m);

}  // namespace harness
