// Step 09's tests: the shared test body (common/harness/step_tests.cpp) on
// this step, timed against step 08.
#include "step_tests.hpp"

namespace step09 {
extern const harness::Step step;
}
namespace step08 {
extern const harness::Step step;
}

int main(int argc, char** argv) {
    return harness::run_step_tests(argc, argv, {&step09::step, &step08::step, harness::Output::same_as_previous});
}
