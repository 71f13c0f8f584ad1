// Step 20's tests: the shared test body (common/harness/step_tests.cpp) on
// this step, timed against step 19.
#include "step_tests.hpp"

namespace step20 {
extern const harness::Step step;
}
namespace step19 {
extern const harness::Step step;
}

int main(int argc, char** argv) {
    return harness::run_step_tests(argc, argv, {&step20::step, &step19::step, harness::Output::same_as_previous});
}
