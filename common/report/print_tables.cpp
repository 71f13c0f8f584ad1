#include "print_tables.hpp"

#include "judge.hpp"
#include "timing_table.hpp"

#include <algorithm>
#include <cstdio>

namespace harness {

namespace {

std::string shortened(const std::string& text, const size_t max_length = 110) {
    return text.size() <= max_length ? text : text.substr(0, max_length - 3) + "...";
}

// The rows of one mode's table, as common/report prints them.
std::vector<ReportTableRow> timing_rows(const ShapeResult& shape, const TimingMode mode, const CopyBandwidth& copy) {
    std::vector<ReportTableRow> rows;
    for (size_t r = 0; r < shape.rows.size(); ++r) {
        const RowResult& result = shape.rows[r];
        ReportTableRow   row;
        row.figures.step = result.name;
        if (result.status == RowStatus::not_applicable) {
            row.unmeasured = "n/a: " + shortened(result.note);
        } else if (result.status == RowStatus::failed) {
            row.unmeasured = "FAILED: " + shortened(result.note);
        } else if (!result.timing(mode)) {
            row.unmeasured = "n/a in this mode: " + shortened(result.note);
        } else {
            const RowFigures f         = row_figures(shape, r, mode, copy);
            row.figures.timing         = *result.timing(mode);
            row.figures.gib_per_s      = f.gib_per_s.value_or(0.0);
            row.figures.change_percent = f.change_percent;
            row.speedup                = f.speedup;
            row.percent_of_copy        = shape.memory_bound ? f.percent_of_copy : std::nullopt;
            row.moves_no_bytes         = result.kind == RowKind::empty_kernel;
        }
        rows.push_back(row);
    }
    return rows;
}

}  // namespace

void print_copy_bandwidth(std::ostream& out, const CopyBandwidth& copy) {
    char line[256];
    std::snprintf(line, sizeof(line),
                  "  copy bandwidth: %.3f TB/s = %.0f GiB/s (cudaMemcpyAsync device to device, %.0f MiB each way, "
                  "bytes read + written over the median of %d samples; [%.1f, %.1f] us per copy)\n",
                  copy.bytes_per_second / 1e12, copy.bytes_per_second / (1024.0 * 1024.0 * 1024.0),
                  static_cast<double>(copy.bytes_per_copy) / (1024.0 * 1024.0), copy.timing.samples, copy.timing.min_us,
                  copy.timing.max_us);
    out << line;
}

void print_shape(std::ostream& out, const ShapeResult& shape, const ReportRun& run) {
    const Problem& p = shape.problem;
    char           line[512];
    std::snprintf(line, sizeof(line), "\n== %s: %s, %lld matrices, %.0f bytes per run ==\n", shape.title.c_str(),
                  p.describe().c_str(), static_cast<long long>(p.batch()), p.bytes_moved());
    out << line;
    print_environment(out);
    out << "  inputs: test-backend-ops' (A on and below the diagonal in [0.1, 1], B in [-1, 1]); every row checked "
        << (p.n <= backend_ops_checked_n ? "(NMSE <= 1e-7, all finite)" : "(NMSE <= 1e-4 past n = 128, all finite)")
        << " before it is timed;\n";
    if (shape.rotation_sets > 1) {
        std::snprintf(line, sizeof(line), "          rotated over %d buffer set%s (%.1f MB, %.1fx the L2)\n",
                      shape.rotation_sets, shape.rotation_sets == 1 ? "" : "s", shape.rotation_bytes / 1e6,
                      shape.rotation_bytes / static_cast<double>(run.l2_bytes));
    } else {
        std::snprintf(line, sizeof(line),
                      "          not rotated: every launch reads the same %.1f MB (L2-hot where it fits), as in "
                      "test-backend-ops\n",
                      shape.rotation_bytes / 1e6);
    }
    out << line;
    if (shape.memory_bound) {
        print_copy_bandwidth(out, run.copy);
        std::snprintf(line, sizeof(line), "  copy floor for this shape: %.1f us (its bytes at the copy bandwidth)\n",
                      copy_floor_us(p, run.copy));
        out << line;
    }
    for (const TimingMode mode : run.modes) {
        out << "\n  " << mode_name(mode) << ": "
            << (mode == TimingMode::back_to_back ? "launches back to back on one stream (launch overhead included)"
                                                 : "launches replayed from a CUDA graph (launch overhead removed)")
            << ";\n  median of " << run.timing_config.sampling(mode).samples
            << " samples [min, max]; GB/s = bytes(A + B + X) / time / 1024^3; change against the step above; "
               "speed-up over the first step\n";
        print_timing_table(out, timing_rows(shape, mode, run.copy));
    }
    std::vector<ResourceRow> resources;
    for (const RowResult& row : shape.rows) {
        if (row.kind == RowKind::empty_kernel) {
            continue;
        }
        std::string why_none = row.kind == RowKind::cublas               ? "n/a: cuBLAS launches kernels of its own"
                               : row.status == RowStatus::not_applicable ? "n/a: " + shortened(row.note)
                               : row.status == RowStatus::failed         ? "FAILED"
                                                                         : "no launch recorded";
        resources.push_back({row.name, row.resources, why_none});
    }
    out << "\n  resources (CUDA runtime, no profiler): per thread, per block, per SM; occupancy = resident warps / "
           "the SM's maximum\n";
    print_resources_table(out, resources);
}

void print_pr_side_by_side(std::ostream& out, const ShapeResult& pr_shape, const ReportRun& run) {
    struct Line {
        std::string label;
        double      before, after;
    };
    std::vector<Line> lines;
    for (const PublishedChange& published : published_pr_changes) {
        lines.push_back(
            {std::string("PR #17703, ") + published.gpu + ", published", published.baseline_us, published.pr_us});
    }
    for (const MeasuredChange& change : measured_pr_changes(pr_shape, run.modes)) {
        lines.push_back({std::string("this GPU, ") + mode_name(change.mode) + ": " + change.from + " -> " + change.to,
                         change.from_us, change.to_us});
    }
    size_t width = 10;
    for (const Line& l : lines) {
        width = std::max(width, l.label.size());
    }
    out << "\n== The PR side by side: " << pr_shape.problem.describe()
        << ", us/run (the published rows: test-backend-ops' perf mode, on the PR author's GPUs) ==\n";
    char text[512];
    std::snprintf(text, sizeof(text), "  %-*s %9s %9s %9s\n", static_cast<int>(width), "", "before", "after", "change");
    out << text;
    for (const Line& l : lines) {
        std::snprintf(text, sizeof(text), "  %-*s %9.2f %9.2f %7.1f %%\n", static_cast<int>(width), l.label.c_str(),
                      l.before, l.after, change_percent(l.before, l.after));
        out << text;
    }
}

void print_curve(std::ostream& out, const ReportRun& run) {
    const std::vector<const ShapeResult*> points = curve_points(run);
    if (points.empty()) {
        return;
    }
    const ShapeResult&          first     = *points.front();
    const std::optional<size_t> last      = last_step(first);
    const std::string           last_name = last ? first.rows[*last].name : std::string("last step");
    char                        line[512];
    std::snprintf(line, sizeof(line),
                  "\n== The batch curve: n = k = %lld, %lld to %lld matrices (Qwen3-Next: 32 value heads, one matrix "
                  "a head per 64 tokens) ==\n",
                  static_cast<long long>(first.problem.n), static_cast<long long>(first.problem.batch()),
                  static_cast<long long>(points.back()->problem.batch()));
    out << line;
    out << "  test-backend-ops' inputs, every configuration checked before it was timed; each point's inputs are "
           "rotated as at the reference shapes;\n  the copy floor only where the data exceeds the L2 (elsewhere "
           "the data stays L2-hot)\n";
    const auto us_text = [](const RowResult& row, const TimingMode mode) {
        char text[32];
        if (row.timing(mode)) {
            std::snprintf(text, sizeof(text), "%.2f", row.timing(mode)->median_us);
            return std::string(text);
        }
        return std::string(row.status == RowStatus::failed ? "FAILED" : "n/a");
    };
    for (const TimingMode mode : run.modes) {
        out << "\n  " << mode_name(mode) << ": median us/run; last / fastest = the last step's time over the fastest "
            << "step's\n";
        std::snprintf(line, sizeof(line), "  %9s  %-24s %9s %24s %14s %9s %13s %11s\n", "matrices", "fastest step",
                      "us", last_name.substr(0, 24).c_str(), "last / fastest", "cuBLAS", "empty kernel", "copy floor");
        out << line;
        for (const ShapeResult* const point : points) {
            const std::optional<size_t> fastest = fastest_step(*point, mode);
            const std::optional<size_t> mine    = last_step(*point);
            std::string                 cublas = "n/a", empty = "n/a", ratio = "-", copy_floor = "-";
            for (const RowResult& row : point->rows) {
                if (row.kind == RowKind::cublas) {
                    cublas = us_text(row, mode);
                } else if (row.kind == RowKind::empty_kernel) {
                    empty = us_text(row, mode);
                }
            }
            if (fastest && mine && point->rows[*mine].timing(mode)) {
                char text[32];
                std::snprintf(
                    text, sizeof(text), "%.3f",
                    point->rows[*mine].timing(mode)->median_us / point->rows[*fastest].timing(mode)->median_us);
                ratio = text;
            }
            if (point->memory_bound) {
                char text[32];
                std::snprintf(text, sizeof(text), "%.2f", copy_floor_us(point->problem, run.copy));
                copy_floor = text;
            }
            std::snprintf(line, sizeof(line), "  %9lld  %-24s %9s %24s %14s %9s %13s %11s\n",
                          static_cast<long long>(point->problem.batch()),
                          fastest ? point->rows[*fastest].name.c_str() : "none timed",
                          fastest ? us_text(point->rows[*fastest], mode).c_str() : "-",
                          mine ? us_text(point->rows[*mine], mode).c_str() : "-", ratio.c_str(), cublas.c_str(),
                          empty.c_str(), copy_floor.c_str());
            out << line;
        }
    }
}

void print_resources_table(std::ostream& out, const std::vector<ResourceRow>& rows) {
    size_t name_width = 24;
    for (const ResourceRow& row : rows) {
        name_width = std::max(name_width, row.name.size());
    }
    const int name_w = static_cast<int>(name_width);
    char      line[512];
    std::snprintf(line, sizeof(line), "  %-*s %9s %12s %12s %10s %8s %10s %10s %16s %7s\n", name_w, "step", "registers",
                  "static smem", "dynamic smem", "local/thr", "threads", "blocks/SM", "occupancy", "grid blocks",
                  "waves");
    out << line;
    for (const ResourceRow& row : rows) {
        if (!row.resources) {
            std::snprintf(line, sizeof(line), "  %-*s %s\n", name_w, row.name.c_str(), row.why_none.c_str());
            out << line;
            continue;
        }
        const KernelResources& r = *row.resources;
        char                   occupancy[32], grid[48];
        std::snprintf(occupancy, sizeof(occupancy), "%.1f %%", r.theoretical_occupancy_percent);
        std::snprintf(grid, sizeof(grid), "%lld / %d SMs", static_cast<long long>(r.grid_blocks), r.sm_count);
        std::snprintf(line, sizeof(line), "  %-*s %9d %10d B %10d B %8d B %8d %10d %10s %16s %7.2f\n", name_w,
                      row.name.c_str(), r.registers_per_thread, r.static_shared_bytes, r.dynamic_shared_bytes,
                      r.local_bytes, r.threads_per_block, r.blocks_per_sm, occupancy, grid, r.waves());
        out << line;
    }
}

}  // namespace harness
