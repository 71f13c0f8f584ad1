// The main of every step's test binary, through run_step_tests.
#define DOCTEST_CONFIG_IMPLEMENT
#include <doctest/doctest.h>

#include "gpu.hpp"
#include "step_tests.hpp"

#include <iostream>
#include <string>

namespace harness {

namespace {
StepUnderTest tested_step{nullptr, nullptr, Output::may_differ};
Options       options_of_run;
uint64_t      seed_of_run = 0;

// A shape on the command line must be one the step can solve: refused before
// any test runs, with the step's limit in the message.
void check_shape_options(const Options& o, const Step& step) {
    if (o.n && *o.n > step.limits.max_n) {
        throw UsageError("--n " + std::to_string(*o.n) + " exceeds " + step.name +
                         "'s limit n <= " + std::to_string(step.limits.max_n));
    }
    if (o.n && *o.n > max_n_on_device(step)) {
        throw UsageError("--n " + std::to_string(*o.n) + " exceeds what " + step.name +
                         " solves on this GPU, n <= " + std::to_string(max_n_on_device(step)));
    }
    if (o.k && *o.k > step.limits.max_k) {
        throw UsageError("--k " + std::to_string(*o.k) + " exceeds " + step.name +
                         "'s limit k <= " + std::to_string(step.limits.max_k));
    }
}
}  // namespace

const StepUnderTest& step_under_test() {
    return tested_step;
}
const Options& test_options() {
    return options_of_run;
}
uint64_t test_seed() {
    return seed_of_run;
}

int run_step_tests(const int argc, char** argv, const StepUnderTest& under_test) {
    tested_step = under_test;
    ParsedCommandLine command_line;
    try {
        command_line = parse_command_line(argc, argv);
        check_shape_options(command_line.options, *under_test.step);
    } catch (const UsageError& error) {
        std::cerr << argv[0] << ": " << error.what() << "\noptions:\n"
                  << options_usage() << "and doctest's own (--help).\n";
        return 2;
    }
    options_of_run = command_line.options;
    seed_of_run    = run_seed(command_line.options);
    std::cout << "seed " << seed_of_run << " (rerun with --seed " << seed_of_run << ")\n";

    const GpuInfo&   info = gpu();
    doctest::Context context;
    context.applyCommandLine(static_cast<int>(command_line.rest.size()), command_line.rest.data());
    if (info.available) {
        std::cout << "GPU: " << describe(info) << "\nbuild: " << build_description() << "\n";
    } else {
        std::cout << "SKIP GPU cases: " << info.reason << ". Running the CPU cases only.\n";
        context.addFilter("test-suite-exclude", "gpu");
    }
    const int result = context.run();
    if (context.shouldExit() || result != 0) {
        return result;
    }
    if (!info.available) {
        std::cout << "SKIP: the CPU cases passed; the GPU cases need a CUDA GPU (" << info.reason << ")\n";
        return 77;
    }
    return 0;
}

}  // namespace harness
