// Step 03's tests: the shared test body (common/harness/step_tests.cpp) on
// this step, timed against step 02.
#include "step_tests.hpp"

namespace step03 {
extern const harness::Step step;
}
namespace step02 {
extern const harness::Step step;
}

int main(int argc, char** argv) {
    return harness::run_step_tests(argc, argv, {&step03::step, &step02::step, harness::Output::same_up_to_zero_sign});
}
