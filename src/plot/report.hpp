// The chart as a file: SVG, PNG (with cairo) or one self-contained HTML page
// (the SVG inline, then a table of every file's pooled values and worst frames).
#pragma once

#include <string>

#include "plot/chart.hpp"

namespace speedqa::plot {

enum class OutputKind { svg, png, html };

// From the output's extension (.svg, .png, .html or .htm, any case); throws Error otherwise.
OutputKind output_kind(const std::string& path);

std::string render_svg(const Chart& chart);
std::string render_html(const Chart& chart);
// `scale`: pixels per chart pixel (2 for high-density screens). Throws Error
// in a build without cairo.
std::string render_png(const Chart& chart, double scale);
// Throws Error in a build without cairo (before any work is done).
void require_png();

}  // namespace speedqa::plot
