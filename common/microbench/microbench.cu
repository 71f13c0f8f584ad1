// solve_tri_microbench: the numbers a simple cost model of the batched
// triangular-solve kernels needs, measured on device 0 and printed as one table.
//
//   nvcc -std=c++17 -O3 -arch=sm_90 -lineinfo -o solve_tri_microbench microbench.cu
//
// Latencies come from one warp running a chain of dependent instructions
// between two clock64() reads: cycles per link = clock delta / links, nothing
// subtracted. Throughputs come from 32 warps on every SM running independent
// instructions. Cycles are SM cycles; ns use the SM clock measured in this run
// (clock64 delta over globaltimer delta). Without a CUDA GPU: exit status 77.
#include <cuda_runtime.h>

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <ctime>
#include <limits>
#include <map>
#include <memory>
#include <numeric>
#include <random>
#include <stdexcept>
#include <string>
#include <type_traits>
#include <vector>

// Every CUDA call goes through CHECK: a failure throws with the call, the place and CUDA's reason.
#define CHECK(call)                                                                                                   \
    do {                                                                                                              \
        const cudaError_t check_status = (call);                                                                      \
        if (check_status != cudaSuccess) {                                                                            \
            throw std::runtime_error(std::string(#call) + " failed at " + __FILE__ + ":" + std::to_string(__LINE__) + \
                                     ": " + cudaGetErrorString(check_status));                                        \
        }                                                                                                             \
    } while (false)

// A bad launch configuration shows at once; a fault inside a kernel shows at
// the next synchronization, which is itself checked.
#define CHECK_LAUNCH() CHECK(cudaGetLastError())

namespace {

constexpr int kWarpSize        = 32;
constexpr int kSkipExitStatus  = 77;  // what test harnesses read as "skipped"
constexpr int kUsageExitStatus = 2;

// Latency chains.
constexpr int kChainLinks          = 4096;  // long enough that the two clock reads around it do not matter
constexpr int kChainUnroll         = 32;    // links per loop trip; the loop counter runs beside the chain, off its path
constexpr int kLatencyRepeats      = 7;     // the median drops the first, cold (instruction cache) repeat
constexpr int kQuickLatencyRepeats = 3;
constexpr int kScratchBytes        = 4096;  // shared memory that the shared-memory chains walk
constexpr int kScratchVectors      = kScratchBytes / static_cast<int>(sizeof(uint4));
constexpr int kSharedChaseRows     = kScratchBytes / (kWarpSize * static_cast<int>(sizeof(uint32_t)));
constexpr int kSharedVectorChaseEntries = 64;  // 1 KiB of 16-byte entries, read by all lanes at once

// Pointer chases through global memory.
constexpr size_t   kMiB                     = size_t{1} << 20;
constexpr size_t   kL2ChaseBytes            = 8 * kMiB;     // far inside a 50-60 MB L2
constexpr size_t   kL2ChaseStride           = 128;          // one L2 line per node: no two loads share a line
constexpr size_t   kDramChaseBytes          = 2048 * kMiB;  // ~35x the L2: every node is a line never loaded before
constexpr size_t   kDramChaseStride         = 4096;         // one node per 4 KiB: no two share an L2 line or a DRAM row
constexpr size_t   kGpuPageBytes            = 2 * kMiB;     // cudaMalloc's large page: one TLB entry covers it
constexpr size_t   kDramMemoryMargin        = 256 * kMiB;   // left free for the context and the other buffers
constexpr int      kL2LoadsPerRepeat        = 4096;
constexpr int      kDramLoadsPerRepeat      = 2048;
constexpr int      kQuickDramLoadsPerRepeat = 1024;
constexpr int      kDramWarmupLoads         = 32;  // brings the kernel's code in; each touches a fresh node
constexpr int      kChaseUnroll             = 8;
constexpr uint64_t kRandomSeed              = 20240601;  // fixed, so every run walks the same permutation
constexpr int      kL2EvictionFactor        = 4;         // an eviction buffer this many times the L2 clears it
constexpr int      kFillThreads             = 256;       // grid-stride loops that write the buffers
constexpr uint32_t kFillBlocks              = 4096;

// Throughput kernels.
constexpr int kThroughputWarps               = 32;  // per SM: enough warps to hide every latency above
constexpr int kThroughputThreads             = kThroughputWarps * kWarpSize;
constexpr int kThroughputChains              = 8;   // independent values per thread
constexpr int kThroughputUnroll              = 16;  // keeps the loop's own instructions under 2 % of the issue slots
constexpr int kThroughputInstructionsPerWarp = 65536;
constexpr int kThroughputRepeats             = 3;
constexpr int kQuickThroughputRepeats        = 1;

// Launch overhead.
constexpr int kLaunchSamples         = 21;
constexpr int kQuickLaunchSamples    = 7;
constexpr int kLaunchesPerSample     = 2000;
constexpr int kLaunchWarmup          = 1000;
constexpr int kLaunchesPerGraph      = 1000;
constexpr int kGraphReplaysPerSample = kLaunchesPerSample / kLaunchesPerGraph;

// SM clock.
constexpr unsigned long long kClockWarmupNs  = 50'000'000;  // lets the GPU leave its idle clock first
constexpr unsigned long long kClockMeasureNs = 100'000'000;

static_assert(kChainLinks % kChainUnroll == 0, "a chain is whole loop trips");
static_assert(kL2LoadsPerRepeat % kChaseUnroll == 0 && kDramLoadsPerRepeat % kChaseUnroll == 0 &&
                  kQuickDramLoadsPerRepeat % kChaseUnroll == 0,
              "a chase is whole loop trips");
static_assert(kLaunchesPerSample % kLaunchesPerGraph == 0, "a sample is whole graph replays");

// Values the chains compute with. They come from the host, so the compiler
// cannot fold them, and they keep every chain's values finite and steady.
struct ChainInputs {
    float zero;      // 0
    float half;      // 0.5: y = 0.5 y + 0.5 converges to 1
    float one;       // 1
    float rcp_seed;  // 1.5: alternates with 1/1.5
};

struct BlockTiming {
    long long    start_cycle;
    long long    stop_cycle;
    unsigned int sm_id;
};

struct ClockSample {
    long long          cycles;
    unsigned long long nanoseconds;
};

// ---------------------------------------------------------------- device side

__device__ __forceinline__ uint32_t shared_address(const void* pointer) {
    return static_cast<uint32_t>(__cvta_generic_to_shared(pointer));
}

__device__ __forceinline__ unsigned long long global_timer_ns() {
    unsigned long long nanoseconds;
    asm volatile("mov.u64 %0, %%globaltimer;" : "=l"(nanoseconds));
    return nanoseconds;
}

__device__ __forceinline__ unsigned int sm_id() {
    unsigned int id;
    asm volatile("mov.u32 %0, %%smid;" : "=r"(id));
    return id;
}

// In the shuffles below, 0x1f is the lane clamp of a full-width shuffle and
// 0xffffffff the member mask: all 32 lanes take part (the block is converged).
__device__ __forceinline__ float shfl_idx(const float value, const int source_lane) {
    float result;
    asm volatile("shfl.sync.idx.b32 %0, %1, %2, 0x1f, 0xffffffff;" : "=f"(result) : "f"(value), "r"(source_lane));
    return result;
}
// One level of __shfl_xor_sync + add, as the steps' warp_reduce_sum does it.
template <int kLaneMask>
__device__ __forceinline__ float butterfly_level(const float value) {
    float partner;
    asm volatile("shfl.sync.bfly.b32 %0, %1, %2, 0x1f, 0xffffffff;" : "=f"(partner) : "f"(value), "n"(kLaneMask));
    float sum;
    asm volatile("add.f32 %0, %1, %2;" : "=f"(sum) : "f"(value), "f"(partner));
    return sum;
}

// The single-instruction operations, measured twice: as one dependent chain
// (latency) and as kThroughputChains independent chains per thread
// (throughput). Written as PTX so that the compiler emits exactly that
// instruction; start() is where chain c begins, chosen so values stay finite.
struct Ffma {  // y = 0.5 y + 0.5 converges to 1
    __device__ static float start(const ChainInputs& in, const int c) { return in.one * c; }
    __device__ static void  apply(float& y, const ChainInputs& in) {
         asm volatile("fma.rn.f32 %0, %0, %1, %1;" : "+f"(y) : "f"(in.half));
    }
};
struct Fmul {  // y = y * 1
    __device__ static float start(const ChainInputs& in, const int c) { return in.half * c; }
    __device__ static void  apply(float& y, const ChainInputs& in) {
         asm volatile("mul.rn.f32 %0, %0, %1;" : "+f"(y) : "f"(in.one));
    }
};
// .ftz: a bare MUFU.RCP, without the denormal fix-up around it. Each link adds
// a run-time zero after the reciprocal: ptxas folds rcp(rcp(y)) into y, and
// would remove a chain of bare reciprocals. A link is then MUFU.RCP + FADD.
struct Rcp {
    __device__ static float start(const ChainInputs& in, const int c) { return in.rcp_seed + c; }
    __device__ static void  apply(float& y, const ChainInputs& in) {
         asm volatile("rcp.approx.ftz.f32 %0, %0;" : "+f"(y));
         asm volatile("add.f32 %0, %0, %1;" : "+f"(y) : "f"(in.zero));
    }
};
struct Shfl {  // every lane takes the value of the next lane
    __device__ static float start(const ChainInputs& in, const int c) { return in.one * (threadIdx.x + c); }
    __device__ static void  apply(float& y, const ChainInputs&) { y = shfl_idx(y, (threadIdx.x + 1) % kWarpSize); }
};

// Throughput loads are volatile: they read the same addresses every loop trip,
// and a plain load could be hoisted out of the loop by ptxas.
__device__ __forceinline__ uint32_t lds_volatile_u32(const uint32_t address) {
    uint32_t value;
    asm volatile("ld.volatile.shared.u32 %0, [%1];" : "=r"(value) : "r"(address));
    return value;
}
__device__ __forceinline__ uint4 lds_volatile_v4(const uint32_t address) {
    uint4 value;
    asm volatile("ld.volatile.shared.v4.u32 {%0, %1, %2, %3}, [%4];"
                 : "=r"(value.x), "=r"(value.y), "=r"(value.z), "=r"(value.w)
                 : "r"(address));
    return value;
}
__device__ __forceinline__ void sts_volatile_u32(const uint32_t address, const uint32_t value) {
    asm volatile("st.volatile.shared.u32 [%0], %1;" ::"r"(address), "r"(value) : "memory");
}
// .cg caches in L2 only, so a chase measures L2 (or DRAM), never L1.
__device__ __forceinline__ uint64_t load_global_cg(const uint64_t address) {
    uint64_t next;
    asm volatile("ld.global.cg.u64 %0, [%1];" : "=l"(next) : "l"(address));
    return next;
}

// The latency chains. Each keeps a state, link(j) makes one link that needs
// the previous link's result, result() folds the state into a float that the
// kernel stores so that no link is dead code.
template <typename Op>
struct OpChain {
    __device__        OpChain(const ChainInputs& in, uint4*) : inputs(in), y(Op::start(in, 1)) {}
    __device__ void   link(int) { Op::apply(y, inputs); }
    __device__ float  result() const { return y; }
    const ChainInputs inputs;
    float             y;
};

// One row of right-looking substitution: the pivot lane broadcasts its value,
// every lane folds it into its own; the next broadcast reads that update.
// y starts different in every lane: ptxas knows that a shuffle of a value the
// same in every lane returns that value, and would drop it. The coefficient,
// a run-time zero, keeps y where it started.
struct ShflFfmaChain {
    __device__      ShflFfmaChain(const ChainInputs& in, uint4*) : coefficient(in.zero), y(in.one * threadIdx.x) {}
    __device__ void link(const int pivot_lane) {
        const float pivot_value = shfl_idx(y, pivot_lane);
        asm volatile("fma.rn.f32 %0, %1, %2, %0;" : "+f"(y) : "f"(coefficient), "f"(pivot_value));
    }
    __device__ float result() const { return y; }
    const float      coefficient;
    float            y;
};

// Each reduction reduces the previous one's sum. v starts different in every
// lane (a run-time zero times the lane), so that ptxas cannot know the shuffled
// values alike and drop the shuffles; the sum stays 0.
struct ButterflyChain {
    __device__      ButterflyChain(const ChainInputs& in, uint4*) : v(in.zero * threadIdx.x) {}
    __device__ void link(int) {
        v = butterfly_level<1>(butterfly_level<2>(butterfly_level<4>(butterfly_level<8>(butterfly_level<16>(v)))));
    }
    __device__ float result() const { return v; }
    float            v;
};

// Each word holds the shared address of the next word to read; lane l stays
// in column l, its own bank, so the warp's 32 loads never conflict.
struct Lds32Chain {
    __device__ Lds32Chain(const ChainInputs&, uint4* scratch) {
        uint32_t* const words = reinterpret_cast<uint32_t*>(scratch);
        const uint32_t  base  = shared_address(words);
        const int       lane  = threadIdx.x;
        for (int row = 0; row < kSharedChaseRows; ++row) {
            const int next_row            = (row + 1) % kSharedChaseRows;
            words[row * kWarpSize + lane] = base + (next_row * kWarpSize + lane) * sizeof(uint32_t);
        }
        __syncthreads();
        address = base + lane * sizeof(uint32_t);
    }
    __device__ void  link(int) { asm volatile("ld.shared.u32 %0, [%0];" : "+r"(address)); }
    __device__ float result() const { return __uint_as_float(address); }
    uint32_t         address;
};

// A 16-byte entry's .x is the next entry's address; all lanes read the same
// entry (a broadcast). The other three words are folded in beside the chain
// so that the load stays 128 bits wide.
struct Lds128Chain {
    __device__ Lds128Chain(const ChainInputs&, uint4* scratch) {
        const uint32_t base = shared_address(scratch);
        for (int entry = threadIdx.x; entry < kSharedVectorChaseEntries; entry += kWarpSize) {
            const int next_entry = (entry + 1) % kSharedVectorChaseEntries;
            scratch[entry]       = make_uint4(base + next_entry * sizeof(uint4), 0, 0, 0);
        }
        __syncthreads();
        address = base;
    }
    __device__ void link(int) {
        uint32_t next, y, z, w;
        asm volatile("ld.shared.v4.u32 {%0, %1, %2, %3}, [%4];" : "=r"(next), "=r"(y), "=r"(z), "=r"(w) : "r"(address));
        address = next;
        side ^= y ^ z ^ w;
    }
    __device__ float result() const { return __uint_as_float(address ^ side); }
    uint32_t         address;
    uint32_t         side = 0;
};

// One warp, nothing else on the GPU: per repeat, the clock delta of kChainLinks links.
template <typename Chain>
__global__ void latency_kernel(const ChainInputs inputs, const int repeats, long long* cycles_per_repeat, float* sink) {
    __shared__ uint4 scratch[kScratchVectors];
    Chain            chain(inputs, scratch);
    for (int repeat = 0; repeat < repeats; ++repeat) {
        const long long start = clock64();
#pragma unroll 1
        for (int trip = 0; trip < kChainLinks / kChainUnroll; ++trip) {
#pragma unroll
            for (int j = 0; j < kChainUnroll; ++j) {
                chain.link(j);
            }
        }
        const long long stop = clock64();
        if (threadIdx.x == 0) {
            cycles_per_repeat[repeat] = stop - start;
        }
    }
    sink[threadIdx.x] = chain.result();
}

// Each node's first 8 bytes hold the address of the node after it in the cycle.
__global__ void write_chase_links(unsigned char* buffer, const uint32_t* next_node, const uint32_t node_count,
                                  const size_t node_stride) {
    for (size_t node = blockIdx.x * size_t{blockDim.x} + threadIdx.x; node < node_count;
         node += size_t{gridDim.x} * blockDim.x) {
        *reinterpret_cast<uint64_t*>(buffer + node * node_stride) =
            reinterpret_cast<uint64_t>(buffer + next_node[node] * node_stride);
    }
}

// Reads and rewrites every word of a buffer several times the size of the L2,
// so that the nodes write_chase_links has just written (and left in L2) are
// evicted before a chase that is meant to miss L2.
__global__ void evict_l2(uint32_t* words, const size_t count) {
    for (size_t i = blockIdx.x * size_t{blockDim.x} + threadIdx.x; i < count; i += size_t{gridDim.x} * blockDim.x) {
        words[i] += 1;
    }
}

__global__ void global_chase_kernel(const uint64_t start_address, const int warmup_loads, const int loads_per_repeat,
                                    const int repeats, long long* cycles_per_repeat, uint64_t* sink) {
    uint64_t address = start_address;
#pragma unroll 1
    for (int i = 0; i < warmup_loads; ++i) {
        address = load_global_cg(address);
    }
    for (int repeat = 0; repeat < repeats; ++repeat) {
        const long long start = clock64();
#pragma unroll 1
        for (int trip = 0; trip < loads_per_repeat / kChaseUnroll; ++trip) {
#pragma unroll
            for (int j = 0; j < kChaseUnroll; ++j) {
                address = load_global_cg(address);
            }
        }
        const long long stop = clock64();
        if (threadIdx.x == 0) {
            cycles_per_repeat[repeat] = stop - start;
        }
    }
    sink[threadIdx.x] = address;
}

// The throughput work: run() issues kCountedPerIteration counted
// warp-instructions per loop trip, independent of each other.
template <typename Op>
struct IndependentChains {
    static constexpr int    kCountedPerIteration = kThroughputChains * kThroughputUnroll;
    __device__ static float run(const int iterations, const uint4*, const ChainInputs& in) {
        float y[kThroughputChains];
        for (int c = 0; c < kThroughputChains; ++c)
            y[c] = Op::start(in, c);
#pragma unroll 1
        for (int it = 0; it < iterations; ++it) {
#pragma unroll
            for (int u = 0; u < kThroughputUnroll; ++u) {
#pragma unroll
                for (int c = 0; c < kThroughputChains; ++c)
                    Op::apply(y[c], in);
            }
        }
        float total = 0.0f;
        for (int c = 0; c < kThroughputChains; ++c)
            total += y[c];
        return total;
    }
};

// Lane l reads word l of a 128-byte row: 32 banks, one wavefront per load.
struct Lds32Throughput {
    static constexpr int    kRowBytes            = kWarpSize * sizeof(uint32_t);
    static constexpr int    kCountedPerIteration = kThroughputUnroll;
    __device__ static float run(const int iterations, const uint4* scratch, const ChainInputs&) {
        const uint32_t lane_address = shared_address(scratch) + (threadIdx.x % kWarpSize) * sizeof(uint32_t);
        uint32_t       total        = 0;
#pragma unroll 1
        for (int it = 0; it < iterations; ++it) {
#pragma unroll
            for (int u = 0; u < kThroughputUnroll; ++u)
                total += lds_volatile_u32(lane_address + u * kRowBytes);
        }
        return __uint_as_float(total);
    }
};

// Lane l writes word l of a 128-byte row: 32 banks, one wavefront per store.
// The stored value changes every trip, so that no store is redundant.
struct Sts32Throughput {
    static constexpr int    kRowBytes            = kWarpSize * sizeof(uint32_t);
    static constexpr int    kCountedPerIteration = kThroughputUnroll;
    __device__ static float run(const int iterations, const uint4* scratch, const ChainInputs&) {
        const uint32_t lane_address = shared_address(scratch) + (threadIdx.x % kWarpSize) * sizeof(uint32_t);
#pragma unroll 1
        for (int it = 0; it < iterations; ++it) {
#pragma unroll
            for (int u = 0; u < kThroughputUnroll; ++u)
                sts_volatile_u32(lane_address + u * kRowBytes, it + u);
        }
        return 0.0f;
    }
};

// Two kinds of instruction, interleaved and independent: per trip
// kThroughputUnroll of Lds32Throughput's loads and as many shuffles or stores.
// If the two share one pipe the pair's rate is that pipe's; if not, it adds up.
template <bool kWithShuffles>
struct LdsMixedThroughput {
    static constexpr int    kRowBytes            = kWarpSize * sizeof(uint32_t);
    static constexpr int    kCountedPerIteration = 2 * kThroughputUnroll;
    __device__ static float run(const int iterations, const uint4* scratch, const ChainInputs& in) {
        const uint32_t lane_address = shared_address(scratch) + (threadIdx.x % kWarpSize) * sizeof(uint32_t);
        const uint32_t store_base   = lane_address + kThroughputUnroll * kRowBytes;  // other rows than the loads'
        uint32_t       total        = 0;
        float          y[kThroughputUnroll];
        for (int u = 0; u < kThroughputUnroll; ++u)
            y[u] = Shfl::start(in, u);
#pragma unroll 1
        for (int it = 0; it < iterations; ++it) {
#pragma unroll
            for (int u = 0; u < kThroughputUnroll; ++u) {
                total += lds_volatile_u32(lane_address + u * kRowBytes);
                if (kWithShuffles) {
                    Shfl::apply(y[u], in);
                } else {
                    sts_volatile_u32(store_base + u * kRowBytes, it + u);
                }
            }
        }
        float shuffled = 0.0f;
        for (int u = 0; u < kThroughputUnroll; ++u)
            shuffled += y[u];
        return __uint_as_float(total) + shuffled;
    }
};

// 16-byte loads; lane l reads at row * kRowBytes + l * kLaneStrideBytes.
// Every component is used, so that the load stays 128 bits wide.
template <int kLaneStrideBytes, int kRowBytes, int kRows>
struct Lds128Throughput {
    static constexpr int kCountedPerIteration = kRows;
    static_assert(kRows * kRowBytes <= kScratchBytes, "the rows fit in the scratch array");
    __device__ static float run(const int iterations, const uint4* scratch, const ChainInputs&) {
        const uint32_t lane_address = shared_address(scratch) + (threadIdx.x % kWarpSize) * kLaneStrideBytes;
        uint32_t       total_xy = 0, total_zw = 0;
#pragma unroll 1
        for (int it = 0; it < iterations; ++it) {
#pragma unroll
            for (int row = 0; row < kRows; ++row) {
                const uint4 v = lds_volatile_v4(lane_address + row * kRowBytes);
                total_xy ^= v.x ^ v.y;
                total_zw ^= v.z ^ v.w;
            }
        }
        return __uint_as_float(total_xy + total_zw);
    }
};
constexpr int kVectorBytes = sizeof(uint4);
// All lanes read the same 16 bytes: what a warp does when every lane needs the same entries of A.
using Lds128Broadcast = Lds128Throughput<0, kVectorBytes, kThroughputUnroll>;
// Each lane reads its own 16 bytes of a 512-byte row: conflict-free, four wavefronts per load.
constexpr int kVectorRowBytes = kWarpSize * kVectorBytes;
using Lds128PerLane           = Lds128Throughput<kVectorBytes, kVectorRowBytes, kScratchBytes / kVectorRowBytes>;

template <typename Work>
__global__ void __launch_bounds__(kThroughputThreads)
    throughput_kernel(const ChainInputs inputs, const int iterations, BlockTiming* timings, float* sink) {
    __shared__ uint4 scratch[kScratchVectors];
    for (int i = threadIdx.x; i < kScratchVectors; i += blockDim.x) {
        scratch[i] = make_uint4(i, i + 1, i + 2, i + 3);
    }
    __syncthreads();
    const long long start  = clock64();
    const float     result = Work::run(iterations, scratch, inputs);
    __syncthreads();
    const long long stop = clock64();
    if (threadIdx.x == 0) {
        timings[blockIdx.x] = BlockTiming{start, stop, sm_id()};
    }
    sink[blockIdx.x * blockDim.x + threadIdx.x] = result;
}

__global__ void sm_clock_kernel(const unsigned long long busy_ns, ClockSample* sample) {
    const unsigned long long start_ns    = global_timer_ns();
    const long long          start_cycle = clock64();
    unsigned long long       now_ns      = start_ns;
    while (now_ns - start_ns < busy_ns) {
        now_ns = global_timer_ns();
    }
    const long long stop_cycle = clock64();
    if (threadIdx.x == 0) {
        *sample = ClockSample{stop_cycle - start_cycle, now_ns - start_ns};
    }
}

__global__ void empty_kernel() {}

// ------------------------------------------------------------------ host side

struct CudaFree {
    void operator()(void* pointer) const noexcept { cudaFree(pointer); }  // a destructor cannot throw
};

template <typename T>
class DeviceArray {
public:
    explicit DeviceArray(const size_t count) : count_(count) {
        void* raw = nullptr;
        CHECK(cudaMalloc(&raw, count * sizeof(T)));
        memory_.reset(raw);
    }
    T*             data() const { return static_cast<T*>(memory_.get()); }
    std::vector<T> to_host() const {
        std::vector<T> host(count_);
        CHECK(cudaMemcpy(host.data(), data(), count_ * sizeof(T), cudaMemcpyDeviceToHost));
        return host;
    }

private:
    size_t                          count_;
    std::unique_ptr<void, CudaFree> memory_;
};

// Owners of CUDA handles: each destroys its handle when it goes out of scope.
template <typename Handle, cudaError_t (*kDestroy)(Handle)>
struct CudaDestroy {
    void operator()(Handle handle) const noexcept { kDestroy(handle); }
};
template <typename Handle, cudaError_t (*kDestroy)(Handle)>
using Unique          = std::unique_ptr<std::remove_pointer_t<Handle>, CudaDestroy<Handle, kDestroy>>;
using UniqueStream    = Unique<cudaStream_t, cudaStreamDestroy>;
using UniqueEvent     = Unique<cudaEvent_t, cudaEventDestroy>;
using UniqueGraph     = Unique<cudaGraph_t, cudaGraphDestroy>;
using UniqueGraphExec = Unique<cudaGraphExec_t, cudaGraphExecDestroy>;

UniqueEvent make_event() {
    cudaEvent_t event = nullptr;
    CHECK(cudaEventCreate(&event));
    return UniqueEvent(event);
}

template <typename T>
double median(const std::vector<T>& values) {
    std::vector<double> sorted(values.begin(), values.end());
    std::sort(sorted.begin(), sorted.end());
    const size_t middle = sorted.size() / 2;
    return sorted.size() % 2 == 1 ? sorted[middle] : 0.5 * (sorted[middle - 1] + sorted[middle]);
}

double measure_sm_clock_mhz(const unsigned long long busy_ns) {
    DeviceArray<ClockSample> sample(1);
    sm_clock_kernel<<<1, kWarpSize>>>(busy_ns, sample.data());
    CHECK_LAUNCH();
    CHECK(cudaDeviceSynchronize());
    const ClockSample host = sample.to_host().front();
    return 1e3 * static_cast<double>(host.cycles) / static_cast<double>(host.nanoseconds);
}

template <typename Chain>
double chain_cycles_per_link(const ChainInputs& inputs, const int repeats, float* sink) {
    DeviceArray<long long> cycles(repeats);
    latency_kernel<Chain><<<1, kWarpSize>>>(inputs, repeats, cycles.data(), sink);
    CHECK_LAUNCH();
    CHECK(cudaDeviceSynchronize());
    return median(cycles.to_host()) / kChainLinks;
}

// Node order of one walk through all nodes. Random, so no prefetcher or row
// buffer helps; nodes_per_page > 1 keeps all nodes of one 2 MiB page together
// (in random order, pages in random order), so a walk misses the TLB only once per page.
std::vector<uint32_t> chase_order(const uint32_t node_count, const uint32_t nodes_per_page, std::mt19937_64& rng) {
    const uint32_t        page_count = node_count / nodes_per_page;
    std::vector<uint32_t> pages(page_count);
    std::iota(pages.begin(), pages.end(), 0u);
    std::shuffle(pages.begin(), pages.end(), rng);
    std::vector<uint32_t> order;
    order.reserve(node_count);
    for (const uint32_t page : pages) {
        const size_t first = order.size();
        for (uint32_t node = 0; node < nodes_per_page; ++node)
            order.push_back(page * nodes_per_page + node);
        std::shuffle(order.begin() + first, order.end(), rng);
    }
    return order;
}

// Links the nodes of `buffer` into one cycle in `order`; returns the first node's address.
uint64_t link_chase(unsigned char* buffer, const size_t node_stride, const std::vector<uint32_t>& order) {
    const uint32_t        node_count = static_cast<uint32_t>(order.size());
    std::vector<uint32_t> next_node(node_count);
    for (uint32_t i = 0; i < node_count; ++i)
        next_node[order[i]] = order[(i + 1) % node_count];
    DeviceArray<uint32_t> device_next(node_count);
    CHECK(cudaMemcpy(device_next.data(), next_node.data(), node_count * sizeof(uint32_t), cudaMemcpyHostToDevice));
    const uint32_t blocks_needed = (node_count + kFillThreads - 1) / kFillThreads;
    const int      blocks        = static_cast<int>(std::min(blocks_needed, kFillBlocks));
    write_chase_links<<<blocks, kFillThreads>>>(buffer, device_next.data(), node_count, node_stride);
    CHECK_LAUNCH();
    CHECK(cudaDeviceSynchronize());
    return reinterpret_cast<uint64_t>(buffer + size_t{order.front()} * node_stride);
}

void evict_l2_contents(const DeviceArray<uint32_t>& eviction_buffer, const size_t word_count) {
    evict_l2<<<kFillBlocks, kFillThreads>>>(eviction_buffer.data(), word_count);
    CHECK_LAUNCH();
    CHECK(cudaDeviceSynchronize());
}

double chase_cycles_per_load(const uint64_t start_address, const int warmup_loads, const int loads_per_repeat,
                             const int repeats) {
    DeviceArray<long long> cycles(repeats);
    DeviceArray<uint64_t>  sink(kWarpSize);
    global_chase_kernel<<<1, kWarpSize>>>(start_address, warmup_loads, loads_per_repeat, repeats, cycles.data(),
                                          sink.data());
    CHECK_LAUNCH();
    CHECK(cudaDeviceSynchronize());
    return median(cycles.to_host()) / loads_per_repeat;
}

// Warp-instructions per SM cycle: per SM, all counted instructions of its
// blocks over the span from its first block's start to its last block's stop
// (right even if two blocks share an SM); the median over SMs; the best repeat.
template <typename Work>
double throughput_per_sm(const ChainInputs& inputs, const int sm_count, const int repeats, float* sink) {
    const int    iterations        = kThroughputInstructionsPerWarp / Work::kCountedPerIteration;
    const double counted_per_block = static_cast<double>(kThroughputWarps) * iterations * Work::kCountedPerIteration;
    DeviceArray<BlockTiming> timings(sm_count);
    double                   best = 0.0;
    for (int repeat = 0; repeat < repeats; ++repeat) {
        throughput_kernel<Work><<<sm_count, kThroughputThreads>>>(inputs, iterations, timings.data(), sink);
        CHECK_LAUNCH();
        CHECK(cudaDeviceSynchronize());
        struct Span {
            long long first = 0, last = 0;
            int       blocks = 0;
        };
        std::map<unsigned int, Span> spans;
        for (const BlockTiming& t : timings.to_host()) {
            Span& span = spans[t.sm_id];
            span.first = span.blocks == 0 ? t.start_cycle : std::min(span.first, t.start_cycle);
            span.last  = span.blocks == 0 ? t.stop_cycle : std::max(span.last, t.stop_cycle);
            ++span.blocks;
        }
        std::vector<double> rates;
        for (const auto& entry : spans) {
            const Span& span = entry.second;
            rates.push_back(span.blocks * counted_per_block / static_cast<double>(span.last - span.first));
        }
        best = std::max(best, median(rates));
    }
    return best;
}

struct LaunchOverhead {
    double back_to_back_us;
    double graph_us;
};

LaunchOverhead measure_launch_overhead(const int samples) {
    cudaStream_t raw_stream = nullptr;
    CHECK(cudaStreamCreateWithFlags(&raw_stream, cudaStreamNonBlocking));  // capture needs a non-legacy stream
    const UniqueStream stream(raw_stream);
    const UniqueEvent  start        = make_event();
    const UniqueEvent  stop         = make_event();
    const auto         launch_empty = [&]() {
        empty_kernel<<<1, kWarpSize, 0, stream.get()>>>();
        CHECK_LAUNCH();
    };
    const auto timed_us = [&](const auto& work, const int launches) {
        CHECK(cudaEventRecord(start.get(), stream.get()));
        work();
        CHECK(cudaEventRecord(stop.get(), stream.get()));
        CHECK(cudaEventSynchronize(stop.get()));
        float elapsed_ms = 0.0f;
        CHECK(cudaEventElapsedTime(&elapsed_ms, start.get(), stop.get()));
        return 1e3 * elapsed_ms / launches;
    };

    for (int i = 0; i < kLaunchWarmup; ++i)
        launch_empty();
    CHECK(cudaStreamSynchronize(stream.get()));
    std::vector<double> back_to_back;
    for (int s = 0; s < samples; ++s) {
        back_to_back.push_back(timed_us(
            [&]() {
                for (int i = 0; i < kLaunchesPerSample; ++i)
                    launch_empty();
            },
            kLaunchesPerSample));
    }

    cudaGraph_t raw_graph = nullptr;
    CHECK(cudaStreamBeginCapture(stream.get(), cudaStreamCaptureModeThreadLocal));
    for (int i = 0; i < kLaunchesPerGraph; ++i)
        launch_empty();
    CHECK(cudaStreamEndCapture(stream.get(), &raw_graph));
    const UniqueGraph graph(raw_graph);
    cudaGraphExec_t   raw_exec = nullptr;
    CHECK(cudaGraphInstantiate(&raw_exec, graph.get(), 0));
    const UniqueGraphExec graph_exec(raw_exec);
    const auto            replay = [&]() {
        for (int r = 0; r < kGraphReplaysPerSample; ++r)
            CHECK(cudaGraphLaunch(graph_exec.get(), stream.get()));
    };
    replay();  // the first replay uploads the graph
    CHECK(cudaStreamSynchronize(stream.get()));
    std::vector<double> in_graph;
    for (int s = 0; s < samples; ++s)
        in_graph.push_back(timed_us(replay, kGraphReplaysPerSample * kLaunchesPerGraph));
    return LaunchOverhead{median(back_to_back), median(in_graph)};
}

std::string fixed(const double value, const int decimals) {
    char text[64];
    std::snprintf(text, sizeof(text), "%.*f", decimals, value);
    return text;
}

std::string version_text(const int version) {  // 13000 -> "13.0"
    return std::to_string(version / 1000) + "." + std::to_string(version % 1000 / 10);
}

std::string utc_date() {
    const std::time_t now = std::time(nullptr);
    char              text[16];
    std::strftime(text, sizeof(text), "%Y-%m-%d", std::gmtime(&now));
    return text;
}

// One line of the table. Latency rows give cycles and derive ns from the
// measured clock; throughput rows give a rate in the cycles column; launch
// rows give ns only. NaN prints as "-".
struct Row {
    std::string what;
    double      cycles;
    double      ns;
    std::string how;
};
constexpr double kNone = std::numeric_limits<double>::quiet_NaN();

struct Options {
    bool quick = false;
};

void print_usage(std::FILE* stream) {
    std::fprintf(stream,
                 "usage: solve_tri_microbench [--quick] [--help]\n"
                 "  Measures on device 0 the latencies and per-SM throughputs that the cost model of the\n"
                 "  triangular-solve kernels uses, in SM cycles and ns, and prints one table.\n"
                 "  --quick  fewer repetitions (noisier)\n"
                 "  --help   this text\n"
                 "  Exit status: 0 measured, 77 no CUDA GPU, 2 bad option, 1 CUDA error.\n");
}

// Rows in cycles; ns is filled in at the end, from the clock measured around the whole run.
void add_latency_rows(const ChainInputs& inputs, const int repeats, float* sink, std::vector<Row>& rows) {
    const auto add = [&](const char* what, const double cycles, const char* how) {
        rows.push_back(Row{what, cycles, kNone, how});
    };
    add("ffma dependent", chain_cycles_per_link<OpChain<Ffma>>(inputs, repeats, sink), "fma.rn.f32 chain, 1 warp");
    add("fmul dependent", chain_cycles_per_link<OpChain<Fmul>>(inputs, repeats, sink), "mul.rn.f32 chain, 1 warp");
    add("mufu.rcp + fadd dependent", chain_cycles_per_link<OpChain<Rcp>>(inputs, repeats, sink),
        "rcp.approx.ftz.f32 then add.f32 of 0, chain, 1 warp");
    add("shfl dependent", chain_cycles_per_link<OpChain<Shfl>>(inputs, repeats, sink),
        "shfl.sync.idx from lane+1, chain");
    add("shfl + ffma (one right-looking row)", chain_cycles_per_link<ShflFfmaChain>(inputs, repeats, sink),
        "x = shfl(y, pivot j); y = fma(a, x, y)");
    add("butterfly reduction (5 shfl.xor + add)", chain_cycles_per_link<ButterflyChain>(inputs, repeats, sink),
        "per reduction; each reduces the last sum");
    add("lds 32-bit dependent", chain_cycles_per_link<Lds32Chain>(inputs, repeats, sink),
        "ld.shared.u32 pointer chase, no conflicts");
    add("lds 128-bit dependent", chain_cycles_per_link<Lds128Chain>(inputs, repeats, sink),
        "ld.shared.v4.u32 chase on .x, broadcast");
}

void add_memory_rows(const size_t l2_bytes, const bool quick, const int repeats, std::vector<Row>& rows) {
    std::mt19937_64 rng(kRandomSeed);
    {
        const size_t   bytes      = std::min(kL2ChaseBytes, l2_bytes / 2);  // a GPU with a small L2 gets half of it
        const uint32_t node_count = static_cast<uint32_t>(bytes / kL2ChaseStride);
        const DeviceArray<unsigned char> buffer(bytes);
        const uint64_t start = link_chase(buffer.data(), kL2ChaseStride, chase_order(node_count, 1, rng));
        // One full walk first puts every node in L2; the timed loads then go round the cycle again.
        rows.push_back(Row{"l2 hit (ld.global.cg chase, " + std::to_string(bytes / kMiB) + " MiB)",
                           chase_cycles_per_load(start, static_cast<int>(node_count), kL2LoadsPerRepeat, repeats),
                           kNone, "128 B nodes, random cycle, warmed"});
    }
    const size_t      bytes          = kDramChaseBytes;
    const size_t      eviction_words = kL2EvictionFactor * l2_bytes / sizeof(uint32_t);
    const std::string name           = "(chase, " + std::to_string(bytes / kMiB / 1024) + " GiB)";
    size_t            free_bytes = 0, total_bytes = 0;
    CHECK(cudaMemGetInfo(&free_bytes, &total_bytes));
    if (free_bytes < bytes + eviction_words * sizeof(uint32_t) + kDramMemoryMargin) {
        rows.push_back(Row{"dram " + name, kNone, kNone, "skipped: not enough free device memory"});
        return;
    }
    const uint32_t                   node_count     = static_cast<uint32_t>(bytes / kDramChaseStride);
    const uint32_t                   nodes_per_page = static_cast<uint32_t>(kGpuPageBytes / kDramChaseStride);
    const int                        loads          = quick ? kQuickDramLoadsPerRepeat : kDramLoadsPerRepeat;
    const DeviceArray<unsigned char> buffer(bytes);
    const DeviceArray<uint32_t>      eviction_buffer(eviction_words);
    // A few thousand loads of a cycle of 512 Ki nodes: each reads a line that no earlier load
    // touched, and the eviction after linking leaves none of them in L2, so every load misses it.
    const uint64_t page_local =
        link_chase(buffer.data(), kDramChaseStride, chase_order(node_count, nodes_per_page, rng));
    evict_l2_contents(eviction_buffer, eviction_words);
    rows.push_back(Row{"dram " + name, chase_cycles_per_load(page_local, kDramWarmupLoads, loads, repeats), kNone,
                       "4 KiB nodes, random within 2 MiB pages"});
    const uint64_t scattered = link_chase(buffer.data(), kDramChaseStride, chase_order(node_count, 1, rng));
    evict_l2_contents(eviction_buffer, eviction_words);
    rows.push_back(Row{"dram + tlb miss " + name, chase_cycles_per_load(scattered, kDramWarmupLoads, loads, repeats),
                       kNone, "4 KiB nodes, random over the buffer"});
}

void add_launch_rows(const int samples, std::vector<Row>& rows) {
    const LaunchOverhead launch = measure_launch_overhead(samples);
    const std::string    how =
        "empty <<<1,32>>>, median of " + std::to_string(samples) + " x " + std::to_string(kLaunchesPerSample) + ": ";
    rows.push_back(Row{"launch, back to back", kNone, 1e3 * launch.back_to_back_us,
                       how + fixed(launch.back_to_back_us, 2) + " us"});
    rows.push_back(Row{"launch, in a graph", kNone, 1e3 * launch.graph_us,
                       how + fixed(launch.graph_us, 2) + " us, graph of " + std::to_string(kLaunchesPerGraph)});
}

void add_throughput_rows(const ChainInputs& inputs, const int sm_count, const int repeats, float* sink,
                         std::vector<Row>& rows) {
    const auto add = [&](const char* what, const double rate, const std::string& detail) {
        rows.push_back(Row{what, rate, kNone, "warp-instr/cycle/SM, 32 warps/SM, " + detail});
    };
    add("ffma throughput", throughput_per_sm<IndependentChains<Ffma>>(inputs, sm_count, repeats, sink),
        "8 chains/thread");
    add("lds 32-bit throughput", throughput_per_sm<Lds32Throughput>(inputs, sm_count, repeats, sink), "no conflicts");
    add("lds 128-bit broadcast throughput", throughput_per_sm<Lds128Broadcast>(inputs, sm_count, repeats, sink),
        "all lanes one address");
    add("lds 128-bit per-lane throughput", throughput_per_sm<Lds128PerLane>(inputs, sm_count, repeats, sink),
        "16 B per lane, no conflicts");
    add("shfl throughput", throughput_per_sm<IndependentChains<Shfl>>(inputs, sm_count, repeats, sink),
        "shfl.sync.idx, 8 chains/thread");
    add("sts 32-bit throughput", throughput_per_sm<Sts32Throughput>(inputs, sm_count, repeats, sink), "no conflicts");
    add("lds 32-bit + shfl, mixed", throughput_per_sm<LdsMixedThroughput<true>>(inputs, sm_count, repeats, sink),
        "one of each, independent: both counted; 1.0 if they share a pipe");
    add("lds 32-bit + sts 32-bit, mixed", throughput_per_sm<LdsMixedThroughput<false>>(inputs, sm_count, repeats, sink),
        "one of each, independent: both counted; 1.0 if they share a pipe");
    add("mufu.rcp throughput", throughput_per_sm<IndependentChains<Rcp>>(inputs, sm_count, repeats, sink),
        "8 chains/thread, each rcp with its fadd");
}

std::string cell(const double value, const int decimals) {
    return std::isnan(value) ? "-" : fixed(value, decimals);
}

int run(const Options& options) {
    int               device_count = 0;
    const cudaError_t count_status = cudaGetDeviceCount(&device_count);
    if (count_status != cudaSuccess || device_count == 0) {
        std::printf("SKIP: no CUDA GPU: %s\n",
                    count_status != cudaSuccess ? cudaGetErrorString(count_status) : "cudaGetDeviceCount returned 0");
        return kSkipExitStatus;
    }
    constexpr int kDevice = 0;
    CHECK(cudaSetDevice(kDevice));
    cudaDeviceProp properties{};
    CHECK(cudaGetDeviceProperties(&properties, kDevice));
    int sm_count = 0, l2_bytes = 0, driver_version = 0, runtime_version = 0;
    CHECK(cudaDeviceGetAttribute(&sm_count, cudaDevAttrMultiProcessorCount, kDevice));
    CHECK(cudaDeviceGetAttribute(&l2_bytes, cudaDevAttrL2CacheSize, kDevice));
    CHECK(cudaDriverGetVersion(&driver_version));
    CHECK(cudaRuntimeGetVersion(&runtime_version));

    const ChainInputs        inputs{0.0f, 0.5f, 1.0f, 1.5f};
    const DeviceArray<float> sink(static_cast<size_t>(sm_count) * kThroughputThreads);
    const int                latency_repeats = options.quick ? kQuickLatencyRepeats : kLatencyRepeats;

    measure_sm_clock_mhz(kClockWarmupNs);
    const double     clock_before_mhz = measure_sm_clock_mhz(kClockMeasureNs);
    std::vector<Row> rows;
    add_latency_rows(inputs, latency_repeats, sink.data(), rows);
    add_memory_rows(static_cast<size_t>(l2_bytes), options.quick, latency_repeats, rows);
    const size_t latency_row_count = rows.size();
    add_launch_rows(options.quick ? kQuickLaunchSamples : kLaunchSamples, rows);
    add_throughput_rows(inputs, sm_count, options.quick ? kQuickThroughputRepeats : kThroughputRepeats, sink.data(),
                        rows);
    const double clock_after_mhz = measure_sm_clock_mhz(kClockMeasureNs);
    const double clock_mhz       = 0.5 * (clock_before_mhz + clock_after_mhz);
    for (size_t i = 0; i < latency_row_count; ++i)
        rows[i].ns = rows[i].cycles * 1e3 / clock_mhz;

    std::printf("GPU: %s, sm_%d%d, %d SMs\n", properties.name, properties.major, properties.minor, sm_count);
    std::printf("SM clock: %.0f MHz (clock64 / globaltimer; %.0f before, %.0f after the benchmarks)\n", clock_mhz,
                clock_before_mhz, clock_after_mhz);
    std::printf("CUDA driver %s, runtime %s\n", version_text(driver_version).c_str(),
                version_text(runtime_version).c_str());
    std::printf("date: %s (UTC)%s\n\n", utc_date().c_str(), options.quick ? ", --quick" : "");
    std::printf("%-40s %8s %8s  %s\n", "what", "cycles", "ns", "how");
    for (const Row& row : rows) {
        std::printf("%-40s %8s %8s  %s\n", row.what.c_str(), cell(row.cycles, 2).c_str(), cell(row.ns, 1).c_str(),
                    row.how.c_str());
    }
    return 0;
}

}  // namespace

int main(int argc, char** argv) {
    Options options;
    for (int i = 1; i < argc; ++i) {
        const std::string argument = argv[i];
        if (argument == "--help" || argument == "-h") {
            print_usage(stdout);
            return 0;
        }
        if (argument == "--quick") {
            options.quick = true;
        } else {
            std::fprintf(stderr, "solve_tri_microbench: unknown option '%s'\n", argument.c_str());
            print_usage(stderr);
            return kUsageExitStatus;
        }
    }
    try {
        return run(options);
    } catch (const std::exception& error) {
        std::fprintf(stderr, "solve_tri_microbench: %s\n", error.what());
        return 1;
    }
}
