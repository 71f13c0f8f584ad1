#include "blocked_emulation.hpp"

#include "parallel.hpp"

#include <algorithm>
#include <cmath>
#include <cstring>
#include <vector>

namespace numerics {

const char* method_name(const Method method) {
    switch (method) {
        case Method::rows_fp32: return "rows fp32";
        case Method::blocked_fp32: return "blocked fp32";
        case Method::blocked_tf32: return "blocked tf32";
        case Method::blocked_tf32x3: return "blocked tf32x3";
        case Method::inverse_fp32: return "inverse fp32";
        case Method::inverse_tf32x3: return "inverse tf32x3";
    }
    return "?";
}

float round_to_tf32(const float value) {
    uint32_t bits;
    std::memcpy(&bits, &value, sizeof(bits));
    constexpr uint32_t exponent_mask = 0x7F800000u;
    if ((bits & exponent_mask) == exponent_mask) {
        return value;  // infinity stays itself; NaN is passed through (see the header)
    }
    // Float is sign and magnitude, so adding half a unit of the kept last bit
    // (bit 13) to the magnitude and dropping the 13 low bits rounds the
    // magnitude to nearest with ties away from zero, whatever the sign. A
    // carry out of the mantissa steps the exponent up, as rounding must, and
    // past the largest finite value reaches infinity's bit pattern.
    constexpr uint32_t half_unit    = 0x00001000u;
    constexpr uint32_t dropped_bits = 0x00001FFFu;
    bits                            = (bits + half_unit) & ~dropped_bits;
    float rounded;
    std::memcpy(&rounded, &bits, sizeof(rounded));
    return rounded;
}

Tf32Split split_tf32(const float value) {
    const float hi = round_to_tf32(value);
    return {hi, round_to_tf32(value - hi)};
}

namespace {

// The operands of the block products, rounded once per solved row of X (a
// kernel would convert each fragment as it loads it; the values are the same).
struct RoundedRows {
    std::vector<float> hi;  // tf32 and tf32x3: round_to_tf32(x)
    std::vector<float> lo;  // tf32x3: round_to_tf32(x - hi)
};

void round_rows(const ProductMode mode, const int64_t k, const int64_t row_begin, const int64_t row_end,
                const float* const X, RoundedRows& rounded) {
    for (int64_t i = row_begin * k; i < row_end * k; ++i) {
        if (mode == ProductMode::tf32) {
            rounded.hi[i] = round_to_tf32(X[i]);
        } else if (mode == ProductMode::tf32x3) {
            const Tf32Split split = split_tf32(X[i]);
            rounded.hi[i]         = split.hi;
            rounded.lo[i]         = split.lo;
        }
    }
}

// c -= Σ_{j < columns} a_row[j] · X[j][·] for one row, every column of X at
// once, in the product mode. `columns` is a multiple of mma_depth: the
// off-diagonal blocks are whole, and an inverse's rows are padded with zeros.
void subtract_block_products(const ProductMode mode, const int64_t k, const float* const a_row, const int64_t columns,
                             const float* const X, const RoundedRows& rounded, float* const c) {
    if (mode == ProductMode::fp32) {
        for (int64_t j = 0; j < columns; ++j) {
            const float        minus_a = -a_row[j];
            const float* const x_row   = X + j * k;
            for (int64_t col = 0; col < k; ++col) {
                c[col] = std::fmaf(minus_a, x_row[col], c[col]);
            }
        }
        return;
    }
    if (mode == ProductMode::tf32) {
        // Products of two 11-bit significands are exact in FP32's 24 bits, so
        // the fmaf rounds only the accumulation, as the mma's adder does.
        for (int64_t j = 0; j < columns; ++j) {
            const float        minus_a = -round_to_tf32(a_row[j]);
            const float* const x_row   = rounded.hi.data() + j * k;
            for (int64_t col = 0; col < k; ++col) {
                c[col] = std::fmaf(minus_a, x_row[col], c[col]);
            }
        }
        return;
    }
    // 3xTF32: per k-step of mma_depth columns, the three instructions in the
    // order that adds the small terms before the large one.
    for (int64_t step = 0; step < columns; step += mma_depth) {
        Tf32Split minus_a[mma_depth];
        for (int64_t d = 0; d < mma_depth; ++d) {
            const Tf32Split split = split_tf32(a_row[step + d]);
            minus_a[d]            = {-split.hi, -split.lo};  // negation is exact: tf32(-a) = -tf32(a)
        }
        for (int64_t d = 0; d < mma_depth; ++d) {  // lo(a) · hi(x)
            const float* const x_hi = rounded.hi.data() + (step + d) * k;
            for (int64_t col = 0; col < k; ++col) {
                c[col] = std::fmaf(minus_a[d].lo, x_hi[col], c[col]);
            }
        }
        for (int64_t d = 0; d < mma_depth; ++d) {  // hi(a) · lo(x)
            const float* const x_lo = rounded.lo.data() + (step + d) * k;
            for (int64_t col = 0; col < k; ++col) {
                c[col] = std::fmaf(minus_a[d].hi, x_lo[col], c[col]);
            }
        }
        for (int64_t d = 0; d < mma_depth; ++d) {  // hi(a) · hi(x)
            const float* const x_hi = rounded.hi.data() + (step + d) * k;
            for (int64_t col = 0; col < k; ++col) {
                c[col] = std::fmaf(minus_a[d].hi, x_hi[col], c[col]);
            }
        }
    }
}

// FP32 forward substitution of rows [row_begin, row_end) against the columns
// [row_begin, r) of the same rows: x_r = (c_r - Σ) / a_rr, Σ an fmaf chain
// from 0 in column order. C holds row r's right-hand side at C + (r - row_begin)*k.
// `sum` is scratch of k floats.
void substitute(const int64_t n, const int64_t k, const float* const A, const int64_t row_begin, const int64_t row_end,
                const float* const C, float* const X, float* const sum) {
    for (int64_t r = row_begin; r < row_end; ++r) {
        const float* const a_row = A + r * n;
        std::fill(sum, sum + k, 0.0f);
        for (int64_t j = row_begin; j < r; ++j) {
            const float        a_rj  = a_row[j];
            const float* const x_row = X + j * k;
            for (int64_t col = 0; col < k; ++col) {
                sum[col] = std::fmaf(a_rj, x_row[col], sum[col]);
            }
        }
        const float        a_rr  = a_row[r];
        const float* const c_row = C + (r - row_begin) * k;
        float* const       x_row = X + r * k;
        for (int64_t col = 0; col < k; ++col) {
            x_row[col] = (c_row[col] - sum[col]) / a_rr;
        }
    }
}

// The rounded copies a product mode needs of `elements` floats: none for
// fp32, hi for tf32, hi and lo for tf32x3.
RoundedRows rounded_for(const ProductMode mode, const int64_t elements) {
    RoundedRows rounded;
    if (mode != ProductMode::fp32) {
        rounded.hi.resize(static_cast<size_t>(elements));
    }
    if (mode == ProductMode::tf32x3) {
        rounded.lo.resize(static_cast<size_t>(elements));
    }
    return rounded;
}

// C_i = B_i - Σ_{j<i} L_ij X_j for the rows [block_begin, block_end), into
// c (row r at c + (r - block_begin) * k), the products in the mode.
void right_hand_sides(const ProductMode mode, const int64_t n, const int64_t k, const float* const A,
                      const float* const B, const int64_t block_begin, const int64_t block_end, const float* const X,
                      const RoundedRows& rounded, float* const c) {
    for (int64_t r = block_begin; r < block_end; ++r) {
        float* const c_row = c + (r - block_begin) * k;
        std::copy(B + r * k, B + (r + 1) * k, c_row);
        subtract_block_products(mode, k, A + r * n, block_begin, X, rounded, c_row);
    }
}

}  // namespace

void solve_blocked(const int64_t n, const int64_t k, const float* const A, const float* const B, float* const X,
                   const ProductMode mode) {
    std::vector<float> c(static_cast<size_t>(block_rows * k)), sum(static_cast<size_t>(k));
    RoundedRows        rounded = rounded_for(mode, n * k);
    for (int64_t block_begin = 0; block_begin < n; block_begin += block_rows) {
        const int64_t block_end = std::min(n, block_begin + block_rows);
        right_hand_sides(mode, n, k, A, B, block_begin, block_end, X, rounded, c.data());
        substitute(n, k, A, block_begin, block_end, c.data(), X, sum.data());
        round_rows(mode, k, block_begin, block_end, X, rounded);
    }
}

void solve_blocked_inverse(const int64_t n, const int64_t k, const float* const A, const float* const B, float* const X,
                           const ProductMode mode) {
    const size_t       square = static_cast<size_t>(block_rows * block_rows);
    std::vector<float> c(static_cast<size_t>(block_rows * k), 0.0f), sum(static_cast<size_t>(block_rows));
    std::vector<float> diagonal(square), identity(square), inverse(square), minus_row(static_cast<size_t>(block_rows));
    RoundedRows        rounded = rounded_for(mode, n * k), rounded_c = rounded_for(mode, block_rows * k);
    for (int64_t block_begin = 0; block_begin < n; block_begin += block_rows) {
        const int64_t block_end = std::min(n, block_begin + block_rows);
        const int64_t m         = block_end - block_begin;
        // C_i, block_rows rows of k; rows past m stay zero.
        std::fill(c.begin(), c.end(), 0.0f);
        right_hand_sides(mode, n, k, A, B, block_begin, block_end, X, rounded, c.data());
        // M_i: L_ii (m x m) solved against the identity's m columns at once.
        std::fill(identity.begin(), identity.end(), 0.0f);
        for (int64_t r = 0; r < m; ++r) {
            const float* const a_row = A + (block_begin + r) * n + block_begin;
            std::copy(a_row, a_row + m, diagonal.data() + r * m);
            identity[static_cast<size_t>(r * m + r)] = 1.0f;
        }
        substitute(m, m, diagonal.data(), 0, m, identity.data(), inverse.data(), sum.data());
        // X_i = M_i C_i: each row 0 minus (-M_i's row) times C_i, over
        // block_rows columns (a multiple of mma_depth), zero past the row's
        // diagonal and past m: zeros add nothing, exactly, in every mode.
        round_rows(mode, k, 0, block_rows, c.data(), rounded_c);
        for (int64_t r = 0; r < m; ++r) {
            std::fill(minus_row.begin(), minus_row.end(), 0.0f);
            for (int64_t j = 0; j <= r; ++j) {
                minus_row[static_cast<size_t>(j)] = -inverse[static_cast<size_t>(r * m + j)];
            }
            float* const x_row = X + (block_begin + r) * k;
            std::fill(x_row, x_row + k, 0.0f);
            subtract_block_products(mode, k, minus_row.data(), block_rows, c.data(), rounded_c, x_row);
        }
        round_rows(mode, k, block_begin, block_end, X, rounded);
    }
}

void solve_by_rows(const int64_t n, const int64_t k, const float* const A, const float* const B, float* const X) {
    std::vector<float> sum(static_cast<size_t>(k));
    substitute(n, k, A, 0, n, B, X, sum.data());
}

void solve_matrix(const Method method, const int64_t n, const int64_t k, const float* const A, const float* const B,
                  float* const X) {
    switch (method) {
        case Method::rows_fp32: solve_by_rows(n, k, A, B, X); return;
        case Method::blocked_fp32: solve_blocked(n, k, A, B, X, ProductMode::fp32); return;
        case Method::blocked_tf32: solve_blocked(n, k, A, B, X, ProductMode::tf32); return;
        case Method::blocked_tf32x3: solve_blocked(n, k, A, B, X, ProductMode::tf32x3); return;
        case Method::inverse_fp32: solve_blocked_inverse(n, k, A, B, X, ProductMode::fp32); return;
        case Method::inverse_tf32x3: solve_blocked_inverse(n, k, A, B, X, ProductMode::tf32x3); return;
    }
}

harness::HostFloats solve_batch(const Method method, const harness::Problem& p, const harness::Inputs& inputs) {
    harness::HostFloats X = harness::filled_floats(p.x_elements(), harness::poison_value());
    harness::parallel_for(p.batch(), [&](const int64_t begin, const int64_t end) {
        for (int64_t m = begin; m < end; ++m) {
            const int64_t i02 = m % p.ne02, i03 = m / p.ne02;
            solve_matrix(method, p.n, p.k, inputs.A.data() + i02 * p.nb02 + i03 * p.nb03,
                         inputs.B.data() + i02 * p.nb12 + i03 * p.nb13, X.data() + i02 * p.nb2 + i03 * p.nb3);
        }
    });
    return X;
}

}  // namespace numerics
