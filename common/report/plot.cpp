#include "plot.hpp"

#include "reference_shapes.hpp"
#include "svg_chart.hpp"

#include <algorithm>
#include <cstdio>
#include <functional>
#include <string>

namespace harness {

namespace {

// Series and floor colours: one hue per timing mode, a lighter one for its floor.
struct ModeColors {
    const char* line;
    const char* floor;
};

ModeColors colors_of(const TimingMode mode) {
    return mode == TimingMode::back_to_back ? ModeColors{"#1f77b4", "#6baed6"} : ModeColors{"#e6550d", "#fdae6b"};
}

constexpr const char* copy_floor_color = "#2ca02c";

std::string short_label(const RowResult& row) {
    return row.kind == RowKind::step ? row.name.substr(0, 2) : std::string("cuBLAS");
}

std::string format_us(const double us) {
    char text[32];
    std::snprintf(text, sizeof(text), us < 10.0 ? "%.2f us" : (us < 100.0 ? "%.1f us" : "%.0f us"), us);
    return text;
}

}  // namespace

void write_plot(std::ostream& out, const ReportRun& run) {
    svg::Chart chart;
    chart.title   = "SOLVE_TRI, step by step: us per run (median, log scale)";
    chart.y_label = "us per run";
    chart.notes.push_back(run.gpu + "; build: " + run.build + "; " + run.date);
    char copy_line[256];
    std::snprintf(copy_line, sizeof(copy_line),
                  "copy bandwidth %.2f TB/s (bytes read + written); test-backend-ops' inputs, every configuration "
                  "checked before it was timed",
                  run.copy.bytes_per_second / 1e12);
    chart.notes.push_back(copy_line);
    chart.notes.push_back("inputs: " + run.rotation);
    // The step labels, a few per line.
    std::string steps_line = "steps:";
    if (!run.shapes.empty()) {
        int on_line = 0;
        for (const RowResult& row : run.shapes.front().rows) {
            if (row.kind != RowKind::step) {
                continue;
            }
            if (on_line == 6) {
                chart.notes.push_back(steps_line);
                steps_line = "      ";
                on_line    = 0;
            }
            steps_line += " " + row.name.substr(0, 2) + " = " + row.name + ";";
            ++on_line;
        }
    }
    chart.notes.push_back(steps_line + " cuBLAS = cublasStrsmBatched as ggml calls it");

    for (const ShapeResult& shape : run.shapes) {
        if (on_batch_curve(shape.id)) {
            continue;  // curve.svg draws those
        }
        svg::Panel panel;
        panel.title = shape.title;
        char subtitle[256];
        std::snprintf(subtitle, sizeof(subtitle), "%s: %lld matrices, %.3g MB/run, SM clock %d MHz",
                      shape.problem.describe().c_str(), static_cast<long long>(shape.problem.batch()),
                      shape.problem.bytes_moved() / 1e6, shape.sm_clock_mhz);
        panel.subtitle = subtitle;
        std::vector<size_t> plotted;  // rows that get a category: the steps and cuBLAS
        for (size_t r = 0; r < shape.rows.size(); ++r) {
            if (shape.rows[r].kind != RowKind::empty_kernel) {
                plotted.push_back(r);
                panel.categories.push_back(short_label(shape.rows[r]));
            }
        }
        for (const TimingMode mode : run.modes) {
            const ModeColors colors = colors_of(mode);
            svg::Series      steps{std::string("steps, ") + mode_name(mode),
                              colors.line,
                              mode == TimingMode::graph_replay,
                              true,
                              svg::Marker::circle,
                              {},
                              {}};
            svg::Series      cublas{
                std::string("cuBLAS, ") + mode_name(mode), colors.line, false, false, svg::Marker::diamond, {}, {}};
            for (const size_t r : plotted) {
                const RowResult&             row    = shape.rows[r];
                const std::optional<Timing>& timing = row.timing(mode);
                const std::optional<double>  us     = timing ? std::optional<double>(timing->median_us) : std::nullopt;
                const std::string            tooltip =
                    row.name + ", " + mode_name(mode) + ": " +
                    (timing ? format_us(timing->median_us) : std::string(status_key(row.status)));
                const bool is_step = row.kind == RowKind::step;
                steps.values.push_back(is_step ? us : std::nullopt);
                steps.tooltips.push_back(is_step ? tooltip : "");
                cublas.values.push_back(is_step ? std::nullopt : us);
                cublas.tooltips.push_back(is_step ? "" : tooltip);
            }
            panel.series.push_back(steps);
            panel.series.push_back(cublas);
            for (const RowResult& row : shape.rows) {
                if (row.kind == RowKind::empty_kernel && row.timing(mode)) {
                    panel.floors.push_back({std::string("empty kernel, ") +
                                                (mode == TimingMode::back_to_back ? "b2b " : "graph ") +
                                                format_us(row.timing(mode)->median_us),
                                            colors.floor, row.timing(mode)->median_us});
                }
            }
        }
        if (shape.memory_bound) {
            const double floor_us = copy_floor_us(shape.problem, run.copy);
            panel.floors.push_back({"copy floor " + format_us(floor_us), copy_floor_color, floor_us});
        }
        chart.panels.push_back(panel);
    }
    out << svg::render(chart);
}

namespace {

// One colour per run of an overlay, in order (then again from the first).
constexpr const char* run_colors[] = {"#1f77b4", "#e6550d", "#2ca02c", "#9467bd", "#8c564b", "#d62728", "#17becf"};

// How the plot names run r (its notes say which file that is).
std::string run_tag(const size_t r) {
    return "run " + std::to_string(r + 1);
}

std::string copy_note(const ReportRun& run) {
    char text[64];
    std::snprintf(text, sizeof(text), "copy %.2f TB/s", run.copy.bytes_per_second / 1e12);
    return text;
}

}  // namespace

void write_overlay_plot(std::ostream& out, const std::vector<LabelledRun>& runs) {
    svg::Chart chart;
    chart.title   = "SOLVE_TRI, step by step, " + std::to_string(runs.size()) + " runs: us per run (median, log scale)";
    chart.y_label = "us per run";
    for (size_t r = 0; r < runs.size(); ++r) {
        const ReportRun& run = runs[r].run;
        chart.notes.push_back(run_tag(r) + " = " + runs[r].label + ": " + run.gpu + "; " + run.build + "; " + run.date +
                              "; " + copy_note(run));
    }
    chart.notes.push_back(
        "solid: back-to-back; dashed: graph replay; diamonds: cuBLAS as ggml calls it; steps by "
        "their number; floors (empty kernel, copy) in each run's colour");

    // The shapes of all runs, in the order they first appear; a shape is its id and its problem.
    std::vector<const ShapeResult*> shapes;
    for (const LabelledRun& labelled : runs) {
        for (const ShapeResult& shape : labelled.run.shapes) {
            if (on_batch_curve(shape.id)) {
                continue;  // the overlay's curve.svg draws those
            }
            const bool known = std::any_of(shapes.begin(), shapes.end(), [&](const ShapeResult* s) {
                return s->id == shape.id && s->problem.describe() == shape.problem.describe();
            });
            if (!known) {
                shapes.push_back(&shape);
            }
        }
    }
    for (const ShapeResult* const first : shapes) {
        svg::Panel panel;
        panel.title = first->title;
        char subtitle[256];
        std::snprintf(subtitle, sizeof(subtitle), "%s: %lld matrices, %.3g MB/run", first->problem.describe().c_str(),
                      static_cast<long long>(first->problem.batch()), first->problem.bytes_moved() / 1e6);
        panel.subtitle = subtitle;
        // The rows of every run at this shape, steps and cuBLAS, in the order they first appear.
        std::vector<std::string>        names;
        std::vector<const ShapeResult*> of_run(runs.size(), nullptr);
        for (size_t r = 0; r < runs.size(); ++r) {
            for (const ShapeResult& shape : runs[r].run.shapes) {
                if (shape.id == first->id && shape.problem.describe() == first->problem.describe()) {
                    of_run[r] = &shape;
                }
            }
            if (of_run[r] == nullptr) {
                continue;
            }
            for (const RowResult& row : of_run[r]->rows) {
                if (row.kind != RowKind::empty_kernel &&
                    std::find(names.begin(), names.end(), row.name) == names.end()) {
                    names.push_back(row.name);
                    panel.categories.push_back(short_label(row));
                }
            }
        }
        for (size_t r = 0; r < runs.size(); ++r) {
            const ShapeResult* const shape = of_run[r];
            const char* const        color = run_colors[r % std::size(run_colors)];
            if (shape == nullptr) {
                continue;
            }
            for (const TimingMode mode : runs[r].run.modes) {
                const std::string of = run_tag(r) + ", " + mode_name(mode);
                svg::Series       steps{of, color, mode == TimingMode::graph_replay, true, svg::Marker::circle, {}, {}};
                svg::Series       cublas{of + ", cuBLAS", color, false, false, svg::Marker::diamond, {}, {}};
                for (const std::string& name : names) {
                    const auto                  row     = std::find_if(shape->rows.begin(), shape->rows.end(),
                                                                       [&](const RowResult& candidate) { return candidate.name == name; });
                    const bool                  found   = row != shape->rows.end();
                    const bool                  is_step = found && row->kind == RowKind::step;
                    const std::optional<Timing> timing  = found ? row->timing(mode) : std::nullopt;
                    const std::optional<double> us = timing ? std::optional<double>(timing->median_us) : std::nullopt;
                    const std::string           tooltip =
                        found ? of + ": " + name + ", " +
                                    (timing ? format_us(timing->median_us) : std::string(status_key(row->status)))
                                        : std::string();
                    steps.values.push_back(is_step ? us : std::nullopt);
                    steps.tooltips.push_back(is_step ? tooltip : "");
                    cublas.values.push_back(found && !is_step ? us : std::nullopt);
                    cublas.tooltips.push_back(found && !is_step ? tooltip : "");
                }
                panel.series.push_back(steps);
                panel.series.push_back(cublas);
                for (const RowResult& row : shape->rows) {
                    if (row.kind == RowKind::empty_kernel && row.timing(mode)) {
                        panel.floors.push_back({run_tag(r) + ": empty " +
                                                    (mode == TimingMode::back_to_back ? "b2b " : "graph ") +
                                                    format_us(row.timing(mode)->median_us),
                                                color, row.timing(mode)->median_us});
                    }
                }
            }
            if (shape->memory_bound) {
                const double floor_us = copy_floor_us(shape->problem, runs[r].run.copy);
                panel.floors.push_back({run_tag(r) + ": copy " + format_us(floor_us), color, floor_us});
            }
        }
        chart.panels.push_back(panel);
    }
    out << svg::render(chart);
}

namespace {

// The steps' colours on the curve, from the first (light) to the one before
// the last (dark); the last step is drawn in red over them.
std::string ramp_color(const size_t index, const size_t count) {
    const double anchors[][3] = {{158, 202, 225}, {66, 146, 198}, {8, 69, 148}, {63, 0, 125}};
    const double position     = count > 1 ? static_cast<double>(index) / static_cast<double>(count - 1) : 0.0;
    const double scaled       = position * (std::size(anchors) - 1);
    const size_t low          = std::min(static_cast<size_t>(scaled), std::size(anchors) - 2);
    const double t            = scaled - static_cast<double>(low);
    char         color[8];
    std::snprintf(color, sizeof(color), "#%02x%02x%02x",
                  static_cast<int>(anchors[low][0] + t * (anchors[low + 1][0] - anchors[low][0]) + 0.5),
                  static_cast<int>(anchors[low][1] + t * (anchors[low + 1][1] - anchors[low][1]) + 0.5),
                  static_cast<int>(anchors[low][2] + t * (anchors[low + 1][2] - anchors[low][2]) + 0.5));
    return color;
}

constexpr const char* last_step_color = "#d62728";
constexpr const char* cublas_color    = "#222222";
constexpr const char* empty_color     = "#999999";

// A curve panel for one mode: the batches as x values, powers of two as ticks.
svg::Panel curve_panel(const std::vector<const ShapeResult*>& points, const std::string& title) {
    svg::Panel panel;
    panel.title   = title;
    panel.x_label = "matrices per launch (n = k = 64; Qwen3-Next: 32 per 64 tokens of a ubatch)";
    for (const ShapeResult* const point : points) {
        const double batch = static_cast<double>(point->problem.batch());
        panel.categories.push_back(std::to_string(point->problem.batch()));
        panel.x_values.push_back(batch);
    }
    for (double tick = 1.0; tick <= panel.x_values.back(); tick *= 4.0) {
        panel.x_ticks.push_back(tick);
    }
    return panel;
}

// What a curve's series shows at one point, in us; nothing where it has no value.
using PointValue = std::function<std::optional<double>(const ShapeResult&)>;

// A line through the values `value` gives at `points` (null where a run has
// no such point), each with a tooltip naming `what`, the batch and the time.
svg::Series curve_series(const std::vector<const ShapeResult*>& points, const PointValue& value,
                         const std::string& what, svg::Series series) {
    for (const ShapeResult* const point : points) {
        const std::optional<double> us = point != nullptr ? value(*point) : std::nullopt;
        series.values.push_back(us);
        series.tooltips.push_back(us ? what + " at " + std::to_string(point->problem.batch()) +
                                           " matrices: " + format_us(*us)
                                     : std::string());
    }
    return series;
}

// The median in `mode` of the row named `name`, where it was checked and timed.
PointValue row_us(const std::string& name, const TimingMode mode) {
    return [name, mode](const ShapeResult& point) -> std::optional<double> {
        for (const RowResult& row : point.rows) {
            if (row.name == name && row.status == RowStatus::measured && row.timing(mode)) {
                return row.timing(mode)->median_us;
            }
        }
        return std::nullopt;
    };
}

// The copy floor, where the point's data exceeds the L2.
PointValue copy_floor_at(const CopyBandwidth& copy) {
    return [copy](const ShapeResult& point) -> std::optional<double> {
        const double floor_us = copy_floor_us(point.problem, copy);
        return point.memory_bound && floor_us > 0.0 ? std::optional<double>(floor_us) : std::nullopt;
    };
}

}  // namespace

bool write_curve_plot(std::ostream& out, const ReportRun& run) {
    const std::vector<const ShapeResult*> points = curve_points(run);
    if (points.empty()) {
        return false;
    }
    svg::Chart chart;
    chart.title       = "SOLVE_TRI's batch curve at n = k = 64: us per run (median), every step, log scales";
    chart.y_label     = "us per run";
    chart.columns     = 1;
    chart.panel_width = 1100.0;
    chart.notes.push_back(run.gpu + "; build: " + run.build + "; " + run.date);
    chart.notes.push_back("test-backend-ops' inputs, every configuration checked before it was timed; inputs: " +
                          run.rotation);
    chart.notes.push_back(
        "steps light to dark in order, the last in red; the number along the top of a panel is the "
        "fastest step at that batch; copy floor where the data exceeds the L2");
    const ShapeResult&          first      = *points.front();
    const std::optional<size_t> last       = last_step(first);
    const size_t                step_count = std::count_if(first.rows.begin(), first.rows.end(),
                                                           [](const RowResult& row) { return row.kind == RowKind::step; });
    for (const TimingMode mode : run.modes) {
        svg::Panel panel = curve_panel(
            points, std::string(mode_name(mode)) + (mode == TimingMode::back_to_back ? ": launch overhead included"
                                                                                     : ": launch overhead removed"));
        panel.annotation_label = "fastest:";
        for (const ShapeResult* const point : points) {
            const std::optional<size_t> fastest = fastest_step(*point, mode);
            panel.annotations.push_back(fastest ? short_label(point->rows[*fastest]) : std::string());
        }
        for (size_t r = 0; r < first.rows.size(); ++r) {
            const RowResult& row = first.rows[r];
            if (row.kind != RowKind::step) {
                continue;
            }
            const bool  is_last = last && r == *last;
            svg::Series series{short_label(row),
                               is_last ? last_step_color : ramp_color(r, step_count > 1 ? step_count - 1 : 1),
                               false,
                               true,
                               is_last ? svg::Marker::circle : svg::Marker::none,
                               {},
                               {},
                               is_last ? 2.5 : 1.2};
            panel.series.push_back(curve_series(points, row_us(row.name, mode), row.name, series));
        }
        for (const RowResult& row : first.rows) {
            if (row.kind == RowKind::cublas) {
                panel.series.push_back(
                    curve_series(points, row_us(row.name, mode), row.name,
                                 {"cuBLAS", cublas_color, true, true, svg::Marker::diamond, {}, {}, 1.5}));
            } else if (row.kind == RowKind::empty_kernel) {
                panel.series.push_back(
                    curve_series(points, row_us(row.name, mode), row.name,
                                 {"empty kernel", empty_color, true, true, svg::Marker::none, {}, {}, 1.5}));
            }
        }
        panel.series.push_back(
            curve_series(points, copy_floor_at(run.copy), "copy floor",
                         {"copy floor", copy_floor_color, true, true, svg::Marker::none, {}, {}, 1.5}));
        chart.panels.push_back(panel);
    }
    out << svg::render(chart);
    return true;
}

bool write_overlay_curve_plot(std::ostream& out, const std::vector<LabelledRun>& runs) {
    // The points of the run with the most of them set the x axis; each run is drawn at its own.
    std::vector<const ShapeResult*> axis_points;
    for (const LabelledRun& labelled : runs) {
        const std::vector<const ShapeResult*> points = curve_points(labelled.run);
        if (points.size() > axis_points.size()) {
            axis_points = points;
        }
    }
    if (axis_points.empty()) {
        return false;
    }
    svg::Chart chart;
    chart.title = "SOLVE_TRI's batch curve at n = k = 64, " + std::to_string(runs.size()) +
                  " runs: us per run (median), log scales";
    chart.y_label     = "us per run";
    chart.columns     = 1;
    chart.panel_width = 1100.0;
    for (size_t r = 0; r < runs.size(); ++r) {
        const ReportRun& run = runs[r].run;
        chart.notes.push_back(run_tag(r) + " = " + runs[r].label + ": " + run.gpu + "; " + run.build + "; " + run.date +
                              "; " + copy_note(run));
    }
    chart.notes.push_back(
        "solid: each run's last step; dashed with diamonds: cuBLAS as ggml calls it; thin dashed: "
        "the copy floor where the data exceeds the L2; in each run's colour");
    std::vector<TimingMode> modes;
    for (const LabelledRun& labelled : runs) {
        for (const TimingMode mode : labelled.run.modes) {
            if (std::find(modes.begin(), modes.end(), mode) == modes.end()) {
                modes.push_back(mode);
            }
        }
    }
    const std::vector<RowResult> no_rows;
    for (const TimingMode mode : modes) {
        svg::Panel panel = curve_panel(axis_points, mode_name(mode));
        for (size_t r = 0; r < runs.size(); ++r) {
            const std::vector<const ShapeResult*> points = curve_points(runs[r].run);
            const char* const                     color  = run_colors[r % std::size(run_colors)];
            const std::string                     of     = run_tag(r);
            // This run's values at the axis's points, where it has them.
            std::vector<const ShapeResult*> aligned;
            for (const ShapeResult* const point : axis_points) {
                const auto match = std::find_if(points.begin(), points.end(), [&](const ShapeResult* candidate) {
                    return candidate->problem.describe() == point->problem.describe();
                });
                aligned.push_back(match != points.end() ? *match : nullptr);
            }
            const std::string last_name  = !points.empty() && last_step(*points.front())
                                               ? points.front()->rows[*last_step(*points.front())].name
                                               : std::string("last step");
            const std::string step_label = of + ": " + last_name.substr(0, 2);
            panel.series.push_back(curve_series(aligned, row_us(last_name, mode), step_label,
                                                {step_label, color, false, true, svg::Marker::circle, {}, {}, 2.0}));
            std::string cublas_name;  // no row has an empty name
            for (const RowResult& row : points.empty() ? no_rows : points.front()->rows) {
                if (row.kind == RowKind::cublas) {
                    cublas_name = row.name;
                }
            }
            panel.series.push_back(
                curve_series(aligned, row_us(cublas_name, mode), of + ": cuBLAS",
                             {of + ": cuBLAS", color, true, true, svg::Marker::diamond, {}, {}, 1.5}));
            panel.series.push_back(
                curve_series(aligned, copy_floor_at(runs[r].run.copy), of + ": copy floor",
                             {of + ": copy floor", color, true, true, svg::Marker::none, {}, {}, 1.0}));
        }
        chart.panels.push_back(panel);
    }
    out << svg::render(chart);
    return true;
}

}  // namespace harness
