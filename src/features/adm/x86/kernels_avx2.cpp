// AVX2 versions of the ADM row functions, equal bit for bit to the C ones
// (kernels_c.cpp, exact/arith.hpp) for every lane kind. Spans that do not
// fill a vector and the mirrored edge columns go to the C functions.
//
// kernels_avx512.cpp builds this same file with the AVX-512 flags (as
// row_kernels_avx512): 512-bit versions (under __AVX512F__) of most row
// functions; the decoupling, denominator, CSF and masking rows end with a
// masked block instead of the narrower and C code (the DWT rows still leave
// their mirrored edge columns to C). Elsewhere the same 256-bit algorithms,
// where AVX-512VL has one instruction for an operation AVX2 emulates (the
// helpers under __AVX512VL__), and 32 vector registers.
//
// No std containers, templates or inline functions shared with other files
// here (see tests/simd_objects_check.sh): everything is static.
#include <immintrin.h>

#include <cstdint>

#include "core/cpu_flags.hpp"
#include "core/x86/vec.hpp"
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
#if defined(__AVX512VL__)
    return _mm256_sra_epi64(v, _mm_cvtsi32_si128(s));
#else
    const __m256i sign = _mm256_cmpgt_epi64(_mm256_setzero_si256(), v);
    const __m256i fill = _mm256_andnot_si256(_mm256_srli_epi64(_mm256_set1_epi64x(-1), s), sign);
    return _mm256_or_si256(_mm256_srli_epi64(v, s), fill);
#endif
}

#if defined(__AVX512F__)
// The same helpers on 16 lanes.
static inline __m512i trunc16x16(__m512i v) { return _mm512_srai_epi32(_mm512_slli_epi32(v, 16), 16); }
// 16 int32 to 16 int16, saturating as store8x16's pack does.
static inline void store16x16(int16_t* p, __m512i v) {
    _mm256_storeu_si256(reinterpret_cast<__m256i*>(p), _mm512_cvtsepi32_epi16(v));
}

// The first `count` of 16 lanes (all where count >= 16): as 32-bit lanes
// (m) and as the even and odd ones of them in 64-bit lanes (even, odd).
struct Lanes16 {
    __mmask16 m = 0xffff;
    __mmask8 even = 0xff, odd = 0xff;
};
static inline Lanes16 first_lanes(int count) {
    Lanes16 l;
    if (count < 16) {
        l.m = static_cast<__mmask16>((1u << count) - 1);
        l.even = static_cast<__mmask8>((1u << ((count + 1) / 2)) - 1);
        l.odd = static_cast<__mmask8>((1u << (count / 2)) - 1);
    }
    return l;
}
// 16 values from p as int32 (int16 widened); the lanes outside l 0 (and not read).
static inline __m512i load16_as32(const int16_t* p, const Lanes16& l) {
    return _mm512_cvtepi16_epi32(_mm256_maskz_loadu_epi16(l.m, p));
}
static inline __m512i load16_as32(const int32_t* p, const Lanes16& l) { return _mm512_maskz_loadu_epi32(l.m, p); }
#endif

constexpr int16_t kLo16[4] = {15826, 27411, 7345, -4240};
constexpr int16_t kHi16[4] = {-4240, -7345, 27411, -15826};
constexpr int32_t kLoSum = 46342;

// Two int16 coefficients (a, b) repeated in every 32-bit lane, for madd.
static inline __m256i pair(int16_t a, int16_t b) {
    return _mm256_set1_epi32(static_cast<int32_t>(static_cast<uint16_t>(a) | (static_cast<uint32_t>(static_cast<uint16_t>(b)) << 16)));
}

#if defined(__AVX512F__)
static inline __m512i pair16(int16_t a, int16_t b) {
    return _mm512_set1_epi32(static_cast<int32_t>(static_cast<uint16_t>(a) | (static_cast<uint32_t>(static_cast<uint16_t>(b)) << 16)));
}
#endif

// ------------------------------------------------------------ DWT --------

// One output column with mirrored taps (the C arithmetic; exact/arith.hpp's
// tap_index, kept static here so that this file shares no code).
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

static int clamp_int(int v, int lo, int hi) { return v < lo ? lo : (v > hi ? hi : v); }

// A DWT row's w = (width + 1) / 2 output columns: the interior [1, jend)
// (taps 2j - 1 .. 2j + 2 within the row, no mirroring), and the bands'
// columns [d0, d1) within it, [i0, i1). Column 0 and [jend, w) are the edges.
struct RowColumns {
    int w, jend, i0, i1;
    RowColumns(int width, int d0, int d1) : w((width + 1) / 2) {
        const int interior_end = (width - 3) / 2 + 1;
        jend = clamp_int(interior_end < w ? interior_end : w, 1, w > 1 ? w : 1);
        i0 = clamp_int(d0, 1, jend);
        i1 = d0 < d1 ? clamp_int(d1, i0, jend) : i0;
    }
};

// Whether the n columns from x meet the high pass's span.
static bool overlaps(const HighSpan& s, int x, int n) { return x < s.x1 && x + n > s.x0; }

// Horizontal pass of one tmp row (lo or hi, `width` wide) into two bands
// over the interior outputs [j0, j1) (1 <= j0, j1 - 1 <= (width - 3) / 2:
// taps 2j-1 .. 2j+2 need no mirroring there). lo_out: 32-bit (band a, kept
// for the next scale) or 16-bit; hi_out may be nullptr.
static void dwt0_horizontal(const int16_t* t, int32_t* lo32, int16_t* lo_out, int16_t* hi_out, int j0, int j1,
                            int width) {
    const __m256i l01 = pair(kLo16[0], kLo16[1]), l23 = pair(kLo16[2], kLo16[3]);
    const __m256i h01 = pair(kHi16[0], kHi16[1]), h23 = pair(kHi16[2], kHi16[3]);
    const __m256i round = _mm256_set1_epi32(32768);
    int j = j0;
#if defined(__AVX512F__)
    {
        const __m512i L01 = pair16(kLo16[0], kLo16[1]), L23 = pair16(kLo16[2], kLo16[3]);
        const __m512i H01 = pair16(kHi16[0], kHi16[1]), H23 = pair16(kHi16[2], kHi16[3]);
        const __m512i R = _mm512_set1_epi32(32768);
        for (; j + 16 <= j1; j += 16) {
            const __m512i p0 = _mm512_loadu_si512(t + 2 * j - 1), p1 = _mm512_loadu_si512(t + 2 * j + 1);
            const __m512i lo = _mm512_srai_epi32(
                _mm512_add_epi32(_mm512_add_epi32(_mm512_madd_epi16(p0, L01), _mm512_madd_epi16(p1, L23)), R), 16);
            if (lo32)
                _mm512_storeu_si512(lo32 + j, lo);
            else
                store16x16(lo_out + j, lo);
            if (hi_out)
                store16x16(hi_out + j, _mm512_srai_epi32(_mm512_add_epi32(_mm512_add_epi32(_mm512_madd_epi16(p0, H01),
                                                                                            _mm512_madd_epi16(p1, H23)),
                                                                           R),
                                                         16));
        }
    }
#endif
    for (; j + 8 <= j1; j += 8) {
        // 16 int16 from 2j-1 hold the pairs (2j-1, 2j) of 8 outputs; from 2j+1 the pairs (2j+1, 2j+2).
        const __m256i p0 = _mm256_loadu_si256(reinterpret_cast<const __m256i*>(t + 2 * j - 1));
        const __m256i p1 = _mm256_loadu_si256(reinterpret_cast<const __m256i*>(t + 2 * j + 1));
        const __m256i lo = _mm256_srai_epi32(
            _mm256_add_epi32(_mm256_add_epi32(_mm256_madd_epi16(p0, l01), _mm256_madd_epi16(p1, l23)), round), 16);
        if (lo32)
            _mm256_storeu_si256(reinterpret_cast<__m256i*>(lo32 + j), lo);
        else
            store8x16(lo_out + j, lo);
        if (hi_out) {
            const __m256i hi = _mm256_srai_epi32(
                _mm256_add_epi32(_mm256_add_epi32(_mm256_madd_epi16(p0, h01), _mm256_madd_epi16(p1, h23)), round), 16);
            store8x16(hi_out + j, hi);
        }
    }
    // (an int32 shifted right by 16 fits int16: the column's int16 is the lane's value)
    for (; j < j1; ++j) {
        const int16_t lo = dwt0_column(t, j, width, kLo16);
        if (lo32)
            lo32[j] = lo;
        else
            lo_out[j] = lo;
        if (hi_out) hi_out[j] = dwt0_column(t, j, width, kHi16);
    }
}

static void dwt0_horizontal_row(const int16_t* tmp, int width, int32_t* a, int16_t* v, int16_t* h, int16_t* d, int d0,
                                int d1) {
    const int16_t* lo = tmp;
    const int16_t* hi = tmp + width;
    const RowColumns col(width, d0, d1);
    dwt0_horizontal(lo, a, nullptr, nullptr, 1, col.i0, width);
    dwt0_horizontal(lo, a, nullptr, v, col.i0, col.i1, width);
    dwt0_horizontal(lo, a, nullptr, nullptr, col.i1, col.jend, width);
    dwt0_horizontal(hi, nullptr, h, d, col.i0, col.i1, width);
    for (int c = 0; c < col.w; c = (c == 0 ? col.jend : c + 1)) {   // the edges
        a[c] = dwt0_column(lo, c, width, kLo16);
        if (c < d0 || c >= d1) continue;
        v[c] = dwt0_column(lo, c, width, kHi16);
        h[c] = dwt0_column(hi, c, width, kLo16);
        d[c] = dwt0_column(hi, c, width, kHi16);
    }
}

// Vertical pass of 16 columns: s0..s3 the four rows' samples as int16
// (offset by -32768 for samples above 15 bits), bias the constant that
// makes up for the offset and the normalisation.
static inline void dwt0_vertical16(__m256i s0, __m256i s1, __m256i s2, __m256i s3, __m256i lo_bias, __m256i hi_bias,
                                   int shift, bool wrap, int16_t* lo, int16_t* hi) {
    const __m256i a01 = _mm256_unpacklo_epi16(s0, s1), b01 = _mm256_unpackhi_epi16(s0, s1);
    const __m256i a23 = _mm256_unpacklo_epi16(s2, s3), b23 = _mm256_unpackhi_epi16(s2, s3);
    const __m256i l01 = pair(kLo16[0], kLo16[1]), l23 = pair(kLo16[2], kLo16[3]);
    const __m256i h01 = pair(kHi16[0], kHi16[1]), h23 = pair(kHi16[2], kHi16[3]);
    const __m128i sh = _mm_cvtsi32_si128(shift);
    __m256i la = _mm256_add_epi32(_mm256_add_epi32(_mm256_madd_epi16(a01, l01), _mm256_madd_epi16(a23, l23)), lo_bias);
    __m256i lb = _mm256_add_epi32(_mm256_add_epi32(_mm256_madd_epi16(b01, l01), _mm256_madd_epi16(b23, l23)), lo_bias);
    la = _mm256_sra_epi32(la, sh);
    lb = _mm256_sra_epi32(lb, sh);
    // Within int16 for samples of the bit depth; samples past it (16-bit
    // containers) may wrap, as libvmaf's truncating stores do.
    if (wrap) {
        la = trunc16(la);
        lb = trunc16(lb);
    }
    _mm256_storeu_si256(reinterpret_cast<__m256i*>(lo), _mm256_packs_epi32(la, lb));
    if (!hi) return;
    __m256i ha = _mm256_add_epi32(_mm256_add_epi32(_mm256_madd_epi16(a01, h01), _mm256_madd_epi16(a23, h23)), hi_bias);
    __m256i hb = _mm256_add_epi32(_mm256_add_epi32(_mm256_madd_epi16(b01, h01), _mm256_madd_epi16(b23, h23)), hi_bias);
    ha = _mm256_sra_epi32(ha, sh);
    hb = _mm256_sra_epi32(hb, sh);
    if (wrap) {
        ha = trunc16(ha);
        hb = trunc16(hb);
    }
    _mm256_storeu_si256(reinterpret_cast<__m256i*>(hi), _mm256_packs_epi32(ha, hb));
}

#if defined(__AVX512F__)
// dwt0_vertical16 on 32 columns.
static inline void dwt0_vertical32(__m512i s0, __m512i s1, __m512i s2, __m512i s3, __m512i lo_bias, __m512i hi_bias,
                                   int shift, bool wrap, int16_t* lo, int16_t* hi) {
    const __m512i a01 = _mm512_unpacklo_epi16(s0, s1), b01 = _mm512_unpackhi_epi16(s0, s1);
    const __m512i a23 = _mm512_unpacklo_epi16(s2, s3), b23 = _mm512_unpackhi_epi16(s2, s3);
    const __m128i sh = _mm_cvtsi32_si128(shift);
    const auto band = [&](__m512i c01, __m512i c23, __m512i bias, int16_t* out) {
        __m512i x = _mm512_sra_epi32(
            _mm512_add_epi32(_mm512_add_epi32(_mm512_madd_epi16(a01, c01), _mm512_madd_epi16(a23, c23)), bias), sh);
        __m512i y = _mm512_sra_epi32(
            _mm512_add_epi32(_mm512_add_epi32(_mm512_madd_epi16(b01, c01), _mm512_madd_epi16(b23, c23)), bias), sh);
        if (wrap) {
            x = trunc16x16(x);
            y = trunc16x16(y);
        }
        _mm512_storeu_si512(out, _mm512_packs_epi32(x, y));
    };
    band(pair16(kLo16[0], kLo16[1]), pair16(kLo16[2], kLo16[3]), lo_bias, lo);
    if (hi) band(pair16(kHi16[0], kHi16[1]), pair16(kHi16[2], kHi16[3]), hi_bias, hi);
}
#endif

