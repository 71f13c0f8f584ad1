// Reads back the results.json the report wrote, so that its plot can be
// redrawn from a saved run, with no GPU: `solve_tri_report --replot FILE`.
#pragma once

#include "report_results.hpp"

#include <istream>
#include <stdexcept>
#include <string>

namespace harness {

// A file that is not the report's JSON: says what is wrong and where.
struct ResultsFormatError : std::runtime_error {
    using std::runtime_error::runtime_error;
};

// The run as write_json wrote it: what the tables and the plot are drawn
// from. The figures write_json derives (GB/s, changes, waves) are derived
// again, not read; a shape's problem is taken as contiguous, as the report's
// shapes are. Throws ResultsFormatError.
ReportRun read_json(std::istream& in);

}  // namespace harness
