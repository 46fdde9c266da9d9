// AVX2 variants of CAMBI's kernels (built with -mavx2; picked at run time).
// Everything here has internal linkage and uses no standard-library template:
// the linker must find no code of this file that other files could share.
//
// cambi_kernels_avx512.cpp builds this same file with the AVX-512 flags as
// kernels_avx512(): the row passes over the picture at CAMBI's size (the
// conversion, the anti-dithering, the mask, the decimation) and the mode
// filter and levels run 512-bit loops there (under __AVX512BW__), with the
// 256-bit ones after them for what is left of a row; the banding pass is
// the same code.
#include <immintrin.h>

#include <cstring>

#include "core/cpu_flags.hpp"
#include "core/x86/vec.hpp"
#include "features/cambi/exact/arith.hpp"
#include "features/cambi/kernels.hpp"

namespace speedqa::cambi {
namespace {

inline __m256i load256(const void* p) { return _mm256_loadu_si256(static_cast<const __m256i*>(p)); }
inline __m128i load128(const void* p) { return _mm_loadu_si128(static_cast<const __m128i*>(p)); }
inline void store256(void* p, __m256i v) { _mm256_storeu_si256(static_cast<__m256i*>(p), v); }
inline void store128(void* p, __m128i v) { _mm_storeu_si128(static_cast<__m128i*>(p), v); }
inline unsigned umax(unsigned a, unsigned b) { return a > b ? a : b; }
#if defined(__AVX512BW__)
inline __m512i load512(const void* p) { return _mm512_loadu_si512(p); }
inline void store512(void* p, __m512i v) { _mm512_storeu_si512(p, v); }
inline __m256i max_halves_epu16(__m512i v) {
    return _mm256_max_epu16(_mm512_castsi512_si256(v), _mm512_extracti64x4_epi64(v, 1));
}
#endif

unsigned hmax_epu16(__m256i v) {
    __m128i m = _mm_max_epu16(_mm256_castsi256_si128(v), _mm256_extracti128_si256(v, 1));
    m = _mm_max_epu16(m, _mm_srli_si128(m, 8));
    m = _mm_max_epu16(m, _mm_srli_si128(m, 4));
    m = _mm_max_epu16(m, _mm_srli_si128(m, 2));
    return static_cast<unsigned>(_mm_extract_epi16(m, 0));
}

// The first pass over the picture: it asks for its lines a page ahead
// (prefetch_page_ahead; CAMBI at 4K 1.02-1.04x, values cannot change).
unsigned convert_row_avx2(uint16_t* dst, const uint8_t* src, int n, int bitdepth) {
    int j = 0;
    __m256i largest = _mm256_setzero_si256();
    if (bitdepth <= 8) {
        const __m128i up = _mm_cvtsi32_si128(10 - bitdepth);
#if defined(__AVX512BW__)
        __m512i top512 = _mm512_setzero_si512();
        for (; j + 32 <= n; j += 32) {
            if ((j & 63) == 0) prefetch_page_ahead(src + j);
            const __m512i s = _mm512_cvtepu8_epi16(load256(src + j));
            top512 = _mm512_max_epu16(top512, s);
            store512(dst + j, _mm512_sll_epi16(s, up));
        }
        largest = max_halves_epu16(top512);
#endif
        for (; j + 16 <= n; j += 16) {
            if ((j & 63) == 0) prefetch_page_ahead(src + j);
            const __m256i s = _mm256_cvtepu8_epi16(load128(src + j));
            largest = _mm256_max_epu16(largest, s);
            store256(dst + j, _mm256_sll_epi16(s, up));
        }
    } else if (bitdepth < 10) {
        const __m128i up = _mm_cvtsi32_si128(10 - bitdepth);
#if defined(__AVX512BW__)
        __m512i top512 = _mm512_setzero_si512();
        for (; j + 32 <= n; j += 32) {
            prefetch_page_ahead(src + 2 * j);
            const __m512i s = load512(src + 2 * j);
            top512 = _mm512_max_epu16(top512, s);
            store512(dst + j, _mm512_sll_epi16(s, up));
        }
        largest = max_halves_epu16(top512);
#endif
        for (; j + 16 <= n; j += 16) {
            if ((j & 31) == 0) prefetch_page_ahead(src + 2 * j);
            const __m256i s = load256(src + 2 * j);
            largest = _mm256_max_epu16(largest, s);
            store256(dst + j, _mm256_sll_epi16(s, up));
        }
    } else {
        // (s + half) >> shift without overflow: (s >> shift) plus bit
        // shift - 1 of s.
        const int shift = bitdepth - 10;
        const __m128i down = _mm_cvtsi32_si128(shift), half = _mm_cvtsi32_si128(shift > 0 ? shift - 1 : 0);
        const __m256i one = _mm256_set1_epi16(shift > 0 ? 1 : 0);
#if defined(__AVX512BW__)
        __m512i top512 = _mm512_setzero_si512();
        const __m512i one512 = _mm512_set1_epi16(shift > 0 ? 1 : 0);
        for (; j + 32 <= n; j += 32) {
            prefetch_page_ahead(src + 2 * j);
            const __m512i s = load512(src + 2 * j);
            top512 = _mm512_max_epu16(top512, s);
            const __m512i round = _mm512_and_si512(_mm512_srl_epi16(s, half), one512);
            store512(dst + j, _mm512_add_epi16(_mm512_srl_epi16(s, down), round));
        }
        largest = max_halves_epu16(top512);
#endif
        for (; j + 16 <= n; j += 16) {
            if ((j & 31) == 0) prefetch_page_ahead(src + 2 * j);
            const __m256i s = load256(src + 2 * j);
            largest = _mm256_max_epu16(largest, s);
            const __m256i round = _mm256_and_si256(_mm256_srl_epi16(s, half), one);
            store256(dst + j, _mm256_add_epi16(_mm256_srl_epi16(s, down), round));
        }
    }
    unsigned top = hmax_epu16(largest);
    for (; j < n; j++) {
        const unsigned s = bitdepth > 8 ? static_cast<unsigned>(src[2 * j] | src[2 * j + 1] << 8) : src[j];
        top = umax(top, s);
        dst[j] = to_10bit(s, bitdepth);
    }
    return top;
}

void antidither_row_avx2(uint16_t* a, const uint16_t* b, int n) {
    int j = 0;
    // Each block reads a[j + 16] (a[j + 32]) before the next block replaces it.
#if defined(__AVX512BW__)
    for (; j + 33 <= n; j += 32) {
        const __m512i s = _mm512_add_epi16(_mm512_add_epi16(load512(a + j), load512(a + j + 1)),
                                           _mm512_add_epi16(load512(b + j), load512(b + j + 1)));
        store512(a + j, _mm512_srli_epi16(s, 2));
    }
#endif
    for (; j + 17 <= n; j += 16) {
        const __m256i s = _mm256_add_epi16(_mm256_add_epi16(load256(a + j), load256(a + j + 1)),
                                           _mm256_add_epi16(load256(b + j), load256(b + j + 1)));
        store256(a + j, _mm256_srli_epi16(s, 2));
    }
    for (; j < n - 1; j++) a[j] = static_cast<uint16_t>((a[j] + a[j + 1] + b[j] + b[j + 1]) >> 2);
    a[n - 1] = static_cast<uint16_t>((a[n - 1] + b[n - 1]) >> 1);
}

void antidither_last_row_avx2(uint16_t* a, int n) {
    int j = 0;
#if defined(__AVX512BW__)
    for (; j + 33 <= n; j += 32) store512(a + j, _mm512_srli_epi16(_mm512_add_epi16(load512(a + j), load512(a + j + 1)), 1));
#endif
    for (; j + 17 <= n; j += 16) store256(a + j, _mm256_srli_epi16(_mm256_add_epi16(load256(a + j), load256(a + j + 1)), 1));
    for (; j < n - 1; j++) a[j] = static_cast<uint16_t>((a[j] + a[j + 1]) >> 1);
}

// Zero-derivative flags (0/1 bytes) of a row; below == nullptr on the last row.
void derivative_row(uint8_t* dst, const uint16_t* row, const uint16_t* below, int n) {
    const __m256i one = _mm256_set1_epi8(1);
    int j = 0;
#if defined(__AVX512BW__)
    for (; j + 65 <= n; j += 64) {
        const __m512i x0 = load512(row + j), x1 = load512(row + j + 32);
        __mmask32 e0 = _mm512_cmpeq_epi16_mask(x0, load512(row + j + 1));
        __mmask32 e1 = _mm512_cmpeq_epi16_mask(x1, load512(row + j + 33));
        if (below) {
            e0 &= _mm512_cmpeq_epi16_mask(x0, load512(below + j));
            e1 &= _mm512_cmpeq_epi16_mask(x1, load512(below + j + 32));
        }
        store512(dst + j, _mm512_maskz_mov_epi8(_mm512_kunpackd(e1, e0), _mm512_set1_epi8(1)));
    }
#endif
    for (; j + 33 <= n; j += 32) {
        __m256i e0 = _mm256_cmpeq_epi16(load256(row + j), load256(row + j + 1));
        __m256i e1 = _mm256_cmpeq_epi16(load256(row + j + 16), load256(row + j + 17));
        if (below) {
            e0 = _mm256_and_si256(e0, _mm256_cmpeq_epi16(load256(row + j), load256(below + j)));
            e1 = _mm256_and_si256(e1, _mm256_cmpeq_epi16(load256(row + j + 16), load256(below + j + 16)));
        }
        const __m256i bytes = _mm256_permute4x64_epi64(_mm256_packs_epi16(e0, e1), 0xd8);
        store256(dst + j, _mm256_and_si256(bytes, one));
    }
    for (; j < n; j++) {
        const bool right = j == n - 1 || row[j] == row[j + 1];
        const bool down = below == nullptr || row[j] == below[j];
        dst[j] = right && down;
    }
}

// The spatial mask a row at a time (kernels.hpp): the flags' column sums
// (with kMaskPad zero bytes on each side) and a horizontal 7-sum of them.

// A row of flags into the column sums (Add) or out of them.
template <bool Add>
void column_sums(uint8_t* column, const uint8_t* flags, int w) {
    int j = 0;
#if defined(__AVX512BW__)
    for (; j + 64 <= w; j += 64) {
        const __m512i c = load512(column + j), f = load512(flags + j);
        store512(column + j, Add ? _mm512_add_epi8(c, f) : _mm512_sub_epi8(c, f));
    }
#endif
    for (; j + 32 <= w; j += 32) {
        const __m256i c = load256(column + j), f = load256(flags + j);
        store256(column + j, Add ? _mm256_add_epi8(c, f) : _mm256_sub_epi8(c, f));
    }
    for (; j < w; j++) column[j] = static_cast<uint8_t>(Add ? column[j] + flags[j] : column[j] - flags[j]);
}

void mask_add_row_avx2(uint8_t* scratch, const uint16_t* row, const uint16_t* below, int w, int r) {
    uint8_t* flags = mask_flags(scratch, w, r);
    derivative_row(flags, row, below, w);
    column_sums<true>(mask_column_sums(scratch), flags, w);
}

void mask_row_avx2(uint8_t* out, uint8_t* scratch, int w, int r, int threshold) {
    uint8_t* column = mask_column_sums(scratch);
    // sum > threshold  <=>  max(sum, threshold + 1) == sum (sums are at most 49)
    const __m256i above = _mm256_set1_epi8(static_cast<char>(threshold + 1 > 255 ? 255 : threshold + 1));
    const __m256i one = _mm256_set1_epi8(1);
    int j = out ? 0 : w;   // (no row wanted: only the sums move on)
#if defined(__AVX512BW__)
    const __m512i thr = _mm512_set1_epi8(static_cast<char>(threshold > 255 ? 255 : threshold));
    for (; j + 64 + kMaskPad <= w; j += 64) {
        __m512i s = load512(column + j - kMaskPad);
        for (int d = 1 - kMaskPad; d <= kMaskPad; d++) s = _mm512_add_epi8(s, load512(column + j + d));
        store512(out + j, _mm512_maskz_mov_epi8(_mm512_cmpgt_epu8_mask(s, thr), _mm512_set1_epi8(1)));
    }
#endif
    for (; j + 32 + kMaskPad <= w; j += 32) {
        __m256i s = load256(column + j - kMaskPad);
        for (int d = 1 - kMaskPad; d <= kMaskPad; d++) s = _mm256_add_epi8(s, load256(column + j + d));
        const __m256i in = _mm256_cmpeq_epi8(_mm256_max_epu8(s, above), s);
        store256(out + j, _mm256_and_si256(in, one));
    }
    for (; j < w; j++) {
        int s = 0;
        for (int d = -kMaskPad; d <= kMaskPad; d++)
            if (j + d < w) s += column[j + d];
        out[j] = s > threshold;
    }
    if (r - kMaskPad >= 0) column_sums<false>(column, mask_flags(scratch, w, r - kMaskPad), w);
}

void decimate_row_avx2(uint16_t* dst, uint8_t* dst_mask, const uint16_t* src, const uint8_t* src_mask, int n) {
    const __m256i low16 = _mm256_set1_epi32(0xffff), low8 = _mm256_set1_epi16(0xff);
    // Reads stay ahead of writes (dst <= src, 2j >= j): in place is safe.
    int j = 0;
#if defined(__AVX512BW__)
    // the even elements: the low halves of pairs (vpmovdw, vpmovwb)
    for (; j + 16 <= n; j += 16) _mm256_storeu_si256(reinterpret_cast<__m256i*>(dst + j), _mm512_cvtepi32_epi16(load512(src + 2 * j)));
#endif
    for (; j + 16 <= n; j += 16) {
        const __m256i a = _mm256_and_si256(load256(src + 2 * j), low16);
        const __m256i b = _mm256_and_si256(load256(src + 2 * j + 16), low16);
        store256(dst + j, _mm256_permute4x64_epi64(_mm256_packus_epi32(a, b), 0xd8));
    }
    for (; j < n; j++) dst[j] = src[2 * j];
    j = 0;
#if defined(__AVX512BW__)
    for (; j + 32 <= n; j += 32) _mm256_storeu_si256(reinterpret_cast<__m256i*>(dst_mask + j), _mm512_cvtepi16_epi8(load512(src_mask + 2 * j)));
#endif
    for (; j + 32 <= n; j += 32) {
        const __m256i a = _mm256_and_si256(load256(src_mask + 2 * j), low8);
        const __m256i b = _mm256_and_si256(load256(src_mask + 2 * j + 32), low8);
        store256(dst_mask + j, _mm256_permute4x64_epi64(_mm256_packus_epi16(a, b), 0xd8));
    }
    for (; j < n; j++) dst_mask[j] = src_mask[2 * j];
}

inline __m256i mode3_v(__m256i a, __m256i b, __m256i c) {
    const __m256i a_twice = _mm256_or_si256(_mm256_cmpeq_epi16(a, b), _mm256_cmpeq_epi16(a, c));
    const __m256i b_twice = _mm256_cmpeq_epi16(b, c);
    const __m256i smallest = _mm256_min_epu16(_mm256_min_epu16(a, b), c);
    return _mm256_blendv_epi8(_mm256_blendv_epi8(smallest, b, b_twice), a, a_twice);
}
#if defined(__AVX512BW__)
inline __m512i mode3_v(__m512i a, __m512i b, __m512i c) {
    const __mmask32 a_twice = _mm512_cmpeq_epi16_mask(a, b) | _mm512_cmpeq_epi16_mask(a, c);
    const __mmask32 b_twice = _mm512_cmpeq_epi16_mask(b, c);
    const __m512i smallest = _mm512_min_epu16(_mm512_min_epu16(a, b), c);
    return _mm512_mask_blend_epi16(a_twice, _mm512_mask_blend_epi16(b_twice, smallest, b), a);
}
#endif

// Row m of the scale is final: its levels, and its share of the next scale.
void finish_row(const ScaleArgs& a, int m) {
    const Levels& l = *a.levels;
    const uint16_t* img = a.image + m * a.stride;
    const uint8_t* msk = a.mask + m * a.stride;
    uint16_t* lv = a.level_out + m * a.width;
    const __m256i base = _mm256_set1_epi16(static_cast<short>(l.band_base));
    const __m256i last = _mm256_set1_epi16(static_cast<short>(l.band_size - 1));
    const __m256i margin = _mm256_set1_epi16(static_cast<short>(l.margin));
    const __m256i uncounted = _mm256_set1_epi16(static_cast<short>(l.uncounted));
    int c = 0;
#if defined(__AVX512BW__)
    if (l.band_size > 0)
        for (; c + 32 <= a.width; c += 32) {
            const __m512i x = _mm512_sub_epi16(load512(img + c), _mm512_set1_epi16(static_cast<short>(l.band_base)));
            const __mmask32 in_band = _mm512_cmple_epu16_mask(x, _mm512_set1_epi16(static_cast<short>(l.band_size - 1)));
            const __m256i mk = load256(msk + c);
            const __mmask32 counted = in_band & _mm256_test_epi8_mask(mk, mk);
            store512(lv + c, _mm512_mask_blend_epi16(counted, _mm512_set1_epi16(static_cast<short>(l.uncounted)),
                                                     _mm512_add_epi16(x, _mm512_set1_epi16(static_cast<short>(l.margin)))));
        }
#endif
    if (l.band_size > 0)
        for (; c + 16 <= a.width; c += 16) {
            const __m256i x = _mm256_sub_epi16(load256(img + c), base);
            const __m256i in_band = _mm256_cmpeq_epi16(_mm256_min_epu16(x, last), x);
            const __m256i masked = _mm256_cmpgt_epi16(_mm256_cvtepu8_epi16(load128(msk + c)), _mm256_setzero_si256());
            store256(lv + c, _mm256_blendv_epi8(uncounted, _mm256_add_epi16(x, margin), _mm256_and_si256(in_band, masked)));
        }
    for (; c < a.width; c++) {
        const unsigned x = static_cast<unsigned>(img[c] - l.band_base);
        lv[c] = static_cast<uint16_t>(msk[c] && x < static_cast<unsigned>(l.band_size) ? x + l.margin : l.uncounted);
    }
    if (!a.decimate || m % 2) return;
    // in place on row 0 (m = 0)
    decimate_row_avx2(a.image + (m / 2) * a.stride, a.mask + (m / 2) * a.stride, img, msk, (a.width + 1) / 2);
}

void filter_scale_avx2(const ScaleArgs& a, int from, int to) {
    const int w = a.width, h = a.height;
    uint16_t* const ring = a.scratch;
    for (int i = from; i < to; i++) {
        const uint16_t* in = a.image + i * a.stride;
        uint16_t* filtered = ring + (i % 3) * w;
        filtered[0] = in[0];
        int j = 1;
#if defined(__AVX512BW__)
        // (the next row's lines asked for at the columns reached: the rows
        // come from memory, and a row's stream starts late at each page)
        const uint16_t* next = i + 1 < h ? in + a.stride : in;
        for (; j + 33 <= w; j += 32) {
            _mm_prefetch(reinterpret_cast<const char*>(next + j), _MM_HINT_T0);
            store512(filtered + j, mode3_v(load512(in + j - 1), load512(in + j), load512(in + j + 1)));
        }
#endif
        for (; j + 17 <= w; j += 16) store256(filtered + j, mode3_v(load256(in + j - 1), load256(in + j), load256(in + j + 1)));
        for (; j < w - 1; j++) filtered[j] = mode3(in[j - 1], in[j], in[j + 1]);
        filtered[w - 1] = in[w - 1];
        if (i >= 2) {
            uint16_t* out = a.image + (i - 1) * a.stride;
            j = 0;
#if defined(__AVX512BW__)
            for (; j + 32 <= w; j += 32)
                store512(out + j, mode3_v(load512(ring + j), load512(ring + w + j), load512(ring + 2 * w + j)));
#endif
            for (; j + 16 <= w; j += 16)
                store256(out + j, mode3_v(load256(ring + j), load256(ring + w + j), load256(ring + 2 * w + j)));
            for (; j < w; j++) out[j] = mode3(ring[j], ring[w + j], ring[2 * w + j]);
            finish_row(a, i - 1);
        }
        if (i == 0) finish_row(a, 0);
    }
    if (to == h && h >= 2) finish_row(a, h - 1);
}

// ---- banding values -----------------------------------------------------
//
// The counts are kept per level: row u of `columns` holds, for every column
// of the picture (from -pad - 1, an empty one, to width + pad), how many
// pixels of level u the rows of the window have there. The window count of
// level u at column c is then a sum of 2 pad + 1 neighbouring bytes of row u,
// and those of 16 neighbouring columns follow from one of them by a prefix
// sum of the bytes entering and leaving: a block of 16 pixels gets the counts
// of every level it needs at once.

// Levels are rows of `len` bytes; column x of the picture is at x + pad + 1.
struct LevelRows {
    uint8_t* base;
    ptrdiff_t len;
    int pad;
    uint8_t* row(int level) const { return base + level * len; }
    uint8_t* at(int level, int c) const { return base + level * len + c + pad + 1; }
};

// Moves the window of rows down to row r: adds picture row r + pad, removes
// row r - pad - 1, skipping the columns where both have the same level. The
// uncounted level's counts are never read: its updates go to one spare byte
// past the counts (`spare`), out of the way.
void slide_columns(const BandingArgs& a, const LevelRows& rows, ptrdiff_t spare, int r) {
    const int w = a.width;
    const uint16_t* in = r + a.pad < a.height ? a.levels + (r + a.pad) * w : nullptr;
    const uint16_t* out = r - a.pad - 1 >= 0 ? a.levels + (r - a.pad - 1) * w : nullptr;
    if (!in && !out) return;
    const uint16_t none = static_cast<uint16_t>(a.plan->levels.uncounted);
    const __m256i none16 = _mm256_set1_epi16(static_cast<short>(none));
    const __m256i none32 = _mm256_set1_epi32(none), spare32 = _mm256_set1_epi32(static_cast<int>(spare));
    const __m256i len = _mm256_set1_epi32(static_cast<int>(rows.len));
    const __m256i lane = _mm256_setr_epi32(0, 1, 2, 3, 4, 5, 6, 7);
    // Byte offsets of (level, column c + lane) for 16 columns.
    auto offsets = [&](__m256i levels, int c, int32_t* dst) {
        for (int half = 0; half < 2; half++) {
            const __m256i l32 = _mm256_cvtepu16_epi32(half ? _mm256_extracti128_si256(levels, 1) : _mm256_castsi256_si128(levels));
            const __m256i col = _mm256_add_epi32(lane, _mm256_set1_epi32(c + 8 * half + a.pad + 1));
            const __m256i at = _mm256_add_epi32(_mm256_mullo_epi32(l32, len), col);
            _mm256_store_si256(reinterpret_cast<__m256i*>(dst + 8 * half),
                               _mm256_blendv_epi8(at, spare32, _mm256_cmpeq_epi32(l32, none32)));
        }
    };
    alignas(32) int32_t at_in[16], at_out[16];
    int c = 0;
    for (; c + 16 <= w; c += 16) {
        const __m256i vi = in ? load256(in + c) : none16;
        const __m256i vo = out ? load256(out + c) : none16;
        unsigned changed = ~static_cast<unsigned>(_mm256_movemask_epi8(_mm256_cmpeq_epi16(vi, vo))) & 0x55555555u;
        if (!changed) continue;
        offsets(vi, c, at_in);
        offsets(vo, c, at_out);
        for (; changed; changed &= changed - 1) {
            const int i = __builtin_ctz(changed) >> 1;
            rows.base[at_in[i]]++;
            rows.base[at_out[i]]--;
        }
    }
    for (; c < w; c++) {
        const int li = in ? in[c] : none, lo = out ? out[c] : none;
        if (li == lo) continue;
        rows.base[li == none ? spare : (rows.at(li, c) - rows.base)]++;
        rows.base[lo == none ? spare : (rows.at(lo, c) - rows.base)]--;
    }
}

// The sum of `n` bytes from p (n >= 1), reading whole 32-byte blocks.
struct WindowSum {
    int blocks;    // whole blocks before the last, partial or whole, one
    __m256i last;  // mask of the last block's bytes
    explicit WindowSum(int n) : blocks((n - 1) / 32) {
        alignas(32) uint8_t m[32];
        for (int i = 0; i < 32; i++) m[i] = i < n - 32 * blocks ? 0xff : 0;
        last = _mm256_load_si256(reinterpret_cast<const __m256i*>(m));
    }
    int operator()(const uint8_t* p) const {
        const __m256i zero = _mm256_setzero_si256();
        __m256i acc = _mm256_sad_epu8(_mm256_and_si256(load256(p + 32 * blocks), last), zero);
        for (int b = 0; b < blocks; b++) acc = _mm256_add_epi64(acc, _mm256_sad_epu8(load256(p + 32 * b), zero));
        __m128i s = _mm_add_epi64(_mm256_castsi256_si128(acc), _mm256_extracti128_si256(acc, 1));
        s = _mm_add_epi64(s, _mm_unpackhi_epi64(s, s));
        return _mm_cvtsi128_si32(s);
    }
};

// Inclusive prefix sum of 16 16-bit lanes.
inline __m256i prefix_sum16(__m256i x) {
    x = _mm256_add_epi16(x, _mm256_slli_si256(x, 2));
    x = _mm256_add_epi16(x, _mm256_slli_si256(x, 4));
    x = _mm256_add_epi16(x, _mm256_slli_si256(x, 8));
    __m256i low_total = _mm256_unpackhi_epi64(_mm256_shufflehi_epi16(x, 0xff), _mm256_shufflehi_epi16(x, 0xff));
    low_total = _mm256_permute2x128_si256(low_total, low_total, 0x08);  // lane 7 into the upper half, zeros below
    return _mm256_add_epi16(x, low_total);
}

inline unsigned hmin_epu16(__m256i v) {
    __m128i m = _mm_min_epu16(_mm256_castsi256_si128(v), _mm256_extracti128_si256(v, 1));
    return static_cast<unsigned>(_mm_extract_epi16(_mm_minpos_epu16(m), 0));
}

constexpr int kLanes = 16;        // pixels of a block

// For each 8-bit mask, the lanes whose bit is set, in order: packs the
// nonzero values of 8 lanes to the front.
struct PackTable {
    uint32_t lanes[256][8];
    uint8_t count[256];
    constexpr PackTable() : lanes(), count() {
        for (int m = 0; m < 256; m++) {
            int k = 0;
            for (int i = 0; i < 8; i++)
                if (m >> i & 1) lanes[m][k++] = static_cast<uint32_t>(i);
            count[m] = static_cast<uint8_t>(k);
        }
    }
};
constexpr PackTable kPack;
constexpr int kMaxSpan = 8;       // levels a block's pixels may span to be done together
constexpr int kMaxLevels = 1280;  // histogram levels of any plan (Levels::row)

// One row's pass: state carried from block to block.
struct RowPass {
    const BandingArgs& a;
    const Plan& p;
    LevelRows rows;
    WindowSum window;
    const int* weight;
    // The window count of level u at the previous block's last column, when
    // that block computed it (carried_at[u] == that column's key).
    uint16_t carried[kMaxLevels];
    long long carried_at[kMaxLevels];
    long long row_key = 0;  // key of column c of the current row: row_key + c
    int span_blocks;        // 32-byte reads covering the bytes of 16 windows
    // Stats, in any order (see BandingStats).
    __m256d sum = _mm256_setzero_pd();
    __m256 smallest = _mm256_set1_ps(__builtin_inff());
    long long nonzero = 0;
    size_t first_pixel = 0;  // of the current row

