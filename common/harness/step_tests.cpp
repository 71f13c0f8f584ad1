// The test body every step runs (see step_tests.hpp). CPU cases check what a
// launcher refuses and which kernel it plans to launch, without a GPU; GPU
// cases check the output on every input family and shape class, then time the
// step against its predecessor.
#include "step_tests.hpp"

#include "device_problem.hpp"
#include "gpu.hpp"
#include "inputs.hpp"
#include "judge.hpp"
#include "reference_shapes.hpp"
#include "timing.hpp"
#include "timing_table.hpp"

#include <doctest/doctest.h>

#include <algorithm>
#include <array>
#include <cmath>
#include <cstdio>
#include <cstring>
#include <functional>
#include <iostream>
#include <iterator>
#include <limits>
#include <optional>
#include <set>
#include <string>

namespace harness {
namespace {

const Step& tested() {
    return *step_under_test().step;
}

// A batch layout this step accepts: gaps of `pad` elements, strides rounded
// up to the step's alignment.
Problem layout(const Step& step, const int64_t n, const int64_t k, const int64_t ne02, const int64_t ne03,
               const int64_t pad) {
    return Problem::padded(n, k, ne02, ne03, pad, step.limits.alignment_bytes / static_cast<int64_t>(sizeof(float)));
}

// The same layout of A and B, with X's batch strides those of `x_pad`
// instead: a kernel that places X with B's strides writes outside X's
// matrices, into the poisoned gaps, or leaves them unwritten.
Problem layout_x_apart(const Step& step, const int64_t n, const int64_t k, const int64_t ne02, const int64_t ne03,
                       const int64_t pad, const int64_t x_pad) {
    Problem       p      = layout(step, n, k, ne02, ne03, pad);
    const Problem x_from = layout(step, n, k, ne02, ne03, x_pad);
    p.nb2                = x_from.nb12;
    p.nb3                = x_from.nb13;
    return p;
}

// The largest k a drawn shape has: past test-backend-ops' largest (417), far
// below what a step may take (millions), so that a drawn problem stays small.
constexpr int64_t drawn_max_k = 512;

int64_t drawn_k_limit(const Step& step) {
    return std::min<int64_t>(step.limits.max_k, drawn_max_k);
}

// Within the step's limits, n within what it solves on this GPU.
bool fits(const Step& step, const int64_t n, const int64_t k) {
    return n >= 1 && k >= 1 && n <= max_n_on_device(step) && k <= step.limits.max_k;
}

// Whether the step's alignment admits the problem's batch strides.
bool strides_fit(const Step& step, const Problem& p) {
    return !misaligned_stride(p, step.limits.alignment_bytes);
}

// The PR's shape and an odd one, clipped to what the step can do.
std::array<Shape, 2> pr_and_odd_shapes(const Step& step) {
    return {Shape{std::min(step.limits.max_n, 64), std::min(step.limits.max_k, 6)},
            Shape{std::min(step.limits.max_n, 33), std::min(step.limits.max_k, 5)}};
}

// The same, and an n past 64 (odd k) where the step takes it.
std::vector<Shape> pr_odd_and_large_n_shapes(const Step& step) {
    const std::array<Shape, 2> small = pr_and_odd_shapes(step);
    std::vector<Shape>         shapes(small.begin(), small.end());
    if (fits(step, 100, 41)) {
        shapes.push_back(Shape{100, 41});
    }
    return shapes;
}

// Worst figures over a set of checks, printed after each GPU case.
struct Summary {
    int    checks                 = 0;
    double worst_bound_ratio      = 0.0;
    double worst_backend_ops_nmse = 0.0;

