#include "gpu.hpp"

#include "cuda_check.hpp"

#include <dlfcn.h>

#include <atomic>
#include <ctime>
#include <mutex>
#include <sstream>
#include <stdexcept>

namespace harness {

namespace {

std::string version_text(const int version) {
    return std::to_string(version / 1000) + "." + std::to_string(version % 1000 / 10);
}

GpuInfo probe(const int device) {
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
    info.device       = device;
    info.device_count = count;
    if (device < 0 || device >= count) {
        info.reason = "no CUDA device " + std::to_string(device) + ": " + std::to_string(count) +
                      (count == 1 ? " device is" : " devices are") + " visible (0.." + std::to_string(count - 1) + ")";
        return info;
    }
    cudaDeviceProp prop{};
    CUDA_CHECK(cudaGetDeviceProperties(&prop, device));
    info.available = true;
    info.name      = prop.name;
    info.cc_major  = prop.major;
    info.cc_minor  = prop.minor;
    info.sm_count  = prop.multiProcessorCount;
    int clock_khz  = 0;
    CUDA_CHECK(cudaDeviceGetAttribute(&clock_khz, cudaDevAttrClockRate, device));
    info.max_sm_clock_mhz   = clock_khz / 1000;
    info.l2_bytes           = prop.l2CacheSize;
    info.max_threads_per_sm = prop.maxThreadsPerMultiProcessor;
    CUDA_CHECK(cudaDriverGetVersion(&info.driver_version));
    CUDA_CHECK(cudaRuntimeGetVersion(&info.runtime_version));
    return info;
}

// The device current now, or 0 where the runtime cannot say (no GPU: the probe then says why).
int current_device() {
    int device = 0;
    if (cudaGetDevice(&device) != cudaSuccess) {
        cudaGetLastError();
        return 0;
    }
    return device;
}

}  // namespace

const GpuInfo& gpu() {
    static const GpuInfo info = probe(current_device());
    return info;
}

GpuInfo gpu_info(const int device) {
    return probe(device);
}

int current_sm_clock_mhz() {
    // The few NVML entry points needed, declared by hand: nvml.h is not
    // needed to build, and a machine without the driver simply gets -1.
    // NVML numbers the GPUs its own way (CUDA_VISIBLE_DEVICES does not apply),
    // so the current device is found by its PCI bus id.
    using Init                       = int (*)();
    using ByPciBusId                 = int (*)(const char*, void**);
    using ClockInfo                  = int (*)(void*, int, unsigned*);
    constexpr int      nvml_clock_sm = 1;
    static void* const library       = dlopen("libnvidia-ml.so.1", RTLD_NOW | RTLD_LOCAL);
    if (library == nullptr) {
        return -1;
    }
    static const auto init       = reinterpret_cast<Init>(dlsym(library, "nvmlInit_v2"));
    static const auto by_bus_id  = reinterpret_cast<ByPciBusId>(dlsym(library, "nvmlDeviceGetHandleByPciBusId_v2"));
    static const auto clock_info = reinterpret_cast<ClockInfo>(dlsym(library, "nvmlDeviceGetClockInfo"));
    static const bool ready      = init != nullptr && by_bus_id != nullptr && clock_info != nullptr && init() == 0;
    char              bus_id[32] = {};
    void*             device     = nullptr;
    unsigned          mhz        = 0;
    if (!ready || cudaDeviceGetPCIBusId(bus_id, sizeof(bus_id), current_device()) != cudaSuccess) {
        cudaGetLastError();
        return -1;
    }
    if (by_bus_id(bus_id, &device) != 0 || clock_info(device, nvml_clock_sm, &mhz) != 0) {
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
    // Made once per device and then only read: a lock only while one is made.
    constexpr int                    max_devices = 64;
    static std::atomic<cudaStream_t> streams[max_devices];
    static std::mutex                making;
    const int                        device = current_device();
    if (device >= max_devices) {
        throw std::runtime_error("CUDA device " + std::to_string(device) + ": the harness keeps streams for " +
                                 std::to_string(max_devices) + " devices");
    }
    if (const cudaStream_t made = streams[device].load(std::memory_order_acquire)) {
        return made;
    }
    const std::lock_guard<std::mutex> held(making);
    if (streams[device].load(std::memory_order_relaxed) == nullptr) {
        cudaStream_t s = nullptr;
        CUDA_CHECK(cudaStreamCreateWithFlags(&s, cudaStreamNonBlocking));
        streams[device].store(s, std::memory_order_release);
    }
    return streams[device].load(std::memory_order_relaxed);
}

}  // namespace harness
