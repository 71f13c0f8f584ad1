// Step 24's tests: the shared test body (common/harness/step_tests.cpp) on
// this step, timed against step 23.
#include "step_tests.hpp"

namespace step24 {
extern const harness::Step step;
}
namespace step23 {
extern const harness::Step step;
}

int main(int argc, char** argv) {
    return harness::run_step_tests(argc, argv, {&step24::step, &step23::step, harness::Output::same_as_previous});
}
