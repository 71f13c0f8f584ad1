// Step 11's tests: the shared test body (common/harness/step_tests.cpp) on
// this step, timed against step 10.
#include "step_tests.hpp"

namespace step11 {
extern const harness::Step step;
}
namespace step10 {
extern const harness::Step step;
}

int main(int argc, char** argv) {
    return harness::run_step_tests(argc, argv, {&step11::step, &step10::step, harness::Output::same_as_previous});
}
