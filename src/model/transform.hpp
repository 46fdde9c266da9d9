// What a VMAF model does to the SVR's de-normalised prediction, in
// libvmaf's order (predict.c): the score transform (polynomial, then
// piecewise-linear knots, then rectification), then the clip.
#pragma once

#include <vector>

namespace speedqa::model {

struct Knot {
    double x = 0, y = 0;
};

struct ScoreTransform {
    bool enabled = false;
    // p0 + p1 y + p2 y^2, each term only where the model gives it
    bool has_p0 = false, has_p1 = false, has_p2 = false;
    double p0 = 0, p1 = 0, p2 = 0;
    // Piecewise-linear map through the knots, extended by the first and last
    // segments. The loader admits only what predict.c accepts without error:
    // at least two knots, x strictly ascending, y never descending.
    std::vector<Knot> knots;
    bool out_lte_in = false, out_gte_in = false;  // rectification: out <= in, out >= in

    double apply(double y) const;
};

struct ScoreClip {
    bool enabled = false;
    double min = 0, max = 0;

    double apply(double y) const {
        if (!enabled) return y;
        // two comparisons in this order, so NaN passes and min > max gives max
        y = y < min ? min : y;
        return y > max ? max : y;
    }
};

}  // namespace speedqa::model
