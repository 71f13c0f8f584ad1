#include "judge.hpp"

#include "parallel.hpp"
#include "reference.hpp"

#include <algorithm>
#include <cmath>
#include <cstring>
#include <limits>
#include <mutex>
#include <sstream>

namespace harness {

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

// What one thread found over its matrices.
struct Tally {
    double      err2 = 0.0, ref2 = 0.0, worst_bound_ratio = 0.0;
    double      backend_ops_err2 = 0.0, backend_ops_ref2 = 0.0;       // over test-backend-ops' matrices
    int64_t     failed_matrix = std::numeric_limits<int64_t>::max();  // the first matrix with a broken rule
    std::string failure;
    bool        solved = true;  // Verdict::solved's element rules

    void fail(const int64_t m, const std::string& why) {
        if (m < failed_matrix) {
            failed_matrix = m;
            failure       = why;
        }
    }
};

// The rules for the elements of matrix m.
void judge_matrix(const Problem& p, const Family family, const Inputs& in, const HostFloats& X, const Bound bound,
                  const std::vector<char>* const expect_non_finite, const int64_t m, const ReferenceSolver& ref,
                  Tally& tally) {
    const int64_t n = p.n, k = p.k;
    const double  tolerance_factor = element_tolerance_factor(n);
    const int64_t offset           = (m % p.ne02) * p.nb2 + (m / p.ne02) * p.nb3;
    for (int64_t r = 0; r < n; ++r) {
        for (int64_t c = 0; c < k; ++c) {
            const int64_t i     = offset + r * k + c;
            const int64_t dense = (m * n + r) * k + c;
            const double  x     = static_cast<double>(X[i]);
            if (expect_non_finite != nullptr && (*expect_non_finite)[dense]) {
                if (std::isfinite(x)) {
                    tally.fail(m, "finite value " + std::to_string(x) + " at " + where(p, m, r, c) +
                                      ", where a non-finite input must have propagated");
                } else if (bits_of(X[i]) == poison_bits) {
                    // The poison is a NaN too, but no arithmetic makes it: the
                    // GPU's NaN is 0x7fffffff. Still the poison means unwritten.
                    tally.solved = false;
                    tally.fail(m, "unwritten (still the poison) at " + where(p, m, r, c) +
                                      ", where a non-finite input must have propagated");
                }
                continue;
            }
            if (!std::isfinite(x)) {
                tally.solved = false;
                tally.fail(m, "not finite (unwritten, or NaN/Inf) at " + where(p, m, r, c) + ": " + std::to_string(x));
                continue;
            }
            const double x0  = ref.x()[r * k + c];
            const double err = std::fabs(x - x0);
            tally.err2 += err * err;
            tally.ref2 += x0 * x0;
            if (family == Family::backend_ops) {
                tally.backend_ops_err2 += err * err;
                tally.backend_ops_ref2 += x0 * x0;
            }
            if (bound == Bound::check) {
                const double tolerance  = tolerance_factor * ref.bound()[r * k + c];
                tally.worst_bound_ratio = std::max(tally.worst_bound_ratio, bound_ratio(err, tolerance));
                if (!(err <= tolerance)) {
                    std::ostringstream s;
                    s << "error " << err << " beyond the bound " << tolerance << " at " << where(p, m, r, c) << " (got "
                      << x << ", reference " << x0 << ")";
                    tally.fail(m, s.str());
                }
            }
            if (family == Family::exact && bits_of(X[i]) != bits_of(in.X_exact[i])) {
                std::ostringstream s;
                s << "not bit-exact at " << where(p, m, r, c) << ": got " << X[i] << ", exact " << in.X_exact[i];
                tally.fail(m, s.str());
            }
        }
    }
}

// The first element of X outside every batch matrix that no longer holds the
// poison, or -1. Matrices are disjoint (validate), so the elements outside
// them are the gaps between their sorted start offsets.
int64_t first_written_gap(const Problem& p, const HostFloats& X) {
    std::vector<int64_t> starts(static_cast<size_t>(p.batch()));
    for (int64_t m = 0; m < p.batch(); ++m) {
        starts[m] = (m % p.ne02) * p.nb2 + (m / p.ne02) * p.nb3;
    }
    std::sort(starts.begin(), starts.end());
    int64_t gap_begin = 0;
    for (size_t m = 0; m <= starts.size(); ++m) {
        const int64_t gap_end = m < starts.size() ? starts[m] : static_cast<int64_t>(X.size());
        for (int64_t i = gap_begin; i < gap_end; ++i) {
            if (bits_of(X[i]) != poison_bits) {
                return i;
            }
        }
        if (m < starts.size()) {
            gap_begin = starts[m] + p.n * p.k;
        }
    }
    return -1;
}

}  // namespace

