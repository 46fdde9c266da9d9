// The SpEED-QA features of libvmaf: speed_chroma (u, v, uv) and speed_temporal.
#pragma once

#include "core/feature.hpp"

namespace speedqa {

const FeatureDef& speed_chroma_feature();
const FeatureDef& speed_temporal_feature();

}  // namespace speedqa
