// solve_tri_numerics: the accuracy a blocked solve (16 x 16 blocks) keeps when
// its off-diagonal block products run on tensor cores, in TF32 or split
// 3xTF32, emulated on the CPU (common/numerics/blocked_emulation.hpp), beside
// the same blocked solve in FP32, the blocked solve with its diagonal blocks
// inverted, and the row-by-row FP32 solve. Every number
// is against the double-precision reference of common/harness/reference.cpp,
// with the judge's formulas (common/harness/judge.cpp). No GPU is used.
//
//   solve_tri_numerics [--seed S]
#include "blocked_emulation.hpp"

#include "inputs.hpp"
#include "judge.hpp"
#include "options.hpp"
#include "parallel.hpp"
#include "reference.hpp"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <iostream>
#include <iterator>
#include <mutex>
#include <string>
#include <vector>

namespace {

using harness::Family;
using numerics::Method;

constexpr size_t method_count = std::size(numerics::all_methods);

// One line of the tables: `cases` draws of one test case, each a batch of
// `matrices_per_case` matrices of n x n and n x k, judged as one (NMSE over
// the batch), as test-backend-ops judges one of its cases.
struct Row {
    Family      family;
    int64_t     n;
    int64_t     k;
    int64_t     matrices_per_case;
    const char* group;  // the heading the row is printed under
};

// Enough draws that the worst case of a row means something, few enough that
// the whole run stays within seconds on two cores.
constexpr int64_t cases_per_row = 128;

std::vector<Row> table_rows() {
    std::vector<Row> rows;
    // test-backend-ops' correctness shapes with n <= 64, each with its own
    // batch (ne02 * ne03), as the step tests run them (common/harness/step_tests.cpp).
    const char* const cases = "test-backend-ops' correctness shapes with n <= 64, a case its batch";
    for (const Row& shape : {Row{Family::backend_ops, 10, 3, 12, cases}, Row{Family::backend_ops, 11, 5, 1, cases},
                             Row{Family::backend_ops, 17, 9, 8, cases}, Row{Family::backend_ops, 30, 8, 7, cases},
                             Row{Family::backend_ops, 42, 10, 10, cases}, Row{Family::backend_ops, 64, 10, 4, cases},
                             Row{Family::backend_ops, 64, 64, 4, cases}}) {
        rows.push_back(shape);
    }
    // The same init at the sizes a blocked kernel would take, one matrix per
    // case: a whole block, four, a partial last block (79 = 4 * 16 + 15), and
    // beyond the steps' n <= 64.
    for (const int64_t n : {16, 64, 79, 128, 256}) {
        for (const int64_t k : {16, 32, 64}) {
            rows.push_back({Family::backend_ops, n, k, 1, "test-backend-ops' init, a case one matrix"});
        }
    }
    // The gated delta rule's systems, k = n as the model solves them:
    // Qwen3-Next's chunks of 64, Kimi-Linear's of 16.
    const char* const delta_rule = "the gated delta rule's systems, a case one matrix";
    rows.push_back({Family::delta_rule, 64, 64, 1, delta_rule});
    rows.push_back({Family::delta_rule, 16, 16, 1, delta_rule});
    // The step tests' first family, for their element bound.
    rows.push_back({Family::well_conditioned, 64, 64, 1, "the step tests' well-conditioned family, a case one matrix"});
    return rows;
}

// What one method scored on one row.
struct Score {
    double  err2 = 0.0, ref2 = 0.0;  // over every matrix of the row
    double  worst_case_nmse   = 0.0;
    int64_t cases_above_limit = 0;    // cases with NMSE above test-backend-ops' 1e-7
    double  worst_bound_ratio = 0.0;  // max |x - ref| / (2 γ_{n+4} (|A^-1||A||x|)_i), as the judge's
    int64_t non_finite        = 0;    // elements left out of the sums above

