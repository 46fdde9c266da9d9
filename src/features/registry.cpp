#include "features/registry.hpp"

#include "features/adm/adm.hpp"
#include "features/cambi/cambi.hpp"
#include "features/motion/motion.hpp"
#include "features/speed/speed.hpp"
#include "features/vif/vif.hpp"

namespace speedqa {

const std::vector<const FeatureDef*>& all_features() {
    static const std::vector<const FeatureDef*> defs = {&adm_feature(),           &vif_feature(),           &motion_feature(),
                                                        &cambi_feature(),         &speed_chroma_feature(),
                                                        &speed_temporal_feature()};
    return defs;
}

const FeatureDef* find_feature(const std::string& name) {
    for (const FeatureDef* d : all_features())
        if (name == d->name) return d;
    return nullptr;
}

}  // namespace speedqa