    void add(const Verdict& v) {
        ++checks;
        worst_bound_ratio      = std::max(worst_bound_ratio, v.worst_bound_ratio);
        worst_backend_ops_nmse = std::max(worst_backend_ops_nmse, v.backend_ops_nmse);
    }
    void print(const char* what) const {
        std::printf("  %s: %d %s passed; worst error / bound %.3g; worst test-backend-ops NMSE %.3g\n", what, checks,
                    checks == 1 ? "check" : "checks", worst_bound_ratio, worst_backend_ops_nmse);
    }
};

struct Check {
    Verdict    verdict;
    HostFloats X;
};

// The verdict on a step's output: against the double-precision reference,
// or, for an experiment that solves nothing (Output::copies_b), against B.
Verdict verdict_on(const Step& step, const Problem& problem, const Family family, const Inputs& inputs,
                   const HostFloats& X, const Bound bound = Bound::check,
                   const std::vector<char>* const expect_non_finite = nullptr) {
    const StepUnderTest& t = step_under_test();
    if (&step == t.step && t.output == Output::copies_b) {
        return judge_copy_of_b(problem, inputs, X);
    }
    return judge(problem, family, inputs, X, bound, expect_non_finite);
}

// One check: draws the family's inputs from the seed, solves on the GPU and
// judges the output.
Check check_step(const Step& step, const Problem& problem, const Family family, const uint64_t seed,
                 const int64_t offset = 0) {
    const Inputs        inputs = make_inputs(family, problem, seed);
    const DeviceProblem device(problem, inputs, offset);
    Check               check;
    check.X       = run_step(step, problem, device);
    check.verdict = verdict_on(step, problem, family, inputs, check.X);
    return check;
}

// Checks one step on one problem and family; the failure message carries
// everything needed to reproduce it.
void check(const Step& step, const Problem& problem, const Family family, const uint64_t seed, Summary& summary,
           const int64_t offset = 0) {
    const Check result = check_step(step, problem, family, seed, offset);
    INFO(std::string(step.name) << " on " << problem.describe() << " (strides A " << problem.nb02 << "," << problem.nb03
                                << " B " << problem.nb12 << "," << problem.nb13 << " X " << problem.nb2 << ","
                                << problem.nb3 << "; pointers " << offset << " floats past 256 bytes), family "
                                << std::string(family_name(family)) << ", run seed " << test_seed());
    CHECK_MESSAGE(result.verdict.passed, result.verdict.failure);
    if (result.verdict.passed) {
        summary.add(result.verdict);
    }
}

// How a step's output compares with its predecessor's: the first element
// that differs (bit for bit, NaN included, and +0 and -0 taken as equal where
// the step declares that it may change the sign of a zero), or -1, and how
// many elements are zeros of opposite signs.
struct Comparison {
    int64_t first_difference = -1;
    int64_t zero_signs       = 0;
};

Comparison compare(const HostFloats& current, const HostFloats& previous, const Output output) {
    Comparison result;
    for (size_t i = 0; i < current.size(); ++i) {
        uint32_t now, before;
        std::memcpy(&now, &current[i], sizeof(now));
        std::memcpy(&before, &previous[i], sizeof(before));
        if (now == before) {
            continue;
        }
        const bool zero_sign = current[i] == 0.0f && previous[i] == 0.0f;
        result.zero_signs += zero_sign ? 1 : 0;
        if (result.first_difference < 0 && !(output == Output::same_up_to_zero_sign && zero_sign)) {
            result.first_difference = static_cast<int64_t>(i);
        }
    }
    return result;
}

// Host buffers large enough for a problem, for the refusal cases: a refused
// problem launches nothing, so nothing reads them.
struct HostBuffers {
    explicit HostBuffers(const Problem& p)
        : A(static_cast<size_t>(std::max<int64_t>(p.a_elements(), 1))),
          B(static_cast<size_t>(std::max<int64_t>(p.b_elements(), 1))),
          X(static_cast<size_t>(std::max<int64_t>(p.x_elements(), 1))) {}
    std::vector<float> A, B, X;
};

// The launcher validates before it launches: a refused problem throws
// InvalidProblem naming the limit. (A launch with these host pointers would
// fail with a CUDA error instead, which the check would report.)
void check_refused(const Problem& p, const float* A, const float* B, float* X, const std::string& names) {
    INFO("problem " << p.describe());
    CHECK_THROWS_WITH_AS(tested().solve(A, B, X, p, nullptr), doctest::Contains(names.c_str()), InvalidProblem);
}

}  // namespace

std::vector<Shape> backend_ops_correctness_shapes() {
    return {Shape{10, 3, 4, 3},   Shape{11, 5, 1, 1},   Shape{17, 9, 2, 4},   Shape{30, 8, 7, 1},
            Shape{42, 10, 5, 2},  Shape{64, 10, 2, 2},  Shape{64, 64, 2, 2},  Shape{79, 417, 5, 3},
            Shape{128, 32, 4, 2}, Shape{80, 80, 2, 8},  Shape{80, 79, 2, 8},  Shape{80, 81, 2, 8},
            Shape{80, 80, 8, 8},  Shape{80, 79, 8, 8},  Shape{80, 81, 8, 8},  Shape{84, 32, 4, 4},
            Shape{95, 40, 8, 8},  Shape{100, 41, 4, 4}, Shape{128, 31, 4, 4}, Shape{128, 32, 4, 4},
            Shape{128, 32, 3, 4}, Shape{128, 32, 4, 1}, Shape{64, 200, 4, 4}, Shape{64, 384, 4, 4}};
}

uint64_t backend_ops_seed(const Shape& shape) {
    return derive_seed(test_seed(), 14, shape.n, shape.k);
}

bool accepts(const Step& step, const Problem& p) {
    return fits(step, p.n, p.k) && strides_fit(step, p);
}

TEST_SUITE("cpu") {
    TEST_CASE("refuses input outside its limits, naming the limit") {
        const Step&   s     = tested();
        const int64_t max_n = s.limits.max_n, max_k = s.limits.max_k;
        const Problem good = layout(s, std::min<int64_t>(max_n, 33), std::min<int64_t>(max_k, 5), 3, 2, 7);
        // Buffers of the good problem: n and k are refused before any pointer is looked at.
        HostBuffers  host(good);
        float* const A = host.A.data();
        float* const B = host.B.data();
        float* const X = host.X.data();

        Problem p = good;
        p.n       = 0;
        check_refused(p, A, B, X, "1 <= n <= " + std::to_string(max_n));
        p = layout(s, max_n + 1, good.k, 3, 2, 7);
        check_refused(p, A, B, X, "n = " + std::to_string(max_n + 1));
        p   = good;
        p.k = 0;
        check_refused(p, A, B, X, "1 <= k <= " + std::to_string(max_k));
        p = layout(s, good.n, max_k + 1, 3, 2, 7);
        check_refused(p, A, B, X, "k = " + std::to_string(max_k + 1));
        p      = good;
        p.ne02 = -1;
        check_refused(p, A, B, X, "batch counts must be >= 0");
        p      = good;
        p.ne02 = max_batch;
        p.ne03 = 2;
        check_refused(p, A, B, X, "matrices per launch");
        p      = good;
        p.nb12 = -good.nb12;
        check_refused(p, A, B, X, "strides must be >= 0");
        p      = good;
        p.nb02 = good.n * good.n - 1;
        check_refused(p, A, B, X, "A's batch strides");
        p      = good;
        p.nb13 = good.nb12;
        check_refused(p, A, B, X, "B's batch strides");
        p     = good;
        p.nb2 = 0;
        check_refused(p, A, B, X, "X's batch strides");
        p     = good;
        p.nb3 = int64_t{1} << 61;
        check_refused(p, A, B, X, "overflows 64 bits");
        check_refused(good, nullptr, B, X, "non-null");
        check_refused(good, A, B, nullptr, "non-null");
        // X one aligned element past A's (B's) start: it overlaps A (B), and is
        // aligned, so that a step with 16-byte loads refuses it for the overlap.
        const int aligned_step = s.limits.alignment_bytes / static_cast<int>(sizeof(float));
        check_refused(good, A, B, A + aligned_step, "X overlaps A or B");
        check_refused(good, A, B, B + aligned_step, "X overlaps A or B");
        if (s.limits.alignment_bytes > static_cast<int>(sizeof(float))) {
            const std::string alignment = "aligned to " + std::to_string(s.limits.alignment_bytes) + " bytes";
            check_refused(good, A + 1, B, X, alignment);
            check_refused(good, A, B + 1, X, alignment);
            check_refused(good, A, B, X + 1, alignment);
            p      = good;
            p.nb12 = good.nb12 + 1;
            p.nb13 = good.nb13 + good.nb12 * 2;
            check_refused(p, A, B, X, "batch strides must be multiples of");
        }
    }

    TEST_CASE("an empty batch is a valid no-op") {
        // Null pointers and no stream: a launch, even of no blocks, would fail.
        const Step& s = tested();
        for (const auto& [ne02, ne03] : {std::pair<int64_t, int64_t>{0, 3}, {4, 0}, {0, 0}}) {
            const Problem p = Problem::contiguous(std::min(s.limits.max_n, 17), 3, ne02, ne03);
            CHECK_NOTHROW(s.solve(nullptr, nullptr, nullptr, p, nullptr));
        }
    }

    TEST_CASE("plan: every specialized shape runs a compile-time instance, not the run-time one") {
        const Step& s = tested();
        for (int i = 0; i < s.specialized_count; ++i) {
            const Shape   shape    = s.specialized[i];
            const Problem special  = layout(s, shape.n, shape.k, shape.ne02, shape.ne03, 0);
            const Problem run_time = layout(s, 7, shape.k, shape.ne02, shape.ne03, 0);
            INFO("specialized shape n = " << shape.n << ", k = " << shape.k << ", " << special.batch() << " matrices");
            const KernelLaunch launch = s.plan(special);
            CHECK(launch.kernel != nullptr);
            CHECK(launch.kernel != s.plan(run_time).kernel);
            CHECK(int64_t{launch.grid.x} * launch.grid.y * launch.grid.z >= 1);
            CHECK(int64_t{launch.block.x} * launch.block.y * launch.block.z >= shape.k);
        }
    }
}

TEST_SUITE("gpu") {
    TEST_CASE("every specialized instance, every input family, strided batches") {
        const Step& s = tested();
        Summary     summary;
        // Gaps of 5 floats after each matrix (odd strides, where a step takes
        // them) and of 8 (strides that keep every matrix on a 16-byte boundary,
        // so that a step which copies 16 bytes where it can runs those copies).
        for (const int64_t pad : {5, 8}) {
            for (int i = 0; i < s.specialized_count; ++i) {
                const Shape   shape = s.specialized[i];
                const Problem p     = layout(s, shape.n, shape.k, shape.ne02, shape.ne03, pad);
                for (const Family family : all_families) {
                    // (The first layout keeps the seeds it always had.)
                    check(s, p, family,
                          derive_seed(test_seed(), pad == 5 ? 1 : 20, shape.n, shape.k * 1000 + i,
                                      static_cast<uint64_t>(family)),
                          summary);
                }
            }
        }
        summary.print("specialized instances");
    }

    TEST_CASE("the run-time instance at the edges of n and k, every input family") {
        const Step& s = tested();
        Summary     summary;
        for (const int n : {1, 7, 12, 15, 17, 28, 31, 32, 33, 63, 64, 65, 96, 127, 128}) {
            for (const int k : {1, 3, 6, 31, 32, 33, 63, 64, 65, 128, 129, 417}) {
                if (!fits(s, n, k)) {
                    continue;
                }
                // Gaps of 3 floats (single-float copies); at a multiple of 4
                // below 64 also contiguous, where a step copies 16 bytes.
                for (const int64_t pad : n % 4 == 0 && n < 64 ? std::vector<int64_t>{3, 0} : std::vector<int64_t>{3}) {
                    const Problem p = layout(s, n, k, 2, 3, pad);
                    for (const Family family : all_families) {
                        check(s, p, family,
                              derive_seed(test_seed(), 2, n, k, static_cast<uint64_t>(family)) +
                                  static_cast<uint64_t>(pad == 0),
                              summary);
                    }
                }
            }
        }
        summary.print("run-time shapes");
    }

    TEST_CASE("batch layouts: contiguous, padded, ne03-major, one matrix, X's strides apart from B's") {
        const Step& s = tested();
        Summary     summary;
        for (const Shape shape : pr_odd_and_large_n_shapes(s)) {
            const int64_t n = shape.n, k = shape.k;
            // i03 steps by one matrix, i02 by ne03 = 3 of them: the batch order transposed.
            const Problem single     = layout(s, n, k, 1, 1, 0);
            Problem       ne03_major = layout(s, n, k, 4, 3, 0);
            ne03_major.nb03          = single.nb02;
            ne03_major.nb02          = 3 * single.nb02;
            ne03_major.nb13 = ne03_major.nb3 = single.nb12;
            ne03_major.nb12 = ne03_major.nb2 = 3 * single.nb12;
            for (const Problem& p :
                 {layout(s, n, k, 4, 3, 0), layout(s, n, k, 5, 1, 17), ne03_major, single, layout(s, n, k, 1, 7, 1),
                  layout_x_apart(s, n, k, 5, 1, 17, 0), layout_x_apart(s, n, k, 2, 3, 0, 29)}) {
                for (const Family family : all_families) {
                    check(s, p, family, derive_seed(test_seed(), 3, p.nb02, p.nb03, static_cast<uint64_t>(family)),
                          summary);
                }
            }
        }
        summary.print("batch layouts");
    }

    TEST_CASE("test-backend-ops' correctness shapes, contiguous, where the step accepts them") {
        const Step& s = tested();
        Summary     summary;
        // As ggml lays them out: every matrix right after the one before.
        for (const Shape shape : backend_ops_correctness_shapes()) {
            const Problem p = Problem::contiguous(shape.n, shape.k, shape.ne02, shape.ne03);
            if (!accepts(s, p)) {
                MESSAGE(std::string(s.name)
                        << " refuses " << p.describe() << " contiguous (its limits; checked in the cpu suite)");
                continue;
            }
            check(s, p, Family::backend_ops, backend_ops_seed(shape), summary);
        }
        summary.print("test-backend-ops' correctness shapes, contiguous");
    }

    TEST_CASE("pointers one float past a 16-byte boundary, where the step accepts them") {
        const Step& s = tested();
        if (s.limits.alignment_bytes > static_cast<int>(sizeof(float))) {
            MESSAGE(std::string(s.name) << " refuses such pointers (checked in the cpu suite)");
            return;
        }
        Summary summary;
        // The PR's shape, and 2,048 matrices of n = 64 and of a contiguous
        // odd n, where step 20 with aligned pointers runs its persistent kernel
        // and its one-block-per-matrix single-float path.
        for (const Shape shape : {Shape{64, 6}, Shape{64, 64, 32, 64}, Shape{63, 64, 32, 64}}) {
            if (!fits(s, shape.n, shape.k)) {
                continue;
            }
            const Problem p = layout(s, shape.n, shape.k, shape.ne02, shape.ne03, 0);
            for (const Family family : all_families) {
                check(s, p, family, derive_seed(test_seed(), 13, shape.n, shape.k, static_cast<uint64_t>(family)),
                      summary, 1);
            }
        }
        summary.print("pointers one float past a 16-byte boundary");
    }

    TEST_CASE("against the previous step: same output where it must be, both correct") {
        const StepUnderTest& t = step_under_test();
        if (t.previous == nullptr) {
            MESSAGE("the first step has no predecessor: it is checked against the reference only, above");
            return;
        }
        Summary summary;
        int64_t zero_signs = 0;
        // Besides small shapes of n = 64 and of run-time n: 2,048 and 4,096
        // matrices with 64 and 128 columns, where a step may switch to a
        // persistent grid (step 19 on an H200 does) while its predecessor
        // keeps one block per matrix; and n = k = 16, a small batch and
        // Kimi-Linear's 1,024 matrices, where a step may run instances of 16
        // rows (step 24) while its predecessor runs its run-time one. Each
        // shape contiguous (every matrix on a 16-byte boundary when n * n and
        // n * k are multiples of 4) and with a gap of one element after each
        // matrix (most matrices off it), so that a step's aligned and
        // unaligned paths are both compared.
        for (const Shape shape :
             {Shape{64, 6}, Shape{64, 32}, Shape{33, 5}, Shape{17, 1}, Shape{64, 32, 64, 64}, Shape{64, 64, 32, 64},
              Shape{64, 64, 64, 64}, Shape{63, 128, 32, 64}, Shape{16, 16}, Shape{16, 16, 32, 32}}) {
            if (!fits(*t.step, shape.n, shape.k) || !fits(*t.previous, shape.n, shape.k)) {
                continue;
            }
            // Strides both steps accept: aligned for the stricter of the two.
            const Step& stricter =
                t.step->limits.alignment_bytes >= t.previous->limits.alignment_bytes ? *t.step : *t.previous;
            for (const int64_t pad : {0, 1}) {
                const Problem p = layout(stricter, shape.n, shape.k, shape.ne02, shape.ne03, pad);
                for (const Family family : all_families) {
                    const uint64_t seed = derive_seed(test_seed(), 4, shape.n, shape.k, static_cast<uint64_t>(family));
                    const Check    current  = check_step(*t.step, p, family, seed);
                    const Check    previous = check_step(*t.previous, p, family, seed);
                    INFO(p.describe() << ", family " << std::string(family_name(family)) << ", run seed "
                                      << test_seed());
                    CHECK_MESSAGE(current.verdict.passed, std::string(t.step->name) << ": " << current.verdict.failure);
                    CHECK_MESSAGE(previous.verdict.passed, std::string(t.previous->name)
                                                               << ": " << previous.verdict.failure);
                    if (t.output == Output::same_as_previous || t.output == Output::same_up_to_zero_sign) {
                        const Comparison c = compare(current.X, previous.X, t.output);
                        CHECK_MESSAGE(c.first_difference < 0,
                                      std::string(t.step->name)
                                          << " must compute exactly what " << std::string(t.previous->name)
                                          << " computes; element " << c.first_difference << " of X differs");
                        zero_signs += c.zero_signs;
                    }
                    summary.add(current.verdict);
                }
            }
        }
        summary.print(t.output == Output::same_as_previous ? "bit-identical to the previous step"
                      : t.output == Output::same_up_to_zero_sign
                          ? "bit-identical to the previous step, zero signs aside"
                      : t.output == Output::copies_b ? "X = B bit for bit, the previous step correct"
                                                     : "both steps correct");
        if (t.output == Output::same_up_to_zero_sign) {
            std::printf("  zeros of opposite sign: %lld elements\n", static_cast<long long>(zero_signs));
        }
    }

    TEST_CASE("non-finite input propagates, as IEEE arithmetic does, and nothing else changes") {
        // What every step's chapter states: no guard against a zero diagonal
        // (upstream dropped it), so from the row it poisons on, every affected
        // element is NaN or Inf, and every other element is within the bound as usual.
        const Step& s = tested();
        Summary     summary;
        for (const Shape shape : pr_odd_and_large_n_shapes(s)) {
            const int64_t     n = shape.n, k = shape.k;
            const Problem     p  = layout(s, n, k, 3, 1, 3);
            Inputs            in = make_inputs(Family::well_conditioned, p, derive_seed(test_seed(), 8, n, k));
            std::vector<char> expect_non_finite(static_cast<size_t>(p.batch() * n * k), 0);
            const auto        poison_rows = [&](const int64_t m, const int64_t from_row, const int64_t column) {
                for (int64_t r = from_row; r < n; ++r) {
                    for (int64_t c = 0; c < k; ++c) {
                        if (column < 0 || c == column) {
                            expect_non_finite[static_cast<size_t>((m * n + r) * k + c)] = 1;
                        }
                    }
                }
            };
            const int64_t zero_row = n / 2, nan_row = (2 * n) / 3, inf_row = n / 3;
            in.A[static_cast<size_t>(1 * p.nb02 + zero_row * n + zero_row)] = 0.0f;  // matrix 1: a zero diagonal
            poison_rows(1, zero_row, -1);
            if (nan_row > 0) {  // matrix 0: NaN below the diagonal
                in.A[static_cast<size_t>(nan_row * n + nan_row - 1)] = std::numeric_limits<float>::quiet_NaN();
                poison_rows(0, nan_row, -1);
            }
            in.B[static_cast<size_t>(2 * p.nb12 + inf_row * k + (k - 1))] =
                INFINITY;  // matrix 2: Inf in one column of B
            poison_rows(2, inf_row, k - 1);

            const DeviceProblem device(p, in);
            const HostFloats    X = run_step(s, p, device);
            const Verdict verdict = verdict_on(s, p, Family::well_conditioned, in, X, Bound::check, &expect_non_finite);
            INFO(std::string(s.name) << " on " << p.describe() << ", run seed " << test_seed());
            CHECK_MESSAGE(verdict.passed, verdict.failure);
            if (verdict.passed) {
                summary.add(verdict);
            }
        }
        summary.print("zero diagonal, NaN in A, Inf in B");
    }

    TEST_CASE("a batch of 2^20 matrices: every matrix solved, the grid's largest dimension used") {
        const Step&   s = tested();
        const Problem p = layout(s, 2, 1, 1024, 1024, 0);
        Summary       summary;
        check(s, p, Family::well_conditioned, derive_seed(test_seed(), 11), summary);
        summary.print("2^20 matrices");
    }

    TEST_CASE("the largest k: one matrix, as many groups of columns as the step's k makes") {
        // n = 2 at the step's own largest k (step 28: 32,768 groups of 128
        // columns, offsets within a matrix up to 2^23), and past n = 64, where
        // a step takes it, 4,096 groups of 64 columns.
        const Step& s = tested();
        Summary     summary;
        for (const Shape shape : {Shape{2, s.limits.max_k, 1, 1}, Shape{65, 64 * 4096, 1, 1}}) {
            if (!fits(s, shape.n, shape.k)) {
                continue;
            }
            check(s, layout(s, shape.n, shape.k, 1, 1, 0), Family::well_conditioned,
                  derive_seed(test_seed(), 15, shape.n, shape.k), summary);
        }
        summary.print("the largest k");
    }

    TEST_CASE("batches of 2,048 and 8,192 matrices: blocks of a persistent grid take several each") {
        // Most other cases have a few dozen matrices, fewer than a persistent
        // grid has blocks: each block would solve one, and a block's move on
        // to its next matrix would go untested. (On an H200 a persistent grid
        // holds 528 blocks, 4 per SM.)
        const Step& s = tested();
        Summary     summary;
        for (const Shape shape :
             {Shape{64, 32, 32, 64}, Shape{64, 64, 32, 64}, Shape{64, 128, 32, 64}, Shape{61, 5, 32, 64},
              Shape{64, 32, 64, 128}, Shape{64, 64, 64, 128}, Shape{61, 5, 64, 128}}) {
            if (!fits(s, shape.n, shape.k)) {
                continue;
            }
            const Problem p = layout(s, shape.n, shape.k, shape.ne02, shape.ne03, 1);
            check(s, p, Family::well_conditioned, derive_seed(test_seed(), 12, shape.n, shape.k, p.batch()), summary);
        }
        summary.print("2,048 and 8,192 matrices");
    }

    TEST_CASE("randomized sweep: random n, k, batch, padding and family (--sweep N cases)") {
        const Step&   s     = tested();
        const int64_t cases = test_options().sweep.value_or(24);
        Summary       summary;
        for (int64_t i = 0; i < cases; ++i) {
            const uint64_t draw   = derive_seed(test_seed(), 9, static_cast<uint64_t>(i));
            const int64_t  n      = 1 + static_cast<int64_t>(draw % max_n_on_device(s));
            const int64_t  k      = 1 + static_cast<int64_t>((draw >> 8) % drawn_k_limit(s));
            const int64_t  ne02   = 1 + static_cast<int64_t>((draw >> 16) % 4);
            const int64_t  ne03   = 1 + static_cast<int64_t>((draw >> 20) % 3);
            const int64_t  pad    = static_cast<int64_t>((draw >> 24) % 41);
            const Family   family = all_families[(draw >> 32) % std::size(all_families)];
            const int64_t  x_pad  = static_cast<int64_t>((draw >> 40) % 41);  // X's gaps differ from B's
            INFO("sweep case " << i << " of " << cases);
            check(s, layout_x_apart(s, n, k, ne02, ne03, pad, x_pad), family, draw, summary);
        }
        summary.print("randomized sweep");
    }

    TEST_CASE("sanitizer shapes: odd n and k, the n = 64 instances, k = 64 where it fits") {
        // Few, small launches: compute-sanitizer runs this case under each of its tools.
        // Past n = 64 and k = 128, where a step takes them: an odd n and k, the
        // largest n with two groups of columns (test-backend-ops' perf shape,
        // n = 256, k = 128), and test-backend-ops' largest k, at an odd n.
        // Below n = 17 and 33, the run-time instances of 16 and 32 rows (step 30).
        const Step& s = tested();
        Summary     summary;
        for (const Shape shape :
             {Shape{33, 3}, Shape{63, 6}, Shape{64, 6}, Shape{17, 5}, Shape{64, 64}, Shape{47, 37}, Shape{100, 41},
              Shape{256, 128}, Shape{79, 417}, Shape{11, 5}, Shape{12, 7}, Shape{28, 9}}) {
            if (!fits(s, shape.n, shape.k)) {
                continue;
            }
            // Also contiguous past n = 64 and at n = 12 and 28, where 16-byte
            // copies fit (n a multiple of 4; past n = 64, k too).
            const bool contiguous_too = shape.n > 64 || (shape.n % 4 == 0 && shape.n < 64);
            for (const int64_t pad : contiguous_too ? std::vector<int64_t>{3, 0} : std::vector<int64_t>{3}) {
                const Problem p = layout(s, shape.n, shape.k, 2, 2, pad);
                for (const Family family : {Family::well_conditioned, Family::exact}) {
                    check(s, p, family,
                          derive_seed(test_seed(), 10, shape.n, shape.k, static_cast<uint64_t>(family)) + pad, summary);
                }
            }
        }
        summary.print("sanitizer shapes");
    }

    TEST_CASE("a shape of your own: --n, --k, --ne2, --ne3 (else one drawn from the seed)") {
        const Step&    s = tested();
        const Options& o = test_options();
        // Without a shape on the command line, draw one within the step's
        // limits; with one, what is not given is the PR's shape, as in the
        // timing below and in the report.
        const uint64_t draw  = derive_seed(test_seed(), 5);
        const Problem  shape = o.has_shape()
                                   ? shape_of_your_own(o)
                                   : Problem::contiguous(1 + static_cast<int64_t>(draw % max_n_on_device(s)),
                                                         1 + static_cast<int64_t>((draw >> 16) % drawn_k_limit(s)),
                                                         1 + static_cast<int64_t>((draw >> 32) % 5),
                                                         1 + static_cast<int64_t>((draw >> 48) % 5));
        // Its batch strides rounded up to what the step accepts (16-byte steps: multiples of 4).
        const Problem p = layout(s, shape.n, shape.k, shape.ne02, shape.ne03, 0);
        REQUIRE(fits(s, p.n, p.k));  // the main refused a shape beyond the step's limits already
        Summary summary;
        std::printf("  shape %s, %lld matrices\n", p.describe().c_str(), static_cast<long long>(p.batch()));
        // Every family in one batch, matrix by matrix: a large shape is drawn,
        // copied, solved and judged once, not once per family.
        check(s, p, Family::mixed, derive_seed(test_seed(), 6), summary);
        summary.print(o.has_shape() ? "your shape, the four families in turn"
                                    : "drawn shape, the four families in turn");
    }

    TEST_CASE("timing against the previous step (printed, never asserted)") {
        const StepUnderTest& t = step_under_test();
        const Options&       o = test_options();
        // Each problem timed, and what follows its shape in the table where
        // the shape is timed in more than one layout.
        struct Timed {
            Problem     problem;
            std::string label;
        };
        std::vector<Timed> shapes;
        for (int i = 0; i < t.timed_shapes; ++i) {
            shapes.push_back({reference_shapes()[i].problem, ""});
        }
        if (o.has_shape()) {
            // Batch strides both steps accept: aligned for the stricter of the two.
            const Step& stricter =
                t.previous != nullptr && t.previous->limits.alignment_bytes > t.step->limits.alignment_bytes
                    ? *t.previous
                    : *t.step;
            const Problem own = shape_of_your_own(o);
            shapes.push_back({layout(stricter, own.n, own.k, own.ne02, own.ne03, 0), ""});
            // Where the step accepts strides its predecessor refuses, the step
            // alone on them too: its contiguous layout where that differs
            // (n * n or n * k not a multiple of the predecessor's unit), else
            // a gap of one float after each matrix.
            if (&stricter != t.step) {
                const Problem contiguous = layout(*t.step, own.n, own.k, own.ne02, own.ne03, 0);
                const Problem both       = shapes.back().problem;
                const bool    differs    = contiguous.nb02 != both.nb02 || contiguous.nb12 != both.nb12;
                shapes.back().label      = " " + std::to_string(stricter.limits.alignment_bytes) + "-byte strides";
                shapes.push_back({differs ? contiguous : layout(*t.step, own.n, own.k, own.ne02, own.ne03, 1),
                                  differs ? " contiguous" : " one-float gaps"});
            }
        }
        std::vector<const Step*> steps;
        if (t.previous != nullptr) {
            steps.push_back(t.previous);
        }
        steps.push_back(t.step);

        // Both modes, as the report times them: back to back, where each launch's
        // overhead counts, and in graph replay, where a small shape's kernel
        // shows apart from that overhead.
        const TimingMode modes[] = {TimingMode::back_to_back, TimingMode::graph_replay};
        // The reader's shapes are timed first, though printed after the
        // reference shapes: so that a profiler's n-th launch of a kernel (Nsight
        // Compute's --launch-skip) falls at the shape on the command line, and
        // not at the first reference shape that runs the same kernel.
        std::vector<size_t> timing_order;
        for (size_t s = static_cast<size_t>(t.timed_shapes); s < shapes.size(); ++s) {
            timing_order.push_back(s);
        }
        for (size_t s = 0; s < static_cast<size_t>(t.timed_shapes); ++s) {
            timing_order.push_back(s);
        }
        std::vector<std::vector<TimingRow>> rows_of_shape[std::size(modes)];
        for (std::vector<std::vector<TimingRow>>& of_mode : rows_of_shape) {
            of_mode.resize(shapes.size());
        }
        for (const size_t s : timing_order) {
            const Timed&                       shape = shapes[s];
            const Problem&                     p     = shape.problem;
            std::vector<const Step*>           timed;
            std::vector<DeviceProblem>         devices;
            std::vector<std::function<void()>> launches;
            const Inputs inputs = make_inputs(Family::backend_ops, p, derive_seed(test_seed(), 7, p.n, p.k));
            for (const Step* step : steps) {
                if (!fits(*step, p.n, p.k) || !strides_fit(*step, p)) {
                    continue;
                }
                // Every configuration is checked before it is timed.
                devices.emplace_back(p, inputs);
                const HostFloats X       = run_step(*step, p, devices.back());
                const Verdict    verdict = verdict_on(*step, p, Family::backend_ops, inputs, X, Bound::skip);
                INFO(std::string(step->name) << " on " << p.describe());
                REQUIRE_MESSAGE(verdict.passed, verdict.failure);
                timed.push_back(step);
            }
            // The stream taken once, not in every timed call: the launches are all that is timed.
            const cudaStream_t on = stream();
            for (size_t i = 0; i < timed.size(); ++i) {
                const DeviceProblem* const device = &devices[i];
                const Step* const          step   = timed[i];
                launches.push_back([=] { step->solve(device->A(), device->B(), device->X(), p, on); });
            }
            for (size_t m = 0; m < std::size(modes); ++m) {
                // A step's launch is one kernel and nothing else: every one is capturable.
                if (modes[m] == TimingMode::graph_replay) {
                    for (size_t i = 0; i < launches.size(); ++i) {
                        const std::optional<std::string> why = graph_capture_failure(launches[i]);
                        INFO(std::string(timed[i]->name) << " on " << p.describe());
                        REQUIRE_MESSAGE(!why, why.value_or(""));
                    }
                }
                const std::vector<Timing> timings = time_candidates(modes[m], launches);
                for (size_t i = 0; i < timed.size(); ++i) {
                    TimingRow row{i == 0 ? p.describe() + shape.label : "", timed[i]->name, timings[i],
                                  gib_per_second(p, timings[i].median_us), std::nullopt};
                    if (i > 0) {
                        row.change_percent = change_percent(timings[i - 1].median_us, timings[i].median_us);
                    }
                    rows_of_shape[m][s].push_back(row);
                }
            }
        }
        std::vector<TimingRow> rows[std::size(modes)];
        for (size_t m = 0; m < std::size(modes); ++m) {
            for (const std::vector<TimingRow>& of_shape : rows_of_shape[m]) {
                rows[m].insert(rows[m].end(), of_shape.begin(), of_shape.end());
            }
        }
        std::cout << "\ntiming: launches back to back on one stream (launch overhead included);\n"
                  << "  us/run is the median of " << TimingConfig{}.back_to_back.samples
                  << " samples, [min, max] of the samples; GB/s = bytes(A + B + X) / time, in GiB/s\n";
        print_environment(std::cout);
        print_timing_table(std::cout, rows[0]);
        std::cout << "\ntiming: graph replay, many launches captured in one CUDA graph (launch overhead removed);\n"
                  << "  us/run is the median of " << TimingConfig{}.graph_replay.samples
                  << " samples; the same figures and inputs as above\n";
        print_timing_table(std::cout, rows[1]);
    }
}

}  // namespace harness
