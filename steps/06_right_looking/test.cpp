// Step 06's tests: the shared test body (common/harness/step_tests.cpp) on
// this step, timed against step 05.
#include "step_tests.hpp"

namespace step06 {
extern const harness::Step step;
}
namespace step05 {
extern const harness::Step step;
}

int main(int argc, char** argv) {
    return harness::run_step_tests(argc, argv, {&step06::step, &step05::step, harness::Output::may_differ});
}
