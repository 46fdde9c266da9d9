// AVX2 versions of the ADM row functions, equal bit for bit to the C ones
// (kernels_c.cpp, exact/arith.hpp) for every lane kind. Spans that do not
// fill a vector and the mirrored edge columns go to the C functions.
//
// No std containers, templates or inline functions shared with other files
// here (see tests/simd_objects_check.sh): everything is static.
#include <immintrin.h>

#include <cstdint>

#include "features/adm/kernels.hpp"

namespace speedqa::adm {
namespace {

// ---------------------------------------------------------- helpers ------

static inline __m256i load8x16(const int16_t* p) {   // 8 int16 -> 8 int32
    return _mm256_cvtepi16_epi32(_mm_loadu_si128(reinterpret_cast<const __m128i*>(p)));
}
static inline __m256i load8x32(const int32_t* p) { return _mm256_loadu_si256(reinterpret_cast<const __m256i*>(p)); }
// The low 16 bits of each int32, sign extended (a truncating store).
static inline __m256i trunc16(__m256i v) { return _mm256_srai_epi32(_mm256_slli_epi32(v, 16), 16); }
// 8 int32 (each within int16) to 8 int16.
static inline void store8x16(int16_t* p, __m256i v) {
    const __m256i packed = _mm256_permute4x64_epi64(_mm256_packs_epi32(v, v), 0x08);
    _mm_storeu_si128(reinterpret_cast<__m128i*>(p), _mm256_castsi256_si128(packed));
}
static inline __m256i sat16(__m256i v) {
    return _mm256_max_epi32(_mm256_min_epi32(v, _mm256_set1_epi32(32767)), _mm256_set1_epi32(-32768));
}
// 64-bit arithmetic shift right (AVX2 has only the logical one).
static inline __m256i srai64(__m256i v, int s) {
    const __m256i sign = _mm256_cmpgt_epi64(_mm256_setzero_si256(), v);
    const __m256i fill = _mm256_andnot_si256(_mm256_srli_epi64(_mm256_set1_epi64x(-1), s), sign);
    return _mm256_or_si256(_mm256_srli_epi64(v, s), fill);
}
static inline int64_t hsum64(__m256i v) {
    const __m128i s = _mm_add_epi64(_mm256_castsi256_si128(v), _mm256_extracti128_si256(v, 1));
    return static_cast<int64_t>(static_cast<uint64_t>(_mm_cvtsi128_si64(s)) +
                                static_cast<uint64_t>(_mm_extract_epi64(s, 1)));
}

constexpr int16_t kLo16[4] = {15826, 27411, 7345, -4240};
constexpr int16_t kHi16[4] = {-4240, -7345, 27411, -15826};
constexpr int32_t kLoSum = 46342;

// Two int16 coefficients (a, b) repeated in every 32-bit lane, for madd.
static inline __m256i pair(int16_t a, int16_t b) {
    return _mm256_set1_epi32(static_cast<int32_t>(static_cast<uint16_t>(a) | (static_cast<uint32_t>(static_cast<uint16_t>(b)) << 16)));
}

// ------------------------------------------------------------ DWT --------

// Horizontal pass of one tmp row (lo or hi, n wide) into two bands over the
// interior outputs [1, jend): taps 2j-1 .. 2j+2 need no mirroring there.
static int dwt0_horizontal(const int16_t* t, int16_t* lo_out, int16_t* hi_out, int jend) {
    const __m256i l01 = pair(kLo16[0], kLo16[1]), l23 = pair(kLo16[2], kLo16[3]);
    const __m256i h01 = pair(kHi16[0], kHi16[1]), h23 = pair(kHi16[2], kHi16[3]);
    const __m256i round = _mm256_set1_epi32(32768);
    int j = 1;
    for (; j + 8 <= jend; j += 8) {
        // 16 int16 from 2j-1 hold the pairs (2j-1, 2j) of 8 outputs; from 2j+1 the pairs (2j+1, 2j+2).
        const __m256i p0 = _mm256_loadu_si256(reinterpret_cast<const __m256i*>(t + 2 * j - 1));
        const __m256i p1 = _mm256_loadu_si256(reinterpret_cast<const __m256i*>(t + 2 * j + 1));
        const __m256i lo = _mm256_srai_epi32(
            _mm256_add_epi32(_mm256_add_epi32(_mm256_madd_epi16(p0, l01), _mm256_madd_epi16(p1, l23)), round), 16);
        store8x16(lo_out + j, lo);
        if (hi_out) {
            const __m256i hi = _mm256_srai_epi32(
                _mm256_add_epi32(_mm256_add_epi32(_mm256_madd_epi16(p0, h01), _mm256_madd_epi16(p1, h23)), round), 16);
            store8x16(hi_out + j, hi);
        }
    }
    return j;
}

// One output column with mirrored taps (the C arithmetic).
static int tap(int j, int k, int n) {
    if (j == 0) return k == 1 ? 0 : (k == 3 ? 2 : 1);
    const int v = 2 * j - 1 + k;
    return v >= n ? 2 * n - v - 1 : v;
}
static int16_t dwt0_column(const int16_t* t, int j, int n, const int16_t* f) {
    uint32_t acc = 0;
    for (int k = 0; k < 4; ++k) acc += static_cast<uint32_t>(f[k] * t[tap(j, k, n)]);
    return static_cast<int16_t>(static_cast<uint32_t>(static_cast<int32_t>(acc + 32768u) >> 16));
}

static void dwt0_horizontal_row(const int16_t* tmp, int width, int16_t* a, int16_t* v, int16_t* h, int16_t* d,
                                bool low_only) {
    const int w = (width + 1) / 2;
    const int16_t* lo = tmp;
    const int16_t* hi = tmp + width;
    // Interior: 2j + 2 <= width - 1.
    const int jend = (width - 3) / 2 + 1 < w ? (width - 3) / 2 + 1 : w;
    int j = jend > 1 ? dwt0_horizontal(lo, a, low_only ? nullptr : v, jend) : 1;
    if (!low_only && jend > 1) dwt0_horizontal(hi, h, d, jend);
    for (int c = 0; c < w; c = (c == 0 ? j : c + 1)) {
        a[c] = dwt0_column(lo, c, width, kLo16);
        if (low_only) continue;
        v[c] = dwt0_column(lo, c, width, kHi16);
        h[c] = dwt0_column(hi, c, width, kLo16);
        d[c] = dwt0_column(hi, c, width, kHi16);
    }
}

// Vertical pass of 16 columns: s0..s3 the four rows' samples as int16
// (offset by -32768 for samples above 15 bits), bias the constant that
// makes up for the offset and the normalisation.
static inline void dwt0_vertical16(__m256i s0, __m256i s1, __m256i s2, __m256i s3, __m256i lo_bias, __m256i hi_bias,
                                   int shift, int16_t* lo, int16_t* hi) {
    const __m256i a01 = _mm256_unpacklo_epi16(s0, s1), b01 = _mm256_unpackhi_epi16(s0, s1);
    const __m256i a23 = _mm256_unpacklo_epi16(s2, s3), b23 = _mm256_unpackhi_epi16(s2, s3);
    const __m256i l01 = pair(kLo16[0], kLo16[1]), l23 = pair(kLo16[2], kLo16[3]);
    const __m256i h01 = pair(kHi16[0], kHi16[1]), h23 = pair(kHi16[2], kHi16[3]);
    const __m128i sh = _mm_cvtsi32_si128(shift);
    __m256i la = _mm256_add_epi32(_mm256_add_epi32(_mm256_madd_epi16(a01, l01), _mm256_madd_epi16(a23, l23)), lo_bias);
    __m256i lb = _mm256_add_epi32(_mm256_add_epi32(_mm256_madd_epi16(b01, l01), _mm256_madd_epi16(b23, l23)), lo_bias);
    la = _mm256_sra_epi32(la, sh);
    lb = _mm256_sra_epi32(lb, sh);
    _mm256_storeu_si256(reinterpret_cast<__m256i*>(lo), _mm256_packs_epi32(trunc16(la), trunc16(lb)));
    if (!hi) return;
    __m256i ha = _mm256_add_epi32(_mm256_add_epi32(_mm256_madd_epi16(a01, h01), _mm256_madd_epi16(a23, h23)), hi_bias);
    __m256i hb = _mm256_add_epi32(_mm256_add_epi32(_mm256_madd_epi16(b01, h01), _mm256_madd_epi16(b23, h23)), hi_bias);
    ha = _mm256_sra_epi32(ha, sh);
    hb = _mm256_sra_epi32(hb, sh);
    _mm256_storeu_si256(reinterpret_cast<__m256i*>(hi), _mm256_packs_epi32(trunc16(ha), trunc16(hb)));
}

static void dwt0_8(const uint8_t* const r[4], int width, int16_t* tmp, int16_t* a, int16_t* v, int16_t* h, int16_t* d,
                   bool low_only) {
    int16_t* lo = tmp;
    int16_t* hi = tmp + width;
    // sum - 46342 * 128 + 128, then >> 8.
    const __m256i lo_bias = _mm256_set1_epi32(-kLoSum * 128 + 128), hi_bias = _mm256_set1_epi32(128);
    int x = 0;
    for (; x + 16 <= width; x += 16) {
        const __m256i s0 = _mm256_cvtepu8_epi16(_mm_loadu_si128(reinterpret_cast<const __m128i*>(r[0] + x)));
        const __m256i s1 = _mm256_cvtepu8_epi16(_mm_loadu_si128(reinterpret_cast<const __m128i*>(r[1] + x)));
        const __m256i s2 = _mm256_cvtepu8_epi16(_mm_loadu_si128(reinterpret_cast<const __m128i*>(r[2] + x)));
        const __m256i s3 = _mm256_cvtepu8_epi16(_mm_loadu_si128(reinterpret_cast<const __m128i*>(r[3] + x)));
        dwt0_vertical16(s0, s1, s2, s3, lo_bias, hi_bias, 8, lo + x, low_only ? nullptr : hi + x);
    }
    for (; x < width; ++x) {
        const int32_t s0 = r[0][x], s1 = r[1][x], s2 = r[2][x], s3 = r[3][x];
        const uint32_t l = static_cast<uint32_t>(kLo16[0] * s0 + kLo16[1] * s1 + kLo16[2] * s2 + kLo16[3] * s3);
        lo[x] = static_cast<int16_t>(static_cast<uint32_t>(static_cast<int32_t>(l - kLoSum * 128u + 128u) >> 8));
        const uint32_t g = static_cast<uint32_t>(kHi16[0] * s0 + kHi16[1] * s1 + kHi16[2] * s2 + kHi16[3] * s3);
        hi[x] = static_cast<int16_t>(static_cast<uint32_t>(static_cast<int32_t>(g + 128u) >> 8));
    }
    dwt0_horizontal_row(tmp, width, a, v, h, d, low_only);
}

static void dwt0_16(const uint16_t* const r[4], int width, int bitdepth, int16_t* tmp, int16_t* a, int16_t* v,
                    int16_t* h, int16_t* d, bool low_only) {
    int16_t* lo = tmp;
    int16_t* hi = tmp + width;
    const uint32_t round = 1u << (bitdepth - 1);
    // Samples enter madd as s - 32768; 32768 * (sum of taps) puts it back.
    const uint32_t lo_bias = 32768u * kLoSum - kLoSum * round + round;
    const uint32_t hi_bias = round;   // the high-pass taps sum to 0
    const __m256i lb = _mm256_set1_epi32(static_cast<int32_t>(lo_bias)), hb = _mm256_set1_epi32(static_cast<int32_t>(hi_bias));
    const __m256i off = _mm256_set1_epi16(static_cast<int16_t>(-32768));
    int x = 0;
    for (; x + 16 <= width; x += 16) {
        const __m256i s0 = _mm256_xor_si256(_mm256_loadu_si256(reinterpret_cast<const __m256i*>(r[0] + x)), off);
        const __m256i s1 = _mm256_xor_si256(_mm256_loadu_si256(reinterpret_cast<const __m256i*>(r[1] + x)), off);
        const __m256i s2 = _mm256_xor_si256(_mm256_loadu_si256(reinterpret_cast<const __m256i*>(r[2] + x)), off);
        const __m256i s3 = _mm256_xor_si256(_mm256_loadu_si256(reinterpret_cast<const __m256i*>(r[3] + x)), off);
        dwt0_vertical16(s0, s1, s2, s3, lb, hb, bitdepth, lo + x, low_only ? nullptr : hi + x);
    }
    for (; x < width; ++x) {
        const int32_t s0 = r[0][x], s1 = r[1][x], s2 = r[2][x], s3 = r[3][x];
        const uint32_t l = static_cast<uint32_t>(kLo16[0] * s0) + static_cast<uint32_t>(kLo16[1] * s1) +
                           static_cast<uint32_t>(kLo16[2] * s2) + static_cast<uint32_t>(kLo16[3] * s3);
        lo[x] = static_cast<int16_t>(
            static_cast<uint32_t>(static_cast<int32_t>(l - kLoSum * round + round) >> bitdepth));
        const uint32_t g = static_cast<uint32_t>(kHi16[0] * s0) + static_cast<uint32_t>(kHi16[1] * s1) +
                           static_cast<uint32_t>(kHi16[2] * s2) + static_cast<uint32_t>(kHi16[3] * s3);
        hi[x] = static_cast<int16_t>(static_cast<uint32_t>(static_cast<int32_t>(g + round) >> bitdepth));
    }
    dwt0_horizontal_row(tmp, width, a, v, h, d, low_only);
}

// --------------------------------------------------------- decouple ------

// 8 elements of one orientation: k, rst, and the restored/additive parts.
static inline void decouple0_orient(__m256i o, __m256i t, __m256i angle, bool simd, const Scale0Consts& k,
                                    __m256d gain, int16_t* r_out, int16_t* a_out) {
    const __m256i zero = _mm256_setzero_si256(), q15 = _mm256_set1_epi32(32768);
    const __m256i div = _mm256_i32gather_epi32(k.div_lookup, _mm256_add_epi32(o, q15), 4);
    const __m256i r15 = _mm256_set1_epi64x(16384);
    // (div * t + 16384) >> 15, low 32 bits; even and odd lanes separately.
    const __m256i pe = _mm256_srli_epi64(_mm256_add_epi64(_mm256_mul_epi32(div, t), r15), 15);
    const __m256i po = _mm256_srli_epi64(
        _mm256_add_epi64(_mm256_mul_epi32(_mm256_srli_epi64(div, 32), _mm256_srli_epi64(t, 32)), r15), 15);
    __m256i kk = _mm256_blend_epi32(pe, _mm256_slli_epi64(po, 32), 0xAA);
    kk = _mm256_blendv_epi8(kk, q15, _mm256_cmpeq_epi32(o, zero));
    kk = _mm256_min_epi32(_mm256_max_epi32(kk, zero), q15);
    __m256i rst = _mm256_srai_epi32(_mm256_add_epi32(_mm256_mullo_epi32(kk, o), _mm256_set1_epi32(16384)), 15);
    // rst_f = (k / 32768) * (o / 64): its sign is that of o where k > 0.
    const __m256i kpos = _mm256_cmpgt_epi32(kk, zero);
    const __m256i pos = _mm256_and_si256(angle, _mm256_and_si256(kpos, _mm256_cmpgt_epi32(o, zero)));
    const __m256i neg = _mm256_and_si256(angle, _mm256_and_si256(kpos, _mm256_cmpgt_epi32(zero, o)));
    if (!_mm256_testz_si256(_mm256_or_si256(pos, neg), _mm256_or_si256(pos, neg))) {
        __m256i bounded;
        const __m256d g0 = _mm256_mul_pd(_mm256_cvtepi32_pd(_mm256_castsi256_si128(rst)), gain);
        const __m256d g1 = _mm256_mul_pd(_mm256_cvtepi32_pd(_mm256_extracti128_si256(rst, 1)), gain);
        if (simd) {
            // Rounded to nearest, then bounded by t.
            const __m256i g = _mm256_setr_m128i(_mm256_cvtpd_epi32(g0), _mm256_cvtpd_epi32(g1));
            bounded = _mm256_blendv_epi8(_mm256_max_epi32(g, t), _mm256_min_epi32(g, t), pos);
        } else {
            // Bounded by t in double, then truncated.
            const __m256d t0 = _mm256_cvtepi32_pd(_mm256_castsi256_si128(t));
            const __m256d t1 = _mm256_cvtepi32_pd(_mm256_extracti128_si256(t, 1));
            const __m256i mn = _mm256_setr_m128i(_mm256_cvttpd_epi32(_mm256_min_pd(g0, t0)),
                                                 _mm256_cvttpd_epi32(_mm256_min_pd(g1, t1)));
            const __m256i mx = _mm256_setr_m128i(_mm256_cvttpd_epi32(_mm256_max_pd(g0, t0)),
                                                 _mm256_cvttpd_epi32(_mm256_max_pd(g1, t1)));
            bounded = _mm256_blendv_epi8(mx, mn, pos);
        }
        rst = _mm256_blendv_epi8(rst, bounded, _mm256_or_si256(pos, neg));
    }
    rst = trunc16(rst);
    store8x16(r_out, rst);
    store8x16(a_out, trunc16(_mm256_sub_epi32(t, rst)));
}

// float of a 32-bit sum of two int16 products; scalar code forms it in 64
// bits, where the only value past int32 is 2^31 (wrapped to INT32_MIN).
static inline __m256 sum_to_float(__m256i v, bool wrapped) {
    __m256 f = _mm256_cvtepi32_ps(v);
    if (!wrapped)
        f = _mm256_blendv_ps(f, _mm256_set1_ps(2147483648.0f),
                             _mm256_castsi256_ps(_mm256_cmpeq_epi32(v, _mm256_set1_epi32(INT32_MIN))));
    return f;
}

// (a >= 0) && (a * a >= rhs) for 4 lanes in double (a, o, t already / 4096).
static inline __m256d angle4(__m128 ot, __m128 om, __m128 tm, __m256d c, bool avx512_order) {
    const __m256d q = _mm256_set1_pd(1.0 / 4096.0);
    const __m256d a = _mm256_mul_pd(_mm256_cvtps_pd(ot), q);
    const __m256d o = _mm256_mul_pd(_mm256_cvtps_pd(om), q);
    const __m256d t = _mm256_mul_pd(_mm256_cvtps_pd(tm), q);
    const __m256d rhs = avx512_order ? _mm256_mul_pd(_mm256_mul_pd(o, t), c) : _mm256_mul_pd(_mm256_mul_pd(c, o), t);
    return _mm256_and_pd(_mm256_cmp_pd(a, _mm256_setzero_pd(), _CMP_GE_OQ), _mm256_cmp_pd(_mm256_mul_pd(a, a), rhs, _CMP_GE_OQ));
}

static void decouple0(Row3<const int16_t> ref, Row3<const int16_t> dis, Row3<int16_t> r, Row3<int16_t> a, int begin,
                      int end, Lane lane, const Scale0Consts& k) {
    const bool simd = lane != Lane::scalar;
    const __m256d c = _mm256_set1_pd(static_cast<double>(k.cos_1deg_sq));
    const __m256d gain = _mm256_set1_pd(k.gain_limit);
    int j = begin;
    for (; j + 8 <= end; j += 8) {
        const __m256i oh = load8x16(ref.p[0] + j), ov = load8x16(ref.p[1] + j), od = load8x16(ref.p[2] + j);
        const __m256i th = load8x16(dis.p[0] + j), tv = load8x16(dis.p[1] + j), td = load8x16(dis.p[2] + j);
        const __m256i ot = _mm256_add_epi32(_mm256_mullo_epi32(oh, th), _mm256_mullo_epi32(ov, tv));
        const __m256i om = _mm256_add_epi32(_mm256_mullo_epi32(oh, oh), _mm256_mullo_epi32(ov, ov));
        const __m256i tm = _mm256_add_epi32(_mm256_mullo_epi32(th, th), _mm256_mullo_epi32(tv, tv));
        const __m256 otf = sum_to_float(ot, simd), omf = sum_to_float(om, simd), tmf = sum_to_float(tm, simd);
        const bool order = lane == Lane::avx512;
        const __m256d a0 = angle4(_mm256_castps256_ps128(otf), _mm256_castps256_ps128(omf), _mm256_castps256_ps128(tmf), c, order);
        const __m256d a1 = angle4(_mm256_extractf128_ps(otf, 1), _mm256_extractf128_ps(omf, 1), _mm256_extractf128_ps(tmf, 1), c, order);
        // Two times 4 x 64-bit masks to 8 x 32-bit.
        const __m256i even = _mm256_setr_epi32(0, 2, 4, 6, 0, 2, 4, 6);
        const __m256i angle = _mm256_blend_epi32(_mm256_permutevar8x32_epi32(_mm256_castpd_si256(a0), even),
                                                 _mm256_permutevar8x32_epi32(_mm256_castpd_si256(a1), even), 0xF0);
        decouple0_orient(oh, th, angle, simd, k, gain, r.p[0] + j, a.p[0] + j);
        decouple0_orient(ov, tv, angle, simd, k, gain, r.p[1] + j, a.p[1] + j);
        decouple0_orient(od, td, angle, simd, k, gain, r.p[2] + j, a.p[2] + j);
    }
    if (j < end) row_kernels_c().decouple0(ref, dis, r, a, j, end, lane, k);
}

// ------------------------------------------------------- denominator -----

static void den0(Row3<const int16_t> ref, int begin, int end, uint64_t sums[3]) {
    int j = begin;
    for (int t = 0; t < 3; ++t) {
        __m256i acc = _mm256_setzero_si256();
        for (j = begin; j + 8 <= end; j += 8) {
            const __m256i m = _mm256_abs_epi32(load8x16(ref.p[t] + j));   // <= 2^15
            const __m256i sq = _mm256_mullo_epi32(m, m);                    // <= 2^30
            acc = _mm256_add_epi64(acc, _mm256_mul_epu32(sq, m));
            acc = _mm256_add_epi64(acc, _mm256_mul_epu32(_mm256_srli_epi64(sq, 32), _mm256_srli_epi64(m, 32)));
        }
        sums[t] += static_cast<uint64_t>(hsum64(acc));
    }
    if (j < end) row_kernels_c().den0(ref, j, end, sums);
}

// ---------------------------------------------------------------- CSF ----

static void csf0(const int16_t* src, int16_t* value, int16_t* filtered, int begin, int end, int32_t rf, int theta,
                 Lane lane) {
    const int shift = theta == 2 ? 17 : 15;
    const __m256i round = _mm256_set1_epi32(theta == 2 ? 65535 : 16384);
    const __m256i f = _mm256_set1_epi32(rf);
    const __m256i by30 = _mm256_set1_epi32(4369), r12 = _mm256_set1_epi32(2048);
    const __m128i sh = _mm_cvtsi32_si128(shift);
    int j = begin;
    for (; j + 8 <= end; j += 8) {
        const __m256i d = _mm256_sra_epi32(_mm256_add_epi32(_mm256_mullo_epi32(load8x16(src + j), f), round), sh);
        __m256i v, fl;
        if (lane == Lane::scalar) {
            v = trunc16(d);
            fl = trunc16(_mm256_srai_epi32(_mm256_add_epi32(_mm256_mullo_epi32(by30, _mm256_abs_epi32(v)), r12), 12));
        } else {
            const __m256i f32 = _mm256_srai_epi32(_mm256_add_epi32(_mm256_mullo_epi32(by30, _mm256_abs_epi32(d)), r12), 12);
            v = lane == Lane::avx2 ? sat16(d) : trunc16(d);
            fl = lane == Lane::avx2 ? sat16(f32) : trunc16(f32);
        }
        store8x16(value + j, v);
        store8x16(filtered + j, fl);
    }
    if (j < end) row_kernels_c().csf0(src, value, filtered, j, end, rf, theta, lane);
}

// ---------------------------------------------------------------- CM -----

// Cubed excess of 8 elements (x: coefficient * factor, thr << sub) added to
// acc (4 x int64): libvmaf's two rounding shifts, the second logical in its
// AVX2 lanes and arithmetic elsewhere.
static inline __m256i cm_terms(__m256i x, __m256i thr_s, __m256i add_sq, int shift_sq, __m256i add_cub, int shift_cub,
                               bool logical, __m256i acc) {
    const __m256i d = _mm256_max_epi32(_mm256_sub_epi32(_mm256_abs_epi32(x), thr_s), _mm256_setzero_si256());
    const __m256i dodd = _mm256_srli_epi64(d, 32);
    const __m256i sqe = _mm256_srli_epi64(_mm256_add_epi64(_mm256_mul_epi32(d, d), add_sq), shift_sq);
    const __m256i sqo = _mm256_srli_epi64(_mm256_add_epi64(_mm256_mul_epi32(dodd, dodd), add_sq), shift_sq);
    const __m256i pe = _mm256_add_epi64(_mm256_mul_epi32(sqe, d), add_cub);
    const __m256i po = _mm256_add_epi64(_mm256_mul_epi32(sqo, dodd), add_cub);
    if (logical)
        return _mm256_add_epi64(acc, _mm256_add_epi64(_mm256_srli_epi64(pe, shift_cub), _mm256_srli_epi64(po, shift_cub)));
    return _mm256_add_epi64(acc, _mm256_add_epi64(srai64(pe, shift_cub), srai64(po, shift_cub)));
}

static void cm0(Row3<const int16_t> csf, const Row3<const int16_t> flt[3], Row3<const int16_t> src, int begin, int end,
                Lane lane, const Scale0Consts& k, int64_t sums[3]) {
    const int sub[3] = {10, 10, 12};
    const int shift_sq[3] = {29, 29, 30};
    const __m256i add_sq[3] = {_mm256_set1_epi64x(1 << 28), _mm256_set1_epi64x(1 << 28), _mm256_set1_epi64x(1 << 29)};
    const __m256i add_cub[3] = {_mm256_set1_epi64x(k.add_cub[0]), _mm256_set1_epi64x(k.add_cub[1]),
                                _mm256_set1_epi64x(k.add_cub[2])};
    const __m256i by15 = _mm256_set1_epi32(8738), r12 = _mm256_set1_epi32(2048);
    __m256i acc[3] = {_mm256_setzero_si256(), _mm256_setzero_si256(), _mm256_setzero_si256()};
    int j = begin;
    for (; j + 8 <= end; j += 8) {
        __m256i thr = _mm256_setzero_si256();
        for (int t = 0; t < 3; ++t) {
            for (int row = 0; row < 3; ++row) {
                const int16_t* f = flt[row].p[t] + j;
                thr = _mm256_add_epi32(thr, _mm256_add_epi32(load8x16(f - 1), load8x16(f + 1)));
                if (row != 1) thr = _mm256_add_epi32(thr, load8x16(f));
            }
            __m256i c = _mm256_srai_epi32(
                _mm256_add_epi32(_mm256_mullo_epi32(by15, _mm256_abs_epi32(load8x16(csf.p[t] + j))), r12), 12);
            if (lane == Lane::scalar) c = trunc16(c);
            thr = _mm256_add_epi32(thr, c);
        }
        for (int t = 0; t < 3; ++t) {
            const __m256i x = _mm256_mullo_epi32(load8x16(src.p[t] + j), _mm256_set1_epi32(k.rf[t]));
            acc[t] = cm_terms(x, _mm256_slli_epi32(thr, sub[t]), add_sq[t], shift_sq[t], add_cub[t], k.shift_cub[t],
                              lane == Lane::avx2, acc[t]);
        }
    }
    for (int t = 0; t < 3; ++t)
        sums[t] = static_cast<int64_t>(static_cast<uint64_t>(sums[t]) + static_cast<uint64_t>(hsum64(acc[t])));
    if (j < end) row_kernels_c().cm0(csf, flt, src, j, end, lane, k, sums);
}

}  // namespace

const RowKernels* row_kernels_avx2() {
    const RowKernels& c = row_kernels_c();
    static const RowKernels k{dwt0_8, dwt0_16, decouple0, den0, csf0, cm0,
                              c.dwt123, c.decouple123, c.den123, c.csf123, c.cm123};
    return &k;
}

}  // namespace speedqa::adm
