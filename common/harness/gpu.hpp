// The GPU probe, and the facts about the GPU that go next to every timing.
#pragma once

#include <cuda_runtime_api.h>

#include <string>

namespace harness {

struct GpuInfo {
    bool        available = false;
    std::string reason;            // why not, when not available
    int         device       = 0;  // the CUDA device ordinal (CUDA_VISIBLE_DEVICES renumbers them)
    int         device_count = 0;  // CUDA devices visible to this process
    std::string name;
    int         cc_major = 0, cc_minor = 0;
    int         sm_count         = 0;
    int         max_sm_clock_mhz = 0;
    int         driver_version = 0, runtime_version = 0;  // as 13000 for 13.0
    int         l2_bytes           = 0;
    int         max_threads_per_sm = 0;
};

// The GPU measured: the current device when first asked (device 0 unless the
// program chose another with cudaSetDevice), or why there is none. Never
// throws: no GPU is an answer.
const GpuInfo& gpu();

// The same facts for one device ordinal (or why it cannot be used).
GpuInfo gpu_info(int device);

// The current device's SM clock now, in MHz, read through NVML (loaded at run
// time, so the workbook needs no NVML to build); -1 where NVML cannot say.
int current_sm_clock_mhz();

// "NVIDIA H200, sm_90, 132 SMs, max SM clock 1980 MHz, driver 13.0, runtime 13.0"
std::string describe(const GpuInfo& info);

// How the workbook was built: nvcc version, architectures, fast math.
const char* build_description();

// Today's date, YYYY-MM-DD, for stamping measurements.
std::string today();

// The stream every measurement and check runs on: one per device, made on
// the current device the first time it is asked for there.
cudaStream_t stream();

}  // namespace harness
