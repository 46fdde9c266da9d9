// render_png() with cairo: the chart drawn on an image surface, then encoded.
// libcairo is opened with dlopen when the first PNG is asked for (not
// linked): every other run of the command starts without loading it and the
// ~20 libraries it pulls in (X11, fontconfig, freetype, ...), about 1 ms at
// every start. Built against cairo's headers; its soname has been
// libcairo.so.2 since cairo 1.0.
#include <cairo.h>

#include <cmath>
#include <memory>
#include <mutex>
#include <string>

#include "core/error.hpp"
#include "io/shared_library.hpp"
#include "plot/report.hpp"

namespace speedqa::plot {
namespace {

// X(function): every cairo function the canvas and the encoder call.
#define SPEEDQA_CAIRO_FUNCTIONS(X)                                                                                   \
    X(cairo_arc) X(cairo_create) X(cairo_destroy) X(cairo_fill) X(cairo_fill_preserve) X(cairo_image_surface_create) \
    X(cairo_line_to) X(cairo_move_to) X(cairo_new_path) X(cairo_rectangle) X(cairo_rel_line_to) X(cairo_scale)      \
    X(cairo_select_font_face) X(cairo_set_dash) X(cairo_set_font_size) X(cairo_set_line_cap)                        \
    X(cairo_set_line_join) X(cairo_set_line_width) X(cairo_set_source_rgba) X(cairo_show_text) X(cairo_status)      \
    X(cairo_status_to_string) X(cairo_stroke) X(cairo_surface_destroy) X(cairo_surface_flush)                      \
    X(cairo_surface_write_to_png_stream) X(cairo_text_extents)

struct Cairo {
#define SPEEDQA_CAIRO_POINTER(name) decltype(&::name) name = nullptr;
    SPEEDQA_CAIRO_FUNCTIONS(SPEEDQA_CAIRO_POINTER)
#undef SPEEDQA_CAIRO_POINTER
};

constexpr const char* kCairoSoname = "libcairo.so.2";

// The functions, loaded at the first call (thread-safe; never unloaded).
// Throws Error naming the library when it cannot be loaded.
const Cairo& cairo() {
    static Cairo loaded;
    static std::string failure;
    static std::once_flag once;
    std::call_once(once, [] {
        void* handle = io::open_shared_library(kCairoSoname, "cairo; Debian: apt-get install libcairo2", failure);
        if (!handle) return;
#define SPEEDQA_CAIRO_LOAD(name)                                                        \
    if (!(loaded.name = reinterpret_cast<decltype(&::name)>(                            \
              io::shared_library_function(handle, kCairoSoname, #name, failure)))) \
        return;
        SPEEDQA_CAIRO_FUNCTIONS(SPEEDQA_CAIRO_LOAD)
#undef SPEEDQA_CAIRO_LOAD
    });
    if (!failure.empty()) throw Error("PNG pictures need cairo, and it " + failure + "; .svg or .html need nothing");
    return loaded;
}

class CairoCanvas final : public Canvas {
public:
    CairoCanvas(const Cairo& c, cairo_t* cr) : c_(c), cr_(cr) {}

    void rect(double x, double y, double w, double h, Color fill) override {
        set(fill, 1);
        c_.cairo_rectangle(cr_, x, y, w, h);
        c_.cairo_fill(cr_);
    }
    void line(Point a, Point b, const Stroke& s) override {
        c_.cairo_move_to(cr_, a.x, a.y);
        c_.cairo_line_to(cr_, b.x, b.y);
        stroke(s);
    }
    void path(const std::vector<std::vector<Point>>& runs, const Stroke& s) override {
        for (const std::vector<Point>& run : runs) {
            for (size_t i = 0; i < run.size(); i++) (i ? c_.cairo_line_to : c_.cairo_move_to)(cr_, run[i].x, run[i].y);
            if (run.size() == 1) c_.cairo_rel_line_to(cr_, 0.1, 0);
        }
        c_.cairo_set_line_join(cr_, CAIRO_LINE_JOIN_ROUND);
        c_.cairo_set_line_cap(cr_, CAIRO_LINE_CAP_ROUND);
        stroke(s);
        c_.cairo_set_line_cap(cr_, CAIRO_LINE_CAP_BUTT);
    }
    void circle(Point c, double radius, Color fill, const Stroke& outline) override {
        c_.cairo_new_path(cr_);
        c_.cairo_arc(cr_, c.x, c.y, radius, 0, 2 * M_PI);
        set(fill, 1);
        c_.cairo_fill_preserve(cr_);
        stroke(outline);
    }
    void text(Point at, const std::string& utf8, const Font& f) override {
        c_.cairo_select_font_face(cr_, "DejaVu Sans", CAIRO_FONT_SLANT_NORMAL,
                                  f.bold ? CAIRO_FONT_WEIGHT_BOLD : CAIRO_FONT_WEIGHT_NORMAL);
        c_.cairo_set_font_size(cr_, f.size);
        cairo_text_extents_t e;
        c_.cairo_text_extents(cr_, utf8.c_str(), &e);
        const double shift = f.anchor == Anchor::start ? 0 : f.anchor == Anchor::middle ? e.x_advance / 2 : e.x_advance;
        set(f.color, 1);
        c_.cairo_move_to(cr_, at.x - shift, at.y);
        c_.cairo_show_text(cr_, utf8.c_str());
    }
    void begin_group(const Attributes&) override {}
    void tooltip(const std::string&) override {}
    void end_group() override {}

private:
    void set(Color c, double opacity) { c_.cairo_set_source_rgba(cr_, c.r / 255.0, c.g / 255.0, c.b / 255.0, opacity); }
    void stroke(const Stroke& s) {
        const double dash[2] = {4 * s.width, 3 * s.width};
        c_.cairo_set_dash(cr_, dash, s.dashed ? 2 : 0, 0);
        c_.cairo_set_line_width(cr_, s.width);
        set(s.color, s.opacity);
        c_.cairo_stroke(cr_);
    }

    const Cairo& c_;
    cairo_t* cr_;
};

cairo_status_t append_bytes(void* out, const unsigned char* data, unsigned int length) {
    static_cast<std::string*>(out)->append(reinterpret_cast<const char*>(data), length);
    return CAIRO_STATUS_SUCCESS;
}

}  // namespace

void require_png() { cairo(); }

std::string render_png(const Chart& chart, double scale) {
    const int w = static_cast<int>(std::ceil(chart.width() * scale)), h = static_cast<int>(std::ceil(chart.height() * scale));
    if (w > 32767 || h > 32767)
        throw Error("the picture would be " + std::to_string(w) + "x" + std::to_string(h) +
                    " pixels, over PNG's practical limit of 32767: plot fewer metrics or write SVG");
    const Cairo& c = cairo();
    std::unique_ptr<cairo_surface_t, decltype(&cairo_surface_destroy)> surface(
        c.cairo_image_surface_create(CAIRO_FORMAT_RGB24, w, h), c.cairo_surface_destroy);
    std::unique_ptr<cairo_t, decltype(&cairo_destroy)> cr(c.cairo_create(surface.get()), c.cairo_destroy);
    if (c.cairo_status(cr.get()) != CAIRO_STATUS_SUCCESS)
        throw Error(std::string("cannot draw the picture: ") + c.cairo_status_to_string(c.cairo_status(cr.get())));
    c.cairo_scale(cr.get(), scale, scale);
    CairoCanvas canvas(c, cr.get());
    chart.draw(canvas);
    c.cairo_surface_flush(surface.get());
    std::string png;
    const cairo_status_t st = c.cairo_surface_write_to_png_stream(surface.get(), append_bytes, &png);
    if (st != CAIRO_STATUS_SUCCESS) throw Error(std::string("cannot encode the PNG: ") + c.cairo_status_to_string(st));
    return png;
}

}  // namespace speedqa::plot