    RowPass(const BandingArgs& args, const LevelRows& r, const int* w, long long written)
        : a(args), p(*args.plan), rows(r), window(2 * args.pad + 1), weight(w),
          span_blocks((2 * args.pad + 17 + 31) / 32), nonzero(written) {
        for (int u = 0; u < kMaxLevels; u++) carried_at[u] = -1;
    }
    void start_row(int r) {
        row_key = static_cast<long long>(r) * (a.width + 2 * kLanes) + kLanes;
        first_pixel = static_cast<size_t>(r) * static_cast<size_t>(a.width);
    }

    // Whether level u has no pixel in the windows of columns c0 .. c0 + 15
    // (row bytes c0 .. c0 + 2 pad + 16; a few more are read).
    bool empty(const uint8_t* row, int c0) const {
        __m256i any = load256(row + c0);
        for (int b = 1; b < span_blocks; b++) any = _mm256_or_si256(any, load256(row + c0 + 32 * b));
        return _mm256_testz_si256(any, any);
    }

    // Window counts of level u at columns c0 .. c0 + 15.
    __m256i counts(int u, int c0) {
        const uint8_t* row = rows.row(u);
        const __m128i in8 = load128(row + c0 + 2 * a.pad + 1);
        int before;
        if (carried_at[u] == row_key + c0 - 1) {
            // Carried from the block before: nothing there and nothing
            // entering is a block of zeros.
            before = carried[u];
            if (before == 0 && _mm_testz_si128(in8, in8)) {
                carried_at[u] = row_key + c0 + kLanes - 1;
                return _mm256_setzero_si256();
            }
        } else {
            if (empty(row, c0)) {
                carried[u] = 0;
                carried_at[u] = row_key + c0 + kLanes - 1;
                return _mm256_setzero_si256();
            }
            before = window(row + c0);
        }
        const __m256i in = _mm256_cvtepu8_epi16(in8);
        const __m256i out = _mm256_cvtepu8_epi16(load128(row + c0));
        const __m256i h = _mm256_add_epi16(_mm256_set1_epi16(static_cast<short>(before)), prefix_sum16(_mm256_sub_epi16(in, out)));
        carried[u] = static_cast<uint16_t>(_mm256_extract_epi16(h, 15));
        carried_at[u] = row_key + c0 + kLanes - 1;
        return h;
    }

