// The integer arithmetic of libvmaf's integer ADM, one element at a time.
//
// libvmaf's ADM is fixed point up to its per-scale sums, so exactness is a
// matter of reproducing every wrap, truncation and shift. Where libvmaf's
// scalar and SIMD kernels evaluate an element differently (a 32-bit multiply
// that reads an unsigned factor as signed, a saturating pack instead of a
// truncating store, a logical instead of an arithmetic shift, a conversion
// that rounds instead of truncating), the function takes the Lane that
// computed the element in libvmaf: which columns are SIMD lanes is decided by
// the plan (the loop bounds of each libvmaf kernel).
//
// Conventions: C++20 defines conversions to signed types as modular, so
// "wrap to 32 bits" is a static_cast; sums that wrap in libvmaf are done in
// unsigned arithmetic here.
#pragma once

#include <cmath>
#include <cstdint>

#include "exact/hd.hpp"

namespace speedqa::adm::exact {

// Who computed an element in libvmaf: its scalar C, an AVX2 lane or an
// AVX-512 lane.
enum class Lane : uint8_t { scalar, avx2, avx512 };

// Daubechies-2 analysis filters in Q15 (low pass sums to 46342, high pass to 0).
inline constexpr int32_t kLo[4] = {15826, 27411, 7345, -4240};
inline constexpr int32_t kHi[4] = {-4240, -7345, 27411, -15826};
inline constexpr int32_t kLoSum = 46342;

inline constexpr int32_t kOneBy15 = 8738;           // 2^17 / 15, scale 0
inline constexpr int32_t kOneBy30 = 4369;           // 2^17 / 30, scale 0
inline constexpr int64_t kI4OneBy15 = 286331153;    // 2^32 / 15, scales 1-3
inline constexpr int64_t kI4OneBy30 = 143165577;    // 2^32 / 30, scales 1-3
// The rounding term of the Q32 products: libvmaf stores 1u << 31 in an
// int32_t, so it subtracts 2^31 instead of adding it.
inline constexpr int64_t kI4Round = -(int64_t{1} << 31);

SPEEDQA_HD int32_t low32(int64_t v) { return static_cast<int32_t>(static_cast<uint64_t>(v)); }
SPEEDQA_HD int16_t low16(int32_t v) { return static_cast<int16_t>(static_cast<uint32_t>(v)); }
SPEEDQA_HD int32_t add32(int32_t a, int32_t b) {
    return static_cast<int32_t>(static_cast<uint32_t>(a) + static_cast<uint32_t>(b));
}
SPEEDQA_HD int32_t sub32(int32_t a, int32_t b) {
    return static_cast<int32_t>(static_cast<uint32_t>(a) - static_cast<uint32_t>(b));
}
SPEEDQA_HD int32_t mul32(int32_t a, int32_t b) {
    return static_cast<int32_t>(static_cast<uint32_t>(a) * static_cast<uint32_t>(b));
}
SPEEDQA_HD int64_t add64(int64_t a, int64_t b) {
    return static_cast<int64_t>(static_cast<uint64_t>(a) + static_cast<uint64_t>(b));
}
// abs() of libvmaf's int32 values: abs(INT32_MIN) stays INT32_MIN.
SPEEDQA_HD int32_t abs32(int32_t v) { return v < 0 ? static_cast<int32_t>(0u - static_cast<uint32_t>(v)) : v; }
SPEEDQA_HD int16_t sat16(int32_t v) {
    return static_cast<int16_t>(v > 32767 ? 32767 : (v < -32768 ? -32768 : v));
}
// _mm*_mul_epi32: the signed low halves of two 64-bit lanes, multiplied.
SPEEDQA_HD int64_t mul_lo32(int64_t a, int64_t b) {
    return static_cast<int64_t>(low32(a)) * static_cast<int64_t>(low32(b));
}
SPEEDQA_HD int64_t mul64(int64_t a, int64_t b) {
    return static_cast<int64_t>(static_cast<uint64_t>(a) * static_cast<uint64_t>(b));
}
SPEEDQA_HD int64_t shr_logical(int64_t v, int s) { return static_cast<int64_t>(static_cast<uint64_t>(v) >> s); }

// ---------------------------------------------------------------- DWT ----

// The input row/column of tap k (0..3) of output i of n: 2i-1+k, with
// {1, 0, 1, 2} for i = 0 and reflection past the end (n >= 5).
SPEEDQA_HD int tap_index(int i, int k, int n) {
    if (i == 0) return k == 1 ? 0 : (k == 3 ? 2 : 1);
    const int v = 2 * i - 1 + k;
    return v >= n ? 2 * n - v - 1 : v;
}

// Scale 0, vertical pass of one column: four samples (already mirrored),
// normalised to a signed range; libvmaf keeps the low 16 bits.
SPEEDQA_HD int16_t dwt0_vertical(const int32_t* f, int32_t s0, int32_t s1, int32_t s2, int32_t s3, int32_t offset,
                                 int32_t round, int shift) {
    uint32_t acc = static_cast<uint32_t>(f[0] * s0) + static_cast<uint32_t>(f[1] * s1) +
                   static_cast<uint32_t>(f[2] * s2) + static_cast<uint32_t>(f[3] * s3) - static_cast<uint32_t>(offset);
    return low16(static_cast<int32_t>(acc + static_cast<uint32_t>(round)) >> shift);
}

// Scale 0, horizontal pass: Q16 rounding, low 16 bits kept.
SPEEDQA_HD int16_t dwt0_horizontal(const int32_t* f, int32_t s0, int32_t s1, int32_t s2, int32_t s3) {
    uint32_t acc = static_cast<uint32_t>(f[0] * s0) + static_cast<uint32_t>(f[1] * s1) +
                   static_cast<uint32_t>(f[2] * s2) + static_cast<uint32_t>(f[3] * s3);
    return low16(static_cast<int32_t>(acc + 32768u) >> 16);
}

// Scales 1-3, either pass: 64-bit sum, rounding shift, low 32 bits kept.
SPEEDQA_HD int32_t dwt_i4(const int32_t* f, int32_t s0, int32_t s1, int32_t s2, int32_t s3, int64_t round, int shift) {
    const int64_t acc = static_cast<int64_t>(f[0]) * s0 + static_cast<int64_t>(f[1]) * s1 +
                        static_cast<int64_t>(f[2]) * s2 + static_cast<int64_t>(f[3]) * s3;
    return low32((acc + round) >> shift);
}

// Vertical and horizontal rounding of scales 1, 2, 3 (index scale - 1).
inline constexpr int64_t kVRound[3] = {0, 32768, 32768};
inline constexpr int kVShift[3] = {0, 16, 16};
inline constexpr int64_t kHRound[3] = {16384, 32768, 16384};
inline constexpr int kHShift[3] = {15, 16, 15};

// ----------------------------------------------------------- decouple ----

// The restored part of a coefficient of the reference (o) that the
// distorted (t) keeps: k = clamp(t / o, 0, 1) in Q15 through a reciprocal
// table, r = k * o; where the two vectors (h, v) are within one degree, r may
// grow up to t by the enhancement gain limit.

// Whether (oh, ov) and (th, tv) point within one degree of each other.
// Scalar and AVX2: (c * |o|^2) * |t|^2 with the products as given (AVX2 and
// AVX-512 form them in 32 bits at scale 0, which may wrap);
// AVX-512 at scale 0 multiplies in the order (|o|^2 * |t|^2) * c.
SPEEDQA_HD bool angle_within_1deg(int64_t ot_dp, int64_t o_mag_sq, int64_t t_mag_sq, float cos_1deg_sq, bool avx512_order) {
    const double a = static_cast<double>(static_cast<float>(ot_dp)) / 4096.0;
    const double o = static_cast<double>(static_cast<float>(o_mag_sq)) / 4096.0;
    const double t = static_cast<double>(static_cast<float>(t_mag_sq)) / 4096.0;
    if (!(a >= 0.0)) return false;
    const double rhs = avx512_order ? (o * t) * static_cast<double>(cos_1deg_sq) : (static_cast<double>(cos_1deg_sq) * o) * t;
    return a * a >= rhs;
}

// rst * limit, bounded by t, as each lane kind converts it:
// scalar: the double min/max, then truncation toward zero;
// SIMD (AVX2 at scale 0, AVX-512 at all scales): the product rounded to
// nearest even first, then min/max with t.
SPEEDQA_HD int64_t gain_bound(int64_t rst, int64_t t, double limit, bool positive, bool round_first) {
    const double g = static_cast<double>(rst) * limit;
    if (round_first) {
        const int64_t r = static_cast<int64_t>(std::nearbyint(g));
        return positive ? (r < t ? r : t) : (r > t ? r : t);
    }
    const double td = static_cast<double>(t);
    const double m = positive ? (g < td ? g : td) : (g > td ? g : td);
    return static_cast<int64_t>(m);
}

// Scale 0: one orientation's k in Q15 through the reciprocal table.
SPEEDQA_HD int32_t k_scale0(int16_t o, int16_t t, const int32_t* div_lookup) {
    if (o == 0) return 32768;
    const int64_t k = (static_cast<int64_t>(div_lookup[o + 32768]) * t + 16384) >> 15;
    const int32_t k32 = low32(k);
    return k32 < 0 ? 0 : (k32 > 32768 ? 32768 : k32);
}

// Scales 1-3: the 32-bit |o| reduced to 15 significant bits first.
SPEEDQA_HD int64_t k_scale123(int32_t o, int32_t t, const int32_t* div_lookup) {
    if (o == 0) return 32768;
    const uint32_t mag = static_cast<uint32_t>(abs32(o));
    int shift = 0;
    uint32_t msb = mag;
    if (mag >= 32768) {
        int lz = 0;
        for (uint32_t m = mag; !(m & 0x80000000u); m <<= 1) ++lz;
        shift = 17 - lz;
        msb = (mag + (1u << (shift - 1))) >> shift;
    }
    const int64_t sign = o < 0 ? -1 : 1;
    // 1 << (14 + shift) as libvmaf's int shift: 1 << 31 is INT32_MIN.
    const int64_t round = static_cast<int32_t>(1u << (14 + shift));
    const int64_t k = (static_cast<int64_t>(div_lookup[static_cast<uint16_t>(msb) + 32768]) * t * sign + round) >> (15 + shift);
    return k < 0 ? 0 : (k > 32768 ? 32768 : k);
}

// ---------------------------------------------------------------- CSF ----

// Scale 0: csf value and its 1/30 "filter" value, as each lane kind stores them.
struct Csf16 {
    int16_t value, filtered;
};
SPEEDQA_HD Csf16 csf_scale0(int16_t src, int32_t factor, int32_t round, int shift, Lane lane) {
    const int32_t d = (src * factor + round) >> shift;   // fits 32 bits: |src| <= 2^15, factor < 2^16
    if (lane == Lane::scalar) {
        const int16_t v = low16(d);
        return {v, low16((kOneBy30 * abs32(v) + 2048) >> 12)};
    }
    const int32_t f = (kOneBy30 * abs32(d) + 2048) >> 12;
    if (lane == Lane::avx2) return {sat16(d), sat16(f)};
    return {low16(d), low16(f)};
}

// Scales 1-3: factor is the Q32 CSF factor as the lane reads it (unsigned
// in scalar code, its low 32 bits as a signed number in SIMD lanes).
struct Csf32 {
    int32_t value, filtered;
};
SPEEDQA_HD Csf32 csf_scale123(int32_t src, int64_t factor) {
    const int32_t v = low32(add64(mul64(factor, src), int64_t{1} << 27) >> 28);
    const int64_t mag = static_cast<int64_t>(abs32(v));
    return {v, low32((kI4OneBy30 * mag + kI4Round) >> 32)};
}

// ---------------------------------------------------------------- CM -----

// Scale 0: the centre term of the masking threshold (scalar keeps 16 bits).
SPEEDQA_HD int32_t cm_centre_scale0(int16_t csf, Lane lane) {
    const int32_t c = (kOneBy15 * abs32(csf) + 2048) >> 12;
    return lane == Lane::scalar ? low16(c) : c;
}

// Scale 0: one element's contribution |x| - thr, cubed with two rounding
// shifts. x = coefficient * factor (32 bits), thr_shifted = thr << sub.
SPEEDQA_HD int64_t cm_term_scale0(int32_t x, int32_t thr_shifted, int64_t add_sq, int shift_sq, int64_t add_cub,
                                  int shift_cub, Lane lane) {
    int32_t d = sub32(abs32(x), thr_shifted);
    if (d < 0) d = 0;
    const int64_t sq = (static_cast<int64_t>(d) * d + add_sq) >> shift_sq;
    const int64_t p = static_cast<int64_t>(low32(sq)) * d + add_cub;
    return lane == Lane::avx2 ? shr_logical(p, shift_cub) : (p >> shift_cub);
}

// Scales 1-3: the centre term of the threshold.
SPEEDQA_HD int64_t cm_centre_scale123(int32_t csf) {
    return (static_cast<int64_t>(abs32(csf)) * kI4OneBy15 + kI4Round) >> 32;
}

// Scales 1-3, scalar: x is the 32-bit csf'd coefficient, thr the 32-bit sum.
SPEEDQA_HD int64_t cm_term_scale123_scalar(int32_t x, int32_t thr, int64_t add_cub, int shift_cub) {
    int32_t d = sub32(abs32(x), thr);
    if (d < 0) d = 0;
    const int32_t sq = low32((static_cast<int64_t>(d) * d + (int64_t{1} << 29)) >> 30);
    return (static_cast<int64_t>(sq) * d + add_cub) >> shift_cub;
}

// Scales 1-3, SIMD lanes: x and thr stay 64 bits; AVX2 negates and shifts
// as 32-bit/logical operations, AVX-512 as 64-bit/arithmetic ones.
SPEEDQA_HD int64_t cm_term_scale123_simd(int64_t x, int64_t thr, int64_t add_cub, int shift_cub, Lane lane) {
    int64_t ax;
    if (lane == Lane::avx2)
        ax = x < 0 ? -static_cast<int64_t>(low32(x)) : x;
    else
        ax = x < 0 ? static_cast<int64_t>(0ull - static_cast<uint64_t>(x)) : x;
    int64_t d = static_cast<int64_t>(static_cast<uint64_t>(ax) - static_cast<uint64_t>(thr));
    if (d < 0) d = 0;
    const int64_t sq_p = mul_lo32(d, d) + (int64_t{1} << 29);
    const int64_t sq = lane == Lane::avx2 ? shr_logical(sq_p, 30) : (sq_p >> 30);
    const int64_t cub_p = add64(mul_lo32(sq, d), add_cub);
    return lane == Lane::avx2 ? shr_logical(cub_p, shift_cub) : (cub_p >> shift_cub);
}

// Scales 1-3: the csf'd coefficient of the CM stage, 64 bits wide in SIMD lanes.
SPEEDQA_HD int64_t cm_x_scale123(int32_t src, int64_t factor) {
    return add64(mul64(factor, src), int64_t{1} << 27) >> 28;
}

// ------------------------------------------------------ per element ------
// One element's stages, its three orientations (h, v, d) at once, as the C
// reference (kernels_c.cpp) and the device stages (cuda/stages.hpp) take them.

// Scale 0 decoupling of the reference's coefficients o and the distorted's
// t into the restored (r) and additive (a) parts. SIMD lanes form the dot
// products in 32 bits (_mm*_madd_epi16) and round rst * gain before bounding it.
SPEEDQA_HD void decouple_scale0(const int16_t o[3], const int16_t t[3], Lane lane, double gain_limit,
                                float cos_1deg_sq, const int32_t* div_lookup, int16_t r[3], int16_t a[3]) {
    const bool simd = lane != Lane::scalar;
    int64_t ot = int64_t{o[0]} * t[0] + int64_t{o[1]} * t[1];
    int64_t om = int64_t{o[0]} * o[0] + int64_t{o[1]} * o[1];
    int64_t tm = int64_t{t[0]} * t[0] + int64_t{t[1]} * t[1];
    if (simd) {
        ot = low32(ot);
        om = low32(om);
        tm = low32(tm);
    }
    const bool angle = angle_within_1deg(ot, om, tm, cos_1deg_sq, lane == Lane::avx512);
    for (int k = 0; k < 3; ++k) {
        const int32_t kk = k_scale0(o[k], t[k], div_lookup);
        int64_t rst = (kk * o[k] + 16384) >> 15;
        const float rst_f = (static_cast<float>(kk) / 32768) * (static_cast<float>(o[k]) / 64);
        if (angle && rst_f > 0.) rst = gain_bound(rst, t[k], gain_limit, true, simd);
        if (angle && rst_f < 0.) rst = gain_bound(rst, t[k], gain_limit, false, simd);
        r[k] = low16(static_cast<int32_t>(rst));
        a[k] = low16(t[k] - r[k]);
    }
}

// Scales 1-3 decoupling; round_first: an AVX-512 lane.
SPEEDQA_HD void decouple_scale123(const int32_t o[3], const int32_t t[3], bool round_first, double gain_limit,
                                  float cos_1deg_sq, const int32_t* div_lookup, int32_t r[3], int32_t a[3]) {
    // Two products of 2^62 at most: the sums may wrap (INT32_MIN^2 twice).
    const int64_t ot = add64(int64_t{o[0]} * t[0], int64_t{o[1]} * t[1]);
    const int64_t om = add64(int64_t{o[0]} * o[0], int64_t{o[1]} * o[1]);
    const int64_t tm = add64(int64_t{t[0]} * t[0], int64_t{t[1]} * t[1]);
    const bool angle = angle_within_1deg(ot, om, tm, cos_1deg_sq, false);
    for (int k = 0; k < 3; ++k) {
        const int64_t kk = k_scale123(o[k], t[k], div_lookup);
        int64_t rst = low32((kk * o[k] + 16384) >> 15);
        const float rst_f = (static_cast<float>(kk) / 32768) * (static_cast<float>(o[k]) / 64);
        if (angle && rst_f > 0.) rst = gain_bound(rst, t[k], gain_limit, true, round_first);
        if (angle && rst_f < 0.) rst = gain_bound(rst, t[k], gain_limit, false, round_first);
        r[k] = low32(rst);
        a[k] = sub32(t[k], r[k]);
    }
}

// The denominator's term of one reference coefficient: |o|^3 (scale 0), or
// with libvmaf's two rounding shifts (scales 1-3).
SPEEDQA_HD uint64_t den_term_scale0(int16_t o) {
    const uint64_t m = static_cast<uint16_t>(abs32(o));
    return m * m * m;
}
SPEEDQA_HD uint64_t den_term_scale123(int32_t o, int shift_sq, uint64_t add_cub, int shift_cub) {
    const uint64_t m = static_cast<uint32_t>(abs32(o));
    const uint64_t add_sq = uint64_t{1} << shift_sq;
    return ((((m * m) + add_sq) >> shift_sq) * m + add_cub) >> shift_cub;
}

// Rounding and shift of the scale-0 CSF, per orientation (h, v, d).
inline constexpr int32_t kCsfRound[3] = {16384, 16384, 65535};
inline constexpr int kCsfShift[3] = {15, 15, 17};

// Scale 0 contrast masking of one element: adds its three orientations'
// cubed excesses over the threshold thr (the 3x3 sum, int64) to sums.
// src: the coefficients masked; rf: the CSF factors (Q21, Q21, Q23).
SPEEDQA_HD void cm_terms_scale0(int64_t thr, const int16_t src[3], const int32_t rf[3], Lane lane,
                                const int64_t add_cub[3], const int shift_cub[3], int64_t sums[3]) {
    const int sub[3] = {10, 10, 12};
    const int shift_sq[3] = {29, 29, 30};
    const int64_t add_sq[3] = {1 << 28, 1 << 28, 1 << 29};
    const int32_t thr32 = low32(thr);
    for (int k = 0; k < 3; ++k) {
        const int32_t x = src[k] * rf[k];
        const int32_t thr_s = static_cast<int32_t>(static_cast<uint32_t>(thr32) << sub[k]);
        sums[k] = add64(sums[k], cm_term_scale0(x, thr_s, add_sq[k], shift_sq[k], add_cub[k], shift_cub[k], lane));
    }
}

// Scales 1-3: rf the Q32 factors as the lane reads them.
SPEEDQA_HD void cm_terms_scale123(int64_t thr, const int32_t src[3], const int64_t rf[3], Lane lane, int64_t add_cub,
                                  int shift_cub, int64_t sums[3]) {
    for (int k = 0; k < 3; ++k) {
        const int64_t x = cm_x_scale123(src[k], rf[k]);
        const int64_t term = lane == Lane::scalar ? cm_term_scale123_scalar(low32(x), low32(thr), add_cub, shift_cub)
                                                  : cm_term_scale123_simd(x, thr, add_cub, shift_cub, lane);
        sums[k] = add64(sums[k], term);
    }
}

// What one row's inner sum adds to its scale's sum: libvmaf rounds and
// shifts each row's (the masking's, wrapping, and the denominator's).
SPEEDQA_HD int64_t cm_row_total(int64_t inner, int64_t add_inner, int shift_inner) {
    return add64(inner, add_inner) >> shift_inner;
}
SPEEDQA_HD uint64_t den_row_total(uint64_t inner, uint64_t add_accum, int shift_accum) {
    return (inner + add_accum) >> shift_accum;
}

}  // namespace speedqa::adm::exact
