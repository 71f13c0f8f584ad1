// A small SVG chart writer, so that the report draws its own plot: panels of
// values per category on a log scale, with horizontal floor lines. No
// dependency beyond the standard library.
#pragma once

#include <optional>
#include <string>
#include <vector>

namespace harness::svg {

// A log-scale axis from `low` to `high`, both of the form {1, 2, 5}·10^e, with
// ticks at every such value between them (only at powers of ten when that
// would make too many).
struct LogAxis {
    double              low  = 1.0;
    double              high = 10.0;
    std::vector<double> ticks;
};

// The tightest such axis that holds [min_value, max_value]; both must be > 0.
// A single value (min == max) gets the step below and the step above it.
LogAxis log_axis(double min_value, double max_value);

// Where a value lies on the axis: 0 at low, 1 at high.
double log_position(const LogAxis& axis, double value);

// "<", ">", "&", '"' and "'" as XML entities.
std::string xml_escape(const std::string& text);

// A tick label: "0.5", "20", "1000", "1e+04".
std::string tick_label(double value);

enum class Marker { circle, diamond, none };

struct Series {
    std::string                        label;
    std::string                        color;  // any SVG colour, e.g. "#1f77b4"
    bool                               dashed  = false;
    bool                               connect = true;  // a line through consecutive present values
    Marker                             marker  = Marker::circle;
    std::vector<std::optional<double>> values;    // one per category; empty where there is none
    std::vector<std::string>           tooltips;  // one per category, shown on hover; may be empty
    double                             stroke_width = 2.0;
};

struct Floor {
    std::string label;
    std::string color;
    double      value = 0.0;
};

struct Panel {
    std::string              title;
    std::string              subtitle;
    std::vector<std::string> categories;  // x-axis labels, left to right
    std::vector<Series>      series;
    std::vector<Floor>       floors;
    // A numeric x axis instead: where x_values holds one value (> 0) per
    // category, the categories lie at those values on a log scale, labelled
    // at x_ticks only, with x_label under them.
    std::vector<double> x_values;
    std::vector<double> x_ticks;
    std::string         x_label;
    // One short text per category along the top of the plot (empty: none),
    // after annotation_label at the left.
    std::vector<std::string> annotations;
    std::string              annotation_label;
};

struct Chart {
    std::string              title;
    std::vector<std::string> notes;    // lines under the title
    std::string              y_label;  // on every panel's y axis
    std::vector<Panel>       panels;
    int                      columns     = 2;
    double                   panel_width = 560.0;  // in SVG units; each panel's height is fixed
};

// The whole chart as an SVG document. The legend lists the first panel's
// series; floors are labelled where they are drawn.
std::string render(const Chart& chart);

}  // namespace harness::svg
