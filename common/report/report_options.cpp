#include "report_options.hpp"

#include "reference_shapes.hpp"

#include <algorithm>
#include <optional>
#include <sstream>

namespace harness {

namespace {

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

std::string shape_ids_text() {
    std::string ids;
    for (const ReferenceShape& shape : reference_shapes()) {
        ids += std::string(ids.empty() ? "" : ", ") + shape.id;
    }
    return ids + ", " + batch_curve_id;
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
    if (options.device) {
        return "--device";
    }
    if (options.shape.has_shape() || options.shape.seed) {
        return "a shape or a seed";
    }
    return "";
}

}  // namespace

std::string report_usage() {
    return "usage: solve_tri_report [options]\n"
           "Runs every step of the workbook, cuBLAS (as ggml calls it) and an empty kernel at the reference\n"
           "shapes, at the points of the real model's batch curve (n = k = 64, 1 to 16,384 matrices) and at a\n"
           "shape of your own if given. --shapes names them:\n  " +
           shape_ids_text() +
           ".\n"
           "options:\n"
           "  --mode M       back-to-back, graph or both (default both): how launches are timed\n"
           "  --out DIR      where results.csv, results.svg, curve.svg and summary.md go (default ./report)\n"
           "  --quick        fewer and shorter samples: a first look, not a measurement to quote\n"
           "  --rotation     rotate inputs over buffer sets spanning 4x the L2 at every shape (default: only\n"
           "                 shapes whose data exceeds a quarter of the L2; smaller ones are timed L2-hot, as\n"
           "                 test-backend-ops times them and as the model meets them)\n"
           "  --no-rotation  time every launch on one buffer set, at every shape (L2-hot where it fits)\n"
           "  --shapes LIST  the reference shapes to run, comma-separated, curve for the batch curve's points\n"
           "                 (default all; with --shapes none, only the shape of your own)\n"
           "  --device N     measure CUDA device N (default 0; CUDA_VISIBLE_DEVICES, if set, renumbers the\n"
           "                 devices first)\n"
           "  --check-gpu    only say which GPU would be measured (exit 0), or that there is none (exit 3)\n"
           "  --replot FILE [FILE...]  measure nothing, needs no GPU: from results.csv files this report\n"
           "                 wrote, redraw results.svg (and curve.svg, where the runs have the batch curve) in\n"
           "                 --out; one file also gives its summary.md, several (one per GPU or run) are\n"
           "                 drawn in one plot, each in its own colour\n"
           "  --help         this text\n"
           "a shape of your own (what is not given is the PR's shape, 64, 6, 4, 2), and the inputs' seed:\n" +
           shape_options_usage();
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
                const bool known = id == "none" || id == batch_curve_id ||
                                   std::any_of(reference_shapes().begin(), reference_shapes().end(),
                                               [&id](const ReferenceShape& s) { return s.id == id; });
                if (!known) {
                    throw UsageError("--shapes takes " + shape_ids_text() + " or none, got '" + id + "'");
                }
                options.shape_ids.push_back(id);
            }
        } else if (const std::optional<std::string> csv_path = value_of("--replot")) {
            if (csv_path->empty()) {
                throw UsageError("--replot needs a results.csv");
            }
            options.replot_from.push_back(*csv_path);
            // Further files, up to the next option.
            while (i + 1 < parsed.rest.size() && std::string(parsed.rest[i + 1]).rfind("--", 0) != 0) {
                options.replot_from.push_back(parsed.rest[++i]);
            }
        } else if (const std::optional<std::string> device = value_of("--device")) {
            const bool digits =
                !device->empty() && device->size() <= 4 &&
                std::all_of(device->begin(), device->end(), [](char c) { return c >= '0' && c <= '9'; });
            if (!digits) {
                throw UsageError("--device takes a CUDA device number (0, 1, ...), got '" + *device + "'");
            }
            options.device = std::stoi(*device);
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

}  // namespace harness
