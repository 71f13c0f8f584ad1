// Step 10's tests: the shared test body (common/step_tests.cpp), run on this
// step and timed against step 09.
#include "step_tests.hpp"

SOLVE_TRI_STEP_TEST(step10, step09, same_as_previous)
