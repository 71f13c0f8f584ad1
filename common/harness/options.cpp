#include "options.hpp"

#include <cerrno>
#include <cstdlib>
#include <cstring>
#include <random>

namespace harness {

namespace {

constexpr int64_t max_dimension   = 4096;
constexpr int64_t max_cli_batch   = int64_t{1} << 20;
constexpr int64_t max_sweep_cases = 100000;

uint64_t parse_unsigned(const std::string& name, const std::string& text) {
    if (text.empty() || text.find_first_not_of("0123456789") != std::string::npos) {
        throw UsageError("--" + name + " takes a whole number >= 0, got '" + text + "'");
    }
    errno                          = 0;
    const unsigned long long value = std::strtoull(text.c_str(), nullptr, 10);
    if (errno == ERANGE) {
        throw UsageError("--" + name + " = " + text + " is too large");
    }
    return value;
}

int64_t parse_bounded(const std::string& name, const std::string& text, const int64_t lo, const int64_t hi) {
    if (!text.empty() && text[0] == '-') {
        throw UsageError("--" + name + " must be at least " + std::to_string(lo) + ", got " + text);
    }
    const uint64_t value = parse_unsigned(name, text);
    if (value < static_cast<uint64_t>(lo) || value > static_cast<uint64_t>(hi)) {
        throw UsageError("--" + name + " = " + text + " is outside " + std::to_string(lo) + ".." + std::to_string(hi));
    }
    return static_cast<int64_t>(value);
}

}  // namespace

const char* options_usage() {
    return "  --n N       rows of A, B and X (1..4096; each step has its own limit)\n"
           "  --k K       right-hand-side columns of B and X (1..4096; each step has its own limit)\n"
           "  --ne2 N     batch, inner dimension (1..1048576)\n"
           "  --ne3 N     batch, outer dimension (1..1048576; ne2 * ne3 <= 1048576)\n"
           "  --sweep N   cases of the randomized sweep (1..100000; default 24)\n"
           "  --seed S    seed of the random inputs (default: fresh each run, printed)\n";
}

ParsedCommandLine parse_command_line(const int argc, char** argv) {
    ParsedCommandLine parsed;
    if (argc > 0) {
        parsed.rest.push_back(argv[0]);
    }
    for (int i = 1; i < argc; ++i) {
        const std::string arg = argv[i];
        std::string       name, value;
        bool              ours = false;
        for (const char* option : {"n", "k", "ne2", "ne3", "sweep", "seed"}) {
            const std::string flag = std::string("--") + option;
            if (arg == flag) {
                if (i + 1 >= argc) {
                    throw UsageError(flag + " needs a value");
                }
                name  = option;
                value = argv[++i];
                ours  = true;
            } else if (arg.rfind(flag + "=", 0) == 0) {
                name  = option;
                value = arg.substr(flag.size() + 1);
                ours  = true;
            }
            if (ours) {
                break;
            }
        }
        if (!ours) {
            parsed.rest.push_back(argv[i]);
            continue;
        }
        Options& o = parsed.options;
        if (name == "seed") {
            o.seed = parse_unsigned(name, value);
        } else if (name == "n") {
            o.n = parse_bounded(name, value, 1, max_dimension);
        } else if (name == "k") {
            o.k = parse_bounded(name, value, 1, max_dimension);
        } else if (name == "sweep") {
            o.sweep = parse_bounded(name, value, 1, max_sweep_cases);
        } else if (name == "ne2") {
            o.ne2 = parse_bounded(name, value, 1, max_cli_batch);
        } else {
            o.ne3 = parse_bounded(name, value, 1, max_cli_batch);
        }
    }
    const Options& o = parsed.options;
    if (o.ne2.value_or(1) * o.ne3.value_or(1) > max_cli_batch) {
        throw UsageError("--ne2 * --ne3 = " + std::to_string(o.ne2.value_or(1) * o.ne3.value_or(1)) +
                         " matrices is more than the " + std::to_string(max_cli_batch) +
                         " the command line accepts (each is solved on the CPU too)");
    }
    return parsed;
}

uint64_t run_seed(const Options& options) {
    if (options.seed) {
        return *options.seed;
    }
    std::random_device device;
    return (static_cast<uint64_t>(device()) << 32) ^ device();
}

}  // namespace harness
