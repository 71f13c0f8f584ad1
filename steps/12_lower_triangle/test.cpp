// Step 12's tests: the shared test body (common/harness/step_tests.cpp) on
// this step, timed against step 11.
#include "step_tests.hpp"

namespace step12 {
extern const harness::Step step;
}
namespace step11 {
extern const harness::Step step;
}

int main(int argc, char** argv) {
    return harness::run_step_tests(argc, argv, {&step12::step, &step11::step, harness::Output::same_as_previous});
}
