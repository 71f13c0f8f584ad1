// Step 02's tests: the shared test body (common/step_tests.cpp), run on this
// step and timed against step 01.
#include "step_tests.hpp"

SOLVE_TRI_STEP_TEST(step02, step01, may_differ)
