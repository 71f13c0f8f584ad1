// Step 06's tests: the shared test body (common/step_tests.cpp), run on this
// step and timed against step 05.
#include "step_tests.hpp"

SOLVE_TRI_STEP_TEST(step06, step05, may_differ)
