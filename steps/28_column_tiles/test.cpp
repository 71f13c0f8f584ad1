// Step 28's tests: the shared test body (common/harness/step_tests.cpp) on
// this step, timed against step 27.
#include "step_tests.hpp"

namespace step28 {
extern const harness::Step step;
}
namespace step27 {
extern const harness::Step step;
}

int main(int argc, char** argv) {
    return harness::run_step_tests(argc, argv, {&step28::step, &step27::step, harness::Output::may_differ});
}
