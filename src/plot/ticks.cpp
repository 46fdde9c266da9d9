#include "plot/ticks.hpp"

#include <algorithm>
#include <cmath>
#include <cstdio>

namespace speedqa::plot {
namespace {

// 1, 2 or 5 times a power of ten near x: at least x (ceil) or the nearest.
double nice_number(double x, bool nearest) {
    const double e = std::floor(std::log10(x));
    const double f = x / std::pow(10.0, e);
    double n;
    if (nearest) n = f < 1.5 ? 1 : f < 3 ? 2 : f < 7 ? 5 : 10;
    else n = f <= 1 ? 1 : f <= 2 ? 2 : f <= 5 ? 5 : 10;
    return n * std::pow(10.0, e);
}

}  // namespace

Axis nice_axis(double min, double max, int target, bool integers) {
    if (!std::isfinite(min) || !std::isfinite(max) || min > max) min = 0, max = 1;
    if (max == min) {
        const double pad = min == 0 ? 0.5 : std::abs(min) * 0.05;
        min -= pad;
        max += pad;
    }
    Axis a;
    a.step = nice_number(nice_number(max - min, false) / std::max(1, target - 1), true);
    if (integers) a.step = std::max(1.0, std::round(a.step));
    a.lo = std::floor(min / a.step) * a.step;
    a.hi = std::ceil(max / a.step) * a.step;
    a.decimals = std::max(0, static_cast<int>(-std::floor(std::log10(a.step) + 1e-9)));
    const int n = static_cast<int>(std::lround((a.hi - a.lo) / a.step));
    for (int i = 0; i <= n; i++) a.ticks.push_back(a.lo + i * a.step);
    return a;
}

std::string format_fixed(double v, int decimals) {
    char buf[64];
    std::snprintf(buf, sizeof buf, "%.*f", decimals, v);
    std::string s = buf;
    if (s[0] == '-' && s.find_first_not_of("-0.") == std::string::npos) s.erase(0, 1);
    return s;
}

std::string format_value(double v, const Axis& axis) {
    if (std::isnan(v)) return "nan";
    if (std::isinf(v)) return v > 0 ? "inf" : "-inf";
    return format_fixed(v, std::min(axis.decimals + 2, 8));
}

}  // namespace speedqa::plot
