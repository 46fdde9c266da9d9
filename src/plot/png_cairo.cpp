// render_png() with cairo: the chart drawn on an image surface, then encoded.
#include <cairo.h>

#include <cmath>
#include <memory>

#include "core/error.hpp"
#include "plot/report.hpp"

namespace speedqa::plot {
namespace {

class CairoCanvas final : public Canvas {
public:
    explicit CairoCanvas(cairo_t* cr) : cr_(cr) {}

    void rect(double x, double y, double w, double h, Color fill) override {
        set(fill, 1);
        cairo_rectangle(cr_, x, y, w, h);
        cairo_fill(cr_);
    }
    void line(Point a, Point b, const Stroke& s) override {
        cairo_move_to(cr_, a.x, a.y);
        cairo_line_to(cr_, b.x, b.y);
        stroke(s);
    }
    void path(const std::vector<std::vector<Point>>& runs, const Stroke& s) override {
        for (const std::vector<Point>& run : runs) {
            for (size_t i = 0; i < run.size(); i++) (i ? cairo_line_to : cairo_move_to)(cr_, run[i].x, run[i].y);
            if (run.size() == 1) cairo_rel_line_to(cr_, 0.1, 0);
        }
        cairo_set_line_join(cr_, CAIRO_LINE_JOIN_ROUND);
        cairo_set_line_cap(cr_, CAIRO_LINE_CAP_ROUND);
        stroke(s);
        cairo_set_line_cap(cr_, CAIRO_LINE_CAP_BUTT);
    }
    void circle(Point c, double radius, Color fill, const Stroke& outline) override {
        cairo_new_path(cr_);
        cairo_arc(cr_, c.x, c.y, radius, 0, 2 * M_PI);
        set(fill, 1);
        cairo_fill_preserve(cr_);
        stroke(outline);
    }
    void text(Point at, const std::string& utf8, const Font& f) override {
        cairo_select_font_face(cr_, "DejaVu Sans", CAIRO_FONT_SLANT_NORMAL,
                               f.bold ? CAIRO_FONT_WEIGHT_BOLD : CAIRO_FONT_WEIGHT_NORMAL);
        cairo_set_font_size(cr_, f.size);
        cairo_text_extents_t e;
        cairo_text_extents(cr_, utf8.c_str(), &e);
        const double shift = f.anchor == Anchor::start ? 0 : f.anchor == Anchor::middle ? e.x_advance / 2 : e.x_advance;
        set(f.color, 1);
        cairo_move_to(cr_, at.x - shift, at.y);
        cairo_show_text(cr_, utf8.c_str());
    }
    void begin_group(const Attributes&) override {}
    void tooltip(const std::string&) override {}
    void end_group() override {}

private:
    void set(Color c, double opacity) { cairo_set_source_rgba(cr_, c.r / 255.0, c.g / 255.0, c.b / 255.0, opacity); }
    void stroke(const Stroke& s) {
        const double dash[2] = {4 * s.width, 3 * s.width};
        cairo_set_dash(cr_, dash, s.dashed ? 2 : 0, 0);
        cairo_set_line_width(cr_, s.width);
        set(s.color, s.opacity);
        cairo_stroke(cr_);
    }

    cairo_t* cr_;
};

cairo_status_t append_bytes(void* out, const unsigned char* data, unsigned int length) {
    static_cast<std::string*>(out)->append(reinterpret_cast<const char*>(data), length);
    return CAIRO_STATUS_SUCCESS;
}

}  // namespace

void require_png() {}

std::string render_png(const Chart& chart, double scale) {
    const int w = static_cast<int>(std::ceil(chart.width() * scale)), h = static_cast<int>(std::ceil(chart.height() * scale));
    if (w > 32767 || h > 32767)
        throw Error("the picture would be " + std::to_string(w) + "x" + std::to_string(h) +
                    " pixels, over PNG's practical limit of 32767: plot fewer metrics or write SVG");
    std::unique_ptr<cairo_surface_t, decltype(&cairo_surface_destroy)> surface(
        cairo_image_surface_create(CAIRO_FORMAT_RGB24, w, h), cairo_surface_destroy);
    std::unique_ptr<cairo_t, decltype(&cairo_destroy)> cr(cairo_create(surface.get()), cairo_destroy);
    if (cairo_status(cr.get()) != CAIRO_STATUS_SUCCESS)
        throw Error(std::string("cannot draw the picture: ") + cairo_status_to_string(cairo_status(cr.get())));
    cairo_scale(cr.get(), scale, scale);
    CairoCanvas canvas(cr.get());
    chart.draw(canvas);
    cairo_surface_flush(surface.get());
    std::string png;
    const cairo_status_t st = cairo_surface_write_to_png_stream(surface.get(), append_bytes, &png);
    if (st != CAIRO_STATUS_SUCCESS) throw Error(std::string("cannot encode the PNG: ") + cairo_status_to_string(st));
    return png;
}

}  // namespace speedqa::plot
