// CPU tests of the harness itself: if these fail, no step's verdict can be trusted.
#define DOCTEST_CONFIG_IMPLEMENT_WITH_MAIN
#include <doctest/doctest.h>

#include "fast_divisor.hpp"
#include "inputs.hpp"
#include "judge.hpp"
#include "options.hpp"
#include "parallel.hpp"
#include "problem.hpp"
#include "reference.hpp"
#include "reference_shapes.hpp"

#include <atomic>

#include <algorithm>
#include <cmath>
#include <cstring>
#include <limits>
#include <random>

namespace harness {
namespace {

// A float forward substitution in plain C++, to feed judge() realistic output.
HostFloats solve_in_float(const Problem& p, const Inputs& in) {
    HostFloats X(static_cast<size_t>(p.x_elements()), poison_value());
    for (int64_t i03 = 0; i03 < p.ne03; ++i03) {
        for (int64_t i02 = 0; i02 < p.ne02; ++i02) {
            const float* const A = in.A.data() + i02 * p.nb02 + i03 * p.nb03;
            const float* const B = in.B.data() + i02 * p.nb12 + i03 * p.nb13;
            float* const       x = X.data() + i02 * p.nb2 + i03 * p.nb3;
            for (int64_t c = 0; c < p.k; ++c) {
                for (int64_t r = 0; r < p.n; ++r) {
                    float sum = 0.0f;
                    for (int64_t j = 0; j < r; ++j) {
                        sum += A[r * p.n + j] * x[j * p.k + c];
                    }
                    x[r * p.k + c] = (B[r * p.k + c] - sum) / A[r * p.n + r];
                }
            }
        }
    }
    return X;
}

// Bitwise equality: the buffers hold NaN poison, which == never matches.
bool same_bits(const HostFloats& a, const HostFloats& b) {
    return a.size() == b.size() && std::memcmp(a.data(), b.data(), a.size() * sizeof(float)) == 0;
}

}  // namespace

TEST_CASE("fast_div equals integer division") {
    std::mt19937_64 random(12345);
    for (const uint32_t d :
         {1u, 2u, 3u, 4u, 5u, 7u, 8u, 32u, 100u, 128u, 1000u, 65535u, 65536u, 1u << 20, (1u << 31) - 1}) {
        const FastDivisor f = make_fast_divisor(d);
        for (const uint32_t n : {0u, 1u, d - 1, d, d + 1, 2 * d - 1, (1u << 31) - 1}) {
            if (n < (1u << 31)) {
                REQUIRE_MESSAGE(fast_div(n, f) == n / d, "n = " << n << ", d = " << d);
            }
        }
        for (int i = 0; i < 20000; ++i) {
            const uint32_t n = static_cast<uint32_t>(random() >> 33);  // [0, 2^31)
            REQUIRE_MESSAGE(fast_div(n, f) == n / d, "n = " << n << ", d = " << d);
        }
    }
}

TEST_CASE("problem layouts: extents, bytes, description") {
    const Problem c = Problem::contiguous(64, 6, 4, 2);
    CHECK(c.a_elements() == 64 * 64 * 8);
    CHECK(c.b_elements() == 64 * 6 * 8);
    CHECK(c.bytes_moved() == doctest::Approx(155648.0));  // the PR's shape, as test-backend-ops counts it
    CHECK(c.describe() == "A{64,64,4,2} B{6,64,4,2}");
    const Problem p = Problem::padded(5, 3, 2, 3, 4);
    CHECK(p.nb02 == 29);
    CHECK(p.nb03 == 62);
    CHECK(p.a_elements() == 29 + 2 * 62 + 25);
    CHECK(Problem::contiguous(5, 3, 0, 3).a_elements() == 0);
}

TEST_CASE("validate accepts what a launcher can do and names the limit it refuses") {
    const Limits             limits{64, 32};
    const std::vector<float> a(1 << 16), b(1 << 16), x(1 << 16);
    CHECK_NOTHROW(validate(Problem::padded(64, 32, 2, 3, 1), limits, a.data(), b.data(), x.data()));
    Problem transposed = Problem::contiguous(8, 2, 3, 4);  // i03 steps by a matrix, i02 by four
    transposed.nb03    = 64;
    transposed.nb02    = 256;
    transposed.nb13 = transposed.nb3 = 16;
    transposed.nb12 = transposed.nb2 = 64;
    CHECK_NOTHROW(validate(transposed, limits, a.data(), b.data(), x.data()));
    CHECK_THROWS_WITH_AS(validate(Problem::contiguous(65, 1, 1, 1), limits, a.data(), b.data(), x.data()),
                         doctest::Contains("1 <= n <= 64"), InvalidProblem);
    CHECK_THROWS_WITH_AS(validate(Problem::contiguous(8, 33, 1, 1), limits, a.data(), b.data(), x.data()),
                         doctest::Contains("1 <= k <= 32"), InvalidProblem);
    Problem overlapping = Problem::contiguous(8, 2, 3, 4);
    overlapping.nb3     = overlapping.nb2;  // (i02 = 1, i03 = 0) and (0, 1) share memory
    CHECK_THROWS_WITH_AS(validate(overlapping, limits, a.data(), b.data(), x.data()),
                         doctest::Contains("X's batch strides"), InvalidProblem);
    CHECK_NOTHROW(validate(Problem::contiguous(8, 2, 0, 4), limits, nullptr, nullptr, nullptr));
    CHECK_THROWS_AS(validate(Problem::contiguous(8, 2, 1, 1), limits, a.data(), b.data(), b.data()), InvalidProblem);
    const Limits vector_limits{64, 32, 16};  // a step that moves float4
    CHECK_NOTHROW(validate(Problem::contiguous(8, 2, 2, 2), vector_limits, a.data(), b.data(), x.data()));
    CHECK_THROWS_WITH_AS(validate(Problem::contiguous(8, 2, 2, 2), vector_limits, a.data() + 1, b.data(), x.data()),
                         doctest::Contains("aligned to 16 bytes"), InvalidProblem);
    CHECK_THROWS_WITH_AS(validate(Problem::padded(8, 2, 2, 2, 1), vector_limits, a.data(), b.data(), x.data()),
                         doctest::Contains("multiples of 4 elements (16 bytes), got 65"), InvalidProblem);
    // The stride the refusal names is the first misaligned one: A's 63 * 63,
    // or B's 10 * 3 where A's 100 fits.
    CHECK(misaligned_stride(Problem::contiguous(63, 6, 2, 2), 16) == 63 * 63);
    CHECK(misaligned_stride(Problem::contiguous(10, 3, 4, 3), 16) == 30);
    CHECK(!misaligned_stride(Problem::contiguous(63, 6, 2, 2), 4));
    CHECK(!misaligned_stride(Problem::contiguous(64, 6, 2, 2), 16));
}

TEST_CASE("input families have the structure they promise") {
    const Problem p = Problem::padded(33, 5, 2, 2, 3);
    for (const Family family : all_families) {
        INFO(std::string(family_name(family)));
        const Inputs in = make_inputs(family, p, 99);
        CHECK(same_bits(in.A, make_inputs(family, p, 99).A));  // a seed draws the same inputs again
        CHECK_FALSE(same_bits(in.A, make_inputs(family, p, 100).A));
        for (int64_t m = 0; m < p.batch(); ++m) {
            const float* const A = in.A.data() + (m % p.ne02) * p.nb02 + (m / p.ne02) * p.nb03;
            for (int64_t r = 0; r < p.n; ++r) {
                REQUIRE(std::isfinite(A[r * p.n + r]));
                REQUIRE(A[r * p.n + r] != 0.0f);
                for (int64_t c = r + 1; c < p.n; ++c) {
                    // Above the diagonal: never read, so poisoned, except where test-backend-ops zeroes it.
                    REQUIRE((family == Family::backend_ops ? A[r * p.n + c] == 0.0f : std::isnan(A[r * p.n + c])));
                }
                if (family == Family::delta_rule) {
                    REQUIRE(A[r * p.n + r] == 1.0f);
                    for (int64_t c = 0; c < r; ++c) {
                        REQUIRE(std::fabs(A[r * p.n + c]) <= 1.0f);
                    }
                }
            }
        }
        CHECK(std::isnan(in.A[p.n * p.n]));  // the gap after the first matrix
    }
}

TEST_CASE("the reference solves the exact family exactly, and its bound is sane") {
    const Problem   p   = Problem::padded(64, 7, 2, 2, 1);
    const Inputs    in  = make_inputs(Family::exact, p, 7);
    const Reference ref = solve_reference(p, in);
    for (int64_t m = 0; m < p.batch(); ++m) {
        const int64_t offset = (m % p.ne02) * p.nb2 + (m / p.ne02) * p.nb3;
        for (int64_t i = 0; i < p.n * p.k; ++i) {
            REQUIRE(ref.X[m * p.n * p.k + i] == static_cast<double>(in.X_exact[offset + i]));
            REQUIRE(ref.bound[m * p.n * p.k + i] >= std::fabs(ref.X[m * p.n * p.k + i]));  // |A^-1||A||x| >= |x|
        }
    }
    CHECK(gamma_float(64) == doctest::Approx(64.0 * 0x1.0p-24).epsilon(1e-5));
}

TEST_CASE("judge passes a float solve and fails every kind of wrong output") {
    const Problem p = Problem::padded(40, 3, 2, 2, 5);
    for (const Family family : all_families) {
        INFO(std::string(family_name(family)));
        const Inputs     in      = make_inputs(family, p, 3);
        const HostFloats good    = solve_in_float(p, in);
        const Verdict    verdict = judge(p, family, in, good);
        CHECK_MESSAGE(verdict.passed, verdict.failure);
        CHECK(verdict.solved);
        CHECK(verdict.worst_bound_ratio < 1.0);

        // Unsolved: not passed, and not solved either.
        HostFloats unwritten            = good;
        unwritten[p.nb2 + 5]            = poison_value();
        const Verdict unwritten_verdict = judge(p, family, in, unwritten);
        CHECK_FALSE(unwritten_verdict.passed);
        CHECK_FALSE(unwritten_verdict.solved);

        HostFloats infinite            = good;
        infinite[3]                    = INFINITY;
        const Verdict infinite_verdict = judge(p, family, in, infinite);
        CHECK_FALSE(infinite_verdict.passed);
        CHECK_FALSE(infinite_verdict.solved);

        HostFloats gap_written    = good;
        gap_written[p.n * p.k]    = 0.0f;  // the first element after matrix (0, 0)
        const Verdict gap_verdict = judge(p, family, in, gap_written);
        CHECK_FALSE(gap_verdict.passed);
        CHECK_FALSE(gap_verdict.solved);

        // Inaccurate but solved: not passed, still solved.
        HostFloats wrong = good;
        wrong[p.nb3 + p.k] *= 1.001f;  // row 1, column 0 of matrix (0, 1): never zero
        const Verdict wrong_verdict = judge(p, family, in, wrong);
        CHECK_FALSE(wrong_verdict.passed);
        CHECK(wrong_verdict.solved);
    }
    // Where a non-finite input must propagate: NaN or Inf passes, a finite
    // value fails, and so does the poison itself (an element never written).
    {
        const Inputs      in = make_inputs(Family::well_conditioned, p, 5);
        HostFloats        X  = solve_in_float(p, in);
        std::vector<char> expect_non_finite(static_cast<size_t>(p.batch() * p.n * p.k), 0);
        expect_non_finite[7] = 1;  // matrix (0, 0), row 2, column 1: dense and X layout agree there
        X[7]                 = std::numeric_limits<float>::quiet_NaN();
        CHECK(judge(p, Family::well_conditioned, in, X, Bound::check, &expect_non_finite).passed);
        X[7] = -INFINITY;
        CHECK(judge(p, Family::well_conditioned, in, X, Bound::check, &expect_non_finite).passed);
        X[7] = 1.0f;
        CHECK_FALSE(judge(p, Family::well_conditioned, in, X, Bound::check, &expect_non_finite).passed);
        X[7]                    = poison_value();
        const Verdict unwritten = judge(p, Family::well_conditioned, in, X, Bound::check, &expect_non_finite);
        CHECK_FALSE(unwritten.passed);
        CHECK_FALSE(unwritten.solved);
        CHECK(unwritten.failure.find("unwritten") != std::string::npos);
    }
    // One ulp off passes the bound but not the exact family's bit-for-bit rule.
    const Inputs in  = make_inputs(Family::exact, p, 4);
    HostFloats   ulp = solve_in_float(p, in);
    ulp[0]           = std::nextafter(ulp[0], INFINITY);
    CHECK_FALSE(judge(p, Family::exact, in, ulp).passed);
}

TEST_CASE("judge_copy_of_b passes X = B and fails a changed element, an unwritten one, a written gap") {
    // X's batch strides apart from B's, so that an index mixed up between the two shows.
    Problem p       = Problem::padded(40, 3, 2, 2, 5);
    p.nb2           = p.nb12 + 9;
    p.nb3           = 2 * p.nb2;
    const Inputs in = make_inputs(Family::well_conditioned, p, 6);
    HostFloats   X  = filled_floats(p.x_elements(), poison_value());
    for (int64_t m = 0; m < p.batch(); ++m) {
        for (int64_t e = 0; e < p.n * p.k; ++e) {
            X[(m % p.ne02) * p.nb2 + (m / p.ne02) * p.nb3 + e] =
                in.B[(m % p.ne02) * p.nb12 + (m / p.ne02) * p.nb13 + e];
        }
    }
    const Verdict good = judge_copy_of_b(p, in, X);
    CHECK_MESSAGE(good.passed, good.failure);

    HostFloats ulp    = X;
    ulp[p.nb3 + p.k]  = std::nextafter(ulp[p.nb3 + p.k], INFINITY);  // row 1, column 0 of matrix (0, 1)
    const Verdict off = judge_copy_of_b(p, in, ulp);
    CHECK_FALSE(off.passed);
    CHECK(off.failure.find("matrix (i02 0, i03 1) row 1 column 0") != std::string::npos);

    HostFloats unwritten = X;
    unwritten[p.nb2 + 5] = poison_value();
    CHECK_FALSE(judge_copy_of_b(p, in, unwritten).passed);

    HostFloats gap_written = X;
    gap_written[p.n * p.k] = 0.0f;  // the first element after matrix (0, 0)
    CHECK_FALSE(judge_copy_of_b(p, in, gap_written).passed);
}

TEST_CASE("the command line takes a shape and a seed and refuses bad values") {
    const auto parse = [](std::vector<std::string> words) {
        std::vector<char*> argv;
        for (std::string& w : words) {
            argv.push_back(w.data());
        }
        return parse_command_line(static_cast<int>(argv.size()), argv.data());
    };
    const ParsedCommandLine ok = parse({"exe", "--n", "64", "--k=6", "--ne2", "4", "--ne3", "2", "--seed", "7", "-s"});
    CHECK(*ok.options.n == 64);
    CHECK(*ok.options.k == 6);
    CHECK(*ok.options.ne2 == 4);
    CHECK(*ok.options.ne3 == 2);
    CHECK(*ok.options.seed == 7);
    REQUIRE(ok.rest.size() == 2);  // argv[0] and doctest's -s
    CHECK(std::string(ok.rest[1]) == "-s");
    CHECK_THROWS_WITH_AS(parse({"exe", "--n", "-3"}), doctest::Contains("at least 1"), UsageError);
    CHECK_THROWS_WITH_AS(parse({"exe", "--n", "0"}), doctest::Contains("outside 1..4096"), UsageError);
    CHECK_THROWS_WITH_AS(parse({"exe", "--k", "5000"}), doctest::Contains("outside 1..4096"), UsageError);
    CHECK_THROWS_WITH_AS(parse({"exe", "--k", "six"}), doctest::Contains("whole number"), UsageError);
    CHECK_THROWS_WITH_AS(parse({"exe", "--ne2", "4x"}), doctest::Contains("whole number"), UsageError);
    CHECK_THROWS_WITH_AS(parse({"exe", "--ne2"}), doctest::Contains("needs a value"), UsageError);
    CHECK_THROWS_WITH_AS(parse({"exe", "--seed", "99999999999999999999999"}), doctest::Contains("too large"),
                         UsageError);
    CHECK_THROWS_WITH_AS(parse({"exe", "--ne2", "2048", "--ne3", "1024"}), doctest::Contains("matrices"), UsageError);
}

TEST_CASE("the judge finds the same first failure on any number of threads, and checks every matrix") {
    // A wrong element in the last matrix of a batch large enough to be split
    // over threads: found, and named by its matrix.
    const Problem p  = Problem::contiguous(16, 3, 64, 8);
    const Inputs  in = make_inputs(Family::well_conditioned, p, 11);
    HostFloats    X  = solve_in_float(p, in);
    CHECK(judge(p, Family::well_conditioned, in, X).passed);
    X[static_cast<size_t>(p.x_elements() - 1)] *= 1.01f;
    const Verdict last = judge(p, Family::well_conditioned, in, X);
    CHECK_FALSE(last.passed);
    CHECK(last.failure.find("matrix (i02 63, i03 7)") != std::string::npos);
    X[5] = INFINITY;  // and now one in the first matrix too: the first in batch order is named
    CHECK(judge(p, Family::well_conditioned, in, X).failure.find("matrix (i02 0, i03 0)") != std::string::npos);
}

TEST_CASE("parallel_for covers every index once and passes an exception on") {
    std::vector<std::atomic<int>> seen(100003);
    parallel_for(static_cast<int64_t>(seen.size()), [&](const int64_t begin, const int64_t end) {
        for (int64_t i = begin; i < end; ++i) {
            seen[static_cast<size_t>(i)].fetch_add(1);
        }
    });
    CHECK(std::all_of(seen.begin(), seen.end(), [](const std::atomic<int>& s) { return s.load() == 1; }));
    CHECK_THROWS_WITH(parallel_for(1000,
                                   [](const int64_t begin, const int64_t) {
                                       if (begin == 0) {
                                           throw std::runtime_error("from a worker");
                                       }
                                   }),
                      "from a worker");
}

TEST_CASE("inputs drawn in parallel are the same on every run, matrix by matrix") {
    const Problem p = Problem::contiguous(24, 5, 40, 3);
    for (const Family family : all_families) {
        INFO(std::string(family_name(family)));
        const Inputs a = make_inputs(family, p, 2026);
        const Inputs b = make_inputs(family, p, 2026);
        CHECK(same_bits(a.A, b.A));
        CHECK(same_bits(a.B, b.B));
    }
}

TEST_CASE("the mixed family draws and judges each matrix as its own family would") {
    const Problem p     = Problem::padded(24, 5, 3, 3, 2);
    const Inputs  mixed = make_inputs(Family::mixed, p, 77);
    for (const Family family : all_families) {
        INFO(std::string(family_name(family)));
        const Inputs alone = make_inputs(family, p, 77);
        for (int64_t m = 0; m < p.batch(); ++m) {
            if (family_of_matrix(Family::mixed, m) != family) {
                continue;
            }
            const int64_t a = (m % p.ne02) * p.nb02 + (m / p.ne02) * p.nb03;
            const int64_t b = (m % p.ne02) * p.nb12 + (m / p.ne02) * p.nb13;
            CHECK(std::memcmp(&mixed.A[a], &alone.A[a], p.n * p.n * sizeof(float)) == 0);
            CHECK(std::memcmp(&mixed.B[b], &alone.B[b], p.n * p.k * sizeof(float)) == 0);
        }
    }
    HostFloats X = solve_in_float(p, mixed);
    CHECK(judge(p, Family::mixed, mixed, X).passed);
    // Matrix 3 is drawn by the exact family: one ulp off fails it there.
    REQUIRE(family_of_matrix(Family::mixed, 3) == Family::exact);
    const int64_t x3  = (3 % p.ne02) * p.nb2 + (3 / p.ne02) * p.nb3;
    X[x3]             = std::nextafter(X[x3], INFINITY);
    const Verdict ulp = judge(p, Family::mixed, mixed, X);
    CHECK_FALSE(ulp.passed);
    CHECK(ulp.failure.find("bit-exact") != std::string::npos);
}

TEST_CASE("one set of defaults: a shape of your own is the PR's shape where the options are silent") {
    Options o;
    o.k             = 5;
    const Problem p = shape_of_your_own(o);
    CHECK(p.n == 64);
    CHECK(p.k == 5);
    CHECK(p.ne02 == 4);
    CHECK(p.ne03 == 2);
    CHECK(reference_shapes().front().problem.describe() == "A{64,64,4,2} B{6,64,4,2}");
}

}  // namespace harness
