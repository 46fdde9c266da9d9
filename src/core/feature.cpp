#include "core/feature.hpp"

namespace speedqa {
namespace {

class Passthrough final : public Sequencer {
public:
    void push(long long index, const double* raw, const EmitFn& emit) override { emit(index, raw); }
    void finish(const EmitFn&) override {}
};

}  // namespace

const char* dispatch_name(Dispatch d) {
    switch (d) {
    case Dispatch::scalar: return "scalar";
    case Dispatch::avx2: return "avx2";
    default: return "avx512";
    }
}

std::unique_ptr<Sequencer> Feature::make_sequencer() const { return std::make_unique<Passthrough>(); }

std::vector<FeatureOutput> Feature::outputs_for(const std::vector<std::string>& provided, const OptionValues& options,
                                                bool deferred) {
    std::vector<FeatureOutput> out;
    for (const std::string& p : provided) out.push_back({p, vmaf_metric_name(p, options), deferred});
    return out;
}

std::unique_ptr<Feature> make_feature(const FeatureDef& def, const VideoFormat& format,
                                      const std::vector<std::pair<std::string, std::string>>& options) {
    OptionValues values(def.name, def.options);
    for (const auto& [key, text] : options) values.set(key, text);
    return def.create(format, values);
}

}  // namespace speedqa
