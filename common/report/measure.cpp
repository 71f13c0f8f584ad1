#include "measure.hpp"

#include "cublas_yardstick.hpp"
#include "device_problem.hpp"
#include "empty_kernel.hpp"
#include "gpu.hpp"
#include "judge.hpp"
#include "reference_shapes.hpp"

#include <unistd.h>

#include <algorithm>
#include <cstdio>
#include <functional>
#include <iostream>

namespace harness {

namespace {

// A shape of the reader's own is solved on the CPU too: refuse one whose
// reference would take more than about a minute.
constexpr double max_reference_multiply_adds = 1e12;

// "solve_tri refused: k = 64 is outside ..." → "k = 64 is outside ..."
std::string without_prefix(const std::string& message) {
    const std::string prefix = "solve_tri refused: ";
    return message.rfind(prefix, 0) == 0 ? message.substr(prefix.size()) : message;
}

// Checks every solver on the shape's inputs; fills each row's status, NMSE and resources.
void check_rows(ShapeResult& shape, const std::vector<const Step*>& solvers, const Inputs& inputs, Progress& progress) {
    const Problem&      p = shape.problem;
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
        if (p.n > max_n_on_device(solver)) {
            row.status = RowStatus::not_applicable;
            row.note   = "n = " + std::to_string(p.n) + " is past n <= " + std::to_string(max_n_on_device(solver)) +
                       ", what this GPU's shared memory a block holds";
            continue;
        }
        try {
            const HostFloats X = run_step(solver, p, device);
            // test-backend-ops' rule (NMSE <= 1e-7, all finite): the figures
            // are those of its perf mode, on the data it times. cuBLAS's
            // blocked solve is no plain substitution, so no element bound.
            const Verdict verdict = judge(p, Family::backend_ops, inputs, X, Bound::skip);
            row.nmse              = verdict.nmse;
            if (!verdict.passed) {
                row.status = RowStatus::failed;
                row.note   = verdict.failure;
            }
        } catch (const std::exception& error) {
            row.status = RowStatus::failed;
            row.note   = error.what();
        }
        if (row.status == RowStatus::measured && row.kind == RowKind::step) {
            row.resources = kernel_resources(solver, p);
        }
    }
}

// Times every checked row in every mode, over rotated input buffers.
void time_rows(ShapeResult& shape, const std::vector<const Step*>& solvers, const Inputs& inputs,
               const ReportOptions& options, const ReportRun& run, Progress& progress) {
    const Problem&        p    = shape.problem;
    const int             sets = rotation_sets(p, run.l2_bytes, options.rotation);
    const RotatingBuffers buffers(p, inputs, sets);
    shape.rotation_sets  = sets;
    shape.rotation_bytes = buffers.bytes();

    std::vector<size_t>                timed_rows;
    std::vector<std::function<void()>> candidates;
    // Taken once, not in every timed call: the launches are all that is timed.
    const cudaStream_t on = stream();
    for (size_t i = 0; i < shape.rows.size(); ++i) {
        if (shape.rows[i].status != RowStatus::measured) {
            continue;
        }
        timed_rows.push_back(i);
        if (shape.rows[i].kind == RowKind::empty_kernel) {
            candidates.push_back([on] { launch_empty_kernel(on); });
        } else {
            const Step* const solver = solvers[i];
            // Each call solves on the next buffer set.
            candidates.push_back([solver, &buffers, p, on, set = 0]() mutable {
                solver->solve(buffers.A(set), buffers.B(set), buffers.X(set), p, on);
                set = (set + 1) % buffers.sets();
            });
        }
    }
    TimingConfig config            = run.timing_config;
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

}  // namespace

Progress::Progress(const int total) : total_(total), terminal_(isatty(STDERR_FILENO) != 0) {}

void Progress::advance(const std::string& what) {
    ++done_;
    char prefix[32];
    std::snprintf(prefix, sizeof(prefix), "[%3d/%3d] ", std::min(done_, total_), total_);
    const std::string line = prefix + what;
    if (terminal_) {
        std::cerr << '\r' << line << std::string(width_ > line.size() ? width_ - line.size() : 0, ' ') << std::flush;
        width_ = line.size();
    } else {
        std::cerr << line << '\n';
    }
}

void Progress::clear() {
    if (terminal_ && width_ > 0) {
        std::cerr << '\r' << std::string(width_, ' ') << '\r' << std::flush;
        width_ = 0;
    }
}

std::vector<ShapeSpec> shapes_to_run(const ReportOptions& options) {
    std::vector<ShapeSpec> shapes;
    for (const ReferenceShape& shape : reference_shapes()) {
        const std::vector<std::string>& ids = options.shape_ids;
        if (ids.empty() || std::find(ids.begin(), ids.end(), shape.id) != ids.end()) {
            shapes.push_back({shape.id, shape.title, shape.problem});
        }
    }
    const std::vector<std::string>& ids = options.shape_ids;
    if (ids.empty() || std::find(ids.begin(), ids.end(), batch_curve_id) != ids.end()) {
        for (const ReferenceShape& point : batch_curve()) {
            shapes.push_back({point.id, point.title, point.problem});
        }
    }
    if (options.shape.has_shape()) {
        const Problem p             = shape_of_your_own(options.shape);
        const double  multiply_adds = static_cast<double>(p.batch()) * p.n * p.n * p.k / 2.0;
        if (multiply_adds > max_reference_multiply_adds) {
            char message[256];
            std::snprintf(message, sizeof(message),
                          "the shape %s needs about %.2g multiply-adds for its CPU reference, more than the %.0e the "
                          "report allows: choose a smaller batch, n or k",
                          p.describe().c_str(), multiply_adds, max_reference_multiply_adds);
            throw UsageError(message);
        }
        shapes.push_back({"custom", "your shape", p});
    }
    return shapes;
}

ShapeResult measure_shape(const ShapeSpec& spec, const std::vector<const Step*>& solvers, const ReportOptions& options,
                          const ReportRun& run, const uint64_t seed, Progress& progress) {
    ShapeResult shape;
    shape.id           = spec.id;
    shape.title        = spec.title;
    shape.problem      = spec.problem;
    shape.memory_bound = memory_bound(spec.problem, run.l2_bytes);
    for (const Step* solver : solvers) {
        RowResult row;
        row.name = solver->name;
        row.kind = solver == &cublas_step() ? RowKind::cublas : RowKind::step;
        shape.rows.push_back(row);
    }
    progress.advance(spec.title + ": drawing inputs");
    const Inputs inputs = make_inputs(Family::backend_ops, shape.problem, seed);
    check_rows(shape, solvers, inputs, progress);
    RowResult floor;
    floor.name = "empty kernel (floor)";
    floor.kind = RowKind::empty_kernel;
    shape.rows.push_back(floor);
    time_rows(shape, solvers, inputs, options, run, progress);
    return shape;
}

}  // namespace harness