    double nmse() const { return harness::nmse(err2, ref2); }
};

struct RowScores {
    Score by_method[method_count];
};

RowScores score_row(const Row& row, const uint64_t run_seed) {
    const harness::Problem problem = harness::Problem::contiguous(row.n, row.k, row.matrices_per_case, cases_per_row);
    // A row's inputs depend on the run's seed and the row itself, not on its place in the table.
    const uint64_t seed =
        harness::derive_seed(run_seed, static_cast<uint64_t>(row.family), row.n, row.k, row.matrices_per_case);
    const harness::Inputs            inputs = harness::make_inputs(row.family, problem, seed);
    std::vector<harness::HostFloats> solutions;
    for (const Method method : numerics::all_methods) {
        solutions.push_back(numerics::solve_batch(method, problem, inputs));
    }
    const double tolerance_factor = harness::element_tolerance_factor(row.n);
    RowScores    scores;
    std::mutex   merge;
    // Case c is batch index i03 = c: matrices [c * ne02, (c + 1) * ne02).
    harness::parallel_for(cases_per_row, [&](const int64_t first_case, const int64_t end_case) {
        harness::ReferenceSolver reference(row.n, row.k);
        for (int64_t c = first_case; c < end_case; ++c) {
            RowScores case_scores;
            for (int64_t m = c * problem.ne02; m < (c + 1) * problem.ne02; ++m) {
                reference.solve(problem, inputs, m, true);
                const int64_t offset = m * row.n * row.k;
                for (size_t method = 0; method < method_count; ++method) {
                    Score& score = case_scores.by_method[method];
                    for (int64_t e = 0; e < row.n * row.k; ++e) {
                        const double x = static_cast<double>(solutions[method][offset + e]);
                        if (!std::isfinite(x)) {
                            ++score.non_finite;
                            continue;
                        }
                        const double x0        = reference.x()[e];
                        const double err       = std::fabs(x - x0);
                        const double tolerance = tolerance_factor * reference.bound()[e];
                        score.err2 += err * err;
                        score.ref2 += x0 * x0;
                        score.worst_bound_ratio =
                            std::max(score.worst_bound_ratio, harness::bound_ratio(err, tolerance));
                    }
                }
            }
            const std::lock_guard<std::mutex> lock(merge);
            for (size_t method = 0; method < method_count; ++method) {
                const Score& case_score = case_scores.by_method[method];
                Score&       total      = scores.by_method[method];
                total.err2 += case_score.err2;
                total.ref2 += case_score.ref2;
                total.non_finite += case_score.non_finite;
                total.worst_case_nmse = std::max(total.worst_case_nmse, case_score.nmse());
                total.cases_above_limit += case_score.nmse() <= harness::backend_ops_max_nmse ? 0 : 1;
                total.worst_bound_ratio = std::max(total.worst_bound_ratio, case_score.worst_bound_ratio);
            }
        }
    });
    return scores;
}

std::string formatted(const char* format, const double value) {
    char text[64];
    std::snprintf(text, sizeof(text), format, value);
    return text;
}

std::string row_label(const Row& row) {
    char text[96];
    std::snprintf(text, sizeof(text), "%-17s %4lld %3lld %9lld", harness::family_name(row.family),
                  static_cast<long long>(row.n), static_cast<long long>(row.k),
                  static_cast<long long>(row.matrices_per_case));
    return text;
}

void print_table(const char* title, const std::vector<Row>& rows, const std::vector<RowScores>& scores,
                 std::string (*cell)(const Row&, const Score&)) {
    std::cout << "\n== " << title << " ==\n";
    std::printf("%-17s %4s %3s %9s", "family", "n", "k", "matrices");
    for (const Method method : numerics::all_methods) {
        std::printf("  %15s", numerics::method_name(method));
    }
    std::printf("\n");
    for (size_t i = 0; i < rows.size(); ++i) {
        if (i == 0 || std::string(rows[i].group) != rows[i - 1].group) {
            std::printf("-- %s\n", rows[i].group);
        }
        std::printf("%s", row_label(rows[i]).c_str());
        for (size_t method = 0; method < method_count; ++method) {
            std::printf("  %15s", cell(rows[i], scores[i].by_method[method]).c_str());
        }
        std::printf("\n");
    }
    std::fflush(stdout);
}

// A mark after each number above test-backend-ops' limit, where that limit is the rule.
std::string nmse_cell(const double nmse, const Row& row) {
    const bool above = row.family == Family::backend_ops && !(nmse <= harness::backend_ops_max_nmse);
    return formatted("%.1e", nmse) + (above ? " !" : "  ");
}

int usage_error(const char* program, const std::string& why) {
    std::cerr << program << ": " << why << "\nusage: " << program
              << " [--seed S]   (S: the seed of the random inputs; default fresh each run, printed)\n";
    return 2;
}

}  // namespace

