#include "summary.hpp"

#include "timing_table.hpp"

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
        << "| Mode | Kernel | Duration (us/run) | Throughput (GB/s) | Speed-up over cuBLAS |\n"
        << "|---|---|---:|---:|---:|\n";
    for (const TimingMode mode : modes) {
        const std::optional<size_t> fastest = fastest_step(model, mode);
        const RowResult* const      best    = fastest ? &model.rows[*fastest] : nullptr;
        const RowResult*            cublas  = nullptr;
        for (const RowResult& row : model.rows) {
            if (row.kind == RowKind::cublas && row.timing(mode) && row.status == RowStatus::measured) {
                cublas = &row;
            }
        }
        for (const RowResult* const row : {best, cublas}) {
            if (row == nullptr) {
                continue;
            }
            const double us = row->timing(mode)->median_us;
            out << "| " << mode_name(mode) << " | " << (row == best ? "best step: " : "") << row->name << " | "
                << fixed(us, 2) << " | " << fixed(gib_per_second(model.problem, us), 1) << " | "
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
    out << "- **Build:** " << run.build << "\n"
        << "- **Date:** " << run.date << "\n"
        << "- **Inputs:** test-backend-ops' (A on and below the diagonal in [0.1, 1], B in [-1, 1]); every kernel's "
           "output checked (NMSE <= 1e-7) before it was timed; "
        << run.rotation << "\n"
        << "- **Timing:** the median of each kernel's samples; GB/s = bytes(A + B + X) per run / time / 1024^3, as "
           "test-backend-ops counts them\n";

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
    out << "\nMade by `build/solve_tri_report` of the solve-tri workbook: every step, cuBLAS as ggml calls it, "
           "and the floors are in its results.csv.\n";
}

}  // namespace harness
