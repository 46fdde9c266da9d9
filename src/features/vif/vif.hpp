// libvmaf's integer VIF (`--feature vif`): integer_vif_scale0..3, and with
// debug=true the per-scale numerators and denominators and their sums.
#pragma once

#include "core/feature.hpp"

namespace speedqa {

const FeatureDef& vif_feature();

}  // namespace speedqa
