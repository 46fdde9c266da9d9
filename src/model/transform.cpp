#include "model/transform.hpp"

#include <cstddef>

namespace speedqa::model {
namespace {

// The line through two knots, a.x < b.x and a.y < b.y, with predict.c's
// expressions (a knot at x = 0 gives the intercept directly).
void line_through(const Knot& a, const Knot& b, double& slope, double& offset) {
    if (a.x == 0) {
        offset = a.y;
        slope = (b.y - offset) / b.x;
    } else {
        slope = (b.y - a.y) / (b.x - a.x);
        offset = a.y - a.x * slope;
    }
}

// Every segment that contains x (or, for the first and last, extends to it)
// writes the result, later segments over earlier ones, as predict.c's loop
// does: at a knot shared by two segments the second one's line gives y.
// x outside every segment (NaN) gives 0.
double piecewise_linear(const std::vector<Knot>& knots, double x) {
    double y = 0.0;
    const std::size_t segments = knots.size() - 1;
    for (std::size_t i = 0; i < segments; i++) {
        const Knot& a = knots[i];
        const Knot& b = knots[i + 1];
        const bool hit = (a.x <= x && x <= b.x) || (i == 0 && x < a.x) || (i + 1 == segments && x > b.x);
        if (!hit) continue;
        if (a.y == b.y) {
            y = a.y;
        } else {
            double slope, offset;
            line_through(a, b, slope, offset);
            y = slope * x + offset;
        }
    }
    return y;
}

}  // namespace

double ScoreTransform::apply(double in) const {
    if (!enabled) return in;
    double out = in;
    if (has_p0 || has_p1 || has_p2) {
        out = 0.;
        if (has_p0) out += p0;
        if (has_p1) out += p1 * in;
        if (has_p2) out += p2 * in * in;
    }
    if (!knots.empty()) out = piecewise_linear(knots, out);
    if (out_lte_in) out = out > in ? in : out;
    if (out_gte_in) out = out < in ? in : out;
    return out;
}

}  // namespace speedqa::model
