// The part of the PR's Nsight table that needs no profiler: what a step's
// kernel asks of an SM, read from the CUDA runtime for the launch the step
// plans.
#pragma once

#include "problem.hpp"

#include <cstdint>
#include <optional>

namespace harness {

struct KernelResources {
    int     registers_per_thread          = 0;
    int     static_shared_bytes           = 0;
    int     dynamic_shared_bytes          = 0;  // asked for at launch
    int     local_bytes                   = 0;  // per thread: register spills and local arrays
    int     threads_per_block             = 0;
    int     blocks_per_sm                 = 0;    // resident at once, by the occupancy API
    double  theoretical_occupancy_percent = 0.0;  // resident warps over the SM's maximum
    int64_t grid_blocks                   = 0;
    int     sm_count                      = 0;

    // Grid blocks over the blocks all SMs hold at once: below 1, part of the GPU idles.
    double waves() const;
};

// Asks cudaFuncGetAttributes and cudaOccupancyMaxActiveBlocksPerMultiprocessor
// about the launch the step plans for this (valid, non-empty) problem.
// Nothing for a step without a plan (cuBLAS launches kernels of its own).
std::optional<KernelResources> kernel_resources(const Step& step, const Problem& problem);

}  // namespace harness
