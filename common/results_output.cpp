#include "results_output.hpp"

#include "svg_plot.hpp"

#include <cmath>
#include <cstdio>
#include <vector>

namespace harness {

std::string csv_field(const std::string& text) {
    if (text.find_first_of(",\"\r\n") == std::string::npos) {
        return text;
    }
    std::string quoted = "\"";
    for (const char c : text) {
        quoted += c;
        if (c == '"') {
            quoted += '"';
        }
    }
    return quoted + "\"";
}

std::string json_string(const std::string& text) {
    std::string quoted = "\"";
    for (const char c : text) {
        switch (c) {
            case '"': quoted += "\\\""; break;
            case '\\': quoted += "\\\\"; break;
            case '\n': quoted += "\\n"; break;
            case '\r': quoted += "\\r"; break;
            case '\t': quoted += "\\t"; break;
            default:
                if (static_cast<unsigned char>(c) < 0x20) {
                    char escaped[8];
                    std::snprintf(escaped, sizeof(escaped), "\\u%04x", static_cast<unsigned>(c));
                    quoted += escaped;
                } else {
                    quoted += c;
                }
        }
    }
    return quoted + "\"";
}

std::string json_number(const double value) {
    if (!std::isfinite(value)) {
        return "null";
    }
    char text[32];
    std::snprintf(text, sizeof(text), "%.6g", value);
    return text;
}

namespace {

std::string number_or_empty(const std::optional<double>& value) {
    return value && std::isfinite(*value) ? json_number(*value) : std::string();
}

// Writes JSON with commas and indentation managed: each value is separated
// from the one before it at its level.
class JsonWriter {
public:
    explicit JsonWriter(std::ostream& out) : out_(out) {}

    void begin_object() { open('{'); }
    void end_object() { close('}'); }
    void begin_array() { open('['); }
    void end_array() { close(']'); }
    void key(const std::string& name) {
        separate();
        out_ << json_string(name) << ": ";
        after_key_ = true;
    }
    void string(const std::string& text) { raw(json_string(text)); }
    void number(const double value) { raw(json_number(value)); }
    void integer(const int64_t value) { raw(std::to_string(value)); }
    void boolean(const bool value) { raw(value ? "true" : "false"); }
    void null() { raw("null"); }
    void optional_number(const std::optional<double>& value) { value ? number(*value) : null(); }

    void string_field(const std::string& name, const std::string& text) {
        key(name);
        string(text);
    }
    void number_field(const std::string& name, const double value) {
        key(name);
        number(value);
    }
    void integer_field(const std::string& name, const int64_t value) {
        key(name);
        integer(value);
    }
    void boolean_field(const std::string& name, const bool value) {
        key(name);
        boolean(value);
    }
    void optional_number_field(const std::string& name, const std::optional<double>& value) {
        key(name);
        optional_number(value);
    }

private:
    void raw(const std::string& text) {
        separate();
        out_ << text;
    }
    void open(const char bracket) {
        separate();
        out_ << bracket;
        first_.push_back(true);
    }
    void close(const char bracket) {
        const bool empty = first_.back();
        first_.pop_back();
        if (!empty) {
            newline();
        }
        out_ << bracket;
        if (first_.empty()) {
            out_ << '\n';
        }
    }
    void separate() {
        if (after_key_) {
            after_key_ = false;
            return;
        }
        if (first_.empty()) {
            return;
        }
        if (!first_.back()) {
            out_ << ',';
        }
        first_.back() = false;
        newline();
    }
    void newline() { out_ << '\n' << std::string(2 * first_.size(), ' '); }

