#include "report_resources.hpp"

#include "cuda_check.hpp"
#include "gpu.hpp"
#include "launch_recorder.hpp"

#include <algorithm>
#include <cstdio>

namespace harness {

double KernelResources::waves() const {
    const double resident = static_cast<double>(blocks_per_sm) * sm_count;
    return resident > 0.0 ? static_cast<double>(grid_blocks) / resident : 0.0;
}

std::optional<KernelResources> kernel_resources(const Step& step, const Problem& problem, const float* const A,
                                                const float* const B, float* const X) {
    LaunchRecord record;
    {
        const LaunchRecorder recorder;
        step.solve(A, B, X, problem, stream());
        if (!recorder.recorded()) {
            return std::nullopt;
        }
        record = recorder.record();
    }
    cudaFuncAttributes attributes{};
    CUDA_CHECK(cudaFuncGetAttributes(&attributes, record.kernel));
    KernelResources r;
    r.registers_per_thread = attributes.numRegs;
    r.static_shared_bytes  = static_cast<int>(attributes.sharedSizeBytes);
    r.dynamic_shared_bytes = static_cast<int>(record.dynamic_shared_bytes);
    r.local_bytes          = static_cast<int>(attributes.localSizeBytes);
    r.threads_per_block    = static_cast<int>(record.block.x * record.block.y * record.block.z);
    CUDA_CHECK(cudaOccupancyMaxActiveBlocksPerMultiprocessor(&r.blocks_per_sm, record.kernel, r.threads_per_block,
                                                             record.dynamic_shared_bytes));
    const GpuInfo& info            = gpu();
    const int      warps_per_block = (r.threads_per_block + 31) / 32;
    const int      max_warps       = info.max_threads_per_sm / 32;
    r.theoretical_occupancy_percent =
        max_warps > 0 ? 100.0 * r.blocks_per_sm * warps_per_block / max_warps : 0.0;
    r.grid_blocks = static_cast<int64_t>(record.grid.x) * record.grid.y * record.grid.z;
    r.sm_count    = info.sm_count;
    return r;
}

void print_resources_table(std::ostream& out, const std::vector<ResourceRow>& rows) {
    size_t name_width = 24;
    for (const ResourceRow& row : rows) {
        name_width = std::max(name_width, row.name.size());
    }
    const int name_w = static_cast<int>(name_width);
    char      line[512];
    std::snprintf(line, sizeof(line), "  %-*s %9s %12s %12s %10s %8s %10s %10s %16s %7s\n", name_w, "step",
                  "registers", "static smem", "dynamic smem", "local/thr", "threads", "blocks/SM", "occupancy",
                  "grid blocks", "waves");
    out << line;
    for (const ResourceRow& row : rows) {
        if (!row.resources) {
            std::snprintf(line, sizeof(line), "  %-*s %s\n", name_w, row.name.c_str(), row.why_none.c_str());
            out << line;
            continue;
        }
        const KernelResources& r = *row.resources;
        char                   occupancy[32], grid[48];
        std::snprintf(occupancy, sizeof(occupancy), "%.1f %%", r.theoretical_occupancy_percent);
        std::snprintf(grid, sizeof(grid), "%lld / %d SMs", static_cast<long long>(r.grid_blocks), r.sm_count);
        std::snprintf(line, sizeof(line), "  %-*s %9d %10d B %10d B %8d B %8d %10d %10s %16s %7.2f\n", name_w,
                      row.name.c_str(), r.registers_per_thread, r.static_shared_bytes, r.dynamic_shared_bytes,
                      r.local_bytes, r.threads_per_block, r.blocks_per_sm, occupancy, grid, r.waves());
        out << line;
    }
}

}  // namespace harness
