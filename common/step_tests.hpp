// The tests every step runs, written once. A step's own test file names the
// step and its predecessor with one of the macros below, and nothing else.
#pragma once

#include "problem.hpp"

namespace harness {

// Whether a step may change the output of the step before it.
enum class Output {
    may_differ,         // it changes the arithmetic: both are judged against the reference
    same_as_previous,   // it changes none: its output must equal its predecessor's, bit for bit
};

struct StepUnderTest {
    const Step* step;
    const Step* previous;  // null for the first step
    Output      output;
};

// Defined by the step's test file, through the macros below.
extern const StepUnderTest step_under_test;

}  // namespace harness

#define SOLVE_TRI_STEP_TEST(this_step, previous_step, output_rule)                                  \
    namespace this_step {                                                                          \
    extern const ::harness::Step step;                                                             \
    }                                                                                              \
    namespace previous_step {                                                                      \
    extern const ::harness::Step step;                                                             \
    }                                                                                              \
    const ::harness::StepUnderTest harness::step_under_test{&this_step::step, &previous_step::step, \
                                                            ::harness::Output::output_rule};

#define SOLVE_TRI_FIRST_STEP_TEST(this_step)                                                 \
    namespace this_step {                                                                    \
    extern const ::harness::Step step;                                                       \
    }                                                                                        \
    const ::harness::StepUnderTest harness::step_under_test{&this_step::step, nullptr,       \
                                                            ::harness::Output::may_differ};
