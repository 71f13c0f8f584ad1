// Step 15's tests: the shared test body (common/harness/step_tests.cpp) on
// this step, timed against step 14.
#include "step_tests.hpp"

namespace step15 {
extern const harness::Step step;
}
namespace step14 {
extern const harness::Step step;
}

int main(int argc, char** argv) {
    return harness::run_step_tests(argc, argv, {&step15::step, &step14::step, harness::Output::same_as_previous});
}
