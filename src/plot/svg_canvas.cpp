#include "plot/svg_canvas.hpp"

#include <cstdio>

namespace speedqa::plot {
namespace {

// Coordinates to a tenth of a pixel: finer than any screen, short to write.
std::string num(double v) {
    char buf[32];
    std::snprintf(buf, sizeof buf, "%.1f", v);
    std::string s = buf;
    if (s.size() > 2 && s.compare(s.size() - 2, 2, ".0") == 0) s.resize(s.size() - 2);
    if (s == "-0") s = "0";
    return s;
}

std::string stroke_attributes(const Stroke& s) {
    std::string a = " stroke=\"" + s.color.hex() + "\" stroke-width=\"" + num(s.width) + "\"";
    if (s.dashed) a += " stroke-dasharray=\"" + num(4 * s.width) + " " + num(3 * s.width) + "\"";
    if (s.opacity < 1) {
        char buf[16];
        std::snprintf(buf, sizeof buf, "%.2f", s.opacity);
        a += std::string(" stroke-opacity=\"") + buf + "\"";
    }
    return a;
}

const char* anchor_name(Anchor a) { return a == Anchor::start ? "start" : a == Anchor::middle ? "middle" : "end"; }

// The length of the well-formed UTF-8 sequence at s[i] that XML allows, or 0.
size_t utf8_length(const std::string& s, size_t i) {
    const auto byte = [&](size_t k) { return k < s.size() ? static_cast<unsigned char>(s[k]) : 0u; };
    const unsigned c = byte(i);
    if (c < 0x80) return c >= 0x20 || c == '\t' || c == '\n' || c == '\r' ? 1 : 0;
    const size_t n = c >= 0xc2 && c <= 0xdf ? 2 : c >= 0xe0 && c <= 0xef ? 3 : c >= 0xf0 && c <= 0xf4 ? 4 : 0;
    unsigned cp = c & (0x7f >> n);
    for (size_t k = 1; k < n; k++) {
        if ((byte(i + k) & 0xc0) != 0x80) return 0;
        cp = cp << 6 | (byte(i + k) & 0x3f);
    }
    const unsigned least[] = {0, 0, 0x80, 0x800, 0x10000};
    if (n == 0 || cp < least[n] || cp > 0x10ffff || (cp >= 0xd800 && cp <= 0xdfff) || cp == 0xfffe || cp == 0xffff) return 0;
    return n;
}

}  // namespace

std::string xml_escape(const std::string& s) {
    std::string o;
    o.reserve(s.size());
    for (size_t i = 0; i < s.size();) {
        const size_t n = utf8_length(s, i);
        if (n == 0) {
            o += "\xef\xbf\xbd";  // U+FFFD for a byte XML cannot carry (a file name need not be UTF-8)
            i++;
            continue;
        }
        switch (s[i]) {
        case '&': o += "&amp;"; break;
        case '<': o += "&lt;"; break;
        case '>': o += "&gt;"; break;
        case '"': o += "&quot;"; break;
        case '\'': o += "&#39;"; break;
        default: o.append(s, i, n);
        }
        i += n;
    }
    return o;
}

SvgCanvas::SvgCanvas(double width, double height) : width_(width), height_(height) {}

void SvgCanvas::rect(double x, double y, double w, double h, Color fill) {
    body_ += std::string(depth_, ' ') + "<rect x=\"" + num(x) + "\" y=\"" + num(y) + "\" width=\"" + num(w) + "\" height=\"" +
             num(h) + "\" fill=\"" + fill.hex() + "\"/>\n";
}

void SvgCanvas::line(Point a, Point b, const Stroke& s) {
    body_ += std::string(depth_, ' ') + "<line x1=\"" + num(a.x) + "\" y1=\"" + num(a.y) + "\" x2=\"" + num(b.x) + "\" y2=\"" +
             num(b.y) + "\"" + stroke_attributes(s) + "/>\n";
}

void SvgCanvas::path(const std::vector<std::vector<Point>>& runs, const Stroke& s) {
    std::string d;
    for (const std::vector<Point>& run : runs) {
        for (size_t i = 0; i < run.size(); i++) {
            d += i ? 'L' : 'M';
            d += num(run[i].x);
            d += ',';
            d += num(run[i].y);
        }
        if (run.size() == 1) d += "h0.1";  // a lone point still shows (round caps)
    }
    body_ += std::string(depth_, ' ') + "<path d=\"" + d + "\" fill=\"none\"" + stroke_attributes(s) +
             " stroke-linejoin=\"round\" stroke-linecap=\"round\"/>\n";
}

void SvgCanvas::circle(Point c, double radius, Color fill, const Stroke& outline) {
    body_ += std::string(depth_, ' ') + "<circle cx=\"" + num(c.x) + "\" cy=\"" + num(c.y) + "\" r=\"" + num(radius) +
             "\" fill=\"" + fill.hex() + "\"" + stroke_attributes(outline) + "/>\n";
}

void SvgCanvas::text(Point at, const std::string& utf8, const Font& f) {
    body_ += std::string(depth_, ' ') + "<text x=\"" + num(at.x) + "\" y=\"" + num(at.y) + "\" font-size=\"" + num(f.size) +
             "\" fill=\"" + f.color.hex() + "\"";
    if (f.anchor != Anchor::start) body_ += std::string(" text-anchor=\"") + anchor_name(f.anchor) + "\"";
    if (f.bold) body_ += " font-weight=\"bold\"";
    body_ += '>';
    body_ += xml_escape(utf8);
    body_ += "</text>\n";
}

void SvgCanvas::begin_group(const Attributes& attributes) {
    body_ += std::string(depth_, ' ') + "<g";
    for (const auto& [k, v] : attributes) body_ += " " + k + "=\"" + xml_escape(v) + "\"";
    body_ += ">\n";
    depth_++;
}

void SvgCanvas::tooltip(const std::string& utf8) { body_ += std::string(depth_, ' ') + "<title>" + xml_escape(utf8) + "</title>\n"; }

void SvgCanvas::end_group() {
    depth_--;
    body_ += std::string(depth_, ' ') + "</g>\n";
}

std::string SvgCanvas::element() const {
    return "<svg xmlns=\"http://www.w3.org/2000/svg\" version=\"1.1\" width=\"" + num(width_) + "\" height=\"" + num(height_) +
           "\" viewBox=\"0 0 " + num(width_) + " " + num(height_) +
           "\" font-family=\"DejaVu Sans, Verdana, Geneva, sans-serif\">\n" + body_ + "</svg>\n";
}

}  // namespace speedqa::plot
