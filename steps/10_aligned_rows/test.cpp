// Step 10's tests: the shared test body (common/harness/step_tests.cpp) on
// this step, timed against step 09.
#include "step_tests.hpp"

namespace step10 {
extern const harness::Step step;
}
namespace step09 {
extern const harness::Step step;
}

int main(int argc, char** argv) {
    return harness::run_step_tests(argc, argv, {&step10::step, &step09::step, harness::Output::same_as_previous});
}
