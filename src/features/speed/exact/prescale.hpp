// speed_prescale: resampling a plane before filtering, as vif_tools.c does.
//
// Each output pixel depends on its column through (indices, weights) and on
// its row through the same; both are tabulated on the host once per
// geometry (lanczos4 calls the C library's sin), and the combination below is
// the part both backends run.
#pragma once

#include "features/speed/exact/constants.hpp"

namespace speedqa::exact {

enum class PrescaleMethod : int { nearest = 0, bilinear = 1, bicubic = 2, lanczos4 = 3 };

inline constexpr int kMaxInterpTaps = 9;  // lanczos4: 2a + 1

// How many entries of AxisTaps the method reads.
SPEEDQA_HD constexpr int interp_taps(PrescaleMethod m) {
    return m == PrescaleMethod::nearest ? 1 : m == PrescaleMethod::bilinear ? 2 : m == PrescaleMethod::bicubic ? 4 : 9;
}

// Where one output coordinate reads from: source indices (already mirrored)
// and per-tap weights. nearest: idx[0]. bilinear: idx[0] = floor side,
// idx[1] = ceil side, w[0] = fraction. bicubic: 4 taps. lanczos4: 9 taps.
struct AxisTaps {
    int idx[kMaxInterpTaps];
    float w[kMaxInterpTaps];
};

// `src(y, x)` returns the source sample at row y, column x.
template <class Src>
SPEEDQA_HD float interpolate(PrescaleMethod method, const AxisTaps& ax, const AxisTaps& ay, Src&& src) {
    switch (method) {
    case PrescaleMethod::nearest:
        return src(ay.idx[0], ax.idx[0]);
    case PrescaleMethod::bilinear: {
        const float dx = ax.w[0], dy = ay.w[0];
        const int x1 = ax.idx[0], x2 = ax.idx[1], y1 = ay.idx[0], y2 = ay.idx[1];
        return (1 - dy) * (1 - dx) * src(y1, x1) + (1 - dy) * dx * src(y1, x2) +
               dy * (1 - dx) * src(y2, x1) + dy * dx * src(y2, x2);
    }
    case PrescaleMethod::bicubic: {
        float value = 0.0f;
        for (int j = 0; j < 4; j++)
            for (int i = 0; i < 4; i++) {
                const float weight = ax.w[i] * ay.w[j];
                value += src(ay.idx[j], ax.idx[i]) * weight;
            }
        return value;
    }
    case PrescaleMethod::lanczos4:
    default: {
        float value = 0.0f, weight_sum = 0.0f;
        for (int j = 0; j < 9; j++)
            for (int i = 0; i < 9; i++) {
                const float weight = ax.w[i] * ay.w[j];
                weight_sum += weight;
                value += src(ay.idx[j], ax.idx[i]) * weight;
            }
        return value / weight_sum;
    }
    }
}

}  // namespace speedqa::exact
