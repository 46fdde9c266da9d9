// Every feature speedqa computes, as --feature names them.
#pragma once

#include <string>
#include <vector>

#include "core/feature.hpp"

namespace speedqa {

const std::vector<const FeatureDef*>& all_features();
// nullptr when no feature has that name.
const FeatureDef* find_feature(const std::string& name);

}  // namespace speedqa
