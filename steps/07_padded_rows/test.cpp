// Step 07's tests: the shared test body (common/harness/step_tests.cpp) on
// this step, timed against step 06.
#include "step_tests.hpp"

namespace step07 {
extern const harness::Step step;
}
namespace step06 {
extern const harness::Step step;
}

int main(int argc, char** argv) {
    return harness::run_step_tests(argc, argv, {&step07::step, &step06::step, harness::Output::same_as_previous});
}
