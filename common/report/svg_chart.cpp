#include "svg_chart.hpp"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <sstream>

namespace harness::svg {

namespace {

// The value {1, 2, 5}·10^e at `index`, where index = 3e + {0, 1, 2}.
double step_value(const long index) {
    static const double mantissas[] = {1.0, 2.0, 5.0};
    const long          exponent    = index >= 0 ? index / 3 : -((-index + 2) / 3);
    const long          position    = index - 3 * exponent;
    return mantissas[position] * std::pow(10.0, static_cast<double>(exponent));
}

// The index of the largest step value <= value.
long step_index_at_or_below(const double value) {
    long index = 3 * static_cast<long>(std::floor(std::log10(value)));
    while (step_value(index + 1) <= value * (1.0 + 1e-12)) {
        ++index;
    }
    while (step_value(index) > value * (1.0 + 1e-12)) {
        --index;
    }
    return index;
}

std::string format(const char* pattern, const double value) {
    char text[64];
    std::snprintf(text, sizeof(text), pattern, value);
    return text;
}

std::string coordinate(const double value) {
    return format("%.1f", value);
}

constexpr int max_ticks = 12;

// Geometry of one panel, in SVG units.
constexpr double panel_height = 330.0;
constexpr double plot_left    = 62.0;   // room for the y tick labels and the axis label
constexpr double plot_right   = 150.0;  // room for the floor labels
constexpr double plot_top     = 48.0;   // room for the title and subtitle
constexpr double plot_bottom  = 42.0;   // room for the category labels
constexpr double chart_top    = 70.0;   // room for the chart's title and legend, before the notes

}  // namespace

LogAxis log_axis(const double min_value, const double max_value) {
    const double low_value  = std::min(min_value, max_value);
    const double high_value = std::max(min_value, max_value);
    long         low        = step_index_at_or_below(low_value);
    long         high       = step_index_at_or_below(high_value);
    if (step_value(high) < high_value * (1.0 - 1e-12)) {
        ++high;
    }
    if (low == high) {
        --low;
        ++high;
    }
    LogAxis axis;
    axis.low                = step_value(low);
    axis.high               = step_value(high);
    const bool decades_only = high - low + 1 > max_ticks;
    for (long index = low; index <= high; ++index) {
        const bool power_of_ten = ((index % 3) + 3) % 3 == 0;
        if (!decades_only || power_of_ten) {
            axis.ticks.push_back(step_value(index));
        }
    }
    return axis;
}

double log_position(const LogAxis& axis, const double value) {
    return (std::log10(value) - std::log10(axis.low)) / (std::log10(axis.high) - std::log10(axis.low));
}

std::string xml_escape(const std::string& text) {
    std::string escaped;
    for (const char c : text) {
        switch (c) {
            case '<': escaped += "&lt;"; break;
            case '>': escaped += "&gt;"; break;
            case '&': escaped += "&amp;"; break;
            case '"': escaped += "&quot;"; break;
            case '\'': escaped += "&apos;"; break;
            default: escaped += c;
        }
    }
    return escaped;
}

std::string tick_label(const double value) {
    return format(value >= 1e4 || value < 1e-3 ? "%.0e" : "%g", value);
}

namespace {

void render_marker(std::ostream& out, const Marker marker, const double x, const double y, const std::string& color,
                   const std::string& tooltip) {
    if (marker == Marker::none) {
        return;
    }
    if (marker == Marker::circle) {
        out << "<circle cx=\"" << coordinate(x) << "\" cy=\"" << coordinate(y) << "\" r=\"3.5\" fill=\"" << color
            << "\">";
    } else {
        const double r = 5.0;
        out << "<polygon points=\"" << coordinate(x) << ',' << coordinate(y - r) << ' ' << coordinate(x + r) << ','
            << coordinate(y) << ' ' << coordinate(x) << ',' << coordinate(y + r) << ' ' << coordinate(x - r) << ','
            << coordinate(y) << "\" fill=\"white\" stroke=\"" << color << "\" stroke-width=\"2\">";
    }
    if (!tooltip.empty()) {
        out << "<title>" << xml_escape(tooltip) << "</title>";
    }
    out << (marker == Marker::circle ? "</circle>\n" : "</polygon>\n");
}

void render_panel(std::ostream& out, const Panel& panel, const std::string& y_label, const double panel_width,
                  const double left, const double top) {
    const double width  = panel_width - plot_left - plot_right;
    const double height = panel_height - plot_top - plot_bottom;
    const double x0     = left + plot_left;
    const double y0     = top + plot_top;

    out << "<g>\n<text x=\"" << coordinate(x0) << "\" y=\"" << coordinate(top + 18) << "\" class=\"title\">"
        << xml_escape(panel.title) << "</text>\n";
    out << "<text x=\"" << coordinate(x0) << "\" y=\"" << coordinate(top + 34) << "\" class=\"note\">"
        << xml_escape(panel.subtitle) << "</text>\n";

    double     min_value = INFINITY, max_value = 0.0;
    const auto include = [&](const double v) {
        if (std::isfinite(v) && v > 0.0) {
            min_value = std::min(min_value, v);
            max_value = std::max(max_value, v);
        }
    };
    for (const Series& series : panel.series) {
        for (const std::optional<double>& v : series.values) {
            if (v) {
                include(*v);
            }
        }
    }
    for (const Floor& floor : panel.floors) {
        include(floor.value);
    }
    out << "<rect x=\"" << coordinate(x0) << "\" y=\"" << coordinate(y0) << "\" width=\"" << coordinate(width)
        << "\" height=\"" << coordinate(height) << "\" class=\"frame\"/>\n";
    if (!(max_value > 0.0)) {
        out << "<text x=\"" << coordinate(x0 + 10) << "\" y=\"" << coordinate(y0 + height / 2)
            << "\" class=\"note\">nothing measured</text>\n</g>\n";
        return;
    }
    const LogAxis axis       = log_axis(min_value, max_value);
    const auto    y_of       = [&](const double v) { return y0 + height * (1.0 - log_position(axis, v)); };
    const size_t  categories = panel.categories.size();
    const bool    numeric_x  = !panel.x_values.empty() && panel.x_values.size() == categories;
    double        x_min = INFINITY, x_max = 0.0;
    for (const double x : panel.x_values) {
        x_min = std::min(x_min, x);
        x_max = std::max(x_max, x);
    }
    // On a numeric axis, half a category's share of the width is left at either end, as on a categorical one.
    const double x_span   = numeric_x && x_max > x_min ? std::log10(x_max / x_min) : 1.0;
    const double x_margin = numeric_x ? 0.5 * x_span / static_cast<double>(std::max<size_t>(categories - 1, 1)) : 0.0;
    const auto   x_at     = [&](const double value) {
        return x0 + width * (std::log10(value / x_min) + x_margin) / (x_span + 2.0 * x_margin);
    };
    const auto x_of = [&](const size_t i) {
        return numeric_x ? x_at(panel.x_values[i]) : x0 + width * (static_cast<double>(i) + 0.5) / categories;
    };

    for (const double tick : axis.ticks) {
        const double y = y_of(tick);
        out << "<line x1=\"" << coordinate(x0) << "\" y1=\"" << coordinate(y) << "\" x2=\"" << coordinate(x0 + width)
            << "\" y2=\"" << coordinate(y) << "\" class=\"grid\"/>\n";
        out << "<text x=\"" << coordinate(x0 - 6) << "\" y=\"" << coordinate(y + 4) << "\" class=\"tick\" "
            << "text-anchor=\"end\">" << tick_label(tick) << "</text>\n";
    }
    out << "<text transform=\"translate(" << coordinate(left + 14) << ',' << coordinate(y0 + height / 2)
        << ") rotate(-90)\" class=\"note\" text-anchor=\"middle\">" << xml_escape(y_label) << "</text>\n";
    if (numeric_x) {
        for (const double tick : panel.x_ticks) {
            if (!(tick >= x_min && tick <= x_max)) {
                continue;
            }
            const double x = x_at(tick);
            out << "<line x1=\"" << coordinate(x) << "\" y1=\"" << coordinate(y0) << "\" x2=\"" << coordinate(x)
                << "\" y2=\"" << coordinate(y0 + height) << "\" class=\"grid\"/>\n";
            out << "<text x=\"" << coordinate(x) << "\" y=\"" << coordinate(y0 + height + 16)
                << "\" class=\"tick\" text-anchor=\"middle\">" << format("%g", tick) << "</text>\n";
        }
        out << "<text x=\"" << coordinate(x0 + width / 2) << "\" y=\"" << coordinate(y0 + height + 32)
            << "\" class=\"note\" text-anchor=\"middle\">" << xml_escape(panel.x_label) << "</text>\n";
    } else {
        for (size_t i = 0; i < categories; ++i) {
            out << "<text x=\"" << coordinate(x_of(i)) << "\" y=\"" << coordinate(y0 + height + 16)
                << "\" class=\"tick\" text-anchor=\"middle\">" << xml_escape(panel.categories[i]) << "</text>\n";
        }
    }
    if (!panel.annotations.empty()) {
        out << "<text x=\"" << coordinate(x0 + 4) << "\" y=\"" << coordinate(y0 + 12) << "\" class=\"tick\">"
            << xml_escape(panel.annotation_label) << "</text>\n";
        for (size_t i = 0; i < categories && i < panel.annotations.size(); ++i) {
            out << "<text x=\"" << coordinate(x_of(i)) << "\" y=\"" << coordinate(y0 + 26)
                << "\" class=\"tick\" text-anchor=\"middle\">" << xml_escape(panel.annotations[i]) << "</text>\n";
        }
    }
    // Floor labels sit right of the plot, nudged apart where floors lie close together.
    std::vector<double> label_ys;
    for (const Floor& floor : panel.floors) {
        if (!(floor.value > 0.0) || !std::isfinite(floor.value)) {
            continue;
        }
        const double y = y_of(floor.value);
        out << "<line x1=\"" << coordinate(x0) << "\" y1=\"" << coordinate(y) << "\" x2=\"" << coordinate(x0 + width)
            << "\" y2=\"" << coordinate(y) << "\" stroke=\"" << floor.color
            << "\" stroke-width=\"1.5\" stroke-dasharray=\"2,3\"/>\n";
        double label_y = y + 4;
        for (const double taken : label_ys) {
            if (std::fabs(label_y - taken) < 12) {
                label_y = taken + 12;
            }
        }
        label_ys.push_back(label_y);
        out << "<text x=\"" << coordinate(x0 + width + 6) << "\" y=\"" << coordinate(label_y) << "\" class=\"floor\" "
            << "fill=\"" << floor.color << "\">" << xml_escape(floor.label) << "</text>\n";
    }
    for (const Series& series : panel.series) {
        if (series.connect) {
            // One polyline per run of consecutive present values.
            std::ostringstream points;
            int                count = 0;
            const auto         flush = [&] {
                if (count >= 2) {
                    out << "<polyline points=\"" << points.str() << "\" fill=\"none\" stroke=\"" << series.color
                        << "\" stroke-width=\"" << format("%g", series.stroke_width) << "\""
                        << (series.dashed ? " stroke-dasharray=\"6,4\"" : "") << "/>\n";
                }
                points.str("");
                count = 0;
            };
            for (size_t i = 0; i < series.values.size() && i < categories; ++i) {
                if (!series.values[i] || !(*series.values[i] > 0.0)) {
                    flush();
                    continue;
                }
                points << (count > 0 ? " " : "") << coordinate(x_of(i)) << ',' << coordinate(y_of(*series.values[i]));
                ++count;
            }
            flush();
        }
        for (size_t i = 0; i < series.values.size() && i < categories; ++i) {
            if (series.values[i] && *series.values[i] > 0.0) {
                render_marker(out, series.marker, x_of(i), y_of(*series.values[i]), series.color,
                              i < series.tooltips.size() ? series.tooltips[i] : std::string());
            }
        }
    }
    out << "</g>\n";
}

}  // namespace

// Where each legend entry starts: rows under the notes, a new row where the
// next entry would pass the chart's right edge.
struct LegendPlace {
    double x;
    int    row;
};

std::vector<LegendPlace> legend_places(const std::vector<Series>& series, const double width) {
    std::vector<LegendPlace> places;
    double                   x   = 12.0;
    int                      row = 0;
    for (const Series& entry : series) {
        const double entry_width = 40.0 + 6.5 * static_cast<double>(entry.label.size());
        if (x > 12.0 && x + entry_width > width - 12.0) {
            x = 12.0;
            ++row;
        }
        places.push_back({x, row});
        x += entry_width;
    }
    return places;
}

std::string render(const Chart& chart) {
    const int                      columns = std::max(chart.columns, 1);
    const size_t                   rows    = (chart.panels.size() + columns - 1) / columns;
    const double                   width   = chart.panel_width * columns;
    const std::vector<LegendPlace> legend =
        chart.panels.empty() ? std::vector<LegendPlace>() : legend_places(chart.panels.front().series, width);
    const int    legend_rows = legend.empty() ? 1 : legend.back().row + 1;
    const double top         = chart_top + 16.0 * chart.notes.size() + 16.0 * (legend_rows - 1);
    const double height      = top + panel_height * static_cast<double>(rows) + 10.0;

    std::ostringstream out;
    out << "<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n"
        << "<svg xmlns=\"http://www.w3.org/2000/svg\" width=\"" << coordinate(width) << "\" height=\""
        << coordinate(height) << "\" viewBox=\"0 0 " << coordinate(width) << ' ' << coordinate(height) << "\">\n"
        << "<style>text{font-family:sans-serif;fill:#222}.title{font-size:15px;font-weight:bold}"
        << ".note{font-size:11px;fill:#555}.tick{font-size:10px;fill:#444}.floor{font-size:10px}"
        << ".grid{stroke:#e4e4e4;stroke-width:1}.frame{fill:none;stroke:#999;stroke-width:1}</style>\n"
        << "<rect width=\"100%\" height=\"100%\" fill=\"white\"/>\n";
    out << "<text x=\"12\" y=\"24\" class=\"title\">" << xml_escape(chart.title) << "</text>\n";
    for (size_t i = 0; i < chart.notes.size(); ++i) {
        out << "<text x=\"12\" y=\"" << coordinate(42 + 16.0 * i) << "\" class=\"note\">" << xml_escape(chart.notes[i])
            << "</text>\n";
    }
    // The legend: the first panel's series, in rows under the notes.
    for (size_t i = 0; i < legend.size(); ++i) {
        const Series& series = chart.panels.front().series[i];
        const double  x      = legend[i].x;
        const double  y      = top - 16.0 * (legend_rows - legend[i].row);
        if (series.connect) {
            out << "<line x1=\"" << coordinate(x) << "\" y1=\"" << coordinate(y - 4) << "\" x2=\"" << coordinate(x + 24)
                << "\" y2=\"" << coordinate(y - 4) << "\" stroke=\"" << series.color << "\" stroke-width=\"2\""
                << (series.dashed ? " stroke-dasharray=\"6,4\"" : "") << "/>\n";
        }
        render_marker(out, series.marker, x + 12, y - 4, series.color, std::string());
        out << "<text x=\"" << coordinate(x + 30) << "\" y=\"" << coordinate(y) << "\" class=\"note\">"
            << xml_escape(series.label) << "</text>\n";
    }
    for (size_t i = 0; i < chart.panels.size(); ++i) {
        const double left = chart.panel_width * static_cast<double>(i % columns);
        const double y    = top + panel_height * static_cast<double>(i / columns);
        render_panel(out, chart.panels[i], chart.y_label, chart.panel_width, left, y);
    }
    out << "</svg>\n";
    return out.str();
}

}  // namespace harness::svg
