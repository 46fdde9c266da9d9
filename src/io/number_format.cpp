#include "io/number_format.hpp"

#include <cmath>
#include <cstdarg>
#include <cstdio>

namespace speedqa::io {

int leading_zeros(double x) {
    double a = std::fabs(x);
    // libvmaf truncates with (int)x; where that overflows (and for inf and
    // nan) x86 gives INT_MIN, the "fraction" is >= 1 or nan, and the count 0.
    if (!(a < 2147483648.0)) return 0;
    double fraction = a - static_cast<int>(a);
    int count = 0;
    while (fraction < 1.0 && fraction != 0) {
        fraction *= 10;
        count++;
    }
    return count;
}

void appendf(std::string& out, const char* fmt, ...) {
    char small[128];
    va_list args;
    va_start(args, fmt);
    va_list again;
    va_copy(again, args);
    int n = std::vsnprintf(small, sizeof small, fmt, args);
    va_end(args);
    if (n >= 0 && static_cast<size_t>(n) < sizeof small) {
        out.append(small, static_cast<size_t>(n));
    } else if (n > 0) {
        size_t at = out.size();
        out.resize(at + static_cast<size_t>(n) + 1);
        std::vsnprintf(out.data() + at, static_cast<size_t>(n) + 1, fmt, again);
        out.resize(at + static_cast<size_t>(n));
    }
    va_end(again);
}

void append_value(std::string& out, double x, Precision p) {
    if (p.max)
        appendf(out, "%.17g", x);
    else if (p.digits >= 0)
        appendf(out, "%.*f", p.digits, x);
    else if (leading_zeros(x) <= 6)
        appendf(out, "%.6f", x);
    else
        appendf(out, "%.16f", x);
}

}  // namespace speedqa::io
