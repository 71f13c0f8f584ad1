// Step 03's tests: the shared test body (common/step_tests.cpp), run on this
// step and timed against step 02.
#include "step_tests.hpp"

SOLVE_TRI_STEP_TEST(step03, step02, may_differ)
