// Printing measurements with what they were measured on.
#pragma once

#include "problem.hpp"
#include "timing.hpp"

#include <optional>
#include <ostream>
#include <string>
#include <vector>

namespace harness {

// GPU, clocks, driver and runtime, build flags and date: printed with every table.
void print_environment(std::ostream& out);

struct TimingRow {
    std::string           shape;  // empty: same shape as the row above
    std::string           step;
    Timing                timing;
    double                gib_per_s = 0.0;
    std::optional<double> change_percent;  // against the row above
};

void print_timing_table(std::ostream& out, const std::vector<TimingRow>& rows);

// A row as the report prints it: a TimingRow and what the report adds.
struct ReportTableRow {
    TimingRow             figures;
    std::optional<double> speedup;                 // time of the table's first step over this row's time
    std::optional<double> percent_of_copy;         // this row's bytes per second over the device's copy bandwidth
    std::string           unmeasured;              // when not empty, printed instead of the figures ("n/a: ...")
    bool                  moves_no_bytes = false;  // a floor row: no GB/s
};

// The same table; a column is printed when any row has a value for it: the
// shape when any row names one, the speed-up and % of copy bandwidth when
// any row has them.
void print_timing_table(std::ostream& out, const std::vector<ReportTableRow>& rows);

// (new - old) / old, in percent.
double change_percent(double old_value, double new_value);

}  // namespace harness
