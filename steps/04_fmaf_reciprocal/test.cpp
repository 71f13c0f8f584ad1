// Step 04's tests: the shared test body (common/step_tests.cpp), run on this
// step and timed against step 03.
#include "step_tests.hpp"

SOLVE_TRI_STEP_TEST(step04, step03, may_differ)
