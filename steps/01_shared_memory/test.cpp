// Step 01's tests: the shared test body (common/step_tests.cpp). The first
// step has no predecessor to time against.
#include "step_tests.hpp"

SOLVE_TRI_FIRST_STEP_TEST(step01)
