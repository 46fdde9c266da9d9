// Which libvmaf feature extractor provides a feature a model names: a small
// table of libvmaf's knowledge (each extractor's provided_features), so the
// model module needs no feature module.
#pragma once

#include <string_view>

namespace speedqa::model {

// The extractor ("adm", "vif", "motion", "cambi", "speed_chroma",
// "speed_temporal": the names --feature and model overloads use) that
// provides `provided` (e.g. "VMAF_integer_feature_adm3_score"), or nullptr.
const char* extractor_of(std::string_view provided);

// For a feature of libvmaf's floating-point extractors ("float_adm",
// "float_vif", "float_motion"), which speedqa does not compute: that
// extractor's name; otherwise nullptr.
const char* float_extractor_of(std::string_view provided);

}  // namespace speedqa::model
