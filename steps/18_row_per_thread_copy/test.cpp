// Step 18's tests: the shared test body (common/harness/step_tests.cpp) on
// this step, timed against step 17.
#include "step_tests.hpp"

namespace step18 {
extern const harness::Step step;
}
namespace step17 {
extern const harness::Step step;
}

int main(int argc, char** argv) {
    return harness::run_step_tests(argc, argv, {&step18::step, &step17::step, harness::Output::same_as_previous});
}
