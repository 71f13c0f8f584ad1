// The report's command line: what it takes, and what it refuses.
#pragma once

#include "l2_policy.hpp"
#include "options.hpp"
#include "timing.hpp"

#include <optional>
#include <string>
#include <vector>

namespace harness {

struct ReportOptions {
    Options                  shape;  // --n, --k, --ne2, --ne3, --seed
    std::vector<TimingMode>  modes = {TimingMode::back_to_back, TimingMode::graph_replay};
    std::vector<std::string> shape_ids;  // --shapes: the reference shapes to run; empty: all of them
    std::string              out_dir        = "report";
    bool                     quick          = false;
    Rotation                 rotation       = Rotation::automatic;
    bool                     check_gpu_only = false;
    bool                     help           = false;
    std::optional<int>       device;       // --device: the CUDA device to measure (default: device 0)
    std::vector<std::string> replot_from;  // --replot: results.csv files to draw, no GPU
};

// Throws UsageError for an unknown option or a bad value, with the reason.
ReportOptions parse_report_options(int argc, char** argv);

// The usage text, shape options included.
std::string report_usage();

}  // namespace harness
