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
        // Kimi-Linear's KDA: chunks of 16 tokens (n = k = 16), 32 heads, so a
        // 512-token ubatch is 32 chunks of 32 heads.
        {"kimi_linear", "Kimi-Linear, 512 tokens", Problem::contiguous(16, 16, 32, 32)},
        // test-backend-ops' perf shapes past n = 64, which ggml sends to cuBLAS.
        {"backend_ops_n128", "test-backend-ops, n = 128, k = 32", Problem::contiguous(128, 32, 4, 2)},
        {"backend_ops_n128_k128", "test-backend-ops, n = k = 128", Problem::contiguous(128, 128, 4, 32)},
        {"backend_ops_n256", "test-backend-ops, n = 256, k = 128", Problem::contiguous(256, 128, 4, 2)},
    };
    return shapes;
}

const std::vector<ReferenceShape>& batch_curve() {
    constexpr int64_t heads = 32, largest = 16384;
    struct Point {
        int64_t     batch;
        std::string id, title;
    };
    // The shapes' ids and titles point into these, which live as long.
    static const std::vector<Point> points = [] {
        std::vector<Point> list;
        for (int64_t power = 1; power <= largest; power *= 2) {
            for (const int64_t batch : {power, power > heads && power < largest ? power * 3 / 2 : int64_t{0}}) {
                if (batch > 0) {
                    const std::string count = std::to_string(batch);
                    list.push_back({batch, std::string(batch_curve_id) + "_" + count,
                                    "batch curve, " + count + (batch == 1 ? " matrix" : " matrices")});
                }
            }
        }
        return list;
    }();
    static const std::vector<ReferenceShape> shapes = [] {
        std::vector<ReferenceShape> list;
        for (const Point& point : points) {
            list.push_back({point.id.c_str(), point.title.c_str(),
                            point.batch >= heads ? Problem::contiguous(64, 64, point.batch / heads, heads)
                                                 : Problem::contiguous(64, 64, 1, point.batch)});
        }
        return list;
    }();
    return shapes;
}

bool on_batch_curve(const std::string& shape_id) {
    return shape_id.rfind(std::string(batch_curve_id) + "_", 0) == 0;
}

Problem shape_of_your_own(const Options& o) {
    const Problem pr = reference_shapes().front().problem;
    return Problem::contiguous(o.n.value_or(pr.n), o.k.value_or(pr.k), o.ne2.value_or(pr.ne02),
                               o.ne3.value_or(pr.ne03));
}

}  // namespace harness
