#include "plot/report.hpp"

#include <algorithm>
#include <cctype>
#include <cmath>

#include "core/error.hpp"
#include "plot/svg_canvas.hpp"
#include "version.hpp"

namespace speedqa::plot {
namespace {

std::string lower(std::string s) {
    std::transform(s.begin(), s.end(), s.begin(), [](unsigned char c) { return std::tolower(c); });
    return s;
}

// A value in the table: six decimals, as the score files print most values.
std::string value_text(double v) { return std::isfinite(v) ? format_fixed(v, 6) : std::isnan(v) ? "nan" : v > 0 ? "inf" : "-inf"; }

const char* kStyle =
    "body{font-family:'DejaVu Sans',Verdana,Geneva,sans-serif;color:#222;margin:16px}"
    "h2{font-size:16px;margin:28px 0 8px 16px}svg{max-width:100%;height:auto}table{border-collapse:collapse;font-size:13px;"
    "margin-left:16px}th,td{padding:3px 10px;text-align:right;border-bottom:1px solid #e4e4e4;white-space:nowrap;"
    "vertical-align:top}"
    "th{color:#555;font-weight:normal}td.l,th.l{text-align:left}tr.m td{border-top:2px solid #bbb}"
    "span.sw{display:inline-block;width:18px;height:3px;margin:0 6px 3px 0;vertical-align:middle}"
    "p.f{color:#666;font-size:12px}code{font-size:12px}";

void append_table(std::string& o, const Chart& chart) {
    o += "<h2>Pooled values</h2>\n<table>\n<tr><th class=\"l\">metric</th><th class=\"l\">file</th><th>mean</th>"
         "<th>harmonic mean</th><th>min</th><th>max</th><th class=\"l\">worst frames (value)</th></tr>\n";
    for (const Panel& p : chart.panels()) {
        bool first = true;
        for (const Series& s : p.series) {
            if (!s.scores) continue;
            const io::Pooled& q = s.scores->pooled;
            o += first ? "<tr class=\"m\">" : "<tr>";
            o += "<td class=\"l\">" + (first ? xml_escape(p.metric) : std::string()) + "</td>";
            o += "<td class=\"l\"><span class=\"sw\" style=\"background:" + Chart::color(s.file).hex() + "\"></span>" +
                 xml_escape(chart.labels()[s.file]) + "</td>";
            for (double v : {q.mean, q.harmonic_mean, q.min, q.max}) o += "<td>" + value_text(v) + "</td>";
            std::string worst;
            for (size_t i : s.worst)
                worst += (worst.empty() ? "" : "<br>") + std::to_string(chart.files()[s.file].frame_nums[i]) + " (" +
                         value_text(s.scores->values[i]) + ")";
            o += "<td class=\"l\">" + (worst.empty() ? std::string("-") : worst) + "</td></tr>\n";
            first = false;
        }
    }
    o += "</table>\n";
}

}  // namespace

OutputKind output_kind(const std::string& path) {
    const size_t dot = path.find_last_of('.');
    const std::string ext = dot == std::string::npos || path.find('/', dot) != std::string::npos ? "" : lower(path.substr(dot));
    if (ext == ".svg") return OutputKind::svg;
    if (ext == ".png") return OutputKind::png;
    if (ext == ".html" || ext == ".htm") return OutputKind::html;
    throw Error(path + ": the output's name must end in .svg, .png or .html");
}

std::string render_svg(const Chart& chart) {
    SvgCanvas c(chart.width(), chart.height());
    chart.draw(c);
    return "<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n" + c.element();
}

std::string render_html(const Chart& chart) {
    SvgCanvas c(chart.width(), chart.height());
    chart.draw(c);
    std::string o = "<!DOCTYPE html>\n<html lang=\"en\">\n<head>\n<meta charset=\"utf-8\">\n<title>" + xml_escape(chart.title()) +
                    "</title>\n<style>" + kStyle + "</style>\n</head>\n<body>\n";
    o += c.element();
    append_table(o, chart);
    o += "<h2>Files</h2>\n<table>\n<tr><th class=\"l\">file</th><th>frames</th><th class=\"l\">path</th></tr>\n";
    for (size_t i = 0; i < chart.files().size(); i++)
        o += "<tr><td class=\"l\"><span class=\"sw\" style=\"background:" + Chart::color(i).hex() + "\"></span>" +
             xml_escape(chart.labels()[i]) + "</td><td>" + std::to_string(chart.files()[i].frame_nums.size()) +
             "</td><td class=\"l\"><code>" + xml_escape(chart.files()[i].path) + "</code></td></tr>\n";
    o += "</table>\n<p class=\"f\">speedqa " SPEEDQA_VERSION " plot</p>\n</body>\n</html>\n";
    return o;
}

}  // namespace speedqa::plot
