// Every step on every visible GPU in turn, switched with cudaSetDevice, each
// run checked as the step tests check one: fresh seeded inputs of all four
// families, a poisoned output, the double-precision reference and the judge.
//
//     every_gpu_test [--order 1,0] [--seed S]
//
// --order gives the devices in the order they run (default 0, 1, ...), so that
// a second run in the other order makes a device other than 0 the first any
// step launches on: per-device state that a step set up on the first device
// only (a kernel attribute, a cached count of resident blocks) then fails or
// misleads on the next. The last step's persistent kernel runs on each device,
// at 64 and at 128 columns (more dynamic shared memory than the default 48 KB).
//
// Exit status: 0 when every check passed on two or more devices; 1 when a
// check failed; 77 (Meson's SKIP) without a GPU, or with only one visible,
// after the checks on that one have passed: the runs on a second device were
// not made, and the message says so.
#include "device_problem.hpp"
#include "gpu.hpp"
#include "inputs.hpp"
#include "judge.hpp"
#include "options.hpp"
#include "report_steps.hpp"

#include <cstdio>
#include <exception>
#include <sstream>
#include <string>
#include <vector>

namespace harness {
namespace {

constexpr int exit_failed = 1;
constexpr int exit_usage  = 2;
constexpr int exit_skip   = 77;

std::vector<int> parse_order(const std::string& text) {
    std::vector<int>   order;
    std::istringstream items(text);
    std::string        item;
    while (std::getline(items, item, ',')) {
        if (item.empty() || item.size() > 3 || item.find_first_not_of("0123456789") != std::string::npos) {
            throw UsageError("--order takes device numbers separated by commas (e.g. 1,0), got '" + text + "'");
        }
        order.push_back(std::stoi(item));
    }
    if (order.empty()) {
        throw UsageError("--order needs at least one device number");
    }
    return order;
}

// The shapes each step is checked at on each device: the PR's, an odd one, k = 64, 2,048 matrices at
// n = 64, k = 64 and at n = 63, k = 128, where the last step launches its persistent kernel, and n = 128,
// where a step that streams A asks for more dynamic shared memory than the default 48 KB.
const Shape shapes[] = {{64, 6, 4, 2},    {33, 5, 3, 2},     {64, 64, 2, 2},
                        {64, 64, 32, 64}, {63, 128, 32, 64}, {128, 64, 4, 2}};

struct Tally {
    int checks = 0, failures = 0;
};

void check_on_device(const Step& step, const Shape& shape, const int device, const uint64_t seed, Tally& tally) {
    if (shape.n > max_n_on_device(step) || shape.k > step.limits.max_k) {
        return;
    }
    const int64_t align = step.limits.alignment_bytes / static_cast<int64_t>(sizeof(float));
    const Problem p     = Problem::padded(shape.n, shape.k, shape.ne02, shape.ne03, 1, align);
    ++tally.checks;
    std::string failure;
    try {
        const Inputs inputs = make_inputs(Family::mixed, p, derive_seed(seed, device, shape.n, shape.k, p.batch()));
        const DeviceProblem on_device(p, inputs);
        const KernelLaunch  launch  = step.plan(p);
        const HostFloats    X       = run_step(step, p, on_device);
        const Verdict       verdict = judge(p, Family::mixed, inputs, X);
        if (!verdict.passed) {
            failure = verdict.failure;
        } else if (int64_t{launch.grid.x} * launch.grid.y < p.batch()) {
            // Fewer blocks than matrices: a persistent grid. Said, so that the log shows it ran here.
            std::printf("    %s, %s: persistent grid of %u blocks, %zu B of dynamic shared memory: ok\n", step.name,
                        p.describe().c_str(), launch.grid.x, launch.shared_bytes);
        }
    } catch (const std::exception& error) {
        failure = error.what();
    }
    if (!failure.empty()) {
        ++tally.failures;
        std::printf("    FAILED: %s on device %d, %s (%lld matrices): %s\n", step.name, device, p.describe().c_str(),
                    static_cast<long long>(p.batch()), failure.c_str());
    }
}

int run(int argc, char** argv) {
    const ParsedCommandLine command_line = parse_command_line(argc, argv);
    if (command_line.options.has_shape() || command_line.options.sweep) {
        throw UsageError("every_gpu_test takes --order and --seed only");
    }
    std::vector<int> order;
    for (size_t i = 1; i < command_line.rest.size(); ++i) {
        const std::string arg = command_line.rest[i];
        if (arg == "--order" && i + 1 < command_line.rest.size()) {
            order = parse_order(command_line.rest[++i]);
        } else if (arg.rfind("--order=", 0) == 0) {
            order = parse_order(arg.substr(8));
        } else {
            throw UsageError("unknown option '" + arg + "'");
        }
    }
    const uint64_t seed = run_seed(command_line.options);
    std::printf("seed %llu (rerun with --seed %llu)\n", static_cast<unsigned long long>(seed),
                static_cast<unsigned long long>(seed));

    const GpuInfo first = gpu_info(0);
    if (!first.available) {
        std::printf("SKIP: %s\n", first.reason.c_str());
        return exit_skip;
    }
    const int count = first.device_count;
    if (order.empty()) {
        for (int d = 0; d < count; ++d) {
            order.push_back(d);
        }
    }
    std::printf("%d CUDA device%s visible; devices in the order %s\n", count, count == 1 ? "" : "s",
                [&] {
                    std::string text;
                    for (const int d : order) {
                        text += (text.empty() ? "" : ", ") + std::to_string(d);
                    }
                    return text;
                }()
                    .c_str());

    Tally            tally;
    std::vector<int> ran;
    for (const int device : order) {
        const GpuInfo info = gpu_info(device);
        if (!info.available) {
            std::printf("device %d: not run: %s\n", device, info.reason.c_str());
            continue;
        }
        CUDA_CHECK(cudaSetDevice(device));
        std::printf("device %d: %s\n", device, describe(info).c_str());
        const int failures_before = tally.failures;
        for (const Step* const step : report_steps()) {
            for (const Shape& shape : shapes) {
                check_on_device(*step, shape, device, seed, tally);
            }
        }
        std::printf("  device %d: %s\n", device, tally.failures == failures_before ? "every step passed" : "FAILED");
        ran.push_back(device);
    }
    std::printf("%d checks, %d failed\n", tally.checks, tally.failures);
    if (tally.failures > 0) {
        return exit_failed;
    }
    bool two_devices = false;
    for (const int device : ran) {
        two_devices = two_devices || device != ran.front();
    }
    if (!two_devices) {
        std::printf(
            "SKIP: the checks on device %d passed, but only %d CUDA device%s visible: the runs on a second "
            "device, and the orders that start on device 1, were not made\n",
            ran.empty() ? 0 : ran.front(), count, count == 1 ? " is" : "s are");
        return exit_skip;
    }
    return 0;
}

}  // namespace
}  // namespace harness

int main(int argc, char** argv) {
    try {
        return harness::run(argc, argv);
    } catch (const harness::UsageError& error) {
        std::fprintf(stderr, "every_gpu_test: %s\n", error.what());
        return harness::exit_usage;
    } catch (const std::exception& error) {
        std::fprintf(stderr, "every_gpu_test: stopped: %s\n", error.what());
        return harness::exit_failed;
    }
}
