// Step 25's tests: the shared test body (common/harness/step_tests.cpp) on
// this step, timed against step 24.
#include "step_tests.hpp"

namespace step25 {
extern const harness::Step step;
}
namespace step24 {
extern const harness::Step step;
}

int main(int argc, char** argv) {
    return harness::run_step_tests(argc, argv, {&step25::step, &step24::step, harness::Output::same_as_previous});
}
