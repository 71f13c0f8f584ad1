// Step 23's tests: the shared test body (common/harness/step_tests.cpp) on
// this step, timed against step 22.
#include "step_tests.hpp"

namespace step23 {
extern const harness::Step step;
}
namespace step22 {
extern const harness::Step step;
}

int main(int argc, char** argv) {
    return harness::run_step_tests(argc, argv, {&step23::step, &step22::step, harness::Output::same_as_previous});
}
