// Every feature speedqa computes, as --feature names them, and each
// module's parts for the device engines: the one place that wires a
// feature's folders together (its root, cpu kernels, <engine>/ parts).
#pragma once

#include <string>
#include <vector>

#include "core/engine_part.hpp"
#include "core/feature.hpp"

namespace speedqa {

const std::vector<const FeatureDef*>& all_features();
// nullptr when no feature has that name.
const FeatureDef* find_feature(const std::string& name);

// The maker of the feature's part for a device engine ("cuda"), from the
// feature's module (src/features/<name>/<engine>/); nullptr where the
// module has none, or the build lacks that engine.
PartMaker find_engine_part(const Feature& feature, const std::string& engine);

}  // namespace speedqa
