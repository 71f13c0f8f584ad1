// summary.md: one run of the report as a Markdown page to paste where the PR
// posted its tables (GitHub renders it): the GPU and build, the PR's own
// table layout measured here beside its published rows, and the real model's
// shape with the best step and cuBLAS.
#pragma once

#include "results.hpp"

#include <ostream>

namespace harness {

void write_summary(std::ostream& out, const ReportRun& run);

}  // namespace harness
