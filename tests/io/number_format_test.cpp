// libvmaf's choice between "%.6f" and "%.16f".
#include <gtest/gtest.h>

#include <limits>

#include "io/number_format.hpp"

namespace speedqa::io {
namespace {

std::string value(double x, Precision p = {}) {
    std::string s;
    append_value(s, x, p);
    return s;
}

TEST(NumberFormat, LeadingZeros) {
    EXPECT_EQ(leading_zeros(0.0), 0);
    EXPECT_EQ(leading_zeros(-0.0), 0);
    EXPECT_EQ(leading_zeros(3.0), 0);
    EXPECT_EQ(leading_zeros(0.5), 1);
    EXPECT_EQ(leading_zeros(0.05), 2);
    EXPECT_EQ(leading_zeros(12.001), 4);  // the fraction is 0.000999999...
    EXPECT_EQ(leading_zeros(5.00000001), 9);
    EXPECT_EQ(leading_zeros(-0.00000001234), 8);
    EXPECT_EQ(leading_zeros(1e-300), 301);  // 1e-300 * 10^300 falls just short of 1
    EXPECT_EQ(leading_zeros(std::numeric_limits<double>::denorm_min()), 324);
    EXPECT_EQ(leading_zeros(std::numeric_limits<double>::quiet_NaN()), 0);
    EXPECT_EQ(leading_zeros(std::numeric_limits<double>::infinity()), 0);
    EXPECT_EQ(leading_zeros(3e9 + 0.0000001), 0);  // past int: libvmaf's (int) cast gives INT_MIN on x86
    EXPECT_EQ(leading_zeros(2147483647.5), 1);
}

TEST(NumberFormat, LibvmafDefault) {
    EXPECT_EQ(value(0.5), "0.500000");
    EXPECT_EQ(value(-1.25), "-1.250000");
    EXPECT_EQ(value(0.000001), "0.000001");           // 6 zeros: "%.6f"
    EXPECT_EQ(value(0.0000001), "0.0000001000000000");  // 7: "%.16f"
    EXPECT_EQ(value(5.00000001), "5.0000000099999999");
    EXPECT_EQ(value(1e-20), "0.0000000000000000");
    EXPECT_EQ(value(std::numeric_limits<double>::infinity()), "inf");
    EXPECT_EQ(value(1e20), "100000000000000000000.000000");
}

TEST(NumberFormat, Overrides) {
    EXPECT_EQ(value(0.123456789, Precision{2, false}), "0.12");
    EXPECT_EQ(value(0.0000001, Precision{3, false}), "0.000");
    EXPECT_EQ(value(0.1, Precision{-1, true}), "0.10000000000000001");
    EXPECT_EQ(value(1e-9, Precision{-1, true}), "1.0000000000000001e-09");
    EXPECT_EQ(value(0.5, Precision{30, false}), "0.500000000000000000000000000000");
    EXPECT_EQ(value(1e300, Precision{2, false}).size(), 304u);  // longer than any fixed buffer
}

}  // namespace
}  // namespace speedqa::io
