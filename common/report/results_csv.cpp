#include "results_csv.hpp"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <iterator>
#include <map>
#include <optional>
#include <vector>

namespace harness {

namespace {

const char* const csv_columns[] = {"gpu",
                                   "gpu_description",
                                   "build",
                                   "date",
                                   "rotation",
                                   "sm_clock_mhz",
                                   "shape_id",
                                   "shape_title",
                                   "shape",
                                   "n",
                                   "k",
                                   "ne02",
                                   "ne03",
                                   "batch",
                                   "bytes_per_run",
                                   "memory_bound",
                                   "rotation_sets",
                                   "mode",
                                   "kind",
                                   "name",
                                   "status",
                                   "note",
                                   "us_median",
                                   "us_min",
                                   "us_max",
                                   "samples",
                                   "launches_per_sample",
                                   "gib_per_s",
                                   "change_percent",
                                   "speedup_vs_first_step",
                                   "percent_of_copy_bandwidth",
                                   "nmse",
                                   "registers_per_thread",
                                   "static_shared_bytes",
                                   "dynamic_shared_bytes",
                                   "local_bytes_per_thread",
                                   "threads_per_block",
                                   "blocks_per_sm",
                                   "theoretical_occupancy_percent",
                                   "grid_blocks",
                                   "sm_count"};

std::string number(const double value) {
    if (!std::isfinite(value)) {
        return "";
    }
    char text[32];
    std::snprintf(text, sizeof(text), "%.6g", value);
    return text;
}

std::string number_or_empty(const std::optional<double>& value) {
    return value ? number(*value) : std::string();
}

void write_line(std::ostream& out, const std::vector<std::string>& fields) {
    for (size_t i = 0; i < fields.size(); ++i) {
        out << (i > 0 ? "," : "") << csv_field(fields[i]);
    }
    out << '\n';
}

// One line of RFC 4180 CSV: fields split at commas outside quotes, quotes
// doubled inside them. False at the end of the input.
bool read_line(std::istream& in, std::vector<std::string>& fields) {
    fields.clear();
    std::string field;
    bool        quoted = false, any = false;
    char        c;
    while (in.get(c)) {
        any = true;
        if (quoted) {
            if (c == '"') {
                if (in.peek() == '"') {
                    field += '"';
                    in.get();
                } else {
                    quoted = false;
                }
            } else {
                field += c;
            }
        } else if (c == '"') {
            quoted = true;
        } else if (c == ',') {
            fields.push_back(field);
            field.clear();
        } else if (c == '\n') {
            break;
        } else if (c != '\r') {
            field += c;
        }
    }
    if (!any) {
        return false;
    }
    fields.push_back(field);
    return true;
}

double to_double(const std::string& text, const char* column) {
    try {
        size_t       used  = 0;
        const double value = std::stod(text, &used);
        if (used == text.size()) {
            return value;
        }
    } catch (const std::exception&) {
    }
    throw ResultsFormatError(std::string("column ") + column + " holds '" + text + "', not a number");
}

}  // namespace

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

void write_csv(std::ostream& out, const ReportRun& run) {
    write_line(out, std::vector<std::string>(std::begin(csv_columns), std::end(csv_columns)));
    const std::vector<std::string> run_fields = {run.gpu_name, run.gpu, run.build, run.date, run.rotation};
    for (const ShapeResult& shape : run.shapes) {
        const Problem& p = shape.problem;
        for (size_t r = 0; r < shape.rows.size(); ++r) {
            const RowResult&        row = shape.rows[r];
            std::vector<TimingMode> modes;
            for (const TimingMode mode : run.modes) {
                if (row.timing(mode)) {
                    modes.push_back(mode);
                }
            }
            // A row without any timing still gets a line: its status says why.
            if (modes.empty()) {
                modes.push_back(run.modes.empty() ? TimingMode::back_to_back : run.modes.front());
            }
            for (const TimingMode mode : modes) {
                const RowFigures             f      = row_figures(shape, r, mode, run.copy);
                const std::optional<Timing>& t      = row.timing(mode);
                std::vector<std::string>     fields = run_fields;
                for (const std::string& field : {std::to_string(shape.sm_clock_mhz),
                                                 shape.id,
                                                 shape.title,
                                                 p.describe(),
                                                 std::to_string(p.n),
                                                 std::to_string(p.k),
                                                 std::to_string(p.ne02),
                                                 std::to_string(p.ne03),
                                                 std::to_string(p.batch()),
                                                 number(p.bytes_moved()),
                                                 std::string(shape.memory_bound ? "1" : "0"),
                                                 std::to_string(shape.rotation_sets),
                                                 std::string(mode_key(mode)),
                                                 std::string(kind_key(row.kind)),
                                                 row.name,
                                                 std::string(status_key(row.status)),
                                                 row.note,
                                                 number_or_empty(f.us),
                                                 t ? number(t->min_us) : "",
                                                 t ? number(t->max_us) : "",
                                                 t ? std::to_string(t->samples) : "",
                                                 t ? std::to_string(t->launches_per_sample) : "",
                                                 number_or_empty(f.gib_per_s),
                                                 number_or_empty(f.change_percent),
                                                 number_or_empty(f.speedup),
                                                 number_or_empty(f.percent_of_copy),
                                                 number_or_empty(row.nmse)}) {
                    fields.push_back(field);
                }
                if (row.resources) {
                    const KernelResources& k = *row.resources;
                    for (const int64_t v : {int64_t{k.registers_per_thread}, int64_t{k.static_shared_bytes},
                                            int64_t{k.dynamic_shared_bytes}, int64_t{k.local_bytes},
                                            int64_t{k.threads_per_block}, int64_t{k.blocks_per_sm}}) {
                        fields.push_back(std::to_string(v));
                    }
                    fields.push_back(number(k.theoretical_occupancy_percent));
                    fields.push_back(std::to_string(k.grid_blocks));
                    fields.push_back(std::to_string(k.sm_count));
                }
                fields.resize(std::size(csv_columns));
                write_line(out, fields);
            }
        }
    }
    // The copy bandwidth, as a line of its own: us per copy, GiB/s of bytes read + written.
    const Timing&            c      = run.copy.timing;
    std::vector<std::string> fields = run_fields;
    for (const std::string& field : {std::to_string(run.sm_clock_mhz_after_copy),
                                     std::string("copy_bandwidth"),
                                     std::string("copy bandwidth"),
                                     "device-to-device copy of " + std::to_string(run.copy.bytes_per_copy) + " bytes",
                                     std::string(),
                                     std::string(),
                                     std::string(),
                                     std::string(),
                                     std::string(),
                                     number(2.0 * static_cast<double>(run.copy.bytes_per_copy)),
                                     std::string("1"),
                                     std::string("1"),
                                     std::string(mode_key(TimingMode::back_to_back)),
                                     std::string("copy"),
                                     std::string("cudaMemcpyAsync"),
                                     std::string("ok"),
                                     std::string("bytes read + written per copy over its time"),
                                     number(c.median_us),
                                     number(c.min_us),
                                     number(c.max_us),
                                     std::to_string(c.samples),
                                     std::to_string(c.launches_per_sample),
                                     number(run.copy.bytes_per_second / (1024.0 * 1024.0 * 1024.0))}) {
        fields.push_back(field);
    }
    fields.resize(std::size(csv_columns));
    write_line(out, fields);
}

ReportRun read_csv(std::istream& in) {
    std::vector<std::string> header, fields;
    if (!read_line(in, header) || header != std::vector<std::string>(std::begin(csv_columns), std::end(csv_columns))) {
        throw ResultsFormatError("not the report's results.csv: its first line is not the report's header");
    }
    std::map<std::string, size_t> column;
    for (size_t i = 0; i < header.size(); ++i) {
        column[header[i]] = i;
    }
    ReportRun run;
    int       line = 1;
    while (read_line(in, fields)) {
        ++line;
        if (fields.size() == 1 && fields[0].empty()) {
            continue;
        }
        if (fields.size() != header.size()) {
            throw ResultsFormatError("line " + std::to_string(line) + " has " + std::to_string(fields.size()) +
                                     " fields, the header " + std::to_string(header.size()));
        }
        const auto field = [&](const char* name) -> const std::string& { return fields[column.at(name)]; };
        const auto value = [&](const char* name) { return to_double(field(name), name); };
        run.gpu_name     = field("gpu");
        run.gpu          = field("gpu_description");
        run.build        = field("build");
        run.date         = field("date");
        run.rotation     = field("rotation");
        if (field("kind") == "copy") {
            run.copy.bytes_per_copy   = static_cast<size_t>(value("bytes_per_run") / 2.0);
            run.copy.timing.median_us = value("us_median");
            run.copy.bytes_per_second = value("gib_per_s") * 1024.0 * 1024.0 * 1024.0;
            continue;
        }
        if (run.shapes.empty() || run.shapes.back().id != field("shape_id")) {
            ShapeResult shape;
            shape.id    = field("shape_id");
            shape.title = field("shape_title");
            shape.problem =
                Problem::contiguous(static_cast<int64_t>(value("n")), static_cast<int64_t>(value("k")),
                                    static_cast<int64_t>(value("ne02")), static_cast<int64_t>(value("ne03")));
            shape.memory_bound  = field("memory_bound") == "1";
            shape.rotation_sets = static_cast<int>(value("rotation_sets"));
            shape.sm_clock_mhz  = static_cast<int>(value("sm_clock_mhz"));
            run.shapes.push_back(shape);
        }
        ShapeResult& shape = run.shapes.back();
        if (shape.rows.empty() || shape.rows.back().name != field("name")) {
            RowResult row;
            row.name               = field("name");
            const std::string kind = field("kind"), status = field("status");
            row.kind   = kind == "cublas"         ? RowKind::cublas
                         : kind == "empty_kernel" ? RowKind::empty_kernel
                                                  : RowKind::step;
            row.status = status == "n/a"      ? RowStatus::not_applicable
                         : status == "FAILED" ? RowStatus::failed
                                              : RowStatus::measured;
            row.note   = field("note");
            if (!field("nmse").empty()) {
                row.nmse = value("nmse");
            }
            shape.rows.push_back(row);
        }
        if (!field("us_median").empty()) {
            const TimingMode mode = field("mode") == mode_key(TimingMode::graph_replay) ? TimingMode::graph_replay
                                                                                        : TimingMode::back_to_back;
            Timing           t;
            t.median_us                    = value("us_median");
            t.min_us                       = value("us_min");
            t.max_us                       = value("us_max");
            t.samples                      = static_cast<int>(value("samples"));
            t.launches_per_sample          = static_cast<int>(value("launches_per_sample"));
            shape.rows.back().timing(mode) = t;
            if (std::find(run.modes.begin(), run.modes.end(), mode) == run.modes.end()) {
                run.modes.push_back(mode);
            }
        }
    }
    if (run.shapes.empty()) {
        throw ResultsFormatError("no shape in the file: nothing to plot");
    }
    return run;
}

}  // namespace harness
