// Step 01's tests: the shared test body (common/harness/step_tests.cpp) on
// this step. The first step has no predecessor to time against.
#include "step_tests.hpp"

namespace step01 {
extern const harness::Step step;
}

int main(int argc, char** argv) {
    return harness::run_step_tests(argc, argv, {&step01::step, nullptr, harness::Output::may_differ});
}
