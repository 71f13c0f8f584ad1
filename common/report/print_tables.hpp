// What the report prints on the terminal: per shape, the environment, the
// timing tables of each mode, the kernel resources; the PR side by side.
#pragma once

#include "kernel_resources.hpp"
#include "results.hpp"

#include <optional>
#include <ostream>
#include <string>
#include <vector>

namespace harness {

void print_copy_bandwidth(std::ostream& out, const CopyBandwidth& copy);

// A shape's section: environment, inputs, a table per mode, resources.
void print_shape(std::ostream& out, const ShapeResult& shape, const ReportRun& run);

// The PR's published change next to the one measured here (the PR's shape).
void print_pr_side_by_side(std::ostream& out, const ShapeResult& pr_shape, const ReportRun& run);

// The batch curve, a table per mode: at each point the fastest step, the
// last step against it, cuBLAS and the floors (the CSV holds every step).
void print_curve(std::ostream& out, const ReportRun& run);

struct ResourceRow {
    std::string                    name;
    std::optional<KernelResources> resources;
    std::string                    why_none;  // printed when there are no resources
};

void print_resources_table(std::ostream& out, const std::vector<ResourceRow>& rows);

}  // namespace harness
