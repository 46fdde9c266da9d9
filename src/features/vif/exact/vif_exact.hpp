// libvmaf's integer VIF (integer_vif.c), the arithmetic that fixes the bits:
// the 16-bit fixed-point Gaussians, the rounding after each filter pass, the
// per-pixel statistic with its log2 table, and the per-scale num / den.
//
// Every value up to the per-scale num / den is an integer, so any order of
// summation gives the same bits; what must match is where each pass rounds
// and how wide each intermediate is. The C kernel is written with these
// functions; the SIMD kernels compute the same integers by other means and
// are checked against it.
#pragma once

#include "exact/hd.hpp"

namespace speedqa::exact::vif {

inline constexpr int kScales = 4;
inline constexpr int kMaxTaps = 17;
inline constexpr int kMaxRadius = kMaxTaps / 2;

// The Gaussian of a scale: odd width, symmetric, taps summing to 65536.
struct Filter {
    int width = 0;
    uint32_t c[kMaxTaps] = {};
    SPEEDQA_HD constexpr int radius() const { return width / 2; }
};

// Scale s filters image s for the statistic, and image s - 1 before it is
// halved into image s.
SPEEDQA_HD constexpr Filter filter(int scale) {
    switch (scale) {
    case 0:
        return {17, {489, 935, 1640, 2640, 3896, 5274, 6547, 7455, 7784, 7455, 6547, 5274, 3896, 2640, 1640, 935, 489}};
    case 1: return {9, {1244, 3663, 7925, 12590, 14692, 12590, 7925, 3663, 1244}};
    case 2: return {5, {3571, 16004, 26386, 16004, 3571}};
    default: return {3, {10904, 43728, 10904}};
    }
}

// Rounding right shift of the vertical pass: (v + round) >> shift.
struct Rounding {
    uint64_t round = 0;
    int shift = 0;
    SPEEDQA_HD uint64_t apply(uint64_t v) const { return (v + round) >> shift; }
};

// The vertical pass of the statistic at `scale` on samples of `bitdepth`
// bits. Scale 0 brings the means to 16 bits and the second moments to 32;
// later scales already hold 16-bit values.
struct StatRounding {
    Rounding mean, moment;
};
SPEEDQA_HD StatRounding stat_rounding(int scale, int bitdepth) {
    if (scale > 0) return {{32768, 16}, {32768, 16}};
    const int moment_shift = 2 * (bitdepth - 8);
    return {{uint64_t{1} << (bitdepth - 1), bitdepth},
            {moment_shift == 0 ? 0 : uint64_t{1} << (moment_shift - 1), moment_shift}};
}

// The vertical pass that halves image s - 1 into image `scale` (>= 1).
SPEEDQA_HD Rounding halving_rounding(int scale, int bitdepth) {
    return scale == 1 ? Rounding{uint64_t{1} << (bitdepth - 1), bitdepth} : Rounding{32768, 16};
}

// The horizontal passes round the second moments and the halved image by 16
// bits; the means stay unrounded (32 bits).
inline constexpr uint64_t kHorizontalRound = 32768;
inline constexpr int kHorizontalShift = 16;

// ---- per pixel -------------------------------------------------------------

inline constexpr int32_t kSigmaNsq = 65536 << 1;  // the noise variance 2.0 in 16.16
inline constexpr double kEps = 65536 * 1.0e-10;
inline constexpr int kLogTableSize = 65537;       // log2 of 16-bit mantissas, indices 32767..65535 filled

SPEEDQA_HD int leading_zeros32(uint32_t v) {
#if defined(__CUDA_ARCH__)
    return __clz(static_cast<int>(v));
#else
    return __builtin_clz(v);
#endif
}

SPEEDQA_HD int leading_zeros64(uint64_t v) {
#if defined(__CUDA_ARCH__)
    return __clzll(static_cast<long long>(v));
#else
    return __builtin_clzll(v);
#endif
}

// 2048 * log2(v) from the table of the top 16 bits; v >= 2^16.
SPEEDQA_HD int32_t log2_u32(const uint16_t* table, uint32_t v) {
    const int k = 16 - leading_zeros32(v);
    return table[v >> k] + 2048 * k;
}

// The same for v >= 2^17 held in 64 bits.
SPEEDQA_HD int32_t log2_u64(const uint16_t* table, uint64_t v) {
    const int k = 48 - leading_zeros64(v);
    return table[v >> k] + 2048 * k;
}

// One scale's running sums over its pixels: the logarithmic terms in units of
// 1/2048, and the count and variance sum of the pixels under the noise floor.
struct Sums {
    int64_t num_log = 0, den_log = 0, num_non_log = 0, den_non_log = 0;
    SPEEDQA_HD void add(const Sums& o) {
        num_log += o.num_log;
        den_log += o.den_log;
        num_non_log += o.num_non_log;
        den_non_log += o.den_non_log;
    }
    SPEEDQA_HD bool operator==(const Sums& o) const {
        return num_log == o.num_log && den_log == o.den_log && num_non_log == o.num_non_log &&
               den_non_log == o.den_non_log;
    }
};

// The filtered values of one pixel: the means in 16.16 (unrounded horizontal
// sums) and the second moments after the horizontal pass's 64-bit sums.
struct Filtered {
    uint32_t mu1, mu2;
    uint64_t xx, yy, xy;
};

struct Sigmas {
    int32_t s1, s2, s12;  // s2 is not yet clamped at 0
};

// Variances and covariance as the reference forms them: 32-bit products of
// the means rounded by 32 bits, the moments rounded by 16, a 32-bit unsigned
// difference read as signed.
SPEEDQA_HD Sigmas sigmas(const Filtered& f) {
    const auto mean_product = [](uint32_t a, uint32_t b) {
        return static_cast<uint32_t>((static_cast<uint64_t>(a) * b + 2147483648u) >> 32);
    };
    const auto moment = [](uint64_t h) { return static_cast<uint32_t>((h + kHorizontalRound) >> kHorizontalShift); };
    return {static_cast<int32_t>(moment(f.xx) - mean_product(f.mu1, f.mu1)),
            static_cast<int32_t>(moment(f.yy) - mean_product(f.mu2, f.mu2)),
            static_cast<int32_t>(moment(f.xy) - mean_product(f.mu1, f.mu2))};
}

// double -> int32 as the reference's conversion does it where only values
// below 2^31 reach it; anything not above 0 ends up 0 after its clamp.
SPEEDQA_HD int32_t positive_part_trunc(double d) { return d > 0.0 ? static_cast<int32_t>(d) : 0; }

// Adds one pixel to the sums.
SPEEDQA_HD void accumulate(const Sigmas& sg, double gain_limit, const uint16_t* log2_table, Sums& s) {
    const int32_t sigma1 = sg.s1;
    const int32_t sigma2 = sg.s2 > 0 ? sg.s2 : 0;
    const int32_t sigma12 = sg.s12;
    if (sigma1 >= kSigmaNsq) {
        // the reference adds two int32s; as unsigned the sum is the same bits
        s.den_log += log2_u32(log2_table, static_cast<uint32_t>(kSigmaNsq) + static_cast<uint32_t>(sigma1)) - 2048 * 17;
        if (sigma12 > 0 && sigma2 > 0) {
            const double g = static_cast<double>(sigma12) / (static_cast<double>(sigma1) + kEps);
            // (int32)(sigma2 - g * sigma12), then clamped at 0: the
            // difference is below sigma2 < 2^31, and anything not above 0
            // becomes 0 either way
            const int32_t sv_sq = positive_part_trunc(static_cast<double>(sigma2) - g * static_cast<double>(sigma12));
            const double gl = g < gain_limit ? g : gain_limit;
            const uint32_t numer1 = static_cast<uint32_t>(sv_sq) + static_cast<uint32_t>(kSigmaNsq);
            const int64_t numer1_tmp = static_cast<int64_t>(gl * gl * static_cast<double>(sigma1)) + numer1;
            s.num_log += log2_u64(log2_table, static_cast<uint64_t>(numer1_tmp)) - log2_u64(log2_table, numer1);
        }
    } else {
        s.num_non_log += sigma2;
        s.den_non_log += 1;
    }
}

// ---- per scale ---------------------------------------------------------------

SPEEDQA_HD float scale_num(const Sums& s) {
    return static_cast<float>(static_cast<double>(s.num_log) / 2048.0 +
                              (static_cast<double>(s.den_non_log) -
                               (static_cast<double>(s.num_non_log) / 16384.0) / 65025.0));
}

SPEEDQA_HD float scale_den(const Sums& s) {
    return static_cast<float>(static_cast<double>(s.den_log) / 2048.0 + static_cast<double>(s.den_non_log));
}

}  // namespace speedqa::exact::vif
