// AVX2 variant of the motion kernel (built with -mavx2 -mfma -mbmi -mbmi2).
//
// Each 5-tap sum of the blur can exceed 32 bits (the reference sums in 64),
// but its three terms c0 (v0 + v4), c1 (v1 + v3) and c2 v2 each fit a signed
// int32. The rounded shift of their sum is taken exactly without 64 bits:
// floor((P1 + P2 + P3 + 2^(s-1)) / 2^s) is the sum of the terms' own floors
// (arithmetic shifts) plus the floor of their remainders' sum, rounded.
// The vertical pass works 8 columns at a time on the difference of the two
// frames; its row goes to a buffer with the mirrored columns beside it, and
// the horizontal pass reads it back 8 columns at a time.
//
// Up to 12 bits the differences and their pair sums fit int16, and the
// vertical pass runs 16 columns at a time by vpmaddwd. When a blurred row
// also fits int16 (any row of real video), the horizontal pass runs on it by
// vpmaddwd too: a load at position p holds the neighbours (p + 2m, p + 2m +
// 1) side by side, so three vpmaddwd take the 5 taps of 8 outputs of one
// parity, and their sum (below 2^31 in magnitude) is rounded directly.
#include <immintrin.h>

#include <algorithm>

#include "core/cpu_flags.hpp"
#include "features/motion/exact/motion_exact.hpp"
#include "features/motion/motion_kernels.hpp"

