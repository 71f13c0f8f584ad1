// Step 30's tests: the shared test body (common/harness/step_tests.cpp) on
// this step, timed against step 29.
#include "step_tests.hpp"

namespace step30 {
extern const harness::Step step;
}
namespace step29 {
extern const harness::Step step;
}

int main(int argc, char** argv) {
    return harness::run_step_tests(argc, argv, {&step30::step, &step29::step, harness::Output::same_as_previous});
}
