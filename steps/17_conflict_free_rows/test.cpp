// Step 17's tests: the shared test body (common/harness/step_tests.cpp) on
// this step, timed against step 16.
#include "step_tests.hpp"

namespace step17 {
extern const harness::Step step;
}
namespace step16 {
extern const harness::Step step;
}

int main(int argc, char** argv) {
    return harness::run_step_tests(argc, argv, {&step17::step, &step16::step, harness::Output::same_as_previous});
}
