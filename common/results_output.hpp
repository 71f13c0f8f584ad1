// The report's files: every figure as CSV and as JSON, and the plot as SVG.
#pragma once

#include "report_results.hpp"

#include <ostream>
#include <string>

namespace harness {

// A CSV field: quoted (with quotes doubled) when it holds a comma, a quote or a line break.
std::string csv_field(const std::string& text);

// A JSON string literal, quotes included.
std::string json_string(const std::string& text);

// A JSON number; null for NaN and infinity, which JSON cannot hold.
std::string json_number(double value);

// One line per shape, row and timing mode (a row without timings gets one
// line, with its status), plus one line for the copy bandwidth. Every line
// carries the GPU and date, so files from several GPUs can be concatenated.
void write_csv(std::ostream& out, const ReportRun& run);

// Everything: the environment, the copy bandwidth, every shape's rows with
// their resources and the figures of each mode, and the PR side by side.
void write_json(std::ostream& out, const ReportRun& run);

// us/run per step per shape, one panel per shape on a log scale: one line per
// timing mode through the steps, cuBLAS as diamonds, the empty kernel's time
// as a floor in each mode and, for a memory-bound shape, the copy floor.
void write_plot(std::ostream& out, const ReportRun& run);

}  // namespace harness
