// Step 31's tests: the shared test body (common/harness/step_tests.cpp) on
// this step, timed against step 30.
#include "step_tests.hpp"

namespace step31 {
extern const harness::Step step;
}
namespace step30 {
extern const harness::Step step;
}

int main(int argc, char** argv) {
    return harness::run_step_tests(argc, argv, {&step31::step, &step30::step, harness::Output::same_as_previous});
}
