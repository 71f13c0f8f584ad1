// An experiment's test binary: the shared test body (step_tests.cpp) on a
// variant of a step (its kernel file with one patch applied), against the step
// itself: both correct, their outputs compared as the experiment declares, and
// both timed at the report's shapes. Before the tests it prints what the
// variant changes in the machine's terms: registers, local memory and blocks
// per SM of each kernel the two launch at those shapes.
// EXPERIMENT_NAMESPACE and STEP_NAMESPACE name the two; EXPERIMENT_OUTPUT is
// same_as_previous, may_differ, copies_b or inexact (step_tests.hpp). An
// inexact one runs the test case below instead of the shared body's.
#include "device_problem.hpp"
#include "gpu.hpp"
#include "inputs.hpp"
#include "judge.hpp"
#include "kernel_resources.hpp"
#include "reference_shapes.hpp"
#include "step_tests.hpp"

#include <doctest/doctest.h>

#include <cstdio>

namespace EXPERIMENT_NAMESPACE {
extern const harness::Step step;
}
namespace STEP_NAMESPACE {
extern const harness::Step step;
}

namespace {

// What the report's resource table gives (kernel_resources.cpp),
// one line per step and shape; the grid's two dimensions from the plan.
void print_resources(const harness::Step& step, const harness::Problem& p) {
    const harness::KernelResources r    = *harness::kernel_resources(step, p);
    const harness::KernelLaunch    plan = step.plan(p);
    std::printf("  %-40s %3d registers, %4d B local, %2d blocks/SM of %4d threads, grid %u x %u\n", step.name,
                r.registers_per_thread, r.local_bytes, r.blocks_per_sm, r.threads_per_block, plan.grid.x, plan.grid.y);
}

}  // namespace

TEST_SUITE("gpu") {
    TEST_CASE("an inexact experiment: what it gives up at test-backend-ops' correctness shapes") {
        using namespace harness;
        const StepUnderTest& t = step_under_test();
        if (t.output != Output::inexact) {
            MESSAGE("not an inexact experiment: its output is checked by the shared test body");
            return;
        }
        // The step and the variant on the same inputs, those of the step
        // tests' case of these shapes (family backend_ops, the same seeds).
        std::printf("test-backend-ops' NMSE, family backend_ops (its rule: NMSE <= %g at n <= %lld):\n",
                    backend_ops_max_nmse, static_cast<long long>(backend_ops_checked_n));
        int shapes = 0, broken = 0;
        for (const Shape shape : backend_ops_correctness_shapes()) {
            const Problem p = Problem::contiguous(shape.n, shape.k, shape.ne02, shape.ne03);
            if (!accepts(*t.step, p) || !accepts(*t.previous, p)) {
                continue;
            }
            const Inputs        in = make_inputs(Family::backend_ops, p, backend_ops_seed(shape));
            const DeviceProblem device(p, in);
            const HostFloats    base           = run_step(*t.previous, p, device);
            const HostFloats    variant        = run_step(*t.step, p, device);
            const Verdict       base_verdict   = judge(p, Family::backend_ops, in, base, Bound::skip);
            const Verdict       variant_result = judge(p, Family::backend_ops, in, variant, Bound::skip);
            INFO(p.describe() << ", run seed " << test_seed());
            CHECK_MESSAGE(base_verdict.passed, std::string(t.previous->name) << ": " << base_verdict.failure);
            // It must still solve: every element written and finite (the
            // batches are contiguous: no gaps between the matrices), and an
            // error well below the solution's size.
            CHECK_MESSAGE(variant_result.solved, std::string(t.step->name) << ": " << variant_result.failure);
            CHECK_MESSAGE(variant_result.backend_ops_nmse < 1.0, std::string(t.step->name)
                                                                     << ": NMSE " << variant_result.backend_ops_nmse);
            const bool breaks = !(variant_result.backend_ops_nmse <= backend_ops_nmse_limit(p.n));
            std::printf("  %-44s %-26s %8.2g   %-30s %8.2g%s\n", p.describe().c_str(), t.previous->name,
                        base_verdict.backend_ops_nmse, t.step->name, variant_result.backend_ops_nmse,
                        breaks ? "  breaks the rule" : "");
            ++shapes;
            broken += breaks ? 1 : 0;
        }
        std::printf("  %s breaks test-backend-ops' rule at %d of %d shapes\n", t.step->name, broken, shapes);
        CHECK(shapes > 0);
    }
}

int main(int argc, char** argv) {
    const harness::Step& variant = EXPERIMENT_NAMESPACE::step;
    const harness::Step& base    = STEP_NAMESPACE::step;
    if (harness::gpu().available) {
        for (const harness::ReferenceShape& shape : harness::reference_shapes()) {
            std::printf("%s (%s):\n", shape.title, shape.problem.describe().c_str());
            for (const harness::Step* step : {&base, &variant}) {
                if (shape.problem.n <= harness::max_n_on_device(*step) && shape.problem.k <= step->limits.max_k) {
                    print_resources(*step, shape.problem);
                }
            }
        }
    }
    return harness::run_step_tests(
        argc, argv,
        {&variant, &base, harness::Output::EXPERIMENT_OUTPUT, static_cast<int>(harness::reference_shapes().size())});
}
