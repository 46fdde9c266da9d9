// libvmaf's integer motion (integer_motion.c): the sum of absolute values of
// the blurred difference of two luma planes, and the per-clip arithmetic of
// motion2 / motion3 (blend, clip) on top of it.
//
// The blur is a 5-tap Gaussian in 16-bit fixed point, vertical first on the
// difference prev - cur, rounded by the bit depth, then horizontal, rounded
// by 16 bits; borders mirror without repeating the edge sample. All integer:
// any summation order gives the same bits.
#pragma once

#include "exact/hd.hpp"

namespace speedqa::exact::motion {

inline constexpr int kTaps = 5;
inline constexpr int kRadius = kTaps / 2;

SPEEDQA_HD int32_t tap(int k) {
    switch (k) {
    case 0:
    case 4: return 3571;
    case 1:
    case 3: return 16004;
    default: return 26386;
    }
}

// -1 -> 1, n -> n - 2; valid for |overshoot| <= kRadius when n >= 3.
SPEEDQA_HD int mirror(int i, int n) { return i < 0 ? -i : (i >= n ? 2 * n - i - 2 : i); }

// The vertical sum of a column (|acc| < 2^16 * 2^bitdepth) to the blurred
// row's 32-bit value: rounded arithmetic shift by the bit depth.
SPEEDQA_HD int32_t vertical_round(int64_t acc, int bitdepth) {
    return static_cast<int32_t>((acc + (int64_t{1} << (bitdepth - 1))) >> bitdepth);
}

// The vertical pass at column j: the taps on prev - cur over the 5 rows
// (8-bit samples when `bytes`, else 16-bit), rounded.
SPEEDQA_HD int32_t vertical_at(const uint8_t* const* prev, const uint8_t* const* cur, bool bytes, int j, int bitdepth) {
    int64_t acc = 0;
    for (int k = 0; k < kTaps; k++) {
        const int32_t p = bytes ? prev[k][j] : reinterpret_cast<const uint16_t*>(prev[k])[j];
        const int32_t c = bytes ? cur[k][j] : reinterpret_cast<const uint16_t*>(cur[k])[j];
        acc += tap(k) * (p - c);
    }
    return vertical_round(acc, bitdepth);
}

// The horizontal sum to the blurred value: rounded arithmetic shift by 16.
SPEEDQA_HD int32_t horizontal_round(int64_t acc) { return static_cast<int32_t>((acc + 32768) >> 16); }

// A frame's score from its sum of absolute values: per pixel, in 8-bit
// units, weighted, clipped. The pixel count is the reference's unsigned
// product.
SPEEDQA_HD double frame_score(uint64_t sad, unsigned w, unsigned h, double fps_weight, double max_val) {
    const double s = static_cast<double>(sad) / 256. / static_cast<double>(w * h) * fps_weight;
    return s < max_val ? s : max_val;
}

// motion_blend_tools.h: a blend of the score with its value clipped at the
// offset.
SPEEDQA_HD double blend(double score, double factor, double offset) {
    return score * factor + (1 - factor) * (offset < score ? offset : score);
}

SPEEDQA_HD double clip_max(double v, double max_val) { return v < max_val ? v : max_val; }

}  // namespace speedqa::exact::motion
