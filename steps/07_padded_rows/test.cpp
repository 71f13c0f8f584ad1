// Step 07's tests: the shared test body (common/step_tests.cpp), run on this
// step and timed against step 06.
#include "step_tests.hpp"

SOLVE_TRI_STEP_TEST(step07, step06, same_as_previous)
