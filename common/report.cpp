#include "report.hpp"

#include "gpu.hpp"

#include <cstdio>

namespace harness {

void print_environment(std::ostream& out) {
    const int clock = current_sm_clock_mhz();
    out << "  GPU:   " << describe(gpu()) << "; SM clock now "
        << (clock > 0 ? std::to_string(clock) + " MHz" : std::string("unknown (no NVML)")) << "\n"
        << "  build: " << build_description() << "\n"
        << "  date:  " << today() << "\n";
}

double change_percent(const double old_value, const double new_value) {
    return 100.0 * (new_value - old_value) / old_value;
}

void print_timing_table(std::ostream& out, const std::vector<TimingRow>& rows) {
    char line[256];
    std::snprintf(line, sizeof(line), "  %-28s %-24s %9s  %-19s %8s %9s\n", "shape", "step", "us/run", "[min, max]",
                  "GB/s", "change");
    out << line;
    for (const TimingRow& row : rows) {
        char range[64], change[32] = "";
        std::snprintf(range, sizeof(range), "[%.2f, %.2f]", row.timing.min_us, row.timing.max_us);
        if (row.change_percent) {
            std::snprintf(change, sizeof(change), "%+.1f %%", *row.change_percent);
        }
        std::snprintf(line, sizeof(line), "  %-28s %-24s %9.2f  %-19s %8.2f %9s\n", row.shape.c_str(),
                      row.step.c_str(), row.timing.median_us, range, row.gib_per_s, change);
        out << line;
    }
}

}  // namespace harness
