#include "reference_shapes.hpp"

namespace harness {

const std::vector<ReferenceShape>& reference_shapes() {
    static const std::vector<ReferenceShape> shapes = {
        {"pr", "the PR's shape", Problem::contiguous(64, 6, 4, 2)},
        {"upstream_perf", "upstream's perf shape today", Problem::contiguous(64, 32, 4, 4)},
        {"qwen3_next", "Qwen3-Next, 512 tokens", Problem::contiguous(64, 64, 8, 32)},
        {"qwen3_next_8k", "Qwen3-Next, 8k tokens", Problem::contiguous(64, 64, 128, 32)},
        {"qwen3_next_32k", "Qwen3-Next, 32k tokens", Problem::contiguous(64, 64, 512, 32)},
        {"large_batch", "16,384 matrices, k = 32", Problem::contiguous(64, 32, 128, 128)},
    };
    return shapes;
}

Problem shape_of_your_own(const Options& o) {
    const Problem pr = reference_shapes().front().problem;
    return Problem::contiguous(o.n.value_or(pr.n), o.k.value_or(pr.k), o.ne2.value_or(pr.ne02),
                               o.ne3.value_or(pr.ne03));
}

}  // namespace harness
