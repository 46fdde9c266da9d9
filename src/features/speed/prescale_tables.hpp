// Host construction of the per-column and per-row resampling taps.
#pragma once

#include <vector>

#include "features/speed/exact/prescale.hpp"

namespace speedqa {

// Taps for every output coordinate 0..dst-1 of one axis resampled from src.
std::vector<exact::AxisTaps> prescale_axis_taps(exact::PrescaleMethod method, int src, int dst);

}  // namespace speedqa
