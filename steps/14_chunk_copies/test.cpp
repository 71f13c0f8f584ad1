// Step 14's tests: the shared test body (common/harness/step_tests.cpp) on
// this step, timed against step 13.
#include "step_tests.hpp"

namespace step14 {
extern const harness::Step step;
}
namespace step13 {
extern const harness::Step step;
}

int main(int argc, char** argv) {
    return harness::run_step_tests(argc, argv, {&step14::step, &step13::step, harness::Output::same_as_previous});
}
