// What integer VIF needs beyond the pixels, computed once per video format
// and option set: the size of every scale, where the reference's mirrored
// padding reads from, and the log2 table.
#pragma once

#include <array>
#include <cstdint>
#include <vector>

#include "core/video.hpp"
#include "features/vif/exact/vif_exact.hpp"

namespace speedqa::vif {

// Source of each position of an n-long axis with the reference's padding
// beside it: index p + kMaxRadius holds the position p in [-kMaxRadius,
// n + kMaxRadius) reads. The reference fills its padding one step at a time
// (position -f from f, then n - 1 + f from n - 1 - f, for f = 1, 2, ...),
// which on short axes reflects more than once; this replays those steps.
// n >= 2 (a single row or column would read memory the steps never wrote).
std::vector<int> padded_sources(int n);

// libvmaf's table: 2048 * log2(i) rounded, for the 16-bit mantissas
// 32767..65535 (others 0), through the C library's log2f.
std::vector<uint16_t> make_log2_table();

struct ScaleGeometry {
    int w = 0, h = 0;
    std::vector<int> row_src, col_src;  // padded_sources(h), padded_sources(w)
};

struct Plan {
    int bitdepth = 8;
    bool skip_scale0 = false;
    bool debug = false;
    double gain_limit = 100.0;
    std::array<ScaleGeometry, exact::vif::kScales> scales;
    std::vector<uint16_t> log2_table;
};

// Throws Error (naming vif and the limit) where the frame is too small for
// the four scales.
Plan make_plan(const VideoFormat& format, bool skip_scale0, bool debug, double gain_limit);

}  // namespace speedqa::vif
