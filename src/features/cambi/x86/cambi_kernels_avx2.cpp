// AVX2 variants of CAMBI's kernels (built with -mavx2; picked at run time).
// Everything here has internal linkage and uses no standard-library template:
// the linker must find no code of this file that other files could share.
#include <immintrin.h>

#include <cstring>

#include "core/cpu_flags.hpp"
#include "features/cambi/exact/arith.hpp"
#include "features/cambi/kernels.hpp"

namespace speedqa::cambi {
namespace {

inline __m256i load256(const void* p) { return _mm256_loadu_si256(static_cast<const __m256i*>(p)); }
inline __m128i load128(const void* p) { return _mm_loadu_si128(static_cast<const __m128i*>(p)); }
inline void store256(void* p, __m256i v) { _mm256_storeu_si256(static_cast<__m256i*>(p), v); }
inline void store128(void* p, __m128i v) { _mm_storeu_si128(static_cast<__m128i*>(p), v); }
inline unsigned umax(unsigned a, unsigned b) { return a > b ? a : b; }

unsigned hmax_epu16(__m256i v) {
    __m128i m = _mm_max_epu16(_mm256_castsi256_si128(v), _mm256_extracti128_si256(v, 1));
    m = _mm_max_epu16(m, _mm_srli_si128(m, 8));
    m = _mm_max_epu16(m, _mm_srli_si128(m, 4));
    m = _mm_max_epu16(m, _mm_srli_si128(m, 2));
    return static_cast<unsigned>(_mm_extract_epi16(m, 0));
}

unsigned convert_row_avx2(uint16_t* dst, const uint8_t* src, int n, int bitdepth) {
    int j = 0;
    __m256i largest = _mm256_setzero_si256();
    if (bitdepth <= 8) {
        const __m128i up = _mm_cvtsi32_si128(10 - bitdepth);
        for (; j + 16 <= n; j += 16) {
            const __m256i s = _mm256_cvtepu8_epi16(load128(src + j));
            largest = _mm256_max_epu16(largest, s);
            store256(dst + j, _mm256_sll_epi16(s, up));
        }
    } else if (bitdepth < 10) {
        const __m128i up = _mm_cvtsi32_si128(10 - bitdepth);
        for (; j + 16 <= n; j += 16) {
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
        for (; j + 16 <= n; j += 16) {
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
    // Each block reads a[j + 16] before the next block replaces it.
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
    for (; j + 17 <= n; j += 16) store256(a + j, _mm256_srli_epi16(_mm256_add_epi16(load256(a + j), load256(a + j + 1)), 1));
    for (; j < n - 1; j++) a[j] = static_cast<uint16_t>((a[j] + a[j + 1]) >> 1);
}

// Zero-derivative flags (0/1 bytes) of a row; below == nullptr on the last row.
void derivative_row(uint8_t* dst, const uint16_t* row, const uint16_t* below, int n) {
    const __m256i one = _mm256_set1_epi8(1);
    int j = 0;
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

// scratch: the column sums with kMaskPad zero bytes on each side, then the
// ring of 7 rows of flags.
void spatial_mask_avx2(uint8_t* mask, const uint16_t* image, ptrdiff_t stride, int w, int h, int threshold,
                       uint8_t* scratch) {
    uint8_t* column = scratch + kMaskPad;
    uint8_t* ring = scratch + w + 2 * kMaskPad;
    std::memset(scratch, 0, static_cast<size_t>(w + 2 * kMaskPad));
    auto add_flags = [&](int r) {
        uint8_t* flags = ring + static_cast<ptrdiff_t>(r % kMaskFilter) * w;
        derivative_row(flags, image + r * stride, r + 1 < h ? image + (r + 1) * stride : nullptr, w);
        int j = 0;
        for (; j + 32 <= w; j += 32) store256(column + j, _mm256_add_epi8(load256(column + j), load256(flags + j)));
        for (; j < w; j++) column[j] = static_cast<uint8_t>(column[j] + flags[j]);
    };
    auto remove_flags = [&](int r) {
        const uint8_t* flags = ring + static_cast<ptrdiff_t>(r % kMaskFilter) * w;
        int j = 0;
        for (; j + 32 <= w; j += 32) store256(column + j, _mm256_sub_epi8(load256(column + j), load256(flags + j)));
        for (; j < w; j++) column[j] = static_cast<uint8_t>(column[j] - flags[j]);
    };
    // sum > threshold  <=>  max(sum, threshold + 1) == sum (sums are at most 49)
    const __m256i above = _mm256_set1_epi8(static_cast<char>(threshold + 1 > 255 ? 255 : threshold + 1));
    const __m256i one = _mm256_set1_epi8(1);
    for (int r = 0; r < kMaskPad && r < h; r++) add_flags(r);
    for (int r = 0; r < h; r++) {
        if (r + kMaskPad < h) add_flags(r + kMaskPad);
        uint8_t* out = mask + r * stride;
        int j = 0;
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
        if (r - kMaskPad >= 0) remove_flags(r - kMaskPad);
    }
}

void decimate_avx2(uint16_t* image, uint8_t* mask, ptrdiff_t stride, int w, int h) {
    const __m256i low16 = _mm256_set1_epi32(0xffff), low8 = _mm256_set1_epi16(0xff);
    for (int i = 0; i < h; i++) {
        const uint16_t* src = image + 2 * i * stride;
        uint16_t* dst = image + i * stride;
        const uint8_t* msrc = mask + 2 * i * stride;
        uint8_t* mdst = mask + i * stride;
        // Reads stay ahead of writes (dst <= src, 2j >= j): in place is safe.
        int j = 0;
        for (; j + 16 <= w; j += 16) {
            const __m256i a = _mm256_and_si256(load256(src + 2 * j), low16);
            const __m256i b = _mm256_and_si256(load256(src + 2 * j + 16), low16);
            store256(dst + j, _mm256_permute4x64_epi64(_mm256_packus_epi32(a, b), 0xd8));
        }
        for (; j < w; j++) dst[j] = src[2 * j];
        j = 0;
        for (; j + 32 <= w; j += 32) {
            const __m256i a = _mm256_and_si256(load256(msrc + 2 * j), low8);
            const __m256i b = _mm256_and_si256(load256(msrc + 2 * j + 32), low8);
            store256(mdst + j, _mm256_permute4x64_epi64(_mm256_packus_epi16(a, b), 0xd8));
        }
        for (; j < w; j++) mdst[j] = msrc[2 * j];
    }
}

inline __m256i mode3_v(__m256i a, __m256i b, __m256i c) {
    const __m256i a_twice = _mm256_or_si256(_mm256_cmpeq_epi16(a, b), _mm256_cmpeq_epi16(a, c));
    const __m256i b_twice = _mm256_cmpeq_epi16(b, c);
    const __m256i smallest = _mm256_min_epu16(_mm256_min_epu16(a, b), c);
    return _mm256_blendv_epi8(_mm256_blendv_epi8(smallest, b, b_twice), a, a_twice);
}

void mode_filter_avx2(uint16_t* image, ptrdiff_t stride, int w, int h, uint16_t* scratch) {
    for (int i = 0; i < h; i++) {
        const uint16_t* in = image + i * stride;
        uint16_t* filtered = scratch + (i % 3) * w;
        filtered[0] = in[0];
        int j = 1;
        for (; j + 17 <= w; j += 16) store256(filtered + j, mode3_v(load256(in + j - 1), load256(in + j), load256(in + j + 1)));
        for (; j < w - 1; j++) filtered[j] = mode3(in[j - 1], in[j], in[j + 1]);
        filtered[w - 1] = in[w - 1];
        if (i >= 2) {
            uint16_t* out = image + (i - 1) * stride;
            j = 0;
            for (; j + 16 <= w; j += 16)
                store256(out + j, mode3_v(load256(scratch + j), load256(scratch + w + j), load256(scratch + 2 * w + j)));
            for (; j < w; j++) out[j] = mode3(scratch[j], scratch[w + j], scratch[2 * w + j]);
        }
    }
}

// ---- banding values -----------------------------------------------------

void fill_levels(const BandingArgs& a) {
    const Levels& l = a.plan->levels;
    const __m256i base = _mm256_set1_epi16(static_cast<short>(l.band_base));
    const __m256i last = _mm256_set1_epi16(static_cast<short>(l.band_size - 1));
    const __m256i margin = _mm256_set1_epi16(static_cast<short>(l.margin));
    const __m256i uncounted = _mm256_set1_epi16(static_cast<short>(l.uncounted));
    const __m256i zero = _mm256_setzero_si256();
    for (int r = 0; r < a.height; r++) {
        const uint16_t* img = a.image + r * a.stride;
        const uint8_t* msk = a.mask + r * a.stride;
        uint16_t* lv = a.levels + r * a.width;
        int c = 0;
        if (l.band_size > 0)
            for (; c + 16 <= a.width; c += 16) {
                const __m256i x = _mm256_sub_epi16(load256(img + c), base);
                const __m256i in_band = _mm256_cmpeq_epi16(_mm256_min_epu16(x, last), x);
                const __m256i masked = _mm256_cmpgt_epi16(_mm256_cvtepu8_epi16(load128(msk + c)), zero);
                const __m256i counted = _mm256_and_si256(in_band, masked);
                store256(lv + c, _mm256_blendv_epi8(uncounted, _mm256_add_epi16(x, margin), counted));
            }
        for (; c < a.width; c++) {
            const unsigned x = static_cast<unsigned>(img[c] - l.band_base);
            const bool counted = msk[c] && x < static_cast<unsigned>(l.band_size);
            lv[c] = static_cast<uint16_t>(counted ? x + l.margin : l.uncounted);
        }
    }
}

// Moves the window of rows down to row r: adds picture row r + pad, removes
// row r - pad - 1, skipping the columns where both have the same level.
void slide_columns(const BandingArgs& a, int r) {
    const int row = a.plan->levels.row, w = a.width;
    const uint16_t* in = r + a.pad < a.height ? a.levels + (r + a.pad) * w : nullptr;
    const uint16_t* out = r - a.pad - 1 >= 0 ? a.levels + (r - a.pad - 1) * w : nullptr;
    if (!in && !out) return;
    uint8_t* col = a.columns + static_cast<ptrdiff_t>(a.pad) * row;
    const uint16_t none = static_cast<uint16_t>(a.plan->levels.uncounted);
    const __m256i none_v = _mm256_set1_epi16(static_cast<short>(none));
    int c = 0;
    for (; c + 16 <= w; c += 16) {
        const __m256i vi = in ? load256(in + c) : none_v;
        const __m256i vo = out ? load256(out + c) : none_v;
        unsigned changed = ~static_cast<unsigned>(_mm256_movemask_epi8(_mm256_cmpeq_epi16(vi, vo)));
        changed &= 0x55555555u;
        while (changed) {
            const int x = c + (__builtin_ctz(changed) >> 1);
            changed &= changed - 1;
            uint8_t* cx = col + static_cast<ptrdiff_t>(x) * row;
            cx[in ? in[x] : none]++;
            cx[out ? out[x] : none]--;
        }
    }
    for (; c < w; c++) {
        const uint16_t li = in ? in[c] : none, lo = out ? out[c] : none;
        if (li == lo) continue;
        uint8_t* cx = col + static_cast<ptrdiff_t>(c) * row;
        cx[li]++;
        cx[lo]--;
    }
}

// Reverses the 8 16-bit lanes of a 128-bit vector.
inline __m128i reverse8(__m128i v) {
    return _mm_shuffle_epi8(v, _mm_setr_epi8(14, 15, 12, 13, 10, 11, 8, 9, 6, 7, 4, 5, 2, 3, 0, 1));
}

inline float hmax_ps(__m256 v) {
    __m128 m = _mm_max_ps(_mm256_castps256_ps128(v), _mm256_extractf128_ps(v, 1));
    m = _mm_max_ps(m, _mm_movehl_ps(m, m));
    m = _mm_max_ss(m, _mm_shuffle_ps(m, m, 1));
    return _mm_cvtss_f32(m);
}

// Counts of the tracked levels: Regs registers of 16 levels, with 16 zero
// levels stored on each side for the reads around a pixel's level.
template <int Regs>
struct Window {
    __m256i r[Regs];
    alignas(32) uint16_t stored[16 * (Regs + 2)];

    void clear() {
        for (int i = 0; i < Regs; i++) r[i] = _mm256_setzero_si256();
    }
    void add(const uint8_t* col) {
        for (int i = 0; i < Regs; i++) r[i] = _mm256_add_epi16(r[i], _mm256_cvtepu8_epi16(load128(col + 16 * i)));
    }
    void slide(const uint8_t* in, const uint8_t* out) {
        for (int i = 0; i < Regs; i++)
            r[i] = _mm256_sub_epi16(_mm256_add_epi16(r[i], _mm256_cvtepu8_epi16(load128(in + 16 * i))),
                                    _mm256_cvtepu8_epi16(load128(out + 16 * i)));
    }
    void store() {
        for (int i = 0; i < Regs; i++) _mm256_store_si256(reinterpret_cast<__m256i*>(stored + 16 * (i + 1)), r[i]);
    }
};

// The banding value at tracked index k from the stored window: over the
// differences d in [first, nd) in groups of 8 lanes, the larger count d + 1
// above or below, times the count at k, the weight, and the table's
// reciprocal; the largest.
float pixel_value(const uint16_t* counts, int k, int first, int nd, const int* weight, const float* reciprocal) {
    const int same = counts[k];
    const __m256i same_v = _mm256_set1_epi32(same);
    const __m256i lane = _mm256_setr_epi32(0, 1, 2, 3, 4, 5, 6, 7);
    __m256 best = _mm256_setzero_ps();
    for (int g = 0; g * 8 < nd; g++) {
        const __m128i up = load128(counts + k + 1 + 8 * g);
        const __m128i down = reverse8(load128(counts + k - 8 - 8 * g));
        const __m256i other = _mm256_cvtepu16_epi32(_mm_max_epu16(up, down));
        const __m256i d = _mm256_add_epi32(lane, _mm256_set1_epi32(8 * g));
        const __m256i valid = _mm256_andnot_si256(_mm256_cmpgt_epi32(_mm256_set1_epi32(first), d),
                                                  _mm256_cmpgt_epi32(_mm256_set1_epi32(nd), d));
        const __m256i w = load256(weight + 8 * g);
        const __m256 product = _mm256_cvtepi32_ps(_mm256_mullo_epi32(_mm256_mullo_epi32(w, same_v), other));
        const __m256 rcp = _mm256_mask_i32gather_ps(_mm256_setzero_ps(), reciprocal, _mm256_add_epi32(other, same_v),
                                                    _mm256_castsi256_ps(valid), 4);
        best = _mm256_max_ps(best, _mm256_and_ps(_mm256_mul_ps(product, rcp), _mm256_castsi256_ps(valid)));
    }
    return hmax_ps(best);
}

// The same for at most 4 differences (one register of 16 tracked levels,
// recentred so that k - 4 .. k + 4 stay inside it): the 64-bit loads of the
// counts are then forwarded from the register's store, and pixels with no
// count at any visible difference skip the arithmetic.
float pixel_value_narrow(const uint16_t* counts, int k, int first, int nd, const int* weight, const float* reciprocal) {
    const __m128i up = _mm_loadl_epi64(reinterpret_cast<const __m128i*>(counts + k + 1));
    const __m128i down = _mm_shufflelo_epi16(_mm_loadl_epi64(reinterpret_cast<const __m128i*>(counts + k - 4)), 0x1b);
    const __m128i other = _mm_cvtepu16_epi32(_mm_max_epu16(up, down));
    const __m128i d = _mm_setr_epi32(0, 1, 2, 3);
    const __m128i valid = _mm_andnot_si128(
        _mm_or_si128(_mm_cmpgt_epi32(_mm_set1_epi32(first), d), _mm_cmpeq_epi32(other, _mm_setzero_si128())),
        _mm_cmpgt_epi32(_mm_set1_epi32(nd), d));
    if (_mm_testz_si128(valid, valid)) return 0.0f;
    const __m128i same = _mm_set1_epi32(counts[k]);
    const __m128 product =
        _mm_cvtepi32_ps(_mm_mullo_epi32(_mm_mullo_epi32(load128(weight), same), other));
    const __m128 rcp = _mm_mask_i32gather_ps(_mm_setzero_ps(), reciprocal, _mm_add_epi32(other, same),
                                             _mm_castsi128_ps(valid), 4);
    __m128 best = _mm_and_ps(_mm_mul_ps(product, rcp), _mm_castsi128_ps(valid));
    best = _mm_max_ps(best, _mm_movehl_ps(best, best));
    best = _mm_max_ss(best, _mm_shuffle_ps(best, best, 1));
    return _mm_cvtss_f32(best);
}

template <int Regs>
void banding_row(const BandingArgs& a, int r, const int* weight, BandingStats& st, float& smallest) {
    const Plan& p = *a.plan;
    const Levels& l = p.levels;
    const int tracked = 16 * Regs, nd = p.num_diffs, pad = a.pad, row = l.row;
    const int reach = Regs == 1 ? 4 : nd;  // levels kept around the pixel's in the window
    const uint16_t* lv = a.levels + r * a.width;
    float* out = a.values + r * a.width;
    const __m256i none = _mm256_set1_epi16(static_cast<short>(l.uncounted));
    Window<Regs> win;
    std::memset(win.stored, 0, sizeof win.stored);
    int lo = -1, at = 0;
    int c0 = 0;
    for (; c0 < a.width; c0 += 16) {
        const int n = a.width - c0 < 16 ? a.width - c0 : 16;
        unsigned counted;
        if (n == 16) {
            counted = ~static_cast<unsigned>(_mm256_movemask_epi8(_mm256_cmpeq_epi16(load256(lv + c0), none))) & 0x55555555u;
            _mm256_storeu_ps(out + c0, _mm256_setzero_ps());
            _mm256_storeu_ps(out + c0 + 8, _mm256_setzero_ps());
        } else {
            counted = 0;
            for (int i = 0; i < n; i++) {
                out[c0 + i] = 0.0f;
                if (lv[c0 + i] != l.uncounted) counted |= 1u << (2 * i);
            }
        }
        while (counted) {
            const int c = c0 + (__builtin_ctz(counted) >> 1);
            counted &= counted - 1;
            const int level = lv[c];
            if (lo < 0 || level - reach < lo || level + reach >= lo + tracked || c - at > pad + 1) {
                lo = level - tracked / 2;
                at = c;
                win.clear();
                const uint8_t* col = a.columns + static_cast<ptrdiff_t>(c) * row + lo;
                for (int x = 0; x <= 2 * pad; x++) win.add(col + static_cast<ptrdiff_t>(x) * row);
            } else {
                for (; at < c; at++)
                    win.slide(a.columns + static_cast<ptrdiff_t>(at + 1 + 2 * pad) * row + lo,
                              a.columns + static_cast<ptrdiff_t>(at) * row + lo);
            }
            win.store();
            const int first = p.first_diff[static_cast<size_t>(level)];
            const float v = Regs == 1 ? pixel_value_narrow(win.stored + 16, level - lo, first, nd, weight, p.reciprocal.data())
                                      : pixel_value(win.stored + 16, level - lo, first, nd, weight, p.reciprocal.data());
            out[c] = v;
            if (v != 0.0f) {
                st.nonzero++;
                st.sum += v;
                smallest = smallest < v ? smallest : v;
            }
        }
    }
}

template <int Regs>
BandingStats banding_rows(const BandingArgs& a) {
    const Plan& p = *a.plan;
    // Weights padded with zeros to whole groups of 8 lanes.
    alignas(32) int weight[kMaxDiffs + 8] = {};
    for (int d = 0; d < p.num_diffs; d++) weight[d] = p.weight[static_cast<size_t>(d)];
    BandingStats st;
    float smallest = __builtin_inff();
    for (int r = 0; r < a.height; r++) {
        slide_columns(a, r);
        banding_row<Regs>(a, r, weight, st, smallest);
    }
    st.smallest = st.nonzero ? smallest : 0.0f;
    return st;
}

BandingStats banding_avx2(const BandingArgs& a) {
    fill_levels(a);
    std::memset(a.columns, 0, static_cast<size_t>(a.width + 2 * a.pad) * static_cast<size_t>(a.plan->levels.row));
    // The first window: rows 0 .. pad - 1 (slide_columns adds row r + pad).
    for (int r = -a.pad; r < 0; r++) {
        const int row = a.plan->levels.row;
        uint8_t* col = a.columns + static_cast<ptrdiff_t>(a.pad) * row;
        const uint16_t* lv = a.levels + (r + a.pad) * a.width;
        for (int c = 0; c < a.width; c++) col[static_cast<ptrdiff_t>(c) * row + lv[c]]++;
    }
    switch (a.plan->levels.margin / 16) {
    case 1: return banding_rows<1>(a);
    case 2: return banding_rows<2>(a);
    case 3: return banding_rows<3>(a);
    default: return banding_rows<5>(a);
    }
}

}  // namespace

const Kernels* kernels_avx2() {
    static const Kernels k{"avx2",          convert_row_avx2, antidither_row_avx2, antidither_last_row_avx2,
                           spatial_mask_avx2, decimate_avx2,  mode_filter_avx2,    banding_avx2};
    return detect_cpu_flags().avx2 ? &k : nullptr;
}

}  // namespace speedqa::cambi
