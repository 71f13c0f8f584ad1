#include "timing_table.hpp"

#include "gpu.hpp"

#include <algorithm>
#include <cstdio>

namespace harness {

void print_environment(std::ostream& out) {
    const int      clock = current_sm_clock_mhz();
    const GpuInfo& info  = gpu();
    out << "  GPU:   " << describe(info) << " (CUDA device " << info.device << " of " << info.device_count
        << "); SM clock now " << (clock > 0 ? std::to_string(clock) + " MHz" : std::string("unknown (no NVML)")) << "\n"
        << "  build: " << build_description() << "\n"
        << "  date:  " << today() << "\n";
}

double change_percent(const double old_value, const double new_value) {
    return 100.0 * (new_value - old_value) / old_value;
}

void print_timing_table(std::ostream& out, const std::vector<TimingRow>& rows) {
    std::vector<ReportTableRow> plain;
    for (const TimingRow& row : rows) {
        plain.push_back({row, std::nullopt, std::nullopt, std::string(), false});
    }
    print_timing_table(out, plain);
}

void print_timing_table(std::ostream& out, const std::vector<ReportTableRow>& rows) {
    const auto any          = [&rows](const auto& has) { return std::any_of(rows.begin(), rows.end(), has); };
    const bool with_shape   = any([](const ReportTableRow& r) { return !r.figures.shape.empty(); });
    const bool with_speedup = any([](const ReportTableRow& r) { return r.speedup.has_value(); });
    const bool with_copy    = any([](const ReportTableRow& r) { return r.percent_of_copy.has_value(); });
    size_t     step_width   = 24;
    for (const ReportTableRow& row : rows) {
        step_width = std::max(step_width, row.figures.step.size());
    }
    const int step_w = static_cast<int>(step_width);

    char       line[512];
    const auto print_start = [&](const char* shape, const char* step) {
        if (with_shape) {
            std::snprintf(line, sizeof(line), "  %-28s %-*s", shape, step_w, step);
        } else {
            std::snprintf(line, sizeof(line), "  %-*s", step_w, step);
        }
        out << line;
    };
    print_start("shape", "step");
    std::snprintf(line, sizeof(line), " %9s  %-19s %8s %9s", "us/run", "[min, max]", "GB/s", "change");
    out << line;
    if (with_speedup) {
        out << "  speed-up";
    }
    if (with_copy) {
        out << "  % of copy";
    }
    out << "\n";
    for (const ReportTableRow& row : rows) {
        const TimingRow& f = row.figures;
        print_start(f.shape.c_str(), f.step.c_str());
        if (!row.unmeasured.empty()) {
            out << " " << row.unmeasured << "\n";
            continue;
        }
        char range[64], change[32] = "";
        std::snprintf(range, sizeof(range), "[%.2f, %.2f]", f.timing.min_us, f.timing.max_us);
        if (f.change_percent) {
            std::snprintf(change, sizeof(change), "%+.1f %%", *f.change_percent);
        }
        char throughput[32] = "";
        if (!row.moves_no_bytes) {
            std::snprintf(throughput, sizeof(throughput), "%.2f", f.gib_per_s);
        }
        std::snprintf(line, sizeof(line), " %9.2f  %-19s %8s %9s", f.timing.median_us, range, throughput, change);
        out << line;
        if (with_speedup) {
            char speedup[32] = "";
            if (row.speedup) {
                std::snprintf(speedup, sizeof(speedup), "%.2fx", *row.speedup);
            }
            std::snprintf(line, sizeof(line), "  %8s", speedup);
            out << line;
        }
        if (with_copy) {
            char copy[32] = "";
            if (row.percent_of_copy) {
                std::snprintf(copy, sizeof(copy), "%.1f %%", *row.percent_of_copy);
            }
            std::snprintf(line, sizeof(line), "  %9s", copy);
            out << line;
        }
        out << "\n";
    }
}

}  // namespace harness
