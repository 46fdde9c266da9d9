#include "features/registry.hpp"

#include "features/speed/speed.hpp"

namespace speedqa {

const std::vector<const FeatureDef*>& all_features() {
    static const std::vector<const FeatureDef*> defs = {&speed_chroma_feature(), &speed_temporal_feature()};
    return defs;
}

const FeatureDef* find_feature(const std::string& name) {
    for (const FeatureDef* d : all_features())
        if (name == d->name) return d;
    return nullptr;
}

}  // namespace speedqa
