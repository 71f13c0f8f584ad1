// An experiment's test binary: the shared test body (step_tests.cpp) on a
// variant of a step (its kernel file with one patch applied), against the step
// itself: both correct, their outputs compared as the experiment declares, and
// both timed at the report's shapes. Before the tests it prints what the
// variant changes in the machine's terms: registers, local memory and blocks
// per SM of each kernel the two launch at those shapes.
// EXPERIMENT_NAMESPACE and STEP_NAMESPACE name the two; EXPERIMENT_OUTPUT is
// same_as_previous, may_differ or copies_b (step_tests.hpp).
#include "gpu.hpp"
#include "kernel_resources.hpp"
#include "reference_shapes.hpp"
#include "step_tests.hpp"

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