    // The banding values of the 16 pixels whose counts (same level, and the
    // larger of d + 1 levels above and below) are given: 8 lanes.
    static __m256 values8(__m128i same16, __m128i other16, int weight, const float* reciprocal) {
        const __m256i same = _mm256_cvtepu16_epi32(same16), other = _mm256_cvtepu16_epi32(other16);
        const __m256 product = _mm256_cvtepi32_ps(_mm256_mullo_epi32(_mm256_mullo_epi32(_mm256_set1_epi32(weight), same), other));
        const __m256i present = _mm256_cmpgt_epi32(other, _mm256_setzero_si256());
        const __m256 rcp = _mm256_mask_i32gather_ps(_mm256_setzero_ps(), reciprocal, _mm256_add_epi32(same, other),
                                                    _mm256_castsi256_ps(present), 4);
        return _mm256_mul_ps(product, rcp);
    }

    // Writes the nonzero values of 8 lanes from pixel i on (mask bits 0..7).
    void emit(__m256 v, size_t i) {
        const __m256 zero = _mm256_setzero_ps();
        const __m256 is_zero = _mm256_cmp_ps(v, zero, _CMP_EQ_OQ);
        const unsigned m = ~static_cast<unsigned>(_mm256_movemask_ps(is_zero)) & 0xffu;
        if (!m) return;
        const __m256i lanes = _mm256_loadu_si256(reinterpret_cast<const __m256i*>(kPack.lanes[m]));
        _mm256_storeu_ps(a.values + nonzero, _mm256_permutevar8x32_ps(v, lanes));
        nonzero += kPack.count[m];
        a.nonzero[i / 64] |= static_cast<uint64_t>(m) << (i % 64);
        if (i % 64 > 56) a.nonzero[i / 64 + 1] |= static_cast<uint64_t>(m) >> (64 - i % 64);
        sum = _mm256_add_pd(sum, _mm256_cvtps_pd(_mm256_castps256_ps128(v)));
        sum = _mm256_add_pd(sum, _mm256_cvtps_pd(_mm256_extractf128_ps(v, 1)));
        smallest = _mm256_min_ps(smallest, _mm256_blendv_ps(v, _mm256_set1_ps(__builtin_inff()), is_zero));
    }

