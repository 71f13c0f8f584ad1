// Step 22's tests: the shared test body (common/harness/step_tests.cpp) on
// this step, timed against step 21.
#include "step_tests.hpp"

namespace step22 {
extern const harness::Step step;
}
namespace step21 {
extern const harness::Step step;
}

int main(int argc, char** argv) {
    return harness::run_step_tests(argc, argv, {&step22::step, &step21::step, harness::Output::same_as_previous});
}
