// The tests every step runs, written once (step_tests.cpp). A step's test
// file names the step and its predecessor and calls run_step_tests from its
// main, and nothing else.
#pragma once

#include "options.hpp"
#include "problem.hpp"
#include "reference_shapes.hpp"

#include <cstdint>
#include <vector>

namespace harness {

// Whether a step may change the output of the step before it.
enum class Output {
    may_differ,        // it changes the arithmetic: both are judged against the reference
    same_as_previous,  // it changes none: its output must equal its predecessor's, bit for bit
    // It changes only where a sum starts (0 + a·b becomes a·b), which can
    // change nothing but the sign of a zero: bit for bit, +0 and -0 aside.
    same_up_to_zero_sign,
    // An experiment that solves nothing: the step's copies of A and B with
    // the solve taken out, so X = B is written back. Its output is checked
    // against B, bit for bit, wherever a step's is checked against the
    // reference, and it is timed as a floor: what the step's data movement
    // costs alone.
    copies_b,
    // An experiment that gives up accuracy on purpose (plain TF32 products):
    // its test checks that its step passes and that it still solves
    // (Verdict::solved: every element written and finite) with NMSE below 1 at
    // test-backend-ops' correctness shapes (contiguous batches: no gaps to
    // check), and prints its NMSE beside its step's and which shapes break
    // test-backend-ops' rule (the test case "an inexact experiment",
    // experiment_test.cpp).
    inexact,
};

struct StepUnderTest {
    const Step* step;
    const Step* previous;  // null for the first step
    Output      output;
    // How many of the reference shapes the timing case times, from the first:
    // a step's test the first two, an experiment's all of them.
    int timed_shapes = step_test_timed_shapes;
};

// Runs the shared test body on a step: takes the workbook's options off the
// command line (refusing, with exit status 2, a value that is not a whole
// number or a shape beyond the step's limits), prints the seed of this run,
// and hands the rest to doctest. Without a GPU only the CPU cases run, and
// once they pass the exit status is 77, Meson's SKIP.
int run_step_tests(int argc, char** argv, const StepUnderTest& under_test);

// llama.cpp's correctness tests of SOLVE_TRI (its fast kernel takes the six
// with n <= 64 and k <= 32; the others go to cuBLAS there), ne02 and ne03 as
// its cases give them.
std::vector<Shape> backend_ops_correctness_shapes();

// The seed of a correctness shape's inputs (family backend_ops) in this run:
// the step tests' case and an inexact experiment's draw the same inputs.
uint64_t backend_ops_seed(const Shape& shape);

// Whether the step takes the problem: n and k within its limits, n within
// what it solves on this GPU, and its alignment admits the batch strides.
bool accepts(const Step& step, const Problem& p);

// What the test cases read: the step, the command line's options and the seed.
const StepUnderTest& step_under_test();
const Options&       test_options();
uint64_t             test_seed();

}  // namespace harness
