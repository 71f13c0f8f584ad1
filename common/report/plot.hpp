// The report's plot, composed from a run's results and drawn as SVG by
// svg_chart: us/run per step per shape, one panel per shape on a log scale.
#pragma once

#include "results.hpp"

#include <ostream>
#include <string>
#include <vector>

namespace harness {

// One line per timing mode through the steps, cuBLAS as diamonds, the empty
// kernel's time as a floor in each mode and, for a memory-bound shape, the
// copy floor.
void write_plot(std::ostream& out, const ReportRun& run);

// A saved run and the name it goes by in an overlay (its file's name).
struct LabelledRun {
    std::string label;
    ReportRun   run;
};

// Several runs (one per GPU, or runs to compare) in one plot: the shapes of
// any of them, one panel each; a colour per run, solid back to back and dashed
// in graph replay, cuBLAS as diamonds, and each run's floors in its colour.
void write_overlay_plot(std::ostream& out, const std::vector<LabelledRun>& runs);

}  // namespace harness
