// The floor of every timing table: a kernel that does nothing.
#pragma once

#include <cuda_runtime_api.h>

namespace harness {

// Launches an empty kernel (one block of one warp) on `stream`: timed like a
// step, it shows what a launch costs before any work is done.
void launch_empty_kernel(cudaStream_t stream);

}  // namespace harness
