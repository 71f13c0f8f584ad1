// Step 27's tests: the shared test body (common/harness/step_tests.cpp) on
// this step, timed against step 26.
#include "step_tests.hpp"

namespace step27 {
extern const harness::Step step;
}
namespace step26 {
extern const harness::Step step;
}

int main(int argc, char** argv) {
    return harness::run_step_tests(argc, argv, {&step27::step, &step26::step, harness::Output::may_differ});
}
