// Step 13's tests: the shared test body (common/harness/step_tests.cpp) on
// this step, timed against step 12.
#include "step_tests.hpp"

namespace step13 {
extern const harness::Step step;
}
namespace step12 {
extern const harness::Step step;
}

int main(int argc, char** argv) {
    return harness::run_step_tests(argc, argv, {&step13::step, &step12::step, harness::Output::same_as_previous});
}
