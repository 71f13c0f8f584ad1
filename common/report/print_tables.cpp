#include "print_tables.hpp"

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
           "(NMSE <= 1e-7, all finite) before it is timed;\n";
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
            << ";\n  median of " << run.timing_config.samples
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
