// CPU tests of what the report derives and writes: the figures of a row, the
// CSV written and read back, and the SVG chart's axis and output.
#define DOCTEST_CONFIG_IMPLEMENT_WITH_MAIN
#include <doctest/doctest.h>

#include "l2_policy.hpp"
#include "plot.hpp"
#include "print_tables.hpp"
#include "reference_shapes.hpp"
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

// A run of the batch curve's first `points` points: three steps (the second
// fastest up to 64 matrices, the last from there), cuBLAS and the floor, in
// both modes; the last step is not timed at the largest point.
ReportRun curve_run(const size_t points) {
    ReportRun run                            = small_run();
    run.modes                                = {TimingMode::back_to_back, TimingMode::graph_replay};
    run.shapes                               = {};
    const std::vector<ReferenceShape>& curve = batch_curve();
    for (size_t i = 0; i < points && i < curve.size(); ++i) {
        ShapeResult shape;
        shape.id           = curve[i].id;
        shape.title        = curve[i].title;
        shape.problem      = curve[i].problem;
        shape.memory_bound = shape.problem.batch() >= 4096;
        const double batch = static_cast<double>(shape.problem.batch());
        const double late  = batch <= 64 ? 1.10 : 0.94;
        shape.rows = {row_of("01_first", RowKind::step, 10.0 + batch), row_of("02_second", RowKind::step, 5.0 + batch),
                      row_of("03_third", RowKind::step, late * (5.0 + batch)),
                      row_of("cuBLAS trsmBatched", RowKind::cublas, 40.0 + 3 * batch),
                      row_of("empty kernel (floor)", RowKind::empty_kernel, 4.0)};
        for (RowResult& row : shape.rows) {
            row.graph_replay = timing_of(0.5 * row.back_to_back->median_us);
        }
        if (i + 1 == points) {
            shape.rows[2].status = RowStatus::failed;
            shape.rows[2].note   = "NMSE 1 > 1e-7";
            shape.rows[2].back_to_back.reset();
            shape.rows[2].graph_replay.reset();
        }
        run.shapes.push_back(shape);
    }
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
        CHECK(parse({"r", "--shapes", "curve"}).shape_ids == std::vector<std::string>{"none", "curve"});
        CHECK(parse({"r", "--mode", "graph"}).modes == std::vector<TimingMode>{TimingMode::graph_replay});
        CHECK_THROWS_WITH_AS(parse({"r", "--shapes", "nine"}), doctest::Contains("--shapes takes pr,"), UsageError);
        CHECK_THROWS_WITH_AS(parse({"r", "--shapes", "nine"}), doctest::Contains("backend_ops_n256, curve or none"),
                             UsageError);
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

TEST_SUITE("cpu") {
    TEST_CASE("the batch curve: n = k = 64 from 1 to 16,384 matrices, Qwen3-Next's ubatches among its points") {
        const std::vector<ReferenceShape>& curve = batch_curve();
        REQUIRE(curve.size() == 23);
        std::vector<int64_t> batches;
        for (const ReferenceShape& point : curve) {
            CHECK(point.problem.n == 64);
            CHECK(point.problem.k == 64);
            CHECK(on_batch_curve(point.id));
            CHECK(std::string(point.id) == "curve_" + std::to_string(point.problem.batch()));
            if (point.problem.batch() >= 32) {
                CHECK(point.problem.ne03 == 32);  // 32 value heads
            }
            batches.push_back(point.problem.batch());
        }
        CHECK(std::is_sorted(batches.begin(), batches.end()));
        CHECK(batches.front() == 1);
        CHECK(batches.back() == 16384);
        // 64 tokens make one matrix a head: a 512-token ubatch is 256 matrices, 8k tokens 4,096.
        for (const int64_t tokens : {64, 512, 1024, 2048, 4096, 8192, 32768}) {
            CHECK(std::count(batches.begin(), batches.end(), tokens / 64 * 32) == 1);
        }
        for (const int64_t between : {96, 768, 1536, 12288}) {
            CHECK(std::count(batches.begin(), batches.end(), between) == 1);
        }
        CHECK_FALSE(on_batch_curve("qwen3_next"));
        CHECK_FALSE(on_batch_curve("curve"));
    }

    TEST_CASE("the fastest step and the last step of a shape") {
        const ReportRun    run   = curve_run(12);
        const ShapeResult& small = run.shapes.front();  // 1 matrix: step 02 fastest
        CHECK(*fastest_step(small, TimingMode::back_to_back) == 1);
        CHECK(*last_step(small) == 2);
        CHECK(*fastest_step(run.shapes[10], TimingMode::graph_replay) == 2);  // 256 matrices: step 03
        // The largest point: the last step failed, so the fastest timed one is step 02.
        CHECK(*fastest_step(run.shapes.back(), TimingMode::back_to_back) == 1);
        CHECK(curve_points(run).size() == 12);
        CHECK(curve_points(small_run()).empty());
    }

    TEST_CASE("the curve's table: per point the fastest step, the last against it, cuBLAS and the floors") {
        std::ostringstream out;
        print_curve(out, curve_run(12));
        const std::string text = out.str();
        CHECK(text.find("The batch curve: n = k = 64, 1 to 384 matrices") != std::string::npos);
        CHECK(count_of(text, "last / fastest =") == 2);   // one table per mode
        CHECK(text.find("1.100") != std::string::npos);   // step 03 against step 02 at 1 matrix
        CHECK(text.find("FAILED") != std::string::npos);  // the last step at the largest point
        std::ostringstream none;
        print_curve(none, small_run());
        CHECK(none.str().empty());
    }

    TEST_CASE("the curve's plot: a panel per mode, a line per step, the fastest along the top, numeric x") {
        const ReportRun    run = curve_run(23);
        std::ostringstream svg;
        REQUIRE(write_curve_plot(svg, run));
        const std::string text = svg.str();
        CHECK(text.find("nan") == std::string::npos);
        CHECK(count_of(text, "fastest:") == 2);
        // Three steps, cuBLAS, the empty kernel and the copy floor in each panel: each one line
        // (the last step and the copy floor broken where a point has no value).
        CHECK(count_of(text, "<polyline") == 2 * 6);
        CHECK(text.find("#d62728") != std::string::npos);  // the last step in red
        CHECK(text.find(">16384 matrices") == std::string::npos);
        CHECK(text.find(">4096<") != std::string::npos);  // a tick every factor of four
        CHECK(text.find("03_third at 16 matrices: ") != std::string::npos);
        // No curve point: nothing drawn; the reference shapes' plot leaves the curve out.
        std::ostringstream none;
        CHECK_FALSE(write_curve_plot(none, small_run()));
        CHECK(none.str().empty());
        std::ostringstream panels;
        ReportRun          both = small_run();
        both.shapes.push_back(run.shapes.front());
        write_plot(panels, both);
        CHECK(panels.str().find("batch curve") == std::string::npos);
        // Through the CSV: the same plot.
        std::ostringstream csv;
        write_csv(csv, run);
        std::istringstream written(csv.str());
        std::ostringstream again;
        REQUIRE(write_curve_plot(again, read_csv(written)));
        CHECK(again.str() == text);
    }

    TEST_CASE("the overlay's curve: each run's last step, cuBLAS and copy floor in its colour") {
        std::vector<LabelledRun> runs = {{"h200", curve_run(23)}, {"other", curve_run(10)}};
        std::ostringstream       svg;
        REQUIRE(write_overlay_curve_plot(svg, runs));
        const std::string text = svg.str();
        CHECK(text.find("2 runs") != std::string::npos);
        CHECK(text.find("run 2: 03 at 128 matrices") != std::string::npos);
        CHECK(text.find("run 2: 03 at 192 matrices") == std::string::npos);  // beyond its points
        std::ostringstream overlay;
        write_overlay_plot(overlay, runs);
        CHECK(overlay.str().find("batch curve") == std::string::npos);
        std::vector<LabelledRun> without = {{"a", small_run()}, {"b", small_run()}};
        std::ostringstream       none;
        CHECK_FALSE(write_overlay_curve_plot(none, without));
    }

    TEST_CASE("svg: a numeric x axis places values on a log scale") {
        svg::Chart chart;
        svg::Panel panel;
        panel.categories = {"1", "10", "100"};
        panel.x_values   = {1.0, 10.0, 100.0};
        panel.x_ticks    = {1.0, 10.0, 100.0, 1000.0};
        panel.x_label    = "matrices";
        panel.series.push_back({"s", "#000000", false, true, svg::Marker::circle, {1.0, 2.0, 4.0}, {}});
        chart.panels.push_back(panel);
        const std::string text = svg::render(chart);
        // Evenly spaced, as 1, 10 and 100 are on a log scale; the tick beyond the values is left out.
        CHECK(count_of(text, "<circle") == 3 + 1);  // and the legend's
        CHECK(text.find(">1000<") == std::string::npos);
        CHECK(text.find(">matrices<") != std::string::npos);
    }
}

}  // namespace harness
