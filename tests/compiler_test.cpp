// The build must keep every rounding the reference makes. GCC 12.2's SLP
// vectorizer, at -O2 and above, drops the float rounding of
// `(double)(float)(double expression)` when two such stores are adjacent;
// the build turns it off (-fno-tree-slp-vectorize). This test fails if a
// compiler or flag change brings the miscompilation back.
#include <gtest/gtest.h>

#include <cmath>

namespace {

__attribute__((noinline)) void two_rounded_stores(float a, float b, double* r) {
    r[0] = static_cast<float>(1.0 / std::sqrt(static_cast<double>(1 + a * a)));
    r[1] = static_cast<float>(-0.5 * static_cast<double>(a) * static_cast<double>(b));
}

TEST(Compiler, FloatRoundingBetweenDoubleExpressionsIsKept) {
    volatile float a = 0.3f, b = 1.7f;
    double r[2];
    two_rounded_stores(a, b, r);
    EXPECT_EQ(r[0], static_cast<double>(static_cast<float>(r[0])));
    EXPECT_EQ(r[1], static_cast<double>(static_cast<float>(r[1])));
    EXPECT_EQ(r[0], 0x1.ea6834p-1);
    EXPECT_EQ(r[1], -0x1.051ebap-2);
}

TEST(Compiler, NoContractionOfMultiplyAdd) {
    // (1 + 2^-12)^2 = 1 + 2^-11 + 2^-24 rounds to 1 + 2^-11; an fma keeps the 2^-24
    volatile float a = 1.0f + 0x1p-12f, c = -(1.0f + 0x1p-11f);
    const float r = a * a + c;
    EXPECT_EQ(r, 0.0f) << "a * b + c was contracted into an fma";
}

}  // namespace
