#include "summary.hpp"

#include "judge.hpp"
#include "reference_shapes.hpp"
#include "timing_table.hpp"

#include <algorithm>
#include <cstdio>
#include <string>
#include <vector>

namespace harness {

namespace {

std::string fixed(const double value, const int decimals) {
    char text[64];
    std::snprintf(text, sizeof(text), "%.*f", decimals, value);
    return text;
}

// As the PR's tables print a change: "-25.63%", "+34.50%".
std::string signed_percent(const double before, const double after) {
    const double change = change_percent(before, after);
    return (change >= 0.0 ? "+" : "") + fixed(change, 2) + "%";
}

const ShapeResult* shape_with_id(const ReportRun& run, const std::string& id) {
    for (const ShapeResult& shape : run.shapes) {
        if (shape.id == id) {
            return &shape;
        }
    }
    return nullptr;
}

// The part of the GPU's description that starts with `prefix` ("driver 13.0"), or "".
std::string description_part(const std::string& description, const std::string& prefix) {
    size_t start = 0;
    while (start < description.size()) {
        const size_t end  = description.find(", ", start);
        const size_t stop = end == std::string::npos ? description.size() : end;
        if (description.compare(start, prefix.size(), prefix) == 0) {
            return description.substr(start, stop - start);
        }
        start = stop + 2;
    }
    return "";
}

// test-backend-ops' newer perf mode prints FLOP/s where the PR's printed GB/s:
// it counts n * (n + 1) * k floating-point operations per matrix.
double gflop_per_second(const Problem& problem, const double us_per_run) {
    const double flops = static_cast<double>(problem.n) * static_cast<double>(problem.n + 1) *
                         static_cast<double>(problem.k) * static_cast<double>(problem.batch());
    return flops / (us_per_run * 1e-6) / 1e9;
}

// The first timed step whose name starts with `prefix` ("03"), or null.
const RowResult* step_row(const ShapeResult& shape, const std::string& prefix, const TimingMode mode) {
    for (const RowResult& row : shape.rows) {
        if (row.kind == RowKind::step && row.name.rfind(prefix, 0) == 0 && row.timing(mode)) {
            return &row;
        }
    }
    return nullptr;
}

std::string mode_sentence(const TimingMode mode) {
    return mode == TimingMode::back_to_back ? "launches back to back on one stream, launch overhead included"
                                            : "launches replayed from a CUDA graph, launch overhead removed";
}

// The PR's table, measured here: the baseline, the PR as merged and as its
// branch had it, each with its change against the baseline.
void write_pr_table(std::ostream& out, const ShapeResult& pr, const TimingMode mode) {
    const RowResult* const baseline = step_row(pr, "01", mode);
    const RowResult* const merged   = step_row(pr, "03", mode);
    const RowResult* const branch   = step_row(pr, "04", mode);
    if (baseline == nullptr || merged == nullptr || branch == nullptr) {
        return;
    }
    const auto us   = [mode](const RowResult* row) { return row->timing(mode)->median_us; };
    const auto gbps = [&pr](const double us_per_run) { return gib_per_second(pr.problem, us_per_run); };
    const auto step = [](const RowResult* row) { return "step " + row->name.substr(0, 2); };
    out << "\n**This GPU, " << mode_name(mode) << "** (" << mode_sentence(mode) << ")\n\n"
        << "| Metric | Baseline (" << step(baseline) << ") | PR as merged (" << step(merged)
        << ") | Improvement | PR's branch (" << step(branch) << ") | Improvement |\n"
        << "|---|---:|---:|---:|---:|---:|\n"
        << "| Duration (us/run) | " << fixed(us(baseline), 2) << " | " << fixed(us(merged), 2) << " | "
        << signed_percent(us(baseline), us(merged)) << " | " << fixed(us(branch), 2) << " | "
        << signed_percent(us(baseline), us(branch)) << " |\n"
        << "| Throughput (GB/s) | " << fixed(gbps(us(baseline)), 2) << " | " << fixed(gbps(us(merged)), 2) << " | "
        << signed_percent(gbps(us(baseline)), gbps(us(merged))) << " | " << fixed(gbps(us(branch)), 2) << " | "
        << signed_percent(gbps(us(baseline)), gbps(us(branch))) << " |\n";
    const auto gflops = [&pr](const double us_per_run) { return gflop_per_second(pr.problem, us_per_run); };
    out << "| Throughput (GFLOP/s) | " << fixed(gflops(us(baseline)), 2) << " | " << fixed(gflops(us(merged)), 2)
        << " | " << signed_percent(gflops(us(baseline)), gflops(us(merged))) << " | " << fixed(gflops(us(branch)), 2)
        << " | " << signed_percent(gflops(us(baseline)), gflops(us(branch))) << " |\n";
}

// The measured cuBLAS row of a shape in a mode, or null.
const RowResult* cublas_row(const ShapeResult& shape, const TimingMode mode) {
    for (const RowResult& row : shape.rows) {
        if (row.kind == RowKind::cublas && row.timing(mode) && row.status == RowStatus::measured) {
            return &row;
        }
    }
    return nullptr;
}

// Every reference shape: the last step in both of test-backend-ops' units, the
// fastest step and how far the last is from it, and cuBLAS.
void write_reference_table(std::ostream& out, const ReportRun& run) {
    out << "\n## Every reference shape: the last step, the fastest step and cuBLAS\n\n"
        << "GB/s as the PR's test-backend-ops printed it (bytes of A, B and X per run / time / 1024^3); GFLOP/s as "
           "today's prints it (the n (n + 1) k floating-point operations it counts per matrix / time).\n\n"
        << "| Shape | Mode | Last step | us/run | GB/s | GFLOP/s | Fastest step | us/run | Last / fastest | cuBLAS "
           "us/run | Last step over cuBLAS |\n"
        << "|---|---|---|---:|---:|---:|---|---:|---:|---:|---:|\n";
    for (const ShapeResult& shape : run.shapes) {
        if (on_batch_curve(shape.id) || shape.id == "custom") {
            continue;
        }
        for (const TimingMode mode : run.modes) {
            const std::optional<size_t> last_index = last_step(shape);
            const std::optional<size_t> fastest    = fastest_step(shape, mode);
            if (!last_index || !fastest || !shape.rows[*last_index].timing(mode)) {
                continue;
            }
            const RowResult* const last    = &shape.rows[*last_index];
            const RowResult&       best    = shape.rows[*fastest];
            const RowResult* const cublas  = cublas_row(shape, mode);
            const double           us      = last->timing(mode)->median_us;
            const double           best_us = best.timing(mode)->median_us;
            out << "| " << shape.title << ", " << shape.problem.describe() << " | " << mode_name(mode) << " | "
                << last->name << " | " << fixed(us, 2) << " | " << fixed(gib_per_second(shape.problem, us), 2) << " | "
                << fixed(gflop_per_second(shape.problem, us), 1) << " | " << best.name << " | " << fixed(best_us, 2)
                << " | " << fixed(us / best_us, 3) << " | "
                << (cublas != nullptr ? fixed(cublas->timing(mode)->median_us, 2) : std::string("-")) << " | "
                << (cublas != nullptr ? fixed(cublas->timing(mode)->median_us / us, 2) + "x" : std::string("-"))
                << " |\n";
        }
    }
}

void write_published_tables(std::ostream& out) {
    out << "\n**Published in the PR** (llama.cpp test-backend-ops, perf mode; the branch's fmaf and reciprocal "
           "form)\n\n"
        << "| GPU | Metric | Baseline (Master) | my Kernel (New) | Improvement |\n"
        << "|---|---|---:|---:|---:|\n";
    for (const PublishedChange& published : published_pr_changes) {
        out << "| " << published.gpu << " | Duration (us/run) | " << fixed(published.baseline_us, 2) << " | "
            << fixed(published.pr_us, 2) << " | " << signed_percent(published.baseline_us, published.pr_us) << " |\n"
            << "| " << published.gpu << " | Throughput (GB/s) | " << fixed(published.baseline_gb_per_s, 2) << " | "
            << fixed(published.pr_gb_per_s, 2) << " | "
            << signed_percent(published.baseline_gb_per_s, published.pr_gb_per_s) << " |\n";
    }
}

// The real model's shape: the fastest step in each mode, and cuBLAS.
void write_model_table(std::ostream& out, const ShapeResult& model, const std::vector<TimingMode>& modes) {
    out << "\n## The real model's shape: " << model.title << ", " << model.problem.describe() << " ("
        << model.problem.batch() << " matrices, n = k = " << model.problem.n << ")\n\n"
        << "| Mode | Kernel | Duration (us/run) | Throughput (GB/s) | Throughput (GFLOP/s) | Speed-up over cuBLAS |\n"
        << "|---|---|---:|---:|---:|---:|\n";
    for (const TimingMode mode : modes) {
        const std::optional<size_t> fastest = fastest_step(model, mode);
        const RowResult* const      best    = fastest ? &model.rows[*fastest] : nullptr;
        const RowResult* const      cublas  = cublas_row(model, mode);
        for (const RowResult* const row : {best, cublas}) {
            if (row == nullptr) {
                continue;
            }
            const double us = row->timing(mode)->median_us;
            out << "| " << mode_name(mode) << " | " << (row == best ? "best step: " : "") << row->name << " | "
                << fixed(us, 2) << " | " << fixed(gib_per_second(model.problem, us), 1) << " | "
                << fixed(gflop_per_second(model.problem, us), 1) << " | "
                << (cublas != nullptr ? fixed(cublas->timing(mode)->median_us / us, 2) + "x" : std::string("-"))
                << " |\n";
        }
    }
}

}  // namespace

void write_summary(std::ostream& out, const ReportRun& run) {
    out << "# SOLVE_TRI on " << run.gpu_name << ": the solve-tri workbook's report\n\n"
        << "- **GPU:** " << run.gpu << "\n";
    const std::string driver = description_part(run.gpu, "driver ");
    if (!driver.empty()) {
        out << "- **Driver:** supports CUDA " << driver.substr(7) << " (cudaDriverGetVersion)\n";
    }
    // The NMSE limit past the n test-backend-ops checks, named where a shape has such an n.
    const bool large_n = std::any_of(run.shapes.begin(), run.shapes.end(),
                                     [](const ShapeResult& shape) { return shape.problem.n > backend_ops_checked_n; });
    out << "- **Build:** " << run.build << "\n"
        << "- **Date:** " << run.date << "\n"
        << "- **Inputs:** test-backend-ops' (A on and below the diagonal in [0.1, 1], B in [-1, 1]); every kernel's "
           "output checked "
        << (large_n ? "(NMSE <= 1e-7; 1e-4 past n = 128)" : "(NMSE <= 1e-7)") << " before it was timed; "
        << run.rotation << "\n"
        << "- **Timing:** the median of each kernel's samples; GB/s = bytes(A + B + X) per run / time / 1024^3, as "
           "the PR's test-backend-ops counted them; GFLOP/s = n (n + 1) k batch per run / time, as today's counts "
           "them\n";

    if (const ShapeResult* const pr = shape_with_id(run, "pr")) {
        out << "\n## The PR's shape: " << pr->problem.describe() << " (" << pr->problem.batch()
            << " matrices, k = " << pr->problem.k << ")\n\n"
            << "llama.cpp PR #17703 (\"cuda: optimize SOLVE_TRI using registers and FMAF\") as the workbook's steps "
               "rebuild it: the baseline as merged before it (step 01, `01_shared_memory`); the PR as merged, which "
               "divides (step 03, `03_loop_splitting`); and the PR as its branch had it, with a reciprocal and an "
               "fmaf (step 04, `04_fmaf_reciprocal`). The merged PR also made every variable that never changes "
               "`const`, which changes no machine code (steps 04 and 05).\n";
        for (const TimingMode mode : run.modes) {
            write_pr_table(out, *pr, mode);
        }
        write_published_tables(out);
    }
    if (const ShapeResult* const model = shape_with_id(run, "qwen3_next")) {
        write_model_table(out, *model, run.modes);
    }
    write_reference_table(out, run);
    out << "\nMade by `build/solve_tri_report` of the solve-tri workbook: every step, cuBLAS as ggml calls it, "
           "and the floors are in its results.csv.\n";
}

}  // namespace harness
