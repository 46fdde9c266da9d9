// Samples to floats (picture_copy): offset -128, and for more than 8 bits a
// division by 4, 16 or 256 first. Temporal differences are a float subtraction
// of two converted samples (subtract_image).
#pragma once

#include "features/speed/exact/constants.hpp"

namespace speedqa::exact {

inline constexpr int kSampleOffset = -128;

// 1 for 8-bit (no division), else 4, 16, 256 for 10, 12, 16 bits.
SPEEDQA_HD float sample_scaler(int bitdepth) {
    return bitdepth == 10 ? 4.0f : bitdepth == 12 ? 16.0f : bitdepth == 16 ? 256.0f : 1.0f;
}

SPEEDQA_HD float convert_8bit(uint8_t s) { return static_cast<float>(s) + static_cast<float>(kSampleOffset); }

SPEEDQA_HD float convert_hbd(uint16_t s, float scaler) {
    return static_cast<float>(s) / scaler + static_cast<float>(kSampleOffset);
}

}  // namespace speedqa::exact
