// AVX2 variants of the VIF kernels (built with -mavx2 -mfma -mbmi -mbmi2).
//
// They compute the C reference's integers by other means:
//  - vertical sums pair the rows either side of the centre (same tap) and
//    multiply-add 16-bit samples two at a time (vpmaddwd); 16-bit samples
//    are first biased by -32768 to fit its signed inputs, and the bias is
//    taken out again exactly afterwards;
//  - second moments beyond 32 bits are held in doubles: every one is an
//    integer below 2^53, every product and sum exact, so fused multiply-adds
//    and any order give the integers themselves; a rounding shift is a
//    multiplication by 2^-s and a floor;
//  - the per-pixel statistic runs on 4 pixels at once in doubles: the same
//    IEEE operations as the C code (division, product, difference, and the
//    truncations), its branches as masks; log2 reads the table at the top 16
//    bits of the value, found from the double's exponent and mantissa.
// A row is processed in chunks of columns so that its lanes stay in L1.
#include <immintrin.h>

#include <algorithm>

#include "core/cpu_flags.hpp"
#include "features/vif/vif_kernels.hpp"

namespace speedqa::vif {
namespace {

using ev::kMaxRadius;

constexpr int kChunk = 256;  // output columns per chunk

// How the samples of a row are read.
enum class Src {
    u8,        // uint8 (scale 0 of 8-bit video)
    u16,       // uint16 below 2^15 (scale 0 of 10- and 12-bit video)
    u16_wide,  // any uint16, biased by -32768 when loaded
};

Src source_of(int bits) { return bits == 8 ? Src::u8 : bits <= 12 ? Src::u16 : Src::u16_wide; }

// ---- loads ---------------------------------------------------------------------

// Samples of columns j..j+7 as int16 (biased for u16_wide).
template <Src S>
inline __m128i load8(const void* row, int j) {
    if constexpr (S == Src::u8) {
        return _mm_cvtepu8_epi16(_mm_loadl_epi64(reinterpret_cast<const __m128i*>(static_cast<const uint8_t*>(row) + j)));
    } else {
        const __m128i v = _mm_loadu_si128(reinterpret_cast<const __m128i*>(static_cast<const uint16_t*>(row) + j));
        return S == Src::u16_wide ? _mm_xor_si128(v, _mm_set1_epi16(static_cast<short>(0x8000))) : v;
    }
}

// Column j's pair (a_j, b_j) in each 32-bit lane, columns in order.
inline __m256i pair_up(__m128i a, __m128i b) {
    return _mm256_set_m128i(_mm_unpackhi_epi16(a, b), _mm_unpacklo_epi16(a, b));
}

// (c, c) in each 32-bit lane, for c < 2^15.
inline __m256i broadcast_pair(uint32_t c) { return _mm256_set1_epi32(static_cast<int>(c | (c << 16))); }
// (c - c / 2, c / 2): c < 2^16 as two int16 that sum to it.
inline __m256i centre_halves(uint32_t c) {
    return _mm256_set1_epi32(static_cast<int>((c - c / 2) | ((c / 2) << 16)));
}

// Doubles of the int32 lanes 0..3 and 4..7.
inline __m256d lo_pd(__m256i v) { return _mm256_cvtepi32_pd(_mm256_castsi256_si128(v)); }
inline __m256d hi_pd(__m256i v) { return _mm256_cvtepi32_pd(_mm256_extracti128_si256(v, 1)); }

// Doubles of unsigned 32-bit values held in 64-bit lanes.
inline __m256d u64_small_to_pd(__m256i v) {
    const __m256i magic = _mm256_set1_epi64x(0x4330000000000000);  // 2^52
    return _mm256_sub_pd(_mm256_castsi256_pd(_mm256_or_si256(v, magic)), _mm256_castsi256_pd(magic));
}
inline __m256d u32_lo_pd(__m256i v) { return u64_small_to_pd(_mm256_cvtepu32_epi64(_mm256_castsi256_si128(v))); }
inline __m256d u32_hi_pd(__m256i v) { return u64_small_to_pd(_mm256_cvtepu32_epi64(_mm256_extracti128_si256(v, 1))); }

// Non-negative integer-valued doubles below 2^52 to int64.
inline __m256i pd_to_i64(__m256d v) {
    const __m256d magic = _mm256_set1_pd(4503599627370496.0);  // 2^52
    return _mm256_sub_epi64(_mm256_castpd_si256(_mm256_add_pd(v, magic)), _mm256_castpd_si256(magic));
}

inline __m256d floor_pd(__m256d v) { return _mm256_round_pd(v, _MM_FROUND_TO_NEG_INF | _MM_FROUND_NO_EXC); }
inline __m256d trunc_pd(__m256d v) { return _mm256_round_pd(v, _MM_FROUND_TO_ZERO | _MM_FROUND_NO_EXC); }

inline int64_t hsum_i64(__m256i v) {
    const __m128i s = _mm_add_epi64(_mm256_castsi256_si128(v), _mm256_extracti128_si256(v, 1));
    return _mm_cvtsi128_si64(s) + _mm_extract_epi64(s, 1);
}

// ---- the statistic's vertical pass ------------------------------------------------------

// The lanes of a chunk: position p (a column, or a mirrored one beside the
// frame) at index p - base.
struct StatLanes {
    int32_t* mu1;
    int32_t* mu2;
    double* xx;
    double* yy;
    double* xy;
    int base;
};

struct VerticalConsts {
    __m128i mean_shift;
    __m256i mean_round;
    __m256d moment_round, moment_scale;  // (v + round) * 2^-shift, floored
    double bias;                         // u16_wide: what the biased sums lack (see vertical8)
};

VerticalConsts vertical_consts(const StatRowArgs& a) {
    VerticalConsts k;
    k.mean_shift = _mm_cvtsi32_si128(a.rounding.mean.shift);
    k.mean_round = _mm256_set1_epi32(static_cast<int>(a.rounding.mean.round));
    k.moment_round = _mm256_set1_pd(static_cast<double>(a.rounding.moment.round));
    k.moment_scale = _mm256_set1_pd(1.0 / static_cast<double>(uint64_t{1} << a.rounding.moment.shift));
    // with x = x' + 32768: sum c x^2 = sum c x'^2 + 2^16 sum c x' + 2^30 sum c,
    // and every paired term below is taken less 65536 (to fit int32)
    double half_taps = 0;  // the taps of the pairs, centre included
    for (int k2 = 0; k2 <= a.filter.radius(); k2++) half_taps += a.filter.c[k2];
    k.bias = 65536.0 * half_taps + 1073741824.0 * 65536.0;
    return k;
}

// Vertical sums of columns j..j+7 into the lanes.
template <Src S>
inline void vertical8(const StatRowArgs& a, const VerticalConsts& kc, int j, const StatLanes& L) {
    const ev::Filter& f = a.filter;
    const int r = f.radius();
    __m256i m1 = _mm256_setzero_si256(), m2 = _mm256_setzero_si256();
    __m256i q_xx = _mm256_setzero_si256(), q_yy = _mm256_setzero_si256(), q_xy = _mm256_setzero_si256();
    __m256d xx0 = _mm256_setzero_pd(), xx1 = xx0, yy0 = xx0, yy1 = xx0, xy0 = xx0, xy1 = xx0;
    const __m256i bias = _mm256_set1_epi32(65536);
    // adds the moments of the pairs (or of (x, 0) at the centre), times c
    const auto moments = [&](__m256i xp, __m256i yp, uint32_t c_tap) {
        __m256i sxx = _mm256_madd_epi16(xp, xp), syy = _mm256_madd_epi16(yp, yp), sxy = _mm256_madd_epi16(xp, yp);
        if constexpr (S == Src::u8) {
            // below 2^32 in all: unsigned 32-bit sums are exact
            const __m256i c = _mm256_set1_epi32(static_cast<int>(c_tap));
            q_xx = _mm256_add_epi32(q_xx, _mm256_mullo_epi32(sxx, c));
            q_yy = _mm256_add_epi32(q_yy, _mm256_mullo_epi32(syy, c));
            q_xy = _mm256_add_epi32(q_xy, _mm256_mullo_epi32(sxy, c));
        } else {
            if constexpr (S == Src::u16_wide) {
                // biased pairs: x'^2 + x'^2 in [0, 2^31], x'y' + x'y' in
                // (-2^31, 2^31]: less 65536 both fit int32
                sxx = _mm256_sub_epi32(sxx, bias);
                syy = _mm256_sub_epi32(syy, bias);
                sxy = _mm256_sub_epi32(sxy, bias);
            }
            const __m256d c = _mm256_set1_pd(static_cast<double>(c_tap));
            xx0 = _mm256_fmadd_pd(c, lo_pd(sxx), xx0);
            xx1 = _mm256_fmadd_pd(c, hi_pd(sxx), xx1);
            yy0 = _mm256_fmadd_pd(c, lo_pd(syy), yy0);
            yy1 = _mm256_fmadd_pd(c, hi_pd(syy), yy1);
            xy0 = _mm256_fmadd_pd(c, lo_pd(sxy), xy0);
            xy1 = _mm256_fmadd_pd(c, hi_pd(sxy), xy1);
        }
    };
    for (int k = 0; k < r; k++) {
        const __m256i xp = pair_up(load8<S>(a.ref_rows[k], j), load8<S>(a.ref_rows[f.width - 1 - k], j));
        const __m256i yp = pair_up(load8<S>(a.dis_rows[k], j), load8<S>(a.dis_rows[f.width - 1 - k], j));
        const __m256i cc = broadcast_pair(f.c[k]);
        m1 = _mm256_add_epi32(m1, _mm256_madd_epi16(xp, cc));
        m2 = _mm256_add_epi32(m2, _mm256_madd_epi16(yp, cc));
        moments(xp, yp, f.c[k]);
    }
    {
        // the centre tap may exceed int16 (43728 at scale 3): the means
        // take it as two halves on (x, x), the moments pair x with 0
        const __m128i xc = load8<S>(a.ref_rows[r], j), yc = load8<S>(a.dis_rows[r], j);
        const __m256i halves = centre_halves(f.c[r]);
        m1 = _mm256_add_epi32(m1, _mm256_madd_epi16(pair_up(xc, xc), halves));
        m2 = _mm256_add_epi32(m2, _mm256_madd_epi16(pair_up(yc, yc), halves));
        moments(pair_up(xc, _mm_setzero_si128()), pair_up(yc, _mm_setzero_si128()), f.c[r]);
    }
    const int p = j - L.base;
    if constexpr (S == Src::u16_wide) {
        // undo the bias: sum c x^2 = (paired sums) + bias + 2^16 sum c x',
        // sum c x y = (paired sums) + bias + 2^15 (sum c x' + sum c y')
        const __m256d b = _mm256_set1_pd(kc.bias);
        const __m256d e16 = _mm256_set1_pd(65536.0), e15 = _mm256_set1_pd(32768.0);
        const __m256d m1l = lo_pd(m1), m1h = hi_pd(m1), m2l = lo_pd(m2), m2h = hi_pd(m2);
        xx0 = _mm256_add_pd(_mm256_add_pd(xx0, b), _mm256_mul_pd(e16, m1l));
        xx1 = _mm256_add_pd(_mm256_add_pd(xx1, b), _mm256_mul_pd(e16, m1h));
        yy0 = _mm256_add_pd(_mm256_add_pd(yy0, b), _mm256_mul_pd(e16, m2l));
        yy1 = _mm256_add_pd(_mm256_add_pd(yy1, b), _mm256_mul_pd(e16, m2h));
        xy0 = _mm256_add_pd(_mm256_add_pd(xy0, b), _mm256_mul_pd(e15, _mm256_add_pd(m1l, m2l)));
        xy1 = _mm256_add_pd(_mm256_add_pd(xy1, b), _mm256_mul_pd(e15, _mm256_add_pd(m1h, m2h)));
        // sum c x = sum c x' + 2^31 (as unsigned 32 bits)
        const __m256i e31 = _mm256_set1_epi32(static_cast<int>(0x80000000u));
        m1 = _mm256_add_epi32(m1, e31);
        m2 = _mm256_add_epi32(m2, e31);
    }
    _mm256_storeu_si256(reinterpret_cast<__m256i*>(L.mu1 + p),
                        _mm256_srl_epi32(_mm256_add_epi32(m1, kc.mean_round), kc.mean_shift));
    _mm256_storeu_si256(reinterpret_cast<__m256i*>(L.mu2 + p),
                        _mm256_srl_epi32(_mm256_add_epi32(m2, kc.mean_round), kc.mean_shift));
    if constexpr (S == Src::u8) {
        // 8-bit: the moments are not rounded
        _mm256_storeu_pd(L.xx + p, u32_lo_pd(q_xx));
        _mm256_storeu_pd(L.xx + p + 4, u32_hi_pd(q_xx));
        _mm256_storeu_pd(L.yy + p, u32_lo_pd(q_yy));
        _mm256_storeu_pd(L.yy + p + 4, u32_hi_pd(q_yy));
        _mm256_storeu_pd(L.xy + p, u32_lo_pd(q_xy));
        _mm256_storeu_pd(L.xy + p + 4, u32_hi_pd(q_xy));
    } else {
        const auto rnd = [&](__m256d v) { return floor_pd(_mm256_mul_pd(_mm256_add_pd(v, kc.moment_round), kc.moment_scale)); };
        _mm256_storeu_pd(L.xx + p, rnd(xx0));
        _mm256_storeu_pd(L.xx + p + 4, rnd(xx1));
        _mm256_storeu_pd(L.yy + p, rnd(yy0));
        _mm256_storeu_pd(L.yy + p + 4, rnd(yy1));
        _mm256_storeu_pd(L.xy + p, rnd(xy0));
        _mm256_storeu_pd(L.xy + p + 4, rnd(xy1));
    }
}

inline uint32_t sample(const void* row, int bits, int j) {
    return bits == 8 ? static_cast<const uint8_t*>(row)[j] : static_cast<const uint16_t*>(row)[j];
}

// One column the C way (the tails of a chunk).
void vertical1(const StatRowArgs& a, int j, const StatLanes& L) {
    const ev::Filter& f = a.filter;
    uint64_t m1 = 0, m2 = 0, sxx = 0, syy = 0, sxy = 0;
    for (int k = 0; k < f.width; k++) {
        const uint64_t x = sample(a.ref_rows[k], a.bits, j), y = sample(a.dis_rows[k], a.bits, j);
        m1 += f.c[k] * x;
        m2 += f.c[k] * y;
        sxx += f.c[k] * x * x;
        syy += f.c[k] * y * y;
        sxy += f.c[k] * x * y;
    }
    const int p = j - L.base;
    L.mu1[p] = static_cast<int32_t>(a.rounding.mean.apply(m1));
    L.mu2[p] = static_cast<int32_t>(a.rounding.mean.apply(m2));
    L.xx[p] = static_cast<double>(a.rounding.moment.apply(sxx));
    L.yy[p] = static_cast<double>(a.rounding.moment.apply(syy));
    L.xy[p] = static_cast<double>(a.rounding.moment.apply(sxy));
}

template <Src S>
void vertical_range(const StatRowArgs& a, int from, int to, const StatLanes& L) {
    const VerticalConsts kc = vertical_consts(a);
    int j = from;
    for (; j + 8 <= to; j += 8) vertical8<S>(a, kc, j, L);
    for (; j < to; j++) vertical1(a, j, L);
}

// ---- the statistic's horizontal pass and the per-pixel terms ------------------

struct StatAcc {
    __m256i num_log = _mm256_setzero_si256(), den_log = _mm256_setzero_si256();
    __m256i den_non_log = _mm256_setzero_si256();
    __m256d num_non_log = _mm256_setzero_pd();  // below 2^31 a pixel: exact over a row
};

struct StatConsts {
    __m256d nsq, eps, gain_limit, zero, round16, scale16, round31;
    const int* table;  // the uint16 table read 32 bits at a time
};

// 2048 * (log2 of the value's top 16 bits + its exponent + 1023) for
// integer-valued doubles v >= 2^16: table[v >> k] + 2048 k less 2048 * 1038.
inline __m256i log2_biased(const int* table, __m256d v) {
    const __m256i bits = _mm256_castpd_si256(v);
    const __m256i idx = _mm256_or_si256(_mm256_and_si256(_mm256_srli_epi64(bits, 37), _mm256_set1_epi64x(0x7fff)),
                                        _mm256_set1_epi64x(0x8000));
    const __m128i t = _mm_and_si128(_mm256_i64gather_epi32(table, idx, 2), _mm_set1_epi32(0xffff));
    return _mm256_add_epi64(_mm256_cvtepu32_epi64(t), _mm256_slli_epi64(_mm256_srli_epi64(bits, 52), 11));
}

// ev::accumulate for 4 pixels.
inline void stat4(const StatConsts& k, __m256d s1, __m256d s2, __m256d s12, StatAcc& acc) {
    s2 = _mm256_max_pd(s2, k.zero);
    const __m256d log_mask = _mm256_cmp_pd(s1, k.nsq, _CMP_GE_OQ);
    const __m256i den = _mm256_sub_epi64(log2_biased(k.table, _mm256_add_pd(s1, k.nsq)),
                                         _mm256_set1_epi64x(2048 * (1038 + 17)));
    acc.den_log = _mm256_add_epi64(acc.den_log, _mm256_and_si256(den, _mm256_castpd_si256(log_mask)));
    acc.den_non_log = _mm256_sub_epi64(acc.den_non_log, _mm256_andnot_si256(_mm256_castpd_si256(log_mask),
                                                                            _mm256_set1_epi64x(-1)));
    acc.num_non_log = _mm256_add_pd(acc.num_non_log, _mm256_andnot_pd(log_mask, s2));

    const __m256d num_mask = _mm256_and_pd(
        log_mask, _mm256_and_pd(_mm256_cmp_pd(s12, k.zero, _CMP_GT_OQ), _mm256_cmp_pd(s2, k.zero, _CMP_GT_OQ)));
    const __m256d g = _mm256_div_pd(s12, _mm256_add_pd(s1, k.eps));
    const __m256d sv = _mm256_max_pd(trunc_pd(_mm256_sub_pd(s2, _mm256_mul_pd(g, s12))), k.zero);
    const __m256d gl = _mm256_min_pd(g, k.gain_limit);
    const __m256d numer1 = _mm256_add_pd(sv, k.nsq);
    const __m256d numer1_tmp = _mm256_add_pd(trunc_pd(_mm256_mul_pd(_mm256_mul_pd(gl, gl), s1)), numer1);
    const __m256i num = _mm256_sub_epi64(log2_biased(k.table, numer1_tmp), log2_biased(k.table, numer1));
    acc.num_log = _mm256_add_epi64(acc.num_log, _mm256_and_si256(num, _mm256_castpd_si256(num_mask)));
}

// mean products (a b + 2^31) >> 32 of unsigned 32-bit means in 64-bit lanes
inline __m256d mean_product(__m256i a, __m256i b, __m256i round31) {
    return u64_small_to_pd(_mm256_srli_epi64(_mm256_add_epi64(_mm256_mul_epu32(a, b), round31), 32));
}

// Horizontal sums and the statistic of columns j..j+7.
inline void horizontal8(const StatRowArgs& a, const StatConsts& k, int j, const StatLanes& L, StatAcc& acc) {
    const ev::Filter& f = a.filter;
    const int r = f.radius();
    const int p = j - L.base;
    const auto ld = [](const int32_t* v) { return _mm256_loadu_si256(reinterpret_cast<const __m256i*>(v)); };
    __m256i h1 = _mm256_mullo_epi32(ld(L.mu1 + p), _mm256_set1_epi32(static_cast<int>(f.c[r])));
    __m256i h2 = _mm256_mullo_epi32(ld(L.mu2 + p), _mm256_set1_epi32(static_cast<int>(f.c[r])));
    const __m256d cr = _mm256_set1_pd(static_cast<double>(f.c[r]));
    __m256d hxx0 = _mm256_mul_pd(cr, _mm256_loadu_pd(L.xx + p)), hxx1 = _mm256_mul_pd(cr, _mm256_loadu_pd(L.xx + p + 4));
    __m256d hyy0 = _mm256_mul_pd(cr, _mm256_loadu_pd(L.yy + p)), hyy1 = _mm256_mul_pd(cr, _mm256_loadu_pd(L.yy + p + 4));
    __m256d hxy0 = _mm256_mul_pd(cr, _mm256_loadu_pd(L.xy + p)), hxy1 = _mm256_mul_pd(cr, _mm256_loadu_pd(L.xy + p + 4));
    for (int t = 0; t < r; t++) {
        const int lo = p - r + t, hi = p + r - t;  // the two columns under tap t
        const __m256i c = _mm256_set1_epi32(static_cast<int>(f.c[t]));
        h1 = _mm256_add_epi32(h1, _mm256_mullo_epi32(_mm256_add_epi32(ld(L.mu1 + lo), ld(L.mu1 + hi)), c));
        h2 = _mm256_add_epi32(h2, _mm256_mullo_epi32(_mm256_add_epi32(ld(L.mu2 + lo), ld(L.mu2 + hi)), c));
        const __m256d cd = _mm256_set1_pd(static_cast<double>(f.c[t]));
        const auto pair = [&](const double* v, int o) { return _mm256_add_pd(_mm256_loadu_pd(v + lo + o), _mm256_loadu_pd(v + hi + o)); };
        hxx0 = _mm256_fmadd_pd(cd, pair(L.xx, 0), hxx0);
        hxx1 = _mm256_fmadd_pd(cd, pair(L.xx, 4), hxx1);
        hyy0 = _mm256_fmadd_pd(cd, pair(L.yy, 0), hyy0);
        hyy1 = _mm256_fmadd_pd(cd, pair(L.yy, 4), hyy1);
        hxy0 = _mm256_fmadd_pd(cd, pair(L.xy, 0), hxy0);
        hxy1 = _mm256_fmadd_pd(cd, pair(L.xy, 4), hxy1);
    }
    const auto moment = [&](__m256d h) { return floor_pd(_mm256_mul_pd(_mm256_add_pd(h, k.round16), k.scale16)); };
    const __m256i r31 = _mm256_set1_epi64x(0x80000000ll);
    for (int half = 0; half < 2; half++) {
        const __m128i a1 = half ? _mm256_extracti128_si256(h1, 1) : _mm256_castsi256_si128(h1);
        const __m128i a2 = half ? _mm256_extracti128_si256(h2, 1) : _mm256_castsi256_si128(h2);
        const __m256i u1 = _mm256_cvtepu32_epi64(a1), u2 = _mm256_cvtepu32_epi64(a2);
        const __m256d s1 = _mm256_sub_pd(moment(half ? hxx1 : hxx0), mean_product(u1, u1, r31));
        const __m256d s2 = _mm256_sub_pd(moment(half ? hyy1 : hyy0), mean_product(u2, u2, r31));
        const __m256d s12 = _mm256_sub_pd(moment(half ? hxy1 : hxy0), mean_product(u1, u2, r31));
        stat4(k, s1, s2, s12, acc);
    }
}

// One column the C way (the tails of a chunk).
void horizontal1(const StatRowArgs& a, int j, const StatLanes& L, ev::Sums& sums) {
    const ev::Filter& f = a.filter;
    const int r = f.radius();
    ev::Filtered v{0, 0, 0, 0, 0};
    for (int t = 0; t < f.width; t++) {
        const int p = j - r + t - L.base;
        v.mu1 += f.c[t] * static_cast<uint32_t>(L.mu1[p]);
        v.mu2 += f.c[t] * static_cast<uint32_t>(L.mu2[p]);
        v.xx += f.c[t] * static_cast<uint64_t>(L.xx[p]);
        v.yy += f.c[t] * static_cast<uint64_t>(L.yy[p]);
        v.xy += f.c[t] * static_cast<uint64_t>(L.xy[p]);
    }
    ev::accumulate(ev::sigmas(v), a.gain_limit, a.log2_table, sums);
}

// Fills the positions beside the frame in [from, to) from the columns the
// reference's padding copies.
void mirror_positions(const StatRowArgs& a, int from, int to, const StatLanes& L) {
    for (int p = from; p < to; p++) {
        if (p >= 0 && p < a.w) continue;
        const int s = a.col_src[p] - L.base, d = p - L.base;
        L.mu1[d] = L.mu1[s];
        L.mu2[d] = L.mu2[s];
        L.xx[d] = L.xx[s];
        L.yy[d] = L.yy[s];
        L.xy[d] = L.xy[s];
    }
}

template <Src S>
void stat_row_src(const StatRowArgs& a, const RowScratch& s, ev::Sums& sums) {
    const int r = a.filter.radius();
    StatConsts k;
    k.nsq = _mm256_set1_pd(static_cast<double>(ev::kSigmaNsq));
    k.eps = _mm256_set1_pd(ev::kEps);
    k.gain_limit = _mm256_set1_pd(a.gain_limit);
    k.zero = _mm256_setzero_pd();
    k.round16 = _mm256_set1_pd(static_cast<double>(ev::kHorizontalRound));
    k.scale16 = _mm256_set1_pd(1.0 / 65536.0);
    k.table = reinterpret_cast<const int*>(a.log2_table);
    ev::Sums row;
    for (int j0 = 0; j0 < a.w; j0 += kChunk) {
        const int j1 = std::min(a.w, j0 + kChunk);
        const StatLanes L{reinterpret_cast<int32_t*>(s.lanes[0]), reinterpret_cast<int32_t*>(s.lanes[1]), s.wide[0],
                          s.wide[1], s.wide[2], j0 - r};
        vertical_range<S>(a, std::max(0, j0 - r), std::min(a.w, j1 + r), L);
        mirror_positions(a, j0 - r, j1 + r, L);
        StatAcc acc;
        int j = j0;
        for (; j + 8 <= j1; j += 8) horizontal8(a, k, j, L, acc);
        for (; j < j1; j++) horizontal1(a, j, L, row);
        alignas(32) double nl[4];
        _mm256_store_pd(nl, acc.num_non_log);
        row.num_log += hsum_i64(acc.num_log);
        row.den_log += hsum_i64(acc.den_log);
        row.den_non_log += hsum_i64(acc.den_non_log);
        row.num_non_log += hsum_i64(pd_to_i64(acc.num_non_log));
    }
    sums.add(row);
}

void stat_row_avx2(const StatRowArgs& a, const RowScratch& s, ev::Sums& sums) {
    switch (source_of(a.bits)) {
    case Src::u8: return stat_row_src<Src::u8>(a, s, sums);
    case Src::u16: return stat_row_src<Src::u16>(a, s, sums);
    default: return stat_row_src<Src::u16_wide>(a, s, sums);
    }
}

// ---- halving ------------------------------------------------------------------------

// The vertical pass's rounded values of a row, split by column parity:
// even[q] holds position 2q, odd[q] position 2q + 1 (q from -kMaxRadius).
struct HalfLanes {
    int32_t* even[2];  // ref, dis
    int32_t* odd[2];
};

// Position p's slot: even[floor(p / 2)] or odd[floor(p / 2)].
inline int32_t& slot(const HalfLanes& h, int which, int p) {
    const int q = p >= 0 ? p / 2 : -((1 - p) / 2);
    return (p & 1) ? h.odd[which][q] : h.even[which][q];
}

template <Src S>
void halve_vertical(const HalveRowArgs& a, const HalfLanes& h) {
    const ev::Filter& f = a.filter;
    const int r = f.radius();
    const __m256i round = _mm256_set1_epi32(static_cast<int>(a.vertical.round));
    const __m128i shift = _mm_cvtsi32_si128(a.vertical.shift);
    const __m256i split = _mm256_setr_epi32(0, 2, 4, 6, 1, 3, 5, 7);
    int j = 0;
    for (; j + 8 <= a.w_in; j += 8) {
        __m256i m[2] = {_mm256_setzero_si256(), _mm256_setzero_si256()};
        const void* const* rows[2] = {a.ref_rows, a.dis_rows};
        for (int w = 0; w < 2; w++) {
            for (int k = 0; k < r; k++) {
                const __m256i xp = pair_up(load8<S>(rows[w][k], j), load8<S>(rows[w][f.width - 1 - k], j));
                m[w] = _mm256_add_epi32(m[w], _mm256_madd_epi16(xp, broadcast_pair(f.c[k])));
            }
            const __m128i xc = load8<S>(rows[w][r], j);
            m[w] = _mm256_add_epi32(m[w], _mm256_madd_epi16(pair_up(xc, xc), centre_halves(f.c[r])));
        }
        for (int w = 0; w < 2; w++) {
            __m256i v = m[w];
            if constexpr (S == Src::u16_wide) v = _mm256_add_epi32(v, _mm256_set1_epi32(static_cast<int>(0x80000000u)));
            v = _mm256_permutevar8x32_epi32(_mm256_srl_epi32(_mm256_add_epi32(v, round), shift), split);
            _mm_storeu_si128(reinterpret_cast<__m128i*>(h.even[w] + j / 2), _mm256_castsi256_si128(v));
            _mm_storeu_si128(reinterpret_cast<__m128i*>(h.odd[w] + j / 2), _mm256_extracti128_si256(v, 1));
        }
    }
    for (; j < a.w_in; j++) {
        uint64_t vr = 0, vd = 0;
        for (int k = 0; k < f.width; k++) {
            vr += f.c[k] * sample(a.ref_rows[k], a.bits, j);
            vd += f.c[k] * sample(a.dis_rows[k], a.bits, j);
        }
        slot(h, 0, j) = static_cast<int32_t>(a.vertical.apply(vr));
        slot(h, 1, j) = static_cast<int32_t>(a.vertical.apply(vd));
    }
}

void halve_row_avx2(const HalveRowArgs& a, const RowScratch& s) {
    const ev::Filter& f = a.filter;
    const int r = f.radius();
    const int lane_half = static_cast<int>(s.lane_len / 2);
    HalfLanes h;
    for (int w = 0; w < 2; w++) {
        h.even[w] = reinterpret_cast<int32_t*>(s.lanes[w]) + kMaxRadius;
        h.odd[w] = reinterpret_cast<int32_t*>(s.lanes[w]) + lane_half + kMaxRadius;
    }
    switch (source_of(a.bits)) {
    case Src::u8: halve_vertical<Src::u8>(a, h); break;
    case Src::u16: halve_vertical<Src::u16>(a, h); break;
    default: halve_vertical<Src::u16_wide>(a, h);
    }
    for (int p = -r; p < 0; p++)
        for (int w = 0; w < 2; w++) slot(h, w, p) = slot(h, w, a.col_src[p]);
    for (int p = a.w_in; p < a.w_in + r; p++)
        for (int w = 0; w < 2; w++) slot(h, w, p) = slot(h, w, a.col_src[p]);

    // output o: sum over taps t of c_t at position 2o - r + t, which is
    // even[o + (t - r) / 2] or odd[o + floor((t - r - 1) / 2)]
    const int n = a.w_in / 2;
    uint16_t* out[2] = {a.ref_out, a.dis_out};
    const __m256i round = _mm256_set1_epi32(32768);
    int o = 0;
    for (; o + 8 <= n; o += 8)
        for (int w = 0; w < 2; w++) {
            __m256i acc = round;
            for (int t = 0; t < f.width; t++) {
                const int d = t - r;
                const int32_t* src = (d & 1) ? h.odd[w] + o + ((d - 1) >> 1) : h.even[w] + o + (d >> 1);
                acc = _mm256_add_epi32(acc, _mm256_mullo_epi32(_mm256_loadu_si256(reinterpret_cast<const __m256i*>(src)),
                                                               _mm256_set1_epi32(static_cast<int>(f.c[t]))));
            }
            acc = _mm256_srli_epi32(acc, ev::kHorizontalShift);
            _mm_storeu_si128(reinterpret_cast<__m128i*>(out[w] + o),
                             _mm_packus_epi32(_mm256_castsi256_si128(acc), _mm256_extracti128_si256(acc, 1)));
        }
    for (; o < n; o++)
        for (int w = 0; w < 2; w++) {
            uint32_t acc = 0;
            for (int t = 0; t < f.width; t++) acc += f.c[t] * static_cast<uint32_t>(slot(h, w, 2 * o - r + t));
            out[w][o] = static_cast<uint16_t>((acc + ev::kHorizontalRound) >> ev::kHorizontalShift);
        }
}

constexpr Kernels kAvx2{"avx2", stat_row_avx2, halve_row_avx2};

}  // namespace

const Kernels* kernels_avx2() { return detect_cpu_flags().avx2 ? &kAvx2 : nullptr; }

}  // namespace speedqa::vif
