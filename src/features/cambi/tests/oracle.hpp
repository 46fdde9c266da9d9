// CAMBI's steps as libvmaf defines them, written out directly and slowly
// (every window counted pixel by pixel): the yardstick of the C reference.
#pragma once

#include <cstdint>
#include <vector>

#include "features/cambi/plan.hpp"

namespace speedqa::cambi::oracle {

// A w x h picture of 10-bit values and its 0/1 mask, row-major, no padding.
struct Picture10 {
    int w = 0, h = 0;
    std::vector<uint16_t> value;
    std::vector<uint8_t> mask;
    uint16_t at(int r, int c) const { return value[static_cast<size_t>(r) * w + c]; }
};

// 1 where more than `threshold` of the 7x7 neighbourhood (clipped) has zero
// derivative.
std::vector<uint8_t> spatial_mask(const Picture10& p, int threshold);

// The 3-tap mode along rows, then along columns of the row-filtered picture
// (first and last rows and columns unchanged).
std::vector<uint16_t> mode_filter(const Picture10& p);

// The histogram level of every pixel (Levels).
std::vector<uint16_t> levels(const Picture10& p, const Levels& l);

// libvmaf's c_value_pixel for every pixel, with its histograms' meaning: the
// masked in-band pixels of each value in the window clipped to the picture.
std::vector<float> banding_values(const Picture10& p, int pad, const Plan& plan);

}  // namespace speedqa::cambi::oracle
