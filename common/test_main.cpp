// The doctest main of every test binary: it takes the workbook's own options
// off the command line, probes for a GPU and, without one, runs the CPU cases
// only and exits 77 (Meson's SKIP) when the binary has GPU cases.
#define DOCTEST_CONFIG_IMPLEMENT
#include <doctest/doctest.h>

#include "gpu.hpp"
#include "test_support.hpp"

#include <iostream>

namespace harness {

namespace {
Options  options_of_run;
uint64_t seed_of_run      = 0;
bool     binary_has_gpu_tests = false;
OptionsCheck options_check    = nullptr;
}  // namespace

const Options& test_options() { return options_of_run; }
uint64_t       test_seed() { return seed_of_run; }
bool           declare_gpu_tests() { return binary_has_gpu_tests = true; }
bool           has_gpu_tests() { return binary_has_gpu_tests; }
bool           declare_options_check(const OptionsCheck check) {
    options_check = check;
    return true;
}

}  // namespace harness

int main(int argc, char** argv) {
    harness::ParsedCommandLine command_line;
    try {
        command_line = harness::parse_command_line(argc, argv);
        if (harness::options_check != nullptr) {
            harness::options_check(command_line.options);
        }
    } catch (const harness::UsageError& error) {
        std::cerr << argv[0] << ": " << error.what() << "\noptions:\n"
                  << harness::options_usage() << "and doctest's own (--help).\n";
        return 2;
    }
    harness::options_of_run = command_line.options;
    harness::seed_of_run    = harness::run_seed(command_line.options);
    std::cout << "seed " << harness::seed_of_run << " (rerun with --seed " << harness::seed_of_run << ")\n";

    const harness::GpuInfo& gpu = harness::gpu();
    doctest::Context        context;
    context.applyCommandLine(static_cast<int>(command_line.rest.size()), command_line.rest.data());
    if (gpu.available) {
        std::cout << "GPU: " << harness::describe(gpu) << "\nbuild: " << harness::build_description() << "\n";
    } else if (harness::has_gpu_tests()) {
        std::cout << "SKIP GPU cases: " << gpu.reason << ". Running the CPU cases only.\n";
        context.addFilter("test-suite-exclude", "gpu");
    }
    const int result = context.run();
    if (context.shouldExit() || result != 0) {
        return result;
    }
    if (!gpu.available && harness::has_gpu_tests()) {
        std::cout << "SKIP: the CPU cases passed; the GPU cases need a CUDA GPU (" << gpu.reason << ")\n";
        return 77;
    }
    return 0;
}
