// Step 05's tests: the shared test body (common/harness/step_tests.cpp) on
// this step, timed against step 04.
#include "step_tests.hpp"

namespace step05 {
extern const harness::Step step;
}
namespace step04 {
extern const harness::Step step;
}

int main(int argc, char** argv) {
    return harness::run_step_tests(argc, argv, {&step05::step, &step04::step, harness::Output::same_as_previous});
}