    std::ostream&     out_;
    std::vector<bool> first_;  // per open level: no element written yet
    bool              after_key_ = false;
};

void write_timing_json(JsonWriter& json, const Timing& t) {
    json.number_field("us_median", t.median_us);
    json.number_field("us_min", t.min_us);
    json.number_field("us_max", t.max_us);
    json.integer_field("samples", t.samples);
    json.integer_field("launches_per_sample", t.launches_per_sample);
}

void write_resources_json(JsonWriter& json, const std::optional<KernelResources>& resources) {
    if (!resources) {
        json.null();
        return;
    }
    const KernelResources& r = *resources;
    json.begin_object();
    json.integer_field("registers_per_thread", r.registers_per_thread);
    json.integer_field("static_shared_bytes", r.static_shared_bytes);
    json.integer_field("dynamic_shared_bytes", r.dynamic_shared_bytes);
    json.integer_field("local_bytes_per_thread", r.local_bytes);
    json.integer_field("threads_per_block", r.threads_per_block);
    json.integer_field("blocks_per_sm", r.blocks_per_sm);
    json.number_field("theoretical_occupancy_percent", r.theoretical_occupancy_percent);
    json.integer_field("grid_blocks", r.grid_blocks);
    json.integer_field("sm_count", r.sm_count);
    json.number_field("waves", r.waves());
    json.end_object();
}

const char* const csv_columns[] = {
    "gpu", "date", "sm_clock_mhz", "shape_id", "shape", "n", "k", "ne02", "ne03", "batch", "bytes_per_run", "rotation_sets",
    "mode", "kind", "name", "status", "note", "us_median", "us_min", "us_max", "samples", "launches_per_sample",
    "gib_per_s", "change_percent", "speedup_vs_first_step", "percent_of_copy_bandwidth", "nmse",
    "registers_per_thread", "static_shared_bytes", "dynamic_shared_bytes", "local_bytes_per_thread", "threads_per_block", "blocks_per_sm",
    "theoretical_occupancy_percent", "grid_blocks", "sm_count"};

void write_csv_line(std::ostream& out, const std::vector<std::string>& fields) {
    for (size_t i = 0; i < fields.size(); ++i) {
        out << (i > 0 ? "," : "") << csv_field(fields[i]);
    }
    out << '\n';
}

}  // namespace

void write_csv(std::ostream& out, const ReportRun& run) {
    write_csv_line(out, std::vector<std::string>(std::begin(csv_columns), std::end(csv_columns)));
    for (const ShapeResult& shape : run.shapes) {
        const Problem& p = shape.problem;
        for (size_t r = 0; r < shape.rows.size(); ++r) {
            const RowResult& row = shape.rows[r];
            std::vector<TimingMode> modes;
            for (const TimingMode mode : run.modes) {
                if (row.timing(mode)) {
                    modes.push_back(mode);
                }
            }
            // A row without any timing still gets a line: its status says why.
            const bool untimed = modes.empty();
            if (untimed) {
                modes.push_back(run.modes.empty() ? TimingMode::back_to_back : run.modes.front());
            }
            for (const TimingMode mode : modes) {
                const RowFigures             f = row_figures(shape, r, mode, run.copy);
                const std::optional<Timing>& t = row.timing(mode);
                std::vector<std::string>     fields = {
                    run.gpu_name, run.date, std::to_string(shape.sm_clock_mhz), shape.id, p.describe(), std::to_string(p.n), std::to_string(p.k),
                    std::to_string(p.ne02), std::to_string(p.ne03), std::to_string(p.batch()),
                    json_number(p.bytes_moved()), std::to_string(shape.rotation_sets), mode_key(mode),
                    kind_key(row.kind), row.name, status_key(row.status), row.note,
                    number_or_empty(f.us), t ? json_number(t->min_us) : "", t ? json_number(t->max_us) : "",
                    t ? std::to_string(t->samples) : "", t ? std::to_string(t->launches_per_sample) : "",
                    number_or_empty(f.gib_per_s), number_or_empty(f.change_percent), number_or_empty(f.speedup),
                    number_or_empty(f.percent_of_copy), number_or_empty(row.nmse)};
                if (row.resources) {
                    const KernelResources& k = *row.resources;
                    for (const int64_t v : {int64_t{k.registers_per_thread}, int64_t{k.static_shared_bytes},
                                            int64_t{k.dynamic_shared_bytes}, int64_t{k.local_bytes},
                                            int64_t{k.threads_per_block}, int64_t{k.blocks_per_sm}}) {
                        fields.push_back(std::to_string(v));
                    }
                    fields.push_back(json_number(k.theoretical_occupancy_percent));
                    fields.push_back(std::to_string(k.grid_blocks));
                    fields.push_back(std::to_string(k.sm_count));
                } else {
                    fields.resize(std::size(csv_columns));
                }
                write_csv_line(out, fields);
            }
        }
    }
    // The copy bandwidth, as a row of its own: us per copy, GiB/s of bytes read + written.
    const Timing& c = run.copy.timing;
    std::vector<std::string> copy_fields = {
        run.gpu_name, run.date, std::to_string(run.sm_clock_mhz_after_copy), "copy_bandwidth",
        "device-to-device copy of " + std::to_string(run.copy.bytes_per_copy) + " bytes", "", "", "", "", "",
        json_number(2.0 * static_cast<double>(run.copy.bytes_per_copy)), "1", mode_key(TimingMode::back_to_back),
        "copy", "cudaMemcpyAsync", "ok", "bytes read + written per copy over its time", json_number(c.median_us),
        json_number(c.min_us), json_number(c.max_us), std::to_string(c.samples),
        std::to_string(c.launches_per_sample), json_number(run.copy.bytes_per_second / (1024.0 * 1024.0 * 1024.0))};
    copy_fields.resize(std::size(csv_columns));
    write_csv_line(out, copy_fields);
}

void write_json(std::ostream& out, const ReportRun& run) {
    JsonWriter json(out);
    json.begin_object();
    json.string_field("tool", "solve_tri_report");
    json.string_field("date", run.date);
    json.key("environment");
    json.begin_object();
    json.string_field("gpu", run.gpu);
    json.string_field("gpu_name", run.gpu_name);
    json.integer_field("sm_count", run.sm_count);
    json.integer_field("l2_bytes", run.l2_bytes);
    json.integer_field("sm_clock_mhz_after_copy", run.sm_clock_mhz_after_copy);
    json.integer_field("sm_clock_mhz_at_end", run.sm_clock_mhz_at_end);
    json.string_field("build", run.build);
    json.string_field("seed", std::to_string(run.seed));  // a uint64 does not fit a JSON number exactly
    json.boolean_field("quick", run.quick);
    json.string_field("rotation", run.rotation);
    json.integer_field("samples", run.timing_config.samples);
    json.number_field("sample_target_ms", run.timing_config.sample_target_ms);
    json.integer_field("warmup_launches", run.timing_config.warmup_launches);
    json.key("modes");
    json.begin_array();
    for (const TimingMode mode : run.modes) {
        json.string(mode_key(mode));
    }
    json.end_array();
    json.end_object();

    json.key("copy_bandwidth");
    json.begin_object();
    json.integer_field("bytes_per_copy", static_cast<int64_t>(run.copy.bytes_per_copy));
    write_timing_json(json, run.copy.timing);
    json.number_field("bytes_per_second", run.copy.bytes_per_second);
    json.number_field("gib_per_second", run.copy.bytes_per_second / (1024.0 * 1024.0 * 1024.0));
    json.end_object();

    json.key("shapes");
    json.begin_array();
    for (const ShapeResult& shape : run.shapes) {
        const Problem& p = shape.problem;
        json.begin_object();
        json.string_field("id", shape.id);
        json.string_field("title", shape.title);
        json.string_field("shape", p.describe());
        json.integer_field("n", p.n);
        json.integer_field("k", p.k);
        json.integer_field("ne02", p.ne02);
        json.integer_field("ne03", p.ne03);
        json.integer_field("batch", p.batch());
        json.number_field("bytes_per_run", p.bytes_moved());
        json.integer_field("rotation_sets", shape.rotation_sets);
        json.number_field("rotation_bytes", shape.rotation_bytes);
        json.integer_field("sm_clock_mhz", shape.sm_clock_mhz);
        json.number_field("copy_floor_us", copy_floor_us(p, run.copy));
        json.boolean_field("memory_bound", shape.memory_bound);
        json.key("rows");
        json.begin_array();
        for (size_t r = 0; r < shape.rows.size(); ++r) {
            const RowResult& row = shape.rows[r];
            json.begin_object();
            json.string_field("name", row.name);
            json.string_field("kind", kind_key(row.kind));
            json.string_field("status", status_key(row.status));
            json.string_field("note", row.note);
            json.optional_number_field("nmse", row.nmse);
            json.key("resources");
            write_resources_json(json, row.resources);
            for (const TimingMode mode : run.modes) {
                json.key(mode_key(mode));
                const std::optional<Timing>& t = row.timing(mode);
                if (!t) {
                    json.null();
                    continue;
                }
                const RowFigures f = row_figures(shape, r, mode, run.copy);
                json.begin_object();
                write_timing_json(json, *t);
                json.optional_number_field("gib_per_s", f.gib_per_s);
                json.optional_number_field("change_percent", f.change_percent);
                json.optional_number_field("speedup_vs_first_step", f.speedup);
                json.optional_number_field("percent_of_copy_bandwidth", f.percent_of_copy);
                json.end_object();
            }
            json.end_object();
        }
        json.end_array();
        json.end_object();
    }
    json.end_array();

    json.key("pr_comparison");
    json.begin_object();
    json.key("published");
    json.begin_array();
    for (const PublishedChange& published : published_pr_changes) {
        json.begin_object();
        json.string_field("gpu", published.gpu);
        json.number_field("baseline_us", published.baseline_us);
        json.number_field("pr_us", published.pr_us);
        json.number_field("change_percent",
                          100.0 * (published.pr_us - published.baseline_us) / published.baseline_us);
        json.end_object();
    }
    json.end_array();
    json.key("measured");
    json.begin_array();
    for (const ShapeResult& shape : run.shapes) {
        if (shape.id != "pr") {
            continue;
        }
        for (const MeasuredChange& change : measured_pr_changes(shape, run.modes)) {
            json.begin_object();
            json.string_field("mode", mode_key(change.mode));
            json.string_field("from", change.from);
            json.string_field("to", change.to);
            json.number_field("from_us", change.from_us);
            json.number_field("to_us", change.to_us);
            json.number_field("change_percent", change.change_percent());
            json.end_object();
        }
    }
    json.end_array();
    json.end_object();

    json.integer_field("failures", run.failures());
    json.end_object();
}

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
            svg::Series      steps{std::string("steps, ") + mode_name(mode), colors.line, mode == TimingMode::graph_replay,
                                   true, svg::Marker::circle, {}, {}};
            svg::Series      cublas{std::string("cuBLAS, ") + mode_name(mode), colors.line, false, false,
                                    svg::Marker::diamond, {}, {}};
            for (const size_t r : plotted) {
                const RowResult&             row    = shape.rows[r];
                const std::optional<Timing>& timing = row.timing(mode);
                const std::optional<double>  us     = timing ? std::optional<double>(timing->median_us) : std::nullopt;
                const std::string tooltip = row.name + ", " + mode_name(mode) + ": " +
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

}  // namespace harness
