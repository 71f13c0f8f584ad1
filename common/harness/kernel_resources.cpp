#include "kernel_resources.hpp"

#include "cuda_check.hpp"
#include "gpu.hpp"

namespace harness {

double KernelResources::waves() const {
    const double resident = static_cast<double>(blocks_per_sm) * sm_count;
    return resident > 0.0 ? static_cast<double>(grid_blocks) / resident : 0.0;
}

std::optional<KernelResources> kernel_resources(const Step& step, const Problem& problem) {
    if (step.plan == nullptr) {
        return std::nullopt;
    }
    const KernelLaunch record = step.plan(problem);
    cudaFuncAttributes attributes{};
    CUDA_CHECK(cudaFuncGetAttributes(&attributes, record.kernel));
    KernelResources r;
    r.registers_per_thread = attributes.numRegs;
    r.static_shared_bytes  = static_cast<int>(attributes.sharedSizeBytes);
    r.dynamic_shared_bytes = static_cast<int>(record.shared_bytes);
    r.local_bytes          = static_cast<int>(attributes.localSizeBytes);
    r.threads_per_block    = static_cast<int>(record.block.x * record.block.y * record.block.z);
    CUDA_CHECK(cudaOccupancyMaxActiveBlocksPerMultiprocessor(&r.blocks_per_sm, record.kernel, r.threads_per_block,
                                                             record.shared_bytes));
    const GpuInfo& info             = gpu();
    const int      warps_per_block  = (r.threads_per_block + 31) / 32;
    const int      max_warps        = info.max_threads_per_sm / 32;
    r.theoretical_occupancy_percent = max_warps > 0 ? 100.0 * r.blocks_per_sm * warps_per_block / max_warps : 0.0;
    r.grid_blocks                   = static_cast<int64_t>(record.grid.x) * record.grid.y * record.grid.z;
    r.sm_count                      = info.sm_count;
    return r;
}

}  // namespace harness
