// The C reference of CAMBI's kernels.
#include <algorithm>
#include <cstring>

#include "core/cpu_flags.hpp"
#include "features/cambi/exact/arith.hpp"
#include "features/cambi/kernels.hpp"

namespace speedqa::cambi {
namespace {

unsigned convert_row_c(uint16_t* dst, const uint8_t* src, int n, int bitdepth) {
    unsigned largest = 0;
    for (int j = 0; j < n; j++) {
        const unsigned s = bitdepth > 8 ? static_cast<unsigned>(src[2 * j] | src[2 * j + 1] << 8) : src[j];
        largest = std::max(largest, s);
        dst[j] = to_10bit(s, bitdepth);
    }
    return largest;
}

void antidither_row_c(uint16_t* a, const uint16_t* b, int n) {
    for (int j = 0; j < n - 1; j++) a[j] = static_cast<uint16_t>((a[j] + a[j + 1] + b[j] + b[j + 1]) >> 2);
    a[n - 1] = static_cast<uint16_t>((a[n - 1] + b[n - 1]) >> 1);
}

void antidither_last_row_c(uint16_t* a, int n) {
    for (int j = 0; j < n - 1; j++) a[j] = static_cast<uint16_t>((a[j] + a[j + 1]) >> 1);
}

// Zero-derivative flags of row r (1: equal to the right and lower neighbours).
void derivative_row(uint8_t* dst, const uint16_t* row, const uint16_t* below, int n) {
    for (int j = 0; j < n; j++) {
        const bool right = j == n - 1 || row[j] == row[j + 1];
        const bool down = below == nullptr || row[j] == below[j];
        dst[j] = right && down;
    }
}

// The 7x7 count as a vertical running sum of the flags (a ring of 7 rows)
// and a horizontal 7-sum of that.
void mask_add_row_c(uint8_t* scratch, const uint16_t* row, const uint16_t* below, int w, int r) {
    uint8_t* column = mask_column_sums(scratch);
    uint8_t* flags = mask_flags(scratch, w, r);
    derivative_row(flags, row, below, w);
    for (int j = 0; j < w; j++) column[j] = static_cast<uint8_t>(column[j] + flags[j]);
}

void mask_row_c(uint8_t* out, uint8_t* scratch, int w, int r, int threshold) {
    uint8_t* column = mask_column_sums(scratch);
    int sum = 0;
    for (int j = 0; out && j < kMaskPad && j < w; j++) sum += column[j];
    for (int j = 0; out && j < w; j++) {
        if (j + kMaskPad < w) sum += column[j + kMaskPad];
        out[j] = sum > threshold;
        if (j - kMaskPad >= 0) sum -= column[j - kMaskPad];
    }
    if (r - kMaskPad >= 0) {
        const uint8_t* flags = mask_flags(scratch, w, r - kMaskPad);
        for (int j = 0; j < w; j++) column[j] = static_cast<uint8_t>(column[j] - flags[j]);
    }
}

void decimate_row_c(uint16_t* dst, uint8_t* dst_mask, const uint16_t* src, const uint8_t* src_mask, int n) {
    for (int c = 0; c < n; c++) {
        dst[c] = src[2 * c];
        dst_mask[c] = src_mask[2 * c];
    }
}

// Level of one pixel: counted at value - band_base + margin, or uncounted.
uint16_t level_of(const Levels& l, uint16_t value, uint8_t masked) {
    const unsigned in_band = static_cast<unsigned>(value - l.band_base);
    return static_cast<uint16_t>(masked && in_band < static_cast<unsigned>(l.band_size) ? in_band + l.margin : l.uncounted);
}

// Row m of the scale is final: its levels, and its share of the next scale.
void finish_row(const ScaleArgs& a, int m) {
    const uint16_t* img = a.image + m * a.stride;
    const uint8_t* msk = a.mask + m * a.stride;
    uint16_t* lv = a.level_out + m * a.width;
    for (int c = 0; c < a.width; c++) lv[c] = level_of(*a.levels, img[c], msk[c]);
    if (!a.decimate || m % 2) return;
    // in place on row 0 (m = 0)
    decimate_row_c(a.image + (m / 2) * a.stride, a.mask + (m / 2) * a.stride, img, msk, (a.width + 1) / 2);
}

void filter_scale_c(const ScaleArgs& a, int from, int to) {
    const int w = a.width, h = a.height;
    for (int i = from; i < to; i++) {
        const uint16_t* in = a.image + i * a.stride;
        uint16_t* filtered = a.scratch + (i % 3) * w;
        filtered[0] = in[0];
        for (int j = 1; j < w - 1; j++) filtered[j] = mode3(in[j - 1], in[j], in[j + 1]);
        filtered[w - 1] = in[w - 1];
        // Row i - 1 is replaced once the row below it is filtered; row i
        // itself is still read unfiltered above (the next scale's rows go
        // to rows at most (i - 1) / 2).
        if (i >= 2) {
            uint16_t* out = a.image + (i - 1) * a.stride;
            for (int j = 0; j < w; j++) out[j] = mode3(a.scratch[j], a.scratch[w + j], a.scratch[2 * w + j]);
            finish_row(a, i - 1);
        }
        if (i == 0) finish_row(a, 0);  // the first row keeps its values
    }
    if (to == h && h >= 2) finish_row(a, h - 1);  // and so does the last
}

// Column x of the picture (x from -pad) counts the levels of its pixels in
// the rows of the window; adds (delta 1) or removes (255) picture row r.
void update_columns(const BandingArgs& a, int r, uint8_t delta) {
    const int row = a.plan->levels.row;
    const uint16_t* lv = a.levels + r * a.width;
    uint8_t* col = a.columns + static_cast<ptrdiff_t>(a.pad) * row;
    for (int c = 0; c < a.width; c++) col[c * row + lv[c]] = static_cast<uint8_t>(col[c * row + lv[c]] + delta);
}

// Row r: slides the window sums of `margin` levels around the pixel's level
// along the row; starts afresh where the level leaves them or the last
// counted pixel is far.
void banding_row(const BandingArgs& a, int r, BandingStats& st) {
    const Plan& p = *a.plan;
    const Levels& l = p.levels;
    const int tracked = l.margin, nd = p.num_diffs, pad = a.pad;
    const uint16_t* lv = a.levels + r * a.width;
    const size_t first_pixel = static_cast<size_t>(r) * static_cast<size_t>(a.width);
    uint16_t counts[128];
    int lo = -1, at = 0;
    for (int c = 0; c < a.width; c++) {
        const int level = lv[c];
        if (level == l.uncounted) continue;
        if (lo < 0 || level - nd < lo || level + nd >= lo + tracked || c - at > 2 * pad + 1) {
            lo = level - tracked / 2;
            at = c;
            std::fill(counts, counts + tracked, uint16_t{0});
            for (int x = c - pad; x <= c + pad; x++) {
                const uint8_t* col = a.columns + static_cast<ptrdiff_t>(x + pad) * l.row + lo;
                for (int i = 0; i < tracked; i++) counts[i] = static_cast<uint16_t>(counts[i] + col[i]);
            }
        } else {
            for (; at < c; at++) {
                const uint8_t* in = a.columns + static_cast<ptrdiff_t>(at + 1 + 2 * pad) * l.row + lo;
                const uint8_t* leaving = a.columns + static_cast<ptrdiff_t>(at) * l.row + lo;
                for (int i = 0; i < tracked; i++) counts[i] = static_cast<uint16_t>(counts[i] + in[i] - leaving[i]);
            }
        }
        const float v = pixel_banding_value(counts + (level - lo), p.first_diff[static_cast<size_t>(level)], nd,
                                            p.weight.data(), p.reciprocal.data());
        if (v != 0.0f) {
            const size_t i = first_pixel + static_cast<size_t>(c);
            a.nonzero[i / 64] |= uint64_t{1} << (i % 64);
            a.values[st.nonzero] = v;
            st.smallest = st.nonzero == 0 ? v : std::min(st.smallest, v);
            st.nonzero++;
            st.sum += v;
        }
    }
}

void banding_c(const BandingArgs& a, int from, int to, BandingStats* st) {
    if (from == 0) {
        std::memset(a.nonzero, 0, banding_bits_words(static_cast<size_t>(a.width) * a.height) * sizeof(uint64_t));
        std::memset(a.columns, 0, static_cast<size_t>(a.width + 2 * a.pad) * static_cast<size_t>(a.plan->levels.row));
        for (int r = 0; r < a.pad; r++) update_columns(a, r, 1);
    }
    for (int r = from; r < to; r++) {
        if (r + a.pad < a.height) update_columns(a, r + a.pad, 1);
        if (r - a.pad - 1 >= 0) update_columns(a, r - a.pad - 1, 255);
        banding_row(a, r, *st);
    }
}

}  // namespace

const Kernels& kernels_c() {
    static const Kernels k{"c",          convert_row_c, antidither_row_c, antidither_last_row_c,
                           mask_add_row_c, mask_row_c, decimate_row_c, filter_scale_c, banding_c};
    return k;
}

#if !defined(SPEEDQA_X86)
const Kernels* kernels_avx2() { return nullptr; }
const Kernels* kernels_avx512() { return nullptr; }
#endif

}  // namespace speedqa::cambi
