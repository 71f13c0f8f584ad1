// Step 02's tests: the shared test body (common/harness/step_tests.cpp) on
// this step, timed against step 01.
#include "step_tests.hpp"

namespace step02 {
extern const harness::Step step;
}
namespace step01 {
extern const harness::Step step;
}

int main(int argc, char** argv) {
    return harness::run_step_tests(argc, argv, {&step02::step, &step01::step, harness::Output::same_as_previous});
}
