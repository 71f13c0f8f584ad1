// Step 04's tests: the shared test body (common/harness/step_tests.cpp) on
// this step, timed against step 03.
#include "step_tests.hpp"

namespace step04 {
extern const harness::Step step;
}
namespace step03 {
extern const harness::Step step;
}

int main(int argc, char** argv) {
    return harness::run_step_tests(argc, argv, {&step04::step, &step03::step, harness::Output::may_differ});
}
