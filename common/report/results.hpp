// What one run of the report measured, and the figures derived from it, in
// one place: the terminal tables, the CSV and JSON files and the plot all
// read them from here, so they cannot disagree.
#pragma once

#include "kernel_resources.hpp"
#include "problem.hpp"
#include "timing.hpp"

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

namespace harness {

enum class RowKind {
    step,          // one of the workbook's steps
    cublas,        // cublasStrsmBatched as ggml calls it
    empty_kernel,  // the floor: a launch that does nothing
};

enum class RowStatus {
    measured,        // checked, then timed
    not_applicable,  // outside the step's limits: neither checked nor timed
    failed,          // its output failed the check (or it could not run): not timed
};

const char* kind_key(RowKind kind);        // "step", "cublas", "empty_kernel"
const char* status_key(RowStatus status);  // "ok", "n/a", "FAILED"

struct RowResult {
    std::string                    name;
    RowKind                        kind   = RowKind::step;
    RowStatus                      status = RowStatus::measured;
    std::string                    note;  // why n/a, what failed, or why a mode has no timing
    std::optional<double>          nmse;  // of the checked output, test-backend-ops' error metric
    std::optional<KernelResources> resources;
    std::optional<Timing>          back_to_back;
    std::optional<Timing>          graph_replay;

    const std::optional<Timing>& timing(TimingMode mode) const;
    std::optional<Timing>&       timing(TimingMode mode);
};

struct ShapeResult {
    std::string            id;     // a reference shape's id (reference_shapes.hpp), or "custom"
    std::string            title;  // "the PR's shape", as the tables name it
    Problem                problem;
    bool                   memory_bound  = false;  // beyond the L2 (l2_policy.hpp): % of copy bandwidth, the copy floor
    int                    rotation_sets = 1;      // input buffer sets the timed launches cycle through
    double                 rotation_bytes = 0.0;   // bytes of all those sets
    int                    sm_clock_mhz   = -1;    // read right after its timing (NVML; -1 where unknown)
    std::vector<RowResult> rows;                   // the steps in order, then cuBLAS, then the empty kernel
};

struct ReportRun {
    std::string              gpu;                           // describe(gpu())
    std::string              gpu_name;                      // the CSV's first column
    int                      sm_clock_mhz_after_copy = -1;  // NVML, read while the GPU is busy
    int                      sm_clock_mhz_at_end     = -1;
    int64_t                  l2_bytes                = 0;
    int                      sm_count                = 0;
    std::string              build;
    std::string              date;
    uint64_t                 seed  = 0;
    bool                     quick = false;
    std::string              rotation;  // how inputs were rotated, in words
    std::vector<TimingMode>  modes;
    TimingConfig             timing_config;
    CopyBandwidth            copy;
    std::vector<ShapeResult> shapes;

    int failures() const;  // rows with status failed, over all shapes
};

// The figures of one row in one mode; empty where they do not apply.
struct RowFigures {
    std::optional<double> us;               // median us per run
    std::optional<double> gib_per_s;        // test-backend-ops' GB/s: bytes(A + B + X) / time / 1024³
    std::optional<double> change_percent;   // against the previous step's row (steps only)
    std::optional<double> speedup;          // the first step's time over this row's (steps and cuBLAS)
    std::optional<double> percent_of_copy;  // bytes per second over the copy bandwidth (steps and cuBLAS)
};

RowFigures row_figures(const ShapeResult& shape, size_t row, TimingMode mode, const CopyBandwidth& copy);

// The checked and timed step with the smallest median in `mode` (an index
// into shape.rows), and the workbook's last step, timed in `mode` or not.
std::optional<size_t> fastest_step(const ShapeResult& shape, TimingMode mode);
std::optional<size_t> last_step(const ShapeResult& shape);

// The shapes of the run on the batch curve (reference_shapes.hpp), in order.
std::vector<const ShapeResult*> curve_points(const ReportRun& run);

// The time one run would take at the copy bandwidth: the memory floor, in us.
double copy_floor_us(const Problem& problem, const CopyBandwidth& copy);

// The PR's published change at its shape (test-backend-ops, baseline → PR),
// as its tables print it: us/run and GB/s.
struct PublishedChange {
    const char* gpu;
    double      baseline_us;
    double      pr_us;
    double      baseline_gb_per_s;
    double      pr_gb_per_s;
};
constexpr PublishedChange published_pr_changes[] = {{"RTX 4070 Ti (sm_89)", 7.14, 5.31, 20.29, 27.29},
                                                    {"RTX 2070 (sm_75)", 13.23, 11.00, 10.96, 13.18}};

// The same change measured here: the first step to each later step whose
// directory starts with one of `targets` ("03", "04", "05").
struct MeasuredChange {
    TimingMode  mode;
    std::string from, to;
    double      from_us = 0.0, to_us = 0.0;
    double      change_percent() const;
};

std::vector<MeasuredChange> measured_pr_changes(const ShapeResult& pr_shape, const std::vector<TimingMode>& modes,
                                                const std::vector<std::string>& targets = {"03", "04", "05"});

}  // namespace harness
