// solve_tri_report: the workbook's main command. Runs every step, cuBLAS as
// ggml calls it, and an empty kernel at the reference shapes (and one of the
// reader's own), checks every configuration before timing it, and prints per
// shape a table of us/run, GB/s, change and speed-up in two timing modes,
// the PR's published change next to the one measured here, and each step's
// kernel resources; writes the same figures as CSV and JSON and a plot as SVG.
#include "cublas_yardstick.hpp"
#include "device_check.hpp"
#include "empty_kernel.hpp"
#include "gpu.hpp"
#include "options.hpp"
#include "report.hpp"
#include "report_results.hpp"
#include "report_steps.hpp"
#include "results_input.hpp"
#include "results_output.hpp"

#include <unistd.h>

#include <algorithm>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <iostream>
#include <sstream>

namespace harness {
namespace {

constexpr int exit_failed = 1;  // a configuration failed its check, or the run broke off
constexpr int exit_usage  = 2;
constexpr int exit_no_gpu = 3;

// A shape whose data fits in this fraction of the L2 is timed L2-hot, as
// test-backend-ops times it and as the model meets it (its inputs were just
// written by the op before). A larger shape is rotated over enough buffer sets
// to span several times the L2 (but no more sets than the cap), so that it
// measures device memory instead of what the previous launch left in the L2.
constexpr double l2_hot_fraction         = 0.25;
constexpr double rotation_multiple_of_l2 = 4.0;
constexpr int    max_rotation_sets       = 2048;

// A shape of the reader's own is solved on the CPU too: refuse one whose
// reference would take more than about a minute.
constexpr double max_reference_multiply_adds = 1e11;

enum class Rotation { automatic, always, never };

const char* rotation_name(const Rotation rotation) {
    switch (rotation) {
        case Rotation::automatic: return "shapes beyond a quarter of the L2 rotated over 4x the L2; smaller ones L2-hot";
        case Rotation::always: return "every shape rotated over 4x the L2";
        case Rotation::never: return "not rotated (L2-hot where it fits)";
    }
    return "?";
}

struct ReportOptions {
    Options                  shape;  // --n, --k, --ne2, --ne3, --seed
    std::vector<TimingMode>  modes = {TimingMode::back_to_back, TimingMode::graph_replay};
    std::vector<std::string> shape_ids;  // --shapes: the reference shapes to run; empty: all of them
    std::string              out_dir        = "report";
    bool                     quick          = false;
    Rotation                 rotation       = Rotation::automatic;
    bool                     check_gpu_only = false;
    bool                     help           = false;
    std::string              replot_from;  // --replot: a results.json to draw the plot of, no GPU
};

// The reference shapes, by the ids --shapes takes.
struct ShapeSpec {
    std::string id;
    std::string title;
    Problem     problem;
    bool        memory_bound;
};

const std::vector<ShapeSpec>& reference_shapes() {
    static const std::vector<ShapeSpec> shapes = {
        {"pr", "the PR's shape", Problem::contiguous(64, 6, 4, 2), false},
        {"upstream_perf", "upstream's perf shape today", Problem::contiguous(64, 32, 4, 4), false},
        {"qwen3_next", "Qwen3-Next (chunked gated delta rule)", Problem::contiguous(64, 64, 8, 32), false},
        {"large_batch", "large batch", Problem::contiguous(64, 32, 128, 128), true},
    };
    return shapes;
}

const char* usage_text() {
    return "usage: solve_tri_report [options]\n"
           "Runs every step of the workbook, cuBLAS (as ggml calls it) and an empty kernel at the PR's shape,\n"
           "upstream's perf shape, the Qwen3-Next shape, a large batch, and a shape of your own if given.\n"
           "options:\n"
           "  --mode M       back-to-back, graph or both (default both): how launches are timed\n"
           "  --out DIR      where results.csv, results.json and results.svg go (default ./report)\n"
           "  --quick        fewer and shorter samples: a first look, not a measurement to quote\n"
           "  --rotation     rotate inputs over buffer sets spanning 4x the L2 at every shape (default: only\n"
           "                 shapes whose data exceeds a quarter of the L2; smaller ones are timed L2-hot, as\n"
           "                 test-backend-ops times them and as the model meets them)\n"
           "  --no-rotation  time every launch on one buffer set, at every shape (L2-hot where it fits)\n"
           "  --shapes LIST  the reference shapes to run, comma-separated, from pr, upstream_perf, qwen3_next,\n"
           "                 large_batch (default all; with --shapes none, only the shape of your own)\n"
           "  --check-gpu    only say which GPU would be measured (exit 0), or that there is none (exit 3)\n"
           "  --replot FILE  measure nothing: redraw results.svg (in --out) from a results.json this report\n"
           "                 wrote; needs no GPU\n"
           "  --help         this text\n"
           "a shape of your own (defaults 64, 6, 4, 2 for what is not given), and the inputs' seed:\n";
}

// The shared options' usage lines that the report takes (not the step tests' --sweep).
std::string shape_options_usage() {
    std::istringstream lines(options_usage());
    std::string        line, usage;
    while (std::getline(lines, line)) {
        if (line.find("--sweep") == std::string::npos) {
            usage += line + "\n";
        }
    }
    return usage;
}

// The first option given that only a measurement takes (what differs from
// the defaults), by name; empty when there is none.
std::string measurement_option_in(const ReportOptions& options) {
    const ReportOptions defaults;
    if (options.modes != defaults.modes) {
        return "--mode";
    }
    if (!options.shape_ids.empty()) {
        return "--shapes";
    }
    if (options.quick) {
        return "--quick";
    }
    if (options.rotation != defaults.rotation) {
        return options.rotation == Rotation::always ? "--rotation" : "--no-rotation";
    }
    if (options.check_gpu_only) {
        return "--check-gpu";
    }
    if (options.shape.has_shape() || options.shape.seed) {
        return "a shape or a seed";
    }
    return "";
}

ReportOptions parse_report_options(const int argc, char** argv) {
    const ParsedCommandLine parsed = parse_command_line(argc, argv);
    ReportOptions           options;
    options.shape = parsed.options;
    if (options.shape.sweep) {
        throw UsageError("--sweep is an option of the step tests, not of the report");
    }
    for (size_t i = 1; i < parsed.rest.size(); ++i) {
        const std::string arg = parsed.rest[i];
        // --name value or --name=value
        const auto value_of = [&](const std::string& flag) -> std::optional<std::string> {
            if (arg == flag) {
                if (i + 1 >= parsed.rest.size()) {
                    throw UsageError(flag + " needs a value");
                }
                return std::string(parsed.rest[++i]);
            }
            if (arg.rfind(flag + "=", 0) == 0) {
                return arg.substr(flag.size() + 1);
            }
            return std::nullopt;
        };
        if (const std::optional<std::string> mode = value_of("--mode")) {
            if (*mode == "back-to-back") {
                options.modes = {TimingMode::back_to_back};
            } else if (*mode == "graph") {
                options.modes = {TimingMode::graph_replay};
            } else if (*mode == "both") {
                options.modes = {TimingMode::back_to_back, TimingMode::graph_replay};
            } else {
                throw UsageError("--mode takes back-to-back, graph or both, got '" + *mode + "'");
            }
        } else if (const std::optional<std::string> out = value_of("--out")) {
            if (out->empty()) {
                throw UsageError("--out needs a directory");
            }
            options.out_dir = *out;
        } else if (const std::optional<std::string> list = value_of("--shapes")) {
            std::istringstream ids(*list);
            std::string        id;
            options.shape_ids = {"none"};  // given, even if it names no reference shape
            while (std::getline(ids, id, ',')) {
                const bool known = id == "none" || std::any_of(reference_shapes().begin(), reference_shapes().end(),
                                                               [&id](const ShapeSpec& s) { return s.id == id; });
                if (!known) {
                    throw UsageError("--shapes takes pr, upstream_perf, qwen3_next, large_batch or none, got '" +
                                     id + "'");
                }
                options.shape_ids.push_back(id);
            }
        } else if (const std::optional<std::string> json_path = value_of("--replot")) {
            if (json_path->empty()) {
                throw UsageError("--replot needs a results.json");
            }
            options.replot_from = *json_path;
        } else if (arg == "--quick") {
            options.quick = true;
        } else if (arg == "--no-rotation") {
            options.rotation = Rotation::never;
        } else if (arg == "--rotation") {
            options.rotation = Rotation::always;
        } else if (arg == "--check-gpu") {
            options.check_gpu_only = true;
        } else if (arg == "--help" || arg == "-h") {
            options.help = true;
        } else {
            throw UsageError("unknown option '" + arg + "'");
        }
    }
    if (!options.replot_from.empty()) {
        const std::string measurement_option = measurement_option_in(options);
        if (!measurement_option.empty()) {
            throw UsageError("--replot measures nothing and takes only --out, not " + measurement_option);
        }
    }
    return options;
}

std::vector<ShapeSpec> shapes_to_run(const ReportOptions& options, const int64_t l2_bytes) {
    std::vector<ShapeSpec> shapes;
    for (const ShapeSpec& shape : reference_shapes()) {
        const std::vector<std::string>& ids = options.shape_ids;
        if (ids.empty() || std::find(ids.begin(), ids.end(), shape.id) != ids.end()) {
            shapes.push_back(shape);
        }
    }
    const Options& o = options.shape;
    if (o.has_shape()) {
        const Problem p = Problem::contiguous(o.n.value_or(64), o.k.value_or(6), o.ne2.value_or(4), o.ne3.value_or(2));
        const double  multiply_adds = static_cast<double>(p.batch()) * p.n * p.n * p.k / 2.0;
        if (multiply_adds > max_reference_multiply_adds) {
            char message[256];
            std::snprintf(message, sizeof(message),
                          "the shape %s needs about %.2g multiply-adds for its CPU reference, more than the %.0e the "
                          "report allows: choose a smaller batch, n or k",
                          p.describe().c_str(), multiply_adds, max_reference_multiply_adds);
            throw UsageError(message);
        }
        shapes.push_back({"custom", "your shape", p, beyond_l2(p, l2_bytes)});
    }
    return shapes;
}

// A progress line on stderr: rewritten in place on a terminal, one line per update elsewhere.
class Progress {
public:
    explicit Progress(const int total) : total_(total), terminal_(isatty(STDERR_FILENO) != 0) {}
    void advance(const std::string& what) {
        ++done_;
        char prefix[32];
        std::snprintf(prefix, sizeof(prefix), "[%3d/%3d] ", std::min(done_, total_), total_);
        const std::string line = prefix + what;
        if (terminal_) {
            std::cerr << '\r' << line << std::string(width_ > line.size() ? width_ - line.size() : 0, ' ')
                      << std::flush;
            width_ = line.size();
        } else {
            std::cerr << line << '\n';
        }
    }
    // Before printing a table on stdout: a terminal shows both streams on one screen.
    void clear() {
        if (terminal_ && width_ > 0) {
            std::cerr << '\r' << std::string(width_, ' ') << '\r' << std::flush;
            width_ = 0;
        }
    }

private:
    int    total_;
    int    done_  = 0;
    size_t width_ = 0;
    bool   terminal_;
};

// "solve_tri refused: k = 64 is outside ..." → "k = 64 is outside ..."
std::string without_prefix(const std::string& message) {
    const std::string prefix = "solve_tri refused: ";
    return message.rfind(prefix, 0) == 0 ? message.substr(prefix.size()) : message;
}

std::string shortened(const std::string& text, const size_t max_length = 110) {
    return text.size() <= max_length ? text : text.substr(0, max_length - 3) + "...";
}

// Checks every solver on the shape's inputs; fills each row's status, NMSE and resources.
void check_rows(ShapeResult& shape, const std::vector<const Step*>& solvers, const Inputs& inputs,
                Progress& progress) {
    const Problem&      p         = shape.problem;
    const Reference     reference = solve_reference(p, inputs, /*with_bound=*/false);
    const DeviceProblem device(p, inputs);
    for (size_t i = 0; i < solvers.size(); ++i) {
        const Step& solver = *solvers[i];
        RowResult&  row    = shape.rows[i];
        progress.advance(shape.title + ": checking " + row.name);
        try {
            validate(p, solver.limits, device.A(), device.B(), device.X());
        } catch (const InvalidProblem& refused) {
            row.status = RowStatus::not_applicable;
            row.note   = without_prefix(refused.what());
            continue;
        }
        try {
            const std::vector<float> X       = run_step(solver, p, device);
            const Verdict            verdict = judge(p, Family::backend_ops, inputs, reference, X);
            row.nmse                         = verdict.nmse;
            if (!verdict.passed) {
                row.status = RowStatus::failed;
                row.note   = verdict.failure;
            }
        } catch (const std::exception& error) {
            row.status = RowStatus::failed;
            row.note   = error.what();
        }
        if (row.status == RowStatus::measured && row.kind == RowKind::step) {
            row.resources = kernel_resources(solver, p, device.A(), device.B(), device.X());
        }
    }
}

// Times every checked row in every mode, over rotated input buffers.
void time_rows(ShapeResult& shape, const std::vector<const Step*>& solvers, const Inputs& inputs,
               const ReportOptions& options, const TimingConfig& base_config, Progress& progress) {
    const Problem& p    = shape.problem;
    const bool rotate = options.rotation == Rotation::always ||
                        (options.rotation == Rotation::automatic &&
                         p.bytes_moved() > l2_hot_fraction * static_cast<double>(gpu().l2_bytes));
    const int  sets   = rotate ? RotatingBuffers::sets_for(p, gpu().l2_bytes, rotation_multiple_of_l2, max_rotation_sets)
                               : 1;
    const RotatingBuffers buffers(p, inputs, sets);
    shape.rotation_sets  = sets;
    shape.rotation_bytes = buffers.bytes();

    std::vector<size_t>                timed_rows;
    std::vector<std::function<void()>> candidates;
    for (size_t i = 0; i < shape.rows.size(); ++i) {
        if (shape.rows[i].status != RowStatus::measured) {
            continue;
        }
        timed_rows.push_back(i);
        if (shape.rows[i].kind == RowKind::empty_kernel) {
            candidates.push_back([] { launch_empty_kernel(stream()); });
        } else {
            const Step* const solver = solvers[i];
            // Each call solves on the next buffer set.
            candidates.push_back([solver, &buffers, p, set = 0]() mutable {
                solver->solve(buffers.A(set), buffers.B(set), buffers.X(set), p, stream());
                set = (set + 1) % buffers.sets();
            });
        }
    }
    TimingConfig config            = base_config;
    config.min_launches_per_sample = std::max(config.min_launches_per_sample, sets);
    for (const TimingMode mode : options.modes) {
        progress.advance(shape.title + ": timing, " + mode_name(mode));
        std::vector<size_t>                rows_in_mode;
        std::vector<std::function<void()>> candidates_in_mode;
        for (size_t c = 0; c < candidates.size(); ++c) {
            if (mode == TimingMode::graph_replay) {
                if (const std::optional<std::string> why = graph_capture_failure(candidates[c])) {
                    RowResult& row = shape.rows[timed_rows[c]];
                    row.note += (row.note.empty() ? "" : "; ") + std::string("not capturable in a graph: ") + *why;
                    continue;
                }
            }
            rows_in_mode.push_back(timed_rows[c]);
            candidates_in_mode.push_back(candidates[c]);
        }
        const std::vector<Timing> timings = time_candidates(mode, candidates_in_mode, config);
        for (size_t c = 0; c < rows_in_mode.size(); ++c) {
            shape.rows[rows_in_mode[c]].timing(mode) = timings[c];
        }
    }
    // Read while the GPU is still busy: an idle GPU drops its clock at once.
    shape.sm_clock_mhz = current_sm_clock_mhz();
}

ShapeResult run_shape(const ShapeSpec& spec, const std::vector<const Step*>& solvers, const ReportOptions& options,
                      const TimingConfig& config, const uint64_t seed, Progress& progress) {
    ShapeResult shape;
    shape.id           = spec.id;
    shape.title        = spec.title;
    shape.problem      = spec.problem;
    shape.memory_bound = spec.memory_bound;
    for (const Step* solver : solvers) {
        RowResult row;
        row.name = solver->name;
        row.kind = solver == &cublas_step() ? RowKind::cublas : RowKind::step;
        shape.rows.push_back(row);
    }
    progress.advance(spec.title + ": drawing inputs and the CPU reference");
    // test-backend-ops' own inputs, judged by its own rule (NMSE <= 1e-7):
    // the figures are then those of its perf mode, on the data it times.
    const Inputs inputs = make_inputs(Family::backend_ops, shape.problem, seed);
    check_rows(shape, solvers, inputs, progress);
    RowResult floor;
    floor.name = "empty kernel (floor)";
    floor.kind = RowKind::empty_kernel;
    shape.rows.push_back(floor);
    time_rows(shape, solvers, inputs, options, config, progress);
    return shape;
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

void print_copy_bandwidth(std::ostream& out, const CopyBandwidth& copy) {
    char line[256];
    std::snprintf(line, sizeof(line),
                  "  copy bandwidth: %.3f TB/s = %.0f GiB/s (cudaMemcpyAsync device to device, %.0f MiB each way, "
                  "bytes read + written over the median of %d samples; [%.1f, %.1f] us per copy)\n",
                  copy.bytes_per_second / 1e12, copy.bytes_per_second / (1024.0 * 1024.0 * 1024.0),
                  static_cast<double>(copy.bytes_per_copy) / (1024.0 * 1024.0), copy.timing.samples,
                  copy.timing.min_us, copy.timing.max_us);
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
            << (mode == TimingMode::back_to_back
                    ? "launches back to back on one stream, as test-backend-ops times (launch overhead included)"
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
        std::string why_none = row.kind == RowKind::cublas ? "n/a: cuBLAS launches kernels of its own"
                               : row.status == RowStatus::not_applicable ? "n/a: " + shortened(row.note)
                               : row.status == RowStatus::failed        ? "FAILED"
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
        lines.push_back({std::string("PR #17703, ") + published.gpu + ", published", published.baseline_us,
                         published.pr_us});
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
        << ", us/run (the published rows are test-backend-ops' perf mode: compare with back-to-back) ==\n";
    char text[512];
    std::snprintf(text, sizeof(text), "  %-*s %9s %9s %9s\n", static_cast<int>(width), "", "before", "after",
                  "change");
    out << text;
    for (const Line& l : lines) {
        std::snprintf(text, sizeof(text), "  %-*s %9.2f %9.2f %7.1f %%\n", static_cast<int>(width), l.label.c_str(),
                      l.before, l.after, change_percent(l.before, l.after));
        out << text;
    }
}

void write_file(const std::filesystem::path& path, const std::string& content) {
    std::ofstream file(path, std::ios::binary);
    file << content;
    file.close();
    if (!file) {
        throw std::runtime_error("could not write " + path.string());
    }
}

// --replot: the plot of a saved run, drawn by today's code from its JSON.
int replot(const ReportOptions& options) {
    std::ifstream json_file(options.replot_from, std::ios::binary);
    if (!json_file) {
        throw UsageError("--replot: cannot read " + options.replot_from);
    }
    const ReportRun run = read_json(json_file);
    const std::filesystem::path out_dir(options.out_dir);
    std::filesystem::create_directories(out_dir);
    std::ostringstream svg;
    write_plot(svg, run);
    write_file(out_dir / "results.svg", svg.str());
    std::cout << "written: " << (out_dir / "results.svg").string() << ", the plot of " << options.replot_from
              << " (" << run.gpu_name << ", " << run.date << ")\n";
    return 0;
}

int run_report(const ReportOptions& options) {
    if (!options.replot_from.empty()) {
        return replot(options);
    }
    const GpuInfo& info = gpu();
    if (!info.available) {
        std::cerr << "solve_tri_report: no GPU to measure: " << info.reason << ".\n"
                  << "The report times the workbook's kernels on a CUDA GPU, so without one there is nothing to "
                     "report; the CPU tests run under `meson test`.\n";
        return exit_no_gpu;
    }
    if (options.check_gpu_only) {
        std::cout << "GPU: " << describe(info) << "\n";
        return 0;
    }
    const std::vector<ShapeSpec> shapes = shapes_to_run(options, info.l2_bytes);
    if (shapes.empty()) {
        throw UsageError("--shapes none leaves nothing to run: give a shape of your own (--n, --k, --ne2, --ne3)");
    }
    std::vector<const Step*>     solvers = report_steps();
    solvers.push_back(&cublas_step());

    ReportRun run;
    run.gpu                   = describe(info);
    run.gpu_name              = info.name;
    run.sm_count              = info.sm_count;
    run.l2_bytes              = info.l2_bytes;
    run.build                 = build_description();
    run.date                  = today();
    run.seed                  = run_seed(options.shape);
    run.quick                 = options.quick;
    run.rotation              = rotation_name(options.rotation);
    run.modes                 = options.modes;
    if (options.quick) {
        run.timing_config.warmup_launches  = 10;
        run.timing_config.samples          = 7;
        run.timing_config.sample_target_ms = 1.0;
    }
    std::cout << "solve_tri_report: " << report_steps().size() << " steps, cuBLAS and an empty kernel at "
              << shapes.size() << " shapes; seed " << run.seed << " (rerun with --seed " << run.seed << ")"
              << (options.quick ? "; --quick: a first look, not a measurement to quote" : "") << "\n";

    const int per_shape = static_cast<int>(solvers.size()) + 1 + static_cast<int>(options.modes.size());
    Progress  progress(1 + per_shape * static_cast<int>(shapes.size()));
    progress.advance("measuring the copy bandwidth");
    size_t free_bytes = 0, total_bytes = 0;
    CUDA_CHECK(cudaMemGetInfo(&free_bytes, &total_bytes));
    run.copy = measure_copy_bandwidth(std::min<size_t>(size_t{1} << 30, free_bytes / 4), run.timing_config);
    run.sm_clock_mhz_after_copy = current_sm_clock_mhz();
    progress.clear();
    print_copy_bandwidth(std::cout, run.copy);

    for (size_t s = 0; s < shapes.size(); ++s) {
        const double needed = 2.0 * shapes[s].problem.bytes_moved();  // the checked copy, then the timed one
        CUDA_CHECK(cudaMemGetInfo(&free_bytes, &total_bytes));
        if (needed > 0.8 * static_cast<double>(free_bytes)) {
            throw UsageError("the shape " + shapes[s].problem.describe() + " needs about " +
                             std::to_string(static_cast<long long>(needed / 1e6)) + " MB of GPU memory; " +
                             std::to_string(free_bytes / 1000000) + " MB are free");
        }
        run.shapes.push_back(
            run_shape(shapes[s], solvers, options, run.timing_config, derive_seed(run.seed, 100 + s), progress));
        progress.clear();
        print_shape(std::cout, run.shapes.back(), run);
        if (run.shapes.back().id == "pr") {
            print_pr_side_by_side(std::cout, run.shapes.back(), run);
        }
        std::cout << std::flush;
    }
    run.sm_clock_mhz_at_end = current_sm_clock_mhz();

    const std::filesystem::path out_dir(options.out_dir);
    std::filesystem::create_directories(out_dir);
    std::ostringstream csv, json, svg;
    write_csv(csv, run);
    write_json(json, run);
    write_plot(svg, run);
    write_file(out_dir / "results.csv", csv.str());
    write_file(out_dir / "results.json", json.str());
    write_file(out_dir / "results.svg", svg.str());

    const int failures = run.failures();
    std::cout << "\nwritten: " << (out_dir / "results.csv").string() << ", " << (out_dir / "results.json").string()
              << ", " << (out_dir / "results.svg").string() << "\n";
    if (failures > 0) {
        std::cout << "FAILED: " << failures << " configuration" << (failures == 1 ? "" : "s")
                  << " failed the check (see the tables); exit " << exit_failed << "\n";
        return exit_failed;
    }
    std::cout << "every configuration passed its check before it was timed\n";
    return 0;
}

}  // namespace
}  // namespace harness

int main(int argc, char** argv) {
    harness::ReportOptions options;
    try {
        options = harness::parse_report_options(argc, argv);
    } catch (const harness::UsageError& error) {
        std::cerr << "solve_tri_report: " << error.what() << "\n" << harness::usage_text() << harness::shape_options_usage();
        return harness::exit_usage;
    }
    if (options.help) {
        std::cout << harness::usage_text() << harness::shape_options_usage();
        return 0;
    }
    try {
        return harness::run_report(options);
    } catch (const harness::UsageError& error) {
        std::cerr << "\nsolve_tri_report: " << error.what() << "\n";
        return harness::exit_usage;
    } catch (const harness::ResultsFormatError& error) {
        std::cerr << "solve_tri_report: --replot " << options.replot_from << ": " << error.what() << "\n";
        return harness::exit_usage;
    } catch (const std::exception& error) {
        std::cerr << "\nsolve_tri_report: stopped: " << error.what() << "\n";
        return harness::exit_failed;
    }
}
