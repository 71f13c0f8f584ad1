// Step 19's tests: the shared test body (common/harness/step_tests.cpp) on
// this step, timed against step 18.
#include "step_tests.hpp"

namespace step19 {
extern const harness::Step step;
}
namespace step18 {
extern const harness::Step step;
}

int main(int argc, char** argv) {
    return harness::run_step_tests(argc, argv, {&step19::step, &step18::step, harness::Output::same_as_previous});
}
