#include "problem.hpp"

#include <algorithm>
#include <sstream>

namespace harness {

Problem Problem::contiguous(const int64_t n, const int64_t k, const int64_t ne02, const int64_t ne03) {
    return padded(n, k, ne02, ne03, 0);
}

Problem Problem::padded(const int64_t n, const int64_t k, const int64_t ne02, const int64_t ne03, const int64_t pad,
                        const int64_t stride_multiple) {
    const auto round_up = [stride_multiple](const int64_t x) {
        return (x + stride_multiple - 1) / stride_multiple * stride_multiple;
    };
    Problem p;
    p.n    = n;
    p.k    = k;
    p.ne02 = ne02;
    p.ne03 = ne03;
    p.nb02 = round_up(n * n + pad);
    p.nb03 = round_up(ne02 * p.nb02 + pad);
    p.nb12 = round_up(n * k + pad);
    p.nb13 = round_up(ne02 * p.nb12 + pad);
    p.nb2  = p.nb12;
    p.nb3  = p.nb13;
    return p;
}

namespace {

// One past the last element of a batch of matrices of `footprint` elements.
int64_t extent(const Problem& p, const int64_t stride2, const int64_t stride3, const int64_t footprint) {
    if (p.batch() == 0) {
        return 0;
    }
    return (p.ne02 - 1) * stride2 + (p.ne03 - 1) * stride3 + footprint;
}

// True when the ne02 × ne03 matrices of `footprint` elements at these strides
// are pairwise disjoint. A layout is disjoint when one batch dimension steps
// over whole matrices and the other steps over the whole run of the first
// (either nesting order); a dimension of size 1 never steps at all.
bool batch_is_disjoint(const Problem& p, const int64_t stride2, const int64_t stride3, const int64_t footprint) {
    const bool inner2 =
        (p.ne02 == 1 || stride2 >= footprint) && (p.ne03 == 1 || stride3 >= (p.ne02 - 1) * stride2 + footprint);
    const bool inner3 =
        (p.ne03 == 1 || stride3 >= footprint) && (p.ne02 == 1 || stride2 >= (p.ne03 - 1) * stride3 + footprint);
    return inner2 || inner3;
}

[[noreturn]] void refuse(const std::string& what) {
    throw InvalidProblem("solve_tri refused: " + what);
}

// True when the last element of the batch, in bytes, fits in an int64_t, so
// that every offset computed from these strides is exact.
bool extent_fits(const Problem& p, const int64_t stride2, const int64_t stride3, const int64_t footprint) {
    int64_t offset2 = 0, offset3 = 0, sum = 0, bytes = 0;
    return !__builtin_mul_overflow(std::max<int64_t>(p.ne02 - 1, 0), stride2, &offset2) &&
           !__builtin_mul_overflow(std::max<int64_t>(p.ne03 - 1, 0), stride3, &offset3) &&
           !__builtin_add_overflow(offset2, offset3, &sum) && !__builtin_add_overflow(sum, footprint, &sum) &&
           !__builtin_mul_overflow(sum, static_cast<int64_t>(sizeof(float)), &bytes);
}

}  // namespace

int64_t Problem::a_elements() const {
    return extent(*this, nb02, nb03, n * n);
}
int64_t Problem::b_elements() const {
    return extent(*this, nb12, nb13, n * k);
}
int64_t Problem::x_elements() const {
    return extent(*this, nb2, nb3, n * k);
}

double Problem::bytes_moved() const {
    return static_cast<double>(sizeof(float)) * static_cast<double>(batch()) * static_cast<double>(n * n + 2 * n * k);
}

std::string Problem::describe() const {
    std::ostringstream s;
    s << "A{" << n << ',' << n << ',' << ne02 << ',' << ne03 << "} B{" << k << ',' << n << ',' << ne02 << ',' << ne03
      << '}';
    return s.str();
}

std::optional<int64_t> misaligned_stride(const Problem& p, const int alignment_bytes) {
    const int64_t unit = alignment_bytes / static_cast<int64_t>(sizeof(float));
    for (const int64_t stride : {p.nb02, p.nb03, p.nb12, p.nb13, p.nb2, p.nb3}) {
        if (stride % unit != 0) {
            return stride;
        }
    }
    return std::nullopt;
}

void validate(const Problem& p, const Limits& limits, const float* A, const float* B, const float* X) {
    if (p.n < 1 || p.n > limits.max_n) {
        refuse("n = " + std::to_string(p.n) +
               " is outside this step's limit 1 <= n <= " + std::to_string(limits.max_n));
    }
    if (p.k < 1 || p.k > limits.max_k) {
        refuse("k = " + std::to_string(p.k) +
               " is outside this step's limit 1 <= k <= " + std::to_string(limits.max_k));
    }
    if (p.ne02 < 0 || p.ne03 < 0) {
        refuse("batch counts must be >= 0, got ne02 = " + std::to_string(p.ne02) +
               ", ne03 = " + std::to_string(p.ne03));
    }
    if (p.ne02 > max_batch || p.ne03 > max_batch || (p.ne02 > 0 && p.ne03 > max_batch / p.ne02)) {
        refuse("ne02 * ne03 exceeds the limit of " + std::to_string(max_batch) +
               " matrices per launch (one block per matrix, grid x dimension)");
    }
    if (p.nb02 < 0 || p.nb03 < 0 || p.nb12 < 0 || p.nb13 < 0 || p.nb2 < 0 || p.nb3 < 0) {
        refuse("batch strides must be >= 0");
    }
    if (!extent_fits(p, p.nb02, p.nb03, p.n * p.n) || !extent_fits(p, p.nb12, p.nb13, p.n * p.k) ||
        !extent_fits(p, p.nb2, p.nb3, p.n * p.k)) {
        refuse("batch strides too large: a tensor's extent in bytes overflows 64 bits");
    }
    if (!batch_is_disjoint(p, p.nb02, p.nb03, p.n * p.n)) {
        refuse("A's batch strides (" + std::to_string(p.nb02) + ", " + std::to_string(p.nb03) +
               ") make batch matrices of " + std::to_string(p.n * p.n) + " elements overlap");
    }
    if (!batch_is_disjoint(p, p.nb12, p.nb13, p.n * p.k)) {
        refuse("B's batch strides (" + std::to_string(p.nb12) + ", " + std::to_string(p.nb13) +
               ") make batch matrices of " + std::to_string(p.n * p.k) + " elements overlap");
    }
    if (!batch_is_disjoint(p, p.nb2, p.nb3, p.n * p.k)) {
        refuse("X's batch strides (" + std::to_string(p.nb2) + ", " + std::to_string(p.nb3) +
               ") make batch matrices of " + std::to_string(p.n * p.k) + " elements overlap");
    }
    if (p.batch() == 0) {
        return;  // nothing to read or write: a valid no-op
    }
    if (A == nullptr || B == nullptr || X == nullptr) {
        refuse("A, B and X must be non-null when the batch is not empty");
    }
    const auto aligned = [&limits](const void* pointer) {
        return reinterpret_cast<uintptr_t>(pointer) % static_cast<uintptr_t>(limits.alignment_bytes) == 0;
    };
    if (!aligned(A) || !aligned(B) || !aligned(X)) {
        refuse("A, B and X must be aligned to " + std::to_string(limits.alignment_bytes) + " bytes");
    }
    if (const std::optional<int64_t> stride = misaligned_stride(p, limits.alignment_bytes)) {
        refuse("batch strides must be multiples of " +
               std::to_string(limits.alignment_bytes / static_cast<int>(sizeof(float))) + " elements (" +
               std::to_string(limits.alignment_bytes) + " bytes), got " + std::to_string(*stride));
    }
    const auto overlaps = [](const float* p0, const int64_t n0, const float* p1, const int64_t n1) {
        return p0 < p1 + n1 && p1 < p0 + n0;
    };
    if (overlaps(X, p.x_elements(), A, p.a_elements()) || overlaps(X, p.x_elements(), B, p.b_elements())) {
        refuse("X overlaps A or B: the steps do not solve in place");
    }
}

}  // namespace harness
