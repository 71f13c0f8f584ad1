// Step 08's tests: the shared test body (common/step_tests.cpp), run on this
// step and timed against step 07.
#include "step_tests.hpp"

SOLVE_TRI_STEP_TEST(step08, step07, same_as_previous)
