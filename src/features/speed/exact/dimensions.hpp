// Geometry of one image through the SpEED pipeline, as the reference derives it.
#pragma once

#include "features/speed/exact/constants.hpp"

namespace speedqa::exact {

struct Dimensions {
    int original_w = 0, original_h = 0;    // plane as read
    int scaled_w = 0, scaled_h = 0;        // after speed_prescale
    int operating_w = 0, operating_h = 0;  // after keeping every 16th row/column
    int truncated_w = 0, truncated_h = 0;  // operating, cut to whole 5x5 blocks
    int blocks_w = 0, blocks_h = 0, num_blocks = 0;
    int sub_w = 0, sub_h = 0;              // size of each of the 25 shifted submatrices
    bool prescaled = false;                // the reference skips prescaling when |ps - 1| < 1e-3

    SPEEDQA_HD int sub_count() const { return sub_w * sub_h; }
};

// `prescale` is the option value as a double, exactly as the reference keeps it.
inline Dimensions compute_dimensions(int w, int h, double prescale) {
    Dimensions d;
    d.original_w = w;
    d.original_h = h;
    // (int)(size_t * double + 0.5): the product and the sum are in double.
    d.scaled_w = static_cast<int>(static_cast<double>(w) * prescale + 0.5);
    d.scaled_h = static_cast<int>(static_cast<double>(h) * prescale + 0.5);
    d.operating_w = d.scaled_w >> kNumScales;
    d.operating_h = d.scaled_h >> kNumScales;
    d.truncated_w = d.operating_w / kBlock * kBlock;
    d.truncated_h = d.operating_h / kBlock * kBlock;
    d.blocks_w = d.truncated_w / kBlock;
    d.blocks_h = d.truncated_h / kBlock;
    d.num_blocks = d.blocks_w * d.blocks_h;
    d.sub_w = d.truncated_w - kBlock + 1;
    d.sub_h = d.truncated_h - kBlock + 1;
    d.prescaled = !(::fabs(prescale - 1.0) < 1.0e-3);
    return d;
}

}  // namespace speedqa::exact
