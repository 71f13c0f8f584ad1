// CPU tests of what the report derives and writes: the figures of a row, the
// CSV written and read back, and the SVG chart's axis and output.
#define DOCTEST_CONFIG_IMPLEMENT_WITH_MAIN
#include <doctest/doctest.h>

#include "l2_policy.hpp"
#include "plot.hpp"
#include "report_options.hpp"
#include "results.hpp"
#include "results_csv.hpp"
#include "svg_chart.hpp"

#include <algorithm>
#include <cmath>
#include <sstream>

namespace harness {
namespace {

Timing timing_of(const double median_us) {
    Timing t;
    t.median_us           = median_us;
    t.min_us              = 0.9 * median_us;
    t.max_us              = 1.2 * median_us;
    t.samples             = 21;
    t.launches_per_sample = 100;
    return t;
}

RowResult row_of(const std::string& name, const RowKind kind, const std::optional<double> back_to_back_us) {
    RowResult row;
    row.name = name;
    row.kind = kind;
    if (back_to_back_us) {
        row.back_to_back = timing_of(*back_to_back_us);
    } else {
        row.status = RowStatus::not_applicable;
        row.note   = "k = 64 is outside this step's limit, 1 <= k <= 32";
    }
    return row;
}

// A run with one shape: three steps (the second n/a), cuBLAS and the floor.
ReportRun small_run() {
    ReportRun run;
    run.gpu                   = "Test GPU, sm_90, 132 SMs";
    run.gpu_name              = "Test GPU";
    run.date                  = "2026-11-29";
    run.build                 = "nvcc 13.0, arch 90";
    run.l2_bytes              = 60 << 20;
    run.modes                 = {TimingMode::back_to_back};
    run.copy.bytes_per_copy   = 1 << 30;
    run.copy.timing           = timing_of(500.0);
    run.copy.bytes_per_second = 4e12;
    ShapeResult shape;
    shape.id      = "pr";
    shape.title   = "the PR's shape";
    shape.problem = Problem::contiguous(64, 6, 4, 2);
    shape.rows    = {row_of("01_first", RowKind::step, 10.0), row_of("02_second", RowKind::step, std::nullopt),
                     row_of("03_third", RowKind::step, 8.0), row_of("cuBLAS trsmBatched", RowKind::cublas, 40.0),
                     row_of("empty kernel (floor)", RowKind::empty_kernel, 4.0)};
    run.shapes.push_back(shape);
    return run;
}

size_t count_of(const std::string& text, const std::string& what) {
    size_t count = 0;
    for (size_t at = text.find(what); at != std::string::npos; at = text.find(what, at + what.size())) {
        ++count;
    }
    return count;
}

// The fields of one CSV line, quotes honoured.
std::vector<std::string> csv_split(const std::string& line) {
    std::vector<std::string> fields(1);
    bool                     quoted = false;
    for (size_t i = 0; i < line.size(); ++i) {
        const char c = line[i];
        if (quoted && c == '"' && i + 1 < line.size() && line[i + 1] == '"') {
            fields.back() += '"';
            ++i;
        } else if (c == '"') {
            quoted = !quoted;
        } else if (c == ',' && !quoted) {
            fields.emplace_back();
        } else {
            fields.back() += c;
        }
    }
    return fields;
}

}  // namespace

TEST_SUITE("cpu") {
    TEST_CASE("row figures: GB/s as test-backend-ops counts, change against the step above, speed-up over the first") {
        const ReportRun    run   = small_run();
        const ShapeResult& shape = run.shapes.front();
        const RowFigures   first = row_figures(shape, 0, TimingMode::back_to_back, run.copy);
        CHECK(*first.gib_per_s == doctest::Approx(155648.0 / 10e-6 / (1024.0 * 1024.0 * 1024.0)));
        CHECK_FALSE(first.change_percent);
        CHECK(*first.speedup == doctest::Approx(1.0));
        CHECK(*first.percent_of_copy == doctest::Approx(100.0 * 155648.0 / 10e-6 / 4e12));

        CHECK_FALSE(row_figures(shape, 1, TimingMode::back_to_back, run.copy).us);  // n/a: no figures at all
        // The step above the third is n/a: no change, but still a speed-up over the first.
        const RowFigures third = row_figures(shape, 2, TimingMode::back_to_back, run.copy);
        CHECK_FALSE(third.change_percent);
        CHECK(*third.speedup == doctest::Approx(1.25));
        const RowFigures cublas = row_figures(shape, 3, TimingMode::back_to_back, run.copy);
        CHECK_FALSE(cublas.change_percent);
        CHECK(*cublas.speedup == doctest::Approx(0.25));
        const RowFigures floor = row_figures(shape, 4, TimingMode::back_to_back, run.copy);
        CHECK(*floor.us == doctest::Approx(4.0));
        CHECK_FALSE(floor.gib_per_s);
        CHECK_FALSE(floor.speedup);
        CHECK_FALSE(row_figures(shape, 0, TimingMode::graph_replay, run.copy).us);  // not timed in that mode
        CHECK(copy_floor_us(shape.problem, run.copy) == doctest::Approx(1e6 * 155648.0 / 4e12));
    }

    TEST_CASE("the PR's change is measured from the first step to the steps named") {
        ReportRun                         run = small_run();
        const std::vector<MeasuredChange> changes =
            measured_pr_changes(run.shapes.front(), run.modes, {"02", "03", "07"});
        REQUIRE(changes.size() == 1);  // 02 is n/a, 07 does not exist
        CHECK(changes[0].from == "01_first");
        CHECK(changes[0].to == "03_third");
        CHECK(changes[0].change_percent() == doctest::Approx(-20.0));
        CHECK(published_pr_changes[0].baseline_us == doctest::Approx(7.14));
    }

    TEST_CASE("CSV fields are quoted only when they must be") {
        CHECK(csv_field("01_shared_memory") == "01_shared_memory");
        CHECK(csv_field("A{64,64,4,2}") == "\"A{64,64,4,2}\"");
        CHECK(csv_field("say \"hi\"") == "\"say \"\"hi\"\"\"");
        CHECK(csv_field("two\nlines") == "\"two\nlines\"");
    }

    TEST_CASE("the CSV has the header's number of fields on every line, one line per timed mode") {
        ReportRun run                           = small_run();
        run.modes                               = {TimingMode::back_to_back, TimingMode::graph_replay};
        run.shapes.front().rows[0].graph_replay = timing_of(6.0);
        std::ostringstream out;
        write_csv(out, run);
        std::istringstream       lines(out.str());
        std::string              line;
        std::vector<std::string> all;
        while (std::getline(lines, line)) {
            all.push_back(line);
        }
        // header, 01 twice, 02 (n/a) once, 03, cuBLAS and the floor once each, the copy bandwidth
        REQUIRE(all.size() == 1 + 2 + 1 + 3 + 1);
        const size_t columns = csv_split(all[0]).size();
        for (const std::string& l : all) {
            CHECK(csv_split(l).size() == columns);
        }
        CHECK(out.str().find("n/a,\"k = 64 is outside this step's limit, 1 <= k <= 32\"") != std::string::npos);
        CHECK(out.str().find(",graph_replay,step,01_first,ok,") != std::string::npos);
    }

    TEST_CASE("log axis: {1, 2, 5} steps around the values, ticks inside") {
        const svg::LogAxis axis = svg::log_axis(0.7, 13.0);
        CHECK(axis.low == doctest::Approx(0.5));
        CHECK(axis.high == doctest::Approx(20.0));
        CHECK(axis.ticks == std::vector<double>{0.5, 1.0, 2.0, 5.0, 10.0, 20.0});
        const svg::LogAxis single = svg::log_axis(5.0, 5.0);
        CHECK(single.low == doctest::Approx(2.0));
        CHECK(single.high == doctest::Approx(10.0));
        const svg::LogAxis exact = svg::log_axis(1.0, 100.0);
        CHECK(exact.low == doctest::Approx(1.0));
        CHECK(exact.high == doctest::Approx(100.0));
        const svg::LogAxis wide = svg::log_axis(0.3, 2e4);  // too many steps: decades only
        CHECK(wide.ticks == std::vector<double>{1.0, 10.0, 100.0, 1000.0, 1e4});
        CHECK(svg::log_position(axis, 0.5) == doctest::Approx(0.0));
        CHECK(svg::log_position(axis, 20.0) == doctest::Approx(1.0));
        CHECK(svg::log_position(axis, 1.0) < svg::log_position(axis, 2.0));
    }

    TEST_CASE("tick labels and XML escaping") {
        CHECK(svg::tick_label(0.5) == "0.5");
        CHECK(svg::tick_label(20.0) == "20");
        CHECK(svg::tick_label(2000.0) == "2000");
        CHECK(svg::tick_label(1e5) == "1e+05");
        CHECK(svg::xml_escape("A{64} <b> & \"c\" 'd'") == "A{64} &lt;b&gt; &amp; &quot;c&quot; &apos;d&apos;");
    }

    TEST_CASE("the chart: one panel per shape, a line through consecutive steps, no NaN") {
        svg::Chart chart;
        chart.title = "t <1>";
        svg::Panel panel;
        panel.title      = "the PR's shape";
        panel.categories = {"01", "02", "03", "04", "cuBLAS"};
        panel.series.push_back(
            {"steps", "#1f77b4", false, true, svg::Marker::circle, {10.0, 9.0, std::nullopt, 8.0, std::nullopt}, {}});
        panel.series.push_back({"cuBLAS",
                                "#1f77b4",
                                false,
                                false,
                                svg::Marker::diamond,
                                {std::nullopt, std::nullopt, std::nullopt, std::nullopt, 40.0},
                                {"", "", "", "", "tip"}});
        panel.floors.push_back({"empty kernel", "#6baed6", 4.0});
        chart.panels               = {panel, panel, panel};
        const std::string svg_text = svg::render(chart);
        CHECK(svg_text.rfind("<?xml", 0) == 0);
        CHECK(svg_text.find("</svg>\n") == svg_text.size() - 7);
        CHECK(svg_text.find("t &lt;1&gt;") != std::string::npos);
        CHECK(count_of(svg_text, "<polyline") == 3);        // 01-02 per panel; 04 stands alone after the gap
        CHECK(count_of(svg_text, "<circle") == 3 * 3 + 1);  // three points per panel, one in the legend
        CHECK(count_of(svg_text, "<polygon") == 3 + 1);     // a diamond per panel, one in the legend
        CHECK(count_of(svg_text, "<title>tip</title>") == 3);
        CHECK(svg_text.find("nan") == std::string::npos);
        CHECK(svg_text.find("inf") == std::string::npos);
    }

    TEST_CASE("results.csv reads back as written: the same CSV, the same plot") {
        ReportRun run                                = small_run();
        run.modes                                    = {TimingMode::back_to_back, TimingMode::graph_replay};
        run.shapes.front().rows.front().graph_replay = timing_of(7.5);
        run.shapes.front().rows.front().note         = "a \"quoted\" note,\twith a tab";
        run.shapes.front().memory_bound              = true;
        std::ostringstream written;
        write_csv(written, run);
        std::istringstream in(written.str());
        const ReportRun    read = read_csv(in);
        CHECK(read.gpu == run.gpu);
        CHECK(read.build == run.build);
        CHECK(read.shapes.front().memory_bound);
        CHECK(read.shapes.front().rows.front().note == run.shapes.front().rows.front().note);
        CHECK(!read.shapes.front().rows[1].back_to_back);  // n/a: no timing
        CHECK(read.copy.bytes_per_second == doctest::Approx(run.copy.bytes_per_second).epsilon(1e-5));
        std::ostringstream plot, replot;
        write_plot(plot, run);
        write_plot(replot, read);
        CHECK(replot.str() == plot.str());
    }

    TEST_CASE("a file that is not the report's CSV is refused with a reason") {
        const auto reason = [](const std::string& text) {
            std::istringstream in(text);
            try {
                read_csv(in);
            } catch (const ResultsFormatError& error) {
                return std::string(error.what());
            }
            return std::string("read without complaint");
        };
        CHECK(reason("").find("not the report's results.csv") != std::string::npos);
        CHECK(reason("a,b,c\n1,2,3\n").find("not the report's results.csv") != std::string::npos);
        std::ostringstream written;
        write_csv(written, small_run());
        const std::string header = written.str().substr(0, written.str().find('\n') + 1);
        CHECK(reason(header).find("no shape") != std::string::npos);
        CHECK(reason(header + "x,y\n").find("fields") != std::string::npos);
        std::string bad_number = written.str();
        bad_number.replace(bad_number.find(",10,9,12,"), 9, ",ten,9,12,");
        CHECK(reason(bad_number).find("not a number") != std::string::npos);
    }

    TEST_CASE("one L2 rule: a quarter of the L2 makes a shape memory-bound and rotated") {
        const int64_t l2    = 60 << 20;
        const Problem small = Problem::contiguous(64, 64, 8, 32);    // 12.6 MB
        const Problem large = Problem::contiguous(64, 64, 128, 32);  // 201 MB
        CHECK_FALSE(memory_bound(small, l2));
        CHECK(memory_bound(large, l2));
        CHECK(rotation_sets(small, l2, Rotation::automatic) == 1);
        CHECK(rotation_sets(large, l2, Rotation::automatic) == 2);  // 4 x 60 MiB over 201 MB, rounded up
        CHECK(rotation_sets(large, l2, Rotation::never) == 1);
        CHECK(rotation_sets(small, l2, Rotation::always) > 1);
    }

    TEST_CASE("the report's command line: shapes by id, modes, and --replot alone") {
        const auto parse = [](std::vector<std::string> words) {
            std::vector<char*> argv;
            for (std::string& w : words) {
                argv.push_back(w.data());
            }
            return parse_report_options(static_cast<int>(argv.size()), argv.data());
        };
        CHECK(parse({"r", "--shapes", "pr,qwen3_next_32k"}).shape_ids ==
              std::vector<std::string>{"none", "pr", "qwen3_next_32k"});
        CHECK(parse({"r", "--mode", "graph"}).modes == std::vector<TimingMode>{TimingMode::graph_replay});
        CHECK_THROWS_WITH_AS(parse({"r", "--shapes", "nine"}), doctest::Contains("--shapes takes pr,"), UsageError);
        CHECK_THROWS_WITH_AS(parse({"r", "--replot", "x.csv", "--k", "5"}), doctest::Contains("a shape or a seed"),
                             UsageError);
    }

    TEST_CASE("the report's plot: a panel per shape, the floors labelled") {
        ReportRun run                   = small_run();
        run.shapes.front().memory_bound = true;
        std::ostringstream out;
        write_plot(out, run);
        const std::string svg_text = out.str();
        CHECK(svg_text.find("the PR&apos;s shape") != std::string::npos);
        CHECK(svg_text.find("empty kernel, b2b 4.00 us") != std::string::npos);
        CHECK(svg_text.find("copy floor") != std::string::npos);
        CHECK(svg_text.find(">cuBLAS<") != std::string::npos);
    }
}

}  // namespace harness
