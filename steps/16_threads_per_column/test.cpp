// Step 16's tests: the shared test body (common/harness/step_tests.cpp) on
// this step, timed against step 15.
#include "step_tests.hpp"

namespace step16 {
extern const harness::Step step;
}
namespace step15 {
extern const harness::Step step;
}

int main(int argc, char** argv) {
    return harness::run_step_tests(argc, argv, {&step16::step, &step15::step, harness::Output::same_as_previous});
}
