// Step 26's tests: the shared test body (common/harness/step_tests.cpp) on
// this step, timed against step 25.
#include "step_tests.hpp"

namespace step26 {
extern const harness::Step step;
}
namespace step25 {
extern const harness::Step step;
}

int main(int argc, char** argv) {
    return harness::run_step_tests(argc, argv, {&step26::step, &step25::step, harness::Output::may_differ});
}
