#include "features/vif/vif_plan.hpp"

#include <math.h>

#include <cmath>
#include <stdexcept>
#include <string>

#include "core/error.hpp"

namespace speedqa::vif {

using exact::vif::kMaxRadius;

std::vector<int> padded_sources(int n) {
    if (n < 2) throw std::logic_error("vif: padded_sources needs at least 2 positions");
    std::vector<int> src(static_cast<size_t>(n) + 2 * kMaxRadius);
    int* at = src.data() + kMaxRadius;
    for (int p = 0; p < n; p++) at[p] = p;
    for (int f = 1; f <= kMaxRadius; f++) {
        at[-f] = at[f];
        at[n - 1 + f] = at[n - 1 - f];
    }
    return src;
}

std::vector<uint16_t> make_log2_table() {
    std::vector<uint16_t> t(exact::vif::kLogTableSize, 0);
    for (unsigned i = 32767; i < 65536; i++) {
        // float log2f, times 2048 in float, rounded half away from zero
        const float scaled = ::log2f(static_cast<float>(i)) * 2048;
        t[i] = static_cast<uint16_t>(std::round(static_cast<double>(scaled)));
    }
    return t;
}

Plan make_plan(const VideoFormat& format, bool skip_scale0, bool debug, double gain_limit) {
    // the last scale is the frame halved three times; the reference's
    // padding of a 1-wide row or column copies memory it never wrote
    constexpr int kMinSide = 2 << (exact::vif::kScales - 1);
    if (format.width < kMinSide || format.height < kMinSide)
        throw Error("vif: the frame is " + std::to_string(format.width) + "x" + std::to_string(format.height) +
                    "; integer VIF needs at least " + std::to_string(kMinSide) + "x" + std::to_string(kMinSide) +
                    " (its fourth scale, halved three times, must keep 2x2 pixels)");
    Plan p;
    p.bitdepth = format.bitdepth;
    p.skip_scale0 = skip_scale0;
    p.debug = debug;
    p.gain_limit = gain_limit;
    int w = format.width, h = format.height;
    for (ScaleGeometry& g : p.scales) {
        g.w = w;
        g.h = h;
        g.row_src = padded_sources(h);
        g.col_src = padded_sources(w);
        w /= 2;
        h /= 2;
    }
    p.log2_table = make_log2_table();
    return p;
}

}  // namespace speedqa::vif
