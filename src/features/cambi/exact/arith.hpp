// CAMBI's arithmetic as libvmaf master (feature/cambi.c) performs it: the
// integer geometry, the 3-tap mode, the per-pixel banding value in float, and
// the pooling (its quickselect and its double sums in order). Header-only, for
// the host and, later, the device.
#pragma once

#include "exact/hd.hpp"

namespace speedqa::cambi {

inline constexpr int kScales = 5;
inline constexpr int kMaxDiffs = 32;  // 1 << max_log_contrast, max_log_contrast <= 5
inline constexpr int kMaskFilter = 7;  // the zero-derivative count runs over 7x7
inline constexpr int kMaskPad = kMaskFilter / 2;
// The reciprocal table holds 1/n for n < 4226: a window of w*w pixels needs w*w < 4226.
inline constexpr int kReciprocals = 4226;
// Pictures whose width and height are both under this are refused.
inline constexpr int kMinSide = 216;

// Scale s weighs 16 >> s in the score.
SPEEDQA_HD int scale_weight(int s) { return 16 >> s; }

// The suprathreshold contrast response: weight of level difference d + 1.
SPEEDQA_HD int contrast_weight(int d) {
    constexpr int w[kMaxDiffs] = {1, 2, 3, 4, 4, 5, 5, 6, 6, 6, 6, 7, 7, 7, 7, 8,
                                  8, 8, 8, 8, 8, 8, 9, 9, 9, 9, 9, 9, 9, 9, 9, 9};
    return w[d];
}

// The window option scaled to the picture: 65 is about one degree at 4K.
// Unsigned integer arithmetic as the reference's (uint16 * unsigned), then
// halved for the high-resolution speed-up, then made odd.
SPEEDQA_HD int adjusted_window(int window, unsigned w, unsigned h, bool speedup) {
    unsigned ws = static_cast<uint16_t>(((static_cast<unsigned>(window) * (w + h)) / 375u) >> 4);
    if (speedup) ws = (ws + 1) >> 1;
    return static_cast<int>(ws | 1u);
}

// A pixel is in the spatial mask when more than this many pixels of its 7x7
// neighbourhood have zero derivative; the threshold grows with the picture.
SPEEDQA_HD int mask_threshold(unsigned w, unsigned h) {
    const unsigned blocks = (w >> 6) * (h >> 6);
    int ceil_log2 = 0;
    for (unsigned t = blocks == 0 ? 0 : blocks - 1; t > 0; t >>= 1) ceil_log2++;
    return static_cast<uint16_t>((kMaskFilter * kMaskFilter + 3 * (ceil_log2 - 11) - 1) >> 1);
}

// Sizes of the five scales: each halves the one before, rounding up; with the
// speed-up the first scale is already halved.
SPEEDQA_HD void scale_sizes(int w, int h, bool speedup, int* sw, int* sh) {
    for (int s = 0; s < kScales; s++) {
        if (s > 0 || speedup) {
            w = (w + 1) >> 1;
            h = (h + 1) >> 1;
        }
        sw[s] = w;
        sh[s] = h;
    }
}

// A sample of `bitdepth` bits as a 10-bit value: 8-bit (and 9-bit) shifted
// up; deeper ones rounded down with half added, so 12- and 16-bit white
// becomes 1024.
SPEEDQA_HD uint16_t to_10bit(unsigned sample, int bitdepth) {
    if (bitdepth < 10) return static_cast<uint16_t>(sample << (10 - bitdepth));
    const int shift = bitdepth - 10;
    const unsigned half = shift == 0 ? 0u : 1u << (shift - 1);
    return static_cast<uint16_t>((sample + half) >> shift);
}

// The value of three neighbours that occurs twice, else the smallest.
SPEEDQA_HD uint16_t mode3(uint16_t a, uint16_t b, uint16_t c) {
    if (a == b || a == c) return a;
    if (b == c) return b;
    const uint16_t m = a < b ? a : b;
    return m < c ? m : c;
}

// Banding value of one level difference: `same` window pixels share the
// pixel's value, `other` have the value d + 1 levels away (the larger of the
// two sides). The product is an int converted to float, times the table's
// float reciprocal of the sum (not 1.0f / n: the table was printed with 9
// digits and read back, 42 of its entries differ from the quotient).
SPEEDQA_HD float banding_value(int weight, int same, int other, const float* reciprocal) {
    return static_cast<float>(weight * same * other) * reciprocal[same + other];
}

// The banding value of one pixel from the window counts of the levels around
// its own: centre[0] counts its level, centre[d + 1] and centre[-d - 1] the
// levels d + 1 above and below. The largest banding_value over the visible
// differences d = first .. num_diffs - 1 (0 when none is larger).
SPEEDQA_HD float pixel_banding_value(const uint16_t* centre, int first, int num_diffs, const int* weight,
                                     const float* reciprocal) {
    const int same = centre[0];
    float best = 0.0f;
    for (int d = first; d < num_diffs; d++) {
        const int up = centre[d + 1], down = centre[-d - 1];
        const int other = up > down ? up : down;
        const float v = banding_value(weight[d], same, other, reciprocal);
        if (v > best) best = v;
    }
    return best;
}

// How many of the n values topk pooling averages: (int)(topk * n), at least 1.
SPEEDQA_HD int topk_count(double topk, int n) {
    const int k = static_cast<int>(topk * n);
    return k < 1 ? 1 : (k > n ? n : k);
}

// libvmaf's selection: a Hoare partition around a[k] repeated until the k
// largest values sit in a[0, k) (in an order that depends on every step, and
// the average below sums them in that order).
SPEEDQA_HD void select_largest(float* a, int n, int k) {
    if (n == k) return;
    int left = 0, right = n - 1;
    while (left < right) {
        const float pivot = a[k];
        int i = left, j = right;
        do {
            while (a[i] > pivot) i++;
            while (a[j] < pivot) j--;
            if (i <= j) {
                const float t = a[i];
                a[i] = a[j];
                a[j] = t;
                i++;
                j--;
            }
        } while (i <= j);
        if (j < k) left = i;
        if (k < i) right = j;
    }
}

// Mean of a[0, k): a double sum in order from 0, divided by k.
SPEEDQA_HD double mean_of_first(const float* a, int k) {
    double sum = 0;
    for (int i = 0; i < k; i++) sum += a[i];
    return sum / k;
}

// The score of a picture: the scale means weighted 16, 8, 4, 2, 1, summed in
// that order from 0.0, over the pixels of a window.
SPEEDQA_HD double weighted_score(const double* scale_means, int window) {
    double score = 0.0;
    for (int s = 0; s < kScales; s++) score += scale_means[s] * scale_weight(s);
    const int side = 2 * (window >> 1) + 1;
    return score / static_cast<uint16_t>(side * side);
}

// Nearest-neighbour resampling when the picture is not at the encoding size:
// the source index of each output index, the position stepped in float from
// ratio / 2 - 0.5 (computed in double, stored as float) and rounded by
// adding 0.5 in double and truncating.
SPEEDQA_HD void nearest_sources(int in, int out, int* src) {
    const float ratio = static_cast<float>(static_cast<unsigned>(in)) / static_cast<float>(static_cast<unsigned>(out));
    float x = static_cast<float>(ratio / 2 - 0.5);
    for (int j = 0; j < out; j++) {
        src[j] = static_cast<int>(x + 0.5);
        x += ratio;
    }
}

}  // namespace speedqa::cambi