int main(const int argc, char** argv) {
    const char* const program = argc > 0 ? argv[0] : "solve_tri_numerics";
    uint64_t          seed    = 0;
    try {
        const harness::ParsedCommandLine command_line = harness::parse_command_line(argc, argv);
        if (command_line.options.has_shape() || command_line.options.sweep) {
            return usage_error(program, "takes only --seed: its shapes are fixed, so that runs compare");
        }
        if (command_line.rest.size() > 1) {
            return usage_error(program, std::string("unknown argument '") + command_line.rest[1] + "'");
        }
        seed = harness::run_seed(command_line.options);
    } catch (const harness::UsageError& error) {
        return usage_error(program, error.what());
    }

    std::cout << "solve_tri_numerics: seed " << seed << " (rerun with --seed " << seed << ")\n"
              << "Blocked solve: " << numerics::block_rows << " x " << numerics::block_rows
              << " blocks; in the blocked columns each diagonal block by FP32 forward substitution,\n"
              << "x = (c - sum) / a_rr; the products\n"
              << "C_i = B_i - sum_{j<i} L_ij X_j emulated, accumulated in FP32 from B_i:\n"
              << "  blocked fp32    FP32 operands, one fmaf per product\n"
              << "  blocked tf32    operands rounded to TF32 as cvt.rna.tf32.f32 does, exact products\n"
              << "  blocked tf32x3  operands split hi + lo in TF32, products lo*hi, hi*lo, hi*hi per k-step of "
              << numerics::mma_depth << "\n"
              << "  inverse fp32    each diagonal block by its inverse (FP32 forward substitution of the identity),\n"
              << "                  X_i = L_ii^-1 C_i one more product; every product in FP32\n"
              << "  inverse tf32x3  the same, every product (L_ij X_j and L_ii^-1 C_i) in 3xTF32\n"
              << "  rows fp32       the row-by-row FP32 solve: x = (b - sum) / a_rr, sum an fmaf chain\n"
              << "(the order and rounding of the additions inside one mma are not modelled: each product is\n"
              << "added to the FP32 accumulator in turn, rounded to nearest). " << cases_per_row
              << " cases a row, each a batch of 'matrices' matrices\n"
              << "judged as one, as test-backend-ops judges one case; inputs as the step tests draw them\n"
              << "(common/harness/inputs.cpp); errors against the double-precision reference.\n";

    const std::vector<Row> rows = table_rows();
    std::vector<RowScores> scores;
    for (const Row& row : rows) {
        scores.push_back(score_row(row, seed));
    }

    print_table("NMSE over all cases of a row (sum of squared errors / sum of squared reference values)", rows, scores,
                [](const Row& row, const Score& score) { return nmse_cell(score.nmse(), row); });
    print_table("worst case's NMSE (test-backend-ops' rule: NMSE <= 1e-7 in every case; '!' marks a break)", rows,
                scores, [](const Row& row, const Score& score) { return nmse_cell(score.worst_case_nmse, row); });
    print_table("worst element error / the step tests' bound 2 gamma_{n+4} (|A^-1||A||x|)_i (<= 1 passes)", rows,
                scores, [](const Row&, const Score& score) { return formatted("%.2g", score.worst_bound_ratio); });

    int64_t non_finite = 0;
    for (const RowScores& row_scores : scores) {
        for (const Score& score : row_scores.by_method) {
            non_finite += score.non_finite;
        }
    }
    if (non_finite > 0) {
        std::cout << "\n" << non_finite << " elements came out NaN or Inf and are left out of the sums above\n";
    }

    std::cout << "\nTest-backend-ops' rule (every case NMSE <= 1e-7) on the test-backend-ops rows (cases above it):\n";
    for (size_t method = 0; method < method_count; ++method) {
        std::string broken;
        for (size_t i = 0; i < rows.size(); ++i) {
            const int64_t above = scores[i].by_method[method].cases_above_limit;
            if (rows[i].family == Family::backend_ops && above > 0) {
                broken += (broken.empty() ? "" : ", ") + std::string("n = ") + std::to_string(rows[i].n) +
                          " k = " + std::to_string(rows[i].k) + " (" + std::to_string(above) + "/" +
                          std::to_string(cases_per_row) + ")";
            }
        }
        std::printf("  %-15s %s\n", numerics::method_name(numerics::all_methods[method]),
                    broken.empty() ? "met in every row" : ("broken at " + broken).c_str());
    }
    return 0;
}
