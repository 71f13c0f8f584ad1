// The shapes the workbook measures at, in one place: the step tests time the
// first two next to a step's predecessor, the report all of them; and the
// shape of your own that --n, --k, --ne2 and --ne3 describe, in both.
#pragma once

#include "options.hpp"
#include "problem.hpp"

#include <string>
#include <vector>

namespace harness {

struct ReferenceShape {
    const char* id;     // what the report's --shapes takes
    const char* title;  // how the tables name it
    Problem     problem;
};

// The PR's shape; test-backend-ops' perf shape today; Qwen3-Next's chunked
// gated delta rule (n = k = 64, 32 value heads) at 512, 8k and 32k tokens;
// 16,384 matrices at k = 32; and Kimi-Linear's (n = k = 16, 32 heads) at 512
// tokens.
const std::vector<ReferenceShape>& reference_shapes();

// The real model's batch curve: n = k = 64 from 1 to 16,384 matrices, every
// power of two and, from 64 on, the multiples of 32 halfway between two on a
// log scale (96, 192, ...). Qwen3-Next's ubatches are among them: 32 value heads of
// one matrix per 64 tokens (512 tokens: 256 matrices). From 32 matrices on,
// a point is 32 heads of batch / 32 chunks; below, one chunk of that many
// heads. Each point's id is "curve_" and its batch; the report's --shapes
// takes them all as "curve".
const std::vector<ReferenceShape>& batch_curve();
constexpr const char*              batch_curve_id = "curve";
bool                               on_batch_curve(const std::string& shape_id);

// The shapes a step's test binary times: the first two reference shapes.
constexpr int step_test_timed_shapes = 2;

// A shape of your own: what the options give, and for what they don't, the
// PR's shape (n = 64, k = 6, ne2 = 4, ne3 = 2). Contiguous batches.
Problem shape_of_your_own(const Options& options);

}  // namespace harness
