// How libvmaf prints a score, and the precision overrides.
#pragma once

#include <string>

#include "io/score_writer.hpp"

namespace speedqa::io {

// libvmaf's count_leading_zeros_d(): how many times the fractional part of
// |x| is multiplied by 10 until it reaches 1 (0 for integers, inf and nan).
int leading_zeros(double x);

// Appends x as libvmaf would print it ("%.6f", or "%.16f" past 6 leading
// zeros), or as `p` overrides.
void append_value(std::string& out, double x, Precision p);

// Appends printf(fmt, ...) output.
void appendf(std::string& out, const char* fmt, ...) __attribute__((format(printf, 2, 3)));

}  // namespace speedqa::io
