#include "cli/plot_command.hpp"

#include <CLI/CLI.hpp>
#include <cstdio>

#include "core/error.hpp"
#include "io/score_writer.hpp"
#include "plot/report.hpp"

namespace speedqa::cli {
namespace {

struct PlotSettings {
    std::vector<std::string> inputs;
    std::string output;
    plot::ChartOptions chart;
    double scale = 1;
};

void plot(const PlotSettings& s) {
    const plot::OutputKind kind = plot::output_kind(s.output);
    if (kind == plot::OutputKind::png) plot::require_png();
    std::vector<plot::ScoreFile> files;
    for (const std::string& path : s.inputs) files.push_back(plot::read_score_file(path));
    const plot::Chart chart(files, s.chart);
    const std::string text = kind == plot::OutputKind::svg    ? plot::render_svg(chart)
                             : kind == plot::OutputKind::html ? plot::render_html(chart)
                                                              : plot::render_png(chart, s.scale);
    io::write_file(s.output, text);
}

}  // namespace

int plot_main(int argc, char** argv) {
    CLI::App app{"speedqa plot: per-frame curves of score files (speedqa's or vmaf's JSON, XML or CSV), one panel per\n"
                 "metric, several files overlaid (an encoding ladder), with each file's pooled mean and worst frames.",
                 "speedqa plot"};
    app.set_help_flag("--help", "Print this help and exit");
    app.get_formatter()->column_width(30);
    PlotSettings s;
    app.add_option("scores", s.inputs, "Score files")->required();
    app.add_option("-o,--output", s.output, "plot.svg, plot.png or report.html (SVG inline and a table of the pooled values)")
        ->required();
    app.add_option("--metric", s.chart.metrics, "Plot this metric (repeatable; default: all, VMAF first)");
    app.add_option("--label", s.chart.labels, "A name for each file, in order (default: the file names)");
    app.add_option("--title", s.chart.title, "The title");
    app.add_option("--worst", s.chart.worst, "Worst frames marked per curve (default 3)")->check(CLI::Range(0, 100));
    app.add_option("--columns", s.chart.columns, "Panels side by side (default: 1 up to 4 metrics, else 2)")
        ->check(CLI::Range(1, 6));
    app.add_option("--width", s.chart.width, "Width in pixels (default: 1100 a column, 1600 for more)")
        ->check(CLI::Range(640.0, 8000.0));
    app.add_option("--scale", s.scale, "PNG pixels per chart pixel (default 1; 2 for high-density screens)")
        ->check(CLI::Range(0.25, 4.0));
    try {
        app.parse(argc, argv);
    } catch (const CLI::CallForHelp&) {
        std::printf("%s", app.help().c_str());
        return 0;
    } catch (const CLI::ParseError& e) {
        std::fprintf(stderr, "speedqa plot: error: %s\nRun 'speedqa plot --help' for usage.\n", e.what());
        return 1;
    }
    try {
        plot(s);
    } catch (const Error& e) {
        std::fprintf(stderr, "speedqa plot: error: %s\n", e.what());
        return 1;
    }
    return 0;
}

}  // namespace speedqa::cli
