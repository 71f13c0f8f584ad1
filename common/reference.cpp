#include "reference.hpp"

#include <algorithm>
#include <cmath>
#include <cstring>
#include <sstream>

namespace harness {

double gamma_float(const int64_t m) {
    const double u = 0x1.0p-24;
    return static_cast<double>(m) * u / (1.0 - static_cast<double>(m) * u);
}

Reference solve_reference(const Problem& p, const Inputs& in, const bool with_bound) {
    const int64_t n = p.n, k = p.k;
    Reference     ref;
    ref.X.assign(static_cast<size_t>(p.batch() * n * k), 0.0);
    if (with_bound) {
        ref.bound.assign(ref.X.size(), 0.0);
    }
    std::vector<double> a(static_cast<size_t>(n * n)), inverse(static_cast<size_t>(n * n)), abs_a_x(static_cast<size_t>(n * k));
    for (int64_t i03 = 0; i03 < p.ne03; ++i03) {
        for (int64_t i02 = 0; i02 < p.ne02; ++i02) {
            const int64_t m = i03 * p.ne02 + i02;
            const float*  A = in.A.data() + i02 * p.nb02 + i03 * p.nb03;
            const float*  B = in.B.data() + i02 * p.nb12 + i03 * p.nb13;
            double* const X = ref.X.data() + m * n * k;
            // Only the lower triangle is read: the upper one may hold anything.
            for (int64_t r = 0; r < n; ++r) {
                for (int64_t c = 0; c < n; ++c) {
                    a[r * n + c] = c <= r ? static_cast<double>(A[r * n + c]) : 0.0;
                }
            }
            for (int64_t c = 0; c < k; ++c) {
                for (int64_t r = 0; r < n; ++r) {
                    double sum = static_cast<double>(B[r * k + c]);
                    for (int64_t j = 0; j < r; ++j) {
                        sum -= a[r * n + j] * X[j * k + c];
                    }
                    X[r * k + c] = sum / a[r * n + r];
                }
            }
            if (!with_bound) {
                continue;
            }
            // A^-1, column by column, by the same substitution on the identity.
            for (int64_t c = 0; c < n; ++c) {
                for (int64_t r = 0; r < n; ++r) {
                    double sum = r == c ? 1.0 : 0.0;
                    for (int64_t j = c; j < r; ++j) {
                        sum -= a[r * n + j] * inverse[j * n + c];
                    }
                    inverse[r * n + c] = r < c ? 0.0 : sum / a[r * n + r];
                }
            }
            // bound = |A^-1| (|A| |x|)
            for (int64_t r = 0; r < n; ++r) {
                for (int64_t c = 0; c < k; ++c) {
                    double sum = 0.0;
                    for (int64_t j = 0; j <= r; ++j) {
                        sum += std::fabs(a[r * n + j]) * std::fabs(X[j * k + c]);
                    }
                    abs_a_x[r * k + c] = sum;
                }
            }
            double* const bound = ref.bound.data() + m * n * k;
            for (int64_t r = 0; r < n; ++r) {
                for (int64_t c = 0; c < k; ++c) {
                    double sum = 0.0;
                    for (int64_t j = 0; j <= r; ++j) {
                        sum += std::fabs(inverse[r * n + j]) * abs_a_x[j * k + c];
                    }
                    bound[r * k + c] = sum;
                }
            }
        }
    }
    return ref;
}

namespace {

uint32_t bits_of(const float value) {
    uint32_t bits;
    std::memcpy(&bits, &value, sizeof(bits));
    return bits;
}

std::string where(const Problem& p, const int64_t m, const int64_t r, const int64_t c) {
    std::ostringstream s;
    s << "matrix (i02 " << m % p.ne02 << ", i03 " << m / p.ne02 << ") row " << r << " column " << c;
    return s.str();
}

}  // namespace

Verdict judge(const Problem& p, const Family family, const Inputs& in, const Reference& ref,
              const std::vector<float>& X, const std::vector<char>* const expect_non_finite) {
    const int64_t n = p.n, k = p.k;
    Verdict       v;
    const auto    fail = [&v](const std::string& why) {
        if (v.passed) {
            v.passed  = false;
            v.failure = why;
        }
    };
    if (static_cast<int64_t>(X.size()) != p.x_elements()) {
        fail("output has " + std::to_string(X.size()) + " elements, expected " + std::to_string(p.x_elements()));
        return v;
    }
    const double tolerance_factor = 2.0 * gamma_float(n + 4);

    // Nothing may be written between the batch matrices: mark what the
    // matrices cover, then every other element must still be poison.
    std::vector<char> covered(X.size(), 0);

    double err2 = 0.0, ref2 = 0.0;
    for (int64_t m = 0; m < p.batch(); ++m) {
        const int64_t i02 = m % p.ne02, i03 = m / p.ne02;
        const int64_t offset = i02 * p.nb2 + i03 * p.nb3;
        for (int64_t c = 0; c < k; ++c) {
            double col_err = 0.0, col_ref = 0.0;
            for (int64_t r = 0; r < n; ++r) {
                const int64_t i   = offset + r * k + c;
                const double  x   = static_cast<double>(X[i]);
                const double  x0  = ref.X[(m * n + r) * k + c];
                const double  err = std::fabs(x - x0);
                covered[i]        = 1;
                ++v.elements;
                if (expect_non_finite != nullptr && (*expect_non_finite)[(m * n + r) * k + c]) {
                    if (std::isfinite(x)) {
                        fail("finite value " + std::to_string(x) + " at " + where(p, m, r, c) +
                             ", where a non-finite input must have propagated");
                    } else if (bits_of(X[i]) == poison_bits) {
                        // The poison is a NaN too, but no arithmetic makes it: the
                        // GPU's NaN is 0x7fffffff. Still the poison means unwritten.
                        fail("unwritten (still the poison) at " + where(p, m, r, c) +
                             ", where a non-finite input must have propagated");
                    }
                    continue;
                }
                if (!std::isfinite(x)) {
                    fail("not finite (unwritten, or NaN/Inf) at " + where(p, m, r, c) + ": " + std::to_string(x));
                    continue;
                }
                err2 += err * err;
                ref2 += x0 * x0;
                col_err = std::max(col_err, err);
                col_ref = std::max(col_ref, std::fabs(x0));
                if (!ref.bound.empty()) {
                    const double tolerance = tolerance_factor * ref.bound[(m * n + r) * k + c];
                    const double ratio     = tolerance > 0.0 ? err / tolerance : (err > 0.0 ? INFINITY : 0.0);
                    v.worst_bound_ratio    = std::max(v.worst_bound_ratio, ratio);
                    if (!(err <= tolerance)) {
                        std::ostringstream s;
                        s << "error " << err << " beyond the bound " << tolerance << " at " << where(p, m, r, c)
                          << " (got " << x << ", reference " << x0 << ")";
                        fail(s.str());
                    }
                }
                if (family == Family::exact && bits_of(X[i]) != bits_of(in.X_exact[i])) {
                    std::ostringstream s;
                    s << "not bit-exact at " << where(p, m, r, c) << ": got " << X[i] << ", exact "
                      << in.X_exact[i];
                    fail(s.str());
                }
            }
            if (col_ref > 0.0) {
                v.max_rel_error = std::max(v.max_rel_error, col_err / col_ref);
            } else if (col_err > 0.0) {
                v.max_rel_error = INFINITY;
            }
        }
    }
    v.nmse = ref2 > 0.0 ? err2 / ref2 : (err2 > 0.0 ? INFINITY : 0.0);
    if (family == Family::backend_ops && !(v.nmse <= backend_ops_max_nmse)) {
        std::ostringstream s;
        s << "NMSE " << v.nmse << " above test-backend-ops' limit " << backend_ops_max_nmse;
        fail(s.str());
    }
    for (size_t i = 0; i < X.size(); ++i) {
        if (!covered[i] && bits_of(X[i]) != poison_bits) {
            fail("element " + std::to_string(i) + " of X lies between batch matrices and was overwritten");
            break;
        }
    }
    return v;
}

}  // namespace harness
