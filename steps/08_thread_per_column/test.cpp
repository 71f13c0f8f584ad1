// Step 08's tests: the shared test body (common/harness/step_tests.cpp) on
// this step, timed against step 07.
#include "step_tests.hpp"

namespace step08 {
extern const harness::Step step;
}
namespace step07 {
extern const harness::Step step;
}

int main(int argc, char** argv) {
    return harness::run_step_tests(argc, argv, {&step08::step, &step07::step, harness::Output::same_as_previous});
}
