// The report's measurement loop: per shape, every solver is checked on
// test-backend-ops' inputs, then timed in every mode.
#pragma once

#include "report_options.hpp"
#include "results.hpp"

#include <string>
#include <vector>

namespace harness {

// A progress line on stderr: rewritten in place on a terminal, one line per
// update elsewhere.
class Progress {
public:
    explicit Progress(int total);
    void advance(const std::string& what);
    // Before printing a table on stdout: a terminal shows both streams on one screen.
    void clear();

private:
    int    total_;
    int    done_  = 0;
    size_t width_ = 0;
    bool   terminal_;
};

// A shape to measure: a reference shape, or the reader's own ("custom"). A
// shape of the reader's own whose CPU reference would take more than about a
// minute is refused (UsageError).
struct ShapeSpec {
    std::string id;
    std::string title;
    Problem     problem;
};

std::vector<ShapeSpec> shapes_to_run(const ReportOptions& options);

// Checks every solver on the shape (filling each row's status, NMSE and
// kernel resources), then times the ones that passed, and the empty kernel,
// in every mode of the run. `solvers` are the steps in order, then cuBLAS.
ShapeResult measure_shape(const ShapeSpec& spec, const std::vector<const Step*>& solvers, const ReportOptions& options,
                          const ReportRun& run, uint64_t seed, Progress& progress);

}  // namespace harness
