#include "gpu.hpp"

#include "cuda_check.hpp"

#include <dlfcn.h>

#include <ctime>
#include <sstream>

namespace harness {

namespace {

std::string version_text(const int version) {
    return std::to_string(version / 1000) + "." + std::to_string(version % 1000 / 10);
}

GpuInfo probe() {
    GpuInfo           info;
    int               count  = 0;
    const cudaError_t status = cudaGetDeviceCount(&count);
    if (status != cudaSuccess) {
        info.reason = std::string("no usable CUDA GPU: cudaGetDeviceCount says ") + cudaGetErrorName(status) + " (" +
                      cudaGetErrorString(status) + ")";
        cudaGetLastError();  // clear it, so that it does not surface at the next check
        return info;
    }
    if (count == 0) {
        info.reason = "no CUDA GPU found";
        return info;
    }
    cudaDeviceProp prop{};
    CUDA_CHECK(cudaGetDeviceProperties(&prop, 0));
    info.available = true;
    info.name      = prop.name;
    info.cc_major  = prop.major;
    info.cc_minor  = prop.minor;
    info.sm_count  = prop.multiProcessorCount;
    int clock_khz  = 0;
    CUDA_CHECK(cudaDeviceGetAttribute(&clock_khz, cudaDevAttrClockRate, 0));
    info.max_sm_clock_mhz   = clock_khz / 1000;
    info.l2_bytes           = prop.l2CacheSize;
    info.max_threads_per_sm = prop.maxThreadsPerMultiProcessor;
    CUDA_CHECK(cudaDriverGetVersion(&info.driver_version));
    CUDA_CHECK(cudaRuntimeGetVersion(&info.runtime_version));
    return info;
}

}  // namespace

const GpuInfo& gpu() {
    static const GpuInfo info = probe();
    return info;
}

int current_sm_clock_mhz() {
    // The few NVML entry points needed, declared by hand: nvml.h is not
    // needed to build, and a machine without the driver simply gets -1.
    using Init                       = int (*)();
    using ByIndex                    = int (*)(unsigned, void**);
    using ClockInfo                  = int (*)(void*, int, unsigned*);
    constexpr int      nvml_clock_sm = 1;
    static void* const library       = dlopen("libnvidia-ml.so.1", RTLD_NOW | RTLD_LOCAL);
    if (library == nullptr) {
        return -1;
    }
    static const auto init       = reinterpret_cast<Init>(dlsym(library, "nvmlInit_v2"));
    static const auto by_index   = reinterpret_cast<ByIndex>(dlsym(library, "nvmlDeviceGetHandleByIndex_v2"));
    static const auto clock_info = reinterpret_cast<ClockInfo>(dlsym(library, "nvmlDeviceGetClockInfo"));
    static const bool ready      = init != nullptr && by_index != nullptr && clock_info != nullptr && init() == 0;
    void*             device     = nullptr;
    unsigned          mhz        = 0;
    if (!ready || by_index(0, &device) != 0 || clock_info(device, nvml_clock_sm, &mhz) != 0) {
        return -1;
    }
    return static_cast<int>(mhz);
}

std::string describe(const GpuInfo& info) {
    if (!info.available) {
        return info.reason;
    }
    std::ostringstream s;
    s << info.name << ", sm_" << info.cc_major << info.cc_minor << ", " << info.sm_count << " SMs, max SM clock "
      << info.max_sm_clock_mhz << " MHz, driver " << version_text(info.driver_version) << ", runtime "
      << version_text(info.runtime_version);
    return s.str();
}

const char* build_description() {
#ifdef SOLVE_TRI_BUILD_DESCRIPTION
    return SOLVE_TRI_BUILD_DESCRIPTION;
#else
    return "unknown build";
#endif
}

std::string today() {
    const std::time_t now = std::time(nullptr);
    std::tm           utc{};
    gmtime_r(&now, &utc);
    char text[16];
    std::strftime(text, sizeof(text), "%Y-%m-%d", &utc);
    return text;
}

cudaStream_t stream() {
    static const cudaStream_t created = [] {
        cudaStream_t s = nullptr;
        CUDA_CHECK(cudaStreamCreateWithFlags(&s, cudaStreamNonBlocking));
        return s;
    }();
    return created;
}

}  // namespace harness
