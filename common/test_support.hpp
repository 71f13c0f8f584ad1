// What the doctest main shares with the test cases.
#pragma once

#include "options.hpp"

#include <cstdint>

namespace harness {

// The command line's options and the seed of this run (set by the main).
const Options& test_options();
uint64_t       test_seed();

// A binary with GPU test cases (doctest suite "gpu") says so at static
// initialisation; its main then exits 77, Meson's SKIP, when there is no GPU.
bool declare_gpu_tests();
bool has_gpu_tests();

// A binary may check the command line's options further (a step test checks
// a shape against the step's limits): the check throws UsageError, and the
// main refuses the run with its message before any test runs.
using OptionsCheck = void (*)(const Options& options);
bool declare_options_check(OptionsCheck check);

}  // namespace harness
