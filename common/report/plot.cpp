#include "plot.hpp"

#include "svg_chart.hpp"

#include <algorithm>
#include <cstdio>
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

}  // namespace harness
