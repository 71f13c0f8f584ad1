// Step 05's tests: the shared test body (common/step_tests.cpp), run on this
// step and timed against step 04.
#include "step_tests.hpp"

SOLVE_TRI_STEP_TEST(step05, step04, same_as_previous)
