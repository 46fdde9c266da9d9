// libvmaf's integer motion (`--feature motion`): the per-frame score
// VMAF_integer_feature_motion_sad_score, with debug=true again as
// integer_motion, and integer_motion2 / integer_motion3, which libvmaf writes
// when the clip ends (deferred outputs).
#pragma once

#include "core/feature.hpp"

namespace speedqa {

const FeatureDef& motion_feature();

}  // namespace speedqa