double element_tolerance_factor(const int64_t n) {
    return 2.0 * gamma_float(n + 4);
}

double nmse(const double err2, const double ref2) {
    return ref2 > 0.0 ? err2 / ref2 : (err2 > 0.0 ? INFINITY : 0.0);
}

double bound_ratio(const double err, const double tolerance) {
    return tolerance > 0.0 ? err / tolerance : (err > 0.0 ? INFINITY : 0.0);
}

Verdict judge(const Problem& p, const Family family, const Inputs& in, const HostFloats& X, const Bound bound,
              const std::vector<char>* const expect_non_finite) {
    Verdict v;
    if (static_cast<int64_t>(X.size()) != p.x_elements()) {
        v.passed  = false;
        v.failure = "output has " + std::to_string(X.size()) + " elements, expected " + std::to_string(p.x_elements());
        return v;
    }
    Tally      total;
    std::mutex merge;
    parallel_for(
        p.batch(),
        [&](const int64_t begin, const int64_t end) {
            ReferenceSolver ref(p.n, p.k);
            Tally           tally;
            for (int64_t m = begin; m < end; ++m) {
                ref.solve(p, in, m, bound == Bound::check);
                judge_matrix(p, family_of_matrix(family, m), in, X, bound, expect_non_finite, m, ref, tally);
            }
            const std::lock_guard<std::mutex> lock(merge);
            total.err2 += tally.err2;
            total.ref2 += tally.ref2;
            total.backend_ops_err2 += tally.backend_ops_err2;
            total.backend_ops_ref2 += tally.backend_ops_ref2;
            total.worst_bound_ratio = std::max(total.worst_bound_ratio, tally.worst_bound_ratio);
            total.solved            = total.solved && tally.solved;
            if (tally.failed_matrix < total.failed_matrix) {
                total.fail(tally.failed_matrix, tally.failure);
            }
        },
        "checking against the double-precision reference, matrices");
    v.worst_bound_ratio = total.worst_bound_ratio;
    v.nmse              = nmse(total.err2, total.ref2);
    v.backend_ops_nmse  = nmse(total.backend_ops_err2, total.backend_ops_ref2);
    v.solved            = total.solved;
    if (!total.failure.empty()) {
        v.passed  = false;
        v.failure = total.failure;
    }
    // Zero where no matrix was drawn by test-backend-ops' init, so the rule binds only where one was.
    const double nmse_limit = backend_ops_nmse_limit(p.n);
    if (v.passed && !(v.backend_ops_nmse <= nmse_limit)) {
        std::ostringstream s;
        s << "NMSE " << v.backend_ops_nmse << " above the limit " << nmse_limit
          << (p.n <= backend_ops_checked_n ? " (test-backend-ops')" : " (past the n test-backend-ops checks)");
        v.passed  = false;
        v.failure = s.str();
    }
    if (const int64_t i = first_written_gap(p, X); i >= 0) {
        v.solved = false;
        if (v.passed) {
            v.passed  = false;
            v.failure = "element " + std::to_string(i) + " of X lies between batch matrices and was overwritten";
        }
    }
    return v;
}

Verdict judge_copy_of_b(const Problem& p, const Inputs& in, const HostFloats& X) {
    Verdict v;
    if (static_cast<int64_t>(X.size()) != p.x_elements()) {
        v.passed  = false;
        v.failure = "output has " + std::to_string(X.size()) + " elements, expected " + std::to_string(p.x_elements());
        return v;
    }
    for (int64_t m = 0; m < p.batch() && v.passed; ++m) {
        const int64_t x_offset = (m % p.ne02) * p.nb2 + (m / p.ne02) * p.nb3;
        const int64_t b_offset = (m % p.ne02) * p.nb12 + (m / p.ne02) * p.nb13;
        for (int64_t e = 0; e < p.n * p.k; ++e) {
            if (bits_of(X[x_offset + e]) != bits_of(in.B[b_offset + e])) {
                std::ostringstream s;
                s << "X differs from B at " << where(p, m, e / p.k, e % p.k) << ": got " << X[x_offset + e]
                  << ", B holds " << in.B[b_offset + e];
                v.passed  = false;
                v.failure = s.str();
                break;
            }
        }
    }
    if (const int64_t i = first_written_gap(p, X); v.passed && i >= 0) {
        v.passed  = false;
        v.failure = "element " + std::to_string(i) + " of X lies between batch matrices and was overwritten";
    }
    return v;
}

}  // namespace harness
