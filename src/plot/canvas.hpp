// What a chart is drawn with: a few primitives that the SVG writer and the
// cairo (PNG) renderer both implement, so that a chart is laid out once.
// Coordinates in pixels, y down; text sizes in pixels.
#pragma once

#include <cstdint>
#include <string>
#include <utility>
#include <vector>

namespace speedqa::plot {

struct Color {
    uint8_t r = 0, g = 0, b = 0;
    std::string hex() const;  // "#rrggbb"
};

struct Point {
    double x = 0, y = 0;
};

struct Stroke {
    Color color;
    double width = 1;
    bool dashed = false;
    double opacity = 1;
};

enum class Anchor { start, middle, end };

struct Font {
    double size = 12;
    Color color;
    Anchor anchor = Anchor::start;
    bool bold = false;
};

// Attributes of a group in the SVG (class, data-*): what a test or a script
// finds a chart's parts by. Renderers without structure ignore them.
using Attributes = std::vector<std::pair<std::string, std::string>>;

class Canvas {
public:
    virtual ~Canvas() = default;
    virtual void rect(double x, double y, double w, double h, Color fill) = 0;
    virtual void line(Point a, Point b, const Stroke& s) = 0;
    // One curve that may have gaps: each run is drawn joined, runs apart.
    virtual void path(const std::vector<std::vector<Point>>& runs, const Stroke& s) = 0;
    virtual void circle(Point c, double radius, Color fill, const Stroke& outline) = 0;
    // y is the baseline.
    virtual void text(Point at, const std::string& utf8, const Font& f) = 0;
    virtual void begin_group(const Attributes& attributes) = 0;
    // A tooltip for the group just begun (SVG <title>).
    virtual void tooltip(const std::string& utf8) = 0;
    virtual void end_group() = 0;
};

// The width a text takes in a sans-serif face (DejaVu Sans metrics, which are
// wider than Arial's and Helvetica's): what the layout reserves for it.
double text_width(const std::string& utf8, double size);

}  // namespace speedqa::plot