static void dwt0_8(const uint8_t* const r[4], int width, int16_t* tmp, int32_t* a, int16_t* v, int16_t* h, int16_t* d,
                   int d0, int d1) {
    int16_t* lo = tmp;
    int16_t* hi = tmp + width;
    const HighSpan span = high_span(d0, d1, width);
    // sum - 46342 * 128 + 128, then >> 8.
    const __m256i lo_bias = _mm256_set1_epi32(-kLoSum * 128 + 128), hi_bias = _mm256_set1_epi32(128);
    int x = 0;
#if defined(__AVX512F__)
    for (; x + 32 <= width; x += 32) {
        if ((x & 63) == 0) {   // rows 2 and 3 are new to this pass
            prefetch_page_ahead(r[2] + x);
            prefetch_page_ahead(r[3] + x);
        }
        __m512i s[4];
        for (int q = 0; q < 4; ++q)
            s[q] = _mm512_cvtepu8_epi16(_mm256_loadu_si256(reinterpret_cast<const __m256i*>(r[q] + x)));
        dwt0_vertical32(s[0], s[1], s[2], s[3], _mm512_set1_epi32(-kLoSum * 128 + 128), _mm512_set1_epi32(128), 8,
                        false, lo + x, overlaps(span, x, 32) ? hi + x : nullptr);
    }
#endif
    for (; x + 16 <= width; x += 16) {
        const __m256i s0 = _mm256_cvtepu8_epi16(_mm_loadu_si128(reinterpret_cast<const __m128i*>(r[0] + x)));
        const __m256i s1 = _mm256_cvtepu8_epi16(_mm_loadu_si128(reinterpret_cast<const __m128i*>(r[1] + x)));
        const __m256i s2 = _mm256_cvtepu8_epi16(_mm_loadu_si128(reinterpret_cast<const __m128i*>(r[2] + x)));
        const __m256i s3 = _mm256_cvtepu8_epi16(_mm_loadu_si128(reinterpret_cast<const __m128i*>(r[3] + x)));
        dwt0_vertical16(s0, s1, s2, s3, lo_bias, hi_bias, 8, false, lo + x, overlaps(span, x, 16) ? hi + x : nullptr);
    }
    for (; x < width; ++x) {
        const int32_t s0 = r[0][x], s1 = r[1][x], s2 = r[2][x], s3 = r[3][x];
        const uint32_t l = static_cast<uint32_t>(kLo16[0] * s0 + kLo16[1] * s1 + kLo16[2] * s2 + kLo16[3] * s3);
        lo[x] = static_cast<int16_t>(static_cast<uint32_t>(static_cast<int32_t>(l - kLoSum * 128u + 128u) >> 8));
        const uint32_t g = static_cast<uint32_t>(kHi16[0] * s0 + kHi16[1] * s1 + kHi16[2] * s2 + kHi16[3] * s3);
        hi[x] = static_cast<int16_t>(static_cast<uint32_t>(static_cast<int32_t>(g + 128u) >> 8));
    }
    dwt0_horizontal_row(tmp, width, a, v, h, d, d0, d1);
}

