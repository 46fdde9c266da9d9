// A Canvas that writes SVG 1.1 text: no dependency, crisp at any size, and the
// groups keep their attributes (class, data-*), so tests and scripts find
// each panel and curve.
#pragma once

#include <string>

#include "plot/canvas.hpp"

namespace speedqa::plot {

// "&", "<", ">", '"' and "'" as XML entities (text and attribute values).
std::string xml_escape(const std::string& s);

class SvgCanvas final : public Canvas {
public:
    SvgCanvas(double width, double height);
    void rect(double x, double y, double w, double h, Color fill) override;
    void line(Point a, Point b, const Stroke& s) override;
    void path(const std::vector<std::vector<Point>>& runs, const Stroke& s) override;
    void circle(Point c, double radius, Color fill, const Stroke& outline) override;
    void text(Point at, const std::string& utf8, const Font& f) override;
    void begin_group(const Attributes& attributes) override;
    void tooltip(const std::string& utf8) override;
    void end_group() override;

    // The <svg> element (for an HTML page); a file adds the XML declaration.
    std::string element() const;

private:
    double width_, height_;
    std::string body_;
    int depth_ = 1;  // indentation
};

}  // namespace speedqa::plot
