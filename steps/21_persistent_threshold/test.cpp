// Step 21's tests: the shared test body (common/harness/step_tests.cpp) on
// this step, timed against step 20.
#include "step_tests.hpp"

namespace step21 {
extern const harness::Step step;
}
namespace step20 {
extern const harness::Step step;
}

int main(int argc, char** argv) {
    return harness::run_step_tests(argc, argv, {&step21::step, &step20::step, harness::Output::same_as_previous});
}
