// solve_tri_report: the workbook's main command. Runs every step, cuBLAS as
// ggml calls it, and an empty kernel at the reference shapes (and one of the
// reader's own), checks every configuration before timing it, prints per
// shape the timing tables of both modes and each step's kernel resources, and
// the PR's published change next to the one measured here; writes the same
// figures as CSV, a plot as SVG and a page to share (summary.md).
#include "cublas_yardstick.hpp"
#include "gpu.hpp"
#include "measure.hpp"
#include "plot.hpp"
#include "print_tables.hpp"
#include "reference_shapes.hpp"
#include "report_options.hpp"
#include "report_steps.hpp"
#include "results_csv.hpp"
#include "summary.hpp"

#include <filesystem>
#include <fstream>
#include <iostream>
#include <sstream>

namespace harness {
namespace {

constexpr int exit_failed = 1;  // a configuration failed its check, or the run broke off
constexpr int exit_usage  = 2;
constexpr int exit_no_gpu = 3;

void write_file(const std::filesystem::path& path, const std::string& content) {
    std::ofstream file(path, std::ios::binary);
    file << content;
    file.close();
    if (!file) {
        throw std::runtime_error("could not write " + path.string());
    }
}

ReportRun read_csv_file(const std::string& path) {
    std::ifstream csv_file(path, std::ios::binary);
    if (!csv_file) {
        throw UsageError("--replot: cannot read " + path);
    }
    try {
        return read_csv(csv_file);
    } catch (const ResultsFormatError& error) {
        throw ResultsFormatError(path + ": " + error.what());
    }
}

// --replot: the plot (and, of one run, the summary) of saved runs, drawn by
// today's code from their CSV. Several runs share one plot.
int replot(const ReportOptions& options) {
    std::vector<LabelledRun> runs;
    for (const std::string& path : options.replot_from) {
        runs.push_back({std::filesystem::path(path).stem().string(), read_csv_file(path)});
    }
    const std::filesystem::path out_dir(options.out_dir);
    std::filesystem::create_directories(out_dir);
    std::ostringstream svg, curve;
    bool               has_curve = false;
    if (runs.size() == 1) {
        write_plot(svg, runs.front().run);
        has_curve = write_curve_plot(curve, runs.front().run);
        std::ostringstream summary;
        write_summary(summary, runs.front().run);
        write_file(out_dir / "summary.md", summary.str());
    } else {
        write_overlay_plot(svg, runs);
        has_curve = write_overlay_curve_plot(curve, runs);
    }
    write_file(out_dir / "results.svg", svg.str());
    if (has_curve) {
        write_file(out_dir / "curve.svg", curve.str());
    }
    std::cout << "written: " << (out_dir / "results.svg").string() << (has_curve ? ", curve.svg" : "")
              << (runs.size() == 1 ? " and summary.md" : "") << ", from";
    for (const LabelledRun& labelled : runs) {
        std::cout << " " << labelled.label << " (" << labelled.run.gpu_name << ", " << labelled.run.date << ")";
    }
    std::cout << "\n";
    return 0;
}

// --device: the device to measure becomes the current one before anything
// asks for the GPU; a number no device has is refused with the count.
void select_device(const ReportOptions& options) {
    if (!options.device) {
        return;
    }
    int count = 0;
    if (cudaGetDeviceCount(&count) != cudaSuccess) {
        cudaGetLastError();
        count = 0;
    }
    if (*options.device >= count) {
        throw UsageError("--device " + std::to_string(*options.device) + ": " + std::to_string(count) + " CUDA " +
                         (count == 1 ? "device is" : "devices are") + " visible" +
                         (count > 0 ? " (0.." + std::to_string(count - 1) + ")" : std::string()));
    }
    CUDA_CHECK(cudaSetDevice(*options.device));
}

int run_report(const ReportOptions& options) {
    if (!options.replot_from.empty()) {
        return replot(options);
    }
    select_device(options);
    const GpuInfo& info = gpu();
    if (!info.available) {
        std::cerr << "solve_tri_report: no GPU to measure: " << info.reason << ".\n"
                  << "The report times the workbook's kernels on a CUDA GPU, so without one there is nothing to "
                     "report; the CPU tests run under `meson test`.\n";
        return exit_no_gpu;
    }
    if (options.check_gpu_only) {
        std::cout << "GPU: " << describe(info) << " (CUDA device " << info.device << " of " << info.device_count
                  << ")\n";
        return 0;
    }
    const std::vector<ShapeSpec> shapes = shapes_to_run(options);
    if (shapes.empty()) {
        throw UsageError("--shapes none leaves nothing to run: give a shape of your own (--n, --k, --ne2, --ne3)");
    }
    std::vector<const Step*> solvers = report_steps();
    solvers.push_back(&cublas_step());

    ReportRun run;
    run.gpu      = describe(info);
    run.gpu_name = info.name;
    run.sm_count = info.sm_count;
    run.l2_bytes = info.l2_bytes;
    run.build    = build_description();
    run.date     = today();
    run.seed     = run_seed(options.shape);
    run.quick    = options.quick;
    run.rotation = rotation_description(options.rotation);
    run.modes    = options.modes;
    if (options.quick) {
        run.timing_config.warmup_launches = 10;
        run.timing_config.back_to_back    = {7, 1.0};
        run.timing_config.graph_replay    = {7, 1.0};
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
        run.shapes.push_back(measure_shape(shapes[s], solvers, options, run, derive_seed(run.seed, 100 + s), progress));
        progress.clear();
        if (on_batch_curve(run.shapes.back().id)) {
            continue;  // the curve's points are printed together, in one table per mode
        }
        print_shape(std::cout, run.shapes.back(), run);
        if (run.shapes.back().id == "pr") {
            print_pr_side_by_side(std::cout, run.shapes.back(), run);
        }
        std::cout << std::flush;
    }
    run.sm_clock_mhz_at_end = current_sm_clock_mhz();
    print_curve(std::cout, run);

    const std::filesystem::path out_dir(options.out_dir);
    std::filesystem::create_directories(out_dir);
    std::ostringstream csv, svg, curve, summary;
    write_csv(csv, run);
    write_plot(svg, run);
    const bool has_curve = write_curve_plot(curve, run);
    // From the CSV as written, so that --replot of results.csv gives this page again.
    std::istringstream written(csv.str());
    write_summary(summary, read_csv(written));
    write_file(out_dir / "results.csv", csv.str());
    write_file(out_dir / "results.svg", svg.str());
    write_file(out_dir / "summary.md", summary.str());
    if (has_curve) {
        write_file(out_dir / "curve.svg", curve.str());
    }

    const int failures = run.failures();
    // The folder as given: a log of this run names no path of the machine it ran on.
    std::cout << "\nwritten: results.csv, results.svg, " << (has_curve ? "curve.svg (the batch curve), " : "")
              << "and summary.md (to paste where the PR's tables are) in " << options.out_dir << "\n";
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
        std::cerr << "solve_tri_report: " << error.what() << "\n" << harness::report_usage();
        return harness::exit_usage;
    }
    if (options.help) {
        std::cout << harness::report_usage();
        return 0;
    }
    try {
        return harness::run_report(options);
    } catch (const harness::UsageError& error) {
        std::cerr << "\nsolve_tri_report: " << error.what() << "\n";
        return harness::exit_usage;
    } catch (const harness::ResultsFormatError& error) {
        std::cerr << "solve_tri_report: --replot " << error.what() << "\n";
        return harness::exit_usage;
    } catch (const std::exception& error) {
        std::cerr << "\nsolve_tri_report: stopped: " << error.what() << "\n";
        return harness::exit_failed;
    }
}
