// libvmaf's pooled scores (vmaf_feature_score_pooled over all frames).
#pragma once

#include "io/score_writer.hpp"

namespace speedqa::io {

struct Pooled {
    bool valid = false;  // false with no frames: libvmaf then prints no pooled values
    double min = 0, max = 0, mean = 0, harmonic_mean = 0;
};

// Whether frame i is printed and pooled under libvmaf's --subsample.
inline bool frame_selected(unsigned i, unsigned subsample) { return !(subsample > 1 && i % subsample); }

// Pools metric m over the selected frames, in frame order and in double as
// libvmaf does: mean = sum / n, harmonic_mean = n / sum(1 / (s + 1)) - 1.
Pooled pool_metric(const ScoreTable& t, size_t m);

}  // namespace speedqa::io
