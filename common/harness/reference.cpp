#include "reference.hpp"

#include "parallel.hpp"

#include <algorithm>
#include <cmath>

// The loops run over a row's columns, contiguous in memory, so that the
// compiler vectorizes them; on x86-64 a copy for AVX2 and FMA is chosen at
// run time where the CPU has them (2^20 matrices of n = k = 64 take about
// 4·10^11 multiply-adds per input family).
#if defined(__x86_64__) && defined(__GNUC__)
#define REFERENCE_CLONES __attribute__((target_clones("arch=x86-64-v3", "default")))
#else
#define REFERENCE_CLONES
#endif

namespace harness {

double gamma_float(const int64_t m) {
    const double u = 0x1.0p-24;
    return static_cast<double>(m) * u / (1.0 - static_cast<double>(m) * u);
}

namespace {

// x = A^-1 b for one matrix; A's lower triangle (row-major n x n, in double)
// in a, b row-major n x k.
REFERENCE_CLONES void substitute(const int64_t n, const int64_t k, const double* const a, const float* const B,
                                 double* const x) {
    for (int64_t r = 0; r < n; ++r) {
        double* const row = x + r * k;
        for (int64_t c = 0; c < k; ++c) {
            row[c] = static_cast<double>(B[r * k + c]);
        }
        for (int64_t j = 0; j < r; ++j) {
            const double  a_rj  = a[r * n + j];
            const double* x_row = x + j * k;
            for (int64_t c = 0; c < k; ++c) {
                row[c] -= a_rj * x_row[c];
            }
        }
        const double a_rr = a[r * n + r];
        for (int64_t c = 0; c < k; ++c) {
            row[c] /= a_rr;
        }
    }
}

// bound = (|A^-1| |A|) |x|: the inverse row by row, by the same substitution
// on the identity; then the product of the two lower triangles; then that
// times |x|. About n^3/3 + n^2 k / 2 multiply-adds.
REFERENCE_CLONES void error_bound(const int64_t n, const int64_t k, const double* const a, const double* const x,
                                  double* const inverse, double* const product, double* const abs_x,
                                  double* const bound) {
    for (int64_t r = 0; r < n; ++r) {
        double* const row = inverse + r * n;
        std::fill(row, row + n, 0.0);
        row[r] = 1.0;
        for (int64_t j = 0; j < r; ++j) {
            const double        a_rj    = a[r * n + j];
            const double* const inv_row = inverse + j * n;
            for (int64_t c = 0; c <= j; ++c) {
                row[c] -= a_rj * inv_row[c];
            }
        }
        const double a_rr = a[r * n + r];
        for (int64_t c = 0; c <= r; ++c) {
            row[c] /= a_rr;
        }
    }
    for (int64_t r = 0; r < n; ++r) {
        double* const row = product + r * n;
        std::fill(row, row + n, 0.0);
        for (int64_t j = 0; j <= r; ++j) {
            const double        inv_rj = std::fabs(inverse[r * n + j]);
            const double* const a_row  = a + j * n;
            for (int64_t c = 0; c <= j; ++c) {
                row[c] += inv_rj * std::fabs(a_row[c]);
            }
        }
    }
    for (int64_t i = 0; i < n * k; ++i) {
        abs_x[i] = std::fabs(x[i]);
    }
    for (int64_t r = 0; r < n; ++r) {
        double* const row = bound + r * k;
        std::fill(row, row + k, 0.0);
        for (int64_t j = 0; j <= r; ++j) {
            const double        p_rj      = product[r * n + j];
            const double* const abs_x_row = abs_x + j * k;
            for (int64_t c = 0; c < k; ++c) {
                row[c] += p_rj * abs_x_row[c];
            }
        }
    }
}

}  // namespace

ReferenceSolver::ReferenceSolver(const int64_t n, const int64_t k)
    : a_(static_cast<size_t>(n * n)),
      inverse_(static_cast<size_t>(n * n)),
      product_(static_cast<size_t>(n * n)),
      x_(static_cast<size_t>(n * k)),
      abs_x_(static_cast<size_t>(n * k)),
      bound_(static_cast<size_t>(n * k)) {}

void ReferenceSolver::solve(const Problem& p, const Inputs& in, const int64_t m, const bool with_bound) {
    const int64_t      n = p.n, k = p.k;
    const int64_t      i02 = m % p.ne02, i03 = m / p.ne02;
    const float* const A = in.A.data() + i02 * p.nb02 + i03 * p.nb03;
    const float* const B = in.B.data() + i02 * p.nb12 + i03 * p.nb13;
    // Only the lower triangle is read: the upper one may hold anything.
    for (int64_t r = 0; r < n; ++r) {
        for (int64_t c = 0; c < n; ++c) {
            a_[r * n + c] = c <= r ? static_cast<double>(A[r * n + c]) : 0.0;
        }
    }
    substitute(n, k, a_.data(), B, x_.data());
    if (with_bound) {
        error_bound(n, k, a_.data(), x_.data(), inverse_.data(), product_.data(), abs_x_.data(), bound_.data());
    }
}

Reference solve_reference(const Problem& p, const Inputs& in, const bool with_bound) {
    const int64_t matrix_elements = p.n * p.k;
    Reference     ref;
    ref.X.assign(static_cast<size_t>(p.batch() * matrix_elements), 0.0);
    if (with_bound) {
        ref.bound.assign(ref.X.size(), 0.0);
    }
    parallel_for(p.batch(), [&](const int64_t begin, const int64_t end) {
        ReferenceSolver solver(p.n, p.k);
        for (int64_t m = begin; m < end; ++m) {
            solver.solve(p, in, m, with_bound);
            std::copy(solver.x().begin(), solver.x().end(), ref.X.begin() + m * matrix_elements);
            if (with_bound) {
                std::copy(solver.bound().begin(), solver.bound().end(), ref.bound.begin() + m * matrix_elements);
            }
        }
    });
    return ref;
}

}  // namespace harness
