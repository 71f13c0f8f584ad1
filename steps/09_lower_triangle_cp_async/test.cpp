// Step 09's tests: the shared test body (common/step_tests.cpp), run on this
// step and timed against step 08.
#include "step_tests.hpp"

SOLVE_TRI_STEP_TEST(step09, step08, same_as_previous)