static void dwt0_16(const uint16_t* const r[4], int width, int bitdepth, int16_t* tmp, int32_t* a, int16_t* v,
                    int16_t* h, int16_t* d, int d0, int d1) {
    int16_t* lo = tmp;
    int16_t* hi = tmp + width;
    const HighSpan span = high_span(d0, d1, width);
    const uint32_t round = 1u << (bitdepth - 1);
    // Samples enter madd as s - 32768; 32768 * (sum of taps) puts it back.
    const uint32_t lo_bias = 32768u * kLoSum - kLoSum * round + round;
    const uint32_t hi_bias = round;   // the high-pass taps sum to 0
    const __m256i lb = _mm256_set1_epi32(static_cast<int32_t>(lo_bias)), hb = _mm256_set1_epi32(static_cast<int32_t>(hi_bias));
    const __m256i off = _mm256_set1_epi16(static_cast<int16_t>(-32768));
    // Samples of the bit depth give int16 results; samples past it (the
    // container allows them) may wrap, which the truncation reproduces.
    const __m256i over = _mm256_set1_epi16(static_cast<int16_t>(static_cast<uint16_t>(0xFFFFu << bitdepth)));
    int x = 0;
#if defined(__AVX512F__)
    {
        const __m512i off16 = _mm512_set1_epi16(static_cast<int16_t>(-32768));
        const __m512i over16 = _mm512_set1_epi16(static_cast<int16_t>(static_cast<uint16_t>(0xFFFFu << bitdepth)));
        const __m512i lb16 = _mm512_set1_epi32(static_cast<int32_t>(lo_bias)), hb16 = _mm512_set1_epi32(static_cast<int32_t>(hi_bias));
        for (; x + 32 <= width; x += 32) {
            prefetch_page_ahead(r[2] + x);
            prefetch_page_ahead(r[3] + x);
            const __m512i u0 = _mm512_loadu_si512(r[0] + x), u1 = _mm512_loadu_si512(r[1] + x);
            const __m512i u2 = _mm512_loadu_si512(r[2] + x), u3 = _mm512_loadu_si512(r[3] + x);
            const __m512i all = _mm512_or_si512(_mm512_or_si512(u0, u1), _mm512_or_si512(u2, u3));
            const bool wrap = _mm512_test_epi16_mask(all, over16) != 0;
            dwt0_vertical32(_mm512_xor_si512(u0, off16), _mm512_xor_si512(u1, off16), _mm512_xor_si512(u2, off16),
                            _mm512_xor_si512(u3, off16), lb16, hb16, bitdepth, wrap, lo + x,
                            overlaps(span, x, 32) ? hi + x : nullptr);
        }
    }
#endif
    for (; x + 16 <= width; x += 16) {
        const __m256i u0 = _mm256_loadu_si256(reinterpret_cast<const __m256i*>(r[0] + x));
        const __m256i u1 = _mm256_loadu_si256(reinterpret_cast<const __m256i*>(r[1] + x));
        const __m256i u2 = _mm256_loadu_si256(reinterpret_cast<const __m256i*>(r[2] + x));
        const __m256i u3 = _mm256_loadu_si256(reinterpret_cast<const __m256i*>(r[3] + x));
        const __m256i all = _mm256_or_si256(_mm256_or_si256(u0, u1), _mm256_or_si256(u2, u3));
        const bool wrap = !_mm256_testz_si256(all, over);
        dwt0_vertical16(_mm256_xor_si256(u0, off), _mm256_xor_si256(u1, off), _mm256_xor_si256(u2, off),
                        _mm256_xor_si256(u3, off), lb, hb, bitdepth, wrap, lo + x, overlaps(span, x, 16) ? hi + x : nullptr);
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
    dwt0_horizontal_row(tmp, width, a, v, h, d, d0, d1);
}

// --------------------------------------------------------- decouple ------

// Whether the enhancement gain leaves every rst as it is, so that the angle
// test need not be made: with adm_enhn_gain_limit = 1 (vmaf_v1.0.16's) the
// bound is min(rst, t) where rst > 0 and max(rst, t) where rst < 0, and at
// scale 0 rst never passes t (for o > 0, kk <= 2^15 t / o + 1/2 and |o| <=
// 2^15 give rst <= t; the same mirrored for o < 0). Checked for every pair
// of int16 o and t, both roundings of the bound (docs/PERF_NOTES.md, tenth
// session). Not at scales 1-3, where |o| is rounded to 15 bits first.
static inline bool gain_leaves_rst(const Scale0Consts& k) { return k.gain_limit == 1.0; }

// 8 elements of one orientation: k, rst, and the restored/additive parts.
static inline void decouple0_orient(__m256i o, __m256i t, __m256i angle, bool simd, const Scale0Consts& k,
                                    __m256d gain, int16_t* r_out, int16_t* a_out) {
    const __m256i zero = _mm256_setzero_si256(), q15 = _mm256_set1_epi32(32768);
    // libvmaf's table of 2^30 / o truncated, computed: the double quotient
    // is within 2^-23 of the true one, whose fraction is 0 or >= 2^-15 from
    // an integer, so truncating it gives the table's value (o = 0: unused).
    const __m256i onz = _mm256_blendv_epi8(o, _mm256_set1_epi32(1), _mm256_cmpeq_epi32(o, zero));
    const __m256d q30 = _mm256_set1_pd(1073741824.0);
    const __m256i div = _mm256_setr_m128i(_mm256_cvttpd_epi32(_mm256_div_pd(q30, _mm256_cvtepi32_pd(_mm256_castsi256_si128(onz)))),
                                          _mm256_cvttpd_epi32(_mm256_div_pd(q30, _mm256_cvtepi32_pd(_mm256_extracti128_si256(onz, 1)))));
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
    if (k.gain_int && !_mm256_testz_si256(_mm256_or_si256(pos, neg), _mm256_or_si256(pos, neg))) {
        // A whole gain (<= 100): rst * gain is an exact integer (|rst| <= 2^15),
        // so rounding and truncation both leave it: bound it by t in 32 bits.
        const __m256i g = _mm256_mullo_epi32(rst, _mm256_set1_epi32(k.gain_int));
        const __m256i bounded = _mm256_blendv_epi8(_mm256_max_epi32(g, t), _mm256_min_epi32(g, t), pos);
        rst = _mm256_blendv_epi8(rst, bounded, _mm256_or_si256(pos, neg));
    } else if (!_mm256_testz_si256(_mm256_or_si256(pos, neg), _mm256_or_si256(pos, neg))) {
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
    // rst lies between 0 and t (or o), so rst and t - rst fit int16: the
    // saturating pack stores them unchanged.
    store8x16(r_out, rst);
    store8x16(a_out, _mm256_sub_epi32(t, rst));
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

#if !defined(__AVX512F__)   // (the AVX-512 build has decouple0_avx512)
static void decouple0(Row3<const int16_t> ref, Row3<const int16_t> dis, Row3<int16_t> r, Row3<int16_t> a, int begin,
                      int end, Lane lane, const Scale0Consts& k) {
    const bool simd = lane != Lane::scalar;
    const __m256d c = _mm256_set1_pd(static_cast<double>(k.cos_1deg_sq));
    const __m256d gain = _mm256_set1_pd(k.gain_limit);
    const bool no_gain = gain_leaves_rst(k);
    int j = begin;
    for (; j + 8 <= end; j += 8) {
        const __m256i oh = load8x16(ref.p[0] + j), ov = load8x16(ref.p[1] + j), od = load8x16(ref.p[2] + j);
        const __m256i th = load8x16(dis.p[0] + j), tv = load8x16(dis.p[1] + j), td = load8x16(dis.p[2] + j);
        const auto angle_test = [&] {
            const __m256i ot = _mm256_add_epi32(_mm256_mullo_epi32(oh, th), _mm256_mullo_epi32(ov, tv));
            const __m256i om = _mm256_add_epi32(_mm256_mullo_epi32(oh, oh), _mm256_mullo_epi32(ov, ov));
            const __m256i tm = _mm256_add_epi32(_mm256_mullo_epi32(th, th), _mm256_mullo_epi32(tv, tv));
            const __m256 otf = sum_to_float(ot, simd), omf = sum_to_float(om, simd), tmf = sum_to_float(tm, simd);
            const bool order = lane == Lane::avx512;
            const __m256d a0 = angle4(_mm256_castps256_ps128(otf), _mm256_castps256_ps128(omf), _mm256_castps256_ps128(tmf), c, order);
            const __m256d a1 = angle4(_mm256_extractf128_ps(otf, 1), _mm256_extractf128_ps(omf, 1), _mm256_extractf128_ps(tmf, 1), c, order);
            // Two times 4 x 64-bit masks to 8 x 32-bit.
            const __m256i even = _mm256_setr_epi32(0, 2, 4, 6, 0, 2, 4, 6);
            return _mm256_blend_epi32(_mm256_permutevar8x32_epi32(_mm256_castpd_si256(a0), even),
                                      _mm256_permutevar8x32_epi32(_mm256_castpd_si256(a1), even), 0xF0);
        };
        const __m256i angle = no_gain ? _mm256_setzero_si256() : angle_test();
        decouple0_orient(oh, th, angle, simd, k, gain, r.p[0] + j, a.p[0] + j);
        decouple0_orient(ov, tv, angle, simd, k, gain, r.p[1] + j, a.p[1] + j);
        decouple0_orient(od, td, angle, simd, k, gain, r.p[2] + j, a.p[2] + j);
    }
    if (j < end) row_kernels_c().decouple0(ref, dis, r, a, j, end, lane, k);
}
#endif

#if defined(__AVX512F__)
// The AVX-512 build: 16 elements at a time (the same operations per
// element; branches as mask registers).

// (a >= 0) && (a * a >= rhs) for 8 lanes in double (a, o, t already / 4096).
static inline __mmask8 angle8(__m256 ot, __m256 om, __m256 tm, __m512d c, bool avx512_order) {
    const __m512d q = _mm512_set1_pd(1.0 / 4096.0);
    const __m512d a = _mm512_mul_pd(_mm512_cvtps_pd(ot), q);
    const __m512d o = _mm512_mul_pd(_mm512_cvtps_pd(om), q);
    const __m512d t = _mm512_mul_pd(_mm512_cvtps_pd(tm), q);
    const __m512d rhs = avx512_order ? _mm512_mul_pd(_mm512_mul_pd(o, t), c) : _mm512_mul_pd(_mm512_mul_pd(c, o), t);
    return _mm512_cmp_pd_mask(a, _mm512_setzero_pd(), _CMP_GE_OQ) &
           _mm512_cmp_pd_mask(_mm512_mul_pd(a, a), rhs, _CMP_GE_OQ);
}

static inline __m256i lo256(__m512i v) { return _mm512_castsi512_si256(v); }
static inline __m256i hi256(__m512i v) { return _mm512_extracti64x4_epi64(v, 1); }
static inline __m512i join256(__m256i lo, __m256i hi) { return _mm512_inserti64x4(_mm512_castsi256_si512(lo), hi, 1); }

// libvmaf's table of 2^30 / d truncated (d_table: the table at d = 0), for
// 16 lanes d != 0 with |d| <= 2^15: read from the table (Div false), or
// computed by two divisions as decouple0_orient does for 8 (its note says
// why that is exact). Which is quicker depends on the core: on Intel's the
// 16-lane gather (about 9 cycles) beats the divisions; on AMD's (Zen 5) it
// takes 21 cycles, the two divisions 8 (CpuFlags::slow_gather picks).
template <bool Div>
static inline __m512i recip30_16(__m512i d, const int32_t* d_table) {
    if constexpr (Div) {
        const __m512d q30 = _mm512_set1_pd(1073741824.0);
        return join256(_mm512_cvttpd_epi32(_mm512_div_pd(q30, _mm512_cvtepi32_pd(lo256(d)))),
                       _mm512_cvttpd_epi32(_mm512_div_pd(q30, _mm512_cvtepi32_pd(hi256(d)))));
    } else {
        return _mm512_i32gather_epi32(d, d_table, 4);
    }
}

// libvmaf's 2^30 / d truncated for 16 lanes d in [1, 2^15], without
// reading its table where d > 64: the float quotient, correctly rounded,
// lies in [Q, Q + 1] for the true quotient's integer part Q (both are
// floats, Q + 1 <= 2^24, and rounding is monotone), so its truncation is
// Q or Q + 1, and (Q + 1) d passes 2^30 where Q d does not (the product
// stays below 2^30 + 2^15). d <= 64 (Q + 1 past 2^24) reads the table, whose
// first 64 entries stay in L1; the others are spread over 128 KiB, which
// the gather otherwise waits on.
static inline __m512i recip30_16_float(__m512i d, const int32_t* d_table) {
    const __m512 q = _mm512_div_ps(_mm512_set1_ps(1073741824.0f), _mm512_cvtepi32_ps(d));
    __m512i r = _mm512_cvttps_epi32(q);
    const __mmask16 over = _mm512_cmpgt_epi32_mask(_mm512_mullo_epi32(r, d), _mm512_set1_epi32(1 << 30));
    r = _mm512_mask_sub_epi32(r, over, r, _mm512_set1_epi32(1));
    const __mmask16 small = _mm512_cmple_epi32_mask(d, _mm512_set1_epi32(64));
    if (small) r = _mm512_mask_i32gather_epi32(r, small, d, d_table, 4);
    return r;
}

// decouple0_orient for 16 elements.
template <bool NoBound, bool Div>
static inline void decouple0_orient16(__m512i o, __m512i t, __mmask16 angle, bool simd, const Scale0Consts& k,
                                      __m512d gain, int16_t* r_out, int16_t* a_out, __mmask16 lanes) {
    const __m512i zero = _mm512_setzero_si512(), q15 = _mm512_set1_epi32(32768);
    const __mmask16 ozero = _mm512_cmpeq_epi32_mask(o, zero);
    // libvmaf's table of 2^30 / o truncated (o = 0: unused, divided as 1)
    const __m512i div = recip30_16<Div>(_mm512_mask_mov_epi32(o, ozero, _mm512_set1_epi32(1)), k.div_lookup + 32768);
    const __m512i r15 = _mm512_set1_epi64(16384);
    const __m512i pe = _mm512_srli_epi64(_mm512_add_epi64(_mm512_mul_epi32(div, t), r15), 15);
    const __m512i po = _mm512_srli_epi64(
        _mm512_add_epi64(_mm512_mul_epi32(_mm512_srli_epi64(div, 32), _mm512_srli_epi64(t, 32)), r15), 15);
    __m512i kk = _mm512_mask_blend_epi32(0xAAAA, pe, _mm512_slli_epi64(po, 32));
    kk = _mm512_mask_mov_epi32(kk, ozero, q15);
    kk = _mm512_min_epi32(_mm512_max_epi32(kk, zero), q15);
    __m512i rst = _mm512_srai_epi32(_mm512_add_epi32(_mm512_mullo_epi32(kk, o), _mm512_set1_epi32(16384)), 15);
    if constexpr (!NoBound) {   // (NoBound: the bound never changes rst; gain_leaves_rst)
        const __mmask16 kpos = _mm512_cmpgt_epi32_mask(kk, zero);
        const __mmask16 pos = angle & kpos & _mm512_cmpgt_epi32_mask(o, zero);
        const __mmask16 neg = angle & kpos & _mm512_cmpgt_epi32_mask(zero, o);
        const __mmask16 any = pos | neg;
        if (k.gain_int && any) {
            const __m512i g = _mm512_mullo_epi32(rst, _mm512_set1_epi32(k.gain_int));
            rst = _mm512_mask_mov_epi32(rst, any, _mm512_mask_blend_epi32(pos, _mm512_max_epi32(g, t), _mm512_min_epi32(g, t)));
        } else if (any) {
            const __m512d g0 = _mm512_mul_pd(_mm512_cvtepi32_pd(lo256(rst)), gain);
            const __m512d g1 = _mm512_mul_pd(_mm512_cvtepi32_pd(hi256(rst)), gain);
            __m512i bounded;
            if (simd) {
                const __m512i g = join256(_mm512_cvtpd_epi32(g0), _mm512_cvtpd_epi32(g1));
                bounded = _mm512_mask_blend_epi32(pos, _mm512_max_epi32(g, t), _mm512_min_epi32(g, t));
            } else {
                const __m512d t0 = _mm512_cvtepi32_pd(lo256(t)), t1 = _mm512_cvtepi32_pd(hi256(t));
                const __m512i mn = join256(_mm512_cvttpd_epi32(_mm512_min_pd(g0, t0)), _mm512_cvttpd_epi32(_mm512_min_pd(g1, t1)));
                const __m512i mx = join256(_mm512_cvttpd_epi32(_mm512_max_pd(g0, t0)), _mm512_cvttpd_epi32(_mm512_max_pd(g1, t1)));
                bounded = _mm512_mask_blend_epi32(pos, mx, mn);
            }
            rst = _mm512_mask_mov_epi32(rst, any, bounded);
        }
    }
    // rst and t - rst fit int16 (see decouple0_orient): truncation keeps them
    _mm512_mask_cvtepi32_storeu_epi16(r_out, lanes, rst);
    _mm512_mask_cvtepi32_storeu_epi16(a_out, lanes, _mm512_sub_epi32(t, rst));
}

// sum_to_float for 16 lanes.
static inline __m512 sum_to_float16(__m512i v, bool wrapped) {
    const __m512 f = _mm512_cvtepi32_ps(v);
    if (wrapped) return f;
    return _mm512_mask_mov_ps(f, _mm512_cmpeq_epi32_mask(v, _mm512_set1_epi32(INT32_MIN)), _mm512_set1_ps(2147483648.0f));
}

// decouple0 on 16 columns at a time, the last block masked. NoBound: the
// gain limit is 1, where the bound never changes rst at scale 0
// (gain_leaves_rst): no angle test, and the orientations' bound code
// compiles away.
template <bool NoBound, bool Div>
static void decouple0_blocks(Row3<const int16_t> ref, Row3<const int16_t> dis, Row3<int16_t> r, Row3<int16_t> a,
                             int begin, int end, Lane lane, const Scale0Consts& k) {
    const bool simd = lane != Lane::scalar;
    const bool order = lane == Lane::avx512;
    const __m512d c = _mm512_set1_pd(static_cast<double>(k.cos_1deg_sq));
    const __m512d gain = _mm512_set1_pd(k.gain_limit);
    for (int j = begin; j < end; j += 16) {   // the last block masked
        const Lanes16 l = first_lanes(end - j);
        const __m512i oh = load16_as32(ref.p[0] + j, l), ov = load16_as32(ref.p[1] + j, l), od = load16_as32(ref.p[2] + j, l);
        const __m512i th = load16_as32(dis.p[0] + j, l), tv = load16_as32(dis.p[1] + j, l), td = load16_as32(dis.p[2] + j, l);
        __mmask16 angle = 0;
        if constexpr (!NoBound) {
            const __m512i ot = _mm512_add_epi32(_mm512_mullo_epi32(oh, th), _mm512_mullo_epi32(ov, tv));
            const __m512i om = _mm512_add_epi32(_mm512_mullo_epi32(oh, oh), _mm512_mullo_epi32(ov, ov));
            const __m512i tm = _mm512_add_epi32(_mm512_mullo_epi32(th, th), _mm512_mullo_epi32(tv, tv));
            const __m512 otf = sum_to_float16(ot, simd), omf = sum_to_float16(om, simd), tmf = sum_to_float16(tm, simd);
            const auto lo = [](__m512 v) { return _mm512_castps512_ps256(v); };
            const auto hi = [](__m512 v) { return _mm512_extractf32x8_ps(v, 1); };
            angle = static_cast<__mmask16>(angle8(lo(otf), lo(omf), lo(tmf), c, order) |
                                           (angle8(hi(otf), hi(omf), hi(tmf), c, order) << 8));
        }
        decouple0_orient16<NoBound, Div>(oh, th, angle, simd, k, gain, r.p[0] + j, a.p[0] + j, l.m);
        decouple0_orient16<NoBound, Div>(ov, tv, angle, simd, k, gain, r.p[1] + j, a.p[1] + j, l.m);
        decouple0_orient16<NoBound, Div>(od, td, angle, simd, k, gain, r.p[2] + j, a.p[2] + j, l.m);
    }
}

template <bool Div>
static void decouple0_avx512(Row3<const int16_t> ref, Row3<const int16_t> dis, Row3<int16_t> r, Row3<int16_t> a,
                             int begin, int end, Lane lane, const Scale0Consts& k) {
    if (gain_leaves_rst(k))
        decouple0_blocks<true, Div>(ref, dis, r, a, begin, end, lane, k);
    else
        decouple0_blocks<false, Div>(ref, dis, r, a, begin, end, lane, k);
}
#endif

// ------------------------------------------------------- denominator -----

static void den0(Row3<const int16_t> ref, int begin, int end, uint64_t sums[3]) {
#if defined(__AVX512F__)
    for (int t = 0; t < 3; ++t) {
        __m512i acc = _mm512_setzero_si512();
        for (int j = begin; j < end; j += 16) {   // the last block masked (its other lanes 0: they add 0)
            const __m512i m = _mm512_abs_epi32(load16_as32(ref.p[t] + j, first_lanes(end - j)));   // <= 2^15
            const __m512i sq = _mm512_mullo_epi32(m, m);                                         // <= 2^30
            acc = _mm512_add_epi64(acc, _mm512_mul_epu32(sq, m));
            acc = _mm512_add_epi64(acc, _mm512_mul_epu32(_mm512_srli_epi64(sq, 32), _mm512_srli_epi64(m, 32)));
        }
        sums[t] += Vec512::sum64(acc);
    }
#else
    int j = begin;
    for (int t = 0; t < 3; ++t) {
        __m256i acc = _mm256_setzero_si256();
        for (j = begin; j + 8 <= end; j += 8) {
            const __m256i m = _mm256_abs_epi32(load8x16(ref.p[t] + j));   // <= 2^15
            const __m256i sq = _mm256_mullo_epi32(m, m);                    // <= 2^30
            acc = _mm256_add_epi64(acc, _mm256_mul_epu32(sq, m));
            acc = _mm256_add_epi64(acc, _mm256_mul_epu32(_mm256_srli_epi64(sq, 32), _mm256_srli_epi64(m, 32)));
        }
        sums[t] += Vec256::sum64(acc);
    }
    if (j < end) row_kernels_c().den0(ref, j, end, sums);
#endif
}

// ---------------------------------------------------------------- CSF ----

static void csf0(const int16_t* src, int16_t* value, int16_t* filtered, int begin, int end, int32_t rf, int theta,
                 Lane lane) {
    const int shift = theta == 2 ? 17 : 15;
    const __m128i sh = _mm_cvtsi32_si128(shift);
    int j = begin;
#if defined(__AVX512F__)
    __m512i B30 = _mm512_set1_epi32(4369);
    const __m512i R12 = _mm512_set1_epi32(2048);
    asm("" : "+v"(B30));   // (a vpmulld: GCC would make it 2 shifts and 2 adds, as in cm0_avx512)
    for (; j < end; j += 16) {   // the last block masked
        const Lanes16 l = first_lanes(end - j);
        const __m512i d = _mm512_sra_epi32(
            _mm512_add_epi32(_mm512_mullo_epi32(load16_as32(src + j, l), _mm512_set1_epi32(rf)), _mm512_set1_epi32(theta == 2 ? 65535 : 16384)),
            sh);
        // The stores convert to int16: saturating (libvmaf's AVX2 packs) or
        // truncating (its scalar and AVX-512 stores).
        if (lane == Lane::scalar) {   // the filter reads the truncated value
            const __m512i v = trunc16x16(d);
            _mm512_mask_cvtepi32_storeu_epi16(value + j, l.m, v);
            _mm512_mask_cvtepi32_storeu_epi16(
                filtered + j, l.m, _mm512_srai_epi32(_mm512_add_epi32(_mm512_mullo_epi32(B30, _mm512_abs_epi32(v)), R12), 12));
            continue;
        }
        const __m512i f32 = _mm512_srai_epi32(_mm512_add_epi32(_mm512_mullo_epi32(B30, _mm512_abs_epi32(d)), R12), 12);
        if (lane == Lane::avx2) {
            _mm512_mask_cvtsepi32_storeu_epi16(value + j, l.m, d);
            _mm512_mask_cvtsepi32_storeu_epi16(filtered + j, l.m, f32);
        } else {
            _mm512_mask_cvtepi32_storeu_epi16(value + j, l.m, d);
            _mm512_mask_cvtepi32_storeu_epi16(filtered + j, l.m, f32);
        }
    }
#else
    const __m256i round = _mm256_set1_epi32(theta == 2 ? 65535 : 16384);
    const __m256i f = _mm256_set1_epi32(rf);
    const __m256i by30 = _mm256_set1_epi32(4369), r12 = _mm256_set1_epi32(2048);
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
#endif
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
    // Below 2^29 the square stays below 2^31 and the products are positive:
    // both shifts agree (the usual case; the arithmetic one costs more).
    if (!logical) logical = _mm256_testz_si256(d, _mm256_set1_epi32(~((1 << 29) - 1)));
    if (logical)
        return _mm256_add_epi64(acc, _mm256_add_epi64(_mm256_srli_epi64(pe, shift_cub), _mm256_srli_epi64(po, shift_cub)));
    return _mm256_add_epi64(acc, _mm256_add_epi64(srai64(pe, shift_cub), srai64(po, shift_cub)));
}

constexpr int kChunk = 256;   // columns of the threshold's column sums kept on the stack

// The column sums of the threshold at columns j - 1 + x, x in [x0, x1), 8
// at a time: the orientation sums (orient_sums) of the three rows added.
static void col_sums8(const int32_t* const flt_sums[3], int j, int x0, int x1, int32_t* col) {
    for (int x = x0; x < x1; x += 8) {
        const int o = j - 1 + x;
        const __m256i c = _mm256_add_epi32(_mm256_add_epi32(load8x32(flt_sums[0] + o), load8x32(flt_sums[1] + o)),
                                           load8x32(flt_sums[2] + o));
        _mm256_store_si256(reinterpret_cast<__m256i*>(col + x), c);
    }
}

// orient_sums: 8 (16) columns at a time, the rest one by one.
template <class T>
static void orient_sums(Row3<const T> flt, int begin, int end, int32_t* out) {
    int j = begin;
#if defined(__AVX512F__)
    for (; j < end; j += 16) {   // the last block masked
        const Lanes16 l = first_lanes(end - j);
        _mm512_mask_storeu_epi32(out + j, l.m, _mm512_add_epi32(_mm512_add_epi32(load16_as32(flt.p[0] + j, l), load16_as32(flt.p[1] + j, l)),
                                                                load16_as32(flt.p[2] + j, l)));
    }
#else
    const auto load8 = [](const T* p) {
        if constexpr (sizeof(T) == 2)
            return load8x16(p);
        else
            return load8x32(p);
    };
    for (; j + 8 <= end; j += 8)
        _mm256_storeu_si256(reinterpret_cast<__m256i*>(out + j),
                            _mm256_add_epi32(_mm256_add_epi32(load8(flt.p[0] + j), load8(flt.p[1] + j)), load8(flt.p[2] + j)));
    for (; j < end; ++j)
        out[j] = static_cast<int32_t>(static_cast<uint32_t>(flt.p[0][j]) + static_cast<uint32_t>(flt.p[1][j]) +
                                      static_cast<uint32_t>(flt.p[2][j]));
#endif
}
static void orient_sums0(Row3<const int16_t> flt, int begin, int end, int32_t* out) { orient_sums(flt, begin, end, out); }
static void orient_sums123(Row3<const int32_t> flt, int begin, int end, int32_t* out) { orient_sums(flt, begin, end, out); }

#if !defined(__AVX512F__)   // (the AVX-512 build masks its last block instead)
static void cm0(Row3<const int16_t> csf, const Row3<const int16_t> flt[3], const int32_t* const flt_sums[3],
                Row3<const int16_t> src, int begin, int end, Lane lane, const Scale0Consts& k, int64_t sums[3]) {
    const int sub[3] = {10, 10, 12};
    const int shift_sq[3] = {29, 29, 30};
    const __m256i add_sq[3] = {_mm256_set1_epi64x(1 << 28), _mm256_set1_epi64x(1 << 28), _mm256_set1_epi64x(1 << 29)};
    const __m256i add_cub[3] = {_mm256_set1_epi64x(k.add_cub[0]), _mm256_set1_epi64x(k.add_cub[1]),
                                _mm256_set1_epi64x(k.add_cub[2])};
    const __m256i by15 = _mm256_set1_epi32(8738), r12 = _mm256_set1_epi32(2048);
    __m256i acc[3] = {_mm256_setzero_si256(), _mm256_setzero_si256(), _mm256_setzero_si256()};
    // The threshold is the 3x3 sum of the three orientations' filtered
    // values less the middle one, plus the centre terms: column sums first.
    alignas(32) int32_t col[kChunk + 16];
    int j = begin;
    while (j + 8 <= end) {
        const int n = (end - j) / 8 * 8 < kChunk ? (end - j) / 8 * 8 : kChunk;   // outputs [j, j + n)
        col_sums8(flt_sums, j, 0, n + 2, col);
        for (int x = 0; x < n; x += 8, j += 8) {
            __m256i thr = _mm256_add_epi32(_mm256_loadu_si256(reinterpret_cast<const __m256i*>(col + x)),
                                           _mm256_loadu_si256(reinterpret_cast<const __m256i*>(col + x + 2)));
            thr = _mm256_add_epi32(thr, _mm256_sub_epi32(_mm256_loadu_si256(reinterpret_cast<const __m256i*>(col + x + 1)),
                                                         load8x32(flt_sums[1] + j)));
            for (int t = 0; t < 3; ++t) {
                __m256i c = _mm256_srai_epi32(
                    _mm256_add_epi32(_mm256_mullo_epi32(by15, _mm256_abs_epi32(load8x16(csf.p[t] + j))), r12), 12);
                if (lane == Lane::scalar) c = trunc16(c);
                thr = _mm256_add_epi32(thr, c);
            }
            for (int t = 0; t < 3; ++t) {
                const __m256i xv = _mm256_mullo_epi32(load8x16(src.p[t] + j), _mm256_set1_epi32(k.rf[t]));
                acc[t] = cm_terms(xv, _mm256_slli_epi32(thr, sub[t]), add_sq[t], shift_sq[t], add_cub[t], k.shift_cub[t],
                                  lane == Lane::avx2, acc[t]);
            }
        }
    }
    for (int t = 0; t < 3; ++t)
        sums[t] = static_cast<int64_t>(static_cast<uint64_t>(sums[t]) + Vec256::sum64(acc[t]));
    if (j < end) row_kernels_c().cm0(csf, flt, flt_sums, src, j, end, lane, k, sums);
}
#endif

#if defined(__AVX512F__)
// The excess of 16 elements over their threshold (x: coefficient * factor,
// thr_s: threshold << sub), 0 where under it; 0 in the lanes outside l.
static inline __m512i excess16(__m512i x, __m512i thr_s, const Lanes16& l) {
    return _mm512_maskz_max_epi32(l.m, _mm512_sub_epi32(_mm512_abs_epi32(x), thr_s), _mm512_setzero_si512());
}

// The cubed excesses d (>= 0) of 16 elements with cm_terms' two rounding
// shifts, added to acc; the lanes outside l add nothing.
static inline __m512i cubes16(__m512i d, __m512i add_sq, int shift_sq, __m512i add_cub, int shift_cub, bool logical,
                              __m512i acc, const Lanes16& l = {}) {
    const __m512i dodd = _mm512_srli_epi64(d, 32);
    const __m512i sqe = _mm512_srli_epi64(_mm512_add_epi64(_mm512_mul_epi32(d, d), add_sq), shift_sq);
    const __m512i sqo = _mm512_srli_epi64(_mm512_add_epi64(_mm512_mul_epi32(dodd, dodd), add_sq), shift_sq);
    const __m512i pe = _mm512_add_epi64(_mm512_mul_epi32(sqe, d), add_cub);
    const __m512i po = _mm512_add_epi64(_mm512_mul_epi32(sqo, dodd), add_cub);
    // below 2^29 both shifts agree (see cm_terms)
    if (!logical) logical = _mm512_test_epi32_mask(d, _mm512_set1_epi32(~((1 << 29) - 1))) == 0;
    if (logical)
        return _mm512_add_epi64(acc, _mm512_add_epi64(_mm512_maskz_srli_epi64(l.even, pe, static_cast<unsigned>(shift_cub)),
                                                      _mm512_maskz_srli_epi64(l.odd, po, static_cast<unsigned>(shift_cub))));
    return _mm512_add_epi64(acc, _mm512_add_epi64(_mm512_maskz_srai_epi64(l.even, pe, static_cast<unsigned>(shift_cub)),
                                                  _mm512_maskz_srai_epi64(l.odd, po, static_cast<unsigned>(shift_cub))));
}

// cm_terms for 16 elements; the lanes outside l add nothing.
static inline __m512i cm_terms16(__m512i x, __m512i thr_s, __m512i add_sq, int shift_sq, __m512i add_cub,
                                 int shift_cub, bool logical, __m512i acc, const Lanes16& l = {}) {
    return cubes16(excess16(x, thr_s, l), add_sq, shift_sq, add_cub, shift_cub, logical, acc, l);
}

// Most elements of a picture lie under their masking threshold: their
// excess d is 0, and their term (0 + add_sq >> shift_sq) * 0 + add_cub,
// shifted by shift_cub, is 0 where add_cub lies in [0, 2^shift_cub) (as
// libvmaf's halves do). A queue keeps the excesses above 0 (compressed out
// of their vectors) until 16 or more are there to cube at once: the sum is
// the same (64-bit adds in any order), and each lane's term is the same
// (the shift cubes16 picks for a block is exact for each of its lanes).
struct CubeQueue {
    static constexpr int kSize = 256;
    alignas(64) int32_t d[kSize + 16];
    static bool applies(int64_t add_cub, int shift_cub) { return add_cub >= 0 && (add_cub >> shift_cub) == 0; }
    // Appends the lanes of dv above 0 (the lanes outside l are 0) to the n
    // kept; returns the new count. (The count stays with the caller, in a
    // register: as a member, every store into d would make it reloaded.)
    int push(int n, __m512i dv) {
        const __mmask16 above = _mm512_test_epi32_mask(dv, dv);
        _mm512_storeu_si512(d + n, _mm512_maskz_compress_epi32(above, dv));
        return n + __builtin_popcount(above);
    }
    static bool full(int n) { return n > kSize - 16; }
    // Cubes the n excesses kept into acc.
    __m512i drain(int n, __m512i add_sq, int shift_sq, __m512i add_cub, int shift_cub, bool logical, __m512i acc) const {
        for (int q = 0; q < n; q += 16) {
            const Lanes16 l = first_lanes(n - q);
            acc = cubes16(_mm512_maskz_loadu_epi32(l.m, d + q), add_sq, shift_sq, add_cub, shift_cub, logical, acc, l);
        }
        return acc;
    }
};

// col_sums8 on 16 lanes, of exactly the columns [j - 1, j + n + 1) (the
// loads past them masked; the sums stored past them are never added).
static void col_sums16(const int32_t* const flt_sums[3], int j, int n, int32_t* col) {
    for (int x = 0; x < n + 2; x += 16) {  // columns j - 1 + x
        const __mmask16 m = first_lanes(n + 2 - x).m;
        const int o = j - 1 + x;
        _mm512_store_si512(col + x, _mm512_add_epi32(_mm512_add_epi32(_mm512_maskz_loadu_epi32(m, flt_sums[0] + o),
                                                                      _mm512_maskz_loadu_epi32(m, flt_sums[1] + o)),
                                                     _mm512_maskz_loadu_epi32(m, flt_sums[2] + o)));
    }
}

// The masking's walk over the outputs [begin, end), 16 at a time (the
// last block masked): block(j, lanes, sums) for outputs j .. j + 15, sums
// the threshold's 3x3 sums of the filtered values less their middle ones,
// from column sums made a chunk at a time (of the rows' orient_sums).
template <class Block>
static inline void masking_blocks16(const int32_t* const flt_sums[3], int begin, int end, Block block) {
    alignas(64) int32_t col[kChunk + 32];
    for (int j = begin; j < end;) {
        const int n = end - j < kChunk ? end - j : kChunk;  // outputs [j, j + n)
        col_sums16(flt_sums, j, n, col);
        for (int x = 0; x < n; x += 16) {
            const Lanes16 l = first_lanes(n - x);
            const __m512i sums = _mm512_add_epi32(_mm512_add_epi32(_mm512_loadu_si512(col + x), _mm512_loadu_si512(col + x + 2)),
                                                  _mm512_sub_epi32(_mm512_loadu_si512(col + x + 1),
                                                                   _mm512_maskz_loadu_epi32(l.m, flt_sums[1] + j + x)));
            block(j + x, l, sums);
        }
        j += n;
    }
}

// cm0 on 16 columns at a time, the last block masked. Scalar: libvmaf's
// scalar lanes (the centre terms kept to 16 bits); Queued: the excesses
// cubed through CubeQueue. The orientations' loops unroll, so that every
// shift is an immediate and the queue counts stay in registers.
template <bool Scalar, bool Queued>
static void cm0_blocks(Row3<const int16_t> csf, const int32_t* const flt_sums[3], Row3<const int16_t> src, int begin,
                       int end, Lane lane, const Scale0Consts& k, int64_t sums[3]) {
    constexpr int sub[3] = {10, 10, 12};
    constexpr int shift_sq[3] = {29, 29, 30};
    const __m512i add_sq[3] = {_mm512_set1_epi64(1 << 28), _mm512_set1_epi64(1 << 28), _mm512_set1_epi64(1 << 29)};
    const __m512i add_cub[3] = {_mm512_set1_epi64(k.add_cub[0]), _mm512_set1_epi64(k.add_cub[1]),
                                _mm512_set1_epi64(k.add_cub[2])};
    const __m512i rf[3] = {_mm512_set1_epi32(k.rf[0]), _mm512_set1_epi32(k.rf[1]), _mm512_set1_epi32(k.rf[2])};
    __m512i by15 = _mm512_set1_epi32(8738);
    const __m512i r12 = _mm512_set1_epi32(2048);
    // A vpmulld (2 uops): GCC would multiply by the constant with 3 shifts and
    // 2 adds, the shifts on the one port 512-bit shifts and vpmulld share.
    // The empty asm hides the value. (cm0 1.07-1.10x alone, in L1.)
    asm("" : "+v"(by15));
    const bool logical = lane == Lane::avx2;
    __m512i acc[3] = {_mm512_setzero_si512(), _mm512_setzero_si512(), _mm512_setzero_si512()};
    CubeQueue queue[3];
    int queued[3] = {0, 0, 0};
    masking_blocks16(flt_sums, begin, end, [&](int jx, const Lanes16& l, __m512i thr) {
#pragma GCC unroll 3
        for (int t = 0; t < 3; ++t) {
            __m512i c = _mm512_srai_epi32(
                _mm512_add_epi32(_mm512_mullo_epi32(by15, _mm512_abs_epi32(load16_as32(csf.p[t] + jx, l))), r12), 12);
            if constexpr (Scalar) c = trunc16x16(c);
            thr = _mm512_add_epi32(thr, c);
        }
#pragma GCC unroll 3
        for (int t = 0; t < 3; ++t) {
            const __m512i xv = _mm512_mullo_epi32(load16_as32(src.p[t] + jx, l), rf[t]);
            const __m512i d = excess16(xv, _mm512_slli_epi32(thr, sub[t]), l);
            if constexpr (Queued) {
                queued[t] = queue[t].push(queued[t], d);
                if (CubeQueue::full(queued[t])) {
                    acc[t] = queue[t].drain(queued[t], add_sq[t], shift_sq[t], add_cub[t], k.shift_cub[t], logical, acc[t]);
                    queued[t] = 0;
                }
            } else {
                acc[t] = cubes16(d, add_sq[t], shift_sq[t], add_cub[t], k.shift_cub[t], logical, acc[t], l);
            }
        }
    });
    for (int t = 0; t < 3; ++t) {
        if constexpr (Queued)
            acc[t] = queue[t].drain(queued[t], add_sq[t], shift_sq[t], add_cub[t], k.shift_cub[t], logical, acc[t]);
        sums[t] = static_cast<int64_t>(static_cast<uint64_t>(sums[t]) + Vec512::sum64(acc[t]));
    }
}

static void cm0_avx512(Row3<const int16_t> csf, const Row3<const int16_t> /*flt*/[3], const int32_t* const flt_sums[3],
                       Row3<const int16_t> src, int begin, int end, Lane lane, const Scale0Consts& k, int64_t sums[3]) {
    const bool queued = CubeQueue::applies(k.add_cub[0], k.shift_cub[0]) &&
                        CubeQueue::applies(k.add_cub[1], k.shift_cub[1]) && CubeQueue::applies(k.add_cub[2], k.shift_cub[2]);
    const bool scalar = lane == Lane::scalar;
    if (queued) {
        if (scalar) cm0_blocks<true, true>(csf, flt_sums, src, begin, end, lane, k, sums);
        else cm0_blocks<false, true>(csf, flt_sums, src, begin, end, lane, k, sums);
    } else {
        if (scalar) cm0_blocks<true, false>(csf, flt_sums, src, begin, end, lane, k, sums);
        else cm0_blocks<false, false>(csf, flt_sums, src, begin, end, lane, k, sums);
    }
}
#endif

// ------------------------------------------------------- scales 1-3 -----

static inline __m256i abs64(__m256i v) {
#if defined(__AVX512VL__)
    return _mm256_abs_epi64(v);
#else
    const __m256i sign = _mm256_cmpgt_epi64(_mm256_setzero_si256(), v);
    return _mm256_sub_epi64(_mm256_xor_si256(v, sign), sign);
#endif
}
// 4 int64 lanes to 4 int32 (their low halves).
static inline __m128i low32x4(__m256i v) {
#if defined(__AVX512VL__)
    return _mm256_cvtepi64_epi32(v);
#else
    return _mm256_castsi256_si128(_mm256_permutevar8x32_epi32(v, _mm256_setr_epi32(0, 2, 4, 6, 0, 2, 4, 6)));
#endif
}
static inline __m256i load4x32(const int32_t* p) {
    return _mm256_cvtepi32_epi64(_mm_loadu_si128(reinterpret_cast<const __m128i*>(p)));
}

// A Q32 factor read by a span: its magnitude (below 2^32) and sign.
struct Factor {
    __m256i mag, sign;
};
static inline Factor factor(int64_t rf) {
    const int64_t mag = rf < 0 ? -rf : rf;
    return {_mm256_set1_epi64x(mag), _mm256_set1_epi64x(rf < 0 ? -1 : 0)};   // sign: all ones in 32 or 64 bits
}
// (s * rf + 2^27) >> 28 for 4 int32 s in int64 lanes; |s| * |rf| < 2^63.
static inline __m256i times_factor(__m256i s64, Factor f) {
    const __m256i sign = _mm256_xor_si256(_mm256_cmpgt_epi64(_mm256_setzero_si256(), s64), f.sign);
    __m256i p = _mm256_mul_epu32(abs64(s64), f.mag);
    p = _mm256_sub_epi64(_mm256_xor_si256(p, sign), sign);
    return srai64(_mm256_add_epi64(p, _mm256_set1_epi64x(int64_t{1} << 27)), 28);
}

// One DWT column with mirrored taps, 64-bit (the C arithmetic).
static int32_t dwt_i4_column(const int32_t* t, int j, int n, const int16_t* f, int64_t round, int shift) {
    int64_t acc = 0;
    for (int k = 0; k < 4; ++k) acc += int64_t{f[k]} * t[tap(j, k, n)];
    return static_cast<int32_t>(static_cast<uint64_t>((acc + round) >> shift));
}

// sum f[k] * s_k of 8 int32 columns, + round, >> shift, low 32 bits.
static inline __m256i dwt_i4_8(const __m256i s[4], const int16_t* f, __m256i round, int shift) {
    __m256i even = round, odd = round;
    for (int k = 0; k < 4; ++k) {
        const __m256i c = _mm256_set1_epi64x(f[k]);
        even = _mm256_add_epi64(even, _mm256_mul_epi32(s[k], c));
        odd = _mm256_add_epi64(odd, _mm256_mul_epi32(_mm256_srli_epi64(s[k], 32), c));
    }
    const __m128i sh = _mm_cvtsi32_si128(shift);
    // Bits shift .. shift+31 are the same for a logical shift (shift <= 16).
    return _mm256_blend_epi32(_mm256_srl_epi64(even, sh), _mm256_sll_epi64(_mm256_srl_epi64(odd, sh), _mm_cvtsi32_si128(32)),
                              0xAA);
}

#if defined(__AVX512F__)
// dwt_i4_8 for 16 columns.
static inline __m512i dwt_i4_16(const __m512i s[4], const int16_t* f, __m512i round, int shift) {
    __m512i even = round, odd = round;
    for (int k = 0; k < 4; ++k) {
        const __m512i c = _mm512_set1_epi64(f[k]);
        even = _mm512_add_epi64(even, _mm512_mul_epi32(s[k], c));
        odd = _mm512_add_epi64(odd, _mm512_mul_epi32(_mm512_srli_epi64(s[k], 32), c));
    }
    const __m128i sh = _mm_cvtsi32_si128(shift);
    return _mm512_mask_blend_epi32(0xAAAA, _mm512_srl_epi64(even, sh), _mm512_slli_epi64(_mm512_srl_epi64(odd, sh), 32));
}
#endif

// Horizontal pass of one tmp row of scales 1-3 (`width` wide) over the
// interior outputs [j0, j1) (as dwt0_horizontal): the low-pass taps into
// lo_out and the high-pass ones into hi_out, each nullptr where not wanted.
static void dwt123_horizontal(const int32_t* t, int32_t* lo_out, int32_t* hi_out, int j0, int j1, int width,
                              int64_t hr, int hs) {
    const __m128i hsh = _mm_cvtsi32_si128(hs);
    int32_t* const dst[2] = {lo_out, hi_out};
    int j = j0;
#if defined(__AVX512F__)
    // 16 outputs in 32-bit lanes: each tap value t = 2^16 h + l (h its
    // signed high half, l its low half, unsigned), and the sum as
    //   S = 2^16 A + B + 2^15 sum(f),  A = sum f h,  B = sum f (l - 2^15),
    // A and B each a vpmaddwd pair of taps (|A|, |B| <= 2^15 * 54822 < 2^31,
    // and no pair is -2^15 * -2^15). With C = 2^15 sum(f) + round = C1 2^s + C0
    // (0 <= C0 < 2^s, s <= 16), (S + round) >> s is
    //   2^(16-s) A + C1 + ((B + C0) >> s),
    // B + C0 within int32: its low 32 bits are the reference's.
    {
        // within each 64-bit pair (t[2m - 1], t[2m]): the words l, h, l, h as l, l, h, h
        const __m512i words = _mm512_broadcast_i32x4(_mm_setr_epi8(0, 1, 4, 5, 2, 3, 6, 7, 8, 9, 12, 13, 10, 11, 14, 15));
        const __m512i even = _mm512_setr_epi32(0, 2, 4, 6, 8, 10, 12, 14, 16, 18, 20, 22, 24, 26, 28, 30);
        const __m512i odd = _mm512_add_epi32(even, _mm512_set1_epi32(1));
        const __m512i bias = _mm512_set1_epi32(static_cast<int32_t>(0x80008000u));
        struct Filter {
            __m512i c01, c23, c0;
            int64_t c1;
        };
        const auto filter = [&](const int16_t* f) {
            const int64_t c = 32768 * (int64_t{f[0]} + f[1] + f[2] + f[3]) + hr;
            const int64_t c1 = c >> hs;   // (floor)
            return Filter{pair16(f[0], f[1]), pair16(f[2], f[3]), _mm512_set1_epi32(static_cast<int32_t>(c - (c1 << hs))), c1};
        };
        const Filter fl[2] = {filter(kLo16), filter(kHi16)};
        const __m128i sh = _mm_cvtsi32_si128(hs);
        for (; j + 16 <= j1; j += 16) {
            // the pairs (l, l) and (h, h) of taps 0-1 (from t[2j - 1]) and 2-3 (from t[2j + 1]) of outputs j..j+15
            __m512i lp[2], hp[2];
            for (int k = 0; k < 2; ++k) {
                const int32_t* p = t + 2 * j - 1 + 2 * k;
                const __m512i x0 = _mm512_shuffle_epi8(_mm512_loadu_si512(p), words);
                const __m512i x1 = _mm512_shuffle_epi8(_mm512_loadu_si512(p + 16), words);
                lp[k] = _mm512_xor_si512(_mm512_permutex2var_epi32(x0, even, x1), bias);
                hp[k] = _mm512_permutex2var_epi32(x0, odd, x1);
            }
            for (int hpass = 0; hpass < 2; ++hpass) {
                if (!dst[hpass]) continue;
                const Filter& f = fl[hpass];
                const __m512i a = _mm512_add_epi32(_mm512_madd_epi16(hp[0], f.c01), _mm512_madd_epi16(hp[1], f.c23));
                const __m512i b = _mm512_add_epi32(_mm512_madd_epi16(lp[0], f.c01), _mm512_madd_epi16(lp[1], f.c23));
                const __m512i hi = hs == 16 ? a : _mm512_slli_epi32(a, 16 - hs);
                const __m512i v = _mm512_add_epi32(_mm512_add_epi32(hi, _mm512_set1_epi32(static_cast<int32_t>(f.c1))),
                                                   _mm512_sra_epi32(_mm512_add_epi32(b, f.c0), sh));
                _mm512_storeu_si512(dst[hpass] + j, v);
            }
        }
    }
    for (; j + 8 <= j1; j += 8) {
        const __m512i p0 = _mm512_loadu_si512(t + 2 * j - 1), p1 = _mm512_loadu_si512(t + 2 * j + 1);
        const __m512i q0 = _mm512_srli_epi64(p0, 32), q1 = _mm512_srli_epi64(p1, 32);
        for (int hp = 0; hp < 2; ++hp) {
            if (!dst[hp]) continue;
            const int16_t* f = hp ? kHi16 : kLo16;
            __m512i acc = _mm512_add_epi64(_mm512_set1_epi64(hr), _mm512_mul_epi32(p0, _mm512_set1_epi64(f[0])));
            acc = _mm512_add_epi64(acc, _mm512_mul_epi32(q0, _mm512_set1_epi64(f[1])));
            acc = _mm512_add_epi64(acc, _mm512_mul_epi32(p1, _mm512_set1_epi64(f[2])));
            acc = _mm512_add_epi64(acc, _mm512_mul_epi32(q1, _mm512_set1_epi64(f[3])));
            _mm256_storeu_si256(reinterpret_cast<__m256i*>(dst[hp] + j), _mm512_cvtepi64_epi32(_mm512_srl_epi64(acc, hsh)));
        }
    }
#endif
    const __m256i hround = _mm256_set1_epi64x(hr);
    for (; j + 4 <= j1; j += 4) {
        // Even lanes of the 8 from 2j-1: taps 0 of outputs j..j+3; odd lanes: taps 1.
        const __m256i p0 = load8x32(t + 2 * j - 1), p1 = load8x32(t + 2 * j + 1);
        const __m256i q0 = _mm256_srli_epi64(p0, 32), q1 = _mm256_srli_epi64(p1, 32);
        for (int hp = 0; hp < 2; ++hp) {
            if (!dst[hp]) continue;
            const int16_t* f = hp ? kHi16 : kLo16;
            __m256i acc = _mm256_add_epi64(hround, _mm256_mul_epi32(p0, _mm256_set1_epi64x(f[0])));
            acc = _mm256_add_epi64(acc, _mm256_mul_epi32(q0, _mm256_set1_epi64x(f[1])));
            acc = _mm256_add_epi64(acc, _mm256_mul_epi32(p1, _mm256_set1_epi64x(f[2])));
            acc = _mm256_add_epi64(acc, _mm256_mul_epi32(q1, _mm256_set1_epi64x(f[3])));
            _mm_storeu_si128(reinterpret_cast<__m128i*>(dst[hp] + j), low32x4(_mm256_srl_epi64(acc, hsh)));
        }
    }
    // (the low 32 bits of a logical and of an arithmetic shift by hs <= 16 agree)
    for (; j < j1; ++j) {
        if (lo_out) lo_out[j] = dwt_i4_column(t, j, width, kLo16, hr, hs);
        if (hi_out) hi_out[j] = dwt_i4_column(t, j, width, kHi16, hr, hs);
    }
}

static void dwt123(const int32_t* const ref[4], const int32_t* const dis[4], int width, int scale, int32_t* tmp,
                   Row3<int32_t> ref_out, int32_t* ref_a, Row3<int32_t> dis_out, int32_t* dis_a, int d0, int d1) {
    const int64_t vr = scale == 1 ? 0 : 32768, hr = scale == 2 ? 32768 : 16384;
    const int vs = scale == 1 ? 0 : 16, hs = scale == 2 ? 16 : 15;
    const __m256i vround = _mm256_set1_epi64x(vr);
    const HighSpan span = high_span(d0, d1, width);
    const int32_t* const* in[2] = {ref, dis};
    for (int img = 0; img < 2; ++img) {
        int32_t* lo = tmp + static_cast<size_t>(2 * img) * width;
        int32_t* hi = lo + width;
        const int32_t* const* r = in[img];
        int x = 0;
#if defined(__AVX512F__)
        for (; x + 16 <= width; x += 16) {
            const bool want_hi = overlaps(span, x, 16);
            const __m512i s[4] = {_mm512_loadu_si512(r[0] + x), _mm512_loadu_si512(r[1] + x),
                                  _mm512_loadu_si512(r[2] + x), _mm512_loadu_si512(r[3] + x)};
            if (vs == 0) {
                // Scale 1's input is scale 0's band_a, int16 values: rows
                // paired in the 16-bit halves of each lane, one vpmaddwd a
                // pair of taps. Each pair sum is exact in int32 and the total
                // is what the 32-bit products' low bits add up to.
                const __m512i p01 = _mm512_mask_mov_epi16(s[0], 0xAAAAAAAA, _mm512_slli_epi32(s[1], 16));
                const __m512i p23 = _mm512_mask_mov_epi16(s[2], 0xAAAAAAAA, _mm512_slli_epi32(s[3], 16));
                _mm512_storeu_si512(lo + x, _mm512_add_epi32(_mm512_madd_epi16(p01, pair16(kLo16[0], kLo16[1])),
                                                             _mm512_madd_epi16(p23, pair16(kLo16[2], kLo16[3]))));
                if (want_hi)
                    _mm512_storeu_si512(hi + x, _mm512_add_epi32(_mm512_madd_epi16(p01, pair16(kHi16[0], kHi16[1])),
                                                                 _mm512_madd_epi16(p23, pair16(kHi16[2], kHi16[3]))));
                continue;
            }
            _mm512_storeu_si512(lo + x, dwt_i4_16(s, kLo16, _mm512_set1_epi64(vr), vs));
            if (want_hi) _mm512_storeu_si512(hi + x, dwt_i4_16(s, kHi16, _mm512_set1_epi64(vr), vs));
        }
#endif
        for (; x + 8 <= width; x += 8) {
            const bool want_hi = overlaps(span, x, 8);
            const __m256i s[4] = {load8x32(r[0] + x), load8x32(r[1] + x), load8x32(r[2] + x), load8x32(r[3] + x)};
            if (vs == 0) {
                // Scale 1 keeps the low 32 bits of the sum unshifted. Its
                // input (scale 0's band_a) is int16: the rows paired in each
                // lane's halves, one vpmaddwd a pair of taps (as above).
                const __m256i p01 = _mm256_blend_epi16(s[0], _mm256_slli_epi32(s[1], 16), 0xAA);
                const __m256i p23 = _mm256_blend_epi16(s[2], _mm256_slli_epi32(s[3], 16), 0xAA);
                _mm256_storeu_si256(reinterpret_cast<__m256i*>(lo + x),
                                    _mm256_add_epi32(_mm256_madd_epi16(p01, pair(kLo16[0], kLo16[1])),
                                                     _mm256_madd_epi16(p23, pair(kLo16[2], kLo16[3]))));
                if (want_hi)
                    _mm256_storeu_si256(reinterpret_cast<__m256i*>(hi + x),
                                        _mm256_add_epi32(_mm256_madd_epi16(p01, pair(kHi16[0], kHi16[1])),
                                                         _mm256_madd_epi16(p23, pair(kHi16[2], kHi16[3]))));
                continue;
            }
            _mm256_storeu_si256(reinterpret_cast<__m256i*>(lo + x), dwt_i4_8(s, kLo16, vround, vs));
            if (want_hi) _mm256_storeu_si256(reinterpret_cast<__m256i*>(hi + x), dwt_i4_8(s, kHi16, vround, vs));
        }
        for (; x < width; ++x) {
            int64_t l = vr, g = vr;
            for (int k = 0; k < 4; ++k) {
                l += int64_t{kLo16[k]} * r[k][x];
                g += int64_t{kHi16[k]} * r[k][x];
            }
            lo[x] = static_cast<int32_t>(static_cast<uint64_t>(l >> vs));
            hi[x] = static_cast<int32_t>(static_cast<uint64_t>(g >> vs));
        }
    }
    const RowColumns col(width, d0, d1);
    Row3<int32_t> outs[2] = {ref_out, dis_out};
    int32_t* as[2] = {ref_a, dis_a};
    for (int img = 0; img < 2; ++img) {
        const int32_t* lo = tmp + static_cast<size_t>(2 * img) * width;
        const int32_t* hi = lo + width;
        int32_t* const a = as[img];
        const Row3<int32_t> o = outs[img];   // h, v, d
        dwt123_horizontal(lo, a, nullptr, 1, col.i0, width, hr, hs);
        dwt123_horizontal(lo, a, o.p[1], col.i0, col.i1, width, hr, hs);
        dwt123_horizontal(lo, a, nullptr, col.i1, col.jend, width, hr, hs);
        dwt123_horizontal(hi, o.p[0], o.p[2], col.i0, col.i1, width, hr, hs);
        for (int c = 0; c < col.w; c = (c == 0 ? col.jend : c + 1)) {   // the edges
            a[c] = dwt_i4_column(lo, c, width, kLo16, hr, hs);
            if (c < d0 || c >= d1) continue;
            o.p[1][c] = dwt_i4_column(lo, c, width, kHi16, hr, hs);
            o.p[0][c] = dwt_i4_column(hi, c, width, kLo16, hr, hs);
            o.p[2][c] = dwt_i4_column(hi, c, width, kHi16, hr, hs);
        }
    }
}

// int64 to double, exact for |v| < 2^51 (the usual magic-number trick).
static inline __m256d exact_pd(__m256i v) {
    const __m256i magic = _mm256_set1_epi64x(0x4338000000000000);   // 2^52 + 2^51
    return _mm256_sub_pd(_mm256_castsi256_pd(_mm256_add_epi64(v, magic)), _mm256_set1_pd(6755399441055744.0));
}

// libvmaf's angle test of 4 elements from their 64-bit sums: (float)v is
// the exact double rounded once. Past 2^51 the lanes go to scalar code.
static inline __m256i angle123(__m256i ot, __m256i om, __m256i tm, __m256d c, bool& exact) {
    const __m256i lim = _mm256_set1_epi64x((int64_t{1} << 51) - 1);
    const __m256i big = _mm256_or_si256(_mm256_cmpgt_epi64(abs64(ot), lim),
                                        _mm256_or_si256(_mm256_cmpgt_epi64(om, lim), _mm256_cmpgt_epi64(tm, lim)));
    const __m256i neg = _mm256_or_si256(_mm256_cmpgt_epi64(_mm256_setzero_si256(), om),
                                        _mm256_cmpgt_epi64(_mm256_setzero_si256(), tm));   // wrapped sums
    exact = _mm256_testz_si256(_mm256_or_si256(big, neg), _mm256_or_si256(big, neg));
    const __m256d m = angle4(_mm256_cvtpd_ps(exact_pd(ot)), _mm256_cvtpd_ps(exact_pd(om)), _mm256_cvtpd_ps(exact_pd(tm)), c, false);
    return _mm256_castpd_si256(m);
}

#if !defined(__AVX512F__)   // (the AVX-512 build has decouple123_avx512)
// The same in scalar code, for lanes past 2^51.
static bool angle_scalar(int32_t oh, int32_t ov, int32_t th, int32_t tv, float c) {
    const int64_t ot = static_cast<int64_t>(static_cast<uint64_t>(int64_t{oh} * th) + static_cast<uint64_t>(int64_t{ov} * tv));
    const int64_t om = static_cast<int64_t>(static_cast<uint64_t>(int64_t{oh} * oh) + static_cast<uint64_t>(int64_t{ov} * ov));
    const int64_t tm = static_cast<int64_t>(static_cast<uint64_t>(int64_t{th} * th) + static_cast<uint64_t>(int64_t{tv} * tv));
    const double a = static_cast<double>(static_cast<float>(ot)) / 4096.0;
    if (!(a >= 0.0)) return false;
    const double o = static_cast<double>(static_cast<float>(om)) / 4096.0;
    const double t = static_cast<double>(static_cast<float>(tm)) / 4096.0;
    return a * a >= (static_cast<double>(c) * o) * t;
}

// 4 elements of one orientation at scales 1-3.
static inline void decouple123_orient(__m128i o32, __m128i t32, __m256i angle, bool round_first,
                                      const Scale123Consts& k, __m256d gain, int32_t* r_out, int32_t* a_out) {
    const __m256i zero = _mm256_setzero_si256();
    const __m256i o = _mm256_cvtepi32_epi64(o32), t = _mm256_cvtepi32_epi64(t32);
    const __m256i mag = _mm256_cvtepu32_epi64(_mm_abs_epi32(o32));   // |INT32_MIN| = 2^31
    // floor(log2(mag)) from the exponent of the (exact) double of mag.
    // (INT32_MIN converts to -2^31: the sign bit is masked off.)
    const __m256i e = _mm256_sub_epi64(
        _mm256_and_si256(_mm256_srli_epi64(_mm256_castpd_si256(_mm256_cvtepi32_pd(_mm_abs_epi32(o32))), 52),
                         _mm256_set1_epi64x(0x7FF)),
        _mm256_set1_epi64x(1023));
    const __m256i big = _mm256_cmpgt_epi64(mag, _mm256_set1_epi64x(32767));
    // libvmaf reduces |o| >= 2^15 to its 15 leading bits, rounded.
    const __m256i shift = _mm256_and_si256(big, _mm256_sub_epi64(e, _mm256_set1_epi64x(14)));
    const __m256i half = _mm256_srli_epi64(_mm256_sllv_epi64(_mm256_set1_epi64x(1), shift), 1);
    const __m256i idx = _mm256_blendv_epi8(mag, _mm256_srlv_epi64(_mm256_add_epi64(mag, half), shift), big);
    // The table's 2^30 / idx (idx in [1, 32768] where o != 0), computed as at scale 0.
    const __m128i idx32 = _mm_max_epi32(low32x4(idx), _mm_set1_epi32(1));
    const __m256i div = _mm256_cvtepi32_epi64(
        _mm256_cvttpd_epi32(_mm256_div_pd(_mm256_set1_pd(1073741824.0), _mm256_cvtepi32_pd(idx32))));
    __m256i prod = _mm256_mul_epi32(div, t);
    const __m256i oneg = _mm256_cmpgt_epi64(zero, o);
    prod = _mm256_sub_epi64(_mm256_xor_si256(prod, oneg), oneg);
    // 1 << (14 + shift) as a 32-bit int: 1 << 31 is INT32_MIN.
    const __m256i round = _mm256_cvtepi32_epi64(low32x4(_mm256_sllv_epi64(_mm256_set1_epi64x(1), _mm256_add_epi64(shift, _mm256_set1_epi64x(14)))));
    const __m256i v = _mm256_add_epi64(prod, round);
    const __m256i q15 = _mm256_set1_epi64x(32768);
    __m256i kk = _mm256_srlv_epi64(v, _mm256_add_epi64(shift, _mm256_set1_epi64x(15)));
    kk = _mm256_blendv_epi8(kk, q15, _mm256_cmpgt_epi64(kk, q15));
    kk = _mm256_andnot_si256(_mm256_cmpgt_epi64(zero, v), kk);          // negative: 0
    kk = _mm256_blendv_epi8(kk, q15, _mm256_cmpeq_epi64(o, zero));
    const __m256i rst64 = _mm256_srli_epi64(_mm256_add_epi64(_mm256_mul_epi32(kk, o), _mm256_set1_epi64x(16384)), 15);
    __m128i rst = low32x4(rst64);
    const __m256i kpos = _mm256_cmpgt_epi64(kk, zero);
    const __m256i pos = _mm256_and_si256(angle, _mm256_and_si256(kpos, _mm256_cmpgt_epi64(o, zero)));
    const __m256i neg = _mm256_and_si256(angle, _mm256_and_si256(kpos, oneg));
    const __m256i any = _mm256_or_si256(pos, neg);
    if (k.gain_int && !_mm256_testz_si256(any, any)) {
        // A whole gain: rst * gain exact in 64 bits, bounded by t (so within int32).
        const __m256i g = _mm256_mul_epi32(_mm256_cvtepi32_epi64(rst), _mm256_set1_epi64x(k.gain_int));
        const __m256i mn = _mm256_blendv_epi8(g, t, _mm256_cmpgt_epi64(g, t));
        const __m256i mx = _mm256_blendv_epi8(g, t, _mm256_cmpgt_epi64(t, g));
        rst = _mm_blendv_epi8(rst, low32x4(_mm256_blendv_epi8(mx, mn, pos)), low32x4(any));
    } else if (!_mm256_testz_si256(any, any)) {
        __m256d g = _mm256_mul_pd(_mm256_cvtepi32_pd(rst), gain);
        if (round_first) g = _mm256_round_pd(g, _MM_FROUND_TO_NEAREST_INT | _MM_FROUND_NO_EXC);
        const __m256d td = _mm256_cvtepi32_pd(t32);
        const __m128i mn = _mm256_cvttpd_epi32(_mm256_min_pd(g, td)), mx = _mm256_cvttpd_epi32(_mm256_max_pd(g, td));
        const __m128i p32 = low32x4(pos), a32 = low32x4(any);
        rst = _mm_blendv_epi8(rst, _mm_blendv_epi8(mx, mn, p32), a32);
    }
    _mm_storeu_si128(reinterpret_cast<__m128i*>(r_out), rst);
    _mm_storeu_si128(reinterpret_cast<__m128i*>(a_out), _mm_sub_epi32(t32, rst));
}

static void decouple123(Row3<const int32_t> ref, Row3<const int32_t> dis, Row3<int32_t> r, Row3<int32_t> a, int begin,
                        int end, bool round_first, const Scale123Consts& k) {
    const __m256d gain = _mm256_set1_pd(k.gain_limit);
    int j = begin;
    const __m256d c = _mm256_set1_pd(static_cast<double>(k.cos_1deg_sq));
    for (; j + 4 <= end; j += 4) {
        const __m256i oh = load4x32(ref.p[0] + j), ov = load4x32(ref.p[1] + j);
        const __m256i th = load4x32(dis.p[0] + j), tv = load4x32(dis.p[1] + j);
        const __m256i ot = _mm256_add_epi64(_mm256_mul_epi32(oh, th), _mm256_mul_epi32(ov, tv));
        const __m256i om = _mm256_add_epi64(_mm256_mul_epi32(oh, oh), _mm256_mul_epi32(ov, ov));
        const __m256i tm = _mm256_add_epi64(_mm256_mul_epi32(th, th), _mm256_mul_epi32(tv, tv));
        bool exact;
        __m256i angle = angle123(ot, om, tm, c, exact);
        if (!exact) {
            alignas(32) int64_t flags[4];
            for (int q = 0; q < 4; ++q)
                flags[q] = angle_scalar(ref.p[0][j + q], ref.p[1][j + q], dis.p[0][j + q], dis.p[1][j + q], k.cos_1deg_sq) ? -1 : 0;
            angle = _mm256_load_si256(reinterpret_cast<const __m256i*>(flags));
        }
        for (int t = 0; t < 3; ++t)
            decouple123_orient(_mm_loadu_si128(reinterpret_cast<const __m128i*>(ref.p[t] + j)),
                               _mm_loadu_si128(reinterpret_cast<const __m128i*>(dis.p[t] + j)), angle, round_first, k,
                               gain, r.p[t] + j, a.p[t] + j);
    }
    if (j < end) row_kernels_c().decouple123(ref, dis, r, a, j, end, round_first, k);
}
#endif

#if defined(__AVX512F__)
// rst of 8 lanes where the angle test passed (any), bounded by t as
// exact/arith.hpp's gain_bound: min(rst * gain, t) in the lanes of pos, max
// in the others.
static inline __m256i gain_bound8(__m256i rst, __m256i t32, __mmask8 pos, __mmask8 any, bool round_first,
                                  const Scale123Consts& k, __m512d gain) {
    if (k.gain_int) {
        // a whole gain: rst * gain exact in 64 bits, bounded by t (so within int32)
        const __m512i g = _mm512_mul_epi32(_mm512_cvtepi32_epi64(rst), _mm512_set1_epi64(k.gain_int));
        const __m512i t = _mm512_cvtepi32_epi64(t32);
        const __m512i bounded = _mm512_mask_blend_epi64(pos, _mm512_max_epi64(g, t), _mm512_min_epi64(g, t));
        return _mm256_mask_mov_epi32(rst, any, _mm512_cvtepi64_epi32(bounded));
    }
    __m512d g = _mm512_mul_pd(_mm512_cvtepi32_pd(rst), gain);
    if (round_first) g = _mm512_roundscale_pd(g, _MM_FROUND_TO_NEAREST_INT | _MM_FROUND_NO_EXC);
    const __m512d td = _mm512_cvtepi32_pd(t32);
    const __m256i mn = _mm512_cvttpd_epi32(_mm512_min_pd(g, td)), mx = _mm512_cvttpd_epi32(_mm512_max_pd(g, td));
    return _mm256_mask_mov_epi32(rst, any, _mm256_mask_blend_epi32(pos, mx, mn));
}

// decouple123_orient for 8 elements in 64-bit lanes (the 16-lane code's
// fallback for o = INT32_MIN).
static inline void decouple123_orient8(__m256i o32, __m256i t32, __mmask8 angle, bool round_first,
                                       const Scale123Consts& k, __m512d gain, int32_t* r_out, int32_t* a_out,
                                       __mmask8 lanes) {
    const __m512i zero = _mm512_setzero_si512(), one = _mm512_set1_epi64(1);
    const __m512i o = _mm512_cvtepi32_epi64(o32), t = _mm512_cvtepi32_epi64(t32);
    const __m512i mag = _mm512_cvtepu32_epi64(_mm256_abs_epi32(o32));  // |INT32_MIN| = 2^31
    // |o| >= 2^15 reduced to its 15 leading bits, rounded
    const __mmask8 big = _mm512_cmpgt_epi64_mask(mag, _mm512_set1_epi64(32767));
    const __m512i e = _mm512_sub_epi64(_mm512_set1_epi64(63), _mm512_lzcnt_epi64(mag));  // floor(log2(mag))
    const __m512i shift = _mm512_maskz_sub_epi64(big, e, _mm512_set1_epi64(14));
    const __m512i half = _mm512_srli_epi64(_mm512_sllv_epi64(one, shift), 1);
    const __m512i idx = _mm512_mask_srlv_epi64(mag, big, _mm512_add_epi64(mag, half), shift);
    // the table's 2^30 / idx (idx in [1, 32768] where o != 0)
    const __m256i idx32 = _mm256_max_epi32(_mm512_cvtepi64_epi32(idx), _mm256_set1_epi32(1));
    const __m512i div = _mm512_cvtepi32_epi64(_mm256_i32gather_epi32(k.div_lookup + 32768, idx32, 4));
    __m512i prod = _mm512_mul_epi32(div, t);
    const __mmask8 oneg = _mm512_cmpgt_epi64_mask(zero, o);
    prod = _mm512_mask_sub_epi64(prod, oneg, zero, prod);
    // 1 << (14 + shift) as a 32-bit int: 1 << 31 is INT32_MIN
    const __m512i round =
        _mm512_cvtepi32_epi64(_mm512_cvtepi64_epi32(_mm512_sllv_epi64(one, _mm512_add_epi64(shift, _mm512_set1_epi64(14)))));
    const __m512i v = _mm512_add_epi64(prod, round);
    const __m512i q15 = _mm512_set1_epi64(32768);
    __m512i kk = _mm512_min_epi64(_mm512_srlv_epi64(v, _mm512_add_epi64(shift, _mm512_set1_epi64(15))), q15);
    kk = _mm512_mask_mov_epi64(kk, _mm512_cmpgt_epi64_mask(zero, v), zero);  // negative: 0
    kk = _mm512_mask_mov_epi64(kk, _mm512_cmpeq_epi64_mask(o, zero), q15);
    __m256i rst = _mm512_cvtepi64_epi32(
        _mm512_srli_epi64(_mm512_add_epi64(_mm512_mul_epi32(kk, o), _mm512_set1_epi64(16384)), 15));
    const __mmask8 kpos = _mm512_cmpgt_epi64_mask(kk, zero);
    const __mmask8 pos = angle & kpos & _mm512_cmpgt_epi64_mask(o, zero);
    const __mmask8 any = pos | (angle & kpos & oneg);
    if (any) rst = gain_bound8(rst, t32, pos, any, round_first, k, gain);
    _mm256_mask_storeu_epi32(r_out, lanes, rst);
    _mm256_mask_storeu_epi32(a_out, lanes, _mm256_sub_epi32(t32, rst));
}

// The angle test of 8 columns at scales 1-3 from their h and v coefficients:
// the 64-bit sums (wrapping as libvmaf's), each to float rounded once, as
// (float) of an int64.
static inline __mmask8 angle123_8(__m256i oh32, __m256i ov32, __m256i th32, __m256i tv32, __m512d c) {
    const __m512i oh = _mm512_cvtepi32_epi64(oh32), ov = _mm512_cvtepi32_epi64(ov32);
    const __m512i th = _mm512_cvtepi32_epi64(th32), tv = _mm512_cvtepi32_epi64(tv32);
    const __m512i ot = _mm512_add_epi64(_mm512_mul_epi32(oh, th), _mm512_mul_epi32(ov, tv));
    const __m512i om = _mm512_add_epi64(_mm512_mul_epi32(oh, oh), _mm512_mul_epi32(ov, ov));
    const __m512i tm = _mm512_add_epi64(_mm512_mul_epi32(th, th), _mm512_mul_epi32(tv, tv));
    return angle8(_mm512_cvtepi64_ps(ot), _mm512_cvtepi64_ps(om), _mm512_cvtepi64_ps(tm), c, false);
}

// One orientation of 16 columns at scales 1-3 before the angle test: k in
// 32-bit lanes, rst, and which lanes the test may change (pos: rst > 0 and
// o > 0, neg: o < 0; both only where k > 0).
//
// k_scale123's k = (div * t * sign(o) + 2^(14+s)) >> (15+s), clamped to
// [0, 32768], with div = 2^30 / idx from the table, idx = |o| rounded to 15
// bits (s = 17 - lzcnt(|o|), at least 0; s <= 16 for |o| < 2^31). Where
// T = t sign(o) <= 0, k is 0. Where T > 0 it is taken at
// Tc = min(T, 2|o|): from 2|o| up, k is 32768 after the clamp (div * 2|o| >=
// 2^(30+s)). With Tc = Q 2^s + R (R < 2^s):
//   k = (div Q + 2^14 + ((div R) >> s)) >> 15,
// where div Q <= 2^31 (Q <= 2 idx), div R < 2^32 (div <= 2^16 where s > 0),
// and the sum stays below 2^32: unsigned 32-bit lanes hold every step.
// Then rst = (k o + 2^14) >> 15 = 2 k (o >> 16) + ((k (o & 0xffff) + 2^14) >> 15),
// each product within 32 bits, the sum wrapping as the reference's low32.
struct Orient123 {
    __m512i rst;
    __mmask16 pos, neg;
};
template <bool Div>
static inline Orient123 decouple123_k16(__m512i o, __m512i t, const Scale123Consts& k) {
    const __m512i zero = _mm512_setzero_si512(), one = _mm512_set1_epi32(1), q15 = _mm512_set1_epi32(32768);
    const __m512i mag = _mm512_abs_epi32(o);
    const __m512i s = _mm512_max_epi32(_mm512_sub_epi32(_mm512_set1_epi32(17), _mm512_lzcnt_epi32(mag)), zero);
    const __m512i pow = _mm512_sllv_epi32(one, s);
    const __m512i idx = _mm512_srlv_epi32(_mm512_add_epi32(mag, _mm512_srli_epi32(pow, 1)), s);
    const __m512i div = Div ? recip30_16<Div>(_mm512_max_epi32(idx, one), k.div_lookup + 32768)
                            : recip30_16_float(_mm512_max_epi32(idx, one), k.div_lookup + 32768);
    const __mmask16 tpos = _mm512_cmpge_epi32_mask(_mm512_xor_si512(t, o), zero) & _mm512_test_epi32_mask(t, t);
    const __m512i tc = _mm512_min_epu32(_mm512_abs_epi32(t), _mm512_add_epi32(mag, mag));
    const __m512i q = _mm512_srlv_epi32(tc, s);
    const __m512i r = _mm512_and_si512(tc, _mm512_sub_epi32(pow, one));
    const __m512i sum = _mm512_add_epi32(_mm512_add_epi32(_mm512_mullo_epi32(div, q), _mm512_set1_epi32(16384)),
                                         _mm512_srlv_epi32(_mm512_mullo_epi32(div, r), s));
    const __mmask16 ozero = _mm512_cmpeq_epi32_mask(o, zero);
    const __m512i kk = _mm512_mask_mov_epi32(_mm512_maskz_min_epu32(tpos, _mm512_srli_epi32(sum, 15), q15), ozero, q15);
    const __m512i hi = _mm512_slli_epi32(_mm512_mullo_epi32(kk, _mm512_srai_epi32(o, 16)), 1);
    const __m512i lo = _mm512_srli_epi32(
        _mm512_add_epi32(_mm512_mullo_epi32(kk, _mm512_and_si512(o, _mm512_set1_epi32(0xffff))), _mm512_set1_epi32(16384)), 15);
    // k > 0 and o != 0: tpos and not ozero (there k is 32768 and o is 0)
    const __mmask16 kpos = _mm512_mask_cmpgt_epi32_mask(tpos, kk, zero);
    return {_mm512_add_epi32(hi, lo), _mm512_mask_cmpgt_epi32_mask(kpos, o, zero), _mm512_mask_cmpgt_epi32_mask(kpos, zero, o)};
}

// decouple123 on 16 columns at a time in 32-bit lanes, the last block
// masked. The angle test (64-bit sums) is made only where it can change a
// value: with a gain of 1 only lanes whose rst lies past t.
template <bool Div>
static void decouple123_avx512(Row3<const int32_t> ref, Row3<const int32_t> dis, Row3<int32_t> r, Row3<int32_t> a,
                               int begin, int end, bool round_first, const Scale123Consts& k) {
    const __m512d gain = _mm512_set1_pd(k.gain_limit);
    const __m512d c = _mm512_set1_pd(static_cast<double>(k.cos_1deg_sq));
    const __m512i int_min = _mm512_set1_epi32(INT32_MIN);
    for (int j = begin; j < end; j += 16) {   // the last block masked
        const __mmask16 lanes = first_lanes(end - j).m;
        __m512i o[3], t[3];
        __mmask16 odd_o = 0;   // INT32_MIN somewhere: the 64-bit lanes' code
        for (int q = 0; q < 3; ++q) {
            o[q] = _mm512_maskz_loadu_epi32(lanes, ref.p[q] + j);
            t[q] = _mm512_maskz_loadu_epi32(lanes, dis.p[q] + j);
            odd_o |= _mm512_cmpeq_epi32_mask(o[q], int_min);
        }
        const auto angle_test = [&] {
            return static_cast<__mmask16>(angle123_8(lo256(o[0]), lo256(o[1]), lo256(t[0]), lo256(t[1]), c) |
                                          (angle123_8(hi256(o[0]), hi256(o[1]), hi256(t[0]), hi256(t[1]), c) << 8));
        };
        if (odd_o) {
            const __mmask16 angle = angle_test();
            for (int q = 0; q < 3; ++q)
                for (int h = 0; h < 2; ++h)
                    decouple123_orient8(h ? hi256(o[q]) : lo256(o[q]), h ? hi256(t[q]) : lo256(t[q]),
                                        static_cast<__mmask8>(angle >> (8 * h)), round_first, k, gain, r.p[q] + j + 8 * h,
                                        a.p[q] + j + 8 * h, static_cast<__mmask8>(lanes >> (8 * h)));
            continue;
        }
        Orient123 v[3];
        __mmask16 may_change = 0;
#pragma GCC unroll 3
        for (int q = 0; q < 3; ++q) {
            v[q] = decouple123_k16<Div>(o[q], t[q], k);
            if (k.gain_int == 1)   // min(rst, t) / max(rst, t) change only these
                may_change |= _mm512_mask_cmpgt_epi32_mask(v[q].pos, v[q].rst, t[q]) |
                              _mm512_mask_cmplt_epi32_mask(v[q].neg, v[q].rst, t[q]);
            else
                may_change |= v[q].pos | v[q].neg;
        }
        const __mmask16 angle = may_change & lanes ? angle_test() : 0;
#pragma GCC unroll 3
        for (int q = 0; q < 3; ++q) {
            __m512i rst = v[q].rst;
            const __mmask16 pos = angle & v[q].pos, any = pos | (angle & v[q].neg);
            if (any) {
                if (k.gain_int == 1) {
                    rst = _mm512_mask_mov_epi32(rst, any, _mm512_mask_blend_epi32(pos, _mm512_max_epi32(rst, t[q]),
                                                                                   _mm512_min_epi32(rst, t[q])));
                } else {
                    const __m256i lo = gain_bound8(lo256(rst), lo256(t[q]), static_cast<__mmask8>(pos),
                                                   static_cast<__mmask8>(any), round_first, k, gain);
                    const __m256i hi = gain_bound8(hi256(rst), hi256(t[q]), static_cast<__mmask8>(pos >> 8),
                                                   static_cast<__mmask8>(any >> 8), round_first, k, gain);
                    rst = join256(lo, hi);
                }
            }
            _mm512_mask_storeu_epi32(r.p[q] + j, lanes, rst);
            _mm512_mask_storeu_epi32(a.p[q] + j, lanes, _mm512_sub_epi32(t[q], rst));
        }
    }
}
#endif

#if defined(__AVX512F__)
// den123 on 16 columns at a time (8 even and 8 odd in 64-bit lanes), the
// last block masked.
static void den123_avx512(Row3<const int32_t> ref, int begin, int end, const Scale123Consts& k, uint64_t sums[3]) {
    const __m512i add_sq = _mm512_set1_epi64(int64_t{1} << k.den_shift_sq);
    const __m512i add_cub = _mm512_set1_epi64(static_cast<int64_t>(k.den_add_cub));
    const __m128i ssq = _mm_cvtsi32_si128(k.den_shift_sq), scub = _mm_cvtsi32_si128(k.den_shift_cub);
    // |v|^3 with the two rounding shifts, for the magnitudes in the low halves of m (vpmuludq reads no other bits)
    const auto term = [&](__m512i m, __mmask8 lanes) {
        const __m512i q = _mm512_srl_epi64(_mm512_add_epi64(_mm512_mul_epu32(m, m), add_sq), ssq);   // < 2^33
        const __m512i p = _mm512_add_epi64(_mm512_mul_epu32(q, m), _mm512_slli_epi64(_mm512_mul_epu32(_mm512_srli_epi64(q, 32), m), 32));
        return _mm512_maskz_srl_epi64(lanes, _mm512_add_epi64(p, add_cub), scub);
    };
    for (int t = 0; t < 3; ++t) {
        __m512i acc = _mm512_setzero_si512();
        for (int j = begin; j < end; j += 16) {
            const Lanes16 l = first_lanes(end - j);
            const __m512i mag = _mm512_abs_epi32(load16_as32(ref.p[t] + j, l));   // |INT32_MIN| read unsigned: 2^31
            acc = _mm512_add_epi64(acc, _mm512_add_epi64(term(mag, l.even),
                                                         term(_mm512_srli_epi64(mag, 32), l.odd)));
        }
        sums[t] += Vec512::sum64(acc);
    }
}
#else
static void den123(Row3<const int32_t> ref, int begin, int end, const Scale123Consts& k, uint64_t sums[3]) {
    const __m256i add_sq = _mm256_set1_epi64x(int64_t{1} << k.den_shift_sq);
    const __m256i add_cub = _mm256_set1_epi64x(static_cast<int64_t>(k.den_add_cub));
    const __m128i ssq = _mm_cvtsi32_si128(k.den_shift_sq), scub = _mm_cvtsi32_si128(k.den_shift_cub);
    int j = begin;
    for (int t = 0; t < 3; ++t) {
        __m256i acc = _mm256_setzero_si256();
        for (j = begin; j + 4 <= end; j += 4) {
            const __m256i m = _mm256_cvtepu32_epi64(_mm_abs_epi32(_mm_loadu_si128(reinterpret_cast<const __m128i*>(ref.p[t] + j))));
            const __m256i q = _mm256_srl_epi64(_mm256_add_epi64(_mm256_mul_epu32(m, m), add_sq), ssq);   // < 2^33
            const __m256i p = _mm256_add_epi64(_mm256_mul_epu32(q, m), _mm256_slli_epi64(_mm256_mul_epu32(_mm256_srli_epi64(q, 32), m), 32));
            acc = _mm256_add_epi64(acc, _mm256_srl_epi64(_mm256_add_epi64(p, add_cub), scub));
        }
        sums[t] += Vec256::sum64(acc);
    }
    if (j < end) row_kernels_c().den123(ref, j, end, k, sums);
}
#endif

// Low 32 bits of (s * rf + 2^27) >> 28 for 8 int32 s (bits 28..59 of the
// exact product: the logical shift gives them too).
static inline __m256i times_factor_low32(__m256i s, Factor f) {
    const __m256i mag = _mm256_abs_epi32(s);   // |INT32_MIN| read unsigned: 2^31
    const __m256i neg = _mm256_xor_si256(_mm256_srai_epi32(s, 31), f.sign);
    const __m256i ne = _mm256_shuffle_epi32(neg, 0xA0), no = _mm256_shuffle_epi32(neg, 0xF5);
    __m256i pe = _mm256_mul_epu32(mag, f.mag), po = _mm256_mul_epu32(_mm256_srli_epi64(mag, 32), f.mag);
    pe = _mm256_sub_epi64(_mm256_xor_si256(pe, ne), ne);
    po = _mm256_sub_epi64(_mm256_xor_si256(po, no), no);
    const __m256i r = _mm256_set1_epi64x(int64_t{1} << 27);
    return _mm256_blend_epi32(_mm256_srli_epi64(_mm256_add_epi64(pe, r), 28),
                              _mm256_slli_epi64(_mm256_srli_epi64(_mm256_add_epi64(po, r), 28), 32), 0xAA);
}

#if !defined(__AVX512F__)   // (the AVX-512 build has csf123_avx512)
static void csf123(const int32_t* src, int32_t* value, int32_t* filtered, int begin, int end, int64_t rf) {
    const Factor f = factor(rf);
    const __m256i by30 = _mm256_set1_epi64x(143165577), rnd = _mm256_set1_epi64x(-(int64_t{1} << 31));
    int j = begin;
    for (; j + 8 <= end; j += 8) {
        const __m256i v = times_factor_low32(load8x32(src + j), f);
        // (|v| * 2^32/30 - 2^31) >> 32: the high halves; |v| as libvmaf's abs (INT32_MIN stays).
        const __m256i m = _mm256_abs_epi32(v);
        const __m256i pe = _mm256_add_epi64(_mm256_mul_epi32(m, by30), rnd);
        const __m256i po = _mm256_add_epi64(_mm256_mul_epi32(_mm256_srli_epi64(m, 32), by30), rnd);
        _mm256_storeu_si256(reinterpret_cast<__m256i*>(value + j), v);
        _mm256_storeu_si256(reinterpret_cast<__m256i*>(filtered + j), _mm256_blend_epi32(_mm256_srli_epi64(pe, 32), po, 0xAA));
    }
    if (j < end) row_kernels_c().csf123(src, value, filtered, j, end, rf);
}
#endif

// Exact masking terms of 4 columns (64-bit lanes): x the csf'd coefficients,
// thr the thresholds, as each lane kind evaluates them.
static inline __m256i cm123_exact(__m256i x, __m256i thr, Lane lane, __m256i add_cub, int shift_cub, __m256i acc) {
    const __m256i zero = _mm256_setzero_si256(), add_sq = _mm256_set1_epi64x(int64_t{1} << 29);
    __m256i d, sq, p;
    if (lane == Lane::scalar) {   // 32-bit: |x| - thr, both as libvmaf's int32 values
        const __m128i d32 = _mm_max_epi32(_mm_sub_epi32(_mm_abs_epi32(low32x4(x)), low32x4(thr)), _mm_setzero_si128());
        d = _mm256_cvtepi32_epi64(d32);
        sq = _mm256_srli_epi64(_mm256_add_epi64(_mm256_mul_epi32(d, d), add_sq), 30);
        p = _mm256_add_epi64(_mm256_mul_epi32(sq, d), add_cub);
        return _mm256_add_epi64(acc, srai64(p, shift_cub));
    }
    // 64-bit lanes: AVX2 negates the low half, AVX-512 the whole value.
    __m256i ax;
    if (lane == Lane::avx2) {
        const __m256i neg = _mm256_cmpgt_epi64(zero, x);
        ax = _mm256_blendv_epi8(x, _mm256_sub_epi64(zero, _mm256_cvtepi32_epi64(low32x4(x))), neg);
    } else {
        ax = abs64(x);
    }
    d = _mm256_sub_epi64(ax, thr);
    d = _mm256_and_si256(d, _mm256_cmpgt_epi64(d, zero));
    sq = _mm256_add_epi64(_mm256_mul_epi32(d, d), add_sq);
    sq = lane == Lane::avx2 ? _mm256_srli_epi64(sq, 30) : srai64(sq, 30);
    p = _mm256_add_epi64(_mm256_mul_epi32(sq, d), add_cub);
    return _mm256_add_epi64(acc, lane == Lane::avx2 ? _mm256_srl_epi64(p, _mm_cvtsi32_si128(shift_cub)) : srai64(p, shift_cub));
}

static void cm123(Row3<const int32_t> csf, const Row3<const int32_t> flt[3], const int32_t* const flt_sums[3],
                  Row3<const int32_t> src, Row3<const int32_t> xs, int begin, int end, Lane lane, const Scale123Consts& k,
                  int64_t sums[3]) {
    const __m256i by15 = _mm256_set1_epi64x(286331153), rnd = _mm256_set1_epi64x(-(int64_t{1} << 31));
    const __m256i add_cub = _mm256_set1_epi64x(k.add_cub), add_sq = _mm256_set1_epi64x(int64_t{1} << 29);
    const Factor f[3] = {factor(k.rf[0]), factor(k.rf[1]), factor(k.rf[2])};
    const __m256i zero = _mm256_setzero_si256();
    __m256i acc[3] = {zero, zero, zero};
    // Column sums of the filtered values (csf123's: |filtered| < 2^26.1):
    // 9 of them fit int32 exactly.
    alignas(32) int32_t col[kChunk + 16];
    int j = begin;
    while (j + 8 <= end) {
        const int n = (end - j) / 8 * 8 < kChunk ? (end - j) / 8 * 8 : kChunk;
        col_sums8(flt_sums, j, 0, n + 2, col);
        for (int x = 0; x < n; x += 8, j += 8) {
            // The threshold exactly, in two 64-bit halves.
            const __m256i c0 = _mm256_loadu_si256(reinterpret_cast<const __m256i*>(col + x));
            const __m256i c1 = _mm256_loadu_si256(reinterpret_cast<const __m256i*>(col + x + 1));
            const __m256i c2 = _mm256_loadu_si256(reinterpret_cast<const __m256i*>(col + x + 2));
            const __m256i m1 = load8x32(flt_sums[1] + j);
            __m256i thr_h[2];
            for (int h = 0; h < 2; ++h) {
                auto half = [h](__m256i v) { return _mm256_cvtepi32_epi64(h ? _mm256_extracti128_si256(v, 1) : _mm256_castsi256_si128(v)); };
                __m256i t64 = _mm256_add_epi64(_mm256_add_epi64(half(c0), half(c2)), _mm256_sub_epi64(half(c1), half(m1)));
                for (int t = 0; t < 3; ++t) {
                    const __m256i c = _mm256_cvtepi32_epi64(_mm_abs_epi32(_mm_loadu_si128(reinterpret_cast<const __m128i*>(csf.p[t] + j + 4 * h))));
                    t64 = _mm256_add_epi64(t64, srai64(_mm256_add_epi64(_mm256_mul_epi32(c, by15), rnd), 32));
                }
                thr_h[h] = t64;
            }
            // Where every |s * rf| <= 2^57 (so |x| <= 2^29 + 1) and thr is in
            // [-64, 2^30 - 64), all lane kinds compute the same positive
            // 32-bit terms: eight at a time.
            const __m256i thr32 = _mm256_setr_m128i(low32x4(thr_h[0]), low32x4(thr_h[1]));
            const __m256i hi_ok = _mm256_and_si256(
                _mm256_cmpeq_epi64(_mm256_srli_epi64(_mm256_add_epi64(thr_h[0], _mm256_set1_epi64x(64)), 30), zero),
                _mm256_cmpeq_epi64(_mm256_srli_epi64(_mm256_add_epi64(thr_h[1], _mm256_set1_epi64x(64)), 30), zero));
            bool fast = _mm256_movemask_epi8(hi_ok) == -1;
            __m256i xs[3];
            for (int t = 0; t < 3 && fast; ++t) {
                const __m256i s8 = load8x32(src.p[t] + j);
                xs[t] = times_factor_low32(s8, f[t]);
                const __m256i mag = _mm256_abs_epi32(s8);
                const __m256i me = _mm256_mul_epu32(mag, f[t].mag), mo = _mm256_mul_epu32(_mm256_srli_epi64(mag, 32), f[t].mag);
                const __m256i lim = _mm256_set1_epi64x(int64_t{1} << 57);
                fast = _mm256_movemask_epi8(_mm256_or_si256(_mm256_cmpgt_epi64(me, lim), _mm256_cmpgt_epi64(mo, lim))) == 0;
            }
            if (fast) {
                for (int t = 0; t < 3; ++t)
                    acc[t] = cm_terms(xs[t], thr32, add_sq, 30, add_cub, k.shift_cub, true, acc[t]);   // all positive here
                continue;
            }
            for (int h = 0; h < 2; ++h)
                for (int t = 0; t < 3; ++t)
                    acc[t] = cm123_exact(times_factor(load4x32(src.p[t] + j + 4 * h), f[t]), thr_h[h], lane, add_cub, k.shift_cub, acc[t]);
        }
    }
    for (int t = 0; t < 3; ++t)
        sums[t] = static_cast<int64_t>(static_cast<uint64_t>(sums[t]) + Vec256::sum64(acc[t]));
    if (j < end) row_kernels_c().cm123(csf, flt, flt_sums, src, xs, j, end, lane, k, sums);
}

#if defined(__AVX512F__)
// Factor on 16 lanes: the magnitude in every 64-bit lane, the sign all
// ones in every 32-bit lane where it is negative.
struct Factor16 {
    __m512i mag, sign;
};
static inline Factor16 factor16(int64_t rf) {
    const uint64_t mag = static_cast<uint64_t>(rf < 0 ? -rf : rf);
    return {_mm512_set1_epi64(static_cast<int64_t>(mag)), _mm512_set1_epi32(rf < 0 ? -1 : 0)};
}

// times_factor_low32 for 16 columns.
static inline __m512i times_factor_low32_16(__m512i s, Factor16 f) {
    const __m512i mag = _mm512_abs_epi32(s);   // |INT32_MIN| read unsigned: 2^31
    const __m512i neg = _mm512_xor_si512(_mm512_srai_epi32(s, 31), f.sign);
    const __m512i ne = _mm512_shuffle_epi32(neg, _MM_PERM_CCAA), no = _mm512_shuffle_epi32(neg, _MM_PERM_DDBB);
    __m512i pe = _mm512_mul_epu32(mag, f.mag), po = _mm512_mul_epu32(_mm512_srli_epi64(mag, 32), f.mag);
    pe = _mm512_sub_epi64(_mm512_xor_si512(pe, ne), ne);
    po = _mm512_sub_epi64(_mm512_xor_si512(po, no), no);
    const __m512i r = _mm512_set1_epi64(int64_t{1} << 27);
    // bits 28..59 of each product: the even ones shifted down, the odd ones up
    return _mm512_mask_blend_epi32(0xAAAA, _mm512_srli_epi64(_mm512_add_epi64(pe, r), 28),
                                   _mm512_slli_epi64(_mm512_add_epi64(po, r), 4));
}

// (|v| * by - 2^31) >> 32 for 16 int32 v, by below 2^31 (libvmaf's Q32
// reciprocals of 15 and 30): the products' high halves. |v| is libvmaf's
// abs: INT32_MIN stays, and multiplies as a negative number.
static inline __m512i q32_times_abs16(__m512i v, int64_t by) {
    const __m512i k = _mm512_set1_epi64(by), rnd = _mm512_set1_epi64(-(int64_t{1} << 31));
    const __m512i a = _mm512_abs_epi32(v);
    const __m512i pe = _mm512_add_epi64(_mm512_mul_epi32(a, k), rnd);
    const __m512i po = _mm512_add_epi64(_mm512_mul_epi32(_mm512_srli_epi64(a, 32), k), rnd);
    return _mm512_mask_blend_epi32(0xAAAA, _mm512_srli_epi64(pe, 32), po);
}

// csf123 on 16 columns at a time, the last block masked.
static void csf123_avx512(const int32_t* src, int32_t* value, int32_t* filtered, int begin, int end, int64_t rf) {
    const Factor16 f = factor16(rf);
    for (int j = begin; j < end; j += 16) {
        const Lanes16 l = first_lanes(end - j);
        const __m512i v = times_factor_low32_16(load16_as32(src + j, l), f);
        _mm512_mask_storeu_epi32(value + j, l.m, v);
        _mm512_mask_storeu_epi32(filtered + j, l.m, q32_times_abs16(v, 143165577));   // 2^32 / 30
    }
}

// cm123 on 16 columns at a time (the last block masked), in 32-bit lanes
// where that is exact (as cm123's eight-column fast path, which every lane
// kind agrees on); blocks that fall outside it go to cm123.
//  - The threshold in int32: its 24 filtered values lie in
//    [-71582789, 71582788] and its three centre terms in
//    [-143165577, 143165576], so the true sum lies in [-2^31 - 19, 2^31):
//    where it wraps (only when nearly every value is at its extreme), the
//    wrapped value lies far outside the fast range [-64, 2^30 - 64).
//  - |s * rf| <= 2^57 as |s| <= floor(2^57 / |rf|), compared unsigned.
static void cm123_avx512(Row3<const int32_t> csf, const Row3<const int32_t> flt[3], const int32_t* const flt_sums[3],
                         Row3<const int32_t> src, Row3<const int32_t> xs, int begin, int end, Lane lane,
                         const Scale123Consts& k, int64_t sums[3]) {
    const __m512i add_cub = _mm512_set1_epi64(k.add_cub), add_sq = _mm512_set1_epi64(int64_t{1} << 29);
    Factor16 f[3];
    __m512i lim[3];
    for (int t = 0; t < 3; ++t) {
        f[t] = factor16(k.rf[t]);
        const uint64_t mag = static_cast<uint64_t>(k.rf[t] < 0 ? -k.rf[t] : k.rf[t]);
        const uint64_t l = mag == 0 ? 0xffffffffu : (uint64_t{1} << 57) / mag;
        lim[t] = _mm512_set1_epi32(static_cast<int32_t>(static_cast<uint32_t>(l > 0xffffffffu ? 0xffffffffu : l)));
    }
    const __m512i fast_top = _mm512_set1_epi32(1 << 30), bias64 = _mm512_set1_epi32(64);
    __m512i acc[3] = {_mm512_setzero_si512(), _mm512_setzero_si512(), _mm512_setzero_si512()};
    masking_blocks16(flt_sums, begin, end, [&](int jx, const Lanes16& l, __m512i thr) {
        for (int t = 0; t < 3; ++t)   // the centre terms
            thr = _mm512_add_epi32(thr, q32_times_abs16(load16_as32(csf.p[t] + jx, l), 286331153));   // 2^32 / 15
        __mmask16 fast = _mm512_mask_cmplt_epu32_mask(l.m, _mm512_add_epi32(thr, bias64), fast_top);
        __m512i s[3];
        for (int t = 0; t < 3; ++t) {
            s[t] = load16_as32(src.p[t] + jx, l);
            fast &= _mm512_cmple_epu32_mask(_mm512_abs_epi32(s[t]), lim[t]);
        }
        if (fast != l.m) {   // (l.m: the block's first lanes)
            cm123(csf, flt, flt_sums, src, xs, jx, jx + __builtin_popcount(l.m), lane, k, sums);
            return;
        }
        // (a CubeQueue as cm0_avx512's: 0.96-1.03x here, where more
        // coefficients exceed their thresholds)
        // the products: csf123's values of src where the caller has them
        // (the same low 32 bits of the same product; within the fast range
        // they are the whole product)
        for (int t = 0; t < 3; ++t)
            acc[t] = cm_terms16(xs.p[0] ? load16_as32(xs.p[t] + jx, l) : times_factor_low32_16(s[t], f[t]), thr, add_sq,
                                30, add_cub, k.shift_cub, true, acc[t], l);   // all positive here
    });
    for (int t = 0; t < 3; ++t)
        sums[t] = static_cast<int64_t>(static_cast<uint64_t>(sums[t]) + Vec512::sum64(acc[t]));
}
#endif

}  // namespace

#if !defined(SPEEDQA_ADM_ROW_KERNELS)
#define SPEEDQA_ADM_ROW_KERNELS row_kernels_avx2
#endif
#if defined(__AVX512F__)
// The two AVX-512 tables differ only in how the decouplings find 2^30 / o.
template <bool Div>
static const RowKernels* avx512_kernels() {
    static const RowKernels k{dwt0_8,  dwt0_16,           decouple0_avx512<Div>, den0,          csf0,
                              orient_sums0, cm0_avx512,   dwt123, decouple123_avx512<Div>, den123_avx512, csf123_avx512,
                              orient_sums123, cm123_avx512};
    return &k;
}
const RowKernels* row_kernels_avx512_div(bool divide) { return divide ? avx512_kernels<true>() : avx512_kernels<false>(); }

template <int Kind>
static void recip30_row(const int32_t* d, int n, const int32_t* d_table, int32_t* out) {
    for (int j = 0; j < n; j += 16) {
        const __mmask16 m = first_lanes(n - j).m;
        const __m512i v = _mm512_mask_loadu_epi32(_mm512_set1_epi32(1), m, d + j);
        const __m512i q = Kind == 2 ? recip30_16_float(v, d_table) : recip30_16<Kind == 1>(v, d_table);
        _mm512_mask_storeu_epi32(out + j, m, q);
    }
}
Recip30Row recip30_avx512(int kind) {
    return kind == 2 ? recip30_row<2> : kind == 1 ? recip30_row<1> : recip30_row<0>;
}
#endif
const RowKernels* SPEEDQA_ADM_ROW_KERNELS() {
#if defined(__AVX512F__)
    return row_kernels_avx512_div(detect_cpu_flags().slow_gather);
#else
    static const RowKernels k{dwt0_8, dwt0_16, decouple0,   den0,   csf0,   orient_sums0,   cm0,
                              dwt123, decouple123, den123, csf123, orient_sums123, cm123};
    return &k;
#endif
}

}  // namespace speedqa::adm
