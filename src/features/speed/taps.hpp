// Host-side construction of the filter taps (they call the C library's exp,
// so they are built once on the host and uploaded where needed).
#pragma once

#include "exact/filter.hpp"

namespace speedqa {

// vif_get_filter_size(scale, kernelscale): odd, at least 3.
int filter_size(int scale, float kernelscale);

// The anti-alias filter: scale-1 size, sigma sqrt(4) * size / 5.
exact::Taps antialias_taps(float kernelscale);

// The local-mean filter at the decimated resolution: scale-4 size, sigma size / 5.
exact::Taps local_mean_taps(float kernelscale);

// libvmaf accepts a kernelscale within 1e-3 (compared in float) of one of its 21 values.
bool kernelscale_is_valid(float kernelscale);

}  // namespace speedqa
