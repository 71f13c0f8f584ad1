// Step 29's tests: the shared test body (common/harness/step_tests.cpp) on
// this step, timed against step 28.
#include "step_tests.hpp"

namespace step29 {
extern const harness::Step step;
}
namespace step28 {
extern const harness::Step step;
}

int main(int argc, char** argv) {
    return harness::run_step_tests(argc, argv, {&step29::step, &step28::step, harness::Output::may_differ});
}