namespace speedqa::motion {
namespace {

namespace em = exact::motion;

constexpr int kPad = 8;  // row-buffer positions before column 0

// 8 samples of a row from column j as int32.
template <bool Bytes>
inline __m256i load8(const uint8_t* row, int j) {
    if constexpr (Bytes) return _mm256_cvtepu8_epi32(_mm_loadl_epi64(reinterpret_cast<const __m128i*>(row + j)));
    return _mm256_cvtepu16_epi32(_mm_loadu_si128(reinterpret_cast<const __m128i*>(row + 2 * j)));
}

// floor((c0 (v0 + v4) + c1 (v1 + v3) + c2 v2 + 2^(s-1)) / 2^s) for |v| < 2^17.
inline __m256i blur5(__m256i s04, __m256i s13, __m256i v2, __m128i shift, __m256i mask, __m256i half) {
    const __m256i p1 = _mm256_mullo_epi32(s13, _mm256_set1_epi32(em::tap(1)));
    const __m256i p2 = _mm256_mullo_epi32(v2, _mm256_set1_epi32(em::tap(2)));
    const __m256i p3 = _mm256_mullo_epi32(s04, _mm256_set1_epi32(em::tap(0)));
    const __m256i whole = _mm256_add_epi32(_mm256_add_epi32(_mm256_sra_epi32(p1, shift), _mm256_sra_epi32(p2, shift)),
                                           _mm256_sra_epi32(p3, shift));
    const __m256i rest = _mm256_add_epi32(
        _mm256_add_epi32(_mm256_and_si256(p1, mask), _mm256_and_si256(p2, mask)),
        _mm256_add_epi32(_mm256_and_si256(p3, mask), half));
    return _mm256_add_epi32(whole, _mm256_sra_epi32(rest, shift));
}

// The vertical pass of one row for samples of at most 12 bits as int16 in
// `y16` (saturated), and the OR of the magnitudes (a row with one of 2^15 or
// more is done again in 32 bits).
template <bool Bytes>
uint32_t vertical_narrow(const uint8_t* const* p, const uint8_t* const* c, int w, int bd, int16_t* y16) {
    const __m256i c01 = _mm256_set1_epi32((em::tap(1) << 16) | em::tap(0));
    const __m256i c2 = _mm256_set1_epi32(em::tap(2));
    const __m256i half = _mm256_set1_epi32(1 << (bd - 1));
    const __m128i shift = _mm_cvtsi32_si128(bd);
    const auto load16 = [](const uint8_t* row, int j) {
        if constexpr (Bytes) return _mm256_cvtepu8_epi16(_mm_loadu_si128(reinterpret_cast<const __m128i*>(row + j)));
        return _mm256_loadu_si256(reinterpret_cast<const __m256i*>(row + 2 * j));
    };
    __m256i mag = _mm256_setzero_si256();
    int j = 0;
    for (; j + 16 <= w; j += 16) {
        __m256i d[em::kTaps];
        for (int k = 0; k < em::kTaps; k++) d[k] = _mm256_sub_epi16(load16(p[k], j), load16(c[k], j));
        const __m256i s04 = _mm256_add_epi16(d[0], d[4]), s13 = _mm256_add_epi16(d[1], d[3]);
        const __m256i zero = _mm256_setzero_si256();
        // lanes of columns 0-3, 8-11 and 4-7, 12-15
        __m256i lo = _mm256_add_epi32(_mm256_madd_epi16(_mm256_unpacklo_epi16(s04, s13), c01),
                                      _mm256_madd_epi16(_mm256_unpacklo_epi16(d[2], zero), c2));
        __m256i hi = _mm256_add_epi32(_mm256_madd_epi16(_mm256_unpackhi_epi16(s04, s13), c01),
                                      _mm256_madd_epi16(_mm256_unpackhi_epi16(d[2], zero), c2));
        lo = _mm256_sra_epi32(_mm256_add_epi32(lo, half), shift);
        hi = _mm256_sra_epi32(_mm256_add_epi32(hi, half), shift);
        _mm256_storeu_si256(reinterpret_cast<__m256i*>(y16 + j), _mm256_packs_epi32(lo, hi));
        mag = _mm256_or_si256(mag, _mm256_or_si256(_mm256_abs_epi32(lo), _mm256_abs_epi32(hi)));
    }
    const __m128i m4 = _mm_or_si128(_mm256_castsi256_si128(mag), _mm256_extracti128_si256(mag, 1));
    const __m128i m2 = _mm_or_si128(m4, _mm_shuffle_epi32(m4, 0x4e));
    uint32_t m = static_cast<uint32_t>(_mm_cvtsi128_si32(_mm_or_si128(m2, _mm_shuffle_epi32(m2, 0xb1))));
    for (; j < w; j++) {
        const int32_t v = em::vertical_at(p, c, Bytes, j, bd);
        y16[j] = static_cast<int16_t>(std::clamp(v, -32768, 32767));
        m |= static_cast<uint32_t>(v < 0 ? -v : v);
    }
    return m;
}

// The horizontal pass of a row that fits int16: sum of |value|.
inline uint32_t horizontal_short(const int16_t* y16, int w) {
    const __m256i c01 = _mm256_set1_epi32((em::tap(1) << 16) | em::tap(0));
    const __m256i c23 = _mm256_set1_epi32((em::tap(3) << 16) | em::tap(2));
    const __m256i c4 = _mm256_set1_epi32(em::tap(4));
    const __m256i half = _mm256_set1_epi32(1 << 15), lane = _mm256_setr_epi32(0, 2, 4, 6, 8, 10, 12, 14);
    // |value| of the outputs j0 + e + 2m (m = 0..7): taps from position j0 + e - 2
    const auto block = [&](int j0, int e) {
        const int16_t* src = y16 + j0 + e - em::kRadius;
        const auto at = [&](int o) { return _mm256_loadu_si256(reinterpret_cast<const __m256i*>(src + o)); };
        const __m256i acc = _mm256_add_epi32(_mm256_add_epi32(_mm256_madd_epi16(at(0), c01), _mm256_madd_epi16(at(2), c23)),
                                             _mm256_madd_epi16(at(4), c4));
        return _mm256_abs_epi32(_mm256_srai_epi32(_mm256_add_epi32(acc, half), 16));
    };
    __m256i row = _mm256_setzero_si256();
    int j0 = 0;
    for (; j0 + 16 <= w; j0 += 16) row = _mm256_add_epi32(row, _mm256_add_epi32(block(j0, 0), block(j0, 1)));
    if (j0 < w)
        for (int e = 0; e < 2; e++)  // outputs past the row do not count
            row = _mm256_add_epi32(row, _mm256_and_si256(block(j0, e), _mm256_cmpgt_epi32(_mm256_set1_epi32(w - j0 - e), lane)));
    const __m128i r4 = _mm_add_epi32(_mm256_castsi256_si128(row), _mm256_extracti128_si256(row, 1));
    const __m128i r2 = _mm_add_epi32(r4, _mm_shuffle_epi32(r4, 0x4e));
    return static_cast<uint32_t>(_mm_cvtsi128_si32(_mm_add_epi32(r2, _mm_shuffle_epi32(r2, 0xb1))));
}

template <bool Bytes>
uint64_t sad_rows(const SadArgs& a) {
    const int bd = a.bitdepth, w = a.w;
    const __m128i vshift = _mm_cvtsi32_si128(bd), hshift = _mm_cvtsi32_si128(16);
    const __m256i vmask = _mm256_set1_epi32((1 << bd) - 1), vhalf = _mm256_set1_epi32(1 << (bd - 1));
    const __m256i hmask = _mm256_set1_epi32(0xffff), hhalf = _mm256_set1_epi32(1 << 15);
    int32_t* y = a.row + kPad;
    int16_t* y16 = reinterpret_cast<int16_t*>(a.row + row_len(w) / 2) + 2 * kPad;
    const bool narrow = bd <= 12;
    uint64_t sad = 0;
    for (int i = 0; i < a.h; i++) {
        const uint8_t *p[em::kTaps], *c[em::kTaps];
        for (int k = 0; k < em::kTaps; k++) {
            const int r = em::mirror(i - em::kRadius + k, a.h);
            p[k] = a.prev + a.prev_stride * r;
            c[k] = a.cur + a.cur_stride * r;
        }
        if (narrow && vertical_narrow<Bytes>(p, c, w, bd, y16) < 0x8000) {
            for (int q = 1; q <= em::kRadius; q++) {
                y16[-q] = y16[em::mirror(-q, w)];
                y16[w - 1 + q] = y16[em::mirror(w - 1 + q, w)];
            }
            sad += horizontal_short(y16, w);
            continue;
        }
        int j = 0;
        for (; j + 8 <= w; j += 8) {
            __m256i d[em::kTaps];
            for (int k = 0; k < em::kTaps; k++) d[k] = _mm256_sub_epi32(load8<Bytes>(p[k], j), load8<Bytes>(c[k], j));
            _mm256_storeu_si256(reinterpret_cast<__m256i*>(y + j),
                                blur5(_mm256_add_epi32(d[0], d[4]), _mm256_add_epi32(d[1], d[3]), d[2], vshift, vmask,
                                      vhalf));
        }
        for (; j < w; j++) y[j] = em::vertical_at(p, c, Bytes, j, bd);
        for (int q = 1; q <= em::kRadius; q++) {
            y[-q] = y[em::mirror(-q, w)];
            y[w - 1 + q] = y[em::mirror(w - 1 + q, w)];
        }
        // the reference sums a row in 32 bits (it cannot wrap: |value| < 2^16)
        __m256i row = _mm256_setzero_si256();
        j = 0;
        for (; j + 8 <= w; j += 8) {
            const auto at = [&](int o) { return _mm256_loadu_si256(reinterpret_cast<const __m256i*>(y + j + o)); };
            const __m256i v = blur5(_mm256_add_epi32(at(-2), at(2)), _mm256_add_epi32(at(-1), at(1)), at(0), hshift,
                                    hmask, hhalf);
            row = _mm256_add_epi32(row, _mm256_abs_epi32(v));
        }
        const __m128i r4 = _mm_add_epi32(_mm256_castsi256_si128(row), _mm256_extracti128_si256(row, 1));
        const __m128i r2 = _mm_add_epi32(r4, _mm_shuffle_epi32(r4, 0x4e));
        uint32_t row_sad = static_cast<uint32_t>(_mm_cvtsi128_si32(_mm_add_epi32(r2, _mm_shuffle_epi32(r2, 0xb1))));
        for (; j < w; j++) {
            int64_t acc = 0;
            for (int k = 0; k < em::kTaps; k++) acc += int64_t{em::tap(k)} * y[j - em::kRadius + k];
            const int32_t v = em::horizontal_round(acc);
            row_sad += static_cast<uint32_t>(v < 0 ? -v : v);
        }
        sad += row_sad;
    }
    return sad;
}

uint64_t sad_avx2(const SadArgs& a) { return a.bitdepth == 8 ? sad_rows<true>(a) : sad_rows<false>(a); }

constexpr Kernels kAvx2{"avx2", sad_avx2};

}  // namespace

const Kernels* kernels_avx2() { return detect_cpu_flags().avx2 ? &kAvx2 : nullptr; }

}  // namespace speedqa::motion
