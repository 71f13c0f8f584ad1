#include "results.hpp"

#include "reference_shapes.hpp"
#include "timing_table.hpp"

#include <algorithm>

namespace harness {

const char* kind_key(const RowKind kind) {
    switch (kind) {
        case RowKind::step: return "step";
        case RowKind::cublas: return "cublas";
        case RowKind::empty_kernel: return "empty_kernel";
    }
    return "?";
}

const char* status_key(const RowStatus status) {
    switch (status) {
        case RowStatus::measured: return "ok";
        case RowStatus::not_applicable: return "n/a";
        case RowStatus::failed: return "FAILED";
    }
    return "?";
}

const std::optional<Timing>& RowResult::timing(const TimingMode mode) const {
    return mode == TimingMode::back_to_back ? back_to_back : graph_replay;
}

std::optional<Timing>& RowResult::timing(const TimingMode mode) {
    return mode == TimingMode::back_to_back ? back_to_back : graph_replay;
}

int ReportRun::failures() const {
    int count = 0;
    for (const ShapeResult& shape : shapes) {
        count += static_cast<int>(std::count_if(shape.rows.begin(), shape.rows.end(),
                                                [](const RowResult& row) { return row.status == RowStatus::failed; }));
    }
    return count;
}

std::optional<size_t> fastest_step(const ShapeResult& shape, const TimingMode mode) {
    std::optional<size_t> fastest;
    for (size_t r = 0; r < shape.rows.size(); ++r) {
        const RowResult& row = shape.rows[r];
        if (row.kind == RowKind::step && row.status == RowStatus::measured && row.timing(mode) &&
            (!fastest || row.timing(mode)->median_us < shape.rows[*fastest].timing(mode)->median_us)) {
            fastest = r;
        }
    }
    return fastest;
}

std::optional<size_t> last_step(const ShapeResult& shape) {
    std::optional<size_t> last;
    for (size_t r = 0; r < shape.rows.size(); ++r) {
        if (shape.rows[r].kind == RowKind::step) {
            last = r;
        }
    }
    return last;
}

std::vector<const ShapeResult*> curve_points(const ReportRun& run) {
    std::vector<const ShapeResult*> points;
    for (const ShapeResult& shape : run.shapes) {
        if (on_batch_curve(shape.id)) {
            points.push_back(&shape);
        }
    }
    return points;
}

double copy_floor_us(const Problem& problem, const CopyBandwidth& copy) {
    return copy.bytes_per_second > 0.0 ? 1e6 * problem.bytes_moved() / copy.bytes_per_second : 0.0;
}

RowFigures row_figures(const ShapeResult& shape, const size_t row_index, const TimingMode mode,
                       const CopyBandwidth& copy) {
    const RowResult&             row    = shape.rows.at(row_index);
    const std::optional<Timing>& timing = row.timing(mode);
    RowFigures                   figures;
    if (!timing) {
        return figures;
    }
    const double us = timing->median_us;
    figures.us      = us;
    if (row.kind == RowKind::empty_kernel) {
        return figures;  // it moves no bytes: only its time means anything
    }
    figures.gib_per_s = gib_per_second(shape.problem, us);
    if (copy.bytes_per_second > 0.0) {
        figures.percent_of_copy = 100.0 * shape.problem.bytes_moved() / (us * 1e-6) / copy.bytes_per_second;
    }
    const RowResult& first = shape.rows.front();
    if (first.kind == RowKind::step && first.timing(mode)) {
        figures.speedup = first.timing(mode)->median_us / us;
    }
    if (row.kind == RowKind::step && row_index > 0) {
        const RowResult& previous = shape.rows[row_index - 1];
        if (previous.kind == RowKind::step && previous.timing(mode)) {
            figures.change_percent = change_percent(previous.timing(mode)->median_us, us);
        }
    }
    return figures;
}

double MeasuredChange::change_percent() const {
    return harness::change_percent(from_us, to_us);
}

std::vector<MeasuredChange> measured_pr_changes(const ShapeResult& pr_shape, const std::vector<TimingMode>& modes,
                                                const std::vector<std::string>& targets) {
    std::vector<MeasuredChange> changes;
    if (pr_shape.rows.empty() || pr_shape.rows.front().kind != RowKind::step) {
        return changes;
    }
    const RowResult& first = pr_shape.rows.front();
    for (const TimingMode mode : modes) {
        if (!first.timing(mode)) {
            continue;
        }
        for (const std::string& target : targets) {
            for (const RowResult& row : pr_shape.rows) {
                if (row.kind == RowKind::step && row.name.rfind(target, 0) == 0 && row.timing(mode)) {
                    changes.push_back(
                        {mode, first.name, row.name, first.timing(mode)->median_us, row.timing(mode)->median_us});
                }
            }
        }
    }
    return changes;
}

}  // namespace harness
