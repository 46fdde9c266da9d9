// exact/soft64.hpp against the host's hardware double (SSE2: IEEE, round to
// nearest even, subnormals kept), operation by operation, bit for bit (NaN
// results as NaN): operands of every kind (random bits over the whole
// exponent range, subnormals, zeros, infinities, NaNs, neighbours that
// cancel, integers, exact halves), millions of each.
#include <gtest/gtest.h>

#include <cmath>
#include <cstdint>
#include <cstring>
#include <random>

#include "exact/soft64.hpp"

namespace speedqa::exact {
namespace {

double to_double(uint64_t b) {
    double d;
    std::memcpy(&d, &b, 8);
    return d;
}
uint64_t bits_of(double d) {
    uint64_t b;
    std::memcpy(&b, &d, 8);
    return b;
}
uint32_t float_bits(float f) {
    uint32_t b;
    std::memcpy(&b, &f, 4);
    return b;
}
float to_float(uint32_t b) {
    float f;
    std::memcpy(&f, &b, 4);
    return f;
}

bool same(uint64_t a, uint64_t b) {
    const double x = to_double(a), y = to_double(b);
    return a == b || (std::isnan(x) && std::isnan(y));
}

// An operand: random bits of every exponent, or a special kind.
class Operands {
public:
    explicit Operands(uint64_t seed) : rng_(seed) {}
    uint64_t next() {
        switch (rng_() % 16) {
        case 0: return special();
        case 1: return (rng_() & ((uint64_t{1} << 52) - 1)) | (rng_() & 1 ? uint64_t{1} << 63 : 0);  // subnormal
        case 2: return bits_of(static_cast<double>(static_cast<int64_t>(rng_()) >> (rng_() % 64)));  // an integer
        case 3: return bits_of(std::ldexp(static_cast<double>(rng_() % 4096) + 0.5, -static_cast<int>(rng_() % 12)));
        case 4: return last_ ^ (rng_() & 0xff);  // a neighbour of the last one
        case 5: return last_ ^ (uint64_t{1} << 63);  // its negation
        default: {
            // sign, exponent over the whole range, mantissa
            const uint64_t b = (rng_() & (uint64_t{1} << 63)) | ((rng_() % 2047) << 52) | (rng_() & ((uint64_t{1} << 52) - 1));
            return last_ = b;
        }
        }
    }
    uint64_t near(uint64_t b) { return b + (rng_() % 5) - 2; }
    std::mt19937_64& rng() { return rng_; }

private:
    uint64_t special() {
        static const uint64_t k[] = {0, uint64_t{1} << 63, 0x7ff0000000000000ull, 0xfff0000000000000ull,
                                     0x7ff8000000000000ull, 0x7ff0000000000001ull, 1, 0x000fffffffffffffull,
                                     0x0010000000000000ull, 0x7fefffffffffffffull, 0x3ff0000000000000ull,
                                     0xbff0000000000000ull, 0x3fe0000000000000ull, 0x4330000000000000ull};
        return k[rng_() % (sizeof k / sizeof k[0])];
    }
    std::mt19937_64 rng_;
    uint64_t last_ = 0x3ff0000000000000ull;
};

constexpr long long kCount = 3'000'000;

TEST(Soft64, ArithmeticEqualsTheHardwaresBitForBit) {
    Operands ops(20261204);
    long long compared = 0, differ[6] = {};
    for (long long i = 0; i < kCount; i++) {
        const uint64_t a = ops.next(), b = i % 3 ? ops.next() : ops.near(a), c = ops.next();
        const double x = to_double(a), y = to_double(b), z = to_double(c);
        const uint64_t want[6] = {bits_of(x + y), bits_of(x - y), bits_of(x * y), bits_of(x / y), bits_of(std::sqrt(x)),
                                  bits_of(std::fma(x, y, z))};
        const uint64_t got[6] = {soft64_add({a}, {b}).bits, soft64_sub({a}, {b}).bits, soft64_mul({a}, {b}).bits,
                                 soft64_div({a}, {b}).bits, soft64_sqrt({a}).bits, soft64_fma({a}, {b}, {c}).bits};
        for (int k = 0; k < 6; k++) {
            compared++;
            if (!same(want[k], got[k]) && differ[k]++ < 5)
                ADD_FAILURE() << "op " << k << " of " << std::hexfloat << x << ", " << y << ", " << z << ": hardware " << to_double(want[k])
                              << " soft " << to_double(got[k]);
        }
    }
    for (long long d : differ) EXPECT_EQ(d, 0);
    std::printf("[soft64] %lld results of +, -, *, /, sqrt, fma identical to the hardware's\n", compared);
}

// fma where the product and the addend cancel: a * b + c with c = -(a * b)
// rounded, and near it, over the whole range.
TEST(Soft64, FmaOfCancellingTermsEqualsTheHardwares) {
    Operands ops(7);
    long long compared = 0, differ = 0;
    for (long long i = 0; i < kCount / 3; i++) {
        const uint64_t a = ops.next(), b = ops.next();
        const double p = to_double(a) * to_double(b);
        const uint64_t c = ops.near(bits_of(-p));
        const double want = std::fma(to_double(a), to_double(b), to_double(c));
        const uint64_t got = soft64_fma({a}, {b}, {c}).bits;
        compared++;
        if (!same(bits_of(want), got) && differ++ < 5)
            ADD_FAILURE() << std::hexfloat << to_double(a) << " * " << to_double(b) << " + " << to_double(c) << ": hardware "
                          << want << " soft " << to_double(got);
    }
    EXPECT_EQ(differ, 0);
    std::printf("[soft64] %lld fma of cancelling terms identical\n", compared);
}

TEST(Soft64, ConversionsAndComparisonsEqualTheHardwares) {
    Operands ops(11);
    long long compared = 0, differ = 0;
    const auto check = [&](bool ok, const char* what, double x) {
        compared++;
        if (!ok && differ++ < 10) ADD_FAILURE() << what << " of " << std::hexfloat << x;
    };
    for (long long i = 0; i < kCount; i++) {
        const uint64_t a = ops.next(), b = ops.next();
        const double x = to_double(a), y = to_double(b);
        // double -> float, rounding (subnormal floats, overflow)
        check(float_bits(static_cast<float>(x)) == soft64_to_float_bits({a}) ||
                  (std::isnan(x) && std::isnan(to_float(soft64_to_float_bits({a})))),
              "to float", x);
        // float -> double, exact
        const uint32_t f = static_cast<uint32_t>(ops.rng()());
        check(same(bits_of(static_cast<double>(to_float(f))), soft64_from_float_bits(f).bits), "from float", to_float(f));
        // int64 -> double, rounding past 2^53
        const int64_t n = static_cast<int64_t>(ops.rng()()) >> (ops.rng()() % 64);
        check(bits_of(static_cast<double>(n)) == soft64_from_int64(n).bits, "from int64", static_cast<double>(n));
        // double -> int64 by truncation, where C defines it
        if (std::isfinite(x) && std::fabs(x) < 9.2e18)
            check(static_cast<int64_t>(x) == soft64_to_int64({a}), "to int64", x);
        check(same(bits_of(std::nearbyint(x)), soft64_nearbyint({a}).bits), "nearbyint", x);
        check((x < y) == soft64_less({a}, {b}) && (x == y) == soft64_equal({a}, {b}), "compare", x);
    }
    EXPECT_EQ(differ, 0);
    std::printf("[soft64] %lld conversions and comparisons identical to the hardware's\n", compared);
}

}  // namespace
}  // namespace speedqa::exact