    // Pixels one by one: the counts of each level from their window sums.
    void pixels(const uint16_t* lv, int c0, int n, float* out) {
        const int nd = p.num_diffs;
        for (int i = 0; i < n; i++) {
            const int level = lv[i];
            out[i] = 0.0f;
            if (level == p.levels.uncounted) continue;
            const int c = c0 + i;
            const int same = window(rows.at(level, c) - a.pad);
            float best = 0.0f;
            for (int d = p.first_diff[static_cast<size_t>(level)]; d < nd; d++) {
                const int up = window(rows.at(level + d + 1, c) - a.pad), down = window(rows.at(level - d - 1, c) - a.pad);
                const int other = up > down ? up : down;
                const float v = banding_value(weight[d], same, other, p.reciprocal.data());
                if (v > best) best = v;
            }
            out[i] = best;
        }
    }

    // 16 pixels from column c0 (n of them inside the picture).
    void block(const uint16_t* lv_row, int c0, int n) {
        const Levels& l = p.levels;
        const int nd = p.num_diffs;
        const __m256i none = _mm256_set1_epi16(static_cast<short>(l.uncounted));
        alignas(32) uint16_t lv[kLanes];
        __m256i levels;
        if (n == kLanes) {
            levels = load256(lv_row + c0);
        } else {
            for (int i = 0; i < kLanes; i++) lv[i] = i < n ? lv_row[c0 + i] : static_cast<uint16_t>(l.uncounted);
            levels = _mm256_load_si256(reinterpret_cast<const __m256i*>(lv));
        }
        const __m256i counted = _mm256_andnot_si256(_mm256_cmpeq_epi16(levels, none), _mm256_set1_epi16(-1));
        if (_mm256_testz_si256(counted, counted)) return;
        _mm256_store_si256(reinterpret_cast<__m256i*>(lv), levels);
        alignas(32) float v[kLanes];
        _mm256_store_ps(v, _mm256_setzero_ps());
        _mm256_store_ps(v + 8, _mm256_setzero_ps());
        // Uncounted is above every counted level: the minimum is a counted one.
        const int low = static_cast<int>(hmin_epu16(levels));
        const int high = static_cast<int>(hmax_epu16(_mm256_and_si256(levels, counted)));
        if (high - low > kMaxSpan) {
            pixels(lv, c0, n, v);
        } else {
            // Counts of levels low - nd .. high + nd at the 16 columns.
            __m256i h[2 * kMaxDiffs + kMaxSpan + 1];
            const int base = low - nd;
            for (int u = base; u <= high + nd; u++) h[u - base] = counts(u, c0);
            // Per pixel, by the groups of pixels of one level: the count of
            // its level, and for each difference the larger count d + 1
            // above or below (0 where the difference is not visible there).
            __m256i same = _mm256_setzero_si256();
            __m256i other[kMaxDiffs];
            unsigned long long set = 0;  // differences whose `other` is started
            unsigned left = static_cast<unsigned>(_mm256_movemask_epi8(counted));
            while (left) {
                const int level = lv[__builtin_ctz(left) >> 1];
                const __m256i group = _mm256_cmpeq_epi16(levels, _mm256_set1_epi16(static_cast<short>(level)));
                left &= ~static_cast<unsigned>(_mm256_movemask_epi8(group));
                const int k = level - base;
                same = _mm256_blendv_epi8(same, h[k], group);
                for (int d = p.first_diff[static_cast<size_t>(level)]; d < nd; d++) {
                    const __m256i larger = _mm256_and_si256(_mm256_max_epu16(h[k + d + 1], h[k - d - 1]), group);
                    other[d] = set >> d & 1 ? _mm256_or_si256(other[d], larger) : larger;
                    set |= 1ull << d;
                }
            }
            __m256 best_lo = _mm256_setzero_ps(), best_hi = _mm256_setzero_ps();
            for (; set; set &= set - 1) {
                const int d = __builtin_ctzll(set);
                if (_mm256_testz_si256(other[d], other[d])) continue;
                best_lo = _mm256_max_ps(best_lo, values8(_mm256_castsi256_si128(same), _mm256_castsi256_si128(other[d]),
                                                         weight[d], p.reciprocal.data()));
                best_hi = _mm256_max_ps(best_hi, values8(_mm256_extracti128_si256(same, 1),
                                                         _mm256_extracti128_si256(other[d], 1), weight[d],
                                                         p.reciprocal.data()));
            }
            _mm256_store_ps(v, best_lo);
            _mm256_store_ps(v + 8, best_hi);
        }
        emit(_mm256_load_ps(v), first_pixel + static_cast<size_t>(c0));
        emit(_mm256_load_ps(v + 8), first_pixel + static_cast<size_t>(c0) + 8);
    }
};

void banding_avx2(const BandingArgs& a, int from, int to, BandingStats* st) {
    const Plan& p = *a.plan;
    const LevelRows rows{a.columns, banding_row_bytes(a.width, a.pad), a.pad};
    if (from == 0) {
        std::memset(a.nonzero, 0, banding_bits_words(static_cast<size_t>(a.width) * a.height) * sizeof(uint64_t));
        std::memset(a.columns, 0, static_cast<size_t>(rows.len) * static_cast<size_t>(p.levels.row));
        // The first window: rows 0 .. pad - 1 (slide_columns adds row r + pad).
        for (int r = 0; r < a.pad; r++) {
            const uint16_t* lv = a.levels + r * a.width;
            for (int c = 0; c < a.width; c++)
                if (lv[c] != p.levels.uncounted) (*rows.at(lv[c], c))++;
        }
    }
    // Weights padded with zeros.
    int weight[kMaxDiffs] = {};
    for (int d = 0; d < p.num_diffs; d++) weight[d] = p.weight[static_cast<size_t>(d)];
    RowPass pass(a, rows, weight, st->nonzero);
    const ptrdiff_t spare = rows.len * p.levels.row;
    for (int r = from; r < to; r++) {
        slide_columns(a, rows, spare, r);
        pass.start_row(r);
        for (int c0 = 0; c0 < a.width; c0 += kLanes) {
            const int n = a.width - c0 < kLanes ? a.width - c0 : kLanes;
            pass.block(a.levels + r * a.width, c0, n);
        }
    }
    alignas(32) double sums[4];
    _mm256_store_pd(sums, pass.sum);
    alignas(32) float least[8];
    _mm256_store_ps(least, pass.smallest);
    float m = least[0];
    for (int i = 1; i < 8; i++) m = least[i] < m ? least[i] : m;
    if (pass.nonzero > st->nonzero) st->smallest = st->nonzero && st->smallest < m ? st->smallest : m;
    st->sum += (sums[0] + sums[1]) + (sums[2] + sums[3]);
    st->nonzero = pass.nonzero;
}

}  // namespace

#if defined(__AVX512BW__)
const Kernels* kernels_avx512() {
    static const Kernels k{"avx512",        convert_row_avx2, antidither_row_avx2, antidither_last_row_avx2,
                           mask_add_row_avx2, mask_row_avx2,  decimate_row_avx2,   filter_scale_avx2, banding_avx2};
    return detect_cpu_flags().avx512 ? &k : nullptr;
}
#else
const Kernels* kernels_avx2() {
    static const Kernels k{"avx2",          convert_row_avx2, antidither_row_avx2, antidither_last_row_avx2,
                           mask_add_row_avx2, mask_row_avx2,  decimate_row_avx2,   filter_scale_avx2, banding_avx2};
    return detect_cpu_flags().avx2 ? &k : nullptr;
}
#endif

}  // namespace speedqa::cambi
