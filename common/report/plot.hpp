// The report's plot, composed from a run's results and drawn as SVG by
// svg_chart: us/run per step per shape, one panel per shape on a log scale.
#pragma once

#include "results.hpp"

#include <ostream>

namespace harness {

// One line per timing mode through the steps, cuBLAS as diamonds, the empty
// kernel's time as a floor in each mode and, for a memory-bound shape, the
// copy floor.
void write_plot(std::ostream& out, const ReportRun& run);

}  // namespace harness
