// The report's results file: every figure of a run as CSV, one line per
// shape, row and timing mode, and the same file read back (--replot draws the
// plot from it).
#pragma once

#include "results.hpp"

#include <istream>
#include <ostream>
#include <stdexcept>
#include <string>

namespace harness {

// A CSV field: quoted (with quotes doubled) when it holds a comma, a quote or a line break.
std::string csv_field(const std::string& text);

// One line per shape, row and timing mode (a row without timings gets one
// line, with its status), plus one line for the copy bandwidth. Every line
// carries the GPU, build and date, so files from several GPUs can be
// concatenated.
void write_csv(std::ostream& out, const ReportRun& run);

// A file that is not the report's CSV, or a line that does not parse.
class ResultsFormatError : public std::runtime_error {
public:
    using std::runtime_error::runtime_error;
};

// The run as far as the CSV holds it: environment, copy bandwidth, shapes and
// their rows with status, NMSE and timings (what the plot needs); kernel
// resources stay in the file.
ReportRun read_csv(std::istream& in);

}  // namespace harness