namespace speedqa::exact {
namespace {

// The same arithmetic written once over its double type: SoftDouble gives
// the bits double gives (a sample of the statements the features' exact
// code makes: VIF's gain, ADM's angle test, SpEED's Givens rotation).
template <class D>
D statements(float f, int32_t i, int64_t l, D x, D y) {
    const D g = D(i) / (D(f) + x);
    const D t = (x - D(l)) * (y + g);
    D r = dsqrt(dfabs(t) + D(1.0f)) / (y * y + D(2.0f));
    r += dfma(g, x, -t);
    return dnearbyint(r * D(1024.0f)) + r;
}

TEST(Soft64, SoftDoubleStatementsEqualDoubleOnes) {
    std::mt19937_64 rng(3);
    long long compared = 0, differ = 0;
    for (int n = 0; n < 1'000'000; n++) {
        const float f = std::ldexp(static_cast<float>(rng() % 100000) - 50000.0f, static_cast<int>(rng() % 40) - 20);
        const int32_t i = static_cast<int32_t>(rng());
        const int64_t l = static_cast<int64_t>(rng()) >> (rng() % 64);
        const double x = std::ldexp(static_cast<double>(static_cast<int64_t>(rng() >> 11)) - 4.5e15, static_cast<int>(rng() % 80) - 60);
        const double y = std::ldexp(static_cast<double>(rng() >> 12), -static_cast<int>(rng() % 70));
        const double want = statements<double>(f, i, l, x, y);
        const SoftDouble got = statements<SoftDouble>(f, i, l, SoftDouble::from_bits(bits_of(x)), SoftDouble::from_bits(bits_of(y)));
        compared++;
        if (!same(bits_of(want), got.v.bits) && differ++ < 5)
            ADD_FAILURE() << std::hexfloat << "f " << f << " i " << i << " l " << l << " x " << x << " y " << y << ": double "
                          << want << " soft " << to_double(got.v.bits);
        if (SoftDouble(f).to_float() != f || (std::isfinite(want) && std::fabs(want) < 9e18 &&
                                              got.to_int64() != static_cast<int64_t>(want)))
            differ++;
    }
    EXPECT_EQ(differ, 0);
    std::printf("[soft64] %lld statements over SoftDouble identical to double\n", compared);
}

}  // namespace
}  // namespace speedqa::exact
