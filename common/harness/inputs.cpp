#include "inputs.hpp"

#include "parallel.hpp"

#include <algorithm>
#include <cmath>
#include <cstring>
#include <iterator>
#include <random>

#if defined(__x86_64__) && defined(__GNUC__)
#define INPUTS_CLONES __attribute__((target_clones("arch=x86-64-v3", "default")))
#else
#define INPUTS_CLONES
#endif

namespace harness {

const char* family_name(const Family family) {
    switch (family) {
        case Family::well_conditioned: return "well-conditioned";
        case Family::backend_ops: return "test-backend-ops";
        case Family::delta_rule: return "delta-rule";
        case Family::exact: return "exact";
        case Family::mixed: return "the four in turn";
    }
    return "?";
}

Family family_of_matrix(const Family family, const int64_t m) {
    return family == Family::mixed ? all_families[static_cast<size_t>(m) % std::size(all_families)] : family;
}

float poison_value() {
    float value;
    std::memcpy(&value, &poison_bits, sizeof(value));
    return value;
}

namespace {

uint64_t splitmix64(uint64_t x) {
    x += 0x9E3779B97F4A7C15ull;
    x = (x ^ (x >> 30)) * 0xBF58476D1CE4E5B9ull;
    x = (x ^ (x >> 27)) * 0x94D049BB133111EBull;
    return x ^ (x >> 31);
}

// Uniform doubles from std::mt19937_64, whose output the standard fixes, so a
// seed draws the same inputs with any standard library.
class Random {
public:
    explicit Random(const uint64_t seed) : engine_(seed) {}
    double uniform(const double lo, const double hi) {
        const double unit = static_cast<double>(engine_() >> 11) * 0x1.0p-53;  // [0, 1)
        return lo + (hi - lo) * unit;
    }
    int64_t integer(const int64_t lo, const int64_t hi) {  // [lo, hi]
        return lo + static_cast<int64_t>(engine_() % static_cast<uint64_t>(hi - lo + 1));
    }
    double normal() {  // Box–Muller
        const double u1 = 1.0 - uniform(0.0, 1.0);
        const double u2 = uniform(0.0, 1.0);
        return std::sqrt(-2.0 * std::log(u1)) * std::cos(2.0 * M_PI * u2);
    }

private:
    std::mt19937_64 engine_;
};

// Where matrix m (batch order: i03 outer, i02 inner) starts in a tensor with these strides.
int64_t matrix_offset(const Problem& p, const int64_t m, const int64_t stride2, const int64_t stride3) {
    return (m % p.ne02) * stride2 + (m / p.ne02) * stride3;
}

void fill_well_conditioned(const Problem& p, const int64_t m, Random& random, Inputs& in) {
    const int64_t n = p.n, k = p.k;
    const double  off = 1.0 / static_cast<double>(n);
    float* const  A   = in.A.data() + matrix_offset(p, m, p.nb02, p.nb03);
    float* const  B   = in.B.data() + matrix_offset(p, m, p.nb12, p.nb13);
    for (int64_t r = 0; r < n; ++r) {
        for (int64_t c = 0; c < r; ++c) {
            A[r * n + c] = static_cast<float>(random.uniform(-off, off));
        }
        A[r * n + r] = static_cast<float>(random.uniform(1.0, 2.0));
    }
    for (int64_t i = 0; i < n * k; ++i) {
        B[i] = static_cast<float>(random.uniform(-1.0, 1.0));
    }
}

void fill_backend_ops(const Problem& p, const int64_t m, Random& random, Inputs& in) {
    const int64_t n = p.n, k = p.k;
    float* const  A = in.A.data() + matrix_offset(p, m, p.nb02, p.nb03);
    float* const  B = in.B.data() + matrix_offset(p, m, p.nb12, p.nb13);
    for (int64_t r = 0; r < n; ++r) {
        for (int64_t c = 0; c < n; ++c) {
            A[r * n + c] = c <= r ? static_cast<float>(random.uniform(0.1, 1.0)) : 0.0f;
        }
    }
    for (int64_t i = 0; i < n * k; ++i) {
        B[i] = static_cast<float>(random.uniform(-1.0, 1.0));
    }
}

// The Gram matrix of the keys' rows, lower part: gram[r][c] = k_r . k_c for c < r.
// Loops over c, contiguous in the transposed keys, so that the compiler
// vectorizes them; on x86-64 a copy for AVX2 and FMA is chosen at run time.
INPUTS_CLONES void gram_lower(const int64_t n, const int head_dim, const double* const keys, const double* const keys_t,
                              double* const gram) {
    for (int64_t r = 0; r < n; ++r) {
        double* const row = gram + r * n;
        std::fill(row, row + r, 0.0);
        for (int d = 0; d < head_dim; ++d) {
            const double        k_rd = keys[r * head_dim + d];
            const double* const k_d  = keys_t + static_cast<int64_t>(d) * n;
            for (int64_t c = 0; c < r; ++c) {
                row[c] += k_rd * k_d[c];
            }
        }
    }
}

void fill_delta_rule(const Problem& p, const int64_t m, Random& random, Inputs& in) {
    const int64_t       n = p.n, k = p.k;
    constexpr int       head_dim = 128;  // Qwen3-Next's key head size
    std::vector<double> keys(static_cast<size_t>(n) * head_dim), keys_t(keys.size()), gram(static_cast<size_t>(n * n)),
        beta(n), g(n);
    float* const A         = in.A.data() + matrix_offset(p, m, p.nb02, p.nb03);
    float* const B         = in.B.data() + matrix_offset(p, m, p.nb12, p.nb13);
    double       log_decay = 0.0;
    for (int64_t i = 0; i < n; ++i) {
        double norm = 0.0;
        for (int d = 0; d < head_dim; ++d) {
            keys[i * head_dim + d] = random.normal();
            norm += keys[i * head_dim + d] * keys[i * head_dim + d];
        }
        for (int d = 0; d < head_dim; ++d) {
            keys[i * head_dim + d] /= std::sqrt(norm);  // l2-normalised keys, as the model uses
        }
        beta[i] = random.uniform(0.0, 1.0);
        log_decay -= random.uniform(0.0, 0.1);
        g[i] = log_decay;
    }
    for (int64_t i = 0; i < n; ++i) {
        for (int d = 0; d < head_dim; ++d) {
            keys_t[static_cast<size_t>(d) * n + i] = keys[i * head_dim + d];
        }
    }
    gram_lower(n, head_dim, keys.data(), keys_t.data(), gram.data());
    for (int64_t r = 0; r < n; ++r) {
        for (int64_t c = 0; c < r; ++c) {
            A[r * n + c] = static_cast<float>(beta[r] * gram[r * n + c] * std::exp(g[r] - g[c]));
        }
        A[r * n + r] = 1.0f;
    }
    // B[r][c] = -A's strictly lower part, as float, so that B is exactly the
    // negated strict lower part of the float A.
    for (int64_t r = 0; r < n; ++r) {
        for (int64_t c = 0; c < k; ++c) {
            B[r * k + c] = (c < r) ? -A[r * n + c] : 0.0f;
        }
    }
}

// b = row r of A (entries 0..r) times x (row-major, k columns), over the
// columns contiguously: vectorized like gram_lower.
INPUTS_CLONES void multiply_row(const int64_t r, const int64_t k, const float* const a_row, const double* const x,
                                double* const b) {
    std::fill(b, b + k, 0.0);
    for (int64_t j = 0; j <= r; ++j) {
        const double        a_rj  = static_cast<double>(a_row[j]);
        const double* const x_row = x + j * k;
        for (int64_t c = 0; c < k; ++c) {
            b[c] += a_rj * x_row[c];
        }
    }
}

void fill_exact(const Problem& p, const int64_t m, Random& random, Inputs& in) {
    const int64_t       n = p.n, k = p.k;
    static const double diagonal_choices[] = {0.25, 0.5, 1.0, 2.0, 4.0};
    std::vector<double> x(static_cast<size_t>(n * k));
    float* const        A  = in.A.data() + matrix_offset(p, m, p.nb02, p.nb03);
    float* const        B  = in.B.data() + matrix_offset(p, m, p.nb12, p.nb13);
    float* const        Xe = in.X_exact.data() + matrix_offset(p, m, p.nb2, p.nb3);
    for (int64_t r = 0; r < n; ++r) {
        for (int64_t c = 0; c < r; ++c) {
            A[r * n + c] = static_cast<float>(random.integer(-2, 2));
        }
        A[r * n + r] = static_cast<float>(diagonal_choices[random.integer(0, 4)]);
    }
    for (double& v : x) {
        const int64_t magnitude = random.integer(1, 8);
        v                       = static_cast<double>(random.integer(0, 1) ? magnitude : -magnitude);
    }
    std::vector<double> b(static_cast<size_t>(k));
    for (int64_t r = 0; r < n; ++r) {
        multiply_row(r, k, A + r * n, x.data(), b.data());
        for (int64_t c = 0; c < k; ++c) {
            // |b| <= 64·2·8 + 4·8 < 2^24: exact in float.
            B[r * k + c]  = static_cast<float>(b[c]);
            Xe[r * k + c] = static_cast<float>(x[r * k + c]);
        }
    }
}

}  // namespace

uint64_t derive_seed(const uint64_t run_seed, const uint64_t a, const uint64_t b, const uint64_t c, const uint64_t d) {
    uint64_t h = splitmix64(run_seed);
    for (const uint64_t v : {a, b, c, d}) {
        h = splitmix64(h ^ v);
    }
    return h;
}

Inputs make_inputs(const Family family, const Problem& p, const uint64_t seed) {
    Inputs in;
    in.A = filled_floats(p.a_elements(), poison_value());
    in.B = filled_floats(p.b_elements(), poison_value());
    if (family == Family::exact || family == Family::mixed) {
        in.X_exact = filled_floats(p.x_elements(), poison_value());
    }
    // Every matrix draws from a seed of its own, so that the threads may fill
    // them in any order and a seed still draws the same inputs.
    parallel_for(
        p.batch(),
        [&](const int64_t begin, const int64_t end) {
            for (int64_t m = begin; m < end; ++m) {
                Random random(derive_seed(seed, static_cast<uint64_t>(m)));
                switch (family_of_matrix(family, m)) {
                    case Family::well_conditioned: fill_well_conditioned(p, m, random, in); break;
                    case Family::backend_ops: fill_backend_ops(p, m, random, in); break;
                    case Family::delta_rule: fill_delta_rule(p, m, random, in); break;
                    case Family::exact: fill_exact(p, m, random, in); break;
                    case Family::mixed: break;  // family_of_matrix never returns it
                }
            }
        },
        "drawing inputs, matrices");
    return in;
}

}  // namespace harness
