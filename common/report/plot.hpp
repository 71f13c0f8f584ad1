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

// The batch curve (reference_shapes.hpp), a panel per timing mode: us/run
// against the batch on log scales, a line per step (the last one in red),
// cuBLAS, the empty kernel and, where the data exceeds the L2, the copy
// floor; the fastest step's number at each point along the top. Draws
// nothing and returns false when the run has no point on the curve.
bool write_curve_plot(std::ostream& out, const ReportRun& run);

// A saved run and the name it goes by in an overlay (its file's name).
struct LabelledRun {
    std::string label;
    ReportRun   run;
};

// Several runs (one per GPU, or runs to compare) in one plot: the shapes of
// any of them, one panel each; a colour per run, solid back to back and dashed
// in graph replay, cuBLAS as diamonds, and each run's floors in its colour.
void write_overlay_plot(std::ostream& out, const std::vector<LabelledRun>& runs);

// The batch curves of several runs in one plot, a panel per timing mode: each
// run's last step (solid), cuBLAS (dashed) and copy floor (thin) in the run's
// colour. False, drawing nothing, when no run has a point on the curve.
bool write_overlay_curve_plot(std::ostream& out, const std::vector<LabelledRun>& runs);

}  // namespace harness
