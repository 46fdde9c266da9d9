#include "features/registry.hpp"

#include <cstring>

#include "features/adm/adm.hpp"
#include "features/cambi/cambi.hpp"
#include "features/motion/motion.hpp"
#include "features/speed/speed.hpp"
#include "features/vif/vif.hpp"
#ifdef SPEEDQA_HAVE_CUDA
#include "features/adm/cuda/part.hpp"
#include "features/cambi/cuda/part.hpp"
#include "features/motion/cuda/part.hpp"
#include "features/speed/cuda/part.hpp"
#include "features/vif/cuda/part.hpp"
#endif

namespace speedqa {
namespace {

// The device parts each module has: (feature, engine, maker).
struct PartEntry {
    const char* feature;
    const char* engine;
    PartMaker make;
};

const std::vector<PartEntry>& part_entries() {
    static const std::vector<PartEntry> entries = {
#ifdef SPEEDQA_HAVE_CUDA
        {"adm", "cuda", adm::make_cuda_part},
        {"cambi", "cuda", cambi::make_cuda_part},
        {"motion", "cuda", motion::make_cuda_part},
        {"speed_chroma", "cuda", speed::make_cuda_part},
        {"speed_temporal", "cuda", speed::make_cuda_part},
        {"vif", "cuda", vif::make_cuda_part},
#endif
    };
    return entries;
}

}  // namespace

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

PartMaker find_engine_part(const Feature& feature, const std::string& engine) {
    for (const PartEntry& e : part_entries())
        if (feature.name() == e.feature && engine == e.engine) return e.make;
    return nullptr;
}

}  // namespace speedqa
