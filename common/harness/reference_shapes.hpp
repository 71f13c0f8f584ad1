// The shapes the workbook measures at, in one place: the step tests time the
// first two next to a step's predecessor, the report all of them; and the
// shape of your own that --n, --k, --ne2 and --ne3 describe, in both.
#pragma once

#include "options.hpp"
#include "problem.hpp"

#include <vector>

namespace harness {

struct ReferenceShape {
    const char* id;     // what the report's --shapes takes
    const char* title;  // how the tables name it
    Problem     problem;
};

// The PR's shape; test-backend-ops' perf shape today; Qwen3-Next's chunked
// gated delta rule (n = k = 64, 32 value heads) at 512, 8k and 32k tokens;
// and 16,384 matrices at k = 32.
const std::vector<ReferenceShape>& reference_shapes();

// The shapes a step's test binary times: the first two reference shapes.
constexpr int step_test_timed_shapes = 2;

// A shape of your own: what the options give, and for what they don't, the
// PR's shape (n = 64, k = 6, ne2 = 4, ne3 = 2). Contiguous batches.
Problem shape_of_your_own(const Options& options);

}  // namespace harness
