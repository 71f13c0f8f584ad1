// The steps the report runs: every step of steps/meson.build's step_names, in
// order. The list is generated at configure time (report_steps.cpp.in), so a
// new step joins the report without a change here.
#pragma once

#include "problem.hpp"

#include <vector>

namespace harness {

std::vector<const Step*> report_steps();

}  // namespace harness
