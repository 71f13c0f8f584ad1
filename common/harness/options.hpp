// The command line shared by the step tests and the report: a shape and a
// seed of the reader's own. Bad values are refused with a message.
#pragma once

#include <cstdint>
#include <optional>
#include <stdexcept>
#include <string>
#include <vector>

namespace harness {

class UsageError : public std::invalid_argument {
public:
    using std::invalid_argument::invalid_argument;
};

struct Options {
    std::optional<uint64_t> seed;
    std::optional<int64_t>  n, k, ne2, ne3;
    std::optional<int64_t>  sweep;  // cases of the randomized sweep
    bool                    has_shape() const { return n || k || ne2 || ne3; }
};

struct ParsedCommandLine {
    Options            options;
    std::vector<char*> rest;  // everything else, argv[0] first, for doctest or the caller
};

// Takes --n, --k, --ne2, --ne3, --sweep and --seed (as "--n 64" or "--n=64")
// out of argv. Throws UsageError for a value that is not a whole number, or is
// out of range: n and k in [1, 4096], ne2 and ne3 in [1, 2^20] with at most
// 2^20 matrices in all (every matrix is also solved on the CPU), sweep in
// [1, 100000], seed any uint64.
ParsedCommandLine parse_command_line(int argc, char** argv);

// The usage lines of those options.
const char* options_usage();

// The seed of this run: --seed if given, else fresh from std::random_device.
uint64_t run_seed(const Options& options);

}  // namespace harness
