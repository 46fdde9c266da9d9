#include "oracle.hpp"

#include <algorithm>

#include "features/cambi/exact/arith.hpp"

namespace speedqa::cambi::oracle {

std::vector<uint8_t> spatial_mask(const Picture10& p, int threshold) {
    auto zero_derivative = [&](int r, int c) {
        const bool right = c == p.w - 1 || p.at(r, c) == p.at(r, c + 1);
        const bool down = r == p.h - 1 || p.at(r, c) == p.at(r + 1, c);
        return right && down;
    };
    std::vector<uint8_t> out(p.value.size());
    for (int r = 0; r < p.h; r++)
        for (int c = 0; c < p.w; c++) {
            int n = 0;
            for (int y = std::max(0, r - kMaskPad); y <= std::min(p.h - 1, r + kMaskPad); y++)
                for (int x = std::max(0, c - kMaskPad); x <= std::min(p.w - 1, c + kMaskPad); x++) n += zero_derivative(y, x);
            out[static_cast<size_t>(r) * p.w + c] = n > threshold;
        }
    return out;
}

std::vector<uint16_t> mode_filter(const Picture10& p) {
    std::vector<uint16_t> rows(p.value.size()), out = p.value;
    for (int r = 0; r < p.h; r++)
        for (int c = 0; c < p.w; c++)
            rows[static_cast<size_t>(r) * p.w + c] =
                c == 0 || c == p.w - 1 ? p.at(r, c) : mode3(p.at(r, c - 1), p.at(r, c), p.at(r, c + 1));
    for (int r = 1; r + 1 < p.h; r++)
        for (int c = 0; c < p.w; c++) {
            const size_t i = static_cast<size_t>(r) * p.w + c;
            out[i] = mode3(rows[i - static_cast<size_t>(p.w)], rows[i], rows[i + static_cast<size_t>(p.w)]);
        }
    return out;
}

std::vector<uint16_t> levels(const Picture10& p, const Levels& l) {
    std::vector<uint16_t> out(p.value.size());
    for (size_t i = 0; i < out.size(); i++) {
        const int v = p.value[i];
        const bool counted = p.mask[i] && v >= l.band_base && v < l.band_base + l.band_size;
        out[i] = static_cast<uint16_t>(counted ? v - l.band_base + l.margin : l.uncounted);
    }
    return out;
}

std::vector<float> banding_values(const Picture10& p, int pad, const Plan& plan) {
    const Levels& l = plan.levels;
    const int nd = plan.num_diffs;
    auto in_band = [&](int v) { return v >= l.band_base && v < l.band_base + l.band_size; };
    std::vector<float> out(p.value.size(), 0.0f);
    for (int r = 0; r < p.h; r++)
        for (int c = 0; c < p.w; c++) {
            const int v = p.at(r, c);
            if (!p.mask[static_cast<size_t>(r) * p.w + c] || !in_band(v)) continue;
            auto count = [&](int u) {
                if (!in_band(u)) return 0;  // the histograms hold the band only
                int n = 0;
                for (int y = std::max(0, r - pad); y <= std::min(p.h - 1, r + pad); y++)
                    for (int x = std::max(0, c - pad); x <= std::min(p.w - 1, c + pad); x++)
                        n += p.mask[static_cast<size_t>(y) * p.w + x] && p.at(y, x) == u;
                return n;
            };
            const int value = v + nd, same = count(v);
            float best = 0.0f;
            for (int d = 0; d < nd; d++) {
                if (!(value <= plan.tvi[static_cast<size_t>(d)] && value + d + 1 > plan.vlt_luma)) continue;
                const int other = std::max(count(v + d + 1), count(v - d - 1));
                const float x = banding_value(contrast_weight(d), same, other, plan.reciprocal.data());
                if (x > best) best = x;
            }
            out[static_cast<size_t>(r) * p.w + c] = best;
        }
    return out;
}

}  // namespace speedqa::cambi::oracle
