#include "cli/plot_command.hpp"

#include <cstdio>

#include "cli/cli_options.hpp"
#include "core/error.hpp"
#include "io/score_writer.hpp"
#include "plot/report.hpp"

namespace speedqa::cli {
namespace {

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
    PlotSettings s;
    switch (parse_plot_command_line(argc, argv, s)) {
    case ParseResult::exit_ok: return 0;
    case ParseResult::exit_error: return 1;
    case ParseResult::run: break;
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
