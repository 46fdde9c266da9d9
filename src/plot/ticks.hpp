// Axis ranges with round tick values (Heckbert's "nice numbers"), and the
// numbers printed at them.
#pragma once

#include <string>
#include <vector>

namespace speedqa::plot {

struct Axis {
    double lo = 0, hi = 1;      // the range drawn, tick values at both ends
    double step = 1;
    int decimals = 0;           // enough to tell neighbouring ticks apart
    std::vector<double> ticks;  // lo, lo + step, ..., hi
};

// An axis covering [min, max] with about `target` ticks; `integers`: a step of
// at least 1 (frame numbers). A flat or empty range is widened around it.
Axis nice_axis(double min, double max, int target, bool integers = false);

// "%.*f", without a "-0".
std::string format_fixed(double v, int decimals);

// A value beside its axis: two more decimals than the ticks.
std::string format_value(double v, const Axis& axis);

}  // namespace speedqa::plot
