#include "host_floats.hpp"

#include "parallel.hpp"

#include <algorithm>

namespace harness {

HostFloats filled_floats(const int64_t count, const float value) {
    HostFloats floats(static_cast<size_t>(std::max<int64_t>(count, 0)));
    // In blocks of 1 Mi elements: a range per page run, not per element.
    constexpr int64_t block  = int64_t{1} << 20;
    const int64_t     blocks = (count + block - 1) / block;
    parallel_for(blocks, [&](const int64_t begin, const int64_t end) {
        std::fill(floats.data() + begin * block, floats.data() + std::min(count, end * block), value);
    });
    return floats;
}

}  // namespace harness
